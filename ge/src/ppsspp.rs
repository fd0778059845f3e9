//! PPSSPP's software renderer machinery: everything [`crate::Model::Ppsspp`] adds to the
//! hardware GE so that its output equals PPSSPP's (whose screenshots are the references of
//! the real-game frame tests and the synthetic corpus).
//!
//! None of it is PSP behaviour; it is how PPSSPP's renderer, run on the machine that made
//! the references, changes pixels:
//!
//! | module | what PPSSPP does |
//! |---|---|
//! | `queue` | its bin queue: when it drains, the worker-thread strips each drained primitive is clipped to |
//! | `optimize` | its per-state rewrites decided at drains (alpha-0 discard, blend folding and blend off, fog off, CLUT alpha test off) |
//! | `jit` | which sampler ran: the x86 JIT or the C++ fallback (modulate-to-replace IDs not compiled yet) |
//! | `funcid` | the pixel and sampler function keys whose first use flushes the queue |
//! | `rsqrt` | the AMD `RSQRTPS` table its SSE normalisations return |
//! | `pixel_id` | the x86 pixel JIT's logic-op shortcuts (NAND as NOT, OR_INVERTED setting alpha) |
//!
//! The draw path ([`crate::draw`]) holds an `Option<Machinery>` decided by the model when
//! the GE is made, and calls it at the points PPSSPP's machinery acts:
//! * a draw state is decoded ([`decorate_state`]: [`rewrite_pixel`] and the trivial
//!   projection drop; [`Machinery::compiles`], [`Machinery::state_decoded`], [`StateData`]);
//! * a PRIM's shapes are binned ([`Machinery::before_bin`], [`Machinery::bin`]);
//! * the queue drains ([`Machinery::flush`]) and is rasterized ([`Machinery::rasterized`]);
//!   each binned primitive then carries a [`PrimFix`] (its strips and optimization) that
//!   rasterization applies once per primitive ([`PrimFix::pixel`], [`PrimFix::strips`]).
//!
//! With the hardware model the machinery is absent: primitives are binned whole, in
//! submission order, with the state they were decoded with. Stage arithmetic that differs
//! (the sampler's bilinear rounding, `RSQRTPS`) is a typed rule in the per-draw state
//! ([`crate::texture::SamplerRule`], [`crate::transform::RsqrtRule`]), chosen by
//! [`crate::Model`], not a test of the model inside the stages.

pub mod fix;
mod funcid;
mod jit;
mod optimize;
pub(crate) mod pixel_id;
mod queue;
pub mod rsqrt;

use std::sync::Arc;

use crate::bin::{Binner, FbTarget};
use crate::cmd::reg;
use crate::draw::binned::{scissored_bounds, BinnedPrim, DrawState, Shape};
use crate::regs::{Matrices, Regs};
use crate::texture::SamplerRule;

pub use fix::{PrimFix, StateData};
pub use pixel_id::rewrite_pixel;
pub use queue::REFERENCE_TASKS;

/// PPSSPP's rewrites of a draw state freshly decoded by [`DrawState::decode`]: its pixel
/// JIT's shortcuts ([`rewrite_pixel`]) and the trivial texture projection it draws as plain
/// UVs ([`trivial_projection`]). Called by the draw context before [`StateData::decode`].
pub fn decorate_state(s: &mut DrawState, regs: &Regs, mats: &Matrices) {
    rewrite_pixel(&mut s.pixel, regs);
    if s.texture_proj && trivial_projection(&mats.tgen, regs.get(reg::TEXMAPMODE).projection()) {
        s.texture_proj = false;
    }
}

/// [PP `Rasterizer.cpp` ComputeRasterizerState]: a texture-matrix projection (source
/// `projection`, TEXMAPMODE bits 8–9) that leaves q = 1 is drawn as plain UVs (no divide).
/// [Measured: the hardware model dividing by the constant q = 1 instead changes no output
/// of the frame tests, synthetic corpus, hardware screenshots or readback tests.]
pub fn trivial_projection(tgen: &[f32; 12], projection: u32) -> bool {
    let q_zero_st = tgen[2] == 0.0 && tgen[5] == 0.0;
    let q_zero_q = tgen[8] == 0.0;
    let uv_source = projection == 1;
    q_zero_st && (q_zero_q || uv_source) && tgen[11] == 1.0
}

/// PPSSPP's bin queue, JIT caches and state optimizations for one GE.
#[derive(Default)]
pub struct Machinery {
    queue: queue::BinQueue,
    jit: jit::JitCache,
    /// The current state with PPSSPP's C++ fallback sampler, built on demand.
    fallback_state: Option<Arc<DrawState>>,
    fallback: Vec<bool>,
    /// Each shape's bounds within the scissor (`None`: PPSSPP never queues it).
    bounds: Vec<Option<crate::raster::ClipRect>>,
    /// A PPSSPP rasterizer state is current and none of its registers changed since
    /// [PP `SoftGpu.cpp` softgpuCmdInfo, `UpdateState`]; false at start.
    raster_state_current: bool,
}

impl Machinery {
    /// A register of PPSSPP's pixel, sampler or rasterizer state changed value, a changed
    /// TGEN matrix entry, a LOADCLUT or an immediate submit: the next draw state starts a
    /// new rasterizer state ([`fix::StateData`] cell).
    pub fn raster_state_changed(&mut self) {
        self.raster_state_current = false;
    }

    /// Whether the draw state being decoded starts a new PPSSPP rasterizer state
    /// (`through_changed`: the through-mode bit differs from the previous state, or there
    /// is none); the state is current afterwards.
    pub fn starts_raster_state(&mut self, through_changed: bool) -> bool {
        let new = !self.raster_state_current || through_changed;
        self.raster_state_current = true;
        new
    }

    /// Before a state is made current [PP `BinManager::UpdateState` →
    /// `ComputeRasterizerState`]: true when PPSSPP flushes first to compile a pixel or
    /// sampler function it has not seen [PP `PixelJitCache::GetSingle`, `SamplerJitCache`].
    /// That flush happens while PPSSPP creates the new state, which the drain must not
    /// optimize yet [PP `BinManager::OptimizePendingStates` `creatingState_`], so the
    /// caller flushes before the state is registered.
    /// The draw path asks only when it decodes a new draw state: the keys read no register
    /// of [`crate::cmd::DirtyGroup::Vertex`] (test `vertex_group_leaves_the_draw_state`), so
    /// while the state is reused they are the ones looked up last, compiled by then.
    pub fn compiles(&mut self, regs: &Regs, through: bool) -> bool {
        self.queue.update_state(regs, through)
    }

    /// A new draw state became current; `new_cell`: it starts a new PPSSPP rasterizer
    /// state (a pixel, sampler or rasterizer register changed).
    pub fn state_decoded(&mut self, st: &Arc<DrawState>, new_cell: bool) {
        self.jit.state_created(st);
        self.fallback_state = None;
        if new_cell {
            self.queue.state_created(st);
        }
    }

    /// The binner half of [PP `BinManager::UpdateState`] before binning under `st` into
    /// `fb`. True when the binned primitives must be rasterized first (`st` textures from
    /// memory they write).
    pub fn before_bin(&mut self, binner: &mut Binner<BinnedPrim>, st: &DrawState, fb: &FbTarget) -> bool {
        self.queue.update_binner(binner, st, fb)
    }

    /// Bin one PRIM's shapes under `state` with the sampler PPSSPP would run for each
    /// (`jit`) through the bin queue, which drains as PPSSPP's does.
    pub fn bin(&mut self, binner: &mut Binner<BinnedPrim>, state: &Arc<DrawState>, shapes: &mut Vec<Shape>) {
        let flat = state.flat;
        // Only a shape inside the scissor reaches `CalculateRasterStateFlags` and the
        // rectangle re-optimization [PP `BinManager::Add*`: the range check returns first].
        // The fallback state has the same scissor.
        self.bounds.clear();
        self.bounds.extend(shapes.iter().map(|s| scissored_bounds(state, s)));
        let queued = || shapes.iter().zip(&self.bounds).filter(|(_, b)| b.is_some()).map(|(s, _)| s);
        let counted = queued().flat_map(|s| counted_vertices(s, flat)).map(|v| v.color0);
        let rect_v1 = shapes.iter().zip(&self.bounds).map(|(s, b)| match (s, b) {
            (Shape::Rectangle(v), Some(_)) => Some(v[1].color0),
            _ => None,
        });
        self.jit.fallbacks_into(state, counted, rect_v1, &mut self.fallback);
        // By reference: each shape is copied once, into the binner (not out of `shapes`,
        // into the queue's argument and into the binned primitive).
        for ((shape, &fb), &r) in shapes.iter().zip(&self.fallback).zip(&self.bounds) {
            let Some(r) = r else { continue };
            let st = if fb {
                self.fallback_state
                    .get_or_insert_with(|| {
                        let mut s = (**state).clone();
                        if let Some(t) = s.texture.as_mut() {
                            t.sampler = SamplerRule::PpssppCpp;
                        }
                        Arc::new(s)
                    })
                    .clone()
            } else {
                state.clone()
            };
            self.queue.push(binner, r, st, shape);
        }
        shapes.clear();
    }

    /// [PP `GPUCommon::SetDrawType`] (curves and immediate primitives): true when a change
    /// between triangle-type and other primitives flushes.
    pub fn draw_type(&mut self, triangle: bool) -> bool {
        let changed = triangle != self.queue.last_triangle_class;
        self.queue.last_triangle_class = triangle;
        changed
    }

    /// [PP `BinManager::Flush`]: drain everything.
    pub fn flush(&mut self, binner: &mut Binner<BinnedPrim>) {
        self.queue.flush(binner);
    }

    /// The binned primitives were rasterized [PP `BinManager::Flush` → `Sampler::FlushJit`].
    pub fn rasterized(&mut self) {
        self.jit.flushed();
        self.queue.unrasterized = Default::default();
    }
}

/// The vertices whose colours `CalculateRasterStateFlags` looks at for `shape`
/// ([`queue::flag_vertices`], which the bin queue's flags read too).
fn counted_vertices(shape: &Shape, flat: bool) -> &[crate::geom::ScreenVertex] {
    let (v, from) = queue::flag_vertices(shape, !flat);
    &v[from..]
}

/// The pixel and sampler function keys [`Machinery::compiles`] looks up (tests: the draw
/// path skips the look-up while it reuses the draw state).
#[cfg(test)]
pub(crate) fn function_keys(regs: &Regs, through: bool) -> (u64, u32) {
    (funcid::pixel_func_key(regs, through), funcid::sampler_key(regs))
}

/// A draw state as the PPSSPP model decodes it (tests of this module).
#[cfg(test)]
pub(crate) fn test_state(regs: &Regs, through: bool) -> DrawState {
    let mut st = DrawState::decode(regs, &[0; 1024], through, crate::Model::Ppsspp, &mut Default::default());
    decorate_state(&mut st, regs, &Matrices::default());
    let tex = st.texture.as_ref().map(|t| t.shared_clut);
    st.ppsspp = Some(StateData::decode(regs, &[0; 1024], &st.pixel, tex, None, true));
    st
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cmd::op;
    use crate::geom::{ScreenVertex, SubPixel};

    fn triangle(x: i32, y: i32, color0: [u8; 4]) -> Shape {
        let v = |dx: i32, dy: i32| ScreenVertex {
            x: SubPixel((x + dx) * 16),
            y: SubPixel((y + dy) * 16),
            w: 1.0,
            q: 1.0,
            color0,
            ..Default::default()
        };
        Shape::Triangle([v(0, 0), v(8, 0), v(0, 8)])
    }

    /// A shape outside the scissor is never queued by PPSSPP, so its colour cannot end
    /// the state's all-white optimization [PP `BinManager::AddTriangle`: the range check
    /// returns before `CalculateRasterStateFlags`].
    #[test]
    fn scissored_shapes_leave_the_state_flags_alone() {
        let mut regs = Regs::default();
        regs.set(op::TEXTUREMAPENABLE, 1);
        regs.set(op::SCISSOR1, 0);
        regs.set(op::SCISSOR2, (63 << 10) | 63);
        regs.set(op::REGION2, (63 << 10) | 63);
        let st = Arc::new(test_state(&regs, true));
        let white = [255; 4];
        let (inside, outside) = (triangle(4, 4, white), triangle(200, 100, [255, 0, 0, 255]));
        assert!(scissored_bounds(&st, &inside).is_some() && scissored_bounds(&st, &outside).is_none());
        let mut m = Machinery::default();
        m.jit.state_created(&st);
        let mut binner = Binner::new(16);
        let fb = crate::draw::fb_target(&regs);
        m.before_bin(&mut binner, &st, &fb);
        m.bin(&mut binner, &st, &mut vec![inside, outside]);
        // The state's colours are still all white: a white PRIM falls back to the
        // uncompiled REPLACE sampler, as after a PRIM of white shapes only.
        assert_eq!(m.jit.fallbacks(&st, &[white], &[None]), [true]);
    }
}
