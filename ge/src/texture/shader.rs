//! Per-draw quad shaders: the texture stage of triangles and other quad-walked primitives,
//! specialised once per primitive and band on the state that is fixed for the draw.
//!
//! [`QuadShader::new`] looks at the decoded [`TextureState`] once. When the level choice
//! cannot vary ([`super::constant_lod`]: one level, the same filter for magnifying and
//! minifying) and the stage is not zeroed by an invalid address, it picks a function
//! monomorphised on texel format × filter (nearest / bilinear) × texture function, and
//! resolves level 0 (its memory slice, palette, axes) once instead of once per quad; the
//! LOD arithmetic is skipped (it could not change the result). Every other draw (mipmaps,
//! differing filters, invalid addresses) runs [`super::shade_quad`], which stays the
//! reference: the property test in `shader/tests.rs` checks that every shader equals it
//! lane by lane over random registers, palettes, texture memory and quads.
//!
//! A specialised shader computes colours for covered lanes only (the reference also
//! shades uncovered lanes, whose colours the pixel stage never reads).

use super::filter::{self, Level};
use super::format::{self, Format};
use super::func::{self, TexFunc};
use super::{SamplerRule, TexFormat, TextureState};
use crate::geom::Quad;
use crate::mem::Memory;

/// The texture stage for the quads of one primitive in one band.
pub struct QuadShader<'a> {
    st: &'a TextureState,
    mem: &'a Memory,
    /// Level 0, resolved once (used by the specialised shaders).
    level: Level<'a>,
    run: ShadeFn,
}

type ShadeFn = fn(&QuadShader, &Quad) -> [[u8; 4]; 4];

impl<'a> QuadShader<'a> {
    /// Choose the shader for `st` (a textured draw outside clear mode).
    pub fn new(st: &'a TextureState, mem: &'a Memory) -> QuadShader<'a> {
        QuadShader { st, mem, level: st.level(mem, 0), run: select(st) }
    }

    /// The colours of a quad's covered fragments after the texture function and the
    /// secondary colour (uncovered lanes are unspecified).
    #[inline]
    pub fn shade(&self, q: &Quad) -> [[u8; 4]; 4] {
        (self.run)(self, q)
    }

    /// True when this draw runs a specialised shader (not the reference).
    pub fn is_specialised(&self) -> bool {
        self.run as usize != reference as ShadeFn as usize
    }
}

/// The reference: LOD per quad, format matched per quad.
fn reference(sh: &QuadShader, q: &Quad) -> [[u8; 4]; 4] {
    super::shade_quad(sh.st, sh.mem, q, q.w)
}

fn select(st: &TextureState) -> ShadeFn {
    let Some(lod) = super::constant_lod(st) else { return reference };
    if st.null_output(0) {
        return reference;
    }
    macro_rules! by_func {
        ($f:ty, $lin:literal) => {
            match st.func.func {
                TexFunc::Modulate => constant::<$f, $lin, MODULATE>,
                TexFunc::Decal => constant::<$f, $lin, DECAL>,
                TexFunc::Blend => constant::<$f, $lin, BLEND>,
                TexFunc::Replace => constant::<$f, $lin, REPLACE>,
                TexFunc::Add => constant::<$f, $lin, ADD>,
            }
        };
    }
    macro_rules! run {
        ($f:ty) => {
            if lod.linear {
                by_func!($f, true)
            } else {
                by_func!($f, false)
            }
        };
    }
    dispatch_format!(st.format, run)
}

const MODULATE: u8 = 0;
const DECAL: u8 = 1;
const BLEND: u8 = 2;
const REPLACE: u8 = 3;
const ADD: u8 = 4;

/// One level, one filter: each covered lane sampled at its own coordinates and run
/// through the texture function `FUNC`, as [`super::shade_quad`] does for a constant LOD.
fn constant<F: Format, const LINEAR: bool, const FUNC: u8>(sh: &QuadShader, q: &Quad) -> [[u8; 4]; 4] {
    let st = sh.st;
    let fs = func::TexFuncState {
        func: match FUNC {
            MODULATE => TexFunc::Modulate,
            DECAL => TexFunc::Decal,
            BLEND => TexFunc::Blend,
            REPLACE => TexFunc::Replace,
            _ => TexFunc::Add,
        },
        ..st.func
    };
    let mut out = [[0u8; 4]; 4];
    for (i, f) in q.frags.iter().enumerate() {
        if q.mask & (1 << i) == 0 {
            continue;
        }
        let (s, t) = st.normalise(f.s, f.t);
        let texel = if LINEAR { filter::bilinear::<F>(&sh.level, s, t) } else { filter::nearest::<F>(&sh.level, s, t) };
        out[i] = if f.color0_indefinite != 0 && st.sampler != SamplerRule::PpssppCpp {
            func::add_secondary(func::apply_indefinite(&fs, f.color0, f.color0_indefinite, texel), f.color1)
        } else {
            func::add_secondary(func::apply(&fs, f.color0, texel), f.color1)
        };
    }
    out
}

#[cfg(test)]
mod tests;
