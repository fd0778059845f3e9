//! Text forms of the vertex reader's results: a [`VertexLayout`] on one line and a
//! decoded vertex with exact values (for diffing against emulator vertex dumps).

use std::fmt;

use super::VertexLayout;
use crate::geom::{ColorFormat, IndexFormat, NumFormat, Vertex};

fn num_name(f: NumFormat, signed: bool) -> &'static str {
    match (f, signed) {
        (NumFormat::None, _) => "none",
        (NumFormat::Byte, false) => "u8",
        (NumFormat::Byte, true) => "s8",
        (NumFormat::Short, false) => "u16",
        (NumFormat::Short, true) => "s16",
        (NumFormat::Float, _) => "float",
    }
}

impl fmt::Display for VertexLayout {
    /// One line, e.g.
    /// `tc=u16@0 col=none nrm=none pos=float@4 w=none idx=none morph=1 through=0 size=16 stride=16`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let vt = &self.vtype;
        if vt.has_texcoord() {
            write!(f, "tc={}@{}", num_name(vt.texcoord, false), self.texcoord_offset)?;
        } else {
            f.write_str("tc=none")?;
        }
        match vt.color {
            ColorFormat::None => f.write_str(" col=none")?,
            ColorFormat::Invalid(n) => write!(f, " col=invalid{n}")?,
            ColorFormat::Rgb565 => write!(f, " col=5650@{}", self.color_offset)?,
            ColorFormat::Rgba5551 => write!(f, " col=5551@{}", self.color_offset)?,
            ColorFormat::Rgba4444 => write!(f, " col=4444@{}", self.color_offset)?,
            ColorFormat::Rgba8888 => write!(f, " col=8888@{}", self.color_offset)?,
        }
        if vt.has_normal() {
            write!(f, " nrm={}@{}", num_name(vt.normal, true), self.normal_offset)?;
        } else {
            f.write_str(" nrm=none")?;
        }
        write!(f, " pos={}@{}", num_name(vt.position, true), self.position_offset)?;
        if vt.has_weights() {
            write!(f, " w={}x{}@{}", num_name(vt.weight, false), vt.weight_count, self.weight_offset)?;
        } else {
            f.write_str(" w=none")?;
        }
        let idx = match vt.index {
            IndexFormat::None => "none",
            IndexFormat::U8 => "u8",
            IndexFormat::U16 => "u16",
            IndexFormat::U32 => "u32",
        };
        write!(
            f,
            " idx={idx} morph={} through={} size={} stride={}",
            vt.morph_count,
            u8::from(vt.through),
            self.size,
            self.stride
        )
    }
}

/// `value [0xbits]` with the shortest round-trip decimal.
fn exact(out: &mut String, x: f32) {
    use fmt::Write;
    let _ = write!(out, "{x:?} [0x{:08x}]", x.to_bits());
}

fn exact_list(out: &mut String, name: &str, xs: &[f32]) {
    out.push_str(name);
    out.push_str("=(");
    for (i, &x) in xs.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        exact(out, x);
    }
    out.push(')');
}

/// Every attribute present in `layout`, with exact values: floats as shortest round-trip
/// decimal plus their bit pattern, e.g. `pos=(0.5 [0x3f000000], ...)`; colours as
/// `col=(r, g, b, a) [0xAABBGGRR]`. Order: w, uv, col, nrm, pos. Meant for diffing against
/// emulator vertex dumps.
pub fn format_vertex_exact(v: &Vertex, layout: &VertexLayout) -> String {
    let vt = &layout.vtype;
    let mut out = String::new();
    let sep = |out: &mut String| {
        if !out.is_empty() {
            out.push(' ');
        }
    };
    if vt.has_weights() {
        sep(&mut out);
        exact_list(&mut out, "w", &v.weights[..usize::from(vt.weight_count).min(8)]);
    }
    if vt.has_texcoord() {
        sep(&mut out);
        exact_list(&mut out, "uv", &v.uv);
    }
    if vt.color != ColorFormat::None {
        sep(&mut out);
        let c = v.color;
        out.push_str(&format!("col=({}, {}, {}, {}) [0x{:08x}]", c[0], c[1], c[2], c[3], u32::from_le_bytes(c)));
    }
    if vt.has_normal() {
        sep(&mut out);
        exact_list(&mut out, "nrm", &v.normal);
    }
    if vt.position != NumFormat::None {
        sep(&mut out);
        exact_list(&mut out, "pos", &v.pos);
    }
    out
}
