//! What the GE's integration tests share: where the corpora beside the repository are
//! (`../shared` of the workspace, or `$PSPRENDER_SHARED`; game and third-party data,
//! never in the repository), and whether goldens are being blessed.

#![allow(dead_code)]

use std::path::PathBuf;

/// `rel` inside the shared directory, or `None` with a skip message. Under CI (`CI` set)
/// a missing directory is a setup error, not a reason to skip.
pub fn corpus(rel: &str) -> Option<PathBuf> {
    let root = std::env::var_os("PSPRENDER_SHARED")
        .map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared"), PathBuf::from);
    let ci = std::env::var("CI").is_ok_and(|v| !matches!(v.to_ascii_lowercase().as_str(), "" | "0" | "false"));
    assert!(!ci || root.is_dir(), "CI is set but the shared corpora are missing at {}", root.display());
    let p = root.join(rel);
    if !p.exists() {
        eprintln!("skipping: {rel} not found in {} (set PSPRENDER_SHARED)", root.display());
        return None;
    }
    Some(p)
}

/// `PSPRENDER_BLESS=1`: write goldens instead of comparing.
pub fn bless() -> bool {
    std::env::var_os("PSPRENDER_BLESS").is_some()
}
