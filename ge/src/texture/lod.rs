//! Level-of-detail: which mip level(s) a quad samples and whether it minifies
//! (ge-reference.md §10.7) [PP Rasterizer.cpp CalculateSamplingParams, TexLog2].
//!
//! The detail value is a signed log2 in 1/16 levels. Triangles and sprites compute it once
//! per 2x2 quad from `ds = s[1] - s[0]`, `dt = t[2] - t[0]`; points use ds = dt = 0; lines
//! pass their own per-pixel derivatives. Slope mode uses a clip-space w instead.

use super::TextureState;

/// TEXLEVEL (0xC8) bits 0–1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LodMode {
    /// 0: from the screen-space derivatives of s, t.
    Auto,
    /// 1 (and 3): only the bias.
    Const,
    /// 2: log2(2·w·TEXLODSLOPE).
    Slope,
}

impl LodMode {
    pub fn from_bits(v: u32) -> LodMode {
        match v & 3 {
            0 => LodMode::Auto,
            2 => LodMode::Slope,
            // Unused value 3 behaves like CONST [PP CalculateSamplingParams].
            _ => LodMode::Const,
        }
    }
}

/// The sampling decision for one quad (or one point/line pixel).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lod {
    /// Mip level to sample (0..=max level).
    pub level: u8,
    /// Weight of level+1 in 1/16 (only with mip filtering; 0 = level only).
    pub frac: u8,
    /// Bilinear (minify filter when detail > 0, magnify filter otherwise).
    pub linear: bool,
    /// The raw detail value (1/16 levels, bias included), for diagnostics.
    pub detail: i32,
}

/// log2 in 1/16 steps from a float's bits: the exponent plus the top 4 mantissa bits
/// (truncated), minus 127·16. The sign bit is dropped [PP Rasterizer.cpp TexLog2].
#[inline]
pub fn tex_log2(x: f32) -> i32 {
    ((x.to_bits() >> 19) & 0xFFF) as i32 - 127 * 16
}

/// `std::max` semantics: the first operand unless it is less than the second.
#[inline]
fn cmax(a: f32, b: f32) -> f32 {
    if a < b {
        b
    } else {
        a
    }
}

/// Level, fraction and filter from derivatives (in normalised units) and clip w.
pub fn lod_from(st: &TextureState, ds: f32, dt: f32, w: f32) -> Lod {
    let detail = match st.lod_mode {
        LodMode::Auto => {
            tex_log2(cmax((ds * st.levels[0].width as f32).abs(), (dt * st.levels[0].height as f32).abs()))
        }
        // "Always offset by an extra texlevel" [PP CalculateSamplingParams].
        LodMode::Slope => tex_log2(2.0 * w * st.lod_slope),
        LodMode::Const => 0,
    } + st.lod_bias;
    let max = st.max_level as i32;
    let (level, frac) = if detail > 0 && max > 0 {
        let mut level8 = detail.min(max * 16);
        if !st.mip_linear {
            // Nearest level: round up at .5.
            level8 += 8;
        }
        ((level8 >> 4) as u8, if st.mip_linear { (level8 & 15) as u8 } else { 0 })
    } else {
        (0, 0)
    };
    Lod { level, frac, linear: if detail > 0 { st.min_linear } else { st.mag_linear }, detail }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cmd::op;
    use crate::regs::{to_float24, Regs};

    fn state(filter: u32, level: u32, maxlev: u32) -> TextureState {
        let mut r = Regs::default();
        r.set(op::TEXFORMAT, 3);
        for i in 0..8u8 {
            r.set(op::TEXSIZE0 + i, ((6 - i.min(6) as u32) << 8) | (6 - i.min(6) as u32));
            r.set(op::TEXADDR0 + i, 0x10_0000 * i as u32);
            r.set(op::TEXBUFWIDTH0 + i, 0x08_0040);
        }
        r.set(op::TEXMODE, maxlev << 16);
        r.set(op::TEXFILTER, filter);
        r.set(op::TEXLEVEL, level);
        r.set(op::TEXLODSLOPE, to_float24(0.5));
        TextureState::decode(&r, &[0; 1024], false)
    }

    #[test]
    fn log2_steps() {
        assert_eq!(tex_log2(1.0), 0);
        assert_eq!(tex_log2(4.0), 32);
        // 3.0 = 1.5·2^1: exponent 1, top mantissa bits 1000 -> 16 + 8.
        assert_eq!(tex_log2(3.0), 24);
        assert_eq!(tex_log2(-4.0), 32);
        assert_eq!(tex_log2(0.5), -16);
        assert_eq!(tex_log2(0.0), -2032);
    }

    #[test]
    fn auto_mode_levels() {
        // 64x64 level 0; min filter 4 = nearest, mipmapped, no mip filtering.
        let st = state(4, 0, 3);
        // 4 texels per pixel -> detail 32 -> level 2.
        let l = lod_from(&st, 4.0 / 64.0, 0.0, 0.0);
        assert_eq!((l.level, l.frac, l.linear, l.detail), (2, 0, false, 32));
        // 3 texels per pixel: detail 24 = 1.5 levels, rounds up to level 2.
        assert_eq!(lod_from(&st, 0.0, -3.0 / 64.0, 0.0).level, 2);
        // Clamped to the max level.
        assert_eq!(lod_from(&st, 1.0, 0.0, 0.0).level, 3);
        // With mip filtering (6 = nearest-mip-linear): level 1 + 8/16 of level 2.
        let st = state(6, 0, 3);
        let l = lod_from(&st, 3.0 / 64.0, 0.0, 0.0);
        assert_eq!((l.level, l.frac), (1, 8));
        // Magnification: level 0, magnify filter (bit 8).
        let st = state(0x104, 0, 3);
        let l = lod_from(&st, 0.5 / 64.0, 0.0, 0.0);
        assert_eq!((l.level, l.frac, l.linear), (0, 0, true));
        // Minify filter 5 = linear-mip-nearest.
        let st = state(5, 0, 3);
        assert!(lod_from(&st, 2.0 / 64.0, 0.0, 0.0).linear);
    }

    #[test]
    fn const_mode_with_bias() {
        // Mode 1 (const), bias +24 (1.5 levels).
        let st = state(4, (24 << 16) | 1, 3);
        assert_eq!(lod_from(&st, 100.0, 100.0, 0.0).level, 2);
        let st = state(6, (24 << 16) | 1, 3);
        let l = lod_from(&st, 100.0, 100.0, 0.0);
        assert_eq!((l.level, l.frac), (1, 8));
        // Negative bias (-16 = 0xF0): level 0 and the magnify filter.
        let st = state(0x005, (0xF0 << 16) | 1, 3);
        let l = lod_from(&st, 0.0, 0.0, 0.0);
        assert_eq!((l.level, l.linear, l.detail), (0, false, -16));
        // Mipmapping disabled in TEXFILTER (min 1): always level 0 even with bias.
        let st = state(1, (40 << 16) | 1, 3);
        let l = lod_from(&st, 0.0, 0.0, 0.0);
        assert_eq!((l.level, l.linear), (0, true));
    }

    #[test]
    fn slope_mode() {
        // log2(2·w·0.5) with w = 4 -> 2 levels (32); mode 2.
        let st = state(4, 2, 3);
        assert_eq!(lod_from(&st, 0.0, 0.0, 4.0).level, 2);
    }
}
