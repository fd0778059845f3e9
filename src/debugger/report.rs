//! `psprender report`: one self-contained HTML file (no network: images are embedded as
//! base64 PNG data URIs) with the final frame, a timeline of thumbnails after every Nth
//! draw, each of those draws' buffers and grouped state, every draw's changes, and the
//! disassembly with draw boundaries. The page is a minijinja template
//! (`report.html.jinja`); its script only switches which pre-rendered draw section shows.
//!
//! Cost: one replay, flushed at the keyframe draws only (at most [`MAX_KEYFRAMES`], so the
//! rasterizer keeps batching between them), the GE state copied per draw for the change
//! lists, and the pictures encoded in parallel with fast PNG compression. Keyframes are
//! every `ceil(draws / MAX_KEYFRAMES)`-th draw plus the last; the draw count is known
//! before the replay because every draw is a REGISTERS word of the file.

use super::{capture, state, DebugError};
use base64::Engine as _;
use ge::display::Image;
use ge::dump::{replay_steps, Dump, RecordKind, Step};
use ge::state::GeState;
use ge::Ge;
use rayon::prelude::*;
use serde::Serialize;
use serde_json::Value;
use std::ops::ControlFlow;
use thiserror::Error;

/// Draws shown with full buffers; bounds the file size (every keyframe holds up to five
/// pictures) and the flushes.
pub const MAX_KEYFRAMES: u32 = 16;
/// Width of timeline thumbnails.
pub const THUMB_W: u32 = 120;
/// Disassembly lines kept (long dumps are cut, with a note, to keep the page small).
pub const MAX_DISASM_LINES: usize = 40_000;

const TEMPLATE: &str = include_str!("report.html.jinja");

/// Why a report could not be made.
#[derive(Debug, Error)]
pub enum ReportError {
    #[error(transparent)]
    Debug(#[from] DebugError),
    #[error("encoding a PNG: {0}")]
    Png(String),
    #[error("report template: {0}")]
    Template(#[from] minijinja::Error),
}

/// One picture as the page embeds it.
#[derive(Serialize, Clone)]
pub struct Picture {
    pub name: &'static str,
    pub width: u32,
    pub height: u32,
    /// `data:image/png;base64,...`
    pub uri: String,
}

/// A keyframe draw: its pictures and state.
#[derive(Serialize)]
pub struct Keyframe {
    pub draw: u32,
    pub command: String,
    pub thumb: Picture,
    pub pictures: Vec<Picture>,
    /// `state::draw_state` without the vertex list, as text and as JSON.
    pub state_text: String,
    pub state_json: String,
}

/// One row of the per-draw table.
#[derive(Serialize)]
pub struct DrawRow {
    pub draw: u32,
    pub command: String,
    pub offset: String,
    pub changes: Vec<String>,
    pub keyframe: bool,
}

/// One disassembly line (`draw` set on draw commands).
#[derive(Serialize)]
pub struct Line {
    pub text: String,
    pub draw: Option<u32>,
}

/// Everything the page shows.
#[derive(Serialize)]
pub struct Report {
    pub title: String,
    pub model: String,
    pub version: u32,
    pub game: String,
    pub records: usize,
    pub draws: u32,
    pub stride: u32,
    pub final_frame: Picture,
    pub keyframes: Vec<Keyframe>,
    pub rows: Vec<DrawRow>,
    pub disasm: Vec<Line>,
    pub disasm_cut: usize,
}

/// PNG with fast compression in the fewest channels that hold the picture exactly (grey
/// for the depth and stencil ramps, RGB for opaque colour): a quarter of the bytes to
/// compress for a grey ramp. The report favours build time; the pixels decode to exactly
/// those of the CLI's RGBA PNGs.
pub fn png_fast(img: &Image) -> Result<Vec<u8>, ReportError> {
    let px = || img.rgba.chunks_exact(4);
    let opaque = px().all(|p| p[3] == 255);
    let grey = opaque && px().all(|p| p[0] == p[1] && p[1] == p[2]);
    let (colour, data): (png::ColorType, std::borrow::Cow<'_, [u8]>) = if grey {
        (png::ColorType::Grayscale, px().map(|p| p[0]).collect::<Vec<u8>>().into())
    } else if opaque {
        (png::ColorType::Rgb, px().flat_map(|p| [p[0], p[1], p[2]]).collect::<Vec<u8>>().into())
    } else {
        (png::ColorType::Rgba, (&img.rgba[..]).into())
    };
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, img.width, img.height);
        enc.set_color(colour);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_compression(png::Compression::Fastest);
        let mut w = enc.write_header().map_err(|e| ReportError::Png(e.to_string()))?;
        w.write_image_data(&data).map_err(|e| ReportError::Png(e.to_string()))?;
    }
    Ok(out)
}

fn picture(name: &'static str, img: &Image) -> Result<Picture, ReportError> {
    let png = png_fast(img)?;
    let uri = format!("data:image/png;base64,{}", base64::engine::general_purpose::STANDARD.encode(png));
    Ok(Picture { name, width: img.width, height: img.height, uri })
}

/// Draw words in the file: PRIM/BEZIER/SPLINE in REGISTERS records (the replay executes
/// each exactly once and makes up no draw of its own).
pub fn count_draws(dump: &Dump) -> u32 {
    dump.records
        .iter()
        .filter(|r| r.kind == RecordKind::Registers)
        .flat_map(|r| dump.payload(r).chunks_exact(4))
        .filter(|c| ge::dump::is_draw(u32::from_le_bytes([c[0], c[1], c[2], c[3]])))
        .count() as u32
}

/// Raw material gathered during the replay, encoded afterwards in parallel.
struct RawKey {
    draw: u32,
    command: String,
    snapshot: capture::Snapshot,
    state: Value,
}

fn short_changes(prev: &GeState, cur: &GeState) -> Vec<String> {
    let c = state::changes(prev, cur);
    let mut out: Vec<String> = c["registers"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|r| r["name"] != "PRIM" && r["name"] != "BEZIER" && r["name"] != "SPLINE")
        .map(|r| format!("{} {}", r["name"].as_str().unwrap_or(""), r["to_text"].as_str().unwrap_or("")))
        .collect();
    out.extend(c["matrices"].as_array().into_iter().flatten().map(|m| format!("{} matrix", m.as_str().unwrap_or(""))));
    if c["clut_cache"] == Value::Bool(true) {
        out.push("CLUT cache".to_string());
    }
    out
}

/// Replay `dump` under `model` and gather the report. `progress` is told (done, total) draws.
pub fn build(
    dump: &Dump,
    title: &str,
    model: ge::Model,
    progress: &mut dyn FnMut(u32, u32),
) -> Result<Report, ReportError> {
    let t0 = std::time::Instant::now();
    let total = count_draws(dump);
    let stride = total.div_ceil(MAX_KEYFRAMES).max(1);
    let mut ge = Ge::with_model(model);
    let mut raw: Vec<RawKey> = Vec::new();
    let mut rows: Vec<DrawRow> = Vec::new();
    let mut prev = GeState::default();
    let stepped = replay_steps(dump, &mut ge, &mut |ge: &mut Ge, s: &Step| {
        let Some(n) = s.draw else { return ControlFlow::Continue(()) };
        let key = n % stride == 0 || n == total;
        rows.push(DrawRow {
            draw: n,
            command: ge::cmd::disassemble(s.word),
            offset: s.src.map(|o| format!("0x{o:x}")).unwrap_or_default(),
            changes: short_changes(&prev, &ge.state),
            keyframe: key,
        });
        if key {
            ge.flush();
            let st = state::draw_state_without_vertices(ge, s, Some(&prev));
            raw.push(RawKey {
                draw: n,
                command: ge::cmd::disassemble(s.word),
                snapshot: capture::Snapshot::take(ge),
                state: st,
            });
        }
        prev = ge.state.clone();
        if n % 64 == 0 || n == total {
            progress(n, total);
        }
        ControlFlow::Continue(())
    })
    .map_err(DebugError::from)?;
    let replay_ms = t0.elapsed().as_secs_f64() * 1e3;
    let final_img = stepped.display.capture(&ge.mem);
    let final_frame = picture("final", &final_img)?;
    let keyframes = raw
        .into_par_iter()
        .map(|k| {
            let buffers = k.snapshot.buffers();
            let mut pictures = Vec::new();
            for (name, img) in buffers.named() {
                pictures.push(picture(name, img)?);
            }
            Ok(Keyframe {
                draw: k.draw,
                command: k.command,
                thumb: picture("thumb", &capture::thumbnail(&buffers.colour, THUMB_W))?,
                pictures,
                state_text: state::to_text(&k.state),
                state_json: serde_json::to_string(&k.state).unwrap_or_default(),
            })
        })
        .collect::<Result<Vec<_>, ReportError>>()?;
    let encode_ms = t0.elapsed().as_secs_f64() * 1e3 - replay_ms;
    let (disasm, disasm_cut) = disassembly(dump);
    tracing::info!(
        replay_ms,
        encode_ms,
        disasm_ms = t0.elapsed().as_secs_f64() * 1e3 - replay_ms - encode_ms,
        "report built"
    );
    Ok(Report {
        title: title.to_string(),
        model: model.to_string(),
        version: dump.version,
        game: dump.game_id.clone(),
        records: dump.records.len(),
        draws: stepped.draws,
        stride,
        final_frame,
        keyframes,
        rows,
        disasm,
        disasm_cut,
    })
}

/// The command stream as `psprender disasm` prints it, draws numbered.
fn disassembly(dump: &Dump) -> (Vec<Line>, usize) {
    let mut lines = Vec::new();
    let mut draw = 0u32;
    let mut cut = 0usize;
    for (i, r) in dump.records.iter().enumerate() {
        if r.kind != RecordKind::Registers {
            continue;
        }
        let words = dump.payload(r).chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]));
        if lines.len() < MAX_DISASM_LINES {
            lines.push(Line { text: format!("# record {i}"), draw: None });
        }
        for (j, w) in words.enumerate() {
            let d = ge::dump::is_draw(w).then(|| {
                draw += 1;
                draw
            });
            if lines.len() >= MAX_DISASM_LINES {
                cut += 1;
                continue;
            }
            let off = r.ptr.wrapping_add(4 * j as u32);
            lines.push(Line { text: format!("{off:08x}: {w:08x}  {}", ge::cmd::disassemble(w)), draw: d });
        }
    }
    (lines, cut)
}

/// Render the page.
pub fn to_html(report: &Report) -> Result<String, ReportError> {
    let mut env = minijinja::Environment::new();
    env.set_auto_escape_callback(|_| minijinja::AutoEscape::Html);
    env.add_template("report.html", TEMPLATE)?;
    Ok(env.get_template("report.html")?.render(minijinja::context! { r => report })?)
}
