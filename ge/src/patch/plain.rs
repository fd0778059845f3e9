//! The scalar evaluator that `Grid::evaluate`'s lanes replaced, kept as their reference
//! (test `lanes_equal_the_scalar_evaluation`): every attribute sampled on its own, one
//! vertex slot at a time, over the whole surface.

use super::*;

/// `p0·w0 + p1·w1 + p2·w2 + p3·w3`, left to right, except that a weight set starting
/// (ending) with exactly 1 returns the first (last) value untouched
/// [PP `Tessellator::SampleU/SampleV`].
#[inline]
fn sample<const N: usize>(p: &[[f32; N]; 4], w: &[f32; 4]) -> [f32; N] {
    if w[0] == 1.0 {
        return p[0];
    }
    if w[3] == 1.0 {
        return p[3];
    }
    std::array::from_fn(|k| p[0][k] * w[0] + p[1][k] * w[1] + p[2][k] * w[2] + p[3][k] * w[3])
}

/// Rows of the current patch pre-evaluated along u (one value per v row).
#[inline]
fn sample_rows<const N: usize>(attr: &[[f32; N]], rows: &[usize; 4], w: &[f32; 4]) -> [[f32; N]; 4] {
    std::array::from_fn(|r| {
        let i = rows[r];
        match attr.get(i..i + 4) {
            Some(s) => sample(&[s[0], s[1], s[2], s[3]], w),
            None => [0.0; N],
        }
    })
}

/// [`tessellate`] through the scalar evaluation.
pub(super) fn tessellate_plain(params: &PatchParams, control: &[Vertex]) -> Tessellation {
    let prim = params.primitive();
    let Some(Setup { s, control, wu, wv }) = Setup::new(params, control) else {
        return Tessellation { vertices: Vec::new(), indices: Vec::new(), prim };
    };
    let pos: Vec<[f32; 3]> = control.iter().map(|v| v.pos).collect();
    let tex: Vec<[f32; 2]> = control.iter().map(|v| v.uv).collect();
    let col: Vec<[f32; 4]> = control.iter().map(|v| v.color.map(|c| params.rule.unit(c))).collect();
    let default_color = control.first().map_or([0; 4], |v| v.color);
    let mut out = vec![Vertex::default(); s.vertex_count()];
    let inv_u = 1.0f32 / s.tess_u as f32;
    let inv_v = 1.0f32 / s.tess_v as f32;
    for patch_v in 0..s.patches_v {
        for patch_u in 0..s.patches_u {
            let first = s.point_index(patch_u, patch_v);
            let rows = [first, first + s.points_u, first + 2 * s.points_u, first + 3 * s.points_u];
            for tile_u in s.start(patch_u)..=s.tess_u {
                let w_u = &wu[s.weight_index(patch_u, tile_u, s.tess_u)];
                let u_pos = sample_rows(&pos, &rows, &w_u.basis);
                let u_col = sample_rows(&col, &rows, &w_u.basis);
                let u_tex = sample_rows(&tex, &rows, &w_u.basis);
                let u_der = sample_rows(&pos, &rows, &w_u.deriv);
                for tile_v in s.start(patch_v)..=s.tess_v {
                    let w_v = &wv[s.weight_index(patch_v, tile_v, s.tess_v)];
                    let vert = &mut out[s.out_index(patch_u, patch_v, tile_u, tile_v)];
                    vert.pos = sample(&u_pos, &w_v.basis);
                    vert.color =
                        if params.has_color { params.rule.colors(sample(&u_col, &w_v.basis)) } else { default_color };
                    vert.uv = if params.has_texcoord {
                        sample(&u_tex, &w_v.basis)
                    } else {
                        [patch_u as f32 + tile_u as f32 * inv_u, patch_v as f32 + tile_v as f32 * inv_v]
                    };
                    vert.normal = if params.has_normal {
                        let du = sample(&u_der, &w_v.basis);
                        let dv = sample(&u_pos, &w_v.deriv);
                        let n = normalized_approx(cross(du, dv), params.rsqrt);
                        if params.reverse_normals {
                            n.map(|c| -c)
                        } else {
                            n
                        }
                    } else {
                        [0.0, 0.0, 1.0]
                    };
                }
            }
        }
    }
    Tessellation { vertices: out, indices: s.build_indices(line_rule(params)), prim }
}
