//! `psprender replay DUMP [-o out.png] [--compare REF] [--max-mse X] [--diff diff.png]
//! [--model hardware|ppsspp]`.

use super::{differing_pixels, load_reference, model_for_reference, render_dump_traced};
use anyhow::Context;
use ge::display::{diff_image, mse};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// Frame dump: .ppdmp, or .zip holding one (the last .ppdmp entry is replayed).
    pub dump: PathBuf,
    /// Save the screenshot (512x272 PNG, like PPSSPP's --screenshot-save).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Save only the visible 480x272 screen (as `render` does) instead of the 512-pixel stride.
    #[arg(long)]
    pub screen: bool,
    /// Reference image (PNG or BMP) to compare with.
    #[arg(long)]
    pub compare: Option<PathBuf>,
    /// Highest MSE that still passes (PPSSPP's frame tests use 0.1).
    #[arg(long, default_value_t = 0.1)]
    pub max_mse: f64,
    /// Save a comparison picture (needs --compare).
    #[arg(long)]
    pub diff: Option<PathBuf>,
    /// GE model: `hardware` or `ppsspp` (default: the model that made the --compare
    /// reference, judged by its name: NAME.hardware.png is the PSP's, others PPSSPP's;
    /// hardware without --compare).
    #[arg(long, value_name = "hardware|ppsspp", value_parser = super::parse_model)]
    pub model: Option<ge::Model>,
    /// Debugging: print every fragment drawn at pixel X,Y (drawing coordinates).
    #[arg(long, value_parser = parse_xy)]
    pub trace_pixel: Option<(i32, i32)>,
}

fn parse_xy(s: &str) -> Result<(i32, i32), String> {
    let (x, y) = s.split_once(',').ok_or("expected X,Y")?;
    Ok((x.trim().parse().map_err(|e| format!("{e}"))?, y.trim().parse().map_err(|e| format!("{e}"))?))
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let model = args.model.unwrap_or_else(|| args.compare.as_deref().map_or(ge::Model::Hardware, model_for_reference));
    let start = std::time::Instant::now();
    let img = render_dump_traced(&args.dump, model, args.trace_pixel)?;
    let ms = start.elapsed().as_secs_f64() * 1e3;
    if let Some(out) = &args.output {
        if args.screen {
            super::render::save_screen(&img, out)?;
        } else {
            img.save_png(out).with_context(|| format!("saving {}", out.display()))?;
        }
    }
    let Some(reference) = &args.compare else {
        println!("replayed {} ({model} model) in {ms:.1} ms", args.dump.display());
        if args.diff.is_some() {
            anyhow::bail!("--diff needs --compare");
        }
        return Ok(ExitCode::SUCCESS);
    };
    let reference_img = load_reference(reference)?;
    let score = mse(&img, &reference_img);
    let pixels = differing_pixels(&img, &reference_img);
    if let Some(diff) = &args.diff {
        diff_image(&img, &reference_img).save_png(diff).with_context(|| format!("saving {}", diff.display()))?;
    }
    let pass = score <= args.max_mse;
    println!(
        "Screenshot MSE: {score} ({pixels} pixels differ) {} (limit {}), {model} model, {ms:.1} ms",
        if pass { "PASS" } else { "FAIL" },
        args.max_mse
    );
    Ok(if pass { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}
