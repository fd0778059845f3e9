//! `psprender render MODEL.pmo|MAP.pmp -o out.png`: draw a model through the GE model with an
//! automatic camera; the scene options ([`SceneArgs`]) are shared with `export-dump` and `view`.

use anyhow::Context;
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
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    pub yaw: f32,
    /// Camera elevation, degrees (positive = from above).
    #[arg(long, default_value_t = scene::DEFAULT_PITCH.to_degrees(), allow_negative_numbers = true)]
    pub pitch: f32,
    /// Camera distance from the model's centre (default: the closest that frames the model).
    #[arg(long)]
    pub distance: Option<f32>,
    /// Vertical field of view, degrees.
    #[arg(long, default_value_t = scene::DEFAULT_FOV)]
    pub fov: f32,
    /// Framebuffer pixel format.
    #[arg(long, value_enum, default_value = "8888")]
    pub format: FbFormat,
    /// Background colour, RRGGBB hex.
    #[arg(long, default_value = "282c34", value_parser = parse_rgb)]
    pub background: [u8; 3],
    /// Draw only this section (numbered list 0 then list 1, as `decode` prints them).
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
    /// Raster threads (default: all cores); the image is the same for any count.
    #[arg(long)]
    pub threads: Option<usize>,
}

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
        let [r, g, b] = self.background;
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
        let mut c = scene::auto_camera(model, pose, opts, self.yaw.to_radians(), self.pitch.to_radians(), self.fov);
        if let Some(d) = self.distance {
            let r = scene::model_bounds(model, pose, opts).radius();
            c.distance = d.max(1e-4);
            c.fit_clip(r);
        }
        c
    }

    pub fn new_ge(&self) -> ge::Ge {
        let mut ge = ge::Ge::new();
        if let Some(n) = self.threads {
            ge.set_threads(n);
        }
        ge
    }
}

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub scene: SceneArgs,
    /// Where to write the 480x272 PNG.
    #[arg(short, long, default_value = "out.png")]
    pub output: PathBuf,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let start = std::time::Instant::now();
    let model = args.scene.load()?;
    let opts = args.scene.options();
    let camera = args.scene.camera(&model, None, &opts);
    let frame = scene::build_frame(&model, None, &camera, &opts)
        .with_context(|| format!("building the display list for {}", args.scene.model.display()))?;
    let mut ge = args.scene.new_ge();
    let img = frame.render(&mut ge).with_context(|| format!("rendering {}", args.scene.model.display()))?;
    save_screen(&img, &args.output)?;
    println!("wrote {} in {:.1} ms", args.output.display(), start.elapsed().as_secs_f64() * 1e3);
    Ok(ExitCode::SUCCESS)
}

/// Save the visible 480x272 part of a display capture.
pub fn save_screen(img: &ge::display::Image, path: &std::path::Path) -> anyhow::Result<()> {
    img.crop(480, 272).save_png(path).with_context(|| format!("saving {}", path.display()))
}
