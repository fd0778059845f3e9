//! PPSSPP's split of binned primitives into worker-thread task ranges.
//!
//! PPSSPP's software renderer queues primitives and, when it drains the queue, cuts the
//! screen into one horizontal (or vertical) strip per worker thread; every primitive is
//! drawn once per strip it touches with its range *intersected with the strip*
//! [PP `BinManager::Drain`]. That intersection is visible:
//! * lines test their (fractional, 1/16-unit) DDA position against the range, so a step
//!   that lands strictly between the last sub-pixel of one strip and the first of the next
//!   belongs to neither and is lost [PP `DrawLine` maskOK];
//! * triangles and rectangles anchor their 2x2 quad grid and their edge-function start at
//!   the range's top-left corner [PP `DrawTriangleSlice`, `DrawRectangle`].
//!
//! The strips depend on the area covered by everything queued since the last flush
//! (`queueRange_`), on when the queue is drained, and on the thread count. This module
//! replays that bookkeeping: [`TaskModel::expand`] after every binned primitive,
//! [`TaskModel::flush`] wherever PPSSPP flushes, including the flush PPSSPP makes before
//! compiling a pixel or sampler function it has not seen yet [PP `PixelJitCache::GetSingle`,
//! `SamplerJitCache` "compile"], which is why [`TaskModel::update_state`] tracks the
//! function keys of [PP `ComputePixelFuncID`] and [PP `ComputeSamplerID`].
//!
//! Worker threads are assumed to finish before the next drain (`waitable_->Empty()`), so
//! every drain recomputes the strips. The references were made with two worker threads:
//! in `b_prim_000003` the only differing row is exactly the strip boundary 2 tasks give.

use std::collections::HashSet;
use std::sync::Arc;

use crate::cmd::op;
use crate::mem::Memory;
use crate::raster::ClipRect;
use crate::regs::Regs;

/// Worker threads of the machine that made the references (`GetNumLooperThreads`).
pub const REFERENCE_TASKS: i32 = 2;

/// PPSSPP `BinManager::QUEUED_PRIMS`: the queue drains when it holds `N - 1` items.
const QUEUED_PRIMS: usize = 2048;

/// Sub-pixel units per pixel (PPSSPP `SCREEN_SCALE_FACTOR`).
const SCALE: i32 = 16;

/// Inclusive range in 1/16-pixel units (PPSSPP `BinCoords`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Sub {
    x1: i32,
    y1: i32,
    x2: i32,
    y2: i32,
}

impl Sub {
    /// A pixel rectangle as PPSSPP's range: `& ~15` on the low side, `| 15` on the high.
    fn from_pixels(r: &ClipRect) -> Sub {
        Sub { x1: r.x0 * SCALE, y1: r.y0 * SCALE, x2: r.x1 * SCALE + SCALE - 1, y2: r.y1 * SCALE + SCALE - 1 }
    }

    /// Back to pixels; task ranges are always whole pixels.
    fn to_pixels(self) -> ClipRect {
        ClipRect {
            x0: self.x1.div_euclid(SCALE),
            y0: self.y1.div_euclid(SCALE),
            x1: (self.x2 + 1).div_euclid(SCALE) - 1,
            y1: (self.y2 + 1).div_euclid(SCALE) - 1,
        }
    }
}

/// The strips of one drain, or `None` when the queue is drawn without splitting.
pub type TaskRects = Option<Arc<[ClipRect]>>;

/// Replica of the `BinManager` fields that decide the task ranges.
pub struct TaskModel {
    max_tasks: i32,
    /// `queueRange_`; `None` is PPSSPP's empty marker (x1 = 0x7FFFFFFF).
    queue_range: Option<Sub>,
    /// `taskRanges_` once `tasksSplit_` is set (cleared by a flush).
    split: Option<Vec<Sub>>,
    /// `taskStatus_`: tasks handed to a worker and not finished. Workers are assumed to
    /// be slower than the submitting thread, so a task stays busy until the flush waits
    /// for it (the references show the strips of the first drain after a flush being
    /// kept through later drains, see the module docs).
    busy: Vec<bool>,
    /// `enqueues_`: tasks handed to worker threads (limits draining on expansion).
    enqueues: i32,
    /// Bounds of the queued primitives not drained yet (PPSSPP `queue_`).
    queued: Vec<ClipRect>,
    /// Pixel and sampler function keys compiled so far.
    compiled: HashSet<(u8, u64)>,
}

impl Default for TaskModel {
    fn default() -> Self {
        TaskModel::new(REFERENCE_TASKS)
    }
}

/// What a drain decided for the queued primitives, oldest first.
pub struct Drained {
    pub count: usize,
    pub tasks: TaskRects,
}

impl TaskModel {
    pub fn new(max_tasks: i32) -> TaskModel {
        let max_tasks = max_tasks.max(1);
        TaskModel {
            max_tasks,
            queue_range: None,
            split: None,
            busy: vec![false; max_tasks as usize],
            enqueues: 0,
            queued: Vec::new(),
            compiled: HashSet::new(),
        }
    }

    /// Register a draw's state [PP `BinManager::UpdateState` → `ComputeRasterizerState`]:
    /// true when PPSSPP would flush first to compile a function it has not seen.
    pub fn update_state(&mut self, regs: &Regs, through: bool) -> bool {
        let mut fresh = self.compiled.insert((0, pixel_func_key(regs, through)));
        if regs.enabled(op::TEXTUREMAPENABLE) && !regs.enabled(op::CLEARMODE) {
            let s = sampler_key(regs) as u64;
            // GetLinearFunc and GetNearestFunc each compile their own variant.
            fresh |= self.compiled.insert((1, s | 1 << 40));
            fresh |= self.compiled.insert((1, s));
        }
        fresh
    }

    /// A primitive with (scissored, non-empty) pixel bounds `r` was queued
    /// [PP `BinManager::Add*` + `Expand`]. Appends the drains this caused to `out`.
    pub fn push(&mut self, r: &ClipRect, out: &mut Vec<Drained>) {
        if self.queued.len() == QUEUED_PRIMS - 1 {
            self.drain(false, out);
        }
        self.queued.push(*r);
        let s = Sub::from_pixels(r);
        let q = match self.queue_range {
            None => s,
            Some(q) => Sub { x1: q.x1.min(s.x1), y1: q.y1.min(s.y1), x2: q.x2.max(s.x2), y2: q.y2.max(s.y2) },
        };
        self.queue_range = Some(q);
        if self.max_tasks == 1 || (q.y2 - q.y1 >= 224 * SCALE && self.enqueues < 36 * self.max_tasks) {
            self.drain(false, out);
        }
    }

    /// [PP `BinManager::Flush`]: drain everything, wait for the workers and forget the
    /// covered area and the strips.
    pub fn flush(&mut self, out: &mut Vec<Drained>) {
        if self.queue_range.is_none() {
            return;
        }
        self.drain(true, out);
        self.queue_range = None;
        self.split = None;
        self.busy.fill(false);
    }

    /// [PP `BinManager::Drain`].
    fn drain(&mut self, flushing: bool, out: &mut Vec<Drained>) {
        let Some(q) = self.queue_range else { return };
        // Strips are (re)computed only while no worker is busy (`waitable_->Empty()`).
        if self.split.is_none() || !self.busy.contains(&true) {
            self.split = Some(self.task_ranges(q));
        }
        let ranges: Vec<ClipRect> = self.split.iter().flatten().map(|s| s.to_pixels()).collect();
        if ranges.len() <= 1 {
            // Drawn on the submitting thread with each primitive's own range.
            if !self.queued.is_empty() {
                out.push(Drained { count: self.queued.len(), tasks: None });
                self.queued.clear();
            }
            return;
        }
        // A non-flushing drain hands over at most half the queue.
        let max = if flushing { QUEUED_PRIMS } else { QUEUED_PRIMS / 2 };
        let n = self.queued.len().min(max);
        if n == 0 {
            return;
        }
        for (i, t) in ranges.iter().enumerate() {
            let used = self.queued[..n].iter().any(|b| !b.intersect(t).is_empty());
            if i >= self.busy.len() {
                self.busy.resize(i + 1, false);
            }
            if used && !self.busy[i] {
                self.busy[i] = true;
                self.enqueues += 1;
            }
        }
        out.push(Drained { count: n, tasks: Some(ranges.into()) });
        self.queued.drain(..n);
    }

    /// The strips for the current queue range [PP `BinManager::Drain` taskRanges_].
    fn task_ranges(&self, q: Sub) -> Vec<Sub> {
        let w2 = (q.x2 - q.x1 + (SCALE * 2 - 1)) / (SCALE * 2);
        let h2 = (q.y2 - q.y1 + (SCALE * 2 - 1)) / (SCALE * 2);
        let (tl, br) = (0, 1024 * SCALE);
        let n = self.max_tasks;
        let mut v = Vec::new();
        if h2 >= 18 && w2 >= h2 * 4 {
            let bin_w = 4.max((w2 + n - 1) / n) * SCALE * 2;
            v.push(Sub { x1: tl, y1: tl, x2: q.x1 + bin_w - 1, y2: br - 1 });
            let mut x = q.x1 + bin_w;
            while x <= q.x2 {
                let x2 = if x + bin_w > q.x2 { br } else { x + bin_w };
                v.push(Sub { x1: x, y1: tl, x2: x2 - 1, y2: br - 1 });
                x += bin_w;
            }
        } else if h2 >= 18 && w2 >= 18 {
            let bin_h = 4.max((h2 + n - 1) / n) * SCALE * 2;
            v.push(Sub { x1: tl, y1: tl, x2: br - 1, y2: q.y1 + bin_h - 1 });
            let mut y = q.y1 + bin_h;
            while y <= q.y2 {
                let y2 = if y + bin_h > q.y2 { br } else { y + bin_h };
                v.push(Sub { x1: tl, y1: y, x2: br - 1, y2: y2 - 1 });
                y += bin_h;
            }
        }
        v
    }
}

/// GEComparison values.
const ALWAYS: u32 = 1;
const NOTEQUAL: u32 = 3;
const LESS: u32 = 4;
const LEQUAL: u32 = 5;
const GREATER: u32 = 6;
const GEQUAL: u32 = 7;

/// [PP FuncId.cpp OptimizeRefByteCompare].
fn optimize_ref_compare(func: u32, r: u32) -> u32 {
    match (func, r) {
        (GREATER, 0) | (LESS, 0xFF) => NOTEQUAL,
        (GEQUAL, 0) | (LEQUAL, 0xFF) => ALWAYS,
        _ => func,
    }
}

/// The hashed part (`fullKey`) of [PP `ComputePixelFuncID`], packed into distinct bits.
pub fn pixel_func_key(regs: &Regs, through: bool) -> u64 {
    let fmt = regs.arg(op::FRAMEBUFPIXFORMAT) & 3;
    let is565 = fmt == 0;
    let color_mask = (regs.arg(op::MASKRGB) & 0xFF_FFFF) | ((regs.arg(op::MASKALPHA) & 0xFF) << 24);
    let ztest = regs.enabled(op::ZTESTENABLE);
    let zfunc = regs.arg(op::ZTEST) & 7;
    let st = regs.arg(op::STENCILTEST);
    let (st_func, st_ref, st_mask) = (st & 7, (st >> 8) & 0xFF, (st >> 16) & 0xFF);
    let sop = regs.arg(op::STENCILOP);
    let (op_sfail, op_zfail, op_zpass) = (sop & 7, (sop >> 8) & 7, (sop >> 16) & 7);
    const KEEP: u32 = 0;
    const ZERO: u32 = 1;
    const REPLACE: u32 = 2;
    const DECR: u32 = 5;

    let clear = regs.enabled(op::CLEARMODE);
    let mut color_test;
    let mut stencil_test;
    let depth_write;
    let depth_func;
    let mut alpha_func = ALWAYS;
    let (mut alpha_ref, mut st_func_k, mut st_ref_k) = (0, 0, 0);
    let (mut has_alpha_mask, mut has_st_mask) = (false, false);
    let (mut sfail, mut zfail, mut zpass) = (0, 0, 0);
    let (mut blend, mut blend_eq, mut blend_src, mut blend_dst) = (false, 0, 0, 0);
    let (mut logic, mut fog, mut early_z) = (false, false, false);
    if clear {
        let cm = regs.arg(op::CLEARMODE);
        color_test = cm & 0x100 != 0;
        stencil_test = cm & 0x200 != 0 && !is565;
        depth_write = cm & 0x400 != 0;
        depth_func = ALWAYS;
    } else {
        let ct_func = regs.arg(op::COLORTEST) & 3;
        color_test = regs.enabled(op::COLORTESTENABLE) && ct_func != ALWAYS;
        if regs.enabled(op::STENCILTESTENABLE) && st_func == ALWAYS {
            let stencil_write = regs.arg(op::MASKALPHA) & 0xFF != 0xFF && !is565;
            stencil_test = if ztest && zfunc != ALWAYS {
                stencil_write && (op_zpass != KEEP || op_zfail != KEEP)
            } else {
                stencil_write && op_zpass != KEEP
            };
        } else {
            stencil_test = regs.enabled(op::STENCILTESTENABLE);
        }
        depth_write = ztest && !regs.enabled(op::ZWRITEDISABLE);
        depth_func = if ztest { zfunc } else { ALWAYS };
        if stencil_test {
            st_ref_k = st_ref & st_mask;
            st_func_k = optimize_ref_compare(st_func, st_ref_k);
            has_st_mask = st_mask != 0xFF && !is565;
            if !is565 && op_sfail <= DECR {
                sfail = op_sfail;
            }
            if !is565 && op_zfail <= DECR {
                zfail = if ztest { op_zfail } else { KEEP };
            }
            if !is565 && op_zpass <= DECR {
                zpass = op_zpass;
            }
            if st_ref == 0 {
                for o in [&mut sfail, &mut zfail, &mut zpass] {
                    if *o == REPLACE {
                        *o = ZERO;
                    }
                }
            }
            if fmt == 1 {
                for o in [&mut sfail, &mut zfail, &mut zpass] {
                    if *o == DECR {
                        *o = ZERO;
                    }
                }
            }
            if st_func_k == ALWAYS {
                if depth_func == ALWAYS {
                    zfail = KEEP;
                }
                sfail = KEEP;
                st_ref_k = st_ref;
                has_st_mask = false;
                if sfail == KEEP && zfail == KEEP && zpass == KEEP {
                    stencil_test = false;
                    st_func_k = 0;
                    st_ref_k = 0;
                }
            } else if depth_func == ALWAYS {
                zfail = zpass;
            }
        }
        let at = regs.arg(op::ALPHATEST);
        alpha_func = if regs.enabled(op::ALPHATESTENABLE) { at & 7 } else { ALWAYS };
        if alpha_func != ALWAYS {
            alpha_ref = ((at >> 8) & 0xFF) & ((at >> 16) & 0xFF);
            has_alpha_mask = (at >> 16) & 0xFF != 0xFF;
            alpha_func = optimize_ref_compare(alpha_func, alpha_ref);
            if alpha_func == ALWAYS {
                alpha_ref = 0;
                has_alpha_mask = false;
            }
        }
        let bm = regs.arg(op::BLENDMODE);
        let (fa, fb, eq) = (bm & 0xF, (bm >> 4) & 0xF, (bm >> 8) & 7);
        let fix_a = regs.arg(op::BLENDFIXEDA) & 0xFF_FFFF;
        let fix_b = regs.arg(op::BLENDFIXEDB) & 0xFF_FFFF;
        blend = regs.enabled(op::ALPHABLENDENABLE) && eq <= 5;
        if blend && eq == 0 && fa == 10 && fix_a == 0xFF_FFFF && fb == 10 && fix_b == 0 {
            blend = false;
        }
        // PixelBlendFactor::FIX = 10, ZERO = 11, ONE = 12.
        let fixed = |c: u32| match c {
            0 => 11,
            0xFF_FFFF => 12,
            _ => 10,
        };
        if blend {
            blend_eq = eq;
        }
        if blend && eq <= 2 {
            blend_src = if fa >= 10 { fixed(fix_a) } else { fa };
            blend_dst = if fb >= 10 { fixed(fix_b) } else { fb };
        }
        if color_test
            && ct_func == NOTEQUAL
            && regs.arg(op::COLORREF) & 0xFF_FFFF == 0
            && regs.arg(op::COLORTESTMASK) & 0xFF_FFFF == 0xFF_FFFF
            && !depth_write
            && !stencil_test
            && blend
            && blend_eq == 0
            && blend_dst == 12
        {
            color_test = false;
        }
        logic = regs.enabled(op::LOGICOPENABLE) && regs.arg(op::LOGICOP) & 0xF != 3;
        fog = regs.enabled(op::FOGENABLE) && !through;
        early_z = depth_func != ALWAYS;
        if stencil_test && early_z && (sfail != KEEP || zfail != KEEP) {
            early_z = false;
        }
    }
    let mut standard_stride = regs.arg(op::FRAMEBUFWIDTH) & 0x7FC == 512;
    if standard_stride && (depth_func != ALWAYS || depth_write) {
        standard_stride = regs.arg(op::ZBUFWIDTH) & 0x7FC == 512;
    }
    let dither = regs.enabled(op::DITHERENABLE);
    let fields: [(u64, u32); 29] = [
        (clear as u64, 1),
        (color_test as u64, 1),
        (stencil_test as u64, 1),
        (depth_write as u64, 1),
        (!through as u64, 1),
        (alpha_func as u64, 3),
        (depth_func as u64, 3),
        (st_func_k as u64, 3),
        (fmt as u64, 2),
        (alpha_ref as u64, 8),
        (st_ref_k as u64, 8),
        (blend as u64, 1),
        (blend_eq as u64, 3),
        (blend_src as u64, 4),
        (blend_dst as u64, 4),
        (has_alpha_mask as u64, 1),
        (has_st_mask as u64, 1),
        (dither as u64, 1),
        (logic as u64, 1),
        (fog as u64, 1),
        (standard_stride as u64, 1),
        ((color_mask != 0) as u64, 1),
        (sfail as u64, 3),
        (zfail as u64, 3),
        (zpass as u64, 3),
        (early_z as u64, 1),
        (0, 0),
        (0, 0),
        (0, 0),
    ];
    let mut key = 0u64;
    let mut shift = 0;
    for (v, bits) in fields {
        key |= (v & ((1u64 << bits) - 1)) << shift;
        shift += bits;
    }
    key
}

/// The hashed part (`fullKey`) of [PP `ComputeSamplerID`] (without the linear/fetch bits).
pub fn sampler_key(regs: &Regs) -> u32 {
    // textureBitsPerPixel and textureAlignMask16 per format.
    const BITS: [u32; 16] = [16, 16, 16, 32, 4, 8, 16, 32, 4, 8, 8, 0, 0, 0, 0, 0];
    let fmt = regs.arg(op::TEXFORMAT) & 0xF;
    let bitspp = BITS[fmt as usize];
    let align = if fmt <= 7 && bitspp > 0 {
        0x7FF & !((128 / bitspp) - 1)
    } else if fmt <= 10 {
        0x7FF
    } else {
        0
    };
    let mip = regs.arg(op::TEXFILTER) & 4 != 0;
    let texmode = regs.arg(op::TEXMODE);
    let max_level = if mip { (texmode >> 16) & 7 } else { 0 };
    let mut standard_bufw = true;
    let mut over_read_safe = true;
    let mut invalid_ptr = false;
    for i in 0..=max_level as u8 {
        let bw_reg = regs.arg(op::TEXBUFWIDTH0 + i);
        let addr = (regs.arg(op::TEXADDR0 + i) & 0xFF_FFF0) | ((bw_reg << 8) & 0x0F00_0000);
        if Memory::locate(addr).is_none() {
            invalid_ptr = true;
        }
        let mut bufw = bw_reg & align;
        if bufw == 0 && fmt <= 10 && bitspp > 0 {
            bufw = 128 / bitspp;
        }
        let size = regs.arg(op::TEXSIZE0 + i);
        let w = 1u32 << (size & 0xF);
        let h = 1u32 << ((size >> 8) & 0xF);
        if bitspp == 0 || w.max(128 / bitspp.max(1)) != bufw {
            standard_bufw = false;
        }
        if fmt >= 8 && w != bufw {
            standard_bufw = false;
        }
        let bytes = h * (bufw * bitspp) / 8;
        if bitspp < 32 && Memory::locate(addr.wrapping_add(bytes + (32 - bitspp) / 8)).is_none() {
            over_read_safe = false;
        }
    }
    let size0 = regs.arg(op::TEXSIZE0);
    let clut = regs.arg(op::CLUTFORMAT);
    let indexed = fmt & 4 != 0;
    let shared_clut = fmt != 4 || max_level == 0 || !mip || texmode & 0x100 == 0;
    let wrap = regs.arg(op::TEXWRAP);
    let tf = regs.arg(op::TEXFUNC);
    let fields: [(u32, u32); 20] = [
        (fmt, 4),
        (if indexed { clut & 3 } else { 0 }, 2),
        (wrap & 1, 1),
        ((wrap >> 8) & 1, 1),
        (texmode & 1, 1),
        (shared_clut as u32, 1),
        ((indexed && (clut >> 8) & 0xFF != 0xFF) as u32, 1),
        ((indexed && (clut >> 2) & 0x1F != 0) as u32, 1),
        ((indexed && (clut >> 16) & 0x1F != 0) as u32, 1),
        (invalid_ptr as u32, 1),
        (over_read_safe as u32, 1),
        (standard_bufw as u32, 1),
        (size0 & 0xF, 4),
        ((size0 >> 8) & 0xF, 4),
        ((tf & 7).min(4), 3),
        ((tf >> 8) & 1, 1),
        ((tf >> 16) & 1, 1),
        ((max_level != 0) as u32, 1),
        (0, 0),
        (0, 0),
    ];
    let mut key = 0u32;
    let mut shift = 0;
    for (v, bits) in fields {
        if bits > 0 {
            key |= (v & ((1 << bits) - 1)) << shift;
        }
        shift += bits;
    }
    key
}

#[cfg(test)]
mod tests {
    use super::*;

    fn px(x0: i32, y0: i32, x1: i32, y1: i32) -> ClipRect {
        ClipRect { x0, y0, x1, y1 }
    }

    /// Two tasks over rows 3..=271: h2 = (4351 - 48 + 31) / 32 = 135, bin_h =
    /// max(4, 68) · 32 = 2176 sub-pixels = 136 rows, so the strips meet at row 3 + 136 = 139.
    #[test]
    fn two_task_strips_start_at_queue_top() {
        let mut m = TaskModel::new(2);
        let mut out = Vec::new();
        m.push(&px(10, 3, 400, 271), &mut out);
        assert_eq!(out.len(), 1);
        let t = out[0].tasks.as_ref().expect("split");
        assert_eq!(&t[..], &[px(0, 0, 1023, 138), px(0, 139, 1023, 1023)]);
    }

    /// Once a worker holds a strip, later drains keep the strips of the first one until
    /// the flush: rows 3..=271 give the boundary at 139 (above); a later primitive reaching
    /// row 0 would move it to 136 if recomputed.
    #[test]
    fn strips_kept_while_workers_busy() {
        let mut m = TaskModel::new(2);
        let mut out = Vec::new();
        m.push(&px(10, 3, 400, 271), &mut out);
        m.push(&px(10, 0, 20, 10), &mut out);
        assert_eq!(out.len(), 2);
        let t = out[1].tasks.as_ref().expect("split");
        assert_eq!(t[1].y0, 139);
        // After the flush the strips are recomputed: rows 0..=271 → h2 = 136, 68 · 2 rows.
        m.flush(&mut out);
        out.clear();
        m.push(&px(10, 0, 400, 271), &mut out);
        assert_eq!(out[0].tasks.as_ref().expect("split")[1].y0, 136);
    }

    /// Pixel functions differing only in blending are two compilations (two flushes);
    /// the same state again is none [PP `ComputePixelFuncID`].
    #[test]
    fn new_pixel_function_requests_flush() {
        let mut regs = Regs::default();
        let mut m = TaskModel::new(2);
        assert!(m.update_state(&regs, true));
        assert!(!m.update_state(&regs, true));
        regs.set(op::ALPHABLENDENABLE, 1);
        assert!(m.update_state(&regs, true));
        // Through mode is part of the key (applyDepthRange).
        assert!(m.update_state(&regs, false));
        // Blend fixed-A 0xFFFFFF with fixed-B 0 is "no blending": the first key again.
        regs.set(op::BLENDMODE, 10 | 10 << 4);
        regs.set(op::BLENDFIXEDA, 0xFF_FFFF);
        assert!(!m.update_state(&regs, true));
    }

    /// Below 224 rows nothing drains until the flush; a 20-row queue range is not split
    /// (h2 = 10 < 18), and a wide one is cut into columns (w2 ≥ 4·h2).
    #[test]
    fn small_and_wide_ranges() {
        let mut m = TaskModel::new(2);
        let mut out = Vec::new();
        m.push(&px(0, 0, 100, 19), &mut out);
        assert!(out.is_empty());
        m.flush(&mut out);
        assert_eq!(out.len(), 1);
        assert!(out[0].tasks.is_none());
        out.clear();
        // Rows 0..=39 (h2 = 20), columns 0..=199 (w2 = 100 ≥ 80): bin_w = 50 · 32 = 100 px.
        m.push(&px(0, 0, 199, 39), &mut out);
        m.flush(&mut out);
        let t = out[0].tasks.as_ref().expect("split");
        assert_eq!(&t[..], &[px(0, 0, 99, 1023), px(100, 0, 1023, 1023)]);
    }
}
