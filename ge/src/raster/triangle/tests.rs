//! The triangle walk's SIMD lanes against scalar references: coverage and every attribute
//! of every lane (covered or not: the texture stage reads all four for its LOD), fragment
//! by fragment with PPSSPP's scalar expressions, and the lane helpers against their
//! scalar versions.

use super::*;
use crate::geom::{Fragment, SubPixel};
use crate::raster::{bounds, clamp_fog, cvt_round, ClipRect};
use proptest::prelude::*;

/// The attributes of the fragment at pixel (x, y), its coverage (with the rasterizer's
/// depth drop) and the linear clip w there, from the scalar expressions: edge functions
/// evaluated at the sample directly (wrapping i32), `((w0·a0 + w1·a1) + w2·a2)·(1/Σw)`
/// in f32, [`cvt_round`], [`clamp_fog`], [`ColourPlane::at`] and [`round_significand`].
fn reference(v: &[ScreenVertex; 3], setup: &RasterSetup, x: i32, y: i32) -> (Fragment, bool, f32) {
    let p = |i: usize| (v[i].x.0, v[i].y.0);
    let off = setup.triangle.sample.offset();
    let (sx, sy) = (16 * x + off, 16 * y + off);
    let edges = [Edge::new(p(1), p(2)), Edge::new(p(2), p(0)), Edge::new(p(0), p(1))];
    let w: [i32; 3] = edges.map(|e| e.xf.wrapping_mul(sx).wrapping_add(e.yf.wrapping_mul(sy)).wrapping_add(e.c));
    let bias = [
        right_or_flat_bottom(p(0), p(1), p(2)),
        right_or_flat_bottom(p(1), p(2), p(0)),
        right_or_flat_bottom(p(2), p(0), p(1)),
    ];
    let mut covered = (0..3).all(|k| w[k].wrapping_sub(bias[k] as i32) >= 0);
    let recip = 1.0f32 / w[0].wrapping_add(w[1]).wrapping_add(w[2]) as f32;
    let wf = w.map(|w| w as f32);
    let lerp = |a: [f32; 3]| (wf[0] * a[0] + wf[1] * a[1] + wf[2] * a[2]) * recip;
    let attr = |f: &dyn Fn(&ScreenVertex) -> f32| [f(&v[0]), f(&v[1]), f(&v[2])];
    let zv = attr(&|v| v.z as u16 as f32);
    let z = if zv[0] == zv[1] && zv[0] == zv[2] {
        zv[2] as u16
    } else {
        let z = cvt_round(lerp(zv));
        covered &= !setup.perspective || (0..=0xFFFF).contains(&z);
        z as u16
    };
    let pts = [p(0), p(1), p(2)];
    let (mut c0, mut ind, mut c1) = (v[2].color0, 0u8, v[2].color1);
    let c0_flat = setup.flat_shading || (v[0].color0 == v[1].color0 && v[0].color0 == v[2].color0);
    let c1_flat = setup.flat_shading || (v[0].color1 == v[1].color1 && v[0].color1 == v[2].color1);
    let plane = setup.triangle.colour == ColourRounding::FirstVertexPlane;
    if !c0_flat {
        for (k, c) in c0.iter_mut().enumerate() {
            let ch = [v[0].color0[k], v[1].color0[k], v[2].color0[k]];
            if plane {
                *c = ColourPlane::new(&pts, ch, 0).at(sx, sy);
            } else {
                let i = cvt_round(lerp(ch.map(f32::from)));
                *c = i.clamp(0, 255) as u8;
                ind |= u8::from(i == i32::MIN) << k;
            }
        }
    }
    if !c1_flat {
        for (k, c) in c1.iter_mut().enumerate() {
            let ch = [v[0].color1[k], v[1].color1[k], v[2].color1[k]];
            *c = if plane {
                ColourPlane::new(&pts, ch, 0).at(sx, sy)
            } else {
                cvt_round(lerp(ch.map(f32::from))).clamp(0, 255) as u8
            };
        }
    }
    let fogs = attr(&|v| v.fog);
    let fog = if fogs.iter().all(|&f| f >= 1.0) { 255 } else { clamp_fog(lerp(fogs)) };
    let (mut s, mut t) = (0.0, 0.0);
    if setup.textured {
        if setup.perspective {
            let wq: [f32; 3] = std::array::from_fn(|k| wf[k] * (1.0 / v[k].w));
            let sum = |a: [f32; 3]| wq[0] * a[0] + wq[1] * a[1] + wq[2] * a[2];
            let mut qr = 1.0f32 / sum(attr(&|v| v.q));
            if setup.triangle.persp_recip == PerspRecip::Significand16 {
                qr = round_significand(qr, 16);
            }
            s = sum(attr(&|v| v.s)) * qr;
            t = sum(attr(&|v| v.t)) * qr;
        } else {
            s = lerp(attr(&|v| v.s));
            t = lerp(attr(&|v| v.t));
        }
    }
    let f = Fragment { x, y, z, color0: c0, color0_indefinite: ind, color1: c1, fog, s, t };
    (f, covered, lerp(attr(&|v| v.w)))
}

fn float() -> impl Strategy<Value = f32> {
    prop_oneof![-4.0f32..4.0, Just(0.0), Just(1.0), any::<f32>().prop_filter("finite", |f| f.is_finite())]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, ..ProptestConfig::default() })]
    /// Every quad the lane walk emits equals the scalar reference in all four lanes and in
    /// its coverage, and the covered fragments are exactly the reference's covered pixels
    /// in the clipped bounding box. Both models, perspective and through, flat and
    /// Gouraud colours, fog, zero-area triangles (NaN weights) included.
    #[test]
    fn lanes_equal_the_scalar_fragments(
        xy in prop::array::uniform3((0i32..1200, 0i32..1200)),
        z in prop::array::uniform3(prop_oneof![0.0f32..65535.0, Just(30000.0f32)]),
        w in prop::array::uniform3(prop_oneof![0.25f32..4.0, Just(1.0f32)]),
        stq in prop::array::uniform3((float(), float(), prop_oneof![Just(1.0f32), 0.25f32..2.0])),
        fog in prop::array::uniform3(prop_oneof![Just(1.0f32), -0.5f32..1.5]),
        colour in prop::array::uniform3(prop_oneof![Just([9u8, 80, 200, 255]), any::<[u8; 4]>()]),
        colour1 in prop::array::uniform3(prop_oneof![Just([0u8; 3]), any::<[u8; 3]>()]),
        (persp, textured, hardware, flat) in (any::<bool>(), any::<bool>(), any::<bool>(), prop::bool::weighted(0.1)),
        collinear in prop::bool::weighted(0.05),
        coincident in 0usize..12,
        on_sample in prop::bool::weighted(0.5),
    ) {
        let mut xy = xy;
        if collinear {
            xy[2] = (2 * xy[1].0 - xy[0].0, 2 * xy[1].1 - xy[0].1);
        }
        // Two equal vertices (strip joins; `covers_nothing`), often on sample points
        // so that the line between the two distinct ones covers some.
        if coincident < 3 {
            if on_sample {
                let off = if hardware { 8 } else { 7 };
                xy = xy.map(|(x, y)| (x / 16 * 16 + off, y / 16 * 16 + off));
            }
            xy[(coincident + 1) % 3] = xy[coincident];
        }
        let mut v: [ScreenVertex; 3] = std::array::from_fn(|i| ScreenVertex {
            x: SubPixel(xy[i].0),
            y: SubPixel(xy[i].1),
            z: z[i],
            w: w[i],
            s: stq[i].0,
            t: stq[i].1,
            q: stq[i].2,
            color0: colour[i],
            color1: colour1[i],
            fog: fog[i],
            first: i == 0,
        });
        // The winding `triangle` draws (its caller offers both orders without culling).
        let d = |i: usize| (xy[0].0 - xy[i].0, xy[0].1 - xy[i].1);
        if d(1).0 * d(2).1 - d(1).1 * d(2).0 < 0 {
            v.swap(1, 2);
        }
        let clip = ClipRect { x0: 3, y0: 2, x1: 63, y1: 60 };
        let mut setup = RasterSetup::new(clip, persp, textured);
        setup.flat_shading = flat;
        if hardware {
            setup.triangle = TriangleRule::HARDWARE;
        }
        let mut quads = Vec::new();
        triangle(&v, &setup, &mut |q: &Quad| quads.push(*q));
        let mut covered = 0;
        for q in &quads {
            for (l, f) in q.frags().iter().enumerate() {
                let (r, cov, _) = reference(&v, &setup, f.x, f.y);
                // Bitwise (NaN coordinates of zero-area triangles).
                prop_assert_eq!(format!("{f:?}"), format!("{r:?}"), "lane {}", l);
                let inside = clip.contains(f.x, f.y) && bounds(&v).contains(f.x, f.y);
                prop_assert_eq!(q.mask & (1 << l) != 0, cov && inside, "lane {} at {:?}", l, (f.x, f.y));
                covered += usize::from(q.mask & (1 << l) != 0);
            }
            let w = if textured { reference(&v, &setup, q.x, q.y).2 } else { 0.0 };
            prop_assert_eq!(q.w.to_bits(), w.to_bits());
        }
        let b = bounds(&v).intersect(&clip);
        let expected = (b.y0..=b.y1)
            .flat_map(|y| (b.x0..=b.x1).map(move |x| (x, y)))
            .filter(|&(x, y)| reference(&v, &setup, x, y).1)
            .count();
        // The walk skips nothing but collinear-on-an-axis triangles, which it drops.
        let axis = (xy[0].0 == xy[1].0 && xy[0].0 == xy[2].0) || (xy[0].1 == xy[1].1 && xy[0].1 == xy[2].1);
        prop_assert_eq!(covered, if axis { 0 } else { expected });
    }
}

#[test]
fn round_significand4_equals_round_significand() {
    let special = [f32::INFINITY, f32::NEG_INFINITY, f32::NAN, f32::MAX, -f32::MAX, 0.0, -0.0, 1e-45];
    let mut bits = 0x1234_5678u32;
    for i in 0..200_000u32 {
        bits = bits.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        let x: [f32; 4] = std::array::from_fn(|l| {
            let r = bits.rotate_left(8 * l as u32);
            if (i + l as u32).is_multiple_of(5) {
                special[(r % special.len() as u32) as usize]
            } else {
                f32::from_bits(r)
            }
        });
        for n in [1, 8, 16, 23, 24] {
            let got = round_significand4(f32x4::new(x), n).to_array().map(f32::to_bits);
            assert_eq!(got, x.map(|x| round_significand(x, n).to_bits()), "{x:?} {n}");
        }
    }
}
