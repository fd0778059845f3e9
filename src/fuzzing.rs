//! Fuzzing entry points for every file parser: plain functions the libFuzzer targets in
//! `fuzz/` and the stable corpus replay (`tests/fuzz_corpus.rs`) both call. Each parses
//! the bytes and, when they parse, runs the next stage the CLI would: a model is drawn
//! through the GE (under the harness budget of [`ge::fuzzing`], which keeps it inside a
//! small scissor), an animation is evaluated at several times, and every format with a
//! writer is written back and re-parsed.
//!
//! The round trip checked is a fixed point on bytes: `write(parse(write(parse(x))))` equals
//! `write(parse(x))`. Bytes rather than values, because NaN fields compare unequal to
//! themselves; a difference panics on purpose so the fuzzer reports it. Errors from the
//! parsers are the expected outcome for most inputs and are ignored here (their messages
//! are tested where each parser is).
//!
//! [`TARGETS`] lists every target by the name its corpus folder has; [`run`] dispatches.

pub mod seeds;

use crate::kh2::bar::{self, Anb, Payload};
use crate::kh2::eval::Evaluator;
use crate::kh2::{Bar, Motion, Skeleton, Triggers};
use crate::pam::Pam;
use crate::pmo::Pmo;
use crate::pmp::Pmp;
use crate::popcap;
use crate::scene::{self, RenderOptions};
use crate::tim2::Tim2;
use ge::Model;

/// Every fuzz target: its name (= `fuzz/corpus/NAME/`, `fuzz/fuzz_targets/NAME.rs`).
pub const TARGETS: &[&str] =
    &["pmo", "pmp", "tim2", "pam", "kh2_bar", "kh2_motion", "kh2_mdlx", "popcap", "ppdmp", "ge_commands", "ge_dump"];

/// Run target `name` on `data`; `false` for an unknown name.
pub fn run(name: &str, data: &[u8]) -> bool {
    match name {
        "pmo" => pmo(data),
        "pmp" => pmp(data),
        "tim2" => tim2(data),
        "pam" => pam(data),
        "kh2_bar" => kh2_bar(data),
        "kh2_motion" => kh2_motion(data),
        "kh2_mdlx" => kh2_mdlx(data),
        "popcap" => popcap(data),
        "ppdmp" => ge::fuzzing::dump_file(data),
        "ge_commands" => {
            let _ = ge::fuzzing::commands(data);
        }
        "ge_dump" => ge::fuzzing::dump_records(data),
        _ => return false,
    }
    true
}

/// Panic unless writing what parsing the written bytes gives reproduces them.
fn fixed_point<T, E: std::fmt::Debug>(
    what: &str,
    first: Result<Vec<u8>, E>,
    parse: impl Fn(&[u8]) -> Result<T, E>,
    write: impl Fn(&T) -> Result<Vec<u8>, E>,
) {
    // A value the writer refuses (documented per writer) has nothing to round-trip.
    let Ok(bytes) = first else { return };
    let again = parse(&bytes).unwrap_or_else(|e| panic!("{what}: written bytes do not parse: {e:?}"));
    let rewritten = write(&again).unwrap_or_else(|e| panic!("{what}: re-parsed value does not write: {e:?}"));
    assert!(rewritten == bytes, "{what}: write(parse(write(x))) differs from write(x)");
}

/// Draw `model` under the GE fuzz budget (32×32 scissor), bind pose, automatic camera.
fn draw(model: &scene::Model, pose: Option<&[glam::Mat4]>) {
    let opts = RenderOptions::default();
    let camera = scene::auto_camera(model, pose, &opts, 30.0, 10.0, 45.0);
    if let Ok(frame) = scene::build_frame(model, pose, &camera, &opts) {
        let mut ge = ge::fuzzing::fuzz_ge(Model::Hardware);
        let _ = frame.list.run(&mut ge);
    }
}

/// BBS PMO: parse, round trip, decode textures, draw bind pose.
pub fn pmo(data: &[u8]) {
    let Ok(pmo) = Pmo::parse(data) else { return };
    fixed_point("PMO", pmo.to_bytes(), Pmo::parse, Pmo::to_bytes);
    for t in &pmo.textures {
        if let Some(Ok(tim)) = t.parse_tim2() {
            tim.pictures.iter().for_each(|p| drop(p.rgba()));
        }
    }
    if let Ok(model) = scene::Model::from_pmo(pmo) {
        draw(&model, None);
    }
}

/// BBS PMP map: parse (every embedded PMO), draw every placed object.
pub fn pmp(data: &[u8]) {
    let Ok(pmp) = Pmp::parse(data) else { return };
    if let Ok(model) = scene::Model::from_pmp(pmp) {
        draw(&model, None);
    }
}

/// TIM2: parse, round trip, expand every picture to RGBA.
pub fn tim2(data: &[u8]) {
    let Ok(tim) = Tim2::parse(data) else { return };
    fixed_point("TIM2", tim.to_bytes(), Tim2::parse, Tim2::to_bytes);
    for p in &tim.pictures {
        let _ = (p.rgba(), p.indices(), p.palette());
    }
}

/// Frames an animation of `frame_count` frames is evaluated at: both ends, a fraction,
/// past the end (the loop rule) and before the start.
fn sample_frames(frame_count: f32) -> [f32; 6] {
    [0.0, 0.5, frame_count * 0.5 + 0.25, frame_count - 1.0, frame_count + 3.5, -2.0]
}

/// BBS PAM: parse, round trip, evaluate every animation at several frames, pose the
/// writer-made column skeleton with it.
pub fn pam(data: &[u8]) {
    let Ok(pam) = Pam::parse(data) else { return };
    fixed_point("PAM", pam.to_bytes(), Pam::parse, Pam::to_bytes);
    let skeleton = crate::synth::column_skeleton();
    for anim in pam.animations.iter().flatten() {
        for f in sample_frames(f32::from(anim.frame_count)) {
            let _ = anim.evaluate(f);
            let _ = crate::pam::pose::pose_globals(&skeleton, anim, f, &Default::default());
        }
    }
}

/// KH2 BAR: parse with placements, round trip, decode every entry's payload (motions are
/// evaluated as in [`kh2_motion`]), and read it as an ANB.
pub fn kh2_bar(data: &[u8]) {
    let Ok((bar, places)) = Bar::parse_placed(data) else { return };
    fixed_point("BAR", bar.to_bytes(), Bar::parse, Bar::to_bytes);
    for (e, p) in bar.entries.iter().zip(&places) {
        match bar::payload(e, p.offset as usize) {
            Ok(Payload::Motion(m)) => motion_stages(&m),
            Ok(Payload::Anb(inner)) => {
                let _ = inner.to_bytes();
            }
            _ => {}
        }
    }
    let _ = Anb::from_bar(&bar, &places, 0);
}

fn motion_stages(m: &Motion) {
    match m {
        Motion::Raw(raw) => {
            for f in sample_frames(raw.frame_count as f32) {
                let _ = raw.matrices_at(f);
            }
        }
        Motion::Interpolated(im) => {
            let skeleton = Skeleton::chain(im.total_joints().min(64), 1.0);
            for sk in [None, Some(&skeleton)] {
                if let Ok(ev) = Evaluator::new(im, sk) {
                    for t in [0.0, 1.5, 30.0, 1000.0, -1.0] {
                        let _ = ev.pose(t);
                    }
                }
            }
        }
    }
}

/// KH2 motion (raw or interpolated, or a trigger table): parse, round trip, evaluate.
pub fn kh2_motion(data: &[u8]) {
    if let Ok(t) = Triggers::parse(data) {
        fixed_point("triggers", t.to_bytes(), Triggers::parse, Triggers::to_bytes);
    }
    let Ok(m) = Motion::parse(data) else { return };
    fixed_point("motion", m.to_bytes(), Motion::parse, Motion::to_bytes);
    motion_stages(&m);
}

/// KH2 MDLX bone table: parse, write into the same file and re-read, write a fresh MDLX.
pub fn kh2_mdlx(data: &[u8]) {
    let Ok(sk) = Skeleton::from_mdlx(data) else { return };
    if let Ok(bytes) = sk.write_into_mdlx(data) {
        let again = Skeleton::from_mdlx(&bytes).expect("MDLX written into a parsed file parses");
        assert_eq!(format!("{again:?}"), format!("{sk:?}"), "MDLX skeleton round trip");
    }
    fixed_point("MDLX", sk.to_mdlx(), Skeleton::from_mdlx, Skeleton::to_mdlx);
}

/// PopCap PAM: parse, round trip, build the timeline, draw lists at several frames, and
/// draw one with placeholders on a 32×32 canvas.
pub fn popcap(data: &[u8]) {
    let Ok(anim) = popcap::Animation::parse(data) else { return };
    fixed_point("PopCap PAM", anim.to_bytes(), popcap::Animation::parse, popcap::Animation::to_bytes);
    let Ok(timeline) = popcap::eval::Timeline::new(&anim) else { return };
    let timeline = std::sync::Arc::new(timeline);
    let mut last = Vec::new();
    for ticks in [0, 1, 7, 1000] {
        if let Ok(player) = popcap::eval::Player::scrubbed(timeline.clone(), ticks) {
            last = player.draw_list();
        }
    }
    let Ok(set) = popcap::render::ImageSet::placeholders(&anim) else { return };
    let opts = popcap::render::RenderOptions {
        size: [32, 32],
        scale: 0.25,
        background: Some([0, 0, 0]),
        nearest: false,
        tile: 32,
        threads: 1,
    };
    if let Ok(mut r) = popcap::render::Renderer::new(&set, opts) {
        let _ = r.render(&last);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_target_has_a_name_and_unknown_names_are_refused() {
        for t in TARGETS {
            assert!(run(t, &[]), "{t}");
            assert!(run(t, &[0xFF; 64]), "{t}");
        }
        assert!(!run("nope", &[]));
    }

    #[test]
    fn writer_made_files_pass_every_stage() {
        for (_, m) in crate::synth::format_family_models() {
            pmo(&m.to_bytes().unwrap());
        }
        pam(&crate::synth::anim::column_animation().to_bytes().unwrap());
    }
}
