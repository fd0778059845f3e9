//! The frame debugger end to end on dumps this test records from the GE's synthetic scenes
//! (`ge::scenes`, recorded with `ge::dump::Recorder`): `replay --until-draw/--until-cmd
//! --buffers`, `state`, `diff` and `report`, each checked against an independent source
//! (a direct run of the truncated display list, the registers the test wrote, the exact
//! draw the test changed).

use ge::cmd::op;
use ge::display::{DisplayBuffer, Image};
use ge::dump::{Dump, RecordKind};
use ge::list::Bytes;
use ge::list::ListBuilder;
use std::path::PathBuf;
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

/// Pushbuf offsets (as `disasm` prints them) of the draw words of a dump, in order.
fn draw_offsets(path: &PathBuf) -> Vec<u32> {
    let d = Dump::open(path).unwrap();
    let mut out = Vec::new();
    for r in d.records.iter().filter(|r| r.kind == RecordKind::Registers) {
        for (i, c) in d.payload(r).chunks_exact(4).enumerate() {
            if is_draw(u32::from_le_bytes([c[0], c[1], c[2], c[3]])) {
                out.push(r.ptr + 4 * i as u32);
            }
        }
    }
    out
}

fn replay_png(dump: &PathBuf, extra: &[&str], name: &str) -> Image {
    let png = tmp(name);
    let out = run(psprender().arg("replay").arg(dump).args(extra).arg("-o").arg(&png));
    assert!(out.status.success(), "replay {extra:?}");
    Image::load(&png).unwrap()
}

#[test]
fn until_cmd_stops_at_the_word_disasm_prints() {
    let list = scene("prim_triangles");
    let dump = record(&list, ge::Model::Hardware, "cmd.ppdmp");
    let offs = draw_offsets(&dump);
    assert!(offs.len() >= 2);
    let want = direct(&first_draws(&list, 2), ge::Model::Hardware);
    let at_draw = replay_png(&dump, &["--until-cmd", &format!("0x{:x}", offs[1])], "cmd-2.png");
    assert!(at_draw == want, "stopping at draw 2's offset shows the first two draws");
    // The word after draw 1 is not a draw: the picture is still that of the first draw.
    let after_first = replay_png(&dump, &["--until-cmd", &format!("{:x}", offs[0] + 4)], "cmd-1.png");
    assert!(after_first == direct(&first_draws(&list, 1), ge::Model::Hardware));
    // An offset no word has is an error; so is a misaligned one.
    let out = run(psprender().arg("replay").arg(&dump).args(["--until-cmd", "0xfffffff0"]));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no command word at pushbuf offset 0xfffffff0"));
    let out = run(psprender().arg("replay").arg(&dump).args(["--until-cmd", "0x3"]));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a multiple of 4"));
    let out = run(psprender().arg("replay").arg(&dump).args(["--until-draw", "0"]));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("draws count from 1"));
}

/// The rectangles scene's palette entry `i` (ge/src/scenes.rs `rectangles`): hand-derived.
fn rect_palette(i: u32) -> [u8; 4] {
    [(i * 16) as u8, 255 - (i * 16) as u8, ((i * 53) & 255) as u8, 255]
}

#[test]
fn buffers_show_colour_depth_stencil_texture_and_clut() {
    let list = scene("prim_rectangles");
    let dump = record(&list, ge::Model::Hardware, "buffers.ppdmp");
    let dir = tmp("buffers-2");
    let png = tmp("buffers-2.png");
    let out = run(psprender()
        .arg("replay")
        .arg(&dump)
        .args(["--until-draw", "2", "--buffers"])
        .arg(&dir)
        .arg("-o")
        .arg(&png));
    assert!(out.status.success());
    let screen = Image::load(&png).unwrap();
    let colour = Image::load(dir.join("colour.png")).unwrap();
    assert_eq!((colour.width, colour.height), (480, 272));
    assert!(colour == screen.crop(480, 272), "colour.png is the screenshot's 480 visible columns");
    // Depth: the scene clears depth to 0 and draws through-mode sprites with z 0: black.
    let depth = Image::load(dir.join("depth.png")).unwrap();
    assert!(depth.rgba.chunks_exact(4).all(|p| p == [0, 0, 0, 255]));
    // Stencil: the alpha byte of each 8888 pixel, read here straight from VRAM after a direct
    // run of the first two draws.
    let stencil = Image::load(dir.join("stencil.png")).unwrap();
    let mut g = ge::Ge::new();
    first_draws(&list, 2).run(&mut g).unwrap();
    for (x, y) in [(5u32, 5u32), (60, 60), (300, 200), (479, 271)] {
        let a = g.mem.vram()[((y * 512 + x) * 4 + 3) as usize];
        assert_eq!(stencil.get(x, y), [a, a, a, 255], "stencil at {x},{y}");
    }
    // Texture: 4x4 CLUT8, texel (u, v) = index 4v + u through the 8888 palette.
    let tex = Image::load(dir.join("texture.png")).unwrap();
    assert_eq!((tex.width, tex.height), (4, 4));
    for v in 0..4 {
        for u in 0..4 {
            assert_eq!(tex.get(u, v), rect_palette(4 * v + u), "texel {u},{v}");
        }
    }
    // CLUT: the 1 KiB cache as 256 8888 entries, 16 per row, 8x8 each; LOADCLUT loaded 64
    // bytes (16 entries), the rest of the cache is still zero.
    let clut = Image::load(dir.join("clut.png")).unwrap();
    assert_eq!((clut.width, clut.height), (128, 128));
    for i in 0..256u32 {
        let want = if i < 16 { rect_palette(i) } else { [0, 0, 0, 0] };
        assert_eq!(clut.get((i % 16) * 8 + 3, (i / 16) * 8 + 4), want, "entry {i}");
    }
    // The report's draw 2 shows the same pictures (its texture decoded on an encoding
    // thread from a copy of the texture's bytes; texture and CLUT embedded as indexed PNG).
    let html_path = tmp("buffers-report.html");
    assert!(run(psprender().arg("report").arg(&dump).arg("-o").arg(&html_path)).status.success());
    let html = std::fs::read_to_string(&html_path).unwrap();
    let start = html.find("<section class=\"draw\" id=\"draw-2\"").unwrap();
    let end = start + html[start..].find("</section>").unwrap();
    let pics = data_uris(&html[start..end]);
    assert_eq!(pics.len(), 5, "colour, depth, stencil, texture, CLUT");
    assert!(pics[0] == colour && pics[1] == depth && pics[2] == stencil, "draw 2's buffers");
    assert!(pics[3] == tex && pics[4] == clut, "draw 2's texture and CLUT");
    // After the clear (draw 1) texturing is off: no texture or CLUT picture.
    let dir1 = tmp("buffers-1");
    assert!(run(psprender().arg("replay").arg(&dump).args(["--until-draw", "1", "--buffers"]).arg(&dir1))
        .status
        .success());
    assert!(dir1.join("colour.png").exists() && !dir1.join("texture.png").exists() && !dir1.join("clut.png").exists());
}

/// Two through-mode triangles' worth of vertices: 8888 colour, s16 position.
fn triangle(colour: u32, dx: i16) -> Vec<u8> {
    let mut v = Bytes::default();
    for (x, y) in [(20 + dx, 20), (120 + dx, 30), (60 + dx, 140)] {
        v.u32(colour).i16(x).i16(y).u16(0).align(4);
    }
    v.0
}

/// Clear, then three triangles; registers set between them; `third_colour` is the colour
/// of the third triangle's vertices.
fn state_list(third_colour: u32, fixed_b: u32) -> ListBuilder {
    let mut l = ListBuilder::new();
    l.standard_setup(3);
    l.clear(0x0020_2020, 0);
    let vt = (1 << 23) | (7 << 2) | (2 << 7);
    l.cmd(op::ALPHATEST, 0x00_FF10).cmd(op::BLENDFIXEDA, 0x12_3456).cmd(op::FOGCOLOR, 0xAB_CDEF);
    l.matrix(op::WORLDMATRIXNUMBER, &[0.5, 2.0, -1.0, 0.25, 1.0, 0.0, 0.0, 0.0, 1.0, 3.0, -4.0, 8.0]);
    l.cmd(op::VERTEXTYPE, vt).vertices(&triangle(0xFF00_00FF, 0)).prim(3, 3);
    l.cmd(op::BLENDFIXEDB, fixed_b).vertices(&triangle(0xFF00_FF00, 130)).prim(3, 3);
    l.cmd(op::BLENDFIXEDA, 0x65_4321).vertices(&triangle(third_colour, 260)).prim(3, 3);
    l.finish();
    l
}

fn state_json(dump: &PathBuf, draw: u32) -> serde_json::Value {
    let out = run(psprender().arg("state").arg(dump).args(["--draw", &draw.to_string(), "--json"]));
    assert!(out.status.success());
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn state_json_holds_the_registers_the_test_wrote() {
    let dump = record(&state_list(0xFFFF_0000, 0x11_1111), ge::Model::Hardware, "state.ppdmp");
    let v = state_json(&dump, 4);
    assert_eq!(v["draw"]["draw"], 4);
    assert_eq!(v["draw"]["command"], "PRIM TRIANGLES count=3");
    assert_eq!(v["stages"]["pixel_tests"]["ALPHATEST"]["arg"], 0x00_FF10);
    assert_eq!(v["stages"]["blend"]["BLENDFIXEDA"]["arg"], 0x65_4321);
    assert_eq!(v["stages"]["blend"]["BLENDFIXEDB"]["arg"], 0x11_1111);
    assert_eq!(v["stages"]["fog"]["FOGCOLOR"]["arg"], 0xAB_CDEF);
    assert_eq!(v["stages"]["fog"]["FOGCOLOR"]["text"], "r=239 g=205 b=171");
    assert_eq!(v["stages"]["vertex"]["VERTEXTYPE"]["arg"], (1 << 23) | (7 << 2) | (2 << 7));
    let world: Vec<f64> = v["matrices"]["world"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
    assert_eq!(world, [0.5, 2.0, -1.0, 0.25, 1.0, 0.0, 0.0, 0.0, 1.0, 3.0, -4.0, 8.0]);
    // The vertices as written: colour 0xFFFF0000 is (r, g, b, a) = (0, 0, 255, 255).
    let verts = v["vertices"]["vertices"].as_array().unwrap();
    assert_eq!(verts.len(), 3);
    assert_eq!(verts[0]["pos"], serde_json::json!([280.0, 20.0, 0.0]));
    assert_eq!(verts[2]["pos"], serde_json::json!([320.0, 140.0, 0.0]));
    assert_eq!(verts[1]["color"], serde_json::json!([0, 0, 255, 255]));
    // Changed since draw 3: BLENDFIXEDA (written) and VADDR (new vertex data), nothing else.
    let mut changed: Vec<String> =
        v["changed"]["registers"].as_array().unwrap().iter().map(|r| r["name"].as_str().unwrap().to_string()).collect();
    changed.sort();
    assert_eq!(changed, ["BLENDFIXEDA", "VADDR"]);
    assert_eq!(v["changed"]["matrices"], serde_json::json!([]));
    // Draw 2 sees the world matrix written before it as a change.
    let v2 = state_json(&dump, 2);
    assert_eq!(v2["changed"]["matrices"], serde_json::json!(["world"]));
    assert_eq!(v2["stages"]["blend"]["BLENDFIXEDA"]["arg"], 0x12_3456);
    // Text form names the stages and the registers through the command table.
    let out = run(psprender().arg("state").arg(&dump).args(["--draw", "4"]));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("[blend]") && text.contains("BLENDFIXEDA") && text.contains("0x654321"), "{text}");
}

#[test]
fn diff_finds_the_draw_the_test_changed() {
    let a = record(&state_list(0xFFFF_0000, 0x11_1111), ge::Model::Hardware, "diff-a.ppdmp");
    let b = record(&state_list(0xFF00_FFFF, 0x11_1111), ge::Model::Hardware, "diff-b.ppdmp");
    // Only a register no draw reads (blending is off) differs: same pixels everywhere.
    let c = record(&state_list(0xFFFF_0000, 0x22_2222), ge::Model::Hardware, "diff-c.ppdmp");
    let img = tmp("diff.png");
    let out = run(psprender().arg("diff").arg(&a).arg(&b).arg("--json").arg("-o").arg(&img));
    assert_eq!(out.status.code(), Some(1), "differing dumps exit 1");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["first_draw"], 4, "the third triangle is draw 4");
    // The third triangle's pixels, and its vertex data address (same registers otherwise).
    let n = v["colour_pixels"].as_u64().unwrap();
    assert!(n > 1000 && n < 10_000, "{n}");
    let diff = Image::load(&img).unwrap();
    assert_eq!((diff.width, diff.height), (960, 544));
    // Same dump twice: same.
    let out = run(psprender().arg("diff").arg(&a).arg(&a));
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("same:"));
    let out = run(psprender().arg("diff").arg(&a).arg(&c));
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    // Against a reference image: B's final frame (a direct run) against dump A.
    let reference = tmp("diff-ref.png");
    direct(&state_list(0xFF00_FFFF, 0x11_1111), ge::Model::Hardware).save_png(&reference).unwrap();
    let out = run(psprender().arg("diff").arg(&a).arg(&reference).arg("--json"));
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["first_draw"], 4);
    assert_eq!(v["pixels"], v["first_draw_pixels"]);
    assert_eq!(v["state"]["draw"]["draw"], 4);
    // And against its own final frame: same.
    let own = tmp("diff-own.png");
    direct(&state_list(0xFFFF_0000, 0x11_1111), ge::Model::Hardware).save_png(&own).unwrap();
    assert_eq!(run(psprender().arg("diff").arg(&a).arg(&own)).status.code(), Some(0));
}

/// Clear, one PRIM triangle, then an immediate-mode triangle (VSCX/VSCY/VCV/VAP, through
/// mode: coordinates biased by 0x8000 sixteenths) of `colour` after the last draw.
fn immediate_list(colour: u32) -> ListBuilder {
    let mut l = ListBuilder::new();
    l.standard_setup(3);
    l.clear(0x0020_2020, 0);
    l.cmd(op::VERTEXTYPE, (1 << 23) | (7 << 2) | (2 << 7)).vertices(&triangle(0xFF00_00FF, 0)).prim(3, 3);
    l.cmd(op::VCV, colour);
    // VAP: alpha 0xFF, primitive in bits 8-10: 3 (triangles) starts the list, 7 continues it
    // [ge-reference.md §17.1].
    for (x, y, ap) in [(300u32, 150u32, 0x03FF), (400, 150, 0x07FF), (300, 250, 0x07FF)] {
        l.cmd(op::VSCX, 0x8000 + 16 * x).cmd(op::VSCY, 0x8000 + 16 * y).cmd(op::VAP, ap);
    }
    l.finish();
    l
}

/// Pixels that change after the last draw (immediate-mode vertices are not draws) are still
/// a difference: `diff` says so instead of "same".
#[test]
fn diff_sees_pixels_changed_after_the_last_draw() {
    let a = record(&immediate_list(0x00_00FF), ge::Model::Hardware, "imm-a.ppdmp");
    let b = record(&immediate_list(0x00_FF00), ge::Model::Hardware, "imm-b.ppdmp");
    // The independent side: the two direct runs differ on the immediate triangle only.
    let (da, db) = (
        direct(&immediate_list(0x00_00FF), ge::Model::Hardware),
        direct(&immediate_list(0x00_FF00), ge::Model::Hardware),
    );
    assert_ne!(da.get(320, 170), db.get(320, 170), "the immediate triangle is drawn");
    assert_eq!(da.get(60, 60), db.get(60, 60));
    let out = run(psprender().arg("diff").arg(&a).arg(&b).arg("--json"));
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stdout));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["same"], false);
    assert_eq!(v["after_last_draw"], true);
    assert!(v["colour_pixels"].as_u64().unwrap() > 1000, "{v}");
    assert_eq!(run(psprender().arg("diff").arg(&a).arg(&a)).status.code(), Some(0));
}

#[test]
fn diff_under_two_models_runs_and_bad_input_is_named() {
    let dump = record(&scene("vfmt_texcoords"), ge::Model::Hardware, "models.ppdmp");
    let out = run(psprender().arg("diff").arg(&dump).args(["--models", "hardware,ppsspp", "--json"]));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    match out.status.code() {
        Some(0) => assert_eq!(v["same"], true),
        Some(1) => assert!(v["first_draw"].as_u64().unwrap() >= 1),
        c => panic!("exit {c:?}"),
    }
    // A truncated dump: the error names the file; no panic.
    let bytes = std::fs::read(&dump).unwrap();
    let bad = tmp("truncated.ppdmp");
    std::fs::write(&bad, &bytes[..bytes.len() / 2]).unwrap();
    for args in [vec!["state", "--draw", "1"], vec!["diff", "--models", "hardware,ppsspp"], vec!["report", "-o"]] {
        let mut c = psprender();
        c.arg(args[0]).arg(&bad).args(&args[1..]);
        if args[0] == "report" {
            c.arg(tmp("bad.html"));
        }
        let out = run(&mut c);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("truncated.ppdmp") && !err.contains("panicked"), "{args:?}: {err}");
    }
    assert!(!tmp("bad.html").exists(), "no report for a bad dump");
}

/// `src="data:image/png;base64,..."` values inside `html` after `from`, up to `to`.
fn data_uris(html: &str) -> Vec<Image> {
    use base64::Engine as _;
    html.split("src=\"data:image/png;base64,")
        .skip(1)
        .map(|rest| {
            let b64 = &rest[..rest.find('"').unwrap()];
            Image::from_bytes(&base64::engine::general_purpose::STANDARD.decode(b64).unwrap()).unwrap()
        })
        .collect()
}

#[test]
fn report_images_decode_and_match_the_cli() {
    let list = state_list(0xFFFF_0000, 0x11_1111);
    let dump = record(&list, ge::Model::Hardware, "report.ppdmp");
    let html_path = tmp("report.html");
    let out = run(psprender().arg("report").arg(&dump).arg("-o").arg(&html_path));
    assert!(out.status.success());
    let html = std::fs::read_to_string(&html_path).unwrap();
    assert!(!html.contains("http://") && !html.contains("https://"), "no network references");
    // Final frame: the first picture, equal to a plain replay's screenshot.
    let all = data_uris(&html);
    let plain = replay_png(&dump, &[], "report-plain.png");
    assert!(all[0] == plain, "final frame");
    // 4 draws, fewer than the keyframe limit: every draw has a thumbnail and a section.
    for n in 1..=4u32 {
        assert!(html.contains(&format!("class=\"thumb\" data-draw=\"{n}\"")), "thumbnail {n}");
        let start = html.find(&format!("<section class=\"draw\" id=\"draw-{n}\"")).unwrap();
        let end = start + html[start..].find("</section>").unwrap();
        let pics = data_uris(&html[start..end]);
        let dir = tmp(&format!("report-{n}"));
        assert!(run(psprender()
            .arg("replay")
            .arg(&dump)
            .args(["--until-draw", &n.to_string(), "--buffers"])
            .arg(&dir))
        .status
        .success());
        let names = ["colour", "depth", "stencil"];
        assert_eq!(pics.len(), names.len(), "draw {n}: untextured draws have three pictures");
        for (pic, name) in pics.iter().zip(names) {
            let cli = Image::load(dir.join(format!("{name}.png"))).unwrap();
            assert!(*pic == cli, "draw {n} {name}");
        }
        assert!(html[start..end].contains(&format!("Draw {n}: PRIM")));
    }
    // The disassembly marks the draws.
    assert!(html.contains("◀ draw 4"));
}

#[path = "debugger/cdp.rs"]
mod cdp;

/// The report in a real browser: load it headless, click draw 2's thumbnail with a real mouse
/// event, and check the page then shows draw 2's state and its colour buffer (the same
/// pixels `replay --until-draw 2 --buffers` writes). Saves a screenshot of the page.
#[test]
fn report_in_chromium_shows_the_clicked_draw() {
    let Some(chromium) = cdp::find_chromium() else {
        eprintln!("skipping: no chromium on PATH (.ci/run installs it from the OS packages when it can)");
        return;
    };
    let dump = record(&state_list(0xFFFF_0000, 0x11_1111), ge::Model::Hardware, "browser.ppdmp");
    let html = tmp("browser.html");
    assert!(run(psprender().arg("report").arg(&dump).arg("-o").arg(&html)).status.success());
    let dir = tmp("browser-2");
    assert!(run(psprender().arg("replay").arg(&dump).args(["--until-draw", "2", "--buffers"]).arg(&dir))
        .status
        .success());
    let cli_colour = Image::load(dir.join("colour.png")).unwrap();

    let mut b = cdp::Browser::launch(&chromium, tmp("chromium-profile")).unwrap();
    let url = format!("file://{}", html.canonicalize().unwrap().display());
    b.open(&url).unwrap();
    let visible =
        "JSON.stringify([...document.querySelectorAll('section.draw')].filter(s => !s.hidden).map(s => s.id))";
    assert_eq!(b.eval(visible).unwrap(), "[\"draw-4\"]", "the last draw shows first");
    let centre = b
        .eval(
            "(() => { const t = document.querySelector('.thumb[data-draw=\"2\"] img'); t.scrollIntoView(); \
             const r = t.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()",
        )
        .unwrap();
    let (x, y) = (centre[0].as_f64().unwrap(), centre[1].as_f64().unwrap());
    b.click(x, y).unwrap();
    assert_eq!(b.eval(visible).unwrap(), "[\"draw-2\"]", "clicking draw 2's thumbnail shows draw 2");
    let title = b.eval("document.querySelector('#draw-2 h2').innerText").unwrap();
    assert_eq!(title, "Draw 2: PRIM TRIANGLES count=3");
    let state = b.eval("document.querySelector('#draw-2 pre.state').innerText").unwrap();
    let state = state.as_str().unwrap();
    assert!(state.contains("BLENDFIXEDA") && state.contains("0x123456") && state.contains("matrix world"), "{state}");
    // The colour picture on screen: decoded by the browser, drawn, same pixels as the CLI's.
    let shown = b
        .eval(
            "(() => { const i = document.querySelector('#draw-2 img[data-name=\"colour\"]'); \
             const r = i.getBoundingClientRect(); \
             return [i.complete, i.naturalWidth, i.naturalHeight, r.width > 0 && r.height > 0, i.src]; })()",
        )
        .unwrap();
    assert_eq!(shown[0], true);
    assert_eq!((shown[1].as_u64(), shown[2].as_u64()), (Some(480), Some(272)));
    assert_eq!(shown[3], true, "the picture is laid out on the page");
    use base64::Engine as _;
    let src = shown[4].as_str().unwrap().strip_prefix("data:image/png;base64,").unwrap();
    let img = Image::from_bytes(&base64::engine::general_purpose::STANDARD.decode(src).unwrap()).unwrap();
    assert!(img == cli_colour, "the shown colour buffer is draw 2's");
    let thumb_selected = b.eval("document.querySelector('.thumb.selected').dataset.draw").unwrap();
    assert_eq!(thumb_selected, "2");
    b.eval("window.scrollTo(0, 0)").unwrap();
    let shot = b.screenshot().unwrap();
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("debugger-report-chromium.png");
    std::fs::write(&path, shot).unwrap();
    eprintln!("report screenshot: {}", path.display());
}

/// The picture budget on a dump of full-screen changes: 24 clears, each a new colour, depth
/// and stencil picture (3 × 480 × 272 pixels), pass the budget after a few keyframes
/// (1 600 000 + 20 000 per draw), so some scheduled keyframes are left out, the page says
/// so, the last draw keeps its keyframe, and the page is the same byte for byte whatever
/// the number of threads.
#[test]
fn picture_budget_leaves_out_keyframes_the_same_way_on_any_thread_count() {
    let mut l = ListBuilder::new();
    l.standard_setup(3);
    for i in 0..24u32 {
        l.clear(((i * 10) << 24) | (i * 0x0A_0B0C), (i * 1000) as u16);
    }
    l.finish();
    let dump = record(&l, ge::Model::Hardware, "budget.ppdmp");
    let report = |threads: &str| {
        let path = tmp(&format!("budget-{threads}.html"));
        let out = run(psprender().env("RAYON_NUM_THREADS", threads).arg("report").arg(&dump).arg("-o").arg(&path));
        assert!(out.status.success());
        std::fs::read_to_string(&path).unwrap()
    };
    let html = report("1");
    assert!(html == report("2"), "identical pages for 1 and 2 threads");
    let thumbs: Vec<u32> = html
        .split("class=\"thumb\" data-draw=\"")
        .skip(1)
        .map(|rest| rest[..rest.find('"').unwrap()].parse().unwrap())
        .collect();
    // Without the budget: every 2nd draw (24 draws, at most 16 keyframes) = 12 keyframes.
    assert!(thumbs.len() < 12 && thumbs.len() >= 4, "keyframes kept: {thumbs:?}");
    assert_eq!(thumbs.last(), Some(&24), "the last draw keeps its keyframe");
    let left_out = 12 - thumbs.len();
    assert!(html.contains(&format!("({left_out} of those left out by the picture budget)")), "the page says how many");
}
