//! Composition of the GE stages for one draw.
//!
//! A PRIM decodes its vertices ([`crate::vertex`]), transforms them
//! ([`crate::transform`]), assembles primitives of its type (`assemble`: keeping an
//! incomplete primitive for a following PRIM type 7), clips and culls them
//! ([`crate::clip`]) and bins them with an immutable snapshot of the pixel and texture
//! state ([`DrawState`]). [`Ge::flush`] rasterizes the bins band by band in parallel
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
//! * The state snapshot is rebuilt only when a register or the CLUT changed since the last
//!   PRIM (`state_dirty`), so long runs of draws share one `Arc<DrawState>`.
//! * Binning defers all memory writes to [`Ge::flush`], which the executor calls before
//!   anything that reads or writes memory a binned draw may touch (framebuffer changes,
//!   block transfers, the end of a list, replay uploads) and the draw path calls before a
//!   draw that textures from memory binned draws write ([`WrittenSpan`]; PPSSPP's own
//!   rule in the PPSSPP model).

mod assemble;
mod bbox;
mod curve;
mod immediate;

use std::sync::Arc;

use crate::bin::FbTarget;
use crate::cmd::op;
use crate::exec::Ge;
use crate::geom::{NumFormat, PrimType, Quad, ScreenVertex, VertexType};
use crate::mem::{MemError, Memory};
use crate::model::Model;
use crate::pixel::{self, PixelState};
use crate::ppsspp;
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
    /// What PPSSPP's state optimizations read and accumulate (PPSSPP model only).
    pub ppsspp: Option<ppsspp::StateData>,
}

impl DrawState {
    /// Decode the state of a draw under `model`'s rules (the PPSSPP model's
    /// [`ppsspp::StateData`] is added by the draw context, which knows the previous state).
    pub fn decode(regs: &Regs, mats: &Matrices, clut: &[u8; 1024], through: bool, model: Model) -> DrawState {
        let mut pixel = PixelState::decode(regs, through);
        if model == Model::Ppsspp {
            ppsspp::rewrite_pixel(&mut pixel);
        }
        let clear = pixel.clear_mode();
        let texture = (regs.enabled(op::TEXTUREMAPENABLE) && !clear).then(|| {
            let mut t = TextureState::decode(regs, clut, through);
            t.sampler = model.sampler_rule();
            t
        });
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
            raster: model.raster_rule(),
            texture,
            scissor,
            trace: None,
            draw: 0,
            ppsspp: None,
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
    /// What PPSSPP's drain fixed for it (strips, state optimization); the default in the
    /// hardware model.
    pub fix: ppsspp::PrimFix,
}

/// The bounds of `shape` within the state's scissor; `None` when they miss it
/// [PP `BinManager::Add*` range check].
pub(crate) fn scissored_bounds(state: &DrawState, shape: &Shape) -> Option<ClipRect> {
    let b = match shape {
        Shape::Triangle(v) => raster::bounds(v),
        Shape::Rectangle(v) | Shape::Sprite(v) | Shape::ClearRect(v) | Shape::Line(v) => raster::bounds(v),
        Shape::Point(v) => raster::bounds(std::slice::from_ref(v)),
    };
    let r = b.intersect(&state.scissor);
    (!r.is_empty()).then_some(r)
}

/// VRAM bytes the binned draws may write (colour and depth rows under their scissor,
/// widened to whole 1024-pixel rows; everything when a range runs past VRAM). A draw
/// texturing from these bytes must see them written, so the bins are rasterized first.
#[derive(Clone, Copy, Default)]
pub struct WrittenSpan {
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
    fn add(&mut self, st: &DrawState, fb: &FbTarget) {
        let bpp = fb.fmt.bpp();
        self.add_rows(fb.color_addr & 0x041F_FFFF, fb.stride * bpp, bpp, &st.scissor);
        if st.pixel.depth_write {
            self.add_rows(fb.depth_addr & 0x041F_FFFF, fb.zstride * 2, 2, &st.scissor);
        }
    }

    /// Some texture level of `st` reads a written byte (VRAM mirrors folded).
    fn textured_by(&self, st: &DrawState) -> bool {
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
    /// Immediate-mode vertex buffer ([`immediate`]).
    imm: immediate::ImmState,
    /// Assembly buffers reused from PRIM to PRIM.
    scratch: assemble::Scratch,
    /// Last id given to a decoded transform state ([`Ge::decode_transform`]).
    transform_ids: u64,
    /// A PRIM's assembly vertices (buffer reused from PRIM to PRIM).
    verts: Vec<assemble::AsmVertex>,
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
            raster_dirty: true,
            asm: assemble::Assembler::default(),
            persist: Persist::default(),
            pool: None,
            trace_pixel: None,
            draw_count: 0,
            imm: immediate::ImmState::default(),
            scratch: assemble::Scratch::default(),
            transform_ids: 0,
            verts: Vec::new(),
        }
    }

    pub fn model(&self) -> Model {
        self.model
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
        let mut s = DrawState::decode(&self.regs, &self.mats, &self.clut, through, self.draw.model);
        s.trace = self.draw.trace_pixel;
        s.draw = self.draw.draw_count;
        let new_cell = self.draw.raster_dirty || self.draw.state.as_ref().is_none_or(|p| p.through != through);
        if self.draw.ppsspp.is_some() {
            let prev = self.draw.state.as_ref().and_then(|p| p.ppsspp.as_ref());
            s.ppsspp = Some(ppsspp::StateData::decode(&self.regs, &self.clut, &s, prev, new_cell));
        }
        let s = Arc::new(s);
        if let Some(m) = self.draw.ppsspp.as_mut() {
            m.state_decoded(&s, new_cell);
        }
        self.draw.state = Some(s.clone());
        self.draw.state_dirty = false;
        self.draw.raster_dirty = false;
        s
    }

    /// Decode the transform state for a draw and give it a fresh id (see
    /// [`TransformState::id`]); ids come from this GE only, so no state is shared.
    pub(crate) fn decode_transform(&mut self, vtype: &VertexType) -> TransformState {
        let mut ts = TransformState::decode(&self.regs, &self.mats, vtype, self.draw.model.rsqrt_rule());
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

    /// Run primitive assembly (`f`) under the current state and bin what it makes; `imm`:
    /// the vertices are immediate-mode ones with given screen positions.
    fn with_sink(
        &mut self,
        ts: &TransformState,
        through: bool,
        imm: bool,
        f: impl FnOnce(&mut assemble::Assembler, &mut assemble::Sink),
    ) {
        if self.draw.ppsspp.as_mut().is_some_and(|m| m.compiles(&self.regs, through)) {
            self.flush();
        }
        let state = self.current_state(through);
        let target = fb_target(&self.regs);
        if self.draw.target != Some(target) {
            self.flush();
            self.draw.target = Some(target);
        }
        let ctx = &mut self.draw;
        let must_rasterize = match ctx.ppsspp.as_mut() {
            Some(m) => m.before_bin(&mut ctx.binner, &state, &target),
            None => ctx.written.textured_by(&state),
        };
        if must_rasterize {
            self.flush();
        }
        let ctx = &mut self.draw;
        let mut sink = assemble::Sink { state: state.clone(), ts, scratch: &mut ctx.scratch, imm };
        f(&mut ctx.asm, &mut sink);
        let mut shapes = std::mem::take(&mut ctx.scratch.pending);
        match ctx.ppsspp.as_mut() {
            Some(m) => m.bin(&mut ctx.binner, &state, &mut shapes),
            None => {
                let before = ctx.binner.len();
                for shape in shapes.drain(..) {
                    if let Some(r) = scissored_bounds(&state, &shape) {
                        ctx.binner.push(r, BinnedPrim { state: state.clone(), shape, fix: Default::default() });
                    }
                }
                if ctx.binner.len() != before {
                    ctx.written.add(&state, &target);
                }
            }
        }
        ctx.scratch.pending = shapes;
    }

    /// [PP `GPUCommon::SetDrawType`] (curves and immediate primitives only): a change
    /// between triangle-type and other primitives flushes PPSSPP's bins.
    pub(crate) fn set_draw_prim_class(&mut self, triangle: bool) {
        if self.draw.ppsspp.as_mut().is_some_and(|m| m.draw_type(triangle)) {
            self.flush();
        }
    }

    /// Rasterize everything binned so far into memory.
    pub fn flush(&mut self) {
        let ctx = &mut self.draw;
        if let Some(m) = ctx.ppsspp.as_mut() {
            m.flush(&mut ctx.binner);
        }
        if ctx.binner.is_empty() {
            return;
        }
        let Some(target) = ctx.target else { return };
        if let Some(m) = ctx.ppsspp.as_mut() {
            m.rasterized();
        }
        ctx.written = WrittenSpan::default();
        let pool = ctx.pool.clone();
        ctx.binner.flush(&target, &mut self.mem, pool.as_deref(), &rasterize_prim);
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
                eprintln!("trace draw {} opt {:08x} pixel state {:?}", st.draw, p.fix.opt(), st.pixel);
            }
        }
        let _ = x;
    }
    let px = p.fix.pixel(&st.pixel);
    let px = &*px;
    let (band_y0, band_end) = (tile.y0, tile.y0 + tile.rows);
    let mut emit = |q: &Quad| shade_quad(st, px, tile, mem, q);
    let whole = [st.scissor];
    let strips: &[ClipRect] = p.fix.strips().unwrap_or(&whole);
    for strip in strips {
        // PPSSPP's strips: each draws the primitive with its range cut to the strip.
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
    use crate::Model;

    /// Draw one through-mode triangle of 8888-coloured s16 vertices in clear mode (colour
    /// only) into an 8888 framebuffer and return the pixel at (4, 4).
    fn clear_triangle(shade_gouraud: bool, verts: [([u8; 4], i16, i16); 3]) -> u32 {
        let mut ge = Ge::with_model(Model::Ppsspp);
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

    /// A draw texturing from framebuffer bytes an earlier, still binned draw writes must
    /// see them written (the GE draws in order): rows 0..16 are cleared red, then a
    /// through-mode sprite at rows 100..116 textures from VRAM 0 (the framebuffer itself,
    /// 8888, stride 512) and must copy the red, in both models.
    #[test]
    fn texturing_from_binned_writes_sees_them() {
        for model in Model::ALL {
            let mut l = crate::list::ListBuilder::new();
            l.standard_setup(3);
            let mut v = Vec::new();
            for (c, x, y) in [(0xFF00_00FFu32, 0i16, 0i16), (0xFF00_00FF, 16, 16)] {
                v.extend_from_slice(&c.to_le_bytes());
                v.extend_from_slice(&x.to_le_bytes());
                v.extend_from_slice(&y.to_le_bytes());
                v.extend_from_slice(&[0; 4]);
            }
            l.cmd(op::CLEARMODE, 0x101).cmd(op::VERTEXTYPE, (1 << 23) | (7 << 2) | (2 << 7)).vertices(&v).prim(6, 2);
            l.cmd(op::CLEARMODE, 0);
            // Texture = VRAM 0x04000000, 8888, bufw 512, 16x16; REPLACE, nearest.
            l.cmd(op::TEXADDR0, 0).cmd(op::TEXBUFWIDTH0, 0x04_0000 | 512).cmd(op::TEXSIZE0, 4 | 4 << 8);
            l.cmd(op::TEXFORMAT, 3).cmd(op::TEXFUNC, 3 | 1 << 8).cmd(op::TEXFILTER, 0).cmd(op::TEXTUREMAPENABLE, 1);
            let mut t = Vec::new();
            for (u, x, y) in [(0i16, 0i16, 100i16), (16, 16, 116)] {
                for c in [u, u] {
                    t.extend_from_slice(&c.to_le_bytes());
                }
                t.extend_from_slice(&[0xFF; 4]);
                t.extend_from_slice(&x.to_le_bytes());
                t.extend_from_slice(&y.to_le_bytes());
                t.extend_from_slice(&[0; 4]);
            }
            // s16 texcoords, 8888 colour, s16 positions, through mode.
            l.cmd(op::VERTEXTYPE, (1 << 23) | 2 | (7 << 2) | (2 << 7)).vertices(&t).prim(6, 2);
            l.finish();
            let mut ge = Ge::with_model(model);
            l.run(&mut ge).unwrap();
            let px = |x: u32, y: u32| ge.mem.read_u32(0x0400_0000 + 4 * (y * 512 + x)).unwrap();
            assert_eq!(px(3, 3), 0x0000_00FF, "{model}: the clear (colour only)");
            assert_eq!(px(3, 103) & 0x00FF_FFFF, 0x0000_00FF, "{model}: the copy reads the cleared red");
        }
    }
}
