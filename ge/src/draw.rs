//! Primitive assembly and the composition of the GE stages for one draw.
//! (Being written: the executor calls these entry points.)

use crate::exec::Ge;
use crate::mem::MemError;

/// Per-GE drawing state that persists between PRIM commands.
#[derive(Default)]
pub struct DrawContext {}

impl Ge {
    pub(crate) fn draw_prim(&mut self, _arg: u32) -> Result<(), MemError> {
        Ok(())
    }
    pub(crate) fn draw_patch(&mut self, _cmd: u8, _arg: u32) -> Result<(), MemError> {
        Ok(())
    }
    pub(crate) fn bounding_box(&mut self, _arg: u32) -> Result<(), MemError> {
        Ok(())
    }
    pub(crate) fn immediate_vertex(&mut self, _arg: u32) {}
    /// Rasterize everything binned so far into memory.
    pub fn flush(&mut self) {}
}
