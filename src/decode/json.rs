//! JSON form of the decode listing. Structs are serialised directly (not through
//! `serde_json::Value`, which would widen f32 to f64 and print e.g. 0.1f32 as
//! 0.10000000149011612): serde_json writes an `f32` field as its shortest round-trip decimal.
//! Every float also carries its bit pattern, the only exact form for NaN and ±∞ (which
//! serde_json writes as `null`).

use serde::Serialize;

use super::{attribute_names, prim_name, ModelReport, SectionReport};
use ge::geom::{ColorFormat, Vertex};
use ge::vertex::VertexLayout;

#[derive(Serialize)]
struct F {
    value: f32,
    bits: String,
}

fn f(x: f32) -> F {
    F { value: x, bits: format!("0x{:08x}", x.to_bits()) }
}

fn fs(xs: &[f32]) -> Vec<F> {
    xs.iter().map(|&x| f(x)).collect()
}

#[derive(Serialize)]
struct Color {
    rgba: [u8; 4],
    /// The colour as a little-endian u32 (0xAABBGGRR).
    hex: String,
}

fn color(c: [u8; 4]) -> Color {
    Color { rgba: c, hex: format!("0x{:08x}", u32::from_le_bytes(c)) }
}

#[derive(Serialize)]
struct Attrs {
    #[serde(skip_serializing_if = "Option::is_none")]
    weights: Option<Vec<F>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    uv: Option<Vec<F>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    color: Option<Color>,
    #[serde(skip_serializing_if = "Option::is_none")]
    normal: Option<Vec<F>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pos: Option<Vec<F>>,
}

/// The attributes present in `layout`, like `format_vertex_exact`.
fn attrs(v: &Vertex, layout: &VertexLayout) -> Attrs {
    let vt = &layout.vtype;
    Attrs {
        weights: vt.has_weights().then(|| fs(&v.weights[..usize::from(vt.weight_count).min(8)])),
        uv: vt.has_texcoord().then(|| fs(&v.uv)),
        color: (vt.color != ColorFormat::None).then(|| color(v.color)),
        normal: vt.has_normal().then(|| fs(&v.normal)),
        pos: (vt.position != ge::geom::NumFormat::None).then(|| fs(&v.pos)),
    }
}

#[derive(Serialize)]
struct JVertex {
    index: usize,
    offset: usize,
    bytes: String,
    #[serde(flatten)]
    attrs: Attrs,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    morph_targets: Vec<Attrs>,
}

#[derive(Serialize)]
struct JSection {
    list: usize,
    index: usize,
    offset: usize,
    data_offset: usize,
    vertex_count: usize,
    texture_id: u8,
    vertex_flags: String,
    vtype: String,
    layout: String,
    vertex_size: u8,
    prim: u32,
    prim_name: &'static str,
    strips: Vec<u16>,
    attribute: String,
    attribute_names: Vec<String>,
    group: u8,
    joints: Option<[u8; 8]>,
    diffuse: Option<Color>,
    vertices: Vec<JVertex>,
}

#[derive(Serialize)]
struct JTexture {
    name: String,
    tim2_offset: u32,
}

#[derive(Serialize)]
struct JModel {
    offset: usize,
    number: u8,
    group: u8,
    version: u8,
    flag: u16,
    model_scale: F,
    vertex_count: u16,
    triangle_count: u16,
    mesh_offsets: [u32; 2],
    section_counts: [usize; 2],
    skeleton_offset: u32,
    joint_count: Option<usize>,
    textures: Vec<JTexture>,
    sections: Vec<JSection>,
}

#[derive(Serialize)]
struct JFile<'a> {
    kind: &'a str,
    models: Vec<JModel>,
}

fn hex_bytes(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect::<Vec<_>>().join(" ")
}

fn section(r: &SectionReport) -> JSection {
    let s = r.section;
    let stride = usize::from(s.vertex_size);
    let single = VertexLayout::new(r.layout.vtype.raw & !(7 << 18));
    JSection {
        list: r.list,
        index: r.index,
        offset: r.offset,
        data_offset: r.data_offset,
        vertex_count: s.vertex_count(),
        texture_id: s.texture_id,
        vertex_flags: format!("{:#010x}", s.vertex_flags),
        vtype: format!("{:#08x}", s.vtype()),
        layout: r.layout.to_string(),
        vertex_size: s.vertex_size,
        prim: s.prim(),
        prim_name: prim_name(s.prim()),
        strips: s.strips.clone(),
        attribute: format!("{:#06x}", s.attribute),
        attribute_names: attribute_names(s.attribute),
        group: s.group,
        joints: s.joints,
        diffuse: s.diffuse.map(|c| color(c.to_le_bytes())),
        vertices: r
            .vertices
            .iter()
            .zip(s.vertices.chunks_exact(stride.max(1)))
            .enumerate()
            .map(|(i, (v, raw))| JVertex {
                index: i,
                offset: r.data_offset + i * stride,
                bytes: hex_bytes(raw),
                attrs: attrs(v, &r.layout),
                morph_targets: r.targets.get(i).map_or(Vec::new(), |t| t.iter().map(|tv| attrs(tv, &single)).collect()),
            })
            .collect(),
    }
}

/// The JSON listing (pretty-printed, one trailing newline).
pub fn write_json(kind: &str, models: &[ModelReport]) -> String {
    let file = JFile {
        kind,
        models: models
            .iter()
            .map(|m| {
                let h = &m.pmo.header;
                JModel {
                    offset: m.base,
                    number: h.number,
                    group: h.group,
                    version: h.version,
                    flag: h.flag,
                    model_scale: f(h.model_scale),
                    vertex_count: h.vertex_count,
                    triangle_count: h.triangle_count,
                    mesh_offsets: h.mesh_offsets,
                    section_counts: [m.pmo.meshes[0].len(), m.pmo.meshes[1].len()],
                    skeleton_offset: h.skeleton_offset,
                    joint_count: m.pmo.skeleton.as_ref().map(|s| s.joints.len()),
                    textures: m
                        .pmo
                        .textures
                        .iter()
                        .map(|t| JTexture { name: t.name(), tim2_offset: t.tim2_offset })
                        .collect(),
                    sections: m.sections.iter().map(section).collect(),
                }
            })
            .collect(),
    };
    // Serialising these plain structs cannot fail (no maps with non-string keys).
    let mut s = serde_json::to_string_pretty(&file).unwrap_or_default();
    s.push('\n');
    s
}
