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
//! decoder; a single-segment pushbuf arrives whole at its end (then the replay waits for
//! it, as before, minus the header and command block).
//!
//! Errors are those of [`Dump::open`] + [`super::replay`]: whatever the replay found (a
//! record outside the pushbuf, a GE error, a payload that never came), the decoder's own
//! error wins when it has one, as it would have stopped the open. So the replay always
//! waits for the whole pushbuf, and a corrupt last piece fails it like a corrupt file.
//! Memory is what it was: the pushbuf once (what has arrived) plus its RAM, and at most
//! [`IN_FLIGHT`] pieces in the channel.

use super::container::{parse_any_streamed, validate_records, Head};
use super::replay::{run_records, Pushbuf, PUSHBUF_ADDR, PUSHBUF_LIMIT};
use super::{Dump, DumpError, DumpErrorKind, Record};
use crate::display::DisplayBuffer;
use crate::exec::Ge;
use std::path::Path;
use std::sync::mpsc::Receiver;
use std::thread::JoinHandle;

/// Pieces (up to 128 KiB each, a zstd block) the decoder may run ahead of the replay.
const IN_FLIGHT: usize = 64;

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
            let d = Dump::parse(&bytes)?;
            let pushbuf_len = d.pushbuf.len();
            return Ok(DumpStream {
                version: d.version,
                game_id: d.game_id,
                records: d.records,
                pushbuf_len,
                feed: Feed::Whole(d.pushbuf),
            });
        }
        Self::streamed(bytes)
    }

    /// [`DumpStream::from_bytes`] with the pushbuf always decoded on a thread, whatever
    /// the size (tests compare both readings).
    pub fn streamed(bytes: Vec<u8>) -> Result<DumpStream, DumpError> {
        let (head_tx, head_rx) = std::sync::mpsc::sync_channel(1);
        let (pieces_tx, pieces) = std::sync::mpsc::sync_channel(IN_FLIGHT);
        // An OS thread, not a rayon job: it blocks on the channel (see `source`).
        let decoder = std::thread::spawn(move || parse_any_streamed(&bytes, head_tx, pieces_tx));
        match head_rx.recv() {
            Ok(Head { version, game_id, records, push_len }) => Ok(DumpStream {
                version,
                game_id,
                records,
                pushbuf_len: push_len,
                feed: Feed::Decoding { pieces, decoder },
            }),
            // No head: the header or the command block failed.
            Err(_) => Err(join(decoder)
                .err()
                .unwrap_or_else(|| DumpErrorKind::Truncated { what: "command block", offset: 0, needed: 0, len: 0 })
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
            Err(DumpErrorKind::PushbufTooLarge { size, base: PUSHBUF_ADDR, limit: PUSHBUF_LIMIT }.into())
        } else {
            match ge.mem.backfill(PUSHBUF_ADDR, size, pieces) {
                Ok(()) => validate_records(&self.records, size)
                    .map_err(DumpError::from)
                    .and_then(|()| run_records(self.version, &self.records, Pushbuf::Arriving, ge, None)),
                Err(_) => Err(DumpErrorKind::PushbufTooLarge { size, base: PUSHBUF_ADDR, limit: PUSHBUF_LIMIT }.into()),
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
