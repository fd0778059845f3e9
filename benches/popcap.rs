//! PopCap PAM frames through the GE model: `cargo bench -p psprender --bench popcap`.
//!
//! `sunshroom`: SUNSHROOM_GROWN.PAM (skipped without `../shared`) at its 390x390 size with
//! placeholder images, 1 and 2 raster threads. One iteration = advance the main timeline one
//! frame (scrubbing, cycling through all 135 frames) + build the draw list + build the GE
//! display list + run it on the renderer's GE + read the canvas back: one frame of a
//! sequence or of the viewer. fps = 1 / the median time.
//!
//! Measured on the project machine (2 cores shared with five other builds, load average
//! 10-18, so medians mostly measure waiting; the fastest sample is the unloaded cost):
//!
//! | change                                   | 1 thread fastest / median | 2 threads fastest / median |
//! |------------------------------------------|---------------------------|----------------------------|
//! | before (depth buffer = colour buffer)    | 11.7 ms / 22.8 ms         | 11.5 ms / 20.1 ms          |
//! | depth buffer apart: parallel bands       | 3.6 ms / 14.5 ms          | 2.1 ms / 11.4 ms           |
//! | clear only the last frame's drawn bounds | 1.4 ms / 4.8 ms           | 1.4 ms / 6.5 ms            |
//! | rectangles as row spans (`ge::draw::span`), same-session before: 1.46 / 1.42 ms fastest (load ~8) | 0.96 ms / 1.03 ms | 0.96 ms / 1.04 ms |
//! | per-draw texture shaders, constant stencil off the plain pipeline (fastest of 3×1000 alternating samples, load 8-9; before 0.96 / 0.65 ms) | 0.72 ms / – | 0.54 ms / – |
//!
//! Instructions (callgrind, `--sample-count 135 --sample-size 1`, both thread counts, 270
//! frames): 7.90 G before the texture shaders, 5.57 G after (`draw_quad_plain`, 6.5% of
//! the old profile, is gone: the transparent canvas's stencil REPLACE is a constant).
//!
//! What is left is the GE's pixel pipeline (texture sampling ~46% of the instructions, the
//! row spans and quad kernels ~27%); two threads help little while a frame's drawn bounds
//! span only ~8 bands of 16 rows.

use psprender::popcap::eval::Mode;
use psprender::popcap::render::{ImageSet, RenderOptions, Renderer};
use psprender::popcap::{Animation, Player, Timeline};
use std::sync::Arc;

fn main() {
    divan::main();
}

#[divan::bench(consts = [1, 2])]
fn sunshroom<const THREADS: usize>(bencher: divan::Bencher) {
    let Some(path) = psprender::shared::sample("popcap-pam/SUNSHROOM_GROWN.PAM") else { return };
    let anim = Animation::parse(&std::fs::read(path).unwrap()).unwrap();
    let set = ImageSet::placeholders(&anim).unwrap();
    let opts = RenderOptions { threads: THREADS, ..RenderOptions::for_animation(&anim) };
    let mut r = Renderer::new(&set, opts).unwrap();
    let mut p = Player::new(Arc::new(Timeline::new(&anim).unwrap()), Mode::Scrub, 0).unwrap();
    bencher.bench_local(|| {
        p.tick();
        r.render(&p.draw_list()).unwrap()
    });
}
