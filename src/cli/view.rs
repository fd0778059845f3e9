//! `psprender view MODEL.pmo|MAP.pmp [--pam ANIM.pam]`: the interactive viewer
//! ([`psprender::viewer`]) with the scene and pose options of `render`; the starting camera,
//! animation and frame are the ones `render` uses for the same arguments, so an F2/P
//! screenshot before moving equals `render`'s PNG. Every animation of the PAM is a clip
//! (`[`/`]` switch); `--anim` picks the first one shown.
//!
//! `psprender view FILE.pam` with a PopCap PAM (told by its magic, not its name: BBS
//! animations are `.pam` too) plays it in the same window ([`psprender::viewer::popcap`]):
//! `--images`, `--size`, `--background`, `--nearest` and `--threads` as for `popcap`, and the
//! first frame shown as `popcap --render` picks it (`--label NAME`, or `--start-frame N` like
//! `--frame N`), so an F2/P screenshot equals `popcap --render`'s PNG for the same frame.

use super::render::{PoseArgs, SceneArgs};
use anyhow::Context;
use psprender::pam::pose::pose_globals;
use psprender::popcap::render::RenderOptions as PopcapOptions;
use psprender::popcap::{Animation, Timeline};
use psprender::scene::Model;
use psprender::viewer::popcap::{PopcapSource, PopcapState};
use psprender::viewer::{self, Clip, ViewerControl, ViewerInput, ViewerStats};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

#[derive(clap::Args)]
#[command(after_help = "\
Mouse: left drag orbits, right or middle drag pans, wheel zooms.
Keys:  Space play/pause   Left/Right step a frame   Home/End first/last frame
       PageUp/PageDown -/+10 frames   [ ] previous/next animation
       1-9, 0 toggle sections 0-9   A show all   L mesh list all/0/1
       W wireframe   K skeleton   F2 or P screenshot   R reset camera   Q or Esc quit
A PopCap PAM: [ ] previous/next clip (all frames, then one per label)
       1-9, 0 toggle main-sprite layers of the page   L next page of ten layers
       A show all layers   K image outlines; no mouse")]
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
    /// PopCap PAM: directory of PNG images found by the PAM's image names.
    #[arg(long)]
    pub images: Option<PathBuf>,
    /// PopCap PAM: canvas size WxH in pixels, each 1..=8192 (default: the PAM's size).
    #[arg(long, value_parser = super::popcap::parse_size)]
    pub size: Option<[u32; 2]>,
    /// PopCap PAM: the label whose clip is shown first (played as the game does).
    #[arg(long)]
    pub label: Option<String>,
    /// PopCap PAM: main-timeline frame shown first (clip "all", scrubbed as `popcap --frame`).
    #[arg(long, conflicts_with = "label")]
    pub start_frame: Option<u32>,
}

/// Whether `path` starts with the PopCap PAM magic (unreadable files are left to the model
/// loader, whose error names them).
fn is_popcap(path: &Path) -> bool {
    let mut magic = [0u8; 4];
    std::fs::File::open(path).and_then(|mut f| std::io::Read::read_exact(&mut f, &mut magic)).is_ok()
        && u32::from_le_bytes(magic) == psprender::popcap::MAGIC
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    psprender::output::prepare_dir(&args.screenshot_dir)?;
    if let Some(shot) = &args.screenshot {
        psprender::output::prepare(shot)?;
    }
    let stats = if is_popcap(&args.scene.model) { run_popcap(&args)? } else { run_model(args)? };
    println!(
        "{} renders in {} redraws; frame time mean {:.1} ms, max {:.1} ms",
        stats.renders, stats.redraws, stats.mean_ms, stats.max_ms
    );
    Ok(ExitCode::SUCCESS)
}

fn control(args: &Args) -> ViewerControl {
    ViewerControl {
        scale: args.scale,
        screenshot_dir: args.screenshot_dir.clone(),
        exit_after_frames: args.exit_after_frames,
        screenshot: args.screenshot.clone(),
    }
}

/// Options given that do not apply to the kind of file shown.
fn misplaced(args: &Args, popcap: bool) -> Vec<&'static str> {
    let (s, p) = (&args.scene, &args.pose);
    let checks: &[(bool, &'static str)] = if popcap {
        &[
            (p.pam.is_some(), "--pam"),
            (s.section.is_some(), "--section"),
            (s.list.is_some(), "--list"),
            (s.wireframe, "--wireframe"),
            (s.distance.is_some(), "--distance"),
            (s.ge_model != ge::Model::Hardware, "--model"),
        ]
    } else {
        &[
            (args.images.is_some(), "--images"),
            (args.size.is_some(), "--size"),
            (args.label.is_some(), "--label"),
            (args.start_frame.is_some(), "--start-frame"),
        ]
    };
    checks.iter().filter(|(given, _)| *given).map(|(_, name)| *name).collect()
}

fn run_popcap(args: &Args) -> anyhow::Result<ViewerStats> {
    let path = args.scene.model.display().to_string();
    let wrong = misplaced(args, true);
    if !wrong.is_empty() {
        anyhow::bail!("{path} is a PopCap PAM; options for models only: {}", wrong.join(", "));
    }
    let bytes = std::fs::read(&args.scene.model).with_context(|| format!("reading {path}"))?;
    let anim = Animation::parse(&bytes).with_context(|| format!("parsing {path}"))?;
    let tl = Arc::new(Timeline::new(&anim).with_context(|| format!("evaluating {path}"))?);
    let mut state = PopcapState::new(&tl).with_context(|| format!("evaluating {path}"))?;
    state.start(args.label.as_deref(), args.start_frame.unwrap_or(0)).map_err(|e| anyhow::anyhow!("{path}: {e}"))?;
    let set = super::popcap::load_images(&anim, args.images.as_deref())?;
    let opts = PopcapOptions {
        size: args.size.unwrap_or_else(|| anim.pixel_size()),
        background: args.scene.background,
        nearest: args.scene.nearest,
        threads: args.scene.threads.unwrap_or(0),
        ..PopcapOptions::for_animation(&anim)
    };
    let source = PopcapSource::new(tl, state, &set, opts).with_context(|| format!("viewing {path}"))?;
    let title = format!("psprender view: {path}");
    viewer::run_source(Box::new(source), title, control(args)).with_context(|| format!("viewing {path}"))
}

fn run_model(args: Args) -> anyhow::Result<ViewerStats> {
    let wrong = misplaced(&args, false);
    if !wrong.is_empty() {
        anyhow::bail!(
            "{} is not a PopCap PAM; options for PopCap PAMs only: {}",
            args.scene.model.display(),
            wrong.join(", ")
        );
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
    let control = control(&args);
    viewer::run_viewer(input, control).with_context(|| format!("viewing {}", args.scene.model.display()))
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
