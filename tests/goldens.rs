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

fn goldens_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("goldens")
}

fn render(scene: &Scene) -> Image {
    let ge = scenes::run(scene, 2).expect("scene runs");
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
    let bless = std::env::var_os("PSPRENDER_BLESS").is_some();
    let dir = goldens_dir();
    let mut failures = Vec::new();
    for scene in scenes::SCENES {
        let img = render(scene);
        for ((x, y), want) in spot_checks(scene.name) {
            let got = rgb(&img, x, y);
            if got != want {
                failures.push(format!("{}: pixel ({x},{y}) is {got:?}, expected {want:?}", scene.name));
            }
        }
        let path = dir.join(format!("{}.png", scene.name));
        if bless {
            img.save_png(&path).expect("write golden");
            continue;
        }
        let Ok(golden) = Image::load(&path) else {
            failures.push(format!("{}: no golden at {} (bless with PSPRENDER_BLESS=1)", scene.name, path.display()));
            img.save_png(dir.join(format!("{}.actual.png", scene.name))).ok();
            continue;
        };
        if golden.rgba != img.rgba {
            let mse = ge::display::mse(&img, &golden);
            img.save_png(dir.join(format!("{}.actual.png", scene.name))).ok();
            ge::display::diff_image(&img, &golden).save_png(dir.join(format!("{}.diff.png", scene.name))).ok();
            failures.push(format!(
                "{}: differs from golden (MSE {mse:.4}); see goldens/{}.diff.png",
                scene.name, scene.name
            ));
        }
    }
    assert!(failures.is_empty(), "golden failures:\n{}", failures.join("\n"));
}
