//! Immediate-mode vertices (VSCX..VSCV, 0xF0–0xF9; ge-reference.md §17.1), as PPSSPP's
//! software renderer handles them [PP `GPUCommon::Execute_ImmVertexAlphaPrim`,
//! `GPUCommon::FlushImm`, `SoftGPU::Execute_ImmVertexAlphaPrim`,
//! `SoftwareDrawEngine::DispatchSubmitImm`, `TransformUnit::SubmitImmVertex`].
//!
//! * VAP (0xF7) captures a vertex from the other nine registers: x, y in 1/16 px minus
//!   0x8000 (through mode) or minus OFFSETX/Y (transform mode), z as a raw 16-bit depth,
//!   S/T/Q float24, colour RGB from VCV with alpha from VAP bits 0–7, fog VFC/255 and
//!   the secondary colour VSCV. Bits 8–10 are the primitive type (7 continues); a new
//!   type also latches the flag bits 11–23.
//! * The software renderer submits every vertex at once: a fresh primitive resets the
//!   assembly ring, each vertex goes where a PRIM would have put it and completes at
//!   most one primitive (see [`super::assemble::Assembler::submit_imm`]).
//! * For the submit the flags replace ANTIALIAS/SHADEMODE/CULLFACEENABLE/TEXTUREMAP/FOG/
//!   DITHER (only when one of the last five differs, with a flush before and after) and
//!   the CULL face, and the whole rasterizer state is rebuilt before and after.

use super::assemble::AsmVertex;
use super::DrawContext;
use crate::cmd::op;
use crate::geom::{ClipVertex, PrimType, ScreenVertex, SubPixel, VertexType};
use crate::mem::Memory;
use crate::regs::{float24, Regs};
use crate::state::GeState;

/// PPSSPP `MAX_IMMBUFFER_SIZE`.
const MAX_BUFFER: usize = 32;

/// Flag bits of VAP (PPSSPP `GE_IMM_*`).
const ANTIALIAS: u32 = 0x0000_0800;
const SHADING: u32 = 0x0004_0000;
const CULLENABLE: u32 = 0x0008_0000;
const CULLFACE: u32 = 0x0010_0000;
const TEXTURE: u32 = 0x0020_0000;
const FOG: u32 = 0x0040_0000;
const DITHER: u32 = 0x0080_0000;

/// One captured vertex (PPSSPP `TransformedVertex` as `Execute_ImmVertexAlphaPrim` fills it).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ImmVertex {
    /// Drawing coordinates in pixels.
    pub x: f32,
    pub y: f32,
    /// Raw 16-bit depth.
    pub z: f32,
    pub u: f32,
    pub v: f32,
    pub uv_w: f32,
    /// RGBA.
    pub color0: [u8; 4],
    pub fog: f32,
    pub color1: [u8; 3],
}

impl ImmVertex {
    /// Capture the vertex registers; `ap` is the VAP argument.
    pub fn capture(regs: &Regs, ap: u32) -> ImmVertex {
        let through = regs.arg(op::VERTEXTYPE) & (1 << 23) != 0;
        let (ox, oy) = if through {
            // Through mode removes a fixed 0x8000 bias instead of the OFFSET.
            (0x8000, 0x8000)
        } else {
            ((regs.arg(op::OFFSETX) & 0xFFFF) as i32, (regs.arg(op::OFFSETY) & 0xFFFF) as i32)
        };
        let x = ((regs.arg(op::VSCX) & 0xFFFF) as i32 - ox) as f32 / 16.0;
        let y = ((regs.arg(op::VSCY) & 0xFFFF) as i32 - oy) as f32 / 16.0;
        let cv = regs.arg(op::VCV);
        let scv = regs.arg(op::VSCV);
        ImmVertex {
            x,
            y,
            z: (regs.arg(op::VSCZ) & 0xFFFF) as f32,
            u: float24(regs.arg(op::VTCS)),
            v: float24(regs.arg(op::VTCT)),
            uv_w: float24(regs.arg(op::VTCQ)),
            color0: [cv as u8, (cv >> 8) as u8, (cv >> 16) as u8, ap as u8],
            fog: (regs.arg(op::VFC) & 0xFF) as f32 / 255.0,
            color1: [scv as u8, (scv >> 8) as u8, (scv >> 16) as u8],
        }
    }

    /// The assembly vertex `DispatchSubmitImm` builds under the current registers.
    pub fn asm_vertex(&self, regs: &Regs) -> AsmVertex {
        let through = regs.arg(op::VERTEXTYPE) & (1 << 23) != 0;
        let (mut s, mut t) = (self.u, self.v);
        if through {
            // Through mode wants texels: scaled by the level-0 size.
            s *= (1u32 << regs.field(op::TEXSIZE0, 0, 4)) as f32;
            t *= (1u32 << regs.field(op::TEXSIZE0, 8, 4)) as f32;
        }
        // Only a transformed vertex with LIGHTMODE's separate specular keeps VSCV.
        let color1 = if regs.arg(op::LIGHTMODE) & 1 != 0 && !through { self.color1 } else { [0; 3] };
        // Clip-space z is the depth scaled to 0..1 (by the float reciprocal).
        let clip_z = if through { self.z } else { self.z * (1.0f32 / 65535.0) };
        let screen = ScreenVertex {
            // Exact: both are 1/16-px integers.
            x: SubPixel((self.x * 16.0) as i32),
            y: SubPixel((self.y * 16.0) as i32),
            z: self.z,
            w: 1.0,
            s,
            t,
            q: self.uv_w,
            color0: self.color0,
            color1,
            fog: self.fog,
        };
        let clip = ClipVertex {
            clip: [self.x, self.y, clip_z, 1.0],
            stq: [s, t, self.uv_w],
            color0: self.color0,
            color1,
            fog: self.fog,
        };
        AsmVertex { clip, screen, outside: false, proj_id: 0 }
    }
}

/// PPSSPP's `immBuffer_`, `immPrim_`, `immFlags_`, `immFirstSent_`.
#[derive(Default)]
pub struct ImmState {
    buffer: Vec<ImmVertex>,
    /// Counts past the buffer size too (PPSSPP keeps counting overruns).
    count: usize,
    /// `None`: GE_PRIM_INVALID, no primitive type set yet.
    prim: Option<PrimType>,
    flags: u32,
    first_sent: bool,
}

/// [PP `IsTrianglePrim`]: strips, fans and triangles (and, mistakenly, type 7).
fn is_triangle_prim(p: PrimType) -> bool {
    (p as u32) > PrimType::LineStrip as u32 && p != PrimType::Rectangles
}

impl DrawContext {
    /// VAP: capture a vertex and submit it [PP `SoftGPU::Execute_ImmVertexAlphaPrim`
    /// flushes after every vertex].
    pub(crate) fn immediate_vertex(&mut self, gs: &mut GeState, mem: &mut Memory, arg: u32) {
        let imm = &mut self.imm;
        if imm.count >= MAX_BUFFER {
            imm.count += 1;
            return;
        }
        let prim = PrimType::from_bits(arg >> 8);
        if prim != PrimType::Continue {
            // Only type 7 continues a primitive.
            self.flush_imm(gs, mem);
        }
        let v = ImmVertex::capture(&gs.regs, arg);
        let imm = &mut self.imm;
        imm.buffer.push(v);
        imm.count += 1;
        if prim != PrimType::Continue {
            imm.prim = Some(prim);
            // The flags of the first vertex hold for the whole primitive.
            imm.flags = arg & 0x00FF_F800;
            imm.first_sent = false;
        }
        // A continuation before any primitive type stays buffered until one is set.
        self.flush_imm(gs, mem);
    }

    /// [PP `GPUCommon::FlushImm`].
    pub(crate) fn flush_imm(&mut self, gs: &mut GeState, mem: &mut Memory) {
        let imm = &mut self.imm;
        let Some(prim) = imm.prim else { return };
        if imm.buffer.is_empty() {
            return;
        }
        // An all-zero point is what clearing the GE state produces: dropped.
        if imm.buffer.len() == 1 && prim == PrimType::Points {
            let v = &imm.buffer[0];
            if v.x == 0.0 && v.y == 0.0 && v.z == 0.0 && v.color0 == [0; 4] {
                imm.buffer.clear();
                imm.count = 0;
                return;
            }
        }
        let verts = std::mem::take(&mut imm.buffer);
        imm.count = 0;
        let (flags, continuation) = (imm.flags, imm.first_sent);
        imm.first_sent = true;
        self.set_draw_prim_class(mem, is_triangle_prim(prim));

        let overrides = [
            (op::ANTIALIASENABLE, flags & ANTIALIAS != 0),
            (op::SHADEMODE, flags & SHADING != 0),
            (op::CULLFACEENABLE, flags & CULLENABLE != 0),
            (op::TEXTUREMAPENABLE, flags & TEXTURE != 0),
            (op::FOGENABLE, flags & FOG != 0),
            (op::DITHERENABLE, flags & DITHER != 0),
        ];
        let prev = overrides.map(|(o, _)| (o, gs.regs.enabled(o)));
        // Antialiasing alone does not count as a change.
        let changed = overrides[1..].iter().any(|&(o, on)| gs.regs.enabled(o) != on);
        if changed {
            self.flush(mem);
            self.write_imm_regs(gs, &overrides);
        }

        // [PP `DispatchSubmitImm`] the cull face comes from the flags.
        let cull_face = u32::from(flags & CULLFACE != 0);
        let flip = u32::from(cull_face != gs.regs.arg(op::CULL) & 1);
        gs.regs.set(op::CULL, gs.regs.arg(op::CULL) ^ flip);
        // Every submit rebuilds the rasterizer state, before and after.
        self.state_dirty = true;
        self.raster_dirty = true;
        let vtype = VertexType::from_bits(gs.regs.arg(op::VERTEXTYPE));
        let ts = self.decode_transform(gs, &vtype);
        let cull = crate::clip::CullMode::decode(&gs.regs);
        for (i, v) in verts.iter().enumerate() {
            self.draw_count += 1;
            if self.trace_pixel.is_some() {
                self.state_dirty = true;
            }
            let av = v.asm_vertex(&gs.regs);
            let cont = continuation || i > 0;
            self.with_sink(gs, mem, &ts, vtype.through, true, |asm, sink| asm.submit_imm(prim, cont, av, cull, sink));
        }
        gs.regs.set(op::CULL, gs.regs.arg(op::CULL) ^ flip);
        self.state_dirty = true;
        self.raster_dirty = true;

        if changed {
            self.flush(mem);
            self.write_imm_regs(gs, &prev);
        }
    }

    /// PPSSPP writes these registers directly (as 0 or 1) around the submit.
    fn write_imm_regs(&mut self, gs: &mut GeState, values: &[(u8, bool); 6]) {
        for &(o, on) in values {
            gs.regs.set(o, u32::from(on));
        }
        self.state_dirty = true;
        self.raster_dirty = true;
    }
}

#[cfg(test)]
mod tests;
