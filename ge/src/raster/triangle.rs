//! Triangles: integer edge functions, top-left fill rule, barycentric interpolation.
//!
//! Mirrors [PP `Rasterizer.cpp` `DrawTriangleSlice`] on x86-64 (SSE4.1 path):
//!
//! * Edge function of edge (a, b) at sample p, in 1/16 px with wrapping 32-bit integer
//!   arithmetic: `(a.y − b.y)·p.x + (b.x − a.x)·p.y + (b.y·a.x − b.x·a.y)`. Samples sit at
//!   (16·px + 7, 16·py + 7) [PP `TriangleEdge::Start`]. Wrapping arithmetic is translation
//!   invariant, so drawing-relative coordinates give PPSSPP's bits.
//! * A sample is covered when every weight plus its bias is ≥ 0; the bias is −1 for edges
//!   that are right edges or flat bottoms [PP `IsRightSideOrFlatBottomLine`].
//! * 1/Σw is computed once (the sum is the same everywhere) and every attribute is
//!   `((w0·a0 + w1·a1) + w2·a2) · (1/Σw)` in single precision; colours and depth are then
//!   rounded half-to-even (`cvtps2dq`), depth is taken exactly from v2 when all three
//!   vertices share it [PP `Interpolate`, `Vec4::Cast`].
//!
//! The real PSP differs in three measured ways, each a field of the per-draw
//! [`TriangleRule`] (hardware values from the pspautotests screenshots in
//! `conformance/hardware`, PPSSPP's in parentheses):
//!
//! * Sample point: coverage and every attribute are evaluated at the pixel centre,
//!   (16·px + 8, 16·py + 8) (PPSSPP: +7). The top-left tie rule is unchanged. Measured:
//!   texmtx-source 7 534 → 28 differing pixels, primitives-continue 40 → 0,
//!   triangle-triangle's 13 of 14 edge pixels.
//! * Colour: each channel is a plane through the triangle's first vertex (as the GE
//!   received it) whose gradients per 1/16 px, taken with a rounded-down reciprocal of the
//!   area, are rounded down to 14 fraction bits, evaluated exactly at the pixel centre and
//!   truncated ([`ColourPlane`]; PPSSPP: barycentric in f32, rounded half to even). Where
//!   the exact colour is a whole number the PSP shows one less on a falling ramp, and rows
//!   of a rotated triangle carry a constant error of a few hundredths that only these
//!   gradient steps reproduce: triangle-triangle 139 → 0 differing pixels,
//!   primitives-immediate 320 → 0, primitives-bezier 288 → 2 (module docs of
//!   [`ColourPlane`] list the alternatives).
//! * Perspective divide: the reciprocal of the interpolated q/w has a 16-bit significand,
//!   rounded to nearest (PPSSPP: f32). guess: fitted to texmtx-prims, where t/q is exactly
//!   1 along a diagonal and the PSP shows texel 255 or a wrap to 0 pixel by pixel: this rule
//!   predicts 119 of those 128 pixels, exact division 0 of the wraps. The PSP's divider is
//!   not exactly this (texmtx-prims column 150 needs a smaller reciprocal).
//!
//!   What the divider is not (measured on 384 hardware-read intervals for 1/q, one per
//!   distinct q: 256 from texmtx-source, 128 from texmtx-prims; this rule misses 6 + 9).
//!   texmtx-source's s, t and q at pixel centres are exact in 10 significant bits, so no
//!   storage or interpolation precision of them can matter there; its misses come from
//!   the divide. The PSP's reciprocal acts like one rounded to this rule's 2^-15 grid from
//!   a value off by about 2^-18 (up where 1/q ≈ 1.8, down where ≈ 1.1, not smooth between
//!   neighbouring q: 1024·q = 911, 915, 921 need < −0.03, ≥ −0.01, < −0.11 units of
//!   2^-15). None of these fits: the exact reciprocal rounded to 12–23 bits (nearest,
//!   down, up) or rounded twice; a constant rounding bias (best 14 misses); 1/(q ± k·2^-L)
//!   or a numerator 1 ± j·2^-L (|k|, |j| ≤ 3, L 15–24; best 7); the product s·r also rounded
//!   to 14–24 bits (never fewer misses); one Newton step from 5–10-bit seed tables with
//!   truncated or one's-complement intermediates (best 12); linear interpolation between
//!   2^4–2^8 table entries, the reciprocal rounded to 15–24 bits at the knots, with offsets
//!   (best 12). Free table entries fit only with ≥ 128 of them (within ±0.4 units if the
//!   result is truncated). A linear error term plus bias fitted on one test predicts the
//!   other worse than this rule. texmtx-normals' misses are mostly not the divider (exact division
//!   still misses 262 of its 276 pixels).
//!
//!   Nor is it screen-space structure. Counts below are pixels whose R or G texel differs in
//!   texmtx-source's 65 536 and texmtx-prims' 32 768 projected pixels; exact division gives
//!   28 + 332, this rule 20 + 267.
//!   * texmtx-source's PSP image is transpose-symmetric (R(x, y) = G(y, x) at all 65 536
//!     pixels), although q runs along x in one triangle and along y in the other. Any scheme
//!     that treats x and y differently (spans, row DDA) would break that symmetry.
//!   * s/q is constant down prims' column 150, so its 254 pixels are one q value, not a
//!     column effect. The reciprocal's error sign per column, read where t/q = 1, shows no
//!     x mod 2, 4, 8 or 16 pattern beyond chance (57 up, 71 down).
//!   * Affine s/q, t/q between per-pixel divides every N columns (N = 2–32, knots at x ≡ 0
//!     or N/2): best 35 + 371 (N = 2, reciprocal rounded down at the knots); with this rule
//!     20 + 614; N = 4 at least 70 and 1 690; N = 16 about 3 000 + 21 000. Every N rows:
//!     never better than the knots' divide. Bilinear over 2×2 blocks: best 34 + 371.
//!   * One divide per 2×2 or 4×4 block (at its centre or top-left) plus analytic
//!     derivatives: best 28 + 624.
//!   * s, t and q as fixed-point planes from the first vertex, with gradients rounded down
//!     to 18–32 bits per 1/16 px ([`ColourPlane`]'s arithmetic), or as a DDA. These tests'
//!     areas are powers of two and their values dyadic, so every such variant equals exact
//!     interpolation (28 + 332, 20 + 267 with this rule).
//!   * On prims' t/q = 1 diagonal, t and q are the same value. Any storage or interpolation
//!     that treats t and q alike keeps them equal, so the PSP's 255-or-wrap choice there is
//!     made by the divide alone. Scaling s, t and q by 1 ± 2^-k and rounding them to 15–18
//!     bits before the divide (k = 14–19; exact or 16–20-bit reciprocal; 93 settings) gives
//!     30 + 80, 30 + 100, 32 + 87 and 34 + 86 at four settings next to ones with ≥ 323 prims
//!     misses, and never fewer than 20 source misses: chance, not a rule.
//!   * A 128-segment piecewise-linear reciprocal with free knots fits the 384 intervals,
//!     for any knot phase, but only if its result is rounded to the 2^-15 grid. Without
//!     that rounding, and with 64 or 32 segments, nothing fits. Tangent or minimax segments
//!     (64–256 of them, coefficients at 16–18 and 8–12 bits) miss at best 12 of the 384.
//!     Nor does a free table carry over between the tests: fitted with no miss to one
//!     test's intervals (128–256 segments, smoothest or smallest correction, linear
//!     programming), it misses 3–78 of prims' 128 and 3–13 of source's 256 held-out
//!     intervals, against this rule's 9 and 6. A table would only restate its own data.
//!
//!   What texmtx-normals' misses are (open). The screenshot holds one draw: a fan textured from
//!   normalised float normals (skinned and UV-scaled draws come after the screenshot), so s, t, q
//!   carry 1/√2 and 1/√3. Each miss is one texel off (exact division: 218 lower, 44 higher).
//!   The PSP's image is exactly symmetric under (x, y) → (255 − y, 255 − x) with s ↔ t (the
//!   misses are 131 mirror pairs), so the cause treats s and t alike. The errors are absolute:
//!   where u ≈ 2 (s = 0.015) the PSP's u is 0.003 texel low (0.15 %), where u ≈ 90 relative
//!   errors stay below 0.005 %, so no reciprocal with a relative error (this rule included) makes
//!   them. No vertex values make exact interpolation fit, even with separate planes per triangle
//!   (linear programming): the best planes still leave per-pixel errors of 1.3 units of
//!   2^-16 in s in either triangle.
//!   On the line y − x = 53 (q constant, u just above 1, 3, …, 81), the PSP lowers s by
//!   0.209–0.231 units at even x and 0.062–0.085 at odd x (if constant along the line) for
//!   u from 1 to 41.
//!   Fits tried, with the fewest misses each: vertex values rounded to 12–24 bits (242); s, t, q
//!   cut per pixel to 2^-12 … 2^-20, also with a shared exponent, q and the reciprocal at
//!   12–20 bits (232); fixed-point planes like [`ColourPlane`] (168); float24 plane sums (235);
//!   values cut at 2×2-quad corners (237).

#[cfg(any(doc, test))]
use super::plane::ColourPlane;
use super::plane::QuadPlanes;
use super::{clamp_fog4, cvt_round4, depth_u16, screen_range, vertex_depth, RasterSetup};
use crate::geom::{Quad, ScreenVertex};
use bytemuck::cast;
use wide::{f32x4, i32x4, u32x4};

/// Which screen winding the caller culls (CULLFACEENABLE + CULL), or none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cull {
    Off,
    /// CULL = 0: screen-clockwise triangles are removed.
    Cw,
    /// CULL = 1: screen-counter-clockwise triangles are removed.
    Ccw,
}

/// Where a triangle is sampled inside each pixel, for coverage and attributes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SamplePoint {
    /// (16·px + 7, 16·py + 7) in 1/16 px [PP `TriangleEdge::Start`].
    Ppsspp,
    /// The pixel centre (16·px + 8, 16·py + 8) [HW texmtx-source, primitives-continue,
    /// triangle-triangle].
    PixelCentre,
}

impl SamplePoint {
    /// The sample's offset inside the pixel, in 1/16 px along x and y.
    pub const fn offset(self) -> i32 {
        match self {
            SamplePoint::Ppsspp => 7,
            SamplePoint::PixelCentre => 8,
        }
    }
}

/// How an interpolated (Gouraud) colour channel becomes an integer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColourRounding {
    /// Barycentric interpolation in f32, then `cvtps2dq`: half to even, NaN and overflow →
    /// "integer indefinite" [PP `Vec4::Cast`].
    X86HalfEven,
    /// The PSP: [`ColourPlane`], integer arithmetic from the first vertex with gradients
    /// rounded down, truncated [HW triangle-triangle, primitives-immediate,
    /// primitives-bezier].
    FirstVertexPlane,
}

/// Precision of the reciprocal in the perspective divide of texture coordinates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PerspRecip {
    /// f32 `1 / Σ` [PP `GetTextureCoordinatesProj`].
    F32,
    /// The f32 reciprocal rounded to a 16-bit significand (nearest, ties up). guess: fitted
    /// [HW texmtx-prims, texmtx-source, texmtx-normals].
    Significand16,
}

impl PerspRecip {
    /// The reciprocal `r` rounded by this rule, in every lane ([`round_significand4`]).
    #[inline]
    fn apply4(self, r: f32x4) -> f32x4 {
        match self {
            PerspRecip::F32 => r,
            PerspRecip::Significand16 => round_significand4(r, 16),
        }
    }
}

/// `x` rounded to a `bits`-bit significand (1 ≤ bits ≤ 24), to nearest with ties away
/// from zero; infinities and NaN pass through (a carry into the exponent is exact). The
/// scalar reference of [`round_significand4`].
#[cfg(test)]
pub(crate) fn round_significand(x: f32, bits: u32) -> f32 {
    if !x.is_finite() || bits >= 24 {
        return x;
    }
    let drop = 24 - bits;
    let b = x.to_bits();
    let r = (b.wrapping_add(1 << (drop - 1))) & !((1u32 << drop) - 1);
    // Rounding the largest finite values up would give infinity; keep them.
    let y = f32::from_bits(r);
    if y.is_finite() {
        y
    } else {
        x
    }
}

/// [`round_significand`] in every lane: the same bit arithmetic, with the two finiteness
/// checks as lane masks. Checked by `round_significand4_equals_round_significand`.
#[inline]
pub(crate) fn round_significand4(x: f32x4, bits: u32) -> f32x4 {
    if bits >= 24 {
        return x;
    }
    let drop = 24 - bits;
    let b: u32x4 = cast(x);
    let r = (b + (1u32 << (drop - 1))) & !((1u32 << drop) - 1);
    let exp = u32x4::splat(0x7F80_0000);
    // A non-finite input, or a finite one rounded up to infinity, is kept.
    let keep = (b & exp).simd_eq(exp) | (r & exp).simd_eq(exp);
    cast(keep.select(b, r))
}

/// The triangle arithmetic of a model, decided once per draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TriangleRule {
    pub sample: SamplePoint,
    pub colour: ColourRounding,
    pub persp_recip: PerspRecip,
}

impl TriangleRule {
    /// PPSSPP's software renderer on x86-64.
    pub const PPSSPP: TriangleRule =
        TriangleRule { sample: SamplePoint::Ppsspp, colour: ColourRounding::X86HalfEven, persp_recip: PerspRecip::F32 };
    /// The PSP (module docs list the evidence).
    pub const HARDWARE: TriangleRule = TriangleRule {
        sample: SamplePoint::PixelCentre,
        colour: ColourRounding::FirstVertexPlane,
        persp_recip: PerspRecip::Significand16,
    };
}

/// Submit a triangle the way [PP `TransformUnit::SendTriangle`] does: with culling off
/// both vertex orders are offered and the rasterizer keeps the one with non-negative
/// winding (both, for zero-area triangles); with culling on only one order is offered.
pub fn triangle_culled(v: &[ScreenVertex; 3], cull: Cull, setup: &RasterSetup, emit: &mut dyn FnMut(&Quad)) {
    let rev = [v[2], v[1], v[0]];
    match cull {
        Cull::Off => {
            triangle(v, setup, emit);
            triangle(&rev, setup, emit);
        }
        Cull::Cw => triangle(&rev, setup, emit),
        Cull::Ccw => triangle(v, setup, emit),
    }
}

/// Rasterize one triangle in exactly the vertex order given (the order PPSSPP's binner
/// receives it). Like [PP `BinManager::AddTriangle`] it draws nothing when the vertices run
/// the "wrong" way (negative cross product) or are all on one vertical/horizontal line, so
/// callers without culling use [`triangle_culled`]. Flat shading: the caller copies the
/// provoking vertex's colours into `v[2]` (PPSSPP's `corrected2`, or into all three) and sets
/// [`RasterSetup::flat_shading`].
pub fn triangle(v: &[ScreenVertex; 3], setup: &RasterSetup, emit: &mut dyn FnMut(&Quad)) {
    let p = [(v[0].x.0, v[0].y.0), (v[1].x.0, v[1].y.0), (v[2].x.0, v[2].y.0)];
    // [PP AddTriangle] winding and degenerate drops (32-bit wrapping as on x86).
    let d01 = (p[0].0.wrapping_sub(p[1].0), p[0].1.wrapping_sub(p[1].1));
    let d02 = (p[0].0.wrapping_sub(p[2].0), p[0].1.wrapping_sub(p[2].1));
    if d01.0.wrapping_mul(d02.1).wrapping_sub(d01.1.wrapping_mul(d02.0)) < 0 {
        return;
    }
    if (d01.0 == 0 && d02.0 == 0) || (d01.1 == 0 && d02.1 == 0) {
        return;
    }
    if covers_nothing(&p) {
        return;
    }
    let Some(range) = screen_range(&[p[0].0, p[1].0, p[2].0], &[p[0].1, p[1].1, p[2].1], &setup.clip) else {
        return;
    };
    let zi = [vertex_depth(v[0].z), vertex_depth(v[1].z), vertex_depth(v[2].z)];
    if let Some((lo, hi)) = setup.depth_range {
        // A flat depth outside the range drops every fragment.
        if zi[0] == zi[1] && zi[0] == zi[2] && (zi[2] < lo || zi[2] > hi) {
            return;
        }
    }
    // The attributes are set up at the first covered quad: many calls cover nothing
    // (zero-area strip joins, slivers between samples, the bands a triangle only grazes).
    let edges = Edges::new(&p, setup);
    let mut tri: Option<Tri> = None;
    edges.walk(range, setup, |w, recip, x, y, mask| {
        if let Some(tri) = &tri {
            tri.shade(w, recip, x, y, mask, setup, emit);
        } else {
            Tri::build(&mut tri, v, setup, zi).shade(w, recip, x, y, mask, setup, emit);
        }
    });
}

/// Whether a triangle with two equal vertices leaves every sample uncovered. The edge
/// between them has zero steps and c = 0 at any sample offset, so its value is 0 everywhere,
/// and its fill-rule bias ([`right_or_flat_bottom`] with a flat edge) is −1 exactly when
/// the third vertex is above them: then no lane is covered. Strip joins are such triangles:
/// in 19960 only 12 018 of 75 946 triangle calls cover a sample, and this drops 30 595
/// calls before any set-up (callgrind, 1 thread, 19960 hardware 706.3 -> 688.1 M with
/// the test on the built edges).
fn covers_nothing(p: &[(i32, i32); 3]) -> bool {
    (0..3).any(|k| {
        let (a, b) = (p[(k + 1) % 3], p[(k + 2) % 3]);
        a == b && p[k].1 < a.1
    })
}

/// One edge function: value at a sample and its steps per quad.
#[derive(Clone, Copy)]
struct Edge {
    xf: i32,
    yf: i32,
    c: i32,
}

impl Edge {
    /// [PP TriangleEdge::Start] "orient2d refactored".
    fn new(a: (i32, i32), b: (i32, i32)) -> Edge {
        Edge {
            xf: a.1.wrapping_sub(b.1),
            yf: b.0.wrapping_sub(a.0),
            c: b.1.wrapping_mul(a.0).wrapping_sub(b.0.wrapping_mul(a.1)),
        }
    }

    /// Values at the quad whose top-left sample row/column start at screen (x, y)
    /// (multiples of 16): lanes (x+7, y+7), (x+23, y+7), (x+7, y+23), (x+23, y+23). One
    /// evaluation plus the lanes' steps: wrapping sums are exact modulo 2^32, so this is
    /// the four evaluations bit for bit.
    fn start(&self, x: i32, y: i32) -> i32x4 {
        let at = self.xf.wrapping_mul(x + 7).wrapping_add(self.yf.wrapping_mul(y + 7)).wrapping_add(self.c);
        let (dx, dy) = (self.xf.wrapping_mul(16), self.yf.wrapping_mul(16));
        i32x4::splat(at) + i32x4::new([0, dx, dy, dx.wrapping_add(dy)])
    }

    fn step_x(&self) -> i32 {
        self.xf.wrapping_mul(32)
    }

    fn step_y(&self) -> i32 {
        self.yf.wrapping_mul(32)
    }
}

/// A triangle's coverage: its three edge functions (shifted to the model's sample point)
/// and their fill-rule biases.
struct Edges {
    e: [Edge; 3],
    bias: [i32x4; 3],
}

impl Edges {
    fn new(p: &[(i32, i32); 3], setup: &RasterSetup) -> Edges {
        let mut e = [Edge::new(p[1], p[2]), Edge::new(p[2], p[0]), Edge::new(p[0], p[1])];
        if setup.triangle.sample == SamplePoint::PixelCentre {
            // Every evaluation moves by (+1, +1) sixteenths; the sum of the weights is
            // unchanged (the steps of the three edges cancel).
            for e in &mut e {
                e.c = e.c.wrapping_add(e.xf).wrapping_add(e.yf);
            }
        }
        Edges {
            e,
            bias: [
                i32x4::splat(-(right_or_flat_bottom(p[0], p[1], p[2]) as i32)),
                i32x4::splat(-(right_or_flat_bottom(p[1], p[2], p[0]) as i32)),
                i32x4::splat(-(right_or_flat_bottom(p[2], p[0], p[1]) as i32)),
            ],
        }
    }

    /// Walk the quads of `range` in the band, row by row, left to right, and hand every
    /// quad with a covered lane to `quad` (weights, 1/Σw, pixel x, y, coverage mask).
    #[inline(always)]
    fn walk(&self, range: [i32; 4], setup: &RasterSetup, mut quad: impl FnMut(&[i32x4; 3], f32x4, i32, i32, u8)) {
        let [min_x, min_y, max_x, max_y] = range;
        let (step_x, step_y) = (
            [self.e[0].step_x(), self.e[1].step_x(), self.e[2].step_x()],
            [self.e[0].step_y(), self.e[1].step_y(), self.e[2].step_y()],
        );
        let mut base = [self.e[0].start(min_x, min_y), self.e[1].start(min_x, min_y), self.e[2].start(min_x, min_y)];
        // [PP EdgeRecip] the weight sum is the same at every sample.
        let b0 = [base[0].to_array()[0], base[1].to_array()[0], base[2].to_array()[0]];
        let wsum = b0[0].wrapping_add(b0[1].wrapping_add(b0[2]));
        let recip = f32x4::splat(1.0f32 / wsum as f32);

        // Skip quad rows above the band without changing the grid.
        let first_row = min_y >> 4;
        let mut k0 = 0i32;
        if setup.band_y0 > first_row + 1 {
            k0 = (setup.band_y0 - first_row) / 2;
            for (e, b) in base.iter_mut().enumerate() {
                *b += step_y[e].wrapping_mul(k0);
            }
        }
        // Lanes 1 and 3 take the row's right-end term [PP DrawTriangleSlice scissor mask].
        let right_lanes = i32x4::new([0, -1, 0, -1]);
        let mut cur_y = min_y as i64 + 32 * k0 as i64;
        while cur_y <= max_y as i64 {
            let py = (cur_y >> 4) as i32;
            if py > setup.band_y1 {
                break;
            }
            let row_mask_y1 = if cur_y + 16 > max_y as i64 { -1 } else { 0 };
            let band_ok = [setup.row_in_band(py), setup.row_in_band(py + 1)];
            let (mut row_min, mut row_max) = (min_x as i64, max_x as i64);
            for e in 0..3 {
                narrow(base[e], step_x[e], min_x as i64, &mut row_min, &mut row_max);
            }
            let skip = ((row_min - min_x as i64) / 32) as i32;
            let mut w = [
                base[0] + step_x[0].wrapping_mul(skip),
                base[1] + step_x[1].wrapping_mul(skip),
                base[2] + step_x[2].wrapping_mul(skip),
            ];
            // [PP DrawTriangleSlice] scissor mask: lanes 1/3 die past the right end, 2/3 the bottom.
            // Rows outside the band get a negative term too, so a lane is covered exactly
            // when the OR of its terms is non-negative (no branch per lane).
            let out_of_band = band_ok.map(|ok| -i32::from(!ok));
            let row_y = i32x4::new([
                out_of_band[0],
                out_of_band[0],
                out_of_band[1] | row_mask_y1,
                out_of_band[1] | row_mask_y1,
            ]);
            let mut sc_x = (row_max - row_min - 16) as i32;
            let mut cur_x = row_min;
            while cur_x <= row_max {
                let sc = row_y | (i32x4::splat(sc_x) & right_lanes);
                // Lane l is covered when the OR of its terms has the sign bit clear.
                let m = (w[0] + self.bias[0]) | (w[1] + self.bias[1]) | (w[2] + self.bias[2]) | sc;
                let mask = !m.to_bitmask() as u8 & 15;
                if mask != 0 {
                    // A copy: with `w` itself borrowed, its three vectors were stored at
                    // every quad, covered or not.
                    let wq = w;
                    quad(&wq, recip, (cur_x >> 4) as i32, py, mask);
                }
                cur_x += 32;
                for e in 0..3 {
                    w[e] += step_x[e];
                }
                sc_x = sc_x.wrapping_sub(32);
            }
            cur_y += 32;
            for e in 0..3 {
                base[e] += step_y[e];
            }
        }
    }
}

/// [PP IsRightSideOrFlatBottomLine]: is `vertex` (the one opposite the edge) such that the
/// edge line1→line2 is a right edge or a flat bottom? C int arithmetic, wrapping.
fn right_or_flat_bottom(vertex: (i32, i32), l1: (i32, i32), l2: (i32, i32)) -> bool {
    if l1.1 == l2.1 {
        vertex.1 < l1.1
    } else {
        let num = l2.0.wrapping_sub(l1.0).wrapping_mul(vertex.1.wrapping_sub(l1.1));
        vertex.0 < l1.0.wrapping_add(num.wrapping_div(l2.1.wrapping_sub(l1.1)))
    }
}

/// [PP NarrowMinMaxX]: skip whole quads on this row that the edge excludes.
fn narrow(w: i32x4, step_x: i32, min_x: i64, row_min: &mut i64, row_max: &mut i64) {
    let wmax = w.reduce_max();
    if wmax < 0 {
        if step_x > 0 {
            let steps = wmax.wrapping_neg().wrapping_div(step_x);
            *row_min = (*row_min).max(min_x + steps.wrapping_mul(32) as i64);
        } else {
            *row_min = *row_max + 1;
        }
    }
    if wmax >= 0 && step_x < 0 {
        let steps = wmax.wrapping_neg().wrapping_div(step_x).wrapping_add(1);
        *row_max = (*row_max).min(min_x + steps.wrapping_mul(32) as i64);
    }
}

/// An attribute's values at the three vertices, each in all four lanes, for
/// [`Tri::lerp`] and [`Tri::sum`].
type Splat3 = [f32x4; 3];

fn splat3(a: [f32; 3]) -> Splat3 {
    a.map(f32x4::splat)
}

/// A triangle's attributes as [`Tri::shade`] reads them, each per-vertex value already
/// splatted across the four lanes of a quad. Set up at the triangle's first covered quad,
/// and only what the draw reads: the rest stays `None` (no loads, converts, splats or
/// zero-fill).
struct Tri {
    z: Splat3,
    z_flat: Option<u16>,
    /// Barycentric colours (PPSSPP model, not flat): primary (r, g, b, a) and secondary
    /// (r, g, b) channels, each at the three vertices.
    c0: Option<[Splat3; 4]>,
    c1: Option<[Splat3; 3]>,
    /// The flat primary colour as a little-endian word, 0 when not flat.
    c0_word: u32,
    /// The flat secondary colour as a little-endian word (fourth byte 0), 0 when not flat.
    c1_word: u32,
    /// `None` when every vertex has fog ≥ 1 (no fog).
    fog: Option<Splat3>,
    /// Texture attributes, when the draw is textured.
    tex: Option<TexAttrs>,
    persp_recip: PerspRecip,
    /// [`ColourRounding::FirstVertexPlane`]: the planes of the colours that are not flat.
    planes: Option<QuadPlanes>,
}

/// The texture attributes of a [`Tri`].
struct TexAttrs {
    s: Splat3,
    t: Splat3,
    /// q and 1 / clip w per vertex (perspective mode; unset otherwise).
    q: Splat3,
    inv_w: Splat3,
    /// Clip w per vertex (slope-mode LOD).
    clip_w: Splat3,
}

impl Tri {
    /// Set up triangle `v` (depths `zi`) in `slot`. Built in place: returned by value, the
    /// colour planes were copied twice (0x1b8 bytes each, 19960 hardware 5.8 M).
    #[inline(never)]
    fn build<'a>(slot: &'a mut Option<Tri>, v: &[ScreenVertex; 3], setup: &RasterSetup, zi: [u16; 3]) -> &'a Tri {
        let c0_flat =
            (setup.flat_shading || (v[0].color0 == v[1].color0 && v[0].color0 == v[2].color0)).then_some(v[2].color0);
        let c1_flat =
            (setup.flat_shading || (v[0].color1 == v[1].color1 && v[0].color1 == v[2].color1)).then_some(v[2].color1);
        let attr = |f: &dyn Fn(&ScreenVertex) -> f32| splat3([f(&v[0]), f(&v[1]), f(&v[2])]);
        let z_flat = (zi[0] == zi[1] && zi[0] == zi[2]).then_some(zi[2]);
        let no_fog = v[0].fog >= 1.0 && v[1].fog >= 1.0 && v[2].fog >= 1.0;
        // Both colours flat: neither the planes nor the barycentric path is read.
        let planes =
            setup.triangle.colour == ColourRounding::FirstVertexPlane && !(c0_flat.is_some() && c1_flat.is_some());
        let persp = setup.perspective;
        let tri = slot.insert(Tri {
            z: if z_flat.is_none() { splat3([zi[0] as f32, zi[1] as f32, zi[2] as f32]) } else { [f32x4::ZERO; 3] },
            // [PP DrawTriangleSlice] "All the z values are the same, no interpolation".
            z_flat,
            c0: (!planes && c0_flat.is_none()).then(|| std::array::from_fn(|ch| attr(&|v| v.color0[ch] as f32))),
            c1: (!planes && c1_flat.is_none()).then(|| std::array::from_fn(|ch| attr(&|v| v.color1[ch] as f32))),
            c0_word: u32::from_le_bytes(c0_flat.unwrap_or_default()),
            c1_word: c1_flat.map_or(0, |[r, g, b]| u32::from_le_bytes([r, g, b, 0])),
            fog: (!no_fog).then(|| attr(&|v| v.fog)),
            tex: setup.textured.then(|| TexAttrs {
                s: attr(&|v| v.s),
                t: attr(&|v| v.t),
                q: if persp { attr(&|v| v.q) } else { [f32x4::ZERO; 3] },
                inv_w: if persp { attr(&|v| 1.0 / v.w) } else { [f32x4::ONE; 3] },
                clip_w: attr(&|v| v.w),
            }),
            persp_recip: setup.triangle.persp_recip,
            planes: None,
        });
        if planes {
            QuadPlanes::build(&mut tri.planes, v, setup, c0_flat.is_none(), c1_flat.is_none());
        }
        tri
    }

    /// PPSSPP's barycentric interpolation in every lane, `((w0·a0 + w1·a1) + w2·a2)·(1/Σw)`:
    /// the same IEEE operations in the same order as the scalar expression.
    #[inline(always)]
    fn lerp(wf: &[f32x4; 3], a: &Splat3, recip: f32x4) -> f32x4 {
        Self::sum(wf, a) * recip
    }

    /// `(w0·a0 + w1·a1) + w2·a2` in every lane.
    #[inline(always)]
    fn sum(wf: &[f32x4; 3], a: &Splat3) -> f32x4 {
        wf[0] * a[0] + wf[1] * a[1] + wf[2] * a[2]
    }

    /// Interpolate every attribute for the four lanes of a quad, in explicit SIMD lanes
    /// (`wide`), so the code no longer depends on what the compiler inlines around it
    /// (auto-vectorisation of the earlier lane arrays broke when the pixel kernel changed:
    /// 21763 +3.7 % instructions). Every lane evaluates PPSSPP's scalar expressions with
    /// the same IEEE operations in the same order (no fused multiply-add: `wide` has it
    /// only as a named method). The coverage mask comes from the lanes' sign bits in
    /// [`Edges::walk`].
    ///
    /// Emits nothing when no lane is left after the depth tests of the rasterizer (a
    /// transform-mode depth outside 0..=65535, [`RasterSetup::depth_range`]); the other
    /// attributes are then not interpolated.
    ///
    /// Not inlined into [`Edges::walk`]: inlined, LLVM hoisted every field of the triangle
    /// out of the walk and spilled them to other stack slots, 281 moves per triangle
    /// (callgrind, 1 thread, 19960 hardware: 811.8 -> 804.4 M with the call). The quad goes
    /// to `emit` from here, not through a returned `Option<Quad>` (one copy fewer).
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    fn shade(
        &self,
        w: &[i32x4; 3],
        recip: f32x4,
        x: i32,
        y: i32,
        mask: u8,
        setup: &RasterSetup,
        emit: &mut dyn FnMut(&Quad),
    ) {
        let persp = setup.perspective;
        let wf = [w[0].round_float(), w[1].round_float(), w[2].round_float()];
        let mut mask = mask;
        let z = match self.z_flat {
            Some(z) => i32x4::splat(z as i32),
            None => {
                let zi = cvt_round4(Self::lerp(&wf, &self.z, recip));
                // Transform mode always applies the depth range test to the 32-bit z, so
                // a depth outside 0..=65535 (e.g. `i32::MIN` from a NaN on a zero-area
                // triangle) is discarded; through mode compares only the low 16 bits
                // [PP FuncId.cpp `applyDepthRange = !isModeThrough()`, DrawPixelX86.cpp
                // "compare all 32 of z", Rasterizer.cpp DrawTriangleSlice early-Z].
                if persp {
                    let out = zi.simd_lt(i32x4::ZERO) | zi.simd_gt(i32x4::splat(0xFFFF));
                    mask &= !out.to_bitmask() as u8;
                }
                zi & i32x4::splat(0xFFFF)
            }
        };
        if let Some((lo, hi)) = setup.depth_range {
            let out = z.simd_lt(i32x4::splat(lo as i32)) | z.simd_gt(i32x4::splat(hi as i32));
            mask &= !out.to_bitmask() as u8;
        }
        if mask == 0 {
            return;
        }
        let z = z.to_array().map(depth_u16);
        // The flat colours (or zero) as one word splatted to the four lanes: built byte
        // by byte, the secondary colour alone took 30 instructions a quad (with the colour
        // planes' vertex pair kept in `PlaneSetup`: 19960 hardware 801.3 -> 794.8 M).
        let mut c0: [[u8; 4]; 4] = cast([self.c0_word; 4]);
        let mut c0_indefinite = [0u8; 4];
        let mut c1: [[u8; 4]; 4] = cast([self.c1_word; 4]);
        if let Some(planes) = &self.planes {
            planes.shade(x, y, &mut c0, &mut c1);
        } else {
            // Channels packed little-endian into one word per lane (clamped to a byte; the
            // secondary colour's fourth byte stays 0).
            let pack = |ch: &[Splat3], ind: &mut i32x4| -> [[u8; 4]; 4] {
                let mut packed = i32x4::ZERO;
                for (k, c) in ch.iter().enumerate() {
                    let v = cvt_round4(Self::lerp(&wf, c, recip));
                    // The "integer indefinite" of a NaN: an x86 artefact.
                    *ind |= v.simd_eq(i32x4::splat(i32::MIN)) & i32x4::splat(1 << k);
                    packed |= v.max(i32x4::ZERO).min(i32x4::splat(255)) << (8 * k as u32);
                }
                cast(packed)
            };
            if let Some(ch) = &self.c0 {
                let mut ind = i32x4::ZERO;
                c0 = pack(ch, &mut ind);
                c0_indefinite = ind.to_array().map(|i| i as u8);
            }
            if let Some(ch) = &self.c1 {
                let mut ind = i32x4::ZERO;
                c1 = pack(ch, &mut ind);
            }
        }
        let fog = match &self.fog {
            None => [255; 4],
            Some(f) => clamp_fog4(Self::lerp(&wf, f, recip)).to_array().map(|f| f as u8),
        };
        let (mut s, mut t, mut w) = ([0.0f32; 4], [0.0f32; 4], 0.0);
        if let Some(tex) = &self.tex {
            if persp {
                // [PP GetTextureCoordinatesProj]: weights w·(1/w), q interpolated with them
                // (q = 1 without projection gives the plain sum bit for bit).
                let wq = [wf[0] * tex.inv_w[0], wf[1] * tex.inv_w[1], wf[2] * tex.inv_w[2]];
                let qr = self.persp_recip.apply4(f32x4::ONE / Self::sum(&wq, &tex.q));
                s = (Self::sum(&wq, &tex.s) * qr).to_array();
                t = (Self::sum(&wq, &tex.t) * qr).to_array();
            } else {
                s = Self::lerp(&wf, &tex.s, recip).to_array();
                t = Self::lerp(&wf, &tex.t, recip).to_array();
            }
            // [PP DrawTriangleSlice] slope mode: clip w interpolated linearly (no perspective
            // correction) at the quad's first lane, computed for every textured quad.
            w = Self::lerp(&wf, &tex.clip_w, recip).to_array()[0];
        }
        emit(&Quad { x, y, z, color0: c0, color0_indefinite: c0_indefinite, color1: c1, fog, s, t, mask, w });
    }
}

#[cfg(test)]
mod tests;
