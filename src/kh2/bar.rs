//! The BAR container (animation-formats.md §2.1 "BAR container"; OpenKh `Bar.cs`, `bar.md`):
//! a 16-byte header (`BAR\x01`, u32 count, u32 runtime pointer slot, i32 motion-set type) and
//! 16-byte entries (u16 type, u16 duplicate flag, `char[4]` name, u32 offset, u32 size). Entry
//! data is kept as bytes whatever the type; [`mset_slot`] and [`Anb`] are views for the motion uses.
//!
//! The writer places data in entry order after the entry table, each start aligned by type
//! ([`alignment`]); a duplicate entry (flag ≠ 0) points at the data of the first earlier entry
//! with the same name and type instead of storing its own.

use super::{Kh2Error, Put, Rd};
use crate::kh2::motion::Motion;
use crate::kh2::trigger::Triggers;

pub const MAGIC: &[u8; 4] = b"BAR\x01";
pub const HEADER_SIZE: usize = 16;
pub const ENTRY_SIZE: usize = 16;

/// Entry types this module knows by name (OpenKh `Bar.EntryType`); any other value is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    Dummy,
    Model,
    ModelTexture,
    Motion,
    Triggers,
    Anb,
    Other(u16),
}

impl EntryKind {
    pub fn from_u16(v: u16) -> EntryKind {
        match v {
            0 => EntryKind::Dummy,
            4 => EntryKind::Model,
            7 => EntryKind::ModelTexture,
            9 => EntryKind::Motion,
            16 => EntryKind::Triggers,
            17 => EntryKind::Anb,
            v => EntryKind::Other(v),
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            EntryKind::Dummy => "dummy",
            EntryKind::Model => "model",
            EntryKind::ModelTexture => "model texture",
            EntryKind::Motion => "motion",
            EntryKind::Triggers => "triggers",
            EntryKind::Anb => "anb",
            EntryKind::Other(_) => "other",
        }
    }
}

/// Alignment of an entry's data start by type (OpenKh `Bar.cs` `_alignments`); types not in
/// the table align to 0x80 when their data is itself a BAR, else to 4.
pub fn alignment(kind: u16, data: &[u8]) -> usize {
    match kind {
        4 | 9 | 11 | 6 | 15 | 17 | 18 | 19 | 20 | 24 | 25 | 28 | 29 | 30 | 38 | 39 | 42 | 44 | 46 | 48 => 0x10,
        7 | 36 => 0x80,
        10 | 31 | 32 | 34 | 37 => 0x40,
        _ if data.starts_with(MAGIC) => 0x80,
        _ => 4,
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BarEntry {
    pub kind: u16,
    /// Non-zero: the data is that of the first earlier entry with the same name and type.
    pub duplicate: u16,
    /// Four raw name bytes (NUL-padded when shorter).
    pub name: [u8; 4],
    pub data: Vec<u8>,
}

impl BarEntry {
    pub fn new(kind: u16, name: &str, data: Vec<u8>) -> BarEntry {
        let mut n = [0u8; 4];
        for (d, s) in n.iter_mut().zip(name.bytes()) {
            *d = s;
        }
        BarEntry { kind, duplicate: 0, name: n, data }
    }
    /// The name up to the first NUL, lossily as UTF-8.
    pub fn name_str(&self) -> String {
        let end = self.name.iter().position(|&c| c == 0).unwrap_or(4);
        String::from_utf8_lossy(&self.name[..end]).into_owned()
    }
    pub fn entry_kind(&self) -> EntryKind {
        EntryKind::from_u16(self.kind)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bar {
    /// Header word at 0x08: zero in files, the runtime patches a pointer in (kept raw).
    pub reserved: u32,
    /// i32 at 0x0C: 0 default, 1 player, 2 raw; it only matters inside an MSET.
    pub motionset_type: i32,
    pub entries: Vec<BarEntry>,
}

/// Where an entry's data lies, as the parser found it (for listings).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placement {
    pub offset: u32,
    pub size: u32,
}

impl Bar {
    pub fn is_bar(bytes: &[u8]) -> bool {
        bytes.starts_with(MAGIC)
    }

    pub fn parse(bytes: &[u8]) -> Result<Bar, Kh2Error> {
        Ok(Self::parse_placed(bytes)?.0)
    }

    /// The BAR and each entry's stored offset and size.
    pub fn parse_placed(bytes: &[u8]) -> Result<(Bar, Vec<Placement>), Kh2Error> {
        let r = Rd::new(bytes);
        let magic = r.arr::<4>(0, "BAR header")?;
        r.need(0, HEADER_SIZE, "BAR header")?;
        if &magic != MAGIC {
            return Err(Kh2Error::BadMagic { offset: 0, found: magic, expected: "\"BAR\\x01\"" });
        }
        let count = r.u32(4, "BAR entry count")?;
        if count as usize > (bytes.len() - HEADER_SIZE) / ENTRY_SIZE {
            return Err(Kh2Error::Absurd {
                offset: 4,
                what: "BAR entry count (table past the end of the file)",
                value: count.into(),
            });
        }
        let reserved = r.u32(8, "BAR header")?;
        let motionset_type = r.i32(12, "BAR header")?;
        let mut entries = Vec::with_capacity(count as usize);
        let mut places = Vec::with_capacity(count as usize);
        for i in 0..count as usize {
            let e = HEADER_SIZE + ENTRY_SIZE * i;
            let kind = r.u16(e, "BAR entry")?;
            let duplicate = r.u16(e + 2, "BAR entry")?;
            let name = r.arr::<4>(e + 4, "BAR entry")?;
            let offset = r.u32(e + 8, "BAR entry")?;
            let size = r.u32(e + 12, "BAR entry")?;
            let end = u64::from(offset) + u64::from(size);
            if end > bytes.len() as u64 {
                return Err(Kh2Error::invalid(
                    e + 8,
                    "BAR entry",
                    format!("entry {i} data {offset:#x}+{size:#x} ends past the end of the file ({:#x})", bytes.len()),
                ));
            }
            let data = bytes[offset as usize..end as usize].to_vec();
            entries.push(BarEntry { kind, duplicate, name, data });
            places.push(Placement { offset, size });
        }
        Ok((Bar { reserved, motionset_type, entries }, places))
    }

    pub fn to_bytes(&self) -> Result<Vec<u8>, Kh2Error> {
        let n = self.entries.len();
        let count = u32::try_from(n).map_err(|_| Kh2Error::Unwritable(format!("{n} BAR entries")))?;
        let mut out = Vec::new();
        out.extend_from_slice(MAGIC);
        out.put_u32(count);
        out.put_u32(self.reserved);
        out.put_i32(self.motionset_type);
        out.resize(HEADER_SIZE + ENTRY_SIZE * n, 0);
        let mut first: Vec<(u16, [u8; 4], u32, u32)> = Vec::new();
        for (i, e) in self.entries.iter().enumerate() {
            let (offset, size) = if e.duplicate != 0 {
                let Some(&(.., o, s)) = first.iter().find(|f| f.0 == e.kind && f.1 == e.name) else {
                    return Err(Kh2Error::Unwritable(format!(
                        "BAR entry {i} is a duplicate but no earlier entry has its name and type"
                    )));
                };
                if s as usize != e.data.len() {
                    return Err(Kh2Error::Unwritable(format!(
                        "BAR duplicate entry {i} data differs from its original"
                    )));
                }
                (o, s)
            } else {
                out.align_to(alignment(e.kind, &e.data));
                let o = u32::try_from(out.len()).map_err(|_| Kh2Error::Unwritable("BAR past 4 GiB".into()))?;
                let s = u32::try_from(e.data.len()).map_err(|_| Kh2Error::Unwritable("entry of 4 GiB".into()))?;
                out.extend_from_slice(&e.data);
                if !first.iter().any(|f| f.0 == e.kind && f.1 == e.name) {
                    first.push((e.kind, e.name, o, s));
                }
                (o, s)
            };
            let at = HEADER_SIZE + ENTRY_SIZE * i;
            let mut rec = Vec::with_capacity(ENTRY_SIZE);
            rec.put_u16(e.kind);
            rec.put_u16(e.duplicate);
            rec.extend_from_slice(&e.name);
            rec.put_u32(offset);
            rec.put_u32(size);
            out[at..at + ENTRY_SIZE].copy_from_slice(&rec);
        }
        Ok(out)
    }
}

/// An ANB: a BAR holding a type-9 motion and a type-16 trigger file.
#[derive(Debug, Clone, PartialEq)]
pub struct Anb {
    pub motion: Option<Motion>,
    pub triggers: Option<Triggers>,
}

/// The payload of a BAR entry, as far as this module understands it.
#[allow(clippy::large_enum_variant)] // decoded one entry at a time
#[derive(Debug, Clone, PartialEq)]
pub enum Payload {
    Motion(Motion),
    Triggers(Triggers),
    /// An MSET slot or a nested BAR.
    Anb(Bar),
    Empty,
    Bytes,
}

/// Decode entry `i` of `bar` (whose data sits at `placement.offset` in the file, for errors).
pub fn payload(e: &BarEntry, file_offset: usize) -> Result<Payload, Kh2Error> {
    if e.data.is_empty() {
        return Ok(Payload::Empty);
    }
    let shift = |err: Kh2Error| err.shifted(file_offset);
    Ok(match e.entry_kind() {
        EntryKind::Motion => Payload::Motion(Motion::parse(&e.data).map_err(shift)?),
        EntryKind::Triggers => Payload::Triggers(Triggers::parse(&e.data).map_err(shift)?),
        EntryKind::Anb if Bar::is_bar(&e.data) => Payload::Anb(Bar::parse(&e.data).map_err(shift)?),
        _ => Payload::Bytes,
    })
}

impl Anb {
    /// The first motion and first trigger entries of `bar`; entry errors name file offsets
    /// using `places` (from [`Bar::parse_placed`]) plus `base`.
    pub fn from_bar(bar: &Bar, places: &[Placement], base: usize) -> Result<Anb, Kh2Error> {
        let mut anb = Anb { motion: None, triggers: None };
        for (e, p) in bar.entries.iter().zip(places) {
            match payload(e, base + p.offset as usize)? {
                Payload::Motion(m) if anb.motion.is_none() => anb.motion = Some(m),
                Payload::Triggers(t) if anb.triggers.is_none() => anb.triggers = Some(t),
                _ => {}
            }
        }
        Ok(anb)
    }
}

/// The four player states of a "player" MSET (mset.md "Slot system").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlayerState {
    BattleWeapon = 0,
    BattleNoWeapon = 1,
    FieldNoWeapon = 2,
    FieldWeapon = 3,
}

/// The order in which a player MSET tries states when a slot is a dummy (mset.md).
pub fn fallback_chain(state: PlayerState) -> [usize; 4] {
    match state {
        PlayerState::FieldWeapon => [3, 2, 0, 1],
        PlayerState::FieldNoWeapon => [2, 3, 1, 0],
        PlayerState::BattleNoWeapon => [1, 0, 2, 3],
        PlayerState::BattleWeapon => [0, 1, 3, 2],
    }
}

/// The slot an MSET `bar` plays for `motion_id` in `state`: in player sets 4 × motion + state,
/// falling back along [`fallback_chain`] past dummy (zero-size) slots; in default and raw sets
/// the motion id itself. `None` is the game's "-1" (T-pose).
pub fn mset_slot(bar: &Bar, motion_id: usize, state: PlayerState) -> Option<usize> {
    let present = |s: usize| bar.entries.get(s).is_some_and(|e| !e.data.is_empty());
    if bar.motionset_type == 1 {
        fallback_chain(state).into_iter().map(|rel| 4 * motion_id + rel).find(|&s| present(s))
    } else {
        Some(motion_id).filter(|&s| present(s))
    }
}
