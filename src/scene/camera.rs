//! An orbit camera: yaw/pitch/distance around a target, perspective projection in the
//! GL convention (clip z in [-w, w]), which the standard viewport maps to depth 65535 (near)
//! … 0 (far), so the depth test is GEQUAL.

use glam::{Mat4, Vec3};

/// Axis-aligned bounds of transformed vertices.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounds {
    pub min: Vec3,
    pub max: Vec3,
}

impl Bounds {
    pub const EMPTY: Bounds = Bounds { min: Vec3::splat(f32::INFINITY), max: Vec3::splat(f32::NEG_INFINITY) };

    pub fn add(&mut self, p: Vec3) {
        if p.is_finite() {
            self.min = self.min.min(p);
            self.max = self.max.max(p);
        }
    }
    pub fn is_empty(&self) -> bool {
        self.min.x.partial_cmp(&self.max.x).is_none_or(|o| o == std::cmp::Ordering::Greater)
    }
    pub fn center(&self) -> Vec3 {
        if self.is_empty() {
            Vec3::ZERO
        } else {
            (self.min + self.max) * 0.5
        }
    }
    /// Half the diagonal (1 for empty bounds, so a camera still has a sane distance).
    pub fn radius(&self) -> f32 {
        let r = if self.is_empty() { 1.0 } else { (self.max - self.min).length() * 0.5 };
        if r > 1e-6 && r.is_finite() {
            r
        } else {
            1.0
        }
    }
}

/// Orbit camera. Angles in radians; `yaw` 0 looks from +Z towards −Z, positive `pitch`
/// looks down from above.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Camera {
    pub target: Vec3,
    pub yaw: f32,
    pub pitch: f32,
    pub distance: f32,
    /// Vertical field of view in degrees.
    pub fov_y: f32,
    pub near: f32,
    pub far: f32,
}

pub const DEFAULT_FOV: f32 = 40.0;
pub const DEFAULT_PITCH: f32 = 0.15;
pub const ASPECT: f32 = 480.0 / 272.0;

impl Camera {
    /// A camera at (`yaw`, `pitch`) looking at the centre of `bounds`, at the smallest
    /// distance where all 8 corners of the box fit the view with a 5% margin; clip planes
    /// tight around the box's bounding sphere for depth precision.
    pub fn framing(bounds: &Bounds, yaw: f32, pitch: f32, fov_y: f32) -> Camera {
        let r = bounds.radius();
        let fov_y = fov_y.clamp(1.0, 170.0);
        let tan_v = (fov_y.to_radians() * 0.5).tan() / 1.05;
        let tan_h = tan_v * ASPECT;
        let mut c = Camera { target: bounds.center(), yaw, pitch, distance: 1.0, fov_y, near: 0.0, far: 0.0 };
        let (right, up, back) = c.basis();
        let mut distance: f32 = 0.0;
        if !bounds.is_empty() {
            for i in 0..8 {
                let p = Vec3::new(
                    if i & 1 == 0 { bounds.min.x } else { bounds.max.x },
                    if i & 2 == 0 { bounds.min.y } else { bounds.max.y },
                    if i & 4 == 0 { bounds.min.z } else { bounds.max.z },
                ) - c.target;
                let (x, y, z) = (p.dot(right), p.dot(up), p.dot(back));
                distance = distance.max(z + x.abs() / tan_h).max(z + y.abs() / tan_v);
            }
        }
        c.distance = distance.max(r * 0.05).max(1e-3);
        if !c.distance.is_finite() {
            c.distance = r / tan_v;
        }
        c.fit_clip(r);
        c
    }

    /// Camera axes in world space: right, up, and backwards (from the target to the eye).
    pub fn basis(&self) -> (Vec3, Vec3, Vec3) {
        let (sy, cy) = self.yaw.sin_cos();
        let (sp, cp) = self.pitch.sin_cos();
        let back = Vec3::new(cp * sy, sp, cp * cy);
        let right = Vec3::new(cy, 0.0, -sy);
        (right, back.cross(right), back)
    }

    /// Near/far planes that enclose a sphere of radius `r` around the target.
    pub fn fit_clip(&mut self, r: f32) {
        self.near = (self.distance - 1.5 * r).max(self.distance * 0.01).max(1e-4);
        self.far = (self.distance + 1.5 * r).max(self.near * 2.0);
    }

    pub fn eye(&self) -> Vec3 {
        self.target + self.distance * self.basis().2
    }

    pub fn view(&self) -> Mat4 {
        Mat4::look_at_rh(self.eye(), self.target, self.basis().1)
    }

    pub fn projection(&self) -> Mat4 {
        Mat4::perspective_rh_gl(self.fov_y.clamp(1.0, 170.0).to_radians(), ASPECT, self.near, self.far)
    }

    /// Screen position (pixels, 480×272, y down) of a world point, `None` behind the camera.
    pub fn project(&self, p: Vec3) -> Option<(f32, f32)> {
        let c = self.projection() * self.view() * p.extend(1.0);
        if c.w <= 1e-6 {
            return None;
        }
        Some((240.0 + 240.0 * c.x / c.w, 136.0 - 136.0 * c.y / c.w))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn framing_keeps_the_bounds_on_screen() {
        let mut b = Bounds::EMPTY;
        b.add(Vec3::new(-1.0, 0.0, -0.5));
        b.add(Vec3::new(1.0, 3.0, 0.5));
        for yaw in [0.0f32, 1.0, 2.5, -2.0] {
            let c = Camera::framing(&b, yaw, 0.3, DEFAULT_FOV);
            for x in [b.min.x, b.max.x] {
                for y in [b.min.y, b.max.y] {
                    for z in [b.min.z, b.max.z] {
                        let (sx, sy) = c.project(Vec3::new(x, y, z)).unwrap();
                        assert!((0.0..480.0).contains(&sx) && (0.0..272.0).contains(&sy), "{sx} {sy}");
                    }
                }
            }
            assert!(c.near < c.distance - b.radius() && c.far > c.distance + b.radius());
        }
        // The target projects to the screen centre.
        let c = Camera::framing(&b, 0.4, 0.2, 50.0);
        let (sx, sy) = c.project(b.center()).unwrap();
        assert!((sx - 240.0).abs() < 1e-3 && (sy - 136.0).abs() < 1e-3);
    }

    #[test]
    fn yaw_zero_looks_down_minus_z() {
        let c = Camera { target: Vec3::ZERO, yaw: 0.0, pitch: 0.0, distance: 5.0, fov_y: 40.0, near: 1.0, far: 10.0 };
        assert!((c.eye() - Vec3::new(0.0, 0.0, 5.0)).length() < 1e-6);
        // +X appears on the right.
        assert!(c.project(Vec3::X).unwrap().0 > 240.0);
        assert!(c.project(Vec3::Y).unwrap().1 < 136.0);
    }

    #[test]
    fn empty_bounds_are_sane() {
        let b = Bounds::EMPTY;
        assert!(b.is_empty());
        let c = Camera::framing(&b, 0.0, 0.0, 40.0);
        assert!(c.distance.is_finite() && c.distance > 0.0);
    }
}
