//! PPSSPP's bin queue [PP `BinManager`]: what is queued, when it drains, and what each
//! drain decides for the primitives it hands over.
//!
//! PPSSPP queues every primitive with the index of its rasterizer state and drains the
//! queue (hands its items over to be drawn) in exactly three places:
//! * a primitive is added to a full queue (2047 items) [PP `BinManager::Add*`];
//! * after every primitive, once the area queued since the last flush (`queueRange_`)
//!   spans 224 rows, while fewer than 36 tasks per thread were enqueued [PP `Expand`];
//! * every flush [PP `BinManager::Flush`]: ours ([`crate::Ge::flush`]: framebuffer changes,
//!   transfers, list ends; draw-type changes [PP `GPUCommon::SetDrawType`]) and the one
//!   PPSSPP makes before compiling a pixel or sampler function it has not seen
//!   [PP `PixelJitCache::GetSingle`, `SamplerJitCache` "compile"], which is why
//!   [`BinQueue::update_state`] tracks the function keys of `funcid`, and the texture
//!   flushes below. Flushes on a full state (4096) or CLUT (512) queue are not modelled:
//!   no dump comes near (at most 984 states and 200 changed CLUTs per flush).
//!
//! Each drain [PP `BinManager::Drain`] decides two things for the items it hands over:
//! * Worker strips. The screen is cut into one horizontal (or vertical) strip per worker
//!   thread, and every primitive is drawn once per strip it touches with its range
//!   *intersected with the strip*. That intersection is visible: lines test their
//!   (fractional, 1/16-unit) DDA position against the range, so a step that lands strictly
//!   between the last sub-pixel of one strip and the first of the next belongs to neither
//!   and is lost [PP `DrawLine` maskOK]; triangles and rectangles anchor their 2x2 quad
//!   grid and their edge-function start at the range's top-left corner
//!   [PP `DrawTriangleSlice`, `DrawRectangle`].
//! * State optimizations. Every state made current since the previous drain, the current
//!   one included, is re-optimized from the vertex facts its queued primitives added
//!   [PP `OptimizePendingStates`] (`optimize`); the items are drawn with the result.
//!
//! Worker threads are assumed to be slower than the submitting thread: a task stays busy
//! until the flush waits for it, so the strips of the first split drain after a flush are
//! kept through later drains (`waitable_->Empty()` is false). The references were made
//! with two worker threads: in `b_prim_000003` the only differing row is exactly the strip
//! boundary 2 tasks give.
//!
//! Texturing from what queued draws write ("self-render") flushes first and drops to one
//! task, which makes every later primitive flush [PP `BinManager::UpdateState` "tex",
//! "selfrender", "selfdepth"; `Expand` "expand"]; [`BinQueue::update_binner`] checks this
//! on every PRIM (PPSSPP: when a binner-dirty register changed, or always while an overlap
//! is pending). Not modelled: the 1:1 self-copy exception [PP `IsExactSelfRender`].

use std::collections::HashSet;
use std::sync::Arc;

use super::fix::{PrimFix, TaskRects};
use super::funcid::{pixel_func_key, sampler_key};
use super::optimize;
use crate::bin::{Binner, FbTarget};
use crate::cmd::op;
use crate::draw::binned::{BinnedPrim, DrawState, Shape};
use crate::geom::ScreenVertex;
use crate::raster::ClipRect;
use crate::regs::Regs;
use crate::tile::FbFormat;

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

/// Replica of the `BinManager` fields that decide drains, strips and optimizations. The
/// primitives themselves are in the draw path's binner (every primitive binned since the
/// last rasterization, drained or not), which the methods that drain take.
pub struct BinQueue {
    max_tasks: i32,
    /// `queueRange_`; `None` is PPSSPP's empty marker (x1 = 0x7FFFFFFF).
    queue_range: Option<Sub>,
    /// `taskRanges_` once `tasksSplit_` is set (cleared by a flush).
    split: Option<Vec<Sub>>,
    /// `split` in pixels as the drained primitives carry it (`None` unless two or more
    /// strips), shared by every drain until the strips change: 19960 drains after nearly
    /// every primitive (22 700 drains), and building these per drain cost about 500
    /// instructions in allocations alone.
    tasks: TaskRects,
    /// The previous `split`'s buffer, reused to compute the next.
    spare: Vec<Sub>,
    /// `taskStatus_`: tasks handed to a worker and not finished (busy until the flush).
    busy: Vec<bool>,
    /// `enqueues_`: tasks handed to worker threads (limits draining on expansion).
    enqueues: i32,
    /// Bounds of the queued primitives (PPSSPP `queue_`): the binner's last items.
    queued: Vec<ClipRect>,
    /// States made current since the last drain, the current one last
    /// (`pendingStateIndex_` ..= `stateIndex_`).
    pending: Vec<Arc<DrawState>>,
    /// Pixel and sampler function keys compiled so far.
    compiled: HashSet<(u8, u64)>,
    /// Worker threads (`GetNumLooperThreads`); `max_tasks` drops to 1 while self-rendering.
    threads: i32,
    /// States since the last flush (PPSSPP `states_`, for the "selfdepth" check).
    states: Vec<Arc<DrawState>>,
    /// `pendingWrites_`: colour and depth bytes the queued draws may write.
    writes: [DirtyRange; 2],
    /// The same for everything binned since [`crate::Ge::flush`] last rasterized
    /// (not cleared by PPSSPP's flushes, which we rasterize only when texturing needs it).
    pub unrasterized: [DirtyRange; 2],
    /// `pendingOverlap_`: a queued draw textures from a pending write.
    overlap: bool,
    /// `IsTrianglePrim(lastPrim_)` of [PP `GPUCommon::SetDrawType`] (starts as
    /// GE_PRIM_INVALID: not a triangle type).
    pub last_triangle_class: bool,
}

impl Default for BinQueue {
    fn default() -> Self {
        BinQueue::new(REFERENCE_TASKS)
    }
}

impl BinQueue {
    pub fn new(max_tasks: i32) -> BinQueue {
        let max_tasks = max_tasks.max(1);
        BinQueue {
            max_tasks,
            threads: max_tasks,
            states: Vec::new(),
            writes: [DirtyRange::default(); 2],
            unrasterized: [DirtyRange::default(); 2],
            overlap: false,
            queue_range: None,
            split: None,
            tasks: None,
            spare: Vec::new(),
            busy: vec![false; max_tasks as usize],
            enqueues: 0,
            queued: Vec::new(),
            pending: Vec::new(),
            compiled: HashSet::new(),
            last_triangle_class: false,
        }
    }

    /// Register a draw's state [PP `BinManager::UpdateState` → `ComputeRasterizerState`]:
    /// true when PPSSPP would flush first to compile a function it has not seen.
    pub fn update_state(&mut self, regs: &Regs, through: bool) -> bool {
        let mut fresh = self.compiled.insert((0, pixel_func_key(regs, through)));
        if regs.enabled(op::TEXTUREMAPENABLE) && regs.clear_mode().is_none() {
            let s = sampler_key(regs) as u64;
            // GetLinearFunc and GetNearestFunc each compile their own variant.
            fresh |= self.compiled.insert((1, s | 1 << 40));
            fresh |= self.compiled.insert((1, s));
        }
        fresh
    }

    /// A new PPSSPP rasterizer state became current (`stateIndex_` moved on).
    pub fn state_created(&mut self, st: &Arc<DrawState>) {
        self.pending.push(st.clone());
        self.states.push(st.clone());
    }

    /// The binner half of [PP `BinManager::UpdateState`] for a PRIM drawing `st` into
    /// `fb`: flush before texturing from a pending write, record this draw's writes, and
    /// use one task while self-rendering. True when the binner must be rasterized before
    /// this draw: it textures from memory that binned draws write.
    pub fn update_binner(&mut self, binner: &mut Binner<BinnedPrim>, st: &DrawState, fb: &FbTarget) -> bool {
        let had_depth = self.writes[1].base != 0;
        let must_rasterize = texture_write(&self.unrasterized, st);
        if texture_write(&self.writes, st) {
            self.flush(binner);
        }
        let (s, bpp) = (&st.scissor, if fb.fmt == FbFormat::Rgba8888 { 4 } else { 2 });
        for w in [&mut self.writes, &mut self.unrasterized] {
            w[0].expand(fb.color_addr & 0x041F_FFFF, bpp, fb.stride, s);
            if st.pixel.depth_write {
                w[1].expand(fb.depth_addr & 0x041F_FFFF, 2, fb.zstride, s);
            }
        }
        let self_render = texture_write(&self.writes, st);
        let max_tasks = if self_render { 1 } else { self.threads };
        if max_tasks != self.max_tasks {
            self.max_tasks = max_tasks;
            self.flush(binner);
        }
        self.overlap |= self_render;
        if !had_depth && st.pixel.depth_write && self.states.iter().any(|s| texture_write(&self.writes, s)) {
            self.flush(binner);
        }
        must_rasterize
    }

    /// Queue a primitive with (scissored, non-empty) pixel bounds `r`
    /// [PP `BinManager::Add*`: drain a full queue, push, `CalculateRasterStateFlags`,
    /// `Expand`]. The shape is read in place and copied once, into the binner.
    pub fn push(&mut self, binner: &mut Binner<BinnedPrim>, r: ClipRect, state: Arc<DrawState>, shape: &Shape) {
        if self.queued.len() == QUEUED_PRIMS - 1 {
            self.drain(binner, false);
        }
        if let Some(d) = &state.ppsspp {
            d.opt_cell.add(shape_flags(shape, d.opt_in.shade_gouraud));
        }
        binner.push(r, BinnedPrim { state, shape: *shape, fix: PrimFix::default() });
        self.queued.push(r);
        let s = Sub::from_pixels(&r);
        let q = match self.queue_range {
            None => s,
            Some(q) => Sub { x1: q.x1.min(s.x1), y1: q.y1.min(s.y1), x2: q.x2.max(s.x2), y2: q.y2.max(s.y2) },
        };
        self.queue_range = Some(q);
        if self.max_tasks == 1 || (q.y2 - q.y1 >= 224 * SCALE && self.enqueues < 36 * self.max_tasks) {
            if self.overlap {
                self.flush(binner);
            } else {
                self.drain(binner, false);
            }
        }
    }

    /// [PP `BinManager::Flush`]: drain everything, wait for the workers and forget the
    /// covered area and the strips.
    pub fn flush(&mut self, binner: &mut Binner<BinnedPrim>) {
        if self.queue_range.is_none() {
            return;
        }
        self.drain(binner, true);
        self.queue_range = None;
        if let Some(split) = self.split.take() {
            self.spare = split;
        }
        self.busy.fill(false);
        let cur = self.states.pop();
        self.states.clear();
        self.states.extend(cur);
        self.writes = [DirtyRange::default(); 2];
        self.overlap = false;
    }

    /// [PP `BinManager::Drain`]: fix the strips and the optimization of the items handed
    /// over (the oldest queued ones).
    fn drain(&mut self, binner: &mut Binner<BinnedPrim>, flushing: bool) {
        let Some(q) = self.queue_range else { return };
        // Strips are (re)computed only while no worker is busy (`waitable_->Empty()`).
        if self.split.is_none() || !self.busy.contains(&true) {
            let mut next = std::mem::take(&mut self.spare);
            self.task_ranges(q, &mut next);
            if self.split.as_ref() == Some(&next) {
                self.spare = next;
            } else {
                self.tasks = (next.len() > 1).then(|| next.iter().map(|s| s.to_pixels()).collect());
                self.spare = self.split.replace(next).unwrap_or_default();
            }
        }
        // [PP `OptimizePendingStates`]; a state spans several entries when only our
        // snapshot changed.
        let mut last: Option<*const optimize::OptCell> = None;
        for d in self.pending.iter().filter_map(|st| st.ppsspp.as_ref()) {
            let cell = Arc::as_ptr(&d.opt_cell);
            if last != Some(cell) {
                d.opt_cell.optimize(&d.opt_in);
                last = Some(cell);
            }
        }
        let cur = self.pending.pop();
        self.pending.clear();
        self.pending.extend(cur);
        // Unsplit, the submitting thread draws the whole queue with each primitive's own
        // range; split, a non-flushing drain hands over at most half the queue.
        let n = match &self.tasks {
            None => self.queued.len(),
            Some(_) if flushing => self.queued.len().min(QUEUED_PRIMS),
            Some(_) => self.queued.len().min(QUEUED_PRIMS / 2),
        };
        let tasks = &self.tasks;
        for (i, t) in tasks.iter().flat_map(|t| t.iter()).enumerate() {
            let used = self.queued[..n].iter().any(|b| !b.intersect(t).is_empty());
            if i >= self.busy.len() {
                self.busy.resize(i + 1, false);
            }
            if used && !self.busy[i] {
                self.busy[i] = true;
                self.enqueues += 1;
            }
        }
        let first = binner.len() - self.queued.len();
        for p in binner.prims_mut(first).take(n) {
            p.fix = PrimFix { strips: tasks.clone(), opt: prim_opt(p) };
        }
        self.queued.drain(..n);
    }

    /// The strips for the current queue range [PP `BinManager::Drain` taskRanges_], into `v`.
    fn task_ranges(&self, q: Sub, v: &mut Vec<Sub>) {
        let w2 = (q.x2 - q.x1 + (SCALE * 2 - 1)) / (SCALE * 2);
        let h2 = (q.y2 - q.y1 + (SCALE * 2 - 1)) / (SCALE * 2);
        let (tl, br) = (0, 1024 * SCALE);
        let n = self.max_tasks;
        v.clear();
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
    }
}

/// The flags `BinManager::Add*` contributes for one binned shape: the colours of the
/// vertices [`flag_vertices`] names, the fog of every vertex.
fn shape_flags(shape: &Shape, gouraud: bool) -> u32 {
    let (v, from) = flag_vertices(shape, gouraud);
    optimize::vertices_flags(v, from)
}

/// The vertices `CalculateRasterStateFlags` reads for `shape`, and the first of them whose
/// colour it reads: all of a Gouraud triangle or line, the last of a flat one, a
/// rectangle's second (which `DrawRectangle`'s flat re-optimization reads too), a point's
/// own. Fog is read from every one.
pub(super) fn flag_vertices(shape: &Shape, gouraud: bool) -> (&[ScreenVertex], usize) {
    let from = |n: usize| if gouraud { 0 } else { n };
    match shape {
        Shape::Triangle(v) => (v, from(2)),
        Shape::Rectangle(v) | Shape::Sprite(v) | Shape::ClearRect(v) => (v, 1),
        Shape::Line(v) => (v, from(1)),
        Shape::Point(v) => (std::slice::from_ref(v), 0),
    }
}

/// [`shape_flags`] as one [`optimize::vertex_flags`] per vertex (the plain rule, tests).
#[cfg(test)]
fn shape_flags_plain(shape: &Shape, gouraud: bool) -> u32 {
    match shape {
        Shape::Triangle(v) => {
            optimize::vertex_flags(&v[0], gouraud)
                | optimize::vertex_flags(&v[1], gouraud)
                | optimize::vertex_flags(&v[2], true)
        }
        Shape::Rectangle(v) | Shape::Sprite(v) | Shape::ClearRect(v) => {
            optimize::vertex_flags(&v[0], false) | optimize::vertex_flags(&v[1], true)
        }
        Shape::Line(v) => optimize::vertex_flags(&v[0], gouraud) | optimize::vertex_flags(&v[1], true),
        Shape::Point(v) => optimize::vertex_flags(v, true),
    }
}

/// The optimization a binned primitive is drawn with, given its state's current one.
fn prim_opt(p: &BinnedPrim) -> u32 {
    let Some(d) = &p.state.ppsspp else { return 0 };
    let applied = d.opt_cell.applied();
    match &p.shape {
        Shape::Rectangle(v) => optimize::rect_opt(&d.opt_in, applied, &v[1]),
        _ => applied,
    }
}

/// [PP `HasTextureWrite`]: some level of `st`'s texture overlaps a range of `writes`.
fn texture_write(writes: &[DirtyRange; 2], st: &DrawState) -> bool {
    let Some(t) = &st.texture else { return false };
    let bits = t.format.bits_per_texel();
    t.levels[..=t.max_level as usize].iter().any(|l| {
        let (stride, w) = (l.bufw * bits / 8, l.width * bits / 8);
        // Only VRAM is ever written; mirrors are folded.
        (l.addr & 0x3F80_0000) == 0x0400_0000
            && writes.iter().any(|r| r.overlaps(l.addr & 0x041F_FFFF, stride, w, l.height))
    })
}

/// PPSSPP `BinDirtyRange`: a byte range of rows (`base` 0: empty).
#[derive(Clone, Copy, Default)]
pub struct DirtyRange {
    base: u32,
    stride: u32,
    width: u32,
    height: u32,
}

impl DirtyRange {
    /// [PP `BinDirtyRange::Expand`] by the scissor rectangle `s` of a buffer at `base`
    /// (unsigned arithmetic as PPSSPP's, wrapping included).
    fn expand(&mut self, base: u32, bpp: u32, stride: u32, s: &ClipRect) {
        let (x0, y0) = (s.x0 as u32, s.y0 as u32);
        let w = (s.x1 as u32).wrapping_sub(x0).wrapping_add(1);
        let h = (s.y1 as u32).wrapping_sub(y0).wrapping_add(1);
        let new = base.wrapping_add(y0.wrapping_mul(stride * bpp)).wrapping_add(x0 * bpp);
        if self.base == 0 {
            *self = DirtyRange { base: new, stride: stride * bpp, width: w.wrapping_mul(bpp), height: h };
            return;
        }
        self.height = self.height.max(h);
        if self.base == new && self.stride == stride * bpp {
            self.width = self.width.max(w.wrapping_mul(bpp));
            return;
        }
        if stride != 0 {
            let rows = (self.base.wrapping_sub(new)) / (stride * bpp);
            self.height = self.height.wrapping_add(rows);
        }
        self.base = self.base.min(new);
        self.stride = self.stride.max(stride * bpp);
        self.width = self.stride;
    }

    /// [PP `HasPendingWrite`] for one range: `h` rows of `w` bytes, `stride` apart.
    fn overlaps(&self, start: u32, stride: u32, w: u32, h: u32) -> bool {
        if self.base == 0 || self.stride == 0 {
            return false;
        }
        let size = stride.wrapping_mul(h.wrapping_sub(1)).wrapping_add(w);
        if start >= self.base.wrapping_add(self.height.wrapping_mul(self.stride))
            || start.wrapping_add(size) <= self.base
        {
            return false;
        }
        let mut row = start;
        for _ in 0..h {
            let offset = row.wrapping_sub(self.base) as i32;
            let (y, x) = (offset / self.stride as i32, (offset % self.stride as i32) as u32);
            if y >= 0 && (y as u32) < self.height && (x < self.width || x.wrapping_add(w) >= self.stride) {
                return true;
            }
            row = row.wrapping_add(stride);
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geom::ScreenVertex;

    fn px(x0: i32, y0: i32, x1: i32, y1: i32) -> ClipRect {
        ClipRect { x0, y0, x1, y1 }
    }

    /// A queue, its binner and one state.
    struct Q {
        q: BinQueue,
        binner: Binner<BinnedPrim>,
        st: Arc<DrawState>,
    }

    impl Q {
        fn new(regs: &Regs) -> Q {
            let st = Arc::new(super::super::test_state(regs, true));
            let mut q = BinQueue::new(2);
            q.state_created(&st);
            Q { q, binner: Binner::new(16), st }
        }

        fn push(&mut self, r: ClipRect, alpha: u8) {
            let v = ScreenVertex { color0: [255, 255, 255, alpha], ..Default::default() };
            self.q.push(&mut self.binner, r, self.st.clone(), &Shape::Point(v));
        }

        fn flush(&mut self) {
            self.q.flush(&mut self.binner);
        }

        fn update_binner(&mut self, st: &DrawState, fb: &FbTarget) -> bool {
            self.q.update_binner(&mut self.binner, st, fb)
        }

        fn prim(&mut self, i: usize) -> (TaskRects, u32) {
            let p = self.binner.prims_mut(i).next().expect("binned");
            (p.fix.strips.clone(), p.fix.opt)
        }
    }

    /// Two tasks over rows 3..=271: h2 = (4351 - 48 + 31) / 32 = 135, bin_h =
    /// max(4, 68) · 32 = 2176 sub-pixels = 136 rows, so the strips meet at row 3 + 136 = 139.
    /// The 269-row range drains at once (≥ 224 rows).
    #[test]
    fn two_task_strips_start_at_queue_top() {
        let mut q = Q::new(&Regs::default());
        q.push(px(10, 3, 400, 271), 255);
        assert!(q.q.queued.is_empty());
        let t = q.prim(0).0.expect("split");
        assert_eq!(&t[..], &[px(0, 0, 1023, 138), px(0, 139, 1023, 1023)]);
    }

    /// Once a worker holds a strip, later drains keep the strips of the first one until
    /// the flush: rows 3..=271 give the boundary at 139 (above); a later primitive reaching
    /// row 0 would move it to 136 if recomputed.
    #[test]
    fn strips_kept_while_workers_busy() {
        let mut q = Q::new(&Regs::default());
        q.push(px(10, 3, 400, 271), 255);
        q.push(px(10, 0, 20, 10), 255);
        assert_eq!(q.prim(1).0.expect("split")[1].y0, 139);
        // After the flush the strips are recomputed: rows 0..=271 → h2 = 136, 68 · 2 rows.
        q.flush();
        q.push(px(10, 0, 400, 271), 255);
        assert_eq!(q.prim(2).0.expect("split")[1].y0, 136);
    }

    /// Pixel functions differing only in blending are two compilations (two flushes);
    /// the same state again is none [PP `ComputePixelFuncID`].
    #[test]
    fn new_pixel_function_requests_flush() {
        let mut regs = Regs::default();
        let mut m = BinQueue::new(2);
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
        let mut q = Q::new(&Regs::default());
        q.push(px(0, 0, 100, 19), 255);
        assert_eq!(q.q.queued.len(), 1);
        q.flush();
        assert!(q.q.queued.is_empty());
        assert!(q.prim(0).0.is_none());
        // Rows 0..=39 (h2 = 20), columns 0..=199 (w2 = 100 ≥ 80): bin_w = 50 · 32 = 100 px.
        q.push(px(0, 0, 199, 39), 255);
        q.flush();
        assert_eq!(&q.prim(1).0.expect("split")[..], &[px(0, 0, 99, 1023), px(100, 0, 1023, 1023)]);
    }

    /// [PP `Drain` → `OptimizePendingStates`] The drain a 224-row range causes also
    /// optimizes the state: SRCALPHA/INVSRCALPHA blending with only α = 255 so far turns
    /// blending off (`OPTIMIZED | BLEND_SRC | BLEND_DST | BLEND_OFF` plus our `canFull`
    /// bit) for the item it hands over; a later α = 128 item reverts the state to no
    /// optimization for the items of the next drain.
    #[test]
    fn every_drain_optimizes_pending_states() {
        let mut regs = Regs::default();
        regs.set(op::ALPHABLENDENABLE, 1);
        regs.set(op::BLENDMODE, 2 | 3 << 4);
        let mut q = Q::new(&regs);
        q.push(px(0, 0, 10, 250), 255);
        assert_eq!(q.prim(0).1, 0x8000_0000 | 0x000F_0000);
        q.push(px(0, 0, 10, 10), 128);
        assert_eq!(q.prim(0).1, 0x8000_0000 | 0x000F_0000);
        assert_eq!(q.prim(1).1, 0x0001_0000);
    }

    /// [PP `BinDirtyRange::Expand`, `HasPendingWrite`] A 480x272 8888 scissor at
    /// 0x04000000 with stride 512 is 272 rows of 1920 bytes, 2048 apart. A texture just
    /// below it does not overlap; one in the stride gap (x = 1920 bytes) overlaps only when
    /// its rows reach the next row's start (1920 + 128 ≥ 2048).
    #[test]
    fn pending_write_ranges() {
        let mut r = DirtyRange::default();
        r.expand(0x0400_0000, 4, 512, &px(0, 0, 479, 271));
        assert_eq!((r.base, r.stride, r.width, r.height), (0x0400_0000, 2048, 1920, 272));
        assert!(r.overlaps(0x0400_0000 + 2048 * 100 + 40, 1024, 256, 16));
        assert!(!r.overlaps(0x0400_0000 + 2048 * 272, 1024, 256, 16));
        assert!(!r.overlaps(0x0400_0000 + 1920, 2048, 64, 1));
        assert!(r.overlaps(0x0400_0000 + 1920, 2048, 128, 1));
    }

    /// [PP `UpdateState` "selfrender", `Expand` "expand"] Texturing from the framebuffer
    /// being drawn drops to one task, and every primitive then flushes the queue; a draw
    /// without that texture goes back to two tasks.
    #[test]
    fn self_render_flushes_every_primitive() {
        let mut regs = Regs::default();
        regs.set(op::TEXTUREMAPENABLE, 1);
        regs.set(op::TEXBUFWIDTH0, 0x04 << 16 | 512);
        regs.set(op::FRAMEBUFWIDTH, 512);
        let mut q = Q::new(&regs);
        let fb = crate::draw::fb_target(&regs);
        assert_eq!(fb.color_addr, 0x0400_0000);
        assert!(!q.update_binner(&q.st.clone(), &fb));
        assert_eq!(q.q.max_tasks, 1);
        q.push(px(0, 0, 0, 0), 255);
        assert!(q.q.queue_range.is_none() && q.q.queued.is_empty());
        // The binned primitive writes the texture: rasterize before the next such draw.
        assert!(q.update_binner(&q.st.clone(), &fb));
        let plain = super::super::test_state(&Regs::default(), true);
        q.update_binner(&plain, &fb);
        assert_eq!(q.q.max_tasks, 2);
    }

    /// A vertex whose colour channels and fog sit on the values the flags test against.
    fn flag_vertex() -> impl proptest::strategy::Strategy<Value = ScreenVertex> {
        use proptest::prelude::*;
        let channel = prop_oneof![Just(0u8), Just(0xFF), any::<u8>()];
        let fog = prop_oneof![Just(1.0f32), Just(0.5), Just(2.0), Just(f32::NAN), Just(f32::INFINITY), -2.0f32..2.0];
        (prop::array::uniform4(channel), fog).prop_map(|(color0, fog)| ScreenVertex {
            color0,
            fog,
            ..Default::default()
        })
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(20_000))]
        /// The folded flags of a shape are the plain per-vertex ones, for every shape kind,
        /// flat and Gouraud.
        #[test]
        fn shape_flags_equal_vertex_flags(
            v in proptest::array::uniform3(flag_vertex()),
            kind in 0..6u8,
            gouraud in proptest::prelude::any::<bool>(),
        ) {
            let two = [v[0], v[1]];
            let shape = match kind {
                0 => Shape::Triangle(v),
                1 => Shape::Rectangle(two),
                2 => Shape::Sprite(two),
                3 => Shape::ClearRect(two),
                4 => Shape::Line(two),
                _ => Shape::Point(v[0]),
            };
            proptest::prop_assert_eq!(shape_flags(&shape, gouraud), shape_flags_plain(&shape, gouraud));
        }
    }
}
