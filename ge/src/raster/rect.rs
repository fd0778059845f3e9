//! Rectangles (sprites): axis-aligned boxes from two corners.
//!
//! Coverage, flat attributes and texture stepping follow [PP `Rasterizer.cpp`
//! `DrawRectangle`]: a pixel is drawn when its sample 16·px + 7 lies in
//! [x_min − 1, x_max − 1) (i.e. x_min ≤ 16·px + 8 < x_max, ge-reference §9.3), except that
//! PPSSPP tests the right column of each 2x2 quad with ≤ instead of <, so a pixel whose
//! centre sits exactly on the right (or bottom) edge is drawn when it is the second pixel
//! of its quad. Colour, depth, fog and secondary colour come from v[1]. Texture coordinates
//! advance linearly per pixel pair from the top-left pixel centre; the corner order rotates
//! the texture (TR/BL corners make S run along Y) [HW `primitives/rectangles.bmp`].
//!
//! That is PPSSPP's arithmetic ([`RectangleRule::Ppsspp`](super::RectangleRule)); the hardware
//! model draws every rectangle with [`rectangle_exact`] (centre coverage, exact texture
//! coordinates), which the readback tests support line for line.
//!
//! [`sprite`] is PPSSPP's through-mode 1:1 fast path ([PP `RasterizerRectangle.cpp`
//! `DrawSprite`, `RectangleFastPath`]), which steps whole texels from the truncated start
//! coordinate and so differs from [`rectangle`] for fractional texture coordinates.

use super::{clamp_fog, screen_range, vertex_depth, ClipRect, RasterSetup};
use crate::geom::{Fragment, Quad, ScreenVertex};

/// Draw state that decides whether PPSSPP takes its sprite fast path.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpriteFastPathState {
    pub through: bool,
    pub clear_mode: bool,
    /// Mipmaps present (TEXMODE max level > 0 with mipmapping usable).
    pub has_mips: bool,
    /// Texture-matrix projection active.
    pub texture_proj: bool,
    /// Level-0 texture width/height when texturing is enabled, `None` otherwise.
    pub tex_size: Option<(u32, u32)>,
}

/// True when [PP `RectangleFastPath`] would send this sprite to `DrawSprite`: through mode,
/// not clear mode, no mips or projection, corners TL→BR on whole pixels, and (textured)
/// texture coordinates inside a ≤512 texture and mapped 1:1 to pixels.
pub fn sprite_fast_path(v: &[ScreenVertex; 2], st: &SpriteFastPathState) -> bool {
    if !st.through || st.clear_mode || st.has_mips || st.texture_proj {
        return false;
    }
    let xdiff = v[1].x.0.wrapping_sub(v[0].x.0);
    let ydiff = v[1].y.0.wrapping_sub(v[0].y.0);
    if xdiff < 0 || ydiff < 0 {
        return false;
    }
    if (v[0].x.0 | v[0].y.0 | v[1].x.0 | v[1].y.0) & 0xF != 0 {
        return false;
    }
    if let Some((w, h)) = st.tex_size {
        // [PP NoClampOrWrap]
        let inside = |s: f32, t: f32| s >= 0.0 && t >= 0.0 && w <= 512 && h <= 512 && s <= w as f32 && t <= h as f32;
        if !inside(v[0].s, v[0].t) || !inside(v[1].s, v[1].t) {
            return false;
        }
        // C float → int conversion (truncation; out of range → INT_MIN on x86).
        let udiff = super::cvt_trunc_f64(((v[1].s - v[0].s) * 16.0) as f64);
        let vdiff = super::cvt_trunc_f64(((v[1].t - v[0].t) * 16.0) as f64);
        if !((xdiff == udiff || xdiff == udiff.wrapping_neg()) && (ydiff == vdiff || ydiff == vdiff.wrapping_neg())) {
            return false;
        }
    }
    true
}

/// Rectangle coverage in PPSSPP's 1/16 terms.
struct Cover {
    entire_x1: i32,
    entire_y1: i32,
    entire_x2: i32,
    entire_y2: i32,
    min_x: i32,
    min_y: i32,
    max_x: i32,
    max_y: i32,
}

fn cover(v: &[ScreenVertex; 2], setup: &RasterSetup) -> Option<Cover> {
    let (x0, y0, x1, y1) = (v[0].x.0, v[0].y.0, v[1].x.0, v[1].y.0);
    let range = screen_range(&[x0, x1], &[y0, y1], &setup.clip)?;
    let entire_x1 = x0.min(x1);
    let entire_y1 = y0.min(y1);
    let entire_x2 = x0.max(x1).wrapping_sub(1);
    let entire_y2 = y0.max(y1).wrapping_sub(1);
    let mut min_x = (entire_x1 & !15).max(range[0]) | 7;
    let mut min_y = (entire_y1 & !15).max(range[1]) | 7;
    let max_x = entire_x2.min(range[2]);
    let max_y = entire_y2.min(range[3]);
    // [PP DrawRectangle] "If TL x or y was after the half, we don't draw the pixel."
    if min_x < entire_x1.wrapping_sub(1) {
        min_x += 16;
    }
    if min_y < entire_y1.wrapping_sub(1) {
        min_y += 16;
    }
    Some(Cover { entire_x1, entire_y1, entire_x2, entire_y2, min_x, min_y, max_x, max_y })
}

/// Walk the quads of a rectangle exactly like PPSSPP's loops; `tex(row, col, lane)` gives
/// (s, t) for a lane. Rows outside the band are visited (so callers can keep their float
/// accumulators in step) but emit nothing.
fn walk(
    c: &Cover,
    setup: &RasterSetup,
    base: Fragment,
    w: f32,
    mut row_start: impl FnMut(),
    mut quad_tex: impl FnMut(&mut [Fragment; 4]),
    emit: &mut dyn FnMut(&Quad),
) {
    let mut cur_y = c.min_y as i64;
    while cur_y < c.max_y as i64 {
        let py = (cur_y >> 4) as i32;
        if py > setup.band_y1 {
            break;
        }
        let band_ok = [setup.row_in_band(py), setup.row_in_band(py + 1)];
        let sc_y = if cur_y + 16 > c.max_y as i64 { -1 } else { 0 };
        row_start();
        if band_ok[0] || band_ok[1] {
            let mut sc_x = c.max_x.wrapping_sub(c.min_x).wrapping_sub(16);
            let mut cur_x = c.min_x as i64;
            while cur_x < c.max_x as i64 {
                let px = (cur_x >> 4) as i32;
                let sc = [0, sc_x, sc_y, sc_x | sc_y];
                let mut mask = 0u8;
                for lane in 0..4 {
                    if sc[lane] >= 0 && band_ok[lane >> 1] {
                        mask |= 1 << lane;
                    }
                }
                let mut frags = [base; 4];
                for (lane, f) in frags.iter_mut().enumerate() {
                    f.x = px + (lane & 1) as i32;
                    f.y = py + (lane >> 1) as i32;
                }
                quad_tex(&mut frags);
                if mask != 0 {
                    emit(&Quad::from_frags(frags, mask, w));
                }
                cur_x += 32;
                sc_x = sc_x.wrapping_sub(32);
            }
        }
        cur_y += 32;
    }
}

/// The fragment attributes a rectangle takes from its second vertex (colour, depth, fog).
pub fn flat_fragment(v1: &ScreenVertex) -> Fragment {
    Fragment {
        x: 0,
        y: 0,
        z: vertex_depth(v1.z),
        color0: v1.color0,
        color0_indefinite: 0,
        color1: v1.color1,
        fog: clamp_fog(v1.fog),
        s: 0.0,
        t: 0.0,
    }
}

/// PPSSPP's texture stepping for [`rectangle`]: the first sample's (s, t), the step per quad
/// along x and per quad row along y, and the lane offsets within a quad (s and t).
struct Stepping {
    row: (f32, f32),
    stx: (f32, f32),
    sty: (f32, f32),
    sto4: [f32; 4],
    tto4: [f32; 4],
}

impl Stepping {
    fn new(v: &[ScreenVertex; 2], c: &Cover) -> Stepping {
        let (tc0, tc1) = ((v[0].s, v[0].t), (v[1].s, v[1].t));
        let diff_x = c.entire_x2.wrapping_sub(c.entire_x1).wrapping_add(1) as f32 / 16.0;
        let diff_y = c.entire_y2.wrapping_sub(c.entire_y1).wrapping_add(1) as f32 / 16.0;
        let diff_s = tc1.0 - tc0.0;
        let diff_t = tc1.1 - tc0.1;
        // (row start, step per quad in x, step per quad row in y), each as (s, t).
        let (mut row, stx, sty) = if v[0].x.0 < v[1].x.0 {
            if v[0].y.0 < v[1].y.0 {
                (tc0, (2.0 * diff_s / diff_x, 0.0), (0.0, 2.0 * diff_t / diff_y))
            } else {
                // BL→TR: x moves T toward v1, y moves S away from v1.
                ((tc1.0, tc0.1), (0.0, 2.0 * diff_t / diff_x), (2.0 * -diff_s / diff_y, 0.0))
            }
        } else if v[0].y.0 < v[1].y.0 {
            // TR→BL
            ((tc0.0, tc1.1), (0.0, 2.0 * -diff_t / diff_x), (2.0 * diff_s / diff_y, 0.0))
        } else {
            // BR→TL
            (tc1, (2.0 * -diff_s / diff_x, 0.0), (0.0, 2.0 * -diff_t / diff_y))
        };
        // Move to the first sample (pixel centre of the first drawn pixel).
        let nx = c.min_x.wrapping_sub(c.entire_x1).wrapping_add(1) as f32;
        let ny = c.min_y.wrapping_sub(c.entire_y1).wrapping_add(1) as f32;
        row.0 += (stx.0 / 32.0) * nx;
        row.1 += (stx.1 / 32.0) * nx;
        row.0 += (sty.0 / 32.0) * ny;
        row.1 += (sty.1 / 32.0) * ny;
        let sto4 = [0.0, 0.5 * stx.0, 0.5 * sty.0, 0.5 * stx.0 + 0.5 * sty.0];
        let tto4 = [0.0, 0.5 * stx.1, 0.5 * sty.1, 0.5 * stx.1 + 0.5 * sty.1];

        Stepping { row, stx, sty, sto4, tto4 }
    }
}

/// Draw a rectangle (sprite) from its two corners [PP `DrawRectangle`]. The caller handles
/// transform-mode fog splitting and texture projection (PPSSPP splits those in
/// `Clipper::ProcessRect`).
pub fn rectangle(v: &[ScreenVertex; 2], setup: &RasterSetup, emit: &mut dyn FnMut(&Quad)) {
    let Some(c) = cover(v, setup) else { return };
    let base = flat_fragment(&v[1]);
    if !setup.textured {
        walk(&c, setup, base, v[1].w, || {}, |_| {}, emit);
        return;
    }
    let Stepping { row, stx, sty, sto4, tto4 } = Stepping::new(v, &c);
    // `row` is advanced after each row and `st` after each quad, as PPSSPP's loops do.
    let row = std::cell::Cell::new(row);
    let st = std::cell::Cell::new(row.get());
    let mut first = true;
    walk(
        &c,
        setup,
        base,
        // [PP DrawRectangle] slope mode uses the second vertex's clip w.
        v[1].w,
        || {
            if !first {
                let r = row.get();
                row.set((r.0 + sty.0, r.1 + sty.1));
            }
            first = false;
            st.set(row.get());
        },
        |frags| {
            let cur = st.get();
            for (lane, f) in frags.iter_mut().enumerate() {
                f.s = cur.0 + sto4[lane];
                f.t = cur.1 + tto4[lane];
            }
            st.set((cur.0 + stx.0, cur.1 + stx.1));
        },
        emit,
    );
}

/// Receives `(y, x0, coords)`: texture coordinates of pixels `x0, x0 + 1, …` of row `y`.
pub type RowSink<'a> = dyn FnMut(i32, i32, &[(f32, f32)]) + 'a;

/// [`rectangle`]'s texture coordinates row by row: `out(y, x0, coords)` for each covered
/// row `y` of the band, with the (s, t) of pixels `x0, x0 + 1, …` in pieces of at most
/// 64 pixels. The floats are the quad walk's: the same sums in the same order.
pub fn rectangle_rows(v: &[ScreenVertex; 2], setup: &RasterSetup, out: &mut RowSink) {
    const QUADS: i32 = 32;
    let (Some(c), Some(px)) = (cover(v, setup), rectangle_pixels(v, setup)) else { return };
    let Stepping { mut row, stx, sty, sto4, tto4 } = Stepping::new(v, &c);
    let mut top = [(0f32, 0f32); 2 * QUADS as usize];
    let mut bottom = top;
    let mut first = true;
    let mut cur_y = c.min_y as i64;
    while cur_y < c.max_y as i64 {
        let py = (cur_y >> 4) as i32;
        if py > setup.band_y1 {
            break;
        }
        if !first {
            row = (row.0 + sty.0, row.1 + sty.1);
        }
        first = false;
        let rows = [(px.y0..=px.y1).contains(&py), (px.y0..=px.y1).contains(&(py + 1))];
        if rows[0] || rows[1] {
            let mut st = row;
            let mut x = px.x0;
            while x <= px.x1 {
                let n = (px.x1 - x + 1).min(2 * QUADS) as usize;
                for k in 0..n.div_ceil(2) {
                    for lane in 0..2 {
                        if 2 * k + lane < n {
                            top[2 * k + lane] = (st.0 + sto4[lane], st.1 + tto4[lane]);
                            bottom[2 * k + lane] = (st.0 + sto4[lane + 2], st.1 + tto4[lane + 2]);
                        }
                    }
                    st = (st.0 + stx.0, st.1 + stx.1);
                }
                if rows[0] {
                    out(py, x, &top[..n]);
                }
                if rows[1] {
                    out(py + 1, x, &bottom[..n]);
                }
                x += n as i32;
            }
        }
        cur_y += 32;
    }
}

/// Draw a sprite through PPSSPP's 1:1 fast path (use when [`sprite_fast_path`] says so).
/// Coverage equals [`rectangle`]'s for whole-pixel corners; texture coordinates step one
/// texel per pixel from the truncated start texel. They are emitted at texel centres
/// (start + k + 0.5) so that both nearest and bilinear sampling return exactly that texel,
/// as PPSSPP's always-nearest fetch does.
pub fn sprite(v: &[ScreenVertex; 2], setup: &RasterSetup, emit: &mut dyn FnMut(&Quad)) {
    let Some(c) = cover(v, setup) else { return };
    let base = flat_fragment(&v[1]);
    if !setup.textured {
        walk(&c, setup, base, v[1].w, || {}, |_| {}, emit);
        return;
    }
    let tex = RectTexCoords::sprite(v);
    walk(
        &c,
        setup,
        base,
        // [PP DrawRectangle] slope mode uses the second vertex's clip w.
        v[1].w,
        || {},
        |frags| {
            for f in frags.iter_mut() {
                (f.s, f.t) = tex.at(f.x, f.y);
            }
        },
        emit,
    );
}

/// Draw a clear-mode sprite the way [PP `Rasterizer.cpp` `ClearRectangle`] does: used by
/// PPSSPP for through-mode rectangles in clear mode with dithering off (`Clipper::ProcessRect`).
/// Columns run from the first pixel of [`rectangle`] to `(max_x − 8) / 16` with C's
/// truncating division ("only include the end pixel when it's >= 0.5"), so there is no
/// second-lane quirk, but a sprite narrower than half a pixel at x < 1 still fills pixel 0.
/// Nothing is drawn when that column count is ≤ 0. Fragments are flat from `v[1]`; texture
/// coordinates are not produced (clear mode never textures).
pub fn clear_rectangle(v: &[ScreenVertex; 2], setup: &RasterSetup, emit: &mut dyn FnMut(&Quad)) {
    let Some(c) = cover(v, setup) else { return };
    let (x0, y0) = (c.min_x >> 4, c.min_y >> 4);
    // C `/` truncates toward zero.
    let x1 = c.max_x.wrapping_sub(8) / 16;
    let y1 = c.max_y.wrapping_sub(8) / 16;
    if x1 < x0 {
        return;
    }
    let base = flat_fragment(&v[1]);
    let mut y = y0.max(setup.band_y0.saturating_sub(1));
    // Keep the quad grid anchored at (x0, y0).
    if (y - y0) & 1 != 0 {
        y -= 1;
    }
    while y <= y1 && y <= setup.band_y1 {
        let mut x = x0;
        while x <= x1 {
            let mut frags = [base; 4];
            let mut mask = 0u8;
            for (lane, f) in frags.iter_mut().enumerate() {
                f.x = x + (lane & 1) as i32;
                f.y = y + (lane >> 1) as i32;
                if f.x <= x1 && f.y <= y1 && setup.row_in_band(f.y) {
                    mask |= 1 << lane;
                }
            }
            if mask != 0 {
                emit(&Quad::from_frags(frags, mask, 0.0));
            }
            x += 2;
        }
        y += 2;
    }
}

/// The pixels [`rectangle`] and [`sprite`] emit in this call (band included), as an
/// inclusive pixel rectangle, `None` when nothing. The quad walk's lanes make one: in
/// 1/16 px from the first sample, step j (a column or a row) is drawn when 16·j < span, and
/// also when 16·j = span for the second lane of a quad (PPSSPP's ≤ on the right column and
/// bottom row).
pub fn rectangle_pixels(v: &[ScreenVertex; 2], setup: &RasterSetup) -> Option<ClipRect> {
    let c = cover(v, setup)?;
    let steps = |span: i64| {
        if span <= 0 {
            return 0;
        }
        let below = (span + 15) / 16;
        if span % 16 == 0 && (span / 16) % 2 == 1 {
            below + 1
        } else {
            below
        }
    };
    let (x0, y0) = (c.min_x >> 4, c.min_y >> 4);
    let nx = steps(c.max_x as i64 - c.min_x as i64);
    let ny = steps(c.max_y as i64 - c.min_y as i64);
    let r = ClipRect {
        x0,
        y0: y0.max(setup.band_y0),
        x1: (x0 as i64 + nx - 1).min(i32::MAX as i64) as i32,
        y1: (y0 as i64 + ny - 1).min(setup.band_y1 as i64) as i32,
    };
    (nx > 0 && !r.is_empty()).then_some(r)
}

/// The pixels [`clear_rectangle`] emits in this call, as [`rectangle_pixels`].
pub fn clear_rectangle_pixels(v: &[ScreenVertex; 2], setup: &RasterSetup) -> Option<ClipRect> {
    let c = cover(v, setup)?;
    let r = ClipRect {
        x0: c.min_x >> 4,
        y0: (c.min_y >> 4).max(setup.band_y0),
        x1: c.max_x.wrapping_sub(8) / 16,
        y1: (c.max_y.wrapping_sub(8) / 16).min(setup.band_y1),
    };
    (!r.is_empty()).then_some(r)
}

/// The pixels [`rectangle_exact`] emits in this call, as [`rectangle_pixels`].
pub fn rectangle_exact_pixels(v: &[ScreenVertex; 2], setup: &RasterSetup) -> Option<ClipRect> {
    let (x0, y0, x1, y1) = (v[0].x.0, v[0].y.0, v[1].x.0, v[1].y.0);
    let (left, right) = (x0.min(x1), x0.max(x1));
    let (top, bottom) = (y0.min(y1), y0.max(y1));
    let r = ClipRect {
        x0: first_centre(left).max(setup.clip.x0),
        x1: last_centre(right).min(setup.clip.x1),
        y0: first_centre(top).max(setup.clip.y0).max(setup.band_y0),
        y1: last_centre(bottom).min(setup.clip.y1).min(setup.band_y1),
    };
    (!r.is_empty()).then_some(r)
}

/// Texture coordinates of pixel (x, y) of a rectangle, as its quad walker gives them.
pub enum RectTexCoords {
    /// [`rectangle_exact`]: exact at the pixel centre.
    Exact(TexSlopes),
    /// [`sprite`]: whole texels from the truncated start, at texel centres.
    Sprite { s_start: i32, t_start: i32, ds: i32, dt: i32, px0: i32, py0: i32 },
}

impl RectTexCoords {
    /// For [`rectangle_exact`].
    pub fn exact(v: &[ScreenVertex; 2]) -> RectTexCoords {
        let (x0, y0, x1, y1) = (v[0].x.0, v[0].y.0, v[1].x.0, v[1].y.0);
        let (left, right) = (x0.min(x1), x0.max(x1));
        let (top, bottom) = (y0.min(y1), y0.max(y1));
        RectTexCoords::Exact(TexSlopes::new(v, left, top, right - left, bottom - top))
    }

    /// For [`sprite`] [PP DrawSprite]: s_start = (int)s0, direction by comparison, one
    /// step back if negative; v0 is the top-left corner on the fast path.
    pub fn sprite(v: &[ScreenVertex; 2]) -> RectTexCoords {
        let ds: i32 = if v[1].s > v[0].s { 1 } else { -1 };
        let dt: i32 = if v[1].t > v[0].t { 1 } else { -1 };
        RectTexCoords::Sprite {
            s_start: (v[0].s as i32).wrapping_add(if ds < 0 { ds } else { 0 }),
            t_start: (v[0].t as i32).wrapping_add(if dt < 0 { dt } else { 0 }),
            ds,
            dt,
            px0: v[0].x.0 >> 4,
            py0: v[0].y.0 >> 4,
        }
    }

    /// (s, t) of pixel (x, y).
    #[inline]
    pub fn at(&self, x: i32, y: i32) -> (f32, f32) {
        match *self {
            RectTexCoords::Exact(ref t) => t.at(16 * x + 8, 16 * y + 8),
            RectTexCoords::Sprite { s_start, t_start, ds, dt, px0, py0 } => {
                let s = s_start.wrapping_add((x - px0).wrapping_mul(ds));
                let t = t_start.wrapping_add((y - py0).wrapping_mul(dt));
                (s as f32 + 0.5, t as f32 + 0.5)
            }
        }
    }
}

/// First pixel whose centre 16·p + 8 is at or after `lo` (1/16 px).
fn first_centre(lo: i32) -> i32 {
    (lo - 8 + 15).div_euclid(16)
}

/// Last pixel whose centre 16·p + 8 is before `hi` (1/16 px).
fn last_centre(hi: i32) -> i32 {
    (hi - 8 - 1).div_euclid(16)
}

/// Transform-mode sprite fog: when the corners' fog factors differ by more than half a
/// 1/255 step, PPSSPP splits the sprite at the X midpoint into two rectangles, each drawn
/// with [`rectangle`] (flat from its second vertex): the half on v0's side gets v1's fog,
/// the other half v0's ("nearest, but reversed"; its TODO says the middle is unverified)
/// [PP `Clipper.cpp` `ProcessRect`]. Returns `None` when no split happens. Through mode
/// never splits.
pub fn split_rect_fog(v: &[ScreenVertex; 2]) -> Option<[[ScreenVertex; 2]; 2]> {
    let (v0, v1) = (&v[0], &v[1]);
    if v0.fog == v1.fog {
        return None;
    }
    const HALF_STEP: f32 = 0.5 / 255.0;
    if v1.fog - HALF_STEP <= v0.fog && v1.fog + HALF_STEP >= v0.fog {
        return None;
    }
    // C: int division truncates; the float midpoint divides by 2.
    let mid_x = v0.x.0.wrapping_add(v1.x.0.wrapping_sub(v0.x.0) / 2);
    let mid_s = v0.s + (v1.s - v0.s) / 2.0;
    let mut half0 = *v1;
    half0.x.0 = mid_x;
    half0.s = mid_s;
    let mut half1 = *v1;
    half1.x.0 = mid_x;
    half1.y = v0.y;
    half1.s = mid_s;
    half1.t = v0.t;
    let mut rev1 = *v1;
    rev1.fog = v0.fog;
    Some([[*v0, half0], [half1, rev1]])
}

/// A sprite drawn under texture-matrix projection: PPSSPP turns it into four triangles
/// (two per diagonal, one of each pair surviving the winding check) from v1's attributes
/// with the corners' texture coordinates, swapping the TR/BL texture coordinates for
/// rotated corner orders [PP `Clipper.cpp` `AddTriangleRect`, `RotateUV`]. Pass each to
/// `triangle` in order (no culling).
pub fn rect_to_triangles(v: &[ScreenVertex; 2]) -> [[ScreenVertex; 3]; 4] {
    let (v0, v1) = (&v[0], &v[1]);
    let mut buf = [*v1; 4];
    buf[0].x = v0.x;
    buf[0].y = v0.y;
    (buf[0].s, buf[0].t, buf[0].q) = (v0.s, v0.t, v0.q);
    buf[1].x = v0.x;
    (buf[1].s, buf[1].t, buf[1].q) = (v0.s, v1.t, v0.q);
    buf[2].y = v0.y;
    (buf[2].s, buf[2].t, buf[2].q) = (v1.s, v0.t, v1.q);
    let (mut tl, mut tr, mut bl, mut br) = (0usize, 1usize, 2usize, 3usize);
    for i in 0..4 {
        let (x, y) = (buf[i].x.0, buf[i].y.0);
        if x < buf[tl].x.0 && y < buf[tl].y.0 {
            tl = i;
        }
        if x > buf[tr].x.0 && y < buf[tr].y.0 {
            tr = i;
        }
        if x < buf[bl].x.0 && y > buf[bl].y.0 {
            bl = i;
        }
        if x > buf[br].x.0 && y > buf[br].y.0 {
            br = i;
        }
    }
    // [PP RotateUV]
    let (x1, y1, x2, y2) = (v0.x.0, v0.y.0, v1.x.0, v1.y.0);
    if (x1 < x2 && y1 > y2) || (x1 > x2 && y1 < y2) {
        let (a, b) = (buf[bl], buf[tr]);
        (buf[bl].s, buf[bl].t, buf[bl].q) = (b.s, b.t, b.q);
        (buf[tr].s, buf[tr].t, buf[tr].q) = (a.s, a.t, a.q);
    }
    [[buf[tl], buf[tr], buf[bl]], [buf[bl], buf[tr], buf[tl]], [buf[tr], buf[br], buf[bl]], [buf[bl], buf[br], buf[tr]]]
}

/// Draw a rectangle (sprite) the way the PSP does:
///
/// * coverage: pixel (px, py) is drawn when its centre lies in `[x_min, x_max)` and
///   `[y_min, y_max)` (1/16 px), right and bottom edges exclusive for every pixel
///   [HW filtering/precisionnearest2d "Pos X offset 8": a sprite over x ∈ [−0.5, 1.5)
///   leaves pixel 1, whose centre is on its right edge, undrawn];
/// * texture coordinates: the exact linear interpolation between the corners at the
///   pixel centre, `s = s_a + (16·px + 8 − x_min)·(s_b − s_a)/(x_max − x_min)`, with the
///   corner order choosing which axis S and T run along as in [`rectangle`]
///   [HW filtering/precisionlinear2d, precisionlinear3d "Pos X/Y offset (256x)": the first
///   changed filter weight appears exactly where the pixel centre crosses 9/16 of texel 0
///   at every sub-pixel offset, for 2×2 texels magnified to 2 and to 512 pixels].
///
/// Colour, depth and fog are flat from `v[1]`. Quads are emitted on the even pixel grid
/// like every other shape.
pub fn rectangle_exact(v: &[ScreenVertex; 2], setup: &RasterSetup, emit: &mut dyn FnMut(&Quad)) {
    let (x0, y0, x1, y1) = (v[0].x.0, v[0].y.0, v[1].x.0, v[1].y.0);
    let (left, right) = (x0.min(x1), x0.max(x1));
    let (top, bottom) = (y0.min(y1), y0.max(y1));
    let px0 = first_centre(left).max(setup.clip.x0);
    let px1 = last_centre(right).min(setup.clip.x1);
    let py0 = first_centre(top).max(setup.clip.y0).max(setup.band_y0);
    let py1 = last_centre(bottom).min(setup.clip.y1).min(setup.band_y1);
    if px1 < px0 || py1 < py0 {
        return;
    }
    let base = flat_fragment(&v[1]);
    let tex = TexSlopes::new(v, left, top, right - left, bottom - top);
    let (qx0, qy0) = (px0 & !1, py0 & !1);
    let mut qy = qy0;
    while qy <= py1 {
        let mut qx = qx0;
        while qx <= px1 {
            let mut frags = [base; 4];
            let mut mask = 0u8;
            for (lane, f) in frags.iter_mut().enumerate() {
                f.x = qx + (lane & 1) as i32;
                f.y = qy + (lane >> 1) as i32;
                if (px0..=px1).contains(&f.x) && (py0..=py1).contains(&f.y) {
                    mask |= 1 << lane;
                }
                if setup.textured {
                    (f.s, f.t) = tex.at(16 * f.x + 8, 16 * f.y + 8);
                }
            }
            if mask != 0 {
                // Slope-mode LOD uses the second vertex's clip w, as for `rectangle`.
                emit(&Quad::from_frags(frags, mask, v[1].w));
            }
            qx += 2;
        }
        qy += 2;
    }
}

/// Texture coordinates of a rectangle as exact functions of the sample position.
pub struct TexSlopes {
    /// (s, t) at the top-left corner (left, top).
    origin: (f64, f64),
    /// d(s, t) per 1/16 px along x and along y.
    dx: (f64, f64),
    dy: (f64, f64),
    left: i32,
    top: i32,
}

impl TexSlopes {
    fn new(v: &[ScreenVertex; 2], left: i32, top: i32, width: i32, height: i32) -> TexSlopes {
        let (s0, t0, s1, t1) = (v[0].s as f64, v[0].t as f64, v[1].s as f64, v[1].t as f64);
        let (ds, dt) = (s1 - s0, t1 - t0);
        let per = |d: f64, span: i32| if span > 0 { d / span as f64 } else { 0.0 };
        let (w, h) = (width, height);
        let (origin, dx, dy) = match (v[0].x.0 < v[1].x.0, v[0].y.0 < v[1].y.0) {
            (true, true) => ((s0, t0), (per(ds, w), 0.0), (0.0, per(dt, h))),
            // BL→TR: x moves T toward v1, y moves S away from v1.
            (true, false) => ((s1, t0), (0.0, per(dt, w)), (per(-ds, h), 0.0)),
            // TR→BL
            (false, true) => ((s0, t1), (0.0, per(-dt, w)), (per(ds, h), 0.0)),
            // BR→TL
            (false, false) => ((s1, t1), (per(-ds, w), 0.0), (0.0, per(-dt, h))),
        };
        TexSlopes { origin, dx, dy, left, top }
    }

    #[inline]
    fn at(&self, x: i32, y: i32) -> (f32, f32) {
        let (ex, ey) = ((x - self.left) as f64, (y - self.top) as f64);
        (
            (self.origin.0 + self.dx.0 * ex + self.dy.0 * ey) as f32,
            (self.origin.1 + self.dx.1 * ex + self.dy.1 * ey) as f32,
        )
    }
}
