//! `psprender export-gltf MODEL.pmo|MAP.pmp [--pam ANIM.pam [--anim N|NAME|all]] -o out.glb`:
//! the model as glTF 2.0 ([`psprender::gltf`]): `.glb` embeds everything, `.gltf` writes the
//! JSON with a `.bin` and one PNG per texture beside it, all or nothing.

use super::args;
use super::render::{default_output, load_pam, select_animation};
use anyhow::Context;
use psprender::gltf::{export, Options};
use psprender::scene::Model;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// A BBS model (.pmo) or map (.pmp).
    pub model: PathBuf,
    /// A BBS PAM animation file for the model's skeleton; its animations become glTF animations.
    #[arg(long)]
    pub pam: Option<PathBuf>,
    /// Animation slot index or name, or `all` (default: all of the PAM's animations).
    #[arg(long, requires = "pam")]
    pub anim: Option<String>,
    /// Rotation samples per PAM frame, 1..=16 (1 = every frame; more follow the PAM's Euler
    /// interpolation more closely between frames).
    #[arg(long, default_value_t = 1, allow_hyphen_values = true, value_parser = clap::value_parser!(u32).range(1..=16))]
    pub rotation_samples: u32,
    /// Where to write: NAME.glb (one file) or NAME.gltf (plus NAME.bin and PNGs beside it);
    /// default: the model's name with .glb, in the current folder.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    #[arg(long, allow_hyphen_values = true, help = args::THREADS_HELP, value_parser = args::threads)]
    pub threads: Option<usize>,
}

#[derive(Clone, Copy, PartialEq)]
enum Container {
    Glb,
    Gltf,
}

fn container(output: &Path) -> anyhow::Result<Container> {
    match output.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
        Some("glb") => Ok(Container::Glb),
        Some("gltf") => Ok(Container::Gltf),
        _ => anyhow::bail!("{}: the output must end in .glb or .gltf", output.display()),
    }
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let start = std::time::Instant::now();
    let output = default_output(&args.output, &args.model, "glb");
    let kind = container(&output)?;
    psprender::output::prepare(&output)?;
    let work = || -> anyhow::Result<Vec<(PathBuf, Vec<u8>)>> {
        let model = Model::load(&args.model)?;
        let name = args.model.file_stem().map_or_else(|| "model".into(), |s| s.to_string_lossy().into_owned());
        let pam = args.pam.as_ref().map(|p| load_pam(p).map(|pam| (p, pam))).transpose()?;
        let mut anims = Vec::new();
        let mut pam_name = String::new();
        if let Some((path, pam)) = &pam {
            pam_name = path.display().to_string();
            let slots: Vec<usize> = match args.anim.as_deref() {
                None | Some("all") => {
                    pam.animations.iter().enumerate().filter(|(_, a)| a.is_some()).map(|(i, _)| i).collect()
                }
                Some(a) => vec![select_animation(pam, Some(a), path)?],
            };
            if slots.is_empty() {
                anyhow::bail!("{}: no animations (every slot is empty)", path.display());
            }
            anims = slots.into_iter().filter_map(|i| pam.animations[i].as_ref().map(|a| (i, a))).collect();
        }
        let opts = Options { rotation_steps_per_frame: args.rotation_samples, ..Options::default() };
        let doc = export(&model, &name, &anims, &pam_name, &opts)
            .with_context(|| format!("exporting {}", args.model.display()))?;
        Ok(match kind {
            Container::Glb => vec![(output.clone(), doc.glb()?)],
            Container::Gltf => {
                let stem = output.file_stem().map_or_else(|| name.clone(), |s| s.to_string_lossy().into_owned());
                let dir = output.parent().map(Path::to_path_buf).unwrap_or_default();
                let (json, files) = doc.gltf_files(&stem)?;
                std::iter::once((output.clone(), json))
                    .chain(files.into_iter().map(|(n, b)| (dir.join(n), b)))
                    .collect()
            }
        })
    };
    let files = match args.threads {
        Some(t) => rayon::ThreadPoolBuilder::new().num_threads(t).build()?.install(work)?,
        None => work()?,
    };
    psprender::output::write_all(&files)?;
    let bytes: usize = files.iter().map(|(_, b)| b.len()).sum();
    println!(
        "wrote {} ({} files, {bytes} bytes) in {:.1} ms",
        output.display(),
        files.len(),
        start.elapsed().as_secs_f64() * 1e3
    );
    Ok(ExitCode::SUCCESS)
}
