//! PPSSPP GE frame dumps (`.ppdmp`): reading, writing and replaying them.
//!
//! A dump is a header, an array of 9-byte command records and a "push buffer" of raw
//! bytes the records point into (`docs/ppdmp-format.md` §2). The module is split in three:
//!
//! * `container` — the file format: header, snappy (v2–v4) or zstd (v5–v6) blocks,
//!   `.zip` wrapping, and a writer for version-6 files. Every declared size is checked
//!   against a cap *before* anything is allocated or decompressed, decompression stops at
//!   the declared size, and every record's payload is checked to lie inside the pushbuf,
//!   so hostile input yields a [`DumpError`] naming the byte offset or record index.
//! * [`replay`] — feeding the records to a [`crate::Ge`] exactly like PPSSPP's
//!   `DumpExecute` does for the software renderer, including its sync windows (§6.4):
//!   GE words are buffered and executed at PPSSPP's sync points while FRAMEBUF/CLUT VRAM
//!   uploads happen immediately.
//! * `step` — the same replay shown word by word to a hook that may stop it (draw `N`,
//!   pushbuf offset): the frame debugger's stepping.
//! * `stream` — [`DumpStream`]: replaying while the pushbuf is still being decoded on
//!   another thread, its RAM filled as reads reach it.
//! * `source` — the bytes the container parser reads: a whole file, or a zip entry still
//!   being inflated on another thread.
//! * `mapping` — a bookkeeping-only model of PPSSPP's pushbuf-to-RAM slabs, used to find
//!   the sync points. The data itself is mapped contiguously at [`PUSHBUF_ADDR`].

mod container;
mod mapping;
mod record;
mod replay;
mod source;
mod step;
mod stream;

use std::path::{Path, PathBuf};
use thiserror::Error;

pub(crate) use container::{decode_records, game_id_len};
pub use container::{MAX_COMMAND_BYTES, MAX_PUSHBUF_BYTES};
pub use record::{init_payload, Recorder, RECORDER_GAME_ID};
pub use replay::{replay, replay_steps, restore_init, PUSHBUF_ADDR};
pub use step::{is_draw, replay_until, Step, StepHook, Stepped, StopAt};
pub use stream::DumpStream;

/// Replay `dump` on `ge` (fresh: zeroed memory) and capture the display it ends on
/// (§6.6, §8.1): the one replay-to-image step the CLI, tests and benches share.
pub fn replay_image(dump: &Dump, ge: &mut crate::Ge) -> Result<crate::display::Image, DumpError> {
    let display = replay(dump, ge)?;
    Ok(display.capture(&ge.mem))
}

/// Open the dump file at `path` (`.ppdmp`, or `.zip` holding one), replay it on a fresh GE
/// of `model` with `threads` raster threads (0: rayon's global pool) and capture its
/// display, replaying while the pushbuf is decoded ([`DumpStream`]). Errors name the file.
pub fn render_file(
    path: impl AsRef<Path>,
    model: crate::Model,
    threads: usize,
) -> Result<crate::display::Image, DumpError> {
    let path = path.as_ref();
    let dump = DumpStream::open(path)?;
    let mut ge = crate::Ge::with_model(model);
    if threads > 0 {
        ge.set_threads(threads);
    }
    dump.replay_image(&mut ge).map_err(|e| e.in_file(path))
}

/// Size of the INIT payload: 512 words (§3.2).
pub const INIT_SIZE: u32 = 2048;
/// Size of one command record in the command array (§2.5).
pub const RECORD_SIZE: usize = 9;

/// What a command record is (§3.1). Types 12–15 and above 0x1F are unknown: the
/// container accepts them, replay rejects them like PPSSPP does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RecordKind {
    Init,
    Registers,
    Vertices,
    Indices,
    Clut,
    TransferSrc,
    Memset,
    MemcpyDest,
    MemcpyData,
    Display,
    ClutAddr,
    EdramTrans,
    /// TEXTURE0–7 (0x10–0x17): a texture level read from RAM.
    Texture(u8),
    /// FRAMEBUF0–7 (0x18–0x1F): a texture level read from VRAM, with a 16-byte header.
    Framebuf(u8),
    Unknown(u8),
}

impl RecordKind {
    pub fn from_byte(b: u8) -> RecordKind {
        match b {
            0 => RecordKind::Init,
            1 => RecordKind::Registers,
            2 => RecordKind::Vertices,
            3 => RecordKind::Indices,
            4 => RecordKind::Clut,
            5 => RecordKind::TransferSrc,
            6 => RecordKind::Memset,
            7 => RecordKind::MemcpyDest,
            8 => RecordKind::MemcpyData,
            9 => RecordKind::Display,
            10 => RecordKind::ClutAddr,
            11 => RecordKind::EdramTrans,
            0x10..=0x17 => RecordKind::Texture(b - 0x10),
            0x18..=0x1F => RecordKind::Framebuf(b - 0x18),
            _ => RecordKind::Unknown(b),
        }
    }

    pub fn to_byte(self) -> u8 {
        match self {
            RecordKind::Init => 0,
            RecordKind::Registers => 1,
            RecordKind::Vertices => 2,
            RecordKind::Indices => 3,
            RecordKind::Clut => 4,
            RecordKind::TransferSrc => 5,
            RecordKind::Memset => 6,
            RecordKind::MemcpyDest => 7,
            RecordKind::MemcpyData => 8,
            RecordKind::Display => 9,
            RecordKind::ClutAddr => 10,
            RecordKind::EdramTrans => 11,
            RecordKind::Texture(n) => 0x10 + (n & 7),
            RecordKind::Framebuf(n) => 0x18 + (n & 7),
            RecordKind::Unknown(b) => b,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            RecordKind::Init => "INIT",
            RecordKind::Registers => "REGISTERS",
            RecordKind::Vertices => "VERTICES",
            RecordKind::Indices => "INDICES",
            RecordKind::Clut => "CLUT",
            RecordKind::TransferSrc => "TRANSFERSRC",
            RecordKind::Memset => "MEMSET",
            RecordKind::MemcpyDest => "MEMCPYDEST",
            RecordKind::MemcpyData => "MEMCPYDATA",
            RecordKind::Display => "DISPLAY",
            RecordKind::ClutAddr => "CLUTADDR",
            RecordKind::EdramTrans => "EDRAMTRANS",
            RecordKind::Texture(_) => "TEXTURE",
            RecordKind::Framebuf(_) => "FRAMEBUF",
            RecordKind::Unknown(_) => "unknown",
        }
    }

    /// The payload size rule of fixed-size records: `(size, exact)`; `exact == false`
    /// means "at least". `None` for variable-size records.
    pub fn fixed_size(self) -> Option<(u32, bool)> {
        match self {
            RecordKind::Init => Some((INIT_SIZE, true)),
            RecordKind::Display | RecordKind::Memset => Some((12, true)),
            RecordKind::ClutAddr => Some((8, true)),
            RecordKind::MemcpyDest | RecordKind::EdramTrans => Some((4, true)),
            RecordKind::Framebuf(_) => Some((16, false)),
            _ => None,
        }
    }
}

/// One command record: a type and a payload `pushbuf[ptr..ptr + sz]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record {
    pub kind: RecordKind,
    pub ptr: u32,
    pub sz: u32,
}

/// A decoded frame dump. `records` have been checked against `pushbuf` (every payload
/// lies inside it, fixed-size payloads have their size, REGISTERS are whole words).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dump {
    pub version: u32,
    /// Game ID from the v4+ header (empty for v2–v3), NULs stripped.
    pub game_id: String,
    pub records: Vec<Record>,
    pub pushbuf: Vec<u8>,
}

impl Dump {
    /// Decode a `.ppdmp` file, or a `.zip` holding one (the last `.ppdmp` entry in
    /// central-directory order wins, like PPSSPP; §9 item 5).
    pub fn parse(bytes: &[u8]) -> Result<Dump, DumpError> {
        container::parse_any(bytes).map_err(DumpError::from)
    }

    /// Read and decode a file; errors name the file.
    pub fn open(path: impl AsRef<Path>) -> Result<Dump, DumpError> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|e| DumpError::from(DumpErrorKind::Io(e)).in_file(path))?;
        Self::parse(&bytes).map_err(|e| e.in_file(path))
    }

    /// Encode as a version-6 (zstd) `.ppdmp` that [`Dump::parse`] reads back unchanged
    /// (apart from `version`, which becomes 6).
    pub fn to_bytes(&self) -> Vec<u8> {
        container::write_v6(self)
    }

    /// The payload of a record (empty if it does not lie inside the pushbuf, which
    /// [`Dump::parse`] has already excluded).
    pub fn payload(&self, r: &Record) -> &[u8] {
        let start = r.ptr as usize;
        start.checked_add(r.sz as usize).and_then(|end| self.pushbuf.get(start..end)).unwrap_or(&[])
    }

    /// Check every record against the pushbuf and the fixed-size rules (done by `parse`;
    /// public for dumps built in memory).
    pub fn validate(&self) -> Result<(), DumpError> {
        container::validate_records(&self.records, self.pushbuf.len()).map_err(DumpError::from)
    }
}

/// Why a dump could not be read or replayed: the file (when known) and what went wrong
/// where.
#[derive(Debug, Error)]
// The kind's text is part of this message, so it is not also reported as `source()` (error
// chains print each cause once).
#[error("{}{kind}", file_prefix(.file))]
pub struct DumpError {
    pub file: Option<PathBuf>,
    pub kind: DumpErrorKind,
}

fn file_prefix(file: &Option<PathBuf>) -> String {
    match file {
        Some(p) => format!("{}: ", p.display()),
        None => String::new(),
    }
}

impl DumpError {
    /// Attach the file name.
    pub fn in_file(mut self, path: &Path) -> DumpError {
        self.file = Some(path.to_path_buf());
        self
    }

    /// Byte offset in the file (or the decompressed command array for record errors)
    /// where the problem was found, when there is one.
    pub fn offset(&self) -> Option<u64> {
        use DumpErrorKind::*;
        match &self.kind {
            Truncated { offset, .. }
            | TooLarge { offset, .. }
            | Corrupt { offset, .. }
            | SizeMismatch { offset, .. }
            | Oversized { offset, .. } => Some(*offset),
            BadMagic { .. } => Some(0),
            UnsupportedVersion { .. } => Some(8),
            RecordOutOfBounds { index, .. } | RecordSize { index, .. } => Some(*index as u64 * RECORD_SIZE as u64),
            _ => None,
        }
    }

    /// Index of the record concerned, for record and replay errors.
    pub fn record_index(&self) -> Option<usize> {
        use DumpErrorKind::*;
        match &self.kind {
            RecordOutOfBounds { index, .. }
            | RecordSize { index, .. }
            | UnknownRecord { index, .. }
            | Ge { index, .. } => Some(*index),
            _ => None,
        }
    }
}

impl From<DumpErrorKind> for DumpError {
    fn from(kind: DumpErrorKind) -> Self {
        DumpError { file: None, kind }
    }
}

/// The specific problem.
#[derive(Debug, Error)]
pub enum DumpErrorKind {
    #[error("cannot read file: {0}")]
    Io(std::io::Error),
    #[error("truncated: {what} needs {needed} bytes at byte offset {offset}, but the file has {len} bytes")]
    Truncated { what: &'static str, offset: u64, needed: u64, len: u64 },
    #[error("not a PPSSPP GE dump: bytes 0..8 are {found:?}, expected \"PPSSPPGE\"")]
    BadMagic { found: String },
    #[error("unsupported dump version {version} at byte offset 8 (PPSSPP reads versions 2 to 6)")]
    UnsupportedVersion { version: u32 },
    #[error("{what} {value} at byte offset {offset} is above the limit of {limit}")]
    TooLarge { what: &'static str, offset: u64, value: u64, limit: u64 },
    #[error("{block} at byte offset {offset}: corrupt {codec} data: {msg}")]
    Corrupt { block: &'static str, offset: u64, codec: &'static str, msg: String },
    #[error("{block} at byte offset {offset}: {codec} data holds {actual} bytes, the header declares {expected}")]
    SizeMismatch { block: &'static str, offset: u64, codec: &'static str, expected: u64, actual: u64 },
    #[error(
        "{block} at byte offset {offset}: {codec} data expands beyond the declared {expected} bytes (stopped there)"
    )]
    Oversized { block: &'static str, offset: u64, codec: &'static str, expected: u64 },
    #[error("record {index} ({kind}, command-array byte offset {}): payload {ptr:#x}+{sz:#x} is outside the {pushbuf}-byte pushbuf", *.index as u64 * 9)]
    RecordOutOfBounds { index: usize, kind: &'static str, ptr: u32, sz: u32, pushbuf: usize },
    #[error("record {index} ({kind}, command-array byte offset {}): payload of {sz} bytes, expected {expected}", *.index as u64 * 9)]
    RecordSize { index: usize, kind: &'static str, sz: u32, expected: String },
    #[error("zip archive: {0}")]
    Zip(String),
    #[error("zip archive has no .ppdmp entry ({entries} entries)")]
    NoDumpInZip { entries: usize },
    #[error("record {index}: unknown record type {ty:#04x} (PPSSPP aborts the replay)")]
    UnknownRecord { index: usize, ty: u8 },
    #[error("pushbuf of {size} bytes does not fit in PSP RAM at {base:#010x} (limit {limit} bytes)")]
    PushbufTooLarge { size: usize, base: u32, limit: u32 },
    #[error("record {index}: GE error: {cause}")]
    Ge { index: usize, cause: crate::exec::GeError },
}
