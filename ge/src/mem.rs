//! PSP memory as the GE sees it: 32 MiB main RAM, 2 MiB VRAM (with mirrors) and the
//! 16 KiB scratchpad.
//!
//! Address map (ppdmp-format.md §5.1, PPSSPP `Core/MemMap.h`):
//!
//! | range | what |
//! |---|---|
//! | `0x00010000..0x00014000` | scratchpad |
//! | `0x04000000..0x04800000` | VRAM, 2 MiB mirrored four times (PPSSPP treats the mirrors as plain aliases) |
//! | `0x08000000..0x0A000000` | main RAM |
//!
//! Bit 30 (the uncached alias, `0x4xxxxxxx`) and bit 31 (kernel alias) are ignored, as on
//! the PSP's bus. Every access is bounds checked and fails with [`MemError`]; nothing here
//! panics on a hostile address.
//!
//! The GE forms colour/depth buffer addresses from the low 21 bits only and reads depth as
//! a plain row-major array (PPSSPP `SoftGpu.cpp` `Execute_ZbufPtr`), so the "swizzled depth"
//! mirror at `0x04600000` is modelled as a plain alias too.
//!
//! Writes still on their way ([`Pending`]): a flush may rasterize behind the front end
//! (`crate::bin`), its tiles landing later. The regions are shared (`Arc`) so the raster
//! job reads textures from a [`Memory::snapshot`] taken at the flush while the front end
//! goes on reading this memory. A write (`&mut` access) of bytes the pending tiles cover
//! lands them first, so writes keep their order with the raster's; a write elsewhere waits
//! until they are drawn and their job has dropped its snapshot ([`Pending::release`]), so
//! the shared regions are never copied, and leaves them pending. A read of bytes the
//! tiles will write must call [`Memory::settle_for`] first ([`Memory::settle`] for
//! everything).
//!
//! Bytes still on their way *in* ([`Backfill`]): a dump replay starts before its pushbuf
//! is decoded. The decoded pieces arrive on a channel, in order, for one RAM range; the
//! part of it not yet written is the *hole*. Whatever reads or writes the hole fills it
//! first: [`Memory::settle_for`] (the main-thread reads: vertices, indices, CLUT, list
//! words, transfers), every write ([`Memory::slice_mut`]) and [`Memory::fill_for`] (the
//! texture ranges of a draw, before it is binned, so the raster's snapshot holds them).
//! A fill writes everything that has arrived, after landing the pending tiles (so the
//! region is not shared and nothing is copied). [`Memory::snapshot`] also writes what has
//! arrived: the tiles have just landed there, so that costs no wait.

use std::sync::mpsc::{Receiver, TryRecvError};
use std::sync::{Arc, Mutex};
use thiserror::Error;

pub const RAM_BASE: u32 = 0x0800_0000;
pub const RAM_SIZE: u32 = 32 << 20;
pub const VRAM_BASE: u32 = 0x0400_0000;
pub const VRAM_SIZE: u32 = 2 << 20;
/// VRAM plus its three mirrors.
pub const VRAM_WINDOW: u32 = 8 << 20;
pub const SCRATCH_BASE: u32 = 0x0001_0000;
pub const SCRATCH_SIZE: u32 = 16 << 10;

/// A memory access outside mapped memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("GE memory access of {len} bytes at 0x{addr:08x} is outside RAM, VRAM and scratchpad")]
pub struct MemError {
    pub addr: u32,
    pub len: u32,
}

/// Which physical memory an address names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Region {
    Ram,
    Vram,
    Scratch,
}

/// The PSP's memory. Allocated once (34 MiB), zero-filled like PPSSPP's start-up state.
pub struct Memory {
    ram: Arc<Vec<u8>>,
    vram: Arc<Vec<u8>>,
    scratch: Arc<Vec<u8>>,
    /// Writes of an earlier flush still being rasterized ([`Pending`]).
    pending: Option<Box<dyn Pending>>,
    /// RAM bytes still arriving ([`Backfill`]).
    backfill: Option<Box<Backfill>>,
}

/// A RAM range whose bytes arrive in pieces on a channel (a dump's pushbuf being decoded
/// on another thread), kept whole as they come (`bytes`), and written to RAM on demand.
pub struct Backfill {
    /// RAM offset of the range.
    at: usize,
    /// Its length: the bytes that should arrive.
    len: usize,
    /// What has arrived.
    bytes: Vec<u8>,
    /// How much of `bytes` is in RAM.
    written: usize,
    /// A `Mutex` only so that `Memory` stays `Sync`; used through `get_mut`.
    pieces: Mutex<Receiver<Vec<u8>>>,
    /// The sender is gone: nothing more will arrive.
    ended: bool,
}

impl Backfill {
    /// Take pieces: all that are waiting, and (blocking) until `want` bytes have arrived
    /// or the sender is gone. Never past `len`: a longer stream counts as ended.
    fn pull(&mut self, want: usize) {
        let Ok(rx) = self.pieces.get_mut() else {
            self.ended = true;
            return;
        };
        while !self.ended {
            let piece = if self.bytes.len() < want {
                rx.recv().ok()
            } else {
                match rx.try_recv() {
                    Ok(p) => Some(p),
                    Err(TryRecvError::Empty) => return,
                    Err(TryRecvError::Disconnected) => None,
                }
            };
            match piece {
                Some(p) if self.bytes.len() + p.len() <= self.len => self.bytes.extend_from_slice(&p),
                _ => self.ended = true,
            }
        }
    }

    /// The RAM offsets not written yet.
    fn hole(&self) -> std::ops::Range<usize> {
        self.at + self.written..self.at + self.len
    }
}

/// Writes that have not landed yet: the tiles of a flush rasterizing on the pool, or
/// drawn and kept out of memory for the next flush to draw on (`crate::bin`).
pub trait Pending: Send + Sync {
    /// Whether the writes touch any byte of `[addr, addr + len)` (mirrors folded).
    fn overlaps(&self, addr: u32, len: u32) -> bool;
    /// Wait for the writes and apply them to `mem` (which has no pending writes then).
    fn land(self: Box<Self>, mem: &mut Memory);
    /// Whether a job is still drawing them.
    fn drawing(&self) -> bool;
    /// Wait until they are drawn and drop every snapshot of memory they hold, so that
    /// writes elsewhere copy no shared region; they stay pending.
    fn release(&mut self);
    /// Itself, for the binner that made it to take its tiles back.
    fn as_any(&self) -> &dyn std::any::Any;
    fn into_any(self: Box<Self>) -> Box<dyn std::any::Any>;
}

impl Default for Memory {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for Memory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Memory { .. }")
    }
}

impl Memory {
    pub fn new() -> Self {
        Memory {
            ram: Arc::new(vec![0; RAM_SIZE as usize]),
            vram: Arc::new(vec![0; VRAM_SIZE as usize]),
            scratch: Arc::new(vec![0; SCRATCH_SIZE as usize]),
            pending: None,
            backfill: None,
        }
    }

    /// Let the `len` bytes at `addr` (in RAM) arrive later, in order, as `pieces` (each
    /// write and each [`Memory::settle_for`] touching them waits for them). Bytes past
    /// `len` are dropped; a stream ending short leaves the rest as it was.
    pub fn backfill(&mut self, addr: u32, len: usize, pieces: Receiver<Vec<u8>>) -> Result<(), MemError> {
        let err = MemError { addr, len: u32::try_from(len).unwrap_or(u32::MAX) };
        match Self::locate(addr) {
            Some((Region::Ram, at)) if len <= RAM_SIZE as usize - at => {
                self.end_backfill();
                // Reserved whole (at most RAM's size; pages are touched as bytes arrive):
                // no copy of what has arrived as it grows.
                let bytes = Vec::with_capacity(len);
                let b = Backfill { at, len, bytes, written: 0, pieces: Mutex::new(pieces), ended: false };
                self.backfill = Some(Box::new(b));
                Ok(())
            }
            _ => Err(err),
        }
    }

    /// Whether bytes are still arriving ([`Memory::backfill`]).
    pub fn filling(&self) -> bool {
        self.backfill.as_ref().is_some_and(|b| b.written < b.len)
    }

    /// The first `end` bytes of the backfill (fewer when it ended short), waiting for them:
    /// the bytes as they arrived, whatever was written over them in RAM since. Empty
    /// without a backfill.
    pub fn arrived(&mut self, end: usize) -> &[u8] {
        match self.backfill.as_mut() {
            Some(b) => {
                b.pull(end);
                &b.bytes[..end.min(b.bytes.len())]
            }
            None => &[],
        }
    }

    /// Run `f` on this memory and the arrived bytes `range` of the backfill (offsets from its
    /// start; see [`Memory::arrived`]), to write them into memory without copying them out
    /// first. `f` writes only to `[addr, addr + len)` (VRAM mirrors folded), which is filled
    /// first so that the writes do not meet the hole. `None` (and `f` not run) without a
    /// backfill or when the bytes have not all arrived.
    pub fn with_arrived<R>(
        &mut self,
        range: std::ops::Range<usize>,
        addr: u32,
        len: u32,
        f: impl FnOnce(&mut Memory, &[u8]) -> R,
    ) -> Option<R> {
        self.fill_for(addr, len);
        let mut b = self.backfill.take()?;
        b.pull(range.end);
        let r = b.bytes.get(range).map(|data| f(self, data));
        self.backfill = Some(b);
        r
    }

    /// Wait for every byte of the backfill (until the sender is gone), write it all, and
    /// stop filling.
    pub fn end_backfill(&mut self) {
        if let Some(b) = self.backfill.as_mut() {
            b.pull(usize::MAX);
        }
        self.fill_arrived();
        self.backfill = None;
    }

    /// Write every arrived byte not yet in RAM (landing pending tiles first).
    fn fill_arrived(&mut self) {
        let Some(mut b) = self.backfill.take() else { return };
        if b.written < b.bytes.len() {
            let (at, len) = (b.at + b.written, b.bytes.len() - b.written);
            let ram = self.region_mut_for(Region::Ram, RAM_BASE + at as u32, len as u32);
            ram[at..at + len].copy_from_slice(&b.bytes[b.written..]);
            b.written = b.bytes.len();
        }
        self.backfill = Some(b);
    }

    /// Where `[addr, addr + len)` meets the hole: the RAM offset its last byte there ends at.
    fn hole_end(&self, addr: u32, len: u32) -> Option<usize> {
        let b = self.backfill.as_ref()?;
        let a = u64::from(addr & 0x3FFF_FFFF);
        let (lo, hi) = (a.max(u64::from(RAM_BASE)), (a + u64::from(len)).min(u64::from(RAM_BASE + RAM_SIZE)));
        let (lo, hi) = ((lo - u64::from(RAM_BASE)) as usize, hi.saturating_sub(u64::from(RAM_BASE)) as usize);
        let hole = b.hole();
        (lo < hi && lo < hole.end && hi > hole.start).then(|| hi.min(hole.end))
    }

    /// Whether `[addr, addr + len)` meets bytes of the backfill not written yet.
    pub fn in_hole(&self, addr: u32, len: u32) -> bool {
        self.hole_end(addr, len).is_some()
    }

    /// Fill the hole up to the end of `[addr, addr + len)` if the range meets it: call
    /// before anything reads those bytes off the main thread (a raster job's textures).
    pub fn fill_for(&mut self, addr: u32, len: u32) {
        if let Some(end) = self.hole_end(addr, len) {
            if let Some(b) = self.backfill.as_mut() {
                b.pull(end - b.at);
            }
            self.fill_arrived();
        }
    }

    /// [`Memory::fill_for`] the whole hole.
    pub fn fill_all(&mut self) {
        if let Some(b) = self.backfill.as_mut() {
            b.pull(b.len);
            self.fill_arrived();
        }
    }

    /// A read-only copy of the memory as it is now, sharing its bytes (no copy): what a
    /// raster job reads textures from while this memory goes on. Pending writes are
    /// landed first, so the snapshot holds every pixel drawn so far.
    pub fn snapshot(&mut self) -> Memory {
        self.settle();
        // Nothing is pending now: writing what has arrived costs no wait.
        if let Some(b) = self.backfill.as_mut() {
            b.pull(0);
            self.fill_arrived();
        }
        Memory {
            ram: self.ram.clone(),
            vram: self.vram.clone(),
            scratch: self.scratch.clone(),
            pending: None,
            backfill: None,
        }
    }

    /// Let `p` write later; writes already pending land first.
    pub fn defer(&mut self, p: Box<dyn Pending>) {
        self.settle();
        self.pending = Some(p);
    }

    /// Whether writes are pending.
    pub fn has_pending(&self) -> bool {
        self.pending.is_some()
    }

    /// Whether a raster job is drawing pending writes (the front end then leaves the
    /// pool's threads to it).
    pub fn drawing(&self) -> bool {
        self.pending.as_ref().is_some_and(|p| p.drawing())
    }

    /// The pending writes, to look at.
    pub(crate) fn pending(&self) -> Option<&dyn Pending> {
        self.pending.as_deref()
    }

    /// The pending writes, taken out unlanded (their maker then owns them).
    pub(crate) fn take_pending(&mut self) -> Option<Box<dyn Pending>> {
        self.pending.take()
    }

    /// Whether pending writes touch `[addr, addr + len)`.
    pub fn pending_overlaps(&self, addr: u32, len: u32) -> bool {
        self.pending.as_ref().is_some_and(|p| p.overlaps(addr, len))
    }

    /// Land every pending write (wait for the raster job).
    pub fn settle(&mut self) {
        if let Some(p) = self.pending.take() {
            p.land(self);
        }
    }

    /// Land the pending writes if they touch `[addr, addr + len)`, and fill the bytes of
    /// the backfill up to its end: call before reading those bytes.
    pub fn settle_for(&mut self, addr: u32, len: u32) {
        self.fill_for(addr, len);
        self.land_for(addr, len);
    }

    /// The landing half of [`Memory::settle_for`]: for reads whose bytes in the backfill
    /// were filled on a tighter bound.
    pub fn land_for(&mut self, addr: u32, len: u32) {
        if self.pending_overlaps(addr, len) {
            self.settle();
        }
    }

    /// Physical region and offset of `addr`, or `None` when unmapped.
    /// VRAM mirrors fold onto the 2 MiB array.
    #[inline]
    pub fn locate(addr: u32) -> Option<(Region, usize)> {
        let a = addr & 0x3FFF_FFFF;
        if (RAM_BASE..RAM_BASE + RAM_SIZE).contains(&a) {
            Some((Region::Ram, (a - RAM_BASE) as usize))
        } else if (VRAM_BASE..VRAM_BASE + VRAM_WINDOW).contains(&a) {
            Some((Region::Vram, ((a - VRAM_BASE) % VRAM_SIZE) as usize))
        } else if (SCRATCH_BASE..SCRATCH_BASE + SCRATCH_SIZE).contains(&a) {
            Some((Region::Scratch, (a - SCRATCH_BASE) as usize))
        } else {
            None
        }
    }

    /// True if `addr` is in VRAM or one of its mirrors / uncached aliases
    /// (ppdmp-format.md §5.1: `(addr & 0xBF800000) == 0x04000000`).
    #[inline]
    pub fn is_vram(addr: u32) -> bool {
        addr & 0xBF80_0000 == 0x0400_0000
    }

    /// True if every byte of `[addr, addr+len)` is mapped and the range does not cross
    /// out of its region (VRAM ranges may run through the mirrors up to the end of the
    /// 8 MiB window, as PPSSPP's `Memory::IsValidRange` allows).
    pub fn is_valid_range(addr: u32, len: u32) -> bool {
        let a = addr & 0x3FFF_FFFF;
        let end = match a.checked_add(len) {
            Some(e) => e,
            None => return false,
        };
        let within = |base: u32, size: u32| a >= base && end <= base + size;
        within(RAM_BASE, RAM_SIZE) || within(VRAM_BASE, VRAM_WINDOW) || within(SCRATCH_BASE, SCRATCH_SIZE)
    }

    fn region(&self, r: Region) -> &[u8] {
        match r {
            Region::Ram => &self.ram,
            Region::Vram => &self.vram,
            Region::Scratch => &self.scratch,
        }
    }

    /// Writes of the whole region come here: pending writes land first (keeping write
    /// order), after which no snapshot shares the region and `make_mut` copies nothing.
    fn region_mut(&mut self, r: Region) -> &mut [u8] {
        self.settle();
        self.region_released(r)
    }

    /// Writes of `[addr, addr + len)` come here: pending writes land first if they touch
    /// it (keeping write order); others stay pending, drawn and holding no snapshot, so
    /// `make_mut` copies nothing (a replay's uploads between two flushes then leave the
    /// first flush's tiles for the second to draw on, `crate::bin`).
    #[inline]
    fn region_mut_for(&mut self, r: Region, addr: u32, len: u32) -> &mut [u8] {
        if self.pending.is_some() {
            self.land_for(addr, len);
            if let Some(p) = self.pending.as_mut() {
                p.release();
            }
        }
        self.region_released(r)
    }

    #[inline]
    fn region_released(&mut self, r: Region) -> &mut [u8] {
        let region = match r {
            Region::Ram => &mut self.ram,
            Region::Vram => &mut self.vram,
            Region::Scratch => &mut self.scratch,
        };
        Arc::make_mut(region).as_mut_slice()
    }

    /// The bytes from `addr` to the end of its physical region (for VRAM: to the end of
    /// the 2 MiB array, not wrapping into the mirror). Empty when unmapped. Hot-path
    /// readers (texture fetch) index this and treat out-of-range bytes as zero.
    #[inline]
    pub fn tail(&self, addr: u32) -> &[u8] {
        match Self::locate(addr) {
            Some((r, off)) => &self.region(r)[off..],
            None => &[],
        }
    }

    /// A contiguous read-only view of `len` bytes. Fails when unmapped or when the range
    /// leaves the physical array (a VRAM range that wraps into the next mirror).
    pub fn slice(&self, addr: u32, len: u32) -> Result<&[u8], MemError> {
        let err = MemError { addr, len };
        let (r, off) = Self::locate(addr).ok_or(err)?;
        self.region(r).get(off..off + len as usize).ok_or(err)
    }

    /// Mutable counterpart of [`Memory::slice`].
    #[inline]
    pub fn slice_mut(&mut self, addr: u32, len: u32) -> Result<&mut [u8], MemError> {
        let err = MemError { addr, len };
        let (r, off) = Self::locate(addr).ok_or(err)?;
        // A write into the hole goes over the bytes that belong there first.
        self.fill_for(addr, len);
        self.region_mut_for(r, addr, len).get_mut(off..off + len as usize).ok_or(err)
    }

    #[inline]
    pub fn read_u8(&self, addr: u32) -> Result<u8, MemError> {
        Ok(self.slice(addr, 1)?[0])
    }

    #[inline]
    pub fn read_u16(&self, addr: u32) -> Result<u16, MemError> {
        let b = self.slice(addr, 2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    #[inline]
    pub fn read_u32(&self, addr: u32) -> Result<u32, MemError> {
        let b = self.slice(addr, 4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    pub fn write_u32(&mut self, addr: u32, v: u32) -> Result<(), MemError> {
        self.slice_mut(addr, 4)?.copy_from_slice(&v.to_le_bytes());
        Ok(())
    }

    /// Copy `data` to `addr`; the whole range must be valid.
    pub fn write(&mut self, addr: u32, data: &[u8]) -> Result<(), MemError> {
        let len = u32::try_from(data.len()).map_err(|_| MemError { addr, len: u32::MAX })?;
        self.slice_mut(addr, len)?.copy_from_slice(data);
        Ok(())
    }

    /// Copy `len` bytes starting at `addr` into `out`, reading byte by byte through the
    /// address map (so a VRAM read may run into the next mirror like PPSSPP's raw reads).
    /// Unmapped bytes read as zero.
    pub fn read_wrapping(&self, addr: u32, out: &mut [u8]) {
        for (i, o) in out.iter_mut().enumerate() {
            let a = addr.wrapping_add(i as u32);
            *o = match Self::locate(a) {
                Some((r, off)) => self.region(r)[off],
                None => 0,
            };
        }
    }

    /// Whole VRAM (2 MiB).
    pub fn vram(&self) -> &[u8] {
        &self.vram
    }

    pub fn vram_mut(&mut self) -> &mut [u8] {
        self.region_mut(Region::Vram)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mirrors_alias_vram() {
        let mut m = Memory::new();
        m.write_u32(0x0400_0010, 0xDEAD_BEEF).unwrap();
        assert_eq!(m.read_u32(0x0420_0010).unwrap(), 0xDEAD_BEEF);
        assert_eq!(m.read_u32(0x4460_0010).unwrap(), 0xDEAD_BEEF);
        assert!(Memory::is_vram(0x4400_0000));
        assert!(!Memory::is_vram(0x0880_0000));
    }

    #[test]
    fn out_of_range_is_an_error_not_a_panic() {
        let m = Memory::new();
        assert_eq!(m.read_u32(0x0000_0000), Err(MemError { addr: 0, len: 4 }));
        assert!(m.read_u32(0x09FF_FFFE).is_err());
        assert!(m.slice(0x041F_FFFF, 2).is_err());
        assert!(m.tail(0x1234_5678).is_empty());
        assert!(!Memory::is_valid_range(0x09FF_FFF0, 0x20));
        assert!(Memory::is_valid_range(0x041F_FFF0, 0x20));
    }

    #[test]
    fn read_wrapping_runs_into_mirror() {
        let mut m = Memory::new();
        m.vram_mut()[0] = 7;
        let mut out = [0u8; 2];
        m.read_wrapping(0x041F_FFFF, &mut out);
        assert_eq!(out, [0, 7]);
    }
}
