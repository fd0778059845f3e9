//! Frame-dump recorder: record a list run, write it, parse it back, replay it on a fresh GE
//! and compare all of VRAM (colour and depth buffers) with the direct run, byte for byte.

use ge::cmd::{op, word};
use ge::display::DisplayBuffer;
use ge::dump::{replay, Dump, RecordKind, RECORDER_GAME_ID};
use ge::list::{Bytes, ListBuilder};
use ge::Ge;

const DISPLAY: DisplayBuffer = DisplayBuffer { addr: 0x0400_0000, stride: 512, format: 3 };
const IDENTITY_4X3: [f32; 12] = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0];
const IDENTITY_4X4: [f32; 16] = [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0];

/// Float texcoord, 8888 colour, float position.
const VT_TC_COL_POS: u32 = 3 | (7 << 2) | (3 << 7);
/// 8888 colour, float position.
const VT_COL_POS: u32 = (7 << 2) | (3 << 7);

/// 8888 framebuffer, clear to dark grey with depth 0, identity matrices, depth test
/// GEQUAL with writes, Gouraud shading.
fn setup() -> ListBuilder {
    let mut l = ListBuilder::new();
    l.standard_setup(3).clear(0xFF20_2020, 0);
    l.matrix(op::WORLDMATRIXNUMBER, &IDENTITY_4X3)
        .matrix(op::VIEWMATRIXNUMBER, &IDENTITY_4X3)
        .matrix(op::PROJMATRIXNUMBER, &IDENTITY_4X4)
        .cmd(op::ZTESTENABLE, 1)
        .cmd(op::ZTEST, 7)
        .cmd(op::ZWRITEDISABLE, 0);
    l
}

fn v_tc(b: &mut Bytes, u: f32, v: f32, rgba: u32, x: f32, y: f32, z: f32) {
    b.f32(u).f32(v).u32(rgba).f32(x).f32(y).f32(z);
}

fn v_col(b: &mut Bytes, rgba: u32, x: f32, y: f32, z: f32) {
    b.u32(rgba).f32(x).f32(y).f32(z);
}

/// Through-mode sprite corner: u16 texcoords, 8888 colour, s16 position.
const VT_SPRITE: u32 = 2 | (7 << 2) | (2 << 7) | (1 << 23);
fn v_sprite(b: &mut Bytes, u: u16, v: u16, rgba: u32, x: i16, y: i16) {
    b.u16(u).u16(v).u32(rgba).i16(x).i16(y).i16(0).u16(0);
}

fn words_bytes(ws: &[u32]) -> Vec<u8> {
    ws.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// Run `list` on `prepare`d GEs with and without recording and replay the dump on a fresh
/// GE; assert all three VRAMs are equal and return the parsed dump.
fn check(list: &ListBuilder, prepare: impl Fn(&mut Ge)) -> Dump {
    let mut plain = Ge::new();
    prepare(&mut plain);
    list.run(&mut plain).expect("direct run");

    let mut rec = Ge::new();
    prepare(&mut rec);
    rec.start_recording();
    assert!(rec.is_recording());
    list.run(&mut rec).expect("recorded run");
    let dump = rec.finish_recording(DISPLAY).expect("was recording");
    assert!(!rec.is_recording());
    assert!(plain.mem.vram() == rec.mem.vram(), "recording changed what the GE drew");

    let bytes = dump.to_bytes();
    assert_eq!(&bytes[..8], b"PPSSPPGE");
    assert_eq!(u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]), 6);
    let parsed = Dump::parse(&bytes).expect("parse");
    assert_eq!(parsed, dump);
    assert_eq!(parsed.game_id, RECORDER_GAME_ID);
    check_structure(&parsed);

    let mut again = Ge::new();
    let shown = replay(&parsed, &mut again).expect("replay");
    assert_eq!(shown, DISPLAY);
    let (a, b) = (plain.mem.vram(), again.mem.vram());
    if let Some(i) = (0..a.len()).find(|&i| a[i] != b[i]) {
        panic!("replayed VRAM differs first at offset {i:#x}: direct {:#04x}, replay {:#04x}", a[i], b[i]);
    }
    parsed
}

fn registers(d: &Dump, i: usize) -> Vec<u32> {
    d.payload(&d.records[i]).chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

fn first_cmd_after(d: &Dump, i: usize) -> Option<u8> {
    let next = d.records.get(i + 1)?;
    (next.kind == RecordKind::Registers).then(|| registers(d, i + 1).first().map(|w| (w >> 24) as u8)).flatten()
}

/// The §3/§4 facts every recording must satisfy.
fn check_structure(d: &Dump) {
    let r = &d.records;
    assert_eq!(d.version, 6);
    assert_eq!((r[0].kind, r[0].sz), (RecordKind::Init, 2048));
    assert_eq!((r[1].kind, r[1].sz), (RecordKind::Clut, 1024));
    let last = r.last().unwrap();
    assert_eq!((last.kind, last.sz), (RecordKind::Display, 12));
    assert_eq!(d.payload(last), &words_bytes(&[DISPLAY.addr, DISPLAY.stride, DISPLAY.format])[..]);
    let never = [
        op::VADDR,
        op::IADDR,
        op::BOUNDINGBOX,
        op::JUMP,
        op::BJUMP,
        op::CALL,
        op::RET,
        op::END,
        op::SIGNAL,
        op::FINISH,
        op::BASE,
        op::OFFSETADDR,
        op::ORIGIN,
    ];
    let mut draws = 0;
    for (i, rec) in r.iter().enumerate() {
        match rec.kind {
            RecordKind::Registers => {
                for w in registers(d, i) {
                    let c = (w >> 24) as u8;
                    assert!(!never.contains(&c), "record {i}: command {c:#04x} must not be recorded");
                    let count = match c {
                        op::PRIM => w & 0xFFFF,
                        op::BEZIER | op::SPLINE => (w & 0xFF) * ((w >> 8) & 0xFF),
                        _ => 0,
                    };
                    draws += usize::from(count > 0);
                }
            }
            RecordKind::Vertices => {
                let c = first_cmd_after(d, i);
                assert!(matches!(c, Some(op::PRIM | op::BEZIER | op::SPLINE)), "record {i}: VERTICES then {c:?}");
            }
            RecordKind::Indices => assert_eq!(r[i + 1].kind, RecordKind::Vertices),
            RecordKind::Clut if i > 1 => assert_eq!(first_cmd_after(d, i), Some(op::LOADCLUT)),
            RecordKind::TransferSrc => assert_eq!(first_cmd_after(d, i), Some(op::TRANSFERSTART)),
            _ => {}
        }
    }
    let vertices = r.iter().filter(|x| x.kind == RecordKind::Vertices).count();
    assert_eq!(vertices, draws, "one VERTICES record per draw");
}

fn count(d: &Dump, kind: RecordKind) -> usize {
    d.records.iter().filter(|r| r.kind == kind).count()
}

fn has_pixel(ge_vram: &[u8], x: usize, y: usize, rgba: u32) -> bool {
    let at = 4 * (y * 512 + x);
    ge_vram[at..at + 4] == rgba.to_le_bytes()
}

#[test]
fn clut_textured_transform_triangles() {
    let mut l = setup();
    // 32×16 CLUT4 texture (16-byte rows): left half index 1, right half index 2.
    let tex: Vec<u8> = (0..256).map(|i| if (i % 16) < 8 { 0x11 } else { 0x22 }).collect();
    let mut clut = Bytes::default();
    clut.u32(0xFF00_0000).u32(0xFF00_00FF).u32(0xFF00_FF00);
    for _ in 3..16 {
        clut.u32(0xFFFF_FFFF);
    }
    l.clut(&clut.0)
        .cmd(op::CLUTFORMAT, 3 | (0xFF << 8))
        .texture0(&tex, 32, 5, 4)
        .cmd(op::TEXFORMAT, 4)
        .cmd(op::TEXFUNC, 3 | (1 << 8))
        .cmd_f(op::TEXSCALEU, 1.0)
        .cmd_f(op::TEXSCALEV, 1.0)
        .cmd(op::TEXTUREMAPENABLE, 1)
        .cmd(op::VERTEXTYPE, VT_TC_COL_POS);
    let mut v = Bytes::default();
    v_tc(&mut v, 0.0, 0.0, 0xFFFF_FFFF, -0.8, 0.8, 0.5);
    v_tc(&mut v, 1.0, 0.0, 0xFFFF_FFFF, 0.8, 0.8, 0.0);
    v_tc(&mut v, 0.0, 1.0, 0xFFFF_FFFF, -0.8, -0.8, -0.5);
    v_tc(&mut v, 1.0, 1.0, 0xFFFF_FFFF, 0.8, -0.8, 0.0);
    v_tc(&mut v, 0.0, 1.0, 0xFFFF_FFFF, -0.8, -0.8, -0.5);
    v_tc(&mut v, 1.0, 0.0, 0xFFFF_FFFF, 0.8, 0.8, 0.0);
    l.vertices(&v.0).prim(3, 6).finish();
    let d = check(&l, |_| {});
    assert_eq!(count(&d, RecordKind::Texture(0)), 1);
    assert_eq!(count(&d, RecordKind::Clut), 2);
    // The texture record holds exactly the 32×16 4-bit level; the CLUT its 2 blocks.
    let t = d.records.iter().find(|r| r.kind == RecordKind::Texture(0)).unwrap();
    assert_eq!((t.sz, d.payload(t)), (256, &tex[..]));
    let c = d.records.iter().rev().find(|r| r.kind == RecordKind::Clut).unwrap();
    assert_eq!(c.sz, 64);
    let mut ge = Ge::new();
    l.run(&mut ge).unwrap();
    assert!(has_pixel(ge.mem.vram(), 150, 136, 0xFF00_00FF) && has_pixel(ge.mem.vram(), 330, 136, 0xFF00_FF00));
}

#[test]
fn indexed_u16_draw_records_indices_and_the_used_vertices() {
    let mut l = setup();
    let mut v = Bytes::default();
    v_col(&mut v, 0xFF00_00FF, -0.5, 0.5, 0.0);
    v_col(&mut v, 0xFF00_FF00, 0.5, 0.5, 0.0);
    v_col(&mut v, 0xFFFF_0000, -0.5, -0.5, 0.0);
    v_col(&mut v, 0xFFFF_FFFF, 0.5, -0.5, 0.0);
    v_col(&mut v, 0xFF12_3456, 0.9, 0.9, 0.0); // never indexed
    let mut idx = Bytes::default();
    for i in [0u16, 1, 2, 2, 1, 3] {
        idx.u16(i);
    }
    l.cmd(op::VERTEXTYPE, VT_COL_POS | (2 << 11)).vertices(&v.0).indices(&idx.0).prim(3, 6).finish();
    let d = check(&l, |_| {});
    let i = d.records.iter().position(|r| r.kind == RecordKind::Indices).unwrap();
    assert_eq!(d.payload(&d.records[i]), &idx.0[..]);
    // (max index 3 + 1) × 16-byte vertices: the unused fifth vertex is left out.
    assert_eq!(d.payload(&d.records[i + 1]), &v.0[..64]);
}

#[test]
fn back_to_back_strips_use_the_advanced_vertex_pointer() {
    let mut l = setup();
    let mut v = Bytes::default();
    for (k, y) in [(0, 0.6f32), (1, -0.2)] {
        let c = if k == 0 { 0xFF00_80FF } else { 0xFFFF_8000 };
        v_col(&mut v, c, -0.6, y, 0.0);
        v_col(&mut v, c, 0.6, y, 0.0);
        v_col(&mut v, c, -0.6, y - 0.3, 0.0);
        v_col(&mut v, c, 0.6, y - 0.3, 0.0);
    }
    l.cmd(op::VERTEXTYPE, VT_COL_POS).vertices(&v.0).prim(4, 4).prim(4, 4).finish();
    let d = check(&l, |_| {});
    // The first VERTICES record is the clear's.
    let vs: Vec<_> = d.records.iter().filter(|r| r.kind == RecordKind::Vertices).skip(1).collect();
    assert_eq!(vs.len(), 2);
    assert_eq!(d.payload(vs[0]), &v.0[..64]);
    assert_eq!(d.payload(vs[1]), &v.0[64..]);
}

#[test]
fn call_to_bone_upload_then_skinned_draw() {
    let mut l = setup();
    // Sub-list: bone 0 shifts left, bone 1 shifts up; RET.
    let mut sub = ListBuilder::new();
    sub.bone(0, &[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, -0.3, 0.0, 0.0]);
    sub.bone(1, &[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.4, 0.0]);
    sub.cmd(op::RET, 0);
    let at = l.add_data(&words_bytes(&sub.words));
    l.cmd(op::BASE, (at >> 8) & 0x0F_0000).cmd(op::CALL, at & 0xFF_FFFF);
    // Two float weights, 8888 colour, float position.
    l.cmd(op::VERTEXTYPE, (3 << 9) | (1 << 14) | VT_COL_POS);
    let mut v = Bytes::default();
    for (w0, x, y) in [(1.0f32, -0.5f32, 0.0f32), (0.5, 0.5, 0.0), (0.0, 0.0, -0.5)] {
        v.f32(w0).f32(1.0 - w0).u32(0xFF40_C0FF).f32(x).f32(y).f32(0.0);
    }
    l.vertices(&v.0).prim(3, 3).finish();
    let d = check(&l, |_| {});
    // The bone uploads from the sub-list are inlined into the REGISTERS stream.
    let all: Vec<u32> = (0..d.records.len())
        .filter(|&i| d.records[i].kind == RecordKind::Registers)
        .flat_map(|i| registers(&d, i))
        .collect();
    assert_eq!(all.iter().filter(|w| (*w >> 24) as u8 == op::BONEMATRIXDATA).count(), 24);
    assert!(all.contains(&word(op::BONEMATRIXNUMBER, 12)));
}

#[test]
fn block_transfers_to_vram_are_kept_and_to_ram_dropped() {
    let mut l = setup();
    let src: Vec<u8> = (0..32 * 16).flat_map(|i: u32| (0xFF00_0000 | (i * 0x0001_0203)).to_le_bytes()).collect();
    let a = l.add_data(&src);
    let ram_dst = l.add_data(&[0u8; 256]);
    l.cmd(op::TRANSFERSRC, a & 0xFF_FFF0)
        .cmd(op::TRANSFERSRCW, ((a >> 8) & 0xFF_0000) | 32)
        .cmd(op::TRANSFERSRCPOS, 0)
        .cmd(op::TRANSFERDST, 0)
        .cmd(op::TRANSFERDSTW, (0x04 << 16) | 512)
        .cmd(op::TRANSFERDSTPOS, (50 << 10) | 100)
        .cmd(op::TRANSFERSIZE, (15 << 10) | 31)
        .cmd(op::TRANSFERSTART, 1)
        // Same source into RAM: not recorded at all.
        .cmd(op::TRANSFERDST, ram_dst & 0xFF_FFF0)
        .cmd(op::TRANSFERDSTW, ((ram_dst >> 8) & 0xFF_0000) | 8)
        .cmd(op::TRANSFERDSTPOS, 0)
        .cmd(op::TRANSFERSIZE, (3 << 10) | 7)
        .cmd(op::TRANSFERSTART, 1);
    // Draw, then copy part of the framebuffer to VRAM + 0x180000: the source must be read
    // after the binned draw is rasterized.
    let mut v = Bytes::default();
    v_col(&mut v, 0xFF80_40C0, -0.5, 0.5, 0.0);
    v_col(&mut v, 0xFF80_40C0, 0.5, 0.5, 0.0);
    v_col(&mut v, 0xFF80_40C0, 0.0, -0.5, 0.0);
    l.cmd(op::VERTEXTYPE, VT_COL_POS).vertices(&v.0).prim(3, 3);
    l.cmd(op::TRANSFERSRC, 0)
        .cmd(op::TRANSFERSRCW, (0x04 << 16) | 512)
        .cmd(op::TRANSFERSRCPOS, (100 << 10) | 200)
        .cmd(op::TRANSFERDST, 0x18_0000)
        .cmd(op::TRANSFERDSTW, (0x04 << 16) | 64)
        .cmd(op::TRANSFERDSTPOS, 0)
        .cmd(op::TRANSFERSIZE, (31 << 10) | 63)
        .cmd(op::TRANSFERSTART, 1)
        .finish();
    let d = check(&l, |_| {});
    assert_eq!(count(&d, RecordKind::TransferSrc), 2);
    let t = d.records.iter().find(|r| r.kind == RecordKind::TransferSrc).unwrap();
    // ((0 + 16 - 1) × 32 + 0 + 32) × 4 bytes.
    assert_eq!(d.payload(t), &src[..]);
    let starts: usize = (0..d.records.len())
        .filter(|&i| d.records[i].kind == RecordKind::Registers)
        .map(|i| registers(&d, i).iter().filter(|w| (*w >> 24) as u8 == op::TRANSFERSTART).count())
        .sum();
    assert_eq!(starts, 2);
    let mut ge = Ge::new();
    l.run(&mut ge).unwrap();
    assert!(has_pixel(ge.mem.vram(), 101, 50, 0xFF01_0203));
    // The copy holds the triangle: copy pixel (40, 20) is screen pixel (240, 120).
    let at = 0x18_0000 + 4 * (20 * 64 + 40);
    assert_eq!(ge.mem.vram()[at..at + 4], 0xFF80_40C0u32.to_le_bytes());
}

/// A texture uploaded into VRAM by a transfer, drawn with through-mode sprites; then a
/// render-to-texture pass sampled from the second framebuffer.
#[test]
fn through_mode_sprites_from_vram_textures_and_render_targets() {
    let mut l = setup();
    let texels: Vec<u8> = (0..32 * 16).flat_map(|i: u32| (0xFF00_0000 | (i * 0x0003_0107)).to_le_bytes()).collect();
    let a = l.add_data(&texels);
    l.cmd(op::TRANSFERSRC, a & 0xFF_FFF0)
        .cmd(op::TRANSFERSRCW, ((a >> 8) & 0xFF_0000) | 32)
        .cmd(op::TRANSFERSRCPOS, 0)
        .cmd(op::TRANSFERDST, 0x15_0000)
        .cmd(op::TRANSFERDSTW, (0x04 << 16) | 32)
        .cmd(op::TRANSFERDSTPOS, 0)
        .cmd(op::TRANSFERSIZE, (15 << 10) | 31)
        .cmd(op::TRANSFERSTART, 1);
    l.cmd(op::ZTESTENABLE, 0)
        .cmd(op::TEXADDR0, 0x15_0000)
        .cmd(op::TEXBUFWIDTH0, (0x04 << 16) | 32)
        .cmd(op::TEXSIZE0, 5 | (4 << 8))
        .cmd(op::TEXFORMAT, 3)
        .cmd(op::TEXFUNC, 3 | (1 << 8))
        .cmd(op::TEXTUREMAPENABLE, 1)
        .cmd(op::VERTEXTYPE, VT_SPRITE);
    let mut s = Bytes::default();
    v_sprite(&mut s, 0, 0, 0xFFFF_FFFF, 10, 10);
    v_sprite(&mut s, 32, 16, 0xFFFF_FFFF, 74, 42);
    v_sprite(&mut s, 0, 0, 0xFFFF_FFFF, 200, 100);
    v_sprite(&mut s, 32, 16, 0xFFFF_FFFF, 232, 116);
    l.vertices(&s.0).prim(6, 4);
    // Render a 64×64 target at VRAM + 0x160000 (untextured quad), then sample it.
    l.cmd(op::FRAMEBUFPTR, 0x16_0000)
        .cmd(op::FRAMEBUFWIDTH, 64)
        .cmd(op::SCISSOR2, (63 << 10) | 63)
        .cmd(op::TEXTUREMAPENABLE, 0)
        .clear(0xFF00_00FF, 0)
        .cmd(op::VERTEXTYPE, VT_SPRITE);
    let mut q = Bytes::default();
    v_sprite(&mut q, 0, 0, 0xFF00_FF00, 16, 16);
    v_sprite(&mut q, 0, 0, 0xFF00_FF00, 48, 48);
    l.vertices(&q.0).prim(6, 2);
    l.cmd(op::FRAMEBUFPTR, 0)
        .cmd(op::FRAMEBUFWIDTH, 512)
        .cmd(op::SCISSOR2, (271 << 10) | 479)
        .cmd(op::TEXADDR0, 0x16_0000)
        .cmd(op::TEXBUFWIDTH0, (0x04 << 16) | 64)
        .cmd(op::TEXSIZE0, 6 | (6 << 8))
        .cmd(op::TEXTUREMAPENABLE, 1);
    let mut r = Bytes::default();
    v_sprite(&mut r, 0, 0, 0xFFFF_FFFF, 300, 150);
    v_sprite(&mut r, 64, 64, 0xFFFF_FFFF, 364, 214);
    l.vertices(&r.0).prim(6, 2).finish();
    let d = check(&l, |_| {});
    let fbs: Vec<_> = d.records.iter().filter(|r| r.kind == RecordKind::Framebuf(0)).collect();
    assert_eq!(fbs.len(), 3, "one FRAMEBUF0 per textured draw (the quad pass has texcoords)");
    let head = |r: &ge::dump::Record| {
        let p = d.payload(r);
        [0, 4, 8].map(|o| u32::from_le_bytes([p[o], p[o + 1], p[o + 2], p[o + 3]]))
    };
    // The transferred texture: 32×16×4 bytes, not a render target, changed by a transfer.
    assert_eq!(head(fbs[0]), [0x0415_0000, 32, 0]);
    assert_eq!(&d.payload(fbs[0])[16..], &texels[..]);
    // The render target sampled after drawing into it: target + drawn.
    assert_eq!(head(fbs[2]), [0x0416_0000, 64, 1 | 4]);
    let mut ge = Ge::new();
    l.run(&mut ge).unwrap();
    assert!(has_pixel(ge.mem.vram(), 330, 180, 0xFF00_FF00) && has_pixel(ge.mem.vram(), 302, 152, 0xFF00_00FF));
}

/// Recording that starts after another list ran: VRAM contents, the CLUT cache and the
/// texture buffer width all come from before the recording.
#[test]
fn recording_started_mid_frame_reproduces_the_earlier_state() {
    let mut first = setup();
    let mut clut = Bytes::default();
    for i in 0..16u32 {
        clut.u32(0xFF00_0000 | (i * 0x10_0F07));
    }
    // 32×16 CLUT4 texels in rows of 64 (32 bytes apart): a replay that lost the buffer
    // width would read other bytes.
    let tex: Vec<u8> = (0..512u32).map(|i| ((i * 7 % 16) | ((i * 3 % 13) << 4)) as u8).collect();
    first
        .clut(&clut.0)
        .cmd(op::CLUTFORMAT, 3 | (0xFF << 8))
        .texture0(&tex, 64, 5, 4)
        .cmd(op::TEXFORMAT, 4)
        .cmd(op::TEXFUNC, 3 | (1 << 8))
        .finish();
    let mut second = ListBuilder::new();
    second.data = first.data.clone();
    second.cmd(op::TEXTUREMAPENABLE, 1).cmd(op::ZTESTENABLE, 0).cmd(op::VERTEXTYPE, VT_SPRITE);
    let mut s = Bytes::default();
    v_sprite(&mut s, 0, 0, 0xFFFF_FFFF, 100, 100);
    v_sprite(&mut s, 32, 16, 0xFFFF_FFFF, 164, 132);
    second.vertices(&s.0).prim(6, 2).finish();
    let d = check(&second, |ge| {
        first.run(ge).unwrap();
    });
    assert_eq!(count(&d, RecordKind::MemcpyData), 1, "start VRAM is sent");
    let regs = registers(&d, 4);
    assert_eq!(regs[0], word(op::LOADCLUT, 32), "initial CLUT loaded");
    assert_eq!(regs[1], word(op::TEXBUFWIDTH0, 0x08_0040), "bufw tracker primed");
}

#[test]
fn identical_vertex_data_is_stored_once() {
    let mut l = setup();
    let mut v = Bytes::default();
    v_col(&mut v, 0xFF00_FFFF, -0.5, 0.5, 0.0);
    v_col(&mut v, 0xFF00_FFFF, 0.5, 0.5, 0.0);
    v_col(&mut v, 0xFF00_FFFF, 0.0, -0.5, 0.0);
    l.cmd(op::VERTEXTYPE, VT_COL_POS).vertices(&v.0).prim(3, 3).vertices(&v.0).prim(3, 3).finish();
    let d = check(&l, |_| {});
    let vs: Vec<_> = d.records.iter().filter(|r| r.kind == RecordKind::Vertices).skip(1).collect();
    assert_eq!(vs.len(), 2);
    assert_eq!(vs[0].ptr, vs[1].ptr);
    assert_eq!(d.payload(vs[0]), &v.0[..]);
}

#[test]
fn nothing_is_recorded_unless_recording() {
    let mut ge = Ge::new();
    assert!(ge.finish_recording(DISPLAY).is_none());
    let mut l = ListBuilder::new();
    l.standard_setup(3).clear(0xFF11_2233, 0).finish();
    l.run(&mut ge).unwrap();
    assert!(!ge.is_recording());
    ge.start_recording();
    let d = ge.finish_recording(DISPLAY).unwrap();
    let kinds: Vec<_> = d.records.iter().map(|r| r.kind).collect();
    // Only the start state (INIT, CLUT, the cleared VRAM) and the display: no commands.
    assert_eq!(
        kinds,
        [RecordKind::Init, RecordKind::Clut, RecordKind::MemcpyDest, RecordKind::MemcpyData, RecordKind::Display]
    );
    assert!(ge.finish_recording(DISPLAY).is_none());
}

#[test]
fn indexed_bezier_patch() {
    let mut l = setup();
    let mut v = Bytes::default();
    for j in 0..4 {
        for i in 0..4 {
            let (x, y) = (-0.6 + 0.4 * i as f32, 0.6 - 0.4 * j as f32);
            let z = if (1..3).contains(&i) && (1..3).contains(&j) { 0.8 } else { 0.0 };
            v_col(&mut v, 0xFF00_0000 | (i * 0x50 + j * 0x5000) as u32, x, y, z);
        }
    }
    v_col(&mut v, 0xFFFF_FFFF, 0.0, 0.0, 0.0); // never indexed
                                               // Control points through u8 indices, in reverse order.
    let idx: Vec<u8> = (0..16).rev().collect();
    l.cmd(op::VERTEXTYPE, VT_COL_POS | (1 << 11))
        .cmd(op::PATCHDIVISION, 6 | (6 << 8))
        .cmd(op::PATCHPRIMITIVE, 0)
        .vertices(&v.0)
        .indices(&idx)
        .cmd(op::BEZIER, 4 | (4 << 8))
        .finish();
    let d = check(&l, |_| {});
    let i = d.records.iter().position(|r| r.kind == RecordKind::Indices).unwrap();
    assert_eq!(d.payload(&d.records[i]), &idx[..]);
    assert_eq!(d.payload(&d.records[i + 1]), &v.0[..16 * 16]);
    assert_eq!(first_cmd_after(&d, i + 1), Some(op::BEZIER));
    let mut ge = Ge::new();
    l.run(&mut ge).unwrap();
    assert!(!has_pixel(ge.mem.vram(), 240, 136, 0xFF20_2020), "the patch is drawn");
}
