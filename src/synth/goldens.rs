//! The golden-image scenes made from synthetic models: every vertex-format family, every
//! blend attribute, the skinned column, both mesh lists, the demo, and the skinned column
//! posed by the synthetic PAM at several frames. Used by `tests/goldens.rs` (exact PNG
//! compare) and `tests/determinism.rs` (1 vs N threads).

use crate::pam::{pose_globals, PoseOptions};
use crate::scene::{self, Frame, Model, RenderOptions};
use glam::Mat4;

/// Frames of [`super::anim::column_animation`] that get a golden image.
pub const POSED_FRAMES: [f32; 4] = [0.0, 7.5, 15.0, 45.0];

/// A frame with the camera framing the bind pose (fixed across animation frames).
fn frame(model: &Model, pose: Option<&[Mat4]>) -> Frame {
    let opts = RenderOptions::default();
    let cam = scene::auto_camera(model, None, &opts, 0.6, 0.35, scene::DEFAULT_FOV);
    scene::build_frame(model, pose, &cam, &opts).expect("synthetic models build")
}

/// (name, frame) for every golden scene, in a fixed order.
pub fn golden_frames() -> Vec<(String, Frame)> {
    let mut out = Vec::new();
    let mut add = |name: String, pmo: crate::pmo::Pmo| {
        let m = Model::from_pmo(pmo).expect("synthetic model converts");
        out.push((name, frame(&m, None)));
    };
    for (n, m) in super::format_family_models() {
        add(format!("pmo_{n}"), m);
    }
    for (n, m) in super::blend_models() {
        add(format!("pmo_blend_{n}"), m);
    }
    add("pmo_skinned".into(), super::skinned_model());
    add("pmo_two_lists".into(), super::two_list_model());
    add("pmo_demo".into(), super::demo_model());
    let model = Model::from_pmo(super::skinned_model()).expect("synthetic model converts");
    let pam = super::anim::column_animation();
    let (Some(anim), Some(sk)) = (pam.animations[0].as_ref(), model.skeleton()) else {
        return out;
    };
    for f in POSED_FRAMES {
        let pose = pose_globals(sk, anim, f, &PoseOptions::default());
        out.push((format!("pam_sway_f{:04.1}", f).replace('.', "_"), frame(&model, Some(&pose))));
    }
    out
}

/// Game times (GFR ticks) of [`crate::kh2::synth::biped_walk`] that get a golden image.
pub const KH2_TIMES: [f32; 3] = [0.0, 30.0, 75.0];

/// The writer-made KH2 biped and walk motion (written to bytes and parsed back, so the goldens
/// go through the parser) posed at [`KH2_TIMES`] and drawn as GE lines and points, one camera
/// framing the whole loop: (name, frame, model-space joint positions).
pub fn kh2_golden_frames() -> Vec<(String, Frame, Vec<glam::Vec3>)> {
    use crate::kh2::{eval::Evaluator, render, InterpolatedMotion, Skeleton};
    let bytes = crate::kh2::synth::biped_walk().to_bytes().expect("walk writes");
    let motion = InterpolatedMotion::parse(&bytes).expect("walk parses");
    let skeleton = Skeleton::from_mdlx(&Skeleton::biped().to_mdlx().expect("biped writes")).expect("biped parses");
    let ev = Evaluator::new(&motion, Some(&skeleton)).expect("walk fits the biped");
    let globals = |t: f32| ev.pose(t).globals.expect("skeleton given");
    let all: Vec<Vec<Mat4>> = (0..=120).step_by(5).map(|t| globals(t as f32)).collect();
    let camera = render::auto_camera(&render::bounds(all.iter().map(Vec::as_slice)));
    let parents = ev.parents.clone().expect("skeleton given");
    KH2_TIMES
        .iter()
        .map(|&t| {
            let g = globals(t);
            let frame = render::build_frame(&g, &parents, 12, &camera, &render::Style::default());
            (format!("kh2_walk_t{:03}", t as u32), frame, render::joint_positions(&g))
        })
        .collect()
}
