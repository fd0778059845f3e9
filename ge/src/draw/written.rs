//! The VRAM bytes binned draws may write, so the hardware model rasterizes the bins
//! before a draw textures from them (the GE draws in order; binning only defers).
//!
//! Kept as a few folded intervals rather than one: a single interval had to become "all of
//! VRAM" whenever a buffer's rows ran past the end of VRAM (a 480x272 5650 buffer at
//! 0x041BC000 with the 1024-pixel row slack does), and then every VRAM-textured draw
//! flushed. On 6531 frontier-gate that was 1 760 flushes against the PPSSPP model's 42.

use super::DrawState;
use crate::bin::FbTarget;
use crate::raster::ClipRect;

/// Intervals kept apart before they are merged.
const SPANS: usize = 4;

/// VRAM bytes the binned draws may write (colour and depth rows under their scissor,
/// widened to whole 1024-pixel rows), as up to [`SPANS`] intervals `[lo, hi)` of folded
/// VRAM addresses; rows that run past the end of VRAM continue at its start (the mirror).
/// A draw texturing from these bytes must see them written, so the bins are rasterized
/// first. Always a superset of what is written.
#[derive(Clone, Copy, Default)]
pub(crate) struct WrittenSpan {
    spans: [(u32, u32); SPANS],
    len: usize,
}

const VRAM_START: u32 = 0x0400_0000;
const VRAM_END: u32 = 0x0420_0000;
const VRAM_SIZE: u64 = (VRAM_END - VRAM_START) as u64;

impl WrittenSpan {
    fn add_rows(&mut self, base: u32, stride_bytes: u32, bpp: u32, r: &ClipRect) {
        let lo = u64::from(base) + r.y0.max(0) as u64 * u64::from(stride_bytes);
        let hi = u64::from(base) + (r.y1.max(0) as u64 + 1) * u64::from(stride_bytes) + 1024 * u64::from(bpp);
        if hi - lo >= VRAM_SIZE || lo >= u64::from(VRAM_END) {
            self.add(VRAM_START, VRAM_END);
        } else if hi > u64::from(VRAM_END) {
            self.add(lo as u32, VRAM_END);
            self.add(VRAM_START, (hi - VRAM_SIZE) as u32);
        } else {
            self.add(lo as u32, hi as u32);
        }
    }

    /// Add `[lo, hi)`: merged into an overlapping or touching interval, else kept apart,
    /// else (all slots used) merged into the nearest.
    fn add(&mut self, lo: u32, hi: u32) {
        let touches = |&(a, b): &(u32, u32)| lo <= b && a <= hi;
        let dist = |&(a, b): &(u32, u32)| if hi < a { a - hi } else { lo.saturating_sub(b) };
        let i = match self.spans[..self.len].iter().position(touches) {
            Some(i) => i,
            None if self.len < SPANS => {
                self.spans[self.len] = (lo, hi);
                self.len += 1;
                return;
            }
            None => (0..SPANS).min_by_key(|&i| dist(&self.spans[i])).unwrap_or(0),
        };
        let (a, b) = self.spans[i];
        self.spans[i] = (a.min(lo), b.max(hi));
        // The widened interval may now touch others: merge every touching pair.
        self.spans[..self.len].sort_unstable();
        let mut n = 0;
        for k in 0..self.len {
            let (a, b) = self.spans[k];
            if n > 0 && a <= self.spans[n - 1].1 {
                self.spans[n - 1].1 = self.spans[n - 1].1.max(b);
            } else {
                self.spans[n] = (a, b);
                n += 1;
            }
        }
        self.len = n;
    }

    /// A draw under `st` into `fb` was binned.
    pub(crate) fn add_draw(&mut self, st: &DrawState, fb: &FbTarget) {
        let bpp = fb.fmt.bpp();
        self.add_rows(fb.color_addr & 0x041F_FFFF, fb.stride * bpp, bpp, &st.scissor);
        if st.pixel.depth_write {
            self.add_rows(fb.depth_addr & 0x041F_FFFF, fb.zstride * 2, 2, &st.scissor);
        }
    }

    /// `[start, end)` (folded, `end` may pass the end of VRAM) meets a written byte.
    fn hits(&self, start: u64, end: u64) -> bool {
        let hit =
            |a: u64, b: u64| self.spans[..self.len].iter().any(|&(lo, hi)| a < u64::from(hi) && b > u64::from(lo));
        hit(start, end) || (end > u64::from(VRAM_END) && hit(u64::from(VRAM_START), end - VRAM_SIZE))
    }

    /// Some texture level of `st` reads a written byte (VRAM mirrors folded).
    pub(crate) fn textured_by(&self, st: &DrawState) -> bool {
        let Some(t) = &st.texture else { return false };
        if self.len == 0 {
            return false;
        }
        let bits = t.format.bits_per_texel();
        t.levels[..=t.max_level as usize].iter().any(|l| {
            if l.addr & 0x3F80_0000 != VRAM_START {
                return false;
            }
            let start = u64::from(l.addr & 0x041F_FFFF);
            let len = u64::from(l.bufw * bits / 8) * u64::from(l.height.max(1)) + u64::from(l.width * bits / 8);
            self.hits(start, start + len)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(y0: i32, y1: i32) -> ClipRect {
        ClipRect { x0: 0, y0, x1: 479, y1 }
    }

    #[test]
    fn rows_past_the_end_of_vram_wrap_to_its_start() {
        // 480x272 5650 at 0x041BC000: row 271 ends at the end of VRAM, the slack runs on.
        let mut w = WrittenSpan::default();
        w.add_rows(0x041B_C000, 1024, 2, &rows(0, 271));
        assert!(w.hits(0x041B_C000, 0x041B_C001));
        assert!(w.hits(0x041F_FFFF, 0x0420_0000));
        assert!(w.hits(0x0400_0000, 0x0400_0001));
        assert!(w.hits(0x0400_07FF, 0x0400_0800));
        assert!(!w.hits(0x0400_0800, 0x041B_C000), "the bytes in between are not written");
        assert!(!w.hits(0x0405_4AF0, 0x0405_8AF0));
    }

    #[test]
    fn colour_and_depth_stay_apart_and_touching_intervals_merge() {
        let mut w = WrittenSpan::default();
        w.add_rows(0x0400_0000, 1024, 2, &rows(0, 271));
        w.add_rows(0x0408_8000, 1024, 2, &rows(0, 271));
        assert!(!w.hits(0x0404_4800, 0x0408_8000));
        assert!(w.hits(0x0408_8000, 0x0408_8001));
        // A third buffer bridging the gap merges all three.
        w.add_rows(0x0404_4000, 1024, 2, &rows(0, 271));
        assert!(w.hits(0x0404_4800, 0x0408_8000));
        assert_eq!(w.len, 1);
    }

    #[test]
    fn more_intervals_than_slots_stay_a_superset() {
        let mut w = WrittenSpan::default();
        let bases: Vec<u32> = (0..9).map(|i| 0x0400_0000 + i * 0x3_0000).collect();
        for &b in &bases {
            w.add_rows(b, 64, 2, &rows(0, 1));
        }
        assert!(w.len <= SPANS);
        for &b in &bases {
            assert!(w.hits(u64::from(b), u64::from(b) + 1), "{b:#x}");
        }
    }

    #[test]
    fn a_whole_vram_range_covers_everything() {
        let mut w = WrittenSpan::default();
        w.add_rows(0x0400_0000, 0x2_0000, 2, &rows(0, 271));
        assert!(w.hits(0x041F_FFFF, 0x0420_0000));
        assert!(w.hits(0x0400_0000, 0x0400_0001));
    }
}
