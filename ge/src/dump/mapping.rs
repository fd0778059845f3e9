//! Bookkeeping model of PPSSPP's pushbuf-to-RAM mapping (`BufMapping` in
//! `GPU/Debugger/Playback.cpp`, ppdmp-format.md §5.2 and §6.4).
//!
//! PPSSPP copies 1 MiB windows ("slabs") of the pushbuf into up to 10 RAM blocks recycled
//! least-recently-used, and payloads straddling a window boundary into up to 10 exact-size
//! "extra" blocks recycled round-robin. Whenever a new block must be filled it first syncs
//! the GE (runs everything queued so far). We map the whole pushbuf contiguously instead,
//! so this model only decides *when* those syncs happen and whether PPSSPP's allocation
//! fails (then PPSSPP ignores the record).

const SLAB_SIZE: u32 = 1 << 20;
const SLAB_COUNT: usize = 10;
const EXTRA_COUNT: usize = 10;

/// Result of mapping one payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct MapOutcome {
    /// PPSSPP synced the GE before filling a block.
    pub sync_first: bool,
    /// False when PPSSPP's allocation failed; it then skips the record.
    pub mapped: bool,
}

#[derive(Debug, Clone, Copy, Default)]
struct Slab {
    allocated: bool,
    buf_pointer: u32,
    last_used: i64,
}

#[derive(Debug, Clone, Copy, Default)]
struct Extra {
    allocated: bool,
    buf_pointer: u32,
    size: u32,
}

#[derive(Debug, Default)]
pub(super) struct BufModel {
    slabs: [Slab; SLAB_COUNT],
    extras: [Extra; EXTRA_COUNT],
    last_slab: usize,
    extra_offset: usize,
    generation: i64,
}

impl BufModel {
    fn slab_matches(&self, i: usize, pos: u32) -> bool {
        self.slabs[i].allocated && self.slabs[i].buf_pointer == pos
    }

    fn slab_age(&self, i: usize) -> i64 {
        if self.slabs[i].allocated {
            self.generation - self.slabs[i].last_used
        } else {
            i64::MAX
        }
    }

    /// Map `sz` bytes at pushbuf offset `bufpos` [PP Playback.cpp BufMapping::Map].
    pub fn map(&mut self, bufpos: u32, sz: u32) -> MapOutcome {
        let slab1 = bufpos / SLAB_SIZE;
        // u32 arithmetic like PPSSPP: sz == 0 at a window start wraps to another "slab" and
        // goes the extra route.
        let slab2 = bufpos.wrapping_add(sz).wrapping_sub(1) / SLAB_SIZE;
        if slab1 == slab2 {
            let pos = slab1 * SLAB_SIZE;
            if self.slab_matches(self.last_slab, pos) {
                self.slabs[self.last_slab].last_used = self.generation;
                return MapOutcome { sync_first: false, mapped: true };
            }
            self.map_slab(pos)
        } else {
            self.map_extra(bufpos, sz)
        }
    }

    fn map_slab(&mut self, pos: u32) -> MapOutcome {
        let mut best = 0;
        for i in 0..SLAB_COUNT {
            if self.slab_matches(i, pos) {
                self.slabs[i].last_used = self.generation;
                return MapOutcome { sync_first: false, mapped: true };
            }
            if self.slab_age(i) > self.slab_age(best) {
                best = i;
            }
        }
        // Stall before refilling [PP BufMapping::MapSlab]. guess: the 1 MiB allocation
        // itself never fails (10 slabs + list fit in user RAM).
        self.generation += 1;
        self.slabs[best] = Slab { allocated: true, buf_pointer: pos, last_used: self.generation };
        self.last_slab = best;
        MapOutcome { sync_first: true, mapped: true }
    }

    fn map_extra(&mut self, bufpos: u32, sz: u32) -> MapOutcome {
        if self.extras.iter().any(|e| e.allocated && e.buf_pointer == bufpos && e.size >= sz) {
            return MapOutcome { sync_first: false, mapped: true };
        }
        let i = self.extra_offset;
        self.extra_offset = (self.extra_offset + 1) % EXTRA_COUNT;
        // PPSSPP's block allocator refuses size 0; after a failure it frees every extra
        // block and retries once [PP BufMapping::MapExtra, BlockAllocator::AllocAligned].
        // guess: larger allocations always succeed (user RAM exhaustion is not modelled).
        if sz == 0 {
            self.extras = [Extra::default(); EXTRA_COUNT];
            return MapOutcome { sync_first: true, mapped: false };
        }
        self.extras[i] = Extra { allocated: true, buf_pointer: bufpos, size: sz };
        MapOutcome { sync_first: true, mapped: true }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MB: u32 = 1 << 20;

    #[test]
    fn first_use_of_each_window_syncs_once() {
        let mut m = BufModel::default();
        assert!(m.map(100, 10).sync_first);
        assert!(!m.map(5000, 10).sync_first);
        assert!(m.map(MB + 4, 10).sync_first);
        assert!(!m.map(20, 10).sync_first, "window 0 is still resident");
    }

    #[test]
    fn eleventh_window_evicts_least_recently_used() {
        let mut m = BufModel::default();
        for w in 0..10 {
            assert!(m.map(w * MB, 4).sync_first);
        }
        // Touch window 0 so window 1 becomes the oldest.
        assert!(!m.map(0, 4).sync_first);
        assert!(m.map(10 * MB, 4).sync_first);
        assert!(!m.map(0, 4).sync_first, "window 0 survived");
        assert!(m.map(MB, 4).sync_first, "window 1 was evicted");
    }

    #[test]
    fn straddling_payloads_use_extra_blocks() {
        let mut m = BufModel::default();
        let a = m.map(MB - 8, 16);
        assert_eq!(a, MapOutcome { sync_first: true, mapped: true });
        // Same start, not larger: reused without a sync.
        assert!(!m.map(MB - 8, 12).sync_first);
        // Larger: a new block.
        assert!(m.map(MB - 8, 32).sync_first);
        // Size 0 at a window start wraps into the extra path and fails.
        assert_eq!(m.map(MB, 0), MapOutcome { sync_first: true, mapped: false });
        // ... and freed every extra block.
        assert!(m.map(MB - 8, 12).sync_first);
    }
}
