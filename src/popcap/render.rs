//! Draw lists through the GE model, the way a PSP game draws 2D sprites: through-mode
//! vertices (positions in pixels, texture coordinates in texels), 8888 textures, the layer
//! colour as vertex colour with MODULATE, SRCALPHA/INVSRCALPHA blending, and FIXB = white
//! for additive layers (dst + src·alpha).
//!
//! Geometry: a draw whose matrix keeps the image axis-aligned and unflipped (b = c = 0,
//! a, d > 0) is one SPRITE; anything else (rotated, skewed, flipped) is two TRIANGLES with
//! the exact transformed corners. Corners are rounded to 1/16 pixel on the CPU, the GE's
//! through-mode precision (`ge::transform::through_vertex` truncates to 12.4), so
//! translating by whole tiles is exact.
//!
//! Memory: textures are uploaded once per [`Renderer`] to RAM at [`TEX_ADDR`] as 8888,
//! split into pieces of at most 512×512 texels (the GE's largest TEXSIZE) and padded to
//! powers of two by repeating the edge texels (so clamping at the piece edge equals
//! clamping at the image edge). Each frame's list goes to `ge::list::LIST_ADDR` with its
//! vertices at `DATA_ADDR`.
//!
//! Clearing: a single-tile canvas drawn again by the same [`Renderer`] only clears the
//! rectangle its previous frame could have drawn (corner bounds widened by 2 pixels, the
//! whole tile when a corner is far outside or not finite): everywhere else the framebuffer
//! still holds the cleared background, so the bytes equal a fresh renderer's (tested over
//! every SUNSHROOM_GROWN frame). A full 390×390 clear was 75% of that animation's frame time.
//!
//! Canvas: the colour buffer is the first MiB of VRAM (stride 512, 512 rows, 8888) and the
//! depth buffer the next 512 KiB, so a canvas up to 512×512 is one tile; larger canvases are
//! drawn in tiles of that size one after another with the vertices shifted by the tile origin
//! (exact: positions are on the 1/16 grid). Depth is never tested or written, but its buffer
//! must not overlap the colour buffer: the GE's binner then draws everything as one serial
//! band and compares every byte on write-back (`ge::bin`), which cost 3× the frame time of
//! SUNSHROOM_GROWN (see `benches/popcap.rs`).
//! Smaller tiles give the same bytes (tested, Hardware model; with `ge::Model::Ppsspp` the
//! JIT-cache state carried from one tile's list to the next changed 5 bilinear pixels of the
//! feature scene, so renders use the default Hardware model). Background: a clear colour with alpha 255
//! (alpha/stencil bits protected while drawing), or transparent: alpha cleared to 0 and set
//! to 255 by the stencil (ALWAYS, REPLACE ref 255) wherever a fragment passes the alpha test
//! (alpha > 0), so translucent layers are composited over black. guess: the filter —
//! bilinear unless `nearest`, as the runtime's GPU draws.

use super::eval::{Affine, Draw};
use super::images::{self, Pixels};
use super::Animation;
use ge::cmd::op;
use ge::display::Image;
use ge::list::{ListBuilder, DATA_ADDR, LIST_ADDR};
use ge::Ge;
use std::path::Path;
use thiserror::Error;

/// Where textures live in PSP RAM (after 1 MiB of per-frame vertex data).
pub const TEX_ADDR: u32 = 0x0900_0000;
/// End of PSP user RAM.
pub const RAM_END: u32 = 0x0A00_0000;
/// Colour buffer: stride 512, 512 rows at 8888: the first MiB of VRAM (the largest tile).
pub const FB_STRIDE: u32 = 512;
pub const FB_ROWS: u32 = 512;
/// Depth buffer (VRAM offset): right after the colour buffer, so the two never overlap.
pub const ZBUF_OFFSET: u32 = 4 * FB_STRIDE * FB_ROWS;
/// Largest texture piece side.
pub const MAX_PIECE: u32 = 512;
/// Largest canvas side accepted.
pub const MAX_CANVAS: u32 = 8192;

#[derive(Debug, Error)]
pub enum RenderError {
    #[error("textures need {need} bytes of PSP RAM, only {have} are free")]
    TexturesTooLarge { need: u64, have: u64 },
    #[error("frame needs {bytes} bytes of vertex data, more than the {limit} reserved")]
    TooManyVertices { bytes: usize, limit: u32 },
    #[error("canvas {0}x{1} (sides of 1 to {MAX_CANVAS} accepted)")]
    Canvas(u32, u32),
    #[error("draw uses image {0}, which has no texture")]
    NoImage(usize),
    #[error("GE: {0}")]
    Ge(#[from] ge::GeError),
}

/// How to draw.
#[derive(Debug, Clone, PartialEq)]
pub struct RenderOptions {
    /// Canvas size in pixels.
    pub size: [u32; 2],
    /// Canvas pixels per PAM pixel.
    pub scale: f64,
    /// Opaque background RGB; `None` = transparent.
    pub background: Option<[u8; 3]>,
    pub nearest: bool,
    /// Tile side (1..=512).
    pub tile: u32,
    /// Raster threads of the GE (0 = all cores).
    pub threads: usize,
}

impl RenderOptions {
    /// The PAM's declared size at scale 1, transparent, bilinear, whole tiles.
    pub fn for_animation(anim: &Animation) -> RenderOptions {
        RenderOptions { size: anim.pixel_size(), scale: 1.0, background: None, nearest: false, tile: 512, threads: 0 }
    }
}

/// One image's texture and the image-space size its quad covers.
#[derive(Debug, Clone, PartialEq)]
pub struct Texture {
    pub quad: [u32; 2],
    pub pixels: Pixels,
    pub placeholder: bool,
}

/// Every image's texture (found PNG or placeholder).
#[derive(Debug, Clone, PartialEq)]
pub struct ImageSet {
    pub textures: Vec<Texture>,
    /// Images drawn as placeholders, with their lookup keys.
    pub missing: Vec<(usize, String)>,
}

impl ImageSet {
    /// Placeholders of every image's declared size.
    pub fn placeholders(anim: &Animation) -> anyhow::Result<ImageSet> {
        Self::load(anim, None)
    }

    /// PNGs from `dir` by the name rules ([`images::lookup_key`]), placeholders for the rest.
    /// The quad is the declared size (the PNG is stretched onto it), or the PNG's size when
    /// the version stores none.
    pub fn load(anim: &Animation, dir: Option<&Path>) -> anyhow::Result<ImageSet> {
        use anyhow::Context;
        let files = match dir {
            Some(d) => images::index_dir(d)?,
            None => Default::default(),
        };
        // Declared sizes can be hostile (65535 images of 4096x4096): bound the texture memory
        // before allocating any of it, by the RAM the renderer could upload it to.
        let budget = u64::from(RAM_END - TEX_ADDR);
        let declared: u64 = anim
            .images
            .iter()
            .map(|d| d.pixel_size().map(|v| u64::from(v.clamp(1, images::MAX_SIDE))))
            .map(|[w, h]| 4 * w * h)
            .sum();
        if declared > budget {
            anyhow::bail!(
                "the images declare {declared} bytes of texture, more than the {budget} bytes of PSP RAM for textures"
            );
        }
        let mut textures = Vec::new();
        let mut missing = Vec::new();
        // Texture bytes so far (placeholders and PNGs as they come).
        let mut loaded = 0u64;
        for (i, def) in anim.images.iter().enumerate() {
            let key = images::lookup_key(&def.name.text());
            let declared = def.size.is_some().then(|| def.pixel_size());
            match files.get(&key) {
                Some(path) => {
                    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
                    let pixels = images::decode_png(&bytes, &path.display().to_string())?;
                    loaded += 4 * u64::from(pixels.width) * u64::from(pixels.height);
                    if loaded > budget {
                        anyhow::bail!("{}: the images reach {loaded} bytes of texture, more than the {budget} bytes of PSP RAM for textures", path.display());
                    }
                    let quad = declared.unwrap_or([pixels.width, pixels.height]);
                    textures.push(Texture { quad, pixels, placeholder: false });
                }
                None => {
                    let [w, h] = def.pixel_size().map(|v| v.clamp(1, images::MAX_SIDE));
                    loaded += 4 * u64::from(w) * u64::from(h);
                    textures.push(Texture { quad: [w, h], pixels: images::placeholder(i, w, h), placeholder: true });
                    missing.push((i, key));
                }
            }
        }
        Ok(ImageSet { textures, missing })
    }
}

/// A texture piece resident in GE memory.
#[derive(Debug, Clone, Copy)]
struct Piece {
    /// Texel rectangle of the image it holds.
    x0: u32,
    y0: u32,
    w: u32,
    h: u32,
    addr: u32,
    log2w: u32,
    log2h: u32,
}

/// A GE with the textures of one animation resident, drawing frames.
pub struct Renderer {
    ge: Ge,
    opts: RenderOptions,
    pieces: Vec<Vec<Piece>>,
    /// Per image: quad size and texture size.
    sizes: Vec<([u32; 2], [u32; 2])>,
    /// Single-tile canvases: the framebuffer rectangle `[x0, y0, x1)` × `[.., y1)` outside which
    /// it still holds the cleared background (the last frame's drawn bounds); `None` when
    /// unknown (first frame, several tiles, after an error).
    dirty: Option<[u32; 4]>,
}

fn log2_ceil(v: u32) -> u32 {
    v.max(1).next_power_of_two().trailing_zeros()
}

impl Renderer {
    pub fn new(set: &ImageSet, opts: RenderOptions) -> Result<Renderer, RenderError> {
        let [w, h] = opts.size;
        if w == 0 || h == 0 || w > MAX_CANVAS || h > MAX_CANVAS {
            return Err(RenderError::Canvas(w, h));
        }
        let mut ge = Ge::new();
        if opts.threads > 0 {
            ge.set_threads(opts.threads);
        }
        let mut addr = u64::from(TEX_ADDR);
        let mut pieces = Vec::new();
        let mut sizes = Vec::new();
        let mut plan = Vec::new();
        for t in &set.textures {
            let p = &t.pixels;
            let mut list = Vec::new();
            for y0 in (0..p.height).step_by(MAX_PIECE as usize) {
                for x0 in (0..p.width).step_by(MAX_PIECE as usize) {
                    let (pw, ph) = ((p.width - x0).min(MAX_PIECE), (p.height - y0).min(MAX_PIECE));
                    let (log2w, log2h) = (log2_ceil(pw).max(2), log2_ceil(ph));
                    let bytes = 4u64 << (log2w + log2h);
                    list.push(Piece { x0, y0, w: pw, h: ph, addr: addr as u32, log2w, log2h });
                    addr = (addr + bytes).next_multiple_of(16);
                }
            }
            plan.push(list);
            sizes.push((t.quad, [p.width, p.height]));
        }
        if addr > u64::from(RAM_END) {
            return Err(RenderError::TexturesTooLarge {
                need: addr - u64::from(TEX_ADDR),
                have: u64::from(RAM_END - TEX_ADDR),
            });
        }
        for (t, list) in set.textures.iter().zip(&plan) {
            for pc in list {
                let bytes = piece_bytes(&t.pixels, pc);
                ge.mem.write(pc.addr, &bytes).map_err(|source| ge::GeError::Memory { pc: pc.addr, cause: source })?;
            }
            pieces.push(list.clone());
        }
        Ok(Renderer { ge, opts, pieces, sizes, dirty: None })
    }

    pub fn options(&self) -> &RenderOptions {
        &self.opts
    }

    /// Draw one frame; the canvas as RGBA.
    pub fn render(&mut self, draws: &[Draw]) -> Result<Image, RenderError> {
        let [w, h] = self.opts.size;
        let layout = Layout::new(self.opts.size, self.opts.tile);
        let [tile_w, tile_h] = layout.tile;
        let single = w <= tile_w && h <= tile_h;
        // One tile appends its rows in order; zero-filling the canvas first cost 2% of a
        // SUNSHROOM frame (callgrind). Tiled canvases are filled out of order.
        let size = (4 * w * h) as usize;
        let mut out =
            Image { width: w, height: h, rgba: if single { Vec::with_capacity(size) } else { vec![0; size] } };
        for ty in (0..h).step_by(tile_h as usize) {
            for tx in (0..w).step_by(tile_w as usize) {
                let (tw, th) = ((w - tx).min(tile_w), (h - ty).min(tile_h));
                // Only what the last frame drew differs from the cleared background.
                let clear = self.dirty.take().filter(|_| single).unwrap_or([0, 0, tw, th]);
                let (list, drawn) = self.build_list(draws, [tx, ty], [tw, th], clear)?;
                list.run(&mut self.ge)?;
                if single {
                    self.dirty = Some(drawn);
                }
                for y in 0..th {
                    let src = 0x0400_0000 + 4 * (y * FB_STRIDE);
                    let row = self.ge.mem.slice(src, 4 * tw).map_err(|cause| ge::GeError::Memory { pc: src, cause })?;
                    if single {
                        out.rgba.extend_from_slice(row);
                    } else {
                        let dst = 4 * ((ty + y) * w + tx) as usize;
                        out.rgba[dst..dst + row.len()].copy_from_slice(row);
                    }
                }
            }
        }
        Ok(out)
    }

    /// The display list of one tile (origin `org` and size `size` in canvas pixels) clearing
    /// the tile rectangle `clear` (`[x0, y0, x1, y1]`, exclusive ends), and the tile rectangle
    /// its draws can touch.
    fn build_list(
        &self,
        draws: &[Draw],
        org: [u32; 2],
        size: [u32; 2],
        clear: [u32; 4],
    ) -> Result<(ListBuilder, [u32; 4]), RenderError> {
        let mut l = ListBuilder::new();
        let (tw, th) = (size[0], size[1]);
        l.cmd(op::FRAMEBUFPTR, 0)
            .cmd(op::FRAMEBUFWIDTH, FB_STRIDE)
            .cmd(op::FRAMEBUFPIXFORMAT, 3)
            .cmd(op::ZBUFPTR, ZBUF_OFFSET)
            .cmd(op::ZBUFWIDTH, FB_STRIDE)
            .cmd(op::SCISSOR1, 0)
            .cmd(op::SCISSOR2, ((th - 1) << 10) | (tw - 1))
            .cmd(op::REGION1, 0)
            .cmd(op::REGION2, ((FB_ROWS - 1) << 10) | (FB_STRIDE - 1))
            .cmd(op::OFFSETX, 0)
            .cmd(op::OFFSETY, 0)
            .cmd(op::SHADEMODE, 0)
            .cmd(op::CULLFACEENABLE, 0)
            .cmd(op::ZTESTENABLE, 0)
            .cmd(op::ZWRITEDISABLE, 1)
            .cmd(op::LIGHTINGENABLE, 0)
            .cmd(op::FOGENABLE, 0)
            .cmd(op::DITHERENABLE, 0)
            .cmd(op::LOGICOPENABLE, 0)
            .cmd(op::COLORTESTENABLE, 0);
        // Clear: a through-mode sprite over the rectangle (colour + alpha/stencil).
        let (rgb, alpha) = match self.opts.background {
            Some(c) => (c, 255u8),
            None => ([0; 3], 0),
        };
        let [cx0, cy0, cx1, cy1] = clear.map(|v| v as i16);
        let mut v = Vec::new();
        for (x, y) in [(cx0, cy0), (cx1, cy1)] {
            v.extend_from_slice(&[rgb[0], rgb[1], rgb[2], alpha]);
            v.extend_from_slice(&x.to_le_bytes());
            v.extend_from_slice(&y.to_le_bytes());
            v.extend_from_slice(&[0, 0, 0, 0]);
        }
        // Colour and alpha/stencil only: nothing uses depth.
        if cx0 < cx1 && cy0 < cy1 {
            l.cmd(op::CLEARMODE, 1 | (3 << 8))
                .cmd(op::VERTEXTYPE, (1 << 23) | (7 << 2) | (2 << 7))
                .vertices(&v)
                .prim(6, 2)
                .cmd(op::CLEARMODE, 0);
        }
        // Fixed state for every draw.
        l.cmd(op::TEXTUREMAPENABLE, 1)
            .cmd(op::TEXMAPMODE, 0)
            .cmd(op::TEXMODE, 0)
            .cmd(op::TEXFORMAT, 3)
            .cmd(op::TEXWRAP, 1 | (1 << 8))
            .cmd(op::TEXFILTER, if self.opts.nearest { 0 } else { 1 | (1 << 8) })
            .cmd(op::TEXFUNC, 1 << 8) // MODULATE, alpha from the texture
            .cmd(op::ALPHATESTENABLE, 1)
            .cmd(op::ALPHATEST, 6 | (0xFF << 16)) // GREATER than 0
            .cmd(op::ALPHABLENDENABLE, 1)
            .cmd(op::BLENDFIXEDA, 0xFF_FFFF)
            .cmd(op::BLENDFIXEDB, 0xFF_FFFF)
            .cmd(op::MASKRGB, 0)
            .cmd(op::MASKALPHA, 0);
        match self.opts.background {
            Some(_) => l.cmd(op::STENCILTESTENABLE, 0),
            // ALWAYS, ref 255; REPLACE on pass.
            None => l
                .cmd(op::STENCILTESTENABLE, 1)
                .cmd(op::STENCILTEST, 1 | (0xFF << 8) | (0xFF << 16))
                .cmd(op::STENCILOP, 2 << 16),
        };
        let vtype = (1 << 23) | 3 | (7 << 2) | (3 << 7); // through, float uv, 8888 colour, float xyz
        l.cmd(op::VERTEXTYPE, vtype);
        let scale = Affine([self.opts.scale, 0.0, 0.0, self.opts.scale, 0.0, 0.0]);
        let mut blend = None;
        let mut texture = None;
        // Snapped corner bounds in tile pixels (min x, min y, max x, max y).
        let mut reach = [f64::INFINITY, f64::INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY];
        for d in draws {
            let (quad, tex) = *self.sizes.get(d.image).ok_or(RenderError::NoImage(d.image))?;
            let m = d.matrix.then(scale);
            // Texel rectangle drawn and its image-space placement (texel · k − origin).
            let k = [f64::from(quad[0]) / f64::from(tex[0]), f64::from(quad[1]) / f64::from(tex[1])];
            let src = match d.src_rect {
                // guess: the src-rect's texels are drawn at image-space (0,0)-(w,h).
                Some([x, y, w, h]) => [x / k[0], y / k[1], (x + w) / k[0], (y + h) / k[1]],
                None => [0.0, 0.0, f64::from(tex[0]), f64::from(tex[1])],
            };
            let origin = [src[0] * k[0], src[1] * k[1]];
            let mode = if d.additive { 2 | (10 << 4) } else { 2 | (3 << 4) };
            if blend != Some(mode) {
                l.cmd(op::BLENDMODE, mode);
                blend = Some(mode);
            }
            let col = d.color.map(|c| (c.clamp(0.0, 1.0) * 255.0).round() as u8);
            for (pi, pc) in self.pieces[d.image].iter().enumerate() {
                let r = [
                    src[0].max(f64::from(pc.x0)),
                    src[1].max(f64::from(pc.y0)),
                    src[2].min(f64::from(pc.x0 + pc.w)),
                    src[3].min(f64::from(pc.y0 + pc.h)),
                ];
                if r[2] <= r[0] || r[3] <= r[1] {
                    continue;
                }
                if texture != Some((d.image, pi)) {
                    l.cmd(op::TEXADDR0, pc.addr & 0xFF_FFF0)
                        .cmd(op::TEXBUFWIDTH0, ((pc.addr >> 8) & 0x0F_0000) | (1 << pc.log2w))
                        .cmd(op::TEXSIZE0, pc.log2w | (pc.log2h << 8))
                        .cmd(op::TEXFLUSH, 0);
                    texture = Some((d.image, pi));
                }
                let [a, b, c, dd, ..] = m.0;
                let corner = |u: f64, v: f64| {
                    let p = m.apply([u * k[0] - origin[0], v * k[1] - origin[1]]);
                    Corner {
                        pos: [snap(p[0]), snap(p[1])],
                        uv: [(u - f64::from(pc.x0)) as f32, (v - f64::from(pc.y0)) as f32],
                    }
                };
                if b == 0.0 && c == 0.0 && a > 0.0 && dd > 0.0 {
                    let prim = [corner(r[0], r[1]), corner(r[2], r[3])];
                    emit(&mut l, org, &prim, col, 6, &mut reach);
                } else {
                    let [p00, p10, p01, p11] =
                        [corner(r[0], r[1]), corner(r[2], r[1]), corner(r[0], r[3]), corner(r[2], r[3])];
                    emit(&mut l, org, &[p00, p10, p01], col, 3, &mut reach);
                    emit(&mut l, org, &[p10, p11, p01], col, 3, &mut reach);
                }
            }
        }
        l.finish();
        let limit = TEX_ADDR - DATA_ADDR;
        if l.data.len() > limit as usize || l.words.len() * 4 > (DATA_ADDR - LIST_ADDR) as usize {
            return Err(RenderError::TooManyVertices { bytes: l.data.len() + 4 * l.words.len(), limit });
        }
        Ok((l, drawn_rect(reach, size)))
    }
}

/// Round to the GE's 1/16-pixel through-mode grid.
fn snap(v: f64) -> f64 {
    (v * 16.0).round() / 16.0
}

/// A vertex: snapped canvas position and piece-local texel coordinates.
#[derive(Clone, Copy)]
struct Corner {
    pos: [f64; 2],
    uv: [f32; 2],
}

/// How the canvas maps to the framebuffer: tiles of at most 512×512 (the colour buffer), or
/// smaller when asked (tests).
struct Layout {
    tile: [u32; 2],
}

impl Layout {
    fn new(_size: [u32; 2], tile: u32) -> Layout {
        let tile = tile.max(1);
        Layout { tile: [tile.min(FB_STRIDE), tile.min(FB_ROWS)] }
    }
}

/// Corners this far outside a tile may wrap in the GE's 12.4 through-mode positions, so a
/// frame reaching them counts as drawing everywhere.
const REACH_LIMIT: f64 = 1024.0;

/// The tile pixels `[x0, y0, x1, y1)` that primitives with corners within `reach` (min x,
/// min y, max x, max y) can write: a pixel is drawn when its centre is covered, so the corner
/// bounds widened by 2 pixels hold every one; nothing for an empty reach, the whole tile for
/// a reach beyond [`REACH_LIMIT`] or not finite.
fn drawn_rect(reach: [f64; 4], size: [u32; 2]) -> [u32; 4] {
    let [x0, y0, x1, y1] = reach;
    if x0 > x1 || y0 > y1 {
        return [0; 4];
    }
    let far = |v: f64, side: u32| !(-REACH_LIMIT..=f64::from(side) + REACH_LIMIT).contains(&v);
    if far(x0, size[0]) || far(x1, size[0]) || far(y0, size[1]) || far(y1, size[1]) {
        return [0, 0, size[0], size[1]];
    }
    let lo = |v: f64, side: u32| (v.floor() - 2.0).clamp(0.0, f64::from(side)) as u32;
    let hi = |v: f64, side: u32| (v.ceil() + 2.0).clamp(0.0, f64::from(side)) as u32;
    [lo(x0, size[0]), lo(y0, size[1]), hi(x1, size[0]), hi(y1, size[1])]
}

/// One primitive (SPRITE of 2 or TRIANGLES of 3 vertices) of the tile at `org`; `reach`
/// grows to its corners (NaN corners make it infinite).
fn emit(l: &mut ListBuilder, org: [u32; 2], v: &[Corner], col: [u8; 4], prim: u32, reach: &mut [f64; 4]) {
    let mut bytes = Vec::with_capacity(v.len() * 24);
    for c in v {
        for f in c.uv {
            bytes.extend_from_slice(&f.to_le_bytes());
        }
        bytes.extend_from_slice(&col);
        let x = c.pos[0] - f64::from(org[0]);
        let y = c.pos[1] - f64::from(org[1]);
        if x.is_finite() && y.is_finite() {
            *reach = [reach[0].min(x), reach[1].min(y), reach[2].max(x), reach[3].max(y)];
        } else {
            *reach = [f64::NEG_INFINITY, f64::NEG_INFINITY, f64::INFINITY, f64::INFINITY];
        }
        for f in [x as f32, y as f32, 0.0f32] {
            bytes.extend_from_slice(&f.to_le_bytes());
        }
    }
    l.vertices(&bytes).prim(prim, v.len() as u32);
}

/// A piece padded to powers of two by repeating its last column and row.
fn piece_bytes(p: &Pixels, pc: &Piece) -> Vec<u8> {
    let (bw, bh) = (1u32 << pc.log2w, 1u32 << pc.log2h);
    let mut out = Vec::with_capacity((4 * bw * bh) as usize);
    for y in 0..bh {
        let sy = pc.y0 + y.min(pc.h - 1);
        for x in 0..bw {
            let sx = pc.x0 + x.min(pc.w - 1);
            out.extend_from_slice(&p.get(sx, sy));
        }
    }
    out
}

/// Draw one frame with a fresh renderer.
pub fn render(set: &ImageSet, draws: &[Draw], opts: RenderOptions) -> Result<Image, RenderError> {
    Renderer::new(set, opts)?.render(draws)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drawn_rect_widens_clamps_and_gives_up_far_away() {
        let tile = [390, 300];
        // Corners (10.25, 20.5)-(100.75, 40): 2 pixels more each way, ends exclusive.
        assert_eq!(drawn_rect([10.25, 20.5, 100.75, 40.0], tile), [8, 18, 103, 42]);
        // Clamped to the tile.
        assert_eq!(drawn_rect([-5.0, -1.0, 389.5, 299.0], tile), [0, 0, 390, 300]);
        // Nothing drawn: nothing to clear next time.
        let none = [f64::INFINITY, f64::INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY];
        assert_eq!(drawn_rect(none, tile), [0; 4]);
        // Far outside (the GE's 12.4 positions could wrap) or not finite: the whole tile.
        assert_eq!(drawn_rect([-2000.0, 0.0, 10.0, 10.0], tile), [0, 0, 390, 300]);
        assert_eq!(drawn_rect([0.0, 0.0, 10.0, 300.0 + 1025.0], tile), [0, 0, 390, 300]);
        let inf = [f64::NEG_INFINITY, f64::NEG_INFINITY, f64::INFINITY, f64::INFINITY];
        assert_eq!(drawn_rect(inf, tile), [0, 0, 390, 300]);
    }

    #[test]
    fn non_finite_corners_make_the_reach_infinite() {
        let mut l = ListBuilder::new();
        let mut reach = [f64::INFINITY, f64::INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY];
        let c = |x: f64, y: f64| Corner { pos: [x, y], uv: [0.0; 2] };
        emit(&mut l, [0, 0], &[c(5.0, 6.0), c(7.0, 9.0)], [255; 4], 6, &mut reach);
        assert_eq!(reach, [5.0, 6.0, 7.0, 9.0]);
        // The tile origin is subtracted.
        let mut shifted = [f64::INFINITY, f64::INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY];
        emit(&mut l, [4, 2], &[c(5.0, 6.0), c(7.0, 9.0)], [255; 4], 6, &mut shifted);
        assert_eq!(shifted, [1.0, 4.0, 3.0, 7.0]);
        emit(&mut l, [0, 0], &[c(f64::NAN, 1.0), c(2.0, 2.0)], [255; 4], 6, &mut reach);
        assert_eq!(drawn_rect(reach, [64, 64]), [0, 0, 64, 64]);
    }
}
