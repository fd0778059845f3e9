//! A display-list assembler: builds GE command words plus the vertex, index, texture
//! and CLUT data they point at, lays both out in PSP RAM, and runs them.
//!
//! Used by the golden scenes, the demo and the scene builder. Data is placed after the
//! list in RAM, 16-byte aligned; relative addresses use BASE like the SDK does.

use crate::cmd::{op, word};
use crate::exec::{Ge, GeError, ListEnd};
use crate::regs::to_float24;

/// Where [`ListBuilder::run`] places the list.
pub const LIST_ADDR: u32 = 0x0880_0000;
/// Where the data blob starts.
pub const DATA_ADDR: u32 = 0x0890_0000;

/// A display list under construction.
#[derive(Debug, Clone, Default)]
pub struct ListBuilder {
    pub words: Vec<u32>,
    pub data: Vec<u8>,
    base_hi: Option<u32>,
}

impl ListBuilder {
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty builder with room for `words` command words and `data` bytes of data, for
    /// callers that know their sizes: the data of a model grows to hundreds of KiB, and
    /// growing it from nothing copies it again at each doubling.
    pub fn with_capacity(words: usize, data: usize) -> Self {
        ListBuilder { words: Vec::with_capacity(words), data: Vec::with_capacity(data), base_hi: None }
    }

    /// Append a raw command.
    pub fn cmd(&mut self, op: u8, arg: u32) -> &mut Self {
        self.words.push(word(op, arg));
        self
    }

    /// Append a command whose argument is a float24.
    pub fn cmd_f(&mut self, op: u8, v: f32) -> &mut Self {
        self.cmd(op, to_float24(v))
    }

    /// Add data (16-byte aligned) and return its absolute address.
    pub fn add_data(&mut self, bytes: &[u8]) -> u32 {
        while !self.data.len().is_multiple_of(16) {
            self.data.push(0);
        }
        let addr = DATA_ADDR + self.data.len() as u32;
        self.data.extend_from_slice(bytes);
        addr
    }

    fn set_base_for(&mut self, addr: u32) {
        let hi = addr & 0x0F00_0000;
        if self.base_hi != Some(hi) {
            self.cmd(op::BASE, hi >> 8);
            self.base_hi = Some(hi);
        }
    }

    /// VADDR pointing at new vertex data.
    pub fn vertices(&mut self, bytes: &[u8]) -> &mut Self {
        let a = self.add_data(bytes);
        self.set_base_for(a);
        self.cmd(op::VADDR, a & 0xFF_FFFF)
    }

    /// IADDR pointing at new index data.
    pub fn indices(&mut self, bytes: &[u8]) -> &mut Self {
        let a = self.add_data(bytes);
        self.set_base_for(a);
        self.cmd(op::IADDR, a & 0xFF_FFFF)
    }

    pub fn prim(&mut self, prim: u32, count: u32) -> &mut Self {
        self.cmd(op::PRIM, (prim << 16) | (count & 0xFFFF))
    }

    /// Upload a 4x3 matrix (12 floats, GE element order) with the NUMBER/DATA pair `num_op`.
    pub fn matrix(&mut self, num_op: u8, m: &[f32]) -> &mut Self {
        self.cmd(num_op, 0);
        for v in m {
            self.cmd_f(num_op + 1, *v);
        }
        self
    }

    /// Bone matrix slot `k` (0..8).
    pub fn bone(&mut self, k: u32, m: &[f32; 12]) -> &mut Self {
        self.cmd(op::BONEMATRIXNUMBER, k * 12);
        for v in m {
            self.cmd_f(op::BONEMATRIXDATA, *v);
        }
        self
    }

    /// Turn lighting on with light `n` (0..4) as a directional diffuse light from `dir`
    /// (world space, towards the light) in colour `diffuse` (0xBBGGRR).
    pub fn directional_light(&mut self, n: u8, dir: [f32; 3], diffuse: u32) -> &mut Self {
        let n = n & 3;
        self.cmd(op::LIGHTINGENABLE, 1).cmd(op::LIGHTENABLE0 + n, 1).cmd(op::LIGHTTYPE0 + n, 0);
        for (k, d) in dir.iter().enumerate() {
            self.cmd_f(op::LX0 + 3 * n + k as u8, *d);
        }
        self.cmd(op::LAC0 + 3 * n + 1, diffuse)
    }

    /// Level-0 texture from `bytes`, with buffer width `bufw` texels and size 2^w x 2^h.
    pub fn texture0(&mut self, bytes: &[u8], bufw: u32, log2w: u32, log2h: u32) -> &mut Self {
        let a = self.add_data(bytes);
        self.cmd(op::TEXADDR0, a & 0xFF_FFF0);
        self.cmd(op::TEXBUFWIDTH0, ((a >> 8) & 0x0F_0000) | bufw);
        self.cmd(op::TEXSIZE0, log2w | (log2h << 8))
    }

    /// Point CLUTADDR at new palette bytes and LOADCLUT them.
    pub fn clut(&mut self, bytes: &[u8]) -> &mut Self {
        let a = self.add_data(bytes);
        self.cmd(op::CLUTADDR, a & 0xFF_FFF0);
        self.cmd(op::CLUTADDRUPPER, (a >> 8) & 0x0F_0000);
        self.cmd(op::LOADCLUT, (bytes.len() as u32).div_ceil(32))
    }

    /// A 480x272 8888 framebuffer at VRAM 0 with depth at VRAM + 0x88000, full
    /// scissor/region, the SDK's usual viewport and offset.
    pub fn standard_setup(&mut self, fmt: u32) -> &mut Self {
        self.cmd(op::FRAMEBUFPTR, 0)
            .cmd(op::FRAMEBUFWIDTH, 512)
            .cmd(op::FRAMEBUFPIXFORMAT, fmt)
            .cmd(op::ZBUFPTR, 0x88000)
            .cmd(op::ZBUFWIDTH, 512)
            .cmd(op::SCISSOR1, 0)
            .cmd(op::SCISSOR2, (271 << 10) | 479)
            .cmd(op::REGION1, 0)
            .cmd(op::REGION2, (271 << 10) | 479)
            .cmd_f(op::VIEWPORTXSCALE, 240.0)
            .cmd_f(op::VIEWPORTYSCALE, -136.0)
            .cmd_f(op::VIEWPORTZSCALE, -32767.5)
            .cmd_f(op::VIEWPORTXCENTER, 2048.0)
            .cmd_f(op::VIEWPORTYCENTER, 2048.0)
            .cmd_f(op::VIEWPORTZCENTER, 32767.5)
            .cmd(op::OFFSETX, (2048 - 240) << 4)
            .cmd(op::OFFSETY, (2048 - 136) << 4)
            .cmd(op::MINZ, 0)
            .cmd(op::MAXZ, 0xFFFF)
            .cmd(op::SHADEMODE, 1)
    }

    /// Clear colour (and depth and stencil) with a through-mode sprite covering the screen.
    pub fn clear(&mut self, rgba: u32, depth: u16) -> &mut Self {
        let mut v = Vec::new();
        for (x, y) in [(0i16, 0i16), (480, 272)] {
            v.extend_from_slice(&rgba.to_le_bytes());
            v.extend_from_slice(&x.to_le_bytes());
            v.extend_from_slice(&y.to_le_bytes());
            v.extend_from_slice(&depth.to_le_bytes());
            v.extend_from_slice(&[0, 0]); // vertex size pads to the 4-byte colour alignment
        }
        self.cmd(op::CLEARMODE, 1 | (7 << 8))
            .cmd(op::VERTEXTYPE, (1 << 23) | (7 << 2) | (2 << 7))
            .vertices(&v)
            .prim(6, 2)
            .cmd(op::CLEARMODE, 0)
    }

    /// FINISH + END.
    pub fn finish(&mut self) -> &mut Self {
        self.cmd(op::FINISH, 0).cmd(op::END, 0)
    }

    /// Copy the list and its data into `ge`'s RAM and run it to FINISH.
    ///
    /// The words go straight into RAM (no byte copy of the list first). Data bytes RAM
    /// already holds are not written again: a viewer or sequence drawing the same model
    /// frame after frame changes only its commands (matrices), and comparing reads the
    /// data once where writing it read it and wrote RAM (posed p01ex00, g59dc00 benches).
    pub fn run(&self, ge: &mut Ge) -> Result<ListEnd, GeError> {
        let mem_err = |cause| GeError::Memory { pc: LIST_ADDR, cause };
        // Lengths past u32 fail as out of range below.
        let list_len = u32::try_from(self.words.len() * 4).unwrap_or(u32::MAX);
        let list = ge.mem.slice_mut(LIST_ADDR, list_len).map_err(mem_err)?;
        for (bytes, w) in list.chunks_exact_mut(4).zip(&self.words) {
            bytes.copy_from_slice(&w.to_le_bytes());
        }
        let data_len = u32::try_from(self.data.len()).unwrap_or(u32::MAX);
        // Pending tiles and a dump's arriving bytes are in place before the compare.
        ge.mem.settle_for(DATA_ADDR, data_len);
        if ge.mem.slice(DATA_ADDR, data_len) != Ok(self.data.as_slice()) {
            ge.mem.write(DATA_ADDR, &self.data).map_err(mem_err)?;
        }
        ge.run_list(LIST_ADDR, None)
    }
}

/// Little-endian byte writer for hand-encoded vertex data.
#[derive(Debug, Clone, Default)]
pub struct Bytes(pub Vec<u8>);

impl Bytes {
    pub fn u8(&mut self, v: u8) -> &mut Self {
        self.0.push(v);
        self
    }
    pub fn i8(&mut self, v: i8) -> &mut Self {
        self.0.push(v as u8);
        self
    }
    pub fn u16(&mut self, v: u16) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    pub fn i16(&mut self, v: i16) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    pub fn u32(&mut self, v: u32) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    pub fn f32(&mut self, v: f32) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    /// Pad with zeros to a multiple of `n`.
    pub fn align(&mut self, n: usize) -> &mut Self {
        while !self.0.len().is_multiple_of(n) {
            self.0.push(0);
        }
        self
    }
}
