//! Replaying a dump while its pushbuf is still being decoded.
//!
//! Opening a dump decodes two blocks: the command records (small) and the pushbuf (up to
//! 8.3 MiB in the corpus; on 15875 ruzstd's decoding of it is about 400 M instructions,
//! half of the dump's time). The records run in pushbuf order, roughly: on 15875 they
//! reach half of the pushbuf only at 86 % of the records. So [`DumpStream`] decodes the
//! header and the command block, and hands the pushbuf block to a thread that sends it
//! on in pieces; [`DumpStream::replay`] starts at once, with the pushbuf's RAM range
//! *backfilled* ([`crate::mem::Memory::backfill`]): every GE read of it waits for the
//! bytes it needs (see `mem`'s module docs for which reads, and how raster jobs are
//! covered), and payloads the replay reads itself are taken from what has arrived.
//!
//! ruzstd keeps a frame's window (2 MiB on the corpus's large dumps, the whole content
//! for single-segment frames) until it is decoded, so pieces come that far behind the
//! decoder; a single-segment pushbuf would arrive whole at its end, and a snappy one
//! (v2–v4) too. Those are decoded as [`Dump::open`] does (a large command block beside
//! the pushbuf) and handed over whole: streamed, the replay only waited for them and lost
//! the command block's thread (measured idle, 2 threads, 4 alternating rounds, min:
//! 10914 13.2 -> 16.7 ms, 11216 67.7 -> 73.2 ms), while 15875, multi-segment, went
//! 84.2 -> 62.5 ms.
//!
//! Errors are those of [`Dump::open`] + [`super::replay`]: whatever the replay found (a
//! record outside the pushbuf, a GE error, a payload that never came), the decoder's own
//! error wins when it has one, as it would have stopped the open. So the replay always
//! waits for the whole pushbuf, and a corrupt last piece fails it like a corrupt file.
//! Memory: the pushbuf once (what has arrived) plus its RAM, and at most [`IN_FLIGHT`]
//! pieces in the channel, as before; but the file, the inflated zip entry and ruzstd's
//! window now live while the replay runs (freed before it before): 15875's peak RSS
//! 35.1 -> 43.5 MiB (`/usr/bin/time -v`, limit 64 MiB).

use super::container::{parse_any_streamed, validate_records, Head};
use super::replay::{run_records, too_large, Pushbuf, PUSHBUF_ADDR, PUSHBUF_LIMIT};
use super::{Dump, DumpError, DumpErrorKind, Record};
use crate::display::DisplayBuffer;
use crate::exec::Ge;
use std::path::Path;
use std::sync::mpsc::Receiver;
use std::thread::JoinHandle;

/// Pieces (up to 128 KiB each, a zstd block) the decoder may run ahead of the replay,
/// which takes them at every payload it reads: 2 MiB.
const IN_FLIGHT: usize = 16;

/// Files at most this long are decoded whole, without a thread: the thread costs more
/// than the overlap gives (the trivial dumps).
const STREAM_FROM: usize = 256 << 10;

/// A dump whose records are decoded and whose pushbuf may still be on its way.
pub struct DumpStream {
    pub version: u32,
    /// Game ID from the v4+ header (empty for v2–v3), NULs stripped.
    pub game_id: String,
    /// As in the file, not yet checked against the pushbuf (the replay does that).
    pub records: Vec<Record>,
    /// The pushbuf's declared size.
    pub pushbuf_len: usize,
    feed: Feed,
}

enum Feed {
    /// Decoded already (a small file).
    Whole(Vec<u8>),
    /// Decoding: its pieces, and the thread with the error of the whole open.
    Decoding { pieces: Receiver<Vec<u8>>, decoder: JoinHandle<Result<(), DumpErrorKind>> },
}

impl DumpStream {
    /// Read a `.ppdmp` (or `.zip` holding one) and decode its records; errors name the file.
    pub fn open(path: impl AsRef<Path>) -> Result<DumpStream, DumpError> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|e| DumpError::from(DumpErrorKind::Io(e)).in_file(path))?;
        Self::from_bytes(bytes).map_err(|e| e.in_file(path))
    }

    /// [`DumpStream::open`] on bytes in memory: decoded whole when short, else streamed.
    pub fn from_bytes(bytes: Vec<u8>) -> Result<DumpStream, DumpError> {
        if bytes.len() <= STREAM_FROM {
            return Ok(Self::whole(Dump::parse(&bytes)?));
        }
        Self::decode(bytes, false)
    }

    /// A dump decoded whole and validated (as by [`Dump::parse`]).
    fn whole(dump: Dump) -> DumpStream {
        let pushbuf_len = dump.pushbuf.len();
        DumpStream {
            version: dump.version,
            game_id: dump.game_id,
            records: dump.records,
            pushbuf_len,
            feed: Feed::Whole(dump.pushbuf),
        }
    }

    /// [`DumpStream::from_bytes`] with the pushbuf always sent in pieces from a thread,
    /// whatever the size and codec (tests compare both readings).
    pub fn streamed(bytes: Vec<u8>) -> Result<DumpStream, DumpError> {
        Self::decode(bytes, true)
    }

    /// Decode on a thread; the pushbuf comes in pieces if `always` or if that can pay
    /// (a multi-segment zstd frame), else whole with the records.
    fn decode(bytes: Vec<u8>, always: bool) -> Result<DumpStream, DumpError> {
        let (head_tx, head_rx) = std::sync::mpsc::sync_channel(1);
        let (pieces_tx, pieces) = std::sync::mpsc::sync_channel(IN_FLIGHT);
        // An OS thread, not a rayon job: it blocks on the channel (see `source`).
        let decoder = std::thread::spawn(move || parse_any_streamed(&bytes, head_tx, pieces_tx, always));
        match head_rx.recv() {
            // Decoded whole (it would not stream): what `Dump::parse` gives, validated.
            Ok(Head { version, game_id, records, pushbuf: Some(pushbuf), .. }) => {
                join(decoder)?;
                let dump = Dump { version, game_id, records, pushbuf };
                dump.validate()?;
                Ok(Self::whole(dump))
            }
            Ok(Head { version, game_id, records, push_len, pushbuf: None }) => Ok(DumpStream {
                version,
                game_id,
                records,
                pushbuf_len: push_len,
                feed: Feed::Decoding { pieces, decoder },
            }),
            // No head: the header or the command block failed (a decoder that succeeds
            // has sent it first).
            Err(_) => Err(match join(decoder) {
                Err(e) => e,
                Ok(()) => DumpErrorKind::Truncated { what: "command block", offset: 0, needed: 0, len: 0 },
            }
            .into()),
        }
    }

    /// Wait for the whole pushbuf: the [`Dump`] that [`Dump::parse`] gives for the same
    /// bytes, or its error.
    pub fn complete(self) -> Result<Dump, DumpError> {
        let pushbuf = match self.feed {
            Feed::Whole(p) => p,
            Feed::Decoding { pieces, decoder } => {
                let mut p = Vec::with_capacity(self.pushbuf_len.min(1 << 20));
                for piece in pieces.iter() {
                    p.extend_from_slice(&piece);
                }
                join(decoder)?;
                p
            }
        };
        let dump = Dump { version: self.version, game_id: self.game_id, records: self.records, pushbuf };
        dump.validate()?;
        Ok(dump)
    }

    /// Replay on `ge` (fresh: zeroed memory) while the pushbuf arrives, like
    /// [`super::replay`] of the complete dump: the same memory, display and error.
    pub fn replay(self, ge: &mut Ge) -> Result<DisplayBuffer, DumpError> {
        let (pieces, decoder) = match self.feed {
            Feed::Whole(pushbuf) => {
                // Validated by `Dump::parse`.
                let dump = Dump { version: self.version, game_id: self.game_id, records: self.records, pushbuf };
                return super::replay(&dump, ge);
            }
            Feed::Decoding { pieces, decoder } => (pieces, decoder),
        };
        let size = self.pushbuf_len;
        let replayed = if size as u64 > PUSHBUF_LIMIT as u64 {
            // Not placed: drain the pieces so that the decoder finishes (and tells its error).
            pieces.iter().for_each(drop);
            Err(too_large(size))
        } else {
            match ge.mem.backfill(PUSHBUF_ADDR, size, pieces) {
                Ok(()) => validate_records(&self.records, size)
                    .map_err(DumpError::from)
                    .and_then(|()| run_records(self.version, &self.records, Pushbuf::Arriving, ge, None)),
                Err(_) => Err(too_large(size)),
            }
        };
        // Every byte in RAM (the display may show some), the decoder finished.
        ge.mem.end_backfill();
        join(decoder)?;
        replayed.map(|s| s.display)
    }

    /// [`DumpStream::replay`] and capture the display it ends on (like
    /// [`super::replay_image`]).
    pub fn replay_image(self, ge: &mut Ge) -> Result<crate::display::Image, DumpError> {
        let display = self.replay(ge)?;
        Ok(display.capture(&ge.mem))
    }
}

/// The decoder's result (its panic resumed here).
fn join(decoder: JoinHandle<Result<(), DumpErrorKind>>) -> Result<(), DumpErrorKind> {
    decoder.join().unwrap_or_else(|p| std::panic::resume_unwind(p))
}

#[cfg(test)]
mod tests {
    use super::super::RecordKind;
    use super::*;
    use crate::cmd::op;
    use crate::mem::{Memory, RAM_BASE, RAM_SIZE, VRAM_BASE, VRAM_SIZE};
    use crate::scenes::{prim, vt};
    use proptest::prelude::*;

    fn w(cmd: u8, arg: u32) -> u32 {
        (u32::from(cmd) << 24) | (arg & 0x00FF_FFFF)
    }

    /// A dump whose early records read the pushbuf's last bytes: vertices, indices and a
    /// texture (through a TEXTURE record shorter than the texture) placed after `noise`,
    /// FRAMEBUF, CLUT and MEMCPYDATA data written to VRAM and to RAM still arriving, a
    /// transfer from there into the displayed buffer and one from VRAM over them (a
    /// write into the part still arriving), then a DISPLAY.
    fn reaching_dump(noise: &[u8], colours: &[u32], tex: &[u8; 16 * 16 * 4]) -> Dump {
        let mut pushbuf = vec![0u8; 2048];
        let mut records = vec![Record { kind: RecordKind::Init, ptr: 0, sz: 2048 }];
        let put = |p: &mut Vec<u8>, bytes: &[u8]| {
            p.resize(p.len().next_multiple_of(16), 0);
            let at = p.len() as u32;
            p.extend_from_slice(bytes);
            at
        };
        let display = put(&mut pushbuf, &[0, 0, 0, 4, 0, 2, 0, 0, 3, 0, 0, 0]);
        // Early: the records' own bytes (REGISTERS) come first; their targets are placed last.
        let regs_at = put(&mut pushbuf, &[0u8; 4 * 64]);
        let uv_at = put(&mut pushbuf, &[0u8; 2 * 16]);
        put(&mut pushbuf, noise);
        // Late: rectangles (colour, x, y, z) two vertices each, indices, the texture.
        let mut verts = Vec::new();
        for (k, &c) in colours.iter().enumerate() {
            let (x, y) = ((k % 20) as i16 * 24, (k / 20) as i16 * 24);
            for (dx, dy) in [(0, 0), (20, 20)] {
                verts.extend_from_slice(&c.to_le_bytes());
                verts.extend_from_slice(&(x + dx).to_le_bytes());
                verts.extend_from_slice(&(y + dy).to_le_bytes());
                verts.extend_from_slice(&[0, 0, 0, 0]);
            }
        }
        let verts_at = put(&mut pushbuf, &verts);
        let n = 2 * colours.len() as u16;
        let idx: Vec<u8> = (0..n).rev().flat_map(|i| (i ^ 1).to_le_bytes()).collect();
        let idx_at = put(&mut pushbuf, &idx);
        let tex_at = put(&mut pushbuf, tex);
        let a = |off: u32| PUSHBUF_ADDR + off;
        // Late data that records write to memory at once: FRAMEBUF7 into VRAM and into the
        // RAM still arriving (over the noise's end), a VRAM CLUT, a MEMCPYDATA into VRAM.
        let pattern =
            |n: usize, k: u8| (0..n).map(|i| (i as u8).wrapping_mul(k) ^ tex[i % tex.len()]).collect::<Vec<_>>();
        let noise_end = a(uv_at + 32 + noise.len() as u32).saturating_sub(64);
        let mut data_records = Vec::new();
        for (dest, n, k) in [(0x0410_0000, 2048, 3), (noise_end, 96, 5)] {
            let mut fb = [dest.to_le_bytes(), 64u32.to_le_bytes(), [0; 4], [0; 4]].concat();
            fb.extend_from_slice(&pattern(n, k));
            data_records.push(Record {
                kind: RecordKind::Framebuf(7),
                ptr: put(&mut pushbuf, &fb),
                sz: fb.len() as u32,
            });
        }
        let clut_addr = [0x0418_0000u32.to_le_bytes(), [0; 4]].concat();
        data_records.push(Record { kind: RecordKind::ClutAddr, ptr: put(&mut pushbuf, &clut_addr), sz: 8 });
        data_records.push(Record { kind: RecordKind::Clut, ptr: put(&mut pushbuf, &pattern(64, 7)), sz: 64 });
        let memcpy_dest = 0x041C_0000u32.to_le_bytes();
        data_records.push(Record { kind: RecordKind::MemcpyDest, ptr: put(&mut pushbuf, &memcpy_dest), sz: 4 });
        data_records.push(Record { kind: RecordKind::MemcpyData, ptr: put(&mut pushbuf, &pattern(256, 11)), sz: 256 });
        records.extend(data_records);
        // Textured sprite's vertices (u16 uv, u32 colour, s16 xyz): early.
        let mut uv = Vec::new();
        for (u, x) in [(0u16, 100i16), (16, 260)] {
            uv.extend_from_slice(&u.to_le_bytes());
            uv.extend_from_slice(&u.to_le_bytes());
            uv.extend_from_slice(&u32::MAX.to_le_bytes());
            uv.extend_from_slice(&x.to_le_bytes());
            uv.extend_from_slice(&(x / 2).to_le_bytes());
            uv.extend_from_slice(&0i16.to_le_bytes());
            uv.extend_from_slice(&[0, 0]);
        }
        pushbuf[uv_at as usize..uv_at as usize + uv.len()].copy_from_slice(&uv);
        let base = (a(0) >> 8) & 0xFF_0000;
        let words1 = [
            w(op::FRAMEBUFPTR, 0),
            w(op::FRAMEBUFWIDTH, 512),
            w(op::FRAMEBUFPIXFORMAT, 3),
            w(op::SCISSOR1, 0),
            w(op::SCISSOR2, (271 << 10) | 479),
            w(op::REGION1, 0),
            w(op::REGION2, (271 << 10) | 479),
            w(op::BASE, base),
            // Indexed first: its vertices are filled up to the largest index.
            w(op::VERTEXTYPE, vt::THROUGH | vt::COL_8888 | vt::POS_S16 | vt::IDX_U16),
            w(op::VADDR, a(verts_at)),
            w(op::IADDR, a(idx_at)),
            w(op::PRIM, (prim::RECTANGLES << 16) | u32::from(n)),
            w(op::VERTEXTYPE, vt::THROUGH | vt::COL_8888 | vt::POS_S16),
            w(op::VADDR, a(verts_at)),
            w(op::PRIM, (prim::RECTANGLES << 16) | u32::from(n)),
            // The texture's top rows into VRAM row 200 on.
            w(op::TRANSFERSRC, a(tex_at)),
            w(op::TRANSFERSRCW, ((a(tex_at) >> 8) & 0xFF_0000) | 16),
            w(op::TRANSFERDST, 200 * 512 * 4),
            w(op::TRANSFERDSTW, 0x04_0000 | 512),
            w(op::TRANSFERSRCPOS, 0),
            w(op::TRANSFERDSTPOS, 0),
            w(op::TRANSFERSIZE, (7 << 10) | 15),
            w(op::TRANSFERSTART, 1),
        ];
        let words2 = [
            w(op::TEXTUREMAPENABLE, 1),
            w(op::TEXFORMAT, 3),
            w(op::TEXSIZE0, 4 | (4 << 8)),
            w(op::TEXBUFWIDTH0, 16),
            w(op::TEXFUNC, 0),
            w(op::VERTEXTYPE, vt::THROUGH | vt::TC_U16 | vt::COL_8888 | vt::POS_S16),
            w(op::VADDR, a(uv_at)),
            w(op::PRIM, (prim::RECTANGLES << 16) | 2),
            w(op::TEXTUREMAPENABLE, 0),
            // VRAM rows 0..4 over the last texture rows (the part still arriving).
            w(op::TRANSFERSRC, 0),
            w(op::TRANSFERSRCW, 0x04_0000 | 512),
            w(op::TRANSFERDST, a(tex_at) + 12 * 64),
            w(op::TRANSFERDSTW, ((a(tex_at) >> 8) & 0xFF_0000) | 16),
            w(op::TRANSFERSIZE, (3 << 10) | 15),
            w(op::TRANSFERSTART, 1),
        ];
        let mut at = regs_at as usize;
        for (k, ws) in [&words1[..], &words2[..]].into_iter().enumerate() {
            let bytes: Vec<u8> = ws.iter().flat_map(|x| x.to_le_bytes()).collect();
            pushbuf[at..at + bytes.len()].copy_from_slice(&bytes);
            if k == 1 {
                records.push(Record { kind: RecordKind::Texture(0), ptr: tex_at, sz: 16 });
            }
            records.push(Record { kind: RecordKind::Registers, ptr: at as u32, sz: bytes.len() as u32 });
            at += bytes.len();
        }
        records.push(Record { kind: RecordKind::Display, ptr: display, sz: 12 });
        Dump { version: 6, game_id: "REACH".into(), records, pushbuf }
    }

    /// What a replay leaves: RAM, VRAM and the display, or the error text.
    fn outcome(ge: &Ge, r: Result<DisplayBuffer, DumpError>) -> Result<(Vec<u8>, Vec<u8>, DisplayBuffer), String> {
        let d = r.map_err(|e| e.to_string())?;
        let mem: &Memory = &ge.mem;
        let ram = mem.slice(RAM_BASE, RAM_SIZE).unwrap().to_vec();
        let vram = mem.slice(VRAM_BASE, VRAM_SIZE).unwrap().to_vec();
        Ok((ram, vram, d))
    }

    fn fresh(model: crate::Model, threads: usize) -> Ge {
        let mut ge = Ge::with_model(model);
        ge.set_threads(threads);
        ge
    }

    /// The plain reading: the dump parsed whole, then replayed.
    fn plain(bytes: &[u8], model: crate::Model, threads: usize) -> Result<(Vec<u8>, Vec<u8>, DisplayBuffer), String> {
        let mut ge = fresh(model, threads);
        let r = Dump::parse(bytes).and_then(|d| super::super::replay(&d, &mut ge));
        outcome(&ge, r)
    }

    fn streamed(
        bytes: &[u8],
        model: crate::Model,
        threads: usize,
    ) -> Result<(Vec<u8>, Vec<u8>, DisplayBuffer), String> {
        let mut ge = fresh(model, threads);
        let r = DumpStream::streamed(bytes.to_vec()).and_then(|d| d.replay(&mut ge));
        outcome(&ge, r)
    }

    fn same(
        a: &Result<(Vec<u8>, Vec<u8>, DisplayBuffer), String>,
        b: &Result<(Vec<u8>, Vec<u8>, DisplayBuffer), String>,
    ) -> bool {
        match (a, b) {
            (Ok(x), Ok(y)) => x.0 == y.0 && x.1 == y.1 && x.2 == y.2,
            (Err(x), Err(y)) => x == y,
            _ => false,
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(12))]
        /// Fed in pieces of any size, the replay leaves the memory and display of the plain
        /// one, for 1, 2 and 4 threads in both models, though its first records read the
        /// pushbuf's last bytes (vertices, indices, a texture, a transfer source) and write
        /// over some of them.
        #[test]
        fn pieces_replay_like_the_whole_pushbuf(
            noise_len in 0usize..200_000,
            colours in proptest::collection::vec(any::<u32>(), 1..40),
            texel in any::<u32>(),
            piece in prop_oneof![1usize..16, 16usize..300_000],
            threads in prop_oneof![Just(1usize), Just(2), Just(4)],
            hardware in any::<bool>(),
        ) {
            let noise: Vec<u8> = (0..noise_len).map(|i| (i as u32).wrapping_mul(2_654_435_761).to_le_bytes()[3]).collect();
            let tex: [u8; 1024] = std::array::from_fn(|i| (texel.rotate_left(i as u32) ^ i as u32) as u8);
            let dump = reaching_dump(&noise, &colours, &tex);
            let model = if hardware { crate::Model::Hardware } else { crate::Model::Ppsspp };
            let mut ge = fresh(model, threads);
            let r = super::super::replay(&dump, &mut ge);
            let want = outcome(&ge, r);
            prop_assert!(want.is_ok());
            // One-byte pieces make too many messages for a large pushbuf.
            let piece = if dump.pushbuf.len() > 60_000 { piece.max(64) } else { piece };
            let (tx, rx) = std::sync::mpsc::sync_channel(4);
            let mut ge = fresh(model, threads);
            let got = std::thread::scope(|s| {
                let pieces = dump.pushbuf.chunks(piece).map(<[u8]>::to_vec).collect::<Vec<_>>();
                s.spawn(move || pieces.into_iter().try_for_each(|p| tx.send(p)));
                ge.mem.backfill(PUSHBUF_ADDR, dump.pushbuf.len(), rx).unwrap();
                let r = run_records(dump.version, &dump.records, Pushbuf::Arriving, &mut ge, None);
                ge.mem.end_backfill();
                outcome(&ge, r.map(|s| s.display))
            });
            prop_assert!(same(&got, &want), "{:?} != {:?}", got.as_ref().err(), want.as_ref().err());
        }

        /// A written dump (plain or zipped) opened as a stream replays like the parsed one,
        /// whole, cut short, or with a byte changed (the pushbuf block's last bytes
        /// included): the same memory, or the same error.
        #[test]
        fn streams_replay_like_parsed_dumps(
            noise_len in 0usize..300_000,
            colours in proptest::collection::vec(any::<u32>(), 1..40),
            edit in 0u8..4,
            at in any::<proptest::sample::Index>(),
            xor in 1u8..=255,
            zipped in any::<bool>(),
            threads in prop_oneof![Just(1usize), Just(2), Just(4)],
        ) {
            let noise: Vec<u8> = (0..noise_len).map(|i| (i as u32).wrapping_mul(2_654_435_761).to_le_bytes()[3]).collect();
            let mut bytes = reaching_dump(&noise, &colours, &[7; 1024]).to_bytes();
            let at = at.index(bytes.len());
            match edit {
                0 => bytes.truncate(at),
                1 => bytes[at] ^= xor,
                2 => {
                    // Inside the last zstd block of the pushbuf (its checksum, if any).
                    let n = bytes.len();
                    bytes[n - 1 - at % 8.min(n)] ^= xor;
                }
                _ => {}
            }
            if zipped {
                bytes = crate::fuzzing::zip_dump(&bytes);
            }
            let model = crate::Model::Ppsspp;
            let want = plain(&bytes, model, threads);
            let got = streamed(&bytes, model, threads);
            prop_assert!(same(&got, &want), "{:?} != {:?}", got.as_ref().err(), want.as_ref().err());
        }
    }

    #[test]
    fn a_corrupt_last_piece_fails_like_a_corrupt_file() {
        let noise: Vec<u8> = (0..400_000u32).map(|i| i.wrapping_mul(2_654_435_761).to_le_bytes()[3]).collect();
        let mut bytes = reaching_dump(&noise, &[0xFF00_FF00; 8], &[9; 1024]).to_bytes();
        let n = bytes.len();
        bytes[n - 3] ^= 0x40;
        let want = plain(&bytes, crate::Model::Ppsspp, 2).unwrap_err();
        assert!(want.contains("pushbuf block"), "{want}");
        assert_eq!(streamed(&bytes, crate::Model::Ppsspp, 2).unwrap_err(), want);
    }
}
