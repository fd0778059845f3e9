//! Gouraud colour planes of the hardware model: each colour channel of a triangle as a
//! fixed-point plane through its start vertex ([`ColourPlane`]), with the setup its
//! channels share ([`PlaneSetup`]). The PPSSPP model interpolates colours barycentrically
//! in the triangle walk instead ([`super::triangle`]).
//!
//! The triangle walk takes a quad's colours from [`QuadPlanes`]. [`ColourPlane::at`] is
//! exact for any coordinates, which takes an i128 multiply-add per channel and lane (28 per
//! quad); it is the reference. When every value of a triangle's planes over its pixel box
//! (bounding box within the clip rectangle, one more pixel right and down for a quad's
//! second lanes) fits an i32, the same sums taken with wrapping i32 arithmetic are exact
//! (they are exact modulo 2^32, and the true value is in range), so a quad costs per
//! channel two scalar multiply-adds and a few four-lane operations; clamping to
//! 0..[`TOP`] before the shift equals clamping the shifted value to a byte. Channels equal
//! at all three vertices are constants. Quads outside the box, and triangles whose values
//! do not fit (far vertices with steep gradients), keep [`ColourPlane::at`]. Checked by
//! `quad_planes_equal_colour_plane_at`. Callgrind, `frametests --bench --runs 1 --threads 1`
//! (hardware model), `raster::triangle` inclusive: 16131 82.6 → 71.8 M, 17397 303.4 →
//! 271.5 M, nba-2k12 281.7 → 249.8 M (the PPSSPP model's barycentric colours: 67.7, 263.7,
//! 248.0 M). The setup (start vertex, one reciprocal, gradients, the fit check) costs about
//! 900 instructions per triangle (16131); on 10914 `raster::triangle` rose 121.7 →
//! 123.0 M.

use super::{ClipRect, RasterSetup};
use crate::geom::ScreenVertex;
use bytemuck::cast;
use wide::i32x4;

/// Fraction bits of a colour gradient per 1/16 px in [`ColourPlane`]. [HW
/// triangle-triangle: 14 bits leave 0 of its 4 995 interior pixels off; 13 bits 599,
/// 15 bits 125, 16 bits 123, 22 bits (≈ exact) 139.]
pub const COLOUR_GRADIENT_BITS: u32 = 14;

/// Fraction bits of the reciprocal of a triangle's doubled area that [`ColourPlane`]
/// multiplies its gradient numerators by (rounded down; the reciprocal has one more
/// significant bit). [HW primitives-bezier "colors" patch: the gradient 45 levels / 30
/// sixteenths = 1.5 is exact, yet the PSP shows 11 where 1.5·8 = 12 in the cells' upper
/// triangles: only a rounded-down reciprocal lowers it. Differing pixels of bezier and
/// spline, swept with the start at the rasterized order's first vertex (an equivalent
/// start in these patches): 14 bits → 92 and 350, 15–22 bits → 2 and 242, exact division
/// → 54 and 294; with the first-vertex rule as built, 16 bits → 2 and 242, and
/// triangle-triangle and primitives-immediate stay at 0.]
pub const AREA_RECIP_BITS: u32 = 16;

/// One Gouraud colour channel as the PSP interpolates it: the plane through the *start*
/// vertex with gradients per 1/16 px (numerator times a rounded-down reciprocal of the
/// area, `AREA_RECIP_BITS`) rounded down to `COLOUR_GRADIENT_BITS` fraction bits,
/// evaluated exactly at the pixel centre and truncated. All arithmetic is integer, so
/// there are no float ties.
///
/// The start vertex is the one the GE received first for the triangle
/// ([`crate::geom::ScreenVertex::first`]: a list's first, a strip's oldest, a fan's
/// centre); [`ColourPlane::start`] (topmost, leftmost on ties) only for triangles without
/// one (made by clipping; guess). [HW primitives-bezier "colors" patch: where the exact
/// colour is whole (blue 12 on row 10, 185 on row 20, 232 on row 26) the PSP shows one
/// less in each cell's upper triangle (tl, bl, tr) and the whole value in its lower one
/// (bl, tr, br as a strip draws it): the lower triangle's topmost vertex gives one less
/// there too, its first vertex bl does not. primitives-bezier 288 → 2 differing pixels,
/// primitives-spline 630 → 242; primitives-immediate (fan centre = topmost) and
/// triangle-triangle (first = topmost) stay at 0.]
///
/// Earlier evidence: primitives-immediate's fan falls from 255 to 127 over 40 rows and
/// shows one less wherever the exact value is whole (rows 12, 17, …, 47: 320 pixels).
/// triangle-triangle's
/// rotated triangle has, per row, a constant error of −0.004 … +0.037 levels against the
/// exact plane (read off the rows where the exact red is within 0.04 of a whole number),
/// which these gradient steps reproduce pixel for pixel; gradients rounded to nearest or
/// toward zero do not lower the whole-number pixels of the immediate fan. guess: the tie
/// between two topmost vertices (leftmost first): no test separates it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ColourPlane {
    /// Start vertex in 1/16 px.
    x: i64,
    y: i64,
    /// Start colour and gradients, in units of 2^-[`COLOUR_GRADIENT_BITS`] levels.
    c: i64,
    dx: i64,
    dy: i64,
}

impl ColourPlane {
    /// Fallback start vertex (no unique first vertex): the topmost, then the leftmost.
    pub fn start(p: &[(i32, i32); 3]) -> usize {
        (0..3).min_by_key(|&i| (p[i].1, p[i].0)).unwrap_or(0)
    }

    /// The plane of channel values `c` at positions `p` (1/16 px), from vertex `s`. A
    /// zero-area triangle keeps the start colour (guess: its gradients are undefined).
    pub fn new(p: &[(i32, i32); 3], c: [u8; 3], s: usize) -> ColourPlane {
        PlaneSetup::new(p, s).channel(c)
    }
    /// A plane from its start vertex, start value and raw gradients (tests).
    #[cfg(test)]
    pub(crate) fn from_parts(at: (i32, i32), c: u8, dx: i64, dy: i64) -> ColourPlane {
        ColourPlane { x: at.0 as i64, y: at.1 as i64, c: (c as i64) << COLOUR_GRADIENT_BITS, dx, dy }
    }

    /// Whether the plane's value at every sample point (offset `half` into the pixel) of
    /// the pixels `bx` (inclusive `[x0, y0, x1, y1]`) fits an i32. It is linear, so its
    /// largest and smallest values are at the corners its gradients point to and from;
    /// an overflow on the way means it does not fit.
    fn fits_i32(&self, bx: [i32; 4], half: i32) -> bool {
        let at = |px: i32, py: i32| -> Option<i64> {
            let ex = (16 * px as i64 + half as i64 - self.x).checked_mul(self.dx)?;
            let ey = (16 * py as i64 + half as i64 - self.y).checked_mul(self.dy)?;
            self.c.checked_add(ex)?.checked_add(ey)
        };
        let (hi_x, lo_x) = if self.dx >= 0 { (bx[2], bx[0]) } else { (bx[0], bx[2]) };
        let (hi_y, lo_y) = if self.dy >= 0 { (bx[3], bx[1]) } else { (bx[1], bx[3]) };
        let range = i32::MIN as i64..=i32::MAX as i64;
        at(hi_x, hi_y).is_some_and(|v| range.contains(&v)) && at(lo_x, lo_y).is_some_and(|v| range.contains(&v))
    }

    /// The channel at sample point (`sx`, `sy`) in 1/16 px, truncated and clamped to a byte.
    #[inline]
    pub fn at(&self, sx: i32, sy: i32) -> u8 {
        let v = self.c as i128
            + self.dx as i128 * (sx as i64 - self.x) as i128
            + self.dy as i128 * (sy as i64 - self.y) as i128;
        (v >> COLOUR_GRADIENT_BITS).clamp(0, 255) as u8
    }
}

/// What the [`ColourPlane`]s of one triangle share: the edges from the start vertex and
/// the rounded-down reciprocal of the doubled area, computed once for its seven channels.
#[derive(Clone, Copy, Debug)]
pub struct PlaneSetup {
    /// The start vertex: its index and position in 1/16 px.
    s: usize,
    /// The other two vertices, `(s + 1) % 3` and `(s + 2) % 3`.
    ab: (usize, usize),
    start: (i32, i32),
    /// Edges from the start vertex to the next two, in 1/16 px (33-bit values).
    xa: i64,
    ya: i64,
    xb: i64,
    yb: i64,
    /// Sign of the area (−1, 0 or 1), the reciprocal R = ⌊2^(k+e) / |area|⌋ and the shift
    /// k + e − [`COLOUR_GRADIENT_BITS`], k = [`AREA_RECIP_BITS`], e the bit length of |area|.
    sign: i128,
    recip: i128,
    shift: u32,
}

impl PlaneSetup {
    pub fn new(p: &[(i32, i32); 3], s: usize) -> PlaneSetup {
        let (a, b) = ((s + 1) % 3, (s + 2) % 3);
        let d = |i: usize| (p[i].0 as i64 - p[s].0 as i64, p[i].1 as i64 - p[s].1 as i64);
        let ((xa, ya), (xb, yb)) = (d(a), d(b));
        let area = xa as i128 * yb as i128 - xb as i128 * ya as i128;
        // Operands stay below 2^70 for 32-bit coordinates; R has AREA_RECIP_BITS + 1
        // significant bits.
        let den = area.abs();
        let e = 128 - den.leading_zeros();
        let recip = if area == 0 { 0 } else { (1i128 << (AREA_RECIP_BITS + e)).div_euclid(den) };
        PlaneSetup {
            s,
            ab: (a, b),
            start: p[s],
            xa,
            ya,
            xb,
            yb,
            sign: area.signum(),
            recip,
            shift: AREA_RECIP_BITS + e - COLOUR_GRADIENT_BITS,
        }
    }

    /// Rounded down: ⌊(n << bits) / area⌋ through `n · R` for either sign of the area; the
    /// quotient is clamped to i64.
    #[inline]
    fn grad(&self, n: i64) -> i64 {
        if self.sign == 0 {
            return 0;
        }
        if self.shift < 63 {
            // |n| < 2^43 (a byte difference times two 33-bit deltas) and R ≤ 2^17, so the
            // product fits an i64 exactly; only areas past 2^61 need the wide shift.
            return (self.sign as i64 * n * self.recip as i64) >> self.shift;
        }
        ((self.sign * n as i128 * self.recip) >> self.shift).clamp(i64::MIN as i128, i64::MAX as i128) as i64
    }

    /// The plane of channel values `c` at the setup's vertices. A channel equal at all
    /// three vertices has zero gradients, so no products are taken for it.
    pub fn channel(&self, c: [u8; 3]) -> ColourPlane {
        let (s, (a, b)) = (self.s, self.ab);
        let (ca, cb) = (c[a] as i64 - c[s] as i64, c[b] as i64 - c[s] as i64);
        let (dx, dy) = if ca == 0 && cb == 0 {
            (0, 0)
        } else {
            (self.grad(ca * self.yb - cb * self.ya), self.grad(cb * self.xa - ca * self.xb))
        };
        let (x, y) = self.start;
        ColourPlane { x: x as i64, y: y as i64, c: (c[s] as i64) << COLOUR_GRADIENT_BITS, dx, dy }
    }
}

/// The largest plane value (in units of 2^-[`COLOUR_GRADIENT_BITS`] levels) that
/// [`ColourPlane::at`] reads as 255: `clamp(v, 0, TOP) >> bits` equals
/// `clamp(v >> bits, 0, 255)` for every v.
const TOP: i32 = (256 << COLOUR_GRADIENT_BITS) - 1;

/// One channel's plane in wrapping i32 form: its value at lane 0 of the quad at pixel
/// (0, 0) and its steps per pixel, all modulo 2^32.
#[derive(Clone, Copy, Debug)]
struct LanePlane {
    /// Steps from lane 0 to lanes 0..3 ((0, 0), (1, 0), (0, 1), (1, 1)).
    lanes: i32x4,
    at0: i32,
    dx16: i32,
    dy16: i32,
    /// The channel's bit position in the packed colour word.
    shift: u32,
}

impl LanePlane {
    const NONE: LanePlane = LanePlane { lanes: i32x4::ZERO, at0: 0, dx16: 0, dy16: 0, shift: 0 };

    fn new(p: &ColourPlane, half: i32, shift: u32) -> LanePlane {
        // Wrapping i64 products are exact modulo 2^64, so their low 32 bits are.
        let at0 =
            p.c.wrapping_add(p.dx.wrapping_mul(half as i64 - p.x)).wrapping_add(p.dy.wrapping_mul(half as i64 - p.y));
        let (dx16, dy16) = (p.dx.wrapping_mul(16) as i32, p.dy.wrapping_mul(16) as i32);
        LanePlane { lanes: i32x4::new([0, dx16, dy16, dx16.wrapping_add(dy16)]), at0: at0 as i32, dx16, dy16, shift }
    }
}

/// The colour planes of one hardware-model triangle as the walk reads them, quad by quad:
/// the primary colour's four channels and the secondary colour's three, each colour only
/// when not flat (the walk keeps flat colours itself).
#[derive(Clone, Copy, Debug)]
pub(crate) struct QuadPlanes {
    /// Start vertex (1/16 px) and, per channel (primary r, g, b, a, secondary r, g, b),
    /// start value and gradients as in [`ColourPlane`].
    start: (i64, i64),
    grads: [(i64, i64, i64); 7],
    /// Offset of the sample point in the pixel, 1/16 px.
    half: i32,
    shade: [bool; 2],
    /// Pixels (inclusive) whose quads the lane form gives, when every plane's value there
    /// fits an i32 (`fits`).
    bx: [i32; 4],
    fits: bool,
    /// Per colour: the bytes of its constant channels, and how many of `lanes` (primary
    /// first) are its other channels.
    fixed: [i32; 2],
    n: [u8; 2],
    lanes: [LanePlane; 7],
}

impl QuadPlanes {
    /// The planes of triangle `v` under `setup`; `shade0`/`shade1`: whether the primary /
    /// secondary colour is interpolated (not flat).
    #[cfg(test)]
    pub(crate) fn new(v: &[ScreenVertex; 3], setup: &RasterSetup, shade0: bool, shade1: bool) -> QuadPlanes {
        let mut slot = None;
        QuadPlanes::build(&mut slot, v, setup, shade0, shade1);
        slot.unwrap_or_else(|| unreachable!())
    }

    /// [`QuadPlanes::new`] built in `slot` (returned by value, the 0x1b8 bytes were copied
    /// twice on the way into the triangle). Channels equal at all three vertices are found
    /// from the colour words at once and skip the plane set-up.
    pub(crate) fn build(
        slot: &mut Option<QuadPlanes>,
        v: &[ScreenVertex; 3],
        setup: &RasterSetup,
        shade0: bool,
        shade1: bool,
    ) {
        let pts = [(v[0].x.0, v[0].y.0), (v[1].x.0, v[1].y.0), (v[2].x.0, v[2].y.0)];
        let s = match [v[0].first, v[1].first, v[2].first] {
            [true, false, false] => 0,
            [false, true, false] => 1,
            [false, false, true] => 2,
            // guess: triangles made by clipping (no unique first vertex).
            _ => ColourPlane::start(&pts),
        };
        let setup_planes = PlaneSetup::new(&pts, s);
        let half = setup.triangle.sample.offset();
        let bx = pixel_box(&pts, &setup.clip);
        let q = slot.insert(QuadPlanes {
            start: (pts[s].0 as i64, pts[s].1 as i64),
            grads: [(0, 0, 0); 7],
            half,
            shade: [shade0, shade1],
            bx,
            fits: true,
            fixed: [0; 2],
            n: [0; 2],
            lanes: [LanePlane::NONE; 7],
        });
        let mut k = 0;
        // The bytes where the vertices' colour words differ: the other channels are
        // constants (zero gradients).
        let differ = |w: [u32; 3]| (w[0] ^ w[1]) | (w[0] ^ w[2]);
        let d0 = differ(v.each_ref().map(|v| u32::from_le_bytes(v.color0)));
        let d1 = differ(v.each_ref().map(|v| {
            let [r, g, b] = v.color1;
            u32::from_le_bytes([r, g, b, 0])
        }));
        for (colour, shaded, differ, ch0) in [(0, shade0, d0, 0), (1, shade1, d1, 4)] {
            if !shaded {
                continue;
            }
            for ch in ch0..ch0 + if colour == 0 { 4 } else { 3 } {
                let shift = 8 * (ch as u32 % 4);
                let c = if ch < 4 {
                    [v[0].color0[ch], v[1].color0[ch], v[2].color0[ch]]
                } else {
                    [v[0].color1[ch - 4], v[1].color1[ch - 4], v[2].color1[ch - 4]]
                };
                if (differ >> shift) & 0xFF == 0 {
                    q.grads[ch] = ((c[s] as i64) << COLOUR_GRADIENT_BITS, 0, 0);
                    q.fixed[colour] |= (c[s] as i32) << shift;
                    continue;
                }
                let p = setup_planes.channel(c);
                q.grads[ch] = (p.c, p.dx, p.dy);
                if p.dx == 0 && p.dy == 0 {
                    q.fixed[colour] |= (c[s] as i32) << shift;
                } else {
                    q.fits &= p.fits_i32(bx, half);
                    q.lanes[k] = LanePlane::new(&p, half, shift);
                    q.n[colour] += 1;
                    k += 1;
                }
            }
        }
    }

    /// The packed colour (a byte per channel, little-endian) of the four lanes of the quad
    /// at pixel (`x`, `y`) from `fixed` and `lanes`.
    #[inline(always)]
    fn packed(fixed: i32, lanes: &[LanePlane], x: i32, y: i32) -> [u32; 4] {
        let mut out = i32x4::splat(fixed);
        for p in lanes {
            let v = p.at0.wrapping_add(p.dx16.wrapping_mul(x)).wrapping_add(p.dy16.wrapping_mul(y));
            let v = (i32x4::splat(v) + p.lanes).max(i32x4::ZERO).min(i32x4::splat(TOP));
            out |= (v >> COLOUR_GRADIENT_BITS) << p.shift;
        }
        cast(out)
    }

    /// The interpolated colours of the quad at pixel (`x`, `y`) (lanes (x, y), (x + 1, y),
    /// (x, y + 1), (x + 1, y + 1)), each [`ColourPlane::at`] at the lane's sample point;
    /// a flat colour is left as it is.
    #[inline]
    pub(crate) fn shade(&self, x: i32, y: i32, c0: &mut [[u8; 4]; 4], c1: &mut [[u8; 4]; 4]) {
        let [x0, y0, x1, y1] = self.bx;
        if self.fits && x >= x0 && y >= y0 && x < x1 && y < y1 {
            let n0 = self.n[0] as usize;
            if self.shade[0] {
                *c0 = Self::packed(self.fixed[0], &self.lanes[..n0], x, y).map(u32::to_le_bytes);
            }
            if self.shade[1] {
                let p = Self::packed(self.fixed[1], &self.lanes[n0..n0 + self.n[1] as usize], x, y);
                *c1 = p.map(|p| {
                    let b = p.to_le_bytes();
                    [b[0], b[1], b[2], 0]
                });
            }
            return;
        }
        let (sx0, sy0) = self.start;
        let plane = |ch: usize| {
            let (c, dx, dy) = self.grads[ch];
            ColourPlane { x: sx0, y: sy0, c, dx, dy }
        };
        for l in 0..4 {
            let sx = 16 * (x + (l & 1) as i32) + self.half;
            let sy = 16 * (y + (l >> 1) as i32) + self.half;
            if self.shade[0] {
                c0[l] = std::array::from_fn(|k| plane(k).at(sx, sy));
            }
            if self.shade[1] {
                let [r, g, b] = std::array::from_fn(|k| plane(4 + k).at(sx, sy));
                c1[l] = [r, g, b, 0];
            }
        }
    }
}

/// The pixels (inclusive, `[x0, y0, x1, y1]`) of the bounding box of `pts` (1/16 px)
/// within `clip`, one more right and down: every lane of a quad the walk starts inside
/// the triangle's range.
fn pixel_box(pts: &[(i32, i32); 3], clip: &ClipRect) -> [i32; 4] {
    let xs = pts.map(|p| p.0 >> 4);
    let ys = pts.map(|p| p.1 >> 4);
    let lo = |a: [i32; 3]| a[0].min(a[1]).min(a[2]);
    let hi = |a: [i32; 3]| a[0].max(a[1]).max(a[2]);
    [
        lo(xs).max(clip.x0),
        lo(ys).max(clip.y0),
        hi(xs).min(clip.x1).saturating_add(1),
        hi(ys).min(clip.y1).saturating_add(1),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// [`ColourPlane`] arithmetic is integer and bounded: the fallback start vertex is the
    /// topmost, then the leftmost, whatever the order; a gradient of exactly one level per
    /// sixteenth comes out a hair below it (the rounded-down area reciprocal) and reaches the
    /// start colour exactly; extreme coordinates neither overflow nor leave 0..=255; a
    /// zero-area triangle keeps the start colour.
    #[test]
    fn colour_plane_start_and_bounds() {
        let pts = [(500, 300), (100, 300), (300, 100)];
        assert_eq!(ColourPlane::start(&pts), 2);
        let tie = [(500, 100), (100, 100), (300, 400)];
        assert_eq!(ColourPlane::start(&tie), 1);
        let rising = ColourPlane::new(&[(0, 0), (160, 0), (0, 160)], [0, 160, 0], 0);
        // One level per sixteenth times ⌊2^31/25 600⌋ = 83 886 (exact: 83 886.08), >> 17:
        // 16 383/16 384 levels, so x = 152 reads ⌊151.99⌋.
        assert_eq!(rising.at(0, 0), 0);
        assert_eq!(rising.at(8, 8), 7);
        assert_eq!(rising.at(152, 8), 151);
        let far = [(i32::MIN, i32::MIN), (i32::MAX, i32::MIN), (0, i32::MAX)];
        let p = ColourPlane::new(&far, [0, 255, 128], ColourPlane::start(&far));
        for (x, y) in [(i32::MIN, i32::MIN), (i32::MAX, i32::MAX), (0, 0), (i32::MAX, i32::MIN)] {
            let _ = p.at(x, y);
        }
        let flat = ColourPlane::new(&[(0, 0), (16, 16), (32, 32)], [40, 200, 90], 0);
        assert_eq!(flat.at(8, 8), 40);
        assert_eq!(flat.at(1000, -1000), 40);
    }

    /// The colour gradients as first written: every product in i128, the reciprocal taken
    /// per channel ([`ColourPlane::new`]'s plain path, kept to check the shared-setup i64 one).
    fn plane_reference(p: &[(i32, i32); 3], c: [u8; 3], s: usize) -> ColourPlane {
        let (a, b) = ((s + 1) % 3, (s + 2) % 3);
        let d = |i: usize| (p[i].0 as i128 - p[s].0 as i128, p[i].1 as i128 - p[s].1 as i128);
        let ((xa, ya), (xb, yb)) = (d(a), d(b));
        let (ca, cb) = (c[a] as i128 - c[s] as i128, c[b] as i128 - c[s] as i128);
        let area = xa * yb - xb * ya;
        let grad = |n: i128| -> i64 {
            if area == 0 {
                return 0;
            }
            let (n, den) = if area < 0 { (-n, -area) } else { (n, area) };
            let e = 128 - den.leading_zeros();
            let r = (1i128 << (AREA_RECIP_BITS + e)).div_euclid(den);
            ((n * r) >> (AREA_RECIP_BITS + e - COLOUR_GRADIENT_BITS)).clamp(i64::MIN as i128, i64::MAX as i128) as i64
        };
        ColourPlane::from_parts(p[s], c[s], grad(ca * yb - cb * ya), grad(cb * xa - ca * xb))
    }

    proptest! {
        /// Shared-setup planes (one reciprocal, i64 products where they fit) equal the plain
        /// i128 arithmetic, for screen-sized and for extreme coordinates.
        #[test]
        fn colour_planes_equal_the_plain_arithmetic(
            small in proptest::array::uniform3((-8192i32..8192, -8192i32..8192)),
            wide in proptest::array::uniform3((any::<i32>(), any::<i32>())),
            c in proptest::array::uniform3(any::<u8>()),
            s in 0usize..3,
        ) {
            for p in [small, wide] {
                prop_assert_eq!(ColourPlane::new(&p, c, s), plane_reference(&p, c, s));
            }
        }
    }

    /// A hardware-model triangle at `pts` (1/16 px) with colours `c0`, `c1` and the
    /// first-vertex flags `first`.
    fn tri(pts: [(i32, i32); 3], c0: [[u8; 4]; 3], c1: [[u8; 3]; 3], first: [bool; 3]) -> [ScreenVertex; 3] {
        std::array::from_fn(|i| ScreenVertex {
            x: crate::geom::SubPixel(pts[i].0),
            y: crate::geom::SubPixel(pts[i].1),
            color0: c0[i],
            color1: c1[i],
            first: first[i],
            ..ScreenVertex::default()
        })
    }

    /// A channel per vertex drawn from a few values, so that channels equal at all three
    /// vertices (the constants) come up often.
    fn channel() -> impl Strategy<Value = u8> {
        prop_oneof![Just(0u8), Just(255u8), Just(128u8), any::<u8>()]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]
        /// [`QuadPlanes::shade`] gives every lane of every quad [`ColourPlane::at`] at the
        /// lane's sample point, from the same start vertex: quads inside and around the
        /// triangle's pixel box, screen-sized and extreme coordinates (the i128 fallback),
        /// both sample points, flat and interpolated colours.
        #[test]
        fn quad_planes_equal_colour_plane_at(
            small in proptest::array::uniform3((-4096i32..20000, -4096i32..20000)),
            thin in (0i32..16000, 0i32..16000, -40i32..40, -40i32..40, 1i32..16000),
            wide in proptest::array::uniform3((any::<i32>(), any::<i32>())),
            which in 0usize..3,
            c0 in proptest::array::uniform3(proptest::array::uniform4(channel())),
            c1 in proptest::array::uniform3(proptest::array::uniform3(channel())),
            first in proptest::array::uniform3(any::<bool>()),
            shade in (any::<bool>(), any::<bool>()),
            clip in (0i32..1024, 0i32..1024, 0i32..1024, 0i32..1024),
            centre in any::<bool>(),
            quads in proptest::collection::vec((-3i32..1100, -3i32..1100), 1..40),
        ) {
            let (tx, ty, dx, dy, len) = thin;
            let pts = match which {
                0 => small,
                // Long and thin: steep gradients across, values far outside 0..=255.
                1 => [(tx, ty), (tx + dx, ty + dy), (tx + len, ty + dy / 2 + 1)],
                _ => wide,
            };
            let v = tri(pts, c0, c1, first);
            let mut setup = RasterSetup::new(
                ClipRect { x0: clip.0.min(clip.1), y0: clip.2.min(clip.3), x1: clip.0.max(clip.1), y1: clip.2.max(clip.3) },
                false,
                false,
            );
            setup.triangle = if centre {
                super::super::TriangleRule::HARDWARE
            } else {
                super::super::TriangleRule { sample: super::super::SamplePoint::Ppsspp, ..super::super::TriangleRule::HARDWARE }
            };
            let half = setup.triangle.sample.offset();
            let planes = QuadPlanes::new(&v, &setup, shade.0, shade.1);
            let s = match first {
                [true, false, false] => 0,
                [false, true, false] => 1,
                [false, false, true] => 2,
                _ => ColourPlane::start(&pts),
            };
            let plane = |c: [u8; 3]| ColourPlane::new(&pts, c, s);
            let bx = pixel_box(&pts, &setup.clip);
            // Quads at and next to the box's corners, and random ones.
            let corners = [(bx[0], bx[1]), (bx[2] - 1, bx[3] - 1), (bx[2], bx[1]), (bx[0] - 1, bx[3])];
            for &(x, y) in quads.iter().chain(&corners) {
                let (mut got0, mut got1) = ([[7u8; 4]; 4], [[9u8; 4]; 4]);
                planes.shade(x, y, &mut got0, &mut got1);
                for l in 0..4 {
                    let sx = 16 * (x + (l & 1) as i32) + half;
                    let sy = 16 * (y + (l >> 1) as i32) + half;
                    let want0: [u8; 4] = if shade.0 {
                        std::array::from_fn(|k| plane([c0[0][k], c0[1][k], c0[2][k]]).at(sx, sy))
                    } else {
                        [7; 4]
                    };
                    let want1: [u8; 4] = if shade.1 {
                        let [r, g, b] = std::array::from_fn(|k| plane([c1[0][k], c1[1][k], c1[2][k]]).at(sx, sy));
                        [r, g, b, 0]
                    } else {
                        [9; 4]
                    };
                    prop_assert_eq!(got0[l], want0, "primary, quad ({}, {}) lane {}", x, y, l);
                    prop_assert_eq!(got1[l], want1, "secondary, quad ({}, {}) lane {}", x, y, l);
                }
            }
        }
    }
}
