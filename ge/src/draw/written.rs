//! The VRAM bytes binned draws may write, so the hardware model rasterizes the bins
//! before a draw textures from them (the GE draws in order; binning only defers).

use super::DrawState;
use crate::bin::FbTarget;
use crate::raster::ClipRect;

/// VRAM bytes the binned draws may write (colour and depth rows under their scissor,
/// widened to whole 1024-pixel rows; everything when a range runs past VRAM). A draw
/// texturing from these bytes must see them written, so the bins are rasterized first.
#[derive(Clone, Copy, Default)]
pub(crate) struct WrittenSpan {
    /// `[lo, hi)` in folded VRAM addresses; empty when `lo >= hi`.
    lo: u32,
    hi: u32,
}

const VRAM_START: u32 = 0x0400_0000;
const VRAM_END: u32 = 0x0420_0000;

impl WrittenSpan {
    fn add_rows(&mut self, base: u32, stride_bytes: u32, bpp: u32, r: &ClipRect) {
        let lo = u64::from(base) + r.y0.max(0) as u64 * u64::from(stride_bytes);
        let hi = u64::from(base) + (r.y1.max(0) as u64 + 1) * u64::from(stride_bytes) + 1024 * u64::from(bpp);
        let (lo, hi) = if hi > u64::from(VRAM_END) { (VRAM_START, VRAM_END) } else { (lo as u32, hi as u32) };
        if self.lo >= self.hi {
            (self.lo, self.hi) = (lo, hi);
        } else {
            (self.lo, self.hi) = (self.lo.min(lo), self.hi.max(hi));
        }
    }

    /// A draw under `st` into `fb` was binned.
    pub(crate) fn add(&mut self, st: &DrawState, fb: &FbTarget) {
        let bpp = fb.fmt.bpp();
        self.add_rows(fb.color_addr & 0x041F_FFFF, fb.stride * bpp, bpp, &st.scissor);
        if st.pixel.depth_write {
            self.add_rows(fb.depth_addr & 0x041F_FFFF, fb.zstride * 2, 2, &st.scissor);
        }
    }

    /// Some texture level of `st` reads a written byte (VRAM mirrors folded).
    pub(crate) fn textured_by(&self, st: &DrawState) -> bool {
        let Some(t) = &st.texture else { return false };
        if self.lo >= self.hi {
            return false;
        }
        let bits = t.format.bits_per_texel();
        t.levels[..=t.max_level as usize].iter().any(|l| {
            if l.addr & 0x3F80_0000 != VRAM_START {
                return false;
            }
            let start = u64::from(l.addr & 0x041F_FFFF);
            let len = u64::from(l.bufw * bits / 8) * u64::from(l.height.max(1)) + u64::from(l.width * bits / 8);
            let end = start + len;
            let hit = |a: u64, b: u64| a < u64::from(self.hi) && b > u64::from(self.lo);
            hit(start, end) || (end > u64::from(VRAM_END) && hit(u64::from(VRAM_START), end - 0x20_0000))
        })
    }
}
