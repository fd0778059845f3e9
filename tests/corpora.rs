//! States once per `cargo test` run which shared corpora were found, so that skipped corpus
//! tests are visible (a plain test's output is hidden when it passes). Under CI a missing
//! `../shared` fails here, as it does in every corpus test.

fn main() {
    let location = psprender::shared::location();
    let found = std::panic::catch_unwind(psprender::shared::dir);
    match found {
        Ok(Some(dir)) => {
            println!("shared corpora found at {}:", dir.display());
            for line in psprender::shared::summary(&dir) {
                println!("  {line}");
            }
            println!("corpora: 1 passed, 0 failed");
        }
        Ok(None) => {
            println!(
                "shared corpora NOT found at {} (set PSPRENDER_SHARED): every corpus and sample test skips",
                location.display()
            );
            println!("corpora: 1 passed, 0 failed");
        }
        Err(_) => {
            println!("corpora: 0 passed, 1 failed");
            std::process::exit(1);
        }
    }
}
