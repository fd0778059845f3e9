//! Texel storage: texture and palette formats, colour expansion, buffer widths, linear and
//! swizzled addressing, the CLUT index transform, and one texel fetch per format.
//!
//! Every format is a zero-sized type implementing [`Format`], so the samplers in
//! `filter.rs` are monomorphised per format: the format is matched once per quad, never
//! per texel (ge-reference.md §10.1–§10.3).

use crate::cmd::fields::ClutFormatArg;
use crate::mem::{Memory, Region};

/// TEXFORMAT (0xC3) bits 0–3.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TexFormat {
    Rgb565,
    Rgba5551,
    Rgba4444,
    Rgba8888,
    Clut4,
    Clut8,
    Clut16,
    Clut32,
    Dxt1,
    Dxt3,
    Dxt5,
    /// 11–15: PPSSPP's sampler returns texel 0 for these [PP Sampler.cpp SampleNearest default].
    Invalid(u8),
}

impl TexFormat {
    pub fn from_bits(v: u32) -> TexFormat {
        match v & 0xF {
            0 => TexFormat::Rgb565,
            1 => TexFormat::Rgba5551,
            2 => TexFormat::Rgba4444,
            3 => TexFormat::Rgba8888,
            4 => TexFormat::Clut4,
            5 => TexFormat::Clut8,
            6 => TexFormat::Clut16,
            7 => TexFormat::Clut32,
            8 => TexFormat::Dxt1,
            9 => TexFormat::Dxt3,
            10 => TexFormat::Dxt5,
            n => TexFormat::Invalid(n as u8),
        }
    }

    /// Bits per texel (DXT: per texel of a 4x4 block); 0 for invalid formats
    /// [PP TextureDecoder.cpp textureBitsPerPixel].
    pub fn bits_per_texel(self) -> u32 {
        match self {
            TexFormat::Rgb565 | TexFormat::Rgba5551 | TexFormat::Rgba4444 | TexFormat::Clut16 => 16,
            TexFormat::Rgba8888 | TexFormat::Clut32 => 32,
            TexFormat::Clut4 | TexFormat::Dxt1 => 4,
            TexFormat::Clut8 | TexFormat::Dxt3 | TexFormat::Dxt5 => 8,
            TexFormat::Invalid(_) => 0,
        }
    }

    pub fn is_clut(self) -> bool {
        matches!(self, TexFormat::Clut4 | TexFormat::Clut8 | TexFormat::Clut16 | TexFormat::Clut32)
    }

    /// Row stride in texels from a TEXBUFWIDTH argument: bits 0–10 rounded down to whole
    /// 16-byte units (DXT: not rounded); 0 becomes 16 bytes' worth
    /// [PP TextureDecoder.cpp GetTextureBufw; ppdmp-format.md §7].
    pub fn bufw(self, texbufwidth: u32) -> u32 {
        let bits = self.bits_per_texel();
        if bits == 0 {
            return 0;
        }
        let mask = match self {
            TexFormat::Dxt1 | TexFormat::Dxt3 | TexFormat::Dxt5 => 0x7FF,
            _ => 0x7FF & !(128 / bits - 1),
        };
        match texbufwidth & mask {
            0 => 128 / bits,
            b => b,
        }
    }
}

/// CLUTFORMAT (0xC5) bits 0–1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ClutFormat {
    Rgb565,
    Rgba5551,
    Rgba4444,
    Rgba8888,
}

impl ClutFormat {
    pub fn from_bits(v: u32) -> ClutFormat {
        match v & 3 {
            0 => ClutFormat::Rgb565,
            1 => ClutFormat::Rgba5551,
            2 => ClutFormat::Rgba4444,
            _ => ClutFormat::Rgba8888,
        }
    }

    /// Decode the 1 KiB CLUT cache into RGBA entries (512 for 16-bit, 256 for 32-bit).
    pub fn decode_palette(self, clut: &[u8; 1024]) -> Vec<[u8; 4]> {
        match self {
            ClutFormat::Rgba8888 => clut.chunks_exact(4).map(|c| [c[0], c[1], c[2], c[3]]).collect(),
            _ => clut
                .chunks_exact(2)
                .map(|c| {
                    let v = u16::from_le_bytes([c[0], c[1]]);
                    match self {
                        ClutFormat::Rgb565 => rgb565(v),
                        ClutFormat::Rgba5551 => rgba5551(v),
                        _ => rgba4444(v),
                    }
                })
                .collect(),
        }
    }
}

/// 5-bit to 8-bit by bit replication [PP SamplerX86.cpp Jit_Decode5650 "Expand 5 -> 8"].
#[inline]
fn x5(v: u16) -> u8 {
    let v = (v & 31) as u8;
    (v << 3) | (v >> 2)
}

/// 5650 texel/palette entry, R in the low bits; alpha 255.
#[inline]
pub fn rgb565(v: u16) -> [u8; 4] {
    let g = ((v >> 5) & 63) as u8;
    [x5(v), (g << 2) | (g >> 4), x5(v >> 11), 255]
}

/// 5551: the alpha bit becomes 0 or 255.
#[inline]
pub fn rgba5551(v: u16) -> [u8; 4] {
    [x5(v), x5(v >> 5), x5(v >> 10), if v & 0x8000 != 0 { 255 } else { 0 }]
}

/// 4444: each nibble n becomes n·17. The nibbles are spread to one byte each and
/// multiplied by 17 at once (at most 255 per byte, so no carries): a multiply instead of
/// four shifts, masks and multiplies (`rgba4444_is_each_nibble_times_17`, all 65 536 values).
#[inline]
pub fn rgba4444(v: u16) -> [u8; 4] {
    let v = v as u32;
    let nibbles = (v & 0xF) | (v & 0xF0) << 4 | (v & 0xF00) << 8 | (v & 0xF000) << 12;
    (nibbles * 17).to_le_bytes()
}

/// The CLUT index transform, decoded once per draw (ge-reference.md §10.2):
/// `((raw >> shift) & mask) | offset`, with `offset` = start·16 wrapped to 0x1FF (16-bit
/// palettes) or 0xFF (32-bit) [PP Sampler.cpp TransformClutIndex; the x86 JIT's
/// Jit_TransformClutIndex(Quad) gives the same result]. With shift 0, mask 0xFF and start 0
/// this is `raw & 0xFF`, PPSSPP's "simple" case.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClutIndex {
    pub shift: u32,
    pub mask: u32,
    pub offset: u32,
}

impl ClutIndex {
    pub fn from_clutformat(arg: ClutFormatArg, fmt: ClutFormat) -> ClutIndex {
        let wrap = if fmt == ClutFormat::Rgba8888 { 0xFF } else { 0x1FF };
        ClutIndex { shift: arg.shift(), mask: arg.mask(), offset: (arg.offset() << 4) & wrap }
    }

    #[inline]
    pub fn apply(&self, raw: u32) -> u32 {
        ((raw >> self.shift) & self.mask) | self.offset
    }
}

/// The palette entries of every CLUT4/CLUT8 texel value, through the draw's CLUT index
/// transform: `rgba[raw]` is `LevelSrc::lookup(raw)` without a level offset, `wide[raw]`
/// the same entry spread for the bilinear filter (`spread`). Built once per texture state
/// (a CLUT4/CLUT8 draw reads at most 256 entries), it replaces the shift, mask, offset and
/// palette bounds check of each texel by one table load, and the spread of each bilinear
/// tap. Checked against `lookup` by the property test `clut_tables_equal_the_lookup`;
/// measured in `texture::shader`'s module docs.
///
/// `nibbles[b | 256·p]` is the `wide` entry of CLUT4 byte b's texel of parity p (low
/// nibble for even columns, high for odd): a bilinear CLUT4 tap in one load, without the
/// variable shift per tap (measured in `texture::shader`'s module docs).
#[derive(Clone, PartialEq, Eq)]
pub struct ClutTable {
    pub rgba: [[u8; 4]; 256],
    pub wide: [u64; 256],
    pub nibbles: [u64; 512],
}

impl ClutTable {
    pub fn new(palette: &[[u8; 4]], clut: ClutIndex) -> ClutTable {
        let rgba: [[u8; 4]; 256] =
            std::array::from_fn(|raw| palette.get(clut.apply(raw as u32) as usize).copied().unwrap_or([0; 4]));
        let wide = rgba.map(spread);
        let nibbles = std::array::from_fn(|i| wide[((i & 255) >> (4 * (i >> 8))) & 15]);
        ClutTable { rgba, wide, nibbles }
    }
}

impl std::fmt::Debug for ClutTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ClutTable")
    }
}

/// RGBA8 spread into four 16-bit lanes of a u64, for SWAR filtering (`filter.rs`).
#[inline]
pub fn spread(c: [u8; 4]) -> u64 {
    c[0] as u64 | (c[1] as u64) << 16 | (c[2] as u64) << 32 | (c[3] as u64) << 48
}

/// Where one mip level's texels come from, resolved once per quad.
#[derive(Clone, Copy)]
pub struct LevelSrc<'a> {
    /// Bytes from the level's base to the end of its memory region.
    pub data: &'a [u8],
    pub base: u32,
    pub mem: &'a Memory,
    /// Row stride in texels.
    pub bufw: u32,
    pub swizzle: bool,
    pub palette: &'a [[u8; 4]],
    pub clut: ClutIndex,
    /// 16·level for CLUT4 with separate per-mip palettes, else 0 [PP Sampler.cpp LookupColor].
    pub clut_level: u32,
    /// The draw's CLUT4/CLUT8 table (read while `clut_level` is 0).
    pub table: Option<&'a ClutTable>,
}

impl<'a> LevelSrc<'a> {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        mem: &'a Memory,
        base: u32,
        bufw: u32,
        swizzle: bool,
        palette: &'a [[u8; 4]],
        clut: ClutIndex,
        clut_level: u32,
        table: Option<&'a ClutTable>,
    ) -> Self {
        LevelSrc { data: mem.tail(base), base, mem, bufw, swizzle, palette, clut, clut_level, table }
    }

    /// `N` bytes at byte offset `off`. Past the end of the region the bytes are read through
    /// the address map (a VRAM read runs on into the mirror like PPSSPP's raw pointer);
    /// unmapped bytes are 0.
    // One compare and a copy inside the region; no `Option` or `Result` (they were a
    // measurable share of the samplers, callgrind).
    #[inline]
    pub fn bytes<const N: usize>(&self, off: u32) -> [u8; N] {
        let o = off as usize;
        if o < self.data.len().saturating_sub(N - 1) {
            let mut b = [0u8; N];
            b.copy_from_slice(&self.data[o..o + N]);
            b
        } else {
            self.bytes_mapped(off)
        }
    }

    /// [`LevelSrc::bytes`] past the end of the region, through the address map.
    #[cold]
    #[inline(never)]
    fn bytes_mapped<const N: usize>(&self, off: u32) -> [u8; N] {
        let mut b = [0u8; N];
        self.mem.read_wrapping(self.base.wrapping_add(off), &mut b);
        b
    }

    /// Byte offset of texel (u, v) for a `BITS`-bit format (u, v already wrapped/clamped to
    /// 0..=511). Swizzled textures are stored in 16-byte x 8-row tiles
    /// (ge-reference.md §10.3) [PP SamplerX86.cpp Jit_GetTexDataSwizzled(4),
    /// Jit_PrepareDataSwizzledOffsets].
    #[inline]
    pub fn offset<const BITS: u32>(&self, u: u32, v: u32) -> u32 {
        // Wrapping: `fetch_texel` may pass any u, v (the samplers never exceed 511).
        self.row::<BITS>(v).wrapping_add(self.col::<BITS>(u))
    }

    /// The part of [`LevelSrc::offset`] that comes from the column `u`: its byte in a
    /// linear row, or its swizzle tile's start plus the byte within the tile's row.
    #[inline(always)]
    fn col<const BITS: u32>(&self, u: u32) -> u32 {
        if self.swizzle {
            col_swizzled::<BITS>(u)
        } else {
            col_linear::<BITS>(u)
        }
    }

    /// The part of [`LevelSrc::offset`] that comes from the row `v`: the row's start, or
    /// (swizzled) its tile row's start plus its 16-byte row within the tile; 8 rows of
    /// bufw·BITS/8 bytes = bufw·BITS bytes per tile row.
    #[inline(always)]
    fn row<const BITS: u32>(&self, v: u32) -> u32 {
        if self.swizzle {
            self.row_swizzled::<BITS>(v)
        } else {
            self.row_linear::<BITS>(v)
        }
    }

    /// [`LevelSrc::row`] of a linear level.
    #[inline(always)]
    fn row_linear<const BITS: u32>(&self, v: u32) -> u32 {
        v.wrapping_mul(self.bufw * BITS / 8)
    }
    /// [`LevelSrc::row`] of a swizzled level.
    #[inline(always)]
    fn row_swizzled<const BITS: u32>(&self, v: u32) -> u32 {
        (v >> 3).wrapping_mul(self.bufw * BITS).wrapping_add((v & 7) * 16)
    }

    /// [`LevelSrc::bytes`] at four offsets: when all four lie in the region (the usual
    /// case) one range check decides it, and no lane builds an `Option`. The check takes
    /// the offsets' OR, at least their largest (so it never passes an offset outside),
    /// at most twice it: the lanes' unsigned maximum was ~25 SSE2 instructions (no
    /// `PMAXUD`), the OR is three; an OR past the region takes the lane-by-lane path.
    #[inline(always)]
    pub fn bytes4<const N: usize>(&self, off: [u32; 4]) -> [[u8; N]; 4] {
        let last = (off[0] | off[1] | off[2] | off[3]) as usize;
        // Loops, not `array::map` (whose `try_map` stayed a call in the CLUT taps).
        let mut out = [[0u8; N]; 4];
        if last < self.data.len().saturating_sub(N - 1) {
            for (b, &o) in out.iter_mut().zip(&off) {
                b.copy_from_slice(&self.data[o as usize..o as usize + N]);
            }
        } else {
            for (b, &o) in out.iter_mut().zip(&off) {
                *b = self.bytes::<N>(o);
            }
        }
        out
    }

    /// One byte at each of four offsets, one compare each: the compare that chooses the
    /// region is the slice's bounds check too, where [`LevelSrc::bytes4`]'s test of the
    /// offsets' OR left four bounds checks behind it (the CLUT4/CLUT8 bilinear taps).
    #[inline(always)]
    fn bytes1x4(&self, off: [u32; 4]) -> [u8; 4] {
        let mut out = [0u8; 4];
        for (b, &o) in out.iter_mut().zip(&off) {
            *b = match self.data.get(o as usize) {
                Some(&x) => x,
                None => self.bytes_mapped::<1>(o)[0],
            };
        }
        out
    }

    /// [`LevelSrc::offset`] of four texels, the row and column terms as lanes.
    #[inline(always)]
    pub fn offsets4<const BITS: u32>(&self, u: [u32; 4], v: [u32; 4]) -> [u32; 4] {
        let (r, c) = (self.rows::<BITS>(v), self.cols::<BITS>(u));
        [r[0].wrapping_add(c[0]), r[1].wrapping_add(c[1]), r[2].wrapping_add(c[2]), r[3].wrapping_add(c[3])]
    }

    /// [`LevelSrc::entry`] of four CLUT4/CLUT8 texel values, the table chosen once.
    #[inline(always)]
    fn entries4(&self, raw: [u8; 4]) -> [[u8; 4]; 4] {
        match self.table {
            Some(t) if self.clut_level == 0 => raw.map(|r| t.rgba[r as usize]),
            _ => raw.map(|r| self.lookup(r as u32)),
        }
    }

    #[inline]
    pub fn lookup(&self, raw: u32) -> [u8; 4] {
        // Entries past the 1 KiB cache: PPSSPP reads whatever follows its snapshot.
        // guess: 0.
        self.lookup_from(raw, self.clut_level)
    }

    /// [`LevelSrc::lookup`] from palette entry `base` on.
    #[inline(always)]
    fn lookup_from(&self, raw: u32, base: u32) -> [u8; 4] {
        let i = self.clut.apply(raw) + base;
        self.palette.get(i as usize).copied().unwrap_or([0; 4])
    }

    /// [`LevelSrc::lookup`] of a CLUT4/CLUT8 texel value, through the table when it applies
    /// (no per-level palette offset).
    #[inline(always)]
    fn entry(&self, raw: u8) -> [u8; 4] {
        match self.table {
            Some(t) if self.clut_level == 0 => t.rgba[raw as usize],
            _ => self.lookup(raw as u32),
        }
    }

    /// [`spread`] of [`LevelSrc::entry`].
    #[inline(always)]
    fn entry_wide(&self, raw: u8) -> u64 {
        match self.table {
            Some(t) if self.clut_level == 0 => t.wide[raw as usize],
            _ => spread(self.lookup(raw as u32)),
        }
    }

    /// The taps of four CLUT4/CLUT8 texel values in [`Format::taps`] order: the first
    /// [`LevelSrc::entry_wide`], the rest [`LevelSrc::entry_wide0`], the table chosen once.
    #[inline(always)]
    fn entries_wide4(&self, raw: [u8; 4]) -> [u64; 4] {
        match self.table {
            Some(t) if self.clut_level == 0 => {
                [t.wide[raw[0] as usize], t.wide[raw[1] as usize], t.wide[raw[2] as usize], t.wide[raw[3] as usize]]
            }
            _ => {
                [self.entry_wide(raw[0]), self.entry_wide0(raw[1]), self.entry_wide0(raw[2]), self.entry_wide0(raw[3])]
            }
        }
    }

    /// [`LevelSrc::lookup`] without the level's palette offset (the bilinear taps after the
    /// first, see `filter::bilinear_at`).
    #[inline(always)]
    fn lookup0(&self, raw: u32) -> [u8; 4] {
        self.lookup_from(raw, 0)
    }

    /// [`LevelSrc::entry_wide`] without the level's palette offset.
    #[inline(always)]
    fn entry_wide0(&self, raw: u8) -> u64 {
        match self.table {
            Some(t) => t.wide[raw as usize],
            _ => spread(self.lookup0(raw as u32)),
        }
    }

    /// [`LevelSrc::offset`] split into row and column parts of four lanes each: texel
    /// (u, v) starts at `rows[v] + cols[u]` (wrapping). The bilinear lanes ([`lane_offsets`])
    /// combine two columns with two rows; the layout is tested once for the four lanes.
    #[inline(always)]
    fn cols<const BITS: u32>(&self, u: [u32; 4]) -> [u32; 4] {
        let b = u.map(col_linear::<BITS>);
        if self.swizzle {
            b.map(swizzled_byte)
        } else {
            b
        }
    }

    /// The row parts of [`LevelSrc::cols`].
    #[inline(always)]
    fn rows<const BITS: u32>(&self, v: [u32; 4]) -> [u32; 4] {
        if self.swizzle {
            v.map(|v| self.row_swizzled::<BITS>(v))
        } else {
            v.map(|v| self.row_linear::<BITS>(v))
        }
    }
}

/// [`LevelSrc::col`] of a linear level: the column's byte in its row.
#[inline(always)]
fn col_linear<const BITS: u32>(u: u32) -> u32 {
    u.wrapping_mul(BITS) / 8
}

/// [`LevelSrc::col`] of a swizzled level.
#[inline(always)]
fn col_swizzled<const BITS: u32>(u: u32) -> u32 {
    swizzled_byte(col_linear::<BITS>(u))
}

/// Byte `b` of a linear row as its 16-byte tile's start plus its byte in the tile's row.
#[inline(always)]
fn swizzled_byte(b: u32) -> u32 {
    (b >> 4).wrapping_mul(128).wrapping_add(b & 15)
}

/// How a format addresses its texels: `BITS` bits each in the linear or swizzled layout,
/// or `BYTES`-byte 4x4 blocks ([`dxt_block`]).
pub enum Addr {
    Bits(u32),
    Block(u32),
}

/// The byte offsets of the bilinear taps of four lanes as column and row terms: tap
/// (u, v) of lane i is at `rows[v][i] + cols[u][i]` (wrapping), equal to its
/// [`LevelSrc::offset`] / [`dxt_block`] (`lane_offsets_equal_the_texel_offsets`). Returns
/// `(cols of u0, cols of u1, rows of v0, rows of v1)`.
#[inline(always)]
pub fn lane_offsets<F: Format>(src: &LevelSrc, u: ([u32; 4], [u32; 4]), v: ([u32; 4], [u32; 4])) -> [[u32; 4]; 4] {
    match F::ADDR {
        Addr::Bits(4) => [src.cols::<4>(u.0), src.cols::<4>(u.1), src.rows::<4>(v.0), src.rows::<4>(v.1)],
        Addr::Bits(8) => [src.cols::<8>(u.0), src.cols::<8>(u.1), src.rows::<8>(v.0), src.rows::<8>(v.1)],
        Addr::Bits(16) => [src.cols::<16>(u.0), src.cols::<16>(u.1), src.rows::<16>(v.0), src.rows::<16>(v.1)],
        Addr::Bits(_) => [src.cols::<32>(u.0), src.cols::<32>(u.1), src.rows::<32>(v.0), src.rows::<32>(v.1)],
        Addr::Block(bytes) => {
            let col = |u: [u32; 4]| u.map(|u| dxt_col(u, bytes));
            let row = |v: [u32; 4]| v.map(|v| dxt_row(src, v, bytes));
            [col(u.0), col(u.1), row(v.0), row(v.1)]
        }
    }
}

/// The four tap offsets of lane `i` from [`lane_offsets`], in [`Format::taps`] order.
#[inline(always)]
pub fn tap_offsets(terms: &[[u32; 4]; 4], i: usize) -> [u32; 4] {
    let [c0, c1, r0, r1] = terms;
    [r0[i].wrapping_add(c0[i]), r0[i].wrapping_add(c1[i]), r1[i].wrapping_add(c0[i]), r1[i].wrapping_add(c1[i])]
}

/// The last DXT1 block the bilinear taps decoded: its byte offset in the level, its bytes
/// and its colours ([`super::dxt::dxt1_palette`]). The lanes of a quad (and the fragments
/// of a span row) mostly read the same block; the memo lives while the level's memory is
/// borrowed, so an equal offset means equal bytes. The default offset is one no tap has
/// (texel coordinates are at most 511 and buffer widths 0x7FF: block offsets stay below
/// 2^20).
#[derive(Clone, Copy)]
pub struct BlockMemo {
    pub(super) at: u32,
    pub(super) block: [u8; 8],
    pub(super) colours: [u64; 4],
}

impl Default for BlockMemo {
    fn default() -> Self {
        BlockMemo { at: u32::MAX, block: [0; 8], colours: [0; 4] }
    }
}

/// One texture format: how to fetch texel (u, v) of a level.
pub trait Format {
    /// The reference fetch.
    fn texel(src: &LevelSrc, u: u32, v: u32) -> [u8; 4];

    /// [`Format::texel`], through the CLUT table where there is one (the samplers' fetch).
    #[inline]
    fn fetch(src: &LevelSrc, u: u32, v: u32) -> [u8; 4] {
        Self::texel(src, u, v)
    }

    /// [`Format::fetch`] of four texels (the nearest filter's lanes): the common formats
    /// address the four as lanes and read them with one range check
    /// ([`LevelSrc::bytes4`]); the others fetch lane by lane. Equal to [`Format::texel`]
    /// per lane (`fetch4_equals_texel`).
    #[inline(always)]
    fn fetch4(src: &LevelSrc, u: [u32; 4], v: [u32; 4]) -> [[u8; 4]; 4] {
        // A loop, not `array::from_fn` (whose closure stayed a call per lane).
        let mut out = [[0u8; 4]; 4];
        for i in 0..4 {
            out[i] = Self::fetch(src, u[i], v[i]);
        }
        out
    }

    /// [`spread`]`(`[`Format::texel`]`)`, the bilinear filter's tap.
    #[inline]
    fn tap(src: &LevelSrc, u: u32, v: u32) -> u64 {
        spread(Self::texel(src, u, v))
    }

    /// The addressing, for [`lane_offsets`].
    const ADDR: Addr;

    /// [`Format::tap`] of texel (u, v) at byte offset `off` (from [`lane_offsets`]);
    /// CLUT formats apply the level's palette offset only when `FIRST`.
    fn tap_at<const FIRST: bool>(src: &LevelSrc, off: u32, u: u32, v: u32) -> u64;

    /// The four taps of a bilinear lane, `[(u0, v0), (u1, v0), (u0, v1), (u1, v1)]` at
    /// byte offsets `off`: the first with the level's palette offset, the rest without,
    /// as `filter::bilinear_at` reads them. `memo` is DXT1's last decoded block (others
    /// leave it alone).
    #[inline(always)]
    fn taps(
        src: &LevelSrc,
        off: [u32; 4],
        (u0, u1): (u32, u32),
        (v0, v1): (u32, u32),
        _memo: &mut BlockMemo,
    ) -> [u64; 4] {
        [
            Self::tap_at::<true>(src, off[0], u0, v0),
            Self::tap_at::<false>(src, off[1], u1, v0),
            Self::tap_at::<false>(src, off[2], u0, v1),
            Self::tap_at::<false>(src, off[3], u1, v1),
        ]
    }
}

pub struct F565;
pub struct F5551;
pub struct F4444;
pub struct F8888;
pub struct FClut4;
pub struct FClut8;
pub struct FClut16;
pub struct FClut32;
pub struct FInvalid;

#[inline]
fn u16_at(src: &LevelSrc, u: u32, v: u32) -> u16 {
    u16::from_le_bytes(src.bytes::<2>(src.offset::<16>(u, v)))
}

#[inline]
fn u32_at(src: &LevelSrc, u: u32, v: u32) -> u32 {
    u32::from_le_bytes(src.bytes::<4>(src.offset::<32>(u, v)))
}

impl Format for F565 {
    #[inline(always)]
    fn fetch4(src: &LevelSrc, u: [u32; 4], v: [u32; 4]) -> [[u8; 4]; 4] {
        src.bytes4::<2>(src.offsets4::<16>(u, v)).map(|b| rgb565(u16::from_le_bytes(b)))
    }
    const ADDR: Addr = Addr::Bits(16);
    /// The four byte pairs read with one range check ([`LevelSrc::bytes4`]).
    #[inline(always)]
    fn taps(src: &LevelSrc, off: [u32; 4], _: (u32, u32), _: (u32, u32), _: &mut BlockMemo) -> [u64; 4] {
        src.bytes4::<2>(off).map(|b| spread(rgb565(u16::from_le_bytes(b))))
    }
    #[inline(always)]
    fn tap_at<const FIRST: bool>(src: &LevelSrc, off: u32, _: u32, _: u32) -> u64 {
        spread(rgb565(u16::from_le_bytes(src.bytes::<2>(off))))
    }
    #[inline]
    fn texel(src: &LevelSrc, u: u32, v: u32) -> [u8; 4] {
        rgb565(u16_at(src, u, v))
    }
}
impl Format for F5551 {
    #[inline(always)]
    fn fetch4(src: &LevelSrc, u: [u32; 4], v: [u32; 4]) -> [[u8; 4]; 4] {
        src.bytes4::<2>(src.offsets4::<16>(u, v)).map(|b| rgba5551(u16::from_le_bytes(b)))
    }
    const ADDR: Addr = Addr::Bits(16);
    /// As `F565::taps`.
    #[inline(always)]
    fn taps(src: &LevelSrc, off: [u32; 4], _: (u32, u32), _: (u32, u32), _: &mut BlockMemo) -> [u64; 4] {
        src.bytes4::<2>(off).map(|b| spread(rgba5551(u16::from_le_bytes(b))))
    }
    #[inline(always)]
    fn tap_at<const FIRST: bool>(src: &LevelSrc, off: u32, _: u32, _: u32) -> u64 {
        spread(rgba5551(u16::from_le_bytes(src.bytes::<2>(off))))
    }
    #[inline]
    fn texel(src: &LevelSrc, u: u32, v: u32) -> [u8; 4] {
        rgba5551(u16_at(src, u, v))
    }
}
/// [`spread`]`(`[`rgba4444`]`(v))`: the nibbles spread straight to 16-bit lanes and
/// multiplied by 17 at once (`rgba4444_is_each_nibble_times_17`).
#[inline(always)]
fn spread4444(v: u16) -> u64 {
    let v = v as u64;
    ((v & 0xF) | (v & 0xF0) << 12 | (v & 0xF00) << 24 | (v & 0xF000) << 36) * 17
}

impl Format for F4444 {
    #[inline(always)]
    fn fetch4(src: &LevelSrc, u: [u32; 4], v: [u32; 4]) -> [[u8; 4]; 4] {
        src.bytes4::<2>(src.offsets4::<16>(u, v)).map(|b| rgba4444(u16::from_le_bytes(b)))
    }
    const ADDR: Addr = Addr::Bits(16);
    /// As `F565::taps`.
    #[inline(always)]
    fn taps(src: &LevelSrc, off: [u32; 4], _: (u32, u32), _: (u32, u32), _: &mut BlockMemo) -> [u64; 4] {
        src.bytes4::<2>(off).map(|b| spread4444(u16::from_le_bytes(b)))
    }
    #[inline(always)]
    fn tap_at<const FIRST: bool>(src: &LevelSrc, off: u32, _: u32, _: u32) -> u64 {
        spread4444(u16::from_le_bytes(src.bytes::<2>(off)))
    }
    #[inline]
    fn texel(src: &LevelSrc, u: u32, v: u32) -> [u8; 4] {
        rgba4444(u16_at(src, u, v))
    }
}
impl Format for F8888 {
    #[inline(always)]
    fn fetch4(src: &LevelSrc, u: [u32; 4], v: [u32; 4]) -> [[u8; 4]; 4] {
        src.bytes4::<4>(src.offsets4::<32>(u, v))
    }
    const ADDR: Addr = Addr::Bits(32);
    /// As `F565::taps`.
    #[inline(always)]
    fn taps(src: &LevelSrc, off: [u32; 4], _: (u32, u32), _: (u32, u32), _: &mut BlockMemo) -> [u64; 4] {
        src.bytes4::<4>(off).map(spread)
    }
    #[inline(always)]
    fn tap_at<const FIRST: bool>(src: &LevelSrc, off: u32, _: u32, _: u32) -> u64 {
        spread(src.bytes::<4>(off))
    }
    #[inline]
    fn texel(src: &LevelSrc, u: u32, v: u32) -> [u8; 4] {
        src.bytes::<4>(src.offset::<32>(u, v))
    }
}
/// Byte offset of the 4x4 block holding (u, v): rows of bufw/4 blocks. Swizzling does not
/// apply to DXT [PP SamplerX86.cpp Jit_GetDXT1Color, Jit_PrepareDataDXTOffsets].
#[inline]
pub(super) fn dxt_block(src: &LevelSrc, u: u32, v: u32, block_bytes: u32) -> u32 {
    dxt_row(src, v, block_bytes).wrapping_add(dxt_col(u, block_bytes))
}

/// The part of [`dxt_block`] from the column `u`.
#[inline(always)]
fn dxt_col(u: u32, block_bytes: u32) -> u32 {
    (u >> 2).wrapping_mul(block_bytes)
}

/// The part of [`dxt_block`] from the row `v`.
#[inline(always)]
fn dxt_row(src: &LevelSrc, v: u32, block_bytes: u32) -> u32 {
    (v >> 2).wrapping_mul(src.bufw >> 2).wrapping_mul(block_bytes)
}

impl Format for FInvalid {
    const ADDR: Addr = Addr::Bits(32);
    #[inline(always)]
    fn tap_at<const FIRST: bool>(_: &LevelSrc, _: u32, _: u32, _: u32) -> u64 {
        0
    }
    #[inline]
    fn texel(_: &LevelSrc, _: u32, _: u32) -> [u8; 4] {
        [0; 4]
    }
}

/// PPSSPP's `Memory::IsValidTextureAddress`: RAM or VRAM (not the scratchpad). Texture
/// addresses are 16-byte aligned by construction.
pub fn is_valid_texture_address(addr: u32) -> bool {
    matches!(Memory::locate(addr), Some((Region::Ram | Region::Vram, _)))
}

mod clut;

#[cfg(test)]
mod tests;
