//! Draw-path rules checked through the public GE API, in both models.

use ge::cmd::{op, word};
use ge::{Ge, Model};

/// Draw one through-mode triangle of 8888-coloured s16 vertices in clear mode (colour
/// only) into an 8888 framebuffer and return the pixel at (4, 4).
fn clear_triangle(shade_gouraud: bool, verts: [([u8; 4], i16, i16); 3]) -> u32 {
    let mut ge = Ge::with_model(Model::Ppsspp);
    let vaddr = 0x0880_0000u32;
    for (i, (c, x, y)) in verts.iter().enumerate() {
        let a = vaddr + 12 * i as u32;
        ge.mem.write(a, c).unwrap();
        ge.mem.write(a + 4, &x.to_le_bytes()).unwrap();
        ge.mem.write(a + 6, &y.to_le_bytes()).unwrap();
        ge.mem.write(a + 8, &[0; 4]).unwrap();
    }
    for w in [
        word(op::FRAMEBUFPTR, 0),
        word(op::FRAMEBUFWIDTH, 512),
        word(op::FRAMEBUFPIXFORMAT, 3),
        word(op::SCISSOR2, (271 << 10) | 479),
        word(op::REGION2, (271 << 10) | 479),
        word(op::CLEARMODE, 0x101),
        word(op::SHADEMODE, shade_gouraud as u32),
        word(op::BASE, 0x08_0000),
        word(op::VADDR, 0x80_0000),
        word(op::VERTEXTYPE, 0x80_011C),
        word(op::PRIM, (3 << 16) | 3),
    ] {
        ge.execute_word(w).unwrap();
    }
    ge.flush();
    ge.mem.read_u32(0x0400_0000 + 4 * (4 * 512 + 4)).unwrap()
}

const RED: [u8; 4] = [255, 0, 0, 255];
const GREEN: [u8; 4] = [0, 255, 0, 255];
const BLUE: [u8; 4] = [0, 0, 255, 255];

/// [PP `Clipper.cpp` ProcessTriangle]: the provoking colour is copied only under flat
/// SHADEMODE. In clear mode with Gouraud SHADEMODE the colour is the third vertex of
/// the winding `AddTriangle` accepts: a triangle given clockwise on screen is binned as
/// (v2, v1, v0), so it is drawn with v0's colour.
#[test]
fn clear_mode_gouraud_triangle_colour_follows_winding() {
    // (0,0) (0,16) (16,0): d01 = (0,-16), d02 = (-16,0), cross = -256 < 0, so this
    // order is dropped and (v2, v1, v0) is drawn, whose third vertex is the red v0.
    let cw = [(RED, 0, 0), (GREEN, 0, 16), (BLUE, 16, 0)];
    // (0,0) (16,0) (0,16): cross = +256, drawn as given, blue v2.
    let ccw = [(RED, 0, 0), (GREEN, 16, 0), (BLUE, 0, 16)];
    // CLEARMODE 0x101 leaves the (zero) alpha/stencil byte alone.
    let (r, b) = (0x0000_00FFu32, 0x00FF_0000u32);
    assert_eq!(clear_triangle(true, cw), r);
    assert_eq!(clear_triangle(true, ccw), b);
    // Flat SHADEMODE: always the last vertex.
    assert_eq!(clear_triangle(false, cw), b);
    assert_eq!(clear_triangle(false, ccw), b);
}

/// A draw texturing from framebuffer bytes an earlier, still binned draw writes must
/// see them written (the GE draws in order): rows 0..16 are cleared red, then a
/// through-mode sprite at rows 100..116 textures from VRAM 0 (the framebuffer itself,
/// 8888, stride 512) and must copy the red, in both models.
#[test]
fn texturing_from_binned_writes_sees_them() {
    for model in Model::ALL {
        let mut l = ge::list::ListBuilder::new();
        l.standard_setup(3);
        let mut v = Vec::new();
        for (c, x, y) in [(0xFF00_00FFu32, 0i16, 0i16), (0xFF00_00FF, 16, 16)] {
            v.extend_from_slice(&c.to_le_bytes());
            v.extend_from_slice(&x.to_le_bytes());
            v.extend_from_slice(&y.to_le_bytes());
            v.extend_from_slice(&[0; 4]);
        }
        l.cmd(op::CLEARMODE, 0x101).cmd(op::VERTEXTYPE, (1 << 23) | (7 << 2) | (2 << 7)).vertices(&v).prim(6, 2);
        l.cmd(op::CLEARMODE, 0);
        // Texture = VRAM 0x04000000, 8888, bufw 512, 16x16; REPLACE, nearest.
        l.cmd(op::TEXADDR0, 0).cmd(op::TEXBUFWIDTH0, 0x04_0000 | 512).cmd(op::TEXSIZE0, 4 | 4 << 8);
        l.cmd(op::TEXFORMAT, 3).cmd(op::TEXFUNC, 3 | 1 << 8).cmd(op::TEXFILTER, 0).cmd(op::TEXTUREMAPENABLE, 1);
        let mut t = Vec::new();
        for (u, x, y) in [(0i16, 0i16, 100i16), (16, 16, 116)] {
            for c in [u, u] {
                t.extend_from_slice(&c.to_le_bytes());
            }
            t.extend_from_slice(&[0xFF; 4]);
            t.extend_from_slice(&x.to_le_bytes());
            t.extend_from_slice(&y.to_le_bytes());
            t.extend_from_slice(&[0; 4]);
        }
        // s16 texcoords, 8888 colour, s16 positions, through mode.
        l.cmd(op::VERTEXTYPE, (1 << 23) | 2 | (7 << 2) | (2 << 7)).vertices(&t).prim(6, 2);
        l.finish();
        let mut ge = Ge::with_model(model);
        l.run(&mut ge).unwrap();
        let px = |x: u32, y: u32| ge.mem.read_u32(0x0400_0000 + 4 * (y * 512 + x)).unwrap();
        assert_eq!(px(3, 3), 0x0000_00FF, "{model}: the clear (colour only)");
        assert_eq!(px(3, 103) & 0x00FF_FFFF, 0x0000_00FF, "{model}: the copy reads the cleared red");
    }
}
