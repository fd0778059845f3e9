//! The tiles of a flush drawn behind the caller ([`Behind`]), pending in memory until
//! they land ([`Landing`], a [`Pending`]), and carried from one flush to the next
//! ([`adopt`]); see the parent module's docs.

use super::{draw_band, ranges_overlap, row_bytes, write_cols, Band, FbTarget};
use crate::mem::{Memory, Pending};
use crate::raster::ClipRect;
use crate::tile::Tile;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, RwLock};

/// Queued primitives with their bounds, oldest first.
pub(super) type Queued<P> = Vec<(ClipRect, P)>;

/// A flush's bands drawn behind the caller: the pool's jobs and, once it needs the tiles,
/// the caller take them one at a time ([`Behind::help`]); each tile is kept in its band's
/// slot, and they land in band order.
pub(super) struct Behind<P> {
    pub(super) bands: Vec<Band>,
    /// Where the flush cut its bands (the layout a carrying flush reuses).
    pub(super) starts: Vec<i32>,
    pub(super) target: FbTarget,
    pub(super) draw: fn(&P, &mut Tile, &Memory),
    /// What the bands read (textures): a [`Memory::snapshot`] taken at the flush, and the
    /// primitives. Taken out before the tiles land, so landing writes memory no snapshot
    /// shares (no copy), and a helper job that starts late (its pool busy) holds nothing.
    pub(super) input: RwLock<Option<(Memory, Queued<P>)>>,
    /// Each band's carried tile to draw on, if any ([`adopt`]).
    pub(super) start: Vec<Mutex<Option<Tile>>>,
    /// The next band to take.
    pub(super) next: AtomicUsize,
    /// Each band's tile (or its drawing's panic), once drawn.
    pub(super) tiles: Vec<Mutex<Option<std::thread::Result<Tile>>>>,
    /// Bands drawn, and the signal that all are.
    pub(super) finished: Mutex<usize>,
    pub(super) all_drawn: Condvar,
    /// Set when all bands are drawn ([`Binner::idle`]).
    pub(super) drawn: Arc<AtomicBool>,
}

impl<P> Behind<P> {
    /// A job whose bands were all drawn already (`tiles`, one per band): a serial flush's.
    pub(super) fn drawn(
        bands: Vec<Band>,
        starts: Vec<i32>,
        target: FbTarget,
        draw: fn(&P, &mut Tile, &Memory),
        tiles: Vec<Tile>,
    ) -> Arc<Self> {
        let n = bands.len();
        Arc::new(Behind {
            start: bands.iter().map(|_| Mutex::new(None)).collect(),
            tiles: tiles.into_iter().map(|t| Mutex::new(Some(Ok(t)))).collect(),
            bands,
            starts,
            target,
            draw,
            input: RwLock::new(None),
            next: AtomicUsize::new(n),
            finished: Mutex::new(n),
            all_drawn: Condvar::new(),
            drawn: Arc::new(AtomicBool::new(true)),
        })
    }

    /// Draw bands until none is left to take.
    pub(super) fn help(&self) {
        let input = self.input.read().unwrap_or_else(|e| e.into_inner());
        let Some((mem, items)) = input.as_ref() else { return };
        loop {
            let i = self.next.fetch_add(1, Ordering::Relaxed);
            let Some(band) = self.bands.get(i) else { return };
            let start = self.start[i].lock().unwrap_or_else(|e| e.into_inner()).take();
            let tile = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                draw_band(band, start, &self.target, mem, items, &self.draw)
            }));
            *self.tiles[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(tile);
            let mut finished = self.finished.lock().unwrap_or_else(|e| e.into_inner());
            *finished += 1;
            if *finished == self.bands.len() {
                self.drawn.store(true, Ordering::Release);
                self.all_drawn.notify_all();
            }
        }
    }

    /// Draw what no worker has taken yet, wait for the rest, and drop the job's input
    /// (its snapshot of memory).
    fn finish(&self) {
        self.help();
        let mut finished = self.finished.lock().unwrap_or_else(|e| e.into_inner());
        while *finished < self.bands.len() {
            finished = self.all_drawn.wait(finished).unwrap_or_else(|e| e.into_inner());
        }
        drop(finished);
        drop(self.input.write().unwrap_or_else(|e| e.into_inner()).take());
    }

    /// The drawn tiles with their bands, in band order (after [`Behind::finish`]); a
    /// band's drawing that panicked panics here.
    fn take_tiles(&self) -> Vec<(&Band, Tile)> {
        let slots = self.bands.iter().zip(&self.tiles);
        slots
            .map(|(band, slot)| match slot.lock().unwrap_or_else(|e| e.into_inner()).take() {
                Some(Ok(tile)) => (band, tile),
                Some(Err(panic)) => std::panic::resume_unwind(panic),
                None => unreachable!("every band is drawn before its tile is taken"),
            })
            .collect()
    }
}

/// Tiles being drawn behind the caller, or drawn and not written back yet: the rows they
/// cover, and the job drawing them.
pub(super) struct Landing<P> {
    /// Colour bytes `(address, length)` the tiles cover.
    color: (u32, u32),
    /// Depth bytes (length 0 without depth rows).
    depth: (u32, u32),
    job: Arc<Behind<P>>,
    waited: Option<Arc<AtomicU64>>,
    /// Drawn, its snapshot dropped ([`Behind::finish`] done).
    released: bool,
}

impl<P> Landing<P> {
    pub(super) fn new(job: Arc<Behind<P>>, waited: Option<Arc<AtomicU64>>) -> Self {
        let t = &job.target;
        let (first, last) = match (job.bands.first(), job.bands.last()) {
            (Some(f), Some(l)) => (f.y0, l.y0 + l.rows),
            _ => (0, 0),
        };
        let bpp = t.fmt.bpp();
        let color =
            (t.color_addr.wrapping_add(row_bytes(first, t.stride, bpp)), row_bytes(last - first, t.stride, bpp));
        let depth = (t.depth_addr.wrapping_add(row_bytes(first, t.zstride, 2)), row_bytes(last - first, t.zstride, 2));
        Landing { color, depth, job, waited, released: false }
    }

    /// [`Behind::finish`] once, timed into `waited`.
    fn finish(&mut self) {
        if std::mem::replace(&mut self.released, true) {
            return;
        }
        let start = self.waited.is_some().then(std::time::Instant::now);
        self.job.finish();
        if let (Some(w), Some(s)) = (&self.waited, start) {
            w.fetch_add(s.elapsed().as_nanos() as u64, Ordering::Relaxed);
        }
    }
}

impl<P: Send + Sync + 'static> Pending for Landing<P> {
    fn overlaps(&self, addr: u32, len: u32) -> bool {
        ranges_overlap(addr, len, self.color.0, self.color.1) || ranges_overlap(addr, len, self.depth.0, self.depth.1)
    }

    fn land(mut self: Box<Self>, mem: &mut Memory) {
        self.finish();
        for (band, tile) in self.job.take_tiles() {
            write_cols(&tile, band.cols, &self.job.target, mem);
        }
    }

    fn drawing(&self) -> bool {
        !self.job.drawn.load(Ordering::Acquire)
    }

    fn release(&mut self) {
        self.finish();
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn into_any(self: Box<Self>) -> Box<dyn std::any::Any> {
        self
    }
}

/// A drawn tile not written back, with the rows and the columns drawn in it.
pub(super) struct Carried {
    y0: i32,
    rows: i32,
    cols: (u32, u32),
    tile: Tile,
}

/// The band starts of tiles pending in `mem` for `target` (a [`Landing`] of this binner's
/// primitives), which a flush may draw on.
pub(super) fn carried_layout<P: Send + Sync + 'static>(mem: &Memory, target: &FbTarget) -> Option<Vec<i32>> {
    let landing = mem.pending()?.as_any().downcast_ref::<Landing<P>>()?;
    (landing.job.target == *target).then(|| landing.job.starts.clone())
}

/// The tiles pending in `mem` ([`carried_layout`] said they are this binner's), drawn and
/// taken out unlanded.
pub(super) fn take_carried<P: Send + Sync + 'static>(mem: &mut Memory) -> Vec<Carried> {
    let Some(pending) = mem.take_pending() else { return Vec::new() };
    match pending.into_any().downcast::<Landing<P>>() {
        Ok(mut landing) => {
            landing.finish();
            let tiles = landing.job.take_tiles();
            tiles.into_iter().map(|(b, tile)| Carried { y0: b.y0, rows: b.rows, cols: b.cols, tile }).collect()
        }
        Err(_) => unreachable!("carried_layout checked the pending writes' type"),
    }
}

/// Give each band the carried tile of its rows when the tile holds the band's columns (it
/// then writes back the columns of both). A tile of rows no band draws becomes a band of
/// its own with nothing to draw (it lands with the others); one whose band needs columns
/// outside it (a narrower window) is written back now, before the band copies its rows
/// out. The bands were cut where the tiles were ([`Binner::plan`]'s `layout`), so a band
/// and a tile either hold the same rows or none in common. Returns each band's tile to
/// draw on.
pub(super) fn adopt(
    bands: &mut Vec<Band>,
    carried: Vec<Carried>,
    target: &FbTarget,
    mem: &mut Memory,
) -> Vec<Option<Tile>> {
    let mut start: Vec<Option<Tile>> = bands.iter().map(|_| None).collect();
    let mut idle: Vec<(Band, Tile)> = Vec::new();
    for c in carried {
        match bands.binary_search_by_key(&c.y0, |b| b.y0) {
            Ok(i) => {
                let b = &mut bands[i];
                let holds = !c.tile.is_window()
                    || (c.tile.x0 as u32 <= b.cols.0 && b.cols.1 < c.tile.x0 as u32 + c.tile.pitches().0);
                if b.rows == c.rows && holds {
                    b.cols = (b.cols.0.min(c.cols.0), b.cols.1.max(c.cols.1));
                    start[i] = Some(c.tile);
                } else {
                    write_cols(&c.tile, c.cols, target, mem);
                }
            }
            Err(_) => idle.push((Band { y0: c.y0, rows: c.rows, prims: Vec::new(), cols: c.cols }, c.tile)),
        }
    }
    if idle.is_empty() {
        return start;
    }
    let mut all: Vec<(Band, Option<Tile>)> = bands.drain(..).zip(start).collect();
    all.extend(idle.into_iter().map(|(b, t)| (b, Some(t))));
    all.sort_by_key(|(b, _)| b.y0);
    let (b, t): (Vec<Band>, Vec<Option<Tile>>) = all.into_iter().unzip();
    *bands = b;
    t
}
