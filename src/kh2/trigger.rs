//! Motion triggers (BAR type 16; animation-formats.md §2.1 "Triggers", OpenKh
//! `MotionTrigger.cs`): u8 range-trigger count, u8 frame-trigger count, u16 offset of the frame
//! triggers; range trigger = i16 start, i16 end, u8 id, u8 parameter count, i16 parameters;
//! frame trigger = i16 frame, u8 id, u8 parameter count, i16 parameters. Listed, not
//! interpreted (they drive gameplay, sound and effects, not poses).
//!
//! Bytes between the last range trigger and the frame-trigger offset, and after the last
//! frame trigger, are kept raw so any file rewrites byte for byte.

use super::{Kh2Error, Put, Rd};
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RangeTrigger {
    pub start: i16,
    pub end: i16,
    pub id: u8,
    pub params: Vec<i16>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FrameTrigger {
    pub frame: i16,
    pub id: u8,
    pub params: Vec<i16>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct Triggers {
    pub range: Vec<RangeTrigger>,
    pub frame: Vec<FrameTrigger>,
    /// Bytes between the range triggers and the frame-trigger offset (none in the sample).
    pub gap: Vec<u8>,
    /// Bytes after the last frame trigger (none in the sample).
    pub trailing: Vec<u8>,
}

/// (first field, id, params) of one trigger record and its end offset.
fn record(r: &Rd, off: usize, what: &'static str, head: usize) -> Result<(Vec<i16>, u8, Vec<i16>, usize), Kh2Error> {
    let fields = r.table(off, head, 2, what, |o| r.i16(o, what))?;
    let id = r.u8(off + 2 * head, what)?;
    let n = r.u8(off + 2 * head + 1, what)? as usize;
    let p = off + 2 * head + 2;
    let params = r.table(p, n, 2, what, |o| r.i16(o, what))?;
    Ok((fields, id, params, p + 2 * n))
}

impl Triggers {
    pub fn parse(bytes: &[u8]) -> Result<Triggers, Kh2Error> {
        let r = Rd::new(bytes);
        let nr = r.u8(0, "trigger header")?;
        let nf = r.u8(1, "trigger header")?;
        let foff = r.u16(2, "trigger header")? as usize;
        let mut at = 4;
        let mut range = Vec::with_capacity(nr.into());
        for _ in 0..nr {
            let (f, id, params, end) = record(&r, at, "range trigger", 2)?;
            range.push(RangeTrigger { start: f[0], end: f[1], id, params });
            at = end;
        }
        if foff < at {
            return Err(Kh2Error::invalid(
                2,
                "trigger header",
                format!("frame-trigger offset {foff:#x} lies inside the range triggers (ending at {at:#x})"),
            ));
        }
        let gap = r.need(at, foff - at, "trigger gap")?.to_vec();
        at = foff;
        let mut frame = Vec::with_capacity(nf.into());
        for _ in 0..nf {
            let (f, id, params, end) = record(&r, at, "frame trigger", 1)?;
            frame.push(FrameTrigger { frame: f[0], id, params });
            at = end;
        }
        Ok(Triggers { range, frame, gap, trailing: bytes[at..].to_vec() })
    }

    pub fn to_bytes(&self) -> Result<Vec<u8>, Kh2Error> {
        let too_many = |what: &str, n: usize| Kh2Error::Unwritable(format!("{n} {what} (at most 255)"));
        let nr = u8::try_from(self.range.len()).map_err(|_| too_many("range triggers", self.range.len()))?;
        let nf = u8::try_from(self.frame.len()).map_err(|_| too_many("frame triggers", self.frame.len()))?;
        let mut out = vec![nr, nf, 0, 0];
        let params = |out: &mut Vec<u8>, id: u8, p: &[i16]| -> Result<(), Kh2Error> {
            out.push(id);
            out.push(u8::try_from(p.len()).map_err(|_| too_many("trigger parameters", p.len()))?);
            p.iter().for_each(|&v| out.put_i16(v));
            Ok(())
        };
        for t in &self.range {
            out.put_i16(t.start);
            out.put_i16(t.end);
            params(&mut out, t.id, &t.params)?;
        }
        out.extend_from_slice(&self.gap);
        let foff = u16::try_from(out.len()).map_err(|_| Kh2Error::Unwritable("range triggers past 64 KiB".into()))?;
        out[2..4].copy_from_slice(&foff.to_le_bytes());
        for t in &self.frame {
            out.put_i16(t.frame);
            params(&mut out, t.id, &t.params)?;
        }
        out.extend_from_slice(&self.trailing);
        Ok(out)
    }
}
