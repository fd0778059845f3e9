//! The frame debugger end to end on dumps this test records from the GE's synthetic scenes
//! (`ge::scenes`, recorded with `ge::dump::Recorder`): `replay --until-draw/--until-cmd
//! --buffers`, `state`, `diff` and `report`, each checked against an independent source
//! (a direct run of the truncated display list, the registers the test wrote, the exact
//! draw the test changed).

use ge::cmd::{op, word};
use ge::display::{DisplayBuffer, Image};
use ge::dump::Dump;
use ge::list::ListBuilder;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn psprender() -> Command {
    Command::new(env!("CARGO_BIN_EXE_psprender"))
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("psprender-debugger-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

fn run(cmd: &mut Command) -> Output {
    let out = cmd.output().expect("run psprender");
    if !out.status.success() {
        eprintln!("stdout: {}\nstderr: {}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    }
    out
}

/// The display every scene draws to: VRAM start, stride 512, 8888 (`ListBuilder::standard_setup(3)`).
const DISPLAY: DisplayBuffer = DisplayBuffer { addr: 0x0400_0000, stride: 512, format: 3 };

fn is_draw(w: u32) -> bool {
    matches!((w >> 24) as u8, op::PRIM | op::BEZIER | op::SPLINE)
}

/// Record `list` (run on a fresh GE of `model`) as a dump file; returns its path.
fn record(list: &ListBuilder, model: ge::Model, name: &str) -> PathBuf {
    let mut g = ge::Ge::with_model(model);
    g.start_recording();
    list.run(&mut g).unwrap();
    let dump = g.finish_recording(DISPLAY).unwrap();
    let path = tmp(name);
    std::fs::write(&path, dump.to_bytes()).unwrap();
    path
}

fn scene(name: &str) -> ListBuilder {
    let s = ge::scenes::SCENES.iter().find(|s| s.name == name).unwrap();
    ge::scenes::build(s)
}

/// The list cut after its `n`-th draw word, then FINISH/END: the "first n draws".
fn first_draws(list: &ListBuilder, n: usize) -> ListBuilder {
    let mut l = list.clone();
    let mut seen = 0;
    let cut = l.words.iter().position(|&w| {
        seen += usize::from(is_draw(w));
        seen == n
    });
    l.words.truncate(cut.expect("the list has that many draws") + 1);
    l.finish();
    l
}

fn draws_in(list: &ListBuilder) -> usize {
    list.words.iter().filter(|&&w| is_draw(w)).count()
}

/// Run `list` directly (no dump) and capture the colour buffer like `replay -o`.
fn direct(list: &ListBuilder, model: ge::Model) -> Image {
    let mut g = ge::Ge::with_model(model);
    list.run(&mut g).unwrap();
    DISPLAY.capture(&g.mem)
}

#[test]
fn until_draw_equals_a_direct_run_of_the_first_draws() {
    for name in ["prim_rectangles", "vfmt_texcoords", "prim_triangles"] {
        let list = scene(name);
        let dump = record(&list, ge::Model::Hardware, &format!("{name}.ppdmp"));
        let total = draws_in(&list);
        assert!(total >= 2, "{name}: {total} draws");
        for n in 1..=total {
            let png = tmp(&format!("{name}-{n}.png"));
            let out =
                run(psprender().arg("replay").arg(&dump).arg("--until-draw").arg(n.to_string()).arg("-o").arg(&png));
            assert!(out.status.success(), "{name} draw {n}");
            let got = Image::load(&png).unwrap();
            let want = direct(&first_draws(&list, n), ge::Model::Hardware);
            assert!(got == want, "{name}: --until-draw {n} differs from a direct run of the first {n} draws");
        }
        // One past the last draw is an error naming the count.
        let out = run(psprender().arg("replay").arg(&dump).arg("--until-draw").arg((total + 1).to_string()));
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(&format!("has {total} draws")), "{err}");
    }
}
