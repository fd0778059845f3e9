//! Clipping, rejection and culling (ge-reference.md §5): the rules between transformed
//! vertices and the rasterizer, mirroring PPSSPP's software renderer
//! [PP `Software/Clipper.cpp`, `TransformUnit::SendTriangle`, `BinManager::AddTriangle`].
//!
//! * Only the near plane (z_c < −w_c) is clipped; a triangle becomes a fan.
//! * A vertex outside the 4096² drawable range rejects its whole primitive.
//! * Depth: |z/w| ≥ 1.0000305 is "outside"; without DEPTHCLAMPENABLE one such vertex
//!   rejects the primitive, with it all vertices must be outside on the same side.
//! * Culling is by screen winding. Every emitted triangle has a non-negative
//!   `(v0−v1)×(v0−v2)` in 12.4 units (clockwise on screen, y down): with culling off a
//!   triangle is tried in both vertex orders (v0,v1,v2) and (v2,v1,v0) and whichever
//!   passes is emitted, exactly as PPSSPP hands triangles to its rasterizer.
//!
//! Cost: assembly decides a triangle from per-vertex outcodes ([`Codes`], made with the
//! vertex's projection) and drops it inline ([`draws_nothing`]) before any call or copy;
//! [`clip_triangle_into`] keeps the plain per-triangle rules (`coded_clip_equals_plain`
//! checks the two agree, NaN, infinities, w ≈ 0 and vertices on the planes included).
//! 11216 (PPSSPP model, 441 000 triangles, 66 000 drawn) whole replay at 1 thread,
//! callgrind: 776.7 → 750.4 M; its patch assembly (`submit_indexed`, inclusive) 83.6 →
//! 39.0 M, vertex construction 57.0 → 69.0 M (the codes and LLVM's reshuffled inlining).
//! On 19960/21763 (hardware model, strips and unshared lists) the assembly wins 2.5 and
//! 1.1 M and the vertex side loses 2.4 and 2.6 M.

use crate::cmd::{op, reg};
use crate::geom::{ClipVertex, ScreenVertex};
use crate::regs::Regs;
use crate::transform::{project, TransformState};

/// Which screen winding CULL removes; the caller flips it for odd triangles of strips
/// and fans.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum CullMode {
    None,
    /// Screen-clockwise triangles (y down) are removed.
    Clockwise,
    CounterClockwise,
}

impl CullMode {
    /// CULLFACEENABLE off or clear mode → None; CULL (0x9B) bit 0 = 0 → Clockwise,
    /// 1 → CounterClockwise [HW `commands/cull`: a box drawn TL→TR→BR→BL is culled with
    /// CULL 0 and drawn with CULL 1; clear-mode rows are never culled;
    /// PP `SubmitPrimitive` CullType].
    pub fn decode(regs: &Regs) -> CullMode {
        if !regs.enabled(op::CULLFACEENABLE) || regs.clear_mode().is_some() {
            CullMode::None
        } else if regs.get(reg::CULL).ccw() == 0 {
            CullMode::Clockwise
        } else {
            CullMode::CounterClockwise
        }
    }

    /// The opposite winding (None stays None).
    pub fn flipped(self) -> CullMode {
        match self {
            CullMode::None => CullMode::None,
            CullMode::Clockwise => CullMode::CounterClockwise,
            CullMode::CounterClockwise => CullMode::Clockwise,
        }
    }
}

/// The vertex orders tried for a cull mode [PP `TransformUnit::SendTriangle`].
#[inline]
fn orders(cull: CullMode) -> &'static [[usize; 3]] {
    match cull {
        CullMode::None => &[[0, 1, 2], [2, 1, 0]],
        CullMode::Clockwise => &[[2, 1, 0]],
        CullMode::CounterClockwise => &[[0, 1, 2]],
    }
}

/// The rasterizer's acceptance test: drop a negative cross product and triangles whose
/// points all share an x or a y, in wrapping 32-bit integer arithmetic as PPSSPP's
/// compiled code does [PP `BinManager::AddTriangle`].
#[inline(always)]
fn accepts(a: &ScreenVertex, b: &ScreenVertex, c: &ScreenVertex) -> bool {
    let d01 = (a.x.0.wrapping_sub(b.x.0), a.y.0.wrapping_sub(b.y.0));
    let d02 = (a.x.0.wrapping_sub(c.x.0), a.y.0.wrapping_sub(c.y.0));
    let cross = d01.0.wrapping_mul(d02.1).wrapping_sub(d01.1.wrapping_mul(d02.0));
    if cross < 0 {
        return false;
    }
    !((d01.0 == 0 && d02.0 == 0) || (d01.1 == 0 && d02.1 == 0))
}

/// Through-mode (already screen-space) triangle culling test: true = drop (no vertex
/// order survives [`screen_triangles`]).
pub fn cull_screen_triangle(v: &[ScreenVertex; 3], cull: CullMode) -> bool {
    !orders(cull).iter().any(|o| accepts(&v[o[0]], &v[o[1]], &v[o[2]]))
}

/// Through-mode triangle: appends the vertex orders the rasterizer receives. With
/// `provoking` (flat shading) the third vertex of each emitted triangle takes its
/// colours [PP `Clipper::ProcessTriangle`].
pub fn screen_triangles(
    v: &[ScreenVertex; 3],
    provoking: Option<&ScreenVertex>,
    cull: CullMode,
    out: &mut Vec<[ScreenVertex; 3]>,
) {
    screen_triangles_into(v, provoking, cull, &mut |t| out.push(t))
}

/// [`screen_triangles`] handing each triangle to `out` as it is made.
pub fn screen_triangles_into(
    v: &[ScreenVertex; 3],
    provoking: Option<&ScreenVertex>,
    cull: CullMode,
    out: &mut impl FnMut([ScreenVertex; 3]),
) {
    for o in orders(cull) {
        if !accepts(&v[o[0]], &v[o[1]], &v[o[2]]) {
            continue;
        }
        let (a, b, mut c) = (v[o[0]], v[o[1]], v[o[2]]);
        if let Some(p) = provoking {
            c.color0 = p.color0;
            c.color1 = p.color1;
        }
        out([a, b, c]);
    }
}

/// A clip-space vertex with its screen mapping and range flag: `project(st, c, false)`
/// for a submitted vertex, `always_check` for one made by near-plane clipping. The
/// `*_projected` entry points take these so assembly can reuse the projection it
/// already made for the vertex under the same [`TransformState`].
#[derive(Clone, Copy, Debug, Default)]
pub struct Projected {
    pub c: ClipVertex,
    pub s: ScreenVertex,
    pub outside: bool,
    /// [`Codes::of`] `(c, outside)`, made by the constructors (which is why it is private).
    codes: Codes,
}

impl Projected {
    pub fn new(st: &TransformState, c: &ClipVertex) -> Projected {
        let (s, outside) = project(st, c, false);
        Projected::from_parts(*c, s, outside)
    }

    /// A through-mode vertex: screen coordinates only (a default clip vertex has no codes).
    #[inline]
    pub fn through(s: ScreenVertex) -> Projected {
        Projected { c: ClipVertex::default(), s, outside: false, codes: Codes(0) }
    }

    /// A vertex whose screen mapping `s` and range flag `outside` are already made.
    #[inline]
    pub fn from_parts(c: ClipVertex, s: ScreenVertex, outside: bool) -> Projected {
        Projected { codes: Codes::of(&c, outside), c, s, outside }
    }
}

/// A vertex's outcodes: which of the triangle rules of [`clip_triangle_into`] it trips on
/// its own. Every rule is an OR (any vertex) or an AND (all vertices) of these bits, so a
/// triangle whose vertices carry codes is decided by [`decide`] in a few bit operations;
/// the division of the depth rule is made once per vertex instead of once per triangle
/// that uses it (11216's patch meshes share each vertex among about six triangles).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Codes(u8);

impl Codes {
    /// Outside the drawable range ([`Projected::outside`]).
    const OUTSIDE: u8 = 1;
    /// w < 0.
    const W_NEG: u8 = 2;
    /// z/w ≥ 1.0000305 ([`z_side`]).
    const Z_POS: u8 = 4;
    /// −z/w ≥ 1.0000305 and not [`Codes::Z_POS`].
    const Z_NEG: u8 = 8;
    /// Behind the near plane ([`behind`]).
    const BEHIND: u8 = 16;

    #[inline]
    fn of(c: &ClipVertex, outside: bool) -> Codes {
        let z = match z_side(c) {
            Some(true) => Codes::Z_POS,
            Some(false) => Codes::Z_NEG,
            None => 0,
        };
        let flag = |b: bool, bit: u8| if b { bit } else { 0 };
        Codes(flag(outside, Codes::OUTSIDE) | flag(c.clip[3] < 0.0, Codes::W_NEG) | z | flag(behind(c), Codes::BEHIND))
    }
}

/// [`clip_triangle_into`]'s rejections and clip decision from the vertices' codes: `None`
/// rejects, `Some(clip_needed)` goes on. Equal to [`decide_plain`] (`coded_clip_equals_plain`).
#[inline(always)]
fn decide(st: &TransformState, c: [Codes; 3]) -> Option<bool> {
    let any = c[0].0 | c[1].0 | c[2].0;
    let all = c[0].0 & c[1].0 & c[2].0;
    let any_rejects = Codes::OUTSIDE | if st.depth_clamp { 0 } else { Codes::Z_POS | Codes::Z_NEG };
    let all_reject = Codes::W_NEG | Codes::Z_POS | Codes::Z_NEG;
    (any & any_rejects == 0 && all & all_reject == 0).then_some(any & Codes::BEHIND != 0)
}

/// The rejections and clip decision of [`clip_triangle_into`] read from the vertices:
/// `None` rejects, `Some(clip_needed)` goes on.
fn decide_plain(st: &TransformState, cv: [&Projected; 3]) -> Option<bool> {
    if cv.iter().any(|x| x.outside) || cv.iter().all(|x| x.c.clip[3] < 0.0) {
        return None;
    }
    if depth_rejects(st, &[&cv[0].c, &cv[1].c, &cv[2].c]) {
        return None;
    }
    Some(cv.iter().any(|x| behind(&x.c)))
}

type Cv = Projected;

/// `(x·0 + y·0) + z·1 + w·1`, the near-plane distance, literally [PP `clip_dotprod`].
#[inline]
fn near_dist(c: &ClipVertex) -> f32 {
    c.clip[0] * 0.0 + c.clip[1] * 0.0 + c.clip[2] * 1.0 + c.clip[3] * 1.0
}

/// z < −w [PP `CalcClipMask`].
#[inline]
fn behind(c: &ClipVertex) -> bool {
    c.clip[2] < -c.clip[3]
}

/// Whether |z/w| ≥ 1.0000305 and on which side: `Some(true)` for z/w ≥ it, `Some(false)`
/// for −z/w ≥ it, `None` otherwise (NaN too) [PP `CheckOutsideZ`].
#[inline]
fn z_side(c: &ClipVertex) -> Option<bool> {
    const LIMIT: f32 = 1.0 + 1.0 / 32768.0; // 1.000030517578125
    let z = c.clip[2] / c.clip[3];
    if z >= LIMIT {
        Some(true)
    } else if -z >= LIMIT {
        Some(false)
    } else {
        None
    }
}

/// Counts a vertex with |z/w| ≥ 1.0000305 ([`z_side`]).
#[inline]
fn count_outside_z(c: &ClipVertex, pos: &mut u32, neg: &mut u32) {
    match z_side(c) {
        Some(true) => *pos += 1,
        Some(false) => *neg += 1,
        None => {}
    }
}

/// The depth rule for `n` vertices: true = reject.
fn depth_rejects(st: &TransformState, vs: &[&ClipVertex]) -> bool {
    let (mut pos, mut neg) = (0, 0);
    for c in vs {
        count_outside_z(c, &mut pos, &mut neg);
    }
    let n = vs.len() as u32;
    (pos + neg > 0 && !st.depth_clamp) || pos >= n || neg >= n
}

/// `a·(1−t) + b·t` for attributes; colours as `(a·(256−t8) + b·t8) / 256` with
/// t8 = trunc(256·t); then the screen mapping with the range check always on
/// [PP `ClipVertexData::Lerp`, `clip_interpolate`].
fn lerp(st: &TransformState, t: f32, a: &ClipVertex, b: &ClipVertex) -> Cv {
    let f = |x: f32, y: f32| x * (1.0 - t) + y * t;
    let mut c = ClipVertex::default();
    for i in 0..4 {
        c.clip[i] = f(a.clip[i], b.clip[i]);
    }
    for i in 0..3 {
        c.stq[i] = f(a.stq[i], b.stq[i]);
    }
    c.fog = f(a.fog, b.fog);
    // guess: a vertex made by clipping interpolates the staged values like the clip
    // coordinates (no test clips a triangle the screenshots show).
    c.xyw24 = match (a.xyw24, b.xyw24) {
        (Some(p), Some(q)) => Some(std::array::from_fn(|i| f(p[i], q[i]))),
        _ => None,
    };
    let t8 = crate::transform::math::cvtt(t * 256.0) as u16 as i32;
    let li = |x: u8, y: u8| ((x as i32 * (256 - t8) + y as i32 * t8) / 256).clamp(0, 255) as u8;
    for i in 0..4 {
        c.color0[i] = li(a.color0[i], b.color0[i]);
    }
    for i in 0..3 {
        c.color1[i] = li(a.color1[i], b.color1[i]);
    }
    let (s, outside) = project(st, &c, true);
    Cv::from_parts(c, s, outside)
}

/// Transform-mode triangle with smooth shading; see [`clip_triangle_shaded`].
pub fn clip_triangle(st: &TransformState, v: [&ClipVertex; 3], cull: CullMode, out: &mut Vec<[ScreenVertex; 3]>) {
    clip_triangle_shaded(st, v, None, cull, out)
}

/// Transform-mode triangle: drop by range / w / depth rules (§5.2), clip against the
/// near plane into a fan, map to screen, cull by winding. Appends 0..n screen
/// triangles. With `provoking` (flat shading), the third vertex of each emitted
/// triangle takes the provoking vertex's colours.
pub fn clip_triangle_shaded(
    st: &TransformState,
    v: [&ClipVertex; 3],
    provoking: Option<&ClipVertex>,
    cull: CullMode,
    out: &mut Vec<[ScreenVertex; 3]>,
) {
    let cv = [Cv::new(st, v[0]), Cv::new(st, v[1]), Cv::new(st, v[2])];
    clip_triangle_projected(st, [&cv[0], &cv[1], &cv[2]], provoking, cull, out)
}

/// [`clip_triangle_shaded`] on vertices already projected with `always_check = false`.
pub fn clip_triangle_projected(
    st: &TransformState,
    cv: [&Projected; 3],
    provoking: Option<&ClipVertex>,
    cull: CullMode,
    out: &mut Vec<[ScreenVertex; 3]>,
) {
    clip_triangle_into(st, cv, None, provoking, cull, &mut |t| out.push(t))
}

/// [`clip_triangle_projected`] handing each screen triangle to `out` as it is made, with
/// the vertices read in place: `first` names the vertex of `cv` whose screen copies get
/// [`ScreenVertex::first`] (vertices made by clipping never do).
pub fn clip_triangle_into(
    st: &TransformState,
    cv: [&Projected; 3],
    first: Option<usize>,
    provoking: Option<&ClipVertex>,
    cull: CullMode,
    out: &mut impl FnMut([ScreenVertex; 3]),
) {
    // The rejections and the clip decision look at the vertex set only, so they are the
    // same for both orders culling off tries: decided once.
    let Some(clip_needed) = decide_plain(st, cv) else { return };
    emit(st, cv, first, provoking, cull, clip_needed, out)
}

/// [`clip_triangle_into`] deciding from the vertices' [`Codes`]: the same triangles, in
/// the same order, with the same bits (`coded_clip_equals_plain`).
#[inline]
pub fn clip_triangle_coded(
    st: &TransformState,
    cv: [&Projected; 3],
    first: Option<usize>,
    provoking: Option<&ClipVertex>,
    cull: CullMode,
    out: &mut impl FnMut([ScreenVertex; 3]),
) {
    let Some(clip_needed) = decide(st, [cv[0].codes, cv[1].codes, cv[2].codes]) else { return };
    emit(st, cv, first, provoking, cull, clip_needed, out)
}

/// True when [`clip_triangle_coded`] emits nothing for these vertices: a rule rejects
/// them, or none is behind the near plane and no vertex order culling tries passes the
/// winding test; false when it emits something or clips (`coded_clip_equals_plain`).
/// Inline, so that a loop over a list pays no call for the triangles it drops (11216:
/// 375 000 of 441 000).
#[inline(always)]
pub fn draws_nothing(st: &TransformState, cv: [&Projected; 3], cull: CullMode) -> bool {
    match decide(st, [cv[0].codes, cv[1].codes, cv[2].codes]) {
        None => true,
        Some(true) => false,
        Some(false) => {
            let fails = |o: [usize; 3]| !accepts(&cv[o[0]].s, &cv[o[1]].s, &cv[o[2]].s);
            match cull {
                CullMode::None => fails([0, 1, 2]) && fails([2, 1, 0]),
                CullMode::Clockwise => fails([2, 1, 0]),
                CullMode::CounterClockwise => fails([0, 1, 2]),
            }
        }
    }
}

/// The vertex orders of a triangle no rule rejected ([`clip_triangle_into`]), in the
/// order [`orders`] lists them. Inline: with no vertex behind the near plane (nearly
/// every triangle) this is the winding test, the order spelled out per cull mode so
/// that the positions of `first` fold to constants.
#[inline(always)]
fn emit(
    st: &TransformState,
    cv: [&Projected; 3],
    first: Option<usize>,
    provoking: Option<&ClipVertex>,
    cull: CullMode,
    clip_needed: bool,
    out: &mut impl FnMut([ScreenVertex; 3]),
) {
    let prov = provoking.map(|p| (p.color0, p.color1));
    if clip_needed {
        clip_orders(st, cv, first, prov, cull, out);
        return;
    }
    match cull {
        CullMode::None => {
            unclipped(cv, [0, 1, 2], first, prov, out);
            unclipped(cv, [2, 1, 0], first, prov, out);
        }
        CullMode::Clockwise => unclipped(cv, [2, 1, 0], first, prov, out),
        CullMode::CounterClockwise => unclipped(cv, [0, 1, 2], first, prov, out),
    }
}

/// Vertex order `o` of a triangle with no vertex behind the near plane [PP
/// `Clipper::ProcessTriangle`]: the winding test reads positions only, so the copies are
/// made for an accepted order.
#[inline(always)]
fn unclipped(
    cv: [&Projected; 3],
    o: [usize; 3],
    first: Option<usize>,
    prov: Option<([u8; 4], [u8; 3])>,
    out: &mut impl FnMut([ScreenVertex; 3]),
) {
    let v = [cv[o[0]], cv[o[1]], cv[o[2]]];
    if accepts(&v[0].s, &v[1].s, &v[2].s) {
        let mut s = [v[0].s, v[1].s, v[2].s];
        if let Some(at) = first.and_then(|f| o.iter().position(|&k| k == f)) {
            s[at].first = true;
        }
        if let Some((c0, c1)) = prov {
            s[2].color0 = c0;
            s[2].color1 = c1;
        }
        out(s);
    }
}

/// [`emit`] with a vertex behind the near plane: each order clipped into a fan.
#[cold]
#[inline(never)]
fn clip_orders(
    st: &TransformState,
    cv: [&Projected; 3],
    first: Option<usize>,
    prov: Option<([u8; 4], [u8; 3])>,
    cull: CullMode,
    out: &mut impl FnMut([ScreenVertex; 3]),
) {
    for o in orders(cull) {
        let at = first.and_then(|f| o.iter().position(|&k| k == f));
        clip_fan(st, [cv[o[0]], cv[o[1]], cv[o[2]]], at, prov, out);
    }
}

/// One vertex order [PP `Clipper::ProcessTriangle`] of a triangle no rule rejected and
/// with a vertex behind the near plane; `first`: see [`clip_triangle_into`].
fn clip_fan(
    st: &TransformState,
    v: [&Cv; 3],
    first: Option<usize>,
    prov: Option<([u8; 4], [u8; 3])>,
    out: &mut impl FnMut([ScreenVertex; 3]),
) {
    // Sutherland–Hodgman against z + w ≥ 0 (a 3-cycle has at most two sign changes,
    // so at most two new vertices and five polygon corners).
    let mut verts: [Cv; 6] = [*v[0], *v[1], *v[2], *v[0], *v[0], *v[0]];
    if let Some(f) = first {
        verts[f].s.first = true;
    }
    let mut nverts = 3;
    let mut poly = [0usize; 6];
    let mut n = 0;
    let mut prev = 0usize;
    let mut dp_prev = near_dist(&verts[0].c);
    for j in 1..=3 {
        let idx = if j == 3 { 0 } else { j };
        let dp = near_dist(&verts[idx].c);
        if dp_prev >= 0.0 && n < poly.len() {
            poly[n] = prev;
            n += 1;
        }
        let differ = (dp <= 0.0 && dp_prev > 0.0) || (dp > 0.0 && dp_prev <= 0.0);
        if differ && nverts < verts.len() && n < poly.len() {
            let nv = if dp < 0.0 {
                lerp(st, dp / (dp - dp_prev), &verts[idx].c, &verts[prev].c)
            } else {
                lerp(st, dp_prev / (dp_prev - dp), &verts[prev].c, &verts[idx].c)
            };
            verts[nverts] = nv;
            poly[n] = nverts;
            n += 1;
            nverts += 1;
        }
        prev = idx;
        dp_prev = dp;
    }
    if n < 3 {
        return;
    }
    // Fan from the first polygon corner [PP `ProcessTriangle` index list]. Flat shading
    // overwrites the colours of each triangle's third corner in place, so a corner
    // shared with the next triangle keeps them, as in PPSSPP.
    for j in 2..n {
        let (ia, ib, ic) = (poly[0], poly[j - 1], poly[j]);
        if verts[ia].outside || verts[ib].outside || verts[ic].outside {
            continue;
        }
        if let Some((c0, c1)) = prov {
            verts[ic].s.color0 = c0;
            verts[ic].s.color1 = c1;
        }
        let (a, b, c) = (verts[ia].s, verts[ib].s, verts[ic].s);
        if accepts(&a, &b, &c) {
            out([a, b, c]);
        }
    }
}

/// Transform-mode line: range and depth rules, then the segment is shortened at the
/// near plane [PP `Clipper::ProcessLine`, `CLIP_LINE`].
pub fn clip_line(st: &TransformState, v: [&ClipVertex; 2], out: &mut Vec<[ScreenVertex; 2]>) {
    clip_line_projected(st, [&Cv::new(st, v[0]), &Cv::new(st, v[1])], out)
}

/// [`clip_line`] on vertices already projected with `always_check = false`.
pub fn clip_line_projected(st: &TransformState, v: [&Projected; 2], out: &mut Vec<[ScreenVertex; 2]>) {
    let (a, b) = (*v[0], *v[1]);
    if a.outside || b.outside || depth_rejects(st, &[&a.c, &b.c]) {
        return;
    }
    let (m0, m1) = (behind(&a.c), behind(&b.c));
    if !m0 && !m1 {
        out.push([a.s, b.s]);
        return;
    }
    let (mut a, mut b) = (a, b);
    let dp0 = near_dist(&a.c);
    let dp1 = near_dist(&b.c);
    if m0 && dp0 < 0.0 {
        a = lerp(st, dp1 / (dp1 - dp0), &b.c, &a.c);
    }
    let dp0 = near_dist(&a.c);
    if m1 && dp1 < 0.0 {
        b = lerp(st, dp1 / (dp1 - dp0), &b.c, &a.c);
    }
    if !a.outside && !b.outside {
        out.push([a.s, b.s]);
    }
}

/// Transform-mode point: only the range rule [PP `Clipper::ProcessPoint`].
pub fn clip_point(st: &TransformState, v: &ClipVertex) -> Option<ScreenVertex> {
    clip_point_projected(&Cv::new(st, v))
}

/// [`clip_point`] on a vertex already projected with `always_check = false`.
pub fn clip_point_projected(p: &Projected) -> Option<ScreenVertex> {
    (!p.outside).then_some(p.s)
}

/// Transform-mode rectangle: never clipped; range and depth rules only
/// [PP `Clipper::ProcessRect`]. The caller handles PPSSPP's sprite fog split and the
/// texture-projection path.
pub fn clip_rectangle(st: &TransformState, v: [&ClipVertex; 2]) -> Option<[ScreenVertex; 2]> {
    clip_rectangle_projected(st, [&Cv::new(st, v[0]), &Cv::new(st, v[1])])
}

/// [`clip_rectangle`] on vertices already projected with `always_check = false`.
pub fn clip_rectangle_projected(st: &TransformState, v: [&Projected; 2]) -> Option<[ScreenVertex; 2]> {
    let (a, b) = (v[0], v[1]);
    if a.outside || b.outside || depth_rejects(st, &[&a.c, &b.c]) {
        return None;
    }
    Some([a.s, b.s])
}

#[cfg(test)]
mod tests;
