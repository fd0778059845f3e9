//! Bad and hostile frame dumps end with a clear error naming where the problem is:
//! never a panic, a hang or an unbounded allocation. Every dump here is built by the
//! test itself. Each is also opened as a stream (`DumpStream`, the pushbuf decoded on a
//! thread while a replay would run), which must give the same dump or the same error.

use ge::dump::{Dump, DumpError, DumpErrorKind, DumpStream, Record, RecordKind};

/// [`Dump::parse`], checked against the streamed reading of the same bytes.
fn parse(bytes: &[u8]) -> Result<Dump, DumpError> {
    ge::fuzzing::parse_both_ways(bytes)
}

/// A minimal valid dump: INIT (registers all zero) and a final DISPLAY.
fn minimal() -> Dump {
    let mut pushbuf = vec![0u8; 2048];
    let display = [0x0000_0000u32.to_le_bytes(), 512u32.to_le_bytes(), 3u32.to_le_bytes()].concat();
    pushbuf.extend_from_slice(&display);
    Dump {
        version: 6,
        game_id: "TEST00000".into(),
        records: vec![
            Record { kind: RecordKind::from_byte(0), ptr: 0, sz: 2048 },
            Record { kind: RecordKind::from_byte(9), ptr: 2048, sz: 12 },
        ],
        pushbuf,
    }
}

/// Raw file bytes: header, counts, and two blocks compressed with `codec`.
fn raw_file(version: u32, n: u32, bufsz: u32, block1: &[u8], block2: &[u8]) -> Vec<u8> {
    let mut f = b"PPSSPPGE".to_vec();
    f.extend_from_slice(&version.to_le_bytes());
    if version >= 4 {
        f.extend_from_slice(b"TEST00000\0\0\0");
    }
    f.extend_from_slice(&n.to_le_bytes());
    f.extend_from_slice(&bufsz.to_le_bytes());
    f.extend_from_slice(&(block1.len() as u32).to_le_bytes());
    f.extend_from_slice(block1);
    f.extend_from_slice(&(block2.len() as u32).to_le_bytes());
    f.extend_from_slice(block2);
    f
}

fn records_bytes(d: &Dump) -> Vec<u8> {
    let mut v = Vec::new();
    for r in &d.records {
        v.push(r.kind.to_byte());
        v.extend_from_slice(&r.sz.to_le_bytes());
        v.extend_from_slice(&r.ptr.to_le_bytes());
    }
    v
}

fn snappy(data: &[u8]) -> Vec<u8> {
    snap::raw::Encoder::new().compress_vec(data).expect("snappy")
}

fn zstd(data: &[u8]) -> Vec<u8> {
    ruzstd::encoding::compress_to_vec(data, ruzstd::encoding::CompressionLevel::Fastest)
}

#[test]
fn round_trip_through_the_v6_writer() {
    let d = minimal();
    let back = parse(&d.to_bytes()).expect("parses");
    assert_eq!(back, d);
}

#[test]
fn snappy_versions_parse() {
    let d = minimal();
    for version in [2, 3, 4] {
        let f = raw_file(version, 2, d.pushbuf.len() as u32, &snappy(&records_bytes(&d)), &snappy(&d.pushbuf));
        let back = parse(&f).unwrap_or_else(|e| panic!("v{version}: {e}"));
        assert_eq!(back.records, d.records);
        assert_eq!(back.pushbuf, d.pushbuf);
    }
}

#[test]
fn every_truncation_is_an_error_not_a_panic() {
    let bytes = minimal().to_bytes();
    for len in 0..bytes.len() {
        let err = parse(&bytes[..len]).expect_err("truncated dump must fail");
        // Every truncation names a byte offset (header/blocks) or the zip layer.
        assert!(err.offset().is_some() || matches!(err.kind, DumpErrorKind::Zip(_)), "len {len}: {err}");
    }
}

#[test]
fn wrong_magic_and_versions() {
    let mut bytes = minimal().to_bytes();
    bytes[0] = b'X';
    let e = parse(&bytes).unwrap_err();
    assert!(matches!(e.kind, DumpErrorKind::BadMagic { .. }), "{e}");
    assert_eq!(e.offset(), Some(0));
    for v in [0u32, 1, 7, 0xFFFF_FFFF] {
        let mut bytes = minimal().to_bytes();
        bytes[8..12].copy_from_slice(&v.to_le_bytes());
        let e = parse(&bytes).unwrap_err();
        assert!(matches!(e.kind, DumpErrorKind::UnsupportedVersion { version } if version == v), "{e}");
        assert!(e.to_string().contains("byte offset 8"), "{e}");
    }
}

#[test]
fn lying_counts_and_size_caps() {
    let d = minimal();
    let recs = records_bytes(&d);
    // Command count larger than the block holds.
    let f = raw_file(6, 3, d.pushbuf.len() as u32, &zstd(&recs), &zstd(&d.pushbuf));
    let e = parse(&f).unwrap_err();
    assert!(e.offset().is_some(), "{e}");
    // Absurd counts are refused before anything is allocated.
    let f = raw_file(6, u32::MAX, u32::MAX, &zstd(&recs), &zstd(&d.pushbuf));
    let e = parse(&f).unwrap_err();
    assert!(matches!(e.kind, DumpErrorKind::TooLarge { .. }), "{e}");
    // Pushbuf size that does not match its block.
    let f = raw_file(6, 2, d.pushbuf.len() as u32 + 5, &zstd(&recs), &zstd(&d.pushbuf));
    assert!(parse(&f).is_err());
    // A compressed size pointing past the end of the file.
    let mut f = raw_file(6, 2, d.pushbuf.len() as u32, &zstd(&recs), &zstd(&d.pushbuf));
    let c1_at = 24 + 8;
    f[c1_at..c1_at + 4].copy_from_slice(&0x7FFF_FFFFu32.to_le_bytes());
    let e = parse(&f).unwrap_err();
    assert!(e.offset().is_some(), "{e}");
}

#[test]
fn decompression_bomb_stops_at_the_declared_size() {
    // 64 MiB of zeros compresses to a few KiB; the header declares 4 KiB.
    let bomb = zstd(&vec![0u8; 64 << 20]);
    assert!(bomb.len() < 1 << 20);
    let d = minimal();
    let f = raw_file(6, 2, 4096, &zstd(&records_bytes(&d)), &bomb);
    let e = parse(&f).unwrap_err();
    assert!(matches!(e.kind, DumpErrorKind::Oversized { .. } | DumpErrorKind::SizeMismatch { .. }), "{e}");
    // Snappy declares its length up front: a lying declaration is caught too.
    let f = raw_file(3, 2, 4096, &snappy(&records_bytes(&d)), &snappy(&vec![0u8; 1 << 20]));
    assert!(parse(&f).is_err());
}

#[test]
fn corrupt_compressed_data() {
    let d = minimal();
    let mut block = zstd(&d.pushbuf);
    for b in block.iter_mut().skip(4) {
        *b ^= 0x5A;
    }
    let f = raw_file(6, 2, d.pushbuf.len() as u32, &zstd(&records_bytes(&d)), &block);
    assert!(parse(&f).is_err());
    let f = raw_file(2, 2, d.pushbuf.len() as u32, &snappy(&records_bytes(&d)), &[0xFF; 40]);
    assert!(parse(&f).is_err());
}

#[test]
fn records_outside_the_pushbuf_and_wrong_fixed_sizes() {
    let mut d = minimal();
    d.records.push(Record { kind: RecordKind::from_byte(2), ptr: 0xFFFF_FFF0, sz: 0x20 });
    let e = parse(&d.to_bytes()).unwrap_err();
    assert!(matches!(e.kind, DumpErrorKind::RecordOutOfBounds { index: 2, .. }), "{e}");
    assert_eq!(e.record_index(), Some(2));
    let mut d = minimal();
    d.records[0].sz = 100; // INIT must be 2048 bytes
    let e = parse(&d.to_bytes()).unwrap_err();
    assert!(matches!(e.kind, DumpErrorKind::RecordSize { index: 0, .. }), "{e}");
}

#[test]
fn zip_without_a_dump() {
    use std::io::Write;
    let mut buf = std::io::Cursor::new(Vec::new());
    {
        let mut z = zip::ZipWriter::new(&mut buf);
        z.start_file("readme.txt", zip::write::SimpleFileOptions::default()).unwrap();
        z.write_all(b"no dump here").unwrap();
        z.finish().unwrap();
    }
    let e = parse(buf.get_ref()).unwrap_err();
    assert!(matches!(e.kind, DumpErrorKind::NoDumpInZip { entries: 1 }), "{e}");
}

#[test]
fn zip_takes_the_last_dump_entry() {
    use std::io::Write;
    let mut a = minimal();
    a.game_id = "FIRST0000".into();
    let mut b = minimal();
    b.game_id = "LAST00000".into();
    let mut buf = std::io::Cursor::new(Vec::new());
    {
        let mut z = zip::ZipWriter::new(&mut buf);
        for (name, d) in [("x/one.ppdmp", &a), ("two.PPDMP", &b)] {
            z.start_file(name, zip::write::SimpleFileOptions::default()).unwrap();
            z.write_all(&d.to_bytes()).unwrap();
        }
        z.finish().unwrap();
    }
    assert_eq!(parse(buf.get_ref()).unwrap().game_id, "LAST00000");
}

#[test]
fn open_names_the_file() {
    let dir = std::env::temp_dir().join(format!("psprender-dump-errors-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("bad.ppdmp");
    std::fs::write(&p, b"PPSSPPGE").unwrap();
    let e = Dump::open(&p).unwrap_err();
    assert!(e.to_string().contains("bad.ppdmp"), "{e}");
    let missing = Dump::open(dir.join("missing.ppdmp")).unwrap_err();
    assert!(missing.to_string().contains("missing.ppdmp"), "{missing}");
    // The streamed open names it the same way (the bad file is short: decoded whole).
    assert_eq!(DumpStream::open(&p).err().map(|e| e.to_string()), Some(e.to_string()));
    let missing2 = DumpStream::open(dir.join("missing.ppdmp")).err().map(|e| e.to_string());
    assert_eq!(missing2, Some(missing.to_string()));
    // A long file whose pushbuf fails is named too, by the replay that finds it.
    let mut long = big_dump();
    *long.last_mut().unwrap() ^= 0x80;
    let p = dir.join("long.ppdmp");
    std::fs::write(&p, &long).unwrap();
    let e = Dump::open(&p).unwrap_err().to_string();
    assert!(e.contains("long.ppdmp") && e.contains("pushbuf block"), "{e}");
    let mut g = ge::Ge::new();
    let streamed = DumpStream::open(&p).and_then(|s| s.replay(&mut g)).map_err(|e| e.in_file(&p));
    assert_eq!(streamed.err().map(|e| e.to_string()), Some(e));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn replay_of_a_hostile_stream_names_the_record() {
    // REGISTERS holding a PRIM whose vertices point outside memory: a clear GE error
    // naming the record, not a panic.
    let mut d = minimal();
    let words: Vec<u8> = [
        0x1200_0180u32, // VTYPE float positions
        0x0100_0100,    // VADDR 0x100 (BASE 0: unmapped)
        0x0403_0003,    // PRIM triangles, 3
    ]
    .iter()
    .flat_map(|w| w.to_le_bytes())
    .collect();
    let ptr = d.pushbuf.len() as u32;
    d.pushbuf.extend_from_slice(&words);
    let disp = d.records.pop().unwrap();
    d.records.push(Record { kind: RecordKind::from_byte(1), ptr, sz: words.len() as u32 });
    d.records.push(disp);
    let mut g = ge::Ge::new();
    let whole = match ge::dump::replay(&d, &mut g) {
        Err(e) => e,
        Ok(_) => panic!("replay should fail on an unmapped vertex address"),
    };
    assert_eq!(whole.record_index(), Some(1), "{whole}");
    let streamed = DumpStream::streamed(d.to_bytes()).and_then(|s| s.replay(&mut ge::Ge::new())).unwrap_err();
    assert_eq!(streamed.to_string(), whole.to_string());
}

/// A dump whose pushbuf holds 600 KiB of random bytes: its zip entry is far above one
/// 64 KiB chunk, so it is inflated on a thread while the blocks are decoded.
fn big_dump() -> Vec<u8> {
    use proptest::prelude::Rng;
    let mut rng = proptest::test_runner::TestRng::deterministic_rng(proptest::test_runner::RngAlgorithm::ChaCha);
    let mut d = minimal();
    let mut noise = vec![0u8; 600 << 10];
    rng.fill_bytes(&mut noise);
    d.pushbuf.extend_from_slice(&noise);
    d.to_bytes()
}

fn outcome(bytes: &[u8]) -> Result<(Vec<Record>, Vec<u8>), String> {
    parse(bytes).map(|d| (d.records, d.pushbuf)).map_err(|e| e.to_string())
}

#[test]
fn zipped_dumps_open_like_their_plain_bytes() {
    let plain = big_dump();
    let zipped = ge::fuzzing::zip_dump(&plain);
    assert!(zipped.len() > 512 << 10);
    assert!(outcome(&zipped) == outcome(&plain) && outcome(&plain).is_ok());
    // Corrupt last bytes of the pushbuf block, and truncations inside each block: the
    // error found while the entry is still inflating is the plain file's, offsets and all.
    let mut variants = Vec::new();
    for xor in [0x01u8, 0x80] {
        let mut v = plain.clone();
        *v.last_mut().unwrap() ^= xor;
        variants.push(v);
    }
    // A block the file holds only in part is a truncation naming the block's start and
    // length (§2), not what the decoder made of the part it had.
    let u32_at = |at: usize| u32::from_le_bytes(plain[at..at + 4].try_into().unwrap()) as u64;
    let (c1, c1_len) = (36u64, u32_at(32));
    let (c2, c2_len) = (c1 + c1_len + 4, u32_at((c1 + c1_len) as usize));
    for (cut, block, at, needed) in [
        (c1 + 1, "command block", c1, c1_len),
        (c1 + c1_len - 1, "command block", c1, c1_len),
        (c2 + 7, "pushbuf block", c2, c2_len),
        (c2 + c2_len / 2, "pushbuf block", c2, c2_len),
        (c2 + c2_len - 1, "pushbuf block", c2, c2_len),
    ] {
        let v = plain[..cut as usize].to_vec();
        let e = parse(&v).unwrap_err();
        assert!(
            matches!(e.kind, DumpErrorKind::Truncated { what, offset, needed: n, len }
                if what == block && offset == at && n == needed && len == cut),
            "cut {cut}: {e}"
        );
        variants.push(v);
    }
    for v in variants {
        let e = outcome(&v).expect_err("a corrupt or cut dump fails");
        assert!(e.contains("byte offset"), "{e}");
        assert_eq!(outcome(&ge::fuzzing::zip_dump(&v)).unwrap_err(), e);
    }
}

#[test]
fn a_corrupt_zip_entry_is_a_zip_error_wherever_the_parser_is() {
    let zipped = ge::fuzzing::zip_dump(&big_dump());
    // Bytes inside the entry's deflate data (after the 30-byte local header and the
    // name): near its start, middle and end. The zip layer's error (CRC, deflate or
    // length) wins over whatever the parser made of the changed bytes.
    let data_start = 30 + "dump.ppdmp".len();
    let data_end = zipped.len() - 200;
    for at in [data_start + 100, (data_start + data_end) / 2, data_end - 100] {
        let mut z = zipped.clone();
        z[at] ^= 0x10;
        let e = parse(&z).unwrap_err();
        assert!(matches!(e.kind, DumpErrorKind::Zip(_)), "byte {at}: {e}");
    }
}
