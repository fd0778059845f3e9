//! `psprender popcap` end to end on files the test writes with the library's writer: the
//! listing, draw lists as JSON, --render, PNG sequences, an APNG and a GIF whose frame counts
//! and delays are checked by decoding them, and bad input (exit code 2, offset named).

use psprender::popcap::synth::{anim, append, feature_scene, frame, image, mv, sprite};
use psprender::popcap::{Animation, Frame, Name};
use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

fn psprender() -> Command {
    Command::new(env!("CARGO_BIN_EXE_psprender"))
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("psprender-popcap-cli-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

/// The feature scene plus a 5-frame clip: label "walk" at frame 2, STOP at frame 4.
fn clip_scene() -> Animation {
    let mut a = feature_scene();
    let main = a.main_sprite.as_mut().unwrap();
    main.frames.push(Frame { label: Some(Name::new("walk")), ..Frame::default() });
    main.frames.push(Frame::default());
    main.frames.push(Frame { stop: true, ..Frame::default() });
    main.work_area = Some([0, 4]);
    a
}

fn write_pam(name: &str, a: &Animation) -> PathBuf {
    let p = tmp(name);
    std::fs::write(&p, a.to_bytes().unwrap()).unwrap();
    p
}

fn run(args: &[&str]) -> std::process::Output {
    psprender().arg("popcap").args(args).output().unwrap()
}

fn ok(args: &[&str]) -> String {
    let out = run(args);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn listing_and_draw_list_json() {
    let pam = write_pam("list.pam", &clip_scene());
    let p = pam.to_str().unwrap();
    let text = ok(&[p]);
    assert!(text.contains("PopCap PAM version 6, 30 fps"), "{text}");
    assert!(text.contains("labels: walk@2") && text.contains("stops: 4"), "{text}");
    let l: Value = serde_json::from_str(&ok(&[p, "--json"])).unwrap();
    assert_eq!(l["images"].as_array().unwrap().len(), 3);
    assert_eq!(l["main_sprite"]["frames"], 5);
    let d: Value = serde_json::from_str(&ok(&[p, "--frame", "0", "--json"])).unwrap();
    assert_eq!(d["draw_count"], 5);
    // Layer 1: image 1 by [0 1 -1 0] at (60, 10) (hand-computed in synth::feature_scene).
    let m: Vec<f64> = serde_json::from_value(d["draws"][1]["matrix"].clone()).unwrap();
    assert_eq!(m, [0.0, 1.0, -1.0, 0.0, 60.0, 10.0]);
    assert_eq!(d["draws"][4]["additive"], true);
    // Past the last frame (4) the scrub loops from the work-area start: tick 6 is frame 1.
    let d: Value = serde_json::from_str(&ok(&[p, "--frame", "6", "--json"])).unwrap();
    assert_eq!(d["frame"], 1);
    // --label gives the clip's first frame.
    let d: Value = serde_json::from_str(&ok(&[p, "--label", "WALK", "--json"])).unwrap();
    assert_eq!(d["frame"], 2);
}

#[test]
fn render_png_sequence_and_placeholder_notice() {
    let pam = write_pam("seq.pam", &clip_scene());
    let p = pam.to_str().unwrap();
    let out_png = tmp("out/still.png");
    let o = run(&[p, "--frame", "1", "--render", out_png.to_str().unwrap(), "--background", "102030"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.matches("drawn as placeholders").count(), 1, "missing images listed once: {err}");
    assert!(err.contains("0:box_24x16") && err.contains("1:bar") && err.contains("2:glow"), "{err}");
    let img = ge::display::Image::load(&out_png).unwrap();
    assert_eq!((img.width, img.height), (160, 120));
    assert_eq!(&img.rgba[..4], &[0x10, 0x20, 0x30, 255]);
    let pattern = tmp("seq/f_%04d.png");
    ok(&[p, "--frames", "1..3", "-o", pattern.to_str().unwrap(), "--threads", "1"]);
    for n in 1..=3 {
        assert!(tmp(&format!("seq/f_{n:04}.png")).exists(), "frame {n}");
    }
    assert!(!tmp("seq/f_0000.png").exists());
    // Frame 1 of the sequence equals --frame 1 --render (same background).
    let single = tmp("single.png");
    ok(&[p, "--frame", "1", "--render", single.to_str().unwrap()]);
    assert_eq!(std::fs::read(&single).unwrap(), std::fs::read(tmp("seq/f_0001.png")).unwrap());
}

#[test]
fn apng_frame_count_and_delays() {
    let pam = write_pam("apng.pam", &clip_scene());
    let out = tmp("walk.png");
    ok(&[pam.to_str().unwrap(), "--label", "walk", "-o", out.to_str().unwrap()]);
    let dec = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&out).unwrap()));
    let mut r = dec.read_info().unwrap();
    let actl = r.info().animation_control.expect("animated PNG");
    // Clip walk = frames 2..=4 (label to STOP) at the main sprite's 30 fps.
    assert_eq!((actl.num_frames, actl.num_plays), (3, 0));
    let mut buf = vec![0; r.output_buffer_size().unwrap()];
    let mut frames = 0;
    while r.next_frame(&mut buf).is_ok() {
        let fc = r.info().frame_control.expect("fcTL");
        assert_eq!((fc.delay_num, fc.delay_den), (1, 30));
        frames += 1;
    }
    assert_eq!(frames, 3);
    // --frames needs a per-frame pattern.
    let o = run(&[pam.to_str().unwrap(), "--frames", "0..4", "-o", tmp("range.apng").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("%d"));
}

#[test]
fn gif_frame_count_and_delays() {
    // 24 fps: 100/24 = 4.17 hundredths, accumulated: 4, 4, 5 (total 13 = 3 frames at 24 fps).
    let mut a = clip_scene();
    a.main_sprite.as_mut().unwrap().frame_rate = Some(24 << 16);
    let pam = write_pam("gif.pam", &a);
    let out = tmp("walk.gif");
    ok(&[pam.to_str().unwrap(), "--label", "walk", "-o", out.to_str().unwrap()]);
    let mut opts = gif::DecodeOptions::new();
    opts.set_color_output(gif::ColorOutput::RGBA);
    let mut d = opts.read_info(std::fs::File::open(&out).unwrap()).unwrap();
    let mut delays = Vec::new();
    while let Some(f) = d.read_next_frame().unwrap() {
        delays.push(f.delay);
    }
    assert_eq!(delays, [4, 4, 5]);
}

#[test]
fn bad_input_exit_code_and_offset() {
    let good = clip_scene().to_bytes().unwrap();
    let cut = tmp("cut.pam");
    std::fs::write(&cut, &good[..40]).unwrap();
    let o = run(&[cut.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("cut.pam") && err.contains("truncated at offset"), "{err}");
    // A lying sprite reference: image resource past the list.
    let bad = anim(
        6,
        vec![image("a", 1, 1, 6)],
        vec![],
        sprite(6, "m", vec![frame(vec![append(0, 3, false)], vec![mv(0, 0.0, 0.0)])]),
    );
    let p = write_pam("bad.pam", &bad);
    let o = run(&[p.to_str().unwrap(), "--frame", "0"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("image 3, but there are 1"));
    // Frame out of range, unknown label, output into a file-as-folder (checked before work).
    let pam = write_pam("ok.pam", &clip_scene());
    let o = run(&[pam.to_str().unwrap(), "--frame", "2000000"]);
    assert_eq!(o.status.code(), Some(2));
    let plain = tmp("plain");
    std::fs::write(&plain, b"a file").unwrap();
    let o = run(&[pam.to_str().unwrap(), "--frame", "0", "--render", plain.join("x.png").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("is a file, not a folder"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let o = run(&[pam.to_str().unwrap(), "--label", "nope"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("labels: walk"));
}

#[test]
fn sequences_same_bytes_for_any_thread_count() {
    let pam = write_pam("threads.pam", &clip_scene());
    let p = pam.to_str().unwrap();
    for t in ["1", "2", "3"] {
        let pattern = tmp(&format!("t{t}/f_%02d.png"));
        ok(&[p, "--frames", "0..4", "-o", pattern.to_str().unwrap(), "--threads", t]);
        ok(&[p, "--label", "walk", "-o", tmp(&format!("t{t}/walk.gif")).to_str().unwrap(), "--threads", t]);
    }
    for f in ["f_00.png", "f_01.png", "f_04.png", "walk.gif"] {
        let one = std::fs::read(tmp(&format!("t1/{f}"))).unwrap();
        for t in ["2", "3"] {
            assert!(one == std::fs::read(tmp(&format!("t{t}/{f}"))).unwrap(), "{f}: 1 vs {t} threads");
        }
    }
}

#[test]
fn size_and_scale_set_the_canvas() {
    let pam = write_pam("size.pam", &clip_scene());
    let p = pam.to_str().unwrap();
    let render = |name: &str, extra: &[&str]| {
        let out = tmp(name);
        let args: Vec<&str> =
            [p, "--frame", "1", "--render", out.to_str().unwrap()].into_iter().chain(extra.iter().copied()).collect();
        ok(&args);
        ge::display::Image::load(&out).unwrap()
    };
    let base = render("size-base.png", &[]);
    assert_eq!((base.width, base.height), (160, 120), "the PAM's declared size");
    // A larger canvas: the same picture at the same place, transparent beyond it.
    let big = render("size-big.png", &["--size", "200x150"]);
    assert_eq!((big.width, big.height), (200, 150));
    for y in 0..150 {
        for x in 0..200 {
            let want = if x < 160 && y < 120 { base.get(x, y) } else { [0, 0, 0, 0] };
            assert_eq!(big.get(x, y), want, "({x}, {y})");
        }
    }
    // A smaller one crops it; upper-case X is accepted.
    let small = render("size-small.png", &["--size", "100X50"]);
    assert_eq!(small, base.crop(100, 50));
    // --scale without --size scales the declared size (rounded up); --size wins over it.
    let scaled = render("size-scaled.png", &["--scale", "1.5"]);
    assert_eq!((scaled.width, scaled.height), (240, 180));
    assert_ne!(scaled.crop(160, 120), base, "the picture is scaled too");
    let both = render("size-both.png", &["--scale", "2", "--size", "64x32"]);
    assert_eq!((both.width, both.height), (64, 32));
    // Bad sizes: usage errors naming the rule.
    for (bad, says) in [("0x10", "1..=8192"), ("10x9000", "1..=8192"), ("10", "is not WxH"), ("ax3", "whole number")] {
        let o = run(&[p, "--frame", "0", "--render", tmp("never.png").to_str().unwrap(), "--size", bad]);
        assert_eq!(o.status.code(), Some(2), "--size {bad}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(says) && err.contains("--size"), "--size {bad}: {err}");
    }
    assert!(!tmp("never.png").exists());
}
