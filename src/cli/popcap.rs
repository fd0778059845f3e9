//! `psprender popcap FILE.pam`: a PopCap PAM (PvZ2 PopAnim) listed, evaluated and drawn
//! through the GE model.
//!
//! * no frame options: header, images, sprites, labels, stops and commands (`--json` too);
//! * `--frame N` / `--label NAME`: that frame's draw list (text, or `--json`);
//! * `--render out.png` with `--frame N` or `--label NAME` (the clip's first frame);
//! * `--frames A..B -o f_%04d.png` (one PNG per frame), or `-o anim.png|anim.apng|anim.gif`
//!   without a `%d` (one animation), for `--frames A..B` or the clip of `--label NAME` at the
//!   main sprite's frame rate.
//!
//! `--frame`/`--frames` scrub the timeline from frame 0 (STOP ignored, child sprites timed
//! from their append); `--label` plays the clip as the game does (from the label, children
//! restarted, up to the next STOP). Images come from `--images DIR`; missing ones are
//! drawn as placeholders and listed once on stderr.

use super::render::frame_path;
use anyhow::{bail, Context};
use psprender::popcap::eval::{bounds, Mode};
use psprender::popcap::output::{apng_bytes, gif_bytes, png_bytes, write_atomic};
use psprender::popcap::render::{ImageSet, RenderOptions, Renderer};
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
    /// Evaluate this main-timeline frame (scrubbed from frame 0).
    #[arg(long, conflicts_with_all = ["frames", "label"])]
    pub frame: Option<u32>,
    /// A clip: from the label's frame to the next STOP, played as the game does.
    #[arg(long)]
    pub label: Option<String>,
    /// Frames A..B (inclusive), scrubbed; needs -o.
    #[arg(long, value_parser = super::render::parse_range, conflicts_with = "label", requires = "output")]
    pub frames: Option<(u32, u32)>,
    /// Draw --frame N (or the first frame of --label) to this PNG.
    #[arg(long)]
    pub render: Option<PathBuf>,
    /// Sequence output: a pattern with %d/%0Nd (PNG per frame) or an .png/.apng/.gif animation.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Directory of PNG images found by the PAM's image names.
    #[arg(long)]
    pub images: Option<PathBuf>,
    /// Canvas size WxH in pixels (default: the PAM's size times --scale).
    #[arg(long, value_parser = parse_size)]
    pub size: Option<[u32; 2]>,
    /// Canvas pixels per PAM pixel.
    #[arg(long, default_value_t = 1.0)]
    pub scale: f64,
    /// Background RRGGBB, or "transparent".
    #[arg(long, default_value = "transparent", value_parser = parse_background)]
    pub background: Background,
    /// Nearest-texel sampling instead of bilinear.
    #[arg(long)]
    pub nearest: bool,
    /// Raster threads (default: all cores); the image is the same for any count.
    #[arg(long)]
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

fn parse_size(s: &str) -> Result<[u32; 2], String> {
    let (w, h) = s.split_once(['x', 'X']).ok_or("expected WxH")?;
    let w: u32 = w.parse().map_err(|e| format!("{e}"))?;
    let h: u32 = h.parse().map_err(|e| format!("{e}"))?;
    Ok([w, h])
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

fn renderer(args: &Args, anim: &Animation) -> anyhow::Result<Renderer> {
    let set = ImageSet::load(anim, args.images.as_deref())?;
    if !set.missing.is_empty() {
        let names: Vec<String> = set.missing.iter().map(|(i, k)| format!("{i}:{k}")).collect();
        eprintln!(
            "{} of {} image(s) not found{}; drawn as placeholders: {}",
            set.missing.len(),
            anim.images.len(),
            args.images.as_ref().map(|d| format!(" in {}", d.display())).unwrap_or_default(),
            names.join(", ")
        );
    }
    if !(args.scale.is_finite() && args.scale > 0.0 && args.scale <= 64.0) {
        bail!("--scale {} (0 < scale <= 64)", args.scale);
    }
    let size = args.size.unwrap_or_else(|| anim.pixel_size().map(|v| (f64::from(v) * args.scale).ceil() as u32));
    let opts = RenderOptions {
        size,
        scale: args.scale,
        background: args.background.0,
        nearest: args.nearest,
        tile: 512,
        threads: args.threads.unwrap_or(0),
    };
    Ok(Renderer::new(&set, opts)?)
}

/// Draw lists of the sequence to write: (frame number, draws).
fn sequence(args: &Args, tl: &Arc<Timeline>) -> anyhow::Result<Vec<(u32, Vec<Draw>)>> {
    let mut out = Vec::new();
    if let Some((a, b)) = args.frames {
        let mut p = Player::scrubbed(Arc::clone(tl), a)?;
        let count = tl.anim.main()?.frames.len() as u32;
        if b >= count {
            bail!("--frames {a}..{b}: the main sprite has {count} frames");
        }
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
        bail!("-o needs --frames A..B or --label NAME");
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
    write_atomic(path, bytes).with_context(|| format!("writing {}", path.display()))
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let start = std::time::Instant::now();
    let path = args.pam.display().to_string();
    let bytes = std::fs::read(&args.pam).with_context(|| format!("reading {path}"))?;
    let anim = Animation::parse(&bytes).with_context(|| format!("parsing {path}"))?;
    let tl = Arc::new(Timeline::new(&anim).with_context(|| format!("evaluating {path}"))?);

    if let Some(out) = &args.output {
        let frames = sequence(&args, &tl).with_context(|| path.clone())?;
        let mut r = renderer(&args, &anim)?;
        let bar = indicatif::ProgressBar::new(frames.len() as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} frames {elapsed} (eta {eta})")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        let fps = anim.main()?.fps(anim.frame_rate);
        if frame_path(out, 0).is_some() {
            for (n, draws) in &frames {
                let img = r.render(draws).with_context(|| format!("rendering frame {n}"))?;
                let p = frame_path(out, *n).expect("pattern checked above");
                write(&p, &png_bytes(&img)?)?;
                bar.inc(1);
            }
        } else {
            let mut images = Vec::with_capacity(frames.len());
            for (n, draws) in &frames {
                images.push(r.render(draws).with_context(|| format!("rendering frame {n}"))?);
                bar.inc(1);
            }
            let ext = out.extension().map(|e| e.to_string_lossy().to_lowercase()).unwrap_or_default();
            let data = match ext.as_str() {
                "gif" => gif_bytes(&images, fps)?,
                "png" | "apng" => apng_bytes(&images, fps)?,
                _ => bail!("-o {}: use a %d pattern, .png/.apng or .gif", out.display()),
            };
            write(out, &data)?;
        }
        bar.finish_and_clear();
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
    let draws = player.draw_list();
    if let Some(out) = &args.render {
        let img = renderer(&args, &anim)?.render(&draws).with_context(|| format!("rendering {path} frame {frame}"))?;
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
