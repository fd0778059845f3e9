//! `psprender`: command-line front end of the PSP GE model.
//!
//! Each subcommand is one variant of [`Command`] holding its clap `Args`, and one `run`
//! function in `cli::<name>` returning the process exit code; adding a subcommand means
//! adding both.

mod cli;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "psprender", version, about = "Bit-exact software model of the PSP GE")]
struct Cli {
    /// More log output (-v info, -vv debug, -vvv trace); RUST_LOG overrides.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    verbose: u8,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List every vertex of a PMO/PMP as the GE decodes it (bit-exact, text or JSON).
    Decode(cli::decode::Args),
    /// Render the built-in demo scene (no input files) to a PNG.
    Demo(cli::demo::Args),
    /// Disassemble a frame dump's GE command stream.
    Disasm(cli::disasm::Args),
    /// Replay a PPSSPP frame dump (.ppdmp or .zip) and save or compare its screenshot.
    Replay(cli::replay::Args),
    /// Print one draw's GE state: registers by stage, matrices, vertices, changes.
    State(cli::state::Args),
    /// Find the first draw where two dumps, two GE models or a reference image part.
    Diff(cli::diff::Args),
    /// Write a self-contained HTML report of a dump (timeline, buffers, state).
    ///
    /// Pictures are kept after every Nth draw (N = draws / 16, rounded up) and after the
    /// last. A keyframe whose new pictures would pass the picture budget (1 600 000 pixels
    /// plus 20 000 per draw replayed so far; each distinct colour, depth, stencil, texture
    /// and CLUT picture counted once) is left out, so short dumps of full-screen changes show
    /// fewer keyframes. The rule reads only the dump: the page is the same on every run.
    Report(cli::report::Args),
    /// Replay every dump in a directory against its reference image.
    Frametests(cli::frametests::Args),
    /// Replay the readback pixel tests and compare their printed values with a real PSP's.
    Conformance(cli::conformance::Args),
    /// Render a BBS model (.pmo) or map (.pmp) through the GE model to a PNG.
    Render(cli::render::Args),
    /// Record what `render` draws as a version-6 PPSSPP frame dump.
    ExportDump(cli::export_dump::Args),
    /// Export a BBS model or map, with its PAM animations, as glTF 2.0 (.glb or .gltf).
    ExportGltf(cli::export_gltf::Args),
    /// List a BBS PAM's animations and channels, optionally evaluated at a frame.
    Pam(cli::pam::Args),
    /// List, evaluate and draw a PopCap PAM (PvZ2 PopAnim) through the GE model.
    Popcap(cli::popcap::Args),
    /// List a Kingdom Hearts II BAR/ANB/MSET/motion, evaluate it, draw posed skeletons.
    Kh2(cli::kh2::Args),
    /// Interactive window: orbit a model (or map) drawn by the GE model, play animations.
    View(cli::view::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    init_tracing(cli.verbose);
    let result = match cli.command {
        Command::Decode(args) => cli::decode::run(args),
        Command::Demo(args) => cli::demo::run(args),
        Command::Disasm(args) => cli::disasm::run(args),
        Command::Replay(args) => cli::replay::run(args),
        Command::State(args) => cli::state::run(args),
        Command::Diff(args) => cli::diff::run(args),
        Command::Report(args) => cli::report::run(args),
        Command::Frametests(args) => cli::frametests::run(args),
        Command::Conformance(args) => cli::conformance::run(args),
        Command::Render(args) => cli::render::run(args),
        Command::ExportDump(args) => cli::export_dump::run(args),
        Command::ExportGltf(args) => cli::export_gltf::run(args),
        Command::Pam(args) => cli::pam::run(args),
        Command::Popcap(args) => cli::popcap::run(args),
        Command::Kh2(args) => cli::kh2::run(args),
        Command::View(args) => cli::view::run(args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {}", error_chain(&e));
            ExitCode::from(2)
        }
    }
}

/// The error and its causes joined by ": ", each cause once: a cause whose text the message
/// already holds (a dependency's error that repeats its own source) is not printed again.
fn error_chain(e: &anyhow::Error) -> String {
    let mut out = String::new();
    for cause in e.chain() {
        let msg = cause.to_string();
        if msg.is_empty() || out.contains(&msg) {
            continue;
        }
        if !out.is_empty() {
            out.push_str(": ");
        }
        out.push_str(&msg);
    }
    out
}

fn init_tracing(verbose: u8) {
    use tracing_subscriber::EnvFilter;
    let level = match verbose {
        0 => "warn",
        1 => "info",
        2 => "debug",
        _ => "trace",
    };
    // winit's start-up complaints about virtual X servers (XSETTINGS, 0 mm displays) are noise.
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(format!("{level},winit=error")));
    let _ = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).try_init();
}
