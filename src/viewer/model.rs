//! The model viewer as a [`ViewSource`]: a BBS model or map drawn the way `render` draws it.
//! Every frame [`build_frame`] makes the display list for the current camera, options and
//! pose, and one reused [`ge::Ge`] runs it; the 480×272 screen of the capture is shown. The
//! mouse orbits, pans and zooms ([`ViewerState`]); the skeleton overlay projects the joints
//! with the same camera.

use super::draw::{self, Canvas, Layout};
use super::source::{Playhead, ViewSource};
use super::state::{Changed, ClipTiming, Input, ViewerState};
use super::{Clip, ViewerError, ViewerInput};
use crate::scene::{build_frame, model_bounds, Model};
use ge::display::{Image, SCREEN_H, SCREEN_W};
use glam::Mat4;
use std::path::Path;

pub struct ModelSource {
    model: Model,
    clips: Vec<Clip>,
    pub state: ViewerState,
    ge: ge::Ge,
    /// Joint globals the last frame was drawn with (the skeleton overlay).
    globals: Vec<Mat4>,
}

impl ModelSource {
    pub fn new(input: ViewerInput) -> ModelSource {
        let ViewerInput { model, clips, start_clip, start_frame, options, camera, threads, ge_model, .. } = input;
        let timings = clips.iter().map(|c| ClipTiming { frames: c.frames, fps: c.fps, looping: c.looping }).collect();
        let mut state = ViewerState::new(camera, 1.0, options, model.section_count(), timings);
        state.start(start_clip, start_frame);
        let pose0 = clips.get(state.clip).map(|c| (c.pose)(state.time));
        state.radius = model_bounds(&model, pose0.as_deref(), &state.opts).radius();
        let mut ge = ge::Ge::with_model(ge_model);
        if let Some(n) = threads {
            ge.set_threads(n);
        }
        ModelSource { model, clips, state, ge, globals: Vec::new() }
    }
}

impl ViewSource for ModelSource {
    fn screen_size(&self) -> [u32; 2] {
        [SCREEN_W, SCREEN_H]
    }

    fn set_window_scale(&mut self, scale: u32) {
        self.state.window_scale = scale.max(1) as f32;
    }

    fn handle(&mut self, input: Input) -> Changed {
        self.state.handle(input)
    }

    fn playhead(&self) -> Option<Playhead> {
        let (c, t) = (self.clips.get(self.state.clip)?, self.state.timing()?);
        Some(Playhead {
            clip: c.name.clone(),
            clip_index: self.state.clip,
            clips: self.clips.len(),
            frame: self.state.time,
            frames: t.frames,
            fps: t.fps,
            playing: self.state.playing,
        })
    }

    fn render(&mut self) -> Result<Image, ViewerError> {
        let pose = self.clips.get(self.state.clip).map(|c| (c.pose)(self.state.time));
        let frame = build_frame(&self.model, pose.as_deref(), &self.state.camera, &self.state.opts)?;
        let image = frame.render(&mut self.ge)?;
        self.globals = match pose {
            Some(p) => p,
            None => self.model.skeleton().map(|s| s.bind_globals()).unwrap_or_default(),
        };
        Ok(image)
    }

    fn status(&self, frame_ms: f64, fps: f64) -> String {
        self.state.status(self.clips.get(self.state.clip).map(|c| c.name.as_str()), frame_ms, fps)
    }

    fn overlay(&self, canvas: &mut Canvas, layout: &Layout) {
        if !self.state.skeleton {
            return;
        }
        let joints = draw::joint_points(&self.model, &self.globals, &self.state.opts.policy);
        if !joints.is_empty() {
            draw::draw_skeleton(canvas, layout, &self.state.camera, &joints);
        }
    }

    /// The visible 480×272 as PNG: the bytes `psprender render` writes.
    fn save_screenshot(&self, img: &Image, path: &Path) -> Result<(), ViewerError> {
        Ok(crate::output::save_png(&img.crop(SCREEN_W, SCREEN_H), path)?)
    }
}
