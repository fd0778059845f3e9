//! The hashed keys of PPSSPP's pixel and sampler function IDs, which decide when PPSSPP
//! compiles a function it has not seen (and flushes its bin queue first, see `queue`)
//! [PP `FuncId.cpp` ComputePixelFuncID, ComputeSamplerID].

use crate::cmd::{op, reg};
use crate::mem::Memory;
use crate::regs::Regs;

/// GEComparison values.
const ALWAYS: u32 = 1;
const NOTEQUAL: u32 = 3;
const LESS: u32 = 4;
const LEQUAL: u32 = 5;
const GREATER: u32 = 6;
const GEQUAL: u32 = 7;

/// [PP FuncId.cpp OptimizeRefByteCompare].
fn optimize_ref_compare(func: u32, r: u32) -> u32 {
    match (func, r) {
        (GREATER, 0) | (LESS, 0xFF) => NOTEQUAL,
        (GEQUAL, 0) | (LEQUAL, 0xFF) => ALWAYS,
        _ => func,
    }
}

/// The hashed part (`fullKey`) of [PP `ComputePixelFuncID`], packed into distinct bits.
pub fn pixel_func_key(regs: &Regs, through: bool) -> u64 {
    let fmt = regs.get(reg::FRAMEBUFPIXFORMAT).format();
    let is565 = fmt == 0;
    let color_mask = regs.arg(op::MASKRGB) | (regs.get(reg::MASKALPHA).value() << 24);
    let ztest = regs.enabled(op::ZTESTENABLE);
    let zfunc = regs.get(reg::ZTEST).func();
    let st = regs.get(reg::STENCILTEST);
    let (st_func, st_ref, st_mask) = (st.func(), st.reference(), st.mask());
    let sop = regs.get(reg::STENCILOP);
    let (op_sfail, op_zfail, op_zpass) = (sop.fail(), sop.zfail(), sop.zpass());
    const KEEP: u32 = 0;
    const ZERO: u32 = 1;
    const REPLACE: u32 = 2;
    const DECR: u32 = 5;

    let clear_mode = regs.clear_mode();
    let mut color_test;
    let mut stencil_test;
    let depth_write;
    let depth_func;
    let mut alpha_func = ALWAYS;
    let (mut alpha_ref, mut st_func_k, mut st_ref_k) = (0, 0, 0);
    let (mut has_alpha_mask, mut has_st_mask) = (false, false);
    let (mut sfail, mut zfail, mut zpass) = (0, 0, 0);
    let (mut blend, mut blend_eq, mut blend_src, mut blend_dst) = (false, 0, 0, 0);
    let (mut logic, mut fog, mut early_z) = (false, false, false);
    if let Some(cm) = clear_mode {
        color_test = cm.color;
        stencil_test = cm.stencil && !is565;
        depth_write = cm.depth;
        depth_func = ALWAYS;
    } else {
        let ct_func = regs.get(reg::COLORTEST).func();
        color_test = regs.enabled(op::COLORTESTENABLE) && ct_func != ALWAYS;
        if regs.enabled(op::STENCILTESTENABLE) && st_func == ALWAYS {
            let stencil_write = regs.get(reg::MASKALPHA).value() != 0xFF && !is565;
            stencil_test = if ztest && zfunc != ALWAYS {
                stencil_write && (op_zpass != KEEP || op_zfail != KEEP)
            } else {
                stencil_write && op_zpass != KEEP
            };
        } else {
            stencil_test = regs.enabled(op::STENCILTESTENABLE);
        }
        depth_write = ztest && !regs.enabled(op::ZWRITEDISABLE);
        depth_func = if ztest { zfunc } else { ALWAYS };
        if stencil_test {
            st_ref_k = st_ref & st_mask;
            st_func_k = optimize_ref_compare(st_func, st_ref_k);
            has_st_mask = st_mask != 0xFF && !is565;
            if !is565 && op_sfail <= DECR {
                sfail = op_sfail;
            }
            if !is565 && op_zfail <= DECR {
                zfail = if ztest { op_zfail } else { KEEP };
            }
            if !is565 && op_zpass <= DECR {
                zpass = op_zpass;
            }
            if st_ref == 0 {
                for o in [&mut sfail, &mut zfail, &mut zpass] {
                    if *o == REPLACE {
                        *o = ZERO;
                    }
                }
            }
            if fmt == 1 {
                for o in [&mut sfail, &mut zfail, &mut zpass] {
                    if *o == DECR {
                        *o = ZERO;
                    }
                }
            }
            if st_func_k == ALWAYS {
                if depth_func == ALWAYS {
                    zfail = KEEP;
                }
                sfail = KEEP;
                st_ref_k = st_ref;
                has_st_mask = false;
                if sfail == KEEP && zfail == KEEP && zpass == KEEP {
                    stencil_test = false;
                    st_func_k = 0;
                    st_ref_k = 0;
                }
            } else if depth_func == ALWAYS {
                zfail = zpass;
            }
        }
        let at = regs.get(reg::ALPHATEST);
        alpha_func = if regs.enabled(op::ALPHATESTENABLE) { at.func() } else { ALWAYS };
        if alpha_func != ALWAYS {
            alpha_ref = at.reference() & at.mask();
            has_alpha_mask = at.mask() != 0xFF;
            alpha_func = optimize_ref_compare(alpha_func, alpha_ref);
            if alpha_func == ALWAYS {
                alpha_ref = 0;
                has_alpha_mask = false;
            }
        }
        let bm = regs.get(reg::BLENDMODE);
        let (fa, fb, eq) = (bm.src(), bm.dst(), bm.equation());
        let (fix_a, fix_b) = (regs.arg(op::BLENDFIXEDA), regs.arg(op::BLENDFIXEDB));
        blend = regs.enabled(op::ALPHABLENDENABLE) && eq <= 5;
        if blend && eq == 0 && fa == 10 && fix_a == 0xFF_FFFF && fb == 10 && fix_b == 0 {
            blend = false;
        }
        // PixelBlendFactor::FIX = 10, ZERO = 11, ONE = 12.
        let fixed = |c: u32| match c {
            0 => 11,
            0xFF_FFFF => 12,
            _ => 10,
        };
        if blend {
            blend_eq = eq;
        }
        if blend && eq <= 2 {
            blend_src = if fa >= 10 { fixed(fix_a) } else { fa };
            blend_dst = if fb >= 10 { fixed(fix_b) } else { fb };
        }
        if color_test
            && ct_func == NOTEQUAL
            && regs.arg(op::COLORREF) == 0
            && regs.arg(op::COLORTESTMASK) == 0xFF_FFFF
            && !depth_write
            && !stencil_test
            && blend
            && blend_eq == 0
            && blend_dst == 12
        {
            color_test = false;
        }
        logic = regs.enabled(op::LOGICOPENABLE) && regs.get(reg::LOGICOP).op() != 3;
        fog = regs.enabled(op::FOGENABLE) && !through;
        early_z = depth_func != ALWAYS;
        if stencil_test && early_z && (sfail != KEEP || zfail != KEEP) {
            early_z = false;
        }
    }
    let mut standard_stride = regs.get(reg::FRAMEBUFWIDTH).stride() == 512;
    if standard_stride && (depth_func != ALWAYS || depth_write) {
        standard_stride = regs.get(reg::ZBUFWIDTH).stride() == 512;
    }
    let dither = regs.enabled(op::DITHERENABLE);
    let fields: [(u64, u32); 29] = [
        (clear_mode.is_some() as u64, 1),
        (color_test as u64, 1),
        (stencil_test as u64, 1),
        (depth_write as u64, 1),
        (!through as u64, 1),
        (alpha_func as u64, 3),
        (depth_func as u64, 3),
        (st_func_k as u64, 3),
        (fmt as u64, 2),
        (alpha_ref as u64, 8),
        (st_ref_k as u64, 8),
        (blend as u64, 1),
        (blend_eq as u64, 3),
        (blend_src as u64, 4),
        (blend_dst as u64, 4),
        (has_alpha_mask as u64, 1),
        (has_st_mask as u64, 1),
        (dither as u64, 1),
        (logic as u64, 1),
        (fog as u64, 1),
        (standard_stride as u64, 1),
        ((color_mask != 0) as u64, 1),
        (sfail as u64, 3),
        (zfail as u64, 3),
        (zpass as u64, 3),
        (early_z as u64, 1),
        (0, 0),
        (0, 0),
        (0, 0),
    ];
    let mut key = 0u64;
    let mut shift = 0;
    for (v, bits) in fields {
        key |= (v & ((1u64 << bits) - 1)) << shift;
        shift += bits;
    }
    key
}

/// The hashed part (`fullKey`) of [PP `ComputeSamplerID`] (without the linear/fetch bits).
pub fn sampler_key(regs: &Regs) -> u32 {
    // textureBitsPerPixel and textureAlignMask16 per format.
    const BITS: [u32; 16] = [16, 16, 16, 32, 4, 8, 16, 32, 4, 8, 8, 0, 0, 0, 0, 0];
    let fmt = regs.get(reg::TEXFORMAT).format();
    let bitspp = BITS[fmt as usize];
    let align = if fmt <= 7 && bitspp > 0 {
        0x7FF & !((128 / bitspp) - 1)
    } else if fmt <= 10 {
        0x7FF
    } else {
        0
    };
    let mip = regs.get(reg::TEXFILTER).mipmaps();
    let texmode = regs.get(reg::TEXMODE);
    let max_level = if mip { texmode.max_level() } else { 0 };
    let mut standard_bufw = true;
    let mut over_read_safe = true;
    let mut invalid_ptr = false;
    for i in 0..=max_level as usize {
        let bw_reg = regs.get(reg::TEXBUFWIDTH0.at(i));
        let addr = regs.get(reg::TEXADDR0.at(i)).low() | bw_reg.high();
        if Memory::locate(addr).is_none() {
            invalid_ptr = true;
        }
        let mut bufw = bw_reg.width() & align;
        if bufw == 0 && fmt <= 10 && bitspp > 0 {
            bufw = 128 / bitspp;
        }
        let size = regs.get(reg::TEXSIZE0.at(i));
        let w = 1u32 << size.width_log2();
        let h = 1u32 << size.height_log2();
        if bitspp == 0 || w.max(128 / bitspp.max(1)) != bufw {
            standard_bufw = false;
        }
        if fmt >= 8 && w != bufw {
            standard_bufw = false;
        }
        let bytes = h * (bufw * bitspp) / 8;
        if bitspp < 32 && Memory::locate(addr.wrapping_add(bytes + (32 - bitspp) / 8)).is_none() {
            over_read_safe = false;
        }
    }
    let size0 = regs.get(reg::TEXSIZE0);
    let clut = regs.get(reg::CLUTFORMAT);
    let indexed = fmt & 4 != 0;
    let shared_clut = fmt != 4 || max_level == 0 || !mip || texmode.separate_cluts() == 0;
    let wrap = regs.get(reg::TEXWRAP);
    let tf = regs.get(reg::TEXFUNC);
    let fields: [(u32, u32); 20] = [
        (fmt, 4),
        (if indexed { clut.palette() } else { 0 }, 2),
        (wrap.clamp_s(), 1),
        (wrap.clamp_t(), 1),
        (texmode.swizzle(), 1),
        (shared_clut as u32, 1),
        ((indexed && clut.mask() != 0xFF) as u32, 1),
        ((indexed && clut.shift() != 0) as u32, 1),
        ((indexed && clut.offset() != 0) as u32, 1),
        (invalid_ptr as u32, 1),
        (over_read_safe as u32, 1),
        (standard_bufw as u32, 1),
        (size0.width_log2(), 4),
        (size0.height_log2(), 4),
        (tf.func().min(4), 3),
        (tf.rgba(), 1),
        (tf.doubling(), 1),
        ((max_level != 0) as u32, 1),
        (0, 0),
        (0, 0),
    ];
    let mut key = 0u32;
    let mut shift = 0;
    for (v, bits) in fields {
        if bits > 0 {
            key |= (v & ((1 << bits) - 1)) << shift;
        }
        shift += bits;
    }
    key
}
