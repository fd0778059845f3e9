//! `psprender demo [-o demo.png] [--frame F] [--yaw DEG] [--threads N]`: the README's main
//! command. Renders the built-in model (made by the PMO writer: a skinned, textured column on
//! an s8 pedestal with a translucent ring, three TIM2 kinds, four vertex formats) posed by the
//! built-in PAM (made by the PAM writer), through the scene builder and the GE model. Needs
//! no input file.

use anyhow::Context;
use psprender::pam::{pose_globals, PoseOptions};
use psprender::scene::{self, Model, RenderOptions};
use psprender::synth;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// Where to write the 480x272 PNG.
    #[arg(short, long, default_value = "demo.png")]
    pub output: PathBuf,
    /// Animation frame (0..60, fractional allowed).
    #[arg(long, default_value_t = 12.0)]
    pub frame: f32,
    /// Camera orbit angle, degrees.
    #[arg(long, default_value_t = 35.0, allow_negative_numbers = true)]
    pub yaw: f32,
    /// Raster threads (default: all cores); the image is the same for any count.
    #[arg(long)]
    pub threads: Option<usize>,
}

/// The demo image for `frame` and `yaw_deg` (shared with the tests).
pub fn image(frame: f32, yaw_deg: f32, threads: usize) -> anyhow::Result<ge::display::Image> {
    let model = Model::from_pmo(synth::demo_model())?;
    let pam = synth::anim::column_animation();
    let anim = pam.animations[0].as_ref().context("built-in animation")?;
    let skeleton = model.skeleton().context("built-in skeleton")?;
    let pose = pose_globals(skeleton, anim, frame, &PoseOptions::default());
    let opts = RenderOptions::default();
    let camera = scene::auto_camera(&model, Some(&pose), &opts, yaw_deg.to_radians(), 0.3, scene::DEFAULT_FOV);
    Ok(scene::render(&model, Some(&pose), &camera, &opts, threads)?.crop(480, 272))
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let start = std::time::Instant::now();
    let img = image(args.frame, args.yaw, args.threads.unwrap_or(0))?;
    img.save_png(&args.output).with_context(|| format!("saving {}", args.output.display()))?;
    println!("wrote {} in {:.1} ms", args.output.display(), start.elapsed().as_secs_f64() * 1e3);
    Ok(ExitCode::SUCCESS)
}
