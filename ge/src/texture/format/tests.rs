use super::super::dxt::{FDxt1, FDxt3, FDxt5};
use super::*;

#[test]
fn direct_16bit_decodes() {
    // 0x1234 = b 00010 g 010001 r 10100: r 20 -> 165, g 17 -> 69, b 2 -> 16.
    assert_eq!(rgb565(0x1234), [165, 69, 16, 255]);
    assert_eq!(rgb565(0xF800), [0, 0, 255, 255]);
    assert_eq!(rgb565(0x07E0), [0, 255, 0, 255]);
    // 0x8421: every 5-bit field 1 -> 8, alpha bit set.
    assert_eq!(rgba5551(0x8421), [8, 8, 8, 255]);
    assert_eq!(rgba5551(0x7FFF), [255, 255, 255, 0]);
    assert_eq!(rgba4444(0x1234), [0x44, 0x33, 0x22, 0x11]);
}

/// The lane offsets of every addressing, linear and swizzled, equal the per-texel
/// `offset` / `dxt_block` of each tap, for any buffer width and coordinates (the
/// samplers pass 0..=511; `fetch_texel` any u32).
#[test]
fn lane_offsets_equal_the_texel_offsets() {
    let mem = Memory::new();
    let mut x = 0x7F4A_7C15u32;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        x
    };
    fn check<F: Format>(
        src: &LevelSrc,
        u: ([u32; 4], [u32; 4]),
        v: ([u32; 4], [u32; 4]),
        want: impl Fn(u32, u32) -> u32,
    ) {
        let terms = lane_offsets::<F>(src, u, v);
        for i in 0..4 {
            let taps = [(u.0[i], v.0[i]), (u.1[i], v.0[i]), (u.0[i], v.1[i]), (u.1[i], v.1[i])];
            assert_eq!(
                tap_offsets(&terms, i),
                taps.map(|(u, v)| want(u, v)),
                "bufw {} swizzle {} {u:?} {v:?}",
                src.bufw,
                src.swizzle
            );
        }
    }
    for round in 0..20_000 {
        let bufw = if round % 5 == 0 { next() & 0xFFFF } else { next() & 0x7FF };
        let src = LevelSrc::new(
            &mem,
            0x0400_0000,
            bufw,
            round % 2 == 0,
            &[],
            ClutIndex { shift: 0, mask: 0xFF, offset: 0 },
            0,
            None,
        );
        let mut lane = || std::array::from_fn(|_| if round % 7 == 0 { next() } else { next() & 511 });
        let (u, v) = ((lane(), lane()), (lane(), lane()));
        check::<FClut4>(&src, u, v, |u, v| src.offset::<4>(u, v));
        check::<FClut8>(&src, u, v, |u, v| src.offset::<8>(u, v));
        check::<F565>(&src, u, v, |u, v| src.offset::<16>(u, v));
        check::<F8888>(&src, u, v, |u, v| src.offset::<32>(u, v));
        check::<FDxt1>(&src, u, v, |u, v| dxt_block(&src, u, v, 8));
        check::<FDxt5>(&src, u, v, |u, v| dxt_block(&src, u, v, 16));
    }
}

#[test]
fn rgba4444_is_each_nibble_times_17() {
    for v in 0..=u16::MAX {
        let n = |s: u16| ((v >> s) & 15) as u8 * 17;
        assert_eq!(rgba4444(v), [n(0), n(4), n(8), n(12)], "{v:#06x}");
        assert_eq!(spread4444(v), spread([n(0), n(4), n(8), n(12)]), "{v:#06x}");
    }
}

/// The four-lane fetch of every format equals the reference fetch lane by lane, linear
/// and swizzled, for levels inside RAM and levels running past the end of VRAM (the
/// lanes then read through the address map), with and without the CLUT table and a
/// per-level palette offset.
#[test]
fn fetch4_equals_texel() {
    let mut x = 0x6A09_E667u32;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        x
    };
    let mut mem = Memory::new();
    let ram: Vec<u8> = (0..0x4_0000).map(|_| next() as u8).collect();
    mem.write(0x0880_0000, &ram).unwrap();
    mem.write(0x0420_0000 - 0x1_0000, &ram[..0x1_0000]).unwrap();
    mem.write(0x0400_0000, &ram[0x1_0000..0x2_0000]).unwrap();
    let palette: Vec<[u8; 4]> = (0..512).map(|_| next().to_le_bytes()).collect();
    fn check<F: Format>(src: &LevelSrc, u: [u32; 4], v: [u32; 4]) {
        let want: [[u8; 4]; 4] = std::array::from_fn(|i| F::texel(src, u[i], v[i]));
        assert_eq!(F::fetch4(src, u, v), want, "bufw {} swizzle {} {u:?} {v:?}", src.bufw, src.swizzle);
    }
    for round in 0..20_000u32 {
        let base = if round % 3 == 0 { 0x0420_0000 - (next() & 0xFFF0) } else { 0x0880_0000 + (next() & 0xFFF0) };
        let clut = ClutIndex {
            shift: next() % 3,
            mask: [0xFF, 0x0F, next() & 0xFF][round as usize % 3],
            offset: next() & 0x1F0,
        };
        let table = ClutTable::new(&palette, clut);
        let src = LevelSrc::new(
            &mem,
            base,
            1 + next() % 1024,
            round % 2 == 0,
            &palette,
            clut,
            if round % 5 == 0 { 16 * (next() % 8) } else { 0 },
            (round % 7 != 0).then_some(&table),
        );
        let lanes = |next: &mut dyn FnMut() -> u32| -> [u32; 4] { std::array::from_fn(|_| next() & 511) };
        let (u, v) = (lanes(&mut next), lanes(&mut next));
        check::<F565>(&src, u, v);
        check::<F5551>(&src, u, v);
        check::<F4444>(&src, u, v);
        check::<F8888>(&src, u, v);
        check::<FClut4>(&src, u, v);
        check::<FClut8>(&src, u, v);
        check::<FClut16>(&src, u, v);
        check::<FClut32>(&src, u, v);
        check::<FDxt1>(&src, u, v);
        check::<FDxt3>(&src, u, v);
        check::<FDxt5>(&src, u, v);
    }
}

#[test]
fn bufw_rules() {
    // 16-byte units: 8 texels for 16-bit, 4 for 32-bit, 32 for CLUT4, 16 for CLUT8.
    assert_eq!(TexFormat::Rgb565.bufw(0x0F_0013), 16);
    assert_eq!(TexFormat::Rgba8888.bufw(6), 4);
    assert_eq!(TexFormat::Clut4.bufw(40), 32);
    assert_eq!(TexFormat::Clut4.bufw(0), 32);
    assert_eq!(TexFormat::Clut8.bufw(0), 16);
    assert_eq!(TexFormat::Rgba8888.bufw(0), 4);
    // DXT is not rounded; 0 still means 16 bytes.
    assert_eq!(TexFormat::Dxt1.bufw(5), 5);
    assert_eq!(TexFormat::Dxt1.bufw(0), 32);
    assert_eq!(TexFormat::Dxt5.bufw(0), 16);
    // Bits 11+ are not width.
    assert_eq!(TexFormat::Rgba8888.bufw(0x840), 0x40);
    assert_eq!(TexFormat::Invalid(12).bufw(64), 0);
}

#[test]
fn clut_index_transform() {
    // shift 1, mask 0x0F, start 2: (0x5A >> 1) & 0xF | 0x20 = 0x2D.
    let arg = (2 << 16) | (0x0F << 8) | (1 << 2) | 1;
    let ci = ClutIndex::from_clutformat(ClutFormatArg(arg), ClutFormat::Rgba5551);
    assert_eq!(ci.apply(0x5A), 0x2D);
    // start 19 -> 304: wraps to 0x30 for 32-bit palettes, stays 0x130 for 16-bit.
    let arg = (19 << 16) | (0xFF << 8) | 3;
    assert_eq!(ClutIndex::from_clutformat(ClutFormatArg(arg), ClutFormat::Rgba8888).apply(5), 0x35);
    assert_eq!(ClutIndex::from_clutformat(ClutFormatArg(arg), ClutFormat::Rgb565).apply(5), 0x135);
    // CLUT32 raw word with shift 24.
    let arg = (0xFF << 8) | (24 << 2) | 3;
    assert_eq!(ClutIndex::from_clutformat(ClutFormatArg(arg), ClutFormat::Rgba8888).apply(0xAABB_CCDD), 0xAA);
    // Simple case masks to 8 bits.
    let arg = 0xFF << 8;
    assert_eq!(ClutIndex::from_clutformat(ClutFormatArg(arg), ClutFormat::Rgb565).apply(0x1234), 0x34);
}
