//! Interpolated motions (animation-formats.md §2.1; OpenKh `motion.md`, `Motion.cs`
//! `InterpolatedMotionHeader`). The header after the common header (offsets from 0x90):
//!
//! | rel | field | rel | field |
//! |---|---|---|---|
//! | 0x10 | i16 bones, i16 total joints | 0x40 | key offset |
//! | 0x14 | i32 frame count (GFR ticks) | 0x44 | key-time offset |
//! | 0x18 | IK-helper offset | 0x48 | value offset |
//! | 0x1C | joint offset | 0x4C | tangent offset |
//! | 0x20 | key-time count | 0x50/0x54 | constraint offset/count |
//! | 0x24/0x28 | initial pose offset/count | 0x58 | activation offset |
//! | 0x2C | root-position offset | 0x5C | limiter offset |
//! | 0x30/0x34 | forward curves offset/count | 0x60/0x64 | expression offset/count |
//! | 0x38/0x3C | inverse curves offset/count | 0x68/0x6C | expression-node offset/count |
//! | 0x70 | bbox (2 × vec4) | 0x90 | frame data |
//! | 0xA0 | external-effector offset | 0xA4 | 3 reserved words |
//!
//! Tables follow in that order (initial poses at 0xB0), with the key times 4-aligned, limiters,
//! IK helpers and the root position 16-aligned and the extra offset 16-aligned (OpenKh
//! `InterpolatedMotion.toStream`). Key, value and tangent counts come from the distance to the
//! next table; activations and limiters from the largest index a constraint uses; external
//! effectors (u16 joint ids) run to the extra offset or a zero id.

use super::{Common, FrameData, Kh2Error, Put, Rd, BASE, COMMON_SIZE};
use serde::Serialize;

pub const HEADER_SIZE: usize = 0xA0;

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct InitialPose {
    pub joint: i16,
    pub channel: i16,
    pub value: f32,
}

/// An F-curve: the keys `key_start .. key_start + key_count` animate one channel of one joint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct FCurve {
    /// Combined joint space for forward curves; helper-relative for inverse curves.
    pub joint: i16,
    /// Low 4 bits of byte 2 (0–8 = S, R, T × XYZ).
    pub channel: u8,
    /// Bits 4–5: pre-infinity (0 hold, 1 offset cycle, 2 repeat, 3 zero).
    pub pre: u8,
    /// Bits 6–7: post-infinity.
    pub post: u8,
    pub key_count: u8,
    pub key_start: i16,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Key {
    /// Low 2 bits interpolation (0 constant, 1 linear, 2 Hermite, 3 unexplained), high 14 bits
    /// the key-time index.
    pub type_time: u16,
    pub value: i16,
    pub in_tangent: i16,
    pub out_tangent: i16,
}

impl Key {
    pub fn interp(&self) -> u8 {
        (self.type_time & 3) as u8
    }
    pub fn time_index(&self) -> usize {
        usize::from(self.type_time >> 2)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Constraint {
    /// 0 position, 1 path, 2 orientation, 3 direction, 4 up-vector, 5 two points, 6 scale, …
    pub kind: u8,
    pub temp_active: u8,
    pub constrained: i16,
    pub source: i16,
    pub limiter: i16,
    pub activation_count: i16,
    pub activation_start: i16,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Activation {
    pub time: f32,
    pub active: i32,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Limiter {
    pub flags: i32,
    pub padding: i32,
    pub damping_width: f32,
    pub damping_strength: f32,
    pub min: [f32; 4],
    pub max: [f32; 4],
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Expression {
    pub target: i16,
    pub channel: i16,
    pub reserved: i16,
    pub node: i16,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ExpressionNode {
    pub data: i32,
    pub value: f32,
    pub car: i16,
    pub cdr: i16,
}

/// An IK helper: a joint after the model bones, with its own bind S/R/T (combined-space links).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct IkHelper {
    pub index: i16,
    pub sibling: i16,
    pub parent: i16,
    pub child: i16,
    pub reserved: i32,
    pub flags: i32,
    pub scale: [f32; 4],
    pub rotation: [f32; 4],
    pub translation: [f32; 4],
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Joint {
    pub joint: i16,
    /// 0x02 IK, 0x0C fixed/trans…, 0x20 "calculated" leg chain (OpenKh `Joint` comments).
    pub flags: u8,
    pub reserved: u8,
}

/// Root motion: S/R/T vec4s and 9 F-curve ids (forward then inverse numbering; −1 = unused).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RootPosition {
    pub scale: [f32; 3],
    pub not_unit: i32,
    pub rotation: [f32; 4],
    pub translation: [f32; 4],
    pub fcurve_ids: [i32; 9],
}

#[derive(Debug, Clone, PartialEq)]
pub struct InterpolatedMotion {
    pub common: Common,
    pub bone_count: i16,
    /// GFR ticks (the key-time unit).
    pub frame_count: i32,
    pub bbox: [f32; 8],
    pub frame_data: FrameData,
    pub header_reserved: [i32; 3],
    pub initial_poses: Vec<InitialPose>,
    pub fcurves_forward: Vec<FCurve>,
    pub fcurves_inverse: Vec<FCurve>,
    pub keys: Vec<Key>,
    pub key_times: Vec<f32>,
    pub key_values: Vec<f32>,
    pub tangents: Vec<f32>,
    pub constraints: Vec<Constraint>,
    pub activations: Vec<Activation>,
    pub limiters: Vec<Limiter>,
    pub expressions: Vec<Expression>,
    pub expression_nodes: Vec<ExpressionNode>,
    pub ik_helpers: Vec<IkHelper>,
    pub joints: Vec<Joint>,
    pub root: RootPosition,
    pub external_effectors: Vec<i16>,
}

const H: usize = BASE + COMMON_SIZE;

/// Header fields as stored (offsets relative to 0x90).
struct Header {
    bones: i16,
    total: i16,
    v: [i32; 26],
}

// Indices into `Header::v` (header words from rel 0x14 on).
const FRAME_COUNT: usize = 0;
const IK_OFF: usize = 1;
const JOINT_OFF: usize = 2;
const KEYTIME_COUNT: usize = 3;
const INIT_OFF: usize = 4;
const INIT_COUNT: usize = 5;
const ROOT_OFF: usize = 6;
const FWD_OFF: usize = 7;
const FWD_COUNT: usize = 8;
const INV_OFF: usize = 9;
const INV_COUNT: usize = 10;
const KEY_OFF: usize = 11;
const KEYTIME_OFF: usize = 12;
const VALUE_OFF: usize = 13;
const TANGENT_OFF: usize = 14;
const CONS_OFF: usize = 15;
const CONS_COUNT: usize = 16;
const ACT_OFF: usize = 17;
const LIMITER_OFF: usize = 18;
const EXPR_OFF: usize = 19;
const EXPR_COUNT: usize = 20;
const NODE_OFF: usize = 21;
const NODE_COUNT: usize = 22;
// v[23..26] unused (bbox and frame data sit between); the external-effector offset is read apart.

/// Absolute file offset of header word `i`.
fn word_at(i: usize) -> usize {
    H + 4 + 4 * i
}

impl Header {
    fn read(r: &Rd) -> Result<Header, Kh2Error> {
        r.need(H, HEADER_SIZE, "interpolated motion header")?;
        let mut v = [0i32; 26];
        for (i, w) in v.iter_mut().enumerate().take(23) {
            *w = r.i32(word_at(i), "")?;
        }
        Ok(Header { bones: r.i16(H, "")?, total: r.i16(H + 2, "")?, v })
    }
    /// A stored offset or count as usize, or an error naming its header word.
    fn get(&self, i: usize, what: &'static str) -> Result<usize, Kh2Error> {
        usize::try_from(self.v[i]).map_err(|_| Kh2Error::invalid(word_at(i), what, format!("negative: {}", self.v[i])))
    }
    /// Absolute offset of the table whose relative offset is word `i`.
    fn table(&self, i: usize, what: &'static str) -> Result<usize, Kh2Error> {
        Ok(BASE + self.get(i, what)?)
    }
    /// Entries of `size` bytes between the table at word `a` and the one at word `b`; up to
    /// `pad` bytes of alignment padding may follow the last entry.
    fn between(&self, a: usize, b: usize, size: usize, pad: usize, what: &'static str) -> Result<usize, Kh2Error> {
        let (sa, sb) = (self.get(a, what)?, self.get(b, what)?);
        if sb < sa || (sb - sa) % size > pad {
            return Err(Kh2Error::invalid(
                word_at(a),
                what,
                format!("table {sa:#x}..{sb:#x} is not a whole number of {size}-byte entries"),
            ));
        }
        Ok((sb - sa) / size)
    }
}

fn check_index(ok: bool, offset: usize, what: &'static str, detail: impl FnOnce() -> String) -> Result<(), Kh2Error> {
    if ok {
        Ok(())
    } else {
        Err(Kh2Error::invalid(offset, what, detail()))
    }
}

fn in_range(i: impl Into<i64>, len: usize) -> bool {
    let i = i.into();
    i >= 0 && (i as u64) < len as u64
}

impl InterpolatedMotion {
    pub fn total_joints(&self) -> usize {
        self.bone_count.max(0) as usize + self.ik_helpers.len()
    }

    pub fn parse(bytes: &[u8]) -> Result<InterpolatedMotion, Kh2Error> {
        let r = Rd::new(bytes);
        let h = Header::read(&r)?;
        let (common, extra_off) = Common::read(&r)?;
        if h.bones < 0 || h.total < h.bones {
            return Err(Kh2Error::invalid(H, "joint counts", format!("{} bones, {} total", h.bones, h.total)));
        }
        let total = h.total as usize;
        let bbox = r.f32s::<8>(H + 0x60, "bbox")?;
        let frame_data = FrameData::read(&r, H + 0x80)?;
        let eff_off = r.i32(H + 0x90, "external effector offset")?;
        let header_reserved = [r.i32(H + 0x94, "")?, r.i32(H + 0x98, "")?, r.i32(H + 0x9C, "")?];

        let cnt = |i: usize, what| h.get(i, what);
        let at = |i: usize, what| h.table(i, what);
        let ip = |o: usize| -> Result<InitialPose, Kh2Error> {
            Ok(InitialPose { joint: r.i16(o, "")?, channel: r.i16(o + 2, "")?, value: r.f32(o + 4, "")? })
        };
        let initial_poses =
            r.table(at(INIT_OFF, "initial poses")?, cnt(INIT_COUNT, "initial poses")?, 8, "initial poses", ip)?;
        let fc = |o: usize| -> Result<FCurve, Kh2Error> {
            let b = r.u8(o + 2, "")?;
            Ok(FCurve {
                joint: r.i16(o, "")?,
                channel: b & 0xF,
                pre: (b >> 4) & 3,
                post: b >> 6,
                key_count: r.u8(o + 3, "")?,
                key_start: r.i16(o + 4, "")?,
            })
        };
        let fcurves_forward =
            r.table(at(FWD_OFF, "forward curves")?, cnt(FWD_COUNT, "forward curves")?, 6, "forward curves", fc)?;
        let fcurves_inverse =
            r.table(at(INV_OFF, "inverse curves")?, cnt(INV_COUNT, "inverse curves")?, 6, "inverse curves", fc)?;
        let key = |o: usize| -> Result<Key, Kh2Error> {
            Ok(Key {
                type_time: r.u16(o, "")?,
                value: r.i16(o + 2, "")?,
                in_tangent: r.i16(o + 4, "")?,
                out_tangent: r.i16(o + 6, "")?,
            })
        };
        let nkeys = h.between(KEY_OFF, KEYTIME_OFF, 8, 3, "keys")?;
        let keys = r.table(at(KEY_OFF, "keys")?, nkeys, 8, "keys", key)?;
        let f = |o: usize| r.f32(o, "");
        let key_times = r.table(at(KEYTIME_OFF, "key times")?, cnt(KEYTIME_COUNT, "key times")?, 4, "key times", f)?;
        let nvalues = h.between(VALUE_OFF, TANGENT_OFF, 4, 0, "key values")?;
        let key_values = r.table(at(VALUE_OFF, "key values")?, nvalues, 4, "key values", f)?;
        let ntangents = h.between(TANGENT_OFF, CONS_OFF, 4, 0, "tangents")?;
        let tangents = r.table(at(TANGENT_OFF, "tangents")?, ntangents, 4, "tangents", f)?;
        let cons = |o: usize| -> Result<Constraint, Kh2Error> {
            Ok(Constraint {
                kind: r.u8(o, "")?,
                temp_active: r.u8(o + 1, "")?,
                constrained: r.i16(o + 2, "")?,
                source: r.i16(o + 4, "")?,
                limiter: r.i16(o + 6, "")?,
                activation_count: r.i16(o + 8, "")?,
                activation_start: r.i16(o + 10, "")?,
            })
        };
        let cons_at = at(CONS_OFF, "constraints")?;
        let constraints = r.table(cons_at, cnt(CONS_COUNT, "constraints")?, 12, "constraints", cons)?;
        let mut nact = 0usize;
        let mut nlim = 0usize;
        for (i, c) in constraints.iter().enumerate() {
            let o = cons_at + 12 * i;
            check_index(c.activation_count >= 0 && c.activation_start >= 0, o + 8, "constraint activations", || {
                format!("negative activation range {}+{}", c.activation_start, c.activation_count)
            })?;
            if c.activation_count > 0 {
                nact = nact.max(c.activation_start as usize + c.activation_count as usize);
            }
            check_index(c.limiter >= -1, o + 6, "constraint limiter", || format!("{}", c.limiter))?;
            nlim = nlim.max((c.limiter + 1) as usize);
            for (j, off) in [(c.constrained, o + 2), (c.source, o + 4)] {
                check_index(in_range(j, total), off, "constraint joint", || format!("{j} not below {total} joints"))?;
            }
        }
        let act = |o: usize| -> Result<Activation, Kh2Error> {
            Ok(Activation { time: r.f32(o, "")?, active: r.i32(o + 4, "")? })
        };
        let activations = r.table(at(ACT_OFF, "activations")?, nact, 8, "constraint activations", act)?;
        let lim = |o: usize| -> Result<Limiter, Kh2Error> {
            Ok(Limiter {
                flags: r.i32(o, "")?,
                padding: r.i32(o + 4, "")?,
                damping_width: r.f32(o + 8, "")?,
                damping_strength: r.f32(o + 12, "")?,
                min: r.f32s::<4>(o + 16, "")?,
                max: r.f32s::<4>(o + 32, "")?,
            })
        };
        let limiters = r.table(at(LIMITER_OFF, "limiters")?, nlim, 48, "limiters", lim)?;
        let expr = |o: usize| -> Result<Expression, Kh2Error> {
            Ok(Expression {
                target: r.i16(o, "")?,
                channel: r.i16(o + 2, "")?,
                reserved: r.i16(o + 4, "")?,
                node: r.i16(o + 6, "")?,
            })
        };
        let expressions =
            r.table(at(EXPR_OFF, "expressions")?, cnt(EXPR_COUNT, "expressions")?, 8, "expressions", expr)?;
        let node = |o: usize| -> Result<ExpressionNode, Kh2Error> {
            Ok(ExpressionNode {
                data: r.i32(o, "")?,
                value: r.f32(o + 4, "")?,
                car: r.i16(o + 8, "")?,
                cdr: r.i16(o + 10, "")?,
            })
        };
        let expression_nodes = r.table(
            at(NODE_OFF, "expression nodes")?,
            cnt(NODE_COUNT, "expression nodes")?,
            12,
            "expression nodes",
            node,
        )?;
        let ik = |o: usize| -> Result<IkHelper, Kh2Error> {
            Ok(IkHelper {
                index: r.i16(o, "")?,
                sibling: r.i16(o + 2, "")?,
                parent: r.i16(o + 4, "")?,
                child: r.i16(o + 6, "")?,
                reserved: r.i32(o + 8, "")?,
                flags: r.i32(o + 12, "")?,
                scale: r.f32s::<4>(o + 16, "")?,
                rotation: r.f32s::<4>(o + 32, "")?,
                translation: r.f32s::<4>(o + 48, "")?,
            })
        };
        let ik_at = at(IK_OFF, "IK helpers")?;
        let ik_helpers = r.table(ik_at, total - h.bones as usize, 64, "IK helpers", ik)?;
        let jt = |o: usize| -> Result<Joint, Kh2Error> {
            Ok(Joint { joint: r.i16(o, "")?, flags: r.u8(o + 2, "")?, reserved: r.u8(o + 3, "")? })
        };
        let joint_at = at(JOINT_OFF, "joints")?;
        let joints = r.table(joint_at, total, 4, "joints", jt)?;
        let root_at = at(ROOT_OFF, "root position")?;
        r.need(root_at, 84, "root position")?;
        let mut fcurve_ids = [0i32; 9];
        for (i, v) in fcurve_ids.iter_mut().enumerate() {
            *v = r.i32(root_at + 48 + 4 * i, "")?;
        }
        let s4 = r.f32s::<4>(root_at, "")?;
        let root = RootPosition {
            scale: [s4[0], s4[1], s4[2]],
            not_unit: r.i32(root_at + 12, "")?,
            rotation: r.f32s::<4>(root_at + 16, "")?,
            translation: r.f32s::<4>(root_at + 32, "")?,
            fcurve_ids,
        };
        let eff_rel = usize::try_from(eff_off)
            .map_err(|_| Kh2Error::invalid(H + 0x90, "external effector offset", format!("negative: {eff_off}")))?;
        let mut external_effectors = Vec::new();
        let mut o = BASE + eff_rel;
        while o + 2 <= BASE + extra_off {
            let j = r.i16(o, "external effectors")?;
            if j == 0 {
                break;
            }
            external_effectors.push(j);
            o += 2;
        }
        let m = InterpolatedMotion {
            common,
            bone_count: h.bones,
            frame_count: h.v[FRAME_COUNT],
            bbox,
            frame_data,
            header_reserved,
            initial_poses,
            fcurves_forward,
            fcurves_inverse,
            keys,
            key_times,
            key_values,
            tangents,
            constraints,
            activations,
            limiters,
            expressions,
            expression_nodes,
            ik_helpers,
            joints,
            root,
            external_effectors,
        };
        let offsets = Offsets {
            init: at(INIT_OFF, "")?,
            fwd: at(FWD_OFF, "")?,
            inv: at(INV_OFF, "")?,
            key: at(KEY_OFF, "")?,
            expr: at(EXPR_OFF, "")?,
            node: at(NODE_OFF, "")?,
            ik: ik_at,
            joint: joint_at,
            root: root_at,
        };
        m.check_references(&offsets)?;
        Ok(m)
    }

    /// Every cross-reference in range, each failure naming the referencing record's offset.
    fn check_references(&self, at: &Offsets) -> Result<(), Kh2Error> {
        let total = self.total_joints();
        let bones = self.bone_count as usize;
        for (i, p) in self.initial_poses.iter().enumerate() {
            check_index(in_range(p.joint, total), at.init + 8 * i, "initial pose joint", || {
                format!("{} not below {total}", p.joint)
            })?;
        }
        for (curves, base, shift, what) in [
            (&self.fcurves_forward, at.fwd, 0, "forward curve"),
            (&self.fcurves_inverse, at.inv, bones, "inverse curve"),
        ] {
            for (i, c) in curves.iter().enumerate() {
                let o = base + 6 * i;
                let j = i64::from(c.joint) + shift as i64;
                check_index(c.joint >= 0 && in_range(j, total), o, what, || {
                    format!("joint {} (combined {j}) not below {total}", c.joint)
                })?;
                let end = i64::from(c.key_start) + i64::from(c.key_count);
                check_index(c.key_start >= 0 && end <= self.keys.len() as i64, o + 4, what, || {
                    format!("keys {}..{end} past the {} keys", c.key_start, self.keys.len())
                })?;
            }
        }
        for (i, k) in self.keys.iter().enumerate() {
            let o = at.key + 8 * i;
            check_index(k.time_index() < self.key_times.len(), o, "key time index", || {
                format!("key {i}: time index {} not below {}", k.time_index(), self.key_times.len())
            })?;
            check_index(in_range(k.value, self.key_values.len()), o + 2, "key value index", || {
                format!("key {i}: value index {} not below {}", k.value, self.key_values.len())
            })?;
            // Only Hermite keys read tangents (the ANB sample's linear keys point at tangent 0 of 0).
            if k.interp() == 2 {
                for (t, off) in [(k.in_tangent, o + 4), (k.out_tangent, o + 6)] {
                    check_index(in_range(t, self.tangents.len()), off, "key tangent index", || {
                        format!("key {i}: tangent index {t} not below {}", self.tangents.len())
                    })?;
                }
            }
        }
        for (i, e) in self.expressions.iter().enumerate() {
            check_index(in_range(e.node, self.expression_nodes.len()), at.expr + 8 * i + 6, "expression node", || {
                format!("{}", e.node)
            })?;
            check_index(in_range(e.target, total), at.expr + 8 * i, "expression target", || format!("{}", e.target))?;
        }
        let n = self.expression_nodes.len();
        for (i, e) in self.expression_nodes.iter().enumerate() {
            for (v, off) in [(e.car, 8), (e.cdr, 10)] {
                check_index(v == -1 || in_range(v, n), at.node + 12 * i + off, "expression node link", || {
                    format!("{v}")
                })?;
            }
        }
        for (i, k) in self.ik_helpers.iter().enumerate() {
            check_index(k.parent == -1 || in_range(k.parent, total), at.ik + 64 * i + 4, "IK helper parent", || {
                format!("{}", k.parent)
            })?;
        }
        for (i, j) in self.joints.iter().enumerate() {
            check_index(in_range(j.joint, total), at.joint + 4 * i, "joint table", || {
                format!("{} not below {total}", j.joint)
            })?;
        }
        let ncurves = (self.fcurves_forward.len() + self.fcurves_inverse.len()) as i64;
        for (i, &id) in self.root.fcurve_ids.iter().enumerate() {
            check_index(
                id == -1 || (0..ncurves).contains(&i64::from(id)),
                at.root + 48 + 4 * i,
                "root F-curve id",
                || format!("{id} (of {ncurves} curves)"),
            )?;
        }
        Ok(())
    }

    pub fn to_bytes(&self) -> Result<Vec<u8>, Kh2Error> {
        let bad = |s: String| Err(Kh2Error::Unwritable(s));
        let total = self.total_joints();
        let Ok(total16) = i16::try_from(total) else { return bad(format!("{total} joints")) };
        if self.bone_count < 0 {
            return bad(format!("bone count {}", self.bone_count));
        }
        for c in self.fcurves_forward.iter().chain(&self.fcurves_inverse) {
            if c.channel > 15 || c.pre > 3 || c.post > 3 {
                return bad(format!("curve channel/pre/post {}/{}/{} do not fit their bits", c.channel, c.pre, c.post));
            }
        }
        if let Some(k) = self.keys.iter().find(|k| k.type_time >> 2 >= 1 << 14) {
            return bad(format!("key type/time word {:#x}", k.type_time));
        }
        if self.joints.len() != total {
            return bad(format!("{} joint records for {total} joints", self.joints.len()));
        }
        let acts = self
            .constraints
            .iter()
            .filter(|c| c.activation_count > 0)
            .map(|c| c.activation_start.max(0) as usize + c.activation_count as usize)
            .max()
            .unwrap_or(0);
        if acts != self.activations.len() {
            return bad(format!("{} activations but the constraints reference {acts}", self.activations.len()));
        }
        let lims = self.constraints.iter().map(|c| (c.limiter.max(-1) + 1) as usize).max().unwrap_or(0);
        if lims != self.limiters.len() {
            return bad(format!("{} limiters but the constraints reference {lims}", self.limiters.len()));
        }
        if self.external_effectors.contains(&0) {
            return bad("external effector 0 would end the table".into());
        }
        let mut v = [0i32; 26];
        let mut out = Vec::new();
        self.common.header(&mut out, 0)?;
        out.resize(BASE + COMMON_SIZE + HEADER_SIZE, 0);
        let rel = |out: &Vec<u8>| -> Result<i32, Kh2Error> {
            i32::try_from(out.len() - BASE).map_err(|_| Kh2Error::Unwritable("motion of 2 GiB".into()))
        };
        let count = |n: usize| -> Result<i32, Kh2Error> {
            i32::try_from(n).map_err(|_| Kh2Error::Unwritable(format!("table of {n}")))
        };
        v[FRAME_COUNT] = self.frame_count;
        v[INIT_OFF] = rel(&out)?;
        v[INIT_COUNT] = count(self.initial_poses.len())?;
        for p in &self.initial_poses {
            out.put_i16(p.joint);
            out.put_i16(p.channel);
            out.put_f32(p.value);
        }
        for (curves, off, cnt) in
            [(&self.fcurves_forward, FWD_OFF, FWD_COUNT), (&self.fcurves_inverse, INV_OFF, INV_COUNT)]
        {
            v[off] = rel(&out)?;
            v[cnt] = count(curves.len())?;
            for c in curves {
                out.put_i16(c.joint);
                out.push(c.channel | (c.pre << 4) | (c.post << 6));
                out.push(c.key_count);
                out.put_i16(c.key_start);
            }
        }
        v[KEY_OFF] = rel(&out)?;
        for k in &self.keys {
            out.put_u16(k.type_time);
            out.put_i16(k.value);
            out.put_i16(k.in_tangent);
            out.put_i16(k.out_tangent);
        }
        out.align_to(4);
        v[KEYTIME_OFF] = rel(&out)?;
        v[KEYTIME_COUNT] = count(self.key_times.len())?;
        out.put_f32s(&self.key_times);
        v[VALUE_OFF] = rel(&out)?;
        out.put_f32s(&self.key_values);
        v[TANGENT_OFF] = rel(&out)?;
        out.put_f32s(&self.tangents);
        v[CONS_OFF] = rel(&out)?;
        v[CONS_COUNT] = count(self.constraints.len())?;
        for c in &self.constraints {
            out.push(c.kind);
            out.push(c.temp_active);
            for w in [c.constrained, c.source, c.limiter, c.activation_count, c.activation_start] {
                out.put_i16(w);
            }
        }
        v[ACT_OFF] = rel(&out)?;
        for a in &self.activations {
            out.put_f32(a.time);
            out.put_i32(a.active);
        }
        out.align_to(16);
        v[LIMITER_OFF] = rel(&out)?;
        for l in &self.limiters {
            out.put_i32(l.flags);
            out.put_i32(l.padding);
            out.put_f32(l.damping_width);
            out.put_f32(l.damping_strength);
            out.put_f32s(&l.min);
            out.put_f32s(&l.max);
        }
        v[EXPR_OFF] = rel(&out)?;
        v[EXPR_COUNT] = count(self.expressions.len())?;
        for e in &self.expressions {
            for w in [e.target, e.channel, e.reserved, e.node] {
                out.put_i16(w);
            }
        }
        v[NODE_OFF] = rel(&out)?;
        v[NODE_COUNT] = count(self.expression_nodes.len())?;
        for n in &self.expression_nodes {
            out.put_i32(n.data);
            out.put_f32(n.value);
            out.put_i16(n.car);
            out.put_i16(n.cdr);
        }
        out.align_to(16);
        v[IK_OFF] = rel(&out)?;
        for k in &self.ik_helpers {
            for w in [k.index, k.sibling, k.parent, k.child] {
                out.put_i16(w);
            }
            out.put_i32(k.reserved);
            out.put_i32(k.flags);
            out.put_f32s(&k.scale);
            out.put_f32s(&k.rotation);
            out.put_f32s(&k.translation);
        }
        v[JOINT_OFF] = rel(&out)?;
        for j in &self.joints {
            out.put_i16(j.joint);
            out.push(j.flags);
            out.push(j.reserved);
        }
        out.align_to(16);
        v[ROOT_OFF] = rel(&out)?;
        out.put_f32s(&self.root.scale);
        out.put_i32(self.root.not_unit);
        out.put_f32s(&self.root.rotation);
        out.put_f32s(&self.root.translation);
        self.root.fcurve_ids.iter().for_each(|&i| out.put_i32(i));
        let eff = rel(&out)?;
        self.external_effectors.iter().for_each(|&j| out.put_i16(j));
        out.align_to(16);
        // Header words.
        let mut head = Vec::with_capacity(HEADER_SIZE);
        head.put_i16(self.bone_count);
        head.put_i16(total16);
        v[..23].iter().for_each(|&w| head.put_i32(w));
        head.put_f32s(&self.bbox);
        self.frame_data.put(&mut head);
        head.put_i32(eff);
        self.header_reserved.iter().for_each(|&w| head.put_i32(w));
        out[H..H + HEADER_SIZE].copy_from_slice(&head);
        self.common.finish(&mut out)?;
        Ok(out)
    }
}

/// Absolute offsets of the tables whose records are cross-checked.
struct Offsets {
    init: usize,
    fwd: usize,
    inv: usize,
    key: usize,
    expr: usize,
    node: usize,
    ik: usize,
    joint: usize,
    root: usize,
}
