//! The GE command table: one entry per command number (opcode, mnemonic, argument
//! format), shared by the executor, the disassembler and state dumps.
//!
//! Numbers and names follow ge-reference.md §1.2 (PPSSPP `GPU/ge_constants.h`,
//! `GPU/Debugger/GECommandTable.cpp`). Unknown numbers are NOPs on the hardware
//! (PPSSPP `Execute_Unknown`).

use crate::regs::{float24, Regs};

/// How a command's 24-bit argument is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgFormat {
    /// Argument ignored.
    None,
    /// A plain hexadecimal value.
    Hex,
    /// Bit 0 switches something on.
    Enable,
    /// A 24-bit address (relative to BASE/OFFSET where the command says so).
    Addr,
    /// float24: `arg << 8` reinterpreted as f32.
    Float,
    /// An RGB colour, R in bits 0–7.
    Rgb,
    /// PRIM: count in bits 0–15, type in 16–18.
    Prim,
    /// A 16-bit count or value in bits 0–15.
    Count,
    /// A 12.4 fixed-point screen coordinate in bits 0–15.
    Fixed4,
    /// x in bits 0–9, y in bits 10–19.
    Xy,
    /// Matrix element index.
    MatrixIndex,
}

/// What a change of a command's argument invalidates besides the register itself. Every
/// change invalidates the per-draw state snapshot (`Draw`); the other groups add to that.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DirtyGroup {
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
            DirtyGroup::RasterThroughBit => diff & (1 << 23) != 0,
            DirtyGroup::Draw | DirtyGroup::Target => false,
        }
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

/// Command numbers (ge-reference.md §1.2).
pub mod op {
    pub const NOP: u8 = 0x00;
    pub const VADDR: u8 = 0x01;
    pub const IADDR: u8 = 0x02;
    pub const PRIM: u8 = 0x04;
    pub const BEZIER: u8 = 0x05;
    pub const SPLINE: u8 = 0x06;
    pub const BOUNDINGBOX: u8 = 0x07;
    pub const JUMP: u8 = 0x08;
    pub const BJUMP: u8 = 0x09;
    pub const CALL: u8 = 0x0A;
    pub const RET: u8 = 0x0B;
    pub const END: u8 = 0x0C;
    pub const SIGNAL: u8 = 0x0E;
    pub const FINISH: u8 = 0x0F;
    pub const BASE: u8 = 0x10;
    pub const VERTEXTYPE: u8 = 0x12;
    pub const OFFSETADDR: u8 = 0x13;
    pub const ORIGIN: u8 = 0x14;
    pub const REGION1: u8 = 0x15;
    pub const REGION2: u8 = 0x16;
    pub const LIGHTINGENABLE: u8 = 0x17;
    pub const LIGHTENABLE0: u8 = 0x18;
    pub const DEPTHCLAMPENABLE: u8 = 0x1C;
    pub const CULLFACEENABLE: u8 = 0x1D;
    pub const TEXTUREMAPENABLE: u8 = 0x1E;
    pub const FOGENABLE: u8 = 0x1F;
    pub const DITHERENABLE: u8 = 0x20;
    pub const ALPHABLENDENABLE: u8 = 0x21;
    pub const ALPHATESTENABLE: u8 = 0x22;
    pub const ZTESTENABLE: u8 = 0x23;
    pub const STENCILTESTENABLE: u8 = 0x24;
    pub const ANTIALIASENABLE: u8 = 0x25;
    pub const PATCHCULLENABLE: u8 = 0x26;
    pub const COLORTESTENABLE: u8 = 0x27;
    pub const LOGICOPENABLE: u8 = 0x28;
    pub const BONEMATRIXNUMBER: u8 = 0x2A;
    pub const BONEMATRIXDATA: u8 = 0x2B;
    pub const MORPHWEIGHT0: u8 = 0x2C;
    pub const PATCHDIVISION: u8 = 0x36;
    pub const PATCHPRIMITIVE: u8 = 0x37;
    pub const PATCHFACING: u8 = 0x38;
    pub const WORLDMATRIXNUMBER: u8 = 0x3A;
    pub const WORLDMATRIXDATA: u8 = 0x3B;
    pub const VIEWMATRIXNUMBER: u8 = 0x3C;
    pub const VIEWMATRIXDATA: u8 = 0x3D;
    pub const PROJMATRIXNUMBER: u8 = 0x3E;
    pub const PROJMATRIXDATA: u8 = 0x3F;
    pub const TGENMATRIXNUMBER: u8 = 0x40;
    pub const TGENMATRIXDATA: u8 = 0x41;
    pub const VIEWPORTXSCALE: u8 = 0x42;
    pub const VIEWPORTYSCALE: u8 = 0x43;
    pub const VIEWPORTZSCALE: u8 = 0x44;
    pub const VIEWPORTXCENTER: u8 = 0x45;
    pub const VIEWPORTYCENTER: u8 = 0x46;
    pub const VIEWPORTZCENTER: u8 = 0x47;
    pub const TEXSCALEU: u8 = 0x48;
    pub const TEXSCALEV: u8 = 0x49;
    pub const TEXOFFSETU: u8 = 0x4A;
    pub const TEXOFFSETV: u8 = 0x4B;
    pub const OFFSETX: u8 = 0x4C;
    pub const OFFSETY: u8 = 0x4D;
    pub const SHADEMODE: u8 = 0x50;
    pub const REVERSENORMAL: u8 = 0x51;
    pub const MATERIALUPDATE: u8 = 0x53;
    pub const MATERIALEMISSIVE: u8 = 0x54;
    pub const MATERIALAMBIENT: u8 = 0x55;
    pub const MATERIALDIFFUSE: u8 = 0x56;
    pub const MATERIALSPECULAR: u8 = 0x57;
    pub const MATERIALALPHA: u8 = 0x58;
    pub const MATERIALSPECULARCOEF: u8 = 0x5B;
    pub const AMBIENTCOLOR: u8 = 0x5C;
    pub const AMBIENTALPHA: u8 = 0x5D;
    pub const LIGHTMODE: u8 = 0x5E;
    pub const LIGHTTYPE0: u8 = 0x5F;
    pub const LX0: u8 = 0x63;
    pub const LDX0: u8 = 0x6F;
    pub const LKA0: u8 = 0x7B;
    pub const LKS0: u8 = 0x87;
    pub const LKO0: u8 = 0x8B;
    pub const LAC0: u8 = 0x8F;
    pub const CULL: u8 = 0x9B;
    pub const FRAMEBUFPTR: u8 = 0x9C;
    pub const FRAMEBUFWIDTH: u8 = 0x9D;
    pub const ZBUFPTR: u8 = 0x9E;
    pub const ZBUFWIDTH: u8 = 0x9F;
    pub const TEXADDR0: u8 = 0xA0;
    pub const TEXBUFWIDTH0: u8 = 0xA8;
    pub const CLUTADDR: u8 = 0xB0;
    pub const CLUTADDRUPPER: u8 = 0xB1;
    pub const TRANSFERSRC: u8 = 0xB2;
    pub const TRANSFERSRCW: u8 = 0xB3;
    pub const TRANSFERDST: u8 = 0xB4;
    pub const TRANSFERDSTW: u8 = 0xB5;
    pub const TEXSIZE0: u8 = 0xB8;
    pub const TEXMAPMODE: u8 = 0xC0;
    pub const TEXSHADELS: u8 = 0xC1;
    pub const TEXMODE: u8 = 0xC2;
    pub const TEXFORMAT: u8 = 0xC3;
    pub const LOADCLUT: u8 = 0xC4;
    pub const CLUTFORMAT: u8 = 0xC5;
    pub const TEXFILTER: u8 = 0xC6;
    pub const TEXWRAP: u8 = 0xC7;
    pub const TEXLEVEL: u8 = 0xC8;
    pub const TEXFUNC: u8 = 0xC9;
    pub const TEXENVCOLOR: u8 = 0xCA;
    pub const TEXFLUSH: u8 = 0xCB;
    pub const TEXSYNC: u8 = 0xCC;
    pub const FOG1: u8 = 0xCD;
    pub const FOG2: u8 = 0xCE;
    pub const FOGCOLOR: u8 = 0xCF;
    pub const TEXLODSLOPE: u8 = 0xD0;
    pub const FRAMEBUFPIXFORMAT: u8 = 0xD2;
    pub const CLEARMODE: u8 = 0xD3;
    pub const SCISSOR1: u8 = 0xD4;
    pub const SCISSOR2: u8 = 0xD5;
    pub const MINZ: u8 = 0xD6;
    pub const MAXZ: u8 = 0xD7;
    pub const COLORTEST: u8 = 0xD8;
    pub const COLORREF: u8 = 0xD9;
    pub const COLORTESTMASK: u8 = 0xDA;
    pub const ALPHATEST: u8 = 0xDB;
    pub const STENCILTEST: u8 = 0xDC;
    pub const STENCILOP: u8 = 0xDD;
    pub const ZTEST: u8 = 0xDE;
    pub const BLENDMODE: u8 = 0xDF;
    pub const BLENDFIXEDA: u8 = 0xE0;
    pub const BLENDFIXEDB: u8 = 0xE1;
    pub const DITH0: u8 = 0xE2;
    pub const LOGICOP: u8 = 0xE6;
    pub const ZWRITEDISABLE: u8 = 0xE7;
    pub const MASKRGB: u8 = 0xE8;
    pub const MASKALPHA: u8 = 0xE9;
    pub const TRANSFERSTART: u8 = 0xEA;
    pub const TRANSFERSRCPOS: u8 = 0xEB;
    pub const TRANSFERDSTPOS: u8 = 0xEC;
    pub const TRANSFERSIZE: u8 = 0xEE;
    pub const VSCX: u8 = 0xF0;
    pub const VSCY: u8 = 0xF1;
    pub const VSCZ: u8 = 0xF2;
    pub const VTCS: u8 = 0xF3;
    pub const VTCT: u8 = 0xF4;
    pub const VTCQ: u8 = 0xF5;
    pub const VCV: u8 = 0xF6;
    pub const VAP: u8 = 0xF7;
    pub const VFC: u8 = 0xF8;
    pub const VSCV: u8 = 0xF9;
}

use ArgFormat as F;
use DirtyGroup as D;

/// (opcode, mnemonic, argument format, dirty group), one row per command; expanded into
/// [`TABLE`] at compile time (unlisted numbers are UNKNOWN: a NOP).
const NAMED: &[(u8, &str, ArgFormat, DirtyGroup)] = &[
    (0x00, "NOP", F::None, D::Draw),
    (0x01, "VADDR", F::Addr, D::Draw),
    (0x02, "IADDR", F::Addr, D::Draw),
    (0x04, "PRIM", F::Prim, D::Draw),
    (0x05, "BEZIER", F::Hex, D::Draw),
    (0x06, "SPLINE", F::Hex, D::Draw),
    (0x07, "BOUNDINGBOX", F::Count, D::Draw),
    (0x08, "JUMP", F::Addr, D::Draw),
    (0x09, "BJUMP", F::Addr, D::Draw),
    (0x0A, "CALL", F::Addr, D::Draw),
    (0x0B, "RET", F::None, D::Draw),
    (0x0C, "END", F::Hex, D::Draw),
    (0x0E, "SIGNAL", F::Hex, D::Draw),
    (0x0F, "FINISH", F::Hex, D::Draw),
    (0x10, "BASE", F::Hex, D::Draw),
    (0x12, "VERTEXTYPE", F::Hex, D::RasterThroughBit),
    (0x13, "OFFSETADDR", F::Hex, D::Draw),
    (0x14, "ORIGIN", F::None, D::Draw),
    (0x15, "REGION1", F::Xy, D::Draw),
    (0x16, "REGION2", F::Xy, D::Draw),
    (0x17, "LIGHTINGENABLE", F::Enable, D::Draw),
    (0x18, "LIGHTENABLE0", F::Enable, D::Draw),
    (0x19, "LIGHTENABLE1", F::Enable, D::Draw),
    (0x1A, "LIGHTENABLE2", F::Enable, D::Draw),
    (0x1B, "LIGHTENABLE3", F::Enable, D::Draw),
    (0x1C, "DEPTHCLAMPENABLE", F::Enable, D::Draw),
    (0x1D, "CULLFACEENABLE", F::Enable, D::Draw),
    (0x1E, "TEXTUREMAPENABLE", F::Enable, D::Raster),
    (0x1F, "FOGENABLE", F::Enable, D::Raster),
    (0x20, "DITHERENABLE", F::Enable, D::Raster),
    (0x21, "ALPHABLENDENABLE", F::Enable, D::Raster),
    (0x22, "ALPHATESTENABLE", F::Enable, D::Raster),
    (0x23, "ZTESTENABLE", F::Enable, D::Raster),
    (0x24, "STENCILTESTENABLE", F::Enable, D::Raster),
    (0x25, "ANTIALIASENABLE", F::Enable, D::Raster),
    (0x26, "PATCHCULLENABLE", F::Enable, D::Draw),
    (0x27, "COLORTESTENABLE", F::Enable, D::Raster),
    (0x28, "LOGICOPENABLE", F::Enable, D::Raster),
    (0x2A, "BONEMATRIXNUMBER", F::MatrixIndex, D::Draw),
    (0x2B, "BONEMATRIXDATA", F::Float, D::Draw),
    (0x2C, "MORPHWEIGHT0", F::Float, D::Draw),
    (0x2D, "MORPHWEIGHT1", F::Float, D::Draw),
    (0x2E, "MORPHWEIGHT2", F::Float, D::Draw),
    (0x2F, "MORPHWEIGHT3", F::Float, D::Draw),
    (0x30, "MORPHWEIGHT4", F::Float, D::Draw),
    (0x31, "MORPHWEIGHT5", F::Float, D::Draw),
    (0x32, "MORPHWEIGHT6", F::Float, D::Draw),
    (0x33, "MORPHWEIGHT7", F::Float, D::Draw),
    (0x36, "PATCHDIVISION", F::Hex, D::Draw),
    (0x37, "PATCHPRIMITIVE", F::Hex, D::Draw),
    (0x38, "PATCHFACING", F::Enable, D::Draw),
    (0x3A, "WORLDMATRIXNUMBER", F::MatrixIndex, D::Draw),
    (0x3B, "WORLDMATRIXDATA", F::Float, D::Draw),
    (0x3C, "VIEWMATRIXNUMBER", F::MatrixIndex, D::Draw),
    (0x3D, "VIEWMATRIXDATA", F::Float, D::Draw),
    (0x3E, "PROJMATRIXNUMBER", F::MatrixIndex, D::Draw),
    (0x3F, "PROJMATRIXDATA", F::Float, D::Draw),
    (0x40, "TGENMATRIXNUMBER", F::MatrixIndex, D::Draw),
    (0x41, "TGENMATRIXDATA", F::Float, D::Draw),
    (0x42, "VIEWPORTXSCALE", F::Float, D::Draw),
    (0x43, "VIEWPORTYSCALE", F::Float, D::Draw),
    (0x44, "VIEWPORTZSCALE", F::Float, D::Draw),
    (0x45, "VIEWPORTXCENTER", F::Float, D::Draw),
    (0x46, "VIEWPORTYCENTER", F::Float, D::Draw),
    (0x47, "VIEWPORTZCENTER", F::Float, D::Draw),
    (0x48, "TEXSCALEU", F::Float, D::Draw),
    (0x49, "TEXSCALEV", F::Float, D::Draw),
    (0x4A, "TEXOFFSETU", F::Float, D::Draw),
    (0x4B, "TEXOFFSETV", F::Float, D::Draw),
    (0x4C, "OFFSETX", F::Fixed4, D::Raster),
    (0x4D, "OFFSETY", F::Fixed4, D::Raster),
    (0x50, "SHADEMODE", F::Hex, D::Raster),
    (0x51, "REVERSENORMAL", F::Enable, D::Draw),
    (0x53, "MATERIALUPDATE", F::Hex, D::Draw),
    (0x54, "MATERIALEMISSIVE", F::Rgb, D::Draw),
    (0x55, "MATERIALAMBIENT", F::Rgb, D::Draw),
    (0x56, "MATERIALDIFFUSE", F::Rgb, D::Draw),
    (0x57, "MATERIALSPECULAR", F::Rgb, D::Draw),
    (0x58, "MATERIALALPHA", F::Hex, D::Draw),
    (0x5B, "MATERIALSPECULARCOEF", F::Float, D::Draw),
    (0x5C, "AMBIENTCOLOR", F::Rgb, D::Draw),
    (0x5D, "AMBIENTALPHA", F::Hex, D::Draw),
    (0x5E, "LIGHTMODE", F::Hex, D::Draw),
    (0x5F, "LIGHTTYPE0", F::Hex, D::Draw),
    (0x60, "LIGHTTYPE1", F::Hex, D::Draw),
    (0x61, "LIGHTTYPE2", F::Hex, D::Draw),
    (0x62, "LIGHTTYPE3", F::Hex, D::Draw),
    (0x63, "LX0", F::Float, D::Draw),
    (0x64, "LY0", F::Float, D::Draw),
    (0x65, "LZ0", F::Float, D::Draw),
    (0x66, "LX1", F::Float, D::Draw),
    (0x67, "LY1", F::Float, D::Draw),
    (0x68, "LZ1", F::Float, D::Draw),
    (0x69, "LX2", F::Float, D::Draw),
    (0x6A, "LY2", F::Float, D::Draw),
    (0x6B, "LZ2", F::Float, D::Draw),
    (0x6C, "LX3", F::Float, D::Draw),
    (0x6D, "LY3", F::Float, D::Draw),
    (0x6E, "LZ3", F::Float, D::Draw),
    (0x6F, "LDX0", F::Float, D::Draw),
    (0x70, "LDY0", F::Float, D::Draw),
    (0x71, "LDZ0", F::Float, D::Draw),
    (0x72, "LDX1", F::Float, D::Draw),
    (0x73, "LDY1", F::Float, D::Draw),
    (0x74, "LDZ1", F::Float, D::Draw),
    (0x75, "LDX2", F::Float, D::Draw),
    (0x76, "LDY2", F::Float, D::Draw),
    (0x77, "LDZ2", F::Float, D::Draw),
    (0x78, "LDX3", F::Float, D::Draw),
    (0x79, "LDY3", F::Float, D::Draw),
    (0x7A, "LDZ3", F::Float, D::Draw),
    (0x7B, "LKA0", F::Float, D::Draw),
    (0x7C, "LKB0", F::Float, D::Draw),
    (0x7D, "LKC0", F::Float, D::Draw),
    (0x7E, "LKA1", F::Float, D::Draw),
    (0x7F, "LKB1", F::Float, D::Draw),
    (0x80, "LKC1", F::Float, D::Draw),
    (0x81, "LKA2", F::Float, D::Draw),
    (0x82, "LKB2", F::Float, D::Draw),
    (0x83, "LKC2", F::Float, D::Draw),
    (0x84, "LKA3", F::Float, D::Draw),
    (0x85, "LKB3", F::Float, D::Draw),
    (0x86, "LKC3", F::Float, D::Draw),
    (0x87, "LKS0", F::Float, D::Draw),
    (0x88, "LKS1", F::Float, D::Draw),
    (0x89, "LKS2", F::Float, D::Draw),
    (0x8A, "LKS3", F::Float, D::Draw),
    (0x8B, "LKO0", F::Float, D::Draw),
    (0x8C, "LKO1", F::Float, D::Draw),
    (0x8D, "LKO2", F::Float, D::Draw),
    (0x8E, "LKO3", F::Float, D::Draw),
    (0x8F, "LAC0", F::Rgb, D::Draw),
    (0x90, "LDC0", F::Rgb, D::Draw),
    (0x91, "LSC0", F::Rgb, D::Draw),
    (0x92, "LAC1", F::Rgb, D::Draw),
    (0x93, "LDC1", F::Rgb, D::Draw),
    (0x94, "LSC1", F::Rgb, D::Draw),
    (0x95, "LAC2", F::Rgb, D::Draw),
    (0x96, "LDC2", F::Rgb, D::Draw),
    (0x97, "LSC2", F::Rgb, D::Draw),
    (0x98, "LAC3", F::Rgb, D::Draw),
    (0x99, "LDC3", F::Rgb, D::Draw),
    (0x9A, "LSC3", F::Rgb, D::Draw),
    (0x9B, "CULL", F::Hex, D::Draw),
    (0x9C, "FRAMEBUFPTR", F::Hex, D::Target),
    (0x9D, "FRAMEBUFWIDTH", F::Hex, D::TargetRaster),
    (0x9E, "ZBUFPTR", F::Hex, D::Target),
    (0x9F, "ZBUFWIDTH", F::Hex, D::TargetRaster),
    (0xA0, "TEXADDR0", F::Hex, D::Raster),
    (0xA1, "TEXADDR1", F::Hex, D::Raster),
    (0xA2, "TEXADDR2", F::Hex, D::Raster),
    (0xA3, "TEXADDR3", F::Hex, D::Raster),
    (0xA4, "TEXADDR4", F::Hex, D::Raster),
    (0xA5, "TEXADDR5", F::Hex, D::Raster),
    (0xA6, "TEXADDR6", F::Hex, D::Raster),
    (0xA7, "TEXADDR7", F::Hex, D::Raster),
    (0xA8, "TEXBUFWIDTH0", F::Hex, D::Raster),
    (0xA9, "TEXBUFWIDTH1", F::Hex, D::Raster),
    (0xAA, "TEXBUFWIDTH2", F::Hex, D::Raster),
    (0xAB, "TEXBUFWIDTH3", F::Hex, D::Raster),
    (0xAC, "TEXBUFWIDTH4", F::Hex, D::Raster),
    (0xAD, "TEXBUFWIDTH5", F::Hex, D::Raster),
    (0xAE, "TEXBUFWIDTH6", F::Hex, D::Raster),
    (0xAF, "TEXBUFWIDTH7", F::Hex, D::Raster),
    (0xB0, "CLUTADDR", F::Hex, D::Draw),
    (0xB1, "CLUTADDRUPPER", F::Hex, D::Draw),
    (0xB2, "TRANSFERSRC", F::Hex, D::Draw),
    (0xB3, "TRANSFERSRCW", F::Hex, D::Draw),
    (0xB4, "TRANSFERDST", F::Hex, D::Draw),
    (0xB5, "TRANSFERDSTW", F::Hex, D::Draw),
    (0xB8, "TEXSIZE0", F::Hex, D::Raster),
    (0xB9, "TEXSIZE1", F::Hex, D::Raster),
    (0xBA, "TEXSIZE2", F::Hex, D::Raster),
    (0xBB, "TEXSIZE3", F::Hex, D::Raster),
    (0xBC, "TEXSIZE4", F::Hex, D::Raster),
    (0xBD, "TEXSIZE5", F::Hex, D::Raster),
    (0xBE, "TEXSIZE6", F::Hex, D::Raster),
    (0xBF, "TEXSIZE7", F::Hex, D::Raster),
    (0xC0, "TEXMAPMODE", F::Hex, D::Raster),
    (0xC1, "TEXSHADELS", F::Hex, D::Draw),
    (0xC2, "TEXMODE", F::Hex, D::Raster),
    (0xC3, "TEXFORMAT", F::Hex, D::Raster),
    (0xC4, "LOADCLUT", F::Hex, D::Draw),
    (0xC5, "CLUTFORMAT", F::Hex, D::Raster),
    (0xC6, "TEXFILTER", F::Hex, D::Raster),
    (0xC7, "TEXWRAP", F::Hex, D::Raster),
    (0xC8, "TEXLEVEL", F::Hex, D::Raster),
    (0xC9, "TEXFUNC", F::Hex, D::Raster),
    (0xCA, "TEXENVCOLOR", F::Rgb, D::Raster),
    (0xCB, "TEXFLUSH", F::None, D::Draw),
    (0xCC, "TEXSYNC", F::None, D::Draw),
    (0xCD, "FOG1", F::Float, D::Draw),
    (0xCE, "FOG2", F::Float, D::Draw),
    (0xCF, "FOGCOLOR", F::Rgb, D::Raster),
    (0xD0, "TEXLODSLOPE", F::Float, D::Raster),
    (0xD2, "FRAMEBUFPIXFORMAT", F::Hex, D::TargetRaster),
    (0xD3, "CLEARMODE", F::Hex, D::Raster),
    (0xD4, "SCISSOR1", F::Xy, D::Draw),
    (0xD5, "SCISSOR2", F::Xy, D::Draw),
    (0xD6, "MINZ", F::Count, D::Raster),
    (0xD7, "MAXZ", F::Count, D::Raster),
    (0xD8, "COLORTEST", F::Hex, D::Raster),
    (0xD9, "COLORREF", F::Rgb, D::Raster),
    (0xDA, "COLORTESTMASK", F::Rgb, D::Raster),
    (0xDB, "ALPHATEST", F::Hex, D::Raster),
    (0xDC, "STENCILTEST", F::Hex, D::Raster),
    (0xDD, "STENCILOP", F::Hex, D::Raster),
    (0xDE, "ZTEST", F::Hex, D::Raster),
    (0xDF, "BLENDMODE", F::Hex, D::Raster),
    (0xE0, "BLENDFIXEDA", F::Rgb, D::Raster),
    (0xE1, "BLENDFIXEDB", F::Rgb, D::Raster),
    (0xE2, "DITH0", F::Hex, D::Raster),
    (0xE3, "DITH1", F::Hex, D::Raster),
    (0xE4, "DITH2", F::Hex, D::Raster),
    (0xE5, "DITH3", F::Hex, D::Raster),
    (0xE6, "LOGICOP", F::Hex, D::Raster),
    (0xE7, "ZWRITEDISABLE", F::Enable, D::Raster),
    (0xE8, "MASKRGB", F::Rgb, D::Raster),
    (0xE9, "MASKALPHA", F::Hex, D::Raster),
    (0xEA, "TRANSFERSTART", F::Hex, D::Draw),
    (0xEB, "TRANSFERSRCPOS", F::Xy, D::Draw),
    (0xEC, "TRANSFERDSTPOS", F::Xy, D::Draw),
    (0xEE, "TRANSFERSIZE", F::Xy, D::Draw),
    (0xF0, "VSCX", F::Hex, D::Draw),
    (0xF1, "VSCY", F::Hex, D::Draw),
    (0xF2, "VSCZ", F::Hex, D::Draw),
    (0xF3, "VTCS", F::Float, D::Draw),
    (0xF4, "VTCT", F::Float, D::Draw),
    (0xF5, "VTCQ", F::Float, D::Draw),
    (0xF6, "VCV", F::Rgb, D::Draw),
    (0xF7, "VAP", F::Hex, D::Draw),
    (0xF8, "VFC", F::Hex, D::Draw),
    (0xF9, "VSCV", F::Rgb, D::Draw),
    (0xFF, "NOP_FF", F::None, D::Draw),
];

const fn build_table() -> [CmdInfo; 256] {
    let mut t = [CmdInfo { op: 0, name: "UNKNOWN", fmt: F::Hex, dirty: D::Draw }; 256];
    let mut i = 0;
    while i < 256 {
        t[i].op = i as u8;
        i += 1;
    }
    let mut k = 0;
    while k < NAMED.len() {
        let (op, name, fmt, dirty) = NAMED[k];
        t[op as usize] = CmdInfo { op, name, fmt, dirty };
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

const PRIM_NAMES: [&str; 8] =
    ["POINTS", "LINES", "LINE_STRIP", "TRIANGLES", "TRIANGLE_STRIP", "TRIANGLE_FAN", "RECTANGLES", "CONTINUE"];

/// Render the argument of `op` for humans, following the table's format.
pub fn format_arg(op: u8, arg: u32) -> String {
    match info(op).fmt {
        F::None => String::new(),
        F::Hex | F::Addr => format!("0x{arg:06x}"),
        F::Enable => (if arg & 1 != 0 { "on" } else { "off" }).to_string(),
        F::Float => {
            let f = float24(arg);
            format!("{f:?}")
        }
        F::Rgb => format!("r={} g={} b={}", arg & 0xFF, (arg >> 8) & 0xFF, (arg >> 16) & 0xFF),
        F::Prim => format!("{} count={}", PRIM_NAMES[((arg >> 16) & 7) as usize], arg & 0xFFFF),
        F::Count => format!("{}", arg & 0xFFFF),
        F::Fixed4 => format!("{}", (arg & 0xFFFF) as f32 / 16.0),
        F::Xy => format!("x={} y={}", arg & 0x3FF, (arg >> 10) & 0x3FF),
        F::MatrixIndex => format!("{}", arg & 0x7F),
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
        let a = self.arg(op::CLEARMODE);
        (a & 1 != 0).then_some(ClearMode { color: a & 0x100 != 0, stencil: a & 0x200 != 0, depth: a & 0x400 != 0 })
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
08800000: 1280011c  VERTEXTYPE 0x80011c
08800004: 04060002  PRIM RECTANGLES count=2
08800008: 4243f000  VIEWPORTXSCALE 480.0
0880000c: d5043ddf  SCISSOR2 x=479 y=271
08800010: 23000001  ZTESTENABLE on
08800014: 0c000000  END 0x000000
";
        assert_eq!(text, expect);
    }
}
