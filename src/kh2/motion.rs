//! KH2 motions (BAR type 9; animation-formats.md §2.1, OpenKh `anb.md`/`motion.md`/`Motion.cs`).
//!
//! Every motion starts with 0x90 reserved bytes; every offset in it counts from 0x90. The common
//! header at 0x90 holds i32 type (0 interpolated, 1 raw), i32 subtype (1 = ignore scale), i32
//! extra offset (= motion size − 0x90 without extra data) and i32 extra size.
//!
//! Raw motions ([`RawMotion`]): header at 0xA0 = i32 bone count, 3 reserved words, i32 frame
//! count (GFR ticks per loop), i32 total frames (matrix sets), u32 matrix offset, u32 position
//! matrix offset, bbox (2 × vec4), frame data (start, end, fps, return). The matrices are
//! frame-major absolute (model-space) 4×4 row-vector matrices; the position matrices run to the
//! extra offset (so their count is (extra − position offset) / 64: 4 in `raw.motion`, one per
//! frame, not one per bone as OpenKh's doc says).
//!
//! Interpolated motions: [`interp`].

use super::{Kh2Error, Put, Rd};
use serde::Serialize;

pub mod interp;

pub use interp::InterpolatedMotion;

/// Reserved bytes before the motion proper; every offset counts from here.
pub const BASE: usize = 0x90;
/// The common header (type, subtype, extra offset, extra size).
pub const COMMON_SIZE: usize = 16;
/// Raw header after the common header.
pub const RAW_HEADER_SIZE: usize = 0x50;
pub const MATRIX_SIZE: usize = 64;

/// Frame data shared by both kinds: FrameStart, FrameEnd, fps and FrameReturn (the frames in
/// the motion's own fps).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct FrameData {
    pub start: f32,
    pub end: f32,
    pub fps: f32,
    pub ret: f32,
}

impl FrameData {
    pub(crate) fn read(r: &Rd, off: usize) -> Result<FrameData, Kh2Error> {
        let [start, end, fps, ret] = r.f32s::<4>(off, "frame data")?;
        Ok(FrameData { start, end, fps, ret })
    }
    pub(crate) fn put(&self, out: &mut Vec<u8>) {
        out.put_f32s(&[self.start, self.end, self.fps, self.ret]);
    }
}

/// Bytes common to both motion kinds that the layout cannot derive.
#[derive(Debug, Clone, PartialEq)]
pub struct Common {
    /// The 0x90 bytes before the header (zero in every sample).
    pub reserved: Vec<u8>,
    /// 1 = ignore scale.
    pub subtype: i32,
    /// Extra data at the extra offset (`Extra`: type, QWC, params; empty in every sample).
    pub extra: Vec<u8>,
    /// Bytes after the extra data (none in the samples).
    pub trailing: Vec<u8>,
}

impl Common {
    pub fn new(subtype: i32) -> Common {
        Common { reserved: vec![0; BASE], subtype, extra: Vec::new(), trailing: Vec::new() }
    }

    /// (common, extra offset) of a motion of `kind`.
    fn read(r: &Rd) -> Result<(Common, usize), Kh2Error> {
        let reserved = r.need(0, BASE, "motion reserved area")?.to_vec();
        let subtype = r.i32(BASE + 4, "motion header")?;
        let extra_off = r.i32(BASE + 8, "motion header")?;
        let extra_size = r.i32(BASE + 12, "motion header")?;
        let (Ok(eo), Ok(es)) = (usize::try_from(extra_off), usize::try_from(extra_size)) else {
            return Err(Kh2Error::invalid(
                BASE + 8,
                "motion header",
                format!("negative extra {extra_off}/{extra_size}"),
            ));
        };
        let extra = r.need(BASE + eo, es, "motion extra data")?.to_vec();
        let trailing = r.b[BASE + eo + es..].to_vec();
        Ok((Common { reserved, subtype, extra, trailing }, eo))
    }

    fn header(&self, out: &mut Vec<u8>, kind: i32) -> Result<(), Kh2Error> {
        if self.reserved.len() != BASE {
            return Err(Kh2Error::Unwritable(format!("reserved area of {} bytes (must be 0x90)", self.reserved.len())));
        }
        out.extend_from_slice(&self.reserved);
        out.put_i32(kind);
        out.put_i32(self.subtype);
        out.put_i32(0); // patched by `finish`
        out.put_i32(i32::try_from(self.extra.len()).map_err(|_| Kh2Error::Unwritable("extra data of 2 GiB".into()))?);
        Ok(())
    }

    /// Patch the extra offset (the current end) and append extra data and trailing bytes.
    fn finish(&self, out: &mut Vec<u8>) -> Result<(), Kh2Error> {
        let eo = i32::try_from(out.len() - BASE).map_err(|_| Kh2Error::Unwritable("motion of 2 GiB".into()))?;
        out[BASE + 8..BASE + 12].copy_from_slice(&eo.to_le_bytes());
        out.extend_from_slice(&self.extra);
        out.extend_from_slice(&self.trailing);
        Ok(())
    }
}

// One motion per decoded file: boxing the larger variant would buy nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum Motion {
    Raw(RawMotion),
    Interpolated(InterpolatedMotion),
}

impl Motion {
    pub fn parse(bytes: &[u8]) -> Result<Motion, Kh2Error> {
        let r = Rd::new(bytes);
        match r.i32(BASE, "motion type")? {
            0 => Ok(Motion::Interpolated(InterpolatedMotion::parse(bytes)?)),
            1 => Ok(Motion::Raw(RawMotion::parse(bytes)?)),
            t => Err(Kh2Error::invalid(BASE, "motion type", format!("{t} (0 interpolated, 1 raw)"))),
        }
    }
    pub fn to_bytes(&self) -> Result<Vec<u8>, Kh2Error> {
        match self {
            Motion::Raw(m) => m.to_bytes(),
            Motion::Interpolated(m) => m.to_bytes(),
        }
    }
    /// Does `bytes` look like a bare motion (0x90 zero bytes, then type 0 or 1)?
    pub fn looks_like(bytes: &[u8]) -> bool {
        bytes.len() >= BASE + COMMON_SIZE
            && bytes[..BASE].iter().all(|&b| b == 0)
            && matches!(Rd::new(bytes).i32(BASE, ""), Ok(0 | 1))
    }
    pub fn kind_name(&self) -> &'static str {
        match self {
            Motion::Raw(_) => "raw",
            Motion::Interpolated(_) => "interpolated",
        }
    }
    pub fn frame_data(&self) -> FrameData {
        match self {
            Motion::Raw(m) => m.frame_data,
            Motion::Interpolated(m) => m.frame_data,
        }
    }
}

/// A raw motion: absolute joint matrices for every frame.
#[derive(Debug, Clone, PartialEq)]
pub struct RawMotion {
    pub common: Common,
    pub bone_count: u32,
    pub reserved: [u32; 3],
    /// GFR ticks per loop.
    pub frame_count: i32,
    pub bbox: [f32; 8],
    pub frame_data: FrameData,
    /// `frames[f][bone]`: 16 floats, row-vector row-major (= glam column-major).
    pub frames: Vec<Vec<[f32; 16]>>,
    pub position_matrices: Vec<[f32; 16]>,
}

fn matrix(r: &Rd, off: usize) -> Result<[f32; 16], Kh2Error> {
    r.f32s::<16>(off, "matrix")
}

impl RawMotion {
    pub fn parse(bytes: &[u8]) -> Result<RawMotion, Kh2Error> {
        let r = Rd::new(bytes);
        let h = BASE + COMMON_SIZE;
        r.need(h, RAW_HEADER_SIZE, "raw motion header")?;
        let (common, extra_off) = Common::read(&r)?;
        let bone_count = r.u32(h, "raw bone count")?;
        let reserved = [r.u32(h + 4, "")?, r.u32(h + 8, "")?, r.u32(h + 12, "")?];
        let frame_count = r.i32(h + 0x10, "")?;
        let total = r.u32(h + 0x14, "")?;
        let mtx_off = r.u32(h + 0x18, "")? as usize;
        let pos_off = r.u32(h + 0x1C, "")? as usize;
        let bbox = r.f32s::<8>(h + 0x20, "bbox")?;
        let frame_data = FrameData::read(&r, h + 0x40)?;
        let per_frame = bone_count as usize;
        // Zero bones still cost a Vec per frame: bound the frame count by the file size too.
        let n = (total as usize)
            .checked_mul(per_frame)
            .filter(|&n| n <= bytes.len() / MATRIX_SIZE && total as usize <= bytes.len());
        let Some(n) = n else {
            return Err(Kh2Error::Absurd {
                offset: h + 0x14,
                what: "raw matrix count (frames × bones)",
                value: i64::from(total) * i64::from(bone_count),
            });
        };
        let all = r.table(BASE + mtx_off, n, MATRIX_SIZE, "raw matrices", |o| matrix(&r, o))?;
        let frames = if per_frame == 0 {
            vec![Vec::new(); total as usize]
        } else {
            all.chunks(per_frame).map(<[_]>::to_vec).collect()
        };
        let position_matrices = if pos_off == 0 {
            Vec::new()
        } else {
            if pos_off > extra_off || !(extra_off - pos_off).is_multiple_of(MATRIX_SIZE) {
                return Err(Kh2Error::invalid(
                    h + 0x1C,
                    "raw position matrix offset",
                    format!("{pos_off:#x} is not a whole number of matrices before the extra offset {extra_off:#x}"),
                ));
            }
            let count = (extra_off - pos_off) / MATRIX_SIZE;
            r.table(BASE + pos_off, count, MATRIX_SIZE, "position matrices", |o| matrix(&r, o))?
        };
        Ok(RawMotion { common, bone_count, reserved, frame_count, bbox, frame_data, frames, position_matrices })
    }

    pub fn to_bytes(&self) -> Result<Vec<u8>, Kh2Error> {
        let bones = self.bone_count as usize;
        if let Some((f, m)) = self.frames.iter().enumerate().find(|(_, m)| m.len() != bones) {
            return Err(Kh2Error::Unwritable(format!("raw frame {f} has {} matrices for {bones} bones", m.len())));
        }
        let total = u32::try_from(self.frames.len()).map_err(|_| Kh2Error::Unwritable("too many frames".into()))?;
        let mut out = Vec::new();
        self.common.header(&mut out, 1)?;
        out.put_u32(self.bone_count);
        self.reserved.iter().for_each(|&w| out.put_u32(w));
        out.put_i32(self.frame_count);
        out.put_u32(total);
        let mtx_off = COMMON_SIZE + RAW_HEADER_SIZE;
        let pos_off = mtx_off + MATRIX_SIZE * bones * self.frames.len();
        out.put_u32(mtx_off as u32);
        out.put_u32(if self.position_matrices.is_empty() { 0 } else { pos_off as u32 });
        out.put_f32s(&self.bbox);
        self.frame_data.put(&mut out);
        for m in self.frames.iter().flatten().chain(&self.position_matrices) {
            out.put_f32s(m);
        }
        self.common.finish(&mut out)?;
        Ok(out)
    }

    /// Matrices of every bone at LFR frame `frame` (the motion's own fps): stored matrices
    /// exactly at integer frames; in between, each of the 16 floats interpolated linearly
    /// (guess: how the game blends raw frames is not documented). Clamped to the stored frames.
    pub fn matrices_at(&self, frame: f32) -> Vec<glam::Mat4> {
        let last = self.frames.len().saturating_sub(1);
        let f = if frame.is_finite() { frame.clamp(0.0, last as f32) } else { 0.0 };
        let i = (f.floor() as usize).min(last);
        let s = f - i as f32;
        let Some(a) = self.frames.get(i) else { return Vec::new() };
        let b = self.frames.get(i + 1).unwrap_or(a);
        a.iter()
            .zip(b)
            .map(|(ma, mb)| {
                let m: [f32; 16] = if s == 0.0 { *ma } else { std::array::from_fn(|k| ma[k] + (mb[k] - ma[k]) * s) };
                glam::Mat4::from_cols_array(&m)
            })
            .collect()
    }
}
