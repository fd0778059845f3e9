//! Birth by Sleep PMP map containers: a list of placed objects, the PMO models they refer to
//! and the map's TIM2 textures.
//!
//! Layout: header 0x20 bytes ("PMP\0", 12 bytes kept raw, object count u16 at 0x10, u16,
//! u32, u16, texture count u16 at 0x1A, texture list offset u32 at 0x1C); objects of 0x30
//! bytes from 0x20 (position, rotation, scale as 3 f32 each, PMO offset u32 (0 = none),
//! u32, flags u16, id u16); each PMO at its offset (mesh/skeleton offsets relative to the
//! PMO, texture offsets absolute in the PMP); texture records of 0x20 bytes at the texture
//! list offset (TIM2 offset, `name[12]`, 16 bytes), each pointing at a TIM2.

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
    Truncated { offset: usize, what: &'static str, need: usize, have: usize },
    #[error("PMP bad magic at offset {offset:#x}: {} (expected \"PMP\\0\")", crate::output::magic_text(found))]
    BadMagic { offset: usize, found: [u8; 4] },
    #[error("PMP {what} at offset {offset:#x} is {value:#x}, out of range (file size {len:#x})")]
    OffsetOutOfRange { offset: usize, what: &'static str, value: u64, len: usize },
    #[error("PMP {what} at offset {offset:#x} is not {align}-byte aligned")]
    Misaligned { offset: usize, what: &'static str, align: u32 },
    #[error("PMP object {object}: PMO at offset {base:#x}: {cause} (PMO-relative offsets)")]
    Pmo { object: usize, base: usize, cause: PmoError },
    #[error("PMP texture {index}: {cause}")]
    Tim2 { index: usize, cause: Tim2Error },
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
        Err(PmpError::Truncated { offset: off, what, need: n, have: b.len().saturating_sub(off) })
    }
}

impl Pmp {
    pub fn parse(b: &[u8]) -> Result<Pmp, PmpError> {
        need(b, 0, HEADER_SIZE, "PMP header")?;
        let magic = le::bytes::<4>(b, 0).unwrap();
        if &magic != MAGIC {
            return Err(PmpError::BadMagic { offset: 0, found: magic });
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
                if !pmo_offset.is_multiple_of(4) {
                    return Err(PmpError::Misaligned { offset: o + 36, what: "PMO offset", align: 4 });
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
            let pmo = Pmo::parse_embedded(&b[off as usize..]).map_err(|cause| PmpError::Pmo {
                object,
                base: off as usize,
                cause,
            })?;
            models.push((off, pmo));
        }
        for o in &mut objects {
            o.model = offsets.iter().position(|&x| x == o.pmo_offset).filter(|_| o.pmo_offset != 0);
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
            let (tim2, _) = Tim2::parse_at(b, tim2_offset as usize).map_err(|cause| PmpError::Tim2 { index, cause })?;
            textures.push(PmpTexture {
                tim2_offset,
                name: le::bytes::<12>(b, t + 4).unwrap(),
                unknown: le::bytes::<16>(b, t + 16).unwrap(),
                tim2,
            });
        }
        Ok(Pmp { header_raw: le::bytes::<12>(b, 4).unwrap(), objects, models, textures })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pmo::{Header, Section, TextureInfo};

    fn pmo() -> Vec<u8> {
        let vt = 2 | 3 << 7; // u16 uv, float position
        let mut m = Pmo {
            header: Header { flag: 0xA000, bounding_box: [[0.0; 4]; 8], ..Header::new(1.0) },
            textures: vec![TextureInfo::new("maptex", None)],
            meshes: [
                vec![],
                vec![Section {
                    texture_id: 0,
                    vertex_size: 16,
                    vertex_flags: vt | crate::pmo::FLAG_UNIFORM_DIFFUSE | 3 << 28,
                    group: 0,
                    attribute: 0,
                    joints: None,
                    diffuse: Some(0xFF80_8080),
                    strips: vec![],
                    vertices: vec![0; 48],
                }],
            ],
            skeleton: None,
            file_size: 0,
        };
        m.pack();
        m.to_bytes().unwrap()
    }

    /// A PMP with 2 objects (the second without a PMO), one PMO and one texture.
    fn pmp() -> (Vec<u8>, usize, usize) {
        let tim = crate::tim2::clut4_test_file(4, 4, vec![0x10; 8], vec![0xFF; 64]);
        let pmo = pmo();
        let pmo_at = HEADER_SIZE + 2 * OBJECT_SIZE;
        let list = (pmo_at + pmo.len()).next_multiple_of(16);
        let tim_at = list + TEXTURE_RECORD_SIZE;
        let mut b = vec![0u8; tim_at + tim.len()];
        b[0..4].copy_from_slice(MAGIC);
        b[0x10] = 2;
        b[0x1A] = 1;
        b[0x1C..0x20].copy_from_slice(&(list as u32).to_le_bytes());
        for (i, v) in [1.0f32, 2.0, 3.0, 0.0, 1.5, 0.0, 1.0, 1.0, 2.0].iter().enumerate() {
            b[0x20 + 4 * i..0x24 + 4 * i].copy_from_slice(&v.to_le_bytes());
        }
        b[0x20 + 36..0x20 + 40].copy_from_slice(&(pmo_at as u32).to_le_bytes());
        b[0x20 + 44] = 1;
        b[0x50 + 46] = 7;
        b[pmo_at..pmo_at + pmo.len()].copy_from_slice(&pmo);
        b[list..list + 4].copy_from_slice(&(tim_at as u32).to_le_bytes());
        b[list + 4..list + 10].copy_from_slice(b"maptex");
        b[tim_at..].copy_from_slice(&tim);
        (b, pmo_at, list)
    }

    #[test]
    fn synthetic_map() {
        let (b, pmo_at, _) = pmp();
        let m = Pmp::parse(&b).unwrap();
        assert_eq!(m.objects.len(), 2);
        assert_eq!(m.objects[0].position, [1.0, 2.0, 3.0]);
        assert_eq!(m.objects[0].rotation, [0.0, 1.5, 0.0]);
        assert_eq!(m.objects[0].scale, [1.0, 1.0, 2.0]);
        assert_eq!((m.objects[0].flags, m.objects[0].model), (1, Some(0)));
        assert_eq!((m.objects[1].id, m.objects[1].model, m.objects[1].pmo_offset), (7, None, 0));
        assert_eq!(m.models.len(), 1);
        assert_eq!(m.models[0].0 as usize, pmo_at);
        assert_eq!(m.models[0].1.meshes[1].len(), 1);
        assert_eq!(m.textures.len(), 1);
        assert_eq!(m.textures[0].name(), "maptex");
        assert_eq!(m.textures[0].tim2.pictures[0].width, 4);
    }

    #[test]
    fn bad_maps_name_offsets_and_never_panic() {
        let (b, pmo_at, list) = pmp();
        for n in 0..b.len() {
            let e = Pmp::parse(&b[..n]).expect_err("truncated map parsed");
            assert!(e.to_string().contains("offset 0x"), "{n}: {e}");
        }
        let parse = |f: &dyn Fn(&mut Vec<u8>)| {
            let mut c = b.clone();
            f(&mut c);
            Pmp::parse(&c).unwrap_err()
        };
        assert!(matches!(parse(&|c| c[0] = 0), PmpError::BadMagic { offset: 0, .. }));
        assert!(matches!(parse(&|c| c[0x20 + 39] = 0x40), PmpError::OffsetOutOfRange { offset: 0x44, .. }));
        assert!(matches!(parse(&|c| c[0x20 + 36] += 2), PmpError::Misaligned { offset: 0x44, .. }));
        assert!(matches!(parse(&|c| c[0x1F] = 0x40), PmpError::OffsetOutOfRange { offset: 0x1C, .. }));
        assert!(matches!(parse(&|c| c[list + 3] = 0x40), PmpError::OffsetOutOfRange { offset, .. } if offset == list));
        assert!(matches!(parse(&|c| c[0x10] = 0xFF), PmpError::Truncated { offset: 0x20, .. }));
        // Texture id out of range inside the embedded PMO.
        let m1 = u32::from_le_bytes(b[pmo_at + 0x1C..pmo_at + 0x20].try_into().unwrap()) as usize;
        let e = parse(&|c| c[pmo_at + m1 + 2] = 1);
        assert!(
            matches!(&e, PmpError::Pmo { object: 0, base, cause: PmoError::TextureIdOutOfRange { .. } } if *base == pmo_at),
            "{e}"
        );
        assert!(e.to_string().contains("offset 0x"), "{e}");
    }

    #[test]
    fn sample_maps() {
        let Some(b) = crate::pmo::tests::sample("jb_50.pmp") else {
            return;
        };
        let m = Pmp::parse(&b).unwrap();
        assert_eq!((m.objects.len(), m.models.len(), m.textures.len()), (4, 3, 6));
        assert_eq!(m.objects[3].pmo_offset, 0);
        assert_eq!(m.objects[3].model, None);
        assert!(m.objects[..3].iter().all(|o| o.model.is_some()));
        assert_eq!(m.textures[0].tim2_offset, 0xF890);
        assert_eq!(m.textures[4].name(), "kiri01");
        // The embedded PMOs hold list 1 only here.
        assert!(m.models.iter().all(|(_, p)| p.meshes[0].is_empty() && !p.meshes[1].is_empty()));
        for (i, (off, p)) in m.models.iter().enumerate() {
            assert_eq!(p.counts().0, usize::from(p.header.vertex_count));
            // Each embedded PMO is rewritten byte for byte up to where the next one starts.
            let w = p.to_bytes().unwrap();
            let next = m.models.get(i + 1).map_or(m.textures[0].tim2_offset, |n| n.0);
            assert!(*off as usize + w.len() <= next as usize);
            assert_eq!(&b[*off as usize..*off as usize + w.len()], &w[..]);
        }
        let Some(b) = crate::pmo::tests::sample("bbs-testmap.pmp") else {
            return;
        };
        let m = Pmp::parse(&b).unwrap();
        assert_eq!((m.objects.len(), m.models.len(), m.textures.len()), (1, 1, 1));
        assert_eq!(m.objects[0].pmo_offset, 0x50);
        assert_eq!(m.objects[0].scale, [1.0; 3]);
        assert_eq!(m.textures[0].name(), "Dummy_tex02");
    }
}
