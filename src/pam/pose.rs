//! Posing a PMO skeleton with a PAM animation. All matrices are `glam` column-vector matrices
//! (v' = M·v); their 16 floats in column order equal the PMO's row-vector storage, so
//! `Mat4::from_cols_array(&joint.local)` is a joint's local bind matrix.
//!
//! * Local = T · R · S: scale first, then the rotation, then the translation. With the default
//!   [`EulerOrder::Xyz`], R = Rz · Ry · Rx (rotate about X first). Evidence (animation-formats.md
//!   §1.1): bones 6, 12 and 32 of test.pam reproduce their p01ex00 bind rotation only in this
//!   order; skinning frame 0 puts the feet on the floor (min y ≈ 0.0012) while the reversed
//!   order breaks the mesh; KHBBSMesh (`CBoneAnim::Evaluate`) and KH2 (q = qZ·qY·qX) agree.
//! * Global_j = Global_parent · Local_j (roots: Local_j); skin_j = Global_j · InvBind_j, where
//!   InvBind is the PMO joint's `inverse_global` (animation-formats.md §0 "Skinning").
//! * Bones map to joints by index. Joints beyond the animation's bone count keep their local
//!   bind matrix (KHBBSMesh instead gives them the identity; guess: bind is the saner choice,
//!   no sample has a mismatch). Bones beyond the joint count are ignored.
//! * A parent index that is not smaller than the joint's own index (never seen: parents
//!   precede children in every sample) or out of range is treated as a root, so one linear
//!   pass suffices and hostile skeletons cannot panic.

use super::*;
use crate::pmo::{Pmo, Skeleton};
use glam::{Mat4, Vec3};

/// Euler rotation order of the three rotation channels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EulerOrder {
    /// R = Rz · Ry · Rx (X applied first): the evidence-backed order (module docs).
    #[default]
    Xyz,
    /// R = Rx · Ry · Rz (Z applied first): the reversed order, kept for the guard test.
    Zyx,
}

/// Whether a joint inherits its parent's scale.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ScaleInheritance {
    /// The parent global's X/Y/Z axes are normalised to unit length before the child's local
    /// matrix is applied, so only the joint's own scale acts on it (KHBBSMesh
    /// `CAnimationDriver::Update` "scale hack", enabled for BBS animations; its Blender script
    /// sets `inherit_scale = NONE`). Hypothesis: no public PAM has scale channels.
    #[default]
    None,
    /// Plain matrix chaining: children inherit the parent's scale (and any shear it causes).
    Full,
}

/// How [`pose_globals`] builds matrices; `Default` is the evidence-backed choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PoseOptions {
    pub euler: EulerOrder,
    pub scale_inheritance: ScaleInheritance,
}

impl BoneTransform {
    /// Local matrix T · R · S (column-vector convention) with `euler` deciding R.
    pub fn local_matrix(&self, euler: EulerOrder) -> Mat4 {
        let [rx, ry, rz] = self.rotation;
        let (x, y, z) = (Mat4::from_rotation_x(rx), Mat4::from_rotation_y(ry), Mat4::from_rotation_z(rz));
        let r = match euler {
            EulerOrder::Xyz => z * y * x,
            EulerOrder::Zyx => x * y * z,
        };
        Mat4::from_translation(Vec3::from(self.translation)) * r * Mat4::from_scale(Vec3::from(self.scale))
    }
}

/// The parent matrix a child is chained onto under `mode`.
fn inherited(parent: Mat4, mode: ScaleInheritance) -> Mat4 {
    match mode {
        ScaleInheritance::Full => parent,
        ScaleInheritance::None => {
            // Normalise each axis column; a degenerate (zero or non-finite) axis is left alone.
            let unit = |c: glam::Vec4| {
                let len = c.truncate().length();
                if len > 0.0 && len.is_finite() {
                    c / len
                } else {
                    c
                }
            };
            Mat4::from_cols(unit(parent.x_axis), unit(parent.y_axis), unit(parent.z_axis), parent.w_axis)
        }
    }
}

/// Chain per-joint local matrices into globals (module docs for the parent rules).
pub fn chain_globals(skeleton: &Skeleton, locals: &[Mat4], mode: ScaleInheritance) -> Vec<Mat4> {
    let mut globals: Vec<Mat4> = Vec::with_capacity(locals.len());
    for (j, local) in locals.iter().enumerate() {
        let parent = skeleton.joints.get(j).and_then(|jt| jt.parent_index()).filter(|&p| p < j);
        globals.push(match parent.and_then(|p| globals.get(p)) {
            Some(&g) => inherited(g, mode) * *local,
            None => *local,
        });
    }
    globals
}

/// Local matrices of every joint posed by `anim` at `frame` (bind local where the animation has
/// no bone).
pub fn pose_locals(skeleton: &Skeleton, anim: &Animation, frame: f32, euler: EulerOrder) -> Vec<Mat4> {
    let bones = anim.evaluate(frame);
    skeleton
        .joints
        .iter()
        .enumerate()
        .map(|(j, jt)| match bones.get(j) {
            Some(b) => b.local_matrix(euler),
            None => Mat4::from_cols_array(&jt.local),
        })
        .collect()
}

/// Global matrices of every joint, posed by `anim` at `frame`, in model units.
pub fn pose_globals(skeleton: &Skeleton, anim: &Animation, frame: f32, opts: &PoseOptions) -> Vec<Mat4> {
    chain_globals(skeleton, &pose_locals(skeleton, anim, frame, opts.euler), opts.scale_inheritance)
}

/// Global bind matrices: the chained local bind matrices ([`Skeleton::bind_globals`]).
pub fn bind_globals(skeleton: &Skeleton) -> Vec<Mat4> {
    skeleton.bind_globals()
}

/// Skinning matrices G_j · InvBind_j ([`Skeleton::skin_matrices`]).
pub fn skin_matrices(skeleton: &Skeleton, globals: &[Mat4]) -> Vec<Mat4> {
    skeleton.skin_matrices(globals)
}

/// Test/reference helper (the render path skins on the GE): every vertex of `pmo`, both mesh
/// lists, positions × `model_scale`, blended as Σ_k w_k · `skin[joints[k]]` · p. Weight slot k
/// pairs with the section's joint-table entry k (animation-formats.md §0); slots marked 0xFF or
/// naming a joint without a skin matrix contribute nothing. Sections without weights (or
/// without a joint table) are not skinned.
pub fn skin_positions(pmo: &Pmo, skin: &[Mat4]) -> Vec<Vec3> {
    let scale = pmo.header.model_scale;
    let mut out = Vec::new();
    for (_, s) in pmo.sections() {
        let weighted = s.layout().vtype.has_weights();
        for v in s.decode(&ge::vertex::DecodeParams::default()) {
            let p = Vec3::from(v.pos) * scale;
            out.push(match s.joints {
                Some(joints) if weighted => joints
                    .iter()
                    .zip(v.weights)
                    .filter(|&(_, w)| w != 0.0)
                    .filter_map(|(&j, w)| {
                        skin.get(usize::from(j)).filter(|_| j != 0xFF).map(|m| w * m.transform_point3(p))
                    })
                    .sum(),
                _ => p,
            });
        }
    }
    out
}

/// Axis-aligned bounds (min, max) of `points`; `None` when empty.
pub fn bounds(points: &[Vec3]) -> Option<(Vec3, Vec3)> {
    let first = *points.first()?;
    Some(points.iter().fold((first, first), |(lo, hi), &p| (lo.min(p), hi.max(p))))
}
