//! Textures, materials, hostile input and determinism of the glTF export (read-back of
//! geometry and animation is in `tests/gltf_export.rs`).

use super::*;
use crate::pam::{BoneChannels, Channel, ChannelKind, Keys, Pam};
use crate::pmo::{Header, TextureInfo};
use crate::synth::{self, tim2gen, TexKind};

fn decode_png(bytes: &[u8]) -> (u32, u32, Vec<[u8; 4]>) {
    let mut r = png::Decoder::new(std::io::Cursor::new(bytes)).read_info().unwrap();
    let mut buf = vec![0; r.output_buffer_size().unwrap()];
    let info = r.next_frame(&mut buf).unwrap();
    assert_eq!((info.color_type, info.bit_depth), (png::ColorType::Rgba, png::BitDepth::Eight));
    let px = buf[..info.buffer_size()].chunks_exact(4).map(|c| [c[0], c[1], c[2], c[3]]).collect();
    (info.width, info.height, px)
}

fn textures_only(textures: Vec<TextureInfo>) -> Model {
    let mut pmo =
        Pmo { header: Header::new(1.0), textures, meshes: [Vec::new(), Vec::new()], skeleton: None, file_size: 0 };
    pmo.pack();
    Model::from_pmo(pmo).unwrap()
}

#[test]
fn pngs_hold_every_texel_the_ge_samples() {
    // Every TIM2 kind, a non-power-of-two size with transparent holes and a square one; the
    // expected colours are the generator's hand-specified ones (GE 5551 expansion included).
    let mut cases = Vec::new();
    for k in TexKind::ALL {
        cases.push((k, 24, 12, true));
        cases.push((k, 16, 16, false));
    }
    let textures = cases
        .iter()
        .map(|&(k, w, h, holes)| {
            let tim2 = if holes { tim2gen::tim2_image_alpha(k, w, h) } else { tim2gen::tim2_image(k, w, h) };
            TextureInfo::new(k.name(), Some(tim2))
        })
        .collect();
    let doc = export(&textures_only(textures), "t", &[], "", &Options::default()).unwrap();
    assert_eq!(doc.pngs.len(), cases.len());
    for (png, &(k, w, h, holes)) in doc.pngs.iter().zip(&cases) {
        let (pw, ph, px) = decode_png(png);
        assert_eq!((pw, ph), (w, h), "{k:?}");
        assert_eq!(px, tim2gen::expected_rgba(k, w, h, holes), "{k:?} {w}x{h}");
    }
    // Non-power-of-two pictures clamp, the others repeat (the scene builder's TEXWRAP).
    let wraps: Vec<_> =
        doc.root.textures.iter().map(|t| doc.root.samplers[t.sampler.unwrap().value()].wrap_s).collect();
    assert!(matches!(wraps[0], Valid(json::texture::WrappingMode::ClampToEdge)));
    assert!(matches!(wraps[1], Valid(json::texture::WrappingMode::Repeat)));
}

#[test]
fn sample_pngs_equal_the_tim2_decoder() {
    // The GE's texel decode (the export) against the TIM2 module's own decoder.
    for f in ["p01ex00.pmo", "g59dc00.pmo", "jb_50.pmp"] {
        let Some(path) = crate::shared::sample(&format!("bbs-pmo/{f}")) else { continue };
        let bytes = std::fs::read(path).unwrap();
        let model = Model::from_bytes(&bytes).unwrap();
        let doc = export(&model, f, &[], "", &Options::default()).unwrap();
        // (name, picture) of every TIM2 in the file; the export holds the ones a model uses.
        let pictures: Vec<(String, crate::tim2::Picture)> = match crate::decode::Parsed::parse(&bytes).unwrap() {
            crate::decode::Parsed::Pmo(p) => {
                p.textures.iter().map(|t| (t.name(), t.parse_tim2().unwrap().unwrap().pictures[0].clone())).collect()
            }
            crate::decode::Parsed::Pmp(p) => {
                p.textures.iter().map(|t| (t.name(), t.tim2.pictures[0].clone())).collect()
            }
        };
        assert!(!doc.pngs.is_empty(), "{f}");
        for (png, img) in doc.pngs.iter().zip(&doc.root.images) {
            let name = img.name.clone().unwrap();
            let pic = &pictures.iter().find(|(n, _)| *n == name).unwrap().1;
            let (w, h, px) = decode_png(png);
            assert_eq!((w, h), (u32::from(pic.width), u32::from(pic.height)), "{f} texture {name}");
            assert_eq!(px, pic.rgba(), "{f} texture {name}");
        }
    }
}

#[test]
fn materials_follow_the_section_state() {
    let find = |name: &str| synth::blend_models().into_iter().find(|(n, _)| *n == name).unwrap().1;
    let check = |name: &str, mode: json::material::AlphaMode, blend: &str, double: bool| {
        let doc = export(&Model::from_pmo(find(name)).unwrap(), name, &[], "", &Options::default()).unwrap();
        // The effect object is the material other than the opaque backdrop's.
        let m = doc.root.materials.last().unwrap();
        let x: serde_json::Value = serde_json::from_str(m.extras.as_ref().unwrap().get()).unwrap();
        assert_eq!(
            (m.alpha_mode, x["blend"].as_str().unwrap(), m.double_sided),
            (Valid(mode), blend, double),
            "{name}"
        );
    };
    use json::material::AlphaMode::*;
    check("semi_transparent", Blend, "semi-transparent", false);
    check("additive", Blend, "additive", false);
    check("subtractive", Blend, "subtractive", false);
    check("back_faces", Opaque, "opaque", true);
}

fn demo() -> (Model, Pam) {
    (Model::from_pmo(synth::demo_model()).unwrap(), synth::anim::column_animation())
}

fn export_err(model: &Model, pam: &Pam) -> GltfError {
    let a: Vec<_> = pam.animations.iter().enumerate().filter_map(|(i, a)| a.as_ref().map(|a| (i, a))).collect();
    match export(model, "m", &a, "bad.pam", &Options::default()) {
        Err(e) => e,
        Ok(_) => panic!("accepted"),
    }
}

#[test]
fn hostile_animations_are_refused() {
    let (model, mut pam) = demo();
    pam.animations[0].as_mut().unwrap().fps = 0;
    let e = export_err(&model, &pam).to_string();
    assert!(e.contains("bad.pam") && e.contains("0 fps"), "{e}");
    // A scale on a joint with children (bone 1 of the 4-joint chain).
    let (model, mut pam) = demo();
    let bones = &mut pam.animations[0].as_mut().unwrap().bones;
    bones[1].channels[ChannelKind::ScaleX as usize] = Some(Channel { max: 2.0, min: 2.0, keys: Keys::Constant });
    let e = export_err(&model, &pam).to_string();
    assert!(e.contains("bad.pam") && e.contains("bone 1") && e.contains("inherit"), "{e}");
    // Animations need a skeleton.
    let model = Model::from_pmo(synth::two_list_model()).unwrap();
    assert!(matches!(export_err(&model, &demo().1), GltfError::NoSkeleton { .. }));
    // More bones than joints: the extra bones are ignored, not indexed.
    let (model, mut pam) = demo();
    pam.animations[0].as_mut().unwrap().bones.extend((0..300).map(|_| BoneChannels::default()));
    let a = pam.animations[0].as_ref().unwrap();
    export(&model, "m", &[(0, a)], "ok.pam", &Options::default()).unwrap();
}

/// The file offset of vertex `v` of section 0 of list 0.
fn vertex_offset(pmo: &Pmo, v: usize) -> usize {
    let r = report(0, pmo, &DecodeOptions::default());
    r.sections[0].data_offset + v * usize::from(r.sections[0].section.vertex_size)
}

#[test]
fn hostile_models_are_refused_naming_the_offset() {
    let base = synth::skinned_model();
    // u8 weights (3 per vertex at the start of the vertex) that no longer sum to 128.
    let mut m = base.clone();
    m.meshes[0][0].vertices[0] = m.meshes[0][0].vertices[0].wrapping_add(7);
    let want = vertex_offset(&m, 0);
    match export(&Model::from_pmo(m).unwrap(), "m", &[], "", &Options::default()) {
        Err(GltfError::Weights { offset, what }) => {
            assert!(offset == want && what.contains("sum"), "{offset:#x} {what}")
        }
        Err(other) => panic!("{other}"),
        Ok(_) => panic!("accepted"),
    }
    // A weighted slot whose joint table entry is unused (0xFF) or names no joint.
    for entry in [0xFF, 200] {
        let mut m = base.clone();
        let s = &mut m.meshes[0][0];
        let w0 = usize::from(s.vertices[0]); // slot 0 of vertex 0 has weight
        assert!(w0 > 0);
        s.joints.as_mut().unwrap()[0] = entry;
        let e = export(&Model::from_pmo(m).unwrap(), "m", &[], "", &Options::default()).err().unwrap();
        assert!(matches!(e, GltfError::Weights { .. }) && e.to_string().contains("names no joint"), "{e}");
    }
    // Rectangles (PRIM 6) have no glTF primitive.
    let mut m = synth::two_list_model();
    m.meshes[0][0].vertex_flags = (m.meshes[0][0].vertex_flags & 0x0FFF_FFFF) | 6 << 28;
    let at = report(0, &m, &DecodeOptions::default()).sections[0].offset;
    let e = export(&Model::from_pmo(m).unwrap(), "m", &[], "", &Options::default()).err().unwrap();
    assert!(matches!(e, GltfError::Unsupported { offset, .. } if offset == at), "{e}");
    assert!(e.to_string().contains("rectangles"), "{e}");
    // A non-finite position (the GE's decoder turns stored NaNs into finite values, so the
    // decoded vertex is changed directly).
    let m = synth::two_list_model();
    let mut r = report(0, &m, &DecodeOptions::default());
    let s = &mut r.sections[0];
    s.vertices[1].pos[0] = f32::INFINITY;
    let at = s.data_offset + usize::from(s.section.vertex_size);
    let mut b = buffer::Builder::new();
    let e = mesh::primitive(&mut b, s, None, None, &Policy::default()).unwrap_err();
    assert!(matches!(e, GltfError::NotFinite { offset, .. } if offset == at), "{e}");
}

#[test]
fn bytes_do_not_depend_on_threads_or_runs() {
    let (model, pam) = demo();
    let a = [(0, pam.animations[0].as_ref().unwrap())];
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| {
            let doc = export(&model, "demo", &a, "anim.pam", &Options::default()).unwrap();
            (doc.glb().unwrap(), doc.gltf_files("demo").unwrap())
        })
    };
    let one = run(1);
    assert_eq!(one, run(4));
    assert_eq!(one, run(1));
    // The .gltf names only files it comes with.
    let (json, files) = &one.1;
    let root: json::Root = serde_json::from_slice(json).unwrap();
    let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    for uri in
        root.buffers.iter().filter_map(|b| b.uri.as_deref()).chain(root.images.iter().filter_map(|i| i.uri.as_deref()))
    {
        assert!(names.contains(&uri), "{uri} not in {names:?}");
    }
    // The .glb embeds its images.
    let glb = gltf::Gltf::from_slice(&one.0).unwrap();
    assert!(glb.images().all(|i| matches!(i.source(), gltf::image::Source::View { .. })));
    assert_eq!(glb.animations().count(), 1);
}

#[test]
fn translation_keys_are_the_union_of_the_axes_keys() {
    use crate::pam::{Animation, Key};
    let sparse = |frames: &[u16]| Channel {
        max: 1.0,
        min: 0.0,
        keys: Keys::Sparse(frames.iter().map(|&frame| Key { frame, value: frame * 1000 }).collect()),
    };
    let mut b = BoneChannels::default();
    b.channels[ChannelKind::TranslationX as usize] = Some(sparse(&[0, 10, 20]));
    b.channels[ChannelKind::TranslationY as usize] = Some(sparse(&[0, 5, 20]));
    b.channels[ChannelKind::TranslationZ as usize] = Some(Channel { max: 3.0, min: 3.0, keys: Keys::Constant });
    let a = Animation::new("x", 30, 21, vec![b]);
    use ChannelKind::*;
    assert_eq!(key_frames(&a, 0, [TranslationX, TranslationY, TranslationZ]), [0, 5, 10, 20]);
    assert_eq!(key_frames(&a, 0, [ScaleX, ScaleY, ScaleZ]), [0]);
    assert_eq!(key_frames(&a, 3, [ScaleX, ScaleY, ScaleZ]), [0]);
}
