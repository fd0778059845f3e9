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
//! [`LineRule::DiamondExit`] ([`line_diamond_exit`], the PSP): the diamond-exit rule.
//! Each pixel owns the diamond |x − xc| + |y − yc| < ½ around its centre; a segment
//! lights the pixels whose diamond it meets, except the one it ends inside. Ties (an
//! end point or the line exactly on a diamond's border) are broken as if both end points
//! sat (ε², ε) further right and down, ε → 0: the upper half of a diamond's border
//! counts as inside, its left and right corners and lower half as outside. Along the
//! major axis the line crosses one diamond per pixel (|slope| ≤ 1), so the lit pixels are
//! those whose centre lies between the end points, less the end pixel when the end lies
//! inside its diamond, plus the pixel before the start when the start lies inside that
//! one's; the minor coordinate is the line's at the major centre, truncated.
//! Evidence [HW primitives-bezier lines patch, whose tessellated vertical x = 177.5 runs
//! through pixel centres while x = 185 runs along pixel borders, both with vertices at
//! y = 22.375, 30.625, 36, 40: row 30 of x = 177.5 shows the lower segment's colour
//! (green 223; the upper segment's would be 222 as on x = 185), so the upper segment,
//! ending inside that diamond, does not light it and the lower one, starting inside,
//! does; pixel (177, 40) is lit only by the diagonal that starts on the top corner of its
//! diamond (patch.rs `push_grid`); primitives-linestrip: (11.25, 19.125) → (11.25, 21.25)
//! ends on the upper edge of pixel (11, 21)'s diamond and leaves it dark; of the eight
//! nudges (±ε, ±ε²) and (±ε², ±ε) only (ε², ε) draws the bezier lines patch exactly
//! (simulated: the others leave 2 to 168 pixels);
//! primitives-lines: (9.375, 19.125)-(11.25, 19.125) lights 9 and 10 where the DDA's
//! `steps = ⌊30/16⌋ = 1` lights only 9, and 14 → 16 on a row border lights 14, 15 either
//! way round]. The previous rule, pixel centres in `[min, max)` of the end points, left
//! primitives-bezier and primitives-spline at 2 pixels each; the diamond-exit rule with
//! PPSSPP's patch line order (diagonals tr → bl) at 2 each too.
//! Colours follow the triangles' colour rule along the major axis: from the end point
//! with the lower major coordinate, the gradient per 1/16 px rounded down to
//! [`COLOUR_GRADIENT_BITS`] fraction bits, evaluated at the pixel centre (beyond the end
//! point for a pixel lit before the start) and truncated [HW primitives-bezier lines
//! patch: its 4x4 grid of y- and x-major segments between tessellated vertices was off by
//! 1 to 8 green levels on 270 pixels with colours stepped by `i / steps` from v0;
//! primitives-bezier 527 → 288 differing pixels, primitives-spline 869 → 630]. guess:
//! depth steps from v0 by `i / steps` over the pixels whose centre lies between the end
//! points and fog and texture coordinates by the same fraction in float as in PPSSPP's
//! DDA, so the first such pixel takes v0's values exactly and a pixel lit beyond an end
//! takes that end's; no hardware data separates the alternatives.

use super::plane::COLOUR_GRADIENT_BITS;
use super::{
    clamp_fog, clamp_u8, cvt_trunc_f64, depth_u16, floor_div, screen_range, single_pixel_quad, vertex_depth,
    RasterSetup,
};

/// Which pixels a line lights, decided once per draw by the GE model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineRule {
    /// PPSSPP's DDA: `|major delta| / 16` steps from v0 [PP `DrawLine`].
    PpssppDda,
    /// The pixels whose diamond the segment leaves
    /// [HW primitives-lines, primitives-linestrip, primitives-bezier] (module docs).
    DiamondExit,
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
    if setup.line == LineRule::DiamondExit {
        return line_diamond_exit(v, setup, emit);
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

/// [`LineRule::DiamondExit`]: the pixels whose diamond the segment leaves (module docs).
fn line_diamond_exit(v: &[ScreenVertex; 2], setup: &RasterSetup, emit: &mut dyn FnMut(&Quad)) {
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
    let seg = Segment::new(x_major, am, an, dm, dn);
    // Pixels p with 16p + 8 in [lo, hi): always lit but for the one holding the end
    // point; the diamonds of the pixels just outside can also be left (first − 1, end).
    let (lo, hi) = (am.min(am + dm), am.max(am + dm));
    let (first, end) = ((lo + 7).div_euclid(16), (hi + 7).div_euclid(16));
    let (az, bz) = (vertex_depth(a.z) as i64, vertex_depth(b.z) as i64);
    let same = a.color0 == b.color0 && a.color1 == b.color1;
    let interpolate_color = !(setup.flat_shading || same);
    // Texture-coordinate change per pixel along x and y (the LOD inputs).
    let per_px = |d: f32, delta: i64| if delta == 0 { 0.0 } else { d * 16.0 / delta as f32 };
    let (ds, dt) = if setup.textured { (per_px(b.s - a.s, dx), per_px(b.t - a.t, dy)) } else { (0.0, 0.0) };
    // guess: attributes other than colour step from v0 by i/steps over the pixels whose
    // centre lies between the end points, as PPSSPP's DDA does; a pixel lit beyond an
    // end takes that end's values.
    let steps = end - first;
    // Only pixels inside the clip range on the major axis can be drawn: visit just those
    // (bounded work for far-off vertices, README "Limits"; the others are skipped below).
    let (mlo, mhi) = if x_major { (range[0] >> 4, range[2] >> 4) } else { (range[1] >> 4, range[3] >> 4) };
    let (plo, phi) = ((first - 1).max(mlo as i64), end.min(mhi as i64));
    for p in plo..=phi {
        let Some(minor) = seg.lit(p) else {
            continue;
        };
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
        // The centre lies k/den of the way from a to b (outside 0..=den beyond an end).
        let k = (16 * p + 8 - am) * dm.signum();
        let colour = |ca: u8, cb: u8| colour_along(ca, cb, k, seg.den, dm > 0);
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
        let i = (if dm > 0 { p - first } else { end - 1 - p }).clamp(0, steps);
        let t = if steps == 0 { 0.0 } else { i as f32 / steps as f32 };
        let (mut s, mut tt) = (0.0f32, 0.0f32);
        if setup.textured {
            if setup.perspective {
                (s, tt) = persp_st(a, b, 1.0 - t);
            } else {
                s = a.s + (b.s - a.s) * t;
                tt = a.t + (b.t - a.t) * t;
            }
        }
        let z = if steps == 0 { az } else { floor_div(az * (steps - i) + bz * i, steps) };
        let f = Fragment {
            x: px,
            y: py,
            z: depth_u16(z as i32),
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

/// `c0 + c1·ε + c2·ε²` for an infinitesimal ε > 0: lexicographic order is the order of
/// the values.
type Perturbed = [i128; 3];

fn scaled(v: Perturbed, k: i128) -> Perturbed {
    v.map(|c| c * k)
}

fn minus(a: Perturbed, b: Perturbed) -> Perturbed {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// A line in major/minor coordinates (1/16 px) for the diamond-exit test: from
/// (`am`, `an`) to (`bm`, `bn`), `den` = |major delta|, minor slope `sdn / den` per unit
/// of major coordinate (|sdn| ≤ den).
struct Segment {
    x_major: bool,
    am: i64,
    an: i64,
    bm: i64,
    bn: i64,
    den: i64,
    sdn: i64,
}

impl Segment {
    fn new(x_major: bool, am: i64, an: i64, dm: i64, dn: i64) -> Segment {
        Segment { x_major, am, an, bm: am + dm, bn: an + dn, den: dm.abs(), sdn: dn * dm.signum() }
    }

    /// Whether the segment lights major pixel `p`, and on which minor pixel (module docs).
    /// Ties are broken as if both end points sat (ε², ε) further right and down. The
    /// moved line crosses the major centre `16p + 8` inside exactly one open diamond
    /// (|slope| ≤ 1), that of minor pixel `q`; the pixel is lit when the moved segment
    /// meets that open diamond and does not end inside it.
    fn lit(&self, p: i64) -> Option<i64> {
        let (den, sdn) = (self.den as i128, self.sdn as i128);
        // (ε², ε) in (major, minor) order.
        let (dm, dn): (Perturbed, Perturbed) =
            if self.x_major { ([0, 0, 1], [0, 1, 0]) } else { ([0, 1, 0], [0, 0, 1]) };
        let cm = 16 * p + 8;
        // den · minor coordinate of the moved line at the major centre.
        let n0 = self.an as i128 * den + (cm - self.am) as i128 * sdn;
        let n = minus([n0, 0, 0], minus(scaled(dm, sdn), scaled(dn, den)));
        let mut q = n0.div_euclid(16 * den);
        if n0.rem_euclid(16 * den) == 0 && [n[1], n[2]] < [0, 0] {
            q -= 1;
        }
        let cn = 16 * q + 8;
        // den · minor offset from the diamond centre at the major centre, in (−8den, 8den).
        let e = minus(n, [cn * den, 0, 0]);
        let (r_plus, r_minus) = (minus([8 * den, 0, 0], e), [8 * den + e[0], e[1], e[2]]);
        // The moved line lies inside the open diamond for major offsets u from the centre
        // with |u| + |e/den + u·sdn/den| < 8:
        // u < u_out ⇔ u(den + sdn) < 8den − e and u(den − sdn) < 8den + e;
        // u > u_in ⇔ −u(den − sdn) < 8den − e and −u(den + sdn) < 8den + e.
        let below_out = |u: Perturbed| scaled(u, den + sdn) < r_plus && scaled(u, den - sdn) < r_minus;
        let above_in = |u: Perturbed| scaled(u, -(den - sdn)) < r_plus && scaled(u, -(den + sdn)) < r_minus;
        let (lo, hi) = (self.am.min(self.bm), self.am.max(self.bm));
        let u_lo = [(lo - cm) as i128 + dm[0], dm[1], dm[2]];
        let u_hi = [(hi - cm) as i128 + dm[0], dm[1], dm[2]];
        if !([0; 3] < r_plus && [0; 3] < r_minus && below_out(u_lo) && above_in(u_hi)) {
            return None;
        }
        // The moved end point lies inside: strictly inside, or on the upper half of the
        // boundary (its top corner and upper edges, not the left and right corners).
        let cn = cn as i64;
        let (du, dv) = (self.bm - cm, self.bn - cn);
        let dy = if self.x_major { dv } else { du };
        let g = du.abs() + dv.abs();
        if g < 8 || (g == 8 && dy < 0) {
            return None;
        }
        Some(q as i64)
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
