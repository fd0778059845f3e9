//! BEZIER (0x05) and SPLINE (0x06): decode the control points, skin them, tessellate
//! ([`crate::patch`]) and draw the result as one fresh primitive, as PPSSPP's
//! `SubmitCurve` path does: the tessellated vertices carry float texcoords, an 8888
//! colour, a float normal and a float position, and are no longer skinned.

use super::assemble::AsmVertex;
use super::DrawContext;
use crate::clip::CullMode;
use crate::cmd::{op, reg};
use crate::geom::{ColorFormat, IndexFormat, NumFormat, VertexType};
use crate::mem::MemError;
use crate::mem::Memory;
use crate::patch::{self, PatchParams};
use crate::state::GeState;
use crate::transform;
use crate::vertex::{self, VertexLayout};

/// The vertex type of tessellated output (same through bit as the control points).
fn tessellated_type(control: &VertexType) -> VertexType {
    let raw = 3 | (7 << 2) | (3 << 5) | (3 << 7) | (control.raw & (1 << 23));
    VertexType {
        raw,
        texcoord: NumFormat::Float,
        color: ColorFormat::Rgba8888,
        normal: NumFormat::Float,
        position: NumFormat::Float,
        weight: NumFormat::None,
        index: IndexFormat::None,
        weight_count: 1,
        morph_count: 1,
        through: control.through,
    }
}

impl DrawContext {
    /// BEZIER / SPLINE: tessellate and draw.
    pub(crate) fn patch(&mut self, gs: &mut GeState, mem: &mut Memory, cmd: u8, arg: u32) -> Result<(), MemError> {
        // [PP `GPUCommon::SetDrawType`] switching between triangle and non-triangle
        // output flushes the renderer (patch type 0 → TRIANGLES; 1, 2, 3 → LINES/POINTS).
        self.set_draw_prim_class(mem, gs.regs.get(reg::PATCHPRIMITIVE).prim() == 0);
        let vtype = VertexType::from_bits(gs.regs.arg(op::VERTEXTYPE));
        let mut params = PatchParams::decode(&gs.regs, cmd, arg, &vtype);
        params.rsqrt = self.model.rsqrt_rule();
        params.rule = self.model.tessellation_rule();
        let count = params.control_count();
        let layout = VertexLayout::new(vtype.raw);
        let dp = gs.decode_params();
        vertex::settle_reads(mem, &layout, gs.vaddr, gs.iaddr, count);
        if vtype.index != IndexFormat::None {
            let mut max = 0;
            for i in 0..count {
                max = max.max(vertex::read_index(mem, vtype.index, gs.iaddr, i)?);
            }
            params.max_index = Some(max);
        }
        let decoded = vertex::decode_draw(mem, &layout, gs.vaddr, gs.iaddr, count, &dp, &mut self.persist)?;
        gs.vaddr = decoded.vaddr;
        gs.iaddr = decoded.iaddr;
        if vtype.position == NumFormat::None {
            return Ok(());
        }
        let ts = self.decode_transform(gs, &vtype);
        let control: Vec<_> = decoded
            .vertices
            .iter()
            .map(|v| {
                let mut v = *v;
                if !vtype.through {
                    (v.pos, v.normal) = transform::skin(&ts, &v);
                }
                v
            })
            .collect();
        let fork = self.fork(mem);
        let tess = if fork.splits(patch::vertex_bound(&params) as usize) {
            fork.install(|| patch::tessellate_split(&params, &control, true))
        } else {
            patch::tessellate(&params, &control)
        };
        if tess.indices.is_empty() {
            return Ok(());
        }
        let out_type = tessellated_type(&vtype);
        let ts_out = self.decode_transform(gs, &out_type);
        // Transform each tessellated vertex once (the transform is a pure function of the
        // vertex, so sharing it changes no bit); assembly reads them through the indices.
        let unique = self.fork(mem).map(&tess.vertices, |v| AsmVertex::new(&ts_out, v));
        let cull = CullMode::decode(&gs.regs);
        let (prim, indices) = (tess.prim, tess.indices);
        // The GE draws each row of cells as a strip (see `Assembler::cells_from_strip`).
        self.with_sink(gs, mem, &ts_out, vtype.through, false, |asm, sink| {
            asm.cells_from_strip = true;
            asm.submit_indexed(prim, &unique, &indices, cull, sink);
            asm.cells_from_strip = false;
        });
        Ok(())
    }
}
