//! KH2 motions: `cargo bench -p psprender --bench kh2`.
//!
//! `parse_interpolated`: `interpolated.motion` (39 472 bytes, 239 joints; skipped without
//! `../shared`) parsed with every cross-reference checked. `pose_walk`: the writer-made biped
//! walk posed (channels, locals, globals) at a time that moves each iteration. `draw_walk`:
//! that pose drawn as GE lines and points at 480x272 on one raster thread (display list build
//! + run + capture).

use psprender::kh2::eval::Evaluator;
use psprender::kh2::{render, synth, InterpolatedMotion, Skeleton};

fn main() {
    divan::main();
}

#[divan::bench]
fn parse_interpolated(bencher: divan::Bencher) {
    let Some(path) = psprender::shared::sample("kh2-anb/interpolated.motion") else { return };
    let bytes = std::fs::read(path).unwrap();
    bencher.bench_local(|| InterpolatedMotion::parse(divan::black_box(&bytes)).unwrap());
}

#[divan::bench]
fn pose_walk(bencher: divan::Bencher) {
    let m = synth::biped_walk();
    let sk = Skeleton::biped();
    let ev = Evaluator::new(&m, Some(&sk)).unwrap();
    let mut t = 0.0f32;
    bencher.bench_local(|| {
        t = (t + 0.75) % 120.0;
        ev.pose(t)
    });
}

#[divan::bench]
fn draw_walk(bencher: divan::Bencher) {
    let m = synth::biped_walk();
    let sk = Skeleton::biped();
    let ev = Evaluator::new(&m, Some(&sk)).unwrap();
    let parents = ev.parents.clone().unwrap();
    let g = ev.pose(30.0).globals.unwrap();
    let camera = render::auto_camera(&render::bounds([g.as_slice()]));
    let mut ge = ge::Ge::new();
    ge.set_threads(1);
    bencher.bench_local(|| {
        let frame = render::build_frame(&g, &parents, 12, &camera, &render::Style::default());
        frame.render(&mut ge).unwrap()
    });
}
