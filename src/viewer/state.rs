//! Everything the viewer decides from input, without a window: the orbit camera under mouse
//! drags and the wheel, playback time, and the toggles behind the keys. The window loop
//! ([`super::app`]) turns winit events into [`Input`]s, feeds them to [`ViewerState::handle`],
//! and acts on the returned [`Changed`] (render the GE again, repaint the overlays only, save
//! a screenshot, quit).

use crate::scene::camera::Camera;
use crate::scene::RenderOptions;

/// Radians of yaw/pitch per window pixel of left-button drag.
pub const ORBIT_PER_PIXEL: f32 = 0.01;
/// Camera distance factor per wheel notch towards the model.
pub const ZOOM_PER_NOTCH: f32 = 0.9;
/// Pitch stays this far from straight up/down (the look-at basis degenerates there).
pub const PITCH_LIMIT: f32 = 89.0 * std::f32::consts::PI / 180.0;
/// Frames moved by PageUp/PageDown.
pub const SCRUB_FRAMES: i32 = 10;

/// The viewer's keys, after keyboard-layout mapping (see [`super::app::map_key`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    /// Play/pause.
    Space,
    /// One frame back / forward.
    Left,
    Right,
    /// First / last frame.
    Home,
    End,
    /// 10 frames back / forward.
    PageUp,
    PageDown,
    /// Previous / next animation.
    PrevClip,
    NextClip,
    /// Toggle a section: digit 1-9 is section 0-8, digit 0 is section 9.
    Digit(u8),
    /// Every section visible, mesh-list filter off.
    ShowAll,
    /// Mesh-list filter: all → list 0 → list 1 → all.
    ListFilter,
    Wireframe,
    Skeleton,
    Screenshot,
    ResetCamera,
    Quit,
}

/// Mouse buttons the viewer uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Button {
    Left,
    Right,
    Middle,
}

/// One input event in window coordinates (physical pixels).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Input {
    Key(Key),
    Press(Button),
    Release(Button),
    Cursor(f64, f64),
    /// Wheel notches, positive away from the user (zoom in).
    Wheel(f32),
    /// Focus lost: every button counts as released.
    FocusLost,
    /// Wall-clock time passed, seconds (advances playback when playing).
    Tick(f32),
}

/// What an input changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Changed {
    /// Camera, options or pose changed: the GE must render again.
    pub scene: bool,
    /// Only what is drawn over the GE image changed.
    pub overlay: bool,
    pub screenshot: bool,
    pub quit: bool,
}

impl Changed {
    pub const SCENE: Changed = Changed { scene: true, overlay: false, screenshot: false, quit: false };
    pub const OVERLAY: Changed = Changed { scene: false, overlay: true, screenshot: false, quit: false };
    pub const NONE: Changed = Changed { scene: false, overlay: false, screenshot: false, quit: false };

    pub fn any(&self) -> bool {
        self.scene || self.overlay || self.screenshot || self.quit
    }

    /// Both sets of changes.
    pub fn merge(&mut self, o: Changed) {
        self.scene |= o.scene;
        self.overlay |= o.overlay;
        self.screenshot |= o.screenshot;
        self.quit |= o.quit;
    }
}

/// Length and rate of one animation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClipTiming {
    pub frames: f32,
    pub fps: f32,
    /// (frame count, loop-from, loop-to) when playback follows a PAM's loop rule.
    pub looping: Option<(u16, u16, u16)>,
}

/// `t` wrapped into `[0, frames)`; 0 for an empty or non-finite clip.
pub fn wrap_frame(t: f32, frames: f32) -> f32 {
    if !(frames > 0.0 && frames.is_finite() && t.is_finite()) {
        return 0.0;
    }
    let w = t.rem_euclid(frames);
    // rem_euclid can round up to `frames` for tiny negative `t`.
    if w >= frames {
        0.0
    } else {
        w
    }
}

/// Frames a stepping key moves: Left/Right one, PageUp/PageDown [`SCRUB_FRAMES`].
pub fn step_frames(k: Key) -> Option<i32> {
    match k {
        Key::Left => Some(-1),
        Key::Right => Some(1),
        Key::PageUp => Some(-SCRUB_FRAMES),
        Key::PageDown => Some(SCRUB_FRAMES),
        _ => None,
    }
}

/// `n` whole frames on from `t` (from the frame `t` is in going forward, from the next one
/// going back), wrapped into a clip of `frames` frames.
pub fn stepped(t: f32, n: i32, frames: f32) -> f32 {
    let base = if n >= 0 { t.floor() } else { t.ceil() };
    wrap_frame(base + n as f32, frames)
}

/// The last whole frame of a clip of `frames` frames.
pub fn last_frame(frames: f32) -> f32 {
    if frames.is_finite() {
        (frames - 1.0).max(0.0).ceil()
    } else {
        0.0
    }
}

/// The start of every status line: the render time (0 = not measured yet) and, playing, the
/// frames presented per second, else what the render time would allow.
pub fn timing_text(frame_ms: f64, fps: f64, playing: bool) -> String {
    if frame_ms.is_nan() || frame_ms <= 0.0 {
        "  -.- ms".to_string()
    } else if playing {
        format!("{frame_ms:5.1} ms {fps:3.0} fps")
    } else {
        format!("{frame_ms:5.1} ms (max {:.0} fps)", 1000.0 / frame_ms.max(1e-3))
    }
}

/// Camera, playback and toggles.
#[derive(Debug, Clone)]
pub struct ViewerState {
    pub camera: Camera,
    /// The starting camera, restored by [`Key::ResetCamera`].
    pub home: Camera,
    /// Radius of the model bounds (clip planes are refitted around it after camera moves).
    pub radius: f32,
    pub opts: RenderOptions,
    pub section_count: usize,
    pub clips: Vec<ClipTiming>,
    /// Current animation (index into `clips`).
    pub clip: usize,
    /// Current frame (fractional while playing).
    pub time: f32,
    pub playing: bool,
    pub skeleton: bool,
    /// Window pixels per PSP pixel (pan speed).
    pub window_scale: f32,
    cursor: Option<(f64, f64)>,
    held: [bool; 3],
}

fn button_index(b: Button) -> usize {
    match b {
        Button::Left => 0,
        Button::Right => 1,
        Button::Middle => 2,
    }
}

impl ViewerState {
    pub fn new(
        camera: Camera,
        radius: f32,
        opts: RenderOptions,
        section_count: usize,
        clips: Vec<ClipTiming>,
    ) -> ViewerState {
        ViewerState {
            camera,
            home: camera,
            radius: if radius.is_finite() && radius > 0.0 { radius } else { 1.0 },
            opts,
            section_count,
            clips,
            clip: 0,
            time: 0.0,
            playing: false,
            skeleton: false,
            window_scale: 2.0,
            cursor: None,
            held: [false; 3],
        }
    }

    /// Show animation `clip` (clamped to the list) at `frame` (wrapped), paused.
    pub fn start(&mut self, clip: usize, frame: f32) {
        self.clip = clip.min(self.clips.len().saturating_sub(1));
        self.time = self.timing().map_or(0.0, |c| wrap_frame(frame, c.frames));
        self.playing = false;
    }

    pub fn timing(&self) -> Option<ClipTiming> {
        self.clips.get(self.clip).copied()
    }

    pub fn handle(&mut self, input: Input) -> Changed {
        match input {
            Input::Key(k) => self.key(k),
            Input::Press(b) => {
                self.held[button_index(b)] = true;
                Changed::NONE
            }
            Input::Release(b) => {
                self.held[button_index(b)] = false;
                Changed::NONE
            }
            Input::FocusLost => {
                self.held = [false; 3];
                Changed::NONE
            }
            Input::Cursor(x, y) => {
                let last = self.cursor.replace((x, y));
                match last {
                    Some((lx, ly)) => self.drag((x - lx) as f32, (y - ly) as f32),
                    None => Changed::NONE,
                }
            }
            Input::Wheel(notches) => self.zoom(notches),
            Input::Tick(dt) => self.tick(dt),
        }
    }

    fn drag(&mut self, dx: f32, dy: f32) -> Changed {
        if !(dx.is_finite() && dy.is_finite()) || (dx == 0.0 && dy == 0.0) {
            return Changed::NONE;
        }
        if self.held[0] {
            self.orbit(dx, dy)
        } else if self.held[1] || self.held[2] {
            self.pan(dx, dy)
        } else {
            Changed::NONE
        }
    }

    /// Left drag: dragging right turns the model to the right (the eye moves left, yaw
    /// decreases: the eye moves along +right as yaw grows, see [`Camera::basis`]); dragging
    /// down tips its top towards the viewer (pitch grows: seen more from above).
    pub fn orbit(&mut self, dx: f32, dy: f32) -> Changed {
        self.camera.yaw = (self.camera.yaw - dx * ORBIT_PER_PIXEL).rem_euclid(std::f32::consts::TAU);
        self.camera.pitch = (self.camera.pitch + dy * ORBIT_PER_PIXEL).clamp(-PITCH_LIMIT, PITCH_LIMIT);
        self.refit();
        Changed::SCENE
    }

    /// World units per window pixel in the plane through the target facing the camera.
    pub fn pan_unit(&self) -> f32 {
        let half = (self.camera.fov_y.clamp(1.0, 170.0).to_radians() * 0.5).tan();
        2.0 * self.camera.distance * half / (272.0 * self.window_scale.max(1e-3))
    }

    /// Right/middle drag: the point under the cursor at the target's depth follows it.
    pub fn pan(&mut self, dx: f32, dy: f32) -> Changed {
        let (right, up, _) = self.camera.basis();
        let u = self.pan_unit();
        self.camera.target += (-dx * right + dy * up) * u;
        self.refit();
        Changed::SCENE
    }

    /// Wheel: each notch away from the user brings the eye to [`ZOOM_PER_NOTCH`] of its distance.
    pub fn zoom(&mut self, notches: f32) -> Changed {
        if !notches.is_finite() || notches == 0.0 {
            return Changed::NONE;
        }
        let d = self.camera.distance * ZOOM_PER_NOTCH.powf(notches.clamp(-50.0, 50.0));
        self.camera.distance = d.clamp(self.radius * 1e-3, self.radius * 1e3);
        self.refit();
        Changed::SCENE
    }

    /// Clip planes around the model even after panning away from its centre.
    fn refit(&mut self) {
        let off = (self.camera.target - self.home.target).length();
        self.camera.fit_clip(self.radius + if off.is_finite() { off } else { 0.0 });
    }

    fn tick(&mut self, dt: f32) -> Changed {
        match self.timing() {
            Some(c) if self.playing && dt.is_finite() && dt > 0.0 => {
                let t = self.time + dt * c.fps;
                self.time = match c.looping {
                    Some((n, from, to)) => crate::pam::eval::loop_frame(t, n, from, to).min(c.frames),
                    None => wrap_frame(t, c.frames),
                };
                Changed::SCENE
            }
            _ => Changed::NONE,
        }
    }

    /// Move `n` whole frames from the current one (pauses playback).
    fn step(&mut self, n: i32) -> Changed {
        let Some(c) = self.timing() else { return Changed::NONE };
        self.playing = false;
        self.time = stepped(self.time, n, c.frames);
        Changed::SCENE
    }

    fn seek(&mut self, t: f32) -> Changed {
        if self.clips.is_empty() {
            return Changed::NONE;
        }
        self.playing = false;
        self.time = t;
        Changed::SCENE
    }

    fn switch_clip(&mut self, forward: bool) -> Changed {
        let n = self.clips.len();
        if n == 0 {
            return Changed::NONE;
        }
        self.clip = if forward { (self.clip + 1) % n } else { (self.clip + n - 1) % n };
        self.time = 0.0;
        Changed::SCENE
    }

    fn key(&mut self, k: Key) -> Changed {
        if let Some(n) = step_frames(k) {
            return self.step(n);
        }
        match k {
            Key::Space => {
                if self.clips.is_empty() {
                    return Changed::NONE;
                }
                self.playing = !self.playing;
                Changed::OVERLAY
            }
            Key::Left | Key::Right | Key::PageUp | Key::PageDown => Changed::NONE,
            Key::Home => self.seek(0.0),
            Key::End => {
                let last = self.timing().map_or(0.0, |c| last_frame(c.frames));
                self.seek(last)
            }
            Key::PrevClip => self.switch_clip(false),
            Key::NextClip => self.switch_clip(true),
            Key::Digit(d) => {
                let n = if d == 0 { 9 } else { usize::from(d) - 1 };
                if d > 9 || n >= self.section_count {
                    return Changed::NONE;
                }
                self.opts.hidden.resize(self.section_count, false);
                self.opts.hidden[n] = !self.opts.hidden[n];
                Changed::SCENE
            }
            Key::ShowAll => {
                self.opts.hidden.clear();
                self.opts.mesh_list = None;
                Changed::SCENE
            }
            Key::ListFilter => {
                self.opts.mesh_list = match self.opts.mesh_list {
                    None => Some(0),
                    Some(0) => Some(1),
                    Some(_) => None,
                };
                Changed::SCENE
            }
            Key::Wireframe => {
                self.opts.wireframe = !self.opts.wireframe;
                Changed::SCENE
            }
            Key::Skeleton => {
                self.skeleton = !self.skeleton;
                Changed::OVERLAY
            }
            Key::Screenshot => Changed { screenshot: true, ..Changed::NONE },
            Key::ResetCamera => {
                self.camera = self.home;
                Changed::SCENE
            }
            Key::Quit => Changed { quit: true, ..Changed::NONE },
        }
    }

    /// Sections hidden by the digit keys, as "3,5" (empty when none).
    pub fn hidden_list(&self) -> String {
        let v: Vec<String> =
            self.opts.hidden.iter().enumerate().filter(|(_, &h)| h).map(|(i, _)| i.to_string()).collect();
        v.join(",")
    }

    /// The overlay text line: frame time (0 = not measured yet), fps, animation and frame,
    /// toggles.
    pub fn status(&self, clip_name: Option<&str>, frame_ms: f64, fps: f64) -> String {
        let mut s = timing_text(frame_ms, fps, self.playing);
        match (self.timing(), clip_name) {
            (Some(c), name) => {
                s += &format!(
                    " | {} {}/{} f{:.1}/{}{}",
                    name.unwrap_or("?"),
                    self.clip + 1,
                    self.clips.len(),
                    self.time,
                    c.frames,
                    if self.playing { "" } else { " paused" }
                );
            }
            (None, _) => s += " | bind pose",
        }
        s += match self.opts.mesh_list {
            None => " | list all",
            Some(0) => " | list 0",
            Some(_) => " | list 1",
        };
        if self.opts.wireframe {
            s += " | wire";
        }
        if self.skeleton {
            s += " | skel";
        }
        let hidden = self.hidden_list();
        if !hidden.is_empty() {
            s += &format!(" | hidden {hidden}");
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;

    fn cam() -> Camera {
        Camera { target: Vec3::ZERO, yaw: 0.0, pitch: 0.0, distance: 10.0, fov_y: 40.0, near: 1.0, far: 20.0 }
    }

    fn state(clips: Vec<ClipTiming>) -> ViewerState {
        ViewerState::new(cam(), 2.0, RenderOptions::default(), 4, clips)
    }

    fn clip(frames: f32, fps: f32) -> ClipTiming {
        ClipTiming { frames, fps, looping: None }
    }

    #[test]
    fn wrapping() {
        assert_eq!(wrap_frame(12.5, 10.0), 2.5);
        assert_eq!(wrap_frame(-1.0, 10.0), 9.0);
        assert_eq!(wrap_frame(-1e-9, 10.0), 0.0);
        assert_eq!(wrap_frame(3.0, 0.0), 0.0);
        assert_eq!(wrap_frame(f32::NAN, 10.0), 0.0);
        assert_eq!(last_frame(60.0), 59.0);
        assert_eq!(last_frame(60.5), 60.0);
        assert_eq!(last_frame(0.0), 0.0);
    }

    #[test]
    fn left_drag_orbits() {
        let mut s = state(vec![]);
        s.handle(Input::Cursor(100.0, 100.0));
        // No button: moving does nothing.
        assert_eq!(s.handle(Input::Cursor(110.0, 100.0)), Changed::NONE);
        s.handle(Input::Press(Button::Left));
        let c = s.handle(Input::Cursor(160.0, 120.0));
        assert!(c.scene);
        // 50 px right → yaw −0.5 rad (wrapped into [0, 2π)); 20 px down → pitch +0.2.
        assert!((s.camera.yaw - (std::f32::consts::TAU - 0.5)).abs() < 1e-5, "{}", s.camera.yaw);
        assert!((s.camera.pitch - 0.2).abs() < 1e-6);
        // The pitch stops short of the pole.
        s.handle(Input::Cursor(160.0, 100_000.0));
        assert_eq!(s.camera.pitch, PITCH_LIMIT);
        s.handle(Input::Release(Button::Left));
        assert_eq!(s.handle(Input::Cursor(0.0, 0.0)), Changed::NONE);
    }

    #[test]
    fn pan_keeps_the_grabbed_point_under_the_cursor() {
        for b in [Button::Right, Button::Middle] {
            let mut s = state(vec![]);
            s.camera.yaw = 0.7;
            s.camera.pitch = 0.3;
            s.window_scale = 2.0;
            let before = s.camera;
            let grabbed = before.target;
            s.handle(Input::Cursor(10.0, 10.0));
            s.handle(Input::Press(b));
            s.handle(Input::Cursor(110.0, 50.0));
            // 100 window px right and 40 down at ×2 = 50 and 20 PSP pixels.
            let (x, y) = s.camera.project(grabbed).unwrap();
            assert!((x - 290.0).abs() < 1e-2 && (y - 156.0).abs() < 1e-2, "{x} {y}");
            assert_eq!((s.camera.yaw, s.camera.pitch, s.camera.distance), (0.7, 0.3, 10.0));
            // Focus loss ends the drag.
            s.handle(Input::FocusLost);
            let t = s.camera.target;
            s.handle(Input::Cursor(300.0, 300.0));
            assert_eq!(s.camera.target, t);
        }
    }

    #[test]
    fn wheel_zooms_and_refits_clip_planes() {
        let mut s = state(vec![]);
        assert!(s.handle(Input::Wheel(1.0)).scene);
        assert!((s.camera.distance - 9.0).abs() < 1e-5);
        s.handle(Input::Wheel(-2.0));
        assert!((s.camera.distance - 9.0 / 0.81).abs() < 1e-4);
        // Planes enclose the model sphere (radius 2) around the target.
        assert!(s.camera.near <= s.camera.distance - 2.0 && s.camera.far >= s.camera.distance + 2.0);
        // Clamped: a huge zoom-in stops at radius/1000.
        s.handle(Input::Wheel(1e9));
        s.handle(Input::Wheel(50.0));
        assert!(s.camera.distance >= 2e-3 - 1e-9);
        assert_eq!(s.handle(Input::Wheel(f32::NAN)), Changed::NONE);
        // R restores the start.
        s.handle(Input::Key(Key::ResetCamera));
        assert_eq!(s.camera, cam());
    }

    #[test]
    fn playback_follows_the_pam_loop_rule() {
        // test.pam's header: 90 frames, loop-from 89, loop-to 0 (frame 89 is the seam).
        let mut s = state(vec![ClipTiming { frames: 90.0, fps: 30.0, looping: Some((90, 89, 0)) }]);
        s.handle(Input::Key(Key::Space));
        s.time = 88.5;
        s.handle(Input::Tick(1.0 / 30.0)); // 89.5: past loop-from, back by 89
        assert!((s.time - 0.5).abs() < 1e-4, "{}", s.time);
        // Loop 60 → 20: frames 20..60 repeat.
        let mut s = state(vec![ClipTiming { frames: 90.0, fps: 10.0, looping: Some((90, 60, 20)) }]);
        s.handle(Input::Key(Key::Space));
        s.time = 55.0;
        s.handle(Input::Tick(1.0)); // 65 → 25
        assert!((s.time - 25.0).abs() < 1e-4, "{}", s.time);
        // No loop (loop-from ≤ loop-to): playback holds the last frame.
        let mut s = state(vec![ClipTiming { frames: 90.0, fps: 10.0, looping: Some((90, 10, 10)) }]);
        s.handle(Input::Key(Key::Space));
        s.handle(Input::Tick(100.0));
        assert_eq!(s.time, 90.0);
    }

    #[test]
    fn playback_and_stepping() {
        let mut s = state(vec![clip(30.0, 30.0), clip(5.0, 10.0)]);
        assert!(!s.handle(Input::Tick(0.5)).scene, "paused: time stands");
        assert!(s.handle(Input::Key(Key::Space)).overlay);
        assert!(s.playing);
        s.handle(Input::Tick(0.5)); // 15 frames
        assert_eq!(s.time, 15.0);
        s.handle(Input::Tick(0.6)); // 33 → wraps to 3
        assert!((s.time - 3.0).abs() < 1e-4);
        s.time = 3.5;
        s.handle(Input::Key(Key::Right));
        assert!(!s.playing, "stepping pauses");
        assert_eq!(s.time, 4.0);
        s.time = 3.5;
        s.handle(Input::Key(Key::Left));
        assert_eq!(s.time, 3.0);
        s.handle(Input::Key(Key::PageUp));
        assert_eq!(s.time, 23.0); // 3 − 10 wraps in 30 frames
        s.handle(Input::Key(Key::PageDown));
        assert_eq!(s.time, 3.0);
        s.handle(Input::Key(Key::End));
        assert_eq!(s.time, 29.0);
        s.handle(Input::Key(Key::Right));
        assert_eq!(s.time, 0.0);
        s.handle(Input::Key(Key::End));
        s.handle(Input::Key(Key::Home));
        assert_eq!(s.time, 0.0);
        // Animations cycle both ways and restart at frame 0.
        s.time = 7.0;
        s.handle(Input::Key(Key::NextClip));
        assert_eq!((s.clip, s.time), (1, 0.0));
        s.handle(Input::Key(Key::NextClip));
        assert_eq!(s.clip, 0);
        s.handle(Input::Key(Key::PrevClip));
        assert_eq!(s.clip, 1);
        s.handle(Input::Key(Key::End));
        assert_eq!(s.time, 4.0);
    }

    #[test]
    fn start_position() {
        let mut s = state(vec![clip(30.0, 30.0), clip(5.0, 10.0)]);
        s.start(1, 7.5);
        assert_eq!((s.clip, s.time), (1, 2.5));
        s.start(9, 3.0);
        assert_eq!((s.clip, s.time), (1, 3.0));
        let mut e = state(vec![]);
        e.start(2, 4.0);
        assert_eq!((e.clip, e.time), (0, 0.0));
    }

    #[test]
    fn without_clips_playback_keys_do_nothing() {
        let mut s = state(vec![]);
        for k in [Key::Space, Key::Left, Key::Right, Key::Home, Key::End, Key::PrevClip, Key::NextClip, Key::PageUp] {
            assert_eq!(s.handle(Input::Key(k)), Changed::NONE, "{k:?}");
        }
        assert!(!s.playing);
        assert_eq!(s.handle(Input::Tick(1.0)), Changed::NONE);
    }

    #[test]
    fn toggles() {
        let mut s = state(vec![]);
        // Digit 1 is section 0, digit 0 would be section 9 (only 4 sections here).
        assert!(s.handle(Input::Key(Key::Digit(1))).scene);
        assert!(s.handle(Input::Key(Key::Digit(4))).scene);
        assert_eq!(s.opts.hidden, [true, false, false, true]);
        assert_eq!(s.hidden_list(), "0,3");
        assert_eq!(s.handle(Input::Key(Key::Digit(0))), Changed::NONE);
        assert_eq!(s.handle(Input::Key(Key::Digit(5))), Changed::NONE);
        s.handle(Input::Key(Key::Digit(1)));
        assert_eq!(s.opts.hidden, [false, false, false, true]);
        let mut ten = ViewerState::new(cam(), 1.0, RenderOptions::default(), 12, vec![]);
        ten.handle(Input::Key(Key::Digit(0)));
        assert_eq!(ten.hidden_list(), "9");

        s.handle(Input::Key(Key::ListFilter));
        assert_eq!(s.opts.mesh_list, Some(0));
        s.handle(Input::Key(Key::ListFilter));
        assert_eq!(s.opts.mesh_list, Some(1));
        s.handle(Input::Key(Key::ShowAll));
        assert_eq!((s.opts.mesh_list, s.opts.hidden.len()), (None, 0));
        s.handle(Input::Key(Key::ListFilter));
        s.handle(Input::Key(Key::ListFilter));
        s.handle(Input::Key(Key::ListFilter));
        assert_eq!(s.opts.mesh_list, None);

        assert!(s.handle(Input::Key(Key::Wireframe)).scene);
        assert!(s.opts.wireframe);
        let k = s.handle(Input::Key(Key::Skeleton));
        assert!(k.overlay && !k.scene && s.skeleton);
        assert!(s.handle(Input::Key(Key::Screenshot)).screenshot);
        assert!(s.handle(Input::Key(Key::Quit)).quit);
    }

    #[test]
    fn status_line() {
        let mut s = state(vec![clip(30.0, 30.0)]);
        s.time = 12.0;
        s.handle(Input::Key(Key::Wireframe));
        s.handle(Input::Key(Key::Digit(2)));
        assert_eq!(
            s.status(Some("idle"), 8.26, 60.0),
            "  8.3 ms (max 121 fps) | idle 1/1 f12.0/30 paused | list all | wire | hidden 1"
        );
        let b = state(vec![]);
        assert_eq!(b.status(None, 1.0, 0.0), "  1.0 ms (max 1000 fps) | bind pose | list all");
        // Before the first measurement.
        assert_eq!(b.status(None, 0.0, 0.0), "  -.- ms | bind pose | list all");
        // K shows the skeleton, and the status line says so.
        let mut k = state(vec![]);
        k.handle(Input::Key(Key::Skeleton));
        assert_eq!(k.status(None, 1.0, 0.0), "  1.0 ms (max 1000 fps) | bind pose | list all | skel");
        s.handle(Input::Key(Key::Space));
        s.handle(Input::Key(Key::ListFilter));
        assert_eq!(s.status(Some("run"), 10.0, 59.6), " 10.0 ms  60 fps | run 1/1 f12.0/30 | list 0 | wire | hidden 1");
    }
}
