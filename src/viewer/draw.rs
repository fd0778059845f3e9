//! Painting the window buffer: the GE screen scaled by an integer factor (nearest neighbour),
//! and what is drawn over it (status text in the `font8x8` glyphs, the skeleton). The buffer
//! holds softbuffer pixels, `0x00RRGGBB`, row-major; nothing here touches the GE framebuffer.
//! [`screen_from_window`] is the inverse of [`blit`], used to prove what reached the window.

use crate::scene::camera::Camera;
use crate::scene::policy::{Policy, ScaleIn};
use crate::scene::Model;
use ge::display::{Image, SCREEN_H, SCREEN_W};
use glam::{Mat4, Vec3};

/// A window buffer: `width × height` pixels `0x00RRGGBB`.
pub struct Canvas<'a> {
    pub px: &'a mut [u32],
    pub width: u32,
    pub height: u32,
}

/// Where the scaled screen sits in a window of `width × height`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    pub width: u32,
    pub height: u32,
    /// Window pixels per screen pixel (at least 1).
    pub scale: u32,
    /// Top-left corner of the screen in the window (centred; 0 when it does not fit).
    pub x0: u32,
    pub y0: u32,
    /// The screen shown: the PSP's 480×272, or a source's own canvas.
    pub screen: [u32; 2],
}

impl Layout {
    /// The PSP screen at the largest integer scale that fits (at least 1), centred.
    pub fn fit(width: u32, height: u32) -> Layout {
        Layout::fit_screen(width, height, [SCREEN_W, SCREEN_H])
    }

    /// A `screen` of any size at the largest integer scale that fits (at least 1), centred.
    pub fn fit_screen(width: u32, height: u32, screen: [u32; 2]) -> Layout {
        let [sw, sh] = screen.map(|v| v.max(1));
        let scale = (width / sw).min(height / sh).max(1);
        let x0 = width.saturating_sub(sw * scale) / 2;
        let y0 = height.saturating_sub(sh * scale) / 2;
        Layout { width, height, scale, x0, y0, screen: [sw, sh] }
    }

    /// Window position of a screen position (pixel units, y down).
    pub fn to_window(&self, (x, y): (f32, f32)) -> (f32, f32) {
        let s = self.scale as f32;
        (self.x0 as f32 + x * s, self.y0 as f32 + y * s)
    }

    /// Whether the whole screen is inside the window.
    pub fn shows_whole_screen(&self) -> bool {
        let [sw, sh] = self.screen;
        self.x0 + sw * self.scale <= self.width && self.y0 + sh * self.scale <= self.height
    }
}

pub fn rgb(r: u8, g: u8, b: u8) -> u32 {
    (u32::from(r) << 16) | (u32::from(g) << 8) | u32::from(b)
}

/// Paint the visible screen of `img` (`layout.screen`: 480×272 of a 512-wide display capture,
/// or a source's whole canvas) at `layout`, each pixel a `scale × scale` block; the border
/// around it black. Draws only what fits the buffer.
pub fn blit(img: &Image, layout: &Layout, c: &mut Canvas) {
    let (w, h) = (c.width as usize, c.height as usize);
    if c.px.len() < w * h {
        return;
    }
    c.px[..w * h].fill(0);
    let s = layout.scale as usize;
    let [sw, sh] = layout.screen;
    let mut row = vec![0u32; sw.min(img.width) as usize * s];
    for sy in 0..sh.min(img.height) {
        for sx in 0..sw.min(img.width) {
            let [r, g, b, _] = img.get(sx, sy);
            let p = rgb(r, g, b);
            row[sx as usize * s..(sx as usize + 1) * s].fill(p);
        }
        let x0 = layout.x0 as usize;
        if x0 >= w {
            continue;
        }
        let n = row.len().min(w - x0);
        for k in 0..s {
            let y = layout.y0 as usize + sy as usize * s + k;
            if y >= h {
                break;
            }
            c.px[y * w + x0..y * w + x0 + n].copy_from_slice(&row[..n]);
        }
    }
}

/// The screen (`layout.screen`) read back from a window buffer painted by [`blit`]: the top-left
/// pixel of every block, alpha 255 (what a display capture holds). `None` when the buffer
/// is not `layout`'s size or the screen does not fit it.
pub fn screen_from_window(px: &[u32], layout: &Layout) -> Option<Image> {
    if px.len() != layout.width as usize * layout.height as usize || !layout.shows_whole_screen() {
        return None;
    }
    let [sw, sh] = layout.screen;
    let mut img = Image::black(sw, sh);
    for y in 0..sh {
        for x in 0..sw {
            let wx = (layout.x0 + x * layout.scale) as usize;
            let wy = (layout.y0 + y * layout.scale) as usize;
            let p = px[wy * layout.width as usize + wx];
            img.put(x, y, [(p >> 16) as u8, (p >> 8) as u8, p as u8, 255]);
        }
    }
    Some(img)
}

impl Canvas<'_> {
    fn put(&mut self, x: i64, y: i64, p: u32) {
        if x >= 0 && y >= 0 && x < i64::from(self.width) && y < i64::from(self.height) {
            if let Some(d) = self.px.get_mut(y as usize * self.width as usize + x as usize) {
                *d = p;
            }
        }
    }

    /// Fill the rectangle at (x, y), clipped to the buffer.
    pub fn fill_rect(&mut self, x: i64, y: i64, w: i64, h: i64, p: u32) {
        let (x1, y1) = ((x + w).min(i64::from(self.width)), (y + h).min(i64::from(self.height)));
        for yy in y.max(0)..y1 {
            for xx in x.max(0)..x1 {
                self.put(xx, yy, p);
            }
        }
    }

    /// `text` in 8×8 glyphs with the top-left at (x, y) on a `bg` box; characters outside
    /// ASCII draw as '?'. font8x8 rows are top first, bit 0 the leftmost pixel.
    pub fn text(&mut self, x: i64, y: i64, text: &str, fg: u32, bg: u32) {
        let n = text.chars().count() as i64;
        self.fill_rect(x - 2, y - 2, n * 8 + 4, 12, bg);
        for (i, ch) in text.chars().enumerate() {
            let code = if ch.is_ascii() { ch as usize } else { '?' as usize };
            let glyph = font8x8::legacy::BASIC_LEGACY.get(code).copied().unwrap_or([0; 8]);
            for (gy, bits) in glyph.iter().enumerate() {
                for gx in 0..8 {
                    if bits & (1 << gx) != 0 {
                        self.put(x + i as i64 * 8 + gx, y + gy as i64, fg);
                    }
                }
            }
        }
    }

    /// A 1-pixel line from `a` to `b` (window pixels), clipped to the buffer first so far
    /// off-screen ends cost nothing.
    pub fn line(&mut self, a: (f32, f32), b: (f32, f32), p: u32) {
        let Some((a, b)) = clip_segment(a, b, self.width as f32, self.height as f32) else { return };
        let (mut x, mut y) = (a.0.floor() as i64, a.1.floor() as i64);
        let (x1, y1) = (b.0.floor() as i64, b.1.floor() as i64);
        let (dx, dy) = ((x1 - x).abs(), -(y1 - y).abs());
        let (sx, sy) = (if x < x1 { 1 } else { -1 }, if y < y1 { 1 } else { -1 });
        let mut err = dx + dy;
        loop {
            self.put(x, y, p);
            if x == x1 && y == y1 {
                break;
            }
            let e2 = 2 * err;
            if e2 >= dy {
                err += dy;
                x += sx;
            }
            if e2 <= dx {
                err += dx;
                y += sy;
            }
        }
    }
}

/// Cohen–Sutherland: the part of segment a–b inside `[0, w) × [0, h)` (a hair inside the far
/// edges so the end pixels exist), `None` when nothing is inside or a coordinate is not finite.
/// Each step moves an outside end onto an edge by the slope through the other end, in f64, so
/// ends far off-screen (a joint next to the eye plane) still clip precisely.
pub fn clip_segment(a: (f32, f32), b: (f32, f32), w: f32, h: f32) -> Option<((f32, f32), (f32, f32))> {
    if ![a.0, a.1, b.0, b.1].iter().all(|v| v.is_finite()) || w < 1.0 || h < 1.0 {
        return None;
    }
    let (xmax, ymax) = (f64::from(w) - 1e-3, f64::from(h) - 1e-3);
    let code = |(x, y): (f64, f64)| -> u8 {
        u8::from(x < 0.0) | u8::from(x > xmax) << 1 | u8::from(y < 0.0) << 2 | u8::from(y > ymax) << 3
    };
    let mut p = (f64::from(a.0), f64::from(a.1));
    let mut q = (f64::from(b.0), f64::from(b.1));
    // Each pass puts one end on an edge line; four passes settle any segment.
    for _ in 0..8 {
        let (cp, cq) = (code(p), code(q));
        if cp | cq == 0 {
            let f = |(x, y): (f64, f64)| (x.clamp(0.0, xmax) as f32, y.clamp(0.0, ymax) as f32);
            return Some((f(p), f(q)));
        }
        if cp & cq != 0 {
            return None;
        }
        let (out, other, c) = if cp != 0 { (&mut p, q, cp) } else { (&mut q, p, cq) };
        let (dx, dy) = (other.0 - out.0, other.1 - out.1);
        *out = if c & 1 != 0 {
            (0.0, out.1 + dy * (0.0 - out.0) / dx)
        } else if c & 2 != 0 {
            (xmax, out.1 + dy * (xmax - out.0) / dx)
        } else if c & 4 != 0 {
            (out.0 + dx * (0.0 - out.1) / dy, 0.0)
        } else {
            (out.0 + dx * (ymax - out.1) / dy, ymax)
        };
        if !(out.0.is_finite() && out.1.is_finite()) {
            return None;
        }
    }
    None
}

/// World position of each joint of PMO 0 posed by `globals` (joint globals, one per joint),
/// with its parent: the same space the GE draws the skin in. With the model scale in the
/// bone slots (the default) a vertex lands at W · G · InvBind · S · v, so the joint origin is
/// at W · G · 0; with the scale in the world matrix it is at W · S · G · 0.
pub fn joint_points(model: &Model, globals: &[Mat4], policy: &Policy) -> Vec<(Vec3, Option<usize>)> {
    let (Some(sk), Some(pmo)) = (model.skeleton(), model.pmos.first()) else { return Vec::new() };
    let world = model.placements.iter().find(|p| p.pmo == 0).map_or(Mat4::IDENTITY, |p| p.world);
    let world = match policy.scale_in {
        ScaleIn::Bones => world,
        ScaleIn::World => world * Mat4::from_scale(Vec3::splat(pmo.header.model_scale)),
    };
    sk.joints
        .iter()
        .zip(globals)
        .enumerate()
        .map(|(i, (j, g))| (world.transform_point3(g.w_axis.truncate()), j.parent_index().filter(|&p| p != i)))
        .collect()
}

pub const BONE_COLOUR: u32 = 0x00FF_E040;
pub const JOINT_COLOUR: u32 = 0x00FF_3030;

/// Bones as lines to their parents and joints as 3×3 dots, projected by `camera` onto the
/// screen at `layout`.
pub fn draw_skeleton(c: &mut Canvas, layout: &Layout, camera: &Camera, joints: &[(Vec3, Option<usize>)]) {
    let screen: Vec<Option<(f32, f32)>> =
        joints.iter().map(|(p, _)| camera.project(*p).map(|s| layout.to_window(s))).collect();
    for (i, (_, parent)) in joints.iter().enumerate() {
        if let (Some(a), Some(Some(b))) = (screen[i], parent.and_then(|p| screen.get(p))) {
            c.line(a, *b, BONE_COLOUR);
        }
    }
    for (x, y) in screen.iter().flatten() {
        let (x, y) = (x.floor() as i64, y.floor() as i64);
        c.fill_rect(x - 1, y - 1, 3, 3, JOINT_COLOUR);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn canvas(buf: &mut Vec<u32>, w: u32, h: u32) -> Canvas<'_> {
        buf.resize((w * h) as usize, 0);
        Canvas { px: buf, width: w, height: h }
    }

    /// A 512×272 capture with a distinct colour per pixel of the visible part.
    fn pattern() -> Image {
        let mut img = Image::black(512, 272);
        for y in 0..272 {
            for x in 0..512 {
                img.put(x, y, [x as u8, y as u8, (x >> 8) as u8 | 0x10, 255]);
            }
        }
        img
    }

    #[test]
    fn layout_fits_integer_scales() {
        let psp = [480, 272];
        assert_eq!(Layout::fit(960, 544), Layout { width: 960, height: 544, scale: 2, x0: 0, y0: 0, screen: psp });
        assert_eq!(Layout::fit(1000, 600), Layout { width: 1000, height: 600, scale: 2, x0: 20, y0: 28, screen: psp });
        assert_eq!(Layout::fit(1500, 600).scale, 2);
        assert_eq!(Layout::fit(1440, 816).scale, 3);
        let small = Layout::fit(300, 200);
        assert_eq!((small.scale, small.x0, small.y0), (1, 0, 0));
        assert!(!small.shows_whole_screen());
        assert_eq!(Layout::fit(1000, 600).to_window((10.5, 1.0)), (41.0, 30.0));
    }

    #[test]
    fn blit_scales_by_nearest_neighbour() {
        let img = pattern();
        let layout = Layout::fit(1000, 600);
        let mut buf = Vec::new();
        let mut c = canvas(&mut buf, 1000, 600);
        blit(&img, &layout, &mut c);
        // PSP pixel (7, 3) covers window (20 + 14.., 28 + 6..) as a 2×2 block.
        let want = rgb(7, 3, 0x10);
        for (x, y) in [(34, 34), (35, 34), (34, 35), (35, 35)] {
            assert_eq!(buf[y * 1000 + x], want, "{x} {y}");
        }
        assert_eq!(buf[34 * 1000 + 36], rgb(8, 3, 0x10));
        // Column 479 is the last one shown; the border is black.
        assert_eq!(buf[28 * 1000 + 20 + 959], rgb(223, 0, 0x11));
        assert_eq!(buf[28 * 1000 + 980], 0);
        assert_eq!(buf[0], 0);
        assert_eq!(buf[599 * 1000 + 500], 0);
        // Reading back gives the screen exactly.
        let back = screen_from_window(&buf, &layout).unwrap();
        assert_eq!(back, img.crop(480, 272));
        assert!(screen_from_window(&buf[1..], &layout).is_none());
    }

    #[test]
    fn any_screen_size_scales_and_reads_back() {
        // A 390×390 canvas (a PopCap PAM) in an 800×800 window: ×2, centred.
        let layout = Layout::fit_screen(800, 800, [390, 390]);
        assert_eq!((layout.scale, layout.x0, layout.y0, layout.screen), (2, 10, 10, [390, 390]));
        assert!(layout.shows_whole_screen());
        let mut img = Image::black(390, 390);
        for y in 0..390 {
            for x in 0..390 {
                img.put(x, y, [x as u8, y as u8, (x >> 8 | y >> 8 << 1) as u8, 255]);
            }
        }
        let mut buf = Vec::new();
        let mut c = canvas(&mut buf, 800, 800);
        blit(&img, &layout, &mut c);
        assert_eq!(buf[(10 + 2 * 389 + 1) * 800 + 10 + 2 * 389 + 1], rgb(389u32 as u8, 389u32 as u8, 3));
        assert_eq!(buf[799 * 800 + 799], 0);
        assert_eq!(screen_from_window(&buf, &layout).unwrap(), img);
        // A window smaller than the canvas cannot be read back.
        assert!(!Layout::fit_screen(300, 800, [390, 390]).shows_whole_screen());
    }

    #[test]
    fn blit_into_a_small_window_clips() {
        let img = pattern();
        let layout = Layout::fit(100, 50);
        let mut buf = Vec::new();
        let mut c = canvas(&mut buf, 100, 50);
        blit(&img, &layout, &mut c);
        assert_eq!(buf[49 * 100 + 99], rgb(99, 49, 0x10));
        assert!(screen_from_window(&buf, &layout).is_none());
    }

    #[test]
    fn text_uses_font8x8_bit_order() {
        let mut buf = Vec::new();
        let mut c = canvas(&mut buf, 40, 20);
        c.text(4, 4, "L", 1, 2);
        // 'L' is a vertical stroke on the left with a foot: its first row has the leftmost
        // pixels set and nothing in the right half; the background box starts 2 px before.
        let row0: Vec<u32> = (4..12).map(|x| c.px[4 * 40 + x]).collect();
        assert_eq!(row0[0..4].iter().filter(|&&p| p == 1).count(), row0.iter().filter(|&&p| p == 1).count());
        assert!(row0.contains(&1));
        assert!(row0[4..].iter().all(|&p| p == 2));
        assert_eq!(c.px[2 * 40 + 2], 2);
        assert_eq!(c.px[40 + 1], 0);
        // Same glyph bytes as the crate's table: bit 0 leftmost.
        let g = font8x8::legacy::BASIC_LEGACY['L' as usize];
        for (gy, bits) in g.iter().enumerate() {
            for gx in 0..8 {
                let want = if bits & (1 << gx) != 0 { 1 } else { 2 };
                assert_eq!(c.px[(4 + gy) * 40 + 4 + gx], want);
            }
        }
        // Off-canvas text is clipped, not a panic.
        c.text(-100, 35, "é off", 1, 2);
    }

    #[test]
    fn segment_clipping() {
        assert_eq!(clip_segment((1.0, 1.0), (5.0, 5.0), 10.0, 10.0), Some(((1.0, 1.0), (5.0, 5.0))));
        let ((ax, ay), (bx, by)) = clip_segment((-10.0, 5.0), (20.0, 5.0), 10.0, 10.0).unwrap();
        assert_eq!((ax, ay, by), (0.0, 5.0, 5.0));
        assert!((bx - 10.0).abs() < 1e-2 && bx < 10.0);
        assert_eq!(clip_segment((-5.0, -5.0), (-1.0, 20.0), 10.0, 10.0), None);
        assert_eq!(clip_segment((0.0, 0.0), (f32::INFINITY, 1.0), 10.0, 10.0), None);
        // A line from far away crosses the window diagonal: clipped ends are on the edges.
        let (a, b) = clip_segment((-1e9, -1e9), (1e9, 1e9), 100.0, 100.0).unwrap();
        assert!(a.0 >= 0.0 && a.0 < 1.0 && b.0 <= 100.0 && b.0 > 99.0, "{a:?} {b:?}");
    }

    #[test]
    fn lines_hit_both_ends() {
        let mut buf = Vec::new();
        let mut c = canvas(&mut buf, 16, 16);
        c.line((2.0, 3.0), (12.0, 8.0), 7);
        assert_eq!(c.px[3 * 16 + 2], 7);
        assert_eq!(c.px[8 * 16 + 12], 7);
        // One pixel per column for a shallow line.
        assert_eq!(c.px.iter().filter(|&&p| p == 7).count(), 11);
        c.line((-1e30, 5.0), (1e30, 5.0), 9);
        assert!((0..16).all(|x| c.px[5 * 16 + x] == 9));
    }

    #[test]
    fn skeleton_joints_project_where_the_camera_says() {
        let cam =
            Camera { target: Vec3::ZERO, yaw: 0.0, pitch: 0.0, distance: 10.0, fov_y: 40.0, near: 1.0, far: 20.0 };
        let layout = Layout::fit(960, 544);
        let joints =
            vec![(Vec3::ZERO, None), (Vec3::new(0.0, 1.0, 0.0), Some(0)), (Vec3::new(0.0, 0.0, 50.0), Some(1))];
        let mut buf = Vec::new();
        let mut c = canvas(&mut buf, 960, 544);
        draw_skeleton(&mut c, &layout, &cam, &joints);
        // The origin is the screen centre: window (480, 272) is a joint dot.
        assert_eq!(buf[272 * 960 + 480], JOINT_COLOUR);
        // The bone to (0, 1, 0) runs straight up from it.
        let (_, y1) = layout.to_window(cam.project(Vec3::Y).unwrap());
        let mid = ((272.0 + y1) / 2.0) as usize;
        assert_eq!(buf[mid * 960 + 480], BONE_COLOUR);
        // The joint behind the camera draws nothing (and no bone to it).
        let lit = buf.iter().filter(|&&p| p != 0).count();
        let mut buf2 = Vec::new();
        let mut c2 = canvas(&mut buf2, 960, 544);
        draw_skeleton(&mut c2, &layout, &cam, &joints[..2]);
        assert_eq!(lit, buf2.iter().filter(|&&p| p != 0).count());
    }
}
