//! `psprender view` end to end: the real window loop under an X server, its screen read back
//! from the window, compared with what `psprender render` writes for the same arguments.
//!
//! The test starts its own `Xvfb` (display number chosen by Xvfb via `-displayfd`) when the
//! binary exists; otherwise it uses `$DISPLAY` if set, and skips with a message when there is
//! no X server at all. Models and animations are made here with the library's writers.

use ge::vertex::VertexLayout;
use psprender::pam::{Animation, BoneChannels, Channel, ChannelKind, Keys, Pam};
use psprender::pmo::{Header, Joint, Pmo, Section, Skeleton, TextureInfo, NO_JOINT};
use psprender::tim2::{Picture, Tim2};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

fn psprender() -> Command {
    Command::new(env!("CARGO_BIN_EXE_psprender"))
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("psprender-viewer-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

/// An X server for the test: our own Xvfb (killed on drop) or the session's display.
/// Tests hold one at a time (`_lock`): parallel servers and windows made the viewer's start-up
/// flaky on the 2-core machine (seen once in ~40 runs: the viewer exited before mapping).
struct XServer {
    display: String,
    child: Option<Child>,
    _lock: std::sync::MutexGuard<'static, ()>,
}

static X_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

impl Drop for XServer {
    fn drop(&mut self) {
        if let Some(c) = &mut self.child {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

fn x_server() -> Option<XServer> {
    let lock = X_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    // `-displayfd 1`: Xvfb picks a free display and prints its number on stdout once it
    // accepts connections. The screen is larger than a ×3 window: X11 GetImage needs the
    // whole window on screen. `-noreset`: by default the server resets when its last client
    // disconnects, and a viewer started during that reset failed with "Failed to open
    // connection to X server" (seen twice under load, each between two `view` runs).
    match Command::new("Xvfb")
        .args(["-displayfd", "1", "-screen", "0", "2048x1536x24", "-nolisten", "tcp", "-noreset"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
    {
        Ok(mut child) => {
            let mut line = String::new();
            let read = child.stdout.take().map(|o| BufReader::new(o).read_line(&mut line));
            let n = line.trim();
            if matches!(read, Some(Ok(_))) && !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) {
                return Some(XServer { display: format!(":{n}"), child: Some(child), _lock: lock });
            }
            let _ = child.kill();
            let _ = child.wait();
            eprintln!("skipping: Xvfb started but reported no display ({line:?})");
            None
        }
        Err(e) => match std::env::var("DISPLAY") {
            Ok(d) if !d.is_empty() => Some(XServer { display: d, child: None, _lock: lock }),
            _ => {
                eprintln!("skipping: no Xvfb binary ({e}) and no DISPLAY; install xvfb to run the viewer test");
                None
            }
        },
    }
}

fn vtype(tc: u32, col: u32, pos: u32, wt: u32, wcount: u32) -> u32 {
    tc | col << 2 | pos << 7 | wt << 9 | (wcount.max(1) - 1) << 14
}

/// One vertex: weights (128 = 1.0), uv, rgba, xyz.
type Vert = ([u8; 2], [f32; 2], [u8; 4], [f32; 3]);

/// Vertex bytes for `layout`.
fn vertices(layout: &VertexLayout, v: &[Vert]) -> Vec<u8> {
    let stride = layout.stride as usize;
    let mut out = vec![0u8; stride * v.len()];
    for (i, (w, uv, rgba, p)) in v.iter().enumerate() {
        let b = &mut out[i * stride..(i + 1) * stride];
        if layout.vtype.has_weights() {
            let o = layout.weight_offset as usize;
            b[o..o + 2].copy_from_slice(w);
        }
        if layout.vtype.has_texcoord() {
            let o = layout.texcoord_offset as usize;
            b[o..o + 4].copy_from_slice(&uv[0].to_le_bytes());
            b[o + 4..o + 8].copy_from_slice(&uv[1].to_le_bytes());
        }
        let o = layout.color_offset as usize;
        b[o..o + 4].copy_from_slice(rgba);
        let o = layout.position_offset as usize;
        for k in 0..3 {
            b[o + 4 * k..o + 4 * k + 4].copy_from_slice(&p[k].to_le_bytes());
        }
    }
    out
}

fn section(vt: u32, prim: u32, texture: u8, verts: Vec<u8>, stride: u32) -> Section {
    Section {
        texture_id: texture,
        vertex_size: stride as u8,
        vertex_flags: vt | prim << 28,
        group: 0,
        attribute: 0,
        joints: Some([0, 1, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
        diffuse: None,
        strips: Vec::new(),
        vertices: verts,
    }
}

fn matrix(translate_y: f32) -> [f32; 16] {
    let mut m = [1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1.];
    m[13] = translate_y;
    m
}

/// Two joints (root at the origin, joint 1 one unit up); a skinned arm of two triangles whose
/// top vertices follow joint 1, a vertex-coloured triangle, and a CLUT4-textured quad.
fn model() -> Pmo {
    let skinned = VertexLayout::new(vtype(0, 7, 3, 1, 2));
    let arm = vertices(
        &skinned,
        &[
            ([128, 0], [0.0; 2], [255, 60, 60, 255], [-0.2, 0.0, 0.0]),
            ([128, 0], [0.0; 2], [255, 60, 60, 255], [0.2, 0.0, 0.0]),
            ([0, 128], [0.0; 2], [60, 255, 60, 255], [0.2, 1.5, 0.0]),
            ([128, 0], [0.0; 2], [255, 60, 60, 255], [-0.2, 0.0, 0.0]),
            ([0, 128], [0.0; 2], [60, 255, 60, 255], [0.2, 1.5, 0.0]),
            ([0, 128], [0.0; 2], [60, 60, 255, 255], [-0.2, 1.5, 0.0]),
        ],
    );
    let plain = VertexLayout::new(vtype(0, 7, 3, 0, 1));
    let tri = vertices(
        &plain,
        &[
            ([0; 2], [0.0; 2], [255, 255, 0, 255], [-1.2, -0.5, -0.3]),
            ([0; 2], [0.0; 2], [0, 255, 255, 255], [-0.4, -0.5, 0.2]),
            ([0; 2], [0.0; 2], [255, 0, 255, 255], [-0.8, 0.6, 0.0]),
        ],
    );
    let textured = VertexLayout::new(vtype(3, 7, 3, 0, 1));
    let quad = vertices(
        &textured,
        &[
            ([0; 2], [0.0, 0.0], [128, 128, 128, 255], [0.5, -0.5, 0.0]),
            ([0; 2], [1.0, 0.0], [128, 128, 128, 255], [1.3, -0.5, 0.0]),
            ([0; 2], [0.0, 1.0], [128, 128, 128, 255], [0.5, 0.5, 0.0]),
            ([0; 2], [1.0, 1.0], [128, 128, 128, 255], [1.3, 0.5, 0.0]),
        ],
    );
    // 8×8 checker of CLUT entries 1 and 2 (4-bit indices, low nibble first).
    let image: Vec<u8> = (0..32).map(|i| if (i / 4 + i % 4) % 2 == 0 { 0x12 } else { 0x21 }).collect();
    let mut clut = vec![0u8; 64];
    clut[4..8].copy_from_slice(&[250, 200, 40, 255]);
    clut[8..12].copy_from_slice(&[30, 40, 200, 255]);
    let tim2 = Tim2 {
        version: 4,
        format: 0,
        reserved: [0; 8],
        pictures: vec![Picture {
            clut_colors: 16,
            picture_format: 0,
            mipmaps: 1,
            clut_type: 3,
            image_type: 4,
            width: 8,
            height: 8,
            gs_tex0: 0,
            gs_tex1: 0,
            gs_regs: 0,
            gs_clut: 0,
            ext_header: vec![],
            image,
            clut,
        }],
    }
    .to_bytes()
    .unwrap();
    let joint = |i: u32, parent: u32, y: f32, inv_y: f32| Joint {
        index: i,
        parent,
        skin_index: i,
        reserved: 0,
        name: *b"joint\0\0\0\0\0\0\0\0\0\0\0",
        local: matrix(y),
        inverse_global: matrix(inv_y),
    };
    let mut m = Pmo {
        header: Header { flag: 0, ..Header::new(1.0) },
        textures: vec![TextureInfo::new("checker", Some(tim2))],
        meshes: [
            vec![
                section(skinned.vtype.raw, 3, 0, arm, skinned.stride),
                section(plain.vtype.raw, 3, 0, tri, plain.stride),
            ],
            vec![section(textured.vtype.raw, 4, 0, quad, textured.stride)],
        ],
        skeleton: Some(Skeleton {
            unknown: 0,
            skinned_count: 2,
            skin_start: 0,
            joints: vec![joint(0, NO_JOINT, 0.0, 0.0), joint(1, 0, 1.0, -1.0)],
        }),
        file_size: 0,
    };
    m.pack();
    m
}

/// One animation, 10 frames at 30 fps: bone 1 turns about Z from 0 to 1 radian.
fn pam() -> Pam {
    let mut b1 = BoneChannels::default();
    b1.channels[ChannelKind::RotationZ as usize] =
        Some(Channel { max: 1.0, min: 0.0, keys: Keys::Full((0..10).map(|f| (f * 65535 / 9) as u16).collect()) });
    Pam::new(vec![Animation::new("bend", 30, 10, vec![BoneChannels::default(), b1])])
}

fn run(cmd: &mut Command) {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}\n{}",
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    );
}

/// `view … --exit-after-frames 3 --screenshot` and `render … -o` with the same scene args
/// must write byte-identical PNGs; returns the PNG.
fn view_equals_render(x: &XServer, model: &Path, args: &[&str], tag: &str) -> Vec<u8> {
    let a = tmp(&format!("{tag}-view.png"));
    let b = tmp(&format!("{tag}-render.png"));
    run(psprender()
        .env("DISPLAY", &x.display)
        .arg("view")
        .arg(model)
        .args(args)
        .args(["--exit-after-frames", "3", "--screenshot"])
        .arg(&a));
    run(psprender().arg("render").arg(model).args(args).arg("-o").arg(&b));
    let (pa, pb) = (std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    let (ia, ib) = (ge::display::Image::from_png(&pa).unwrap(), ge::display::Image::from_png(&pb).unwrap());
    assert_eq!((ia.width, ia.height), (480, 272));
    let differing = ia.rgba.chunks_exact(4).zip(ib.rgba.chunks_exact(4)).filter(|(p, q)| p != q).count();
    assert_eq!(differing, 0, "{tag}: {differing} pixels differ between the window and render");
    assert_eq!(pa, pb, "{tag}: PNG bytes differ");
    pa
}

#[test]
fn window_shows_exactly_what_render_writes() {
    let Some(x) = x_server() else { return };
    let model_path = tmp("model.pmo");
    std::fs::write(&model_path, model().to_bytes().unwrap()).unwrap();
    let pam_path = tmp("bend.pam");
    std::fs::write(&pam_path, pam().to_bytes().unwrap()).unwrap();
    let m = model_path.as_path();

    let bind = view_equals_render(&x, m, &["--yaw", "30"], "bind");
    // The picture is not just the background: several colours made it to the window.
    let img = ge::display::Image::from_png(&bind).unwrap();
    let mut colours: Vec<[u8; 4]> = img.rgba.chunks_exact(4).map(|p| [p[0], p[1], p[2], p[3]]).collect();
    colours.sort_unstable();
    colours.dedup();
    assert!(colours.len() > 20, "only {} colours", colours.len());

    // Posed by the PAM at a fractional frame: the window agrees with render, and the pose
    // changed the picture.
    let posed =
        view_equals_render(&x, m, &["--yaw", "30", "--pam", pam_path.to_str().unwrap(), "--frame", "6.5"], "posed");
    assert_ne!(posed, bind);

    // Options reach the GE the same way: wireframe, one mesh list, 5551 framebuffer, ×3 window.
    view_equals_render(&x, m, &["--yaw", "-50", "--pitch", "20", "--wireframe", "--list", "0"], "wire");
    view_equals_render(&x, m, &["--format", "5551", "--distance", "6", "--list", "1", "--section", "0"], "fmt");
}

#[test]
fn window_scale_three_reads_back_the_same_screen() {
    let Some(x) = x_server() else { return };
    let model_path = tmp("model3.pmo");
    std::fs::write(&model_path, model().to_bytes().unwrap()).unwrap();
    let a = tmp("scale3.png");
    let b = tmp("scale3-render.png");
    run(psprender()
        .env("DISPLAY", &x.display)
        .arg("view")
        .arg(&model_path)
        .args(["--scale", "3", "--yaw", "10", "--exit-after-frames", "2", "--screenshot"])
        .arg(&a));
    run(psprender().arg("render").arg(&model_path).args(["--yaw", "10", "-o"]).arg(&b));
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
}

#[test]
fn view_without_a_display_fails_cleanly() {
    let model_path = tmp("model-nodisplay.pmo");
    std::fs::write(&model_path, model().to_bytes().unwrap()).unwrap();
    let out = psprender()
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .arg("view")
        .arg(&model_path)
        .args(["--exit-after-frames", "1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("viewing") && err.contains("no display") && !err.contains(".rs:"), "{err}");
}

// ---- Real input through the X server -------------------------------------------------------
//
// xdotool types and clicks with XTEST, so the events reach the viewer exactly as a keyboard's
// and a mouse's would. Keyboard events go to the window with the X input focus; with no window
// manager (a bare Xvfb) nothing ever gives the new window that focus and winit drops every key
// (winit 0.30 x11/event_processor.rs `xinput_key_input`: no `active_window` until an XI_FocusIn),
// so the test sets it itself, as a window manager would, with `xdotool windowfocus` (XSetInputFocus).

use psprender::viewer::draw::{Canvas, BONE_COLOUR, JOINT_COLOUR};
use std::time::{Duration, Instant};
use x11rb::connection::Connection;
use x11rb::protocol::xproto::{ConnectionExt, ImageFormat};

/// Longest wait for anything the viewer does in response to one input.
const STEP: Duration = Duration::from_secs(10);

/// Retry `f` every 20 ms until it returns `Some`, for at most `STEP`.
fn poll<T>(what: &str, mut f: impl FnMut() -> Option<T>) -> T {
    let end = Instant::now() + STEP;
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(Instant::now() < end, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Run xdotool on `display` (killed after `STEP`); its stdout when it succeeds.
fn xdotool(display: &str, args: &[&str]) -> Option<String> {
    let mut child = Command::new("xdotool")
        .args(args)
        .env("DISPLAY", display)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let end = Instant::now() + STEP;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                let mut out = String::new();
                let _ = child.stdout.take().map(|mut o| std::io::Read::read_to_string(&mut o, &mut out));
                return status.success().then_some(out);
            }
            Ok(None) if Instant::now() < end => std::thread::sleep(Duration::from_millis(10)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("xdotool {args:?} hung");
            }
        }
    }
}

/// The viewer process, killed if the test fails before it quits.
struct Viewer(Child);

impl Drop for Viewer {
    fn drop(&mut self) {
        if let Ok(None) = self.0.try_wait() {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

/// The window's pixels (`0x00RRGGBB`, row-major) read with X11 GetImage; `None` while the
/// window is not viewable yet.
fn window_pixels(conn: &impl Connection, window: u32, width: u16, height: u16) -> Option<Vec<u32>> {
    let reply = conn.get_image(ImageFormat::Z_PIXMAP, window, 0, 0, width, height, !0).ok()?.reply().ok()?;
    // A depth-24 TrueColor ZPixmap holds 32-bit little-endian pixels, blue in the low byte.
    let n = usize::from(width) * usize::from(height);
    (reply.depth == 24 && reply.data.len() == n * 4)
        .then(|| reply.data.chunks_exact(4).map(|p| u32::from_le_bytes([p[0], p[1], p[2], 0])).collect())
}

/// The status line is white 8×8 glyphs with their top-left at (6, 6) (`App::paint`): which
/// pixels of character cell `i` are white, one byte per row.
fn status_cell(px: &[u32], width: usize, i: usize) -> [u8; 8] {
    let mut rows = [0u8; 8];
    for (gy, row) in rows.iter_mut().enumerate() {
        for gx in 0..8 {
            if px.get((6 + gy) * width + 6 + 8 * i + gx) == Some(&0xFF_FFFF) {
                *row |= 1 << gx;
            }
        }
    }
    rows
}

/// The same for character `c` drawn by the viewer's own text routine.
fn glyph(c: char) -> [u8; 8] {
    let mut buf = vec![0u32; 20 * 20];
    Canvas { px: &mut buf, width: 20, height: 20 }.text(6, 6, &c.to_string(), 0xFF_FFFF, 0);
    status_cell(&buf, 20, 0)
}

fn overlay_pixels(px: &[u32]) -> usize {
    px.iter().filter(|&&p| p == JOINT_COLOUR || p == BONE_COLOUR).count()
}

/// Whether xdotool runs (else the test says why it skips).
fn has_xdotool(x: &XServer) -> bool {
    let ok =
        Command::new("xdotool").arg("version").env("DISPLAY", &x.display).output().is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("skipping: no xdotool; install xdotool to drive the viewer with real input");
    }
    ok
}

/// `view FILE ARGS --screenshot-dir DIR` running, and its window once it appears (the title
/// names the file, whose path is unique to this test run).
fn spawn_viewer(x: &XServer, file: &Path, args: &[&str], dir: &Path) -> (Viewer, u32) {
    let mut viewer = Viewer(
        psprender()
            .env("DISPLAY", &x.display)
            .arg("view")
            .arg(file)
            .args(args)
            .arg("--screenshot-dir")
            .arg(dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let name = file.display().to_string();
    let wid: u32 = poll("the viewer window", || {
        if let Ok(Some(status)) = viewer.0.try_wait() {
            let mut err = String::new();
            let _ = viewer.0.stderr.take().map(|mut o| std::io::Read::read_to_string(&mut o, &mut err));
            panic!("the viewer exited ({status}) before its window appeared: {err}");
        }
        xdotool(&x.display, &["search", "--name", &name])?.lines().next()?.trim().parse().ok()
    });
    (viewer, wid)
}

/// The decoded PNG at `path` once it is completely written.
fn png_when_written(path: &Path) -> Vec<u8> {
    poll(&format!("screenshot {}", path.display()), || {
        let b = std::fs::read(path).ok()?;
        ge::display::Image::from_png(&b).ok().map(|_| b)
    })
}

#[test]
fn keys_and_mouse_drive_the_window() {
    let Some(x) = x_server() else { return };
    if !has_xdotool(&x) {
        return;
    }
    let dir = tmp("input");
    std::fs::create_dir_all(&dir).unwrap();
    let model_path = dir.join("input-model.pmo");
    std::fs::write(&model_path, model().to_bytes().unwrap()).unwrap();
    let args = ["--yaw", "30"];

    let (mut viewer, wid) = spawn_viewer(&x, &model_path, &args, &dir);
    let wids = wid.to_string();
    let (conn, _) = x11rb::connect(Some(&x.display)).unwrap();
    let (w, h) = (960u16, 544u16); // --scale 2

    // First frame on screen: the status line shows that frame's render time right away (no
    // "-.-" placeholder while paused); ms sits at characters 6-7 of "{ms:5.1} ms".
    let first = poll("the first frame with its status line", || {
        let px = window_pixels(&conn, wid, w, h)?;
        (status_cell(&px, w.into(), 6) == glyph('m') && status_cell(&px, w.into(), 7) == glyph('s')).then_some(px)
    });
    let digits: Vec<[u8; 8]> = ('0'..='9').map(glyph).collect();
    assert!(digits.contains(&status_cell(&first, w.into(), 4)), "status line has no render time");
    assert_eq!(overlay_pixels(&first), 0, "skeleton drawn before K");

    assert!(xdotool(&x.display, &["windowfocus", "--sync", &wids]).is_some(), "cannot focus the window");

    // F2: the screenshot is what render writes for the same arguments.
    let plain = tmp("input-render.png");
    run(psprender().arg("render").arg(&model_path).args(args).arg("-o").arg(&plain));
    xdotool(&x.display, &["key", "F2"]).unwrap();
    let shot1 = png_when_written(&dir.join("view-0001.png"));
    assert_eq!(shot1, std::fs::read(&plain).unwrap(), "F2 screenshot differs from render");

    // K: the skeleton overlay appears in the window.
    xdotool(&x.display, &["key", "k"]).unwrap();
    poll("the skeleton overlay after K", || (overlay_pixels(&window_pixels(&conn, wid, w, h)?) > 20).then_some(()));

    // W: wireframe, as render --wireframe draws it.
    let wire = tmp("input-render-wire.png");
    run(psprender().arg("render").arg(&model_path).args(args).arg("--wireframe").arg("-o").arg(&wire));
    xdotool(&x.display, &["key", "w", "F2"]).unwrap();
    let shot2 = png_when_written(&dir.join("view-0002.png"));
    assert_eq!(shot2, std::fs::read(&wire).unwrap(), "wireframe screenshot differs from render --wireframe");

    // Left drag orbits, the wheel zooms: each changes the picture.
    let drag = ["mousemove", "--window", &wids, "480", "272", "mousedown", "1"];
    xdotool(&x.display, &drag).unwrap();
    xdotool(&x.display, &["mousemove", "--window", &wids, "560", "300", "mouseup", "1", "key", "F2"]).unwrap();
    let shot3 = png_when_written(&dir.join("view-0003.png"));
    assert_ne!(shot3, shot2, "left drag did not orbit");
    xdotool(&x.display, &["click", "4", "click", "4", "key", "F2"]).unwrap();
    let shot4 = png_when_written(&dir.join("view-0004.png"));
    assert_ne!(shot4, shot3, "wheel did not zoom");

    // Q quits cleanly.
    xdotool(&x.display, &["key", "q"]).unwrap();
    let status = poll("the viewer to quit after Q", || viewer.0.try_wait().ok().flatten());
    let mut out = String::new();
    let _ = viewer.0.stdout.take().map(|mut o| std::io::Read::read_to_string(&mut o, &mut out));
    let mut err = String::new();
    let _ = viewer.0.stderr.take().map(|mut o| std::io::Read::read_to_string(&mut o, &mut err));
    assert!(status.success(), "viewer failed: {err}");
    assert_eq!(out.matches("saved ").count(), 4, "{out}");
}

// ---- PopCap PAM -----------------------------------------------------------------------------

use psprender::popcap::synth::{anim, append, frame, image, mv, sprite, test_pixels};
use psprender::popcap::Name;

/// Version 6, 120×80, 30 fps, four frames: labels "start"@0 and "end"@2, STOP on 1 and 3;
/// layer 0 = image 0 (`tile_24x16`) moving right 10 px a frame, layer 5 = image 1
/// (`mark_12x12`) fixed at (70, 40), coloured orange.
fn popcap_anim() -> Vec<u8> {
    let v = 6;
    let frames = (0..4)
        .map(|f| {
            let appends = if f == 0 { vec![append(0, 0, false), append(5, 1, false)] } else { vec![] };
            let mut fixed = mv(5, 70.0, 40.0);
            fixed.color = (f == 0).then_some([255, 160, 40, 255]);
            let mut fr = frame(appends, vec![mv(0, 10.0 + 10.0 * f64::from(f), 20.0), fixed]);
            fr.label = [Some("start"), None, Some("end"), None][f as usize].map(Name::new);
            fr.stop = f % 2 == 1;
            fr
        })
        .collect();
    let mut a =
        anim(v, vec![image("tile_24x16", 24, 16, v), image("mark_12x12", 12, 12, v)], vec![], sprite(v, "m", frames));
    a.size = [120 * 20, 80 * 20];
    a.to_bytes().unwrap()
}

/// A folder with `tile.png`, the test picture of image 0 (image 1 stays a placeholder).
fn popcap_images(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let p = test_pixels(0, 24, 16);
    let img = ge::display::Image { width: p.width, height: p.height, rgba: p.rgba };
    std::fs::write(dir.join("tile_24x16.png"), psprender::popcap::encode::png_bytes(&img).unwrap()).unwrap();
}

/// `view FILE.pam ARGS VIEW_ARGS --exit-after-frames 3 --screenshot` (read back from the
/// window) and `popcap FILE.pam ARGS RENDER_ARGS --render` write the same PNG bytes.
fn pam_view_equals_render(
    x: &XServer,
    pam: &Path,
    args: &[&str],
    (view_args, render_args): (&[&str], &[&str]),
    tag: &str,
) -> Vec<u8> {
    let a = tmp(&format!("{tag}-view.png"));
    let b = tmp(&format!("{tag}-render.png"));
    run(psprender()
        .env("DISPLAY", &x.display)
        .arg("view")
        .arg(pam)
        .args(args)
        .args(view_args)
        .args(["--exit-after-frames", "3", "--screenshot"])
        .arg(&a));
    run(psprender().arg("popcap").arg(pam).args(args).args(render_args).arg("--render").arg(&b));
    let (pa, pb) = (std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    assert_eq!(pa, pb, "{tag}: the window differs from popcap --render");
    pa
}

#[test]
fn popcap_window_shows_exactly_what_popcap_render_writes() {
    let Some(x) = x_server() else { return };
    let pam = tmp("anim-popcap.pam");
    std::fs::write(&pam, popcap_anim()).unwrap();
    let images = tmp("popcap-images");
    popcap_images(&images);
    let p = pam.as_path();
    let img = images.to_str().unwrap();
    // The window holds no alpha: an opaque background makes every pixel alpha 255.
    let bg = ["--background", "203040"];
    let none: &[&str] = &[];
    let start = pam_view_equals_render(&x, p, &[&bg[..], &["--label", "start"]].concat(), (none, none), "start");
    let end = pam_view_equals_render(&x, p, &[&bg[..], &["--label", "end"]].concat(), (none, none), "end");
    assert_ne!(start, end, "the labels show different frames");
    let f0 = pam_view_equals_render(&x, p, &[&bg[..], &["--images", img]].concat(), (none, &["--frame", "0"]), "img");
    assert_ne!(f0, start, "the PNG image replaced the placeholder");
    let sized = [&bg[..], &["--images", img, "--size", "200x90", "--nearest"]].concat();
    let frame1 = (&["--start-frame", "1"][..], &["--frame", "1"][..]);
    let big = pam_view_equals_render(&x, p, &sized, frame1, "sized");
    let decoded = ge::display::Image::from_png(&big).unwrap();
    assert_eq!((decoded.width, decoded.height), (200, 90));
}

#[test]
fn popcap_view_rejects_model_options_and_bad_files() {
    let pam = tmp("anim-popcap-bad.pam");
    let bytes = popcap_anim();
    std::fs::write(&pam, &bytes).unwrap();
    let fail = |args: &[&str]| {
        let out = psprender().env("DISPLAY", ":9999").arg("view").args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let p = pam.to_str().unwrap();
    let e = fail(&[p, "--wireframe", "--section", "1"]);
    assert!(e.contains("is a PopCap PAM") && e.contains("--section, --wireframe"), "{e}");
    let e = fail(&[p, "--label", "middle"]);
    assert!(e.contains("no label \"middle\"") && e.contains("start, end"), "{e}");
    let e = fail(&[p, "--start-frame", "4"]);
    assert!(e.contains("past the main sprite's 4 frames"), "{e}");
    // Truncated: the parser's offset reaches the message.
    let cut = tmp("anim-popcap-cut.pam");
    std::fs::write(&cut, &bytes[..bytes.len() - 3]).unwrap();
    let e = fail(&[cut.to_str().unwrap()]);
    assert!(e.contains("parsing") && e.contains("truncated at offset"), "{e}");
    // PopCap options on a model.
    let model_path = tmp("model-popcap-opts.pmo");
    std::fs::write(&model_path, model().to_bytes().unwrap()).unwrap();
    let e = fail(&[model_path.to_str().unwrap(), "--images", "."]);
    assert!(e.contains("options for PopCap PAMs only: --images"), "{e}");
}

#[test]
fn popcap_keys_drive_the_window() {
    let Some(x) = x_server() else { return };
    if !has_xdotool(&x) {
        return;
    }
    let dir = tmp("popcap-input");
    std::fs::create_dir_all(&dir).unwrap();
    let pam = dir.join("keys-popcap.pam");
    std::fs::write(&pam, popcap_anim()).unwrap();
    let (mut viewer, wid) = spawn_viewer(&x, &pam, &[], &dir);
    let wids = wid.to_string();
    let (conn, _) = x11rb::connect(Some(&x.display)).unwrap();
    let (w, h) = (240u16, 160u16); // the 120×80 canvas at --scale 2
    poll("the first frame with its status line", || {
        let px = window_pixels(&conn, wid, w, h)?;
        (status_cell(&px, w.into(), 6) == glyph('m') && status_cell(&px, w.into(), 7) == glyph('s')).then_some(())
    });
    assert!(xdotool(&x.display, &["windowfocus", "--sync", &wids]).is_some(), "cannot focus the window");
    let render = |tag: &str, args: &[&str]| {
        let out = tmp(&format!("popcap-keys-{tag}.png"));
        run(psprender().arg("popcap").arg(&pam).args(args).arg("--render").arg(&out));
        std::fs::read(&out).unwrap()
    };

    // Right, F2: frame 1, as `popcap --frame 1 --render` draws it (transparent, alpha kept).
    xdotool(&x.display, &["key", "Right", "F2"]).unwrap();
    let shot1 = png_when_written(&dir.join("view-0001.png"));
    assert_eq!(shot1, render("f1", &["--frame", "1"]), "Right + F2 differs from popcap --frame 1");
    // ] ]: clip "end" (after "start"), as `popcap --label end --render`.
    xdotool(&x.display, &["key", "bracketright", "bracketright", "F2"]).unwrap();
    let shot2 = png_when_written(&dir.join("view-0002.png"));
    assert_eq!(shot2, render("end", &["--label", "end"]), "] ] + F2 differs from popcap --label end");
    // 1: the first main layer (layer 0) disappears.
    xdotool(&x.display, &["key", "1", "p"]).unwrap();
    let shot3 = png_when_written(&dir.join("view-0003.png"));
    assert_ne!(shot3, shot2, "digit 1 hid nothing");
    // K: outlines in the window.
    let outline = psprender::viewer::popcap::OUTLINE_COLOUR;
    xdotool(&x.display, &["key", "k"]).unwrap();
    poll("the outlines after K", || {
        (window_pixels(&conn, wid, w, h)?.iter().filter(|&&p| p == outline).count() > 20).then_some(())
    });
    xdotool(&x.display, &["key", "q"]).unwrap();
    let status = poll("the viewer to quit after Q", || viewer.0.try_wait().ok().flatten());
    let mut out = String::new();
    let _ = viewer.0.stdout.take().map(|mut o| std::io::Read::read_to_string(&mut o, &mut out));
    assert!(status.success());
    assert_eq!(out.matches("saved ").count(), 3, "{out}");
}
