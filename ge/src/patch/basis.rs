//! Basis weights of the two curve types and the float helpers the tessellator shares
//! with PPSSPP's x86-64 build.
//!
//! A weight table holds, for every tessellation step along one direction, the four
//! basis values and their derivatives. Every expression keeps PPSSPP's operation order
//! and single-precision rounding, because the reference images come from its output
//! [PP `SplineCommon.cpp` `Bezier3DWeight`/`Spline3DWeight`].

use crate::raster::cvt_round;
use crate::transform::RsqrtRule;

/// The four basis values at one parameter and their derivatives with respect to it.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Weight {
    pub basis: [f32; 4],
    pub deriv: [f32; 4],
}

/// Cubic Bernstein weights at `t = i · (1/tess)` for `i = 0..=tess` (`tess ≥ 1`).
/// Note that `tess · (1/tess)` is not always exactly 1 in single precision; the last
/// step then does not hit the patch edge exactly, as in PPSSPP.
pub fn bezier_weights(tess: u32) -> Vec<Weight> {
    let inv = 1.0f32 / tess as f32;
    (0..=tess).map(|i| bezier_at(i as f32 * inv)).collect()
}

/// Bernstein basis and derivative, in PPSSPP's expression order
/// [PP `Bezier3DWeight::CalcWeights`].
pub fn bezier_at(t: f32) -> Weight {
    let s = 1.0 - t;
    Weight {
        basis: [s * s * s, 3.0 * t * s * s, 3.0 * t * t * s, t * t * t],
        deriv: [-3.0 * s * s, 9.0 * t * t - 12.0 * t + 3.0, 3.0 * (2.0 - 3.0 * t) * t, 3.0 * t * t],
    }
}

/// Reciprocal knot spans of one spline patch. PPSSPP stores the six divisors it needs
/// instead of a knot vector; open edges change some of them [PP `Spline3DWeight::KnotDiv`].
#[derive(Debug, Clone, Copy)]
struct KnotDiv {
    d30: f32,
    d41: f32,
    d52: f32,
    d31: f32,
    d42: f32,
}

impl Default for KnotDiv {
    fn default() -> Self {
        KnotDiv { d30: 1.0 / 3.0, d41: 1.0 / 3.0, d52: 1.0 / 3.0, d31: 0.5, d42: 0.5 }
    }
}

/// Uniform cubic B-spline weights over `count` control points (`count ≥ 4`, so
/// `count − 3` patches) for `tess ≥ 1` steps per patch: `(count − 3) · tess + 1` entries,
/// entry `k` at `t = k · (1/tess)`. Edge type bit 0 opens the first edge, bit 1 the last
/// (the curve then interpolates that end point) [PP `Spline3DWeight::CalcKnots`].
/// A patch boundary belongs to the patch before it, whose knots evaluate it.
pub fn spline_weights(tess: u32, count: u32, edge: u8) -> Vec<Weight> {
    let n = count.saturating_sub(3).max(1) as usize;
    let tess = tess as usize;
    // knots[k] = k − 2; only the first n + 2 are ever read.
    let mut knots: Vec<f32> = (0..n + 2).map(|k| k as f32 - 2.0).collect();
    let mut divs = vec![KnotDiv::default(); n];
    if edge & 1 != 0 {
        knots[0] = 0.0;
        knots[1] = 0.0;
        divs[0].d30 = 1.0;
        divs[0].d41 = 0.5;
        divs[0].d31 = 1.0;
        if n > 1 {
            divs[1].d30 = 0.5;
        }
    }
    if edge & 2 != 0 {
        divs[n - 1].d41 = 0.5;
        divs[n - 1].d52 = 1.0;
        divs[n - 1].d42 = 1.0;
        if n > 1 {
            divs[n - 2].d52 = 0.5;
        }
    }
    let inv = 1.0f32 / tess as f32;
    let mut out = vec![Weight::default(); n * tess + 1];
    for (i, div) in divs.iter().enumerate() {
        let start = usize::from(i != 0);
        let k = [knots[i], knots[i + 1], knots[i + 2]];
        for j in start..=tess {
            let index = i * tess + j;
            out[index] = spline_at(index as f32 * inv, k, div);
        }
    }
    out
}

/// One B-spline evaluation as PPSSPP's SSE path computes it (the reference build is
/// x86-64): the products `b` and `d` are formed as `(0 − x)·(0 − y)`, which only
/// differs from `x·y` in the sign of a zero [PP `Spline3DWeight::CalcWeights` `_M_SSE`].
fn spline_at(t: f32, knots: [f32; 3], div: &KnotDiv) -> Weight {
    let t0 = t - knots[0];
    let t1 = t - knots[1];
    let t2 = t - knots[2];
    let f30 = t0 * div.d30;
    let f41 = t1 * div.d41;
    let f52 = t2 * div.d52;
    let f31 = t1 * div.d31;
    let f42 = t2 * div.d42;
    // The 3–2 span is always 1, so f32 is t2 itself.
    let f32_ = t2;
    let a = (1.0 - f30) * (1.0 - f31);
    let c = (1.0 - f41) * (1.0 - f42);
    let b = (0.0 - f31) * (0.0 - f41);
    let d = (0.0 - f42) * (0.0 - f52);
    let basis = [a * (1.0 - f32_), 1.0 - a - b + (a + b + c - 1.0) * f32_, b + (1.0 - b - c - d) * f32_, d * f32_];
    let i1 = (1.0 - f31) * (1.0 - f32_);
    let i2 = f31 * (1.0 - f32_) + (1.0 - f42) * f32_;
    let i3 = f42 * f32_;
    let f130 = i1 * div.d30;
    let f241 = i2 * div.d41;
    let f352 = i3 * div.d52;
    let deriv = [3.0 * (0.0 - f130), 3.0 * (f130 - f241), 3.0 * (f241 - f352), 3.0 * (f352 - 0.0)];
    Weight { basis, deriv }
}

/// `v · rsqrt(DPPS(v, v))`: PPSSPP's SSE4.1 `Vec3<float>::Normalized`, with the dot
/// product summed as `(x² + y²) + z²` [PP `Math3D.cpp` `SSENormalizeMultiplierSSE4`] and
/// the reciprocal square root of `rule`.
pub fn normalized_approx(v: [f32; 3], rule: RsqrtRule) -> [f32; 3] {
    let k = rule.rsqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    [v[0] * k, v[1] * k, v[2] * k]
}

/// `_mm_cvtps_epi32` then two saturating packs: round half to even, NaN and values
/// outside the i32 range become `i32::MIN` (so 0), then clamp to 0..=255
/// [PP `Math3D.h` `Vec4<float>::ToRGBA` SSE path].
#[inline]
pub fn unit_to_u8(x: f32) -> u8 {
    cvt_round(x * 255.0).clamp(0, 255) as u8
}

/// [`unit_to_u8`] on the four channels of a colour at once. On x86-64 this is the
/// `cvtps2dq` [`unit_to_u8`] models, on four lanes with the lanes' clamp (11216 converts
/// 400 000 tessellated colours: about 40 instructions each channel by channel);
/// elsewhere channel by channel. Test `units_to_u8_equals_unit_to_u8`.
#[inline]
pub fn units_to_u8(x: [f32; 4]) -> [u8; 4] {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        use wide::{f32x4, i32x4};
        // Out of range and NaN lanes give i32::MIN, which the clamp makes 0, as `cvt_round`'s.
        let r = (f32x4::new(x) * f32x4::splat(255.0)).fast_round_int();
        r.max(i32x4::ZERO).min(i32x4::splat(255)).to_array().map(|c| c as u8)
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    {
        x.map(unit_to_u8)
    }
}

/// `c · (1/255)` in single precision [PP `Vec4<float>::FromRGBA` SSE path].
#[inline]
pub fn u8_to_unit(c: u8) -> f32 {
    f32::from(c) * (1.0f32 / 255.0)
}

/// Cubic B-spline weights as the PSP evaluates them ([`super::TessellationRule::Hardware`]):
/// the textbook basis over the knot vector `tᵢ = i − 3` (`i = 0..count + 4`), whose
/// first four knots collapse to 0 when the first edge is open (bit 0) and whose last four
/// collapse to `count − 3` when the last edge is open (bit 1), evaluated by Cox–de Boor
/// in double precision. Same layout as [`spline_weights`]: `(count − 3) · tess + 1`
/// entries, entry `k` at `t = k / tess`, a patch boundary belonging to the patch before.
/// [HW primitives-spline: a 4 × 4 grid with both edges open is drawn exactly as the
/// Bézier patch of the same points (e.g. the red→blue patch reads R = 71 at y = 20.5,
/// 256·(1 − v)³ with v = 0.35); PPSSPP's knot divisors give 60 there.]
/// The basis values are then held as the PSP holds them (`fixed_point_basis`).
pub fn spline_weights_exact(tess: u32, count: u32, edge: u8) -> Vec<Weight> {
    let n = count.saturating_sub(3).max(1) as usize;
    let tess = tess.max(1) as usize;
    let last = n as f64;
    let knots: Vec<f64> = (0..n + 7)
        .map(|i| {
            let t = i as f64 - 3.0;
            if edge & 1 != 0 && t < 0.0 {
                0.0
            } else if edge & 2 != 0 && t > last {
                last
            } else {
                t
            }
        })
        .collect();
    let mut out = vec![Weight::default(); n * tess + 1];
    for (k, w) in out.iter_mut().enumerate() {
        // The patch evaluating step k (a boundary belongs to the patch before).
        let patch = if k == 0 { 0 } else { (k - 1) / tess };
        let t = k as f64 / tess as f64;
        *w = de_boor_weight(&knots, patch, t);
    }
    out
}

/// Basis values `N_{patch+j,3}(t)` (j = 0..4) and their derivatives on the knot span
/// `[t_{patch+3}, t_{patch+4}]`, by Cox–de Boor (0/0 read as 0).
fn de_boor_weight(knots: &[f64], patch: usize, t: f64) -> Weight {
    let div = |a: f64, b: f64| if b == 0.0 { 0.0 } else { a / b };
    // Degree-0 basis over the span: the one non-zero function, then raise the degree.
    // n[d][j]: N_{patch + j, d}(t) for the functions that can be non-zero (j = 0..4 − d … 3).
    let mut n = [[0.0f64; 5]; 4];
    n[0][3] = 1.0;
    for d in 1..=3 {
        for j in (3 - d)..=3 {
            let i = patch + j;
            let left = div(t - knots[i], knots[i + d] - knots[i]) * n[d - 1][j];
            let right = div(knots[i + d + 1] - t, knots[i + d + 1] - knots[i + 1]) * n[d - 1][j + 1];
            n[d][j] = left + right;
        }
    }
    let basis = fixed_point_basis(std::array::from_fn(|j| n[3][j]));
    let deriv = std::array::from_fn(|j| {
        let i = patch + j;
        (3.0 * (div(n[2][j], knots[i + 3] - knots[i]) - div(n[2][j + 1], knots[i + 4] - knots[i + 1]))) as f32
    });
    Weight { basis, deriv }
}

/// Fraction bits of a hardware B-spline basis value (`fixed_point_basis`).
pub const SPLINE_WEIGHT_BITS: i32 = 16;

/// Four basis values as the PSP's spline evaluator holds them: each rounded down to
/// [`SPLINE_WEIGHT_BITS`] fraction bits, except the largest (the first of equals), which is
/// one minus the others, so the weights still sum to exactly 1 and the others fall short.
/// [HW primitives-spline, patch "vtype0" (v edges closed, x 130–160): the closed edges
/// are at y = (90 + 4·90 + 120)/6 = 95 and (90 + 4·120 + 120)/6 = 115 exactly, yet the PSP's
/// Gouraud rows 95–114 fit only a top vertex 1/16 px higher (94.9375) and a bottom one at
/// 115 (240 pixels off with both at their exact values, 0 with this); the colours there
/// are consistent with it too (212.5 + ε rounds up to 213, 42.5 − ε to 43). Sweep of the
/// fraction bits: 12–20 → primitives-spline 242 → 2 differing pixels; 10 → 392; every
/// weight rounded down (sum < 1) → 973, to nearest → 542, the remainder given to a fixed
/// one of the four → ≥ 242.] guess: the bit count (any of 12–20 fits) and the
/// tie between equal largest weights; derivatives (normals) stay exact.
pub fn fixed_point_basis(exact: [f64; 4]) -> [f32; 4] {
    let scale = f64::from(1u32 << SPLINE_WEIGHT_BITS);
    let mut w = exact.map(|x| (x * scale).floor() / scale);
    let largest = (0..4).fold(0, |m, j| if exact[j] > exact[m] { j } else { m });
    w[largest] = 1.0 - (0..4).filter(|&j| j != largest).map(|j| w[j]).sum::<f64>();
    w.map(|x| x as f32)
}
