//! `psprender view MODEL.pmo|MAP.pmp`: the interactive viewer ([`psprender::viewer`]) with the
//! scene options of `render`; the starting camera is the one `render` uses for the same
//! arguments, so an F2/P screenshot before moving equals `render`'s PNG.

use super::render::SceneArgs;
use anyhow::Context;
use psprender::viewer::{self, ViewerControl, ViewerInput};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub scene: SceneArgs,
    /// Window pixels per PSP pixel.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=8))]
    pub scale: u32,
    /// Folder for F2/P screenshots (view-NNNN.png).
    #[arg(long, default_value = ".")]
    pub screenshot_dir: PathBuf,
    /// Close after this many redraws (each renders the GE; no overlays): for tests and timing.
    #[arg(long, hide = true)]
    pub exit_after_frames: Option<u32>,
    /// With --exit-after-frames: save the screen read back from the window to this PNG.
    #[arg(long, hide = true, requires = "exit_after_frames")]
    pub screenshot: Option<PathBuf>,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let model = args.scene.load()?;
    let options = args.scene.options();
    let camera = args.scene.camera(&model, None, &options);
    let title = format!("psprender view: {}", args.scene.model.display());
    let input = ViewerInput { model, clips: Vec::new(), options, camera, threads: args.scene.threads, title };
    let control = ViewerControl {
        scale: args.scale,
        screenshot_dir: args.screenshot_dir,
        exit_after_frames: args.exit_after_frames,
        screenshot: args.screenshot,
    };
    let stats =
        viewer::run_viewer(input, control).with_context(|| format!("viewing {}", args.scene.model.display()))?;
    println!(
        "{} renders in {} redraws; frame time mean {:.1} ms, max {:.1} ms",
        stats.renders, stats.redraws, stats.mean_ms, stats.max_ms
    );
    Ok(ExitCode::SUCCESS)
}
