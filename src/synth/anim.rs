//! A synthetic PAM for the 4-joint column skeleton of [`super::skinned_model`] and
//! [`super::demo_model`], written with the PAM writer: a sway that uses every key form
//! (constant, full, sparse) and a scale channel.
//!
//! Each bone's channels hold its local transform (translation, Euler rotation with
//! R = Rz·Ry·Rx, scale): the bind local matrix decomposed, plus the motion. At frame 0 the
//! motion is zero, so frame 0 is the bind pose (tested).

use crate::pam::{Animation, BoneChannels, Channel, ChannelKind, Key, Keys, Pam};
use glam::{EulerRot, Mat4};
use std::f32::consts::TAU;

/// Frames in [`column_animation`] (30 fps, loops 59 → 0).
pub const FRAMES: u16 = 60;

/// Quantise `values` (one per frame, or per key) into a channel with min/max of their range.
fn channel(values: &[f32], frames: Option<&[u16]>) -> Channel {
    let (lo, hi) = values.iter().fold((f32::MAX, f32::MIN), |(a, b), &v| (a.min(v), b.max(v)));
    if values.len() == 1 || hi == lo {
        return Channel { max: lo, min: lo, keys: Keys::Constant };
    }
    let q = |v: f32| (((v - lo) / (hi - lo)) * 65535.0).round().clamp(0.0, 65535.0) as u16;
    let keys = match frames {
        None => Keys::Full(values.iter().map(|&v| q(v)).collect()),
        Some(f) => Keys::Sparse(f.iter().zip(values).map(|(&frame, &v)| Key { frame, value: q(v) }).collect()),
    };
    Channel { max: hi, min: lo, keys }
}

fn constant(v: f32) -> Option<Channel> {
    Some(channel(&[v], None))
}

/// The sway: one animation `sway` over the column skeleton's bind locals.
pub fn column_animation() -> Pam {
    let skeleton = super::column_skeleton();
    let phase = |f: u16| (TAU * f32::from(f) / f32::from(FRAMES)).sin();
    let full: Vec<u16> = (0..FRAMES).collect();
    let sparse: Vec<u16> = (0..FRAMES).step_by(10).chain([FRAMES - 1]).collect();
    let bones = skeleton
        .joints
        .iter()
        .enumerate()
        .map(|(j, joint)| {
            let local = Mat4::from_cols_array(&joint.local);
            let (s, r, t) = local.to_scale_rotation_translation();
            let (rz, ry, rx) = r.to_euler(EulerRot::ZYX);
            let mut c: [Option<Channel>; 9] = Default::default();
            use ChannelKind::*;
            c[TranslationX as usize] = constant(t.x);
            c[TranslationY as usize] = constant(t.y);
            c[TranslationZ as usize] = constant(t.z);
            c[RotationX as usize] = constant(rx);
            c[RotationY as usize] = constant(ry);
            c[RotationZ as usize] = constant(rz);
            match j {
                // Root: a sparse vertical bob.
                0 => {
                    let v: Vec<f32> = sparse.iter().map(|&f| t.y + 0.15 * phase(f).abs()).collect();
                    c[TranslationY as usize] = Some(channel(&v, Some(&sparse)));
                }
                // Lower joint: full-key sway about Z.
                1 => {
                    let v: Vec<f32> = full.iter().map(|&f| rz + 0.45 * phase(f)).collect();
                    c[RotationZ as usize] = Some(channel(&v, None));
                }
                // Upper joint: sparse sway about X, opposite phase.
                2 => {
                    let v: Vec<f32> = sparse.iter().map(|&f| rx - 0.5 * phase(f)).collect();
                    c[RotationX as usize] = Some(channel(&v, Some(&sparse)));
                }
                // Tip: twist about Y and a pulsing Y scale.
                _ => {
                    let v: Vec<f32> = full.iter().map(|&f| ry + 0.8 * phase(f)).collect();
                    c[RotationY as usize] = Some(channel(&v, None));
                    let v: Vec<f32> = full.iter().map(|&f| s.y * (1.0 + 0.3 * phase(f).abs())).collect();
                    c[ScaleY as usize] = Some(channel(&v, None));
                }
            }
            BoneChannels { channels: c }
        })
        .collect();
    Pam::new(vec![Animation { loop_from: FRAMES - 1, ..Animation::new("sway", 30, FRAMES, bones) }])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pam::{pose_globals, PoseOptions};

    #[test]
    fn frame_zero_is_the_bind_pose_and_the_file_round_trips() {
        let pam = column_animation();
        let bytes = pam.to_bytes().unwrap();
        assert_eq!(Pam::parse(&bytes).unwrap(), pam);
        let sk = crate::synth::column_skeleton();
        let a = pam.animations[0].as_ref().unwrap();
        let posed = pose_globals(&sk, a, 0.0, &PoseOptions::default());
        for (p, b) in posed.iter().zip(sk.bind_globals()) {
            assert!(p.abs_diff_eq(b, 1e-4), "{p:?} vs {b:?}");
        }
        // Mid-animation the tip has moved.
        let mid = pose_globals(&sk, a, 15.0, &PoseOptions::default());
        assert!((mid[3].w_axis - sk.bind_globals()[3].w_axis).length() > 0.1);
        // Every key form is present.
        let forms: Vec<_> = a.channels().map(|(_, _, c)| std::mem::discriminant(&c.keys)).collect();
        assert!(forms.contains(&std::mem::discriminant(&Keys::Constant)));
        assert!(forms.contains(&std::mem::discriminant(&Keys::Full(vec![]))));
        assert!(forms.contains(&std::mem::discriminant(&Keys::Sparse(vec![]))));
    }
}
