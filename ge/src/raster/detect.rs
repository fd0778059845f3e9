//! PPSSPP's rectangle detection: triangle pairs, 4-vertex strips and fans, and adjacent
//! sprite slices that PPSSPP draws as one sprite instead ([PP `RasterizerRectangle.cpp`
//! `DetectRectangleFromPair`, `DetectRectangleFromStrip`, `DetectRectangleFromFan`,
//! `DetectRectangleThroughModeSlices`], called from [PP `TransformUnit::SubmitPrimitive`]).
//!
//! Sprites and triangles have different coverage and attribute rules, so primitive assembly
//! must make the same choice as PPSSPP to match its output. When a detector returns
//! `Some((tl, br))`, PPSSPP sends `Clipper::ProcessRect(data[tl], data[br])` (a sprite
//! from those two vertices, with every sprite rule incl. the fast path and fog split).
//! The callers' preconditions (through mode / culling off / vertex counts) are listed on
//! each function; they live in `SubmitPrimitive`.
//!
//! Both models detect. guess: the hardware model keeps PPSSPP's choice because no
//! hardware data decides it: with detection off in the hardware model no hardware
//! screenshot (27) or readback line (7 422) and no synthetic scene changes, only 8 of the 20
//! real-game renders (whose references are PPSSPP's). A hardware test drawing sprite-shaped
//! triangle pairs, strips and fans with sprite-sensitive attributes would decide.

use super::vertex_depth;
use crate::geom::ScreenVertex;

/// Draw state the detectors look at.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DetectState {
    pub through: bool,
    /// Texture mapping enabled and not clear mode.
    pub textured: bool,
    /// Depth write on, or a depth test other than ALWAYS (then z must be flat).
    pub depth_matters: bool,
    /// Fog applied (transform mode, FOGENABLE, not clear mode).
    pub fog: bool,
}

/// A vertex as primitive assembly holds it: screen data plus the clip-space facts the
/// transform-mode checks use.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AsmVertex {
    pub v: ScreenVertex,
    /// Clip-space z (w is `v.w`).
    pub clip_z: f32,
    /// The vertex is outside the guard band (PPSSPP's `OutsideRange`).
    pub outside_range: bool,
}

/// [PP IsCoordRectangleCompatible]
fn main_ok(st: &DetectState, d: &AsmVertex) -> bool {
    st.through || !(d.outside_range || d.v.w < 0.0 || d.clip_z < -d.v.w)
}

/// [PP AreCoordsRectangleCompatible]: may `d1` share a sprite with `d0`?
fn compatible(st: &DetectState, d0: &AsmVertex, d1: &AsmVertex) -> bool {
    let (a, b) = (&d0.v, &d1.v);
    if b.color0 != a.color0 {
        return false;
    }
    if vertex_depth(b.z) != vertex_depth(a.z) && st.depth_matters {
        return false;
    }
    if !st.through {
        if b.color1 != a.color1 || d1.outside_range {
            return false;
        }
        if st.textured && b.w != a.w {
            // "If the w is off by less than a factor of 1/512, it should be safe."
            const HALF_TEXEL: f32 = 0.5 / 512.0;
            if b.w - HALF_TEXEL > a.w || b.w + HALF_TEXEL < a.w {
                return false;
            }
        }
        if b.w < 0.0 || d1.clip_z < -b.w {
            return false;
        }
        if st.textured && b.q != a.q {
            return false;
        }
        if st.fog && b.fog != a.fog {
            const FOG_HALF_STEP: f32 = 0.5 / 255.0;
            if b.fog - FOG_HALF_STEP > a.fog || b.fog + FOG_HALF_STEP < a.fog {
                return false;
            }
        }
    }
    true
}

/// Flat-compatibility of `data[1..]` with `data[0]`, plus PPSSPP's TL/BR search (last
/// vertex that is ≤/≥ in both coordinates wins).
fn tl_br(st: &DetectState, data: &[AsmVertex]) -> Option<(usize, usize)> {
    let first = data.first()?;
    if !main_ok(st, first) {
        return None;
    }
    let (mut tl, mut br) = (0usize, 0usize);
    for i in 1..data.len() {
        if !compatible(st, first, &data[i]) {
            return None;
        }
        let (x, y) = (data[i].v.x.0, data[i].v.y.0);
        if x <= data[tl].v.x.0 && y <= data[tl].v.y.0 {
            tl = i;
        }
        if x >= data[br].v.x.0 && y >= data[br].v.y.0 {
            br = i;
        }
    }
    Some((tl, br))
}

/// Six vertices of PRIM TRIANGLES (through mode, culling off, only when the PRIM starts a
/// fresh batch of a multiple of 6 vertices): is the pair TL, TR, BR, TL, BR, BL a sprite?
pub fn detect_rect_from_pair(st: &DetectState, d: &[AsmVertex; 6]) -> Option<(usize, usize)> {
    let (tl, br) = tl_br(st, d)?;
    if !(tl == 3 && br == 4) {
        return None;
    }
    let x = |i: usize| d[i].v.x.0;
    let y = |i: usize| d[i].v.y.0;
    let pos_ok = x(0) == x(3)
        && x(0) == x(5)
        && x(1) == x(2)
        && x(1) == x(4)
        && y(0) == y(1)
        && y(0) == y(3)
        && y(2) == y(4)
        && y(2) == y(5);
    if !pos_ok {
        return None;
    }
    if !st.textured {
        return Some((tl, br));
    }
    let u = |i: usize| d[i].v.s;
    let v = |i: usize| d[i].v.t;
    let tex_ok = u(0) == u(3)
        && u(0) == u(5)
        && u(1) == u(2)
        && u(1) == u(4)
        && v(0) == v(1)
        && v(0) == v(3)
        && v(2) == v(4)
        && v(2) == v(5);
    // "Double check rotation direction."
    (tex_ok && v(tl) < v(br) && y(tl) < y(br) && u(tl) < u(br) && x(tl) < x(br)).then_some((tl, br))
}

/// Four vertices of a triangle strip (culling off, even vertex count ≥ 4, fresh PRIM): is
/// the quad a sprite? Both vertex orders of an axis-aligned strip are accepted.
pub fn detect_rect_from_strip(st: &DetectState, d: &[AsmVertex; 4]) -> Option<(usize, usize)> {
    let (tl, br) = tl_br(st, d)?;
    let x = |i: usize| d[i].v.x.0;
    let y = |i: usize| d[i].v.y.0;
    let u = |i: usize| d[i].v.s;
    let v = |i: usize| d[i].v.t;
    if x(0) == x(1) && y(0) == y(2) && x(2) == x(3) && y(1) == y(3) {
        let ok = !st.textured || (u(0) == u(1) && v(0) == v(2) && u(2) == u(3) && v(1) == v(3));
        return ok.then_some((tl, br));
    }
    if x(0) == x(2) && y(0) == y(1) && x(1) == x(3) && y(2) == y(3) {
        let ok = !st.textured || (u(0) == u(2) && v(0) == v(1) && u(1) == u(3) && v(2) == v(3));
        return ok.then_some((tl, br));
    }
    None
}

/// A 4-vertex triangle fan (culling off, fresh PRIM of exactly 4 vertices): is it a
/// sprite? Textured fans must not be rotated or mirrored.
pub fn detect_rect_from_fan(st: &DetectState, d: &[AsmVertex; 4]) -> Option<(usize, usize)> {
    let (tl, br) = tl_br(st, d)?;
    let x = |i: usize| d[i].v.x.0;
    let y = |i: usize| d[i].v.y.0;
    let (mut tr, mut bl) = (1usize, 1usize);
    for i in 0..4 {
        if i == tl || i == br {
            continue;
        }
        if x(i) <= x(tl) && y(i) >= y(tl) {
            bl = i;
        }
        if x(i) >= x(br) && y(i) <= y(br) {
            tr = i;
        }
    }
    // "Must have found each of the coordinates."
    if tl + tr + bl + br != 6 {
        return None;
    }
    if !(x(tl) == x(bl) && x(tr) == x(br) && y(tl) == y(tr) && y(bl) == y(br)) {
        return None;
    }
    if !st.textured {
        return Some((tl, br));
    }
    let u = |i: usize| d[i].v.s;
    let v = |i: usize| d[i].v.t;
    if u(tl) == u(bl) && u(tr) == u(br) && v(tl) == v(tr) && v(bl) == v(br) {
        return (v(tl) < v(br) && y(tl) < y(br) && u(tl) < u(br) && x(tl) < x(br)).then_some((tl, br));
    }
    None
}

/// Two consecutive through-mode sprites (PRIM RECTANGLES, culling off) forming one
/// horizontal strip with 1:1 texture mapping: PPSSPP merges them into the sprite
/// (`d[0]`, `d[3]`).
pub fn detect_rect_through_slices(st: &DetectState, d: &[ScreenVertex; 4]) -> bool {
    for v in &d[1..] {
        if v.color0 != d[0].color0 {
            return false;
        }
        if vertex_depth(v.z) != vertex_depth(d[0].z) && st.depth_matters {
            return false;
        }
    }
    let (tl1, br1, tl2, br2) = (&d[0], &d[1], &d[2], &d[3]);
    if !(tl1.y == tl2.y && br1.y == br2.y && br1.y > tl1.y) {
        return false;
    }
    if !(br1.x == tl2.x && tl1.x < br1.x && tl2.x < br2.x) {
        return false;
    }
    if !st.textured {
        return true;
    }
    if tl1.t != tl2.t || br1.t != br2.t || tl1.t > br1.t {
        return false;
    }
    if br1.s != tl2.s || tl1.s > br1.s || tl2.s > br2.s {
        return false;
    }
    // "We might be able to compare ratios, but let's expect 1:1." (float → int truncation)
    let texdiff1 = super::cvt_trunc_f64(((br1.s - tl1.s) * 16.0) as f64);
    let texdiff2 = super::cvt_trunc_f64(((br2.s - tl2.s) * 16.0) as f64);
    texdiff1 == br1.x.0.wrapping_sub(tl1.x.0) && texdiff2 == br2.x.0.wrapping_sub(tl2.x.0)
}
