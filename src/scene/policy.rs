//! The one place where the scene builder chooses GE state that the PMO file does not spell
//! out. Nobody has published a GE capture of Birth by Sleep drawing a PMO, so every choice
//! below is either a consequence of the file format plus GE rules (marked with its evidence)
//! or a guess (marked `guess:`), and each guess has a switch in [`Policy`].
//!
//! | question | default | evidence | switch |
//! |---|---|---|---|
//! | 0x80 vertex / uniform colours | colour doubling on (TEXFUNC bit 16) | every character sample's colours top out at exactly 0x80 (p01ex00, h03ex00, h_zz130 8888 colours and uniform 0xFF808080), the PS2 "0x80 = 1.0" convention; doubling maps 0x80 to ≈1.0 (ge-reference §18.2) | `color_doubling` |
//! | model scale | folded into the bone matrices (skinned) or the world matrix (unskinned) | skinning the stored vertices × scale with InvBind reproduces the bind pose (samples/README, p01ex00) | `scale_in` |
//! | attribute 0x04 (BACK) | culling off | OpenKh's name; guess that every other section is culled | `cull` |
//! | cull winding | GE CULL = [`FRONT_CULL`] | with it the closed character samples render (almost) the same as with culling off; the other value shows their insides (scene sample test) | `cull_face` |
//! | blend field 0x20/0x40/0x60 | src-α/1−src-α, add, reverse-subtract | ge-reference §18.2 table \[INF\] | — |
//! | attribute 0x10 (TEXALPHA) alone | semi-transparent blend | guess: it never appears without 0x20 in the samples | — |
//! | texture alpha | TEXFUNC RGBA (texture alpha × vertex alpha) + alpha test > 0 | guess: the samples' textures have α = 0 cut-outs in sections with no blend bits | `alpha_test` |
//! | blended sections | depth test on, depth write off | guess: the usual translucent pass | — |
//! | mesh list 1 | drawn after list 0 of every object | ge-reference §18.2 \[INF\] | — |
//! | texture filter | bilinear, clamp for non-power-of-two sizes, repeat otherwise | guess | `bilinear` |
//! | attributes 0x01, 0x02, 0x08, 0x400, 0x800 | no effect | no evidence of their GE meaning; listed by [`attribute_names`] | — |

/// Where the header's model scale is applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ScaleIn {
    /// Skinned sections: bone slot = G · InvBind · S(scale); unskinned: world · S(scale).
    #[default]
    Bones,
    /// Always world · S(scale), bone slot = G · InvBind (scale applied after skinning).
    World,
}

/// Switches for every guessed piece of GE state; `Default` is the best-evidenced choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Policy {
    pub color_doubling: bool,
    pub scale_in: ScaleIn,
    pub cull: bool,
    /// GE CULL register value used when culling ([`FRONT_CULL`]).
    pub cull_face: u32,
    pub alpha_test: bool,
    pub bilinear: bool,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            color_doubling: true,
            scale_in: ScaleIn::Bones,
            cull: true,
            cull_face: FRONT_CULL,
            alpha_test: true,
            bilinear: true,
        }
    }
}

/// GE CULL register value that keeps the outward faces of BBS meshes (measured on the
/// sample models by the scene tests: the other value shows their insides).
pub const FRONT_CULL: u32 = 0;

pub const ATTR_NOMATERIAL: u16 = 0x0001;
pub const ATTR_GLARE: u16 = 0x0002;
pub const ATTR_BACK: u16 = 0x0004;
pub const ATTR_DIVIDE: u16 = 0x0008;
pub const ATTR_TEXALPHA: u16 = 0x0010;
pub const ATTR_BLEND_MASK: u16 = 0x00E0;
pub const ATTR_DROPSHADOW: u16 = 0x0400;
pub const ATTR_ENVMAP: u16 = 0x0800;

/// How a section blends with the framebuffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Blend {
    Opaque,
    /// src·α + dst·(1 − α).
    SemiTransparent,
    /// src·α + dst.
    Additive,
    /// dst − src·α.
    Subtractive,
}

impl Blend {
    /// (BLENDMODE, FIXB) register arguments, `None` for no blending (ge-reference §13).
    pub fn ge_state(self) -> Option<(u32, u32)> {
        match self {
            Blend::Opaque => None,
            Blend::SemiTransparent => Some((2 | (3 << 4), 0)),
            Blend::Additive => Some((2 | (10 << 4), 0xFF_FFFF)),
            Blend::Subtractive => Some((2 | (10 << 4) | (2 << 8), 0xFF_FFFF)),
        }
    }
}

/// The GE state chosen for one section.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SectionState {
    pub blend: Blend,
    pub cull: bool,
    pub depth_write: bool,
    pub alpha_test: bool,
    /// TEXFUNC argument: modulate, RGBA, optional colour doubling.
    pub texfunc: u32,
}

impl Policy {
    /// GE state for a section with attribute word `attr`.
    pub fn section_state(&self, attr: u16) -> SectionState {
        let blend = match (attr & ATTR_BLEND_MASK) >> 5 {
            1 => Blend::SemiTransparent,
            2 => Blend::Additive,
            3 => Blend::Subtractive,
            // guess: field values 4-7 never occur in the samples; draw them opaque.
            _ if attr & ATTR_TEXALPHA != 0 => Blend::SemiTransparent,
            _ => Blend::Opaque,
        };
        SectionState {
            blend,
            cull: self.cull && attr & ATTR_BACK == 0,
            depth_write: blend == Blend::Opaque,
            alpha_test: self.alpha_test,
            texfunc: (1 << 8) | if self.color_doubling { 1 << 16 } else { 0 },
        }
    }
}

/// OpenKh's names for the attribute bits set in `attr` (blend field shown as one name).
pub fn attribute_names(attr: u16) -> Vec<&'static str> {
    let mut v = Vec::new();
    for (bit, name) in [
        (ATTR_NOMATERIAL, "NOMATERIAL"),
        (ATTR_GLARE, "GLARE"),
        (ATTR_BACK, "BACK"),
        (ATTR_DIVIDE, "DIVIDE"),
        (ATTR_TEXALPHA, "TEXALPHA"),
    ] {
        if attr & bit != 0 {
            v.push(name);
        }
    }
    match (attr & ATTR_BLEND_MASK) >> 5 {
        0 => {}
        1 => v.push("BLEND_SEMITRANS"),
        2 => v.push("BLEND_ADD"),
        3 => v.push("BLEND_SUB"),
        _ => v.push("BLEND_UNKNOWN"),
    }
    for (bit, name) in [(ATTR_DROPSHADOW, "DROPSHADOW"), (ATTR_ENVMAP, "ENVMAP")] {
        if attr & bit != 0 {
            v.push(name);
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blend_field_and_flags() {
        let p = Policy::default();
        assert_eq!(p.section_state(0x0000).blend, Blend::Opaque);
        assert_eq!(p.section_state(0x0030).blend, Blend::SemiTransparent);
        assert_eq!(p.section_state(0x0040).blend, Blend::Additive);
        assert_eq!(p.section_state(0x0060).blend, Blend::Subtractive);
        assert_eq!(p.section_state(0x0010).blend, Blend::SemiTransparent);
        assert!(p.section_state(0x0001).cull);
        assert!(!p.section_state(0x0004).cull);
        assert!(!p.section_state(0x0020).depth_write);
        assert!(p.section_state(0x0001).depth_write);
        assert_eq!(p.section_state(0).texfunc, 0x1_0100);
        let q = Policy { color_doubling: false, cull: false, ..p };
        assert_eq!(q.section_state(0).texfunc, 0x100);
        assert!(!q.section_state(0).cull);
    }

    #[test]
    fn blend_registers() {
        // BLENDMODE: A = 2 (src α), B = 3 (1 − src α) / 10 (FIXB), eq in bits 8-10.
        assert_eq!(Blend::SemiTransparent.ge_state(), Some((0x32, 0)));
        assert_eq!(Blend::Additive.ge_state(), Some((0xA2, 0xFF_FFFF)));
        assert_eq!(Blend::Subtractive.ge_state(), Some((0x2A2, 0xFF_FFFF)));
        assert_eq!(Blend::Opaque.ge_state(), None);
    }

    #[test]
    fn names() {
        assert_eq!(attribute_names(0x31), ["NOMATERIAL", "TEXALPHA", "BLEND_SEMITRANS"]);
        assert_eq!(attribute_names(0x403), ["NOMATERIAL", "GLARE", "DROPSHADOW"]);
    }
}
