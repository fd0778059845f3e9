//! The two GE models and the per-draw rules they choose.
//!
//! [`Model::Hardware`] models the PSP's GE: draws rasterize in submission order, whole
//! primitives, with the arithmetic hardware evidence supports (`[HW ...]` comments; where
//! no hardware data decides, a `guess:`). [`Model::Ppsspp`] models PPSSPP's software
//! renderer as the reference emulator: the hardware GE plus its renderer machinery
//! ([`crate::ppsspp`]): task strips, state optimizations, JIT/C++ sampler choice, x86 JIT
//! logic ops and the AMD `RSQRTPS` of the machine that made the references.
//!
//! A GE has one model for its lifetime ([`crate::Ge::with_model`]). Where the two differ
//! inside a stage, the stage takes a typed rule that the draw path picks from the model
//! once per draw ([`Model::rsqrt_rule`], [`Model::sampler_rule`], [`Model::triangle_rule`],
//! [`Model::rectangle_rule`], [`Model::screen_snap`], [`Model::line_rule`], [`Model::tessellation_rule`]).

use std::fmt;
use std::str::FromStr;

use crate::patch::TessellationRule;
use crate::raster::{LineRule, RectangleRule, TriangleRule};
use crate::texture::SamplerRule;
use crate::transform::{RsqrtRule, ScreenSnap};

/// Which truth the GE reproduces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Model {
    /// The real PSP (truth: hardware screenshots and read-back values).
    #[default]
    Hardware,
    /// PPSSPP's software renderer (truth: its screenshots, e.g. the frame-test references).
    Ppsspp,
}

impl Model {
    pub const ALL: [Model; 2] = [Model::Hardware, Model::Ppsspp];

    pub fn name(self) -> &'static str {
        match self {
            Model::Hardware => "hardware",
            Model::Ppsspp => "ppsspp",
        }
    }

    /// The reciprocal square root of the transform and tessellation normalisations.
    pub fn rsqrt_rule(self) -> RsqrtRule {
        match self {
            Model::Hardware => RsqrtRule::Exact,
            Model::Ppsspp => RsqrtRule::AmdRsqrtps,
        }
    }

    /// How rectangles are covered, placed and textured.
    pub fn rectangle_rule(self) -> RectangleRule {
        match self {
            Model::Hardware => RectangleRule::Hardware,
            Model::Ppsspp => RectangleRule::Ppsspp,
        }
    }

    /// How projected vertices land on the 1/16 px grid.
    pub fn screen_snap(self) -> ScreenSnap {
        match self {
            Model::Hardware => ScreenSnap::Float24Stages,
            Model::Ppsspp => ScreenSnap::Ppsspp,
        }
    }

    /// How triangles are sampled and their attributes rounded.
    pub fn triangle_rule(self) -> TriangleRule {
        match self {
            Model::Hardware => TriangleRule::HARDWARE,
            Model::Ppsspp => TriangleRule::PPSSPP,
        }
    }

    /// The sampler arithmetic of a draw (PPSSPP's C++ fallback is chosen per primitive
    /// by [`crate::ppsspp`], on top of this).
    pub fn sampler_rule(self) -> SamplerRule {
        match self {
            Model::Hardware => SamplerRule::Hardware,
            Model::Ppsspp => SamplerRule::PpssppJit,
        }
    }

    /// Which pixels a line lights.
    pub fn line_rule(self) -> LineRule {
        match self {
            Model::Hardware => LineRule::DiamondExit,
            Model::Ppsspp => LineRule::PpssppDda,
        }
    }

    /// Spline knots and tessellated colour rounding of BEZIER/SPLINE.
    pub fn tessellation_rule(self) -> TessellationRule {
        match self {
            Model::Hardware => TessellationRule::Hardware,
            Model::Ppsspp => TessellationRule::Ppsspp,
        }
    }
}

impl fmt::Display for Model {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An unknown model name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown GE model {0:?} (expected \"hardware\" or \"ppsspp\")")]
pub struct UnknownModel(pub String);

impl FromStr for Model {
    type Err = UnknownModel;

    fn from_str(s: &str) -> Result<Model, UnknownModel> {
        Model::ALL.into_iter().find(|m| m.name().eq_ignore_ascii_case(s)).ok_or_else(|| UnknownModel(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for m in Model::ALL {
            assert_eq!(m.name().parse::<Model>(), Ok(m));
        }
        assert_eq!("PPSSPP".parse::<Model>(), Ok(Model::Ppsspp));
        assert!("psp".parse::<Model>().is_err());
        assert_eq!(Model::default(), Model::Hardware);
    }
}
