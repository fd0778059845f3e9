//! `psprender diff A B` (two dumps), `psprender diff A --models hardware,ppsspp` (one dump,
//! two GE models) or `psprender diff A REF.png` (a dump against a reference screenshot):
//! the first draw whose output pixels differ, the state differences there, the pixel count
//! and a diff image (`-o`). Exit code 0 when they match, 1 when they differ, 2 on errors.

use psprender::debugger::diff::{self, Outcome, Side};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// Frame dump: .ppdmp, or .zip holding one.
    pub a: PathBuf,
    /// A second dump, or a reference image (.png/.bmp). Omit with --models.
    ///
    /// Against a reference image the first differing draw is the earliest draw that last
    /// changed a pixel still differing at the end. Changes are seen after each draw, so
    /// memory uploaded or transferred between two draws is blamed on the next draw.
    #[arg(required_unless_present = "models")]
    pub b: Option<PathBuf>,
    /// Compare A under two GE models, e.g. `hardware,ppsspp`.
    #[arg(long, value_name = "M1,M2", value_parser = models, conflicts_with = "b")]
    pub models: Option<(ge::Model, ge::Model)>,
    /// GE model for two dumps or a reference image.
    #[arg(long, value_name = "hardware|ppsspp", value_parser = super::parse_model, default_value = "hardware")]
    pub model: ge::Model,
    /// Save the diff image (A top left, B or the reference top right, differences below).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
}

fn models(s: &str) -> Result<(ge::Model, ge::Model), String> {
    let (a, b) = s.split_once(',').ok_or_else(|| format!("{s:?}: expected two models, e.g. hardware,ppsspp"))?;
    Ok((super::parse_model(a.trim())?, super::parse_model(b.trim())?))
}

fn is_image(p: &Path) -> bool {
    let e = p.extension().map(|e| e.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
    e == "png" || e == "bmp"
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    if let Some(out) = &args.output {
        psprender::output::prepare(out)?;
    }
    let open = |p: &Path| ge::dump::Dump::open(p);
    let named = |p: &Path, e: psprender::debugger::DebugError| anyhow::anyhow!("{}: {e}", p.display());
    let a = open(&args.a)?;
    let start = std::time::Instant::now();
    if let Some(reference) = args.b.as_deref().filter(|b| is_image(b)) {
        let img = super::load_reference(reference)?;
        let r = diff::against_reference(Side { dump: &a, model: args.model }, &img).map_err(|e| named(&args.a, e))?;
        if let Some(out) = &args.output {
            psprender::output::save_png(&r.image, out)?;
        }
        let v = serde_json::json!({
            "a": args.a, "reference": reference, "model": args.model.to_string(),
            "pixels": r.pixels,
            "first_draw": r.draw.map(|d| d.0), "first_draw_pixels": r.draw.map(|d| d.1),
            "state": r.state,
        });
        if args.json {
            println!("{}", serde_json::to_string_pretty(&v)?);
        } else if r.pixels == 0 {
            println!("same: {} ({} model) matches {}", args.a.display(), args.model, reference.display());
        } else {
            match r.draw {
                Some((d, n)) => println!(
                    "differ: {} pixels of the final frame differ from {}; first draw whose surviving output differs: \
                     draw {d} ({n} of those pixels last written by it)",
                    r.pixels,
                    reference.display()
                ),
                None => println!("differ: {} pixels differ, none of them drawn by a draw (uploaded memory)", r.pixels),
            }
            if let Some(s) = &r.state {
                print!("{}", psprender::debugger::state::to_text(s));
            }
        }
        return Ok(if r.pixels == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE });
    }
    let b_dump;
    let (sa, sb, b_name) = match (&args.b, args.models) {
        (Some(b), _) => {
            b_dump = open(b)?;
            (Side { dump: &a, model: args.model }, Side { dump: &b_dump, model: args.model }, b.display().to_string())
        }
        (None, Some((m1, m2))) => (Side { dump: &a, model: m1 }, Side { dump: &a, model: m2 }, format!("{m2} model")),
        (None, None) => anyhow::bail!("give a second dump, a reference image, or --models M1,M2"),
    };
    let a_name = match args.models {
        Some((m1, _)) => format!("{m1} model"),
        None => args.a.display().to_string(),
    };
    let outcome = diff::compare(sa, sb).map_err(|e| named(&args.a, e))?;
    let ms = start.elapsed().as_secs_f64() * 1e3;
    let (v, code) = match &outcome {
        Outcome::Same { draws } => (serde_json::json!({ "same": true, "draws": draws }), ExitCode::SUCCESS),
        Outcome::Longer { common, draws_a, draws_b } => (
            serde_json::json!({ "same": false, "first_draw": common + 1, "draws_a": draws_a, "draws_b": draws_b }),
            ExitCode::FAILURE,
        ),
        Outcome::Parted(p) | Outcome::PartedAfterLastDraw(p) => {
            if let Some(out) = &args.output {
                psprender::output::save_png(&p.image, out)?;
            }
            let after_last_draw = matches!(outcome, Outcome::PartedAfterLastDraw(_));
            let first_draw = (!after_last_draw).then_some(p.draw);
            (
                serde_json::json!({
                    "same": false, "first_draw": first_draw, "after_last_draw": after_last_draw,
                    "command_a": p.command_a, "command_b": p.command_b,
                    "colour_pixels": p.colour_pixels, "depth_pixels": p.depth_pixels, "vram_bytes": p.vram_bytes,
                    "state": p.state,
                }),
                ExitCode::FAILURE,
            )
        }
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(code);
    }
    match &outcome {
        Outcome::Same { draws } => {
            println!("same: {a_name} and {b_name} give the same pixels after each of {draws} draws ({ms:.0} ms)")
        }
        Outcome::Longer { common, draws_a, draws_b } => {
            println!("differ: same pixels for {common} draws, then {a_name} has {draws_a} draws and {b_name} {draws_b}")
        }
        Outcome::Parted(p) | Outcome::PartedAfterLastDraw(p) => {
            if matches!(outcome, Outcome::Parted(_)) {
                println!(
                    "differ: first differing draw {} ({a_name}: {}; {b_name}: {}): {} colour pixels, {} depth values, \
                     {} VRAM bytes differ ({ms:.0} ms)",
                    p.draw, p.command_a, p.command_b, p.colour_pixels, p.depth_pixels, p.vram_bytes
                );
            } else {
                println!(
                    "differ: same pixels after each of {} draws, but commands after the last draw (immediate-mode \
                     vertices, transfers) leave {} colour pixels, {} depth values, {} VRAM bytes different ({ms:.0} ms)",
                    p.draw, p.colour_pixels, p.depth_pixels, p.vram_bytes
                );
            }
            let regs = p.state["registers"].as_array().cloned().unwrap_or_default();
            if regs.is_empty() && p.state["matrices"].as_array().is_none_or(Vec::is_empty) {
                println!("  same GE state at that draw");
            }
            for r in regs {
                println!(
                    "  {:<20} {} | {}",
                    r["name"].as_str().unwrap_or(""),
                    r["from_text"].as_str().unwrap_or(""),
                    r["to_text"].as_str().unwrap_or("")
                );
            }
            for m in p.state["matrices"].as_array().into_iter().flatten() {
                println!("  matrix {} differs", m.as_str().unwrap_or(""));
            }
        }
    }
    Ok(code)
}
