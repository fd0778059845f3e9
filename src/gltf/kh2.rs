//! Kingdom Hearts II skeletons and motions as glTF: the bones as a node hierarchy under one
//! root node, each motion as an animation sampled at every game frame (GFR tick, 60 Hz).
//!
//! * Bones: node `bone{i}` with the bone's bind S/R/T (R = Rz·Ry·Rx, [`crate::kh2::eval`]); parents
//!   from the bone table, roots under the root node.
//! * Root motion: the motion's root-position block ([`Evaluator::root_channels`]) animates the
//!   root node, so the whole skeleton moves with it.
//! * IK helpers: a motion's helpers are joints of its own (parents are bones or other helpers
//!   of the same motion), exported as nodes `{motion}_ik{k}` animated by that motion only.
//! * Interpolated motions: every joint's channels from [`Evaluator::channels`] at every tick
//!   0..=frame count (subtype 1 ignores scale, as the evaluator does); LINEAR keys (slerped
//!   rotations) are exact at the ticks.
//! * Raw motions store model-space matrices per motion frame ([`RawMotion::matrices_at`]);
//!   each tick's locals are parent⁻¹ · global, decomposed to TRS.
//! * The loop points (FrameStart, FrameEnd, FrameReturn, fps) and the motion kind go to the
//!   animation's `extras`.

use super::buffer::{extras, Builder, Tracks};
use super::{trs_node, Export, GltfError};
use crate::kh2::eval::{local_matrix, Evaluator, GFR};
use crate::kh2::motion::RawMotion;
use crate::kh2::{Motion, Skeleton};
use glam::{Quat, Vec3};
use gltf::json;
use json::animation::Property;
use serde_json::json;

/// Largest motion length sampled, in ticks (over 15 minutes at 60 Hz).
pub const MAX_TICKS: i32 = 60 * 60 * 15;

/// TRS of a KH2 channel set (scale 1 when `ignore_scale`).
fn trs(c: &[f32; 9], ignore_scale: bool) -> (Vec3, Quat, Vec3) {
    let (s, r, t) = local_matrix(c, ignore_scale).to_scale_rotation_translation();
    (t, r, s)
}

/// Append one channel set (T, R, S per tick) for `node`.
fn push_trs(
    b: &mut Builder,
    node: json::Index<json::Node>,
    times: json::Index<json::Accessor>,
    values: &[(Vec3, Quat, Vec3)],
    tracks: &mut Tracks,
) {
    let t: Vec<[f32; 3]> = values.iter().map(|v| v.0.to_array()).collect();
    let mut prev = Quat::IDENTITY;
    let r: Vec<[f32; 4]> = values
        .iter()
        .map(|v| {
            // Neighbouring samples in one hemisphere, so the slerp takes the short way.
            let q = if v.1.dot(prev) < 0.0 { -v.1 } else { v.1 };
            prev = q;
            q.to_array()
        })
        .collect();
    let s: Vec<[f32; 3]> = values.iter().map(|v| v.2.to_array()).collect();
    let outs = [
        (Property::Translation, b.accessor(&t, None, None, false)),
        (Property::Rotation, b.accessor(&r, None, None, false)),
        (Property::Scale, b.accessor(&s, None, None, false)),
    ];
    for (path, output) in outs {
        tracks.linear(node, path, times, output);
    }
}

/// Per tick, per joint: local TRS of a raw motion (globals of `frames` made parent-relative);
/// `None` when a frame holds fewer matrices than the skeleton has bones.
fn raw_locals(r: &RawMotion, sk: &Skeleton, ticks: i32) -> Option<Vec<Vec<(Vec3, Quat, Vec3)>>> {
    (0..=ticks)
        .map(|t| {
            let g = r.matrices_at(t as f32 * r.frame_data.fps.max(0.0) / GFR);
            if g.len() < sk.bones.len() {
                return None;
            }
            let locals = sk
                .bones
                .iter()
                .enumerate()
                .map(|(j, bone)| {
                    let parent = usize::try_from(bone.parent).ok().and_then(|p| g.get(p)).copied();
                    let local = parent.map_or(g[j], |p| p.inverse() * g[j]);
                    let (s, r, t) = local.to_scale_rotation_translation();
                    (t, r, s)
                })
                .collect();
            Some(locals)
        })
        .collect()
}

/// Export `skeleton` (named `name`) with `motions` (name, motion).
pub fn export(
    skeleton: &Skeleton,
    motions: &[(String, &Motion)],
    name: &str,
    source: &str,
) -> Result<Export, GltfError> {
    skeleton.validate().map_err(|e| GltfError::Kh2 { file: source.into(), what: e.to_string() })?;
    let mut b = Builder::new();
    let root = b.root.push(json::Node { name: Some(name.to_string()), ..Default::default() });
    let bones: Vec<json::Index<json::Node>> = skeleton
        .bones
        .iter()
        .enumerate()
        .map(|(i, bone)| b.root.push(trs_node(format!("bone{i}"), local_matrix(&bone.channels(), false))))
        .collect();
    let attach = |b: &mut Builder, parent: json::Index<json::Node>, child: json::Index<json::Node>| {
        b.root.nodes[parent.value()].children.get_or_insert_with(Vec::new).push(child);
    };
    for (i, bone) in skeleton.bones.iter().enumerate() {
        let parent = usize::try_from(bone.parent).map_or(root, |p| bones[p]);
        attach(&mut b, parent, bones[i]);
    }
    let bad = |what: String| GltfError::Kh2 { file: source.into(), what };
    for (mname, motion) in motions {
        let fd = motion.frame_data();
        let ticks = match motion {
            Motion::Interpolated(m) => m.frame_count,
            Motion::Raw(r) => r.frame_count,
        };
        if !(0..=MAX_TICKS).contains(&ticks) {
            return Err(bad(format!("motion {mname}: frame count {ticks} outside 0..={MAX_TICKS}")));
        }
        let times_s: Vec<f32> = (0..=ticks).map(|t| t as f32 / GFR).collect();
        let times = b.times(&times_s);
        let mut tracks = Tracks::default();
        let kind = match motion {
            Motion::Interpolated(m) => {
                let ev = Evaluator::new(m, Some(skeleton)).map_err(|e| bad(format!("motion {mname}: {e}")))?;
                let parents = ev.parents.clone().unwrap_or_default();
                let nb = skeleton.bones.len();
                let ignore_scale = m.common.subtype == 1;
                // This motion's IK helpers as nodes, rest = the helper's own S/R/T.
                let rest = ev.channels(0.0);
                let helpers: Vec<json::Index<json::Node>> = (nb..parents.len())
                    .map(|j| {
                        b.root.push(trs_node(format!("{mname}_ik{}", j - nb), local_matrix(&rest[j], ignore_scale)))
                    })
                    .collect();
                let node = |j: usize| if j < nb { bones[j] } else { helpers[j - nb] };
                for (j, &p) in parents.iter().enumerate().skip(nb) {
                    let parent = usize::try_from(p).map_or(root, node);
                    attach(&mut b, parent, node(j));
                }
                let per_tick: Vec<Vec<[f32; 9]>> = (0..=ticks).map(|t| ev.channels(t as f32)).collect();
                for j in 0..parents.len() {
                    let v: Vec<_> = per_tick.iter().map(|c| trs(&c[j], ignore_scale)).collect();
                    push_trs(&mut b, node(j), times, &v, &mut tracks);
                }
                let v: Vec<_> = (0..=ticks).map(|t| trs(&ev.root_channels(t as f32), false)).collect();
                push_trs(&mut b, root, times, &v, &mut tracks);
                "interpolated"
            }
            Motion::Raw(r) => {
                if r.bone_count as usize != skeleton.bones.len() {
                    return Err(bad(format!(
                        "motion {mname}: the skeleton has {} bones, the raw motion {}",
                        skeleton.bones.len(),
                        r.bone_count
                    )));
                }
                let per_tick = raw_locals(r, skeleton, ticks).ok_or_else(|| {
                    bad(format!("motion {mname}: a frame holds fewer matrices than the {} bones", r.bone_count))
                })?;
                for (j, &node) in bones.iter().enumerate() {
                    let v: Vec<_> = per_tick.iter().map(|l| l[j]).collect();
                    push_trs(&mut b, node, times, &v, &mut tracks);
                }
                "raw"
            }
        };
        b.root.push(json::Animation {
            extensions: None,
            extras: extras(json!({
                "kind": kind,
                "frame_start": fd.start,
                "frame_end": fd.end,
                "frame_return": fd.ret,
                "fps": fd.fps,
                "ticks_per_second": GFR,
            })),
            channels: tracks.channels,
            name: Some(mname.clone()),
            samplers: tracks.samplers,
        });
    }
    let scene = b.root.push(json::Scene {
        extensions: None,
        extras: Default::default(),
        name: Some(name.to_string()),
        nodes: vec![root],
    });
    b.root.scene = Some(scene);
    Ok(Export { root: b.root, bin: b.bin, pngs: Vec::new() })
}
