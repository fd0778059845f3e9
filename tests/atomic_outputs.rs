//! Every file the CLI writes replaces its target atomically (temporary file in the target's
//! folder, then rename; `src/output.rs`): a write that fails half-way or a process killed
//! half-way leaves the previous file untouched. Both are provoked for every writer with a
//! file-size limit on the child process (`ulimit -f`, which holds for root too, unlike
//! read-only folders): with SIGXFSZ at its default the process is killed mid-write (a crash);
//! with SIGXFSZ ignored the write fails with EFBIG ("disk full"), which must give exit code
//! 2, an error naming the target and no temporary file left behind. (A killed process
//! leaves its hidden `.psprender-tmp*` file; the target is still the old one.)
//!
//! JSON (`--json`) and text reports go to stdout, not to files, so they have no case here.

use psprender::popcap::{synth::feature_scene, Frame, Name};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Run psprender in `dir` with a 2-block (1 KiB) file-size limit; `ignore` ignores SIGXFSZ.
fn limited(dir: &Path, ignore: bool, args: &[&str]) -> Output {
    let trap = if ignore { "trap '' XFSZ; " } else { "" };
    Command::new("sh")
        .current_dir(dir)
        .arg("-c")
        .arg(format!("{trap}ulimit -f 2; exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_psprender"))
        .args(args)
        .output()
        .expect("sh runs")
}

fn fixture() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("model.pmo"), psprender::synth::demo_model().to_bytes().unwrap()).unwrap();
    std::fs::write(d.join("anim.pam"), psprender::synth::anim::column_animation().to_bytes().unwrap()).unwrap();
    let mut pop = feature_scene();
    let main = pop.main_sprite.as_mut().unwrap();
    main.frames[0].label = Some(Name::new("clip"));
    main.frames.push(Frame { stop: true, ..Frame::default() });
    main.work_area = Some([0, 2]);
    std::fs::write(d.join("scene.pam"), pop.to_bytes().unwrap()).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_psprender"))
        .current_dir(d)
        .args(["export-dump", "model.pmo", "-o", "scene.ppdmp"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    dir
}

/// Files in `dir` whose name starts with the writer's temporary prefix.
fn temporaries(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with(".psprender-tmp"))
        .collect()
}

#[test]
fn failed_or_killed_writes_leave_the_previous_file() {
    let dir = fixture();
    let d = dir.path();
    // (command, the files it replaces: pre-filled with OLD)
    let cases: &[(&[&str], &[&str])] = &[
        (&["render", "model.pmo", "-o", "out/r.png"], &["out/r.png"]),
        (
            &["render", "model.pmo", "--pam", "anim.pam", "--frames", "0..1", "-o", "out/f_%02d.png"],
            &["out/f_00.png", "out/f_01.png"],
        ),
        (&["replay", "scene.ppdmp", "-o", "out/p.png"], &["out/p.png"]),
        (&["export-dump", "model.pmo", "-o", "out/d.ppdmp"], &["out/d.ppdmp"]),
        (&["export-gltf", "model.pmo", "--pam", "anim.pam", "-o", "out/g.glb"], &["out/g.glb"]),
        (&["export-gltf", "model.pmo", "-o", "out/m.gltf"], &["out/m.gltf", "out/m.bin"]),
        (&["popcap", "scene.pam", "--label", "clip", "-o", "out/clip.png"], &["out/clip.png"]),
        (&["popcap", "scene.pam", "--label", "clip", "-o", "out/clip.gif"], &["out/clip.gif"]),
        (&["popcap", "scene.pam", "--frame", "0", "--render", "out/one.png"], &["out/one.png"]),
        (&["frametests", ".", "-o", "out/ft"], &["out/ft/scene.png"]),
    ];
    std::fs::create_dir_all(d.join("out/ft")).unwrap();
    for (args, targets) in cases {
        for ignore in [false, true] {
            for t in *targets {
                std::fs::write(d.join(t), b"OLD").unwrap();
            }
            let o = limited(d, ignore, args);
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(!o.status.success(), "{args:?} (SIGXFSZ ignored: {ignore}) succeeded past the limit");
            if ignore {
                // frametests reports a case it could not complete and exits 1 or 2; every
                // other command fails on its output with exit code 2.
                let code = o.status.code();
                assert!(code == Some(2) || (args[0] == "frametests" && code == Some(1)), "{args:?}: {code:?}\n{err}");
                let named = targets.iter().any(|t| err.contains(Path::new(t).file_name().unwrap().to_str().unwrap()));
                assert!(named || args[0] == "frametests", "{args:?}: the error does not name the output: {err}");
                assert!(!err.contains("panicked"), "{args:?}: {err}");
                for folder in ["out", "out/ft"] {
                    assert_eq!(temporaries(&d.join(folder)), Vec::<PathBuf>::new(), "{args:?}: temporary left");
                }
            }
            for t in *targets {
                assert_eq!(
                    std::fs::read(d.join(t)).unwrap(),
                    b"OLD",
                    "{args:?} (SIGXFSZ ignored: {ignore}): {t} replaced"
                );
            }
            // A killed process cannot remove its half-written temporary (a hidden
            // `.psprender-tmp*` beside the target); clear it before the next case.
            for folder in ["out", "out/ft"] {
                temporaries(&d.join(folder)).iter().for_each(|p| std::fs::remove_file(p).unwrap());
            }
        }
        // Without the limit the same command replaces every target completely.
        let o = Command::new(env!("CARGO_BIN_EXE_psprender")).current_dir(d).args(*args).output().unwrap();
        assert!(o.status.code().is_some_and(|c| c <= 1), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
        for t in *targets {
            assert_ne!(std::fs::read(d.join(t)).unwrap(), b"OLD", "{args:?}: {t} not written");
        }
    }
}
