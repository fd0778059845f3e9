//! Where the container parser reads a `.ppdmp` from: the whole file in memory, or the
//! bytes of a zip entry that another thread is still inflating.
//!
//! Opening a zipped dump is two serial decoders in a row: deflate (the zip entry) and
//! then zstd or snappy (the two blocks inside it). Callgrind on 15875 (8.3 MiB pushbuf):
//! inflate 62 M instructions, zstd 406 M, everything else under 2 M. The zip crate
//! inflates on a producer thread while the parser decodes the blocks from the part that
//! has arrived, so the inflate leaves the critical path: the opening thread's count on
//! 15875 went from 500 M to 426 M (67 M on the inflate thread), 6–18% less on every zstd
//! dump of the corpus. Snappy dumps (v2–v4) gain nothing: raw snappy needs its whole
//! block, so the parser waits for the inflate. On a loaded machine (more runnable
//! threads than cores) the second thread buys nothing either.
//!
//! The parser sees the same bytes in the same order as from a whole buffer and reports
//! the same errors: it waits for bytes it needs ([`Source::have`]), a short stream is the
//! same truncation as a short file (its length known once the stream has ended), and any
//! error of the zip layer wins over what the parser found, as when the entry was
//! inflated first. Memory is what it was: the inflated entry is kept whole (bounded by
//! the entry cap), plus at most [`IN_FLIGHT`] chunks in the channel.
//!
//! A scoped OS thread rather than a rayon job: the parser blocks on the channel, which a
//! rayon job must not do on a pool that may have one thread (it could be waiting for
//! the very job that feeds it).

use super::DumpErrorKind;
use std::io::Read;
use std::sync::mpsc::{Receiver, SyncSender};

/// Inflated bytes per message: a zstd block is at most 128 KiB compressed, so the
/// parser starts on the first block after one chunk.
pub(super) const CHUNK: usize = 64 << 10;
/// Chunks the producer may run ahead of the parser.
const IN_FLIGHT: usize = 16;

/// One message of the producer: inflated bytes, or the zip error that ends the stream.
pub(super) type Piece = Result<Vec<u8>, DumpErrorKind>;

/// The `.ppdmp` bytes as far as they are known.
pub(super) enum Source<'a> {
    Whole(&'a [u8]),
    Stream(Stream),
}

pub(super) struct Stream {
    buf: Vec<u8>,
    rx: Receiver<Piece>,
    ended: bool,
    error: Option<DumpErrorKind>,
}

impl Source<'_> {
    /// A stream fed by the sender of the returned pair; `capacity` is what the buffer
    /// starts with (the entry's declared size, capped).
    pub(super) fn channel(capacity: usize) -> (SyncSender<Piece>, Source<'static>) {
        let (tx, rx) = std::sync::mpsc::sync_channel(IN_FLIGHT);
        (tx, Source::Stream(Stream { buf: Vec::with_capacity(capacity), rx, ended: false, error: None }))
    }

    /// Whether bytes `..end` are there, waiting for the producer if they may still come.
    pub(super) fn have(&mut self, end: usize) -> bool {
        match self {
            Source::Whole(b) => end <= b.len(),
            Source::Stream(s) => {
                while s.buf.len() < end && !s.ended {
                    match s.rx.recv() {
                        Ok(Ok(chunk)) => s.buf.extend_from_slice(&chunk),
                        Ok(Err(e)) => {
                            s.error = Some(e);
                            s.ended = true;
                        }
                        // The producer is done (it drops the sender after the last piece).
                        Err(_) => s.ended = true,
                    }
                }
                s.buf.len() >= end
            }
        }
    }

    /// The bytes that have arrived.
    pub(super) fn bytes(&self) -> &[u8] {
        match self {
            Source::Whole(b) => b,
            Source::Stream(s) => &s.buf,
        }
    }

    /// The whole length, once everything has arrived (waits for the end of a stream).
    pub(super) fn total_len(&mut self) -> usize {
        self.have(usize::MAX);
        self.bytes().len()
    }

    /// Wait for the end of the stream and hand back the producer's error, if it had one.
    pub(super) fn finish(&mut self) -> Option<DumpErrorKind> {
        self.have(usize::MAX);
        match self {
            Source::Whole(_) => None,
            Source::Stream(s) => s.error.take(),
        }
    }
}

/// `Read` over `src[pos..end]` (one compressed block) that waits for bytes still on
/// their way; it reads short only where the stream ended before `end`.
pub(super) struct BlockReader<'s, 'a> {
    pub src: &'s mut Source<'a>,
    pub pos: usize,
    pub end: usize,
}

impl BlockReader<'_, '_> {
    /// Up to `n` bytes from `pos` without consuming them (fewer at the block's or the
    /// stream's end).
    pub(super) fn peek(&mut self, n: usize) -> &[u8] {
        let want = self.end.min(self.pos.saturating_add(n));
        self.src.have(want);
        let b = self.src.bytes();
        &b[self.pos.min(b.len())..want.min(b.len())]
    }

    pub(super) fn is_empty(&self) -> bool {
        self.pos >= self.end
    }
}

impl Read for BlockReader<'_, '_> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let got = self.peek(out.len());
        let n = got.len();
        out[..n].copy_from_slice(got);
        self.pos += n;
        Ok(n)
    }
}

/// Inflate `entry` of `zip` into `tx` in [`CHUNK`]s, ending with the zip error if there
/// is one. Reads at most `declared + 1` bytes and checks the count, like a whole read.
pub(super) fn inflate_entry(
    mut zip: zip::ZipArchive<std::io::Cursor<&[u8]>>,
    entry: usize,
    max: u64,
    tx: &SyncSender<Piece>,
) {
    let mut run = || -> Result<(), DumpErrorKind> {
        let zerr = |e: zip::result::ZipError| DumpErrorKind::Zip(e.to_string());
        let f = zip.by_index(entry).map_err(zerr)?;
        let name = f.name().to_string();
        let declared = f.size();
        if declared > max {
            return Err(DumpErrorKind::Zip(format!(
                "entry {name:?} declares {declared} bytes, above the limit of {max}"
            )));
        }
        let mut f = f.take(declared + 1);
        let mut total = 0u64;
        loop {
            // Up to CHUNK bytes, fewer only at the end of the entry.
            let mut chunk = Vec::with_capacity(CHUNK);
            (&mut f)
                .take(CHUNK as u64)
                .read_to_end(&mut chunk)
                .map_err(|e| DumpErrorKind::Zip(format!("entry {name:?}: {e}")))?;
            if chunk.is_empty() {
                break;
            }
            total += chunk.len() as u64;
            if tx.send(Ok(chunk)).is_err() {
                return Ok(()); // the parser is gone (it only leaves early by unwinding)
            }
        }
        if total != declared {
            return Err(DumpErrorKind::Zip(format!("entry {name:?} holds {total} bytes, declares {declared}")));
        }
        Ok(())
    };
    if let Err(e) = run() {
        let _ = tx.send(Err(e));
    }
}
