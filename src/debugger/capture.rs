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
use ge::texture::TextureState;
use ge::tile::FbFormat;
use ge::{Ge, Memory};
use std::sync::{Arc, OnceLock};

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
#[derive(Debug, Clone, PartialEq, Eq)]
struct Window {
    width: u32,
    bpp: u32,
    bytes: Vec<u8>,
}

impl Window {
    fn read(ge: &Ge, addr: u32, stride: u32, bpp: u32) -> Window {
        let width = shown_width(stride);
        let row = (width * bpp) as usize;
        let mut bytes = Vec::with_capacity(row * BUFFER_ROWS as usize);
        for y in 0..BUFFER_ROWS {
            let a = addr.wrapping_add(y.wrapping_mul(stride).wrapping_mul(bpp));
            // A row inside one region is one copy; only rows crossing a mirror edge or
            // unmapped memory go byte by byte.
            match ge.mem.slice(a, row as u32) {
                Ok(src) => bytes.extend_from_slice(src),
                Err(_) => {
                    let at = bytes.len();
                    bytes.resize(at + row, 0);
                    ge.mem.read_wrapping(a, &mut bytes[at..]);
                }
            }
        }
        Window { width, bpp, bytes }
    }

    /// Map each pixel's little-endian value through `f` to `N` bytes (1 grey, 3 RGB, 4 RGBA).
    fn plane<const N: usize>(&self, f: impl Fn(u32) -> [u8; N]) -> Plane {
        // Output written through fixed-size chunks (no per-pixel capacity checks).
        let mut data = vec![0u8; self.bytes.len() / self.bpp as usize * N];
        match self.bpp {
            4 => {
                for (o, p) in data.chunks_exact_mut(N).zip(self.bytes.chunks_exact(4)) {
                    o.copy_from_slice(&f(u32::from_le_bytes([p[0], p[1], p[2], p[3]])));
                }
            }
            _ => {
                for (o, p) in data.chunks_exact_mut(N).zip(self.bytes.chunks_exact(2)) {
                    o.copy_from_slice(&f(u32::from(u16::from_le_bytes([p[0], p[1]]))));
                }
            }
        }
        Plane { width: self.width, height: BUFFER_ROWS, channels: N as u8, data }
    }
}

/// A picture in 1 (grey), 3 (RGB) or 4 (RGBA) bytes per pixel, top row first: the report
/// encodes these without widening every buffer to RGBA first (a grey ramp is a quarter of
/// the bytes to convert and compress).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Plane {
    pub width: u32,
    pub height: u32,
    pub channels: u8,
    pub data: Vec<u8>,
}

impl Plane {
    /// The same pixels as RGBA (grey to R = G = B, missing alpha opaque).
    pub fn to_image(&self) -> Image {
        let n = self.channels as usize;
        let mut rgba = Vec::with_capacity(self.data.len() / n.max(1) * 4);
        for p in self.data.chunks_exact(n.max(1)) {
            rgba.extend_from_slice(&match *p {
                [g] => [g, g, g, 255],
                [r, g, b] => [r, g, b, 255],
                [r, g, b, a] => [r, g, b, a],
                _ => [0, 0, 0, 255],
            });
        }
        Image { width: self.width, height: self.height, rgba }
    }

    /// An RGB plane whose pixels are all grey (R = G = B; a cleared buffer) as one channel.
    pub fn grey_if_possible(self) -> Plane {
        if self.channels != 3 || !self.data.chunks_exact(3).all(|p| p[0] == p[1] && p[1] == p[2]) {
            return self;
        }
        let data = self.data.chunks_exact(3).map(|p| p[0]).collect();
        Plane { channels: 1, data, ..self }
    }

    /// `img` in the fewest channels that hold it exactly: grey when opaque with R = G = B,
    /// RGB when opaque, else RGBA.
    pub fn from_image(img: &Image) -> Plane {
        let px = || img.rgba.chunks_exact(4);
        let opaque = px().all(|p| p[3] == 255);
        let grey = opaque && px().all(|p| p[0] == p[1] && p[1] == p[2]);
        let (channels, data) = if grey {
            (1, px().map(|p| p[0]).collect())
        } else if opaque {
            (3, px().flat_map(|p| [p[0], p[1], p[2]]).collect())
        } else {
            (4, img.rgba.clone())
        };
        Plane { width: img.width, height: img.height, channels, data }
    }
}

/// A picture of at most 256 distinct colours as indices into a palette (colours in order of
/// first appearance): what the report embeds as an indexed-colour PNG. A CLUT texture is
/// decoded through a palette, so it usually fits, and its PNG then compresses one byte per
/// pixel (or less) instead of three or four.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Indexed {
    pub width: u32,
    pub height: u32,
    pub palette: Vec<[u8; 4]>,
    pub indices: Vec<u8>,
}

impl Indexed {
    /// `img` as palette indices, or `None` when it has more than 256 colours.
    pub fn from_image(img: &Image) -> Option<Indexed> {
        // Open addressing over 1 024 slots (at most 256 used, so a probe always ends):
        // (colour, index + 1), 0 marking an empty slot.
        const SLOTS: usize = 1024;
        let mut slots = [(0u32, 0u16); SLOTS];
        let mut palette: Vec<[u8; 4]> = Vec::new();
        let mut index_of = |c: u32| -> Option<u8> {
            let mut h = (c.wrapping_mul(0x9E37_79B1) >> 22) as usize;
            loop {
                match slots[h] {
                    (k, i) if i != 0 && k == c => return Some((i - 1) as u8),
                    (_, 0) => {
                        if palette.len() == 256 {
                            return None;
                        }
                        palette.push(c.to_le_bytes());
                        slots[h] = (c, palette.len() as u16);
                        return Some((palette.len() - 1) as u8);
                    }
                    _ => h = (h + 1) % SLOTS,
                }
            }
        };
        let mut indices = vec![0u8; img.rgba.len() / 4];
        // Runs of one colour (common in textures) skip the table.
        let mut last = img.rgba.get(..4).map_or(0, |p| !u32::from_le_bytes([p[0], p[1], p[2], p[3]]));
        let mut last_i = 0u8;
        for (o, p) in indices.iter_mut().zip(img.rgba.chunks_exact(4)) {
            let c = u32::from_le_bytes([p[0], p[1], p[2], p[3]]);
            if c != last {
                last = c;
                last_i = index_of(c)?;
            }
            *o = last_i;
        }
        Some(Indexed { width: img.width, height: img.height, palette, indices })
    }

    /// The pixels as RGBA.
    pub fn to_image(&self) -> Image {
        let rgba = self.indices.iter().flat_map(|&i| self.palette[usize::from(i)]).collect();
        Image { width: self.width, height: self.height, rgba }
    }
}

/// [`expand16`] of one 16-bit format as two tables, one per byte of the pixel. Each
/// channel of `expand16(p)` is the sum of what the two bytes give alone: a field split
/// across the bytes (565's and 5551's green) replicates its top bits into its low bits,
/// and those come from one byte (tested for every pixel value). Two lookups and an add per
/// pixel instead of shifting three fields (20 instructions a pixel on 16131's buffers).
struct Expand16 {
    lo: [u32; 256],
    hi: [u32; 256],
}

impl Expand16 {
    fn new(fmt: FbFormat) -> Expand16 {
        let rgb = |p: u16| {
            let [r, g, b] = expand16(p, fmt as u32);
            u32::from_le_bytes([r, g, b, 0])
        };
        Expand16 { lo: std::array::from_fn(|b| rgb(b as u16)), hi: std::array::from_fn(|b| rgb((b as u16) << 8)) }
    }

    fn rgb(&self, p: u32) -> [u8; 3] {
        let [r, g, b, _] = (self.lo[(p & 0xFF) as usize] + self.hi[((p >> 8) & 0xFF) as usize]).to_le_bytes();
        [r, g, b]
    }
}

/// What the pictures are made from, copied out of the GE after a draw.
#[derive(Debug, Clone)]
pub struct Snapshot {
    fmt: FbFormat,
    colour: Window,
    depth: Window,
    texture: Option<Arc<Texture>>,
    /// The decoded CLUT cache ([`palette`]); its swatch is drawn when asked for.
    palette: Option<Arc<[[u8; 4]]>>,
}

impl Snapshot {
    /// Copy the render target and depth buffer the registers select, and decode the bound
    /// texture and CLUT.
    pub fn take(ge: &Ge) -> Snapshot {
        let mut snap = Snapshot::take_untextured(ge);
        snap.texture = texture(ge).map(|img| Arc::new(Texture::decoded(img)));
        snap
    }

    /// [`Snapshot::take`] without the texture (cheap: no decoding); see
    /// [`Snapshot::add_texture`].
    pub fn take_untextured(ge: &Ge) -> Snapshot {
        let t = fb_target(&ge.state.regs);
        Snapshot {
            fmt: t.fmt,
            colour: Window::read(ge, t.color_addr, t.stride, t.fmt.bpp()),
            depth: Window::read(ge, t.depth_addr, t.zstride, 2),
            texture: None,
            palette: palette(ge),
        }
    }

    /// Add the bound texture through `memo` (for a snapshot of the same GE state): shared
    /// with an earlier snapshot of the same texture, else copied to be decoded on first use.
    pub fn add_texture(&mut self, ge: &Ge, memo: &mut TextureMemo) {
        self.texture = memo.texture(ge);
    }

    /// The bound texture ([`Texture::image`] is what [`texture`] decodes).
    pub fn texture(&self) -> Option<&Arc<Texture>> {
        self.texture.as_ref()
    }

    /// The CLUT swatch, as [`clut`] draws it (drawn on each call).
    pub fn clut(&self) -> Option<Image> {
        self.palette.as_deref().map(swatch)
    }

    /// The CLUT cache the swatch shows: equal palettes give equal swatches.
    pub fn palette(&self) -> Option<&[[u8; 4]]> {
        self.palette.as_deref()
    }

    /// The colour, depth and stencil windows of both snapshots hold the same bytes in the
    /// same format, so their pictures are equal.
    pub fn same_colour(&self, other: &Snapshot) -> bool {
        self.fmt == other.fmt && self.colour == other.colour
    }

    /// Pixels of the colour window (and of the stencil picture made from it).
    pub fn colour_pixels(&self) -> u64 {
        u64::from(self.colour.width) * u64::from(BUFFER_ROWS)
    }

    /// Pixels of the depth window.
    pub fn depth_pixels(&self) -> u64 {
        u64::from(self.depth.width) * u64::from(BUFFER_ROWS)
    }

    /// The depth windows hold the same bytes.
    pub fn same_depth(&self, other: &Snapshot) -> bool {
        self.depth == other.depth
    }

    /// The colour buffer as RGB (the display ignores alpha; the stencil picture shows it).
    pub fn colour_plane(&self) -> Plane {
        // One loop per format, so the format is not tested per pixel.
        match self.fmt {
            FbFormat::Rgba8888 => self.colour.plane(|v| [v as u8, (v >> 8) as u8, (v >> 16) as u8]),
            f => {
                let t = Expand16::new(f);
                self.colour.plane(|v| t.rgb(v))
            }
        }
    }

    /// The 16-bit depth buffer as a grey ramp: grey = depth >> 8 (0 black, 65535 white).
    pub fn depth_plane(&self) -> Plane {
        self.depth.plane(|z| [(z >> 8) as u8])
    }

    /// The stencil bits (the colour buffer's alpha bits, ge-reference.md §14) scaled to a
    /// grey ramp: 8888 as is, 4444 ×17, 5551 0 or 255; 565 has none (black).
    pub fn stencil_plane(&self) -> Plane {
        match self.fmt {
            FbFormat::Rgba8888 => self.colour.plane(|v| [(v >> 24) as u8]),
            FbFormat::Rgba4444 => self.colour.plane(|v| [((v >> 12) & 0xF) as u8 * 17]),
            FbFormat::Rgba5551 => self.colour.plane(|v| [if v & 0x8000 != 0 { 255 } else { 0 }]),
            FbFormat::Rgb565 => self.colour.plane(|_| [0]),
        }
    }

    /// [`Snapshot::colour_plane`] as RGBA.
    pub fn colour(&self) -> Image {
        self.colour_plane().to_image()
    }

    /// [`Snapshot::depth_plane`] as RGBA.
    pub fn depth(&self) -> Image {
        self.depth_plane().to_image()
    }

    /// [`Snapshot::stencil_plane`] as RGBA.
    pub fn stencil(&self) -> Image {
        self.stencil_plane().to_image()
    }

    /// Every picture.
    pub fn buffers(self) -> Buffers {
        Buffers {
            colour: self.colour(),
            depth: self.depth(),
            stencil: self.stencil(),
            clut: self.clut(),
            texture: self.texture.map(|t| t.image().clone()),
        }
    }
}

/// Level 0 of a bound texture, decoded on first use. The report's replay thread only
/// copies what the decode reads (the registers' texture state and the bytes the level can
/// address, see [`TextureMemo`]); its encoding threads decode that copy, so the decode (21 M
/// instructions for 15816's textures) leaves the replay's path.
pub struct Texture {
    pub width: u32,
    pub height: u32,
    /// The decode's input while not decoded: the texture state and the copied bytes, which
    /// start at level 0's address.
    src: Option<(TextureState, Arc<Vec<u8>>)>,
    image: OnceLock<Image>,
}

impl std::fmt::Debug for Texture {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Texture {}x{}", self.width, self.height)
    }
}

impl Texture {
    fn decoded(img: Image) -> Texture {
        Texture { width: img.width, height: img.height, src: None, image: OnceLock::from(img) }
    }

    /// The texture with its CLUT applied, as [`texture`] decodes it.
    pub fn image(&self) -> &Image {
        self.image_in(&mut None)
    }

    /// [`Texture::image`], decoding through `scratch`, a memory that is all zero between
    /// calls (made on first use; a new 34 MiB `Memory` per texture cost more than the
    /// decode on dumps of small textures). The copied bytes are put back at their address
    /// and cleared again afterwards.
    pub fn image_in(&self, scratch: &mut Option<Memory>) -> &Image {
        self.image.get_or_init(|| {
            let Some((st, bytes)) = &self.src else { return Image::black(0, 0) };
            let mem = scratch.get_or_insert_with(Memory::new);
            let addr = st.levels[0].addr;
            // Cannot fail: the bytes were read from this range in one piece
            // ([`TextureMemo::texture`]).
            let _ = mem.write(addr, bytes);
            let img = decode_level0(st, mem);
            if let Ok(b) = mem.slice_mut(addr, bytes.len() as u32) {
                b.fill(0);
            }
            img
        })
    }
}

/// Level-0 textures already seen in one replay, keyed by everything the decode reads: the
/// registers [`ge::texture::TextureState::decode`] takes level 0's layout, format and CLUT
/// indexing from, the decoded palette, and the bytes in memory the level can address. A
/// report's keyframes often show the same texture; a key is a copy of those bytes (a few
/// hundred KiB at most for a 512×512 level), far cheaper than decoding it again, and the
/// copy is also what [`Texture::image`] decodes later.
#[derive(Default)]
pub struct TextureMemo {
    seen: Vec<(TextureKey, Arc<Texture>)>,
}

struct TextureKey {
    regs: [u32; 7],
    palette: Arc<[[u8; 4]]>,
    bytes: Arc<Vec<u8>>,
}

impl TextureMemo {
    /// The bound texture (`None` when texturing is off), shared with an earlier call for the
    /// same key.
    pub fn texture(&mut self, ge: &Ge) -> Option<Arc<Texture>> {
        let regs = &ge.state.regs;
        if !regs.enabled(op::TEXTUREMAPENABLE) {
            return None;
        }
        let st = ge::texture::TextureState::decode(regs, &ge.state.clut, false);
        let info = st.levels[0];
        // Texel (u, v) of a level with u < w, v < h lies below
        // (round_up(h, 8) + 8) · max(bufw, w) · bits / 8 + 128 bytes from its base in every
        // layout (`LevelSrc::offset`: linear rows, 8-row swizzle tiles; 4×4 DXT blocks).
        let (w, h) = (info.width.min(512), info.height.min(512));
        let len = ((h.next_multiple_of(8) + 8) * info.bufw.max(w) * st.format.bits_per_texel()).div_ceil(8) + 128;
        // Compared in place; copied only for a texture not seen before.
        let in_place = ge.mem.slice(info.addr, len).ok();
        let bytes: std::borrow::Cow<'_, [u8]> = match in_place {
            Some(b) => b.into(),
            None => {
                let mut b = vec![0u8; len as usize];
                ge.mem.read_wrapping(info.addr, &mut b);
                b.into()
            }
        };
        let regs = [
            op::TEXFORMAT,
            op::CLUTFORMAT,
            op::TEXMODE,
            op::TEXADDR0,
            op::TEXBUFWIDTH0,
            op::TEXSIZE0,
            op::TEXTUREMAPENABLE,
        ]
        .map(|c| regs.arg(c));
        if let Some((_, t)) =
            self.seen.iter().find(|(k, _)| k.regs == regs && *k.palette == *st.palette && **k.bytes == *bytes)
        {
            return Some(t.clone());
        }
        let bytes = Arc::new(bytes.into_owned());
        let palette = st.palette.clone();
        let t = if in_place.is_some() {
            Texture { width: w, height: h, src: Some((st, bytes.clone())), image: OnceLock::new() }
        } else {
            // Bytes read across a region's end or from unmapped memory: decoded now, from
            // the GE's own memory (they would not copy back in one piece).
            Texture::decoded(decode_level0(&st, &ge.mem))
        };
        let t = Arc::new(t);
        self.seen.push((TextureKey { regs, palette, bytes }, t.clone()));
        Some(t)
    }
}

/// Level 0 of `st` read from `mem` as a picture.
fn decode_level0(st: &TextureState, mem: &Memory) -> Image {
    let info = st.levels[0];
    let (w, h) = (info.width.min(512), info.height.min(512));
    let rgba = ge::texture::decode_level(st, mem, 0).into_flattened();
    Image { width: w, height: h, rgba }
}

/// The colour buffer the current registers draw to ([`Snapshot::colour`]).
pub fn colour(ge: &Ge) -> Image {
    let t = fb_target(&ge.state.regs);
    let s = Snapshot {
        fmt: t.fmt,
        colour: Window::read(ge, t.color_addr, t.stride, t.fmt.bpp()),
        depth: Window { width: 0, bpp: 2, bytes: Vec::new() },
        texture: None,
        palette: None,
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
        palette: None,
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
    Some(decode_level0(&st, &ge.mem))
}

/// Side of one CLUT entry in the swatch, in pixels.
pub const SWATCH_CELL: u32 = 8;
/// Entries per swatch row.
pub const SWATCH_COLUMNS: u32 = 16;

/// The CLUT cache decoded in CLUTFORMAT's colour format (512 entries for 16-bit formats,
/// 256 for 8888), 16 per row, each an 8×8 square with its alpha; `None` unless texturing
/// is on with a CLUT texture format.
pub fn clut(ge: &Ge) -> Option<Image> {
    palette(ge).as_deref().map(swatch)
}

/// The CLUT cache as [`clut`] shows it, before it is drawn.
fn palette(ge: &Ge) -> Option<Arc<[[u8; 4]]>> {
    let regs = &ge.state.regs;
    if !regs.enabled(op::TEXTUREMAPENABLE) {
        return None;
    }
    let st = ge::texture::TextureState::decode(regs, &ge.state.clut, false);
    (!st.palette.is_empty()).then_some(st.palette)
}

/// Rows (in pixels) of the swatch of `entries` CLUT entries.
pub fn swatch_height(entries: usize) -> u32 {
    (entries as u32).div_ceil(SWATCH_COLUMNS) * SWATCH_CELL
}

/// The swatch of a palette ([`clut`]); cells past the last entry are black.
fn swatch(palette: &[[u8; 4]]) -> Image {
    let mut img = Image::black(SWATCH_COLUMNS * SWATCH_CELL, swatch_height(palette.len()));
    let (cell, row) = (SWATCH_CELL as usize * 4, (SWATCH_COLUMNS * SWATCH_CELL) as usize * 4);
    // One pixel row of a row of cells is built once, then copied to the cell's other rows.
    for (entries, band) in
        palette.chunks(SWATCH_COLUMNS as usize).zip(img.rgba.chunks_exact_mut(row * SWATCH_CELL as usize))
    {
        let (first, rest) = band.split_at_mut(row);
        for (c, px) in entries.iter().zip(first.chunks_exact_mut(cell)) {
            for p in px.chunks_exact_mut(4) {
                p.copy_from_slice(c);
            }
        }
        for r in rest.chunks_exact_mut(row) {
            r.copy_from_slice(first);
        }
    }
    img
}

/// Every picture of the GE's current state.
pub fn buffers(ge: &Ge) -> Buffers {
    Snapshot::take(ge).buffers()
}

/// A box-filtered copy of `p` at most `max_w` wide (aspect kept), for timelines: each
/// output pixel is the mean (rounded down) of a k×k block, k = ⌈width / max_w⌉.
pub fn thumbnail(p: &Plane, max_w: u32) -> Plane {
    let k = p.width.div_ceil(max_w.max(1)).max(1) as usize;
    let (pw, ph, n) = (p.width as usize, p.height as usize, p.channels as usize);
    if pw == 0 || ph == 0 || !(1..=4).contains(&n) {
        return Plane { width: 0, height: 0, channels: p.channels, data: Vec::new() };
    }
    let (w, h) = ((pw / k).max(1), (ph / k).max(1));
    let mut data = vec![0u8; w * h * n];
    // A column of a block sums k values of at most 255: 16-bit sums (twice the lanes of
    // 32-bit ones in the vectorised row adds) hold it up to k = 257, far past any buffer
    // (k ≤ 5 at 120 pixels wide).
    if k <= 257 {
        box_rows::<u16>(p, k, w, &mut data);
    } else {
        box_rows::<u32>(p, k, w, &mut data);
    }
    Plane { width: w as u32, height: h as u32, channels: p.channels, data }
}

/// The rows of [`thumbnail`]'s output (`w` pixels wide) into `data`, summing columns in
/// `T`, which must hold k × 255.
fn box_rows<T>(p: &Plane, k: usize, w: usize, data: &mut [u8])
where
    T: Copy + Default + From<u8> + std::ops::AddAssign + Into<u32>,
{
    let (pw, ph, n) = (p.width as usize, p.height as usize, p.channels as usize);
    let row = pw * n;
    let kk = (k * k) as u32;
    // Rows are summed column by column first (a straight add the compiler vectorises; the
    // first row of a block is assigned, so nothing is cleared per row), then each output
    // pixel adds its k columns.
    let mut cols = vec![T::default(); row];
    for (y, out) in data.chunks_exact_mut(w * n).enumerate() {
        for dy in 0..k {
            // Clamped only when the picture is shorter than one block.
            let sy = (y * k + dy).min(ph - 1);
            let src = &p.data[sy * row..(sy + 1) * row];
            if dy == 0 {
                for (c, &v) in cols.iter_mut().zip(src) {
                    *c = T::from(v);
                }
            } else {
                for (c, &v) in cols.iter_mut().zip(src) {
                    *c += T::from(v);
                }
            }
        }
        // k ≤ width, so the w blocks of k columns lie inside the row. Each block's pixels
        // are added channel-wise into one accumulator (a strided iterator per channel cost
        // 60 % of the thumbnail).
        for (block, o) in cols.chunks_exact(k * n).zip(out.chunks_exact_mut(n)) {
            let mut acc = [0u32; 4];
            for px in block.chunks_exact(n) {
                for (a, &v) in acc.iter_mut().zip(px) {
                    *a += v.into();
                }
            }
            for (o, a) in o.iter_mut().zip(acc) {
                *o = (a / kk) as u8;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The thumbnail's plain definition: per output pixel, the mean of its k×k block read
    /// through `Image::get` with coordinates clamped to the picture.
    fn thumbnail_plain(img: &Image, max_w: u32) -> Image {
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

    /// Test data: a xorshift32 sequence from `seed`.
    fn xorshift(mut seed: u32) -> impl FnMut() -> u32 {
        move || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed
        }
    }

    #[test]
    fn expand16_tables_equal_expand16_for_every_pixel() {
        for fmt in [FbFormat::Rgb565, FbFormat::Rgba5551, FbFormat::Rgba4444] {
            let t = Expand16::new(fmt);
            for p in 0..=u16::MAX {
                assert_eq!(t.rgb(u32::from(p)), expand16(p, fmt as u32), "{fmt:?} {p:#06x}");
            }
        }
    }

    #[test]
    fn thumbnail_equals_the_plain_box_filter() {
        let mut next = xorshift(0x1234_5678);
        for (w, h, max_w) in
            [(480, 272, 120), (64, 272, 120), (7, 3, 2), (5, 1, 2), (1, 1, 120), (33, 17, 4), (300, 2, 1)]
        {
            for channels in [1u8, 3, 4] {
                let data = (0..w * h * u32::from(channels)).map(|_| next() as u8).collect();
                let p = Plane { width: w, height: h, channels, data };
                let fast = thumbnail(&p, max_w);
                assert_eq!(fast.channels, channels);
                assert_eq!(fast.to_image(), thumbnail_plain(&p.to_image(), max_w), "{w}x{h} c{channels} {max_w}");
            }
        }
    }

    #[test]
    fn indexed_keeps_the_pixels_up_to_256_colours() {
        let mut next = xorshift(0x9876_5432);
        for colours in [1u32, 2, 3, 16, 17, 255, 256, 257, 4000] {
            // Colours that collide in the slot table's hash (same top bits of c·k) as well.
            let pal: Vec<[u8; 4]> =
                (0..colours).map(|i| (i.wrapping_mul(0x61C8_8647) ^ next() & 0xFF).to_le_bytes()).collect();
            let distinct = pal.iter().collect::<std::collections::HashSet<_>>().len();
            let rgba: Vec<u8> = (0..64 * 64).flat_map(|i| pal[(i * 7 + i / 64) as usize % pal.len()]).collect();
            let img = Image { width: 64, height: 64, rgba };
            let used = img.rgba.chunks_exact(4).collect::<std::collections::HashSet<_>>().len();
            match Indexed::from_image(&img) {
                Some(ix) => {
                    assert!(used <= 256 && ix.palette.len() == used, "{colours}: {used} used");
                    assert_eq!(ix.to_image(), img);
                }
                None => assert!(used > 256, "{colours} colours ({distinct} distinct, {used} used) fit"),
            }
        }
    }

    /// The swatch equals its plain definition (each entry an 8×8 square, 16 per row, black
    /// past the last entry) for full and partial rows.
    #[test]
    fn swatch_draws_each_entry_as_a_square() {
        for n in [1usize, 15, 16, 17, 256, 512] {
            let pal: Vec<[u8; 4]> =
                (0..n).map(|i| [i as u8, (i >> 8) as u8 * 50, 255 - i as u8, (i * 3) as u8]).collect();
            let mut plain = Image::black(SWATCH_COLUMNS * SWATCH_CELL, swatch_height(n));
            for (i, c) in pal.iter().enumerate() {
                let (cx, cy) = (i as u32 % SWATCH_COLUMNS, i as u32 / SWATCH_COLUMNS);
                for y in 0..SWATCH_CELL {
                    for x in 0..SWATCH_CELL {
                        plain.put(cx * SWATCH_CELL + x, cy * SWATCH_CELL + y, *c);
                    }
                }
            }
            assert_eq!(swatch(&pal), plain, "{n} entries");
        }
    }

    #[test]
    fn plane_from_image_keeps_the_pixels() {
        let grey = Image { width: 2, height: 1, rgba: vec![9, 9, 9, 255, 200, 200, 200, 255] };
        let rgb = Image { width: 2, height: 1, rgba: vec![9, 8, 9, 255, 200, 200, 200, 255] };
        let rgba = Image { width: 2, height: 1, rgba: vec![9, 9, 9, 254, 200, 200, 200, 255] };
        for (img, n) in [(grey, 1), (rgb, 3), (rgba, 4)] {
            let p = Plane::from_image(&img);
            assert_eq!(p.channels, n);
            assert_eq!(p.to_image(), img);
            let rgb =
                Plane { channels: 3, data: img.rgba.chunks_exact(4).flat_map(|p| [p[0], p[1], p[2]]).collect(), ..p };
            let g = rgb.clone().grey_if_possible();
            let grey = img.rgba.chunks_exact(4).all(|p| p[0] == p[1] && p[1] == p[2]);
            assert_eq!(g.channels, if grey { 1 } else { 3 });
            assert_eq!(g.to_image(), rgb.to_image());
        }
    }
}
