//! BOUNDINGBOX (0x07): the visibility test behind BJUMP.

use crate::cmd::fields::BoundingBoxArg;
use crate::cmd::{op, reg};
use crate::geom::VertexType;
use crate::mem::{MemError, Memory};
use crate::regs::Regs;
use crate::state::GeState;
use crate::vertex::{self, Persist, VertexLayout};

/// BOUNDINGBOX: test whether any of `count` vertices can be visible; BJUMP jumps when
/// not. Follows PPSSPP `GPUCommon::Execute_BoundingBox` / `DrawEngineCommon::
/// TestBoundingBox` (the hardware's exact rule is not pinned down: [HW `bounding/*`]
/// text tests are the oracle). Positions are decoded (and morphed) but not skinned.
pub(crate) fn bounding_box(gs: &mut GeState, mem: &mut Memory, mut persist: Persist, arg: u32) -> Result<(), MemError> {
    let count = BoundingBoxArg(arg).count();
    if count == 0 {
        gs.bbox_visible = false;
        return Ok(());
    }
    let vtype = VertexType::from_bits(gs.regs.arg(op::VERTEXTYPE));
    let layout = VertexLayout::new(vtype.raw);
    let params = gs.decode_params();
    vertex::settle_reads(mem, &layout, gs.vaddr, gs.iaddr, count);
    let decoded = match vertex::decode_draw(mem, &layout, gs.vaddr, gs.iaddr, count, &params, &mut persist) {
        Ok(d) => d,
        Err(_) => {
            // Invalid data: PPSSPP assumes the box test passed.
            gs.bbox_visible = true;
            return Ok(());
        }
    };
    gs.vaddr = decoded.vaddr;
    gs.iaddr = decoded.iaddr;
    // Only one window of at most 0x100 vertices decides [PP `Execute_BoundingBox`].
    let verts = &decoded.vertices;
    let window: &[crate::geom::Vertex] = if count > 0x200 {
        let start = (count - 0x200) as usize;
        &verts[start.min(verts.len())..(start + 0x100).min(verts.len())]
    } else if count > 0x100 {
        &verts[..(count - 0x100) as usize]
    } else {
        verts
    };
    gs.bbox_visible = bbox_test(&gs.regs, &gs.mats, window);
    Ok(())
}

/// The plane tests of PPSSPP `DrawEngineCommon::TestBoundingBox`.
fn bbox_test(regs: &Regs, mats: &crate::regs::Matrices, verts: &[crate::geom::Vertex]) -> bool {
    if verts.len() > 1024 {
        return true;
    }
    // Whole pixels of the 12.4 offset.
    let ox = regs.get(reg::OFFSETX).sixteenths() as i32 / 16;
    let oy = regs.get(reg::OFFSETY).sixteenths() as i32 / 16;
    let (r1, r2, s1, s2) =
        (regs.get(reg::REGION1), regs.get(reg::REGION2), regs.get(reg::SCISSOR1), regs.get(reg::SCISSOR2));
    let left = ox + r1.x().max(s1.x()) as i32 - 1;
    let top = oy + r1.y().max(s1.y()) as i32 - 1;
    let right = ox + r2.x().min(s2.x()) as i32 + 1;
    let bottom = oy + r2.y().min(s2.y()) as i32 + 1;
    // A drawing box at all outside the 4096x4096 space passes every test.
    if right >= 4096 || bottom >= 4096 || left < 1 || top < 1 {
        return true;
    }
    let wvp = world_view_proj(mats);
    let (xs, ys, zs) = (regs.float(op::VIEWPORTXSCALE), regs.float(op::VIEWPORTYSCALE), regs.float(op::VIEWPORTZSCALE));
    let (xc, yc) = (regs.float(op::VIEWPORTXCENTER), regs.float(op::VIEWPORTYCENTER));
    let _ = zs;
    let mut inside = [0usize; 6];
    for v in verts {
        let p = v.pos;
        let mut c = [0f32; 4];
        for (i, ci) in c.iter_mut().enumerate() {
            *ci = p[0] * wvp[i] + p[1] * wvp[4 + i] + p[2] * wvp[8 + i] + wvp[12 + i];
        }
        let w = c[3];
        if c[2] >= -w {
            inside[4] += 1;
        }
        if c[2] <= w {
            inside[5] += 1;
        }
        let dx = c[0] * xs + xc * w;
        let dy = c[1] * ys + yc * w;
        if dx >= left as f32 * w {
            inside[0] += 1;
        }
        if dx <= right as f32 * w {
            inside[1] += 1;
        }
        if dy >= top as f32 * w {
            inside[2] += 1;
        }
        if dy <= bottom as f32 * w {
            inside[3] += 1;
        }
    }
    let planes = if regs.enabled(op::DEPTHCLAMPENABLE) { 6 } else { 4 };
    inside[..planes].iter().all(|&n| n > 0)
}

/// proj · view · world as a column-major 4x4.
fn world_view_proj(m: &crate::regs::Matrices) -> [f32; 16] {
    let to44 = |a: &[f32; 12]| -> [f32; 16] {
        [a[0], a[1], a[2], 0.0, a[3], a[4], a[5], 0.0, a[6], a[7], a[8], 0.0, a[9], a[10], a[11], 1.0]
    };
    let mul = |a: &[f32; 16], b: &[f32; 16]| -> [f32; 16] {
        let mut r = [0f32; 16];
        for c in 0..4 {
            for row in 0..4 {
                r[c * 4 + row] = (0..4).map(|k| a[k * 4 + row] * b[c * 4 + k]).sum();
            }
        }
        r
    };
    let vw = mul(&to44(&m.view), &to44(&m.world));
    mul(&m.proj, &vw)
}
