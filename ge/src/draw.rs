//! Primitive assembly and the composition of the GE stages for one draw.
//!
//! A PRIM decodes its vertices ([`crate::vertex`]), transforms them
//! ([`crate::transform`]), assembles primitives of its type (keeping an incomplete
//! primitive for a following PRIM type 7), clips and culls them ([`crate::clip`]) and
//! bins them with an immutable snapshot of the pixel/texture state ([`DrawState`]).
//! [`Ge::flush`] rasterizes the bins band by band in parallel ([`crate::bin`]); each
//! covered 2x2 quad is textured ([`crate::texture`]) and each fragment runs the pixel
//! pipeline ([`crate::pixel`]).
//!
//! Assembly mirrors PPSSPP `TransformUnit::SubmitPrimitive`: the same vertex ring
//! buffers for strips and fans (the vertex order handed to the rasterizer affects float
//! rounding, so it is reproduced), the strip/fan alternating cull, and "cull off"
//! submitting both windings of which the rasterizer keeps the one with a non-negative
//! screen cross product (PPSSPP `BinManager::AddTriangle`).

use std::sync::Arc;

use crate::bin::{Binner, FbTarget};
use crate::clip::{self, CullMode};
use crate::cmd::op;
use crate::exec::Ge;
use crate::geom::{ClipVertex, NumFormat, PrimType, Quad, ScreenVertex, VertexType};
use crate::mem::MemError;
use crate::pixel::{self, PixelState};
use crate::raster::{self, ClipRect, RasterSetup};
use crate::regs::Regs;
use crate::texture::{self, TextureState};
use crate::tile::{FbFormat, Tile};
use crate::transform::{self, TransformState};
use crate::vertex::{self, DecodeParams, Persist, VertexLayout};

/// Rows per render band. 16 rows give 17 bands for a 272-line frame: enough to balance
/// two to eight threads while keeping per-band setup small.
pub const BAND_ROWS: i32 = 16;

/// Everything the rasterizer and the fragment stages need for one draw; shared by all
/// primitives binned while it is current.
pub struct DrawState {
    pub pixel: PixelState,
    /// `None` when texturing is off (or in clear mode, which never textures).
    pub texture: Option<TextureState>,
    pub clear: bool,
    pub through: bool,
    /// Inclusive drawing-coordinate scissor: SCISSOR1 .. min(SCISSOR2, REGION2)
    /// [PP `BinManager.cpp` scissor setup].
    pub scissor: ClipRect,
}

impl DrawState {
    pub fn decode(regs: &Regs, clut: &[u8; 1024], through: bool) -> DrawState {
        let pixel = PixelState::decode(regs, through);
        let clear = pixel.clear_mode();
        let texture = (regs.enabled(op::TEXTUREMAPENABLE) && !clear).then(|| TextureState::decode(regs, clut, through));
        let scissor = ClipRect {
            x0: regs.field(op::SCISSOR1, 0, 10) as i32,
            y0: regs.field(op::SCISSOR1, 10, 10) as i32,
            x1: regs.field(op::SCISSOR2, 0, 10).min(regs.field(op::REGION2, 0, 10)) as i32,
            y1: regs.field(op::SCISSOR2, 10, 10).min(regs.field(op::REGION2, 10, 10)) as i32,
        };
        DrawState { pixel, texture, clear, through, scissor }
    }
}

/// A primitive in drawing coordinates.
#[derive(Debug, Clone, Copy)]
pub enum Shape {
    Triangle([ScreenVertex; 3]),
    Rectangle([ScreenVertex; 2]),
    Line([ScreenVertex; 2]),
    Point(ScreenVertex),
}

/// What the binner stores.
pub struct BinnedPrim {
    pub state: Arc<DrawState>,
    pub shape: Shape,
}

/// A vertex waiting for primitive assembly: clip space in transform mode, screen space
/// in through mode.
#[derive(Debug, Clone, Copy, Default)]
struct AsmVertex {
    clip: ClipVertex,
    screen: ScreenVertex,
}

/// Per-GE drawing state that persists between PRIM commands.
pub struct DrawContext {
    binner: Binner<BinnedPrim>,
    target: Option<FbTarget>,
    state: Option<Arc<DrawState>>,
    /// Set when any register changed since `state` was built.
    pub(crate) state_dirty: bool,
    /// Assembly ring buffer and fill count (PPSSPP `data_`, `data_index_`).
    data: [AsmVertex; 4],
    data_index: usize,
    prev_prim: PrimType,
    /// Last texcoord/normal for vertex formats without them.
    pub persist: Persist,
    /// Thread pool for rasterization; `None` uses rayon's global pool.
    pub pool: Option<Arc<rayon::ThreadPool>>,
    tris: Vec<[ScreenVertex; 3]>,
    lines: Vec<[ScreenVertex; 2]>,
}

impl Default for DrawContext {
    fn default() -> Self {
        DrawContext {
            binner: Binner::new(BAND_ROWS),
            target: None,
            state: None,
            state_dirty: true,
            data: [AsmVertex::default(); 4],
            data_index: 0,
            prev_prim: PrimType::Points,
            persist: Persist::default(),
            pool: None,
            tris: Vec::new(),
            lines: Vec::new(),
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
        let s = Arc::new(DrawState::decode(&self.regs, &self.clut, through));
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
        let verts: Vec<AsmVertex> = decoded
            .vertices
            .iter()
            .map(|v| {
                if vtype.through {
                    AsmVertex { clip: ClipVertex::default(), screen: transform::through_vertex(&ts, v) }
                } else {
                    AsmVertex { clip: transform::transform_vertex(&ts, v), screen: ScreenVertex::default() }
                }
            })
            .collect();
        self.assemble(prim, &verts, &ts, vtype.through);
        Ok(())
    }

    /// Primitive assembly with continuation (PPSSPP `SubmitPrimitive` semantics).
    fn assemble(&mut self, prim_in: PrimType, verts: &[AsmVertex], ts: &TransformState, through: bool) {
        let state = self.current_state(through);
        let target = fb_target(&self.regs);
        if self.draw.target != Some(target) {
            self.flush();
            self.draw.target = Some(target);
        }
        let prim = if prim_in == PrimType::Continue {
            self.draw.prev_prim
        } else {
            self.draw.data_index = 0;
            self.draw.prev_prim = prim_in;
            prim_in
        };
        let cull = CullMode::decode(&self.regs);
        let flat = self.regs.arg(op::SHADEMODE) & 1 == 0;
        let mut em = Emitter { ctx: &mut self.draw, state, ts, through, flat };
        let n = verts.len();
        match prim {
            PrimType::Points => {
                let pending = em.ctx.data_index;
                for i in 0..pending {
                    let v = em.ctx.data[i];
                    em.point(&v);
                }
                em.ctx.data_index = 0;
                for v in verts {
                    em.point(v);
                }
            }
            PrimType::Lines => {
                let mut i = 0;
                while i + 1 < em.ctx.data_index {
                    let (a, b) = (em.ctx.data[i], em.ctx.data[i + 1]);
                    em.line(&a, &b);
                    i += 2;
                }
                em.ctx.data_index &= 1;
                for v in verts {
                    em.ctx.data[em.ctx.data_index] = *v;
                    em.ctx.data_index += 1;
                    if em.ctx.data_index == 2 {
                        let (a, b) = (em.ctx.data[0], em.ctx.data[1]);
                        em.line(&a, &b);
                        em.ctx.data_index = 0;
                    }
                }
            }
            PrimType::Triangles => {
                for v in verts {
                    em.ctx.data[em.ctx.data_index] = *v;
                    em.ctx.data_index += 1;
                    if em.ctx.data_index < 3 {
                        continue;
                    }
                    em.ctx.data_index = 0;
                    let d = em.ctx.data;
                    em.triangle(cull, [&d[0], &d[1], &d[2]], 2);
                }
            }
            PrimType::Rectangles => {
                for v in verts {
                    em.ctx.data[em.ctx.data_index] = *v;
                    em.ctx.data_index += 1;
                    if em.ctx.data_index == 4 {
                        let d = em.ctx.data;
                        em.rectangle(&d[0], &d[1]);
                        em.rectangle(&d[2], &d[3]);
                        em.ctx.data_index = 0;
                    }
                }
                if em.ctx.data_index >= 2 {
                    let d = em.ctx.data;
                    em.rectangle(&d[0], &d[1]);
                    em.ctx.data_index -= 2;
                }
            }
            PrimType::LineStrip => {
                // The first vertex of a fresh strip draws nothing.
                let mut skip = if em.ctx.data_index == 0 { 1 } else { 0 };
                for v in verts {
                    em.ctx.data[em.ctx.data_index & 1] = *v;
                    em.ctx.data_index += 1;
                    if skip > 0 {
                        skip -= 1;
                    } else {
                        let a = em.ctx.data[em.ctx.data_index & 1];
                        let b = em.ctx.data[(em.ctx.data_index & 1) ^ 1];
                        em.line(&a, &b);
                    }
                }
            }
            PrimType::TriangleStrip => {
                let mut skip = 2usize.saturating_sub(em.ctx.data_index);
                for v in verts {
                    let slot = em.ctx.data_index % 3;
                    em.ctx.data[slot] = *v;
                    em.ctx.data_index += 1;
                    if skip > 0 {
                        skip -= 1;
                        continue;
                    }
                    let wind = (em.ctx.data_index - 1) % 2;
                    let c = if wind == 1 { cull.flipped() } else { cull };
                    let d = em.ctx.data;
                    em.triangle(c, [&d[0], &d[1], &d[2]], slot);
                }
            }
            PrimType::TriangleFan => {
                let mut skip = if em.ctx.data_index <= 1 { 1 } else { 0 };
                let mut start = 0;
                if em.ctx.data_index == 0 && n > 0 {
                    em.ctx.data[0] = verts[0];
                    em.ctx.data_index = 1;
                    start = 1;
                }
                for v in &verts[start..] {
                    let slot = 2 - (em.ctx.data_index % 2);
                    em.ctx.data[slot] = *v;
                    em.ctx.data_index += 1;
                    if skip > 0 {
                        skip -= 1;
                        continue;
                    }
                    let wind = (em.ctx.data_index - 1) % 2;
                    let c = if wind == 1 { cull.flipped() } else { cull };
                    let d = em.ctx.data;
                    em.triangle(c, [&d[0], &d[1], &d[2]], slot);
                }
            }
            PrimType::Continue => {}
        }
    }

    pub(crate) fn draw_patch(&mut self, _cmd: u8, _arg: u32) -> Result<(), MemError> {
        Ok(())
    }

    /// BOUNDINGBOX: test whether any of `count` vertices can be visible; BJUMP jumps when
    /// not. Follows PPSSPP `GPUCommon::Execute_BoundingBox` / `DrawEngineCommon::
    /// TestBoundingBox` (the hardware's exact rule is not pinned down: [HW `bounding/*`]
    /// text tests are the oracle). Positions are decoded (and morphed) but not skinned.
    pub(crate) fn bounding_box(&mut self, arg: u32) -> Result<(), MemError> {
        let count = arg & 0xFFFF;
        if count == 0 {
            self.bbox_visible = false;
            return Ok(());
        }
        let vtype = VertexType::from_bits(self.regs.arg(op::VERTEXTYPE));
        let layout = VertexLayout::new(vtype.raw);
        let params = self.decode_params();
        let mut persist = self.draw.persist;
        let decoded = match vertex::decode_draw(&self.mem, &layout, self.vaddr, self.iaddr, count, &params, &mut persist) {
            Ok(d) => d,
            Err(_) => {
                // Invalid data: PPSSPP assumes the box test passed.
                self.bbox_visible = true;
                return Ok(());
            }
        };
        self.vaddr = decoded.vaddr;
        self.iaddr = decoded.iaddr;
        // Only one window of at most 0x100 vertices decides [PP `Execute_BoundingBox`].
        let verts = &decoded.vertices;
        let window: &[crate::geom::Vertex] = if count > 0x200 {
            let start = (count - 0x200) as usize;
            &verts[start.min(verts.len())..(start + 0x100).min(verts.len())]
        } else if count > 0x100 {
            &verts[..(count - 0x100) as usize]
        } else {
            verts
        };
        self.bbox_visible = bbox_test(&self.regs, &self.mats, window);
        Ok(())
    }

    pub(crate) fn immediate_vertex(&mut self, _arg: u32) {}

    /// Rasterize everything binned so far into memory.
    pub fn flush(&mut self) {
        if self.draw.binner.is_empty() {
            return;
        }
        let Some(target) = self.draw.target else { return };
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

/// Turns assembled primitives into binned shapes.
struct Emitter<'a> {
    ctx: &'a mut DrawContext,
    state: Arc<DrawState>,
    ts: &'a TransformState,
    through: bool,
    flat: bool,
}

impl Emitter<'_> {
    fn push(&mut self, shape: Shape) {
        let b = match &shape {
            Shape::Triangle(v) => raster::bounds(v),
            Shape::Rectangle(v) | Shape::Line(v) => raster::bounds(v),
            Shape::Point(v) => raster::bounds(std::slice::from_ref(v)),
        };
        let s = self.state.scissor;
        let r = ClipRect { x0: b.x0.max(s.x0), y0: b.y0.max(s.y0), x1: b.x1.min(s.x1), y1: b.y1.min(s.y1) };
        if r.x0 > r.x1 || r.y0 > r.y1 {
            return;
        }
        self.ctx.binner.push(r, BinnedPrim { state: self.state.clone(), shape });
    }

    /// One triangle; `provoking` indexes the vertex whose colour flat shading uses.
    /// The clipper applies PPSSPP's `SendTriangle` orders and winding test.
    fn triangle(&mut self, cull: CullMode, v: [&AsmVertex; 3], provoking: usize) {
        let mut out = std::mem::take(&mut self.ctx.tris);
        out.clear();
        if self.through {
            let s = [v[0].screen, v[1].screen, v[2].screen];
            let prov = self.flat.then_some(&s[provoking]);
            clip::screen_triangles(&s, prov, cull, &mut out);
        } else {
            let prov = self.flat.then_some(&v[provoking].clip);
            clip::clip_triangle_shaded(self.ts, [&v[0].clip, &v[1].clip, &v[2].clip], prov, cull, &mut out);
        }
        for t in out.iter_mut() {
            if self.flat {
                // The rasterizer draws flat triangles in the third vertex's colour; equal
                // colours take PPSSPP's flat path too (`DrawTriangleSlice` flatColor0).
                for k in 0..2 {
                    t[k].color0 = t[2].color0;
                    t[k].color1 = t[2].color1;
                }
            }
            self.push(Shape::Triangle(*t));
        }
        self.ctx.tris = out;
    }

    fn rectangle(&mut self, a: &AsmVertex, b: &AsmVertex) {
        if self.through {
            self.push(Shape::Rectangle([a.screen, b.screen]));
        } else if let Some(r) = clip::clip_rectangle(self.ts, [&a.clip, &b.clip]) {
            self.push(Shape::Rectangle(r));
        }
    }

    fn line(&mut self, a: &AsmVertex, b: &AsmVertex) {
        if self.through {
            let (mut p, mut q) = (a.screen, b.screen);
            if self.flat {
                p.color0 = q.color0;
                p.color1 = q.color1;
            }
            let _ = &mut q;
            self.push(Shape::Line([p, q]));
        } else {
            let (mut p, q) = (a.clip, b.clip);
            if self.flat {
                p.color0 = q.color0;
                p.color1 = q.color1;
            }
            let mut out = std::mem::take(&mut self.ctx.lines);
            out.clear();
            clip::clip_line(self.ts, [&p, &q], &mut out);
            for l in &out {
                self.push(Shape::Line(*l));
            }
            self.ctx.lines = out;
        }
    }

    fn point(&mut self, a: &AsmVertex) {
        if self.through {
            self.push(Shape::Point(a.screen));
        } else if let Some(p) = clip::clip_point(self.ts, &a.clip) {
            self.push(Shape::Point(p));
        }
    }
}

/// Rasterize one binned primitive into a band.
fn rasterize_prim(p: &BinnedPrim, tile: &mut Tile, mem: &crate::mem::Memory) {
    let st = &*p.state;
    let s = st.scissor;
    let clip = ClipRect { x0: s.x0, y0: s.y0.max(tile.y0), x1: s.x1, y1: s.y1.min(tile.y0 + tile.rows - 1) };
    if clip.y0 > clip.y1 {
        return;
    }
    let setup = RasterSetup { clip, perspective: !st.through, textured: st.texture.is_some() };
    let mut emit = |q: &Quad| shade_quad(st, tile, mem, q);
    match &p.shape {
        Shape::Triangle(v) => raster::triangle(v, &setup, &mut emit),
        Shape::Rectangle(v) => raster::rectangle(v, &setup, &mut emit),
        Shape::Line(v) => raster::line(v, &setup, &mut emit),
        Shape::Point(v) => raster::point(v, &setup, &mut emit),
    }
}

/// Texture and draw the covered fragments of a quad.
fn shade_quad(st: &DrawState, tile: &mut Tile, mem: &crate::mem::Memory, q: &Quad) {
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
            pixel::draw_pixel(&st.pixel, tile, f.x, f.y, f.z, colors[i], f.fog);
        }
    }
}
