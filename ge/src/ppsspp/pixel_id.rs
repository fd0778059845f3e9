//! The x86 pixel JIT's logic-op shortcuts, applied to a decoded [`PixelState`] once per
//! draw [PP `DrawPixelX86.cpp` Jit_ApplyLogicOp]. The hardware pipeline
//! ([`crate::pixel`]) computes the logic ops as the GE documents them.

use crate::pixel::{LogicOp, PixelState};
use crate::tile::FbFormat;

/// Rewrite `px` into what PPSSPP's x86 pixel JIT (which made the references) computes:
/// * NAND: the JIT ANDs the destination into a scratch register and then just inverts the
///   source, so NAND behaves as COPY_INVERTED (the C++ path computes `!(s & d)`);
/// * OR_INVERTED without stencil test and write mask sets the 5551/4444 alpha bits: the
///   stencil bits of the inverted source are only cleared for 8888.
pub fn rewrite_pixel(px: &mut PixelState) {
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
    use crate::regs::Regs;

    /// s = 0b1100, d = 0b1010: NAND = 0b0111 on the GE, !s = 0b0011 through the JIT.
    #[test]
    fn nand_becomes_copy_inverted() {
        let mut regs = Regs::default();
        regs.set(op::LOGICOPENABLE, 1);
        regs.set(op::LOGICOP, 14);
        let mut px = PixelState::decode(&regs, true);
        assert_eq!(px.logic.map(|l| l.apply(0b1100, 0b1010) & 0xF), Some(0b0111));
        rewrite_pixel(&mut px);
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
            rewrite_pixel(&mut px);
            assert_eq!(px.logic_sets_alpha, sets, "format {fmt}");
        }
    }
}
