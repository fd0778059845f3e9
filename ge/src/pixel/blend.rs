//! Blending (BLENDMODE 0xDF, ge-reference.md §14) and logic ops (LOGICOP 0xE6, §15.2).
//!
//! Blending is exact integer arithmetic per RGB channel: a factor is 0..=510 (the
//! "double" factors are not clamped), and `term(c, f) = ((2c+1)·(2f+1)) >> 10`
//! [PP DrawPixel.cpp `AlphaBlendingResult`; DrawPixelX86.cpp `Jit_AlphaBlend` computes the
//! same value as `((16c+8)·(16f+8)) >> 16`]. The result is *not* clamped here: dithering is
//! added first and the caller clamps. Blending never touches the framebuffer alpha.
//!
//! [`Blend::apply4`] and [`source_over4`] blend four fragments at once as sixteen 16-bit
//! lanes (RGBA of four pixels; the alpha slots are ignored): a term is the unsigned high
//! half of `(16c+8)·(16f+8)` (at most 4088·8168, below 2³²), which is the JIT's form of
//! the same value. Checked lane by lane against [`Blend::apply`] by `apply4_equals_apply`.
//!
//! Logic ops act on the RGB bits of the raw framebuffer word only. Bitwise ops commute with
//! truncation, so working on the format's own bits (as the x86 JIT does) equals PPSSPP's
//! C++ path on bit-replicated 8-bit values.

use wide::{u16x8, u32x4, u8x16};

/// Four fragments' colours as sixteen 16-bit lanes, RGBA of fragments 0–1, then 2–3.
pub(crate) type Lanes16 = [u16x8; 2];

/// The bytes of four RGBA colours (lane order, little-endian words) as [`Lanes16`].
#[inline(always)]
pub(crate) fn widen(c: u8x16) -> Lanes16 {
    [u16x8::from_u8x16_low(c), u16x8::from_u8x16_high(c)]
}

/// Each colour's alpha byte copied into its R, G and B bytes (alpha byte 0).
#[inline(always)]
fn alpha_rgb(c: u8x16) -> u8x16 {
    let a: u32x4 = bytemuck::cast::<u8x16, u32x4>(c) >> 24;
    bytemuck::cast(a | (a << 8) | (a << 16))
}

/// [`term`] on sixteen lanes: `((16c+8)·(16f+8)) >> 16 = ((2c+1)·(2f+1)) >> 10`.
#[inline(always)]
fn term4(c: Lanes16, f: Lanes16) -> Lanes16 {
    let k = u16x8::splat(8);
    let t = |c: u16x8, f: u16x8| ((c << 4u32) | k).mul_keep_high((f << 4u32) | k);
    [t(c[0], f[0]), t(c[1], f[1])]
}

/// `v` on every lane.
#[inline(always)]
fn splat16(v: u16) -> Lanes16 {
    [u16x8::splat(v); 2]
}

/// `a − b` on every lane (no lane of `b` above `a`).
#[inline(always)]
fn sub16(a: Lanes16, b: Lanes16) -> Lanes16 {
    [a[0] - b[0], a[1] - b[1]]
}

/// A blend factor. `Color` / `InvColor` are the *other* operand's colour: the destination
/// for factor A (codes 0/1), the source for factor B.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlendFactor {
    Color,
    InvColor,
    SrcAlpha,
    InvSrcAlpha,
    DstAlpha,
    InvDstAlpha,
    /// 2·α_src, up to 510 (not clamped).
    DoubleSrcAlpha,
    /// 255 − min(2·α_src, 255).
    DoubleInvSrcAlpha,
    DoubleDstAlpha,
    DoubleInvDstAlpha,
    /// FIXA / FIXB: full 24-bit RGB.
    Fixed([u8; 3]),
}

impl BlendFactor {
    /// From a 4-bit factor code; 10 and every code above it select the fixed colour
    /// [PP DrawPixel.cpp GetSourceFactor "All other dest factors (> 10) are treated as FIXA"].
    pub fn from_code(code: u32, fix: [u8; 3]) -> BlendFactor {
        match code & 0xF {
            0 => BlendFactor::Color,
            1 => BlendFactor::InvColor,
            2 => BlendFactor::SrcAlpha,
            3 => BlendFactor::InvSrcAlpha,
            4 => BlendFactor::DstAlpha,
            5 => BlendFactor::InvDstAlpha,
            6 => BlendFactor::DoubleSrcAlpha,
            7 => BlendFactor::DoubleInvSrcAlpha,
            8 => BlendFactor::DoubleDstAlpha,
            9 => BlendFactor::DoubleInvDstAlpha,
            _ => BlendFactor::Fixed(fix),
        }
    }

    /// Per-channel factor value (0..=510).
    #[inline]
    fn value(self, other: [u8; 4], src_a: u8, dst_a: u8) -> [i32; 3] {
        let all = |v: i32| [v; 3];
        match self {
            BlendFactor::Color => [other[0] as i32, other[1] as i32, other[2] as i32],
            BlendFactor::InvColor => [255 - other[0] as i32, 255 - other[1] as i32, 255 - other[2] as i32],
            BlendFactor::SrcAlpha => all(src_a as i32),
            BlendFactor::InvSrcAlpha => all(255 - src_a as i32),
            BlendFactor::DstAlpha => all(dst_a as i32),
            BlendFactor::InvDstAlpha => all(255 - dst_a as i32),
            // [HW commands/blend] 2·0xFF = 510 is not clamped; only the inverse clamps.
            BlendFactor::DoubleSrcAlpha => all(2 * src_a as i32),
            BlendFactor::DoubleInvSrcAlpha => all(255 - (2 * src_a as i32).min(255)),
            BlendFactor::DoubleDstAlpha => all(2 * dst_a as i32),
            BlendFactor::DoubleInvDstAlpha => all(255 - (2 * dst_a as i32).min(255)),
            BlendFactor::Fixed(c) => [c[0] as i32, c[1] as i32, c[2] as i32],
        }
    }

    /// [`BlendFactor::value`] for four fragments: `other` the other operand's colours,
    /// `src_a` / `dst_a` the alphas already in each colour's RGB bytes ([`alpha_rgb`]).
    #[inline(always)]
    fn value4(self, other: u8x16, src_a: u8x16, dst_a: u8x16) -> Lanes16 {
        let full = splat16(255);
        let double = |a: u8x16| {
            let a = widen(a);
            [a[0] + a[0], a[1] + a[1]]
        };
        match self {
            BlendFactor::Color => widen(other),
            BlendFactor::InvColor => sub16(full, widen(other)),
            BlendFactor::SrcAlpha => widen(src_a),
            BlendFactor::InvSrcAlpha => sub16(full, widen(src_a)),
            BlendFactor::DstAlpha => widen(dst_a),
            BlendFactor::InvDstAlpha => sub16(full, widen(dst_a)),
            BlendFactor::DoubleSrcAlpha => double(src_a),
            BlendFactor::DoubleInvSrcAlpha => {
                let d = double(src_a);
                sub16(full, [d[0].min(full[0]), d[1].min(full[1])])
            }
            BlendFactor::DoubleDstAlpha => double(dst_a),
            BlendFactor::DoubleInvDstAlpha => {
                let d = double(dst_a);
                sub16(full, [d[0].min(full[0]), d[1].min(full[1])])
            }
            BlendFactor::Fixed(c) => {
                let c = c.map(u16::from);
                [u16x8::new([c[0], c[1], c[2], 0, c[0], c[1], c[2], 0]); 2]
            }
        }
    }
}

/// Blend equation (BLENDMODE bits 8–10). Codes 6 and 7 disable blending and have no
/// variant [PP FuncId.cpp ComputePixelFuncID "If invalid (6 or 7), doesn't do any blending"].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlendEq {
    /// A·s + B·d
    Add,
    /// A·s − B·d, clamped at 0
    Subtract,
    /// B·d − A·s, clamped at 0
    ReverseSubtract,
    /// min(s, d), factors ignored
    Min,
    /// max(s, d), factors ignored
    Max,
    /// |s − d|, factors ignored
    AbsDiff,
}

impl BlendEq {
    pub fn from_code(code: u32) -> Option<BlendEq> {
        match code {
            0 => Some(BlendEq::Add),
            1 => Some(BlendEq::Subtract),
            2 => Some(BlendEq::ReverseSubtract),
            3 => Some(BlendEq::Min),
            4 => Some(BlendEq::Max),
            5 => Some(BlendEq::AbsDiff),
            _ => None,
        }
    }
}

/// A decoded blend mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Blend {
    pub eq: BlendEq,
    pub src: BlendFactor,
    pub dst: BlendFactor,
}

/// One product term: `((2c+1)·(2f+1)) >> 10`.
#[inline]
pub(crate) fn term(c: i32, f: i32) -> i32 {
    ((2 * c + 1) * (2 * f + 1)) >> 10
}

impl Blend {
    /// The usual alpha blend: `A·s + B·d` with A = source alpha, B = 1 − source alpha
    /// (the quad kernels inline [`source_over`] for it).
    pub(crate) fn is_source_over(&self) -> bool {
        self.eq == BlendEq::Add && self.src == BlendFactor::SrcAlpha && self.dst == BlendFactor::InvSrcAlpha
    }

    /// Whether [`Blend::apply`] returns the source colour for every source and
    /// destination: ADD or SUBTRACT with A = FIX 0xFFFFFF and B = FIX 0, since
    /// `term(s, 255) = ⌊(2s+1)·511/1024⌋ = s` and `term(d, 0) = ⌊(2d+1)/1024⌋ = 0` for bytes
    /// (checked exhaustively by `identity_blend_returns_the_source`). The hardware model
    /// draws such a blend as none (`crate::draw::DrawState::decode`).
    pub fn is_identity(&self) -> bool {
        matches!(self.eq, BlendEq::Add | BlendEq::Subtract)
            && self.src == BlendFactor::Fixed([0xFF; 3])
            && self.dst == BlendFactor::Fixed([0; 3])
    }

    /// Blend source `s` (fragment, α = fragment alpha) over destination `d` (α = the
    /// stencil value, 0 for 5650). Returns unclamped RGB (≥ 0, up to 1020).
    #[inline]
    pub fn apply(&self, s: [u8; 4], d: [u8; 4]) -> [i32; 3] {
        let mut out = [0i32; 3];
        match self.eq {
            BlendEq::Min => {
                for i in 0..3 {
                    out[i] = s[i].min(d[i]) as i32;
                }
            }
            BlendEq::Max => {
                for i in 0..3 {
                    out[i] = s[i].max(d[i]) as i32;
                }
            }
            BlendEq::AbsDiff => {
                for i in 0..3 {
                    out[i] = s[i].abs_diff(d[i]) as i32;
                }
            }
            eq => {
                let fa = self.src.value(d, s[3], d[3]);
                let fb = self.dst.value(s, s[3], d[3]);
                for i in 0..3 {
                    let a = term(s[i] as i32, fa[i]);
                    let b = term(d[i] as i32, fb[i]);
                    out[i] = match eq {
                        BlendEq::Add => a + b,
                        BlendEq::Subtract => (a - b).max(0),
                        _ => (b - a).max(0),
                    };
                }
            }
        }
        out
    }
}

impl Blend {
    /// [`Blend::apply`] for four fragments at once: sources `s`, destinations `d` (four
    /// RGBA colours each, lane order); lane 4i..4i+2 of the result is `apply(s[i], d[i])`,
    /// the alpha lanes are unspecified.
    #[inline(always)]
    pub(crate) fn apply4(&self, s: u8x16, d: u8x16) -> Lanes16 {
        let eq = match self.eq {
            BlendEq::Min => return widen(s.min(d)),
            BlendEq::Max => return widen(s.max(d)),
            BlendEq::AbsDiff => return widen(s.max(d) - s.min(d)),
            eq => eq,
        };
        let (sa, da) = (alpha_rgb(s), alpha_rgb(d));
        let a = term4(widen(s), self.src.value4(d, sa, da));
        let b = term4(widen(d), self.dst.value4(s, sa, da));
        match eq {
            BlendEq::Add => [a[0] + b[0], a[1] + b[1]],
            BlendEq::Subtract => [a[0].saturating_sub(b[0]), a[1].saturating_sub(b[1])],
            _ => [b[0].saturating_sub(a[0]), b[1].saturating_sub(a[1])],
        }
    }
}

/// [`source_over`] for four fragments at once, as [`Blend::apply4`].
#[inline(always)]
pub(crate) fn source_over4(s: u8x16, d: u8x16) -> Lanes16 {
    let sa = widen(alpha_rgb(s));
    let a = term4(widen(s), sa);
    let b = term4(widen(d), sub16(splat16(255), sa));
    [a[0] + b[0], a[1] + b[1]]
}

/// [`Blend::apply`] for a blend where [`Blend::is_source_over`] holds.
#[inline(always)]
pub(crate) fn source_over(s: [u8; 4], d: [u8; 4]) -> [i32; 3] {
    let (fa, fb) = (s[3] as i32, 255 - s[3] as i32);
    [
        term(s[0] as i32, fa) + term(d[0] as i32, fb),
        term(s[1] as i32, fa) + term(d[1] as i32, fb),
        term(s[2] as i32, fa) + term(d[2] as i32, fb),
    ]
}

/// The 16 logic ops (LOGICOP bits 0–3); `s` = fragment, `d` = framebuffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogicOp {
    Clear,
    And,
    AndReverse,
    Copy,
    AndInverted,
    Noop,
    Xor,
    Or,
    Nor,
    Equiv,
    Inverted,
    OrReverse,
    CopyInverted,
    OrInverted,
    Nand,
    Set,
}

impl LogicOp {
    pub fn from_code(code: u32) -> LogicOp {
        use LogicOp::*;
        [
            Clear,
            And,
            AndReverse,
            Copy,
            AndInverted,
            Noop,
            Xor,
            Or,
            Nor,
            Equiv,
            Inverted,
            OrReverse,
            CopyInverted,
            OrInverted,
            Nand,
            Set,
        ][(code & 0xF) as usize]
    }

    /// Apply to raw words; the caller keeps only the RGB bits of the result.
    #[inline]
    pub fn apply(self, s: u32, d: u32) -> u32 {
        match self {
            LogicOp::Clear => 0,
            LogicOp::And => s & d,
            LogicOp::AndReverse => s & !d,
            LogicOp::Copy => s,
            LogicOp::AndInverted => !s & d,
            LogicOp::Noop => d,
            LogicOp::Xor => s ^ d,
            LogicOp::Or => s | d,
            LogicOp::Nor => !(s | d),
            LogicOp::Equiv => !(s ^ d),
            LogicOp::Inverted => !d,
            LogicOp::OrReverse => s | !d,
            LogicOp::CopyInverted => !s,
            LogicOp::OrInverted => !s | d,
            // guess: the GE computes a real NAND, as PPSSPP's C++ path does (its x86 JIT
            // differs, see `crate::ppsspp::rewrite_pixel`).
            LogicOp::Nand => !(s & d),
            LogicOp::Set => !0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn add(src: BlendFactor, dst: BlendFactor) -> Blend {
        Blend { eq: BlendEq::Add, src, dst }
    }
    const ZERO: BlendFactor = BlendFactor::Fixed([0, 0, 0]);

    #[test]
    fn hardware_blend_examples() {
        // [HW commands/blend] 2·α with α = 0xFF: 0x70 → 0xE0, 0x7F → 0xFE (not 0xFF).
        // (2·0x70+1)(2·510+1)/1024 = 225·1021/1024 = 224.3 → 0xE0.
        let b = add(BlendFactor::DoubleSrcAlpha, ZERO);
        assert_eq!(b.apply([0x70, 0x7F, 0, 0xFF], [0; 4]), [0xE0, 0xFE, 0]);
        // 1 − 2α with α = 0x40: factor 255 − 128 = 127; on 0x80: 257·255/1024 = 63.9 → 0x3F.
        let b = add(BlendFactor::DoubleInvSrcAlpha, ZERO);
        assert_eq!(b.apply([0x80, 0, 0, 0x40], [0; 4])[0], 0x3F);
        // src α 0x80 on 0xFF: 511·257/1024 = 128.2 → 0x80.
        let b = add(BlendFactor::SrcAlpha, ZERO);
        assert_eq!(b.apply([0xFF, 0, 0, 0x80], [0; 4])[0], 0x80);
        // F0 − 0F = E1 with factors of one (FIX 0xFFFFFF): 481·511/1024 = 240, 31·511/1024 = 15.
        let one = BlendFactor::Fixed([0xFF; 3]);
        let b = Blend { eq: BlendEq::Subtract, src: one, dst: one };
        assert_eq!(b.apply([0xF0, 0, 0, 0], [0x0F, 0, 0, 0])[0], 0xE1);
        // [HW vertices/colors.bmp] 4444 α = 8 (→ 0x88) over black with src α / 1 − src α:
        // white: 511·273/1024 = 136.2 → 136, black dst contributes 0.
        let b = add(BlendFactor::SrcAlpha, BlendFactor::InvSrcAlpha);
        assert_eq!(b.apply([0xFF, 0xFF, 0xFF, 0x88], [0, 0, 0, 0]), [136, 136, 136]);
    }

    /// Every blend [`Blend::is_identity`] names returns the source for every byte of
    /// source and destination (channels are independent; alphas vary too), and the
    /// near misses do not.
    #[test]
    fn identity_blend_returns_the_source() {
        let one = BlendFactor::Fixed([0xFF; 3]);
        for eq in [BlendEq::Add, BlendEq::Subtract] {
            let b = Blend { eq, src: one, dst: ZERO };
            assert!(b.is_identity());
            for s in 0..=255u8 {
                for d in 0..=255u8 {
                    let (src, dst) = ([s, 255 - s, s / 2, d], [d, d / 3, 255 - d, s]);
                    assert_eq!(b.apply(src, dst), [s as i32, 255 - s as i32, (s / 2) as i32], "{eq:?} {s} {d}");
                }
            }
        }
        for b in [
            Blend { eq: BlendEq::ReverseSubtract, src: one, dst: ZERO },
            Blend { eq: BlendEq::Add, src: BlendFactor::Fixed([0xFF, 0xFF, 0xFE]), dst: ZERO },
            Blend { eq: BlendEq::Add, src: one, dst: BlendFactor::Fixed([0, 1, 0]) },
            add(BlendFactor::SrcAlpha, BlendFactor::InvSrcAlpha),
        ] {
            assert!(!b.is_identity(), "{b:?}");
            assert_ne!(b.apply([0x80, 0x80, 0x80, 0x80], [0xFF; 4]), [0x80; 3], "{b:?}");
        }
    }

    #[test]
    fn doubled_factor_is_not_clamped_and_sum_is_not_clamped_here() {
        let b = add(BlendFactor::DoubleSrcAlpha, BlendFactor::DoubleDstAlpha);
        // 511·1021/1024 = 509.5 → 509 per term.
        assert_eq!(b.apply([0xFF, 0, 0, 0xFF], [0xFF, 0, 0, 0xFF])[0], 1018);
    }

    #[test]
    fn other_colour_factors_and_equations() {
        // A = dst colour (0x80), B = src colour (0x40): s=0x40: 129·257/1024=32; d=0x80: 257·129/1024 = 32.
        let b = add(BlendFactor::Color, BlendFactor::Color);
        assert_eq!(b.apply([0x40, 0, 0, 0], [0x80, 0, 0, 0])[0], 64);
        let b = Blend { eq: BlendEq::ReverseSubtract, src: BlendFactor::Fixed([0xFF; 3]), dst: ZERO };
        assert_eq!(b.apply([0x40, 0, 0, 0], [0x80, 0, 0, 0])[0], 0);
        let m = |eq| Blend { eq, src: ZERO, dst: ZERO }.apply([0x10, 0x90, 0x50, 0], [0x20, 0x80, 0x50, 0]);
        assert_eq!(m(BlendEq::Min), [0x10, 0x80, 0x50]);
        assert_eq!(m(BlendEq::Max), [0x20, 0x90, 0x50]);
        assert_eq!(m(BlendEq::AbsDiff), [0x10, 0x10, 0]);
        assert_eq!(BlendEq::from_code(6), None);
        assert_eq!(BlendEq::from_code(7), None);
        assert_eq!(BlendFactor::from_code(13, [1, 2, 3]), BlendFactor::Fixed([1, 2, 3]));
    }

    /// [`Blend::apply4`] (and [`source_over4`] for the source-alpha blend) equals
    /// [`Blend::apply`] lane by lane: every equation with every pair of factor codes (the
    /// fixed colours random), random and extreme sources and destinations.
    #[test]
    fn apply4_equals_apply() {
        let mut bits = 0x00B1_E4D5_u32;
        let mut next = || {
            bits = bits.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            bits
        };
        let byte = |r: u32| match r % 8 {
            0 => 0,
            1 => 255,
            2 => 127 + (r >> 8) as u8 % 3,
            _ => (r >> 8) as u8,
        };
        for eq in 0..6 {
            for (a, b) in (0..11).flat_map(|a| (0..11).map(move |b| (a, b))) {
                for _ in 0..300 {
                    let fix = |r: u32| [byte(r), byte(r >> 5), byte(r >> 11)];
                    let blend = Blend {
                        eq: BlendEq::from_code(eq).unwrap(),
                        src: BlendFactor::from_code(a, fix(next())),
                        dst: BlendFactor::from_code(b, fix(next())),
                    };
                    let s: [[u8; 4]; 4] = std::array::from_fn(|_| std::array::from_fn(|_| byte(next())));
                    let d: [[u8; 4]; 4] = std::array::from_fn(|_| std::array::from_fn(|_| byte(next())));
                    let (sv, dv) = (u8x16::new(bytemuck::cast(s)), u8x16::new(bytemuck::cast(d)));
                    let mut got: [u16; 16] = bytemuck::cast(blend.apply4(sv, dv));
                    if blend.is_source_over() {
                        assert_eq!(bytemuck::cast::<_, [u16; 16]>(source_over4(sv, dv)), got, "{s:?} {d:?}");
                    }
                    for i in 0..4 {
                        got[4 * i + 3] = 0;
                        let want = blend.apply(s[i], d[i]).map(|v| v as u16);
                        assert_eq!(got[4 * i..4 * i + 3], want, "{blend:?} lane {i}: {:?} over {:?}", s[i], d[i]);
                    }
                }
            }
        }
    }

    #[test]
    fn logic_ops() {
        let (s, d) = (0b1100u32, 0b1010u32);
        let r = |op: u32| LogicOp::from_code(op).apply(s, d) & 0xF;
        let expect = [
            0b0000, 0b1000, 0b0100, 0b1100, 0b0010, 0b1010, 0b0110, 0b1110, 0b0001, 0b1001, 0b0101, 0b1101, 0b0011,
            0b1011,
        ];
        for (op, e) in expect.iter().enumerate() {
            assert_eq!(r(op as u32), *e, "op {op}");
        }
        // NAND = !(s & d).
        assert_eq!(r(14), 0b0111);
        assert_eq!(r(15), 0b1111);
    }
}
