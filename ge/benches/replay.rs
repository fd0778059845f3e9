//! Replay every shared frame dump (`../shared/frametests/*.zip`, or
//! `$PSPRENDER_SHARED/frametests`) with 1 and 2 raster threads, under both GE models
//! (the PPSSPP model adds its bin queue, strips and state optimizations).
//!
//! `cargo bench -p ge`. Each iteration is a complete replay on a fresh GE (memory
//! allocation included), the same unit as PPSSPP's `--bench` figures in
//! `frametests/PERF.md` minus its emulator start-up.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

fn main() {
    divan::main();
}

fn shared() -> Option<PathBuf> {
    let dir = std::env::var_os("PSPRENDER_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared"));
    dir.join("frametests").is_dir().then_some(dir)
}

fn dumps() -> &'static Vec<(String, ge::dump::Dump)> {
    static D: OnceLock<Vec<(String, ge::dump::Dump)>> = OnceLock::new();
    D.get_or_init(|| {
        let Some(dir) = shared() else {
            eprintln!("benches: no shared corpus (../shared or $PSPRENDER_SHARED); nothing to replay");
            return Vec::new();
        };
        let mut files: Vec<_> = std::fs::read_dir(dir.join("frametests"))
            .map(|r| r.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default();
        files.retain(|p| p.extension().is_some_and(|e| e == "zip"));
        files.sort();
        files
            .into_iter()
            .filter_map(|p| {
                let name = p.file_stem()?.to_string_lossy().to_string();
                ge::dump::Dump::open(&p).ok().map(|d| (name, d))
            })
            .collect()
    })
}

fn names() -> Vec<String> {
    dumps().iter().map(|(n, _)| n.clone()).collect()
}

fn pool(threads: usize) -> Arc<rayon::ThreadPool> {
    static P: OnceLock<[Arc<rayon::ThreadPool>; 2]> = OnceLock::new();
    let p = P.get_or_init(|| {
        let mk = |n| Arc::new(rayon::ThreadPoolBuilder::new().num_threads(n).build().expect("thread pool"));
        [mk(1), mk(2)]
    });
    p[threads - 1].clone()
}

fn replay(name: &str, model: ge::Model, threads: usize) {
    let Some((_, dump)) = dumps().iter().find(|(n, _)| n == name) else { return };
    let mut ge = ge::Ge::with_model(model);
    ge.set_pool(pool(threads));
    divan::black_box(ge::dump::replay_image(dump, &mut ge).ok());
}

#[divan::bench(args = names(), sample_count = 10, sample_size = 1)]
fn hardware_threads_1(name: &str) {
    replay(name, ge::Model::Hardware, 1);
}

#[divan::bench(args = names(), sample_count = 10, sample_size = 1)]
fn hardware_threads_2(name: &str) {
    replay(name, ge::Model::Hardware, 2);
}

#[divan::bench(args = names(), sample_count = 10, sample_size = 1)]
fn ppsspp_threads_1(name: &str) {
    replay(name, ge::Model::Ppsspp, 1);
}

#[divan::bench(args = names(), sample_count = 10, sample_size = 1)]
fn ppsspp_threads_2(name: &str) {
    replay(name, ge::Model::Ppsspp, 2);
}
