//! Hand-computed expectations for clipping, rejection and culling.

use super::*;
use crate::geom::{SubPixel, VertexType};
use crate::regs::{to_float24, Matrices};

fn setf(r: &mut Regs, o: u8, f: f32) {
    r.set(o, to_float24(f));
}

/// Viewport x_s = 16·x/w + 100 (same for y), z_s = 1000·z/w + 30000, no OFFSET.
fn state(clamp: bool) -> TransformState {
    let mut r = Regs::default();
    setf(&mut r, op::VIEWPORTXSCALE, 16.0);
    setf(&mut r, op::VIEWPORTYSCALE, 16.0);
    setf(&mut r, op::VIEWPORTZSCALE, 1000.0);
    setf(&mut r, op::VIEWPORTXCENTER, 100.0);
    setf(&mut r, op::VIEWPORTYCENTER, 100.0);
    setf(&mut r, op::VIEWPORTZCENTER, 30000.0);
    r.set(op::DEPTHCLAMPENABLE, clamp as u32);
    TransformState::decode(&r, &Matrices::default(), &VertexType::from_bits(3 << 7), crate::transform::RsqrtRule::Exact)
}

fn cv(x: f32, y: f32, z: f32, w: f32) -> ClipVertex {
    ClipVertex { clip: [x, y, z, w], ..Default::default() }
}

fn xy(t: &[ScreenVertex; 3]) -> [(i32, i32); 3] {
    [(t[0].x.0, t[0].y.0), (t[1].x.0, t[1].y.0), (t[2].x.0, t[2].y.0)]
}

#[test]
fn near_plane_clip_makes_a_fan() {
    // B is behind the near plane (z = −3w). Clipping A→B and B→C at t = 2/3 gives
    // AB = (1/3, 0, −1, 1) and BC = (1/3, 2/3, −1, 1); the polygon A, AB, BC, C is a fan.
    // Screen: A (100,100) → 1600; AB x_s = 105.333 → trunc(1685.33 + 0.375) = 1685;
    // BC y_s = 110.667 → 1771; C y_s = 116 → 1856. z: 30000 and 30000 − 1000 = 29000.
    let st = state(true);
    let a = cv(0.0, 0.0, 0.0, 1.0);
    let mut b = cv(1.0, 0.0, -3.0, 1.0);
    b.color0 = [255; 4];
    let c = cv(0.0, 1.0, 0.0, 1.0);
    let mut out = Vec::new();
    clip_triangle(&st, [&a, &b, &c], CullMode::CounterClockwise, &mut out);
    assert_eq!(out.len(), 2);
    assert_eq!(xy(&out[0]), [(1600, 1600), (1685, 1600), (1685, 1771)]);
    assert_eq!(xy(&out[1]), [(1600, 1600), (1685, 1771), (1600, 1856)]);
    assert_eq!([out[0][0].z, out[0][1].z, out[0][2].z, out[1][2].z], [30000.0, 29000.0, 29000.0, 30000.0]);
    // Colours: t8 = trunc(256·2/3) = 170, (255·86 + 0·170)/256 = 85.
    assert_eq!(out[0][1].color0, [85; 4]);
    assert_eq!(out[0][2].color0, [85; 4]);
    // The same triangle is back-facing for the other cull mode.
    out.clear();
    clip_triangle(&st, [&a, &b, &c], CullMode::Clockwise, &mut out);
    assert!(out.is_empty());
    // With culling off the surviving vertex order is the front-facing one.
    clip_triangle(&st, [&a, &b, &c], CullMode::None, &mut out);
    assert_eq!(out.len(), 2);
    assert_eq!(xy(&out[0])[0], (1600, 1600));
}

#[test]
fn flat_shading_colours_the_third_vertex() {
    let st = state(true);
    let a = cv(0.0, 0.0, 0.0, 1.0);
    let b = cv(1.0, 0.0, 0.0, 1.0);
    let mut c = cv(0.0, 1.0, 0.0, 1.0);
    c.color0 = [9, 8, 7, 6];
    let mut out = Vec::new();
    clip_triangle_shaded(&st, [&a, &b, &c], Some(&c), CullMode::None, &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0][2].color0, [9, 8, 7, 6]);
}

#[test]
fn guard_band_rejects_whole_primitive() {
    // x_s = 16·x + 100: x = −6.3125 → x_s = −1 → outside; everything else on screen.
    for clamp in [false, true] {
        let st = state(clamp);
        let a = cv(-6.3125, 0.0, 0.0, 1.0);
        let b = cv(1.0, 0.0, 0.0, 1.0);
        let c = cv(0.0, 1.0, 0.0, 1.0);
        let mut out = Vec::new();
        clip_triangle(&st, [&a, &b, &c], CullMode::None, &mut out);
        assert!(out.is_empty(), "clamp {clamp}");
        let mut lines = Vec::new();
        clip_line(&st, [&a, &b], &mut lines);
        assert!(lines.is_empty());
        assert!(clip_point(&st, &a).is_none());
        assert!(clip_rectangle(&st, [&a, &b]).is_none());
        assert!(clip_point(&st, &b).is_some());
    }
    // x_s exactly at PPSSPP's bound 4095.96875: accepted without clamping (`>`),
    // rejected with clamping (`>=`); y at the bound is rejected in both.
    let xb = (4095.0 + 31.0 / 32.0 - 100.0) / 16.0;
    assert!(clip_point(&state(false), &cv(xb, 0.0, 0.0, 1.0)).is_some());
    assert!(clip_point(&state(true), &cv(xb, 0.0, 0.0, 1.0)).is_none());
    assert!(clip_point(&state(false), &cv(0.0, xb, 0.0, 1.0)).is_none());
    // With clamping, a vertex at or behind the near plane skips the x/y check.
    assert!(clip_point(&state(true), &cv(-1000.0, 0.0, -2.0, 1.0)).is_some());
    assert!(clip_point(&state(false), &cv(-1000.0, 0.0, -2.0, 1.0)).is_none());
}

#[test]
fn all_negative_w_is_dropped() {
    let st = state(true);
    let (a, b, c) = (cv(0.0, 0.0, 0.5, -1.0), cv(-1.0, 0.0, 0.5, -1.0), cv(0.0, -1.0, 0.5, -1.0));
    let mut out = Vec::new();
    clip_triangle(&st, [&a, &b, &c], CullMode::None, &mut out);
    assert!(out.is_empty());
}

#[test]
fn depth_rule_both_modes() {
    // z/w = 1.00005 ≥ 1.0000305 is outside; its z_s = 31000.05 is still in range.
    let a = cv(0.0, 0.0, 1.00005, 1.0);
    let b = cv(1.0, 0.0, 0.0, 1.0);
    let c = cv(0.0, 1.0, 0.0, 1.0);
    let mut out = Vec::new();
    clip_triangle(&state(false), [&a, &b, &c], CullMode::None, &mut out);
    assert!(out.is_empty(), "clamp off: one outside vertex drops the triangle");
    clip_triangle(&state(true), [&a, &b, &c], CullMode::None, &mut out);
    assert_eq!(out.len(), 1, "clamp on: drawn");
    // Clamp on, far plane beyond 65535: z clamped per vertex.
    let far = cv(0.0, 0.0, 40.0, 1.0); // z_s = 70000
    out.clear();
    clip_triangle(&state(true), [&far, &b, &c], CullMode::None, &mut out);
    assert_eq!(out.len(), 1);
    assert!(out[0].iter().any(|v| v.z == 65535.0));
    // Clamp on, all three outside on the same side → dropped.
    let (a2, b2, c2) = (cv(0.0, 0.0, 1.5, 1.0), cv(1.0, 0.0, 1.5, 1.0), cv(0.0, 1.0, 1.5, 1.0));
    out.clear();
    clip_triangle(&state(true), [&a2, &b2, &c2], CullMode::None, &mut out);
    assert!(out.is_empty());
    // Rectangles: one outside → dropped without clamp, kept with it; both → dropped.
    assert!(clip_rectangle(&state(false), [&a, &b]).is_none());
    assert!(clip_rectangle(&state(true), [&a, &b]).is_some());
    assert!(clip_rectangle(&state(true), [&a2, &b2]).is_none());
}

#[test]
fn line_clipped_at_near_plane() {
    // A (0,0,0,1) dp = 1, B (1,0,−3,1) dp = −2: B moves to t = 1/3 from... B·(1−t)+A·t
    // with t = dp_B/(dp_B − dp_A) = 2/3 → (1/3, 0, −1, 1) → x_s 105.333 → 1685.
    let st = state(true);
    let a = cv(0.0, 0.0, 0.0, 1.0);
    let b = cv(1.0, 0.0, -3.0, 1.0);
    let mut out = Vec::new();
    clip_line(&st, [&a, &b], &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!((out[0][0].x.0, out[0][1].x.0), (1600, 1685));
    assert_eq!(out[0][1].z, 29000.0);
}

fn sv(x: i32, y: i32) -> ScreenVertex {
    ScreenVertex { x: SubPixel(x), y: SubPixel(y), ..Default::default() }
}

#[test]
fn culling_windings_and_strip_flip() {
    // (0,0) → (160,0) → (0,160): clockwise on screen (y down).
    let cw = [sv(0, 0), sv(160, 0), sv(0, 160)];
    let ccw = [sv(0, 0), sv(0, 160), sv(160, 0)];
    assert!(cull_screen_triangle(&cw, CullMode::Clockwise));
    assert!(!cull_screen_triangle(&cw, CullMode::CounterClockwise));
    assert!(!cull_screen_triangle(&ccw, CullMode::Clockwise));
    assert!(cull_screen_triangle(&ccw, CullMode::CounterClockwise));
    assert!(!cull_screen_triangle(&cw, CullMode::None));
    assert!(!cull_screen_triangle(&ccw, CullMode::None));
    // A counter-clockwise triangle is emitted reversed so the rasterizer sees one winding.
    let mut out = Vec::new();
    screen_triangles(&ccw, None, CullMode::None, &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!(xy(&out[0]), [(160, 0), (0, 160), (0, 0)]);
    // Strip a, b, c, d: (a,b,c) is CCW, (b,c,d) is CW; with the flip for the odd
    // triangle a consistently wound strip is all kept or all culled.
    let (a, b, c, d) = (sv(0, 0), sv(0, 160), sv(160, 0), sv(160, 160));
    for (mode, dropped) in [(CullMode::Clockwise, false), (CullMode::CounterClockwise, true)] {
        assert_eq!(cull_screen_triangle(&[a, b, c], mode), dropped);
        assert_eq!(cull_screen_triangle(&[b, c, d], mode.flipped()), dropped);
    }
    assert_eq!(CullMode::None.flipped(), CullMode::None);
}

#[test]
fn degenerate_triangles() {
    // All on one row: dropped in every mode.
    assert!(cull_screen_triangle(&[sv(0, 16), sv(32, 16), sv(64, 16)], CullMode::None));
    // Diagonal zero area: passes the cross test in both orders (PPSSPP bins both).
    let mut out = Vec::new();
    screen_triangles(&[sv(0, 0), sv(16, 16), sv(32, 32)], None, CullMode::None, &mut out);
    assert_eq!(out.len(), 2);
}

#[test]
fn cull_mode_decode() {
    let mut r = Regs::default();
    r.set(op::CULL, 0);
    assert_eq!(CullMode::decode(&r), CullMode::None);
    r.set(op::CULLFACEENABLE, 1);
    assert_eq!(CullMode::decode(&r), CullMode::Clockwise);
    r.set(op::CULL, 1);
    assert_eq!(CullMode::decode(&r), CullMode::CounterClockwise);
    r.set(op::CLEARMODE, 1);
    assert_eq!(CullMode::decode(&r), CullMode::None);
}

#[test]
fn projected_entry_points_clip_like_the_plain_ones() {
    // The near-plane fan above through the `*_projected` variants: the input vertices come
    // projected (always_check = false) and the clip-made ones are still projected here,
    // giving the same 1600/1685/1771/1856 corners.
    let st = state(true);
    let a = cv(0.0, 0.0, 0.0, 1.0);
    let b = cv(1.0, 0.0, -3.0, 1.0);
    let c = cv(0.0, 1.0, 0.0, 1.0);
    let p = [Projected::new(&st, &a), Projected::new(&st, &b), Projected::new(&st, &c)];
    let mut out = Vec::new();
    clip_triangle_projected(&st, [&p[0], &p[1], &p[2]], None, CullMode::CounterClockwise, &mut out);
    assert_eq!(out.len(), 2);
    assert_eq!(xy(&out[0]), [(1600, 1600), (1685, 1600), (1685, 1771)]);
    assert_eq!(xy(&out[1]), [(1600, 1600), (1685, 1771), (1600, 1856)]);
    // Line A→B is shortened to A→AB (x_s = 105.333 → 1685); point and rectangle pass.
    let mut lines = Vec::new();
    clip_line_projected(&st, [&p[0], &p[1]], &mut lines);
    assert_eq!(lines.len(), 1);
    assert_eq!((lines[0][1].x.0, lines[0][1].y.0), (1685, 1600));
    assert_eq!(clip_point_projected(&p[2]).map(|s| (s.x.0, s.y.0)), Some((1600, 1856)));
    let r = clip_rectangle_projected(&st, [&p[0], &p[2]]).map(|r| [(r[0].x.0, r[0].y.0), (r[1].x.0, r[1].y.0)]);
    assert_eq!(r, Some([(1600, 1600), (1600, 1856)]));
    // An outside flag supplied with the vertex rejects the triangle.
    let mut q = p;
    q[0].outside = true;
    out.clear();
    clip_triangle_projected(&st, [&q[0], &q[1], &q[2]], None, CullMode::None, &mut out);
    assert!(out.is_empty());
}

#[test]
fn decoded_states_are_anonymous_until_the_ge_names_them() {
    assert_eq!(state(false).id, 0);
}

/// A clip coordinate: mostly small, with the values that break float comparisons.
fn coord() -> impl proptest::strategy::Strategy<Value = f32> {
    use proptest::prelude::*;
    prop_oneof![
        6 => -3.0f32..3.0,
        1 => prop::sample::select(vec![0.0, -0.0, f32::NAN, f32::INFINITY, f32::NEG_INFINITY, f32::MAX, -f32::MAX]),
        1 => -1e-30f32..1e-30,
        1 => -1e30f32..1e30,
        1 => any::<f32>(),
    ]
}

/// A clip vertex (x, y, z, w) with z often on a plane of the rules: z = −w (near plane),
/// z = ±1.0000305·w (depth limit, rounded either way), z = ±w; w often near 0.
fn clip_vertex() -> impl proptest::strategy::Strategy<Value = ClipVertex> {
    use proptest::prelude::*;
    let w = prop_oneof![3 => 0.5f32..4.0, 3 => coord(), 1 => -1e-6f32..1e-6];
    (coord(), coord(), coord(), w, 0u8..7).prop_map(|(x, y, z, w, on)| {
        const LIMIT: f32 = 1.0 + 1.0 / 32768.0;
        let z = match on {
            0 => -w,
            1 => w * LIMIT,
            2 => -w * LIMIT,
            3 => w,
            _ => z,
        };
        ClipVertex { clip: [x, y, z, w], color0: [1, 2, 3, 4], color1: [5, 6, 7], ..Default::default() }
    })
}

#[test]
fn coded_clip_equals_plain() {
    use proptest::prelude::*;
    use proptest::test_runner::{Config, TestRunner};
    use std::cell::Cell;
    // How often each verdict came up: the test must see all three.
    let seen = [Cell::new(0), Cell::new(0), Cell::new(0)];
    let strategy = ([clip_vertex(), clip_vertex(), clip_vertex()], any::<bool>(), 0u8..3, 0u8..4, any::<bool>());
    TestRunner::new(Config::with_cases(20_000))
        .run(&strategy, |(v, clamp, cull, first, flat)| {
            let st = state(clamp);
            let p = v.map(|c| Projected::new(&st, &c));
            let cv = [&p[0], &p[1], &p[2]];
            let plain = decide_plain(&st, cv);
            prop_assert_eq!(decide(&st, [p[0].codes, p[1].codes, p[2].codes]), plain);
            let k = plain.map_or(0, |clip| 1 + usize::from(clip));
            seen[k].set(seen[k].get() + 1);
            // The whole output too (Debug spells every bit that matters, NaN as NaN).
            let cull = [CullMode::None, CullMode::Clockwise, CullMode::CounterClockwise][cull as usize];
            let first = (first < 3).then_some(first as usize);
            let prov = flat.then_some(&v[2]);
            let (mut a, mut b) = (Vec::new(), Vec::new());
            clip_triangle_into(&st, cv, first, prov, cull, &mut |t| a.push(t));
            clip_triangle_coded(&st, cv, first, prov, cull, &mut |t| b.push(t));
            prop_assert_eq!(format!("{a:?}"), format!("{b:?}"));
            // The inline filter drops exactly the unclipped triangles that make nothing.
            let nothing = draws_nothing(&st, cv, cull);
            prop_assert_eq!(nothing, plain != Some(true) && b.is_empty(), "draws_nothing");
            Ok(())
        })
        .unwrap();
    let seen = seen.map(|c| c.get());
    assert!(seen.iter().all(|&n| n > 300), "verdicts (reject, accept, clip): {seen:?}");
}
