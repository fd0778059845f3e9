//! Synthetic PMO models for the repo's own tests, golden images and the built-in demo; no game
//! data. Every model is built as a [`Pmo`] value, laid out with [`Pmo::pack`] and therefore
//! writable with [`Pmo::to_bytes`] and parsed back unchanged (tested).
//!
//! Design:
//! * Shapes ([`mesh`]) are float meshes (cube, tube/ring, grid, quad) with distinct colours per
//!   face, normals and texture coordinates; [`mesh::encode`] quantises them to any VTYPE with
//!   the GE's own scales, so the decoded values are what the shape asked for, up to format
//!   precision.
//! * Textures ([`tim2gen`]) are one recognisable picture in every TIM2 kind (4/8-bit indexed
//!   with 16/32-bit CLUTs incl. the CSM1 order, 5551 and 8888 direct).
//! * Positions are normalised (GE decoded units, |x| < 1); the header's model scale turns them
//!   into model units (ge-reference §18.2). Models without a skeleton set vertex-flag bit 25
//!   as the OpenKh sample does; models with one carry a joint table in every section.
//! * Skinned models build the skeleton from global bind poses G (rotation + translation in
//!   model units): local = G_parent⁻¹·G, inverse bind = G⁻¹, so the bind pose
//!   Σ wⱼ·G·G⁻¹·S(scale) reproduces the stored vertices (tested on the CPU).
//!
//! Morph targets are not generated: a PMO section's VTYPE could carry morph-count bits (the
//! parser keeps them verbatim), but the format has no MORPHWEIGHT values and OpenKh's
//! documentation and readers (`OpenKh.Bbs/Pmo.cs`, `docs/bbs/file/type/pmo.md`) know no
//! morphing, so no renderer of PMOs could draw them meaningfully.

pub mod anim;
pub mod goldens;
pub mod mesh;
pub mod tim2gen;

#[cfg(test)]
mod tests;

use ge::vertex::DecodeParams;
use glam::{Mat4, Quat, Vec3};

use crate::pmo::{Header, Joint, Pmo, Section, Skeleton, TextureInfo, FLAG_BIT25, FLAG_UNIFORM_DIFFUSE, NO_JOINT};
use ge::scenes::vt;
use mesh::{cube_strips, cube_triangles, encode, grid, quad, ring, Mesh, V};
pub use tim2gen::{tim2_image, tim2_image_alpha, TexKind};

/// Section attribute bits (ge-reference §18.2, names from OpenKh).
pub mod attr {
    pub const BACK: u16 = 0x0004;
    pub const TEXALPHA: u16 = 0x0010;
    pub const BLEND_SEMITRANS: u16 = 0x0020;
    pub const BLEND_ADD: u16 = 0x0040;
    pub const BLEND_SUB: u16 = 0x0060;
}

/// One section to build: a mesh in a VTYPE with its texture and state.
struct Part {
    mesh: Mesh,
    vtype: u32,
    texture: u8,
    attribute: u16,
    /// Uniform diffuse colour (ABGR, R in the low byte): sets flag bit 24.
    diffuse: Option<u32>,
    /// Joint per GE bone slot; `None` in unskinned models.
    joints: Option<[u8; 8]>,
}

impl Part {
    fn new(mesh: Mesh, vtype: u32, texture: u8) -> Part {
        Part { mesh, vtype, texture, attribute: 0, diffuse: None, joints: None }
    }
    fn attr(mut self, a: u16) -> Part {
        self.attribute = a;
        self
    }
    fn section(mut self, skinned_model: bool) -> Section {
        if self.mesh.strips.len() == 1 {
            // One strip = strip count 0 (one PRIM of all vertices); an odd strip count would
            // put the vertex data at 2 mod 4, illegal for 4-byte-aligned layouts (§18.1).
            self.mesh.strips.clear();
        }
        let layout = ge::vertex::VertexLayout::new(self.vtype);
        let mut flags = self.vtype | self.mesh.prim << 28;
        if self.diffuse.is_some() {
            flags |= FLAG_UNIFORM_DIFFUSE;
        }
        if !skinned_model {
            // The OpenKh sample (no skeleton) sets bit 25, "no weight" (ge-reference §18.4).
            flags |= FLAG_BIT25;
        }
        Section {
            texture_id: self.texture,
            vertex_size: layout.stride as u8,
            vertex_flags: flags,
            group: 0,
            attribute: self.attribute,
            joints: if skinned_model { Some(self.joints.unwrap_or([0xFF; 8])) } else { None },
            diffuse: self.diffuse,
            strips: self.mesh.strips.clone(),
            vertices: encode(self.vtype, &self.mesh.verts),
        }
    }
}

fn texture(name: &str, tim2: Vec<u8>) -> TextureInfo {
    TextureInfo::new(name, Some(tim2))
}

/// Assemble, compute the bounding box from the decoded positions × scale, and lay out.
fn model(lists: [Vec<Part>; 2], textures: Vec<TextureInfo>, skeleton: Option<Skeleton>, scale: f32) -> Pmo {
    let skinned = skeleton.is_some();
    let [l0, l1] = lists;
    let meshes = [
        l0.into_iter().map(|p| p.section(skinned)).collect::<Vec<_>>(),
        l1.into_iter().map(|p| p.section(skinned)).collect::<Vec<_>>(),
    ];
    let (mut lo, mut hi) = ([f32::MAX; 3], [f32::MIN; 3]);
    for s in meshes.iter().flatten() {
        for v in s.decode(&DecodeParams::default()) {
            for k in 0..3 {
                lo[k] = lo[k].min(v.pos[k] * scale);
                hi[k] = hi[k].max(v.pos[k] * scale);
            }
        }
    }
    // Corner order as in the samples (bbs-dummy.pmo, p01ex00.pmo): x varies fastest, then z,
    // then y. guess: model units (positions × scale); the dummy has scale 1 and can't tell.
    let bounding_box = std::array::from_fn(|i| {
        let pick = |k: usize, bit: usize| if i >> bit & 1 == 0 { lo[k] } else { hi[k] };
        [pick(0, 0), pick(1, 2), pick(2, 1), 1.0]
    });
    let mut m = Pmo { header: Header { bounding_box, ..Header::new(scale) }, textures, meshes, skeleton, file_size: 0 };
    m.pack();
    m
}

const CUBE: u32 = vt::TC_U16 | vt::COL_8888;

/// One model per vertex-format family (see the module docs for why morphing is absent).
pub fn format_family_models() -> Vec<(&'static str, Pmo)> {
    let tex = |k: TexKind, s: u32| vec![texture(k.name(), tim2_image(k, s, s))];
    let cube = || cube_strips(0.75, [0.0; 3]);
    let unskinned = |parts: Vec<Part>, t: Vec<TextureInfo>, scale: f32| model([parts, vec![]], t, None, scale);
    let mut v = vec![
        ("pos_s8", unskinned(vec![Part::new(cube(), CUBE | vt::POS_S8, 0)], tex(TexKind::Clut4_32, 32), 2.0)),
        ("pos_s16", unskinned(vec![Part::new(cube(), CUBE | vt::POS_S16, 0)], tex(TexKind::Clut8_32_csm1, 64), 2.0)),
        ("pos_f32", unskinned(vec![Part::new(cube(), CUBE | vt::POS_F32, 0)], tex(TexKind::Direct8888, 32), 2.0)),
    ];
    let g = || grid(6, 6, 0.9, 0.0);
    let tc: [(&str, u32, TexKind, f32); 3] = [
        ("tc_u8", vt::TC_U8, TexKind::Clut4_16, 1.0),
        ("tc_u16", vt::TC_U16, TexKind::Clut8_16, 1.0),
        // Float texcoords beyond 1: the texture repeats twice.
        ("tc_f32", vt::TC_F32, TexKind::Direct5551, 2.0),
    ];
    for (name, t, kind, rep) in tc {
        let m = g().map(|v| v.uv = v.uv.map(|x| x * rep));
        v.push((name, unskinned(vec![Part::new(m, t | vt::COL_5650 | vt::POS_S16, 0)], tex(kind, 32), 3.0)));
    }
    let col: [(&str, u32, u8); 4] = [
        ("col_5650", vt::COL_5650, 255),
        ("col_5551", vt::COL_5551, 255),
        ("col_4444", vt::COL_4444, 0xEE),
        ("col_8888", vt::COL_8888, 0xF0),
    ];
    for (name, c, alpha) in col {
        let m = cube().map(|v| v.col[3] = alpha);
        v.push((name, unskinned(vec![Part::new(m, vt::TC_U16 | c | vt::POS_S16, 0)], tex(TexKind::Clut8_32, 64), 2.0)));
    }
    let nrm: [(&str, u32, u32); 3] = [
        ("nrm_s8", vt::NRM_S8, vt::POS_S16),
        ("nrm_s16", vt::NRM_S16, vt::POS_S16),
        ("nrm_f32", vt::NRM_F32, vt::POS_F32),
    ];
    for (name, n, p) in nrm {
        let m = ring(16, 0.45, 0.9, -0.3, 0.3, false);
        v.push((
            name,
            unskinned(vec![Part::new(m, vt::TC_U16 | vt::COL_8888 | n | p, 0)], tex(TexKind::Clut4_32, 32), 2.0),
        ));
    }
    for (name, w) in [("w_u8", vt::W_U8), ("w_u16", vt::W_U16), ("w_f32", vt::W_F32)] {
        v.push((name, skinned_column(w, vt::TC_U16 | vt::COL_8888 | vt::POS_S16)));
    }
    let mut uni = Part::new(g(), vt::TC_U16 | vt::POS_F32, 0);
    // ABGR with R in the low byte: orange (R 0xFF, G 0xA0, B 0x40), opaque.
    uni.diffuse = Some(0xFF40_A0FF);
    v.push(("uniform_diffuse", unskinned(vec![uni], tex(TexKind::Clut8_32_csm1, 64), 3.0)));
    let tri = Part::new(cube_triangles(0.75, [0.0; 3]), CUBE | vt::POS_S16, 0);
    v.push(("prim_triangles", unskinned(vec![tri], tex(TexKind::Clut4_16, 32), 2.0)));
    // Three strips: an odd strip count, legal because this layout only needs 2-byte alignment.
    let odd = Part::new(grid(5, 3, 0.9, 0.0), vt::TC_U16 | vt::COL_5650 | vt::POS_S16, 0);
    v.push(("prim_strips_odd", unskinned(vec![odd], tex(TexKind::Clut8_16_csm1, 64), 3.0)));
    // Strip count 0: one PRIM of all the section's vertices.
    let mut tube = ring(20, 0.0, 0.8, -0.6, 0.6, true);
    tube.strips.clear();
    v.push((
        "prim_one_strip",
        unskinned(vec![Part::new(tube, CUBE | vt::POS_S16, 0)], tex(TexKind::Clut4_32, 32), 2.0),
    ));
    v.push(("tim2_kinds", tim2_kinds()));
    v
}

/// Eight quads in a row, one per TIM2 kind (texture id = kind index).
fn tim2_kinds() -> Pmo {
    let parts = (0..8)
        .map(|i| {
            let x = -0.875 + 0.25 * i as f32;
            Part::new(quad(0.11, 0.11, [x, 0.0, 0.0], [255; 4]), vt::TC_U16 | vt::COL_8888 | vt::POS_S16, i as u8)
        })
        .collect();
    let textures = TexKind::ALL.iter().map(|&k| texture(k.name(), tim2_image(k, 32, 32))).collect();
    model([parts, vec![]], textures, None, 4.0)
}

/// Global bind poses (model units) of the 4-joint chain root → lower → upper → tip.
fn bind_globals() -> [Mat4; 4] {
    [
        Mat4::from_translation(Vec3::new(0.0, -2.0, 0.0)),
        Mat4::from_rotation_translation(Quat::from_rotation_z(0.35), Vec3::new(0.0, -0.5, 0.0)),
        Mat4::from_rotation_translation(
            Quat::from_rotation_z(0.35) * Quat::from_rotation_x(-0.25),
            Vec3::new(0.1, 1.0, 0.05),
        ),
        Mat4::from_rotation_translation(Quat::from_rotation_y(0.6), Vec3::new(0.0, 2.0, 0.0)),
    ]
}

/// Joint heights in normalised units (global bind translation y / scale).
const COLUMN_SCALE: f32 = 2.5;

/// The skeleton of `bind_globals`: parent chain, local = G_parent⁻¹·G, inverse = G⁻¹.
/// Shared by [`skinned_model`], [`demo_model`] and [`anim::column_animation`].
pub fn column_skeleton() -> Skeleton {
    let g = bind_globals();
    let names: [&[u8]; 4] = [b"root", b"lower", b"upper", b"tip"];
    let joints = (0..4)
        .map(|i| {
            let local = if i == 0 { g[0] } else { g[i - 1].inverse() * g[i] };
            let mut name = [0u8; 16];
            name[..names[i].len()].copy_from_slice(names[i]);
            Joint {
                index: i as u32,
                parent: if i == 0 { NO_JOINT } else { i as u32 - 1 },
                skin_index: i as u32,
                reserved: 0,
                name,
                local: local.to_cols_array(),
                inverse_global: g[i].inverse().to_cols_array(),
            }
        })
        .collect();
    Skeleton { unknown: 0, skinned_count: 4, skin_start: 0, joints }
}

/// Skin weights of the 4 joints at normalised height `y`: overlapping tents (up to 3 non-zero),
/// normalised to sum 1.
fn column_weights(y: f32) -> [f32; 4] {
    let g = bind_globals();
    let mut w: [f32; 4] = std::array::from_fn(|i| (1.0 - (y - g[i].w_axis.y / COLUMN_SCALE).abs() / 0.7).max(0.0));
    let s: f32 = w.iter().sum();
    w.iter_mut().for_each(|x| *x /= s.max(1e-6));
    w
}

/// A square column of 4 side strips from `y0` to `y1` (normalised) in `segs` segments, with
/// weights of joints `table[0..3]` in slots 0..3.
fn column_part(y0: f32, y1: f32, segs: usize, table: [u8; 3], vtype: u32, texture: u8) -> Part {
    let h = 0.2;
    let corners = [[-h, h], [h, h], [h, -h], [-h, -h], [-h, h]]; // (x, z), counter-clockwise from +Y
    let mut m = Mesh { prim: 4, ..Mesh::default() };
    for side in 0..4 {
        let ([ax, az], [bx, bz]) = (corners[side], corners[side + 1]);
        for i in 0..=segs {
            let y = y0 + (y1 - y0) * i as f32 / segs as f32;
            let jw = column_weights(y);
            let mut w = [0.0; 8];
            for (slot, &j) in table.iter().enumerate() {
                w[slot] = jw[usize::from(j)];
            }
            let col = mesh::FACE_COLORS[side];
            let t = 1.0 - (y + 1.0) / 2.0;
            let nrm = [(ax + bx) / (2.0 * h), 0.0, (az + bz) / (2.0 * h)];
            // Left edge then right edge (seen from outside) per height, going up: the first
            // triangle (bottom-left, bottom-right, top-left) is counter-clockwise outside.
            m.verts.push(V { pos: [ax, y, az], uv: [0.0, t], col, nrm, w });
            m.verts.push(V { pos: [bx, y, bz], uv: [1.0, t], col, nrm, w });
        }
        m.strips.push(2 * (segs as u16 + 1));
    }
    let mut joints = [0xFF; 8];
    joints[..3].copy_from_slice(&table);
    Part { joints: Some(joints), ..Part::new(m, vtype | vt::weights(3), texture) }
}

/// The skinned column: two sections (lower: joints 0,1,2; upper: joints 1,2,3; slots 3..7 unused).
fn column_parts(weight_format: u32, vtype: u32, texture: u8) -> Vec<Part> {
    vec![
        column_part(-0.8, 0.0, 4, [0, 1, 2], weight_format | vtype, texture),
        column_part(0.0, 0.8, 4, [1, 2, 3], weight_format | vtype, texture),
    ]
}

fn skinned_column(weight_format: u32, vtype: u32) -> Pmo {
    let tex = vec![texture("column", tim2_image(TexKind::Clut8_32_csm1, 64, 64))];
    model([column_parts(weight_format, vtype, 0), vec![]], tex, Some(column_skeleton()), COLUMN_SCALE)
}

/// A skinned column: 4-joint chain with rotated bind poses, two sections with 8-entry joint
/// tables (3 used slots, 5 × 0xFF), 3 u8 weights per vertex summing to 128.
pub fn skinned_model() -> Pmo {
    skinned_column(vt::W_U8, vt::TC_U16 | vt::COL_8888 | vt::POS_S16)
}

/// Opaque cube on a floor grid in list 0; a translucent (alpha 0x80, semi-transparent blend)
/// ring round the cube in list 1.
pub fn two_list_model() -> Pmo {
    let floor = Part::new(grid(8, 8, 0.95, -0.4), vt::TC_U16 | vt::COL_5650 | vt::POS_S16, 1);
    let cube = Part::new(cube_strips(0.3, [0.0, -0.1, 0.0]), CUBE | vt::POS_S16, 0);
    let ring = ring(24, 0.55, 0.75, -0.25, 0.05, false).map(|v| v.col[3] = 0x80);
    let ring = Part::new(ring, vt::TC_F32 | vt::COL_8888 | vt::POS_F32, 2).attr(attr::BLEND_SEMITRANS);
    let textures = vec![
        texture("cube", tim2_image(TexKind::Clut8_32, 64, 64)),
        texture("floor", tim2_image(TexKind::Clut4_16, 32, 32)),
        texture("ring", tim2_image(TexKind::Direct5551, 32, 32)),
    ];
    model([vec![floor, cube], vec![ring]], textures, None, 2.0)
}

/// One model per attribute: `semi_transparent`, `additive`, `subtractive`, `texture_alpha`,
/// `back_faces`. Each has an opaque textured backdrop in list 0; the effect object is in
/// list 1 for the blend modes and in list 0 otherwise.
pub fn blend_models() -> Vec<(&'static str, Pmo)> {
    let backdrop = || Part::new(quad(0.95, 0.6, [0.0, 0.0, -0.5], [255; 4]), CUBE | vt::POS_S16, 0);
    let textures = |second: Vec<u8>| {
        vec![texture("backdrop", tim2_image(TexKind::Clut8_32_csm1, 64, 64)), texture("effect", second)]
    };
    let mut v = Vec::new();
    let blends: [(&str, u16, u8); 3] = [
        ("semi_transparent", attr::BLEND_SEMITRANS, 0x80),
        ("additive", attr::BLEND_ADD, 0xC0),
        ("subtractive", attr::BLEND_SUB, 0xC0),
    ];
    for (name, a, alpha) in blends {
        let cube = cube_strips(0.3, [0.0, 0.0, 0.1]).map(|v| v.col[3] = alpha);
        let effect = Part::new(cube, CUBE | vt::POS_S16, 1).attr(a);
        let t = textures(tim2_image(TexKind::Clut4_32, 32, 32));
        v.push((name, model([vec![backdrop()], vec![effect]], t, None, 2.0)));
    }
    let cut = Part::new(quad(0.45, 0.45, [0.0, 0.0, 0.1], [255; 4]), CUBE | vt::POS_S16, 1).attr(attr::TEXALPHA);
    let t = textures(tim2_image_alpha(TexKind::Clut8_32, 64, 64));
    v.push(("texture_alpha", model([vec![backdrop(), cut], vec![]], t, None, 2.0)));
    // Two open tubes: the left one culled (outside only), the right one with back faces drawn.
    let tube = |dx: f32| ring(16, 0.0, 0.25, -0.35, 0.35, true).map(move |v| v.pos[0] += dx);
    let culled = Part::new(tube(-0.45), CUBE | vt::POS_S16, 1);
    let both = Part::new(tube(0.45), CUBE | vt::POS_S16, 1).attr(attr::BACK);
    let t = textures(tim2_image(TexKind::Clut4_32, 32, 32));
    v.push(("back_faces", model([vec![backdrop(), culled, both], vec![]], t, None, 2.0)));
    v
}

/// The README demo: a skinned, textured column (s16 positions, u8 weights, 8888 colours) on a
/// cube pedestal (s8 positions, u8 texcoords, 5650 colours, rigid to the root), with a
/// translucent ring (float positions/texcoords, 4444 colours, float weights) in list 1.
pub fn demo_model() -> Pmo {
    let mut list0 = column_parts(vt::W_U8, vt::TC_U16 | vt::COL_8888 | vt::POS_S16, 0);
    // s8 positions: everything within [-1, 127/128] (ge-reference §2.3).
    let pedestal = cube_strips(0.22, [0.0, -0.75, 0.0]).map(|v| v.w[0] = 1.0);
    let mut pedestal = Part::new(pedestal, vt::TC_U8 | vt::COL_5650 | vt::POS_S8 | vt::W_U8, 1);
    pedestal.joints = Some([0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]);
    list0.push(pedestal);
    let halo = ring(24, 0.35, 0.6, -0.05, 0.05, false).map(|v| {
        v.col[3] = 0x90;
        v.uv[0] *= 4.0;
        v.w[0] = 1.0;
    });
    let mut halo = Part::new(halo, vt::TC_F32 | vt::COL_4444 | vt::POS_F32 | vt::W_F32, 2).attr(attr::BLEND_SEMITRANS);
    halo.joints = Some([2, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]);
    let textures = vec![
        texture("column", tim2_image(TexKind::Clut8_32_csm1, 64, 64)),
        texture("pedestal", tim2_image(TexKind::Clut4_16, 32, 32)),
        texture("halo", tim2_image(TexKind::Direct5551, 32, 32)),
    ];
    model([list0, vec![halo]], textures, Some(column_skeleton()), COLUMN_SCALE)
}
