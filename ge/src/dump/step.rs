//! Stepping through a dump's replay word by word and draw by draw: what a frame debugger
//! needs from [`super::replay`].
//!
//! Design: the replay stays one pass over the records ([`super::replay_steps`]); a hook is
//! shown every executed word together with where it came from (record, pushbuf offset as
//! `psprender disasm` prints it) and the draw count, and may stop the replay there. A stop
//! leaves the GE exactly as PPSSPP's replay holds it at that word: data records are applied
//! when PPSSPP applies them (before the words of their sync window run), so memory, registers
//! and the CLUT cache are those the draw saw. Random access (draw 40, then draw 12) replays
//! again from the start: a replay is 2–240 ms on the shared real-game dumps (PERF.md), while
//! keeping snapshots would cost a 36 MiB memory copy each.
//!
//! Draws are PRIM, BEZIER and SPLINE, numbered from 1 in execution order.

use super::{replay_steps, Dump, DumpError};
use crate::cmd::{op, split};
use crate::display::DisplayBuffer;
use crate::exec::Ge;
use std::ops::ControlFlow;

/// One executed word, as shown to a [`StepHook`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    /// The word as executed (TEXADDRn words of the file become NOPs, §6.2).
    pub word: u32,
    /// Index of the record that wrote it.
    pub record: usize,
    /// Its pushbuf byte offset when it is a REGISTERS word of the file; `None` for words the
    /// replay makes up (addresses of data records, the list start, wraps, FINISH/END).
    pub src: Option<u32>,
    /// `Some(n)` when this word is the `n`-th draw (from 1).
    pub draw: Option<u32>,
    /// Draws executed so far, this one included.
    pub draws: u32,
    /// The internal vertex and index pointers before the word ran (a draw advances them).
    pub vaddr: u32,
    pub iaddr: u32,
}

/// Shown every executed word; `Break` stops the replay after it.
pub type StepHook<'a> = dyn FnMut(&mut Ge, &Step) -> ControlFlow<()> + 'a;

/// How a stepped replay ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stepped {
    /// The display latched when the replay ended (see [`super::replay`]).
    pub display: DisplayBuffer,
    /// The word the hook stopped after, or `None` when the replay ran to the end.
    pub stopped: Option<Step>,
    /// Draws executed.
    pub draws: u32,
}

/// PRIM, BEZIER and SPLINE: the commands that draw.
pub fn is_draw(word: u32) -> bool {
    matches!(split(word).0, op::PRIM | op::BEZIER | op::SPLINE)
}

/// Where [`replay_until`] stops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopAt {
    /// After the `n`-th draw (from 1).
    Draw(u32),
    /// After the REGISTERS word at this pushbuf offset (as `psprender disasm` prints it).
    Command(u32),
}

impl StopAt {
    /// Whether `step` is the word to stop after.
    pub fn matches(self, step: &Step) -> bool {
        match self {
            StopAt::Draw(n) => step.draw == Some(n),
            StopAt::Command(off) => step.src == Some(off),
        }
    }
}

/// Replay `dump` on a fresh `ge` and stop after `at`, everything drawn so far rasterized.
/// Returns `Ok(None)` when the dump ends first (fewer draws, or no command word at that
/// offset); the GE then holds the whole replay.
pub fn replay_until(dump: &Dump, ge: &mut Ge, at: StopAt) -> Result<Option<Stepped>, DumpError> {
    let r = replay_steps(dump, ge, &mut |_: &mut Ge, s: &Step| {
        if at.matches(s) {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    })?;
    Ok(r.stopped.is_some().then_some(r))
}
