//! Replays every committed fuzz input (`fuzz/corpus/TARGET/*` and
//! `fuzz/regressions/TARGET/*`) through the same entry points the libFuzzer targets call
//! (`psprender::fuzzing::run`), so CI guards them on stable without libFuzzer. An input that
//! panics (a crash, or a broken round trip) fails the test naming the file.

use std::path::{Path, PathBuf};

fn inputs(kind: &str) -> Vec<(String, PathBuf)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz").join(kind);
    let mut out = Vec::new();
    let Ok(dirs) = std::fs::read_dir(&root) else { return out };
    for d in dirs {
        let d = d.unwrap().path();
        let target = d.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            psprender::fuzzing::TARGETS.contains(&target.as_str()),
            "{}: not a fuzz target (targets: {:?})",
            d.display(),
            psprender::fuzzing::TARGETS
        );
        for f in std::fs::read_dir(&d).unwrap() {
            out.push((target.clone(), f.unwrap().path()));
        }
    }
    out.sort();
    out
}

fn replay(kind: &str) -> usize {
    let all = inputs(kind);
    for (target, path) in &all {
        let data = std::fs::read(path).unwrap();
        let r = std::panic::catch_unwind(|| psprender::fuzzing::run(target, &data));
        assert!(matches!(r, Ok(true)), "{target}: {} panicked", path.display());
    }
    all.len()
}

#[test]
fn every_target_has_a_committed_corpus_and_it_replays() {
    let all = inputs("corpus");
    for t in psprender::fuzzing::TARGETS {
        assert!(all.iter().any(|(target, _)| target == t), "fuzz/corpus/{t}/ is empty");
    }
    let n = replay("corpus");
    println!("{n} corpus inputs replayed");
}

#[test]
fn every_regression_input_replays() {
    let n = replay("regressions");
    println!("{n} regression inputs replayed");
}
