//! `psprender demo [-o demo.png] [--frame F] [--yaw DEG] [--threads N]`: the README's main
//! command. Renders the built-in model (made by the PMO writer: a skinned, textured column on
//! an s8 pedestal with a translucent ring, three TIM2 kinds, four vertex formats) posed by the
//! built-in PAM (made by the PAM writer), through the scene builder and the GE model. Needs
//! no input file.

use super::args;
use anyhow::Context;
use psprender::pam::{pose_globals, PoseOptions};
use psprender::scene::{self, Model, RenderOptions};
use psprender::synth;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// Where to write the 480x272 PNG (default: demo.png, the input-less command's name, in the
    /// current folder).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Animation frame, 0..=1000000 (fractional frames interpolate; past frame 59 the built-in
    /// animation's loop rule takes it back to frame 0).
    #[arg(long, default_value_t = 12.0, allow_hyphen_values = true, value_parser = args::frame)]
    pub frame: f32,
    /// Camera orbit angle around the vertical axis, degrees (0 = looking from +Z; the demo
    /// starts at 35 to show the column's side).
    #[arg(long, default_value_t = DEMO_YAW, allow_hyphen_values = true, value_parser = args::finite)]
    pub yaw: f32,
    #[arg(long, allow_hyphen_values = true, help = args::THREADS_HELP, value_parser = args::threads)]
    pub threads: Option<usize>,
    #[arg(long, value_enum, default_value_t, help = args::PNG_COMPRESSION_HELP)]
    pub png_compression: psprender::output::PngCompression,
}

/// The demo's default camera angle: a three-quarter view shows the column's texture and the
/// ring's translucency, which a straight-on view (render's default for arbitrary models) hides.
pub const DEMO_YAW: f32 = 35.0;

/// The demo image for `frame` and `yaw_deg` (shared with the tests).
pub fn image(frame: f32, yaw_deg: f32, threads: usize) -> anyhow::Result<ge::display::Image> {
    let model = Model::from_pmo(synth::demo_model())?;
    let pam = synth::anim::column_animation();
    let anim = pam.animations[0].as_ref().context("built-in animation")?;
    let skeleton = model.skeleton().context("built-in skeleton")?;
    let frame = psprender::pam::eval::loop_frame(frame, anim.frame_count, anim.loop_from, anim.loop_to);
    let pose = pose_globals(skeleton, anim, frame, &PoseOptions::default());
    let opts = RenderOptions::default();
    let camera = scene::auto_camera(&model, Some(&pose), &opts, yaw_deg.to_radians(), 0.3, scene::DEFAULT_FOV);
    Ok(scene::render(&model, Some(&pose), &camera, &opts, threads)?.crop(480, 272))
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let start = std::time::Instant::now();
    let output = args.output.unwrap_or_else(|| PathBuf::from("demo.png"));
    psprender::output::prepare(&output)?;
    let img = image(args.frame, args.yaw, args.threads.unwrap_or(0))?;
    psprender::output::save_png_with(&img, &output, args.png_compression)?;
    println!("wrote {} in {:.1} ms", output.display(), start.elapsed().as_secs_f64() * 1e3);
    Ok(ExitCode::SUCCESS)
}
