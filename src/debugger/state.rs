//! The GE state of one draw grouped by pipeline stage, its vertices as decoded, and what
//! changed since the previous draw: the data behind `psprender state`, `diff` and the
//! report.
//!
//! Names and argument texts come from the command table (`ge::cmd::info`, the same rows
//! the executor and disassembler use); this module only says which stage each command
//! number belongs to ([`STAGES`]).

use ge::cmd::{self, op};
use ge::dump::Step;
use ge::regs::Matrices;
use ge::state::GeState;
use ge::vertex::{decode_draw, Persist, VertexLayout};
use ge::Ge;
use serde::{Serialize, Serializer};
use serde_json::{json, Map, Value};

/// A pipeline stage and the command numbers (inclusive ranges) whose registers configure it.
pub struct Stage {
    pub name: &'static str,
    pub ops: &'static [(u8, u8)],
}

/// Every configuration register by stage, in pipeline order (ge-reference.md §1.2 sections).
/// Flow commands (JUMP, CALL, ...) and the matrix data ports are not state; matrices are
/// listed as numbers separately.
pub const STAGES: &[Stage] = &[
    Stage {
        name: "vertex",
        ops: &[(op::VADDR, op::IADDR), (op::BASE, op::BASE), (op::VERTEXTYPE, op::OFFSETADDR), (0x2C, 0x33)],
    },
    Stage {
        name: "primitive",
        ops: &[
            (op::PRIM, op::BOUNDINGBOX),
            (op::CULLFACEENABLE, op::CULLFACEENABLE),
            (0x26, 0x26),
            (0x36, 0x38),
            (op::CULL, op::CULL),
        ],
    },
    Stage {
        name: "transform",
        ops: &[(op::DEPTHCLAMPENABLE, op::DEPTHCLAMPENABLE), (0x42, 0x47), (0x4C, 0x4D), (op::MINZ, op::MAXZ)],
    },
    Stage {
        name: "lighting",
        ops: &[(op::LIGHTINGENABLE, 0x1B), (op::SHADEMODE, op::REVERSENORMAL), (op::MATERIALUPDATE, 0x9A)],
    },
    Stage {
        name: "texture",
        ops: &[
            (op::TEXTUREMAPENABLE, op::TEXTUREMAPENABLE),
            (0x48, 0x4B),
            (op::TEXADDR0, 0xAF),
            (op::TEXSIZE0, op::TEXFORMAT),
            (op::TEXFILTER, op::TEXSYNC),
            (op::TEXLODSLOPE, op::TEXLODSLOPE),
        ],
    },
    Stage { name: "clut", ops: &[(op::CLUTADDR, op::CLUTADDRUPPER), (op::LOADCLUT, op::CLUTFORMAT)] },
    Stage { name: "fog", ops: &[(op::FOGENABLE, op::FOGENABLE), (op::FOG1, op::FOGCOLOR)] },
    Stage {
        name: "pixel_tests",
        ops: &[
            (op::ALPHATESTENABLE, op::ANTIALIASENABLE),
            (op::COLORTESTENABLE, op::COLORTESTENABLE),
            (op::CLEARMODE, op::SCISSOR2),
            (op::COLORTEST, op::ZTEST),
            (op::ZWRITEDISABLE, op::ZWRITEDISABLE),
        ],
    },
    Stage {
        name: "blend",
        ops: &[
            (op::DITHERENABLE, op::ALPHABLENDENABLE),
            (op::LOGICOPENABLE, op::LOGICOPENABLE),
            (op::BLENDMODE, op::LOGICOP),
            (op::MASKRGB, op::MASKALPHA),
        ],
    },
    Stage {
        name: "framebuffer",
        ops: &[
            (op::REGION1, op::REGION2),
            (op::FRAMEBUFPTR, op::ZBUFWIDTH),
            (op::FRAMEBUFPIXFORMAT, op::FRAMEBUFPIXFORMAT),
        ],
    },
    Stage { name: "transfer", ops: &[(op::TRANSFERSRC, op::TRANSFERDSTW), (op::TRANSFERSTART, op::TRANSFERSIZE)] },
];

/// The stage a command number belongs to, if it is configuration state.
pub fn stage_of(cmd: u8) -> Option<&'static str> {
    STAGES.iter().find(|s| s.ops.iter().any(|&(a, b)| (a..=b).contains(&cmd))).map(|s| s.name)
}

/// A command number as the state shows it: `0x` and two hex digits.
struct Op(u8);

impl Serialize for Op {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&format_args!("0x{:02x}", self.0))
    }
}

/// One register: command number, argument, and the command table's text.
#[derive(Serialize)]
struct Register {
    arg: u32,
    op: Op,
    text: String,
}

/// The registers of a state grouped by stage (`{stage: {NAME: {op, arg, text}}}`), every
/// register of the stage whatever its value. Serialized straight from the register file:
/// the report writes this for every keyframe, and building it as a `serde_json::Value`
/// first (a map and four strings per register) cost about 4 M instructions a keyframe.
pub struct Stages {
    args: Box<[u32; 256]>,
}

/// A stage's name and its registers as (name, command number), by name.
type SortedStage = (&'static str, Vec<(&'static str, u8)>);

/// Each stage's registers by name, stages by name: the order a `serde_json::Map` (sorted
/// keys) gave this JSON when it was built as a `Value`. Of two commands of one name in a
/// stage, the later one's register is shown, as inserting into that map did.
fn sorted_stages() -> &'static [SortedStage] {
    static SORTED: std::sync::OnceLock<Vec<SortedStage>> = std::sync::OnceLock::new();
    SORTED.get_or_init(|| {
        let mut stages: Vec<_> = STAGES
            .iter()
            .map(|s| {
                let mut regs = std::collections::BTreeMap::new();
                for &(a, b) in s.ops {
                    for c in a..=b {
                        let name = cmd::info(c).name;
                        if name != "UNKNOWN" {
                            regs.insert(name, c);
                        }
                    }
                }
                (s.name, regs.into_iter().collect())
            })
            .collect();
        stages.sort_by_key(|s| s.0);
        stages
    })
}

impl Stages {
    /// The registers of `st`.
    pub fn of(st: &GeState) -> Stages {
        Stages { args: Box::new(st.regs.raw) }
    }

    /// A stage's registers as (name, command, argument), by name.
    fn stage(&self, name: &str) -> impl Iterator<Item = (&'static str, u8, u32)> + '_ {
        let regs = sorted_stages().iter().find(|s| s.0 == name).map_or(&[][..], |s| &s.1[..]);
        regs.iter().map(|&(n, c)| (n, c, self.args[usize::from(c)]))
    }
}

/// One stage's registers, for serializing.
struct StageRegs<'a>(&'a Stages, &'static str);

impl Serialize for StageRegs<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(
            self.0.stage(self.1).map(|(n, c, arg)| (n, Register { arg, op: Op(c), text: cmd::format_arg(c, arg) })),
        )
    }
}

impl Serialize for Stages {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(sorted_stages().iter().map(|(name, _)| (name, StageRegs(self, name))))
    }
}

/// The matrices as numbers in load order (world/view/tgen 4×3, projection 4×4), and the
/// bone matrices the vertex type uses (12 numbers each). Numbers are the `f32`s widened to
/// `f64` (as a `serde_json::Value` holds them), so `0.1` prints as `0.10000000149011612`.
#[derive(Serialize)]
pub struct MatrixNumbers {
    pub bones: Vec<Vec<f64>>,
    pub projection: Vec<f64>,
    pub texgen: Vec<f64>,
    pub view: Vec<f64>,
    pub world: Vec<f64>,
}

impl MatrixNumbers {
    fn of(m: &Matrices, bones_used: usize) -> MatrixNumbers {
        let wide = |a: &[f32]| a.iter().map(|&x| f64::from(x)).collect::<Vec<f64>>();
        MatrixNumbers {
            bones: m.bones.chunks(12).take(bones_used).map(wide).collect(),
            projection: wide(&m.proj),
            texgen: wide(&m.tgen),
            view: wide(&m.view),
            world: wide(&m.world),
        }
    }

    /// (name, numbers) of the 4×3 and 4×4 matrices, by name.
    fn named(&self) -> [(&'static str, &[f64]); 4] {
        [("projection", &self.projection), ("texgen", &self.texgen), ("view", &self.view), ("world", &self.world)]
    }
}

/// Vertices listed at most per draw (a draw may consume 65,535).
pub const MAX_VERTICES: usize = 1024;

/// How many vertices a draw word consumes: PRIM's count; BEZIER/SPLINE's u × v control points.
fn vertex_count(word: u32) -> u32 {
    let (c, arg) = cmd::split(word);
    match c {
        op::PRIM => arg & 0xFFFF,
        op::BEZIER | op::SPLINE => (arg & 0xFF) * ((arg >> 8) & 0xFF),
        _ => 0,
    }
}

/// The draw's vertices as the vertex stage decodes them from memory (before transform),
/// read again at the pointers the draw started from. guess: attributes a vertex format
/// lacks show the decoder's defaults rather than the values carried over from earlier draws.
pub fn vertices(ge: &Ge, step: &Step) -> Value {
    let count = vertex_count(step.word);
    let layout = VertexLayout::new(ge.state.regs.arg(op::VERTEXTYPE));
    let vt = layout.vtype;
    let mut persist = Persist::default();
    let params = ge.state.decode_params();
    match decode_draw(&ge.mem, &layout, step.vaddr, step.iaddr, count, &params, &mut persist) {
        Ok(d) => {
            let list: Vec<Value> = d
                .vertices
                .iter()
                .take(MAX_VERTICES)
                .map(|v| {
                    let mut o = Map::new();
                    if vt.has_weights() {
                        o.insert("weights".into(), json!(v.weights[..usize::from(vt.weight_count).min(8)].to_vec()));
                    }
                    if vt.has_texcoord() {
                        o.insert("uv".into(), json!(v.uv.to_vec()));
                    }
                    o.insert("color".into(), json!(v.color.to_vec()));
                    if vt.has_normal() {
                        o.insert("normal".into(), json!(v.normal.to_vec()));
                    }
                    o.insert("pos".into(), json!(v.pos.to_vec()));
                    Value::Object(o)
                })
                .collect();
            json!({ "format": layout.to_string(), "count": count, "listed": list.len(), "vertices": list })
        }
        Err(e) => json!({ "format": layout.to_string(), "count": count, "error": e.to_string() }),
    }
}

/// Bone matrices the vertex type's weights address.
fn bones_used(st: &GeState) -> usize {
    let vt = VertexLayout::new(st.regs.arg(op::VERTEXTYPE)).vtype;
    if vt.has_weights() {
        usize::from(vt.weight_count).min(8)
    } else {
        0
    }
}

/// A register that changed between two states.
#[derive(Serialize)]
pub struct ChangedRegister {
    pub from: u32,
    pub from_text: String,
    pub name: &'static str,
    op: Op,
    pub stage: Option<&'static str>,
    pub to: u32,
    pub to_text: String,
}

/// What changed between two states: registers (with their stage), matrices, the CLUT cache.
#[derive(Serialize)]
pub struct Changes {
    pub clut_cache: bool,
    pub matrices: Vec<&'static str>,
    pub registers: Vec<ChangedRegister>,
}

impl Changes {
    /// From `prev` to `cur`.
    pub fn between(prev: &GeState, cur: &GeState) -> Changes {
        let registers = changed_registers(prev, cur)
            .map(|c| {
                let (a, b) = (prev.regs.arg(c), cur.regs.arg(c));
                ChangedRegister {
                    from: a,
                    from_text: cmd::format_arg(c, a),
                    name: cmd::name(c),
                    op: Op(c),
                    stage: stage_of(c),
                    to: b,
                    to_text: cmd::format_arg(c, b),
                }
            })
            .collect();
        Changes { clut_cache: prev.clut != cur.clut, matrices: changed_matrices(prev, cur), registers }
    }
}

/// [`Changes::between`] as JSON.
pub fn changes(prev: &GeState, cur: &GeState) -> Value {
    serde_json::to_value(Changes::between(prev, cur)).unwrap_or_default()
}

/// The commands whose register argument differs between the two states, in command order.
pub fn changed_registers<'a>(prev: &'a GeState, cur: &'a GeState) -> impl Iterator<Item = u8> + 'a {
    (0..=255u8).filter(move |&c| prev.regs.arg(c) != cur.regs.arg(c))
}

/// The matrices (world, view, projection, texgen, bones) whose bits differ.
pub fn changed_matrices(prev: &GeState, cur: &GeState) -> Vec<&'static str> {
    let (pm, cm) = (&prev.mats, &cur.mats);
    let differ = |a: &[f32], b: &[f32]| a.iter().zip(b).any(|(x, y)| x.to_bits() != y.to_bits());
    [
        ("world", &pm.world[..], &cm.world[..]),
        ("view", &pm.view[..], &cm.view[..]),
        ("projection", &pm.proj[..], &cm.proj[..]),
        ("texgen", &pm.tgen[..], &cm.tgen[..]),
        ("bones", &pm.bones[..], &cm.bones[..]),
    ]
    .into_iter()
    .filter(|(_, a, b)| a.len() != b.len() || differ(a, b))
    .map(|(name, _, _)| name)
    .collect()
}

/// The draw word itself: its number, disassembly, record and pushbuf offset.
#[derive(Serialize)]
pub struct DrawInfo {
    pub command: String,
    pub draw: Option<u32>,
    pub iaddr: String,
    pub offset: Option<String>,
    pub record: usize,
    pub vaddr: String,
    pub word: String,
}

impl DrawInfo {
    pub fn of(step: &Step) -> DrawInfo {
        DrawInfo {
            command: cmd::disassemble(step.word),
            draw: step.draw,
            iaddr: format!("0x{:08x}", step.iaddr),
            offset: step.src.map(|o| format!("0x{o:x}")),
            record: step.record,
            vaddr: format!("0x{:08x}", step.vaddr),
            word: format!("0x{:08x}", step.word),
        }
    }
}

/// Everything `psprender state` prints for a draw: the draw, its stages, matrices, decoded
/// vertices, and the changes since the previous draw. Its JSON has every object's keys in
/// sorted order (the fields are declared so).
#[derive(Serialize)]
pub struct DrawState {
    pub changed: Changes,
    pub draw: DrawInfo,
    pub matrices: MatrixNumbers,
    pub stages: Stages,
    pub vertices: Value,
}

/// The state of the draw `step` (whose vertices are decoded from `ge`'s memory), with the
/// changes since `prev` (the previous draw's state, `None` for draw 1, which is compared
/// with the power-on state).
pub fn draw_state(ge: &Ge, step: &Step, prev: Option<&GeState>) -> DrawState {
    let mut st = draw_state_without_vertices(&ge.state, step, prev);
    st.vertices = vertices(ge, step);
    st
}

/// [`draw_state`] without decoding the vertices (`vertices` holds the format and count):
/// what the report keeps per keyframe.
pub fn draw_state_without_vertices(st: &GeState, step: &Step, prev: Option<&GeState>) -> DrawState {
    let power_on;
    let prev = match prev {
        Some(p) => p,
        None => {
            power_on = GeState::default();
            &power_on
        }
    };
    let layout = VertexLayout::new(st.regs.arg(op::VERTEXTYPE));
    DrawState {
        changed: Changes::between(prev, st),
        draw: DrawInfo::of(step),
        matrices: MatrixNumbers::of(&st.mats, bones_used(st)),
        stages: Stages::of(st),
        vertices: json!({ "format": layout.to_string(), "count": vertex_count(step.word), "listed": 0, "vertices": [] }),
    }
}

/// Human-readable form of [`DrawState`]: stage by stage, non-zero registers listed by the
/// command table's name and text.
pub fn to_text(v: &DrawState) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let d = &v.draw;
    let _ = writeln!(
        s,
        "draw {}: {} (record {}, pushbuf offset {})",
        d.draw.map_or_else(|| "null".to_string(), |n| n.to_string()),
        d.command,
        d.record,
        d.offset.as_deref().unwrap_or("-")
    );
    for s_def in STAGES {
        let _ = writeln!(s, "[{}]", s_def.name);
        for (name, c, arg) in v.stages.stage(s_def.name) {
            if arg != 0 {
                let _ = writeln!(s, "  {name:<20} {:>8}  {}", format!("0x{arg:06x}"), cmd::format_arg(c, arg));
            }
        }
    }
    let _ = writeln!(s, "[matrices]");
    let _ = writeln!(s, "  bones: {} used", v.matrices.bones.len());
    for (name, vals) in v.matrices.named() {
        let _ = writeln!(s, "  {name:<10} {}", serde_json::to_string(vals).unwrap_or_default());
    }
    let vx = &v.vertices;
    let _ = writeln!(
        s,
        "[vertices] {} ({} vertices, {} listed)",
        vx["format"].as_str().unwrap_or(""),
        vx["count"],
        vx["listed"]
    );
    if let Some(e) = vx["error"].as_str() {
        let _ = writeln!(s, "  cannot decode: {e}");
    }
    for (i, x) in vx["vertices"].as_array().into_iter().flatten().enumerate() {
        let _ = writeln!(s, "  {i:>4}: {x}");
    }
    let ch = &v.changed;
    let _ = writeln!(s, "[changed since the previous draw]");
    for r in &ch.registers {
        let _ = writeln!(s, "  {:<20} {} -> {}", r.name, r.from_text, r.to_text);
    }
    for m in &ch.matrices {
        let _ = writeln!(s, "  matrix {m}");
    }
    if ch.clut_cache {
        let _ = writeln!(s, "  CLUT cache reloaded with different entries");
    }
    s
}
