//! Small scenes written as raw GE command words and hand-encoded vertex bytes.
//!
//! They serve as golden images (one per primitive type and per vertex-format family; the
//! application's demo is a synthetic PMO model drawn by its scene builder). Each scene is a function
//! that appends to a [`ListBuilder`] after [`ListBuilder::standard_setup`] and a clear; [`run`] runs it
//! on a fresh GE and returns the 8888 framebuffer at VRAM 0.
//!
//! Transform-mode scenes use identity view and projection matrices, so model x, y in
//! [-1, 1] map straight onto the 480x272 viewport (x_s = 240 + 240x, y_s = 136 - 136y)
//! and z in (-1, 1) onto depth 65535..0.

use crate::cmd::op;
use crate::exec::GeError;
use crate::list::{Bytes, ListBuilder};
use crate::regs::{IDENTITY_4X3, IDENTITY_4X4};
use crate::{Ge, Model};

/// VTYPE field helpers (ge-reference.md §2.1).
pub mod vt {
    pub const TC_U8: u32 = 1;
    pub const TC_U16: u32 = 2;
    pub const TC_F32: u32 = 3;
    pub const COL_5650: u32 = 4 << 2;
    pub const COL_5551: u32 = 5 << 2;
    pub const COL_4444: u32 = 6 << 2;
    pub const COL_8888: u32 = 7 << 2;
    pub const NRM_S8: u32 = 1 << 5;
    pub const NRM_S16: u32 = 2 << 5;
    pub const NRM_F32: u32 = 3 << 5;
    pub const POS_S8: u32 = 1 << 7;
    pub const POS_S16: u32 = 2 << 7;
    pub const POS_F32: u32 = 3 << 7;
    pub const W_U8: u32 = 1 << 9;
    pub const W_U16: u32 = 2 << 9;
    pub const W_F32: u32 = 3 << 9;
    pub const IDX_U8: u32 = 1 << 11;
    pub const IDX_U16: u32 = 2 << 11;
    pub const IDX_U32: u32 = 3 << 11;
    pub const THROUGH: u32 = 1 << 23;
    pub const fn weights(n: u32) -> u32 {
        (n - 1) << 14
    }
    pub const fn morphs(n: u32) -> u32 {
        (n - 1) << 18
    }
}

/// GE primitive type numbers.
pub mod prim {
    pub const POINTS: u32 = 0;
    pub const LINES: u32 = 1;
    pub const LINE_STRIP: u32 = 2;
    pub const TRIANGLES: u32 = 3;
    pub const TRIANGLE_STRIP: u32 = 4;
    pub const TRIANGLE_FAN: u32 = 5;
    pub const RECTANGLES: u32 = 6;
    pub const CONTINUE: u32 = 7;
}

/// A named scene.
pub struct Scene {
    pub name: &'static str,
    pub build: fn(&mut ListBuilder),
}

/// Identity transform, depth test off, Gouraud; colourless vertices are opaque white
/// (they take MATERIALAMBIENT + MATERIALALPHA, ge-reference.md §2.5).
fn transform_setup(l: &mut ListBuilder) {
    l.cmd(op::MATERIALAMBIENT, 0xFF_FFFF).cmd(op::MATERIALALPHA, 0xFF);
    l.matrix(op::WORLDMATRIXNUMBER, &IDENTITY_4X3)
        .matrix(op::VIEWMATRIXNUMBER, &IDENTITY_4X3)
        .matrix(op::PROJMATRIXNUMBER, &IDENTITY_4X4)
        .cmd(op::DEPTHCLAMPENABLE, 1);
}

fn rgba(r: u8, g: u8, b: u8, a: u8) -> u32 {
    u32::from_le_bytes([r, g, b, a])
}

/// A colourful 8x8 8888 texture: a checker of four hues with a white border texel row.
pub fn checker_texture_8888() -> Vec<u8> {
    let mut b = Bytes::default();
    for y in 0..8u32 {
        for x in 0..8u32 {
            let c = match ((x / 2) + (y / 2)) % 4 {
                0 => rgba(255, 64, 64, 255),
                1 => rgba(64, 255, 64, 255),
                2 => rgba(64, 64, 255, 255),
                _ => rgba(255, 255, 255, 128),
            };
            b.u32(c);
        }
    }
    b.0
}

fn points(l: &mut ListBuilder) {
    transform_setup(l);
    let mut v = Bytes::default();
    let mut n = 0;
    for i in -10i16..=10 {
        for j in -5i16..=5 {
            let c = rgba((128 + i * 12) as u8, (128 + j * 24) as u8, 200, 255);
            v.u32(c).i16(i * 3000).i16(j * 5000).i16(0).align(4);
            n += 1;
        }
    }
    l.cmd(op::VERTEXTYPE, vt::COL_8888 | vt::POS_S16).vertices(&v.0).prim(prim::POINTS, n);
}

fn lines(l: &mut ListBuilder) {
    let mut v = Bytes::default();
    let mut n = 0;
    for k in 0..24i16 {
        let a = k as f32 * std::f32::consts::PI / 12.0;
        let (x1, y1) = (240.0 + 120.0 * a.cos(), 136.0 + 120.0 * a.sin());
        v.u32(rgba(255, (k * 10) as u8, 0, 255)).i16(240).i16(136).u16(0).align(4);
        v.u32(rgba(0, 128, 255, 255)).i16(x1 as i16).i16(y1 as i16).u16(0).align(4);
        n += 2;
    }
    l.cmd(op::VERTEXTYPE, vt::THROUGH | vt::COL_8888 | vt::POS_S16).vertices(&v.0).prim(prim::LINES, n);
}

fn line_strip(l: &mut ListBuilder) {
    transform_setup(l);
    let mut v = Bytes::default();
    let n = 64;
    for k in 0..n {
        let t = k as f32 / (n - 1) as f32;
        let x = -0.9 + 1.8 * t;
        let y = 0.6 * (t * 12.0).sin();
        v.u32(rgba((255.0 * t) as u8, 255, (255.0 * (1.0 - t)) as u8, 255)).f32(x).f32(y).f32(0.0);
    }
    l.cmd(op::VERTEXTYPE, vt::COL_8888 | vt::POS_F32).vertices(&v.0).prim(prim::LINE_STRIP, n);
}

fn triangles(l: &mut ListBuilder) {
    let mut v = Bytes::default();
    // Through-mode Gouraud triangles with sub-pixel float positions.
    let tris = [
        [
            (20.25f32, 20.5f32, rgba(255, 0, 0, 255)),
            (200.75, 40.0, rgba(0, 255, 0, 255)),
            (60.0, 250.5, rgba(0, 0, 255, 255)),
        ],
        [
            (300.0, 30.0, rgba(255, 255, 0, 255)),
            (460.0, 200.0, rgba(0, 255, 255, 255)),
            (250.0, 260.0, rgba(255, 0, 255, 255)),
        ],
        [
            (210.0, 120.0, rgba(255, 255, 255, 255)),
            (290.0, 120.0, rgba(0, 0, 0, 255)),
            (250.0, 180.0, rgba(128, 128, 128, 255)),
        ],
    ];
    for t in tris {
        for (x, y, c) in t {
            v.u32(c).f32(x).f32(y).f32(0.0);
        }
    }
    l.cmd(op::VERTEXTYPE, vt::THROUGH | vt::COL_8888 | vt::POS_F32).vertices(&v.0).prim(prim::TRIANGLES, 9);
}

fn triangle_strip(l: &mut ListBuilder) {
    transform_setup(l);
    let mut v = Bytes::default();
    let n = 20;
    for k in 0..n {
        let x = -0.9 + 1.8 * (k / 2) as f32 / ((n / 2 - 1) as f32);
        let y = if k % 2 == 0 { 0.5 } else { -0.5 } + 0.1 * (k as f32).sin();
        v.u32(rgba((k * 12) as u8, 255 - (k * 12) as u8, 128, 255)).f32(x).f32(y).f32(0.0);
    }
    l.cmd(op::SHADEMODE, 0) // flat: each triangle takes its last vertex's colour
        .cmd(op::VERTEXTYPE, vt::COL_8888 | vt::POS_F32)
        .vertices(&v.0)
        .prim(prim::TRIANGLE_STRIP, n);
}

fn triangle_fan(l: &mut ListBuilder) {
    transform_setup(l);
    let mut v = Bytes::default();
    v.u32(rgba(255, 255, 255, 255)).f32(0.0).f32(0.0).f32(0.0);
    let n = 17;
    for k in 0..n {
        let a = k as f32 * std::f32::consts::TAU / (n - 1) as f32;
        let c = if k % 2 == 0 { rgba(255, 0, 128, 255) } else { rgba(0, 128, 255, 255) };
        v.u32(c).f32(0.5 * a.cos()).f32(0.8 * a.sin()).f32(0.0);
    }
    // Cull one winding: the fan winds counter-clockwise on screen (y flips), so culling
    // clockwise triangles keeps it all.
    l.cmd(op::CULLFACEENABLE, 1)
        .cmd(op::CULL, 0)
        .cmd(op::VERTEXTYPE, vt::COL_8888 | vt::POS_F32)
        .vertices(&v.0)
        .prim(prim::TRIANGLE_FAN, n + 1);
}

fn rectangles(l: &mut ListBuilder) {
    // 4x4 CLUT8 texture with a 16-entry 8888 palette.
    // Rows are 16 bytes apart: CLUT8 buffer widths round up to 16 bytes.
    let mut tex = vec![0u8; 64];
    for i in 0..16u8 {
        tex[(i / 4) as usize * 16 + (i % 4) as usize] = i;
    }
    let mut pal = Bytes::default();
    for i in 0..16u32 {
        pal.u32(rgba((i * 16) as u8, 255 - (i * 16) as u8, ((i * 53) & 255) as u8, 255));
    }
    l.clut(&pal.0)
        .cmd(op::CLUTFORMAT, 3 | (0xFF << 8))
        .cmd(op::TEXFORMAT, 5)
        .texture0(&tex, 16, 2, 2)
        .cmd(op::TEXTUREMAPENABLE, 1)
        .cmd(op::TEXFUNC, 3 | (1 << 8)) // replace, rgba
        .cmd(op::TEXFILTER, 0)
        .cmd(op::TEXWRAP, 0);
    let mut v = Bytes::default();
    // TL->BR, TR->BL (rotated), BR->TL.
    let rects = [
        ((20, 20), (0, 0), (120, 120), (4, 4)),
        ((260, 20), (4, 0), (160, 120), (0, 4)),
        ((460, 250), (4, 4), (300, 150), (0, 0)),
    ];
    for ((x0, y0), (u0, v0), (x1, y1), (u1, v1)) in rects {
        v.u16(u0).u16(v0).u32(rgba(255, 255, 255, 255)).i16(x0).i16(y0).u16(0).align(4);
        v.u16(u1).u16(v1).u32(rgba(255, 255, 255, 255)).i16(x1).i16(y1).u16(0).align(4);
    }
    l.cmd(op::VERTEXTYPE, vt::THROUGH | vt::TC_U16 | vt::COL_8888 | vt::POS_S16)
        .vertices(&v.0)
        .prim(prim::RECTANGLES, 6);
}

fn continuation(l: &mut ListBuilder) {
    // One triangle strip split over three PRIMs: 1 vertex, then type 7 with 3, then 2.
    let mut v = Bytes::default();
    for k in 0..6i16 {
        let x = 40 + (k / 2) * 150;
        let y = if k % 2 == 0 { 40 } else { 230 };
        v.u32(rgba(255, (k * 40) as u8, 255 - (k * 40) as u8, 255)).i16(x).i16(y).u16(0).align(4);
    }
    l.cmd(op::VERTEXTYPE, vt::THROUGH | vt::COL_8888 | vt::POS_S16)
        .vertices(&v.0)
        .prim(prim::TRIANGLE_STRIP, 1)
        .prim(prim::CONTINUE, 3)
        .prim(prim::CONTINUE, 2);
}

/// Boxes textured through u8, u16 and float texcoords in transform mode, nearest and
/// bilinear, repeat.
fn texcoords(l: &mut ListBuilder) {
    transform_setup(l);
    l.cmd(op::TEXFORMAT, 3)
        .texture0(&checker_texture_8888(), 8, 3, 3)
        .cmd(op::TEXTUREMAPENABLE, 1)
        .cmd(op::TEXFUNC, 1 << 8) // modulate, rgba
        .cmd(op::TEXWRAP, 0)
        .cmd_f(op::TEXSCALEU, 1.0)
        .cmd_f(op::TEXSCALEV, 1.0)
        .cmd_f(op::TEXOFFSETU, 0.0)
        .cmd_f(op::TEXOFFSETV, 0.0);
    for (row, filter) in [(0.45f32, 0u32), (-0.45, 1 | (1 << 8))] {
        l.cmd(op::TEXFILTER, filter);
        for (col, fmt) in [(-0.6f32, vt::TC_U8), (0.0, vt::TC_U16), (0.6, vt::TC_F32)] {
            let mut v = Bytes::default();
            let corners = [(-0.25f32, -0.35f32, 0.0f32, 2.0f32), (0.25, 0.35, 2.0, 0.0)];
            for (dx, dy, s, t) in corners {
                match fmt {
                    vt::TC_U8 => v.u8((s * 128.0).min(255.0) as u8).u8((t * 128.0).min(255.0) as u8),
                    vt::TC_U16 => v.u16((s * 32768.0).min(65535.0) as u16).u16((t * 32768.0).min(65535.0) as u16),
                    _ => v.f32(s).f32(t),
                };
                v.align(4).f32(col + dx).f32(row + dy).f32(0.0);
            }
            l.cmd(op::VERTEXTYPE, fmt | vt::POS_F32).vertices(&v.0).prim(prim::RECTANGLES, 2);
        }
    }
}

/// Gouraud boxes with each vertex colour format, alpha-blended over a grey clear.
fn colors(l: &mut ListBuilder) {
    l.cmd(op::ALPHABLENDENABLE, 1).cmd(op::BLENDMODE, 2 | (3 << 4));
    let formats: [(u32, [u32; 4]); 4] = [
        (vt::COL_5650, [0x001F, 0x07E0, 0xF800, 0xFFFF]),
        (vt::COL_5551, [0x801F, 0x03E0, 0xFC00, 0x7FFF]),
        (vt::COL_4444, [0xF00F, 0x80F0, 0x4F00, 0xFFFF]),
        (vt::COL_8888, [0xFF0000FF, 0x8000FF00, 0x40FF0000, 0xFFFFFFFF]),
    ];
    for (i, (fmt, cols)) in formats.iter().enumerate() {
        let x0 = 20 + i as i16 * 115;
        let (x1, y0, y1) = (x0 + 100, 40i16, 230i16);
        let mut v = Bytes::default();
        for (k, (x, y)) in [(x0, y0), (x1, y0), (x0, y1), (x1, y1)].iter().enumerate() {
            if *fmt == vt::COL_8888 {
                v.u32(cols[k]);
            } else {
                v.u16(cols[k] as u16);
            }
            v.i16(*x).i16(*y).u16(0).align(if *fmt == vt::COL_8888 { 4 } else { 2 });
        }
        l.cmd(op::VERTEXTYPE, vt::THROUGH | fmt | vt::POS_S16).vertices(&v.0).prim(prim::TRIANGLE_STRIP, 4);
    }
}

/// A lit disc per normal format: one white directional light, grey material.
fn normals(l: &mut ListBuilder) {
    transform_setup(l);
    l.directional_light(0, [0.4, 0.5, 0.75], 0xFFFFFF)
        .cmd(op::LAC0, 0)
        .cmd(op::MATERIALDIFFUSE, 0xC0C0C0)
        .cmd(op::MATERIALAMBIENT, 0x202020)
        .cmd(op::MATERIALALPHA, 0xFF)
        .cmd(op::MATERIALEMISSIVE, 0)
        .cmd(op::AMBIENTCOLOR, 0x101040)
        .cmd(op::AMBIENTALPHA, 0xFF)
        .cmd(op::MATERIALUPDATE, 0);
    for (i, fmt) in [vt::NRM_S8, vt::NRM_S16, vt::NRM_F32].iter().enumerate() {
        let cx = -0.6 + 0.6 * i as f32;
        let mut v = Bytes::default();
        let n = 24;
        let emit = |v: &mut Bytes, nx: f32, ny: f32, nz: f32, x: f32, y: f32| {
            match *fmt {
                vt::NRM_S8 => v.i8((nx * 127.0) as i8).i8((ny * 127.0) as i8).i8((nz * 127.0) as i8),
                vt::NRM_S16 => v.i16((nx * 32767.0) as i16).i16((ny * 32767.0) as i16).i16((nz * 32767.0) as i16),
                _ => v.f32(nx).f32(ny).f32(nz),
            };
            v.align(4).f32(x).f32(y).f32(0.0);
        };
        emit(&mut v, 0.0, 0.0, 1.0, cx, 0.0);
        for k in 0..=n {
            let a = k as f32 * std::f32::consts::TAU / n as f32;
            let (c, s) = (a.cos(), a.sin());
            emit(&mut v, 0.9 * c, 0.9 * s, 0.43, cx + 0.25 * c, 0.45 * s);
        }
        l.cmd(op::VERTEXTYPE, fmt | vt::POS_F32).vertices(&v.0).prim(prim::TRIANGLE_FAN, n + 2);
    }
}

/// The same quad with s8, s16 and float positions.
fn positions(l: &mut ListBuilder) {
    transform_setup(l);
    let quads = [(vt::POS_S8, -0.6f32), (vt::POS_S16, 0.0), (vt::POS_F32, 0.6)];
    for (fmt, cx) in quads {
        let mut v = Bytes::default();
        for (k, (dx, dy)) in [(-0.25f32, -0.5f32), (0.25, -0.5), (-0.25, 0.5), (0.25, 0.5)].iter().enumerate() {
            v.u32(rgba(255, (k * 80) as u8, 100, 255));
            let (x, y) = (cx + dx, *dy);
            match fmt {
                vt::POS_S8 => v.i8((x * 128.0) as i8).i8((y * 128.0) as i8).i8(0),
                vt::POS_S16 => v.i16((x * 32768.0) as i16).i16((y * 32768.0) as i16).i16(0),
                _ => v.f32(x).f32(y).f32(0.0),
            };
            v.align(4);
        }
        l.cmd(op::VERTEXTYPE, vt::COL_8888 | fmt).vertices(&v.0).prim(prim::TRIANGLE_STRIP, 4);
    }
}

/// A strip skinned by two bones (bone 1 bends the right half up) with u8, u16 and float
/// weights.
fn weights(l: &mut ListBuilder) {
    transform_setup(l);
    let bone0 = IDENTITY_4X3;
    let (s, c) = (0.35f32.sin(), 0.35f32.cos());
    let bone1 = [c, s, 0.0, -s, c, 0.0, 0.0, 0.0, 1.0, 0.0, 0.1, 0.0];
    l.bone(0, &bone0).bone(1, &bone1);
    for (row, fmt) in [(0.6f32, vt::W_U8), (0.0, vt::W_U16), (-0.6, vt::W_F32)] {
        let mut v = Bytes::default();
        let n = 16;
        for k in 0..n {
            let t = (k / 2) as f32 / ((n / 2 - 1) as f32);
            let w1 = t;
            let w0 = 1.0 - t;
            match fmt {
                vt::W_U8 => v.u8((w0 * 128.0) as u8).u8((w1 * 128.0) as u8),
                vt::W_U16 => v.u16((w0 * 32768.0) as u16).u16((w1 * 32768.0) as u16),
                _ => v.f32(w0).f32(w1),
            };
            v.align(4).u32(rgba((t * 255.0) as u8, 200, 255 - (t * 255.0) as u8, 255));
            let y = row + if k % 2 == 0 { 0.12 } else { -0.12 };
            v.f32(-0.8 + 1.6 * t).f32(y).f32(0.0);
        }
        l.cmd(op::VERTEXTYPE, fmt | vt::weights(2) | vt::COL_8888 | vt::POS_F32)
            .vertices(&v.0)
            .prim(prim::TRIANGLE_STRIP, n);
    }
}

/// Sprites blended from 2 and 4 morph targets (positions and colours), weights not
/// summing to one.
fn morph(l: &mut ListBuilder) {
    transform_setup(l);
    let weights = [0.5f32, 0.25, 0.5, 0.5];
    for (i, w) in weights.iter().enumerate() {
        l.cmd_f(op::MORPHWEIGHT0 + i as u8, *w);
    }
    for (morphs, cx) in [(2u32, -0.45f32), (4, 0.45)] {
        let mut v = Bytes::default();
        for (dx, dy) in [(-0.3f32, -0.6f32), (0.3, 0.6)] {
            for m in 0..morphs {
                let c = [rgba(255, 0, 0, 255), rgba(0, 255, 0, 255), rgba(0, 0, 255, 255), rgba(255, 255, 255, 255)];
                let scale = 1.0 + 0.3 * m as f32;
                v.u32(c[m as usize]).f32(cx + dx * scale).f32(dy * scale).f32(0.0);
            }
        }
        l.cmd(op::VERTEXTYPE, vt::morphs(morphs) | vt::COL_8888 | vt::POS_F32).vertices(&v.0).prim(prim::RECTANGLES, 2);
    }
}

/// An indexed 4x4 grid drawn with u8, u16 and u32 indices.
fn indices(l: &mut ListBuilder) {
    let mut tri = Vec::new();
    for j in 0..3u32 {
        for i in 0..3u32 {
            let a = j * 4 + i;
            tri.extend_from_slice(&[a, a + 1, a + 4, a + 1, a + 5, a + 4]);
        }
    }
    for (k, fmt) in [vt::IDX_U8, vt::IDX_U16, vt::IDX_U32].iter().enumerate() {
        let mut ib = Bytes::default();
        for &i in &tri {
            match *fmt {
                vt::IDX_U8 => ib.u8(i as u8),
                vt::IDX_U16 => ib.u16(i as u16),
                _ => ib.u32(i),
            };
        }
        let mut v = Bytes::default();
        for j in 0..4i16 {
            for i in 0..4i16 {
                let (x, y) = (30 + 150 * k as i16 + i * 40, 70 + j * 40 + (i * j) % 7);
                v.u32(rgba((i * 80) as u8, (j * 80) as u8, 160, 255)).i16(x).i16(y).u16(0).align(4);
            }
        }
        l.cmd(op::VERTEXTYPE, vt::THROUGH | fmt | vt::COL_8888 | vt::POS_S16)
            .vertices(&v.0)
            .indices(&ib.0)
            .prim(prim::TRIANGLES, tri.len() as u32);
    }
}

/// Every golden scene.
pub const SCENES: &[Scene] = &[
    Scene { name: "prim_points", build: points },
    Scene { name: "prim_lines", build: lines },
    Scene { name: "prim_line_strip", build: line_strip },
    Scene { name: "prim_triangles", build: triangles },
    Scene { name: "prim_triangle_strip", build: triangle_strip },
    Scene { name: "prim_triangle_fan", build: triangle_fan },
    Scene { name: "prim_rectangles", build: rectangles },
    Scene { name: "prim_continue", build: continuation },
    Scene { name: "vfmt_texcoords", build: texcoords },
    Scene { name: "vfmt_colors", build: colors },
    Scene { name: "vfmt_normals", build: normals },
    Scene { name: "vfmt_positions", build: positions },
    Scene { name: "vfmt_weights", build: weights },
    Scene { name: "vfmt_morph", build: morph },
    Scene { name: "vfmt_indices", build: indices },
];

/// Build the full list for a scene: setup, clear to dark grey, the scene, finish.
pub fn build(scene: &Scene) -> ListBuilder {
    let mut l = ListBuilder::new();
    l.standard_setup(3);
    l.clear(rgba(32, 32, 40, 0), 0);
    (scene.build)(&mut l);
    l.finish();
    l
}

/// Run a scene on a fresh GE of `model` with `threads` raster threads.
pub fn run(scene: &Scene, threads: usize, model: Model) -> Result<Ge, GeError> {
    let mut ge = Ge::with_model(model);
    ge.set_threads(threads);
    build(scene).run(&mut ge)?;
    Ok(ge)
}
