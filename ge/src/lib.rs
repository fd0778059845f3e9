//! `ge`: a bit-exact software model of the Sony PSP's graphics engine.
//!
//! The crate knows nothing about games. It models PSP memory, the display-list
//! processor and every GE stage, and replays PPSSPP frame dumps. One module per stage,
//! named with GE vocabulary:
//!
//! | module | stage |
//! |---|---|
//! | [`mem`] | RAM, VRAM and mirrors |
//! | [`cmd`] | the command table (executor, disassembler, state dumps) |
//! | [`regs`] | the raw register file and matrix memories |
//! | [`exec`] | the display-list processor ([`Ge`]) |
//! | [`vertex`] | vertex decoding (every VTYPE field), indices, morphing |
//! | [`transform`] | skinning, world/view/projection, lighting, texgen, fog, viewport |
//! | [`clip`] | near-plane clipping, guard band, depth rejection, culling |
//! | [`draw`] | primitive assembly and the per-fragment composition of the stages |
//! | [`raster`] | coverage and attribute interpolation for every primitive type |
//! | [`bin`] | tile binning and parallel rasterization |
//! | [`texture`] | texture sampling (all formats, CLUT, swizzle, DXT, mipmaps, filters) and texture functions |
//! | [`pixel`] | the per-fragment pipeline and framebuffer formats |
//! | [`transfer`] | block transfers |
//! | [`dump`] | PPSSPP frame dumps (`.ppdmp`) and their replay |
//! | [`display`] | display capture and PPSSPP's screenshot comparison |

pub mod bin;
pub mod clip;
pub mod cmd;
pub mod display;
pub mod draw;
pub mod dump;
pub mod exec;
pub mod geom;
pub mod mem;
pub mod patch;
pub mod pixel;
pub mod raster;
pub mod regs;
pub mod texture;
pub mod tile;
pub mod transfer;
pub mod transform;
pub mod vertex;

pub use exec::{Ge, GeError};
pub use mem::Memory;
