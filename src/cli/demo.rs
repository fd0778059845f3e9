//! `psprender demo [-o demo.png] [--angle RAD] [--threads N]`: render the built-in scene
//! (hand-written GE command words, no input files) through the GE model.

use anyhow::Context;
use ge::display::DisplayBuffer;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// Where to write the 512x272 PNG.
    #[arg(short, long, default_value = "demo.png")]
    pub output: PathBuf,
    /// Cube rotation about the vertical axis, in radians.
    #[arg(long, default_value_t = 0.7)]
    pub angle: f32,
    /// Raster threads (default: all cores); the image is the same for any count.
    #[arg(long)]
    pub threads: Option<usize>,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let start = std::time::Instant::now();
    let mut ge = ge::Ge::new();
    if let Some(n) = args.threads {
        ge.set_threads(n);
    }
    psprender::scenes::demo(args.angle).run(&mut ge).context("running the demo display list")?;
    let img = DisplayBuffer { addr: 0x0400_0000, stride: 512, format: 3 }.capture(&ge.mem);
    img.save_png(&args.output).with_context(|| format!("saving {}", args.output.display()))?;
    println!("wrote {} in {:.1} ms", args.output.display(), start.elapsed().as_secs_f64() * 1e3);
    Ok(ExitCode::SUCCESS)
}
