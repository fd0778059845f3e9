//! `psprender conformance DIR [--test NAME]... [--show N]`: replay the readback tests of
//! DIR (`../shared/conformance/hardware/readback`), print their values as the
//! pspautotests sources do and compare with the real PSP's output line by line.

use psprender::conformance::{self, TestResult};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// Directory with TEST.tar.xz, TEST.hardware.txt and TEST.ppsspp.txt.
    pub dir: PathBuf,
    /// Run only these tests (repeatable); default all.
    #[arg(long = "test")]
    pub tests: Vec<String>,
    /// Differing lines shown per test.
    #[arg(long, default_value_t = 3)]
    pub show: usize,
    /// Folder to save our printed output of each test in as NAME.txt (created if missing).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let start = std::time::Instant::now();
    if let Some(dir) = &args.output {
        psprender::output::prepare_dir(dir)?;
    }
    let all = conformance::tests_in(&args.dir)?;
    let names: Vec<String> = if args.tests.is_empty() {
        all
    } else {
        for t in &args.tests {
            anyhow::ensure!(all.contains(t), "no test {t:?} in {} (have: {})", args.dir.display(), all.join(", "));
        }
        args.tests.clone()
    };
    anyhow::ensure!(!names.is_empty(), "no readback tests (NAME.tar.xz + NAME.hardware.txt) in {}", args.dir.display());
    println!(
        "{:<30} {:>6} {:>8} {:>6} {:>6} {:>7} {:>7}",
        "test", "dumps", "=bytes", "lines", "ours", "ppsspp", "anchor"
    );
    let mut results = Vec::new();
    for name in &names {
        let r = conformance::run_test(&args.dir, name)?;
        println!(
            "{:<30} {:>6} {:>8} {:>6} {:>6} {:>7} {:>7}",
            r.name,
            r.dumps,
            r.bytes_equal,
            r.ours.lines,
            r.ours.equal,
            r.ppsspp.equal,
            r.anchor.as_ref().map_or("n/a".into(), |a| if a.differ.is_empty() {
                "ok".into()
            } else {
                format!("{}!", a.differ.len())
            })
        );
        if let Some(dir) = &args.output {
            psprender::output::write(&dir.join(format!("{name}.txt")), (r.printed.join("\n") + "\n").as_bytes())?;
        }
        results.push(r);
    }
    let sum = |f: fn(&TestResult) -> usize| results.iter().map(f).sum::<usize>();
    let (lines, ours, pp) = (sum(|r| r.ours.lines), sum(|r| r.ours.equal), sum(|r| r.ppsspp.equal));
    println!(
        "{:<30} {:>6} {:>8} {:>6} {:>6} {:>7}",
        "total",
        sum(|r| r.dumps),
        sum(|r| r.bytes_equal),
        lines,
        ours,
        pp
    );
    println!(
        "hardware lines equal: ours {ours}/{lines} ({:.1}%), PPSSPP {pp}/{lines} ({:.1}%); {:.1} s",
        100.0 * ours as f64 / lines.max(1) as f64,
        100.0 * pp as f64 / lines.max(1) as f64,
        start.elapsed().as_secs_f64()
    );
    for r in &results {
        for (line, hw, us) in r.ours.differ.iter().take(args.show) {
            println!("{}:{line}\n  PSP : {hw}\n  ours: {us}", r.name);
        }
        for (dump, off) in &r.byte_diffs {
            println!("{}: dump {dump:04} differs from PPSSPP's readback at byte {off:#x}", r.name);
        }
        if let Some(a) = &r.anchor {
            for (line, pp, us) in a.differ.iter().take(args.show) {
                println!("{}:{line} printer anchor\n  PPSSPP text : {pp}\n  PPSSPP bytes: {us}", r.name);
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
