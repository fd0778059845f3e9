//! KH2 skeletons: the bone table of a PS2 MDLX model (the meshes are VIF data, outside a PSP
//! renderer), a JSON form, and synthetic skeletons for tests.
//!
//! MDLX facts (OpenKh `Mdlx.cs`, `Mdlx.Model.cs`; checked on `5_Nodes.mdlx`): an MDLX is a BAR
//! whose type-4 entry is the model. The model has 0x90 reserved bytes, then sub-models chained
//! by `next` offsets; a sub-model header is i32 type (3 = entity), i32 ×2, i32 next, i16 bone
//! count, i16, i32 bone-table offset, i32 unknown-data offset, i32 DMA-chain count, with
//! offsets relative to the sub-model start. A bone is 64 bytes: i32 index, i32 parent (−1 =
//! root), 2 reserved words, then S, R (Euler radians) and T as vec4s.

use super::bar::{Bar, BarEntry};
use super::{Kh2Error, Put, Rd};
use serde::{Deserialize, Serialize};

pub const BONE_SIZE: usize = 64;
const MODEL_BASE: usize = 0x90;
const SUBMODEL_HEADER: usize = 0x20;
/// The 0x120-byte block OpenKh reads at the unknown-data offset; zero in written models.
const UNKNOWN_DATA: usize = 0x120;

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Bone {
    #[serde(default)]
    pub index: i32,
    pub parent: i32,
    #[serde(default)]
    pub reserved: [i32; 2],
    #[serde(default = "one4")]
    pub scale: [f32; 4],
    #[serde(default)]
    pub rotation: [f32; 4],
    #[serde(default)]
    pub translation: [f32; 4],
}

fn one4() -> [f32; 4] {
    [1.0, 1.0, 1.0, 0.0]
}

impl Bone {
    /// Bind channels in motion channel order (S xyz, R xyz, T xyz).
    pub fn channels(&self) -> [f32; 9] {
        let (s, r, t) = (self.scale, self.rotation, self.translation);
        [s[0], s[1], s[2], r[0], r[1], r[2], t[0], t[1], t[2]]
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Skeleton {
    pub bones: Vec<Bone>,
}

/// Where a skeleton's bone table sits in an MDLX file (for in-place rewrites).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BoneTableAt {
    pub offset: usize,
    pub count: usize,
}

fn read_bone(r: &Rd, o: usize) -> Result<Bone, Kh2Error> {
    Ok(Bone {
        index: r.i32(o, "bone")?,
        parent: r.i32(o + 4, "bone")?,
        reserved: [r.i32(o + 8, "bone")?, r.i32(o + 12, "bone")?],
        scale: r.f32s::<4>(o + 16, "bone")?,
        rotation: r.f32s::<4>(o + 32, "bone")?,
        translation: r.f32s::<4>(o + 48, "bone")?,
    })
}

fn put_bone(out: &mut Vec<u8>, b: &Bone) {
    out.put_i32(b.index);
    out.put_i32(b.parent);
    out.put_i32(b.reserved[0]);
    out.put_i32(b.reserved[1]);
    out.put_f32s(&b.scale);
    out.put_f32s(&b.rotation);
    out.put_f32s(&b.translation);
}

impl Skeleton {
    /// Parents in range and acyclic (every bone reaches a root); errors name the bone.
    pub fn validate(&self) -> Result<(), Kh2Error> {
        let n = self.bones.len();
        for (i, b) in self.bones.iter().enumerate() {
            if b.parent < -1 || b.parent >= n as i32 {
                return Err(Kh2Error::invalid(
                    i * BONE_SIZE + 4,
                    "bone parent",
                    format!("bone {i}: parent {} of {n}", b.parent),
                ));
            }
        }
        let parents: Vec<i32> = self.bones.iter().map(|b| b.parent).collect();
        if let Some(i) = first_cycle(&parents) {
            return Err(Kh2Error::invalid(i * BONE_SIZE + 4, "bone parent", format!("bone {i} is in a parent cycle")));
        }
        Ok(())
    }

    /// The bone table of the first entity sub-model of an MDLX file.
    pub fn from_mdlx(bytes: &[u8]) -> Result<Skeleton, Kh2Error> {
        let (sk, _) = Self::from_mdlx_located(bytes)?;
        Ok(sk)
    }

    pub fn from_mdlx_located(bytes: &[u8]) -> Result<(Skeleton, BoneTableAt), Kh2Error> {
        let (bar, places) = Bar::parse_placed(bytes)?;
        let Some((_, p)) = bar.entries.iter().zip(&places).find(|(e, _)| e.kind == 4) else {
            return Err(Kh2Error::invalid(4, "MDLX", "no model entry (BAR type 4)"));
        };
        let r = Rd::new(bytes);
        let model = p.offset as usize;
        let sub = model + MODEL_BASE;
        let kind = r.i32(sub, "MDLX sub-model header")?;
        if kind != 3 {
            return Err(Kh2Error::invalid(sub, "MDLX sub-model header", format!("type {kind} (3 = entity model)")));
        }
        let count = r.i16(sub + 0x10, "MDLX bone count")?;
        let table = r.i32(sub + 0x14, "MDLX bone offset")?;
        let (Ok(count), Ok(table)) = (usize::try_from(count), usize::try_from(table)) else {
            return Err(Kh2Error::invalid(sub + 0x10, "MDLX bone table", format!("count {count}, offset {table}")));
        };
        let at = sub + table;
        let bones = r.table(at, count, BONE_SIZE, "MDLX bone table", |o| read_bone(&r, o))?;
        let sk = Skeleton { bones };
        sk.validate().map_err(|e| e.shifted(at))?;
        Ok((sk, BoneTableAt { offset: at, count }))
    }

    /// `mdlx` with its bone table replaced by this skeleton's (same bone count).
    pub fn write_into_mdlx(&self, mdlx: &[u8]) -> Result<Vec<u8>, Kh2Error> {
        let (_, at) = Self::from_mdlx_located(mdlx)?;
        if at.count != self.bones.len() {
            return Err(Kh2Error::Unwritable(format!("{} bones into a table of {}", self.bones.len(), at.count)));
        }
        let mut table = Vec::with_capacity(BONE_SIZE * at.count);
        self.bones.iter().for_each(|b| put_bone(&mut table, b));
        let mut out = mdlx.to_vec();
        out[at.offset..at.offset + table.len()].copy_from_slice(&table);
        Ok(out)
    }

    /// A minimal MDLX holding only this bone table (one entity sub-model, no DMA chains).
    pub fn to_mdlx(&self) -> Result<Vec<u8>, Kh2Error> {
        self.validate()?;
        let count =
            i16::try_from(self.bones.len()).map_err(|_| Kh2Error::Unwritable("more than 32767 bones".into()))?;
        let mut m = vec![0u8; MODEL_BASE];
        m.put_i32(3);
        m.put_i32(0);
        m.put_i32(0);
        m.put_i32(0); // next sub-model: none
        m.put_i16(count);
        m.put_i16(0);
        m.put_i32((SUBMODEL_HEADER + UNKNOWN_DATA) as i32);
        m.put_i32(SUBMODEL_HEADER as i32);
        m.put_i32(0); // DMA chains
        m.resize(MODEL_BASE + SUBMODEL_HEADER + UNKNOWN_DATA, 0);
        self.bones.iter().for_each(|b| put_bone(&mut m, b));
        Bar { reserved: 0, motionset_type: 0, entries: vec![BarEntry::new(4, "mdl_", m)] }.to_bytes()
    }

    /// `{"bones": [{"parent": -1, "scale": [..4], "rotation": [..4], "translation": [..4]}, …]}`.
    pub fn from_json(text: &str) -> Result<Skeleton, String> {
        let sk: Skeleton = serde_json::from_str(text).map_err(|e| format!("skeleton JSON: {e}"))?;
        sk.validate().map_err(|e| format!("skeleton JSON: {e}"))?;
        Ok(sk)
    }

    /// A chain of `n` bones along +Y, `length` apart (the shape of OpenKh's `5_Nodes.mdlx`).
    pub fn chain(n: usize, length: f32) -> Skeleton {
        let bones = (0..n)
            .map(|i| Bone {
                index: i as i32,
                parent: i as i32 - 1,
                reserved: [0; 2],
                scale: one4(),
                rotation: [0.0; 4],
                translation: if i == 0 { [0.0; 4] } else { [0.0, length, 0.0, 0.0] },
            })
            .collect();
        Skeleton { bones }
    }

    /// A small biped: hips (root), spine, head, two arms and two legs of two segments each.
    pub fn biped() -> Skeleton {
        let spec: [(i32, [f32; 3]); 12] = [
            (-1, [0.0, 90.0, 0.0]),  // 0 hips
            (0, [0.0, 30.0, 0.0]),   // 1 chest
            (1, [0.0, 25.0, 0.0]),   // 2 head
            (1, [18.0, 15.0, 0.0]),  // 3 left upper arm
            (3, [0.0, -28.0, 0.0]),  // 4 left forearm
            (1, [-18.0, 15.0, 0.0]), // 5 right upper arm
            (5, [0.0, -28.0, 0.0]),  // 6 right forearm
            (0, [10.0, -5.0, 0.0]),  // 7 left thigh
            (7, [0.0, -42.0, 0.0]),  // 8 left shin
            (0, [-10.0, -5.0, 0.0]), // 9 right thigh
            (9, [0.0, -42.0, 0.0]),  // 10 right shin
            (8, [0.0, -38.0, 8.0]),  // 11 left foot
        ];
        let bones = spec
            .iter()
            .enumerate()
            .map(|(i, &(parent, t))| Bone {
                index: i as i32,
                parent,
                reserved: [0; 2],
                scale: one4(),
                rotation: [0.0; 4],
                translation: [t[0], t[1], t[2], 0.0],
            })
            .collect();
        Skeleton { bones }
    }
}

/// The first joint whose parent chain (−1 = root; every parent in range) never reaches a root,
/// in O(n): each joint is walked once.
pub fn first_cycle(parents: &[i32]) -> Option<usize> {
    // 0 unvisited, 1 on the current path, 2 reaches a root.
    let mut state = vec![0u8; parents.len()];
    for i in 0..parents.len() {
        let mut path = Vec::new();
        let mut j = i as i32;
        while j >= 0 && state[j as usize] == 0 {
            state[j as usize] = 1;
            path.push(j as usize);
            j = parents[j as usize];
        }
        if j >= 0 && state[j as usize] == 1 {
            return Some(i);
        }
        path.into_iter().for_each(|k| state[k] = 2);
    }
    None
}

/// Joints ordered parents first (parents must be acyclic and in range).
pub fn parents_first(parents: &[i32]) -> Vec<usize> {
    let mut done = vec![false; parents.len()];
    let mut order = Vec::with_capacity(parents.len());
    for i in 0..parents.len() {
        let mut path = Vec::new();
        let mut j = i as i32;
        while j >= 0 && !done[j as usize] {
            path.push(j as usize);
            done[j as usize] = true;
            j = parents[j as usize];
        }
        order.extend(path.into_iter().rev());
    }
    order
}
