//! The vertex stage: everything between a decoded [`Vertex`] and a [`ScreenVertex`]
//! (ge-reference.md §3, §4, §7, §8, §12): skinning, world/view/projection, lighting,
//! texture-coordinate generation, per-vertex fog and the viewport mapping to 12.4
//! fixed point. Clipping, rejection and culling live in [`crate::clip`].
//!
//! Design: [`TransformState::decode`] reads the registers and matrices once per draw
//! into plain typed fields (pre-multiplied matrices, decoded light list, texgen enum);
//! [`transform_vertex`] and [`to_screen`] are then pure per-vertex functions.
//!
//! The conformance references were rendered by PPSSPP's software renderer on x86-64,
//! so the float arithmetic reproduces that build exactly: the summation order of its
//! SSE matrix code, its pre-multiplied matrices (`proj·view·world`, or `proj·view`
//! applied to the world position when a point/spot light needs it), its skinning in
//! the (non-JIT) vertex decoder, its `RSQRTPS`-based normalisations and its
//! truncating float→int conversions (`math`). Where the hardware is known to differ
//! the code follows PPSSPP and says so. The hardware model places vertices on the screen
//! from its own float24 arithmetic ([`ScreenSnap::Float24Stages`]: world, view and
//! projection one after the other, each cut to float24, the offset from the viewport
//! centre truncated toward it); depth, clipping and the perspective weights keep the f32
//! clip coordinates. It costs two more matrix products per vertex in that model only.
//!
//! Cost (callgrind, whole replay, 1 thread): `skin`, `transform_vertex` and `project` are
//! `#[inline]` so the vertex is built in its caller's slot instead of copied through
//! return values, and the viewport mapping and snap run in four-lane `wide` operations
//! with the scalar formulas' per-lane order (`viewport_lanes_equal_scalar`): 11216
//! 831.6 → 809.2 M, 16131 130.3 → 128.4 M.

mod light;
pub(crate) mod math;

pub use math::RsqrtRule;
#[cfg(test)]
mod tests;

use crate::cmd::{op, reg};
use crate::geom::{ClipVertex, ScreenVertex, SubPixel, Vertex, VertexType};
use crate::regs::{Matrices, Regs};
use light::LightState;
use math::{cvtt, cvtt_u16, dot3, is_nan_or_inf, mul43, mul44, norm43, normalize_or_001, normalized_approx};
use math::{normalized_or_001_approx, then44, widen43};

/// Source vector of texture-matrix generation (TEXMAPMODE bits 8–9).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProjSource {
    /// Model-space position (after skinning).
    Position,
    /// (u, v, 0), without TEXSCALE/OFFSET.
    Uv,
    /// The normal, normalised (with PPSSPP's approximate `RSQRTPS`).
    NormalizedNormal,
    /// The raw normal.
    Normal,
}

/// Texture-coordinate generation (TEXMAPMODE bits 0–1, ge-reference.md §8).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TexGen {
    /// Modes 0 and 3: s = u·scale + offset (TEXSCALEU/V, TEXOFFSETU/V as float24).
    Uv { scale: [f32; 2], offset: [f32; 2] },
    /// Mode 1: (s, t, q) = T·source.
    Matrix(ProjSource),
    /// Mode 2: s/t = (N_world·L + 1)/2 with the two TEXSHADELS light directions,
    /// stored here already normalised.
    EnvMap { light_dirs: [[f32; 3]; 2] },
}

/// Everything the vertex stage needs, decoded once per draw from registers, matrices
/// and the vertex type.
#[derive(Clone, Debug, PartialEq)]
pub struct TransformState {
    /// Identifies the draw this state was decoded for (0 = anonymous): the GE gives each
    /// decode its own non-zero id, which marks projections made under this state so
    /// assembly can reuse them instead of projecting again.
    pub id: u64,
    /// Through mode (VTYPE bit 23): no matrices, viewport, lighting or fog.
    pub through: bool,
    /// DEPTHCLAMPENABLE (0x1C): clamp z_s instead of rejecting (ge-reference §5.2).
    pub depth_clamp: bool,
    /// OFFSETX/OFFSETY, raw 16-bit values in 1/16 px.
    pub offset: [i32; 2],
    /// Viewport XSCALE/YSCALE/ZSCALE and XCENTER/YCENTER/ZCENTER (float24).
    pub scale: [f32; 3],
    pub center: [f32; 3],
    pub texgen: TexGen,
    /// Fog is enabled (transform mode).
    pub fog_enabled: bool,
    /// Fog plane `(a, b, c, d)`: f = (a·x + b·y) + (c·z + d) on the model position,
    /// with FOG1/FOG2 already folded in.
    fog: [f32; 4],
    light: Option<LightState>,
    /// Number of skinning weights (0 = no skinning).
    skin_weights: usize,
    skin_normal: bool,
    bones: [f32; 96],
    world: [f32; 12],
    view: [f32; 12],
    proj: [f32; 16],
    tgen: [f32; 12],
    /// `proj·view·world`, or `proj·view` when `clip_from_world`.
    clip_matrix: [f32; 16],
    clip_from_world: bool,
    uses_world_normal: bool,
    negate_normals: bool,
    /// How normalisations compute their reciprocal square root (decided by the model).
    pub rsqrt: RsqrtRule,
    /// How a projected vertex lands on the 1/16 px grid (decided by the model; PPSSPP's
    /// after [`TransformState::decode`]).
    pub snap: ScreenSnap,
}

/// How a projected vertex lands on the 1/16 px grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScreenSnap {
    /// `trunc(16·x + 0.375 − OFFSET)` of the f32 viewport mapping
    /// [PP `TransformUnit.cpp` `ClipToScreenInternal`].
    Ppsspp,
    /// The PSP: x, y and w come from world, view and projection applied one after the
    /// other, each result cut to float24 ([`ClipVertex::xyw24`]); x·(1/w) and the viewport
    /// scale are cut to float24 too (1/w first), and that offset from the viewport centre
    /// is truncated **toward the centre** on the 1/16 grid ([`hardware_xy`]).
    ///
    /// Evidence (the hardware screenshots; unit test `hardware_viewport_stages_cut_to_float24`):
    /// * triangle-triangle's corners and rendertarget-rendertarget's cube corners fit no
    ///   rounding of the f32 position: triangle's third corner is 1 123.98/16 px left of
    ///   the centre and the PSP puts it at 1 124, while the cube's corner B is 1 127.06/16
    ///   left and the PSP puts it at 1 126 (its outline pixels decide all six corners to the
    ///   1/16 px: F, C, B sit 1/16 px nearer the centre than the last rule put them). A
    ///   search over float24 cut/nearest/f32 stages, per-operation cuts, three divide orders
    ///   and five snaps (offline, from the vertices and matrices as the GE received them)
    ///   fits all 18 corner coordinates only with cut stages and the toward-centre snap.
    /// * Differing pixels against the PSP (last rule → this rule): reflection-reflection
    ///   973 → 141, rendertarget-rendertarget 251 → 95; the other 25 screenshots and the
    ///   7 401 readback lines are unchanged.
    /// * Depth, clipping and the perspective weights keep the f32 clip coordinates: the
    ///   cut z (or z over the cut w) loses 8 depth-precision readback lines; the cut w in
    ///   the perspective weights scores 137 and 96 px, a wash.
    ///
    /// Replaces "cut the f32 screen x to float24 and round up to 1/16", which got
    /// triangle-triangle right but measured 973 and 251 px on the other two.
    ///
    /// What is left in rendertarget-rendertarget (95 px, measured offline from the replay's
    /// 4444 render target and the cube's texture coordinates): the cube's coverage equals
    /// the PSP's everywhere; 48 px sample torus-silhouette texels next to the magenta clear,
    /// 42 only torus texels, 5 four equal taps. 52 px turn right with the texel coordinate
    /// moved 1–3/256 texel, 29 with no move up to 32/256 (so the torus texels differ
    /// there). Ruled out there before this rule: the sample point (pixel centre is best by
    /// far), the 4444 write (truncation; rounding 2 448 px), COLOUR_GRADIENT_BITS 10–22 and
    /// AREA_RECIP_BITS 12–24 on the torus (≥ 244 px), a 10–23-bit perspective reciprocal,
    /// uniform texel-coordinate biases (best 222). The bilinear per-pass rounding still
    /// fits best (95 px; one rounding 124, v pass first 126).
    ///
    /// What is left in reflection-reflection (141 px, measured offline from each pixel's
    /// fragment s, t and colour in draws 3, 4 and 6, the 64×64 4444 texture and the colour
    /// buffer after each draw; that model gives our 141 px bit for bit). All 141 are texel
    /// taps. No pixel differs in coverage, stencil, depth or blend: each one is drawn by the
    /// same draw in both images, none lies on an outline against the clear colour, and the
    /// largest channel difference is 19 (54 px differ by 1).
    /// * 57 px on the front cube (draw 6, texel ADDed to the face colour): every one turns
    ///   right with the texel coordinate moved 1/256 texel along one axis: 49 down, from the
    ///   first 1/16 step of a texel, 6 up, 2 either way.
    /// * 38 px on the floor over black (draw 4, REPLACE with the texture's alpha, blended
    ///   SRCALPHA/INVSRCALPHA): 31 turn right with a 1/256 move along one axis (22 down,
    ///   9 up), 1 needs both axes, 6 need 2/256.
    /// * 46 px on the floor over the reflected cube: 25 turn right with the floor's move
    ///   alone (10 down, 15 up), 3 need 2/256, and 18 need the reflected cube's (draw 3)
    ///   coordinate moved 1/256 as well (all 18 turn right then).
    ///
    /// So the PSP's perspective-correct s, t are within 2/256 texel of ours, mostly lower:
    /// the same open question as rendertarget's 52 px and texmtx-normals (module docs of
    /// `raster::triangle`). Tried on the replay (differing px in reflection / rendertarget /
    /// texmtx-source / texmtx-prims; this rule 141 / 95 / 20 / 267): the f32 perspective
    /// reciprocal 136 / 94 / 28 / 335; the staged float24 w in the weights 137 / 96;
    /// 1/w cut to float24 141 / 94, both 141 / 92; the products weight·(1/w) cut 138 / 96;
    /// the q sum cut 153 / 106; the reciprocal also cut after its 16-bit rounding 141 / 95.
    /// Offline, one texel-coordinate offset for every fragment: −1/256 241 px, −2/256 541,
    /// −4/256 1 122, +1/256 411. Cutting s or t to any 2^-k grid (k ≥ 12) moves no tap: the
    /// filter's 1/16 steps lie on every such grid. None of these is a rule.
    ///
    /// Also ruled out on the replay (same four counts, then texmtx-normals; this rule
    /// 141 / 95 / 20 / 267 / 276; s/w, t/w, q/w interpolated in f64 with the 16-bit
    /// reciprocal 146 / 92 / 20 / 267 / 278):
    /// * s/w, t/w, q/w as planes from the first vertex with [`crate::raster::ColourPlane`]'s
    ///   arithmetic, gradients per 1/16 px rounded down to n bits below the triangle's largest
    ///   vertex value (area reciprocal exact or 16-bit): n = 22 826 / 252, 24 250 / 114,
    ///   26 132 / 100, 28 140 / 96, ≥ 30 as f64. texmtx-source and -prims do not move for
    ///   n ≥ 14 (dyadic values); texmtx-normals' best is 222 (n = 26), rendertarget worse.
    /// * Those planes' per-pixel values truncated (s/w, t/w, or all three) to 14–18 bits
    ///   below the largest vertex value or to 2^-15…2^-19: best 125 / 91 / 20 / 267 / 268
    ///   (s/w, t/w floored to 2^-18), a bias (a constant −0.3/256 texel gains as much
    ///   offline), not a fit.
    /// * Vertex s, t, 1/w or s/w cut to 12–18 bits (float24 is 17), truncated or nearest:
    ///   138–212 / 91–169 (reflection's s, t are 0 or 1, so only 1/w can matter).
    /// * A fixed-point texel coordinate truncated before the bilinear split changes nothing:
    ///   `s · size · 256` is exact in f32 and every grid finer than 1/16 texel keeps the taps.
    ///
    /// What the error is (offline, the front cube, draw 6: 1 645 intervals on the PSP's u, v
    /// from pixels whose texel brackets a 1/16 step; exact perspective 55 misses, ours 57):
    /// not a setup precision. No affine error per triangle and no change of the nine vertex
    /// values s/w, t/w, 1/w (even by ±24·2^-16) fits them: at best 16 stay violated, by up
    /// to 0.54/256 texel, and diagonal neighbours need errors 0.31/256 texel apart. A
    /// smooth error plus a per-pixel one of ±0.3/256 texel fits, or a per-pixel drop of
    /// 0–0.75/256 texel with vertex values off by ≤ 0.22·2^-16 (float24-sized). So the PSP
    /// rounds s/w, t/w or q/w per pixel at about 2^-16 absolute (2^-15 of s), but none of
    /// these per-pixel roundings reproduces it (draw 6 misses): s/w, t/w, q/w floored to
    /// 2^-15…2^-20 or to 14–19 significant bits, also as deltas from the first vertex (best
    /// 39); screen barycentrics at 13–20 bits with a 16-bit area reciprocal (46); plane
    /// sums in float24 (47); steps from row, span or 2–32 px block anchors with truncated
    /// gradients (42).
    Float24Stages,
}

impl ScreenSnap {
    /// PPSSPP's snap of screen coordinate `v` (px) minus `offset` (1/16 px).
    #[inline]
    pub fn ppsspp(v: f32, offset: i32) -> i32 {
        cvtt(v * 16.0 + 0.375 - offset as f32)
    }
}

/// The PSP's clip x, y, w: world, view and projection applied one after the other, each
/// result cut to float24 (see [`ScreenSnap::Float24Stages`]), from the world stage's
/// result `world_pos` (uncut).
fn staged_xyw(st: &TransformState, world_pos: [f32; 3]) -> [f32; 3] {
    let cut = |v: [f32; 3]| v.map(float24_trunc);
    let eye = cut(mul43(&st.view, cut(world_pos)));
    let c = mul44(&st.proj, eye);
    [float24_trunc(c[0]), float24_trunc(c[1]), float24_trunc(c[3])]
}

/// The PSP's drawing position of a projected vertex in 1/16 px relative to OFFSET: the
/// offset from the viewport centre, `cut(cut(x·cut(1/w))·scale)`, truncated toward the
/// centre, plus the centre (see [`ScreenSnap::Float24Stages`]). Vertices without staged
/// values (immediate mode) use their clip coordinates.
pub fn hardware_xy(st: &TransformState, c: &ClipVertex) -> (i32, i32) {
    let [x, y, w] = c.xyw24.unwrap_or([c.clip[0], c.clip[1], c.clip[3]]);
    let r = float24_trunc(1.0 / w);
    let axis = |v: f32, k: usize| {
        let from_centre = cvtt(float24_trunc(float24_trunc(v * r) * st.scale[k]) * 16.0);
        let centre = cvtt(st.center[k] * 16.0);
        // NaN or out of range: the same "integer indefinite" as the PPSSPP snap.
        if from_centre == i32::MIN || centre == i32::MIN {
            i32::MIN
        } else {
            from_centre.wrapping_add(centre).wrapping_sub(st.offset[k])
        }
    };
    (axis(x, 0), axis(y, 1))
}

impl TransformState {
    /// [PP `TransformUnit.cpp` `ComputeTransformState`, `Lighting::ComputeState`].
    pub fn decode(regs: &Regs, mats: &Matrices, vtype: &VertexType, rsqrt: RsqrtRule) -> TransformState {
        let through = vtype.through;
        let map_mode = regs.get(reg::TEXMAPMODE);
        let texgen = match map_mode.mode() {
            1 => TexGen::Matrix(match map_mode.projection() {
                0 => ProjSource::Position,
                1 => ProjSource::Uv,
                2 => ProjSource::NormalizedNormal,
                _ => ProjSource::Normal,
            }),
            2 => {
                let dir = |ls: u32| {
                    let b = op::LX0 as u32 + 3 * ls;
                    let raw = [regs.float(b as u8), regs.float((b + 1) as u8), regs.float((b + 2) as u8)];
                    normalized_or_001_approx(raw, rsqrt)
                };
                let ls = regs.get(reg::TEXSHADELS);
                TexGen::EnvMap { light_dirs: [dir(ls.u()), dir(ls.v())] }
            }
            // Mode 3 behaves as mode 0 [PP `ComputeTransformState` GE_TEXMAP_UNKNOWN].
            _ => TexGen::Uv {
                scale: [regs.float(op::TEXSCALEU), regs.float(op::TEXSCALEV)],
                offset: [regs.float(op::TEXOFFSETU), regs.float(op::TEXOFFSETV)],
            },
        };
        let env_map = matches!(texgen, TexGen::EnvMap { .. });
        let light = if !through && regs.enabled(op::LIGHTINGENABLE) {
            Some(LightState::decode(regs, vtype.has_color(), env_map, rsqrt))
        } else {
            None
        };
        let uses_world_normal = light.as_ref().map_or(env_map, |l| l.uses_world_normal);
        let clip_from_world = light.as_ref().is_some_and(|l| l.uses_world_pos);

        let world4 = widen43(&mats.world);
        let view4 = widen43(&mats.view);
        let worldview = then44(&world4, &view4);
        let clip_matrix = if clip_from_world { then44(&view4, &mats.proj) } else { then44(&worldview, &mats.proj) };

        let fog_enabled = !through && regs.enabled(op::FOGENABLE);
        let mut fog = [0.0; 4];
        if fog_enabled {
            let end = regs.float(op::FOG1);
            let mut slope = regs.float(op::FOG2);
            fog = [worldview[2], worldview[6], worldview[10], worldview[14] + end];
            // Non-finite FOG1/FOG2 [PP `ComputeTransformState`].
            if is_nan_or_inf(end) {
                let mut sign = end.is_sign_negative();
                if slope.is_sign_negative() {
                    sign = !sign;
                }
                if slope == 0.0 {
                    sign = true;
                }
                fog = [0.0, 0.0, 0.0, if sign { 0.0 } else { 1.0 }];
            } else {
                if is_nan_or_inf(slope) {
                    slope = if slope.is_sign_negative() { -262144.0 } else { 262144.0 };
                }
                fog.iter_mut().for_each(|f| *f *= slope);
            }
        }

        TransformState {
            id: 0,
            through,
            depth_clamp: regs.enabled(op::DEPTHCLAMPENABLE),
            offset: [regs.get(reg::OFFSETX).sixteenths() as i32, regs.get(reg::OFFSETY).sixteenths() as i32],
            scale: [regs.float(op::VIEWPORTXSCALE), regs.float(op::VIEWPORTYSCALE), regs.float(op::VIEWPORTZSCALE)],
            center: [regs.float(op::VIEWPORTXCENTER), regs.float(op::VIEWPORTYCENTER), regs.float(op::VIEWPORTZCENTER)],
            texgen,
            fog_enabled,
            fog,
            light,
            // Skinning only outside through mode [PP `VertexDecoder` through position steps].
            skin_weights: if vtype.has_weights() && !through { vtype.weight_count.min(8) as usize } else { 0 },
            skin_normal: vtype.has_normal(),
            bones: mats.bones,
            world: mats.world,
            view: mats.view,
            proj: mats.proj,
            tgen: mats.tgen,
            clip_matrix,
            clip_from_world,
            uses_world_normal,
            negate_normals: regs.enabled(op::REVERSENORMAL),
            rsqrt,
            snap: ScreenSnap::Ppsspp,
        }
    }

    /// S = Σ w_j B_j over non-zero weights (not renormalised), as the SSE accumulation
    /// `S += B_j·w_j` [PP `VertexDecoder::ComputeSkinMatrix`; headless PPSSPP uses the
    /// C++ decoder, not the JIT].
    fn skin_matrix(&self, weights: &[f32; 8]) -> [f32; 12] {
        let mut s = [0.0f32; 12];
        for (j, &w) in weights.iter().enumerate().take(self.skin_weights) {
            if w != 0.0 {
                let bone = &self.bones[12 * j..12 * j + 12];
                for (acc, &b) in s.iter_mut().zip(bone) {
                    *acc += b * w;
                }
            }
        }
        s
    }
}

/// Skinned position and normal of a vertex (unchanged without weights): S = Σ w_j B_j
/// applied to the model position and, rotation only, to the normal.
#[inline]
pub fn skin(st: &TransformState, v: &Vertex) -> ([f32; 3], [f32; 3]) {
    if st.skin_weights > 0 {
        let s = st.skin_matrix(&v.weights);
        // A vertex without a normal keeps the decoder's reused normal unskinned.
        (mul43(&s, v.pos), if st.skin_normal { norm43(&s, v.normal) } else { v.normal })
    } else {
        (v.pos, v.normal)
    }
}

/// Transform mode: skinning, world/view/projection, lighting (world space),
/// texgen, fog factor and the secondary colour [PP `TransformUnit::ReadVertex`].
#[inline]
pub fn transform_vertex(st: &TransformState, v: &Vertex) -> ClipVertex {
    let (pos, mut normal) = skin(st, v);
    if st.negate_normals {
        normal = [-normal[0], -normal[1], -normal[2]];
    }
    let staged = st.snap == ScreenSnap::Float24Stages;
    // The world position is computed once for the clip matrix, the lights that read it
    // and the staged placement (only the lights with `uses_world_pos` look at it).
    let world_pos = if st.clip_from_world || staged { mul43(&st.world, pos) } else { [0.0; 3] };
    let xyw24 = staged.then(|| staged_xyw(st, world_pos));
    let clip = mul44(&st.clip_matrix, if st.clip_from_world { world_pos } else { pos });
    // [PP `Dot43` SSE4 path]: (a·x + b·y) + (c·z + d·1).
    let f = &st.fog;
    let fog = if st.fog_enabled { (f[0] * pos[0] + f[1] * pos[1]) + (f[2] * pos[2] + f[3] * 1.0) } else { 1.0 };
    let world_normal =
        if st.uses_world_normal { normalize_or_001(norm43(&st.world, normal)).0 } else { [0.0, 0.0, 1.0] };
    let stq = match st.texgen {
        TexGen::Uv { scale, offset } => [v.uv[0] * scale[0] + offset[0], v.uv[1] * scale[1] + offset[1], 1.0],
        TexGen::Matrix(src) => {
            let source = match src {
                ProjSource::Position => pos,
                ProjSource::Uv => [v.uv[0], v.uv[1], 0.0],
                // No (0, 0, 1) fallback here [PP `ReadVertex` GE_PROJMAP_NORMALIZED_NORMAL].
                ProjSource::NormalizedNormal => normalized_approx(normal, st.rsqrt),
                ProjSource::Normal => normal,
            };
            mul43(&st.tgen, source)
        }
        TexGen::EnvMap { light_dirs } => {
            [(dot3(light_dirs[0], world_normal) + 1.0) / 2.0, (dot3(light_dirs[1], world_normal) + 1.0) / 2.0, 1.0]
        }
    };
    let (color0, color1) = match &st.light {
        Some(l) => l.light(v.color, world_pos, world_normal),
        None => (v.color, [0; 3]),
    };
    ClipVertex { clip, stq, color0, color1, fog, xyw24 }
}

/// Through mode: x, y → 12.4 by truncation, z as an unsigned 16-bit value, w = 1,
/// s, t in texels as decoded, colours as decoded; no matrices, OFFSET, lighting or fog
/// [PP `ReadVertex` through branch; ge-reference §4.2].
pub fn through_vertex(_st: &TransformState, v: &Vertex) -> ScreenVertex {
    ScreenVertex {
        x: SubPixel(cvtt(v.pos[0] * 16.0)),
        y: SubPixel(cvtt(v.pos[1] * 16.0)),
        z: cvtt_u16(v.pos[2]) as f32,
        w: 1.0,
        s: v.uv[0],
        t: v.uv[1],
        q: 1.0,
        color0: v.color,
        // Through mode never has a secondary colour [PP `ReadVertex`].
        color1: [0; 3],
        fog: 1.0,
        first: false,
    }
}

/// A 32-bit float cut to the GE's 24-bit float (sign, 8-bit exponent, 15-bit mantissa) by
/// dropping the low 8 mantissa bits (truncation toward zero).
#[inline]
pub fn float24_trunc(v: f32) -> f32 {
    f32::from_bits(v.to_bits() & 0xFFFF_FF00)
}

/// Where the PSP places a transformed rectangle corner, in 1/16 px relative to the drawing
/// offset: the clip-space x, y cut to 24-bit floats, mapped by the viewport, and rounded
/// **up** to the 1/16 grid (PPSSPP: full floats, `trunc(16·x + 0.375)`).
///
/// Evidence: [HW filtering/linear, filtering/nearest] draw a 2×2-texel texture on a
/// 3D sprite from x = −1 to −1 + 2/240 (viewport 240): all 1 082 printed colours follow
/// when the far corner lands one 1/16 step beyond 1810.0 px (the float sits at 1810.0, its
/// 24-bit cut at 1810.003; likewise y at 1914.0005), and none follow with it at 1810.0.
/// [HW textures/size "Texture h=512..32768 transform"]: the top corner at
/// 2048 − 127.996 = 1920.0039 px samples rows 0, 1, 3, 7, 14, 28, 56, exactly as a corner at
/// 1920 + 1/16 does. Triangles, lines and points take [`hardware_xy`] (their own evidence,
/// [`ScreenSnap::Float24Stages`]); guess: rectangles keep this rule, which fits their
/// readback lines (no test compares the two on a rectangle).
pub fn rectangle_corner(st: &TransformState, c: &ClipVertex) -> (SubPixel, SubPixel) {
    let [cx, cy, _, cw] = c.clip;
    let sx = float24_trunc(cx) * st.scale[0] / cw + st.center[0];
    let sy = float24_trunc(cy) * st.scale[1] / cw + st.center[1];
    (SubPixel::from_f32_ceil(sx - st.offset[0] as f32 / 16.0), SubPixel::from_f32_ceil(sy - st.offset[1] as f32 / 16.0))
}

/// `clip·scale / w + centre` for x, y and z (lane 3 unused): each lane the scalar
/// formula's IEEE operations in its order (mul, div, add; no FMA), so the bits are
/// [`viewport_scalar`]'s (`viewport_lanes_equal_scalar`); one packed division instead
/// of three.
#[inline]
fn viewport_lanes(st: &TransformState, clip: [f32; 4]) -> [f32; 4] {
    use wide::f32x4;
    let scale = f32x4::new([st.scale[0], st.scale[1], st.scale[2], 1.0]);
    let centre = f32x4::new([st.center[0], st.center[1], st.center[2], 0.0]);
    (f32x4::new(clip) * scale / f32x4::splat(clip[3]) + centre).to_array()
}

/// The plain per-axis viewport mapping that [`viewport_lanes`] computes.
#[cfg(test)]
fn viewport_scalar(st: &TransformState, clip: [f32; 4]) -> [f32; 3] {
    let [cx, cy, cz, cw] = clip;
    [cx * st.scale[0] / cw + st.center[0], cy * st.scale[1] / cw + st.center[1], cz * st.scale[2] / cw + st.center[2]]
}

/// [`ScreenSnap::ppsspp`] of x and y in two lanes of one conversion (same operations per
/// lane, `ppsspp_snap_lanes_equal_scalar`).
#[inline]
fn ppsspp_snap_lanes(sx: f32, sy: f32, offset: [i32; 2]) -> (i32, i32) {
    use wide::f32x4;
    let off = f32x4::new([offset[0] as f32, offset[1] as f32, 0.0, 0.0]);
    let v = (f32x4::new([sx, sy, 0.0, 0.0]) * f32x4::splat(16.0) + f32x4::splat(0.375) - off).fast_trunc_int();
    let [x, y, _, _] = v.to_array();
    (x, y)
}

/// Viewport mapping without the range verdict; see [`project`].
pub fn to_screen(st: &TransformState, c: &ClipVertex) -> ScreenVertex {
    project(st, c, false).0
}

/// x_s = c.x·XSCALE/w + XCENTER (likewise y, z); X16 by the state's [`ScreenSnap`]
/// computed in float; z truncated to u16. Also returns whether the vertex is outside
/// the drawable range, which rejects its whole primitive.
///
/// `always_check`: PPSSPP skips the x/y range check for a vertex with z ≤ −w when depth
/// clamping is on, except for vertices made by clipping [PP `ClipToScreenInternal`
/// `alwaysCheckRange`].
#[allow(clippy::manual_range_contains)] // explicit comparisons keep PPSSPP's NaN behaviour
#[inline]
pub fn project(st: &TransformState, c: &ClipVertex, always_check: bool) -> (ScreenVertex, bool) {
    let [cz, cw] = [c.clip[2], c.clip[3]];
    let [sx, sy, mut sz, _] = viewport_lanes(st, c.clip);
    // PPSSPP's bound; hardware draws a vertex at ≈4096.0 that this rejects
    // [HW `clipping/guardband` "Flat at edge" vs PP `SCREEN_BOUND`].
    const BOUND: f32 = 4095.0 + 15.5 / 16.0;
    let mut outside = false;
    if st.depth_clamp {
        if (always_check || cz > -cw) && (sx >= BOUND || sy >= BOUND || sx < 0.0 || sy < 0.0) {
            outside = true;
        }
        sz = sz.clamp(0.0, 65535.0); // NaN stays NaN, as in PPSSPP
    } else if sx > BOUND || sy >= BOUND || sx < 0.0 || sy < 0.0 || sz < 0.0 || sz >= 65536.0 {
        // Note the asymmetric `>` for x [PP `ClipToScreenInternal<false, ...>`]; NaN
        // coordinates are not flagged (every comparison is false).
        outside = true;
    }
    let (x, y) = match st.snap {
        ScreenSnap::Ppsspp => ppsspp_snap_lanes(sx, sy, st.offset),
        ScreenSnap::Float24Stages => hardware_xy(st, c),
    };
    // PPSSPP truncates depth to an integer; the hardware does not (its rule is still
    // unknown) [HW `depth/precision`, ge-reference §4.3].
    let z = cvtt_u16(sz) as f32;
    let sv = ScreenVertex {
        x: SubPixel(x),
        y: SubPixel(y),
        z,
        w: cw,
        s: c.stq[0],
        t: c.stq[1],
        q: c.stq[2],
        color0: c.color0,
        color1: c.color1,
        fog: c.fog,
        first: false,
    };
    (sv, outside)
}
