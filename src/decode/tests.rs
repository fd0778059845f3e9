//! Decode listings of hand-encoded PMOs. Every section's vertex bytes are written here byte
//! by byte with hand-computed offsets (ge-reference §2.2), and the expected numbers are
//! computed from the encoded integers with the spec's formulas (§2.3 n/128, n/32768; §2.4
//! bit replication), never from the decoder. The snapshots pin the complete format.

use super::*;
use crate::pmo::{Header, Joint, Skeleton, TextureInfo, FLAG_UNIFORM_DIFFUSE, NO_JOINT};
use ge::scenes::vt;

fn sec(vtype: u32, prim: u32, vertices: Vec<u8>, size: u8, strips: Vec<u16>, joints: Option<[u8; 8]>) -> Section {
    assert_eq!(vertices.len() % usize::from(size), 0);
    Section {
        texture_id: 0,
        vertex_size: size,
        vertex_flags: vtype | prim << 28,
        group: 0,
        attribute: 0,
        joints,
        diffuse: None,
        strips,
        vertices,
    }
}

fn s16(xs: &[i16]) -> Vec<u8> {
    xs.iter().flat_map(|x| x.to_le_bytes()).collect()
}
fn u16s(xs: &[u16]) -> Vec<u8> {
    xs.iter().flat_map(|x| x.to_le_bytes()).collect()
}
fn f32s(xs: &[f32]) -> Vec<u8> {
    xs.iter().flat_map(|x| x.to_bits().to_le_bytes()).collect()
}
fn cat(parts: &[Vec<u8>]) -> Vec<u8> {
    parts.concat()
}

fn pmo(list0: Vec<Section>, list1: Vec<Section>, skeleton: Option<Skeleton>) -> Pmo {
    let mut m = Pmo {
        header: Header { number: 7, ..Header::new(1.5) },
        textures: vec![TextureInfo::new("ext", None)],
        meshes: [list0, list1],
        skeleton,
        file_size: 0,
    };
    m.pack();
    m
}

const COL5650: u16 = 0xA5F3;
const COL5551: [u16; 2] = [0x7C1F, 0x83E0];
const COL4444: u16 = 0x8F3C;

/// One section per unskinned vertex-format family, in list 0; the morph section in list 1.
fn families() -> Pmo {
    let t = 3;
    let mut l0 = vec![
        // pos s8: 3 bytes, no padding.
        sec(vt::POS_S8, t, vec![(-123i8) as u8, 110, 127], 3, vec![], None),
        sec(vt::POS_S16, t, s16(&[-12345, 32767, -32768]), 6, vec![], None),
        sec(vt::POS_F32, t, f32s(&[0.1, -2.5e7, 1e-40]), 12, vec![], None),
        // tc u8 @0, pos s8 @2: size 5.
        sec(vt::TC_U8 | vt::POS_S8, t, vec![200, 1, 0x80, 0, 64], 5, vec![], None),
        // tc u16 @0, pos s16 @4: size 10.
        sec(vt::TC_U16 | vt::POS_S16, t, cat(&[u16s(&[65535, 32768]), s16(&[1, -1, 16384])]), 10, vec![], None),
        // tc f32 @0, pos f32 @8: size 20.
        sec(vt::TC_F32 | vt::POS_F32, t, f32s(&[0.3, -1.5, 1.0, 2.0, 3.0]), 20, vec![], None),
        // colour @0, pos s16 @2: size 8.
        sec(vt::COL_5650 | vt::POS_S16, t, cat(&[u16s(&[COL5650]), s16(&[0, 0, 0])]), 8, vec![], None),
        sec(
            vt::COL_5551 | vt::POS_S16,
            t,
            cat(&[u16s(&[COL5551[0]]), s16(&[1, 2, 3]), u16s(&[COL5551[1]]), s16(&[4, 5, 6])]),
            8,
            vec![],
            None,
        ),
        sec(vt::COL_4444 | vt::POS_S16, t, cat(&[u16s(&[COL4444]), s16(&[0, 0, 0])]), 8, vec![], None),
        // 8888 @0, pos f32 @4: size 16.
        sec(vt::COL_8888 | vt::POS_F32, t, cat(&[vec![1, 2, 3, 4], f32s(&[0.5, -0.5, 0.25])]), 16, vec![], None),
        // nrm s8 @0, pos s8 @3: size 6.
        sec(vt::NRM_S8 | vt::POS_S8, t, vec![0x80, 0, 127, 1, 2, 3], 6, vec![], None),
        sec(vt::NRM_S16 | vt::POS_S16, t, s16(&[-32768, 12345, 32767, 0, 0, 0]), 12, vec![], None),
        sec(vt::NRM_F32 | vt::POS_F32, t, f32s(&[0.6, -0.8, 0.0, 0.0, 0.0, 0.0]), 24, vec![], None),
        // Two strips of 3 and 4 s16 positions (prefix 16 bytes, 2-byte aligned data).
        sec(vt::POS_S16, 4, s16(&(0..21).map(|i| i * 100 - 1000).collect::<Vec<_>>()), 6, vec![3, 4], None),
    ];
    // Uniform diffuse, no vertex colour: tc u16 @0, pos s16 @4.
    let mut u = sec(
        vt::TC_U16 | vt::POS_S16 | FLAG_UNIFORM_DIFFUSE,
        t,
        cat(&[u16s(&[0x4000, 0x2000]), s16(&[3, 2, 1])]),
        10,
        vec![],
        None,
    );
    u.diffuse = Some(0xFF40_80C0);
    u.attribute = 0x0034;
    l0.push(u);
    // Morph ×2: target size 6, stride 12.
    let morph = sec(vt::POS_S16 | vt::morphs(2), t, s16(&[100, 200, 300, -100, -200, -300]), 12, vec![], None);
    pmo(l0, vec![morph], None)
}

fn identity() -> [f32; 16] {
    glam::Mat4::IDENTITY.to_cols_array()
}

fn skinned() -> Pmo {
    let j = |i: u32| Joint {
        index: i,
        parent: if i == 0 { NO_JOINT } else { i - 1 },
        skin_index: i,
        reserved: 0,
        name: *b"j\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0",
        local: identity(),
        inverse_global: identity(),
    };
    let sk = Skeleton { unknown: 0, skinned_count: 2, skin_start: 0, joints: vec![j(0), j(1)] };
    let table = Some([0, 1, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]);
    let l0 = vec![
        // 3 u8 weights @0, tc u8 @3, pos s16 @6 (aligned from 5): size 12.
        sec(
            vt::W_U8 | vt::weights(3) | vt::TC_U8 | vt::POS_S16,
            3,
            cat(&[vec![100, 28, 0, 64, 32, 0], s16(&[-12345, 0, 7])]),
            12,
            vec![],
            table,
        ),
        // 2 u16 weights @0, pos s16 @4: size 10.
        sec(
            vt::W_U16 | vt::weights(2) | vt::POS_S16,
            3,
            cat(&[u16s(&[32768, 0x1234]), s16(&[1, 2, 3])]),
            10,
            vec![],
            table,
        ),
        // 2 f32 weights @0, 8888 @8, pos f32 @12: size 24.
        sec(
            vt::W_F32 | vt::weights(2) | vt::COL_8888 | vt::POS_F32,
            3,
            cat(&[f32s(&[0.75, 0.25]), vec![0x10, 0x20, 0x30, 0x80], f32s(&[1.0, -1.0, 0.5])]),
            24,
            vec![],
            table,
        ),
    ];
    pmo(l0, vec![], Some(sk))
}

fn ex(x: f32) -> String {
    format!("{x:?} [0x{:08x}]", x.to_bits())
}
fn ex3(name: &str, xs: [f32; 3]) -> String {
    format!("{name}=({}, {}, {})", ex(xs[0]), ex(xs[1]), ex(xs[2]))
}
fn ex2(name: &str, xs: [f32; 2]) -> String {
    format!("{name}=({}, {})", ex(xs[0]), ex(xs[1]))
}
fn col(c: [u8; 4]) -> String {
    format!("col=({}, {}, {}, {}) [0x{:08x}]", c[0], c[1], c[2], c[3], u32::from_le_bytes(c))
}
fn rep5(v: u16) -> u8 {
    let v = (v & 31) as u8;
    (v << 3) | (v >> 2)
}
fn rep6(v: u16) -> u8 {
    let v = (v & 63) as u8;
    (v << 2) | (v >> 4)
}
fn rep4(v: u16) -> u8 {
    (v & 15) as u8 * 17
}

fn text(m: &Pmo, opts: &Options) -> String {
    write_text("pmo", &[report(0, m, opts)])
}

fn snapshot_settings() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path("../snapshots");
    s.set_prepend_module_to_snapshot(false);
    s
}

#[test]
fn families_text_values_are_the_spec_values() {
    let m = families();
    assert_eq!(Pmo::parse(&m.to_bytes().unwrap()).unwrap(), m);
    let out = text(&m, &Options::default());
    let want = [
        ex3("pos", [-123.0 / 128.0, 110.0 / 128.0, 127.0 / 128.0]),
        ex3("pos", [-12345.0 / 32768.0, 32767.0 / 32768.0, -1.0]),
        ex3("pos", [0.1, -2.5e7, 1e-40]),
        ex2("uv", [200.0 / 128.0, 1.0 / 128.0]),
        ex3("pos", [-1.0, 0.0, 64.0 / 128.0]),
        ex2("uv", [65535.0 / 32768.0, 1.0]),
        ex3("pos", [1.0 / 32768.0, -1.0 / 32768.0, 0.5]),
        ex2("uv", [0.3, -1.5]),
        col([rep5(COL5650), rep6(COL5650 >> 5), rep5(COL5650 >> 11), 255]),
        col([rep5(COL5551[0]), rep5(COL5551[0] >> 5), rep5(COL5551[0] >> 10), 0]),
        col([rep5(COL5551[1]), rep5(COL5551[1] >> 5), rep5(COL5551[1] >> 10), 255]),
        col([rep4(COL4444), rep4(COL4444 >> 4), rep4(COL4444 >> 8), rep4(COL4444 >> 12)]),
        col([1, 2, 3, 4]),
        ex3("nrm", [-1.0, 0.0, 127.0 / 128.0]),
        ex3("nrm", [-1.0, 12345.0 / 32768.0, 32767.0 / 32768.0]),
        ex3("nrm", [0.6, -0.8, 0.0]),
        ex2("uv", [0.5, 0.25]),
        ex3("pos", [3.0 / 32768.0, 2.0 / 32768.0, 1.0 / 32768.0]),
        // Morph targets alone, and the blend with the default MORPHWEIGHTs (1, 0).
        format!("morph0 {}", ex3("pos", [100.0 / 32768.0, 200.0 / 32768.0, 300.0 / 32768.0])),
        format!("morph1 {}", ex3("pos", [-100.0 / 32768.0, -200.0 / 32768.0, -300.0 / 32768.0])),
    ];
    for w in &want {
        assert!(out.contains(w.as_str()), "missing {w}\n{out}");
    }
    // Hand-checked bit patterns: 127/128 = 0x3f7e0000, -1 = 0xbf800000, 0.1f = 0x3dcccccd.
    for w in ["0.9921875 [0x3f7e0000]", "-1.0 [0xbf800000]", "0.1 [0x3dcccccd]", "1e-40 [0x000116c2]"] {
        assert!(out.contains(w), "{w}");
    }
    // Layout: header 0xA0 + one texture record 0x20 = 0xC0; section prefix 12 bytes.
    assert!(out.contains("section list=0 index=0 @0xc0 data@0xcc vertices=1"), "{out}");
    // Second section: 0xC0 + round4(12 + 3) = 0xD0.
    assert!(out.contains("section list=0 index=1 @0xd0 data@0xdc"));
    assert!(out.contains("v0 @0xcc [85 6e 7f]"));
    assert!(out.contains("prim=4 triangle_strip strips=[3,4]"));
    assert!(out.contains("attribute=0x0034 [BACK TEXALPHA BLEND_SEMITRANS]"));
    assert!(out.contains("diffuse=(192, 128, 64, 255) [0xff4080c0]"));
    assert!(out.contains("vtype=0x000100 tc=none col=none nrm=none pos=s16@0"));
    let blended = ex3("pos", [100.0 / 32768.0, 200.0 / 32768.0, 300.0 / 32768.0]);
    assert!(out.contains(&format!("] {blended}\n    morph0")), "{out}");
    snapshot_settings().bind(|| insta::assert_snapshot!("decode_families_text", out));
}

#[test]
fn morph_weights_blend() {
    let m = families();
    let opts =
        Options { list: Some(1), morph_weights: [0.5, 0.25, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], ..Options::default() };
    let out = text(&m, &opts);
    // (0.5·100 + 0.25·(−100)) / 32768 = 25/32768, accumulated before scaling (§2.8).
    assert!(out.contains(&ex3("pos", [25.0 / 32768.0, 50.0 / 32768.0, 75.0 / 32768.0])), "{out}");
    assert_eq!(out.matches("section ").count(), 1);
}

#[test]
fn skinned_text_and_json() {
    let m = skinned();
    assert_eq!(Pmo::parse(&m.to_bytes().unwrap()).unwrap(), m);
    let out = text(&m, &Options::default());
    for w in [
        format!("w=({}, {}, {})", ex(100.0 / 128.0), ex(28.0 / 128.0), ex(0.0)),
        ex2("uv", [64.0 / 128.0, 32.0 / 128.0]),
        ex3("pos", [-12345.0 / 32768.0, 0.0, 7.0 / 32768.0]),
        format!("w=({}, {})", ex(1.0), ex(f32::from(0x1234u16) / 32768.0)),
        format!("w=({}, {})", ex(0.75), ex(0.25)),
        col([0x10, 0x20, 0x30, 0x80]),
        "joints=[0,1,--,--,--,--,--,--]".to_string(),
        "w=u8x3@0".to_string(),
        "pos=s16@6".to_string(),
        "size=12 stride=12".to_string(),
    ] {
        assert!(out.contains(w.as_str()), "missing {w}\n{out}");
    }
    snapshot_settings().bind(|| insta::assert_snapshot!("decode_skinned_text", out));

    let js = write_json("pmo", &[report(0, &m, &Options::default())]);
    let v: serde_json::Value = serde_json::from_str(&js).unwrap();
    let s0 = &v["models"][0]["sections"][0];
    assert_eq!(s0["joints"], serde_json::json!([0, 1, 255, 255, 255, 255, 255, 255]));
    let w = &s0["vertices"][0]["weights"];
    assert_eq!(w[0]["bits"], format!("0x{:08x}", (100.0f32 / 128.0).to_bits()));
    assert_eq!(w[0]["value"].as_f64().unwrap() as f32, 100.0 / 128.0);
    let pos = &s0["vertices"][0]["pos"][0];
    assert_eq!(pos["bits"], format!("0x{:08x}", (-12345.0f32 / 32768.0).to_bits()));
    // Shortest f32 digits, not the f64 widening.
    assert!(js.contains(&format!("\"value\": {:?}", -12345.0f32 / 32768.0)));
    assert_eq!(s0["vertices"][0]["bytes"], "64 1c 00 40 20 00 c7 cf 00 00 07 00");
    assert_eq!(v["models"][0]["sections"][2]["vertices"][0]["color"]["hex"], "0x80302010");
    snapshot_settings().bind(|| insta::assert_snapshot!("decode_skinned_json", js));
}

#[test]
fn nan_and_infinity_keep_their_bits_in_json() {
    let s = sec(vt::POS_F32, 3, f32s(&[f32::NAN, f32::INFINITY, -0.0]), 12, vec![], None);
    let m = pmo(vec![s], vec![], None);
    let js = write_json("pmo", &[report(0, &m, &Options::default())]);
    let v: serde_json::Value = serde_json::from_str(&js).unwrap();
    let pos = &v["models"][0]["sections"][0]["vertices"][0]["pos"];
    // The GE decoder's own treatment of NaN/∞ positions is what is listed; the bits say exactly.
    let d = m.meshes[0][0].decode(&DecodeParams::default())[0].pos;
    for k in 0..3 {
        assert_eq!(pos[k]["bits"], format!("0x{:08x}", d[k].to_bits()));
    }
}

#[test]
fn selection_and_names() {
    let m = families();
    let out = text(&m, &Options { section: Some(2), list: Some(0), ..Options::default() });
    assert_eq!(out.matches("section ").count(), 1);
    assert!(out.contains("index=2"));
    assert_eq!(prim_name(4), "triangle_strip");
    assert_eq!(attribute_names(0x0C61), ["NOMATERIAL", "BLEND_SUB", "DROPSHADOW", "ENVMAP"]);
    assert_eq!(attribute_names(0x1000), ["0x1000"]);
}

#[test]
fn unknown_and_truncated_input() {
    assert!(matches!(decode_file(b"XYZ", &Options::default(), false), Err(DecodeError::UnknownMagic { .. })));
    let b = skinned().to_bytes().unwrap();
    let e = decode_file(&b[..b.len() - 1], &Options::default(), false).unwrap_err();
    assert!(e.to_string().contains("offset 0x"), "{e}");
}

#[test]
fn every_synthetic_model_decodes() {
    for (name, m) in crate::synth::format_family_models() {
        let bytes = m.to_bytes().unwrap();
        let out = decode_file(&bytes, &Options::default(), false).unwrap();
        assert_eq!(
            out.lines().filter(|l| l.starts_with("  v") && !l.starts_with("  vtype")).count(),
            m.counts().0,
            "{name}"
        );
        let js = decode_file(&bytes, &Options::default(), true).unwrap();
        serde_json::from_str::<serde_json::Value>(&js).unwrap();
    }
}

#[test]
fn sample_files_decode_with_their_vertex_totals() {
    let Some(dir) = crate::pmo::tests::sample_dir() else { return };
    let totals = [
        ("p01ex00.pmo", Some(3465)),
        ("h03ex00.pmo", Some(5639)),
        ("h_zz130.pmo", Some(8064)),
        ("g53kg00.pmo", Some(5933)),
        ("g59dc00.pmo", Some(36004)),
        ("bbs-dummy.pmo", Some(544)),
        ("bbs-testmap.pmp", None),
        ("jb_50.pmp", None),
    ];
    for (name, total) in totals {
        let Ok(b) = std::fs::read(dir.join(name)) else {
            eprintln!("skipping {name}: not found");
            continue;
        };
        let parsed = Parsed::parse(&b).unwrap_or_else(|e| panic!("{name}: {e}"));
        let reports = parsed.reports(&Options::default());
        let n: usize = reports.iter().flat_map(|m| &m.sections).map(|s| s.vertices.len()).sum();
        if let Some(t) = total {
            assert_eq!(n, t, "{name}");
        }
        assert!(n > 0, "{name}");
        let out = write_text(parsed.kind(), &reports);
        assert_eq!(out.lines().filter(|l| l.starts_with("  v") && !l.starts_with("  vtype")).count(), n, "{name}");
    }
}
