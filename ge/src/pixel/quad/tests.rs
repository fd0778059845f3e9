//! The quad kernels against the plain pipeline (the reference): random pixel state, quads
//! (including ones at negative x, across the band edge and past the buffer end) and tile
//! contents; both must leave identical tile bytes.

use super::super::tests::{bytes, pixel_regs};
use super::super::{draw_quad, draw_quad_reference, PixelState};
use crate::cmd::op;
use crate::geom::Fragment;
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
    ) {
        let mut regs = Regs::default();
        regs.set(op::FRAMEBUFPIXFORMAT, fmt);
        for &(o, v) in &list {
            regs.set(o, v);
        }
        let st = PixelState::decode(&regs, through);
        // Band rows 4..20, stride 34: quads reach past the right edge, above and below the
        // band and (x = 34) past the buffer end.
        let mut plain = Tile::new(4, 16, FbFormat::from_bits(fmt), 34, 34);
        plain.color = bytes(seed ^ 0xC0, plain.color.len());
        plain.depth = bytes(seed ^ 0xD0, plain.depth.len());
        let mut fast = plain.clone();
        for &((qx, qy), mask, lanes) in &quads {
            let (x, y) = (qx & !1, qy & !1);
            let frags: [Fragment; 4] = std::array::from_fn(|i| Fragment {
                x: x + (i & 1) as i32,
                y: y + (i >> 1) as i32,
                z: lanes[i].0,
                fog: lanes[i].1,
                ..Fragment::default()
            });
            let colours = lanes.map(|l| l.2);
            draw_quad_reference(&st, &mut plain, &frags, mask & 15, &colours);
            draw_quad(&st, &mut fast, &frags, mask & 15, &colours);
        }
        prop_assert!(plain.color == fast.color, "colour differs");
        prop_assert!(plain.depth == fast.depth, "depth differs");
    }
}
