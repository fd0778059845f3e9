//! Flushes rasterize behind the front end (`ge::bin::Binner::flush_behind`): the next
//! batch is decoded, transformed and binned while the last one is still being drawn, and
//! the pixels must land before anything reads them. These scenarios read from the rows a
//! pending flush writes (vertices, indices, a CLUT, a texture) and run a block transfer
//! right after a flush. Each runs with 1 raster thread (flushes rasterize in place: the
//! serial path) and with 2 and 4 (behind), in both models, and must leave the same memory.

use ge::cmd::op;
use ge::list::{Bytes, ListBuilder};
use ge::scenes::{prim, vt};
use ge::Model;
use proptest::prelude::*;

/// Buffer 1 (the first batch's target) and buffer 2, both 512-pixel 8888, at these VRAM
/// offsets; depth at 0x88000.
const FB1: u32 = 0;
const FB2: u32 = 0x10_0000;
/// Where the transfer copies buffer 2's first rows to (RAM, beyond the list's data).
const COPY: u32 = 0x0898_0000;
/// Pixels per painted row, painted rows.
const W: u32 = 32;
const ROWS: u32 = 4;

/// Paint `pixels` (W x ROWS colours, one pixel-sized rectangle each) into buffer 1, each
/// changed by `salt` (kept a valid vertex: see [`vertex_pixels`]), then move the target
/// to buffer 2: a flush point, after which the paint rasterizes behind what follows.
fn paint(l: &mut ListBuilder, pixels: &[u32], salt: u32) {
    let mut v = Bytes::default();
    for (k, &c) in pixels.iter().enumerate() {
        let c = c ^ (salt * 0x0001_0001);
        let (x, y) = ((k as u32 % W) as i16, (k as u32 / W) as i16);
        v.u32(c).i16(x).i16(y).u16(0).align(4);
        v.u32(c).i16(x + 1).i16(y + 1).u16(0).align(4);
    }
    l.cmd(op::FRAMEBUFPTR, FB1)
        .cmd(op::TEXTUREMAPENABLE, 0)
        .cmd(op::VERTEXTYPE, vt::THROUGH | vt::COL_8888 | vt::POS_S16)
        .vertices(&v.0)
        .prim(prim::RECTANGLES, 2 * pixels.len() as u32)
        .cmd(op::FRAMEBUFPTR, FB2);
}

/// A through-mode rectangle from `from` to `to` textured from texel (0, 0) to `uv`.
fn textured_rect(l: &mut ListBuilder, uv: (u16, u16), from: (i16, i16), to: (i16, i16)) {
    let mut v = Bytes::default();
    v.u16(0).u16(0).u32(u32::MAX).i16(from.0).i16(from.1).u16(0).align(4);
    v.u16(uv.0).u16(uv.1).u32(u32::MAX).i16(to.0).i16(to.1).u16(0).align(4);
    l.cmd(op::VERTEXTYPE, vt::THROUGH | vt::TC_U16 | vt::COL_8888 | vt::POS_S16)
        .vertices(&v.0)
        .prim(prim::RECTANGLES, 2);
}

/// The draws of one scenario: before each read of buffer 1, `pixels` are painted there
/// anew (with a different salt, so a read that misses the pending paint finds the last
/// one); `indices` (into the first 16 vertices of row 0) for the indexed draw; `texels`
/// (4x4 CLUT8 indices) for the palette draw.
fn scenario(pixels: &[u32], indices: &[u8], texels: &[u8; 16]) -> ListBuilder {
    let mut l = ListBuilder::new();
    // Alpha 0: drawing keeps the buffer's alpha bits (stencil), and positions read back
    // from pixels need their top byte clear.
    l.standard_setup(3).clear(0x0020_4060, 0);
    l.cmd(op::TEXFILTER, 0).cmd(op::TEXWRAP, 0);
    paint(&mut l, pixels, 0);

    // Vertices read from rows 0-1 of buffer 1 (colour, s16 position, s16 depth and
    // padding: 12 bytes, three pixels).
    // BASE goes back to RAM's after each VRAM address: the builder's data lives there.
    l.cmd(op::BASE, 0x04_0000)
        .cmd(op::VADDR, FB1)
        .cmd(op::BASE, 0x08_0000)
        .cmd(op::VERTEXTYPE, vt::THROUGH | vt::COL_8888 | vt::POS_S16)
        .prim(prim::RECTANGLES, 16);
    // The same vertices through an index list in RAM.
    paint(&mut l, pixels, 1);
    l.cmd(op::VERTEXTYPE, vt::THROUGH | vt::COL_8888 | vt::POS_S16 | vt::IDX_U8).indices(indices);
    l.cmd(op::BASE, 0x04_0000).cmd(op::VADDR, FB1).cmd(op::BASE, 0x08_0000).prim(prim::TRIANGLES, indices.len() as u32);

    // A palette loaded from row 1 of buffer 1, drawn through a CLUT8 texture in RAM.
    paint(&mut l, pixels, 2);
    let clut = 0x0400_0000 + FB1 + 4 * 512;
    let mut tex = vec![0u8; 64];
    for (i, &t) in texels.iter().enumerate() {
        tex[i / 4 * 16 + i % 4] = t & 15;
    }
    l.cmd(op::CLUTADDR, clut & 0xFF_FFF0)
        .cmd(op::CLUTADDRUPPER, (clut >> 8) & 0x0F_0000)
        .cmd(op::LOADCLUT, 2)
        .cmd(op::CLUTFORMAT, 3 | (0xFF << 8))
        .cmd(op::TEXFORMAT, 5)
        .texture0(&tex, 16, 2, 2)
        .cmd(op::TEXTUREMAPENABLE, 1)
        .cmd(op::TEXFUNC, 3 | (1 << 8));
    textured_rect(&mut l, (4, 4), (100, 100), (140, 140));

    // A texture sampled from rows 2-3 of buffer 1 (8888, 8x2 texels, buffer width 512).
    paint(&mut l, pixels, 3);
    l.cmd(op::TEXTUREMAPENABLE, 1);
    let tex_addr = 0x0400_0000 + FB1 + 2 * 512 * 4;
    l.cmd(op::TEXFORMAT, 3)
        .cmd(op::TEXADDR0, tex_addr & 0xFF_FFF0)
        .cmd(op::TEXBUFWIDTH0, ((tex_addr >> 8) & 0x0F_0000) | 512)
        .cmd(op::TEXSIZE0, 3 | (1 << 8));
    textured_rect(&mut l, (8, 2), (200, 100), (264, 116));
    l.cmd(op::TEXTUREMAPENABLE, 0);

    // Another flush point (back to buffer 1; buffer 2's draws rasterize behind), then a
    // block transfer of the texture-drawn rows of buffer 2 to RAM right away.
    l.cmd(op::FRAMEBUFPTR, FB1);
    let src = 0x0400_0000 + FB2;
    l.cmd(op::TRANSFERSRC, src & 0xFF_FFF0)
        .cmd(op::TRANSFERSRCW, ((src >> 24) << 16) | 512)
        .cmd(op::TRANSFERSRCPOS, (100 << 10) | 200)
        .cmd(op::TRANSFERDST, COPY & 0xFF_FFF0)
        .cmd(op::TRANSFERDSTW, ((COPY >> 24) << 16) | W)
        .cmd(op::TRANSFERDSTPOS, 0)
        .cmd(op::TRANSFERSIZE, ((ROWS - 1) << 10) | (W - 1))
        .cmd(op::TRANSFERSTART, 1);
    // What the transfer copied, drawn as vertices into buffer 1.
    l.cmd(op::BASE, (COPY >> 8) & 0x0F_0000)
        .cmd(op::VADDR, COPY & 0xFF_FFFF)
        .cmd(op::VERTEXTYPE, vt::THROUGH | vt::COL_8888 | vt::POS_S16)
        .prim(prim::TRIANGLES, 15);
    l.finish();
    l
}

/// VRAM and the transfer's RAM copy after running `list` with `threads` raster threads.
fn run(list: &ListBuilder, threads: usize, model: Model) -> (Vec<u8>, Vec<u8>) {
    let mut ge = ge::Ge::with_model(model);
    ge.set_threads(threads);
    list.run(&mut ge).expect("scenario runs");
    let copy = ge.mem.slice(COPY, W * ROWS * 4).expect("RAM").to_vec();
    (ge.mem.vram().to_vec(), copy)
}

fn same_for_any_thread_count(list: &ListBuilder) -> Result<(), TestCaseError> {
    for model in Model::ALL {
        let serial = run(list, 1, model);
        for threads in [2, 4] {
            let behind = run(list, threads, model);
            prop_assert!(behind.1 == serial.1, "{model}: the transferred bytes differ on {threads} threads");
            prop_assert!(behind.0 == serial.0, "{model}: VRAM differs on {threads} threads");
        }
    }
    Ok(())
}

/// Pixels whose bytes, read as vertices, land on screen: a colour, a position inside the
/// first 100 pixels of both axes, depth 0.
fn vertex_pixels(seed: &[u32]) -> Vec<u32> {
    seed.iter()
        .enumerate()
        .map(|(k, &s)| match k % 3 {
            0 => s | 0xFF00_0000,
            1 => s & 0x0063_0063,
            _ => 0,
        })
        .collect()
}

#[test]
fn reads_of_pending_rows_see_the_drawn_pixels() {
    let seed: Vec<u32> = (0..W * ROWS).map(|k| k.wrapping_mul(0x9E37_79B9).rotate_left(7)).collect();
    let list = scenario(&vertex_pixels(&seed), &[0, 1, 2, 5, 4, 3, 8, 9, 15], &std::array::from_fn(|i| i as u8));
    // The scenario only tests something if its reads find drawn pixels: the draws from
    // vertices in buffer 1 (rows 0-99 of buffer 2) and the transfer.
    let (vram, copy) = run(&list, 1, Model::Hardware);
    let drawn = |y0: usize, y1: usize| {
        vram[FB2 as usize + y0 * 2048..FB2 as usize + y1 * 2048].chunks(4).filter(|p| p != &[0; 4]).count()
    };
    assert!(drawn(0, 100) > 100, "the vertices read from buffer 1 drew {} pixels", drawn(0, 100));
    assert!(drawn(100, 140) >= 1600 && copy.iter().any(|&b| b != 0), "{} {:?}", drawn(100, 140), &copy[..16]);
    same_for_any_thread_count(&list).unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn pending_rows_read_back_like_the_serial_path(
        seed in prop::collection::vec(any::<u32>(), (W * ROWS) as usize),
        indices in prop::collection::vec(0u8..16, 3..12),
        texels in prop::array::uniform16(0u8..16),
    ) {
        same_for_any_thread_count(&scenario(&vertex_pixels(&seed), &indices, &texels))?;
    }
}
