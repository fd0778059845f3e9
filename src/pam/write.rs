//! PAM writer: the inverse of the parser for every [`Pam`] the parser can return. Anything the
//! parser would read back differently (a key form that contradicts its count, unordered keys,
//! counts that do not fit the narrow/wide field) is refused with [`PamError::Unwritable`].

use super::*;

pub(super) fn to_bytes(pam: &Pam) -> Result<Vec<u8>, PamError> {
    let bad = |what: String| Err(PamError::Unwritable { what });
    let count = pam.animations.len();
    if u32::try_from(count).is_err() {
        return bad(format!("{count} animation slots do not fit a u32"));
    }
    for &i in pam.empty_slot_names.keys() {
        if !matches!(pam.animations.get(i), Some(None)) {
            return bad(format!("empty-slot name for slot {i}, which is not an empty slot"));
        }
    }
    let mut out = Vec::new();
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(count as u32).to_le_bytes());
    out.extend_from_slice(&pam.reserved);
    out.extend_from_slice(&pam.version.to_le_bytes());
    out.resize(HEADER_SIZE + ENTRY_SIZE * count, 0);
    for (i, slot) in pam.animations.iter().enumerate() {
        let e = HEADER_SIZE + ENTRY_SIZE * i;
        let name = match slot {
            Some(a) => {
                let Ok(offset) = u32::try_from(out.len()) else {
                    return bad(format!("animation {i} starts past 4 GiB"));
                };
                out[e..e + 4].copy_from_slice(&offset.to_le_bytes());
                write_animation(a, i, &mut out)?;
                a.name
            }
            None => pam.empty_slot_names.get(&i).copied().unwrap_or_default(),
        };
        out[e + 4..e + 16].copy_from_slice(&name);
    }
    if out.len() % 2 == 1 {
        out.push(0);
    }
    Ok(out)
}

fn write_animation(a: &Animation, index: usize, out: &mut Vec<u8>) -> Result<(), PamError> {
    let bad = |what: String| Err(PamError::Unwritable { what: format!("animation {index}: {what}") });
    let Ok(bone_count) = u8::try_from(a.bones.len()) else {
        return bad(format!("{} bones (at most 255)", a.bones.len()));
    };
    out.extend_from_slice(&a.flag.to_le_bytes());
    out.extend_from_slice(&[a.fps, a.interpolation_frames]);
    out.extend_from_slice(&a.loop_from.to_le_bytes());
    out.extend_from_slice(&[bone_count, a.pad]);
    out.extend_from_slice(&a.frame_count.to_le_bytes());
    out.extend_from_slice(&a.loop_to.to_le_bytes());
    for bc in &a.bones {
        out.extend_from_slice(&bc.mask().to_le_bytes());
    }
    let wide = a.wide();
    let frames = usize::from(a.frame_count);
    let count_limit = if wide { usize::from(u16::MAX) } else { usize::from(u8::MAX) };
    for (bone, kind, c) in a.channels() {
        let ch = kind.short();
        let count = c.keys.count();
        if count > count_limit {
            return bad(format!("bone {bone} {ch}: {count} keys do not fit the key-count field"));
        }
        out.extend_from_slice(&c.max.to_bits().to_le_bytes());
        out.extend_from_slice(&c.min.to_bits().to_le_bytes());
        if wide {
            out.extend_from_slice(&(count as u16).to_le_bytes());
        } else {
            out.push(count as u8);
        }
        match &c.keys {
            Keys::Constant => {}
            Keys::Full(v) => {
                if v.len() != frames || v.len() < 2 {
                    return bad(format!("bone {bone} {ch}: full channel of {} keys, {frames} frames", v.len()));
                }
                for q in v {
                    out.extend_from_slice(&q.to_le_bytes());
                }
            }
            Keys::Sparse(v) => {
                if v.len() == 1 || (!v.is_empty() && v.len() == frames) {
                    return bad(format!(
                        "bone {bone} {ch}: {} sparse keys would read back as another form ({frames} frames)",
                        v.len()
                    ));
                }
                for (i, k) in v.iter().enumerate() {
                    if i > 0 && k.frame <= v[i - 1].frame {
                        return bad(format!("bone {bone} {ch}: key frames not strictly increasing at key {i}"));
                    }
                    if wide {
                        out.extend_from_slice(&k.frame.to_le_bytes());
                    } else {
                        let Ok(f) = u8::try_from(k.frame) else {
                            return bad(format!("bone {bone} {ch}: frame id {} in a narrow animation", k.frame));
                        };
                        out.push(f);
                    }
                    out.extend_from_slice(&k.value.to_le_bytes());
                }
            }
        }
    }
    Ok(())
}
