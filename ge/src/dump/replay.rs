//! Replaying a dump on a [`Ge`] the way PPSSPP's `DumpExecute` drives its software
//! renderer (`docs/ppdmp-format.md` §3, §6; PPSSPP `GPU/Debugger/Playback.cpp`).
//!
//! Design: PPSSPP writes REGISTERS words (plus synthetic address words queued by data
//! records) into a display list that the GE only runs up to a stall address, advanced at
//! *sync points*; FRAMEBUF and CLUTADDR+CLUT uploads into VRAM are done at once, with no
//! sync. We reproduce that with two buffers:
//!
//! * `queue` — synthetic words (BASE/VADDR/IADDR/TEXBUFWIDTHn/TEXADDRn/CLUTADDR(UPPER)/
//!   TRANSFERSRC(W)) waiting for the next REGISTERS record, which writes them first;
//! * `list` — words written to the "list" but not yet executed; [`Replayer::sync`] runs
//!   them on the GE and flushes its bins.
//!
//! Sync points (§6.4): mapping a pushbuf window that is not resident ([`BufModel`]), a
//! list-buffer wrap, TRANSFERSRC, MEMSET/MEMCPYDATA into VRAM, DISPLAY, EDRAMTRANS and the
//! end. The data itself lives contiguously at [`PUSHBUF_ADDR`], which gives the same bytes
//! as PPSSPP's windows except for reads that run across a 1 MiB window edge (§5.2).

use super::mapping::BufModel;
use super::{Dump, DumpError, DumpErrorKind, Record, RecordKind, INIT_SIZE};
use crate::cmd::fields::{BoneIndex, ClutAddrUpper, MatrixIndex};
use crate::cmd::{op, reg};
use crate::display::DisplayBuffer;
use crate::exec::Ge;
use crate::mem::{Memory, Region, RAM_BASE, RAM_SIZE, SCRATCH_SIZE, VRAM_SIZE};
use crate::regs::float24;

use super::step::{is_draw, Step, StepHook, Stepped};

/// Where the pushbuf is placed: 16-byte aligned (texture and CLUT addresses drop their low
/// 4 bits), above PPSSPP's 16 KiB replay stub block at the start of user RAM (§5.2).
pub const PUSHBUF_ADDR: u32 = 0x0880_4000;

/// PPSSPP's display-list buffer: 256 KiB from the top of user RAM (§6.3). Only its
/// address's top byte is observable (the BASE word written at a wrap).
/// guess: top of the 24 MiB user partition of a 32 MiB PSP.
const LIST_BUF_ADDR: u32 = 0x09FC_0000;
const LIST_BUF_SIZE: u64 = 256 << 10;
const BASE_INVALID: u32 = 0xFFFF_FFFF;

/// Registers held in an INIT snapshot, in order (§3.2) [PP GPUState.cpp contextCmdRanges].
pub(crate) const CONTEXT_RANGES: [(u8, u8); 16] = [
    (0x00, 0x02),
    (0x10, 0x10),
    (0x12, 0x28),
    (0x2C, 0x33),
    (0x36, 0x38),
    (0x42, 0x4D),
    (0x50, 0x51),
    (0x53, 0x58),
    (0x5B, 0xB5),
    (0xB8, 0xC3),
    (0xC5, 0xD0),
    (0xD2, 0xE9),
    (0xEB, 0xEC),
    (0xEE, 0xEE),
    (0xF0, 0xF6),
    (0xF8, 0xF9),
];

fn context_registers() -> impl Iterator<Item = u8> {
    CONTEXT_RANGES.iter().flat_map(|&(a, b)| a..=b)
}

/// Commands re-executed after an INIT restore, in order [PP GPUCommon.cpp ReapplyGfxState]:
/// 0x12–0x29 except OFFSETADDR/ORIGIN, 0x2C–0x38, 0x42–0xE9 except TEXFLUSH/TEXSYNC.
fn reapplied_registers() -> impl Iterator<Item = u8> {
    (0x12u8..=0x29)
        .filter(|&c| c != op::OFFSETADDR && c != op::ORIGIN)
        .chain(0x2C..=0x38)
        .chain((0x42..=0xE9).filter(|&c| c != 0xCB && c != 0xCC))
}

fn word(cmd: u8, arg: u32) -> u32 {
    (u32::from(cmd) << 24) | (arg & 0x00FF_FFFF)
}

fn le32(b: &[u8], at: usize) -> u32 {
    match b.get(at..at + 4) {
        Some(s) => u32::from_le_bytes([s[0], s[1], s[2], s[3]]),
        None => 0,
    }
}

/// Apply an INIT payload (§3.2) [PP GPUState.cpp GEState::Restore, GPUCommon.cpp
/// ReapplyGfxState]: internal addresses from words 5–7, the 209 registers stored as-is,
/// the matrices read in the v1 layout even for legacy-layout files (PPSSPP never detects
/// those), then the §3.2 step-4 commands re-executed to rebuild derived state. LOADCLUT
/// is re-executed with its power-on argument 0 and so loads nothing.
pub fn restore_init(ge: &mut Ge, payload: &[u8]) -> Result<(), crate::exec::GeError> {
    let w = |i: usize| le32(payload, 4 * i);
    ge.state.vaddr = w(5);
    ge.state.iaddr = w(6);
    ge.state.offset = w(7);
    for (i, cmd) in context_registers().enumerate() {
        // guess: the stored command byte is trusted to equal `cmd` (PPSSPP would
        // re-execute a mismatching word as its own command; recorders never write one).
        ge.state.regs.set(cmd, w(17 + i));
    }
    let mats = &mut ge.state.mats;
    for i in 0..96 {
        mats.bones[i] = float24(w(227 + i));
    }
    for i in 0..12 {
        mats.world[i] = float24(w(324 + i));
        mats.view[i] = float24(w(337 + i));
        mats.tgen[i] = float24(w(367 + i));
    }
    for i in 0..16 {
        mats.proj[i] = float24(w(350 + i));
    }
    mats.bone_index = BoneIndex(w(379)).index();
    mats.world_index = MatrixIndex(w(380)).index();
    mats.view_index = MatrixIndex(w(381)).index();
    mats.proj_index = MatrixIndex(w(382)).index();
    mats.tgen_index = MatrixIndex(w(383)).index();
    // Written past the executor: what the draw path decoded from them is stale.
    ge.draw.registers_changed();
    for cmd in reapplied_registers() {
        let arg = ge.state.regs.arg(cmd);
        ge.execute_word(word(cmd, arg))?;
    }
    Ok(())
}

/// Replay `dump` on `ge` (expected fresh from [`Ge::new`]: zeroed memory) and return the
/// display buffer PPSSPP shows at the end: the last record's DISPLAY, else the last
/// DISPLAY seen, else PSP's power-on display (§8.1).
pub fn replay(dump: &Dump, ge: &mut Ge) -> Result<DisplayBuffer, DumpError> {
    Ok(replay_with(dump, ge, None)?.display)
}

/// [`replay`], showing every executed word to `hook` just after it ran (the draw it
/// issued may still be binned: the hook flushes when it looks at pixels). When the hook
/// breaks, the replay stops there with everything drawn so far rasterized; the returned
/// display is the one latched so far. Same words, same order, same memory as [`replay`].
pub fn replay_steps(dump: &Dump, ge: &mut Ge, hook: &mut StepHook<'_>) -> Result<Stepped, DumpError> {
    replay_with(dump, ge, Some(hook))
}

/// The replay, with or without a hook. Without one, flushes rasterize behind the words
/// that follow them (their pixels land before anything reads or writes them); a hook is
/// handed the GE with every pixel landed, so it sees what [`replay`] would have drawn.
fn replay_with(dump: &Dump, ge: &mut Ge, hook: Option<&mut StepHook<'_>>) -> Result<Stepped, DumpError> {
    let size = dump.pushbuf.len();
    if size as u64 > PUSHBUF_LIMIT as u64 {
        return Err(too_large(size));
    }
    ge.mem.write(PUSHBUF_ADDR, &dump.pushbuf).map_err(|_| too_large(size))?;
    run_records(dump.version, &dump.records, Pushbuf::Whole(&dump.pushbuf), ge, hook)
}

/// The most pushbuf RAM holds from [`PUSHBUF_ADDR`] on.
pub(super) const PUSHBUF_LIMIT: u32 = RAM_BASE + RAM_SIZE - PUSHBUF_ADDR;

/// The error for a pushbuf of `size` bytes that RAM cannot hold from [`PUSHBUF_ADDR`].
pub(super) fn too_large(size: usize) -> DumpError {
    DumpErrorKind::PushbufTooLarge { size, base: PUSHBUF_ADDR, limit: PUSHBUF_LIMIT }.into()
}

/// Where the record loop reads payloads.
pub(super) enum Pushbuf<'d> {
    /// The whole pushbuf (already in RAM at [`PUSHBUF_ADDR`]).
    Whole(&'d [u8]),
    /// Arriving in RAM at [`PUSHBUF_ADDR`] ([`Memory::backfill`]): a payload is read from
    /// what has arrived, waiting for it.
    Arriving,
}

/// Run `records` on `ge`, the pushbuf placed at [`PUSHBUF_ADDR`] (see [`replay_with`]).
/// With [`Pushbuf::Arriving`], a payload that never arrives (the stream ended short)
/// stops the loop with [`DumpErrorKind::Truncated`]; the caller reports the decoder's
/// error instead, which is why it ended.
pub(super) fn run_records(
    version: u32,
    records: &[Record],
    pushbuf: Pushbuf<'_>,
    ge: &mut Ge,
    hook: Option<&mut StepHook<'_>>,
) -> Result<Stepped, DumpError> {
    // The software renderer's CLUT cache starts zeroed (§3.2 step 4).
    ge.state.clut.fill(0);
    let mut r = Replayer::new(version, hook);
    r.arriving = matches!(pushbuf, Pushbuf::Arriving);
    let last = records.len().saturating_sub(1);
    // A payload's bytes, copied out of the arrived pushbuf (records write into `ge`).
    let mut held = Vec::new();
    let mut run = || -> Result<(), Halt> {
        for (index, rec) in records.iter().enumerate() {
            let start = rec.ptr as usize;
            let end = start + rec.sz as usize;
            let payload = match pushbuf {
                Pushbuf::Whole(b) => b.get(start..end).unwrap_or(&[]),
                Pushbuf::Arriving if !needs_payload(rec.kind) => &[],
                Pushbuf::Arriving if rec.kind == RecordKind::Registers => {
                    // The words are read from what has arrived, not copied (REGISTERS are most
                    // bytes: copying payloads cost 56 M instructions on 21763's main thread).
                    r.registers_start(ge, index, rec.sz.into())?;
                    let got = ge.mem.arrived(end);
                    let Some(words) = got.get(start..end) else { return Err(short(got.len(), rec)) };
                    r.registers_words(index, rec, words);
                    continue;
                }
                Pushbuf::Arriving => {
                    let got = ge.mem.arrived(end);
                    if got.len() < end {
                        return Err(short(got.len(), rec));
                    }
                    // Only the header of a record whose data is written to memory: the data
                    // is written from the arrived bytes (`Replayer::write_data`). On 21763
                    // its 28 059 FRAMEBUF records hold 74 MB.
                    let fields = if writes_data(rec.kind) { end.min(start + 16) } else { end };
                    held.clear();
                    held.extend_from_slice(&got[start..fields]);
                    &held[..]
                }
            };
            r.record(ge, payload, index, rec, index == last)?;
        }
        if r.list_active {
            // SubmitListEnd: FINISH + END, sync.
            let end = records.len();
            r.list.push((word(op::FINISH, 0), end, NO_SRC));
            r.list.push((word(op::END, 0), end, NO_SRC));
            r.sync(ge)?;
        }
        Ok(())
    };
    let ran = run();
    ge.settle();
    let stopped = match ran {
        Ok(()) => None,
        Err(Halt::Stopped(step)) => Some(step),
        Err(Halt::Error(e)) => return Err(e),
    };
    let display = r.current_display.unwrap_or(r.latched_display.unwrap_or_else(DisplayBuffer::power_on));
    Ok(Stepped { display, stopped, draws: r.draws })
}

/// The stop of a payload that never arrived (the caller reports the decoder's error).
fn short(arrived: usize, rec: &Record) -> Halt {
    let len = arrived as u64;
    DumpErrorKind::Truncated { what: "pushbuf", offset: len, needed: rec.sz.into(), len }.into()
}

/// Whether the replay reads a record's payload itself; the others only map it (GE
/// commands read those bytes from RAM).
fn needs_payload(kind: RecordKind) -> bool {
    !matches!(kind, RecordKind::Vertices | RecordKind::Indices | RecordKind::TransferSrc | RecordKind::Texture(_))
}

/// Whether a record's payload (after a FRAMEBUF's 16-byte header) is data that the replay
/// writes to memory.
fn writes_data(kind: RecordKind) -> bool {
    matches!(kind, RecordKind::Framebuf(_) | RecordKind::Clut | RecordKind::MemcpyData)
}

/// Why the record loop ended early: an error, or the step hook asked to stop.
enum Halt {
    Error(DumpError),
    Stopped(Step),
}

impl From<DumpError> for Halt {
    fn from(e: DumpError) -> Self {
        Halt::Error(e)
    }
}

impl From<DumpErrorKind> for Halt {
    fn from(k: DumpErrorKind) -> Self {
        Halt::Error(k.into())
    }
}

/// Source offset of words the replay made up (no REGISTERS word of the file behind them).
const NO_SRC: u32 = u32::MAX;

/// PPSSPP's `DumpExecute` state (§6.1), plus the step hook and draw counter.
struct Replayer<'h, 'f> {
    version: u32,
    queue: Vec<u32>,
    /// Written but not yet executed words, with the record index that produced them and
    /// their pushbuf offset ([`NO_SRC`] for words the replay made up).
    list: Vec<(u32, usize, u32)>,
    list_active: bool,
    /// Write position inside the 256 KiB list buffer (for wraps).
    list_pos: u64,
    last_bufw: [u16; 8],
    last_tex: [u32; 8],
    last_base: u32,
    clut_addr: u32,
    clut_flags: u32,
    memcpy_dest: u32,
    /// EDRAM address translation (no visible effect; kept for completeness).
    edram: u32,
    mapping: BufModel,
    latched_display: Option<DisplayBuffer>,
    current_display: Option<DisplayBuffer>,
    hook: Option<&'h mut StepHook<'f>>,
    /// Draw commands executed so far.
    draws: u32,
    /// The pushbuf is arriving ([`Pushbuf::Arriving`]): data records hold their header only.
    arriving: bool,
}

impl<'h, 'f> Replayer<'h, 'f> {
    fn new(version: u32, hook: Option<&'h mut StepHook<'f>>) -> Self {
        Replayer {
            version,
            queue: Vec::new(),
            list: Vec::new(),
            list_active: false,
            list_pos: 0,
            last_bufw: [0; 8],
            last_tex: [0; 8],
            last_base: BASE_INVALID,
            clut_addr: 0,
            clut_flags: 0,
            memcpy_dest: 0,
            edram: 0x400,
            mapping: BufModel::default(),
            latched_display: None,
            current_display: None,
            hook,
            draws: 0,
            arriving: false,
        }
    }

    /// Advance the stall address: run every written word, then rasterize [PP SyncStall].
    /// Nothing happens before the list exists.
    fn sync(&mut self, ge: &mut Ge) -> Result<(), Halt> {
        if !self.list_active {
            return Ok(());
        }
        let mut words = std::mem::take(&mut self.list).into_iter();
        for (w, record, src) in words.by_ref() {
            let (vaddr, iaddr) = (ge.state.vaddr, ge.state.iaddr);
            ge.execute_behind(w).map_err(|cause| DumpError::from(DumpErrorKind::Ge { index: record, cause }))?;
            let draw = is_draw(w);
            self.draws += u32::from(draw);
            let Some(hook) = self.hook.as_mut() else { continue };
            ge.settle();
            let step = Step {
                word: w,
                record,
                src: (src != NO_SRC).then_some(src),
                draw: draw.then_some(self.draws),
                draws: self.draws,
                vaddr,
                iaddr,
            };
            if hook(ge, &step).is_break() {
                ge.flush();
                return Err(Halt::Stopped(step));
            }
        }
        ge.draw.flush_behind(&mut ge.mem);
        Ok(())
    }

    /// Map a payload; returns its RAM address, or `None` when PPSSPP would skip the record.
    fn map(&mut self, ge: &mut Ge, rec: &Record) -> Result<Option<u32>, Halt> {
        let m = self.mapping.map(rec.ptr, rec.sz);
        if m.sync_first {
            self.sync(ge)?;
        }
        if !m.mapped {
            tracing::warn!(ptr = rec.ptr, sz = rec.sz, "PPSSPP cannot allocate this payload; record skipped");
            return Ok(None);
        }
        Ok(Some(PUSHBUF_ADDR.wrapping_add(rec.ptr)))
    }

    fn queue_base_for(&mut self, addr: u32) {
        if self.last_base != addr & 0xFF00_0000 {
            self.queue.push(word(op::BASE, (addr >> 8) & 0x00FF_0000));
            self.last_base = addr & 0xFF00_0000;
        }
    }

    fn record(&mut self, ge: &mut Ge, payload: &[u8], index: usize, rec: &Record, is_last: bool) -> Result<(), Halt> {
        let ge_err = |cause| DumpError::from(DumpErrorKind::Ge { index, cause });
        match rec.kind {
            RecordKind::Init => {
                // Applied at once, like PPSSPP's ReapplyGfxState operation (no sync).
                let mut init = [0u8; INIT_SIZE as usize];
                let n = payload.len().min(init.len());
                init[..n].copy_from_slice(&payload[..n]);
                restore_init(ge, &init).map_err(ge_err)?;
                self.last_bufw = [0; 8];
                self.last_tex = [0; 8];
                self.last_base = BASE_INVALID;
            }
            RecordKind::Registers => self.registers(ge, index, rec, payload)?,
            RecordKind::Vertices | RecordKind::Indices => {
                if let Some(a) = self.map(ge, rec)? {
                    self.queue_base_for(a);
                    let cmd = if rec.kind == RecordKind::Vertices { op::VADDR } else { op::IADDR };
                    self.queue.push(word(cmd, a));
                }
            }
            RecordKind::Texture(level) => {
                let l = usize::from(level & 7);
                if let Some(a) = self.map(ge, rec)? {
                    if self.last_tex[l] != a {
                        // bufw from the per-level tracker, which INIT resets to 0 (§6.3 trap).
                        self.queue.push(word(
                            op::TEXBUFWIDTH0 + l as u8,
                            ((a >> 8) & 0x00FF_0000) | u32::from(self.last_bufw[l]),
                        ));
                        self.queue.push(word(op::TEXADDR0 + l as u8, a));
                        self.last_tex[l] = a;
                    }
                }
            }
            RecordKind::Framebuf(level) => self.framebuf(ge, usize::from(level & 7), payload, rec),
            RecordKind::ClutAddr => {
                self.clut_addr = le32(payload, 0);
                self.clut_flags = le32(payload, 4);
            }
            RecordKind::Clut => {
                if self.clut_addr != 0 {
                    // VRAM CLUT: copy now (no sync) unless it is a render target, which the
                    // replayed drawing has produced itself [PP DumpExecute::Clut, software].
                    let target = self.clut_flags & 1 != 0;
                    if Memory::is_valid_range(self.clut_addr, rec.sz) && !target {
                        self.write_data(ge, self.clut_addr, payload, rec, 0);
                    }
                    self.clut_addr = 0;
                } else if let Some(a) = self.map(ge, rec)? {
                    self.queue.push(word(op::CLUTADDRUPPER, ClutAddrUpper::upper_of(a)));
                    self.queue.push(word(op::CLUTADDR, a));
                }
            }
            RecordKind::TransferSrc => {
                if let Some(a) = self.map(ge, rec)? {
                    // Sync so the current TRANSFERSRCW register is known [PP TransferSrc].
                    self.sync(ge)?;
                    let srcw = ge.state.regs.get(reg::TRANSFERSRCW);
                    self.queue.push(word(op::TRANSFERSRCW, srcw.with_upper_of(a)));
                    self.queue.push(word(op::TRANSFERSRC, a));
                }
            }
            RecordKind::Memset => {
                // The software renderer's memset hook writes nothing (§3.7).
                if Memory::is_vram(le32(payload, 0)) {
                    self.sync(ge)?;
                }
            }
            RecordKind::MemcpyDest => self.memcpy_dest = le32(payload, 0),
            RecordKind::MemcpyData => {
                if Memory::is_vram(self.memcpy_dest) {
                    self.sync(ge)?;
                    self.write_data(ge, self.memcpy_dest, payload, rec, 0);
                }
            }
            RecordKind::Display => {
                self.sync(ge)?;
                let d = DisplayBuffer { addr: le32(payload, 0), stride: le32(payload, 4), format: le32(payload, 8) };
                self.latched_display = Some(d);
                if is_last {
                    self.current_display = Some(d);
                }
            }
            RecordKind::EdramTrans => {
                self.sync(ge)?;
                self.edram = le32(payload, 0);
            }
            RecordKind::Unknown(ty) => return Err(DumpErrorKind::UnknownRecord { index, ty }.into()),
        }
        Ok(())
    }

    /// REGISTERS (§6.2, §6.3) [PP DumpExecute::Registers].
    fn registers(&mut self, ge: &mut Ge, index: usize, rec: &Record, payload: &[u8]) -> Result<(), Halt> {
        self.registers_start(ge, index, payload.len() as u64)?;
        self.registers_words(index, rec, payload);
        Ok(())
    }

    /// The part of [`Replayer::registers`] that runs the GE (list start, wrap): before the
    /// payload's words are read, so these can be borrowed from memory ([`Pushbuf::Arriving`]).
    fn registers_start(&mut self, ge: &mut Ge, index: usize, len: u64) -> Result<(), Halt> {
        if !self.list_active {
            // The list starts with one NOP; starting a list resets the offset address.
            self.list_active = true;
            ge.state.offset = 0;
            self.list.push((word(op::NOP, 0), index, NO_SRC));
            self.list_pos = 4;
        }
        let pending = 4 * self.queue.len() as u64;
        if self.list_pos + pending + len + 8 >= LIST_BUF_SIZE {
            // Wrap: BASE + JUMP back to the buffer start, then sync.
            self.list.push((word(op::BASE, (LIST_BUF_ADDR >> 8) & 0x00FF_0000), index, NO_SRC));
            self.list.push((word(op::JUMP, LIST_BUF_ADDR), index, NO_SRC));
            self.list_pos = 0;
            self.last_base = LIST_BUF_ADDR & 0xFF00_0000;
            self.sync(ge)?;
        }
        Ok(())
    }

    /// The words of a REGISTERS payload, after [`Replayer::registers_start`].
    fn registers_words(&mut self, index: usize, rec: &Record, payload: &[u8]) {
        let pending = 4 * self.queue.len() as u64;
        self.list.extend(self.queue.drain(..).map(|w| (w, index, NO_SRC)));
        self.list_pos += pending + payload.len() as u64;
        // TEXBUFWIDTHn rewrites use the texture addresses as known when the record started.
        let tex_high: [u32; 8] = std::array::from_fn(|l| (self.last_tex[l] >> 8) & 0x00FF_0000);
        for (i, chunk) in payload.chunks_exact(4).enumerate() {
            let src = rec.ptr.wrapping_add(4 * i as u32);
            let w = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
            let cmd = (w >> 24) as u8;
            let out = match cmd {
                c if (op::TEXBUFWIDTH0..op::TEXBUFWIDTH0 + 8).contains(&c) => {
                    let l = usize::from(c - op::TEXBUFWIDTH0);
                    let bufw = (w & 0xFFFF) as u16;
                    let out = if bufw == self.last_bufw[l] {
                        word(op::NOP, 0)
                    } else {
                        word(c, tex_high[l] | u32::from(bufw))
                    };
                    self.last_bufw[l] = bufw;
                    out
                }
                // Texture addresses come only from TEXTURE/FRAMEBUF records.
                c if (op::TEXADDR0..op::TEXADDR0 + 8).contains(&c) => word(op::NOP, 0),
                op::SIGNAL | op::BASE => {
                    self.last_base = BASE_INVALID;
                    w
                }
                _ => w,
            };
            self.list.push((out, index, src));
        }
    }

    /// FRAMEBUFn (§3.10) [PP DumpExecute::Framebuf].
    fn framebuf(&mut self, ge: &mut Ge, l: usize, payload: &[u8], rec: &Record) {
        let addr = le32(payload, 0);
        let bufw = le32(payload, 4);
        let flags = le32(payload, 8);
        // PPSSPP compares the u16 tracker with the i32 header value.
        if self.last_tex[l] != addr || u32::from(self.last_bufw[l]) != bufw {
            // The header bufw is OR-ed in whole, as PPSSPP does.
            let w = ((u32::from(op::TEXBUFWIDTH0) + l as u32) << 24) | ((addr >> 8) & 0x00FF_0000) | bufw;
            self.queue.push(w);
            self.queue.push(word(op::TEXADDR0 + l as u8, addr));
            self.last_tex[l] = addr;
            self.last_bufw[l] = bufw as u16;
        }
        let target = flags & 1 != 0;
        // Bit 1 "unchanged" is only trustworthy from version 6 on [PP Framebuf, §2.4].
        let unchanged = self.version >= 6 && flags & 2 != 0;
        if Memory::is_valid_range(addr, rec.sz.saturating_sub(16)) && !unchanged && !target {
            self.write_data(ge, addr, payload, rec, 16);
        }
    }

    /// Write a record's data, its payload from byte `skip` on, to `addr` ([`write_through`]):
    /// from `payload`, or while the pushbuf is arriving straight from the arrived bytes
    /// (`payload` is then the header only, [`writes_data`]), with no copy first.
    fn write_data(&self, ge: &mut Ge, addr: u32, payload: &[u8], rec: &Record, skip: usize) {
        if !self.arriving {
            return write_through(&mut ge.mem, addr, payload.get(skip..).unwrap_or(&[]));
        }
        let (start, end) = (rec.ptr as usize + skip, rec.ptr as usize + rec.sz as usize);
        let len = rec.sz.saturating_sub(skip as u32);
        ge.mem.with_arrived(start..end, addr, len, |mem, data| write_through(mem, addr, data));
    }
}

/// Copy into memory like PPSSPP's raw `MemcpyUnchecked`: a VRAM range runs on through the
/// mirrors; bytes that land outside mapped memory are dropped.
fn write_through(mem: &mut Memory, addr: u32, data: &[u8]) {
    let mut done = 0usize;
    while done < data.len() {
        let a = addr.wrapping_add(done as u32);
        let Some((region, off)) = Memory::locate(a) else {
            done += 1;
            continue;
        };
        let size = match region {
            Region::Ram => RAM_SIZE,
            Region::Vram => VRAM_SIZE,
            Region::Scratch => SCRATCH_SIZE,
        } as usize;
        let n = (size - off).min(data.len() - done);
        match mem.slice_mut(a, n as u32) {
            Ok(dst) => dst.copy_from_slice(&data[done..done + n]),
            Err(_) => {
                done += 1;
                continue;
            }
        }
        done += n;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn context_has_209_registers_and_the_right_ends() {
        let regs: Vec<u8> = context_registers().collect();
        assert_eq!(regs.len(), 209);
        assert_eq!(regs[0], 0x00);
        assert_eq!(regs[3], 0x10);
        assert_eq!(*regs.last().unwrap(), 0xF9);
        assert!(!regs.contains(&0xC4), "LOADCLUT is not in the snapshot");
        assert!(!regs.contains(&0xEA), "TRANSFERSTART is not in the snapshot");
    }

    #[test]
    fn reapply_order_skips_flow_and_cache_commands() {
        let r: Vec<u8> = reapplied_registers().collect();
        assert_eq!(r[0], 0x12);
        assert_eq!(r[1], 0x15);
        assert!(r.contains(&0x29) && r.contains(&0xC4) && r.contains(&0xE9));
        assert!(!r.contains(&0xCB) && !r.contains(&0xCC) && !r.contains(&0x2A) && !r.contains(&0xEA));
        // 24 - 2 + 13 + 168 - 2
        assert_eq!(r.len(), 22 + 13 + 166);
    }

    #[test]
    fn write_through_wraps_into_the_vram_mirror() {
        let mut m = Memory::new();
        write_through(&mut m, 0x041F_FFFE, &[1, 2, 3, 4]);
        assert_eq!(&m.vram()[VRAM_SIZE as usize - 2..], &[1, 2]);
        assert_eq!(&m.vram()[..2], &[3, 4]);
    }
}
