//! Writer-made fixtures: containers, triggers, raw playback, F-curve evaluation against
//! hand-computed values, a 3-joint skeleton posed by hand. Hostile input and proptests live
//! in `hostile_tests`.

use super::bar::{mset_slot, Anb, Bar, BarEntry, PlayerState};
use super::eval::{curve_value, Evaluator, Timing};
use super::motion::interp::{InitialPose, InterpolatedMotion};
use super::motion::{Common, FrameData, Motion, RawMotion};
use super::skeleton::{Bone, Skeleton};
use super::synth::{self, CurveSpec, Interp, KeySpec, MotionSpec};
use super::trigger::Triggers;
use glam::{Mat4, Vec3};

/// `bones` bones, no curves: the bind pose at any time.
pub(super) fn still_motion(bones: i16) -> InterpolatedMotion {
    synth::build(&MotionSpec { bones, fps: 30.0, frame_end: 10.0, ..MotionSpec::default() }).unwrap()
}

fn one_curve(c: CurveSpec) -> InterpolatedMotion {
    synth::build(&MotionSpec { bones: 1, forward: vec![c], fps: 60.0, frame_end: 60.0, ..MotionSpec::default() })
        .unwrap()
}

fn value(m: &InterpolatedMotion, t: f32) -> f32 {
    curve_value(m, &m.fcurves_forward[0], t).unwrap()
}

fn close(a: f32, b: f32) -> bool {
    (a - b).abs() < 1e-4
}

#[test]
fn bar_writer_aligns_by_type_and_links_duplicates() {
    let bar = Bar {
        reserved: 0,
        motionset_type: 0,
        entries: vec![
            BarEntry::new(47, "aaa", vec![1, 2, 3]),
            BarEntry::new(9, "mot", vec![4; 5]),
            BarEntry::new(7, "tex", vec![5; 3]),
            BarEntry { duplicate: 1, ..BarEntry::new(47, "aaa", vec![1, 2, 3]) },
        ],
    };
    let b = bar.to_bytes().unwrap();
    let (back, places) = Bar::parse_placed(&b).unwrap();
    assert_eq!(back, bar);
    // Header 16 + 4 entries × 16 = 80; type 47 aligns to 4, type 9 to 16, type 7 to 128;
    // the duplicate points at the first entry's data.
    let at: Vec<(u32, u32)> = places.iter().map(|p| (p.offset, p.size)).collect();
    assert_eq!(at, [(80, 3), (96, 5), (128, 3), (80, 3)]);
    assert_eq!(b.len(), 131);
    assert_eq!(back.entries[0].name_str(), "aaa");
    // A duplicate without an original cannot be written.
    let lone = Bar { entries: vec![BarEntry { duplicate: 1, ..BarEntry::new(1, "x", vec![]) }], ..bar };
    assert!(lone.to_bytes().is_err());
}

#[test]
fn mset_player_slots_fall_back_past_dummies() {
    // Motion 0 (IDLE) has only slot 2 (field, no weapon); motion 1 has all four.
    let mut entries: Vec<BarEntry> =
        (0..8).map(|i| BarEntry::new(17, "DUMM", if i >= 4 { vec![1] } else { vec![] })).collect();
    entries[2].data = vec![1];
    let bar = Bar { reserved: 0, motionset_type: 1, entries };
    assert_eq!(mset_slot(&bar, 1, PlayerState::FieldWeapon), Some(4 + 3));
    assert_eq!(mset_slot(&bar, 0, PlayerState::FieldWeapon), Some(2), "3 -> 2");
    assert_eq!(mset_slot(&bar, 0, PlayerState::BattleWeapon), Some(2), "0 -> 1 -> 3 -> 2");
    assert_eq!(mset_slot(&bar, 2, PlayerState::BattleWeapon), None, "no slot: the game's -1");
    let default = Bar { motionset_type: 0, ..bar };
    assert_eq!(mset_slot(&default, 2, PlayerState::BattleWeapon), Some(2));
    assert_eq!(mset_slot(&default, 0, PlayerState::BattleWeapon), None, "dummy");
}

#[test]
fn anb_round_trip_and_triggers_keep_gaps() {
    let m = synth::biped_walk();
    let t = synth::sample_triggers();
    let b = synth::anb(&m, &t).unwrap();
    let (bar, places) = Bar::parse_placed(&b).unwrap();
    let anb = Anb::from_bar(&bar, &places, 0).unwrap();
    assert_eq!(anb.motion, Some(Motion::Interpolated(m)));
    assert_eq!(anb.triggers, Some(t.clone()));
    assert_eq!(bar.to_bytes().unwrap(), b);
    // Hand layout of the trigger file: header 4, range 6, frame 6 + 8.
    let tb = t.to_bytes().unwrap();
    assert_eq!(tb[..4], [1, 2, 10, 0]);
    assert_eq!(tb.len(), 24);
    let odd = Triggers { gap: vec![0xAA, 0xBB], trailing: vec![0xCC], ..t };
    let ob = odd.to_bytes().unwrap();
    assert_eq!(ob[2], 12, "frame triggers after the gap");
    assert_eq!(Triggers::parse(&ob).unwrap(), odd);
}

fn raw_fixture() -> RawMotion {
    let m = |f: usize, b: usize| {
        Mat4::from_rotation_y(0.1 * f as f32 + b as f32) * Mat4::from_translation(Vec3::new(b as f32, f as f32, 1.0))
    };
    RawMotion {
        common: Common::new(1),
        bone_count: 2,
        reserved: [0; 3],
        frame_count: 6,
        bbox: [-1.0, -1.0, -1.0, 1.0, 1.0, 1.0, 1.0, 1.0],
        frame_data: FrameData { start: 0.0, end: 3.0, fps: 30.0, ret: 0.0 },
        frames: (0..3).map(|f| (0..2).map(|b| m(f, b).to_cols_array()).collect()).collect(),
        position_matrices: vec![Mat4::IDENTITY.to_cols_array(); 3],
    }
}

pub(super) fn raw_bytes() -> Vec<u8> {
    raw_fixture().to_bytes().unwrap()
}

#[test]
fn raw_motion_round_trip_and_playback() {
    let r = raw_fixture();
    let b = r.to_bytes().unwrap();
    // 0x90 + 16 + 0x50 header, 6 matrices, 3 position matrices.
    assert_eq!(b.len(), 0x90 + 0x60 + 9 * 64);
    assert_eq!(Motion::parse(&b).unwrap(), Motion::Raw(r.clone()));
    for (f, frame) in r.frames.iter().enumerate() {
        let got: Vec<[f32; 16]> = r.matrices_at(f as f32).iter().map(Mat4::to_cols_array).collect();
        assert_eq!(&got, frame, "exact at integer frame {f}");
    }
    let mid = r.matrices_at(0.5)[1].to_cols_array();
    for (k, v) in mid.iter().enumerate() {
        assert!(close(*v, 0.5 * (r.frames[0][1][k] + r.frames[1][1][k])));
    }
    assert_eq!(r.matrices_at(99.0)[0].to_cols_array(), r.frames[2][0], "clamped to the last frame");
    // No position matrices: offset 0, and the parse agrees.
    let bare = RawMotion { position_matrices: vec![], ..r };
    assert_eq!(RawMotion::parse(&bare.to_bytes().unwrap()).unwrap(), bare);
}

#[test]
fn keys_constant_linear_hermite_by_hand() {
    let lin = one_curve(CurveSpec::new(
        0,
        6,
        vec![
            KeySpec::new(Interp::Linear, 0.0, 2.0),
            KeySpec::new(Interp::Constant, 10.0, 4.0),
            KeySpec::new(Interp::Linear, 20.0, 0.0),
        ],
    ));
    assert_eq!(value(&lin, 0.0), 2.0);
    assert_eq!(value(&lin, 2.5), 2.5);
    assert_eq!(value(&lin, 10.0), 4.0);
    assert_eq!(value(&lin, 15.0), 4.0, "the left key (constant) decides the segment");
    assert_eq!(value(&lin, 20.0), 0.0);
    // Hermite: v0 = 0, out slope 0.1/tick; v1 = 1, in slope 0; Δt = 10; at s = 0.5:
    // h00·0 + h10·(0.1·10) + h01·1 + h11·0 = 0.125 + 0.5 = 0.625 (unscaled would be 0.5125).
    let h = one_curve(CurveSpec::new(
        0,
        3,
        vec![KeySpec::hermite(0.0, 0.0, 9.0, 0.1), KeySpec::hermite(10.0, 1.0, 0.0, 9.0)],
    ));
    assert!(close(value(&h, 5.0), 0.625), "{}", value(&h, 5.0));
    assert_eq!(value(&h, 10.0), 1.0);
    // The in tangent of the left key and the out tangent of the right key play no part.
    let h2 = one_curve(CurveSpec::new(
        0,
        3,
        vec![KeySpec::hermite(0.0, 0.0, -5.0, 0.1), KeySpec::hermite(10.0, 1.0, 0.0, 7.0)],
    ));
    assert_eq!(value(&h2, 5.0), value(&h, 5.0));
}

#[test]
fn infinity_modes_by_hand() {
    // Keys (10, 1) → (20, 3), linear; period 10, end-to-end change 2.
    let curve = |pre: u8, post: u8| {
        let mut c = CurveSpec::new(
            0,
            7,
            vec![KeySpec::new(Interp::Linear, 10.0, 1.0), KeySpec::new(Interp::Linear, 20.0, 3.0)],
        );
        c.pre = pre;
        c.post = post;
        one_curve(c)
    };
    // (mode, value at t = 4, value at t = 27, value at t = 40)
    let expect = [(0, 1.0, 3.0, 3.0), (1, -0.2, 4.4, 7.0), (2, 1.8, 2.4, 1.0), (3, 0.0, 0.0, 0.0)];
    for (mode, at4, at27, at40) in expect {
        let m = curve(mode, mode);
        assert!(close(value(&m, 4.0), at4), "pre {mode}: {}", value(&m, 4.0));
        assert!(close(value(&m, 27.0), at27), "post {mode}: {}", value(&m, 27.0));
        assert!(close(value(&m, 40.0), at40), "post {mode} at 40: {}", value(&m, 40.0));
        // Pre and post modes are independent fields.
        let split = curve(mode, 3 - mode);
        assert!(close(value(&split, 4.0), at4));
        assert_eq!(split.fcurves_forward[0].post, 3 - mode);
    }
}

#[test]
fn timing_converts_frames_and_loops() {
    // interpolated.motion's numbers: fps 30, FrameEnd 150 ↔ 300 ticks.
    let t = Timing::of(&FrameData { start: 0.0, end: 150.0, fps: 30.0, ret: 0.0 });
    assert_eq!((t.end, t.at(100.0), t.at(310.0)), (300.0, 100.0, 10.0));
    let r = Timing::of(&FrameData { start: 10.0, end: 150.0, fps: 30.0, ret: 50.0 });
    // Starts at tick 20; after 330 ticks: 350 → 100 + (350 − 300) mod 200 = 150.
    assert_eq!((r.at(0.0), r.at(330.0)), (20.0, 150.0));
}

/// Root (0) → joint 1 (0, 10, 0) → joint 2 (0, 10, 0).
fn three_joints() -> Skeleton {
    let mut sk = Skeleton::chain(3, 10.0);
    sk.bones[0].translation = [0.0; 4];
    sk
}

fn three_joint_motion() -> InterpolatedMotion {
    let half_pi = std::f32::consts::FRAC_PI_2;
    synth::build(&MotionSpec {
        bones: 3,
        initial: [0, 1, 2]
            .map(|ch| InitialPose { joint: 0, channel: ch, value: 2.0 })
            .into_iter()
            .chain([InitialPose { joint: 1, channel: 3, value: half_pi }])
            .collect(),
        forward: vec![CurveSpec::new(
            0,
            5,
            vec![KeySpec::new(Interp::Linear, 0.0, 0.0), KeySpec::new(Interp::Linear, 60.0, half_pi)],
        )],
        fps: 60.0,
        frame_end: 60.0,
        ..MotionSpec::default()
    })
    .unwrap()
}

fn assert_mat(g: &Mat4, x: [f32; 3], y: [f32; 3], z: [f32; 3], t: [f32; 3]) {
    let want = [x, y, z, t];
    let got = [g.x_axis, g.y_axis, g.z_axis, g.w_axis].map(|c| c.truncate().to_array());
    for (w, g) in want.iter().zip(&got) {
        assert!(w.iter().zip(g).all(|(a, b)| close(*a, *b)), "want {want:?} got {got:?}");
    }
}

#[test]
fn three_joint_pose_by_hand() {
    let m = three_joint_motion();
    let m = InterpolatedMotion::parse(&m.to_bytes().unwrap()).unwrap();
    let sk = three_joints();
    let ev = Evaluator::new(&m, Some(&sk)).unwrap();
    // t = 60: joint 0 scale 2, rz 90°: X → (0,2,0), Y → (−2,0,0). Joint 1 at G0·(0,10,0) =
    // (−20,0,0), rx 90° sends its Y to G0·Z = (0,0,2) and Z to G0·(−Y) = (2,0,0).
    // Joint 2 at G1·(0,10,0) = (−20,0,0) + 10·(0,0,2) = (−20,0,20).
    let g = ev.pose(60.0).globals.unwrap();
    assert_mat(&g[0], [0.0, 2.0, 0.0], [-2.0, 0.0, 0.0], [0.0, 0.0, 2.0], [0.0; 3]);
    assert_mat(&g[1], [0.0, 2.0, 0.0], [0.0, 0.0, 2.0], [2.0, 0.0, 0.0], [-20.0, 0.0, 0.0]);
    assert_mat(&g[2], [0.0, 2.0, 0.0], [0.0, 0.0, 2.0], [2.0, 0.0, 0.0], [-20.0, 0.0, 20.0]);
    // t = 30: rz 45°: G0 X = (√2, √2, 0), Y = (−√2, √2, 0); joint 1 at 10·Y0; joint 2 adds 10·(0,0,2).
    let s = std::f32::consts::SQRT_2;
    let g = ev.pose(30.0).globals.unwrap();
    assert_mat(&g[0], [s, s, 0.0], [-s, s, 0.0], [0.0, 0.0, 2.0], [0.0; 3]);
    assert_mat(&g[2], [s, s, 0.0], [0.0, 0.0, 2.0], [s, -s, 0.0], [-10.0 * s, 10.0 * s, 20.0]);
    // t = 0: no Z rotation.
    let g = ev.pose(0.0).globals.unwrap();
    assert_mat(&g[2], [2.0, 0.0, 0.0], [0.0, 0.0, 2.0], [0.0, -2.0, 0.0], [0.0, 20.0, 20.0]);
    // Subtype 1 ignores scale: joint 1 then sits at (0, 10, 0) at t = 0.
    let flat = InterpolatedMotion { common: Common::new(1), ..m.clone() };
    let g = Evaluator::new(&flat, Some(&sk)).unwrap().pose(0.0).globals.unwrap();
    assert_mat(&g[1], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, -1.0, 0.0], [0.0, 10.0, 0.0]);
}

#[test]
fn ik_helpers_are_joints_and_inverse_curves_are_helper_relative() {
    // Two bones; helper 2 under bone 1 at (5, 0, 0); inverse curve joint 0 = helper 2, ty.
    let m = synth::build(&MotionSpec {
        bones: 2,
        helpers: vec![synth::helper(2, 1, [5.0, 0.0, 0.0])],
        inverse: vec![CurveSpec::new(
            0,
            7,
            vec![KeySpec::new(Interp::Linear, 0.0, 0.0), KeySpec::new(Interp::Linear, 10.0, 3.0)],
        )],
        fps: 60.0,
        frame_end: 10.0,
        ..MotionSpec::default()
    })
    .unwrap();
    let sk = Skeleton::chain(2, 10.0);
    let pose = Evaluator::new(&m, Some(&sk)).unwrap().pose(10.0);
    assert_eq!(pose.channels[2][6..], [5.0, 3.0, 0.0], "helper bind x kept, ty from the inverse curve");
    let g = pose.globals.unwrap();
    assert_eq!(g[2].w_axis.truncate(), Vec3::new(5.0, 13.0, 0.0));
    // Without a skeleton: channels only.
    let bare = Evaluator::new(&m, None).unwrap().pose(10.0);
    assert!(bare.globals.is_none());
    assert_eq!(bare.channels[0], [1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
}

#[test]
fn skeletons_through_mdlx_and_json() {
    let sk = Skeleton::biped();
    let mdlx = sk.to_mdlx().unwrap();
    assert_eq!(Skeleton::from_mdlx(&mdlx).unwrap(), sk);
    let mut moved = sk.clone();
    moved.bones[3].rotation[2] = 0.5;
    let re = moved.write_into_mdlx(&mdlx).unwrap();
    assert_eq!(Skeleton::from_mdlx(&re).unwrap(), moved);
    assert_eq!(re.len(), mdlx.len());
    let json = serde_json::to_string(&sk).unwrap();
    assert_eq!(Skeleton::from_json(&json).unwrap(), sk);
    let short = r#"{"bones": [{"parent": -1}, {"parent": 0, "translation": [0, 5, 0, 0]}]}"#;
    let s = Skeleton::from_json(short).unwrap();
    assert_eq!(s.bones[1].scale, [1.0, 1.0, 1.0, 0.0]);
    assert!(Skeleton::from_json(r#"{"bones": [{"parent": 1}, {"parent": 0}]}"#).unwrap_err().contains("cycle"));
    assert!(Skeleton::from_json(r#"{"bones": [{"parent": 7}]}"#).is_err());
    let _ = Bone::channels(&sk.bones[0]);
}
