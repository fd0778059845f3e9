//! Finding the first draw where two renders part: two dumps, one dump under the two GE
//! models, or a dump against a reference image (`psprender diff`).
//!
//! Two replays: each run is replayed once with a flush and a fingerprint of VRAM (where every
//! colour, depth and stencil buffer lives, `ge::draw::fb_target`) after every draw; the first
//! draw whose fingerprints differ is then replayed to on both sides for its pictures and
//! state. Flushing per draw gives up the rasterizer's batching (measured on the conformance
//! dumps: see the module's users), but is the only way to see each draw's own pixels.
//!
//! Against a reference image there is no second replay to step: the differing pixels of the
//! final display are found first, then one replay records which draw last changed each of
//! them; the earliest such draw is the first whose surviving output differs.

use super::{capture, pause_at, state, DebugError};
use ge::display::{diff_image, DisplayBuffer, Image, SCREEN_H, SCREEN_W};
use ge::dump::{replay_steps, Dump, Step, StopAt};
use ge::Ge;
use serde_json::Value;
use std::ops::ControlFlow;

/// One side of a comparison: a dump replayed under a model.
#[derive(Clone, Copy)]
pub struct Side<'a> {
    pub dump: &'a Dump,
    pub model: ge::Model,
}

/// Where two replays part.
pub struct Parting {
    /// The first draw (from 1) whose output differs.
    pub draw: u32,
    /// Colour pixels (of the draw's render target, 480×272 at most) that differ, and depth
    /// values that differ.
    pub colour_pixels: u32,
    pub depth_pixels: u32,
    /// VRAM bytes that differ after the draw (buffers outside the render target included).
    pub vram_bytes: u64,
    /// Registers, matrices and CLUT cache that differ between the two sides at that draw
    /// (`state::changes` from side A to side B).
    pub state: Value,
    /// A's and B's colour buffers compared (`ge::display::diff_image` layout).
    pub image: Image,
    /// The draw command on each side.
    pub command_a: String,
    pub command_b: String,
}

/// The outcome of comparing two replays.
pub enum Outcome {
    /// Same pixels after every draw; both have `draws` draws.
    Same { draws: u32 },
    /// They part at a draw.
    Parted(Box<Parting>),
    /// Same pixels after every draw, but the replays end with different memory: commands
    /// that are not draws (immediate-mode vertices, block transfers) after the last draw
    /// differ. The `Parting`'s `draw` is the last draw; its pictures are the final buffers.
    PartedAfterLastDraw(Box<Parting>),
    /// Same pixels for `common` draws, then one side has more draws.
    Longer { common: u32, draws_a: u32, draws_b: u32 },
}

/// A 64-bit fingerprint of memory (a multiply-rotate hash over 8-byte words; collisions
/// only matter for adversarial input, which a debugging comparison does not face).
fn fingerprint(bytes: &[u8]) -> u64 {
    let mut h = 0x9E37_79B9_7F4A_7C15u64;
    let mut chunks = bytes.chunks_exact(8);
    for c in chunks.by_ref() {
        let w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        h = (h.rotate_left(23) ^ w).wrapping_mul(0xFF51_AFD7_ED55_8CCD);
    }
    for &b in chunks.remainder() {
        h = (h.rotate_left(23) ^ u64::from(b)).wrapping_mul(0xFF51_AFD7_ED55_8CCD);
    }
    h
}

/// VRAM fingerprints after each draw of a replay, then one of the replay's end (immediate-mode
/// vertices and transfers are not draws, yet change pixels: PPSSPP-vs-PSP
/// `primitives-immediate` differs only there).
pub fn draw_fingerprints(side: Side<'_>) -> Result<(Vec<u64>, u64), DebugError> {
    let mut ge = Ge::with_model(side.model);
    let mut out = Vec::new();
    replay_steps(side.dump, &mut ge, &mut |ge: &mut Ge, s: &Step| {
        if s.draw.is_some() {
            ge.flush();
            out.push(fingerprint(ge.mem.vram()));
        }
        ControlFlow::Continue(())
    })?;
    ge.flush();
    Ok((out, fingerprint(ge.mem.vram())))
}

/// A whole replay, flushed.
fn replay_to_end(side: Side<'_>) -> Result<(Ge, u32), DebugError> {
    let mut ge = Ge::with_model(side.model);
    let r = replay_steps(side.dump, &mut ge, &mut |_: &mut Ge, _: &Step| ControlFlow::Continue(()))?;
    ge.flush();
    Ok((ge, r.draws))
}

/// Count differing pixels of two same-sized pictures (R, G or B).
fn count_differing(a: &Image, b: &Image) -> u32 {
    let (w, h) = (a.width.max(b.width), a.height.max(b.height));
    let mut n = 0;
    for y in 0..h {
        for x in 0..w {
            n += u32::from(a.get(x, y)[..3] != b.get(x, y)[..3]);
        }
    }
    n
}

/// Compare the two sides draw by draw.
pub fn compare(a: Side<'_>, b: Side<'_>) -> Result<Outcome, DebugError> {
    let (fa, end_a) = draw_fingerprints(a)?;
    let (fb, end_b) = draw_fingerprints(b)?;
    let Some(k) = fa.iter().zip(&fb).position(|(x, y)| x != y) else {
        return Ok(if fa.len() == fb.len() && end_a != end_b {
            let ((ga, draws), (gb, _)) = (replay_to_end(a)?, replay_to_end(b)?);
            let end = "end of the replay (commands after the last draw)".to_string();
            Outcome::PartedAfterLastDraw(Box::new(parting(draws, &ga, &gb, end.clone(), end)))
        } else if fa.len() == fb.len() {
            Outcome::Same { draws: fa.len() as u32 }
        } else {
            Outcome::Longer {
                common: fa.len().min(fb.len()) as u32,
                draws_a: fa.len() as u32,
                draws_b: fb.len() as u32,
            }
        });
    };
    let draw = k as u32 + 1;
    let pa = pause_at(a.dump, a.model, StopAt::Draw(draw))?;
    let pb = pause_at(b.dump, b.model, StopAt::Draw(draw))?;
    let (ca, cb) = (ge::cmd::disassemble(pa.step.word), ge::cmd::disassemble(pb.step.word));
    Ok(Outcome::Parted(Box::new(parting(draw, &pa.ge, &pb.ge, ca, cb))))
}

fn parting(draw: u32, ga: &Ge, gb: &Ge, command_a: String, command_b: String) -> Parting {
    let (ca, cb) = (capture::colour(ga), capture::colour(gb));
    let (da, db) = (capture::depth(ga), capture::depth(gb));
    let vram_bytes = ga.mem.vram().iter().zip(gb.mem.vram()).filter(|(x, y)| x != y).count() as u64;
    Parting {
        draw,
        colour_pixels: count_differing(&ca, &cb),
        depth_pixels: count_differing(&da, &db),
        vram_bytes,
        state: state::changes(&ga.state, &gb.state),
        image: diff_image(&ca, &cb),
        command_a,
        command_b,
    }
}

/// A dump against a reference screenshot.
pub struct AgainstReference {
    /// Screen pixels (480×272) of the final display that differ from the reference.
    pub pixels: u32,
    /// The first draw whose surviving output differs: the earliest draw that last wrote a
    /// differing pixel (`None` when no draw wrote any: they come from uploaded memory), and
    /// how many of the differing pixels it last wrote.
    pub draw: Option<(u32, u32)>,
    /// The final frame compared with the reference.
    pub image: Image,
    /// That draw's state (`state::draw_state`), when there is a draw.
    pub state: Option<state::DrawState>,
}

/// Compare a dump's final display with a reference image.
pub fn against_reference(side: Side<'_>, reference: &Image) -> Result<AgainstReference, DebugError> {
    let mut ge = Ge::with_model(side.model);
    let display = replay_steps(side.dump, &mut ge, &mut |_: &mut Ge, _: &Step| ControlFlow::Continue(()))?.display;
    let fin = display.capture(&ge.mem);
    let image = diff_image(&fin, reference);
    let mask: Vec<bool> = (0..SCREEN_H)
        .flat_map(|y| (0..SCREEN_W).map(move |x| (x, y)))
        .map(|(x, y)| fin.get(x, y)[..3] != reference.get(x, y)[..3])
        .collect();
    let pixels = mask.iter().filter(|&&m| m).count() as u32;
    if pixels == 0 {
        return Ok(AgainstReference { pixels, draw: None, image, state: None });
    }
    let writers = last_writers(side, display, &mask)?;
    let first = writers.iter().zip(&mask).filter(|(_, &m)| m).map(|(&w, _)| w).filter(|&w| w > 0).min();
    let Some(draw) = first else {
        return Ok(AgainstReference { pixels, draw: None, image, state: None });
    };
    let count = writers.iter().zip(&mask).filter(|(&w, &m)| m && w == draw).count() as u32;
    let p = pause_at(side.dump, side.model, StopAt::Draw(draw))?;
    let st = state::draw_state(&p.ge, &p.step, p.prev.as_ref());
    Ok(AgainstReference { pixels, draw: Some((draw, count)), image, state: Some(st) })
}

/// For each masked screen pixel of `display`, the last draw (from 1) that changed it (0: none).
fn last_writers(side: Side<'_>, display: DisplayBuffer, mask: &[bool]) -> Result<Vec<u32>, DebugError> {
    let mut ge = Ge::with_model(side.model);
    let mut writers = vec![0u32; mask.len()];
    let mut prev = display.capture(&ge.mem);
    replay_steps(side.dump, &mut ge, &mut |ge: &mut Ge, s: &Step| {
        if let Some(d) = s.draw {
            ge.flush();
            let now = display.capture(&ge.mem);
            for (i, w) in writers.iter_mut().enumerate() {
                let (x, y) = (i as u32 % SCREEN_W, i as u32 / SCREEN_W);
                if mask[i] && now.get(x, y) != prev.get(x, y) {
                    *w = d;
                }
            }
            prev = now;
        }
        ControlFlow::Continue(())
    })?;
    Ok(writers)
}
