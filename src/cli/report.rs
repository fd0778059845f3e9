//! `psprender report DUMP -o report.html [--model hardware|ppsspp]`: one self-contained HTML
//! file (`psprender::debugger::report`), with a progress bar on a terminal while it builds.

use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// Frame dump: .ppdmp, or .zip holding one.
    pub dump: PathBuf,
    /// The HTML file to write.
    #[arg(short, long)]
    pub output: PathBuf,
    /// GE model.
    #[arg(long, value_name = "hardware|ppsspp", value_parser = super::parse_model, default_value = "hardware")]
    pub model: ge::Model,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    use psprender::debugger::report;
    psprender::output::prepare(&args.output)?;
    let start = std::time::Instant::now();
    let dump = ge::dump::Dump::open(&args.dump)?;
    let bar = indicatif::ProgressBar::new(u64::from(report::count_draws(&dump)));
    bar.set_style(
        indicatif::ProgressStyle::with_template("{msg} {bar:40} {pos}/{len} draws")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    bar.set_message("replaying");
    let title = args.dump.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
    let r = report::build(&dump, &title, args.model, &mut |done, _| bar.set_position(u64::from(done)))
        .map_err(|e| anyhow::anyhow!("{}: {e}", args.dump.display()))?;
    bar.finish_and_clear();
    let t = std::time::Instant::now();
    let mut failed = None;
    let written = psprender::output::write_with(&args.output, |w| {
        report::write_html(&r, w).map_err(|e| {
            let io = std::io::Error::other(e.to_string());
            failed = Some(e);
            io
        })
    });
    if let Some(e) = failed {
        return Err(e.into());
    }
    written?;
    tracing::info!(template_ms = t.elapsed().as_secs_f64() * 1e3, "report rendered and written");
    let bytes = std::fs::metadata(&args.output).map(|m| m.len()).unwrap_or(0);
    println!(
        "wrote {} ({} bytes, {} draws, {} keyframes) in {:.1} ms",
        args.output.display(),
        bytes,
        r.draws,
        r.keyframes.len(),
        start.elapsed().as_secs_f64() * 1e3
    );
    Ok(ExitCode::SUCCESS)
}
