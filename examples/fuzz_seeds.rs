//! Write the fuzz seed corpora (`psprender::fuzzing::seeds`) as `DIR/TARGET/NAME`:
//! `cargo run --release --example fuzz_seeds -- fuzz/seeds` (README, "Fuzzing").

fn main() -> anyhow::Result<()> {
    let dir = std::path::PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| "fuzz/seeds".into()));
    let seeds = psprender::fuzzing::seeds::all();
    for (target, name, bytes) in &seeds {
        psprender::output::write(&dir.join(target).join(name), bytes)?;
    }
    println!("{} seeds written under {}", seeds.len(), dir.display());
    Ok(())
}
