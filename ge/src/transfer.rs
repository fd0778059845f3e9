//! Block transfers (TRANSFERSTART, 0xEA): a rectangle copy between two strided images
//! in memory, 2 or 4 bytes per pixel.
//!
//! Register layout (PPSSPP `GPU/GPUState.h` transfer getters, ppdmp-format.md §7):
//! address = (TRANSFERSRC & 0xFFFFF0) | (TRANSFERSRCW bits 16–23 << 8); stride =
//! TRANSFERSRCW & 0x7F8 pixels, and a stride above 1024 counts as 0; x/y from the POS
//! registers (10 bits each); width/height = SIZE fields + 1; bpp = 4 if TRANSFERSTART
//! bit 0 else 2.
//!
//! Copy semantics follow PPSSPP `GPUCommon::DoBlockTransfer`: rows are copied top to
//! bottom, each row as one memmove (so overlapping source and destination behave like
//! a row-by-row memmove); VRAM addresses that run past the end of VRAM wrap to its
//! start (the mirror behaviour); a row that touches unmapped memory is skipped.

use crate::cmd::fields::{TransferStartArg, TransferWidth};
use crate::cmd::reg;
use crate::mem::Memory;
use crate::regs::Regs;

/// A decoded block transfer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Transfer {
    pub src: u32,
    pub src_stride: u32,
    pub src_x: u32,
    pub src_y: u32,
    pub dst: u32,
    pub dst_stride: u32,
    pub dst_x: u32,
    pub dst_y: u32,
    pub width: u32,
    pub height: u32,
    pub bpp: u32,
}

impl Transfer {
    /// Decode the transfer registers; `start_arg` is TRANSFERSTART's argument.
    pub fn decode(regs: &Regs, start_arg: u32) -> Transfer {
        let stride = |w: TransferWidth| {
            let s = w.stride();
            if s > 0x400 {
                0
            } else {
                s
            }
        };
        let (srcw, dstw) = (regs.get(reg::TRANSFERSRCW), regs.get(reg::TRANSFERDSTW));
        let (src_pos, dst_pos, size) =
            (regs.get(reg::TRANSFERSRCPOS), regs.get(reg::TRANSFERDSTPOS), regs.get(reg::TRANSFERSIZE));
        Transfer {
            src: regs.get(reg::TRANSFERSRC).low() | srcw.high(),
            src_stride: stride(srcw),
            src_x: src_pos.x(),
            src_y: src_pos.y(),
            dst: regs.get(reg::TRANSFERDST).low() | dstw.high(),
            dst_stride: stride(dstw),
            dst_x: dst_pos.x(),
            dst_y: dst_pos.y(),
            width: size.x() + 1,
            height: size.y() + 1,
            bpp: if TransferStartArg(start_arg).bpp32() != 0 { 4 } else { 2 },
        }
    }

    /// Byte address of row `y` of the source rectangle.
    fn src_row(&self, y: u32) -> u32 {
        self.src.wrapping_add(((y + self.src_y) * self.src_stride + self.src_x) * self.bpp)
    }

    fn dst_row(&self, y: u32) -> u32 {
        self.dst.wrapping_add(((y + self.dst_y) * self.dst_stride + self.dst_x) * self.bpp)
    }

    /// Every byte address the destination rectangle writes spans this many bytes from
    /// its first row start (for flush decisions).
    pub fn dst_span(&self) -> (u32, u32) {
        let first = self.dst_row(0);
        let len = (self.height - 1) * self.dst_stride * self.bpp + self.width * self.bpp;
        (first, len)
    }
}

/// Fold a VRAM address that ran past the 8 MiB mirror window back to its start
/// (PPSSPP: `if ((addr & 0x04800000) == 0x04800000) addr &= ~0x00800000`).
fn fold_vram(addr: u32) -> u32 {
    if addr & 0x0480_0000 == 0x0480_0000 {
        addr & !0x0080_0000
    } else {
        addr
    }
}

/// Read `out.len()` bytes through the address map with VRAM wrapping; `None` if any byte
/// is unmapped.
fn read_row(mem: &Memory, addr: u32, out: &mut [u8]) -> Option<()> {
    for (i, o) in out.iter_mut().enumerate() {
        let a = fold_vram(addr.wrapping_add(i as u32));
        *o = mem.read_u8(a).ok()?;
    }
    Some(())
}

fn row_mapped(addr: u32, len: u32) -> bool {
    (0..len).all(|i| Memory::locate(fold_vram(addr.wrapping_add(i))).is_some())
}

/// Execute a block transfer now.
pub fn block_transfer(regs: &Regs, mem: &mut Memory, start_arg: u32) {
    let t = Transfer::decode(regs, start_arg);
    run(&t, mem);
}

/// Perform a decoded transfer.
pub fn run(t: &Transfer, mem: &mut Memory) {
    let row_bytes = (t.width * t.bpp) as usize;
    let mut buf = vec![0u8; row_bytes];
    for y in 0..t.height {
        let s = fold_vram(t.src_row(y));
        let d = fold_vram(t.dst_row(y));
        // A source row in a dump's pushbuf still arriving (`Memory::backfill`).
        mem.fill_for(s, row_bytes as u32);
        if read_row(mem, s, &mut buf).is_none() || !row_mapped(d, row_bytes as u32) {
            continue;
        }
        // Whole-row copy through a buffer = memmove semantics.
        match mem.slice_mut(d, row_bytes as u32) {
            Ok(dst) => dst.copy_from_slice(&buf),
            Err(_) => {
                for (i, b) in buf.iter().enumerate() {
                    let a = fold_vram(d.wrapping_add(i as u32));
                    if let Ok(p) = mem.slice_mut(a, 1) {
                        p[0] = *b;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cmd::op;

    /// Encode a transfer into registers (stride fields take `src_stride`/`dst_stride`
    /// verbatim, so tests can also write invalid strides).
    fn regs(t: &Transfer) -> Regs {
        let mut r = Regs::default();
        r.set(op::TRANSFERSRC, t.src & 0xFF_FFFF);
        r.set(op::TRANSFERSRCW, ((t.src >> 8) & 0xFF_0000) | t.src_stride);
        r.set(op::TRANSFERDST, t.dst & 0xFF_FFFF);
        r.set(op::TRANSFERDSTW, ((t.dst >> 8) & 0xFF_0000) | t.dst_stride);
        r.set(op::TRANSFERSRCPOS, t.src_x | (t.src_y << 10));
        r.set(op::TRANSFERDSTPOS, t.dst_x | (t.dst_y << 10));
        r.set(op::TRANSFERSIZE, (t.width - 1) | ((t.height - 1) << 10));
        r
    }

    #[allow(clippy::too_many_arguments)]
    fn t(
        src: u32,
        src_stride: u32,
        dst: u32,
        dst_stride: u32,
        s: (u32, u32),
        d: (u32, u32),
        width: u32,
        height: u32,
    ) -> Transfer {
        Transfer {
            src,
            src_stride,
            src_x: s.0,
            src_y: s.1,
            dst,
            dst_stride,
            dst_x: d.0,
            dst_y: d.1,
            width,
            height,
            bpp: 0,
        }
    }

    #[test]
    fn copies_a_sub_rectangle_with_strides() {
        let mut mem = Memory::new();
        // Source: 16-pixel stride, 32-bit pixels, value = y*16+x.
        for y in 0..8u32 {
            for x in 0..16u32 {
                mem.write_u32(0x0880_0000 + (y * 16 + x) * 4, y * 16 + x).unwrap();
            }
        }
        let r = regs(&t(0x0880_0000, 16, 0x0400_0000, 512, (2, 3), (10, 1), 4, 2));
        block_transfer(&r, &mut mem, 1);
        for y in 0..2u32 {
            for x in 0..4u32 {
                let got = mem.read_u32(0x0400_0000 + ((1 + y) * 512 + 10 + x) * 4).unwrap();
                assert_eq!(got, (3 + y) * 16 + 2 + x);
            }
        }
        // Neighbours untouched.
        assert_eq!(mem.read_u32(0x0400_0000 + (512 + 9) * 4).unwrap(), 0);
        assert_eq!(mem.read_u32(0x0400_0000 + (512 + 14) * 4).unwrap(), 0);
    }

    #[test]
    fn stride_above_1024_counts_as_zero_and_decode_fields() {
        let r = regs(&t(0x0880_0000, 0x7F8, 0x0400_0000, 8, (0, 0), (0, 0), 3, 1));
        let d = Transfer::decode(&r, 0);
        assert_eq!(d.src_stride, 0);
        assert_eq!(d.dst_stride, 8);
        assert_eq!(d.bpp, 2);
        assert_eq!(d.src, 0x0880_0000);
        assert_eq!(d.dst, 0x0400_0000);
    }

    #[test]
    fn unmapped_rows_are_skipped_without_panic() {
        let mut mem = Memory::new();
        let r = regs(&t(0x0000_0000, 16, 0x0400_0000, 16, (0, 0), (0, 0), 16, 4));
        block_transfer(&r, &mut mem, 1);
        assert!(mem.vram()[..256].iter().all(|&b| b == 0));
    }

    #[test]
    fn vram_destination_wraps_at_end_of_mirror_window() {
        let mut mem = Memory::new();
        mem.write(0x0880_0000, &[1, 2, 3, 4]).unwrap();
        // Last two bytes of the 8 MiB window, then wrap to VRAM start.
        let r = regs(&t(0x0880_0000, 8, 0x047F_FFF0, 8, (0, 0), (7, 0), 2, 1));
        block_transfer(&r, &mut mem, 0);
        let v = mem.vram();
        assert_eq!(&v[VRAM_END - 2..], &[1, 2]);
        assert_eq!(&v[..2], &[3, 4]);
    }

    const VRAM_END: usize = crate::mem::VRAM_SIZE as usize;
}
