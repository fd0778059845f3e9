//! End-to-end tests of the texture unit through registers and memory. Expected values are
//! worked out by hand from ge-reference.md §10–§11.

use super::*;
use crate::cmd::op;
use crate::geom::{Fragment, Quad};
use crate::regs::Regs;
use proptest::prelude::*;

const BASE: u32 = 0x0810_0000;

/// Registers for one texture at BASE: format, log2 size, bufw.
fn regs(fmt: u32, wlog: u32, hlog: u32, bufw: u32) -> Regs {
    let mut r = Regs::default();
    r.set(op::TEXFORMAT, fmt);
    r.set(op::TEXADDR0, BASE & 0xFF_FFFF);
    r.set(op::TEXBUFWIDTH0, ((BASE >> 8) & 0x0F_0000) | bufw);
    r.set(op::TEXSIZE0, (hlog << 8) | wlog);
    r.set(op::CLUTFORMAT, 0xFF << 8 | 3);
    r
}

fn quad(st: [(f32, f32); 4]) -> Quad {
    let frags = st.map(|(s, t)| Fragment { s, t, color0: [255; 4], ..Default::default() });
    Quad::from_frags(std::array::from_fn(|i| Fragment { x: (i & 1) as i32, y: (i >> 1) as i32, ..frags[i] }), 0xF, 0.0)
}

#[test]
fn direct_formats_through_memory() {
    let mut mem = Memory::new();
    mem.write(BASE, &[0x34, 0x12, 0x21, 0x84, 0x00, 0xF8]).unwrap();
    let st = TextureState::decode(&regs(0, 2, 0, 8), &[0; 1024], false);
    assert_eq!(decode_level(&st, &mem, 0)[..3], [[165, 69, 16, 255], [8, 134, 132, 255], [0, 0, 255, 255]]);
    let st = TextureState::decode(&regs(1, 2, 0, 8), &[0; 1024], false);
    assert_eq!(decode_level(&st, &mem, 0)[1], [8, 8, 8, 255]);
    let st = TextureState::decode(&regs(2, 2, 0, 8), &[0; 1024], false);
    assert_eq!(decode_level(&st, &mem, 0)[0], [0x44, 0x33, 0x22, 0x11]);
    let st = TextureState::decode(&regs(3, 1, 0, 4), &[0; 1024], false);
    assert_eq!(decode_level(&st, &mem, 0), vec![[0x34, 0x12, 0x21, 0x84], [0x00, 0xF8, 0, 0]]);
}

#[test]
fn clut_formats_shift_mask_start() {
    let mut clut = [0u8; 1024];
    for (i, c) in clut.chunks_exact_mut(4).enumerate() {
        c.copy_from_slice(&[i as u8, 0, 0, 255]);
    }
    let mut mem = Memory::new();
    mem.write(BASE, &[0x21, 0x5A, 0x34, 0x12, 0xDD, 0xCC, 0xBB, 0xAA]).unwrap();
    // CLUT4: low nibble first -> indices 1, 2, 10, 5.
    let st = TextureState::decode(&regs(4, 2, 0, 0), &clut, false);
    assert_eq!(decode_level(&st, &mem, 0).iter().map(|c| c[0]).collect::<Vec<_>>(), [1, 2, 0xA, 5]);
    // CLUT8, shift 1, mask 0x0F, start 2: 0x5A -> 0x2D.
    let mut r = regs(5, 2, 0, 0);
    r.set(op::CLUTFORMAT, (2 << 16) | (0x0F << 8) | (1 << 2) | 3);
    assert_eq!(decode_level(&TextureState::decode(&r, &clut, false), &mem, 0)[1][0], 0x2D);
    // CLUT32 start 19: 304 wraps to 0x30 within the 256-entry palette; 0x21 | 0x30 = 0x31.
    r.set(op::CLUTFORMAT, (19 << 16) | (0xFF << 8) | 3);
    assert_eq!(decode_level(&TextureState::decode(&r, &clut, false), &mem, 0)[0][0], 0x31);
    // CLUT16 (5650 palette): raw 0x1234 shift 4 -> 0x23; 16-bit entry 0x23 = CLUT bytes
    // 0x46, 0x47 = (32-bit entry 17 bytes 2, 3) = 0, 255 -> 0xFF00 -> (0, 227, 255).
    let mut r = regs(6, 2, 0, 0);
    r.set(op::CLUTFORMAT, (0xFF << 8) | (4 << 2));
    let st = TextureState::decode(&r, &clut, false);
    assert_eq!(decode_level(&st, &mem, 0)[1], [0, 227, 255, 255]);
    // CLUT32 raw word 0xAABBCCDD shift 24 -> 0xAA.
    let mut r = regs(7, 1, 0, 0);
    r.set(op::CLUTFORMAT, (0xFF << 8) | (24 << 2) | 3);
    assert_eq!(decode_level(&TextureState::decode(&r, &clut, false), &mem, 0)[1], [0xAA, 0, 0, 255]);
}

#[test]
fn palette_is_a_snapshot() {
    let mut clut = [7u8; 1024];
    let st = TextureState::decode(&regs(5, 2, 0, 0), &clut, false);
    clut[0] = 99;
    assert_eq!((clut[0], st.palette[0]), (99, [7, 7, 7, 7]));
}

#[test]
fn swizzled_and_linear_address_the_same_texel() {
    // 8888, bufw 16 (64-byte rows), texel (5, 9): byte column 20.
    // Linear: 9·64 + 20 = 596. Swizzled: 1·(8·64) + 1·128 + 1·16 + 4 = 660.
    let mut mem = Memory::new();
    mem.write(BASE + 596, &[1, 2, 3, 4]).unwrap();
    mem.write(BASE + 660, &[5, 6, 7, 8]).unwrap();
    let mut r = regs(3, 4, 4, 16);
    r.set(op::TEXWRAP, 0);
    let lin = TextureState::decode(&r, &[0; 1024], true);
    r.set(op::TEXMODE, 1);
    let swz = TextureState::decode(&r, &[0; 1024], true);
    let q = quad([(5.5, 9.5); 4]);
    assert_eq!(sample_quad(&lin, &mem, &q)[0], [1, 2, 3, 4]);
    assert_eq!(sample_quad(&swz, &mem, &q)[0], [5, 6, 7, 8]);
    // CLUT4 swizzled: texel (35, 2) -> byte 17: tile 1 (128) + row 2 (32) + 1 = 161, high nibble.
    let mut clut = [0u8; 1024];
    clut[4 * 9] = 0x99;
    mem.write(BASE + 161, &[0x90]).unwrap();
    let mut r = regs(4, 6, 3, 64);
    r.set(op::TEXMODE, 1);
    let st = TextureState::decode(&r, &clut, false);
    assert_eq!(decode_level(&st, &mem, 0)[2 * 64 + 35][0], 0x99);
}

#[test]
fn fetch_texel_has_no_wrap() {
    // 4x1 8888 with bufw 8: texel 5 is beyond the width but inside the row; no wrap to 1.
    let mut mem = Memory::new();
    mem.write(BASE + 20, &[1, 2, 3, 4]).unwrap();
    let st = TextureState::decode(&regs(3, 2, 0, 8), &[0; 1024], true);
    assert_eq!(fetch_texel(&st, &mem, 0, 5, 0), [1, 2, 3, 4]);
    assert_eq!(fetch_texel(&st, &mem, 0, 1, 0), [0; 4]);
    assert_eq!(fetch_texel(&st, &mem, 9, 1, 0), [0; 4]);
    // Huge coordinates wrap in the address arithmetic instead of panicking.
    let _ = fetch_texel(&st, &mem, 0, u32::MAX, u32::MAX);
    let mut r = regs(8, 2, 2, 0);
    r.set(op::TEXMODE, 1);
    let _ = fetch_texel(&TextureState::decode(&r, &[0; 1024], false), &mem, 0, u32::MAX, u32::MAX);
}

#[test]
fn dxt1_block_addressing() {
    // 8x4 DXT1, bufw 8: blocks at 0 and 8. Second block all colour 1 = 0x001F (B 248).
    let mut mem = Memory::new();
    mem.write(BASE + 8, &[0, 0, 0, 0, 0x1F, 0, 0, 0]).unwrap();
    let st = TextureState::decode(&regs(8, 3, 2, 8), &[0; 1024], false);
    let px = decode_level(&st, &mem, 0);
    assert_eq!(px[0], [0, 0, 0, 255]);
    assert_eq!(px[3 * 8 + 5], [0, 0, 248, 255]);
}

#[test]
fn bilinear_one_sixteenth_red_to_green() {
    // [HW vertices/texcoords box 13] 1/16 of the way from red to green = (239, 15, 0).
    let mut mem = Memory::new();
    mem.write(BASE, &[255, 0, 0, 255, 0, 255, 0, 255]).unwrap();
    let mut r = regs(3, 1, 0, 4);
    r.set(op::TEXFILTER, 0x101);
    r.set(op::TEXWRAP, 0x101);
    let st = TextureState::decode(&r, &[0; 1024], false);
    // s·2·256 = 144 -> U = 16: texels 0/1, weight 1; t = 0.5 -> V = 0.
    let q = quad([(0.28125, 0.5); 4]);
    assert_eq!(sample_quad(&st, &mem, &q)[0], [239, 15, 0, 255]);
    // In through mode the same sample is at texel coordinate 0.5625.
    let st = TextureState::decode(&r, &[0; 1024], true);
    assert_eq!(sample_quad(&st, &mem, &quad([(0.5625, 0.5); 4]))[3], [239, 15, 0, 255]);
}

#[test]
fn hardware_bilinear_rounds_each_pass_u_first() {
    // [HW reflection-reflection pixel (223,103)]: 4444 texels 34, 85 (top) and 204, 17
    // (bottom), weights fu = 12, fv = 11; the PSP shows the filtered texel 65 (the face
    // colour 102 ADDed: 167). u pass: 72 and 63, v pass: 1053 >> 4 = 65; PPSSPP's single
    // rounding gives 17000 >> 8 = 66.
    let mut mem = Memory::new();
    mem.write(BASE, &[0x22, 0x22, 0x55, 0x55]).unwrap();
    mem.write(BASE + 16, &[0xCC, 0xCC, 0x11, 0x11]).unwrap();
    let mut r = regs(2, 1, 1, 8);
    r.set(op::TEXFILTER, 0x101);
    r.set(op::TEXWRAP, 0x101);
    // s·512 = 328 -> U = 200: texels 0/1, fu = 12; t·512 = 312 -> V = 184, fv = 11.
    let q = quad([(0.640625, 0.609375); 4]);
    let st = TextureState::decode(&r, &[0; 1024], false);
    assert_eq!(sample_quad(&st, &mem, &q)[0], [65; 4]);
    let ppsspp = st.clone().with_sampler(SamplerRule::PpssppJit);
    assert_eq!(sample_quad(&ppsspp, &mem, &q)[0], [66; 4]);
}

#[test]
fn wrap_negative_and_511_clamp_through_sampling() {
    let mut mem = Memory::new();
    // 1024x1 CLUT8; texel 511 index 3, texel 15 index 4.
    mem.write(BASE + 511, &[3]).unwrap();
    mem.write(BASE + 15, &[4]).unwrap();
    let mut clut = [0u8; 1024];
    clut[12] = 30;
    clut[16] = 40;
    let mut r = regs(5, 10, 0, 1024 & 0x7FF);
    r.set(op::TEXBUFWIDTH0, ((BASE >> 8) & 0x0F_0000) | 0x400);
    r.set(op::TEXWRAP, 1);
    let st = TextureState::decode(&r, &clut, false);
    // s = 0.9 -> 921 -> clamped to 511.
    assert_eq!(sample_quad(&st, &mem, &quad([(0.9, 0.0); 4]))[0][0], 30);
    // 16 wide, wrapping: s = -0.001 -> texel 15.
    let r = regs(5, 4, 0, 16);
    let st = TextureState::decode(&r, &clut, false);
    assert_eq!(sample_quad(&st, &mem, &quad([(-0.001, 0.0); 4]))[0][0], 40);
}

/// Levels 0, 1, 2 filled red, green, blue (8888, 64x64 down).
fn mip_setup(filter: u32, texlevel: u32) -> (TextureState, Memory) {
    let mut mem = Memory::new();
    let mut r = Regs::default();
    r.set(op::TEXFORMAT, 3);
    for i in 0..3u32 {
        let addr = BASE + 0x10000 * i;
        let size = 64 >> i;
        let color: [u8; 4] = [[255, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 255]][i as usize];
        let bytes: Vec<u8> = (0..size * size).flat_map(|_| color).collect();
        mem.write(addr, &bytes).unwrap();
        r.set(op::TEXADDR0 + i as u8, addr & 0xFF_FFFF);
        r.set(op::TEXBUFWIDTH0 + i as u8, ((addr >> 8) & 0x0F_0000) | size as u32);
        r.set(op::TEXSIZE0 + i as u8, ((6 - i) << 8) | (6 - i));
    }
    r.set(op::TEXMODE, 2 << 16);
    r.set(op::TEXFILTER, filter);
    r.set(op::TEXLEVEL, texlevel);
    (TextureState::decode(&r, &[0; 1024], true), mem)
}

#[test]
fn mip_level_selection_for_a_quad() {
    // Through mode, 2 texels per pixel in s: ds = 2/64 -> detail 16 -> level 1 (green).
    let (st, mem) = mip_setup(4, 0);
    let q = quad([(10.0, 10.0), (12.0, 10.0), (10.0, 11.0), (12.0, 11.0)]);
    assert_eq!(sample_quad(&st, &mem, &q)[0], [0, 255, 0, 255]);
    // 1 texel per pixel -> detail 0 -> level 0 (red).
    let q1 = quad([(10.0, 10.0), (11.0, 10.0), (10.0, 11.0), (11.0, 11.0)]);
    assert_eq!(sample_quad(&st, &mem, &q1)[0], [255, 0, 0, 255]);
    // Mip filtering (6) with 3 texels per pixel: level 1 + 8/16 of level 2.
    let (st, mem) = mip_setup(6, 0);
    let q3 = quad([(10.0, 10.0), (13.0, 10.0), (10.0, 11.0), (13.0, 11.0)]);
    assert_eq!(sample_quad(&st, &mem, &q3)[1], [0, 127, 127, 255]);
    // Const mode with bias 2.0 levels: blue regardless of derivatives.
    let (st, mem) = mip_setup(4, (32 << 16) | 1);
    assert_eq!(sample_quad(&st, &mem, &q1)[2], [0, 0, 255, 255]);
}

#[test]
fn separate_clut_per_mip_for_clut4() {
    let mut mem = Memory::new();
    let mut r = Regs::default();
    r.set(op::TEXFORMAT, 4);
    for i in 0..2u32 {
        let addr = BASE + 0x1000 * i;
        mem.write(addr, &[0x11; 64]).unwrap();
        r.set(op::TEXADDR0 + i as u8, addr & 0xFF_FFFF);
        r.set(op::TEXBUFWIDTH0 + i as u8, ((addr >> 8) & 0x0F_0000) | 32);
        r.set(op::TEXSIZE0 + i as u8, ((3 - i) << 8) | (3 - i));
    }
    r.set(op::CLUTFORMAT, (0xFF << 8) | 3);
    let mut clut = [0u8; 1024];
    clut[4] = 1; // entry 1
    clut[4 * 17] = 17; // entry 1 + 16
    r.set(op::TEXFILTER, 4);
    r.set(op::TEXMODE, (1 << 16) | 0x100);
    let st = TextureState::decode(&r, &clut, false);
    assert!(!st.shared_clut);
    assert_eq!(decode_level(&st, &mem, 0)[0][0], 1);
    assert_eq!(decode_level(&st, &mem, 1)[0][0], 17);
    // Bit 8 clear: shared palette.
    r.set(op::TEXMODE, 1 << 16);
    let st = TextureState::decode(&r, &clut, false);
    assert_eq!(decode_level(&st, &mem, 1)[0][0], 1);
}

#[test]
fn bilinear_per_mip_clut4_offsets_only_the_first_tap() {
    // CLUT4 8x8 + 4x4, every texel index 1, separate palettes (TEXMODE bit 8), const LOD
    // bias 1.0 -> level 1, minify linear. Entry 1 has red 1, entry 17 red 17. At s = t = 0.25
    // on the 4x4 level, U = 0.25·1024 − 128 = 128: texels 0/1, weights 8/16 both ways.
    // PPSSPP's JIT adds 16·level in lane 0 only, so the top-left tap reads entry 17 and the
    // others entry 1: ((17·8 + 1·8)·8 + (1·8 + 1·8)·8) >> 8 = 5 [SamplerX86 Jit_ReadClutQuad].
    let mut mem = Memory::new();
    let mut r = Regs::default();
    r.set(op::TEXFORMAT, 4);
    for i in 0..2u32 {
        let addr = BASE + 0x1000 * i;
        mem.write(addr, &[0x11; 64]).unwrap();
        r.set(op::TEXADDR0 + i as u8, addr & 0xFF_FFFF);
        r.set(op::TEXBUFWIDTH0 + i as u8, ((addr >> 8) & 0x0F_0000) | 32);
        r.set(op::TEXSIZE0 + i as u8, ((3 - i) << 8) | (3 - i));
    }
    r.set(op::CLUTFORMAT, (0xFF << 8) | 3);
    let mut clut = [0u8; 1024];
    clut[4] = 1;
    clut[4 * 17] = 17;
    r.set(op::TEXFILTER, 5);
    r.set(op::TEXMODE, (1 << 16) | 0x100);
    r.set(op::TEXLEVEL, (16 << 16) | 1);
    let st = TextureState::decode(&r, &clut, false);
    let q = quad([(0.25, 0.25); 4]);
    assert_eq!(sample_quad(&st, &mem, &q)[0], [5, 0, 0, 0]);
    // Nearest sampling uses the level's palette for every texel.
    r.set(op::TEXFILTER, 4);
    let st = TextureState::decode(&r, &clut, false);
    assert_eq!(sample_quad(&st, &mem, &q)[0], [17, 0, 0, 0]);
}

#[test]
fn texture_functions_via_state() {
    let mut r = regs(3, 0, 0, 0);
    r.set(op::TEXFUNC, 0x1_0100);
    let st = TextureState::decode(&r, &[0; 1024], false);
    // Modulate doubled, rgba: 0x7F·0x7F -> 0x7F, alpha 0x3F; then + secondary 0x90 clamps.
    assert_eq!(texture_function(&st, [0x7F; 4], [0, 0x90, 0], [0x7F; 4]), [0x7F, 0xFF, 0x7F, 0x3F]);
    r.set(op::TEXFUNC, 2);
    r.set(op::TEXENVCOLOR, 0x00_20_40_80);
    let st = TextureState::decode(&r, &[0; 1024], false);
    assert_eq!(texture_function(&st, [9, 9, 9, 200], [0; 3], [255, 255, 255, 0]), [0x80, 0x40, 0x20, 200]);
}

#[test]
fn invalid_address_zeroes_the_stage() {
    let mut r = regs(3, 2, 2, 4);
    r.set(op::TEXADDR0, 0);
    r.set(op::TEXBUFWIDTH0, 4);
    let st = TextureState::decode(&r, &[0; 1024], false);
    let mut q = quad([(0.1, 0.1); 4]);
    q.color1[0] = [1, 2, 3, 0];
    assert_eq!(sample_quad_w(&st, &Memory::new(), &q, 1.0), None);
    assert_eq!(shade_quad(&st, &Memory::new(), &q, 1.0)[0], [1, 2, 3, 0]);
}

#[test]
fn reads_past_memory_are_zero() {
    // Texture at the very end of RAM: rows beyond read as 0.
    let mut mem = Memory::new();
    let addr = 0x09FF_FFF0u32;
    mem.write(addr, &[0xAB; 16]).unwrap();
    let mut r = regs(3, 2, 2, 4);
    r.set(op::TEXADDR0, addr & 0xFF_FFFF);
    r.set(op::TEXBUFWIDTH0, ((addr >> 8) & 0x0F_0000) | 4);
    let st = TextureState::decode(&r, &[0; 1024], false);
    let px = decode_level(&st, &mem, 0);
    assert_eq!(px[0], [0xAB; 4]);
    assert_eq!(px[4], [0; 4]);
}

proptest! {
    #[test]
    fn never_panics(raw in proptest::collection::vec(any::<u32>(), 24), s in any::<f32>(), t in any::<f32>(),
                    ds in any::<f32>(), w in any::<f32>()) {
        let mut r = Regs::default();
        let ops = [op::TEXFORMAT, op::TEXMODE, op::TEXFILTER, op::TEXWRAP, op::TEXLEVEL, op::TEXFUNC,
                   op::CLUTFORMAT, op::TEXLODSLOPE, op::TEXADDR0, op::TEXBUFWIDTH0, op::TEXSIZE0,
                   op::TEXADDR0 + 1, op::TEXBUFWIDTH0 + 1, op::TEXSIZE0 + 1, op::TEXADDR0 + 7,
                   op::TEXBUFWIDTH0 + 7, op::TEXSIZE0 + 7, op::TEXENVCOLOR];
        for (o, v) in ops.iter().zip(&raw) {
            r.set(*o, *v);
        }
        let mem = Memory::new();
        for through in [false, true] {
            let st = TextureState::decode(&r, &[0x5A; 1024], through);
            let q = quad([(s, t), (s + ds, t), (s, t + ds), (s + ds, t + ds)]);
            let _ = shade_quad(&st, &mem, &q, w);
            let _ = decode_level(&st, &mem, (raw[20] & 7) as usize);
            let l = lod(&st, ds, ds, w);
            prop_assert!(l.level <= st.max_level);
            let _ = shade_fragment(&st, &mem, &q.frag(0), l);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]
    /// CLUT4/CLUT8 levels decoded 16 bytes at a time equal the texel-by-texel decode, for
    /// both layouts, any buffer width, CLUT index transform and memory contents, also for a
    /// texture running off the end of RAM.
    #[test]
    fn clut_rows_equal_texels(
        clut8 in any::<bool>(),
        wlog in 0u32..8,
        hlog in 0u32..6,
        bufw in 0u32..1024,
        swizzle in any::<bool>(),
        clutformat in any::<u32>(),
        at_ram_end in any::<bool>(),
        block in proptest::collection::vec(any::<u8>(), 1024),
    ) {
        let base = if at_ram_end { 0x09FF_FF00 } else { BASE };
        let mut mem = Memory::new();
        // 64 KiB (enough for 32 rows of bufw 1023 at 8 bits) of the block repeated, with a
        // one-byte shift per repeat so rows do not simply alias.
        let bytes: Vec<u8> = (0..64 * 1024).map(|i| block[(i + i / 1024) % 1024]).collect();
        let n = if at_ram_end { 0x100 } else { bytes.len() };
        mem.write(base, &bytes[..n]).unwrap();
        let clut: Vec<u8> = bytes[..1024].iter().rev().copied().collect();
        let clut: [u8; 1024] = clut.try_into().unwrap();
        let mut r = regs(if clut8 { 5 } else { 4 }, wlog, hlog, bufw);
        r.set(op::TEXADDR0, base & 0xFF_FFFF);
        r.set(op::TEXBUFWIDTH0, ((base >> 8) & 0x0F_0000) | bufw);
        r.set(op::TEXMODE, swizzle as u32);
        r.set(op::CLUTFORMAT, clutformat & 0xFF_FFFF);
        let st = TextureState::decode(&r, &clut, false);
        let l = st.level(&mem, 0);
        let (w, h) = (st.levels[0].width.min(512), st.levels[0].height.min(512));
        let mut plain = vec![[0u8; 4]; (w * h) as usize];
        texel_rows(st.format, &l.src, w, h, &mut plain);
        prop_assert_eq!(decode_level(&st, &mem, 0), plain);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]
    /// The samplers' CLUT4/CLUT8 fetches through the per-state table (`Format::fetch`,
    /// `Format::tap`) equal the reference `Format::texel` (palette lookup through the
    /// index transform) and its spread, for any CLUT bytes, palette format, index
    /// transform, layout and texel, with and without a per-level palette offset (which
    /// the table does not cover), and a bilinear lane's CLUT4 taps through the nibble
    /// table equal the reference texels. It fails with the transform or the spread left
    /// out of the table, or the table used under a level offset.
    #[test]
    fn clut_tables_equal_the_lookup(
        clut8 in any::<bool>(),
        swizzle in any::<bool>(),
        bufw in 0u32..1024,
        clutformat in any::<u32>(),
        clut_level in 0u32..3,
        block in proptest::collection::vec(any::<u8>(), 1024),
        uv in proptest::collection::vec((0u32..512, 0u32..512), 16),
    ) {
        use super::format::{spread, FClut4, FClut8, Format};
        let mut mem = Memory::new();
        let bytes: Vec<u8> = (0..64 * 1024).map(|i| block[(i + i / 1024) % 1024]).collect();
        mem.write(BASE, &bytes).unwrap();
        let clut: [u8; 1024] = block.iter().rev().copied().collect::<Vec<u8>>().try_into().unwrap();
        let mut r = regs(if clut8 { 5 } else { 4 }, 9, 9, bufw);
        r.set(op::TEXMODE, swizzle as u32);
        r.set(op::CLUTFORMAT, clutformat & 0xFF_FFFF);
        let st = TextureState::decode(&r, &clut, false);
        prop_assert!(st.clut_table.is_some());
        let l = st.level(&mem, 0);
        let src = format::LevelSrc { clut_level: 16 * clut_level, ..l.src };
        let rest = format::LevelSrc { clut_level: 0, ..src };
        for w in uv.windows(2) {
            // A bilinear lane's four CLUT4 taps (`Format::taps`, through the nibble table).
            let ((u0, v0), (u1, v1)) = (w[0], w[1]);
            let off = [(u0, v0), (u1, v0), (u0, v1), (u1, v1)].map(|(u, v)| src.offset::<4>(u, v));
            let want = [
                spread(FClut4::texel(&src, u0, v0)),
                spread(FClut4::texel(&rest, u1, v0)),
                spread(FClut4::texel(&rest, u0, v1)),
                spread(FClut4::texel(&rest, u1, v1)),
            ];
            let got = FClut4::taps(&src, off, (u0, u1), (v0, v1), &mut format::BlockMemo::default());
            prop_assert_eq!(got, want);
        }
        for (u, v) in uv {
            if clut8 {
                prop_assert_eq!(FClut8::fetch(&src, u, v), FClut8::texel(&src, u, v));
                prop_assert_eq!(FClut8::tap(&src, u, v), spread(FClut8::texel(&src, u, v)));
            } else {
                prop_assert_eq!(FClut4::fetch(&src, u, v), FClut4::texel(&src, u, v));
                prop_assert_eq!(FClut4::tap(&src, u, v), spread(FClut4::texel(&src, u, v)));
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    /// `TextureState::read_ranges` holds every byte sampling can read: level 0's texels at
    /// every coordinate the samplers reach (0..=(size - 1) & 511) are the same whatever
    /// lies outside its range, in every format, swizzled or not, any buffer width.
    #[test]
    fn read_ranges_hold_every_texel(
        fmt in 0u32..11,
        wlog in 0u32..10,
        hlog in 0u32..10,
        // Narrow buffers too: there the swizzled layout reaches furthest.
        bufw in prop_oneof![0u32..40, 0u32..0x800],
        swizzle in any::<bool>(),
        seed in any::<u32>(),
    ) {
        // At most 64 Ki texels per case.
        let hlog = hlog.min(16 - wlog.min(16)).min(9);
        let mut r = regs(fmt, wlog, hlog, bufw);
        r.set(op::TEXMODE, u32::from(swizzle));
        let clut: [u8; 1024] = std::array::from_fn(|i| (i as u32).wrapping_mul(seed | 1).to_le_bytes()[1]);
        let st = TextureState::decode(&r, &clut, false);
        let Some((addr, len)) = st.read_ranges().next() else {
            // Invalid formats read nothing.
            prop_assert_eq!(st.format.bits_per_texel(), 0);
            return Ok(());
        };
        prop_assert_eq!(addr, BASE);
        let inside = |i: usize| (i as u32).wrapping_mul(seed | 1).rotate_left(7).to_le_bytes()[0];
        let (mut a, mut b) = (Memory::new(), Memory::new());
        let off = (BASE - crate::mem::RAM_BASE) as usize;
        let end = (off + len as usize).min(crate::mem::RAM_SIZE as usize);
        let ram_b = b.slice_mut(crate::mem::RAM_BASE, crate::mem::RAM_SIZE).unwrap();
        ram_b.fill(0xA5);
        for (i, x) in ram_b[off..end].iter_mut().enumerate() {
            *x = inside(i);
        }
        let ram_a = a.slice_mut(crate::mem::RAM_BASE, crate::mem::RAM_SIZE).unwrap();
        for (i, x) in ram_a[off..end].iter_mut().enumerate() {
            *x = inside(i);
        }
        let (umax, vmax) = ((1u32 << wlog) - 1, (1u32 << hlog) - 1);
        for v in 0..=vmax.min(511) {
            for u in 0..=umax.min(511) {
                prop_assert_eq!(fetch_texel(&st, &a, 0, u, v), fetch_texel(&st, &b, 0, u, v), "texel ({}, {})", u, v);
            }
        }
    }
}
