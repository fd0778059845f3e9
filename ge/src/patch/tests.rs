//! Hand-computed expectations for the tessellator.

use super::basis::{bezier_weights, spline_weights, spline_weights_exact, unit_to_u8, units_to_u8};
use super::*;
use proptest::prelude::*;

fn params(kind: PatchKind, u: u32, v: u32, du: u32, dv: u32) -> PatchParams {
    PatchParams {
        kind,
        u_count: u,
        v_count: v,
        u_div: du,
        v_div: dv,
        output: 0,
        reverse_normals: false,
        has_texcoord: false,
        has_color: false,
        has_normal: false,
        max_index: None,
        rule: TessellationRule::Ppsspp,
        rsqrt: RsqrtRule::AmdRsqrtps,
    }
}

/// Control grid with `f(column, row)` per point, row-major.
fn grid(u: usize, v: usize, f: impl Fn(usize, usize) -> Vertex) -> Vec<Vertex> {
    (0..v).flat_map(|j| (0..u).map(move |i| (i, j))).map(|(i, j)| f(i, j)).collect()
}

fn at(pos: [f32; 3]) -> Vertex {
    Vertex { pos, ..Vertex::default() }
}

const SPLINE_OPEN: PatchKind = PatchKind::Spline { u_edge: 3, v_edge: 3 };

#[test]
fn flat_bezier_division_1_gives_its_corners() {
    let c = grid(4, 4, |i, j| at([i as f32 * 10.0 + 0.3, j as f32 * 7.0 - 1.1, (i * j) as f32 * 0.7]));
    let t = tessellate(&params(PatchKind::Bezier, 4, 4, 1, 1), &c);
    let pos: Vec<[f32; 3]> = t.vertices.iter().map(|v| v.pos).collect();
    // Step order: u fastest within the patch.
    assert_eq!(pos, vec![c[0].pos, c[3].pos, c[12].pos, c[15].pos]);
    assert_eq!(t.indices, vec![0, 2, 1, 1, 2, 3]);
    assert_eq!(t.prim, PrimType::Triangles);
}

#[test]
fn bezier_midpoint_is_the_bernstein_evaluation() {
    // x = column, y = row, z = 8 on the four inner points. At t = 1/2 the Bernstein
    // weights are (1/8, 3/8, 3/8, 1/8): x = y = 3/8 + 6/8 + 3/8 = 1.5 and
    // z = 8 · (3/8 + 3/8)² = 4.5, all exact in binary.
    let c =
        grid(4, 4, |i, j| at([i as f32, j as f32, if (1..3).contains(&i) && (1..3).contains(&j) { 8.0 } else { 0.0 }]));
    let t = tessellate(&params(PatchKind::Bezier, 4, 4, 2, 2), &c);
    assert_eq!(t.vertices.len(), 9);
    assert_eq!(t.vertices[4].pos, [1.5, 1.5, 4.5]);
    // Edge midpoint (u = 1/2, v = 0): row 0 only, all of height 0.
    assert_eq!(t.vertices[1].pos, [1.5, 0.0, 0.0]);
    // (u = 1, v = 1/2): column 3 only.
    assert_eq!(t.vertices[5].pos, [3.0, 1.5, 0.0]);
}

#[test]
fn open_spline_interpolates_its_end_points() {
    let c = grid(6, 4, |i, j| at([i as f32 * 3.0 + 0.25, j as f32 * 5.0 - 2.0, (i + 2 * j) as f32]));
    let t = tessellate(&params(SPLINE_OPEN, 6, 4, 4, 4), &c);
    let row = 3 * 4 + 1;
    assert_eq!(t.vertices.len(), row * 5);
    assert_eq!(t.vertices[0].pos, c[0].pos);
    assert_eq!(t.vertices[row - 1].pos, c[5].pos);
    assert_eq!(t.vertices[4 * row].pos, c[18].pos);
    assert_eq!(t.vertices[5 * row - 1].pos, c[23].pos);
}

#[test]
fn uniform_spline_weights_at_a_knot_are_one_six_four_six_one_six() {
    // Uniform cubic B-spline at a knot: (1/6, 4/6, 1/6, 0).
    let w = spline_weights(1, 4, 0);
    assert_eq!(w.len(), 2);
    let expect = [1.0 / 6.0, 4.0 / 6.0, 1.0 / 6.0, 0.0];
    for (k, e) in expect.iter().enumerate() {
        assert!((w[0].basis[k] - e).abs() < 1e-6, "{:?}", w[0].basis);
        // Mirror image at the other end of the patch.
        assert!((w[1].basis[3 - k] - e).abs() < 1e-6, "{:?}", w[1].basis);
    }
}

#[test]
fn bezier_weights_are_bernstein() {
    let w = bezier_weights(4);
    // t = 1/4: (27, 27, 9, 1)/64; derivative (-27, 27·… ) = (−3·(3/4)², 9/16 − 3 + 3, 3·(5/4)/4, 3/16).
    assert_eq!(w[1].basis, [27.0 / 64.0, 27.0 / 64.0, 9.0 / 64.0, 1.0 / 64.0]);
    assert_eq!(w[1].deriv, [-27.0 / 16.0, 9.0 / 16.0, 15.0 / 16.0, 3.0 / 16.0]);
    assert_eq!(w[0].basis, [1.0, 0.0, 0.0, 0.0]);
    assert_eq!(w[4].basis, [0.0, 0.0, 0.0, 1.0]);
}

#[test]
fn colours_and_texcoords_use_the_same_basis() {
    let c = grid(4, 4, |i, j| Vertex {
        pos: [i as f32, j as f32, 0.0],
        uv: [i as f32, j as f32 * 2.0],
        color: [if i == 1 || i == 2 { 255 } else { 0 }, 100, 0, 255],
        ..Vertex::default()
    });
    let mut p = params(PatchKind::Bezier, 4, 4, 2, 2);
    p.has_color = true;
    p.has_texcoord = true;
    let t = tessellate(&p, &c);
    // Red at u = 1/2: (3/8 + 3/8) · 255 = 191.25 → 191. A constant stays itself.
    assert_eq!(t.vertices[4].color, [191, 100, 0, 255]);
    assert_eq!(t.vertices[3].color, [0, 100, 0, 255]);
    // uv = (1.5, 3.0): the Bernstein evaluation of a linear function.
    assert_eq!(t.vertices[4].uv, [1.5, 3.0]);
    assert_eq!(t.vertices[8].uv, [3.0, 6.0]);
}

#[test]
fn missing_colour_and_texcoords() {
    let c = grid(7, 4, |i, j| Vertex {
        pos: [i as f32, j as f32, 0.0],
        color: [(i * 10) as u8, 1, 2, 3],
        ..Vertex::default()
    });
    let t = tessellate(&params(PatchKind::Bezier, 7, 4, 2, 1), &c);
    // Every vertex takes the first control point's colour.
    assert!(t.vertices.iter().all(|v| v.color == [0, 1, 2, 3]));
    // Generated: patch index + step / division. Patch 1 starts at vertex 6.
    assert_eq!(t.vertices[7].uv, [1.5, 0.0]);
    assert_eq!(t.vertices[11].uv, [2.0, 1.0]);
    assert_eq!(t.vertices[2].uv, [1.0, 0.0]);
    // No normals requested: (0, 0, 1).
    assert!(t.vertices.iter().all(|v| v.normal == [0.0, 0.0, 1.0]));
}

#[test]
fn normals_follow_the_derivatives_and_patchfacing_reverses_them() {
    // Flat grid in the xy plane: ∂P/∂u = (3, 0, 0), ∂P/∂v = (0, 3, 0), cross (0, 0, 9).
    let c = grid(4, 4, |i, j| at([i as f32, j as f32, 0.0]));
    let mut p = params(PatchKind::Bezier, 4, 4, 2, 2);
    p.has_normal = true;
    let t = tessellate(&p, &c);
    for v in &t.vertices {
        assert_eq!(v.normal[0], 0.0);
        assert_eq!(v.normal[1], 0.0);
        // RSQRTPS: relative error below 1.5 · 2^-12.
        assert!((v.normal[2] - 1.0).abs() < 4e-4, "{:?}", v.normal);
    }
    p.reverse_normals = true;
    let r = tessellate(&p, &c);
    for (a, b) in t.vertices.iter().zip(&r.vertices) {
        assert_eq!(b.normal[2], -a.normal[2]);
        assert_eq!(a.pos, b.pos);
    }
    // Reversal only applies to evaluated normals.
    p.has_normal = false;
    assert!(tessellate(&p, &c).vertices.iter().all(|v| v.normal == [0.0, 0.0, 1.0]));
    // The AMD RSQRTPS(81) = 0x3DE38800 (0.11109924) gives 9 · 0.11109924 = 0.9998932; the
    // exact rule gives 9 · (1/√81) = 1.
    assert!(t.vertices.iter().all(|v| v.normal[2] == 9.0 * f32::from_bits(0x3DE3_8800)));
    p.has_normal = true;
    p.reverse_normals = false;
    p.rsqrt = RsqrtRule::Exact;
    assert!(tessellate(&p, &c).vertices.iter().all(|v| v.normal == [0.0, 0.0, 1.0]));
}

#[test]
fn counts_for_division_n() {
    let c = grid(7, 7, |i, j| at([i as f32, j as f32, 0.0]));
    for n in 1..=12u32 {
        let t = tessellate(&params(PatchKind::Bezier, 4, 4, n, n), &c[..16]);
        let n = n as usize;
        assert_eq!(t.vertices.len(), (n + 1) * (n + 1));
        assert_eq!(t.indices.len(), 6 * n * n);
    }
    // Two Bézier patches along u, divisions 3 × 2: 2 · 4 · 3 vertices, 2 · 6 · 3 · 2 indices.
    let t = tessellate(&params(PatchKind::Bezier, 7, 4, 3, 2), &c[..28]);
    assert_eq!((t.vertices.len(), t.indices.len()), (24, 72));
    // Spline 6 × 5 = 3 × 2 patches sharing a grid of (3·2 + 1) × (2·3 + 1) vertices.
    let s = grid(6, 5, |i, j| at([i as f32, j as f32, 0.0]));
    let t = tessellate(&params(PatchKind::Spline { u_edge: 0, v_edge: 1 }, 6, 5, 2, 3), &s);
    assert_eq!((t.vertices.len(), t.indices.len()), (49, 216));
    // Division 0 draws as 1.
    let t = tessellate(&params(PatchKind::Bezier, 4, 4, 0, 0), &c[..16]);
    assert_eq!((t.vertices.len(), t.indices.len()), (4, 6));
}

#[test]
fn bezier_patches_are_indexed_u_major() {
    let c = grid(7, 7, |i, j| at([i as f32, j as f32, 0.0]));
    let t = tessellate(&params(PatchKind::Bezier, 7, 7, 1, 1), &c);
    // Patch (u, v) owns vertices 4·(2v + u) ..; index order (0,0), (0,1), (1,0), (1,1).
    let expect: Vec<u32> = [0u32, 8, 4, 12].iter().flat_map(|&b| [b, b + 2, b + 1, b + 1, b + 2, b + 3]).collect();
    assert_eq!(t.indices, expect);
    // Patch (1, 0) corner = control point (3, 0).
    assert_eq!(t.vertices[4].pos, c[3].pos);
    assert_eq!(t.vertices[8].pos, c[21].pos);
}

#[test]
fn spline_grid_indices() {
    let c = grid(5, 4, |i, j| at([i as f32, j as f32, 0.0]));
    let t = tessellate(&params(PatchKind::Spline { u_edge: 0, v_edge: 0 }, 5, 4, 1, 1), &c);
    // One grid 3 wide, 2 high.
    assert_eq!(t.vertices.len(), 6);
    assert_eq!(t.indices, vec![0, 3, 1, 1, 3, 4, 1, 4, 2, 2, 4, 5]);
}

#[test]
fn output_lines_and_points() {
    let c = grid(4, 4, |i, j| at([i as f32, j as f32, 0.0]));
    let mut p = params(PatchKind::Bezier, 4, 4, 1, 1);
    p.output = 1;
    let t = tessellate(&p, &c);
    assert_eq!(t.prim, PrimType::Lines);
    // Left edge, right edge, diagonal.
    assert_eq!(t.indices, vec![0, 2, 1, 3, 1, 2]);
    for out in [2, 3] {
        p.output = out;
        let t = tessellate(&p, &c);
        assert_eq!(t.prim, PrimType::Points);
        assert_eq!(t.indices, vec![0, 2, 1, 1, 2, 3]);
    }
}

#[test]
fn degenerate_draws_are_empty() {
    let c = grid(4, 4, |i, j| at([i as f32, j as f32, 0.0]));
    for (u, v) in [(3, 4), (4, 3), (0, 0), (1, 255)] {
        let t = tessellate(&params(PatchKind::Bezier, u, v, 4, 4), &c);
        assert!(t.vertices.is_empty() && t.indices.is_empty());
        let t = tessellate(&params(SPLINE_OPEN, u, v, 4, 4), &c);
        assert!(t.vertices.is_empty() && t.indices.is_empty());
    }
    // Fewer control points than the command asks for.
    let t = tessellate(&params(PatchKind::Bezier, 4, 4, 4, 4), &c[..15]);
    assert!(t.vertices.is_empty() && t.indices.is_empty());
}

#[test]
fn huge_divisions_are_reduced_to_65536_vertices() {
    // 100 × 100 Bézier = 33 × 33 patches; (d + 1)² · 1089 ≤ 65536 first at d = 6.
    let c = grid(100, 100, |i, j| at([i as f32, j as f32, 0.0]));
    let t = tessellate(&params(PatchKind::Bezier, 100, 100, 127, 127), &c);
    assert_eq!(t.vertices.len(), 49 * 1089);
    assert_eq!(t.indices.len(), 6 * 36 * 1089);
    // Spline: 97 patches per side; (97d + 1)² ≤ 65536 first at d = 2.
    let t = tessellate(&params(SPLINE_OPEN, 100, 100, 127, 127), &c);
    assert_eq!(t.vertices.len(), 195 * 195);
    assert!(t.indices.iter().all(|&i| (i as usize) < t.vertices.len()));
    // Reducing both divisions together can exhaust the smaller one: nothing is drawn.
    let t = tessellate(&params(PatchKind::Bezier, 100, 100, 1, 127), &c);
    assert!(t.indices.is_empty());
}

#[test]
fn ppsspp_scratch_limit() {
    // 120 bytes per point: 140² = 19600 points fit in 2,359,296 bytes, 141² do not.
    assert!(ppsspp_scratch_fits(140 * 140, None));
    assert!(!ppsspp_scratch_fits(141 * 141, None));
    // A large index raises the simplified-point array: 36 · 25001 → 900,048 bytes.
    assert!(!ppsspp_scratch_fits(140 * 140, Some(25_000)));
    let c = grid(141, 141, |i, j| at([i as f32, j as f32, 0.0]));
    assert!(tessellate(&params(PatchKind::Bezier, 141, 141, 1, 1), &c).vertices.is_empty());
    let t = tessellate(&params(PatchKind::Bezier, 140, 140, 1, 1), &c[..140 * 140]);
    assert_eq!(t.vertices.len(), 4 * 46 * 46);
}

#[test]
fn decode_reads_command_and_registers() {
    let mut regs = Regs::default();
    regs.set(op::PATCHDIVISION, 0x0A10);
    regs.set(op::PATCHPRIMITIVE, 2);
    regs.set(op::PATCHFACING, 1);
    let vt = VertexType::from_bits(0x80011E);
    let arg = 6 | (7 << 8) | (2 << 16) | (1 << 18);
    let p = PatchParams::decode(&regs, op::SPLINE, arg, &vt);
    assert_eq!(p.kind, PatchKind::Spline { u_edge: 2, v_edge: 1 });
    assert_eq!((p.u_count, p.v_count, p.u_div, p.v_div, p.output), (6, 7, 16, 10, 2));
    assert!(p.reverse_normals && p.has_texcoord && p.has_color && !p.has_normal);
    assert_eq!(p.primitive(), PrimType::Points);
    assert_eq!(p.control_count(), 42);
    // Lighting forces normal evaluation; BEZIER ignores the edge bits.
    regs.set(op::LIGHTINGENABLE, 1);
    regs.set(op::PATCHFACING, 0);
    let p = PatchParams::decode(&regs, op::BEZIER, arg, &VertexType::from_bits(0x180));
    assert_eq!(p.kind, PatchKind::Bezier);
    assert!(p.has_normal && !p.has_color && !p.has_texcoord && !p.reverse_normals);
    // Invalid colour formats 1–3 still count as "has colour" in PPSSPP.
    let p = PatchParams::decode(&regs, op::BEZIER, arg, &VertexType::from_bits(0x184));
    assert!(p.has_color);
}

#[test]
fn colour_rounding_is_cvtps2dq() {
    assert_eq!(unit_to_u8(0.5), 128); // 127.5 → even
    assert_eq!(unit_to_u8(-0.3), 0);
    assert_eq!(unit_to_u8(1.7), 255);
    assert_eq!(unit_to_u8(f32::NAN), 0);
    // Beyond the i32 range cvtps2dq gives 0x80000000, which saturates to 0.
    assert_eq!(unit_to_u8(1e10), 0);
}

proptest! {
    #[test]
    fn spline_weights_partition_unity(tess in 1u32..20, count in 4u32..12, edge in 0u8..4) {
        let w = spline_weights(tess, count, edge);
        prop_assert_eq!(w.len() as u32, (count - 3) * tess + 1);
        for x in &w {
            let s: f32 = x.basis.iter().sum();
            prop_assert!((s - 1.0).abs() < 1e-5, "{:?}", x.basis);
            // No sign check: PPSSPP's open-edge knot spans give slightly negative
            // weights (e.g. tess 7, 9 points, edge 2), which the reference keeps.
            let d: f32 = x.deriv.iter().sum();
            prop_assert!(d.abs() < 1e-4, "{:?}", x.deriv);
        }
    }

    #[test]
    fn indices_stay_in_range(u in 0u32..14, v in 0u32..14, du in 0u32..24, dv in 0u32..24,
                             spline in any::<bool>(), out in 0u32..4) {
        let kind = if spline { PatchKind::Spline { u_edge: (du & 3) as u8, v_edge: (dv & 3) as u8 } } else { PatchKind::Bezier };
        let c = grid(u as usize, v as usize, |i, j| at([i as f32, j as f32, 1.0]));
        let mut p = params(kind, u, v, du, dv);
        p.output = out;
        p.has_normal = true;
        let t = tessellate(&p, &c);
        prop_assert_eq!(t.indices.len() % 6, 0);
        prop_assert!(t.indices.iter().all(|&i| (i as usize) < t.vertices.len()));
        // A flat grid stays on its plane.
        prop_assert!(t.vertices.iter().all(|v| (v.pos[2] - 1.0).abs() < 1e-4));
    }

    /// Rows of patches evaluated in parallel give the serial vertices, bit for bit.
    #[test]
    fn split_rows_equal_the_serial_tessellation(u in 4u32..14, v in 4u32..14, du in 1u32..12, dv in 1u32..12,
                                                spline in any::<bool>(), hardware in any::<bool>(),
                                                attrs in 0u8..8, seed in any::<u32>()) {
        let kind = if spline { PatchKind::Spline { u_edge: (du & 3) as u8, v_edge: (dv & 3) as u8 } } else { PatchKind::Bezier };
        let h = |i: usize, j: usize, k: u32| ((seed ^ (i as u32 * 73 + j as u32 * 151 + k * 31)).wrapping_mul(2_654_435_761) >> 20) as f32 / 97.0;
        let c = grid(u as usize, v as usize, |i, j| Vertex {
            pos: [h(i, j, 0), h(i, j, 1), h(i, j, 2)],
            uv: [h(i, j, 3), h(i, j, 4)],
            color: [h(i, j, 5) as u8, h(i, j, 6) as u8, 7, 200],
            ..Vertex::default()
        });
        let mut p = params(kind, u, v, du, dv);
        (p.has_texcoord, p.has_color, p.has_normal) = (attrs & 1 != 0, attrs & 2 != 0, attrs & 4 != 0);
        if hardware {
            p = hw(p);
        }
        let serial = tessellate(&p, &c);
        let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
        let split = pool.install(|| tessellate_split(&p, &c, true));
        prop_assert_eq!(&serial.indices, &split.indices);
        prop_assert_eq!(serial.vertices.len(), split.vertices.len());
        for (a, b) in serial.vertices.iter().zip(&split.vertices) {
            let bits = |v: &Vertex| (v.pos.map(f32::to_bits), v.normal.map(f32::to_bits), v.uv.map(f32::to_bits), v.color);
            prop_assert_eq!(bits(a), bits(b));
        }
    }
}

/// A control value from `h`: mostly small, sometimes a signed zero, a whole number or
/// one large enough to overflow the products (infinities, NaN).
fn control_value(h: u32) -> f32 {
    match h % 16 {
        0 => 0.0,
        1 => -0.0,
        2 => (h >> 8) as f32,
        3 => f32::from_bits(0x7E80_0000 ^ (h & 0x8000_0000)),
        _ => ((h >> 8) as i32 - (1 << 23)) as f32 / 4099.0,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3_000))]
    /// The lane evaluator gives the scalar evaluation's bits (NaN compared as NaN: no
    /// output reads a NaN's payload, and LLVM may order its operands either way).
    #[test]
    fn lanes_equal_the_scalar_evaluation(u in 4u32..11, v in 4u32..11, du in 0u32..10, dv in 0u32..10,
                                         spline in any::<bool>(), hardware in any::<bool>(), amd in any::<bool>(),
                                         attrs in 0u8..16, edges in 0u8..16, seed in any::<u32>()) {
        let kind = if spline { PatchKind::Spline { u_edge: edges & 3, v_edge: edges >> 2 } } else { PatchKind::Bezier };
        let h = |i: usize, j: usize, k: u32| (seed ^ (i as u32 * 7919 + j as u32 * 104_729 + k * 31)).wrapping_mul(2_654_435_761).rotate_left(7).wrapping_mul(0x9E37_79B9);
        let c = grid(u as usize, v as usize, |i, j| Vertex {
            pos: [0, 1, 2].map(|k| control_value(h(i, j, k))),
            uv: [3, 4].map(|k| control_value(h(i, j, k))),
            color: [5, 6, 7, 8].map(|k| (h(i, j, k) >> 24) as u8),
            ..Vertex::default()
        });
        let mut p = params(kind, u, v, du, dv);
        (p.has_texcoord, p.has_color, p.has_normal) = (attrs & 1 != 0, attrs & 2 != 0, attrs & 4 != 0);
        p.reverse_normals = attrs & 8 != 0;
        p.rsqrt = if amd { RsqrtRule::AmdRsqrtps } else { RsqrtRule::Exact };
        if hardware {
            p = hw(p);
        }
        let plain = super::plain::tessellate_plain(&p, &c);
        let lanes = tessellate(&p, &c);
        prop_assert_eq!(&plain.indices, &lanes.indices);
        prop_assert_eq!(plain.vertices.len(), lanes.vertices.len());
        let f = |x: f32| if x.is_nan() { u32::MAX } else { x.to_bits() };
        for (a, b) in plain.vertices.iter().zip(&lanes.vertices) {
            let bits = |v: &Vertex| (v.pos.map(f), v.normal.map(f), v.uv.map(f), v.color);
            prop_assert_eq!(bits(a), bits(b));
        }
    }
}

// Hardware rules ([`TessellationRule::Hardware`]); expectations from the real-PSP
// screenshots primitives-spline / primitives-bezier (module docs of `patch`).

fn hw(mut p: PatchParams) -> PatchParams {
    p.rule = TessellationRule::Hardware;
    p
}

#[test]
fn hardware_open_spline_of_four_points_is_the_bezier() {
    // [HW primitives-spline] 4 × 4, both edges open: the Bézier patch. At t = 1/2 the
    // weights are (1, 3, 3, 1)/8; PPSSPP's divisors give (1, 4, 2, 1)/8.
    let w = spline_weights_exact(2, 4, 3);
    assert_eq!(w[1].basis, [0.125, 0.375, 0.375, 0.125]);
    assert_eq!(spline_weights(2, 4, 3)[1].basis, [0.125, 0.5, 0.25, 0.125]);
    for (a, b) in spline_weights_exact(4, 4, 3).iter().zip(bezier_weights(4)) {
        assert_eq!(a.basis, b.basis);
        assert_eq!(a.deriv, b.deriv);
    }
    // Through the tessellator: the control rows 10, 30, 35, 40 put v = 1/2 at
    // y = (10 + 90 + 105 + 40)/8 = 30.625 [HW: row 30 lies in the upper band].
    let c = grid(4, 4, |i, j| at([i as f32 * 10.0, [10.0, 30.0, 35.0, 40.0][j], 0.0]));
    let t = tessellate(&hw(params(SPLINE_OPEN, 4, 4, 1, 2)), &c);
    assert_eq!(t.vertices[2].pos[1], 30.625);
}

#[test]
fn hardware_spline_knots_follow_the_edge_types() {
    // Closed edges: the uniform B-spline, (1, 4, 1)/6 at each knot; a boundary belongs
    // to the patch before it, so t = 1 and t = 2 are the ends of patches 0 and 1.
    let w = spline_weights_exact(1, 5, 0);
    let sixth = |v: [f32; 4]| v.map(|x| (x * 6.0).round());
    assert_eq!(w.len(), 3);
    assert_eq!(sixth(w[0].basis), [1.0, 4.0, 1.0, 0.0]);
    assert_eq!(sixth(w[1].basis), [0.0, 1.0, 4.0, 1.0]);
    assert_eq!(sixth(w[2].basis), [0.0, 1.0, 4.0, 1.0]);
    // First edge open: the curve starts on the first point, and the knot vector
    // 0,0,0,0,1,2,… gives N₁,₂,₃(1) = 1/4, 7/12, 1/6 at the end of the first patch.
    let w = spline_weights_exact(1, 5, 1);
    assert_eq!(w[0].basis, [1.0, 0.0, 0.0, 0.0]);
    let twelfths = w[1].basis.map(|x| (x * 12.0).round());
    assert_eq!(twelfths, [0.0, 3.0, 7.0, 2.0]);
    // Weights sum to one everywhere; the last edge open ends the curve on the last point.
    let m = spline_weights_exact(3, 7, 2);
    assert_eq!(m.len(), 13);
    assert!(m.iter().all(|w| (w.basis.iter().sum::<f32>() - 1.0).abs() < 1e-6));
    assert_eq!(m[12].basis, [0.0, 0.0, 0.0, 1.0]);
    assert_eq!(sixth(m[0].basis), [1.0, 4.0, 1.0, 0.0]);
}

#[test]
fn hardware_spline_weights_are_fixed_point_summing_to_one() {
    // [HW primitives-spline patch "vtype0"] rows y = 90, 90, 120, 120, both v edges
    // closed: the PSP's Gouraud rows put the top edge at 94.9375 (1/16 px above the exact
    // 95) and the bottom one at 115; colours 255, 255, 0, 0 give 213 and 43.
    let w = spline_weights_exact(1, 4, 0);
    let sixth = 1.0f32 / 6.0;
    assert!(w[0].basis[0] < sixth && w[0].basis[2] < sixth && w[0].basis[3] == 0.0);
    assert_eq!(w[0].basis.iter().sum::<f32>(), 1.0);
    let rows = [90.0, 90.0, 120.0, 120.0];
    let c = grid(4, 4, |i, j| Vertex {
        color: [255, if j < 2 { 255 } else { 0 }, 0, 255],
        ..at([130.0 + i as f32 * 10.0, rows[j], 0.0])
    });
    let mut p = hw(params(PatchKind::Spline { u_edge: 3, v_edge: 0 }, 4, 4, 1, 1));
    p.has_color = true;
    let t = tessellate(&p, &c);
    let sixteenths: Vec<i32> = t.vertices.iter().map(|v| (v.pos[1] * 16.0).floor() as i32).collect();
    assert_eq!(sixteenths, vec![1519, 1519, 1840, 1840]);
    let green: Vec<u8> = t.vertices.iter().map(|v| v.color[1]).collect();
    assert_eq!(green, vec![213, 213, 43, 43]);
}

#[test]
fn hardware_colours_round_up() {
    // [HW primitives-bezier points patch] green 0, 255, 255, 255 down the control rows
    // reads 148, 224, 252 at v = 1/4, 1/2, 3/4 (exact: 147.4, 223.1, 251.0).
    let c = grid(4, 4, |_, j| Vertex { color: [255, if j == 0 { 0 } else { 255 }, 0, 255], ..at([0.0; 3]) });
    let mut p = hw(params(PatchKind::Bezier, 4, 4, 1, 4));
    p.has_color = true;
    let t = tessellate(&p, &c);
    let green: Vec<u8> = t.vertices.iter().step_by(2).map(|v| v.color[1]).collect();
    assert_eq!(green, vec![0, 148, 224, 252, 255]);
    // Constant channels stay exact.
    assert!(t.vertices.iter().all(|v| v.color[0] == 255 && v.color[2] == 0 && v.color[3] == 255));
    p.rule = TessellationRule::Ppsspp;
    let pp: Vec<u8> = tessellate(&p, &c).vertices.iter().step_by(2).map(|v| v.color[1]).collect();
    assert_eq!(pp, vec![0, 147, 223, 251, 255]);
}

#[test]
fn hardware_lines_are_each_rows_strip() {
    // [HW primitives-bezier lines patch] the PSP draws a row of cells as the line strip
    // tl0, bl0, tl1, bl1, …: verticals downwards, diagonals upwards (bl → tr), no top or
    // bottom edges (patch.rs `push_grid`).
    let c = grid(4, 4, |i, j| at([i as f32, j as f32, 0.0]));
    let mut p = hw(params(PatchKind::Bezier, 4, 4, 2, 2));
    p.output = 1;
    let t = tessellate(&p, &c);
    assert_eq!(t.prim, PrimType::Lines);
    // Vertices 0..9 row-major in a 3 × 3 grid.
    assert_eq!(t.indices, vec![0, 3, 3, 1, 1, 4, 4, 2, 2, 5, 3, 6, 6, 4, 4, 7, 7, 5, 5, 8]);
    // Every diagonal starts at the lower vertex.
    for l in t.indices.chunks(2).filter(|l| l[0] % 3 != l[1] % 3) {
        assert!(t.vertices[l[0] as usize].pos[1] > t.vertices[l[1] as usize].pos[1]);
    }
}

#[test]
fn vertex_bound_counts_the_mesh_before_reduction() {
    let mut regs = Regs::default();
    regs.set(op::PATCHDIVISION, 127 | (127 << 8));
    let vt = VertexType::from_bits(3 << 7);
    // 4×4 Bézier: one patch of 128 × 128 vertices.
    let p = PatchParams::decode(&regs, op::BEZIER, 4 | (4 << 8), &vt);
    assert_eq!(vertex_bound(&p), 128 * 128);
    // 7×4 Bézier: two patches, each with its own grid; 16×4 (five) is capped.
    let p = PatchParams::decode(&regs, op::BEZIER, 7 | (4 << 8), &vt);
    assert_eq!(vertex_bound(&p), 2 * 128 * 128);
    let p = PatchParams::decode(&regs, op::BEZIER, 16 | (4 << 8), &vt);
    assert_eq!(vertex_bound(&p), MAX_VERTICES);
    // 5×4 spline, divisions 3 and 5: 2 × 1 patches sharing edges: (2·3 + 1)(1·5 + 1).
    regs.set(op::PATCHDIVISION, 3 | (5 << 8));
    let p = PatchParams::decode(&regs, op::SPLINE, 5 | (4 << 8), &vt);
    assert_eq!(vertex_bound(&p), 7 * 6);
    assert_eq!(tessellate(&p, &vec![Vertex::default(); 20]).vertices.len(), 7 * 6);
    // Fewer than 4 points draws nothing.
    assert_eq!(vertex_bound(&PatchParams::decode(&regs, op::SPLINE, 3 | (4 << 8), &vt)), 0);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20_000))]
    /// The four-lane colour conversion is the channel-by-channel one: random bit patterns
    /// (NaNs, infinities, huge values), the 0..1 range, and values just past its ends and
    /// on rounding ties.
    #[test]
    fn units_to_u8_equals_unit_to_u8(
        bits in prop::array::uniform4(any::<u32>()),
        unit in prop::array::uniform4(-0.1f32..1.1),
        tie in prop::array::uniform4(-2i32..260),
        pick in prop::array::uniform4(0..3u8),
    ) {
        let x: [f32; 4] = std::array::from_fn(|i| match pick[i] {
            0 => f32::from_bits(bits[i]),
            1 => unit[i],
            _ => (tie[i] as f32 + 0.5) / 255.0,
        });
        prop_assert_eq!(units_to_u8(x), x.map(unit_to_u8), "{:?}", x);
    }

    /// The hardware rule's colour rounding is `⌈x⌉` clamped to 0..=255, NaN to 0, on
    /// random bit patterns, the byte range and past it, integers and their float
    /// neighbours (the ceiling's edge).
    #[test]
    fn hardware_colour_rounding_is_the_ceiling(
        bits in any::<u32>(),
        range in -3.0f32..260.0,
        int in -2i32..260,
        step in -1i32..=1,
        pick in 0..3u8,
    ) {
        let x = match pick {
            0 => f32::from_bits(bits),
            1 => range,
            // An integer or the float next to it on either side.
            _ => f32::from_bits((int as f32).to_bits().wrapping_add_signed(step)),
        };
        let c = x.ceil();
        let want = if c.is_nan() { 0 } else { c.clamp(0.0, 255.0) as u8 };
        prop_assert_eq!(TessellationRule::Hardware.color(x), want, "{:?}", x);
    }
}
