//! Texture functions (TEXFUNC 0xC9): how the texel combines with the primitive colour,
//! then the secondary colour add and the clamp (ge-reference.md §11).
//!
//! All arithmetic is exact integer maths [PP Sampler.cpp GetTextureFunctionOutput; the x86
//! JIT's Jit_ApplyTextureFunc computes the same values in 16-bit lanes: no lane overflows
//! because every intermediate is at most 256·255]. Doubling applies to RGB only and happens
//! before the division where there is one [HW texfunc/modulate].

/// TEXFUNC bits 0–2.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TexFunc {
    Modulate,
    Decal,
    Blend,
    Replace,
    /// 4, and 5–7 which behave as add [PP ComputeSamplerID].
    Add,
}

impl TexFunc {
    pub fn from_bits(v: u32) -> TexFunc {
        match v & 7 {
            0 => TexFunc::Modulate,
            1 => TexFunc::Decal,
            2 => TexFunc::Blend,
            3 => TexFunc::Replace,
            _ => TexFunc::Add,
        }
    }
}

/// The decoded TEXFUNC/TEXENVCOLOR state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TexFuncState {
    pub func: TexFunc,
    /// Bit 8: the texel's alpha takes part.
    pub rgba: bool,
    /// Bit 16: RGB doubling.
    pub doubling: bool,
    pub env: [u8; 3],
}

/// The unclamped result of the texture function (RGB may reach 1020 with doubling).
// Inlined so the per-draw shaders (`shader.rs`), which fix `f.func`, drop the match.
#[inline(always)]
pub fn apply(f: &TexFuncState, p: [u8; 4], t: [u8; 4]) -> [i32; 4] {
    let p = p.map(i32::from);
    let t = t.map(i32::from);
    let dbl = if f.doubling { 2 } else { 1 };
    // "Alpha is blended the common way": (pa+1)·ta/256 when rgba, else pa.
    let mod_a = if f.rgba { (p[3] + 1) * t[3] / 256 } else { p[3] };
    let rgb = |g: &dyn Fn(usize) -> i32| [g(0), g(1), g(2)];
    let (c, a) = match f.func {
        // (p+1)·t/256, doubled before the division [HW texfunc/modulate: 0x7F·0x7F x2 = 0x7F].
        TexFunc::Modulate => (rgb(&|i| (p[i] + 1) * t[i] * dbl / 256), mod_a),
        TexFunc::Decal => {
            if f.rgba {
                // Both colours boosted by one; /128 keeps precision when doubling
                // [HW commands/material: 113 and 198].
                let (ta, inv) = (t[3], 255 - t[3]);
                (rgb(&|i| ((p[i] + 1) * inv + (t[i] + 1) * ta) * dbl / 256), p[3])
            } else {
                (rgb(&|i| t[i] * dbl), p[3])
            }
        }
        TexFunc::Blend => {
            let e = f.env.map(i32::from);
            // Always rounds up (+255) [PP GetTextureFunctionOutput BLEND].
            (rgb(&|i| ((255 - t[i]) * p[i] + t[i] * e[i] + 255) * dbl / 256), mod_a)
        }
        TexFunc::Replace => (rgb(&|i| t[i] * dbl), if f.rgba { t[3] } else { p[3] }),
        TexFunc::Add => (rgb(&|i| (p[i] + t[i]) * dbl), mod_a),
    };
    [c[0], c[1], c[2], a]
}

/// [`apply`] for a primary colour with indefinite channels (bit i of `ind`: channel i
/// interpolated to NaN, `i32::MIN` after `CVTPS2DQ`), as the x86 sampler JIT computes it
/// in 16-bit lanes: `PACKSSDW` saturates `i32::MIN` to -32768 (0x8000), modulate's
/// `PMULLW` keeps the low 16 bits of `t·(p + 1)`, `PSRLW` shifts them as unsigned, and
/// `PMOVZXWD` widens the lanes unsigned, so e.g. an odd texel channel modulated by 0x8000
/// comes out ≥ 256 and clamps to 255 [PP SamplerX86.cpp Jit_ApplyTextureFunc, end of
/// the sampler "convert to 32-bit channels"]. Replace takes the primitive's alpha the
/// same way. Decal, blend and add are not modelled for this case (they use 0).
pub fn apply_indefinite(f: &TexFuncState, p: [u8; 4], ind: u8, t: [u8; 4]) -> [i32; 4] {
    let lane = |i: usize| -> u16 {
        if ind & (1 << i) != 0 {
            0x8000
        } else {
            p[i] as u16
        }
    };
    match f.func {
        TexFunc::Modulate => {
            let shift = if f.doubling { 7 } else { 8 };
            let m = |i: usize| (t[i] as u16).wrapping_mul(lane(i).wrapping_add(1)) >> shift;
            let a = if !f.rgba {
                lane(3)
            } else if f.doubling {
                // Alpha is not doubled: the lane shifted by 7 is halved again.
                m(3) >> 1
            } else {
                m(3)
            };
            [m(0) as i32, m(1) as i32, m(2) as i32, a as i32]
        }
        TexFunc::Replace if !f.rgba => {
            let mut c = apply(f, p, t);
            c[3] = lane(3) as i32;
            c
        }
        _ => apply(f, p, t),
    }
}

/// Add the secondary colour to RGB and clamp everything to 0..=255 (done before the
/// fragment tests) [PP Rasterizer.cpp "prim_color += sec_color"; DrawPixel clamp].
#[inline]
pub fn add_secondary(c: [i32; 4], sec: [u8; 3]) -> [u8; 4] {
    let cl = |v: i32| v.clamp(0, 255) as u8;
    [cl(c[0] + sec[0] as i32), cl(c[1] + sec[1] as i32), cl(c[2] + sec[2] as i32), cl(c[3])]
}

/// [`add_secondary`]`(`[`apply`]`(MODULATE))` in unsigned arithmetic, for the per-draw
/// shaders: every term is non-negative, so the divisions by 256 are shifts and only the
/// upper clamp can apply (`modulate_and_replace_equal_apply`).
#[inline(always)]
pub fn modulate(f: &TexFuncState, p: [u8; 4], sec: [u8; 3], t: [u8; 4]) -> [u8; 4] {
    let dbl = if f.doubling { 2 } else { 1 };
    let c = |i: usize| ((((p[i] as u32 + 1) * t[i] as u32 * dbl) >> 8) + sec[i] as u32).min(255) as u8;
    let a = if f.rgba { (((p[3] as u32 + 1) * t[3] as u32) >> 8) as u8 } else { p[3] };
    [c(0), c(1), c(2), a]
}

/// [`modulate`] of four fragments as sixteen 16-bit lanes, the x86 JIT's form (`PMULLW`):
/// `(p + 1)·t` is at most 256·255 and fits, doubling shifts RGB by 7 instead of 8, and
/// the masks (not branches) pick the shift and the alpha source, so the lanes vectorise.
/// `sec` holds each fragment's secondary colour; its alpha bytes are not read (masked
/// after widening: clearing them in bytes first cost ~40 scalar instructions a quad,
/// callgrind). Equal to [`modulate`] per fragment (`modulate4_equals_modulate`).
#[inline(always)]
pub fn modulate4(f: &TexFuncState, p: &[[u8; 4]; 4], sec: &[[u8; 4]; 4], t: &[[u8; 4]; 4]) -> [[u8; 4]; 4] {
    // Flattened to 16 bytes and widened whole (an index per element was scalar code).
    let flat = |a: &[[u8; 4]; 4]| -> [u16; 16] {
        let b: [u8; 16] = a.as_flattened().try_into().unwrap_or([0; 16]);
        b.map(u16::from)
    };
    let (p, s, t) = (flat(p), flat(sec), flat(t));
    // All ones in the RGB lanes when doubling; in the alpha lanes when alpha is the primary's.
    let (dbl, keep): (u16, u16) = (if f.doubling { 0xFFFF } else { 0 }, if f.rgba { 0 } else { 0xFFFF });
    let mut w = [0u16; 16];
    for (k, o) in w.iter_mut().enumerate() {
        let alpha = k % 4 == 3;
        let m = (p[k] + 1) * t[k];
        let (r8, r7) = (m >> 8, m >> 7);
        let r = r8 ^ ((r7 ^ r8) & if alpha { 0 } else { dbl });
        let v = (r + if alpha { 0 } else { s[k] }).min(255);
        *o = v ^ ((p[k] ^ v) & if alpha { keep } else { 0 });
    }
    let mut out = [[0u8; 4]; 4];
    out.as_flattened_mut().copy_from_slice(&w.map(|x| x as u8));
    out
}

/// [`add_secondary`]`(`[`apply`]`(REPLACE))` in unsigned arithmetic, as [`modulate`].
#[inline(always)]
pub fn replace(f: &TexFuncState, p: [u8; 4], sec: [u8; 3], t: [u8; 4]) -> [u8; 4] {
    let dbl = if f.doubling { 2 } else { 1 };
    let c = |i: usize| (t[i] as u32 * dbl + sec[i] as u32).min(255) as u8;
    [c(0), c(1), c(2), if f.rgba { t[3] } else { p[3] }]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lane form equals the per-fragment one for random colours and the edges.
    #[test]
    fn modulate4_equals_modulate() {
        let mut x = 0x9E37_79B9u32;
        let edges = [0u8, 1, 127, 128, 254, 255];
        for round in 0..100_000u32 {
            let mut quad = |alpha0: bool| -> [[u8; 4]; 4] {
                std::array::from_fn(|_| {
                    std::array::from_fn(|c| {
                        x ^= x << 13;
                        x ^= x >> 17;
                        x ^= x << 5;
                        if alpha0 && c == 3 {
                            0
                        } else if round % 4 == 0 {
                            edges[(x >> 5) as usize % edges.len()]
                        } else {
                            x as u8
                        }
                    })
                })
            };
            // Secondary alpha 0 or random (never read).
            let (p, sec, t) = (quad(false), quad(round % 2 == 0), quad(false));
            for (rgba, doubling) in [(false, false), (false, true), (true, false), (true, true)] {
                let m = TexFuncState { func: TexFunc::Modulate, rgba, doubling, env: [0; 3] };
                let want: [[u8; 4]; 4] =
                    std::array::from_fn(|i| modulate(&m, p[i], [sec[i][0], sec[i][1], sec[i][2]], t[i]));
                assert_eq!(modulate4(&m, &p, &sec, &t), want, "{m:?} {p:?} {sec:?} {t:?}");
            }
        }
    }

    /// The unsigned forms equal the reference for random colours, every alpha/doubling
    /// combination, and the extremes.
    #[test]
    fn modulate_and_replace_equal_apply() {
        let mut x = 0x3C6E_F372u32;
        let edges = [0u8, 1, 127, 128, 254, 255];
        for round in 0..400_000u32 {
            let mut byte = |k: u32| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                if round % 4 == 0 {
                    edges[((x >> 3) as usize + k as usize) % edges.len()]
                } else {
                    x as u8
                }
            };
            let p = [byte(0), byte(1), byte(2), byte(3)];
            let t = [byte(4), byte(5), byte(6), byte(7)];
            let sec = [byte(8), byte(9), byte(10)];
            for (rgba, doubling) in [(false, false), (false, true), (true, false), (true, true)] {
                let m = TexFuncState { func: TexFunc::Modulate, rgba, doubling, env: [0; 3] };
                assert_eq!(modulate(&m, p, sec, t), add_secondary(apply(&m, p, t), sec), "{m:?} {p:?} {t:?} {sec:?}");
                let r = TexFuncState { func: TexFunc::Replace, ..m };
                assert_eq!(replace(&r, p, sec, t), add_secondary(apply(&r, p, t), sec), "{r:?} {p:?} {t:?} {sec:?}");
            }
        }
    }

    fn f(func: TexFunc, rgba: bool, doubling: bool) -> TexFuncState {
        TexFuncState { func, rgba, doubling, env: [0x10, 0x80, 0xF0] }
    }

    #[test]
    fn modulate_hardware_values() {
        // [HW texfunc/modulate] 0x7F·0x7F = 0x3F; doubled 0x7F; 0x3F·0x7F doubled 0x3F.
        let m = f(TexFunc::Modulate, true, false);
        assert_eq!(apply(&m, [0x7F; 4], [0x7F; 4]), [0x3F; 4]);
        let m2 = f(TexFunc::Modulate, true, true);
        // Alpha is never doubled: (0x7F+1)·0x7F/256 = 0x3F.
        assert_eq!(apply(&m2, [0x7F; 4], [0x7F; 4]), [0x7F, 0x7F, 0x7F, 0x3F]);
        assert_eq!(apply(&m2, [0x3F; 4], [0x7F; 4])[0], 0x3F);
        assert_eq!(apply(&m2, [0x7F; 4], [0x3F; 4])[0], 0x3F);
        // rgb-only: alpha from the primitive.
        let m3 = f(TexFunc::Modulate, false, false);
        assert_eq!(apply(&m3, [255, 0, 128, 77], [255, 255, 255, 0]), [255, 0, 128, 77]);
    }

    #[test]
    fn modulate_with_indefinite_primary_colour() {
        // p = 0x8000 in the JIT's 16-bit lanes: t·0x8001 mod 2^16 = t + (t odd)·0x8000.
        // Doubling (>> 7): even 200 → 200 >> 7 = 1; odd 77 → (77 + 32768) >> 7 = 256.
        let m = f(TexFunc::Modulate, true, true);
        let c = apply_indefinite(&m, [0; 4], 0xF, [200, 128, 77, 99]);
        assert_eq!(c, [1, 1, 256, (32768 + 99) >> 7 >> 1]);
        assert_eq!(add_secondary(c, [0; 3]), [1, 1, 255, 128]);
        // Without doubling (>> 8): odd 77 → 128; rgb-only alpha is the raw 0x8000 lane.
        let m = f(TexFunc::Modulate, false, false);
        assert_eq!(apply_indefinite(&m, [0; 4], 0xF, [200, 128, 77, 99]), [0, 0, 128, 32768]);
        // Channels that are not indefinite keep the ordinary result.
        assert_eq!(apply_indefinite(&m, [0x7F, 0, 0, 0], 0xE, [0x7F, 0, 0, 0])[0], 0x3F);
    }

    #[test]
    fn decal_values() {
        // [HW commands/material] texel 0xAA (alpha 0xAA) over 0 -> 113, over 255 -> 198.
        let d = f(TexFunc::Decal, true, false);
        assert_eq!(apply(&d, [0, 0, 0, 9], [0xAA; 4]), [113, 113, 113, 9]);
        assert_eq!(apply(&d, [255, 255, 255, 9], [0xAA; 4]), [198, 198, 198, 9]);
        // Doubling divides by 128: (85 + 29070)/128 = 227.
        let d2 = f(TexFunc::Decal, true, true);
        assert_eq!(apply(&d2, [0, 0, 0, 9], [0xAA; 4])[0], 227);
        // rgb decal: texel colour (doubled), primitive alpha.
        let d3 = f(TexFunc::Decal, false, true);
        assert_eq!(apply(&d3, [1, 2, 3, 4], [10, 20, 200, 99]), [20, 40, 400, 4]);
    }

    #[test]
    fn replace_add_blend() {
        assert_eq!(apply(&f(TexFunc::Replace, true, false), [1, 2, 3, 4], [10, 20, 30, 40]), [10, 20, 30, 40]);
        assert_eq!(apply(&f(TexFunc::Replace, false, true), [1, 2, 3, 4], [10, 20, 30, 40]), [20, 40, 60, 4]);
        // Add: p + t; alpha (pa+1)·ta/256 = 128·255/256 = 127.
        assert_eq!(apply(&f(TexFunc::Add, true, false), [100, 200, 0, 127], [100, 100, 5, 255]), [200, 300, 5, 127]);
        assert_eq!(apply(&f(TexFunc::Add, false, true), [100, 200, 0, 127], [100, 100, 5, 255]), [400, 600, 10, 127]);
        // Blend with env (0x10, 0x80, 0xF0): ((255-t)p + t·env + 255)/256.
        // t = 255 -> (255·env + 255)/256 = env; t = 0 -> (255p + 255)/256 = p.
        let b = f(TexFunc::Blend, true, false);
        assert_eq!(apply(&b, [50, 60, 70, 255], [255, 255, 255, 128]), [0x10, 0x80, 0xF0, 128]);
        assert_eq!(apply(&b, [50, 60, 70, 255], [0, 0, 0, 128])[..3], [50, 60, 70]);
        // t = 128, p = 0, env 0x80: (128·128 + 255)/256 = 64.
        assert_eq!(apply(&b, [0, 0, 0, 0], [128, 128, 128, 0])[1], 64);
        // Doubled: /128 -> 129.
        let b2 = f(TexFunc::Blend, false, true);
        assert_eq!(apply(&b2, [0, 0, 0, 7], [128, 128, 128, 0])[1], 129);
        assert_eq!(apply(&b2, [0, 0, 0, 7], [128, 128, 128, 0])[3], 7);
    }

    #[test]
    fn funcs_5_to_7_are_add() {
        assert_eq!(TexFunc::from_bits(7), TexFunc::Add);
        assert_eq!(TexFunc::from_bits(0x10103), TexFunc::Replace);
    }

    #[test]
    fn secondary_add_and_clamp() {
        assert_eq!(add_secondary([250, 10, 1020, 300], [10, 20, 0]), [255, 30, 255, 255]);
    }
}
