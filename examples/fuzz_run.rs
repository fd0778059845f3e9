//! Run fuzz inputs through a target on stable, e.g. to measure peak memory:
//! `/usr/bin/time -v target/release/examples/fuzz_run TARGET FILE...` (README, "Fuzzing").

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let target = args.next().ok_or_else(|| anyhow::anyhow!("usage: fuzz_run TARGET FILE..."))?;
    for path in args {
        let data = std::fs::read(&path).map_err(|e| anyhow::anyhow!("{path}: {e}"))?;
        if !psprender::fuzzing::run(&target, &data) {
            anyhow::bail!("unknown target {target} (targets: {:?})", psprender::fuzzing::TARGETS);
        }
    }
    Ok(())
}
