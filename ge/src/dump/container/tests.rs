use super::*;

#[test]
fn frame_info_reads_window_and_content() {
    // FHD 0x20: single segment, 1-byte FCS = 5.
    let f = [0x28, 0xB5, 0x2F, 0xFD, 0x20, 5];
    let i = zstd_frame_info(&f).unwrap();
    assert_eq!((i.window, i.content), (5, Some(5)));
    // FHD 0x40: 2-byte FCS (+256), window descriptor 0x08: log 11, mantissa 0 = 2048.
    let f = [0x28, 0xB5, 0x2F, 0xFD, 0x40, 0x08, 0x00, 0x01];
    let i = zstd_frame_info(&f).unwrap();
    assert_eq!((i.window, i.content), (2048, Some(256 + 256)));
    // Window descriptor 0x0B: log 11 + 3 eighths = 2048 + 768.
    let f = [0x28, 0xB5, 0x2F, 0xFD, 0x00, 0x0B];
    assert_eq!(zstd_frame_info(&f).unwrap().window, 2816);
}

#[test]
fn game_ids_are_cut_at_character_boundaries() {
    assert_eq!(game_id_len("ULUS10298"), 9);
    assert_eq!(game_id_len("ULUS102980"), 9);
    // What a lossy read of "PSPREN\x1f\xff\xff" gives: the 3-byte U+FFFD does not fit.
    assert_eq!(game_id_len("PSPREN\u{1f}\u{FFFD}\u{FFFD}"), 7);
    assert_eq!(game_id_len(""), 0);
}

fn zstd_slice(data: &[u8], expected: usize) -> Res<Vec<u8>> {
    zstd_whole(data, expected, "b", 0)
}

#[test]
fn zstd_roundtrip_and_empty() {
    use ruzstd::encoding::{compress_to_vec, CompressionLevel};
    for data in [vec![], vec![7u8; 300_000], (0..100_000u32).map(|i| (i * 7 % 251) as u8).collect()] {
        let c = compress_to_vec(&data[..], CompressionLevel::Fastest);
        assert_eq!(zstd_slice(&c, data.len()).unwrap(), data);
        if !data.is_empty() {
            assert!(matches!(zstd_slice(&c, data.len() - 1), Err(DumpErrorKind::Oversized { .. })));
            assert!(matches!(zstd_slice(&c, data.len() + 1), Err(DumpErrorKind::SizeMismatch { .. })));
        }
    }
}

/// `bytes` parsed from a stream fed `chunk` bytes at a time by another thread, which
/// ends with a zip error after `fail_after` chunks when given; zstd command blocks of
/// `split` bytes or more decoded on their own thread.
fn streamed(bytes: &[u8], chunk: usize, fail_after: Option<usize>, split: usize) -> Result<Dump, String> {
    let (tx, mut src) = Source::channel(0);
    std::thread::scope(|s| {
        s.spawn(move || {
            for (k, piece) in bytes.chunks(chunk).enumerate() {
                if fail_after == Some(k) || tx.send(Ok(piece.to_vec())).is_err() {
                    break;
                }
            }
            if fail_after.is_some() {
                let _ = tx.send(Err(DumpErrorKind::Zip("stop".into())));
            }
        });
        parse_stream(&mut src, split).map_err(|e| e.to_string())
    })
}

/// The plain reading: the whole file, blocks decoded one after the other.
fn whole(bytes: &[u8]) -> Result<Dump, String> {
    parse_with(&mut Source::Whole(bytes), usize::MAX).map_err(|e| e.to_string())
}

/// A dump whose pushbuf ends with `noise` (incompressible: several zstd blocks), with
/// a VERTICES record for each of `extra` (pointer, size; some outside the pushbuf).
fn noisy_dump(noise: &[u8], extra: &[(u32, u8)]) -> Vec<u8> {
    let mut pushbuf = vec![0u8; 2048];
    pushbuf.extend_from_slice(&[0, 0, 0, 0, 0, 2, 0, 0, 3, 0, 0, 0]);
    pushbuf.extend_from_slice(noise);
    let mut records = vec![Record { kind: RecordKind::Init, ptr: 0, sz: 2048 }];
    let len = pushbuf.len() as u32 + 64;
    records.extend(extra.iter().map(|&(p, sz)| Record { kind: RecordKind::Vertices, ptr: p % len, sz: sz.into() }));
    records.push(Record { kind: RecordKind::Display, ptr: 2048, sz: 12 });
    write_v6(&Dump { version: 6, game_id: "NOISE".into(), records, pushbuf })
}

#[test]
fn only_multi_segment_zstd_pushbufs_stream() {
    let bytes = noisy_dump(&[0x5A; 1000], &[]);
    let streams = |b: &[u8], version: u32| {
        let mut src = Source::Whole(b);
        let mut c = Cursor { src: &mut src, pos: 0 };
        let h = read_header(&mut c).unwrap();
        pushbuf_streams(&mut c, version.min(h.version))
    };
    // The pushbuf frame: after the header, the command block and the pushbuf's length.
    let mut src = Source::Whole(&bytes);
    let mut c = Cursor { src: &mut src, pos: 0 };
    read_header(&mut c).unwrap();
    let cmd = c.u32("command block").unwrap() as usize;
    let frame = c.pos + cmd + 4;
    assert_eq!(bytes[frame..frame + 4], [0x28, 0xB5, 0x2F, 0xFD]);
    let single = bytes[frame + 4] & 0x20 != 0;
    assert_eq!(streams(&bytes, 6), !single);
    let mut flipped = bytes.clone();
    flipped[frame + 4] ^= 0x20;
    assert_eq!(streams(&flipped, 6), single);
    // Snappy (v2–v4) never streams; nor does a file cut inside the command block.
    assert!(!streams(&bytes, 4) && !streams(&flipped, 4));
    assert!(!streams(&bytes[..frame - 8], 6) && !streams(&flipped[..frame - 8], 6));
}

#[test]
fn a_split_command_block_reports_its_error_first() {
    let extra: Vec<(u32, u8)> = (0..2000u32).map(|i| (i.wrapping_mul(0x9E37_79B9), (i % 7) as u8)).collect();
    let mut bytes = noisy_dump(&[0x5A; 1000], &extra);
    let c1_len = u32::from_le_bytes(bytes[32..36].try_into().unwrap()) as usize;
    assert!(c1_len > 1000);
    // Both blocks bad: the command block's frame body changed, the pushbuf block cut short.
    for b in &mut bytes[36 + 20..36 + c1_len - 4] {
        *b ^= 0x33;
    }
    bytes.truncate(bytes.len() - 10);
    let e = whole(&bytes).unwrap_err();
    assert!(e.starts_with("command block"), "{e}");
    for split in [0, usize::MAX] {
        assert_eq!(streamed(&bytes, 4096, None, split), Err(e.clone()));
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]
    /// The parser reads a stream exactly like the whole file, wherever chunks split it,
    /// with the file whole, cut short, or with one byte changed (in the header, the
    /// command block, anywhere in the pushbuf block up to its last byte); a zip error
    /// ending the stream wins over whatever the parser found or made; a zstd command
    /// block decoded on its own thread gives what decoding it first gives.
    #[test]
    fn streams_parse_like_whole_files(
        noise in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..300_000),
        extra in proptest::collection::vec(proptest::prelude::any::<(u32, u8)>(), 0..400),
        split in proptest::prop_oneof![proptest::strategy::Just(0usize), proptest::strategy::Just(usize::MAX)],
        chunk in proptest::prop_oneof![1usize..40, 40usize..200_000],
        edit in 0u8..4,
        at in proptest::prelude::any::<proptest::sample::Index>(),
        xor in 1u8..=255,
        fail_after in proptest::option::of(0usize..12),
    ) {
        let mut bytes = noisy_dump(&noise, &extra);
        let at = at.index(bytes.len());
        match edit {
            0 => bytes.truncate(at),
            1 => bytes[at] ^= xor,
            2 => *bytes.last_mut().unwrap() ^= xor,
            _ => {}
        }
        // Chunks of one byte make 300 000 messages: only for a short prefix.
        let bytes = if chunk < 40 { &bytes[..bytes.len().min(4096)] } else { &bytes[..] };
        let expected = match fail_after {
            Some(_) => Err("zip archive: stop".to_string()),
            None => whole(bytes),
        };
        let got = streamed(bytes, chunk, fail_after, split);
        // Not prop_assert_eq: a dump's debug print is its whole pushbuf.
        proptest::prop_assert!(got == expected, "{:?} != {:?}", got.err(), expected.err());
    }
}
