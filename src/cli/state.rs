//! `psprender state DUMP --draw N [--json] [--model hardware|ppsspp]`: the decoded GE state
//! of draw N grouped by stage, its vertices as decoded, and what changed since the previous
//! draw (`psprender::debugger::state`).

use super::args;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// Frame dump: .ppdmp, or .zip holding one.
    pub dump: PathBuf,
    /// The draw (1 = the first PRIM/BEZIER/SPLINE).
    #[arg(long, value_name = "N", value_parser = args::draw)]
    pub draw: u32,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// GE model (registers do not depend on it; memory a draw reads may).
    #[arg(long, value_name = "hardware|ppsspp", value_parser = super::parse_model, default_value = "hardware")]
    pub model: ge::Model,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    use psprender::debugger;
    let dump = ge::dump::Dump::open(&args.dump)?;
    let p = debugger::pause_at(&dump, args.model, ge::dump::StopAt::Draw(args.draw))
        .map_err(|e| anyhow::anyhow!("{}: {e}", args.dump.display()))?;
    let v = debugger::state::draw_state(&p.ge, &p.step, p.prev.as_ref());
    if args.json {
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        print!("{}", debugger::state::to_text(&v));
    }
    Ok(ExitCode::SUCCESS)
}
