//! PPSSPP's per-state rasterizer optimizations [PP `Rasterizer.cpp`
//! `CalculateRasterStateFlags`, `DetectStateOptimizations`, `ApplyStateOptimizations`,
//! `OptimizeRasterState`, `OptimizeFlatRasterizerState`; `BinManager.cpp` `Drain`,
//! `OptimizePendingStates`].
//!
//! PPSSPP keeps one rasterizer state per run of draws without a pixel, sampler or
//! rasterizer register change ([`OptCell`]). Every binned primitive ORs a few facts about
//! its vertices into the state's flags (colour not white, alpha not 0, alpha not 255, fog
//! used). At every drain of the bin queue (`queue`), every pending state derives
//! "optimizations" from its flags and rewrites its pixel function for every primitive drawn
//! from then on.
//! Most of them are exact rewrites, but several change pixels:
//! * `ALPHATEST_ON`: SRCALPHA/INVSRCALPHA blending without alpha test, depth write or
//!   stencil test discards α = 0 fragments, which then skip dither, logic op and the
//!   subtract equations;
//! * `BLEND_OFF` (all α = 255): reverse subtract no longer clears the colour, and an
//!   interpolated α that rounds to 254 is no longer blended;
//! * `BLEND_SRC`/`BLEND_DST`: SRCALPHA/INVSRCALPHA become fixed ONE/ZERO;
//! * `ALPHATEST_OFF_*`: the alpha test is dropped for CLUT textures whose alpha PPSSPP
//!   believes is never zero (its test ANDs whole entries, colour bits included).
//!
//! The first optimization a state gets is kept; if a later drain would choose a different
//! one, the state reverts to none for good ("don't churn"). Sprites drawn through
//! `DrawRectangle` re-derive the optimization from their own second vertex.
//!
//! Not modelled: `TEXREPLACE` is decided (it takes part in the "don't churn" rule) but not
//! applied, since MODULATE with white equals REPLACE in our texture function except for
//! interpolated colours that round below 255; an optimized pixel function that PPSSPP has
//! not compiled yet runs its C++ path (which differs from the x86 JIT only for NAND and
//! OR_INVERTED logic ops).

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

use crate::cmd::reg;
use crate::geom::ScreenVertex;
use crate::pixel::{Blend, BlendEq, BlendFactor, Compare, PixelState};
use crate::regs::Regs;

const VERTEX_NON_FULL_WHITE: u32 = 0x0001;
const VERTEX_ALPHA_NON_ZERO: u32 = 0x0002;
const VERTEX_ALPHA_NON_FULL: u32 = 0x0004;
const VERTEX_HAS_FOG: u32 = 0x0008;
const OPTIMIZED: u32 = 0x0001_0000;
const BLEND_SRC: u32 = 0x0002_0000;
const BLEND_DST: u32 = 0x0004_0000;
const BLEND_OFF: u32 = 0x0008_0000;
const TEXREPLACE: u32 = 0x0010_0000;
const FOG_OFF: u32 = 0x0020_0000;
const ALPHATEST_OFF_NE: u32 = 0x0040_0000;
const ALPHATEST_OFF_GT: u32 = 0x0080_0000;
const ALPHATEST_ON: u32 = 0x0100_0000;
const PIXEL_BITS: u32 =
    BLEND_SRC | BLEND_DST | BLEND_OFF | FOG_OFF | ALPHATEST_OFF_NE | ALPHATEST_OFF_GT | ALPHATEST_ON;
const SAMPLER_BITS: u32 = TEXREPLACE;
/// Ours, not PPSSPP's: the `canFull` choice made when the pixel bits were applied.
const CAN_FULL: u32 = 0x8000_0000;
/// PPSSPP `lastFlags` before the first optimization pass (`INVALID`).
const NEVER: u32 = u32::MAX;

/// Blend factor as PPSSPP's pixel ID records it (`PixelBlendFactor`, FIX 0 / 0xFFFFFF
/// folded to ZERO / ONE); only the cases the detection looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Factor {
    Other,
    SrcAlpha,
    InvSrcAlpha,
    One,
    Zero,
}

fn factor(f: BlendFactor) -> Factor {
    match f {
        BlendFactor::SrcAlpha => Factor::SrcAlpha,
        BlendFactor::InvSrcAlpha => Factor::InvSrcAlpha,
        BlendFactor::Fixed([0xFF, 0xFF, 0xFF]) => Factor::One,
        BlendFactor::Fixed([0, 0, 0]) => Factor::Zero,
        _ => Factor::Other,
    }
}

/// What `DetectStateOptimizations` reads from the (unoptimized) pixel and sampler IDs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptInputs {
    clear: bool,
    /// Gouraud shading outside clear mode (PPSSPP `shadeGouraud`).
    pub(crate) shade_gouraud: bool,
    alpha_blend: bool,
    src: Factor,
    dst: Factor,
    /// After `OptimizeRefByteCompare`.
    alpha_func: Compare,
    alpha_ref: u8,
    alpha_mask: bool,
    depth_write: bool,
    stencil: bool,
    fog: bool,
    textures: bool,
    texture_alpha: bool,
    /// Texture format field has bit 2 set (the CLUT formats) [PP `samplerID.texfmt & 4`].
    uses_clut: bool,
    modulate: bool,
    /// `CheckClutAlphaFull`: `None` when PPSSPP declines to check (CLUT offset or
    /// per-mip CLUTs), else (only full alpha, AND of all entries non-zero).
    clut: Option<(bool, bool)>,
}

impl OptInputs {
    pub fn decode(regs: &Regs, clut: &[u8; 1024], pixel: &PixelState, textures: bool, shared_clut: bool) -> OptInputs {
        let (alpha_blend, src, dst) = match pixel.blend {
            Some(Blend { eq: BlendEq::Add | BlendEq::Subtract | BlendEq::ReverseSubtract, src, dst }) => {
                (true, factor(src), factor(dst))
            }
            // MIN/MAX/ABS leave the factors at 0 (OTHERCOLOR) [PP ComputePixelFuncID].
            Some(_) => (true, Factor::Other, Factor::Other),
            None => (false, Factor::Other, Factor::Other),
        };
        let alpha_func = pixel.alpha_func.optimize_ref_byte(pixel.alpha_ref);
        let always = alpha_func == Compare::Always;
        let uses_clut = textures && regs.get(reg::TEXFORMAT).format() & 4 != 0;
        let cf = regs.get(reg::CLUTFORMAT);
        let clut = (uses_clut && shared_clut && cf.offset() == 0).then(|| clut_alpha(clut, regs));
        OptInputs {
            clear: pixel.clear,
            shade_gouraud: !pixel.clear && regs.get(reg::SHADEMODE).gouraud() != 0,
            alpha_blend,
            src,
            dst,
            alpha_func,
            alpha_ref: if always { 0 } else { pixel.alpha_ref },
            alpha_mask: !always && pixel.alpha_mask != 0xFF,
            depth_write: pixel.depth_write,
            stencil: pixel.stencil,
            fog: pixel.fog.is_some(),
            textures,
            texture_alpha: regs.get(reg::TEXFUNC).rgba() != 0,
            uses_clut,
            modulate: textures && regs.get(reg::TEXFUNC).func() == 0,
            clut,
        }
    }

    /// `CheckClutAlphaFull`'s answer (false when it declines to check).
    fn clut_full(&self) -> bool {
        self.clut.is_some_and(|(full, _)| full)
    }

    /// `CLUT_ALPHA_NON_ZERO` once the CLUT was checked.
    fn clut_non_zero(&self) -> bool {
        self.clut.is_some_and(|(_, nz)| nz)
    }

    /// `DetectStateOptimizations` for the vertex flags `flags`.
    fn detect(&self, flags: u32) -> u32 {
        let mut opt = 0;
        let alpha_zero = flags & VERTEX_ALPHA_NON_ZERO == 0;
        let alpha_full = flags & VERTEX_ALPHA_NON_FULL == 0;
        let mut need_tex_alpha = self.textures && self.texture_alpha;
        if !self.clear {
            let blend = self.alpha_blend;
            if need_tex_alpha && blend && alpha_full && self.uses_clut && self.clut_full() {
                need_tex_alpha = false;
            }
            let (src, dst) = (self.src, self.dst);
            if blend && !need_tex_alpha {
                if alpha_zero || alpha_full {
                    if src == Factor::SrcAlpha {
                        opt |= BLEND_SRC;
                    }
                    if dst == Factor::InvSrcAlpha {
                        opt |= BLEND_DST;
                    }
                }
                if alpha_full
                    && matches!(src, Factor::SrcAlpha | Factor::One)
                    && matches!(dst, Factor::InvSrcAlpha | Factor::Zero)
                {
                    opt |= BLEND_OFF;
                }
            }
            if blend
                && (need_tex_alpha || !alpha_full)
                && self.alpha_func == Compare::Always
                && src == Factor::SrcAlpha
                && dst == Factor::InvSrcAlpha
            {
                let could_have_zero = (!self.uses_clut || !self.clut_full()) && !self.clut_non_zero();
                if !self.depth_write && !self.stencil && could_have_zero {
                    opt |= ALPHATEST_ON;
                }
            }
            if self.fog && flags & VERTEX_HAS_FOG == 0 {
                opt |= FOG_OFF;
            }
        }
        if self.textures {
            let color_full = flags & VERTEX_NON_FULL_WHITE == 0;
            if color_full && (!need_tex_alpha || alpha_full) && self.modulate {
                opt |= TEXREPLACE;
            }
            if self.uses_clut && alpha_full && self.texture_alpha {
                let f = self.alpha_func;
                let test =
                    matches!(f, Compare::NotEqual | Compare::Greater) && self.alpha_ref < 0xFF && !self.alpha_mask;
                if test && (self.clut_full() || (self.clut_non_zero() && self.alpha_ref == 0)) {
                    opt |= if f == Compare::NotEqual { ALPHATEST_OFF_NE } else { ALPHATEST_OFF_GT };
                }
            }
        }
        opt
    }
}

/// [PP `CheckClutAlphaFull`] over the entries a CLUT4 (16) or larger index can reach,
/// limited by the index mask: AND all entries, then test the alpha bits.
fn clut_alpha(clut: &[u8; 1024], regs: &Regs) -> (bool, bool) {
    let cf = regs.get(reg::CLUTFORMAT);
    let mut count = if regs.get(reg::TEXFORMAT).format() == 4 { 16 } else { 256 };
    let mask = cf.mask();
    if mask != 0xFF {
        count = count.min(mask as usize + 1);
    }
    let pal = cf.palette();
    let sum = if pal == 3 {
        clut.chunks_exact(4).take(count).fold(u32::MAX, |m, c| m & u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
    } else {
        clut.chunks_exact(2).take(count).fold(0xFFFF, |m, c| m & u32::from(u16::from_le_bytes([c[0], c[1]])))
    };
    let only_full = match pal {
        0 => true,
        1 => sum & 0x8000 != 0,
        2 => sum & 0xF000 == 0xF000,
        _ => sum & 0xFF00_0000 == 0xFF00_0000,
    };
    (only_full, sum != 0)
}

/// `CalculateRasterStateFlags` for one vertex.
pub(super) fn vertex_flags(v: &ScreenVertex, use_color: bool) -> u32 {
    let mut f = 0;
    if use_color {
        let c = v.color0;
        if c[0] != 0xFF || c[1] != 0xFF || c[2] != 0xFF {
            f |= VERTEX_NON_FULL_WHITE;
        }
        if c[3] != 0 {
            f |= VERTEX_ALPHA_NON_ZERO;
        }
        if c[3] != 0xFF {
            f |= VERTEX_ALPHA_NON_FULL;
        }
    }
    #[allow(clippy::neg_cmp_op_on_partial_ord)]
    if !(v.fog >= 1.0) {
        f |= VERTEX_HAS_FOG;
    }
    f
}

/// [`vertex_flags`] or-ed over `v`, the colours read from vertex `coloured_from` on
/// (`BinManager::Add*` for one shape): folded as words, 18 instructions a triangle
/// instead of 50 (19960 bins 71 000 shapes). A flag is set when some used vertex sets
/// it: some RGB is not white (the AND of them is not), some alpha is not 0 (the OR of
/// them is not), some alpha is not 255 (the AND of them is not); fog as [`vertex_flags`].
/// Test `shape_flags_equal_vertex_flags` (queue.rs).
#[inline]
pub(super) fn vertices_flags(v: &[ScreenVertex], coloured_from: usize) -> u32 {
    let (mut all_rgb, mut any_alpha, mut all_alpha) = (0xFF_FFFF, 0, 0xFF);
    let mut fog = false;
    for (i, p) in v.iter().enumerate() {
        #[allow(clippy::neg_cmp_op_on_partial_ord)]
        let no_fog = !(p.fog >= 1.0);
        fog |= no_fog;
        if i >= coloured_from {
            let c = u32::from_le_bytes(p.color0);
            all_rgb &= c;
            any_alpha |= c >> 24;
            all_alpha &= c >> 24;
        }
    }
    let mut f = 0;
    if all_rgb & 0xFF_FFFF != 0xFF_FFFF {
        f |= VERTEX_NON_FULL_WHITE;
    }
    if any_alpha != 0 {
        f |= VERTEX_ALPHA_NON_ZERO;
    }
    if all_alpha != 0xFF {
        f |= VERTEX_ALPHA_NON_FULL;
    }
    if fog {
        f |= VERTEX_HAS_FOG;
    }
    f
}

/// One PPSSPP rasterizer state's flags and applied optimization. Only the GE thread
/// touches it (binning and drains); rasterization reads the per-primitive copy.
#[derive(Debug)]
pub struct OptCell {
    flags: AtomicU32,
    /// `OPTIMIZED` plus the applied optimization bits and [`CAN_FULL`].
    applied: AtomicU32,
    last: AtomicU32,
}

impl Default for OptCell {
    fn default() -> Self {
        OptCell { flags: AtomicU32::new(0), applied: AtomicU32::new(0), last: AtomicU32::new(NEVER) }
    }
}

impl OptCell {
    pub fn add(&self, flags: u32) {
        self.flags.fetch_or(flags, Relaxed);
    }

    /// `OptimizeRasterState` + `ApplyStateOptimizations`.
    pub fn optimize(&self, inp: &OptInputs) {
        let flags = self.flags.load(Relaxed);
        if flags == self.last.load(Relaxed) {
            return;
        }
        self.last.store(flags, Relaxed);
        let applied = self.applied.load(Relaxed);
        let mut opt = inp.detect(flags);
        let all = PIXEL_BITS | SAMPLER_BITS;
        if applied & OPTIMIZED != 0 && applied & all != opt & all {
            // "If it was optimized before, just revert and don't churn."
            opt = 0;
        } else if opt == 0 && applied & OPTIMIZED == 0 {
            return;
        }
        let mut new = applied;
        if applied & PIXEL_BITS != opt & PIXEL_BITS {
            let can_full = if flags & VERTEX_ALPHA_NON_FULL == 0 { CAN_FULL } else { 0 };
            new = (new & !(PIXEL_BITS | CAN_FULL)) | (opt & PIXEL_BITS) | can_full | OPTIMIZED;
        }
        if applied & SAMPLER_BITS != opt & SAMPLER_BITS {
            new = (new & !SAMPLER_BITS) | (opt & SAMPLER_BITS) | OPTIMIZED;
        }
        self.applied.store(new, Relaxed);
    }

    pub(super) fn applied(&self) -> u32 {
        self.applied.load(Relaxed)
    }
}

/// The optimization a `DrawRectangle` sprite uses: the state's flags with the vertex
/// facts replaced by its second vertex's [PP `OptimizeFlatRasterizerState`].
pub(super) fn rect_opt(inp: &OptInputs, state_applied: u32, v1: &ScreenVertex) -> u32 {
    let flags = vertex_flags(v1, true);
    let opt = inp.detect(flags);
    let all = PIXEL_BITS | SAMPLER_BITS;
    if opt & all == state_applied & all {
        return state_applied;
    }
    // The pixel function is rebuilt (with this vertex's canFull) only when its bits change.
    if opt & PIXEL_BITS == state_applied & PIXEL_BITS {
        (opt & all) | (state_applied & CAN_FULL)
    } else {
        (opt & all) | if flags & VERTEX_ALPHA_NON_FULL == 0 { CAN_FULL } else { 0 }
    }
}

/// The pixel state a primitive with optimization `opt` draws with, if it differs.
pub fn apply(px: &PixelState, opt: u32) -> Option<PixelState> {
    if opt & (BLEND_SRC | BLEND_DST | BLEND_OFF | FOG_OFF | ALPHATEST_OFF_NE | ALPHATEST_OFF_GT | ALPHATEST_ON) == 0 {
        return None;
    }
    let mut p = px.clone();
    let can_full = opt & CAN_FULL != 0;
    let (one, zero) = (BlendFactor::Fixed([0xFF; 3]), BlendFactor::Fixed([0; 3]));
    if opt & BLEND_OFF != 0 {
        p.blend = None;
    } else if let Some(b) = p.blend.as_mut() {
        if opt & BLEND_SRC != 0 {
            b.src = if can_full { one } else { zero };
        }
        if opt & BLEND_DST != 0 {
            b.dst = if can_full { zero } else { one };
        }
    }
    if opt & FOG_OFF != 0 {
        p.fog = None;
    }
    if opt & (ALPHATEST_OFF_NE | ALPHATEST_OFF_GT) != 0 {
        p.alpha_func = Compare::Always;
    } else if opt & ALPHATEST_ON != 0 {
        // α = 0 fragments are discarded: the test `a != 0`.
        (p.alpha_func, p.alpha_ref, p.alpha_mask) = (Compare::NotEqual, 0, 0xFF);
    }
    Some(p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cmd::op;

    /// SRCALPHA/INVSRCALPHA blending, nothing else: the `ALPHATEST_ON` candidate.
    fn blend_inputs() -> OptInputs {
        OptInputs {
            clear: false,
            shade_gouraud: true,
            alpha_blend: true,
            src: Factor::SrcAlpha,
            dst: Factor::InvSrcAlpha,
            alpha_func: Compare::Always,
            alpha_ref: 0,
            alpha_mask: false,
            depth_write: false,
            stencil: false,
            fog: false,
            textures: false,
            texture_alpha: false,
            uses_clut: false,
            modulate: false,
            clut: None,
        }
    }

    /// [PP DetectStateOptimizations] A vertex alpha other than 255 with SRCALPHA blending
    /// and no alpha test, depth write or stencil forces the test `a != 0`; all-255 alpha
    /// instead turns blending off and folds the factors to ONE/ZERO.
    #[test]
    fn detect_alpha_zero_discard_and_blend_off() {
        let inp = blend_inputs();
        let half = VERTEX_ALPHA_NON_ZERO | VERTEX_ALPHA_NON_FULL | VERTEX_NON_FULL_WHITE;
        assert_eq!(inp.detect(half), ALPHATEST_ON);
        let full = VERTEX_ALPHA_NON_ZERO | VERTEX_NON_FULL_WHITE;
        assert_eq!(inp.detect(full), BLEND_SRC | BLEND_DST | BLEND_OFF);
        // Depth write keeps the blend.
        let zw = OptInputs { depth_write: true, ..blend_inputs() };
        assert_eq!(zw.detect(half), 0);
        // α = 0 fragments are then discarded.
        let mut px = PixelState::decode(&Regs::default(), true);
        px.blend = Some(Blend { eq: BlendEq::Add, src: BlendFactor::SrcAlpha, dst: BlendFactor::InvSrcAlpha });
        let p = apply(&px, ALPHATEST_ON | OPTIMIZED).unwrap();
        assert_eq!((p.alpha_func, p.alpha_ref, p.alpha_mask), (Compare::NotEqual, 0, 0xFF));
    }

    /// [PP OptimizeRasterState] The first optimization sticks; a later drain that would
    /// choose another one reverts the state to none for good.
    #[test]
    fn optimization_reverts_and_stays_off() {
        let inp = blend_inputs();
        let cell = OptCell::default();
        cell.add(VERTEX_ALPHA_NON_ZERO);
        cell.optimize(&inp);
        assert_eq!(cell.applied() & PIXEL_BITS, BLEND_SRC | BLEND_DST | BLEND_OFF);
        assert_ne!(cell.applied() & CAN_FULL, 0);
        cell.add(VERTEX_ALPHA_NON_FULL);
        cell.optimize(&inp);
        assert_eq!(cell.applied() & (PIXEL_BITS | SAMPLER_BITS), 0);
        assert_ne!(cell.applied() & OPTIMIZED, 0);
        cell.optimize(&inp);
        assert_eq!(cell.applied() & PIXEL_BITS, 0);
    }

    /// [PP CheckClutAlphaFull] ANDs whole entries: a shared colour bit counts as
    /// "alpha non-zero" even when an entry has α = 0.
    #[test]
    fn clut_check_ands_whole_entries() {
        let mut regs = Regs::default();
        regs.set(op::TEXFORMAT, 4); // CLUT4
        regs.set(op::CLUTFORMAT, 3 | (0xFF << 8)); // 8888
        let mut clut = [0u8; 1024];
        for e in clut.chunks_exact_mut(4).take(16) {
            e.copy_from_slice(&[1, 0, 0, 0xFF]);
        }
        assert_eq!(clut_alpha(&clut, &regs), (true, true));
        clut[3] = 0; // entry 0: α = 0, red bit 0 still set everywhere
        assert_eq!(clut_alpha(&clut, &regs), (false, true));
    }
}
