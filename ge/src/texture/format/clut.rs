//! The CLUT formats' [`Format`] implementations: an index read from the level (4, 8, 16
//! or 32 bits), looked up in the palette (`LevelSrc::lookup` and its fast forms for
//! 4- and 8-bit indices, which pick the palette table once per quad). A child of
//! `format` so that it reaches `LevelSrc`'s private palette readers.

use super::{spread, u16_at, u32_at, Addr, BlockMemo, FClut16, FClut32, FClut4, FClut8, Format, LevelSrc};

/// CLUT4 texel value: low nibble = even texel [PP Sampler.cpp SampleNearest CLUT4].
#[inline]
fn clut4_raw(src: &LevelSrc, u: u32, v: u32) -> u8 {
    let [b] = src.bytes::<1>(src.offset::<4>(u, v));
    (b >> ((u & 1) * 4)) & 15
}

#[inline]
fn clut8_raw(src: &LevelSrc, u: u32, v: u32) -> u8 {
    let [b] = src.bytes::<1>(src.offset::<8>(u, v));
    b
}

impl Format for FClut4 {
    #[inline(always)]
    fn fetch4(src: &LevelSrc, u: [u32; 4], v: [u32; 4]) -> [[u8; 4]; 4] {
        let b = src.bytes4::<1>(src.offsets4::<4>(u, v));
        let nibble = |i: usize| (b[i][0] >> ((u[i] & 1) * 4)) & 15;
        src.entries4([nibble(0), nibble(1), nibble(2), nibble(3)])
    }
    const ADDR: Addr = Addr::Bits(4);
    #[inline(always)]
    fn tap_at<const FIRST: bool>(src: &LevelSrc, off: u32, u: u32, _: u32) -> u64 {
        let [b] = src.bytes::<1>(off);
        let raw = (b >> ((u & 1) * 4)) & 15;
        if FIRST {
            src.entry_wide(raw)
        } else {
            src.entry_wide0(raw)
        }
    }
    /// The four bytes read with a compare each ([`LevelSrc::bytes1x4`]), the table
    /// chosen once: with the draw's table the taps come from `ClutTable::nibbles`, otherwise
    /// through [`LevelSrc::entries_wide4`].
    #[inline(always)]
    fn taps(src: &LevelSrc, off: [u32; 4], (u0, u1): (u32, u32), _: (u32, u32), _: &mut BlockMemo) -> [u64; 4] {
        let [b0, b1, b2, b3] = src.bytes1x4(off);
        match src.table {
            // The byte and the column's parity index the nibble table directly.
            Some(t) if src.clut_level == 0 => {
                let (p0, p1) = (((u0 & 1) << 8) as usize, ((u1 & 1) << 8) as usize);
                let n = &t.nibbles;
                [n[b0 as usize | p0], n[b1 as usize | p1], n[b2 as usize | p0], n[b3 as usize | p1]]
            }
            _ => {
                let (s0, s1) = ((u0 & 1) * 4, (u1 & 1) * 4);
                src.entries_wide4([(b0 >> s0) & 15, (b1 >> s1) & 15, (b2 >> s0) & 15, (b3 >> s1) & 15])
            }
        }
    }
    #[inline]
    fn texel(src: &LevelSrc, u: u32, v: u32) -> [u8; 4] {
        src.lookup(clut4_raw(src, u, v) as u32)
    }
    #[inline(always)]
    fn fetch(src: &LevelSrc, u: u32, v: u32) -> [u8; 4] {
        src.entry(clut4_raw(src, u, v))
    }
    #[inline(always)]
    fn tap(src: &LevelSrc, u: u32, v: u32) -> u64 {
        src.entry_wide(clut4_raw(src, u, v))
    }
}
impl Format for FClut8 {
    #[inline(always)]
    fn fetch4(src: &LevelSrc, u: [u32; 4], v: [u32; 4]) -> [[u8; 4]; 4] {
        src.entries4(src.bytes4::<1>(src.offsets4::<8>(u, v)).map(|[b]| b))
    }
    const ADDR: Addr = Addr::Bits(8);
    #[inline(always)]
    fn tap_at<const FIRST: bool>(src: &LevelSrc, off: u32, _: u32, _: u32) -> u64 {
        let [raw] = src.bytes::<1>(off);
        if FIRST {
            src.entry_wide(raw)
        } else {
            src.entry_wide0(raw)
        }
    }
    /// The four bytes read with a compare each ([`LevelSrc::bytes1x4`]), the table chosen
    /// once ([`LevelSrc::entries_wide4`]).
    #[inline(always)]
    fn taps(src: &LevelSrc, off: [u32; 4], _: (u32, u32), _: (u32, u32), _: &mut BlockMemo) -> [u64; 4] {
        src.entries_wide4(src.bytes1x4(off))
    }
    #[inline]
    fn texel(src: &LevelSrc, u: u32, v: u32) -> [u8; 4] {
        src.lookup(clut8_raw(src, u, v) as u32)
    }
    #[inline(always)]
    fn fetch(src: &LevelSrc, u: u32, v: u32) -> [u8; 4] {
        src.entry(clut8_raw(src, u, v))
    }
    #[inline(always)]
    fn tap(src: &LevelSrc, u: u32, v: u32) -> u64 {
        src.entry_wide(clut8_raw(src, u, v))
    }
}
impl Format for FClut16 {
    const ADDR: Addr = Addr::Bits(16);
    #[inline(always)]
    fn tap_at<const FIRST: bool>(src: &LevelSrc, off: u32, _: u32, _: u32) -> u64 {
        let raw = u16::from_le_bytes(src.bytes::<2>(off)) as u32;
        spread(if FIRST { src.lookup(raw) } else { src.lookup0(raw) })
    }
    #[inline]
    fn texel(src: &LevelSrc, u: u32, v: u32) -> [u8; 4] {
        src.lookup(u16_at(src, u, v) as u32)
    }
}
impl Format for FClut32 {
    const ADDR: Addr = Addr::Bits(32);
    #[inline(always)]
    fn tap_at<const FIRST: bool>(src: &LevelSrc, off: u32, _: u32, _: u32) -> u64 {
        let raw = u32::from_le_bytes(src.bytes::<4>(off));
        spread(if FIRST { src.lookup(raw) } else { src.lookup0(raw) })
    }
    #[inline]
    fn texel(src: &LevelSrc, u: u32, v: u32) -> [u8; 4] {
        src.lookup(u32_at(src, u, v))
    }
}
