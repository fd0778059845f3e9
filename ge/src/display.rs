//! The display buffer, PPSSPP-style screenshots and their comparison
//! (`docs/ppdmp-format.md` §8).
//!
//! * [`DisplayBuffer::capture`] reads 480×272 pixels from the display buffer (address,
//!   stride in pixels, pixel format) exactly as PPSSPP's headless screenshot does and
//!   returns the 512×272 RGBA image `--screenshot-save` writes: columns 480–511 black,
//!   alpha forced to 255.
//! * [`Image::load`] reads PNG references, and BMPs the way PPSSPP's comparer does (§8.4).
//! * [`mse`] is PPSSPP's score: squared R, G, B differences over 480×272, / 391,680.
//! * [`diff_image`] shows actual, reference and their difference for humans.

use crate::mem::Memory;
use std::path::Path;
use thiserror::Error;

/// Visible screen size.
pub const SCREEN_W: u32 = 480;
pub const SCREEN_H: u32 = 272;
/// Width of a saved screenshot (the display stride PPSSPP saves).
pub const CANVAS_W: u32 = 512;

/// A display-buffer setting as given to the display API (DISPLAY record, §3.8).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DisplayBuffer {
    /// Top address; a zero top byte means VRAM (§8.1).
    pub addr: u32,
    /// Line width in pixels (an i32 in the file).
    pub stride: u32,
    /// Pixel format: low byte 0 = 565, 1 = 5551, 2 = 4444, 3 = 8888.
    pub format: u32,
}

impl DisplayBuffer {
    /// The display at power-on [PP sceDisplay.cpp __DisplayInit]: VRAM start, 512, 8888.
    pub fn power_on() -> DisplayBuffer {
        DisplayBuffer { addr: 0x0400_0000, stride: 512, format: 3 }
    }

    /// The address the software renderer reads: a zero top byte means uncached VRAM
    /// [PP SoftGpu.cpp SetDisplayFramebuffer].
    pub fn effective_addr(&self) -> u32 {
        if self.addr & 0xFF00_0000 == 0 {
            0x4400_0000 | self.addr
        } else {
            self.addr
        }
    }

    /// Bytes per pixel: 4 for 8888, else 2 [PP SoftGpu.cpp GetCurrentFramebuffer].
    pub fn bytes_per_pixel(&self) -> u32 {
        if self.format & 0xFF == 3 {
            4
        } else {
            2
        }
    }

    /// The screenshot PPSSPP would save (§8.2, §8.3). An unmapped start address gives an
    /// all-black picture (PPSSPP's copy fails and its buffer stays zero); so does an
    /// unknown format (PPSSPP's conversion fails: the comparison errors out).
    pub fn capture(&self, mem: &Memory) -> Image {
        let base = self.effective_addr();
        let fmt = self.format & 0xFF;
        if Memory::locate(base).is_none() || fmt > 3 {
            return Image::black(CANVAS_W, SCREEN_H);
        }
        let bpp = self.bytes_per_pixel();
        let mut scratch = vec![0u8; (SCREEN_W * bpp) as usize];
        // Rows are appended, not written over a black canvas: filling the canvas first cost
        // more than the conversion (posed p01ex00 bench, callgrind).
        let mut rgba = Vec::with_capacity((CANVAS_W * SCREEN_H * 4) as usize);
        for y in 0..SCREEN_H {
            // Rows are raw memory reads: they may run into the next VRAM mirror, and a
            // stride of 0 repeats the first row. The stride is an i32.
            let step = (self.stride as i32).wrapping_mul(bpp as i32).wrapping_mul(y as i32);
            let at = base.wrapping_add(step as u32);
            // A row inside one physical array is read in place; only rows running into a
            // mirror or unmapped bytes walk the address map byte by byte.
            let row: &[u8] = match mem.slice(at, scratch.len() as u32) {
                Ok(s) => s,
                Err(_) => {
                    mem.read_wrapping(at, &mut scratch);
                    &scratch
                }
            };
            append_row(fmt, row, &mut rgba);
            // Columns past the screen's 480 are black (one append, not one per pixel).
            rgba.extend_from_slice(BLACK_TAIL.as_flattened());
        }
        Image { width: CANVAS_W, height: SCREEN_H, rgba }
    }
}

/// Display pixels `row` (format `fmt`, 0–3) appended to `rgba` as opaque RGBA. The
/// format is matched once per row; 16-bit pixels go eight at a time through fixed-size
/// lanes the compiler vectorises (through [`expand16`] one by one, a 16-bit 480×272
/// capture cost 3.4 M instructions, callgrind), 8888 rows are copied and get alpha 255
/// four pixels at a time.
fn append_row(fmt: u32, row: &[u8], rgba: &mut Vec<u8>) {
    let at = rgba.len();
    if fmt == 3 {
        let n = row.len() / 4 * 4;
        rgba.extend_from_slice(&row[..n]);
        let opaque = u128::from_le_bytes(std::array::from_fn(|i| if i % 4 == 3 { 255 } else { 0 }));
        let mut lanes = rgba[at..].chunks_exact_mut(16);
        for px in &mut lanes {
            let w: [u8; 16] = (&*px).try_into().expect("16-byte chunk");
            px.copy_from_slice(&(u128::from_le_bytes(w) | opaque).to_le_bytes());
        }
        for px in lanes.into_remainder().chunks_exact_mut(4) {
            px[3] = 255;
        }
        return;
    }
    rgba.resize(at + row.len() / 2 * 4, 0);
    let out = &mut rgba[at..];
    match fmt {
        0 => row16(row, out, |p| rgb_word(rgb16::<0>(p))),
        1 => row16(row, out, |p| rgb_word(rgb16::<1>(p))),
        _ => row16(row, out, |p| rgb_word(rgb16::<2>(p))),
    }
}

/// 16-bit pixels of `row` through `px` (pixel value to little-endian RGBA word) into `out`,
/// eight at a time, then the rest one by one.
#[inline(always)]
fn row16(row: &[u8], out: &mut [u8], px: impl Fn(u32) -> u32) {
    let n = (row.len() / 2).min(out.len() / 4);
    let (row, out) = (&row[..n * 2], &mut out[..n * 4]);
    let mut dst = out.chunks_exact_mut(32);
    let mut src = row.chunks_exact(16);
    for (o, i) in (&mut dst).zip(&mut src) {
        // Widen, convert, store: three separate lane loops, each one vector operation.
        let p: [u32; 8] = std::array::from_fn(|k| u32::from(u16::from_le_bytes([i[2 * k], i[2 * k + 1]])));
        let w = p.map(|p| px(p).to_le_bytes());
        o.copy_from_slice(w.as_flattened());
    }
    for (o, i) in dst.into_remainder().chunks_exact_mut(4).zip(src.remainder().chunks_exact(2)) {
        o.copy_from_slice(&px(u32::from(u16::from_le_bytes([i[0], i[1]]))).to_le_bytes());
    }
}

/// Opaque RGBA word (red in the low byte) of three 8-bit channels.
#[inline(always)]
fn rgb_word([r, g, b]: [u32; 3]) -> u32 {
    r | (g << 8) | (b << 16) | 0xFF00_0000
}

/// The 8-bit channels of 16-bit display pixel `p` in format `FMT` (0 5650, 1 5551, else
/// 4444) by bit replication (§8.2; trap 14: the references only contain replicated
/// values) [PP ColorConv.cpp Convert*ToBGRA8888].
#[inline(always)]
fn rgb16<const FMT: u32>(p: u32) -> [u32; 3] {
    match FMT {
        0 => [c5(p), c6(p >> 5), c5(p >> 11)],
        1 => [c5(p), c5(p >> 5), c5(p >> 10)],
        _ => [c4(p), c4(p >> 4), c4(p >> 8)],
    }
}

/// The low 5, 6 or 4 bits of `v` widened to 8 by bit replication (§8.2).
#[inline(always)]
fn c5(v: u32) -> u32 {
    let v = v & 31;
    (v << 3) | (v >> 2)
}

#[inline(always)]
fn c6(v: u32) -> u32 {
    let v = v & 63;
    (v << 2) | (v >> 4)
}

#[inline(always)]
fn c4(v: u32) -> u32 {
    (v & 15) * 17
}

/// The opaque black pixels right of the screen in each captured row.
const BLACK_TAIL: [[u8; 4]; (CANVAS_W - SCREEN_W) as usize] = [[0, 0, 0, 255]; (CANVAS_W - SCREEN_W) as usize];

/// 16-bit display pixel to 8-bit RGB ([`rgb16`]).
pub fn expand16(p: u16, fmt: u32) -> [u8; 3] {
    let p = u32::from(p);
    let c = match fmt {
        0 => rgb16::<0>(p),
        1 => rgb16::<1>(p),
        _ => rgb16::<2>(p),
    };
    c.map(|v| v as u8)
}

/// An 8-bit RGBA picture, top row first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image {
    pub width: u32,
    pub height: u32,
    pub rgba: Vec<u8>,
}

/// Image file problems.
#[derive(Debug, Error)]
pub enum ImageError {
    #[error("{path}: {cause}")]
    Io { path: String, cause: std::io::Error },
    #[error("PNG decode: {0}")]
    PngDecode(String),
    #[error("PNG encode: {0}")]
    PngEncode(String),
    #[error("BMP of {len} bytes is too short for 512x272x32 bpp pixel data after a 54-byte header")]
    BmpTooShort { len: usize },
    #[error("image of {width}x{height} is too large")]
    TooLarge { width: u32, height: u32 },
}

impl Image {
    /// Opaque black.
    pub fn black(width: u32, height: u32) -> Image {
        let mut rgba = vec![0u8; width as usize * height as usize * 4];
        for px in rgba.chunks_exact_mut(4) {
            px[3] = 255;
        }
        Image { width, height, rgba }
    }

    /// The top-left `width` x `height` part (clamped to the image).
    pub fn crop(&self, width: u32, height: u32) -> Image {
        let (w, h) = (width.min(self.width), height.min(self.height));
        let mut rgba = Vec::with_capacity(w as usize * h as usize * 4);
        for y in 0..h as usize {
            let row = y * self.width as usize * 4;
            rgba.extend_from_slice(&self.rgba[row..row + w as usize * 4]);
        }
        Image { width: w, height: h, rgba }
    }

    /// Pixel (x, y), or transparent black outside the image.
    #[inline]
    pub fn get(&self, x: u32, y: u32) -> [u8; 4] {
        if x >= self.width || y >= self.height {
            return [0; 4];
        }
        let i = (y as usize * self.width as usize + x as usize) * 4;
        match self.rgba.get(i..i + 4) {
            Some(p) => [p[0], p[1], p[2], p[3]],
            None => [0; 4],
        }
    }

    #[inline]
    pub fn put(&mut self, x: u32, y: u32, px: [u8; 4]) {
        if x >= self.width || y >= self.height {
            return;
        }
        let i = (y as usize * self.width as usize + x as usize) * 4;
        if let Some(p) = self.rgba.get_mut(i..i + 4) {
            p.copy_from_slice(&px);
        }
    }

    /// Encode as an 8-bit RGBA PNG (the `png` crate's balanced compression).
    pub fn to_png(&self) -> Result<Vec<u8>, ImageError> {
        self.to_png_with(png::Compression::Balanced)
    }

    /// Encode as an 8-bit RGBA PNG with the given compression (same pixels at any level).
    pub fn to_png_with(&self, compression: png::Compression) -> Result<Vec<u8>, ImageError> {
        let mut out = Vec::new();
        {
            let mut enc = png::Encoder::new(&mut out, self.width, self.height);
            enc.set_color(png::ColorType::Rgba);
            enc.set_depth(png::BitDepth::Eight);
            enc.set_compression(compression);
            let mut w = enc.write_header().map_err(|e| ImageError::PngEncode(e.to_string()))?;
            w.write_image_data(&self.rgba).map_err(|e| ImageError::PngEncode(e.to_string()))?;
        }
        Ok(out)
    }

    pub fn save_png(&self, path: impl AsRef<Path>) -> Result<(), ImageError> {
        let path = path.as_ref();
        let bytes = self.to_png()?;
        std::fs::write(path, bytes).map_err(|cause| ImageError::Io { path: path.display().to_string(), cause })
    }

    /// Decode a reference: "BM" → PPSSPP's BMP reading, anything else → PNG (§8.4).
    pub fn from_bytes(bytes: &[u8]) -> Result<Image, ImageError> {
        if bytes.starts_with(b"BM") {
            Self::from_bmp(bytes)
        } else {
            Self::from_png(bytes)
        }
    }

    pub fn load(path: impl AsRef<Path>) -> Result<Image, ImageError> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|cause| ImageError::Io { path: path.display().to_string(), cause })?;
        Self::from_bytes(&bytes)
    }

    /// PPSSPP's BMP reading: 512×272 pixels of B, G, R, A from byte 54, bottom row first;
    /// the header is not looked at [PP Compare.cpp ScreenshotComparer::Compare].
    pub fn from_bmp(bytes: &[u8]) -> Result<Image, ImageError> {
        let n = (CANVAS_W * SCREEN_H * 4) as usize;
        let data = bytes.get(54..54 + n).ok_or(ImageError::BmpTooShort { len: bytes.len() })?;
        let mut img = Image::black(CANVAS_W, SCREEN_H);
        for y in 0..SCREEN_H {
            let src_row = (SCREEN_H - 1 - y) as usize * CANVAS_W as usize * 4;
            for x in 0..CANVAS_W {
                let p = &data[src_row + 4 * x as usize..src_row + 4 * x as usize + 4];
                img.put(x, y, [p[2], p[1], p[0], p[3]]);
            }
        }
        Ok(img)
    }

    /// Any PNG, converted to 8-bit RGBA.
    pub fn from_png(bytes: &[u8]) -> Result<Image, ImageError> {
        let err = |e: png::DecodingError| ImageError::PngDecode(e.to_string());
        let mut dec = png::Decoder::new(std::io::Cursor::new(bytes));
        dec.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
        let mut reader = dec.read_info().map_err(err)?;
        let (w, h) = (reader.info().width, reader.info().height);
        if w as u64 * h as u64 > (1 << 26) {
            return Err(ImageError::TooLarge { width: w, height: h });
        }
        let size = reader.output_buffer_size().ok_or(ImageError::TooLarge { width: w, height: h })?;
        let mut buf = vec![0u8; size];
        let info = reader.next_frame(&mut buf).map_err(err)?;
        let buf = &buf[..info.buffer_size()];
        let channels = match info.color_type {
            png::ColorType::Grayscale => 1,
            png::ColorType::GrayscaleAlpha => 2,
            png::ColorType::Rgb => 3,
            png::ColorType::Rgba => 4,
            png::ColorType::Indexed => return Err(ImageError::PngDecode("palette not expanded".into())),
        };
        let stride = info.line_size;
        let mut img = Image::black(info.width, info.height);
        for y in 0..info.height {
            let row = buf.get(y as usize * stride..(y as usize + 1) * stride).unwrap_or(&[]);
            for x in 0..info.width {
                let i = x as usize * channels;
                let Some(p) = row.get(i..i + channels) else { continue };
                let px = match channels {
                    1 => [p[0], p[0], p[0], 255],
                    2 => [p[0], p[0], p[0], p[1]],
                    3 => [p[0], p[1], p[2], 255],
                    _ => [p[0], p[1], p[2], p[3]],
                };
                img.put(x, y, px);
            }
        }
        Ok(img)
    }
}

/// Sum of squared R, G, B differences over the 480×272 screen area (§8.4). Pixels
/// outside a smaller image count as black.
pub fn squared_error(a: &Image, b: &Image) -> u64 {
    let mut sum = 0u64;
    for y in 0..SCREEN_H {
        for x in 0..SCREEN_W {
            let (p, q) = (a.get(x, y), b.get(x, y));
            for c in 0..3 {
                let d = i64::from(p[c]) - i64::from(q[c]);
                sum += (d * d) as u64;
            }
        }
    }
    sum
}

/// PPSSPP's screenshot MSE: [`squared_error`] / (480 × 272 × 3) [PP Compare.cpp].
pub fn mse(a: &Image, b: &Image) -> f64 {
    squared_error(a, b) as f64 / f64::from(SCREEN_W * SCREEN_H * 3)
}

/// A 960×544 comparison picture: actual (top left), reference (top right), the absolute
/// per-channel difference ×8 (bottom left), and the reference dimmed with every differing
/// pixel in red (bottom right). Only the 480×272 screen area is shown.
pub fn diff_image(actual: &Image, reference: &Image) -> Image {
    let mut out = Image::black(2 * SCREEN_W, 2 * SCREEN_H);
    for y in 0..SCREEN_H {
        for x in 0..SCREEN_W {
            let a = actual.get(x, y);
            let r = reference.get(x, y);
            out.put(x, y, [a[0], a[1], a[2], 255]);
            out.put(x + SCREEN_W, y, [r[0], r[1], r[2], 255]);
            let d: [u8; 3] = std::array::from_fn(|c| (a[c].abs_diff(r[c]) as u32 * 8).min(255) as u8);
            out.put(x, y + SCREEN_H, [d[0], d[1], d[2], 255]);
            let differs = d != [0, 0, 0];
            let marked = if differs { [255, 0, 0, 255] } else { [r[0] / 3, r[1] / 3, r[2] / 3, 255] };
            out.put(x + SCREEN_W, y + SCREEN_H, marked);
        }
    }
    out
}

/// Compare `img` with the golden image `dir/NAME.png`, or write it there when `bless`.
/// On a mismatch (or a missing golden) `NAME.actual.png` and `NAME.diff.png` are written
/// beside it and the error says so. Shared by the GE's and the scene builder's goldens.
pub fn check_golden(dir: &Path, name: &str, img: &Image, bless: bool) -> Result<(), String> {
    let path = dir.join(format!("{name}.png"));
    if bless {
        return img.save_png(&path).map_err(|e| format!("{name}: writing {}: {e}", path.display()));
    }
    let actual = dir.join(format!("{name}.actual.png"));
    let Ok(golden) = Image::load(&path) else {
        img.save_png(&actual).ok();
        return Err(format!("{name}: no golden at {} (bless with PSPRENDER_BLESS=1)", path.display()));
    };
    if golden.rgba == img.rgba {
        return Ok(());
    }
    img.save_png(&actual).ok();
    let diff = dir.join(format!("{name}.diff.png"));
    diff_image(img, &golden).save_png(&diff).ok();
    Err(format!("{name}: differs from golden (MSE {:.4}); see {}", mse(img, &golden), diff.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The capture as the plain per-pixel reading: each row walked through the address map,
    /// each 16-bit pixel through [`expand16`], alpha 255, columns past 480 black.
    fn plain_capture(d: &DisplayBuffer, mem: &Memory) -> Image {
        let (base, fmt, bpp) = (d.effective_addr(), d.format & 0xFF, d.bytes_per_pixel());
        let mut img = Image::black(CANVAS_W, SCREEN_H);
        if Memory::locate(base).is_none() {
            return img;
        }
        for y in 0..SCREEN_H {
            let step = (d.stride as i32).wrapping_mul(bpp as i32).wrapping_mul(y as i32);
            let mut row = vec![0u8; (SCREEN_W * bpp) as usize];
            mem.read_wrapping(base.wrapping_add(step as u32), &mut row);
            for x in 0..SCREEN_W as usize {
                let px = match fmt {
                    3 => [row[4 * x], row[4 * x + 1], row[4 * x + 2], 255],
                    _ => {
                        let [r, g, b] = expand16(u16::from_le_bytes([row[2 * x], row[2 * x + 1]]), fmt);
                        [r, g, b, 255]
                    }
                };
                let at = (y as usize * CANVAS_W as usize + x) * 4;
                img.rgba[at..at + 4].copy_from_slice(&px);
            }
        }
        img
    }

    /// Every 16-bit pixel value of every 16-bit format, in rows of every length 0–40 pixels
    /// (the eight-pixel lanes and the tail), equals [`expand16`]; 8888 rows keep their colour
    /// bytes and get alpha 255. Rows are appended after what the buffer holds. Fails when
    /// `c6` replicates from the wrong bit (`>> 3`).
    #[test]
    fn row_conversion_equals_expand16_for_every_pixel() {
        let all: Vec<u8> = (0..=u16::MAX).flat_map(u16::to_le_bytes).collect();
        let expanded = |p: u16, fmt: u32| {
            let [r, g, b] = expand16(p, fmt);
            [r, g, b, 255]
        };
        for fmt in 0..3 {
            let mut out = Vec::new();
            append_row(fmt, &all, &mut out);
            assert_eq!(out.len(), all.len() * 2);
            for (p, o) in (0..=u16::MAX).zip(out.chunks_exact(4)) {
                assert_eq!(o, expanded(p, fmt), "format {fmt} pixel {p:#06x}");
            }
            for len in 0..=40usize {
                let from = 2 * (len * 997 % 60_000);
                let mut out = vec![7u8; 4];
                append_row(fmt, &all[from..from + 2 * len], &mut out);
                assert_eq!(out.len(), 4 + len * 4, "format {fmt}, {len} pixels");
                for (i, o) in out[4..].chunks_exact(4).enumerate() {
                    let p = u16::from_le_bytes([all[from + 2 * i], all[from + 2 * i + 1]]);
                    assert_eq!(o, expanded(p, fmt), "format {fmt}, {len} pixels, pixel {i}");
                }
            }
        }
        for len in 0..=40usize {
            let row: Vec<u8> = (0..len * 4).map(|i| (i * 37 + 11) as u8).collect();
            let mut out = vec![7u8; 4];
            append_row(3, &row, &mut out);
            assert_eq!(out.len(), 4 + len * 4, "8888, {len} pixels");
            for (i, o) in out[4..].chunks_exact(4).enumerate() {
                assert_eq!(o, [row[4 * i], row[4 * i + 1], row[4 * i + 2], 255], "8888, {len} pixels, pixel {i}");
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

        /// The capture equals the plain per-pixel capture for every format, with rows
        /// crossing the VRAM mirror and the end of RAM, zero and negative strides.
        #[test]
        fn capture_equals_the_plain_capture(
            format in 0..4u32,
            high in prop::sample::select(vec![0x0000_0000u32, 0x0400_0000, 0x4400_0000, 0x0800_0000, 0x0900_0000]),
            off in 0..0x0040_0000u32,
            stride in prop::sample::select(vec![0i32, 1, 480, 512, 513, 1024, -512, -3]),
            seed in any::<u64>(),
        ) {
            let mut mem = Memory::new();
            let mut x = seed | 1;
            let mut noise = vec![0u8; 0x4000];
            for b in noise.iter_mut() {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                *b = x as u8;
            }
            let d = DisplayBuffer { addr: high.wrapping_add(off), stride: stride as u32, format };
            // Noise around the start address and around the VRAM window's end (the mirror).
            for at in [d.effective_addr() & !0xFFF, 0x041F_C000, 0x0400_0000, 0x09FF_C000] {
                for (i, chunk) in noise.chunks(0x1000).enumerate() {
                    let _ = mem.write(at.wrapping_add(i as u32 * 0x1000), chunk);
                }
            }
            let (got, want) = (d.capture(&mem), plain_capture(&d, &mem));
            prop_assert!(got == want, "capture differs for {:?}", d);
        }
    }

    #[test]
    #[allow(clippy::unusual_byte_groupings)] // grouped as the 5-6-5 fields
    fn expansion_replicates_bits() {
        // 565: R=31, G=0, B=16 → 255, 0, (16<<3)|(16>>2) = 132.
        assert_eq!(expand16(0b10000_000000_11111, 0), [255, 0, 132]);
        // G6 = 33 → (33<<2)|(33>>4) = 134.
        assert_eq!(expand16(33 << 5, 0), [0, 134, 0]);
        // 5551: B=1 → 8|0 = 8; the alpha bit does not matter.
        assert_eq!(expand16(0x8000 | (1 << 10), 1), [0, 0, 8]);
        // 4444: 0x0A5F → R=15*17, G=5*17, B=10*17.
        assert_eq!(expand16(0x0A5F, 2), [255, 85, 170]);
    }

    #[test]
    fn mse_counts_only_rgb_of_the_screen_area() {
        let a = Image::black(512, 272);
        let mut b = Image::black(512, 272);
        b.put(0, 0, [10, 0, 0, 0]); // 100, alpha ignored
        b.put(500, 5, [255, 255, 255, 255]); // outside 480: ignored
        assert_eq!(squared_error(&a, &b), 100);
        assert!((mse(&a, &b) - 100.0 / 391_680.0).abs() < 1e-12);
    }

    #[test]
    fn png_and_bmp_roundtrip() {
        let mut img = Image::black(512, 272);
        img.put(3, 4, [1, 2, 3, 255]);
        let back = Image::from_bytes(&img.to_png().unwrap()).unwrap();
        assert_eq!(back, img);
        // BMP: bottom-up B,G,R,A after 54 bytes.
        let mut bmp = vec![0u8; 54 + 512 * 272 * 4];
        bmp[0] = b'B';
        bmp[1] = b'M';
        let row = 272 - 1 - 4; // y = 4
        let i = 54 + (row * 512 + 3) * 4;
        bmp[i..i + 4].copy_from_slice(&[3, 2, 1, 9]);
        let b = Image::from_bytes(&bmp).unwrap();
        assert_eq!(b.get(3, 4), [1, 2, 3, 9]);
        assert!(matches!(Image::from_bytes(&bmp[..100]), Err(ImageError::BmpTooShort { .. })));
    }

    #[test]
    fn capture_reads_the_display_format() {
        let mut mem = Memory::new();
        // 5551 at 0x04000000 (given as 0x00000000 → VRAM), stride 512.
        mem.write(0x0400_0000, &0x801Fu16.to_le_bytes()).unwrap();
        // Row 1 pixel 0.
        mem.write(0x0400_0000 + 1024, &(31u16 << 10).to_le_bytes()).unwrap();
        let img = DisplayBuffer { addr: 0, stride: 512, format: 1 }.capture(&mem);
        assert_eq!((img.width, img.height), (512, 272));
        assert_eq!(img.get(0, 0), [255, 0, 0, 255]);
        assert_eq!(img.get(0, 1), [0, 0, 255, 255]);
        assert_eq!(img.get(500, 0), [0, 0, 0, 255]);
        // Invalid address → black.
        let img = DisplayBuffer { addr: 0x1000_0000, stride: 512, format: 3 }.capture(&mem);
        assert_eq!(img, Image::black(512, 272));
    }
}
