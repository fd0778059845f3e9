//! Synthetic PAMs: hand-encoded bytes, hand-computed evaluations, hostile inputs and a
//! property round trip through the writer.

use super::*;
use glam::{Mat4, Vec3};
use proptest::prelude::*;

fn name(s: &str) -> [u8; 12] {
    let mut n = [0u8; 12];
    n[..s.len()].copy_from_slice(s.as_bytes());
    n
}

fn anim(frames: u16, bones: Vec<BoneChannels>) -> Animation {
    Animation {
        name: name("synth"),
        flag: 1,
        fps: 30,
        interpolation_frames: 0,
        loop_from: 0,
        pad: 0,
        frame_count: frames,
        loop_to: 0,
        bones,
    }
}

fn bone(chans: &[(ChannelKind, Channel)]) -> BoneChannels {
    let mut b = BoneChannels::default();
    for (k, c) in chans {
        b.channels[*k as usize] = Some(c.clone());
    }
    b
}

fn pam(animations: Vec<Option<Animation>>) -> Pam {
    let empty_slot_names =
        animations.iter().enumerate().filter(|(_, a)| a.is_none()).map(|(i, _)| (i, [0u8; 12])).collect();
    Pam { version: 1, reserved: [0; 6], animations, empty_slot_names }
}

fn sparse(min: f32, max: f32, keys: &[(u16, u16)]) -> Channel {
    Channel { max, min, keys: Keys::Sparse(keys.iter().map(|&(frame, value)| Key { frame, value }).collect()) }
}

fn roundtrip(p: &Pam) -> Pam {
    let b = p.to_bytes().unwrap();
    let q = Pam::parse(&b).unwrap();
    assert_eq!(&q, p);
    q
}

/// A hand-encoded file: one narrow animation (4 frames, 2 bones). Bone 0: TX constant 0.5,
/// RY full [0, 65535, 0, 65535] in [-1, 1]. Bone 1: SY sparse (0, q 0), (3, q 65535) in [1, 4].
fn hand_file() -> Vec<u8> {
    let mut b = Vec::new();
    b.extend_from_slice(b"PAM\0");
    b.extend_from_slice(&1u32.to_le_bytes());
    b.extend_from_slice(&[0; 6]);
    b.extend_from_slice(&1u16.to_le_bytes());
    b.extend_from_slice(&0x20u32.to_le_bytes());
    b.extend_from_slice(b"TwelveChars!"); // all 12 bytes, no terminator
                                          // flag 7, fps 30, interp 5, loop-from 3, bones 2, pad 0, frames 4, loop-to 1
    b.extend_from_slice(&[7, 0, 30, 5, 3, 0, 2, 0, 4, 0, 1, 0]);
    b.extend_from_slice(&(1u16 | 1 << 4).to_le_bytes());
    b.extend_from_slice(&(1u16 << 7).to_le_bytes());
    let f = |v: f32| v.to_le_bytes();
    b.extend_from_slice(&f(0.5));
    b.extend_from_slice(&f(0.5));
    b.push(1);
    b.extend_from_slice(&f(1.0));
    b.extend_from_slice(&f(-1.0));
    b.push(4);
    for q in [0u16, 65535, 0, 65535] {
        b.extend_from_slice(&q.to_le_bytes());
    }
    b.extend_from_slice(&f(4.0));
    b.extend_from_slice(&f(1.0));
    b.push(2);
    b.extend_from_slice(&[0, 0, 0, 3, 0xFF, 0xFF]);
    b
}

#[test]
fn hand_encoded_file_parses_and_rewrites() {
    let b = hand_file();
    let p = Pam::parse(&b).unwrap();
    let a = p.animations[0].as_ref().unwrap();
    assert_eq!(a.name(), "TwelveChars!");
    assert_eq!((a.flag, a.fps, a.interpolation_frames, a.loop_from, a.frame_count, a.loop_to), (7, 30, 5, 3, 4, 1));
    assert_eq!([a.bones[0].mask(), a.bones[1].mask()], [0x11, 0x80]);
    assert_eq!(a.bones[0].get(ChannelKind::TranslationX).unwrap().keys, Keys::Constant);
    assert_eq!(a.bones[0].get(ChannelKind::RotationY).unwrap().keys, Keys::Full(vec![0, 65535, 0, 65535]));
    assert_eq!(a.bones[1].get(ChannelKind::ScaleY).unwrap(), &sparse(1.0, 4.0, &[(0, 0), (3, 65535)]));
    // 32 table + 12 header + 4 masks + TX 9 + RY 9+8 + SY 9+6 = 89 bytes; the writer pads to an
    // even length, otherwise identical.
    assert_eq!(b.len(), 89);
    let mut padded = b.clone();
    padded.push(0);
    assert_eq!(p.to_bytes().unwrap(), padded);
    // Evaluation by hand: RY goes -1 -> 1 -> -1 -> 1; SY 1 -> 4 over frames 0..3.
    let e = a.evaluate(1.5);
    assert_eq!(e[0].translation, [0.5, 0.0, 0.0]);
    assert_eq!(e[0].rotation, [0.0, 0.0, 0.0]);
    assert_eq!(e[0].scale, [1.0; 3]);
    assert_eq!(a.evaluate(0.5)[0].rotation[1], 0.0);
    assert_eq!(a.evaluate(1.0)[0].rotation[1], 1.0);
    assert_eq!(a.evaluate(7.0)[0].rotation[1], 1.0);
    assert_eq!(e[1].scale, [1.0, 2.5, 1.0]);
    assert_eq!(a.evaluate(-3.0)[1].scale[1], 1.0);
}

#[test]
fn dequantize_endpoints_are_exact() {
    let (min, max) = (-0.0322379395365715_f64 as f32, -0.027958117425441742_f64 as f32);
    assert_eq!(eval::dequantize(min, max, 0), min);
    assert_eq!(eval::dequantize(min, max, 65535), max);
    let mid = eval::dequantize(-1.0, 3.0, 32768);
    assert!((mid - (-1.0 + 4.0 * 32768.0 / 65535.0)).abs() < 1e-6);
}

#[test]
fn sparse_keys_interpolate_in_float_space_and_hold_outside() {
    // Keys at frames 2, 6, 10 with values -1, 3 and -1 + 4 * 32768/65535 in [-1, 3].
    let c = sparse(-1.0, 3.0, &[(2, 0), (6, 65535), (10, 32768)]);
    let a = anim(12, vec![bone(&[(ChannelKind::TranslationZ, c)])]);
    let a = roundtrip(&pam(vec![Some(a)])).animations[0].clone().unwrap();
    let v = |f: f32| a.channel_value(0, ChannelKind::TranslationZ, f);
    let v10 = -1.0 + 4.0 * (32768.0 / 65535.0);
    assert_eq!(v(0.0), -1.0);
    assert_eq!(v(2.0), -1.0);
    assert!((v(4.0) - 1.0).abs() < 1e-6);
    assert!((v(3.0) - 0.0).abs() < 1e-6);
    assert_eq!(v(6.0), 3.0);
    assert!((v(8.0) - (3.0 + v10) / 2.0).abs() < 1e-6);
    assert!((v(11.5) - v10).abs() < 1e-6);
    assert!((v(1000.0) - v10).abs() < 1e-6);
    assert_eq!(v(f32::NAN), -1.0);
    // Absent channels and bones take the defaults.
    assert_eq!(a.channel_value(0, ChannelKind::RotationX, 4.0), 0.0);
    assert_eq!(a.channel_value(0, ChannelKind::ScaleZ, 4.0), 1.0);
    assert_eq!(a.channel_value(9, ChannelKind::ScaleX, 4.0), 1.0);
}

#[test]
fn wide_mode_uses_u16_counts_and_frame_ids() {
    let full: Vec<u16> = (0..300u32).map(|i| (i * 200) as u16).collect();
    let a = anim(
        300,
        vec![bone(&[
            (ChannelKind::TranslationX, sparse(0.0, 10.0, &[(0, 0), (280, 65535)])),
            (ChannelKind::RotationZ, Channel { max: 2.0, min: 0.0, keys: Keys::Full(full) }),
            (ChannelKind::ScaleX, Channel { max: 2.0, min: 2.0, keys: Keys::Constant }),
        ])],
    );
    let p = pam(vec![Some(a)]);
    let b = p.to_bytes().unwrap();
    // 16 + 16 table, 12 header, 2 mask; TX 8+2+2*4; RZ 8+2+300*2; SX 8+2.
    assert_eq!(b.len(), 32 + 14 + 18 + 610 + 10);
    // TX key count and the second key's frame id are u16.
    let tx = 32 + 14;
    assert_eq!(&b[tx + 8..tx + 10], &2u16.to_le_bytes());
    assert_eq!(&b[tx + 14..tx + 16], &280u16.to_le_bytes());
    let a = roundtrip(&p).animations[0].clone().unwrap();
    assert!(a.wide());
    let e = a.evaluate(140.0)[0];
    assert!((e.translation[0] - 5.0).abs() < 1e-5);
    assert_eq!(a.evaluate(290.0)[0].translation[0], 10.0);
    assert!((a.evaluate(100.5)[0].rotation[2] - 2.0 * 20100.0 / 65535.0).abs() < 1e-5);
    assert_eq!(e.scale, [2.0, 1.0, 1.0]);
}

#[test]
fn one_frame_animations_and_empty_slots() {
    let one = anim(1, vec![bone(&[(ChannelKind::TranslationY, Channel { max: 3.0, min: 3.0, keys: Keys::Constant })])]);
    let mut named = one.clone();
    named.name = name("second");
    let mut p = pam(vec![None, Some(one), None, Some(named)]);
    p.empty_slot_names.insert(2, name("dummy"));
    let q = roundtrip(&p);
    assert_eq!(q.animations.iter().map(Option::is_some).collect::<Vec<_>>(), [false, true, false, true]);
    assert_eq!(q.slot_name(2), "dummy");
    assert_eq!(q.find("0"), None);
    assert_eq!(q.find("1").map(|x| x.0), Some(1));
    assert_eq!(q.find("SECOND").map(|x| x.0), Some(3));
    assert_eq!(q.animations[1].as_ref().unwrap().evaluate(0.0)[0].translation, [0.0, 3.0, 0.0]);
    // The empty slots have offset 0 in the table.
    let b = p.to_bytes().unwrap();
    assert_eq!(&b[16..20], &[0; 4]);
    assert_eq!(&b[48..52], &[0; 4]);
}

#[test]
fn writer_refuses_what_would_read_back_differently() {
    let bad = |c: Channel, frames: u16| {
        let p = pam(vec![Some(anim(frames, vec![bone(&[(ChannelKind::RotationX, c)])]))]);
        assert!(matches!(p.to_bytes(), Err(PamError::Unwritable { .. })));
    };
    bad(Channel { max: 1.0, min: 0.0, keys: Keys::Full(vec![1, 2, 3]) }, 4);
    bad(sparse(0.0, 1.0, &[(3, 1)]), 10);
    bad(sparse(0.0, 1.0, &[(3, 1), (2, 2)]), 10);
    bad(sparse(0.0, 1.0, &[(3, 1), (4, 2)]), 2);
    bad(sparse(0.0, 1.0, &[(3, 1), (256, 2)]), 10);
    let many = anim(10, vec![BoneChannels::default(); 256]);
    assert!(pam(vec![Some(many)]).to_bytes().is_err());
    let mut p = pam(vec![Some(anim(1, vec![]))]);
    p.empty_slot_names.insert(0, name("x"));
    assert!(p.to_bytes().is_err());
}

#[test]
fn scale_channels_and_scale_inheritance() {
    use crate::pmo::{Joint, Skeleton, NO_JOINT};
    let c = |v: f32| Channel { max: v, min: v, keys: Keys::Constant };
    // Joint 0 scales by 2; joint 1 sits at +1 X from it.
    let a = anim(
        1,
        vec![
            bone(&[(ChannelKind::ScaleX, c(2.0)), (ChannelKind::ScaleY, c(2.0)), (ChannelKind::ScaleZ, c(2.0))]),
            bone(&[(ChannelKind::TranslationX, c(1.0))]),
        ],
    );
    let a = roundtrip(&pam(vec![Some(a)])).animations[0].clone().unwrap();
    let joint = |i: u32, parent: u32| Joint {
        index: i,
        parent,
        skin_index: i,
        reserved: 0,
        name: [0; 16],
        local: Mat4::IDENTITY.to_cols_array(),
        inverse_global: Mat4::IDENTITY.to_cols_array(),
    };
    // Joint 2 has no bone in the animation: it keeps its bind local (+3 Y).
    let mut j2 = joint(2, 1);
    j2.local = Mat4::from_translation(Vec3::new(0.0, 3.0, 0.0)).to_cols_array();
    let sk =
        Skeleton { unknown: 0, skinned_count: 3, skin_start: 0, joints: vec![joint(0, NO_JOINT), joint(1, 0), j2] };
    let t = |m: &Mat4| m.w_axis.truncate();
    let none = pose_globals(&sk, &a, 0.0, &PoseOptions::default());
    assert_eq!(t(&none[1]), Vec3::new(1.0, 0.0, 0.0));
    assert_eq!(t(&none[2]), Vec3::new(1.0, 3.0, 0.0));
    assert_eq!(none[0].x_axis.x, 2.0);
    let full =
        pose_globals(&sk, &a, 0.0, &PoseOptions { scale_inheritance: ScaleInheritance::Full, ..Default::default() });
    assert_eq!(t(&full[1]), Vec3::new(2.0, 0.0, 0.0));
    assert_eq!(t(&full[2]), Vec3::new(2.0, 6.0, 0.0));
    // Skin = global x inverse bind (identity here).
    assert_eq!(skin_matrices(&sk, &full), full);
    assert_eq!(bind_globals(&sk)[2], Mat4::from_translation(Vec3::new(0.0, 3.0, 0.0)));
}

#[test]
fn hostile_parents_are_roots_and_counts_may_differ() {
    use crate::pmo::{Joint, Skeleton};
    let joint = |parent: u32, y: f32| Joint {
        index: 0,
        parent,
        skin_index: 0,
        reserved: 0,
        name: [0; 16],
        local: Mat4::from_translation(Vec3::new(0.0, y, 0.0)).to_cols_array(),
        inverse_global: Mat4::IDENTITY.to_cols_array(),
    };
    // Forward, self and out-of-range parents are treated as roots; joint 3 chains onto 0.
    let sk = Skeleton {
        unknown: 0,
        skinned_count: 4,
        skin_start: 0,
        joints: vec![joint(2, 1.0), joint(1, 2.0), joint(0x7FFF_FFFF, 3.0), joint(0, 4.0)],
    };
    let g = bind_globals(&sk);
    let ys: Vec<f32> = g.iter().map(|m| m.w_axis.y).collect();
    assert_eq!(ys, [1.0, 2.0, 3.0, 5.0]);
    // An animation with fewer bones than joints: bone 0 moves, joints 1..3 keep their bind local.
    let c = Channel { max: 10.0, min: 10.0, keys: Keys::Constant };
    let a = anim(1, vec![bone(&[(ChannelKind::TranslationX, c)])]);
    let g = pose_globals(&sk, &a, 0.0, &PoseOptions::default());
    assert_eq!(g[0].w_axis.truncate(), Vec3::new(10.0, 0.0, 0.0));
    assert_eq!(g[3].w_axis.truncate(), Vec3::new(10.0, 4.0, 0.0));
    assert_eq!(g[1].w_axis.y, 2.0);
    // More bones than joints: the extra bones are ignored; joints missing from a short global
    // list get the identity skin (they stay in bind pose).
    let many = anim(1, vec![BoneChannels::default(); 9]);
    assert_eq!(pose_globals(&sk, &many, 0.0, &PoseOptions::default()).len(), 4);
    let skins = skin_matrices(&sk, &g[..2]);
    assert_eq!(skins.len(), 4);
    assert_eq!(skins[3], Mat4::IDENTITY);
}

#[test]
fn euler_orders_and_trs_composition() {
    let h = std::f32::consts::FRAC_PI_2;
    let bt = BoneTransform { translation: [10.0, 0.0, 0.0], rotation: [h, 0.0, h], scale: [1.0, 3.0, 1.0] };
    // Xyz: scale (0,1,0) -> (0,3,0); Rx(90) -> (0,0,3); Rz(90) keeps it; + T.
    let p = bt.local_matrix(EulerOrder::Xyz).transform_point3(Vec3::Y);
    assert!(p.abs_diff_eq(Vec3::new(10.0, 0.0, 3.0), 1e-5), "{p}");
    // Zyx: Rz(90) first: (0,3,0) -> (-3,0,0); Rx keeps it.
    let p = bt.local_matrix(EulerOrder::Zyx).transform_point3(Vec3::Y);
    assert!(p.abs_diff_eq(Vec3::new(7.0, 0.0, 0.0), 1e-5), "{p}");
}

#[test]
fn playback_frames_follow_the_loop_rule() {
    let mut a = anim(90, vec![]);
    (a.loop_from, a.loop_to) = (89, 0);
    let f = |a: &Animation, t: f32, p| a.frame_at(t, p);
    assert_eq!(f(&a, 1.0, Playback::Loop), 30.0);
    assert_eq!(f(&a, 89.0 / 30.0, Playback::Loop), 89.0);
    assert!((f(&a, 3.0, Playback::Loop) - 1.0).abs() < 1e-4);
    assert!((f(&a, 6.0, Playback::Loop) - 2.0).abs() < 1e-4);
    assert_eq!(f(&a, 3.0, Playback::Once), 90.0);
    assert_eq!(f(&a, -1.0, Playback::Loop), 0.0);
    assert_eq!(f(&a, f32::NAN, Playback::Loop), 0.0);
    assert_eq!(f(&a, f32::INFINITY, Playback::Once), 0.0);
    (a.loop_from, a.loop_to) = (20, 10);
    assert!((f(&a, 25.0 / 30.0, Playback::Loop) - 15.0).abs() < 1e-4);
    assert!((f(&a, 31.0 / 30.0, Playback::Loop) - 11.0).abs() < 1e-4);
    (a.loop_from, a.loop_to, a.frame_count) = (0, 0, 10);
    assert!((f(&a, 15.0 / 30.0, Playback::Loop) - 5.0).abs() < 1e-4);
    assert_eq!(f(&a, 15.0 / 30.0, Playback::Once), 10.0);
    (a.loop_from, a.loop_to) = (5, 8);
    assert_eq!(f(&a, 1.0, Playback::Loop), 10.0);
}

// ---- hostile input ----

/// A file with two animations and every key form, for the truncation and mutation tests.
fn rich_file() -> Vec<u8> {
    let a = anim(
        20,
        vec![
            bone(&[(ChannelKind::TranslationX, sparse(0.0, 1.0, &[(0, 5), (19, 9)]))]),
            bone(&[(ChannelKind::RotationY, Channel { max: 1.0, min: 0.0, keys: Keys::Full(vec![7; 20]) })]),
        ],
    );
    let b = anim(300, vec![bone(&[(ChannelKind::ScaleZ, sparse(0.0, 1.0, &[(0, 5), (299, 9)]))])]);
    pam(vec![Some(a), None, Some(b)]).to_bytes().unwrap()
}

#[test]
fn every_truncation_is_an_error() {
    let b = rich_file();
    // The last byte may be the writer's padding; every shorter prefix cuts real data.
    for n in 0..b.len() - 1 {
        assert!(Pam::parse(&b[..n]).is_err(), "prefix of {n} bytes parsed");
    }
    assert!(Pam::parse(&b).is_ok());
}

#[test]
fn bad_magic_and_offsets() {
    let mut b = hand_file();
    b[1] = b'X';
    assert_eq!(Pam::parse(&b), Err(PamError::BadMagic { offset: 0, found: *b"PXM\0" }));
    let mut b = hand_file();
    b[16..20].copy_from_slice(&1000u32.to_le_bytes());
    assert_eq!(Pam::parse(&b), Err(PamError::OffsetOutOfRange { offset: 16, index: 0, value: 1000, len: 89 }));
    let mut b = hand_file();
    b[16..20].copy_from_slice(&8u32.to_le_bytes());
    let e = Pam::parse(&b).unwrap_err();
    assert!(matches!(e, PamError::Overlap { index: 0, start: 8, .. }), "{e}");
    assert!(e.to_string().contains("0x8"));
}

#[test]
fn absurd_counts_are_rejected_before_allocation() {
    let mut b = hand_file();
    b[4..8].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(matches!(Pam::parse(&b), Err(PamError::AbsurdCount { offset: 4, .. })));
    // Bone count 255: 510 mask bytes do not fit.
    let mut b = hand_file();
    b[0x20 + 6] = 255;
    assert!(matches!(Pam::parse(&b), Err(PamError::AbsurdCount { offset: 0x26, .. })));
    // Mask of bone 1 = all nine channels: 9 channel headers do not fit.
    let mut b = hand_file();
    b[0x2E..0x30].copy_from_slice(&0x1FFu16.to_le_bytes());
    assert!(matches!(Pam::parse(&b), Err(PamError::AbsurdCount { offset: 0x2C, .. })));
    // Sparse key count 200 (bone 1 SY, count byte at 0x30 + 9 + 17 + 8).
    let count_at = 0x30 + 9 + 17 + 8;
    let mut b = hand_file();
    assert_eq!(b[count_at], 2);
    b[count_at] = 200;
    assert_eq!(
        Pam::parse(&b),
        Err(PamError::AbsurdCount { offset: count_at, what: "key count (keys past end of file)", value: 200 })
    );
    // Frame count 200 and RY's key count 200 = a full channel past the end of the file.
    let mut b = hand_file();
    b[0x28] = 200;
    assert_eq!(b[0x41], 4);
    b[0x41] = 200;
    assert!(matches!(Pam::parse(&b), Err(PamError::AbsurdCount { offset: 0x41, value: 200, .. })));
}

#[test]
fn overlapping_animations_bad_masks_and_key_order() {
    // Two empty animations (12 zero bytes each) at 48 and 54: their data overlap.
    let mut b = pam(vec![Some(anim(0, vec![])), Some(anim(0, vec![]))]).to_bytes().unwrap();
    b.truncate(48);
    b.resize(66, 0);
    b[32..36].copy_from_slice(&54u32.to_le_bytes());
    assert_eq!(
        Pam::parse(&b),
        Err(PamError::Overlap {
            index: 1,
            start: 54,
            end: 66,
            other: "animation 0 data at offset 0x30 (to 0x3c)".into()
        })
    );
    assert_eq!(
        Pam::parse(&b).unwrap_err().to_string(),
        "PAM animation 1: data at offset 0x36 (to 0x42) overlaps animation 0 data at offset 0x30 (to 0x3c)"
    );
    // Aliased entries (same offset) are accepted and read the same data.
    let a = anim(1, vec![]);
    let mut b = pam(vec![Some(a.clone()), Some(a)]).to_bytes().unwrap();
    b.copy_within(16..20, 32);
    let p = Pam::parse(&b).unwrap();
    assert_eq!(p.animations[0], p.animations[1]);
    // A mask bit above 8.
    let mut b = hand_file();
    b[0x2D] = 0x02;
    assert_eq!(Pam::parse(&b), Err(PamError::BadMask { offset: 0x2C, bone: 0, mask: 0x0211 }));
    // Sparse frame ids 3 then 0 (bone 1 SY keys at the end of the file).
    let mut b = hand_file();
    let n = b.len();
    b[n - 6] = 3;
    b[n - 3] = 0;
    assert!(matches!(Pam::parse(&b), Err(PamError::KeyOrder { frame: 0, previous: 3, bone: 1, channel: "sy", .. })));
}

// ---- properties ----

fn channel(frames: u16) -> impl Strategy<Value = Channel> {
    let max_id = if frames > NARROW_MAX_FRAMES { u16::MAX } else { 255 };
    let full = if frames >= 2 {
        prop::collection::vec(any::<u16>(), usize::from(frames)).prop_map(Keys::Full).boxed()
    } else {
        Just(Keys::Constant).boxed()
    };
    let sparse = prop_oneof![Just(0usize), 2usize..8]
        .prop_flat_map(move |n| (prop::collection::btree_set(0..=max_id, n), prop::collection::vec(any::<u16>(), n)))
        .prop_map(move |(ids, vals)| {
            if ids.len() == usize::from(frames) && !ids.is_empty() {
                return Keys::Constant;
            }
            Keys::Sparse(ids.into_iter().zip(vals).map(|(frame, value)| Key { frame, value }).collect())
        });
    let keys = prop_oneof![Just(Keys::Constant), full, sparse];
    (-1e6f32..1e6, -1e6f32..1e6, keys).prop_map(|(max, min, keys)| Channel { max, min, keys })
}

fn animation() -> impl Strategy<Value = Animation> {
    prop_oneof![Just(0u16), Just(1), Just(2), 3u16..40, Just(255), Just(256), 257u16..400]
        .prop_flat_map(|frames| {
            let bone =
                prop::array::uniform9(prop::option::of(channel(frames))).prop_map(|channels| BoneChannels { channels });
            (any::<[u8; 12]>(), any::<(u16, u8, u8, u16, u8, u16)>(), prop::collection::vec(bone, 0..4), Just(frames))
        })
        .prop_map(|(name, (flag, fps, interpolation_frames, loop_from, pad, loop_to), bones, frame_count)| Animation {
            name,
            flag,
            fps,
            interpolation_frames,
            loop_from,
            pad,
            frame_count,
            loop_to,
            bones,
        })
}

fn any_pam() -> impl Strategy<Value = Pam> {
    (any::<u16>(), any::<[u8; 6]>(), prop::collection::vec((prop::option::of(animation()), any::<[u8; 12]>()), 0..4))
        .prop_map(|(version, reserved, slots)| {
            let empty_slot_names =
                slots.iter().enumerate().filter(|(_, (a, _))| a.is_none()).map(|(i, (_, n))| (i, *n)).collect();
            Pam { version, reserved, animations: slots.into_iter().map(|(a, _)| a).collect(), empty_slot_names }
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn parse_inverts_write(p in any_pam()) {
        let b = p.to_bytes().unwrap();
        prop_assert_eq!(Pam::parse(&b).unwrap(), p);
    }

    #[test]
    fn mutated_files_never_panic(edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6)) {
        let mut b = rich_file();
        for (i, v) in edits {
            let i = i.index(b.len());
            b[i] = v;
        }
        if let Ok(p) = Pam::parse(&b) {
            for a in p.animations.iter().flatten() {
                let _ = a.evaluate(7.5);
                let _ = a.frame_at(1.0, Playback::Loop);
            }
        }
    }
}
