//! Acceptance tests on the OpenKh samples (`../shared/samples`, or `$PSPRENDER_SHARED/samples`):
//! test.pam, its derived reference JSON (an independent throwaway decoder, samples README) and
//! the p01ex00.pmo skeleton and mesh it animates. Each test skips with a message when the
//! samples are absent.

use super::pose::{bounds, skin_positions};
use super::*;
use crate::pmo::Pmo;
use glam::{Mat4, Vec3};
use serde_json::Value;

fn sample(rel: &str) -> Option<Vec<u8>> {
    let p = crate::shared::sample(rel)?;
    Some(std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
}

fn test_pam() -> Option<Pam> {
    Some(Pam::parse(&sample("bbs-pam/test.pam")?).unwrap())
}

fn reference() -> Option<Value> {
    Some(serde_json::from_slice(&sample("bbs-pam/test.pam.reference.json")?).unwrap())
}

fn p01ex00() -> Option<Pmo> {
    Some(Pmo::parse(&sample("bbs-pmo/p01ex00.pmo")?).unwrap())
}

fn f(v: &Value) -> f32 {
    v.as_f64().unwrap() as f32
}

#[test]
fn test_pam_header_masks_and_channel_forms() {
    let Some(pam) = test_pam() else { return };
    assert_eq!(pam.version, 1);
    assert_eq!(pam.animations.len(), 1);
    let a = pam.animations[0].as_ref().unwrap();
    assert_eq!(a.name(), "OpenKHAnim");
    assert_eq!(
        (a.flag, a.fps, a.interpolation_frames, a.loop_from, a.loop_to, a.bones.len(), a.frame_count),
        (1, 30, 0, 89, 0, 53, 90)
    );
    assert_eq!([a.bones[0].mask(), a.bones[1].mask(), a.bones[3].mask()], [0x0000, 0x0007, 0x003D]);
    let forms: Vec<KeyForm> = a.channels().map(|(_, _, c)| c.keys.form()).collect();
    let n = |f: KeyForm| forms.iter().filter(|&&x| x == f).count();
    assert_eq!((forms.len(), n(KeyForm::Constant), n(KeyForm::Full), n(KeyForm::Sparse)), (298, 147, 110, 41));
    for (_, _, c) in a.channels() {
        if let Keys::Sparse(k) = &c.keys {
            assert_eq!((k[0].frame, k[k.len() - 1].frame), (0, 89));
        }
    }
    // OpenKh PamTests values (decimal of the f64 widening), exact as f32.
    let max = |bone: usize, k: ChannelKind| a.bones[bone].get(k).unwrap().max;
    assert_eq!(max(1, ChannelKind::TranslationX), (1.818989362888275e-14_f64 as f32));
    assert_eq!(max(2, ChannelKind::TranslationX), (-0.027958117425441742_f64 as f32));
    assert_eq!(max(52, ChannelKind::RotationZ), (0.17539772391319275_f64 as f32));
    // The name fills 10 of 12 bytes; nothing else is in the table.
    assert!(pam.empty_slot_names.is_empty());
    assert_eq!(pam.find("OpenKHAnim").map(|x| x.0), Some(0));
    assert_eq!(pam.find("0").map(|x| x.0), Some(0));
    assert!(pam.find("1").is_none());
}

#[test]
fn test_pam_rewrites_byte_identical() {
    let Some(b) = sample("bbs-pam/test.pam") else { return };
    let pam = Pam::parse(&b).unwrap();
    assert_eq!(pam.to_bytes().unwrap(), b);
}

#[test]
fn test_pam_raw_channels_match_reference() {
    let (Some(pam), Some(r)) = (test_pam(), reference()) else { return };
    let a = pam.animations[0].as_ref().unwrap();
    let raw = r["raw_channels"].as_array().unwrap();
    let ours: Vec<_> = a.channels().collect();
    assert_eq!(raw.len(), ours.len());
    for (rc, (bone, kind, c)) in raw.iter().zip(ours) {
        assert_eq!(rc["bone"].as_u64().unwrap() as usize, bone);
        assert_eq!(rc["channel"].as_str().unwrap(), kind.short());
        assert_eq!((f(&rc["max"]), f(&rc["min"])), (c.max, c.min), "bone {bone} {kind:?}");
        assert_eq!(rc["count"].as_u64().unwrap() as usize, c.keys.count());
        let keys: Vec<(u16, u16)> = match &c.keys {
            Keys::Constant => vec![],
            Keys::Full(v) => v.iter().enumerate().map(|(i, &q)| (i as u16, q)).collect(),
            Keys::Sparse(v) => v.iter().map(|k| (k.frame, k.value)).collect(),
        };
        let want: Vec<(u16, u16)> = rc["keys"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| (k[0].as_u64().unwrap() as u16, k[1].as_u64().unwrap() as u16))
            .collect();
        assert_eq!(keys, want, "bone {bone} {kind:?}");
    }
}

#[test]
fn test_pam_evaluated_channels_match_reference() {
    let (Some(pam), Some(r)) = (test_pam(), reference()) else { return };
    let a = pam.animations[0].as_ref().unwrap();
    let frames = r["evaluated_channels_by_frame"]["frames"].as_object().unwrap();
    assert_eq!(frames.len(), 8);
    for (key, bones) in frames {
        let frame: f32 = key.parse().unwrap();
        let ours = a.evaluate(frame);
        let bones = bones.as_array().unwrap();
        assert_eq!(bones.len(), ours.len());
        for (b, (want, got)) in bones.iter().zip(&ours).enumerate() {
            for (c, (w, g)) in want.as_array().unwrap().iter().zip(got.to_array()).enumerate() {
                assert!((f(w) - g).abs() <= 1e-6, "frame {frame} bone {b} channel {c}: {} vs {g}", f(w));
            }
        }
    }
    // The example in animation-formats.md §1.3, independent of the JSON.
    let want: [f64; 9] = [-0.0310976, -0.0281814, 0.0541336, 1.1999845, 0.2258105, 1.3677911, 1.0, 1.0, 1.0];
    for (w, g) in want.iter().zip(a.evaluate(44.5)[2].to_array()) {
        assert!((w - f64::from(g)).abs() <= 1e-6, "{w} vs {g}");
    }
}

#[test]
fn p01ex00_bind_chain_inverts_inverse_global() {
    let Some(m) = p01ex00() else { return };
    let sk = m.skeleton.as_ref().unwrap();
    let g = bind_globals(sk);
    assert_eq!(g.len(), 53);
    for (j, s) in skin_matrices(sk, &g).iter().enumerate() {
        assert!(s.abs_diff_eq(Mat4::IDENTITY, 1e-5), "joint {j}: {s:?}");
    }
}

#[test]
fn p01ex00_posed_globals_match_reference() {
    let (Some(pam), Some(r), Some(m)) = (test_pam(), reference(), p01ex00()) else { return };
    let a = pam.animations[0].as_ref().unwrap();
    let sk = m.skeleton.as_ref().unwrap();
    for key in ["0", "45"] {
        let frame: f32 = key.parse().unwrap();
        let want = r["global_matrices_p01ex00"][key].as_array().unwrap();
        // Row-major row-vector in the JSON = column-major column-vector in glam.
        for opts in
            [PoseOptions::default(), PoseOptions { scale_inheritance: ScaleInheritance::Full, ..Default::default() }]
        {
            let got = pose_globals(sk, a, frame, &opts);
            assert_eq!(got.len(), want.len());
            for (j, (w, g)) in want.iter().zip(&got).enumerate() {
                let w: Vec<f32> = w.as_array().unwrap().iter().map(f).collect();
                let wm = Mat4::from_cols_slice(&w);
                assert!(g.abs_diff_eq(wm, 1e-5), "frame {frame} joint {j} {opts:?}: {g:?} vs {wm:?}");
            }
        }
    }
}

fn posed_bounds(m: &Pmo, a: &Animation, frame: f32, opts: &PoseOptions) -> (Vec3, Vec3) {
    let sk = m.skeleton.as_ref().unwrap();
    let skin = skin_matrices(sk, &pose_globals(sk, a, frame, opts));
    let pts = skin_positions(m, &skin);
    assert_eq!(pts.len(), 3465);
    bounds(&pts).unwrap()
}

#[test]
fn p01ex00_skinned_bounds_match_reference() {
    let (Some(pam), Some(r), Some(m)) = (test_pam(), reference(), p01ex00()) else { return };
    let a = pam.animations[0].as_ref().unwrap();
    let close = |v: Vec3, w: [f32; 3]| (v - Vec3::from(w)).abs().max_element() <= 1e-3;
    // From the issue text (animation-formats.md §1.3 test 5), independent of the JSON.
    let (lo, hi) = posed_bounds(&m, a, 0.0, &PoseOptions::default());
    assert!(close(lo, [-0.3637, 0.0012, -0.2275]) && close(hi, [0.2872, 1.6346, 0.3392]), "{lo} {hi}");
    for key in ["0", "45"] {
        let bb = &r["skinned_bbox_p01ex00"][key];
        let v3 = |v: &Value| -> [f32; 3] { std::array::from_fn(|i| f(&v[i])) };
        let (lo, hi) = posed_bounds(&m, a, key.parse().unwrap(), &PoseOptions::default());
        assert!(close(lo, v3(&bb["min"])) && close(hi, v3(&bb["max"])), "frame {key}: {lo} {hi}");
    }
}

#[test]
fn p01ex00_bind_pose_skinning_reproduces_stored_vertices() {
    let Some(m) = p01ex00() else { return };
    let sk = m.skeleton.as_ref().unwrap();
    let skinned = skin_positions(&m, &skin_matrices(sk, &bind_globals(sk)));
    // Identity skin matrices give the stored positions (weights sum to 1 in p01ex00).
    let plain = skin_positions(&m, &[Mat4::IDENTITY; 53]);
    let worst = skinned.iter().zip(&plain).map(|(a, b)| (*a - *b).abs().max_element()).fold(0.0, f32::max);
    assert!(worst < 1e-5, "worst {worst}");
}

#[test]
fn reversed_euler_order_breaks_the_frame_0_pose() {
    let (Some(pam), Some(m)) = (test_pam(), p01ex00()) else { return };
    let a = pam.animations[0].as_ref().unwrap();
    let (good, _) = posed_bounds(&m, a, 0.0, &PoseOptions::default());
    let (bad, _) = posed_bounds(&m, a, 0.0, &PoseOptions { euler: EulerOrder::Zyx, ..Default::default() });
    assert!(bad.y - good.y > 0.1, "reversed min y {} vs {}", bad.y, good.y);
}
