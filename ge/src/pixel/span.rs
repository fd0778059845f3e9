//! Row spans: the pixel pipeline for runs of fragments on one row that share depth and
//! fog (rectangles are flat, ge-reference §9.3), with what is constant along the row
//! decided once per span instead of once per fragment.
//!
//! * [`draw_span`]: each fragment has its own colour (textured rows); the format is matched
//!   once; without depth test, logic op or a stencil result that varies the row is written
//!   straight through its bytes, four fragments at a time: the fragment tests as lanes
//!   (`quad::colour_lanes`), then blend, dither, pack and write mask as lanes
//!   (`quad::colour_words4`), the last one to three fragments one by one. Otherwise every
//!   fragment runs the plain pipeline (`draw`). Measured (callgrind, whole replay, 1
//!   thread, PPSSPP model): 20204 beam 'em up 196.5 -> 172.6 M, 15816 125.1 -> 108.6 M.
//! * [`fill_span`]: one colour for the whole row (untextured rectangles, clears). The depth
//!   range, alpha, fog and colour tests then give one answer for the row, and when no
//!   per-pixel test or read-modify-write stage remains (clear mode writing colour, or
//!   normal mode without stencil, depth test, blend or logic op) the row is a fill of at
//!   most four words (the dither pattern) merged with the protected bits of the old word,
//!   64 bytes a store, or 16 bytes at a time when bits are kept (`merge_pattern`). A
//!   blend without depth test, logic op or varying stencil result blends the row four
//!   pixels at a time (`blend_row`). Stencil-only and depth-only clears are a depth fill
//!   and the stencil bits merged 16 bytes at a time (`stencil_clear_row`). Otherwise every
//!   fragment runs the rest of the plain pipeline.
//!
//! Both equal `draw_pixel` fragment by fragment (property test in `draw::span`); the
//! fill is what makes full-screen clears cost a memory pass rather than a pipeline pass.

use super::format::FbPixel;
use super::quad::{colour_lanes, colour_word, colour_words4, ANY_BLEND, NO_BLEND, SOURCE_OVER};
use super::{
    dither_at, dither_clamp, draw, draw_tested, fixed_stencil_bits, fragment_tests, unstenciled_bits, Compare,
    PixelState, Rgb565, Rgba4444, Rgba5551, Rgba8888,
};
use crate::tile::{FbFormat, Tile};

/// Draw fragments `x0, x0 + 1, …` of row `y`, fragment i with colour `colors[i]`, all with
/// depth `z` and fog factor `fog`: `draw_pixel` for each, in order.
pub fn draw_span(st: &PixelState, tile: &mut Tile, x0: i32, y: i32, z: u16, fog: u8, colors: &[[u8; 4]]) {
    match st.fmt {
        FbFormat::Rgb565 => draw_span_fmt::<Rgb565>(st, tile, x0, y, z, fog, colors),
        FbFormat::Rgba5551 => draw_span_fmt::<Rgba5551>(st, tile, x0, y, z, fog, colors),
        FbFormat::Rgba4444 => draw_span_fmt::<Rgba4444>(st, tile, x0, y, z, fog, colors),
        FbFormat::Rgba8888 => draw_span_fmt::<Rgba8888>(st, tile, x0, y, z, fog, colors),
    }
}

fn draw_span_fmt<F: FbPixel>(st: &PixelState, tile: &mut Tile, x0: i32, y: i32, z: u16, fog: u8, colors: &[[u8; 4]]) {
    // Without a varying stencil result, depth test or logic op a fragment reads only its
    // own colour word: the row is written straight through its bytes.
    let fixed = fixed_stencil_bits::<F>(st);
    let Some((alpha_bits, keep)) =
        fixed.filter(|_| !st.clear && st.depth_func == Compare::Always && st.logic.is_none() && x0 >= 0)
    else {
        for (x, &c) in (x0..).zip(colors) {
            draw::<F>(st, tile, x, y, z, c, fog);
        }
        return;
    };
    if let Some((lo, hi)) = st.depth_range {
        if z < lo || z > hi {
            return;
        }
    }
    // The usual alpha blend inlined (`source_over`), any other through `Blend::apply`.
    let over = st.blend.as_ref().is_some_and(|b| b.is_source_over());
    // No test, fog, blend or dither: every fragment passes and its word is its colour
    // packed with the fixed alpha/stencil bits (`dither_clamp` of bytes with no dither is
    // the identity), merged with the kept bits of the old word. Textured sprites without
    // blending, e.g. commands-basic.
    let plain = st.alpha_func == Compare::Always
        && st.fog.is_none()
        && st.color_test.is_none()
        && st.blend.is_none()
        && st.dither.is_none();
    for (k, run) in colors.chunks(64).enumerate() {
        let x0 = x0 + 64 * k as i32;
        let x1 = x0 + run.len() as i32 - 1;
        if plain {
            if let Some(row) = tile.color_span_mut(x0, x1, y) {
                let pixels = row.chunks_exact_mut(F::BYTES).zip(run);
                if keep == 0 {
                    for (px, c) in pixels {
                        F::store(px, F::pack_rgb([c[0], c[1], c[2]]) | alpha_bits);
                    }
                } else {
                    for (px, c) in pixels {
                        let new = (F::pack_rgb([c[0], c[1], c[2]]) | alpha_bits) & !keep;
                        F::store(px, new | (F::load(px) & keep));
                    }
                }
            }
            if st.depth_write {
                if let Some(row) = tile.depth_span_mut(x0, x1, y) {
                    fill_depth(row, z);
                }
            }
            continue;
        }
        // Bit i: fragment x0 + i passed the fragment tests and was written.
        let mut drawn = 0u64;
        if let Some(row) = tile.color_span_mut(x0, x1, y) {
            let on = (st, alpha_bits, keep);
            drawn = match &st.blend {
                None => draw_run::<F, NO_BLEND>(on, row, run, (x0, y), fog),
                Some(_) if over => draw_run::<F, SOURCE_OVER>(on, row, run, (x0, y), fog),
                Some(_) => draw_run::<F, ANY_BLEND>(on, row, run, (x0, y), fog),
            };
        }
        if !st.depth_write {
            continue;
        }
        // Fragments outside the colour buffer still write depth (separate buffers).
        if let Some(row) = tile.depth_span_mut(x0, x1, y) {
            for (i, (d, &c)) in row.chunks_exact_mut(2).zip(run).enumerate() {
                if drawn & (1 << i) != 0 || fragment_tests(st, c, fog).is_some() {
                    d.copy_from_slice(&z.to_le_bytes());
                }
            }
        }
    }
}

/// The colour part of [`draw_span_fmt`] for one run of at most 64 fragments starting at
/// (`x0`, `y`) whose colour words are `row` (a prefix of the run): the fragment tests, blend
/// (`BLEND`, as in the quad kernel), dither, write mask and store, four fragments at a time
/// (`quad::colour_lanes`, `quad::colour_words4`), the last one to three one by one. Bit i of
/// the result: fragment i was written.
#[inline(always)]
fn draw_run<F: FbPixel, const BLEND: u8>(
    (st, alpha_bits, keep): (&PixelState, u32, u32),
    row: &mut [u8],
    run: &[[u8; 4]],
    (x0, y): (i32, i32),
    fog: u8,
) -> u64 {
    let mut drawn = 0u64;
    let n = (row.len() / F::BYTES).min(run.len());
    let (quads, rest) = row[..n * F::BYTES].split_at_mut(n / 4 * 4 * F::BYTES);
    for (j, px) in quads.chunks_exact_mut(4 * F::BYTES).enumerate() {
        let j = 4 * j;
        let c: &[[u8; 4]; 4] = run[j..j + 4].try_into().unwrap();
        let (mut live, c) = colour_lanes(st, 15, [fog; 4], c);
        if live == 0 {
            continue;
        }
        drawn |= u64::from(live) << j;
        let old = std::array::from_fn(|i| F::load(&px[i * F::BYTES..]));
        let new = colour_words4::<F, BLEND>(st, &c, old, row_dither(st, x0 + j as i32, y), alpha_bits, keep);
        while live != 0 {
            let i = live.trailing_zeros() as usize;
            live &= live - 1;
            F::store(&mut px[i * F::BYTES..(i + 1) * F::BYTES], new[i]);
        }
    }
    let j0 = n / 4 * 4;
    for (i, (px, &c)) in rest.chunks_exact_mut(F::BYTES).zip(&run[j0..]).enumerate() {
        let Some(c) = fragment_tests(st, c, fog) else { continue };
        let x = x0 + (j0 + i) as i32;
        F::store(px, colour_word::<F, BLEND>(st, c, F::load(px), (x, y), alpha_bits, keep));
        drawn |= 1 << (j0 + i);
    }
    drawn
}

/// The dither offsets of pixels `x..x + 4` of row `y` (`None` without dither).
#[inline(always)]
fn row_dither(st: &PixelState, x: i32, y: i32) -> Option<[i8; 4]> {
    st.dither.as_ref().map(|m| std::array::from_fn(|i| dither_at(m, x + i as i32, y)))
}

/// A blended fill: every pixel of `row` (the colour words of pixels `x0, x0 + 1, …` of row
/// `y`) gets colour `c` blended (`BLEND`, as in the quad kernel) over it, dithered, with
/// the alpha/stencil bits `alpha_bits` and the old word's bits `keep`, four pixels at a
/// time (`quad::colour_words4`), the last one to three one by one.
#[inline(always)]
fn blend_row<F: FbPixel, const BLEND: u8>(
    (st, alpha_bits, keep): (&PixelState, u32, u32),
    row: &mut [u8],
    c: [u8; 4],
    (x0, y): (i32, i32),
) {
    let mut quads = row.chunks_exact_mut(4 * F::BYTES);
    let mut x = x0;
    for px in &mut quads {
        let old = std::array::from_fn(|i| F::load(&px[i * F::BYTES..]));
        let new = colour_words4::<F, BLEND>(st, &[c; 4], old, row_dither(st, x, y), alpha_bits, keep);
        for (w, px) in new.into_iter().zip(px.chunks_exact_mut(F::BYTES)) {
            F::store(px, w);
        }
        x += 4;
    }
    for px in quads.into_remainder().chunks_exact_mut(F::BYTES) {
        F::store(px, colour_word::<F, BLEND>(st, c, F::load(px), (x, y), alpha_bits, keep));
        x += 1;
    }
}

/// Draw fragments `x0..=x1` of row `y`, all with colour `color`, depth `z` and fog factor
/// `fog`: `draw_pixel` for each.
#[allow(clippy::too_many_arguments)]
pub fn fill_span(st: &PixelState, tile: &mut Tile, x0: i32, x1: i32, y: i32, z: u16, fog: u8, color: [u8; 4]) {
    match st.fmt {
        FbFormat::Rgb565 => fill_span_fmt::<Rgb565>(st, tile, x0, x1, y, z, fog, color),
        FbFormat::Rgba5551 => fill_span_fmt::<Rgba5551>(st, tile, x0, x1, y, z, fog, color),
        FbFormat::Rgba4444 => fill_span_fmt::<Rgba4444>(st, tile, x0, x1, y, z, fog, color),
        FbFormat::Rgba8888 => fill_span_fmt::<Rgba8888>(st, tile, x0, x1, y, z, fog, color),
    }
}

#[allow(clippy::too_many_arguments)]
fn fill_span_fmt<F: FbPixel>(
    st: &PixelState,
    tile: &mut Tile,
    x0: i32,
    x1: i32,
    y: i32,
    z: u16,
    fog: u8,
    color: [u8; 4],
) {
    // Negative x is outside every tile (`Tile::color_offset`).
    let x0 = x0.max(0);
    if x1 < x0 {
        return;
    }
    if let Some((lo, hi)) = st.depth_range {
        if z < lo || z > hi {
            return;
        }
    }
    // (colour after the fragment stages, alpha/stencil bits written, depth written)
    let (c, alpha_bits, keep, write_depth) = if st.clear {
        if !st.clear_color {
            stencil_clear_row::<F>(st, tile, (x0, x1, y), z, color[3]);
            return;
        }
        if st.clear_stencil {
            (color, F::pack_stencil(color[3]), st.write_mask, st.clear_depth)
        } else {
            (color, 0, st.write_mask | F::STENCIL_BITS, st.clear_depth)
        }
    } else {
        let Some(c) = fragment_tests(st, color, fog) else { return };
        // A blend without depth test, logic op or varying stencil result: every pixel
        // passes and reads only its own word (the blended full-screen fills of 10914).
        let fixed = fixed_stencil_bits::<F>(st).filter(|_| st.depth_func == Compare::Always && st.logic.is_none());
        if let (Some(b), Some((alpha_bits, keep))) = (&st.blend, fixed) {
            if st.depth_write {
                if let Some(row) = tile.depth_span_mut(x0, x1, y) {
                    fill_depth(row, z);
                }
            }
            if let Some(row) = tile.color_span_mut(x0, x1, y) {
                let on = (st, alpha_bits, keep);
                if b.is_source_over() {
                    blend_row::<F, SOURCE_OVER>(on, row, c, (x0, y));
                } else {
                    blend_row::<F, ANY_BLEND>(on, row, c, (x0, y));
                }
            }
            return;
        }
        if st.stencil || st.depth_func != Compare::Always || st.blend.is_some() || st.logic.is_some() {
            for x in x0..=x1 {
                draw_tested::<F>(st, tile, x, y, z, c);
            }
            return;
        }
        let (alpha_bits, keep) = unstenciled_bits::<F>(st);
        (c, alpha_bits, keep, st.depth_write)
    };
    if write_depth {
        if let Some(row) = tile.depth_span_mut(x0, x1, y) {
            fill_depth(row, z);
        }
    }
    let rgb = [c[0] as i32, c[1] as i32, c[2] as i32];
    // One word per x & 3 (the dither column); `x0 & 3` first.
    let words: [u32; 4] = std::array::from_fn(|i| {
        let x = x0 + i as i32;
        let w = F::pack_rgb(dither_clamp(st, x, y, rgb)) | alpha_bits;
        w & !keep
    });
    let Some(row) = tile.color_span_mut(x0, x1, y) else { return };
    // The four dither columns as 16 bytes (four 32-bit or eight 16-bit words), and the
    // kept bits likewise: whole pixels of either size, so the bytes repeat every 16.
    let (mut pattern, mut kept) = ([0u8; 16], [0u8; 16]);
    for (i, (px, k)) in pattern.chunks_exact_mut(F::BYTES).zip(kept.chunks_exact_mut(F::BYTES)).enumerate() {
        F::store(px, words[i & 3]);
        F::store(k, keep);
    }
    if keep == 0 {
        // Nothing of the old pixel survives.
        fill_pattern(row, &pattern);
    } else {
        merge_pattern(row, &pattern, &kept);
    }
}

/// A stencil-only or depth-only clear of pixels `x0..=x1` of row `y` (x0 ≥ 0): what
/// `draw_clear` leaves on each, as a depth fill and the stencil bits merged into the
/// colour words 16 bytes at a time (`stencil::write_stencil_only` of the vertex alpha `s`:
/// the same bits in every word). Per pixel through `draw_clear` these rows cost 19960 GTA
/// (hardware model) 16.2 M instructions (callgrind, replay thread 703.1 -> 686.7 M with
/// the stencil quad kernel).
fn stencil_clear_row<F: FbPixel>(st: &PixelState, tile: &mut Tile, (x0, x1, y): (i32, i32, i32), z: u16, s: u8) {
    if st.clear_depth {
        if let Some(row) = tile.depth_span_mut(x0, x1, y) {
            fill_depth(row, z);
        }
    }
    let writable = F::STENCIL_BITS & !st.write_mask;
    if !st.clear_stencil || writable == 0 {
        return;
    }
    let Some(row) = tile.color_span_mut(x0, x1, y) else { return };
    let (mut pattern, mut kept) = ([0u8; 16], [0u8; 16]);
    for (px, k) in pattern.chunks_exact_mut(F::BYTES).zip(kept.chunks_exact_mut(F::BYTES)) {
        F::store(px, F::pack_stencil(s) & writable);
        F::store(k, !writable);
    }
    merge_pattern(row, &pattern, &kept);
}

/// A depth row filled with `z`.
fn fill_depth(row: &mut [u8], z: u16) {
    let zb = z.to_le_bytes();
    fill_pattern(row, &std::array::from_fn::<u8, 16, _>(|i| zb[i & 1]));
}

/// `row` filled with copies of `pattern` from its start (the last copy cut short), 64
/// bytes a store: with a copy per 16 bytes the loop cost 8 instructions a pixel
/// (commands-basic, callgrind).
fn fill_pattern(row: &mut [u8], pattern: &[u8; 16]) {
    let wide: [u8; 64] = std::array::from_fn(|i| pattern[i & 15]);
    let mut chunks = row.chunks_exact_mut(64);
    for c in &mut chunks {
        c.copy_from_slice(&wide);
    }
    let rest = chunks.into_remainder();
    let n = rest.len();
    rest.copy_from_slice(&wide[..n]);
}

/// Every byte of `row` becomes `(old & kept) | pattern` with `pattern` and `kept` repeating
/// from its start (`pattern` has no kept bits). Bitwise, so 16 bytes at a time equal
/// pixel by pixel; the kept alpha/stencil byte of clears and unstenciled fills.
fn merge_pattern(row: &mut [u8], pattern: &[u8; 16], kept: &[u8; 16]) {
    let (p, k) = (u128::from_le_bytes(*pattern), u128::from_le_bytes(*kept));
    let mut chunks = row.chunks_exact_mut(16);
    for c in &mut chunks {
        let mut old = [0u8; 16];
        old.copy_from_slice(c);
        c.copy_from_slice(&((u128::from_le_bytes(old) & k) | p).to_le_bytes());
    }
    for ((b, &p), &k) in chunks.into_remainder().iter_mut().zip(pattern).zip(kept) {
        *b = (*b & k) | p;
    }
}
