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
