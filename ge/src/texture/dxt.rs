//! DXT1/3/5 texel decode in the PSP's block layout.
//!
//! The PSP stores the parts of a block in the reverse of the desktop (S3TC) order
//! [PP GPU/Common/TextureDecoder.h "All these DXT structs are in the reverse order"]:
//!
//! ```text
//! DXT1 (8 bytes):  0..4 colour index rows (row y = byte y, texel x = bits 2x..2x+1)
//!                  4..6 colour 1 (565, R low), 6..8 colour 2
//! DXT3 (16 bytes): 0..8 the DXT1 colour block, 8..16 alpha rows (row y = u16 at 8+2y,
//!                  texel x = nibble x)
//! DXT5 (16 bytes): 0..8 the DXT1 colour block, 8..14 48 bits of 3-bit alpha indices
//!                  (texel (x,y) at bit 3(x+4y)), 14 alpha 1, 15 alpha 2
//! ```
//!
//! Colour endpoints are *not* bit-replicated (r5 << 3, g6 << 2), unlike 5650 textures
//! [PP TextureDecoder.cpp GetDXTTexelColor; SamplerX86.cpp Jit_GetDXT1Color].
//!
//! The DXT formats' [`Format`] implementations live here too (their block addressing is
//! `format::dxt_block`).

use super::format::{dxt_block, spread, Addr, BlockMemo, Format, LevelSrc};

#[inline]
fn endpoint(c: u16) -> [u32; 3] {
    [((c >> 8) & 0xF8) as u32, ((c >> 3) & 0xFC) as u32, ((c << 3) & 0xF8) as u32]
}

/// Colour of texel (x, y) of a DXT colour block with the given alpha for opaque entries
/// (255 for DXT1, 0 for DXT3/5, whose alpha is ORed in afterwards). Transparent black
/// entry (index 3 when colour 1 <= colour 2) is all zero.
// Takes a whole block (8 or 16 bytes), so no byte read is bounds-checked, and is inlined
// into the texel fetch (it was a call per bilinear tap: 69 M instructions on 21763).
#[inline(always)]
pub fn dxt_color<const N: usize>(block: &[u8; N], x: u32, y: u32, alpha: u8) -> [u8; 4] {
    const { assert!(N >= 8) };
    let line = block[y as usize & 3];
    let c1 = u16::from_le_bytes([block[4], block[5]]);
    let c2 = u16::from_le_bytes([block[6], block[7]]);
    let (e1, e2) = (endpoint(c1), endpoint(c2));
    let idx = (line >> ((x & 3) * 2)) & 3;
    let rgb = match idx {
        0 => e1,
        1 => e2,
        // (2a + b) / 3, truncating; the x86 JIT's multiply-by-reciprocal gives the same
        // values (checked exhaustively in the tests) [PP mix_2_3, Jit_GetDXT1Color].
        2 if c1 > c2 => [0, 1, 2].map(|i| (2 * e1[i] + e2[i]) / 3),
        3 if c1 > c2 => [0, 1, 2].map(|i| (2 * e2[i] + e1[i]) / 3),
        2 => [0, 1, 2].map(|i| (e1[i] + e2[i]) / 2),
        _ => return [0; 4],
    };
    [rgb[0] as u8, rgb[1] as u8, rgb[2] as u8, alpha]
}

/// The colour index of texel (x, y) of a DXT colour block (as [`dxt_color`] reads it).
#[inline(always)]
pub fn dxt_index(block: &[u8; 8], x: u32, y: u32) -> usize {
    ((block[y as usize & 3] >> ((x & 3) * 2)) & 3) as usize
}

/// The four colours of a DXT1 block by index, spread for the bilinear filter: entry i is
/// `spread(`[`dxt1_texel`]`)` of a texel with index i (`dxt1_palette_equals_the_texels`).
/// The bilinear taps that share a block decode it once (`format::FDxt1::taps`).
///
/// Red and blue are computed as two 32-bit lanes of a u64 (bits 0 and 32, which are also
/// lanes 0 and 2 of the spread colour), green beside them; the divisions by 3 are
/// `(x·683) >> 11`, exact below 2048 (`third_is_division_by_3`; sums here are at most
/// 3·248). Measured (callgrind, 21763 hardware model, whole process, with the taps'
/// block memo): this file's share of the single-level shaders 55.0 -> 42.3 M against the
/// per-channel form with a division per channel.
#[inline(always)]
pub fn dxt1_palette(block: &[u8; 8]) -> [u64; 4] {
    const ALPHA: u64 = 255 << 48;
    let c1 = u16::from_le_bytes([block[4], block[5]]);
    let c2 = u16::from_le_bytes([block[6], block[7]]);
    // `endpoint`'s red at bit 0 and blue at bit 32; green alone.
    let rb = |c: u16| (u64::from(c) >> 8 & 0xF8) | (u64::from(c) & 0x1F) << 35;
    let g = |c: u16| u64::from(c) >> 3 & 0xFC;
    let (rb1, rb2, g1, g2) = (rb(c1), rb(c2), g(c1), g(c2));
    let (e1, e2) = (rb1 | g1 << 16 | ALPHA, rb2 | g2 << 16 | ALPHA);
    let (m2, m3) = if c1 > c2 {
        (
            third(2 * rb1 + rb2) | third(2 * g1 + g2) << 16 | ALPHA,
            third(2 * rb2 + rb1) | third(2 * g2 + g1) << 16 | ALPHA,
        )
    } else {
        ((rb1 + rb2) >> 1 & LANES_32 | (g1 + g2) >> 1 << 16 | ALPHA, 0)
    };
    [e1, e2, m2, m3]
}

/// The low bytes of two 32-bit lanes.
const LANES_32: u64 = 0x0000_00FF_0000_00FF;

/// `x / 3` in each 32-bit lane of `x` (lanes below 2048, results below 256): each
/// product stays below 2^21, inside its lane.
#[inline(always)]
fn third(x: u64) -> u64 {
    (x * 683) >> 11 & LANES_32
}

#[inline]
pub fn dxt1_texel(block: &[u8; 8], x: u32, y: u32) -> [u8; 4] {
    dxt_color(block, x, y, 255)
}

/// DXT3: 4-bit explicit alpha placed in the top nibble (n -> n·16, so 15 -> 240)
/// \[PP GetDXT3Texel `alpha << 28`\].
#[inline]
pub fn dxt3_texel(block: &[u8; 16], x: u32, y: u32) -> [u8; 4] {
    let mut c = dxt_color(block, x, y, 0);
    let row = u16::from_le_bytes([block[8 + 2 * (y as usize & 3)], block[9 + 2 * (y as usize & 3)]]);
    c[3] |= (((row >> ((x & 3) * 4)) & 15) as u8) << 4;
    c
}

/// DXT5 interpolated alpha, computed as PPSSPP's x86 JIT does: both weighted endpoints are
/// summed in 8.8 fixed point with a +31·n rounding term, then divided by 7 (or 5) with a
/// multiply-by-reciprocal [PP SamplerX86.cpp Jit_ApplyDXTAlpha]. The C++ fallback divides
/// each term separately; the results are identical for every input (tested exhaustively).
pub fn dxt5_alpha(a1: u8, a2: u8, idx: u32) -> u8 {
    let (a1, a2) = (a1 as u32, a2 as u32);
    match idx & 7 {
        0 => a1 as u8,
        1 => a2 as u8,
        i if a1 > a2 => {
            // 8-step: ((8-i)·a1 + (i-1)·a2)·256 + 7·31, /7 via 0x124A magic, then >> 8.
            let s = a1 * ((8 - i) << 8) + a2 * ((i - 1) << 8) + 7 * 31;
            let t = s.wrapping_mul(0x124A) >> 15;
            ((((s - t) >> 1) + t) >> 10) as u8
        }
        6 => 0,
        7 => 255,
        i => {
            // 6-step: /5 via multiply by 0x3334 and >> 24 (32-bit multiply).
            let s = a1 * ((6 - i) << 8) + a2 * ((i - 1) << 8) + 5 * 31;
            (s.wrapping_mul(0x3334) >> 24) as u8
        }
    }
}

#[inline]
pub fn dxt5_texel(block: &[u8; 16], x: u32, y: u32) -> [u8; 4] {
    let mut c = dxt_color(block, x, y, 0);
    let mut bits = [0u8; 8];
    bits[..6].copy_from_slice(&block[8..14]);
    let idx = (u64::from_le_bytes(bits) >> (3 * ((x & 3) + 4 * (y & 3)))) as u32 & 7;
    c[3] |= dxt5_alpha(block[14], block[15], idx);
    c
}

/// DXT1: 8-byte blocks.
pub struct FDxt1;
/// DXT3: 16-byte blocks.
pub struct FDxt3;
/// DXT5: 16-byte blocks.
pub struct FDxt5;

impl Format for FDxt1 {
    const ADDR: Addr = Addr::Block(8);
    #[inline(always)]
    fn tap_at<const FIRST: bool>(src: &LevelSrc, off: u32, u: u32, v: u32) -> u64 {
        spread(dxt1_texel(&src.bytes::<8>(off), u & 3, v & 3))
    }
    /// A block's four colours are decoded once for the taps that share it, in this lane
    /// and the lanes before it ([`BlockMemo`]): [`dxt1_palette`], equal
    /// to [`dxt1_texel`] per index.
    #[inline(always)]
    fn taps(
        src: &LevelSrc,
        off: [u32; 4],
        (u0, u1): (u32, u32),
        (v0, v1): (u32, u32),
        memo: &mut BlockMemo,
    ) -> [u64; 4] {
        let uv = [(u0, v0), (u1, v0), (u0, v1), (u1, v1)];
        let mut out = [0u64; 4];
        // A loop, not `array::from_fn` (whose closure stayed a call per tap).
        for i in 0..4 {
            if off[i] != memo.at {
                memo.at = off[i];
                memo.block = src.bytes::<8>(off[i]);
                memo.colours = dxt1_palette(&memo.block);
            }
            let (u, v) = uv[i];
            out[i] = memo.colours[dxt_index(&memo.block, u, v)];
        }
        out
    }
    #[inline]
    fn texel(src: &LevelSrc, u: u32, v: u32) -> [u8; 4] {
        dxt1_texel(&src.bytes::<8>(dxt_block(src, u, v, 8)), u & 3, v & 3)
    }
}
impl Format for FDxt3 {
    const ADDR: Addr = Addr::Block(16);
    #[inline(always)]
    fn tap_at<const FIRST: bool>(src: &LevelSrc, off: u32, u: u32, v: u32) -> u64 {
        spread(dxt3_texel(&src.bytes::<16>(off), u & 3, v & 3))
    }
    #[inline]
    fn texel(src: &LevelSrc, u: u32, v: u32) -> [u8; 4] {
        dxt3_texel(&src.bytes::<16>(dxt_block(src, u, v, 16)), u & 3, v & 3)
    }
}
impl Format for FDxt5 {
    const ADDR: Addr = Addr::Block(16);
    #[inline(always)]
    fn tap_at<const FIRST: bool>(src: &LevelSrc, off: u32, u: u32, v: u32) -> u64 {
        spread(dxt5_texel(&src.bytes::<16>(off), u & 3, v & 3))
    }
    #[inline]
    fn texel(src: &LevelSrc, u: u32, v: u32) -> [u8; 4] {
        dxt5_texel(&src.bytes::<16>(dxt_block(src, u, v, 16)), u & 3, v & 3)
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    /// Row 0 uses indices 0,1,2,3 left to right; colours red (1) and blue (2).
    fn block(c1: u16, c2: u16) -> [u8; 8] {
        let mut b = [0u8; 8];
        b[0] = 0b11_10_01_00;
        b[1] = 0b00_00_00_11; // (0,1) = index 3
        b[4..6].copy_from_slice(&c1.to_le_bytes());
        b[6..8].copy_from_slice(&c2.to_le_bytes());
        b
    }

    #[test]
    fn dxt1_four_colour_mode() {
        // 565 with R in the high bits here (DXT endpoints: red = 0xF800 -> R 248).
        let b = block(0xF800, 0x001F);
        assert_eq!(dxt1_texel(&b, 0, 0), [248, 0, 0, 255]);
        assert_eq!(dxt1_texel(&b, 1, 0), [0, 0, 248, 255]);
        // (2·248 + 0)/3 = 165, (2·0 + 248)/3 = 82.
        assert_eq!(dxt1_texel(&b, 2, 0), [165, 0, 82, 255]);
        assert_eq!(dxt1_texel(&b, 3, 0), [82, 0, 165, 255]);
        assert_eq!(dxt1_texel(&b, 0, 1), [82, 0, 165, 255]);
        assert_eq!(dxt1_texel(&b, 1, 1), [248, 0, 0, 255]);
    }

    /// Every index of random blocks (both colour modes): the palette entry is the texel.
    #[test]
    fn dxt1_palette_equals_the_texels() {
        let mut x = 0x2545_F491u32;
        for round in 0..20_000 {
            let mut b = [0u8; 8];
            for byte in &mut b {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                *byte = x as u8;
            }
            if round % 3 == 0 {
                // Equal endpoints (three-colour mode with c1 == c2).
                b.copy_within(4..6, 6);
            }
            let pal = dxt1_palette(&b);
            for (y, xx) in (0..4).flat_map(|y| (0..4).map(move |x| (y, x))) {
                let c = dxt1_texel(&b, xx, y);
                let want = c[0] as u64 | (c[1] as u64) << 16 | (c[2] as u64) << 32 | (c[3] as u64) << 48;
                assert_eq!(pal[dxt_index(&b, xx, y)], want, "{b:?} ({xx}, {y})");
            }
        }
    }

    /// `third` is division by 3 in both lanes for every lane value below 2048.
    #[test]
    fn third_is_division_by_3() {
        for a in 0..2048u64 {
            for b in [0, 1, 2, 255, 744, 1000, 2047, a] {
                assert_eq!(third(a | b << 32), ((a / 3) & 0xFF) | ((b / 3) & 0xFF) << 32, "{a} {b}");
            }
        }
    }

    #[test]
    fn dxt1_three_colour_mode() {
        let b = block(0x001F, 0xF800);
        assert_eq!(dxt1_texel(&b, 2, 0), [124, 0, 124, 255]);
        assert_eq!(dxt1_texel(&b, 3, 0), [0, 0, 0, 0]);
        // Green endpoint 0x07E0 -> 252 (no bit replication).
        let g = block(0x07E0, 0x07E0);
        assert_eq!(dxt1_texel(&g, 0, 0), [0, 252, 0, 255]);
    }

    #[test]
    fn dxt3_alpha_nibbles() {
        let mut b = [0u8; 16];
        b[..8].copy_from_slice(&block(0xF800, 0x001F));
        b[8..10].copy_from_slice(&0xF0A5u16.to_le_bytes());
        assert_eq!(dxt3_texel(&b, 0, 0), [248, 0, 0, 0x50]);
        assert_eq!(dxt3_texel(&b, 1, 0), [0, 0, 248, 0xA0]);
        assert_eq!(dxt3_texel(&b, 2, 0), [165, 0, 82, 0]);
        assert_eq!(dxt3_texel(&b, 3, 0), [82, 0, 165, 0xF0]);
    }

    #[test]
    fn dxt5_alpha_modes() {
        let mut b = [0u8; 16];
        b[..8].copy_from_slice(&block(0xF800, 0x001F));
        // Row 0 alpha indices 0, 1, 2, 7 -> bits 0..12.
        let idx: u64 = (1 << 3) | (2 << 6) | (7 << 9); // index 0 at bits 0..3
        b[8..14].copy_from_slice(&idx.to_le_bytes()[..6]);
        b[14] = 200;
        b[15] = 100;
        assert_eq!(dxt5_texel(&b, 0, 0)[3], 200);
        assert_eq!(dxt5_texel(&b, 1, 0)[3], 100);
        // (6·200 + 100)/7 = 185.7 -> 185; index 7: (200 + 6·100)/7 = 114.3 -> 114.
        assert_eq!(dxt5_texel(&b, 2, 0), [165, 0, 82, 185]);
        assert_eq!(dxt5_texel(&b, 3, 0)[3], 114);
        // 6-step mode: a1 <= a2; index 2 = (4·50 + 150)/5 = 70, 6 = 0, 7 = 255.
        b[14] = 50;
        b[15] = 150;
        assert_eq!(dxt5_texel(&b, 2, 0)[3], 70);
        assert_eq!(dxt5_texel(&b, 3, 0)[3], 255);
        assert_eq!(dxt5_alpha(50, 150, 6), 0);
    }

    /// The JIT's alpha arithmetic equals PPSSPP's C++ lerp8/lerp6 for every input.
    #[test]
    fn dxt5_alpha_matches_cpp_lerp() {
        for a1 in 0..=255u32 {
            for a2 in 0..=255u32 {
                for i in 2..8u32 {
                    let n = i - 1;
                    let cpp = if a1 > a2 {
                        (a1 * ((7 - n) << 8) / 7 + a2 * (n << 8) / 7 + 31) >> 8
                    } else if i < 6 {
                        (a1 * ((5 - n) << 8) / 5 + a2 * (n << 8) / 5 + 31) >> 8
                    } else {
                        continue;
                    };
                    assert_eq!(dxt5_alpha(a1 as u8, a2 as u8, i) as u32, cpp, "{a1} {a2} {i}");
                }
            }
        }
    }

    /// The JIT's reciprocal multiplies for the 2/3 colour mix equal plain division.
    #[test]
    fn dxt_mix_matches_jit_reciprocals() {
        for a in 0..32u32 {
            for b in 0..32u32 {
                // R/B: (2a+b) 5-bit sum shifted to 8 bits, times 0xAAAB >> 17.
                let jit = (((2 * a + b) << 3) * 0xAAAB) >> 17;
                assert_eq!(jit, (2 * (a << 3) + (b << 3)) / 3);
                // B path: (2a+b)·0x2AAAB, bits 16..24.
                assert_eq!((((2 * a + b) * 0x2AAAB) >> 16) & 0xFF, (2 * (a << 3) + (b << 3)) / 3);
            }
        }
        for a in 0..64u32 {
            for b in 0..64u32 {
                let x = (2 * a + b) << 5;
                assert_eq!(((x * 0xAAAB) >> 12 & 0xFF00) >> 8, (2 * (a << 2) + (b << 2)) / 3);
            }
        }
    }
}
