//! Float helpers that reproduce PPSSPP's x86-64 (SSE/SSE4.1) arithmetic bit for bit:
//! the exact order of additions in its matrix and dot products, its length-based
//! normalisation, the `RSQRTPS` normalisation order (its rsqrt per [`RsqrtRule`]), and `CVTTSS2SI`'s
//! out-of-range result. Nothing here allocates or panics.
//!
//! Matrix layouts follow the GE: a 4x3 matrix is four 3-float columns (X, Y, Z axes,
//! translation), a 4x4 matrix is four 4-float columns.

use wide::f32x4;

/// `CVTTSS2SI`: truncation toward zero; NaN and values outside i32 give `i32::MIN`
/// (the x86 "integer indefinite"), which is what C++ `(int)f` does on x86-64.
///
/// On x86-64 this is the instruction's packed form (SSE2 is part of the target's baseline);
/// elsewhere [`cvtt_portable`], which `cvtt_equals_portable_rule` checks it against.
#[inline]
pub(crate) fn cvtt(f: f32) -> i32 {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        // `cvttps2dq` on one lane: the same truncation and integer indefinite as
        // `cvttss2si`, without `unsafe` (`wide`).
        wide::f32x4::splat(f).fast_trunc_int().to_array()[0]
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    {
        cvtt_portable(f)
    }
}

/// [`cvtt`] in portable Rust: a saturating cast inside the i32 range, the "integer
/// indefinite" outside it and for NaN.
#[inline]
#[cfg_attr(all(target_arch = "x86_64", target_feature = "sse2"), allow(dead_code))]
pub(crate) fn cvtt_portable(f: f32) -> i32 {
    if (-2_147_483_648.0..2_147_483_648.0).contains(&f) {
        f as i32
    } else {
        i32::MIN
    }
}

/// `cvtt(f.ceil())` without the `ceilf` library call (the x86-64 baseline has no
/// `ROUNDSS`): truncate, then step up when a positive fraction was dropped. Every float
/// of magnitude ≥ 2^23 is an integer, so the step only happens where `t + 1` fits; NaN and
/// out-of-range inputs give `i32::MIN` as `cvtt` does (`cvtt_ceil_equals_ceil_then_cvtt`).
#[inline]
pub(crate) fn cvtt_ceil(f: f32) -> i32 {
    let t = cvtt(f);
    if t != i32::MIN && f > t as f32 {
        t + 1
    } else {
        t
    }
}

/// C++ `(u16)f` on x86-64: `CVTTSS2SI` to 32 bits, then the low 16 bits.
#[inline]
pub(crate) fn cvtt_u16(f: f32) -> u16 {
    cvtt(f) as u16
}

/// Column `i` of a 4x3 matrix as lanes (lane 3 is 0).
#[inline(always)]
fn column3(m: &[f32; 12], i: usize) -> f32x4 {
    f32x4::new([m[3 * i], m[3 * i + 1], m[3 * i + 2], 0.0])
}

/// The first three lanes.
#[inline(always)]
fn xyz(r: f32x4) -> [f32; 3] {
    let a = r.to_array();
    [a[0], a[1], a[2]]
}

/// 4x3 matrix times (v, 1): `(c0·x + c1·y) + (c2·z + c3)` per row
/// [PP `Math3D.h` `Vec3ByMatrix43Internal` SSE path]. The rows are lanes: each lane is the
/// scalar formula's IEEE operations in its order (no FMA), so the bits are
/// the per-row formula's (`lane_matrices_equal_the_scalar_ones`). Measured (callgrind,
/// whole process, 1 thread, against the scalar rows): `render g59dc00.pmo` (36 006
/// vertices, two 4x3 and two 4x4 products each in the hardware model) 93.3 -> 91.0 M,
/// 11216 803.4 (hardware) and 738.3 (PPSSPP) from about 821 and 746.8 M.
#[inline]
pub(crate) fn mul43(m: &[f32; 12], v: [f32; 3]) -> [f32; 3] {
    let [x, y, z] = v.map(f32x4::splat);
    xyz((column3(m, 0) * x + column3(m, 1) * y) + (column3(m, 2) * z + column3(m, 3)))
}

/// 4x3 matrix times (v, 0): `(c0·x + c1·y) + c2·z` [PP `Norm3ByMatrix43Internal` SSE path],
/// rows as lanes like [`mul43`].
#[inline]
pub(crate) fn norm43(m: &[f32; 12], v: [f32; 3]) -> [f32; 3] {
    let [x, y, z] = v.map(f32x4::splat);
    xyz((column3(m, 0) * x + column3(m, 1) * y) + column3(m, 2) * z)
}

/// 4x4 matrix times (v, 1): `(c0·x + c1·y) + (c2·z + c3)` [PP `Vec3ByMatrix44Internal` SSE path],
/// rows as lanes like [`mul43`].
#[inline]
pub(crate) fn mul44(m: &[f32; 16], v: [f32; 3]) -> [f32; 4] {
    let c = |i: usize| f32x4::new([m[4 * i], m[4 * i + 1], m[4 * i + 2], m[4 * i + 3]]);
    let [x, y, z] = v.map(f32x4::splat);
    ((c(0) * x + c(1) * y) + (c(2) * z + c(3))).to_array()
}

/// A 4x3 matrix widened to 4x4 (fourth row 0, 0, 0, 1) [PP `ConvertMatrix4x3To4x4`].
pub(crate) fn widen43(m: &[f32; 12]) -> [f32; 16] {
    let mut o = [0.0; 16];
    for c in 0..4 {
        o[4 * c] = m[3 * c];
        o[4 * c + 1] = m[3 * c + 1];
        o[4 * c + 2] = m[3 * c + 2];
    }
    o[15] = 1.0;
    o
}

/// The matrix that applies `first`, then `then` (`then · first`), with PPSSPP's SSE
/// summation order `((t0·f0 + t1·f1) + t2·f2) + t3·f3` per element
/// [PP `Math3D.h` `Matrix4ByMatrix4(out, first, then)`, `fast_matrix_mul_4x4` SSE2].
pub(crate) fn then44(first: &[f32; 16], then: &[f32; 16]) -> [f32; 16] {
    let mut o = [0.0; 16];
    for c in 0..4 {
        let f = &first[4 * c..4 * c + 4];
        for r in 0..4 {
            o[4 * c + r] = ((then[r] * f[0] + then[4 + r] * f[1]) + then[8 + r] * f[2]) + then[12 + r] * f[3];
        }
    }
    o
}

/// `(a0·b0 + a1·b1) + a2·b2` [PP `Lighting.cpp` `Dot33` SSE path, `Math3D.h` `Dot`].
#[inline]
pub(crate) fn dot3(a: [f32; 3], b: [f32; 3]) -> f32 {
    (a[0] * b[0] + a[1] * b[1]) + a[2] * b[2]
}

/// `sqrt(x² + (y² + z²))` [PP `Math3D.cpp` `Vec3<float>::Length` SSE path].
#[inline]
pub(crate) fn length(v: [f32; 3]) -> f32 {
    (v[0] * v[0] + (v[1] * v[1] + v[2] * v[2])).sqrt()
}

/// Divides by the length; a zero vector becomes (x, y, 1). Returns the vector and the
/// length [PP `Vec3<float>::NormalizeOr001`].
#[inline]
pub(crate) fn normalize_or_001(v: [f32; 3]) -> ([f32; 3], f32) {
    let len = length(v);
    if len == 0.0 {
        ([v[0], v[1], 1.0], len)
    } else {
        ([v[0] / len, v[1] / len, v[2] / len], len)
    }
}

/// Divides by the length, whatever it is [PP `Vec3<float>::Normalize`].
#[inline]
pub(crate) fn normalize(v: [f32; 3]) -> [f32; 3] {
    let len = length(v);
    [v[0] / len, v[1] / len, v[2] / len]
}

/// How a normalisation computes its reciprocal square root; part of the per-draw
/// transform state, decided once per draw by the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RsqrtRule {
    /// `1 / sqrt(x)` correctly rounded. guess: the GE's normalisation is exact to float
    /// precision (no hardware data decides this yet).
    #[default]
    Exact,
    /// x86 `RSQRTPS` as the AMD CPU that made PPSSPP's references computes it
    /// ([`crate::ppsspp::rsqrt`]).
    AmdRsqrtps,
}

impl RsqrtRule {
    #[inline]
    pub fn rsqrt(self, x: f32) -> f32 {
        match self {
            RsqrtRule::Exact => 1.0 / x.sqrt(),
            RsqrtRule::AmdRsqrtps => crate::ppsspp::rsqrt::rsqrt_approx(x),
        }
    }
}

/// `v · rsqrt((x² + y²) + z²)`: the sum order of SSE4.1 `DPPS`, the rsqrt of `rule`
/// [PP `Math3D.cpp` `Vec3<float>::Normalized(useSSE4 = true)`].
#[inline]
pub(crate) fn normalized_approx(v: [f32; 3], rule: RsqrtRule) -> [f32; 3] {
    let k = rule.rsqrt((v[0] * v[0] + v[1] * v[1]) + (v[2] * v[2] + 0.0));
    [v[0] * k, v[1] * k, v[2] * k]
}

/// [`normalized_approx`], then every lane that is NaN (in the result or the input)
/// is replaced by the matching lane of (0, 0, 1) [PP `Vec3<float>::NormalizedOr001` SSE path].
#[inline]
pub(crate) fn normalized_or_001_approx(v: [f32; 3], rule: RsqrtRule) -> [f32; 3] {
    let r = normalized_approx(v, rule);
    let fallback = [0.0, 0.0, 1.0];
    let mut o = [0.0; 3];
    for i in 0..3 {
        o[i] = if r[i].is_nan() || v[i].is_nan() { fallback[i] } else { r[i] };
    }
    o
}

/// `pow` as PPSSPP's lighting uses it: exponent ≤ 0 gives 1, a non-positive base is
/// returned unchanged [PP `Lighting.cpp` `pspLightPow`]. Computed in double and rounded,
/// guess: matches the C library's float `pow` used by the reference build.
#[inline]
pub(crate) fn light_pow(v: f32, e: f32) -> f32 {
    if e <= 0.0 {
        return 1.0;
    }
    if v > 0.0 {
        return (v as f64).powf(e as f64) as f32;
    }
    v
}

/// NaN or infinity (exponent all ones) [PP `my_isnanorinf`].
#[inline]
pub(crate) fn is_nan_or_inf(f: f32) -> bool {
    f.to_bits() & 0x7F80_0000 == 0x7F80_0000
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The per-row formula [`mul43`] computes on lanes.
    pub(super) fn mul43_plain(m: &[f32; 12], v: [f32; 3]) -> [f32; 3] {
        std::array::from_fn(|i| (m[i] * v[0] + m[3 + i] * v[1]) + (m[6 + i] * v[2] + m[9 + i]))
    }

    /// The per-row formula [`norm43`] computes on lanes.
    fn norm43_plain(m: &[f32; 12], v: [f32; 3]) -> [f32; 3] {
        std::array::from_fn(|i| (m[i] * v[0] + m[3 + i] * v[1]) + m[6 + i] * v[2])
    }

    /// The per-row formula [`mul44`] computes on lanes.
    fn mul44_plain(m: &[f32; 16], v: [f32; 3]) -> [f32; 4] {
        std::array::from_fn(|i| (m[i] * v[0] + m[4 + i] * v[1]) + (m[8 + i] * v[2] + m[12 + i]))
    }

    /// Bits equal, or both NaN (which NaN an operation returns when both operands are NaN
    /// is not fixed by the scalar code either: LLVM may commute an addition).
    fn same(a: &[f32], b: &[f32]) -> bool {
        a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()))
    }

    /// A float from a mix of random bit patterns (NaN, infinities, subnormals), huge and
    /// tiny magnitudes, signed zeros and ordinary values with fractions.
    fn any_float() -> impl proptest::strategy::Strategy<Value = f32> {
        use proptest::prelude::*;
        prop_oneof![
            any::<u32>().prop_map(f32::from_bits),
            (-1.0e4f32..1.0e4),
            (-2.0f32..2.0),
            proptest::sample::select(vec![
                0.0f32,
                -0.0,
                1.0,
                -1.0,
                f32::INFINITY,
                f32::NEG_INFINITY,
                f32::NAN,
                3.0e38,
                -1.0e-40
            ]),
        ]
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(20000))]
        /// The lane products equal the per-row formulas bit for bit on any floats.
        #[test]
        fn lane_matrices_equal_the_scalar_ones(
            m in proptest::collection::vec(any_float(), 16),
            v in proptest::collection::vec(any_float(), 3),
        ) {
            let m16: [f32; 16] = m.clone().try_into().unwrap();
            let m12: [f32; 12] = m[..12].try_into().unwrap();
            let v: [f32; 3] = v.try_into().unwrap();
            proptest::prop_assert!(same(&mul43(&m12, v), &mul43_plain(&m12, v)), "{m12:?} {v:?}");
            proptest::prop_assert!(same(&norm43(&m12, v), &norm43_plain(&m12, v)), "{m12:?} {v:?}");
            proptest::prop_assert!(same(&mul44(&m16, v), &mul44_plain(&m16, v)), "{m16:?} {v:?}");
        }
    }

    #[test]
    fn cvtt_is_x86() {
        assert_eq!(cvtt(-1.9), -1);
        assert_eq!(cvtt(1.0e10), i32::MIN);
        assert_eq!(cvtt(f32::NAN), i32::MIN);
        assert_eq!(cvtt_u16(70000.0), 4464);
        assert_eq!(cvtt_u16(-5.0), 65531);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(20000))]
        /// The instruction and the portable rule agree on every kind of float: random
        /// bit patterns (NaNs, infinities, subnormals) and values around the i32 limits.
        #[test]
        fn cvtt_equals_portable_rule(bits in proptest::prelude::any::<u32>(), near in -4.0f32..4.0) {
            let f = f32::from_bits(bits);
            proptest::prop_assert_eq!(cvtt(f), cvtt_portable(f));
            for edge in [2_147_483_648.0f32, -2_147_483_648.0, 0.0, 65536.0] {
                let g = edge + near * if edge.abs() > 1e9 { 128.0 } else { 1.0 };
                proptest::prop_assert_eq!(cvtt(g), cvtt_portable(g));
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(20000))]
        /// The call-free ceiling agrees with `ceil` then `cvtt` on random bit patterns and
        /// on small values with fractions (where the step up happens).
        #[test]
        fn cvtt_ceil_equals_ceil_then_cvtt(bits in proptest::prelude::any::<u32>(), near in -1030.0f32..1030.0) {
            for f in [f32::from_bits(bits), near] {
                proptest::prop_assert_eq!(cvtt_ceil(f), cvtt(f.ceil()));
            }
        }
    }

    #[test]
    fn cvtt_ceil_edges() {
        for f in [-0.5f32, -0.0, 0.0, 0.25, 1.0, 511.01, 2_147_483_520.0, 2_147_483_648.0, -2_147_483_648.0, f32::NAN] {
            assert_eq!(cvtt_ceil(f), cvtt(f.ceil()), "{f}");
        }
    }

    #[test]
    fn zero_vector_normalises_to_z() {
        assert_eq!(normalized_or_001_approx([0.0; 3], RsqrtRule::AmdRsqrtps), [0.0, 0.0, 1.0]);
        assert_eq!(normalize_or_001([0.0; 3]), ([0.0, 0.0, 1.0], 0.0));
        assert_eq!(normalize_or_001([3.0, 0.0, 4.0]).0, [0.6, 0.0, 0.8]);
    }

    #[test]
    fn then44_composes_in_order() {
        // first: translate x by 1; then: scale x by 2 => x' = 2(x+1).
        let mut t = crate::regs::IDENTITY_4X4;
        t[12] = 1.0;
        let mut s = crate::regs::IDENTITY_4X4;
        s[0] = 2.0;
        let m = then44(&t, &s);
        assert_eq!(mul44(&m, [3.0, 0.0, 0.0]), [8.0, 0.0, 0.0, 1.0]);
    }
}
