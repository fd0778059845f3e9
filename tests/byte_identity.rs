//! Byte-identity guard for optimizations: every output the shared corpora make, in both
//! GE models, hashed and compared with the committed list in `tests/hashes/*.txt`.
//!
//! The lists are our own output, so they prove nothing about correctness: accuracy
//! against the independent references (PPSSPP screenshots, PSP screenshots, the PSP's
//! printed read-back values) is asserted elsewhere (`ge/tests/corpus.rs`,
//! `tests/readback.rs`, `tests/scene_samples.rs`). What they guard is that a change meant
//! to be a pure speed-up (lazy memory, specialized kernels, parallel front end) leaves
//! every byte alone. Run this before and after every optimization.
//!
//! A change that is *meant* to change pixels (a hardware rule, a PPSSPP fix) re-blesses
//! with `PSPRENDER_BLESS=1 cargo test --release --test byte_identity`; the diff of the
//! lists then shows exactly which outputs moved, and the accuracy tests say whether for
//! the better.
//!
//! What is hashed (SHA-256, first 12 bytes):
//! * `frametests.txt`: the 512×272 screenshot of every real-game dump;
//! * `hardware.txt`: the screenshot of every pspautotests dump of the hardware set;
//! * `synthetic.txt`: the screenshot of every synthetic scene;
//! * `readback.txt`: the bytes each readback test's DMA copy reads back (one hash per
//!   test and model over its dumps' hashes in order);
//! * `samples.txt`: the BBS sample models rendered by the scene builder.
//!
//! Corpora missing from `../shared` (or `$PSPRENDER_SHARED`) are skipped with a message;
//! the test then only checks the lists of those present. One test per list; each runs its
//! jobs in parallel on rayon's global pool (the 1-vs-N-thread identity is
//! `tests/determinism.rs`'s job).

use ge::Model;
use rayon::prelude::*;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn hashes_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/hashes")
}

fn hash(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().take(12).map(|b| format!("{b:02x}")).collect()
}

/// One output to hash: its key in the list and how to make its bytes.
struct Job {
    key: String,
    make: Box<dyn Fn() -> Result<Vec<u8>, String> + Send + Sync>,
}

fn files_with(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> =
        std::fs::read_dir(dir).map(|r| r.filter_map(|e| e.ok().map(|e| e.path())).collect()).unwrap_or_default();
    v.retain(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.ends_with(suffix)));
    v.sort();
    v
}

/// Screenshot jobs for every dump in `dir` ending in `suffix`, both models.
fn dump_jobs(dir: &Path, suffix: &str) -> Vec<Job> {
    let mut jobs = Vec::new();
    for path in files_with(dir, suffix) {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default().trim_end_matches(suffix).to_string();
        for model in Model::ALL {
            let path = path.clone();
            jobs.push(Job {
                key: format!("{name} {model}"),
                make: Box::new(move || {
                    ge::dump::render_file(&path, model, 0).map(|img| img.rgba).map_err(|e| e.to_string())
                }),
            });
        }
    }
    jobs
}

/// Read-back jobs: every dump of every readback archive, both models.
fn readback_jobs(dir: &Path) -> Vec<Job> {
    use psprender::conformance::{self, archive};
    let mut jobs = Vec::new();
    for name in conformance::tests_in(dir).unwrap_or_else(|e| panic!("{e}")) {
        let archive = archive::load(&dir.join(format!("{name}.tar.xz"))).unwrap_or_else(|e| panic!("{name}: {e}"));
        let dumps = std::sync::Arc::new(archive.dumps);
        for i in 0..dumps.len() {
            for model in Model::ALL {
                let (dumps, name2) = (dumps.clone(), name.clone());
                jobs.push(Job {
                    key: format!("{name} {model}#{i:04}"),
                    make: Box::new(move || {
                        conformance::replay_one(&name2, i, &dumps[i], model)
                            .map(|r| r.capture.bytes)
                            .map_err(|e| e.to_string())
                    }),
                });
            }
        }
    }
    jobs
}

/// The BBS sample models at the scene builder's defaults, both models.
fn sample_jobs(dir: &Path) -> Vec<Job> {
    use psprender::scene::{self, RenderOptions};
    let mut jobs = Vec::new();
    let mut files = files_with(dir, ".pmo");
    files.extend(files_with(dir, ".pmp"));
    for path in files {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
        for model in Model::ALL {
            let path = path.clone();
            jobs.push(Job {
                key: format!("{name} {model}"),
                make: Box::new(move || {
                    let m = scene::Model::load(&path).map_err(|e| e.to_string())?;
                    let opts = RenderOptions::default();
                    let cam = scene::auto_camera(&m, None, &opts, 0.5, scene::DEFAULT_PITCH, scene::DEFAULT_FOV);
                    let frame = scene::build_frame(&m, None, &cam, &opts).map_err(|e| e.to_string())?;
                    let mut g = ge::Ge::with_model(model);
                    frame.render(&mut g).map(|img| img.rgba).map_err(|e| e.to_string())
                }),
            });
        }
    }
    jobs
}

/// Jobs keyed `KEY#PART` fold into one line `KEY` whose hash covers every part's hash in
/// order (readback archives hold up to a thousand dumps each).
fn group(got: BTreeMap<String, String>) -> BTreeMap<String, String> {
    let mut parts: BTreeMap<String, String> = BTreeMap::new();
    for (k, h) in got {
        let key = k.split_once('#').map_or(k.as_str(), |(key, _)| key).to_string();
        let entry = parts.entry(key).or_default();
        entry.push_str(&h);
        entry.push('\n');
    }
    parts
        .into_iter()
        .map(
            |(k, all)| {
                if all.lines().count() == 1 {
                    (k, all.trim_end().to_string())
                } else {
                    (k, hash(all.as_bytes()))
                }
            },
        )
        .collect()
}

fn read_list(path: &Path) -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| l.rsplit_once(' ').map(|(k, h)| (k.to_string(), h.to_string())))
        .collect()
}

fn write_list(path: &Path, list: &BTreeMap<String, String>) {
    let mut text = String::from("# our own output hashes: see tests/byte_identity.rs (not a correctness reference)\n");
    for (k, h) in list {
        text.push_str(&format!("{k} {h}\n"));
    }
    let dir = path.parent().expect("hash list has a folder");
    std::fs::create_dir_all(dir).unwrap();
    let mut tmp = tempfile::NamedTempFile::new_in(dir).unwrap();
    std::io::Write::write_all(&mut tmp, text.as_bytes()).unwrap();
    tmp.persist(path).unwrap();
}

/// Hash every job of `list` (corpus folder `rel` in ../shared) and compare with
/// `tests/hashes/LIST.txt`, or rewrite it under `PSPRENDER_BLESS=1`.
fn check(list: &str, rel: &str, jobs: impl Fn(&Path) -> Vec<Job>) {
    let Some(dir) = psprender::shared::corpus(rel) else { return };
    let start = std::time::Instant::now();
    let jobs = jobs(&dir);
    let got: BTreeMap<String, String> = jobs
        .par_iter()
        .map(|j| (j.key.clone(), (j.make)().map_or_else(|e| format!("error:{}", e.replace(' ', "_")), |b| hash(&b))))
        .collect();
    let got = group(got);
    let path = hashes_dir().join(format!("{list}.txt"));
    if std::env::var_os("PSPRENDER_BLESS").is_some() {
        write_list(&path, &got);
        eprintln!("{list}: blessed {} outputs", got.len());
        return;
    }
    let want = read_list(&path);
    let mut failures = Vec::new();
    for (k, h) in &got {
        match want.get(k) {
            Some(w) if w == h => {}
            Some(w) => failures.push(format!("{k}: {h} (list: {w})")),
            None => failures.push(format!("{k}: not in {}", path.display())),
        }
    }
    failures.extend(want.keys().filter(|k| !got.contains_key(*k)).map(|k| format!("{k}: listed but not produced")));
    eprintln!(
        "{list}: {} outputs hashed in {:.1} s, {} differ",
        got.len(),
        start.elapsed().as_secs_f64(),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{list}: {} outputs changed bytes (re-bless with PSPRENDER_BLESS=1 only if intended):\n{}",
        failures.len(),
        failures.iter().take(20).cloned().collect::<Vec<_>>().join("\n")
    );
}

#[test]
fn frametests_keep_their_bytes() {
    check("frametests", "frametests", |d| dump_jobs(d, ".zip"));
}

#[test]
fn hardware_dumps_keep_their_bytes() {
    check("hardware", "conformance/hardware", |d| dump_jobs(d, ".ppdmp"));
}

#[test]
fn synthetic_scenes_keep_their_bytes() {
    check("synthetic", "conformance/synthetic", |d| dump_jobs(d, ".ppdmp"));
}

#[test]
fn readbacks_keep_their_bytes() {
    check("readback", "conformance/hardware/readback", readback_jobs);
}

#[test]
fn bbs_samples_keep_their_bytes() {
    check("samples", "samples/bbs-pmo", sample_jobs);
}
