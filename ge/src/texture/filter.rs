//! Texel coordinates, wrap/clamp and the nearest/bilinear filters, as PPSSPP's x86 sampler
//! JIT computes them (ge-reference.md §10.4–§10.6).
//!
//! * Nearest: `u = cvtt(s·(w·256)) >> 8` (truncating conversion, arithmetic shift)
//!   [PP SamplerX86.cpp Jit_GetTexelCoords: CVTTPS2DQ + PSRAD 8].
//! * Bilinear: `U = cvt(s·(w·256)) − 128` where the conversion **rounds to nearest even**
//!   (x86 `CVTPS2DQ` under the default MXCSR), 4-bit weight `(U >> 4) & 15`, texels
//!   `U >> 8` and `U >> 8 + 1` [PP SamplerX86.cpp Jit_GetTexelCoordsQuad]. PPSSPP's C++
//!   fallback `SampleLinear` truncates instead ([PP Sampler.cpp GetTexelCoordinatesQuadS/T]
//!   `(int)(s * w * 256)`); it runs when a sampler was not compiled yet
//!   ([`SamplerRule::PpssppCpp`], decided by `crate::ppsspp`). The PSP rounds down on
//!   rectangles ([`SamplerRule::Hardware`]).
//! * Bilinear arithmetic: PPSSPP rounds once, `(Σ c·wu·wv) >> 8`; the PSP rounds each pass
//!   down to 8 bits, the pass along u first ([`SamplerRule::rounds_each_pass`]).
//! * Out-of-range and NaN conversions give `i32::MIN`, like the SSE instructions.
//! * Wrap: `x & ((size − 1) & 511)`; clamp: to `0..=(size − 1) & 511`, so coordinates never
//!   exceed 511 [HW textures/size; PP constMaxTexel32_].

use super::format::{lane_offsets, spread, tap_offsets, BlockMemo, Format, LevelSrc};

/// x86 `CVTTPS2DQ`: truncate toward zero; NaN or out of range -> `i32::MIN`.
#[inline]
pub fn cvtt(x: f32) -> i32 {
    if (-2147483648.0..2147483648.0).contains(&x) {
        x as i32
    } else {
        i32::MIN
    }
}

/// x86 `CVTPS2DQ` with round-to-nearest-even; NaN or out of range -> `i32::MIN`.
#[inline]
pub fn cvt_rne(x: f32) -> i32 {
    // Below 2^22 in magnitude, adding and removing 1.5·2^23 rounds to nearest even in
    // hardware (avoids a libm call); larger values use the library routine.
    const MAGIC: f32 = 12582912.0;
    let r = if x.abs() < 4194304.0 { (x + MAGIC) - MAGIC } else { x.round_ties_even() };
    if (-2147483648.0..2147483648.0).contains(&r) {
        r as i32
    } else {
        i32::MIN
    }
}

/// `floor(x)`; NaN or out of range -> `i32::MIN` (the hardware's bilinear coordinate on
/// rectangles, see [`SamplerRule::Hardware`]).
#[inline]
pub fn cvt_floor(x: f32) -> i32 {
    // Truncate, then step down when that rounded up (negative fractions): exact for every
    // float in range (a float with a fraction is below 2^23), and without the libm
    // `floorf` call that `f32::floor` is on x86-64 without SSE4.1 (it was a measurable
    // share of hardware-model rectangles).
    if (-2147483648.0..2147483648.0).contains(&x) {
        let t = x as i32;
        if (t as f32) > x {
            t - 1
        } else {
            t
        }
    } else {
        i32::MIN
    }
}

/// Size and addressing mode of one axis of one level.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Axis {
    /// `size · 256` as a float (exact: sizes are powers of two up to 2^15).
    pub scale: f32,
    /// `(size − 1) & 511`: the wrap mask and the clamp bound.
    pub max: i32,
    pub clamp: bool,
    /// How bilinear coordinates are converted.
    pub rule: SamplerRule,
}

/// Which sampler arithmetic a draw uses; part of the per-draw texture state, decided once
/// per draw by the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum SamplerRule {
    /// The GE drawing rectangles: bilinear coordinates round down (`floor(s·w·256)`)
    /// [HW filtering/precisionlinear2d, precisionlinear3d "Pos X offset (256x) 0..15": 2
    /// texels over 512 px, the centre of pixel x at 256·s = x + ½ + i/16; the first weight
    /// change is at x = 144 for i = 0..7 and at 143 for i = 8..15, which only rounding down
    /// gives (to nearest: 143 from i = 0 (ties to even) or i = 1 on)].
    #[default]
    Hardware,
    /// To nearest even, like PPSSPP's JIT, on the hardware's other arithmetic. No model
    /// chooses it: the hardware model samples triangles, lines and points with
    /// [`SamplerRule::Hardware`] too (guess: no readback test filters a triangle). Measured
    /// with this rule on every hardware draw: rendertarget-rendertarget 276 -> 274
    /// differing pixels, reflection-reflection 1 429 -> 1 456; truncating equals rounding
    /// down on both.
    HardwareTriangles,
    /// PPSSPP's x86 sampler JIT: bilinear coordinates round to nearest even (`CVTPS2DQ`).
    PpssppJit,
    /// PPSSPP's C++ fallback `SampleLinear`: bilinear coordinates truncate; it runs when a
    /// sampler was not compiled yet [PP Sampler.cpp GetTexelCoordinatesQuadS/T].
    PpssppCpp,
}

impl SamplerRule {
    /// Bilinear filtering rounds each pass down to 8 bits, the pass along u first:
    /// `top = (c00(16−fu) + c10·fu) >> 4`, `bot` likewise, result `(top(16−fv) + bot·fv) >> 4`
    /// (PPSSPP: one rounding of the whole sum).
    /// [HW reflection-reflection, 4444 texture ADDed to a constant face colour, so the PSP's
    /// filtered texel is read off the screenshot: over the 18 001 interior pixels of the
    /// front cube's faces one rounding misses 590, u pass first 328 (the rest fit texel
    /// coordinates 1–6/256 texel away), v pass first 544, passes rounded to nearest 717,
    /// the u pass keeping 1–3 more bits 486–579, filtering the 4-bit values and expanding
    /// after 565–577. Whole screenshot 1 429 -> 973 differing pixels, rendertarget-rendertarget
    /// (4444 render target on a cube) 276 -> 251; no other screenshot or readback line moves.]
    #[inline]
    pub fn rounds_each_pass(self) -> bool {
        matches!(self, SamplerRule::Hardware | SamplerRule::HardwareTriangles)
    }
}

impl Axis {
    pub fn new(size: u32, clamp: bool) -> Axis {
        Axis { scale: (size << 8) as f32, max: (size.wrapping_sub(1) & 511) as i32, clamp, rule: SamplerRule::Hardware }
    }

    /// The same axis sampled under `rule`.
    pub fn with_rule(mut self, rule: SamplerRule) -> Axis {
        self.rule = rule;
        self
    }

    #[inline]
    pub fn fix(&self, x: i32) -> u32 {
        if self.clamp {
            x.min(self.max).max(0) as u32
        } else {
            (x & self.max) as u32
        }
    }

    /// Nearest texel index for coordinate `s`.
    #[inline]
    pub fn nearest(&self, s: f32) -> u32 {
        self.fix(cvtt(s * self.scale) >> 8)
    }

    /// Bilinear: (first texel, second texel, 4-bit weight of the second).
    #[inline]
    pub fn linear(&self, s: f32) -> (u32, u32, u32) {
        let scaled = s * self.scale;
        let x = match self.rule {
            SamplerRule::PpssppCpp => cvtt(scaled),
            SamplerRule::Hardware => cvt_floor(scaled),
            SamplerRule::HardwareTriangles | SamplerRule::PpssppJit => cvt_rne(scaled),
        }
        .wrapping_sub(128);
        let i = x >> 8;
        (self.fix(i), self.fix(i.wrapping_add(1)), ((x >> 4) & 15) as u32)
    }
}

/// Whether all four lanes are below 2^22 in magnitude (not NaN): then [`rne_small`]
/// holds for each.
// As one lane mask (`MOVMSKPS` on x86): the four bools combined were ~17 instructions.
#[inline(always)]
fn all_small(x: [f32; 4]) -> bool {
    use wide::f32x4;
    f32x4::from(x).abs().simd_lt(f32x4::splat(4194304.0)).all()
}

/// `x` rounded to nearest even, for |x| < 2^22: x + 1.5·2^23 then lies in [2^23, 2^24],
/// where consecutive integers are consecutive bit patterns, so the difference of the bits
/// is the rounded value (integer arithmetic only, which vectorises; no float-to-int
/// conversion).
#[inline(always)]
fn rne_small(x: f32) -> i32 {
    const MAGIC: f32 = 12582912.0;
    ((x + MAGIC).to_bits() as i32).wrapping_sub(MAGIC.to_bits() as i32)
}

/// [`cvtt`] on four lanes. On x86-64 this is the instruction itself on four lanes
/// (`CVTTPS2DQ` through `wide`, SSE2 being part of the target's baseline; NaN and out of
/// range give `i32::MIN` as [`cvtt`] does); elsewhere without a branch per lane when all
/// are below 2^22 (truncation is the rounded value stepped toward zero where it
/// overshot). Checked against [`cvtt`] by `lane_coordinates_equal_the_scalar_ones` and
/// `cvtt4_equals_cvtt`.
#[inline(always)]
fn cvtt4(x: [f32; 4]) -> [i32; 4] {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        wide::f32x4::from(x).fast_trunc_int().to_array()
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    {
        cvtt4_portable(x)
    }
}

/// [`cvtt4`] in portable Rust.
#[inline(always)]
#[cfg_attr(all(target_arch = "x86_64", target_feature = "sse2"), allow(dead_code))]
fn cvtt4_portable(x: [f32; 4]) -> [i32; 4] {
    if all_small(x) {
        x.map(|v| {
            let r = rne_small(v);
            let rf = r as f32;
            r - i32::from(v >= 0.0 && rf > v) + i32::from(v < 0.0 && rf < v)
        })
    } else {
        x.map(cvtt)
    }
}

/// [`cvt_rne`] on four lanes: without a branch per lane when all are below 2^22.
#[inline(always)]
fn cvt_rne4(x: [f32; 4]) -> [i32; 4] {
    if all_small(x) {
        x.map(rne_small)
    } else {
        x.map(cvt_rne)
    }
}

/// [`cvt_floor`] on four lanes. On x86-64: the truncation (`CVTTPS2DQ`, `i32::MIN` for
/// NaN and out of range, as [`cvt_floor`]), one less where it lies above x, except in
/// those `i32::MIN` lanes (a value with a fraction is below 2^23, so the step never
/// meets them otherwise). Elsewhere without a branch per lane when all are below 2^22
/// (the rounded value, one less where it is above x). Checked against [`cvt_floor`] by
/// `lane_coordinates_equal_the_scalar_ones` and `cvt_floor4_equals_cvt_floor`. The
/// instruction form against the range test and rounding (callgrind, 1 thread, hardware
/// model, whole process): 21763 992.4 -> 970.1 M, 19960 784.5 -> 769.3 M, nba-2k12
/// 247.3 -> 241.8 M.
#[inline(always)]
fn cvt_floor4(x: [f32; 4]) -> [i32; 4] {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        use wide::{f32x4, i32x4};
        let v = f32x4::from(x);
        let t = v.fast_trunc_int();
        let above: i32x4 = bytemuck::cast(t.round_float().simd_gt(v));
        let indefinite = t.simd_eq(i32x4::splat(i32::MIN));
        (t + (above & !indefinite)).to_array()
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    {
        cvt_floor4_portable(x)
    }
}

/// [`cvt_floor4`] in portable Rust.
#[inline(always)]
#[cfg_attr(all(target_arch = "x86_64", target_feature = "sse2"), allow(dead_code))]
fn cvt_floor4_portable(x: [f32; 4]) -> [i32; 4] {
    if all_small(x) {
        x.map(|v| {
            let r = rne_small(v);
            r - i32::from(r as f32 > v)
        })
    } else {
        x.map(cvt_floor)
    }
}

impl Axis {
    /// [`Axis::fix`] of four lanes, the clamp or wrap chosen once.
    #[inline(always)]
    fn fix4(&self, x: [i32; 4]) -> [u32; 4] {
        if self.clamp {
            x.map(|x| x.min(self.max).max(0) as u32)
        } else {
            x.map(|x| (x & self.max) as u32)
        }
    }

    /// [`Axis::nearest`] of four coordinates.
    #[inline(always)]
    pub fn nearest4(&self, s: [f32; 4]) -> [u32; 4] {
        self.fix4(cvtt4(s.map(|s| s * self.scale)).map(|x| x >> 8))
    }

    /// [`Axis::linear`] of four coordinates: first texels, second texels, weights.
    #[inline(always)]
    pub fn linear4(&self, s: [f32; 4]) -> ([u32; 4], [u32; 4], [u32; 4]) {
        let scaled = s.map(|s| s * self.scale);
        let x = match self.rule {
            SamplerRule::PpssppCpp => cvtt4(scaled),
            SamplerRule::Hardware => cvt_floor4(scaled),
            SamplerRule::HardwareTriangles | SamplerRule::PpssppJit => cvt_rne4(scaled),
        }
        .map(|x| x.wrapping_sub(128));
        let i = x.map(|x| x >> 8);
        (self.fix4(i), self.fix4(i.map(|i| i.wrapping_add(1))), x.map(|x| ((x >> 4) & 15) as u32))
    }
}

/// One level ready to sample: memory, palette and axes.
pub struct Level<'a> {
    pub src: LevelSrc<'a>,
    pub u: Axis,
    pub v: Axis,
}

#[inline]
pub fn nearest<F: Format>(l: &Level, s: f32, t: f32) -> [u8; 4] {
    F::fetch(&l.src, l.u.nearest(s), l.v.nearest(t))
}

#[inline]
fn pack(x: u64) -> [u8; 4] {
    [x as u8, (x >> 16) as u8, (x >> 32) as u8, (x >> 48) as u8]
}

/// Bilinear with 4-bit weights: `((c00(16−fu) + c10·fu)(16−fv) + (c01(16−fu) + c11·fu)·fv) >> 8`
/// [PP Sampler.cpp SampleLinearLevel; SamplerX86.cpp Jit_BlendQuad], or on the PSP with each
/// pass rounded down ([`SamplerRule::rounds_each_pass`]). Each lane peaks at 255·256 = 65280.
// Inlined into the per-format samplers (a call per fragment otherwise; callgrind).
#[inline(always)]
pub fn bilinear<F: Format>(l: &Level, s: f32, t: f32) -> [u8; 4] {
    let (u0, u1, fu) = l.u.linear(s);
    let (v0, v1, fv) = l.v.linear(t);
    bilinear_at::<F>(l, (u0, u1, fu), (v0, v1, fv))
}

/// [`bilinear`] from the texel pairs and weights of its two axes ([`Axis::linear`]).
#[inline(always)]
pub fn bilinear_at<F: Format>(l: &Level, (u0, u1, fu): (u32, u32, u32), (v0, v1, fv): (u32, u32, u32)) -> [u8; 4] {
    // Per-mip CLUT4 palettes: the JIT adds 16·level to the palette index with a MOVD, which
    // fills only the first of its four lanes, so only the top-left tap uses the level's
    // palette; the other three read the level-0 entries [PP SamplerX86.cpp Jit_ReadClutQuad
    // "Now we multiply by 16, and add"; lanes ordered by constUNext_/constVNext_].
    let rest = LevelSrc { clut_level: 0, ..l.src };
    // SWAR (`spread`): every intermediate below stays under 2^16, so lanes never carry.
    let c00 = F::tap(&l.src, u0, v0);
    let c10 = F::tap(&rest, u1, v0);
    let c01 = F::tap(&rest, u0, v1);
    let c11 = F::tap(&rest, u1, v1);
    weigh([c00, c10, c01, c11], fu, fv, l.u.rule)
}

/// The bilinear sum of four spread taps `[c00, c10, c01, c11]` with 4-bit weights.
#[inline(always)]
fn weigh([c00, c10, c01, c11]: [u64; 4], fu: u32, fv: u32, rule: SamplerRule) -> [u8; 4] {
    let (fu, fv) = (fu as u64, fv as u64);
    let top = c00 * (16 - fu) + c10 * fu;
    let bot = c01 * (16 - fu) + c11 * fu;
    if rule.rounds_each_pass() {
        pack(second_pass(top, bot, fv))
    } else {
        pack((top * (16 - fv) + bot * fv) >> 8)
    }
}

/// [`bilinear`] of the lanes in `mask` (others stay 0): the texel coordinates as lane
/// arrays ([`Axis::linear4`]), the taps' byte offsets from two columns and two rows per
/// lane ([`lane_offsets`]) and the taps read by [`Format::taps`] (DXT1 decodes a block
/// once for the taps in it, through `memo`, which must come from this level). Equal to
/// [`bilinear`] lane by lane (`shader/tests.rs`, `lane_offsets_equal_the_texel_offsets`).
#[inline(always)]
pub fn bilinear4<F: Format>(l: &Level, s: [f32; 4], t: [f32; 4], mask: u8, memo: &mut BlockMemo) -> [[u8; 4]; 4] {
    pack16(&bilinear4_wide::<F>(l, s, t, mask, memo))
}

/// [`bilinear4`] before the narrowing to bytes: lane i's channel c at 4i + c, each at
/// most 255 (for [`mip_blend16`]).
#[inline(always)]
pub fn bilinear4_wide<F: Format>(l: &Level, s: [f32; 4], t: [f32; 4], mask: u8, memo: &mut BlockMemo) -> [u16; 16] {
    let ((u0, u1, fu), (v0, v1, fv)) = (l.u.linear4(s), l.v.linear4(t));
    let terms = lane_offsets::<F>(&l.src, (u0, u1), (v0, v1));
    // `taps[k][i]`: tap k of lane i (0 for uncovered lanes, which then weigh to 0).
    let mut taps = [[0u64; 4]; 4];
    for i in 0..4 {
        if mask & (1 << i) != 0 {
            let lane = F::taps(&l.src, tap_offsets(&terms, i), (u0[i], u1[i]), (v0[i], v1[i]), memo);
            for (k, tap) in lane.into_iter().enumerate() {
                taps[k][i] = tap;
            }
        }
    }
    weigh4_wide(&taps, fu, fv, l.u.rule)
}

/// Sixteen 16-bit lanes below 256 narrowed to four RGBA colours.
#[inline(always)]
fn pack16(w: &[u16; 16]) -> [[u8; 4]; 4] {
    let mut out = [[0u8; 4]; 4];
    out.as_flattened_mut().copy_from_slice(&w.map(|x| x as u8));
    out
}

/// [`weigh4_wide`] narrowed to bytes.
#[cfg(test)]
fn weigh4(taps: &[[u64; 4]; 4], fu: [u32; 4], fv: [u32; 4], rule: SamplerRule) -> [[u8; 4]; 4] {
    pack16(&weigh4_wide(taps, fu, fv, rule))
}

/// [`weigh`] of four lanes at once as sixteen 16-bit lanes (lane i's channel c at
/// 4i + c, each result at most 255), which vectorises: `taps[k][i]` is tap k of lane i.
/// Every intermediate stays below 2^16, as in [`weigh`]. Equal to [`weigh`] per lane
/// (`weigh4_equals_weigh`).
#[inline(always)]
fn weigh4_wide(taps: &[[u64; 4]; 4], fu: [u32; 4], fv: [u32; 4], rule: SamplerRule) -> [u16; 16] {
    // The spread taps reinterpreted as 16-bit lanes (lane c of a u64 is its u16 c in
    // little-endian order, so the byte order is fixed first; no-ops on x86), and each
    // weight repeated into its lane's four channels by a multiply. Extracting the lanes
    // one by one with shifts stayed scalar code and cost more than the per-lane SWAR
    // weighing (callgrind).
    let mut le = *taps;
    for x in le.as_flattened_mut() {
        *x = x.to_le();
    }
    let mut c: [[u16; 16]; 4] = bytemuck::cast(le);
    for x in c.as_flattened_mut() {
        *x = u16::from_le(*x);
    }
    let each = |f: [u32; 4]| -> [u16; 16] {
        const REPEAT: u64 = 0x0001_0001_0001_0001;
        bytemuck::cast([
            u64::from(f[0]) * REPEAT,
            u64::from(f[1]) * REPEAT,
            u64::from(f[2]) * REPEAT,
            u64::from(f[3]) * REPEAT,
        ])
    };
    let (wu, wv) = (each(fu), each(fv));
    let [c00, c10, c01, c11] = c;
    let mut w = [0u16; 16];
    if rule.rounds_each_pass() {
        for k in 0..16 {
            let top = (c00[k] * (16 - wu[k]) + c10[k] * wu[k]) >> 4;
            let bot = (c01[k] * (16 - wu[k]) + c11[k] * wu[k]) >> 4;
            w[k] = (top * (16 - wv[k]) + bot * wv[k]) >> 4;
        }
    } else {
        for k in 0..16 {
            let top = c00[k] * (16 - wu[k]) + c10[k] * wu[k];
            let bot = c01[k] * (16 - wu[k]) + c11[k] * wu[k];
            w[k] = (top * (16 - wv[k]) + bot * wv[k]) >> 8;
        }
    }
    w
}

/// The PSP's second (v) pass over first-pass sums `top` and `bot` (lanes below 2^12), each
/// rounded down to 8 bits first; only the low byte of each result lane is meaningful
/// (shifting the whole word moves a lane's low bits into the top of the lane below, which
/// the mask and [`pack`] drop).
#[inline(always)]
fn second_pass(top: u64, bot: u64, fv: u64) -> u64 {
    const LOW_BYTES: u64 = 0x00FF_00FF_00FF_00FF;
    (((top >> 4) & LOW_BYTES) * (16 - fv) + ((bot >> 4) & LOW_BYTES) * fv) >> 4
}

/// Blend two mip levels: `(c0(16−f) + c1·f) >> 4` [PP SampleLinear/SampleNearest levelFrac].
#[inline]
pub fn mip_blend(c0: [u8; 4], c1: [u8; 4], f: u32) -> [u8; 4] {
    let f = f as u64 & 15;
    pack((spread(c0) * (16 - f) + spread(c1) * f) >> 4)
}

/// [`mip_blend`] of four lanes given as sixteen 16-bit lanes below 256 (lane i's channel
/// c at 4i + c, as [`bilinear4_wide`] gives them), blended without narrowing first (the
/// bytes of [`bilinear4`] were widened again lane by lane, callgrind). Equal to
/// [`mip_blend`] per lane (`mip_blend16_equals_mip_blend`).
#[inline(always)]
pub fn mip_blend16(c0: &[u16; 16], c1: &[u16; 16], f: u32) -> [[u8; 4]; 4] {
    let f = (f & 15) as u16;
    let mut w = [0u16; 16];
    for k in 0..16 {
        w[k] = (c0[k] * (16 - f) + c1[k] * f) >> 4;
    }
    pack16(&w)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sixteen-lane mip blend equals [`mip_blend`] per lane for random colours, the
    /// edges and every weight.
    #[test]
    fn mip_blend16_equals_mip_blend() {
        let mut x = 0x9E37_79B9u32;
        for round in 0..20_000u32 {
            let mut quad = || -> [[u8; 4]; 4] {
                std::array::from_fn(|_| {
                    std::array::from_fn(|_| {
                        x ^= x << 13;
                        x ^= x >> 17;
                        x ^= x << 5;
                        if round % 3 == 0 {
                            [0u8, 255][(x >> 7) as usize & 1]
                        } else {
                            x as u8
                        }
                    })
                })
            };
            let (c0, c1) = (quad(), quad());
            let f = round % 17;
            let wide = |c: &[[u8; 4]; 4]| -> [u16; 16] { std::array::from_fn(|k| u16::from(c[k / 4][k % 4])) };
            let got = mip_blend16(&wide(&c0), &wide(&c1), f);
            for i in 0..4 {
                assert_eq!(got[i], mip_blend(c0[i], c1[i], f), "{c0:?} {c1:?} {f}");
            }
        }
    }

    /// The lane forms of the axis arithmetic equal the per-coordinate ones, for every rule,
    /// clamp and wrap, sizes up to past 512, and coordinates from ordinary to huge, NaN and
    /// infinite (in any mix over the four lanes).
    #[test]
    fn lane_coordinates_equal_the_scalar_ones() {
        let special =
            [0.0f32, -0.0, 0.5, 1.0, -1.0, 0.999_999_9, 1e6, -1e6, 2e9, f32::NAN, f32::INFINITY, f32::NEG_INFINITY];
        let mut x = 0x9E37_79B9u32;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x
        };
        let rules =
            [SamplerRule::Hardware, SamplerRule::HardwareTriangles, SamplerRule::PpssppJit, SamplerRule::PpssppCpp];
        for round in 0..40_000u32 {
            let size = 1u32 << (next() % 11);
            let axis = Axis::new(size, round % 2 == 0).with_rule(rules[(round / 2 % 4) as usize]);
            let s: [f32; 4] = std::array::from_fn(|_| {
                let r = next();
                match r % 4 {
                    0 => special[(r >> 8) as usize % special.len()],
                    1 => f32::from_bits(next()),
                    2 => (r >> 2) as i32 as f32 / 2f32.powi(30 - (r % 29) as i32),
                    _ => (r >> 8) as f32 / 16_777_216.0 * 4.0 - 2.0,
                }
            });
            assert_eq!(axis.nearest4(s), s.map(|s| axis.nearest(s)), "{axis:?} {s:?}");
            let (a, b, w) = axis.linear4(s);
            let want = s.map(|s| axis.linear(s));
            assert_eq!((a, b, w), (want.map(|l| l.0), want.map(|l| l.1), want.map(|l| l.2)), "{axis:?} {s:?}");
        }
    }

    /// 100 000 quads of floats from xorshift `seed`: lanes in turn a random bit pattern
    /// (NaN, infinities, huge and tiny values), one of `edge`, or a random i32 / 1024.
    fn random_quads(seed: u32, edge: &[f32]) -> impl Iterator<Item = [f32; 4]> + '_ {
        let mut x = seed;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x
        };
        (0..100_000usize).map(move |round| {
            std::array::from_fn(|i| {
                let r = next();
                match (round + i) % 3 {
                    0 => f32::from_bits(r),
                    1 => edge[r as usize % edge.len()],
                    _ => (r as i32) as f32 / 1024.0,
                }
            })
        })
    }

    /// Both forms of the four-lane truncation equal [`cvtt`] on random bit patterns
    /// (NaN, infinities, huge and tiny values) and the edges of the i32 range.
    #[test]
    fn cvtt4_equals_cvtt() {
        let edge = [2147483520.0f32, 2147483648.0, -2147483648.0, -2147483904.0, -0.5, 0.5, -1.0, 4194303.5];
        for v in random_quads(0x2545_F491, &edge) {
            assert_eq!(cvtt4(v), v.map(cvtt), "{v:?}");
            assert_eq!(cvtt4_portable(v), v.map(cvtt), "{v:?}");
        }
    }

    /// Both forms of the four-lane floor equal [`cvt_floor`] on random bit patterns and
    /// the edges of the i32 range and of the fraction range.
    #[test]
    fn cvt_floor4_equals_cvt_floor() {
        let edge = [
            2147483520.0f32,
            2147483648.0,
            -2147483648.0,
            -2147483904.0,
            -0.5,
            0.5,
            -1.0,
            -0.0,
            8388607.5,
            -8388607.5,
            -4194303.5,
            f32::NAN,
            f32::NEG_INFINITY,
        ];
        for v in random_quads(0x9E37_79B9, &edge) {
            assert_eq!(cvt_floor4(v), v.map(cvt_floor), "{v:?}");
            assert_eq!(cvt_floor4_portable(v), v.map(cvt_floor), "{v:?}");
        }
    }

    #[test]
    fn floor_conversion_equals_floor() {
        let edge = [0.0f32, -0.0, 0.5, -0.5, 1.0, -1.0, 255.999, -255.001, 8388607.5, -8388607.5, 16777217.0];
        let big = [2147483520.0f32, 2147483648.0, -2147483648.0, -2147483904.0, f32::INFINITY, f32::NEG_INFINITY];
        let mut x = 0x1234_5678u32;
        let random = (0..100_000).map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            f32::from_bits(x)
        });
        for v in edge.into_iter().chain(big).chain([f32::NAN]).chain(random) {
            let r = v.floor();
            let want = if (-2147483648.0..2147483648.0).contains(&r) { r as i32 } else { i32::MIN };
            assert_eq!(cvt_floor(v), want, "{v:?}");
        }
    }

    #[test]
    fn hardware_rectangle_bilinear_coordinates_round_down() {
        // [HW filtering/precisionlinear2d "Pos X offset (256x) 0"]: a 2-texel clamped axis
        // magnified to 512 px; pixel 143's centre is at 256·s = 143.5 (weight 0, still
        // texel 0's colour on the PSP), pixel 144's at 144.5 (weight 1/16).
        let hw = Axis::new(2, true).with_rule(SamplerRule::Hardware);
        assert_eq!(hw.linear(143.5 / 512.0), (0, 1, 0));
        assert_eq!(hw.linear(144.5 / 512.0), (0, 1, 1));
        // PPSSPP's JIT rounds 143.5 to even, one pixel early.
        let jit = Axis::new(2, true).with_rule(SamplerRule::PpssppJit);
        assert_eq!(jit.linear(143.5 / 512.0), (0, 1, 1));
        // Below texel 0's centre the pair is (−1, 0) clamped, weight 15/16 toward texel 0.
        assert_eq!(hw.linear(0.4 / 512.0), (0, 0, 8));
        // "Pos X offset (256x) 1": the centre of pixel 143 at 143.5 + 1/16 still rounds
        // down to weight 0.
        assert_eq!(hw.linear((143.5 + 1.0 / 16.0) / 512.0), (0, 1, 0));
        assert_eq!(cvt_floor(-0.5), -1);
        assert_eq!(cvt_floor(f32::NAN), i32::MIN);
    }

    #[test]
    fn conversions_match_sse() {
        assert_eq!(cvtt(-0.9), 0);
        assert_eq!(cvtt(-1.5), -1);
        assert_eq!(cvtt(f32::NAN), i32::MIN);
        assert_eq!(cvtt(3e9), i32::MIN);
        assert_eq!(cvt_rne(2.5), 2);
        assert_eq!(cvt_rne(3.5), 4);
        assert_eq!(cvt_rne(-2.5), -2);
        assert_eq!(cvt_rne(f32::INFINITY), i32::MIN);
        assert_eq!(cvt_rne(f32::NAN), i32::MIN);
        assert_eq!(cvt_rne(-0.5), 0);
        assert_eq!(cvt_rne(4194303.5), 4194304);
        assert_eq!(cvt_rne(4194305.5), 4194306);
        assert_eq!(cvt_rne(-1.4999999), -1);
    }

    #[test]
    fn nearest_coordinates() {
        // u = trunc(s·w·256) >> 8: 0.49999·4·256 = 511.99 -> 511 -> texel 1.
        let a = Axis::new(4, false);
        assert_eq!(a.nearest(0.49999), 1);
        assert_eq!(a.nearest(0.5), 2);
        // Slightly negative s wraps to the last texel [HW vertices/texcoords box 19]:
        // -0.001·16·256 = -4.096 -> -4 >> 8 = -1 -> 15.
        assert_eq!(Axis::new(16, false).nearest(-0.001), 15);
        assert_eq!(Axis::new(16, true).nearest(-0.001), 0);
        assert_eq!(Axis::new(16, true).nearest(7.0), 15);
    }

    #[test]
    fn the_511_limit() {
        // 1024 wide: 0.9·1024 = 921.6 -> 921; clamp -> 511; wrap -> 921 & 511 = 409.
        assert_eq!(Axis::new(1024, true).nearest(0.9), 511);
        assert_eq!(Axis::new(1024, false).nearest(0.9), 409);
        assert_eq!(Axis::new(1 << 15, false).max, 511);
    }

    #[test]
    fn cpp_fallback_truncates_bilinear() {
        // Patlabor draw 51, row 24: t = 0.047601752 on a 256-texel axis. t·65536 = 3119.63:
        // the JIT rounds to 3120 → U = 2992 (texel 11, weight 11); C++ truncates to 3119
        // → U = 2991 (texel 11, weight 10).
        let a = Axis::new(256, true).with_rule(SamplerRule::PpssppJit);
        assert_eq!(a.linear(0.047601752), (11, 12, 11));
        assert_eq!(a.with_rule(SamplerRule::PpssppCpp).linear(0.047601752), (11, 12, 10));
        // Negative coordinates truncate toward zero: s·65536 = -0.6 → 0 (C++) vs -1 (JIT),
        // so U = -128 (weight 8) vs -129 (weight 7); both texels clamp to 0.
        let s = -0.6 / 65536.0;
        assert_eq!(a.with_rule(SamplerRule::PpssppCpp).linear(s), (0, 0, 8));
        assert_eq!(a.linear(s), (0, 0, 7));
        assert_eq!(Axis::new(512, true).nearest(0.9999), 511);
        assert_eq!(Axis::new(512, false).nearest(1.5), 256);
    }

    #[test]
    fn bilinear_coordinates() {
        // w = 2, s = 0.28125: 144 - 128 = 16 -> texels 0 and 1, weight 1.
        assert_eq!(Axis::new(2, true).linear(0.28125), (0, 1, 1));
        // Half-texel offset: s at texel centre 0.25 (w = 2) -> U = 0, weight 0.
        assert_eq!(Axis::new(2, false).linear(0.25), (0, 1, 0));
        // s = 0 -> U = -128 -> texels -1 (wraps to 1) and 0, weight 8.
        assert_eq!(Axis::new(2, false).linear(0.0), (1, 0, 8));
        assert_eq!(Axis::new(2, true).linear(0.0), (0, 0, 8));
        // PPSSPP's JIT rounds: s·512 = 143.6 rounds to 144 -> U = 16, weight 1; the
        // hardware's rectangle rule rounds down to 143 -> U = 15, weight 0.
        let jit = Axis::new(2, false).with_rule(SamplerRule::PpssppJit);
        assert_eq!(jit.linear(143.6 / 512.0), (0, 1, 1));
        assert_eq!(Axis::new(2, false).linear(143.6 / 512.0), (0, 1, 0));
    }

    #[test]
    #[allow(clippy::needless_range_loop)]
    fn swar_bilinear_matches_per_channel_formula() {
        let cs = [[255, 0, 17, 255], [0, 255, 200, 1], [128, 64, 3, 0], [9, 250, 255, 77]];
        for fu in 0..16u32 {
            for fv in 0..16u32 {
                let x = (spread(cs[0]) * (16 - fu as u64) + spread(cs[1]) * fu as u64) * (16 - fv as u64)
                    + (spread(cs[2]) * (16 - fu as u64) + spread(cs[3]) * fu as u64) * fv as u64;
                for ch in 0..4 {
                    let c = |i: usize| cs[i][ch] as u32;
                    let want = ((c(0) * (16 - fu) + c(1) * fu) * (16 - fv) + (c(2) * (16 - fu) + c(3) * fu) * fv) >> 8;
                    assert_eq!(pack(x >> 8)[ch] as u32, want);
                    let (top, bot) = ((c(0) * (16 - fu) + c(1) * fu) >> 4, (c(2) * (16 - fu) + c(3) * fu) >> 4);
                    let top_w = spread(cs[0]) * (16 - fu as u64) + spread(cs[1]) * fu as u64;
                    let bot_w = spread(cs[2]) * (16 - fu as u64) + spread(cs[3]) * fu as u64;
                    assert_eq!(
                        pack(second_pass(top_w, bot_w, fv as u64))[ch] as u32,
                        (top * (16 - fv) + bot * fv) >> 4
                    );
                }
            }
        }
    }

    /// The four-lane weighing equals [`weigh`] per lane for random taps and weights under
    /// every rule.
    #[test]
    fn weigh4_equals_weigh() {
        let mut x = 0x2545_F491_9E37_79B9u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let rules =
            [SamplerRule::Hardware, SamplerRule::HardwareTriangles, SamplerRule::PpssppJit, SamplerRule::PpssppCpp];
        for round in 0..50_000 {
            let taps: [[u64; 4]; 4] = std::array::from_fn(|_| {
                std::array::from_fn(|_| {
                    let c = next().to_le_bytes();
                    let edge = [0u8, 255][(c[4] & 1) as usize];
                    spread(if round % 5 == 0 { [edge, c[1], edge, c[3]] } else { [c[0], c[1], c[2], c[3]] })
                })
            });
            let (fu, fv): ([u32; 4], [u32; 4]) =
                (std::array::from_fn(|_| next() as u32 & 15), std::array::from_fn(|_| next() as u32 & 15));
            let rule = rules[round % 4];
            let got = weigh4(&taps, fu, fv, rule);
            for i in 0..4 {
                let want = weigh([taps[0][i], taps[1][i], taps[2][i], taps[3][i]], fu[i], fv[i], rule);
                assert_eq!(got[i], want, "lane {i} {taps:?} {fu:?} {fv:?} {rule:?}");
            }
        }
    }

    #[test]
    fn mip_blend_weights() {
        assert_eq!(mip_blend([255, 0, 16, 32], [0, 255, 16, 0], 8), [127, 127, 16, 16]);
        assert_eq!(mip_blend([255; 4], [0; 4], 0), [255; 4]);
    }
}
