//! PAM animations as glTF animations on the joint nodes.
//!
//! * Every joint the animation has a bone for gets translation, rotation and scale channels,
//!   even constant ones: an absent PAM channel means 0 / 0 / 1, not the bind pose the node
//!   rests in ([`ChannelKind::default_value`]).
//! * Translation and scale: PAM channels interpolate linearly between their own keys and hold
//!   the ends (`pam::eval`), so the three axes together are piecewise linear with knots at
//!   the union of their key frames; keying the glTF channel (LINEAR) at exactly that union,
//!   with values from our evaluator, reproduces the PAM at every time. Where the three axes
//!   share keys the union is those keys.
//! * Rotation: the PAM interpolates Euler angles, glTF slerps quaternions; the quaternion
//!   R = Rz·Ry·Rx is sampled at every frame (and `steps_per_frame` − 1 points between, see
//!   [`Options`](super::Options)), so integer frames are exact and in-between times differ by
//!   the slerp-vs-Euler gap only.
//! * Time = frame / fps. The loop range (loop-from → loop-to) has no glTF equivalent and goes
//!   to the animation's `extras`.
//! * glTF children inherit their parent's scale; PAM joints by default do not
//!   ([`ScaleInheritance::None`]). The two agree while every joint with children keeps unit
//!   scale, which is checked: an animation scaling a parent joint is refused.

use super::buffer::{extras, Builder, Tracks};
use super::GltfError;
use crate::pam::pose::{EulerOrder, PoseOptions, ScaleInheritance};
use crate::pam::{Animation, ChannelKind, Keys};
use crate::pmo::Skeleton;
use glam::Quat;
use gltf::json;
use serde_json::json;

/// Key frames of the channels `kinds` of `bone`: the union of their stored keys (frame 0 alone
/// when every channel is constant or absent).
pub fn key_frames(anim: &Animation, bone: usize, kinds: [ChannelKind; 3]) -> Vec<u16> {
    let mut frames: Vec<u16> = Vec::new();
    for k in kinds {
        match anim.bones.get(bone).and_then(|b| b.get(k)).map(|c| &c.keys) {
            Some(Keys::Full(v)) if !v.is_empty() => frames.extend(0..v.len() as u16),
            Some(Keys::Sparse(v)) => frames.extend(v.iter().map(|key| key.frame)),
            _ => {}
        }
    }
    frames.sort_unstable();
    frames.dedup();
    if frames.is_empty() {
        frames.push(0);
    }
    frames
}

/// The last frame any channel of `anim` keys (the animation's length minus one at least).
fn last_frame(anim: &Animation) -> u16 {
    let stored = anim
        .channels()
        .map(|(_, _, c)| match &c.keys {
            Keys::Full(v) => v.len().saturating_sub(1) as u16,
            Keys::Sparse(v) => v.last().map_or(0, |k| k.frame),
            Keys::Constant => 0,
        })
        .max()
        .unwrap_or(0);
    stored.max(anim.frame_count.saturating_sub(1))
}

/// The rotation quaternion of Euler angles `r` (radians about X, Y, Z) in `order`.
pub fn euler_quat(r: [f32; 3], order: EulerOrder) -> Quat {
    let (x, y, z) = (Quat::from_rotation_x(r[0]), Quat::from_rotation_y(r[1]), Quat::from_rotation_z(r[2]));
    match order {
        EulerOrder::Xyz => z * y * x,
        EulerOrder::Zyx => x * y * z,
    }
}

fn rotation_constant(anim: &Animation, bone: usize) -> bool {
    [ChannelKind::RotationX, ChannelKind::RotationY, ChannelKind::RotationZ]
        .iter()
        .all(|&k| anim.bones.get(bone).and_then(|b| b.get(k)).is_none_or(|c| c.keys.count() <= 1))
}

/// Append animation `slot` of the PAM as a glTF animation driving `joints` (node per joint).
#[allow(clippy::too_many_arguments)]
pub fn push(
    b: &mut Builder,
    slot: usize,
    anim: &Animation,
    skeleton: &Skeleton,
    joints: &[json::Index<json::Node>],
    pose: &PoseOptions,
    steps_per_frame: u32,
    pam_name: &str,
) -> Result<(), GltfError> {
    let name = anim.name();
    let label = if name.is_empty() { format!("slot {slot}") } else { format!("{name:?} (slot {slot})") };
    if anim.fps == 0 {
        return Err(GltfError::Animation { pam: pam_name.into(), what: format!("animation {label} has 0 fps") });
    }
    let fps = f32::from(anim.fps);
    let bones = anim.bones.len().min(joints.len());
    if pose.scale_inheritance == ScaleInheritance::None {
        check_parent_scale(anim, skeleton, bones, &label, pam_name)?;
    }
    let mut tracks = Tracks::default();
    use ChannelKind::*;
    let steps = steps_per_frame.max(1);
    let last = last_frame(anim);
    for (bone, &node) in joints.iter().enumerate().take(bones) {
        let value = |k: ChannelKind, f: f32| anim.channel_value(bone, k, f);
        for (kinds, path) in [
            ([TranslationX, TranslationY, TranslationZ], json::animation::Property::Translation),
            ([ScaleX, ScaleY, ScaleZ], json::animation::Property::Scale),
        ] {
            let frames = key_frames(anim, bone, kinds);
            let times: Vec<f32> = frames.iter().map(|&f| f32::from(f) / fps).collect();
            let vals: Vec<[f32; 3]> = frames.iter().map(|&f| kinds.map(|k| value(k, f32::from(f)))).collect();
            let out = b.accessor(&vals, None, None, false);
            let input = b.times(&times);
            tracks.linear(node, path, input, out);
        }
        let samples: Vec<f32> = if rotation_constant(anim, bone) {
            vec![0.0]
        } else {
            (0..=u32::from(last) * steps).map(|i| i as f32 / steps as f32).collect()
        };
        let mut prev = Quat::IDENTITY;
        let quats: Vec<[f32; 4]> = samples
            .iter()
            .map(|&f| {
                let q = euler_quat([value(RotationX, f), value(RotationY, f), value(RotationZ, f)], pose.euler);
                // Keep neighbours in one hemisphere so the slerp takes the short way.
                let q = if q.dot(prev) < 0.0 { -q } else { q };
                prev = q;
                q.to_array()
            })
            .collect();
        let times: Vec<f32> = samples.iter().map(|f| f / fps).collect();
        let out = b.accessor(&quats, None, None, false);
        let input = b.times(&times);
        tracks.linear(node, json::animation::Property::Rotation, input, out);
    }
    b.root.push(json::Animation {
        extensions: None,
        extras: extras(json!({
            "pam_slot": slot,
            "fps": anim.fps,
            "frame_count": anim.frame_count,
            "loop_from": anim.loop_from,
            "loop_to": anim.loop_to,
            "interpolation_frames": anim.interpolation_frames,
            "flag": anim.flag,
            "rotation_samples_per_frame": steps,
            "euler": match pose.euler { EulerOrder::Xyz => "R = Rz*Ry*Rx", EulerOrder::Zyx => "R = Rx*Ry*Rz" },
        })),
        channels: tracks.channels,
        name: Some(if name.is_empty() { format!("slot{slot}") } else { name }),
        samplers: tracks.samplers,
    });
    Ok(())
}

/// Refuse an animation whose scale (at any key) on a joint with children differs from 1:
/// glTF would pass it on to the children, the PAM does not (module docs).
fn check_parent_scale(
    anim: &Animation,
    skeleton: &Skeleton,
    bones: usize,
    label: &str,
    pam_name: &str,
) -> Result<(), GltfError> {
    use ChannelKind::*;
    for bone in 0..bones {
        let has_children =
            skeleton.joints.iter().enumerate().any(|(j, jt)| j > bone && jt.parent_index() == Some(bone));
        if !has_children {
            continue;
        }
        for f in key_frames(anim, bone, [ScaleX, ScaleY, ScaleZ]) {
            let s = [ScaleX, ScaleY, ScaleZ].map(|k| anim.channel_value(bone, k, f32::from(f)));
            if s.iter().any(|&v| v != 1.0) {
                return Err(GltfError::Animation {
                    pam: pam_name.into(),
                    what: format!(
                        "animation {label} scales bone {bone} (a joint with children) by {s:?} at frame {f}; \
                         glTF children inherit scale, PAM children do not"
                    ),
                });
            }
        }
    }
    Ok(())
}
