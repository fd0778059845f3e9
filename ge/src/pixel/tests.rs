//! Pipeline tests; every expected value is worked out by hand in the comments.

use super::*;
use crate::cmd::op;
use proptest::prelude::*;

fn regs(fmt: u32, list: &[(u8, u32)]) -> Regs {
    let mut r = Regs::default();
    r.set(op::FRAMEBUFPIXFORMAT, fmt);
    for &(o, v) in list {
        r.set(o, v);
    }
    r
}

fn tile(fmt: FbFormat, fill: u32, depth: u16) -> Tile {
    let mut t = Tile::new(0, 4, fmt, 8, 8);
    for y in 0..4 {
        for x in 0..8 {
            t.write_color(x, y, fill);
            t.write_depth(x, y, depth);
        }
    }
    t
}

/// Draw one fragment at (1, 1) and return (colour word, depth).
fn one(st: &PixelState, t: &mut Tile, z: u16, c: [u8; 4], fog: u8) -> (u32, u16) {
    draw_pixel(st, t, 1, 1, z, c, fog);
    (t.read_color(1, 1), t.read_depth(1, 1))
}

const F8888: u32 = 3;
const F4444: u32 = 2;
const F5551: u32 = 1;
const F565: u32 = 0;

#[test]
fn plain_write_and_565_quantisation() {
    // §15.4: (0x88,0xF0,0x1F) stores 0x1F91 in 565.
    let st = PixelState::decode(&regs(F565, &[]), true);
    let mut t = tile(FbFormat::Rgb565, 0, 0);
    assert_eq!(one(&st, &mut t, 0, [0x88, 0xF0, 0x1F, 0xFF], 255).0, 0x1F91);
}

#[test]
fn alpha_byte_untouched_without_stencil() {
    // [HW texfunc "COLOR=44……"]: fb alpha 0x44 survives an opaque draw.
    let st = PixelState::decode(&regs(F8888, &[]), true);
    let mut t = tile(FbFormat::Rgba8888, 0x44_000000, 0);
    assert_eq!(one(&st, &mut t, 0, [1, 2, 3, 0xFF], 255).0, 0x44_030201);
    // 4444 and 5551 keep their alpha bits too.
    let st = PixelState::decode(&regs(F4444, &[]), true);
    let mut t = tile(FbFormat::Rgba4444, 0x5000, 0);
    assert_eq!(one(&st, &mut t, 0, [0xFF, 0xFF, 0xFF, 0xFF], 255).0, 0x5FFF);
    let st = PixelState::decode(&regs(F5551, &[]), true);
    let mut t = tile(FbFormat::Rgba5551, 0x0000, 0);
    assert_eq!(one(&st, &mut t, 0, [0xFF, 0xFF, 0xFF, 0xFF], 255).0, 0x7FFF);
}

#[test]
fn stencil_replace_goes_to_alpha_byte() {
    // [HW commands/blend "COLOR=aa……"]: stencil on, ALWAYS, zpass REPLACE ref 0xAA.
    let r = regs(F8888, &[(op::STENCILTESTENABLE, 1), (op::STENCILTEST, 0xFF_AA_01), (op::STENCILOP, 2 << 16)]);
    let st = PixelState::decode(&r, true);
    let mut t = tile(FbFormat::Rgba8888, 0x00_000000, 0);
    assert_eq!(one(&st, &mut t, 0, [0x10, 0x20, 0x30, 0xEE], 255).0, 0xAA_302010);
}

#[test]
fn stencil_test_reference_on_the_left() {
    // LESS, ref 5: passes when 5 < stencil. sfail = INVERT, zpass = INCR.
    let r = regs(F8888, &[(op::STENCILTESTENABLE, 1), (op::STENCILTEST, 0xFF_05_04), (op::STENCILOP, (4 << 16) | 3)]);
    let st = PixelState::decode(&r, true);
    // stencil 6: pass → INCR → 7, colour written.
    let mut t = tile(FbFormat::Rgba8888, 0x06_000000, 0);
    assert_eq!(one(&st, &mut t, 0, [9, 9, 9, 0], 255).0, 0x07_090909);
    // stencil 4: fail → INVERT → 0xFB, colour untouched.
    let mut t = tile(FbFormat::Rgba8888, 0x04_111111, 0);
    assert_eq!(one(&st, &mut t, 0, [9, 9, 9, 0], 255).0, 0xFB_111111);
    // Masked: ref 0x35 & 0x0F = 5, stencil 0xF6 & 0x0F = 6 → pass; REPLACE writes the full ref.
    let r = regs(F8888, &[(op::STENCILTESTENABLE, 1), (op::STENCILTEST, 0x0F_35_04), (op::STENCILOP, 2 << 16)]);
    let st = PixelState::decode(&r, true);
    let mut t = tile(FbFormat::Rgba8888, 0xF6_000000, 0);
    assert_eq!(one(&st, &mut t, 0, [1, 1, 1, 0], 255).0, 0x35_010101);
}

#[test]
fn stencil_ops_per_format_through_pipeline() {
    // zpass INCR, ALWAYS.
    let incr = [(op::STENCILTESTENABLE, 1), (op::STENCILTEST, 0xFF_00_01), (op::STENCILOP, 4 << 16)];
    let decr = [(op::STENCILTESTENABLE, 1), (op::STENCILTEST, 0xFF_00_01), (op::STENCILOP, 5 << 16)];
    // 4444: nibble 7 → 8 / 6; colour 0 written.
    let mut t = tile(FbFormat::Rgba4444, 0x7FFF, 0);
    assert_eq!(one(&PixelState::decode(&regs(F4444, &incr), true), &mut t, 0, [0; 4], 255).0, 0x8000);
    let mut t = tile(FbFormat::Rgba4444, 0x7FFF, 0);
    assert_eq!(one(&PixelState::decode(&regs(F4444, &decr), true), &mut t, 0, [0; 4], 255).0, 0x6000);
    let mut t = tile(FbFormat::Rgba4444, 0xFFFF, 0);
    assert_eq!(one(&PixelState::decode(&regs(F4444, &incr), true), &mut t, 0, [0; 4], 255).0, 0xF000);
    // 5551: INCR sets the bit, DECR clears it.
    let mut t = tile(FbFormat::Rgba5551, 0x0000, 0);
    assert_eq!(one(&PixelState::decode(&regs(F5551, &incr), true), &mut t, 0, [0; 4], 255).0, 0x8000);
    let mut t = tile(FbFormat::Rgba5551, 0x8000, 0);
    assert_eq!(one(&PixelState::decode(&regs(F5551, &decr), true), &mut t, 0, [0; 4], 255).0, 0x0000);
    // 8888 saturates at 0xFF.
    let mut t = tile(FbFormat::Rgba8888, 0xFF_000000, 0);
    assert_eq!(one(&PixelState::decode(&regs(F8888, &incr), true), &mut t, 0, [0; 4], 255).0, 0xFF_000000);
    // Op 6 acts as KEEP.
    let keep = [(op::STENCILTESTENABLE, 1), (op::STENCILTEST, 0xFF_00_01), (op::STENCILOP, 6 << 16)];
    let mut t = tile(FbFormat::Rgba8888, 0x42_000000, 0);
    assert_eq!(one(&PixelState::decode(&regs(F8888, &keep), true), &mut t, 0, [1, 1, 1, 0], 255).0, 0x42_010101);
}

#[test]
fn zfail_op_and_depth_write_rules() {
    // Depth LESS (z < stored), ztest on, stencil ALWAYS with zfail ZERO, zpass REPLACE 0x80.
    let base = [
        (op::ZTESTENABLE, 1),
        (op::ZTEST, 4),
        (op::STENCILTESTENABLE, 1),
        (op::STENCILTEST, 0xFF_80_01),
        (op::STENCILOP, (2 << 16) | (1 << 8)),
    ];
    let st = PixelState::decode(&regs(F8888, &base), true);
    let mut t = tile(FbFormat::Rgba8888, 0x33_111111, 100);
    // z 200 fails: stencil → 0, colour and depth untouched.
    assert_eq!(one(&st, &mut t, 200, [5, 5, 5, 5], 255), (0x00_111111, 100));
    // z 50 passes: stencil 0x80, colour, depth written.
    assert_eq!(one(&st, &mut t, 50, [5, 5, 5, 5], 255), (0x80_050505, 50));

    // Depth test disabled: nothing is written to depth even with ZWRITEDISABLE clear.
    let st = PixelState::decode(&regs(F8888, &[(op::ZTEST, 4)]), true);
    let mut t = tile(FbFormat::Rgba8888, 0, 100);
    assert_eq!(one(&st, &mut t, 200, [5, 5, 5, 5], 255), (0x00_050505, 100));
    // ZWRITEDISABLE set: test applies but no write.
    let st = PixelState::decode(&regs(F8888, &[(op::ZTESTENABLE, 1), (op::ZTEST, 1), (op::ZWRITEDISABLE, 1)]), true);
    let mut t = tile(FbFormat::Rgba8888, 0, 100);
    assert_eq!(one(&st, &mut t, 200, [5, 5, 5, 5], 255), (0x00_050505, 100));
    // GEQUAL: z OP stored, 100 >= 100 passes and writes.
    let st = PixelState::decode(&regs(F8888, &[(op::ZTESTENABLE, 1), (op::ZTEST, 7)]), true);
    let mut t = tile(FbFormat::Rgba8888, 0, 100);
    assert_eq!(one(&st, &mut t, 100, [5, 5, 5, 5], 255).0, 0x00_050505);
    assert_eq!(one(&st, &mut t, 99, [6, 6, 6, 6], 255).0, 0x00_050505);
}

#[test]
fn depth_range_only_in_transform_mode() {
    let r = regs(F8888, &[(op::MINZ, 1000), (op::MAXZ, 2000)]);
    let mut t = tile(FbFormat::Rgba8888, 0, 0);
    assert_eq!(one(&PixelState::decode(&r, false), &mut t, 999, [7, 7, 7, 7], 255).0, 0);
    assert_eq!(one(&PixelState::decode(&r, false), &mut t, 2000, [7, 7, 7, 7], 255).0, 0x070707);
    let mut t = tile(FbFormat::Rgba8888, 0, 0);
    assert_eq!(one(&PixelState::decode(&r, true), &mut t, 999, [7, 7, 7, 7], 255).0, 0x070707);
}

#[test]
fn alpha_and_color_tests() {
    // Alpha GREATER ref 0x80, mask 0xF0: (a & 0xF0) > 0x80.
    let st = PixelState::decode(&regs(F8888, &[(op::ALPHATESTENABLE, 1), (op::ALPHATEST, 0xF0_80_06)]), true);
    let mut t = tile(FbFormat::Rgba8888, 0, 0);
    assert_eq!(one(&st, &mut t, 0, [1, 1, 1, 0x8F], 255).0, 0); // 0x80 > 0x80 false
    assert_eq!(one(&st, &mut t, 0, [1, 1, 1, 0x90], 255).0, 0x010101);
    // Colour test EQUAL ref 0x000010 mask 0x0000F0 (R high nibble must be 1).
    let r =
        regs(F8888, &[(op::COLORTESTENABLE, 1), (op::COLORTEST, 2), (op::COLORREF, 0x10), (op::COLORTESTMASK, 0xF0)]);
    let st = PixelState::decode(&r, true);
    let mut t = tile(FbFormat::Rgba8888, 0, 0);
    assert_eq!(one(&st, &mut t, 0, [0x2F, 9, 9, 9], 255).0, 0);
    assert_eq!(one(&st, &mut t, 0, [0x1F, 9, 9, 9], 255).0, 0x09091F);
}

#[test]
fn fog_formula() {
    // c·F + fog·(255−F) + 255 >> 8: R: 200·100 + 50·155 + 255 = 28005 → 109;
    // G: 0·100 + 60·155 + 255 = 9555 → 37; B: 255·100 + 70·155 + 255 = 36605 → 142.
    let r = regs(F8888, &[(op::FOGENABLE, 1), (op::FOGCOLOR, 0x463C32)]);
    let st = PixelState::decode(&r, false);
    let mut t = tile(FbFormat::Rgba8888, 0, 0);
    assert_eq!(one(&st, &mut t, 0, [200, 0, 255, 9], 100).0, 0x00_8E_25_6D);
    // F = 255 leaves the colour: (c·255 + 255) >> 8 = c.
    assert_eq!(one(&st, &mut t, 0, [200, 0, 255, 9], 255).0, 0x00_FF_00_C8);
    // No fog in through mode.
    let st = PixelState::decode(&r, true);
    assert_eq!(one(&st, &mut t, 0, [1, 2, 3, 9], 0).0, 0x00_03_02_01);
}

#[test]
fn blending_in_pipeline_and_565_dst_alpha() {
    // src α / 1 − src α, 4444 α = 0x88 white over black → 136 [HW vertices/colors.bmp].
    let r = regs(F8888, &[(op::ALPHABLENDENABLE, 1), (op::BLENDMODE, 0x32)]);
    let st = PixelState::decode(&r, true);
    let mut t = tile(FbFormat::Rgba8888, 0x00_000000, 0);
    assert_eq!(one(&st, &mut t, 0, [0xFF, 0xFF, 0xFF, 0x88], 255).0, 0x00_888888);
    // 565: A = FIX 0, B = 1 − dst α: dst α reads 0 so B = 255 and the dst is kept:
    // dst 0x1F91 → (0x8C,0xF3,0x18); term(c, 255) = c → stores 0x1F91 again.
    let r = regs(F565, &[(op::ALPHABLENDENABLE, 1), (op::BLENDMODE, 0x5A)]);
    let st = PixelState::decode(&r, true);
    let mut t = tile(FbFormat::Rgb565, 0x1F91, 0);
    assert_eq!(one(&st, &mut t, 0, [0xFF, 0xFF, 0xFF, 0xFF], 255).0, 0x1F91);
    // Same with B = dst α (0) → black.
    let r = regs(F565, &[(op::ALPHABLENDENABLE, 1), (op::BLENDMODE, 0x4A)]);
    let st = PixelState::decode(&r, true);
    let mut t = tile(FbFormat::Rgb565, 0x1F91, 0);
    assert_eq!(one(&st, &mut t, 0, [0xFF, 0xFF, 0xFF, 0xFF], 255).0, 0);
    // Equation 6 = no blending: the source is written.
    let r = regs(F8888, &[(op::ALPHABLENDENABLE, 1), (op::BLENDMODE, 0x632)]);
    let st = PixelState::decode(&r, true);
    assert!(st.blend.is_none());
}

#[test]
fn dither_offsets_8888() {
    // Rows: y0 = 0,1,2,3 ; y1 = 4,5,6,7 ; y2 = -8,-7,-6,-5 (8..B) ; y3 = -4,-3,-2,-1 (C..F).
    // Row 0 carries junk above bit 15, which is ignored.
    let r = regs(
        F8888,
        &[
            (op::DITHERENABLE, 1),
            (op::DITH0, 0xAB_3210),
            (op::DITH0 + 1, 0x7654),
            (op::DITH0 + 2, 0xBA98),
            (op::DITH0 + 3, 0xFEDC),
        ],
    );
    let st = PixelState::decode(&r, true);
    let mut t = tile(FbFormat::Rgba8888, 0x44_000000, 0);
    let expect = [[0, 1, 2, 3], [4, 5, 6, 7], [-8, -7, -6, -5], [-4, -3, -2, -1]];
    for y in 0..4 {
        for x in 4..8 {
            draw_pixel(&st, &mut t, x, y, 0, [0x80, 0x40, 0x20, 0xFF], 255);
            let d = expect[y as usize][(x & 3) as usize];
            let e = [(0x80 + d) as u8, (0x40 + d) as u8, (0x20 + d) as u8, 0x44];
            assert_eq!(t.read_color(x, y), u32::from_le_bytes(e), "({x},{y})");
        }
    }
    // Dither is added before the clamp: 3 − 8 → 0 and 0xFD + 7 → 0xFF.
    draw_pixel(&st, &mut t, 0, 2, 0, [3, 0xFD, 0x80, 0], 255);
    assert_eq!(t.read_color(0, 2), 0x44_78_F5_00);
    draw_pixel(&st, &mut t, 3, 1, 0, [3, 0xFD, 0x80, 0], 255);
    assert_eq!(t.read_color(3, 1), 0x44_87_FF_0A);
}

#[test]
fn dither_after_blend_before_clamp() {
    // Additive FIX 1 + FIX 1: 0xC0 + 0xC0 = 0x180, then −8 → 0x178 → clamps to 0xFF;
    // src 0x00 + dst 0x00 = 0 − 8 → 0.
    let r = regs(
        F8888,
        &[
            (op::ALPHABLENDENABLE, 1),
            (op::BLENDMODE, 0xAA),
            (op::BLENDFIXEDA, 0xFF_FFFF),
            (op::BLENDFIXEDB, 0xFF_FFFF),
            (op::DITHERENABLE, 1),
            (op::DITH0, 0x8888),
        ],
    );
    let st = PixelState::decode(&r, true);
    let mut t = tile(FbFormat::Rgba8888, 0x00_0000C0, 0);
    draw_pixel(&st, &mut t, 0, 0, 0, [0xC0, 0, 0x10, 0], 255);
    // B: 0x10 + 0 − 8 = 8.
    assert_eq!(t.read_color(0, 0), 0x00_08_00_FF);
}

#[test]
fn clear_mode_each_bit() {
    let c = [0x11, 0x22, 0x33, 0xAB];
    let fill = 0x55_666666;
    let run = |cm: u32, extra: &[(u8, u32)]| {
        let mut l = vec![(op::CLEARMODE, cm), (op::ZTESTENABLE, 0), (op::ZWRITEDISABLE, 1), (op::MAXZ, 0xFFFF)];
        l.extend_from_slice(extra);
        let st = PixelState::decode(&regs(F8888, &l), false);
        let mut t = tile(FbFormat::Rgba8888, fill, 7);
        one(&st, &mut t, 0x1234, c, 255)
    };
    assert_eq!(run(0x001, &[]), (fill, 7));
    assert_eq!(run(0x101, &[]), (0x55_332211, 7));
    assert_eq!(run(0x201, &[]), (0xAB_666666, 7));
    assert_eq!(run(0x301, &[]), (0xAB_332211, 7));
    // Depth written regardless of ZTEST / ZWRITEDISABLE.
    assert_eq!(run(0x401, &[]), (fill, 0x1234));
    // Tests and blending are ignored in clear mode.
    let off = [(op::ALPHATESTENABLE, 1), (op::ALPHATEST, 0), (op::ALPHABLENDENABLE, 1), (op::BLENDMODE, 0xAA)];
    assert_eq!(run(0x701, &off), (0xAB_332211, 0x1234));
    // Masks apply: MASKRGB protects R low nibble, MASKALPHA protects alpha top nibble.
    assert_eq!(run(0x301, &[(op::MASKRGB, 0x00000F), (op::MASKALPHA, 0xF0)]), (0x5B_332216, 7));
    // Depth-range test still applies (transform mode).
    assert_eq!(run(0x701, &[(op::MINZ, 0x2000), (op::MAXZ, 0xFFFF)]), (fill, 7));
    // Dither applies in clear mode; alpha/stencil is not dithered.
    assert_eq!(run(0x301, &[(op::DITHERENABLE, 1), (op::DITH0 + 1, 0x0070)]), (0xAB_3A2918, 7));
}

#[test]
fn clear_mode_16bit() {
    // 4444 stencil from vertex alpha 0xAB → nibble 0xA; colour only keeps the nibble.
    let st = PixelState::decode(&regs(F4444, &[(op::CLEARMODE, 0x201)]), true);
    let mut t = tile(FbFormat::Rgba4444, 0x5123, 0);
    assert_eq!(one(&st, &mut t, 0, [0xFF, 0xFF, 0xFF, 0xAB], 255).0, 0xA123);
    let st = PixelState::decode(&regs(F4444, &[(op::CLEARMODE, 0x101)]), true);
    let mut t = tile(FbFormat::Rgba4444, 0x5123, 0);
    assert_eq!(one(&st, &mut t, 0, [0xFF, 0xEE, 0xDD, 0xAB], 255).0, 0x5DEF);
    // 565 stencil-only clear writes nothing.
    let st = PixelState::decode(&regs(F565, &[(op::CLEARMODE, 0x201)]), true);
    let mut t = tile(FbFormat::Rgb565, 0x1234, 0);
    assert_eq!(one(&st, &mut t, 0, [0xFF, 0xFF, 0xFF, 0xFF], 255).0, 0x1234);
}

#[test]
fn write_masks() {
    // 8888 MASKRGB 0xFF00F0: protects B and the high nibble of R; alpha kept (no stencil).
    let st = PixelState::decode(&regs(F8888, &[(op::MASKRGB, 0xFF_00_F0)]), true);
    let mut t = tile(FbFormat::Rgba8888, 0x44_AB_CD_EF, 0);
    assert_eq!(one(&st, &mut t, 0, [0x12, 0x34, 0x56, 0x78], 255).0, 0x44_AB_34_E2);
    // 565: mask bits below the kept bits vanish: 0x070307 → no protection at all.
    let st = PixelState::decode(&regs(F565, &[(op::MASKRGB, 0x07_03_07)]), true);
    assert_eq!(st.write_mask, 0);
    // 565 mask 0x0000F8 protects all of R (bits 0–4).
    let st = PixelState::decode(&regs(F565, &[(op::MASKRGB, 0xF8)]), true);
    let mut t = tile(FbFormat::Rgb565, 0x001F, 0);
    assert_eq!(one(&st, &mut t, 0, [0, 0xFF, 0xFF, 0], 255).0, 0xFFFF);
    // Stencil write with MASKALPHA 0x0F on 8888: top nibble from REPLACE 0xA5, low kept.
    let r = regs(
        F8888,
        &[(op::STENCILTESTENABLE, 1), (op::STENCILTEST, 0xFF_A5_01), (op::STENCILOP, 2 << 16), (op::MASKALPHA, 0x0F)],
    );
    let st = PixelState::decode(&r, true);
    let mut t = tile(FbFormat::Rgba8888, 0x3C_000000, 0);
    assert_eq!(one(&st, &mut t, 0, [1, 2, 3, 4], 255).0, 0xAC_030201);
}

#[test]
fn logic_ops_rgb_only() {
    // XOR on 8888: RGB xor, alpha (no stencil test) kept.
    let st = PixelState::decode(&regs(F8888, &[(op::LOGICOPENABLE, 1), (op::LOGICOP, 6)]), true);
    let mut t = tile(FbFormat::Rgba8888, 0x44_F0F0F0, 0);
    assert_eq!(one(&st, &mut t, 0, [0xFF, 0x0F, 0x00, 0xFF], 255).0, 0x44_F0FF0F);
    // CLEAR with stencil REPLACE: RGB 0, alpha = stencil.
    let r = regs(
        F8888,
        &[
            (op::LOGICOPENABLE, 1),
            (op::LOGICOP, 0),
            (op::STENCILTESTENABLE, 1),
            (op::STENCILTEST, 0xFF_77_01),
            (op::STENCILOP, 2 << 16),
        ],
    );
    let mut t = tile(FbFormat::Rgba8888, 0x44_F0F0F0, 0);
    assert_eq!(one(&PixelState::decode(&r, true), &mut t, 0, [1, 2, 3, 4], 255).0, 0x77_000000);
    // SET on 5551 without stencil: RGB all ones, alpha bit kept (0).
    let st = PixelState::decode(&regs(F5551, &[(op::LOGICOPENABLE, 1), (op::LOGICOP, 15)]), true);
    let mut t = tile(FbFormat::Rgba5551, 0x0000, 0);
    assert_eq!(one(&st, &mut t, 0, [0; 4], 255).0, 0x7FFF);
    // Logic op after dithering: INVERTED ignores the source entirely.
    let st = PixelState::decode(&regs(F565, &[(op::LOGICOPENABLE, 1), (op::LOGICOP, 10)]), true);
    let mut t = tile(FbFormat::Rgb565, 0x1F91, 0);
    assert_eq!(one(&st, &mut t, 0, [0; 4], 255).0, 0xE06E);
}

#[test]
fn x86_jit_logic_quirks() {
    let jit = |r: &Regs| {
        let mut st = PixelState::decode(r, true);
        crate::ppsspp::rewrite_pixel(&mut st, r);
        st
    };
    // NAND: s = 0x0F0F0F, d = 0x00FFFF → !(s & d) = 0xFFF0F0 on the GE ...
    let nand = regs(F8888, &[(op::LOGICOPENABLE, 1), (op::LOGICOP, 14)]);
    let mut t = tile(FbFormat::Rgba8888, 0x44_00FFFF, 0);
    assert_eq!(one(&PixelState::decode(&nand, true), &mut t, 0, [0x0F, 0x0F, 0x0F, 0], 255).0, 0x44_FFF0F0);
    // ... and COPY_INVERTED through the x86 JIT: !s = 0xF0F0F0.
    let mut t = tile(FbFormat::Rgba8888, 0x44_00FFFF, 0);
    assert_eq!(one(&jit(&nand), &mut t, 0, [0x0F, 0x0F, 0x0F, 0], 255).0, 0x44_F0F0F0);
    // OR_INVERTED on 4444 without stencil or mask sets the alpha nibble: RGB !s | d.
    let st = jit(&regs(F4444, &[(op::LOGICOPENABLE, 1), (op::LOGICOP, 13)]));
    let mut t = tile(FbFormat::Rgba4444, 0x1000, 0);
    assert_eq!(one(&st, &mut t, 0, [0xFF, 0xFF, 0x00, 0], 255).0, 0xFF00);
    // ...but not on 8888, and not with a write mask.
    let st = jit(&regs(F8888, &[(op::LOGICOPENABLE, 1), (op::LOGICOP, 13)]));
    let mut t = tile(FbFormat::Rgba8888, 0x10_000000, 0);
    assert_eq!(one(&st, &mut t, 0, [0xFF, 0xFF, 0x00, 0], 255).0, 0x10_FF0000);
    let st = jit(&regs(F4444, &[(op::LOGICOPENABLE, 1), (op::LOGICOP, 13), (op::MASKRGB, 0x0F)]));
    let mut t = tile(FbFormat::Rgba4444, 0x1000, 0);
    assert_eq!(one(&st, &mut t, 0, [0xFF, 0xFF, 0x00, 0], 255).0, 0x1F00);
}

#[test]
fn ppsspp_stencil_compare_rewrite() {
    // GREATER with ref 0: 0 > s never holds, but PPSSPP rewrites it to NOTEQUAL.
    let r = regs(F8888, &[(op::STENCILTESTENABLE, 1), (op::STENCILTEST, 0xFF_00_06), (op::STENCILOP, 0)]);
    let st = PixelState::decode(&r, true);
    assert_eq!(st.stencil_func, Compare::NotEqual);
    let mut t = tile(FbFormat::Rgba8888, 0x03_000000, 0);
    assert_eq!(one(&st, &mut t, 0, [9, 9, 9, 9], 255).0, 0x03_090909);
}

#[test]
fn ppsspp_pointless_color_test_is_dropped() {
    // NOTEQUAL black, ADD with B = FIXB 0xFFFFFF: PPSSPP switches the colour test off, so a black
    // fragment still draws dst + dither: 0x10 + 7 = 0x17.
    let r = regs(
        F8888,
        &[
            (op::COLORTESTENABLE, 1),
            (op::COLORTEST, 3),
            (op::COLORTESTMASK, 0xFF_FFFF),
            (op::ALPHABLENDENABLE, 1),
            (op::BLENDMODE, 0xA2),
            (op::BLENDFIXEDB, 0xFF_FFFF),
            (op::DITHERENABLE, 1),
            (op::DITH0, 0x7),
        ],
    );
    // The GE runs the test: the black fragment is discarded.
    let st = PixelState::decode(&r, true);
    assert!(st.color_test.is_some());
    let mut t = tile(FbFormat::Rgba8888, 0x00_101010, 0);
    draw_pixel(&st, &mut t, 0, 0, 0, [0, 0, 0, 0xFF], 255);
    assert_eq!(t.read_color(0, 0), 0x00_101010);
    // PPSSPP drops it.
    let ppsspp = |r: &Regs| {
        let mut st = PixelState::decode(r, true);
        crate::ppsspp::rewrite_pixel(&mut st, r);
        st
    };
    let st = ppsspp(&r);
    assert!(st.color_test.is_none());
    let mut t = tile(FbFormat::Rgba8888, 0x00_101010, 0);
    draw_pixel(&st, &mut t, 0, 0, 0, [0, 0, 0, 0xFF], 255);
    assert_eq!(t.read_color(0, 0), 0x00_171717);
    // With depth writes on, PPSSPP keeps the test too.
    let mut r2 = r.clone();
    r2.set(op::ZTESTENABLE, 1);
    r2.set(op::ZTEST, 1);
    assert!(ppsspp(&r2).color_test.is_some());
}

#[test]
fn public_codecs() {
    assert_eq!(encode_color(FbFormat::Rgba4444, [0x12, 0x34, 0x56, 0x78]), 0x7531);
    assert_eq!(decode_color(FbFormat::Rgba5551, 0x8000), [0, 0, 0, 0xFF]);
    assert_eq!(decode_color(FbFormat::Rgb565, 0xFFFF), [0xFF; 4]);
}

/// Random pixel-state registers: (register, argument) pairs applied in order (shared by
/// the span and quad property tests).
pub(crate) fn pixel_regs() -> impl Strategy<Value = Vec<(u8, u32)>> {
    let ops = prop::sample::select(vec![
        op::CLEARMODE,
        op::ZTESTENABLE,
        op::ZTEST,
        op::ZWRITEDISABLE,
        op::ALPHATESTENABLE,
        op::ALPHATEST,
        op::STENCILTESTENABLE,
        op::STENCILTEST,
        op::STENCILOP,
        op::ALPHABLENDENABLE,
        op::BLENDMODE,
        op::BLENDFIXEDA,
        op::BLENDFIXEDB,
        op::COLORTESTENABLE,
        op::COLORTEST,
        op::COLORREF,
        op::COLORTESTMASK,
        op::LOGICOPENABLE,
        op::LOGICOP,
        op::FOGENABLE,
        op::FOGCOLOR,
        op::DITHERENABLE,
        op::DITH0,
        op::DITH0 + 1,
        op::DITH0 + 2,
        op::DITH0 + 3,
        op::MASKRGB,
        op::MASKALPHA,
        op::MINZ,
        op::MAXZ,
    ]);
    // Enables are drawn as 0/1 half the time so that states actually switch on.
    // Values the kernels specialise: 0x32 is BLENDMODE's source-alpha blend (A = 2, B = 3,
    // ADD); 0xFF_FF01 a STENCILTEST that always passes (ref 0xFF); 0x02_0000 and 0x01_0000
    // STENCILOPs writing REPLACE / ZERO on pass.
    let arg = prop_oneof![
        0u32..2,
        0u32..0x100_0000,
        Just(0u32),
        Just(0xFF_FFFFu32),
        Just(0x32u32),
        Just(0xFF_FF01u32),
        Just(0x02_0000u32),
        Just(0x01_0000u32),
    ];
    // One case in four starts from a transparent canvas's stencil (ALWAYS, REPLACE 0xFF on
    // pass, as the PopCap renderer draws), which the kernels and spans specialise.
    let canvas = vec![(op::STENCILTESTENABLE, 1), (op::STENCILTEST, 0xFF_FF01), (op::STENCILOP, 0x02_0000)];
    let start = prop_oneof![3 => Just(Vec::new()), 1 => Just(canvas)];
    (start, prop::collection::vec((ops, arg), 0..12)).prop_map(|(mut start, list)| {
        start.extend(list);
        start
    })
}

/// `n` pseudo-random bytes (xorshift) for tile contents in the property tests.
pub(crate) fn bytes(seed: u64, n: usize) -> Vec<u8> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}
