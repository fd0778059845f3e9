//! Render tiles: private copies of a horizontal band of the colour and depth buffers.
//!
//! Parallel rasterization works on disjoint bands of framebuffer rows. Each worker copies
//! its band out of VRAM into a [`Tile`], draws every binned primitive that touches the
//! band in submission order, and the bands are written back in order afterwards. No
//! shared mutable memory, no `unsafe`, and the bytes cannot depend on the thread count.
//!
//! A band covers rows `y0..y0+rows` and, per row, the framebuffer stride; pixel (x, y)
//! lives at byte `((y - y0) * stride + x) * bpp` of `color`, exactly as in VRAM (so
//! x ≥ stride runs into the next row, as on the GE).
//!
//! Or, a *window* ([`Tile::window`]): per row only the pixel columns `x0..x0 + width` the
//! band's primitives cover, at byte `((y - y0) * width + x - x0) * bpp`; pixels outside it
//! are outside the tile. A band whose primitives cover a narrow column range is then
//! copied out and back in those columns only (15826 hot pixel: the copy out of whole rows
//! was 4.9% of its 2-thread profile, the copy back of its columns 1.2%).

/// Framebuffer pixel formats (FRAMEBUFPIXFORMAT, 0xD2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum FbFormat {
    #[default]
    Rgb565 = 0,
    Rgba5551 = 1,
    Rgba4444 = 2,
    Rgba8888 = 3,
}

impl FbFormat {
    pub fn from_bits(v: u32) -> FbFormat {
        match v & 3 {
            0 => FbFormat::Rgb565,
            1 => FbFormat::Rgba5551,
            2 => FbFormat::Rgba4444,
            _ => FbFormat::Rgba8888,
        }
    }

    /// Bytes per pixel.
    #[inline]
    pub const fn bpp(self) -> u32 {
        match self {
            FbFormat::Rgba8888 => 4,
            _ => 2,
        }
    }
}

/// A band of the colour and depth buffers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tile {
    /// First row (drawing coordinates).
    pub y0: i32,
    /// Number of rows.
    pub rows: i32,
    pub fmt: FbFormat,
    /// Colour stride in pixels.
    pub stride: u32,
    /// Depth stride in pixels (depth is always 16 bits).
    pub zstride: u32,
    /// First pixel column held (0 for whole rows).
    pub x0: i32,
    /// Pixels held per colour row: `stride` for whole rows, else the window's width.
    cpitch: u32,
    /// Pixels held per depth row: `zstride` for whole rows, else the window's width (0
    /// without depth rows).
    zpitch: u32,
    /// Columns from `x0` a pixel may lie at: unbounded for whole rows (x ≥ stride runs
    /// into the next row), the width for a window.
    limit: u32,
    /// `rows * cpitch * bpp` bytes.
    pub color: Vec<u8>,
    /// `rows * zpitch * 2` bytes.
    pub depth: Vec<u8>,
}

impl Tile {
    /// An all-zero tile (for tests and scratch use).
    pub fn new(y0: i32, rows: i32, fmt: FbFormat, stride: u32, zstride: u32) -> Tile {
        let rows_u = rows.max(0) as usize;
        let color = vec![0; rows_u * stride as usize * fmt.bpp() as usize];
        Tile::whole(y0, rows, fmt, stride, zstride, color, vec![0; rows_u * zstride as usize * 2])
    }

    /// A band of whole rows holding `color` (`rows * stride * bpp` bytes) and `depth`
    /// (`rows * zstride * 2`).
    pub fn whole(y0: i32, rows: i32, fmt: FbFormat, stride: u32, zstride: u32, color: Vec<u8>, depth: Vec<u8>) -> Tile {
        Tile { y0, rows, fmt, stride, zstride, x0: 0, cpitch: stride, zpitch: zstride, limit: u32::MAX, color, depth }
    }

    /// A band holding only columns `x0..x0 + width` of each row: `color` has
    /// `rows * width * bpp` bytes, `depth` `rows * width * 2` or none (then `zstride` must be
    /// 0). The caller keeps every pixel drawn inside the window, and the window inside
    /// both strides.
    #[allow(clippy::too_many_arguments)]
    pub fn window(
        y0: i32,
        rows: i32,
        fmt: FbFormat,
        (stride, zstride): (u32, u32),
        (x0, width): (i32, u32),
        color: Vec<u8>,
        depth: Vec<u8>,
    ) -> Tile {
        let zpitch = if zstride == 0 { 0 } else { width };
        Tile { y0, rows, fmt, stride, zstride, x0, cpitch: width, zpitch, limit: width, color, depth }
    }

    /// Pixels held per colour row and per depth row (`stride` and `zstride` for whole rows).
    pub fn pitches(&self) -> (u32, u32) {
        (self.cpitch, self.zpitch)
    }

    /// Whether the tile holds only a window of columns ([`Tile::window`]).
    pub fn is_window(&self) -> bool {
        self.limit != u32::MAX
    }

    /// Byte offset of pixel (x, y) in `color`, or `None` outside the band.
    #[inline]
    pub fn color_offset(&self, x: i32, y: i32) -> Option<usize> {
        let (r, c) = (y - self.y0, x.wrapping_sub(self.x0));
        if r < 0 || r >= self.rows || c < 0 || c as u32 >= self.limit {
            return None;
        }
        let off = (r as usize * self.cpitch as usize + c as usize) * self.fmt.bpp() as usize;
        (off + self.fmt.bpp() as usize <= self.color.len()).then_some(off)
    }

    /// Byte offset of depth sample (x, y) in `depth`, or `None` outside the band.
    #[inline]
    pub fn depth_offset(&self, x: i32, y: i32) -> Option<usize> {
        let (r, c) = (y - self.y0, x.wrapping_sub(self.x0));
        if r < 0 || r >= self.rows || c < 0 || c as u32 >= self.limit {
            return None;
        }
        let off = (r as usize * self.zpitch as usize + c as usize) * 2;
        (off + 2 <= self.depth.len()).then_some(off)
    }

    /// Byte offsets of the two rows of the 2×2 quad at (`x`, `y`) in `color` (`bpp` bytes a
    /// pixel) and `depth`: lanes (x, y) and (x, y+1) start them, lanes (x+1, y) and
    /// (x+1, y+1) follow (`bpp` and 2 bytes on). `Some` when [`Tile::color_offset`] and
    /// [`Tile::depth_offset`] accept all four pixels and they are four distinct words in
    /// each buffer (pitches of at least 2); `None` otherwise.
    #[inline(always)]
    pub fn quad_rows(&self, x: i32, y: i32, bpp: usize) -> Option<([usize; 2], [usize; 2])> {
        if self.zpitch < 2 {
            return None;
        }
        let color = self.quad_color_rows(x, y, bpp)?;
        // The colour rows' checks hold: the quad's rows and columns are in the band.
        let (r, c, zs) = ((y - self.y0) as usize, x.wrapping_sub(self.x0) as usize, self.zpitch as usize);
        let z0 = (r * zs + c) * 2;
        let depth = [z0, z0 + zs * 2];
        (depth[1] + 4 <= self.depth.len()).then_some((color, depth))
    }

    /// The colour bytes of pixels `x0..=x1` of row `y` (`x0 ≥ 0`) that lie in the band:
    /// the pixels [`Tile::color_offset`] accepts are a prefix of the run, and this is
    /// their bytes. `None` when there are none, and for a run starting left of a window
    /// (its caller draws only inside the window).
    #[inline]
    pub fn color_span_mut(&mut self, x0: i32, x1: i32, y: i32) -> Option<&mut [u8]> {
        let bpp = self.fmt.bpp() as usize;
        let (r, c0, c1) = (y - self.y0, x0.wrapping_sub(self.x0), x1.wrapping_sub(self.x0));
        let (start, end) = span_bytes(r, self.rows, self.cpitch, (c0, c1), self.limit, bpp, self.color.len())?;
        Some(&mut self.color[start..end])
    }

    /// [`Tile::color_span_mut`] for the depth buffer.
    #[inline]
    pub fn depth_span_mut(&mut self, x0: i32, x1: i32, y: i32) -> Option<&mut [u8]> {
        let (r, c0, c1) = (y - self.y0, x0.wrapping_sub(self.x0), x1.wrapping_sub(self.x0));
        let (start, end) = span_bytes(r, self.rows, self.zpitch, (c0, c1), self.limit, 2, self.depth.len())?;
        Some(&mut self.depth[start..end])
    }

    /// Raw colour word at (x, y) (16 or 32 bits), 0 outside.
    #[inline]
    pub fn read_color(&self, x: i32, y: i32) -> u32 {
        self.read_color_at(self.color_offset(x, y))
    }

    /// Write a raw colour word (16 or 32 bits) at (x, y); ignored outside.
    #[inline]
    pub fn write_color(&mut self, x: i32, y: i32, v: u32) {
        self.write_color_at(self.color_offset(x, y), v)
    }

    /// [`Tile::read_color`] at an offset from [`Tile::color_offset`] (the pixel stage
    /// computes it once per fragment).
    #[inline(always)]
    pub fn read_color_at(&self, o: Option<usize>) -> u32 {
        let Some(o) = o else { return 0 };
        if self.fmt.bpp() == 4 {
            self.color.get(o..o + 4).and_then(|b| <[u8; 4]>::try_from(b).ok()).map_or(0, u32::from_le_bytes)
        } else {
            self.color.get(o..o + 2).and_then(|b| <[u8; 2]>::try_from(b).ok()).map_or(0, u16::from_le_bytes) as u32
        }
    }

    /// [`Tile::write_color`] at an offset from [`Tile::color_offset`].
    #[inline(always)]
    pub fn write_color_at(&mut self, o: Option<usize>, v: u32) {
        let Some(o) = o else { return };
        if self.fmt.bpp() == 4 {
            if let Some(b) = self.color.get_mut(o..o + 4) {
                b.copy_from_slice(&v.to_le_bytes());
            }
        } else if let Some(b) = self.color.get_mut(o..o + 2) {
            b.copy_from_slice(&(v as u16).to_le_bytes());
        }
    }

    #[inline]
    pub fn read_depth(&self, x: i32, y: i32) -> u16 {
        self.read_depth_at(self.depth_offset(x, y))
    }

    #[inline]
    pub fn write_depth(&mut self, x: i32, y: i32, z: u16) {
        self.write_depth_at(self.depth_offset(x, y), z)
    }

    /// [`Tile::read_depth`] at an offset from [`Tile::depth_offset`].
    #[inline(always)]
    pub fn read_depth_at(&self, o: Option<usize>) -> u16 {
        o.and_then(|o| self.depth.get(o..o + 2)).and_then(|b| <[u8; 2]>::try_from(b).ok()).map_or(0, u16::from_le_bytes)
    }

    /// [`Tile::write_depth`] at an offset from [`Tile::depth_offset`].
    #[inline(always)]
    pub fn write_depth_at(&mut self, o: Option<usize>, z: u16) {
        if let Some(b) = o.and_then(|o| self.depth.get_mut(o..o + 2)) {
            b.copy_from_slice(&z.to_le_bytes());
        }
    }

    /// The colour rows of [`Tile::quad_rows`] alone, for draws that touch no depth (also in
    /// bands without depth rows): when [`Tile::color_offset`] accepts all four pixels of the
    /// quad at (`x`, `y`) and they are four distinct words (pitch of at least 2); `None`
    /// otherwise.
    #[inline(always)]
    pub fn quad_color_rows(&self, x: i32, y: i32, bpp: usize) -> Option<[usize; 2]> {
        let (r, c) = (y - self.y0, x.wrapping_sub(self.x0));
        if r < 0 || r + 1 >= self.rows || c < 0 || self.cpitch < 2 {
            return None;
        }
        // A window holds no pixel right of it (whole rows run on into the next row).
        if c as u32 + 1 >= self.limit {
            return None;
        }
        let (r, c, cs) = (r as usize, c as usize, self.cpitch as usize);
        let c0 = (r * cs + c) * bpp;
        let color = [c0, c0 + cs * bpp];
        (color[1] + 2 * bpp <= self.color.len()).then_some(color)
    }
}

/// Byte range of the pixels at columns `c0..=c1` from the tile's first in band row `r`
/// (`pitch` pixels a row), cut to the columns below `limit` and to the whole pixels
/// inside `len`.
#[inline]
fn span_bytes(
    r: i32,
    rows: i32,
    pitch: u32,
    (c0, c1): (i32, i32),
    limit: u32,
    bpp: usize,
    len: usize,
) -> Option<(usize, usize)> {
    if r < 0 || r >= rows || c0 < 0 || c1 < c0 || c0 as u32 >= limit {
        return None;
    }
    let first = r as usize * pitch as usize + c0 as usize;
    let start = first * bpp;
    let whole = (len.checked_sub(start)? / bpp).min((limit - c0 as u32) as usize);
    let n = (c1 - c0) as usize + 1;
    (whole > 0).then(|| (start, start + n.min(whole) * bpp))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addressing_matches_vram_layout() {
        let mut t = Tile::new(16, 2, FbFormat::Rgb565, 512, 512);
        t.write_color(3, 17, 0xBEEF);
        assert_eq!(t.color_offset(3, 17), Some((512 + 3) * 2));
        assert_eq!(t.read_color(3, 17), 0xBEEF);
        assert_eq!(t.color_offset(0, 15), None);
        assert_eq!(t.color_offset(0, 18), None);
        t.write_depth(5, 16, 0x1234);
        assert_eq!(t.read_depth(5, 16), 0x1234);
    }

    /// `quad_rows` starts at the offsets `color_offset`/`depth_offset` give, whenever all
    /// four exist and are distinct words, for whole-row bands and windows alike (the lane
    /// kernel once addressed windows as whole rows: 16 of 20 frame dumps went wrong).
    #[test]
    fn quad_rows_are_the_pixel_offsets() {
        let mut tiles = Vec::new();
        for fmt in [FbFormat::Rgb565, FbFormat::Rgba8888] {
            let bpp = fmt.bpp() as usize;
            tiles.push(Tile::new(16, 3, fmt, 8, 8));
            tiles.push(Tile::new(16, 3, fmt, 8, 0));
            tiles.push(Tile::new(16, 2, fmt, 1, 1));
            tiles.push(Tile::window(16, 3, fmt, (16, 16), (5, 4), vec![0; 3 * 4 * bpp], vec![0; 3 * 4 * 2]));
            tiles.push(Tile::window(16, 3, fmt, (16, 0), (5, 4), vec![0; 3 * 4 * bpp], vec![]));
            tiles.push(Tile::window(16, 2, fmt, (16, 16), (2, 1), vec![0; 2 * bpp], vec![0; 2 * 2]));
        }
        let mut some = 0;
        for t in &tiles {
            for y in 13..21 {
                for x in -2..20 {
                    let px = [(x, y), (x + 1, y), (x, y + 1), (x + 1, y + 1)];
                    let c = px.map(|(x, y)| t.color_offset(x, y));
                    let z = px.map(|(x, y)| t.depth_offset(x, y));
                    let expect = (c.iter().chain(&z).all(Option::is_some) && t.pitches().0 >= 2 && t.pitches().1 >= 2)
                        .then(|| ([c[0], c[2]].map(Option::unwrap), [z[0], z[2]].map(Option::unwrap)));
                    assert_eq!(t.quad_rows(x, y, t.fmt.bpp() as usize), expect, "({x}, {y}) in {:?}", t.pitches());
                    if expect.is_some() {
                        let bpp = t.fmt.bpp() as usize;
                        let next = |a: Option<usize>, b: Option<usize>, n: usize| a.map(|a| a + n) == b;
                        assert!(next(c[0], c[1], bpp) && next(c[2], c[3], bpp), "colour lanes 1, 3 follow 0, 2");
                        assert!(next(z[0], z[1], 2) && next(z[2], z[3], 2), "depth lanes 1, 3 follow 0, 2");
                    }
                    some += usize::from(expect.is_some());
                }
            }
        }
        assert!(some > 20, "too few quads inside: {some}");
    }

    #[test]
    fn a_window_holds_its_columns_only() {
        let mut t = Tile::window(16, 2, FbFormat::Rgb565, (512, 512), (100, 8), vec![0; 32], vec![0; 32]);
        assert!(t.is_window());
        assert_eq!(t.color_offset(100, 16), Some(0));
        assert_eq!(t.color_offset(107, 17), Some((8 + 7) * 2));
        assert_eq!(t.color_offset(99, 16), None);
        assert_eq!(t.color_offset(108, 16), None, "no run into the next row");
        assert_eq!(t.depth_offset(103, 17), Some((8 + 3) * 2));
        t.write_color(101, 17, 0xBEEF);
        assert_eq!(t.read_color(101, 17), 0xBEEF);
        assert_eq!(t.color_span_mut(98, 120, 17).map(|s| s.len()), None, "starts left of the window");
        assert_eq!(t.color_span_mut(104, 120, 17).map(|s| s.len()), Some(4 * 2), "cut at its right edge");
        assert_eq!(t.depth_span_mut(100, 101, 16).map(|s| s.len()), Some(2 * 2));
        let flat = Tile::window(16, 2, FbFormat::Rgb565, (512, 0), (100, 8), vec![0; 32], vec![]);
        assert_eq!(flat.depth_offset(100, 16), None);
    }

    #[test]
    fn spans_are_the_pixels_offsets_accept() {
        for fmt in [FbFormat::Rgb565, FbFormat::Rgba8888] {
            let mut t = Tile::new(16, 2, fmt, 8, 4);
            let bpp = fmt.bpp() as usize;
            for (x0, x1, y) in [(0, 7, 16), (3, 20, 17), (9, 30, 17), (0, 0, 15), (2, 1, 16), (15, 16, 16)] {
                let colour: Vec<usize> = (x0..=x1).filter_map(|x| t.color_offset(x, y)).collect();
                let depth: Vec<usize> = (x0..=x1).filter_map(|x| t.depth_offset(x, y)).collect();
                let got = t.color_span_mut(x0, x1, y).map(|s| s.len() / bpp).unwrap_or(0);
                assert_eq!(got, colour.len(), "{fmt:?} colour {x0}..={x1} row {y}");
                let got = t.depth_span_mut(x0, x1, y).map(|s| s.len() / 2).unwrap_or(0);
                assert_eq!(got, depth.len(), "{fmt:?} depth {x0}..={x1} row {y}");
            }
        }
    }
}
