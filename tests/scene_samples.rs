//! The scene builder on the real BBS samples (skipped without `../shared`): every model and
//! map renders, the culling choice is checked against the closed character meshes, and the
//! render hashes are kept as an insta snapshot so any pixel change shows up in review.

use ge::display::{mse, Image};
use psprender::scene::{self, Model, RenderOptions};
use sha2::{Digest, Sha256};

const SAMPLES: [&str; 8] = [
    "bbs-dummy.pmo",
    "p01ex00.pmo",
    "h03ex00.pmo",
    "h_zz130.pmo",
    "g53kg00.pmo",
    "g59dc00.pmo",
    "bbs-testmap.pmp",
    "jb_50.pmp",
];

fn load(name: &str) -> Option<Model> {
    let path = psprender::shared::sample(&format!("bbs-pmo/{name}"))?;
    Some(Model::load(&path).expect("sample loads"))
}

fn render(model: &Model, opts: &RenderOptions, threads: usize) -> Image {
    let cam = scene::auto_camera(model, None, opts, 0.5, scene::DEFAULT_PITCH, scene::DEFAULT_FOV);
    scene::render(model, None, &cam, opts, threads).expect("renders")
}

fn hash(img: &Image) -> String {
    let d = Sha256::digest(&img.rgba);
    d.iter().take(12).map(|b| format!("{b:02x}")).collect()
}

#[test]
fn every_sample_renders() {
    let mut lines = Vec::new();
    for name in SAMPLES {
        let Some(model) = load(name) else { return };
        let opts = RenderOptions::default();
        let img = render(&model, &opts, 2);
        let bg = &opts.background[..3];
        let drawn = (0..272).flat_map(|y| (0..480).map(move |x| (x, y))).filter(|&(x, y)| img.get(x, y)[..3] != *bg);
        let n = drawn.count();
        assert!(n > 2000, "{name}: only {n} pixels drawn");
        lines.push(format!("{name}: {} ({n} px)", hash(&img)));
    }
    insta::assert_snapshot!("sample_render_hashes", lines.join("\n"));
}

#[test]
fn threads_do_not_change_sample_renders() {
    for name in ["p01ex00.pmo", "g59dc00.pmo"] {
        let Some(model) = load(name) else { return };
        let opts = RenderOptions::default();
        assert_eq!(render(&model, &opts, 1), render(&model, &opts, 2), "{name}");
    }
}

/// Evidence for `policy::FRONT_CULL`: on closed, opaque character meshes correct culling
/// changes almost nothing against no culling, while the opposite winding shows insides.
#[test]
fn culling_keeps_the_outside_of_closed_meshes() {
    for name in ["p01ex00.pmo", "h03ex00.pmo", "h_zz130.pmo"] {
        let Some(model) = load(name) else { return };
        let mut o = RenderOptions::default();
        o.policy.cull = false;
        let none = render(&model, &o, 2);
        o.policy.cull = true;
        let right = render(&model, &o, 2);
        o.policy.cull_face ^= 1;
        let wrong = render(&model, &o, 2);
        let (r, w) = (mse(&right, &none), mse(&wrong, &none));
        assert!(r < 10.0 && w > 10.0 * r, "{name}: chosen winding MSE {r}, other {w}");
    }
}

/// Skinning happens on the GE: the drawn silhouette of p01ex00 posed by test.pam at frame 0
/// spans the same screen box as the CPU-skinned vertices (reference path `skin_positions`,
/// checked against the independent decoder's bounding box in the PAM tests) projected with
/// the same camera.
#[test]
fn ge_skinning_matches_cpu_skinning_on_screen() {
    use psprender::pam::{self, pose::skin_positions, PoseOptions};
    let (Some(model), Some(pam_path)) = (load("p01ex00.pmo"), psprender::shared::sample("bbs-pam/test.pam")) else {
        return;
    };
    let pam = pam::Pam::parse(&std::fs::read(pam_path).unwrap()).unwrap();
    let anim = pam.animations[0].as_ref().unwrap();
    let sk = model.skeleton().unwrap();
    let pose = pam::pose_globals(sk, anim, 0.0, &PoseOptions::default());
    let mut opts = RenderOptions::default();
    opts.policy.alpha_test = false; // every covered pixel counts, whatever its texel alpha
    let cam = scene::auto_camera(&model, Some(&pose), &opts, 0.6, 0.2, 40.0);
    let img = scene::render(&model, Some(&pose), &cam, &opts, 2).unwrap();
    let bg = &opts.background[..3];
    let (mut x0, mut y0, mut x1, mut y1) = (480u32, 272u32, 0u32, 0u32);
    for y in 0..272 {
        for x in 0..480 {
            if img.get(x, y)[..3] != *bg {
                (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
            }
        }
    }
    let cpu = skin_positions(&model.pmos[0], &sk.skin_matrices(&pose));
    let (mut a0, mut b0, mut a1, mut b1) = (f32::MAX, f32::MAX, f32::MIN, f32::MIN);
    for p in cpu {
        let (sx, sy) = cam.project(p).unwrap();
        (a0, b0, a1, b1) = (a0.min(sx), b0.min(sy), a1.max(sx), b1.max(sy));
    }
    for (drawn, cpu) in [(x0, a0), (y0, b0), (x1, a1), (y1, b1)] {
        assert!((drawn as f32 - cpu).abs() <= 2.0, "drawn box {x0},{y0}-{x1},{y1} vs CPU {a0},{b0}-{a1},{b1}");
    }
}

/// `export-dump` round trip: the recorded dump replays to exactly the rendered screen, for
/// every sample (and p01ex00 posed by test.pam).
#[test]
fn recorded_dumps_replay_to_the_same_bytes() {
    for name in SAMPLES {
        let Some(model) = load(name) else { return };
        let mut poses = vec![None];
        if name == "p01ex00.pmo" {
            if let Some(p) = psprender::shared::sample("bbs-pam/test.pam") {
                let pam = psprender::pam::Pam::parse(&std::fs::read(p).unwrap()).unwrap();
                let sk = model.skeleton().unwrap();
                let a = pam.animations[0].as_ref().unwrap();
                poses.push(Some(psprender::pam::pose_globals(sk, a, 44.5, &Default::default())));
            }
        }
        for pose in poses {
            let opts = RenderOptions::default();
            let cam = scene::auto_camera(&model, pose.as_deref(), &opts, 0.5, 0.2, 40.0);
            let frame = scene::build_frame(&model, pose.as_deref(), &cam, &opts).unwrap();
            let mut ge = ge::Ge::new();
            ge.start_recording();
            let rendered = frame.render(&mut ge).unwrap();
            let dump = ge.finish_recording(frame.display).unwrap();
            let parsed = ge::dump::Dump::parse(&dump.to_bytes()).unwrap();
            assert_eq!(parsed.version, 6);
            let mut fresh = ge::Ge::new();
            let disp = ge::dump::replay(&parsed, &mut fresh).unwrap();
            assert_eq!(disp, frame.display, "{name}");
            assert!(disp.capture(&fresh.mem) == rendered, "{name}: replay differs from render");
        }
    }
}
