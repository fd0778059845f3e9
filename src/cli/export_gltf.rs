//! `psprender export-gltf MODEL.pmo|MAP.pmp [--pam ANIM.pam [--anim N|NAME|all]] -o out.glb`:
//! the model as glTF 2.0 ([`psprender::gltf`]): `.glb` embeds everything, `.gltf` writes the
//! JSON with a `.bin` and one PNG per texture beside it, all or nothing. A KH2 skeleton (MDLX
//! bone table or JSON) with `--motions FILE` exports its bones with the motions
//! ([`psprender::gltf::kh2`]).

use super::args;
use super::render::{default_output, load_pam, select_animation};
use anyhow::Context;
use psprender::gltf::{export, Export, Options};
use psprender::scene::Model;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// A BBS model (.pmo) or map (.pmp), or a KH2 skeleton (MDLX model or bone-table JSON).
    pub model: PathBuf,
    /// A BBS PAM animation file for the model's skeleton; its animations become glTF animations.
    #[arg(long)]
    pub pam: Option<PathBuf>,
    /// KH2 motions for a KH2 skeleton: an ANB, MSET/BAR or bare motion; each motion becomes a
    /// glTF animation sampled at 60 Hz.
    #[arg(long, conflicts_with = "pam")]
    pub motions: Option<PathBuf>,
    /// PAM slot index or name, KH2 motion entry index, or `all` (default: all of them).
    #[arg(long)]
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

/// Whether `path` starts like a PMO or PMP; otherwise it must look like a KH2 skeleton (a BAR,
/// or JSON starting with `{`).
fn is_bbs(path: &Path) -> anyhow::Result<bool> {
    use std::io::Read;
    let mut head = [0u8; 64];
    let mut f = std::fs::File::open(path).with_context(|| format!("reading {}", path.display()))?;
    let n = f.read(&mut head).with_context(|| format!("reading {}", path.display()))?;
    let head = &head[..n];
    if head.starts_with(psprender::pmo::MAGIC) || head.starts_with(psprender::pmp::MAGIC) {
        return Ok(true);
    }
    let json = head.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{');
    if !psprender::kh2::Bar::is_bar(head) && !json {
        anyhow::bail!(
            "{}: not a PMO, PMP, MDLX or skeleton JSON (starts with {})",
            path.display(),
            psprender::output::magic_text(&head[..head.len().min(4)])
        );
    }
    Ok(false)
}

fn export_bbs(args: &Args, name: &str) -> anyhow::Result<Export> {
    if let Some(m) = &args.motions {
        anyhow::bail!("{}: KH2 motions need a KH2 skeleton, {} is a BBS model", m.display(), args.model.display());
    }
    let model = Model::load(&args.model)?;
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
    export(&model, name, &anims, &pam_name, &opts).with_context(|| format!("exporting {}", args.model.display()))
}

fn export_kh2(args: &Args, name: &str) -> anyhow::Result<Export> {
    if let Some(p) = &args.pam {
        anyhow::bail!("{}: a PAM needs a BBS model, {} is not a PMO", p.display(), args.model.display());
    }
    let skeleton = super::kh2::load_skeleton(&args.model)?;
    let input = match &args.motions {
        Some(p) => Some((p, super::kh2::load(p)?)),
        None => None,
    };
    let mut motions = Vec::new();
    if let Some((path, input)) = &input {
        let entry_name = |i: usize| {
            input.bar.as_ref().and_then(|(b, _)| b.entries.get(i)).map(|e| e.name_str()).filter(|n| !n.is_empty())
        };
        let listed: Vec<String> = input.motions.iter().map(|(i, _)| i.to_string()).collect();
        for (i, m) in &input.motions {
            let wanted = match args.anim.as_deref() {
                None | Some("all") => true,
                Some(a) => a.parse::<usize>().ok() == Some(*i),
            };
            if wanted {
                let n = entry_name(*i).map_or_else(|| format!("motion{i}"), |e| format!("{e}_{i}"));
                motions.push((n, m));
            }
        }
        if motions.is_empty() {
            anyhow::bail!(
                "{}: no motion {:?}; it has motions at entries {}",
                path.display(),
                args.anim.as_deref().unwrap_or("all"),
                if listed.is_empty() { "none".to_string() } else { listed.join(", ") }
            );
        }
    }
    let source = args.motions.as_ref().unwrap_or(&args.model).display().to_string();
    psprender::gltf::kh2::export(&skeleton, &motions, name, &source)
        .with_context(|| format!("exporting {}", args.model.display()))
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let start = std::time::Instant::now();
    let output = default_output(&args.output, &args.model, "glb");
    let kind = container(&output)?;
    psprender::output::prepare(&output)?;
    if args.anim.is_some() && args.pam.is_none() && args.motions.is_none() {
        anyhow::bail!("--anim picks an animation of --pam or --motions; neither was given");
    }
    let work = || -> anyhow::Result<Vec<(PathBuf, Vec<u8>)>> {
        let name = args.model.file_stem().map_or_else(|| "model".into(), |s| s.to_string_lossy().into_owned());
        let doc = if is_bbs(&args.model)? { export_bbs(&args, &name)? } else { export_kh2(&args, &name)? };
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
