//! `psprender decode`: a bit-exact listing of every vertex of a PMO model or PMP map as the GE
//! decodes it, for diffing against emulator vertex dumps.
//!
//! Design: [`decode_file`] parses the file (PMO or PMP by magic) into [`ModelReport`]s — per
//! section its list/index, file offsets, header fields and the vertices decoded through
//! [`Section::decode`] (the GE's own decoder, `ge::vertex`). Two writers render the same
//! reports: [`write_text`] (values via `ge::vertex::format_vertex_exact`: shortest round-trip
//! decimal plus the f32 bit pattern) and [`write_json`] (serde; every float as
//! `{"value": shortest, "bits": "0x…"}` so nothing is lost even for NaN/∞, which JSON numbers
//! cannot carry). Output depends only on the file and the options.
//!
//! Offsets are absolute file offsets; for a PMP they include the PMO's offset in the map.
//! Each section is decoded on its own, starting from zero persisted texcoord/normal (a
//! section without texcoords would on the GE reuse whatever was drawn before, §2.5).
//! Morphing sections (VTYPE morph count > 1, never seen in BBS) additionally list every
//! target decoded alone; the blended value uses the given MORPHWEIGHTs.

mod json;
#[cfg(test)]
mod tests;

use std::fmt::Write;

use ge::geom::Vertex;
use ge::vertex::{decode_vertex, format_vertex_exact, DecodeParams, Persist, VertexLayout};
use thiserror::Error;

use crate::pmo::{Pmo, PmoError, Section};
use crate::pmp::{Pmp, PmpError};

pub use json::write_json;

#[derive(Debug, Error)]
pub enum DecodeError {
    #[error(transparent)]
    Pmo(#[from] PmoError),
    #[error(transparent)]
    Pmp(#[from] PmpError),
    #[error("not a PMO or PMP file: magic {} at offset 0x0", crate::output::magic_text(found))]
    UnknownMagic { found: Vec<u8> },
    #[error("section {section} does not exist: {}", crate::pmo::describe_lists(.lengths))]
    NoSuchSection { section: usize, lengths: [usize; 2] },
}

/// Which sections to list and how to decode them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Options {
    /// Only sections with this index within their list.
    pub section: Option<usize>,
    /// Only this mesh list (0 or 1).
    pub list: Option<usize>,
    /// MORPHWEIGHT0..7 for morphing sections.
    pub morph_weights: [f32; 8],
}

impl Default for Options {
    fn default() -> Self {
        let mut morph_weights = [0.0; 8];
        morph_weights[0] = 1.0;
        Options { section: None, list: None, morph_weights }
    }
}

/// One section with where it lives and its decoded vertices.
#[derive(Debug, Clone)]
pub struct SectionReport<'a> {
    pub list: usize,
    pub index: usize,
    /// File offset of the section header and of its vertex data.
    pub offset: usize,
    pub data_offset: usize,
    pub section: &'a Section,
    pub layout: VertexLayout,
    pub vertices: Vec<Vertex>,
    /// Per vertex, per morph target (empty unless morph count > 1): the target decoded alone.
    pub targets: Vec<Vec<Vertex>>,
}

/// One PMO (a stand-alone file, or one model of a PMP at `base`).
#[derive(Debug, Clone)]
pub struct ModelReport<'a> {
    /// File offset of the PMO.
    pub base: usize,
    pub pmo: &'a Pmo,
    pub sections: Vec<SectionReport<'a>>,
}

/// A parsed input file.
#[derive(Debug, Clone, PartialEq)]
pub enum Parsed {
    Pmo(Pmo),
    Pmp(Pmp),
}

impl Parsed {
    pub fn parse(bytes: &[u8]) -> Result<Parsed, DecodeError> {
        match bytes.get(..4) {
            Some(m) if m == crate::pmo::MAGIC => Ok(Parsed::Pmo(Pmo::parse(bytes)?)),
            Some(m) if m == crate::pmp::MAGIC => Ok(Parsed::Pmp(Pmp::parse(bytes)?)),
            m => Err(DecodeError::UnknownMagic { found: m.unwrap_or(bytes).to_vec() }),
        }
    }

    pub fn kind(&self) -> &'static str {
        match self {
            Parsed::Pmo(_) => "pmo",
            Parsed::Pmp(_) => "pmp",
        }
    }

    /// Every model with its file offset.
    pub fn models(&self) -> Vec<(usize, &Pmo)> {
        match self {
            Parsed::Pmo(m) => vec![(0, m)],
            Parsed::Pmp(p) => p.models.iter().map(|(o, m)| (*o as usize, m)).collect(),
        }
    }

    /// Reports of the selected sections of every model.
    pub fn reports(&self, opts: &Options) -> Vec<ModelReport<'_>> {
        self.models().into_iter().map(|(base, pmo)| report(base, pmo, opts)).collect()
    }
}

/// Decode one model's selected sections.
pub fn report<'a>(base: usize, pmo: &'a Pmo, opts: &Options) -> ModelReport<'a> {
    let params = DecodeParams { morph_weights: opts.morph_weights, material: [0; 4] };
    let mut sections = Vec::new();
    for (l, list) in pmo.meshes.iter().enumerate() {
        let mut p = base + pmo.header.mesh_offsets[l] as usize;
        for (i, s) in list.iter().enumerate() {
            let offset = p;
            // Sections start at 4-byte boundaries (ge-reference §18.1, pmo.rs layout).
            p += (s.prefix_len() + s.vertices.len()).next_multiple_of(4);
            if opts.list.is_some_and(|x| x != l) || opts.section.is_some_and(|x| x != i) {
                continue;
            }
            let layout = s.layout();
            sections.push(SectionReport {
                list: l,
                index: i,
                offset,
                data_offset: offset + s.prefix_len(),
                section: s,
                layout,
                vertices: s.decode(&params),
                targets: morph_targets(s, &layout, &params),
            });
        }
    }
    ModelReport { base, pmo, sections }
}

/// Every morph target of every vertex decoded alone (layout with morph count 1 on the
/// target's bytes; equals the morph blend with weight 1 for that target, §2.8).
fn morph_targets(s: &Section, layout: &VertexLayout, params: &DecodeParams) -> Vec<Vec<Vertex>> {
    let m = usize::from(layout.vtype.morph_count);
    if m < 2 {
        return Vec::new();
    }
    let single = VertexLayout::new(layout.vtype.raw & !(7 << 18));
    let size = layout.size as usize;
    let mut p = *params;
    if let Some(c) = s.diffuse {
        p.material = c.to_le_bytes();
    }
    let mut persist = Persist::default();
    s.vertices
        .chunks_exact(usize::from(s.vertex_size.max(1)))
        .map(|v| (0..m).map(|k| decode_vertex(&single, v.get(k * size..).unwrap_or(&[]), &p, &mut persist)).collect())
        .collect()
}

/// GE primitive type name (PRIM bits 16-18; flag bits 28-31 hold it, only 3 bits count).
pub fn prim_name(prim: u32) -> &'static str {
    match prim & 7 {
        0 => "points",
        1 => "lines",
        2 => "line_strip",
        3 => "triangles",
        4 => "triangle_strip",
        5 => "triangle_fan",
        6 => "rectangles",
        _ => "continue",
    }
}

/// Names of the set attribute bits (OpenKh names, ge-reference §18.2); unknown bits as hex.
pub fn attribute_names(a: u16) -> Vec<String> {
    let mut out = Vec::new();
    for (bit, name) in [(0x1, "NOMATERIAL"), (0x2, "GLARE"), (0x4, "BACK"), (0x8, "DIVIDE"), (0x10, "TEXALPHA")] {
        if a & bit != 0 {
            out.push(name.to_string());
        }
    }
    match (a >> 5) & 7 {
        0 => {}
        1 => out.push("BLEND_SEMITRANS".into()),
        2 => out.push("BLEND_ADD".into()),
        3 => out.push("BLEND_SUB".into()),
        n => out.push(format!("BLEND_{n}")),
    }
    for (bit, name) in [(0x400, "DROPSHADOW"), (0x800, "ENVMAP")] {
        if a & bit != 0 {
            out.push(name.to_string());
        }
    }
    let rest = a & !0x0CFF;
    if rest != 0 {
        out.push(format!("{rest:#06x}"));
    }
    out
}

/// `value [0xbits]`, as `format_vertex_exact` writes floats.
pub fn exact(x: f32) -> String {
    format!("{x:?} [0x{:08x}]", x.to_bits())
}

fn hex_bytes(b: &[u8]) -> String {
    let mut s = String::with_capacity(3 * b.len());
    for (i, x) in b.iter().enumerate() {
        if i > 0 {
            s.push(' ');
        }
        let _ = write!(s, "{x:02x}");
    }
    s
}

fn joints_text(j: &[u8; 8]) -> String {
    let v: Vec<String> = j.iter().map(|&x| if x == 0xFF { "--".into() } else { x.to_string() }).collect();
    v.join(",")
}

/// The text listing of `models` of a file of kind `kind` ("pmo"/"pmp").
pub fn write_text(kind: &str, models: &[ModelReport]) -> String {
    let mut o = String::new();
    for m in models {
        let h = &m.pmo.header;
        let (v, t) = m.pmo.counts();
        let _ = writeln!(
            o,
            "{} model @{:#x}: number={} group={} version={} flag={:#06x} textures={} scale={} \
             vertices={} (header {}) triangles={} (header {}) lists=[{:#x}, {:#x}] sections=[{}, {}] skeleton={}",
            kind.to_uppercase(),
            m.base,
            h.number,
            h.group,
            h.version,
            h.flag,
            m.pmo.textures.len(),
            exact(h.model_scale),
            v,
            h.vertex_count,
            t,
            h.triangle_count,
            h.mesh_offsets[0],
            h.mesh_offsets[1],
            m.pmo.meshes[0].len(),
            m.pmo.meshes[1].len(),
            match &m.pmo.skeleton {
                Some(s) => format!("{} joints @{:#x}", s.joints.len(), m.base + h.skeleton_offset as usize),
                None => "none".into(),
            }
        );
        for (i, tex) in m.pmo.textures.iter().enumerate() {
            let _ = writeln!(o, "texture {i}: {:?} tim2@{:#x}", tex.name(), tex.tim2_offset);
        }
        for s in &m.sections {
            section_text(&mut o, s);
        }
    }
    o
}

fn section_text(o: &mut String, r: &SectionReport) {
    let s = r.section;
    let _ = write!(
        o,
        "section list={} index={} @{:#x} data@{:#x} vertices={} texture={} flags={:#010x} prim={} {} strips=[{}] \
         attribute={:#06x} [{}] group={}",
        r.list,
        r.index,
        r.offset,
        r.data_offset,
        s.vertex_count(),
        s.texture_id,
        s.vertex_flags,
        s.prim(),
        prim_name(s.prim()),
        s.strips.iter().map(u16::to_string).collect::<Vec<_>>().join(","),
        s.attribute,
        attribute_names(s.attribute).join(" "),
        s.group,
    );
    if let Some(j) = &s.joints {
        let _ = write!(o, " joints=[{}]", joints_text(j));
    }
    if let Some(c) = s.diffuse {
        let b = c.to_le_bytes();
        let _ = write!(o, " diffuse=({}, {}, {}, {}) [{c:#010x}]", b[0], b[1], b[2], b[3]);
    }
    o.push('\n');
    let _ = writeln!(o, "  vtype={:#08x} {}", s.vtype(), r.layout);
    let stride = usize::from(s.vertex_size);
    for (i, (v, raw)) in r.vertices.iter().zip(s.vertices.chunks_exact(stride.max(1))).enumerate() {
        let _ = writeln!(
            o,
            "  v{i} @{:#x} [{}] {}",
            r.data_offset + i * stride,
            hex_bytes(raw),
            format_vertex_exact(v, &r.layout)
        );
        if let Some(ts) = r.targets.get(i) {
            let single = VertexLayout::new(r.layout.vtype.raw & !(7 << 18));
            for (k, tv) in ts.iter().enumerate() {
                let _ = writeln!(o, "    morph{k} {}", format_vertex_exact(tv, &single));
            }
        }
    }
}

/// Parse `bytes` and render the listing (text or JSON).
pub fn decode_file(bytes: &[u8], opts: &Options, json: bool) -> Result<String, DecodeError> {
    let parsed = Parsed::parse(bytes)?;
    if let Some(section) = opts.section {
        // The longest list of any model: a section index that no model has is a mistake.
        let mut lengths = [0; 2];
        for (_, pmo) in parsed.models() {
            for (l, list) in pmo.meshes.iter().enumerate() {
                lengths[l] = lengths[l].max(list.len());
            }
        }
        let selected = match opts.list {
            Some(l) => lengths[l.min(1)],
            None => lengths[0].max(lengths[1]),
        };
        if section >= selected {
            return Err(DecodeError::NoSuchSection { section, lengths });
        }
    }
    let reports = parsed.reports(opts);
    Ok(if json { write_json(parsed.kind(), &reports) } else { write_text(parsed.kind(), &reports) })
}
