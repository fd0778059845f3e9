//! Locating the research corpora that live beside the repository (`../shared`, or the
//! directory named by `$PSPRENDER_SHARED`). They are game and third-party data, never part
//! of the repository; tests that use them skip with a message when they are absent.

use std::path::PathBuf;

/// The shared directory, if it exists.
pub fn dir() -> Option<PathBuf> {
    let dir = std::env::var_os("PSPRENDER_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared"));
    dir.is_dir().then_some(dir)
}

/// `samples/<rel>` inside the shared directory, if present; prints a skip message otherwise.
pub fn sample(rel: &str) -> Option<PathBuf> {
    let p = dir().map(|d| d.join("samples").join(rel)).filter(|p| p.exists());
    if p.is_none() {
        eprintln!("skipping: sample {rel} not found (../shared or $PSPRENDER_SHARED)");
    }
    p
}
