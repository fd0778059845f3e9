//! `psprender kh2` end to end on files the test writes with the library's writers: an ANB, a
//! player MSET with dummy slots, skeletons as MDLX and JSON; listing, evaluation, renders and
//! frame sequences, bad input.

use psprender::kh2::bar::{Bar, BarEntry};
use psprender::kh2::eval::Evaluator;
use psprender::kh2::{synth, Skeleton};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn psprender() -> Command {
    Command::new(env!("CARGO_BIN_EXE_psprender"))
}

fn dir(test: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("psprender-kh2-cli-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn write(d: &Path, name: &str, bytes: &[u8]) -> String {
    let p = d.join(name);
    std::fs::write(&p, bytes).unwrap();
    p.display().to_string()
}

fn anb() -> Vec<u8> {
    synth::anb(&synth::biped_walk(), &synth::sample_triggers()).unwrap()
}

fn run_json(args: &[&str]) -> Value {
    let out = psprender().args(args).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn lists_an_anb_and_a_player_mset() {
    let d = dir("list");
    let a = write(&d, "walk.anb", &anb());
    let j = run_json(&["kh2", &a, "--json"]);
    assert_eq!(j["container"], "ANB (BAR)");
    let e = &j["bar"]["entries"];
    assert_eq!((e[0]["kind"].as_u64(), e[1]["kind"].as_u64()), (Some(9), Some(16)));
    assert_eq!(e[1]["triggers"]["frame"][1]["params"], serde_json::json!([1, 2]));
    let counts: std::collections::BTreeMap<String, u64> = j["motions"][0]["counts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c[0].as_str().unwrap().to_string(), c[1].as_u64().unwrap()))
        .collect();
    let m = synth::biped_walk();
    assert_eq!(counts["joints"], 13);
    assert_eq!(counts["fcurves_forward"], m.fcurves_forward.len() as u64);
    assert_eq!(counts["keys"], m.keys.len() as u64);
    // Player MSET: slots 0-3 dummies, 4-7 = motion 1 in the four states (one ANB, duplicated).
    let mut entries: Vec<BarEntry> = (0..4).map(|_| BarEntry::new(17, "DUMM", vec![])).collect();
    entries.push(BarEntry::new(17, "A010", anb()));
    for _ in 0..3 {
        entries.push(BarEntry { duplicate: 1, ..BarEntry::new(17, "A010", anb()) });
    }
    let mset = Bar { reserved: 0, motionset_type: 1, entries }.to_bytes().unwrap();
    let p = write(&d, "p.mset", &mset);
    let j = run_json(&["kh2", &p, "--json"]);
    assert_eq!(j["container"], "MSET (BAR of ANBs)");
    assert_eq!(j["bar"]["entries"][6]["player_slot"], serde_json::json!([1, 2]));
    assert_eq!(j["bar"]["entries"][6]["offset"], j["bar"]["entries"][4]["offset"], "duplicates share data");
    assert_eq!(j["motions"].as_array().unwrap().len(), 4);
    assert_eq!(j["motions"][0]["index"], 4);
    let text = psprender().args(["kh2", &p]).output().unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains("(motion 1, state 3)"), "{text}");
}

#[test]
fn evaluates_with_and_without_a_skeleton() {
    let d = dir("eval");
    let a = write(&d, "walk.anb", &anb());
    let sk = Skeleton::biped();
    let js = write(&d, "biped.json", serde_json::to_string(&sk).unwrap().as_bytes());
    let mdlx = write(&d, "biped.mdlx", &sk.to_mdlx().unwrap());
    let bare = run_json(&["kh2", &a, "--time", "37.5", "--json"]);
    let joints = bare["evaluation"]["joints"].as_array().unwrap();
    assert_eq!(joints.len(), 13);
    assert!(joints[0].get("global").is_none(), "no matrices without a skeleton");
    // Initial pose: joint 3 rz = 0.3 (no curve overrides it).
    assert_eq!(joints[3]["channels"][5].as_f64().unwrap() as f32, 0.3);
    let m = synth::biped_walk();
    let ev = Evaluator::new(&m, Some(&sk)).unwrap();
    let want = ev.pose(37.5);
    for skel in [&js, &mdlx] {
        let j = run_json(&["kh2", &a, "--time", "37.5", "--skeleton", skel, "--json"]);
        for (k, jj) in j["evaluation"]["joints"].as_array().unwrap().iter().enumerate() {
            let g: Vec<f32> = jj["global"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap() as f32).collect();
            assert_eq!(g, want.globals.as_ref().unwrap()[k].to_cols_array(), "joint {k}");
            let c: Vec<f32> = jj["channels"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap() as f32).collect();
            assert_eq!(c, want.channels[k]);
        }
    }
}

fn png(path: &Path) -> (u32, u32, Vec<u8>) {
    let dec = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut r = dec.read_info().unwrap();
    let mut buf = vec![0; r.output_buffer_size().unwrap()];
    let info = r.next_frame(&mut buf).unwrap();
    (info.width, info.height, buf)
}

#[test]
fn renders_a_pose_and_a_sequence() {
    let d = dir("render");
    let a = write(&d, "walk.anb", &anb());
    let sk = write(&d, "biped.mdlx", &Skeleton::biped().to_mdlx().unwrap());
    let out = d.join("new/sub/pose.png");
    let o = psprender().args(["kh2", &a, "--skeleton", &sk, "--time", "30", "--render"]).arg(&out).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (w, h, px) = png(&out);
    assert_eq!((w, h), (480, 272));
    // --render without a path writes to -o; the same pose gives the same bytes.
    let again = d.join("again.png");
    let o = psprender()
        .args(["kh2", &a, "--skeleton", &sk, "--time", "30", "--render", "-o"])
        .arg(&again)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(std::fs::read(&again).unwrap(), std::fs::read(&out).unwrap());
    let bg = [0x28, 0x2c, 0x34];
    assert!(px.chunks(px.len() / (480 * 272)).any(|p| p[..3] != bg), "something drawn");
    // Sequences: 1 and 2 threads give the same bytes; consecutive frames differ.
    let mut runs = Vec::new();
    for threads in ["1", "2"] {
        let pattern = d.join(format!("t{threads}/f_%04d.png"));
        let o = psprender()
            .args(["kh2", &a, "--skeleton", &sk, "--frames", "10..13", "--threads", threads, "-o"])
            .arg(&pattern)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let files: Vec<Vec<u8>> =
            (10..=13).map(|n| std::fs::read(d.join(format!("t{threads}/f_{n:04}.png"))).unwrap()).collect();
        runs.push(files);
    }
    assert_eq!(runs[0], runs[1]);
    for w in runs[0].windows(2) {
        assert_ne!(w[0], w[1], "frames differ");
    }
    let leftovers: Vec<_> = std::fs::read_dir(d.join("t1")).unwrap().filter_map(Result::ok).collect();
    assert_eq!(leftovers.len(), 4, "no temporary files left behind");
}

#[test]
fn bad_input_exits_2_naming_file_and_offset() {
    let d = dir("bad");
    let full = anb();
    let a = write(&d, "cut.anb", &full[..full.len() - 7]);
    let o = psprender().args(["kh2", &a]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("cut.anb") && err.contains("offset 0x"), "{err}");
    let m = write(&d, "m.motion", &synth::biped_walk().to_bytes().unwrap()[..300]);
    let o = psprender().args(["kh2", &m]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("offset 0x"));
    // A skeleton whose bone count does not match, a cyclic JSON skeleton, a bad pattern.
    let good = write(&d, "walk.anb", &full);
    let small = write(&d, "chain.json", serde_json::to_string(&Skeleton::chain(3, 1.0)).unwrap().as_bytes());
    let o = psprender().args(["kh2", &good, "--time", "1", "--skeleton", &small]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("bones"));
    let cyc = write(&d, "cyc.json", br#"{"bones": [{"parent": 1}, {"parent": 0}]}"#);
    let o = psprender().args(["kh2", &good, "--skeleton", &cyc]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("cycle"));
    let sk = write(&d, "biped.json", serde_json::to_string(&Skeleton::biped()).unwrap().as_bytes());
    let o = psprender().args(["kh2", &good, "--skeleton", &sk, "--frames", "0..2", "-o", "x.png"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    let o = psprender().args(["kh2", &good, "--motion", "5", "--time", "0"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn constraints_only_when_asked() {
    use psprender::kh2::motion::interp::Constraint;
    let d = dir("cons");
    let mut m = synth::biped_walk();
    // Head (joint 2) pinned to the IK helper (joint 12).
    m.constraints.push(Constraint {
        kind: 0,
        temp_active: 1,
        constrained: 2,
        source: 12,
        limiter: -1,
        activation_count: 0,
        activation_start: 0,
    });
    let a = write(&d, "c.anb", &synth::anb(&m, &synth::sample_triggers()).unwrap());
    let sk = Skeleton::biped();
    let js = write(&d, "biped.json", serde_json::to_string(&sk).unwrap().as_bytes());
    let global = |j: &Value, k: usize| -> Vec<f32> {
        j["evaluation"]["joints"][k]["global"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap() as f32).collect()
    };
    let plain = run_json(&["kh2", &a, "--time", "20", "--skeleton", &js, "--json"]);
    let cons = run_json(&["kh2", &a, "--time", "20", "--skeleton", &js, "--json", "--constraints"]);
    let ev = Evaluator::new(&m, Some(&sk)).unwrap();
    let pose = ev.pose(20.0);
    assert_eq!(global(&plain, 2), pose.globals.as_ref().unwrap()[2].to_cols_array(), "plain FK by default");
    assert!(plain["evaluation"].get("constraints").is_none());
    let (g, _) = psprender::kh2::constraint::apply(&ev, &pose).unwrap();
    assert_eq!(global(&cons, 2)[12..15], g[12].to_cols_array()[12..15], "head on the helper");
    assert_eq!(cons["evaluation"]["constraints"]["applied"], serde_json::json!([0]));
    let o = psprender().args(["kh2", &a, "--constraints"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2), "--constraints needs --skeleton");
}
