//! Composition of the GE stages for one draw.
//!
//! A PRIM decodes its vertices ([`crate::vertex`]), transforms them
//! ([`crate::transform`]), assembles primitives of its type ([`assemble`]: keeping an
//! incomplete primitive for a following PRIM type 7), clips and culls them
//! ([`crate::clip`]) and bins them with an immutable snapshot of the pixel and texture
//! state ([`DrawState`]). [`Ge::flush`] rasterizes the bins band by band in parallel
//! ([`crate::bin`]); each covered 2x2 quad is textured ([`crate::texture`]) and each
//! fragment runs the pixel pipeline ([`crate::pixel`]).
//!
//! Design notes:
//! * The state snapshot is rebuilt only when a register or the CLUT changed since the last
//!   PRIM (`state_dirty`), so long runs of draws share one `Arc<DrawState>`.
//! * Binning defers all memory writes to [`Ge::flush`], which the executor calls before
//!   anything that reads or writes memory a binned draw may touch (framebuffer changes,
//!   block transfers, the end of a list, replay uploads).

mod assemble;
mod bbox;
mod curve;
mod jit;

use std::sync::Arc;

use crate::bin::{Binner, FbTarget};
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
    pub dither: bool,
    /// Texture-matrix projection that really needs q (PPSSPP `ComputeRasterizerState`
    /// drops trivial projections).
    pub texture_proj: bool,
    pub fog: bool,
    /// Depth write on or a depth test other than ALWAYS (rectangle detection).
    pub depth_matters: bool,
    pub antialias: bool,
    /// Inclusive drawing-coordinate scissor: SCISSOR1 .. min(SCISSOR2, REGION2)
    /// [PP `BinManager.cpp` scissor setup].
    pub scissor: ClipRect,
    /// Debugging: report every fragment drawn at this pixel to stderr.
    pub trace: Option<(i32, i32)>,
    /// Number of the PRIM this state was built for (for traces).
    pub draw: u64,
}

impl DrawState {
    pub fn decode(regs: &Regs, mats: &Matrices, clut: &[u8; 1024], through: bool) -> DrawState {
        let pixel = PixelState::decode(regs, through);
        let clear = pixel.clear_mode();
        let texture = (regs.enabled(op::TEXTUREMAPENABLE) && !clear).then(|| TextureState::decode(regs, clut, through));
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
            regs.enabled(op::ZTESTENABLE)
                && (!regs.enabled(op::ZWRITEDISABLE) || regs.field(op::ZTEST, 0, 3) != 1)
        };
        DrawState {
            pixel,
            clear,
            through,
            flat: clear || regs.arg(op::SHADEMODE) & 1 == 0,
            dither: regs.enabled(op::DITHERENABLE),
            texture_proj,
            fog: !through && !clear && regs.enabled(op::FOGENABLE),
            depth_matters,
            antialias: regs.enabled(op::ANTIALIASENABLE),
            texture,
            scissor,
            trace: None,
            draw: 0,
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
}

/// Per-GE drawing state that persists between PRIM commands.
pub struct DrawContext {
    binner: Binner<BinnedPrim>,
    target: Option<FbTarget>,
    state: Option<Arc<DrawState>>,
    /// Set when any register changed since `state` was built.
    pub(crate) state_dirty: bool,
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
}

impl Default for DrawContext {
    fn default() -> Self {
        DrawContext {
            binner: Binner::new(BAND_ROWS),
            target: None,
            state: None,
            state_dirty: true,
            asm: assemble::Assembler::default(),
            persist: Persist::default(),
            pool: None,
            trace_pixel: None,
            draw_count: 0,
            jit: jit::JitCache::default(),
            fallback_state: None,
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
        self.draw.jit.state_created(&s);
        let s = Arc::new(s);
        self.draw.fallback_state = None;
        self.draw.state = Some(s.clone());
        self.draw.state_dirty = false;
        s
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
        let ts = TransformState::decode(&self.regs, &self.mats, &vtype);
        let verts: Vec<assemble::AsmVertex> =
            decoded.vertices.iter().map(|v| assemble::AsmVertex::new(&ts, v)).collect();
        let cull = crate::clip::CullMode::decode(&self.regs);
        self.submit_assembled(prim, &verts, cull, &ts, vtype.through);
        Ok(())
    }

    /// Hand transformed vertices to primitive assembly under the current state.
    fn submit_assembled(
        &mut self,
        prim: PrimType,
        verts: &[assemble::AsmVertex],
        cull: crate::clip::CullMode,
        ts: &TransformState,
        through: bool,
    ) {
        let state = self.current_state(through);
        let target = fb_target(&self.regs);
        if self.draw.target != Some(target) {
            self.flush();
            self.draw.target = Some(target);
        }
        let ctx = &mut self.draw;
        let mut sink = assemble::Sink {
            binner: &mut ctx.binner,
            state,
            ts,
            jit: &mut ctx.jit,
            fallback_state: &mut ctx.fallback_state,
            pending: Vec::new(),
        };
        ctx.asm.submit(prim, verts, cull, &mut sink);
        sink.finish();
    }

    pub(crate) fn immediate_vertex(&mut self, _arg: u32) {}

    /// Rasterize everything binned so far into memory.
    pub fn flush(&mut self) {
        if self.draw.binner.is_empty() {
            return;
        }
        let Some(target) = self.draw.target else { return };
        self.draw.jit.flushed();
        let pool = self.draw.pool.clone();
        self.draw.binner.flush(&target, &mut self.mem, pool.as_deref(), &rasterize_prim);
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
    let mut setup = RasterSetup::new(st.scissor, !st.through, st.texture.is_some())
        .with_band(tile.y0, tile.y0 + tile.rows - 1);
    setup.flat_shading = st.flat;
    setup.antialias_lines = st.antialias;
    if let Some((x, y)) = st.trace {
        if tile.y0 <= y && y < tile.y0 + tile.rows {
            eprintln!("trace draw {} shape {:?}", st.draw, p.shape);
        }
        let _ = x;
    }
    let mut emit = |q: &Quad| shade_quad(st, tile, mem, q);
    match &p.shape {
        Shape::Triangle(v) => raster::triangle(v, &setup, &mut emit),
        Shape::Rectangle(v) => raster::rectangle(v, &setup, &mut emit),
        Shape::Sprite(v) => raster::sprite(v, &setup, &mut emit),
        Shape::ClearRect(v) => raster::clear_rectangle(v, &setup, &mut emit),
        Shape::Line(v) => raster::line(v, &setup, &mut emit),
        Shape::Point(v) => raster::point(v, &setup, &mut emit),
    }
}

/// Texture and draw the covered fragments of a quad.
fn shade_quad(st: &DrawState, tile: &mut Tile, mem: &Memory, q: &Quad) {
    // guess: slope-mode LOD wants the clip w at the quad's first pixel; not interpolated
    // yet, so slope mode sees w = 0 (PPSSPP `DrawTriangleSlice` passes the real w).
    let colors = match &st.texture {
        Some(t) if !st.clear => texture::shade_quad(t, mem, q, 0.0),
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
    for (i, f) in q.frags.iter().enumerate() {
        if q.mask & (1 << i) != 0 {
            if st.trace == Some((f.x, f.y)) {
                trace_fragment(st, tile, f, colors[i], mem);
            }
            pixel::draw_pixel(&st.pixel, tile, f.x, f.y, f.z, colors[i], f.fog);
        }
    }
}

#[cold]
fn trace_fragment(st: &DrawState, tile: &mut Tile, f: &crate::geom::Fragment, color: [u8; 4], mem: &Memory) {
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
    pixel::draw_pixel(&st.pixel, &mut probe, f.x, f.y, f.z, color, f.fog);
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
            t.format, t.clut_format, t.clut_index, t.levels[0], t.max_level, t.swizzle, t.clamp_s, t.clamp_t,
            t.min_linear, t.mag_linear, t.mip_linear, t.lod_mode, t.lod_bias
        );
    }
}
