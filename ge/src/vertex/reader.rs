//! The per-draw vertex reader: a VTYPE's attribute decoders chosen once per draw.
//!
//! [`super::decode_vertex`] matches every attribute's format for every vertex and reads
//! each field through a bounds-checked, zero-padding byte source. Within one draw the
//! formats never change, so [`Reader::new`] picks one small decoder per present attribute
//! (PPSSPP's decoder "steps" [PP `VertexDecoder::SetVertexType`]), and
//! [`Reader::read_all`] runs each over all of a draw's vertices in turn, on base vertices
//! that already hold what absent attributes take (the persisted texcoord and normal, the
//! material colour). [`decode_whole`] feeds it when every index and vertex byte of a
//! draw lies in one slice of memory each.
//!
//! Scope: morph count 1, aligned vertex starts, contiguous ranges; everything else keeps
//! the plain loop of [`super::decode_draw`]. Each decoder is the plain decoder's
//! arithmetic for its format, operation for operation. Property tests (vertex tests):
//! `reader_equals_plain_decoder` compares every field's bits with
//! [`super::decode_vertex`] on random formats and bytes, `whole_draw_equals_plain_loop`
//! whole draws with the plain loop.
//!
//! Measured (callgrind, main thread, PPSSPP model, 2 threads): decode per vertex
//! 11216 ~380 -> ~281 instructions, 15875 ~300 -> ~170, 19960 ~349 -> ~168,
//! 21763 ~357 -> ~250 (10 729 draws of ~7 vertices: per-draw costs weigh more).

use super::{clean_nan_inf, Persist, Src, S16_SCALE, S8_SCALE};
use crate::geom::{ColorFormat, IndexFormat, NumFormat, Vertex};
use crate::mem::Memory;
use crate::vertex::{expand4, expand5, expand6, DecodeParams, VertexLayout};

/// One attribute's decoder over a draw: for every vertex `out[k]`, its field at
/// `bytes[starts[k] + off..]` (`n`: the weight count).
type Column = fn(bytes: &[u8], starts: &[usize], off: usize, n: usize, out: &mut [Vertex]);

/// The [`Column`] of one field decoder (each field decoder reads one vertex's field at
/// an offset): the decoder is inlined into its own loop over the draw's vertices.
macro_rules! column {
    ($field:ident) => {
        |bytes: &[u8], starts: &[usize], off: usize, n: usize, out: &mut [Vertex]| {
            for (v, &at) in out.iter_mut().zip(starts) {
                $field(bytes, at + off, n, v);
            }
        }
    };
}

#[derive(Clone, Copy)]
struct Step {
    run: Column,
    off: usize,
    n: usize,
}

#[inline(always)]
fn weights_u8(s: &[u8], off: usize, n: usize, v: &mut Vertex) {
    for (j, w) in v.weights.iter_mut().enumerate().take(n) {
        *w = f32::from(Src(s).u8(off + j)) * S8_SCALE;
    }
}
#[inline(always)]
fn weights_u16(s: &[u8], off: usize, n: usize, v: &mut Vertex) {
    for (j, w) in v.weights.iter_mut().enumerate().take(n) {
        *w = f32::from(Src(s).u16(off + 2 * j)) * S16_SCALE;
    }
}
#[inline(always)]
fn weights_f32(s: &[u8], off: usize, n: usize, v: &mut Vertex) {
    for (j, w) in v.weights.iter_mut().enumerate().take(n) {
        *w = Src(s).f32(off + 4 * j);
    }
}

#[inline(always)]
fn uv_u8(s: &[u8], off: usize, _: usize, v: &mut Vertex) {
    v.uv = [f32::from(Src(s).u8(off)) * S8_SCALE, f32::from(Src(s).u8(off + 1)) * S8_SCALE];
}
#[inline(always)]
fn uv_u16_texels(s: &[u8], off: usize, _: usize, v: &mut Vertex) {
    v.uv = [f32::from(Src(s).u16(off)), f32::from(Src(s).u16(off + 2))];
}
#[inline(always)]
fn uv_u16(s: &[u8], off: usize, _: usize, v: &mut Vertex) {
    v.uv = [f32::from(Src(s).u16(off)) * S16_SCALE, f32::from(Src(s).u16(off + 2)) * S16_SCALE];
}
#[inline(always)]
fn uv_f32(s: &[u8], off: usize, _: usize, v: &mut Vertex) {
    v.uv = [Src(s).f32(off), Src(s).f32(off + 4)];
}

#[inline(always)]
fn col_565(s: &[u8], off: usize, _: usize, v: &mut Vertex) {
    let c = Src(s).u16(off);
    v.color = [expand5(c), expand6(c >> 5), expand5(c >> 11), 255];
}
#[inline(always)]
fn col_5551(s: &[u8], off: usize, _: usize, v: &mut Vertex) {
    let c = Src(s).u16(off);
    v.color = [expand5(c), expand5(c >> 5), expand5(c >> 10), if c >> 15 != 0 { 255 } else { 0 }];
}
#[inline(always)]
fn col_4444(s: &[u8], off: usize, _: usize, v: &mut Vertex) {
    let c = Src(s).u16(off);
    v.color = [expand4(c), expand4(c >> 4), expand4(c >> 8), expand4(c >> 12)];
}
#[inline(always)]
fn col_8888(s: &[u8], off: usize, _: usize, v: &mut Vertex) {
    v.color = Src(s).bytes(off);
}

#[inline(always)]
fn nrm_s8(s: &[u8], off: usize, _: usize, v: &mut Vertex) {
    v.normal = Src(s).s8x3(off);
}
#[inline(always)]
fn nrm_s16(s: &[u8], off: usize, _: usize, v: &mut Vertex) {
    v.normal = Src(s).s16x3(off);
}
#[inline(always)]
fn nrm_f32(s: &[u8], off: usize, _: usize, v: &mut Vertex) {
    v.normal = Src(s).f32x3(off);
}

#[inline(always)]
fn pos_none(_: &[u8], _: usize, _: usize, v: &mut Vertex) {
    v.pos = [f32::INFINITY; 3];
}
#[inline(always)]
fn pos_zero(_: &[u8], _: usize, _: usize, v: &mut Vertex) {
    v.pos = [0.0; 3];
}
#[inline(always)]
fn pos_s16_through(s: &[u8], off: usize, _: usize, v: &mut Vertex) {
    v.pos = [f32::from(Src(s).s16(off)), f32::from(Src(s).s16(off + 2)), f32::from(Src(s).u16(off + 4))];
}
#[inline(always)]
fn pos_f32_through(s: &[u8], off: usize, _: usize, v: &mut Vertex) {
    let z = Src(s).f32(off + 8);
    v.pos = [Src(s).f32(off), Src(s).f32(off + 4), z.clamp(0.0, 65535.0)];
}
#[inline(always)]
fn pos_s8(s: &[u8], off: usize, _: usize, v: &mut Vertex) {
    v.pos = Src(s).s8x3(off);
}
#[inline(always)]
fn pos_s16(s: &[u8], off: usize, _: usize, v: &mut Vertex) {
    v.pos = Src(s).s16x3(off);
}
#[inline(always)]
fn pos_f32_raw(s: &[u8], off: usize, _: usize, v: &mut Vertex) {
    v.pos = Src(s).f32x3(off);
}
#[inline(always)]
fn pos_f32_clean(s: &[u8], off: usize, _: usize, v: &mut Vertex) {
    v.pos = Src(s).f32x3(off).map(clean_nan_inf);
}

/// A VTYPE's decoders for one draw, in the vertex's attribute order.
pub(crate) struct Reader {
    steps: [Step; 5],
    len: usize,
    /// What absent attributes take: the persisted texcoord and normal (constant within a
    /// draw, since only present attributes update them) and the material colour.
    base: Vertex,
}

impl Reader {
    /// The reader for `layout`, or `None` for a format the plain decoder keeps (morphing).
    pub(crate) fn new(layout: &VertexLayout, params: &DecodeParams, persist: &Persist) -> Option<Reader> {
        let vt = &layout.vtype;
        if vt.morph_count != 1 {
            return None;
        }
        let nop = Step { run: column!(pos_zero), off: 0, n: 0 };
        let mut r = Reader {
            steps: [nop; 5],
            len: 0,
            base: Vertex { uv: persist.uv, normal: persist.normal, color: params.material, ..Vertex::default() },
        };
        let mut push = |run: Column, off: u32, n: usize| {
            r.steps[r.len] = Step { run, off: off as usize, n };
            r.len += 1;
        };
        if vt.has_weights() {
            let run = match vt.weight {
                NumFormat::Byte => column!(weights_u8),
                NumFormat::Short => column!(weights_u16),
                _ => column!(weights_f32),
            };
            push(run, layout.weight_offset, usize::from(vt.weight_count).min(8));
        }
        if vt.has_texcoord() {
            let run = match vt.texcoord {
                NumFormat::Byte => column!(uv_u8),
                NumFormat::Short if vt.through => column!(uv_u16_texels),
                NumFormat::Short => column!(uv_u16),
                _ => column!(uv_f32),
            };
            push(run, layout.texcoord_offset, 0);
        }
        let col: Option<Column> = match vt.color {
            ColorFormat::Rgb565 => Some(column!(col_565)),
            ColorFormat::Rgba5551 => Some(column!(col_5551)),
            ColorFormat::Rgba4444 => Some(column!(col_4444)),
            ColorFormat::Rgba8888 => Some(column!(col_8888)),
            // The material colour, as the plain decoder gives invalid formats too.
            ColorFormat::None | ColorFormat::Invalid(_) => None,
        };
        if let Some(run) = col {
            push(run, layout.color_offset, 0);
        }
        if vt.has_normal() {
            let run = match vt.normal {
                NumFormat::Byte => column!(nrm_s8),
                NumFormat::Short => column!(nrm_s16),
                _ => column!(nrm_f32),
            };
            push(run, layout.normal_offset, 0);
        }
        let pos = match (vt.position, vt.through) {
            (NumFormat::None, _) => column!(pos_none),
            (NumFormat::Byte, true) => column!(pos_zero),
            (NumFormat::Short, true) => column!(pos_s16_through),
            (NumFormat::Float, true) => column!(pos_f32_through),
            (NumFormat::Byte, false) => column!(pos_s8),
            (NumFormat::Short, false) => column!(pos_s16),
            (NumFormat::Float, false) if vt.has_weights() => column!(pos_f32_raw),
            (NumFormat::Float, false) => column!(pos_f32_clean),
        };
        push(pos, layout.position_offset, 0);
        Some(r)
    }

    /// The vertices starting at `starts` in `bytes`: [`super::decode_vertex`] of each
    /// one's bytes under the persisted values this reader was made with (the caller
    /// updates the persist). Decoded attribute by attribute over the whole draw.
    pub(crate) fn read_all(&self, bytes: &[u8], starts: &[usize]) -> Vec<Vertex> {
        let mut out = vec![self.base; starts.len()];
        for s in &self.steps[..self.len] {
            (s.run)(bytes, starts, s.off, s.n, &mut out);
        }
        out
    }

    /// One vertex from its bytes ([`Reader::read_all`] of one).
    #[cfg(test)]
    pub(crate) fn read(&self, bytes: &[u8]) -> Vertex {
        self.read_all(bytes, &[0]).pop().unwrap_or(self.base)
    }
}

/// The indices of a draw whose whole index range is one slice of memory.
enum Indices<'a> {
    Sequential,
    U8(&'a [u8]),
    U16(&'a [u8]),
    U32(&'a [u8]),
}

impl Indices<'_> {
    #[inline]
    fn get(&self, i: usize) -> u32 {
        let at = |s: &[u8], k: usize| s.get(k).copied().unwrap_or(0);
        match self {
            Indices::Sequential => i as u32,
            Indices::U8(s) => u32::from(at(s, i)),
            Indices::U16(s) => u32::from(u16::from_le_bytes([at(s, 2 * i), at(s, 2 * i + 1)])),
            Indices::U32(s) => u32::from_le_bytes([0, 1, 2, 3].map(|k| at(s, 4 * i + k))),
        }
    }
}

/// [`super::decode_draw`]'s loop when every index and every vertex byte the draw reads lie in
/// one slice of memory each (checked before anything is decoded, so no read fails
/// midway and the persisted values end as the plain loop leaves them): the vertices
/// through `reader`, the lowest and highest index, and where the highest was last read.
/// `None`: the plain loop decodes the draw (and reports its errors).
pub(super) fn decode_whole(
    mem: &Memory,
    layout: &VertexLayout,
    reader: &Reader,
    vaddr: u32,
    iaddr: u32,
    count: u32,
    persist: &mut Persist,
) -> Option<(Vec<Vertex>, u32, u32, usize)> {
    let vt = &layout.vtype;
    let n = count as usize;
    let indices = match vt.index {
        IndexFormat::None => Indices::Sequential,
        IndexFormat::U8 => Indices::U8(mem.slice(iaddr, count).ok()?),
        IndexFormat::U16 => Indices::U16(mem.slice(iaddr, count.checked_mul(2)?).ok()?),
        IndexFormat::U32 => Indices::U32(mem.slice(iaddr, count.checked_mul(4)?).ok()?),
    };
    let (mut lo, mut hi, mut hi_at) = (u32::MAX, 0u32, 0usize);
    for i in 0..n {
        let idx = indices.get(i);
        lo = lo.min(idx);
        if idx >= hi {
            hi = idx;
            hi_at = i;
        }
    }
    // Vertices lo..=hi, where the plain loop's u32 address arithmetic does not wrap.
    let stride = u64::from(layout.stride);
    let start = u64::from(vaddr) + u64::from(lo) * stride;
    let end = u64::from(vaddr) + u64::from(hi) * stride + u64::from(layout.extent);
    if end > 1 << 32 {
        return None;
    }
    let bytes = mem.slice(start as u32, u32::try_from(end - start).ok()?).ok()?;
    let stride = layout.stride as usize;
    let starts: Vec<usize> = (0..n).map(|i| (indices.get(i) - lo) as usize * stride).collect();
    let out = reader.read_all(bytes, &starts);
    if let Some(last) = out.last() {
        if vt.has_texcoord() {
            persist.uv = last.uv;
        }
        if vt.has_normal() {
            persist.normal = last.normal;
        }
    }
    Some((out, lo, hi, hi_at))
}
