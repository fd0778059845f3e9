//! `psprender frametests DIR`: replay every dump under DIR and score it against its
//! reference like PPSSPP's `frametests.py` + headless comparer (ppdmp-format.md §8.4, §9).
//!
//! Discovery walks DIR recursively (skipping dot-directories) for `.ppdmp` and `.zip`
//! files. The reference of `NAME.zip` / `NAME.ppdmp` is, first match wins:
//!
//! | file | corpus | family |
//! |---|---|---|
//! | `NAME.ref.png` | real-game frame tests | `frametests` |
//! | `NAME.hardware.png` | pspautotests on real hardware | test group, e.g. `primitives` |
//! | `NAME.png` | synthetic scenes | prefix, e.g. `a_vertex` |
//!
//! Each dump replays under the model that made its reference ([`model_for_reference`]:
//! the PSP for `NAME.hardware.png`, PPSSPP for the others) unless `--model` forces one;
//! the summary counts per family and model. `--bench` times the dumps instead
//! ([`super::bench`]).

use super::{args, differing_pixels, load_reference, model_for_reference, render_dump};
use anyhow::Context;
use ge::display::{diff_image, mse};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// Directory with dumps and references (searched recursively).
    pub dir: PathBuf,
    #[arg(long, allow_hyphen_values = true, default_value_t = 0.1, help = args::MAX_MSE_HELP, value_parser = args::max_mse)]
    pub max_mse: f64,
    /// Only run dumps whose name contains this.
    #[arg(long)]
    pub filter: Option<String>,
    /// Folder to save each screenshot in as NAME.png, and NAME.diff.png where it differs
    /// (created if missing).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Print machine-readable JSON on stdout instead of tables.
    #[arg(long)]
    pub json: bool,
    #[arg(long, allow_hyphen_values = true, help = args::THREADS_HELP, value_parser = args::threads)]
    pub threads: Option<usize>,
    /// Replay every dump under this GE model (`hardware` or `ppsspp`) instead of the one
    /// that made its reference.
    #[arg(long, value_name = "hardware|ppsspp", value_parser = super::parse_model)]
    pub model: Option<ge::Model>,
    /// Time every dump instead of scoring it: each runs --runs times, one dump at a time,
    /// rasterizing on the worker threads asked for; prints min/median ms per dump and their
    /// geometric mean (what `replay` times: open, decode, replay, capture; no PNG).
    #[arg(long, conflicts_with_all = ["output", "json"])]
    pub bench: bool,
    /// Runs per dump with --bench.
    #[arg(long, default_value_t = 5, requires = "bench", value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub runs: u32,
    /// With --bench: split the median run into phases (open, setup, front end, PPSSPP
    /// queue drain, raster, capture).
    #[arg(long, requires = "bench")]
    pub phases: bool,
    #[arg(long, value_enum, default_value_t, help = args::PNG_COMPRESSION_HELP)]
    pub png_compression: psprender::output::PngCompression,
}

/// One dump to run.
struct Case {
    name: String,
    family: String,
    dump: PathBuf,
    reference: Option<PathBuf>,
    model: ge::Model,
}

/// Outcome of one dump.
struct Outcome {
    name: String,
    family: String,
    model: ge::Model,
    mse: Option<f64>,
    pixels: Option<u32>,
    pass: bool,
    ms: f64,
    error: Option<String>,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    if !args.dir.is_dir() {
        anyhow::bail!(
            "{} is not a folder (frametests runs every dump in a folder; use replay for one dump)",
            args.dir.display()
        );
    }
    let mut cases = discover(&args.dir)?;
    if cases.is_empty() {
        anyhow::bail!("no .ppdmp or .zip dumps found in {}", args.dir.display());
    }
    if let Some(m) = args.model {
        cases.iter_mut().for_each(|c| c.model = m);
    }
    if let Some(f) = &args.filter {
        let all = cases.len();
        cases.retain(|c| c.name.contains(f.as_str()));
        if cases.is_empty() {
            anyhow::bail!("--filter {f:?} matches none of the {all} dumps in {}", args.dir.display());
        }
    }
    if args.bench {
        return bench(&cases, &args);
    }
    if let Some(out) = &args.output {
        psprender::output::prepare_dir(out)?;
    }
    let bar = if args.json { ProgressBar::hidden() } else { ProgressBar::new(cases.len() as u64) };
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} {elapsed} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let pool = rayon::ThreadPoolBuilder::new().num_threads(args.threads.unwrap_or(0)).build()?;
    let outcomes: Vec<Outcome> = pool.install(|| {
        cases
            .par_iter()
            .map(|c| {
                let o = run_case(c, &args);
                bar.set_message(c.name.clone());
                bar.inc(1);
                o
            })
            .collect()
    });
    bar.finish_and_clear();
    if args.json {
        print!("{}", to_json(&outcomes, args.max_mse));
    } else {
        print!("{}", tables(&outcomes, args.max_mse));
    }
    Ok(if outcomes.iter().all(|o| o.pass) { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

/// `--bench`: time the dumps one after the other on a pool of `--threads` threads.
fn bench(cases: &[Case], args: &Args) -> anyhow::Result<ExitCode> {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(args.threads.unwrap_or(0)).build()?;
    let runs = args.runs as usize;
    let bar = ProgressBar::new(cases.len() as u64);
    let timings = pool.install(|| {
        cases
            .iter()
            .map(|c| {
                bar.set_message(c.name.clone());
                let t = super::bench::time_dump(&c.name, &c.dump, c.model, runs);
                bar.inc(1);
                t
            })
            .collect::<anyhow::Result<Vec<_>>>()
    })?;
    bar.finish_and_clear();
    print!("{}", super::bench::table(&timings, runs, pool.current_num_threads(), args.phases));
    Ok(ExitCode::SUCCESS)
}

fn run_case(c: &Case, args: &Args) -> Outcome {
    let start = std::time::Instant::now();
    let result = (|| -> anyhow::Result<(f64, u32)> {
        let img = render_dump(&c.dump, c.model)?;
        if let Some(out) = &args.output {
            psprender::output::save_png_with(&img, &out.join(format!("{}.png", c.name)), args.png_compression)?;
        }
        let reference =
            c.reference.as_ref().context("no reference image (NAME.ref.png, NAME.hardware.png or NAME.png)")?;
        let reference = load_reference(reference)?;
        let score = mse(&img, &reference);
        let pixels = differing_pixels(&img, &reference);
        if let (Some(out), true) = (&args.output, pixels > 0) {
            let diff = diff_image(&img, &reference);
            psprender::output::save_png_with(&diff, &out.join(format!("{}.diff.png", c.name)), args.png_compression)?;
        }
        Ok((score, pixels))
    })();
    let ms = start.elapsed().as_secs_f64() * 1e3;
    let (mse, pixels, error) = match result {
        Ok((m, p)) => (Some(m), Some(p), None),
        Err(e) => (None, None, Some(format!("{e:#}"))),
    };
    Outcome {
        name: c.name.clone(),
        family: c.family.clone(),
        model: c.model,
        pass: mse.is_some_and(|m| m <= args.max_mse),
        mse,
        pixels,
        ms,
        error,
    }
}

/// File name without a trailing `.zip`, then without a trailing `.ppdmp`, both
/// case-insensitive (frametests.py naming, §9 item 3).
fn base_name(file: &str) -> Option<&str> {
    let strip = |s: &'static str, f: &str| -> Option<usize> {
        (f.len() >= s.len() && f.is_char_boundary(f.len() - s.len()) && f[f.len() - s.len()..].eq_ignore_ascii_case(s))
            .then(|| f.len() - s.len())
    };
    let mut end = file.len();
    let mut matched = false;
    if let Some(e) = strip(".zip", file) {
        end = e;
        matched = true;
    }
    if let Some(e) = strip(".ppdmp", &file[..end]) {
        end = e;
        matched = true;
    }
    matched.then(|| &file[..end])
}

fn discover(dir: &Path) -> anyhow::Result<Vec<Case>> {
    let mut files = Vec::new();
    walk(dir, &mut files)?;
    files.sort();
    let mut cases = Vec::new();
    for dump in files {
        let Some(file) = dump.file_name().and_then(|f| f.to_str()) else { continue };
        let Some(name) = base_name(file) else { continue };
        let name = name.to_string();
        let parent = dump.parent().unwrap_or(dir);
        let candidates = [
            (format!("{name}.ref.png"), "frametests".to_string()),
            (format!("{name}.hardware.png"), name.split('-').next().unwrap_or(&name).to_string()),
            (format!("{name}.png"), synthetic_family(&name)),
        ];
        let found = candidates.iter().find(|(f, _)| parent.join(f).is_file());
        let (reference, family) = match found {
            Some((f, fam)) => (Some(parent.join(f)), fam.clone()),
            None => (None, "unknown".to_string()),
        };
        let model = reference.as_deref().map_or(ge::Model::Hardware, model_for_reference);
        cases.push(Case { name, family, dump, reference, model });
    }
    Ok(cases)
}

/// `a_vertex_000001` → `a_vertex`: the name without its trailing `_digits`.
fn synthetic_family(name: &str) -> String {
    match name.rsplit_once('_') {
        Some((prefix, digits)) if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) => {
            prefix.to_string()
        }
        _ => name.to_string(),
    }
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    for entry in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let entry = entry?;
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if entry.file_type()?.is_dir() {
            if !name.starts_with('.') {
                walk(&path, out)?;
            }
        } else if base_name(&name).is_some() {
            out.push(path);
        }
    }
    Ok(())
}

fn fmt_mse(m: Option<f64>) -> String {
    match m {
        Some(m) => format!("{m:.4}"),
        None => "-".to_string(),
    }
}

fn tables(outcomes: &[Outcome], max_mse: f64) -> String {
    let mut s = String::new();
    let w = outcomes.iter().map(|o| o.name.len()).max().unwrap_or(4).max(4);
    let _ = writeln!(s, "{:<w$}  {:>8}  {:>10}  {:>7}  {:>6}  {:>8}", "name", "model", "MSE", "pixels", "result", "ms");
    for o in outcomes {
        let result = if o.pass { "pass" } else { "FAIL" };
        let pixels = o.pixels.map_or("-".to_string(), |p| p.to_string());
        let (name, model, mse) = (&o.name, o.model.name(), fmt_mse(o.mse));
        let _ = writeln!(s, "{name:<w$}  {model:>8}  {mse:>10}  {pixels:>7}  {result:>6}  {:>8.1}", o.ms);
        if let Some(e) = &o.error {
            let _ = writeln!(s, "    error: {e}");
        }
    }
    let limit = format!("<= {max_mse}");
    let _ = writeln!(s, "\n{:<16}  {:>8}  {:>5}  {:>6}  {limit:>9}", "family", "model", "tests", "MSE 0");
    for ((fam, model), (n, exact, pass)) in families(outcomes) {
        let _ = writeln!(s, "{fam:<16}  {model:>8}  {n:>5}  {exact:>6}  {pass:>9}");
    }
    let _ = writeln!(s);
    for (model, (n, exact, pass)) in models(outcomes) {
        let _ = writeln!(s, "{model} model: {pass}/{n} passed (MSE <= {max_mse}), {exact} at MSE 0");
    }
    let passed = outcomes.iter().filter(|o| o.pass).count();
    let _ = writeln!(s, "{passed}/{} passed (MSE <= {max_mse})", outcomes.len());
    s
}

/// (family, model) → (tests, exact matches, passes).
fn families(outcomes: &[Outcome]) -> BTreeMap<(&str, &'static str), (usize, usize, usize)> {
    count_by(outcomes, |o| (o.family.as_str(), o.model.name()))
}

/// model → (tests, exact matches, passes).
fn models(outcomes: &[Outcome]) -> BTreeMap<&'static str, (usize, usize, usize)> {
    count_by(outcomes, |o| o.model.name())
}

fn count_by<'a, K: Ord>(outcomes: &'a [Outcome], key: impl Fn(&'a Outcome) -> K) -> BTreeMap<K, (usize, usize, usize)> {
    let mut m = BTreeMap::new();
    for o in outcomes {
        let e = m.entry(key(o)).or_insert((0, 0, 0));
        e.0 += 1;
        e.1 += usize::from(o.mse == Some(0.0));
        e.2 += usize::from(o.pass);
    }
    m
}

fn json_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn json_num(m: Option<f64>) -> String {
    match m {
        Some(m) if m.is_finite() => format!("{m}"),
        _ => "null".to_string(),
    }
}

fn to_json(outcomes: &[Outcome], max_mse: f64) -> String {
    let mut s = format!("{{\"max_mse\":{},\"results\":[", json_num(Some(max_mse)));
    for (i, o) in outcomes.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        let _ = write!(
            s,
            "{{\"name\":{},\"family\":{},\"model\":{},\"mse\":{},\"pixels\":{},\"pass\":{},\"ms\":{:.3},\"error\":{}}}",
            json_str(&o.name),
            json_str(&o.family),
            json_str(o.model.name()),
            json_num(o.mse),
            o.pixels.map_or("null".to_string(), |p| p.to_string()),
            o.pass,
            o.ms,
            o.error.as_deref().map_or("null".to_string(), json_str)
        );
    }
    s.push_str("],\"families\":[");
    for (i, ((fam, model), (n, exact, pass))) in families(outcomes).into_iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        let (fam, model) = (json_str(fam), json_str(model));
        let _ = write!(s, "{{\"family\":{fam},\"model\":{model},\"tests\":{n},\"exact\":{exact},\"pass\":{pass}}}");
    }
    s.push_str("],\"models\":{");
    for (i, (model, (n, exact, pass))) in models(outcomes).into_iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        let _ = write!(s, "{}:{{\"tests\":{n},\"exact\":{exact},\"pass\":{pass}}}", json_str(model));
    }
    let passed = outcomes.iter().filter(|o| o.pass).count();
    let _ = writeln!(s, "}},\"passed\":{passed},\"total\":{}}}", outcomes.len());
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_families() {
        assert_eq!(base_name("10914 Sengoku Cannon issue DUMP.ZIP"), Some("10914 Sengoku Cannon issue DUMP"));
        assert_eq!(base_name("x_0001.ppdmp.zip"), Some("x_0001"));
        assert_eq!(base_name("a.PPDMP"), Some("a"));
        assert_eq!(base_name("a.png"), None);
        assert_eq!(synthetic_family("a_vertex_000001"), "a_vertex");
        assert_eq!(synthetic_family("weird"), "weird");
        assert_eq!(json_str("a\"b\\\n"), "\"a\\\"b\\\\\\u000a\"");
    }
}
