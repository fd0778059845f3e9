//! Birth by Sleep PMP map containers: a list of placed objects, the PMO models they refer to
//! and the map's TIM2 textures.
//!
//! Layout: header 0x20 bytes ("PMP\0", 12 bytes kept raw, object count u16 at 0x10, u16,
//! u32, u16, texture count u16 at 0x1A, texture list offset u32 at 0x1C); objects of 0x30
//! bytes from 0x20 (position, rotation, scale as 3 f32 each, PMO offset u32 (0 = none),
//! u32, flags u16, id u16); each PMO at its offset (mesh/skeleton offsets relative to the
//! PMO, texture offsets absolute in the PMP); texture records of 0x20 bytes at the texture
//! list offset (TIM2 offset, name[12], 16 bytes), each pointing at a TIM2.

use thiserror::Error;

use crate::pmo::{name_str, Pmo, PmoError};
use crate::tim2::{le, Tim2, Tim2Error};

pub const MAGIC: &[u8; 4] = b"PMP\0";
pub const HEADER_SIZE: usize = 0x20;
pub const OBJECT_SIZE: usize = 0x30;
pub const TEXTURE_RECORD_SIZE: usize = 0x20;

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum PmpError {
    #[error("PMP truncated at offset {offset:#x}: {what} needs {need} bytes, {have} available")]
    Truncated {
        offset: usize,
        what: &'static str,
        need: usize,
        have: usize,
    },
    #[error("PMP bad magic at offset {offset:#x}: {found:02x?}")]
    BadMagic { offset: usize, found: [u8; 4] },
    #[error("PMP {what} at offset {offset:#x} is {value:#x}, out of range (file size {len:#x})")]
    OffsetOutOfRange {
        offset: usize,
        what: &'static str,
        value: u64,
        len: usize,
    },
    #[error("PMP {what} at offset {offset:#x} is not {align}-byte aligned")]
    Misaligned {
        offset: usize,
        what: &'static str,
        align: u32,
    },
    #[error("PMP object {object}: PMO at offset {base:#x}: {source} (PMO-relative offsets)")]
    Pmo {
        object: usize,
        base: usize,
        source: PmoError,
    },
    #[error("PMP texture {index}: {source}")]
    Tim2 { index: usize, source: Tim2Error },
}

#[derive(Debug, Clone, PartialEq)]
pub struct Object {
    pub position: [f32; 3],
    pub rotation: [f32; 3],
    pub scale: [f32; 3],
    /// File offset of the object's PMO, 0 = none.
    pub pmo_offset: u32,
    pub unknown: u32,
    pub flags: u16,
    pub id: u16,
    /// Index into [`Pmp::models`].
    pub model: Option<usize>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PmpTexture {
    pub tim2_offset: u32,
    pub name: [u8; 12],
    pub unknown: [u8; 16],
    pub tim2: Tim2,
}

impl PmpTexture {
    pub fn name(&self) -> String {
        name_str(&self.name)
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Pmp {
    pub header_raw: [u8; 12],
    pub objects: Vec<Object>,
    /// Distinct PMOs in file order, with their file offsets.
    pub models: Vec<(u32, Pmo)>,
    pub textures: Vec<PmpTexture>,
}

fn need(b: &[u8], off: usize, n: usize, what: &'static str) -> Result<(), PmpError> {
    if off.checked_add(n).is_some_and(|e| e <= b.len()) {
        Ok(())
    } else {
        Err(PmpError::Truncated {
            offset: off,
            what,
            need: n,
            have: b.len().saturating_sub(off),
        })
    }
}

impl Pmp {
    pub fn parse(b: &[u8]) -> Result<Pmp, PmpError> {
        need(b, 0, HEADER_SIZE, "PMP header")?;
        let magic = le::bytes::<4>(b, 0).unwrap();
        if &magic != MAGIC {
            return Err(PmpError::BadMagic {
                offset: 0,
                found: magic,
            });
        }
        let object_count = usize::from(le::u16(b, 0x10).unwrap());
        let texture_count = usize::from(le::u16(b, 0x1A).unwrap());
        let texture_list = le::u32(b, 0x1C).unwrap() as usize;
        need(b, HEADER_SIZE, object_count * OBJECT_SIZE, "object list")?;
        let mut objects = Vec::with_capacity(object_count);
        let mut offsets: Vec<u32> = Vec::new();
        for i in 0..object_count {
            let o = HEADER_SIZE + i * OBJECT_SIZE;
            let f = |k: usize| le::f32(b, o + 4 * k).unwrap();
            let pmo_offset = le::u32(b, o + 36).unwrap();
            if pmo_offset != 0 {
                if pmo_offset as usize >= b.len() {
                    return Err(PmpError::OffsetOutOfRange {
                        offset: o + 36,
                        what: "PMO offset",
                        value: pmo_offset.into(),
                        len: b.len(),
                    });
                }
                if pmo_offset % 4 != 0 {
                    return Err(PmpError::Misaligned {
                        offset: o + 36,
                        what: "PMO offset",
                        align: 4,
                    });
                }
                offsets.push(pmo_offset);
            }
            objects.push(Object {
                position: [f(0), f(1), f(2)],
                rotation: [f(3), f(4), f(5)],
                scale: [f(6), f(7), f(8)],
                pmo_offset,
                unknown: le::u32(b, o + 40).unwrap(),
                flags: le::u16(b, o + 44).unwrap(),
                id: le::u16(b, o + 46).unwrap(),
                model: None,
            });
        }
        offsets.sort_unstable();
        offsets.dedup();
        let mut models = Vec::with_capacity(offsets.len());
        for &off in &offsets {
            let object = objects.iter().position(|o| o.pmo_offset == off).unwrap();
            let pmo = Pmo::parse_embedded(&b[off as usize..]).map_err(|source| PmpError::Pmo {
                object,
                base: off as usize,
                source,
            })?;
            models.push((off, pmo));
        }
        for o in &mut objects {
            o.model = offsets
                .iter()
                .position(|&x| x == o.pmo_offset)
                .filter(|_| o.pmo_offset != 0);
        }
        if texture_count > 0 && texture_list >= b.len() {
            return Err(PmpError::OffsetOutOfRange {
                offset: 0x1C,
                what: "texture list offset",
                value: texture_list as u64,
                len: b.len(),
            });
        }
        need(b, texture_list, texture_count * TEXTURE_RECORD_SIZE, "texture list")?;
        let mut textures = Vec::with_capacity(texture_count);
        for index in 0..texture_count {
            let t = texture_list + index * TEXTURE_RECORD_SIZE;
            let tim2_offset = le::u32(b, t).unwrap();
            if tim2_offset as usize >= b.len() {
                return Err(PmpError::OffsetOutOfRange {
                    offset: t,
                    what: "TIM2 offset",
                    value: tim2_offset.into(),
                    len: b.len(),
                });
            }
            let (tim2, _) =
                Tim2::parse_at(b, tim2_offset as usize).map_err(|source| PmpError::Tim2 { index, source })?;
            textures.push(PmpTexture {
                tim2_offset,
                name: le::bytes::<12>(b, t + 4).unwrap(),
                unknown: le::bytes::<16>(b, t + 16).unwrap(),
                tim2,
            });
        }
        Ok(Pmp {
            header_raw: le::bytes::<12>(b, 4).unwrap(),
            objects,
            models,
            textures,
        })
    }
}
