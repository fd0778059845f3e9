//! Fuzzing entry points: plain functions the libFuzzer targets in `fuzz/` and the stable
//! corpus-replay test (`tests/fuzz_corpus.rs`) both call, so CI guards every committed
//! input without nightly. Each one must return for any input, within the limits listed in
//! the README's "Limits" section, and never panic; a result that breaks an invariant
//! (a round trip that does not hold) panics on purpose so the fuzzer reports it.
//!
//! Inputs are raw bytes in simple framings (below) so that libFuzzer's mutations reach the
//! GE: mutating compressed bytes would only exercise the decompressors.
//!
//! The harness bounds: one input runs at most [`FUZZ_STEPS`] list commands, draws at most
//! [`FUZZ_VERTICES`] vertices (then the scissor is emptied and the budget stops further
//! list commands), rasterizes inside a [`FUZZ_SCISSOR`]-pixel square and transfers blocks of
//! at most [`FUZZ_TRANSFER`] pixels a side. Those keep one run well under libFuzzer's 1 s
//! timeout on a shared core; the GE's own per-command bounds (1024×1024 scissor, 65535
//! vertices per PRIM, [`crate::patch::MAX_VERTICES`] per patch) are what an unrestricted
//! run, e.g. `psprender replay`, relies on.

use crate::cmd::{op, split};
use crate::dump::{replay, Dump, RECORD_SIZE};
use crate::exec::{Ge, Observer};
use crate::list::{ListBuilder, DATA_ADDR, LIST_ADDR};
use crate::model::Model;
use std::any::Any;

/// List commands one fuzz input may run (the GE's own default is
/// [`crate::exec::DEFAULT_STEP_BUDGET`]).
pub const FUZZ_STEPS: u64 = 4096;
/// Vertices one input may draw: PRIM counts, and for patches the tessellated mesh's
/// size ([`crate::patch::vertex_bound`]). The draw that crosses it still runs (decode,
/// transform, clip: a 65 535-vertex PRIM is exercised whole) under an empty scissor, and
/// the list stops there. Measured: at 200 000 the slowest inputs (thousands of triangles
/// each covering the whole scissor) took 0.11 s of CPU uninstrumented, 0.27 s
/// instrumented, and passed libFuzzer's 1 s wall-clock timeout when 2 cores ran a load of
/// 8 to 9; this budget cuts that rasterization five-fold and still rasterizes two
/// 127 × 127-division Bézier patches after a clear.
pub const FUZZ_VERTICES: u64 = 40_000;
/// Side of the square the harness keeps the scissor inside (the "small framebuffer").
pub const FUZZ_SCISSOR: u32 = 32;
/// Largest block-transfer side the harness lets through.
pub const FUZZ_TRANSFER: u32 = 64;
/// Records and pushbuf bytes above which the dump targets only parse, not replay.
pub const FUZZ_MAX_RECORDS: usize = 20_000;
pub const FUZZ_MAX_PUSHBUF: usize = 8 << 20;

/// Keeps one fuzz run small: sees every word before it executes (flow control resolved)
/// and clamps the scissor and transfer size registers the word is about to use.
struct Budget {
    vertices: u64,
}

impl Budget {
    fn clamp_scissor(ge: &mut Ge, empty: bool) {
        let max = FUZZ_SCISSOR - 1;
        let r = &mut ge.state.regs;
        let (x1, y1) = xy10(r.arg(op::SCISSOR1), max);
        let (x2, y2) = xy10(r.arg(op::SCISSOR2), max);
        r.set(op::SCISSOR1, if empty { max | (max << 10) } else { x1 | (y1 << 10) });
        r.set(op::SCISSOR2, if empty { 0 } else { x2 | (y2 << 10) });
        ge.draw.state_dirty = true;
    }
}

impl Observer for Budget {
    fn command(&mut self, ge: &mut Ge, word: u32) {
        let (cmd, arg) = split(word);
        let drawn = match cmd {
            op::PRIM => u64::from(arg & 0xFFFF),
            op::BEZIER | op::SPLINE => {
                let vtype = crate::geom::VertexType::from_bits(ge.state.regs.arg(op::VERTEXTYPE));
                crate::patch::vertex_bound(&crate::patch::PatchParams::decode(&ge.state.regs, cmd, arg, &vtype))
            }
            op::VAP => 1,
            op::TRANSFERSTART => {
                let t = FUZZ_TRANSFER - 1;
                let r = &mut ge.state.regs;
                let (w, h) = xy10(r.arg(op::TRANSFERSIZE), t);
                r.set(op::TRANSFERSIZE, w | (h << 10));
                return;
            }
            _ => return,
        };
        self.vertices = self.vertices.saturating_add(drawn);
        let over = self.vertices > FUZZ_VERTICES;
        Budget::clamp_scissor(ge, over);
        if over {
            // Ends `run_list` at the next step; replay has no list to end, so the empty
            // scissor keeps its remaining draws from rasterizing.
            ge.step_budget = 0;
        }
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn into_any(self: Box<Self>) -> Box<dyn Any> {
        self
    }
}

/// The 10-bit x, y pair of a SCISSOR/TRANSFERSIZE argument, each clamped to `max`.
fn xy10(arg: u32, max: u32) -> (u32, u32) {
    ((arg & 0x3FF).min(max), ((arg >> 10) & 0x3FF).min(max))
}

/// A fresh GE of `model`, serial raster, with the harness budget watching it.
pub fn fuzz_ge(model: Model) -> Ge {
    let mut ge = Ge::with_model(model);
    ge.set_threads(1);
    ge.step_budget = FUZZ_STEPS;
    ge.set_observer(Box::new(Budget { vertices: 0 }));
    ge
}

/// The structured GE target. Framing: byte 0 bit 0 picks the model (0 hardware,
/// 1 PPSSPP); bytes 1..5 are the list length `n` in bytes (little-endian, clamped to what
/// is there); the next `n` bytes are the display list, copied to [`LIST_ADDR`]; the rest is
/// data copied to [`DATA_ADDR`] (vertices, indices, textures, CLUTs the list points at).
/// The list runs from [`LIST_ADDR`] with [`FUZZ_STEPS`]. Returns how the list ended.
pub fn commands(data: &[u8]) -> Result<crate::exec::ListEnd, crate::GeError> {
    let Some((&flags, rest)) = data.split_first() else {
        return Ok(crate::exec::ListEnd::Finished(0));
    };
    let model = if flags & 1 == 0 { Model::Hardware } else { Model::Ppsspp };
    let (list, data) = split_framed(rest);
    let mut ge = fuzz_ge(model);
    // Both regions are far from the ends of RAM; inputs longer than 1 MiB are cut.
    let cut = |b: &[u8]| b.len().min(1 << 20);
    ge.mem.write(LIST_ADDR, &list[..cut(list)]).expect("list address is in RAM");
    ge.mem.write(DATA_ADDR, &data[..cut(data)]).expect("data address is in RAM");
    ge.run_list(LIST_ADDR, None)
}

/// Split `u32 n | n bytes | rest` (n clamped to what is there).
fn split_framed(b: &[u8]) -> (&[u8], &[u8]) {
    let n = b.get(..4).map_or(0, |h| u32::from_le_bytes([h[0], h[1], h[2], h[3]]) as usize);
    let body = b.get(4..).unwrap_or(&[]);
    body.split_at(n.min(body.len()))
}

/// Hand-written lists reaching what the golden scenes do not (seeds for [`commands`]):
/// Bezier and spline patches at extreme divisions, block transfers running off the end of
/// VRAM, immediate-mode vertices, CALL/RET nesting, and a texture read from the framebuffer
/// being drawn.
pub fn extra_lists() -> Vec<(&'static str, ListBuilder)> {
    let setup = || {
        let mut l = ListBuilder::new();
        l.standard_setup(3);
        l.clear(0xFF20_2020, 0);
        l
    };
    // 4x4 control points, float positions (through mode off) on a 32x32 patch.
    let grid: Vec<u8> = (0..16u32)
        .flat_map(|i| {
            let (x, y) = ((i % 4) as f32 * 10.0 - 15.0, (i / 4) as f32 * 10.0 - 15.0);
            [x, y, 0.5].into_iter().flat_map(f32::to_le_bytes)
        })
        .collect();
    let float_pos = 3 << 7;
    let mut out = Vec::new();
    let mut bezier = setup();
    bezier.cmd(op::VERTEXTYPE, float_pos).vertices(&grid).cmd(op::PATCHDIVISION, 127 | (127 << 8));
    bezier.cmd(op::BEZIER, 4 | (4 << 8)).cmd(op::PATCHPRIMITIVE, 2).cmd(op::BEZIER, 4 | (4 << 8)).finish();
    out.push(("bezier_divisions_127", bezier));
    let mut spline = setup();
    spline.cmd(op::VERTEXTYPE, float_pos).vertices(&grid).cmd(op::PATCHDIVISION, 3 | (5 << 8));
    spline.cmd(op::SPLINE, 4 | (4 << 8) | (3 << 16) | (1 << 18)).finish();
    out.push(("spline_open_edges", spline));
    let mut transfer = setup();
    transfer
        .cmd(op::TRANSFERSRC, 0x1F_F000)
        .cmd(op::TRANSFERSRCW, 512 | (0x04 << 16))
        .cmd(op::TRANSFERDST, 0x1F_FF00)
        .cmd(op::TRANSFERDSTW, 64 | (0x04 << 16))
        .cmd(op::TRANSFERSRCPOS, 0)
        .cmd(op::TRANSFERDSTPOS, 3 | (2 << 10))
        .cmd(op::TRANSFERSIZE, 63 | (63 << 10))
        .cmd(op::TRANSFERSTART, 1)
        .finish();
    out.push(("transfer_off_vram_end", transfer));
    let mut imm = setup();
    for (x, y) in [(0u32, 0u32), (30, 0), (0, 30), (30, 30)] {
        imm.cmd(op::VSCX, 0x8000 + (x << 4)).cmd(op::VSCY, 0x8000 + (y << 4)).cmd(op::VCV, 0x00FF_8040);
        imm.cmd(op::VAP, 0xFF | (4 << 8));
    }
    imm.finish();
    out.push(("immediate_strip", imm));
    // CALL into a two-word subroutine (MAXZ, RET) placed in the data area, then RET past
    // the bottom of the stack.
    let mut calls = setup();
    let sub = calls
        .add_data(&[crate::cmd::word(op::MAXZ, 0xBEEF), crate::cmd::word(op::RET, 0)].map(u32::to_le_bytes).concat());
    calls.cmd(op::BASE, (sub >> 8) & 0x0F_0000).cmd(op::CALL, sub & 0x00FF_FFFF).cmd(op::CALL, sub & 0x00FF_FFFF);
    calls.cmd(op::RET, 0).finish();
    out.push(("call_ret", calls));
    // Texture = the framebuffer itself (VRAM 0, 512 wide), drawn into that framebuffer.
    let mut rtt = setup();
    let sprite: Vec<u8> = [(0u16, 0u16, 0i16, 0i16), (64, 64, 32, 32)]
        .iter()
        .flat_map(|&(u, v, x, y)| [u.to_le_bytes(), v.to_le_bytes(), x.to_le_bytes(), y.to_le_bytes(), [0, 0]].concat())
        .collect();
    rtt.cmd(op::TEXTUREMAPENABLE, 1)
        .cmd(op::TEXADDR0, 0)
        .cmd(op::TEXBUFWIDTH0, 512 | (0x04 << 16))
        .cmd(op::TEXSIZE0, 9 | (9 << 8))
        .cmd(op::TEXFORMAT, 3)
        .cmd(op::TEXFLUSH, 0)
        .cmd(op::VERTEXTYPE, (1 << 23) | 2 | (2 << 7))
        .vertices(&sprite)
        .prim(6, 2)
        .cmd(op::TEXBUFWIDTH0, 0x04 << 16)
        .cmd(op::VADDR, 0)
        .prim(6, 2)
        .finish();
    out.push(("render_to_texture_bufw_0", rtt));
    out
}

/// Encode a [`ListBuilder`] (as the golden scenes build them) in the [`commands`] framing.
pub fn encode_commands(model: Model, list: &ListBuilder) -> Vec<u8> {
    let mut out = vec![u8::from(model == Model::Ppsspp)];
    out.extend_from_slice(&((list.words.len() * 4) as u32).to_le_bytes());
    for w in &list.words {
        out.extend_from_slice(&w.to_le_bytes());
    }
    out.extend_from_slice(&list.data);
    out
}

/// The `.ppdmp` container target: decode a plain or zipped dump; when it decodes and is
/// small enough ([`FUZZ_MAX_RECORDS`], [`FUZZ_MAX_PUSHBUF`]), replay it on the PPSSPP model
/// under the harness budget, and check the version-6 writer round trip. The streamed
/// open (`DumpStream`, the pushbuf decoded on a thread) must give the same dump or error.
pub fn dump_file(data: &[u8]) {
    let Ok(dump) = parse_both_ways(data) else { return };
    let again = Dump::parse(&dump.to_bytes()).expect("a written dump parses");
    assert_eq!((&again.records, &again.pushbuf), (&dump.records, &dump.pushbuf));
    // The game ID is read lossily (non-UTF-8 bytes become U+FFFD) and written as whole
    // characters in 9 bytes, so it is a fixed point from the first write on.
    let third = Dump::parse(&again.to_bytes()).expect("a written dump parses");
    assert_eq!(third.game_id, again.game_id);
    replay_small(&dump, Model::Ppsspp);
}

/// [`Dump::parse`], checked against the streamed open of the same bytes
/// (`DumpStream::streamed` + `complete`): the same dump, or the same error text.
pub fn parse_both_ways(data: &[u8]) -> Result<Dump, crate::dump::DumpError> {
    let whole = Dump::parse(data);
    let streamed = crate::dump::DumpStream::streamed(data.to_vec()).and_then(crate::dump::DumpStream::complete);
    match (&whole, &streamed) {
        (Ok(a), Ok(b)) => assert!(a == b, "the streamed dump differs"),
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
        (a, b) => panic!("whole {:?} != streamed {:?}", a.as_ref().err(), b.as_ref().err()),
    }
    whole
}

/// The dump-level target: the *decompressed* parts of a dump, so mutations land on
/// records, command words and data rather than on compressed bytes. Framing: byte 0 bit 0
/// picks the model, bits 1–3 the version (2 + value mod 5); bytes 1..5 the record count `n`
/// (clamped to what is there); then `n` 9-byte records (type, size, pointer, as in the
/// command block); the rest is the pushbuf. Records that fail [`Dump::validate`] end it.
pub fn dump_records(data: &[u8]) {
    let Some((&flags, rest)) = data.split_first() else { return };
    let model = if flags & 1 == 0 { Model::Hardware } else { Model::Ppsspp };
    let version = 2 + u32::from((flags >> 1) & 7) % 5;
    let n = rest.get(..4).map_or(0, |h| u32::from_le_bytes([h[0], h[1], h[2], h[3]]) as usize);
    let body = rest.get(4..).unwrap_or(&[]);
    let n = n.min(body.len() / RECORD_SIZE);
    let (cmds, pushbuf) = body.split_at(n * RECORD_SIZE);
    let records = crate::dump::decode_records(cmds);
    let dump = Dump { version, game_id: String::new(), records, pushbuf: pushbuf.to_vec() };
    if dump.validate().is_ok() {
        replay_small(&dump, model);
    }
}

/// Encode a dump in the [`dump_records`] framing.
pub fn encode_dump_records(model: Model, dump: &Dump) -> Vec<u8> {
    let flags = u8::from(model == Model::Ppsspp) | (((dump.version.clamp(2, 6) - 2) as u8) << 1);
    let mut out = vec![flags];
    out.extend_from_slice(&(dump.records.len() as u32).to_le_bytes());
    for r in &dump.records {
        out.push(r.kind.to_byte());
        out.extend_from_slice(&r.sz.to_le_bytes());
        out.extend_from_slice(&r.ptr.to_le_bytes());
    }
    out.extend_from_slice(&dump.pushbuf);
    out
}

fn replay_small(dump: &Dump, model: Model) {
    if dump.records.len() > FUZZ_MAX_RECORDS || dump.pushbuf.len() > FUZZ_MAX_PUSHBUF {
        return;
    }
    let mut ge = fuzz_ge(model);
    if let Ok(display) = replay(dump, &mut ge) {
        let _ = display.capture(&ge.mem);
    }
}

/// Record a golden scene as a frame dump (the seed corpus of the dump targets).
pub fn record_scene(scene: &crate::scenes::Scene, model: Model) -> Result<Dump, crate::GeError> {
    let mut ge = Ge::with_model(model);
    ge.set_threads(1);
    ge.start_recording();
    crate::scenes::build(scene).run(&mut ge)?;
    Ok(ge.finish_recording(crate::display::DisplayBuffer::power_on()).expect("recording was started"))
}

/// Encode `dump` as a snappy `.ppdmp` of `version` 2–4 (the writer only makes version 6;
/// these seed the fuzzer's older container paths). Layout: `docs/ppdmp-format.md` §2.
pub fn write_snappy(dump: &Dump, version: u32) -> Vec<u8> {
    let mut out = b"PPSSPPGE".to_vec();
    out.extend_from_slice(&version.to_le_bytes());
    if version >= 4 {
        let mut id = [0u8; 12];
        let n = crate::dump::game_id_len(&dump.game_id);
        id[..n].copy_from_slice(&dump.game_id.as_bytes()[..n]);
        out.extend_from_slice(&id);
    }
    let mut cmds = Vec::with_capacity(dump.records.len() * RECORD_SIZE);
    for r in &dump.records {
        cmds.push(r.kind.to_byte());
        cmds.extend_from_slice(&r.sz.to_le_bytes());
        cmds.extend_from_slice(&r.ptr.to_le_bytes());
    }
    out.extend_from_slice(&(dump.records.len() as u32).to_le_bytes());
    out.extend_from_slice(&(dump.pushbuf.len() as u32).to_le_bytes());
    for block in [&cmds, &dump.pushbuf] {
        let packed = snap::raw::Encoder::new().compress_vec(block).expect("snappy compresses any block");
        out.extend_from_slice(&(packed.len() as u32).to_le_bytes());
        out.extend_from_slice(&packed);
    }
    out
}

/// `ppdmp` bytes wrapped in a deflate zip as `dump.ppdmp` (how frame-test dumps ship).
pub fn zip_dump(ppdmp: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut z = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    z.start_file("dump.ppdmp", opts).expect("zip entry in memory");
    z.write_all(ppdmp).expect("zip write in memory");
    z.finish().expect("zip finish in memory").into_inner()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::ListEnd;

    #[test]
    fn golden_scenes_run_through_the_command_framing() {
        for scene in crate::scenes::SCENES {
            let input = encode_commands(Model::Hardware, &crate::scenes::build(scene));
            assert_eq!(commands(&input), Ok(ListEnd::Finished(0)), "{}", scene.name);
        }
    }

    #[test]
    fn extra_lists_end_within_the_budget() {
        for (name, l) in extra_lists() {
            for model in [Model::Hardware, Model::Ppsspp] {
                let end = commands(&encode_commands(model, &l));
                assert!(matches!(end, Ok(ListEnd::Finished(0))), "{name} {model:?}: {end:?}");
            }
        }
    }

    #[test]
    fn a_cyclic_list_ends_at_the_fuzz_step_budget() {
        // JUMP to itself (absolute: BASE 0x08, JUMP 0x800000).
        let mut l = ListBuilder::new();
        l.cmd(op::BASE, 0x08_0000).cmd(op::JUMP, (LIST_ADDR & 0x00FF_FFFF) + 4);
        let e = commands(&encode_commands(Model::Ppsspp, &l)).unwrap_err();
        assert!(matches!(e, crate::GeError::StepBudget { steps: FUZZ_STEPS, .. }), "{e}");
    }

    #[test]
    fn the_vertex_budget_stops_a_list_of_huge_prims() {
        // 65535-vertex point PRIMs, 100 of them: the first crosses the budget and stops the list.
        let mut l = ListBuilder::new();
        l.cmd(op::VERTEXTYPE, (1 << 23) | (2 << 7)).cmd(op::BASE, 0x08_0000).cmd(op::VADDR, 0x90_0000);
        for _ in 0..100 {
            l.cmd(op::PRIM, 65535);
        }
        l.finish();
        let e = commands(&encode_commands(Model::Hardware, &l)).unwrap_err();
        assert!(matches!(e, crate::GeError::StepBudget { .. }), "{e}");
    }

    #[test]
    fn scenes_record_and_replay_through_the_record_framing() {
        let dump = record_scene(&crate::scenes::SCENES[3], Model::Hardware).unwrap();
        assert!(dump.records.len() > 3);
        let input = encode_dump_records(Model::Hardware, &dump);
        dump_records(&input);
        dump_file(&dump.to_bytes());
        for v in [2, 3, 4] {
            assert_eq!(Dump::parse(&write_snappy(&dump, v)).unwrap().records, dump.records, "v{v}");
        }
        assert_eq!(Dump::parse(&zip_dump(&dump.to_bytes())).unwrap().pushbuf, dump.pushbuf);
    }
}
