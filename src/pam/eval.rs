//! Channel evaluation and playback time.
//!
//! * Dequantisation: v = min + (max − min) · (q / 65535) in f32, with q = 0 and q = 65535 giving
//!   min and max exactly (KHBBSMesh `DequantizeShort`; OpenKh `KHAnimationConverter` uses the same
//!   formula; test.pam's stored q run 0…65535; animation-formats.md §1.1).
//! * Interpolation: linear in float space between the dequantised keys, holding the first/last
//!   key outside their range (animation-formats.md §1.1; OpenKh's `EvaluatePAMChannel`
//!   interpolates the raw u16 and truncates, which is not followed).
//! * Constant channels (count 1) take `min` (KHBBSMesh `MakeChannel`; OpenKh pam.md says min ==
//!   max, "either one" can be used; every constant in test.pam has min == max).
//! * Absent channels and channels with 0 keys take [`ChannelKind::default_value`].

use super::*;

/// One bone's evaluated channels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoneTransform {
    pub translation: [f32; 3],
    /// Euler angles in radians about X, Y, Z.
    pub rotation: [f32; 3],
    pub scale: [f32; 3],
}

impl Default for BoneTransform {
    fn default() -> Self {
        BoneTransform { translation: [0.0; 3], rotation: [0.0; 3], scale: [1.0; 3] }
    }
}

impl BoneTransform {
    /// The nine values in [`ChannelKind::ALL`] order (tx ty tz rx ry rz sx sy sz).
    pub fn to_array(&self) -> [f32; 9] {
        let (t, r, s) = (self.translation, self.rotation, self.scale);
        [t[0], t[1], t[2], r[0], r[1], r[2], s[0], s[1], s[2]]
    }
    pub fn from_array(v: [f32; 9]) -> Self {
        BoneTransform { translation: [v[0], v[1], v[2]], rotation: [v[3], v[4], v[5]], scale: [v[6], v[7], v[8]] }
    }
}

/// Which playback rule [`Animation::frame_at`] applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Playback {
    /// Play once and hold the end.
    #[default]
    Once,
    /// Loop with the animation's loop-from / loop-to frames.
    Loop,
}

/// Dequantise a stored u16 (see the module docs).
pub fn dequantize(min: f32, max: f32, q: u16) -> f32 {
    match q {
        0 => min,
        u16::MAX => max,
        _ => min + (max - min) * (f32::from(q) / 65535.0),
    }
}

/// Linear interpolation over `n` keys with frames `frame(i)` (strictly increasing) and values
/// `value(i)`; holds the ends. `n` must be at least 1.
fn interpolate(n: usize, frame: impl Fn(usize) -> f32, value: impl Fn(usize) -> f32, f: f32) -> f32 {
    // Number of keys at or before f (a NaN frame counts as before every key).
    let after = {
        let (mut lo, mut hi) = (0, n);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if frame(mid) <= f {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    };
    if after == 0 {
        return value(0);
    }
    if after >= n {
        return value(n - 1);
    }
    let (f0, f1) = (frame(after - 1), frame(after));
    let (v0, v1) = (value(after - 1), value(after));
    let t = (f - f0) / (f1 - f0);
    v0 + (v1 - v0) * t
}

impl Channel {
    /// Value at `frame`, or `None` for a channel with no keys (evaluated as absent).
    pub fn value_at(&self, frame: f32) -> Option<f32> {
        let dq = |q: u16| dequantize(self.min, self.max, q);
        match &self.keys {
            Keys::Constant => Some(self.min),
            Keys::Full(v) if !v.is_empty() => Some(interpolate(v.len(), |i| i as f32, |i| dq(v[i]), frame)),
            Keys::Sparse(v) if !v.is_empty() => {
                Some(interpolate(v.len(), |i| f32::from(v[i].frame), |i| dq(v[i].value), frame))
            }
            _ => None,
        }
    }
}

impl Animation {
    /// Value of one channel of one bone at `frame` (defaults for absent channels and bones).
    pub fn channel_value(&self, bone: usize, kind: ChannelKind, frame: f32) -> f32 {
        self.bones.get(bone).and_then(|b| b.get(kind)).and_then(|c| c.value_at(frame)).unwrap_or(kind.default_value())
    }

    /// Every bone's channels at `frame` (fractional frames interpolate).
    pub fn evaluate(&self, frame: f32) -> Vec<BoneTransform> {
        (0..self.bones.len())
            .map(|b| BoneTransform::from_array(ChannelKind::ALL.map(|k| self.channel_value(b, k, frame))))
            .collect()
    }

    /// Playback frame at `time` seconds: `time × fps`, then the loop rule, then clamped to the
    /// frame count. Negative or non-finite times give frame 0.
    ///
    /// Loop rule (KHBBSMesh `CBBSAnim::CalcFrame`; the game's own code is not available):
    /// * loop-from > loop-to ≥ 0 and loop-from > 0: once the frame passes loop-from it jumps back
    ///   by (loop-from − loop-to), so frames loop-to…loop-from repeat with period
    ///   loop-from − loop-to. test.pam (loop 89 → 0, 90 frames) supports this: its frame-89 pose
    ///   equals frame 0 to within a few milliradians, so frame 89 is the seam.
    /// * loop-from == 0: the whole animation repeats with period = frame count.
    ///   guess: KHBBSMesh restarts at 0 dropping the overshoot; the closed form keeps it.
    /// * loop-from > 0 but ≤ loop-to: guess: no loop (KHBBSMesh would never come back).
    pub fn frame_at(&self, time: f32, playback: Playback) -> f32 {
        let f = if time.is_finite() && time > 0.0 { time * f32::from(self.fps) } else { 0.0 };
        let f = if f.is_finite() { f } else { 0.0 };
        match playback {
            Playback::Loop => loop_frame(f, self.frame_count, self.loop_from, self.loop_to),
            Playback::Once => f.clamp(0.0, f32::from(self.frame_count)),
        }
    }
}

/// The loop rule of [`Animation::frame_at`] applied to an unwrapped frame number `f` ≥ 0
/// (also used by the viewer, which advances frames itself).
pub fn loop_frame(f: f32, frame_count: u16, loop_from: u16, loop_to: u16) -> f32 {
    let fc = f32::from(frame_count);
    let mut f = if f.is_finite() && f > 0.0 { f } else { 0.0 };
    let (from, to) = (f32::from(loop_from), f32::from(loop_to));
    if loop_from > 0 && loop_from > loop_to {
        let len = from - to;
        if f > from {
            f -= len * ((f - from) / len).ceil();
        }
    } else if loop_from == 0 && frame_count > 0 && f > fc {
        f -= fc * ((f - fc) / fc).ceil();
    }
    f.clamp(0.0, fc)
}
