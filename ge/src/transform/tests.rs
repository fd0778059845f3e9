//! Hand-computed expectations for the vertex stage.

use super::*;
use crate::regs::{to_float24, IDENTITY_4X3, IDENTITY_4X4};

fn setf(r: &mut Regs, o: u8, f: f32) {
    r.set(o, to_float24(f));
}

/// The usual SDK viewport: 480x272 centred at 2048, OFFSET = (2048 − w/2, 2048 − h/2)·16.
fn sdk_regs() -> Regs {
    let mut r = Regs::default();
    setf(&mut r, op::VIEWPORTXSCALE, 240.0);
    setf(&mut r, op::VIEWPORTYSCALE, -136.0);
    setf(&mut r, op::VIEWPORTZSCALE, -32767.5);
    setf(&mut r, op::VIEWPORTXCENTER, 2048.0);
    setf(&mut r, op::VIEWPORTYCENTER, 2048.0);
    setf(&mut r, op::VIEWPORTZCENTER, 32767.5);
    r.set(op::OFFSETX, (2048 - 240) * 16);
    r.set(op::OFFSETY, (2048 - 136) * 16);
    setf(&mut r, op::TEXSCALEU, 1.0);
    setf(&mut r, op::TEXSCALEV, 1.0);
    r
}

fn identity() -> Matrices {
    Matrices { world: IDENTITY_4X3, view: IDENTITY_4X3, proj: IDENTITY_4X4, tgen: IDENTITY_4X3, ..Default::default() }
}

/// float position, float normal, float UV.
fn vt(extra: u32) -> VertexType {
    VertexType::from_bits((3 << 7) | (3 << 5) | 3 | extra)
}

fn vert(pos: [f32; 3]) -> Vertex {
    Vertex { pos, normal: [0.0, 0.0, 1.0], color: [10, 20, 30, 40], ..Default::default() }
}

#[test]
fn identity_pipeline_maps_to_sdk_screen() {
    let st = TransformState::decode(&sdk_regs(), &identity(), &vt(0), RsqrtRule::AmdRsqrtps);
    // Origin → screen centre (2048, 2048) → drawing (240, 136).
    let s = to_screen(&st, &transform_vertex(&st, &vert([0.0, 0.0, 0.0])));
    assert_eq!((s.x.0, s.y.0), (240 * 16, 136 * 16));
    assert_eq!(s.z, 32767.0); // 32767.5 truncated (PPSSPP)
                              // (1, 1) → (2288, 1912): 36608.375 − 28928 = 7680.375 → 7680; 30592.375 − 30592 → 0.
    let s = to_screen(&st, &transform_vertex(&st, &vert([1.0, 1.0, 0.0])));
    assert_eq!((s.x.0, s.y.0), (7680, 0));
    assert_eq!((s.x.pixel(), s.y.pixel()), (480, 0));
    assert_eq!(s.color0, [10, 20, 30, 40]);
    assert_eq!(s.fog, 1.0);
}

#[test]
fn snap_bias_puts_points_example_on_pixel_14() {
    // ge-reference §4.2: x_s = 1821.9966, OFFSETX = 1808·16: 29151.945 + 0.375 − 28928
    // = 224.32 → 224 → pixel 14 (a plain floor of x_s − 1808 gives 13).
    let mut r = sdk_regs();
    setf(&mut r, op::VIEWPORTXSCALE, 1.0);
    setf(&mut r, op::VIEWPORTXCENTER, 0.0);
    let st = TransformState::decode(&r, &identity(), &vt(0), RsqrtRule::AmdRsqrtps);
    let c = ClipVertex { clip: [1821.9966, 0.0, 0.0, 1.0], ..Default::default() };
    let s = to_screen(&st, &c);
    assert_eq!(s.x.0, 224);
    assert_eq!(s.x.pixel(), 14);
}

#[test]
fn skinning_two_bones_not_renormalised() {
    let mut m = identity();
    // Bone 0: identity rotation, translation (4, 0, 0). Bone 1: scale 4, translation (0, 8, 0).
    m.bones[..12].copy_from_slice(&[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 4.0, 0.0, 0.0]);
    m.bones[12..24].copy_from_slice(&[4.0, 0.0, 0.0, 0.0, 4.0, 0.0, 0.0, 0.0, 4.0, 0.0, 8.0, 0.0]);
    // Bone 2 would wreck the result if its weight were used (weight count is 2).
    m.bones[24..36].copy_from_slice(&[100.0; 12]);
    // Weights 0.5 + 0.25 = 0.75: S = diag(0.5 + 1) with translation (2, 2, 0).
    let vtype = vt((3 << 9) | (1 << 14));
    let st = TransformState::decode(&sdk_regs(), &m, &vtype, RsqrtRule::AmdRsqrtps);
    let mut v = vert([1.0, 2.0, 3.0]);
    v.weights = [0.5, 0.25, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0];
    let c = transform_vertex(&st, &v);
    assert_eq!(c.clip, [3.5, 5.0, 4.5, 1.0]);
    // Through mode never skins.
    let st = TransformState::decode(&sdk_regs(), &m, &vt((3 << 9) | (1 << 14) | (1 << 23)), RsqrtRule::AmdRsqrtps);
    let s = through_vertex(&st, &v);
    assert_eq!((s.x.0, s.y.0, s.z), (16, 32, 3.0));
}

fn lit_regs() -> Regs {
    let mut r = sdk_regs();
    r.set(op::LIGHTINGENABLE, 1);
    r.set(op::LIGHTENABLE0, 1);
    r.set(op::LIGHTTYPE0, 0); // directional, diffuse only
    setf(&mut r, op::LX0, 0.0);
    setf(&mut r, op::LX0 + 1, 0.0);
    setf(&mut r, op::LX0 + 2, 1.0);
    r.set(op::LAC0, 0); // light ambient off
    r.set(op::LAC0 + 1, 0x00_80_FF); // light diffuse (255, 128, 0)
    r.set(op::MATERIALDIFFUSE, 0x32_64_C8); // (200, 100, 50)
    r.set(op::MATERIALAMBIENT, 0x1E_14_0A); // (10, 20, 30)
    r.set(op::MATERIALALPHA, 255);
    r.set(op::AMBIENTCOLOR, 0x40_40_40);
    r.set(op::AMBIENTALPHA, 255);
    r.set(op::MATERIALEMISSIVE, 0x07_06_05);
    r
}

#[test]
fn directional_diffuse_with_ambient_and_emissive() {
    // E = (5,6,7,0); ambient = (2c+1)(2g+1) >> 10 with mac (21,41,61,511), base
    // (129,129,129,511) = (2,5,7,255); diffuse N·L = 1 → 512: (511·401)>>10 = 200,
    // (257·201)>>10 = 50, (1·101)>>10 = 0.
    let st = TransformState::decode(&lit_regs(), &identity(), &vt(0), RsqrtRule::AmdRsqrtps);
    let c = transform_vertex(&st, &vert([0.0; 3]));
    assert_eq!(c.color0, [207, 61, 14, 255]);
    assert_eq!(c.color1, [0; 3]);
    // L = (0, 3, 4)/5: N·L = 0.8 → ceil(512·0.8 + 1) = 411: (204911·411)>>19 = 160,
    // (51657·411)>>19 = 40.
    let mut r = lit_regs();
    setf(&mut r, op::LX0 + 1, 3.0);
    setf(&mut r, op::LX0 + 2, 4.0);
    let st = TransformState::decode(&r, &identity(), &vt(0), RsqrtRule::AmdRsqrtps);
    assert_eq!(transform_vertex(&st, &vert([0.0; 3])).color0, [167, 51, 14, 255]);
    // Facing away: no diffuse.
    let mut v = vert([0.0; 3]);
    v.normal = [0.0, 0.0, -1.0];
    let st = TransformState::decode(&lit_regs(), &identity(), &vt(0), RsqrtRule::AmdRsqrtps);
    assert_eq!(transform_vertex(&st, &v).color0, [7, 11, 14, 255]);
}

#[test]
fn material_update_only_with_vertex_colour() {
    let mut r = lit_regs();
    r.set(op::MATERIALUPDATE, 2); // diffuse from the vertex colour
    let mut v = vert([0.0; 3]);
    v.color = [100, 50, 250, 128];
    // With colour: mdc = (201,101,501,257): (511·201)>>10 = 100, (257·101)>>10 = 25, 0.
    let st = TransformState::decode(&r, &identity(), &vt(7 << 2), RsqrtRule::AmdRsqrtps);
    assert_eq!(transform_vertex(&st, &v).color0, [107, 36, 14, 255]);
    // Without a colour in the vertex format the material diffuse is used.
    let st = TransformState::decode(&r, &identity(), &vt(0), RsqrtRule::AmdRsqrtps);
    assert_eq!(transform_vertex(&st, &v).color0, [207, 61, 14, 255]);
    // Ambient from the vertex colour: (201·129)>>10 = 25, (101·129)>>10 = 12,
    // (501·129)>>10 = 63, (257·511)>>10 = 128; plus emissive and material diffuse.
    r.set(op::MATERIALUPDATE, 1);
    let st = TransformState::decode(&r, &identity(), &vt(7 << 2), RsqrtRule::AmdRsqrtps);
    assert_eq!(transform_vertex(&st, &v).color0, [230, 68, 70, 128]);
}

#[test]
fn specular_uses_approximate_half_vector_and_secondary_colour() {
    let mut r = sdk_regs();
    r.set(op::LIGHTINGENABLE, 1);
    r.set(op::LIGHTENABLE0, 1);
    r.set(op::LIGHTTYPE0, 1); // directional, diffuse + specular
    setf(&mut r, op::LX0 + 2, 1.0);
    r.set(op::LAC0 + 2, 0xFF_FF_FF);
    r.set(op::MATERIALSPECULAR, 0x00_00_FF);
    setf(&mut r, op::MATERIALSPECULARCOEF, 100.0);
    r.set(op::LIGHTMODE, 1);
    // H = (0,0,2)·rsqrt(4) with AMD's rsqrt(4) = 0.49993896 → N·H = 1 − 2⁻¹³;
    // ^100 = 0.98786; ceil(512·0.98786 + 1) = 507; (511·511·507)>>19 = 252.
    let st = TransformState::decode(&r, &identity(), &vt(0), RsqrtRule::AmdRsqrtps);
    let c = transform_vertex(&st, &vert([0.0; 3]));
    assert_eq!(c.color1, [252, 0, 0]);
    assert_eq!(c.color0, [0, 0, 0, 0]);
    r.set(op::LIGHTMODE, 0);
    let st = TransformState::decode(&r, &identity(), &vt(0), RsqrtRule::AmdRsqrtps);
    let c = transform_vertex(&st, &vert([0.0; 3]));
    assert_eq!((c.color0, c.color1), ([252, 0, 0, 0], [0; 3]));
}

#[test]
fn texgen_uv_scale_offset() {
    let mut r = sdk_regs();
    setf(&mut r, op::TEXSCALEU, 2.0);
    setf(&mut r, op::TEXOFFSETU, 0.5);
    setf(&mut r, op::TEXSCALEV, 0.5);
    setf(&mut r, op::TEXOFFSETV, -1.0);
    let mut v = vert([0.0; 3]);
    v.uv = [0.25, 0.5];
    let st = TransformState::decode(&r, &identity(), &vt(0), RsqrtRule::AmdRsqrtps);
    assert_eq!(transform_vertex(&st, &v).stq, [1.0, -0.75, 1.0]);
    // Mode 3 behaves as mode 0.
    r.set(op::TEXMAPMODE, 3);
    let st = TransformState::decode(&r, &identity(), &vt(0), RsqrtRule::AmdRsqrtps);
    assert_eq!(transform_vertex(&st, &v).stq, [1.0, -0.75, 1.0]);
}

#[test]
fn texgen_matrix_sources() {
    let mut r = sdk_regs();
    setf(&mut r, op::TEXSCALEU, 2.0); // must not apply in mode 1
    let mut m = identity();
    // s = 2x + 0.5, t = 3y + 0.25, q = z + 1.
    m.tgen = [2.0, 0.0, 0.0, 0.0, 3.0, 0.0, 0.0, 0.0, 1.0, 0.5, 0.25, 1.0];
    let mut v = vert([1.0, 2.0, 3.0]);
    v.uv = [0.25, 0.5];
    v.normal = [0.0, 0.0, 2.0];
    let expect = [
        (0, [2.5, 6.25, 4.0]),
        (1, [1.0, 1.75, 1.0]),
        // AMD rsqrt(4) = 0.49993896 → normal (0, 0, 1 − 2⁻¹³).
        (2, [0.5, 0.25, 2.0 - 1.0 / 8192.0]),
        (3, [0.5, 0.25, 3.0]),
    ];
    for (src, want) in expect {
        r.set(op::TEXMAPMODE, 1 | (src << 8));
        let st = TransformState::decode(&r, &m, &vt(0), RsqrtRule::AmdRsqrtps);
        assert_eq!(transform_vertex(&st, &v).stq, want, "source {src}");
    }
    // REVERSENORMAL negates the raw-normal source.
    r.set(op::REVERSENORMAL, 1);
    let st = TransformState::decode(&r, &m, &vt(0), RsqrtRule::AmdRsqrtps);
    assert_eq!(transform_vertex(&st, &v).stq, [0.5, 0.25, -1.0]);
}

#[test]
fn texgen_environment_map() {
    let mut r = sdk_regs();
    r.set(op::TEXMAPMODE, 2);
    r.set(op::TEXSHADELS, 1 << 8); // s from light 0, t from light 1
    setf(&mut r, op::LX0, 1.0); // light 0 along +x
    setf(&mut r, op::LX0 + 5, 2.0); // light 1 at (0, 0, 2)
    let st = TransformState::decode(&r, &identity(), &vt(0), RsqrtRule::AmdRsqrtps);
    // N = (0,0,1): s = (0 + 1)/2; t = ((1 − 2⁻¹³) + 1)/2 (approximate normalisation, AMD rsqrt).
    let c = transform_vertex(&st, &vert([0.0; 3]));
    assert_eq!(c.stq, [0.5, 1.0 - 1.0 / 16384.0, 1.0]);
}

#[test]
fn fog_factor() {
    let mut r = sdk_regs();
    r.set(op::FOGENABLE, 1);
    setf(&mut r, op::FOG1, 10.0); // end
    setf(&mut r, op::FOG2, 0.125); // 1/(end − start), start = 2
    let st = TransformState::decode(&r, &identity(), &vt(0), RsqrtRule::AmdRsqrtps);
    // View z = −4: (−4 + 10)·0.125 = 0.75.
    assert_eq!(transform_vertex(&st, &vert([0.0, 0.0, -4.0])).fog, 0.75);
    // Infinite end forces the factor: +inf with a positive slope → 1, negative → 0.
    r.set(op::FOG1, 0x7F8000);
    let st = TransformState::decode(&r, &identity(), &vt(0), RsqrtRule::AmdRsqrtps);
    assert_eq!(transform_vertex(&st, &vert([0.0, 0.0, -4.0])).fog, 1.0);
    setf(&mut r, op::FOG2, -0.125);
    let st = TransformState::decode(&r, &identity(), &vt(0), RsqrtRule::AmdRsqrtps);
    assert_eq!(transform_vertex(&st, &vert([0.0, 0.0, -4.0])).fog, 0.0);
    // Fog off → 1.
    r.set(op::FOGENABLE, 0);
    let st = TransformState::decode(&r, &identity(), &vt(0), RsqrtRule::AmdRsqrtps);
    assert_eq!(transform_vertex(&st, &vert([0.0, 0.0, -4.0])).fog, 1.0);
}

#[test]
fn through_vertex_truncates() {
    let st = TransformState::decode(&sdk_regs(), &identity(), &vt(1 << 23), RsqrtRule::AmdRsqrtps);
    let mut v = vert([10.5, -3.97, 70000.0]);
    v.uv = [12.0, 34.0];
    let s = through_vertex(&st, &v);
    // 168.0 → 168; −63.52 → −63 (toward zero); 70000 → u16 4464; no OFFSET applied.
    assert_eq!((s.x.0, s.y.0, s.z, s.w), (168, -63, 4464.0, 1.0));
    assert_eq!((s.s, s.t, s.fog, s.color1), (12.0, 34.0, 1.0, [0; 3]));
}

#[test]
fn world_view_projection_order() {
    // world: translate x by 1; view: scale x by 2; proj: w = 2 (x_c unchanged).
    let mut m = identity();
    m.world[9] = 1.0;
    m.view[0] = 2.0;
    m.proj[15] = 2.0;
    let st = TransformState::decode(&sdk_regs(), &m, &vt(0), RsqrtRule::AmdRsqrtps);
    assert_eq!(transform_vertex(&st, &vert([3.0, 0.0, 0.0])).clip, [8.0, 0.0, 0.0, 2.0]);
}

#[test]
fn point_light_attenuation_in_world_space() {
    // Point light at (0,0,2); the world matrix moves the model vertex (0,0,−1) to the
    // world origin, so d = 2 and att = 1/((0·1 + 0·2) + 0.5·4) = 0.5:
    // ceil(512·0.5·1 + 1) = 257; (204911·257)>>19 = 100, (51657·257)>>19 = 25.
    let mut r = lit_regs();
    r.set(op::LIGHTTYPE0, 1 << 8); // point, diffuse only
    setf(&mut r, op::LX0 + 2, 2.0);
    setf(&mut r, op::LKA0 + 2, 0.5);
    let mut m = identity();
    m.world[11] = 1.0;
    let st = TransformState::decode(&r, &m, &vt(0), RsqrtRule::AmdRsqrtps);
    let c = transform_vertex(&st, &vert([0.0, 0.0, -1.0]));
    assert_eq!(c.color0, [107, 36, 14, 255]);
    // The clip position goes through proj·view applied to the world position.
    assert_eq!(c.clip, [0.0, 0.0, 0.0, 1.0]);
}

/// triangle-triangle's three projected corners (the f32 viewport results, bit patterns)
/// with OFFSETX/Y = 28928/30592. The PSP's positions are the only ±1/16 px variation of
/// the corners under which pixel-centre coverage reproduces all of the screenshot's edge
/// pixels (checked over all 729); PPSSPP's `trunc(16·x + 0.375)` misses three of the six.
#[test]
fn hardware_snap_cuts_to_float24_and_rounds_up() {
    let corners = [
        ((0x4502_7298, 0x44FC_1D65), (4466, 1679), (4466, 1679)),
        ((0x44FE_FD1F, 0x4504_63E3), (3711, 3299), (3710, 3300)),
        ((0x44F7_380B, 0x44FE_FD2C), (2716, 2047), (2716, 2046)),
    ];
    for ((x, y), psp, ppsspp) in corners {
        let (x, y) = (f32::from_bits(x), f32::from_bits(y));
        let snap = |s: ScreenSnap| (s.snap(x, 28928), s.snap(y, 30592));
        assert_eq!(snap(ScreenSnap::Float24CutCeil), psp, "hardware for ({x}, {y})");
        assert_eq!(snap(ScreenSnap::Ppsspp), ppsspp, "PPSSPP for ({x}, {y})");
    }
    // Above 2048 px the cut is already on the 1/16 grid; below it a half step rounds up.
    assert_eq!(ScreenSnap::Float24CutCeil.snap(2048.0 + 15.9 / 16.0, 0), 2048 * 16 + 15);
    assert_eq!(ScreenSnap::Float24CutCeil.snap(2047.0 + 1.0 / 32.0, 0), 2047 * 16 + 1);
    assert_eq!(ScreenSnap::Float24CutCeil.snap(f32::NAN, 0), i32::MIN);
}
