//! Composition of the GE stages for one draw.
//!
//! A PRIM decodes its vertices ([`crate::vertex`]), transforms them
//! ([`crate::transform`]), assembles primitives of its type (`assemble`: keeping an
//! incomplete primitive for a following PRIM type 7), clips and culls them
//! ([`crate::clip`]) and bins them with an immutable snapshot of the pixel and texture
//! state ([`DrawState`]). [`crate::Ge::flush`] rasterizes the bins band by band in parallel
//! ([`crate::bin`]); each covered 2x2 quad is textured ([`crate::texture`]) and each
//! fragment runs the pixel pipeline ([`crate::pixel`]).
//!
//! The model ([`crate::Model`]) is fixed per GE. With [`crate::Model::Ppsspp`] the draw
//! context holds PPSSPP's renderer machinery ([`crate::ppsspp::Machinery`]) and calls it
//! where PPSSPP's machinery acts: when a state is decoded, when a PRIM's shapes are
//! binned, and when the bins drain; each binned primitive then carries the strips and
//! state optimization its drain fixed. With [`crate::Model::Hardware`] there is nothing
//! at those points: primitives are binned whole, in submission order.
//!
//! Design notes:
//! * The state snapshot is rebuilt only when a register it reads or the CLUT changed since
//!   the last PRIM (`state_dirty`), so long runs of draws share one `Arc<DrawState>`. The
//!   vertex and index pointers and the world, view, projection and bone matrices do not
//!   count ([`crate::cmd::DirtyGroup::Vertex`]): a frame-dump replay sets VADDR before
//!   nearly every draw, and 21763 rebuilt its state for all 10 729 draws, 894 after this.
//! * Binning defers all memory writes to [`crate::Ge::flush`], which the executor calls before
//!   anything that reads or writes memory a binned draw may touch (framebuffer changes,
//!   block transfers, the end of a list, replay uploads) and the draw path calls before a
//!   draw that textures from memory binned draws write (`WrittenSpan`; PPSSPP's own
//!   rule in the PPSSPP model).
//! * The hardware model bins no triangle that holds no sample point
//!   ([`Shape::samples_nothing`]): distant detail is mostly such slivers, and each cost a
//!   full triangle set-up per band for nothing (g59dc00, 1 thread: 10 638 triangle
//!   rasterizations a frame before, 4 142 after). The PPSSPP model bins them, as its
//!   queue counts them.
//! * Inside the executor's loops a flush point rasterizes behind the front end
//!   ([`DrawContext::flush_behind`], [`crate::bin`]): the next draws are decoded while the
//!   bands are drawn, and the pixels land before anything reads or writes them.

mod assemble;
mod bbox;
pub(crate) mod binned;
mod curve;
mod fork;
mod immediate;
mod span;
mod written;

pub(crate) use bbox::bounding_box;
pub use binned::{BinnedPrim, DrawState, Shape};
use written::WrittenSpan;

use std::sync::Arc;

use crate::bin::FbTarget;
use crate::cmd::fields::PrimArg;
use crate::cmd::{op, reg};
use crate::geom::{NumFormat, PrimType, Quad, VertexType};
use crate::mem::{MemError, Memory};
use crate::model::Model;
use crate::pixel::{self, PixelState};
use crate::ppsspp;
use crate::raster::{self, ClipRect, RasterSetup, RectangleRule};
use crate::regs::Regs;
use crate::state::GeState;
use crate::texture::{self, SamplerRule, TextureState};
use crate::tile::{FbFormat, Tile};
use crate::transform::TransformState;
use crate::vertex::{self, Persist, VertexLayout};

/// Most rows in a render band: the height of one thread's aligned bands, and the cap on
/// the cost-balanced bands of several threads (`crate::bin::band_starts`, which cuts where
/// each band holds an even share of the work, so 8 threads still get 32 bands).
///
/// A primitive is set up again in every band it touches, so short bands repeat the
/// set-up of small triangles (19960's 60 k triangles were set up 76 k times in 16-row
/// bands). Callgrind, 1 thread, whole `frametests --bench --runs 1`, 16 -> 32 -> 64 rows:
/// 19960 hardware 769.2 -> 750.2 -> 743.0 M, 21763 PPSSPP 992.9 -> 978.8 -> 971.3 M,
/// 21763 hardware 970.1 -> 951.7 -> 943.0 M, 15826 PPSSPP 94.8 -> 94.0 -> 93.8 M; one
/// frame of g59dc00 55.6 -> 55.2 -> 55.3 M. Simulated D1 misses (callgrind
/// `--cache-sim=yes`, 19960) stay level (2.87 -> 2.84 -> 2.86 M): a 64-row band of a
/// 512-pixel 32-bit target with depth is 192 KiB, inside L2.
pub const BAND_ROWS: i32 = 64;

/// Estimated raster work (pixels, [`crate::bin::Binner::cost`]) binned before the
/// hardware model rasterizes behind the front end without being asked
/// ([`DrawContext::flush_early`]). Each flush copies its bands out and back, so batches
/// are kept at about half a 480×272 screen of pixels.
const EARLY_FLUSH_COST: u64 = 16 * 1024;

/// Per-GE drawing state that persists between PRIM commands.
pub struct DrawContext {
    model: Model,
    /// Every primitive binned since the last rasterization.
    binner: crate::bin::Binner<BinnedPrim>,
    /// PPSSPP's renderer machinery (PPSSPP model only).
    ppsspp: Option<Box<ppsspp::Machinery>>,
    /// What the binned primitives may write (hardware model; PPSSPP's queue keeps its own).
    written: WrittenSpan,
    target: Option<FbTarget>,
    state: Option<Arc<DrawState>>,
    /// Set when a register the state reads (not a [`crate::cmd::DirtyGroup::Vertex`] one)
    /// or the CLUT changed since `state` was built.
    pub(crate) state_dirty: bool,
    /// Transform states decoded since the registers and matrices they read last changed,
    /// newest first, each with the raw vertex type it was decoded for (a patch decodes
    /// two: its control points' and its tessellated vertices').
    transforms: [Option<(u32, Arc<TransformState>)>; 2],
    /// Set when a register (not a [`crate::cmd::DirtyGroup::Vertex`] one) or a matrix
    /// entry changed since `transforms` were decoded ([`DrawContext::registers_changed`],
    /// [`DrawContext::matrix_changed`]).
    transform_dirty: bool,
    asm: assemble::Assembler,
    /// Last texcoord/normal for vertex formats without them.
    pub persist: Persist,
    /// Thread pool for rasterization; `None` uses rayon's global pool.
    pub pool: Option<Arc<rayon::ThreadPool>>,
    /// Debugging aid: trace fragments at this drawing-coordinate pixel.
    pub trace_pixel: Option<(i32, i32)>,
    /// PRIM commands seen (numbers draws in traces).
    pub draw_count: u64,
    /// Immediate-mode vertex buffer ([`immediate`]).
    imm: immediate::ImmState,
    /// Assembly buffers reused from PRIM to PRIM.
    scratch: assemble::Scratch,
    /// Last id given to a decoded transform state ([`Ge::decode_transform`]).
    transform_ids: u64,
    /// The last palette decoded (draw states share it while the CLUT is unchanged).
    palettes: texture::PaletteMemo,
    /// A PRIM's assembly vertices (buffer reused from PRIM to PRIM).
    verts: Vec<assemble::AsmVertex>,
    /// Time spent in [`DrawContext::flush`] when profiling (`None`: not measured); read
    /// it with [`DrawContext::flush_times`].
    pub phases: Option<FlushTimes>,
    /// Nanoseconds spent landing tiles rasterized behind the front end (profiling).
    landing: Arc<std::sync::atomic::AtomicU64>,
}

/// Where [`DrawContext::flush`] spends its time (`psprender frametests --bench --phases`):
/// two clock reads per flush, only when enabled.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct FlushTimes {
    /// PPSSPP model: the bin queue's drain bookkeeping (task strips, state optimizations).
    pub drain: std::time::Duration,
    /// Band copies, rasterization, texture sampling, the pixel pipeline and write-back.
    pub raster: std::time::Duration,
    /// Flushes that rasterized something.
    pub flushes: u32,
}

impl DrawContext {
    pub fn new(model: Model) -> Self {
        DrawContext {
            model,
            binner: crate::bin::Binner::new(BAND_ROWS),
            ppsspp: (model == Model::Ppsspp).then(Box::default),
            written: WrittenSpan::default(),
            target: None,
            state: None,
            state_dirty: true,
            transforms: Default::default(),
            transform_dirty: true,
            asm: assemble::Assembler::default(),
            persist: Persist::default(),
            pool: None,
            trace_pixel: None,
            draw_count: 0,
            imm: immediate::ImmState::default(),
            scratch: assemble::Scratch::default(),
            transform_ids: 0,
            palettes: Default::default(),
            verts: Vec::new(),
            phases: None,
            landing: Default::default(),
        }
    }

    pub fn model(&self) -> Model {
        self.model
    }

    /// A register PPSSPP files under its pixel, sampler or rasterizer state changed value
    /// (or a CLUT was loaded): PPSSPP's machinery starts a new rasterizer state at the next
    /// draw. The hardware model has no such state.
    pub(crate) fn raster_state_changed(&mut self) {
        if let Some(m) = self.ppsspp.as_mut() {
            m.raster_state_changed();
        }
    }
}

/// The colour and depth buffers the registers select
/// (ge-reference.md §15.5: VRAM + (ptr & 0x1FFFF0), stride & 0x7FC).
pub fn fb_target(regs: &Regs) -> FbTarget {
    FbTarget {
        color_addr: 0x0400_0000 | regs.get(reg::FRAMEBUFPTR).vram_offset(),
        stride: regs.get(reg::FRAMEBUFWIDTH).stride(),
        fmt: FbFormat::from_bits(regs.get(reg::FRAMEBUFPIXFORMAT).format()),
        depth_addr: 0x0400_0000 | regs.get(reg::ZBUFPTR).vram_offset(),
        zstride: regs.get(reg::ZBUFWIDTH).stride(),
    }
}

impl DrawContext {
    /// The current draw state, rebuilt only when registers or the CLUT changed.
    fn current_state(&mut self, gs: &GeState, through: bool) -> Arc<DrawState> {
        if let Some(s) = &self.state {
            if !self.state_dirty && s.through == through {
                return s.clone();
            }
        }
        let mut s = DrawState::decode(&gs.regs, &gs.clut, through, self.model, &mut self.palettes);
        s.trace = self.trace_pixel;
        s.draw = self.draw_count;
        if let Some(m) = self.ppsspp.as_mut() {
            ppsspp::decorate_state(&mut s, &gs.regs, &gs.mats);
            let through_changed = self.state.as_ref().is_none_or(|p| p.through != through);
            let new_cell = m.starts_raster_state(through_changed);
            let prev = self.state.as_ref().and_then(|p| p.ppsspp.as_ref());
            let tex = s.texture.as_ref().map(|t| t.shared_clut);
            s.ppsspp = Some(ppsspp::fix::StateData::decode(&gs.regs, &gs.clut, &s.pixel, tex, prev, new_cell));
            let s = Arc::new(s);
            m.state_decoded(&s, new_cell);
            self.state = Some(s.clone());
            self.state_dirty = false;
            return s;
        }
        let s = Arc::new(s);
        self.state = Some(s.clone());
        self.state_dirty = false;
        s
    }

    /// Registers were written (not only [`crate::cmd::DirtyGroup::Vertex`] ones): the draw
    /// state and the transform states are decoded again at the next draw.
    pub(crate) fn registers_changed(&mut self) {
        self.state_dirty = true;
        self.transform_dirty = true;
    }

    /// A world, view, projection, bone or texture-generation matrix entry changed value:
    /// the transform states are decoded again at the next draw (the draw state does not
    /// read these, test `vertex_group_leaves_the_draw_state`).
    pub(crate) fn matrix_changed(&mut self) {
        self.transform_dirty = true;
    }

    /// The transform state for a draw of `vtype`: the one decoded for it before when no
    /// register or matrix entry changed since, else decoded now with a fresh id (see
    /// [`TransformState::id`]; ids come from this context only, so no state is shared, and
    /// a reused state keeps its id, under which its projections are the same).
    /// 21763 decoded 10 773 transform states for its 10 729 draws (about 700 instructions
    /// each), 929 since.
    pub(crate) fn decode_transform(&mut self, gs: &GeState, vtype: &VertexType) -> Arc<TransformState> {
        if std::mem::take(&mut self.transform_dirty) {
            self.transforms = Default::default();
        }
        if let Some((_, ts)) = self.transforms.iter().flatten().find(|(raw, _)| *raw == vtype.raw) {
            return ts.clone();
        }
        let mut ts = TransformState::decode(&gs.regs, &gs.mats, vtype, self.model.rsqrt_rule());
        ts.snap = self.model.screen_snap();
        self.transform_ids += 1;
        ts.id = self.transform_ids;
        let ts = Arc::new(ts);
        self.transforms.rotate_right(1);
        self.transforms[0] = Some((vtype.raw, ts.clone()));
        ts
    }

    /// PRIM: decode, transform, assemble and bin.
    pub(crate) fn prim(&mut self, gs: &mut GeState, mem: &mut Memory, arg: u32) -> Result<(), MemError> {
        self.draw_count += 1;
        if self.trace_pixel.is_some() {
            // Each draw gets its own state so traces can name the draw.
            self.state_dirty = true;
        }
        let arg = PrimArg(arg);
        let (count, prim) = (arg.count(), PrimType::from_bits(arg.prim()));
        let vtype = VertexType::from_bits(gs.regs.arg(op::VERTEXTYPE));
        let layout = VertexLayout::new(vtype.raw);
        let params = gs.decode_params();
        let saved_uv = self.persist.uv;
        vertex::settle_reads(mem, &layout, gs.vaddr, gs.iaddr, count);
        let decoded = vertex::decode_draw(mem, &layout, gs.vaddr, gs.iaddr, count, &params, &mut self.persist)?;
        // Texcoords are only read (and remembered) while texturing outside clear mode
        // [PP `TransformUnit::ReadVertex`].
        if !gs.regs.enabled(op::TEXTUREMAPENABLE) || gs.regs.clear_mode().is_some() {
            self.persist.uv = saved_uv;
        }
        gs.vaddr = decoded.vaddr;
        gs.iaddr = decoded.iaddr;
        // No position format: the whole draw is dropped, assembly state untouched
        // [PP `SubmitPrimitive`; HW `primitives/triangles` "nofmt"].
        if vtype.position == NumFormat::None {
            return Ok(());
        }
        let ts = self.decode_transform(gs, &vtype);
        let mut verts = std::mem::take(&mut self.verts);
        verts.clear();
        self.fork(mem).extend(&mut verts, &decoded.vertices, |v| assemble::AsmVertex::new(&ts, v));
        let cull = crate::clip::CullMode::decode(&gs.regs);
        self.with_sink(gs, mem, &ts, vtype.through, false, |asm, sink| asm.submit(prim, &verts, cull, sink));
        self.verts = verts;
        Ok(())
    }

    /// Run primitive assembly (`f`) under the current state and bin what it makes; `imm`:
    /// the vertices are immediate-mode ones with given screen positions.
    fn with_sink(
        &mut self,
        gs: &GeState,
        mem: &mut Memory,
        ts: &TransformState,
        through: bool,
        imm: bool,
        f: impl FnOnce(&mut assemble::Assembler, &mut assemble::Sink),
    ) {
        // The function keys read only registers the draw state is decoded from, so while
        // it is reused they are the ones already compiled (`vertex_group_leaves_the_draw_state`).
        let reused = !self.state_dirty && self.state.as_ref().is_some_and(|s| s.through == through);
        if !reused && self.ppsspp.as_mut().is_some_and(|m| m.compiles(&gs.regs, through)) {
            self.flush_behind(mem);
        }
        let state = self.current_state(gs, through);
        // A dump's pushbuf still arriving: the raster reads these bytes from a snapshot.
        if let (true, Some(t)) = (mem.filling(), &state.texture) {
            t.read_ranges().for_each(|(addr, len)| mem.fill_for(addr, len));
        }
        let target = fb_target(&gs.regs);
        if self.target != Some(target) {
            self.flush_behind(mem);
            self.target = Some(target);
        }
        let must_rasterize = match self.ppsspp.as_mut() {
            Some(m) => m.before_bin(&mut self.binner, &state, &target),
            None => self.written.textured_by(&state),
        };
        if must_rasterize {
            self.flush_behind(mem);
        }
        let pool = self.pool.clone();
        let fork = fork::Fork::new(pool.as_deref()).for_caller().serial_while(mem.drawing());
        let mut sink = assemble::Sink { state: state.clone(), ts, scratch: &mut self.scratch, imm, fork };
        f(&mut self.asm, &mut sink);
        let mut shapes = std::mem::take(&mut self.scratch.pending);
        match self.ppsspp.as_mut() {
            Some(m) => m.bin(&mut self.binner, &state, &mut shapes),
            None => {
                let before = self.binner.len();
                // A triangle between the sample points draws nothing: not binned.
                let sample = state.triangle.sample;
                for shape in &shapes {
                    if let Some(r) = binned::hardware_bounds(&state, shape, sample) {
                        self.binner
                            .push(r, BinnedPrim { state: state.clone(), shape: *shape, fix: Default::default() });
                    }
                }
                shapes.clear();
                if self.binner.len() != before {
                    self.written.add_draw(&state, &target);
                    self.flush_early(mem);
                }
            }
        }
        self.scratch.pending = shapes;
    }

    /// [PP `GPUCommon::SetDrawType`] (curves and immediate primitives only): a change
    /// between triangle-type and other primitives flushes PPSSPP's bins.
    pub(crate) fn set_draw_prim_class(&mut self, mem: &mut Memory, triangle: bool) {
        if self.ppsspp.as_mut().is_some_and(|m| m.draw_type(triangle)) {
            self.flush_behind(mem);
        }
    }

    /// Rasterize everything binned so far into `mem`, pixels landed on return.
    pub fn flush(&mut self, mem: &mut Memory) {
        self.flush_behind(mem);
        mem.settle();
    }

    /// Hardware model, more than one thread: once the binned primitives hold
    /// [`EARLY_FLUSH_COST`] of estimated raster work and no earlier flush is still
    /// drawing, the pool's workers rasterize them while the front end bins the next
    /// draws. Where a flush falls changes no hardware-model byte (bands draw their
    /// primitives in submission order; a later flush lands the tiles before it reads
    /// them); the PPSSPP model's flushes are its queue's, so it never flushes early.
    /// A frame of many small draws (g59dc00: 2 700 PRIMs of about 13 vertices) is front
    /// end first and raster after without this; the front end cannot fork such draws.
    fn flush_early(&mut self, mem: &mut Memory) {
        if !self.binner.idle() || !crate::bin::draws_behind(self.pool.as_ref()) {
            return;
        }
        if self.binner.cost() >= EARLY_FLUSH_COST {
            self.flush_behind(mem);
        }
    }

    /// Whether the next flush may draw on the tiles still pending in `mem` instead of
    /// landing them (`crate::bin::Binner::flush`): when no queued primitive textures from
    /// bytes they cover (those must see the pixels landed, render-to-texture).
    fn may_carry(&self, mem: &Memory) -> bool {
        if !mem.has_pending() {
            return false;
        }
        let mut last: Option<&Arc<DrawState>> = None;
        for p in self.binner.prims() {
            if last.is_some_and(|l| Arc::ptr_eq(l, &p.state)) {
                continue;
            }
            last = Some(&p.state);
            if p.state.texture.as_ref().is_some_and(|t| t.read_ranges().any(|(a, l)| mem.pending_overlaps(a, l))) {
                return false;
            }
        }
        true
    }

    /// A flush point: drain the bins and rasterize them behind the front end
    /// ([`crate::bin::Binner::flush_behind`]); the pixels land in `mem` before anything
    /// writes memory or reads bytes they cover ([`Memory::settle_for`]).
    pub(crate) fn flush_behind(&mut self, mem: &mut Memory) {
        let start = self.phases.is_some().then(std::time::Instant::now);
        if let Some(m) = self.ppsspp.as_mut() {
            m.flush(&mut self.binner);
        }
        if let (Some(p), Some(s)) = (self.phases.as_mut(), start) {
            p.drain += s.elapsed();
        }
        if self.binner.is_empty() {
            return;
        }
        let Some(mut target) = self.target else { return };
        if let Some(m) = self.ppsspp.as_mut() {
            m.rasterized();
        }
        // Depth no primitive tests or writes stays in memory as it is: bands then carry no
        // depth rows (a zero depth stride), saving their copy out and back (2D games).
        if !self.binner.prims().any(|p| p.fix.pixel(&p.state.pixel).touches_depth()) {
            target.zstride = 0;
        }
        self.written = WrittenSpan::default();
        let pool = self.pool.clone();
        // The previous flush's tiles land first (timed as landing, not twice), unless this
        // flush draws on them.
        let carry = self.may_carry(mem);
        if !carry {
            mem.settle();
        }
        let start = self.phases.is_some().then(std::time::Instant::now);
        let waited = self.phases.is_some().then_some(&self.landing);
        self.binner.flush_behind(&target, mem, pool.as_ref(), rasterize_prim, waited, carry);
        if let (Some(p), Some(s)) = (self.phases.as_mut(), start) {
            p.raster += s.elapsed();
            p.flushes += 1;
        }
    }

    /// [`DrawContext::phases`] with the time spent landing tiles so far added to `raster`.
    pub fn flush_times(&self) -> Option<FlushTimes> {
        let landed = std::time::Duration::from_nanos(self.landing.load(std::sync::atomic::Ordering::Relaxed));
        self.phases.map(|p| FlushTimes { raster: p.raster + landed, ..p })
    }

    /// Where the front end forks ([`fork`]): the raster pool, unless a flush is drawing there.
    fn fork(&self, mem: &Memory) -> fork::Fork<'_> {
        fork::Fork::new(self.pool.as_deref()).for_caller().serial_while(mem.drawing())
    }

    /// Use a dedicated rayon pool with `threads` threads for rasterization (1 = serial).
    pub fn set_threads(&mut self, threads: usize) {
        self.pool = rayon::ThreadPoolBuilder::new().num_threads(threads.max(1)).build().ok().map(Arc::new);
    }

    /// Share an existing rayon pool for rasterization.
    pub fn set_pool(&mut self, pool: Arc<rayon::ThreadPool>) {
        self.pool = Some(pool);
    }
}

/// Rasterize one binned primitive into a band.
fn rasterize_prim(p: &BinnedPrim, tile: &mut Tile, mem: &Memory) {
    let st = &*p.state;
    let mut setup =
        RasterSetup::new(st.scissor, !st.through, st.texture.is_some()).with_band(tile.y0, tile.y0 + tile.rows - 1);
    setup.flat_shading = st.flat;
    setup.antialias_lines = st.antialias;
    setup.line = st.line;
    setup.triangle = st.triangle;
    setup.rectangle = st.rectangle;
    if let Some((x, y)) = st.trace {
        if tile.y0 <= y && y < tile.y0 + tile.rows {
            eprintln!("trace draw {} shape {:?}", st.draw, p.shape);
            if std::env::var_os("TRACE_STATE").is_some() {
                eprintln!("trace draw {} opt {:08x} pixel state {:?}", st.draw, p.fix.opt(), st.pixel);
            }
        }
        let _ = x;
    }
    let px = p.fix.pixel(&st.pixel);
    let px = &*px;
    // Fragments outside the depth range are dropped before texturing (not when tracing
    // a pixel, which prints every fragment the pixel stage sees).
    // A range of 0..=65535 drops nothing.
    setup.depth_range = px.depth_range.filter(|&(lo, hi)| st.trace.is_none() && (lo > 0 || hi < 0xFFFF));
    let (band_y0, band_end) = (tile.y0, tile.y0 + tile.rows);
    // Hardware rectangles sample with their own rule ([`SamplerRule::Hardware`]); the
    // hardware model's state already has it (no copy of the palette per band).
    let rect_texture;
    let tex = match (&p.shape, &st.texture) {
        (Shape::Rectangle(_) | Shape::Sprite(_), Some(t))
            if st.rectangle == RectangleRule::Hardware && t.sampler != SamplerRule::Hardware =>
        {
            rect_texture = t.clone().with_sampler(SamplerRule::Hardware);
            Some(&rect_texture)
        }
        (_, t) => t.as_ref(),
    };
    let kernel = pixel::quad_kernel(px);
    // The texture stage specialised once for this primitive and band (not in clear mode,
    // whose colours are the flat vertex colour).
    let shader = tex.filter(|_| !st.clear).map(|t| texture::QuadShader::new(t, mem));
    let whole = [st.scissor];
    let strips: &[ClipRect] = p.fix.strips().unwrap_or(&whole);
    for strip in strips {
        // PPSSPP's strips: each draws the primitive with its range cut to the strip.
        setup.clip = st.scissor.intersect(strip);
        if setup.clip.is_empty() || setup.clip.y1 < band_y0 || setup.clip.y0 >= band_end {
            continue;
        }
        if st.trace.is_none() && span::rect_spans(&p.shape, &setup, tex, st.clear, px, tile, mem) {
            continue;
        }
        rasterize_shape(&p.shape, &setup, &mut |q: &Quad| {
            shade_quad(st, tex, shader.as_ref(), px, kernel, &mut *tile, mem, q)
        });
    }
}

/// The quads of `shape` under `setup`, through the walker of its kind and rule.
fn rasterize_shape(shape: &Shape, setup: &RasterSetup, emit: &mut dyn FnMut(&Quad)) {
    match shape {
        Shape::Triangle(v) => raster::triangle(v, setup, emit),
        Shape::Rectangle(v) | Shape::Sprite(v) if setup.rectangle == RectangleRule::Hardware => {
            raster::rectangle_exact(v, setup, emit)
        }
        Shape::Rectangle(v) => raster::rectangle(v, setup, emit),
        Shape::Sprite(v) => raster::sprite(v, setup, emit),
        Shape::ClearRect(v) => raster::clear_rectangle(v, setup, emit),
        Shape::Line(v) => raster::line(v, setup, emit),
        Shape::Point(v) => raster::point(v, setup, emit),
    }
}

/// Texture and draw the covered fragments of a quad: through the draw's shader and quad
/// kernel, or (tracing a pixel) the reference stages fragment by fragment.
#[allow(clippy::too_many_arguments)]
fn shade_quad(
    st: &DrawState,
    tex: Option<&TextureState>,
    shader: Option<&texture::QuadShader>,
    px: &PixelState,
    kernel: pixel::QuadKernel,
    tile: &mut Tile,
    mem: &Memory,
    q: &Quad,
) {
    if st.trace.is_none() {
        let colors = match shader {
            Some(sh) => sh.shade(q),
            None => span::quad_colours(st.clear, tex, mem, q),
        };
        kernel(px, tile, q, &colors);
        return;
    }
    let colors = span::quad_colours(st.clear, tex, mem, q);
    for (i, f) in q.frags().iter().enumerate() {
        if q.mask & (1 << i) != 0 {
            if st.trace == Some((f.x, f.y)) {
                trace_fragment(st, px, tile, f, colors[i], mem);
            }
            pixel::draw_pixel(px, tile, f.x, f.y, f.z, colors[i], f.fog);
        }
    }
}

#[cold]
fn trace_fragment(
    st: &DrawState,
    px: &PixelState,
    tile: &mut Tile,
    f: &crate::geom::Fragment,
    color: [u8; 4],
    mem: &Memory,
) {
    if let Some(t) = &st.texture {
        let (w, h) = (t.levels[0].width as f32, t.levels[0].height as f32);
        let (u, v) = if st.through { (f.s as i32, f.t as i32) } else { ((f.s * w) as i32, (f.t * h) as i32) };
        let mut texels = Vec::new();
        for dv in -1..=1 {
            for du in -1..=1 {
                texels.push(texture::fetch_texel(t, mem, 0, (u + du).max(0) as u32, (v + dv).max(0) as u32));
            }
        }
        eprintln!("   texels around ({u},{v}): {texels:?}");
    }
    let before = tile.read_color(f.x, f.y);
    let mut probe = tile.clone();
    pixel::draw_pixel(px, &mut probe, f.x, f.y, f.z, color, f.fog);
    eprintln!(
        "trace draw {} ({},{}) z={} prim={:?} sec={:?} fog={} st=({}, {}) shaded={:?} fb {:08x} -> {:08x} through={} clear={} tex={}",
        st.draw,
        f.x,
        f.y,
        f.z,
        f.color0,
        f.color1,
        f.fog,
        f.s,
        f.t,
        color,
        before,
        probe.read_color(f.x, f.y),
        st.through,
        st.clear,
        st.texture.is_some()
    );
    if let Some(t) = &st.texture {
        eprintln!(
            "   tex {:?} clut {:?} {:?} level0 {:?} max {} swz {} clamp {}/{} min {} mag {} mip {} lod {:?}/{}",
            t.format,
            t.clut_format,
            t.clut_index,
            t.levels[0],
            t.max_level,
            t.swizzle,
            t.clamp_s,
            t.clamp_t,
            t.min_linear,
            t.mag_linear,
            t.mip_linear,
            t.lod_mode,
            t.lod_bias
        );
    }
}

#[cfg(test)]
mod tests {
    use crate::cmd::{op, word, TABLE};
    use crate::dump::{restore_init, INIT_SIZE};
    use crate::geom::VertexType;
    use crate::transform::TransformState;
    use crate::{Ge, Model};
    use proptest::prelude::*;

    /// Commands that act beyond their registers (draws, transfers, immediate vertices):
    /// not sent, so the draw path's transform states are only ever asked for below.
    const ACTIONS: [u8; 6] = [op::PRIM, op::BEZIER, op::SPLINE, op::BOUNDINGBOX, op::TRANSFERSTART, op::VAP];

    /// A vertex type with every attribute (weights, normals, colours, texcoords), asked
    /// for besides VERTEXTYPE's: states are kept per vertex type, so a stale one shows only
    /// under a type asked for before the change too (VERTEXTYPE itself changes often here).
    const FIXED: u32 = 3 | 7 << 2 | 3 << 5 | 3 << 7 | 3 << 9 | 3 << 14;

    /// The transform states a draw would use now equal ones decoded afresh (ids aside).
    fn reused_is_fresh(ge: &mut Ge, model: Model) -> Result<(), TestCaseError> {
        for raw in [ge.state.regs.arg(op::VERTEXTYPE), FIXED] {
            let vtype = VertexType::from_bits(raw);
            let used = ge.draw.decode_transform(&ge.state, &vtype);
            let mut fresh = TransformState::decode(&ge.state.regs, &ge.state.mats, &vtype, model.rsqrt_rule());
            fresh.snap = model.screen_snap();
            fresh.id = used.id;
            // Debug text: NaN entries compare equal.
            prop_assert_eq!(format!("{:?}", *used), format!("{fresh:?}"));
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]
        /// The draw path decodes a transform state again only after a register or matrix
        /// entry changed, and that catches every change it reads: random command words
        /// (matrix uploads weighted up), a frame-dump INIT restore (which writes registers
        /// and matrices past the executor) somewhere among them, draws asked for between.
        #[test]
        fn reused_transform_states_equal_fresh_ones(
            words in prop::collection::vec((any::<prop::sample::Index>(), 0..0x0100_0000u32, any::<bool>()), 1..120),
            restore_at in any::<prop::sample::Index>(),
            payload in prop::collection::vec(0..0x0100_0000u32, INIT_SIZE as usize / 4),
            ppsspp in any::<bool>(),
        ) {
            let model = if ppsspp { Model::Ppsspp } else { Model::Hardware };
            let matrices = [
                op::WORLDMATRIXNUMBER, op::WORLDMATRIXDATA, op::VIEWMATRIXNUMBER, op::VIEWMATRIXDATA,
                op::PROJMATRIXNUMBER, op::PROJMATRIXDATA, op::BONEMATRIXNUMBER, op::BONEMATRIXDATA,
                op::TGENMATRIXNUMBER, op::TGENMATRIXDATA, op::VERTEXTYPE,
            ];
            let mut cmds: Vec<u8> = TABLE.iter().map(|c| c.op).filter(|o| !ACTIONS.contains(o)).collect();
            for _ in 0..10 {
                cmds.extend(matrices);
            }
            let init: Vec<u8> = payload.iter().flat_map(|w| w.to_le_bytes()).collect();
            let mut ge = Ge::with_model(model);
            let restore_at = restore_at.index(words.len());
            for (i, (pick, arg, draw)) in words.iter().enumerate() {
                if i == restore_at {
                    reused_is_fresh(&mut ge, model)?;
                    restore_init(&mut ge, &init).ok();
                    reused_is_fresh(&mut ge, model)?;
                }
                ge.execute_word(word(*pick.get(&cmds), *arg)).ok();
                if *draw {
                    reused_is_fresh(&mut ge, model)?;
                }
            }
        }
    }
}
