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

fn clip_at(x: f32, y: f32) -> ClipVertex {
    ClipVertex { clip: [x, y, 0.0, 1.0], ..Default::default() }
}

/// [HW filtering/linear]: the sprite from x = −1 to −1 + 2/240 (y = 1 to 1 − 2/136) spans 33
/// steps of 1/16 px on the PSP where the float arithmetic (and PPSSPP) gives 32.
#[test]
fn hardware_rectangle_corner_rounds_up_after_the_float24_cut() {
    let st = TransformState::decode(&sdk_regs(), &identity(), &vt(0), RsqrtRule::Exact);
    let far = clip_at(-1.0 + 2.0 / 240.0, 1.0 - 2.0 / 136.0);
    assert_eq!(rectangle_corner(&st, &far), (SubPixel(33), SubPixel(33)));
    let pp = to_screen(&st, &far);
    assert_eq!((pp.x, pp.y), (SubPixel(32), SubPixel(32)));
    assert_eq!(rectangle_corner(&st, &clip_at(-1.0, 1.0)), (SubPixel(0), SubPixel(0)));
    assert_eq!(float24_trunc(-1.0 + 2.0 / 240.0).to_bits(), 0xBF7D_DD00);
}

/// [HW textures/size "transform"]: viewport 256×256 at 2048, corners at s16 ±32767/32768;
/// the top corner 127.996 px above the centre lands one step below the pixel edge.
#[test]
fn hardware_rectangle_corner_textures_size() {
    let mut r = sdk_regs();
    setf(&mut r, op::VIEWPORTXSCALE, 128.0);
    setf(&mut r, op::VIEWPORTYSCALE, -128.0);
    r.set(op::OFFSETX, (2048 - 128) * 16);
    r.set(op::OFFSETY, (2048 - 128) * 16);
    let st = TransformState::decode(&r, &identity(), &vt(0), RsqrtRule::Exact);
    let top_left = clip_at(-1.0, 32767.0 / 32768.0);
    let bottom_right = clip_at(32767.0 / 32768.0, -1.0);
    assert_eq!(rectangle_corner(&st, &top_left), (SubPixel(0), SubPixel(1)));
    assert_eq!(rectangle_corner(&st, &bottom_right), (SubPixel(4096), SubPixel(4096)));
}

fn from_bits<const N: usize>(b: [u32; N]) -> [f32; N] {
    b.map(f32::from_bits)
}

/// The PSP's corners in two screenshots, from the vertices and matrices as the GE received
/// them (SDK viewport, OFFSET 28928/30592): triangle-triangle's three corners (every edge
/// pixel follows them) and the six visible corners of rendertarget-rendertarget's cube
/// (its outline pixels allow exactly these). The f32 positions fit no single rounding:
/// triangle's third corner is 1 123.98/16 px left of the centre and lands at 1 124, the
/// cube's B is 1 127.06/16 px left and lands at 1 126.
#[test]
fn hardware_viewport_stages_cut_to_float24() {
    let mut regs = sdk_regs();
    regs.set(op::LIGHTINGENABLE, 0);
    let triangle = Matrices {
        world: from_bits([
            0x3F1F2100, 0x3F488800, 0, 0xBF488800, 0x3F1F2100, 0, 0, 0, 0x3F800000, 0x43700000, 0x43080000, 0,
        ]),
        view: IDENTITY_4X3,
        proj: from_bits([
            0x3B888800, 0, 0, 0, 0, 0xBBF0F000, 0, 0, 0, 0, 0xBF800000, 0, 0xBF800000, 0x3F800000, 0, 0x3F800000,
        ]),
        ..identity()
    };
    let cube = Matrices {
        world: from_bits([
            0x3EF29800, 0x3F601100, 0x3DC67200, 0xBF1FCD00, 0x3E832F00, 0x3F3CEF00, 0x3F1F0300, 0xBED20200, 0x3F2AF300,
            0, 0, 0,
        ]),
        view: from_bits([0x3F800000, 0, 0, 0, 0x3F800000, 0, 0, 0, 0x3F800000, 0, 0, 0xC0200000]),
        proj: from_bits([0x3F3BAA00, 0, 0, 0, 0, 0x3FA6D000, 0, 0, 0, 0, 0xBF802000, 0xBF800000, 0, 0, 0xBF801000, 0]),
        ..identity()
    };
    // (matrices, position, the PSP's corner, the same snap of the f32 product instead).
    type Corner<'a> = (&'a Matrices, [f32; 3], (i32, i32), (i32, i32));
    let corners: [Corner; 9] = [
        (&triangle, [0.0, -50.0, 0.0], (4466, 1679), (4466, 1679)),
        (&triangle, [50.0, 50.0, 0.0], (3711, 3299), (3711, 3299)),
        (&triangle, [-50.0, 50.0, 0.0], (2716, 2047), (2717, 2047)),
        (&cube, [-1.0, -1.0, 1.0], (4654, 3815), (4654, 3815)),
        (&cube, [-1.0, 1.0, 1.0], (2714, 4626), (2713, 4626)),
        (&cube, [1.0, 1.0, 1.0], (5168, 126), (5168, 126)),
        (&cube, [1.0, -1.0, 1.0], (5796, 1937), (5796, 1937)),
        (&cube, [1.0, 1.0, -1.0], (2910, 303), (2910, 303)),
        (&cube, [-1.0, 1.0, -1.0], (1925, 2410), (1925, 2410)),
    ];
    for (m, pos, psp, f32_product) in corners {
        let mut st = TransformState::decode(&regs, m, &vt(0), RsqrtRule::Exact);
        st.snap = ScreenSnap::Float24Stages;
        let c = transform_vertex(&st, &vert(pos));
        let s = to_screen(&st, &c);
        assert_eq!((s.x.0, s.y.0), psp, "hardware for {pos:?}");
        let unstaged = ClipVertex { xyw24: None, ..c };
        assert_eq!(hardware_xy(&st, &unstaged), f32_product, "f32 product for {pos:?}");
    }
    // Toward the centre on both sides: 15.5/16 and 16.5/16 of a 1/16 px step.
    let st = TransformState::decode(&sdk_regs(), &identity(), &vt(0), RsqrtRule::Exact);
    let at = |x: f32| hardware_xy(&st, &ClipVertex { xyw24: Some([x, 0.0, 1.0]), ..Default::default() }).0;
    let step = 1.0 / 16.0 / 240.0;
    assert_eq!(at(15.5 / 16.0 * step), 240 * 16);
    assert_eq!(at(-15.5 / 16.0 * step), 240 * 16);
    assert_eq!(at(17.0 / 16.0 * step), 240 * 16 + 1);
    assert_eq!(at(-17.0 / 16.0 * step), 240 * 16 - 1);
    assert_eq!(at(f32::NAN), i32::MIN);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(20000))]
    /// The four-lane viewport mapping and snap equal the scalar formulas bit for bit on any
    /// floats (NaN, infinities, subnormals included; NaN payloads aside) and offsets.
    #[test]
    fn viewport_lanes_equal_scalar(
        clip in proptest::prelude::any::<[u32; 4]>(),
        near in proptest::prelude::any::<[i16; 4]>(),
        view in proptest::prelude::any::<[u32; 6]>(),
        offset in proptest::prelude::any::<[u16; 2]>(),
    ) {
        let mut st = TransformState::decode(&sdk_regs(), &identity(), &vt(0), RsqrtRule::Exact);
        st.scale = [0, 1, 2].map(|i| f32::from_bits(view[i]));
        st.center = [3, 4, 5].map(|i| f32::from_bits(view[i]));
        st.offset = offset.map(i32::from);
        // Random bits, and ordinary values around the screen.
        for clip in [clip.map(f32::from_bits), near.map(|n| f32::from(n) / 64.0)] {
            let lanes = viewport_lanes(&st, clip);
            let plain = viewport_scalar(&st, clip);
            // Bit for bit, except a NaN's payload: Rust leaves the payload of an arithmetic
            // NaN unspecified (LLVM may commute `clip * scale`; two NaN inputs then give
            // either one's), and nothing downstream reads it: the snap (checked below) and
            // `cvtt_u16` map every NaN alike.
            for k in 0..3 {
                let (a, b) = (lanes[k], plain[k]);
                proptest::prop_assert!(a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()), "{a:?} {b:?}");
            }
            proptest::prop_assert_eq!(
                ppsspp_snap_lanes(lanes[0], lanes[1], st.offset),
                (ScreenSnap::ppsspp(plain[0], st.offset[0]), ScreenSnap::ppsspp(plain[1], st.offset[1]))
            );
        }
    }
}
