//! Kingdom Hearts Birth by Sleep PMO models (ge-reference §18.1): header, texture records,
//! the two mesh section lists, embedded TIM2 data and the BON skeleton; a strict parser whose
//! errors name file offsets, and a writer such that `parse(write(m)) == m`.
//!
//! Layout facts used here:
//! * Header, 0xA0 bytes: "PMO\0"; number, group, version, pad (u8 each); texture count (u8),
//!   pad; flag (u16); skeleton offset; mesh-list-0 offset; triangle count (u16); vertex
//!   count (u16); model scale (f32, 0x18); mesh-list-1 offset (0x1C); bounding box (0x20,
//!   8 points x,y,z,w as f32). Offset 0 = absent.
//! * Texture records, 0x20 each from 0xA0: TIM2 offset (u32; 0 = stored elsewhere), name
//!   (12 bytes), tiling speed (2 f32), 8 more bytes kept raw.
//! * Mesh list: sections until one whose vertex count is 0 (that terminator is 12 bytes).
//!   Section: 12-byte header (vertex count u16, texture id u8, vertex size u8, vertex flags
//!   u32, group u8, strip count u8, attribute u16), 8 joint indices only if the model has a
//!   skeleton, a u32 diffuse colour only if flag bit 24, strip-count u16 strip lengths, then
//!   vertex count x vertex size bytes. The next section starts at the next 4-byte boundary.
//! * Skeleton: "BON\0", u32, joint count (u32), skinned joint count (u16), first skinned
//!   index (u16); 0xA0-byte joints: index (u32), parent (u32, 0xFFFF = root), skin index (u32,
//!   0xFFFF = none), u32, `name[16]`, local bind matrix and inverse global bind matrix (16 f32
//!   each; rows are X axis, Y axis, Z axis, translation).
//!
//! Vertex layouts come from the GE model ([`ge::vertex::VertexLayout`]): the section's
//! vertex-size byte must equal the GE stride of its VTYPE and the vertex data must start at
//! a multiple of the layout's alignment. OpenKh's reader does neither (§18.1 traps).
//!
//! Unlike OpenKh, vertex bytes are kept raw (including padding bytes), so the writer
//! reproduces a file exactly; use [`Section::decode`] to decode them through the GE decoder.

use ge::geom::Vertex;
use ge::vertex::{decode_vertex, DecodeParams, Persist, VertexLayout};
use thiserror::Error;

use crate::tim2::{le, Tim2, Tim2Error};

#[cfg(test)]
pub(crate) mod tests;

pub const MAGIC: &[u8; 4] = b"PMO\0";
pub const SKELETON_MAGIC: &[u8; 4] = b"BON\0";
pub const HEADER_SIZE: usize = 0xA0;
pub const TEXTURE_RECORD_SIZE: usize = 0x20;
pub const SECTION_HEADER_SIZE: usize = 12;
pub const JOINT_SIZE: usize = 0xA0;
pub const SKELETON_HEADER_SIZE: usize = 16;
/// Vertex flags bit 24: one u32 diffuse colour for the whole section (no per-vertex colour).
pub const FLAG_UNIFORM_DIFFUSE: u32 = 1 << 24;
/// Vertex flags bit 25 (OpenKh's "no weight").
pub const FLAG_BIT25: u32 = 1 << 25;
/// Joint parent / skin index meaning "none".
pub const NO_JOINT: u32 = 0xFFFF;
/// Joint table entry meaning "unused slot".
pub const UNUSED_SLOT: u8 = 0xFF;

/// "list 0 has 46 sections (0..=45), list 1 has 8 (0..=7)": the section numbering of both
/// mesh lists, for errors about a section index.
pub fn describe_lists(lengths: &[usize; 2]) -> String {
    let one = |l: usize, n: usize| match n {
        0 => format!("list {l} is empty"),
        1 => format!("list {l} has 1 section (0)"),
        n => format!("list {l} has {n} sections (0..={})", n - 1),
    };
    format!("{}, {}", one(0, lengths[0]), one(1, lengths[1]))
}

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum PmoError {
    #[error("PMO truncated at offset {offset:#x}: {what} needs {need} bytes, {have} available")]
    Truncated { offset: usize, what: &'static str, need: usize, have: usize },
    #[error("PMO bad magic at offset {offset:#x}: {} (expected \"{expected}\")", crate::output::magic_text(found))]
    BadMagic { offset: usize, found: [u8; 4], expected: &'static str },
    #[error("PMO {what} at offset {offset:#x} is {value:#x}, out of range (file size {len:#x})")]
    OffsetOutOfRange { offset: usize, what: &'static str, value: u64, len: usize },
    #[error("PMO {what} at offset {offset:#x} is not {align}-byte aligned")]
    Misaligned { offset: usize, what: &'static str, align: u32 },
    #[error("PMO section at offset {offset:#x}: texture id {id} out of range ({count} textures)")]
    TextureIdOutOfRange { offset: usize, id: u8, count: usize },
    #[error("PMO absurd {what} {value} at offset {offset:#x}")]
    AbsurdCount { offset: usize, what: &'static str, value: u64 },
    #[error("PMO section at offset {offset:#x}: vertex size {size} != GE stride {stride} of VTYPE {vtype:#08x}")]
    VertexSize { offset: usize, size: u8, stride: u32, vtype: u32 },
    #[error("PMO section at offset {offset:#x}: strip lengths sum to {sum}, vertex count is {vertex_count}")]
    StripSum { offset: usize, sum: u32, vertex_count: u16 },
    #[error("PMO texture {index} at offset {offset:#x}: {cause}")]
    Tim2 { offset: usize, index: usize, cause: Tim2Error },
    #[error("PMO cannot be written: {what} (at offset {offset:#x})")]
    Unwritable { offset: usize, what: String },
}

/// The fixed header fields; the texture count is `Pmo::textures.len()`.
#[derive(Debug, Clone, PartialEq)]
pub struct Header {
    pub number: u8,
    pub group: u8,
    pub version: u8,
    /// Byte 7 (padding), kept raw.
    pub pad7: u8,
    /// Byte 9 (padding after the texture count), kept raw.
    pub pad9: u8,
    pub flag: u16,
    /// Offset of the BON skeleton from the PMO start, 0 = none.
    pub skeleton_offset: u32,
    /// Offsets of mesh lists 0 and 1 from the PMO start, 0 = absent.
    pub mesh_offsets: [u32; 2],
    pub triangle_count: u16,
    pub vertex_count: u16,
    pub model_scale: f32,
    /// 8 corner points (x, y, z, w).
    pub bounding_box: [[f32; 4]; 8],
}

#[derive(Debug, Clone, PartialEq)]
pub struct TextureInfo {
    /// Offset of the TIM2 data (from the PMO start for stand-alone files; in PMPs it is a PMP
    /// file offset); 0 = stored elsewhere.
    pub tim2_offset: u32,
    pub name: [u8; 12],
    pub tiling_speed: [f32; 2],
    pub unknown: [u32; 2],
    /// The TIM2 bytes at `tim2_offset` (stand-alone PMOs with a non-zero offset only).
    pub tim2: Option<Vec<u8>>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Section {
    pub texture_id: u8,
    pub vertex_size: u8,
    /// VTYPE in bits 0-23, uniform diffuse bit 24, bit 25, primitive type in bits 28-31.
    pub vertex_flags: u32,
    pub group: u8,
    pub attribute: u16,
    /// Joint index per GE bone slot (0xFF unused); present iff the model has a skeleton.
    pub joints: Option<[u8; 8]>,
    /// Uniform diffuse colour (ABGR, R in the low byte); present iff flag bit 24.
    pub diffuse: Option<u32>,
    /// Strip lengths (one PRIM each); empty = one PRIM of all vertices.
    pub strips: Vec<u16>,
    /// Raw vertex bytes, `vertex_count * vertex_size` long.
    pub vertices: Vec<u8>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Skeleton {
    pub unknown: u32,
    pub skinned_count: u16,
    pub skin_start: u16,
    pub joints: Vec<Joint>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Joint {
    pub index: u32,
    /// Parent joint, [`NO_JOINT`] for a root.
    pub parent: u32,
    /// Skinning index, [`NO_JOINT`] when the joint is not skinned.
    pub skin_index: u32,
    pub reserved: u32,
    pub name: [u8; 16],
    /// Local (parent-relative) bind matrix, 16 f32 as stored (rows: X, Y, Z axes, translation).
    pub local: [f32; 16],
    /// Inverse of the global bind matrix, same layout.
    pub inverse_global: [f32; 16],
}

#[derive(Debug, Clone, PartialEq)]
pub struct Pmo {
    pub header: Header,
    pub textures: Vec<TextureInfo>,
    /// Mesh list 0 and mesh list 1 (a list is written only when its header offset is non-zero).
    pub meshes: [Vec<Section>; 2],
    pub skeleton: Option<Skeleton>,
    /// Length of the file (for a PMO inside a PMP: the end of its last structure, rounded up
    /// to 16); the writer zero-pads up to it.
    pub file_size: u32,
}

/// Name bytes up to the first NUL, lossily as UTF-8.
pub fn name_str(name: &[u8]) -> String {
    let end = name.iter().position(|&b| b == 0).unwrap_or(name.len());
    String::from_utf8_lossy(&name[..end]).into_owned()
}

fn need(b: &[u8], off: usize, n: usize, what: &'static str) -> Result<(), PmoError> {
    if off.checked_add(n).is_some_and(|e| e <= b.len()) {
        Ok(())
    } else {
        Err(PmoError::Truncated { offset: off, what, need: n, have: b.len().saturating_sub(off) })
    }
}

fn f32s<const N: usize>(b: &[u8], off: usize) -> [f32; N] {
    std::array::from_fn(|i| le::f32(b, off + 4 * i).unwrap())
}

impl Header {
    /// A header as the samples and OpenKh's writer have it (number 1, group 1, version 3,
    /// flag 0x8000), with `model_scale`, no offsets (the writer fills them) and a zero box.
    pub fn new(model_scale: f32) -> Header {
        Header {
            number: 1,
            group: 1,
            version: 3,
            pad7: 0,
            pad9: 0,
            flag: 0x8000,
            skeleton_offset: 0,
            mesh_offsets: [0, 0],
            triangle_count: 0,
            vertex_count: 0,
            model_scale,
            bounding_box: [[0.0, 0.0, 0.0, 1.0]; 8],
        }
    }
}

impl Section {
    pub fn vtype(&self) -> u32 {
        self.vertex_flags & 0x00FF_FFFF
    }
    /// GE primitive type (PRIM bits 16-18) from flag bits 28-31.
    pub fn prim(&self) -> u32 {
        self.vertex_flags >> 28
    }
    pub fn uniform_diffuse(&self) -> bool {
        self.vertex_flags & FLAG_UNIFORM_DIFFUSE != 0
    }
    pub fn layout(&self) -> VertexLayout {
        VertexLayout::new(self.vtype())
    }
    pub fn vertex_count(&self) -> usize {
        if self.vertex_size == 0 {
            0
        } else {
            self.vertices.len() / usize::from(self.vertex_size)
        }
    }
    /// Bytes before the vertex data (header, joint table, colour, strip lengths).
    pub fn prefix_len(&self) -> usize {
        SECTION_HEADER_SIZE
            + if self.joints.is_some() { 8 } else { 0 }
            + if self.diffuse.is_some() { 4 } else { 0 }
            + 2 * self.strips.len()
    }
    /// Vertex count of each PRIM the section draws: one per strip length, or one PRIM of
    /// every vertex when there are no strip lengths.
    pub fn prim_counts(&self) -> Vec<usize> {
        if self.strips.is_empty() {
            vec![self.vertex_count()]
        } else {
            self.strips.iter().map(|&n| usize::from(n)).collect()
        }
    }
    /// Triangles drawn by this section (strips/fans: n-2 per PRIM; triangles: n/3).
    pub fn triangle_count(&self) -> usize {
        let prims = self.prim_counts();
        match self.prim() {
            3 => prims.iter().map(|n| n / 3).sum(),
            4 | 5 => prims.iter().map(|n| n.saturating_sub(2)).sum(),
            _ => 0,
        }
    }
    /// Decode every vertex through the GE's decoder. Colourless vertices take the uniform
    /// diffuse colour (as MATERIALAMBIENT + MATERIALALPHA would), else `params.material`.
    pub fn decode(&self, params: &DecodeParams) -> Vec<Vertex> {
        let layout = self.layout();
        let mut p = *params;
        if let Some(c) = self.diffuse {
            p.material = c.to_le_bytes();
        }
        let mut persist = Persist::default();
        let n = usize::from(self.vertex_size.max(1));
        self.vertices.chunks_exact(n).map(|v| decode_vertex(&layout, v, &p, &mut persist)).collect()
    }

    fn parse(b: &[u8], p: usize, skinned: bool, texture_count: usize) -> Result<(Option<Section>, usize), PmoError> {
        need(b, p, SECTION_HEADER_SIZE, "section header")?;
        let vc = le::u16(b, p).unwrap();
        if vc == 0 {
            return Ok((None, p + SECTION_HEADER_SIZE));
        }
        let texture_id = b[p + 2];
        let vertex_size = b[p + 3];
        let vertex_flags = le::u32(b, p + 4).unwrap();
        let group = b[p + 8];
        let strip_count = b[p + 9];
        let attribute = le::u16(b, p + 10).unwrap();
        if usize::from(texture_id) >= texture_count {
            return Err(PmoError::TextureIdOutOfRange { offset: p + 2, id: texture_id, count: texture_count });
        }
        let layout = VertexLayout::new(vertex_flags & 0x00FF_FFFF);
        if u32::from(vertex_size) != layout.stride {
            return Err(PmoError::VertexSize {
                offset: p + 3,
                size: vertex_size,
                stride: layout.stride,
                vtype: vertex_flags & 0x00FF_FFFF,
            });
        }
        if usize::from(vc) * usize::from(vertex_size) > b.len() - p {
            return Err(PmoError::AbsurdCount {
                offset: p,
                what: "vertex count (data past end of file)",
                value: vc.into(),
            });
        }
        let mut q = p + SECTION_HEADER_SIZE;
        let joints = if skinned {
            need(b, q, 8, "section joint table")?;
            q += 8;
            Some(le::bytes::<8>(b, q - 8).unwrap())
        } else {
            None
        };
        let diffuse = if vertex_flags & FLAG_UNIFORM_DIFFUSE != 0 {
            need(b, q, 4, "section diffuse colour")?;
            q += 4;
            Some(le::u32(b, q - 4).unwrap())
        } else {
            None
        };
        need(b, q, 2 * usize::from(strip_count), "strip lengths")?;
        let strips: Vec<u16> = (0..usize::from(strip_count)).map(|i| le::u16(b, q + 2 * i).unwrap()).collect();
        if strip_count > 0 {
            let sum: u32 = strips.iter().map(|&s| u32::from(s)).sum();
            if sum != u32::from(vc) {
                return Err(PmoError::StripSum { offset: q, sum, vertex_count: vc });
            }
        }
        q += 2 * usize::from(strip_count);
        if !q.is_multiple_of(layout.align as usize) {
            return Err(PmoError::Misaligned { offset: q, what: "vertex data", align: layout.align });
        }
        let n = usize::from(vc) * usize::from(vertex_size);
        need(b, q, n, "vertex data")?;
        let vertices = b[q..q + n].to_vec();
        let end = (q + n).next_multiple_of(4);
        let s = Section { texture_id, vertex_size, vertex_flags, group, attribute, joints, diffuse, strips, vertices };
        Ok((Some(s), end))
    }

    fn write(&self, out: &mut [u8], p: usize) -> usize {
        let vc = self.vertex_count() as u16;
        out[p..p + 2].copy_from_slice(&vc.to_le_bytes());
        out[p + 2] = self.texture_id;
        out[p + 3] = self.vertex_size;
        out[p + 4..p + 8].copy_from_slice(&self.vertex_flags.to_le_bytes());
        out[p + 8] = self.group;
        out[p + 9] = self.strips.len() as u8;
        out[p + 10..p + 12].copy_from_slice(&self.attribute.to_le_bytes());
        let mut q = p + SECTION_HEADER_SIZE;
        if let Some(j) = self.joints {
            out[q..q + 8].copy_from_slice(&j);
            q += 8;
        }
        if let Some(c) = self.diffuse {
            out[q..q + 4].copy_from_slice(&c.to_le_bytes());
            q += 4;
        }
        for s in &self.strips {
            out[q..q + 2].copy_from_slice(&s.to_le_bytes());
            q += 2;
        }
        out[q..q + self.vertices.len()].copy_from_slice(&self.vertices);
        (q + self.vertices.len()).next_multiple_of(4)
    }

    /// Everything the parser would reject, reported at the would-be offset `p`.
    fn check(&self, p: usize, skinned: bool, texture_count: usize) -> Result<(), PmoError> {
        let bad = |what: String| Err(PmoError::Unwritable { offset: p, what });
        let layout = self.layout();
        if u32::from(self.vertex_size) != layout.stride {
            return bad(format!("vertex size {} != GE stride {}", self.vertex_size, layout.stride));
        }
        let vc = self.vertex_count();
        if vc == 0 || vc > 0xFFFF || vc * usize::from(self.vertex_size) != self.vertices.len() {
            return bad(format!(
                "{} vertex bytes is not 1..=65535 vertices of {}",
                self.vertices.len(),
                self.vertex_size
            ));
        }
        if usize::from(self.texture_id) >= texture_count {
            return bad(format!("texture id {} with {texture_count} textures", self.texture_id));
        }
        if self.joints.is_some() != skinned {
            return bad("joint table present iff the model has a skeleton".into());
        }
        if self.diffuse.is_some() != self.uniform_diffuse() {
            return bad("diffuse colour present iff flag bit 24".into());
        }
        if self.strips.len() > 255 {
            return bad("more than 255 strips".into());
        }
        if !self.strips.is_empty() && self.strips.iter().map(|&s| usize::from(s)).sum::<usize>() != vc {
            return bad("strip lengths do not sum to the vertex count".into());
        }
        if !(p + self.prefix_len()).is_multiple_of(layout.align as usize) {
            return bad(format!("vertex data would not be {}-byte aligned", layout.align));
        }
        Ok(())
    }

    fn len(&self) -> usize {
        (self.prefix_len() + self.vertices.len()).next_multiple_of(4)
    }
}

impl Joint {
    pub fn name(&self) -> String {
        name_str(&self.name)
    }
    pub fn parent_index(&self) -> Option<usize> {
        (self.parent != NO_JOINT && self.parent != u32::MAX).then_some(self.parent as usize)
    }
    pub fn skin(&self) -> Option<u32> {
        (self.skin_index != NO_JOINT && self.skin_index != u32::MAX).then_some(self.skin_index)
    }
}

impl Skeleton {
    /// Global bind matrices (column-vector convention), chaining each joint's local bind
    /// matrix onto its parent's. A parent that does not precede its child is treated as a
    /// root (the samples' parents always precede their children).
    pub fn bind_globals(&self) -> Vec<glam::Mat4> {
        let mut g: Vec<glam::Mat4> = Vec::with_capacity(self.joints.len());
        for (i, j) in self.joints.iter().enumerate() {
            let local = glam::Mat4::from_cols_array(&j.local);
            let m = match j.parent_index().filter(|&p| p < i) {
                Some(p) => g[p] * local,
                None => local,
            };
            g.push(m);
        }
        g
    }

    /// Skinning matrices G_j · InvBind_j for joint globals `globals` (one per joint; missing
    /// entries use the bind pose, i.e. the identity).
    pub fn skin_matrices(&self, globals: &[glam::Mat4]) -> Vec<glam::Mat4> {
        self.joints
            .iter()
            .enumerate()
            .map(|(i, j)| match globals.get(i) {
                Some(g) => *g * glam::Mat4::from_cols_array(&j.inverse_global),
                None => glam::Mat4::IDENTITY,
            })
            .collect()
    }

    fn parse(b: &[u8], s: usize) -> Result<Skeleton, PmoError> {
        if !s.is_multiple_of(4) {
            return Err(PmoError::Misaligned { offset: 0x0C, what: "skeleton offset", align: 4 });
        }
        need(b, s, SKELETON_HEADER_SIZE, "skeleton header")?;
        let magic = le::bytes::<4>(b, s).unwrap();
        if &magic != SKELETON_MAGIC {
            return Err(PmoError::BadMagic { offset: s, found: magic, expected: "BON\\0" });
        }
        let count = le::u32(b, s + 8).unwrap();
        let room = b.len().saturating_sub(s + SKELETON_HEADER_SIZE) / JOINT_SIZE;
        if count as usize > room || count > 0xFFFF {
            return Err(PmoError::AbsurdCount { offset: s + 8, what: "joint count", value: count.into() });
        }
        let joints = (0..count as usize)
            .map(|i| {
                let j = s + SKELETON_HEADER_SIZE + i * JOINT_SIZE;
                Joint {
                    index: le::u32(b, j).unwrap(),
                    parent: le::u32(b, j + 4).unwrap(),
                    skin_index: le::u32(b, j + 8).unwrap(),
                    reserved: le::u32(b, j + 12).unwrap(),
                    name: le::bytes::<16>(b, j + 16).unwrap(),
                    local: f32s(b, j + 32),
                    inverse_global: f32s(b, j + 96),
                }
            })
            .collect();
        Ok(Skeleton {
            unknown: le::u32(b, s + 4).unwrap(),
            skinned_count: le::u16(b, s + 12).unwrap(),
            skin_start: le::u16(b, s + 14).unwrap(),
            joints,
        })
    }

    fn len(&self) -> usize {
        SKELETON_HEADER_SIZE + JOINT_SIZE * self.joints.len()
    }

    fn write(&self, out: &mut [u8], s: usize) {
        out[s..s + 4].copy_from_slice(SKELETON_MAGIC);
        out[s + 4..s + 8].copy_from_slice(&self.unknown.to_le_bytes());
        out[s + 8..s + 12].copy_from_slice(&(self.joints.len() as u32).to_le_bytes());
        out[s + 12..s + 14].copy_from_slice(&self.skinned_count.to_le_bytes());
        out[s + 14..s + 16].copy_from_slice(&self.skin_start.to_le_bytes());
        for (i, j) in self.joints.iter().enumerate() {
            let o = s + SKELETON_HEADER_SIZE + i * JOINT_SIZE;
            for (k, v) in [j.index, j.parent, j.skin_index, j.reserved].into_iter().enumerate() {
                out[o + 4 * k..o + 4 * k + 4].copy_from_slice(&v.to_le_bytes());
            }
            out[o + 16..o + 32].copy_from_slice(&j.name);
            for (k, v) in j.local.iter().chain(j.inverse_global.iter()).enumerate() {
                out[o + 32 + 4 * k..o + 36 + 4 * k].copy_from_slice(&v.to_bits().to_le_bytes());
            }
        }
    }
}

impl TextureInfo {
    /// A texture record named `name` (up to 11 bytes kept, NUL-padded) holding `tim2`
    /// (`None`: stored elsewhere, e.g. in the PMP), tiling speed 0.
    pub fn new(name: &str, tim2: Option<Vec<u8>>) -> TextureInfo {
        let mut n = [0u8; 12];
        n.iter_mut().zip(name.bytes().take(11)).for_each(|(d, s)| *d = s);
        TextureInfo { tim2_offset: 0, name: n, tiling_speed: [0.0; 2], unknown: [0; 2], tim2 }
    }

    pub fn name(&self) -> String {
        name_str(&self.name)
    }
    /// The embedded TIM2, parsed.
    pub fn parse_tim2(&self) -> Option<Result<Tim2, Tim2Error>> {
        self.tim2.as_ref().map(|b| Tim2::parse(b))
    }
}

impl Pmo {
    /// Parse a stand-alone PMO file (offsets, including TIM2 offsets, from the start of `bytes`).
    pub fn parse(bytes: &[u8]) -> Result<Pmo, PmoError> {
        Self::parse_inner(bytes, true)
    }

    /// Parse a PMO embedded in a PMP: `bytes` starts at the PMO; its TIM2 offsets point into
    /// the PMP and are not followed (the PMP's texture list holds the data).
    pub fn parse_embedded(bytes: &[u8]) -> Result<Pmo, PmoError> {
        Self::parse_inner(bytes, false)
    }

    fn parse_inner(b: &[u8], load_textures: bool) -> Result<Pmo, PmoError> {
        need(b, 0, HEADER_SIZE, "PMO header")?;
        let magic = le::bytes::<4>(b, 0).unwrap();
        if &magic != MAGIC {
            return Err(PmoError::BadMagic { offset: 0, found: magic, expected: "PMO\\0" });
        }
        let texture_count = usize::from(b[8]);
        let bbox: [f32; 32] = f32s(b, 0x20);
        let header = Header {
            number: b[4],
            group: b[5],
            version: b[6],
            pad7: b[7],
            pad9: b[9],
            flag: le::u16(b, 0x0A).unwrap(),
            skeleton_offset: le::u32(b, 0x0C).unwrap(),
            mesh_offsets: [le::u32(b, 0x10).unwrap(), le::u32(b, 0x1C).unwrap()],
            triangle_count: le::u16(b, 0x14).unwrap(),
            vertex_count: le::u16(b, 0x16).unwrap(),
            model_scale: le::f32(b, 0x18).unwrap(),
            bounding_box: std::array::from_fn(|i| std::array::from_fn(|k| bbox[4 * i + k])),
        };
        need(b, HEADER_SIZE, texture_count * TEXTURE_RECORD_SIZE, "texture records")?;
        // End of the furthest structure read (the size of an embedded PMO).
        let mut extent = HEADER_SIZE + texture_count * TEXTURE_RECORD_SIZE;
        let mut textures = Vec::with_capacity(texture_count);
        for i in 0..texture_count {
            let t = HEADER_SIZE + i * TEXTURE_RECORD_SIZE;
            let tim2_offset = le::u32(b, t).unwrap();
            let tim2 = if load_textures && tim2_offset != 0 {
                let o = tim2_offset as usize;
                if o >= b.len() {
                    return Err(PmoError::OffsetOutOfRange {
                        offset: t,
                        what: "TIM2 offset",
                        value: tim2_offset.into(),
                        len: b.len(),
                    });
                }
                let (_, len) = Tim2::parse_at(b, o).map_err(|cause| PmoError::Tim2 { offset: t, index: i, cause })?;
                extent = extent.max(o + len);
                Some(b[o..o + len].to_vec())
            } else {
                None
            };
            textures.push(TextureInfo {
                tim2_offset,
                name: le::bytes::<12>(b, t + 4).unwrap(),
                tiling_speed: [le::f32(b, t + 16).unwrap(), le::f32(b, t + 20).unwrap()],
                unknown: [le::u32(b, t + 24).unwrap(), le::u32(b, t + 28).unwrap()],
                tim2,
            });
        }
        let skinned = header.skeleton_offset != 0;
        let mut meshes = [Vec::new(), Vec::new()];
        for (l, field) in [(0usize, 0x10usize), (1, 0x1C)] {
            let off = header.mesh_offsets[l];
            if off == 0 {
                continue;
            }
            if off as usize >= b.len() {
                return Err(PmoError::OffsetOutOfRange {
                    offset: field,
                    what: "mesh list offset",
                    value: off.into(),
                    len: b.len(),
                });
            }
            if !off.is_multiple_of(4) {
                return Err(PmoError::Misaligned { offset: field, what: "mesh list offset", align: 4 });
            }
            let mut p = off as usize;
            loop {
                let (s, next) = Section::parse(b, p, skinned, texture_count)?;
                p = next;
                match s {
                    Some(s) => meshes[l].push(s),
                    None => break,
                }
            }
            extent = extent.max(p);
        }
        let skeleton = if skinned {
            let s = header.skeleton_offset as usize;
            if s >= b.len() {
                return Err(PmoError::OffsetOutOfRange {
                    offset: 0x0C,
                    what: "skeleton offset",
                    value: s as u64,
                    len: b.len(),
                });
            }
            let sk = Skeleton::parse(b, s)?;
            extent = extent.max(s + sk.len());
            Some(sk)
        } else {
            None
        };
        // A stand-alone file keeps its length (trailing padding); an embedded PMO ends after
        // its last structure, rounded to 16 bytes.
        let file_size = if load_textures { b.len() } else { extent.next_multiple_of(16).min(b.len()) };
        Ok(Pmo { header, textures, meshes, skeleton, file_size: file_size.min(u32::MAX as usize) as u32 })
    }

    /// All sections, list 0 first, with their list number.
    pub fn sections(&self) -> impl Iterator<Item = (usize, &Section)> {
        self.meshes.iter().enumerate().flat_map(|(l, v)| v.iter().map(move |s| (l, s)))
    }

    /// (vertex total, triangle total) computed from the sections.
    pub fn counts(&self) -> (usize, usize) {
        self.sections().fold((0, 0), |(v, t), (_, s)| (v + s.vertex_count(), t + s.triangle_count()))
    }

    fn list_len(list: &[Section]) -> usize {
        list.iter().map(Section::len).sum::<usize>() + SECTION_HEADER_SIZE
    }

    /// Lay the model out canonically: header, texture records, list 0, list 1, TIM2s, skeleton,
    /// each starting 16-byte aligned; sets every offset, the header counts and `file_size`.
    /// Empty mesh lists get offset 0 (list 0 is kept when both are empty).
    pub fn pack(&mut self) {
        let mut p = (HEADER_SIZE + TEXTURE_RECORD_SIZE * self.textures.len()).next_multiple_of(16);
        for l in 0..2 {
            if self.meshes[l].is_empty() && (l == 1 || !self.meshes[1].is_empty()) {
                self.header.mesh_offsets[l] = 0;
                continue;
            }
            self.header.mesh_offsets[l] = p as u32;
            p = (p + Self::list_len(&self.meshes[l])).next_multiple_of(16);
        }
        for t in &mut self.textures {
            match &t.tim2 {
                Some(d) => {
                    t.tim2_offset = p as u32;
                    p = (p + d.len()).next_multiple_of(16);
                }
                None => t.tim2_offset = 0,
            }
        }
        self.header.skeleton_offset = 0;
        if let Some(s) = &self.skeleton {
            self.header.skeleton_offset = p as u32;
            p += s.len();
        }
        let (v, t) = self.counts();
        self.header.vertex_count = v.min(0xFFFF) as u16;
        self.header.triangle_count = t.min(0xFFFF) as u16;
        self.file_size = p as u32;
    }

    /// Serialise at the offsets in the header and texture records (see [`Pmo::pack`]); gaps are
    /// zero. Fails when the model is not something [`Pmo::parse`] would return.
    pub fn to_bytes(&self) -> Result<Vec<u8>, PmoError> {
        let bad = |offset: usize, what: String| Err(PmoError::Unwritable { offset, what });
        let h = &self.header;
        if self.textures.len() > 255 {
            return bad(8, "more than 255 textures".into());
        }
        let skinned = h.skeleton_offset != 0;
        if skinned != self.skeleton.is_some() {
            return bad(0x0C, "skeleton offset non-zero iff a skeleton is present".into());
        }
        // Regions (start, end, name) that must not overlap.
        let mut regions = vec![(0usize, HEADER_SIZE + TEXTURE_RECORD_SIZE * self.textures.len(), "header")];
        for l in 0..2 {
            let off = h.mesh_offsets[l] as usize;
            if off == 0 {
                if !self.meshes[l].is_empty() {
                    return bad(if l == 0 { 0x10 } else { 0x1C }, format!("mesh list {l} has sections but offset 0"));
                }
                continue;
            }
            if !off.is_multiple_of(4) {
                return bad(off, format!("mesh list {l} offset not 4-byte aligned"));
            }
            let mut p = off;
            for s in &self.meshes[l] {
                s.check(p, skinned, self.textures.len())?;
                p += s.len();
            }
            regions.push((off, p + SECTION_HEADER_SIZE, "mesh list"));
        }
        for t in &self.textures {
            match (&t.tim2, t.tim2_offset) {
                (Some(d), o) if o != 0 => regions.push((o as usize, o as usize + d.len(), "TIM2")),
                (Some(_), _) => return bad(HEADER_SIZE, "TIM2 data with offset 0".into()),
                (None, _) => {}
            }
        }
        if let Some(s) = &self.skeleton {
            let o = h.skeleton_offset as usize;
            if !o.is_multiple_of(4) {
                return bad(o, "skeleton offset not 4-byte aligned".into());
            }
            if s.joints.len() > 0xFFFF {
                return bad(o, "more than 65535 joints".into());
            }
            regions.push((o, o + s.len(), "skeleton"));
        }
        regions.sort();
        for w in regions.windows(2) {
            if w[1].0 < w[0].1 {
                return bad(w[1].0, format!("{} overlaps {}", w[1].2, w[0].2));
            }
        }
        let end = regions.iter().map(|r| r.1).max().unwrap_or(0).max(self.file_size as usize);
        let mut out = vec![0u8; end];
        out[0..4].copy_from_slice(MAGIC);
        out[4] = h.number;
        out[5] = h.group;
        out[6] = h.version;
        out[7] = h.pad7;
        out[8] = self.textures.len() as u8;
        out[9] = h.pad9;
        out[0x0A..0x0C].copy_from_slice(&h.flag.to_le_bytes());
        out[0x0C..0x10].copy_from_slice(&h.skeleton_offset.to_le_bytes());
        out[0x10..0x14].copy_from_slice(&h.mesh_offsets[0].to_le_bytes());
        out[0x14..0x16].copy_from_slice(&h.triangle_count.to_le_bytes());
        out[0x16..0x18].copy_from_slice(&h.vertex_count.to_le_bytes());
        out[0x18..0x1C].copy_from_slice(&h.model_scale.to_bits().to_le_bytes());
        out[0x1C..0x20].copy_from_slice(&h.mesh_offsets[1].to_le_bytes());
        for (i, v) in h.bounding_box.iter().flatten().enumerate() {
            out[0x20 + 4 * i..0x24 + 4 * i].copy_from_slice(&v.to_bits().to_le_bytes());
        }
        for (i, t) in self.textures.iter().enumerate() {
            let o = HEADER_SIZE + i * TEXTURE_RECORD_SIZE;
            out[o..o + 4].copy_from_slice(&t.tim2_offset.to_le_bytes());
            out[o + 4..o + 16].copy_from_slice(&t.name);
            out[o + 16..o + 20].copy_from_slice(&t.tiling_speed[0].to_bits().to_le_bytes());
            out[o + 20..o + 24].copy_from_slice(&t.tiling_speed[1].to_bits().to_le_bytes());
            out[o + 24..o + 28].copy_from_slice(&t.unknown[0].to_le_bytes());
            out[o + 28..o + 32].copy_from_slice(&t.unknown[1].to_le_bytes());
            if let Some(d) = &t.tim2 {
                let p = t.tim2_offset as usize;
                out[p..p + d.len()].copy_from_slice(d);
            }
        }
        for l in 0..2 {
            let mut p = h.mesh_offsets[l] as usize;
            if p == 0 {
                continue;
            }
            for s in &self.meshes[l] {
                p = s.write(&mut out, p);
            }
            // Terminator: 12 zero bytes (already zero).
        }
        if let Some(s) = &self.skeleton {
            s.write(&mut out, h.skeleton_offset as usize);
        }
        Ok(out)
    }
}
