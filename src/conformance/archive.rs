//! Reading one readback test archive (`TEST.tar.xz`): `TEST/NNNN.ppdmp`,
//! `TEST/NNNN.readback.bin` and `TEST/index.jsonl` (hardware README, "Secondary set").
//!
//! The archive is decompressed as a stream (liblzma through `xz2`, then `tar`) straight
//! into memory: the largest test unpacks to 165 MB, and streaming avoids a temporary
//! directory of 18 000 files. Every size the archive claims is bounded before it is
//! allocated, and every inconsistency names the archive and the tar header's byte offset
//! in the decompressed stream.

use serde::Deserialize;
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Largest member accepted: the biggest real one is a 557 056-byte full-screen readback;
/// a dump carries at most a few MB. Anything beyond is hostile or broken.
pub const MAX_MEMBER: u64 = 64 << 20;
/// Largest total of decompressed members accepted for one test (the largest real test
/// holds 165 MB); bounds a decompression bomb.
pub const MAX_TOTAL: u64 = 1 << 30;
/// Highest dump number accepted (the largest test has 4 368 dumps).
pub const MAX_DUMPS: usize = 100_000;

#[derive(Debug, Error)]
pub enum ArchiveError {
    #[error("{file}: reading the archive at decompressed byte {offset:#x}: {source}")]
    Io { file: PathBuf, offset: u64, source: std::io::Error },
    #[error("{file}: member {name:?} (header at decompressed byte {offset:#x}) is {size} bytes, over the {limit}-byte limit")]
    TooLarge { file: PathBuf, name: String, offset: u64, size: u64, limit: u64 },
    #[error("{file}: members total more than {limit} bytes (member {name:?} at decompressed byte {offset:#x})")]
    Bomb { file: PathBuf, name: String, offset: u64, limit: u64 },
    #[error("{file}: unexpected member {name:?} (header at decompressed byte {offset:#x})")]
    UnexpectedMember { file: PathBuf, name: String, offset: u64 },
    #[error("{file}: index.jsonl line {line}: {msg}")]
    Index { file: PathBuf, line: usize, msg: String },
    #[error("{file}: dump {index:04}: {msg}")]
    Missing { file: PathBuf, index: usize, msg: String },
}

/// One line of `index.jsonl`: where the readback came from and what was bound.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct IndexEntry {
    pub index: usize,
    /// DMA source address, hex without prefix.
    pub readback_src: String,
    pub readback_size: u32,
    /// `[address, stride, format]` of the buffer read back (a depth buffer shows as 565).
    pub display: (String, u32, u32),
    /// `[address, stride, format]` of the colour framebuffer.
    pub fb: (String, u32, u32),
    /// `[address, stride]` of the depth buffer.
    pub zb: (String, u32),
}

impl IndexEntry {
    pub fn src(&self) -> Result<u32, String> {
        hex(&self.readback_src)
    }
    pub fn fb_addr(&self) -> Result<u32, String> {
        hex(&self.fb.0)
    }
}

fn hex(s: &str) -> Result<u32, String> {
    u32::from_str_radix(s, 16).map_err(|e| format!("address {s:?}: {e}"))
}

/// One readback: the dump of the GE work before it and PPSSPP's read-back bytes.
#[derive(Debug, Clone)]
pub struct ReadbackDump {
    pub info: IndexEntry,
    pub ppdmp: Vec<u8>,
    /// PPSSPP's bytes (`readback_size` of them), not the hardware's.
    pub readback: Vec<u8>,
}

/// All readbacks of one test, in order.
#[derive(Debug, Clone)]
pub struct TestArchive {
    pub name: String,
    pub dumps: Vec<ReadbackDump>,
}

/// Read `path` (`.../NAME.tar.xz`).
pub fn load(path: &Path) -> Result<TestArchive, ArchiveError> {
    let file =
        std::fs::File::open(path).map_err(|source| ArchiveError::Io { file: path.to_owned(), offset: 0, source })?;
    load_from(path, std::io::BufReader::new(file))
}

/// Read an archive from `reader` (xz-compressed tar); `path` names it in errors and gives
/// the test name (the file name without `.tar.xz`).
pub fn load_from(path: &Path, reader: impl Read) -> Result<TestArchive, ArchiveError> {
    let name = test_name(path);
    let file = || path.to_owned();
    let mut tar = tar::Archive::new(xz2::read::XzDecoder::new(reader));
    let entries = tar.entries().map_err(|source| ArchiveError::Io { file: file(), offset: 0, source })?;
    let mut dumps: BTreeMap<usize, Vec<u8>> = BTreeMap::new();
    let mut readbacks: BTreeMap<usize, Vec<u8>> = BTreeMap::new();
    let mut index_text: Option<String> = None;
    let mut total = 0u64;
    let mut last_offset = 0u64;
    for entry in entries {
        let mut entry = entry.map_err(|source| ArchiveError::Io { file: file(), offset: last_offset, source })?;
        let offset = entry.raw_header_position();
        last_offset = offset;
        if !entry.header().entry_type().is_file() {
            continue;
        }
        let member = entry.path().map(|p| p.to_string_lossy().into_owned()).unwrap_or_default();
        let size = entry.size();
        if size > MAX_MEMBER {
            return Err(ArchiveError::TooLarge { file: file(), name: member, offset, size, limit: MAX_MEMBER });
        }
        total += size;
        if total > MAX_TOTAL {
            return Err(ArchiveError::Bomb { file: file(), name: member, offset, limit: MAX_TOTAL });
        }
        let base = member.rsplit('/').next().unwrap_or("");
        let slot = if base == "index.jsonl" {
            None
        } else if let Some(n) = base.strip_suffix(".ppdmp").and_then(parse_number) {
            Some((n, true))
        } else if let Some(n) = base.strip_suffix(".readback.bin").and_then(parse_number) {
            Some((n, false))
        } else {
            return Err(ArchiveError::UnexpectedMember { file: file(), name: member, offset });
        };
        let mut data = Vec::with_capacity(size as usize);
        (&mut entry).take(size).read_to_end(&mut data).map_err(|source| ArchiveError::Io {
            file: file(),
            offset,
            source,
        })?;
        match slot {
            None => {
                let text = String::from_utf8(data).map_err(|_| ArchiveError::Index {
                    file: file(),
                    line: 0,
                    msg: format!("not UTF-8 (header at decompressed byte {offset:#x})"),
                })?;
                index_text = Some(text);
            }
            Some((n, true)) => {
                dumps.insert(n, data);
            }
            Some((n, false)) => {
                readbacks.insert(n, data);
            }
        }
    }
    let text = index_text.ok_or_else(|| ArchiveError::Index { file: file(), line: 0, msg: "missing".into() })?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let info: IndexEntry = serde_json::from_str(line).map_err(|e| ArchiveError::Index {
            file: file(),
            line: i + 1,
            msg: e.to_string(),
        })?;
        if info.index != out.len() {
            return Err(ArchiveError::Index {
                file: file(),
                line: i + 1,
                msg: format!("index {} where {} was expected", info.index, out.len()),
            });
        }
        if u64::from(info.readback_size) > MAX_MEMBER {
            let msg = format!("readback_size {} over the {MAX_MEMBER}-byte limit", info.readback_size);
            return Err(ArchiveError::Index { file: file(), line: i + 1, msg });
        }
        for (what, addr) in [("readback_src", &info.readback_src), ("fb", &info.fb.0)] {
            hex(addr).map_err(|msg| ArchiveError::Index {
                file: file(),
                line: i + 1,
                msg: format!("{what}: {msg}"),
            })?;
        }
        let n = info.index;
        let missing = |msg: &str| ArchiveError::Missing { file: file(), index: n, msg: msg.to_owned() };
        let ppdmp = dumps.remove(&n).ok_or_else(|| missing("no .ppdmp member"))?;
        let readback = readbacks.remove(&n).ok_or_else(|| missing("no .readback.bin member"))?;
        if readback.len() != info.readback_size as usize {
            return Err(missing(&format!(
                "readback.bin holds {} bytes, index.jsonl says {}",
                readback.len(),
                info.readback_size
            )));
        }
        out.push(ReadbackDump { info, ppdmp, readback });
    }
    if let Some((&n, _)) = dumps.iter().next().or(readbacks.iter().next()) {
        return Err(ArchiveError::Missing { file: file(), index: n, msg: "member not listed in index.jsonl".into() });
    }
    Ok(TestArchive { name, dumps: out })
}

fn parse_number(s: &str) -> Option<usize> {
    let n: usize = s.parse().ok()?;
    (n < MAX_DUMPS).then_some(n)
}

/// `.../filtering-linear.tar.xz` -> `filtering-linear`.
pub fn test_name(path: &Path) -> String {
    let base = path.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    base.strip_suffix(".tar.xz").unwrap_or(&base).to_owned()
}
