//! Writing output files the way every command does it.
//!
//! * Missing directories on the way to an output are created ([`prepare`]), and the directory
//!   is checked for writability before any work is done, so a long render never fails at the
//!   end for want of a folder.
//! * Every file is written to a temporary file in the target directory and renamed over the
//!   target ([`write`](fn@write)), so a crash, a full disk or Ctrl-C never leaves a truncated file where
//!   a good one was: readers see the old file or the complete new one.

use std::io::Write;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Why an output could not be written. The message names the path; the OS error follows.
#[derive(Debug, Error)]
pub enum OutputError {
    #[error("cannot create directory {}: {cause}", .dir.display())]
    CreateDir { dir: PathBuf, cause: std::io::Error },
    #[error("cannot write into {}: {cause}", .dir.display())]
    NotWritable { dir: PathBuf, cause: std::io::Error },
    #[error("cannot write {}: {cause}", .path.display())]
    Write { path: PathBuf, cause: std::io::Error },
    #[error("{} is a directory, not a file", .path.display())]
    IsDirectory { path: PathBuf },
    #[error("{} is a file, not a folder", .path.display())]
    NotAFolder { path: PathBuf },
    #[error("encoding {}: {cause}", .path.display())]
    Encode { path: PathBuf, cause: String },
}

/// The directory `path` will be written into (`.` for a bare file name).
fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Make `path` writable before the work that produces it: create its directory (and any
/// missing parents) and prove the directory takes a new file.
pub fn prepare(path: &Path) -> Result<(), OutputError> {
    if path.is_dir() {
        return Err(OutputError::IsDirectory { path: path.to_path_buf() });
    }
    prepare_dir(parent_dir(path))
}

/// Create `dir` and its missing parents; a file on the way is named as such.
fn create_dir(dir: &Path) -> Result<(), OutputError> {
    if let Some(file) = dir.ancestors().find(|a| a.exists()).filter(|a| !a.is_dir()) {
        return Err(OutputError::NotAFolder { path: file.to_path_buf() });
    }
    std::fs::create_dir_all(dir).map_err(|cause| OutputError::CreateDir { dir: dir.to_path_buf(), cause })
}

/// Make `dir` (an output directory) exist and take new files.
pub fn prepare_dir(dir: &Path) -> Result<(), OutputError> {
    create_dir(dir)?;
    tempfile::Builder::new()
        .prefix(".psprender-probe")
        .tempfile_in(dir)
        .map(drop)
        .map_err(|cause| OutputError::NotWritable { dir: dir.to_path_buf(), cause })
}

/// Write `bytes` to `path` atomically (temporary file in the same directory, then rename).
pub fn write(path: &Path, bytes: &[u8]) -> Result<(), OutputError> {
    write_with(path, |w| w.write_all(bytes))
}

/// A temporary file in the directory of `path` (created if missing), to be renamed over it.
fn temp_for(path: &Path) -> Result<tempfile::NamedTempFile, OutputError> {
    if path.is_dir() {
        return Err(OutputError::IsDirectory { path: path.to_path_buf() });
    }
    let dir = parent_dir(path);
    create_dir(dir)?;
    let mut builder = tempfile::Builder::new();
    builder.prefix(".psprender-tmp");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // The permissions a plain `File::create` gives under the usual umask (tempfile's own
        // default, 0600, would hide outputs from other users).
        builder.permissions(std::fs::Permissions::from_mode(0o644));
    }
    builder.tempfile_in(dir).map_err(|cause| OutputError::Write { path: path.to_path_buf(), cause })
}

/// Write what `fill` produces to `path` atomically; on any error the target is untouched and
/// the temporary file is removed.
pub fn write_with(path: &Path, fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) -> Result<(), OutputError> {
    let werr = |cause| OutputError::Write { path: path.to_path_buf(), cause };
    let mut tmp = temp_for(path)?;
    {
        let mut w = std::io::BufWriter::new(tmp.as_file_mut());
        fill(&mut w).map_err(werr)?;
        w.flush().map_err(werr)?;
    }
    tmp.persist(path).map_err(|e| werr(e.error))?;
    Ok(())
}

/// Write several files as one: every file goes to a temporary file in its directory first,
/// and only when all of them are complete are they renamed over their targets; on an error
/// before that point nothing is written (a `.gltf` never points at a `.bin` that is missing).
pub fn write_all(files: &[(PathBuf, Vec<u8>)]) -> Result<(), OutputError> {
    let mut temps = Vec::with_capacity(files.len());
    for (path, bytes) in files {
        let werr = |cause| OutputError::Write { path: path.to_path_buf(), cause };
        let mut tmp = temp_for(path)?;
        tmp.as_file_mut().write_all(bytes).map_err(werr)?;
        tmp.as_file_mut().flush().map_err(werr)?;
        temps.push((tmp, path));
    }
    for (tmp, path) in temps {
        tmp.persist(path).map_err(|e| OutputError::Write { path: path.to_path_buf(), cause: e.error })?;
    }
    Ok(())
}

/// How hard PNG outputs are compressed (`--png-compression`). The pixels are the same at
/// every level. The default is [`PngCompression::Fast`]: on a 512×272 screenshot the
/// `png` crate's balanced (zlib level 6) encoding costs more than many replays, fast
/// (fdeflate) a small fraction of one, for files somewhat larger.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum PngCompression {
    /// Stored, not compressed.
    None,
    /// fdeflate's fast mode.
    #[default]
    Fast,
    /// zlib level 6.
    Balanced,
    /// zlib level 9.
    High,
}

impl PngCompression {
    pub fn to_png(self) -> png::Compression {
        match self {
            PngCompression::None => png::Compression::NoCompression,
            PngCompression::Fast => png::Compression::Fast,
            PngCompression::Balanced => png::Compression::Balanced,
            PngCompression::High => png::Compression::High,
        }
    }
}

/// Save `img` as PNG at `path` atomically, with the default (fast) compression.
pub fn save_png(img: &ge::display::Image, path: &Path) -> Result<(), OutputError> {
    save_png_with(img, path, PngCompression::default())
}

/// Save `img` as PNG at `path` atomically, compressed as asked.
pub fn save_png_with(img: &ge::display::Image, path: &Path, level: PngCompression) -> Result<(), OutputError> {
    let bytes = img
        .to_png_with(level.to_png())
        .map_err(|e| OutputError::Encode { path: path.to_path_buf(), cause: e.to_string() })?;
    write(path, &bytes)
}

/// Four magic bytes for an error message: hex, and the printable text (`\0` for NUL) when
/// they are mostly text, e.g. `50 41 4d 00 ("PAM\0")`.
pub fn magic_text(bytes: &[u8]) -> String {
    let hex: Vec<String> = bytes.iter().map(|b| format!("{b:02x}")).collect();
    let text: Option<String> = bytes
        .iter()
        .map(|&b| match b {
            0 => Some("\\0".to_string()),
            0x20..=0x7e => Some((b as char).to_string()),
            _ => None,
        })
        .collect();
    match text {
        Some(t) if bytes.iter().any(|b| b.is_ascii_alphabetic()) => format!("{} (\"{t}\")", hex.join(" ")),
        _ => hex.join(" "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn creates_missing_directories_and_replaces_atomically() {
        let root = tempfile::tempdir().unwrap();
        let path = root.path().join("a/b/c.txt");
        prepare(&path).unwrap();
        assert!(root.path().join("a/b").is_dir());
        write(&path, b"first").unwrap();
        write(&path, b"second").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"second");
        // No temporary files are left behind.
        let names: Vec<_> =
            std::fs::read_dir(root.path().join("a/b")).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, vec![std::ffi::OsString::from("c.txt")]);
    }

    #[test]
    fn a_failed_write_leaves_the_old_file() {
        let root = tempfile::tempdir().unwrap();
        let path = root.path().join("keep.txt");
        write(&path, b"good").unwrap();
        let e = write_with(&path, |w| {
            w.write_all(b"half")?;
            Err(std::io::Error::other("disk full"))
        })
        .unwrap_err();
        assert!(e.to_string().contains("keep.txt") && e.to_string().contains("disk full"), "{e}");
        assert_eq!(std::fs::read(&path).unwrap(), b"good");
        assert_eq!(std::fs::read_dir(root.path()).unwrap().count(), 1);
    }

    #[test]
    fn write_all_writes_every_file_or_none() {
        let root = tempfile::tempdir().unwrap();
        let a = root.path().join("m/a.gltf");
        let b = root.path().join("m/a.bin");
        write_all(&[(a.clone(), b"json".to_vec()), (b.clone(), b"bin".to_vec())]).unwrap();
        assert_eq!((std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap()), (b"json".to_vec(), b"bin".to_vec()));
        // The second target is a folder: the first file keeps its old bytes, no temporaries stay.
        std::fs::create_dir(root.path().join("m/dir")).unwrap();
        let e = write_all(&[(a.clone(), b"new".to_vec()), (root.path().join("m/dir"), b"x".to_vec())]).unwrap_err();
        assert!(matches!(e, OutputError::IsDirectory { .. }), "{e}");
        assert_eq!(std::fs::read(&a).unwrap(), b"json");
        assert_eq!(std::fs::read_dir(root.path().join("m")).unwrap().count(), 3);
    }

    /// Every level decodes to the same pixels; on a compressible picture each level's file
    /// is at most the size of the faster one's, and stored is the largest.
    #[test]
    fn png_levels_keep_the_pixels() {
        let root = tempfile::tempdir().unwrap();
        let mut img = ge::display::Image::black(64, 32);
        for (i, px) in img.rgba.chunks_exact_mut(4).enumerate() {
            px.copy_from_slice(&[(i % 64) as u8 * 4, (i / 64) as u8 * 8, (i % 7) as u8, 255]);
        }
        let mut sizes = Vec::new();
        for level in [PngCompression::None, PngCompression::Fast, PngCompression::Balanced, PngCompression::High] {
            let path = root.path().join(format!("{level:?}.png"));
            save_png_with(&img, &path, level).unwrap();
            assert_eq!(ge::display::Image::load(&path).unwrap(), img, "{level:?}");
            sizes.push(std::fs::metadata(&path).unwrap().len());
        }
        assert!(sizes[0] > sizes[1] && sizes[1] >= sizes[2] && sizes[2] >= sizes[3], "{sizes:?}");
    }

    #[test]
    fn magic_bytes_read_as_text_when_they_are() {
        assert_eq!(magic_text(b"PAM\0"), "50 41 4d 00 (\"PAM\\0\")");
        assert_eq!(magic_text(&[0xff, 0, 1, 2]), "ff 00 01 02");
    }

    #[test]
    fn a_directory_is_not_a_file() {
        let root = tempfile::tempdir().unwrap();
        assert!(matches!(prepare(root.path()), Err(OutputError::IsDirectory { .. })));
        assert!(matches!(write(root.path(), b"x"), Err(OutputError::IsDirectory { .. })));
    }

    #[test]
    fn unwritable_location_is_reported_before_work() {
        // A regular file where a directory should be: fails for every user, root included.
        let root = tempfile::tempdir().unwrap();
        let file = root.path().join("plain");
        std::fs::write(&file, b"x").unwrap();
        let e = prepare(&file.join("x.png")).unwrap_err();
        assert!(matches!(e, OutputError::NotAFolder { .. }), "{e}");
        assert!(e.to_string().contains("plain"), "{e}");
    }
}
