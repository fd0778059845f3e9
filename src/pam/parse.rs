//! PAM reader. Every count is checked against the bytes left before anything is allocated,
//! so hostile files fail with an offset instead of allocating or panicking.

use super::*;
use crate::tim2::le;

fn need(b: &[u8], off: usize, n: usize, what: &'static str) -> Result<(), PamError> {
    if off.checked_add(n).is_some_and(|e| e <= b.len()) {
        Ok(())
    } else {
        Err(PamError::Truncated { offset: off, what, need: n, have: b.len().saturating_sub(off) })
    }
}

// The `need` calls above each read make these in range; `unwrap_or(0)` keeps the reader total.
fn u8_at(b: &[u8], off: usize) -> u8 {
    b.get(off).copied().unwrap_or(0)
}
fn u16_at(b: &[u8], off: usize) -> u16 {
    le::u16(b, off).unwrap_or(0)
}
fn u32_at(b: &[u8], off: usize) -> u32 {
    le::u32(b, off).unwrap_or(0)
}
fn f32_at(b: &[u8], off: usize) -> f32 {
    le::f32(b, off).unwrap_or(0.0)
}

pub(super) fn parse(b: &[u8]) -> Result<Pam, PamError> {
    need(b, 0, HEADER_SIZE, "PAM header")?;
    let found = le::bytes::<4>(b, 0).unwrap_or_default();
    if &found != MAGIC {
        return Err(PamError::BadMagic { offset: 0, found });
    }
    let count = u32_at(b, 4);
    if count as usize > (b.len() - HEADER_SIZE) / ENTRY_SIZE {
        return Err(PamError::AbsurdCount {
            offset: 4,
            what: "animation count (entry table past end of file)",
            value: count.into(),
        });
    }
    let count = count as usize;
    let table_end = HEADER_SIZE + ENTRY_SIZE * count;
    let mut animations = Vec::with_capacity(count);
    let mut empty_slot_names = std::collections::BTreeMap::new();
    // (start, end, slot) of every animation's bytes, for the overlap check.
    let mut ranges = Vec::new();
    for i in 0..count {
        let e = HEADER_SIZE + ENTRY_SIZE * i;
        let offset = u32_at(b, e);
        let name = le::bytes::<12>(b, e + 4).unwrap_or_default();
        // Offset 0 = empty slot; the index is kept (animation-formats.md §1.1 "Container").
        if offset == 0 {
            animations.push(None);
            empty_slot_names.insert(i, name);
            continue;
        }
        let start = offset as usize;
        if start >= b.len() {
            return Err(PamError::OffsetOutOfRange { offset: e, index: i, value: offset, len: b.len() });
        }
        if start < table_end {
            return Err(PamError::Overlap {
                index: i,
                start,
                end: start + ANIM_HEADER_SIZE,
                other: format!("the header and entry table (ending at {table_end:#x})"),
            });
        }
        let (anim, end) = parse_animation(b, start, name)?;
        ranges.push((start, end, i));
        animations.push(Some(anim));
    }
    ranges.sort_unstable();
    for w in ranges.windows(2) {
        let ((s0, e0, i0), (s1, e1, i1)) = (w[0], w[1]);
        // guess: two entries with the very same data (aliases) are accepted; nothing else may overlap.
        if s1 < e0 && (s0, e0) != (s1, e1) {
            return Err(PamError::Overlap {
                index: i1,
                start: s1,
                end: e1,
                other: format!("animation {i0} data at offset {s0:#x} (to {e0:#x})"),
            });
        }
    }
    let version = u16_at(b, 0x0E);
    let reserved = le::bytes::<6>(b, 8).unwrap_or_default();
    Ok(Pam { version, reserved, animations, empty_slot_names })
}

/// One animation at `o`; returns it and the offset just past its data.
fn parse_animation(b: &[u8], o: usize, name: [u8; 12]) -> Result<(Animation, usize), PamError> {
    need(b, o, ANIM_HEADER_SIZE, "animation header")?;
    let mut a = Animation {
        name,
        flag: u16_at(b, o),
        fps: u8_at(b, o + 2),
        interpolation_frames: u8_at(b, o + 3),
        loop_from: u16_at(b, o + 4),
        pad: u8_at(b, o + 7),
        frame_count: u16_at(b, o + 8),
        loop_to: u16_at(b, o + 10),
        bones: Vec::new(),
    };
    let bone_count = usize::from(u8_at(b, o + 6));
    let masks_at = o + ANIM_HEADER_SIZE;
    if 2 * bone_count > b.len() - masks_at.min(b.len()) {
        return Err(PamError::AbsurdCount {
            offset: o + 6,
            what: "bone count (channel masks past end of file)",
            value: bone_count as u64,
        });
    }
    let masks: Vec<u16> = (0..bone_count).map(|i| u16_at(b, masks_at + 2 * i)).collect();
    // Wide mode depends on the animation's frame count, not the channel (OpenKh `Pam.cs`).
    let wide = a.wide();
    let cs = if wide { 2 } else { 1 };
    let mut p = masks_at + 2 * bone_count;
    // Each present channel needs at least its header: reject impossible masks before reading.
    let channels: u32 = masks.iter().map(|m| (m & MASK_BITS).count_ones()).sum();
    if channels as usize * (8 + cs) > b.len() - p {
        return Err(PamError::AbsurdCount {
            offset: masks_at,
            what: "channel count from the masks (channel headers past end of file)",
            value: channels.into(),
        });
    }
    a.bones = Vec::with_capacity(bone_count);
    for (bone, &mask) in masks.iter().enumerate() {
        // Only the low 9 bits are used, "the rest is always 0" (OpenKh pam.md).
        if mask & !MASK_BITS != 0 {
            return Err(PamError::BadMask { offset: masks_at + 2 * bone, bone, mask });
        }
        let mut bc = BoneChannels::default();
        for (k, kind) in ChannelKind::ALL.into_iter().enumerate() {
            if mask & (1 << k) == 0 {
                continue;
            }
            let (c, next) = parse_channel(b, p, wide, a.frame_count, bone, kind)?;
            bc.channels[k] = Some(c);
            p = next;
        }
        a.bones.push(bc);
    }
    Ok((a, p))
}

fn parse_channel(
    b: &[u8],
    p: usize,
    wide: bool,
    frames: u16,
    bone: usize,
    kind: ChannelKind,
) -> Result<(Channel, usize), PamError> {
    let cs = if wide { 2 } else { 1 };
    need(b, p, 8 + cs, "channel header")?;
    // max first, then min (OpenKh pam.md "Channel Header"; test.pam bone 2 TX).
    let max = f32_at(b, p);
    let min = f32_at(b, p + 4);
    let count = if wide { usize::from(u16_at(b, p + 8)) } else { usize::from(u8_at(b, p + 8)) };
    let q = p + 8 + cs;
    let absurd =
        || PamError::AbsurdCount { offset: p + 8, what: "key count (keys past end of file)", value: count as u64 };
    // Test count == 1 first: it also covers frames == 1 (animation-formats.md §1.1).
    let (keys, end) = if count == 1 {
        (Keys::Constant, q)
    } else if count == 0 {
        // Never seen in real data; kept as an empty key list and evaluated as absent.
        tracing::warn!(offset = p + 8, bone, channel = kind.short(), "PAM channel with 0 keys, treated as absent");
        (Keys::Sparse(Vec::new()), q)
    } else if count == usize::from(frames) {
        if 2 * count > b.len() - q {
            return Err(absurd());
        }
        (Keys::Full((0..count).map(|i| u16_at(b, q + 2 * i)).collect()), q + 2 * count)
    } else {
        let size = cs + 2;
        if size * count > b.len() - q {
            return Err(absurd());
        }
        let mut keys = Vec::with_capacity(count);
        for i in 0..count {
            let k = q + size * i;
            let frame = if wide { u16_at(b, k) } else { u16::from(u8_at(b, k)) };
            if let Some(prev) = keys.last().map(|k: &Key| k.frame) {
                if frame <= prev {
                    return Err(PamError::KeyOrder { offset: k, bone, channel: kind.short(), frame, previous: prev });
                }
            }
            keys.push(Key { frame, value: u16_at(b, k + cs) });
        }
        (Keys::Sparse(keys), q + size * count)
    };
    Ok((Channel { max, min, keys }, end))
}
