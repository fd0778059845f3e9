//! PPSSPP's rewrites of a decoded [`PixelState`], applied once per draw: the state
//! shortcuts of [PP `FuncId.cpp` ComputePixelFuncID] that change pixels, and the x86 pixel
//! JIT's logic-op shortcuts [PP `DrawPixelX86.cpp` Jit_ApplyLogicOp]. The hardware pipeline
//! ([`crate::pixel`]) blends, tests and computes logic ops as the GE documents them.

use crate::cmd::reg;
use crate::pixel::{Blend, BlendEq, BlendFactor, ColorTestFunc, LogicOp, PixelState};
use crate::regs::Regs;
use crate::tile::FbFormat;

/// Rewrite `px` (decoded from `regs`) into what PPSSPP's pixel functions compute:
/// * blending ADD with FIXA = 0xFFFFFF and FIXB = 0 (codes exactly 10) is switched off
///   (its result equals the source);
/// * a colour test NOTEQUAL black (mask 0xFFFFFF) is dropped when nothing writes depth or
///   stencil and the blend is ADD with a destination FIXB = 0xFFFFFF ("Might be a
///   pointless color test"): the black fragments it would discard still go through dither
///   and logic op. [Measured: with the hardware model doing the same, no output of the
///   frame tests, synthetic corpus, hardware screenshots or readback tests changes.]
///
/// and, for the x86 pixel JIT that made the references:
/// * NAND: the JIT ANDs the destination into a scratch register and then just inverts the
///   source, so NAND behaves as COPY_INVERTED (the C++ path computes `!(s & d)`);
/// * OR_INVERTED without stencil test and write mask sets the 5551/4444 alpha bits: the
///   stencil bits of the inverted source are only cleared for 8888.
pub fn rewrite_pixel(px: &mut PixelState, regs: &Regs) {
    let bm = regs.get(reg::BLENDMODE);
    let identity = Blend { eq: BlendEq::Add, src: BlendFactor::Fixed([0xFF; 3]), dst: BlendFactor::Fixed([0; 3]) };
    if bm.src() == 10 && bm.dst() == 10 && px.blend == Some(identity) {
        px.blend = None;
    }
    let adds_dst =
        matches!(px.blend, Some(Blend { eq: BlendEq::Add, dst: BlendFactor::Fixed([0xFF, 0xFF, 0xFF]), .. }));
    if px.color_test == Some((ColorTestFunc::NotEqual, 0, 0xFF_FFFF)) && !px.depth_write && !px.stencil && adds_dst {
        px.color_test = None;
    }
    if px.logic == Some(LogicOp::Nand) {
        px.logic = Some(LogicOp::CopyInverted);
    }
    px.logic_sets_alpha = px.logic == Some(LogicOp::OrInverted)
        && !px.stencil
        && px.write_mask == 0
        && matches!(px.fmt, FbFormat::Rgba5551 | FbFormat::Rgba4444);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cmd::op;

    /// ADD with FIXA = 0xFFFFFF, FIXB = 0 (codes 10): the GE blends, PPSSPP switches it
    /// off; code 11 (also a fixed factor) is not folded.
    #[test]
    fn identity_blend_is_switched_off() {
        let mut regs = Regs::default();
        regs.set(op::ALPHABLENDENABLE, 1);
        regs.set(op::BLENDMODE, 0x0AA);
        regs.set(op::BLENDFIXEDA, 0xFF_FFFF);
        let mut px = PixelState::decode(&regs, true);
        assert!(px.blend.is_some());
        rewrite_pixel(&mut px, &regs);
        assert_eq!(px.blend, None);
        regs.set(op::BLENDMODE, 0x0AB);
        let mut px = PixelState::decode(&regs, true);
        rewrite_pixel(&mut px, &regs);
        assert!(px.blend.is_some());
    }

    /// s = 0b1100, d = 0b1010: NAND = 0b0111 on the GE, !s = 0b0011 through the JIT.
    #[test]
    fn nand_becomes_copy_inverted() {
        let mut regs = Regs::default();
        regs.set(op::LOGICOPENABLE, 1);
        regs.set(op::LOGICOP, 14);
        let mut px = PixelState::decode(&regs, true);
        assert_eq!(px.logic.map(|l| l.apply(0b1100, 0b1010) & 0xF), Some(0b0111));
        rewrite_pixel(&mut px, &regs);
        assert_eq!(px.logic.map(|l| l.apply(0b1100, 0b1010) & 0xF), Some(0b0011));
    }

    #[test]
    fn or_inverted_sets_alpha_on_16_bit_formats_only() {
        let mut regs = Regs::default();
        regs.set(op::LOGICOPENABLE, 1);
        regs.set(op::LOGICOP, 13);
        for (fmt, sets) in [(0, false), (1, true), (2, true), (3, false)] {
            regs.set(op::FRAMEBUFPIXFORMAT, fmt);
            let mut px = PixelState::decode(&regs, true);
            assert!(!px.logic_sets_alpha);
            rewrite_pixel(&mut px, &regs);
            assert_eq!(px.logic_sets_alpha, sets, "format {fmt}");
        }
    }
}
