//! `psprender disasm DUMP [--records]`: the command stream of a frame dump, one GE
//! command per line through the shared command table, with the data records between.

use ge::dump::{Dump, RecordKind};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// Frame dump: .ppdmp, or .zip holding one.
    pub dump: PathBuf,
    /// Also list the data records (vertices, textures, CLUTs, ...) between commands.
    #[arg(long)]
    pub records: bool,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let dump = Dump::open(&args.dump)?;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# {}: version {}, game {:?}, {} records, {} pushbuf bytes",
        args.dump.display(),
        dump.version,
        dump.game_id,
        dump.records.len(),
        dump.pushbuf.len()
    );
    for (i, r) in dump.records.iter().enumerate() {
        let payload = dump.payload(r);
        if r.kind == RecordKind::Registers {
            let words: Vec<u32> =
                payload.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
            let _ = writeln!(out, "# record {i}: {} words", words.len());
            out.push_str(&ge::cmd::disassemble_list(r.ptr, &words));
        } else if args.records {
            let _ = writeln!(out, "# record {i}: {} ({} bytes at pushbuf 0x{:x})", r.kind.name(), r.sz, r.ptr);
        }
    }
    print!("{out}");
    Ok(ExitCode::SUCCESS)
}
