//! Evaluating interpolated motions (animation-formats.md §2.1 "F-curves and keys", "Building a
//! pose", "Hermite keys").
//!
//! * **Keys.** On [kᵢ, kᵢ₊₁] the left key's type decides: constant holds vᵢ, linear lerps,
//!   Hermite uses kᵢ's out tangent and kᵢ₊₁'s in tangent, each a slope per GFR tick multiplied by
//!   the segment length Δt (the doc's evidence: tangent/secant median 0.90 scaled, 0.05 unscaled;
//!   forward curve 0 of the sample gives 0.499029 at t = 60, the unscaled reading 0.474373).
//!   At a key time the key's value is returned exactly. Type 3 is unexplained; guess: held like
//!   a constant key.
//! * **Infinity.** Before the first / after the last key: 0 hold the end value, 1 offset cycle
//!   (repeat shifted by the end-to-end value change per period), 2 repeat, 3 zero.
//! * **Time.** Key times and the header frame count are GFR ticks (1/60 s); FrameStart,
//!   FrameEnd and FrameReturn count frames at the motion's fps ([`Timing`]).
//! * **Pose.** Channels start from the bind S/R/T (skeleton bones, IK helpers' own values), then
//!   the initial pose, then the curves (inverse-curve joints + bone count). Local = scale, then
//!   rotate about X, Y, Z, then translate (row-vector S·Rx·Ry·Rz·T, i.e. the doc's S·R·T with
//!   R = Rz·Ry·Rx in column notation); global = local × parent global. Subtype 1 ignores scale
//!   (guess: all scales taken as 1). In glam's column-vector form: local = T·Rz·Ry·Rx·S,
//!   global = parent · local; `to_cols_array` gives the KH2 row-vector storage order.

use super::motion::interp::{FCurve, InterpolatedMotion};
use super::motion::FrameData;
use super::skeleton::{first_cycle, parents_first, Skeleton};
use glam::{Mat4, Quat, Vec3};

/// Channel names in channel order.
pub const CHANNELS: [&str; 9] = ["sx", "sy", "sz", "rx", "ry", "rz", "tx", "ty", "tz"];
/// GFR: the game's 60 Hz tick.
pub const GFR: f32 = 60.0;

#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
pub enum EvalError {
    #[error("{what} {index}: channel {channel} is not one of the 9 S/R/T channels")]
    Channel { what: &'static str, index: usize, channel: i32 },
    #[error("skeleton has {skeleton} bones, the motion animates {motion}")]
    BoneCount { skeleton: usize, motion: usize },
    #[error("joint {0} is in a parent cycle (skeleton parents + IK helper parents)")]
    Cycle(usize),
    #[error("joint {joint}: parent {parent} out of range")]
    Parent { joint: usize, parent: i32 },
}

/// The value of one stored curve at GFR time `t`; `None` for a curve without keys.
pub fn curve_value(m: &InterpolatedMotion, c: &FCurve, t: f32) -> Option<f32> {
    let keys = m.keys.get(c.key_start.max(0) as usize..)?.get(..usize::from(c.key_count))?;
    let time = |i: usize| m.key_times.get(keys[i].time_index()).copied().unwrap_or(0.0);
    let value = |i: usize| m.key_values.get(keys[i].value.max(0) as usize).copied().unwrap_or(0.0);
    let tangent = |ix: i16| m.tangents.get(ix.max(0) as usize).copied().unwrap_or(0.0);
    let n = keys.len();
    if n == 0 {
        return None;
    }
    let inner = |t: f32| -> f32 {
        // Last key at or before t (keys are in time order in every file seen).
        let i = (0..n).rev().find(|&i| time(i) <= t).unwrap_or(0);
        if i + 1 >= n || time(i) == t {
            return value(i);
        }
        let (t0, t1) = (time(i), time(i + 1));
        let (v0, v1) = (value(i), value(i + 1));
        let dt = t1 - t0;
        if dt <= 0.0 {
            return v1;
        }
        let s = (t - t0) / dt;
        match keys[i].interp() {
            1 => v0 + (v1 - v0) * s,
            2 => {
                let m0 = tangent(keys[i].out_tangent) * dt;
                let m1 = tangent(keys[i + 1].in_tangent) * dt;
                let (s2, s3) = (s * s, s * s * s);
                (2.0 * s3 - 3.0 * s2 + 1.0) * v0
                    + (s3 - 2.0 * s2 + s) * m0
                    + (-2.0 * s3 + 3.0 * s2) * v1
                    + (s3 - s2) * m1
            }
            // 0 constant; 3 unexplained (guess: held like constant).
            _ => v0,
        }
    };
    let (first, last) = (time(0), time(n - 1));
    let period = last - first;
    let cyc = |mode: u8, t: f32, end_value: f32| -> f32 {
        match mode {
            3 => 0.0,
            1 | 2 if period > 0.0 => {
                let k = ((t - first) / period).floor();
                let local = (t - k * period).clamp(first, last);
                let shift = if mode == 1 { k * (value(n - 1) - value(0)) } else { 0.0 };
                inner(local) + shift
            }
            _ => end_value,
        }
    };
    Some(if t < first {
        cyc(c.pre, t, value(0))
    } else if t > last {
        cyc(c.post, t, value(n - 1))
    } else {
        inner(t)
    })
}

/// Loop points of a motion in GFR ticks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Timing {
    pub start: f32,
    pub end: f32,
    pub ret: f32,
}

impl Timing {
    /// FrameStart/FrameEnd/FrameReturn converted from the motion's fps to GFR ticks
    /// (`interpolated.motion`: fps 30, FrameEnd 150 ↔ frame count 300). fps ≤ 0 counts as 60.
    pub fn of(f: &FrameData) -> Timing {
        let k = if f.fps > 0.0 && f.fps.is_finite() { GFR / f.fps } else { 1.0 };
        Timing { start: f.start * k, end: f.end * k, ret: f.ret * k }
    }
    /// Motion time after `elapsed` GFR ticks of playback: FrameStart onwards, and past FrameEnd
    /// looping over [FrameReturn, FrameEnd).
    pub fn at(&self, elapsed: f32) -> f32 {
        let t = self.start + elapsed.max(0.0);
        let span = self.end - self.ret;
        if !t.is_finite() {
            self.start
        } else if t < self.end {
            t
        } else if span <= 0.0 {
            self.end
        } else {
            self.ret + (t - self.end).rem_euclid(span)
        }
    }
}

/// Local matrix of S/R/T channels (see the module docs for the order).
pub fn local_matrix(c: &[f32; 9], ignore_scale: bool) -> Mat4 {
    let s = if ignore_scale { Vec3::ONE } else { Vec3::new(c[0], c[1], c[2]) };
    let r = Quat::from_rotation_z(c[5]) * Quat::from_rotation_y(c[4]) * Quat::from_rotation_x(c[3]);
    Mat4::from_scale_rotation_translation(s, r, Vec3::new(c[6], c[7], c[8]))
}

/// A pose: every joint of the combined space (bones, then IK helpers).
#[derive(Debug, Clone, PartialEq)]
pub struct Pose {
    pub time: f32,
    pub channels: Vec<[f32; 9]>,
    pub locals: Vec<Mat4>,
    /// With a skeleton: model-space matrices.
    pub globals: Option<Vec<Mat4>>,
}

/// A motion checked against an optional skeleton, ready to pose at any time.
#[derive(Debug, Clone)]
pub struct Evaluator<'a> {
    pub motion: &'a InterpolatedMotion,
    bind: Vec<[f32; 9]>,
    /// Combined-space parents (−1 root), with a skeleton only.
    pub parents: Option<Vec<i32>>,
    order: Vec<usize>,
}

impl<'a> Evaluator<'a> {
    pub fn new(motion: &'a InterpolatedMotion, skeleton: Option<&Skeleton>) -> Result<Evaluator<'a>, EvalError> {
        let bones = motion.bone_count.max(0) as usize;
        let total = motion.total_joints();
        for (what, curves) in [("forward curve", &motion.fcurves_forward), ("inverse curve", &motion.fcurves_inverse)] {
            if let Some((i, c)) = curves.iter().enumerate().find(|(_, c)| c.channel > 8) {
                return Err(EvalError::Channel { what, index: i, channel: c.channel.into() });
            }
        }
        if let Some((i, p)) = motion.initial_poses.iter().enumerate().find(|(_, p)| !(0..9).contains(&p.channel)) {
            return Err(EvalError::Channel { what: "initial pose", index: i, channel: p.channel.into() });
        }
        let helper = |h: &super::motion::interp::IkHelper| {
            let (s, r, t) = (h.scale, h.rotation, h.translation);
            [s[0], s[1], s[2], r[0], r[1], r[2], t[0], t[1], t[2]]
        };
        let mut bind = vec![[1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]; bones];
        bind.extend(motion.ik_helpers.iter().map(helper));
        let parents = match skeleton {
            None => None,
            Some(sk) => {
                if sk.bones.len() != bones {
                    return Err(EvalError::BoneCount { skeleton: sk.bones.len(), motion: bones });
                }
                for (b, bone) in bind.iter_mut().zip(&sk.bones) {
                    *b = bone.channels();
                }
                let parents: Vec<i32> = sk
                    .bones
                    .iter()
                    .map(|b| b.parent)
                    .chain(motion.ik_helpers.iter().map(|h| i32::from(h.parent)))
                    .collect();
                if let Some((joint, &parent)) = parents.iter().enumerate().find(|(_, &p)| p < -1 || p >= total as i32) {
                    return Err(EvalError::Parent { joint, parent });
                }
                if let Some(j) = first_cycle(&parents) {
                    return Err(EvalError::Cycle(j));
                }
                Some(parents)
            }
        };
        let order = parents.as_deref().map(parents_first).unwrap_or_default();
        Ok(Evaluator { motion, bind, parents, order })
    }

    /// Channels of every joint at GFR time `t` (no looping: curves apply their infinity modes).
    pub fn channels(&self, t: f32) -> Vec<[f32; 9]> {
        let m = self.motion;
        let mut ch = self.bind.clone();
        for p in &m.initial_poses {
            if let Some(j) = ch.get_mut(p.joint.max(0) as usize) {
                j[p.channel.clamp(0, 8) as usize] = p.value;
            }
        }
        let bones = m.bone_count.max(0) as usize;
        let curves = m.fcurves_forward.iter().map(|c| (c, 0)).chain(m.fcurves_inverse.iter().map(|c| (c, bones)));
        for (c, shift) in curves {
            if let (Some(v), Some(j)) = (curve_value(m, c, t), ch.get_mut(c.joint.max(0) as usize + shift)) {
                j[usize::from(c.channel.min(8))] = v;
            }
        }
        ch
    }

    /// Global matrices from locals, parents first.
    pub fn globals(&self, locals: &[Mat4]) -> Option<Vec<Mat4>> {
        let parents = self.parents.as_ref()?;
        let mut g = vec![Mat4::IDENTITY; locals.len()];
        for &j in &self.order {
            g[j] = match parents[j] {
                -1 => locals[j],
                p => g[p as usize] * locals[j],
            };
        }
        Some(g)
    }

    pub fn pose(&self, t: f32) -> Pose {
        let channels = self.channels(t);
        let ignore_scale = self.motion.common.subtype == 1;
        let locals: Vec<Mat4> = channels.iter().map(|c| local_matrix(c, ignore_scale)).collect();
        let globals = self.globals(&locals);
        Pose { time: t, channels, locals, globals }
    }

    /// Root motion at `t`: the root-position block's S/R/T with each channel whose F-curve id
    /// is set replaced by that curve (ids number forward curves, then inverse curves; guess).
    pub fn root_channels(&self, t: f32) -> [f32; 9] {
        let m = self.motion;
        let r = &m.root;
        let mut ch = [
            r.scale[0],
            r.scale[1],
            r.scale[2],
            r.rotation[0],
            r.rotation[1],
            r.rotation[2],
            r.translation[0],
            r.translation[1],
            r.translation[2],
        ];
        for (c, &id) in ch.iter_mut().zip(&r.fcurve_ids) {
            let Ok(id) = usize::try_from(id) else { continue };
            let curve = m.fcurves_forward.get(id).or_else(|| m.fcurves_inverse.get(id - m.fcurves_forward.len()));
            if let Some(v) = curve.and_then(|cv| curve_value(m, cv, t)) {
                *c = v;
            }
        }
        ch
    }
}
