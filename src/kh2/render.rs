//! Drawing a posed KH2 skeleton through the GE model: every joint with a parent gives one line
//! from the parent's origin to its own (PRIM 1, GE lines), every joint one point (PRIM 0).
//! Vertices are colour 8888 + float position in model space; the GE transforms them with the
//! camera's projection and view matrices (world = identity), depth test GEQUAL as in
//! [`crate::scene::build_frame`]. Model bones are drawn in one colour, IK helpers in another, so
//! both are visible; the GE rasterises 1-pixel lines and points.

use crate::scene::camera::{Bounds, Camera};
use crate::scene::ge_4x3;
use crate::scene::Frame;
use ge::cmd::op;
use ge::display::DisplayBuffer;
use ge::list::ListBuilder;
use glam::{Mat4, Vec3};

/// Colours (R, G, B) of the skeleton drawing.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Style {
    pub background: [u8; 3],
    pub bone: [u8; 3],
    pub helper: [u8; 3],
    pub joint: [u8; 3],
}

impl Default for Style {
    fn default() -> Style {
        Style {
            background: [0x28, 0x2c, 0x34],
            bone: [0xe0, 0xc0, 0x40],
            helper: [0x40, 0xa0, 0xff],
            joint: [0xff, 0xff, 0xff],
        }
    }
}

/// Model-space joint positions (the translation of each global matrix).
pub fn joint_positions(globals: &[Mat4]) -> Vec<Vec3> {
    globals.iter().map(|m| m.w_axis.truncate()).collect()
}

/// Bounds of the joint positions of every pose given (for one camera over a sequence).
pub fn bounds<'a>(poses: impl IntoIterator<Item = &'a [Mat4]>) -> Bounds {
    let mut b = Bounds::EMPTY;
    for p in poses {
        joint_positions(p).into_iter().for_each(|v| b.add(v));
    }
    b
}

/// The automatic camera: framing `bounds` from the front-right, slightly above.
pub fn auto_camera(bounds: &Bounds) -> Camera {
    Camera::framing(bounds, 0.5, 0.25, crate::scene::DEFAULT_FOV)
}

fn vertex(out: &mut Vec<u8>, rgb: [u8; 3], p: Vec3) {
    out.extend_from_slice(&[rgb[0], rgb[1], rgb[2], 0xff]);
    for c in p.to_array() {
        out.extend_from_slice(&c.to_le_bytes());
    }
}

/// Display list drawing `globals` (combined joint space; joints at index ≥ `bones` are IK
/// helpers) linked by `parents` (−1 = root) from `camera`.
pub fn build_frame(globals: &[Mat4], parents: &[i32], bones: usize, camera: &Camera, style: &Style) -> Frame {
    let pos = joint_positions(globals);
    let mut l = ListBuilder::new();
    let [r, g, b] = style.background;
    l.standard_setup(3);
    l.clear(u32::from_le_bytes([r, g, b, 0]), 0);
    l.matrix(op::PROJMATRIXNUMBER, &camera.projection().to_cols_array())
        .matrix(op::VIEWMATRIXNUMBER, &ge_4x3(&camera.view()))
        .matrix(op::WORLDMATRIXNUMBER, &ge_4x3(&Mat4::IDENTITY))
        .cmd(op::ZTESTENABLE, 1)
        .cmd(op::ZTEST, 7)
        .cmd(op::LIGHTINGENABLE, 0)
        .cmd(op::TEXTUREMAPENABLE, 0)
        .cmd(op::ALPHABLENDENABLE, 0);
    // Colour 8888 (bits 2-4 = 7), float position (bits 7-8 = 3), transformed.
    let vtype = (7 << 2) | (3 << 7);
    let mut lines = Vec::new();
    let mut nlines = 0;
    for (j, &p) in parents.iter().enumerate() {
        let (Ok(p), Some(&end)) = (usize::try_from(p), pos.get(j)) else { continue };
        let Some(&start) = pos.get(p) else { continue };
        let colour = if j >= bones { style.helper } else { style.bone };
        vertex(&mut lines, colour, start);
        vertex(&mut lines, colour, end);
        nlines += 2;
    }
    if nlines > 0 {
        l.cmd(op::VERTEXTYPE, vtype).vertices(&lines).prim(1, nlines);
    }
    let mut points = Vec::new();
    for &p in &pos {
        vertex(&mut points, style.joint, p);
    }
    if !pos.is_empty() {
        // Joints skip the depth test: under the PSP's line rule a bone's last pixel can be
        // the joint's own pixel, a little nearer than the joint [HW primitives-lines,
        // ge raster/line.rs], and would hide it.
        l.cmd(op::ZTEST, 1).cmd(op::VERTEXTYPE, vtype).vertices(&points).prim(0, pos.len() as u32);
    }
    l.finish();
    Frame { list: l, display: DisplayBuffer { addr: 0x0400_0000, stride: 512, format: 3 }, camera: *camera }
}
