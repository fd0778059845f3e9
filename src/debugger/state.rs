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

/// One register as JSON: command number, argument, and the command table's text.
fn register(cmd: u8, arg: u32) -> Value {
    json!({ "op": format!("0x{cmd:02x}"), "arg": arg, "text": cmd::format_arg(cmd, arg) })
}

/// The matrices as numbers in load order (world/view/tgen 4×3, projection 4×4), and the
/// bone matrices the vertex type uses (12 numbers each).
fn matrices(m: &Matrices, bones_used: usize) -> Value {
    json!({
        "world": m.world.to_vec(),
        "view": m.view.to_vec(),
        "projection": m.proj.to_vec(),
        "texgen": m.tgen.to_vec(),
        "bones": m.bones.chunks(12).take(bones_used).map(|b| b.to_vec()).collect::<Vec<_>>(),
    })
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

/// The registers of `st` grouped by stage (`{stage: {NAME: {op, arg, text}}}`), every
/// register of the stage whatever its value.
pub fn stages(st: &GeState) -> Value {
    let mut out = Map::new();
    for s in STAGES {
        let mut regs = Map::new();
        for &(a, b) in s.ops {
            for c in a..=b {
                let row = cmd::info(c);
                if row.name != "UNKNOWN" {
                    regs.insert(row.name.to_string(), register(c, st.regs.arg(c)));
                }
            }
        }
        out.insert(s.name.to_string(), Value::Object(regs));
    }
    Value::Object(out)
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

/// What changed between two states: registers (with their stage), matrices, the CLUT cache.
pub fn changes(prev: &GeState, cur: &GeState) -> Value {
    let regs: Vec<Value> = changed_registers(prev, cur)
        .map(|c| {
            let (a, b) = (prev.regs.arg(c), cur.regs.arg(c));
            json!({
                "name": cmd::name(c),
                "op": format!("0x{c:02x}"),
                "stage": stage_of(c),
                "from": a,
                "to": b,
                "from_text": cmd::format_arg(c, a),
                "to_text": cmd::format_arg(c, b),
            })
        })
        .collect();
    json!({ "registers": regs, "matrices": changed_matrices(prev, cur), "clut_cache": prev.clut != cur.clut })
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

/// Describe the draw word itself: its number, disassembly, record and pushbuf offset.
pub fn draw_info(step: &Step) -> Value {
    json!({
        "draw": step.draw,
        "command": cmd::disassemble(step.word),
        "word": format!("0x{:08x}", step.word),
        "record": step.record,
        "offset": step.src.map(|o| format!("0x{o:x}")),
        "vaddr": format!("0x{:08x}", step.vaddr),
        "iaddr": format!("0x{:08x}", step.iaddr),
    })
}

/// Everything `psprender state` prints for a draw: the draw, its stages, matrices, decoded
/// vertices, and the changes since `prev` (the previous draw's state, `None` for draw 1,
/// which is compared with the power-on state).
pub fn draw_state(ge: &Ge, step: &Step, prev: Option<&GeState>) -> Value {
    let st = &ge.state;
    let power_on = GeState::default();
    json!({
        "draw": draw_info(step),
        "stages": stages(st),
        "matrices": matrices(&st.mats, bones_used(st)),
        "vertices": vertices(ge, step),
        "changed": changes(prev.unwrap_or(&power_on), st),
    })
}

/// [`draw_state`] without decoding the vertices (`vertices` holds the format and count):
/// what the report keeps per keyframe.
pub fn draw_state_without_vertices(st: &GeState, step: &Step, prev: Option<&GeState>) -> Value {
    let power_on = GeState::default();
    let layout = VertexLayout::new(st.regs.arg(op::VERTEXTYPE));
    json!({
        "draw": draw_info(step),
        "stages": stages(st),
        "matrices": matrices(&st.mats, bones_used(st)),
        "vertices": { "format": layout.to_string(), "count": vertex_count(step.word), "listed": 0, "vertices": [] },
        "changed": changes(prev.unwrap_or(&power_on), st),
    })
}

/// Human-readable form of [`draw_state`]: stage by stage, non-zero registers first listed
/// by the command table's name and text.
pub fn to_text(v: &Value) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let d = &v["draw"];
    let _ = writeln!(
        s,
        "draw {}: {} (record {}, pushbuf offset {})",
        d["draw"],
        d["command"].as_str().unwrap_or(""),
        d["record"],
        d["offset"].as_str().unwrap_or("-")
    );
    if let Some(stages) = v["stages"].as_object() {
        for s_def in STAGES {
            let Some(regs) = stages.get(s_def.name).and_then(Value::as_object) else { continue };
            let _ = writeln!(s, "[{}]", s_def.name);
            for (name, r) in regs {
                if r["arg"].as_u64() != Some(0) {
                    let _ = writeln!(
                        s,
                        "  {name:<20} {:>8}  {}",
                        format!("0x{:06x}", r["arg"].as_u64().unwrap_or(0)),
                        r["text"].as_str().unwrap_or("")
                    );
                }
            }
        }
    }
    let _ = writeln!(s, "[matrices]");
    if let Some(m) = v["matrices"].as_object() {
        for (name, vals) in m {
            if name == "bones" {
                let _ = writeln!(s, "  bones: {} used", vals.as_array().map_or(0, Vec::len));
            } else {
                let _ = writeln!(s, "  {name:<10} {vals}");
            }
        }
    }
    let vx = &v["vertices"];
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
    let ch = &v["changed"];
    let _ = writeln!(s, "[changed since the previous draw]");
    for r in ch["registers"].as_array().into_iter().flatten() {
        let _ = writeln!(
            s,
            "  {:<20} {} -> {}",
            r["name"].as_str().unwrap_or(""),
            r["from_text"].as_str().unwrap_or(""),
            r["to_text"].as_str().unwrap_or("")
        );
    }
    for m in ch["matrices"].as_array().into_iter().flatten() {
        let _ = writeln!(s, "  matrix {}", m.as_str().unwrap_or(""));
    }
    if ch["clut_cache"] == json!(true) {
        let _ = writeln!(s, "  CLUT cache reloaded with different entries");
    }
    s
}
