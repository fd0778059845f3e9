//! Writer-side construction of KH2 motions for tests and golden images: curves given as
//! resolved keys are pooled into the key/time/value/tangent tables the format stores (times
//! deduplicated and sorted, values and tangents appended), IK helpers and the joint table
//! filled in, so the result writes and parses back.

use super::bar::{Bar, BarEntry};
use super::motion::interp::{FCurve, IkHelper, InitialPose, InterpolatedMotion, Joint, Key, RootPosition};
use super::motion::{Common, FrameData};
use super::trigger::{FrameTrigger, RangeTrigger, Triggers};
use super::Kh2Error;

/// Interpolation of a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interp {
    Constant = 0,
    Linear = 1,
    Hermite = 2,
}

/// One key as a curve author sees it: GFR time, value, in/out slopes per GFR tick.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KeySpec {
    pub interp: Interp,
    pub time: f32,
    pub value: f32,
    pub in_tangent: f32,
    pub out_tangent: f32,
}

impl KeySpec {
    pub fn new(interp: Interp, time: f32, value: f32) -> KeySpec {
        KeySpec { interp, time, value, in_tangent: 0.0, out_tangent: 0.0 }
    }
    pub fn hermite(time: f32, value: f32, in_tangent: f32, out_tangent: f32) -> KeySpec {
        KeySpec { interp: Interp::Hermite, time, value, in_tangent, out_tangent }
    }
}

/// A curve: joint (combined space for forward curves, helper-relative for inverse ones),
/// channel 0–8, pre/post infinity 0–3, keys in time order.
#[derive(Debug, Clone, PartialEq)]
pub struct CurveSpec {
    pub joint: i16,
    pub channel: u8,
    pub pre: u8,
    pub post: u8,
    pub keys: Vec<KeySpec>,
}

impl CurveSpec {
    pub fn new(joint: i16, channel: u8, keys: Vec<KeySpec>) -> CurveSpec {
        CurveSpec { joint, channel, pre: 0, post: 0, keys }
    }
}

/// The parts of an interpolated motion a test chooses.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MotionSpec {
    pub bones: i16,
    pub helpers: Vec<IkHelper>,
    pub initial: Vec<InitialPose>,
    pub forward: Vec<CurveSpec>,
    pub inverse: Vec<CurveSpec>,
    pub fps: f32,
    /// FrameEnd in frames at `fps`.
    pub frame_end: f32,
    pub subtype: i32,
}

/// An IK helper at combined index `index` under `parent` with bind translation `t`.
pub fn helper(index: i16, parent: i16, t: [f32; 3]) -> IkHelper {
    IkHelper {
        index,
        sibling: 0,
        parent,
        child: -1,
        reserved: 0,
        flags: 0,
        scale: [1.0, 1.0, 1.0, 0.0],
        rotation: [0.0; 4],
        translation: [t[0], t[1], t[2], 0.0],
    }
}

fn pool_curves(specs: &[CurveSpec], m: &mut InterpolatedMotion) -> Result<Vec<FCurve>, Kh2Error> {
    let mut out = Vec::new();
    for c in specs {
        let start = i16::try_from(m.keys.len()).map_err(|_| Kh2Error::Unwritable("too many keys".into()))?;
        let count = u8::try_from(c.keys.len()).map_err(|_| Kh2Error::Unwritable("more than 255 keys".into()))?;
        for k in &c.keys {
            let ti = m
                .key_times
                .iter()
                .position(|&t| t == k.time)
                .ok_or_else(|| Kh2Error::Unwritable("time pool".into()))?;
            let vi = m.key_values.len() as i16;
            m.key_values.push(k.value);
            let (ti_in, ti_out) = if k.interp == Interp::Hermite {
                let i = m.tangents.len() as i16;
                m.tangents.push(k.in_tangent);
                m.tangents.push(k.out_tangent);
                (i, i + 1)
            } else {
                (0, 0)
            };
            m.keys.push(Key {
                type_time: ((ti as u16) << 2) | k.interp as u16,
                value: vi,
                in_tangent: ti_in,
                out_tangent: ti_out,
            });
        }
        out.push(FCurve {
            joint: c.joint,
            channel: c.channel,
            pre: c.pre,
            post: c.post,
            key_count: count,
            key_start: start,
        });
    }
    Ok(out)
}

/// Build the stored tables of `spec`.
pub fn build(spec: &MotionSpec) -> Result<InterpolatedMotion, Kh2Error> {
    let total = spec.bones as usize + spec.helpers.len();
    let fps = if spec.fps > 0.0 { spec.fps } else { 60.0 };
    let mut m = InterpolatedMotion {
        common: Common::new(spec.subtype),
        bone_count: spec.bones,
        frame_count: (spec.frame_end * 60.0 / fps).round() as i32,
        bbox: [-100.0, -100.0, -100.0, 1.0, 100.0, 100.0, 100.0, 1.0],
        frame_data: FrameData { start: 0.0, end: spec.frame_end, fps, ret: 0.0 },
        header_reserved: [0; 3],
        initial_poses: spec.initial.clone(),
        fcurves_forward: Vec::new(),
        fcurves_inverse: Vec::new(),
        keys: Vec::new(),
        key_times: Vec::new(),
        key_values: Vec::new(),
        tangents: Vec::new(),
        constraints: Vec::new(),
        activations: Vec::new(),
        limiters: Vec::new(),
        expressions: Vec::new(),
        expression_nodes: Vec::new(),
        ik_helpers: spec.helpers.clone(),
        joints: (0..total).map(|j| Joint { joint: j as i16, flags: 0, reserved: 0 }).collect(),
        root: RootPosition {
            scale: [1.0; 3],
            not_unit: 0,
            rotation: [0.0; 4],
            translation: [0.0, 0.0, 0.0, 1.0],
            fcurve_ids: [-1; 9],
        },
        external_effectors: Vec::new(),
    };
    let mut times: Vec<f32> =
        spec.forward.iter().chain(&spec.inverse).flat_map(|c| c.keys.iter().map(|k| k.time)).collect();
    times.sort_by(f32::total_cmp);
    times.dedup();
    m.key_times = times;
    m.fcurves_forward = pool_curves(&spec.forward, &mut m)?;
    m.fcurves_inverse = pool_curves(&spec.inverse, &mut m)?;
    Ok(m)
}

/// Trigger file with one range trigger and two frame triggers.
pub fn sample_triggers() -> Triggers {
    Triggers {
        range: vec![RangeTrigger { start: 0, end: 20, id: 3, params: vec![] }],
        frame: vec![
            FrameTrigger { frame: 10, id: 2, params: vec![7] },
            FrameTrigger { frame: 30, id: 19, params: vec![1, 2] },
        ],
        gap: Vec::new(),
        trailing: Vec::new(),
    }
}

/// An ANB (BAR of a motion and a trigger file) around `m`.
pub fn anb(m: &InterpolatedMotion, triggers: &Triggers) -> Result<Vec<u8>, Kh2Error> {
    let entries = vec![BarEntry::new(9, "A000", m.to_bytes()?), BarEntry::new(16, "A000", triggers.to_bytes()?)];
    Bar { reserved: 0, motionset_type: 0, entries }.to_bytes()
}

/// The golden-image motion for [`super::Skeleton::biped`]: the arms swing, the legs step and the
/// hips sway, 2 s at 30 fps (looping), plus one IK helper under the hips.
pub fn biped_walk() -> InterpolatedMotion {
    let swing = |joint: i16, channel: u8, amp: f32, phase: f32| {
        let mut c = CurveSpec::new(
            joint,
            channel,
            (0..=4)
                .map(|i| {
                    let t = 30.0 * i as f32;
                    let v = amp * (std::f32::consts::FRAC_PI_2 * i as f32 + phase).sin();
                    let slope = amp * std::f32::consts::FRAC_PI_2 / 30.0
                        * (std::f32::consts::FRAC_PI_2 * i as f32 + phase).cos();
                    KeySpec::hermite(t, v, slope, slope)
                })
                .collect(),
        );
        c.post = 2;
        c
    };
    let spec = MotionSpec {
        bones: 12,
        helpers: vec![helper(12, 0, [0.0, -90.0, 20.0])],
        initial: vec![
            InitialPose { joint: 3, channel: 5, value: 0.3 },
            InitialPose { joint: 5, channel: 5, value: -0.3 },
        ],
        forward: vec![
            swing(3, 3, 0.7, 0.0),
            swing(5, 3, 0.7, std::f32::consts::PI),
            swing(7, 3, 0.5, std::f32::consts::PI),
            swing(9, 3, 0.5, 0.0),
            swing(8, 3, 0.4, 0.3),
            swing(0, 4, 0.25, 0.0),
            CurveSpec::new(
                0,
                7,
                vec![KeySpec::new(Interp::Linear, 0.0, 0.0), KeySpec::new(Interp::Linear, 120.0, 0.0)],
            ),
        ],
        inverse: vec![CurveSpec::new(
            0,
            8,
            vec![KeySpec::new(Interp::Linear, 0.0, 20.0), KeySpec::new(Interp::Linear, 120.0, 40.0)],
        )],
        fps: 30.0,
        frame_end: 60.0,
        subtype: 0,
    };
    build(&spec).expect("the walk motion fits the format")
}
