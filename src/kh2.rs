//! Kingdom Hearts II motions (animation-formats.md §2): the BAR container and its MSET/ANB uses,
//! motion triggers, raw and interpolated motions (strict parsers whose errors name byte
//! offsets, writers with `write(parse(b)) == b` for every canonical file), evaluation to joint
//! channels and matrices ([`eval`]), skeletons from MDLX bone tables or JSON ([`skeleton`]) and
//! posed skeletons drawn through the GE ([`render`]).
//!
//! Design:
//! * Every table is kept as stored (indices, not resolved values), so the writer reproduces the
//!   bytes; the layout (offsets, counts, alignment) is derived by the writer the way OpenKh's
//!   `Motion.cs` / `Bar.cs` lay files out, which all four public samples follow. Bytes the
//!   layout cannot derive (the 0x90 reserved block, trigger gaps) are kept raw.
//! * Counts the header does not store are derived as the format implies: keys, values and
//!   tangents from the distance to the next table, activations and limiters from the largest
//!   index a constraint references, position matrices from the distance to the extra data.
//! * Parsing validates every cross-reference (curve key ranges, value/time/tangent indices,
//!   joint ids, constraint joints), so evaluation never indexes out of range; writers refuse
//!   what a parser would read back differently.
//!
//! Submodules: [`bar`] (BAR, MSET, ANB), [`trigger`], [`motion`] (common header, raw and
//! interpolated motions), [`eval`] (F-curves, timing, pose), [`constraint`] (best effort, off by
//! default), [`skeleton`], [`render`], and
//! [`synth`] (writer-side construction for tests and goldens).

use thiserror::Error;

pub mod bar;
pub mod constraint;
pub mod eval;
pub mod motion;
pub mod render;
pub mod skeleton;
pub mod synth;
pub mod trigger;

#[cfg(test)]
mod hostile_tests;
#[cfg(test)]
mod sample_tests;
#[cfg(test)]
mod tests;

pub use bar::{Bar, BarEntry, EntryKind};
pub use motion::{InterpolatedMotion, Motion, RawMotion};
pub use skeleton::Skeleton;
pub use trigger::Triggers;

/// A parse or write error; parse errors name the byte offset (from the start of the parsed
/// buffer) where the problem is.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum Kh2Error {
    #[error("truncated at offset {offset:#x}: {what} needs {need} bytes, {have} available")]
    Truncated { offset: usize, what: &'static str, need: usize, have: usize },
    #[error("bad magic at offset {offset:#x}: {found:02x?} ({expected})")]
    BadMagic { offset: usize, found: [u8; 4], expected: &'static str },
    #[error("{what} at offset {offset:#x}: {detail}")]
    Invalid { offset: usize, what: &'static str, detail: String },
    #[error("absurd {what} {value} at offset {offset:#x}")]
    Absurd { offset: usize, what: &'static str, value: i64 },
    #[error("cannot write: {0}")]
    Unwritable(String),
}

impl Kh2Error {
    pub(crate) fn invalid(offset: usize, what: &'static str, detail: impl Into<String>) -> Kh2Error {
        Kh2Error::Invalid { offset, what, detail: detail.into() }
    }
    /// The same error with every offset moved by `base` (for data nested in a container).
    pub fn shifted(self, base: usize) -> Kh2Error {
        match self {
            Kh2Error::Truncated { offset, what, need, have } => {
                Kh2Error::Truncated { offset: offset + base, what, need, have }
            }
            Kh2Error::BadMagic { offset, found, expected } => {
                Kh2Error::BadMagic { offset: offset + base, found, expected }
            }
            Kh2Error::Invalid { offset, what, detail } => Kh2Error::Invalid { offset: offset + base, what, detail },
            Kh2Error::Absurd { offset, what, value } => Kh2Error::Absurd { offset: offset + base, what, value },
            e @ Kh2Error::Unwritable(_) => e,
        }
    }
}

/// Bounds-checked little-endian reads over one buffer; every failure names the offset.
#[derive(Clone, Copy)]
pub(crate) struct Rd<'a> {
    pub b: &'a [u8],
}

impl<'a> Rd<'a> {
    pub fn new(b: &'a [u8]) -> Self {
        Rd { b }
    }
    pub fn need(&self, off: usize, n: usize, what: &'static str) -> Result<&'a [u8], Kh2Error> {
        off.checked_add(n).and_then(|e| self.b.get(off..e)).ok_or(Kh2Error::Truncated {
            offset: off,
            what,
            need: n,
            have: self.b.len().saturating_sub(off),
        })
    }
    pub fn arr<const N: usize>(&self, off: usize, what: &'static str) -> Result<[u8; N], Kh2Error> {
        let s = self.need(off, N, what)?;
        let mut a = [0; N];
        a.copy_from_slice(s);
        Ok(a)
    }
    pub fn u8(&self, off: usize, what: &'static str) -> Result<u8, Kh2Error> {
        Ok(self.arr::<1>(off, what)?[0])
    }
    pub fn u16(&self, off: usize, what: &'static str) -> Result<u16, Kh2Error> {
        self.arr(off, what).map(u16::from_le_bytes)
    }
    pub fn i16(&self, off: usize, what: &'static str) -> Result<i16, Kh2Error> {
        self.arr(off, what).map(i16::from_le_bytes)
    }
    pub fn u32(&self, off: usize, what: &'static str) -> Result<u32, Kh2Error> {
        self.arr(off, what).map(u32::from_le_bytes)
    }
    pub fn i32(&self, off: usize, what: &'static str) -> Result<i32, Kh2Error> {
        self.arr(off, what).map(i32::from_le_bytes)
    }
    pub fn f32(&self, off: usize, what: &'static str) -> Result<f32, Kh2Error> {
        self.arr(off, what).map(f32::from_le_bytes)
    }
    pub fn f32s<const N: usize>(&self, off: usize, what: &'static str) -> Result<[f32; N], Kh2Error> {
        self.need(off, 4 * N, what)?;
        let mut a = [0.0; N];
        for (i, v) in a.iter_mut().enumerate() {
            *v = self.f32(off + 4 * i, what)?;
        }
        Ok(a)
    }
    /// `count` records of `size` bytes at `off`, checked against the buffer before anything
    /// is allocated; `read` decodes one record at its offset.
    pub fn table<T>(
        &self,
        off: usize,
        count: usize,
        size: usize,
        what: &'static str,
        mut read: impl FnMut(usize) -> Result<T, Kh2Error>,
    ) -> Result<Vec<T>, Kh2Error> {
        let bytes = count.checked_mul(size).ok_or(Kh2Error::Absurd { offset: off, what, value: count as i64 })?;
        self.need(off, bytes, what)?;
        (0..count).map(|i| read(off + i * size)).collect()
    }
}

/// Little-endian appends.
pub(crate) trait Put {
    fn put_u16(&mut self, v: u16);
    fn put_i16(&mut self, v: i16);
    fn put_u32(&mut self, v: u32);
    fn put_i32(&mut self, v: i32);
    fn put_f32(&mut self, v: f32);
    fn put_f32s(&mut self, v: &[f32]);
    fn align_to(&mut self, n: usize);
}

impl Put for Vec<u8> {
    fn put_u16(&mut self, v: u16) {
        self.extend_from_slice(&v.to_le_bytes());
    }
    fn put_i16(&mut self, v: i16) {
        self.extend_from_slice(&v.to_le_bytes());
    }
    fn put_u32(&mut self, v: u32) {
        self.extend_from_slice(&v.to_le_bytes());
    }
    fn put_i32(&mut self, v: i32) {
        self.extend_from_slice(&v.to_le_bytes());
    }
    fn put_f32(&mut self, v: f32) {
        self.extend_from_slice(&v.to_le_bytes());
    }
    fn put_f32s(&mut self, v: &[f32]) {
        for &x in v {
            self.put_f32(x);
        }
    }
    fn align_to(&mut self, n: usize) {
        while !self.len().is_multiple_of(n) {
            self.push(0);
        }
    }
}
