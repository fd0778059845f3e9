//! Lines: PPSSPP's DDA along the major axis ([PP `Rasterizer.cpp` `DrawLine`]).
//!
//! `steps = |major delta| / 16` pixels are visited starting at v0 (moved back one 1/16
//! unit when the line runs towards negative coordinates), advancing by delta/steps in
//! double precision; the end pixel is therefore excluded [HW `primitives/lines.bmp`: a
//! horizontal line from 14 to 16 lights 14 and 15]. Colours interpolate in integers with
//! truncation, fog and texture coordinates in single precision, depth in double precision
//! truncated per pixel. PPSSPP's own TODO says fractional endpoints are not exact; its
//! behaviour is what the references show.
//!
//! [`LineRule::PixelCentres`] ([`line_centres`], the PSP): the line lights, along its major axis, every
//! pixel whose centre lies in `[min, max)` of the two endpoints, whichever way it runs;
//! the minor coordinate is the exact line at that centre, truncated [HW primitives-lines:
//! the line (9.375, 19.125)-(11.25, 19.125) lights 9 and 10 where the DDA's
//! `steps = ⌊30/16⌋ = 1` lights only 9; HW primitives-bezier lines patch: a segment
//! running left from x = 185 to the centre 177.5 lights its end pixel 177, at y = 40.0
//! exactly → row 40, and a y-major segment from y = 10 puts row 12 at x = ⌊175.99⌋].
//! Colours follow the triangles' colour rule along the major axis: from the end point
//! with the lower major coordinate, the gradient per 1/16 px rounded down to
//! [`COLOUR_GRADIENT_BITS`] fraction bits, evaluated at the pixel centre and truncated
//! [HW primitives-bezier lines patch: its 4x4 grid of y- and x-major segments between
//! tessellated vertices was off by 1 to 8 green levels on 270 pixels with colours stepped
//! by `i / steps` from v0, 2 pixels with this rule; primitives-bezier 527 → 288 differing
//! pixels, primitives-spline 869 → 630; stepping from v0 instead of the lower end point
//! leaves 2 more on each]. guess: depth steps from v0 by `i / steps` and fog and texture
//! coordinates by the same fraction in float as in PPSSPP's DDA, so the first pixel takes
//! v0's values exactly; no hardware data separates the alternatives.

use super::triangle::COLOUR_GRADIENT_BITS;
use super::{
    clamp_fog, clamp_u8, cvt_trunc_f64, depth_u16, floor_div, screen_range, single_pixel_quad, vertex_depth,
    RasterSetup,
};

/// Which pixels a line lights, decided once per draw by the GE model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineRule {
    /// PPSSPP's DDA: `|major delta| / 16` steps from v0 [PP `DrawLine`].
    PpssppDda,
    /// The pixels whose centre the major axis crosses, end points in either order
    /// [HW primitives-lines, primitives-linestrip, primitives-bezier] (module docs).
    PixelCentres,
}
use crate::geom::{Fragment, Quad, ScreenVertex};

/// [PP GetTextureCoordinates(v0, v1, p)] / `GetTextureCoordinatesProj`: perspective-correct
/// two-point interpolation with weight `p` on v0 (q = 1 without projection gives the same
/// bits as the non-projective formula).
fn persp_st(v0: &ScreenVertex, v1: &ScreenVertex, p: f32) -> (f32, f32) {
    let q0 = 1.0f32 / v0.w;
    let q1 = 1.0f32 / v1.w;
    let wq0 = p * q0;
    let wq1 = (1.0f32 - p) * q1;
    let q_recip = 1.0f32 / (v0.q * wq0 + v1.q * wq1);
    ((v0.s * wq0 + v1.s * wq1) * q_recip, (v0.t * wq0 + v1.t * wq1) * q_recip)
}

/// Draw a line from `v[0]` to `v[1]` (end pixel excluded). With [`RasterSetup::flat_shading`]
/// (or equal colours) every pixel takes `v[1]`'s colours.
pub fn line(v: &[ScreenVertex; 2], setup: &RasterSetup, emit: &mut dyn FnMut(&Quad)) {
    if setup.line == LineRule::PixelCentres {
        return line_centres(v, setup, emit);
    }
    let (a, b) = (&v[0], &v[1]);
    let Some(range) = screen_range(&[a.x.0, b.x.0], &[a.y.0, b.y.0], &setup.clip) else {
        return;
    };
    let (az, bz) = (vertex_depth(a.z) as i32, vertex_depth(b.z) as i32);
    let mut dx = b.x.0.wrapping_sub(a.x.0);
    let mut dy = b.y.0.wrapping_sub(a.y.0);
    let dz = bz - az;
    let steps =
        if dx.unsigned_abs() < dy.unsigned_abs() { dy.unsigned_abs() / 16 } else { dx.unsigned_abs() / 16 } as i32;
    // [PP DrawLine] "Avoid going too far since we typically don't start at the pixel center."
    if (-16..0).contains(&dx) {
        dx += 1;
    }
    if (-16..0).contains(&dy) {
        dy += 1;
    }
    let xinc = dx as f64 / steps as f64;
    let yinc = dy as f64 / steps as f64;
    let zinc = dz as f64 / steps as f64;

    let same = a.color0 == b.color0 && a.color1 == b.color1;
    let interpolate_color = !(setup.flat_shading || same);
    let steps1 = if steps == 0 { 1 } else { steps };

    let mut x = if a.x.0 > b.x.0 { a.x.0 as f64 - 1.0 } else { a.x.0 as f64 };
    let mut y = if a.y.0 > b.y.0 { a.y.0 as f64 - 1.0 } else { a.y.0 as f64 };
    let mut z = az as f64;
    // Bounded work (README "Limits"): a vertex that skipped the screen-range check (depth
    // clamp, z ≤ −w) can sit 2^31 subpixels away, 2^27 DDA steps. Steps before the range are
    // jumped when more than 2^16 (a whole 4096-px screen) lie outside, at the cost of PPSSPP's
    // accumulated rounding in x, y, z (≈1e-7 px); steps past the range end the loop (exact:
    // the DDA is monotonic).
    let lead = |p: f64, inc: f64, lo: i32, hi: i32| {
        let gap = if inc > 0.0 { lo as f64 - p } else { p - hi as f64 };
        if inc != 0.0 && gap > 0.0 {
            (gap / inc.abs()).floor() - 2.0
        } else {
            0.0
        }
    };
    let skip = lead(x, xinc, range[0], range[2]).max(lead(y, yinc, range[1], range[3]));
    let start = if skip > 65536.0 { skip.min(steps as f64) as i32 } else { 0 };
    if start > 0 {
        x += start as f64 * xinc;
        y += start as f64 * yinc;
        z += start as f64 * zinc;
    }
    for i in start..steps {
        if (xinc > 0.0 && x > range[2] as f64)
            || (xinc < 0.0 && x < range[0] as f64)
            || (yinc > 0.0 && y > range[3] as f64)
            || (yinc < 0.0 && y < range[1] as f64)
        {
            break;
        }
        let mask_ok = x >= range[0] as f64 && y >= range[1] as f64 && x <= range[2] as f64 && y <= range[3] as f64;
        // In range x, y ≥ 0, so PPSSPP's (int)x / 16 is a floor.
        let px = cvt_trunc_f64(x) / 16;
        let py = cvt_trunc_f64(y) / 16;
        if mask_ok && setup.row_in_band(py) {
            let (wa, wb) = (steps - i, i);
            let (color0, color1) = if interpolate_color {
                let c4 = |k: usize| clamp_u8((a.color0[k] as i32 * wa + b.color0[k] as i32 * wb) / steps1);
                let c3 = |k: usize| clamp_u8((a.color1[k] as i32 * wa + b.color1[k] as i32 * wb) / steps1);
                ([c4(0), c4(1), c4(2), c4(3)], [c3(0), c3(1), c3(2)])
            } else {
                (b.color0, b.color1)
            };
            let mut color0 = color0;
            if setup.antialias_lines {
                // [PP DrawLine] "TODO: Calculate." – alpha is forced.
                color0[3] = 0x7F;
            }
            let fog = clamp_fog((a.fog * wa as f32 + b.fog * wb as f32) / steps1 as f32);
            let (mut s, mut t, mut ds, mut dt) = (0.0f32, 0.0f32, 0.0f32, 0.0f32);
            if setup.textured {
                let (s1, t1);
                if setup.perspective {
                    (s, t) = persp_st(a, b, wa as f32 / steps1 as f32);
                    (s1, t1) = persp_st(a, b, (wa - 1) as f32 / steps1 as f32);
                } else {
                    let lerp = |p: f32, q: f32, k0: i32, k1: i32| (p * k0 as f32 + q * k1 as f32) / steps1 as f32;
                    s = lerp(a.s, b.s, wa, wb);
                    t = lerp(a.t, b.t, wa, wb);
                    s1 = lerp(a.s, b.s, wa - 1, wb + 1);
                    t1 = lerp(a.t, b.t, wa - 1, wb + 1);
                }
                // [PP DrawLine] float·16 times the double 1/inc, narrowed to float.
                ds = if xinc == 0.0 { 0.0 } else { ((s1 - s) * 16.0) as f64 * (1.0 / xinc) } as f32;
                dt = if yinc == 0.0 { 0.0 } else { ((t1 - t) * 16.0) as f64 * (1.0 / yinc) } as f32;
                if setup.antialias_lines && setup.perspective {
                    // guess: [PP DrawLine] "naive and wrong" AA texcoords are normalised;
                    // only reproducible in transform mode, where fragments carry normalised s/t.
                    s = (((px as f32) as f64 + xinc / 32.0) / 512.0) as f32;
                    t = (((py as f32) as f64 + yinc / 32.0) / 512.0) as f32;
                }
            }
            let f = Fragment {
                x: px,
                y: py,
                z: depth_u16(cvt_trunc_f64(z)),
                color0,
                color0_indefinite: 0,
                color1,
                fog,
                s,
                t,
            };
            // [PP DrawLine] slope-mode w: (w0·(steps − i) + w1·i) / steps1 in float.
            let w = (a.w * wa as f32 + b.w * wb as f32) / steps1 as f32;
            emit(&single_pixel_quad(f, ds, dt, w));
        }
        x += xinc;
        y += yinc;
        z += zinc;
    }
}

/// [`LineRule::PixelCentres`]: the pixels whose centre the major axis crosses (module docs).
fn line_centres(v: &[ScreenVertex; 2], setup: &RasterSetup, emit: &mut dyn FnMut(&Quad)) {
    let (a, b) = (&v[0], &v[1]);
    let Some(range) = screen_range(&[a.x.0, b.x.0], &[a.y.0, b.y.0], &setup.clip) else {
        return;
    };
    let (ax, ay, bx, by) = (a.x.0 as i64, a.y.0 as i64, b.x.0 as i64, b.y.0 as i64);
    let (dx, dy) = (bx - ax, by - ay);
    // Major axis as PPSSPP picks it (x on ties): (start, minor start, deltas).
    let x_major = dx.abs() >= dy.abs();
    let (am, an, dm, dn) = if x_major { (ax, ay, dx, dy) } else { (ay, ax, dy, dx) };
    if dm == 0 {
        return;
    }
    let den = dm.abs();
    let (lo, hi) = (am.min(am + dm), am.max(am + dm));
    // Pixels p with 16p + 8 in [lo, hi).
    let (first, end) = ((lo + 7).div_euclid(16), (hi + 7).div_euclid(16));
    let (az, bz) = (vertex_depth(a.z) as i64, vertex_depth(b.z) as i64);
    let same = a.color0 == b.color0 && a.color1 == b.color1;
    let interpolate_color = !(setup.flat_shading || same);
    // Texture-coordinate change per pixel along x and y (the LOD inputs).
    let per_px = |d: f32, delta: i64| if delta == 0 { 0.0 } else { d * 16.0 / delta as f32 };
    let (ds, dt) = if setup.textured { (per_px(b.s - a.s, dx), per_px(b.t - a.t, dy)) } else { (0.0, 0.0) };
    // Attributes step from v0 by i/steps per pixel visited, as PPSSPP's DDA does.
    let steps = end - first;
    // Only pixels inside the clip range on the major axis can be drawn: visit just those
    // (bounded work for far-off vertices, README "Limits"; the others are skipped below).
    let (mlo, mhi) = if x_major { (range[0] >> 4, range[2] >> 4) } else { (range[1] >> 4, range[3] >> 4) };
    let (plo, phi) = (first.max(mlo as i64), (end - 1).min(mhi as i64));
    let (i0, i1) = if dm > 0 { (plo - first, phi - first + 1) } else { (end - 1 - phi, end - 1 - plo + 1) };
    for i in i0.max(0)..i1.min(steps) {
        let p = if dm > 0 { first + i } else { end - 1 - i };
        // The centre lies k/den of the way from a to b.
        let k = (16 * p + 8 - am) * dm.signum();
        let minor = floor_div(an * den + k * dn, den * 16);
        let (px, py) = if x_major { (p, minor) } else { (minor, p) };
        if px < (range[0] >> 4) as i64
            || px > (range[2] >> 4) as i64
            || py < (range[1] >> 4) as i64
            || py > (range[3] >> 4) as i64
        {
            continue;
        }
        let (px, py) = (px as i32, py as i32);
        if !setup.row_in_band(py) {
            continue;
        }
        // `k` 1/16 px from a towards b is `den − k` from b towards a.
        let colour = |ca: u8, cb: u8| colour_along(ca, cb, k, den, dm > 0);
        let (mut color0, color1) = if interpolate_color {
            (
                std::array::from_fn(|i| colour(a.color0[i], b.color0[i])),
                std::array::from_fn(|i| colour(a.color1[i], b.color1[i])),
            )
        } else {
            (b.color0, b.color1)
        };
        if setup.antialias_lines {
            // guess: PPSSPP's forced alpha [PP DrawLine]; no hardware data.
            color0[3] = 0x7F;
        }
        let t = i as f32 / steps as f32;
        let (mut s, mut tt) = (0.0f32, 0.0f32);
        if setup.textured {
            if setup.perspective {
                (s, tt) = persp_st(a, b, 1.0 - t);
            } else {
                s = a.s + (b.s - a.s) * t;
                tt = a.t + (b.t - a.t) * t;
            }
        }
        let f = Fragment {
            x: px,
            y: py,
            z: depth_u16(floor_div(az * (steps - i) + bz * i, steps) as i32),
            color0,
            color0_indefinite: 0,
            color1,
            fog: clamp_fog(a.fog + (b.fog - a.fog) * t),
            s,
            t: tt,
        };
        emit(&single_pixel_quad(f, ds, dt, a.w + (b.w - a.w) * t));
    }
}

/// A colour channel `k` 1/16 px along the major axis from end point a (value `ca`)
/// towards b (`cb`), `den` 1/16 px apart: from the end with the lower major coordinate
/// (`a_first`: a), the gradient per 1/16 px rounded down to [`COLOUR_GRADIENT_BITS`]
/// fraction bits, truncated (module docs).
pub(crate) fn colour_along(ca: u8, cb: u8, k: i64, den: i64, a_first: bool) -> u8 {
    let (c0, c1, k) = if a_first { (ca, cb, k) } else { (cb, ca, den - k) };
    let grad = floor_div((c1 as i64 - c0 as i64) << COLOUR_GRADIENT_BITS, den.max(1));
    // |grad| ≤ 255·2^14 and 0 ≤ k ≤ den < 2^33: no overflow; the value lies within a step
    // of c0..c1.
    clamp_u8(((((c0 as i64) << COLOUR_GRADIENT_BITS) + grad * k) >> COLOUR_GRADIENT_BITS) as i32)
}
