//! PopCap "PopAnim" PAM animations (Plants vs. Zombies 2; animation-formats.md §3): a strict
//! parser for versions 1-6 whose errors name byte offsets, a writer such that
//! `write(parse(b)) == b` for canonically encoded files, the PopCap runtime's evaluation into
//! per-frame draw lists ([`eval`]) and their rendering through the GE model ([`render`]).
//!
//! Design:
//! * The model keeps the stored integers (twips, 16.16 and 20·65536 fixed point, /1000
//!   radians, raw colour bytes), so equality is exact and rewriting is byte-identical; float
//!   accessors apply the doc's scales. Flags that change the encoding but not the value
//!   (`long_coords`, the rotate bit beside a matrix, the unused remove bits) are kept too.
//! * Counts, 0x7FF/0x3FF index escapes and the v6 resource escape are written canonically
//!   (escape only when needed): every observed file is canonical, and the parser accepts a
//!   needless escape (it then rewrites shorter). guess: PopCap's own writer is canonical.
//! * The parser checks what evaluation relies on, with the offset of the offending item:
//!   resource indices in range, sprite references without cycles, changes and removes of
//!   layers that exist. Every item consumes at least one byte, so allocation is bounded by
//!   the input size.
//!
//! Submodules: `parse`, `write`, [`eval`] (layer state, timing, draw lists), [`images`]
//! (texture lookup and placeholders), [`render`] (GE display lists, tiles).

use thiserror::Error;

pub mod encode;
pub mod eval;
pub mod images;
mod parse;
pub mod render;
pub mod synth;
mod write;

#[cfg(test)]
mod sample_tests;
#[cfg(test)]
mod tests;

pub use eval::{Affine, Draw, Player, Timeline};

/// 0xBAF01954, little-endian in the file.
pub const MAGIC: u32 = 0xBAF0_1954;
/// Twips per pixel (positions, sizes, coordinates, src-rects).
pub const TWIPS: f64 = 20.0;
/// Image matrices are i32 / (20 · 65536).
pub const IMAGE_MATRIX_SCALE: f64 = 20.0 * 65536.0;
/// Move matrices and frame rates are 16.16.
pub const FIXED: f64 = 65536.0;

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum PopcapError {
    #[error("PopCap PAM truncated at offset {offset:#x}: {what} needs {need} bytes, {have} available")]
    Truncated { offset: usize, what: &'static str, need: usize, have: usize },
    #[error("PopCap PAM bad magic {found:#010x} at offset 0 (expected 0xbaf01954)")]
    BadMagic { found: u32 },
    #[error("PopCap PAM unsupported version {version} at offset 0x4 (1 to 6 exist)")]
    Version { version: u32 },
    #[error("PopCap PAM at offset {offset:#x}: {what}")]
    Invalid { offset: usize, what: String },
    #[error("PopCap PAM has {extra} bytes after the animation at offset {offset:#x}")]
    Trailing { offset: usize, extra: usize },
    #[error("PopCap PAM cannot be written: {what}")]
    Unwritable { what: String },
    #[error("PopCap PAM evaluation: {what}")]
    Eval { what: String },
}

/// Raw bytes of a length-prefixed string (names are ASCII in practice; kept verbatim).
#[derive(Debug, Clone, PartialEq, Eq, Default, Hash, PartialOrd, Ord)]
pub struct Name(pub Vec<u8>);

impl Name {
    pub fn new(s: &str) -> Name {
        Name(s.as_bytes().to_vec())
    }
    /// Lossy UTF-8 text.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.0).into_owned()
    }
}

/// A whole PAM file.
#[derive(Debug, Clone, PartialEq)]
pub struct Animation {
    /// 1..=6.
    pub version: u32,
    /// Frames per second of the main timeline.
    pub frame_rate: u8,
    /// Twips.
    pub position: [i16; 2],
    /// Twips.
    pub size: [u16; 2],
    pub images: Vec<ImageDef>,
    pub sprites: Vec<Sprite>,
    /// Always present for versions ≤ 3; a presence flag precedes it from version 4.
    pub main_sprite: Option<Sprite>,
}

/// Image placement as stored: version 1 an angle, later versions a matrix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageTransform {
    /// Radians · 1000, then x, y in twips.
    Angle { angle: i16, xy: [i16; 2] },
    /// `[a, c, b, d]` in file order, each / (20·65536); x, y in twips.
    Matrix { acbd: [i32; 4], xy: [i16; 2] },
}

#[derive(Debug, Clone, PartialEq)]
pub struct ImageDef {
    /// `short|RESOURCE_ID` in PvZ2.
    pub name: Name,
    /// Texture size in pixels (version ≥ 4).
    pub size: Option<[i16; 2]>,
    pub transform: ImageTransform,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Sprite {
    /// Version ≥ 4.
    pub name: Option<Name>,
    /// Version 6.
    pub description: Option<Name>,
    /// 16.16 frames per second (version ≥ 4).
    pub frame_rate: Option<i32>,
    /// Raw (start, duration) as stored (version ≥ 5); see [`Sprite::work_area`].
    pub work_area: Option<[i16; 2]>,
    pub frames: Vec<Frame>,
}

/// One timeline frame; sections appear in the file in field order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Frame {
    pub removes: Option<Vec<Remove>>,
    pub appends: Option<Vec<Append>>,
    pub changes: Option<Vec<Change>>,
    pub label: Option<Name>,
    pub stop: bool,
    pub commands: Option<Vec<(Name, Name)>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Remove {
    pub layer: u32,
    /// The top 5 bits of the u16, unused by the runtime (kept raw, as bits 11-15).
    pub unused: u16,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Append {
    pub layer: u32,
    /// Index into the sprites (`sprite`) or the images.
    pub resource: u16,
    pub sprite: bool,
    pub additive: bool,
    pub preload_frames: Option<i16>,
    pub name: Option<Name>,
    /// 16.16.
    pub time_scale: Option<i32>,
}

/// The transform part of a move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Move {
    /// Translation only.
    Translate,
    /// Radians · 1000.
    Rotate(i16),
    /// `[a, c, b, d]` in file order, 16.16; `rotate_bit` = the rotate flag was also set
    /// (the matrix wins, as in the runtime's reader).
    Matrix { acbd: [i32; 4], rotate_bit: bool },
}

#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    pub layer: u32,
    pub transform: Move,
    /// Twips; stored as i32 when `long_coords`, else i16.
    pub xy: [i32; 2],
    pub long_coords: bool,
    /// x, y, w, h in twips.
    pub src_rect: Option<[i16; 4]>,
    /// R, G, B, A.
    pub color: Option<[u8; 4]>,
    pub anim_frame: Option<i16>,
}

impl ImageTransform {
    /// `[a, b, c, d, tx, ty]` in pixels (x' = a·x + c·y + tx, y' = b·x + d·y + ty).
    pub fn affine(&self) -> Affine {
        match *self {
            ImageTransform::Angle { angle, xy } => {
                let r = f64::from(angle) / 1000.0;
                let (s, c) = r.sin_cos();
                Affine([c, s, -s, c, f64::from(xy[0]) / TWIPS, f64::from(xy[1]) / TWIPS])
            }
            ImageTransform::Matrix { acbd: [a, c, b, d], xy } => Affine([
                f64::from(a) / IMAGE_MATRIX_SCALE,
                f64::from(b) / IMAGE_MATRIX_SCALE,
                f64::from(c) / IMAGE_MATRIX_SCALE,
                f64::from(d) / IMAGE_MATRIX_SCALE,
                f64::from(xy[0]) / TWIPS,
                f64::from(xy[1]) / TWIPS,
            ]),
        }
    }
}

impl ImageDef {
    /// Declared size, else the `WxH` suffix of the short name (PvZ2 names end in `_87x95`),
    /// else 64×64. guess: the fallbacks (versions < 4 store no size).
    pub fn pixel_size(&self) -> [u32; 2] {
        if let Some([w, h]) = self.size {
            return [w.max(0) as u32, h.max(0) as u32];
        }
        images::size_from_name(&self.name.text()).unwrap_or([64, 64])
    }
}

impl Sprite {
    /// Frames per second (16.16), or `fallback` (the file's rate) before version 4.
    pub fn fps(&self, fallback: u8) -> f64 {
        self.frame_rate.map_or(f64::from(fallback), |r| f64::from(r) / FIXED)
    }

    /// Work area as inclusive (first, last) frames, duration clamped as the runtime does:
    /// min(start + duration, frames − 1) − start (animation-formats.md §3.1). Without a
    /// stored work area (version < 5): the whole timeline.
    pub fn work_area(&self) -> (u32, u32) {
        let last = self.frames.len().saturating_sub(1) as i64;
        match self.work_area {
            Some([start, duration]) => {
                let start = i64::from(start).clamp(0, last);
                let end = (start + i64::from(duration)).min(last).max(start);
                (start as u32, end as u32)
            }
            None => (0, last as u32),
        }
    }

    /// Frame of the label (labels compare case-insensitively: the runtime upper-cases them).
    pub fn label_frame(&self, label: &str) -> Option<u32> {
        self.frames
            .iter()
            .position(|f| f.label.as_ref().is_some_and(|l| l.text().eq_ignore_ascii_case(label)))
            .map(|i| i as u32)
    }

    /// A clip: from the label's frame to the next frame with STOP (inclusive), else to the
    /// last frame (animation-formats.md §3.2 "Labels name entry points").
    pub fn clip(&self, label: &str) -> Option<(u32, u32)> {
        let start = self.label_frame(label)?;
        let end = (start as usize..self.frames.len())
            .find(|&i| self.frames[i].stop)
            .unwrap_or(self.frames.len().saturating_sub(1));
        Some((start, end as u32))
    }

    /// (frame, label) of every labelled frame.
    pub fn labels(&self) -> Vec<(u32, String)> {
        self.frames.iter().enumerate().filter_map(|(i, f)| f.label.as_ref().map(|l| (i as u32, l.text()))).collect()
    }
}

impl Animation {
    pub fn parse(bytes: &[u8]) -> Result<Animation, PopcapError> {
        parse::parse(bytes)
    }

    /// Serialise (canonical counts and escapes).
    pub fn to_bytes(&self) -> Result<Vec<u8>, PopcapError> {
        write::to_bytes(self)
    }

    /// Canvas size in pixels, rounded up.
    pub fn pixel_size(&self) -> [u32; 2] {
        self.size.map(|v| (f64::from(v) / TWIPS).ceil() as u32)
    }

    /// The main sprite, or an error naming the missing piece.
    pub fn main(&self) -> Result<&Sprite, PopcapError> {
        self.main_sprite.as_ref().ok_or_else(|| PopcapError::Eval { what: "the file has no main sprite".into() })
    }
}

impl Change {
    /// The move as an affine transform, rebuilt from identity (animation-formats.md §3.2:
    /// a change replaces the whole transform). `version` selects the v2 rotate quirk.
    pub fn affine(&self, version: u32) -> Affine {
        let (x, y) = (f64::from(self.xy[0]) / TWIPS, f64::from(self.xy[1]) / TWIPS);
        match self.transform {
            Move::Translate => Affine([1.0, 0.0, 0.0, 1.0, x, y]),
            Move::Rotate(r) => {
                let (s, c) = (f64::from(r) / 1000.0).sin_cos();
                // [doc §3.1 "Known quirk"] the Flash runtime flips sin for version 2 files.
                let s = if version == 2 { -s } else { s };
                Affine([c, s, -s, c, x, y])
            }
            Move::Matrix { acbd: [a, c, b, d], .. } => {
                Affine([f64::from(a) / FIXED, f64::from(b) / FIXED, f64::from(c) / FIXED, f64::from(d) / FIXED, x, y])
            }
        }
    }
}
