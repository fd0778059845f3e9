//! Gouraud colour planes of the hardware model: each colour channel of a triangle as a
//! fixed-point plane through its start vertex ([`ColourPlane`]), with the setup its
//! channels share ([`PlaneSetup`]). The PPSSPP model interpolates colours barycentrically
//! in the triangle walk instead ([`super::triangle`]).

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
        let s = self.s;
        let (a, b) = ((s + 1) % 3, (s + 2) % 3);
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
}
