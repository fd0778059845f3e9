//! The front end's share of the raster pool: large draws transform their vertices,
//! tessellate their patches and clip their triangle lists and strips in parallel chunks.
//!
//! Design: every parallel stage is a pure function of its chunk (a vertex, a run of a
//! patch's grid rows, a run of independent triangles), results are collected per chunk
//! and joined in chunk order, so the output is the serial output, bit for bit, for any
//! thread count (`tests/byte_identity.rs`, the 1-vs-N determinism tests, and the
//! serial-versus-split tests in `assemble` and `patch`). Stages with state carried from
//! element to element stay serial: vertex decode (its persistent texcoord/normal), fans,
//! the rectangle detectors, the PPSSPP model's binning and state decoding. A strip's
//! triangles are split once its ring is primed: each is its vertex and the two before.
//!
//! Below [`MIN_PARALLEL`] elements, or with one thread, nothing forks: a rayon fork costs
//! a few microseconds, about what 20–40 triangles of clipping cost (11216: 1 035 patch
//! draws of a few hundred vertices each). That is a fork on a worker of the pool. From a
//! thread outside it (`replay`, the viewer, `Ge::set_threads`) each fork is an `install`:
//! the caller sleeps on a latch and a sleeping worker is woken, two futex round trips and
//! two context switches at least. 11216 (PPSSPP model, `replay` on the 2-thread global
//! pool) made 8 630 context switches a frame that way (1 thread: 128) and used 179 ms of
//! CPU for 108 ms of work (`perf stat`, 5 runs); its patch draws fork three times each.
//! Such a caller splits only from [`MIN_PARALLEL_OUTSIDE`] elements.
//!
//! Measured (callgrind, `replay` with 2 global-pool threads, PPSSPP model): the main
//! thread's share of 11216's instructions went from 52.5% to 25.5% (732 → 340 M of
//! 1 394 → 1 335 M; assembling patches through their index list also stops copying every
//! expanded vertex); 19960 28.6% → 24.4%, 21763 26.8% → 24.4%. What stays on the main
//! thread is led by the dump's decoding (38–84% of it on the five heaviest dumps).

use rayon::prelude::*;

/// Elements (vertices or triangles) a stage needs before it is split, on a worker of the pool.
pub(crate) const MIN_PARALLEL: usize = 128;
/// [`MIN_PARALLEL`] for a caller outside the pool, whose every fork wakes a worker and
/// sleeps until it is done.
pub(crate) const MIN_PARALLEL_OUTSIDE: usize = 2048;
/// Elements per parallel chunk: large enough to amortize a rayon task.
pub(crate) const CHUNK: usize = 64;

/// The pool the front end forks on: the raster pool, or rayon's global pool.
#[derive(Clone, Copy)]
pub(crate) struct Fork<'p> {
    pool: Option<&'p rayon::ThreadPool>,
    /// Split nothing: the pool is drawing a flush behind the front end.
    serial: bool,
    /// Fewest elements worth splitting: [`MIN_PARALLEL`] on a worker of the pool,
    /// [`MIN_PARALLEL_OUTSIDE`] elsewhere.
    min: usize,
}

impl<'p> Fork<'p> {
    pub(crate) fn new(pool: Option<&'p rayon::ThreadPool>) -> Self {
        Fork { pool, serial: false, min: MIN_PARALLEL }
    }

    /// This fork for the calling thread: from outside the pool it splits only from
    /// [`MIN_PARALLEL_OUTSIDE`] elements (each fork there is a cross-thread round trip).
    pub(crate) fn for_caller(self) -> Self {
        let inside = match self.pool {
            Some(p) => p.current_thread_index().is_some(),
            None => rayon::current_thread_index().is_some(),
        };
        Fork { min: if inside { MIN_PARALLEL } else { MIN_PARALLEL_OUTSIDE }, ..self }
    }

    /// This fork, splitting nothing while `raster_pending`: a flush rasterizing behind
    /// the front end holds the pool's workers, and a forked chunk would wait behind its
    /// bands (the front end then stalled for the whole raster: 21763's main thread
    /// waited 88 of the base's 91 ms). The main thread does the work itself meanwhile.
    pub(crate) fn serial_while(self, raster_pending: bool) -> Self {
        Fork { serial: raster_pending, ..self }
    }

    /// Worker threads available.
    fn threads(&self) -> usize {
        match self.pool {
            Some(p) => p.current_num_threads(),
            None => rayon::current_num_threads(),
        }
    }

    /// Whether `n` elements are worth splitting.
    pub(crate) fn splits(&self, n: usize) -> bool {
        !self.serial && n >= self.min && self.threads() > 1
    }

    /// Run `f` on the pool (its parallel iterators then use the pool's threads).
    pub(crate) fn install<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        match self.pool {
            Some(p) => p.install(f),
            None => f(),
        }
    }

    /// `items.map(f)` in order; in parallel when worth it.
    pub(crate) fn map<T: Sync, U: Send>(&self, items: &[T], f: impl Fn(&T) -> U + Sync + Send) -> Vec<U> {
        let mut out = Vec::with_capacity(items.len());
        self.extend(&mut out, items, f);
        out
    }

    /// `out.extend(items.map(f))` in order; in parallel when worth it.
    pub(crate) fn extend<T: Sync, U: Send>(&self, out: &mut Vec<U>, items: &[T], f: impl Fn(&T) -> U + Sync + Send) {
        if self.splits(items.len()) {
            self.install(|| out.par_extend(items.par_iter().with_min_len(CHUNK).map(f)));
        } else {
            out.extend(items.iter().map(f));
        }
    }
}
