//! Quad kernels: the pixel pipeline for the 2x2 fragment blocks of triangles, specialised
//! once per draw on the state that decides which stages run.
//!
//! [`select`] picks the drawer once per draw (the caller keeps the function pointer).
//! Normal-mode draws without logic op whose stencil result is a constant (no stencil, or
//! an always-passing test writing ZERO or REPLACE without a depth test:
//! `fixed_stencil_bits`; the usual textured triangle, a transparent PopCap canvas) go through
//! [`kernel`], monomorphised per framebuffer format and on three switches: depth test,
//! depth write, blend (none, the usual source-alpha blend inlined, any other); the
//! disabled stages are compiled out and the colour and depth
//! offsets are computed only for fragments that reach the stage needing them. Clear mode,
//! other stencil states and logic op run [`draw_quad_plain`], the fragment-by-fragment pipeline, which
//! stays the reference: the property test in `quad/tests.rs` checks the kernels equal it
//! byte for byte over random pixel state, quads and tile contents.
//!
//! Sharing one offset computation per quad row (the right fragment's word follows the
//! left one's) was tried and measured slower: the layout check and the bounds check of the
//! derived offset cost as much as `Tile::color_offset` itself, and computing offsets before
//! the alpha test charged rejected fragments (16131 shinsengumi +3.6% instructions).
//!
//! Measured (callgrind instructions, whole process, `frametests DIR --bench --runs 1
//! --threads 1`, each dump's own model): 15826 hot pixel 223.4 -> 210.8 M, 16131 shinsengumi
//! 533.0 -> 521.3 M, 14146 gachitora 1 400.8 -> 1 337.1 M, 21763 test drive
//! 1 823.9 -> 1 782.8 M.

use super::blend::source_over;
use super::format::FbPixel;
use super::{dither_clamp, draw, fixed_stencil_bits, fragment_tests, Compare, PixelState};
use crate::geom::Fragment;
use crate::tile::Tile;

/// The reference: [`super::draw_pixel`] for each covered fragment, in lane order.
#[inline]
pub(crate) fn draw_quad_plain<F: FbPixel>(
    st: &PixelState,
    tile: &mut Tile,
    frags: &[Fragment; 4],
    mask: u8,
    colors: &[[u8; 4]; 4],
) {
    for (i, f) in frags.iter().enumerate() {
        if mask & (1 << i) != 0 {
            draw::<F>(st, tile, f.x, f.y, f.z, colors[i], f.fog);
        }
    }
}

/// A quad drawer: `(state, tile, fragments, coverage mask, colours)`.
pub type QuadKernel = fn(&PixelState, &mut Tile, &[Fragment; 4], u8, &[[u8; 4]; 4]);

/// The kernel for this state, chosen once per draw: the plain pipeline for clear mode,
/// a stencil result that varies and logic op, else the kernel specialised on depth test, depth write and blend.
pub(crate) fn select<F: FbPixel>(st: &PixelState) -> QuadKernel {
    if st.clear || st.logic.is_some() || fixed_stencil_bits::<F>(st).is_none() {
        return draw_quad_plain::<F>;
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
const NO_BLEND: u8 = 0;
const SOURCE_OVER: u8 = 1;
const ANY_BLEND: u8 = 2;

/// Normal mode, constant stencil result, no logic op: depth range, fragment tests, depth
/// test (`ZTEST`), depth write (`ZWRITE`), blend (`BLEND`), dither, write mask; the alpha /
/// stencil bits are `fixed_stencil_bits`' (the old word's, all ones under
/// `logic_sets_alpha`, or the stencil constant), as in `draw_tested`.
fn kernel<F: FbPixel, const ZTEST: bool, const ZWRITE: bool, const BLEND: u8>(
    st: &PixelState,
    tile: &mut Tile,
    frags: &[Fragment; 4],
    mask: u8,
    colors: &[[u8; 4]; 4],
) {
    let Some((alpha_bits, keep)) = fixed_stencil_bits::<F>(st) else {
        return draw_quad_plain::<F>(st, tile, frags, mask, colors);
    };
    for (i, f) in frags.iter().enumerate() {
        if mask & (1 << i) == 0 {
            continue;
        }
        if let Some((lo, hi)) = st.depth_range {
            if f.z < lo || f.z > hi {
                continue;
            }
        }
        let Some(c) = fragment_tests(st, colors[i], f.fog) else { continue };
        let zo = tile.depth_offset(f.x, f.y);
        if ZTEST && !st.depth_func.test(f.z, tile.read_depth_at(zo)) {
            continue;
        }
        if ZWRITE {
            tile.write_depth_at(zo, f.z);
        }
        let co = tile.color_offset(f.x, f.y);
        let old = tile.read_color_at(co);
        let rgb = match &st.blend {
            Some(_) if BLEND == SOURCE_OVER => source_over(c, F::dst_rgba(old)),
            Some(b) if BLEND == ANY_BLEND => b.apply(c, F::dst_rgba(old)),
            _ => [c[0] as i32, c[1] as i32, c[2] as i32],
        };
        let new = (F::pack_rgb(dither_clamp(st, f.x, f.y, rgb)) | alpha_bits) & !keep;
        tile.write_color_at(co, new | (old & keep));
    }
}

#[cfg(test)]
mod tests;
