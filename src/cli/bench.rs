//! `psprender frametests DIR --bench [--runs N] [--phases]`: time every dump instead of
//! scoring it.
//!
//! Each dump runs `--runs` times, one after the other (never two dumps at once, so they do
//! not compete for the cores), under `--model` (or the model of its reference) with
//! `--threads` raster threads. One run is what `replay` reports: open and decode the dump,
//! make a GE, replay, capture the display; no PNG encoding, no process start-up (the
//! figure `../shared/frametests/PERF.md` compares with PPSSPP). The table gives the
//! minimum and median per dump and the geometric mean of both.
//!
//! `--phases` splits the median run: `open` (file read, zip, the header and command block:
//! the pushbuf is decoded while the replay runs, `ge::dump::DumpStream`), `setup` (the GE
//! and its memory), `front` (command execution, vertex decode, transform, clip, assembly,
//! binning, and waiting for pushbuf bytes still being decoded), `drain` (the PPSSPP
//! model's bin-queue bookkeeping), `raster` (band copies, rasterization, sampling, the
//! pixel pipeline, write-back) and `capture`, with the number of flushes that rasterized.

use anyhow::Context;
use ge::dump::DumpStream;
use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

/// One timed run, phase by phase.
#[derive(Clone, Copy, Default)]
struct Run {
    open: Duration,
    setup: Duration,
    front: Duration,
    drain: Duration,
    raster: Duration,
    capture: Duration,
    /// Flushes that rasterized something.
    flushes: u32,
}

impl Run {
    fn total(&self) -> Duration {
        self.open + self.setup + self.front + self.drain + self.raster + self.capture
    }
}

fn run_once(path: &Path, model: ge::Model) -> anyhow::Result<Run> {
    let t0 = Instant::now();
    let dump = DumpStream::open(path)?;
    let t1 = Instant::now();
    let mut g = ge::Ge::with_model(model);
    g.draw.phases = Some(Default::default());
    let t2 = Instant::now();
    let display = dump.replay(&mut g).map_err(|e| e.in_file(path))?;
    let t3 = Instant::now();
    std::hint::black_box(display.capture(&g.mem));
    let t4 = Instant::now();
    let flush = g.draw.flush_times().unwrap_or_default();
    let replay = t3 - t2;
    Ok(Run {
        open: t1 - t0,
        setup: t2 - t1,
        front: replay.saturating_sub(flush.drain + flush.raster),
        drain: flush.drain,
        raster: flush.raster,
        capture: t4 - t3,
        flushes: flush.flushes,
    })
}

/// Timings of one dump: every run, sorted by total.
pub struct Timing {
    pub name: String,
    pub model: ge::Model,
    runs: Vec<Run>,
}

impl Timing {
    fn ms(d: Duration) -> f64 {
        d.as_secs_f64() * 1e3
    }

    pub fn min_ms(&self) -> f64 {
        self.runs.first().map_or(0.0, |r| Self::ms(r.total()))
    }

    fn median(&self) -> Run {
        self.runs.get(self.runs.len() / 2).copied().unwrap_or_default()
    }

    pub fn median_ms(&self) -> f64 {
        Self::ms(self.median().total())
    }
}

/// Time `path` `runs` times under `model` on the current rayon pool.
pub fn time_dump(name: &str, path: &Path, model: ge::Model, runs: usize) -> anyhow::Result<Timing> {
    let mut v = Vec::with_capacity(runs);
    for _ in 0..runs.max(1) {
        v.push(run_once(path, model).with_context(|| format!("benchmarking {}", path.display()))?);
    }
    v.sort_by_key(Run::total);
    Ok(Timing { name: name.to_string(), model, runs: v })
}

fn geomean(values: impl Iterator<Item = f64>) -> f64 {
    let (mut sum, mut n) = (0.0, 0usize);
    for v in values.filter(|v| *v > 0.0) {
        sum += v.ln();
        n += 1;
    }
    if n == 0 {
        0.0
    } else {
        (sum / n as f64).exp()
    }
}

/// The timing table, with per-phase columns (median run) when `phases`.
pub fn table(timings: &[Timing], runs: usize, threads: usize, phases: bool) -> String {
    let mut s = String::new();
    let w = timings.iter().map(|t| t.name.len()).max().unwrap_or(4).max(4);
    let _ = write!(s, "{:<w$}  {:>8}  {:>9}  {:>9}", "name", "model", "min ms", "median ms");
    if phases {
        for p in ["open", "setup", "front", "drain", "raster", "capture"] {
            let _ = write!(s, "  {p:>7}");
        }
        let _ = write!(s, "  {:>7}", "flushes");
    }
    let _ = writeln!(s);
    for t in timings {
        let _ = write!(s, "{:<w$}  {:>8}  {:>9.2}  {:>9.2}", t.name, t.model.name(), t.min_ms(), t.median_ms());
        if phases {
            let m = t.median();
            for d in [m.open, m.setup, m.front, m.drain, m.raster, m.capture] {
                let _ = write!(s, "  {:>7.2}", Timing::ms(d));
            }
            let _ = write!(s, "  {:>7}", m.flushes);
        }
        let _ = writeln!(s);
    }
    let _ = writeln!(
        s,
        "\n{} dumps, {runs} runs each, {threads} raster threads: geometric mean {:.2} ms (min), {:.2} ms (median)",
        timings.len(),
        geomean(timings.iter().map(Timing::min_ms)),
        geomean(timings.iter().map(Timing::median_ms)),
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geomean_of_known_values() {
        assert!((geomean([2.0, 8.0].into_iter()) - 4.0).abs() < 1e-12);
        assert_eq!(geomean(std::iter::empty()), 0.0);
    }
}
