//! Replays the shared corpora against their independent references (PPSSPP's software
//! renderer for the real-game and synthetic dumps, a real PSP for the hardware set).
//!
//! The corpora live beside the repository in `../shared` (or `$PSPRENDER_SHARED`); they
//! are game and third-party data and never part of the repository. Without them these
//! tests print a message and pass.

use ge::display::{mse, Image};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn shared_dir() -> Option<PathBuf> {
    psprender::shared::corpus("frametests").and_then(|p| p.parent().map(Path::to_path_buf))
}

fn replay(path: &Path) -> Image {
    let dump = ge::dump::Dump::open(path).unwrap_or_else(|e| panic!("{e}"));
    let mut g = ge::Ge::new();
    let disp = ge::dump::replay(&dump, &mut g).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    disp.capture(&g.mem)
}

fn score(dump: &Path, reference: &Path) -> f64 {
    let r = Image::load(reference).unwrap_or_else(|e| panic!("{}: {e}", reference.display()));
    mse(&replay(dump), &r)
}

/// The five simplest real-game dumps pass PPSSPP's own frame-test limit.
#[test]
fn five_simplest_frame_dumps_pass() {
    let Some(dir) = shared_dir() else { return };
    let ft = dir.join("frametests");
    let mut failures = Vec::new();
    for name in [
        "15826-hot-pixel-ulus10298",
        "15816-boku-no-natsuyasumi-4-issue-ucjs10095",
        "20204-beam-em-up-npuz00087-0001",
        "17061-kidou-keisatsu-patlabor-uljs00026-bad2",
        "10914-sengoku-cannon-issue-dump",
    ] {
        let m = score(&ft.join(format!("{name}.zip")), &ft.join(format!("{name}.ref.png")));
        eprintln!("{name}: MSE {m:.4}");
        if m > 0.1 {
            failures.push(format!("{name}: MSE {m:.4} > 0.1"));
        }
    }
    assert!(failures.is_empty(), "{failures:?}");
}

fn dumps_in(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> =
        std::fs::read_dir(dir).map(|r| r.filter_map(|e| e.ok().map(|e| e.path())).collect()).unwrap_or_default();
    v.retain(|p| p.extension().is_some_and(|e| e == ext));
    v.sort();
    v
}

/// Every real-game dump replays without error, and none regresses below the counts
/// measured when this test was written (MSE against PPSSPP's references).
#[test]
fn all_frame_dumps_replay() {
    let Some(dir) = shared_dir() else { return };
    let ft = dir.join("frametests");
    let (mut exact, mut pass) = (0, 0);
    for d in dumps_in(&ft, "zip") {
        let stem = d.file_stem().map(|s| s.to_string_lossy().to_string()).unwrap_or_default();
        let m = score(&d, &ft.join(format!("{stem}.ref.png")));
        eprintln!("{stem:58} MSE {m:10.4}");
        exact += usize::from(m == 0.0);
        pass += usize::from(m <= 0.1);
    }
    eprintln!("frame dumps: {exact} at MSE 0, {pass} at MSE <= 0.1");
    assert!(exact >= 13 && pass >= 20, "regression: {exact} exact, {pass} <= 0.1");
}

/// The conformance corpora: per-family counts at MSE 0 (printed), with a floor so a
/// regression fails. Hardware dumps compare with the real PSP's screenshots.
#[test]
fn conformance_families() {
    let Some(dir) = shared_dir() else { return };
    let mut families: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let synth = dir.join("conformance/synthetic");
    for d in dumps_in(&synth, "ppdmp") {
        let stem = d.file_stem().map(|s| s.to_string_lossy().to_string()).unwrap_or_default();
        let fam = stem.rsplit_once('_').map(|(f, _)| f.to_string()).unwrap_or_default();
        let m = score(&d, &synth.join(format!("{stem}.png")));
        let e = families.entry(fam).or_default();
        e.0 += usize::from(m == 0.0);
        e.1 += 1;
    }
    let hw = dir.join("conformance/hardware");
    for d in dumps_in(&hw, "ppdmp") {
        let stem = d.file_stem().map(|s| s.to_string_lossy().to_string()).unwrap_or_default();
        let m = score(&d, &hw.join(format!("{stem}.hardware.png")));
        let e = families.entry("hardware".into()).or_default();
        e.0 += usize::from(m == 0.0);
        e.1 += 1;
    }
    for (f, (exact, n)) in &families {
        eprintln!("{f:12} {exact:3}/{n:3} at MSE 0");
    }
    let floor = [
        ("a_vertex", 40),
        ("b_prim", 40),
        ("c_texture", 36),
        ("d_pixel", 40),
        ("e_lighting", 40),
        ("f_patch", 40),
        ("hardware", 15),
    ];
    for (f, min) in floor {
        let got = families.get(f).map_or(0, |e| e.0);
        assert!(got >= min, "{f}: {got} scenes at MSE 0, fewer than {min}");
    }
}
