//! The front end's share of the raster pool: large draws transform their vertices,
//! tessellate their patches and clip their triangle lists in parallel chunks.
//!
//! Design: every parallel stage is a pure function of its chunk (a vertex, a patch row,
//! a run of independent triangles), results are collected per chunk and joined in chunk
//! order, so the output is the serial output, bit for bit, for any thread count
//! (`tests/byte_identity.rs`, the 1-vs-N determinism tests, and the
//! serial-versus-split tests in `assemble` and `patch`). Stages with state carried from element to
//! element (vertex decode with its persistent texcoord/normal, strip and fan rings,
//! the rectangle detectors, binning) stay serial.
//!
//! Below [`MIN_PARALLEL`] elements, or with one thread, nothing forks: a rayon fork costs
//! a few microseconds, about what 20–40 triangles of clipping cost (measured on 11216:
//! 1 035 patch draws of about 300 vertices and 500 triangles each).

use rayon::prelude::*;

/// Elements (vertices or triangles) a stage needs before it is split.
pub(crate) const MIN_PARALLEL: usize = 128;
/// Elements per parallel chunk: large enough to amortize a rayon task.
pub(crate) const CHUNK: usize = 64;

/// The pool the front end forks on: the raster pool, or rayon's global pool.
#[derive(Clone, Copy)]
pub(crate) struct Fork<'p> {
    pool: Option<&'p rayon::ThreadPool>,
}

impl<'p> Fork<'p> {
    pub(crate) fn new(pool: Option<&'p rayon::ThreadPool>) -> Self {
        Fork { pool }
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
        n >= MIN_PARALLEL && self.threads() > 1
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
