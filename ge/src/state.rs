//! The GE's command-written state: the register file, the matrix memories, the CLUT
//! cache and the internal vertex/index/offset pointers. Commands write it
//! ([`crate::exec`]); draws read it ([`crate::draw`]), and move the vertex and index
//! pointers. Nothing here draws or knows the model.

use crate::cmd::{op, reg};
use crate::regs::{Matrices, Regs};
use crate::vertex::DecodeParams;

/// What GE commands write and draws read.
#[derive(Clone, PartialEq)]
pub struct GeState {
    pub regs: Regs,
    pub mats: Matrices,
    /// The on-chip CLUT cache filled by LOADCLUT (1 KiB) [PP `SoftGpu::Execute_LoadClut`].
    pub clut: Box<[u8; 1024]>,
    /// Internal vertex and index pointers (advanced by draws; the VADDR/IADDR registers
    /// are not rewritten) [HW `bounding/vertexaddr`].
    pub vaddr: u32,
    pub iaddr: u32,
    /// OFFSET register (OFFSETADDR / ORIGIN).
    pub offset: u32,
    /// Result of the last BOUNDINGBOX test (true = visible or untested).
    pub bbox_visible: bool,
}

impl Default for GeState {
    fn default() -> Self {
        GeState {
            regs: Regs::default(),
            mats: Matrices::default(),
            clut: Box::new([0; 1024]),
            vaddr: 0,
            iaddr: 0,
            offset: 0,
            bbox_visible: true,
        }
    }
}

impl GeState {
    /// Absolute address of a relative address argument (VADDR, IADDR, JUMP, CALL):
    /// `(OFFSET + (BASE bits 16–19 << 24 | arg)) & 0x0FFFFFFF` (ge-reference.md §1.3).
    #[inline]
    pub fn relative_addr(&self, arg: u32) -> u32 {
        let base = self.regs.get(reg::BASE).high();
        self.offset.wrapping_add(base | (arg & 0x00FF_FFFF)) & 0x0FFF_FFFF
    }

    /// What vertex decoding reads besides the vertex type: morph weights and the
    /// material colour used when vertices carry none.
    pub fn decode_params(&self) -> DecodeParams {
        let mut morph_weights = [0.0; 8];
        for (i, w) in morph_weights.iter_mut().enumerate() {
            *w = self.regs.float(op::MORPHWEIGHT0 + i as u8);
        }
        let [r, g, b] = self.regs.rgb(op::MATERIALAMBIENT);
        DecodeParams { morph_weights, material: [r, g, b, self.regs.get(reg::MATERIALALPHA).value() as u8] }
    }
}
