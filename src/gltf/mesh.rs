//! PMO sections as glTF primitives: vertices exactly as `psprender decode` lists them (the GE
//! decoder, [`crate::decode::report`]), PRIMs turned into index lists with the GE's winding,
//! and one material per (texture, attribute, uniform colour).
//!
//! * Winding: the GE draws triangle k of a strip as (v_k, v_k+1, v_k+2) with the cull face
//!   flipped on odd k, and fan triangles as (centre, v_k, v_k+1) with the same alternation
//!   [ge `draw/assemble.rs` `ring_triangle`, PP `SubmitPrimitive` altCullType]; emitting odd
//!   strip triangles as (v_k+1, v_k, v_k+2) gives one winding for all. The scene builder
//!   culls with CULL = 0, which removes screen-clockwise triangles [HW `commands/cull`], so the
//!   faces the GE keeps are the counter-clockwise ones: glTF's front faces.
//!   Zero-area triangles (strip joins repeat a vertex's data) are kept: the GE draws nothing
//!   for them and neither does a glTF renderer.
//! * Colours: with the scene policy's colour doubling (TEXFUNC bit 16) the GE outputs
//!   texture × colour × 2, so COLOR_0 and the base colour factor hold the doubled colour,
//!   clamped to 255 (0x80 → 255 where the GE gives 256/255, one step brighter than glTF can
//!   say); alpha is not doubled (ge-reference §12).
//! * Normals: glTF requires unit NORMALs, the GE does not; NORMAL holds the decoded normal
//!   normalised and `_GE_NORMAL` the decoded value itself.
//! * Weights: WEIGHTS_n hold the decoded weights (u8/128 etc.) paired with JOINTS_n = the
//!   section's joint table entries; the GE sums Σ w_k·M_k·p without normalising, and glTF
//!   needs Σ w = 1, so a vertex whose weights do not sum to 1 is refused (none of the samples
//!   has one).

use super::buffer::{extras, Builder};
use super::GltfError;
use crate::decode::SectionReport;
use crate::scene::policy::{Blend, Policy};
use ge::geom::{ColorFormat, NumFormat};
use gltf::json;
use json::mesh::{Mode, Semantic};
use json::validation::Checked::Valid;
use serde_json::json;
use std::collections::BTreeMap;

/// Largest |Σw − 1| accepted: glTF validators allow a few ulps per weight.
const WEIGHT_SUM_TOLERANCE: f32 = 2e-6;

/// Index list of a section's PRIMs (each `counts[i]` vertices long, back to back) in one
/// glTF mode (module docs for the winding).
pub fn indices(prim: u32, counts: &[usize], offset: usize, section: &str) -> Result<(Mode, Vec<u32>), GltfError> {
    let mut out = Vec::new();
    let mut s = 0u32;
    let mode = match prim & 7 {
        0 => Mode::Points,
        1 | 2 => Mode::Lines,
        3..=5 => Mode::Triangles,
        p => {
            return Err(GltfError::Unsupported {
                offset,
                what: format!("{section}: primitive type {p} ({})", crate::decode::prim_name(p)),
            })
        }
    };
    let tri = |a: u32, b: u32, c: u32, out: &mut Vec<u32>| out.extend([a, b, c]);
    for &n in counts {
        let n = n as u32;
        match prim & 7 {
            0 => out.extend(s..s + n),
            1 => out.extend(s..s + n / 2 * 2),
            2 => (1..n).for_each(|i| out.extend([s + i - 1, s + i])),
            3 => (0..n / 3).for_each(|t| tri(s + 3 * t, s + 3 * t + 1, s + 3 * t + 2, &mut out)),
            4 => (0..n.saturating_sub(2)).for_each(|t| {
                let v = s + t;
                if t % 2 == 0 {
                    tri(v, v + 1, v + 2, &mut out)
                } else {
                    tri(v + 1, v, v + 2, &mut out)
                }
            }),
            _ => (1..n.saturating_sub(1)).for_each(|t| tri(s, s + t, s + t + 1, &mut out)),
        }
        s += n;
    }
    Ok((mode, out))
}

/// What makes two sections share a material.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct MaterialKey {
    /// glTF texture index, when the section is textured.
    pub texture: Option<usize>,
    pub attribute: u16,
    /// Uniform diffuse colour (ABGR), `None` for per-vertex or default colour.
    pub diffuse: Option<u32>,
}

/// A colour as the GE outputs it with colour doubling (module docs), 0..=1 floats.
pub fn doubled(c: [u8; 4], doubling: bool) -> [u8; 4] {
    let d = |v: u8| if doubling { (u16::from(v) * 2).min(255) as u8 } else { v };
    [d(c[0]), d(c[1]), d(c[2]), c[3]]
}

/// Per glTF texture: whether its texels use alpha (any < 255) and cut-outs (any 0).
pub type AlphaUse = [(bool, bool)];

/// The material for `key`: unlit (the scene draws with lighting off), base colour = the doubled
/// uniform diffuse (or white), alpha mode from the section's blend state and the texture's
/// alpha, double-sided where the policy does not cull; the attribute word and the GE blend
/// state the glTF cannot express go to `extras`.
pub fn material(key: &MaterialKey, policy: &Policy, alpha: &AlphaUse, name: String) -> json::Material {
    let st = policy.section_state(key.attribute);
    let base = key.diffuse.map_or([255; 4], |c| doubled(c.to_le_bytes(), policy.color_doubling));
    let (tex_alpha, tex_cutout) = key.texture.and_then(|t| alpha.get(t).copied()).unwrap_or((false, false));
    let (mode, cutoff) = match st.blend {
        Blend::Opaque if policy.alpha_test && (tex_cutout || base[3] == 0) => {
            // The GE's alpha test passes α > 0 (ALPHATEST GREATER 0): α ≥ 1/255 in glTF.
            (json::material::AlphaMode::Mask, Some(json::material::AlphaCutoff(0.5 / 255.0)))
        }
        Blend::Opaque => (json::material::AlphaMode::Opaque, None),
        _ => (json::material::AlphaMode::Blend, None),
    };
    let blend_name = match st.blend {
        Blend::Opaque => "opaque",
        Blend::SemiTransparent => "semi-transparent",
        Blend::Additive => "additive",
        Blend::Subtractive => "subtractive",
    };
    json::Material {
        name: Some(name),
        alpha_cutoff: cutoff,
        alpha_mode: Valid(mode),
        double_sided: !st.cull,
        pbr_metallic_roughness: json::material::PbrMetallicRoughness {
            base_color_factor: json::material::PbrBaseColorFactor(base.map(|v| f32::from(v) / 255.0)),
            base_color_texture: key.texture.map(|t| json::texture::Info {
                index: json::Index::new(t as u32),
                tex_coord: 0,
                extensions: None,
                extras: Default::default(),
            }),
            metallic_factor: json::material::StrengthFactor(0.0),
            roughness_factor: json::material::StrengthFactor(1.0),
            ..Default::default()
        },
        extensions: Some(json::extensions::material::Material { unlit: Some(json::extensions::material::Unlit {}) }),
        extras: extras(json!({
            "attribute": format!("{:#06x}", key.attribute),
            "attribute_names": crate::scene::policy::attribute_names(key.attribute),
            "blend": blend_name,
            "depth_write": st.depth_write,
            "texture_alpha": tex_alpha,
            "color_doubling": policy.color_doubling,
        })),
        ..Default::default()
    }
}

/// One section as a primitive (`None` when it draws nothing). `joint_count` is the skin's
/// joint count when the section is skinned.
pub fn primitive(
    b: &mut Builder,
    r: &SectionReport,
    joint_count: Option<usize>,
    material: Option<json::Index<json::Material>>,
    policy: &Policy,
) -> Result<Option<json::mesh::Primitive>, GltfError> {
    let s = r.section;
    let what = format!("list {} section {}", r.list, r.index);
    let (mode, idx) = indices(s.prim(), &s.prim_counts(), r.offset, &what)?;
    if idx.is_empty() {
        return Ok(None);
    }
    let vt = &r.layout.vtype;
    let v = &r.vertices;
    let mut attributes = BTreeMap::new();
    if vt.position == NumFormat::None {
        return Err(GltfError::Unsupported { offset: r.offset, what: format!("{what}: vertices without positions") });
    }
    let pos: Vec<[f32; 3]> = v.iter().map(|x| x.pos).collect();
    if let Some(i) = pos.iter().position(|p| p.iter().any(|c| !c.is_finite())) {
        return Err(GltfError::NotFinite { offset: r.data_offset + i * usize::from(s.vertex_size), what });
    }
    attributes.insert(Valid(Semantic::Positions), b.bounded(&pos));
    if vt.has_normal() {
        let raw: Vec<[f32; 3]> = v.iter().map(|x| x.normal).collect();
        let unit: Vec<[f32; 3]> = raw
            .iter()
            .map(|n| {
                let g = glam::Vec3::from(*n);
                // guess: a zero normal (the GE lights it as black) becomes +Y for glTF.
                g.try_normalize().unwrap_or(glam::Vec3::Y).to_array()
            })
            .collect();
        attributes
            .insert(Valid(Semantic::Normals), b.accessor(&unit, Some(json::buffer::Target::ArrayBuffer), None, false));
        attributes.insert(
            Valid(Semantic::Extras("GE_NORMAL".into())),
            b.accessor(&raw, Some(json::buffer::Target::ArrayBuffer), None, false),
        );
    }
    if vt.has_texcoord() {
        let uv: Vec<[f32; 2]> = v.iter().map(|x| x.uv).collect();
        attributes.insert(
            Valid(Semantic::TexCoords(0)),
            b.accessor(&uv, Some(json::buffer::Target::ArrayBuffer), None, false),
        );
    }
    if vt.color != ColorFormat::None {
        let c: Vec<[u8; 4]> = v.iter().map(|x| doubled(x.color, policy.color_doubling)).collect();
        attributes
            .insert(Valid(Semantic::Colors(0)), b.accessor(&c, Some(json::buffer::Target::ArrayBuffer), None, true));
    }
    if let (Some(count), Some(table)) = (joint_count, s.joints) {
        let wc = usize::from(vt.weight_count).min(8);
        let sets = if wc > 4 { 2 } else { 1 };
        let mut joints = vec![vec![[0u16; 4]; v.len()]; sets];
        let mut weights = vec![vec![[0f32; 4]; v.len()]; sets];
        for (i, x) in v.iter().enumerate() {
            let at = r.data_offset + i * usize::from(s.vertex_size);
            let mut sum = 0.0f32;
            for k in 0..wc {
                let w = x.weights[k];
                let j = table[k];
                if j == crate::pmo::UNUSED_SLOT || usize::from(j) >= count {
                    if w != 0.0 {
                        return Err(GltfError::Weights {
                            offset: at,
                            what: format!("{what}: weight {w} on bone slot {k}, whose joint table entry {j} names no joint ({count} joints)"),
                        });
                    }
                } else if w != 0.0 {
                    // A slot without weight names joint 0: glTF validators flag any other.
                    joints[k / 4][i][k % 4] = u16::from(j);
                }
                weights[k / 4][i][k % 4] = w;
                sum += w;
            }
            let normalised = (sum - 1.0).abs() <= WEIGHT_SUM_TOLERANCE; // false for NaN too
            if !normalised {
                return Err(GltfError::Weights {
                    offset: at,
                    what: format!("{what}: weights sum to {sum}; glTF skinning needs 1 and the GE does not normalise"),
                });
            }
        }
        for k in 0..sets {
            let ja = b.accessor(&joints[k], Some(json::buffer::Target::ArrayBuffer), None, false);
            let wa = b.accessor(&weights[k], Some(json::buffer::Target::ArrayBuffer), None, false);
            attributes.insert(Valid(Semantic::Joints(k as u32)), ja);
            attributes.insert(Valid(Semantic::Weights(k as u32)), wa);
        }
    }
    let indices = b.accessor(&idx, Some(json::buffer::Target::ElementArrayBuffer), None, false);
    Ok(Some(json::mesh::Primitive {
        attributes,
        extensions: None,
        extras: extras(json!({
            "list": r.list,
            "section": r.index,
            "offset": r.offset,
            "vtype": format!("{:#08x}", s.vtype()),
            "prim": crate::decode::prim_name(s.prim()),
            "attribute": format!("{:#06x}", s.attribute),
            "group": s.group,
        })),
        indices: Some(indices),
        material,
        mode: Valid(mode),
        targets: None,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prims_become_index_lists_with_one_winding() {
        // Strip 0 1 2 3: triangles (0 1 2) and (2 1 3) — both the same turn as the first.
        let (m, i) = indices(4, &[4], 0, "s").unwrap();
        assert_eq!(m, Mode::Triangles);
        assert_eq!(i, [0, 1, 2, 2, 1, 3]);
        // Two PRIMs back to back: the second starts at vertex 3.
        let (_, i) = indices(4, &[3, 3], 0, "s").unwrap();
        assert_eq!(i, [0, 1, 2, 3, 4, 5]);
        let (_, i) = indices(3, &[7], 0, "s").unwrap();
        assert_eq!(i, [0, 1, 2, 3, 4, 5]);
        let (_, i) = indices(5, &[5], 0, "s").unwrap();
        assert_eq!(i, [0, 1, 2, 0, 2, 3, 0, 3, 4]);
        let (m, i) = indices(2, &[3], 0, "s").unwrap();
        assert_eq!((m, i), (Mode::Lines, vec![0, 1, 1, 2]));
        assert!(matches!(indices(6, &[2], 0x40, "s"), Err(GltfError::Unsupported { offset: 0x40, .. })));
    }

    #[test]
    fn doubling_clamps_and_keeps_alpha() {
        assert_eq!(doubled([0x80, 0x40, 0, 0x80], true), [255, 0x80, 0, 0x80]);
        assert_eq!(doubled([0x80, 0x40, 0, 0x80], false), [0x80, 0x40, 0, 0x80]);
    }
}
