//! Recording a frame dump: turn what a [`Ge`] executes into a version-6 `.ppdmp` that
//! PPSSPP and [`super::replay`] can play back (`docs/ppdmp-format.md` §3, §4; PPSSPP
//! `GPU/Debugger/Record.cpp`).
//!
//! Usage:
//! ```no_run
//! # use ge::{Ge, display::DisplayBuffer, list::ListBuilder};
//! # let list = ListBuilder::new();
//! let mut ge = Ge::new();
//! ge.start_recording();
//! list.run(&mut ge).unwrap();
//! let dump = ge.finish_recording(DisplayBuffer::power_on()).unwrap();
//! std::fs::write("frame.ppdmp", dump.to_bytes()).unwrap();
//! ```
//!
//! Design: the [`Recorder`] is the `Ge`'s [`Observer`] while recording and is shown every
//! command word just before it executes (flow control already resolved by
//! [`Ge::run_list`]), exactly where PPSSPP calls `Recorder::NotifyCommand`. It never
//! changes what the GE draws. The one GE call it makes while recording, a flush before a
//! block transfer, is the flush the GE itself performs at that same point.
//!
//! What is written, in order (§4):
//! * INIT (the 2,048-byte context of §3.2, v1 matrix layout) and a 1,024-byte CLUT record
//!   with the CLUT cache [PP `BeginRecording`];
//! * if VRAM is not all zero: MEMCPYDEST + MEMCPYDATA with VRAM up to its last non-zero
//!   byte (replays start from zeroed VRAM, §5.1);
//! * REGISTERS: every executed word except VADDR, IADDR, BOUNDINGBOX, JUMP, BJUMP, CALL,
//!   RET, END, SIGNAL, FINISH, BASE, OFFSETADDR, ORIGIN, and except TRANSFERSTARTs whose
//!   destination is not VRAM [PP `NotifyCommand`, `EmitTransfer`];
//! * before each PRIM/BEZIER/SPLINE with a non-zero count: TEXTUREn (RAM) or FRAMEBUFn
//!   (VRAM, with target/unchanged/drawn flags) for every level with an address, then
//!   INDICES, then VERTICES [PP `FlushPrimState`];
//! * before LOADCLUT: [CLUTADDR if VRAM] CLUT; before TRANSFERSTART to VRAM: TRANSFERSRC;
//! * at the end: DISPLAY with the caller's display buffer.
//!
//! Two deliberate additions make the replay start from the recorded GE's state where
//! PPSSPP's format would otherwise lose it; both are ordinary command words re-executing
//! values the GE already holds, so they change nothing in the recorded run:
//! * the first REGISTERS record starts with TEXBUFWIDTHn (current value) for each level
//!   whose buffer width is non-zero, because replay otherwise uses buffer width 0 for a
//!   TEXTUREn record that precedes any TEXBUFWIDTHn word (§6.3 trap);
//! * when the CLUT cache is not all zero it also starts with LOADCLUT of 32 blocks, which
//!   loads the initial CLUT record (replays start with a zero CLUT cache, §3.2 step 4).
//!
//! Payloads are de-duplicated: identical bytes at a suitable alignment are stored once.

use super::{Dump, Record, RecordKind, INIT_SIZE};
use crate::cmd::fields::{
    BoneIndex, LoadClutArg, MatrixIndex, PatchArg, PrimArg, TransferStartArg, TransferWidth, VType, Xy10,
};
use crate::cmd::{op, reg, split, word};
use crate::display::DisplayBuffer;
use crate::exec::{Ge, Observer};
use crate::geom::VertexType;
use crate::mem::{Memory, RAM_BASE, RAM_SIZE, SCRATCH_BASE, SCRATCH_SIZE, VRAM_BASE, VRAM_SIZE, VRAM_WINDOW};
use crate::regs::{to_float24, Regs};
use crate::vertex::{read_index, VertexLayout};
use std::any::Any;
use std::borrow::Cow;
use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeSet, HashMap};
use std::hash::{Hash, Hasher};

/// Game ID written into recorded dumps (9 characters fill the header field, §2.1).
pub const RECORDER_GAME_ID: &str = "PSPRENDER";

use super::replay::CONTEXT_RANGES;

/// Bits per texel by TEXFORMAT [PP TextureDecoder.cpp textureBitsPerPixel].
const TEX_BITS: [u64; 16] = [16, 16, 16, 32, 4, 8, 16, 32, 4, 8, 8, 0, 0, 0, 0, 0];

/// VRAM change tracking granularity [PP Record.h DIRTY_VRAM_SHIFT].
const BLOCK_SHIFT: u32 = 8;
const BLOCKS: usize = (VRAM_SIZE >> BLOCK_SHIFT) as usize;

/// What the replay's VRAM holds for a 256-byte block, compared with the recorded GE's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Vram {
    /// The replay holds these exact bytes (start state, or sent and untouched since).
    Clean,
    /// Changed by a block transfer since last sent.
    Dirty,
    /// Possibly drawn to during this recording [PP DirtyVRAMFlag::DRAWN].
    Drawn,
}

/// A recording in progress; owned by the [`Ge`] between [`Ge::start_recording`] and
/// [`Ge::finish_recording`].
#[derive(Debug)]
pub struct Recorder {
    records: Vec<Record>,
    pushbuf: Vec<u8>,
    /// REGISTERS words not yet written [PP `lastRegisters`].
    pending: Vec<u32>,
    /// Content hash of every appended data payload → its pushbuf offsets.
    seen: HashMap<u64, Vec<u32>>,
    /// VRAM addresses (`0x04000000 | offset`) of colour/depth buffers drawn to so far
    /// [PP `lastRenderTargets`].
    targets: BTreeSet<u32>,
    vram: Vec<Vram>,
}

impl Ge {
    /// Start recording a frame dump of everything executed from now on (a recording in
    /// progress is discarded). The INIT record snapshots the current state. Draws still
    /// binned are rasterized first so that the start VRAM sent is complete (a no-op after
    /// [`Ge::run_list`], which always ends flushed).
    pub fn start_recording(&mut self) {
        self.flush();
        let r = Recorder::begin(self);
        self.set_observer(Box::new(r));
    }

    /// True between [`Ge::start_recording`] and [`Ge::finish_recording`].
    pub fn is_recording(&self) -> bool {
        self.observer().is_some_and(|o| o.as_any().is::<Recorder>())
    }

    /// End the recording with a DISPLAY record for `display` and return the dump
    /// (version 6, game ID [`RECORDER_GAME_ID`]); `None` if not recording (another
    /// observer stays in place).
    pub fn finish_recording(&mut self, display: DisplayBuffer) -> Option<Dump> {
        if !self.is_recording() {
            return None;
        }
        let r = self.take_observer()?.into_any().downcast::<Recorder>().ok()?;
        Some(r.finish(display))
    }
}

impl Observer for Recorder {
    /// One executed word [PP `Recorder::NotifyCommand`].
    fn command(&mut self, ge: &mut Ge, w: u32) {
        self.record(ge, w);
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn into_any(self: Box<Self>) -> Box<dyn Any> {
        self
    }
}

/// The 2,048-byte INIT payload for `ge`'s current state (§3.2) [PP GPUState.cpp
/// GEState::Save, v1 context]: internal addresses, 209 full register words, the five
/// matrices as *MATRIXDATA words of their float24 values, the write indices, END.
pub fn init_payload(ge: &Ge) -> Vec<u8> {
    let mut w = [0u32; INIT_SIZE as usize / 4];
    w[5] = ge.state.vaddr;
    w[6] = ge.state.iaddr;
    w[7] = ge.state.offset;
    let mut i = 17;
    for &(a, b) in &CONTEXT_RANGES {
        for cmd in a..=b {
            w[i] = word(cmd, ge.state.regs.arg(cmd));
            i += 1;
        }
    }
    debug_assert_eq!(i, 226);
    let m = &ge.state.mats;
    let mats: [(u8, &[f32]); 5] = [
        (op::BONEMATRIXNUMBER, &m.bones[..]),
        (op::WORLDMATRIXNUMBER, &m.world[..]),
        (op::VIEWMATRIXNUMBER, &m.view[..]),
        (op::PROJMATRIXNUMBER, &m.proj[..]),
        (op::TGENMATRIXNUMBER, &m.tgen[..]),
    ];
    for (num, values) in mats {
        w[i] = word(num, 0);
        i += 1;
        for v in values {
            // The CPU-visible float24 value [PP SaveMatrix / GetMatrix24].
            w[i] = word(num + 1, to_float24(*v));
            i += 1;
        }
    }
    debug_assert_eq!(i, 379);
    w[379] = word(op::BONEMATRIXNUMBER, BoneIndex(m.bone_index).index());
    w[380] = word(op::WORLDMATRIXNUMBER, MatrixIndex(m.world_index).index());
    w[381] = word(op::VIEWMATRIXNUMBER, MatrixIndex(m.view_index).index());
    w[382] = word(op::PROJMATRIXNUMBER, MatrixIndex(m.proj_index).index());
    w[383] = word(op::TGENMATRIXNUMBER, MatrixIndex(m.tgen_index).index());
    w[384] = word(op::END, 0);
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Bytes readable from `addr` onwards [PP MemMap.h MaxSizeAtAddress]: to the end of RAM,
/// of the 8 MiB VRAM mirror window, or of the scratchpad; 0 when unmapped.
fn max_size_at(addr: u32) -> u32 {
    let a = addr & 0x3FFF_FFFF;
    let end_of = |base: u32, size: u32| if a >= base && a < base + size { Some(base + size - a) } else { None };
    end_of(RAM_BASE, RAM_SIZE)
        .or_else(|| end_of(VRAM_BASE, VRAM_WINDOW))
        .or_else(|| end_of(SCRATCH_BASE, SCRATCH_SIZE))
        .unwrap_or(0)
}

/// `size` clamped to valid memory at `addr` [PP `ClampValidSizeAt`].
fn clamp_size(addr: u32, size: u64) -> u32 {
    size.min(u64::from(max_size_at(addr))) as u32
}

/// `len` bytes at `addr`; a VRAM range may run on through the mirrors.
fn read_mem(mem: &Memory, addr: u32, len: u32) -> Cow<'_, [u8]> {
    match mem.slice(addr, len) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => {
            let mut v = vec![0; len as usize];
            mem.read_wrapping(addr, &mut v);
            Cow::Owned(v)
        }
    }
}

fn le_words(ws: &[u32]) -> Vec<u8> {
    ws.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn content_hash(data: &[u8]) -> u64 {
    let mut h = DefaultHasher::new();
    data.hash(&mut h);
    h.finish()
}

impl Recorder {
    fn begin(ge: &Ge) -> Recorder {
        let mut r = Recorder {
            records: Vec::new(),
            pushbuf: Vec::new(),
            pending: Vec::new(),
            seen: HashMap::new(),
            targets: BTreeSet::new(),
            // Clean: the replay's VRAM equals ours once the start contents are sent below.
            vram: vec![Vram::Clean; BLOCKS],
        };
        r.append_fixed(RecordKind::Init, &init_payload(ge));
        // [PP BeginRecording] the CLUT cache at recording start (1,024 bytes).
        r.emit_data(RecordKind::Clut, &ge.state.clut[..], 16, 0);
        let vram = ge.mem.vram();
        if let Some(last) = vram.iter().rposition(|&b| b != 0) {
            // Replays start from zeroed VRAM (§5.1): send what is there now [PP NotifyMemcpy].
            r.append_fixed(RecordKind::MemcpyDest, &VRAM_BASE.to_le_bytes());
            r.emit_data(RecordKind::MemcpyData, &vram[..=last], 1, 0);
        }
        if ge.state.clut.iter().any(|&b| b != 0) {
            // Loads the CLUT record above into the replay's (zeroed) CLUT cache.
            r.pending.push(word(op::LOADCLUT, 32));
        }
        for l in 0..8 {
            let tbw = ge.state.regs.get(reg::TEXBUFWIDTH0.at(l));
            if tbw.width() != 0 {
                // Teaches the replay's per-level bufw tracker the INIT value (§6.3 trap).
                r.pending.push(word(reg::TEXBUFWIDTH0.at(l).op, tbw.0));
            }
        }
        r
    }

    fn finish(mut self, d: DisplayBuffer) -> Dump {
        self.append_fixed(RecordKind::Display, &le_words(&[d.addr, d.stride, d.format]));
        Dump { version: 6, game_id: RECORDER_GAME_ID.to_string(), records: self.records, pushbuf: self.pushbuf }
    }

    /// One executed word [PP `Recorder::NotifyCommand`].
    fn record(&mut self, ge: &mut Ge, w: u32) {
        let (cmd, arg) = split(w);
        match cmd {
            // Flow and address commands: the replay recreates what they did.
            op::VADDR
            | op::IADDR
            | op::BOUNDINGBOX
            | op::JUMP
            | op::BJUMP
            | op::CALL
            | op::RET
            | op::END
            | op::SIGNAL
            | op::FINISH
            | op::BASE
            | op::OFFSETADDR
            | op::ORIGIN => {}
            op::PRIM => self.draw(ge, w, PrimArg(arg).count()),
            // [PP EmitBezierSpline] u × v control points.
            op::BEZIER | op::SPLINE => self.draw(ge, w, PatchArg(arg).u_count() * PatchArg(arg).v_count()),
            op::LOADCLUT => self.load_clut(ge, w),
            op::TRANSFERSTART => self.transfer(ge, w),
            op::VAP => {
                // Immediate-mode primitives draw too (PPSSPP's recorder does not mark them).
                self.pending.push(w);
                self.mark_drawn(&ge.state.regs);
            }
            _ => self.pending.push(w),
        }
    }

    /// PRIM/BEZIER/SPLINE [PP EmitPrim, FlushPrimState]. Unlike PPSSPP, a count of 0 (which
    /// draws nothing) gets no data records.
    fn draw(&mut self, ge: &Ge, w: u32, count: u32) {
        let regs = &ge.state.regs;
        self.targets.insert(VRAM_BASE | regs.get(reg::FRAMEBUFPTR).vram_offset());
        self.targets.insert(VRAM_BASE | regs.get(reg::ZBUFPTR).vram_offset());
        if count > 0 {
            let vt = regs.arg(op::VERTEXTYPE);
            let texturing = regs.enabled(op::TEXTUREMAPENABLE) || regs.enabled(op::ANTIALIASENABLE);
            // "Play it safe": texcoords alone also send texture data [PP FlushPrimState].
            if texturing || VType(vt).texcoord() != 0 {
                for level in 0..8 {
                    self.texture_level(ge, level);
                }
            }
            self.vertex_data(ge, vt, count);
        }
        self.pending.push(w);
        self.mark_drawn(regs);
    }

    /// INDICES then VERTICES: the exact bytes the draw reads [PP GetVertDataSizes].
    fn vertex_data(&mut self, ge: &Ge, vt: u32, count: u32) {
        let vtype = VertexType::from_bits(vt);
        let stride = u64::from(VertexLayout::new(vt).stride);
        let isize = vtype.index.size();
        let vbytes = if isize != 0 {
            let ibytes = clamp_size(ge.state.iaddr, u64::from(count) * u64::from(isize));
            let n = ibytes / isize;
            let mut max = 0u32;
            for i in 0..n {
                // Full 32-bit indices, as the GE reads them (PPSSPP truncates to 16 bits).
                max = max.max(read_index(&ge.mem, vtype.index, ge.state.iaddr, i).unwrap_or(0));
            }
            if ibytes > 0 {
                let data = read_mem(&ge.mem, ge.state.iaddr, ibytes);
                self.emit_data(RecordKind::Indices, &data, 4, 0);
            }
            (u64::from(max) + 1) * stride
        } else {
            u64::from(count) * stride
        };
        let vbytes = clamp_size(ge.state.vaddr, vbytes);
        if vbytes > 0 {
            let data = read_mem(&ge.mem, ge.state.vaddr, vbytes);
            // Same address mod 4 as the game's, so a misaligned vertex array stays misaligned.
            self.emit_data(RecordKind::Vertices, &data, 4, ge.state.vaddr & 3);
        }
    }

    /// TEXTUREn / FRAMEBUFn for one level [PP EmitTextureData].
    fn texture_level(&mut self, ge: &Ge, level: u8) {
        let regs = &ge.state.regs;
        let tbw = regs.get(reg::TEXBUFWIDTH0.at(level as usize));
        let addr = regs.get(reg::TEXADDR0.at(level as usize)).low() | tbw.high();
        if addr == 0 {
            return;
        }
        let fmt = regs.get(reg::TEXFORMAT).format() as usize;
        let bits = TEX_BITS[fmt];
        let size = regs.get(reg::TEXSIZE0.at(level as usize));
        let (w, h) = (1u64 << size.width_log2(), 1u64 << size.height_log2());
        // [PP GetTextureBufw] bufw masked to whole 16-byte units (DXT: 0x7FF); 0 means 16 bytes.
        let mask = match fmt {
            0..=7 => 0x7FF & !((128 / bits as u32) - 1),
            8..=10 => 0x7FF,
            _ => 0,
        };
        let mut bufw = u64::from(tbw.width() & mask);
        if bufw == 0 && bits != 0 {
            bufw = 128 / bits;
        }
        let in_ram = bits * (bufw * h + w.saturating_sub(bufw)) / 8;
        let bytes = clamp_size(addr, in_ram);
        let data = read_mem(&ge.mem, addr, bytes);
        if Memory::is_vram(addr) {
            let flags = self.target_flags(addr, bytes);
            let mut payload = le_words(&[addr, bufw as u32, flags, 0]);
            payload.extend_from_slice(&data);
            self.emit_data(RecordKind::Framebuf(level), &payload, 16, 0);
        } else if bytes > 0 {
            self.emit_data(RecordKind::Texture(level), &data, 16, 0);
        }
    }

    /// [CLUTADDR] CLUT before a LOADCLUT [PP EmitClut].
    fn load_clut(&mut self, ge: &Ge, w: u32) {
        let regs = &ge.state.regs;
        let addr = regs.get(reg::CLUTADDR).low() | regs.get(reg::CLUTADDRUPPER).high();
        // [PP EmitClut] 0x40 in bits 0–6 means 64 blocks ("extended CLUT").
        let load = LoadClutArg(split(w).1);
        let blocks = if load.block64() != 0 && load.blocks() == 0 { 0x40 } else { load.blocks() };
        let bytes = clamp_size(addr, u64::from(blocks) * 32);
        if bytes != 0 {
            if Memory::is_vram(addr) {
                let flags = self.target_flags(addr, bytes);
                self.append_fixed(RecordKind::ClutAddr, &le_words(&[addr, flags]));
            }
            let data = read_mem(&ge.mem, addr, bytes);
            self.emit_data(RecordKind::Clut, &data, 16, 0);
        }
        self.pending.push(w);
    }

    /// TRANSFERSRC before a TRANSFERSTART into VRAM; transfers to RAM are left out
    /// entirely [PP EmitTransfer].
    fn transfer(&mut self, ge: &mut Ge, w: u32) {
        self.flush_registers();
        let regs = &ge.state.regs;
        let (srcw, dstw) = (regs.get(reg::TRANSFERSRCW), regs.get(reg::TRANSFERDSTW));
        // [PP GPUState.h getTransferSrcStride] bits 3–10; above 0x400 counts as 0.
        let stride = |w: TransferWidth| match w.stride() {
            s if s > 0x400 => 0,
            s => u64::from(s),
        };
        let dst = regs.get(reg::TRANSFERDST).low() | dstw.high();
        if !Memory::is_vram(dst) {
            return;
        }
        let src = regs.get(reg::TRANSFERSRC).low() | srcw.high();
        let pos = |p: Xy10| (u64::from(p.x()), u64::from(p.y()));
        let (sx, sy) = pos(regs.get(reg::TRANSFERSRCPOS));
        let (dx, dy) = pos(regs.get(reg::TRANSFERDSTPOS));
        let (width, height) = pos(regs.get(reg::TRANSFERSIZE));
        let (width, height) = (width + 1, height + 1);
        // bpp from the word being executed (PPSSPP reads the register before the word lands).
        let bpp = if TransferStartArg(split(w).1).bpp32() != 0 { 4 } else { 2 };
        let src_bytes = clamp_size(src, ((sy + height - 1) * stride(srcw) + sx + width) * bpp);
        let dst_bytes = clamp_size(dst, ((dy + height - 1) * stride(dstw) + dx + width) * bpp);
        if src_bytes != 0 {
            // The GE flushes its binned draws at TRANSFERSTART anyway; doing it first lets
            // a VRAM source be read after the draws that precede it.
            ge.flush();
            let data = read_mem(&ge.mem, src, src_bytes);
            self.emit_data(RecordKind::TransferSrc, &data, 16, 0);
        }
        self.mark(dst, dst_bytes, Vram::Dirty);
        self.pending.push(w);
    }

    /// Flags of a VRAM texture/CLUT about to be sent, and mark it sent (§3.10)
    /// [PP GetTargetFlags]: bit 0 the base of a colour/depth buffer drawn to in this
    /// recording, bit 1 the replay's VRAM already holds these bytes, bit 2 possibly drawn.
    fn target_flags(&mut self, addr: u32, bytes: u32) -> u32 {
        let target = self.targets.contains(&(addr & 0x041F_FFFF));
        let (mut unchanged, mut drawn) = (true, false);
        if bytes > 0 {
            let off = u64::from(addr & (VRAM_SIZE - 1));
            let (first, last) = (off >> BLOCK_SHIFT, (off + u64::from(bytes) - 1) >> BLOCK_SHIFT);
            for b in first..=last.min(first + BLOCKS as u64 - 1) {
                let i = b as usize % BLOCKS;
                unchanged &= self.vram[i] == Vram::Clean;
                drawn |= self.vram[i] == Vram::Drawn;
                // Whole blocks just sent are now what the replay holds (drawn ones stay drawn).
                let whole = b << BLOCK_SHIFT >= off && (b + 1) << BLOCK_SHIFT <= off + u64::from(bytes);
                if whole && self.vram[i] == Vram::Dirty {
                    self.vram[i] = Vram::Clean;
                }
            }
        }
        u32::from(target) | (u32::from(unchanged) << 1) | (u32::from(drawn) << 2)
    }

    /// Set every block touching `[addr, addr + bytes)` to `state` [PP DirtyVRAM].
    fn mark(&mut self, addr: u32, bytes: u32, state: Vram) {
        if bytes == 0 {
            return;
        }
        let off = u64::from(addr & (VRAM_SIZE - 1));
        let (first, last) = (off >> BLOCK_SHIFT, (off + u64::from(bytes) - 1) >> BLOCK_SHIFT);
        for b in first..=last.min(first + BLOCKS as u64 - 1) {
            self.vram[b as usize % BLOCKS] = state;
        }
    }

    /// Mark the colour buffer (and the depth buffer when written) inside the scissor and
    /// region as drawn [PP DirtyDrawnVRAM].
    fn mark_drawn(&mut self, regs: &Regs) {
        let (s2, r2) = (regs.get(reg::SCISSOR2), regs.get(reg::REGION2));
        let w = u64::from(s2.x().min(r2.x())) + 1;
        let h = u64::from(s2.y().min(r2.y())) + 1;
        let extent = |bpp: u64, stride: u64| bpp * stride * h + if w > stride { bpp * (w - stride) } else { 0 };
        let clear = regs.clear_mode();
        let draw_z = clear.is_none() && !regs.enabled(op::ZWRITEDISABLE) && regs.enabled(op::ZTESTENABLE);
        let clear_z = clear.is_some_and(|c| c.depth);
        if draw_z || clear_z {
            let bytes = extent(2, u64::from(regs.get(reg::ZBUFWIDTH).stride()));
            self.mark(regs.get(reg::ZBUFPTR).vram_offset(), bytes.min(u64::from(VRAM_SIZE)) as u32, Vram::Drawn);
        }
        let bpp = if regs.get(reg::FRAMEBUFPIXFORMAT).format() == 3 { 4 } else { 2 };
        let bytes = extent(bpp, u64::from(regs.get(reg::FRAMEBUFWIDTH).stride()));
        self.mark(regs.get(reg::FRAMEBUFPTR).vram_offset(), bytes.min(u64::from(VRAM_SIZE)) as u32, Vram::Drawn);
    }

    /// Write the pending REGISTERS words as one record [PP FlushRegisters].
    fn flush_registers(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let bytes = le_words(&self.pending);
        self.pending.clear();
        self.append_fixed(RecordKind::Registers, &bytes);
    }

    /// A payload appended as is, unaligned and never shared (INIT, REGISTERS, DISPLAY,
    /// CLUTADDR, MEMCPYDEST) [PP Record.cpp].
    fn append_fixed(&mut self, kind: RecordKind, bytes: &[u8]) {
        if kind != RecordKind::Registers {
            self.flush_registers();
        }
        let ptr = self.pushbuf.len() as u32;
        self.pushbuf.extend_from_slice(bytes);
        self.records.push(Record { kind, ptr, sz: bytes.len() as u32 });
    }

    /// A data payload at an offset `≡ phase (mod align)`, reusing identical bytes stored
    /// earlier at such an offset [PP EmitCommandWithRAM].
    fn emit_data(&mut self, kind: RecordKind, data: &[u8], align: u32, phase: u32) {
        self.flush_registers();
        let sz = data.len() as u32;
        let h = content_hash(data);
        let found = self.seen.get(&h).and_then(|ptrs| {
            ptrs.iter()
                .copied()
                .find(|&p| p % align == phase && self.pushbuf.get(p as usize..p as usize + data.len()) == Some(data))
        });
        let ptr = match found {
            Some(p) => p,
            None => {
                while self.pushbuf.len() as u32 % align != phase {
                    self.pushbuf.push(0);
                }
                let p = self.pushbuf.len() as u32;
                self.pushbuf.extend_from_slice(data);
                self.seen.entry(h).or_default().push(p);
                p
            }
        };
        self.records.push(Record { kind, ptr, sz });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dump::restore_init;

    #[test]
    fn context_ranges_hold_209_registers() {
        let n: usize = CONTEXT_RANGES.iter().map(|&(a, b)| usize::from(b - a) + 1).sum();
        assert_eq!(n, 209);
    }

    #[test]
    fn init_payload_layout_matches_the_v1_context() {
        let mut ge = Ge::new();
        ge.state.vaddr = 0x0890_0010;
        ge.state.regs.set(op::VERTEXTYPE, 0x1234);
        ge.state.mats.world[0] = 1.0;
        ge.state.mats.bone_index = 13;
        let p = init_payload(&ge);
        let w = |i: usize| u32::from_le_bytes([p[4 * i], p[4 * i + 1], p[4 * i + 2], p[4 * i + 3]]);
        assert_eq!(p.len(), 2048);
        assert_eq!(w(5), 0x0890_0010);
        // Word 17 is NOP 0x00, then VADDR, IADDR, BASE, VERTEXTYPE (§3.2).
        assert_eq!(w(17), 0);
        assert_eq!(w(21), 0x1200_1234);
        assert_eq!(w(225) >> 24, 0xF9);
        assert_eq!(w(226), 0x2A00_0000);
        assert_eq!(w(323), 0x3A00_0000);
        // 1.0 = 0x3F800000 → float24 0x3F8000.
        assert_eq!(w(324), 0x3B3F_8000);
        assert_eq!((w(336), w(349), w(366)), (0x3C00_0000, 0x3E00_0000, 0x4000_0000));
        assert_eq!(w(379), 0x2A00_000D);
        assert_eq!(w(384), 0x0C00_0000);
        assert!(p[385 * 4..].iter().all(|&b| b == 0));
    }

    #[test]
    fn init_payload_round_trips_through_restore() {
        let mut ge = Ge::new();
        for (i, c) in (0x42u8..=0x4D).enumerate() {
            ge.state.regs.set(c, 0x3F8000 + i as u32);
        }
        ge.state.regs.set(op::TEXBUFWIDTH0 + 3, 0x09_0100);
        ge.state.mats.proj[15] = -2.5;
        ge.state.mats.bones[95] = 0.25;
        ge.state.mats.tgen_index = 7;
        let mut back = Ge::new();
        restore_init(&mut back, &init_payload(&ge)).unwrap();
        assert_eq!(back.state.regs.raw[0x42..=0x4D], ge.state.regs.raw[0x42..=0x4D]);
        assert_eq!(back.state.regs.arg(op::TEXBUFWIDTH0 + 3), 0x09_0100);
        assert_eq!(back.state.mats.proj[15], -2.5);
        assert_eq!(back.state.mats.bones[95], 0.25);
        assert_eq!(back.state.mats.tgen_index, 7);
    }

    #[test]
    fn max_size_follows_the_memory_map() {
        assert_eq!(max_size_at(0x09FF_FFF0), 16);
        assert_eq!(max_size_at(0x4400_0000), 8 << 20);
        assert_eq!(max_size_at(0x0001_3FFF), 1);
        assert_eq!(max_size_at(0x0000_0100), 0);
        assert_eq!(clamp_size(0x047F_FFFC, 100), 4);
    }

    #[test]
    fn identical_payloads_are_stored_once_at_their_alignment() {
        let mut r = Recorder::begin(&Ge::new());
        let base = r.pushbuf.len();
        r.emit_data(RecordKind::Vertices, &[1, 2, 3, 4, 5], 4, 0);
        r.emit_data(RecordKind::Vertices, &[1, 2, 3, 4, 5], 4, 0);
        assert_eq!(r.pushbuf.len(), base.next_multiple_of(4) + 5);
        let n = r.records.len();
        assert_eq!(r.records[n - 1].ptr, r.records[n - 2].ptr);
        // Needs 16-byte alignment: the copy at a 4-aligned offset cannot be shared.
        r.emit_data(RecordKind::Texture(0), &[1, 2, 3, 4, 5], 16, 0);
        assert_eq!(r.records[n].ptr % 16, 0);
        // A misaligned vertex array keeps its address mod 4.
        r.emit_data(RecordKind::Vertices, &[9, 9], 4, 2);
        assert_eq!(r.records[n + 1].ptr % 4, 2);
    }

    #[test]
    fn vram_flags_track_targets_transfers_and_draws() {
        let mut r = Recorder::begin(&Ge::new());
        // Untouched VRAM equals the (zero) replay start: unchanged.
        assert_eq!(r.target_flags(0x0410_0000, 512), 2);
        r.mark(0x0010_0000, 300, Vram::Dirty);
        // Blocks 0x1000 and 0x1001 dirty; sending 512 bytes cleans both.
        assert_eq!(r.target_flags(0x0410_0000, 512), 0);
        assert_eq!(r.target_flags(0x0410_0000, 512), 2);
        r.targets.insert(0x0410_0000);
        r.mark(0x0010_0000, 16, Vram::Drawn);
        assert_eq!(r.target_flags(0x4410_0000, 16), 1 | 4);
        assert_eq!(r.target_flags(0x4410_0000, 16), 1 | 4, "drawn blocks never become clean");
    }
}
