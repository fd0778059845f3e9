//! Block transfers (TRANSFERSTART). (Being written.)
use crate::mem::Memory;
use crate::regs::Regs;

pub fn block_transfer(_regs: &Regs, _mem: &mut Memory, _arg: u32) {}
