//! Rasterization: coverage and attribute interpolation for every primitive type.
//!
//! The conformance references are PPSSPP's software renderer on x86-64, so every
//! primitive follows that renderer's arithmetic step by step (same integer edge
//! functions, same float operation order, same float-to-int conversions):
//!
//! * [`triangle`]: integer edge functions in 1/16 px, sampled at (16·px + 7, 16·py + 7),
//!   top-left fill rule via a −1 bias on right and flat-bottom edges, barycentric
//!   interpolation in screen space for colour, depth and fog, perspective-correct texture
//!   coordinates in transform mode ([PP `Rasterizer.cpp` `DrawTriangleSlice`]). Where the
//!   real PSP differs (sample point, colour rounding, the perspective divide) the draw
//!   passes a [`TriangleRule`] chosen by its model.
//! * [`rectangle`] / [`sprite`]: axis-aligned sprites with flat colour/depth/fog from the
//!   second vertex and texture coordinates stepped linearly per pixel pair, rotated by
//!   corner order ([PP `DrawRectangle`], [PP `RasterizerRectangle.cpp` `DrawSprite`]).
//! * `line`: PPSSPP's DDA along the major axis, end pixel excluded ([PP `DrawLine`]).
//! * [`point`]: one pixel ([PP `DrawPoint`]).
//! * Helpers for primitive assembly that decide which of these PPSSPP uses: sprite fog
//!   splitting and projected-sprite triangulation ([`split_rect_fog`], [`rect_to_triangles`]),
//!   the 1:1 sprite fast path ([`sprite_fast_path`]) and its detection of sprites drawn as
//!   triangles or slices ([`detect_rect_from_pair`] and friends).
//!
//! Fragments come out as 2x2 [`Quad`]s. As in PPSSPP, the quad grid starts at the first
//! pixel of the primitive's bounding box clipped to the scissor (so quad x/y are *not*
//! necessarily even); the grid, and therefore texture LOD, does not depend on the tile
//! band that [`RasterSetup::band_y0`]..[`RasterSetup::band_y1`] restricts emission to.
//! Lines and points emit one quad per pixel with only fragment 0 covered; the other three
//! fragments carry the texture-coordinate deltas PPSSPP uses for their LOD.
//!
//! Depth: each vertex's z is first truncated to u16 (PPSSPP's `ScreenCoords::z`); an
//! interpolated triangle z is then *rounded half to even* (`Vec4<float>::Cast<int>` is
//! `cvtps2dq` on x86), not truncated as ge-reference §9.5 says; colours likewise.
//!
//! Texture coordinates stay in texels in through mode (PPSSPP scales by 1/width first;
//! scaling by a power of two commutes with every rounding here, so the texture stage's
//! later division gives identical bits).

use crate::geom::{Fragment, Quad, ScreenVertex};
use bytemuck::cast;
use wide::{f32x4, i32x4};

mod detect;
mod line;
mod plane;
mod rect;
mod triangle;

#[cfg(test)]
mod tests;

pub use detect::{
    detect_rect_from_fan, detect_rect_from_pair, detect_rect_from_strip, detect_rect_through_slices, AsmVertex,
    DetectState,
};
pub use line::{line, LineRule};
pub use plane::{ColourPlane, COLOUR_GRADIENT_BITS};
pub use rect::{
    clear_rectangle, clear_rectangle_pixels, flat_fragment, rect_to_triangles, rectangle, rectangle_exact,
    rectangle_exact_pixels, rectangle_pixels, rectangle_rows, split_rect_fog, sprite, sprite_fast_path, RectTexCoords,
    SpriteFastPathState, TexSlopes,
};
pub use triangle::{triangle, triangle_culled, ColourRounding, Cull, PerspRecip, SamplePoint, TriangleRule};

/// Inclusive drawing-coordinate rectangle (pixels).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClipRect {
    pub x0: i32,
    pub y0: i32,
    pub x1: i32,
    pub y1: i32,
}

impl ClipRect {
    /// The rectangle that contains nothing.
    pub const EMPTY: ClipRect = ClipRect { x0: 0, y0: 0, x1: -1, y1: -1 };

    pub fn is_empty(&self) -> bool {
        self.x1 < self.x0 || self.y1 < self.y0
    }

    pub fn intersect(&self, o: &ClipRect) -> ClipRect {
        ClipRect { x0: self.x0.max(o.x0), y0: self.y0.max(o.y0), x1: self.x1.min(o.x1), y1: self.y1.min(o.y1) }
    }

    pub fn contains(&self, x: i32, y: i32) -> bool {
        x >= self.x0 && x <= self.x1 && y >= self.y0 && y <= self.y1
    }
}

/// How rectangles are rasterized, chosen once per draw by the GE model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum RectangleRule {
    /// The PSP: a rectangle covers the pixels whose centre lies inside it and samples its
    /// texture exactly at the centre, with bilinear coordinates rounded down
    /// ([`rectangle_exact`], `texture::SamplerRule::Hardware`; the transformed corners are
    /// placed by `transform::rectangle_corner`).
    #[default]
    Hardware,
    /// PPSSPP's software renderer: `DrawRectangle`'s quad walk and texture stepping, and
    /// the through-mode 1:1 fast path ([`rectangle`], [`sprite`]).
    Ppsspp,
}

/// Per-draw rasterizer state (decoded once per draw by the caller).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RasterSetup {
    /// SCISSOR ∩ REGION (∩ PPSSPP's worker-task strip, see `draw::tasks`), inclusive
    /// drawing pixels. This also anchors the quad grid (PPSSPP starts quads at
    /// max(bounding box, range)).
    pub clip: ClipRect,
    /// Rows this call may emit (inclusive): the current tile band. Restricting the band
    /// never changes any fragment's attributes, only which fragments are emitted.
    pub band_y0: i32,
    pub band_y1: i32,
    /// Transform mode: texture coordinates perspective-correct via w (and q). False in
    /// through mode (linear texels).
    pub perspective: bool,
    /// True when the texture stage needs s, t (the divides are skipped otherwise).
    pub textured: bool,
    /// PPSSPP's `!shadeGouraud` (SHADEMODE flat, or clear mode): triangles take `v[2]`'s
    /// colours and lines `v[1]`'s, without interpolation [PP `ComputeRasterizerState`,
    /// `DrawTriangleSlice`, `DrawLine`]. In clear mode this is the *rasterized* order's last
    /// vertex, which is why it is a flag rather than the caller copying colours.
    pub flat_shading: bool,
    /// ANTIALIASENABLE for lines: PPSSPP forces alpha 0x7F and derives s, t from the pixel
    /// position [PP `DrawLine`].
    pub antialias_lines: bool,
    /// Which pixels a line lights and how it interpolates (the model's rule).
    pub line: LineRule,
    /// The triangle arithmetic of the model being rendered ([`TriangleRule`]).
    pub triangle: TriangleRule,
    /// The rectangle arithmetic of the model being rendered ([`RectangleRule`]).
    pub rectangle: RectangleRule,
    /// The pixel stage's depth range (MINZ..=MAXZ in transform mode), or `None`. Triangles
    /// drop the fragments outside it before they are shaded: the pixel stage discards them
    /// first thing (ge-reference §13 step 2, clear mode included), and texturing has no
    /// effect of its own. Measured (callgrind, `replay -o`, 1 thread, PPSSPP model, whole
    /// process): 16131 shinsengumi (MINZ..MAXZ = 10000..50000) 345.7 -> 190.1 M
    /// instructions, its texture stage 124.9 -> 20.4 M; most of its textured fragments lie
    /// outside the range.
    pub depth_range: Option<(u16, u16)>,
}

impl RasterSetup {
    /// Setup with no band restriction, Gouraud shading, antialiasing off and PPSSPP's
    /// triangle arithmetic and line rule ([`TriangleRule::PPSSPP`], [`LineRule::PpssppDda`];
    /// see [`RasterSetup::triangle`], [`RasterSetup::with_line`]).
    pub fn new(clip: ClipRect, perspective: bool, textured: bool) -> RasterSetup {
        RasterSetup {
            line: LineRule::PpssppDda,
            clip,
            band_y0: i32::MIN,
            band_y1: i32::MAX,
            perspective,
            textured,
            flat_shading: false,
            antialias_lines: false,
            triangle: TriangleRule::PPSSPP,
            rectangle: RectangleRule::Ppsspp,
            depth_range: None,
        }
    }

    /// The same setup with line rule `line`.
    pub fn with_line(self, line: LineRule) -> RasterSetup {
        RasterSetup { line, ..self }
    }

    /// The same setup restricted to rows `y0..=y1`.
    pub fn with_band(self, y0: i32, y1: i32) -> RasterSetup {
        RasterSetup { band_y0: y0, band_y1: y1, ..self }
    }

    #[inline]
    fn row_in_band(&self, y: i32) -> bool {
        y >= self.band_y0 && y <= self.band_y1
    }
}

/// Screen bounding box (inclusive pixels) of a primitive, for binning: the pixels holding
/// the minimum and maximum 12.4 coordinates ([PP `BinManager::Range`]). Empty input gives
/// [`ClipRect::EMPTY`].
pub fn bounds(v: &[ScreenVertex]) -> ClipRect {
    let Some(first) = v.first() else { return ClipRect::EMPTY };
    let mut r = ClipRect { x0: first.x.0, y0: first.y.0, x1: first.x.0, y1: first.y.0 };
    for p in &v[1..] {
        r.x0 = r.x0.min(p.x.0);
        r.y0 = r.y0.min(p.y.0);
        r.x1 = r.x1.max(p.x.0);
        r.y1 = r.y1.max(p.y.0);
    }
    ClipRect { x0: r.x0 >> 4, y0: r.y0 >> 4, x1: r.x1 >> 4, y1: r.y1 >> 4 }
}

/// PPSSPP's bin range in 1/16 units: the bounding box widened to whole pixels and
/// intersected with the scissor ([PP `BinManager::Range`, `Scissor`]). `None` when empty.
/// Inlined: its callers pass two or three coordinates, and out of line its loops cost 131
/// instructions a triangle (21763 PPSSPP +7.6 M when LLVM stopped inlining it).
#[inline]
fn screen_range(xs: &[i32], ys: &[i32], clip: &ClipRect) -> Option<[i32; 4]> {
    let (mut x1, mut y1, mut x2, mut y2) = (i32::MAX, i32::MAX, i32::MIN, i32::MIN);
    for &x in xs {
        x1 = x1.min(x);
        x2 = x2.max(x);
    }
    for &y in ys {
        y1 = y1.min(y);
        y2 = y2.max(y);
    }
    let r = [
        (x1 & !15).max(clip.x0.saturating_mul(16)),
        (y1 & !15).max(clip.y0.saturating_mul(16)),
        (x2 | 15).min(clip.x1.saturating_mul(16).saturating_add(15)),
        (y2 | 15).min(clip.y1.saturating_mul(16).saturating_add(15)),
    ];
    (r[2] >= r[0] && r[3] >= r[1]).then_some(r)
}

/// The 8-bit fog factor from the interpolated float: the float's exponent and top mantissa
/// bits, negative → 0, ≥ 1 → 255 ([PP `Rasterizer.cpp` `ClampFogDepth`]; ge-reference §12).
#[inline]
pub fn clamp_fog(f: f32) -> u8 {
    let u = f.to_bits();
    let exp = u >> 23;
    if u & 0x8000_0000 != 0 || exp <= 126 - 8 {
        return 0;
    }
    if exp > 126 {
        return 255;
    }
    let mantissa = (u & 0x007F_FFFF) | 0x0080_0000;
    (mantissa >> (16 + 126 - exp)) as u8
}

/// [`clamp_fog`] on four lanes, as `floor(f·256)` clamped to 0..=255 (equal for every
/// float: a power-of-two scale is exact; NaN takes its sign's end), in explicit SIMD lanes
/// (`wide`) without the branches on the exponent. Checked against [`clamp_fog`] by
/// `clamp_fog4_equals_clamp_fog`.
#[inline]
pub fn clamp_fog4(f: f32x4) -> i32x4 {
    // The clamp's bounds are ordered operands, so a NaN lane only decides its own select.
    let v = (f * 256.0).max(f32x4::ZERO).min(f32x4::splat(255.0)).fast_trunc_int();
    let nan: i32x4 = cast(f.is_nan());
    let neg: i32x4 = cast(f.is_sign_negative());
    // NaN: 255 for a positive sign, 0 for a negative one.
    nan.select(i32x4::splat(255) & !neg, v)
}

/// x86 `cvtps2dq` under the default MXCSR: round half to even; NaN and out-of-range give
/// `i32::MIN` ("integer indefinite"). PPSSPP's x86-64 build converts interpolated colours
/// and depth this way ([PP `Rasterizer.cpp` `InterpolateI`], [PP `Math3D.h` `Vec4::Cast`]).
#[inline]
pub(crate) fn cvt_round(x: f32) -> i32 {
    // Below 2^22 in magnitude, adding and removing 1.5·2^23 rounds half-to-even exactly in
    // f32 and avoids a libm `rintf` call on targets without SSE4.1.
    const MAGIC: f32 = 12_582_912.0;
    if x.abs() < 4_194_304.0 {
        ((x + MAGIC) - MAGIC) as i32
    } else if (-2_147_483_648.0..2_147_483_648.0).contains(&x) {
        x.round_ties_even() as i32
    } else {
        i32::MIN
    }
}

/// [`cvt_round`] on four lanes. On x86-64 this is `cvtps2dq` itself, which [`cvt_round`]
/// models (SSE2 is always there; Rust never changes the MXCSR rounding mode). Elsewhere:
/// when every lane is below 2^22 in magnitude (interpolated colours and depths, always but
/// for degenerate triangles) the magic-number rounding in lanes, else lane by lane.
/// Checked against [`cvt_round`] by `cvt_round4_equals_cvt_round`.
#[inline]
fn cvt_round4(x: f32x4) -> i32x4 {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        x.fast_round_int()
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    {
        const MAGIC: f32 = 12_582_912.0;
        if x.abs().simd_lt(f32x4::splat(4_194_304.0)).all() {
            // v + 1.5·2^23 lies in [2^23, 2^24], where consecutive integers are consecutive
            // bit patterns: the difference of the bits is the rounded value.
            let b: i32x4 = cast(x + MAGIC);
            b - i32x4::splat(MAGIC.to_bits() as i32)
        } else {
            i32x4::new(x.to_array().map(cvt_round))
        }
    }
}

/// C's double → int conversion on x86-64 (`cvttsd2si`): truncation, `i32::MIN` when
/// NaN or out of range.
#[inline]
fn cvt_trunc_f64(x: f64) -> i32 {
    if x > -2_147_483_649.0 && x < 2_147_483_648.0 {
        x as i32
    } else {
        i32::MIN
    }
}

/// PPSSPP passes depth as an int and stores it as u16 (wrapping).
#[inline]
fn depth_u16(z: i32) -> u16 {
    z as u16
}

/// A vertex's depth as PPSSPP holds it: `ScreenCoords::z` is a u16 filled by truncation
/// ([PP `TransformUnit.cpp` `ClipToScreenInternal`]).
#[inline]
fn vertex_depth(z: f32) -> u16 {
    z as u16
}

/// `floor(num / den)` for `den > 0` (0 otherwise): an exact ratio truncated.
#[inline]
fn floor_div(num: i64, den: i64) -> i64 {
    if den > 0 {
        num.div_euclid(den)
    } else {
        0
    }
}

#[inline]
fn clamp_u8(v: i32) -> u8 {
    v.clamp(0, 255) as u8
}

/// One-pixel quad: fragment 0 at (x, y) covered; the others repeat its attributes at the
/// neighbouring positions with s/t offset by (ds, dt) so the texture stage's per-quad
/// derivatives equal PPSSPP's per-pixel LOD inputs.
fn single_pixel_quad(f: Fragment, ds: f32, dt: f32, w: f32) -> Quad {
    let mut q = Quad::from_frags([f; 4], 1, w);
    q.x = f.x;
    q.y = f.y;
    q.s = [f.s, f.s + ds, f.s, f.s + ds];
    q.t = [f.t, f.t, f.t + dt, f.t + dt];
    q
}

/// Draw one point: exactly the pixel holding its 12.4 position, if inside the clip
/// rectangle [HW `primitives/points`: a point at 14 lights pixel 14 only;
/// PP `DrawPoint`]. Colour, depth and fog are the vertex's own.
pub fn point(v: &ScreenVertex, setup: &RasterSetup, emit: &mut dyn FnMut(&Quad)) {
    // [PP BinManager::Range] the point's pixel must lie inside the scissor.
    if screen_range(&[v.x.0], &[v.y.0], &setup.clip).is_none() {
        return;
    }
    // In range, x and y are non-negative, so PPSSPP's truncating `/ 16` is `>> 4`.
    let (x, y) = (v.x.0 >> 4, v.y.0 >> 4);
    if !setup.row_in_band(y) {
        return;
    }
    let (mut s, mut t) = (0.0, 0.0);
    if setup.textured {
        if setup.perspective {
            // [PP GetTextureCoordinatesProj(v0, v0, 0.0f)]: the two-vertex formula with
            // weight 0 on the first copy, evaluated literally (w = 0 gives NaN as in PPSSPP).
            let q0 = 1.0f32 / v.w;
            let wq0 = 0.0f32 * q0;
            let wq1 = 1.0f32 * q0;
            let q_recip = 1.0f32 / (v.q * wq0 + v.q * wq1);
            s = (v.s * wq0 + v.s * wq1) * q_recip;
            t = (v.t * wq0 + v.t * wq1) * q_recip;
        } else {
            s = v.s;
            t = v.t;
        }
    }
    let f = Fragment {
        x,
        y,
        z: vertex_depth(v.z),
        color0: v.color0,
        color0_indefinite: 0,
        color1: v.color1,
        fog: clamp_fog(v.fog),
        s,
        t,
    };
    // [PP DrawPoint] LOD inputs are ds = dt = 0; slope mode uses the vertex's clip w.
    emit(&single_pixel_quad(f, 0.0, 0.0, v.w));
}
