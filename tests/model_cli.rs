//! `render`, `export-dump` and `replay` end to end on models and animations the test writes
//! itself (the PMO and PAM writers), plus bad-input handling.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn psprender(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_psprender")).args(args).output().expect("runs")
}

fn dir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The demo model and its animation written to `d`.
fn write_inputs(d: &Path) -> (PathBuf, PathBuf) {
    let pmo = d.join("demo.pmo");
    std::fs::write(&pmo, psprender::synth::demo_model().to_bytes().unwrap()).unwrap();
    let pam = d.join("sway.pam");
    std::fs::write(&pam, psprender::synth::anim::column_animation().to_bytes().unwrap()).unwrap();
    (pmo, pam)
}

fn ok(o: &Output) {
    assert!(
        o.status.success(),
        "stdout {}\nstderr {}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn render_equals_replay_of_export_dump() {
    let d = dir();
    let (pmo, pam) = write_inputs(d.path());
    for extra in [&[][..], &["--pam", s(&pam), "--frame", "20.5", "--yaw", "-40", "--format", "5551"][..]] {
        let (a, b, dump) = (d.path().join("a.png"), d.path().join("b.png"), d.path().join("s.ppdmp"));
        let mut args = vec!["render", s(&pmo), "-o", s(&a)];
        args.extend_from_slice(extra);
        ok(&psprender(&args));
        let mut args = vec!["export-dump", s(&pmo), "-o", s(&dump)];
        args.extend_from_slice(extra);
        ok(&psprender(&args));
        ok(&psprender(&["replay", s(&dump), "--screen", "-o", s(&b)]));
        assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap(), "render and replay differ for {extra:?}");
        // The dump is a v6 PPSSPP dump ending with DISPLAY.
        let parsed = ge::dump::Dump::open(&dump).unwrap();
        assert_eq!(parsed.version, 6);
        assert_eq!(parsed.records.last().unwrap().kind, ge::dump::RecordKind::Display);
    }
}

#[test]
fn options_change_the_picture() {
    let d = dir();
    let (pmo, pam) = write_inputs(d.path());
    let render = |name: &str, extra: &[&str]| -> Vec<u8> {
        let out = d.path().join(name);
        let mut args = vec!["render", s(&pmo), "-o", s(&out)];
        args.extend_from_slice(extra);
        ok(&psprender(&args));
        let img = ge::display::Image::load(&out).unwrap();
        assert_eq!((img.width, img.height), (480, 272));
        img.rgba
    };
    let base = render("base.png", &[]);
    for (name, extra) in [
        ("yaw.png", &["--yaw", "90"][..]),
        ("pitch.png", &["--pitch", "-20"][..]),
        ("dist.png", &["--distance", "20"][..]),
        ("fov.png", &["--fov", "70"][..]),
        ("bg.png", &["--background", "ff0000"][..]),
        ("list1.png", &["--list", "1"][..]),
        ("sec.png", &["--section", "0", "--list", "0"][..]),
        ("wire.png", &["--wireframe"][..]),
        ("nodbl.png", &["--no-color-doubling"][..]),
        ("f565.png", &["--format", "565"][..]),
        ("posed.png", &["--pam", s(&pam), "--frame", "15"][..]),
    ] {
        assert_ne!(render(name, extra), base, "{extra:?} changed nothing");
    }
    // Thread count never changes the bytes.
    assert_eq!(render("t1.png", &["--threads", "1"]), render("t3.png", &["--threads", "3"]));
}

#[test]
fn frame_sequences() {
    let d = dir();
    let (pmo, pam) = write_inputs(d.path());
    let pattern = d.path().join("f_%03d.png");
    ok(&psprender(&["render", s(&pmo), "--pam", s(&pam), "--frames", "3..6", "-o", s(&pattern)]));
    let frames: Vec<Vec<u8>> =
        (3..=6).map(|n| std::fs::read(d.path().join(format!("f_{n:03}.png"))).unwrap()).collect();
    assert!(frames.windows(2).all(|w| w[0] != w[1]), "the animation moves between frames");
    assert!(!d.path().join("f_002.png").exists() && !d.path().join("f_007.png").exists());
    // A pattern is required.
    let o = psprender(&["render", s(&pmo), "--pam", s(&pam), "--frames", "0..2", "-o", s(&d.path().join("x.png"))]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("pattern"));
}

#[test]
fn bad_inputs_name_the_file_and_offset() {
    let d = dir();
    let (pmo, pam) = write_inputs(d.path());
    let bytes = std::fs::read(&pmo).unwrap();
    let cut = d.path().join("cut.pmo");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let junk = d.path().join("junk.pmo");
    std::fs::write(&junk, b"this is not a model").unwrap();
    for (file, want) in [(&cut, "offset 0x"), (&junk, "offset 0x")] {
        for cmd in ["render", "export-dump"] {
            let o = psprender(&[cmd, s(file), "-o", s(&d.path().join("o"))]);
            assert!(!o.status.success());
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(err.contains(s(file)) && err.contains(want), "{cmd}: {err}");
        }
    }
    // A PAM that is cut short, an unknown animation, a PAM for a model without a skeleton.
    let pbytes = std::fs::read(&pam).unwrap();
    let cut_pam = d.path().join("cut.pam");
    std::fs::write(&cut_pam, &pbytes[..40]).unwrap();
    let o = psprender(&["render", s(&pmo), "--pam", s(&cut_pam), "-o", s(&d.path().join("o.png"))]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("cut.pam") && err.contains("offset"), "{err}");
    let o = psprender(&["render", s(&pmo), "--pam", s(&pam), "--anim", "nope", "-o", s(&d.path().join("o.png"))]);
    assert!(!o.status.success() && String::from_utf8_lossy(&o.stderr).contains("nope"));
    let rigid = d.path().join("rigid.pmo");
    let (_, m) = psprender::synth::format_family_models().remove(0);
    std::fs::write(&rigid, m.to_bytes().unwrap()).unwrap();
    let o = psprender(&["render", s(&rigid), "--pam", s(&pam), "-o", s(&d.path().join("o.png"))]);
    assert!(!o.status.success() && String::from_utf8_lossy(&o.stderr).contains("skeleton"));
    // A section that does not exist.
    let o = psprender(&["render", s(&pmo), "--section", "99", "-o", s(&d.path().join("o.png"))]);
    assert!(!o.status.success() && String::from_utf8_lossy(&o.stderr).contains("99"));
}
