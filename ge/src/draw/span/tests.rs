//! The span path against the quad path (the reference): random rectangles, pixel state,
//! texture state, memory and tile contents; both must leave identical tile bytes.

use super::*;
use crate::cmd::op;
use crate::geom::{ScreenVertex, SubPixel};
use crate::pixel::tests::{bytes, pixel_regs};
use crate::raster::ClipRect;
use crate::regs::Regs;
use crate::texture::SamplerRule;
use crate::tile::FbFormat;
use proptest::prelude::*;

const TEX_ADDR: u32 = 0x0880_0000;

#[derive(Debug, Clone)]
struct Case {
    kind: u8,
    hardware: bool,
    through: bool,
    corners: [(i32, i32, f32, f32); 2],
    colour: [u8; 4],
    secondary: [u8; 3],
    z: f32,
    fog: f32,
    clip: (i32, i32, i32, i32),
    band0: i32,
    /// (register, argument) pairs of the pixel state, applied in order.
    pixel_regs: Vec<(u8, u32)>,
    /// Texture registers, `None`: untextured.
    tex_regs: Option<Vec<(u8, u32)>>,
    sampler: u8,
    seed: u64,
}

fn tex_regs() -> impl Strategy<Value = Vec<(u8, u32)>> {
    tex_regs_sized(0u32..5, 0u32..5)
}

/// Texture registers with the level-0 width and height log2 from `wl` and `hl`.
fn tex_regs_sized(
    wl: impl Strategy<Value = u32>,
    hl: impl Strategy<Value = u32>,
) -> impl Strategy<Value = Vec<(u8, u32)>> {
    (
        0u32..12,
        wl,
        hl,
        prop_oneof![Just(0u32), Just(1), Just(2), Just(0x101), Just(0x100), Just(4), 0u32..0x1000],
        0u32..0x1_0000,
        0u32..0x100_0000,
        0u32..0x100_0000,
        prop_oneof![Just(0u32), 0u32..0x4_0000],
        prop::bool::weighted(0.9),
        0u32..0x100_0000,
    )
        .prop_map(|(fmt, wl, hl, filter, wrap, func, clutfmt, texmode, valid, level)| {
            let addr = if valid { TEX_ADDR } else { 0x0010_0000 };
            vec![
                (op::TEXFORMAT, fmt),
                (op::TEXSIZE0, (hl << 8) | wl),
                (op::TEXADDR0, addr & 0xFF_FFF0),
                (op::TEXBUFWIDTH0, ((addr >> 24) << 16) | (1 << wl).max(4)),
                (op::TEXFILTER, filter),
                (op::TEXWRAP, wrap),
                (op::TEXFUNC, func),
                (op::TEXENVCOLOR, func ^ 0x5A_A55A),
                (op::CLUTFORMAT, clutfmt),
                (op::TEXMODE, texmode),
                (op::TEXLEVEL, level),
            ]
        })
}

fn case() -> impl Strategy<Value = Case> {
    case_with(prop::option::weighted(0.6, tex_regs()))
}

/// Random cases with texture registers from `tex` (`None`: untextured).
fn case_with(tex: impl Strategy<Value = Option<Vec<(u8, u32)>>>) -> impl Strategy<Value = Case> {
    let corner = (-40i32..600, -40i32..400, -4.0f32..40.0, -4.0f32..40.0);
    let size = (-100i32..900, -100i32..600, -4.0f32..40.0, -4.0f32..40.0);
    let corners =
        (corner, size).prop_map(|((x, y, s, t), (w, h, ds, dt))| [(x, y, s, t), (x + w, y + h, s + ds, t + dt)]);
    (
        (0u8..3, any::<bool>(), any::<bool>(), corners),
        (any::<[u8; 4]>(), any::<[u8; 3]>(), 0.0f32..65535.0, -0.5f32..1.5),
        ((0i32..30, 0i32..10, 10i32..80, 10i32..48), prop_oneof![Just(0i32), Just(16)]),
        (pixel_regs(), tex, 0u8..4, any::<u64>()),
    )
        .prop_map(|((kind, hardware, through, corners), (colour, secondary, z, fog), (clip, band0), rest)| Case {
            kind,
            hardware,
            through,
            corners,
            colour,
            secondary,
            z,
            fog,
            clip,
            band0,
            pixel_regs: rest.0,
            tex_regs: rest.1,
            sampler: rest.2,
            seed: rest.3,
        })
}

fn vertex(c: &Case, i: usize) -> ScreenVertex {
    let (x, y, s, t) = c.corners[i];
    let scale = if c.through { 1.0 } else { 1.0 / 16.0 };
    ScreenVertex {
        x: SubPixel(x),
        y: SubPixel(y),
        z: c.z,
        w: 1.0 + i as f32,
        s: s * scale,
        t: t * scale,
        q: 1.0,
        color0: c.colour,
        color1: c.secondary,
        fog: c.fog,
        first: false,
    }
}

/// Draw the case both ways; `None` when the span path declines it.
fn both(c: &Case) -> Option<(Tile, Tile)> {
    let mut regs = Regs::default();
    regs.set(op::FRAMEBUFPIXFORMAT, (c.seed & 3) as u32);
    regs.set(op::MAXZ, 0xFFFF);
    for &(o, a) in &c.pixel_regs {
        regs.set(o, a);
    }
    let px = PixelState::decode(&regs, c.through);
    let clear = px.clear_mode();
    let mut mem = Memory::new();
    mem.write(TEX_ADDR, &bytes(c.seed ^ 0x9E37, 8192)).unwrap();
    let clut: [u8; 1024] = bytes(c.seed ^ 0x51, 1024).try_into().unwrap();
    let tex = c.tex_regs.as_ref().filter(|_| !clear).map(|tr| {
        for &(o, a) in tr {
            regs.set(o, a);
        }
        let rule = if c.hardware {
            SamplerRule::Hardware
        } else {
            [SamplerRule::Hardware, SamplerRule::HardwareTriangles, SamplerRule::PpssppJit, SamplerRule::PpssppCpp]
                [c.sampler as usize]
        };
        TextureState::decode(&regs, &clut, c.through).with_sampler(rule)
    });
    let v = [vertex(c, 0), vertex(c, 1)];
    let shape = match c.kind {
        0 => Shape::Rectangle(v),
        1 => Shape::Sprite(v),
        _ => Shape::ClearRect(v),
    };
    let (x0, y0, w, h) = c.clip;
    let clip = ClipRect { x0, y0, x1: x0 + w, y1: y0 + h };
    let fmt = FbFormat::from_bits((c.seed & 3) as u32);
    let mut setup = RasterSetup::new(clip, !c.through, tex.is_some()).with_band(c.band0, c.band0 + 31);
    setup.rectangle = if c.hardware { RectangleRule::Hardware } else { RectangleRule::Ppsspp };

    let mut plain = Tile::new(c.band0, 32, fmt, 64, 48);
    plain.color = bytes(c.seed ^ 0xC0, plain.color.len());
    plain.depth = bytes(c.seed ^ 0xD0, plain.depth.len());
    let mut fast = plain.clone();
    super::super::rasterize_shape(&shape, &setup, &mut |q: &Quad| {
        let colours = quad_colours(clear, tex.as_ref(), &mem, q);
        pixel::draw_quad_reference(&px, &mut plain, q, &colours);
    });
    rect_spans(&shape, &setup, tex.as_ref(), clear, &px, &mut fast, &mem).then_some((plain, fast))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 5000, ..ProptestConfig::default() })]
    #[test]
    fn spans_equal_quads(c in case()) {
        if let Some((plain, fast)) = both(&c) {
            prop_assert!(plain.color == fast.color, "colour differs");
            prop_assert!(plain.depth == fast.depth, "depth differs");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]
    /// One-texel levels (rows filled with one colour, `texture::uniform_span`), beside
    /// levels one texel wide or high only (which keep the per-pixel rows).
    #[test]
    fn one_texel_textures_fill_like_quads(
        c in case_with(prop::option::weighted(0.95, tex_regs_sized(prop_oneof![3 => Just(0u32), 1 => 1u32..4], prop_oneof![3 => Just(0u32), 1 => 1u32..4])))
    ) {
        if let Some((plain, fast)) = both(&c) {
            prop_assert!(plain.color == fast.color, "colour differs");
            prop_assert!(plain.depth == fast.depth, "depth differs");
        }
    }
}

/// The cases the span path exists for are taken (so the property above is not vacuous).
#[test]
fn spans_take_clears_fills_and_single_level_textures() {
    let base = Case {
        kind: 0,
        hardware: true,
        through: true,
        corners: [(16 * 3 + 5, 16 * 2, 0.0, 0.0), (16 * 50, 16 * 30, 8.0, 8.0)],
        colour: [10, 20, 30, 40],
        secondary: [0; 3],
        z: 100.0,
        fog: 1.0,
        clip: (0, 0, 63, 47),
        band0: 16,
        pixel_regs: vec![(op::CLEARMODE, 0x301)],
        tex_regs: None,
        sampler: 0,
        seed: 7,
    };
    let clear_pp = Case { kind: 2, hardware: false, ..base.clone() };
    let fill = Case { pixel_regs: vec![(op::DITHERENABLE, 1), (op::DITH0, 0x1234)], ..base.clone() };
    let textured = Case {
        pixel_regs: vec![],
        tex_regs: Some(vec![
            (op::TEXFORMAT, 5),
            (op::TEXSIZE0, 0x303),
            (op::TEXADDR0, TEX_ADDR & 0xFF_FFF0),
            (op::TEXBUFWIDTH0, 0x08_0010),
            (op::TEXFILTER, 0x101),
        ]),
        ..base.clone()
    };
    let sprite = Case { kind: 1, hardware: false, ..textured.clone() };
    let one_texel = |filter: u32, hardware: bool| Case {
        hardware,
        tex_regs: Some(vec![
            (op::TEXFORMAT, 5),
            (op::TEXSIZE0, 0),
            (op::TEXADDR0, TEX_ADDR & 0xFF_FFF0),
            (op::TEXBUFWIDTH0, 0x08_0010),
            (op::TEXFILTER, filter),
            (op::TEXFUNC, 1),
        ]),
        ..textured.clone()
    };
    let (near, linear) = (one_texel(0, true), one_texel(0x101, false));
    for c in [base, clear_pp, fill, textured, sprite, near, linear] {
        let (plain, fast) = both(&c).unwrap_or_else(|| panic!("declined {c:?}"));
        assert!(plain.color == fast.color && plain.depth == fast.depth, "{c:?}");
        assert!(plain.color != bytes(c.seed ^ 0xC0, plain.color.len()), "nothing drawn: {c:?}");
    }
    // Mipmaps keep the quad path.
    let mips = Case {
        tex_regs: Some(vec![
            (op::TEXADDR0, TEX_ADDR & 0xFF_FFF0),
            (op::TEXBUFWIDTH0, 0x08_0010),
            (op::TEXMODE, 0x1_0000),
            (op::TEXFILTER, 4),
        ]),
        ..walk_textured()
    };
    assert!(both(&walk_textured()).is_some());
    assert!(both(&mips).is_none());
}

/// A PPSSPP-rule textured rectangle (coordinates accumulated along the walk).
fn walk_textured() -> Case {
    Case {
        kind: 0,
        hardware: false,
        tex_regs: Some(vec![(op::TEXADDR0, TEX_ADDR & 0xFF_FFF0), (op::TEXBUFWIDTH0, 0x08_0010)]),
        pixel_regs: vec![],
        clip: (0, 0, 63, 47),
        corners: [(0, 0, 0.0, 0.0), (16 * 37 + 3, 16 * 21 + 9, 1.0, 1.0)],
        colour: [1; 4],
        secondary: [0; 3],
        z: 0.0,
        fog: 1.0,
        band0: 0,
        sampler: 0,
        seed: 1,
        through: true,
    }
}

/// [`texture::uniform_span`] answers for one-texel levels only (so the fill is taken in
/// the property tests above), and with the colour the per-pixel rows give.
#[test]
fn uniform_span_only_for_one_texel_levels() {
    let mut mem = Memory::new();
    mem.write(TEX_ADDR, &bytes(3, 8192)).unwrap();
    let clut: [u8; 1024] = bytes(4, 1024).try_into().unwrap();
    for (size, filter, uniform) in [(0x000, 0, true), (0x000, 0x101, true), (0x001, 0, false), (0x100, 0x101, false)] {
        let mut regs = Regs::default();
        for (o, a) in [
            (op::TEXFORMAT, 5),
            (op::TEXSIZE0, size),
            (op::TEXADDR0, TEX_ADDR & 0xFF_FFF0),
            (op::TEXBUFWIDTH0, 0x08_0010),
            (op::TEXFILTER, filter),
            (op::TEXFUNC, 0),
        ] {
            regs.set(o, a);
        }
        let st = TextureState::decode(&regs, &clut, true);
        let lod = texture::constant_lod(&st).unwrap();
        let (prim, sec) = ([200, 100, 50, 25], [1, 2, 3]);
        let got = texture::uniform_span(&st, &mem, lod, prim, sec);
        assert_eq!(got.is_some(), uniform, "size {size:#x} filter {filter:#x}");
        let coords: Vec<(f32, f32)> = (0..40).map(|i| (i as f32 * 0.37 - 3.0, 7.5 - i as f32 * 0.61)).collect();
        let mut rows = vec![[0u8; 4]; coords.len()];
        texture::shade_span(&st, &mem, lod, prim, sec, &coords, &mut rows);
        if let Some(c) = got {
            assert!(rows.iter().all(|&r| r == c), "size {size:#x} filter {filter:#x}");
        }
    }
}
