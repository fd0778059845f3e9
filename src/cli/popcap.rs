//! `psprender popcap FILE.pam`: a PopCap PAM (PvZ2 PopAnim) listed, evaluated and drawn
//! through the GE model.
//!
//! * no frame options: header, images, sprites, labels, stops and commands (`--json` too);
//! * `--frame N` / `--label NAME`: that frame's draw list (text, or `--json`);
//! * `--render out.png` with `--frame N` or `--label NAME` (the clip's first frame);
//! * `--frames A..B -o f_%04d.png`: one PNG per frame, rendered in parallel;
//! * `--label NAME -o anim.png|anim.apng|anim.gif`: the clip as one animation (APNG or GIF)
//!   at the main sprite's frame rate.
//!
//! `--frame`/`--frames` scrub the timeline from frame 0 (STOP ignored, child sprites timed
//! from their append, after the last frame the loop continues at the work-area start);
//! `--label` plays the clip as the game does (from the label, children restarted, up to the
//! next STOP). Images come from `--images DIR`; missing ones are drawn as placeholders and
//! listed once on stderr. Outputs are checked (folders created) before any work.

use super::args;
use super::render::frame_path;
use anyhow::{bail, Context};
use psprender::output;
use psprender::popcap::encode::{apng_bytes, gif_bytes, png_bytes};
use psprender::popcap::eval::{bounds, Mode};
use psprender::popcap::render::{ImageSet, RenderOptions, Renderer, MAX_CANVAS};
use psprender::popcap::{Animation, Draw, Player, Timeline};
use serde::Serialize;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

#[derive(clap::Args)]
pub struct Args {
    /// PopCap PAM file (PopAnim, versions 1-6).
    pub pam: PathBuf,
    /// Main-timeline frame, 0..=1000000, scrubbed from frame 0 with STOP ignored; past the last
    /// frame the timeline loops from its work-area start.
    #[arg(long, conflicts_with_all = ["frames", "label"], value_parser = clap::value_parser!(u32).range(0..=1_000_000))]
    pub frame: Option<u32>,
    /// A clip: from the label's frame to the next STOP, played as the game does.
    #[arg(long)]
    pub label: Option<String>,
    /// Render frames A..B (inclusive, whole frames) in parallel; -o must hold a frame-number
    /// pattern such as %04d. Frames past the end follow the loop rule, as for --frame.
    #[arg(long, value_parser = args::frame_range, conflicts_with = "label", requires = "output")]
    pub frames: Option<(u32, u32)>,
    /// Draw --frame N (or the first frame of --label) to this PNG.
    #[arg(long)]
    pub render: Option<PathBuf>,
    /// With --frames: a pattern with %d/%0Nd (one PNG per frame); with --label: an .png/.apng
    /// or .gif file (one animation of the clip).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Directory of PNG images found by the PAM's image names.
    #[arg(long)]
    pub images: Option<PathBuf>,
    /// Canvas size WxH in pixels, each 1..=8192 (default: the PAM's size times --scale).
    #[arg(long, value_parser = parse_size)]
    pub size: Option<[u32; 2]>,
    /// Canvas pixels per PAM pixel, above 0 and at most 64.
    #[arg(long, default_value_t = 1.0, allow_hyphen_values = true, value_parser = parse_scale)]
    pub scale: f64,
    /// Background RRGGBB, or "transparent".
    #[arg(long, default_value = "transparent", value_parser = parse_background)]
    pub background: Background,
    /// Nearest-texel sampling instead of bilinear.
    #[arg(long)]
    pub nearest: bool,
    #[arg(long, allow_hyphen_values = true, help = args::THREADS_HELP, value_parser = args::threads)]
    pub threads: Option<usize>,
    /// JSON output instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Clone, Copy)]
pub struct Background(pub Option<[u8; 3]>);

fn parse_background(s: &str) -> Result<Background, String> {
    if s.eq_ignore_ascii_case("transparent") {
        return Ok(Background(None));
    }
    let h = s.trim_start_matches('#');
    if h.len() != 6 {
        return Err("expected RRGGBB or transparent".into());
    }
    let v = u32::from_str_radix(h, 16).map_err(|e| e.to_string())?;
    Ok(Background(Some([(v >> 16) as u8, (v >> 8) as u8, v as u8])))
}

pub(crate) fn parse_size(s: &str) -> Result<[u32; 2], String> {
    let (w, h) = s.split_once(['x', 'X']).ok_or_else(|| format!("{s:?} is not WxH"))?;
    let side = |t: &str| -> Result<u32, String> {
        let v: u32 = t.trim().parse().map_err(|_| format!("{t:?} is not a whole number"))?;
        if (1..=MAX_CANVAS).contains(&v) {
            Ok(v)
        } else {
            Err(format!("{v}: a side must be 1..={MAX_CANVAS}"))
        }
    };
    Ok([side(w)?, side(h)?])
}

fn parse_scale(s: &str) -> Result<f64, String> {
    let v: f64 = s.trim().parse().map_err(|_| format!("{s:?} is not a number"))?;
    if v.is_finite() && v > 0.0 && v <= 64.0 {
        Ok(v)
    } else {
        Err(format!("scale {s} is outside (0, 64]"))
    }
}

#[derive(Serialize)]
struct Listing {
    file: String,
    version: u32,
    frame_rate: u8,
    position: [f64; 2],
    size: [f64; 2],
    images: Vec<ImageRow>,
    sprites: Vec<SpriteRow>,
    main_sprite: Option<SpriteRow>,
}

#[derive(Serialize)]
struct ImageRow {
    index: usize,
    name: String,
    size: [u32; 2],
    matrix: [f64; 6],
}

#[derive(Serialize)]
struct SpriteRow {
    name: String,
    fps: f64,
    frames: usize,
    work_area: (u32, u32),
    labels: Vec<(u32, String)>,
    stops: Vec<u32>,
    commands: Vec<(u32, String, String)>,
}

fn sprite_row(s: &psprender::popcap::Sprite, fallback: u8) -> SpriteRow {
    SpriteRow {
        name: s.name.as_ref().map(|n| n.text()).unwrap_or_default(),
        fps: s.fps(fallback),
        frames: s.frames.len(),
        work_area: s.work_area(),
        labels: s.labels(),
        stops: (0..s.frames.len()).filter(|&i| s.frames[i].stop).map(|i| i as u32).collect(),
        commands: s
            .frames
            .iter()
            .enumerate()
            .flat_map(|(i, f)| f.commands.iter().flatten().map(move |(c, a)| (i as u32, c.text(), a.text())))
            .collect(),
    }
}

fn listing(path: &str, a: &Animation) -> Listing {
    Listing {
        file: path.into(),
        version: a.version,
        frame_rate: a.frame_rate,
        position: a.position.map(|v| f64::from(v) / 20.0),
        size: a.size.map(|v| f64::from(v) / 20.0),
        images: a
            .images
            .iter()
            .enumerate()
            .map(|(index, i)| ImageRow {
                index,
                name: i.name.text(),
                size: i.pixel_size(),
                matrix: i.transform.affine().0,
            })
            .collect(),
        sprites: a.sprites.iter().map(|s| sprite_row(s, a.frame_rate)).collect(),
        main_sprite: a.main_sprite.as_ref().map(|s| sprite_row(s, a.frame_rate)),
    }
}

fn listing_text(l: &Listing) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{}: PopCap PAM version {}, {} fps, position ({}, {}), size {}x{}",
        l.file, l.version, l.frame_rate, l.position[0], l.position[1], l.size[0], l.size[1]
    );
    let _ = writeln!(o, "{} image(s)", l.images.len());
    for i in &l.images {
        let m = i.matrix;
        let _ = writeln!(
            o,
            "  [{}] {:?} {}x{} matrix [{:?} {:?} {:?} {:?}] at ({:?}, {:?})",
            i.index, i.name, i.size[0], i.size[1], m[0], m[1], m[2], m[3], m[4], m[5]
        );
    }
    let sprite = |o: &mut String, title: String, s: &SpriteRow| {
        let _ = writeln!(
            o,
            "{title} {:?}: {} frame(s) at {:?} fps, work area {}..={}",
            s.name, s.frames, s.fps, s.work_area.0, s.work_area.1
        );
        if !s.labels.is_empty() {
            let v: Vec<String> = s.labels.iter().map(|(f, l)| format!("{l}@{f}")).collect();
            let _ = writeln!(o, "  labels: {}", v.join(", "));
        }
        if !s.stops.is_empty() {
            let v: Vec<String> = s.stops.iter().map(u32::to_string).collect();
            let _ = writeln!(o, "  stops: {}", v.join(", "));
        }
        for (f, c, a) in &s.commands {
            let _ = writeln!(o, "  command @{f}: {c} {a:?}");
        }
    };
    let _ = writeln!(o, "{} sprite(s)", l.sprites.len());
    for (i, s) in l.sprites.iter().enumerate() {
        sprite(&mut o, format!("  sprite {i}"), s);
    }
    match &l.main_sprite {
        Some(s) => sprite(&mut o, "main sprite".into(), s),
        None => o.push_str("no main sprite\n"),
    }
    o
}

#[derive(Serialize)]
struct DrawReport<'a> {
    file: String,
    frame: u32,
    label: Option<String>,
    draw_count: usize,
    bbox: Option<[f64; 4]>,
    draws: &'a [Draw],
}

fn draws_text(r: &DrawReport, a: &Animation) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "{}: frame {}, {} draw(s)", r.file, r.frame, r.draw_count);
    for d in r.draws {
        let m = d.matrix.0;
        let name = a.images.get(d.image).map(|i| i.name.text()).unwrap_or_default();
        let path: Vec<String> = d
            .path
            .iter()
            .map(|s| match s.frame {
                Some(f) => format!("{}:sprite {}@{f}", s.layer, s.resource),
                None => format!("{}:image {}", s.layer, s.resource),
            })
            .collect();
        let _ = writeln!(
            o,
            "  image {} {:?} [{:.6} {:.6} {:.6} {:.6} {:.6} {:.6}] rgba [{:.4} {:.4} {:.4} {:.4}]{}{} via {}",
            d.image,
            name,
            m[0],
            m[1],
            m[2],
            m[3],
            m[4],
            m[5],
            d.color[0],
            d.color[1],
            d.color[2],
            d.color[3],
            if d.additive { " additive" } else { "" },
            d.src_rect.map(|r| format!(" src {r:?}")).unwrap_or_default(),
            path.join(" / ")
        );
    }
    if let Some(b) = r.bbox {
        let _ = writeln!(o, "  bbox ({:.3}, {:.3})-({:.3}, {:.3})", b[0], b[1], b[2], b[3]);
    }
    o
}

fn stdout(s: &str) -> anyhow::Result<()> {
    // A closed pipe (`| head`) ends the output quietly.
    match std::io::Write::write_all(&mut std::io::stdout().lock(), s.as_bytes()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e).context("writing to stdout"),
        _ => Ok(()),
    }
}

/// The images of `anim` from `dir` (found or placeholders; missing ones listed once on stderr).
pub(crate) fn load_images(anim: &Animation, dir: Option<&Path>) -> anyhow::Result<ImageSet> {
    let set = ImageSet::load(anim, dir)?;
    if !set.missing.is_empty() {
        let names: Vec<String> = set.missing.iter().map(|(i, k)| format!("{i}:{k}")).collect();
        eprintln!(
            "{} of {} image(s) not found{}; drawn as placeholders: {}",
            set.missing.len(),
            anim.images.len(),
            dir.map(|d| format!(" in {}", d.display())).unwrap_or_default(),
            names.join(", ")
        );
    }
    Ok(set)
}

/// The images and render options.
fn prepare(args: &Args, anim: &Animation) -> anyhow::Result<(ImageSet, RenderOptions)> {
    let set = load_images(anim, args.images.as_deref())?;
    let size = args.size.unwrap_or_else(|| anim.pixel_size().map(|v| (f64::from(v) * args.scale).ceil() as u32));
    let opts = RenderOptions {
        size,
        scale: args.scale,
        background: args.background.0,
        nearest: args.nearest,
        tile: 512,
        threads: args.threads.unwrap_or(0),
    };
    Ok((set, opts))
}

/// Draw lists of the sequence to write: (frame number, draws).
fn sequence(args: &Args, tl: &Arc<Timeline>) -> anyhow::Result<Vec<(u32, Vec<Draw>)>> {
    let mut out = Vec::new();
    if let Some((a, b)) = args.frames {
        let mut p = Player::scrubbed(Arc::clone(tl), a)?;
        for n in a..=b {
            if n > a {
                p.tick();
            }
            out.push((n, p.draw_list()));
        }
    } else if let Some(label) = &args.label {
        let (start, end) = clip(tl, label)?;
        let mut p = Player::new(Arc::clone(tl), Mode::Play, start)?;
        for _ in start..=end {
            out.push((p.frame(), p.draw_list()));
            p.tick();
        }
    } else {
        bail!("-o needs --frames A..B (with a %d pattern) or --label NAME");
    }
    Ok(out)
}

fn clip(tl: &Timeline, label: &str) -> anyhow::Result<(u32, u32)> {
    let main = tl.anim.main()?;
    main.clip(label).with_context(|| {
        let known: Vec<String> = main.labels().into_iter().map(|(_, l)| l).collect();
        format!("no label {label:?} (labels: {})", known.join(", "))
    })
}

fn write(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    Ok(output::write(path, bytes)?)
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let start = std::time::Instant::now();
    let path = args.pam.display().to_string();
    let bytes = std::fs::read(&args.pam).with_context(|| format!("reading {path}"))?;
    let anim = Animation::parse(&bytes).with_context(|| format!("parsing {path}"))?;
    let tl = Arc::new(Timeline::new(&anim).with_context(|| format!("evaluating {path}"))?);

    if let Some(out) = &args.output {
        let pattern = frame_path(out, 0).is_some();
        let ext = out.extension().map(|e| e.to_string_lossy().to_lowercase()).unwrap_or_default();
        match (args.frames.is_some(), pattern, ext.as_str()) {
            (true, true, _) => output::prepare(&frame_path(out, 0).expect("pattern"))?,
            (true, false, _) => bail!("--frames needs -o with a %d or %0Nd pattern, got {}", out.display()),
            (false, _, "png" | "apng" | "gif") if !pattern => output::prepare(out)?,
            _ => bail!("-o {}: with --label, an .png, .apng or .gif file", out.display()),
        }
        let frames = sequence(&args, &tl).with_context(|| path.clone())?;
        let (set, opts) = prepare(&args, &anim)?;
        let images = render_all(&set, &opts, &frames, args.threads)?;
        if pattern {
            for ((n, _), img) in frames.iter().zip(&images) {
                write(&frame_path(out, *n).expect("pattern checked above"), &png_bytes(img)?)?;
            }
        } else {
            let fps = anim.main()?.fps(anim.frame_rate);
            let data = if ext == "gif" { gif_bytes(&images, fps)? } else { apng_bytes(&images, fps)? };
            write(out, &data)?;
        }
        println!(
            "wrote {} frame(s) to {} in {:.1} ms",
            frames.len(),
            out.display(),
            start.elapsed().as_secs_f64() * 1e3
        );
        return Ok(ExitCode::SUCCESS);
    }

    let frame = match (&args.frame, &args.label) {
        (Some(f), _) => Some(*f),
        (None, Some(l)) => Some(clip(&tl, l).with_context(|| path.clone())?.0),
        (None, None) => None,
    };
    let Some(frame) = frame else {
        if args.render.is_some() {
            bail!("--render needs --frame N or --label NAME");
        }
        let l = listing(&path, &anim);
        let s = if args.json { serde_json::to_string_pretty(&l)? + "\n" } else { listing_text(&l) };
        stdout(&s)?;
        return Ok(ExitCode::SUCCESS);
    };
    let player = match &args.label {
        Some(_) => Player::new(Arc::clone(&tl), Mode::Play, frame),
        None => Player::scrubbed(Arc::clone(&tl), frame),
    }
    .with_context(|| path.clone())?;
    let frame = player.frame();
    let draws = player.draw_list();
    if let Some(out) = &args.render {
        output::prepare(out)?;
        let (set, opts) = prepare(&args, &anim)?;
        let img =
            Renderer::new(&set, opts)?.render(&draws).with_context(|| format!("rendering {path} frame {frame}"))?;
        write(out, &png_bytes(&img)?)?;
        println!("wrote {} in {:.1} ms", out.display(), start.elapsed().as_secs_f64() * 1e3);
        return Ok(ExitCode::SUCCESS);
    }
    let report = DrawReport {
        file: path,
        frame,
        label: args.label.clone(),
        draw_count: draws.len(),
        bbox: bounds(&anim, &draws),
        draws: &draws,
    };
    let s = if args.json { serde_json::to_string_pretty(&report)? + "\n" } else { draws_text(&report, &anim) };
    stdout(&s)?;
    Ok(ExitCode::SUCCESS)
}

/// Render every draw list in order, in parallel: chunks of frames on the rayon pool (`threads`
/// workers), each chunk on its own renderer with one raster thread, so the bytes do not
/// depend on the thread count. A progress bar counts frames.
fn render_all(
    set: &ImageSet,
    opts: &RenderOptions,
    frames: &[(u32, Vec<Draw>)],
    threads: Option<usize>,
) -> anyhow::Result<Vec<ge::display::Image>> {
    use rayon::prelude::*;
    let bar = indicatif::ProgressBar::new(frames.len() as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} frames {elapsed} (eta {eta})")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let one = RenderOptions { threads: 1, ..opts.clone() };
    let run = || -> anyhow::Result<Vec<ge::display::Image>> {
        let chunks: Vec<Vec<ge::display::Image>> = frames
            .par_chunks(8)
            .map(|chunk| -> anyhow::Result<Vec<ge::display::Image>> {
                let mut r = Renderer::new(set, one.clone())?;
                chunk
                    .iter()
                    .map(|(n, draws)| {
                        let img = r.render(draws).with_context(|| format!("rendering frame {n}"))?;
                        bar.inc(1);
                        Ok(img)
                    })
                    .collect()
            })
            .collect::<anyhow::Result<_>>()?;
        Ok(chunks.into_iter().flatten().collect())
    };
    let images = match threads {
        Some(t) => rayon::ThreadPoolBuilder::new().num_threads(t).build()?.install(run)?,
        None => run()?,
    };
    bar.finish_and_clear();
    Ok(images)
}
