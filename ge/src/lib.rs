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
//! | [`state`] | what commands write and draws read: registers, matrices, CLUT cache, internal pointers ([`state::GeState`]) |
//! | [`exec`] | the display-list processor ([`Ge`]) |
//! | [`vertex`] | vertex decoding (every VTYPE field), indices, morphing |
//! | [`transform`] | skinning, world/view/projection, lighting, texgen, fog, viewport |
//! | [`clip`] | near-plane clipping, guard band, depth rejection, culling |
//! | [`model`] | the two models ([`Model::Hardware`], [`Model::Ppsspp`]) and the per-draw rules they choose |
//! | [`draw`] | primitive assembly (PPSSPP `SubmitPrimitive` semantics), per-draw state, binning, per-quad shading, immediate vertices and curves |
//! | [`ppsspp`] | PPSSPP's renderer machinery (PPSSPP model only): bin queue and task strips, state optimizations, JIT/C++ sampler choice, x86 JIT logic ops, AMD `RSQRTPS` |
//! | [`patch`] | Bezier and spline tessellation |
//! | [`raster`] | coverage and attribute interpolation for every primitive type |
//! | [`bin`] | tile binning and parallel rasterization |
//! | [`texture`] | texture sampling (all formats, CLUT, swizzle, DXT, mipmaps, filters) and texture functions |
//! | [`pixel`] | the per-fragment pipeline and framebuffer formats |
//! | [`transfer`] | block transfers |
//! | [`dump`] | PPSSPP frame dumps (`.ppdmp`) and their replay |
//! | [`fuzzing`] | entry points of the fuzz targets and their seed encoders (harness budget, not a GE stage) |
//! | [`display`] | display capture and PPSSPP's screenshot comparison |
//! | [`list`] | a display-list assembler for tests, tools and scene builders |
//! | [`scenes`] | small hand-written GE scenes (the GE's golden images) |
//! | [`geom`], [`tile`] | data passed between stages; render bands |
//!
//! Exactness: two truths, one per [`Model`]. The hardware model follows real PSP hardware
//! (screenshots, read-back values), then PPSSPP's software renderer where hardware data
//! says nothing. The PPSSPP model reproduces PPSSPP's software renderer (whose output the
//! frame-test and synthetic references are): the same stages plus the renderer machinery
//! in [`ppsspp`] (worker task strips, state optimizations, JIT/C++ sampler differences,
//! AMD `RSQRTPS` results on the reference machine). Every quirk names its evidence.

pub mod bin;
pub mod clip;
pub mod cmd;
pub mod display;
pub mod draw;
pub mod dump;
pub mod exec;
pub mod fuzzing;
pub mod geom;
pub mod list;
pub mod mem;
pub mod model;
pub mod patch;
pub mod pixel;
pub mod ppsspp;
pub mod raster;
pub mod regs;
pub mod scenes;
pub mod state;
pub mod texture;
pub mod tile;
pub mod transfer;
pub mod transform;
pub mod vertex;

pub use exec::{Ge, GeError};
pub use mem::Memory;
pub use model::Model;
