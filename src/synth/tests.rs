use super::*;
use crate::tim2::Tim2;
use ge::geom::NumFormat;

fn all_models() -> Vec<(String, Pmo)> {
    let mut v: Vec<(String, Pmo)> = format_family_models().into_iter().map(|(n, m)| (n.to_string(), m)).collect();
    v.extend(blend_models().into_iter().map(|(n, m)| (format!("blend {n}"), m)));
    v.push(("skinned".into(), skinned_model()));
    v.push(("two lists".into(), two_list_model()));
    v.push(("demo".into(), demo_model()));
    v
}

#[test]
fn every_model_round_trips_and_is_small() {
    for (name, m) in all_models() {
        let bytes = m.to_bytes().unwrap_or_else(|e| panic!("{name}: {e}"));
        let back = Pmo::parse(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(back, m, "{name}");
        assert_eq!(back.to_bytes().unwrap(), bytes, "{name}");
        let (verts, tris) = m.counts();
        assert!(verts > 0 && verts <= 400, "{name}: {verts} vertices");
        assert!(tris > 0, "{name}");
        assert_eq!(usize::from(m.header.vertex_count), verts, "{name}");
        for (_, s) in m.sections() {
            assert_eq!(u32::from(s.vertex_size), s.layout().stride, "{name}");
            assert!(usize::from(s.texture_id) < m.textures.len(), "{name}");
            assert_eq!(s.layout().vtype.morph_count, 1, "{name}");
        }
        for t in &m.textures {
            t.parse_tim2().unwrap().unwrap();
        }
    }
}

#[test]
fn family_names_cover_every_format() {
    let models = format_family_models();
    let names: Vec<&str> = models.iter().map(|(n, _)| *n).collect();
    for want in [
        "pos_s8",
        "pos_s16",
        "pos_f32",
        "tc_u8",
        "tc_u16",
        "tc_f32",
        "col_5650",
        "col_5551",
        "col_4444",
        "col_8888",
        "nrm_s8",
        "nrm_s16",
        "nrm_f32",
        "w_u8",
        "w_u16",
        "w_f32",
        "uniform_diffuse",
        "prim_triangles",
    ] {
        assert!(names.contains(&want), "{want} missing");
    }
    // The VTYPE field each family is named after (ge-reference §2.1).
    let field = |name: &str| -> u32 {
        let m = &models.iter().find(|(n, _)| *n == name).unwrap().1;
        m.meshes[0][0].vtype()
    };
    assert_eq!(field("pos_s8") >> 7 & 3, 1);
    assert_eq!(field("pos_f32") >> 7 & 3, 3);
    assert_eq!(field("tc_u8") & 3, 1);
    assert_eq!(field("tc_f32") & 3, 3);
    assert_eq!(field("col_5650") >> 2 & 7, 4);
    assert_eq!(field("col_4444") >> 2 & 7, 6);
    assert_eq!(field("nrm_s8") >> 5 & 3, 1);
    assert_eq!(field("nrm_f32") >> 5 & 3, 3);
    assert_eq!(field("w_u16") >> 9 & 3, 2);
    assert_eq!(field("w_f32") >> 9 & 3, 3);
    let uni = &models.iter().find(|(n, _)| *n == "uniform_diffuse").unwrap().1.meshes[0][0];
    assert!(uni.uniform_diffuse() && uni.diffuse == Some(0xFF40_A0FF) && uni.vtype() >> 2 & 7 == 0);
    let odd = &models.iter().find(|(n, _)| *n == "prim_strips_odd").unwrap().1.meshes[0][0];
    assert_eq!(odd.strips.len() % 2, 1);
    let one = &models.iter().find(|(n, _)| *n == "prim_one_strip").unwrap().1.meshes[0][0];
    assert!(one.strips.is_empty() && one.prim() == 4);
    let tri = &models.iter().find(|(n, _)| *n == "prim_triangles").unwrap().1.meshes[0][0];
    assert_eq!((tri.prim(), tri.vertex_count(), tri.triangle_count()), (3, 36, 12));
}

#[test]
fn encoder_values_decode_to_the_requested_numbers() {
    // 0.75 is exactly 96/128 and 24576/32768; texcoord 1.0 is u8 128 and u16 32768.
    for (name, pos) in [("pos_s8", 1u32), ("pos_s16", 2), ("pos_f32", 3)] {
        let m = format_family_models().into_iter().find(|(n, _)| *n == name).unwrap().1;
        let s = &m.meshes[0][0];
        let l = s.layout();
        assert_eq!(l.vtype.position as u32, pos);
        let raw = &s.vertices[l.position_offset as usize..];
        match pos {
            1 => assert_eq!(raw[0] as i8, -96),
            2 => assert_eq!(i16::from_le_bytes([raw[0], raw[1]]), -24576),
            _ => assert_eq!(f32::from_le_bytes([raw[0], raw[1], raw[2], raw[3]]), -0.75),
        }
        for v in s.decode(&DecodeParams::default()) {
            assert!(v.pos.iter().all(|&x| x.abs() == 0.75), "{name} {:?}", v.pos);
            assert!(v.uv.iter().all(|&x| x == 0.0 || x == 1.0));
        }
    }
    // 5650 red face colour (230, 40, 40): fields 28, 10, 5 → 231, 40, 41 by replication.
    let m = format_family_models().into_iter().find(|(n, _)| *n == "col_5650").unwrap().1;
    let s = &m.meshes[0][0];
    let c = u16::from_le_bytes([s.vertices[4], s.vertices[5]]);
    assert_eq!((c & 31, c >> 5 & 63, c >> 11), (28, 10, 5));
    assert_eq!(s.decode(&DecodeParams::default())[0].color, [231, 40, 41, 255]);
}

/// Triangles of a strip/list as the GE assembles them: odd strip triangles swap their first
/// two vertices (ge-reference §5.4 alternating winding).
fn triangles(s: &Section) -> Vec<[usize; 3]> {
    let runs: Vec<usize> =
        if s.strips.is_empty() { vec![s.vertex_count()] } else { s.strips.iter().map(|&n| usize::from(n)).collect() };
    let mut out = Vec::new();
    let mut base = 0;
    for n in runs {
        match s.prim() {
            3 => out.extend((0..n / 3).map(|k| [base + 3 * k, base + 3 * k + 1, base + 3 * k + 2])),
            4 => out.extend((0..n.saturating_sub(2)).map(|k| {
                let i = base + k;
                if k % 2 == 0 {
                    [i, i + 1, i + 2]
                } else {
                    [i + 1, i, i + 2]
                }
            })),
            p => panic!("prim {p}"),
        }
        base += n;
    }
    out
}

#[test]
fn every_triangle_is_counter_clockwise_around_its_normal() {
    // Geometry from the float meshes (the encoded normals are quantised but keep direction).
    let meshes = [
        mesh::cube_strips(0.5, [0.1, 0.2, 0.3]),
        mesh::cube_triangles(0.5, [0.0; 3]),
        mesh::ring(12, 0.4, 0.9, -0.3, 0.3, false),
        mesh::grid(4, 3, 0.9, 0.0),
        mesh::quad(0.5, 0.3, [0.0; 3], [255; 4]),
    ];
    for (k, m) in meshes.into_iter().enumerate() {
        let s = Section {
            texture_id: 0,
            vertex_size: 12,
            vertex_flags: m.prim << 28 | vt::POS_F32,
            group: 0,
            attribute: 0,
            joints: None,
            diffuse: None,
            strips: m.strips.clone(),
            vertices: vec![0; 12 * m.verts.len()],
        };
        for t in triangles(&s) {
            let p = t.map(|i| Vec3::from(m.verts[i].pos));
            let n = t.iter().map(|&i| Vec3::from(m.verts[i].nrm)).sum::<Vec3>();
            let area = (p[1] - p[0]).cross(p[2] - p[0]);
            assert!(area.dot(n) > 1e-6, "mesh {k} triangle {t:?}: {area} vs normal {n}");
        }
    }
    // Cube normals point outwards.
    let c = mesh::cube_strips(0.5, [0.1, 0.2, 0.3]);
    for v in &c.verts {
        assert!((Vec3::from(v.pos) - Vec3::new(0.1, 0.2, 0.3)).dot(Vec3::from(v.nrm)) > 0.0);
    }
}

fn skinned_models() -> Vec<(String, Pmo)> {
    all_models().into_iter().filter(|(_, m)| m.skeleton.is_some()).collect()
}

/// Chained local matrices reproduce the global bind pose whose inverse is stored.
#[test]
fn skeleton_chain_matches_inverse_bind() {
    let s = column_skeleton();
    assert!(s.joints.len() >= 3);
    let mut global: Vec<Mat4> = Vec::new();
    for (i, j) in s.joints.iter().enumerate() {
        let local = Mat4::from_cols_array(&j.local);
        let g = match j.parent_index() {
            Some(p) => {
                assert_eq!(p, i - 1);
                global[p] * local
            }
            None => local,
        };
        let err = (g * Mat4::from_cols_array(&j.inverse_global) - Mat4::IDENTITY).abs().to_cols_array();
        assert!(err.iter().all(|&e| e < 1e-5), "joint {i}: {err:?}");
        // The bind poses are not trivial (rotation or translation beyond the identity).
        assert!(j.local != Mat4::IDENTITY.to_cols_array());
        global.push(g);
    }
}

/// The bind pose on the CPU: Σ wⱼ · G[joint(j)] · Inv[joint(j)] · S(scale) applied to the
/// decoded position equals position × scale (ge-reference §18.2 skinning, §3 matrix sum).
#[test]
fn bind_pose_reproduces_the_stored_vertices() {
    for (name, m) in skinned_models() {
        let sk = m.skeleton.as_ref().unwrap();
        let mut global: Vec<Mat4> = Vec::new();
        for j in &sk.joints {
            let l = Mat4::from_cols_array(&j.local);
            let g = j.parent_index().map_or(l, |p| global[p] * l);
            global.push(g);
        }
        let scale = m.header.model_scale;
        for (_, s) in m.sections() {
            let table = s.joints.unwrap();
            let n = usize::from(s.layout().vtype.weight_count);
            assert!(table[n..].iter().all(|&j| j == 0xFF), "{name}: unused slots are 0xFF");
            for v in s.decode(&DecodeParams::default()) {
                let mut skin = Mat4::ZERO;
                for (slot, &w) in v.weights[..n].iter().enumerate() {
                    let j = usize::from(table[slot]);
                    let b = global[j]
                        * Mat4::from_cols_array(&sk.joints[j].inverse_global)
                        * Mat4::from_scale(Vec3::splat(scale));
                    skin += b * w;
                }
                let p = Vec3::from(v.pos) * scale;
                let q = skin.transform_point3(Vec3::from(v.pos));
                assert!((p - q).abs().max_element() < 1e-5, "{name}: {p} vs {q}");
            }
        }
    }
}

#[test]
fn u8_weights_sum_to_128_with_several_per_vertex() {
    let m = skinned_model();
    let (mut two, mut three) = (0, 0);
    for (_, s) in m.sections() {
        let l = s.layout();
        assert_eq!((l.vtype.weight, l.vtype.weight_count), (NumFormat::Byte, 3));
        for v in s.vertices.chunks_exact(usize::from(s.vertex_size)) {
            let w = &v[l.weight_offset as usize..l.weight_offset as usize + 3];
            assert_eq!(w.iter().map(|&x| u32::from(x)).sum::<u32>(), 128);
            match w.iter().filter(|&&x| x != 0).count() {
                2 => two += 1,
                3 => three += 1,
                _ => {}
            }
        }
        assert_eq!(s.joints.unwrap()[3..], [0xFF; 5]);
    }
    assert!(two > 0 && three > 0, "{two} {three}");
    // The two sections bind different joints.
    assert_ne!(m.meshes[0][0].joints, m.meshes[0][1].joints);
    // u16 weights sum to 32768 (1.0).
    let w16 = format_family_models().into_iter().find(|(n, _)| *n == "w_u16").unwrap().1;
    for (_, s) in w16.sections() {
        for v in s.decode(&DecodeParams::default()) {
            assert_eq!(v.weights.iter().sum::<f32>(), 1.0);
        }
    }
}

#[test]
fn lists_and_attributes() {
    let m = two_list_model();
    assert!(!m.meshes[0].is_empty() && !m.meshes[1].is_empty());
    assert!(m.meshes[0].iter().all(|s| s.attribute & 0xE0 == 0));
    assert!(m.meshes[1].iter().all(|s| s.attribute & 0xE0 == 0x20));
    let want = [
        ("semi_transparent", 0x20),
        ("additive", 0x40),
        ("subtractive", 0x60),
        ("texture_alpha", 0x10),
        ("back_faces", 0x04),
    ];
    let b = blend_models();
    assert_eq!(b.iter().map(|(n, _)| *n).collect::<Vec<_>>(), want.map(|w| w.0));
    for ((_, m), (_, bits)) in b.iter().zip(want) {
        assert!(m.sections().any(|(_, s)| s.attribute == bits));
    }
    let d = demo_model();
    assert!(d.skeleton.is_some() && !d.meshes[1].is_empty());
    let vtypes: std::collections::BTreeSet<u32> = d.sections().map(|(_, s)| s.vtype()).collect();
    assert!(vtypes.len() >= 3);
}

#[test]
fn every_tim2_kind_decodes_to_the_picture() {
    for kind in TexKind::ALL {
        for holes in [false, true] {
            let bytes = if holes { tim2_image_alpha(kind, 32, 16) } else { tim2_image(kind, 32, 16) };
            let t = Tim2::parse(&bytes).unwrap();
            let p = &t.pictures[0];
            assert_eq!((p.width, p.height, p.image_type, p.clut_type), (32, 16, kind.types().0, kind.types().1));
            assert_eq!(p.clut_is_csm1_shuffled(), matches!(kind, TexKind::Clut8_16_csm1 | TexKind::Clut8_32_csm1));
            let want = tim2gen::expected_rgba(kind, 32, 16, holes);
            assert_eq!(p.rgba(), want, "{kind:?} holes={holes}");
            // Orientation markers: top-left red, bottom-right yellow.
            assert_eq!(want[0][..3], [255, 0, 0]);
            assert_eq!(want[32 * 16 - 1][..3], [255, 255, 0]);
            assert_eq!(want.iter().any(|c| c[3] == 0), holes);
        }
    }
    // Reading a CSM1 CLUT in stored order gives a different picture.
    let t = Tim2::parse(&tim2_image(TexKind::Clut8_32_csm1, 64, 64)).unwrap();
    let mut raw = t.pictures[0].clone();
    raw.clut_type |= 0x80;
    assert_ne!(raw.rgba(), t.pictures[0].rgba());
}
