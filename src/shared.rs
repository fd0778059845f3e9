//! Locating the research corpora that live beside the repository (`../shared`, or the
//! directory named by `$PSPRENDER_SHARED`). They are game and third-party data, never part
//! of the repository; tests that use them skip with a message when they are absent.
//!
//! CI always has them: when the `CI` environment variable is set (as CI runners do) and
//! they are missing, [`dir`] panics instead of letting every corpus test skip silently.
//! `tests/corpora.rs` prints once per test run which corpora were found.

use std::path::{Path, PathBuf};

/// Where the shared directory is looked for.
pub fn location() -> PathBuf {
    std::env::var_os("PSPRENDER_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared"))
}

/// True when running under CI (`CI` set to anything but empty, `0` or `false`).
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "0" && !v.eq_ignore_ascii_case("false"))
}

/// The shared directory, if it exists. Panics under CI when it does not (see the module docs).
pub fn dir() -> Option<PathBuf> {
    let dir = location();
    if dir.is_dir() {
        return Some(dir);
    }
    if in_ci() {
        panic!(
            "CI is set but the shared corpora are not at {} (or $PSPRENDER_SHARED): CI always has them, so \
             their absence is a setup error, not a reason to skip",
            dir.display()
        );
    }
    None
}

/// `<rel>` inside the shared directory, if present; prints a skip message otherwise.
pub fn corpus(rel: &str) -> Option<PathBuf> {
    let p = dir().map(|d| d.join(rel)).filter(|p| p.exists());
    if p.is_none() {
        eprintln!("skipping: {rel} not found in {} (set PSPRENDER_SHARED)", location().display());
    }
    p
}

/// `samples/<rel>` inside the shared directory, if present; prints a skip message otherwise.
pub fn sample(rel: &str) -> Option<PathBuf> {
    corpus(&format!("samples/{rel}"))
}

/// One line per corpus: its path and how many files of its kind it holds, or "missing".
pub fn summary(dir: &Path) -> Vec<String> {
    let count = |rel: &str, ends: &[&str]| -> Option<usize> {
        let entries = std::fs::read_dir(dir.join(rel)).ok()?;
        Some(
            entries
                .filter_map(Result::ok)
                .filter(|e| {
                    let name = e.file_name().to_string_lossy().to_lowercase();
                    ends.iter().any(|x| name.ends_with(x))
                })
                .count(),
        )
    };
    let line = |what: &str, rel: &str, ends: &[&str], unit: &str| match count(rel, ends) {
        Some(n) => format!("{what:<28} {n:>5} {unit} in {rel}"),
        None => format!("{what:<28}   missing ({rel})"),
    };
    vec![
        line("real-game frame dumps", "frametests", &[".zip"], "dumps"),
        line("synthetic conformance", "conformance/synthetic", &[".ppdmp"], "dumps"),
        line("hardware screenshots", "conformance/hardware", &[".ppdmp"], "dumps"),
        line("hardware readback tests", "conformance/hardware/readback", &[".tar.xz"], "tests"),
        line("BBS models and maps", "samples/bbs-pmo", &[".pmo", ".pmp"], "files"),
        line("BBS animations", "samples/bbs-pam", &[".pam"], "files"),
        line("KH2 motions", "samples/kh2-anb", &[".motion", ".anb", ".bar"], "files"),
        line("PopCap animations", "samples/popcap-pam", &[".pam"], "files"),
    ]
}
