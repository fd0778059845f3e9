//! PopCap PAM writer: the inverse of the parser for canonically encoded files. Values the
//! chosen version cannot store (a size before version 4, a matrix in a version-1 image,
//! coordinates beyond i16 without `long_coords`, a resource above 255 before version 6)
//! are refused with [`PopcapError::Unwritable`] rather than written wrongly.

use super::*;

struct Out {
    v: Vec<u8>,
    version: u32,
}

type R = Result<(), PopcapError>;

fn bad<T>(what: String) -> Result<T, PopcapError> {
    Err(PopcapError::Unwritable { what })
}

impl Out {
    fn u8(&mut self, x: u8) {
        self.v.push(x);
    }
    fn u16(&mut self, x: u16) {
        self.v.extend_from_slice(&x.to_le_bytes());
    }
    fn i16(&mut self, x: i16) {
        self.v.extend_from_slice(&x.to_le_bytes());
    }
    fn u32(&mut self, x: u32) {
        self.v.extend_from_slice(&x.to_le_bytes());
    }
    fn i32(&mut self, x: i32) {
        self.v.extend_from_slice(&x.to_le_bytes());
    }
    fn string(&mut self, s: &Name, what: &str) -> R {
        let Ok(n) = u16::try_from(s.0.len()) else {
            return bad(format!("{what} is {} bytes long (at most 65535)", s.0.len()));
        };
        self.u16(n);
        self.v.extend_from_slice(&s.0);
        Ok(())
    }
    /// u8, or 255 + u16.
    fn count(&mut self, n: usize, what: &str) -> R {
        match n {
            0..=254 => self.u8(n as u8),
            255..=0xFFFF => {
                self.u8(255);
                self.u16(n as u16);
            }
            _ => return bad(format!("{n} {what} (at most 65535)")),
        }
        Ok(())
    }
    /// `flags | index` with an escape (all-ones index field, then u32) when it does not fit.
    fn index(&mut self, flags: u16, index: u32, field: u16) {
        if index < u32::from(field) {
            self.u16(flags | index as u16);
        } else {
            self.u16(flags | field);
            self.u32(index);
        }
    }
}

pub(super) fn to_bytes(a: &Animation) -> Result<Vec<u8>, PopcapError> {
    let version = a.version;
    if !(1..=6).contains(&version) {
        return bad(format!("version {version} (1 to 6 exist)"));
    }
    let mut o = Out { v: Vec::new(), version };
    o.u32(MAGIC);
    o.u32(version);
    o.u8(a.frame_rate);
    o.i16(a.position[0]);
    o.i16(a.position[1]);
    o.u16(a.size[0]);
    o.u16(a.size[1]);
    let Ok(n) = u16::try_from(a.images.len()) else { return bad(format!("{} images", a.images.len())) };
    o.u16(n);
    for (i, img) in a.images.iter().enumerate() {
        image(&mut o, img).map_err(|e| context(e, &format!("image {i}")))?;
    }
    let Ok(n) = u16::try_from(a.sprites.len()) else { return bad(format!("{} sprites", a.sprites.len())) };
    o.u16(n);
    for (i, s) in a.sprites.iter().enumerate() {
        sprite(&mut o, s).map_err(|e| context(e, &format!("sprite {i}")))?;
    }
    match (&a.main_sprite, version >= 4) {
        (None, false) => return bad(format!("version {version} always has a main sprite")),
        (None, true) => o.u8(0),
        (Some(s), v4) => {
            if v4 {
                o.u8(1);
            }
            sprite(&mut o, s).map_err(|e| context(e, "main sprite"))?;
        }
    }
    Ok(o.v)
}

fn context(e: PopcapError, what: &str) -> PopcapError {
    match e {
        PopcapError::Unwritable { what: w } => PopcapError::Unwritable { what: format!("{what}: {w}") },
        e => e,
    }
}

fn image(o: &mut Out, img: &ImageDef) -> R {
    o.string(&img.name, "name")?;
    match (img.size, o.version >= 4) {
        (Some([w, h]), true) => {
            o.i16(w);
            o.i16(h);
        }
        (None, false) => {}
        (s, _) => return bad(format!("size {s:?} does not match version {}", o.version)),
    }
    match (img.transform, o.version == 1) {
        (ImageTransform::Angle { angle, xy }, true) => {
            o.i16(angle);
            o.i16(xy[0]);
            o.i16(xy[1]);
        }
        (ImageTransform::Matrix { acbd, xy }, false) => {
            acbd.iter().for_each(|&v| o.i32(v));
            o.i16(xy[0]);
            o.i16(xy[1]);
        }
        _ => {
            return bad(format!("version {} needs {}", o.version, if o.version == 1 { "an angle" } else { "a matrix" }))
        }
    }
    Ok(())
}

fn sprite(o: &mut Out, s: &Sprite) -> R {
    let v = o.version;
    match (&s.name, &s.description, s.frame_rate) {
        (Some(n), d, Some(rate)) if v >= 4 && d.is_some() == (v >= 6) => {
            o.string(n, "name")?;
            if let Some(d) = d {
                o.string(d, "description")?;
            }
            o.i32(rate);
        }
        (None, None, None) if v < 4 => {}
        _ => return bad(format!("name/description/frame rate presence does not match version {v}")),
    }
    let Ok(n) = u16::try_from(s.frames.len()) else { return bad(format!("{} frames", s.frames.len())) };
    o.u16(n);
    match (s.work_area, v >= 5) {
        (Some([a, b]), true) => {
            o.i16(a);
            o.i16(b);
        }
        (None, false) => {}
        _ => return bad(format!("work area presence does not match version {v}")),
    }
    for (i, f) in s.frames.iter().enumerate() {
        frame(o, f).map_err(|e| context(e, &format!("frame {i}")))?;
    }
    Ok(())
}

fn frame(o: &mut Out, f: &Frame) -> R {
    let flags = u8::from(f.removes.is_some())
        | u8::from(f.appends.is_some()) << 1
        | u8::from(f.changes.is_some()) << 2
        | u8::from(f.label.is_some()) << 3
        | u8::from(f.stop) << 4
        | u8::from(f.commands.is_some()) << 5;
    o.u8(flags);
    if let Some(v) = &f.removes {
        o.count(v.len(), "removes")?;
        for r in v {
            if r.unused & 0x07FF != 0 {
                return bad(format!("remove of layer {}: unused bits {:#06x} overlap the index", r.layer, r.unused));
            }
            o.index(r.unused, r.layer, 0x7FF);
        }
    }
    if let Some(v) = &f.appends {
        o.count(v.len(), "appends")?;
        for a in v {
            let flags = u16::from(a.sprite) << 15
                | u16::from(a.additive) << 14
                | u16::from(a.preload_frames.is_some()) << 13
                | u16::from(a.name.is_some()) << 12
                | u16::from(a.time_scale.is_some()) << 11;
            o.index(flags, a.layer, 0x7FF);
            match (a.resource, o.version >= 6) {
                (0..=254, _) => o.u8(a.resource as u8),
                (255, false) => o.u8(255),
                (r, true) => {
                    o.u8(255);
                    o.u16(r);
                }
                (r, false) => return bad(format!("layer {}: resource {r} needs version 6", a.layer)),
            }
            if let Some(p) = a.preload_frames {
                o.i16(p);
            }
            if let Some(n) = &a.name {
                o.string(n, "layer name")?;
            }
            if let Some(t) = a.time_scale {
                o.i32(t);
            }
        }
    }
    if let Some(v) = &f.changes {
        o.count(v.len(), "changes")?;
        for c in v {
            let (matrix, rotate) = match c.transform {
                Move::Translate => (false, false),
                Move::Rotate(_) => (false, true),
                Move::Matrix { rotate_bit, .. } => (true, rotate_bit),
            };
            let flags = u16::from(c.src_rect.is_some()) << 15
                | u16::from(rotate) << 14
                | u16::from(c.color.is_some()) << 13
                | u16::from(matrix) << 12
                | u16::from(c.long_coords) << 11
                | u16::from(c.anim_frame.is_some()) << 10;
            o.index(flags, c.layer, 0x3FF);
            match c.transform {
                Move::Translate => {}
                Move::Rotate(r) => o.i16(r),
                Move::Matrix { acbd, .. } => acbd.iter().for_each(|&v| o.i32(v)),
            }
            if c.long_coords {
                c.xy.iter().for_each(|&v| o.i32(v));
            } else {
                for v in c.xy {
                    let Ok(v) = i16::try_from(v) else {
                        return bad(format!("layer {}: coordinate {v} needs long coordinates", c.layer));
                    };
                    o.i16(v);
                }
            }
            if let Some(r) = c.src_rect {
                r.iter().for_each(|&v| o.i16(v));
            }
            if let Some(col) = c.color {
                o.v.extend_from_slice(&col);
            }
            if let Some(n) = c.anim_frame {
                o.i16(n);
            }
        }
    }
    if let Some(l) = &f.label {
        o.string(l, "label")?;
    }
    if let Some(v) = &f.commands {
        let Ok(n) = u8::try_from(v.len()) else { return bad(format!("{} commands (at most 255)", v.len())) };
        o.u8(n);
        for (c, arg) in v {
            o.string(c, "command")?;
            o.string(arg, "command argument")?;
        }
    }
    Ok(())
}
