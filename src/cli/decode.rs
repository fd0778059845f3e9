//! `psprender decode MODEL.pmo|MAP.pmp [--section N] [--list 0|1] [--json] [--morph-weights W,..]`:
//! list every vertex as the GE decodes it, bit-exactly (see `psprender::decode`).

use anyhow::Context;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// A PMO model or PMP map.
    pub file: PathBuf,
    /// Only sections with this index within their mesh list.
    #[arg(long)]
    pub section: Option<usize>,
    /// Only this mesh list.
    #[arg(long, value_parser = clap::value_parser!(u8).range(0..=1))]
    pub list: Option<u8>,
    /// JSON instead of text (floats as number + bit pattern).
    #[arg(long)]
    pub json: bool,
    /// MORPHWEIGHT0..7 for sections with morph targets (default 1,0,0,...).
    #[arg(long, value_delimiter = ',', num_args = 1..=8)]
    pub morph_weights: Option<Vec<f32>>,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let bytes = std::fs::read(&args.file).with_context(|| format!("reading {}", args.file.display()))?;
    let mut opts =
        psprender::decode::Options { section: args.section, list: args.list.map(usize::from), ..Default::default() };
    if let Some(w) = &args.morph_weights {
        opts.morph_weights = [0.0; 8];
        opts.morph_weights[..w.len()].copy_from_slice(w);
    }
    let out = psprender::decode::decode_file(&bytes, &opts, args.json)
        .with_context(|| format!("decoding {}", args.file.display()))?;
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(out.as_bytes()).and_then(|_| stdout.flush()) {
        // A closed pipe (e.g. `| head`) is not an error.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        r => r.map(|_| ExitCode::SUCCESS).context("writing to stdout"),
    }
}
