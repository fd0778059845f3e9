//! Texel coordinates, wrap/clamp and the nearest/bilinear filters, as PPSSPP's x86 sampler
//! JIT computes them (ge-reference.md §10.4–§10.6).
//!
//! * Nearest: `u = cvtt(s·(w·256)) >> 8` (truncating conversion, arithmetic shift)
//!   [PP SamplerX86.cpp Jit_GetTexelCoords: CVTTPS2DQ + PSRAD 8].
//! * Bilinear: `U = cvt(s·(w·256)) − 128` where the conversion **rounds to nearest even**
//!   (x86 `CVTPS2DQ` under the default MXCSR), 4-bit weight `(U >> 4) & 15`, texels
//!   `U >> 8` and `U >> 8 + 1` [PP SamplerX86.cpp Jit_GetTexelCoordsQuad]. PPSSPP's C++
//!   fallback truncates instead; the references were made by the JIT.
//! * Out-of-range and NaN conversions give `i32::MIN`, like the SSE instructions.
//! * Wrap: `x & ((size − 1) & 511)`; clamp: to `0..=(size − 1) & 511`, so coordinates never
//!   exceed 511 [HW textures/size; PP constMaxTexel32_].

use super::format::{Format, LevelSrc};

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
    let r = x.round_ties_even();
    if (-2147483648.0..2147483648.0).contains(&r) {
        r as i32
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
}

impl Axis {
    pub fn new(size: u32, clamp: bool) -> Axis {
        Axis {
            scale: (size << 8) as f32,
            max: (size.wrapping_sub(1) & 511) as i32,
            clamp,
        }
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
        let x = cvt_rne(s * self.scale).wrapping_sub(128);
        let i = x >> 8;
        (self.fix(i), self.fix(i.wrapping_add(1)), ((x >> 4) & 15) as u32)
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
    F::texel(&l.src, l.u.nearest(s), l.v.nearest(t))
}

/// Bilinear with 4-bit weights: `((c00(16−fu) + c10·fu)(16−fv) + (c01(16−fu) + c11·fu)·fv) >> 8`
/// [PP Sampler.cpp SampleLinearLevel; SamplerX86.cpp Jit_BlendQuad].
#[inline]
pub fn bilinear<F: Format>(l: &Level, s: f32, t: f32) -> [u8; 4] {
    let (u0, u1, fu) = l.u.linear(s);
    let (v0, v1, fv) = l.v.linear(t);
    let c00 = F::texel(&l.src, u0, v0);
    let c10 = F::texel(&l.src, u1, v0);
    let c01 = F::texel(&l.src, u0, v1);
    let c11 = F::texel(&l.src, u1, v1);
    let mut out = [0u8; 4];
    for i in 0..4 {
        let top = c00[i] as u32 * (16 - fu) + c10[i] as u32 * fu;
        let bot = c01[i] as u32 * (16 - fu) + c11[i] as u32 * fu;
        out[i] = ((top * (16 - fv) + bot * fv) >> 8) as u8;
    }
    out
}

/// Blend two mip levels: `(c0(16−f) + c1·f) >> 4` [PP SampleLinear/SampleNearest levelFrac].
#[inline]
pub fn mip_blend(c0: [u8; 4], c1: [u8; 4], f: u32) -> [u8; 4] {
    let mut out = [0u8; 4];
    for i in 0..4 {
        out[i] = ((c0[i] as u32 * (16 - f) + c1[i] as u32 * f) >> 4) as u8;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

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
        // Rounding, not truncation: s·512 = 143.6 rounds to 144 -> U = 16, weight 1
        // (truncation would give 143 -> U = 15, weight 0).
        assert_eq!(Axis::new(2, false).linear(143.6 / 512.0), (0, 1, 1));
    }

    #[test]
    fn mip_blend_weights() {
        assert_eq!(mip_blend([255, 0, 16, 32], [0, 255, 16, 0], 8), [127, 127, 16, 16]);
        assert_eq!(mip_blend([255; 4], [0; 4], 0), [255; 4]);
    }
}
