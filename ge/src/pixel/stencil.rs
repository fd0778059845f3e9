//! Stencil operations (STENCILOP 0xDD) and stencil-only writes.
//!
//! The stencil buffer is the alpha channel of the colour buffer; its byte value and the
//! INCR/DECR saturation depend on the framebuffer format ([`super::format::FbPixel`]).

use super::format::FbPixel;

/// STENCILOP fields (SFAIL bits 0–2, ZFAIL 8–10, ZPASS 16–18).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StencilOp {
    Keep,
    Zero,
    /// The full (unmasked) STENCILTEST reference
    /// [PP DrawPixelX86.cpp Jit_ApplyStencilOp loads `cached.stencilRef` when masked].
    Replace,
    Invert,
    /// Saturating, one format step (4444: one nibble; 5551: sets the bit).
    Incr,
    /// Saturating, one format step (5551: clears the bit).
    Decr,
}

impl StencilOp {
    /// Codes 6 and 7 act as KEEP [PP FuncId.cpp ComputePixelFuncID "any invalid op acts like KEEP"].
    pub fn from_code(code: u32) -> StencilOp {
        match code & 7 {
            1 => StencilOp::Zero,
            2 => StencilOp::Replace,
            3 => StencilOp::Invert,
            4 => StencilOp::Incr,
            5 => StencilOp::Decr,
            _ => StencilOp::Keep,
        }
    }

    /// The new stencil byte.
    #[inline]
    pub(crate) fn apply<F: FbPixel>(self, old: u8, reference: u8) -> u8 {
        match self {
            StencilOp::Keep => old,
            StencilOp::Zero => 0,
            StencilOp::Replace => reference,
            StencilOp::Invert => !old,
            StencilOp::Incr => F::incr(old),
            StencilOp::Decr => F::decr(old),
        }
    }
}

/// The raw word after writing only the stencil bits of `s` into `old`, keeping the bits
/// protected by `mask` (format bits, 1 = protect) [PP DrawPixel.cpp SetPixelStencil,
/// DrawPixelX86.cpp Jit_WriteStencilOnly].
#[inline]
pub(crate) fn write_stencil_only<F: FbPixel>(old: u32, s: u8, mask: u32) -> u32 {
    let writable = F::STENCIL_BITS & !mask;
    (old & !writable) | (F::pack_stencil(s) & writable)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pixel::format::{Rgb565, Rgba4444, Rgba5551, Rgba8888};

    #[test]
    fn ops_per_format() {
        use StencilOp::*;
        // 8888: byte arithmetic, saturating.
        assert_eq!(Incr.apply::<Rgba8888>(0xFE, 0), 0xFF);
        assert_eq!(Incr.apply::<Rgba8888>(0xFF, 0), 0xFF);
        assert_eq!(Decr.apply::<Rgba8888>(0x00, 0), 0x00);
        assert_eq!(Decr.apply::<Rgba8888>(0x10, 0), 0x0F);
        assert_eq!(Invert.apply::<Rgba8888>(0x0F, 0), 0xF0);
        assert_eq!(Replace.apply::<Rgba8888>(0x0F, 0xAB), 0xAB);
        assert_eq!(Zero.apply::<Rgba8888>(0x0F, 0xAB), 0);
        assert_eq!(Keep.apply::<Rgba8888>(0x0F, 0xAB), 0x0F);
        // 4444: nibble steps: stored nibble 3 (0x33) → 4 → written 0x4000.
        let s = Incr.apply::<Rgba4444>(0x33, 0);
        assert_eq!(write_stencil_only::<Rgba4444>(0x3123, s, 0), 0x4123);
        let s = Decr.apply::<Rgba4444>(0x33, 0);
        assert_eq!(write_stencil_only::<Rgba4444>(0x3123, s, 0), 0x2123);
        assert_eq!(Incr.apply::<Rgba4444>(0xFF, 0), 0xFF);
        assert_eq!(Decr.apply::<Rgba4444>(0x00, 0), 0x00);
        // 5551: INCR → set, DECR → clear, INVERT flips.
        assert_eq!(Incr.apply::<Rgba5551>(0, 0), 0xFF);
        assert_eq!(Decr.apply::<Rgba5551>(0xFF, 0), 0);
        assert_eq!(write_stencil_only::<Rgba5551>(0x7FFF, Invert.apply::<Rgba5551>(0, 0), 0), 0xFFFF);
        // 5551 REPLACE writes bit 7 of the reference.
        assert_eq!(write_stencil_only::<Rgba5551>(0x8001, 0x7F, 0), 0x0001);
        // 565: nothing to write.
        assert_eq!(write_stencil_only::<Rgb565>(0x1234, 0xFF, 0), 0x1234);
        assert_eq!(StencilOp::from_code(6), Keep);
        assert_eq!(StencilOp::from_code(7), Keep);
    }

    #[test]
    fn masked_stencil_write() {
        // 8888, MASKALPHA 0xF0 protects the top nibble of the stencil byte.
        assert_eq!(write_stencil_only::<Rgba8888>(0xA5_112233, 0x3C, 0xF000_0000), 0xAC_112233);
        // 4444 with the top nibble protected: nothing changes.
        assert_eq!(write_stencil_only::<Rgba4444>(0x5123, 0xFF, 0xF000), 0x5123);
    }
}
