//! The `psprender` binary end to end, on data the test makes itself.

use std::process::Command;

fn psprender() -> Command {
    Command::new(env!("CARGO_BIN_EXE_psprender"))
}

fn tmp(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("psprender-cli-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

/// A dump that clears the 8888 framebuffer to one colour with a through-mode sprite.
fn clear_dump(rgba: u32) -> ge::dump::Dump {
    use ge::cmd::{op, word};
    use ge::dump::{Dump, Record, RecordKind};
    let mut pushbuf = vec![0u8; 2048];
    let mut verts = Vec::new();
    for (x, y) in [(0i16, 0i16), (480, 272)] {
        verts.extend_from_slice(&rgba.to_le_bytes());
        verts.extend_from_slice(&x.to_le_bytes());
        verts.extend_from_slice(&y.to_le_bytes());
        verts.extend_from_slice(&[0, 0, 0, 0]);
    }
    let regs: Vec<u8> = [
        word(op::FRAMEBUFPTR, 0),
        word(op::FRAMEBUFWIDTH, 512),
        word(op::FRAMEBUFPIXFORMAT, 3),
        word(op::SCISSOR2, (271 << 10) | 479),
        word(op::REGION2, (271 << 10) | 479),
        word(op::CLEARMODE, 0x701),
        word(op::VERTEXTYPE, (1 << 23) | (7 << 2) | (2 << 7)),
    ]
    .iter()
    .flat_map(|w| w.to_le_bytes())
    .collect();
    let prim = word(op::PRIM, (6 << 16) | 2).to_le_bytes();
    let display = [0u32.to_le_bytes(), 512u32.to_le_bytes(), 3u32.to_le_bytes()].concat();
    let mut records = vec![Record { kind: RecordKind::Init, ptr: 0, sz: 2048 }];
    for (kind, data) in [
        (RecordKind::Registers, &regs[..]),
        (RecordKind::Vertices, &verts[..]),
        (RecordKind::Registers, &prim[..]),
        (RecordKind::Display, &display[..]),
    ] {
        while !pushbuf.len().is_multiple_of(16) {
            pushbuf.push(0);
        }
        records.push(Record { kind, ptr: pushbuf.len() as u32, sz: data.len() as u32 });
        pushbuf.extend_from_slice(data);
    }
    Dump { version: 6, game_id: "CLITEST00".into(), records, pushbuf }
}

#[test]
fn demo_writes_a_png() {
    let out = tmp("demo.png");
    let st = psprender().args(["demo", "-o"]).arg(&out).status().unwrap();
    assert!(st.success());
    let img = ge::display::Image::load(&out).unwrap();
    assert_eq!((img.width, img.height), (480, 272));
}

#[test]
fn replay_compare_and_disasm() {
    let dump = tmp("clear.ppdmp");
    std::fs::write(&dump, clear_dump(0xFF20_4060).to_bytes()).unwrap();
    let shot = tmp("clear.png");
    let st = psprender().arg("replay").arg(&dump).arg("-o").arg(&shot).status().unwrap();
    assert!(st.success());
    let img = ge::display::Image::load(&shot).unwrap();
    assert_eq!(img.get(100, 100), [0x60, 0x40, 0x20, 255]);
    assert_eq!(img.get(500, 100), [0, 0, 0, 255], "columns 480-511 are black");
    // Same image: MSE 0, exit 0. A different clear colour: MSE above the limit, exit 1.
    let out = psprender().arg("replay").arg(&dump).arg("--compare").arg(&shot).output().unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("Screenshot MSE: 0"));
    let other = tmp("other.ppdmp");
    std::fs::write(&other, clear_dump(0xFF00_0000).to_bytes()).unwrap();
    let out = psprender().arg("replay").arg(&other).arg("--compare").arg(&shot).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let out = psprender().arg("disasm").arg(&dump).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("CLEARMODE on=1 color=1 stencil=1 depth=1") && text.contains("PRIM RECTANGLES count=2"),
        "{text}"
    );
}

#[test]
fn bad_dump_is_a_clear_error() {
    let p = tmp("garbage.ppdmp");
    std::fs::write(&p, b"not a dump at all").unwrap();
    let out = psprender().arg("replay").arg(&p).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("garbage.ppdmp") && err.contains("PPSSPPGE"), "{err}");
}

/// `frametests` replays each dump under the model that made its reference (the PSP for
/// NAME.hardware.png, PPSSPP for NAME.ref.png and the synthetic NAME.png) unless `--model`
/// forces one; `replay --compare` says which model it used.
#[test]
fn models_follow_the_reference_kind() {
    let dir = tmp("models");
    std::fs::create_dir_all(&dir).unwrap();
    let dump = clear_dump(0xFF20_4060).to_bytes();
    let shot = tmp("models-ref.png");
    std::fs::write(dir.join("psp.ppdmp"), &dump).unwrap();
    let st = psprender().arg("replay").arg(dir.join("psp.ppdmp")).arg("-o").arg(&shot).status().unwrap();
    assert!(st.success());
    for (name, reference) in
        [("psp", "psp.hardware.png"), ("game", "game.ref.png"), ("a_vertex_000001", "a_vertex_000001.png")]
    {
        std::fs::write(dir.join(format!("{name}.ppdmp")), &dump).unwrap();
        std::fs::copy(&shot, dir.join(reference)).unwrap();
    }
    let out = psprender().arg("frametests").arg(&dir).arg("--json").output().unwrap();
    assert!(out.status.success());
    let json = String::from_utf8_lossy(&out.stdout);
    for (name, model) in [("psp", "hardware"), ("game", "ppsspp"), ("a_vertex_000001", "ppsspp")] {
        assert!(json.contains(&format!("\"name\":\"{name}\",\"family\":")), "{json}");
        let at = json.find(&format!("\"name\":\"{name}\"")).unwrap();
        assert!(json[at..].contains(&format!("\"model\":\"{model}\"")), "{name}: {json}");
    }
    assert!(
        json.contains("\"models\":{\"hardware\":{\"tests\":1,\"exact\":1,\"pass\":1},\"ppsspp\":{\"tests\":2"),
        "{json}"
    );
    let out = psprender().arg("frametests").arg(&dir).args(["--json", "--model", "hardware"]).output().unwrap();
    let json = String::from_utf8_lossy(&out.stdout);
    assert!(json.contains("\"models\":{\"hardware\":{\"tests\":3,"), "{json}");
    // replay: by reference name, or forced.
    let replay = |reference: &str, extra: &[&str]| {
        let out = psprender()
            .arg("replay")
            .arg(dir.join("psp.ppdmp"))
            .arg("--compare")
            .arg(dir.join(reference))
            .args(extra)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    assert!(replay("psp.hardware.png", &[]).contains("hardware model"));
    assert!(replay("game.ref.png", &[]).contains("ppsspp model"));
    assert!(replay("game.ref.png", &["--model", "hardware"]).contains("hardware model"));
    let out = psprender().arg("replay").arg(dir.join("psp.ppdmp")).args(["--model", "psp"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("expected \"hardware\" or \"ppsspp\""));
}
