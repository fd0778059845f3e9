//! Every subcommand meets the same conventions, checked as a new user meets them: bad inputs
//! of every kind, outputs in missing or unwritable places, numeric flags at NaN, infinity,
//! negative, zero and huge values, and `--help` texts that spell each concept the same way.
//!
//! Exit codes: 0 success, 1 a comparison failed, 2 bad input or usage. Every error names the
//! file it is about, states each cause once and shows no source paths of dependencies.

use std::path::Path;
use std::process::{Command, Output};

fn run(cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_psprender"))
        .current_dir(cwd)
        .args(args)
        // The viewer must fail cleanly (no display) after checking its inputs.
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .expect("runs")
}

fn text(o: &Output) -> String {
    format!("stdout: {}\nstderr: {}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

/// Inputs written by the project's own writers: a model, an animation, a dump recorded from
/// the model, its reference image, and malformed variants of each.
struct Fixture {
    dir: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let pmo = psprender::synth::demo_model().to_bytes().unwrap();
        let pam = psprender::synth::anim::column_animation().to_bytes().unwrap();
        std::fs::write(d.join("model.pmo"), &pmo).unwrap();
        std::fs::write(d.join("anim.pam"), &pam).unwrap();
        std::fs::write(d.join("model.cut.pmo"), &pmo[..pmo.len() / 2]).unwrap();
        std::fs::write(d.join("anim.cut.pam"), &pam[..pam.len() / 2]).unwrap();
        let kh2 =
            psprender::kh2::synth::anb(&psprender::kh2::synth::biped_walk(), &psprender::kh2::synth::sample_triggers())
                .unwrap();
        std::fs::write(d.join("walk.anb"), &kh2).unwrap();
        std::fs::write(d.join("walk.cut.anb"), &kh2[..kh2.len() / 2]).unwrap();
        let popcap = psprender::popcap::synth::feature_scene().to_bytes().unwrap();
        std::fs::write(d.join("popcap.pam"), &popcap).unwrap();
        std::fs::write(d.join("popcap.cut.pam"), &popcap[..popcap.len() / 2]).unwrap();
        std::fs::write(d.join("notes.txt"), b"these are not the bytes you are looking for\n").unwrap();
        std::fs::create_dir(d.join("folder")).unwrap();
        std::fs::write(d.join("plain"), b"a file where a folder should be").unwrap();
        let o = run(d, &["export-dump", "model.pmo", "-o", "dumps/scene.ppdmp", "--png", "dumps/scene.hardware.png"]);
        assert!(o.status.success(), "{}", text(&o));
        let dump = std::fs::read(d.join("dumps/scene.ppdmp")).unwrap();
        std::fs::write(d.join("scene.cut.ppdmp"), &dump[..dump.len() / 2]).unwrap();
        Fixture { dir }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }
}

/// The error text after `error: `, checked for the shared rules: it names `file`, repeats
/// no cause, and shows no dependency source paths.
fn check_error(o: &Output, file: &str, case: &str) {
    assert_eq!(o.status.code(), Some(2), "{case}: exit code\n{}", text(o));
    let err = String::from_utf8_lossy(&o.stderr);
    let line = err.lines().find(|l| l.starts_with("error")).unwrap_or_else(|| panic!("{case}: no error line\n{err}"));
    assert!(line.contains(file), "{case}: the error does not name {file:?}: {line}");
    assert!(!err.contains(".cargo/registry") && !err.contains(".rs:"), "{case}: source path in {err}");
    assert!(!err.contains("panicked"), "{case}: panic: {err}");
    let fragments: Vec<&str> = line.trim_start_matches("error: ").split(": ").map(str::trim).collect();
    for (i, f) in fragments.iter().enumerate() {
        if f.len() < 6 {
            continue;
        }
        assert!(
            !fragments[i + 1..].iter().any(|g| g.contains(f) || (g.len() >= 6 && f.contains(g))),
            "{case}: {f:?} is said twice in {line}"
        );
    }
}

/// Each subcommand with its input slot: (name, args before the input, args after it).
const COMMANDS: &[(&str, &[&str], &[&str])] = &[
    ("decode", &["decode"], &[]),
    ("render", &["render"], &["-o", "out/r.png"]),
    ("export-dump", &["export-dump"], &["-o", "out/d.ppdmp"]),
    ("export-gltf", &["export-gltf"], &["-o", "out/g.gltf"]),
    ("view", &["view"], &[]),
    ("pam", &["pam"], &[]),
    ("kh2", &["kh2"], &[]),
    ("popcap", &["popcap"], &[]),
    ("replay", &["replay"], &["-o", "out/p.png"]),
    ("disasm", &["disasm"], &[]),
    ("frametests", &["frametests"], &[]),
    ("conformance", &["conformance"], &[]),
];

/// The input of the right kind for each subcommand, and a file of another format.
fn inputs(cmd: &str) -> (&'static str, &'static str, &'static str) {
    // (good input, wrong-format input, truncated input)
    match cmd {
        "decode" | "render" | "export-dump" | "export-gltf" | "view" => ("model.pmo", "anim.pam", "model.cut.pmo"),
        "pam" => ("anim.pam", "model.pmo", "anim.cut.pam"),
        "kh2" => ("walk.anb", "model.pmo", "walk.cut.anb"),
        // A BBS PAM shares the extension: told apart by its magic.
        "popcap" => ("popcap.pam", "anim.pam", "popcap.cut.pam"),
        "replay" | "disasm" => ("dumps/scene.ppdmp", "model.pmo", "scene.cut.ppdmp"),
        _ => ("dumps", "notes.txt", "scene.cut.ppdmp"),
    }
}

#[test]
fn bad_inputs_fail_once_naming_the_file() {
    let f = Fixture::new();
    for &(name, pre, post) in COMMANDS {
        let (_, wrong, cut) = inputs(name);
        let mut cases = vec![("missing input", "no-such-file.bin"), ("wrong format", wrong)];
        if name != "frametests" {
            cases.push(("a folder as input", "folder"));
            cases.push(("truncated input", cut));
        } else {
            cases.push(("an empty folder", "folder"));
        }
        for (case, input) in cases {
            let args: Vec<&str> = pre.iter().copied().chain([input]).chain(post.iter().copied()).collect();
            let o = run(f.path(), &args);
            check_error(&o, input, &format!("{name}: {case}"));
        }
    }
}

#[test]
fn outputs_create_folders_and_unwritable_places_fail_first() {
    let f = Fixture::new();
    let d = f.path();
    // (args with OUT standing for the output path, the file it writes under OUT's folder)
    let writers: &[(&[&str], &str)] = &[
        (&["demo", "-o", "OUT"], "a.png"),
        (&["render", "model.pmo", "-o", "OUT"], "a.png"),
        (&["render", "model.pmo", "--pam", "anim.pam", "--frames", "2..3", "-o", "OUT"], "f_%02d.png"),
        (&["export-dump", "model.pmo", "-o", "OUT"], "a.ppdmp"),
        (&["export-gltf", "model.pmo", "--pam", "anim.pam", "-o", "OUT"], "a.glb"),
        (&["export-gltf", "model.pmo", "-o", "OUT"], "a.gltf"),
        (&["replay", "dumps/scene.ppdmp", "-o", "OUT"], "a.png"),
        (&["replay", "dumps/scene.ppdmp", "--compare", "dumps/scene.hardware.png", "--diff", "OUT"], "a.png"),
        (&["frametests", "dumps", "-o", "OUT"], ""),
    ];
    for (i, (args, file)) in writers.iter().enumerate() {
        let made = format!("new{i}/deeper/{file}");
        let args_made: Vec<&str> = args.iter().map(|a| if *a == "OUT" { made.as_str() } else { a }).collect();
        let o = run(d, &args_made);
        assert_eq!(o.status.code(), Some(0), "{args_made:?}\n{}", text(&o));
        let written = if file.contains('%') {
            d.join(format!("new{i}/deeper/f_02.png"))
        } else if file.is_empty() {
            d.join(format!("new{i}/deeper/scene.png"))
        } else {
            d.join(&made)
        };
        assert!(written.is_file(), "{args_made:?}: {} was not written", written.display());
        // A regular file where the folder should be: fails, naming it, and writes nothing.
        let bad = format!("plain/{file}");
        let args_bad: Vec<&str> = args.iter().map(|a| if *a == "OUT" { bad.as_str() } else { a }).collect();
        let o = run(d, &args_bad);
        check_error(&o, "plain", &format!("{args_bad:?}"));
        assert!(!String::from_utf8_lossy(&o.stdout).contains("wrote"), "{args_bad:?} did the work first");
    }
    // An output that is a folder is refused.
    let o = run(d, &["render", "model.pmo", "-o", "folder"]);
    check_error(&o, "folder", "render -o folder");
}

/// (command, flag, value, accepted?)
#[test]
fn numeric_flags_are_checked() {
    let f = Fixture::new();
    let d = f.path();
    let render: &[&str] = &["render", "model.pmo", "--pam", "anim.pam", "-o", "n.png"];
    let demo: &[&str] = &["demo", "-o", "n.png"];
    let pam: &[&str] = &["pam", "anim.pam"];
    let replay: &[&str] = &["replay", "dumps/scene.ppdmp", "--compare", "dumps/scene.hardware.png"];
    let frametests: &[&str] = &["frametests", "dumps"];
    let view: &[&str] = &["view", "model.pmo"];
    let gltf: &[&str] = &["export-gltf", "model.pmo", "--pam", "anim.pam", "-o", "n.glb"];
    let weird = ["NaN", "inf", "-inf", "-5", "0", "1e9"];
    // Per flag: which of `weird` are accepted.
    let table: &[(&[&str], &str, [bool; 6])] = &[
        (render, "--frame", [false, false, false, false, true, false]),
        (render, "--yaw", [false, false, false, true, true, true]),
        (render, "--pitch", [false, false, false, true, true, false]),
        (render, "--distance", [false, false, false, false, false, true]),
        (render, "--fov", [false, false, false, false, false, false]),
        (render, "--threads", [false, false, false, false, false, false]),
        (demo, "--frame", [false, false, false, false, true, false]),
        (demo, "--yaw", [false, false, false, true, true, true]),
        (demo, "--threads", [false, false, false, false, false, false]),
        (pam, "--frame", [false, false, false, false, true, false]),
        (replay, "--max-mse", [false, false, false, false, true, true]),
        (frametests, "--max-mse", [false, false, false, false, true, true]),
        (frametests, "--threads", [false, false, false, false, false, false]),
        (view, "--scale", [false, false, false, false, false, false]),
        (gltf, "--threads", [false, false, false, false, false, false]),
        (gltf, "--rotation-samples", [false, false, false, false, false, false]),
    ];
    for (base, flag, accepted) in table {
        for (v, ok) in weird.iter().zip(accepted) {
            let mut args = base.to_vec();
            args.extend([*flag, *v]);
            let o = run(d, &args);
            if *ok {
                assert_eq!(o.status.code(), Some(0), "{args:?} should be accepted\n{}", text(&o));
            } else {
                assert_eq!(o.status.code(), Some(2), "{args:?} should be refused\n{}", text(&o));
                let err = String::from_utf8_lossy(&o.stderr);
                assert!(err.contains(flag), "{args:?}: the message does not name {flag}: {err}");
                assert!(!err.contains("tip: to pass"), "{args:?}: a negative number read as a flag: {err}");
            }
        }
    }
    // Trace pixels outside the GE's drawing coordinates.
    for v in ["9999,9999", "-1,0", "3"] {
        let o = run(d, &["replay", "dumps/scene.ppdmp", "--trace-pixel", v]);
        assert_eq!(o.status.code(), Some(2), "--trace-pixel {v}\n{}", text(&o));
    }
    // Frames past the end follow the loop rule (the built-in animation loops 59 -> 0): frame
    // 59 + 10 poses like frame 10.
    let a = run(d, &["render", "model.pmo", "--pam", "anim.pam", "--frame", "10", "-o", "l10.png"]);
    let b = run(d, &["render", "model.pmo", "--pam", "anim.pam", "--frame", "69", "-o", "l69.png"]);
    assert!(a.status.success() && b.status.success(), "{}{}", text(&a), text(&b));
    assert_eq!(std::fs::read(d.join("l10.png")).unwrap(), std::fs::read(d.join("l69.png")).unwrap());
}

#[test]
fn selections_out_of_range_list_the_valid_ones() {
    let f = Fixture::new();
    let d = f.path();
    let o = run(d, &["decode", "model.pmo", "--section", "99"]);
    check_error(&o, "model.pmo", "decode --section 99");
    assert!(String::from_utf8_lossy(&o.stderr).contains("list 0 has"), "{}", text(&o));
    let o = run(d, &["render", "model.pmo", "--section", "99", "-o", "s.png"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(String::from_utf8_lossy(&o.stderr).contains("list 0 has"), "{}", text(&o));
    for cmd in [
        &["pam", "anim.pam", "--anim", "7"][..],
        &["render", "model.pmo", "--pam", "anim.pam", "--anim", "7"],
        &["export-gltf", "model.pmo", "--pam", "anim.pam", "--anim", "7", "-o", "x.glb"],
    ] {
        let o = run(d, cmd);
        check_error(&o, "anim.pam", &format!("{cmd:?}"));
        assert!(String::from_utf8_lossy(&o.stderr).contains("0 (\"sway\")"), "{cmd:?}: {}", text(&o));
    }
    let o = run(d, &["frametests", "dumps", "--filter", "nothing-matches"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(String::from_utf8_lossy(&o.stderr).contains("matches none of the 1 dumps"), "{}", text(&o));
    // replay with nothing to save says how to get an image.
    let o = run(d, &["replay", "dumps/scene.ppdmp"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("add -o"), "{}", text(&o));
    // A failed comparison exits 1.
    std::fs::write(d.join("black.png"), ge::display::Image::black(512, 272).to_png().unwrap()).unwrap();
    let o = run(d, &["replay", "dumps/scene.ppdmp", "--compare", "black.png"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
}

/// The flags of one `--help` text: (flag spelling as printed, the help text after it).
fn flags(help: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for line in help.lines() {
        let t = line.trim_start();
        if t.starts_with('-') {
            let (flag, rest) = t.split_once("  ").unwrap_or((t, ""));
            out.push((flag.trim().to_string(), rest.trim().to_string()));
        } else if let (Some(last), false) = (out.last_mut(), t.is_empty()) {
            if line.starts_with("          ") {
                last.1 = format!("{} {}", last.1, t).trim().to_string();
            }
        }
    }
    out
}

#[test]
fn help_texts_share_one_convention() {
    let d = tempfile::tempdir().unwrap();
    // Every subcommand the binary lists, so new ones are held to the same rules.
    let top = run(d.path(), &["--help"]);
    let top = String::from_utf8_lossy(&top.stdout).to_string();
    let commands: Vec<String> = top
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .filter(|c| c != "help")
        .collect();
    assert!(commands.len() >= 10, "{top}");
    let mut seen: std::collections::BTreeMap<&str, (String, String)> = Default::default();
    for cmd in commands.iter().map(String::as_str) {
        let o = run(d.path(), &[cmd, "--help"]);
        assert!(o.status.success(), "{cmd} --help\n{}", text(&o));
        let help = String::from_utf8_lossy(&o.stdout).to_string();
        assert!(help.contains("Usage: psprender "), "{cmd}: {help}");
        let f = flags(&help);
        for (spelling, about) in &f {
            // One spelling per concept.
            for banned in ["--out ", "--out=", "--jobs", "-j,"] {
                assert!(!format!("{spelling} ").starts_with(banned), "{cmd}: {spelling} (use -o/--output, --threads)");
            }
            let concept = ["--output", "--threads", "--max-mse", "--frame ", "--frames", "--anim"]
                .into_iter()
                .find(|c| format!("{spelling} ").contains(c));
            if let Some(c) = concept {
                if c == "--output" {
                    assert!(spelling.starts_with("-o, --output"), "{cmd}: {spelling}");
                    continue; // what is written differs per command
                }
                // The same help text (up to the default) wherever the concept appears.
                let about = about.split(" [default").next().unwrap_or("").to_string();
                match seen.get(c) {
                    Some((other, text)) if c != "--frame " && c != "--anim" => {
                        assert_eq!(&about, text, "{cmd} and {other} describe {c} differently")
                    }
                    Some(_) => {}
                    None => {
                        seen.insert(c, (cmd.to_string(), about));
                    }
                }
            }
        }
        // Commands that write files name them with -o/--output.
        if ["demo", "render", "export-dump", "export-gltf", "replay", "frametests"].contains(&cmd) {
            assert!(f.iter().any(|(s, _)| s.starts_with("-o, --output")), "{cmd} has no -o/--output");
        }
        // Frame flags explain the loop rule.
        if let Some((_, about)) = f.iter().find(|(s, _)| s.starts_with("--frame <")) {
            assert!(about.contains("loop"), "{cmd}: --frame does not say what happens past the end: {about}");
        }
    }
    // The viewer's keys are in the short help too.
    let o = run(d.path(), &["view", "-h"]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("Space play/pause"), "{}", text(&o));
}

/// `export-gltf` writes its .gltf, .bin and PNGs all together or not at all, and names the
/// containers it can write.
#[test]
fn gltf_export_writes_everything_or_nothing() {
    let f = Fixture::new();
    let d = f.path();
    let o = run(d, &["export-gltf", "model.pmo", "--pam", "anim.pam", "-o", "set/m.gltf"]);
    assert!(o.status.success(), "{}", text(&o));
    let mut names: Vec<String> = std::fs::read_dir(d.join("set"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert!(names.len() >= 3 && names.contains(&"m.gltf".into()) && names.contains(&"m.bin".into()), "{names:?}");
    assert!(names.iter().any(|n| n.ends_with(".png")), "{names:?}");
    // A truncated PAM fails after the model was read: nothing appears.
    let o = run(d, &["export-gltf", "model.pmo", "--pam", "anim.cut.pam", "-o", "none/m.gltf"]);
    check_error(&o, "anim.cut.pam", "export-gltf with a truncated PAM");
    let left: Vec<_> =
        std::fs::read_dir(d.join("none")).map(|r| r.map(|e| e.unwrap().file_name()).collect()).unwrap_or_default();
    assert!(left.is_empty(), "{left:?}");
    let o = run(d, &["export-gltf", "model.pmo", "-o", "m.obj"]);
    check_error(&o, "m.obj", "export-gltf -o m.obj");
    assert!(String::from_utf8_lossy(&o.stderr).contains(".glb or .gltf"), "{}", text(&o));
}
