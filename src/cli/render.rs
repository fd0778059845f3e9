//! `psprender render MODEL.pmo|MAP.pmp -o out.png`: draw a model through the GE model with an
//! automatic camera; the scene options ([`SceneArgs`]) are shared with `export-dump` and `view`.

use super::args;
use anyhow::Context;
use psprender::pam::eval::loop_frame;
use psprender::pam::pose::{pose_globals, EulerOrder, PoseOptions, ScaleInheritance};
use psprender::pam::{Animation, Pam};
use psprender::scene::policy::{Policy, ScaleIn};
use psprender::scene::{self, camera::Camera, Model, RenderOptions};
use std::path::PathBuf;
use std::process::ExitCode;

/// Framebuffer pixel formats by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FbFormat {
    #[value(name = "565")]
    F565,
    #[value(name = "5551")]
    F5551,
    #[value(name = "4444")]
    F4444,
    #[value(name = "8888")]
    F8888,
}

/// What to draw and from where (shared by `render`, `export-dump` and `view`).
#[derive(clap::Args, Debug, Clone)]
pub struct SceneArgs {
    /// A BBS model (.pmo) or map (.pmp).
    pub model: PathBuf,
    /// Camera orbit angle around the vertical axis, degrees (0 = looking from +Z).
    #[arg(long, default_value_t = 0.0, allow_hyphen_values = true, value_parser = args::finite)]
    pub yaw: f32,
    /// Camera elevation, degrees, -90 < PITCH < 90 (positive = from above).
    #[arg(long, default_value_t = 8.6, allow_hyphen_values = true, value_parser = args::pitch)]
    pub pitch: f32,
    /// Camera distance from the model's centre, above 0 (default: the closest that frames the model).
    #[arg(long, allow_hyphen_values = true, value_parser = args::positive)]
    pub distance: Option<f32>,
    /// Vertical field of view, degrees, 0 < FOV < 180.
    #[arg(long, default_value_t = scene::DEFAULT_FOV, allow_hyphen_values = true, value_parser = args::fov)]
    pub fov: f32,
    /// Framebuffer pixel format.
    #[arg(long, value_enum, default_value = "8888")]
    pub format: FbFormat,
    /// Background colour, RRGGBB hex [default: 282c34; `view` of a PopCap PAM: transparent].
    #[arg(long, value_parser = parse_rgb)]
    pub background: Option<[u8; 3]>,
    /// Draw only section N of each mesh list (as `decode` numbers them; add --list to pick one).
    #[arg(long)]
    pub section: Option<usize>,
    /// Draw only this mesh list (0 = opaque pass, 1 = second pass).
    #[arg(long, value_parser = clap::value_parser!(u8).range(0..=1))]
    pub list: Option<u8>,
    /// Triangle edges as GE lines.
    #[arg(long)]
    pub wireframe: bool,
    /// Do not double vertex colours (by default 0x80 counts as full brightness).
    #[arg(long)]
    pub no_color_doubling: bool,
    /// Never cull back faces.
    #[arg(long)]
    pub no_cull: bool,
    /// No alpha test (by default texels with alpha 0 are dropped).
    #[arg(long)]
    pub no_alpha_test: bool,
    /// Nearest-texel sampling instead of bilinear.
    #[arg(long)]
    pub nearest: bool,
    /// Where the model scale is applied for skinned sections.
    #[arg(long, value_enum, default_value = "bones")]
    pub scale_in: ScaleIn,
    #[arg(long, allow_hyphen_values = true, help = args::THREADS_HELP, value_parser = args::threads)]
    pub threads: Option<usize>,
    /// GE model: `hardware` (the PSP) or `ppsspp` (PPSSPP's software renderer).
    #[arg(long = "model", value_name = "hardware|ppsspp", default_value = "hardware", value_parser = super::parse_model)]
    pub ge_model: ge::Model,
}

/// Background of model renders when `--background` is not given.
pub const DEFAULT_BACKGROUND: [u8; 3] = [0x28, 0x2c, 0x34];

fn parse_rgb(s: &str) -> Result<[u8; 3], String> {
    let s = s.trim_start_matches('#');
    let v = u32::from_str_radix(s, 16).map_err(|e| format!("{e}"))?;
    if s.len() != 6 {
        return Err("expected RRGGBB".into());
    }
    Ok([(v >> 16) as u8, (v >> 8) as u8, v as u8])
}

impl SceneArgs {
    pub fn options(&self) -> RenderOptions {
        let [r, g, b] = self.background.unwrap_or(DEFAULT_BACKGROUND);
        RenderOptions {
            fb_format: self.format as u32,
            background: [r, g, b, 0],
            section: self.section,
            mesh_list: self.list.map(usize::from),
            hidden: Vec::new(),
            wireframe: self.wireframe,
            policy: Policy {
                color_doubling: !self.no_color_doubling,
                scale_in: self.scale_in,
                cull: !self.no_cull,
                alpha_test: !self.no_alpha_test,
                bilinear: !self.nearest,
                ..Policy::default()
            },
        }
    }

    pub fn load(&self) -> anyhow::Result<Model> {
        Model::load(&self.model)
    }

    /// The camera for `model` posed by `pose`.
    pub fn camera(&self, model: &Model, pose: Option<&[glam::Mat4]>, opts: &RenderOptions) -> Camera {
        self.camera_for(&scene::model_bounds(model, pose, opts))
    }

    /// The camera framing `bounds` from the requested angles (and distance, if given).
    pub fn camera_for(&self, bounds: &scene::camera::Bounds) -> Camera {
        let mut c = Camera::framing(bounds, self.yaw.to_radians(), self.pitch.to_radians(), self.fov);
        if let Some(d) = self.distance {
            c.distance = d;
            c.fit_clip(bounds.radius());
        }
        c
    }

    pub fn new_ge(&self) -> ge::Ge {
        let mut ge = ge::Ge::with_model(self.ge_model);
        if let Some(n) = self.threads {
            ge.set_threads(n);
        }
        ge
    }
}

/// Euler order of PAM rotations (see `pam::pose`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Euler {
    /// R = Rz·Ry·Rx (evidence-backed).
    Xyz,
    /// R = Rx·Ry·Rz.
    Zyx,
}

/// Whether joints inherit their parent's scale.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Inherit {
    /// Parent scale removed before chaining (evidence-backed default).
    None,
    /// Plain matrix chaining.
    Full,
}

/// Posing by a PAM animation (shared by `render`, `export-dump` and `view`).
#[derive(clap::Args, Debug, Clone)]
pub struct PoseArgs {
    /// A BBS PAM animation file for the model's skeleton.
    #[arg(long)]
    pub pam: Option<PathBuf>,
    /// Animation slot index or name (default: the first non-empty slot).
    #[arg(long, requires = "pam")]
    pub anim: Option<String>,
    /// Frame to pose, 0..=1000000 (fractional frames interpolate). Past the animation's end
    /// its loop rule applies: from loop-from the frame jumps back to loop-to; an animation
    /// that does not loop holds its last frame.
    #[arg(long, default_value_t = 0.0, requires = "pam", allow_hyphen_values = true, value_parser = args::frame)]
    pub frame: f32,
    /// PAM rotation order.
    #[arg(long, value_enum, default_value = "xyz")]
    pub euler: Euler,
    /// PAM scale inheritance.
    #[arg(long, value_enum, default_value = "none")]
    pub inherit_scale: Inherit,
}

/// A loaded animation ready to pose a skeleton.
pub struct Posing {
    pub pam: Pam,
    pub slot: usize,
    pub options: PoseOptions,
}

impl Posing {
    pub fn animation(&self) -> &Animation {
        // `slot` always names a present animation (checked in `PoseArgs::load`).
        self.pam.animations[self.slot].as_ref().expect("slot holds an animation")
    }
    /// The pose at `frame`, after the animation's loop rule ([`Posing::looped`]).
    pub fn globals(&self, skeleton: &psprender::pmo::Skeleton, frame: f32) -> Vec<glam::Mat4> {
        pose_globals(skeleton, self.animation(), self.looped(frame), &self.options)
    }
    /// `frame` mapped into the animation by its loop rule (what the viewer's playback does).
    pub fn looped(&self, frame: f32) -> f32 {
        let a = self.animation();
        loop_frame(frame, a.frame_count, a.loop_from, a.loop_to)
    }
}

impl PoseArgs {
    pub fn options(&self) -> PoseOptions {
        PoseOptions {
            euler: match self.euler {
                Euler::Xyz => EulerOrder::Xyz,
                Euler::Zyx => EulerOrder::Zyx,
            },
            scale_inheritance: match self.inherit_scale {
                Inherit::None => ScaleInheritance::None,
                Inherit::Full => ScaleInheritance::Full,
            },
        }
    }

    /// The PAM and the chosen animation, or `None` without `--pam`.
    pub fn load(&self, model: &Model) -> anyhow::Result<Option<Posing>> {
        let Some(path) = &self.pam else { return Ok(None) };
        let pam = load_pam(path)?;
        let slot = select_animation(&pam, self.anim.as_deref(), path)?;
        let Some(skeleton) = model.skeleton() else {
            anyhow::bail!("{} has no skeleton to pose", path.display());
        };
        let anim = pam.animations[slot].as_ref().expect("slot found above");
        if anim.bones.len() != skeleton.joints.len() {
            tracing::warn!(
                bones = anim.bones.len(),
                joints = skeleton.joints.len(),
                "bone count differs from the skeleton"
            );
        }
        Ok(Some(Posing { pam, slot, options: self.options() }))
    }
}

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub scene: SceneArgs,
    #[command(flatten)]
    pub pose: PoseArgs,
    /// Render frames A..B (inclusive, whole frames) in parallel; -o must hold a frame-number
    /// pattern such as %04d. Frames past the end follow the loop rule, as for --frame.
    #[arg(long, value_parser = args::frame_range, requires = "pam", conflicts_with = "frame")]
    pub frames: Option<(u32, u32)>,
    /// Where to write the 480x272 PNG (default: the model's name with .png, in the current folder).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
}

/// Read and parse a PAM, naming the file in every error.
pub fn load_pam(path: &std::path::Path) -> anyhow::Result<Pam> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    Pam::parse(&bytes).with_context(|| format!("parsing {}", path.display()))
}

/// The slot `--anim` names (index or name), or the first non-empty slot; an unknown name
/// lists the animations there are.
pub fn select_animation(pam: &Pam, anim: Option<&str>, path: &std::path::Path) -> anyhow::Result<usize> {
    let present: Vec<String> = pam
        .animations
        .iter()
        .enumerate()
        .filter_map(|(i, a)| a.as_ref().map(|a| format!("{i} ({:?})", a.name())))
        .collect();
    match anim {
        Some(a) => pam
            .find(a)
            .map(|(i, _)| i)
            .with_context(|| format!("{}: no animation {a:?}; it has {}", path.display(), list_or_none(&present))),
        None => pam
            .animations
            .iter()
            .position(Option::is_some)
            .with_context(|| format!("{}: no animations (every slot is empty)", path.display())),
    }
}

fn list_or_none(items: &[String]) -> String {
    if items.is_empty() {
        "none".to_string()
    } else {
        items.join(", ")
    }
}

/// `-o`, or the input's file stem + `.ext` in the current folder.
pub fn default_output(output: &Option<PathBuf>, input: &std::path::Path, ext: &str) -> PathBuf {
    output.clone().unwrap_or_else(|| {
        let stem = input.file_stem().map_or_else(|| "out".into(), |s| s.to_string_lossy().into_owned());
        PathBuf::from(format!("{stem}.{ext}"))
    })
}

/// Replace the first `%d` / `%0Nd` in `pattern` with `n`.
pub fn frame_path(pattern: &std::path::Path, n: u32) -> Option<PathBuf> {
    let s = pattern.to_str()?;
    let at = s.find('%')?;
    let rest = &s[at + 1..];
    let end = rest.find('d')?;
    let width: usize = if end == 0 { 0 } else { rest[..end].trim_start_matches('0').parse().ok()? };
    Some(PathBuf::from(format!("{}{:0width$}{}", &s[..at], n, &rest[end + 1..])))
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let start = std::time::Instant::now();
    let output = default_output(&args.output, &args.scene.model, "png");
    match args.frames {
        Some((a, _)) => {
            let first = frame_path(&output, a).with_context(|| {
                format!("--frames needs an output pattern with %d or %0Nd, got {}", output.display())
            })?;
            psprender::output::prepare(&first)?;
        }
        None => psprender::output::prepare(&output)?,
    }
    let model = args.scene.load()?;
    let opts = args.scene.options();
    let posing = args.pose.load(&model)?;
    let skeleton = model.skeleton();
    if let (Some((a, b)), Some(p), Some(sk)) = (args.frames, &posing, skeleton) {
        return render_sequence(&args, &output, &model, &opts, p, sk, a, b);
    }
    let pose = posing.as_ref().zip(skeleton).map(|(p, sk)| p.globals(sk, args.pose.frame));
    let camera = args.scene.camera(&model, pose.as_deref(), &opts);
    let frame = scene::build_frame(&model, pose.as_deref(), &camera, &opts)
        .with_context(|| format!("building the display list for {}", args.scene.model.display()))?;
    let mut ge = args.scene.new_ge();
    let img = frame.render(&mut ge).with_context(|| format!("rendering {}", args.scene.model.display()))?;
    save_screen(&img, &output)?;
    println!("wrote {} in {:.1} ms", output.display(), start.elapsed().as_secs_f64() * 1e3);
    Ok(ExitCode::SUCCESS)
}

/// Frames `a..=b` in parallel (one GE per frame, one raster thread each), one camera framing
/// every frame's pose, with a progress bar.
#[allow(clippy::too_many_arguments)]
fn render_sequence(
    args: &Args,
    output: &std::path::Path,
    model: &Model,
    opts: &RenderOptions,
    posing: &Posing,
    skeleton: &psprender::pmo::Skeleton,
    a: u32,
    b: u32,
) -> anyhow::Result<ExitCode> {
    use rayon::prelude::*;
    let start = std::time::Instant::now();
    let poses: Vec<Vec<glam::Mat4>> = (a..=b).map(|f| posing.globals(skeleton, f as f32)).collect();
    let mut bounds = scene::camera::Bounds::EMPTY;
    for p in &poses {
        let fb = scene::model_bounds(model, Some(p), opts);
        bounds.add(fb.min);
        bounds.add(fb.max);
    }
    let camera = args.scene.camera_for(&bounds);
    let bar = indicatif::ProgressBar::new(u64::from(b - a + 1));
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} frames {elapsed} (eta {eta})")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let run = || -> anyhow::Result<()> {
        poses.par_iter().enumerate().try_for_each(|(i, pose)| -> anyhow::Result<()> {
            let n = a + i as u32;
            let frame = scene::build_frame(model, Some(pose), &camera, opts)?;
            let mut ge = ge::Ge::with_model(args.scene.ge_model);
            ge.set_threads(1);
            let img = frame.render(&mut ge).with_context(|| format!("rendering frame {n}"))?;
            let path = frame_path(output, n).expect("pattern checked in run");
            save_screen(&img, &path)?;
            bar.inc(1);
            Ok(())
        })
    };
    match args.scene.threads {
        Some(t) => rayon::ThreadPoolBuilder::new().num_threads(t).build()?.install(run)?,
        None => run()?,
    }
    bar.finish_and_clear();
    println!("wrote {} frames in {:.1} ms", b - a + 1, start.elapsed().as_secs_f64() * 1e3);
    Ok(ExitCode::SUCCESS)
}

/// Save the visible 480x272 part of a display capture (atomically).
pub fn save_screen(img: &ge::display::Image, path: &std::path::Path) -> anyhow::Result<()> {
    Ok(psprender::output::save_png(&img.crop(480, 272), path)?)
}
