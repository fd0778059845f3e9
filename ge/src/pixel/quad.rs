//! Quad kernels: the pixel pipeline for the 2x2 fragment blocks of triangles, specialised
//! once per draw on the state that decides which stages run.
//!
//! [`select`] picks the drawer once per draw (the caller keeps the function pointer).
//! Normal-mode draws without logic op whose stencil stage writes nothing where a fragment
//! fails and a constant or the old stencil where it passes (no stencil; KEEP on failure
//! and ZERO, REPLACE or KEEP on pass: `quad_stencil_bits`; the usual textured triangle, a
//! transparent PopCap canvas, 21763 test drive's stencil masks) go through
//! [`kernel`], monomorphised per framebuffer format and on three switches: depth test,
//! depth write, blend (none, the usual source-alpha blend inlined, any other); the
//! disabled stages are compiled out and the colour and depth
//! offsets are computed only for fragments that reach the stage needing them. Other
//! stencil states and logic op run [`kernel_tested`] (the fragment-only tests as lanes, the
//! rest lane by lane at the quad's offsets). Clear mode runs [`draw_quad_plain`], the
//! fragment-by-fragment pipeline, which stays the reference: the property test in
//! `quad/tests.rs` checks the kernels equal it byte for byte over random pixel state, quads
//! and tile contents.
//!
//! The quad arrives as lanes (`geom::Quad`: depth, fog and coverage as arrays) and fog runs
//! on the four lanes at once ([`fog4`]). Measured (callgrind, whole `frametests --bench
//! --runs 1 --threads 1`, PPSSPP model) on 21763 test drive: fog as lanes 1 120.6 ->
//! 1 106.6 M instructions, [`kernel_tested`] for its stencil draws (100 k quads at about
//! 840 instructions each in the plain pipeline) 1 106.6 -> 1 097.4 M.
//!
//! Sharing one offset computation per quad row (the right fragment's word follows the left
//! one's) was tried per fragment and measured slower: the layout check and the bounds check
//! of the derived offset cost as much as `Tile::color_offset` itself, and computing offsets
//! before the alpha test charged rejected fragments (16131 shinsengumi +3.6% instructions).
//! (The lane kernel below now does share it, per quad: there one check covers the quad's
//! two rows, see the last paragraph.)
//!
//! Measured (callgrind instructions, whole process, `frametests DIR --bench --runs 1
//! --threads 1`, each dump's own model): 15826 hot pixel 223.4 -> 210.8 M, 16131 shinsengumi
//! 533.0 -> 521.3 M, 14146 gachitora 1 400.8 -> 1 337.1 M, 21763 test drive
//! 1 823.9 -> 1 782.8 M.
//!
//! A quad wholly inside the tile then runs as lanes (`kernel`, `Lanes`): the depth range,
//! alpha and depth tests as `wide` lane compares turned into a bit mask of live lanes
//! (`Compare::test_lanes`, one match per quad; the tile's two depth samples per row read as
//! one word), offsets from the quad's corner, then blend, dither, clamp, pack and write
//! mask on the four lanes at once ([`colour_words4`]: sixteen 16-bit lanes, the blend terms
//! as 16-bit high products, `blend::Blend::apply4`) and only the live lanes stored (now:
//! rows stored whole, below). Measured (callgrind, whole `frametests --bench --runs 1
//! --threads 1`): 15826 hot pixel 108.8 -> 104.2 M instructions, 16131 137.9 -> 136.1 M
//! (PPSSPP model); nba-2k12 269.8 -> 253.7 M (hardware model). Unblended, undithered quads
//! then kept packing per live lane: as lanes they cost 21763 test drive 2.3 M more (with
//! per-lane stores). Draws without depth test or write take the lanes from the colour
//! offsets alone (`Tile::quad_color_rows`), also in bands without depth rows. Measured
//! (callgrind, `replay -o`, 1 thread, PPSSPP / hardware model, whole process, after the
//! triangle walk went to explicit lanes): 15826 hot pixel 148.8 / 151.2 -> 135.7 / 137.0 M
//! instructions, 16131 171.8 / 182.2 -> 166.1 / 176.3 M, 21763 1 303.9 / 1 281.3 -> 1 287.2
//! / 1 263.2 M. A first lane version (`[u16; 4]` arrays and `map`s, compares per lane) made
//! 21763's kernel 8 M instructions dearer than the fragment loop: the array `map`s were not
//! inlined. Live lanes kept as `[bool; 4]` cost more than the fragment loop too (16131 +13
//! M); bit masks compile to straight-line code.
//!
//! The quad is addressed as two rows (`Tile::quad_rows`: one offset per row, lanes 1 and 3
//! follow lanes 0 and 2), read and written whole: the old colour words once per quad (for
//! stencil test and blend), each depth row as one word, written back with its live lanes'
//! depths merged in (`LANE_MASK16`), and each colour row stored with the new words of its
//! live lanes and the old words of the others, all four lanes through [`colour_words4`]
//! (also unblended ones). No per-lane loop, index or bounds check is left. Measured
//! (callgrind, whole `frametests --bench --runs 1 --threads 1`, base cefdd32): 15826 hot
//! pixel 90.0 -> 84.1 M instructions, 16131 119.3 -> 115.1 M, 21763 932.9 -> 906.1 M,
//! 15875 1 048.0 -> 1 031.5 M (PPSSPP model); nba-2k12 230.6 -> 209.4 M, 19960 650.5 ->
//! 633.6 M (hardware model). A first version that kept the per-lane loop for unblended
//! quads (into an array indexed by lane) and built the rows with array `map`s was dearer
//! than the base: 15826 93.2 M, nba-2k12 232.4 M.

use super::blend::{source_over, source_over4, widen};
use super::format::FbPixel;
use super::{
    colour_test, dither_at, dither_clamp, draw, draw_tested_at, fragment_tests, quad_stencil_bits, stencil_passes,
    Compare, PixelState,
};
use crate::geom::Quad;
use crate::tile::Tile;
use bytemuck::cast;
use wide::{i16x8, i32x4, u16x8, u32x4, u8x16};

/// The reference: [`super::draw_pixel`] for each covered lane, in lane order.
#[inline]
pub(crate) fn draw_quad_plain<F: FbPixel>(st: &PixelState, tile: &mut Tile, q: &Quad, colors: &[[u8; 4]; 4]) {
    for (i, c) in colors.iter().enumerate() {
        if q.mask & (1 << i) != 0 {
            let (x, y) = (q.x + (i & 1) as i32, q.y + (i >> 1) as i32);
            draw::<F>(st, tile, x, y, q.z[i], *c, q.fog[i]);
        }
    }
}

/// A quad drawer: `(state, tile, quad (its lanes' depth, fog and coverage), colours)`.
pub type QuadKernel = fn(&PixelState, &mut Tile, &Quad, &[[u8; 4]; 4]);

/// The kernel for this state, chosen once per draw: the plain pipeline for clear mode,
/// [`kernel_tested`] for logic op and a stencil op writing a varying value or on failure,
/// else the kernel specialised on depth test, depth write and blend.
pub(crate) fn select<F: FbPixel>(st: &PixelState) -> QuadKernel {
    if st.clear {
        return draw_quad_plain::<F>;
    }
    if st.logic.is_some() || quad_stencil_bits::<F>(st).is_none() {
        return kernel_tested::<F>;
    }
    let ztest = st.depth_func != Compare::Always;
    let blend = match &st.blend {
        None => NO_BLEND,
        Some(b) if b.is_source_over() => SOURCE_OVER,
        Some(_) => ANY_BLEND,
    };
    macro_rules! by_blend {
        ($z:literal, $w:literal) => {
            match blend {
                NO_BLEND => kernel::<F, $z, $w, NO_BLEND>,
                SOURCE_OVER => kernel::<F, $z, $w, SOURCE_OVER>,
                _ => kernel::<F, $z, $w, ANY_BLEND>,
            }
        };
    }
    match (ztest, st.depth_write) {
        (false, false) => by_blend!(false, false),
        (false, true) => by_blend!(false, true),
        (true, false) => by_blend!(true, false),
        (true, true) => by_blend!(true, true),
    }
}

/// The `BLEND` parameter of [`kernel`]: no blend, [`super::blend::source_over`], any other.
pub(super) const NO_BLEND: u8 = 0;
pub(super) const SOURCE_OVER: u8 = 1;
pub(super) const ANY_BLEND: u8 = 2;

/// Normal mode, no logic op, a stencil stage of `quad_stencil_bits`: depth range, fragment
/// tests, stencil test (a discard), depth test (`ZTEST`), depth write (`ZWRITE`), blend
/// (`BLEND`), dither, write mask; the alpha / stencil bits are `quad_stencil_bits`' (the
/// old word's, all ones under `logic_sets_alpha`, or the stencil constant), as in
/// `draw_tested`.
///
/// 21763 test drive draws most of its stencil quads this way (5551, stencil ALWAYS / ZERO
/// on pass with a depth test, and EQUAL with KEEP everywhere under source-over blend).
/// Measured (callgrind, `frametests --bench --runs 1 --threads 1`, replay thread): 21763
/// PPSSPP model 900.8 -> 890.9 M instructions (its stencil quads were 70 M in
/// `kernel_tested`); the extra per-quad check costs nba-2k12 (hardware) 239.3 -> 241.6 M
/// and 15826 90.5 -> 91.2 M. As a const switch of the kernel, with band-edge quads as lanes
/// too, LLVM's inlining of the triangle walk moved and 21763 lost 10 M (902.3 M).
///
/// A quad whose four pixels lie inside the tile ([`Lanes::inside`]) runs as lanes:
/// the depth range, alpha test and depth test become a mask of live lanes (one match on
/// the state per quad, not per fragment), the colour and depth rows come from the
/// quad's corner, all four lanes are blended and the rows written whole, dead lanes with
/// their old words. The four pixels are distinct words (strides of at least 2), so taking
/// the lanes stage by stage instead of fragment by fragment reads and writes the same
/// values. Other quads (at the band or buffer edge, tiny strides) run
/// [`kernel_fragments`].
fn kernel<F: FbPixel, const ZTEST: bool, const ZWRITE: bool, const BLEND: u8>(
    st: &PixelState,
    tile: &mut Tile,
    q: &Quad,
    colors: &[[u8; 4]; 4],
) {
    let Some((alpha_bits, keep)) = quad_stencil_bits::<F>(st) else {
        return draw_quad_plain::<F>(st, tile, q, colors);
    };
    let (x, y) = (q.x, q.y);
    // Without depth test and write the depth rows are not needed (nor depth in the band).
    let at = if ZTEST || ZWRITE {
        Lanes::inside::<F>(tile, x, y)
    } else {
        tile.quad_color_rows(x, y, F::BYTES).map(|color| Lanes { color, depth: [0; 2] })
    };
    let Some(at) = at else {
        return kernel_fragments::<F, ZTEST, ZWRITE, BLEND>(st, tile, q, colors, alpha_bits, keep);
    };
    let z = i32x4::new(q.z.map(i32::from));
    let (mut live, c) = fragment_lanes(st, q, z, colors);
    if live == 0 {
        return;
    }
    // The four old words, two per row read through one slice each.
    let old = at.load_colours::<F>(tile);
    if st.stencil && st.stencil_func != Compare::Always {
        live &= stencil_lanes::<F>(st, old);
    }
    if ZTEST || ZWRITE {
        // Two depth samples per row, one 4-byte word each.
        let row = |o: usize| {
            let b = &tile.depth[o..o + 4];
            u32::from_le_bytes([b[0], b[1], b[2], b[3]])
        };
        let rows = [row(at.depth[0]), row(at.depth[1])];
        if ZTEST {
            let d = [rows[0] & 0xFFFF, rows[0] >> 16, rows[1] & 0xFFFF, rows[1] >> 16];
            live &= st.depth_func.test_lanes(z, cast(u32x4::new(d)));
        }
        if live == 0 {
            return;
        }
        if ZWRITE {
            // Each row word with its live lanes' depths, stored whole.
            let z: [u32; 4] = cast(z & i32x4::splat(0xFFFF));
            for r in 0..2 {
                let m = LANE_MASK16[usize::from(live >> (2 * r)) & 3];
                let w = (rows[r] & !m) | ((z[2 * r] | z[2 * r + 1] << 16) & m);
                let o = at.depth[r];
                tile.depth[o..o + 4].copy_from_slice(&w.to_le_bytes());
            }
        }
    }
    let dither = st
        .dither
        .as_ref()
        .map(|m| [dither_at(m, x, y), dither_at(m, x + 1, y), dither_at(m, x, y + 1), dither_at(m, x + 1, y + 1)]);
    let w = colour_words4::<F, BLEND>(st, &c, old, dither, alpha_bits, keep);
    // The live lanes' new words, the others' old ones: every row is stored whole.
    let pick = |i: usize| if live & (1 << i) != 0 { w[i] } else { old[i] };
    at.store_colours::<F>(tile, [pick(0), pick(1), pick(2), pick(3)]);
}

/// Per two live bits of a quad row (bit 0: left lane), the bits of its 16-bit lanes in
/// the row's word.
const LANE_MASK16: [u32; 4] = [0, 0xFFFF, 0xFFFF_0000, 0xFFFF_FFFF];

/// The stencil test on the four lanes of old words `old` (bit i set when lane i passes):
/// `(ref & mask) OP (stencil & mask)`, the stencil value being the alpha byte of
/// `FbPixel::dst_rgba4`.
#[inline(always)]
fn stencil_lanes<F: FbPixel>(st: &PixelState, old: [u32; 4]) -> u8 {
    let old = u32x4::new(old);
    let s: i32x4 = cast(F::dst_rgba4(old) >> 24);
    let mask = i32x4::splat(i32::from(st.stencil_mask));
    st.stencil_func.test_lanes(i32x4::splat(i32::from(st.stencil_ref_masked)), s & mask)
}

/// Blend (`BLEND`, as in [`kernel`]), dither, clamp, pack and write mask for one fragment:
/// the word a fragment of colour `c` at pixel (`x`, `y`) leaves on the word `old`, with
/// the alpha/stencil bits `alpha_bits` and the old word's bits `keep` (those of
/// `quad_stencil_bits` or `fixed_stencil_bits`); what `draw_tested_at` writes for it. `BLEND` must name
/// `st.blend`'s kind (none, source-over, other).
#[inline(always)]
pub(super) fn colour_word<F: FbPixel, const BLEND: u8>(
    st: &PixelState,
    c: [u8; 4],
    old: u32,
    (x, y): (i32, i32),
    alpha_bits: u32,
    keep: u32,
) -> u32 {
    let rgb = match &st.blend {
        Some(_) if BLEND == SOURCE_OVER => source_over(c, F::dst_rgba(old)),
        Some(b) if BLEND == ANY_BLEND => b.apply(c, F::dst_rgba(old)),
        _ => [c[0] as i32, c[1] as i32, c[2] as i32],
    };
    let new = (F::pack_rgb(dither_clamp(st, x, y, rgb)) | alpha_bits) & !keep;
    new | (old & keep)
}

/// [`colour_word`] for four fragments at once (`dither`: each lane's offset): lane by lane
/// the same words (checked by `kernels_equal_the_plain_pipeline`, `spans_equal_quads`,
/// `apply4_equals_apply` and `lane_conversions_equal_the_scalar_ones`).
#[inline(always)]
pub(super) fn colour_words4<F: FbPixel, const BLEND: u8>(
    st: &PixelState,
    c: &[[u8; 4]; 4],
    old: [u32; 4],
    dither: Option<[i8; 4]>,
    alpha_bits: u32,
    keep: u32,
) -> [u32; 4] {
    let s = u8x16::new(cast(*c));
    let old = u32x4::new(old);
    let rgb = match &st.blend {
        Some(_) if BLEND == SOURCE_OVER => source_over4(s, cast(F::dst_rgba4(old))),
        Some(b) if BLEND == ANY_BLEND => b.apply4(s, cast(F::dst_rgba4(old))),
        // Bytes need no clamp: without dither they are the colour.
        _ if dither.is_none() => return merge4::<F>(cast(s), old, alpha_bits, keep),
        _ => widen(s),
    };
    let (lo, hi): (i16x8, i16x8) = (cast(rgb[0]), cast(rgb[1]));
    let (lo, hi) = match dither {
        Some(d) => {
            let d = d.map(i16::from);
            (
                lo + i16x8::new([d[0], d[0], d[0], 0, d[1], d[1], d[1], 0]),
                hi + i16x8::new([d[2], d[2], d[2], 0, d[3], d[3], d[3], 0]),
            )
        }
        None => (lo, hi),
    };
    // Saturating narrow: the clamp to 0..=255 of `dither_clamp`.
    merge4::<F>(cast(u8x16::narrow_i16x8(lo, hi)), old, alpha_bits, keep)
}

/// The written words of four clamped colours `rgb` (bytes r, g, b, ignored per lane).
#[inline(always)]
fn merge4<F: FbPixel>(rgb: u32x4, old: u32x4, alpha_bits: u32, keep: u32) -> [u32; 4] {
    let new = (F::pack_rgb4(rgb) | alpha_bits) & !keep;
    (new | (old & keep)).to_array()
}

/// The stages that read only the fragment, as lanes: the lanes of `q` (depths `z`) that
/// pass the depth range, alpha test and colour test (bit i: lane i live), and the colours
/// after fog.
#[inline(always)]
fn fragment_lanes(st: &PixelState, q: &Quad, z: i32x4, colors: &[[u8; 4]; 4]) -> (u8, [[u8; 4]; 4]) {
    let mut live = q.mask;
    if let Some((lo, hi)) = st.depth_range {
        let out = z.simd_lt(i32x4::splat(lo as i32)) | z.simd_gt(i32x4::splat(hi as i32));
        live &= !out.to_bitmask() as u8;
    }
    colour_lanes(st, live, q.fog, colors)
}

/// [`super::fragment_tests`] on four lanes (`live`: the lanes still drawn, `fog` their fog
/// factors): the alpha test, fog and colour test; the lanes of `live` that pass and the
/// colours after fog.
#[inline(always)]
pub(super) fn colour_lanes(st: &PixelState, mut live: u8, fog: [u8; 4], colors: &[[u8; 4]; 4]) -> (u8, [[u8; 4]; 4]) {
    if st.alpha_func != Compare::Always {
        // The four colours as little-endian words: alpha is the top byte of each lane.
        let rgba: i32x4 = cast(*colors);
        let a = (rgba >> 24) & i32::from(st.alpha_mask);
        live &= st.alpha_func.test_lanes(a, i32x4::splat(st.alpha_ref as i32));
    }
    let c = match st.fog {
        Some(fc) => fog4(colors, fog, fc),
        None => *colors,
    };
    if st.color_test.is_some() {
        for (i, ci) in c.iter().enumerate() {
            if live & (1 << i) != 0 && !colour_test(st, *ci) {
                live &= !(1 << i);
            }
        }
    }
    (live, c)
}

/// The fog of [`super::fog_colour_test`], `(c·F + fog·(255 − F) + 255) >> 8`, on the four
/// lanes at once as sixteen 16-bit lanes (at most 255·255 + 255: no overflow). The alpha
/// slots take F = 255 and fog colour 0, which leaves alpha as it is: (255·a + 255) >> 8 = a
/// for every byte a. Equal to the scalar fog per lane (`fog4_equals_fog`, and the kernels'
/// property test).
#[inline(always)]
pub(super) fn fog4(c: &[[u8; 4]; 4], f: [u8; 4], fc: [u8; 3]) -> [[u8; 4]; 4] {
    let c = u8x16::new(cast(*c));
    let (lo, hi) = (u16x8::from_u8x16_low(c), u16x8::from_u8x16_high(c));
    let factor = |a: u8, b: u8| u16x8::new([a, a, a, 255, b, b, b, 255].map(u16::from));
    let fog = u16x8::new([fc[0], fc[1], fc[2], 0, fc[0], fc[1], fc[2], 0].map(u16::from));
    let k = u16x8::splat(255);
    let mix = |c: u16x8, f: u16x8| (c * f + fog * (k - f) + k) >> 8;
    let out = u8x16::narrow_i16x8(cast(mix(lo, factor(f[0], f[1]))), cast(mix(hi, factor(f[2], f[3]))));
    cast(out)
}

/// Normal mode with a stencil op that writes a value depending on the old stencil or on
/// failure, or a logic op: for a quad wholly inside
/// the tile, the depth range, alpha test, fog and colour test as in [`kernel`]
/// ([`fragment_lanes`]), then the rest of the pipeline lane by lane in lane order at the
/// quad's offsets (`draw_tested_at`: stencil and depth tests, stencil op, depth write,
/// blend, dither, logic op, write mask). Other quads run the plain pipeline.
fn kernel_tested<F: FbPixel>(st: &PixelState, tile: &mut Tile, q: &Quad, colors: &[[u8; 4]; 4]) {
    let Some(at) = Lanes::inside::<F>(tile, q.x, q.y) else {
        return draw_quad_plain::<F>(st, tile, q, colors);
    };
    let (mut live, c) = fragment_lanes(st, q, i32x4::new(q.z.map(i32::from)), colors);
    while live != 0 {
        let i = live.trailing_zeros() as usize;
        live &= live - 1;
        let (x, y) = (q.x + (i & 1) as i32, q.y + (i >> 1) as i32);
        let (co, zo) = at.lane::<F>(i);
        draw_tested_at::<F>(st, tile, (Some(co), Some(zo)), x, y, q.z[i], c[i]);
    }
}

/// The byte offsets of a quad's two rows in the colour and depth buffers of a tile
/// ([`Tile::quad_rows`]): lanes 0 and 2 start them, lanes 1 and 3 follow.
struct Lanes {
    color: [usize; 2],
    depth: [usize; 2],
}

impl Lanes {
    /// The rows when all four pixels of the quad at (`x`, `y`) are inside `tile` (what
    /// `Tile::color_offset` and `Tile::depth_offset` accept for each) and are four distinct
    /// words in each buffer ([`Tile::quad_rows`]); `None` otherwise.
    #[inline(always)]
    fn inside<F: FbPixel>(tile: &Tile, x: i32, y: i32) -> Option<Lanes> {
        let (color, depth) = tile.quad_rows(x, y, F::BYTES)?;
        Some(Lanes { color, depth })
    }

    /// The colour and depth offsets of lane `i`.
    #[inline(always)]
    fn lane<F: FbPixel>(&self, i: usize) -> (usize, usize) {
        (self.color[i >> 1] + (i & 1) * F::BYTES, self.depth[i >> 1] + (i & 1) * 2)
    }

    /// The four colour words, lane order: one bounds check per row.
    #[inline(always)]
    fn load_colours<F: FbPixel>(&self, tile: &Tile) -> [u32; 4] {
        let (a, b) = (&tile.color[self.color[0]..][..2 * F::BYTES], &tile.color[self.color[1]..][..2 * F::BYTES]);
        [F::load(&a[..F::BYTES]), F::load(&a[F::BYTES..]), F::load(&b[..F::BYTES]), F::load(&b[F::BYTES..])]
    }

    /// Store the four colour words `w`, lane order, each row as one slice.
    #[inline(always)]
    fn store_colours<F: FbPixel>(&self, tile: &mut Tile, w: [u32; 4]) {
        for (r, &o) in self.color.iter().enumerate() {
            let row = &mut tile.color[o..o + 2 * F::BYTES];
            let (left, right) = row.split_at_mut(F::BYTES);
            F::store(left, w[2 * r]);
            F::store(right, w[2 * r + 1]);
        }
    }
}

/// [`kernel`] fragment by fragment through the tile's checked offsets (quads not wholly
/// inside the tile).
#[inline(never)]
fn kernel_fragments<F: FbPixel, const ZTEST: bool, const ZWRITE: bool, const BLEND: u8>(
    st: &PixelState,
    tile: &mut Tile,
    q: &Quad,
    colors: &[[u8; 4]; 4],
    alpha_bits: u32,
    keep: u32,
) {
    for (i, &colour) in colors.iter().enumerate() {
        if q.mask & (1 << i) == 0 {
            continue;
        }
        let (x, y, z) = (q.x + (i & 1) as i32, q.y + (i >> 1) as i32, q.z[i]);
        if let Some((lo, hi)) = st.depth_range {
            if z < lo || z > hi {
                continue;
            }
        }
        let Some(c) = fragment_tests(st, colour, q.fog[i]) else { continue };
        if st.stencil && !stencil_passes::<F>(st, tile.read_color_at(tile.color_offset(x, y))) {
            continue;
        }
        let zo = tile.depth_offset(x, y);
        if ZTEST && !st.depth_func.test(z, tile.read_depth_at(zo)) {
            continue;
        }
        if ZWRITE {
            tile.write_depth_at(zo, z);
        }
        let co = tile.color_offset(x, y);
        let old = tile.read_color_at(co);
        tile.write_color_at(co, colour_word::<F, BLEND>(st, c, old, (x, y), alpha_bits, keep));
    }
}

#[cfg(test)]
mod tests;
