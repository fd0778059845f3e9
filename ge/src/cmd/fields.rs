//! Typed decoders of the GE's multi-field command arguments: the one place where a
//! register's bit positions are spelled. A command-table row names its decoder
//! ([`super::ArgFormat::Fields`], and a typed handle in [`super::reg`]); the executor, the
//! disassembler, the per-draw state decoders of every stage and the dump recorder read
//! fields through these types and never shift raw register bits themselves.
//!
//! Each decoder is a `#[repr(transparent)]` newtype over the 24-bit argument whose
//! accessors return one field, shifted down to bit 0 (ge-reference.md §1.2 and the
//! per-stage sections; PPSSPP `GPU/GPUState.h` accessors). Fields the hardware ignores
//! are not named. Width and meaning follow what the GE reads; where our code reads a
//! field wider than the GE does (to match PPSSPP's recorder), the doc says so.

use super::Reg;
use crate::regs::Regs;

/// Defines a decoder: `Name { field: shift, bits; ... }`. Generates the newtype, one
/// `const fn` per field, `From<u32>` for typed register handles, and `describe` for the
/// disassembler (`field=value` pairs).
macro_rules! fields {
    ($( $(#[$m:meta])* $name:ident { $( $(#[$fm:meta])* $field:ident : $shift:literal, $bits:literal; )+ } )+) => {$(
        $(#[$m])*
        #[repr(transparent)]
        #[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
        pub struct $name(pub u32);

        impl $name {
            $(
                $(#[$fm])*
                #[inline]
                pub const fn $field(self) -> u32 {
                    (self.0 >> $shift) & ((1u32 << $bits) - 1)
                }
            )+

            /// The fields as `name=value` pairs, for the disassembler.
            pub fn describe(arg: u32) -> String {
                let v = $name(arg);
                let parts: &[(&str, u32)] = &[$( (stringify!($field), v.$field()) ),+];
                parts.iter().map(|(n, x)| format!("{n}={x}")).collect::<Vec<_>>().join(" ")
            }
        }

        impl From<u32> for $name {
            #[inline]
            fn from(arg: u32) -> Self {
                $name(arg)
            }
        }
    )+};
}

fields! {
    /// VERTEXTYPE (0x12): the vertex format (ge-reference.md §2).
    VType {
        /// Texture coordinate number format (0 none, 1 byte, 2 short, 3 float).
        texcoord: 0, 2;
        /// Colour format (0 none, 4 565, 5 5551, 6 4444, 7 8888).
        color: 2, 3;
        normal: 5, 2;
        position: 7, 2;
        weight: 9, 2;
        /// Index format (0 none, 1 u8, 2 u16, 3 u32).
        index: 11, 2;
        /// Skinning weights minus one.
        weight_count: 14, 3;
        /// Morph targets minus one.
        morph_count: 18, 3;
        /// Through mode: screen coordinates, no transform.
        through: 23, 1;
    }

    /// SCISSOR1/2, REGION1/2, TRANSFERSRCPOS/DSTPOS/SIZE: a 10-bit x, y pair.
    Xy10 {
        x: 0, 10;
        y: 10, 10;
    }

    /// OFFSETX/OFFSETY and the immediate VSCX/VSCY: a 12.4 screen coordinate.
    Fixed12_4 {
        /// In 1/16 pixels.
        sixteenths: 0, 16;
    }

    /// MINZ, MAXZ and the immediate VSCZ: a 16-bit depth.
    Depth16 {
        z: 0, 16;
    }

    /// PRIM (0x04).
    PrimArg {
        /// Vertex count.
        count: 0, 16;
        /// Primitive type (0 points .. 6 rectangles, 7 continue).
        prim: 16, 3;
    }

    /// BOUNDINGBOX (0x07).
    BoundingBoxArg {
        count: 0, 16;
    }

    /// BEZIER (0x05) and SPLINE (0x06): control-point counts and (spline) edge types.
    PatchArg {
        u_count: 0, 8;
        v_count: 8, 8;
        u_edge: 16, 2;
        v_edge: 18, 2;
    }

    /// PATCHDIVISION (0x36).
    PatchDivision {
        u: 0, 7;
        v: 8, 7;
    }

    /// PATCHPRIMITIVE (0x37): 0 triangles, 1 lines, 2 points.
    PatchPrimitive {
        prim: 0, 2;
    }

    /// BASE (0x10): bits 24–27 of relative addresses.
    BaseArg {
        addr_high: 16, 4;
    }

    /// TEXADDRn, CLUTADDR, TRANSFERSRC/DST: the low 24 address bits, 16-byte aligned.
    LowAddr {
        /// Address bits 4–23.
        block: 4, 20;
    }

    /// TEXBUFWIDTHn (0xA8..0xAF).
    TexBufWidth {
        /// Buffer width in texels. The GE reads bits 0–10 ([`crate::texture::TexFormat::bufw`]
        /// masks them); PPSSPP's recorder tests all 16.
        width: 0, 16;
        /// Address bits 24–27.
        addr_high: 16, 4;
    }

    /// CLUTADDRUPPER (0xB1).
    ClutAddrUpper {
        /// Address bits 24–27.
        addr_high: 16, 4;
    }

    /// TEXSIZEn (0xB8..0xBF).
    TexSize {
        width_log2: 0, 4;
        height_log2: 8, 4;
    }

    /// TEXMAPMODE (0xC0).
    TexMapMode {
        /// 0 UV, 1 texture matrix, 2 environment map.
        mode: 0, 2;
        /// Texture-matrix source: 0 position, 1 UV, 2 normalized normal, 3 normal.
        projection: 8, 2;
    }

    /// TEXSHADELS (0xC1): the lights whose directions drive environment mapping.
    TexShadeLs {
        u: 0, 2;
        v: 8, 2;
    }

    /// TEXMODE (0xC2).
    TexModeArg {
        swizzle: 0, 1;
        /// CLUT4 mipmaps each use their own CLUT.
        separate_cluts: 8, 1;
        max_level: 16, 3;
    }

    /// TEXFORMAT (0xC3).
    TexFormatArg {
        format: 0, 4;
    }

    /// LOADCLUT (0xC4).
    LoadClutArg {
        /// 32-byte blocks to load.
        blocks: 0, 6;
        /// PPSSPP's recorder reads 0x40 as 64 blocks.
        block64: 6, 1;
    }

    /// CLUTFORMAT (0xC5).
    ClutFormatArg {
        /// 0 565, 1 5551, 2 4444, 3 8888.
        palette: 0, 2;
        shift: 2, 5;
        mask: 8, 8;
        /// Start entry, in 16-entry units.
        offset: 16, 5;
    }

    /// TEXFILTER (0xC6).
    TexFilterArg {
        /// Minification: bit 0 linear, bit 1 linear between mipmaps, bit 2 mipmaps.
        min: 0, 3;
        /// Magnification: linear.
        mag: 8, 1;
    }

    /// TEXWRAP (0xC7).
    TexWrap {
        clamp_s: 0, 1;
        clamp_t: 8, 1;
    }

    /// TEXLEVEL (0xC8).
    TexLevel {
        /// 0 auto, 1 constant, 2 slope.
        mode: 0, 2;
        /// Signed 4.4 level bias.
        bias: 16, 8;
    }

    /// TEXFUNC (0xC9).
    TexFuncArg {
        /// 0 modulate, 1 decal, 2 blend, 3 replace, 4+ add.
        func: 0, 3;
        /// Texture alpha is used.
        rgba: 8, 1;
        /// Colour doubling.
        doubling: 16, 1;
    }

    /// FRAMEBUFPTR (0x9C) and ZBUFPTR (0x9E): VRAM offset of the buffer.
    BufPtr {
        /// VRAM offset bits 4–20.
        block: 4, 17;
    }

    /// FRAMEBUFWIDTH (0x9D) and ZBUFWIDTH (0x9F).
    BufWidth {
        /// Stride in 4-pixel units (bits 2–10).
        quads: 2, 9;
    }

    /// FRAMEBUFPIXFORMAT (0xD2): 0 565, 1 5551, 2 4444, 3 8888.
    FbPixFormat {
        format: 0, 2;
    }

    /// CLEARMODE (0xD3) (ge-reference.md §16).
    ClearModeArg {
        on: 0, 1;
        color: 8, 1;
        /// Alpha / stencil.
        stencil: 9, 1;
        depth: 10, 1;
    }

    /// CULL (0x9B).
    CullArg {
        /// 0: clockwise faces are culled, 1: counter-clockwise (see `clip::CullMode`).
        ccw: 0, 1;
    }

    /// SHADEMODE (0x50).
    ShadeModeArg {
        gouraud: 0, 1;
    }

    /// LIGHTMODE (0x5E).
    LightModeArg {
        separate_specular: 0, 1;
    }

    /// MATERIALUPDATE (0x53): which material colours the vertex colour replaces.
    MaterialUpdate {
        ambient: 0, 1;
        diffuse: 1, 1;
        specular: 2, 1;
    }

    /// LIGHTTYPEn (0x5F..0x62).
    LightTypeArg {
        /// 0 ambient+diffuse, 1 +specular, 2 powered diffuse.
        computation: 0, 2;
        /// 0 directional, 1 point, 2 spot.
        kind: 8, 2;
    }

    /// MATERIALALPHA, AMBIENTALPHA, MASKALPHA and the immediate VFC: one 8-bit value.
    Byte0 {
        value: 0, 8;
    }

    /// ZTEST (0xDE).
    DepthTest {
        func: 0, 3;
    }

    /// COLORTEST (0xD8).
    ColorTestArg {
        /// 0 never, 1 always, 2 equal, 3 not equal.
        func: 0, 2;
    }

    /// ALPHATEST (0xDB) and STENCILTEST (0xDC).
    RefTest {
        func: 0, 3;
        reference: 8, 8;
        mask: 16, 8;
    }

    /// STENCILOP (0xDD).
    StencilOpArg {
        fail: 0, 3;
        zfail: 8, 3;
        zpass: 16, 3;
    }

    /// BLENDMODE (0xDF).
    BlendModeArg {
        src: 0, 4;
        dst: 4, 4;
        equation: 8, 3;
    }

    /// LOGICOP (0xE6).
    LogicOpArg {
        op: 0, 4;
    }

    /// DITH0..DITH3 (0xE2..0xE5): one row of the 4x4 dither matrix, signed 4-bit entries.
    DitherRow {
        x0: 0, 4;
        x1: 4, 4;
        x2: 8, 4;
        x3: 12, 4;
    }

    /// TRANSFERSRCW (0xB3) and TRANSFERDSTW (0xB5).
    TransferWidth {
        /// Stride in 8-pixel units (bits 3–10).
        eights: 3, 8;
        /// Address bits 24–31.
        addr_high: 16, 8;
    }

    /// TRANSFERSTART (0xEA).
    TransferStartArg {
        /// 32-bit pixels (else 16-bit).
        bpp32: 0, 1;
    }

    /// VAP (0xF7): the immediate vertex's alpha, primitive type and draw flags.
    ImmAlphaPrim {
        alpha: 0, 8;
        prim: 8, 3;
        /// The flags replace the draw's enables (PPSSPP `GE_IMM_*`; see `draw::immediate`).
        antialias: 11, 1;
        shading: 18, 1;
        cull_enable: 19, 1;
        cull_face: 20, 1;
        texture: 21, 1;
        fog: 22, 1;
        dither: 23, 1;
    }

    /// SIGNAL (0x0E) and FINISH (0x0F).
    SignalArg {
        data: 0, 16;
        behaviour: 16, 8;
    }

    /// END (0x0C) after a SIGNAL.
    EndArg {
        data: 0, 16;
    }

    /// BONEMATRIXNUMBER (0x2A).
    BoneIndex {
        index: 0, 7;
    }

    /// WORLD/VIEW/PROJ/TGENMATRIXNUMBER.
    MatrixIndex {
        index: 0, 4;
    }
}

impl VType {
    /// The through-mode bit of a register difference (`DirtyGroup::RasterThroughBit`).
    pub const THROUGH: u32 = VType(!0).through() << 23;
}

impl CullArg {
    /// The argument with the face bit set to `ccw`.
    #[inline]
    pub const fn with_ccw(self, ccw: bool) -> u32 {
        (self.0 & !1) | ccw as u32
    }
}

impl LowAddr {
    /// The address bits 0–23 (16-byte aligned).
    #[inline]
    pub const fn low(self) -> u32 {
        self.block() << 4
    }
}

impl TexBufWidth {
    /// Address bits 24–27 in place.
    #[inline]
    pub const fn high(self) -> u32 {
        self.addr_high() << 24
    }
}

impl ClutAddrUpper {
    /// The argument that carries address bits 24–31 of `addr` (bits 16–23; the GE reads
    /// 16–19) [PP `GPURecord` CLUTADDRUPPER].
    #[inline]
    pub const fn upper_of(addr: u32) -> u32 {
        (addr >> 8) & 0x00FF_0000
    }

    /// Address bits 24–27 in place.
    #[inline]
    pub const fn high(self) -> u32 {
        self.addr_high() << 24
    }
}

impl BaseArg {
    /// Address bits 24–27 in place.
    #[inline]
    pub const fn high(self) -> u32 {
        self.addr_high() << 24
    }
}

impl TransferWidth {
    /// This argument with bits 16–23 replaced by address bits 24–31 of `addr`, bits 0–15
    /// kept [PP `GPURecord` TransferSrc].
    #[inline]
    pub const fn with_upper_of(self, addr: u32) -> u32 {
        (self.0 & 0xFFFF) | ClutAddrUpper::upper_of(addr)
    }

    /// Stride in pixels.
    #[inline]
    pub const fn stride(self) -> u32 {
        self.eights() << 3
    }

    /// Address bits 24–31 in place.
    #[inline]
    pub const fn high(self) -> u32 {
        self.addr_high() << 24
    }
}

impl BufPtr {
    /// VRAM offset (16-byte aligned).
    #[inline]
    pub const fn vram_offset(self) -> u32 {
        self.block() << 4
    }
}

impl BufWidth {
    /// Stride in pixels (a multiple of 4).
    #[inline]
    pub const fn stride(self) -> u32 {
        self.quads() << 2
    }
}

impl TexFilterArg {
    /// Minification between mipmap levels is on (min bit 2).
    #[inline]
    pub const fn mipmaps(self) -> bool {
        self.min() & 4 != 0
    }
}

impl TexLevel {
    /// The bias as a signed 4.4 number.
    #[inline]
    pub const fn bias_4_4(self) -> i32 {
        self.bias() as u8 as i8 as i32
    }
}

impl DitherRow {
    /// Entry `x` (0..4), sign-extended [PP GPUState.h getDitherValue].
    #[inline]
    pub const fn offset(self, x: usize) -> i8 {
        let raw = match x & 3 {
            0 => self.x0(),
            1 => self.x1(),
            2 => self.x2(),
            _ => self.x3(),
        } as u8;
        ((raw << 4) as i8) >> 4
    }
}

impl PrimArg {
    /// `RECTANGLES count=2`.
    pub fn describe_prim(arg: u32) -> String {
        const NAMES: [&str; 8] =
            ["POINTS", "LINES", "LINE_STRIP", "TRIANGLES", "TRIANGLE_STRIP", "TRIANGLE_FAN", "RECTANGLES", "CONTINUE"];
        let p = PrimArg(arg);
        format!("{} count={}", NAMES[p.prim() as usize], p.count())
    }
}

impl Fixed12_4 {
    /// The coordinate in pixels, for the disassembler.
    pub fn describe_pixels(arg: u32) -> String {
        format!("{}", Fixed12_4(arg).sixteenths() as f32 / 16.0)
    }
}

impl Regs {
    /// The argument of a register through its table row's decoder.
    #[inline]
    pub fn get<T: From<u32>>(&self, r: Reg<T>) -> T {
        T::from(self.arg(r.op))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cmd::{op, reg, TABLE};

    /// Hand-assembled arguments against ge-reference.md's bit layouts.
    #[test]
    fn fields_follow_the_reference_layouts() {
        // ALPHATEST GEQUAL(6), ref 0x80, mask 0xFF.
        let t = RefTest(0x00FF_8006);
        assert_eq!((t.func(), t.reference(), t.mask()), (6, 0x80, 0xFF));
        // BLENDMODE: src FIXA(10), dst ONE_MINUS_SRC_ALPHA(3), equation SUBTRACT(1).
        let b = BlendModeArg(0x13A);
        assert_eq!((b.src(), b.dst(), b.equation()), (10, 3, 1));
        // TEXSIZE 512x32, TEXBUFWIDTH 512 with address bits 24-27 = 9.
        assert_eq!((TexSize(0x0509).width_log2(), TexSize(0x0509).height_log2()), (9, 5));
        assert_eq!(TexBufWidth(0x09_0200).high() | LowAddr(0x12_3458).low(), 0x0912_3450);
        // CLUTFORMAT 5551, shift 1, mask 0x0F, start 2.
        let c = ClutFormatArg((2 << 16) | (0x0F << 8) | (1 << 2) | 1);
        assert_eq!((c.palette(), c.shift(), c.mask(), c.offset()), (1, 1, 0x0F, 2));
        // SCISSOR2 (479, 271); FRAMEBUFWIDTH 512; FRAMEBUFPTR 0x44000.
        assert_eq!((Xy10((271 << 10) | 479).x(), Xy10((271 << 10) | 479).y()), (479, 271));
        assert_eq!((BufWidth(0x0A_0200).stride(), BufPtr(0x04_4008).vram_offset()), (512, 0x4_4000));
        // TEXLEVEL bias -1.5 (0xE8 in 4.4).
        assert_eq!(TexLevel(0xE8_0001).bias_4_4(), -24);
        // DITH0 row 0x1F7C: -4, 7, -1, 1.
        let d = DitherRow(0x1F7C);
        assert_eq!([d.offset(0), d.offset(1), d.offset(2), d.offset(3)], [-4, 7, -1, 1]);
        // VAP: alpha 0xAB, prim 7, the cull-face flag (PPSSPP GE_IMM_CULLFACE 0x100000).
        let v = ImmAlphaPrim(0x10_07AB);
        assert_eq!((v.alpha(), v.prim(), v.cull_face(), v.cull_enable()), (0xAB, 7, 1, 0));
        assert_eq!(CullArg(0x10).with_ccw(true), 0x11);
        assert_eq!(VType::THROUGH, 0x80_0000);
    }

    /// Every decoded row shows its fields; typed handles carry their row's number.
    #[test]
    fn decoded_rows_and_handles() {
        assert_eq!(reg::ZTEST.op, op::ZTEST);
        assert_eq!(reg::TEXSIZE0.at(7).op, op::TEXSIZE0 + 7);
        assert_eq!(reg::LIGHTTYPE0.at(3).op, 0x62);
        let mut r = Regs::default();
        r.set(op::STENCILOP, 0x02_0301);
        let s = r.get(reg::STENCILOP);
        assert_eq!((s.fail(), s.zfail(), s.zpass()), (1, 3, 2));
        let shown: Vec<String> = TABLE
            .iter()
            .filter_map(|c| match c.fmt {
                crate::cmd::ArgFormat::Fields(show) => Some(format!("{} {}", c.name, show(0x00FF_FFFF))),
                _ => None,
            })
            .collect();
        assert!(shown.len() > 60, "{}", shown.len());
        assert!(shown.contains(&"STENCILOP fail=7 zfail=7 zpass=7".to_string()), "{shown:?}");
    }
}
