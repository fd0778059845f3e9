//! glTF 2.0 export of BBS models (PMO), maps (PMP) and their PAM animations, built with the
//! `gltf-json` document model.
//!
//! Design: the export reads the same structures the renderer draws from ([`crate::scene::Model`]:
//! PMOs, their resolved GE textures and PMP placements) and the same decoded vertices
//! `psprender decode` prints ([`crate::decode::report`], the GE's own vertex decoder), so a
//! value in the glTF is a value the GE model used. Layout of the document:
//!
//! * Per PMO up to two meshes, sections (list 0 then list 1) as primitives: the skinned
//!   sections (weights + joint table + skeleton) in one mesh, the rest in another; glTF wants
//!   every primitive of a skinned mesh to carry JOINTS/WEIGHTS. Meshes are shared by every
//!   object that places the PMO.
//! * Per placement (one for a PMO, one per PMP object with a model) a node with the object's
//!   transform holding: a node with the model scale and the unskinned mesh; the PMO joints as
//!   a node hierarchy (names from the PMO, TRS of the local bind matrix); and, at the scene
//!   root (glTF ignores the transform of a skinned mesh's node and the validator wants it
//!   parentless), a node with the skinned mesh and a skin whose inverse bind matrices are
//!   InvBind · S(model scale): the scene builder's bone slots G · InvBind · S
//!   ([`crate::scene`], `ScaleIn::Bones`), so the skinned glTF positions equal the GE's.
//! * Textures: one PNG per distinct GE texture ([`image`]), one material per (texture,
//!   attribute, uniform colour) ([`mesh::material`]).
//! * Animations: one per chosen PAM slot (`animation`) on the joints of a single PMO.
//!
//! The document is finished as `.glb` (buffer and PNGs embedded) or `.gltf` (JSON plus `.bin`
//! and PNG files beside it). Output bytes depend only on the inputs and the options: PNGs are
//! encoded in parallel but collected in texture order.

mod animation;
mod buffer;
pub mod image;
pub mod kh2;
pub mod mesh;
#[cfg(test)]
mod tests;

use crate::decode::{report, Options as DecodeOptions};
use crate::pam::pose::PoseOptions;
use crate::pam::Animation;
use crate::pmo::Pmo;
use crate::scene::policy::Policy;
use crate::scene::texture::GeTexture;
use crate::scene::Model;
use buffer::Builder;
use glam::{Mat4, Vec3};
use gltf::json;
use json::validation::Checked::Valid;
use json::validation::USize64;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::sync::Arc;
use thiserror::Error;

pub use animation::{euler_quat, key_frames};

#[derive(Debug, Error)]
pub enum GltfError {
    #[error("{what} at offset {offset:#x} has no glTF equivalent")]
    Unsupported { offset: usize, what: String },
    #[error("{what}: vertex at offset {offset:#x} has a non-finite position")]
    NotFinite { offset: usize, what: String },
    #[error("vertex at offset {offset:#x}: {what}")]
    Weights { offset: usize, what: String },
    #[error("{pam}: {what}")]
    Animation { pam: String, what: String },
    #[error("{pam}: the model has no skeleton (or is a map) for animations to drive")]
    NoSkeleton { pam: String },
    #[error("{file}: {what}")]
    Kh2 { file: String, what: String },
    #[error("texture read-back through the GE: {0}")]
    Ge(String),
    #[error("PNG encoding: {0}")]
    Png(String),
    #[error("glTF serialisation: {0}")]
    Json(String),
}

/// Export choices; `Default` matches what `psprender render` draws.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Options {
    /// Culling, blending, colour doubling and texture filtering as the scene builder decides them.
    pub policy: Policy,
    /// Euler order and scale inheritance of the PAM.
    pub pose: PoseOptions,
    /// Rotation samples per PAM frame (1 = every frame, 30 per second at 30 fps).
    pub rotation_steps_per_frame: u32,
}

impl Default for Options {
    fn default() -> Self {
        Options { policy: Policy::default(), pose: PoseOptions::default(), rotation_steps_per_frame: 1 }
    }
}

/// A file written beside a `.gltf`: (file name, bytes).
pub type SideFile = (String, Vec<u8>);

/// A PMO's (skinned, unskinned) meshes.
type Meshes = (Option<json::Index<json::Mesh>>, Option<json::Index<json::Mesh>>);

/// A finished document before it is laid out as `.glb` or `.gltf`: images carry neither a
/// URI nor a buffer view yet ([`Export::glb`], [`Export::gltf_files`] add them).
#[derive(Debug, Clone)]
pub struct Export {
    pub root: json::Root,
    pub bin: Vec<u8>,
    /// PNG bytes per glTF image.
    pub pngs: Vec<Vec<u8>>,
}

/// A file name made of letters, digits, `-`, `_` and `.` only (a valid URI as it stands).
fn uri_safe(s: &str) -> String {
    s.chars().map(|c| if c.is_ascii_alphanumeric() || "-_.".contains(c) { c } else { '_' }).collect()
}

impl Export {
    fn with_buffer(mut root: json::Root, len: usize, uri: Option<String>) -> json::Root {
        root.buffers = vec![json::Buffer {
            byte_length: USize64::from(len),
            name: None,
            uri,
            extensions: None,
            extras: Default::default(),
        }];
        root
    }

    /// Binary glTF: JSON chunk plus one BIN chunk holding the buffer and every PNG.
    pub fn glb(&self) -> Result<Vec<u8>, GltfError> {
        let mut b = Builder { root: self.root.clone(), bin: self.bin.clone() };
        for (i, png) in self.pngs.iter().enumerate() {
            let view = b.view(png, None);
            let img = &mut b.root.images[i];
            img.buffer_view = Some(view);
            img.mime_type = Some(json::image::MimeType("image/png".into()));
        }
        while !b.bin.len().is_multiple_of(4) {
            b.bin.push(0);
        }
        let root = Self::with_buffer(b.root, b.bin.len(), None);
        let json = root.to_vec().map_err(|e| GltfError::Json(e.to_string()))?;
        let glb = gltf::binary::Glb {
            header: gltf::binary::Header { magic: *b"glTF", version: 2, length: 0 },
            json: json.into(),
            bin: Some(b.bin.into()),
        };
        glb.to_vec().map_err(|e| GltfError::Json(e.to_string()))
    }

    /// JSON glTF named `stem`.gltf: returns its bytes and the files beside it (`stem`.bin and
    /// one PNG per image), each as (file name, bytes).
    pub fn gltf_files(&self, stem: &str) -> Result<(Vec<u8>, Vec<SideFile>), GltfError> {
        let stem = uri_safe(stem);
        let mut root = self.root.clone();
        let mut files = vec![(format!("{stem}.bin"), self.bin.clone())];
        for (i, png) in self.pngs.iter().enumerate() {
            let img = &mut root.images[i];
            let name = format!("{stem}_{i}_{}.png", uri_safe(img.name.as_deref().unwrap_or("texture")));
            img.uri = Some(name.clone());
            files.push((name, png.clone()));
        }
        let root = Self::with_buffer(root, self.bin.len(), Some(format!("{stem}.bin")));
        let json = root.to_vec_pretty().map_err(|e| GltfError::Json(e.to_string()))?;
        Ok((json, files))
    }
}

/// TRS of an affine matrix for a node (glTF nodes that animate must use TRS).
fn trs_node(name: String, m: Mat4) -> json::Node {
    let (s, r, t) = m.to_scale_rotation_translation();
    json::Node {
        name: Some(name),
        translation: (t != Vec3::ZERO).then_some(t.to_array()),
        rotation: (r != glam::Quat::IDENTITY).then_some(json::scene::UnitQuaternion(r.normalize().to_array())),
        scale: (s != Vec3::ONE).then_some(s.to_array()),
        ..Default::default()
    }
}

/// The glTF texture index of each distinct GE texture, their PNGs and alpha use.
struct Textures {
    /// Per PMO, per texture record.
    index: Vec<Vec<Option<usize>>>,
    alpha: Vec<(bool, bool)>,
}

fn textures(b: &mut Builder, model: &Model, policy: &Policy) -> Result<(Textures, Vec<Vec<u8>>), GltfError> {
    let mut distinct: Vec<(Arc<GeTexture>, String)> = Vec::new();
    let mut index = Vec::new();
    for (p, recs) in model.textures.iter().enumerate() {
        let mut row = Vec::new();
        for (r, t) in recs.iter().enumerate() {
            row.push(t.as_ref().map(|t| match distinct.iter().position(|(d, _)| Arc::ptr_eq(d, t)) {
                Some(i) => i,
                None => {
                    let name = model.pmos[p].textures.get(r).map(|x| x.name()).unwrap_or_default();
                    distinct.push((t.clone(), name));
                    distinct.len() - 1
                }
            }));
        }
        index.push(row);
    }
    let mut ge = ge::Ge::new();
    let texels: Vec<Vec<[u8; 4]>> =
        distinct.iter().map(|(t, _)| image::ge_texels(&mut ge, t)).collect::<Result<_, _>>()?;
    let pngs: Vec<Vec<u8>> = distinct
        .par_iter()
        .zip(&texels)
        .map(|((t, _), px)| image::encode_png(px, u32::from(t.width), u32::from(t.height)))
        .collect::<Result<_, _>>()?;
    let filter = if policy.bilinear { json::texture::MagFilter::Linear } else { json::texture::MagFilter::Nearest };
    let min = if policy.bilinear { json::texture::MinFilter::Linear } else { json::texture::MinFilter::Nearest };
    let mut samplers: BTreeMap<bool, json::Index<json::texture::Sampler>> = BTreeMap::new();
    for (t, name) in &distinct {
        // The scene builder repeats power-of-two textures and clamps the others (policy).
        let wrap =
            if t.is_pow2() { json::texture::WrappingMode::Repeat } else { json::texture::WrappingMode::ClampToEdge };
        let sampler = *samplers.entry(t.is_pow2()).or_insert_with(|| {
            b.root.push(json::texture::Sampler {
                mag_filter: Some(Valid(filter)),
                min_filter: Some(Valid(min)),
                wrap_s: Valid(wrap),
                wrap_t: Valid(wrap),
                ..Default::default()
            })
        });
        let source = b.root.push(json::Image {
            buffer_view: None,
            mime_type: None,
            name: Some(name.clone()),
            uri: None,
            extensions: None,
            extras: Default::default(),
        });
        b.root.push(json::Texture {
            name: Some(name.clone()),
            sampler: Some(sampler),
            source,
            extensions: None,
            extras: Default::default(),
        });
    }
    let alpha = texels.iter().map(|px| image::alpha_use(px)).collect();
    Ok((Textures { index, alpha }, pngs))
}

/// The meshes of one PMO: (skinned, unskinned).
fn pmo_meshes(
    b: &mut Builder,
    pmo: &Pmo,
    name: &str,
    tex: &[Option<usize>],
    alpha: &[(bool, bool)],
    materials: &mut BTreeMap<mesh::MaterialKey, json::Index<json::Material>>,
    policy: &Policy,
) -> Result<Meshes, GltfError> {
    let rep = report(0, pmo, &DecodeOptions::default());
    let joints = pmo.skeleton.as_ref().map(|s| s.joints.len());
    let (mut skinned, mut rigid) = (Vec::new(), Vec::new());
    for r in &rep.sections {
        let s = r.section;
        let is_skinned = r.layout.vtype.has_weights() && s.joints.is_some() && joints.is_some();
        let key = mesh::MaterialKey {
            texture: tex.get(usize::from(s.texture_id)).copied().flatten().filter(|_| r.layout.vtype.has_texcoord()),
            attribute: s.attribute,
            diffuse: s.diffuse,
        };
        let material = match materials.get(&key) {
            Some(&m) => m,
            None => {
                let mname = format!("{name}_mat{}", materials.len());
                let m = b.root.push(mesh::material(&key, policy, alpha, mname));
                materials.insert(key, m);
                m
            }
        };
        let prim = mesh::primitive(b, r, joints.filter(|_| is_skinned), Some(material), policy)?;
        if let Some(p) = prim {
            if is_skinned { &mut skinned } else { &mut rigid }.push(p);
        }
    }
    let mut push = |prims: Vec<json::mesh::Primitive>, n: String| {
        (!prims.is_empty()).then(|| {
            b.root.push(json::Mesh {
                extensions: None,
                extras: Default::default(),
                name: Some(n),
                primitives: prims,
                weights: None,
            })
        })
    };
    let s = push(skinned, format!("{name}_skinned"));
    let r = push(rigid, name.to_string());
    Ok((s, r))
}

/// Nodes of one placed PMO: returns (placement node, skinned-mesh node for the scene root,
/// joint nodes).
#[allow(clippy::type_complexity)]
fn place(
    b: &mut Builder,
    pmo: &Pmo,
    name: &str,
    world: Mat4,
    meshes: Meshes,
) -> (json::Index<json::Node>, Option<json::Index<json::Node>>, Vec<json::Index<json::Node>>) {
    let scale = pmo.header.model_scale;
    let mut children = Vec::new();
    if let Some(m) = meshes.1 {
        let node = json::Node {
            name: Some(format!("{name}_mesh")),
            mesh: Some(m),
            scale: (scale != 1.0).then_some([scale; 3]),
            ..Default::default()
        };
        children.push(b.root.push(node));
    }
    let mut joint_nodes = Vec::new();
    let mut skinned_node = None;
    if let Some(sk) = &pmo.skeleton {
        for jt in &sk.joints {
            joint_nodes.push(b.root.push(trs_node(jt.name(), Mat4::from_cols_array(&jt.local))));
        }
        for (j, jt) in sk.joints.iter().enumerate() {
            // The pose code's parent rule: a parent must precede its child, else a root.
            match jt.parent_index().filter(|&p| p < j) {
                Some(p) => {
                    let parent = &mut b.root.nodes[joint_nodes[p].value()];
                    parent.children.get_or_insert_with(Vec::new).push(joint_nodes[j]);
                }
                None => children.push(joint_nodes[j]),
            }
        }
        if let Some(m) = meshes.0 {
            let s = Mat4::from_scale(Vec3::splat(scale));
            let ibm: Vec<[f32; 16]> =
                sk.joints.iter().map(|jt| (Mat4::from_cols_array(&jt.inverse_global) * s).to_cols_array()).collect();
            let ibm = b.accessor(&ibm, None, None, false);
            let skin = b.root.push(json::Skin {
                extensions: None,
                extras: Default::default(),
                inverse_bind_matrices: Some(ibm),
                joints: joint_nodes.clone(),
                name: Some(format!("{name}_skeleton")),
                skeleton: None,
            });
            skinned_node = Some(b.root.push(json::Node {
                name: Some(format!("{name}_skinned")),
                mesh: Some(m),
                skin: Some(skin),
                ..Default::default()
            }));
        }
    }
    let mut node = trs_node(name.to_string(), world);
    node.children = (!children.is_empty()).then_some(children);
    (b.root.push(node), skinned_node, joint_nodes)
}

/// Export `model` (named `name` in the document) with the PAM animations `anims` (slot index,
/// animation) of the file `pam_name`, which drive the skeleton of a single-PMO model.
pub fn export(
    model: &Model,
    name: &str,
    anims: &[(usize, &Animation)],
    pam_name: &str,
    opts: &Options,
) -> Result<Export, GltfError> {
    let mut b = Builder::new();
    let (tex, pngs) = textures(&mut b, model, &opts.policy)?;
    let mut materials = BTreeMap::new();
    let single = model.pmos.len() == 1 && model.placements.len() == 1;
    let mut meshes = Vec::new();
    for (i, pmo) in model.pmos.iter().enumerate() {
        let mname = if single { name.to_string() } else { format!("{name}_model{i}") };
        meshes.push(pmo_meshes(&mut b, pmo, &mname, &tex.index[i], &tex.alpha, &mut materials, &opts.policy)?);
    }
    let mut scene_nodes = Vec::new();
    let mut skinned_nodes = Vec::new();
    let mut first_joints = None;
    let mut placed = Vec::new();
    for (k, pl) in model.placements.iter().enumerate() {
        let pmo = &model.pmos[pl.pmo];
        let pname = if single { name.to_string() } else { format!("object{k}_model{}", pl.pmo) };
        let (node, skinned, joints) = place(&mut b, pmo, &pname, pl.world, meshes[pl.pmo]);
        placed.push(node);
        skinned_nodes.extend(skinned);
        first_joints.get_or_insert(joints);
    }
    if single {
        scene_nodes.extend(placed);
    } else {
        let root =
            b.root.push(json::Node { name: Some(name.to_string()), children: Some(placed), ..Default::default() });
        scene_nodes.push(root);
    }
    scene_nodes.extend(skinned_nodes);
    if !anims.is_empty() {
        let (Some(sk), Some(joints)) = (model.skeleton().filter(|_| single), first_joints.as_ref()) else {
            return Err(GltfError::NoSkeleton { pam: pam_name.into() });
        };
        for &(slot, anim) in anims {
            animation::push(&mut b, slot, anim, sk, joints, &opts.pose, opts.rotation_steps_per_frame, pam_name)?;
        }
    }
    let scene = b.root.push(json::Scene {
        extensions: None,
        extras: Default::default(),
        name: Some(name.to_string()),
        nodes: scene_nodes,
    });
    b.root.scene = Some(scene);
    if !b.root.materials.is_empty() {
        b.root.extensions_used.push("KHR_materials_unlit".into());
    }
    Ok(Export { root: b.root, bin: b.bin, pngs })
}
