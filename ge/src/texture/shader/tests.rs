//! The specialised quad shaders against the reference [`super::super::shade_quad`]: random
//! texture registers, palettes, texture memory, sampler rules and quads; every covered
//! lane must get the same colour.

use super::super::{constant_lod, shade_quad, shade_span, SamplerRule, TextureState};
use super::QuadShader;
use crate::cmd::op;
use crate::geom::{Fragment, Quad};
use crate::mem::Memory;
use crate::pixel::tests::bytes;
use crate::regs::Regs;
use proptest::prelude::*;

const BASE: u32 = 0x0810_0000;

/// A texture coordinate: mostly inside a few repeats of the texture, sometimes at the
/// edges of the conversions (huge, negative, NaN).
fn coord() -> impl Strategy<Value = f32> {
    prop_oneof![
        8 => -2.0f32..3.0,
        2 => -600.0f32..600.0,
        1 => prop_oneof![Just(f32::NAN), Just(f32::INFINITY), Just(-1e12f32), Just(0.0f32), Just(-0.0f32)],
    ]
}

fn lane() -> impl Strategy<Value = (f32, f32, [u8; 4], u8, [u8; 3])> {
    (coord(), coord(), any::<[u8; 4]>(), prop_oneof![4 => Just(0u8), 1 => 0u8..16], any::<[u8; 3]>())
}

/// Texture registers: format, level sizes and buffer widths, swizzle, wrap, filter,
/// function, CLUT index transform, LOD mode; levels 1–7 inside the random texture memory
/// (now and then one in the scratchpad: invalid).
fn tex_regs() -> impl Strategy<Value = Vec<(u8, u32)>> {
    let level =
        (0u32..8, 0u32..10, 0u32..10, 1u32..0x800, 0u32..0x1_8000, prop_oneof![9 => Just(true), 1 => Just(false)]);
    (
        prop::collection::vec(level, 0..4),
        0u32..16,
        (0u32..10, 0u32..10),
        prop_oneof![Just(0u32), 1u32..0x800],
        prop_oneof![2 => Just(0u32), 1 => 0u32..0x8_0000, 1 => any::<u32>()],
        any::<u32>(),
        prop_oneof![3 => 0u32..0x200, 1 => any::<u32>()],
        any::<u32>(),
        any::<u32>(),
        any::<u32>(),
        prop_oneof![4 => Just(0u32), 1 => any::<u32>()],
    )
        .prop_map(|(levels, fmt, (wl, hl), bw, mode, wrap, filter, func, clut, env, level)| {
            let mut r = vec![
                (op::TEXFORMAT, fmt),
                (op::TEXADDR0, BASE & 0xFF_FFFF),
                (op::TEXBUFWIDTH0, ((BASE >> 8) & 0x0F_0000) | bw),
                (op::TEXSIZE0, (hl << 8) | wl),
                (op::TEXMODE, mode),
                (op::TEXWRAP, wrap),
                (op::TEXFILTER, filter),
                (op::TEXFUNC, func),
                (op::CLUTFORMAT, clut),
                (op::TEXENVCOLOR, env),
                (op::TEXLEVEL, level),
                (op::TEXLODSLOPE, level >> 8),
            ];
            // Levels 1–7 valid by default, so mipmapped draws blend real levels.
            for i in 1..8u8 {
                let addr = BASE + 0x2000 * i as u32;
                r.push((op::TEXADDR0 + i, addr & 0xFF_FFFF));
                r.push((op::TEXBUFWIDTH0 + i, ((addr >> 8) & 0x0F_0000) | 64));
                r.push((op::TEXSIZE0 + i, 0x505));
            }
            for (i, wl, hl, bw, off, valid) in levels {
                let addr = if valid { BASE + (off & !15) } else { 0x0001_0000 };
                r.push((op::TEXADDR0 + i as u8, addr & 0xFF_FFFF));
                r.push((op::TEXBUFWIDTH0 + i as u8, ((addr >> 8) & 0x0F_0000) | bw));
                r.push((op::TEXSIZE0 + i as u8, (hl << 8) | wl));
            }
            r
        })
}

fn rule(i: u8) -> SamplerRule {
    [SamplerRule::Hardware, SamplerRule::HardwareTriangles, SamplerRule::PpssppJit, SamplerRule::PpssppCpp]
        [i as usize & 3]
}

/// The texture state of registers `list` with sampler rule `sampler`, a random CLUT, and
/// random texture memory at [`BASE`], both from `seed`.
fn texture(list: &[(u8, u32)], through: bool, sampler: u8, seed: u64) -> (TextureState, Memory) {
    let mut regs = Regs::default();
    for &(o, v) in list {
        regs.set(o, v);
    }
    let clut: [u8; 1024] = bytes(seed ^ 0xC1, 1024).try_into().unwrap();
    let st = TextureState::decode(&regs, &clut, through).with_sampler(rule(sampler));
    let mut mem = Memory::new();
    mem.write(BASE, &bytes(seed, 0x2_0000)).unwrap();
    (st, mem)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 5000, ..ProptestConfig::default() })]
    #[test]
    fn shaders_equal_the_reference(
        list in tex_regs(),
        through in any::<bool>(),
        sampler in 0u8..4,
        quads in prop::collection::vec((any::<u8>(), [lane(), lane(), lane(), lane()], any::<f32>()), 1..5),
        seed in any::<u64>(),
    ) {
        let (st, mem) = texture(&list, through, sampler, seed);
        let sh = QuadShader::new(&st, &mem);
        for (mask, lanes, w) in &quads {
            // Through mode: coordinates in texels.
            let k = if through { 64.0 } else { 1.0 };
            let frags = std::array::from_fn(|i| {
                let (s, t, c0, ind, c1) = lanes[i];
                Fragment { x: (i & 1) as i32, y: (i >> 1) as i32, s: s * k, t: t * k, color0: c0,
                           color0_indefinite: ind, color1: c1, ..Default::default() }
            });
            let q = Quad::from_frags(frags, mask & 15, *w);
            let want = shade_quad(&st, &mem, &q, q.w);
            let got = sh.shade(&q);
            for i in 0..4 {
                if q.mask & (1 << i) != 0 {
                    prop_assert_eq!(got[i], want[i], "lane {} of {:?}, state {:?}", i, q, st);
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]
    /// Runs of fragments textured by [`shade_span`] (bilinear ones four at a time) get the
    /// colours [`shade_quad`] gives each fragment alone, for runs of every length mod 4.
    #[test]
    fn spans_equal_the_reference(
        list in tex_regs(),
        through in any::<bool>(),
        sampler in 0u8..4,
        run in prop::collection::vec((coord(), coord()), 0..11),
        prim in any::<[u8; 4]>(),
        secondary in any::<[u8; 3]>(),
        seed in any::<u64>(),
    ) {
        let (st, mem) = texture(&list, through, sampler, seed);
        let Some(lod) = constant_lod(&st) else { return Ok(()) };
        let k = if through { 64.0 } else { 1.0 };
        let coords: Vec<(f32, f32)> = run.iter().map(|&(s, t)| (s * k, t * k)).collect();
        let mut got = vec![[0u8; 4]; coords.len()];
        shade_span(&st, &mem, lod, prim, secondary, &coords, &mut got);
        for (i, &(s, t)) in coords.iter().enumerate() {
            let f = Fragment { s, t, color0: prim, color1: secondary, ..Default::default() };
            let q = Quad::from_frags([f; 4], 1, 1.0);
            prop_assert_eq!(got[i], shade_quad(&st, &mem, &q, q.w)[0], "fragment {} at {:?}, state {:?}", i, (s, t), st);
        }
    }
}

/// Every draw takes a specialised shader except a single-level one with an invalid address.
#[test]
fn which_draws_are_specialised() {
    let mem = Memory::new();
    let state = |filter: u32, mode: u32, addr: u32| {
        let mut r = Regs::default();
        for i in 1..8 {
            r.set(op::TEXADDR0 + i, (BASE & 0xFF_FFFF) + 0x1000 * i as u32);
            r.set(op::TEXBUFWIDTH0 + i, ((BASE >> 8) & 0x0F_0000) | 64);
        }
        r.set(op::TEXFORMAT, 5);
        r.set(op::TEXADDR0, addr & 0xFF_FFFF);
        r.set(op::TEXBUFWIDTH0, ((addr >> 8) & 0x0F_0000) | 64);
        r.set(op::TEXSIZE0, 0x606);
        r.set(op::TEXFILTER, filter);
        r.set(op::TEXMODE, mode);
        TextureState::decode(&r, &[0; 1024], false)
    };
    // Nearest and bilinear (both filters equal), one level.
    assert!(QuadShader::new(&state(0x000, 0, BASE), &mem).is_specialised());
    assert!(QuadShader::new(&state(0x101, 0, BASE), &mem).is_specialised());
    // Mipmap filters with max level 0 still have one level.
    assert!(QuadShader::new(&state(0x105, 0, BASE), &mem).is_specialised());
    // Magnify linear, minify nearest: the LOD decides per quad.
    assert!(QuadShader::new(&state(0x100, 0, BASE), &mem).is_specialised());
    // Mipmaps with max level 2.
    assert!(QuadShader::new(&state(0x104, 2 << 16, BASE), &mem).is_specialised());
    // Texture in the scratchpad (invalid), one level: the stage outputs 0, through the
    // reference.
    assert!(!QuadShader::new(&state(0x000, 0, 0x0001_0000), &mem).is_specialised());
    // Mipmaps with an invalid level: the mipmapped shader checks the level choice per quad.
    assert!(QuadShader::new(&state(0x104, 2 << 16, 0x0001_0000), &mem).is_specialised());
}
