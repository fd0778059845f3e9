//! Scene-builder tests on hand-built models: the emitted GE commands are checked against
//! values derived from the model (not from our own output), and renders against simple
//! geometric facts.

use super::*;
use crate::pmo::{Header, Joint, TextureInfo, FLAG_UNIFORM_DIFFUSE, NO_JOINT};
use ge::cmd::split;
use ge::regs::to_float24;

const TRIANGLES: u32 = 3 << 28;
const STRIP: u32 = 4 << 28;
/// u16 texcoords + float positions (stride 16: uv at 0, position at 4).
const VT_UV16_F32: u32 = 2 | (3 << 7);
/// u8 weights ×2, float positions (stride 16: weights at 0, position at 4).
const VT_W8X2_F32: u32 = (1 << 9) | (1 << 14) | (3 << 7);

fn uv_vertex(b: &mut Vec<u8>, u: u16, v: u16, p: [f32; 3]) {
    b.extend_from_slice(&u.to_le_bytes());
    b.extend_from_slice(&v.to_le_bytes());
    for c in p {
        b.extend_from_slice(&c.to_le_bytes());
    }
}

fn section(flags: u32, attribute: u16, strips: Vec<u16>, vertices: Vec<u8>, size: u8) -> Section {
    Section {
        texture_id: 0,
        vertex_size: size,
        vertex_flags: flags,
        group: 0,
        attribute,
        joints: None,
        diffuse: (flags & FLAG_UNIFORM_DIFFUSE != 0).then_some(0xFF80_8080),
        strips,
        vertices,
    }
}

/// A textured unit quad (list 0, two strips of one triangle... as one 4-vertex strip) in
/// the z = 0 plane, and one blended triangle in list 1 in front of it.
fn quad_model() -> Pmo {
    let mut q = Vec::new();
    for (u, v, x, y) in [(0, 0, -1.0, 1.0), (0, 0x8000, -1.0, -1.0), (0x8000, 0, 1.0, 1.0), (0x8000, 0x8000, 1.0, -1.0)]
    {
        uv_vertex(&mut q, u, v, [x, y, 0.0]);
    }
    let mut t = Vec::new();
    for (x, y) in [(-0.5, -0.5), (0.5, -0.5), (0.0, 0.5)] {
        uv_vertex(&mut t, 0x4000, 0x4000, [x, y, 0.25]);
    }
    let tim2 = crate::tim2::clut4_test_file(8, 8, (0..32).collect(), (0..64).collect());
    let mut m = Pmo {
        header: Header::new(2.0),
        textures: vec![TextureInfo::new("quad", Some(tim2))],
        meshes: [
            vec![section(VT_UV16_F32 | FLAG_UNIFORM_DIFFUSE | STRIP, 0x0001, vec![4], q, 16)],
            vec![section(VT_UV16_F32 | FLAG_UNIFORM_DIFFUSE | TRIANGLES, 0x0030, vec![], t, 16)],
        ],
        skeleton: None,
        file_size: 0,
    };
    m.pack();
    m
}

fn mat(m: Mat4) -> [f32; 16] {
    m.to_cols_array()
}

/// Two joints: root at the origin, child 1 unit up; one section weighted 50/50 to both.
fn skinned_model() -> Pmo {
    let g0 = Mat4::IDENTITY;
    let g1 = Mat4::from_translation(Vec3::Y);
    let joint = |i: u32, parent: u32, local: Mat4, global: Mat4| Joint {
        index: i,
        parent,
        skin_index: i,
        reserved: 0,
        name: *b"j\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0",
        local: mat(local),
        inverse_global: mat(global.inverse()),
    };
    let mut v = Vec::new();
    for (w0, w1, p) in [(128u8, 0u8, [-0.5f32, 0.0, 0.0]), (64, 64, [0.5, 0.0, 0.0]), (0, 128, [0.0, 1.0, 0.0])] {
        v.extend_from_slice(&[w0, w1, 0, 0]);
        for c in p {
            v.extend_from_slice(&c.to_le_bytes());
        }
    }
    let mut s = section(VT_W8X2_F32 | FLAG_UNIFORM_DIFFUSE | TRIANGLES, 0x0004, vec![], v, 16);
    s.joints = Some([1, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]);
    let mut m = Pmo {
        header: Header::new(1.5),
        textures: vec![],
        meshes: [vec![s], vec![]],
        skeleton: Some(crate::pmo::Skeleton {
            unknown: 0,
            skinned_count: 2,
            skin_start: 0,
            joints: vec![joint(0, NO_JOINT, g0, g0), joint(1, 0, g1, g1)],
        }),
        file_size: 0,
    };
    m.pack();
    m
}

fn camera() -> Camera {
    Camera { target: Vec3::ZERO, yaw: 0.0, pitch: 0.0, distance: 6.0, fov_y: 45.0, near: 1.0, far: 20.0 }
}

/// (op, arg) of every command word.
fn commands(f: &Frame) -> Vec<(u8, u32)> {
    f.list.words.iter().map(|&w| split(w)).collect()
}

/// The float24 arguments following each `num_op` (matrix upload).
fn uploads(cmds: &[(u8, u32)], num_op: u8, slot: Option<u32>) -> Vec<Vec<u32>> {
    let mut out = Vec::new();
    for (i, &(op, arg)) in cmds.iter().enumerate() {
        if op == num_op && slot.is_none_or(|s| arg == s * 12) {
            out.push(cmds[i + 1..].iter().take_while(|c| c.0 == num_op + 1).map(|c| c.1).collect());
        }
    }
    out
}

fn f24(m: &Mat4) -> Vec<u32> {
    ge_4x3(m).iter().map(|&v| to_float24(v)).collect()
}

#[test]
fn section_state_follows_the_file() {
    let model = Model::from_pmo(quad_model()).unwrap();
    let f = build_frame(&model, None, &camera(), &RenderOptions::default()).unwrap();
    let c = commands(&f);
    let prims: Vec<u32> = c.iter().filter(|x| x.0 == op::PRIM).map(|x| x.1).collect();
    // The clear sprite, list 0 (one 4-vertex strip), then list 1 (3 triangle vertices).
    assert_eq!(prims, [(6 << 16) | 2, (4 << 16) | 4, (3 << 16) | 3]);
    let vtypes: Vec<u32> = c.iter().filter(|x| x.0 == op::VERTEXTYPE).map(|x| x.1).collect();
    assert_eq!(&vtypes[1..], &[VT_UV16_F32, VT_UV16_F32]);
    // Unskinned: world = S(model scale).
    assert_eq!(uploads(&c, op::WORLDMATRIXNUMBER, None), [f24(&Mat4::from_scale(Vec3::splat(2.0)))]);
    // 8x8 CLUT4 texture: TEXSIZE 3|3<<8, 32-bit CLUT of 16 entries = 2 blocks.
    assert!(c.contains(&(op::TEXSIZE0, 3 | (3 << 8))));
    assert!(c.contains(&(op::TEXFORMAT, 4)));
    assert!(c.contains(&(op::LOADCLUT, 2)));
    // Uniform colour 0xFF808080 as material.
    assert!(c.contains(&(op::MATERIALAMBIENT, 0x80_8080)) && c.contains(&(op::MATERIALALPHA, 0xFF)));
    // List 1's semi-transparent section turns blending on before its PRIM, depth writes off.
    let last_prim = c.iter().rposition(|x| x.0 == op::PRIM).unwrap();
    let blend_on = c.iter().rposition(|x| *x == (op::ALPHABLENDENABLE, 1)).unwrap();
    assert!(blend_on < last_prim && c[..last_prim].contains(&(op::ZWRITEDISABLE, 1)));
    assert!(c.contains(&(op::BLENDMODE, 0x32)));
}

#[test]
fn bone_slots_are_skin_matrices_times_scale() {
    let pmo = skinned_model();
    let sk = pmo.skeleton.clone().unwrap();
    let model = Model::from_pmo(pmo).unwrap();
    let s = Mat4::from_scale(Vec3::splat(1.5));
    let f = build_frame(&model, None, &camera(), &RenderOptions::default()).unwrap();
    let c = commands(&f);
    // Bind pose: G · InvBind = I, so every used slot is S(scale); unused slots identity.
    assert_eq!(uploads(&c, op::BONEMATRIXNUMBER, Some(0)), [f24(&s)]);
    assert_eq!(uploads(&c, op::BONEMATRIXNUMBER, Some(1)), [f24(&s)]);
    assert_eq!(uploads(&c, op::BONEMATRIXNUMBER, Some(7)), [f24(&Mat4::IDENTITY)]);
    assert_eq!(uploads(&c, op::WORLDMATRIXNUMBER, None), [f24(&Mat4::IDENTITY)]);
    // Posed: joint 1 turned 90° about Z; slot 0 holds joint 1 (the section's table).
    let rot = Mat4::from_rotation_z(std::f32::consts::FRAC_PI_2);
    let pose = [Mat4::IDENTITY, Mat4::from_translation(Vec3::Y) * rot];
    let f = build_frame(&model, Some(&pose), &camera(), &RenderOptions::default()).unwrap();
    let c = commands(&f);
    let expect = pose[1] * Mat4::from_translation(Vec3::Y).inverse() * s;
    assert_eq!(uploads(&c, op::BONEMATRIXNUMBER, Some(0)), [f24(&expect)]);
    assert_eq!(sk.skin_matrices(&pose)[1], pose[1] * Mat4::from_translation(-Vec3::Y));
    // Scale after skinning: slots are G·InvBind, the world carries the scale.
    let mut o = RenderOptions::default();
    o.policy.scale_in = ScaleIn::World;
    let c = commands(&build_frame(&model, Some(&pose), &camera(), &o).unwrap());
    assert_eq!(uploads(&c, op::BONEMATRIXNUMBER, Some(0)), [f24(&(pose[1] * Mat4::from_translation(-Vec3::Y)))]);
    assert_eq!(uploads(&c, op::WORLDMATRIXNUMBER, None), [f24(&s)]);
}

#[test]
fn bounds_follow_skinning_and_scale() {
    let model = Model::from_pmo(skinned_model()).unwrap();
    let o = RenderOptions::default();
    let b = model_bounds(&model, None, &o);
    // Bind pose: stored positions × 1.5.
    assert!((b.min - Vec3::new(-0.75, 0.0, 0.0)).length() < 1e-6, "{b:?}");
    assert!((b.max - Vec3::new(0.75, 1.5, 0.0)).length() < 1e-6, "{b:?}");
    // Joint 1 (slot 0) moved +2 in X: vertex 0 (all slot 0) goes to -0.75 + 2, vertex 1
    // (half) to 0.75 + 1, vertex 2 (all joint 0) stays at x = 0.
    let pose = [Mat4::IDENTITY, Mat4::from_translation(Vec3::new(2.0, 1.0, 0.0))];
    let b = model_bounds(&model, Some(&pose), &o);
    assert!((b.max.x - 1.75).abs() < 1e-6 && b.min.x.abs() < 1e-6, "{b:?}");
}

#[test]
fn renders_and_filters() {
    let model = Model::from_pmo(quad_model()).unwrap();
    let o = RenderOptions::default();
    let img = render(&model, None, &camera(), &o, 1).unwrap();
    let bg = [o.background[0], o.background[1], o.background[2]];
    // Quad covers the centre; the corners of the screen show the background.
    assert_ne!(img.get(240, 100)[..3], bg);
    assert_eq!(img.get(2, 2)[..3], bg);
    // List 0 only: the list-1 triangle at the centre disappears, the quad stays.
    let only0 = render(&model, None, &camera(), &RenderOptions { mesh_list: Some(0), ..o.clone() }, 1).unwrap();
    assert_ne!(only0.get(240, 136), img.get(240, 136));
    assert_eq!(only0.get(240, 60), img.get(240, 60));
    // Section 0 of list 1 alone (the triangle): the quad area outside it is background.
    let one = RenderOptions { section: Some(0), mesh_list: Some(1), ..o.clone() };
    let s1 = render(&model, None, &camera(), &one, 1).unwrap();
    assert_eq!(s1.get(240, 60)[..3], bg);
    assert_ne!(s1.get(240, 150)[..3], bg);
    // Section 0 without a list draws section 0 of both lists: the same as everything here.
    let both = render(&model, None, &camera(), &RenderOptions { section: Some(0), ..o.clone() }, 1).unwrap();
    assert_eq!(both, img);
    assert!(matches!(
        build_frame(&model, None, &camera(), &RenderOptions { section: Some(1), ..o.clone() }),
        Err(SceneError::NoSuchSection { section: 1, .. })
    ));
    // Hidden toggles and wireframe.
    let hidden = render(&model, None, &camera(), &RenderOptions { hidden: vec![true], ..o.clone() }, 1).unwrap();
    assert_eq!(hidden.get(240, 60)[..3], bg);
    let wire = render(&model, None, &camera(), &RenderOptions { wireframe: true, ..o.clone() }, 1).unwrap();
    assert_eq!(wire.get(240, 60)[..3], bg, "wireframe leaves the quad's inside empty");
    // Framebuffer formats all draw.
    for fmt in 0..3 {
        let i = render(&model, None, &camera(), &RenderOptions { fb_format: fmt, ..o.clone() }, 1).unwrap();
        assert_ne!(i.get(240, 100)[..3], i.get(2, 2)[..3]);
    }
}

#[test]
fn colour_doubling_brightens() {
    let model = Model::from_pmo(quad_model()).unwrap();
    let o = RenderOptions { mesh_list: Some(0), ..RenderOptions::default() };
    let on = render(&model, None, &camera(), &o, 1).unwrap();
    let mut off_o = o.clone();
    off_o.policy.color_doubling = false;
    let off = render(&model, None, &camera(), &off_o, 1).unwrap();
    let sum = |img: &Image| -> u64 { img.rgba.chunks_exact(4).map(|p| u64::from(p[0]) + u64::from(p[1])).sum() };
    assert!(sum(&on) > sum(&off));
}

#[test]
fn one_and_many_threads_give_the_same_bytes() {
    for pmo in [quad_model(), skinned_model()] {
        let model = Model::from_pmo(pmo).unwrap();
        let o = RenderOptions::default();
        let a = render(&model, None, &camera(), &o, 1).unwrap();
        let b = render(&model, None, &camera(), &o, 4).unwrap();
        assert_eq!(a, b);
    }
}

#[test]
fn list_room_is_never_outgrown() {
    // The data Vec keeps the room `list_capacity` gave it (no regrowth, which copies it):
    // textured, skinned, filtered and wireframe frames alike.
    for pmo in [quad_model(), skinned_model()] {
        let model = Model::from_pmo(pmo).unwrap();
        for o in [
            RenderOptions::default(),
            RenderOptions { mesh_list: Some(1), ..RenderOptions::default() },
            RenderOptions { wireframe: true, ..RenderOptions::default() },
        ] {
            let f = build_frame(&model, None, &camera(), &o).unwrap();
            let (words, data) = list_capacity(&model, &o);
            assert!(f.list.data.len() <= data, "{} data bytes, room for {data}", f.list.data.len());
            assert!(f.list.words.len() <= words, "{} words, room for {words}", f.list.words.len());
            if !o.wireframe {
                assert_eq!(f.list.data.capacity(), data);
            }
        }
    }
}

#[test]
fn a_reused_ge_draws_what_a_fresh_one_draws() {
    // Frames run one after the other on one GE (data left in RAM by the last frame is
    // compared, not written again) give a fresh GE's bytes, also when the model changes
    // between frames and when RAM under the data was overwritten.
    let o = RenderOptions::default();
    let quad = Model::from_pmo(quad_model()).unwrap();
    let skinned = Model::from_pmo(skinned_model()).unwrap();
    let pose = [Mat4::IDENTITY, Mat4::from_rotation_z(0.5)];
    let frames = [
        build_frame(&quad, None, &camera(), &o).unwrap(),
        build_frame(&skinned, None, &camera(), &o).unwrap(),
        build_frame(&skinned, Some(&pose), &camera(), &o).unwrap(),
        build_frame(&quad, None, &camera(), &o).unwrap(),
        build_frame(&quad, None, &camera(), &o).unwrap(),
    ];
    let mut ge = Ge::new();
    ge.set_threads(2);
    for (i, f) in frames.iter().enumerate() {
        if i == 4 {
            // The same data as the last frame's, but its last bytes (vertices) damaged.
            let end = DATA_ADDR + f.list.data.len() as u32;
            ge.mem.write(end - 8, &[0xA5; 8]).unwrap();
        }
        let fresh = f.render(&mut Ge::new()).unwrap();
        assert_eq!(f.render(&mut ge).unwrap(), fresh, "frame {i}");
        assert_eq!(ge.mem.slice(DATA_ADDR, f.list.data.len() as u32).unwrap(), f.list.data.as_slice());
    }
}
