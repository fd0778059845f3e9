//! PopCap draw lists through the GE model: golden images (exact) of the writer-made feature
//! scene with placeholders and with generated PNG images, at two frames, plus pixel checks
//! computed by hand from the matrices and the placeholder rules, 1 vs N threads and tile
//! sizes giving identical bytes.
//!
//! Bless after checking by eye: `PSPRENDER_BLESS=1 cargo test --release --test popcap_render`.

use ge::display::Image;
use psprender::popcap::encode::png_bytes;
use psprender::popcap::eval::Mode;
use psprender::popcap::images::{diagonal, placeholder_color, PLACEHOLDER_FILL_ALPHA};
use psprender::popcap::render::{ImageSet, RenderOptions, Renderer};
use psprender::popcap::synth::{feature_scene, test_pixels};
use psprender::popcap::{Animation, Draw, Player, Timeline};
use std::path::PathBuf;
use std::sync::Arc;

const BG: [u8; 3] = [16, 24, 32];

fn draws(a: &Animation, frame: u32) -> Vec<Draw> {
    let tl = Arc::new(Timeline::new(a).unwrap());
    let mut p = Player::new(tl, Mode::Play, 0).unwrap();
    for _ in 0..frame {
        p.tick();
    }
    p.draw_list()
}

fn opts(a: &Animation) -> RenderOptions {
    RenderOptions { background: Some(BG), threads: 2, ..RenderOptions::for_animation(a) }
}

fn render(a: &Animation, set: &ImageSet, o: RenderOptions, frame: u32) -> Image {
    Renderer::new(set, o).unwrap().render(&draws(a, frame)).unwrap()
}

fn rgb(img: &Image, x: u32, y: u32) -> [u8; 3] {
    let i = 4 * (y * img.width + x) as usize;
    [img.rgba[i], img.rgba[i + 1], img.rgba[i + 2]]
}

fn near(got: [u8; 3], want: [f64; 3], tol: f64, what: &str) {
    for k in 0..3 {
        assert!((f64::from(got[k]) - want[k]).abs() <= tol, "{what}: got {got:?}, want {want:?}");
    }
}

/// The images directory: PNGs named by the rules (case-insensitive stems, tags stripped).
fn image_dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("psprender-popcap-images-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    for (i, name, w, h) in [(0, "BOX_24x16.png", 24, 16), (1, "Bar.PNG", 32, 8), (2, "glow.png", 16, 16)] {
        let p = test_pixels(i, w, h);
        let img = Image { width: p.width, height: p.height, rgba: p.rgba };
        std::fs::write(d.join(name), png_bytes(&img).unwrap()).unwrap();
    }
    d
}

fn goldens_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("goldens")
}

fn check_golden(name: &str, img: &Image, failures: &mut Vec<String>) {
    let path = goldens_dir().join(format!("{name}.png"));
    if std::env::var_os("PSPRENDER_BLESS").is_some() {
        std::fs::write(&path, png_bytes(img).unwrap()).unwrap();
        return;
    }
    match Image::load(&path) {
        Ok(g) if g.rgba == img.rgba && g.width == img.width => {}
        Ok(g) => {
            let _ = std::fs::write(goldens_dir().join(format!("{name}.actual.png")), png_bytes(img).unwrap());
            failures.push(format!(
                "{name}: differs from golden ({}x{} vs {}x{})",
                img.width, img.height, g.width, g.height
            ));
        }
        Err(e) => failures.push(format!("{name}: no golden ({e}); bless with PSPRENDER_BLESS=1")),
    }
}

#[test]
fn goldens_placeholders_and_images() {
    let a = feature_scene();
    let placeholders = ImageSet::placeholders(&a).unwrap();
    assert_eq!(placeholders.missing.len(), 3);
    let found = ImageSet::load(&a, Some(&image_dir())).unwrap();
    assert!(found.missing.is_empty(), "name rules find every PNG: {:?}", found.missing);
    let mut failures = Vec::new();
    for frame in 0..2 {
        check_golden(
            &format!("popcap_placeholders_f{frame}"),
            &render(&a, &placeholders, opts(&a), frame),
            &mut failures,
        );
        check_golden(&format!("popcap_images_f{frame}"), &render(&a, &found, opts(&a), frame), &mut failures);
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn placeholder_pixels_follow_the_matrices() {
    let a = feature_scene();
    // Nearest sampling: a pixel shows the texel its centre falls in (bilinear would mix in
    // the neighbour at the GE's interpolation precision).
    let img = render(&a, &ImageSet::placeholders(&a).unwrap(), RenderOptions { nearest: true, ..opts(&a) }, 0);
    let [c0, c1, c2] = [0, 1, 2].map(placeholder_color);
    // Layer 0: image 0 (24x16) translated to (10, 10): frame corners and every diagonal pixel
    // opaque in colour 0; an interior pixel the fill blended over the background.
    for (x, y) in [(10, 10), (33, 10), (10, 25), (33, 25)] {
        assert_eq!(rgb(&img, x, y), c0, "frame corner ({x}, {y})");
    }
    for (x, y) in diagonal(24, 16) {
        assert_eq!(rgb(&img, 10 + x, 10 + y), c0, "diagonal texel ({x}, {y})");
    }
    let fa = f64::from(PLACEHOLDER_FILL_ALPHA) / 255.0;
    let fill = |c: [u8; 3]| std::array::from_fn(|k| f64::from(c[k]) * fa + f64::from(BG[k]) * (1.0 - fa));
    near(rgb(&img, 30, 13), fill(c0), 1.0, "interior fill");
    assert_eq!(rgb(&img, 9, 10), BG);
    assert_eq!(rgb(&img, 34, 26), BG);
    // Layer 1: image 1 (32x8) by [a b c d] = [0 1 -1 0] at (60, 10): x' = 60 − y, y' = 10 + x,
    // so pixel column 59 shows texel row 0 and column 52 texel row 7 (both frame rows), for
    // rows 10..=41; columns 51 and 60 stay background.
    for y in [10, 20, 41] {
        assert_eq!(rgb(&img, 59, y), c1, "rotated top frame row at y {y}");
        assert_eq!(rgb(&img, 52, y), c1, "rotated bottom frame row at y {y}");
        assert_eq!(rgb(&img, 51, y), BG);
        assert_eq!(rgb(&img, 60, y), BG);
    }
    near(rgb(&img, 56, 30), fill(c1), 1.0, "rotated interior");
    // Layer 2: image 0 skewed (c = 0.5) at (90, 20): x' = 90 + x + 0.5·y, y' = 20 + y. Row 20 is
    // texel row 0; row 35 (texel row 15, y centre 15.5) starts at x' = 97.75.
    for x in [91, 100, 112] {
        assert_eq!(rgb(&img, x, 20), c0, "skewed top row x {x}");
    }
    for x in [100, 110] {
        assert_eq!(rgb(&img, x, 35), c0, "skewed bottom row x {x}");
    }
    assert_eq!(rgb(&img, 96, 35), BG, "left of the skewed bottom row");
    // Layer 3: image 1 at (10, 60) modulated by (255, 128, 0): the frame texel times the colour.
    let tint: [f64; 3] = std::array::from_fn(|k| f64::from(c1[k]) * [255.0, 128.0, 0.0][k] / 255.0);
    near(rgb(&img, 10, 60), tint, 1.0, "coloured frame");
    // Layer 4: image 2 additive at (12, 62); (12, 70) is its left frame column below layer 3:
    // background + colour, saturated.
    let add: [f64; 3] = std::array::from_fn(|k| (f64::from(BG[k]) + f64::from(c2[k])).min(255.0));
    near(rgb(&img, 12, 70), add, 0.0, "additive frame");
}

#[test]
fn image_pixels_land_on_texels() {
    let a = feature_scene();
    let set = ImageSet::load(&a, Some(&image_dir())).unwrap();
    let img = render(&a, &set, RenderOptions { nearest: true, ..opts(&a) }, 0);
    // Layer 0 at (10, 10): pixel (10 + x, 10 + y) = texel (x, y) = (10x, 15y, 0).
    for (x, y) in [(0u32, 0u32), (5, 3), (23, 15), (12, 8)] {
        assert_eq!(rgb(&img, 10 + x, 10 + y), [(10 * x) as u8, (15 * y) as u8, 0], "texel ({x}, {y})");
    }
    // Bilinear at whole-pixel translation and scale 1 samples texel centres: same pixels.
    let bil = render(&a, &set, opts(&a), 0);
    for (x, y) in [(0u32, 0u32), (5, 3), (23, 15)] {
        assert_eq!(rgb(&bil, 10 + x, 10 + y), rgb(&img, 10 + x, 10 + y));
    }
}

#[test]
fn transparent_background_alpha() {
    let a = feature_scene();
    let img = render(&a, &ImageSet::placeholders(&a).unwrap(), RenderOptions { background: None, ..opts(&a) }, 0);
    let alpha = |x: u32, y: u32| img.rgba[4 * (y * img.width + x) as usize + 3];
    assert_eq!(alpha(0, 0), 0, "empty canvas is transparent");
    assert_eq!(alpha(10, 10), 255, "drawn pixel is opaque");
    assert_eq!(rgb(&img, 10, 10), placeholder_color(0));
    assert_eq!(rgb(&img, 0, 0), [0, 0, 0]);
}

/// The first 20 pixels where two renders differ: (x, y, a, b).
fn differing(a: &Image, b: &Image) -> Vec<(u32, u32, [u8; 3], [u8; 3])> {
    (0..a.height)
        .flat_map(|y| (0..a.width).map(move |x| (x, y)))
        .filter(|&(x, y)| rgb(a, x, y) != rgb(b, x, y))
        .map(|(x, y)| (x, y, rgb(a, x, y), rgb(b, x, y)))
        .take(20)
        .collect()
}

#[test]
fn threads_and_tiles_give_identical_bytes() {
    let a = feature_scene();
    let set = ImageSet::placeholders(&a).unwrap();
    for frame in 0..2 {
        let one = render(&a, &set, RenderOptions { threads: 1, ..opts(&a) }, frame);
        let many = render(&a, &set, RenderOptions { threads: 3, ..opts(&a) }, frame);
        let diff = differing(&one, &many);
        assert!(diff.is_empty(), "frame {frame}: 1 vs 3 threads differ at (x, y, 1, 3): {diff:?}");
        let tiled = render(&a, &set, RenderOptions { tile: 37, threads: 1, ..opts(&a) }, frame);
        let diff = differing(&one, &tiled);
        assert!(diff.is_empty(), "frame {frame}: 37-pixel tiles differ at: {diff:?}");
    }
    // A canvas past the 512x512 colour buffer: scale 8 gives 1280x960, six tiles.
    let big = RenderOptions { size: [1280, 960], scale: 8.0, nearest: true, ..opts(&a) };
    let whole = render(&a, &set, big.clone(), 0);
    let small = render(&a, &set, RenderOptions { tile: 100, ..big }, 0);
    assert!(whole.rgba == small.rgba, "1280x960 in 512x512 vs 100 tiles");
    // The additive layer (image 2 at (12, 62), x8) crosses row 512: its left frame column
    // (pixels 96..104) at row 560 (texel row 8) is background + colour, from the second tile row.
    let add: [u8; 3] = std::array::from_fn(|k| BG[k].saturating_add(placeholder_color(2)[k]));
    assert_eq!(rgb(&whole, 97, 560), add);
}

/// A renderer reused over a sequence clears only what its last frame drew: every frame must
/// still equal a fresh renderer's, whatever moved away, vanished or came back.
#[test]
fn a_reused_renderer_draws_every_frame_as_a_fresh_one() {
    let a = feature_scene();
    let set = ImageSet::placeholders(&a).unwrap();
    let f0 = draws(&a, 0);
    let f1 = draws(&a, 1);
    // Layer 0 alone, far right and low: the next frame must erase it.
    let mut moved = vec![f0[0].clone()];
    moved[0].matrix.0[4] += 120.0;
    moved[0].matrix.0[5] += 90.0;
    let sequence: [&[Draw]; 7] = [&f0, &f1, &moved, &f0, &[], &f1, &f1];
    for background in [Some(BG), None] {
        let o = RenderOptions { background, threads: 2, ..opts(&a) };
        let mut r = Renderer::new(&set, o.clone()).unwrap();
        for (i, d) in sequence.iter().enumerate() {
            let got = r.render(d).unwrap();
            let fresh = Renderer::new(&set, o.clone()).unwrap().render(d).unwrap();
            let diff = differing(&got, &fresh);
            assert!(diff.is_empty(), "{background:?} frame {i}: reused vs fresh differ at {diff:?}");
        }
    }
}

/// The same over every frame of SUNSHROOM_GROWN.PAM (skipped without ../shared).
#[test]
fn a_reused_renderer_plays_sunshroom_as_fresh_ones() {
    let Some(path) = psprender::shared::sample("popcap-pam/SUNSHROOM_GROWN.PAM") else {
        eprintln!("skipping: ../shared/samples/popcap-pam/SUNSHROOM_GROWN.PAM not found");
        return;
    };
    let a = Animation::parse(&std::fs::read(path).unwrap()).unwrap();
    let set = ImageSet::placeholders(&a).unwrap();
    let o = RenderOptions { threads: 2, ..RenderOptions::for_animation(&a) };
    let mut r = Renderer::new(&set, o.clone()).unwrap();
    let mut p = Player::new(Arc::new(Timeline::new(&a).unwrap()), Mode::Scrub, 0).unwrap();
    for frame in 0..135 {
        let d = p.draw_list();
        let got = r.render(&d).unwrap();
        let fresh = Renderer::new(&set, o.clone()).unwrap().render(&d).unwrap();
        assert!(got.rgba == fresh.rgba, "frame {frame}: reused vs fresh differ at {:?}", differing(&got, &fresh));
        p.tick();
    }
}

#[test]
fn hostile_declared_sizes_are_refused_before_allocating() {
    // 100 images declaring 4000x4000 (6.4 GB of placeholders): an error, not an allocation.
    let v = 6;
    let images = (0..100).map(|i| psprender::popcap::synth::image(&format!("i{i}"), 4000, 4000, v)).collect();
    let a = psprender::popcap::synth::anim(v, images, vec![], psprender::popcap::synth::sprite(v, "m", vec![]));
    let e = ImageSet::placeholders(&a).unwrap_err().to_string();
    assert!(e.contains("bytes of texture"), "{e}");
}
