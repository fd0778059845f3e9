//! The §2.3 acceptance checks of animation-formats.md on the public samples in
//! `../shared/samples/kh2-anb/`, and a field-by-field comparison with the independently
//! derived `*.decoded.json` (a separate Python decoder). Skips with a message when absent.

use super::bar::{payload, Anb, Bar, Payload};
use super::eval::{curve_value, Evaluator};
use super::motion::Motion;
use super::trigger::Triggers;
use super::*;
use serde_json::Value;

fn read(name: &str) -> Option<Vec<u8>> {
    crate::shared::sample(&format!("kh2-anb/{name}")).map(|p| std::fs::read(p).expect("sample readable"))
}

fn json(name: &str) -> Option<Value> {
    read(name).map(|b| serde_json::from_slice(&b).expect("decoded JSON parses"))
}

fn f(v: &Value) -> f32 {
    v.as_f64().expect("number") as f32
}
fn i(v: &Value) -> i64 {
    v.as_i64().expect("integer")
}
fn fs(v: &Value) -> Vec<f32> {
    v.as_array().expect("array").iter().map(f).collect()
}

/// Header word `rel` (offset from 0x90) of a written motion.
fn word(bytes: &[u8], rel: usize) -> i64 {
    i64::from(Rd::new(bytes).i32(motion::BASE + rel, "").unwrap())
}

#[test]
fn bar_test_has_seven_vibration_entries_and_rewrites() {
    let Some(b) = read("bar_test.bar") else { return };
    let bar = Bar::parse(&b).unwrap();
    let names: Vec<String> = bar.entries.iter().map(|e| e.name_str()).collect();
    assert_eq!(names, ["s_da", "m_da", "l_da", "thru", "tack", "blow", "game"]);
    assert!(bar.entries.iter().all(|e| e.kind == 47 && e.duplicate == 0));
    assert_eq!(bar.to_bytes().unwrap(), b, "byte-identical rewrite");
}

#[test]
fn anb_entries_triggers_and_rewrite() {
    let (Some(b), Some(j)) = (read("test-0000.anb"), json("test-0000.anb.decoded.json")) else { return };
    let (bar, places) = Bar::parse_placed(&b).unwrap();
    assert_eq!(bar.motionset_type, 0);
    let got: Vec<(u16, String, u32, u32)> =
        bar.entries.iter().zip(&places).map(|(e, p)| (e.kind, e.name_str(), p.offset, p.size)).collect();
    assert_eq!(got, [(9, "OpKH".to_string(), 48, 480), (16, "OpKH".to_string(), 528, 22)]);
    for (e, je) in places.iter().zip(j["bar"]["entries"].as_array().unwrap()) {
        assert_eq!((i64::from(e.offset), i64::from(e.size)), (i(&je["off"]), i(&je["size"])));
    }
    let anb = Anb::from_bar(&bar, &places, 0).unwrap();
    let t = anb.triggers.clone().unwrap();
    assert_eq!(t.range, [trigger::RangeTrigger { start: 0, end: -1, id: 0, params: vec![] }]);
    assert_eq!(
        t.frame,
        [
            trigger::FrameTrigger { frame: 56, id: 19, params: vec![9] },
            trigger::FrameTrigger { frame: 112, id: 19, params: vec![8] }
        ]
    );
    assert_eq!(t.to_bytes().unwrap(), bar.entries[1].data);
    let Some(Motion::Interpolated(m)) = &anb.motion else { panic!("interpolated motion expected") };
    compare_interpolated(m, &bar.entries[0].data, &j);
    assert_eq!(Triggers::parse(&bar.entries[1].data).unwrap(), t);
    assert_eq!(bar.to_bytes().unwrap(), b, "byte-identical rewrite");
    assert_eq!(m.to_bytes().unwrap(), bar.entries[0].data);
}

#[test]
fn raw_motion_checks_and_rewrite() {
    let (Some(b), Some(j)) = (read("raw.motion"), json("raw.motion.decoded.json")) else { return };
    let Motion::Raw(m) = Motion::parse(&b).unwrap() else { panic!("raw motion expected") };
    assert_eq!((m.common.subtype, m.bone_count, m.frames.len()), (1, 3, 4));
    let fd = m.frame_data;
    assert_eq!([fd.start, fd.end, fd.fps, fd.ret], [2.0, 4.0, 30.0, 0.0]);
    let t0 = &m.frames[0][0];
    assert_eq!(t0[..12], [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0]);
    // The doc's decimals (7 significant digits).
    let near = |a: &[f32], b: [f32; 3]| a.iter().zip(b).all(|(x, y)| (x - y).abs() <= 1e-6 * y.abs().max(1.0));
    assert!(near(&t0[12..15], [0.09932025, 77.752594, -9.796234]), "{:?}", &t0[12..15]);
    assert!(near(&m.frames[1][0][12..15], [0.0895206, 78.63346, -11.268762]), "{:?}", &m.frames[1][0][12..15]);
    assert_eq!(m.position_matrices.len(), 4);
    assert!(m.position_matrices.iter().all(|p| *p == glam::Mat4::IDENTITY.to_cols_array()));
    // JSON field by field.
    let h = &j["header"];
    assert_eq!(i(&h["type"]), 1);
    assert_eq!(i(&h["subtype"]), i64::from(m.common.subtype));
    assert_eq!(i(&h["size"]), b.len() as i64);
    assert_eq!(i(&h["bones"]), i64::from(m.bone_count));
    assert_eq!(i(&h["frame_count"]), i64::from(m.frame_count));
    assert_eq!(i(&h["total_frames"]), m.frames.len() as i64);
    assert_eq!(i(&h["extra_size"]), m.common.extra.len() as i64);
    assert_eq!(fs(&h["bbox"]), m.bbox);
    assert_eq!(fs(&h["frame_start_end_fps_return"]), [fd.start, fd.end, fd.fps, fd.ret]);
    let mats: Vec<Vec<f32>> = m.frames.iter().flatten().map(|x| x.to_vec()).collect();
    let jm: Vec<Vec<f32>> = j["animation_matrices_frame_major"].as_array().unwrap().iter().map(fs).collect();
    assert_eq!(mats, jm);
    let jp: Vec<Vec<f32>> = j["position_matrices"].as_array().unwrap().iter().map(fs).collect();
    assert_eq!(m.position_matrices.iter().map(|x| x.to_vec()).collect::<Vec<_>>(), jp);
    let w = m.to_bytes().unwrap();
    assert_eq!(w, b, "byte-identical rewrite");
    for (key, rel) in [("extra_off", 8), ("anim_mtx_off", 0x28), ("pos_mtx_off", 0x2C)] {
        assert_eq!(i(&h[key]), word(&w, rel), "{key}");
    }
    // Playback returns the stored matrices exactly at integer frames.
    for (f, frame) in m.frames.iter().enumerate() {
        let got: Vec<[f32; 16]> = m.matrices_at(f as f32).iter().map(|x| x.to_cols_array()).collect();
        assert_eq!(&got, frame);
    }
}

/// Every field of the decoded JSON against our parse (and the writer's layout).
fn compare_interpolated(m: &InterpolatedMotion, bytes: &[u8], j: &Value) {
    let h = &j["header"];
    assert_eq!(i(&h["type"]), 0);
    assert_eq!(i(&h["subtype"]), i64::from(m.common.subtype));
    assert_eq!(i(&h["extra_size"]), m.common.extra.len() as i64);
    assert_eq!(i(&h["size"]), bytes.len() as i64);
    assert_eq!(h["zeros90"], Value::Bool(m.common.reserved.iter().all(|&b| b == 0)));
    assert_eq!(i(&h["bones"]), i64::from(m.bone_count));
    assert_eq!(i(&h["total_bones"]), m.total_joints() as i64);
    assert_eq!(i(&h["frame_count"]), i64::from(m.frame_count));
    let counts = [
        ("keytime_count", m.key_times.len()),
        ("initpose_count", m.initial_poses.len()),
        ("fc_fwd_count", m.fcurves_forward.len()),
        ("fc_inv_count", m.fcurves_inverse.len()),
        ("cons_count", m.constraints.len()),
        ("expr_count", m.expressions.len()),
        ("exprnode_count", m.expression_nodes.len()),
        ("key_count", m.keys.len()),
        ("keyvalue_count", m.key_values.len()),
        ("tangent_count", m.tangents.len()),
        ("ikhelper_count", m.ik_helpers.len()),
    ];
    for (key, n) in counts {
        assert_eq!(i(&h[key]), n as i64, "{key}");
    }
    assert_eq!(fs(&h["bbox"]), m.bbox);
    let fd = m.frame_data;
    assert_eq!(fs(&h["frame_start_end_fps_return"]), [fd.start, fd.end, fd.fps, fd.ret]);
    // Offsets: the JSON's (from the file) against the layout our writer derives.
    let w = m.to_bytes().unwrap();
    let offsets = [
        ("extra_off", 0x08),
        ("ik_off", 0x18),
        ("joint_off", 0x1C),
        ("initpose_off", 0x24),
        ("root_off", 0x2C),
        ("fc_fwd_off", 0x30),
        ("fc_inv_off", 0x38),
        ("key_off", 0x40),
        ("keytime_off", 0x44),
        ("keyvalue_off", 0x48),
        ("tangent_off", 0x4C),
        ("cons_off", 0x50),
        ("consact_off", 0x58),
        ("limiter_off", 0x5C),
        ("expr_off", 0x60),
        ("exprnode_off", 0x68),
        ("exteff_off", 0xA0),
    ];
    for (key, rel) in offsets {
        assert_eq!(i(&h[key]), word(&w, rel), "{key}");
    }
    let poses = j["initial_poses"].as_array().unwrap();
    assert_eq!(poses.len(), m.initial_poses.len());
    for (p, jp) in m.initial_poses.iter().zip(poses) {
        assert_eq!(
            (i64::from(p.joint), i64::from(p.channel), p.value),
            (i(&jp["joint"]), i(&jp["channel"]), f(&jp["value"]))
        );
    }
    for (curves, key) in [(&m.fcurves_forward, "fcurves_forward"), (&m.fcurves_inverse, "fcurves_inverse")] {
        let jc = j[key].as_array().unwrap();
        assert_eq!(jc.len(), curves.len());
        for (c, jc) in curves.iter().zip(jc) {
            let got: [i64; 6] =
                [c.joint.into(), c.channel.into(), c.pre.into(), c.post.into(), c.key_start.into(), c.key_count.into()];
            let want = ["joint", "channel", "pre", "post", "key_start", "key_count"].map(|k| i(&jc[k]));
            assert_eq!(got, want);
            let keys = &m.keys[c.key_start as usize..][..c.key_count as usize];
            for (k, jk) in keys.iter().zip(jc["keys"].as_array().unwrap()) {
                let raw: Vec<i64> = jk["raw"].as_array().unwrap().iter().map(i).collect();
                let want: [i64; 4] = [k.type_time.into(), k.value.into(), k.in_tangent.into(), k.out_tangent.into()];
                assert_eq!(raw, want);
                assert_eq!(i64::from(k.interp()), i(&jk["interp"]));
                assert_eq!(k.time_index() as i64, i(&jk["time_index"]));
                assert_eq!(m.key_times[k.time_index()], f(&jk["time"]));
                assert_eq!(m.key_values[k.value as usize], f(&jk["value"]));
                if k.interp() == 2 {
                    assert_eq!(m.tangents[k.in_tangent as usize], f(&jk["left_tangent"]));
                    assert_eq!(m.tangents[k.out_tangent as usize], f(&jk["right_tangent"]));
                }
            }
        }
    }
    let jc = j["constraints"].as_array().unwrap();
    assert_eq!(jc.len(), m.constraints.len());
    for (c, jc) in m.constraints.iter().zip(jc) {
        let got: [i64; 5] =
            [c.kind.into(), c.temp_active.into(), c.constrained.into(), c.source.into(), c.limiter.into()];
        let want = ["type", "temp_active", "constrained_joint", "source_joint", "limiter"].map(|k| i(&jc[k]));
        assert_eq!(got, want);
        let acts: [i64; 2] = [c.activation_count.into(), c.activation_start.into()];
        assert_eq!(acts, ["activation_count", "activation_start"].map(|k| i(&jc[k])));
    }
    let jh = j["ik_helpers"].as_array().unwrap();
    assert_eq!(jh.len(), m.ik_helpers.len());
    for (k, jk) in m.ik_helpers.iter().zip(jh) {
        let got: [i64; 6] =
            [k.index.into(), k.sibling.into(), k.parent.into(), k.child.into(), k.reserved.into(), k.flags.into()];
        assert_eq!(got, ["index", "sibling", "parent", "child", "reserved", "flags"].map(|x| i(&jk[x])));
        assert_eq!(
            (fs(&jk["scale"]), fs(&jk["rotate"]), fs(&jk["translate"])),
            (k.scale.to_vec(), k.rotation.to_vec(), k.translation.to_vec())
        );
    }
    let jj = j["joints"].as_array().unwrap();
    let joints: Vec<[i64; 2]> = m.joints.iter().map(|x| [x.joint.into(), x.flags.into()]).collect();
    assert_eq!(joints, jj.iter().map(|x| [i(&x["joint"]), i(&x["flags"])]).collect::<Vec<_>>());
    let r = &m.root;
    let jr = j["root_position"].as_array().unwrap();
    let mut want: Vec<f32> = r.scale.to_vec();
    want.push(r.not_unit as f32);
    want.extend(r.rotation.iter().chain(&r.translation));
    assert_eq!(jr[..12].iter().map(f).collect::<Vec<_>>(), want);
    assert_eq!(
        jr[12..].iter().map(i).collect::<Vec<_>>(),
        r.fcurve_ids.iter().map(|&x| i64::from(x)).collect::<Vec<_>>()
    );
    assert_eq!(w, bytes, "byte-identical rewrite");
}

#[test]
fn interpolated_motion_checks() {
    let (Some(b), Some(j)) = (read("interpolated.motion"), json("interpolated.motion.decoded.json")) else { return };
    let Motion::Interpolated(m) = Motion::parse(&b).unwrap() else { panic!("interpolated expected") };
    assert_eq!((m.bone_count, m.total_joints(), m.frame_count), (228, 239, 300));
    let fd = m.frame_data;
    assert_eq!([fd.start, fd.end, fd.fps, fd.ret], [0.0, 150.0, 30.0, 0.0]);
    assert_eq!(
        [m.initial_poses.len(), m.fcurves_forward.len(), m.fcurves_inverse.len(), m.keys.len()],
        [475, 194, 26, 1983]
    );
    assert_eq!([m.key_times.len(), m.key_values.len(), m.tangents.len()], [143, 1820, 2119]);
    assert_eq!(m.key_times.last(), Some(&300.0));
    assert_eq!(m.constraints.iter().map(|c| c.kind).collect::<Vec<_>>(), [3, 0, 3, 0, 2, 2]);
    assert_eq!(m.constraints.iter().map(|c| c.constrained).collect::<Vec<_>>(), [10, 13, 39, 42, 85, 177]);
    assert_eq!(m.ik_helpers.iter().map(|h| h.index).collect::<Vec<_>>(), (228..239).collect::<Vec<_>>());
    assert_eq!(m.ik_helpers[0].parent, -1, "helper 228 is the root");
    let flag = |j: i16| m.joints.iter().find(|x| x.joint == j).map(|x| x.flags);
    for (j, fl) in [(11, 0x02), (40, 0x02), (12, 0x20), (41, 0x20), (13, 0x0C), (42, 0x0C)] {
        assert_eq!(flag(j), Some(fl), "joint {j}");
    }
    assert!(m.joints.iter().filter(|x| x.flags != 0).count() == 6);
    assert!(m.keys.iter().all(|k| k.interp() == 2), "all keys Hermite");
    compare_interpolated(&m, &b, &j);
}

#[test]
fn interpolated_curves_hit_keys_and_pin_the_tangent_convention() {
    let Some(b) = read("interpolated.motion") else { return };
    let Motion::Interpolated(m) = Motion::parse(&b).unwrap() else { panic!("interpolated expected") };
    let mut checked = 0;
    let mut not_looping = Vec::new();
    for (n, c) in m.fcurves_forward.iter().chain(&m.fcurves_inverse).enumerate() {
        let keys = &m.keys[c.key_start as usize..][..c.key_count as usize];
        for k in keys {
            let t = m.key_times[k.time_index()];
            assert_eq!(curve_value(&m, c, t), Some(m.key_values[k.value as usize]), "key value exact at t = {t}");
            checked += 1;
        }
        let (first, last) = (keys[0], keys[keys.len() - 1]);
        let (a, b) = (m.key_values[first.value as usize], m.key_values[last.value as usize]);
        if (a - b).abs() > 1e-5 * a.abs().max(1.0) {
            not_looping.push((n, c.joint, c.channel, a, b));
        }
    }
    // Every key is used; some keys are shared by two curves (2 020 key references).
    let used: std::collections::BTreeSet<usize> = m
        .fcurves_forward
        .iter()
        .chain(&m.fcurves_inverse)
        .flat_map(|c| c.key_start as usize..c.key_start as usize + c.key_count as usize)
        .collect();
    assert_eq!((checked, used.len()), (2020, 1983));
    // The doc says first and last values are equal; 219 of 220 curves agree (to float noise),
    // forward curve 167 (joint 205, scale Z) ends at 0.8733013 after starting at 0.884.
    assert_eq!(not_looping, [(167, 205, 2, 0.884, 0.8733013)]);
    let c0 = &m.fcurves_forward[0];
    assert_eq!((c0.joint, c0.channel), (0, 3));
    let v = curve_value(&m, c0, 60.0).unwrap();
    assert!((v - 0.499029).abs() < 1e-5, "scaled tangents: {v}");
    assert!((v - 0.474373).abs() > 1e-3, "the unscaled reading must not match: {v}");
    // Posing without a skeleton still gives every joint's channels.
    let ev = Evaluator::new(&m, None).unwrap();
    let pose = ev.pose(60.0);
    assert_eq!(pose.channels.len(), 239);
    assert_eq!(pose.channels[0][3], v);
    assert!(pose.globals.is_none());
}

#[test]
fn sample_payloads_decode_through_the_bar() {
    let Some(b) = read("test-0000.anb") else { return };
    let (bar, places) = Bar::parse_placed(&b).unwrap();
    assert!(matches!(payload(&bar.entries[0], places[0].offset as usize).unwrap(), Payload::Motion(_)));
    assert!(matches!(payload(&bar.entries[1], places[1].offset as usize).unwrap(), Payload::Triggers(_)));
}

/// OpenKh's `5_Nodes.mdlx` (see the module docs of `kh2::skeleton` for how to obtain it), when
/// present at `$PSPRENDER_KH2_MDLX` or `samples/kh2-mdlx/5_Nodes.mdlx` in the shared directory.
#[test]
fn five_nodes_mdlx_when_present() {
    let path = std::env::var_os("PSPRENDER_KH2_MDLX")
        .map(std::path::PathBuf::from)
        .or_else(|| crate::shared::dir().map(|d| d.join("samples/kh2-mdlx/5_Nodes.mdlx")))
        .filter(|p| p.exists());
    let Some(path) = path else {
        eprintln!("skipping: 5_Nodes.mdlx not found ($PSPRENDER_KH2_MDLX or samples/kh2-mdlx/)");
        return;
    };
    let b = std::fs::read(path).unwrap();
    let sk = Skeleton::from_mdlx(&b).unwrap();
    assert_eq!(sk.bones.len(), 5);
    assert_eq!(sk.bones.iter().map(|b| b.parent).collect::<Vec<_>>(), [-1, 0, 1, 2, 3]);
    // A chain along +Y, 100 units per bone: bone 4 sits at y = 400 in the bind pose.
    let m = tests::still_motion(5);
    let ev = Evaluator::new(&m, Some(&sk)).unwrap();
    let g = ev.pose(0.0).globals.unwrap();
    assert_eq!(g[4].w_axis.truncate(), glam::Vec3::new(0.0, 400.0, 0.0));
    assert_eq!(sk.write_into_mdlx(&b).unwrap(), b, "bone table rewrite is byte-identical");
}
