//! `psprender view MODEL.pmo|MAP.pmp [--pam ANIM.pam]`: the interactive viewer
//! ([`psprender::viewer`]) with the scene and pose options of `render`; the starting camera,
//! animation and frame are the ones `render` uses for the same arguments, so an F2/P
//! screenshot before moving equals `render`'s PNG. Every animation of the PAM is a clip
//! (`[`/`]` switch); `--anim` picks the first one shown.

use super::render::{PoseArgs, SceneArgs};
use anyhow::Context;
use psprender::pam::pose::pose_globals;
use psprender::scene::Model;
use psprender::viewer::{self, Clip, ViewerControl, ViewerInput};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
#[command(after_help = "\
Mouse: left drag orbits, right or middle drag pans, wheel zooms.
Keys:  Space play/pause   Left/Right step a frame   Home/End first/last frame
       PageUp/PageDown -/+10 frames   [ ] previous/next animation
       1-9, 0 toggle sections 0-9   A show all   L mesh list all/0/1
       W wireframe   K skeleton   F2 or P screenshot   R reset camera   Q or Esc quit")]
pub struct Args {
    #[command(flatten)]
    pub scene: SceneArgs,
    #[command(flatten)]
    pub pose: PoseArgs,
    /// Window pixels per PSP pixel.
    #[arg(long, default_value_t = 2, allow_hyphen_values = true, value_parser = clap::value_parser!(u32).range(1..=8))]
    pub scale: u32,
    /// Folder for F2/P screenshots (view-NNNN.png; created if missing).
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
    psprender::output::prepare_dir(&args.screenshot_dir)?;
    if let Some(shot) = &args.screenshot {
        psprender::output::prepare(shot)?;
    }
    let model = args.scene.load()?;
    let options = args.scene.options();
    let (clips, start_clip) = clips(&args.pose, &model)?;
    let start_pose = clips.get(start_clip).map(|c| (c.pose)(args.pose.frame));
    let camera = args.scene.camera(&model, start_pose.as_deref(), &options);
    let title = format!("psprender view: {}", args.scene.model.display());
    let input = ViewerInput {
        model,
        clips,
        start_clip,
        start_frame: args.pose.frame,
        options,
        camera,
        threads: args.scene.threads,
        ge_model: args.scene.ge_model,
        title,
    };
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

/// PAM playback rate when the header says 0. guess: no sample has fps 0; 30 is BBS's usual rate.
const DEFAULT_FPS: f32 = 30.0;

/// One clip per animation of `--pam` (none without it), and the index of the one `--anim`
/// (or the first non-empty slot) names.
fn clips(pose: &PoseArgs, model: &Model) -> anyhow::Result<(Vec<Clip>, usize)> {
    let Some(posing) = pose.load(model)? else { return Ok((Vec::new(), 0)) };
    let Some(skeleton) = model.skeleton() else { return Ok((Vec::new(), 0)) };
    let options = posing.options;
    let mut start = 0;
    let mut clips = Vec::new();
    for (slot, anim) in posing.pam.animations.iter().enumerate() {
        let Some(anim) = anim else { continue };
        if slot == posing.slot {
            start = clips.len();
        }
        let (sk, a) = (skeleton.clone(), anim.clone());
        clips.push(Clip {
            name: format!("{slot}:{}", anim.name()),
            frames: f32::from(anim.frame_count),
            fps: if anim.fps == 0 { DEFAULT_FPS } else { f32::from(anim.fps) },
            looping: Some((anim.frame_count, anim.loop_from, anim.loop_to)),
            pose: Box::new(move |frame| pose_globals(&sk, &a, frame, &options)),
        });
    }
    Ok((clips, start))
}
