//! The readback conformance harness (`psprender::conformance`) on the real PSP's printed
//! output (`../shared/conformance/hardware/readback`, skipped with a message when absent),
//! and its archive reader on hostile archives the test builds itself.

use psprender::conformance::{self, archive};
use std::path::{Path, PathBuf};

fn readback_dir() -> Option<PathBuf> {
    let dir = psprender::shared::dir().map(|d| d.join("conformance/hardware/readback")).filter(|d| d.is_dir());
    if dir.is_none() {
        eprintln!("skipping: conformance/hardware/readback not found in ../shared (set PSPRENDER_SHARED)");
    }
    dir
}

/// Lines of the 7 422 that the GE prints exactly as the PSP did. Raise it as the hardware
/// rules land; PPSSPP's software renderer gets 6 702.
const HARDWARE_LINES_FLOOR: usize = 6702;

/// Every dump's read-back bytes equal PPSSPP's; the printers reproduce PPSSPP's text from
/// PPSSPP's bytes (the anchor that checks them independently of our GE); and the count of
/// lines equal to the PSP's does not fall.
#[test]
fn readback_tests_against_ppsspp_and_the_psp() {
    let Some(dir) = readback_dir() else { return };
    let names = conformance::tests_in(&dir).unwrap();
    assert_eq!(names.len(), 29, "{names:?}");
    let (mut lines, mut ours, mut ppsspp, mut dumps) = (0, 0, 0, 0);
    let mut failures = Vec::new();
    for name in &names {
        let r = conformance::run_test(&dir, name).unwrap_or_else(|e| panic!("{e}"));
        eprintln!(
            "{name}: {}/{} lines equal (PPSSPP {}), {}/{} dumps byte-equal",
            r.ours.equal, r.ours.lines, r.ppsspp.equal, r.bytes_equal, r.dumps
        );
        if r.bytes_equal != r.dumps {
            failures.push(format!(
                "{name}: {} of {} dumps differ from readback.bin: {:?}",
                r.dumps - r.bytes_equal,
                r.dumps,
                r.byte_diffs
            ));
        }
        match &r.anchor {
            Some(a) if !a.differ.is_empty() => {
                failures.push(format!("{name}: printer anchor differs: {:?}", &a.differ[..a.differ.len().min(3)]))
            }
            Some(_) => {}
            None => assert_eq!(name, "depth-precision", "only depth-precision prints values readback.bin lacks"),
        }
        lines += r.ours.lines;
        ours += r.ours.equal;
        ppsspp += r.ppsspp.equal;
        dumps += r.dumps;
    }
    eprintln!("total: {ours}/{lines} lines equal to the PSP's (PPSSPP {ppsspp}), {dumps} dumps");
    assert!(failures.is_empty(), "{failures:#?}");
    // The README's figures: 9 327 dumps, 7 422 value lines, PPSSPP right on 6 702.
    assert_eq!((dumps, lines, ppsspp), (9327, 7422, 6702));
    assert!(ours >= HARDWARE_LINES_FLOOR, "{ours} lines equal to the PSP's, floor {HARDWARE_LINES_FLOOR}");
}

/// Replaying with 1 thread and with the default pool prints identical output.
#[test]
fn one_and_many_threads_agree() {
    let Some(dir) = readback_dir() else { return };
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| conformance::run_test(&dir, "filtering-precisionlinear3d").unwrap())
    };
    let (one, many) = (run(1), run(4));
    assert_eq!(one.printed, many.printed);
    assert_eq!(one.byte_diffs, many.byte_diffs);
}

// ---- hostile archives ----

fn tar_xz(members: &[(&str, Vec<u8>)]) -> Vec<u8> {
    let mut b = tar::Builder::new(Vec::new());
    for (name, data) in members {
        let mut h = tar::Header::new_gnu();
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        h.set_cksum();
        b.append_data(&mut h, name, data.as_slice()).unwrap();
    }
    let tar = b.into_inner().unwrap();
    let mut out = Vec::new();
    let mut enc = xz2::read::XzEncoder::new(tar.as_slice(), 6);
    std::io::Read::read_to_end(&mut enc, &mut out).unwrap();
    out
}

fn index_line(i: usize, size: u32) -> String {
    format!(
        r#"{{"index": {i}, "readback_src": "04000000", "readback_size": {size}, "display": ["04000000", 512, 3], "fb": ["04000000", 512, 3], "zb": ["04088000", 512]}}"#
    )
}

fn load(bytes: &[u8]) -> Result<archive::TestArchive, String> {
    archive::load_from(Path::new("t/filtering-linear.tar.xz"), bytes).map_err(|e| e.to_string())
}

#[test]
fn well_formed_archive_loads() {
    let a = tar_xz(&[
        ("filtering-linear/index.jsonl", (index_line(0, 8) + "\n").into_bytes()),
        ("filtering-linear/0000.ppdmp", b"PPSSPPGE".to_vec()),
        ("filtering-linear/0000.readback.bin", vec![1; 8]),
    ]);
    let t = load(&a).unwrap();
    assert_eq!(t.name, "filtering-linear");
    assert_eq!(t.dumps.len(), 1);
    assert_eq!(t.dumps[0].info.src(), Ok(0x0400_0000));
    assert_eq!(t.dumps[0].readback, vec![1; 8]);
}

#[test]
fn hostile_archives_are_errors_naming_the_file() {
    let ok_index = (index_line(0, 8) + "\n").into_bytes();
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("truncated xz", tar_xz(&[("x/index.jsonl", ok_index.clone())])[..40].to_vec(), "reading the archive"),
        ("not xz", b"hello".to_vec(), "reading the archive"),
        (
            "no index",
            tar_xz(&[("x/0000.ppdmp", vec![0; 4]), ("x/0000.readback.bin", vec![0; 8])]),
            "index.jsonl line 0: missing",
        ),
        ("stray member", tar_xz(&[("x/evil.sh", vec![0; 4])]), "unexpected member \"x/evil.sh\""),
        (
            "lying readback size",
            tar_xz(&[
                ("x/index.jsonl", ok_index.clone()),
                ("x/0000.ppdmp", vec![0; 4]),
                ("x/0000.readback.bin", vec![0; 7]),
            ]),
            "readback.bin holds 7 bytes, index.jsonl says 8",
        ),
        (
            "missing dump",
            tar_xz(&[("x/index.jsonl", ok_index.clone()), ("x/0000.readback.bin", vec![0; 8])]),
            "dump 0000: no .ppdmp member",
        ),
        (
            "index out of order",
            tar_xz(&[("x/index.jsonl", (index_line(1, 8) + "\n").into_bytes())]),
            "index.jsonl line 1: index 1 where 0 was expected",
        ),
        (
            "huge readback_size",
            tar_xz(&[("x/index.jsonl", (index_line(0, 0xFFFF_FFFF) + "\n").into_bytes())]),
            "over the 67108864-byte limit",
        ),
        ("bad json", tar_xz(&[("x/index.jsonl", b"{\"index\": 0,\n".to_vec())]), "index.jsonl line 1"),
        (
            "unlisted member",
            tar_xz(&[("x/index.jsonl", Vec::new()), ("x/0003.ppdmp", vec![0; 4])]),
            "dump 0003: member not listed",
        ),
        ("absurd dump number", tar_xz(&[("x/99999999.ppdmp", vec![0; 4])]), "unexpected member"),
    ];
    for (what, bytes, want) in cases {
        let e = load(&bytes).map(|_| ()).expect_err(what);
        assert!(e.contains("t/filtering-linear.tar.xz") && e.contains(want), "{what}: {e}");
    }
}

/// A tar header that claims a member far larger than any real one is refused before
/// anything is allocated.
#[test]
fn oversized_member_is_refused_before_reading() {
    let mut h = tar::Header::new_gnu();
    h.set_path("x/0000.readback.bin").unwrap();
    h.set_size(archive::MAX_MEMBER + 1);
    h.set_mode(0o644);
    h.set_cksum();
    let mut tar = h.as_bytes().to_vec();
    tar.extend_from_slice(&[0; 1024]); // the data is not there: only the claim
    let mut xz = Vec::new();
    std::io::Read::read_to_end(&mut xz2::read::XzEncoder::new(tar.as_slice(), 1), &mut xz).unwrap();
    let e = load(&xz).map(|_| ()).unwrap_err();
    assert!(e.contains("is 67108865 bytes, over the 67108864-byte limit") && e.contains("byte 0x0"), "{e}");
}

/// A dump that does not parse is an error naming the archive member.
#[test]
fn broken_dump_names_the_member() {
    let a = tar_xz(&[
        ("filtering-linear/index.jsonl", (index_line(0, 8) + "\n").into_bytes()),
        ("filtering-linear/0000.ppdmp", b"PPSSPPGE\x06\0\0\0".to_vec()),
        ("filtering-linear/0000.readback.bin", vec![0; 8]),
    ]);
    let t = load(&a).unwrap();
    let e = conformance::replay_one(&t.name, 0, &t.dumps[0]).map(|_| ()).unwrap_err().to_string();
    assert!(e.starts_with("filtering-linear.tar.xz:filtering-linear/0000.ppdmp: "), "{e}");
}
