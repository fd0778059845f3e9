//! `psprender pam ANIM.pam [--anim N|NAME] [--frame F] [--json]`: what a BBS PAM holds.
//!
//! Lists every slot (index, name, fps, frames, loop, bones, channel counts by kind and by
//! storage form) and the channels of the selected animations (`--anim`, default all). With
//! `--frame` it adds each bone's evaluated channels and local matrix (default pose options:
//! R = Rz·Ry·Rx, local = T·R·S). Matrices are printed as the PMO stores them: 16 floats, rows =
//! X axis, Y axis, Z axis, translation (row-vector convention; the same floats as glam's
//! column-major column-vector matrix).

use anyhow::Context;
use psprender::pam::eval::loop_frame;
use psprender::pam::{Animation, ChannelKind, EulerOrder, KeyForm, Keys};
use serde::Serialize;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// PAM file (BBS animation container).
    pub pam: PathBuf,
    /// Only this animation: slot index or name.
    #[arg(long)]
    pub anim: Option<String>,
    /// Also evaluate every bone at this frame, 0..=1000000 (fractional frames interpolate).
    /// Past the animation's end its loop rule applies: from loop-from the frame jumps back to
    /// loop-to; an animation that does not loop holds its last frame.
    #[arg(long, allow_hyphen_values = true, value_parser = super::args::frame)]
    pub frame: Option<f32>,
    /// JSON output instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Serialize)]
struct Report {
    file: String,
    version: u16,
    slots: usize,
    animations: Vec<SlotReport>,
}

#[derive(Serialize)]
struct SlotReport {
    index: usize,
    name: String,
    empty: bool,
    #[serde(flatten)]
    anim: Option<AnimReport>,
}

#[derive(Serialize)]
struct AnimReport {
    flag: u16,
    fps: u8,
    interpolation_frames: u8,
    loop_from: u16,
    loop_to: u16,
    frame_count: u16,
    bones: usize,
    wide: bool,
    channel_counts: Counts,
    #[serde(skip_serializing_if = "Option::is_none")]
    bone_channels: Option<Vec<BoneReport>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pose: Option<PoseReport>,
}

#[derive(Serialize, Default)]
struct Counts {
    total: usize,
    translation: usize,
    rotation: usize,
    scale: usize,
    constant: usize,
    full: usize,
    sparse: usize,
}

#[derive(Serialize)]
struct BoneReport {
    bone: usize,
    mask: u16,
    channels: Vec<ChannelReport>,
}

#[derive(Serialize)]
struct ChannelReport {
    kind: &'static str,
    form: &'static str,
    count: usize,
    max: f32,
    min: f32,
    /// Frame of the first and last key (sparse and full channels).
    #[serde(skip_serializing_if = "Option::is_none")]
    frames: Option<[u16; 2]>,
}

#[derive(Serialize)]
struct PoseReport {
    /// The frame asked for.
    frame: f32,
    /// The frame evaluated after the loop rule (equal to `frame` inside the animation).
    evaluated_frame: f32,
    bones: Vec<BonePose>,
}

#[derive(Serialize)]
struct BonePose {
    bone: usize,
    translation: [f32; 3],
    rotation: [f32; 3],
    scale: [f32; 3],
    /// Local matrix, PMO storage order (rows: X axis, Y axis, Z axis, translation).
    local: [f32; 16],
}

fn form_name(f: KeyForm) -> &'static str {
    match f {
        KeyForm::Constant => "constant",
        KeyForm::Full => "full",
        KeyForm::Sparse => "sparse",
    }
}

fn counts(a: &Animation) -> Counts {
    let mut c = Counts::default();
    for (_, kind, ch) in a.channels() {
        c.total += 1;
        match kind {
            k if k >= ChannelKind::ScaleX => c.scale += 1,
            k if k >= ChannelKind::RotationX => c.rotation += 1,
            _ => c.translation += 1,
        }
        match ch.keys.form() {
            KeyForm::Constant => c.constant += 1,
            KeyForm::Full => c.full += 1,
            KeyForm::Sparse => c.sparse += 1,
        }
    }
    c
}

fn anim_report(a: &Animation, detail: bool, frame: Option<f32>) -> AnimReport {
    let bone_channels = detail.then(|| {
        a.bones
            .iter()
            .enumerate()
            .map(|(bone, bc)| BoneReport {
                bone,
                mask: bc.mask(),
                channels: bc
                    .channels
                    .iter()
                    .zip(ChannelKind::ALL)
                    .filter_map(|(c, k)| c.as_ref().map(|c| (c, k)))
                    .map(|(c, k)| ChannelReport {
                        kind: k.short(),
                        form: form_name(c.keys.form()),
                        count: c.keys.count(),
                        max: c.max,
                        min: c.min,
                        frames: match &c.keys {
                            Keys::Constant => None,
                            Keys::Full(v) => Some([0, (v.len().max(1) - 1) as u16]),
                            Keys::Sparse(v) => v.first().zip(v.last()).map(|(f, l)| [f.frame, l.frame]),
                        },
                    })
                    .collect(),
            })
            .collect()
    });
    let pose = frame.filter(|_| detail).map(|frame| {
        let evaluated_frame = loop_frame(frame, a.frame_count, a.loop_from, a.loop_to);
        (frame, evaluated_frame)
    });
    let pose = pose.map(|(frame, evaluated_frame)| PoseReport {
        frame,
        evaluated_frame,
        bones: a
            .evaluate(evaluated_frame)
            .iter()
            .enumerate()
            .map(|(bone, t)| BonePose {
                bone,
                translation: t.translation,
                rotation: t.rotation,
                scale: t.scale,
                local: t.local_matrix(EulerOrder::default()).to_cols_array(),
            })
            .collect(),
    });
    AnimReport {
        flag: a.flag,
        fps: a.fps,
        interpolation_frames: a.interpolation_frames,
        loop_from: a.loop_from,
        loop_to: a.loop_to,
        frame_count: a.frame_count,
        bones: a.bones.len(),
        wide: a.wide(),
        channel_counts: counts(a),
        bone_channels,
        pose,
    }
}

fn text(r: &Report) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "{}: PAM version {}, {} slot(s)", r.file, r.version, r.slots);
    // Debug formatting: shortest round-trip digits, exponent form for tiny values.
    let v3 = |v: [f32; 3]| format!("({:?}, {:?}, {:?})", v[0], v[1], v[2]);
    for s in &r.animations {
        let Some(a) = &s.anim else {
            let _ = writeln!(o, "[{}] {:?}: empty slot", s.index, s.name);
            continue;
        };
        let c = &a.channel_counts;
        let _ = writeln!(
            o,
            "[{}] {:?}: fps {}, {} frames{}, loop {} -> {}, interpolation {}, flag {}, {} bones, {} channels \
             (T {}, R {}, S {}; {} constant, {} full, {} sparse)",
            s.index,
            s.name,
            a.fps,
            a.frame_count,
            if a.wide { " (wide)" } else { "" },
            a.loop_from,
            a.loop_to,
            a.interpolation_frames,
            a.flag,
            a.bones,
            c.total,
            c.translation,
            c.rotation,
            c.scale,
            c.constant,
            c.full,
            c.sparse
        );
        for b in a.bone_channels.iter().flatten() {
            let _ = writeln!(o, "  bone {} mask {:#05x}", b.bone, b.mask);
            for ch in &b.channels {
                let frames = ch.frames.map(|[f, l]| format!(" frames {f}..{l}")).unwrap_or_default();
                let _ = writeln!(
                    o,
                    "    {} {} {} key(s) min {:?} max {:?}{frames}",
                    ch.kind, ch.form, ch.count, ch.min, ch.max
                );
            }
        }
        if let Some(p) = &a.pose {
            if p.evaluated_frame == p.frame {
                let _ = writeln!(o, "  pose at frame {:?}", p.frame);
            } else {
                let _ = writeln!(
                    o,
                    "  pose at frame {:?} (loop rule: evaluated at frame {:?})",
                    p.frame, p.evaluated_frame
                );
            }
            for b in &p.bones {
                let _ = writeln!(o, "  bone {} T {} R {} S {}", b.bone, v3(b.translation), v3(b.rotation), v3(b.scale));
                let rows: Vec<String> =
                    b.local.chunks(4).map(|r| format!("[{:?} {:?} {:?} {:?}]", r[0], r[1], r[2], r[3])).collect();
                let _ = writeln!(o, "    local {}", rows.join(" "));
            }
        }
    }
    o
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let path = args.pam.display().to_string();
    let pam = super::render::load_pam(&args.pam)?;
    let selected = match &args.anim {
        Some(sel) => Some(super::render::select_animation(&pam, Some(sel), &args.pam)?),
        None => None,
    };
    let animations = pam
        .animations
        .iter()
        .enumerate()
        .map(|(index, a)| SlotReport {
            index,
            name: pam.slot_name(index),
            empty: a.is_none(),
            anim: a.as_ref().map(|a| anim_report(a, selected.is_none_or(|s| s == index), args.frame)),
        })
        .collect();
    let report = Report { file: path, version: pam.version, slots: pam.animations.len(), animations };
    let out = if args.json { serde_json::to_string_pretty(&report)? + "\n" } else { text(&report) };
    // A closed pipe (`| head`) ends the output quietly instead of panicking like print! would.
    match std::io::Write::write_all(&mut std::io::stdout().lock(), out.as_bytes()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => return Err(e).context("writing to stdout"),
        _ => {}
    }
    Ok(ExitCode::SUCCESS)
}
