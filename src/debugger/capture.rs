//! What the GE holds after a draw, as pictures: the colour buffer, depth as a grey ramp,
//! stencil, the bound texture with its CLUT applied, and the CLUT cache as a swatch.
//!
//! Everything is read from PSP memory and the register file as the draw left them (the
//! caller stops the replay after the draw, [`ge::dump::replay_until`]), with the same
//! address rules the pixel and texture stages use (`ge::draw::fb_target`,
//! `ge::texture::TextureState::decode`), so there is no second reading of the registers.

use ge::cmd::op;
use ge::display::{expand16, Image};
use ge::draw::fb_target;
use ge::tile::FbFormat;
use ge::Ge;

/// Rows shown of each buffer: the PSP screen height.
pub const BUFFER_ROWS: u32 = 272;

/// The pictures of one draw. `texture` and `clut` are `None` when texturing is off or the
/// texture format does not use a CLUT.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Buffers {
    pub colour: Image,
    pub depth: Image,
    pub stencil: Image,
    pub texture: Option<Image>,
    pub clut: Option<Image>,
}

impl Buffers {
    /// Named PNG-ready pictures in a fixed order (`colour`, `depth`, `stencil`, then
    /// `texture` and `clut` when present).
    pub fn named(&self) -> Vec<(&'static str, &Image)> {
        let mut v = vec![("colour", &self.colour), ("depth", &self.depth), ("stencil", &self.stencil)];
        if let Some(t) = &self.texture {
            v.push(("texture", t));
        }
        if let Some(c) = &self.clut {
            v.push(("clut", c));
        }
        v
    }
}

/// Width shown of a buffer with `stride` pixels per row: the stride up to the 480-pixel
/// screen (a render-to-texture target of stride 64 shows 64 columns), 480 for stride 0.
fn shown_width(stride: u32) -> u32 {
    if stride == 0 {
        480
    } else {
        stride.min(480)
    }
}

/// The raw bytes of a `width`×[`BUFFER_ROWS`] window of `bpp`-byte pixels at `addr` with
/// `stride` pixels per row, read like the display capture (rows run on through the VRAM
/// mirrors). A plain copy, cheap enough to take at every report keyframe; the pictures are
/// made later ([`Snapshot::buffers`]), in parallel.
#[derive(Debug, Clone)]
struct Window {
    width: u32,
    bpp: u32,
    bytes: Vec<u8>,
}

impl Window {
    fn read(ge: &Ge, addr: u32, stride: u32, bpp: u32) -> Window {
        let width = shown_width(stride);
        let row = (width * bpp) as usize;
        let mut bytes = vec![0u8; row * BUFFER_ROWS as usize];
        for (y, out) in bytes.chunks_exact_mut(row).enumerate() {
            let a = addr.wrapping_add((y as u32).wrapping_mul(stride).wrapping_mul(bpp));
            // A row inside one region is one copy; only rows crossing a mirror edge or
            // unmapped memory go byte by byte.
            match ge.mem.slice(a, row as u32) {
                Ok(src) => out.copy_from_slice(src),
                Err(_) => ge.mem.read_wrapping(a, out),
            }
        }
        Window { width, bpp, bytes }
    }

    /// Map each pixel's little-endian value through `f`.
    fn picture(&self, f: impl Fn(u32) -> [u8; 4]) -> Image {
        let mut rgba = Vec::with_capacity(self.bytes.len() / self.bpp as usize * 4);
        for p in self.bytes.chunks_exact(self.bpp as usize) {
            let v = match p {
                [a, b, c, d] => u32::from_le_bytes([*a, *b, *c, *d]),
                [a, b] => u32::from(u16::from_le_bytes([*a, *b])),
                _ => 0,
            };
            rgba.extend_from_slice(&f(v));
        }
        Image { width: self.width, height: BUFFER_ROWS, rgba }
    }
}

/// What the pictures are made from, copied out of the GE after a draw.
#[derive(Debug, Clone)]
pub struct Snapshot {
    fmt: FbFormat,
    colour: Window,
    depth: Window,
    texture: Option<Image>,
    clut: Option<Image>,
}

impl Snapshot {
    /// Copy the render target and depth buffer the registers select, and decode the bound
    /// texture and CLUT.
    pub fn take(ge: &Ge) -> Snapshot {
        let t = fb_target(&ge.state.regs);
        Snapshot {
            fmt: t.fmt,
            colour: Window::read(ge, t.color_addr, t.stride, t.fmt.bpp()),
            depth: Window::read(ge, t.depth_addr, t.zstride, 2),
            texture: texture(ge),
            clut: clut(ge),
        }
    }

    /// The colour buffer, alpha forced opaque (the display ignores it; the stencil picture
    /// shows it).
    pub fn colour(&self) -> Image {
        let fmt = self.fmt as u32;
        self.colour.picture(|v| {
            let [r, g, b] = if fmt == 3 { [v as u8, (v >> 8) as u8, (v >> 16) as u8] } else { expand16(v as u16, fmt) };
            [r, g, b, 255]
        })
    }

    /// The 16-bit depth buffer as a grey ramp: grey = depth >> 8 (0 black, 65535 white).
    pub fn depth(&self) -> Image {
        self.depth.picture(|z| {
            let g = (z >> 8) as u8;
            [g, g, g, 255]
        })
    }

    /// The stencil bits (the colour buffer's alpha bits, ge-reference.md §14) scaled to a
    /// grey ramp: 8888 as is, 4444 ×17, 5551 0 or 255; 565 has none (black).
    pub fn stencil(&self) -> Image {
        let f = self.fmt;
        self.colour.picture(|v| {
            let g = match f {
                FbFormat::Rgba8888 => (v >> 24) as u8,
                FbFormat::Rgba4444 => ((v >> 12) & 0xF) as u8 * 17,
                FbFormat::Rgba5551 => {
                    if v & 0x8000 != 0 {
                        255
                    } else {
                        0
                    }
                }
                FbFormat::Rgb565 => 0,
            };
            [g, g, g, 255]
        })
    }

    /// Every picture.
    pub fn buffers(self) -> Buffers {
        Buffers {
            colour: self.colour(),
            depth: self.depth(),
            stencil: self.stencil(),
            texture: self.texture,
            clut: self.clut,
        }
    }
}

/// The colour buffer the current registers draw to ([`Snapshot::colour`]).
pub fn colour(ge: &Ge) -> Image {
    let t = fb_target(&ge.state.regs);
    let s = Snapshot {
        fmt: t.fmt,
        colour: Window::read(ge, t.color_addr, t.stride, t.fmt.bpp()),
        depth: Window { width: 0, bpp: 2, bytes: Vec::new() },
        texture: None,
        clut: None,
    };
    s.colour()
}

/// The depth buffer as a grey ramp ([`Snapshot::depth`]).
pub fn depth(ge: &Ge) -> Image {
    let t = fb_target(&ge.state.regs);
    let s = Snapshot {
        fmt: t.fmt,
        colour: Window { width: 0, bpp: 2, bytes: Vec::new() },
        depth: Window::read(ge, t.depth_addr, t.zstride, 2),
        texture: None,
        clut: None,
    };
    s.depth()
}

/// Level 0 of the bound texture decoded through the texture stage (CLUT applied from the
/// CLUT cache as the draw saw it); `None` when TEXTUREMAPENABLE is off.
pub fn texture(ge: &Ge) -> Option<Image> {
    let regs = &ge.state.regs;
    if !regs.enabled(op::TEXTUREMAPENABLE) {
        return None;
    }
    let through = regs.arg(op::VERTEXTYPE) & (1 << 23) != 0;
    let st = ge::texture::TextureState::decode(regs, &ge.state.clut, through);
    let info = st.levels[0];
    let (w, h) = (info.width.min(512), info.height.min(512));
    let texels = ge::texture::decode_level(&st, &ge.mem, 0);
    let rgba = texels.iter().flatten().copied().collect();
    Some(Image { width: w, height: h, rgba })
}

/// Side of one CLUT entry in the swatch, in pixels.
pub const SWATCH_CELL: u32 = 8;
/// Entries per swatch row.
pub const SWATCH_COLUMNS: u32 = 16;

/// The CLUT cache decoded in CLUTFORMAT's colour format (512 entries for 16-bit formats,
/// 256 for 8888), 16 per row, each an 8×8 square with its alpha; `None` unless texturing
/// is on with a CLUT texture format.
pub fn clut(ge: &Ge) -> Option<Image> {
    let regs = &ge.state.regs;
    if !regs.enabled(op::TEXTUREMAPENABLE) {
        return None;
    }
    let st = ge::texture::TextureState::decode(regs, &ge.state.clut, false);
    if st.palette.is_empty() {
        return None;
    }
    let rows = (st.palette.len() as u32).div_ceil(SWATCH_COLUMNS);
    let mut img = Image::black(SWATCH_COLUMNS * SWATCH_CELL, rows * SWATCH_CELL);
    for (i, c) in st.palette.iter().enumerate() {
        let (cx, cy) = (i as u32 % SWATCH_COLUMNS, i as u32 / SWATCH_COLUMNS);
        for y in 0..SWATCH_CELL {
            for x in 0..SWATCH_CELL {
                img.put(cx * SWATCH_CELL + x, cy * SWATCH_CELL + y, *c);
            }
        }
    }
    Some(img)
}

/// Every picture of the GE's current state.
pub fn buffers(ge: &Ge) -> Buffers {
    Snapshot::take(ge).buffers()
}

/// A box-filtered copy of `img` at most `max_w` wide (aspect kept), for timelines.
pub fn thumbnail(img: &Image, max_w: u32) -> Image {
    let k = img.width.div_ceil(max_w.max(1)).max(1);
    let (w, h) = ((img.width / k).max(1), (img.height / k).max(1));
    let mut out = Image::black(w, h);
    for y in 0..h {
        for x in 0..w {
            let mut sum = [0u32; 4];
            for dy in 0..k {
                for dx in 0..k {
                    let p = img.get((x * k + dx).min(img.width - 1), (y * k + dy).min(img.height - 1));
                    for c in 0..4 {
                        sum[c] += u32::from(p[c]);
                    }
                }
            }
            out.put(x, y, sum.map(|s| (s / (k * k)) as u8));
        }
    }
    out
}
