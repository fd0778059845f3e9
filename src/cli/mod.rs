//! Subcommands and what they share: replaying a dump file into a screenshot.

pub mod args;
pub mod bench;
pub mod conformance;
pub mod decode;
pub mod demo;
pub mod diff;
pub mod disasm;
pub mod export_dump;
pub mod export_gltf;
pub mod frametests;
pub mod kh2;
pub mod pam;
pub mod popcap;
pub mod render;
pub mod replay;
pub mod report;
pub mod state;
pub mod view;

use anyhow::Context;
use ge::display::Image;
use ge::dump;
use std::path::Path;

/// `--model` values: `hardware` or `ppsspp`.
pub fn parse_model(s: &str) -> Result<ge::Model, String> {
    s.parse().map_err(|e: ge::model::UnknownModel| e.to_string())
}

/// The model a reference image was made by, from its name: `NAME.hardware.png` (or
/// `.bmp`) is a real PSP's screenshot; anything else (`NAME.ref.png` frame tests, the
/// synthetic corpus's `NAME.png`) is PPSSPP's.
pub fn model_for_reference(reference: &Path) -> ge::Model {
    let name = reference.file_name().map(|f| f.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
    if name.ends_with(".hardware.png") || name.ends_with(".hardware.bmp") {
        ge::Model::Hardware
    } else {
        ge::Model::Ppsspp
    }
}

/// Replay the dump at `path` on a fresh GE of `model` and capture its display
/// (ppdmp-format.md §6.6).
pub fn render_dump(path: &Path, model: ge::Model) -> anyhow::Result<Image> {
    render_dump_traced(path, model, None)
}

/// [`render_dump`], optionally reporting every fragment drawn at one pixel to stderr.
pub fn render_dump_traced(path: &Path, model: ge::Model, trace: Option<(i32, i32)>) -> anyhow::Result<Image> {
    let dump = dump::DumpStream::open(path)?;
    let mut ge = ge::Ge::with_model(model);
    ge.draw.trace_pixel = trace;
    let (version, game, records, pushbuf) = (dump.version, dump.game_id.clone(), dump.records.len(), dump.pushbuf_len);
    let image = dump.replay_image(&mut ge).map_err(|e| e.in_file(path))?;
    tracing::info!(file = %path.display(), version, %game, records, model = %model, pushbuf, "replayed");
    Ok(image)
}

/// Load a reference image (PNG, or BMP as PPSSPP reads it).
pub fn load_reference(path: &Path) -> anyhow::Result<Image> {
    Image::load(path).with_context(|| format!("reference {}", path.display()))
}

/// Number of screen pixels (480×272) whose R, G or B differ.
pub fn differing_pixels(a: &Image, b: &Image) -> u32 {
    use ge::display::{SCREEN_H, SCREEN_W};
    let mut n = 0;
    for y in 0..SCREEN_H {
        for x in 0..SCREEN_W {
            if a.get(x, y)[..3] != b.get(x, y)[..3] {
                n += 1;
            }
        }
    }
    n
}
