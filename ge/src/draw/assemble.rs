//! Primitive assembly, mirroring PPSSPP `TransformUnit::SubmitPrimitive` and the
//! `Clipper::Process*` entry points.
//!
//! The vertex ring buffers for strips and fans are reproduced exactly: the order in which
//! vertices reach the rasterizer changes float rounding and which vertex is "last", so
//! PPSSPP's positional (not temporal) order matters. So do PPSSPP's rectangle detectors:
//! with culling off it draws some triangle pairs, 4-vertex strips and fans, and adjacent
//! sprite slices as sprites, whose coverage and texture rules differ from triangles.

use std::sync::Arc;

use rayon::prelude::*;

use super::fork::{Fork, CHUNK};
use super::{DrawState, Shape};
use crate::clip::{self, CullMode, Projected};
use crate::geom::{PrimType, ScreenVertex, Vertex};
use crate::raster::{self, DetectState, RectangleRule, SpriteFastPathState};
use crate::transform::{self, TransformState};

/// A vertex waiting for assembly: clip space (transform mode) plus its projection, or
/// screen space (through mode). PPSSPP `ClipVertexData`.
#[derive(Debug, Clone, Copy, Default)]
pub struct AsmVertex {
    /// The clip-space vertex (`p.c`), its screen vertex (`p.s`) and whether it is outside
    /// the guard band (`p.outside`, PPSSPP `OutsideRange`), kept as one [`Projected`] so
    /// clipping reads it in place.
    pub p: Projected,
    /// [`TransformState::id`] of the state whose `project(.., false)` made `p.s` and
    /// `p.outside` from `p.c`; 0 when they did not come from there (through mode,
    /// immediate-mode vertices). Clipping reuses them only under that same state.
    pub proj_id: u64,
}

impl AsmVertex {
    pub fn new(ts: &TransformState, v: &Vertex) -> AsmVertex {
        if ts.through {
            let s = transform::through_vertex(ts, v);
            AsmVertex { p: Projected::through(s), proj_id: 0 }
        } else {
            let c = transform::transform_vertex(ts, v);
            let (s, outside) = transform::project(ts, &c, false);
            AsmVertex { p: Projected::from_parts(c, s, outside), proj_id: ts.id }
        }
    }

    /// The vertex's projection under `ts`: `None` when the one made at decode was made
    /// under `ts` and is read in place ([`AsmVertex::projected`]); the assembly ring may
    /// hold vertices of an earlier PRIM.
    #[inline]
    fn reprojected(&self, ts: &TransformState) -> Option<Projected> {
        (self.proj_id == 0 || self.proj_id != ts.id).then(|| Projected::new(ts, &self.p.c))
    }

    /// The vertex with its projection under `ts` (a copy; see [`AsmVertex::reprojected`]).
    fn projected(&self, ts: &TransformState) -> Projected {
        self.reprojected(ts).unwrap_or(self.p)
    }

    fn detect(&self) -> raster::AsmVertex {
        raster::AsmVertex { v: self.p.s, clip_z: self.p.c.clip[2], outside_range: self.p.outside }
    }
}

/// Buffers [`Sink`] reuses from PRIM to PRIM (owned by the draw context).
#[derive(Default)]
pub struct Scratch {
    /// Shapes of the current PRIM, binned by the draw path once assembly is done.
    pub(super) pending: Vec<Shape>,
    lines: Vec<[ScreenVertex; 2]>,
}

/// Where assembled primitives go: clipping and the sprite paths, into the PRIM's shapes.
pub struct Sink<'a> {
    pub state: Arc<DrawState>,
    pub ts: &'a TransformState,
    /// Reused buffers, among them the current PRIM's shapes.
    pub scratch: &'a mut Scratch,
    /// Immediate-mode vertices ([`super::immediate`]): their screen positions are given,
    /// so transform mode skips projection and clipping. PPSSPP keeps the supplied
    /// `screenpos`, and the clip-space values it makes (x, y in pixels, z/65535 ≤ 1,
    /// w = 1) never reach the near plane, the depth limit or the range flag
    /// [PP `SoftwareDrawEngine::DispatchSubmitImm`, `Clipper.cpp`].
    pub imm: bool,
    /// Where long triangle lists are clipped in parallel chunks ([`super::fork`]).
    pub fork: Fork<'a>,
}

/// The shapes `clip` makes for triangles `range` (a pure function of any sub-range, given
/// its output), appended to `scratch.pending` in order: with
/// `split`, in chunks of [`CHUNK`] triangles on the pool, joined in chunk order.
fn clip_in_order(
    fork: Fork,
    scratch: &mut Scratch,
    split: bool,
    range: std::ops::Range<usize>,
    clip: impl Fn(std::ops::Range<usize>, &mut Vec<Shape>) + Sync,
) {
    if !split {
        clip(range, &mut scratch.pending);
        return;
    }
    let parts: Vec<Vec<Shape>> = fork.install(|| {
        (0..range.len().div_ceil(CHUNK))
            .into_par_iter()
            .map(|i| {
                let start = range.start + i * CHUNK;
                let mut out = Vec::with_capacity(CHUNK);
                clip(start..(start + CHUNK).min(range.end), &mut out);
                out
            })
            .collect()
    });
    for p in parts {
        scratch.pending.extend(p);
    }
}

/// What clipping one triangle reads: a pure function of these and the triangle, so
/// triangles of a list can be clipped in any order and joined in list order.
#[derive(Clone, Copy)]
struct TriangleClip<'a> {
    state: &'a DrawState,
    ts: &'a TransformState,
    imm: bool,
    /// Every vertex given was projected under `ts` at decode (a fresh list of this PRIM's
    /// vertices): read in place without asking each (25 instructions a triangle on 11216,
    /// whose patches clip 440 000 triangles).
    fresh: bool,
}

impl TriangleClip<'_> {
    /// PPSSPP `SendTriangle` + `Clipper::ProcessTriangle`: the shapes of one triangle
    /// appended to `out`. The vertices' projections are read in place when they were made
    /// under this draw's transform state (the usual case).
    fn triangle(&self, cull: CullMode, v: [&AsmVertex; 3], provoking: usize, first: usize, out: &mut Vec<Shape>) {
        let flat = self.state.flat_provoking;
        let mut push = |t| out.push(Shape::Triangle(t));
        if self.state.through || self.imm {
            let mut s = [v[0].p.s, v[1].p.s, v[2].p.s];
            s[first].first = true;
            clip::screen_triangles_into(&s, flat.then_some(&s[provoking]), cull, &mut push);
        } else {
            let prov = flat.then_some(&v[provoking].p.c);
            debug_assert!(!self.fresh || v.iter().all(|x| x.proj_id == self.ts.id));
            if self.projected_now(v) {
                clip::clip_triangle_coded(self.ts, [&v[0].p, &v[1].p, &v[2].p], Some(first), prov, cull, &mut push);
                return;
            }
            let again = [v[0].reprojected(self.ts), v[1].reprojected(self.ts), v[2].reprojected(self.ts)];
            let p: [&Projected; 3] = std::array::from_fn(|i| again[i].as_ref().unwrap_or(&v[i].p));
            clip::clip_triangle_coded(self.ts, p, Some(first), prov, cull, &mut push);
        }
    }

    /// True when [`TriangleClip::triangle`] certainly makes no shape (see
    /// [`clip::draws_nothing`]): decided inline in the list and strip loops from the codes
    /// and screen positions made at decode, so a dropped triangle costs no call.
    #[inline(always)]
    fn skips(&self, cull: CullMode, v: [&AsmVertex; 3]) -> bool {
        !(self.state.through || self.imm)
            && self.projected_now(v)
            && clip::draws_nothing(self.ts, [&v[0].p, &v[1].p, &v[2].p], cull)
    }

    /// Whether the vertices were projected with the current transform (else they are
    /// projected again before clipping).
    #[inline(always)]
    fn projected_now(&self, v: [&AsmVertex; 3]) -> bool {
        self.fresh || v.iter().all(|x| x.proj_id != 0 && x.proj_id == self.ts.id)
    }

    /// Triangles `range` (each at least 2) of a strip's vertices `verts`, the first of
    /// which was its vertex number `i0` (ring position): the triangle ending at vertex `j`
    /// holds `j - 2 ..= j` in ring slots by position, provoking at `j`'s slot, first at the
    /// oldest's, cull winding alternating [`Assembler::ring_triangle`].
    fn strip(
        &self,
        cull: CullMode,
        range: std::ops::Range<usize>,
        verts: &[AsmVertex],
        i0: usize,
        out: &mut Vec<Shape>,
    ) {
        for j in range {
            let n = i0 + j;
            let mut d = [&verts[j]; 3];
            for back in 1..3 {
                d[(n - back) % 3] = &verts[j - back];
            }
            let c = if n % 2 == 1 { cull.flipped() } else { cull };
            if !self.skips(c, d) {
                self.triangle(c, d, n % 3, (n + 1) % 3, out);
            }
        }
    }

    /// Triangles `range` of a list whose triangle `k` is `tri(k)` (its vertices
    /// `3k..3k + 3`), provoking vertex 2; with `cells_from_strip` the odd ones were
    /// received from the strip's oldest vertex, index 1 ([`Assembler::cells_from_strip`]).
    fn list<'v>(
        &self,
        cull: CullMode,
        range: std::ops::Range<usize>,
        cells_from_strip: bool,
        tri: &(impl Fn(usize) -> [&'v AsmVertex; 3] + Sync),
        out: &mut Vec<Shape>,
    ) {
        for k in range {
            let v = tri(k);
            if !self.skips(cull, v) {
                self.triangle(cull, v, 2, usize::from(cells_from_strip && k % 2 == 1), out);
            }
        }
    }
}

impl Sink<'_> {
    fn through(&self) -> bool {
        self.state.through
    }

    fn detect_state(&self) -> DetectState {
        let st = &self.state;
        DetectState {
            through: st.through,
            textured: st.texture.is_some(),
            depth_matters: st.depth_matters,
            fog: st.fog,
        }
    }

    /// Add a shape to the PRIM's shapes.
    fn push(&mut self, shape: Shape) {
        self.scratch.pending.push(shape);
    }

    /// PPSSPP `SendTriangle` + `Clipper::ProcessTriangle`; `v[first]` is the vertex the GE
    /// received first for this triangle ([`crate::geom::ScreenVertex::first`]).
    fn triangle(&mut self, cull: CullMode, v: [&AsmVertex; 3], provoking: usize, first: usize) {
        let c = TriangleClip { state: &self.state, ts: self.ts, imm: self.imm, fresh: false };
        if !c.skips(cull, v) {
            c.triangle(cull, v, provoking, first, &mut self.scratch.pending);
        }
    }

    /// Triangles 2.. of a primed strip's vertices `verts` (see [`TriangleClip::strip`]), in
    /// chunks on the pool when the strip is long; shapes joined in strip order.
    fn strip_list(&mut self, cull: CullMode, verts: &[AsmVertex], i0: usize) {
        let c = TriangleClip { state: &self.state, ts: self.ts, imm: self.imm, fresh: false };
        let n = verts.len();
        clip_in_order(self.fork, self.scratch, self.fork.splits(n), 2..n, |r, out| c.strip(cull, r, verts, i0, out));
    }

    /// The first `count` triangles of a fresh TRIANGLES list (see [`TriangleClip::list`]),
    /// in chunks on the pool when the list is long; shapes joined in list order.
    fn triangle_list<'v>(
        &mut self,
        cull: CullMode,
        count: usize,
        cells_from_strip: bool,
        tri: impl Fn(usize) -> [&'v AsmVertex; 3] + Sync,
    ) {
        let c = TriangleClip { state: &self.state, ts: self.ts, imm: self.imm, fresh: true };
        clip_in_order(self.fork, self.scratch, self.fork.splits(count), 0..count, |r, out| {
            c.list(cull, r, cells_from_strip, &tri, out)
        });
    }

    /// PPSSPP `Clipper::ProcessRect`.
    fn rectangle(&mut self, a: &AsmVertex, b: &AsmVertex) {
        if self.through() {
            let v = [a.p.s, b.p.s];
            let st = &self.state;
            let fast = SpriteFastPathState {
                through: true,
                clear_mode: st.clear,
                has_mips: st.texture.as_ref().is_some_and(|t| t.max_level > 0),
                texture_proj: st.texture_proj,
                tex_size: st.texture.as_ref().map(|t| (t.levels[0].width, t.levels[0].height)),
            };
            let shape = if raster::sprite_fast_path(&v, &fast) {
                Shape::Sprite(v)
            } else if st.clear && !st.dither {
                Shape::ClearRect(v)
            } else {
                Shape::Rectangle(v)
            };
            self.push(shape);
            return;
        }
        let r = if self.imm {
            [a.p.s, b.p.s]
        } else {
            let p = [a.projected(self.ts), b.projected(self.ts)];
            let Some(mut r) = clip::clip_rectangle_projected(self.ts, [&p[0], &p[1]]) else { return };
            if self.state.rectangle == RectangleRule::Hardware {
                for (s, v) in r.iter_mut().zip([a, b]) {
                    (s.x, s.y) = transform::rectangle_corner(self.ts, &v.p.c);
                }
            }
            r
        };
        match raster::split_rect_fog(&r) {
            Some(halves) => {
                for h in halves {
                    self.transformed_rect(h);
                }
            }
            None => self.transformed_rect(r),
        }
    }

    fn transformed_rect(&mut self, r: [ScreenVertex; 2]) {
        if self.state.texture_proj {
            // Projected textures: the sprite is drawn as triangles [PP `AddTriangleRect`].
            for t in raster::rect_to_triangles(&r) {
                self.push(Shape::Triangle(t));
            }
        } else {
            self.push(Shape::Rectangle(r));
        }
    }

    /// PPSSPP `Clipper::ProcessLine`.
    fn line(&mut self, a: &AsmVertex, b: &AsmVertex) {
        if self.through() || self.imm {
            self.push(Shape::Line([a.p.s, b.p.s]));
            return;
        }
        let Scratch { pending, lines, .. } = &mut *self.scratch;
        lines.clear();
        let p = [a.projected(self.ts), b.projected(self.ts)];
        clip::clip_line_projected(self.ts, [&p[0], &p[1]], lines);
        pending.extend(lines.drain(..).map(Shape::Line));
    }

    /// PPSSPP `Clipper::ProcessPoint`.
    fn point(&mut self, a: &AsmVertex) {
        if self.through() || self.imm {
            self.push(Shape::Point(a.p.s));
        } else if let Some(p) = clip::clip_point_projected(&a.projected(self.ts)) {
            self.push(Shape::Point(p));
        }
    }
}

/// The assembly ring buffer (PPSSPP `data_`, `data_index_`, `prev_prim_`, `isImmDraw_`).
pub struct Assembler {
    data: [AsmVertex; 4],
    index: usize,
    prev: PrimType,
    imm_draw: bool,
    /// A TRIANGLES list of tessellated cells, (tl, bl, tr), (tr, bl, br) per cell, that the
    /// GE draws as a strip (tl, bl, tr, br, …): the second triangle's first vertex is the
    /// strip's oldest, bl, at index 1 ([`crate::geom::ScreenVertex::first`]).
    pub cells_from_strip: bool,
}

impl Default for Assembler {
    fn default() -> Self {
        Assembler {
            data: [AsmVertex::default(); 4],
            index: 0,
            prev: PrimType::Points,
            imm_draw: false,
            cells_from_strip: false,
        }
    }
}

impl Assembler {
    /// One immediate-mode vertex [PP `DispatchSubmitImm`, `TransformUnit::SubmitImmVertex`]:
    /// a fresh primitive first submits zero vertices of its type (resetting the ring);
    /// the vertex is then stored where a PRIM of the current type would put it and a
    /// zero-vertex continuation assembles whatever the ring now completes.
    pub fn submit_imm(&mut self, prim: PrimType, continuation: bool, v: AsmVertex, cull: CullMode, sink: &mut Sink) {
        if !continuation {
            self.submit(prim, &[], cull, sink);
        }
        let slot = match self.prev {
            PrimType::LineStrip => self.index & 1,
            PrimType::TriangleStrip => self.index % 3,
            PrimType::TriangleFan if self.index > 0 => 2 - (self.index % 2),
            _ => self.index,
        };
        // The ring holds four entries; PPSSPP's points/lines/triangles/rectangles reset
        // their index before it can pass that.
        if let Some(d) = self.data.get_mut(slot) {
            *d = v;
        }
        self.index += 1;
        self.imm_draw = true;
        self.submit(PrimType::Continue, &[], cull, sink);
        self.imm_draw = false;
    }

    /// A fresh PRIM given as `unique` vertices and an index list (tessellated patches):
    /// the same as [`Assembler::submit`] of the expanded list (indices out of range
    /// dropped), without expanding it when it is a plain triangle list.
    pub fn submit_indexed(
        &mut self,
        prim: PrimType,
        unique: &[AsmVertex],
        indices: &[u32],
        cull: CullMode,
        sink: &mut Sink,
    ) {
        let n = indices.len();
        // The through-mode pair detector of `submit` sees six vertices at a time.
        let pairs = sink.through() && cull == CullMode::None && n >= 6 && n.is_multiple_of(6);
        let plain = prim == PrimType::Triangles
            && n >= 3
            && n.is_multiple_of(3)
            && !pairs
            // Every index in range, as the largest one: a max over the list vectorizes, a
            // short-circuiting test per index did not (~6 instructions per index, 7.5 M on
            // 11216's main thread, whose patches give 1.2 M indices).
            && indices.iter().copied().max().is_some_and(|m| (m as usize) < unique.len());
        if !plain {
            let verts: Vec<AsmVertex> = indices.iter().filter_map(|&i| unique.get(i as usize).copied()).collect();
            self.submit(prim, &verts, cull, sink);
            return;
        }
        self.index = 0;
        self.prev = prim;
        // Whole index triples: one bounds check a triangle instead of one an index.
        let (tris, _) = indices.as_chunks::<3>();
        let tri = |k: usize| tris[k].map(|i| &unique[i as usize]);
        sink.triangle_list(cull, n / 3, self.cells_from_strip, tri);
        for (d, v) in self.data.iter_mut().zip(tri(n / 3 - 1)) {
            *d = *v;
        }
    }

    /// Assemble one PRIM's vertices (type 7 continues the previous primitive type).
    pub fn submit(&mut self, prim_in: PrimType, verts: &[AsmVertex], cull: CullMode, sink: &mut Sink) {
        let prim = if prim_in == PrimType::Continue {
            self.prev
        } else {
            self.index = 0;
            self.prev = prim_in;
            prim_in
        };
        let cull_off = cull == CullMode::None;
        let through = sink.through();
        match prim {
            PrimType::Triangles
                if through && cull_off && self.index == 0 && verts.len() >= 6 && verts.len().is_multiple_of(6) =>
            {
                // Through-mode triangle pairs that form sprites [PP DetectRectangleFromPair].
                let ds = sink.detect_state();
                for six in verts.chunks_exact(6) {
                    let d: [raster::AsmVertex; 6] = std::array::from_fn(|i| six[i].detect());
                    match raster::detect_rect_from_pair(&ds, &d) {
                        Some((tl, br)) => sink.rectangle(&six[tl], &six[br]),
                        None => {
                            sink.triangle(cull, [&six[0], &six[1], &six[2]], 2, 0);
                            sink.triangle(cull, [&six[3], &six[4], &six[5]], 2, usize::from(self.cells_from_strip));
                        }
                    }
                }
            }
            PrimType::Points => {
                for i in 0..self.index {
                    let v = self.data[i];
                    sink.point(&v);
                }
                self.index = 0;
                for v in verts {
                    sink.point(v);
                }
            }
            PrimType::Lines => {
                let mut i = 0;
                while i + 1 < self.index {
                    let (a, b) = (self.data[i], self.data[i + 1]);
                    sink.line(&a, &b);
                    i += 2;
                }
                self.index &= 1;
                for v in verts {
                    self.data[self.index] = *v;
                    self.index += 1;
                    if self.index == 2 {
                        let (a, b) = (self.data[0], self.data[1]);
                        sink.line(&a, &b);
                        self.index = 0;
                    }
                }
            }
            PrimType::Triangles => {
                let mut odd = false;
                let mut rest = verts;
                if self.index == 0 && verts.len() >= 3 {
                    // Whole triangles of a fresh list are independent: clipped as a list
                    // (in parallel chunks when long), leaving the ring as the loop would.
                    let n = verts.len() / 3;
                    let (tris, _) = verts.as_chunks::<3>();
                    sink.triangle_list(cull, n, self.cells_from_strip, |k| tris[k].each_ref());
                    self.data[..3].copy_from_slice(&verts[3 * n - 3..3 * n]);
                    odd = n % 2 == 1;
                    rest = &verts[3 * n..];
                }
                for v in rest {
                    self.data[self.index] = *v;
                    self.index += 1;
                    if self.index == 3 {
                        self.index = 0;
                        let d = self.data;
                        sink.triangle(cull, [&d[0], &d[1], &d[2]], 2, usize::from(odd && self.cells_from_strip));
                        odd = !odd;
                    }
                }
                // A zero-vertex (immediate) submit completing a triangle.
                if self.index >= 3 {
                    self.index = 0;
                    let d = self.data;
                    sink.triangle(cull, [&d[0], &d[1], &d[2]], 2, 0);
                }
            }
            PrimType::Rectangles => {
                let ds = sink.detect_state();
                for v in verts {
                    self.data[self.index] = *v;
                    self.index += 1;
                    if self.index == 4 && through && cull_off {
                        let s = [self.data[0].p.s, self.data[1].p.s, self.data[2].p.s, self.data[3].p.s];
                        // Two adjacent slices of one sprite merge [PP DetectRectangleThroughModeSlices].
                        if raster::detect_rect_through_slices(&ds, &s) {
                            self.data[1] = self.data[3];
                            self.index = 2;
                        }
                    }
                    if self.index == 4 {
                        let d = self.data;
                        sink.rectangle(&d[0], &d[1]);
                        sink.rectangle(&d[2], &d[3]);
                        self.index = 0;
                    }
                }
                if self.index >= 2 {
                    let d = self.data;
                    sink.rectangle(&d[0], &d[1]);
                    self.index -= 2;
                }
            }
            PrimType::LineStrip => {
                // The first vertex of a fresh strip draws nothing.
                let mut skip = usize::from(self.index == 0);
                for v in verts {
                    self.data[self.index & 1] = *v;
                    self.index += 1;
                    if skip > 0 {
                        skip -= 1;
                    } else {
                        let a = self.data[self.index & 1];
                        let b = self.data[(self.index & 1) ^ 1];
                        sink.line(&a, &b);
                    }
                }
                // Immediate mode: the new vertex is already in the ring.
                if self.imm_draw && self.index >= 2 {
                    let a = self.data[self.index & 1];
                    let b = self.data[(self.index & 1) ^ 1];
                    sink.line(&a, &b);
                }
            }
            PrimType::TriangleStrip => self.strip(verts, cull, sink),
            PrimType::TriangleFan => self.fan(verts, cull, sink),
            PrimType::Continue => {}
        }
    }

    fn strip(&mut self, verts: &[AsmVertex], cull: CullMode, sink: &mut Sink) {
        let n = verts.len();
        let mut skip = 2usize.saturating_sub(self.index);
        let mut start = 0;
        // Strips that are sprites, two vertices at a time [PP DetectRectangleFromStrip].
        if self.index == 0 && n >= 4 && n.is_multiple_of(2) && cull == CullMode::None {
            let ds = sink.detect_state();
            let mut base = 0;
            while base + 2 < n {
                let first = if base == 0 { 0 } else { 2 };
                self.data[first..4].copy_from_slice(&verts[base + first..base + 4]);
                let d: [raster::AsmVertex; 4] = std::array::from_fn(|i| self.data[i].detect());
                let Some((tl, br)) = raster::detect_rect_from_strip(&ds, &d) else { break };
                let (a, b) = (self.data[tl], self.data[br]);
                sink.rectangle(&a, &b);
                start += 2;
                skip = 2;
                if base + 4 >= n {
                    start = n;
                    break;
                }
                self.data[0] = self.data[2];
                self.data[1] = self.data[3];
                self.index = 2;
                base += 2;
            }
        }
        let mut k = start;
        while k < n && skip > 0 {
            let slot = self.index % 3;
            self.data[slot] = verts[k];
            self.index += 1;
            skip -= 1;
            k += 1;
        }
        let mut rest = &verts[k..];
        if self.index >= 2 && rest.len() >= 3 {
            // With the ring primed, each triangle is its vertex and the two before it:
            // clipped as a list (in parallel chunks when long), leaving the ring as the
            // loop would. The first two still pair with what the ring held.
            for v in &rest[..2] {
                let slot = self.index % 3;
                self.data[slot] = *v;
                self.index += 1;
                self.ring_triangle(cull, slot, self.index % 3, sink);
            }
            let i0 = self.index - 2;
            sink.strip_list(cull, rest, i0);
            for (j, v) in rest.iter().enumerate().skip(rest.len() - 3) {
                self.data[(i0 + j) % 3] = *v;
            }
            self.index = i0 + rest.len();
            rest = &[];
        }
        for v in rest {
            let slot = self.index % 3;
            self.data[slot] = *v;
            self.index += 1;
            self.ring_triangle(cull, slot, self.index % 3, sink);
        }
        if self.imm_draw && self.index >= 3 {
            self.ring_triangle(cull, (self.index - 1) % 3, self.index % 3, sink);
        }
    }

    /// Send the ring buffer's triangle, provoking vertex `slot`, with the cull winding
    /// alternating per triangle of a strip or fan [PP `SubmitPrimitive` altCullType].
    /// `first`: the ring slot of the vertex the GE received first for this triangle (a
    /// strip's oldest, a fan's centre).
    fn ring_triangle(&self, cull: CullMode, slot: usize, first: usize, sink: &mut Sink) {
        let c = if (self.index - 1) % 2 == 1 { cull.flipped() } else { cull };
        let d = &self.data;
        sink.triangle(c, [&d[0], &d[1], &d[2]], slot, first);
    }

    fn fan(&mut self, verts: &[AsmVertex], cull: CullMode, sink: &mut Sink) {
        let n = verts.len();
        let mut skip = usize::from(self.index <= 1);
        let mut start = 0;
        // Only read the centre vertex when not continuing.
        if self.index == 0 && n > 0 {
            self.data[0] = verts[0];
            self.index = 1;
            start = 1;
        }
        if self.index == 1 && n == 4 && cull == CullMode::None {
            self.data[start..n].copy_from_slice(&verts[start..n]);
            let d: [raster::AsmVertex; 4] = std::array::from_fn(|i| self.data[i].detect());
            // [PP DetectRectangleFromFan]
            if let Some((tl, br)) = raster::detect_rect_from_fan(&sink.detect_state(), &d) {
                let (a, b) = (self.data[tl], self.data[br]);
                sink.rectangle(&a, &b);
                return;
            }
        }
        let mut k = start;
        while k < n && skip > 0 {
            let slot = 2 - (self.index % 2);
            self.data[slot] = verts[k];
            self.index += 1;
            skip -= 1;
            k += 1;
        }
        for v in &verts[k..] {
            let slot = 2 - (self.index % 2);
            self.data[slot] = *v;
            self.index += 1;
            self.ring_triangle(cull, slot, 0, sink);
        }
        if self.imm_draw && self.index >= 3 {
            self.ring_triangle(cull, 2 - (self.index - 1) % 2, 0, sink);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cmd::op;
    use crate::geom::VertexType;
    use crate::regs::{to_float24, Matrices, Regs};

    /// Identity matrices; viewport x_s = xscale·x/w + 100, y_s = 100.
    fn ts(xscale: f32) -> TransformState {
        // Distinct non-zero ids, as the GE assigns them.
        viewport(&[(op::VIEWPORTXSCALE, xscale)], xscale as u64)
    }

    /// Identity matrices, viewport centre (100, 100) and the given registers.
    fn viewport(regs: &[(u8, f32)], id: u64) -> TransformState {
        let mut r = Regs::default();
        r.set(op::VIEWPORTXCENTER, to_float24(100.0));
        r.set(op::VIEWPORTYCENTER, to_float24(100.0));
        for &(reg, v) in regs {
            r.set(reg, to_float24(v));
        }
        let mut m = Matrices::default();
        // Identity world, view (3×4) and projection (4×4), column-major.
        for i in 0..3 {
            m.world[4 * i] = 1.0;
            m.view[4 * i] = 1.0;
        }
        for i in 0..4 {
            m.proj[5 * i] = 1.0;
        }
        let mut t = TransformState::decode(&r, &m, &VertexType::from_bits(3 << 7), crate::transform::RsqrtRule::Exact);
        t.id = id;
        t
    }

    /// Shapes of a `prim` list assembled with a pool of `threads`, and the ring after it.
    fn list_shapes(
        threads: usize,
        prim: PrimType,
        verts: &[AsmVertex],
        ts: &TransformState,
        cull: CullMode,
        cells: bool,
    ) -> String {
        let state = DrawState::decode(
            &Regs::default(),
            &[0; 1024],
            false,
            crate::Model::Ppsspp,
            &mut crate::texture::PaletteMemo::default(),
        );
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        let mut scratch = Scratch::default();
        let mut sink =
            Sink { state: Arc::new(state), ts, scratch: &mut scratch, imm: false, fork: Fork::new(Some(&pool)) };
        let mut asm = Assembler { cells_from_strip: cells, ..Assembler::default() };
        // Split in two PRIMs, the second continuing the first (type 7).
        let cut = verts.len() / 3;
        asm.submit(prim, &verts[..cut], cull, &mut sink);
        asm.submit(PrimType::Continue, &verts[cut..], cull, &mut sink);
        // Shapes hold floats: their debug text spells every bit that matters here.
        format!("{:?} {:?} {}", scratch.pending, asm.data, asm.index)
    }

    #[test]
    fn split_triangle_lists_and_strips_equal_the_serial_ones() {
        use proptest::prelude::*;
        use proptest::test_runner::{Config, TestRunner};
        // A y scale and depth range too, so that triangles have area.
        let t = viewport(
            &[
                (op::VIEWPORTXSCALE, 16.0),
                (op::VIEWPORTYSCALE, -16.0),
                (op::VIEWPORTZSCALE, 16000.0),
                (op::VIEWPORTZCENTER, 32768.0),
            ],
            5,
        );
        let vertex = (-3.0f32..3.0, -3.0f32..3.0, -2.0f32..2.0).prop_map(|(x, y, z)| [x, y, z]);
        let strategy = (proptest::collection::vec(vertex, 0..700), 0u8..3, any::<bool>(), any::<bool>());
        TestRunner::new(Config::with_cases(64))
            .run(&strategy, |(pos, cull, cells, strip)| {
                let prim = if strip { PrimType::TriangleStrip } else { PrimType::Triangles };
                let cull = [CullMode::None, CullMode::Clockwise, CullMode::CounterClockwise][cull as usize];
                let verts: Vec<AsmVertex> =
                    pos.iter().map(|&pos| AsmVertex::new(&t, &Vertex { pos, ..Default::default() })).collect();
                let one = list_shapes(1, prim, &verts, &t, cull, cells);
                // Long lists make shapes (the test would pass vacuously otherwise).
                prop_assert!(pos.len() < 300 || one.contains("Triangle"), "no shapes");
                prop_assert_eq!(&one, &list_shapes(3, prim, &verts, &t, cull, cells));
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn projection_is_reused_only_under_its_own_state() {
        let v = Vertex { pos: [1.0, 0.0, 0.0], ..Default::default() };
        let (t1, t2) = (ts(16.0), ts(32.0));
        let a = AsmVertex::new(&t1, &v);
        assert_eq!(a.proj_id, t1.id);
        // Same state: the stored projection, x_s = 116 → 16·116 = 1856.
        assert_eq!(a.projected(&t1).s.x.0, 1856);
        // A marked-but-stale projection is not trusted: under t2, x_s = 132 → 2112.
        let mut stale = a;
        stale.p.s.x.0 = -1;
        assert_eq!(stale.projected(&t1).s.x.0, -1);
        assert_eq!(stale.projected(&t2).s.x.0, 2112);
        // Unmarked vertices (immediate mode) are always projected.
        stale.proj_id = 0;
        assert_eq!(stale.projected(&t1).s.x.0, 1856);
    }
}
