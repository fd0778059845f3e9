//! The per-input allocation cap (README "Limits"): no single input, however hostile, makes
//! psprender hold more than 256 MiB at once. A counting global allocator records the peak
//! of live heap bytes while each worst case runs: container caps filled by decompression
//! bombs (zstd, and a zip entry at its cap), the longest dump replay the caps allow, a PopCap
//! timeline at its layer-state cap, and every committed fuzz input through its target.
//! One test function, so no other test allocates concurrently.

use ge::dump::{Dump, Record, RecordKind, MAX_COMMAND_BYTES, MAX_PUSHBUF_BYTES};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// The cap: 256 MiB of live heap per input.
const CAP: usize = 256 << 20;

struct Counting;
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards to the system allocator unchanged; only counts bytes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            PEAK.fetch_max(LIVE.fetch_add(l.size(), Relaxed) + l.size(), Relaxed);
        }
        p
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(l) };
        if !p.is_null() {
            PEAK.fetch_max(LIVE.fetch_add(l.size(), Relaxed) + l.size(), Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) };
        LIVE.fetch_sub(l.size(), Relaxed);
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Peak live bytes above the starting level while `f` runs.
fn peak_of(f: impl FnOnce()) -> usize {
    let base = LIVE.load(Relaxed);
    PEAK.store(base, Relaxed);
    f();
    PEAK.load(Relaxed) - base
}

fn header(n: u32, bufsz: u32) -> Vec<u8> {
    let mut f = b"PPSSPPGE".to_vec();
    f.extend_from_slice(&6u32.to_le_bytes());
    f.extend_from_slice(b"TEST00000\0\0\0");
    f.extend_from_slice(&n.to_le_bytes());
    f.extend_from_slice(&bufsz.to_le_bytes());
    f
}

fn block(out: &mut Vec<u8>, data: &[u8]) {
    let c = ruzstd::encoding::compress_to_vec(data, ruzstd::encoding::CompressionLevel::Fastest);
    out.extend_from_slice(&(c.len() as u32).to_le_bytes());
    out.extend_from_slice(&c);
}

/// A dump whose blocks decompress to exactly the caps (zeros: record type 0 of size 0,
/// which validation then refuses).
fn bomb_at_caps() -> Vec<u8> {
    let n = (MAX_COMMAND_BYTES / 9) as u32;
    let mut f = header(n, MAX_PUSHBUF_BYTES as u32);
    block(&mut f, &vec![0u8; n as usize * 9]);
    block(&mut f, &vec![0u8; MAX_PUSHBUF_BYTES as usize]);
    f
}

/// The longest valid dump the caps allow: INIT, then one REGISTERS record (a NOP word)
/// per remaining record slot, a pushbuf as large as replay can map, and a DISPLAY.
fn longest_replay() -> Dump {
    let n = (MAX_COMMAND_BYTES / 9) as usize;
    let pushbuf_len = (0x0A00_0000 - ge::dump::PUSHBUF_ADDR) as usize;
    let mut pushbuf = vec![0u8; pushbuf_len];
    let display = 2048 + 4;
    pushbuf[display + 4..display + 8].copy_from_slice(&512u32.to_le_bytes());
    pushbuf[display + 8..display + 12].copy_from_slice(&3u32.to_le_bytes());
    let mut records = vec![Record { kind: RecordKind::from_byte(0), ptr: 0, sz: 2048 }];
    records.resize(n - 1, Record { kind: RecordKind::from_byte(1), ptr: 2048, sz: 4 });
    records.push(Record { kind: RecordKind::from_byte(9), ptr: display as u32, sz: 12 });
    Dump { version: 6, game_id: String::new(), records, pushbuf }
}

fn zip_of(name: &str, bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut z = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    z.start_file(name, opts).unwrap();
    z.write_all(bytes).unwrap();
    z.finish().unwrap().into_inner()
}

#[test]
fn no_input_holds_more_than_256_mib() {
    let mut report = Vec::new();
    let mut check = |what: &str, f: &dyn Fn()| {
        let peak = peak_of(f);
        report.push(format!("{what}: peak {:.1} MiB", peak as f64 / (1 << 20) as f64));
        assert!(peak <= CAP, "{what}: {peak} bytes live at once, above the {CAP}-byte cap");
    };

    // zstd blocks expanding to both container caps.
    let bomb = bomb_at_caps();
    assert!(bomb.len() < 1 << 20, "the bomb is small: {} bytes", bomb.len());
    check("ppdmp decompressing to both caps", &|| {
        assert!(Dump::parse(&bomb).is_err());
    });
    // The same inside a zip, padded (bytes after block 2 are ignored) to near the entry cap.
    let mut padded = bomb.clone();
    padded.resize((MAX_COMMAND_BYTES + MAX_PUSHBUF_BYTES) as usize, 0);
    let zipped = zip_of("bomb.ppdmp", &padded);
    check("zip entry near its cap holding the bomb", &|| {
        assert!(Dump::parse(&zipped).is_err());
    });
    // The longest replay: every record slot used, the largest mappable pushbuf.
    let long = longest_replay();
    let long_file = long.to_bytes();
    drop(long);
    check("longest dump the caps allow, parsed and replayed", &|| {
        let d = Dump::parse(&long_file).expect("valid dump");
        let mut ge = ge::Ge::with_model(ge::Model::Ppsspp);
        ge.set_threads(1);
        ge::dump::replay_image(&d, &mut ge).expect("replays");
    });
    // A PopCap timeline at its layer-state cap.
    use psprender::popcap::{eval, synth};
    let layers = 1000u32;
    let frames = eval::MAX_LAYER_STATES / layers as usize;
    let appends = (0..layers).map(|l| synth::append(l, 0, false)).collect();
    let mut fs = vec![synth::frame(appends, vec![])];
    fs.resize(frames, synth::frame(vec![], vec![]));
    let anim = synth::anim(6, vec![synth::image("i", 4, 4, 6)], vec![], synth::sprite(6, "main", fs));
    check("PopCap timeline at MAX_LAYER_STATES", &|| {
        eval::Timeline::new(&anim).expect("at the cap");
    });
    // Every committed fuzz input through its target.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let mut worst = (0usize, String::new());
    for kind in ["corpus", "regressions"] {
        for d in std::fs::read_dir(root.join(kind)).into_iter().flatten().flatten() {
            let target = d.file_name().to_string_lossy().into_owned();
            for f in std::fs::read_dir(d.path()).unwrap().flatten() {
                let data = std::fs::read(f.path()).unwrap();
                let peak = peak_of(|| {
                    psprender::fuzzing::run(&target, &data);
                });
                if peak > worst.0 {
                    worst = (peak, f.path().display().to_string());
                }
            }
        }
    }
    report.push(format!("worst fuzz input: peak {:.1} MiB ({})", worst.0 as f64 / (1 << 20) as f64, worst.1));
    assert!(worst.0 <= CAP, "{worst:?}");
    println!("{}", report.join("\n"));
}
