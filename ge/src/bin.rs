//! Tile binning and parallel rasterization.
//!
//! Primitives are queued with their inclusive screen bounds. [`Binner::flush`] cuts the
//! rows they touch into bands of at most `band_rows` rows (with one thread aligned to
//! multiples of `band_rows` from row 0; with more, cut where the estimated raster cost
//! reaches an even share, `band_starts`), copies each touched band of the colour and
//! depth buffers out of VRAM into a private [`Tile`] (only the pixel columns its
//! primitives cover when they are under 3/4 of a row: a window, [`Tile::window`]), and
//! lets a rayon worker draw every primitive touching the band, in submission order.
//! Tiles are written back in band order after the parallel phase. No
//! band shares bytes with another, so the result is the same for any thread count and any
//! band height.
//!
//! Bands are only independent when a band's pixels stay inside its own rows. Two cases
//! break that and are drawn as one sequential band instead:
//! * a primitive reaching x ≥ stride, or ≥ the depth stride when depth rows are drawn (the
//!   GE then writes into the following rows, which the single band includes as extra rows);
//! * colour and depth buffers overlapping in memory (then only bytes that changed are
//!   written back, colour first, so an unwritten buffer does not clobber the other).
//!
//! Drawing coordinates are bounded by the 10-bit scissor registers, so bounds are clamped
//! to 0..=1023 before use.
//!
//! ## Rasterizing behind the front end
//! [`Binner::flush_behind`] starts the bands as jobs on the pool and returns: the caller
//! (the executor) goes on decoding, transforming and binning the next draws while they
//! are drawn, and the tiles land in memory later ([`crate::mem::Pending`]). With `T`
//! threads, `T - 1` workers take bands one at a time and the caller, when it needs the
//! tiles, takes the ones left (`Behind`): the front end keeps a core while a flush draws,
//! and a flush landed at once is drawn by `T` threads. Only *when*
//! the pixels land changes; where the flushes are (the PPSSPP model's queue included) and
//! what every band draws stay the same, so the bytes are the serial ones for any thread
//! count. The job owns its primitives (each holds its immutable decoded state) and reads
//! textures from a [`Memory::snapshot`] taken at the flush, i.e. the memory the serial
//! flush would have read. The hazards, and where each is handled:
//! * anything writing memory (block transfers, replay FRAMEBUF/CLUT/MEMCPY uploads, the
//!   list builder, any `&mut` access): the tiles land first if the write touches their
//!   rows, in [`Memory`]'s write path, so writes keep their order with the raster's; a
//!   write elsewhere only waits for the job to drop its snapshot;
//! * a later flush: the tiles land before its bands are copied out or its snapshot taken,
//!   so it draws over them and textures from them (render-to-texture), unless it carries
//!   them (below);
//! * main-thread reads of rows the tiles cover: vertex and index fetch of PRIM, BEZIER,
//!   SPLINE and BOUNDINGBOX (`vertex::settle_reads`), LOADCLUT and the display-list word
//!   fetch call [`Memory::settle_for`]; a block transfer flushes and lands;
//! * everything outside the executor's loops sees landed pixels: `Ge::execute_word`,
//!   `Ge::run_list`, `Ge::flush` and the replay settle before they return, the replay
//!   settles before showing a word to a step hook, and the executor before showing one to
//!   an observer (the dump recorder).
//!
//! The caller may itself be a worker of the pool (`psprender frametests --bench` replays
//! inside the pool, and so do the corpus tests' jobs): it never waits for a band nobody has
//! taken, since landing draws every untaken band itself, and a band taken by another thread
//! is being drawn, which waits for nothing. With one thread, or for a flush needing the one
//! sequential band, it is [`Binner::flush`].
//!
//! ## Carrying tiles from flush to flush
//! A flush to the same target as the pending tiles, none of whose primitives textures from
//! their rows (the caller checks, `carry`), draws on those tiles instead of writing them
//! back and copying the same rows out again: it cuts its bands where they were cut
//! ([`extend_starts`]), each band takes the tile of its rows when the tile holds its
//! columns ([`adopt`]), and tiles no band draws on ride along as bands with nothing to
//! draw. A dump's texture uploads between flushes write RAM, not the target, so the tiles
//! of a frame stay out of memory until something reads or writes their rows, and each
//! band is copied out and back once. The serial path (one thread) carries too: its tiles
//! stay pending like a job's. Callgrind, one thread, whole replay: 16131 (PPSSPP model,
//! 25 flushes) −3.5 %, 15826 −3.0 %, 20204 −0.9 %; dumps of few flushes level (±0.2 %).
//!
//! Reads go through [`Memory::read_wrapping`]-style address walking (VRAM mirrors wrap,
//! unmapped bytes read as zero); writes skip unmapped bytes and never panic.

#[path = "bin_landing.rs"]
mod landing;

use crate::mem::{Memory, Region, RAM_SIZE, SCRATCH_SIZE, VRAM_SIZE};
use crate::raster::ClipRect;
use crate::tile::{FbFormat, Tile};
use landing::{adopt, carried_layout, take_carried, Behind, Landing, Queued};
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, RwLock};

/// Largest drawing coordinate (SCISSOR/REGION fields are 10 bits).
const MAX_COORD: i32 = 1023;

/// Where the colour and depth buffers live.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FbTarget {
    /// Full address (e.g. `0x04000000 | FRAMEBUFPTR`).
    pub color_addr: u32,
    /// Colour stride in pixels.
    pub stride: u32,
    pub fmt: FbFormat,
    pub depth_addr: u32,
    /// Depth stride in pixels.
    pub zstride: u32,
}

/// A queue of primitives awaiting rasterization.
pub struct Binner<P> {
    band_rows: i32,
    items: Vec<(ClipRect, P)>,
    /// Estimated raster cost of `items` in pixels ([`Binner::cost`]).
    cost: u64,
    /// Set by the last job rasterizing behind the caller when its tiles are drawn.
    drawn: Option<Arc<AtomicBool>>,
    /// The most primitives a flush took so far: the room the next batch starts with.
    peak: usize,
}

/// One band's work: its rows and the indices of the primitives touching it.
struct Band {
    y0: i32,
    rows: i32,
    prims: Vec<u32>,
    /// Pixel columns its primitives' bounds cover (first, last): a band's bytes outside
    /// them are the ones it copied out, so only these columns are written back.
    cols: (u32, u32),
}

impl<P: Send + Sync + 'static> Binner<P> {
    /// `band_rows` rows per band (at least 1).
    pub fn new(band_rows: i32) -> Self {
        Binner { band_rows: band_rows.max(1), items: Vec::new(), cost: 0, drawn: None, peak: 0 }
    }

    #[inline]
    pub fn push(&mut self, bounds: ClipRect, prim: P) {
        self.cost += prim_cost(&bounds);
        self.items.push((bounds, prim));
    }

    /// Estimated raster cost of the queued primitives, in pixels: set-up plus half the
    /// bounding box each (the estimate balanced bands are cut by, [`band_starts`]).
    pub fn cost(&self) -> u64 {
        self.cost
    }

    /// Whether no job started by [`Binner::flush_behind`] is still drawing, so another
    /// would start at once instead of waiting for it.
    pub fn idle(&self) -> bool {
        self.drawn.as_ref().is_none_or(|d| d.load(Ordering::Acquire))
    }

    /// The queued primitives, oldest first.
    pub fn prims(&self) -> impl Iterator<Item = &P> {
        self.items.iter().map(|(_, p)| p)
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// The queued primitives from the `first`-th on, oldest first (a slice, so starting
    /// late costs nothing: PPSSPP-model drains start at the end of long queues).
    pub fn prims_mut(&mut self, first: usize) -> impl Iterator<Item = &mut P> {
        self.items.get_mut(first..).unwrap_or_default().iter_mut().map(|(_, p)| p)
    }

    /// Rasterize everything pushed, then clear the queue. `draw(prim, tile, mem)` draws one
    /// primitive into a tile; it must only touch the tile (memory is read-only). Rasterize
    /// with `RasterSetup::with_band(tile.y0, tile.y0 + tile.rows - 1)` so every band emits
    /// only its own rows while the quad grid stays band-independent.
    ///
    /// With `carry`, the tiles of an earlier flush to the same target still pending in
    /// `mem` are drawn on instead of being written back and copied out again, and this
    /// flush's tiles stay pending too ([`Carried`]): the caller promises that no queued
    /// primitive reads (textures from) bytes the pending writes cover.
    pub fn flush(
        &mut self,
        target: &FbTarget,
        mem: &mut Memory,
        pool: Option<&rayon::ThreadPool>,
        draw: fn(&P, &mut Tile, &Memory),
        carry: bool,
    ) {
        let threads = pool.map_or_else(rayon::current_num_threads, |p| p.current_num_threads());
        let Some(Banded { items, bands, starts, start }) = self.banded(target, mem, threads, carry, draw) else {
            return;
        };
        let mem_ro: &Memory = mem;
        let one = |(b, t): (&Band, Option<Tile>)| draw_band(b, t, target, mem_ro, &items, &draw);
        let work: Vec<(&Band, Option<Tile>)> = bands.iter().zip(start).collect();
        let run = |work: Vec<(&Band, Option<Tile>)>| work.into_par_iter().map(one).collect::<Vec<Tile>>();
        // One thread: drawn here; installing on a 1-thread pool from outside it only adds a
        // round trip to its worker per flush.
        let tiles: Vec<Tile> = match pool {
            _ if threads <= 1 => work.into_iter().map(one).collect(),
            Some(p) => p.install(|| run(work)),
            None => run(work),
        };
        let job = Behind::drawn(bands, starts, *target, draw, tiles);
        mem.defer(Box::new(Landing::new(job, None)));
    }

    /// The queued primitives cut into bands, each with the carried tile it draws on
    /// ([`adopt`]), the queue left empty; every other pending write landed, so the bands
    /// may copy their rows out. `None` when nothing is left to draw in bands: no
    /// primitive, or the one sequential band (drawn and written back here).
    fn banded(
        &mut self,
        target: &FbTarget,
        mem: &mut Memory,
        threads: usize,
        carry: bool,
        draw: fn(&P, &mut Tile, &Memory),
    ) -> Option<Banded<P>> {
        let items = self.take();
        let layout = if carry { carried_layout::<P>(mem, target) } else { None };
        let (mut bands, starts) = match self.plan(&items, target, threads, layout.as_deref()) {
            Plan::Bands(bands, starts) => (bands, starts),
            Plan::Empty => return None,
            Plan::Single(band, overlap) => {
                mem.settle();
                draw_single(&band, overlap, target, mem, &items, &draw);
                return None;
            }
        };
        let carried = if layout.is_some() { take_carried::<P>(mem) } else { Vec::new() };
        mem.settle();
        let start = adopt(&mut bands, carried, target, mem);
        Some(Banded { items, bands, starts, start })
    }

    /// The queued primitives, leaving the queue empty with room for the largest batch so
    /// far (the next batch or frame then does not grow it, copying as it goes: the PPSSPP
    /// model's flushes alternate small and large batches: with room for only the previous
    /// batch, growing the queues of 19960's binned shapes cost 4.9 M instructions, copies
    /// included, 2.2 M since).
    fn take(&mut self) -> Vec<(ClipRect, P)> {
        self.cost = 0;
        self.peak = self.peak.max(self.items.len());
        let room = Vec::with_capacity(self.peak);
        std::mem::replace(&mut self.items, room)
    }

    /// Where the queued primitives go: nowhere, one sequential band, or bands (balanced
    /// for `threads` workers, [`band_starts`]; with `layout`, the cuts of carried tiles,
    /// cut there and around it, [`extend_starts`], so that the bands meet the tiles).
    fn plan(&self, items: &[(ClipRect, P)], target: &FbTarget, threads: usize, layout: Option<&[i32]>) -> Plan {
        // Clamp each primitive's bounds to the drawable area; drop what is left empty.
        let live: Vec<(ClipRect, u32)> = items
            .iter()
            .enumerate()
            .filter_map(|(i, (b, _))| {
                let c = b.intersect(&ClipRect { x0: 0, y0: 0, x1: MAX_COORD, y1: MAX_COORD });
                (!c.is_empty()).then_some((c, i as u32))
            })
            .collect();
        if live.is_empty() {
            return Plan::Empty;
        }
        let y_min = live.iter().map(|(b, _)| b.y0).min().unwrap_or(0);
        let y_max = live.iter().map(|(b, _)| b.y1).max().unwrap_or(-1);
        let x_max = live.iter().map(|(b, _)| b.x1).max().unwrap_or(0);

        let bpp = target.fmt.bpp();
        // Depth rows count too: with a depth stride narrower than the reach, depth pixels
        // ran into the next band's rows and the bytes hung on where bands were cut, which
        // depends on the thread count (`narrow_bands_are_copied_as_windows_with_the_same_bytes`).
        let depth_stride = (target.zstride > 0).then_some(target.zstride);
        let wraps_rows = x_max as u32 >= target.stride || depth_stride.is_some_and(|z| x_max as u32 >= z);
        // Extra rows reached by x ≥ stride (x / stride rows further down).
        let past = |s: u32| x_max as u32 / s.max(1);
        let extra =
            if wraps_rows && target.stride > 0 { past(target.stride).max(depth_stride.map_or(0, past)) } else { 0 };
        let extra = extra as i32;
        let all_rows = y_max - y_min + 1 + extra;
        let overlap = ranges_overlap(
            target.color_addr.wrapping_add(row_bytes(y_min, target.stride, bpp)),
            row_bytes(all_rows, target.stride, bpp),
            target.depth_addr.wrapping_add(row_bytes(y_min, target.zstride, 2)),
            row_bytes(all_rows, target.zstride, 2),
        );

        if wraps_rows || overlap {
            let prims = live.iter().map(|(_, i)| *i).collect();
            let band = Band { y0: y_min, rows: all_rows, prims, cols: (0, x_max as u32) };
            return Plan::Single(band, overlap);
        }

        // Assign primitives to bands, keeping submission order within each band.
        let starts = match layout {
            Some(l) if l.len() >= 2 => extend_starts(l, y_min, y_max, self.band_rows),
            _ => band_starts(&live, y_min, y_max, self.band_rows, threads),
        };
        let mut bands: Vec<Band> = starts
            .windows(2)
            .map(|w| Band { y0: w[0], rows: w[1] - w[0], prims: Vec::new(), cols: (u32::MAX, 0) })
            .collect();
        // The band of each row from the first band's on.
        let base = starts[0];
        let mut band_of = Vec::with_capacity((starts[starts.len() - 1] - base) as usize);
        for (k, b) in bands.iter().enumerate() {
            band_of.extend(std::iter::repeat_n(k as u32, b.rows as usize));
        }
        for (b, i) in &live {
            let lo = band_of[(b.y0 - base) as usize] as usize;
            let hi = band_of[(b.y1 - base) as usize] as usize;
            for band in &mut bands[lo..=hi] {
                band.prims.push(*i);
                band.cols = (band.cols.0.min(b.x0 as u32), band.cols.1.max(b.x1 as u32));
            }
        }
        bands.retain(|b| !b.prims.is_empty());
        Plan::Bands(bands, starts)
    }
}

impl<P: Send + Sync + 'static> Binner<P> {
    /// [`Binner::flush`] behind the caller: the bands rasterize as a job on `pool` (reading
    /// textures from a [`Memory::snapshot`] taken now) while the caller goes on, and their
    /// tiles land in `mem` at its next write, at a [`Memory::settle_for`] of bytes they
    /// cover, or at [`Memory::settle`]. Earlier pending tiles land first. With one thread,
    /// or when the primitives need one sequential band (rare), it is [`Binner::flush`].
    /// `waited` adds the time the caller then spends landing the tiles (profiling).
    ///
    /// With `T` threads, `T - 1` of the pool's workers draw the bands, taking them one at a
    /// time, while the caller goes on; the caller draws the bands still untaken when it
    /// needs the tiles ([`Behind`]). So the front end keeps a core of its own (with every
    /// worker drawing it shared their cores, and a frame's front end is its critical path
    /// more often than not), and a flush landed at once is still drawn by `T` threads.
    pub fn flush_behind(
        &mut self,
        target: &FbTarget,
        mem: &mut Memory,
        pool: Option<&Arc<rayon::ThreadPool>>,
        draw: fn(&P, &mut Tile, &Memory),
        waited: Option<&Arc<AtomicU64>>,
        carry: bool,
    ) {
        if !draws_behind(pool) {
            return self.flush(target, mem, pool.map(|p| &**p), draw, carry);
        }
        let threads = pool.map_or_else(rayon::current_num_threads, |p| p.current_num_threads());
        // Earlier tiles not drawn on have landed: the snapshot holds them.
        let Some(Banded { items, bands, starts, start }) = self.banded(target, mem, threads, carry, draw) else {
            return;
        };
        let drawn = Arc::new(AtomicBool::new(false));
        self.drawn = Some(drawn.clone());
        let job = Arc::new(Behind {
            tiles: bands.iter().map(|_| Mutex::new(None)).collect(),
            start: start.into_iter().map(Mutex::new).collect(),
            bands,
            starts,
            target: *target,
            draw,
            input: RwLock::new(Some((mem.snapshot(), items))),
            next: AtomicUsize::new(0),
            finished: Mutex::new(0),
            all_drawn: Condvar::new(),
            drawn,
        });
        for _ in 1..threads.min(job.bands.len() + 1) {
            let job = job.clone();
            let help = move || job.help();
            match pool {
                Some(p) => p.spawn(help),
                None => rayon::spawn(help),
            }
        }
        mem.defer(Box::new(Landing::new(job, waited.cloned())));
    }
}

/// Whether [`Binner::flush_behind`] on `pool` draws behind the caller: with more than one
/// thread. On a worker of the pool too (`rayon::spawn` inside a worker spawns into its
/// pool): the caller lands the tiles by drawing the bands no one took, so it never waits
/// for a job that has not started. Before, a caller on a worker drew every flush as a
/// blocking [`Binner::flush`], so `frametests --bench` (which replays on a pool worker)
/// ran the front end and the raster one after the other.
pub fn draws_behind(pool: Option<&Arc<rayon::ThreadPool>>) -> bool {
    match pool {
        Some(p) => p.current_num_threads() > 1,
        None => rayon::current_num_threads() > 1,
    }
}

/// Estimated cost of a primitive's set-up, in pixels (the raster's per-primitive work:
/// edge and plane set-up, the shader and kernel choice; a small triangle's set-up costs
/// about what 8-16 textured pixels cost, callgrind on g59dc00).
const SETUP_PIXELS: u64 = 12;
/// [`SETUP_PIXELS`] plus half the pixels of a primitive's bounds (0 when empty).
fn prim_cost(b: &ClipRect) -> u64 {
    let c = b.intersect(&ClipRect { x0: 0, y0: 0, x1: MAX_COORD, y1: MAX_COORD });
    if c.is_empty() {
        return 0;
    }
    let (w, h) = (u64::from((c.x1 - c.x0 + 1) as u32), u64::from((c.y1 - c.y0 + 1) as u32));
    SETUP_PIXELS + w * h / 2
}

/// Bands each worker gets when bands are balanced, so that stealing can even them out.
const BANDS_PER_THREAD: u64 = 4;
/// Fewest rows of a balanced band (a whole quad row: odd cuts set up a quad row twice).
const MIN_BAND_ROWS: i32 = 2;

/// The first row of every band and, last, the row after the last one, covering rows
/// `y_min..=y_max` of the clamped bounds `live`. One thread: cuts at the multiples of
/// `band_rows` (bands of `band_rows` rows but the first and last). More threads: bands of
/// at most `band_rows` rows cut where the estimated cost (set-up plus half the bounding
/// box's pixels, spread over each primitive's rows) reaches an even share of
/// [`BANDS_PER_THREAD`] bands per thread, so a frame whose primitives crowd into a few
/// rows still keeps every thread busy (g59dc00: most of its 10 600 triangles fall into
/// two 16-row bands, so 2 threads drew no faster than 1). Band edges change where a
/// primitive is cut, never what it draws.
fn band_starts(live: &[(ClipRect, u32)], y_min: i32, y_max: i32, band_rows: i32, threads: usize) -> Vec<i32> {
    if threads <= 1 || band_rows <= MIN_BAND_ROWS {
        // Cut at multiples of `band_rows`, but start at `y_min` and end after `y_max`: the
        // rows beside the bounds may be another buffer's (a depth buffer right below the
        // drawn rows), which a band copied out and wrote back stale over that buffer's
        // new bytes, on one thread only (`bands_stay_inside_the_bounds`).
        let mut starts = vec![y_min];
        let mut y = (y_min.div_euclid(band_rows) + 1) * band_rows;
        while y <= y_max {
            starts.push(y);
            y += band_rows;
        }
        starts.push(y_max + 1);
        return starts;
    }
    // Cost per row (16ths of a pixel), through a difference array.
    let n = (y_max - y_min + 1) as usize;
    let mut diff = vec![0i64; n + 1];
    for (b, _) in live {
        let (w, h) = (i64::from(b.x1 - b.x0 + 1), i64::from(b.y1 - b.y0 + 1));
        let per_row = (SETUP_PIXELS as i64 * 16 + 8 * w * h) / h;
        diff[(b.y0 - y_min) as usize] += per_row;
        diff[(b.y1 - y_min + 1) as usize] -= per_row;
    }
    let mut cost = Vec::with_capacity(n);
    let mut acc = 0i64;
    for d in &diff[..n] {
        acc += d;
        cost.push(acc.max(0) as u64);
    }
    let share = (cost.iter().sum::<u64>() / (threads as u64 * BANDS_PER_THREAD)).max(1);
    let mut starts = vec![y_min];
    let (mut start, mut acc) = (y_min, 0u64);
    for (k, c) in cost.iter().enumerate() {
        let y = y_min + k as i32;
        acc += c;
        let rows = y + 1 - start;
        let even_end = (y + 1) % 2 == 0;
        if y < y_max && (rows >= band_rows || (acc >= share && rows >= MIN_BAND_ROWS && even_end)) {
            start = y + 1;
            acc = 0;
            starts.push(start);
        }
    }
    starts.push(y_max + 1);
    starts
}

/// The cuts `layout` (band starts and, last, the end) with bands of `band_rows` rows added
/// below and above it until rows `y_min..=y_max` are covered: every cut of `layout` is
/// kept, so tiles cut there meet bands of the same rows.
fn extend_starts(layout: &[i32], y_min: i32, y_max: i32, band_rows: i32) -> Vec<i32> {
    let (first, last) = (layout[0], layout[layout.len() - 1]);
    let mut starts = Vec::with_capacity(layout.len() + 2);
    let mut y = first;
    while y > y_min {
        y = (y - band_rows).max(y_min);
        starts.push(y);
    }
    starts.reverse();
    starts.extend_from_slice(layout);
    let mut y = last;
    while y <= y_max {
        y = (y + band_rows).min(y_max + 1);
        starts.push(y);
    }
    starts
}

/// A flush's primitives in bands ([`Binner::banded`]).
struct Banded<P> {
    items: Queued<P>,
    bands: Vec<Band>,
    /// Where the bands were cut ([`Plan::Bands`]).
    starts: Vec<i32>,
    /// Each band's carried tile to draw on.
    start: Vec<Option<Tile>>,
}

/// Where a flush's primitives go ([`Binner::plan`]).
enum Plan {
    Empty,
    /// One sequential band; `true` when colour and depth share bytes.
    Single(Band, bool),
    /// The bands with primitives, and where every band was cut ([`band_starts`]).
    Bands(Vec<Band>, Vec<i32>),
}

/// Draw one sequential band and write it back (only the changed bytes when colour and
/// depth overlap, so an unwritten buffer does not clobber the other).
fn draw_single<P>(
    band: &Band,
    overlap: bool,
    target: &FbTarget,
    mem: &mut Memory,
    items: &[(ClipRect, P)],
    draw: &(dyn Fn(&P, &mut Tile, &Memory) + Sync),
) {
    let tile = draw_prims(read_band(band.y0, band.rows, target, mem), &band.prims, items, mem, draw);
    write_back(&tile, target, mem, overlap.then_some(&read_band(band.y0, band.rows, target, mem)));
}

/// Copy a band of a [`Plan::Bands`] out of memory (a window of its columns when they are
/// few, [`window_of`]), draw its primitives in order, return the tile.
fn draw_band<P>(
    band: &Band,
    start: Option<Tile>,
    target: &FbTarget,
    mem: &Memory,
    items: &[(ClipRect, P)],
    draw: &(dyn Fn(&P, &mut Tile, &Memory) + Sync),
) -> Tile {
    let tile = match (start, window_of(band.cols, target)) {
        (Some(t), _) => t,
        (None, Some(w)) => read_window(band.y0, band.rows, w, target, mem),
        (None, None) => read_band(band.y0, band.rows, target, mem),
    };
    draw_prims(tile, &band.prims, items, mem, draw)
}

/// Draw primitives `prims` of `items` into `tile`, in order.
fn draw_prims<P>(
    mut tile: Tile,
    prims: &[u32],
    items: &[(ClipRect, P)],
    mem: &Memory,
    draw: &(dyn Fn(&P, &mut Tile, &Memory) + Sync),
) -> Tile {
    for &i in prims {
        if let Some((_, p)) = items.get(i as usize) {
            draw(p, &mut tile, mem);
        }
    }
    tile
}

/// The columns `(first, count)` a band with primitives in pixel columns `cols` is copied
/// in, or `None` for whole rows: a window when the columns are under 3/4 of a row (as
/// [`write_rows`] writes back) and inside both strides (pixels past a stride run into the
/// next row, which only whole rows hold).
fn window_of(cols: (u32, u32), target: &FbTarget) -> Option<(i32, u32)> {
    let (first, last) = cols;
    let inside = last < target.stride && (target.zstride == 0 || last < target.zstride);
    let width = last.checked_sub(first)? + 1;
    (inside && u64::from(width) * 4 < u64::from(target.stride) * 3).then_some((first as i32, width))
}

fn read_band(y0: i32, rows: i32, target: &FbTarget, mem: &Memory) -> Tile {
    let bpp = target.fmt.bpp();
    let r = rows.max(0) as usize;
    // Built by copying, not zero-filled first: the zeroing cost as much as the copy (posed
    // p01ex00 bench, callgrind: 49.7 M of 1 641 M in Tile::new's memset).
    let mut color = Vec::new();
    read_into(
        mem,
        target.color_addr.wrapping_add(row_bytes(y0, target.stride, bpp)),
        r * target.stride as usize * bpp as usize,
        &mut color,
    );
    let mut depth = Vec::new();
    read_into(
        mem,
        target.depth_addr.wrapping_add(row_bytes(y0, target.zstride, 2)),
        r * target.zstride as usize * 2,
        &mut depth,
    );
    Tile::whole(y0, rows, target.fmt, target.stride, target.zstride, color, depth)
}

/// [`read_band`] of columns `x0..x0 + width` only ([`Tile::window`]).
fn read_window(y0: i32, rows: i32, (x0, width): (i32, u32), target: &FbTarget, mem: &Memory) -> Tile {
    let bpp = target.fmt.bpp();
    let r = rows.max(0) as u32;
    let mut color = Vec::with_capacity((r * width * bpp) as usize);
    let mut depth = Vec::with_capacity((r * width * 2) as usize * usize::from(target.zstride > 0));
    for row in 0..r {
        let y = y0.wrapping_add(row as i32);
        let at = row_bytes(y, target.stride, bpp).wrapping_add(x0 as u32 * bpp);
        read_into(mem, target.color_addr.wrapping_add(at), (width * bpp) as usize, &mut color);
        if target.zstride > 0 {
            let at = row_bytes(y, target.zstride, 2).wrapping_add(x0 as u32 * 2);
            read_into(mem, target.depth_addr.wrapping_add(at), (width * 2) as usize, &mut depth);
        }
    }
    Tile::window(y0, rows, target.fmt, (target.stride, target.zstride), (x0, width), color, depth)
}

/// `len` bytes from `addr`, appended to `out`, walking the address map like
/// [`Memory::read_wrapping`] but in contiguous runs (unmapped bytes read as 0).
fn read_into(mem: &Memory, addr: u32, len: usize, out: &mut Vec<u8>) {
    out.reserve(len);
    let (base, end) = (out.len(), out.len() + len);
    while out.len() < end {
        let a = addr.wrapping_add((out.len() - base) as u32);
        let n = run_len(a).min(end - out.len());
        if n == 0 {
            // Unmapped byte.
            out.push(0);
            continue;
        }
        match mem.slice(a, n as u32) {
            Ok(s) => out.extend_from_slice(s),
            Err(_) => {
                let at = out.len();
                out.resize(at + n, 0);
                mem.read_wrapping(a, &mut out[at..]);
            }
        }
    }
}

/// Write a tile back. With `orig`, only bytes that differ from it are written.
fn write_back(tile: &Tile, target: &FbTarget, mem: &mut Memory, orig: Option<&Tile>) {
    let bpp = target.fmt.bpp();
    let caddr = target.color_addr.wrapping_add(row_bytes(tile.y0, target.stride, bpp));
    let zaddr = target.depth_addr.wrapping_add(row_bytes(tile.y0, target.zstride, 2));
    match orig {
        None => {
            write_bytes(mem, caddr, &tile.color);
            write_bytes(mem, zaddr, &tile.depth);
        }
        Some(o) => {
            write_changed(mem, caddr, &tile.color, &o.color);
            write_changed(mem, zaddr, &tile.depth, &o.depth);
        }
    }
}

/// Write back a band's tile in pixel columns `cols` only ([`Band::cols`]): a window
/// ([`Tile::window`]) holds no others.
fn write_cols(tile: &Tile, cols: (u32, u32), target: &FbTarget, mem: &mut Memory) {
    let bpp = target.fmt.bpp();
    if tile.is_window() {
        let (width, zwidth) = tile.pitches();
        let x0 = tile.x0 as u32;
        for (row, data) in tile.color.chunks_exact((width * bpp).max(1) as usize).enumerate() {
            let at = row_bytes(tile.y0.wrapping_add(row as i32), target.stride, bpp).wrapping_add(x0 * bpp);
            write_bytes(mem, target.color_addr.wrapping_add(at), data);
        }
        for (row, data) in tile.depth.chunks_exact((zwidth * 2).max(1) as usize).enumerate() {
            let at = row_bytes(tile.y0.wrapping_add(row as i32), target.zstride, 2).wrapping_add(x0 * 2);
            write_bytes(mem, target.depth_addr.wrapping_add(at), data);
        }
        return;
    }
    let caddr = target.color_addr.wrapping_add(row_bytes(tile.y0, target.stride, bpp));
    let zaddr = target.depth_addr.wrapping_add(row_bytes(tile.y0, target.zstride, 2));
    write_rows(mem, caddr, &tile.color, target.stride * bpp, cols, bpp);
    write_rows(mem, zaddr, &tile.depth, target.zstride * 2, cols, 2);
}

/// Rows of `data` (`pitch` bytes each) from `addr`, only pixel columns `cols` of each
/// (`bpp` bytes a pixel); whole when the columns are most of a row or leave it (a depth
/// stride narrower than the colour one: the pixels then run into the next rows).
/// g59dc00 (2 threads): its batches of a small model wrote whole 512-pixel rows back.
fn write_rows(mem: &mut Memory, addr: u32, data: &[u8], pitch: u32, cols: (u32, u32), bpp: u32) {
    let (from, to) = (cols.0.saturating_mul(bpp), cols.1.saturating_add(1).saturating_mul(bpp));
    if pitch == 0 || from >= to || to > pitch || (to - from) * 4 >= pitch * 3 {
        write_bytes(mem, addr, data);
        return;
    }
    for (r, row) in data.chunks_exact(pitch as usize).enumerate() {
        write_bytes(mem, addr.wrapping_add(r as u32 * pitch + from), &row[from as usize..to as usize]);
    }
}

/// Bytes in `rows` rows (wrapping like the GE's 32-bit address arithmetic).
fn row_bytes(rows: i32, stride: u32, bpp: u32) -> u32 {
    (rows as u32).wrapping_mul(stride).wrapping_mul(bpp)
}

/// Do `[a, a+alen)` and `[b, b+blen)` share physical bytes? Compared in the GE's view
/// (bit 30/31 aliases ignored, VRAM mirrors folded), conservatively for wrapping ranges.
fn ranges_overlap(a: u32, alen: u32, b: u32, blen: u32) -> bool {
    if alen == 0 || blen == 0 {
        return false;
    }
    let norm = |x: u32| Memory::locate(x).map(|(r, off)| (r, off as u64));
    match (norm(a), norm(b)) {
        (Some((ra, oa)), Some((rb, ob))) if ra == rb => {
            let size = match ra {
                Region::Vram => VRAM_SIZE as u64,
                Region::Ram => RAM_SIZE as u64,
                Region::Scratch => SCRATCH_SIZE as u64,
            };
            // Ranges longer than the region, or wrapping, alias everything.
            if alen as u64 >= size || blen as u64 >= size {
                return true;
            }
            let inter = |s1: u64, l1: u64, s2: u64, l2: u64| s1 < s2 + l2 && s2 < s1 + l1;
            // Check the plain position and the position shifted by one region (mirror wrap).
            inter(oa, alen as u64, ob, blen as u64)
                || inter(oa + size, alen as u64, ob, blen as u64)
                || inter(oa, alen as u64, ob + size, blen as u64)
        }
        _ => false,
    }
}

/// Bytes from `addr` to the end of its physical region (0 when unmapped).
fn run_len(addr: u32) -> usize {
    match Memory::locate(addr) {
        Some((r, off)) => {
            let size = match r {
                Region::Vram => VRAM_SIZE,
                Region::Ram => RAM_SIZE,
                Region::Scratch => SCRATCH_SIZE,
            } as usize;
            size - off
        }
        None => 0,
    }
}

/// Write `data` at `addr` through the address map in contiguous runs; unmapped bytes are
/// skipped (the GE's writes there go nowhere).
fn write_bytes(mem: &mut Memory, addr: u32, data: &[u8]) {
    let mut done = 0usize;
    while done < data.len() {
        let a = addr.wrapping_add(done as u32);
        let n = run_len(a).min(data.len() - done);
        if n == 0 {
            done += 1;
            continue;
        }
        if let Ok(s) = mem.slice_mut(a, n as u32) {
            s.copy_from_slice(&data[done..done + n]);
        }
        done += n;
    }
}

/// Write only the bytes of `data` that differ from `orig`.
fn write_changed(mem: &mut Memory, addr: u32, data: &[u8], orig: &[u8]) {
    let mut i = 0;
    while i < data.len() {
        if orig.get(i) == Some(&data[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < data.len() && orig.get(i) != Some(&data[i]) {
            i += 1;
        }
        write_bytes(mem, addr.wrapping_add(start as u32), &data[start..i]);
    }
}

// Beside this file, not under `src/bin/`: Cargo takes every file there as a program.
#[cfg(test)]
#[path = "bin_tests.rs"]
mod tests;
