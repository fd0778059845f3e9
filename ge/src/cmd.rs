//! The GE command table: one entry per command number (opcode, mnemonic, argument
//! format), shared by the executor, the disassembler and state dumps.
//!
//! Numbers and names follow ge-reference.md §1.2 (PPSSPP `GPU/ge_constants.h`,
//! `GPU/Debugger/GECommandTable.cpp`). Unknown numbers are NOPs on the hardware
//! (PPSSPP `Execute_Unknown`).

pub mod fields;

use std::marker::PhantomData;

use crate::regs::{enable_bit, float24, rgb_bytes, Regs};

/// How a command's 24-bit argument is shown and decoded.
#[derive(Debug, Clone, Copy)]
pub enum ArgFormat {
    /// Argument ignored.
    None,
    /// A plain hexadecimal value.
    Hex,
    /// Bit 0 switches something on ([`crate::regs::enable_bit`]).
    Enable,
    /// A 24-bit address (relative to BASE/OFFSET where the command says so).
    Addr,
    /// float24: `arg << 8` reinterpreted as f32.
    Float,
    /// An RGB colour ([`crate::regs::rgb_bytes`]).
    Rgb,
    /// Fields of a typed decoder in [`fields`], shown by this function.
    Fields(fn(u32) -> String),
}

/// What a change of a command's argument invalidates besides the register itself. Every
/// change but a `Vertex` one invalidates the per-draw state snapshot (`Draw`); the other
/// groups add to that.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DirtyGroup {
    /// Nothing: the vertex and index pointers and the world, view, projection and bone
    /// matrices, which each draw reads afresh (vertex fetch, transform state) and the draw
    /// state snapshot never reads (test `vertex_group_leaves_the_draw_state`). Frame-dump
    /// replays set VADDR and IADDR before nearly every draw.
    Vertex,
    /// The per-draw state snapshot only.
    Draw,
    /// Also PPSSPP's rasterizer state (a new one starts at the next PRIM) [PP `SoftGpu.cpp`
    /// softgpuCmdInfo PIXEL_*, SAMPLER_*, RAST_* flags].
    Raster,
    /// `Raster` when the through-mode bit (23) changes [PP `Execute_VertexType`].
    RasterThroughBit,
    /// The render target moves: binned draws are rasterized first.
    Target,
    /// `Target` and `Raster`.
    TargetRaster,
}

impl DirtyGroup {
    /// Whether a change of the bits `diff` starts a new PPSSPP rasterizer state.
    #[inline]
    pub fn raster(self, diff: u32) -> bool {
        match self {
            DirtyGroup::Raster | DirtyGroup::TargetRaster => true,
            DirtyGroup::RasterThroughBit => diff & fields::VType::THROUGH != 0,
            DirtyGroup::Vertex | DirtyGroup::Draw | DirtyGroup::Target => false,
        }
    }

    /// Whether a change invalidates the per-draw state snapshot.
    #[inline]
    pub fn draw_state(self) -> bool {
        self != DirtyGroup::Vertex
    }

    /// Whether a change moves the render target.
    #[inline]
    pub fn target(self) -> bool {
        matches!(self, DirtyGroup::Target | DirtyGroup::TargetRaster)
    }
}

/// One command-table row.
#[derive(Debug, Clone, Copy)]
pub struct CmdInfo {
    pub op: u8,
    pub name: &'static str,
    pub fmt: ArgFormat,
    pub dirty: DirtyGroup,
}

/// A typed handle on a register whose table row names a decoder: `regs.get(reg::ZTEST)`
/// gives a [`fields::DepthTest`]. `at(i)` steps through a register family (TEXSIZE0..7).
pub struct Reg<T> {
    pub op: u8,
    _decoder: PhantomData<fn() -> T>,
}

impl<T> Clone for Reg<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Reg<T> {}

impl<T> Reg<T> {
    pub const fn new(op: u8) -> Self {
        Reg { op, _decoder: PhantomData }
    }

    /// Member `i` of the family this register starts (TEXADDR0 + i, LIGHTTYPE0 + i, ...).
    #[inline]
    pub const fn at(self, i: usize) -> Self {
        Reg::new(self.op + i as u8)
    }
}

/// The command table, one row per GE command: `opcode MNEMONIC format dirty-group;`.
/// A format in parentheses names the row's decoder in [`fields`] (optionally with the
/// function that shows it). Expands into the [`op`] numbers, the typed [`reg`] handles of
/// decoded rows and the rows of [`TABLE`] (unlisted numbers are UNKNOWN: a NOP).
macro_rules! commands {
    ($( $op:literal $name:ident $fmt:tt $dirty:ident; )*) => {
        /// Command numbers (ge-reference.md §1.2).
        pub mod op {
            $( pub const $name: u8 = $op; )*
        }

        /// Typed handles of the registers whose rows name a decoder.
        pub mod reg {
            use super::{fields::*, Reg};
            $( commands!(@reg $name $op $fmt); )*
        }

        const NAMED: &[CmdInfo] = &[
            $( CmdInfo { op: $op, name: stringify!($name), fmt: commands!(@fmt $fmt), dirty: DirtyGroup::$dirty }, )*
        ];
    };
    (@reg $name:ident $op:literal ($t:ident $(:: $f:ident)?)) => {
        pub const $name: Reg<$t> = Reg::new($op);
    };
    (@reg $name:ident $op:literal $f:ident) => {};
    (@fmt ($t:ident :: $f:ident)) => { ArgFormat::Fields(fields::$t::$f) };
    (@fmt ($t:ident)) => { ArgFormat::Fields(fields::$t::describe) };
    (@fmt $f:ident) => { ArgFormat::$f };
}

commands! {
    0x00 NOP None Draw;
    0x01 VADDR Addr Vertex;
    0x02 IADDR Addr Vertex;
    0x04 PRIM (PrimArg::describe_prim) Draw;
    0x05 BEZIER (PatchArg) Draw;
    0x06 SPLINE (PatchArg) Draw;
    0x07 BOUNDINGBOX (BoundingBoxArg) Draw;
    0x08 JUMP Addr Draw;
    0x09 BJUMP Addr Draw;
    0x0A CALL Addr Draw;
    0x0B RET None Draw;
    0x0C END (EndArg) Draw;
    0x0E SIGNAL (SignalArg) Draw;
    0x0F FINISH (SignalArg) Draw;
    0x10 BASE (BaseArg) Vertex;
    0x12 VERTEXTYPE (VType) RasterThroughBit;
    0x13 OFFSETADDR Hex Vertex;
    0x14 ORIGIN None Vertex;
    0x15 REGION1 (Xy10) Draw;
    0x16 REGION2 (Xy10) Draw;
    0x17 LIGHTINGENABLE Enable Draw;
    0x18 LIGHTENABLE0 Enable Draw;
    0x19 LIGHTENABLE1 Enable Draw;
    0x1A LIGHTENABLE2 Enable Draw;
    0x1B LIGHTENABLE3 Enable Draw;
    0x1C DEPTHCLAMPENABLE Enable Draw;
    0x1D CULLFACEENABLE Enable Draw;
    0x1E TEXTUREMAPENABLE Enable Raster;
    0x1F FOGENABLE Enable Raster;
    0x20 DITHERENABLE Enable Raster;
    0x21 ALPHABLENDENABLE Enable Raster;
    0x22 ALPHATESTENABLE Enable Raster;
    0x23 ZTESTENABLE Enable Raster;
    0x24 STENCILTESTENABLE Enable Raster;
    0x25 ANTIALIASENABLE Enable Raster;
    0x26 PATCHCULLENABLE Enable Draw;
    0x27 COLORTESTENABLE Enable Raster;
    0x28 LOGICOPENABLE Enable Raster;
    0x2A BONEMATRIXNUMBER (BoneIndex) Vertex;
    0x2B BONEMATRIXDATA Float Vertex;
    0x2C MORPHWEIGHT0 Float Draw;
    0x2D MORPHWEIGHT1 Float Draw;
    0x2E MORPHWEIGHT2 Float Draw;
    0x2F MORPHWEIGHT3 Float Draw;
    0x30 MORPHWEIGHT4 Float Draw;
    0x31 MORPHWEIGHT5 Float Draw;
    0x32 MORPHWEIGHT6 Float Draw;
    0x33 MORPHWEIGHT7 Float Draw;
    0x36 PATCHDIVISION (PatchDivision) Draw;
    0x37 PATCHPRIMITIVE (PatchPrimitive) Draw;
    0x38 PATCHFACING Enable Draw;
    0x3A WORLDMATRIXNUMBER (MatrixIndex) Vertex;
    0x3B WORLDMATRIXDATA Float Vertex;
    0x3C VIEWMATRIXNUMBER (MatrixIndex) Vertex;
    0x3D VIEWMATRIXDATA Float Vertex;
    0x3E PROJMATRIXNUMBER (MatrixIndex) Vertex;
    0x3F PROJMATRIXDATA Float Vertex;
    0x40 TGENMATRIXNUMBER (MatrixIndex) Draw;
    0x41 TGENMATRIXDATA Float Draw;
    0x42 VIEWPORTXSCALE Float Draw;
    0x43 VIEWPORTYSCALE Float Draw;
    0x44 VIEWPORTZSCALE Float Draw;
    0x45 VIEWPORTXCENTER Float Draw;
    0x46 VIEWPORTYCENTER Float Draw;
    0x47 VIEWPORTZCENTER Float Draw;
    0x48 TEXSCALEU Float Draw;
    0x49 TEXSCALEV Float Draw;
    0x4A TEXOFFSETU Float Draw;
    0x4B TEXOFFSETV Float Draw;
    0x4C OFFSETX (Fixed12_4::describe_pixels) Raster;
    0x4D OFFSETY (Fixed12_4::describe_pixels) Raster;
    0x50 SHADEMODE (ShadeModeArg) Raster;
    0x51 REVERSENORMAL Enable Draw;
    0x53 MATERIALUPDATE (MaterialUpdate) Draw;
    0x54 MATERIALEMISSIVE Rgb Draw;
    0x55 MATERIALAMBIENT Rgb Draw;
    0x56 MATERIALDIFFUSE Rgb Draw;
    0x57 MATERIALSPECULAR Rgb Draw;
    0x58 MATERIALALPHA (Byte0) Draw;
    0x5B MATERIALSPECULARCOEF Float Draw;
    0x5C AMBIENTCOLOR Rgb Draw;
    0x5D AMBIENTALPHA (Byte0) Draw;
    0x5E LIGHTMODE (LightModeArg) Draw;
    0x5F LIGHTTYPE0 (LightTypeArg) Draw;
    0x60 LIGHTTYPE1 (LightTypeArg) Draw;
    0x61 LIGHTTYPE2 (LightTypeArg) Draw;
    0x62 LIGHTTYPE3 (LightTypeArg) Draw;
    0x63 LX0 Float Draw;
    0x64 LY0 Float Draw;
    0x65 LZ0 Float Draw;
    0x66 LX1 Float Draw;
    0x67 LY1 Float Draw;
    0x68 LZ1 Float Draw;
    0x69 LX2 Float Draw;
    0x6A LY2 Float Draw;
    0x6B LZ2 Float Draw;
    0x6C LX3 Float Draw;
    0x6D LY3 Float Draw;
    0x6E LZ3 Float Draw;
    0x6F LDX0 Float Draw;
    0x70 LDY0 Float Draw;
    0x71 LDZ0 Float Draw;
    0x72 LDX1 Float Draw;
    0x73 LDY1 Float Draw;
    0x74 LDZ1 Float Draw;
    0x75 LDX2 Float Draw;
    0x76 LDY2 Float Draw;
    0x77 LDZ2 Float Draw;
    0x78 LDX3 Float Draw;
    0x79 LDY3 Float Draw;
    0x7A LDZ3 Float Draw;
    0x7B LKA0 Float Draw;
    0x7C LKB0 Float Draw;
    0x7D LKC0 Float Draw;
    0x7E LKA1 Float Draw;
    0x7F LKB1 Float Draw;
    0x80 LKC1 Float Draw;
    0x81 LKA2 Float Draw;
    0x82 LKB2 Float Draw;
    0x83 LKC2 Float Draw;
    0x84 LKA3 Float Draw;
    0x85 LKB3 Float Draw;
    0x86 LKC3 Float Draw;
    0x87 LKS0 Float Draw;
    0x88 LKS1 Float Draw;
    0x89 LKS2 Float Draw;
    0x8A LKS3 Float Draw;
    0x8B LKO0 Float Draw;
    0x8C LKO1 Float Draw;
    0x8D LKO2 Float Draw;
    0x8E LKO3 Float Draw;
    0x8F LAC0 Rgb Draw;
    0x90 LDC0 Rgb Draw;
    0x91 LSC0 Rgb Draw;
    0x92 LAC1 Rgb Draw;
    0x93 LDC1 Rgb Draw;
    0x94 LSC1 Rgb Draw;
    0x95 LAC2 Rgb Draw;
    0x96 LDC2 Rgb Draw;
    0x97 LSC2 Rgb Draw;
    0x98 LAC3 Rgb Draw;
    0x99 LDC3 Rgb Draw;
    0x9A LSC3 Rgb Draw;
    0x9B CULL (CullArg) Draw;
    0x9C FRAMEBUFPTR (BufPtr) Target;
    0x9D FRAMEBUFWIDTH (BufWidth) TargetRaster;
    0x9E ZBUFPTR (BufPtr) Target;
    0x9F ZBUFWIDTH (BufWidth) TargetRaster;
    0xA0 TEXADDR0 (LowAddr) Raster;
    0xA1 TEXADDR1 (LowAddr) Raster;
    0xA2 TEXADDR2 (LowAddr) Raster;
    0xA3 TEXADDR3 (LowAddr) Raster;
    0xA4 TEXADDR4 (LowAddr) Raster;
    0xA5 TEXADDR5 (LowAddr) Raster;
    0xA6 TEXADDR6 (LowAddr) Raster;
    0xA7 TEXADDR7 (LowAddr) Raster;
    0xA8 TEXBUFWIDTH0 (TexBufWidth) Raster;
    0xA9 TEXBUFWIDTH1 (TexBufWidth) Raster;
    0xAA TEXBUFWIDTH2 (TexBufWidth) Raster;
    0xAB TEXBUFWIDTH3 (TexBufWidth) Raster;
    0xAC TEXBUFWIDTH4 (TexBufWidth) Raster;
    0xAD TEXBUFWIDTH5 (TexBufWidth) Raster;
    0xAE TEXBUFWIDTH6 (TexBufWidth) Raster;
    0xAF TEXBUFWIDTH7 (TexBufWidth) Raster;
    0xB0 CLUTADDR (LowAddr) Draw;
    0xB1 CLUTADDRUPPER (ClutAddrUpper) Draw;
    0xB2 TRANSFERSRC (LowAddr) Draw;
    0xB3 TRANSFERSRCW (TransferWidth) Draw;
    0xB4 TRANSFERDST (LowAddr) Draw;
    0xB5 TRANSFERDSTW (TransferWidth) Draw;
    0xB8 TEXSIZE0 (TexSize) Raster;
    0xB9 TEXSIZE1 (TexSize) Raster;
    0xBA TEXSIZE2 (TexSize) Raster;
    0xBB TEXSIZE3 (TexSize) Raster;
    0xBC TEXSIZE4 (TexSize) Raster;
    0xBD TEXSIZE5 (TexSize) Raster;
    0xBE TEXSIZE6 (TexSize) Raster;
    0xBF TEXSIZE7 (TexSize) Raster;
    0xC0 TEXMAPMODE (TexMapMode) Raster;
    0xC1 TEXSHADELS (TexShadeLs) Draw;
    0xC2 TEXMODE (TexModeArg) Raster;
    0xC3 TEXFORMAT (TexFormatArg) Raster;
    0xC4 LOADCLUT (LoadClutArg) Draw;
    0xC5 CLUTFORMAT (ClutFormatArg) Raster;
    0xC6 TEXFILTER (TexFilterArg) Raster;
    0xC7 TEXWRAP (TexWrap) Raster;
    0xC8 TEXLEVEL (TexLevel) Raster;
    0xC9 TEXFUNC (TexFuncArg) Raster;
    0xCA TEXENVCOLOR Rgb Raster;
    0xCB TEXFLUSH None Draw;
    0xCC TEXSYNC None Draw;
    0xCD FOG1 Float Draw;
    0xCE FOG2 Float Draw;
    0xCF FOGCOLOR Rgb Raster;
    0xD0 TEXLODSLOPE Float Raster;
    0xD2 FRAMEBUFPIXFORMAT (FbPixFormat) TargetRaster;
    0xD3 CLEARMODE (ClearModeArg) Raster;
    0xD4 SCISSOR1 (Xy10) Draw;
    0xD5 SCISSOR2 (Xy10) Draw;
    0xD6 MINZ (Depth16) Raster;
    0xD7 MAXZ (Depth16) Raster;
    0xD8 COLORTEST (ColorTestArg) Raster;
    0xD9 COLORREF Rgb Raster;
    0xDA COLORTESTMASK Rgb Raster;
    0xDB ALPHATEST (RefTest) Raster;
    0xDC STENCILTEST (RefTest) Raster;
    0xDD STENCILOP (StencilOpArg) Raster;
    0xDE ZTEST (DepthTest) Raster;
    0xDF BLENDMODE (BlendModeArg) Raster;
    0xE0 BLENDFIXEDA Rgb Raster;
    0xE1 BLENDFIXEDB Rgb Raster;
    0xE2 DITH0 (DitherRow) Raster;
    0xE3 DITH1 (DitherRow) Raster;
    0xE4 DITH2 (DitherRow) Raster;
    0xE5 DITH3 (DitherRow) Raster;
    0xE6 LOGICOP (LogicOpArg) Raster;
    0xE7 ZWRITEDISABLE Enable Raster;
    0xE8 MASKRGB Rgb Raster;
    0xE9 MASKALPHA (Byte0) Raster;
    0xEA TRANSFERSTART (TransferStartArg) Draw;
    0xEB TRANSFERSRCPOS (Xy10) Draw;
    0xEC TRANSFERDSTPOS (Xy10) Draw;
    0xEE TRANSFERSIZE (Xy10) Draw;
    0xF0 VSCX (Fixed12_4::describe_pixels) Draw;
    0xF1 VSCY (Fixed12_4::describe_pixels) Draw;
    0xF2 VSCZ (Depth16) Draw;
    0xF3 VTCS Float Draw;
    0xF4 VTCT Float Draw;
    0xF5 VTCQ Float Draw;
    0xF6 VCV Rgb Draw;
    0xF7 VAP (ImmAlphaPrim) Draw;
    0xF8 VFC (Byte0) Draw;
    0xF9 VSCV Rgb Draw;
    0xFF NOP_FF None Draw;
}

const fn build_table() -> [CmdInfo; 256] {
    let mut t = [CmdInfo { op: 0, name: "UNKNOWN", fmt: ArgFormat::Hex, dirty: DirtyGroup::Draw }; 256];
    let mut i = 0;
    while i < 256 {
        t[i].op = i as u8;
        i += 1;
    }
    let mut k = 0;
    while k < NAMED.len() {
        t[NAMED[k].op as usize] = NAMED[k];
        k += 1;
    }
    t
}

/// The full 256-entry command table.
pub static TABLE: [CmdInfo; 256] = build_table();

/// Table row for a command number.
#[inline]
pub fn info(op: u8) -> &'static CmdInfo {
    &TABLE[op as usize]
}

/// Mnemonic of a command number (`UNKNOWN` for numbers the GE ignores).
pub fn name(op: u8) -> &'static str {
    TABLE[op as usize].name
}

/// Look a mnemonic up (case-insensitive), for hand-written lists and tools.
pub fn by_name(name: &str) -> Option<u8> {
    TABLE.iter().find(|c| c.name != "UNKNOWN" && c.name.eq_ignore_ascii_case(name)).map(|c| c.op)
}

/// Split a command word into (command number, 24-bit argument).
#[inline]
pub fn split(word: u32) -> (u8, u32) {
    ((word >> 24) as u8, word & 0x00FF_FFFF)
}

/// Build a command word.
#[inline]
pub const fn word(op: u8, arg: u32) -> u32 {
    ((op as u32) << 24) | (arg & 0x00FF_FFFF)
}

/// Render the argument of `op` for humans, following the table's format.
pub fn format_arg(op: u8, arg: u32) -> String {
    match info(op).fmt {
        ArgFormat::None => String::new(),
        ArgFormat::Hex | ArgFormat::Addr => format!("0x{arg:06x}"),
        ArgFormat::Enable => (if enable_bit(arg) { "on" } else { "off" }).to_string(),
        ArgFormat::Float => format!("{:?}", float24(arg)),
        ArgFormat::Rgb => {
            let [r, g, b] = rgb_bytes(arg);
            format!("r={r} g={g} b={b}")
        }
        ArgFormat::Fields(show) => show(arg),
    }
}

impl std::fmt::Debug for Regs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut m = f.debug_map();
        for (i, v) in self.raw.iter().enumerate() {
            if *v != 0 {
                m.entry(&name(i as u8), &format_args!("0x{v:06x}"));
            }
        }
        m.finish()
    }
}

/// CLEARMODE (0xD3) while on (bit 0): which buffers the clear-mode draws write
/// (ge-reference.md §16).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClearMode {
    /// Bit 8: colour.
    pub color: bool,
    /// Bit 9: alpha / stencil.
    pub stencil: bool,
    /// Bit 10: depth.
    pub depth: bool,
}

impl Regs {
    /// Clear mode, when CLEARMODE is on.
    #[inline]
    pub fn clear_mode(&self) -> Option<ClearMode> {
        let a = self.get(reg::CLEARMODE);
        (a.on() != 0).then_some(ClearMode { color: a.color() != 0, stencil: a.stencil() != 0, depth: a.depth() != 0 })
    }
}

/// Disassemble one command word: `MNEMONIC args`.
pub fn disassemble(word: u32) -> String {
    let (op, arg) = split(word);
    let a = format_arg(op, arg);
    if a.is_empty() {
        name(op).to_string()
    } else {
        format!("{} {}", name(op), a)
    }
}

/// Disassemble a list of words, one line each, prefixed by the byte address.
pub fn disassemble_list(base: u32, words: &[u32]) -> String {
    let mut s = String::new();
    for (i, w) in words.iter().enumerate() {
        use std::fmt::Write;
        let _ = writeln!(s, "{:08x}: {:08x}  {}", base.wrapping_add(4 * i as u32), w, disassemble(*w));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_indexed_by_opcode() {
        for (i, c) in TABLE.iter().enumerate() {
            assert_eq!(c.op as usize, i);
        }
        assert_eq!(name(op::PRIM), "PRIM");
        assert_eq!(name(op::MASKALPHA), "MASKALPHA");
        assert_eq!(name(0x03), "UNKNOWN");
        assert_eq!(by_name("vertextype"), Some(op::VERTEXTYPE));
    }

    /// The dirty groups of PPSSPP's `softgpuCmdInfo` that pixels depend on: the render
    /// target moves only with the five buffer registers, VERTEXTYPE only restarts the
    /// rasterizer state through bit 23, and a texture level register does.
    #[test]
    fn dirty_groups() {
        let targets: Vec<&str> = TABLE.iter().filter(|c| c.dirty.target()).map(|c| c.name).collect();
        assert_eq!(targets, ["FRAMEBUFPTR", "FRAMEBUFWIDTH", "ZBUFPTR", "ZBUFWIDTH", "FRAMEBUFPIXFORMAT"]);
        assert!(!info(op::FRAMEBUFPTR).dirty.raster(!0) && info(op::FRAMEBUFWIDTH).dirty.raster(1));
        let vt = info(op::VERTEXTYPE).dirty;
        assert!(vt.raster(1 << 23) && !vt.raster(0x7F_FFFF));
        assert!(info(op::TEXADDR0 + 7).dirty.raster(1) && !info(op::VADDR).dirty.raster(!0));
    }

    #[test]
    fn clear_mode_fields() {
        let mut r = Regs::default();
        r.set(op::CLEARMODE, 0x700);
        assert_eq!(r.clear_mode(), None, "bit 0 off");
        r.set(op::CLEARMODE, 0x501);
        assert_eq!(r.clear_mode(), Some(ClearMode { color: true, stencil: false, depth: true }));
    }

    #[test]
    fn names_are_unique() {
        let mut names: Vec<_> = TABLE.iter().filter(|c| c.name != "UNKNOWN").map(|c| c.name).collect();
        names.sort_unstable();
        let n = names.len();
        names.dedup();
        assert_eq!(names.len(), n);
    }

    #[test]
    fn disassembles_a_hand_written_list() {
        let list = [
            word(op::VERTEXTYPE, 0x80011C),
            word(op::PRIM, (6 << 16) | 2),
            word(op::VIEWPORTXSCALE, 0x43F000),
            word(op::SCISSOR2, (271 << 10) | 479),
            word(op::ZTESTENABLE, 1),
            word(op::END, 0),
        ];
        let text = disassemble_list(0x0880_0000, &list);
        let expect = "\
08800000: 1280011c  VERTEXTYPE texcoord=0 color=7 normal=0 position=2 weight=0 index=0 weight_count=0 morph_count=0 through=1
08800004: 04060002  PRIM RECTANGLES count=2
08800008: 4243f000  VIEWPORTXSCALE 480.0
0880000c: d5043ddf  SCISSOR2 x=479 y=271
08800010: 23000001  ZTESTENABLE on
08800014: 0c000000  END data=0
";
        assert_eq!(text, expect);
    }
}
