use super::*;
use crate::mem::VRAM_BASE;

/// A primitive for tests: its index and a rectangle of pixels it touches.
#[derive(Clone, Copy)]
struct Prim {
    id: u32,
    r: ClipRect,
}

fn prims(n: u32, seed: u64, max_x: i32) -> Vec<Prim> {
    let mut s = seed;
    let mut next = move |m: i32| {
        s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((s >> 33) % m as u64) as i32
    };
    (0..n)
        .map(|id| {
            let (x0, y0) = (next(max_x), next(272));
            let r = ClipRect { x0, y0, x1: x0 + next(60), y1: y0 + next(60) };
            Prim { id, r }
        })
        .collect()
}

/// Order-sensitive draw: every pixel becomes a hash of its old value and the prim id.
fn draw(p: &Prim, tile: &mut Tile, _mem: &Memory) {
    for y in p.r.y0..=p.r.y1 {
        for x in p.r.x0..=p.r.x1 {
            let old = tile.read_color(x, y);
            tile.write_color(x, y, old.wrapping_mul(31).wrapping_add(p.id.wrapping_mul(0x9E37_79B9)));
            let z = tile.read_depth(x, y);
            tile.write_depth(x, y, z.wrapping_mul(7).wrapping_add(p.id as u16));
        }
    }
}

fn target(stride: u32) -> FbTarget {
    FbTarget {
        color_addr: VRAM_BASE,
        stride,
        fmt: FbFormat::Rgba8888,
        depth_addr: VRAM_BASE + 0x11_0000,
        zstride: stride,
    }
}

/// Memory whose VRAM holds non-zero bytes, so that reads matter.
fn patterned() -> Memory {
    let mut mem = Memory::new();
    for (i, b) in mem.vram_mut().iter_mut().enumerate() {
        *b = (i % 251) as u8;
    }
    mem
}

fn run(ps: &[Prim], t: &FbTarget, threads: usize, band_rows: i32) -> Vec<u8> {
    let mut mem = patterned();
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("pool");
    let mut bin = Binner::new(band_rows);
    for p in ps {
        bin.push(p.r, *p);
    }
    assert_eq!(bin.len(), ps.len());
    bin.flush(t, &mut mem, Some(&pool), draw, false);
    assert!(bin.is_empty());
    mem.settle();
    mem.vram().to_vec()
}

/// Reference: one tile over every row, drawn sequentially.
fn reference(ps: &[Prim], t: &FbTarget) -> Vec<u8> {
    let mut mem = patterned();
    // Enough rows for every prim (y < 272 + 60) plus x ≥ stride overflow rows.
    let mut tile = read_band(0, 400, t, &mem);
    for p in ps {
        let r = p.r.intersect(&ClipRect { x0: 0, y0: 0, x1: MAX_COORD, y1: MAX_COORD });
        draw(&Prim { id: p.id, r }, &mut tile, &mem);
    }
    write_back(&tile, t, &mut mem, None);
    mem.vram().to_vec()
}

#[test]
fn deterministic_across_threads_and_bands() {
    let t = target(512);
    let ps = prims(300, 12345, 450);
    let want = reference(&ps, &t);
    assert!(run(&ps, &t, 1, 8) == want);
    assert!(run(&ps, &t, 4, 8) == want);
    assert!(run(&ps, &t, 4, 272) == want);
    assert!(run(&ps, &t, 1, 272) == want);
    assert!(run(&ps, &t, 2, 7) == want);
}

#[test]
fn narrow_bands_are_copied_as_windows_with_the_same_bytes() {
    // Prims in columns 40..=200 of 512: their bands are copied out and back as windows.
    let t = target(512);
    let ps: Vec<Prim> = prims(300, 2024, 100)
        .into_iter()
        .map(|p| Prim { r: ClipRect { x0: p.r.x0 + 40, x1: p.r.x1 + 40, ..p.r }, ..p })
        .collect();
    let band = Band { y0: 0, rows: 16, prims: vec![], cols: (40, 200) };
    assert_eq!(window_of(band.cols, &t), Some((40, 161)));
    let want = reference(&ps, &t);
    for (threads, rows) in [(1, 8), (2, 16), (3, 5)] {
        assert!(run(&ps, &t, threads, rows) == want, "{threads} threads, {rows} rows");
        assert!(run_behind(&ps, &t, threads, |_| {}) == want, "{threads} threads behind");
    }
    // No depth rows (zstride 0): the window holds colour only.
    let flat = FbTarget { zstride: 0, ..t };
    assert!(run(&ps, &flat, 2, 16) == reference(&ps, &flat));
    // A depth stride ending inside the columns: whole rows, whose depth pixels past the
    // stride run into the next row.
    let narrow_depth = FbTarget { zstride: 128, ..t };
    assert_eq!(window_of(band.cols, &narrow_depth), None);
    assert_eq!(window_of((0, 400), &t), None, "most of a row: whole rows");
    assert!(run(&ps, &narrow_depth, 2, 16) == reference(&ps, &narrow_depth));
}

#[test]
fn crowded_rows_are_cut_into_balanced_bands() {
    // 400 small prims in rows 100..=111 and one tall one: with 2 threads the crowded
    // rows are cut into several bands (1 thread: the aligned 16-row bands), and the
    // bytes stay the reference's.
    let t = target(512);
    let mut ps: Vec<Prim> = prims(400, 31, 450)
        .into_iter()
        .map(|p| Prim { r: ClipRect { y0: 100 + p.r.y0 % 11, y1: 100 + p.r.y0 % 11 + 1, ..p.r }, ..p })
        .collect();
    ps.push(Prim { id: 400, r: ClipRect { x0: 3, y0: 20, x1: 9, y1: 200 } });
    let bin = |threads| {
        let mut b = Binner::new(16);
        for p in &ps {
            b.push(p.r, *p);
        }
        match b.plan(&b.items, &t, threads, None) {
            Plan::Bands(bands, _) => bands.iter().map(|b| (b.y0, b.rows)).collect::<Vec<_>>(),
            _ => panic!("banded"),
        }
    };
    let one = bin(1);
    let (y_min, y_max) = (ps.iter().map(|p| p.r.y0).min(), ps.iter().map(|p| p.r.y1).max());
    assert_eq!(one.first().map(|b| b.0), y_min, "{one:?}");
    assert_eq!(one.last().map(|b| b.0 + b.1 - 1), y_max, "{one:?}");
    assert!(one.iter().skip(1).all(|&(y0, _)| y0 % 16 == 0), "{one:?}");
    assert!(one.iter().all(|&(_, rows)| (1..=16).contains(&rows)), "{one:?}");
    let two = bin(2);
    let crowded = two.iter().filter(|&&(y0, rows)| y0 < 112 && y0 + rows > 100).count();
    assert!(crowded >= 4, "{two:?}");
    assert!(two.windows(2).all(|w| w[0].0 + w[0].1 <= w[1].0), "{two:?}");
    assert!(two.iter().all(|&(_, rows)| (1..=16).contains(&rows)), "{two:?}");
    let want = reference(&ps, &t);
    for threads in [1, 2, 3] {
        assert!(run(&ps, &t, threads, 16) == want, "{threads} threads");
    }
}

#[test]
fn bands_stay_inside_the_bounds() {
    // A depth buffer right below row 99 of the colour buffer, and primitives in rows
    // 5..=99: a band reaching row 100 copies the depth buffer's first rows out as colour
    // and writes them back over what the first band drew there. Every band count gives
    // the reference's bytes (depth written after colour, as `write_back` does).
    let mut t = target(512);
    t.depth_addr = t.color_addr + 100 * 512 * 4;
    let ps: Vec<Prim> = prims(200, 99, 450)
        .into_iter()
        .map(|p| {
            let (y0, y1) = (5 + p.r.y0 % 95, (5 + p.r.y0 % 95 + p.r.y1 - p.r.y0).min(99));
            Prim { r: ClipRect { y0, y1, ..p.r }, ..p }
        })
        .collect();
    let want = reference(&ps, &t);
    for (threads, rows) in [(1, 16), (1, 64), (1, 7), (2, 16), (2, 64), (3, 5)] {
        assert!(run(&ps, &t, threads, rows) == want, "{threads} threads, {rows} rows");
    }
}

#[test]
fn x_beyond_stride_runs_into_next_rows() {
    // Prims reach x ≥ stride: drawn as one band whose extra rows receive the overflow.
    let t = target(128);
    let ps = prims(200, 777, 200);
    let want = reference(&ps, &t);
    assert!(run(&ps, &t, 4, 8) == want);
}

#[test]
fn overlapping_colour_and_depth_keep_unchanged_bytes() {
    // Depth aliases colour rows; a draw that only writes colour must not be undone by
    // writing back the stale depth copy.
    let mut t = target(64);
    t.depth_addr = t.color_addr + 64 * 4 * 10;
    let mut mem = Memory::new();
    let mut bin = Binner::new(8);
    bin.push(ClipRect { x0: 0, y0: 10, x1: 3, y1: 10 }, ());
    let draw: fn(&(), &mut Tile, &Memory) = |_, tile, _| {
        for x in 0..4 {
            tile.write_color(x, 10, 0xAABB_CCDD);
        }
    };
    bin.flush(&t, &mut mem, None, draw, false);
    mem.settle();
    assert_eq!(mem.read_u32(t.color_addr + 64 * 4 * 10).unwrap(), 0xAABB_CCDD);
}

#[test]
fn untouched_bands_are_not_written() {
    let t = target(512);
    let mut mem = Memory::new();
    let mut bin = Binner::new(16);
    bin.push(ClipRect { x0: 0, y0: 40, x1: 0, y1: 40 }, ());
    // Something else changes VRAM after the (conceptual) snapshot of other rows: a
    // band-wise flush must not rewrite rows it never drew.
    mem.write_u32(t.color_addr, 0x1234_5678).unwrap();
    let draw: fn(&(), &mut Tile, &Memory) = |_, tile, _| tile.write_color(0, 40, 7);
    bin.flush(&t, &mut mem, None, draw, false);
    mem.settle();
    assert_eq!(mem.read_u32(t.color_addr).unwrap(), 0x1234_5678);
    assert_eq!(mem.read_u32(t.color_addr + 40 * 512 * 4).unwrap(), 7);
}

fn draw_fn(p: &Prim, tile: &mut Tile, mem: &Memory) {
    draw(p, tile, mem)
}

/// [`run`] through [`Binner::flush_behind`], then `after` on the memory (tiles maybe
/// still pending).
fn run_behind(ps: &[Prim], t: &FbTarget, threads: usize, after: impl FnOnce(&mut Memory)) -> Vec<u8> {
    let mut mem = patterned();
    let pool = Arc::new(rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("pool"));
    let mut bin = Binner::new(8);
    for p in ps {
        bin.push(p.r, *p);
    }
    bin.flush_behind(t, &mut mem, Some(&pool), draw_fn, None, false);
    assert!(bin.is_empty());
    after(&mut mem);
    mem.settle();
    mem.vram().to_vec()
}

#[test]
fn flushing_behind_lands_the_serial_bytes() {
    let t = target(512);
    let ps = prims(300, 4242, 450);
    let want = reference(&ps, &t);
    for threads in [1, 2, 4] {
        assert!(run_behind(&ps, &t, threads, |_| {}) == want, "{threads} threads");
    }
}

#[test]
fn flushing_behind_on_pool_workers_lands_the_serial_bytes() {
    // Callers that are workers of the pool (the bench and the corpus jobs replay there),
    // more of them than workers, each flushing several times: every flush draws behind its
    // caller (pending after the call), the caller draws what no worker took, and nothing
    // waits for a job that has not started.
    let t = target(512);
    let cases: Vec<Vec<Prim>> = (0..6).map(|k| prims(120, 77 + k, 450)).collect();
    let want: Vec<Vec<u8>> = cases.iter().map(|ps| reference(ps, &t)).collect();
    for threads in [2, 3] {
        let pool = Arc::new(rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("pool"));
        let got: Vec<Vec<u8>> = pool.install(|| {
            cases
                .par_iter()
                .map(|ps| {
                    let mut mem = patterned();
                    let mut bin = Binner::new(8);
                    for chunk in ps.chunks(40) {
                        for p in chunk {
                            bin.push(p.r, *p);
                        }
                        bin.flush_behind(&t, &mut mem, Some(&pool), draw_fn, None, false);
                        assert!(mem.has_pending(), "drawn behind on a worker");
                    }
                    mem.settle();
                    mem.vram().to_vec()
                })
                .collect()
        });
        for (k, (g, w)) in got.iter().zip(&want).enumerate() {
            assert!(g == w, "case {k}, {threads} threads");
        }
    }
}

#[test]
fn a_write_after_a_flush_behind_lands_after_its_tiles() {
    // The serial order: the flush's pixels, then the write over them.
    let t = target(512);
    let ps = prims(100, 99, 400);
    let at = t.color_addr + (ps[0].r.y0 as u32 * 512 + ps[0].r.x0 as u32) * 4;
    let mut want = reference(&ps, &t);
    want[(at - VRAM_BASE) as usize..][..4].copy_from_slice(&0x0BAD_F00Du32.to_le_bytes());
    let got = run_behind(&ps, &t, 4, |mem| {
        assert!(mem.has_pending());
        mem.write_u32(at, 0x0BAD_F00D).unwrap();
        assert!(!mem.has_pending(), "a write lands the tiles first");
    });
    assert!(got == want);
}

#[test]
fn reads_land_pending_tiles_only_where_they_cover() {
    let t = target(512);
    let ps = [Prim { id: 1, r: ClipRect { x0: 0, y0: 40, x1: 9, y1: 41 } }];
    run_behind(&ps, &t, 2, |mem| {
        // Rows 32..48 (the band) are pending; RAM and other rows are not.
        mem.settle_for(0x0880_0000, 1 << 20);
        mem.settle_for(t.color_addr, 32 * 512 * 4);
        mem.settle_for(t.color_addr + 48 * 512 * 4, 64);
        assert!(mem.has_pending());
        // Through a VRAM mirror.
        mem.settle_for(t.color_addr + 0x20_0000 + 40 * 512 * 4, 4);
        assert!(!mem.has_pending());
    });
}

#[test]
fn wrapping_io_never_panics() {
    let mut mem = Memory::new();
    let data = vec![0xEEu8; 64];
    write_bytes(&mut mem, 0x0480_0000 - 16, &data); // end of the VRAM window
    write_bytes(&mut mem, 0xFFFF_FFF0, &data); // unmapped, wraps the address space
    let read_vec = |mem: &Memory, addr: u32, len: usize| {
        let mut out = vec![0xAA];
        read_into(mem, addr, len, &mut out);
        assert_eq!(out.remove(0), 0xAA, "appended");
        out
    };
    let out = read_vec(&mem, 0x0480_0000 - 16, 64);
    assert_eq!(&out[..16], &[0xEE; 16]);
    assert_eq!(&out[16..], &[0; 48]);
    // Unmapped bytes read as 0.
    assert_eq!(read_vec(&mem, 0xFFFF_FFF0, 16), vec![0; 16]);
    // The last 16 bytes of the window are the last 16 of VRAM (mirror).
    assert_eq!(mem.vram()[VRAM_SIZE as usize - 1], 0xEE);
}

/// `ps` flushed `chunk` primitives at a time (behind the caller with more than one
/// thread), each flush drawing on the last one's tiles when `carry`, with `between(k,
/// mem)` after the `k`-th flush; then landed.
fn run_chunks(
    ps: &[Prim],
    t: &FbTarget,
    threads: usize,
    chunk: usize,
    carry: bool,
    between: &dyn Fn(usize, &mut Memory),
) -> Vec<u8> {
    let mut mem = patterned();
    let pool = Arc::new(rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("pool"));
    let mut bin = Binner::new(8);
    for (k, c) in ps.chunks(chunk).enumerate() {
        for p in c {
            bin.push(p.r, *p);
        }
        bin.flush_behind(t, &mut mem, Some(&pool), draw_fn, None, carry);
        between(k, &mut mem);
    }
    mem.settle();
    mem.vram().to_vec()
}

#[test]
fn carried_tiles_land_the_serial_bytes() {
    // Writes between the flushes: in RAM (the tiles stay pending), into a pixel of the
    // target (they land first), and into VRAM outside it.
    let t = target(512);
    let between = |k: usize, mem: &mut Memory| match k % 3 {
        0 => mem.write_u32(0x0880_0000 + k as u32 * 4, 0x5EED_0000 | k as u32).unwrap(),
        1 => mem.write_u32(t.color_addr + (k as u32 * 37 % 272) * 512 * 4 + 8, 0xC0DE_0000 | k as u32).unwrap(),
        _ => mem.write_u32(VRAM_BASE + 0x1F_0000 + k as u32 * 4, 0xFACE_0000 | k as u32).unwrap(),
    };
    for (seed, max_x, chunk) in [(5, 450, 17), (6, 90, 9), (7, 500, 60), (8, 30, 5)] {
        let ps = prims(240, seed, max_x);
        let want = run_chunks(&ps, &t, 1, chunk, false, &between);
        for threads in [1, 2, 4] {
            let got = run_chunks(&ps, &t, threads, chunk, true, &between);
            assert!(got == want, "seed {seed}, {threads} threads");
        }
    }
}

#[test]
fn a_carrying_flush_draws_on_the_tiles_without_landing_them() {
    // Two flushes over the same rows with a RAM write between: the first flush's pixels
    // are still not in VRAM after the second (its tiles were drawn on, not written back
    // and copied out again), and landing gives the serial bytes.
    let t = target(512);
    let ps = [
        Prim { id: 1, r: ClipRect { x0: 0, y0: 0, x1: 99, y1: 30 } },
        Prim { id: 2, r: ClipRect { x0: 50, y0: 10, x1: 90, y1: 20 } },
    ];
    let pixel = (10 * 512 + 60) * 4;
    let before = patterned().vram()[pixel..pixel + 4].to_vec();
    let want = reference(&ps, &t);
    for threads in [1, 2] {
        let mut mem = patterned();
        let pool = Arc::new(rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("pool"));
        let mut bin = Binner::new(8);
        bin.push(ps[0].r, ps[0]);
        bin.flush_behind(&t, &mut mem, Some(&pool), draw_fn, None, true);
        mem.write_u32(0x0880_0000, 1).unwrap();
        assert!(mem.has_pending(), "a write elsewhere leaves the tiles pending ({threads} threads)");
        bin.push(ps[1].r, ps[1]);
        bin.flush_behind(&t, &mut mem, Some(&pool), draw_fn, None, true);
        assert_eq!(mem.vram()[pixel..pixel + 4], before[..], "{threads} threads");
        mem.settle();
        assert!(mem.vram() == &want[..], "{threads} threads");
    }
}

#[test]
fn extended_starts_keep_the_cuts_and_cover_the_rows() {
    let layout = [32, 40, 56, 60];
    for (y_min, y_max) in [(40, 50), (0, 59), (33, 200), (0, 1023), (59, 60), (31, 31)] {
        let s = extend_starts(&layout, y_min, y_max, 16);
        assert!(s.windows(2).all(|w| w[0] < w[1]), "{s:?} increasing");
        assert!(layout.iter().all(|c| s.contains(c)), "{s:?} keeps {layout:?}");
        assert!(s[0] <= y_min && y_max < s[s.len() - 1], "{s:?} covers {y_min}..={y_max}");
        let added = s.windows(2).filter(|w| w[1] <= 32 || w[0] >= 60);
        assert!(added.clone().all(|w| w[1] - w[0] <= 16), "{s:?}");
        assert_eq!(added.count(), s.len() - layout.len(), "{s:?} adds only bands outside the layout");
    }
}
