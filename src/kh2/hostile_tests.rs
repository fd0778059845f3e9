//! Bad input: every truncation, lying counts and offsets, indices out of range, cyclic
//! parents, absurd sizes give an error naming the offset; proptests round-trip generated
//! motions and feed corrupted bytes to every parser.

use super::bar::Bar;
use super::eval::{EvalError, Evaluator};
use super::motion::interp::{
    Activation, Constraint, Expression, ExpressionNode, InitialPose, InterpolatedMotion, Limiter,
};
use super::motion::{Motion, BASE};
use super::skeleton::Skeleton;
use super::synth::{self, CurveSpec, Interp, KeySpec, MotionSpec};
use super::trigger::Triggers;
use super::Kh2Error;
use proptest::prelude::*;

fn walk_bytes() -> Vec<u8> {
    synth::biped_walk().to_bytes().unwrap()
}

fn put_i32(b: &mut [u8], at: usize, v: i32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

fn err_text(e: Kh2Error) -> String {
    e.to_string()
}

#[test]
fn every_truncation_is_an_error_with_an_offset() {
    let m = walk_bytes();
    for n in 0..m.len() {
        let e = Motion::parse(&m[..n]).expect_err("a truncated motion must not parse");
        assert!(err_text(e).contains("offset 0x"), "truncation at {n}");
    }
    let anb = synth::anb(&synth::biped_walk(), &synth::sample_triggers()).unwrap();
    for n in 0..anb.len() {
        assert!(Bar::parse(&anb[..n]).is_err(), "BAR truncated at {n}");
    }
    let t = synth::sample_triggers().to_bytes().unwrap();
    for n in 0..t.len() {
        assert!(Triggers::parse(&t[..n]).is_err(), "triggers truncated at {n}");
    }
    let raw = super::tests::raw_bytes();
    for n in 0..raw.len() {
        assert!(Motion::parse(&raw[..n]).is_err(), "raw truncated at {n}");
    }
    let mdlx = Skeleton::biped().to_mdlx().unwrap();
    for n in 0..mdlx.len() {
        assert!(Skeleton::from_mdlx(&mdlx[..n]).is_err(), "MDLX truncated at {n}");
    }
}

#[test]
fn lying_counts_and_offsets() {
    let good = walk_bytes();
    let word = |i: usize| BASE + 0x14 + 4 * i;
    // Forward-curve count far past the file: an error at the table, nothing allocated.
    let mut b = good.clone();
    put_i32(&mut b, word(8), 0x7FFF_FFFF);
    let e = err_text(InterpolatedMotion::parse(&b).unwrap_err());
    assert!(e.contains("forward curves") && e.contains("offset 0x"), "{e}");
    // Negative offset.
    let mut b = good.clone();
    put_i32(&mut b, word(4), -16);
    assert!(err_text(InterpolatedMotion::parse(&b).unwrap_err()).contains("negative"));
    // Key-time offset before the key offset.
    let mut b = good.clone();
    put_i32(&mut b, word(12), 0x10);
    assert!(err_text(InterpolatedMotion::parse(&b).unwrap_err()).contains("whole number"));
    // Extra offset past the end.
    let mut b = good.clone();
    put_i32(&mut b, BASE + 8, 0x10_0000);
    assert!(matches!(InterpolatedMotion::parse(&b), Err(Kh2Error::Truncated { .. })));
    // BAR: entry count beyond the file, entry data past the end.
    let anb = synth::anb(&synth::biped_walk(), &synth::sample_triggers()).unwrap();
    let mut b = anb.clone();
    put_i32(&mut b, 4, 1_000_000);
    assert!(matches!(Bar::parse(&b), Err(Kh2Error::Absurd { offset: 4, .. })));
    let mut b = anb.clone();
    put_i32(&mut b, 16 + 12, 0x7FFF_FFFF);
    assert!(err_text(Bar::parse(&b).unwrap_err()).contains("offset 0x18"));
    // Raw: absurd frames × bones.
    let mut raw = super::tests::raw_bytes();
    put_i32(&mut raw, BASE + 0x10 + 0x14, 0x7FFF_FFFF);
    assert!(matches!(Motion::parse(&raw), Err(Kh2Error::Absurd { .. })));
    // Unknown motion type.
    let mut b = good;
    put_i32(&mut b, BASE, 7);
    assert!(err_text(Motion::parse(&b).unwrap_err()).contains("motion type"));
}

#[test]
fn indices_out_of_range_name_the_record() {
    let m = synth::biped_walk();
    let bad = |f: &dyn Fn(&mut InterpolatedMotion)| {
        let mut x = m.clone();
        f(&mut x);
        err_text(InterpolatedMotion::parse(&x.to_bytes().unwrap()).unwrap_err())
    };
    assert!(bad(&|x| x.keys[3].value = 9999).contains("key value index"));
    assert!(bad(&|x| x.keys[3].in_tangent = -2).contains("tangent index"));
    assert!(bad(&|x| x.keys[0].type_time |= 500 << 2).contains("key time index"));
    assert!(bad(&|x| x.fcurves_forward[1].key_count = 250).contains("forward curve"));
    assert!(bad(&|x| x.fcurves_inverse[0].joint = 1).contains("inverse curve"), "helper-relative id past the helpers");
    assert!(bad(&|x| x.initial_poses[0].joint = 13).contains("initial pose joint"));
    assert!(bad(&|x| x.ik_helpers[0].parent = 40).contains("IK helper parent"));
    assert!(bad(&|x| x.joints[2].joint = -3).contains("joint table"));
    assert!(bad(&|x| x.root.fcurve_ids[4] = 99).contains("root F-curve id"));
}

#[test]
fn cyclic_parents_and_bad_skeletons() {
    // Helper 12 under helper 13 under helper 12.
    let mut m = synth::biped_walk();
    let mut h = m.ik_helpers[0];
    h.index = 13;
    h.parent = 12;
    m.ik_helpers.push(h);
    m.ik_helpers[0].parent = 13;
    m.joints.push(super::motion::interp::Joint { joint: 13, flags: 0, reserved: 0 });
    let m = InterpolatedMotion::parse(&m.to_bytes().unwrap()).unwrap();
    let e = Evaluator::new(&m, Some(&Skeleton::biped())).unwrap_err();
    assert!(matches!(e, EvalError::Cycle(12 | 13)), "{e}");
    assert!(Evaluator::new(&m, None).is_ok(), "no hierarchy without a skeleton");
    assert!(matches!(Evaluator::new(&m, Some(&Skeleton::chain(3, 1.0))), Err(EvalError::BoneCount { .. })));
    // A cyclic bone table in an MDLX.
    let mut sk = Skeleton::biped();
    let good = sk.to_mdlx().unwrap();
    sk.bones[0].parent = 2;
    let e = err_text(Skeleton::from_mdlx(&sk.write_into_mdlx(&good).unwrap()).unwrap_err());
    assert!(e.contains("cycle") && e.contains("offset 0x"), "{e}");
    assert!(sk.to_mdlx().is_err());
    // Channels outside S/R/T are refused at evaluation.
    let mut odd = synth::biped_walk();
    odd.initial_poses.push(InitialPose { joint: 0, channel: 12, value: 1.0 });
    assert!(matches!(Evaluator::new(&odd, None), Err(EvalError::Channel { .. })));
}

fn finite() -> impl Strategy<Value = f32> {
    -1000.0f32..1000.0
}

prop_compose! {
    fn curve_spec(joints: i16)(
        joint in 0..joints,
        channel in 0u8..9,
        pre in 0u8..4,
        post in 0u8..4,
        keys in prop::collection::vec((0u8..3, finite(), finite(), finite()), 1..6),
        start in 0u16..50,
    ) -> CurveSpec {
        let keys = keys
            .into_iter()
            .enumerate()
            .map(|(i, (k, v, a, b))| KeySpec {
                interp: [Interp::Constant, Interp::Linear, Interp::Hermite][k as usize],
                time: f32::from(start) + 7.0 * i as f32,
                value: v,
                in_tangent: a,
                out_tangent: b,
            })
            .collect();
        CurveSpec { joint, channel, pre, post, keys }
    }
}

prop_compose! {
    fn motion()(bones in 1i16..6, helpers in 0i16..3)(
        bones in Just(bones),
        helpers in Just(helpers),
        parents in prop::collection::vec(-1i16..(bones + helpers), helpers as usize),
        forward in prop::collection::vec(curve_spec(bones + helpers), 0..5),
        inverse in prop::collection::vec(curve_spec(helpers.max(1)), 0..(if helpers > 0 { 3 } else { 1 })),
        initial in prop::collection::vec((0..(bones + helpers), 0i16..9, finite()), 0..4),
        cons in prop::collection::vec((0u8..14, 0..(bones + helpers), 0..(bones + helpers), 0i16..3), 0..3),
        nodes in prop::collection::vec((any::<i32>(), finite()), 0..3),
        effectors in prop::collection::vec(1i16..100, 0..4),
        subtype in 0i32..2,
        extra in prop::collection::vec(any::<u8>(), 0..20),
        bbox in prop::array::uniform8(finite()),
    ) -> InterpolatedMotion {
        let inverse = if helpers == 0 { Vec::new() } else { inverse };
        let spec = MotionSpec {
            bones,
            helpers: parents.iter().enumerate().map(|(i, &p)| synth::helper(bones + i as i16, p, [1.0, 2.0, 3.0])).collect(),
            initial: initial.into_iter().map(|(joint, channel, value)| InitialPose { joint, channel, value }).collect(),
            forward,
            inverse,
            fps: 30.0,
            frame_end: 40.0,
            subtype,
        };
        let mut m = synth::build(&spec).unwrap();
        let mut acts = 0i16;
        for (i, &(kind, a, b, n)) in cons.iter().enumerate() {
            m.constraints.push(Constraint {
                kind,
                temp_active: 1,
                constrained: a,
                source: b,
                limiter: if i % 2 == 0 { i as i16 / 2 } else { -1 },
                activation_count: n,
                activation_start: acts,
            });
            acts += n;
        }
        m.activations = (0..acts).map(|i| Activation { time: f32::from(i) * 5.0, active: i32::from(i % 2) }).collect();
        let nlim = cons.len().div_ceil(2);
        m.limiters = (0..nlim)
            .map(|i| Limiter { flags: i as i32, padding: 0, damping_width: 0.5, damping_strength: 1.0, min: [-1.0; 4], max: [1.0; 4] })
            .collect();
        m.expression_nodes = nodes.iter().map(|&(d, v)| ExpressionNode { data: d, value: v, car: -1, cdr: -1 }).collect();
        if !m.expression_nodes.is_empty() {
            m.expressions.push(Expression { target: 0, channel: 3, reserved: 0, node: 0 });
        }
        m.external_effectors = effectors;
        m.common.extra = extra;
        m.bbox = bbox;
        m
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn interpolated_round_trip(m in motion()) {
        let b = m.to_bytes().unwrap();
        let back = InterpolatedMotion::parse(&b).unwrap();
        prop_assert_eq!(&back, &m);
        prop_assert_eq!(back.to_bytes().unwrap(), b);
        // Every curve hits its key values exactly at its key times.
        let ev = Evaluator::new(&back, None).unwrap();
        let _ = ev.pose(13.5);
        for c in &back.fcurves_forward {
            for k in &back.keys[c.key_start as usize..][..usize::from(c.key_count)] {
                let t = back.key_times[k.time_index()];
                prop_assert_eq!(super::eval::curve_value(&back, c, t), Some(back.key_values[k.value as usize]));
            }
        }
    }

    #[test]
    fn corrupted_bytes_never_panic(
        m in motion(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
        cut in any::<prop::sample::Index>(),
    ) {
        let t = synth::sample_triggers();
        let anb = synth::anb(&m, &t).unwrap();
        let raw = super::tests::raw_bytes();
        let mdlx = Skeleton::biped().to_mdlx().unwrap();
        for bytes in [m.to_bytes().unwrap(), anb, raw, t.to_bytes().unwrap(), mdlx] {
            let mut b = bytes.clone();
            for (i, v) in &edits {
                let i = i.index(b.len());
                b[i] = *v;
            }
            let b = &b[..cut.index(b.len() + 1)];
            if let Ok(Motion::Interpolated(x)) = Motion::parse(b) {
                if let Ok(ev) = Evaluator::new(&x, None) {
                    let _ = ev.pose(7.0);
                }
            }
            if let Ok((bar, places)) = Bar::parse_placed(b) {
                let _ = super::bar::Anb::from_bar(&bar, &places, 0);
            }
            let _ = Triggers::parse(b);
            let _ = Skeleton::from_mdlx(b);
        }
    }
}
