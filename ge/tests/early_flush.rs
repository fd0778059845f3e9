//! With more than one thread the hardware model rasterizes binned draws behind the front
//! end once they hold enough estimated work (`DrawContext::flush_early`), on one worker,
//! while the next draws are binned. Flushing there must change no byte: these lists of
//! many small blended, depth-tested draws, with draws texturing from the framebuffer they
//! draw into between them, leave the same memory on 1, 2 and 3 threads; and on 2 threads a
//! list of large draws is rasterized in more flushes than on 1 (the early ones).

use ge::cmd::op;
use ge::list::{Bytes, ListBuilder};
use ge::scenes::{prim, vt};
use ge::Model;
use proptest::prelude::*;

/// One draw: a through-mode triangle (or a rectangle, corners 0 and 2), its corners,
/// colour and depth; `rtt`: drawn textured from the first rows of the framebuffer.
#[derive(Debug, Clone)]
struct Draw {
    rect: bool,
    corners: [(i16, i16); 3],
    colour: u32,
    depth: u16,
    rtt: bool,
}

fn draws() -> impl Strategy<Value = Vec<Draw>> {
    let corner = (0i16..480, 0i16..272);
    let draw = (any::<bool>(), [corner.clone(), corner.clone(), corner], any::<u32>(), any::<u16>(), 0u8..8)
        .prop_map(|(rect, corners, colour, depth, r)| Draw { rect, corners, colour, depth, rtt: r == 0 });
    prop::collection::vec(draw, 20..80)
}

fn list(draws: &[Draw]) -> ListBuilder {
    let mut l = ListBuilder::new();
    // The clear alone holds more estimated work than an early flush waits for.
    l.standard_setup(3).clear(0x4020_6080, 0x1000);
    l.cmd(op::ZTESTENABLE, 1)
        .cmd(op::ZTEST, 7)
        .cmd(op::ALPHABLENDENABLE, 1)
        .cmd(op::BLENDMODE, 1 << 4)
        .cmd(op::TEXFILTER, 0)
        .cmd(op::TEXWRAP, 0)
        .cmd(op::TEXFORMAT, 3)
        .cmd(op::TEXADDR0, 0)
        .cmd(op::TEXBUFWIDTH0, (0x04 << 16) | 512)
        .cmd(op::TEXSIZE0, 6 | (3 << 8))
        .cmd(op::TEXFUNC, 0);
    for d in draws {
        let mut v = Bytes::default();
        let corners: &[(i16, i16)] = if d.rect { &[d.corners[0], d.corners[2]] } else { &d.corners };
        for (k, &(x, y)) in corners.iter().enumerate() {
            if d.rtt {
                v.u16(k as u16 * 20).u16(k as u16 * 3);
            }
            v.u32(d.colour).i16(x).i16(y).u16(d.depth).align(4);
        }
        let tc = if d.rtt { vt::TC_U16 } else { 0 };
        l.cmd(op::TEXTUREMAPENABLE, u32::from(d.rtt))
            .cmd(op::VERTEXTYPE, vt::THROUGH | tc | vt::COL_8888 | vt::POS_S16)
            .vertices(&v.0)
            .prim(if d.rect { prim::RECTANGLES } else { prim::TRIANGLES }, corners.len() as u32);
    }
    l.finish();
    l
}

/// VRAM after running `list` on `threads` raster threads, and the flushes that drew.
fn run(list: &ListBuilder, threads: usize) -> (Vec<u8>, u32) {
    let mut ge = ge::Ge::with_model(Model::Hardware);
    ge.set_threads(threads);
    ge.draw.phases = Some(Default::default());
    list.run(&mut ge).expect("list runs");
    let flushes = ge.draw.flush_times().map_or(0, |t| t.flushes);
    (ge.mem.vram().to_vec(), flushes)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn early_flushes_keep_the_serial_bytes(draws in draws()) {
        let l = list(&draws);
        let (serial, serial_flushes) = run(&l, 1);
        for threads in [2, 3] {
            let (behind, flushes) = run(&l, threads);
            prop_assert!(behind == serial, "VRAM differs on {threads} threads");
            // Draws texturing from the framebuffer flush anyway; early flushes only add.
            prop_assert!(flushes >= serial_flushes, "{threads} threads: {flushes} flushes, 1 thread {serial_flushes}");
        }
    }
}

/// Without draws that force a flush, 1 thread rasterizes once, at the end; 2 threads
/// also after the clear (the first draw holding enough work), so the early path ran.
#[test]
fn large_batches_flush_early_on_two_threads() {
    let draws: Vec<Draw> = (0..40i16)
        .map(|k| Draw {
            rect: k % 3 == 0,
            corners: [(k * 11, k * 6), (479 - k * 5, k * 2), (k * 7, 271 - k * 3)],
            colour: 0x8000_0000 | (k as u32 * 0x0103_0507),
            depth: 0x2000 + k as u16 * 97,
            rtt: false,
        })
        .collect();
    let l = list(&draws);
    let (serial, serial_flushes) = run(&l, 1);
    assert_eq!(serial_flushes, 1);
    let (behind, flushes) = run(&l, 2);
    assert!(behind == serial, "VRAM differs on 2 threads");
    assert!(flushes > 1, "2 threads rasterized in {flushes} flush(es)");
}
