//! The quad kernels against the plain pipeline (the reference): random pixel state, quads
//! (including ones at negative x, across the band's edges and a window's sides and past the
//! buffer end) and tile contents; both must leave identical tile bytes.

use super::super::tests::{bytes, pixel_regs};
use super::super::{draw_quad, draw_quad_reference, PixelState};
use crate::cmd::op;
use crate::geom::{Fragment, Quad};
use crate::regs::Regs;
use crate::tile::{FbFormat, Tile};
use proptest::prelude::*;

type Lane = (u16, u8, [u8; 4]);

fn quad() -> impl Strategy<Value = ((i32, i32), u8, [Lane; 4])> {
    let lane = (prop_oneof![any::<u16>(), 0u16..4, Just(u16::MAX)], any::<u8>(), any::<[u8; 4]>());
    ((-2i32..36, -2i32..20), any::<u8>(), [lane.clone(), lane.clone(), lane.clone(), lane])
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 5000, ..ProptestConfig::default() })]
    #[test]
    fn kernels_equal_the_plain_pipeline(
        fmt in 0u32..4,
        through in any::<bool>(),
        list in pixel_regs(),
        quads in prop::collection::vec(quad(), 1..6),
        seed in any::<u64>(),
        window in any::<bool>(),
        depthless in any::<bool>(),
    ) {
        let mut regs = Regs::default();
        regs.set(op::FRAMEBUFPIXFORMAT, fmt);
        for &(o, v) in &list {
            regs.set(o, v);
        }
        let st = PixelState::decode(&regs, through);
        // Band rows 4..20, stride 34: quads reach past the right edge, above and below the
        // band and (x = 34) past the buffer end.
        // Or a window of columns 6..26 of those rows (a band copied out in its columns only).
        let fb = FbFormat::from_bits(fmt);
        // Either without depth rows (a band of a draw that touches no depth).
        let zstride = if depthless { 0 } else { 34 };
        let mut plain = if window {
            let (c, z) = (vec![0; 16 * 20 * fb.bpp() as usize], vec![0; if depthless { 0 } else { 16 * 20 * 2 }]);
            Tile::window(4, 16, fb, (34, zstride), (6, 20), c, z)
        } else {
            Tile::new(4, 16, fb, 34, zstride)
        };
        plain.color = bytes(seed ^ 0xC0, plain.color.len());
        plain.depth = bytes(seed ^ 0xD0, plain.depth.len());
        let mut fast = plain.clone();
        for &((qx, qy), mask, lanes) in &quads {
            // Any corner: triangles start their quad grid at their own top-left pixel, so
            // quads straddle the band's edges and a window's sides.
            let (x, y) = (qx, qy);
            let frags: [Fragment; 4] = std::array::from_fn(|i| Fragment {
                x: x + (i & 1) as i32,
                y: y + (i >> 1) as i32,
                z: lanes[i].0,
                fog: lanes[i].1,
                ..Fragment::default()
            });
            let colours = lanes.map(|l| l.2);
            let q = Quad::from_frags(frags, mask & 15, 0.0);
            draw_quad_reference(&st, &mut plain, &q, &colours);
            draw_quad(&st, &mut fast, &q, &colours);
        }
        prop_assert!(plain.color == fast.color, "colour differs");
        prop_assert!(plain.depth == fast.depth, "depth differs");
    }
}

/// [`Compare::test_lanes`] equals [`Compare::test`] lane by lane for every function, on
/// byte and depth values (equal, adjacent and extreme ones in every lane position).
#[test]
fn test_lanes_equals_test() {
    use super::super::Compare;
    let values = [0i32, 1, 2, 127, 128, 254, 255, 256, 0x7FFF, 0x8000, 0xFFFE, 0xFFFF];
    let mut bits = 0x0BAD_5EEDu32;
    for code in 0..8 {
        let f = Compare::from_code(code);
        for _ in 0..20_000 {
            bits = bits.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            let pick = |k: u32| values[((bits >> (4 * k)) % values.len() as u32) as usize];
            let (a, b): ([i32; 4], [i32; 4]) =
                (std::array::from_fn(|l| pick(l as u32)), std::array::from_fn(|l| pick(l as u32 + 4)));
            let want = (0..4).fold(0u8, |m, l| m | (u8::from(f.test(a[l], b[l])) << l));
            assert_eq!(f.test_lanes(wide::i32x4::new(a), wide::i32x4::new(b)), want, "{f:?} {a:?} {b:?}");
        }
    }
}

/// [`super::fog4`] equals the scalar fog of `fog_colour_test` (colour test off) lane by
/// lane, alpha untouched, over every fog factor and channel value with random fog colours.
#[test]
fn fog4_equals_fog() {
    let mut bits = 0x05EE_DF06_u32;
    let mut next = || {
        bits = bits.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        bits
    };
    for f in 0..=255u8 {
        for v in (0..=255u8).step_by(3) {
            let fc = next().to_le_bytes();
            let fc = [fc[0], fc[1], fc[2]];
            let mut regs = Regs::default();
            regs.set(op::FOGENABLE, 1);
            regs.set(op::FOGCOLOR, u32::from_le_bytes([fc[0], fc[1], fc[2], 0]));
            let st = PixelState::decode(&regs, false);
            assert_eq!(st.fog, Some(fc));
            let c: [[u8; 4]; 4] = std::array::from_fn(|i| {
                let r = next().to_le_bytes();
                [v, r[1], r[2], r[3].wrapping_add(i as u8)]
            });
            let fog = [f, next() as u8, f ^ 0x80, 255 - f];
            let got = super::fog4(&c, fog, fc);
            for i in 0..4 {
                let want = super::super::fog_colour_test(&st, c[i], fog[i]).unwrap();
                assert_eq!(got[i], want, "lane {i}: colour {:?} fog {} colour {fc:?}", c[i], fog[i]);
            }
        }
    }
}

/// A quad partly outside the tile goes through `kernel_fragments` fragment by fragment;
/// its stencil test discards there as in the reference. A stencil state the lane kernel
/// takes (EQUAL against 0xFF, KEEP on every outcome: `quad_stencil_bits`), a quad at
/// x = -1 whose two pixels inside the tile hold stencil 0 (fails) and 0xFF (passes).
#[test]
fn edge_quads_keep_the_stencil_test() {
    let mut regs = Regs::default();
    regs.set(op::FRAMEBUFPIXFORMAT, 3);
    regs.set(op::STENCILTESTENABLE, 1);
    regs.set(op::STENCILTEST, 0xFF_FF02);
    regs.set(op::STENCILOP, 0);
    let st = PixelState::decode(&regs, true);
    let mut plain = Tile::new(4, 16, FbFormat::from_bits(3), 34, 34);
    let at = |y| plain.color_offset(0, y).expect("inside the tile");
    let (fails, passes) = (at(4), at(5));
    plain.color[passes + 3] = 0xFF;
    let before = plain.clone();
    let mut fast = plain.clone();
    let frags: [Fragment; 4] =
        std::array::from_fn(|i| Fragment { x: -1 + (i & 1) as i32, y: 4 + (i >> 1) as i32, ..Fragment::default() });
    let q = Quad::from_frags(frags, 15, 0.0);
    let colours = [[200, 100, 50, 255]; 4];
    draw_quad_reference(&st, &mut plain, &q, &colours);
    draw_quad(&st, &mut fast, &q, &colours);
    // The reference drew the passing pixel only, so the comparison below can fail.
    assert_eq!(plain.color[fails..fails + 4], before.color[fails..fails + 4]);
    assert_ne!(plain.color[passes..passes + 4], before.color[passes..passes + 4]);
    assert!(plain.color == fast.color, "colour differs");
}
