//! `psprender export-dump MODEL -o scene.ppdmp`: record exactly the display list and memory
//! that `render` executes as a version-6 PPSSPP frame dump (zstd), DISPLAY record last
//! (ppdmp-format.md §3.8), so PPSSPP (and `psprender replay`) can play it back.

use super::render::{default_output, PoseArgs, SceneArgs};
use anyhow::Context;
use psprender::scene;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub scene: SceneArgs,
    #[command(flatten)]
    pub pose: PoseArgs,
    /// Where to write the dump (default: the model's name with .ppdmp, in the current folder).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Also save the rendered screen (the image a replay must reproduce).
    #[arg(long)]
    pub png: Option<PathBuf>,
}

/// Build the frame `render` would draw, run it on a recording GE, and return the dump bytes
/// with the rendered image.
pub fn record(scene_args: &SceneArgs, pose_args: &PoseArgs) -> anyhow::Result<(Vec<u8>, ge::display::Image)> {
    let model = scene_args.load()?;
    let opts = scene_args.options();
    let posing = pose_args.load(&model)?;
    let pose = posing.as_ref().zip(model.skeleton()).map(|(p, sk)| p.globals(sk, pose_args.frame));
    let camera = scene_args.camera(&model, pose.as_deref(), &opts);
    let frame = scene::build_frame(&model, pose.as_deref(), &camera, &opts)
        .with_context(|| format!("building the display list for {}", scene_args.model.display()))?;
    let mut ge = scene_args.new_ge();
    ge.start_recording();
    let img = frame.render(&mut ge).with_context(|| format!("rendering {}", scene_args.model.display()))?;
    let dump = ge.finish_recording(frame.display).context("the GE was not recording")?;
    Ok((dump.to_bytes(), img))
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let start = std::time::Instant::now();
    let output = default_output(&args.output, &args.scene.model, "ppdmp");
    psprender::output::prepare(&output)?;
    if let Some(png) = &args.png {
        psprender::output::prepare(png)?;
    }
    let (bytes, img) = record(&args.scene, &args.pose)?;
    psprender::output::write(&output, &bytes)?;
    if let Some(png) = &args.png {
        super::render::save_screen(&img, png, Default::default())?;
    }
    println!("wrote {} ({} bytes) in {:.1} ms", output.display(), bytes.len(), start.elapsed().as_secs_f64() * 1e3);
    Ok(ExitCode::SUCCESS)
}
