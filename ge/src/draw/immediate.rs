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
use crate::clip::Projected;
use crate::cmd::fields::{CullArg, ImmAlphaPrim};
use crate::cmd::{op, reg};
use crate::geom::{ClipVertex, PrimType, ScreenVertex, SubPixel, VertexType};
use crate::mem::Memory;
use crate::regs::Regs;
use crate::state::GeState;

/// PPSSPP `MAX_IMMBUFFER_SIZE`.
const MAX_BUFFER: usize = 32;

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
    pub fn capture(regs: &Regs, ap: ImmAlphaPrim) -> ImmVertex {
        let through = regs.get(reg::VERTEXTYPE).through() != 0;
        let (ox, oy) = if through {
            // Through mode removes a fixed 0x8000 bias instead of the OFFSET.
            (0x8000, 0x8000)
        } else {
            (regs.get(reg::OFFSETX).sixteenths() as i32, regs.get(reg::OFFSETY).sixteenths() as i32)
        };
        let x = (regs.get(reg::VSCX).sixteenths() as i32 - ox) as f32 / 16.0;
        let y = (regs.get(reg::VSCY).sixteenths() as i32 - oy) as f32 / 16.0;
        let [r, g, b] = regs.rgb(op::VCV);
        ImmVertex {
            x,
            y,
            z: regs.get(reg::VSCZ).z() as f32,
            u: regs.float(op::VTCS),
            v: regs.float(op::VTCT),
            uv_w: regs.float(op::VTCQ),
            color0: [r, g, b, ap.alpha() as u8],
            fog: regs.get(reg::VFC).value() as f32 / 255.0,
            color1: regs.rgb(op::VSCV),
        }
    }

    /// The assembly vertex `DispatchSubmitImm` builds under the current registers.
    pub fn asm_vertex(&self, regs: &Regs) -> AsmVertex {
        let through = regs.get(reg::VERTEXTYPE).through() != 0;
        let (mut s, mut t) = (self.u, self.v);
        if through {
            // Through mode wants texels: scaled by the level-0 size.
            let size = regs.get(reg::TEXSIZE0);
            s *= (1u32 << size.width_log2()) as f32;
            t *= (1u32 << size.height_log2()) as f32;
        }
        // Only a transformed vertex with LIGHTMODE's separate specular keeps VSCV.
        let color1 = if regs.get(reg::LIGHTMODE).separate_specular() != 0 && !through { self.color1 } else { [0; 3] };
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
            first: false,
        };
        let clip = ClipVertex {
            clip: [self.x, self.y, clip_z, 1.0],
            stq: [s, t, self.uv_w],
            color0: self.color0,
            color1,
            fog: self.fog,
            xyw24: None,
        };
        AsmVertex { p: Projected::from_parts(clip, screen, false), proj_id: 0 }
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
    flags: ImmAlphaPrim,
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
        let arg = ImmAlphaPrim(arg);
        let prim = PrimType::from_bits(arg.prim());
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
            imm.flags = arg;
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
            (op::ANTIALIASENABLE, flags.antialias() != 0),
            (op::SHADEMODE, flags.shading() != 0),
            (op::CULLFACEENABLE, flags.cull_enable() != 0),
            (op::TEXTUREMAPENABLE, flags.texture() != 0),
            (op::FOGENABLE, flags.fog() != 0),
            (op::DITHERENABLE, flags.dither() != 0),
        ];
        let prev = overrides.map(|(o, _)| (o, gs.regs.enabled(o)));
        // Antialiasing alone does not count as a change.
        let changed = overrides[1..].iter().any(|&(o, on)| gs.regs.enabled(o) != on);
        if changed {
            self.flush_behind(mem);
            self.write_imm_regs(gs, &overrides);
        }

        // [PP `DispatchSubmitImm`] the cull face comes from the flags.
        let saved_cull = gs.regs.arg(op::CULL);
        gs.regs.set(op::CULL, CullArg(saved_cull).with_ccw(flags.cull_face() != 0));
        // Every submit rebuilds the rasterizer state, before and after.
        self.registers_changed();
        self.raster_state_changed();
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
        gs.regs.set(op::CULL, saved_cull);
        self.registers_changed();
        self.raster_state_changed();

        if changed {
            self.flush_behind(mem);
            self.write_imm_regs(gs, &prev);
        }
    }

    /// PPSSPP writes these registers directly (as 0 or 1) around the submit.
    fn write_imm_regs(&mut self, gs: &mut GeState, values: &[(u8, bool); 6]) {
        for &(o, on) in values {
            gs.regs.set(o, u32::from(on));
        }
        self.registers_changed();
        self.raster_state_changed();
    }
}

#[cfg(test)]
mod tests;
