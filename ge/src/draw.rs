//! Composition of the GE stages for one draw.
//!
//! A PRIM decodes its vertices ([`crate::vertex`]), transforms them
//! ([`crate::transform`]), assembles primitives of its type (`assemble`: keeping an
//! incomplete primitive for a following PRIM type 7), clips and culls them
//! ([`crate::clip`]) and bins them with an immutable snapshot of the pixel and texture
//! state ([`DrawState`]). `queue` replays PPSSPP's bin queue: when it drains, and for each
//! drained primitive the worker-thread strips that clip it and the state optimization
//! (`optimize`) it is drawn with. [`Ge::flush`] rasterizes the bins band by band in
//! parallel ([`crate::bin`]); each covered 2x2 quad is textured ([`crate::texture`]) and
//! each fragment runs the pixel pipeline ([`crate::pixel`]).
//!
//! Design notes:
//! * The state snapshot is rebuilt only when a register or the CLUT changed since the last
//!   PRIM (`state_dirty`), so long runs of draws share one `Arc<DrawState>`.
//! * Binning defers all memory writes to [`Ge::flush`], which the executor calls before
//!   anything that reads or writes memory a binned draw may touch (framebuffer changes,
//!   block transfers, the end of a list, replay uploads) and the draw path calls before a
//!   draw that textures from memory binned draws write (`queue`).

mod assemble;
mod bbox;
mod curve;
mod funcid;
mod immediate;
mod jit;
mod optimize;
mod queue;

use std::sync::Arc;

use crate::bin::FbTarget;
use crate::cmd::op;
use crate::exec::Ge;
use crate::geom::{NumFormat, PrimType, Quad, ScreenVertex, VertexType};
use crate::mem::{MemError, Memory};
use crate::pixel::{self, PixelState};
use crate::raster::{self, ClipRect, RasterSetup};
use crate::regs::{Matrices, Regs};
use crate::texture::{self, TextureState};
use crate::tile::{FbFormat, Tile};
use crate::transform::TransformState;
use crate::vertex::{self, DecodeParams, Persist, VertexLayout};

/// Rows per render band. 16 rows give 17 bands for a 272-line frame: enough to balance
/// two to eight threads while keeping per-band setup small.
pub const BAND_ROWS: i32 = 16;

/// Everything the rasterizer and the fragment stages need for one draw; shared by all
/// primitives binned while it is current.
#[derive(Clone)]
pub struct DrawState {
    pub pixel: PixelState,
    /// `None` when texturing is off (or in clear mode, which never textures).
    pub texture: Option<TextureState>,
    pub clear: bool,
    pub through: bool,
    /// PPSSPP's `!shadeGouraud`: flat shading or clear mode.
    pub flat: bool,
    /// SHADEMODE is flat, also in clear mode: only then does clipping copy the provoking
    /// vertex's colours into the third vertex [PP `Clipper.cpp` ProcessTriangle checks
    /// `getShadeMode() == GE_SHADE_FLAT`, not `shadeGouraud`]. A clear-mode draw with
    /// Gouraud SHADEMODE therefore takes its flat colour from the third vertex of the
    /// accepted winding: the first vertex of a reversed triangle.
    pub flat_provoking: bool,
    pub dither: bool,
    /// Texture-matrix projection that really needs q (PPSSPP `ComputeRasterizerState`
    /// drops trivial projections).
    pub texture_proj: bool,
    pub fog: bool,
    /// Depth write on or a depth test other than ALWAYS (rectangle detection).
    pub depth_matters: bool,
    pub antialias: bool,
    /// The model's rasterizer arithmetic.
    pub raster: raster::RasterRule,
    /// Inclusive drawing-coordinate scissor: SCISSOR1 .. min(SCISSOR2, REGION2)
    /// [PP `BinManager.cpp` scissor setup].
    pub scissor: ClipRect,
    /// Debugging: report every fragment drawn at this pixel to stderr.
    pub trace: Option<(i32, i32)>,
    /// Number of the PRIM this state was built for (for traces).
    pub draw: u64,
    /// What PPSSPP's state optimizations read from this state (`optimize`).
    pub opt_in: optimize::OptInputs,
    /// The PPSSPP rasterizer state this draw belongs to; shared by consecutive draws
    /// without a pixel, sampler or rasterizer register change.
    pub opt_cell: Arc<optimize::OptCell>,
}

impl DrawState {
    pub fn decode(regs: &Regs, mats: &Matrices, clut: &[u8; 1024], through: bool) -> DrawState {
        let pixel = PixelState::decode(regs, through);
        let clear = pixel.clear_mode();
        let texture = (regs.enabled(op::TEXTUREMAPENABLE) && !clear).then(|| TextureState::decode(regs, clut, through));
        let opt_in = optimize::OptInputs::decode(
            regs,
            clut,
            &pixel,
            texture.is_some(),
            texture.as_ref().is_none_or(|t| t.shared_clut),
        );
        let scissor = ClipRect {
            x0: regs.field(op::SCISSOR1, 0, 10) as i32,
            y0: regs.field(op::SCISSOR1, 10, 10) as i32,
            x1: regs.field(op::SCISSOR2, 0, 10).min(regs.field(op::REGION2, 0, 10)) as i32,
            y1: regs.field(op::SCISSOR2, 10, 10).min(regs.field(op::REGION2, 10, 10)) as i32,
        };
        // [PP `Rasterizer.cpp` ComputeRasterizerState]: projection that leaves q = 1 is
        // treated as plain UVs.
        let texture_proj = texture.is_some() && regs.field(op::TEXMAPMODE, 0, 2) == 1 && {
            let t = &mats.tgen;
            let q_zero_st = t[2] == 0.0 && t[5] == 0.0;
            let q_zero_q = t[8] == 0.0;
            let uv_source = regs.field(op::TEXMAPMODE, 8, 2) == 1;
            !(q_zero_st && (q_zero_q || uv_source) && t[11] == 1.0)
        };
        let depth_matters = if clear {
            regs.arg(op::CLEARMODE) & (1 << 10) != 0
        } else {
            regs.enabled(op::ZTESTENABLE) && (!regs.enabled(op::ZWRITEDISABLE) || regs.field(op::ZTEST, 0, 3) != 1)
        };
        DrawState {
            pixel,
            clear,
            through,
            flat: clear || regs.arg(op::SHADEMODE) & 1 == 0,
            flat_provoking: regs.arg(op::SHADEMODE) & 1 == 0,
            dither: regs.enabled(op::DITHERENABLE),
            texture_proj,
            fog: !through && !clear && regs.enabled(op::FOGENABLE),
            depth_matters,
            antialias: regs.enabled(op::ANTIALIASENABLE),
            raster: raster::RasterRule::Ppsspp,
            texture,
            scissor,
            trace: None,
            draw: 0,
            opt_in,
            opt_cell: Arc::default(),
        }
    }
}

/// A primitive in drawing coordinates, with the rasterizer path PPSSPP would use.
#[derive(Debug, Clone, Copy)]
pub enum Shape {
    Triangle([ScreenVertex; 3]),
    Rectangle([ScreenVertex; 2]),
    /// The 1:1 through-mode sprite fast path [PP `RectangleFastPath`].
    Sprite([ScreenVertex; 2]),
    /// Clear-mode rectangle without dither [PP `ClearRectangle`].
    ClearRect([ScreenVertex; 2]),
    Line([ScreenVertex; 2]),
    Point(ScreenVertex),
}

/// What the binner stores.
pub struct BinnedPrim {
    pub state: Arc<DrawState>,
    pub shape: Shape,
    /// PPSSPP's worker-thread strips for this primitive (`None`: one range, no split);
    /// the primitive is drawn once per strip, clipped to it; fixed when it is drained
    /// (`queue`).
    pub tasks: queue::TaskRects,
    /// PPSSPP's state optimization for this primitive, fixed when the queue is drained.
    pub opt: u32,
}

/// Per-GE drawing state that persists between PRIM commands.
pub struct DrawContext {
    queue: queue::BinQueue,
    target: Option<FbTarget>,
    state: Option<Arc<DrawState>>,
    /// Set when any register changed since `state` was built.
    pub(crate) state_dirty: bool,
    /// Set when a register PPSSPP files under its pixel, sampler or rasterizer state
    /// changed value (or a CLUT was loaded) [PP `SoftGpu.cpp` softgpuCmdInfo, `UpdateState`]:
    /// the next draw starts a new [`optimize::OptCell`].
    pub(crate) raster_dirty: bool,
    asm: assemble::Assembler,
    /// Last texcoord/normal for vertex formats without them.
    pub persist: Persist,
    /// Thread pool for rasterization; `None` uses rayon's global pool.
    pub pool: Option<Arc<rayon::ThreadPool>>,
    /// Debugging aid: trace fragments at this drawing-coordinate pixel.
    pub trace_pixel: Option<(i32, i32)>,
    /// PRIM commands seen (numbers draws in traces).
    pub draw_count: u64,
    /// Which of PPSSPP's sampler functions were compiled ([`jit`]).
    jit: jit::JitCache,
    /// `state` with PPSSPP's C++ fallback sampler, built on demand.
    fallback_state: Option<Arc<DrawState>>,
    /// Immediate-mode vertex buffer ([`immediate`]).
    imm: immediate::ImmState,
    /// Assembly buffers reused from PRIM to PRIM.
    scratch: assemble::Scratch,
    /// Last id given to a decoded transform state ([`Ge::decode_transform`]).
    transform_ids: u64,
    /// A PRIM's assembly vertices (buffer reused from PRIM to PRIM).
    verts: Vec<assemble::AsmVertex>,
}

impl Default for DrawContext {
    fn default() -> Self {
        DrawContext {
            queue: queue::BinQueue::default(),
            target: None,
            state: None,
            state_dirty: true,
            raster_dirty: true,
            asm: assemble::Assembler::default(),
            persist: Persist::default(),
            pool: None,
            trace_pixel: None,
            draw_count: 0,
            jit: jit::JitCache::default(),
            fallback_state: None,
            imm: immediate::ImmState::default(),
            scratch: assemble::Scratch::default(),
            transform_ids: 0,
            verts: Vec::new(),
        }
    }
}

/// The colour and depth buffers the registers select
/// (ge-reference.md §15.5: VRAM + (ptr & 0x1FFFF0), stride & 0x7FC).
pub fn fb_target(regs: &Regs) -> FbTarget {
    FbTarget {
        color_addr: 0x0400_0000 | (regs.arg(op::FRAMEBUFPTR) & 0x1F_FFF0),
        stride: regs.arg(op::FRAMEBUFWIDTH) & 0x7FC,
        fmt: FbFormat::from_bits(regs.arg(op::FRAMEBUFPIXFORMAT)),
        depth_addr: 0x0400_0000 | (regs.arg(op::ZBUFPTR) & 0x1F_FFF0),
        zstride: regs.arg(op::ZBUFWIDTH) & 0x7FC,
    }
}

impl Ge {
    /// The current draw state, rebuilt only when registers or the CLUT changed.
    fn current_state(&mut self, through: bool) -> Arc<DrawState> {
        if let Some(s) = &self.draw.state {
            if !self.draw.state_dirty && s.through == through {
                return s.clone();
            }
        }
        let mut s = DrawState::decode(&self.regs, &self.mats, &self.clut, through);
        s.trace = self.draw.trace_pixel;
        s.draw = self.draw.draw_count;
        let new_cell = self.draw.raster_dirty || self.draw.state.as_ref().is_none_or(|p| p.through != through);
        if !new_cell {
            if let Some(prev) = &self.draw.state {
                s.opt_cell = prev.opt_cell.clone();
            }
        }
        self.draw.jit.state_created(&s);
        let s = Arc::new(s);
        self.draw.fallback_state = None;
        if new_cell {
            self.draw.queue.state_created(&s);
        }
        self.draw.state = Some(s.clone());
        self.draw.state_dirty = false;
        self.draw.raster_dirty = false;
        s
    }

    /// Decode the transform state for a draw and give it a fresh id (see
    /// [`TransformState::id`]); ids come from this GE only, so no state is shared.
    pub(crate) fn decode_transform(&mut self, vtype: &VertexType) -> TransformState {
        let mut ts = TransformState::decode(&self.regs, &self.mats, vtype);
        self.draw.transform_ids += 1;
        ts.id = self.draw.transform_ids;
        ts
    }

    fn decode_params(&self) -> DecodeParams {
        let mut morph_weights = [0.0; 8];
        for (i, w) in morph_weights.iter_mut().enumerate() {
            *w = self.regs.float(op::MORPHWEIGHT0 + i as u8);
        }
        let [r, g, b] = self.regs.rgb(op::MATERIALAMBIENT);
        DecodeParams { morph_weights, material: [r, g, b, self.regs.arg(op::MATERIALALPHA) as u8] }
    }

    /// PRIM: decode, transform, assemble and bin.
    pub(crate) fn draw_prim(&mut self, arg: u32) -> Result<(), MemError> {
        self.draw.draw_count += 1;
        if self.draw.trace_pixel.is_some() {
            // Each draw gets its own state so traces can name the draw.
            self.draw.state_dirty = true;
        }
        let count = arg & 0xFFFF;
        let prim = PrimType::from_bits(arg >> 16);
        let vtype = VertexType::from_bits(self.regs.arg(op::VERTEXTYPE));
        let layout = VertexLayout::new(vtype.raw);
        let params = self.decode_params();
        let saved_uv = self.draw.persist.uv;
        let decoded =
            vertex::decode_draw(&self.mem, &layout, self.vaddr, self.iaddr, count, &params, &mut self.draw.persist)?;
        // Texcoords are only read (and remembered) while texturing outside clear mode
        // [PP `TransformUnit::ReadVertex`].
        if !self.regs.enabled(op::TEXTUREMAPENABLE) || self.regs.enabled(op::CLEARMODE) {
            self.draw.persist.uv = saved_uv;
        }
        self.vaddr = decoded.vaddr;
        self.iaddr = decoded.iaddr;
        // No position format: the whole draw is dropped, assembly state untouched
        // [PP `SubmitPrimitive`; HW `primitives/triangles` "nofmt"].
        if vtype.position == NumFormat::None {
            return Ok(());
        }
        let ts = self.decode_transform(&vtype);
        let mut verts = std::mem::take(&mut self.draw.verts);
        verts.clear();
        verts.extend(decoded.vertices.iter().map(|v| assemble::AsmVertex::new(&ts, v)));
        let cull = crate::clip::CullMode::decode(&self.regs);
        self.with_sink(&ts, vtype.through, false, |asm, sink| asm.submit(prim, &verts, cull, sink));
        self.draw.verts = verts;
        Ok(())
    }

    /// Run primitive assembly (`f`) under the current state; `imm`: the vertices are
    /// immediate-mode ones with given screen positions.
    fn with_sink(
        &mut self,
        ts: &TransformState,
        through: bool,
        imm: bool,
        f: impl FnOnce(&mut assemble::Assembler, &mut assemble::Sink),
    ) {
        // [PP `PixelJitCache::GetSingle`, `SamplerJitCache`] a function not compiled yet
        // flushes the bins first (see [`queue`]). This happens while PPSSPP creates the
        // new state, which that drain must not optimize yet [PP
        // `BinManager::OptimizePendingStates` `creatingState_`], so flush before the state
        // is registered.
        if self.draw.queue.update_state(&self.regs, through) {
            self.flush();
        }
        let state = self.current_state(through);
        let target = fb_target(&self.regs);
        if self.draw.target != Some(target) {
            self.flush();
            self.draw.target = Some(target);
        }
        if self.draw.queue.update_binner(&state, &target) {
            self.flush();
        }
        let ctx = &mut self.draw;
        let mut sink = assemble::Sink {
            queue: &mut ctx.queue,
            state,
            ts,
            jit: &mut ctx.jit,
            fallback_state: &mut ctx.fallback_state,
            scratch: &mut ctx.scratch,
            imm,
        };
        f(&mut ctx.asm, &mut sink);
        sink.finish();
    }

    /// [PP `GPUCommon::SetDrawType`] (curves and immediate primitives only): a change
    /// between triangle-type and other primitives flushes the bins.
    pub(crate) fn set_draw_prim_class(&mut self, triangle: bool) {
        if triangle != self.draw.queue.last_triangle_class {
            self.flush();
            self.draw.queue.last_triangle_class = triangle;
        }
    }

    /// Rasterize everything binned so far into memory.
    pub fn flush(&mut self) {
        self.draw.queue.flush();
        if self.draw.queue.binner.is_empty() {
            return;
        }
        let Some(target) = self.draw.target else { return };
        self.draw.jit.flushed();
        let pool = self.draw.pool.clone();
        self.draw.queue.binner.flush(&target, &mut self.mem, pool.as_deref(), &rasterize_prim);
        self.draw.queue.unrasterized = Default::default();
    }

    /// Use a dedicated rayon pool with `threads` threads for rasterization (1 = serial).
    pub fn set_threads(&mut self, threads: usize) {
        self.draw.pool = rayon::ThreadPoolBuilder::new().num_threads(threads.max(1)).build().ok().map(Arc::new);
    }

    /// Share an existing rayon pool for rasterization.
    pub fn set_pool(&mut self, pool: Arc<rayon::ThreadPool>) {
        self.draw.pool = Some(pool);
    }
}

/// Rasterize one binned primitive into a band.
fn rasterize_prim(p: &BinnedPrim, tile: &mut Tile, mem: &Memory) {
    let st = &*p.state;
    let mut setup =
        RasterSetup::new(st.scissor, !st.through, st.texture.is_some()).with_band(tile.y0, tile.y0 + tile.rows - 1);
    setup.flat_shading = st.flat;
    setup.antialias_lines = st.antialias;
    setup.rule = st.raster;
    if let Some((x, y)) = st.trace {
        if tile.y0 <= y && y < tile.y0 + tile.rows {
            eprintln!("trace draw {} shape {:?}", st.draw, p.shape);
            if std::env::var_os("TRACE_STATE").is_some() {
                eprintln!("trace draw {} opt {:08x} pixel state {:?}", st.draw, p.opt, st.pixel);
            }
        }
        let _ = x;
    }
    let optimized = optimize::apply(&st.pixel, p.opt);
    let px = optimized.as_ref().unwrap_or(&st.pixel);
    let (band_y0, band_end) = (tile.y0, tile.y0 + tile.rows);
    let mut emit = |q: &Quad| shade_quad(st, px, tile, mem, q);
    let whole = [st.scissor];
    let strips: &[ClipRect] = p.tasks.as_deref().unwrap_or(&whole);
    for strip in strips {
        // [PP `BinManager::Drain`] each task draws the primitive with its range cut to
        // the task's strip.
        setup.clip = st.scissor.intersect(strip);
        if setup.clip.is_empty() || setup.clip.y1 < band_y0 || setup.clip.y0 >= band_end {
            continue;
        }
        match &p.shape {
            Shape::Triangle(v) => raster::triangle(v, &setup, &mut emit),
            Shape::Rectangle(v) => raster::rectangle(v, &setup, &mut emit),
            Shape::Sprite(v) => raster::sprite(v, &setup, &mut emit),
            Shape::ClearRect(v) => raster::clear_rectangle(v, &setup, &mut emit),
            Shape::Line(v) => raster::line(v, &setup, &mut emit),
            Shape::Point(v) => raster::point(v, &setup, &mut emit),
        }
    }
}

/// Texture and draw the covered fragments of a quad.
fn shade_quad(st: &DrawState, px: &PixelState, tile: &mut Tile, mem: &Memory, q: &Quad) {
    let colors = match &st.texture {
        Some(t) if !st.clear => texture::shade_quad(t, mem, q, q.w),
        _ => {
            let mut c = [[0u8; 4]; 4];
            for (i, f) in q.frags.iter().enumerate() {
                // Clear mode draws the flat vertex colour; otherwise the secondary colour
                // is added and clamped [PP `Rasterizer.cpp` DrawTriangleSlice].
                c[i] = if st.clear { f.color0 } else { texture::add_secondary(f.color0.map(i32::from), f.color1) };
            }
            c
        }
    };
    if st.trace.is_none() {
        pixel::draw_quad(px, tile, &q.frags, q.mask, &colors);
        return;
    }
    for (i, f) in q.frags.iter().enumerate() {
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
    use crate::cmd::{op, word};
    use crate::exec::Ge;

    /// Draw one through-mode triangle of 8888-coloured s16 vertices in clear mode (colour
    /// only) into an 8888 framebuffer and return the pixel at (4, 4).
    fn clear_triangle(shade_gouraud: bool, verts: [([u8; 4], i16, i16); 3]) -> u32 {
        let mut ge = Ge::new();
        let vaddr = 0x0880_0000u32;
        for (i, (c, x, y)) in verts.iter().enumerate() {
            let a = vaddr + 12 * i as u32;
            ge.mem.write(a, c).unwrap();
            ge.mem.write(a + 4, &x.to_le_bytes()).unwrap();
            ge.mem.write(a + 6, &y.to_le_bytes()).unwrap();
            ge.mem.write(a + 8, &[0; 4]).unwrap();
        }
        for w in [
            word(op::FRAMEBUFPTR, 0),
            word(op::FRAMEBUFWIDTH, 512),
            word(op::FRAMEBUFPIXFORMAT, 3),
            word(op::SCISSOR2, (271 << 10) | 479),
            word(op::REGION2, (271 << 10) | 479),
            word(op::CLEARMODE, 0x101),
            word(op::SHADEMODE, shade_gouraud as u32),
            word(op::BASE, 0x08_0000),
            word(op::VADDR, 0x80_0000),
            word(op::VERTEXTYPE, 0x80_011C),
            word(op::PRIM, (3 << 16) | 3),
        ] {
            ge.execute_word(w).unwrap();
        }
        ge.flush();
        ge.mem.read_u32(0x0400_0000 + 4 * (4 * 512 + 4)).unwrap()
    }

    const RED: [u8; 4] = [255, 0, 0, 255];
    const GREEN: [u8; 4] = [0, 255, 0, 255];
    const BLUE: [u8; 4] = [0, 0, 255, 255];

    /// [PP `Clipper.cpp` ProcessTriangle]: the provoking colour is copied only under flat
    /// SHADEMODE. In clear mode with Gouraud SHADEMODE the colour is the third vertex of
    /// the winding `AddTriangle` accepts: a triangle given clockwise on screen is binned as
    /// (v2, v1, v0), so it is drawn with v0's colour.
    #[test]
    fn clear_mode_gouraud_triangle_colour_follows_winding() {
        // (0,0) (0,16) (16,0): d01 = (0,-16), d02 = (-16,0), cross = -256 < 0, so this
        // order is dropped and (v2, v1, v0) is drawn, whose third vertex is the red v0.
        let cw = [(RED, 0, 0), (GREEN, 0, 16), (BLUE, 16, 0)];
        // (0,0) (16,0) (0,16): cross = +256, drawn as given, blue v2.
        let ccw = [(RED, 0, 0), (GREEN, 16, 0), (BLUE, 0, 16)];
        // CLEARMODE 0x101 leaves the (zero) alpha/stencil byte alone.
        let (r, b) = (0x0000_00FFu32, 0x00FF_0000u32);
        assert_eq!(clear_triangle(true, cw), r);
        assert_eq!(clear_triangle(true, ccw), b);
        // Flat SHADEMODE: always the last vertex.
        assert_eq!(clear_triangle(false, cw), b);
        assert_eq!(clear_triangle(false, ccw), b);
    }
}
