//! `psprender replay DUMP [-o out.png] [--compare REF] [--max-mse X] [--diff diff.png]
//! [--model hardware|ppsspp]`.

use super::{args, differing_pixels, load_reference, model_for_reference, render_dump_traced};
use ge::display::{diff_image, mse};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// Frame dump: .ppdmp, or .zip holding one (the last .ppdmp entry is replayed).
    pub dump: PathBuf,
    /// Save the screenshot here (512x272 PNG, like PPSSPP's --screenshot-save).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Save only the visible 480x272 screen (as `render` does) instead of the 512-pixel stride.
    #[arg(long)]
    pub screen: bool,
    /// Reference image (PNG or BMP) to compare with.
    #[arg(long)]
    pub compare: Option<PathBuf>,
    #[arg(long, allow_hyphen_values = true, default_value_t = 0.1, help = args::MAX_MSE_HELP, value_parser = args::max_mse)]
    pub max_mse: f64,
    /// Save a comparison picture (needs --compare).
    #[arg(long, requires = "compare")]
    pub diff: Option<PathBuf>,
    /// GE model: `hardware` or `ppsspp` (default: the model that made the --compare
    /// reference, judged by its name: NAME.hardware.png is the PSP's, others PPSSPP's;
    /// hardware without --compare).
    #[arg(long, value_name = "hardware|ppsspp", value_parser = super::parse_model)]
    pub model: Option<ge::Model>,
    /// Debugging: print every fragment drawn at pixel X,Y (drawing coordinates, 0..=1023 each).
    #[arg(long, allow_hyphen_values = true, value_parser = args::pixel)]
    pub trace_pixel: Option<(i32, i32)>,
    #[arg(long, value_enum, default_value_t, help = args::PNG_COMPRESSION_HELP)]
    pub png_compression: psprender::output::PngCompression,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    for out in args.output.iter().chain(&args.diff) {
        psprender::output::prepare(out)?;
    }
    // Read the reference before the replay: a missing reference fails at once.
    let reference_img = args.compare.as_deref().map(load_reference).transpose()?;
    let model = args.model.unwrap_or_else(|| args.compare.as_deref().map_or(ge::Model::Hardware, model_for_reference));
    let start = std::time::Instant::now();
    let img = render_dump_traced(&args.dump, model, args.trace_pixel)?;
    let ms = start.elapsed().as_secs_f64() * 1e3;
    if let Some(out) = &args.output {
        if args.screen {
            super::render::save_screen(&img, out, args.png_compression)?;
        } else {
            psprender::output::save_png_with(&img, out, args.png_compression)?;
        }
    }
    let Some(reference_img) = reference_img else {
        match &args.output {
            Some(out) => {
                println!("replayed {} ({model} model) in {ms:.1} ms; wrote {}", args.dump.display(), out.display())
            }
            None if args.trace_pixel.is_some() => {
                println!("replayed {} ({model} model) in {ms:.1} ms", args.dump.display())
            }
            None => println!(
                "replayed {} ({model} model) in {ms:.1} ms; nothing saved: add -o out.png to save the screenshot, \
                 or --compare REF.png to score it",
                args.dump.display()
            ),
        }
        return Ok(ExitCode::SUCCESS);
    };
    let score = mse(&img, &reference_img);
    let pixels = differing_pixels(&img, &reference_img);
    if let Some(diff) = &args.diff {
        psprender::output::save_png_with(&diff_image(&img, &reference_img), diff, args.png_compression)?;
    }
    let pass = score <= args.max_mse;
    println!(
        "Screenshot MSE: {score} ({pixels} pixels differ) {} (limit {}), {model} model, {ms:.1} ms",
        if pass { "PASS" } else { "FAIL" },
        args.max_mse
    );
    Ok(if pass { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}
