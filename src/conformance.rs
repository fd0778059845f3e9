//! Readback conformance: the 29 pspautotests pixel tests that print read-back values
//! instead of taking a screenshot (`../shared/conformance/hardware/readback/`, README
//! "Secondary set").
//!
//! For each test the harness
//! 1. streams `TEST.tar.xz` into memory ([`archive`]),
//! 2. replays every dump on a fresh GE of the chosen [`ge::Model`] (rayon over dumps; each
//!    dump is self-contained, so the order of work cannot change a byte) and captures what
//!    the test's DMA copy saw,
//! 3. prints the values the way the test's source prints them ([`print`](mod@print)) under the titles
//!    of the reference transcript ([`transcript`]), and compares line by line with the real
//!    PSP's output (`TEST.hardware.txt`),
//! 4. checks the replayed bytes against PPSSPP's `NNNN.readback.bin` (the visible 480
//!    pixels of each row, as the README's own check does): all must be equal in the PPSSPP
//!    model; in the hardware model the count shows how far the PSP's rules move us, and
//! 5. as an anchor independent of our GE, prints PPSSPP's bytes with the same printers and
//!    compares with `TEST.ppsspp.txt`: equality there proves the printers.
//!
//! Measured on the 2-core build machine: the 9 327 dumps replay in about 20 s of CPU,
//! dominated by full-screen readbacks; decompression is a few seconds.

pub mod archive;
pub mod print;
pub mod transcript;

use archive::{ReadbackDump, TestArchive};
use print::{Capture, Printer};
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use thiserror::Error;
use transcript::Comparison;

#[derive(Debug, Error)]
pub enum ConformanceError {
    #[error(transparent)]
    Archive(#[from] archive::ArchiveError),
    #[error("{test}: {source}")]
    Print { test: String, source: print::PrintError },
    #[error("{file}: {source}")]
    Read { file: PathBuf, source: std::io::Error },
    #[error("{file}: {msg}")]
    Dump { file: String, msg: String },
}

/// The tests found in `dir` (names of `*.tar.xz` with a `*.hardware.txt` beside them), sorted.
pub fn tests_in(dir: &Path) -> Result<Vec<String>, ConformanceError> {
    let rd = std::fs::read_dir(dir).map_err(|source| ConformanceError::Read { file: dir.to_owned(), source })?;
    let mut names: Vec<String> = rd
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().to_str().and_then(|n| n.strip_suffix(".tar.xz")).map(str::to_owned))
        .filter(|n| dir.join(format!("{n}.hardware.txt")).is_file())
        .collect();
    names.sort();
    Ok(names)
}

/// What replaying one dump produced.
#[derive(Debug, Clone)]
pub struct Replayed {
    pub capture: Capture,
    /// Byte offset of the first visible byte that differs from PPSSPP's readback, if any.
    pub first_diff: Option<usize>,
}

/// Results for one test.
#[derive(Debug, Clone)]
pub struct TestResult {
    pub name: String,
    pub model: ge::Model,
    pub dumps: usize,
    /// Dumps whose replayed visible bytes equal PPSSPP's `readback.bin`.
    pub bytes_equal: usize,
    /// (dump index, byte offset) of the first few byte mismatches.
    pub byte_diffs: Vec<(usize, usize)>,
    /// Our printed output against the PSP's.
    pub ours: Comparison,
    /// PPSSPP's printed output against the PSP's.
    pub ppsspp: Comparison,
    /// PPSSPP's bytes through our printers against PPSSPP's printed output (`None` when
    /// the test prints values the readback files do not hold: depth-precision's colour).
    pub anchor: Option<Comparison>,
    /// Our printed lines.
    pub printed: Vec<String>,
}

/// Run one test of `dir` on GEs of `model`.
pub fn run_test(dir: &Path, name: &str, model: ge::Model) -> Result<TestResult, ConformanceError> {
    let archive = archive::load(&dir.join(format!("{name}.tar.xz")))?;
    run_archive(dir, &archive, model)
}

fn read_text(path: &Path) -> Result<String, ConformanceError> {
    std::fs::read_to_string(path).map_err(|source| ConformanceError::Read { file: path.to_owned(), source })
}

/// Run a loaded archive against the transcripts beside it in `dir`.
pub fn run_archive(dir: &Path, archive: &TestArchive, model: ge::Model) -> Result<TestResult, ConformanceError> {
    let name = &archive.name;
    let printer = Printer::for_test(name).map_err(|source| ConformanceError::Print { test: name.clone(), source })?;
    let hardware = transcript::parse(&read_text(&dir.join(format!("{name}.hardware.txt")))?, printer.lines_per_entry());
    let ppsspp = transcript::parse(&read_text(&dir.join(format!("{name}.ppsspp.txt")))?, printer.lines_per_entry());
    let titles = transcript::titles(&hardware);
    let replayed: Vec<Replayed> = archive
        .dumps
        .par_iter()
        .enumerate()
        .map(|(i, d)| replay_one(&archive.name, i, d, model))
        .collect::<Result<_, _>>()?;
    let print_with = |captures: &[Capture]| -> Result<Vec<Option<String>>, ConformanceError> {
        let values = printer
            .print(&titles, captures)
            .map_err(|source| ConformanceError::Print { test: name.clone(), source })?;
        Ok(values.into_iter().map(Result::ok).collect())
    };
    let ours: Vec<Capture> = replayed.iter().map(|r| r.capture.clone()).collect();
    let printed = transcript::render(&hardware, &print_with(&ours)?);
    let hw_lines = transcript::lines(&hardware);
    let theirs: Vec<Capture> = archive
        .dumps
        .iter()
        .map(|d| Capture { bytes: d.readback.clone(), fb_format: d.info.fb.2, color0: None })
        .collect();
    let anchor_values = print_with(&theirs)?;
    let anchor = (printer != Printer::DepthColor)
        .then(|| transcript::compare(&transcript::lines(&ppsspp), &transcript::render(&ppsspp, &anchor_values)));
    let byte_diffs: Vec<(usize, usize)> =
        replayed.iter().enumerate().filter_map(|(i, r)| r.first_diff.map(|o| (i, o))).collect();
    Ok(TestResult {
        name: name.clone(),
        model,
        dumps: archive.dumps.len(),
        bytes_equal: archive.dumps.len() - byte_diffs.len(),
        byte_diffs: byte_diffs.into_iter().take(8).collect(),
        ours: transcript::compare(&hw_lines, &printed),
        ppsspp: transcript::compare(&hw_lines, &transcript::lines(&ppsspp)),
        anchor,
        printed,
    })
}

/// Replay dump `i` of `test` on a fresh GE of `model` and capture what the test's DMA copy
/// read.
pub fn replay_one(test: &str, i: usize, d: &ReadbackDump, model: ge::Model) -> Result<Replayed, ConformanceError> {
    let file = || format!("{test}.tar.xz:{test}/{i:04}.ppdmp");
    let err = |msg: String| ConformanceError::Dump { file: file(), msg };
    let dump = ge::dump::Dump::parse(&d.ppdmp).map_err(|e| err(e.to_string()))?;
    let mut g = ge::Ge::with_model(model);
    ge::dump::replay(&dump, &mut g).map_err(|e| err(e.to_string()))?;
    let src = d.info.src().map_err(err)?;
    let bytes = g.mem.slice(src, d.info.readback_size).map_err(|e| err(format!("readback range: {e}")))?.to_vec();
    let fb = d.info.fb_addr().map_err(err)?;
    // depth/precision copies the colour buffer right after the depth buffer.
    let color0 =
        if fb == src { None } else { Some(g.mem.read_u32(fb).map_err(|e| err(format!("colour buffer: {e}")))?) };
    let first_diff = first_visible_diff(&bytes, &d.readback, d.info.display.1, d.info.display.2);
    Ok(Replayed { capture: Capture { bytes, fb_format: d.info.fb.2, color0 }, first_diff })
}

/// First differing byte within the visible 480 pixels of each `stride`-pixel row
/// (`format` 3 = 32-bit, else 16-bit).
pub fn first_visible_diff(a: &[u8], b: &[u8], stride: u32, format: u32) -> Option<usize> {
    if a.len() != b.len() {
        return Some(a.len().min(b.len()));
    }
    let bpp = if format & 0xFF == 3 { 4 } else { 2 };
    let row = (stride.max(1) as usize) * bpp;
    let visible = 480.min(stride.max(1) as usize) * bpp;
    a.chunks(row).zip(b.chunks(row)).enumerate().find_map(|(r, (x, y))| {
        let n = visible.min(x.len());
        x[..n].iter().zip(&y[..n]).position(|(p, q)| p != q).map(|k| r * row + k)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn visible_diff_ignores_offscreen_columns() {
        let a = vec![0u8; 512 * 4 * 2];
        let mut b = a.clone();
        b[480 * 4] = 1; // column 480 of row 0: off screen
        assert_eq!(first_visible_diff(&a, &b, 512, 3), None);
        b[512 * 4 + 479 * 4 + 3] = 1; // column 479 of row 1
        assert_eq!(first_visible_diff(&a, &b, 512, 3), Some(512 * 4 + 479 * 4 + 3));
        // 16-bit rows are 1024 bytes; byte 960 is column 480.
        let mut c = a.clone();
        c[960] = 1;
        assert_eq!(first_visible_diff(&a, &c, 512, 0), None);
        c[959] = 1;
        assert_eq!(first_visible_diff(&a, &c, 512, 0), Some(959));
    }
}
