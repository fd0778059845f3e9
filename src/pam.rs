//! Kingdom Hearts Birth by Sleep PAM animation containers (animation-formats.md §1): a strict
//! parser whose errors name file offsets, a writer such that `parse(write(p)) == p`, channel
//! evaluation and skeleton posing against a PMO [`Skeleton`](crate::pmo::Skeleton).
//!
//! Design:
//! * [`Pam`] keeps every slot of the entry table, empty ones (offset 0) as `None`, because the
//!   game addresses animations by index (animation-formats.md §1.1 "Container").
//! * Channels keep the stored form ([`Keys::Constant`], [`Keys::Full`], [`Keys::Sparse`]) and the
//!   raw `max`/`min` floats, so the writer reproduces them exactly; the layout (offsets, wide
//!   mode) is derived by the writer, not stored.
//! * Evaluation ([`eval`]) dequantises each key in f32 and interpolates linearly in float space;
//!   posing ([`pose`]) builds local TRS matrices with the column-vector convention used by
//!   `glam` (the PMO stores the same matrices row-vector, i.e. the same 16 floats).
//!
//! Submodules: `parse` (reader), `write` (writer), [`eval`] (channels, playback time),
//! [`pose`] (matrices, skinning).

use thiserror::Error;

pub mod eval;
mod parse;
pub mod pose;
mod write;

#[cfg(test)]
mod sample_tests;
#[cfg(test)]
mod tests;

pub use eval::{BoneTransform, Playback};
pub use pose::{bind_globals, pose_globals, skin_matrices, EulerOrder, PoseOptions, ScaleInheritance};

pub const MAGIC: &[u8; 4] = b"PAM\0";
/// Container header: magic, u32 animation count, 6 reserved bytes, u16 version.
pub const HEADER_SIZE: usize = 16;
/// Entry table record: u32 offset, `char[12]` name.
pub const ENTRY_SIZE: usize = 16;
/// Animation header: flag, fps, interpolation frames, loop-from, bone count, pad, frame count, loop-to.
pub const ANIM_HEADER_SIZE: usize = 12;
/// Bits of a bone's channel mask that select channels (OpenKh pam.md "Channel Flags").
pub const MASK_BITS: u16 = 0x01FF;
/// Frame counts above this store key counts and frame ids as u16 ("wide" mode; OpenKh `Pam.cs`).
pub const NARROW_MAX_FRAMES: u16 = 255;

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum PamError {
    #[error("PAM truncated at offset {offset:#x}: {what} needs {need} bytes, {have} available")]
    Truncated { offset: usize, what: &'static str, need: usize, have: usize },
    #[error("PAM bad magic at offset {offset:#x}: {} (expected \"PAM\\0\")", crate::output::magic_text(found))]
    BadMagic { offset: usize, found: [u8; 4] },
    #[error(
        "PAM animation {index}: offset {value:#x} (entry at offset {offset:#x}) is out of range (file size {len:#x})"
    )]
    OffsetOutOfRange { offset: usize, index: usize, value: u32, len: usize },
    #[error("PAM absurd {what} {value} at offset {offset:#x}")]
    AbsurdCount { offset: usize, what: &'static str, value: u64 },
    #[error("PAM animation {index}: data at offset {start:#x} (to {end:#x}) overlaps {other}")]
    Overlap { index: usize, start: usize, end: usize, other: String },
    #[error("PAM bone {bone} channel mask {mask:#06x} at offset {offset:#x} has bits above bit 8 set")]
    BadMask { offset: usize, bone: usize, mask: u16 },
    #[error(
        "PAM bone {bone} channel {channel} key at offset {offset:#x}: frame {frame} does not follow frame {previous}"
    )]
    KeyOrder { offset: usize, bone: usize, channel: &'static str, frame: u16, previous: u16 },
    #[error("PAM cannot be written: {what}")]
    Unwritable { what: String },
}

/// A PAM file: every slot of the entry table, in order.
#[derive(Debug, Clone, PartialEq)]
pub struct Pam {
    /// u16 at 0x0E (1 in the OpenKh sample).
    pub version: u16,
    /// Bytes 0x08..0x0E: always zero per OpenKh pam.md ("never read by the game"); kept raw.
    pub reserved: [u8; 6],
    /// One per entry; `None` is an empty slot (offset 0) that keeps its index.
    pub animations: Vec<Option<Animation>>,
    /// Names stored in the entries of empty slots, keyed by slot index (the parser records one
    /// for every empty slot; the writer writes zeros for an empty slot missing here).
    pub empty_slot_names: std::collections::BTreeMap<usize, [u8; 12]>,
}

/// One animation: header fields and per-bone channels.
#[derive(Debug, Clone, PartialEq)]
pub struct Animation {
    /// Entry name, NUL-padded; may use all 12 bytes without a terminator.
    pub name: [u8; 12],
    /// Meaning unknown (1 in the sample).
    pub flag: u16,
    pub fps: u8,
    /// Cross-fade length from the previous animation, in frames.
    pub interpolation_frames: u8,
    pub loop_from: u16,
    /// Byte 7 of the header (padding), kept raw.
    pub pad: u8,
    pub frame_count: u16,
    pub loop_to: u16,
    /// One per bone (at most 255: the count is a u8).
    pub bones: Vec<BoneChannels>,
}

/// The nine channels of one bone, in file order (see [`ChannelKind`]); `None` = absent.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BoneChannels {
    pub channels: [Option<Channel>; 9],
}

/// One stored channel: dequantisation range and keys.
#[derive(Debug, Clone, PartialEq)]
pub struct Channel {
    /// Stored first (OpenKh pam.md "Channel Header"; test.pam bone 2 TX: max -0.02796 > min -0.03222).
    pub max: f32,
    pub min: f32,
    pub keys: Keys,
}

/// How a channel's keys are stored, decided by its key count.
#[derive(Debug, Clone, PartialEq)]
pub enum Keys {
    /// Count 1: a constant, no key data (min == max in real data).
    Constant,
    /// Count == frame count (and != 1): one quantised value per frame, frame ids implicit.
    Full(Vec<u16>),
    /// Any other count: (frame id, value) pairs with strictly increasing frame ids. An empty
    /// list is a count of 0, never seen in real data; evaluation treats it as absent.
    Sparse(Vec<Key>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key {
    pub frame: u16,
    pub value: u16,
}

/// Channel order in a bone's mask (bit i) and in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ChannelKind {
    TranslationX,
    TranslationY,
    TranslationZ,
    RotationX,
    RotationY,
    RotationZ,
    ScaleX,
    ScaleY,
    ScaleZ,
}

impl ChannelKind {
    pub const ALL: [ChannelKind; 9] = [
        ChannelKind::TranslationX,
        ChannelKind::TranslationY,
        ChannelKind::TranslationZ,
        ChannelKind::RotationX,
        ChannelKind::RotationY,
        ChannelKind::RotationZ,
        ChannelKind::ScaleX,
        ChannelKind::ScaleY,
        ChannelKind::ScaleZ,
    ];
    /// Short name: tx, ty, tz, rx, ry, rz, sx, sy, sz.
    pub fn short(self) -> &'static str {
        ["tx", "ty", "tz", "rx", "ry", "rz", "sx", "sy", "sz"][self as usize]
    }
    /// Value of an absent channel: translation 0, rotation 0, scale 1 (KHBBSMesh `CBoneAnim`;
    /// animation-formats.md §1.1 "Defaults").
    pub fn default_value(self) -> f32 {
        if self >= ChannelKind::ScaleX {
            1.0
        } else {
            0.0
        }
    }
}

/// How a channel is stored, for listings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyForm {
    Constant,
    Full,
    Sparse,
}

impl Keys {
    /// The stored key count.
    pub fn count(&self) -> usize {
        match self {
            Keys::Constant => 1,
            Keys::Full(v) => v.len(),
            Keys::Sparse(v) => v.len(),
        }
    }
    pub fn form(&self) -> KeyForm {
        match self {
            Keys::Constant => KeyForm::Constant,
            Keys::Full(_) => KeyForm::Full,
            Keys::Sparse(_) => KeyForm::Sparse,
        }
    }
}

impl BoneChannels {
    /// The 9-bit channel mask (bit i = [`ChannelKind::ALL`]`[i]` present).
    pub fn mask(&self) -> u16 {
        self.channels.iter().enumerate().filter(|(_, c)| c.is_some()).fold(0, |m, (i, _)| m | 1 << i)
    }
    pub fn get(&self, kind: ChannelKind) -> Option<&Channel> {
        self.channels[kind as usize].as_ref()
    }
}

/// Name bytes up to the first NUL, lossily as UTF-8.
pub fn name_str(name: &[u8]) -> String {
    crate::pmo::name_str(name)
}

impl Animation {
    /// An animation named `name` (up to 12 bytes kept) at `fps` over `frame_count` frames that
    /// plays once (loop-from = loop-to = 0), flag 1 as in test.pam, no cross-fade.
    pub fn new(name: &str, fps: u8, frame_count: u16, bones: Vec<BoneChannels>) -> Animation {
        let mut n = [0u8; 12];
        n.iter_mut().zip(name.bytes()).for_each(|(d, s)| *d = s);
        Animation {
            name: n,
            flag: 1,
            fps,
            interpolation_frames: 0,
            loop_from: 0,
            pad: 0,
            frame_count,
            loop_to: 0,
            bones,
        }
    }

    pub fn name(&self) -> String {
        name_str(&self.name)
    }
    /// Frame counts above 255 store key counts and frame ids as u16 (OpenKh `Pam.cs`, pam.md).
    pub fn wide(&self) -> bool {
        self.frame_count > NARROW_MAX_FRAMES
    }
    /// All present channels with their bone index, in file order.
    pub fn channels(&self) -> impl Iterator<Item = (usize, ChannelKind, &Channel)> {
        self.bones.iter().enumerate().flat_map(|(b, bc)| {
            bc.channels.iter().zip(ChannelKind::ALL).filter_map(move |(c, k)| c.as_ref().map(|c| (b, k, c)))
        })
    }
}

impl Pam {
    /// A version-1 container holding `animations` in slots 0, 1, …
    pub fn new(animations: Vec<Animation>) -> Pam {
        Pam {
            version: 1,
            reserved: [0; 6],
            animations: animations.into_iter().map(Some).collect(),
            empty_slot_names: Default::default(),
        }
    }

    /// Parse a whole PAM file; offsets count from the start of `bytes`.
    pub fn parse(bytes: &[u8]) -> Result<Pam, PamError> {
        parse::parse(bytes)
    }

    /// Serialise: header, entry table, then the animations back to back in slot order, the file
    /// padded with a zero to an even length (test.pam: data ends at 23 961 of 23 962 bytes;
    /// guess: the padding rule for other files).
    pub fn to_bytes(&self) -> Result<Vec<u8>, PamError> {
        write::to_bytes(self)
    }

    /// An animation by slot index (decimal) or by name (exact, then case-insensitive).
    /// Empty slots never match.
    pub fn find(&self, index_or_name: &str) -> Option<(usize, &Animation)> {
        let slots = || self.animations.iter().enumerate().filter_map(|(i, a)| a.as_ref().map(|a| (i, a)));
        if let Ok(i) = index_or_name.parse::<usize>() {
            if let Some(Some(a)) = self.animations.get(i) {
                return Some((i, a));
            }
        }
        slots()
            .find(|(_, a)| a.name() == index_or_name)
            .or_else(|| slots().find(|(_, a)| a.name().eq_ignore_ascii_case(index_or_name)))
    }

    /// Name of slot `i` (the animation's, or the empty slot's stored name).
    pub fn slot_name(&self, i: usize) -> String {
        match self.animations.get(i) {
            Some(Some(a)) => a.name(),
            _ => self.empty_slot_names.get(&i).map(|n| name_str(n)).unwrap_or_default(),
        }
    }
}
