//! Golden images of the GE's hand-written scenes (`ge::scenes`: raw command words),
//! rendered by both models and compared byte-exactly with `ge/goldens/NAME.png` (PPSSPP
//! model) and `ge/goldens/hardware/NAME.png` (hardware model).
//!
//! On a mismatch the test writes `NAME.actual.png` and `NAME.diff.png` beside the golden.
//! After checking a change by eye, bless the new images with
//! `PSPRENDER_BLESS=1 cargo test --release -p ge --test goldens`.
//!
//! Each scene also has spot checks computed by hand from the GE rules, checked in both
//! models, so a blessed golden cannot silently encode a wrong rule for those pixels.

mod common;

use ge::display::{DisplayBuffer, Image};
use ge::scenes::{self, Scene};
use ge::Model;
use std::path::PathBuf;

fn goldens_dir(model: Model) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("goldens");
    match model {
        Model::Ppsspp => dir,
        Model::Hardware => dir.join("hardware"),
    }
}

fn render(scene: &Scene, model: Model) -> Image {
    let ge = scenes::run(scene, 2, model).expect("scene runs");
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

#[test]
fn golden_images() {
    let mut failures = Vec::new();
    for model in Model::ALL {
        for scene in scenes::SCENES {
            let img = render(scene, model);
            for ((x, y), want) in spot_checks(scene.name) {
                let got = rgb(&img, x, y);
                if got != want {
                    failures.push(format!("{} ({model}): pixel ({x},{y}) is {got:?}, expected {want:?}", scene.name));
                }
            }
            if let Err(e) = ge::display::check_golden(&goldens_dir(model), scene.name, &img, common::bless()) {
                failures.push(format!("{e} ({model} model)"));
            }
        }
    }
    assert!(failures.is_empty(), "golden failures:\n{}", failures.join("\n"));
}
