use super::*;
use proptest::prelude::*;

/// VTYPE from its fields (ge-reference §2.1).
#[allow(clippy::too_many_arguments)]
fn vtype(tc: u32, col: u32, nrm: u32, pos: u32, wt: u32, wcount: u32, idx: u32, morph: u32) -> u32 {
    tc | col << 2 | nrm << 5 | pos << 7 | wt << 9 | idx << 11 | (wcount - 1) << 14 | (morph - 1) << 18
}

/// A valid section for `vt` (prim in bits 28-31 of `extra`), with `n` vertices split into
/// strips when `strips` is non-empty; vertex bytes are a deterministic pattern.
fn section(vt: u32, extra: u32, n: usize, strips: Vec<u16>, skinned: bool, tex: u8, seed: u8) -> Section {
    let layout = VertexLayout::new(vt);
    let size = layout.stride as usize;
    Section {
        texture_id: tex,
        vertex_size: size as u8,
        vertex_flags: vt | extra,
        group: seed,
        attribute: u16::from(seed) * 0x21,
        joints: skinned.then_some([0, 1, 2, 3, 0xFF, 0xFF, 0xFF, 0xFF]),
        diffuse: (extra & FLAG_UNIFORM_DIFFUSE != 0).then_some(0xFF80_8080),
        strips,
        vertices: (0..n * size).map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed)).collect(),
    }
}

fn tim2_bytes() -> Vec<u8> {
    crate::tim2::clut4_test_file(8, 8, (0..32).collect(), (0..64).collect())
}

fn identity() -> [f32; 16] {
    [1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1.]
}

fn skeleton(n: usize) -> Skeleton {
    Skeleton {
        unknown: 0,
        skinned_count: n as u16,
        skin_start: 0,
        joints: (0..n)
            .map(|i| {
                let mut local = identity();
                local[13] = 1.0; // +1 in Y per joint
                let mut inv = identity();
                inv[13] = -(i as f32 + 1.0);
                Joint {
                    index: i as u32,
                    parent: if i == 0 { NO_JOINT } else { i as u32 - 1 },
                    skin_index: i as u32,
                    reserved: 0,
                    name: *b"joint\0\0\0\0\0\0\0\0\0\0\0",
                    local,
                    inverse_global: inv,
                }
            })
            .collect(),
    }
}

fn model(lists: [Vec<Section>; 2], skinned: bool, textures: usize) -> Pmo {
    let mut m = Pmo {
        header: Header {
            bounding_box: std::array::from_fn(|i| [i as f32, -(i as f32), 0.25, 1.0]),
            ..Header::new(1.5)
        },
        textures: (0..textures)
            .map(|i| TextureInfo {
                tim2_offset: 0,
                name: *b"synthetic\0\0\0",
                tiling_speed: [0.0, i as f32 * 0.5],
                unknown: [0, 0],
                tim2: (i % 2 == 0).then(tim2_bytes),
            })
            .collect(),
        meshes: lists,
        skeleton: skinned.then(|| skeleton(4)),
        file_size: 0,
    };
    m.pack();
    m
}

/// One section per vertex-format family a PMO can carry (every VTYPE field), skinned or not.
fn all_formats(skinned: bool) -> Vec<Section> {
    let tri = 3 << 28;
    let strip = 4 << 28;
    let mut v = Vec::new();
    let mut seed = 0u8;
    for tc in 0..4 {
        for col in [0, 4, 5, 6, 7] {
            for pos in 1..4 {
                let nrm = (tc + pos) % 4;
                let (wt, wc) = if skinned { ((tc + col) % 3 + 1, (pos + col) % 8 + 1) } else { (0, 1) };
                let vt = vtype(tc, col, nrm, pos, wt, wc, 0, 1);
                let uniform = if col == 0 { FLAG_UNIFORM_DIFFUSE } else { 0 };
                let extra = uniform | if skinned { 0 } else { FLAG_BIT25 };
                seed = seed.wrapping_add(1);
                let s = if seed.is_multiple_of(2) {
                    section(vt, extra | tri, 6, vec![], skinned, seed % 3, seed)
                } else {
                    // Strip count kept even so the vertex data stays 4-byte aligned.
                    section(vt, extra | strip, 9, vec![4, 5], skinned, seed % 3, seed)
                };
                v.push(s);
            }
        }
    }
    // Index formats, morph targets and the through bit are carried verbatim too.
    v.push(section(vtype(1, 0, 0, 2, 0, 1, 1, 2), FLAG_UNIFORM_DIFFUSE | tri, 3, vec![], skinned, 0, 7));
    v.push(section(vtype(2, 7, 1, 3, 0, 1, 2, 3) | 1 << 23, 5 << 28, 4, vec![], skinned, 0, 9));
    // One strip with an odd count, where the vertex format only needs 2-byte alignment.
    v.push(section(vtype(2, 5, 0, 2, 0, 1, 0, 1), strip, 5, vec![5], skinned, 1, 11));
    v
}

#[test]
fn round_trip_every_vertex_format_skinned_and_not_both_lists() {
    for skinned in [false, true] {
        let mut formats = all_formats(skinned);
        let list1 = formats.split_off(formats.len() / 2);
        let m = model([formats, list1], skinned, 3);
        assert_ne!(m.header.mesh_offsets[1], 0);
        let bytes = m.to_bytes().unwrap();
        assert_eq!(bytes.len(), m.file_size as usize);
        let back = Pmo::parse(&bytes).unwrap();
        assert_eq!(back, m);
        assert_eq!(back.to_bytes().unwrap(), bytes);
        assert_eq!(m.header.vertex_count as usize, m.counts().0);
    }
}

#[test]
fn only_list_1_and_empty_lists() {
    let mut m = model([vec![], all_formats(false)], false, 3);
    assert_eq!(m.header.mesh_offsets[0], 0);
    assert_eq!(Pmo::parse(&m.to_bytes().unwrap()).unwrap(), m);
    m.meshes[1].clear();
    m.pack();
    assert_ne!(m.header.mesh_offsets[0], 0);
    assert_eq!(Pmo::parse(&m.to_bytes().unwrap()).unwrap(), m);
}

#[test]
fn ge_decoding_of_pmo_vertices() {
    // u8 weights x2, u16 uv, 8888 colour, s16 position: the GE layout is
    // weights 0-1, uv 2-5, colour 8-11, position 12-17, stride 20.
    let vt = vtype(2, 7, 0, 2, 1, 2, 0, 1);
    let mut s = section(vt, 3 << 28, 1, vec![], true, 0, 0);
    assert_eq!(s.vertex_size, 20);
    let mut v = vec![0u8; 20];
    v[0] = 128;
    v[1] = 64;
    v[2..4].copy_from_slice(&0x8000u16.to_le_bytes());
    v[4..6].copy_from_slice(&0x4000u16.to_le_bytes());
    v[8..12].copy_from_slice(&[1, 2, 3, 4]);
    v[12..14].copy_from_slice(&(-32768i16).to_le_bytes());
    v[14..16].copy_from_slice(&16384i16.to_le_bytes());
    v[16..18].copy_from_slice(&1i16.to_le_bytes());
    s.vertices = v;
    let d = s.decode(&DecodeParams::default());
    assert_eq!(d[0].weights[..2], [1.0, 0.5]);
    assert_eq!(d[0].uv, [1.0, 0.5]);
    assert_eq!(d[0].color, [1, 2, 3, 4]);
    assert_eq!(d[0].pos, [-1.0, 0.5, 1.0 / 32768.0]);
    // Uniform diffuse colour feeds colourless vertices.
    let u = section(vtype(0, 0, 0, 3, 0, 1, 0, 1), FLAG_UNIFORM_DIFFUSE, 1, vec![], false, 0, 0);
    assert_eq!(u.decode(&DecodeParams::default())[0].color, [0x80, 0x80, 0x80, 0xFF]);
}

fn small() -> Pmo {
    let s0 = section(vtype(2, 0, 0, 3, 1, 4, 0, 1), FLAG_UNIFORM_DIFFUSE | 4 << 28, 6, vec![3, 3], true, 1, 5);
    let s1 = section(vtype(1, 7, 0, 2, 1, 2, 0, 1), 3 << 28, 3, vec![], true, 0, 6);
    model([vec![s0], vec![s1]], true, 2)
}

fn le32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

#[test]
fn truncated_at_every_length_is_an_error_naming_an_offset() {
    for m in [small(), model([all_formats(false), vec![]], false, 3)] {
        let b = m.to_bytes().unwrap();
        for n in 0..b.len() {
            let e = Pmo::parse(&b[..n]).expect_err("truncated file parsed");
            assert!(e.to_string().contains("offset 0x"), "{n}: {e}");
        }
    }
}

#[test]
fn bad_input_errors() {
    let m = small();
    let b = m.to_bytes().unwrap();
    let m0 = m.header.mesh_offsets[0] as usize;
    let parse = |f: &dyn Fn(&mut Vec<u8>)| {
        let mut c = b.clone();
        f(&mut c);
        Pmo::parse(&c).unwrap_err()
    };
    assert!(matches!(parse(&|c| c[1] = b'X'), PmoError::BadMagic { offset: 0, .. }));
    assert!(matches!(parse(&|c| le32(c, 0x10, 0x0100_0000)), PmoError::OffsetOutOfRange { offset: 0x10, .. }));
    assert!(matches!(parse(&|c| le32(c, 0x1C, u32::MAX)), PmoError::OffsetOutOfRange { offset: 0x1C, .. }));
    assert!(matches!(parse(&|c| le32(c, 0x0C, 0x7FFF_FFFF)), PmoError::OffsetOutOfRange { offset: 0x0C, .. }));
    assert!(matches!(parse(&|c| le32(c, 0xA0, 0x00FF_FFFF)), PmoError::OffsetOutOfRange { offset: 0xA0, .. }));
    assert!(matches!(parse(&|c| le32(c, 0x10, m0 as u32 + 2)), PmoError::Misaligned { offset: 0x10, .. }));
    let tid = parse(&|c| c[m0 + 2] = 2);
    assert_eq!(tid, PmoError::TextureIdOutOfRange { offset: m0 + 2, id: 2, count: 2 });
    assert!(matches!(parse(&|c| c[m0 + 3] += 4), PmoError::VertexSize { offset, .. } if offset == m0 + 3));
    // Vertex count far beyond the file.
    assert!(matches!(parse(&|c| c[m0 + 1] = 0x7F), PmoError::AbsurdCount { offset, .. } if offset == m0));
    // A strip length that does not add up.
    assert!(matches!(parse(&|c| c[m0 + 24] = 4), PmoError::StripSum { .. }));
    // One strip fewer: vertex data at 2 mod 4 with float positions.
    let mis = parse(&|c| {
        c[m0 + 9] = 1;
        c[m0 + 24] = 6;
    });
    assert!(matches!(mis, PmoError::Misaligned { what: "vertex data", .. }), "{mis}");
    let sk = m.header.skeleton_offset as usize;
    assert!(matches!(parse(&|c| le32(c, sk + 8, 0x10_0000)), PmoError::AbsurdCount { offset, .. } if offset == sk + 8));
    assert!(matches!(parse(&|c| c[sk] = 0), PmoError::BadMagic { offset, .. } if offset == sk));
    assert!(matches!(parse(&|c| le32(c, 0x0C, sk as u32 + 2)), PmoError::Misaligned { offset: 0x0C, .. }));
    let t = m.textures[0].tim2_offset as usize;
    assert!(matches!(parse(&|c| c[t] = 0), PmoError::Tim2 { offset: 0xA0, index: 0, .. }));
    for e in [tid, mis] {
        assert!(e.to_string().contains("offset 0x"), "{e}");
    }
}

#[test]
fn writer_rejects_what_the_parser_would() {
    let mut m = small();
    m.meshes[0][0].vertex_size += 1;
    assert!(m.to_bytes().is_err());
    let mut m = small();
    m.meshes[0][0].texture_id = 9;
    assert!(m.to_bytes().is_err());
    let mut m = small();
    m.meshes[0][0].joints = None;
    assert!(m.to_bytes().is_err());
    let mut m = small();
    m.header.mesh_offsets[1] = m.header.mesh_offsets[0];
    assert!(m.to_bytes().is_err());
    let mut m = small();
    m.meshes[0][0].strips = vec![3, 2, 1];
    assert!(m.to_bytes().is_err());
}

fn arb_section(skinned: bool) -> impl Strategy<Value = Section> {
    (
        (0u32..4, prop::sample::select(vec![0u32, 4, 5, 6, 7]), 0u32..4, 0u32..4),
        (0u32..4, 1u32..9, 0u32..4, 1u32..9, any::<bool>()),
        (any::<bool>(), any::<bool>(), 0u32..8, any::<u8>(), any::<u16>()),
        (prop::collection::vec(1u16..12, 0..6), 1usize..20),
        any::<u8>(),
    )
        .prop_filter_map(
            "stride fits a byte",
            move |(
                (tc, col, nrm, pos),
                (wt, wc, idx, morph, through),
                (uni, b25, prim, group, attr),
                (strips, n),
                seed,
            )| {
                let wt = if skinned { wt } else { 0 };
                let vt = vtype(tc, col, nrm, pos, wt, wc, idx, morph) | u32::from(through) << 23;
                let layout = VertexLayout::new(vt);
                if layout.stride > 255 {
                    return None;
                }
                let extra = if uni { FLAG_UNIFORM_DIFFUSE } else { 0 } | if b25 { FLAG_BIT25 } else { 0 } | prim << 28;
                let mut strips = strips;
                let prefix = 12 + 8 * usize::from(skinned) + 4 * usize::from(uni) + 2 * strips.len();
                if prefix % layout.align as usize != 0 {
                    strips.pop();
                }
                let n = if strips.is_empty() { n } else { strips.iter().map(|&s| usize::from(s)).sum() };
                let mut s = section(vt, extra, n, strips, skinned, seed % 3, seed);
                s.group = group;
                s.attribute = attr;
                Some(s)
            },
        )
}

fn arb_pmo() -> impl Strategy<Value = Pmo> {
    any::<bool>().prop_flat_map(|skinned| {
        (
            prop::collection::vec(arb_section(skinned), 0..5),
            prop::collection::vec(arb_section(skinned), 0..4),
            -1000.0f32..1000.0,
        )
            .prop_map(move |(l0, l1, scale)| {
                let mut m = model([l0, l1], skinned, 3);
                m.header.model_scale = scale;
                m
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn prop_parse_write_round_trip(m in arb_pmo()) {
        let bytes = m.to_bytes().unwrap();
        prop_assert_eq!(Pmo::parse(&bytes).unwrap(), m);
    }

    #[test]
    fn prop_corrupt_bytes_never_panic(m in arb_pmo(), at in any::<prop::sample::Index>(), val in any::<u8>()) {
        let mut bytes = m.to_bytes().unwrap();
        let i = at.index(bytes.len());
        bytes[i] = val;
        let _ = Pmo::parse(&bytes);
    }
}

// ---- sample files (not committed; skipped when absent) ----

pub(crate) fn sample_dir() -> Option<std::path::PathBuf> {
    crate::shared::sample("bbs-pmo")
}

pub(crate) fn sample(name: &str) -> Option<Vec<u8>> {
    let p = sample_dir()?.join(name);
    match std::fs::read(&p) {
        Ok(b) => Some(b),
        Err(e) => {
            eprintln!("skipping: {}: {e}", p.display());
            None
        }
    }
}

#[test]
fn sample_dummy_facts_and_byte_identical_rewrite() {
    let Some(b) = sample("bbs-dummy.pmo") else { return };
    let m = Pmo::parse(&b).unwrap();
    assert_eq!((m.header.number, m.header.group, m.header.version, m.header.flag), (1, 1, 3, 0x8000));
    assert_eq!(m.header.mesh_offsets, [0xC0, 0]);
    assert!(m.skeleton.is_none());
    assert_eq!((m.header.vertex_count, m.header.triangle_count), (544, 512));
    assert_eq!(m.counts(), (544, 512));
    assert_eq!(m.textures.len(), 1);
    assert_eq!(m.textures[0].name(), "Dummy_tex02");
    assert_eq!(m.textures[0].tim2_offset, 0x2300);
    let s = &m.meshes[0];
    assert_eq!(s.len(), 1);
    assert_eq!(s[0].vertex_flags, 0x4300_0182);
    assert_eq!(s[0].diffuse, Some(0xFF80_8080));
    assert_eq!(s[0].strips, vec![34; 16]);
    assert_eq!(s[0].vertex_size, 16);
    let tim = m.textures[0].parse_tim2().unwrap().unwrap();
    let p = &tim.pictures[0];
    assert_eq!((p.width, p.height, p.image_type, p.clut_type, p.clut_colors), (512, 512, 5, 3, 256));
    assert_eq!(m.to_bytes().unwrap(), b, "byte-identical rewrite");
}

fn check_sample(name: &str, sections: [usize; 2], vertices: usize, joints: Option<usize>) -> Option<Pmo> {
    let b = sample(name)?;
    let m = Pmo::parse(&b).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!([m.meshes[0].len(), m.meshes[1].len()], sections, "{name} sections");
    assert_eq!(m.counts().0, vertices, "{name} vertices");
    assert_eq!(usize::from(m.header.vertex_count), vertices, "{name} header vertex count");
    assert_eq!(m.counts().1, usize::from(m.header.triangle_count), "{name} triangle count");
    assert_eq!(m.skeleton.as_ref().map(|s| s.joints.len()), joints, "{name} joints");
    for t in &m.textures {
        t.parse_tim2().unwrap().unwrap();
    }
    assert_eq!(m.to_bytes().unwrap(), b, "{name}: byte-identical rewrite");
    if let Some(s) = &m.skeleton {
        check_bind_pose(s);
    }
    Some(m)
}

/// Chaining local bind matrices down the hierarchy and multiplying by the inverse global
/// bind matrix gives the identity.
fn check_bind_pose(s: &Skeleton) {
    let mut global = Vec::<glam::Mat4>::with_capacity(s.joints.len());
    for (i, j) in s.joints.iter().enumerate() {
        assert_eq!(j.index as usize, i);
        let local = glam::Mat4::from_cols_array(&j.local);
        let g = match j.parent_index() {
            Some(p) => {
                assert!(p < i, "parent precedes child");
                global[p] * local
            }
            None => local,
        };
        let id = g * glam::Mat4::from_cols_array(&j.inverse_global);
        let err = (id - glam::Mat4::IDENTITY).to_cols_array().iter().fold(0f32, |a, v| a.max(v.abs()));
        assert!(err < 1e-5, "joint {i} ({}): |G * inv - I| = {err}", j.name());
        global.push(g);
    }
}

#[test]
fn sample_p01ex00() {
    let Some(m) = check_sample("p01ex00.pmo", [46, 8], 3465, Some(53)) else {
        return;
    };
    assert_eq!(m.header.mesh_offsets, [0x100, 0xC5C0]);
    assert_eq!(m.header.skeleton_offset, 0x1FD80);
    assert!((m.header.model_scale - 1.694_461_3).abs() < 1e-6);
    let sk = m.skeleton.as_ref().unwrap();
    let unskinned: Vec<usize> = (0..53).filter(|&i| sk.joints[i].skin().is_none()).collect();
    assert_eq!(unskinned, vec![0, 1, 19, 29]);
    let names: Vec<String> = m.textures.iter().map(TextureInfo::name).collect();
    assert_eq!(names, ["p01ex00_00", "p01ex00_E", "p01ex00_M"]);
    for (_, s) in m.sections() {
        let l = s.layout();
        assert_eq!(l.vtype.position, ge::geom::NumFormat::Short);
        assert_eq!(l.vtype.weight, ge::geom::NumFormat::Byte);
        // u8 weights sum to exactly 128 (1.0 on the GE).
        for v in s.decode(&DecodeParams::default()) {
            assert_eq!(v.weights.iter().sum::<f32>(), 1.0);
        }
        assert!(s.joints.unwrap()[..usize::from(l.vtype.weight_count)].iter().all(|&j| usize::from(j) < 53));
    }
}

#[test]
fn sample_other_models() {
    check_sample("h03ex00.pmo", [103, 15], 5639, Some(106));
    check_sample("h_zz130.pmo", [184, 50], 8064, Some(233));
    check_sample("g53kg00.pmo", [39, 0], 5933, None);
    if let Some(m) = check_sample("g59dc00.pmo", [360, 30], 36004, None) {
        assert_eq!(m.header.mesh_offsets[1], 0xB77A0);
        assert_eq!(m.textures.len(), 63);
    }
}
