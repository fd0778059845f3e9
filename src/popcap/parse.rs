//! PopCap PAM reader (animation-formats.md §3.1). A cursor checks every read against the
//! bytes left; structural checks (resource ranges, sprite cycles, layer existence) name the
//! offset of the item that breaks them.

use super::*;

struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], PopcapError> {
        match self.at.checked_add(n).filter(|&e| e <= self.b.len()) {
            Some(end) => {
                let s = &self.b[self.at..end];
                self.at = end;
                Ok(s)
            }
            None => Err(PopcapError::Truncated {
                offset: self.at,
                what,
                need: n,
                have: self.b.len().saturating_sub(self.at),
            }),
        }
    }
    fn arr<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N], PopcapError> {
        let s = self.take(N, what)?;
        let mut a = [0u8; N];
        a.copy_from_slice(s);
        Ok(a)
    }
    fn u8(&mut self, what: &'static str) -> Result<u8, PopcapError> {
        Ok(self.arr::<1>(what)?[0])
    }
    fn u16(&mut self, what: &'static str) -> Result<u16, PopcapError> {
        self.arr(what).map(u16::from_le_bytes)
    }
    fn i16(&mut self, what: &'static str) -> Result<i16, PopcapError> {
        self.arr(what).map(i16::from_le_bytes)
    }
    fn u32(&mut self, what: &'static str) -> Result<u32, PopcapError> {
        self.arr(what).map(u32::from_le_bytes)
    }
    fn i32(&mut self, what: &'static str) -> Result<i32, PopcapError> {
        self.arr(what).map(i32::from_le_bytes)
    }
    fn string(&mut self, what: &'static str) -> Result<Name, PopcapError> {
        let n = self.u16(what)?;
        Ok(Name(self.take(usize::from(n), what)?.to_vec()))
    }
    /// A u8 count, 255 = a u16 follows.
    fn count(&mut self, what: &'static str) -> Result<usize, PopcapError> {
        match self.u8(what)? {
            255 => Ok(usize::from(self.u16(what)?)),
            n => Ok(usize::from(n)),
        }
    }
    fn invalid<T>(&self, offset: usize, what: String) -> Result<T, PopcapError> {
        Err(PopcapError::Invalid { offset, what })
    }
}

/// Where each sprite reference was read, for the cycle check.
struct SpriteRef {
    from: Option<usize>,
    to: usize,
    offset: usize,
}

pub(super) fn parse(b: &[u8]) -> Result<Animation, PopcapError> {
    let mut r = Reader { b, at: 0 };
    let magic = r.u32("magic")?;
    if magic != MAGIC {
        return Err(PopcapError::BadMagic { found: magic });
    }
    let version = r.u32("version")?;
    if !(1..=6).contains(&version) {
        return Err(PopcapError::Version { version });
    }
    let frame_rate = r.u8("frame rate")?;
    let position = [r.i16("position")?, r.i16("position")?];
    let size = [r.u16("size")?, r.u16("size")?];
    let image_count = usize::from(r.u16("image count")?);
    let mut images = Vec::new();
    for _ in 0..image_count {
        images.push(image(&mut r, version)?);
    }
    let sprite_count = usize::from(r.u16("sprite count")?);
    let mut sprites = Vec::new();
    let mut refs = Vec::new();
    let counts = (image_count, sprite_count);
    for i in 0..sprite_count {
        sprites.push(sprite(&mut r, version, counts, Some(i), &mut refs)?);
    }
    let present = if version <= 3 {
        true
    } else {
        let at = r.at;
        match r.u8("main sprite flag")? {
            0 => false,
            1 => true,
            v => return r.invalid(at, format!("main sprite flag {v} (0 or 1)")),
        }
    };
    let main_sprite = if present { Some(sprite(&mut r, version, counts, None, &mut refs)?) } else { None };
    if r.at != b.len() {
        return Err(PopcapError::Trailing { offset: r.at, extra: b.len() - r.at });
    }
    check_cycles(sprite_count, &refs)?;
    Ok(Animation { version, frame_rate, position, size, images, sprites, main_sprite })
}

fn image(r: &mut Reader, version: u32) -> Result<ImageDef, PopcapError> {
    let name = r.string("image name")?;
    let size = if version >= 4 { Some([r.i16("image size")?, r.i16("image size")?]) } else { None };
    let transform = if version == 1 {
        let angle = r.i16("image angle")?;
        ImageTransform::Angle { angle, xy: [r.i16("image x")?, r.i16("image y")?] }
    } else {
        let mut acbd = [0i32; 4];
        for v in &mut acbd {
            *v = r.i32("image matrix")?;
        }
        ImageTransform::Matrix { acbd, xy: [r.i16("image x")?, r.i16("image y")?] }
    };
    Ok(ImageDef { name, size, transform })
}

fn sprite(
    r: &mut Reader,
    version: u32,
    counts: (usize, usize),
    index: Option<usize>,
    refs: &mut Vec<SpriteRef>,
) -> Result<Sprite, PopcapError> {
    let (name, description, frame_rate) = if version >= 4 {
        let name = r.string("sprite name")?;
        let description = if version >= 6 { Some(r.string("sprite description")?) } else { None };
        (Some(name), description, Some(r.i32("sprite frame rate")?))
    } else {
        (None, None, None)
    };
    let frame_count = usize::from(r.u16("frame count")?);
    let work_area = if version >= 5 { Some([r.i16("work area")?, r.i16("work area")?]) } else { None };
    // Live layers while reading, for the existence checks.
    let mut live = std::collections::BTreeSet::new();
    let mut frames = Vec::new();
    for _ in 0..frame_count {
        frames.push(frame(r, version, counts, index, refs, &mut live)?);
    }
    Ok(Sprite { name, description, frame_rate, work_area, frames })
}

fn frame(
    r: &mut Reader,
    version: u32,
    (images, sprites): (usize, usize),
    owner: Option<usize>,
    refs: &mut Vec<SpriteRef>,
    live: &mut std::collections::BTreeSet<u32>,
) -> Result<Frame, PopcapError> {
    let at = r.at;
    let flags = r.u8("frame flags")?;
    if flags & 0xC0 != 0 {
        return r.invalid(at, format!("frame flags {flags:#04x} use bits 6-7, which no version defines"));
    }
    let mut f = Frame { stop: flags & 16 != 0, ..Frame::default() };
    if flags & 1 != 0 {
        let mut v = Vec::new();
        for _ in 0..r.count("remove count")? {
            let at = r.at;
            let w = r.u16("remove")?;
            // [doc §3.1 Remove] low 11 bits, 0x7FF escapes to a u32; the top 5 bits are unused.
            let layer = if w & 0x7FF == 0x7FF { r.u32("remove index")? } else { u32::from(w & 0x7FF) };
            if !live.remove(&layer) {
                return r.invalid(at, format!("remove of layer {layer}, which is not present"));
            }
            v.push(Remove { layer, unused: w & 0xF800 });
        }
        f.removes = Some(v);
    }
    if flags & 2 != 0 {
        let mut v = Vec::new();
        for _ in 0..r.count("append count")? {
            let at = r.at;
            let w = r.u16("append")?;
            let layer = if w & 0x7FF == 0x7FF { r.u32("append index")? } else { u32::from(w & 0x7FF) };
            let resource = match r.u8("append resource")? {
                255 if version >= 6 => r.u16("append resource")?,
                n => u16::from(n),
            };
            let sprite = w & 0x8000 != 0;
            let (limit, kind) = if sprite { (sprites, "sprite") } else { (images, "image") };
            if usize::from(resource) >= limit {
                return r.invalid(at, format!("layer {layer} uses {kind} {resource}, but there are {limit}"));
            }
            if sprite {
                refs.push(SpriteRef { from: owner, to: usize::from(resource), offset: at });
            }
            let preload_frames = if w & 0x2000 != 0 { Some(r.i16("preload frames")?) } else { None };
            let name = if w & 0x1000 != 0 { Some(r.string("layer name")?) } else { None };
            let time_scale = if w & 0x0800 != 0 { Some(r.i32("time scale")?) } else { None };
            live.insert(layer);
            v.push(Append { layer, resource, sprite, additive: w & 0x4000 != 0, preload_frames, name, time_scale });
        }
        f.appends = Some(v);
    }
    if flags & 4 != 0 {
        let mut v = Vec::new();
        for _ in 0..r.count("change count")? {
            let at = r.at;
            let w = r.u16("change")?;
            // [doc §3.1 Change] low 10 bits, 0x3FF escapes to a u32.
            let layer = if w & 0x3FF == 0x3FF { r.u32("change index")? } else { u32::from(w & 0x3FF) };
            if !live.contains(&layer) {
                return r.invalid(at, format!("change of layer {layer}, which is not present"));
            }
            let transform = if w & 0x1000 != 0 {
                let mut acbd = [0i32; 4];
                for x in &mut acbd {
                    *x = r.i32("change matrix")?;
                }
                Move::Matrix { acbd, rotate_bit: w & 0x4000 != 0 }
            } else if w & 0x4000 != 0 {
                Move::Rotate(r.i16("change angle")?)
            } else {
                Move::Translate
            };
            let long_coords = w & 0x0800 != 0;
            let xy = if long_coords {
                [r.i32("change x")?, r.i32("change y")?]
            } else {
                [i32::from(r.i16("change x")?), i32::from(r.i16("change y")?)]
            };
            let src_rect = if w & 0x8000 != 0 {
                Some([r.i16("src rect")?, r.i16("src rect")?, r.i16("src rect")?, r.i16("src rect")?])
            } else {
                None
            };
            let color = if w & 0x2000 != 0 { Some(r.arr::<4>("colour")?) } else { None };
            let anim_frame = if w & 0x0400 != 0 { Some(r.i16("anim frame")?) } else { None };
            v.push(Change { layer, transform, xy, long_coords, src_rect, color, anim_frame });
        }
        f.changes = Some(v);
    }
    if flags & 8 != 0 {
        f.label = Some(r.string("label")?);
    }
    if flags & 32 != 0 {
        let n = r.u8("command count")?;
        let mut v = Vec::new();
        for _ in 0..n {
            v.push((r.string("command")?, r.string("command argument")?));
        }
        f.commands = Some(v);
    }
    Ok(f)
}

/// Sprite references must form no cycle (a sprite drawing itself would recurse forever).
fn check_cycles(sprites: usize, refs: &[SpriteRef]) -> Result<(), PopcapError> {
    let mut edges: Vec<Vec<(usize, usize)>> = vec![Vec::new(); sprites];
    for r in refs {
        if let Some(from) = r.from {
            edges[from].push((r.to, r.offset));
        }
    }
    // Iterative DFS, colours 0 new, 1 on stack, 2 done.
    let mut colour = vec![0u8; sprites];
    for root in 0..sprites {
        if colour[root] != 0 {
            continue;
        }
        let mut stack = vec![(root, 0usize)];
        colour[root] = 1;
        while let Some(&mut (node, ref mut next)) = stack.last_mut() {
            if let Some(&(to, offset)) = edges[node].get(*next) {
                *next += 1;
                match colour[to] {
                    0 => {
                        colour[to] = 1;
                        stack.push((to, 0));
                    }
                    1 => {
                        return Err(PopcapError::Invalid {
                            offset,
                            what: format!("sprite {node} draws sprite {to}, which (indirectly) draws sprite {node}"),
                        })
                    }
                    _ => {}
                }
            } else {
                colour[node] = 2;
                stack.pop();
            }
        }
    }
    Ok(())
}
