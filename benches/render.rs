//! Model renders through the GE model: `cargo bench -p psprender`.
//!
//! * `sample`: the BBS samples (p01ex00 in bind pose, and the largest map piece) at
//!   480x272 with the automatic camera, 1 and 2 raster threads; skipped without
//!   `../shared`. One iteration = build the display list + run it on a reused GE + capture,
//!   i.e. one viewer/sequence frame.
//! * `fresh_ge`: the same for p01ex00 on a fresh GE per frame (what `render` does once).

use psprender::scene::{self, camera::Camera, Model, RenderOptions};
use std::sync::OnceLock;

fn main() {
    divan::main();
}

fn model(name: &str) -> Option<(&'static Model, &'static Camera)> {
    static CACHE: OnceLock<Vec<(String, Model, Camera)>> = OnceLock::new();
    let all = CACHE.get_or_init(|| {
        ["p01ex00.pmo", "g59dc00.pmo"]
            .iter()
            .filter_map(|n| {
                let path = psprender::shared::sample(&format!("bbs-pmo/{n}"))?;
                let m = Model::load(&path).ok()?;
                let cam = scene::auto_camera(&m, None, &RenderOptions::default(), 0.5, 0.15, 40.0);
                Some((n.to_string(), m, cam))
            })
            .collect()
    });
    all.iter().find(|(n, ..)| n == name).map(|(_, m, c)| (m, c))
}

#[divan::bench(args = ["p01ex00.pmo", "g59dc00.pmo"], consts = [1, 2])]
fn sample<const THREADS: usize>(bencher: divan::Bencher, name: &str) {
    let Some((m, cam)) = model(name) else { return };
    let opts = RenderOptions::default();
    let mut ge = ge::Ge::new();
    ge.set_threads(THREADS);
    bencher.bench_local(|| {
        let frame = scene::build_frame(m, None, cam, &opts).unwrap();
        frame.render(&mut ge).unwrap()
    });
}

#[divan::bench(consts = [1, 2])]
fn fresh_ge<const THREADS: usize>(bencher: divan::Bencher) {
    let Some((m, cam)) = model("p01ex00.pmo") else { return };
    let opts = RenderOptions::default();
    bencher.bench_local(|| scene::render(m, None, cam, &opts, THREADS).unwrap());
}
