//! The GE frame debugger's data: what the GE holds after any draw of a dump, as pictures
//! ([`capture`]), as grouped state ([`state`]), compared between two replays ([`diff`]),
//! and gathered into one HTML file ([`report`]).
//!
//! Stepping itself is `ge::dump::replay_steps`/`replay_until`: one replay pass with a hook
//! per executed word. Random access replays again from the start (2–240 ms per shared
//! real-game dump), which is cheaper than snapshotting 36 MiB of PSP memory per draw.

pub mod capture;
pub mod diff;
pub mod picture;
pub mod report;
pub mod state;

use ge::dump::{replay_steps, Dump, DumpError, Step, StopAt};
use ge::state::GeState;
use ge::Ge;
use std::ops::ControlFlow;
use thiserror::Error;

/// Why the debugger could not reach a point of a dump.
#[derive(Debug, Error)]
pub enum DebugError {
    #[error(transparent)]
    Dump(#[from] DumpError),
    #[error("the dump has {draws} draws; there is no draw {n} (draws count from 1)")]
    NoSuchDraw { n: u32, draws: u32 },
    #[error("no command word at pushbuf offset 0x{offset:x} is executed (see `psprender disasm` for the offsets)")]
    NoSuchCommand { offset: u32 },
}

/// A replay stopped at a point: the GE as it holds everything then, the word it stopped
/// after, and the state of the draw before (for "changed since the previous draw").
pub struct Paused {
    pub ge: Ge,
    pub step: Step,
    /// The GE state at the last draw before the stop (`None` when there is none).
    pub prev: Option<GeState>,
    /// Draws executed up to the stop, the stop included.
    pub draws: u32,
}

/// Replay `dump` on a fresh GE of `model` up to `at` (see [`ge::dump::replay_until`]).
pub fn pause_at(dump: &Dump, model: ge::Model, at: StopAt) -> Result<Paused, DebugError> {
    let mut ge = Ge::with_model(model);
    let mut last: Option<GeState> = None;
    let r = replay_steps(dump, &mut ge, &mut |ge: &mut Ge, s: &Step| {
        if at.matches(s) {
            return ControlFlow::Break(());
        }
        if s.draw.is_some() {
            last = Some(ge.state.clone());
        }
        ControlFlow::Continue(())
    })?;
    let Some(step) = r.stopped else {
        return Err(match at {
            StopAt::Draw(n) => DebugError::NoSuchDraw { n, draws: r.draws },
            StopAt::Command(offset) => DebugError::NoSuchCommand { offset },
        });
    };
    Ok(Paused { ge, step, prev: last, draws: r.draws })
}
