//! `psprender kh2 FILE`: what a Kingdom Hearts II BAR, ANB, MSET or bare motion holds, motions
//! evaluated at a time, and posed skeletons drawn through the GE model.
//!
//! * Listing: BAR entries (type, name, offset, size, duplicate flag), each motion's kind and
//!   table counts, triggers; MSET slots (type-17 entries) with the player-slot reading
//!   4 × motion + state when the set is a player set.
//! * `--time T` (game frames = GFR ticks, fractional) evaluates `--motion N` (MSET slot / BAR
//!   entry index; default the first motion): joint channels, and with `--skeleton` local and
//!   global matrices (16 floats in KH2 row-vector storage order). Raw motions play their
//!   stored absolute matrices at LFR frame T·fps/60.
//! * `--render out.png` (or `--render -o out.png`) draws the posed skeleton (needs `--skeleton`);
//!   `--frames A..B -o f_%04d.png` draws game frames A..B of playback (FrameStart onwards,
//!   looping over FrameReturn..FrameEnd) with one camera framing every frame, in parallel with a
//!   progress bar. Outputs follow [`psprender::output`]: folders created and checked before any
//!   work, files written atomically.
//! * `--constraints` applies the motion's constraints and bends flagged leg chains (best effort,
//!   [`psprender::kh2::constraint`]); without it poses are plain FK.

use anyhow::{bail, Context};
use psprender::kh2::bar::{payload, Bar, Payload, Placement};
use psprender::kh2::constraint;
use psprender::kh2::eval::{Evaluator, Timing, CHANNELS, GFR};
use psprender::kh2::render::{self, Style};
use psprender::kh2::trigger::Triggers;
use psprender::kh2::{Motion, Skeleton};
use serde::Serialize;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// A BAR/ANB/MSET file or a bare motion.
    pub file: PathBuf,
    /// Motion to evaluate or draw: MSET slot / BAR entry index (default: the first motion).
    #[arg(long)]
    pub motion: Option<usize>,
    /// Evaluate at this time in game frames (1/60 s ticks; fractional and negative allowed: the
    /// curves' pre/post-infinity modes apply outside the keys).
    #[arg(long, allow_hyphen_values = true, value_parser = super::args::finite)]
    pub time: Option<f32>,
    /// Skeleton: an MDLX model (its bone table) or JSON {"bones": [{"parent", "scale", "rotation", "translation"}]}.
    #[arg(long)]
    pub skeleton: Option<PathBuf>,
    /// Draw the skeleton posed at --time (default 0) as a 480x272 PNG: to PATH, else to -o.
    #[arg(long, requires = "skeleton", num_args = 0..=1, value_name = "PATH")]
    pub render: Option<Option<PathBuf>>,
    /// Render frames A..B (inclusive, whole frames) in parallel; -o must hold a frame-number
    /// pattern such as %04d. Frames past the end follow the loop rule, as for --frame.
    #[arg(long, value_parser = super::args::frame_range, requires = "skeleton", conflicts_with_all = ["render", "time"])]
    pub frames: Option<(u32, u32)>,
    /// Where to write the PNG (--render) or the frame pattern (--frames; default: the input's name
    /// with _%04d.png, or .png for --render, in the current folder).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    #[arg(long, allow_hyphen_values = true, help = super::args::THREADS_HELP, value_parser = super::args::threads)]
    pub threads: Option<usize>,
    /// JSON output instead of text.
    #[arg(long)]
    pub json: bool,
    /// Apply the motion's constraints and bend its flagged leg chains (best effort, not exact:
    /// see psprender::kh2::constraint); off by default.
    #[arg(long, requires = "skeleton")]
    pub constraints: bool,
}

#[derive(Serialize)]
struct Report {
    file: String,
    container: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    bar: Option<BarReport>,
    motions: Vec<MotionReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    evaluation: Option<Evaluation>,
}

#[derive(Serialize)]
struct BarReport {
    motionset_type: i32,
    entries: Vec<EntryReport>,
}

#[derive(Serialize)]
struct EntryReport {
    index: usize,
    kind: u16,
    kind_name: &'static str,
    name: String,
    duplicate: u16,
    offset: u32,
    size: u32,
    /// Player MSETs: (motion id, state) of this slot.
    #[serde(skip_serializing_if = "Option::is_none")]
    player_slot: Option<[usize; 2]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    triggers: Option<Triggers>,
}

#[derive(Serialize)]
struct MotionReport {
    /// Entry index (0 for a bare motion).
    index: usize,
    kind: &'static str,
    subtype: i32,
    frame_start: f32,
    frame_end: f32,
    fps: f32,
    frame_return: f32,
    counts: Vec<(&'static str, usize)>,
}

#[derive(Serialize)]
struct Evaluation {
    motion: usize,
    time: f32,
    joints: Vec<JointReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    root: Option<[f32; 9]>,
    /// With --constraints: what was applied.
    #[serde(skip_serializing_if = "Option::is_none")]
    constraints: Option<psprender::kh2::constraint::Report>,
}

#[derive(Serialize)]
struct JointReport {
    joint: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    channels: Option<[f32; 9]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    local: Option<[f32; 16]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    global: Option<[f32; 16]>,
}

/// A decoded input: its BAR (if any) with placements, and its motions by entry index.
pub(crate) struct Input {
    pub(crate) bar: Option<(Bar, Vec<Placement>)>,
    pub(crate) motions: Vec<(usize, Motion)>,
    triggers: Vec<(usize, Triggers)>,
}

pub(crate) fn load(path: &Path) -> anyhow::Result<Input> {
    let name = path.display().to_string();
    let bytes = std::fs::read(path).with_context(|| format!("reading {name}"))?;
    if !Bar::is_bar(&bytes) {
        let m = Motion::parse(&bytes).with_context(|| format!("parsing {name} as a motion"))?;
        return Ok(Input { bar: None, motions: vec![(0, m)], triggers: Vec::new() });
    }
    let (bar, places) = Bar::parse_placed(&bytes).with_context(|| format!("parsing {name}"))?;
    let mut motions = Vec::new();
    let mut triggers = Vec::new();
    for (i, (e, p)) in bar.entries.iter().zip(&places).enumerate() {
        let at = p.offset as usize;
        match payload(e, at).with_context(|| format!("{name}: entry {i}"))? {
            Payload::Motion(m) => motions.push((i, m)),
            Payload::Triggers(t) => triggers.push((i, t)),
            // An MSET slot: an ANB of its own; its motion is listed under the slot index.
            Payload::Anb(inner) => {
                let (_, inner_places) = Bar::parse_placed(&e.data).with_context(|| format!("{name}: entry {i}"))?;
                let anb = psprender::kh2::bar::Anb::from_bar(&inner, &inner_places, at)
                    .with_context(|| format!("{name}: entry {i}"))?;
                if let Some(m) = anb.motion {
                    motions.push((i, m));
                }
                if let Some(t) = anb.triggers {
                    triggers.push((i, t));
                }
            }
            Payload::Empty | Payload::Bytes => {}
        }
    }
    Ok(Input { bar: Some((bar, places)), motions, triggers })
}

pub(crate) fn load_skeleton(path: &Path) -> anyhow::Result<Skeleton> {
    let name = path.display().to_string();
    let bytes = std::fs::read(path).with_context(|| format!("reading {name}"))?;
    if Bar::is_bar(&bytes) {
        Skeleton::from_mdlx(&bytes).with_context(|| format!("parsing {name} as an MDLX"))
    } else {
        let text = String::from_utf8(bytes).with_context(|| format!("{name}: neither an MDLX nor UTF-8 JSON"))?;
        Skeleton::from_json(&text).map_err(|e| anyhow::anyhow!("{name}: {e}"))
    }
}

fn counts(m: &Motion) -> Vec<(&'static str, usize)> {
    match m {
        Motion::Raw(r) => vec![
            ("bones", r.bone_count as usize),
            ("frames", r.frames.len()),
            ("position_matrices", r.position_matrices.len()),
            ("extra_bytes", r.common.extra.len()),
        ],
        Motion::Interpolated(m) => vec![
            ("bones", m.bone_count.max(0) as usize),
            ("joints", m.total_joints()),
            ("initial_poses", m.initial_poses.len()),
            ("fcurves_forward", m.fcurves_forward.len()),
            ("fcurves_inverse", m.fcurves_inverse.len()),
            ("keys", m.keys.len()),
            ("key_times", m.key_times.len()),
            ("key_values", m.key_values.len()),
            ("tangents", m.tangents.len()),
            ("constraints", m.constraints.len()),
            ("activations", m.activations.len()),
            ("limiters", m.limiters.len()),
            ("expressions", m.expressions.len()),
            ("expression_nodes", m.expression_nodes.len()),
            ("ik_helpers", m.ik_helpers.len()),
            ("external_effectors", m.external_effectors.len()),
            ("extra_bytes", m.common.extra.len()),
        ],
    }
}

/// Global matrices of the selected motion at game time `t` (and the parents to draw with).
struct Posed {
    globals: Vec<glam::Mat4>,
    parents: Vec<i32>,
    bones: usize,
}

/// Globals of an interpolated pose, constrained when asked.
fn pose_globals(ev: &Evaluator, t: f32, constraints: bool) -> (Vec<glam::Mat4>, Option<constraint::Report>) {
    let pose = ev.pose(t);
    match constraints.then(|| constraint::apply(ev, &pose)).flatten() {
        Some((g, report)) => (g, Some(report)),
        None => (pose.globals.unwrap_or_default(), None),
    }
}

fn posed(m: &Motion, skeleton: &Skeleton, t: f32, constraints: bool) -> anyhow::Result<Posed> {
    match m {
        Motion::Interpolated(im) => {
            let ev = Evaluator::new(im, Some(skeleton))?;
            let (globals, _) = pose_globals(&ev, t, constraints);
            let parents = ev.parents.clone().unwrap_or_default();
            Ok(Posed { globals, parents, bones: im.bone_count.max(0) as usize })
        }
        Motion::Raw(r) => {
            if skeleton.bones.len() != r.bone_count as usize {
                bail!("skeleton has {} bones, the raw motion {}", skeleton.bones.len(), r.bone_count);
            }
            let frame = t * r.frame_data.fps.max(0.0) / GFR;
            let parents = skeleton.bones.iter().map(|b| b.parent).collect();
            Ok(Posed { globals: r.matrices_at(frame), parents, bones: r.bone_count as usize })
        }
    }
}

fn evaluate(
    index: usize,
    m: &Motion,
    skeleton: Option<&Skeleton>,
    t: f32,
    constraints: bool,
) -> anyhow::Result<Evaluation> {
    let mut report = None;
    let joints = match m {
        Motion::Interpolated(im) => {
            let ev = Evaluator::new(im, skeleton)?;
            let pose = ev.pose(t);
            let constrained = skeleton.map(|_| pose_globals(&ev, t, constraints));
            if let Some((_, r)) = &constrained {
                report = r.clone();
            }
            let globals = constrained.as_ref().map(|(g, _)| g);
            let with_matrices = skeleton.is_some();
            (0..pose.channels.len())
                .map(|j| JointReport {
                    joint: j,
                    channels: Some(pose.channels[j]),
                    local: with_matrices.then(|| pose.locals[j].to_cols_array()),
                    global: globals.map(|g| g[j].to_cols_array()),
                })
                .collect()
        }
        Motion::Raw(r) => {
            let frame = t * r.frame_data.fps.max(0.0) / GFR;
            r.matrices_at(frame)
                .iter()
                .enumerate()
                .map(|(j, g)| JointReport { joint: j, channels: None, local: None, global: Some(g.to_cols_array()) })
                .collect()
        }
    };
    let root = match m {
        Motion::Interpolated(im) => Some(Evaluator::new(im, None)?.root_channels(t)),
        Motion::Raw(_) => None,
    };
    Ok(Evaluation { motion: index, time: t, joints, root, constraints: report })
}

fn text(r: &Report) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "{}: {}", r.file, r.container);
    if let Some(b) = &r.bar {
        let _ = writeln!(o, "motion-set type {}, {} entries", b.motionset_type, b.entries.len());
        for e in &b.entries {
            let slot = e.player_slot.map(|[m, s]| format!(" (motion {m}, state {s})")).unwrap_or_default();
            let dup = if e.duplicate != 0 { " duplicate" } else { "" };
            let _ = writeln!(
                o,
                "[{}] type {} ({}) {:?} offset {:#x} size {}{dup}{slot}",
                e.index, e.kind, e.kind_name, e.name, e.offset, e.size
            );
            if let Some(t) = &e.triggers {
                for x in &t.range {
                    let _ = writeln!(o, "    range trigger {}..{} id {} params {:?}", x.start, x.end, x.id, x.params);
                }
                for x in &t.frame {
                    let _ = writeln!(o, "    frame trigger {} id {} params {:?}", x.frame, x.id, x.params);
                }
            }
        }
    }
    for m in &r.motions {
        let c: Vec<String> = m.counts.iter().map(|(k, v)| format!("{k} {v}")).collect();
        let _ = writeln!(
            o,
            "motion [{}] {} subtype {}: frames {:?}..{:?} at {:?} fps, return {:?}; {}",
            m.index,
            m.kind,
            m.subtype,
            m.frame_start,
            m.frame_end,
            m.fps,
            m.frame_return,
            c.join(", ")
        );
    }
    if let Some(e) = &r.evaluation {
        let _ = writeln!(o, "motion [{}] at t = {:?} game frames", e.motion, e.time);
        let row = |m: &[f32; 16]| {
            m.chunks(4).map(|r| format!("[{:?} {:?} {:?} {:?}]", r[0], r[1], r[2], r[3])).collect::<Vec<_>>().join(" ")
        };
        for j in &e.joints {
            let mut line = format!("  joint {}", j.joint);
            if let Some(c) = j.channels {
                for (n, v) in CHANNELS.iter().zip(c) {
                    let _ = write!(line, " {n} {v:?}");
                }
            }
            let _ = writeln!(o, "{line}");
            if let Some(l) = &j.local {
                let _ = writeln!(o, "    local {}", row(l));
            }
            if let Some(g) = &j.global {
                let _ = writeln!(o, "    global {}", row(g));
            }
        }
        if let Some(root) = e.root {
            let _ = writeln!(o, "  root {:?}", root);
        }
        if let Some(c) = &e.constraints {
            let _ = writeln!(
                o,
                "  constraints (best effort, not exact): applied {:?}, inactive {:?}, skipped {:?}, bent joints {:?}",
                c.applied, c.inactive, c.skipped, c.bent
            );
        }
    }
    o
}

/// Where --render or --frames write (checked before any work).
fn output_path(args: &Args) -> anyhow::Result<Option<PathBuf>> {
    let stem = args.file.file_stem().map_or_else(|| "kh2".into(), |s| s.to_string_lossy().into_owned());
    if let Some((a, _)) = args.frames {
        let out = args.output.clone().unwrap_or_else(|| PathBuf::from(format!("{stem}_%04d.png")));
        let first = crate::cli::render::frame_path(&out, a)
            .with_context(|| format!("--frames needs an output pattern with %d or %0Nd, got {}", out.display()))?;
        psprender::output::prepare(&first)?;
        return Ok(Some(out));
    }
    let Some(render) = &args.render else { return Ok(None) };
    let out = render.clone().or_else(|| args.output.clone()).unwrap_or_else(|| PathBuf::from(format!("{stem}.png")));
    psprender::output::prepare(&out)?;
    Ok(Some(out))
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let path = args.file.display().to_string();
    let out_path = output_path(&args)?;
    let input = load(&args.file)?;
    let skeleton = args.skeleton.as_deref().map(load_skeleton).transpose()?;
    let pick = || -> anyhow::Result<&(usize, Motion)> {
        match args.motion {
            Some(n) => input.motions.iter().find(|(i, _)| *i == n).with_context(|| {
                let have: Vec<String> = input.motions.iter().map(|(i, m)| format!("{i} ({})", m.kind_name())).collect();
                let have = if have.is_empty() { "none".to_string() } else { have.join(", ") };
                format!("{path}: no motion at index {n}; it has {have}")
            }),
            None => input.motions.first().with_context(|| format!("{path}: no motion")),
        }
    };
    if args.motion.is_some() {
        pick()?;
    }
    if let (Some((a, b)), Some(sk), Some(out)) = (args.frames, &skeleton, &out_path) {
        let (_, m) = pick()?;
        return render_sequence(&args, out, m, sk, a, b);
    }
    if let (Some(out), Some(sk)) = (&out_path, &skeleton) {
        let (_, m) = pick()?;
        let p = posed(m, sk, args.time.unwrap_or(0.0), args.constraints)?;
        let camera = render::auto_camera(&render::bounds([p.globals.as_slice()]));
        let frame = render::build_frame(&p.globals, &p.parents, p.bones, &camera, &Style::default());
        let mut ge = ge::Ge::new();
        if let Some(n) = args.threads {
            ge.set_threads(n);
        }
        save(&frame.render(&mut ge)?, out)?;
        println!("wrote {}", out.display());
        return Ok(ExitCode::SUCCESS);
    }
    let evaluation = match args.time {
        Some(t) => {
            let (i, m) = pick()?;
            Some(
                evaluate(*i, m, skeleton.as_ref(), t, args.constraints)
                    .with_context(|| format!("{path}: evaluating motion {i}"))?,
            )
        }
        None => None,
    };
    let bar = input.bar.as_ref().map(|(bar, places)| {
        let mset = bar.entries.iter().any(|e| e.kind == 17);
        BarReport {
            motionset_type: bar.motionset_type,
            entries: bar
                .entries
                .iter()
                .zip(places)
                .enumerate()
                .map(|(index, (e, p))| EntryReport {
                    index,
                    kind: e.kind,
                    kind_name: e.entry_kind().name(),
                    name: e.name_str(),
                    duplicate: e.duplicate,
                    offset: p.offset,
                    size: p.size,
                    player_slot: (mset && bar.motionset_type == 1).then_some([index / 4, index % 4]),
                    triggers: input.triggers.iter().find(|(i, _)| *i == index).map(|(_, t)| t.clone()),
                })
                .collect(),
        }
    });
    let container = match &input.bar {
        None => "bare motion",
        Some((b, _)) if b.entries.iter().any(|e| e.kind == 17) => "MSET (BAR of ANBs)",
        Some((b, _)) if b.entries.iter().any(|e| e.kind == 9) => "ANB (BAR)",
        Some(_) => "BAR",
    };
    let motions = input
        .motions
        .iter()
        .map(|(index, m)| {
            let f = m.frame_data();
            let subtype = match m {
                Motion::Raw(r) => r.common.subtype,
                Motion::Interpolated(x) => x.common.subtype,
            };
            MotionReport {
                index: *index,
                kind: m.kind_name(),
                subtype,
                frame_start: f.start,
                frame_end: f.end,
                fps: f.fps,
                frame_return: f.ret,
                counts: counts(m),
            }
        })
        .collect();
    let report = Report { file: path, container, bar, motions, evaluation };
    let out = if args.json { serde_json::to_string_pretty(&report)? + "\n" } else { text(&report) };
    match std::io::Write::write_all(&mut std::io::stdout().lock(), out.as_bytes()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => return Err(e).context("writing to stdout"),
        _ => {}
    }
    Ok(ExitCode::SUCCESS)
}

fn save(img: &ge::display::Image, path: &Path) -> anyhow::Result<()> {
    Ok(psprender::output::save_png(&img.crop(480, 272), path)?)
}

/// Game frames `a..=b` of playback, one camera framing them all, in parallel.
fn render_sequence(args: &Args, output: &Path, m: &Motion, sk: &Skeleton, a: u32, b: u32) -> anyhow::Result<ExitCode> {
    use rayon::prelude::*;
    let start = std::time::Instant::now();
    let timing = match m {
        Motion::Interpolated(im) => Timing::of(&im.frame_data),
        Motion::Raw(r) => Timing::of(&r.frame_data),
    };
    let poses =
        (a..=b).map(|f| posed(m, sk, timing.at(f as f32), args.constraints)).collect::<anyhow::Result<Vec<Posed>>>()?;
    let camera = render::auto_camera(&render::bounds(poses.iter().map(|p| p.globals.as_slice())));
    let bar = indicatif::ProgressBar::new(u64::from(b - a + 1));
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} frames {elapsed} (eta {eta})")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let run = || -> anyhow::Result<()> {
        poses.par_iter().enumerate().try_for_each(|(i, p)| -> anyhow::Result<()> {
            let n = a + i as u32;
            let frame = render::build_frame(&p.globals, &p.parents, p.bones, &camera, &Style::default());
            let mut ge = ge::Ge::new();
            ge.set_threads(1);
            let img = frame.render(&mut ge).with_context(|| format!("rendering frame {n}"))?;
            let path = crate::cli::render::frame_path(output, n).expect("pattern checked in output_path");
            save(&img, &path)?;
            bar.inc(1);
            Ok(())
        })
    };
    match args.threads {
        Some(t) => rayon::ThreadPoolBuilder::new().num_threads(t.max(1)).build()?.install(run)?,
        None => run()?,
    }
    bar.finish_and_clear();
    println!("wrote {} frames in {:.1} ms", b - a + 1, start.elapsed().as_secs_f64() * 1e3);
    Ok(ExitCode::SUCCESS)
}
