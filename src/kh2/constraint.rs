//! Constraints and leg-chain bending, best effort (animation-formats.md §2.1 "Constraints, IK
//! and expressions"). Off unless asked for (`psprender kh2 --constraints`); nothing here is
//! confirmed against the game (exact results need the game's own EE code, which this project
//! does not use), so every rule below that goes beyond the doc is marked guess.
//!
//! * Joints are visited in the motion's `Joint` table order (a parents-first traversal in the
//!   sample; guess: when the table is not a parents-first permutation the evaluator's own
//!   parents-first order is used instead). Each global is recomputed from its parent's
//!   (possibly constrained) global, then the constraints on that joint apply.
//! * Position (0), orientation (2) and scale (6) constraints overwrite the joint's global
//!   translation, rotation or scale with the source joint's (the source's constrained global if
//!   it was already visited, else its unconstrained one).
//! * Direction (3): guess: the joint's +X axis is turned (shortest arc) to point at the source.
//!   Up-vector (4): guess: the joint is twisted about its +X axis so +Y points at the source.
//! * Activation: with no activation records a constraint follows its temp-active flag; with
//!   records, the last record at or before t decides (guess: inactive before the first).
//! * A joint flagged 0x20 ("calculated") whose child has an active position constraint bends,
//!   with its parent, so the child reaches the target. guess: an analytic two-bone solution
//!   (law of cosines, bend kept in the chain's current plane); one reimplementation cites
//!   kenjiuno's msetDoc for CCD, which reaches the same point when the target is reachable but
//!   converged slowly on straight chains in our tests.
//! * Not applied (reported in [`Report::skipped`]): limiters, path/two-point/camera/interest
//!   and limit constraint kinds, expressions.

use super::eval::{Evaluator, Pose};
use super::motion::interp::{Constraint, InterpolatedMotion};
use glam::{Mat4, Quat, Vec3};
use serde::Serialize;

/// Joint flag of the "calculated" leg-chain joints (joints 12 and 41 in the sample).
pub const CALCULATED: u8 = 0x20;

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Report {
    /// Constraint indices applied at this time.
    pub applied: Vec<usize>,
    /// Constraint indices inactive at this time.
    pub inactive: Vec<usize>,
    /// (constraint index, why not applied).
    pub skipped: Vec<(usize, &'static str)>,
    /// Joints bent as leg chains.
    pub bent: Vec<usize>,
    /// Whether the Joint table was usable as the visiting order.
    pub joint_table_order: bool,
    /// Expressions in the motion (never evaluated).
    pub expressions_not_evaluated: usize,
}

/// Is constraint `c` on at GFR time `t`?
pub fn is_active(m: &InterpolatedMotion, c: &Constraint, t: f32) -> bool {
    if c.activation_count <= 0 {
        return c.temp_active != 0;
    }
    let start = c.activation_start.max(0) as usize;
    let acts = m.activations.get(start..start + c.activation_count as usize).unwrap_or(&[]);
    acts.iter().take_while(|a| a.time <= t).last().is_some_and(|a| a.active != 0)
}

fn set_translation(m: &mut Mat4, p: Vec3) {
    m.w_axis = p.extend(1.0);
}

fn with_rotation(m: &Mat4, r: Quat) -> Mat4 {
    let (s, _, t) = m.to_scale_rotation_translation();
    Mat4::from_scale_rotation_translation(s, r, t)
}

/// Rotate `m` about its own origin by `q` (world-space rotation).
fn rotate_about_origin(m: &Mat4, q: Quat) -> Mat4 {
    let t = m.w_axis.truncate();
    Mat4::from_translation(t) * Mat4::from_quat(q) * Mat4::from_translation(-t) * *m
}

/// The visiting order: the Joint table when it is a parents-first permutation.
fn visit_order(m: &InterpolatedMotion, parents: &[i32]) -> Option<Vec<usize>> {
    let n = parents.len();
    let order: Vec<usize> = m.joints.iter().map(|j| j.joint.max(0) as usize).collect();
    let mut seen = vec![false; n];
    for &j in &order {
        if j >= n || seen[j] || (parents[j] >= 0 && !seen[parents[j] as usize]) {
            return None;
        }
        seen[j] = true;
    }
    (order.len() == n).then_some(order)
}

/// Globals of `pose` with the constraints active at `pose.time` applied (needs a skeleton:
/// without one, `None`).
pub fn apply(ev: &Evaluator, pose: &Pose) -> Option<(Vec<Mat4>, Report)> {
    let m = ev.motion;
    let parents = ev.parents.as_ref()?;
    let base = pose.globals.as_ref()?;
    let t = pose.time;
    let mut report = Report::default();
    let order = match visit_order(m, parents) {
        Some(o) => {
            report.joint_table_order = true;
            o
        }
        None => super::skeleton::parents_first(parents),
    };
    let flags: Vec<u8> = {
        let mut f = vec![0u8; parents.len()];
        for j in &m.joints {
            if let Some(x) = f.get_mut(j.joint.max(0) as usize) {
                *x = j.flags;
            }
        }
        f
    };
    let mut g = base.clone();
    let mut visited = vec![false; parents.len()];
    for &j in &order {
        g[j] = match parents[j] {
            -1 => pose.locals[j],
            p => g[p as usize] * pose.locals[j],
        };
        visited[j] = true;
        for (ci, c) in m.constraints.iter().enumerate().filter(|(_, c)| c.constrained as usize == j) {
            if !is_active(m, c, t) {
                report.inactive.push(ci);
                continue;
            }
            if c.limiter >= 0 {
                report.skipped.push((ci, "limiter not applied"));
            }
            let src_index = c.source.max(0) as usize;
            let src = if visited[src_index] { g[src_index] } else { base[src_index] };
            let src_pos = src.w_axis.truncate();
            let pos = g[j].w_axis.truncate();
            match c.kind {
                0 => {
                    // A calculated parent bends so this joint reaches the target.
                    let k = parents[j];
                    if k >= 0 && flags[k as usize] & CALCULATED != 0 {
                        bend(&mut g, parents, k as usize, j, src_pos);
                        report.bent.push(k as usize);
                    } else {
                        set_translation(&mut g[j], src_pos);
                    }
                }
                2 => g[j] = with_rotation(&g[j], src.to_scale_rotation_translation().1),
                6 => {
                    let (_, r, tr) = g[j].to_scale_rotation_translation();
                    g[j] = Mat4::from_scale_rotation_translation(src.to_scale_rotation_translation().0, r, tr);
                }
                3 => {
                    let x = g[j].x_axis.truncate().normalize_or_zero();
                    let d = (src_pos - pos).normalize_or_zero();
                    if x != Vec3::ZERO && d != Vec3::ZERO {
                        g[j] = rotate_about_origin(&g[j], Quat::from_rotation_arc(x, d));
                    }
                }
                4 => {
                    let x = g[j].x_axis.truncate().normalize_or_zero();
                    let y = g[j].y_axis.truncate().normalize_or_zero();
                    let d = src_pos - pos;
                    let want = (d - x * d.dot(x)).normalize_or_zero();
                    if want != Vec3::ZERO && y != Vec3::ZERO {
                        g[j] = rotate_about_origin(&g[j], Quat::from_rotation_arc(y, want));
                    }
                }
                _ => {
                    report.skipped.push((ci, "constraint kind not implemented"));
                    continue;
                }
            }
            report.applied.push(ci);
        }
    }
    report.expressions_not_evaluated = m.expressions.len();
    Some((g, report))
}

/// Two-bone bend: turn the parent `h` of the calculated joint `k`, then `k`, so that `end`
/// (child of `k`) reaches `target`, keeping both bone lengths (law of cosines; an unreachable
/// target is approached along the line to it). The bend stays in the plane of the current
/// chain; a straight chain bends towards any perpendicular (guess). Each turn carries the
/// joints below it rigidly.
fn bend(g: &mut [Mat4], parents: &[i32], k: usize, end: usize, target: Vec3) {
    let Ok(h) = usize::try_from(parents[k]) else { return };
    let pos = |g: &[Mat4], j: usize| g[j].w_axis.truncate();
    let (a, knee, tip) = (pos(g, h), pos(g, k), pos(g, end));
    let (l1, l2) = ((knee - a).length(), (tip - knee).length());
    let to = target - a;
    let d = to.length().clamp((l1 - l2).abs() + 1e-6, l1 + l2 - 1e-6);
    let Some(u) = to.try_normalize() else { return };
    let v = (knee - a - u * (knee - a).dot(u)).try_normalize().unwrap_or_else(|| u.any_orthonormal_vector());
    let cos_a = ((l1 * l1 + d * d - l2 * l2) / (2.0 * l1 * d)).clamp(-1.0, 1.0);
    let new_knee = a + l1 * (cos_a * u + (1.0 - cos_a * cos_a).sqrt() * v);
    let turn = |g: &mut [Mat4], origin: Vec3, from: Vec3, to: Vec3, joints: &[usize]| {
        let (Some(f), Some(t)) = ((from - origin).try_normalize(), (to - origin).try_normalize()) else { return };
        let m = Mat4::from_translation(origin)
            * Mat4::from_quat(Quat::from_rotation_arc(f, t))
            * Mat4::from_translation(-origin);
        for &j in joints {
            g[j] = m * g[j];
        }
    };
    turn(g, a, knee, new_knee, &[h, k, end]);
    let tip = pos(g, end);
    turn(g, new_knee, tip, a + u * d, &[k, end]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kh2::motion::interp::Activation;
    use crate::kh2::skeleton::Skeleton;
    use crate::kh2::synth::{self, MotionSpec};

    fn constraint(kind: u8, constrained: i16, source: i16) -> Constraint {
        Constraint { kind, temp_active: 1, constrained, source, limiter: -1, activation_count: 0, activation_start: 0 }
    }

    fn near(a: Vec3, b: Vec3) -> bool {
        (a - b).length() < 1e-3
    }

    /// Bones 0-1-2 along +Y (10 apart), helper 3 at (5, 0, 0) turned 90° about Z.
    fn fixture() -> (InterpolatedMotion, Skeleton) {
        let mut h = synth::helper(3, -1, [5.0, 0.0, 0.0]);
        h.rotation[2] = std::f32::consts::FRAC_PI_2;
        let m = synth::build(&MotionSpec {
            bones: 3,
            helpers: vec![h],
            fps: 60.0,
            frame_end: 60.0,
            ..MotionSpec::default()
        })
        .unwrap();
        (m, Skeleton::chain(3, 10.0))
    }

    #[test]
    fn position_orientation_and_activation_by_hand() {
        let (mut m, sk) = fixture();
        m.constraints = vec![constraint(0, 1, 3), constraint(2, 2, 3)];
        m.constraints[0].activation_count = 2;
        m.activations = vec![Activation { time: 0.0, active: 1 }, Activation { time: 30.0, active: 0 }];
        let m = InterpolatedMotion::parse(&m.to_bytes().unwrap()).unwrap();
        let ev = Evaluator::new(&m, Some(&sk)).unwrap();
        let (g, r) = apply(&ev, &ev.pose(10.0)).unwrap();
        // Joint 1 moves onto the helper; joint 2 follows 10 up; joint 2 takes the helper's
        // 90° Z turn (its X axis becomes +Y).
        assert!(near(g[1].w_axis.truncate(), Vec3::new(5.0, 0.0, 0.0)));
        assert!(near(g[2].w_axis.truncate(), Vec3::new(5.0, 10.0, 0.0)));
        assert!(near(g[2].x_axis.truncate(), Vec3::Y));
        assert_eq!((r.applied, r.joint_table_order), (vec![0, 1], true));
        // At t = 40 the position constraint is off (the record at 30 says so).
        let (g, r) = apply(&ev, &ev.pose(40.0)).unwrap();
        assert!(near(g[1].w_axis.truncate(), Vec3::new(0.0, 10.0, 0.0)));
        assert_eq!(r.inactive, [0]);
        // Without constraints the evaluator's globals are untouched (off by default).
        assert!(near(ev.pose(10.0).globals.unwrap()[1].w_axis.truncate(), Vec3::new(0.0, 10.0, 0.0)));
    }

    #[test]
    fn direction_aims_the_x_axis() {
        let (mut m, sk) = fixture();
        m.constraints = vec![constraint(3, 0, 3)];
        let ev = Evaluator::new(&m, Some(&sk)).unwrap();
        let (g, _) = apply(&ev, &ev.pose(0.0)).unwrap();
        // Joint 0 at the origin, helper at (5, 0, 0): X already points there, nothing turns.
        assert!(near(g[0].x_axis.truncate(), Vec3::X));
        let mut m2 = m.clone();
        m2.ik_helpers[0].translation = [0.0, 0.0, 7.0, 0.0];
        let ev = Evaluator::new(&m2, Some(&sk)).unwrap();
        let (g, _) = apply(&ev, &ev.pose(0.0)).unwrap();
        assert!(near(g[0].x_axis.truncate(), Vec3::Z));
        // Children follow the turned joint: joint 1 was at +Y, and X→Z turns about −Y… so Y stays.
        assert!(near(g[1].w_axis.truncate(), Vec3::new(0.0, 10.0, 0.0)));
    }

    #[test]
    fn calculated_leg_chain_reaches_its_target() {
        // Hip 0 at the origin, knee 1 (flag 0x20) 10 below, ankle 2 10 below that; helper 3 at
        // a reachable target.
        let target = Vec3::new(3.0, -15.0, 2.0);
        let h = synth::helper(3, -1, target.to_array());
        let mut m = synth::build(&MotionSpec {
            bones: 3,
            helpers: vec![h],
            fps: 60.0,
            frame_end: 1.0,
            ..MotionSpec::default()
        })
        .unwrap();
        m.joints[1].flags = CALCULATED;
        m.constraints = vec![constraint(0, 2, 3)];
        let mut sk = Skeleton::chain(3, -10.0);
        sk.bones[0].translation = [0.0; 4];
        let ev = Evaluator::new(&m, Some(&sk)).unwrap();
        let (g, r) = apply(&ev, &ev.pose(0.0)).unwrap();
        let p: Vec<Vec3> = g.iter().map(|x| x.w_axis.truncate()).collect();
        assert!(near(p[2], target), "ankle at {:?}", p[2]);
        assert!((p[1] - p[0]).length() - 10.0 < 1e-3 && (p[2] - p[1]).length() - 10.0 < 1e-3, "bone lengths kept");
        assert_eq!(p[0], Vec3::ZERO, "the hip stays");
        assert_eq!(r.bent, [1]);
    }
}
