//! The GE vertex reader: byte layout of a VTYPE, decoding of every attribute format
//! (incl. through mode and morphing), index buffers and the vertex/index pointer rules.
//!
//! Design:
//! * [`VertexLayout::new`] turns a VTYPE once per draw into byte offsets, the vertex size and
//!   the stride (ge-reference.md §2.2). Decoding then only matches small enums per attribute.
//! * [`decode_vertex`] reads one vertex (all morph targets) from a byte slice into a
//!   [`Vertex`]: positions, normals, texcoords and weights as `f32` with the GE's exact
//!   scales (§2.3, /128 and /32768), colours as RGBA8 (§2.4), morph targets blended with
//!   MORPHWEIGHTs in the same float operation order as PPSSPP's x86 decoder (§2.8).
//! * [`decode_draw`] fetches the vertices a PRIM/BOUNDINGBOX consumes through [`Memory`]
//!   (bounds checked; an access outside memory is a [`MemError`], never a panic) and returns
//!   the advanced internal pointers (§2.7). Where a draw's indices and vertices are
//!   contiguous memory and it does not morph, `reader` decodes it attribute by attribute
//!   with decoders chosen once per draw (same bits, property-tested against this loop).
//! * [`Persist`] carries the texcoord/normal that vertices without those attributes reuse;
//!   it lives across draws and is owned by the caller (no globals).
//!
//! Where the hardware is unmeasured the reference is PPSSPP's software renderer on x86-64
//! with the vertex JIT off (PPSSPPHeadless forces `iCpuCore = INTERPRETER`, which disables the
//! vertex JIT, `headless/Headless.cpp`); i.e. the SSE2 paths of
//! `GPU/Common/VertexDecoderCommon.cpp` and `GPU/Software/TransformUnit.cpp` `ReadVertex`.
//!
//! Caller obligations to match PPSSPP exactly (they depend on state this module doesn't see):
//! * PPSSPP reads texcoords (and so updates the persisted uv) only when texture mapping is
//!   enabled and clear mode is off (`ComputeTransformState` `readUV`); otherwise it uses the
//!   persisted uv. To mirror that, save `persist.uv` before such a draw and restore it after.
//! * BOUNDINGBOX does not go through `ReadVertex` in PPSSPP: pass a copy of the persist.
//! * PPSSPP skips a PRIM entirely (no drawing, no pointer advance) when VADDR (or IADDR for
//!   indexed draws) is unmapped; [`decode_draw`] reports that as an `Err`.

use crate::geom::{ColorFormat, IndexFormat, NumFormat, Vertex, VertexType};
use crate::mem::{MemError, Memory};
// x86 `cvttss2si`, the C++ `(int)f` of PPSSPP's decoder on x86-64.
use crate::transform::math::cvtt;

mod format;
mod reader;
#[cfg(test)]
mod tests;

pub use format::format_vertex_exact;
use reader::{decode_whole, Reader};

/// Largest possible stride: (8 float weights + float uv + 8888 + float normal + float
/// position) = 68 bytes, times 8 morph targets.
const MAX_STRIDE: usize = 544;

/// Byte layout of one vertex (ge-reference §2.2): attribute order weights, texcoord, colour,
/// normal, position; each aligned to its own alignment; size rounded up to the largest
/// alignment; stride = size * morph_count. Position format 0 still takes the s8
/// size/alignment (3 bytes). Invalid colour formats 1-3 take 0 bytes (and see
/// [`VertexLayout::new`] for the offset reset they cause).
///
/// Offsets of absent attributes are 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VertexLayout {
    pub vtype: VertexType,
    pub weight_offset: u32,
    pub texcoord_offset: u32,
    pub color_offset: u32,
    pub normal_offset: u32,
    pub position_offset: u32,
    /// Size of one morph target in bytes.
    pub size: u32,
    /// Bytes per vertex in memory (`size * morph_count`); the pointer advance per vertex.
    pub stride: u32,
    /// Largest attribute alignment (the vertex array's required alignment).
    pub align: u32,
    /// Bytes the decoder actually reads from the start of a vertex: up to the end of the
    /// last attribute of the last morph target (the trailing padding is never read).
    pub extent: u32,
}

/// Element size in bytes of a numeric format (= its alignment); position "none" is laid out
/// as s8 by the caller.
const fn elem_size(f: NumFormat) -> u32 {
    match f {
        NumFormat::None => 0,
        NumFormat::Byte => 1,
        NumFormat::Short => 2,
        NumFormat::Float => 4,
    }
}

#[inline]
const fn align_up(n: u32, a: u32) -> u32 {
    (n + a - 1) & !(a - 1)
}

impl VertexLayout {
    /// Layout of the VTYPE argument `vtype` [PP `VertexDecoder::SetVertexType`].
    ///
    /// PPSSPP quirk, reproduced: the invalid colour formats 1-3 have alignment 0 in PPSSPP's
    /// tables and its `align(n, 0)` evaluates to 0, so they *reset the running offset to 0*:
    /// the normal and position that follow overlap the weights/texcoord placed before, and
    /// the vertex size shrinks accordingly [PP `VertexDecoderCommon.cpp` `colalign`, `align`].
    /// No hardware test covers invalid colour formats.
    pub fn new(vtype: u32) -> VertexLayout {
        Self::from_type(VertexType::from_bits(vtype))
    }

    /// Layout of an already split VTYPE.
    pub fn from_type(vt: VertexType) -> VertexLayout {
        let mut off = 0u32;
        let mut biggest = 0u32;
        let mut max_end = 0u32;
        let mut place = |size: u32, align: u32, off: &mut u32| -> u32 {
            *off = align_up(*off, align);
            let at = *off;
            *off += size;
            biggest = biggest.max(align);
            max_end = max_end.max(*off);
            at
        };

        let mut weight_offset = 0;
        if vt.has_weights() {
            // Weights start the vertex; no alignment is applied before them.
            let e = elem_size(vt.weight);
            weight_offset = place(e * u32::from(vt.weight_count), e, &mut off);
        }
        let mut texcoord_offset = 0;
        if vt.has_texcoord() {
            let e = elem_size(vt.texcoord);
            texcoord_offset = place(2 * e, e, &mut off);
        }
        let mut color_offset = 0;
        match vt.color {
            ColorFormat::None => {}
            // [PP SetVertexType: align(size, 0) == 0] the running offset restarts at 0.
            ColorFormat::Invalid(_) => off = 0,
            ColorFormat::Rgb565 | ColorFormat::Rgba5551 | ColorFormat::Rgba4444 => {
                color_offset = place(2, 2, &mut off);
            }
            ColorFormat::Rgba8888 => color_offset = place(4, 4, &mut off),
        }
        let mut normal_offset = 0;
        if vt.has_normal() {
            let e = elem_size(vt.normal);
            normal_offset = place(3 * e, e, &mut off);
        }
        // Position "none" is laid out like s8 [PP possize/posalign tables; ge-reference §2.2].
        let pe = elem_size(vt.position).max(1);
        let position_offset = place(3 * pe, pe, &mut off);

        let size = align_up(off, biggest);
        let morph = u32::from(vt.morph_count);
        VertexLayout {
            vtype: vt,
            weight_offset,
            texcoord_offset,
            color_offset,
            normal_offset,
            position_offset,
            size,
            stride: size * morph,
            align: biggest,
            extent: size * (morph - 1) + max_end,
        }
    }
}

/// Per-draw inputs of decoding.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct DecodeParams {
    /// MORPHWEIGHT0..7 (float24 values); ignored when the morph count is 1.
    pub morph_weights: [f32; 8],
    /// Colour of colourless vertices: MATERIALAMBIENT rgb + MATERIALALPHA.
    pub material: [u8; 4],
}

/// Values that persist across vertices AND draws: a vertex format without texcoords/normals
/// reuses the last decoded ones [HW `texmtx/source`; PP `TransformUnit::ReadVertex` statics].
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct Persist {
    pub uv: [f32; 2],
    pub normal: [f32; 3],
}

/// Little-endian reads from a vertex's bytes; bytes past the end of the slice read as zero.
#[derive(Clone, Copy)]
struct Src<'a>(&'a [u8]);

impl Src<'_> {
    #[inline]
    fn bytes<const N: usize>(self, off: usize) -> [u8; N] {
        let mut out = [0u8; N];
        match self.0.get(off..off + N) {
            Some(s) => out.copy_from_slice(s),
            None => out = self.padded(off),
        }
        out
    }
    /// [`Src::bytes`] of a field running past the slice (never in the draw loops, which hand
    /// every vertex its whole extent): out of line, so the common read stays small.
    #[cold]
    #[inline(never)]
    fn padded<const N: usize>(self, off: usize) -> [u8; N] {
        std::array::from_fn(|i| self.0.get(off + i).copied().unwrap_or(0))
    }
    #[inline]
    fn u8(self, off: usize) -> u8 {
        self.0.get(off).copied().unwrap_or(0)
    }
    #[inline]
    fn s8(self, off: usize) -> i8 {
        self.u8(off) as i8
    }
    #[inline]
    fn u16(self, off: usize) -> u16 {
        u16::from_le_bytes(self.bytes(off))
    }
    #[inline]
    fn s16(self, off: usize) -> i16 {
        i16::from_le_bytes(self.bytes(off))
    }
    #[inline]
    fn f32(self, off: usize) -> f32 {
        f32::from_bits(u32::from_le_bytes(self.bytes(off)))
    }
    /// A position or normal of three signed bytes, each /128 (the hardware's scale).
    #[inline]
    fn s8x3(self, off: usize) -> [f32; 3] {
        [0, 1, 2].map(|j| f32::from(self.s8(off + j)) * S8_SCALE)
    }
    /// A position or normal of three signed shorts, each /32768.
    #[inline]
    fn s16x3(self, off: usize) -> [f32; 3] {
        [0, 1, 2].map(|j| f32::from(self.s16(off + 2 * j)) * S16_SCALE)
    }
    /// A position or normal of three floats.
    #[inline]
    fn f32x3(self, off: usize) -> [f32; 3] {
        [self.f32(off), self.f32(off + 4), self.f32(off + 8)]
    }
}

const S8_SCALE: f32 = 1.0 / 128.0;
const S16_SCALE: f32 = 1.0 / 32768.0;

/// Morphed colour channel: truncate, then clamp to 0..255 [HW `vertices/morph`; PP
/// `clamp_u8((int)col)` and SSE `StoreConvertToU8` (cvttps + saturating packs)].
#[inline]
fn morph_channel(x: f32) -> u8 {
    cvtt(x).clamp(0, 255) as u8
}

/// PPSSPP's `clean_nan_inf_sse`: `max(min(x, FLT_MAX), -FLT_MAX)` with SSE NaN semantics,
/// so NaN becomes +FLT_MAX and ±Inf become ±FLT_MAX (not 0) [PP `Common/Math/SIMDHeaders.h`].
#[inline]
fn clean_nan_inf(x: f32) -> f32 {
    if x.is_nan() {
        f32::MAX
    } else {
        x.clamp(-f32::MAX, f32::MAX)
    }
}

/// Bit-replicating expansions [PP `Common/Data/Convert/ColorConv.h`; HW `vertices/colors`].
#[inline]
fn expand5(v: u16) -> u8 {
    let v = (v & 31) as u8;
    (v << 3) | (v >> 2)
}
#[inline]
fn expand6(v: u16) -> u8 {
    let v = (v & 63) as u8;
    (v << 2) | (v >> 4)
}
#[inline]
fn expand4(v: u16) -> u8 {
    (v & 15) as u8 * 17
}

/// One (unmorphed) colour in RGBA8.
#[inline]
fn decode_color(fmt: ColorFormat, s: Src, off: usize, material: [u8; 4]) -> [u8; 4] {
    match fmt {
        ColorFormat::Rgb565 => {
            let c = s.u16(off);
            [expand5(c), expand6(c >> 5), expand5(c >> 11), 255]
        }
        ColorFormat::Rgba5551 => {
            let c = s.u16(off);
            [expand5(c), expand5(c >> 5), expand5(c >> 10), if c >> 15 != 0 { 255 } else { 0 }]
        }
        ColorFormat::Rgba4444 => {
            let c = s.u16(off);
            [expand4(c), expand4(c >> 4), expand4(c >> 8), expand4(c >> 12)]
        }
        ColorFormat::Rgba8888 => s.bytes(off),
        // [PP ReadVertex] colourless vertices take the material colour.
        ColorFormat::None => material,
        // guess: PPSSPP's Step_ColorInvalid leaves stale bytes of its decode buffer in place
        // (unreproducible); we treat invalid formats as colourless like `has_color()` does.
        ColorFormat::Invalid(_) => material,
    }
}

/// A colour blended over `m` morph targets: each target expanded to 0..255 in float (5/6/4-bit
/// fields scaled by 255/31, 255/63, 255/15, not replicated), summed, truncated and clamped
/// [PP `Step_Color565Morph` .. `Step_Color8888Morph`; HW `vertices/morph` boxes 1-5].
fn morph_color(fmt: ColorFormat, s: Src, off: usize, one: usize, w: &[f32], material: [u8; 4]) -> [u8; 4] {
    const K5: f32 = 255.0 / 31.0;
    const K6: f32 = 255.0 / 63.0;
    const K4: f32 = 255.0 / 15.0;
    let mut col = [0.0f32; 4];
    // Per-term operation order as PPSSPP: (w * field) * K.
    for (k, &wk) in w.iter().enumerate() {
        let o = off + k * one;
        match fmt {
            ColorFormat::Rgb565 => {
                let c = s.u16(o);
                col[0] += wk * f32::from(c & 31) * K5;
                col[1] += wk * f32::from((c >> 5) & 63) * K6;
                col[2] += wk * f32::from((c >> 11) & 31) * K5;
            }
            ColorFormat::Rgba5551 => {
                let c = s.u16(o);
                col[0] += wk * f32::from(c & 31) * K5;
                col[1] += wk * f32::from((c >> 5) & 31) * K5;
                col[2] += wk * f32::from((c >> 10) & 31) * K5;
                col[3] += wk * if c >> 15 != 0 { 255.0 } else { 0.0 };
            }
            ColorFormat::Rgba4444 => {
                let c = s.u16(o);
                for (j, cj) in col.iter_mut().enumerate() {
                    *cj += wk * f32::from((c >> (4 * j)) & 15) * K4;
                }
            }
            ColorFormat::Rgba8888 => {
                let c: [u8; 4] = s.bytes(o);
                for (cj, &b) in col.iter_mut().zip(c.iter()) {
                    *cj += f32::from(b) * wk;
                }
            }
            ColorFormat::None | ColorFormat::Invalid(_) => return material,
        }
    }
    let mut out = col.map(morph_channel);
    if fmt == ColorFormat::Rgb565 {
        // [PP Step_Color565Morph] always full alpha.
        out[3] = 255;
    }
    out
}

/// Decode one vertex from its bytes (all morph targets; bytes shorter than the stride read
/// as zero). Updates `persist` with the decoded texcoord/normal when the format has them.
pub fn decode_vertex(layout: &VertexLayout, bytes: &[u8], params: &DecodeParams, persist: &mut Persist) -> Vertex {
    let vt = &layout.vtype;
    let s = Src(bytes);
    let one = layout.size as usize;
    // Morph count 1 uses the plain decoders: MORPHWEIGHT0 is ignored [HW `vertices/morph` box 0].
    let morph = vt.morph_count > 1;
    let w = &params.morph_weights[..usize::from(vt.morph_count).min(8)];
    let mut v = Vertex::default();

    // Weights: never morphed, always from the first target [PP SetVertexType: "TODO: Morph
    // weights correctly"; hardware unknown].
    if vt.has_weights() {
        let off = layout.weight_offset as usize;
        let n = usize::from(vt.weight_count).min(8);
        for (j, wj) in v.weights.iter_mut().enumerate().take(n) {
            *wj = match vt.weight {
                NumFormat::Byte => f32::from(s.u8(off + j)) * S8_SCALE,
                NumFormat::Short => f32::from(s.u16(off + 2 * j)) * S16_SCALE,
                _ => s.f32(off + 4 * j),
            };
        }
    }

    // Texture coordinates [ge-reference §2.3; PP Step_Tc*]. Through mode never morphs them.
    if vt.has_texcoord() {
        let off = layout.texcoord_offset as usize;
        v.uv = if morph && !vt.through {
            let mut acc = [0.0f32; 2];
            for (k, &wk) in w.iter().enumerate() {
                let o = off + k * one;
                for (j, a) in acc.iter_mut().enumerate() {
                    *a += match vt.texcoord {
                        NumFormat::Byte => f32::from(s.u8(o + j)),
                        NumFormat::Short => f32::from(s.u16(o + 2 * j)),
                        _ => s.f32(o + 4 * j),
                    } * wk;
                }
            }
            // Integers are accumulated before scaling [PP Step_TcU8MorphToFloat].
            match vt.texcoord {
                NumFormat::Byte => acc.map(|a| a * S8_SCALE),
                NumFormat::Short => acc.map(|a| a * S16_SCALE),
                _ => acc,
            }
        } else {
            match vt.texcoord {
                // u8 is n/128 in both modes: through mode too [HW `vertices/texcoords` boxes 3-4].
                NumFormat::Byte => [f32::from(s.u8(off)) * S8_SCALE, f32::from(s.u8(off + 1)) * S8_SCALE],
                // Through mode: u16 are texels [HW `vertices/texcoords` boxes 5-6].
                NumFormat::Short if vt.through => [f32::from(s.u16(off)), f32::from(s.u16(off + 2))],
                NumFormat::Short => [f32::from(s.u16(off)) * S16_SCALE, f32::from(s.u16(off + 2)) * S16_SCALE],
                _ => [s.f32(off), s.f32(off + 4)],
            }
        };
        persist.uv = v.uv;
    } else {
        v.uv = persist.uv;
    }

    // Colour; through mode morphs colours too [PP colstep_morph is chosen regardless of mode].
    let coff = layout.color_offset as usize;
    v.color = if morph && vt.has_color() {
        morph_color(vt.color, s, coff, one, w, params.material)
    } else {
        decode_color(vt.color, s, coff, params.material)
    };

    // Normals.
    if vt.has_normal() {
        let off = layout.normal_offset as usize;
        v.normal = if morph {
            let mut acc = [0.0f32; 3];
            for (k, &wk) in w.iter().enumerate() {
                let o = off + k * one;
                for (j, a) in acc.iter_mut().enumerate() {
                    *a += match vt.normal {
                        NumFormat::Byte => f32::from(s.s8(o + j)) * wk,
                        // [PP Step_NormalS16Morph] per-term (w/32768) ...
                        NumFormat::Short => f32::from(s.s16(o + 2 * j)) * (wk * S16_SCALE),
                        _ => s.f32(o + 4 * j) * wk,
                    };
                }
            }
            match vt.normal {
                // [PP Step_NormalS8Morph SSE path] sum, then /128.
                NumFormat::Byte => acc.map(|a| a * S8_SCALE),
                // ... and PPSSPP divides by 32768 a second time: a bug we deliberately do not
                // copy (ge-reference §2.8); only unnormalised texture projection could see it.
                _ => acc,
            }
        } else {
            match vt.normal {
                NumFormat::Byte => s.s8x3(off),
                NumFormat::Short => s.s16x3(off),
                _ => s.f32x3(off),
            }
        };
        persist.normal = v.normal;
    } else {
        v.normal = persist.normal;
    }

    // Position.
    let off = layout.position_offset as usize;
    v.pos = match (vt.position, vt.through) {
        // [PP Step_PosInvalid] "invalid positions are just culled": infinities. Nothing is
        // drawn for these formats anyway (ge-reference §2.5).
        (NumFormat::None, _) => [f32::INFINITY; 3],
        // [HW primitives/triangles, points; PP Step_PosS8Through] s8 through = (0,0,0).
        (NumFormat::Byte, true) => [0.0; 3],
        // [PP Step_PosS16Through] x, y signed pixels, z unsigned; first target only.
        (NumFormat::Short, true) => [f32::from(s.s16(off)), f32::from(s.s16(off + 2)), f32::from(s.u16(off + 4))],
        // [PP Step_PosFloatThrough] x, y as is (NaN kept), z clamped to [0, 65535] (NaN kept).
        (NumFormat::Float, true) => {
            let z = s.f32(off + 8);
            [s.f32(off), s.f32(off + 4), z.clamp(0.0, 65535.0)]
        }
        (fmt, false) if morph => {
            let mut acc = [0.0f32; 3];
            for (k, &wk) in w.iter().enumerate() {
                let o = off + k * one;
                for (j, a) in acc.iter_mut().enumerate() {
                    match fmt {
                        // [PP Step_PosS8Morph] per-term n * (w/128).
                        NumFormat::Byte => *a += f32::from(s.s8(o + j)) * (S8_SCALE * wk),
                        // [PP Step_PosS16Morph SSE path] sum n*w, then /32768.
                        NumFormat::Short => *a += f32::from(s.s16(o + 2 * j)) * wk,
                        // [PP Step_PosFloatMorph] no NaN/Inf cleaning when morphing.
                        _ => *a += s.f32(o + 4 * j) * wk,
                    }
                }
            }
            if fmt == NumFormat::Short {
                acc.map(|a| a * S16_SCALE)
            } else {
                acc
            }
        }
        (NumFormat::Byte, false) => s.s8x3(off),
        (NumFormat::Short, false) => s.s16x3(off),
        (NumFormat::Float, false) => {
            let p = s.f32x3(off);
            if vt.has_weights() {
                // [PP Step_PosFloatSkin: "TODO: Clean for NaN/INF here"] not cleaned.
                p
            } else {
                // [PP Step_PosFloat: CleanNaNInfs] NaN -> FLT_MAX, ±Inf -> ±FLT_MAX.
                p.map(clean_nan_inf)
            }
        }
    };
    v
}

/// The vertex PPSSPP produces for a draw whose start address is misaligned: its decode buffer
/// is zero-filled [PP `VertexDecoder::DecodeVerts`], so every present attribute is 0 (colour
/// 0,0,0,0 even for 5650, position 0 even for format "none"); absent ones behave as usual.
fn zero_vertex(layout: &VertexLayout, params: &DecodeParams, persist: &mut Persist) -> Vertex {
    let vt = &layout.vtype;
    let mut v = Vertex::default();
    if vt.has_texcoord() {
        persist.uv = [0.0; 2];
    }
    v.uv = persist.uv;
    if vt.has_normal() {
        persist.normal = [0.0; 3];
    }
    v.normal = persist.normal;
    v.color = match vt.color {
        ColorFormat::None => params.material,
        // PPSSPP reads its (zeroed) decode buffer for every colour format, invalid ones included.
        _ => [0; 4],
    };
    v
}

/// Read index `i` of an index buffer (u8/u16/u32, unsigned). Format `None` returns `i`.
/// Indices are little-endian and need no alignment (PPSSPP reads them through a host pointer).
pub fn read_index(mem: &Memory, format: IndexFormat, iaddr: u32, i: u32) -> Result<u32, MemError> {
    let addr = iaddr.wrapping_add(i.wrapping_mul(format.size()));
    match format {
        IndexFormat::None => Ok(i),
        IndexFormat::U8 => mem.read_u8(addr).map(u32::from),
        IndexFormat::U16 => mem.read_u16(addr).map(u32::from),
        // [HW primitives/indices] the "invalid" 32-bit format works.
        IndexFormat::U32 => mem.read_u32(addr),
    }
}

/// Land pending raster writes ([`Memory::settle_for`]) that cover bytes a draw of `count`
/// vertices may read: its indices, and its vertices (for an indexed draw, every vertex an
/// index of its format can name; 32-bit indices can name any address, so everything lands).
/// Bytes still arriving in memory ([`Memory::backfill`]) are filled the same way, up to the
/// largest index the draw reads (not every index its format can name: that would wait
/// for up to 64 Ki vertices of a pushbuf still being decoded).
pub(crate) fn settle_reads(mem: &mut Memory, layout: &VertexLayout, vaddr: u32, iaddr: u32, count: u32) {
    let filling = mem.filling();
    if !mem.has_pending() && !filling {
        return;
    }
    let format = layout.vtype.index;
    let isize = format.size();
    let vertices = match format {
        IndexFormat::None => count,
        IndexFormat::U8 => 1 << 8,
        IndexFormat::U16 => 1 << 16,
        IndexFormat::U32 => {
            mem.settle();
            return mem.fill_all();
        }
    };
    mem.settle_for(iaddr, count.saturating_mul(isize));
    let span = |n: u32| n.saturating_mul(layout.stride).max(layout.extent);
    if filling && format != IndexFormat::None && mem.in_hole(vaddr, span(vertices)) {
        // The indices are in memory now; an unreadable one fails the draw anyway.
        let max = (0..count).filter_map(|i| read_index(mem, format, iaddr, i).ok()).max();
        mem.fill_for(vaddr, span(max.map_or(0, |m| m + 1)));
    }
    if format == IndexFormat::None {
        mem.settle_for(vaddr, span(vertices));
    } else {
        mem.land_for(vaddr, span(vertices));
    }
}

/// The vertices one PRIM/BOUNDINGBOX consumed, and the internal pointers after it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DecodedDraw {
    pub vertices: Vec<Vertex>,
    pub vaddr: u32,
    pub iaddr: u32,
}

/// The `len` bytes of the vertex at `addr`. A range that runs from VRAM into its next mirror
/// reads the mirror (PPSSPP maps the mirrors contiguously); any other range leaving mapped
/// memory is an error: PPSSPP reads such bytes through an unchecked host pointer (undefined,
/// typically a crash), so there is nothing to reproduce and we refuse.
fn vertex_bytes<'a>(mem: &'a Memory, addr: u32, len: u32, buf: &'a mut [u8; MAX_STRIDE]) -> Result<&'a [u8], MemError> {
    if let Ok(s) = mem.slice(addr, len) {
        return Ok(s);
    }
    let n = len as usize;
    if n <= MAX_STRIDE && Memory::is_valid_range(addr, len) {
        let out = &mut buf[..n];
        mem.read_wrapping(addr, out);
        return Ok(out);
    }
    Err(MemError { addr, len })
}

/// Decode the `count` vertices a PRIM/BOUNDINGBOX consumes, following the GE's pointer rules
/// (§2.7): indexed draws fetch vaddr + index*stride and advance only the index pointer by
/// count*indexsize; non-indexed draws read consecutive vertices and advance vaddr by
/// count*stride. A misaligned vertex start behaves like PPSSPP (zero-filled draw, see §2.2
/// trap). Returns the vertices in draw order plus the new (vaddr, iaddr).
///
/// Errors: an unmapped VADDR (or IADDR when indexed) start — PPSSPP then skips the PRIM
/// without advancing — or any vertex/index read leaving mapped memory.
///
/// `persist` follows PPSSPP's software renderer: it ends holding the values of the last vertex
/// read, which for an indexed draw that reuses vertices (count > max-min+1, PPSSPP's cached
/// path) is the vertex with the highest index; a draw without position (never drawn, PPSSPP
/// returns before reading) leaves it untouched. Count 0 does nothing [PP `Execute_Prim`].
pub fn decode_draw(
    mem: &Memory,
    layout: &VertexLayout,
    vaddr: u32,
    iaddr: u32,
    count: u32,
    params: &DecodeParams,
    persist: &mut Persist,
) -> Result<DecodedDraw, MemError> {
    decode_draw_with(mem, layout, vaddr, iaddr, count, params, persist, true)
}

/// [`decode_draw`]; `whole`: take [`decode_whole`] where it applies (tests compare it
/// with the plain loop alone).
#[allow(clippy::too_many_arguments)]
fn decode_draw_with(
    mem: &Memory,
    layout: &VertexLayout,
    vaddr: u32,
    iaddr: u32,
    count: u32,
    params: &DecodeParams,
    persist: &mut Persist,
    whole: bool,
) -> Result<DecodedDraw, MemError> {
    let vt = &layout.vtype;
    let isize = vt.index.size();
    let indexed = isize != 0;
    if count == 0 {
        return Ok(DecodedDraw { vertices: Vec::new(), vaddr, iaddr });
    }
    // [PP SoftGPU::Execute_Prim] start addresses are validated before anything else.
    if Memory::locate(vaddr).is_none() {
        return Err(MemError { addr: vaddr, len: layout.extent });
    }
    if indexed && Memory::locate(iaddr).is_none() {
        return Err(MemError { addr: iaddr, len: isize });
    }

    // [PP TransformUnit::SubmitPrimitive] no position: returns before reading any vertex.
    let mut scratch = *persist;
    let persist = if vt.position == NumFormat::None { &mut scratch } else { persist };

    // [PP VertexDecoder::DecodeVerts] a start not aligned to the largest attribute alignment
    // zero-fills the decoded vertices. PPSSPP tests vaddr + size*lowest_index, which has the
    // same alignment because size is a multiple of the alignment.
    let misaligned = !vaddr.is_multiple_of(layout.align.max(1));

    let mut out = Vec::new();
    let mut buf = [0u8; MAX_STRIDE];
    let (mut lo, mut hi, mut hi_at) = (u32::MAX, 0u32, 0usize);
    let reader = if misaligned || !whole { None } else { Reader::new(layout, params, persist) };
    let whole = reader.and_then(|r| decode_whole(mem, layout, &r, vaddr, iaddr, count, persist));
    if let Some((vertices, l, h, at)) = whole {
        (out, lo, hi, hi_at) = (vertices, l, h, at);
    } else {
        // The plain loop: misaligned or morphed draws, and reads that may fail midway.
        out.reserve(count.min(0x1_0000) as usize);
        for i in 0..count {
            let idx = read_index(mem, vt.index, iaddr, i)?;
            if idx < lo {
                lo = idx;
            }
            if idx >= hi {
                hi = idx;
                hi_at = out.len();
            }
            let v = if misaligned {
                zero_vertex(layout, params, persist)
            } else {
                let addr = vaddr.wrapping_add(idx.wrapping_mul(layout.stride));
                let bytes = vertex_bytes(mem, addr, layout.extent, &mut buf)?;
                decode_vertex(layout, bytes, params, persist)
            };
            out.push(v);
        }
    }
    // [PP SoftwareVertexReader::UpdateCache] with reused indices every vertex of min..=max is
    // read in index order before drawing, so the last one read is the highest index.
    if indexed && u64::from(count) > u64::from(hi) - u64::from(lo) + 1 {
        if let Some(last) = out.get(hi_at) {
            if vt.has_texcoord() {
                persist.uv = last.uv;
            }
            if vt.has_normal() {
                persist.normal = last.normal;
            }
        }
    }

    let (nv, ni) = if indexed {
        (vaddr, iaddr.wrapping_add(count.wrapping_mul(isize)))
    } else {
        (vaddr.wrapping_add(count.wrapping_mul(layout.stride)), iaddr)
    };
    Ok(DecodedDraw { vertices: out, vaddr: nv, iaddr: ni })
}
