//! Curved surfaces: BEZIER (0x05) and SPLINE (0x06) tessellation.
//!
//! The GE turns a grid of control points into a mesh and draws it as PATCHPRIMITIVE.
//! [`TessellationRule::Ppsspp`] reproduces PPSSPP's software tessellator (the reference
//! for the synthetic conformance scenes); [`TessellationRule::Hardware`] differs from it in
//! three measured ways: spline knots are the textbook clamped/uniform B-spline (PPSSPP's
//! divisors bend 4-point open splines away from the Bézier the PSP draws), spline basis
//! values are 16-bit fixed point summing to one (`basis::fixed_point_basis`), and
//! evaluated colours are rounded up [HW primitives-spline: PPSSPP's MSE 161.7 → 0.0013
//! with the knots, colours and the hardware raster rule, 242 → 2 differing pixels with
//! the fixed-point basis; primitives-bezier 21.6 → 0.00004, coverage exact, the remaining
//! pixels off by one colour step]. guess: the PSP's other arithmetic (Bézier weights,
//! sums, texcoords, normals) is modelled by PPSSPP's float evaluation.
//!
//! * [`PatchParams::decode`] reads the draw command and the PATCH* registers once.
//! * [`tessellate`] evaluates the surface on a grid of `PATCHDIVISION` steps per patch and
//!   returns the vertices, an index list and the primitive type, in exactly the order
//!   PPSSPP hands them to its primitive assembly (so float rounding and winding match).
//!
//! Bézier grids hold `(n − 1)/3` independent patches per direction, each with its own
//! `(du + 1)(dv + 1)` vertices; spline grids hold `n − 3` patches sharing one vertex
//! grid. Position, colour and texture coordinates are evaluated with the basis (without
//! a colour field every vertex takes the first control point's colour; without
//! texcoords they are generated: see [`tessellate`]); normals come from the cross
//! product of the two partial derivatives. Float operation order, the "edge weight is
//! exactly 1" shortcuts and the x86 SIMD roundings of PPSSPP are kept
//! [PP `GPU/Common/SplineCommon.cpp`]. During development the output was compared with
//! PPSSPP's own tessellator compiled for x86-64 on 3,000 random surfaces: positions,
//! colours, texcoords and indices matched bit for bit (normals to the CPU's `RSQRTPS`).
//!
//! The evaluator packs attributes weighed alike into the lanes of an `f32x4` (position
//! and s; ∂P/∂u and t; the colour), each lane the scalar expression in the same order
//! (checked against the scalar evaluator kept in `plain.rs`). Measured (callgrind, 11216,
//! PPSSPP model, 1 thread): `Grid::evaluate` 41.4 → 35.7 M instructions, whole replay
//! 776.7 → 771.6 M.
//!
//! What the caller (the draw stage) must know about the output, from PPSSPP
//! `DrawEngineCommon::SubmitCurve` + `NormalizeVertices`:
//! * Control points are decoded, morphed *and skinned* before tessellation; the
//!   generated vertices are then drawn as an unskinned, unmorphed vertex format that
//!   always has float texcoords, an 8888 colour, a float normal and a float position
//!   (through bit kept). Texture coordinates are not scaled here: TEXSCALE/TEXOFFSET
//!   apply when the mesh is transformed, as for any other draw.
//! * The mesh is submitted as one fresh primitive (no continuation with what came
//!   before), with the ordinary CULL state.

mod basis;
#[cfg(test)]
mod plain;
#[cfg(test)]
mod tests;

pub use basis::{bezier_weights, normalized_approx, spline_weights, spline_weights_exact, Weight};

use crate::cmd::fields::PatchArg;
use crate::cmd::{op, reg};
use crate::geom::{ColorFormat, PrimType, Vertex, VertexType};
use crate::regs::Regs;
use crate::transform::math::cvtt_ceil;
use crate::transform::RsqrtRule;
use basis::{u8_to_unit, unit_to_u8, units_to_u8};
use wide::f32x4;

/// Which curve the control grid describes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PatchKind {
    Bezier,
    /// Edge type bit 0: the first edge is open (the curve reaches the first control
    /// point); bit 1: the last edge is open.
    Spline {
        u_edge: u8,
        v_edge: u8,
    },
}

/// How the surface is evaluated: the PSP's rules or PPSSPP's tessellator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum TessellationRule {
    /// The PSP: textbook B-spline knots ([`spline_weights_exact`]) and colours rounded up
    /// (`TessellationRule::color`).
    #[default]
    Hardware,
    /// PPSSPP's `SplineCommon.cpp`: its knot divisors, colours in 0..1 rounded half to even.
    Ppsspp,
}

impl TessellationRule {
    /// A control colour channel as the evaluator weighs it: the byte itself (Hardware) or
    /// `c · (1/255)` [PP `Vec4<float>::FromRGBA`].
    fn unit(self, c: u8) -> f32 {
        match self {
            TessellationRule::Hardware => f32::from(c),
            TessellationRule::Ppsspp => u8_to_unit(c),
        }
    }

    /// An evaluated colour channel back to a byte. Hardware: rounded up, `⌈Σ wᵢ·cᵢ⌉`
    /// clamped to 0..=255 (a weight of exactly 1 returns the control byte untouched)
    /// [HW primitives-bezier points patch: green 0, 255, 255, 255 down the control rows
    /// reads 148, 224, 252 at v = ¼, ½, ¾, where the exact values are 147.4, 223.1, 251.0;
    /// inds16 patch: control rows 0, 0, 119, 119 need the v = ¼ vertex at 19 (exact 18.6)
    /// and rows 255, 255, 119, 119 need 234 (exact 233.75) for the Gouraud rows between
    /// them to match; rounding to nearest leaves 3 619 pixels of primitives-bezier off by
    /// one, rounding up 15; re-checked with the colour-plane raster rule: rounding up leaves
    /// 527 pixels of primitives-bezier off, to nearest 6 113, down 9 069]. PPSSPP:
    /// [`unit_to_u8`].
    fn color(self, x: f32) -> u8 {
        match self {
            // Clamped first, then the ceiling: the same byte (`⌈·⌉` is monotonic and 0, 255
            // are integers), and `cvtt_ceil` in range needs no `ceilf` call, which the x86-64
            // baseline (no `ROUNDSS`) made per channel: 11216 (hardware model) 718.4 ->
            // 709.4 M instructions. Test `hardware_colour_rounding_is_the_ceiling`.
            TessellationRule::Hardware => {
                if x.is_nan() {
                    0
                } else {
                    cvtt_ceil(x.clamp(0.0, 255.0)) as u8
                }
            }
            TessellationRule::Ppsspp => unit_to_u8(x),
        }
    }

    /// [`TessellationRule::color`] of the four channels of an evaluated colour.
    #[inline]
    fn colors(self, x: [f32; 4]) -> [u8; 4] {
        match self {
            TessellationRule::Hardware => x.map(|c| self.color(c)),
            TessellationRule::Ppsspp => units_to_u8(x),
        }
    }

    fn spline_weights(self, tess: u32, count: u32, edge: u8) -> Vec<Weight> {
        match self {
            TessellationRule::Hardware => basis::spline_weights_exact(tess, count, edge),
            TessellationRule::Ppsspp => basis::spline_weights(tess, count, edge),
        }
    }
}

/// One BEZIER/SPLINE draw, decoded from its command and the PATCH* registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PatchParams {
    pub kind: PatchKind,
    /// Control points per row (u) and per column (v): command bits 0–7 and 8–15.
    pub u_count: u32,
    pub v_count: u32,
    /// PATCHDIVISION bits 0–6 and 8–14, raw (0 is drawn as 1).
    pub u_div: u32,
    pub v_div: u32,
    /// PATCHPRIMITIVE: 0 triangles, 1 lines, 2/3 points
    pub output: u32,
    /// PATCHFACING bit 0: generated normals are negated.
    pub reverse_normals: bool,
    /// The vertex format has texture coordinates; otherwise they are generated.
    pub has_texcoord: bool,
    /// The vertex format's colour field is non-zero (PPSSPP tests the raw field, so the
    /// invalid formats 1–3 count); otherwise every vertex takes the first control
    /// point's colour.
    pub has_color: bool,
    /// Normals are evaluated from the surface: the format has normals *or*
    /// LIGHTINGENABLE is set [PP `SubdivisionSurface::Tessellate` dispatch]. Otherwise
    /// every normal is (0, 0, 1).
    pub has_normal: bool,
    /// For an indexed draw, the largest control-point index; `None` when unindexed.
    /// Only used to reproduce PPSSPP's scratch-memory limit ([`ppsspp_scratch_fits`]).
    pub max_index: Option<u32>,
    /// The model's evaluation arithmetic (PPSSPP's unless the caller picks another).
    pub rule: TessellationRule,
    /// How the tessellated normals are normalised (decided by the model).
    pub rsqrt: RsqrtRule,
}

impl PatchParams {
    /// Decode a BEZIER (0x05) or SPLINE (0x06) command; any other `cmd` is read as
    /// BEZIER. Fields per ge-reference.md §1.2 and PP `SoftGPU::Execute_Bezier/Spline`.
    pub fn decode(regs: &Regs, cmd: u8, arg: u32, vtype: &VertexType) -> PatchParams {
        let arg = PatchArg(arg);
        let kind = if cmd == op::SPLINE {
            PatchKind::Spline { u_edge: arg.u_edge() as u8, v_edge: arg.v_edge() as u8 }
        } else {
            PatchKind::Bezier
        };
        let div = regs.get(reg::PATCHDIVISION);
        PatchParams {
            kind,
            u_count: arg.u_count(),
            v_count: arg.v_count(),
            u_div: div.u(),
            v_div: div.v(),
            output: regs.get(reg::PATCHPRIMITIVE).prim(),
            reverse_normals: regs.enabled(op::PATCHFACING),
            has_texcoord: vtype.has_texcoord(),
            has_color: vtype.color != ColorFormat::None,
            has_normal: vtype.has_normal() || regs.enabled(op::LIGHTINGENABLE),
            max_index: None,
            rule: TessellationRule::Ppsspp,
            rsqrt: RsqrtRule::Exact,
        }
    }

    /// The primitive the mesh is drawn as [PP `ge_constants.h` `PatchPrimToPrim`]:
    /// 0 triangles, 1 lines, 2 and 3 points.
    pub fn primitive(&self) -> PrimType {
        match self.output & 3 {
            0 => PrimType::Triangles,
            1 => PrimType::Lines,
            _ => PrimType::Points,
        }
    }

    /// Control points the draw reads (u × v).
    pub fn control_count(&self) -> u32 {
        (self.u_count & 0xFF) * (self.v_count & 0xFF)
    }
}

/// The generated mesh: draw `vertices[indices[k]]` for every `k`, as `prim`.
#[derive(Clone, Debug, PartialEq)]
pub struct Tessellation {
    pub vertices: Vec<Vertex>,
    pub indices: Vec<u32>,
    pub prim: PrimType,
}

/// PPSSPP's output buffer holds 65536 vertices; larger tessellations are reduced
/// [PP `DrawEngineCommon.h` `DECODED_VERTEX_BUFFER_SIZE` / 2 / sizeof(SimpleVertex)].
pub const MAX_VERTICES: u64 = 65536;

/// Bytes of PPSSPP's scratch area for control points (half the decoded-vertex buffer).
const SCRATCH_BYTES: u64 = 65536 * 2 * 36 / 2;

/// Whether PPSSPP's control-point scratch allocations fit: the simplified points (up
/// to the largest index), a decode buffer, a pointer table, and position (16-byte SSE
/// vectors), texcoord and colour arrays, each rounded up to 16 bytes. When they do not
/// (about 19,600 points), PPSSPP skips the draw [PP `SubmitCurve`, `SimpleBufferManager`].
pub fn ppsspp_scratch_fits(num_points: u32, max_index: Option<u32>) -> bool {
    let n = u64::from(num_points);
    let highest = max_index.map_or(n.saturating_sub(1), u64::from);
    let align = |b: u64| (b + 15) & !15;
    let total = align(36 * (highest + 1)) + align(36 * n) + align(8 * n) + align(16 * n) + align(8 * n) + align(16 * n);
    total <= SCRATCH_BYTES
}

/// Patches along u and v for `points_u` × `points_v` control points (at least 4 each).
fn patch_counts(bezier: bool, points_u: i64, points_v: i64) -> (i64, i64) {
    if bezier {
        ((points_u - 1) / 3, (points_v - 1) / 3)
    } else {
        (points_u - 3, points_v - 3)
    }
}

/// Step counts per patch before any reduction. A division of 0 is drawn as 1; the
/// headless reference uses the highest curve quality, which keeps the register values
/// [PP `SurfaceInfo::BaseInit`].
fn steps(params: &PatchParams) -> (i64, i64) {
    (i64::from(params.u_div & 0x7F).max(1), i64::from(params.v_div & 0x7F).max(1))
}

/// Vertices of the tessellated mesh: Bézier patches each have their own grid, spline
/// patches share their edges.
fn mesh_vertices(bezier: bool, patches_u: i64, patches_v: i64, tu: i64, tv: i64) -> i64 {
    if bezier {
        (tu + 1) * (tv + 1) * patches_u * patches_v
    } else {
        (patches_u * tu + 1) * (patches_v * tv + 1)
    }
}

/// An upper bound of the vertices a patch command draws (0 when it draws nothing for
/// lack of control points), at most [`MAX_VERTICES`]; reads no memory. The fuzz
/// harness charges patches with it.
pub fn vertex_bound(params: &PatchParams) -> u64 {
    let (points_u, points_v) = (i64::from(params.u_count & 0xFF), i64::from(params.v_count & 0xFF));
    if points_u < 4 || points_v < 4 {
        return 0;
    }
    let bezier = params.kind == PatchKind::Bezier;
    let (patches_u, patches_v) = patch_counts(bezier, points_u, points_v);
    let (tu, tv) = steps(params);
    mesh_vertices(bezier, patches_u, patches_v, tu, tv).clamp(0, MAX_VERTICES as i64) as u64
}

/// The grid after PPSSPP's set-up: step counts per patch (possibly reduced to fit
/// [`MAX_VERTICES`]) and patch counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Surface {
    bezier: bool,
    tess_u: usize,
    tess_v: usize,
    points_u: usize,
    patches_u: usize,
    patches_v: usize,
}

impl Surface {
    /// `None` when the draw produces nothing.
    fn new(params: &PatchParams, control_len: usize) -> Option<Surface> {
        let points_u = (params.u_count & 0xFF) as i64;
        let points_v = (params.v_count & 0xFF) as i64;
        // Fewer than 4 points in either direction draws nothing [PP `SubmitCurve`,
        // "real hardware seems to draw nothing"].
        if points_u < 4 || points_v < 4 || control_len < (points_u * points_v) as usize {
            return None;
        }
        if !ppsspp_scratch_fits((points_u * points_v) as u32, params.max_index) {
            return None;
        }
        let bezier = params.kind == PatchKind::Bezier;
        let (patches_u, patches_v) = patch_counts(bezier, points_u, points_v);
        let (mut tu, mut tv) = steps(params);
        let count = |tu: i64, tv: i64| mesh_vertices(bezier, patches_u, patches_v, tu, tv);
        // Reduce both step counts together until the mesh fits [PP `*Surface::Init`].
        while count(tu, tv) > MAX_VERTICES as i64 {
            tu -= 1;
            tv -= 1;
        }
        // A step count reduced to 0 or below leaves PPSSPP with no indices at all.
        if tu < 1 || tv < 1 {
            return None;
        }
        Some(Surface {
            bezier,
            tess_u: tu as usize,
            tess_v: tv as usize,
            points_u: points_u as usize,
            patches_u: patches_u as usize,
            patches_v: patches_v as usize,
        })
    }

    fn vertex_count(&self) -> usize {
        if self.bezier {
            (self.tess_u + 1) * (self.tess_v + 1) * self.patches_u * self.patches_v
        } else {
            (self.patches_u * self.tess_u + 1) * (self.patches_v * self.tess_v + 1)
        }
    }

    /// First step of a patch: spline patches after the first share their first row or
    /// column with the previous patch [PP `GetTessStart`].
    fn start(&self, patch: usize) -> usize {
        usize::from(!self.bezier && patch != 0)
    }

    /// Output slots per grid row of the patches `patch_u` (a run of one Bézier patch, or
    /// every spline patch: see [`Surface::out_index`]).
    fn row_width(&self, patch_u: &std::ops::Range<usize>) -> usize {
        if self.bezier {
            (self.tess_u + 1) * patch_u.len()
        } else {
            self.patches_u * self.tess_u + 1
        }
    }

    /// Index of the patch's first control point [PP `GetPointIndex`].
    fn point_index(&self, patch_u: usize, patch_v: usize) -> usize {
        if self.bezier {
            patch_v * 3 * self.points_u + patch_u * 3
        } else {
            patch_v * self.points_u + patch_u
        }
    }

    /// Output slot of step (tile_u, tile_v) of a patch [PP `GetIndexU/V`, `GetIndex`].
    fn out_index(&self, patch_u: usize, patch_v: usize, tile_u: usize, tile_v: usize) -> usize {
        if self.bezier {
            let per_patch = (self.tess_u + 1) * (self.tess_v + 1);
            tile_v * (self.tess_u + 1) + tile_u + per_patch * (patch_v * self.patches_u + patch_u)
        } else {
            let row = self.patches_u * self.tess_u + 1;
            (patch_v * self.tess_v + tile_v) * row + patch_u * self.tess_u + tile_u
        }
    }

    /// Weight-table entry of a step [PP `GetIndexU/V`].
    fn weight_index(&self, patch: usize, tile: usize, tess: usize) -> usize {
        if self.bezier {
            tile
        } else {
            patch * tess + tile
        }
    }

    fn build_indices(&self, lines: Option<TessellationRule>) -> Vec<u32> {
        let mut out = Vec::new();
        if self.bezier {
            let per_patch = (self.tess_u + 1) * (self.tess_v + 1);
            out.reserve(6 * self.tess_u * self.tess_v * self.patches_u * self.patches_v);
            // u-major patch order [PP `BezierSurface::BuildIndex`].
            for patch_u in 0..self.patches_u {
                for patch_v in 0..self.patches_v {
                    let base = (patch_v * self.patches_u + patch_u) * per_patch;
                    push_grid(&mut out, self.tess_u, self.tess_v, base, lines);
                }
            }
        } else {
            let (nu, nv) = (self.patches_u * self.tess_u, self.patches_v * self.tess_v);
            out.reserve(6 * nu * nv);
            push_grid(&mut out, nu, nv, 0, lines);
        }
        out
    }
}

/// Six indices per grid cell, rows of cells top to bottom. Triangles and points use
/// (tl, bl, tr), (tr, bl, br). PPSSPP's lines draw the left edge, the right edge and the
/// diagonal: (tl, bl), (tr, br), (tr, bl) [PP `SplineCommon.cpp` `CopyQuadIndex`,
/// `BuildIndex`]; the PSP's lines are each row's triangle strip (tl, bl) of every column
/// left to right, drawn as a line strip: the verticals run down, the diagonals up from bl
/// to tr, and a cell's top and bottom edges are not drawn either [HW primitives-bezier
/// lines patch: only a diagonal starting at (177.5, 40.0) lights pixel (177, 40) under the
/// diamond-exit rule (raster/line.rs); primitives-bezier and primitives-spline 2 → 0
/// differing pixels with it, 2 each with PPSSPP's order]. guess: per-cell lines (tl, bl),
/// (tr, br), (bl, tr) fit the screenshots as well; the strip is the vertex stream the
/// triangle mode draws.
fn push_grid(out: &mut Vec<u32>, num_u: usize, num_v: usize, base: usize, lines: Option<TessellationRule>) {
    for v in 0..num_v {
        let top = |u: usize| (v * (num_u + 1) + u + base) as u32;
        let bottom = |u: usize| ((v + 1) * (num_u + 1) + u + base) as u32;
        if lines == Some(TessellationRule::Hardware) {
            // The strip tl0, bl0, tl1, bl1, …: one line per consecutive pair.
            for u in 0..=num_u {
                out.extend_from_slice(&[top(u), bottom(u)]);
                if u < num_u {
                    out.extend_from_slice(&[bottom(u), top(u + 1)]);
                }
            }
            continue;
        }
        for u in 0..num_u {
            let (tl, bl) = (top(u), bottom(u));
            let (tr, br) = (tl + 1, bl + 1);
            if lines.is_some() {
                out.extend_from_slice(&[tl, bl, tr, br, tr, bl]);
            } else {
                out.extend_from_slice(&[tl, bl, tr, tr, bl, br]);
            }
        }
    }
}

/// `p0·w0 + p1·w1 + p2·w2 + p3·w3`, left to right, in every lane, except that a weight
/// set starting (ending) with exactly 1 returns the first (last) value untouched
/// [PP `Tessellator::SampleU/SampleV`]. Each lane is the scalar expression with the same
/// IEEE operations in the same order (`wide` fuses no multiply-add).
#[inline(always)]
fn sample(p: &[f32x4; 4], w: &[f32; 4]) -> f32x4 {
    if w[0] == 1.0 {
        return p[0];
    }
    if w[3] == 1.0 {
        return p[3];
    }
    p[0] * f32x4::splat(w[0]) + p[1] * f32x4::splat(w[1]) + p[2] * f32x4::splat(w[2]) + p[3] * f32x4::splat(w[3])
}

/// The four control points of a row from `first` (zeros past the end, which
/// [`Surface::new`] rules out).
#[inline(always)]
fn row4<T: Copy + Default>(attr: &[T], first: usize) -> [T; 4] {
    match attr.get(first..first + 4) {
        Some(s) => [s[0], s[1], s[2], s[3]],
        None => [T::default(); 4],
    }
}

/// `f` of each of the four control rows.
#[inline(always)]
fn each(rows: &[usize; 4], f: impl Fn(usize) -> f32x4) -> [f32x4; 4] {
    [f(rows[0]), f(rows[1]), f(rows[2]), f(rows[3])]
}

/// [`sample`] of one scalar.
#[inline(always)]
fn sample1(p: &[f32; 4], w: &[f32; 4]) -> f32 {
    if w[0] == 1.0 {
        return p[0];
    }
    if w[3] == 1.0 {
        return p[3];
    }
    p[0] * w[0] + p[1] * w[1] + p[2] * w[2] + p[3] * w[3]
}

#[inline]
fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}

/// Units of work a split tessellation aims for (rows are cut into bands below it).
const SPLIT_UNITS: usize = 4;

/// Steps `tiles` (v) of the patches `patch_u` in row `patch_v`, and their output slots.
struct Unit<'o> {
    patch_v: usize,
    patch_u: std::ops::Range<usize>,
    tiles: std::ops::Range<usize>,
    slots: &'o mut [Vertex],
}

/// What evaluating the surface reads, shared by the units of work. Attributes that are
/// weighed alike share the lanes of one `f32x4`: position and s in `pos_s`, the colour in
/// `col`; t is carried through the u pass alone and joins the u derivative's free lane.
struct Grid<'a> {
    s: Surface,
    params: &'a PatchParams,
    wu: &'a [Weight],
    wv: &'a [Weight],
    /// (x, y, z, s) per control point (s = 0 without texcoords).
    pos_s: &'a [f32x4],
    /// t per control point (empty without texcoords).
    t: &'a [f32],
    /// Colour channels as the rule weighs them (empty without a colour field).
    col: &'a [f32x4],
    default_color: [u8; 4],
}

impl Grid<'_> {
    /// Evaluate one unit's steps into its slots. Lanes: the u pass gives, per control
    /// row, `ps` = (x, y, z, s) and `dt` = (∂x, ∂y, ∂z along u, t); the v pass weighs
    /// both, and the colour, with the same v basis, so one [`sample`] yields position
    /// and s, another ∂P/∂u and t (scalar reference: `plain.rs`, test
    /// `lanes_equal_the_scalar_evaluation`).
    fn evaluate(&self, unit: Unit<'_>) {
        let (s, params) = (&self.s, self.params);
        let Unit { patch_v, patch_u: patches, tiles, slots: row } = unit;
        let base = s.out_index(patches.start, patch_v, 0, tiles.start);
        // Slots between consecutive v steps of one u step.
        let stride = if s.bezier { s.tess_u + 1 } else { s.patches_u * s.tess_u + 1 };
        let inv_u = 1.0f32 / s.tess_u as f32;
        let inv_v = 1.0f32 / s.tess_v as f32;
        let (has_color, has_tex, has_normal) = (params.has_color, params.has_texcoord, params.has_normal);
        let wv = match tiles.is_empty() {
            true => &[][..],
            false => {
                let (lo, hi) =
                    (s.weight_index(patch_v, tiles.start, s.tess_v), s.weight_index(patch_v, tiles.end - 1, s.tess_v));
                self.wv.get(lo..=hi).unwrap_or(&[])
            }
        };
        let points_u = s.points_u;
        for patch_u in patches {
            let first = s.point_index(patch_u, patch_v);
            let rows = [first, first + points_u, first + 2 * points_u, first + 3 * points_u];
            for tile_u in s.start(patch_u)..=s.tess_u {
                let Some(w_u) = self.wu.get(s.weight_index(patch_u, tile_u, s.tess_u)) else {
                    continue;
                };
                let Some(col0) = s.out_index(patch_u, patch_v, tile_u, tiles.start).checked_sub(base) else {
                    continue;
                };
                let ps = each(&rows, |r| sample(&row4(self.pos_s, r), &w_u.basis));
                let dt = match (has_normal, has_tex) {
                    (true, true) => each(&rows, |r| {
                        let mut d = sample(&row4(self.pos_s, r), &w_u.deriv).to_array();
                        d[3] = sample1(&row4(self.t, r), &w_u.basis);
                        f32x4::new(d)
                    }),
                    (true, false) => each(&rows, |r| sample(&row4(self.pos_s, r), &w_u.deriv)),
                    (false, true) => {
                        each(&rows, |r| f32x4::new([0.0, 0.0, 0.0, sample1(&row4(self.t, r), &w_u.basis)]))
                    }
                    (false, false) => [f32x4::ZERO; 4],
                };
                let cu =
                    if has_color { each(&rows, |r| sample(&row4(self.col, r), &w_u.basis)) } else { [f32x4::ZERO; 4] };
                for (k, w_v) in wv.iter().enumerate() {
                    let tile_v = tiles.start + k;
                    let Some(vert) = row.get_mut(col0 + k * stride) else {
                        continue;
                    };
                    let p = sample(&ps, &w_v.basis).to_array();
                    vert.pos = [p[0], p[1], p[2]];
                    vert.color = if has_color {
                        params.rule.colors(sample(&cu, &w_v.basis).to_array())
                    } else {
                        self.default_color
                    };
                    let d = if has_normal || has_tex { sample(&dt, &w_v.basis).to_array() } else { [0.0; 4] };
                    vert.uv = if has_tex {
                        [p[3], d[3]]
                    } else {
                        [patch_u as f32 + tile_u as f32 * inv_u, patch_v as f32 + tile_v as f32 * inv_v]
                    };
                    vert.normal = if has_normal {
                        let dv = sample(&ps, &w_v.deriv).to_array();
                        let n = normalized_approx(cross([d[0], d[1], d[2]], [dv[0], dv[1], dv[2]]), params.rsqrt);
                        if params.reverse_normals {
                            // `· −1`: a sign flip.
                            n.map(|c| -c)
                        } else {
                            n
                        }
                    } else {
                        [0.0, 0.0, 1.0]
                    };
                }
            }
        }
    }
}

/// Tessellate: control points in row-major order (u fastest). Returns vertices and the GE primitive type plus an index
/// list in the exact order PPSSPP submits them (so float results and winding match).
///
/// Per generated vertex [PP `SubdivisionSurface::Tessellate`]:
/// * position: the basis applied along u, then along v;
/// * colour: the same, on colours scaled to 0..1, rounded half-to-even back to bytes —
///   or the first control point's colour when `!has_color`;
/// * texcoords: the same — or, when `!has_texcoord`, generated as
///   `(patch_u + step_u/div_u, patch_v + step_v/div_v)` (0..number of patches);
/// * normal: `normalize(∂P/∂u × ∂P/∂v)` with PPSSPP's `RSQRTPS` normalisation,
///   negated with PATCHFACING — or (0, 0, 1) when `!has_normal`;
/// * weights: zero (the control points were already skinned).
///
/// At most [`MAX_VERTICES`] vertices and six indices per grid cell are produced.
/// Draws PPSSPP would skip (fewer than 4 points per direction, too few control points
/// given, scratch memory exceeded, divisions reduced to nothing) return no vertices
/// and no indices.
pub fn tessellate(params: &PatchParams, control: &[Vertex]) -> Tessellation {
    tessellate_split(params, control, false)
}

/// [`tessellate`], its rows of patches evaluated in parallel on the current rayon pool
/// when `split` (same output: each vertex is computed from its own step alone).
pub fn tessellate_split(params: &PatchParams, control: &[Vertex], split: bool) -> Tessellation {
    let prim = params.primitive();
    let Some(Setup { s, control, wu, wv }) = Setup::new(params, control) else {
        return Tessellation { vertices: Vec::new(), indices: Vec::new(), prim };
    };

    let tex = params.has_texcoord;
    let pos_s: Vec<f32x4> =
        control.iter().map(|v| f32x4::new([v.pos[0], v.pos[1], v.pos[2], if tex { v.uv[0] } else { 0.0 }])).collect();
    let t: Vec<f32> = if tex { control.iter().map(|v| v.uv[1]).collect() } else { Vec::new() };
    let col: Vec<f32x4> = if params.has_color {
        control.iter().map(|v| f32x4::new(v.color.map(|c| params.rule.unit(c)))).collect()
    } else {
        Vec::new()
    };
    let default_color = control.first().map_or([0; 4], |v| v.color);

    let mut out = vec![Vertex::default(); s.vertex_count()];
    let grid = Grid { s, params, wu: &wu, wv: &wv, pos_s: &pos_s, t: &t, col: &col, default_color };
    // Work units own contiguous runs of output slots, in slot order: a run of grid rows of
    // one patch (Bézier) or of one row of patches (spline). Every slot is a pure function
    // of its step, so any split and order gives the same bits; a unit re-evaluates the u
    // pass of its columns, so rows are only cut into bands when there are few units.
    let per_row = if s.bezier { s.patches_v * s.patches_u } else { s.patches_v };
    let bands = if split && per_row < SPLIT_UNITS { SPLIT_UNITS.div_ceil(per_row) } else { 1 };
    let mut units = Vec::new();
    let mut rest = &mut out[..];
    for patch_v in 0..s.patches_v {
        let first = s.start(patch_v);
        let rows = s.tess_v + 1 - first;
        let bands = bands.min(rows);
        // Bézier: one patch at a time; spline: the whole row of patches.
        let runs = if s.bezier { s.patches_u } else { 1 };
        for run in 0..runs {
            let patch_u = if s.bezier { run..run + 1 } else { 0..s.patches_u };
            for band in 0..bands {
                let tiles = first + rows * band / bands..first + rows * (band + 1) / bands;
                let len = tiles.len() * s.row_width(&patch_u);
                let len = len.min(rest.len());
                let (slots, tail) = std::mem::take(&mut rest).split_at_mut(len);
                units.push(Unit { patch_v, patch_u: patch_u.clone(), tiles, slots });
                rest = tail;
            }
        }
    }
    if units.len() > 1 && split {
        use rayon::prelude::*;
        units.into_par_iter().for_each(|u| grid.evaluate(u));
    } else {
        for u in units {
            grid.evaluate(u);
        }
    }

    let indices = s.build_indices(line_rule(params));
    Tessellation { vertices: out, indices, prim }
}

/// The basis tables along u and v.
/// What every evaluation of a surface starts from: its shape, the control points it
/// reads (the first `u_count · v_count`) and the basis weights of both axes; `None` when
/// the surface draws nothing.
struct Setup<'c> {
    s: Surface,
    control: &'c [Vertex],
    wu: Vec<Weight>,
    wv: Vec<Weight>,
}

impl<'c> Setup<'c> {
    fn new(params: &PatchParams, control: &'c [Vertex]) -> Option<Setup<'c>> {
        let s = Surface::new(params, control.len())?;
        let n = (params.u_count & 0xFF) as usize * (params.v_count & 0xFF) as usize;
        let (wu, wv) = weights(params, &s);
        Some(Setup { s, control: &control[..n], wu, wv })
    }
}

fn weights(params: &PatchParams, s: &Surface) -> (Vec<Weight>, Vec<Weight>) {
    match params.kind {
        PatchKind::Bezier => (basis::bezier_weights(s.tess_u as u32), basis::bezier_weights(s.tess_v as u32)),
        PatchKind::Spline { u_edge, v_edge } => (
            params.rule.spline_weights(s.tess_u as u32, params.u_count & 0xFF, u_edge & 3),
            params.rule.spline_weights(s.tess_v as u32, params.v_count & 0xFF, v_edge & 3),
        ),
    }
}

/// The line rule of [`Surface::build_indices`]: `Some` for line output.
fn line_rule(params: &PatchParams) -> Option<TessellationRule> {
    (params.output & 3 == 1).then_some(params.rule)
}
