//! The display-list processor: executes GE command words against the register file,
//! the matrix memories and PSP memory.
//!
//! Two entry points:
//! * [`Ge::execute_word`] runs one word with no flow control (how frame-dump replay feeds
//!   its already-flattened stream);
//! * [`Ge::run_list`] walks a display list in memory with JUMP/CALL/RET/END/FINISH and a
//!   step budget, so a cyclic list ends with [`GeError::StepBudget`] instead of hanging.
//!
//! Drawing is deferred: PRIM assembles and bins primitives; [`Ge::flush`] rasterizes the
//! bins (in parallel over framebuffer bands). Anything that reads or writes memory the
//! binned draws may touch (block transfers, framebuffer changes, the end of a list)
//! flushes first, so the result is the same as drawing immediately. Within `run_list`
//! (and the dump replay's word loop) a flush rasterizes behind the commands that follow
//! it; its pixels land before anything reads or writes them ([`crate::bin`]) and before
//! either returns.

use crate::cmd::fields::{BoneIndex, EndArg, LoadClutArg, MatrixIndex, SignalArg};
use crate::cmd::{op, reg, split};
use crate::draw::DrawContext;
use crate::mem::{MemError, Memory};
use crate::model::Model;
use crate::regs::float24;
use crate::state::GeState;
use std::any::Any;
use thiserror::Error;

/// Why GE execution stopped with an error.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum GeError {
    #[error("display list at 0x{pc:08x}: {cause}")]
    Memory { pc: u32, cause: MemError },
    #[error("display list did not finish within {steps} commands (cyclic list?), last at 0x{pc:08x}")]
    StepBudget { pc: u32, steps: u64 },
    #[error("display list start 0x{0:08x} is not 4-byte aligned")]
    Misaligned(u32),
}

/// How a display list ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListEnd {
    /// FINISH + END, with FINISH's value.
    Finished(u32),
    /// SIGNAL + END with a suspend/pause behaviour.
    Signal(u32),
    /// Reached the stall address.
    Stalled(u32),
}

/// Default number of commands [`Ge::run_list`] executes before giving up.
pub const DEFAULT_STEP_BUDGET: u64 = 64 << 20;

/// Something shown every command word just before it executes, flow control already
/// resolved (where PPSSPP calls `Recorder::NotifyCommand`), e.g. the frame-dump recorder
/// ([`crate::dump::Recorder`]). An observer must not change what the GE draws; it may
/// flush, which only rasterizes earlier.
pub trait Observer: Send {
    fn command(&mut self, ge: &mut Ge, word: u32);
    fn as_any(&self) -> &dyn Any;
    fn into_any(self: Box<Self>) -> Box<dyn Any>;
}

/// The GE: the command-written state, PSP memory, the draw machinery, and the display
/// list processor that ties them together.
pub struct Ge {
    /// Registers, matrices, CLUT cache and internal pointers.
    pub state: GeState,
    pub mem: Memory,
    /// Call stack of (return pc, saved offset); 32 deep like PPSSPP.
    stack: Vec<(u32, u32)>,
    pub step_budget: u64,
    pub draw: DrawContext,
    /// Shown every executed word first ([`Observer`]).
    observer: Option<Box<dyn Observer>>,
}

impl Default for Ge {
    fn default() -> Self {
        Self::new()
    }
}

impl Ge {
    /// A GE of the default model ([`Model::Hardware`]).
    pub fn new() -> Ge {
        Ge::with_model(Model::default())
    }

    /// A GE reproducing `model` for its whole life.
    pub fn with_model(model: Model) -> Ge {
        Ge {
            state: GeState::default(),
            mem: Memory::new(),
            stack: Vec::new(),
            step_budget: DEFAULT_STEP_BUDGET,
            draw: DrawContext::new(model),
            observer: None,
        }
    }

    /// Show every executed word to `o` from now on; returns the observer it replaces.
    pub fn set_observer(&mut self, o: Box<dyn Observer>) -> Option<Box<dyn Observer>> {
        self.observer.replace(o)
    }

    /// The current observer, if any.
    pub fn observer(&self) -> Option<&dyn Observer> {
        self.observer.as_deref()
    }

    /// Stop observing; returns the observer.
    pub fn take_observer(&mut self) -> Option<Box<dyn Observer>> {
        self.observer.take()
    }

    /// Rasterize everything binned so far into memory (pixels landed on return).
    pub fn flush(&mut self) {
        self.draw.flush(&mut self.mem);
    }

    /// Land the pixels of flushes still rasterizing behind the front end
    /// ([`Memory::settle`]); every public entry point does this before it returns.
    pub fn settle(&mut self) {
        self.mem.settle();
    }

    /// Use a dedicated rayon pool with `threads` threads for rasterization (1 = serial).
    pub fn set_threads(&mut self, threads: usize) {
        self.draw.set_threads(threads);
    }

    /// Share an existing rayon pool for rasterization.
    pub fn set_pool(&mut self, pool: std::sync::Arc<rayon::ThreadPool>) {
        self.draw.set_pool(pool);
    }

    /// The model this GE reproduces.
    pub fn model(&self) -> Model {
        self.draw.model()
    }

    /// Execute one command word without flow control (JUMP/CALL/RET/END/FINISH/SIGNAL
    /// only latch their argument). PC-relative commands (ORIGIN) use `pc`.
    pub fn execute_word(&mut self, word: u32) -> Result<(), GeError> {
        let r = self.execute_at(word, 0);
        self.mem.settle();
        r
    }

    /// [`Ge::execute_word`] leaving a flush's pixels to land behind the front end (the
    /// replay's word loop, which settles when it hands the GE out).
    pub(crate) fn execute_behind(&mut self, word: u32) -> Result<(), GeError> {
        self.execute_at(word, 0)
    }

    fn execute_at(&mut self, word: u32, pc: u32) -> Result<(), GeError> {
        // The observer (e.g. the dump recorder) sees the word before it runs, with every
        // pixel drawn so far landed. One untaken branch when nothing observes.
        if let Some(mut o) = self.observer.take() {
            self.mem.settle();
            o.command(self, word);
            self.observer = Some(o);
        }
        let (cmd, arg) = split(word);
        let st = &mut self.state;
        let prev = st.regs.arg(cmd);
        let mem_err = |cause| GeError::Memory { pc, cause };
        match cmd {
            op::VADDR => st.vaddr = st.relative_addr(arg),
            op::IADDR => st.iaddr = st.relative_addr(arg),
            op::OFFSETADDR => st.offset = arg << 8,
            op::ORIGIN => st.offset = pc,
            op::PRIM => {
                st.regs.set(cmd, arg);
                return self.draw.prim(st, &mut self.mem, arg).map_err(mem_err);
            }
            op::BEZIER | op::SPLINE => {
                st.regs.set(cmd, arg);
                return self.draw.patch(st, &mut self.mem, cmd, arg).map_err(mem_err);
            }
            op::BOUNDINGBOX => {
                st.regs.set(cmd, arg);
                return crate::draw::bounding_box(st, &mut self.mem, self.draw.persist, arg).map_err(mem_err);
            }
            op::LOADCLUT => self.load_clut(arg),
            op::TRANSFERSTART => {
                st.regs.set(cmd, arg);
                self.draw.flush(&mut self.mem);
                crate::transfer::block_transfer(&self.state.regs, &mut self.mem, arg);
                return Ok(());
            }
            op::BONEMATRIXNUMBER => st.mats.bone_index = BoneIndex(arg).index(),
            op::BONEMATRIXDATA => {
                let i = st.mats.bone_index as usize;
                if i < 96 {
                    set_entry(&mut st.mats.bones[i], arg, &mut self.draw);
                }
                st.mats.bone_index = BoneIndex(st.mats.bone_index + 1).index();
            }
            op::WORLDMATRIXNUMBER => st.mats.world_index = MatrixIndex(arg).index(),
            op::WORLDMATRIXDATA => {
                let i = st.mats.world_index as usize;
                if i < 12 {
                    set_entry(&mut st.mats.world[i], arg, &mut self.draw);
                }
                st.mats.world_index = MatrixIndex(st.mats.world_index + 1).index();
            }
            op::VIEWMATRIXNUMBER => st.mats.view_index = MatrixIndex(arg).index(),
            op::VIEWMATRIXDATA => {
                let i = st.mats.view_index as usize;
                if i < 12 {
                    set_entry(&mut st.mats.view[i], arg, &mut self.draw);
                }
                st.mats.view_index = MatrixIndex(st.mats.view_index + 1).index();
            }
            op::PROJMATRIXNUMBER => st.mats.proj_index = MatrixIndex(arg).index(),
            op::PROJMATRIXDATA => {
                let i = st.mats.proj_index as usize;
                if i < 16 {
                    set_entry(&mut st.mats.proj[i], arg, &mut self.draw);
                }
                st.mats.proj_index = MatrixIndex(st.mats.proj_index + 1).index();
            }
            op::TGENMATRIXNUMBER => st.mats.tgen_index = MatrixIndex(arg).index(),
            op::TGENMATRIXDATA => {
                let i = st.mats.tgen_index as usize;
                if i < 12 {
                    // [PP SoftGPU::Execute_TgenMtxData] a changed entry dirties RAST_TEX.
                    if set_entry(&mut st.mats.tgen[i], arg, &mut self.draw) {
                        self.draw.raster_state_changed();
                    }
                }
                st.mats.tgen_index = MatrixIndex(st.mats.tgen_index + 1).index();
            }
            op::VAP => {
                st.regs.set(cmd, arg);
                self.draw.immediate_vertex(st, &mut self.mem, arg);
                return Ok(());
            }
            _ => {}
        }
        self.state.regs.set(cmd, arg);
        if prev != arg {
            let dirty = crate::cmd::info(cmd).dirty;
            if dirty.draw_state() {
                // A superset of what the transform state reads (its matrices are entries).
                self.draw.registers_changed();
            }
            if dirty.raster(prev ^ arg) {
                self.draw.raster_state_changed();
            }
            if dirty.target() {
                self.draw.flush_behind(&mut self.mem);
            }
        }
        Ok(())
    }

    /// LOADCLUT: copy `blocks` × 32 bytes (clamped to 1 KiB) from the CLUT address into
    /// the CLUT cache now. Invalid bytes read as 0; address 0 leaves the cache unchanged
    /// (ppdmp-format.md §7, PPSSPP `SoftGPU::Execute_LoadClut`).
    fn load_clut(&mut self, arg: u32) {
        let regs = &self.state.regs;
        let addr = regs.get(reg::CLUTADDR).low() | regs.get(reg::CLUTADDRUPPER).high();
        let bytes = ((LoadClutArg(arg).blocks() * 32) as usize).min(1024);
        if addr == 0 || bytes == 0 {
            return;
        }
        // Draws binned before this use the old palette: they hold their own snapshot.
        self.mem.settle_for(addr, bytes as u32);
        // One copy when the range is contiguous memory (the usual case); otherwise byte by
        // byte through the address map, which gives those same bytes where both apply.
        match self.mem.slice(addr, bytes as u32) {
            Ok(src) => self.state.clut[..bytes].copy_from_slice(src),
            Err(_) => self.mem.read_wrapping(addr, &mut self.state.clut[..bytes]),
        }
        self.draw.state_dirty = true;
        // [PP SoftGPU::Execute_LoadClut] always dirties SAMPLER_CLUT.
        self.draw.raster_state_changed();
    }

    /// Run the display list at `start` until FINISH+END, a suspending SIGNAL+END, the
    /// stall address, or the step budget.
    pub fn run_list(&mut self, start: u32, stall: Option<u32>) -> Result<ListEnd, GeError> {
        let end = self.walk_list(start, stall);
        // Flushes rasterize behind the walk; an error stops it with their pixels landed.
        self.mem.settle();
        end
    }

    fn walk_list(&mut self, start: u32, stall: Option<u32>) -> Result<ListEnd, GeError> {
        if start & 3 != 0 {
            return Err(GeError::Misaligned(start));
        }
        let mut pc = start & 0x0FFF_FFFF;
        let mut prev_word = 0u32;
        let mut steps = 0u64;
        self.state.offset = 0;
        self.stack.clear();
        loop {
            if Some(pc) == stall.map(|s| s & 0x0FFF_FFFF) {
                self.flush();
                return Ok(ListEnd::Stalled(pc));
            }
            steps += 1;
            if steps > self.step_budget {
                self.flush();
                return Err(GeError::StepBudget { pc, steps: self.step_budget });
            }
            self.mem.settle_for(pc, 4);
            let word = self.mem.read_u32(pc).map_err(|cause| GeError::Memory { pc, cause })?;
            let (cmd, arg) = split(word);
            let mut next = pc.wrapping_add(4);
            match cmd {
                op::JUMP => next = self.state.relative_addr(arg & !3),
                op::BJUMP => {
                    if !self.state.bbox_visible {
                        next = self.state.relative_addr(arg & !3);
                    }
                }
                op::CALL => {
                    // PPSSPP keeps 32 entries and ignores overflow.
                    if self.stack.len() < 32 {
                        self.stack.push((next, self.state.offset));
                    }
                    next = self.state.relative_addr(arg & !3);
                }
                op::RET => {
                    if let Some((ret, off)) = self.stack.pop() {
                        next = ret;
                        self.state.offset = off;
                    }
                }
                op::END => {
                    let (pcmd, parg) = split(prev_word);
                    match pcmd {
                        op::FINISH => {
                            self.flush();
                            return Ok(ListEnd::Finished(SignalArg(parg).data()));
                        }
                        op::SIGNAL => {
                            let (signal, end) = (SignalArg(parg), EndArg(arg));
                            let behaviour = signal.behaviour();
                            let target = ((signal.data() << 16) | end.data()) & !3;
                            match behaviour {
                                0x01 | 0x03 => {
                                    self.flush();
                                    return Ok(ListEnd::Signal(parg));
                                }
                                0x10 => next = target & 0x0FFF_FFFF,
                                0x13 => next = pc.wrapping_add(target) & 0x0FFF_FFFF,
                                0x15 => next = self.state.offset.wrapping_add(target) & 0x0FFF_FFFF,
                                0x11 | 0x14 | 0x16 => {
                                    if self.stack.len() < 32 {
                                        self.stack.push((next, self.state.offset));
                                    }
                                    next = match behaviour {
                                        0x11 => target,
                                        0x14 => pc.wrapping_add(target),
                                        _ => self.state.offset.wrapping_add(target),
                                    } & 0x0FFF_FFFF;
                                }
                                0x12 => {
                                    if let Some((ret, off)) = self.stack.pop() {
                                        next = ret;
                                        self.state.offset = off;
                                    }
                                }
                                _ => {}
                            }
                        }
                        _ => {}
                    }
                    self.state.regs.set(cmd, arg);
                }
                op::FINISH | op::SIGNAL => self.state.regs.set(cmd, arg),
                _ => self.execute_at(word, pc)?,
            }
            prev_word = word;
            pc = next;
        }
    }
}

/// Write a matrix entry from its float24 argument; a changed value (bit for bit) makes
/// the draw path decode its transform states again. Returns whether it changed.
fn set_entry(entry: &mut f32, arg: u32, draw: &mut DrawContext) -> bool {
    let v = float24(arg);
    let changed = entry.to_bits() != v.to_bits();
    if changed {
        draw.matrix_changed();
    }
    *entry = v;
    changed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cmd::word;

    fn write_list(ge: &mut Ge, addr: u32, words: &[u32]) {
        for (i, w) in words.iter().enumerate() {
            ge.mem.write_u32(addr + 4 * i as u32, *w).unwrap();
        }
    }

    #[test]
    fn matrices_upload_with_float24() {
        let mut ge = Ge::new();
        ge.execute_word(word(op::WORLDMATRIXNUMBER, 3)).unwrap();
        ge.execute_word(word(op::WORLDMATRIXDATA, 0x3F8000)).unwrap();
        ge.execute_word(word(op::WORLDMATRIXDATA, 0x400000)).unwrap();
        assert_eq!(ge.state.mats.world[3], 1.0);
        assert_eq!(ge.state.mats.world[4], 2.0);
        ge.execute_word(word(op::BONEMATRIXNUMBER, 95)).unwrap();
        ge.execute_word(word(op::BONEMATRIXDATA, 0x3F8000)).unwrap();
        ge.execute_word(word(op::BONEMATRIXDATA, 0x3F8000)).unwrap();
        assert_eq!(ge.state.mats.bones[95], 1.0);
        assert_eq!(ge.state.mats.bone_index, 97);
    }

    #[test]
    fn base_and_offset_form_addresses() {
        let mut ge = Ge::new();
        ge.execute_word(word(op::BASE, 0x08_0000)).unwrap();
        ge.execute_word(word(op::VADDR, 0x80_1000)).unwrap();
        assert_eq!(ge.state.vaddr, 0x0880_1000);
        ge.execute_word(word(op::OFFSETADDR, 0x100)).unwrap();
        ge.execute_word(word(op::IADDR, 0x80_0000)).unwrap();
        assert_eq!(ge.state.iaddr, 0x0881_0000);
    }

    #[test]
    fn list_with_call_jump_and_finish() {
        let mut ge = Ge::new();
        let main = 0x0880_0000;
        let sub = 0x0880_1000;
        write_list(
            &mut ge,
            main,
            &[
                word(op::BASE, 0x08_0000),
                word(op::CALL, 0x80_1000),
                word(op::JUMP, 0x80_0010 | 3), // low bits ignored
                word(op::MINZ, 0x111),         // skipped
                word(op::FINISH, 0x42),
                word(op::END, 0),
            ],
        );
        write_list(&mut ge, sub, &[word(op::MAXZ, 0xBEEF), word(op::RET, 0)]);
        assert_eq!(ge.run_list(main, None), Ok(ListEnd::Finished(0x42)));
        assert_eq!(ge.state.regs.arg(op::MAXZ), 0xBEEF);
        assert_eq!(ge.state.regs.arg(op::MINZ), 0);
    }

    #[test]
    fn cyclic_list_ends_with_an_error() {
        let mut ge = Ge::new();
        ge.step_budget = 1000;
        write_list(&mut ge, 0x0880_0000, &[word(op::BASE, 0x08_0000), word(op::JUMP, 0x80_0000)]);
        assert!(matches!(ge.run_list(0x0880_0000, None), Err(GeError::StepBudget { .. })));
    }

    #[test]
    fn list_running_off_memory_is_an_error() {
        let mut ge = Ge::new();
        write_list(&mut ge, 0x09FF_FFF8, &[0, 0]);
        let e = ge.run_list(0x09FF_FFF8, None).unwrap_err();
        assert!(matches!(e, GeError::Memory { pc: 0x0A00_0000, .. }), "{e}");
    }

    #[test]
    fn loadclut_snapshots_memory() {
        let mut ge = Ge::new();
        ge.mem.write(0x0881_0000, &[1, 2, 3, 4]).unwrap();
        ge.execute_word(word(op::CLUTADDR, 0x81_0000)).unwrap();
        ge.execute_word(word(op::CLUTADDRUPPER, 0x08_0000)).unwrap();
        ge.execute_word(word(op::LOADCLUT, 1)).unwrap();
        ge.mem.write(0x0881_0000, &[9, 9, 9, 9]).unwrap();
        assert_eq!(&ge.state.clut[..4], &[1, 2, 3, 4]);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]
        /// LOADCLUT's contiguous copy loads the bytes the address walk reads, for ranges
        /// inside RAM, across VRAM's end into its mirror, and running off mapped memory
        /// (those bytes read as zero).
        #[test]
        fn loadclut_copies_what_the_address_walk_reads(
            at in proptest::sample::select(vec![0x0880_0000u32, 0x0420_0000 - 100, 0x047F_FF00, 0x09FF_FF80, 0x0001_0000]),
            shift in 0u32..8,
            blocks in 0u32..40,
            seed in proptest::prelude::any::<u8>(),
        ) {
            let addr = at + 16 * shift;
            let mut ge = Ge::new();
            for a in [0x0880_0000u32, 0x0420_0000 - 100, 0x0400_0000, 0x047F_FF00, 0x09FF_FF80] {
                let bytes: Vec<u8> = (0..200u32).map(|i| (i as u8).wrapping_mul(31) ^ seed).collect();
                let n = bytes.len().min((0x0A00_0000 - a) as usize);
                let _ = ge.mem.write(a, &bytes[..n]);
            }
            ge.execute_word(word(op::CLUTADDR, addr & 0x00FF_FFFF)).unwrap();
            ge.execute_word(word(op::CLUTADDRUPPER, (addr >> 24) << 16)).unwrap();
            ge.execute_word(word(op::LOADCLUT, blocks)).unwrap();
            let regs = &ge.state.regs;
            let eff = regs.get(reg::CLUTADDR).low() | regs.get(reg::CLUTADDRUPPER).high();
            proptest::prop_assert_eq!(eff, addr & !15);
            let n = ((blocks * 32) as usize).min(1024);
            let mut want = [0u8; 1024];
            if eff != 0 && n != 0 {
                ge.mem.read_wrapping(eff, &mut want[..n]);
            }
            proptest::prop_assert_eq!(&ge.state.clut[..n], &want[..n]);
        }
    }
}

#[cfg(test)]
mod draw_error_tests {
    use super::*;
    use crate::cmd::word;

    #[test]
    fn prim_reading_unmapped_vertices_names_the_command() {
        let mut ge = Ge::new();
        let list = 0x0880_0000;
        let words = [
            word(op::VERTEXTYPE, 3 << 7), // float positions
            word(op::BASE, 0x00_0000),
            word(op::VADDR, 0x00_0100),    // address 0x100: unmapped
            word(op::PRIM, (3 << 16) | 3), // one triangle
            word(op::FINISH, 0),
            word(op::END, 0),
        ];
        for (i, w) in words.iter().enumerate() {
            ge.mem.write_u32(list + 4 * i as u32, *w).unwrap();
        }
        match ge.run_list(list, None) {
            Err(GeError::Memory { pc, cause }) => {
                assert_eq!(pc, list + 12, "error names the PRIM's address");
                assert_eq!(cause.addr & 0x0FFF_FFFF, 0x100);
            }
            other => panic!("expected a memory error, got {other:?}"),
        }
    }

    #[test]
    fn huge_prim_counts_do_not_allocate_unboundedly() {
        // 65535 vertices of 12 bytes read from valid RAM: bounded by the 16-bit count.
        let mut ge = Ge::new();
        ge.execute_word(word(op::VERTEXTYPE, 3 << 7)).unwrap();
        ge.execute_word(word(op::BASE, 0x08_0000)).unwrap();
        ge.execute_word(word(op::VADDR, 0x90_0000)).unwrap();
        ge.execute_word(word(op::PRIM, (3 << 16) | 0xFFFF)).unwrap();
        assert_eq!(ge.state.vaddr, 0x0890_0000 + 0xFFFF * 12);
    }
}
