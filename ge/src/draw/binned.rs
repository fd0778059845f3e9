//! What a draw bins: the per-draw state snapshot ([`DrawState`]), the shapes assembly
//! makes ([`Shape`]) and the binned primitive ([`BinnedPrim`]). Shared by the draw path,
//! the rasterization callback and PPSSPP's machinery ([`crate::ppsspp`]), which reads
//! and decorates them; this file depends on neither (it only holds the PPSSPP model's
//! per-state and per-primitive data types, [`StateData`] and [`PrimFix`]).

use std::sync::Arc;

use crate::cmd::{op, reg};
use crate::geom::ScreenVertex;
use crate::model::Model;
use crate::pixel::PixelState;
use crate::ppsspp::fix::{PrimFix, StateData};
use crate::raster::{self, ClipRect};
use crate::regs::Regs;
use crate::texture::{PaletteMemo, TextureState};

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
    /// The model's line rule.
    pub line: raster::LineRule,
    /// The model's triangle arithmetic (sample point, colour rounding, perspective divide).
    pub triangle: raster::TriangleRule,
    /// The model's rectangle arithmetic (coverage, texture coordinates, corners).
    pub rectangle: raster::RectangleRule,
    /// Inclusive drawing-coordinate scissor: SCISSOR1 .. min(SCISSOR2, REGION2)
    /// [PP `BinManager.cpp` scissor setup].
    pub scissor: ClipRect,
    /// Debugging: report every fragment drawn at this pixel to stderr.
    pub trace: Option<(i32, i32)>,
    /// Number of the PRIM this state was built for (for traces).
    pub draw: u64,
    /// What PPSSPP's state optimizations read and accumulate (PPSSPP model only).
    pub ppsspp: Option<StateData>,
}

impl DrawState {
    /// Decode the state of a draw with `model`'s typed rules (sampler, line, triangle,
    /// rectangle). PPSSPP's state rewrites and its [`StateData`] are added by the draw
    /// context through [`crate::ppsspp::decorate_state`], which knows the previous state.
    /// `palettes` keeps the last decoded palette for the next state.
    pub fn decode(
        regs: &Regs,
        clut: &[u8; 1024],
        through: bool,
        model: Model,
        palettes: &mut PaletteMemo,
    ) -> DrawState {
        let mut pixel = PixelState::decode(regs, through);
        // A blend that returns its source draws as none, the same bytes without reading
        // the destination (nba-2k12's full-screen FIX blends). PPSSPP's model has its own
        // rule for it (`ppsspp::rewrite_pixel`).
        if model == Model::Hardware && pixel.blend.is_some_and(|b| b.is_identity()) {
            pixel.blend = None;
        }
        let clear = pixel.clear_mode();
        let texture = (regs.enabled(op::TEXTUREMAPENABLE) && !clear).then(|| {
            let mut t = TextureState::decode_with(regs, clut, through, palettes);
            t.sampler = model.sampler_rule();
            t
        });
        let (s1, s2, r2) = (regs.get(reg::SCISSOR1), regs.get(reg::SCISSOR2), regs.get(reg::REGION2));
        let scissor = ClipRect {
            x0: s1.x() as i32,
            y0: s1.y() as i32,
            x1: s2.x().min(r2.x()) as i32,
            y1: s2.y().min(r2.y()) as i32,
        };
        // Texture-matrix mapping divides by q (PPSSPP's model drops trivial projections:
        // `ppsspp::decorate_state`).
        let texture_proj = texture.is_some() && regs.get(reg::TEXMAPMODE).mode() == 1;
        let depth_matters = if let Some(cm) = regs.clear_mode() {
            cm.depth
        } else {
            regs.enabled(op::ZTESTENABLE) && (!regs.enabled(op::ZWRITEDISABLE) || regs.get(reg::ZTEST).func() != 1)
        };
        DrawState {
            pixel,
            clear,
            through,
            flat: clear || regs.get(reg::SHADEMODE).gouraud() == 0,
            flat_provoking: regs.get(reg::SHADEMODE).gouraud() == 0,
            dither: regs.enabled(op::DITHERENABLE),
            texture_proj,
            fog: !through && !clear && regs.enabled(op::FOGENABLE),
            depth_matters,
            antialias: regs.enabled(op::ANTIALIASENABLE),
            line: model.line_rule(),
            triangle: model.triangle_rule(),
            rectangle: model.rectangle_rule(),
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

impl Shape {
    /// True when the shape certainly draws nothing under triangle rule `rule`: a triangle
    /// of non-zero area whose bounding box holds no sample point (16·p + 7 or + 8,
    /// [`raster::SamplePoint`]) in x or in y. Covering a sample needs every edge function
    /// non-negative there, so the sample lies in the closed triangle, inside its box; with
    /// coordinates under 2^14 sixteenths no edge function wraps, so that holds for the
    /// rasterizer's i32 arithmetic too (larger coordinates are never dropped). A triangle
    /// of zero area is kept: its edge functions vanish along the whole line through it,
    /// outside its box too (synthetic b_prim_001026). Far-away detail is mostly such slivers
    /// (g59dc00: most of its 10 600 triangles per frame). Other shapes: false.
    pub fn samples_nothing(&self, rule: raster::SamplePoint) -> bool {
        let Shape::Triangle(v) = self else { return false };
        triangle_samples_nothing(v, &Extent::of(v), rule)
    }
}

/// A triangle's extent in 12.4 units: its least and greatest x and y.
struct Extent {
    x: (i32, i32),
    y: (i32, i32),
}

impl Extent {
    fn of(v: &[ScreenVertex; 3]) -> Extent {
        let span = |a: i32, b: i32, c: i32| (a.min(b).min(c), a.max(b).max(c));
        Extent { x: span(v[0].x.0, v[1].x.0, v[2].x.0), y: span(v[0].y.0, v[1].y.0, v[2].y.0) }
    }
}

/// [`Shape::samples_nothing`] of triangle `v` with extent `e` (`Extent::of(v)`).
fn triangle_samples_nothing(v: &[ScreenVertex; 3], e: &Extent, rule: raster::SamplePoint) -> bool {
    const LIMIT: i32 = 1 << 14;
    if e.x.0 < -LIMIT || e.y.0 < -LIMIT || e.x.1 >= LIMIT || e.y.1 >= LIMIT {
        return false;
    }
    let (d1, d2) = ((v[1].x.0 - v[0].x.0, v[1].y.0 - v[0].y.0), (v[2].x.0 - v[0].x.0, v[2].y.0 - v[0].y.0));
    if i64::from(d1.0) * i64::from(d2.1) == i64::from(d1.1) * i64::from(d2.0) {
        return false;
    }
    let off = rule.offset();
    // Is there a p with lo <= 16·p + off <= hi?
    let holds_sample = |(lo, hi): (i32, i32)| (lo - off + 15).div_euclid(16) * 16 <= hi - off;
    !holds_sample(e.x) || !holds_sample(e.y)
}

/// What the hardware model bins a shape with: [`scissored_bounds`], `None` also when the
/// shape samples nothing under `rule` ([`Shape::samples_nothing`]). A triangle's extent is
/// found once for both: they were two passes over its corners (11216: 5.2 M + 2.7 M
/// instructions for 66 000 shapes); callgrind, 1 thread, replay minus band drawing:
/// 19960 132.0 -> 130.0 M, 21763 175.4 -> 172.4 M, 11216 355.8 -> 353.4 M.
pub(crate) fn hardware_bounds(state: &DrawState, shape: &Shape, rule: raster::SamplePoint) -> Option<ClipRect> {
    let Shape::Triangle(v) = shape else { return scissored_bounds(state, shape) };
    let e = Extent::of(v);
    let b = ClipRect { x0: e.x.0 >> 4, y0: e.y.0 >> 4, x1: e.x.1 >> 4, y1: e.y.1 >> 4 };
    let r = b.intersect(&state.scissor);
    (!r.is_empty() && !triangle_samples_nothing(v, &e, rule)).then_some(r)
}

/// What the binner stores.
pub struct BinnedPrim {
    pub state: Arc<DrawState>,
    pub shape: Shape,
    /// What PPSSPP's drain fixed for it (strips, state optimization); the default in the
    /// hardware model.
    pub fix: PrimFix,
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

#[cfg(test)]
mod tests {
    use super::{DrawState, Shape};
    use crate::cmd::op;
    use crate::geom::{ScreenVertex, SubPixel};
    use crate::model::Model;
    use crate::ppsspp::fix::StateData;
    use crate::raster::{self, ClipRect, RasterSetup, SamplePoint, TriangleRule};
    use crate::regs::{Matrices, Regs};
    use crate::texture::PaletteMemo;
    use proptest::prelude::*;

    fn vertex((x, y): (i32, i32)) -> ScreenVertex {
        ScreenVertex { x: SubPixel(x), y: SubPixel(y), w: 1.0, q: 1.0, color0: [255; 4], ..Default::default() }
    }

    /// Quads with a lane set that the rasterizer emits for `v` in either winding.
    fn lanes(v: &[ScreenVertex; 3], rule: TriangleRule) -> u32 {
        let mut setup = RasterSetup::new(ClipRect { x0: 0, y0: 0, x1: 1023, y1: 1023 }, true, true);
        setup.triangle = rule;
        let mut n = 0;
        raster::triangle_culled(v, raster::Cull::Off, &setup, &mut |q| n += u32::from(q.mask != 0));
        n
    }

    /// A small triangle near (`x`, `y`) sixteenths: with `far` a corner past 2^14, with
    /// `kind` 1 two equal corners, with 2 three on a diagonal (zero area).
    fn triangle() -> impl Strategy<Value = [(i32, i32); 3]> {
        (0..16_368i32, 0..16_368i32, prop::array::uniform6(-40..40i32), any::<bool>(), 0..4u8).prop_map(
            |(x, y, d, far, kind)| {
                let far = if far { 1 << 14 } else { 0 };
                let mut v = [(x + d[0], y + d[1]), (x + d[2], y + d[3]), (x + d[4] + far, y + d[5])];
                match kind {
                    1 => v[1] = v[0],
                    2 => v = [0, 1, 2].map(|k| (x + k * d[0], y + k * d[1])),
                    _ => {}
                }
                v
            },
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 20_000, ..ProptestConfig::default() })]
        /// The binning shortcut drops only triangles the rasterizer draws nothing of.
        #[test]
        fn dropped_triangles_draw_nothing(p in triangle(), hardware in any::<bool>()) {
            let v = p.map(vertex);
            let (rule, sample) = if hardware {
                (TriangleRule::HARDWARE, SamplePoint::PixelCentre)
            } else {
                (TriangleRule::PPSSPP, SamplePoint::Ppsspp)
            };
            prop_assume!(rule.sample == sample);
            if Shape::Triangle(v).samples_nothing(sample) {
                prop_assert_eq!(lanes(&v, rule), 0);
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 20_000, ..ProptestConfig::default() })]
        /// The fused binning test is the two it replaces: the scissored bounds of a shape
        /// that samples something, for triangles near and past 2^14 and around a scissor,
        /// and for a rectangle.
        #[test]
        fn hardware_bounds_equal_scissored_bounds_of_sampling_shapes(
            p in triangle(),
            shift in -20_000..20_000i32,
            scissor in (0..700i32, 0..700i32, 0..400i32, 0..400i32),
            rect in any::<bool>(),
            hardware in any::<bool>(),
        ) {
            let v = p.map(|(x, y)| vertex((x + shift, y - shift / 2)));
            let shape = if rect { Shape::Rectangle([v[0], v[2]]) } else { Shape::Triangle(v) };
            let mut st = DrawState::decode(&Regs::default(), &[0; 1024], true, Model::Hardware, &mut PaletteMemo::default());
            st.scissor = ClipRect { x0: scissor.0, y0: scissor.1, x1: scissor.0 + scissor.2, y1: scissor.1 + scissor.3 };
            let rule = if hardware { SamplePoint::PixelCentre } else { SamplePoint::Ppsspp };
            let plain = (!shape.samples_nothing(rule)).then(|| super::scissored_bounds(&st, &shape)).flatten();
            prop_assert_eq!(super::hardware_bounds(&st, &shape, rule), plain);
        }
    }

    /// The draw state as the draw path decodes it (PPSSPP's decoration and the function
    /// keys its machinery looks up with it included), printed.
    fn decoded(regs: &Regs, clut: &[u8; 1024], mats: &Matrices, through: bool, model: Model) -> String {
        let mut s = DrawState::decode(regs, clut, through, model, &mut PaletteMemo::default());
        let mut keys = None;
        if model == Model::Ppsspp {
            crate::ppsspp::decorate_state(&mut s, regs, mats);
            let tex = s.texture.as_ref().map(|t| t.shared_clut);
            s.ppsspp = Some(StateData::decode(regs, clut, &s.pixel, tex, None, true));
            keys = Some(crate::ppsspp::function_keys(regs, through));
        }
        let flags = [s.clear, s.through, s.flat, s.flat_provoking, s.dither, s.texture_proj, s.fog, s.depth_matters];
        format!(
            "{:?} {:?} {flags:?} {} {:?} {:?} {:?} {:?} {:?} {keys:?}",
            s.pixel, s.texture, s.antialias, s.line, s.triangle, s.rectangle, s.scissor, s.ppsspp
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 3_000, ..ProptestConfig::default() })]
        /// A change of a `DirtyGroup::Vertex` command (or of the world, view, projection or
        /// bone matrices) leaves the decoded draw state as it was, so the executor keeps the
        /// snapshot, and PPSSPP's function keys, so the draw path does not look them up
        /// again; random register files, CLUTs and both models.
        #[test]
        fn vertex_group_leaves_the_draw_state(
            raw in prop::collection::vec(0..0x0100_0000u32, 256),
            clut in prop::collection::vec(any::<u8>(), 1024),
            pick in any::<prop::sample::Index>(),
            arg in 0..0x0100_0000u32,
            m in prop::collection::vec(-4.0f32..4.0, 136),
            through in any::<bool>(),
            ppsspp in any::<bool>(),
        ) {
            let model = if ppsspp { Model::Ppsspp } else { Model::Hardware };
            let vertex: Vec<u8> = crate::cmd::TABLE.iter().filter(|c| !c.dirty.draw_state()).map(|c| c.op).collect();
            let mut regs = Regs::default();
            for (op, &v) in raw.iter().enumerate() {
                regs.set(op as u8, v);
            }
            let clut: [u8; 1024] = clut.try_into().unwrap();
            let mut mats = Matrices::default();
            let before = decoded(&regs, &clut, &mats, through, model);
            regs.set(*pick.get(&vertex), arg);
            mats.world.copy_from_slice(&m[..12]);
            mats.view.copy_from_slice(&m[12..24]);
            mats.proj.copy_from_slice(&m[24..40]);
            mats.bones.copy_from_slice(&m[40..136]);
            prop_assert_eq!(before, decoded(&regs, &clut, &mats, through, model));
        }
    }

    /// The group is what the executor relies on: the pointers and four matrix memories,
    /// and no register a draw state reads (TEXADDR0 changes it: the property is not vacuous).
    #[test]
    fn vertex_group_members() {
        let vertex: Vec<&str> = crate::cmd::TABLE.iter().filter(|c| !c.dirty.draw_state()).map(|c| c.name).collect();
        assert_eq!(vertex.len(), 13, "{vertex:?}");
        assert!(vertex.contains(&"VADDR") && vertex.contains(&"BONEMATRIXDATA") && !vertex.contains(&"TGENMATRIXDATA"));
        let mut regs = Regs::default();
        regs.set(op::TEXTUREMAPENABLE, 1);
        let (clut, mats) = ([0u8; 1024], Matrices::default());
        let before = decoded(&regs, &clut, &mats, false, Model::Hardware);
        regs.set(op::TEXADDR0, 0x1000);
        assert_ne!(before, decoded(&regs, &clut, &mats, false, Model::Hardware));
    }

    /// Slivers between sample rows are dropped, for each rule's own sample point, and a
    /// triangle holding a sample is not (the property above is not vacuous).
    #[test]
    fn slivers_between_samples_are_dropped() {
        // y from 16·3 + 9 to 16·4 + 6: between the rows' samples at + 7 and + 8 of 3 and 4.
        let sliver = [(100, 57), (180, 60), (140, 70)].map(vertex);
        assert!(Shape::Triangle(sliver).samples_nothing(SamplePoint::Ppsspp));
        assert!(Shape::Triangle(sliver).samples_nothing(SamplePoint::PixelCentre));
        assert_eq!(lanes(&sliver, TriangleRule::PPSSPP) + lanes(&sliver, TriangleRule::HARDWARE), 0);
        // Holds y = 16·4 + 7 but not + 8: kept for the PPSSPP sample point only.
        let low = [(100, 60), (180, 60), (140, 71)].map(vertex);
        assert!(!Shape::Triangle(low).samples_nothing(SamplePoint::Ppsspp));
        assert!(Shape::Triangle(low).samples_nothing(SamplePoint::PixelCentre));
        let big = [(0, 0), (160, 0), (0, 160)].map(vertex);
        assert!(!Shape::Triangle(big).samples_nothing(SamplePoint::PixelCentre));
        assert!(lanes(&big, TriangleRule::HARDWARE) > 0);
        // Zero area (b_prim_001026): the line through it holds samples outside its box.
        let line = [(4013, 2317), (4013, 2317), (4014, 2318)].map(vertex);
        assert!(!Shape::Triangle(line).samples_nothing(SamplePoint::PixelCentre));
        // Past 2^14 sixteenths nothing is dropped.
        let far = [(1 << 14, 57), (180, 60), (140, 70)].map(vertex);
        assert!(!Shape::Triangle(far).samples_nothing(SamplePoint::Ppsspp));
    }
}
