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
        let pixel = PixelState::decode(regs, through);
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
