//! The README's commands run as written, so they cannot rot: every `cargo run --release --`
//! line of its shell blocks is run with the built binary in a scratch folder, with `../shared`
//! standing for the shared corpora (`$PSPRENDER_SHARED` when set). Lines that need the corpora
//! skip with a message when they are absent; `view` needs a display and is checked by
//! `tests/viewer.rs` instead. A command whose comment says it "exits 1" may exit 0 or 1;
//! every other command must exit 0.

use std::path::Path;
use std::process::Command;

/// (command line words after `cargo run --release --`, may it exit 1?)
fn readme_commands() -> Vec<(Vec<String>, bool)> {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let mut out = Vec::new();
    let mut in_sh = false;
    let mut comment = String::new();
    for line in readme.lines() {
        let t = line.trim();
        if t.starts_with("```") {
            in_sh = !in_sh && t == "```sh";
            comment.clear();
            continue;
        }
        if !in_sh {
            continue;
        }
        if let Some(c) = t.strip_prefix('#') {
            comment.push_str(c);
            continue;
        }
        if let Some(rest) = t.strip_prefix("cargo run --release -- ") {
            let words = rest.split_whitespace().map(str::to_string).collect();
            out.push((words, comment.contains("exits 1")));
        }
        comment.clear();
    }
    out
}

#[test]
fn readme_commands_run() {
    let commands = readme_commands();
    assert!(commands.len() >= 10, "found only {} README commands", commands.len());
    assert!(commands.iter().any(|(w, _)| w[0] == "demo"), "the README's main command is missing");
    let shared = psprender::shared::dir();
    let scratch = tempfile::tempdir().unwrap();
    let mut ran = 0;
    for (words, may_fail) in &commands {
        if words[0] == "view" {
            eprintln!("not run here: {words:?} (needs a display; tests/viewer.rs covers it)");
            continue;
        }
        let needs_shared = words.iter().any(|w| w.starts_with("../shared"));
        let args: Vec<String> = match (&shared, needs_shared) {
            (None, true) => {
                eprintln!("skipping: {words:?} needs ../shared");
                continue;
            }
            (Some(dir), _) => words
                .iter()
                .map(|w| match w.strip_prefix("../shared") {
                    Some(rest) => format!("{}{rest}", dir.display()),
                    None => w.clone(),
                })
                .collect(),
            (None, false) => words.clone(),
        };
        let o = Command::new(env!("CARGO_BIN_EXE_psprender")).current_dir(scratch.path()).args(&args).output().unwrap();
        let code = o.status.code();
        let accepted = code == Some(0) || (*may_fail && code == Some(1));
        assert!(
            accepted,
            "README command {words:?} exited {code:?}\nstdout: {}\nstderr: {}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        ran += 1;
    }
    eprintln!("ran {ran} of {} README commands", commands.len());
}

#[test]
fn the_two_fresh_machine_commands_are_there() {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    assert!(readme.contains("cargo run --release -- demo -o demo.png"));
    assert!(readme.contains("cargo test --workspace --release"));
    let ci = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(".ci/run")).unwrap();
    assert!(
        ci.lines().any(|l| l.trim() == "cargo test --workspace --release"),
        ".ci/run must call the README's test command"
    );
}
