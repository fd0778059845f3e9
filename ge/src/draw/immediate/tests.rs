use super::*;
use crate::cmd::word;
use crate::Ge;

fn regs(words: &[(u8, u32)]) -> Regs {
    let mut r = Regs::default();
    for &(o, a) in words {
        r.set(o, a);
    }
    r
}

/// Through mode subtracts 0x8000 (not OFFSET) from the 1/16-px coordinates.
#[test]
fn through_position_bias() {
    let r = regs(&[
        (op::VERTEXTYPE, 1 << 23),
        (op::OFFSETX, 0x7000),
        (op::OFFSETY, 0x7000),
        // Bits above 15 are ignored: 0x80A0 − 0x8000 = 160 → 10 px; 0x8328 → 808 → 50.5 px.
        (op::VSCX, 0xFF_80A0),
        (op::VSCY, 0x00_8328),
        (op::VSCZ, 0xFF_1234),
    ]);
    let v = ImmVertex::capture(&r, ImmAlphaPrim(0));
    assert_eq!((v.x, v.y, v.z), (10.0, 50.5, 4660.0));
    let a = v.asm_vertex(&r);
    assert_eq!((a.p.s.x.0, a.p.s.y.0, a.p.s.z), (160, 808, 4660.0));
    // Through mode keeps the raw depth in clip z as well.
    assert_eq!(a.p.c.clip, [10.0, 50.5, 4660.0, 1.0]);
    // Below the bias: 0x7FF0 − 0x8000 = −16 → −1 px.
    let v = ImmVertex::capture(&regs(&[(op::VERTEXTYPE, 1 << 23), (op::VSCX, 0x7FF0)]), ImmAlphaPrim(0));
    assert_eq!(v.x, -1.0);
}

/// Transform mode subtracts OFFSETX/Y; clip z is the depth times the float 1/65535.
#[test]
fn transform_position_offset() {
    let r = regs(&[
        (op::OFFSETX, 0x7000),
        (op::OFFSETY, 0x8000),
        (op::VSCX, 0x80A0), // 0x80A0 − 0x7000 = 4256 → 266 px
        (op::VSCY, 0x7FF0), // −16 → −1 px
        (op::VSCZ, 0xFFFF),
    ]);
    let v = ImmVertex::capture(&r, ImmAlphaPrim(0));
    assert_eq!((v.x, v.y), (266.0, -1.0));
    let a = v.asm_vertex(&r);
    assert_eq!((a.p.s.x.0, a.p.s.y.0, a.p.s.z, a.p.s.w), (4256, -16, 65535.0, 1.0));
    // 65535 · (1/65535 in f32) rounds to exactly 1.
    assert_eq!(a.p.c.clip, [266.0, -1.0, 1.0, 1.0]);
    assert!(!a.p.outside);
}

/// Colour RGB from VCV, alpha from VAP bits 0–7; fog VFC/255; secondary colour only in
/// transform mode with LIGHTMODE 1; through-mode texcoords scaled to texels.
#[test]
fn colour_fog_and_texcoords() {
    let base = [
        (op::VCV, 0x56_3412),
        (op::VFC, 0xFF_FF7F),
        (op::VSCV, 0x7F_8081),
        (op::VTCS, 0x3F_0000),  // 0.5
        (op::VTCT, 0x3F_8000),  // 1.0
        (op::VTCQ, 0x40_0000),  // 2.0
        (op::TEXSIZE0, 0x0506), // 64 × 32
        (op::LIGHTMODE, 1),
    ];
    let r = regs(&base);
    // The prim/flag bits above bit 7 do not leak into alpha.
    let v = ImmVertex::capture(&r, ImmAlphaPrim(0xD4_07AB));
    assert_eq!(v.color0, [0x12, 0x34, 0x56, 0xAB]);
    assert_eq!(v.fog, 127.0 / 255.0);
    let a = v.asm_vertex(&r);
    assert_eq!(a.p.s.color1, [0x81, 0x80, 0x7F]);
    assert_eq!((a.p.s.s, a.p.s.t, a.p.s.q), (0.5, 1.0, 2.0));
    let mut through = base.to_vec();
    through.push((op::VERTEXTYPE, 1 << 23));
    let r = regs(&through);
    let a = ImmVertex::capture(&r, ImmAlphaPrim(0xAB)).asm_vertex(&r);
    assert_eq!(a.p.s.color1, [0; 3]);
    assert_eq!((a.p.s.s, a.p.s.t, a.p.s.q), (32.0, 32.0, 2.0));
    let r = regs(&base[..7]);
    assert_eq!(ImmVertex::capture(&r, ImmAlphaPrim(0)).asm_vertex(&r).p.s.color1, [0; 3]);
}

/// An 8888 480×272 target at VRAM 0 in through mode.
fn ge_through() -> Ge {
    let mut ge = Ge::new();
    for w in [
        word(op::FRAMEBUFPTR, 0),
        word(op::FRAMEBUFWIDTH, 512),
        word(op::FRAMEBUFPIXFORMAT, 3),
        word(op::SCISSOR2, (271 << 10) | 479),
        word(op::REGION2, (271 << 10) | 479),
        word(op::VERTEXTYPE, 1 << 23),
        word(op::VCV, 0x00_00FF),
    ] {
        ge.execute_word(w).unwrap();
    }
    ge
}

fn vertex(ge: &mut Ge, x: u32, y: u32, ap: u32) {
    ge.execute_word(word(op::VSCX, 0x8000 + 16 * x)).unwrap();
    ge.execute_word(word(op::VSCY, 0x8000 + 16 * y)).unwrap();
    ge.execute_word(word(op::VAP, ap)).unwrap();
}

fn pixel(ge: &mut Ge, x: u32, y: u32) -> u32 {
    ge.flush();
    ge.mem.read_u32(0x0400_0000 + 4 * (y * 512 + x)).unwrap()
}

/// Type 3 starts a triangle list, type 7 continues it: the triangle appears with its
/// third vertex; a new type 3 restarts the ring. (Alpha is not written: no stencil.)
#[test]
fn prim_and_continue() {
    let mut ge = ge_through();
    vertex(&mut ge, 0, 0, 0x03FF);
    vertex(&mut ge, 16, 0, 0x07FF);
    assert_eq!(pixel(&mut ge, 4, 4), 0);
    vertex(&mut ge, 0, 16, 0x07FF);
    assert_eq!(pixel(&mut ge, 4, 4), 0x0000_00FF);
    // Two vertices of a new list, then a restart: nothing from the stale pair.
    vertex(&mut ge, 100, 100, 0x03FF);
    vertex(&mut ge, 116, 100, 0x07FF);
    vertex(&mut ge, 200, 200, 0x03FF);
    vertex(&mut ge, 216, 200, 0x07FF);
    assert_eq!(pixel(&mut ge, 104, 104), 0);
    vertex(&mut ge, 200, 216, 0x07FF);
    assert_eq!(pixel(&mut ge, 204, 204), 0x0000_00FF);
    assert_eq!(pixel(&mut ge, 104, 104), 0);
}

/// The cull flags replace CULLFACEENABLE and the CULL face for the draw only.
/// (0,0) (16,0) (0,16) has a positive cross product: CULL face 0 removes it, 1 keeps it.
#[test]
fn cull_flags_override_registers() {
    // VAP flag bits, written out independently of the decoder [PP `GE_IMM_CULLENABLE`, `GE_IMM_CULLFACE`].
    const CULLENABLE: u32 = 0x0008_0000;
    const CULLFACE: u32 = 0x0010_0000;
    for (face_flag, drawn) in [(0, false), (CULLFACE, true)] {
        let mut ge = ge_through();
        ge.execute_word(word(op::CULL, 0x10 | u32::from(face_flag == 0))).unwrap();
        let ap = 0x03FF | CULLENABLE | face_flag;
        vertex(&mut ge, 0, 0, ap);
        vertex(&mut ge, 16, 0, 0x07FF);
        vertex(&mut ge, 0, 16, 0x07FF);
        assert_eq!(pixel(&mut ge, 4, 4) != 0, drawn);
        // Restored: CULL exactly, CULLFACEENABLE as PPSSPP's 0/1 write.
        assert_eq!(ge.state.regs.arg(op::CULL), 0x10 | u32::from(face_flag == 0));
        assert_eq!(ge.state.regs.arg(op::CULLFACEENABLE), 0);
    }
}

/// A single all-zero point (x, y, z and colour 0) is dropped; the same point with a
/// colour is drawn.
#[test]
fn all_zero_point_is_ignored() {
    let mut ge = Ge::new();
    ge.execute_word(word(op::VAP, 0)).unwrap();
    assert_eq!(ge.draw.draw_count, 0);
    ge.execute_word(word(op::VAP, 1)).unwrap();
    assert_eq!(ge.draw.draw_count, 1);
}
