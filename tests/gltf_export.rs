//! Read-back of `psprender::gltf` exports with the `gltf` crate, checked against independent
//! sources: the GE vertex decoder (`decode::report`, what `psprender decode` prints), the
//! GE-free CPU skinning of the PAM pose (`pam::pose::skin_positions`), the derived reference
//! bounding boxes of `test.pam.reference.json`, and the synthetic textures' hand-specified
//! colours (`synth::tim2gen::expected_rgba`). The glTF evaluation here (TRS nodes, LINEAR
//! samplers with slerp for rotations, joint · inverse-bind skinning) follows the glTF 2.0
//! specification, not the exporter's code.

use glam::{Mat4, Quat, Vec3};
use gltf::Semantic;
use psprender::decode::{report, Options as DecodeOptions};
use psprender::gltf::{export, mesh::doubled, Export, Options};
use psprender::pam::pose::{pose_globals, skin_matrices, skin_positions, PoseOptions};
use psprender::pam::{Animation, Pam};
use psprender::pmo::Pmo;
use psprender::scene::Model;
use psprender::shared::sample;
use psprender::synth;
use std::collections::BTreeMap;

struct Doc {
    doc: gltf::Document,
    blob: Vec<u8>,
}

fn open(glb: &[u8]) -> Doc {
    let g = gltf::Gltf::from_slice(glb).expect("the exported .glb parses");
    Doc { doc: g.document, blob: g.blob.expect("a BIN chunk") }
}

fn export_pmo(pmo: &Pmo, name: &str, anims: &[(usize, &Animation)]) -> Export {
    let model = Model::from_pmo(pmo.clone()).unwrap();
    export(&model, name, anims, "anim.pam", &Options::default()).unwrap()
}

/// (list, section) a primitive came from, from its extras.
fn prim_id(p: &gltf::Primitive) -> (usize, usize) {
    let v: serde_json::Value = serde_json::from_str(p.extras().as_ref().expect("primitive extras").get()).unwrap();
    (v["list"].as_u64().unwrap() as usize, v["section"].as_u64().unwrap() as usize)
}

fn floats<const N: usize>(d: &Doc, a: gltf::Accessor) -> Vec<[f32; N]>
where
    [f32; N]: gltf::accessor::Item,
{
    gltf::accessor::Iter::<[f32; N]>::new(a, |_| Some(&d.blob[..])).unwrap().collect()
}

fn sample_models() -> Vec<(String, Pmo)> {
    let mut v = Vec::new();
    for name in ["p01ex00", "h03ex00", "h_zz130", "g53kg00", "g59dc00", "bbs-dummy"] {
        if let Some(p) = sample(&format!("bbs-pmo/{name}.pmo")) {
            v.push((name.to_string(), Pmo::parse(&std::fs::read(p).unwrap()).unwrap()));
        }
    }
    v
}

fn synthetic_models() -> Vec<(String, Pmo)> {
    let mut v: Vec<(String, Pmo)> =
        synth::format_family_models().into_iter().map(|(n, p)| (n.to_string(), p)).collect();
    v.extend(synth::blend_models().into_iter().map(|(n, p)| (n.to_string(), p)));
    v.push(("skinned".into(), synth::skinned_model()));
    v.push(("two_list".into(), synth::two_list_model()));
    v.push(("demo".into(), synth::demo_model()));
    v
}

/// Every attribute of every primitive equals the GE decoder's value bit for bit (before the
/// model scale); every section that draws something is one primitive.
fn check_vertices(name: &str, pmo: &Pmo) -> usize {
    let d = open(&export_pmo(pmo, name, &[]).glb().unwrap());
    let rep = report(0, pmo, &DecodeOptions::default());
    let by_id: BTreeMap<(usize, usize), _> = rep.sections.iter().map(|s| ((s.list, s.index), s)).collect();
    let mut seen = 0;
    let bits3 = |v: &[[f32; 3]]| v.iter().map(|a| a.map(f32::to_bits)).collect::<Vec<_>>();
    for mesh in d.doc.meshes() {
        for p in mesh.primitives() {
            let id = prim_id(&p);
            let r = by_id[&id];
            let what = format!("{name} {id:?}");
            seen += 1;
            let reader = p.reader(|_| Some(&d.blob[..]));
            let pos: Vec<[f32; 3]> = reader.read_positions().unwrap().collect();
            let want: Vec<[f32; 3]> = r.vertices.iter().map(|v| v.pos).collect();
            assert_eq!(bits3(&pos), bits3(&want), "{what}: positions");
            let vt = &r.layout.vtype;
            if vt.has_texcoord() {
                let uv: Vec<[f32; 2]> = reader.read_tex_coords(0).unwrap().into_f32().collect();
                let want: Vec<[u32; 2]> = r.vertices.iter().map(|v| v.uv.map(f32::to_bits)).collect();
                assert_eq!(uv.iter().map(|a| a.map(f32::to_bits)).collect::<Vec<_>>(), want, "{what}: uvs");
            }
            if vt.has_normal() {
                let raw = floats::<3>(&d, p.get(&Semantic::Extras("GE_NORMAL".into())).unwrap());
                let want: Vec<[f32; 3]> = r.vertices.iter().map(|v| v.normal).collect();
                assert_eq!(bits3(&raw), bits3(&want), "{what}: decoded normals");
                for (n, w) in reader.read_normals().unwrap().zip(&want) {
                    let (n, w) = (Vec3::from(n), Vec3::from(*w));
                    assert!((n.length() - 1.0).abs() < 1e-6 && n.angle_between(w) < 1e-3, "{what}: normal {n} vs {w}");
                }
            }
            if vt.color != ge::geom::ColorFormat::None {
                let c: Vec<[u8; 4]> = reader.read_colors(0).unwrap().into_rgba_u8().collect();
                let want: Vec<[u8; 4]> = r.vertices.iter().map(|v| doubled(v.color, true)).collect();
                assert_eq!(c, want, "{what}: colours");
            }
            let wc = usize::from(vt.weight_count);
            if let (Some(table), true, Some(_)) = (r.section.joints, vt.has_weights(), &pmo.skeleton) {
                for set in 0..wc.div_ceil(4) as u32 {
                    let w: Vec<[f32; 4]> = reader.read_weights(set).unwrap().into_f32().collect();
                    let j: Vec<[u16; 4]> = reader.read_joints(set).unwrap().into_u16().collect();
                    for (i, v) in r.vertices.iter().enumerate() {
                        for c in 0..4 {
                            let k = 4 * set as usize + c;
                            let want = if k < wc { v.weights[k] } else { 0.0 };
                            assert_eq!(w[i][c].to_bits(), want.to_bits(), "{what} v{i} weight {k}");
                            if want != 0.0 {
                                assert_eq!(j[i][c], u16::from(table[k]), "{what} v{i} joint {k}");
                            }
                        }
                    }
                }
            } else {
                assert!(reader.read_weights(0).is_none(), "{what}: weights on an unskinned section");
            }
            // Index count: 3 per triangle the section draws.
            let idx = reader.read_indices().unwrap().into_u32().count();
            if matches!(r.section.prim() & 7, 3..=5) {
                assert_eq!(idx, 3 * r.section.triangle_count(), "{what}: indices");
            }
        }
    }
    let drawn = rep.sections.iter().filter(|s| s.section.triangle_count() > 0).count();
    assert_eq!(seen, drawn, "{name}: one primitive per drawing section");
    seen
}

#[test]
fn vertices_read_back_bit_for_bit() {
    let mut n = 0;
    for (name, pmo) in synthetic_models().into_iter().chain(sample_models()) {
        n += check_vertices(&name, &pmo);
    }
    assert!(n > 40, "{n} primitives checked");
}

/// Evaluate a LINEAR sampler at `t` (clamped at the ends) per the glTF spec: lerp for
/// vectors, slerp for quaternions.
fn eval_sampler(times: &[f32], t: f32, n: usize, lerp: impl Fn(usize, usize, f32) -> [f32; 4]) -> [f32; 4] {
    if t <= times[0] || n == 1 {
        return lerp(0, 0, 0.0);
    }
    if t >= times[n - 1] {
        return lerp(n - 1, n - 1, 0.0);
    }
    let k = times.partition_point(|&x| x <= t) - 1;
    lerp(k, k + 1, (t - times[k]) / (times[k + 1] - times[k]))
}

/// Global matrix of every node with animation `anim` evaluated at time `t`.
fn globals(d: &Doc, anim: Option<usize>, t: f32) -> Vec<Mat4> {
    let mut trs: Vec<(Vec3, Quat, Vec3)> = d
        .doc
        .nodes()
        .map(|n| {
            let (t, r, s) = n.transform().decomposed();
            (Vec3::from(t), Quat::from_array(r), Vec3::from(s))
        })
        .collect();
    if let Some(a) = anim.and_then(|i| d.doc.animations().nth(i)) {
        for ch in a.channels() {
            let r = ch.reader(|_| Some(&d.blob[..]));
            let times: Vec<f32> = r.read_inputs().unwrap().collect();
            let node = ch.target().node().index();
            use gltf::animation::util::ReadOutputs::*;
            match r.read_outputs().unwrap() {
                Translations(v) | Scales(v) => {
                    let v: Vec<[f32; 3]> = v.collect();
                    let x = eval_sampler(&times, t, v.len(), |a, b, f| {
                        Vec3::from(v[a]).lerp(Vec3::from(v[b]), f).extend(0.0).to_array()
                    });
                    let x = Vec3::new(x[0], x[1], x[2]);
                    if ch.target().property() == gltf::animation::Property::Translation {
                        trs[node].0 = x
                    } else {
                        trs[node].2 = x
                    }
                }
                Rotations(v) => {
                    let v: Vec<[f32; 4]> = v.into_f32().collect();
                    let q = eval_sampler(&times, t, v.len(), |a, b, f| {
                        Quat::from_array(v[a]).slerp(Quat::from_array(v[b]), f).to_array()
                    });
                    trs[node].1 = Quat::from_array(q);
                }
                MorphTargetWeights(_) => panic!("no morph targets are exported"),
            }
        }
    }
    let mut g = vec![Mat4::IDENTITY; trs.len()];
    fn walk(n: gltf::Node, parent: Mat4, trs: &[(Vec3, Quat, Vec3)], g: &mut [Mat4]) {
        let (t, r, s) = trs[n.index()];
        g[n.index()] = parent * Mat4::from_scale_rotation_translation(s, r, t);
        for c in n.children() {
            walk(c, g[n.index()], trs, g);
        }
    }
    for n in d.doc.default_scene().unwrap().nodes() {
        walk(n, Mat4::IDENTITY, &trs, &mut g);
    }
    g
}

/// World positions of every vertex, in the PMO's section order (list 0 then list 1), as a
/// glTF viewer would place them with `globals`.
fn world_positions(d: &Doc, g: &[Mat4]) -> Vec<Vec3> {
    let mut by_id: BTreeMap<(usize, usize), Vec<Vec3>> = BTreeMap::new();
    for node in d.doc.nodes() {
        let Some(mesh) = node.mesh() else { continue };
        let skin: Option<Vec<Mat4>> = node.skin().map(|s| {
            let ibm: Vec<Mat4> = s
                .reader(|_| Some(&d.blob[..]))
                .read_inverse_bind_matrices()
                .unwrap()
                .map(|m| Mat4::from_cols_array_2d(&m))
                .collect();
            s.joints().zip(ibm).map(|(j, ibm)| g[j.index()] * ibm).collect()
        });
        for p in mesh.primitives() {
            let r = p.reader(|_| Some(&d.blob[..]));
            let pos: Vec<Vec3> = r.read_positions().unwrap().map(Vec3::from).collect();
            let out = match &skin {
                None => pos.iter().map(|&x| g[node.index()].transform_point3(x)).collect(),
                Some(m) => {
                    let mut acc = vec![Vec3::ZERO; pos.len()];
                    for set in 0.. {
                        let (Some(w), Some(j)) = (r.read_weights(set), r.read_joints(set)) else { break };
                        for (i, (w, j)) in w.into_f32().zip(j.into_u16()).enumerate() {
                            for c in 0..4 {
                                acc[i] += w[c] * m[usize::from(j[c])].transform_point3(pos[i]);
                            }
                        }
                    }
                    acc
                }
            };
            by_id.insert(prim_id(&p), out);
        }
    }
    by_id.into_values().flatten().collect()
}

/// Worst distance between the glTF skinned at `frames` and the CPU skinning of the PAM pose.
fn skin_error(pmo: &Pmo, anim: &Animation, frames: &[f32]) -> f32 {
    let d = open(&export_pmo(pmo, "m", &[(0, anim)]).glb().unwrap());
    let sk = pmo.skeleton.as_ref().unwrap();
    let mut worst = 0.0f32;
    for &f in frames {
        let want = skin_positions(pmo, &skin_matrices(sk, &pose_globals(sk, anim, f, &PoseOptions::default())));
        let got = world_positions(&d, &globals(&d, Some(0), f / f32::from(anim.fps)));
        assert_eq!(got.len(), want.len(), "vertex count");
        let e = got.iter().zip(&want).map(|(a, b)| a.distance(*b)).fold(0.0, f32::max);
        eprintln!("frame {f}: worst {e:e}");
        worst = worst.max(e);
    }
    worst
}

#[test]
fn skinned_animation_matches_cpu_skinning_synthetic() {
    let pam = synth::anim::column_animation();
    let a = pam.animations[0].as_ref().unwrap();
    let e = skin_error(&synth::demo_model(), a, &[0.0, 10.0, 29.5, 59.0]);
    assert!(e < 1e-5, "worst {e}");
}

fn p01ex00_and_test_pam() -> Option<(Pmo, Pam)> {
    let m = Pmo::parse(&std::fs::read(sample("bbs-pmo/p01ex00.pmo")?).unwrap()).unwrap();
    let p = Pam::parse(&std::fs::read(sample("bbs-pam/test.pam")?).unwrap()).unwrap();
    Some((m, p))
}

#[test]
fn skinned_animation_matches_cpu_skinning_p01ex00() {
    let Some((m, pam)) = p01ex00_and_test_pam() else { return };
    let a = pam.animations[0].as_ref().unwrap();
    let e = skin_error(&m, a, &[0.0, 44.5, 89.0]);
    assert!(e < 1e-5, "worst {e}");
}

#[test]
fn skinned_bounds_match_the_reference() {
    let Some((m, pam)) = p01ex00_and_test_pam() else { return };
    let Some(rp) = sample("bbs-pam/test.pam.reference.json") else { return };
    let r: serde_json::Value = serde_json::from_slice(&std::fs::read(rp).unwrap()).unwrap();
    let a = pam.animations[0].as_ref().unwrap();
    let d = open(&export_pmo(&m, "p01ex00", &[(0, a)]).glb().unwrap());
    for key in ["0", "45"] {
        let f: f32 = key.parse().unwrap();
        let pts = world_positions(&d, &globals(&d, Some(0), f / 30.0));
        let lo = pts.iter().fold(Vec3::INFINITY, |a, &b| a.min(b));
        let hi = pts.iter().fold(Vec3::NEG_INFINITY, |a, &b| a.max(b));
        let bb = &r["skinned_bbox_p01ex00"][key];
        let v3 = |v: &serde_json::Value| Vec3::from(std::array::from_fn(|i| v[i].as_f64().unwrap() as f32));
        // The reference prints 4 decimals.
        assert!(lo.abs_diff_eq(v3(&bb["min"]), 1e-4) && hi.abs_diff_eq(v3(&bb["max"]), 1e-4), "frame {key}: {lo} {hi}");
    }
}

/// Node index by name.
fn node_named(d: &Doc, name: &str) -> usize {
    d.doc.nodes().find(|n| n.name() == Some(name)).unwrap_or_else(|| panic!("no node {name}")).index()
}

/// KH2: every joint's glTF global (root motion included) at game ticks `ticks` against the
/// KH2 evaluator's root · global. Returns the worst element difference.
fn kh2_error(sk: &psprender::kh2::Skeleton, m: &psprender::kh2::InterpolatedMotion, ticks: &[i32]) -> f32 {
    use psprender::kh2::eval::{local_matrix, Evaluator};
    let motion = psprender::kh2::Motion::Interpolated(m.clone());
    let d = open(&psprender::gltf::kh2::export(sk, &[("m".into(), &motion)], "sk", "m.anb").unwrap().glb().unwrap());
    let ev = Evaluator::new(m, Some(sk)).unwrap();
    let nb = sk.bones.len();
    let mut worst = 0.0f32;
    for &t in ticks {
        let g = globals(&d, Some(0), t as f32 / 60.0);
        let root = local_matrix(&ev.root_channels(t as f32), false);
        let want = ev.pose(t as f32).globals.unwrap();
        for (j, w) in want.iter().enumerate() {
            let name = if j < nb { format!("bone{j}") } else { format!("m_ik{}", j - nb) };
            let got = g[node_named(&d, &name)];
            // Relative to the matrix's largest element (KH2 units reach hundreds).
            let want = (root * *w).to_cols_array();
            let scale = want.iter().fold(1.0f32, |m, x| m.max(x.abs()));
            let e = got.to_cols_array().iter().zip(want).map(|(a, b)| (a - b).abs() / scale).fold(0.0, f32::max);
            assert!(e < 1e-5, "tick {t} joint {j}: {e}\n{got}\n{}", root * *w);
            worst = worst.max(e);
        }
    }
    worst
}

#[test]
fn kh2_motion_reads_back_as_the_evaluator_poses_it() {
    let m = psprender::kh2::synth::biped_walk();
    let e = kh2_error(&psprender::kh2::Skeleton::biped(), &m, &[0, 7, 30, m.frame_count]);
    eprintln!("biped walk: worst relative difference {e:e}");
    let Some(p) = sample("kh2-anb/interpolated.motion") else { return };
    let Ok(psprender::kh2::Motion::Interpolated(m)) = psprender::kh2::Motion::parse(&std::fs::read(p).unwrap()) else {
        panic!("interpolated.motion is interpolated")
    };
    // No public MDLX pairs with it: a chain of its 228 bones carries the motion.
    let e = kh2_error(&psprender::kh2::Skeleton::chain(228, 10.0), &m, &[0, 1, 150, 299, 300]);
    eprintln!("interpolated.motion: worst relative difference {e:e}");
}

#[test]
fn kh2_raw_motion_reads_back_as_its_stored_matrices() {
    let Some(p) = sample("kh2-anb/raw.motion") else { return };
    let motion = psprender::kh2::Motion::parse(&std::fs::read(p).unwrap()).unwrap();
    let psprender::kh2::Motion::Raw(r) = &motion else { panic!("raw.motion is raw") };
    let sk = psprender::kh2::Skeleton::chain(r.bone_count as usize, 10.0);
    let d = open(
        &psprender::gltf::kh2::export(&sk, &[("raw".into(), &motion)], "sk", "raw.motion").unwrap().glb().unwrap(),
    );
    for t in 0..=r.frame_count {
        let g = globals(&d, Some(0), t as f32 / 60.0);
        let want = r.matrices_at(t as f32 * r.frame_data.fps / 60.0);
        for (j, w) in want.iter().enumerate() {
            let got = g[node_named(&d, &format!("bone{j}"))];
            assert!(got.abs_diff_eq(*w, 1e-3), "tick {t} bone {j}\n{got}\n{w}");
        }
    }
}
