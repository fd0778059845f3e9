//! `psprender replay DUMP [-o out.png] [--compare REF] [--max-mse X] [--diff diff.png]
//! [--model hardware|ppsspp] [--until-draw N | --until-cmd OFFSET] [--buffers DIR]`.
//!
//! With `--until-draw`/`--until-cmd` the replay stops after that draw or command word and
//! every output is what the GE holds then: the screenshot is the colour buffer being drawn
//! (the display usually still shows the previous frame mid-frame), `--buffers` writes
//! colour, depth, stencil, texture and CLUT pictures (`psprender::debugger::capture`).

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
    /// Stop after draw N (1 = the first PRIM/BEZIER/SPLINE); outputs show the colour buffer
    /// being drawn at that point.
    #[arg(long, value_name = "N", value_parser = args::draw, conflicts_with = "until_cmd")]
    pub until_draw: Option<u32>,
    /// Stop after the command word at this pushbuf offset (hex, as `disasm` prints it).
    #[arg(long, value_name = "OFFSET", value_parser = args::cmd_offset)]
    pub until_cmd: Option<u32>,
    /// Write colour.png, depth.png (grey ramp), stencil.png, texture.png (CLUT applied) and
    /// clut.png (swatch) of the GE's buffers at the stop (or the end) into this folder.
    #[arg(long, value_name = "DIR")]
    pub buffers: Option<PathBuf>,
    #[arg(long, value_enum, default_value_t, help = args::PNG_COMPRESSION_HELP)]
    pub png_compression: psprender::output::PngCompression,
}

/// The `--until-*` stop, if any.
fn stop_at(args: &Args) -> Option<ge::dump::StopAt> {
    match (args.until_draw, args.until_cmd) {
        (Some(n), _) => Some(ge::dump::StopAt::Draw(n)),
        (None, Some(off)) => Some(ge::dump::StopAt::Command(off)),
        (None, None) => None,
    }
}

/// Replay to the stop (or the end) and capture the screenshot; also write `--buffers`.
fn replay_stopped(args: &Args, model: ge::Model) -> anyhow::Result<ge::display::Image> {
    use psprender::debugger::{self, capture};
    let (ge, img) = match stop_at(args) {
        Some(at) => {
            let dump = ge::dump::Dump::open(&args.dump)?;
            let p =
                debugger::pause_at(&dump, model, at).map_err(|e| anyhow::anyhow!("{}: {e}", args.dump.display()))?;
            let mut screen = capture::colour(&p.ge);
            if screen.width < ge::display::CANVAS_W {
                // Same 512-wide canvas as a replay screenshot; columns past the buffer black.
                let mut canvas = ge::display::Image::black(ge::display::CANVAS_W, screen.height);
                for y in 0..screen.height {
                    for x in 0..screen.width {
                        canvas.put(x, y, screen.get(x, y));
                    }
                }
                screen = canvas;
            }
            eprintln!(
                "stopped after {} (record {}, draw {} of the dump's replay so far)",
                ge::cmd::disassemble(p.step.word),
                p.step.record,
                p.draws
            );
            (p.ge, screen)
        }
        None => {
            // The pushbuf is decoded while the replay runs.
            let dump = ge::dump::DumpStream::open(&args.dump)?;
            let mut ge = ge::Ge::with_model(model);
            let img = dump.replay_image(&mut ge).map_err(|e| e.in_file(&args.dump))?;
            (ge, img)
        }
    };
    if let Some(dir) = &args.buffers {
        for (name, pic) in capture::buffers(&ge).named() {
            psprender::output::save_png_with(pic, &dir.join(format!("{name}.png")), args.png_compression)?;
        }
    }
    Ok(img)
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    for out in args.output.iter().chain(&args.diff) {
        psprender::output::prepare(out)?;
    }
    if let Some(dir) = &args.buffers {
        psprender::output::prepare_dir(dir)?;
    }
    // Read the reference before the replay: a missing reference fails at once.
    let reference_img = args.compare.as_deref().map(load_reference).transpose()?;
    let model = args.model.unwrap_or_else(|| args.compare.as_deref().map_or(ge::Model::Hardware, model_for_reference));
    let start = std::time::Instant::now();
    let img = if stop_at(&args).is_some() || args.buffers.is_some() {
        anyhow::ensure!(args.trace_pixel.is_none(), "--trace-pixel replays the whole dump; drop --until-*/--buffers");
        replay_stopped(&args, model)?
    } else {
        render_dump_traced(&args.dump, model, args.trace_pixel)?
    };
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
