//! Golden images of the scene builder: synthetic PMO models and PAM poses drawn through
//! the GE, compared byte-exactly with `goldens/NAME.png` (the GE's own scenes have their
//! goldens in `ge/tests/goldens.rs`).
//!
//! On a mismatch the test writes `goldens/NAME.actual.png` and `goldens/NAME.diff.png`.
//! After checking a change by eye, bless the new images with
//! `PSPRENDER_BLESS=1 cargo test --release --test goldens`.
//!
//! Each image also has independent checks (background corners, covered centre, bind pose
//! at frame 0), so a blessed golden cannot silently encode a wrong rule there.

use ge::display::Image;
use std::path::PathBuf;

/// These goldens were blessed under PPSSPP's renderer model (before the hardware model
/// existed); both models' determinism is checked in `tests/determinism.rs`.
const GOLDEN_MODEL: ge::Model = ge::Model::Ppsspp;

fn goldens_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("goldens")
}

fn rgb(img: &Image, x: u32, y: u32) -> [u8; 3] {
    let p = img.get(x, y);
    [p[0], p[1], p[2]]
}

fn bless() -> bool {
    std::env::var_os("PSPRENDER_BLESS").is_some()
}

/// Synthetic PMO models (written by the PMO writer) drawn by the scene builder, and the
/// skinned column posed by the synthetic PAM. Independent checks beside the exact compare:
/// the screen corners show the background, the model covers the centre region, and the
/// animation's frame 0 (its channels decompose the bind locals) draws the bind pose.
#[test]
fn pmo_golden_images() {
    let mut failures = Vec::new();
    let frames = psprender::synth::goldens::golden_frames();
    let mut images = std::collections::BTreeMap::new();
    for (name, frame) in &frames {
        let mut ge = ge::Ge::with_model(GOLDEN_MODEL);
        ge.set_threads(2);
        let img = frame.render(&mut ge).expect("frame runs");
        let bg = psprender::scene::RenderOptions::default().background;
        for (x, y) in [(0, 0), (479, 0), (0, 271), (479, 271)] {
            if rgb(&img, x, y) != [bg[0], bg[1], bg[2]] {
                failures.push(format!("{name}: corner ({x},{y}) is not the background"));
            }
        }
        let covered = (96..176)
            .flat_map(|y| (180..300).map(move |x| (x, y)))
            .any(|(x, y)| rgb(&img, x, y) != [bg[0], bg[1], bg[2]]);
        if !covered {
            failures.push(format!("{name}: nothing drawn near the centre"));
        }
        if let Err(e) = ge::display::check_golden(&goldens_dir(), name, &img, bless()) {
            failures.push(e);
        }
        images.insert(name.clone(), img);
    }
    let (Some(f0), Some(bind), Some(f15)) =
        (images.get("pam_sway_f00_0"), images.get("pmo_skinned"), images.get("pam_sway_f15_0"))
    else {
        panic!("posed goldens missing: {:?}", images.keys().collect::<Vec<_>>());
    };
    let close = ge::display::mse(f0, bind);
    assert!(close < 0.5, "frame 0 should draw the bind pose (MSE {close})");
    assert!(ge::display::mse(f15, bind) > 10.0 * close.max(0.1), "frame 15 should move");
    assert!(failures.is_empty(), "golden failures:\n{}", failures.join("\n"));
}

/// The KH2 skeleton goldens (writer-made biped and walk motion, GE lines and points).
/// Independent checks: corners show the background; every joint's projected position
/// (camera maths on the CPU, not the GE) has a joint-coloured pixel within 1 pixel;
/// consecutive times differ.
#[test]
fn kh2_golden_images() {
    let style = psprender::kh2::render::Style::default();
    let mut failures = Vec::new();
    let mut images = Vec::new();
    for (name, frame, joints) in psprender::synth::goldens::kh2_golden_frames() {
        let mut ge = ge::Ge::new();
        ge.set_threads(2);
        let img = frame.render(&mut ge).expect("frame runs");
        for (x, y) in [(0, 0), (479, 0), (0, 271), (479, 271)] {
            if rgb(&img, x, y) != style.background {
                failures.push(format!("{name}: corner ({x},{y}) is not the background"));
            }
        }
        let screen: Vec<(f32, f32)> = joints.iter().map(|&p| frame.camera.project(p).expect("in front")).collect();
        for (j, &(sx, sy)) in screen.iter().enumerate() {
            let near = (-1..=1).flat_map(|dy| (-1..=1).map(move |dx| (dx, dy))).any(|(dx, dy)| {
                let (x, y) = ((sx as i32 + dx).clamp(0, 479) as u32, (sy as i32 + dy).clamp(0, 271) as u32);
                rgb(&img, x, y) == style.joint
            });
            if !near {
                failures.push(format!("{name}: joint {j} at ({sx:.1},{sy:.1}) has no joint pixel"));
            }
        }
        if let Err(e) = ge::display::check_golden(&goldens_dir(), &name, &img, bless()) {
            failures.push(e);
        }
        images.push(img);
    }
    for w in images.windows(2) {
        assert!(w[0].rgba != w[1].rgba, "poses at different times must differ");
    }
    assert!(failures.is_empty(), "golden failures:\n{}", failures.join("\n"));
}
