//! The scene builder: turns PMO models (alone or placed by a PMP map) into one GE display
//! list, the way the game feeds the GE, and runs it on the GE model.
//!
//! Per section (ge-reference §18.2): VERTEXTYPE = vertex-flags bits 0-23 verbatim, VADDR at
//! the section's vertex bytes, one PRIM per strip length (the GE advances the vertex pointer
//! between back-to-back PRIMs) or one PRIM of every vertex, primitive type from flag bits
//! 28-31; the uniform diffuse colour as MATERIALAMBIENT + MATERIALALPHA; the texture record's
//! TIM2 as TEXADDR0/TEXBUFWIDTH0/TEXSIZE0/TEXFORMAT plus CLUTFORMAT/LOADCLUT ([`texture`]);
//! for skinned sections the 8 bone slots = skin matrix of the joint in the section's joint
//! table (G · InvBind, bind pose unless a pose is given) with the model scale folded in; mesh
//! list 0 of every object first, then list 1. Everything the file does not say is decided in
//! [`policy`], with a switch per guess.
//!
//! Positions are decoded and transformed by the GE only; the CPU transforms vertices just to
//! frame the automatic camera ([`model_bounds`]).
//!
//! Memory: the list goes to [`ge::list::LIST_ADDR`] (at most 1 MiB of commands), vertex,
//! texture and CLUT bytes follow from [`ge::list::DATA_ADDR`]; framebuffer at VRAM 0 (stride
//! 512), depth buffer at VRAM + 0x88000.

pub mod camera;
pub mod policy;
pub mod texture;

#[cfg(test)]
mod tests;

use crate::pmo::{Pmo, Section, Skeleton, UNUSED_SLOT};
use crate::pmp::Pmp;
use camera::{Bounds, Camera};
use ge::cmd::op;
use ge::display::{DisplayBuffer, Image};
use ge::list::{ListBuilder, DATA_ADDR, LIST_ADDR};
use ge::vertex::{decode_vertex, DecodeParams, Persist};
use ge::Ge;
use glam::{Mat4, Vec3};
use policy::{Policy, ScaleIn};
use std::sync::Arc;
use texture::GeTexture;
use thiserror::Error;

pub use camera::{DEFAULT_FOV, DEFAULT_PITCH};

#[derive(Debug, Error)]
pub enum SceneError {
    #[error("texture {index} ({name}), TIM2 at file offset {offset:#x}: {cause}")]
    Tim2 { index: usize, name: String, offset: u32, cause: crate::tim2::Tim2Error },
    #[error("texture {index} ({name}), TIM2 at file offset {offset:#x}: {cause}")]
    Texture { index: usize, name: String, offset: u32, cause: texture::TextureError },
    #[error("display list needs {bytes} bytes of commands, more than the {limit} reserved")]
    ListTooLong { bytes: usize, limit: u32 },
    #[error("section {section} does not exist: {}", crate::pmo::describe_lists(.lengths))]
    NoSuchSection { section: usize, lengths: [usize; 2] },
    #[error("GE: {0}")]
    Ge(ge::GeError),
}

// The GE error's text is part of `SceneError::Ge`'s message, so it is not also its source().
impl From<ge::GeError> for SceneError {
    fn from(e: ge::GeError) -> Self {
        SceneError::Ge(e)
    }
}

/// The longest mesh list `l` of any PMO of `model`.
fn list_lengths(model: &Model, l: usize) -> usize {
    model.pmos.iter().map(|p| p.meshes[l].len()).max().unwrap_or(0)
}

/// One PMO placed in the world.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Placement {
    pub pmo: usize,
    pub world: Mat4,
}

/// PMOs, their resolved textures, and where they stand.
#[derive(Debug, Clone)]
pub struct Model {
    pub pmos: Vec<Pmo>,
    pub placements: Vec<Placement>,
    /// Per PMO, per texture record: the GE texture (`None`: stored elsewhere and not found,
    /// the sections draw untextured).
    pub textures: Vec<Vec<Option<Arc<GeTexture>>>>,
}

impl Model {
    /// A stand-alone PMO at the origin.
    pub fn from_pmo(pmo: Pmo) -> Result<Model, SceneError> {
        let mut tex = Vec::new();
        for (index, t) in pmo.textures.iter().enumerate() {
            let name = t.name();
            tex.push(match t.parse_tim2() {
                None => {
                    tracing::warn!(texture = %name, "texture stored outside the PMO; drawing untextured");
                    None
                }
                Some(r) => {
                    let offset = t.tim2_offset;
                    let tim2 = r.map_err(|cause| SceneError::Tim2 { index, name: name.clone(), offset, cause })?;
                    let g = GeTexture::from_tim2(&tim2).map_err(|cause| SceneError::Texture {
                        index,
                        name,
                        offset,
                        cause,
                    })?;
                    Some(Arc::new(g))
                }
            });
        }
        Ok(Model {
            pmos: vec![pmo],
            placements: vec![Placement { pmo: 0, world: Mat4::IDENTITY }],
            textures: vec![tex],
        })
    }

    /// Every PMP object with a PMO, at its position/rotation/scale; PMO texture records are
    /// resolved by name in the PMP's texture list.
    pub fn from_pmp(pmp: Pmp) -> Result<Model, SceneError> {
        let mut converted: Vec<Option<Arc<GeTexture>>> = Vec::new();
        for (index, t) in pmp.textures.iter().enumerate() {
            let g = GeTexture::from_tim2(&t.tim2).map_err(|cause| SceneError::Texture {
                index,
                name: t.name(),
                offset: t.tim2_offset,
                cause,
            })?;
            converted.push(Some(Arc::new(g)));
        }
        let textures = pmp
            .models
            .iter()
            .map(|(_, m)| {
                m.textures
                    .iter()
                    .map(|t| {
                        let found = pmp.textures.iter().position(|p| p.name == t.name);
                        if found.is_none() {
                            tracing::warn!(texture = %t.name(), "texture not in the PMP; drawing untextured");
                        }
                        found.and_then(|i| converted[i].clone())
                    })
                    .collect()
            })
            .collect();
        let placements = pmp
            .objects
            .iter()
            .filter_map(|o| {
                let pmo = o.model?;
                // guess: rotation in radians, applied X then Y then Z like PAM joints; every
                // sample object has rotation 0 and scale 1.
                let r = Mat4::from_rotation_z(o.rotation[2])
                    * Mat4::from_rotation_y(o.rotation[1])
                    * Mat4::from_rotation_x(o.rotation[0]);
                let world = Mat4::from_translation(Vec3::from(o.position)) * r * Mat4::from_scale(Vec3::from(o.scale));
                Some(Placement { pmo, world })
            })
            .collect();
        Ok(Model { pmos: pmp.models.into_iter().map(|(_, m)| m).collect(), placements, textures })
    }

    /// Load a `.pmo` or `.pmp` file (by magic).
    pub fn load(path: &std::path::Path) -> anyhow::Result<Model> {
        use anyhow::Context;
        let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
        Self::from_bytes(&bytes).with_context(|| format!("loading {}", path.display()))
    }

    pub fn from_bytes(bytes: &[u8]) -> anyhow::Result<Model> {
        if bytes.starts_with(crate::pmp::MAGIC) {
            Ok(Self::from_pmp(Pmp::parse(bytes)?)?)
        } else {
            Ok(Self::from_pmo(Pmo::parse(bytes)?)?)
        }
    }

    /// The skeleton of a single-PMO model (what a PAM poses).
    pub fn skeleton(&self) -> Option<&Skeleton> {
        match self.pmos.as_slice() {
            [p] => p.skeleton.as_ref(),
            _ => None,
        }
    }

    /// Number of sections of PMO 0 (list 0 then list 1), the numbering of
    /// [`RenderOptions::hidden`].
    pub fn section_count(&self) -> usize {
        self.pmos.first().map_or(0, |p| p.meshes[0].len() + p.meshes[1].len())
    }

    /// Longest mesh list `list` (or either list) among the PMOs.
    fn list_len(&self, list: Option<usize>) -> usize {
        let lists: &[usize] = match list {
            Some(0) => &[0],
            Some(_) => &[1],
            None => &[0, 1],
        };
        self.pmos.iter().flat_map(|p| lists.iter().map(|&l| p.meshes[l].len())).max().unwrap_or(0)
    }
}

/// What to draw and how; `Default` draws everything with the default [`Policy`].
#[derive(Debug, Clone, PartialEq)]
pub struct RenderOptions {
    /// FRAMEBUFPIXFORMAT: 0 = 565, 1 = 5551, 2 = 4444, 3 = 8888.
    pub fb_format: u32,
    /// Clear colour, RGBA.
    pub background: [u8; 4],
    /// Only section N of each mesh list (its index within the list, as `decode` prints it;
    /// combine with `mesh_list` to pick one).
    pub section: Option<usize>,
    /// Only this mesh list.
    pub mesh_list: Option<usize>,
    /// Per-section visibility of PMO 0's sections numbered list 0 then list 1 (viewer
    /// toggles); missing entries are visible.
    pub hidden: Vec<bool>,
    /// Draw triangle edges as GE lines instead of filled triangles.
    pub wireframe: bool,
    pub policy: Policy,
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
            fb_format: 3,
            background: [40, 44, 52, 0],
            section: None,
            mesh_list: None,
            hidden: Vec::new(),
            wireframe: false,
            policy: Policy::default(),
        }
    }
}

impl RenderOptions {
    fn visible(&self, list: usize, in_list: usize, number: usize) -> bool {
        self.mesh_list.is_none_or(|l| l == list)
            && self.section.is_none_or(|s| s == in_list)
            && !self.hidden.get(number).copied().unwrap_or(false)
    }
}

/// A built frame: the display list with its data, and the buffer to show.
#[derive(Debug, Clone)]
pub struct Frame {
    pub list: ListBuilder,
    pub display: DisplayBuffer,
    pub camera: Camera,
}

impl Frame {
    /// Run on `ge` (fresh or reused) and capture the 480×272 display.
    pub fn render(&self, ge: &mut Ge) -> Result<Image, SceneError> {
        self.list.run(ge)?;
        Ok(self.display.capture(&ge.mem))
    }
}

/// Bone slot matrices for a section: skin matrix of each table entry × the scale fold.
fn bone_slots(s: &Section, skin: &[Mat4], scale: Mat4) -> [Mat4; 8] {
    let joints = s.joints.unwrap_or([UNUSED_SLOT; 8]);
    // guess: an unused slot (0xFF) gets the identity; its weights are zero in the samples.
    joints.map(|j| skin.get(usize::from(j)).map_or(Mat4::IDENTITY, |m| *m * scale))
}

/// Per-PMO matrices for drawing: skin matrices (empty without a skeleton).
fn skin_for(pmo: &Pmo, pose: Option<&[Mat4]>) -> Vec<Mat4> {
    match &pmo.skeleton {
        Some(sk) => {
            let bind;
            let globals = match pose {
                Some(p) => p,
                None => {
                    bind = sk.bind_globals();
                    &bind
                }
            };
            sk.skin_matrices(globals)
        }
        None => Vec::new(),
    }
}

fn is_skinned(s: &Section, skin: &[Mat4]) -> bool {
    s.layout().vtype.has_weights() && s.joints.is_some() && !skin.is_empty()
}

/// (world matrix, bone-slot scale) for a section of `pmo` placed at `world`.
fn matrices(pmo: &Pmo, world: Mat4, skinned: bool, policy: &Policy) -> (Mat4, Mat4) {
    let s = Mat4::from_scale(Vec3::splat(pmo.header.model_scale));
    match (skinned, policy.scale_in) {
        (true, ScaleIn::Bones) => (world, s),
        _ => (world * s, Mat4::IDENTITY),
    }
}

/// Sections to draw in order: (list, placement, section number, section).
fn draw_order<'a>(
    model: &'a Model,
    opts: &'a RenderOptions,
) -> impl Iterator<Item = (usize, &'a Placement, usize, &'a Section)> {
    (0..2).flat_map(move |list| {
        model.placements.iter().flat_map(move |pl| {
            let pmo = &model.pmos[pl.pmo];
            let base = if list == 0 { 0 } else { pmo.meshes[0].len() };
            pmo.meshes[list]
                .iter()
                .enumerate()
                .filter(move |&(i, _)| opts.visible(list, i, base + i))
                .map(move |(i, s)| (list, pl, base + i, s))
        })
    })
}

/// CPU bounds of the drawn vertices (posed), for camera framing only.
pub fn model_bounds(model: &Model, pose: Option<&[Mat4]>, opts: &RenderOptions) -> Bounds {
    let mut b = Bounds::EMPTY;
    let skins: Vec<Vec<Mat4>> = model.pmos.iter().map(|p| skin_for(p, pose)).collect();
    for (_, pl, _, s) in draw_order(model, opts) {
        let pmo = &model.pmos[pl.pmo];
        let skin = &skins[pl.pmo];
        let skinned = is_skinned(s, skin);
        let (world, fold) = matrices(pmo, pl.world, skinned, &opts.policy);
        let slots = bone_slots(s, skin, fold);
        let layout = s.layout();
        let wc = usize::from(layout.vtype.weight_count).min(8);
        let mut persist = Persist::default();
        for v in s.vertices.chunks_exact(usize::from(s.vertex_size.max(1))) {
            let d = decode_vertex(&layout, v, &DecodeParams::default(), &mut persist);
            let p = Vec3::from(d.pos);
            let p = if skinned {
                (0..wc).fold(Vec3::ZERO, |acc, k| acc + d.weights[k] * slots[k].transform_point3(p))
            } else {
                p
            };
            b.add(world.transform_point3(p));
        }
    }
    b
}

/// The automatic camera for `model` at (`yaw`, `pitch`) with vertical FOV `fov_y` degrees.
pub fn auto_camera(
    model: &Model,
    pose: Option<&[Mat4]>,
    opts: &RenderOptions,
    yaw: f32,
    pitch: f32,
    fov_y: f32,
) -> Camera {
    Camera::framing(&model_bounds(model, pose, opts), yaw, pitch, fov_y)
}

/// Build the display list drawing `model` (PMO 0 posed by `pose`, joint globals, when given)
/// from `camera`.
pub fn build_frame(
    model: &Model,
    pose: Option<&[Mat4]>,
    camera: &Camera,
    opts: &RenderOptions,
) -> Result<Frame, SceneError> {
    if let Some(n) = opts.section {
        if n >= model.list_len(opts.mesh_list) {
            let lengths = [self::list_lengths(model, 0), self::list_lengths(model, 1)];
            return Err(SceneError::NoSuchSection { section: n, lengths });
        }
    }
    let (words, data) = list_capacity(model, opts);
    let mut l = ListBuilder::with_capacity(words, data);
    let [r, g, b, a] = opts.background;
    l.standard_setup(opts.fb_format & 3);
    l.clear(u32::from_le_bytes([r, g, b, a]), 0);
    l.matrix(op::PROJMATRIXNUMBER, &camera.projection().to_cols_array())
        .matrix(op::VIEWMATRIXNUMBER, &ge_4x3(&camera.view()))
        .cmd(op::ZTESTENABLE, 1)
        .cmd(op::ZTEST, 7) // GEQUAL: near is 65535 with the standard viewport
        .cmd(op::LIGHTINGENABLE, 0)
        .cmd(op::TEXMAPMODE, 0)
        .cmd(op::TEXMODE, 0)
        .cmd_f(op::TEXOFFSETU, 0.0)
        .cmd_f(op::TEXOFFSETV, 0.0)
        .cmd(op::TEXFILTER, if opts.policy.bilinear { 1 | (1 << 8) } else { 0 })
        .cmd(op::ALPHATEST, 6 | (0xFF << 16)); // GREATER than 0, mask 0xFF

    let skins: Vec<Vec<Mat4>> =
        model.pmos.iter().enumerate().map(|(i, p)| skin_for(p, pose.filter(|_| i == 0))).collect();
    let mut tex_addr: std::collections::BTreeMap<(usize, u8), u32> = Default::default();
    let mut current_tex: Option<(usize, u8)> = None;
    let mut last_world: Option<Mat4> = None;
    let mut last_state = None;
    for (_, pl, _, s) in draw_order(model, opts) {
        let pmo = &model.pmos[pl.pmo];
        let skin = &skins[pl.pmo];
        let skinned = is_skinned(s, skin);
        let (world, fold) = matrices(pmo, pl.world, skinned, &opts.policy);
        if last_world != Some(world) {
            l.matrix(op::WORLDMATRIXNUMBER, &ge_4x3(&world));
            last_world = Some(world);
        }
        if skinned {
            for (k, m) in bone_slots(s, skin, fold).iter().enumerate() {
                l.bone(k as u32, &ge_4x3(m));
            }
        }
        // Texture.
        let layout = s.layout();
        let tex = model.textures[pl.pmo].get(usize::from(s.texture_id)).and_then(|t| t.as_ref());
        let textured = layout.vtype.has_texcoord() && tex.is_some() && !opts.wireframe;
        l.cmd(op::TEXTUREMAPENABLE, u32::from(textured));
        if let (true, Some(t)) = (textured, tex) {
            let key = (pl.pmo, s.texture_id);
            if current_tex != Some(key) {
                let addr = match tex_addr.get(&key) {
                    Some(&a) => a,
                    None => {
                        let a = l.add_data(&t.data);
                        tex_addr.insert(key, a);
                        a
                    }
                };
                l.cmd(op::TEXFORMAT, t.format)
                    .cmd(op::TEXADDR0, addr & 0xFF_FFF0)
                    .cmd(op::TEXBUFWIDTH0, ((addr >> 8) & 0x0F_0000) | t.bufw)
                    .cmd(op::TEXSIZE0, t.log2w | (t.log2h << 8))
                    .cmd(op::TEXWRAP, if t.is_pow2() { 0 } else { 1 | (1 << 8) })
                    .cmd_f(op::TEXSCALEU, t.uv_scale[0])
                    .cmd_f(op::TEXSCALEV, t.uv_scale[1]);
                if let Some((clut, fmt)) = &t.clut {
                    l.cmd(op::CLUTFORMAT, fmt | (0xFF << 8)).clut(clut);
                }
                l.cmd(op::TEXFLUSH, 0);
                current_tex = Some(key);
            }
        }
        // Colour of colourless vertices.
        let material = s.diffuse.unwrap_or(if opts.policy.color_doubling { 0xFF80_8080 } else { 0xFFFF_FFFF });
        l.cmd(op::MATERIALAMBIENT, material & 0xFF_FFFF).cmd(op::MATERIALALPHA, material >> 24);
        // Blend, depth, cull, alpha test, texture function.
        let st = opts.policy.section_state(s.attribute);
        if last_state != Some(st) {
            match st.blend.ge_state() {
                Some((mode, fixb)) => {
                    l.cmd(op::ALPHABLENDENABLE, 1).cmd(op::BLENDMODE, mode).cmd(op::BLENDFIXEDB, fixb);
                }
                None => {
                    l.cmd(op::ALPHABLENDENABLE, 0);
                }
            }
            l.cmd(op::ZWRITEDISABLE, u32::from(!st.depth_write))
                .cmd(op::CULLFACEENABLE, u32::from(st.cull && !opts.wireframe))
                .cmd(op::CULL, opts.policy.cull_face & 1)
                .cmd(op::ALPHATESTENABLE, u32::from(st.alpha_test))
                .cmd(op::TEXFUNC, st.texfunc);
            last_state = Some(st);
        }
        if opts.wireframe {
            wireframe_section(&mut l, s);
        } else {
            l.cmd(op::VERTEXTYPE, s.vtype()).vertices(&s.vertices);
            for n in s.prim_counts() {
                l.prim(s.prim() & 7, n as u32);
            }
        }
    }
    l.finish();
    let limit = DATA_ADDR - LIST_ADDR;
    if l.words.len() * 4 > limit as usize {
        return Err(SceneError::ListTooLong { bytes: l.words.len() * 4, limit });
    }
    Ok(Frame {
        list: l,
        display: DisplayBuffer { addr: 0x0400_0000, stride: 512, format: opts.fb_format & 3 },
        camera: *camera,
    })
}

/// Room for the list [`build_frame`] makes: the data bounded from above (every drawn
/// section's vertices and a CLUT per texture switch, every texture of a PMO once, 16-byte
/// alignment), the words roughly (matrices, state, one PRIM per strip). Grown from nothing,
/// a map piece's data (hundreds of KiB) was copied again at every doubling.
fn list_capacity(model: &Model, opts: &RenderOptions) -> (usize, usize) {
    const SETUP_WORDS: usize = 96;
    const SECTION_WORDS: usize = 160;
    let (mut words, mut data) = (SETUP_WORDS, 64);
    for (_, pl, _, s) in draw_order(model, opts) {
        words += SECTION_WORDS + s.strips.len().max(1);
        data += s.vertices.len() + 15;
        if let Some(Some(t)) = model.textures[pl.pmo].get(usize::from(s.texture_id)) {
            data += t.clut.as_ref().map_or(0, |(c, _)| c.len() + 15);
        }
    }
    data += model.textures.iter().flatten().flatten().map(|t| t.data.len() + 15).sum::<usize>();
    (words, data)
}

/// Triangle edges of a section as one indexed LINES draw (u16 indices into its vertices).
fn wireframe_section(l: &mut ListBuilder, s: &Section) {
    let runs = s.prim_counts();
    let mut idx: Vec<u8> = Vec::new();
    let mut edge = |a: usize, b: usize| {
        idx.extend_from_slice(&(a as u16).to_le_bytes());
        idx.extend_from_slice(&(b as u16).to_le_bytes());
    };
    let mut start = 0;
    for &n in &runs {
        match s.prim() & 7 {
            3 => (0..n / 3).for_each(|t| {
                let v = start + 3 * t;
                edge(v, v + 1);
                edge(v + 1, v + 2);
                edge(v + 2, v);
            }),
            4 => (0..n.saturating_sub(2)).for_each(|t| {
                edge(start + t, start + t + 1);
                edge(start + t, start + t + 2);
            }),
            5 if n >= 3 => (1..n).for_each(|t| {
                edge(start, start + t);
                if t + 1 < n {
                    edge(start + t, start + t + 1);
                }
            }),
            _ => {}
        }
        start += n;
    }
    if s.prim() & 7 == 4 {
        // Close each strip's last edge.
        let mut start = 0;
        for n in runs {
            if n >= 2 {
                edge(start + n - 2, start + n - 1);
            }
            start += n;
        }
    }
    if idx.is_empty() {
        return;
    }
    let count = idx.len() / 2;
    let vtype = (s.vtype() & !(3 << 11)) | (2 << 11); // u16 indices
    l.cmd(op::VERTEXTYPE, vtype).vertices(&s.vertices).indices(&idx).prim(1, count as u32);
}

/// Build and render in one go on a fresh GE with `threads` raster threads (0 = all cores).
pub fn render(
    model: &Model,
    pose: Option<&[Mat4]>,
    camera: &Camera,
    opts: &RenderOptions,
    threads: usize,
) -> Result<Image, SceneError> {
    let frame = build_frame(model, pose, camera, opts)?;
    let mut ge = Ge::new();
    if threads > 0 {
        ge.set_threads(threads);
    }
    frame.render(&mut ge)
}

/// GE element order of a 4x3 affine matrix (columns X, Y, Z, translation).
pub fn ge_4x3(m: &glam::Mat4) -> [f32; 12] {
    let c = m.to_cols_array();
    [c[0], c[1], c[2], c[4], c[5], c[6], c[8], c[9], c[10], c[12], c[13], c[14]]
}
