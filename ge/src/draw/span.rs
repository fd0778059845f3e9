//! Rectangles drawn as row spans instead of 2x2 quads.
//!
//! A rectangle's fragments share colour, depth and fog (flat from its second vertex), and
//! every rectangle walker covers a rectangle of pixels (`raster::rectangle_pixels` and
//! friends). When, in addition, its texture coordinates are a function of the pixel alone
//! (the hardware rule's exact coordinates, PPSSPP's 1:1 sprite) and the texture's level
//! choice cannot vary from quad to quad (`texture::constant_lod`), the draw needs no quads:
//! each row is textured in one run (`texture::shade_span`) and drawn by the span pipeline
//! (`pixel::draw_span`), and an untextured row (clears, fills) is one `pixel::fill_span`.
//! The decision is taken once per primitive and band from the shape and per-draw state.
//!
//! PPSSPP's `DrawRectangle` steps its texture coordinates by float accumulation along the
//! quad walk; `raster::rectangle_rows` repeats those sums row by row. Traced draws keep
//! the quad path.
//!
//! Measured (commands-basic: a 480x272 clear and a 460x252 textured sprite): the quad
//! path spends about 40% of the frame in the per-fragment pipeline and another third in
//! quad assembly and per-quad sampling set-up; the fill is a store per pixel. A texture
//! level of one texel gives every fragment one colour (`texture::uniform_span`), so such a
//! rectangle's rows are fills too: commands-basic's 1x1 sprite, 15.1 -> 6.9 M instructions
//! for the whole run (callgrind, hardware model).
//!
//! The property test below draws random rectangles under random pixel and texture state
//! both ways and compares the tiles byte for byte.

use crate::geom::Quad;
use crate::mem::Memory;
use crate::pixel::{self, PixelState};
use crate::raster::{self, RasterSetup, RectTexCoords, RectangleRule};
use crate::texture::{self, TextureState};
use crate::tile::Tile;

use super::Shape;

/// Pixels textured per run (stack buffers).
const RUN: usize = 64;

/// Draw `shape` into `tile` as row spans when it is a rectangle the span path can draw
/// exactly; false (nothing drawn) when the quad path must draw it.
pub(super) fn rect_spans(
    shape: &Shape,
    setup: &RasterSetup,
    tex: Option<&TextureState>,
    clear: bool,
    px: &PixelState,
    tile: &mut Tile,
    mem: &Memory,
) -> bool {
    let hardware = setup.rectangle == RectangleRule::Hardware;
    let (v, cover, coords) = match shape {
        Shape::Rectangle(v) | Shape::Sprite(v) if hardware => {
            (v, raster::rectangle_exact_pixels(v, setup), Coords::Pixel(RectTexCoords::exact(v)))
        }
        // Texture coordinates by float accumulation along the quad walk.
        Shape::Rectangle(v) => (v, raster::rectangle_pixels(v, setup), Coords::Walk),
        Shape::Sprite(v) => (v, raster::rectangle_pixels(v, setup), Coords::Pixel(RectTexCoords::sprite(v))),
        // Clear mode never textures; the walker gives no texture coordinates.
        Shape::ClearRect(v) => (v, raster::clear_rectangle_pixels(v, setup), Coords::None),
        _ => return false,
    };
    // Past the row stride a fragment lands in a later row (`crate::bin` then draws the
    // primitive as one band), and rows visit pixels in another order than quads do: the
    // quads, the reference, decide which of two fragments on one word comes last.
    if let Some(r) = &cover {
        if r.x1 >= tile.stride as i32 || (px.touches_depth() && r.x1 >= tile.zstride as i32) {
            return false;
        }
    }
    let f = raster::flat_fragment(&v[1]);
    let t = match tex {
        Some(t) if !clear => t,
        _ => {
            let Some(r) = cover else { return true };
            let colour = flat_colour(clear, &f);
            for y in r.y0..=r.y1 {
                pixel::fill_span(px, tile, r.x0, r.x1, y, f.z, f.fog, colour);
            }
            return true;
        }
    };
    let Some(lod) = texture::constant_lod(t) else { return false };
    if matches!(coords, Coords::None) {
        return false;
    }
    // One colour for every fragment: the rows are fills (`pixel::fill_span`). Both
    // coordinate sources visit exactly the pixels of `cover`, so the same rows are drawn.
    if let Some(colour) = texture::uniform_span(t, mem, lod, f.color0, f.color1) {
        let Some(r) = cover else { return true };
        for y in r.y0..=r.y1 {
            pixel::fill_span(px, tile, r.x0, r.x1, y, f.z, f.fog, colour);
        }
        return true;
    }
    let mut colours = [[0u8; 4]; RUN];
    let mut draw_row = |y: i32, x0: i32, st: &[(f32, f32)]| {
        let colours = &mut colours[..st.len()];
        texture::shade_span(t, mem, lod, f.color0, f.color1, st, colours);
        pixel::draw_span(px, tile, x0, y, f.z, f.fog, colours);
    };
    match coords {
        Coords::Pixel(coords) => {
            let Some(r) = cover else { return true };
            let mut st = [(0f32, 0f32); RUN];
            for y in r.y0..=r.y1 {
                let mut x = r.x0;
                while x <= r.x1 {
                    let n = ((r.x1 - x) as usize + 1).min(RUN);
                    for (i, c) in st[..n].iter_mut().enumerate() {
                        *c = coords.at(x + i as i32, y);
                    }
                    draw_row(y, x, &st[..n]);
                    x += n as i32;
                }
            }
        }
        Coords::Walk => raster::rectangle_rows(v, setup, &mut draw_row),
        Coords::None => return false,
    }
    true
}

/// Where a textured rectangle's texture coordinates come from.
enum Coords {
    /// A function of the pixel.
    Pixel(RectTexCoords),
    /// PPSSPP's accumulation along the walk (`raster::rectangle_rows`).
    Walk,
    /// None (a clear-mode shape drawn textured outside clear mode: the quad path's).
    None,
}

/// An untextured fragment's colour: the flat vertex colour in clear mode, otherwise with
/// the secondary colour added and clamped [PP `Rasterizer.cpp` DrawTriangleSlice].
#[inline]
fn flat_colour(clear: bool, f: &crate::geom::Fragment) -> [u8; 4] {
    if clear {
        f.color0
    } else {
        texture::add_secondary(f.color0.map(i32::from), f.color1)
    }
}

/// The colours the quad path gives a quad's fragments before the pixel stage.
pub(super) fn quad_colours(clear: bool, tex: Option<&TextureState>, mem: &Memory, q: &Quad) -> [[u8; 4]; 4] {
    match tex {
        Some(t) if !clear => texture::shade_quad(t, mem, q, q.w),
        _ => std::array::from_fn(|i| flat_colour(clear, &q.frag(i))),
    }
}

#[cfg(test)]
mod tests;
