//! Unit tests of the vertex reader. Every expectation is computed by hand from
//! ge-reference.md §2 (exact dyadic values: n/128, n/32768, bit replication).

// Expected values are written as their exact dyadic decimals on purpose.
#![allow(clippy::excessive_precision)]

use super::*;
use proptest::prelude::*;

// VTYPE field encodings (ge-reference §2.1).
const TC_U8: u32 = 1;
const TC_U16: u32 = 2;
const TC_F: u32 = 3;
const COL_565: u32 = 4 << 2;
const COL_5551: u32 = 5 << 2;
const COL_4444: u32 = 6 << 2;
const COL_8888: u32 = 7 << 2;
const NRM_S8: u32 = 1 << 5;
const NRM_S16: u32 = 2 << 5;
const NRM_F: u32 = 3 << 5;
const POS_S8: u32 = 1 << 7;
const POS_S16: u32 = 2 << 7;
const POS_F: u32 = 3 << 7;
const W_U8: u32 = 1 << 9;
const W_U16: u32 = 2 << 9;
const W_F: u32 = 3 << 9;
const IDX_U8: u32 = 1 << 11;
const IDX_U16: u32 = 2 << 11;
const IDX_U32: u32 = 3 << 11;
const THROUGH: u32 = 1 << 23;
const fn wc(n: u32) -> u32 {
    (n - 1) << 14
}
const fn mc(n: u32) -> u32 {
    (n - 1) << 18
}

const RAM: u32 = 0x0880_0000;
const MATERIAL: [u8; 4] = [10, 20, 30, 40];

fn params(w: &[f32]) -> DecodeParams {
    let mut morph_weights = [0.0; 8];
    morph_weights[..w.len()].copy_from_slice(w);
    DecodeParams { morph_weights, material: MATERIAL }
}

/// Little-endian byte builder.
#[derive(Default)]
struct B(Vec<u8>);
impl B {
    fn u8(mut self, v: &[u8]) -> Self {
        self.0.extend_from_slice(v);
        self
    }
    fn s8(self, v: &[i8]) -> Self {
        let b: Vec<u8> = v.iter().map(|&x| x as u8).collect();
        self.u8(&b)
    }
    fn u16(mut self, v: &[u16]) -> Self {
        v.iter().for_each(|x| self.0.extend_from_slice(&x.to_le_bytes()));
        self
    }
    fn s16(mut self, v: &[i16]) -> Self {
        v.iter().for_each(|x| self.0.extend_from_slice(&x.to_le_bytes()));
        self
    }
    fn f32(mut self, v: &[f32]) -> Self {
        v.iter().for_each(|x| self.0.extend_from_slice(&x.to_le_bytes()));
        self
    }
    fn pad(mut self, n: usize) -> Self {
        self.0.resize(self.0.len() + n, 0);
        self
    }
}

fn dec(vtype: u32, bytes: &[u8], w: &[f32]) -> Vertex {
    let l = VertexLayout::new(vtype);
    assert_eq!(bytes.len() as u32, l.stride, "test vertex bytes must be exactly one stride");
    decode_vertex(&l, bytes, &params(w), &mut Persist::default())
}

// ---------------------------------------------------------------- layout

#[test]
fn layout_matches_hardware_vertex_advances() {
    // [HW bounding/vertexaddr] (ge-reference §2.2 table).
    assert_eq!(VertexLayout::new(POS_F).stride, 12);
    assert_eq!(VertexLayout::new(POS_S16).stride, 6);
    assert_eq!(VertexLayout::new(POS_S8).stride, 3);
    let l = VertexLayout::new(TC_U8 | NRM_S8 | POS_S8);
    assert_eq!((l.texcoord_offset, l.normal_offset, l.position_offset, l.stride), (0, 2, 5, 8));
    let full = W_F | TC_F | COL_8888 | NRM_F | POS_F;
    let l = VertexLayout::new(full | wc(8));
    assert_eq!((l.texcoord_offset, l.color_offset, l.normal_offset, l.position_offset), (32, 40, 44, 56));
    assert_eq!(l.stride, 68);
    let l = VertexLayout::new(full | wc(1) | mc(8));
    assert_eq!((l.size, l.stride), (40, 320));
    assert_eq!(VertexLayout::new(full | wc(8) | mc(8)).stride, 544);
}

#[test]
fn layout_padding_and_alignment() {
    let l = VertexLayout::new(TC_U16 | POS_F);
    assert_eq!((l.texcoord_offset, l.position_offset, l.size, l.align), (0, 4, 16, 4));
    // u8 uv (2 bytes) then float position aligned to 4.
    let l = VertexLayout::new(TC_U8 | POS_F);
    assert_eq!((l.position_offset, l.size), (4, 16));
    // 3 u8 weights, s16 position at 4, size 10 (aligned to 2).
    let l = VertexLayout::new(W_U8 | wc(3) | POS_S16);
    assert_eq!((l.weight_offset, l.position_offset, l.size), (0, 4, 10));
    // 3 u16 weights (6) + u8 uv @6 + 4444 @8 + s8 normal @10 + s8 pos @13 = 16, aligned to 2.
    let l = VertexLayout::new(W_U16 | wc(3) | TC_U8 | COL_4444 | NRM_S8 | POS_S8);
    assert_eq!((l.texcoord_offset, l.color_offset, l.normal_offset, l.position_offset), (6, 8, 10, 13));
    assert_eq!((l.size, l.extent), (16, 16));
    // 5650 + s8 position: 2 + 3 = 5, padded to 6.
    let l = VertexLayout::new(COL_565 | POS_S8);
    assert_eq!((l.position_offset, l.size, l.extent), (2, 6, 5));
    // Position "none" counts as s8.
    let l = VertexLayout::new(TC_U8);
    assert_eq!((l.position_offset, l.size), (2, 5));
    assert_eq!(VertexLayout::new(0).stride, 3);
}

#[test]
fn layout_every_weight_count_and_morph_count() {
    for n in 1..=8 {
        // n u16 weights then an s8 position, padded to 2.
        let l = VertexLayout::new(W_U16 | wc(n) | POS_S8);
        assert_eq!(l.vtype.weight_count as u32, n);
        assert_eq!((l.position_offset, l.size), (2 * n, 2 * n + 4), "weight count {n}");
        let l = VertexLayout::new(W_F | wc(n) | POS_S8);
        assert_eq!(l.size, 4 * n + 4, "float weight count {n}");
    }
    for m in 1..=8 {
        let l = VertexLayout::new(POS_F | mc(m));
        assert_eq!((l.size, l.stride, l.extent), (12, 12 * m, 12 * m));
        let l = VertexLayout::new(COL_565 | POS_S8 | mc(m));
        assert_eq!((l.stride, l.extent), (6 * m, 6 * m - 1));
    }
    // Index format and through mode don't change the layout.
    for extra in [IDX_U8, IDX_U16, IDX_U32, THROUGH] {
        assert_eq!(VertexLayout::new(TC_U16 | POS_F | extra).stride, 16);
    }
}

#[test]
fn invalid_colour_formats_take_no_bytes_and_reset_the_offset() {
    for c in 1..=3u32 {
        // [PP align(size, 0) == 0] tc u16 at 0, then the position restarts at 0.
        let l = VertexLayout::new(TC_U16 | (c << 2) | POS_S16);
        assert_eq!(l.vtype.color, ColorFormat::Invalid(c as u8));
        assert_eq!((l.texcoord_offset, l.position_offset, l.size, l.extent), (0, 0, 6, 6));
        // Colour is the material's.
        let b = B::default().s16(&[100, -2, 7]);
        let v = decode_vertex(&l, &b.0, &params(&[]), &mut Persist::default());
        assert_eq!(v.color, MATERIAL);
        assert_eq!(v.pos, [100.0 / 32768.0, -2.0 / 32768.0, 7.0 / 32768.0]);
        // The uv reads the same bytes: u16 100 and u16 0xFFFE.
        assert_eq!(v.uv, [100.0 / 32768.0, 65534.0 / 32768.0]);
    }
}

proptest! {
    #[test]
    fn layout_offsets_aligned_disjoint_inside(vtype in 0u32..0x0100_0000) {
        let l = VertexLayout::new(vtype);
        let vt = l.vtype;
        prop_assert!(l.align.is_power_of_two());
        prop_assert_eq!(l.size % l.align, 0);
        prop_assert_eq!(l.stride, l.size * vt.morph_count as u32);
        prop_assert!(l.extent > l.stride - l.size);
        if matches!(vt.color, ColorFormat::Invalid(_)) {
            // The offset reset lets earlier attributes overlap (and outgrow) the position;
            // only the position is guaranteed inside the size.
            let pe = match vt.position { NumFormat::Short => 2, NumFormat::Float => 4, _ => 1 };
            prop_assert!(l.position_offset + 3 * pe <= l.size);
            return Ok(());
        }
        prop_assert!(l.extent <= l.stride);
        let e = |f: NumFormat| match f { NumFormat::None => 1, NumFormat::Byte => 1, NumFormat::Short => 2, NumFormat::Float => 4 };
        // (offset, len, alignment) of each present attribute.
        let mut r: Vec<(u32, u32, u32)> = Vec::new();
        if vt.has_weights() { r.push((l.weight_offset, e(vt.weight) * vt.weight_count as u32, e(vt.weight))); }
        if vt.has_texcoord() { r.push((l.texcoord_offset, 2 * e(vt.texcoord), e(vt.texcoord))); }
        match vt.color {
            ColorFormat::Rgba8888 => r.push((l.color_offset, 4, 4)),
            ColorFormat::None | ColorFormat::Invalid(_) => {}
            _ => r.push((l.color_offset, 2, 2)),
        }
        if vt.has_normal() { r.push((l.normal_offset, 3 * e(vt.normal), e(vt.normal))); }
        r.push((l.position_offset, 3 * e(vt.position), e(vt.position)));
        for &(o, n, a) in &r {
            prop_assert_eq!(o % a, 0);
            prop_assert!(o + n <= l.size);
            prop_assert!(a <= l.align);
        }
        // In order and disjoint.
        for p in r.windows(2) {
            prop_assert!(p[0].0 + p[0].1 <= p[1].0, "{:?}", r);
        }
    }
}

// ---------------------------------------------------------------- positions

#[test]
fn position_s8_transform_is_n_over_128() {
    let v = dec(POS_S8, &B::default().s8(&[-123, 110, 127]).0, &[]);
    assert_eq!(v.pos, [-0.9609375, 0.859375, 0.9921875]);
    let v = dec(POS_S8, &B::default().s8(&[-128, 0, 1]).0, &[]);
    assert_eq!(v.pos, [-1.0, 0.0, 0.0078125]);
}

#[test]
fn position_s8_through_is_zero() {
    let v = dec(POS_S8 | THROUGH, &B::default().s8(&[-123, 110, 127]).0, &[]);
    assert_eq!(v.pos, [0.0; 3]);
}

#[test]
fn position_s16_transform_is_n_over_32768() {
    let v = dec(POS_S16, &B::default().s16(&[-12345, 32767, -32768]).0, &[]);
    assert_eq!(v.pos, [-0.376739501953125, 0.999969482421875, -1.0]);
}

#[test]
fn position_s16_through_is_pixels_with_unsigned_z() {
    let v = dec(POS_S16 | THROUGH, &B::default().s16(&[-5, 300]).u16(&[0xFFFF]).0, &[]);
    assert_eq!(v.pos, [-5.0, 300.0, 65535.0]);
    let v = dec(POS_S16 | THROUGH, &B::default().s16(&[32767, -32768]).u16(&[0x8000]).0, &[]);
    assert_eq!(v.pos, [32767.0, -32768.0, 32768.0]);
}

#[test]
fn position_float_transform_and_nan_inf_cleaning() {
    let v = dec(POS_F, &B::default().f32(&[0.5, -3.25, 1e30]).0, &[]);
    assert_eq!(v.pos, [0.5, -3.25, 1e30]);
    // [PP clean_nan_inf_sse] NaN -> +FLT_MAX, +-Inf -> +-FLT_MAX.
    let v = dec(POS_F, &B::default().f32(&[f32::NAN, f32::INFINITY, f32::NEG_INFINITY]).0, &[]);
    assert_eq!(v.pos, [3.4028235e38, 3.4028235e38, -3.4028235e38]);
    let v = dec(POS_F, &B::default().f32(&[-f32::NAN, 1.0, 2.0]).0, &[]);
    assert_eq!(v.pos[0], 3.4028235e38);
    // With weights (skinning path) PPSSPP does not clean.
    let v = dec(W_U8 | POS_F, &B::default().u8(&[128]).pad(3).f32(&[f32::NAN, f32::INFINITY, 1.0]).0, &[]);
    assert!(v.pos[0].is_nan());
    assert_eq!(v.pos[1], f32::INFINITY);
}

#[test]
fn position_float_through_clamps_z_only() {
    let v = dec(POS_F | THROUGH, &B::default().f32(&[-10.5, 20.25, 70000.0]).0, &[]);
    assert_eq!(v.pos, [-10.5, 20.25, 65535.0]);
    let v = dec(POS_F | THROUGH, &B::default().f32(&[1e9, -1e9, -5.0]).0, &[]);
    assert_eq!(v.pos, [1e9, -1e9, 0.0]);
    let v = dec(POS_F | THROUGH, &B::default().f32(&[0.0, 0.0, 123.5]).0, &[]);
    assert_eq!(v.pos[2], 123.5);
}

#[test]
fn position_none_is_infinite() {
    let v = dec(TC_U8, &B::default().u8(&[0, 0, 1, 2, 3]).0, &[]);
    assert_eq!(v.pos, [f32::INFINITY; 3]);
}

// ---------------------------------------------------------------- texcoords

#[test]
fn texcoords_transform_mode() {
    let v = dec(TC_U8 | POS_S8, &B::default().u8(&[64, 255]).pad(3).0, &[]);
    assert_eq!(v.uv, [0.5, 1.9921875]);
    let v = dec(TC_U16 | POS_S16, &B::default().u16(&[32768, 65535]).pad(6).0, &[]);
    assert_eq!(v.uv, [1.0, 1.999969482421875]);
    let v = dec(TC_F | POS_F, &B::default().f32(&[0.25, -7.5]).pad(12).0, &[]);
    assert_eq!(v.uv, [0.25, -7.5]);
}

#[test]
fn texcoords_through_mode() {
    // u8 stays n/128 (in texels) [HW vertices/texcoords boxes 3-4].
    let v = dec(TC_U8 | POS_S16 | THROUGH, &B::default().u8(&[4, 255]).pad(6).0, &[]);
    assert_eq!(v.uv, [0.03125, 1.9921875]);
    // u16 and float are texels.
    let v = dec(TC_U16 | POS_S16 | THROUGH, &B::default().u16(&[300, 65535]).pad(6).0, &[]);
    assert_eq!(v.uv, [300.0, 65535.0]);
    let v = dec(TC_F | POS_F | THROUGH, &B::default().f32(&[0.25, 511.5]).pad(12).0, &[]);
    assert_eq!(v.uv, [0.25, 511.5]);
}

// ---------------------------------------------------------------- colours

#[test]
fn colours_expand_by_bit_replication() {
    let c = |vtype: u32, raw: u16| dec(vtype | POS_S16, &B::default().u16(&[raw]).pad(6).0, &[]).color;
    assert_eq!(c(COL_565, 0x001F), [255, 0, 0, 255]);
    // r=16 g=32 b=1: (128|4, 128|2, 8|0).
    assert_eq!(c(COL_565, 16 | 32 << 5 | 1 << 11), [132, 130, 8, 255]);
    // r=1 g=2 b=30 a=1 / a=0.
    assert_eq!(c(COL_5551, 1 | 2 << 5 | 30 << 10 | 1 << 15), [8, 16, 247, 255]);
    assert_eq!(c(COL_5551, 0x7FFF), [255, 255, 255, 0]);
    // 4444 nibble v -> v*17: alpha 8 -> 136 [HW vertices/colors].
    assert_eq!(c(COL_4444, 0x8F18), [136, 17, 255, 136]);
    let v = dec(COL_8888 | POS_S16, &B::default().u8(&[1, 2, 3, 4]).pad(8).0, &[]);
    assert_eq!(v.color, [1, 2, 3, 4]);
}

#[test]
fn missing_colour_is_material() {
    assert_eq!(dec(POS_S8, &[0, 0, 0], &[]).color, MATERIAL);
}

// ---------------------------------------------------------------- normals, weights

#[test]
fn normals_every_format() {
    let v = dec(NRM_S8 | POS_S8, &B::default().s8(&[-128, 64, 127]).pad(3).0, &[]);
    assert_eq!(v.normal, [-1.0, 0.5, 0.9921875]);
    let v = dec(NRM_S16 | POS_S16, &B::default().s16(&[-32768, 16384, 1]).pad(6).0, &[]);
    assert_eq!(v.normal, [-1.0, 0.5, 0.000030517578125]);
    let v = dec(NRM_F | POS_F, &B::default().f32(&[0.1, -2.5, 3.0]).pad(12).0, &[]);
    assert_eq!(v.normal, [0.1, -2.5, 3.0]);
}

#[test]
fn weights_every_format_and_count() {
    let v = dec(W_U8 | wc(3) | POS_S8, &B::default().u8(&[128, 64, 255]).pad(3).0, &[]);
    assert_eq!(v.weights, [1.0, 0.5, 1.9921875, 0.0, 0.0, 0.0, 0.0, 0.0]);
    let v = dec(W_U16 | wc(2) | POS_S16, &B::default().u16(&[32768, 65535]).pad(6).0, &[]);
    assert_eq!(&v.weights[..3], &[1.0, 1.999969482421875, 0.0]);
    let w8: Vec<f32> = (0..8).map(|i| i as f32 * 0.25).collect();
    let v = dec(W_F | wc(8) | POS_F, &B::default().f32(&w8).pad(12).0, &[]);
    assert_eq!(v.weights.to_vec(), w8);
}

// ---------------------------------------------------------------- morphing

fn rgba(c: [u8; 4]) -> B {
    B::default().u8(&c).pad(8) // 8888 colour + s16 position (8 bytes per target)
}

fn morph_colors(targets: &[[u8; 4]], w: &[f32]) -> [u8; 4] {
    let mut b = B::default();
    for &t in targets {
        b = b.u8(&rgba(t).0);
    }
    dec(COL_8888 | POS_S16 | mc(targets.len() as u32), &b.0, w).color
}

#[test]
fn morph_colours_sum_then_truncate_then_clamp() {
    const R: [u8; 4] = [255, 0, 0, 255];
    const G: [u8; 4] = [0, 255, 0, 255];
    const BL: [u8; 4] = [0, 0, 255, 255];
    const Y: [u8; 4] = [255, 255, 0, 255];
    // [HW vertices/morph boxes 1-5]
    assert_eq!(morph_colors(&[R, G], &[0.5, 0.5]), [127, 127, 0, 255]);
    assert_eq!(morph_colors(&[R, G], &[0.75, 0.25]), [191, 63, 0, 255]);
    // Summed before truncation: 63.75 + 63.75 = 127.5 -> 127 (per-term would give 126).
    assert_eq!(morph_colors(&[R, G, BL, Y], &[0.25; 4]), [127, 127, 63, 255]);
    assert_eq!(morph_colors(&[R, R, R, R], &[1.0, 0.25, 0.25, 0.25]), [255, 0, 0, 255]);
    // Negative sums clamp to 0.
    assert_eq!(morph_colors(&[R, G], &[-1.0, 0.5]), [0, 127, 0, 0]);
}

#[test]
fn morph_16bit_colours_scale_in_float() {
    let m = |vtype: u32, a: u16, b: u16, w: &[f32]| {
        dec(vtype | POS_S16 | mc(2), &B::default().u16(&[a]).pad(6).u16(&[b]).pad(6).0, w).color
    };
    // 5650 red 16 at weight 1: 16 * 255/31 = 131.6 -> 131 (replication would give 132).
    assert_eq!(m(COL_565, 16, 0, &[1.0, 0.0]), [131, 0, 0, 255]);
    // 4444 nibble 8 at 0.5 + 0.5: 68 + 68.
    assert_eq!(m(COL_4444, 0x8888, 0x8888, &[0.5, 0.5]), [136, 136, 136, 136]);
    // 5551 alpha 1 and 0 at 0.5 each: 127.5 -> 127.
    assert_eq!(m(COL_5551, 0x8000, 0x0000, &[0.5, 0.5]), [0, 0, 0, 127]);
}

#[test]
fn morph_positions_accumulate_before_scaling() {
    // s16: (16384*0.5 + -8192*1.5) / 32768 = -4096/32768 (weights sum to 2).
    let b = B::default().s16(&[16384, 0, 0, -8192, 0, 0]);
    let v = dec(POS_S16 | mc(2), &b.0, &[0.5, 1.5]);
    assert_eq!(v.pos, [-0.125, 0.0, 0.0]);
    // s8: (64*1 + 32*2)/128 = 1.0.
    let v = dec(POS_S8 | mc(2), &B::default().s8(&[64, 0, 0, 32, 0, -64]).0, &[1.0, 2.0]);
    assert_eq!(v.pos, [1.0, 0.0, -1.0]);
    // float, 8 targets x = 1..8 at 0.25 each: 36/4 = 9; no NaN cleaning when morphing.
    let mut b = B::default();
    for k in 1..=8 {
        b = b.f32(&[k as f32, -(k as f32), if k == 8 { f32::NAN } else { 0.0 }]);
    }
    let v = dec(POS_F | mc(8), &b.0, &[0.25; 8]);
    assert_eq!(&v.pos[..2], &[9.0, -9.0]);
    assert!(v.pos[2].is_nan());
}

#[test]
fn morph_texcoords_normals_and_weights() {
    // u8 uv: (128*0.5 + 64*0.5)/128 = 0.75; (0*0.5 + 255*0.5)/128 = 0.99609375.
    let b = B::default().u8(&[128, 0]).pad(3).u8(&[64, 255]).pad(3);
    let v = dec(TC_U8 | POS_S8 | mc(2), &b.0, &[0.5, 0.5]);
    assert_eq!(v.uv, [0.75, 0.99609375]);
    // u16 uv: (32768*0.25 + 16384*0.5)/32768 = 0.5.
    let b = B::default().u16(&[32768, 0]).pad(6).u16(&[16384, 0]).pad(6);
    assert_eq!(dec(TC_U16 | POS_S16 | mc(2), &b.0, &[0.25, 0.5]).uv, [0.5, 0.0]);
    // float uv.
    let b = B::default().f32(&[1.0, 2.0]).pad(12).f32(&[3.0, 4.0]).pad(12);
    assert_eq!(dec(TC_F | POS_F | mc(2), &b.0, &[0.5, 0.25]).uv, [1.25, 2.0]);
    // s8 normals: (64*0.5 + 64*0.25)/128 = 0.375.
    let b = B::default().s8(&[64, 0, -128]).pad(3).s8(&[64, 0, 0]).pad(3);
    assert_eq!(dec(NRM_S8 | POS_S8 | mc(2), &b.0, &[0.5, 0.25]).normal, [0.375, 0.0, -0.5]);
    // s16 normals: 16384*(1/32768) twice = 1.0 (PPSSPP's extra /32768 not copied).
    let b = B::default().s16(&[16384, 0, 0]).pad(6).s16(&[16384, 0, 0]).pad(6);
    assert_eq!(dec(NRM_S16 | POS_S16 | mc(2), &b.0, &[1.0, 1.0]).normal, [1.0, 0.0, 0.0]);
    // float normals.
    let b = B::default().f32(&[1.0, 0.0, 0.0]).pad(12).f32(&[0.0, 2.0, 0.0]).pad(12);
    assert_eq!(dec(NRM_F | POS_F | mc(2), &b.0, &[0.5, 0.5]).normal, [0.5, 1.0, 0.0]);
    // Weights come from the first target, unweighted.
    let b = B::default().u8(&[64]).pad(3).u8(&[128]).pad(3);
    assert_eq!(dec(W_U8 | wc(1) | POS_S8 | mc(2), &b.0, &[0.25, 0.25]).weights[0], 0.5);
}

#[test]
fn morph_count_one_ignores_weights() {
    // [HW vertices/morph box 0] MORPHWEIGHT0 = 0.5 still gives full colour and position.
    let b = B::default().u8(&[255, 0, 0, 255]).s16(&[16384, 0, 0]).pad(2);
    let v = dec(COL_8888 | POS_S16, &b.0, &[0.5]);
    assert_eq!(v.color, [255, 0, 0, 255]);
    assert_eq!(v.pos, [0.5, 0.0, 0.0]);
    let v = dec(POS_F, &B::default().f32(&[3.0, 0.0, 0.0]).0, &[0.0]);
    assert_eq!(v.pos[0], 3.0);
}

#[test]
fn through_mode_morph_blends_colour_but_not_position_or_uv() {
    // [PP SetVertexType: through-mode position/uv steps read the first target only]
    let b = B::default()
        .u16(&[100, 200])
        .u8(&[255, 0, 0, 255])
        .s16(&[10, 20, 30])
        .pad(2)
        .u16(&[300, 400])
        .u8(&[0, 255, 0, 255])
        .s16(&[50, 60, 70])
        .pad(2);
    let v = dec(TC_U16 | COL_8888 | POS_S16 | THROUGH | mc(2), &b.0, &[0.5, 0.5]);
    assert_eq!(v.uv, [100.0, 200.0]);
    assert_eq!(v.pos, [10.0, 20.0, 30.0]);
    assert_eq!(v.color, [127, 127, 0, 255]);
}

#[test]
fn short_byte_slices_read_as_zero() {
    let l = VertexLayout::new(TC_U16 | POS_F);
    let v = decode_vertex(&l, &[0x00, 0x80, 0x00], &params(&[]), &mut Persist::default());
    assert_eq!(v.uv, [1.0, 0.0]);
    assert_eq!(v.pos, [0.0; 3]);
}

// ---------------------------------------------------------------- draws, indices, memory

fn mem_with(at: u32, bytes: &[u8]) -> Memory {
    let mut m = Memory::new();
    m.write(at, bytes).unwrap();
    m
}

fn draw(mem: &Memory, vtype: u32, vaddr: u32, iaddr: u32, count: u32, persist: &mut Persist) -> DecodedDraw {
    decode_draw(mem, &VertexLayout::new(vtype), vaddr, iaddr, count, &params(&[]), persist).unwrap()
}

#[test]
fn non_indexed_draw_reads_consecutive_vertices_and_advances_vaddr() {
    let b = B::default().f32(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]);
    let mem = mem_with(RAM, &b.0);
    let d = draw(&mem, POS_F, RAM, 0x1234, 3, &mut Persist::default());
    let xs: Vec<f32> = d.vertices.iter().map(|v| v.pos[0]).collect();
    assert_eq!(xs, [1.0, 4.0, 7.0]);
    assert_eq!((d.vaddr, d.iaddr), (RAM + 36, 0x1234));
    // s8 vertices advance 3 bytes each.
    let d = draw(&mem, POS_S8, RAM, 0, 5, &mut Persist::default());
    assert_eq!(d.vaddr, RAM + 15);
    // Count 0: nothing, no advance.
    let d = draw(&mem, POS_F, RAM, 0, 0, &mut Persist::default());
    assert_eq!((d.vertices.len(), d.vaddr), (0, RAM));
}

#[test]
fn indexed_draws_every_index_size() {
    let mut mem = Memory::new();
    let vaddr = RAM;
    // vertex k at vaddr + 12k has x = k.
    for k in [0u32, 1, 2, 255, 0x1234, 70000] {
        mem.write(vaddr + 12 * k, &B::default().f32(&[k as f32, 0.0, 0.0]).0).unwrap();
    }
    let iaddr = RAM + 0x10_0000;
    // u8: 255 is vertex 255, not -1 [HW primitives/indices].
    mem.write(iaddr, &[255, 0, 2]).unwrap();
    let d = draw(&mem, POS_F | IDX_U8, vaddr, iaddr, 3, &mut Persist::default());
    assert_eq!(d.vertices.iter().map(|v| v.pos[0]).collect::<Vec<_>>(), [255.0, 0.0, 2.0]);
    assert_eq!((d.vaddr, d.iaddr), (vaddr, iaddr + 3));
    mem.write(iaddr, &B::default().u16(&[0x1234, 1]).0).unwrap();
    let d = draw(&mem, POS_F | IDX_U16, vaddr, iaddr, 2, &mut Persist::default());
    assert_eq!(d.vertices.iter().map(|v| v.pos[0]).collect::<Vec<_>>(), [4660.0, 1.0]);
    assert_eq!((d.vaddr, d.iaddr), (vaddr, iaddr + 4));
    mem.write(iaddr, &70000u32.to_le_bytes()).unwrap();
    let d = draw(&mem, POS_F | IDX_U32, vaddr, iaddr, 1, &mut Persist::default());
    assert_eq!(d.vertices[0].pos[0], 70000.0);
    assert_eq!((d.vaddr, d.iaddr), (vaddr, iaddr + 4));
    // read_index directly.
    mem.write(iaddr, &[0x34, 0x12, 0xFF, 0xFF, 0xFF, 0xFF]).unwrap();
    assert_eq!(read_index(&mem, IndexFormat::U8, iaddr, 1), Ok(0x12));
    assert_eq!(read_index(&mem, IndexFormat::U16, iaddr, 1), Ok(0xFFFF));
    assert_eq!(read_index(&mem, IndexFormat::U32, iaddr, 0), Ok(0xFFFF_1234));
    assert_eq!(read_index(&mem, IndexFormat::None, iaddr, 7), Ok(7));
}

#[test]
fn uv_and_normal_persist_across_draws() {
    let with = B::default().u16(&[32768, 16384]).s8(&[64, 0, 0]).pad(1).s16(&[0, 0, 0]);
    let mut mem = mem_with(RAM, &with.0);
    mem.write(RAM + 0x100, &B::default().s16(&[1, 2, 3]).0).unwrap();
    let mut p = Persist::default();
    let d = draw(&mem, TC_U16 | NRM_S8 | POS_S16, RAM, 0, 1, &mut p);
    assert_eq!((d.vertices[0].uv, d.vertices[0].normal), ([1.0, 0.5], [0.5, 0.0, 0.0]));
    assert_eq!(p, Persist { uv: [1.0, 0.5], normal: [0.5, 0.0, 0.0] });
    let d = draw(&mem, POS_S16, RAM + 0x100, 0, 2, &mut p);
    for v in &d.vertices {
        assert_eq!((v.uv, v.normal), ([1.0, 0.5], [0.5, 0.0, 0.0]));
    }
    // A draw without position is never read by PPSSPP: persist untouched.
    let none = B::default().u16(&[0, 0]).pad(3).pad(1);
    mem.write(RAM + 0x200, &none.0).unwrap();
    draw(&mem, TC_U16, RAM + 0x200, 0, 1, &mut p);
    assert_eq!(p.uv, [1.0, 0.5]);
}

#[test]
fn indexed_reuse_persists_the_highest_index() {
    let mut mem = Memory::new();
    for k in 0..3u16 {
        // 10-byte vertices: u16 uv @0, s16 position @4.
        mem.write(RAM + 10 * u32::from(k), &B::default().u16(&[k * 100, 0]).s16(&[0, 0, 0]).0).unwrap();
    }
    let iaddr = RAM + 0x1000;
    // 4 indices over 3 vertices: PPSSPP's cached path reads 0..=2 in order, last = vertex 2.
    mem.write(iaddr, &[2, 0, 2, 1]).unwrap();
    let mut p = Persist::default();
    draw(&mem, TC_U16 | POS_S16 | THROUGH | IDX_U8, RAM, iaddr, 4, &mut p);
    assert_eq!(p.uv, [200.0, 0.0]);
    // No reuse: the last vertex in draw order.
    draw(&mem, TC_U16 | POS_S16 | THROUGH | IDX_U8, RAM, iaddr + 1, 3, &mut p);
    assert_eq!(p.uv, [100.0, 0.0]);
}

#[test]
fn misaligned_vertex_start_gives_a_zero_filled_draw() {
    let b = B::default().pad(2).u16(&[0x001F]).pad(2).f32(&[1.0, 2.0, 3.0]);
    let mem = mem_with(RAM, &b.0);
    let mut p = Persist { uv: [5.0, 6.0], normal: [1.0, 1.0, 1.0] };
    let d = draw(&mem, COL_565 | NRM_S8 | POS_F, RAM + 2, 0, 2, &mut p);
    for v in &d.vertices {
        assert_eq!((v.pos, v.color, v.normal, v.uv), ([0.0; 3], [0; 4], [0.0; 3], [5.0, 6.0]));
    }
    assert_eq!(p.normal, [0.0; 3]);
    assert_eq!(d.vaddr, RAM + 2 + 2 * 20);
    // Colourless: material.
    let d = draw(&mem, POS_S16, RAM + 1, 0, 1, &mut p);
    assert_eq!(d.vertices[0].color, MATERIAL);
    // s8-only vertices have alignment 1: never misaligned.
    let d = draw(&mem, POS_S8, RAM + 1, 0, 1, &mut p);
    assert_eq!(d.vertices[0].pos, [0.0, 31.0 / 128.0, 0.0]);
}

#[test]
fn memory_errors_instead_of_panics() {
    let mem = Memory::new();
    let l = VertexLayout::new(POS_F);
    let p = params(&[]);
    let mut ps = Persist::default();
    assert_eq!(decode_draw(&mem, &l, 0, 0, 1, &p, &mut ps), Err(MemError { addr: 0, len: 12 }));
    // Starts valid, runs past the end of RAM.
    let end = 0x0A00_0000 - 8;
    assert_eq!(decode_draw(&mem, &l, end, 0, 1, &p, &mut ps), Err(MemError { addr: end, len: 12 }));
    // Second vertex out of RAM.
    let end = 0x0A00_0000 - 12;
    assert!(decode_draw(&mem, &l, end, 0, 1, &p, &mut ps).is_ok());
    assert_eq!(decode_draw(&mem, &l, end, 0, 2, &p, &mut ps), Err(MemError { addr: 0x0A00_0000, len: 12 }));
    // Unmapped index buffer, and an index that points outside memory.
    let li = VertexLayout::new(POS_F | IDX_U16);
    assert!(decode_draw(&mem, &li, RAM, 0x10, 1, &p, &mut ps).is_err());
    let mut mem2 = Memory::new();
    mem2.write(RAM, &0xFFFFu16.to_le_bytes()).unwrap();
    let d = decode_draw(&mem2, &li, 0x09FF_0000, RAM, 1, &p, &mut ps);
    assert_eq!(d, Err(MemError { addr: 0x09FF_0000 + 0xFFFF * 12, len: 12 }));
}

#[test]
fn vertex_crossing_vram_end_reads_the_mirror() {
    let mut mem = Memory::new();
    let at = 0x041F_FFF8;
    mem.write(at, &B::default().f32(&[1.5, 2.5]).0).unwrap();
    mem.write(0x0400_0000, &B::default().f32(&[3.5]).0).unwrap();
    let d = draw(&mem, POS_F, at, 0, 1, &mut Persist::default());
    assert_eq!(d.vertices[0].pos, [1.5, 2.5, 3.5]);
}

// ---------------------------------------------------------------- text output

#[test]
fn display_is_one_line() {
    assert_eq!(
        VertexLayout::new(TC_U16 | POS_F).to_string(),
        "tc=u16@0 col=none nrm=none pos=float@4 w=none idx=none morph=1 through=0 size=16 stride=16"
    );
    assert_eq!(
        VertexLayout::new(W_U8 | wc(2) | TC_U8 | COL_4444 | NRM_S16 | POS_S16 | IDX_U32 | mc(3) | THROUGH).to_string(),
        "tc=u8@2 col=4444@4 nrm=s16@6 pos=s16@12 w=u8x2@0 idx=u32 morph=3 through=1 size=18 stride=54"
    );
    assert!(VertexLayout::new(2 << 2).to_string().contains("col=invalid2 nrm=none pos=none@0"));
}

#[test]
fn exact_format_prints_present_attributes_with_bits() {
    let l = VertexLayout::new(TC_U8 | COL_5551 | POS_F);
    let v = Vertex { pos: [0.5, -1.0, 1e-7], uv: [0.25, 2.0], color: [255, 0, 8, 255], ..Vertex::default() };
    assert_eq!(
        format_vertex_exact(&v, &l),
        "uv=(0.25 [0x3e800000], 2.0 [0x40000000]) col=(255, 0, 8, 255) [0xff0800ff] \
         pos=(0.5 [0x3f000000], -1.0 [0xbf800000], 1e-7 [0x33d6bf95])"
    );
    let l = VertexLayout::new(W_F | wc(1) | NRM_S8 | POS_S8);
    let v = Vertex { normal: [1.0, 0.0, -0.0], weights: [0.75; 8], ..Vertex::default() };
    assert_eq!(
        format_vertex_exact(&v, &l),
        "w=(0.75 [0x3f400000]) nrm=(1.0 [0x3f800000], 0.0 [0x00000000], -0.0 [0x80000000]) \
         pos=(0.0 [0x00000000], 0.0 [0x00000000], 0.0 [0x00000000])"
    );
}

// ---------------------------------------------------------------- per-draw reader

/// Every field's bits (NaN payloads included), for exact comparison.
fn vertex_bits(v: &Vertex) -> Vec<u32> {
    let f = v.pos.iter().chain(&v.normal).chain(&v.uv).chain(&v.weights).map(|x| x.to_bits());
    f.chain([u32::from_le_bytes(v.color)]).collect()
}

fn persist_bits(p: &Persist) -> Vec<u32> {
    p.uv.iter().chain(&p.normal).map(|x| x.to_bits()).collect()
}

/// Float patterns that reach the decoders' special cases: NaN, ±Inf, ±0, the z clamp.
fn float_bytes() -> impl Strategy<Value = Vec<u8>> {
    let special = prop::sample::select(vec![
        f32::NAN.to_bits(),
        0xFFC0_0001,
        f32::INFINITY.to_bits(),
        f32::NEG_INFINITY.to_bits(),
        0x8000_0000,
        65536.0f32.to_bits(),
        (-1.5f32).to_bits(),
    ]);
    let word = prop_oneof![any::<u32>(), special];
    prop::collection::vec(word, 0..160).prop_map(|w| w.iter().flat_map(|x| x.to_le_bytes()).collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]
    /// The per-draw reader gives the plain decoder's vertex bit for bit, for every VTYPE
    /// with morph count 1, on random bytes (too short ones included) and persisted values.
    #[test]
    fn reader_equals_plain_decoder(
        vtype in 0u32..0x0100_0000,
        bytes in float_bytes(),
        uv in any::<[u32; 2]>(),
        normal in any::<[u32; 3]>(),
        material in any::<[u8; 4]>(),
    ) {
        let vtype = vtype & !(7 << 18);
        let l = VertexLayout::new(vtype);
        let persist = Persist { uv: uv.map(f32::from_bits), normal: normal.map(f32::from_bits) };
        let p = DecodeParams { morph_weights: [0.5; 8], material };
        let reader = reader::Reader::new(&l, &p, &persist).expect("morph count 1");
        let mut plain_persist = persist;
        let plain = decode_vertex(&l, &bytes, &p, &mut plain_persist);
        prop_assert_eq!(vertex_bits(&reader.read(&bytes)), vertex_bits(&plain));
    }

    /// A whole draw decoded through [`decode_whole`] equals the plain loop: vertices,
    /// pointers and persisted values, for every index format, reused indices, vertex
    /// ranges that leave memory, and morphed or misaligned draws (which keep the loop).
    #[test]
    fn whole_draw_equals_plain_loop(
        vtype in 0u32..0x0100_0000,
        morph in 0u32..3,
        data in float_bytes(),
        index_bytes in prop::collection::vec(0u8..12, 0..64),
        count in 0u32..24,
        vaddr in prop::sample::select(vec![RAM, RAM + 1, RAM + 2, RAM + 0x40, 0x0A00_0000 - 64, 0x0A00_0000 - 8]),
        iaddr in prop::sample::select(vec![RAM + 0x1000, 0x0A00_0000 - 6, 0x0A00_0000 - 1]),
        uv in any::<[u32; 2]>(),
    ) {
        // Morph counts 1 (mostly) and 2.
        let vtype = (vtype & !(7 << 18)) | if morph == 2 { mc(2) } else { 0 };
        let l = VertexLayout::new(vtype);
        let mut mem = Memory::new();
        let mut at = vaddr;
        for chunk in data.chunks(4) {
            let _ = mem.write(at, chunk);
            at += 4;
        }
        let _ = mem.write(iaddr, &index_bytes);
        let p = DecodeParams { morph_weights: [0.25, 0.75, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], material: MATERIAL };
        let start = Persist { uv: uv.map(f32::from_bits), normal: [1.0, -0.0, f32::NAN] };
        let (mut pw, mut pp) = (start, start);
        let w = decode_draw_with(&mem, &l, vaddr, iaddr, count, &p, &mut pw, true);
        let plain = decode_draw_with(&mem, &l, vaddr, iaddr, count, &p, &mut pp, false);
        prop_assert_eq!(w.is_ok(), plain.is_ok());
        prop_assert_eq!(persist_bits(&pw), persist_bits(&pp));
        if let (Ok(w), Ok(plain)) = (w, plain) {
            prop_assert_eq!((w.vaddr, w.iaddr), (plain.vaddr, plain.iaddr));
            let bits = |d: &DecodedDraw| d.vertices.iter().map(vertex_bits).collect::<Vec<_>>();
            prop_assert_eq!(bits(&w), bits(&plain));
        }
    }
}
