//! Framebuffer pixel formats: the four GE colour-word layouts as `#[repr(transparent)]`
//! newtypes, and the per-format stencil rules the per-fragment pipeline needs.
//!
//! Writing 8-bit channels to a 16-bit format **truncates** (keeps the top bits, no
//! rounding); reading expands by bit replication (ge-reference.md §15.4, [PP `SetPixelColor`,
//! `GetPixelColor`]). R always sits in the low bits.
//!
//! The alpha channel of a framebuffer word is the stencil buffer. Its value as a byte:
//! 8888 = the alpha byte, 4444 = top nibble ·17 (written back as value >> 4), 5551 = bit 15
//! read as 0/255 (written from bit 7), 5650 = always 0 and never written (§13,
//! [PP `GetPixelStencil`, `SetPixelStencil`]).
//!
//! Alpha of a 5650 word: the public [`Rgb565::to_rgba`] (used for display capture) reports
//! 0xFF (opaque), but as a blending *destination* the pipeline reads α = 0
//! ([`FbPixel::dst_rgba`]; [PP `GetPixelColor` "A should be zero for the purposes of alpha
//! blending"], ge-reference.md §14).

use crate::tile::FbFormat;
use bytemuck::{Pod, Zeroable};
use wide::u32x4;

/// Expand a 5-bit channel to 8 bits by bit replication.
#[inline]
const fn ex5(v: u32) -> u8 {
    ((v << 3) | (v >> 2)) as u8
}

/// Expand a 6-bit channel to 8 bits by bit replication.
#[inline]
const fn ex6(v: u32) -> u8 {
    ((v << 2) | (v >> 4)) as u8
}

/// Expand a 4-bit channel to 8 bits (·17).
#[inline]
const fn ex4(v: u32) -> u8 {
    (v * 17) as u8
}

/// 5650: R 0–4, G 5–10, B 11–15; no alpha/stencil.
#[repr(transparent)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Pod, Zeroable)]
pub struct Rgb565(pub u16);

/// 5551: R 0–4, G 5–9, B 10–14, alpha/stencil bit 15.
#[repr(transparent)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Pod, Zeroable)]
pub struct Rgba5551(pub u16);

/// 4444: R 0–3, G 4–7, B 8–11, alpha/stencil 12–15.
#[repr(transparent)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Pod, Zeroable)]
pub struct Rgba4444(pub u16);

/// 8888: R 0–7, G 8–15, B 16–23, alpha/stencil 24–31.
#[repr(transparent)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Pod, Zeroable)]
pub struct Rgba8888(pub u32);

impl Rgb565 {
    /// Truncating conversion; alpha is dropped.
    #[inline]
    pub const fn from_rgba(c: [u8; 4]) -> Self {
        Rgb565(((c[0] as u16) >> 3) | (((c[1] as u16) >> 2) << 5) | (((c[2] as u16) >> 3) << 11))
    }

    /// Bit-replicated RGB with alpha 0xFF (opaque, for display); the blending pipeline
    /// reads 5650 destination alpha as 0 instead.
    #[inline]
    pub const fn to_rgba(self) -> [u8; 4] {
        let v = self.0 as u32;
        [ex5(v & 0x1F), ex6((v >> 5) & 0x3F), ex5((v >> 11) & 0x1F), 0xFF]
    }
}

impl Rgba5551 {
    /// Truncating conversion; alpha keeps its top bit.
    #[inline]
    pub const fn from_rgba(c: [u8; 4]) -> Self {
        Rgba5551(
            ((c[0] as u16) >> 3)
                | (((c[1] as u16) >> 3) << 5)
                | (((c[2] as u16) >> 3) << 10)
                | (((c[3] as u16) >> 7) << 15),
        )
    }

    /// Bit-replicated channels; alpha is 0 or 0xFF.
    #[inline]
    pub const fn to_rgba(self) -> [u8; 4] {
        let v = self.0 as u32;
        let a = if v & 0x8000 != 0 { 0xFF } else { 0 };
        [ex5(v & 0x1F), ex5((v >> 5) & 0x1F), ex5((v >> 10) & 0x1F), a]
    }
}

impl Rgba4444 {
    /// Truncating conversion (top nibble of each channel).
    #[inline]
    pub const fn from_rgba(c: [u8; 4]) -> Self {
        Rgba4444(
            ((c[0] as u16) >> 4)
                | (((c[1] as u16) >> 4) << 4)
                | (((c[2] as u16) >> 4) << 8)
                | (((c[3] as u16) >> 4) << 12),
        )
    }

    /// Each nibble ·17.
    #[inline]
    pub const fn to_rgba(self) -> [u8; 4] {
        let v = self.0 as u32;
        [ex4(v & 0xF), ex4((v >> 4) & 0xF), ex4((v >> 8) & 0xF), ex4(v >> 12)]
    }
}

impl Rgba8888 {
    #[inline]
    pub const fn from_rgba(c: [u8; 4]) -> Self {
        Rgba8888(u32::from_le_bytes(c))
    }

    #[inline]
    pub const fn to_rgba(self) -> [u8; 4] {
        self.0.to_le_bytes()
    }
}

/// What the per-fragment pipeline needs to know about a framebuffer format. Implemented
/// by the four newtypes so the pipeline is monomorphised per format.
pub(crate) trait FbPixel {
    /// Raw bits that hold the alpha/stencil channel (0 for 5650).
    const STENCIL_BITS: u32;
    /// All bits of the raw word.
    const ALL_BITS: u32;
    /// Bytes of the raw word in memory.
    const BYTES: usize = if Self::ALL_BITS == 0xFFFF_FFFF { 4 } else { 2 };
    /// The raw word stored little-endian in the first [`Self::BYTES`] bytes of `px`.
    #[inline(always)]
    fn load(px: &[u8]) -> u32 {
        if Self::BYTES == 4 {
            u32::from_le_bytes([px[0], px[1], px[2], px[3]])
        } else {
            u32::from(u16::from_le_bytes([px[0], px[1]]))
        }
    }
    /// Store the raw word `w` little-endian into `px` ([`Self::BYTES`] long).
    #[inline(always)]
    fn store(px: &mut [u8], w: u32) {
        if Self::BYTES == 4 {
            px.copy_from_slice(&w.to_le_bytes());
        } else {
            px.copy_from_slice(&(w as u16).to_le_bytes());
        }
    }
    /// The colour word of an RGB triple (truncating), stencil bits zero.
    fn pack_rgb(rgb: [u8; 3]) -> u32;
    /// [`Self::pack_rgb`] of four lanes at once: lane i holds the bytes r, g, b, (ignored)
    /// of a colour, little-endian; the result's lane i is its word.
    fn pack_rgb4(rgb: u32x4) -> u32x4;
    /// The word as a blending destination: bit-replicated RGB, α = the stencil value
    /// (0 for 5650).
    fn dst_rgba(raw: u32) -> [u8; 4];
    /// [`Self::dst_rgba`] of four words at once: lane i of the result holds the bytes of
    /// `dst_rgba(raw[i])`, little-endian.
    fn dst_rgba4(raw: u32x4) -> u32x4;
    /// The stencil value of a word as a byte.
    fn stencil(raw: u32) -> u8;
    /// A stencil byte placed in [`Self::STENCIL_BITS`] (truncating).
    fn pack_stencil(s: u8) -> u32;
    /// Saturating INCR / DECR on the byte value of this format's stencil.
    fn incr(s: u8) -> u8;
    fn decr(s: u8) -> u8;
}

impl FbPixel for Rgb565 {
    const STENCIL_BITS: u32 = 0;
    const ALL_BITS: u32 = 0xFFFF;
    #[inline]
    fn pack_rgb(rgb: [u8; 3]) -> u32 {
        Rgb565::from_rgba([rgb[0], rgb[1], rgb[2], 0]).0 as u32
    }
    #[inline(always)]
    fn pack_rgb4(w: u32x4) -> u32x4 {
        ((w & 0xF8) >> 3) | ((w & 0xFC00) >> 5) | ((w & 0xF8_0000) >> 8)
    }
    #[inline]
    fn dst_rgba(raw: u32) -> [u8; 4] {
        // [PP DrawPixel.cpp GetPixelColor; DrawPixelX86.cpp Jit_ConvertFrom565] α = 0.
        let c = Rgb565(raw as u16).to_rgba();
        [c[0], c[1], c[2], 0]
    }
    #[inline(always)]
    fn dst_rgba4(w: u32x4) -> u32x4 {
        // Each channel at the top of its byte, then its top bits replicated below.
        let top = ((w & 0x1F) << 3) | ((w & 0x7E0) << 5) | ((w & 0xF800) << 8);
        top | ((top >> 5) & 0x07_0007u32) | ((top >> 6) & 0x0300u32)
    }
    #[inline]
    fn stencil(_raw: u32) -> u8 {
        0
    }
    #[inline]
    fn pack_stencil(_s: u8) -> u32 {
        0
    }
    #[inline]
    fn incr(s: u8) -> u8 {
        s
    }
    #[inline]
    fn decr(s: u8) -> u8 {
        s
    }
}

impl FbPixel for Rgba5551 {
    const STENCIL_BITS: u32 = 0x8000;
    const ALL_BITS: u32 = 0xFFFF;
    #[inline]
    fn pack_rgb(rgb: [u8; 3]) -> u32 {
        Rgba5551::from_rgba([rgb[0], rgb[1], rgb[2], 0]).0 as u32
    }
    #[inline(always)]
    fn pack_rgb4(w: u32x4) -> u32x4 {
        ((w & 0xF8) >> 3) | ((w & 0xF800) >> 6) | ((w & 0xF8_0000) >> 9)
    }
    #[inline]
    fn dst_rgba(raw: u32) -> [u8; 4] {
        Rgba5551(raw as u16).to_rgba()
    }
    #[inline(always)]
    fn dst_rgba4(w: u32x4) -> u32x4 {
        let top = ((w & 0x1F) << 3) | ((w & 0x3E0) << 6) | ((w & 0x7C00) << 9);
        // Bit 15 becomes an alpha byte of 0 or 0xFF.
        let alpha = (u32x4::ZERO - ((w >> 15) & 1u32)) << 24;
        top | ((top >> 5) & 0x07_0707u32) | alpha
    }
    #[inline]
    fn stencil(raw: u32) -> u8 {
        if raw & 0x8000 != 0 {
            0xFF
        } else {
            0
        }
    }
    #[inline]
    fn pack_stencil(s: u8) -> u32 {
        ((s as u32) >> 7) << 15
    }
    /// [PP ApplyStencilOp; DrawPixelX86.cpp Jit_ApplyStencilOp] INCR sets the bit.
    #[inline]
    fn incr(_s: u8) -> u8 {
        0xFF
    }
    /// DECR clears the bit.
    #[inline]
    fn decr(_s: u8) -> u8 {
        0
    }
}

impl FbPixel for Rgba4444 {
    const STENCIL_BITS: u32 = 0xF000;
    const ALL_BITS: u32 = 0xFFFF;
    #[inline]
    fn pack_rgb(rgb: [u8; 3]) -> u32 {
        Rgba4444::from_rgba([rgb[0], rgb[1], rgb[2], 0]).0 as u32
    }
    #[inline(always)]
    fn pack_rgb4(w: u32x4) -> u32x4 {
        ((w & 0xF0) >> 4) | ((w & 0xF000) >> 8) | ((w & 0xF0_0000) >> 12)
    }
    #[inline]
    fn dst_rgba(raw: u32) -> [u8; 4] {
        Rgba4444(raw as u16).to_rgba()
    }
    #[inline(always)]
    fn dst_rgba4(w: u32x4) -> u32x4 {
        // One nibble at the bottom of each byte, then ·17.
        let n = (w & 0xF) | ((w & 0xF0) << 4) | ((w & 0xF00) << 8) | ((w & 0xF000) << 12);
        n | (n << 4)
    }
    #[inline]
    fn stencil(raw: u32) -> u8 {
        ex4((raw >> 12) & 0xF)
    }
    #[inline]
    fn pack_stencil(s: u8) -> u32 {
        ((s as u32) >> 4) << 12
    }
    /// One nibble step, saturating at 0xF: [PP DrawPixelX86.cpp Jit_ApplyStencilOp] adds
    /// 0x11 below 0xF0 (the C++ path adds 0x10; same nibble after `>> 4`).
    #[inline]
    fn incr(s: u8) -> u8 {
        if s < 0xF0 {
            s.wrapping_add(0x11)
        } else {
            s
        }
    }
    #[inline]
    fn decr(s: u8) -> u8 {
        if s >= 0x11 {
            s - 0x11
        } else {
            s
        }
    }
}

impl FbPixel for Rgba8888 {
    const STENCIL_BITS: u32 = 0xFF00_0000;
    const ALL_BITS: u32 = 0xFFFF_FFFF;
    #[inline]
    fn pack_rgb(rgb: [u8; 3]) -> u32 {
        u32::from_le_bytes([rgb[0], rgb[1], rgb[2], 0])
    }
    #[inline(always)]
    fn pack_rgb4(w: u32x4) -> u32x4 {
        w & 0xFF_FFFF
    }
    #[inline]
    fn dst_rgba(raw: u32) -> [u8; 4] {
        raw.to_le_bytes()
    }
    #[inline(always)]
    fn dst_rgba4(w: u32x4) -> u32x4 {
        w
    }
    #[inline]
    fn stencil(raw: u32) -> u8 {
        (raw >> 24) as u8
    }
    #[inline]
    fn pack_stencil(s: u8) -> u32 {
        (s as u32) << 24
    }
    #[inline]
    fn incr(s: u8) -> u8 {
        s.saturating_add(1)
    }
    #[inline]
    fn decr(s: u8) -> u8 {
        s.saturating_sub(1)
    }
}

/// Colour word (16 or 32 bits in the low bits of `raw`) to RGBA8 by bit replication
/// (5650 alpha reads 0xFF here; see the module docs).
pub fn decode_color(fmt: FbFormat, raw: u32) -> [u8; 4] {
    match fmt {
        FbFormat::Rgb565 => Rgb565(raw as u16).to_rgba(),
        FbFormat::Rgba5551 => Rgba5551(raw as u16).to_rgba(),
        FbFormat::Rgba4444 => Rgba4444(raw as u16).to_rgba(),
        FbFormat::Rgba8888 => Rgba8888(raw).to_rgba(),
    }
}

/// RGBA8 to a colour word by truncation.
pub fn encode_color(fmt: FbFormat, rgba: [u8; 4]) -> u32 {
    match fmt {
        FbFormat::Rgb565 => Rgb565::from_rgba(rgba).0 as u32,
        FbFormat::Rgba5551 => Rgba5551::from_rgba(rgba).0 as u32,
        FbFormat::Rgba4444 => Rgba4444::from_rgba(rgba).0 as u32,
        FbFormat::Rgba8888 => Rgba8888::from_rgba(rgba).0,
    }
}

/// An 8888 write mask converted to a format: the same truncation as colours, so a mask
/// bit survives iff it is among the kept top bits of its channel
/// [PP FuncId.cpp ComputePixelFuncID colorWriteMask].
pub(crate) fn convert_mask(fmt: FbFormat, mask8888: u32) -> u32 {
    encode_color(fmt, mask8888.to_le_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn quantisation_example_565() {
        // ge-reference §15.4 / [HW dither "Zero matrix"]: (0x88,0xF0,0x1F) stores 0x1F91.
        assert_eq!(Rgb565::from_rgba([0x88, 0xF0, 0x1F, 0xFF]).0, 0x1F91);
        // 0x1F91 = R 0x11, G 0x3C, B 0x03 → replicated 0x8C, 0xF3, 0x18.
        assert_eq!(Rgb565(0x1F91).to_rgba(), [0x8C, 0xF3, 0x18, 0xFF]);
        assert_eq!(<Rgb565 as FbPixel>::dst_rgba(0x1F91), [0x8C, 0xF3, 0x18, 0]);
    }

    #[test]
    fn hand_examples() {
        // 5551: r 0xFF → 0x1F, g 0x80 → 0x10, b 0x08 → 0x01, a 0x80 → 1.
        assert_eq!(Rgba5551::from_rgba([0xFF, 0x80, 0x08, 0x80]).0, 0x1F | (0x10 << 5) | (1 << 10) | 0x8000);
        assert_eq!(Rgba5551(0x8000 | 0x10).to_rgba(), [0x84, 0, 0, 0xFF]);
        // 4444: nibbles.
        assert_eq!(Rgba4444::from_rgba([0x12, 0x34, 0x56, 0x78]).0, 0x7531);
        assert_eq!(Rgba4444(0x8A50).to_rgba(), [0x00, 0x55, 0xAA, 0x88]);
        assert_eq!(Rgba8888::from_rgba([1, 2, 3, 4]).0, 0x0403_0201);
        assert_eq!(convert_mask(FbFormat::Rgb565, 0xFF_07_03_07), 0);
        assert_eq!(convert_mask(FbFormat::Rgba5551, 0x80_00_00_00), 0x8000);
        assert_eq!(convert_mask(FbFormat::Rgba4444, 0x7F_00_00_F0), 0x7000 | 0xF);
    }

    #[test]
    fn stencil_per_format() {
        assert_eq!(<Rgba4444 as FbPixel>::stencil(0xA000), 0xAA);
        assert_eq!(<Rgba4444 as FbPixel>::pack_stencil(0xAB), 0xA000);
        assert_eq!(<Rgba5551 as FbPixel>::stencil(0x8000), 0xFF);
        assert_eq!(<Rgba5551 as FbPixel>::pack_stencil(0x7F), 0);
        assert_eq!(<Rgba5551 as FbPixel>::pack_stencil(0x80), 0x8000);
        assert_eq!(<Rgba8888 as FbPixel>::stencil(0xAB00_0000), 0xAB);
        assert_eq!(<Rgb565 as FbPixel>::stencil(0xFFFF), 0);
        // 4444 steps by one nibble and saturates.
        assert_eq!(<Rgba4444 as FbPixel>::incr(0x77), 0x88);
        assert_eq!(<Rgba4444 as FbPixel>::incr(0xFF), 0xFF);
        assert_eq!(<Rgba4444 as FbPixel>::decr(0x11), 0x00);
        assert_eq!(<Rgba4444 as FbPixel>::decr(0x00), 0x00);
        assert_eq!(<Rgba8888 as FbPixel>::incr(0xFF), 0xFF);
        assert_eq!(<Rgba8888 as FbPixel>::decr(0), 0);
        assert_eq!(<Rgba8888 as FbPixel>::incr(0x41), 0x42);
    }

    fn top_bits(c: [u8; 4], bits: [u32; 4]) -> [u8; 4] {
        let f = |v: u8, b: u32| if b == 0 { 0 } else { v >> (8 - b) };
        [f(c[0], bits[0]), f(c[1], bits[1]), f(c[2], bits[2]), f(c[3], bits[3])]
    }

    proptest! {
        #[test]
        fn decode_encode_keeps_top_bits(c in any::<[u8; 4]>()) {
            for (fmt, bits) in [
                (FbFormat::Rgb565, [5, 6, 5, 0]),
                (FbFormat::Rgba5551, [5, 5, 5, 1]),
                (FbFormat::Rgba4444, [4, 4, 4, 4]),
                (FbFormat::Rgba8888, [8, 8, 8, 8]),
            ] {
                let back = decode_color(fmt, encode_color(fmt, c));
                prop_assert_eq!(top_bits(back, bits), top_bits(c, bits));
            }
        }

        #[test]
        fn encode_decode_32bit(raw in any::<u32>()) {
            prop_assert_eq!(encode_color(FbFormat::Rgba8888, decode_color(FbFormat::Rgba8888, raw)), raw);
        }
    }

    /// [`FbPixel::dst_rgba4`] and [`FbPixel::pack_rgb4`] equal the scalar conversions lane
    /// by lane: every 16-bit word (and random 32-bit ones), random RGB bytes per lane.
    #[test]
    fn lane_conversions_equal_the_scalar_ones() {
        fn check<F: FbPixel>(words: impl Iterator<Item = u32>) {
            let mut x = 0x9E37_79B9u32;
            for w in words {
                let raw = [w, w ^ 0x5A5A, w.rotate_left(7) & F::ALL_BITS, !w & F::ALL_BITS];
                let got: [u32; 4] = F::dst_rgba4(u32x4::new(raw)).to_array();
                for i in 0..4 {
                    assert_eq!(got[i].to_le_bytes(), F::dst_rgba(raw[i]), "dst of {:#x}", raw[i]);
                }
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                let rgb = [x, w.wrapping_mul(0x0101_0101), x.rotate_left(9) ^ w, !x];
                let got = F::pack_rgb4(u32x4::new(rgb)).to_array();
                for i in 0..4 {
                    let b = rgb[i].to_le_bytes();
                    assert_eq!(got[i], F::pack_rgb([b[0], b[1], b[2]]), "pack of {:#x}", rgb[i]);
                }
            }
        }
        check::<Rgb565>(0..=0xFFFF);
        check::<Rgba5551>(0..=0xFFFF);
        check::<Rgba4444>(0..=0xFFFF);
        check::<Rgba8888>((0..0x1_0000u32).map(|i| i.wrapping_mul(0x9E37_79B9) ^ (i << 16)));
    }

    #[test]
    fn encode_decode_every_16bit_word() {
        for raw in 0..=0xFFFFu32 {
            for fmt in [FbFormat::Rgb565, FbFormat::Rgba5551, FbFormat::Rgba4444] {
                assert_eq!(encode_color(fmt, decode_color(fmt, raw)), raw, "{fmt:?} {raw:#x}");
            }
            // The pipeline's view (565 α = 0) packs back too.
            assert_eq!(<Rgb565 as FbPixel>::pack_rgb(<Rgb565 as FbPixel>::dst_rgba(raw)[..3].try_into().unwrap()), raw);
        }
    }
}
