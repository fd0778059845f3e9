//! Vertex encoding and procedural shapes for the synthetic models.
//!
//! A shape is a [`Mesh`]: a GE primitive type, strip lengths and vertices in float form
//! ([`V`]: position in normalised model units, i.e. before the header's model scale, texture
//! coordinates where 1.0 is one texture repeat, RGBA colour, normal, skin weights).
//! [`encode`] quantises them to the byte layout of a VTYPE exactly as the GE will read them
//! back (ge-reference §2.2 layout, §2.3 scales /128 and /32768, §2.4 colour fields), so a
//! value that is representable (e.g. 0.5 as s16) decodes to itself.
//!
//! Winding: every closed shape is counter-clockwise seen from outside (right-handed model
//! space, +Y up); strips start so that their first triangle has that winding, and the GE's
//! alternating strip winding (ge-reference §5.4) keeps the rest consistent.

use ge::geom::{ColorFormat, NumFormat};
use ge::vertex::VertexLayout;

/// One vertex before encoding.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct V {
    /// Normalised model position (the GE's decoded position; × model scale = model units).
    pub pos: [f32; 3],
    pub uv: [f32; 2],
    pub col: [u8; 4],
    pub nrm: [f32; 3],
    /// Weight of GE bone slot j.
    pub w: [f32; 8],
}

/// A primitive type, strip lengths (empty = one PRIM of all vertices) and the vertices.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Mesh {
    pub prim: u32,
    pub strips: Vec<u16>,
    pub verts: Vec<V>,
}

impl Mesh {
    /// Append another mesh of the same primitive type (its strips follow ours).
    pub fn append(&mut self, other: Mesh) {
        if self.verts.is_empty() {
            self.prim = other.prim;
        }
        self.strips.extend(other.strips);
        self.verts.extend(other.verts);
    }

    pub fn map(mut self, f: impl Fn(&mut V)) -> Mesh {
        self.verts.iter_mut().for_each(f);
        self
    }
}

const TRIANGLES: u32 = 3;
const STRIP: u32 = 4;

fn q_signed(x: f32, one: f32, lo: f32, hi: f32) -> i32 {
    (x * one).round().clamp(lo, hi) as i32
}

/// Integer weights for one vertex: quantised, and when the float weights sum to 1 the
/// largest is adjusted so the integers sum to exactly `one` (u8 128 / u16 32768 = 1.0 on
/// the GE, ge-reference §2.9).
fn int_weights(w: &[f32], one: f32, max: i32) -> Vec<i32> {
    let mut q: Vec<i32> = w.iter().map(|&x| (x * one).round().clamp(0.0, max as f32) as i32).collect();
    let sum: f32 = w.iter().sum();
    if (sum - 1.0).abs() < 1e-4 {
        let total: i32 = q.iter().sum();
        if let Some(big) = (0..q.len()).max_by_key(|&i| (q[i], std::cmp::Reverse(i))) {
            q[big] = (q[big] + one as i32 - total).clamp(0, max);
        }
    }
    q
}

fn put(out: &mut [u8], at: usize, bytes: &[u8]) {
    if let Some(d) = out.get_mut(at..at + bytes.len()) {
        d.copy_from_slice(bytes);
    }
}

/// Encode one number of format `f` at `at`; `signed` for positions/normals.
fn put_num(out: &mut [u8], at: usize, f: NumFormat, x: f32, signed: bool) {
    match (f, signed) {
        (NumFormat::Byte, true) => put(out, at, &[q_signed(x, 128.0, -128.0, 127.0) as i8 as u8]),
        (NumFormat::Byte, false) => put(out, at, &[q_signed(x, 128.0, 0.0, 255.0) as u8]),
        (NumFormat::Short, true) => put(out, at, &(q_signed(x, 32768.0, -32768.0, 32767.0) as i16).to_le_bytes()),
        (NumFormat::Short, false) => put(out, at, &(q_signed(x, 32768.0, 0.0, 65535.0) as u16).to_le_bytes()),
        (NumFormat::Float, _) => put(out, at, &x.to_bits().to_le_bytes()),
        (NumFormat::None, _) => {}
    }
}

fn color_bits(f: ColorFormat, c: [u8; 4]) -> Vec<u8> {
    let [r, g, b, a] = c.map(u16::from);
    match f {
        ColorFormat::Rgb565 => ((r >> 3) | (g >> 2) << 5 | (b >> 3) << 11).to_le_bytes().to_vec(),
        ColorFormat::Rgba5551 => ((r >> 3) | (g >> 3) << 5 | (b >> 3) << 10 | (a >> 7) << 15).to_le_bytes().to_vec(),
        ColorFormat::Rgba4444 => ((r >> 4) | (g >> 4) << 4 | (b >> 4) << 8 | (a >> 4) << 12).to_le_bytes().to_vec(),
        ColorFormat::Rgba8888 => c.to_vec(),
        ColorFormat::None | ColorFormat::Invalid(_) => Vec::new(),
    }
}

/// The vertex bytes of `verts` in the layout of `vtype` (one morph target; padding zero).
pub fn encode(vtype: u32, verts: &[V]) -> Vec<u8> {
    let l = VertexLayout::new(vtype);
    let vt = l.vtype;
    let stride = l.stride as usize;
    let mut out = vec![0u8; stride * verts.len()];
    for (i, v) in verts.iter().enumerate() {
        let o = &mut out[i * stride..(i + 1) * stride];
        if vt.has_weights() {
            let n = usize::from(vt.weight_count).min(8);
            let base = l.weight_offset as usize;
            match vt.weight {
                NumFormat::Byte => {
                    for (j, q) in int_weights(&v.w[..n], 128.0, 255).into_iter().enumerate() {
                        put(o, base + j, &[q as u8]);
                    }
                }
                NumFormat::Short => {
                    for (j, q) in int_weights(&v.w[..n], 32768.0, 65535).into_iter().enumerate() {
                        put(o, base + 2 * j, &(q as u16).to_le_bytes());
                    }
                }
                _ => {
                    for (j, &x) in v.w[..n].iter().enumerate() {
                        put(o, base + 4 * j, &x.to_bits().to_le_bytes());
                    }
                }
            }
        }
        if vt.has_texcoord() {
            let e = l.texcoord_offset as usize;
            let size = match vt.texcoord {
                NumFormat::Byte => 1,
                NumFormat::Short => 2,
                _ => 4,
            };
            put_num(o, e, vt.texcoord, v.uv[0], false);
            put_num(o, e + size, vt.texcoord, v.uv[1], false);
        }
        put(o, l.color_offset as usize, &color_bits(vt.color, v.col));
        for (fmt, off, xs) in [(vt.normal, l.normal_offset, v.nrm), (vt.position, l.position_offset, v.pos)] {
            let size = match fmt {
                NumFormat::Byte => 1,
                NumFormat::Short => 2,
                _ => 4,
            };
            for (k, &x) in xs.iter().enumerate() {
                put_num(o, off as usize + k * size, fmt, x, true);
            }
        }
    }
    out
}

/// Face colours: red, green, blue, yellow, magenta, cyan (opaque).
pub const FACE_COLORS: [[u8; 4]; 6] = [
    [230, 40, 40, 255],
    [40, 200, 60, 255],
    [50, 80, 230, 255],
    [240, 220, 40, 255],
    [220, 50, 220, 255],
    [40, 210, 220, 255],
];

/// The six faces of a cube as (normal, u axis, v axis): u runs left to right and v top to
/// bottom when the face is seen from outside, so texture (0,0) is its top-left corner.
const FACES: [([f32; 3], [f32; 3], [f32; 3]); 6] = [
    ([0., 0., 1.], [1., 0., 0.], [0., -1., 0.]),
    ([1., 0., 0.], [0., 0., -1.], [0., -1., 0.]),
    ([0., 0., -1.], [-1., 0., 0.], [0., -1., 0.]),
    ([-1., 0., 0.], [0., 0., 1.], [0., -1., 0.]),
    ([0., 1., 0.], [1., 0., 0.], [0., 0., 1.]),
    ([0., -1., 0.], [1., 0., 0.], [0., 0., -1.]),
];

/// Corner (s, t) of a face, s, t ∈ {0, 1}.
fn face_corner(f: usize, s: f32, t: f32, half: f32, center: [f32; 3]) -> V {
    let (n, u, v) = FACES[f];
    let p = |k: usize| center[k] + half * (n[k] + (2.0 * s - 1.0) * u[k] + (2.0 * t - 1.0) * v[k]);
    V { pos: [p(0), p(1), p(2)], uv: [s, t], col: FACE_COLORS[f], nrm: n, w: [0.0; 8] }
}

/// A cube of half-size `half` at `center`, one 4-vertex strip per face (6 strips).
pub fn cube_strips(half: f32, center: [f32; 3]) -> Mesh {
    let mut verts = Vec::new();
    for f in 0..6 {
        // Strip order: bottom-left, bottom-right, top-left, top-right: the first triangle
        // (BL, BR, TL) is counter-clockwise seen from outside.
        for (s, t) in [(0., 1.), (1., 1.), (0., 0.), (1., 0.)] {
            verts.push(face_corner(f, s, t, half, center));
        }
    }
    Mesh { prim: STRIP, strips: vec![4; 6], verts }
}

/// The same cube as a triangle list (36 vertices, no strips).
pub fn cube_triangles(half: f32, center: [f32; 3]) -> Mesh {
    let mut verts = Vec::new();
    for f in 0..6 {
        for (s, t) in [(0., 1.), (1., 1.), (0., 0.), (0., 0.), (1., 1.), (1., 0.)] {
            verts.push(face_corner(f, s, t, half, center));
        }
    }
    Mesh { prim: TRIANGLES, strips: Vec::new(), verts }
}

/// A tube around the Y axis from `y0` to `y1` with `n` segments: outer wall, inner wall (facing
/// the axis), top and bottom annuli, one strip each. Colours run round the ring through the
/// face colours; `u` goes once round, `v` along the height / across the annulus.
pub fn ring(n: usize, r_in: f32, r_out: f32, y0: f32, y1: f32, walls_only: bool) -> Mesh {
    let mut m = Mesh { prim: STRIP, ..Mesh::default() };
    let n = n.max(3);
    let col = |i: usize| {
        let t = i as f32 / n as f32 * 6.0;
        let (a, b) = (FACE_COLORS[t as usize % 6], FACE_COLORS[(t as usize + 1) % 6]);
        let f = t.fract();
        std::array::from_fn(|k| (f32::from(a[k]) * (1.0 - f) + f32::from(b[k]) * f) as u8)
    };
    // (radius a, y a, radius b, y b, [radial, up] normal): each strip alternates a point on
    // edge b and one on edge a while the angle grows counter-clockwise seen from +Y; the edge
    // order per part makes the first triangle counter-clockwise seen from its outside.
    let parts: &[(f32, f32, f32, f32, [f32; 2])] = if walls_only {
        &[(r_out, y0, r_out, y1, [1.0, 0.0])]
    } else {
        &[
            (r_out, y0, r_out, y1, [1.0, 0.0]),
            (r_in, y1, r_in, y0, [-1.0, 0.0]),
            (r_out, y1, r_in, y1, [0.0, 1.0]),
            (r_in, y0, r_out, y0, [0.0, -1.0]),
        ]
    };
    for &(ra, ya, rb, yb, [radial, up]) in parts {
        for i in 0..=n {
            let a = i as f32 / n as f32 * std::f32::consts::TAU;
            let (s, c) = a.sin_cos();
            for (r, y, t) in [(rb, yb, 0.0), (ra, ya, 1.0)] {
                // z = -r sin(a): the angle grows counter-clockwise seen from +Y.
                let pos = [r * c, y, -r * s];
                let nrm = [radial * c, up, -radial * s];
                m.verts.push(V { pos, uv: [i as f32 / n as f32, t], col: col(i % n), nrm, w: [0.0; 8] });
            }
        }
        m.strips.push(2 * (n as u16 + 1));
    }
    m
}

/// A flat `cols` × `rows` grid in the XZ plane (facing +Y) spanning ±`half`, one strip per
/// row, checkerboard-coloured; the texture is stretched once over the whole grid.
pub fn grid(cols: usize, rows: usize, half: f32, y: f32) -> Mesh {
    let mut m = Mesh { prim: STRIP, ..Mesh::default() };
    let (cols, rows) = (cols.max(1), rows.max(1));
    for r in 0..rows {
        for c in 0..=cols {
            // Far edge (smaller z) first: (far, near) then the next column is CCW from +Y.
            for rr in [r, r + 1] {
                let s = c as f32 / cols as f32;
                let t = rr as f32 / rows as f32;
                let shade = if (c.min(cols - 1) + r) % 2 == 0 { 255 } else { 150 };
                let base = FACE_COLORS[(r / 2 + c.min(cols - 1) / 2) % 6];
                let col = [base[0], base[1], base[2], 255].map(|x| (u32::from(x) * shade / 255) as u8);
                let col = [col[0], col[1], col[2], 255];
                let pos = [-half + 2.0 * half * s, y, -half + 2.0 * half * t];
                m.verts.push(V { pos, uv: [s, t], col, nrm: [0.0, 1.0, 0.0], w: [0.0; 8] });
            }
        }
        m.strips.push(2 * (cols as u16 + 1));
    }
    m
}

/// A vertical quad in the XY plane facing +Z, centred at `center`, as one 4-vertex strip
/// given as strip count 0 (one PRIM of all vertices): a single strip length would put the
/// vertex data at 2 mod 4, illegal for 4-byte-aligned layouts (ge-reference §18.1).
pub fn quad(half_w: f32, half_h: f32, center: [f32; 3], col: [u8; 4]) -> Mesh {
    let verts = [(0., 1.), (1., 1.), (0., 0.), (1., 0.)]
        .map(|(s, t): (f32, f32)| V {
            pos: [center[0] + half_w * (2.0 * s - 1.0), center[1] - half_h * (2.0 * t - 1.0), center[2]],
            uv: [s, t],
            col,
            nrm: [0.0, 0.0, 1.0],
            w: [0.0; 8],
        })
        .to_vec();
    Mesh { prim: STRIP, strips: Vec::new(), verts }
}
