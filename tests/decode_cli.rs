//! End-to-end `psprender decode` runs on synthetic files written to a temporary directory.

use std::path::Path;
use std::process::{Command, Output};

fn run(args: &[&std::ffi::OsStr]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_psprender")).arg("decode").args(args).output().expect("running psprender")
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

#[test]
fn decodes_a_synthetic_model_as_text_and_json() {
    let dir = tempfile::tempdir().unwrap();
    let m = psprender::synth::skinned_model();
    let p = write(dir.path(), "column.pmo", &m.to_bytes().unwrap());
    let out = run(&[p.as_os_str()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("PMO model @0x0: "));
    let vertex_lines = text.lines().filter(|l| l.starts_with("  v") && !l.starts_with("  vtype")).count();
    assert_eq!(vertex_lines, m.counts().0);
    assert_eq!(text.matches("\nsection ").count(), m.meshes[0].len() + m.meshes[1].len());
    assert!(text.contains("joints=[0,1,2,--,--,--,--,--]"));
    // The first vertex's raw bytes, as stored after the section prefix (12 + 8 + 2·4 strips).
    let s = &m.meshes[0][0];
    let first: Vec<String> = s.vertices[..usize::from(s.vertex_size)].iter().map(|b| format!("{b:02x}")).collect();
    let data = m.header.mesh_offsets[0] as usize + 12 + 8 + 2 * s.strips.len();
    assert!(text.contains(&format!("  v0 @{data:#x} [{}] w=(", first.join(" "))), "{text}");

    let out =
        run(&[p.as_os_str(), "--json".as_ref(), "--list".as_ref(), "0".as_ref(), "--section".as_ref(), "1".as_ref()]);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let secs = v["models"][0]["sections"].as_array().unwrap();
    assert_eq!(secs.len(), 1);
    assert_eq!(secs[0]["index"], 1);
    assert_eq!(secs[0]["vertices"].as_array().unwrap().len(), m.meshes[0][1].vertex_count());
}

#[test]
fn truncated_file_fails_naming_path_and_offset() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = psprender::synth::demo_model().to_bytes().unwrap();
    let p = write(dir.path(), "cut.pmo", &bytes[..bytes.len() / 2]);
    let out = run(&[p.as_os_str()]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&p.display().to_string()), "{err}");
    assert!(err.contains("offset 0x"), "{err}");
    assert!(out.stdout.is_empty());

    let p = write(dir.path(), "junk.bin", b"hello world");
    let out = run(&[p.as_os_str()]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("junk.bin"));

    let out = run(&[dir.path().join("missing.pmo").as_os_str()]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing.pmo"));
}
