//! `psprender pam` end to end on a PAM the test writes with the library's writer.

use psprender::pam::{Animation, BoneChannels, Channel, ChannelKind, Key, Keys, Pam};
use serde_json::Value;
use std::process::Command;

fn psprender() -> Command {
    Command::new(env!("CARGO_BIN_EXE_psprender"))
}

fn tmp(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("psprender-pam-cli-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

/// Slot 0 empty ("gone"), slot 1 "walk": 4 frames, loop 3 -> 1, bone 0 with TX sparse over
/// [0, 4] (frame 0 q 0, frame 3 q 65535) and RZ constant 0; bone 1 with a scale-Y full channel
/// over [1, 3] (q 0, 65535, 0, 65535).
fn sample_pam() -> Pam {
    let mut b0 = BoneChannels::default();
    b0.channels[ChannelKind::TranslationX as usize] = Some(Channel {
        max: 4.0,
        min: 0.0,
        keys: Keys::Sparse(vec![Key { frame: 0, value: 0 }, Key { frame: 3, value: 65535 }]),
    });
    b0.channels[ChannelKind::RotationZ as usize] = Some(Channel { max: 0.0, min: 0.0, keys: Keys::Constant });
    let mut b1 = BoneChannels::default();
    b1.channels[ChannelKind::ScaleY as usize] =
        Some(Channel { max: 3.0, min: 1.0, keys: Keys::Full(vec![0, 65535, 0, 65535]) });
    let mut name = [0u8; 12];
    name[..4].copy_from_slice(b"walk");
    let walk = Animation {
        name,
        flag: 1,
        fps: 30,
        interpolation_frames: 2,
        loop_from: 3,
        pad: 0,
        frame_count: 4,
        loop_to: 1,
        bones: vec![b0, b1],
    };
    let mut gone = [0u8; 12];
    gone[..4].copy_from_slice(b"gone");
    Pam {
        version: 1,
        reserved: [0; 6],
        animations: vec![None, Some(walk)],
        empty_slot_names: [(0, gone)].into_iter().collect(),
    }
}

fn run_json(args: &[&str]) -> Value {
    let out = psprender().args(args).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn pam_json_lists_and_evaluates() {
    let path = tmp("walk.pam");
    std::fs::write(&path, sample_pam().to_bytes().unwrap()).unwrap();
    let p = path.to_str().unwrap();

    let all = run_json(&["pam", p, "--json"]);
    assert_eq!(all["slots"], 2);
    let slots = all["animations"].as_array().unwrap();
    assert_eq!((slots[0]["name"].as_str(), slots[0]["empty"].as_bool()), (Some("gone"), Some(true)));
    let w = &slots[1];
    assert_eq!(w["name"], "walk");
    assert_eq!((w["fps"].as_u64(), w["frame_count"].as_u64(), w["bones"].as_u64()), (Some(30), Some(4), Some(2)));
    assert_eq!((w["loop_from"].as_u64(), w["loop_to"].as_u64()), (Some(3), Some(1)));
    let c = &w["channel_counts"];
    assert_eq!(
        [&c["total"], &c["translation"], &c["rotation"], &c["scale"], &c["constant"], &c["full"], &c["sparse"]]
            .map(|v| v.as_u64().unwrap()),
        [3, 1, 1, 1, 1, 1, 1]
    );
    assert_eq!(w["bone_channels"][0]["mask"], 0x21);
    assert_eq!(w["bone_channels"][1]["channels"][0]["kind"], "sy");
    assert_eq!(w["bone_channels"][0]["channels"][0]["frames"], serde_json::json!([0, 3]));
    assert!(w.get("pose").is_none());

    // Frame 1.5: TX = 4 * 1.5 / 3 = 2; SY halfway between 3 (frame 1) and 1 (frame 2) = 2.
    let one = run_json(&["pam", p, "--anim", "walk", "--frame", "1.5", "--json"]);
    let pose = &one["animations"][1]["pose"];
    assert_eq!(pose["frame"], 1.5);
    let b0 = &pose["bones"][0];
    assert_eq!(b0["translation"], serde_json::json!([2.0, 0.0, 0.0]));
    assert_eq!(b0["local"][12], 2.0);
    assert_eq!(b0["local"][0], 1.0);
    let b1 = &pose["bones"][1];
    assert_eq!(b1["scale"], serde_json::json!([1.0, 2.0, 1.0]));
    // Local = T·R·S: the Y axis row is scaled by 2.
    assert_eq!(b1["local"][5], 2.0);
    // The empty slot is listed but never detailed.
    assert!(one["animations"][0].get("bone_channels").is_none());
}

#[test]
fn pam_text_and_errors() {
    let path = tmp("walk-text.pam");
    std::fs::write(&path, sample_pam().to_bytes().unwrap()).unwrap();
    let p = path.to_str().unwrap();
    let out = psprender().args(["pam", p, "--anim", "1", "--frame", "0"]).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("[0] \"gone\": empty slot"), "{text}");
    assert!(text.contains("[1] \"walk\": fps 30, 4 frames, loop 3 -> 1"), "{text}");
    assert!(text.contains("tx sparse 2 key(s) min 0.0 max 4.0 frames 0..3"), "{text}");
    assert!(text.contains("pose at frame 0.0"), "{text}");

    let out = psprender().args(["pam", p, "--anim", "run"]).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no animation \"run\""));

    let bad = tmp("truncated.pam");
    let bytes = sample_pam().to_bytes().unwrap();
    std::fs::write(&bad, &bytes[..40]).unwrap();
    let out = psprender().args(["pam", bad.to_str().unwrap()]).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("truncated.pam") && err.contains("offset 0x"), "{err}");
}
