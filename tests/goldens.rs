//! Golden images: small scenes written as raw GE command words (src/scenes.rs), rendered
//! and compared byte-exactly with `goldens/NAME.png`.
//!
//! On a mismatch the test writes `goldens/NAME.actual.png` and `goldens/NAME.diff.png`.
//! After checking a change by eye, bless the new images with
//! `PSPRENDER_BLESS=1 cargo test --release --test goldens`.
//!
//! Each scene also has spot checks computed by hand from the GE rules, so a blessed
//! golden cannot silently encode a wrong rule for those pixels.

use ge::display::{DisplayBuffer, Image};
use psprender::scenes::{self, Scene};
use std::path::PathBuf;

/// The goldens were blessed under PPSSPP's renderer model (the model the spot checks'
/// PPSSPP-specific pixels describe); the hardware model's pixels for these scenes are
/// checked by the hardware screenshots and readback corpora instead.
const GOLDEN_MODEL: ge::Model = ge::Model::Ppsspp;

fn goldens_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("goldens")
}

fn render(scene: &Scene) -> Image {
    let ge = scenes::run(scene, 2, GOLDEN_MODEL).expect("scene runs");
    DisplayBuffer { addr: 0x0400_0000, stride: 512, format: 3 }.capture(&ge.mem)
}

fn rgb(img: &Image, x: u32, y: u32) -> [u8; 3] {
    let p = img.get(x, y);
    [p[0], p[1], p[2]]
}

/// Hand-derived expectations per scene (pixel, RGB).
fn spot_checks(name: &str) -> Vec<((u32, u32), [u8; 3])> {
    const BG: [u8; 3] = [32, 32, 40];
    match name {
        // Through-mode lines: the centre is covered, a far corner is not.
        "prim_lines" => vec![((5, 5), BG), ((470, 10), BG)],
        // Rectangles: TL->BR sprite (20,20)-(120,120) covers x 20..119; texel (0,0) is
        // palette entry 0 = (0, 255, 0); pixel 120 is outside.
        "prim_rectangles" => vec![((20, 20), [0, 255, 0]), ((120, 60), BG), ((119, 20), [48, 207, 159])],
        // Continuation: the strip's first triangle (40,40),(40,230),(190,40) covers
        // (41, 41); flat corner colours are not involved (Gouraud), so only check coverage
        // outside: (10, 10) stays background.
        "prim_continue" => vec![((10, 10), BG)],
        // Colour boxes span x0..x0+100 (right edge exclusive): 19 and 120 stay background.
        "vfmt_colors" => vec![((19, 100), BG), ((120, 100), BG)],
        // Index grid: the u8 copy starts at x = 30; x = 29 stays background.
        "vfmt_indices" => vec![((29, 75), BG)],
        _ => vec![((0, 0), BG)],
    }
}

/// Compare `img` with `goldens/NAME.png` (or bless it); failures are collected.
fn check(name: &str, img: &Image, bless: bool, failures: &mut Vec<String>) {
    let dir = goldens_dir();
    let path = dir.join(format!("{name}.png"));
    if bless {
        img.save_png(&path).expect("write golden");
        return;
    }
    let Ok(golden) = Image::load(&path) else {
        failures.push(format!("{name}: no golden at {} (bless with PSPRENDER_BLESS=1)", path.display()));
        img.save_png(dir.join(format!("{name}.actual.png"))).ok();
        return;
    };
    if golden.rgba != img.rgba {
        let mse = ge::display::mse(img, &golden);
        img.save_png(dir.join(format!("{name}.actual.png"))).ok();
        ge::display::diff_image(img, &golden).save_png(dir.join(format!("{name}.diff.png"))).ok();
        failures.push(format!("{name}: differs from golden (MSE {mse:.4}); see goldens/{name}.diff.png"));
    }
}

fn bless() -> bool {
    std::env::var_os("PSPRENDER_BLESS").is_some()
}

#[test]
fn golden_images() {
    let mut failures = Vec::new();
    for scene in scenes::SCENES {
        let img = render(scene);
        for ((x, y), want) in spot_checks(scene.name) {
            let got = rgb(&img, x, y);
            if got != want {
                failures.push(format!("{}: pixel ({x},{y}) is {got:?}, expected {want:?}", scene.name));
            }
        }
        check(scene.name, &img, bless(), &mut failures);
    }
    assert!(failures.is_empty(), "golden failures:\n{}", failures.join("\n"));
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
        check(name, &img, bless(), &mut failures);
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
        check(&name, &img, bless(), &mut failures);
        images.push(img);
    }
    for w in images.windows(2) {
        assert!(w[0].rgba != w[1].rgba, "poses at different times must differ");
    }
    assert!(failures.is_empty(), "golden failures:\n{}", failures.join("\n"));
}
