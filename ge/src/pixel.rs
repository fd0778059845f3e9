//! The per-fragment pipeline and framebuffer formats (ge-reference.md §12–§16).
//!
//! [`PixelState::decode`] reads every register the pipeline depends on once per draw and
//! keeps plain typed fields; [`draw_pixel`] then runs one fragment through the stages in
//! hardware order (§13) and reads/writes the colour and depth words of a [`Tile`]:
//!
//! ```text
//! depth range (transform mode) → alpha test → fog → colour test → stencil test →
//! depth test → stencil op / depth write → blend → dither → clamp → logic op →
//! stencil into alpha bits → write mask → format conversion
//! ```
//!
//! Clear mode (§16) runs depth range → depth write (bit 10) → dither → masked colour
//! and/or stencil write, nothing else.
//!
//! The decode follows `ComputePixelFuncID`'s reading of the registers (no depth write
//! without the depth test, stencil on/off and op simplifications that change nothing
//! drawn, the stencil reference rewrite, see `Compare::optimize_ref_byte`). PPSSPP's
//! shortcuts that change pixels are not here: the PPSSPP model rewrites the decoded state
//! (`crate::ppsspp::rewrite_pixel`: identity-blend off, the "pointless" colour test
//! dropped, the x86 JIT's NAND and OR_INVERTED) and the pipeline only honours
//! [`PixelState::logic_sets_alpha`]. Every quirk names its evidence.
//!
//! The pipeline is monomorphised per framebuffer format through `format::FbPixel`;
//! [`draw_pixel`] matches the format once and calls the specialised body.

mod blend;
mod format;
mod quad;
mod span;
mod stencil;
#[cfg(test)]
pub(crate) mod tests;

pub use blend::{Blend, BlendEq, BlendFactor, LogicOp};
pub use format::{decode_color, encode_color, Rgb565, Rgba4444, Rgba5551, Rgba8888};
pub use span::{draw_span, fill_span};
pub use stencil::StencilOp;

use crate::cmd::{op, reg};
use crate::geom::Quad;
use crate::regs::Regs;
use crate::tile::{FbFormat, Tile};
use format::{convert_mask, FbPixel};
pub use quad::QuadKernel;

/// Comparison functions of the alpha, stencil and depth tests (3-bit fields).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compare {
    Never,
    Always,
    Equal,
    NotEqual,
    Less,
    LessEqual,
    Greater,
    GreaterEqual,
}

impl Compare {
    pub fn from_code(code: u32) -> Compare {
        match code & 7 {
            0 => Compare::Never,
            1 => Compare::Always,
            2 => Compare::Equal,
            3 => Compare::NotEqual,
            4 => Compare::Less,
            5 => Compare::LessEqual,
            6 => Compare::Greater,
            _ => Compare::GreaterEqual,
        }
    }

    /// `a OP b`.
    #[inline]
    pub fn test<T: PartialOrd>(self, a: T, b: T) -> bool {
        match self {
            Compare::Never => false,
            Compare::Always => true,
            Compare::Equal => a == b,
            Compare::NotEqual => a != b,
            Compare::Less => a < b,
            Compare::LessEqual => a <= b,
            Compare::Greater => a > b,
            Compare::GreaterEqual => a >= b,
        }
    }

    /// [`Compare::test`] on four lanes (`wide`), the function matched once: bit i set when
    /// lane i passes. Checked against [`Compare::test`] by `test_lanes_equals_test`.
    #[inline(always)]
    pub fn test_lanes(self, a: wide::i32x4, b: wide::i32x4) -> u8 {
        let bits = match self {
            Compare::Never => 0,
            Compare::Always => 15,
            Compare::Equal => a.simd_eq(b).to_bitmask(),
            Compare::NotEqual => !a.simd_eq(b).to_bitmask(),
            Compare::Less => a.simd_lt(b).to_bitmask(),
            Compare::LessEqual => !a.simd_gt(b).to_bitmask(),
            Compare::Greater => a.simd_gt(b).to_bitmask(),
            Compare::GreaterEqual => !a.simd_lt(b).to_bitmask(),
        };
        bits as u8 & 15
    }

    /// PPSSPP's rewrite of byte comparisons against a constant
    /// [PP FuncId.cpp OptimizeRefByteCompare]. It is written for `value OP ref` but is also
    /// applied to the stencil test, which compares `ref OP value`: there it changes results
    /// (stencil GREATER with ref 0 passes every non-zero stencil instead of nothing).
    /// Kept because the references were made by PPSSPP. guess: hardware does not do this;
    /// no hardware data decides (without it the hardware model changes no hardware
    /// screenshot or readback line, only 4 synthetic `d_pixel` scenes, PPSSPP-referenced).
    pub(crate) fn optimize_ref_byte(self, reference: u8) -> Compare {
        match (self, reference) {
            (Compare::Greater, 0) | (Compare::Less, 0xFF) => Compare::NotEqual,
            (Compare::GreaterEqual, 0) | (Compare::LessEqual, 0xFF) => Compare::Always,
            (f, _) => f,
        }
    }
}

/// Colour test functions (COLORTEST bits 0–1) [PP GPUState.h getColorTestFunction].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColorTestFunc {
    Never,
    Equal,
    NotEqual,
}

/// Per-draw pixel state, decoded once from the registers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PixelState {
    pub fmt: FbFormat,
    pub clear: bool,
    /// Clear mode: CLEARMODE bits 8 (colour), 9 (alpha/stencil), 10 (depth).
    pub clear_color: bool,
    pub clear_stencil: bool,
    pub clear_depth: bool,
    /// MINZ..=MAXZ, transform mode only (also in clear mode) [PP ComputePixelFuncID applyDepthRange].
    pub depth_range: Option<(u16, u16)>,
    /// Alpha test `(a & mask) OP ref`; `Always` when disabled. `alpha_ref` is pre-masked.
    pub alpha_func: Compare,
    pub alpha_ref: u8,
    pub alpha_mask: u8,
    /// Fog colour when fog applies (FOGENABLE, transform mode, not clear mode).
    pub fog: Option<[u8; 3]>,
    /// Colour test `(rgb & mask) OP ref` on packed 0xBBGGRR; `ref` pre-masked.
    pub color_test: Option<(ColorTestFunc, u32, u32)>,
    /// Stencil test active (normal mode). 5650 has stencil 0 and only KEEP ops.
    pub stencil: bool,
    /// `(ref & mask) OP (stencil & mask)`; `stencil_ref_masked` = ref & mask.
    pub stencil_func: Compare,
    pub stencil_ref_masked: u8,
    pub stencil_mask: u8,
    /// Value written by REPLACE (the unmasked reference).
    pub stencil_ref: u8,
    pub sfail: StencilOp,
    pub zfail: StencilOp,
    pub zpass: StencilOp,
    /// `z OP stored`; `Always` when the depth test is disabled.
    pub depth_func: Compare,
    /// Depth write: ZTEST enabled and ZWRITEDISABLE clear (normal mode), CLEARMODE bit 10
    /// (clear mode).
    pub depth_write: bool,
    pub blend: Option<Blend>,
    /// Signed dither offsets, index `(y & 3) * 4 + (x & 3)`.
    pub dither: Option<[i8; 16]>,
    /// Logic op (None when disabled or COPY).
    pub logic: Option<LogicOp>,
    /// The logic op's result also replaces the alpha/stencil bits. Never set by the
    /// hardware decode; the PPSSPP model sets it for its x86 JIT's OR_INVERTED
    /// (`crate::ppsspp::rewrite_pixel`).
    pub logic_sets_alpha: bool,
    /// Write mask in framebuffer-format bits, 1 = protect. Includes the stencil bits when
    /// nothing writes stencil. 0 when MASKRGB and MASKALPHA are both 0.
    pub write_mask: u32,
}

impl PixelState {
    /// Decode from the register file. `through`: the draw's vertex type is through mode
    /// (no depth-range test, no fog).
    pub fn decode(regs: &Regs, through: bool) -> PixelState {
        let fmt = FbFormat::from_bits(regs.get(reg::FRAMEBUFPIXFORMAT).format());
        let clear_mode = regs.clear_mode();
        let clear = clear_mode.is_some();

        // [PP GPUState.h getDitherValue] 4-bit fields sign-extended; bits above 15 ignored.
        let dither = regs.enabled(op::DITHERENABLE).then(|| {
            let mut m = [0i8; 16];
            for y in 0..4 {
                let row = regs.get(reg::DITH0.at(y));
                for x in 0..4 {
                    m[y * 4 + x] = row.offset(x);
                }
            }
            m
        });
        let depth_range = (!through).then(|| (regs.get(reg::MINZ).z() as u16, regs.get(reg::MAXZ).z() as u16));
        let color_mask = regs.arg(op::MASKRGB) | (regs.get(reg::MASKALPHA).value() << 24);

        let mut st = PixelState {
            fmt,
            clear,
            clear_color: false,
            clear_stencil: false,
            clear_depth: false,
            depth_range,
            alpha_func: Compare::Always,
            alpha_ref: 0,
            alpha_mask: 0xFF,
            fog: None,
            color_test: None,
            stencil: false,
            stencil_func: Compare::Always,
            stencil_ref_masked: 0,
            stencil_mask: 0xFF,
            stencil_ref: 0,
            sfail: StencilOp::Keep,
            zfail: StencilOp::Keep,
            zpass: StencilOp::Keep,
            depth_func: Compare::Always,
            depth_write: false,
            blend: None,
            dither,
            logic: None,
            logic_sets_alpha: false,
            write_mask: 0,
        };

        let writes_stencil;
        if let Some(cm) = clear_mode {
            // [PP ComputePixelFuncID clearMode branch; ge-reference §16]
            st.clear_color = cm.color;
            st.clear_stencil = cm.stencil;
            st.clear_depth = cm.depth;
            st.depth_write = st.clear_depth;
            writes_stencil = st.clear_stencil && fmt != FbFormat::Rgb565;
        } else {
            st.decode_normal(regs, through);
            writes_stencil = st.stencil;
        }

        // [PP ComputePixelFuncID colorWriteMask] stencil bits are protected whenever this
        // draw does not write stencil; the 8888 mask is truncated like a colour.
        if color_mask != 0 {
            let m = if writes_stencil { color_mask } else { color_mask | 0xFF00_0000 };
            st.write_mask = convert_mask(fmt, m);
        }
        st
    }

    fn decode_normal(&mut self, regs: &Regs, through: bool) {
        let fmt = self.fmt;
        let ztest = regs.enabled(op::ZTESTENABLE);
        let zfunc = Compare::from_code(regs.get(reg::ZTEST).func());
        self.depth_func = if ztest { zfunc } else { Compare::Always };
        // [PP ComputePixelFuncID depthWrite] no depth write without the depth test.
        self.depth_write = ztest && !regs.enabled(op::ZWRITEDISABLE);

        // Alpha test [PP AlphaTestPassed]: (a & mask) OP (ref & mask).
        if regs.enabled(op::ALPHATESTENABLE) {
            let at = regs.get(reg::ALPHATEST);
            self.alpha_func = Compare::from_code(at.func());
            self.alpha_mask = at.mask() as u8;
            self.alpha_ref = at.reference() as u8 & self.alpha_mask;
        }

        // Stencil, following ComputePixelFuncID step by step: the resulting on/off flag
        // feeds the write mask and the colour-test shortcut below.
        let stencil_enabled = regs.enabled(op::STENCILTESTENABLE);
        let st = regs.get(reg::STENCILTEST);
        let (sfunc, sref, smask) = (Compare::from_code(st.func()), st.reference() as u8, st.mask() as u8);
        let sop = regs.get(reg::STENCILOP);
        let (sfail_raw, zfail_raw, zpass_raw) = (sop.fail(), sop.zfail(), sop.zpass());
        let mut stencil = if stencil_enabled && sfunc == Compare::Always {
            let stencil_write = regs.get(reg::MASKALPHA).value() != 0xFF && fmt != FbFormat::Rgb565;
            if ztest && zfunc != Compare::Always {
                stencil_write && (zpass_raw != 0 || zfail_raw != 0)
            } else {
                stencil_write && zpass_raw != 0
            }
        } else {
            stencil_enabled
        };
        if stencil {
            // 5650 cannot store stencil: every op is KEEP [PP ComputePixelFuncID].
            let op_of = |raw| {
                if fmt == FbFormat::Rgb565 {
                    StencilOp::Keep
                } else {
                    StencilOp::from_code(raw)
                }
            };
            self.stencil_ref = sref;
            self.stencil_mask = smask;
            self.stencil_ref_masked = sref & smask;
            self.stencil_func = sfunc.optimize_ref_byte(sref & smask);
            self.sfail = op_of(sfail_raw);
            self.zfail = if ztest { op_of(zfail_raw) } else { StencilOp::Keep };
            self.zpass = op_of(zpass_raw);
            if self.stencil_func == Compare::Always {
                self.sfail = StencilOp::Keep;
                if self.depth_func == Compare::Always {
                    self.zfail = StencilOp::Keep;
                }
                if self.sfail == StencilOp::Keep && self.zfail == StencilOp::Keep && self.zpass == StencilOp::Keep {
                    stencil = false;
                }
            }
        }
        self.stencil = stencil;

        // Blending; equations 6 and 7 draw unblended [PP ComputePixelFuncID alphaBlend].
        let bm = regs.get(reg::BLENDMODE);
        let (a_code, b_code, eq_code) = (bm.src(), bm.dst(), bm.equation());
        if regs.enabled(op::ALPHABLENDENABLE) && eq_code <= 5 {
            if let Some(eq) = BlendEq::from_code(eq_code) {
                self.blend = Some(Blend {
                    eq,
                    src: BlendFactor::from_code(a_code, regs.rgb(op::BLENDFIXEDA)),
                    dst: BlendFactor::from_code(b_code, regs.rgb(op::BLENDFIXEDB)),
                });
            }
        }

        // Colour test.
        let ct = regs.get(reg::COLORTEST).func();
        let (ct_ref, ct_mask) = (regs.arg(op::COLORREF), regs.arg(op::COLORTESTMASK));
        // (PPSSPP drops a "pointless" NOTEQUAL-black test: `crate::ppsspp::rewrite_pixel`.)
        if regs.enabled(op::COLORTESTENABLE) && ct != 1 {
            let func = match ct {
                0 => ColorTestFunc::Never,
                2 => ColorTestFunc::Equal,
                _ => ColorTestFunc::NotEqual,
            };
            self.color_test = Some((func, ct_ref & ct_mask, ct_mask));
        }

        let lop = regs.get(reg::LOGICOP).op();
        if regs.enabled(op::LOGICOPENABLE) && lop != 3 {
            self.logic = Some(LogicOp::from_code(lop));
        }
        if regs.enabled(op::FOGENABLE) && !through {
            self.fog = Some(regs.rgb(op::FOGCOLOR));
        }
    }

    #[inline]
    pub fn clear_mode(&self) -> bool {
        self.clear
    }

    /// The fragment stages read or write the depth buffer (depth test, depth write,
    /// clear-mode depth). The depth range test compares with MINZ/MAXZ only.
    pub fn touches_depth(&self) -> bool {
        self.depth_func != Compare::Always || self.depth_write || self.clear_depth
    }
}

/// Run one fragment through the pipeline into `tile`. `color` is the textured colour (in
/// clear mode the flat vertex colour, whose alpha becomes stencil), `z` the interpolated
/// depth, `fog` the fog factor 0..=255 (255 = no fog). The framebuffer format is
/// `st.fmt` (the tile must have been made for it).
#[inline]
pub fn draw_pixel(st: &PixelState, tile: &mut Tile, x: i32, y: i32, z: u16, color: [u8; 4], fog: u8) {
    match st.fmt {
        FbFormat::Rgb565 => draw::<Rgb565>(st, tile, x, y, z, color, fog),
        FbFormat::Rgba5551 => draw::<Rgba5551>(st, tile, x, y, z, color, fog),
        FbFormat::Rgba4444 => draw::<Rgba4444>(st, tile, x, y, z, color, fog),
        FbFormat::Rgba8888 => draw::<Rgba8888>(st, tile, x, y, z, color, fog),
    }
}

/// The quad drawer for this draw's state (`quad::select`): [`draw_pixel`] for the
/// fragments of a quad whose bit is set in `mask`, in lane order, with the framebuffer
/// format and the enabled stages decided once.
pub fn quad_kernel(st: &PixelState) -> QuadKernel {
    match st.fmt {
        FbFormat::Rgb565 => quad::select::<Rgb565>(st),
        FbFormat::Rgba5551 => quad::select::<Rgba5551>(st),
        FbFormat::Rgba4444 => quad::select::<Rgba4444>(st),
        FbFormat::Rgba8888 => quad::select::<Rgba8888>(st),
    }
}

/// [`quad_kernel`] for one quad.
pub fn draw_quad(st: &PixelState, tile: &mut Tile, q: &Quad, colors: &[[u8; 4]; 4]) {
    quad_kernel(st)(st, tile, q, colors)
}

/// [`draw_quad`] through the plain fragment-by-fragment pipeline only (the reference the
/// kernels and spans are tested against).
#[cfg(test)]
pub(crate) fn draw_quad_reference(st: &PixelState, tile: &mut Tile, q: &Quad, colors: &[[u8; 4]; 4]) {
    use quad::draw_quad_plain;
    match st.fmt {
        FbFormat::Rgb565 => draw_quad_plain::<Rgb565>(st, tile, q, colors),
        FbFormat::Rgba5551 => draw_quad_plain::<Rgba5551>(st, tile, q, colors),
        FbFormat::Rgba4444 => draw_quad_plain::<Rgba4444>(st, tile, q, colors),
        FbFormat::Rgba8888 => draw_quad_plain::<Rgba8888>(st, tile, q, colors),
    }
}

/// Dither (if on) then clamp to 0..=255 [PP DrawPixelX86.cpp Jit_Dither: saturating
/// 16-bit add before the final pack; alpha is never dithered].
#[inline]
fn dither_clamp(st: &PixelState, x: i32, y: i32, rgb: [i32; 3]) -> [u8; 3] {
    let d = match &st.dither {
        Some(m) => dither_at(m, x, y) as i32,
        None => 0,
    };
    [(rgb[0] + d).clamp(0, 255) as u8, (rgb[1] + d).clamp(0, 255) as u8, (rgb[2] + d).clamp(0, 255) as u8]
}

/// The offset of dither matrix `m` ([`PixelState::dither`]) at pixel (`x`, `y`).
#[inline(always)]
fn dither_at(m: &[i8; 16], x: i32, y: i32) -> i8 {
    m[(((y & 3) << 2) | (x & 3)) as usize]
}

#[inline]
fn draw<F: FbPixel>(st: &PixelState, tile: &mut Tile, x: i32, y: i32, z: u16, color: [u8; 4], fog: u8) {
    // §13 step 2: depth range, also in clear mode [PP DrawSinglePixel, Jit_ApplyDepthRange].
    if let Some((lo, hi)) = st.depth_range {
        if z < lo || z > hi {
            return;
        }
    }
    if st.clear {
        draw_clear::<F>(st, tile, x, y, z, color);
        return;
    }

    if let Some(c) = fragment_tests(st, color, fog) {
        draw_tested::<F>(st, tile, x, y, z, c);
    }
}

/// The stages that read only the fragment (normal mode): alpha test, fog, colour test.
/// `None` when the fragment is discarded, else its colour after fog.
// Inlined into every caller: a call per fragment costs more than the tests (callgrind on
// 21763 test drive).
#[inline(always)]
fn fragment_tests(st: &PixelState, color: [u8; 4], fog: u8) -> Option<[u8; 4]> {
    // Alpha test.
    if st.alpha_func != Compare::Always && !st.alpha_func.test(color[3] & st.alpha_mask, st.alpha_ref) {
        return None;
    }
    fog_colour_test(st, color, fog)
}

/// The stages of [`fragment_tests`] after the alpha test: fog, then the colour test.
#[inline(always)]
fn fog_colour_test(st: &PixelState, color: [u8; 4], fog: u8) -> Option<[u8; 4]> {
    // Fog after the alpha test, before the colour test; alpha untouched
    // [PP DrawSinglePixel, Jit_ApplyFog]: (c·F + fog·(255−F) + 255) / 256.
    let mut c = color;
    if let Some(fc) = st.fog {
        let f = fog as u32;
        for i in 0..3 {
            c[i] = ((c[i] as u32 * f + fc[i] as u32 * (255 - f) + 255) >> 8) as u8;
        }
    }

    colour_test(st, c).then_some(c)
}

/// The colour test (RGB only), true when the colour passes or the test is off.
#[inline(always)]
fn colour_test(st: &PixelState, c: [u8; 4]) -> bool {
    match st.color_test {
        Some((func, reference, mask)) => {
            let rgb = u32::from_le_bytes([c[0], c[1], c[2], 0]) & mask;
            match func {
                ColorTestFunc::Never => false,
                ColorTestFunc::Equal => rgb == reference,
                ColorTestFunc::NotEqual => rgb != reference,
            }
        }
        None => true,
    }
}

/// Without a stencil test, the alpha/stencil bits a written word gets and the bits it keeps
/// from the old word: `(alpha bits, kept bits)`. The old alpha/stencil bits stay, or become
/// all ones under [`PixelState::logic_sets_alpha`]; the write mask keeps its bits either
/// way (the rule of [`draw_tested`], shared by the quad kernels and the row spans).
#[inline(always)]
fn unstenciled_bits<F: FbPixel>(st: &PixelState) -> (u32, u32) {
    if st.logic_sets_alpha {
        (F::STENCIL_BITS, st.write_mask)
    } else {
        (0, st.write_mask | F::STENCIL_BITS)
    }
}

/// The `(alpha bits, kept bits)` of [`unstenciled_bits`] for any draw whose alpha/stencil
/// bits do not depend on the fragment or the old stencil value: no stencil test, or a
/// stencil test that always passes with no depth test and a ZPASS op writing a constant
/// (ZERO, REPLACE: the usual "write 255 where drawn" of a transparent canvas); `None`
/// otherwise. Under these conditions [`draw_tested`] never takes a failing branch and
/// writes `pack_stencil(constant)`.
#[inline(always)]
fn fixed_stencil_bits<F: FbPixel>(st: &PixelState) -> Option<(u32, u32)> {
    // The constant cases of `quad_stencil_bits`: no test that can fail, no KEEP on pass.
    let varies = st.stencil_func != Compare::Always || st.depth_func != Compare::Always || st.zpass == StencilOp::Keep;
    if st.stencil && varies {
        return None;
    }
    quad_stencil_bits::<F>(st)
}

/// For the quad kernel: the `(alpha bits, kept bits)` of [`fixed_stencil_bits`] widened to
/// stencil states whose failing fragments write nothing (SFAIL KEEP under a stencil test
/// that can fail, ZFAIL KEEP under a depth test: `write_stencil_only` of the old stencil
/// rewrites the old word) and whose passing fragments get a constant (ZPASS ZERO, REPLACE)
/// or keep the old stencil bits (ZPASS KEEP); `None` otherwise. The stencil test then acts
/// as a discard, like the alpha test: [`draw_tested`]'s words for every fragment.
#[inline(always)]
fn quad_stencil_bits<F: FbPixel>(st: &PixelState) -> Option<(u32, u32)> {
    if !st.stencil {
        return Some(unstenciled_bits::<F>(st));
    }
    let sfail_writes = st.stencil_func != Compare::Always && st.sfail != StencilOp::Keep;
    let zfail_writes = st.depth_func != Compare::Always && st.zfail != StencilOp::Keep;
    if sfail_writes || zfail_writes {
        return None;
    }
    match st.zpass {
        StencilOp::Keep => Some((0, st.write_mask | F::STENCIL_BITS)),
        StencilOp::Zero | StencilOp::Replace => {
            Some((F::pack_stencil(st.zpass.apply::<F>(0, st.stencil_ref)), st.write_mask))
        }
        _ => None,
    }
}

/// The stencil test of [`draw_tested_at`] on a fragment whose old colour word is `old`:
/// true when it passes (or there is no stencil test).
#[inline(always)]
fn stencil_passes<F: FbPixel>(st: &PixelState, old: u32) -> bool {
    !st.stencil || st.stencil_func.test(st.stencil_ref_masked, F::stencil(old) & st.stencil_mask)
}

/// The rest of the normal-mode pipeline for a fragment that passed [`fragment_tests`]:
/// stencil and depth tests, depth write, blend, dither, logic op, write mask.
#[inline(always)]
fn draw_tested<F: FbPixel>(st: &PixelState, tile: &mut Tile, x: i32, y: i32, z: u16, c: [u8; 4]) {
    // Offsets computed once per fragment (x, y are fixed).
    let (co, zo) = (tile.color_offset(x, y), tile.depth_offset(x, y));
    draw_tested_at::<F>(st, tile, (co, zo), x, y, z, c);
}

/// [`draw_tested`] with the pixel's colour and depth offsets (`Tile::color_offset`,
/// `Tile::depth_offset`) already known.
#[inline(always)]
fn draw_tested_at<F: FbPixel>(
    st: &PixelState,
    tile: &mut Tile,
    (co, zo): (Option<usize>, Option<usize>),
    x: i32,
    y: i32,
    z: u16,
    c: [u8; 4],
) {
    let old = tile.read_color_at(co);
    let mut stencil_value = 0u8;
    if st.stencil {
        // Stencil test with the reference on the left [PP StencilTestPassed, Jit_StencilTest].
        let s = F::stencil(old);
        if !st.stencil_func.test(st.stencil_ref_masked, s & st.stencil_mask) {
            let s2 = st.sfail.apply::<F>(s, st.stencil_ref);
            tile.write_color_at(co, stencil::write_stencil_only::<F>(old, s2, st.write_mask));
            return;
        }
        if st.depth_func != Compare::Always && !st.depth_func.test(z, tile.read_depth_at(zo)) {
            let s2 = st.zfail.apply::<F>(s, st.stencil_ref);
            tile.write_color_at(co, stencil::write_stencil_only::<F>(old, s2, st.write_mask));
            return;
        }
        stencil_value = st.zpass.apply::<F>(s, st.stencil_ref);
    } else if st.depth_func != Compare::Always && !st.depth_func.test(z, tile.read_depth_at(zo)) {
        return;
    }
    if st.depth_write {
        tile.write_depth_at(zo, z);
    }

    // Blend (unclamped), dither, clamp.
    let rgb = match &st.blend {
        Some(b) => b.apply(c, F::dst_rgba(old)),
        None => [c[0] as i32, c[1] as i32, c[2] as i32],
    };
    let rgb = dither_clamp(st, x, y, rgb);

    let rgb_bits = F::ALL_BITS & !F::STENCIL_BITS;
    let mut new = F::pack_rgb(rgb);
    if let Some(lop) = st.logic {
        new = lop.apply(new, old) & rgb_bits;
    }
    // §13 trap: the alpha/stencil bits get the stencil result, never the fragment alpha.
    let alpha_bits = if st.stencil {
        F::pack_stencil(stencil_value)
    } else if st.logic_sets_alpha {
        F::STENCIL_BITS
    } else {
        old & F::STENCIL_BITS
    };
    let full = new | alpha_bits;
    tile.write_color_at(co, (full & !st.write_mask) | (old & st.write_mask));
}

/// Clear mode [PP DrawPixelX86.cpp CompileSingle / Jit_WriteColor clear branch; §16].
#[inline]
fn draw_clear<F: FbPixel>(st: &PixelState, tile: &mut Tile, x: i32, y: i32, z: u16, color: [u8; 4]) {
    if st.clear_depth {
        // Regardless of ZTEST / ZWRITEDISABLE.
        tile.write_depth_at(tile.depth_offset(x, y), z);
    }
    if !st.clear_color && (!st.clear_stencil || F::STENCIL_BITS == 0) {
        return;
    }
    let co = tile.color_offset(x, y);
    let old = tile.read_color_at(co);
    if !st.clear_color {
        // Stencil only: the vertex alpha, masked; colour untouched.
        tile.write_color_at(co, stencil::write_stencil_only::<F>(old, color[3], st.write_mask));
        return;
    }
    let rgb = dither_clamp(st, x, y, [color[0] as i32, color[1] as i32, color[2] as i32]);
    let alpha_bits = if st.clear_stencil { F::pack_stencil(color[3]) } else { old & F::STENCIL_BITS };
    let full = F::pack_rgb(rgb) | alpha_bits;
    tile.write_color_at(co, (full & !st.write_mask) | (old & st.write_mask));
}
