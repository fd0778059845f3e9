//! Per-vertex lighting (ge-reference.md §7), decoded once per draw into [`LightState`]
//! and mirroring PPSSPP's software lighting arithmetic exactly: colour factors are
//! `2c+1` (9 bits), ambient products shift by 10, light terms by 19 with a scalar
//! factor `ceil(512·s + 1)` clamped to 512 [PP `Software/Lighting.cpp`].
//!
//! Lighting happens in world space; the viewer for specular is the fixed +Z direction.

use super::math::{cvtt_ceil, dot3, light_pow, normalize, normalize_or_001, normalized_or_001_approx, RsqrtRule};
use crate::cmd::{op, reg};
use crate::regs::Regs;

/// `2c + 1` per RGBA channel [PP `LightColorFactor`].
#[inline]
fn factor(c: [u8; 4]) -> [i32; 4] {
    c.map(|x| 2 * x as i32 + 1)
}

/// True when any of the four channels of the original colour is non-zero (the sum of
/// the four `2c+1` factors exceeds 4) [PP `IsLargerThanHalf` x86-64 path, which sums all
/// four lanes, alpha included].
#[inline]
fn nonzero(f: [i32; 4]) -> bool {
    f[0] + f[1] + f[2] + f[3] > 4
}

/// An RGB colour register with alpha `a`.
#[inline]
fn rgba(regs: &Regs, o: u8, a: u8) -> [u8; 4] {
    let [r, g, b] = regs.rgb(o);
    [r, g, b, a]
}

#[inline]
fn vec24(regs: &Regs, base: u8, light: usize) -> [f32; 3] {
    let o = base as usize + 3 * light;
    [regs.float(o as u8), regs.float((o + 1) as u8), regs.float((o + 2) as u8)]
}

#[derive(Clone, Copy, Debug, PartialEq)]
struct Spot {
    dir: [f32; 3],
    cutoff: f32,
    exp: f32,
}

#[derive(Clone, Copy, Debug, PartialEq, Default)]
struct Light {
    enabled: bool,
    directional: bool,
    powered_diffuse: bool,
    ambient: bool,
    diffuse: bool,
    specular: bool,
    /// Normalised for directional lights, the raw position otherwise.
    pos: [f32; 3],
    att: [f32; 3],
    spot: Option<Spot>,
    ambient_f: [i32; 4],
    diffuse_f: [i32; 4],
    specular_f: [i32; 4],
}

/// Everything lighting needs, decoded once per draw.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct LightState {
    lights: [Light; 4],
    mat_ambient: [i32; 4],
    mat_diffuse: [i32; 4],
    mat_specular: [i32; 4],
    emissive: [i32; 4],
    base_ambient: [i32; 4],
    specular_exp: f32,
    /// `emissive + (mat_ambient·base_ambient) >> 10`: the start of every vertex's primary
    /// colour when the material ambient is not the vertex colour (then it is per vertex).
    ambient_base: [i32; 4],
    color_for_ambient: bool,
    color_for_diffuse: bool,
    color_for_specular: bool,
    set_color1: bool,
    add_color1: bool,
    /// Some light is a point or spot light: the world position is needed.
    pub(crate) uses_world_pos: bool,
    /// Diffuse or specular terms exist: the world normal is needed.
    pub(crate) uses_world_normal: bool,
    /// The reciprocal square root of the half-vector normalisation.
    rsqrt: RsqrtRule,
}

impl LightState {
    /// [PP `Lighting::ComputeState`], including its pruning of lights and terms that
    /// cannot contribute (which decides `uses_world_pos`, hence the transform path).
    pub(crate) fn decode(regs: &Regs, has_color: bool, env_map: bool, rsqrt: RsqrtRule) -> LightState {
        let mut lights = [Light::default(); 4];
        let (mut any_ambient, mut any_diffuse, mut any_specular, mut any_positional) = (false, false, false, false);
        for (i, l) in lights.iter_mut().enumerate() {
            if !regs.enabled(op::LIGHTENABLE0 + i as u8) {
                continue;
            }
            let ltype = regs.get(reg::LIGHTTYPE0.at(i));
            let (comp, kind) = (ltype.computation(), ltype.kind());
            l.powered_diffuse = comp == 2;
            let specular_type = comp == 1;
            let col = op::LAC0 + 3 * i as u8;
            l.ambient_f = factor(rgba(regs, col, 0));
            l.ambient = nonzero(l.ambient_f);
            any_ambient |= l.ambient;
            l.diffuse_f = factor(rgba(regs, col + 1, 0));
            l.diffuse = nonzero(l.diffuse_f);
            any_diffuse |= l.diffuse;
            if specular_type {
                l.specular_f = factor(rgba(regs, col + 2, 0));
                l.specular = nonzero(l.specular_f);
                any_specular |= l.specular;
            }
            if !l.specular && !l.ambient && !l.diffuse {
                continue;
            }
            l.enabled = true;
            l.pos = vec24(regs, op::LX0, i);
            l.directional = kind == 0;
            if l.directional {
                l.pos = normalize_or_001(l.pos).0;
            } else {
                l.att = vec24(regs, op::LKA0, i);
                any_positional = true;
            }
            // Types 2 and 3 are spot lights [PP `GEState::isSpotLight`].
            if kind >= 2 {
                let mut cutoff = regs.float(op::LKO0 + i as u8);
                if cutoff.is_nan() && cutoff.is_sign_negative() {
                    cutoff = 0.0;
                }
                let mut exp = regs.float(op::LKS0 + i as u8);
                if exp <= 0.0 {
                    exp = 0.0;
                } else if exp.is_nan() {
                    exp = if exp.is_sign_negative() { 0.0 } else { f32::INFINITY };
                }
                l.spot = Some(Spot { dir: normalize(vec24(regs, op::LDX0, i)), cutoff, exp });
            }
        }

        let mu = regs.get(reg::MATERIALUPDATE);
        let color_for_ambient = has_color && mu.ambient() != 0;
        let color_for_diffuse = has_color && mu.diffuse() != 0;
        let color_for_specular = has_color && mu.specular() != 0;

        let mut mat_ambient = [0; 4];
        if !color_for_ambient {
            mat_ambient = factor(rgba(regs, op::MATERIALAMBIENT, regs.get(reg::MATERIALALPHA).value() as u8));
            if !nonzero(mat_ambient) && any_ambient {
                lights.iter_mut().for_each(|l| l.ambient = false);
            }
        }
        let mut mat_diffuse = [0; 4];
        if any_diffuse && !color_for_diffuse {
            mat_diffuse = factor(rgba(regs, op::MATERIALDIFFUSE, 0));
            if !nonzero(mat_diffuse) {
                any_diffuse = false;
                lights.iter_mut().for_each(|l| l.diffuse = false);
            }
        }
        let mut mat_specular = [0; 4];
        if any_specular && !color_for_specular {
            mat_specular = factor(rgba(regs, op::MATERIALSPECULAR, 0));
            if !nonzero(mat_specular) {
                any_specular = false;
                lights.iter_mut().for_each(|l| l.specular = false);
            }
        }
        let mut specular_exp = 0.0;
        if any_diffuse || any_specular {
            specular_exp = regs.float(op::MATERIALSPECULARCOEF);
            if specular_exp <= 0.0 {
                specular_exp = 0.0;
            } else if specular_exp.is_nan() {
                specular_exp = if specular_exp.is_sign_negative() { 0.0 } else { f32::INFINITY };
            }
        }
        let secondary = regs.enabled(op::LIGHTMODE);
        let [er, eg, eb] = regs.rgb(op::MATERIALEMISSIVE);
        let emissive = [er as i32, eg as i32, eb as i32, 0];
        let base_ambient = factor(rgba(regs, op::AMBIENTCOLOR, regs.get(reg::AMBIENTALPHA).value() as u8));
        LightState {
            lights,
            mat_ambient,
            mat_diffuse,
            mat_specular,
            emissive,
            base_ambient,
            specular_exp,
            ambient_base: ambient_start(emissive, mat_ambient, base_ambient),
            color_for_ambient,
            color_for_diffuse,
            color_for_specular,
            set_color1: secondary && any_specular,
            add_color1: !secondary && any_specular,
            uses_world_pos: any_positional,
            uses_world_normal: env_map || any_diffuse || any_specular,
            rsqrt,
        }
    }

    /// Lights one vertex: returns (primary RGBA, secondary RGB) [PP `Lighting::ProcessSIMD<true>`].
    pub(crate) fn light(&self, color: [u8; 4], world_pos: [f32; 3], world_normal: [f32; 3]) -> ([u8; 4], [u8; 3]) {
        let vf = factor(color);
        let (mac, mut fin) = if self.color_for_ambient {
            (vf, ambient_start(self.emissive, vf, self.base_ambient))
        } else {
            (self.mat_ambient, self.ambient_base)
        };
        let mut spec = [0i32; 4];
        for l in self.lights.iter().filter(|l| l.enabled) {
            let mut lv = l.pos;
            let mut attspot = 1.0f32;
            if !l.directional {
                let d3 = [lv[0] - world_pos[0], lv[1] - world_pos[1], lv[2] - world_pos[2]];
                let (n, d) = normalize_or_001(d3);
                lv = n;
                let mut att = 1.0 / dot3(l.att, [1.0, d, d * d]);
                // NaN → 0 as well.
                #[allow(clippy::neg_cmp_op_on_partial_ord)]
                if !(att > 0.0) {
                    att = 0.0;
                } else if att > 1.0 {
                    att = 1.0;
                }
                attspot = att;
            }
            if let Some(s) = l.spot {
                let mut raw = dot3(s.dir, lv);
                if raw.is_nan() {
                    raw = if raw.is_sign_negative() { 0.0 } else { 1.0 };
                }
                let mut spot = 0.0;
                if raw >= s.cutoff {
                    spot = light_pow(raw, s.exp);
                    if spot.is_nan() {
                        spot = 0.0;
                    }
                }
                attspot *= spot;
            }
            if l.ambient {
                let k = scale512(512.0 * attspot + 1.0);
                add_scaled(&mut fin, l.ambient_f, mac, k);
            }
            let mut diffuse_factor = 0.0;
            if l.diffuse || l.specular {
                diffuse_factor = dot3(lv, world_normal);
                if l.powered_diffuse {
                    diffuse_factor = light_pow(diffuse_factor, self.specular_exp);
                }
            }
            if l.diffuse && diffuse_factor > 0.0 {
                let k = scale512(512.0 * attspot * diffuse_factor + 1.0);
                let mdc = if self.color_for_diffuse { vf } else { self.mat_diffuse };
                add_scaled(&mut fin, l.diffuse_f, mdc, k);
            }
            if l.specular && diffuse_factor >= 0.0 {
                // H = L + (0, 0, 1), a lane-wise SSE add [PP `ProcessSIMD`].
                let h = normalized_or_001_approx([lv[0] + 0.0, lv[1] + 0.0, lv[2] + 1.0], self.rsqrt);
                let sf = light_pow(dot3(h, world_normal), self.specular_exp);
                if sf > 0.0 {
                    let k = scale512(512.0 * attspot * sf + 1.0);
                    let msc = if self.color_for_specular { vf } else { self.mat_specular };
                    add_scaled(&mut spec, l.specular_f, msc, k);
                }
            }
        }
        let clamp = |v: i32| v.clamp(0, 255) as u8;
        if self.set_color1 {
            (
                [clamp(fin[0]), clamp(fin[1]), clamp(fin[2]), clamp(fin[3])],
                [clamp(spec[0]), clamp(spec[1]), clamp(spec[2])],
            )
        } else if self.add_color1 {
            let s = |i: usize| clamp(fin[i].wrapping_add(spec[i]));
            ([s(0), s(1), s(2), s(3)], [0; 3])
        } else {
            ([clamp(fin[0]), clamp(fin[1]), clamp(fin[2]), clamp(fin[3])], [0; 3])
        }
    }
}

/// `emissive + (mac·base_ambient) >> 10` per channel, the primary colour before the lights.
#[inline]
fn ambient_start(emissive: [i32; 4], mac: [i32; 4], base_ambient: [i32; 4]) -> [i32; 4] {
    std::array::from_fn(|i| emissive[i] + ((mac[i] * base_ambient[i]) >> 10))
}

/// `ceil(f)` as an integer (SSE4.1 `ROUNDSS` + `CVTSS2SI`: out of range gives
/// `i32::MIN`), clamped above to 512 [PP `LightCeil<true>`].
#[inline]
fn scale512(f: f32) -> i32 {
    cvtt_ceil(f).min(512)
}

/// `sum += (a·b·k) >> 19` per channel with 32-bit wrapping multiplies
/// [PP `LightColorScaleBy512SSE4`: `PMADDWD`, `PMULLD`, `PSRAD`].
#[inline]
fn add_scaled(sum: &mut [i32; 4], a: [i32; 4], b: [i32; 4], k: i32) {
    for i in 0..4 {
        sum[i] = sum[i].wrapping_add((a[i] * b[i]).wrapping_mul(k) >> 19);
    }
}
