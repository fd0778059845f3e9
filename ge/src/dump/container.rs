//! The `.ppdmp` container: header, compressed blocks, records, zip wrapping, writer.
//!
//! Layout (`docs/ppdmp-format.md` §2): magic `PPSSPPGE`, version u32, for v4+ a 9-byte
//! game ID and 3 pad bytes; then `N` (record count), `B` (pushbuf size), and two
//! length-prefixed compressed blocks (N × 9 record bytes, B pushbuf bytes). v2–v4 use raw
//! snappy, v5–v6 zstd [PP Playback.cpp LoadReplay/ReadCompressed]. PPSSPP refuses a dump
//! whose blocks do not decompress to exactly the declared sizes; so do we. Bytes after
//! block 2 are ignored, as PPSSPP never reads them.
//!
//! Hostile input: `N × 9` and `B` are capped before allocating, zstd frames declaring a
//! window or content size beyond what is still expected are refused up front, and
//! decoding stops as soon as the output would pass the declared size.
//!
//! A zip entry is parsed while another thread is still inflating it (`source`): zstd
//! blocks are decoded from the bytes that have arrived, with the same bytes, errors and
//! limits as from a whole buffer.

use super::source::{inflate_entry, BlockReader, Source, CHUNK};
use super::{Dump, DumpErrorKind, Record, RecordKind, RECORD_SIZE};
use std::io::Write;
use std::sync::mpsc::SyncSender;

/// Cap on the decompressed command array (N × 9 bytes): 1.86 M records, 35× the most any
/// shared dump has (53 716). README "Limits"; tested by `tests/limits.rs`.
pub const MAX_COMMAND_BYTES: u64 = 16 << 20;
/// Cap on the decompressed pushbuf: PSP RAM, the most replay could map (the largest shared
/// pushbuf is 8.3 MiB). Keeps one input's peak allocation under 256 MiB (README "Limits").
pub const MAX_PUSHBUF_BYTES: u64 = 32 << 20;
/// Cap on a `.ppdmp` extracted from a zip: both blocks at their caps plus worst-case
/// compression overhead and headers.
const MAX_ZIP_ENTRY_BYTES: u64 = MAX_COMMAND_BYTES + MAX_PUSHBUF_BYTES + (16 << 20);

const MAGIC: &[u8; 8] = b"PPSSPPGE";
const MIN_VERSION: u32 = 2;
const MAX_VERSION: u32 = 6;

type Res<T> = Result<T, DumpErrorKind>;

/// Plain `.ppdmp` or zip, by content (PPSSPP identifies both by magic).
pub(super) fn parse_any(bytes: &[u8]) -> Res<Dump> {
    if bytes.starts_with(b"PK") {
        parse_zip(bytes, |src| parse_with(src, SPLIT_COMMAND_BLOCK))
    } else {
        parse(&mut Source::Whole(bytes))
    }
}

struct Cursor<'s, 'a> {
    src: &'s mut Source<'a>,
    pos: usize,
}

impl Cursor<'_, '_> {
    /// The error for `n` bytes at `pos` that the file does not have (its length is
    /// final: a stream has ended when `have` says no).
    fn truncated(&mut self, n: u64, what: &'static str) -> DumpErrorKind {
        DumpErrorKind::Truncated { what, offset: self.pos as u64, needed: n, len: self.src.total_len() as u64 }
    }

    /// The range of the next `n` bytes, once they are there.
    fn take(&mut self, n: u64, what: &'static str) -> Res<std::ops::Range<usize>> {
        let end = usize::try_from(n).ok().and_then(|n| self.pos.checked_add(n));
        match end {
            Some(end) if self.src.have(end) => {
                let r = self.pos..end;
                self.pos = end;
                Ok(r)
            }
            _ => Err(self.truncated(n, what)),
        }
    }

    fn u32(&mut self, what: &'static str) -> Res<u32> {
        let r = self.take(4, what)?;
        let b = &self.src.bytes()[r];
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
}

/// A zstd command block of at least this many compressed bytes is decoded on its own
/// thread beside the pushbuf block: 7–9% of the opening thread's work on 11216, 21763
/// and 21776 (callgrind), well above the cost of a thread.
const SPLIT_COMMAND_BLOCK: usize = 8 << 10;

/// Decode a `.ppdmp` from `src`.
fn parse(src: &mut Source<'_>) -> Res<Dump> {
    parse_with(src, SPLIT_COMMAND_BLOCK)
}

/// What the header says (§2.1, §2.2).
struct Header {
    version: u32,
    game_id: String,
    /// Bytes of the decompressed command block (N × 9).
    cmd_len: usize,
    /// Bytes of the decompressed pushbuf.
    push_len: usize,
}

fn read_header(c: &mut Cursor<'_, '_>) -> Res<Header> {
    let magic = c.take(8, "header magic")?;
    let magic = &c.src.bytes()[magic];
    if magic != MAGIC {
        return Err(DumpErrorKind::BadMagic { found: String::from_utf8_lossy(magic).into_owned() });
    }
    let version = c.u32("header version")?;
    if !(MIN_VERSION..=MAX_VERSION).contains(&version) {
        return Err(DumpErrorKind::UnsupportedVersion { version });
    }
    // v2–v3: 12-byte header; v4+: 24 bytes with the game ID [PP Playback.cpp LoadReplay].
    let game_id = if version >= 4 {
        let id = c.take(12, "v4+ header game ID")?;
        let id = &c.src.bytes()[id][..9];
        let len = id.iter().position(|&b| b == 0).unwrap_or(9);
        String::from_utf8_lossy(&id[..len]).into_owned()
    } else {
        String::new()
    };
    let count_at = c.pos as u64;
    let count = c.u32("record count")?;
    let cmd_bytes = count as u64 * RECORD_SIZE as u64;
    if cmd_bytes > MAX_COMMAND_BYTES {
        return Err(DumpErrorKind::TooLarge {
            what: "record count",
            offset: count_at,
            value: count as u64,
            limit: MAX_COMMAND_BYTES / RECORD_SIZE as u64,
        });
    }
    let bufsz_at = c.pos as u64;
    let bufsz = c.u32("pushbuf size")?;
    if bufsz as u64 > MAX_PUSHBUF_BYTES {
        return Err(DumpErrorKind::TooLarge {
            what: "pushbuf size",
            offset: bufsz_at,
            value: bufsz as u64,
            limit: MAX_PUSHBUF_BYTES,
        });
    }
    Ok(Header { version, game_id, cmd_len: cmd_bytes as usize, push_len: bufsz as usize })
}

/// [`parse`], splitting off zstd command blocks of `split` compressed bytes or more.
fn parse_with(src: &mut Source<'_>, split: usize) -> Res<Dump> {
    let mut c = Cursor { src, pos: 0 };
    let h = read_header(&mut c)?;
    let (cmds, pushbuf) = read_blocks(&mut c, h.version, h.cmd_len, h.push_len, split)?;
    let records = decode_records(&cmds);
    validate_records(&records, pushbuf.len())?;
    Ok(Dump { version: h.version, game_id: h.game_id, records, pushbuf })
}

/// A dump without its pushbuf: what a replay needs before the first record.
pub(super) struct Head {
    pub version: u32,
    pub game_id: String,
    /// Not validated yet ([`validate_records`] against `push_len`).
    pub records: Vec<Record>,
    pub push_len: usize,
    /// The whole pushbuf, decoded before the head was sent, when streaming it would not
    /// pay ([`pushbuf_streams`]); `None` when it comes in pieces.
    pub pushbuf: Option<Vec<u8>>,
}

/// The little-endian u32 at `at`, if the file has it (waits for a stream's bytes).
fn peek_u32(c: &mut Cursor<'_, '_>, at: usize) -> Option<u32> {
    let mut r = BlockReader { src: &mut *c.src, pos: at, end: at.checked_add(4)? };
    Some(u32::from_le_bytes(r.peek(4).try_into().ok()?))
}

/// Whether the pushbuf block after the command block at `c.pos` can arrive in pieces: a
/// zstd frame that is not single-segment. ruzstd hands out a single-segment frame only
/// at its end, and snappy (v2–v4) decodes whole, so for those the replay would only wait
/// (measured, idle, 2 threads: 10914 13.2 -> 16.7 ms, 11216 67.7 -> 73.2 ms streamed),
/// and the plain open decodes a large command block beside the pushbuf instead.
fn pushbuf_streams(c: &mut Cursor<'_, '_>, version: u32) -> bool {
    if version < 5 {
        return false;
    }
    let Some(cmd) = peek_u32(c, c.pos) else { return false };
    let Some(at) = c.pos.checked_add(4).and_then(|p| p.checked_add(cmd as usize)) else { return false };
    let Some(len) = peek_u32(c, at) else { return false };
    let start = at + 4;
    let mut r = BlockReader { src: &mut *c.src, pos: start, end: start.saturating_add(len as usize) };
    zstd_frame_info(r.peek(18)).is_some_and(|i| !i.single_segment)
}

/// [`parse_with`] (command block decoded first, no split), handing the header and records
/// to `head` as soon as they are decoded and the pushbuf to `pieces` as it is decoded.
/// Records are left to the receiver to validate; every other error is the one
/// [`parse_with`] gives. A pushbuf that would not stream ([`pushbuf_streams`]) is decoded
/// as [`parse_with`] does and sent whole with the head.
fn parse_streamed(src: &mut Source<'_>, head: &SyncSender<Head>, pieces: &mut Pieces, always: bool) -> Res<()> {
    let mut c = Cursor { src, pos: 0 };
    let h = read_header(&mut c)?;
    if !always && !pushbuf_streams(&mut c, h.version) {
        let (cmds, pushbuf) = read_blocks(&mut c, h.version, h.cmd_len, h.push_len, SPLIT_COMMAND_BLOCK)?;
        let records = decode_records(&cmds);
        let _ = head.send(Head {
            version: h.version,
            game_id: h.game_id,
            records,
            push_len: h.push_len,
            pushbuf: Some(pushbuf),
        });
        return Ok(());
    }
    let mut cmds = Vec::new();
    read_block(&mut c, h.version, h.cmd_len, "command block", &mut cmds)?;
    let records = decode_records(&cmds);
    // The receiver may be gone (it stopped); the pushbuf is still decoded for its error.
    let _ = head.send(Head { version: h.version, game_id: h.game_id, records, push_len: h.push_len, pushbuf: None });
    read_block(&mut c, h.version, h.push_len, "pushbuf block", pieces)
}

/// Decode `bytes` (plain or zip, like [`parse_any`]) handing its header and records to
/// `head` and its pushbuf in pieces to `pieces` (`always`, or when [`pushbuf_streams`];
/// else whole in the head); the error is the one [`parse_any`] gives, record validation
/// left out.
pub(super) fn parse_any_streamed(
    bytes: &[u8],
    head: SyncSender<Head>,
    pieces: SyncSender<Vec<u8>>,
    always: bool,
) -> Res<()> {
    let mut pieces = Pieces { tx: pieces, sent: 0 };
    if bytes.starts_with(b"PK") {
        parse_zip(bytes, |src| parse_streamed(src, &head, &mut pieces, always))
    } else {
        parse_streamed(&mut Source::Whole(bytes), &head, &mut pieces, always)
    }
}

/// The 9-byte records (type, size, pointer) of a command block; a ragged tail is ignored.
pub(crate) fn decode_records(cmds: &[u8]) -> Vec<Record> {
    cmds.chunks_exact(RECORD_SIZE)
        .map(|r| Record {
            kind: RecordKind::from_byte(r[0]),
            sz: u32::from_le_bytes([r[1], r[2], r[3], r[4]]),
            ptr: u32::from_le_bytes([r[5], r[6], r[7], r[8]]),
        })
        .collect()
}

/// Every payload inside the pushbuf; fixed-size payloads the right size; REGISTERS whole
/// words (PPSSPP copies a ragged tail into its list and misaligns everything after it).
pub(super) fn validate_records(records: &[Record], pushbuf_len: usize) -> Res<()> {
    for (index, r) in records.iter().enumerate() {
        let end = r.ptr as u64 + r.sz as u64;
        if end > pushbuf_len as u64 {
            return Err(DumpErrorKind::RecordOutOfBounds {
                index,
                kind: r.kind.name(),
                ptr: r.ptr,
                sz: r.sz,
                pushbuf: pushbuf_len,
            });
        }
        let bad_size = match r.kind.fixed_size() {
            Some((n, true)) if r.sz != n => Some(format!("exactly {n}")),
            Some((n, false)) if r.sz < n => Some(format!("at least {n}")),
            _ if r.kind == RecordKind::Registers && r.sz % 4 != 0 => Some("a multiple of 4".to_string()),
            _ => None,
        };
        if let Some(expected) = bad_size {
            return Err(DumpErrorKind::RecordSize { index, kind: r.kind.name(), sz: r.sz, expected });
        }
    }
    Ok(())
}

/// The command and pushbuf blocks. A zstd command block of `split` compressed bytes or
/// more is decoded from a copy on a second thread while this one decodes the pushbuf
/// block; its errors still come first, as when the blocks are decoded in file order.
fn read_blocks(
    c: &mut Cursor<'_, '_>,
    version: u32,
    cmd_len: usize,
    push_len: usize,
    split: usize,
) -> Res<(Vec<u8>, Vec<u8>)> {
    const CMD: &str = "command block";
    if version >= 5 {
        let at = c.pos;
        let len = c.u32(CMD)?;
        if len as usize >= split {
            let offset = c.pos as u64;
            let data = c.take(len as u64, CMD)?;
            let data = c.src.bytes()[data].to_vec();
            return std::thread::scope(|s| {
                let cmds = s.spawn(|| zstd_whole(&data, cmd_len, CMD, offset));
                let mut pushbuf = Vec::new();
                let decoded = read_block(c, version, push_len, "pushbuf block", &mut pushbuf);
                let cmds = cmds.join().unwrap_or_else(|p| std::panic::resume_unwind(p))?;
                decoded.map(|()| (cmds, pushbuf))
            });
        }
        c.pos = at;
    }
    let (mut cmds, mut pushbuf) = (Vec::new(), Vec::new());
    read_block(c, version, cmd_len, CMD, &mut cmds)?;
    read_block(c, version, push_len, "pushbuf block", &mut pushbuf)?;
    Ok((cmds, pushbuf))
}

/// Where a decoded block goes: a buffer, or pieces on their way to a replay.
trait Out: Write {
    /// Bytes taken so far.
    fn taken(&self) -> usize;
    /// Take a whole decoded buffer.
    fn take_vec(&mut self, v: Vec<u8>) -> std::io::Result<()>;
}

impl Out for Vec<u8> {
    fn taken(&self) -> usize {
        self.len()
    }

    fn take_vec(&mut self, v: Vec<u8>) -> std::io::Result<()> {
        if self.is_empty() {
            *self = v;
        } else {
            self.extend_from_slice(&v);
        }
        Ok(())
    }
}

/// Decoded bytes sent on as they come (a replay fills RAM with them: `Memory::backfill`).
struct Pieces {
    tx: SyncSender<Vec<u8>>,
    sent: usize,
}

impl Write for Pieces {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.take_vec(buf.to_vec())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Out for Pieces {
    fn taken(&self) -> usize {
        self.sent
    }

    fn take_vec(&mut self, v: Vec<u8>) -> std::io::Result<()> {
        let n = v.len();
        if n > 0 {
            self.tx.send(v).map_err(|_| std::io::Error::from(std::io::ErrorKind::BrokenPipe))?;
        }
        self.sent += n;
        Ok(())
    }
}

/// Decode the next length-prefixed block into `out` (exactly `expected` bytes).
fn read_block(
    c: &mut Cursor<'_, '_>,
    version: u32,
    expected: usize,
    block: &'static str,
    out: &mut impl Out,
) -> Res<()> {
    let len = c.u32(block)?;
    let offset = c.pos;
    if version < 5 {
        let data = c.take(len as u64, block)?;
        let v = snappy(&c.src.bytes()[data], expected, block, offset as u64)?;
        return out.take_vec(v).map_err(|e| corrupt_out(block, offset as u64, "snappy", e));
    }
    // zstd decodes the block while later bytes of a stream are still arriving; a block
    // the file does not hold in full is a truncation, whatever the decoder made of it.
    let Some(end) = offset.checked_add(len as usize) else {
        return Err(c.truncated(len as u64, block));
    };
    let decoded = zstd(&mut BlockReader { src: c.src, pos: offset, end }, expected, block, offset as u64, out);
    if decoded.is_err() && !c.src.have(end) {
        return Err(c.truncated(len as u64, block));
    }
    c.pos = end;
    decoded
}

/// The error of a receiver that went away (nobody reads it: the replay stopped).
fn corrupt_out(block: &'static str, offset: u64, codec: &'static str, e: std::io::Error) -> DumpErrorKind {
    DumpErrorKind::Corrupt { block, offset, codec, msg: e.to_string() }
}

fn snappy(data: &[u8], expected: usize, block: &'static str, offset: u64) -> Res<Vec<u8>> {
    let corrupt = |e: snap::Error| DumpErrorKind::Corrupt { block, offset, codec: "snappy", msg: e.to_string() };
    let mismatch = |actual: usize| DumpErrorKind::SizeMismatch {
        block,
        offset,
        codec: "snappy",
        expected: expected as u64,
        actual: actual as u64,
    };
    // The raw format starts with the uncompressed length: check it before allocating.
    let declared = snap::raw::decompress_len(data).map_err(corrupt)?;
    if declared != expected {
        return Err(mismatch(declared));
    }
    let mut out = vec![0u8; expected];
    let n = snap::raw::Decoder::new().decompress(data, &mut out).map_err(corrupt)?;
    if n != expected {
        return Err(mismatch(n));
    }
    Ok(out)
}

/// What a zstd frame header declares (RFC 8878 §3.1.1.1): window size and content size.
struct ZstdFrameInfo {
    window: u64,
    content: Option<u64>,
    single_segment: bool,
}

fn zstd_frame_info(data: &[u8]) -> Option<ZstdFrameInfo> {
    if data.get(..4)? != [0x28, 0xB5, 0x2F, 0xFD] {
        return None;
    }
    let fhd = *data.get(4)?;
    let single_segment = fhd & 0x20 != 0;
    let fcs_len = match fhd >> 6 {
        0 => usize::from(single_segment),
        1 => 2,
        2 => 4,
        _ => 8,
    };
    let did_len = [0usize, 1, 2, 4][(fhd & 3) as usize];
    let mut pos = 5;
    let mut window = 0u64;
    if !single_segment {
        let wd = *data.get(pos)?;
        let log = 10 + u32::from(wd >> 3);
        let base = 1u64 << log;
        window = base + (base / 8) * u64::from(wd & 7);
        pos += 1;
    }
    pos += did_len;
    let content = if fcs_len == 0 {
        None
    } else {
        let b = data.get(pos..pos + fcs_len)?;
        let mut v = 0u64;
        for (i, x) in b.iter().enumerate() {
            v |= u64::from(*x) << (8 * i);
        }
        Some(if fcs_len == 2 { v + 256 } else { v })
    };
    if single_segment {
        window = content.unwrap_or(0);
    }
    Some(ZstdFrameInfo { window, content, single_segment })
}

/// Decode every frame in `input` (like `ZSTD_decompress`) into exactly `expected` bytes.
fn zstd(
    input: &mut BlockReader<'_, '_>,
    expected: usize,
    block: &'static str,
    offset: u64,
    out: &mut impl Out,
) -> Res<()> {
    use ruzstd::decoding::errors::{FrameDecoderError, ReadFrameHeaderError};
    use ruzstd::decoding::{BlockDecodingStrategy, FrameDecoder};
    let corrupt = |msg: String| DumpErrorKind::Corrupt { block, offset, codec: "zstd", msg };
    let oversized = DumpErrorKind::Oversized { block, offset, codec: "zstd", expected: expected as u64 };
    let mut dec = FrameDecoder::new();
    let mut first_frame = true;
    while !input.is_empty() {
        let remaining = (expected - out.taken()) as u64;
        // 18 bytes: the longest frame header (RFC 8878 §3.1.1).
        let header = zstd_frame_info(input.peek(18));
        if let Some(info) = &header {
            if info.content.is_some_and(|n| n > remaining) {
                return Err(oversized);
            }
            // A frame made from `remaining` bytes never needs a window much larger than
            // that; refusing bigger ones bounds the decoder's history buffer.
            if info.window > (8 << 20) && info.window > 2 * remaining.max(1) {
                return Err(corrupt(format!("window of {} bytes for at most {remaining} bytes of data", info.window)));
            }
        }
        if first_frame && header.is_some() {
            // ruzstd sizes its history buffer for the window only when a decoder is reset,
            // not on its first frame, and grows it by doubling (15826's single-segment
            // 594 KB pushbuf: 1.0 M instructions of regrowth copies). Initialising on a
            // copy of the header first makes the real init a reset. The window was bounded
            // above; an error here is left for the real init to report.
            first_frame = false;
            let _ = dec.init(input.peek(18));
        }
        match dec.init(&mut *input) {
            Ok(()) => {}
            Err(FrameDecoderError::ReadFrameHeaderError(ReadFrameHeaderError::SkipFrame { length, .. })) => {
                let skip = usize::try_from(length).ok().and_then(|n| input.pos.checked_add(n));
                match skip {
                    Some(to) if to <= input.end => input.pos = to,
                    _ => return Err(corrupt("truncated skippable frame".into())),
                }
                continue;
            }
            Err(e) => return Err(corrupt(e.to_string())),
        }
        let frame_start = out.taken();
        loop {
            dec.decode_blocks(&mut *input, BlockDecodingStrategy::UptoBlocks(1)).map_err(|e| corrupt(e.to_string()))?;
            // Drain what the decoder no longer needs for history, straight into `out`.
            let n = dec.can_collect();
            if out.taken() + n > expected {
                return Err(oversized);
            }
            dec.collect_to_writer(&mut *out).map_err(|e| corrupt(e.to_string()))?;
            if dec.is_finished() {
                break;
            }
        }
        if let (Some(stored), Some(computed)) = (dec.get_checksum_from_data(), dec.get_calculated_checksum()) {
            if stored != computed {
                return Err(corrupt(format!("checksum {stored:#010x} != computed {computed:#010x}")));
            }
        }
        if let Some(n) = zstd_frame_info_content(&dec) {
            if n != (out.taken() - frame_start) as u64 {
                return Err(corrupt(format!("frame declares {n} bytes, holds {}", out.taken() - frame_start)));
            }
        }
    }
    if out.taken() != expected {
        return Err(DumpErrorKind::SizeMismatch {
            block,
            offset,
            codec: "zstd",
            expected: expected as u64,
            actual: out.taken() as u64,
        });
    }
    Ok(())
}

/// [`zstd`] of a block held whole.
fn zstd_whole(data: &[u8], expected: usize, block: &'static str, offset: u64) -> Res<Vec<u8>> {
    let mut src = Source::Whole(data);
    // Grow with the real output instead of trusting the declared size up front.
    let mut out = Vec::with_capacity(expected.min(1 << 20));
    zstd(&mut BlockReader { src: &mut src, pos: 0, end: data.len() }, expected, block, offset, &mut out)?;
    Ok(out)
}

/// The content size a finished frame declared, if non-zero (ruzstd reports 0 for "absent").
fn zstd_frame_info_content(dec: &ruzstd::decoding::FrameDecoder) -> Option<u64> {
    let n = dec.content_size();
    (n != 0).then_some(n)
}

/// Parse the last `.ppdmp` entry of the central directory, skipping `__MACOSX/` and
/// directories [PP Loaders.cpp DetectZipFileContents], while it is being inflated
/// (module `source`), with `parse`. An entry of one chunk or less is inflated first, without
/// a thread. Like [`finish_stream`], an error of the zip layer wins.
fn parse_zip<T>(bytes: &[u8], parse: impl FnOnce(&mut Source<'static>) -> Res<T>) -> Res<T> {
    let zerr = |e: zip::result::ZipError| DumpErrorKind::Zip(e.to_string());
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).map_err(zerr)?;
    let mut chosen = None;
    for i in 0..zip.len() {
        let f = zip.by_index_raw(i).map_err(zerr)?;
        let lower = f.name().to_ascii_lowercase();
        if f.is_dir() || lower.starts_with("__macosx/") {
            continue;
        }
        if lower.ends_with(".ppdmp") {
            chosen = Some((i, f.size()));
        }
    }
    let (i, declared) = chosen.ok_or(DumpErrorKind::NoDumpInZip { entries: zip.len() })?;
    // Nothing is reserved for an entry above the cap: the producer refuses it first.
    let (tx, mut src) = Source::channel(if declared > MAX_ZIP_ENTRY_BYTES { 0 } else { declared as usize });
    if declared <= CHUNK as u64 {
        // At most two chunks and an error: the channel holds them all.
        inflate_entry(zip, i, MAX_ZIP_ENTRY_BYTES, &tx);
        drop(tx);
        finish_stream(&mut src, parse)
    } else {
        std::thread::scope(|s| {
            s.spawn(move || inflate_entry(zip, i, MAX_ZIP_ENTRY_BYTES, &tx));
            finish_stream(&mut src, parse)
        })
    }
}

/// [`parse_with`] a stream ([`finish_stream`]).
#[cfg(test)]
fn parse_stream(src: &mut Source<'_>, split: usize) -> Res<Dump> {
    finish_stream(src, |src| parse_with(src, split))
}

/// `parse` a stream, then drain it to its end (the producer may still be sending): the
/// producer's error wins, as it would have come before anything was parsed.
fn finish_stream<'a, T>(src: &mut Source<'a>, parse: impl FnOnce(&mut Source<'a>) -> Res<T>) -> Res<T> {
    let parsed = parse(src);
    match src.finish() {
        Some(e) => Err(e),
        None => parsed,
    }
}

/// Bytes of `id` the 9-byte header field takes: whole characters only, so a game ID read
/// lossily (non-UTF-8 bytes become U+FFFD) is never cut inside a character (fuzz `ppdmp`).
pub(crate) fn game_id_len(id: &str) -> usize {
    (0..=id.len().min(9)).rev().find(|&n| id.is_char_boundary(n)).unwrap_or(0)
}

/// Encode `dump` as version 6: 24-byte header, zstd blocks.
pub(super) fn write_v6(dump: &Dump) -> Vec<u8> {
    use ruzstd::encoding::{compress_to_vec, CompressionLevel};
    let mut cmds = Vec::with_capacity(dump.records.len() * RECORD_SIZE);
    for r in &dump.records {
        cmds.push(r.kind.to_byte());
        cmds.extend_from_slice(&r.sz.to_le_bytes());
        cmds.extend_from_slice(&r.ptr.to_le_bytes());
    }
    let c1 = compress_to_vec(&cmds[..], CompressionLevel::Fastest);
    let c2 = compress_to_vec(&dump.pushbuf[..], CompressionLevel::Fastest);
    let mut out = Vec::with_capacity(40 + c1.len() + c2.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&6u32.to_le_bytes());
    let mut id = [0u8; 12];
    let n = game_id_len(&dump.game_id);
    id[..n].copy_from_slice(&dump.game_id.as_bytes()[..n]);
    out.extend_from_slice(&id);
    out.extend_from_slice(&(dump.records.len() as u32).to_le_bytes());
    out.extend_from_slice(&(dump.pushbuf.len() as u32).to_le_bytes());
    out.extend_from_slice(&(c1.len() as u32).to_le_bytes());
    out.extend_from_slice(&c1);
    out.extend_from_slice(&(c2.len() as u32).to_le_bytes());
    out.extend_from_slice(&c2);
    out
}

#[cfg(test)]
mod tests;
