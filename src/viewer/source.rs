//! What a viewer window shows: the [`ViewSource`] trait. The window loop ([`super::app`]) owns
//! the window, input mapping, redraw pacing, scaling, the status line and screenshots; a source
//! owns its scene and its keys, and renders its current frame into an image through the GE.
//!
//! Implementations: [`super::model::ModelSource`] (BBS models and maps, orbit camera, PAM
//! poses) and [`super::popcap::PopcapSource`] (PopCap PAM animations). A source must keep
//! what it shows a pure function of its state, so a screenshot (F2/P) equals what the matching
//! CLI command writes for the same arguments.

use super::draw::{Canvas, Layout};
use super::state::{Changed, Input};
use super::ViewerError;
use ge::display::Image;
use std::path::Path;

/// Where playback stands, for pacing and the status line.
#[derive(Debug, Clone, PartialEq)]
pub struct Playhead {
    /// Name of the current clip (animation, label…).
    pub clip: String,
    /// Its index and the number of clips.
    pub clip_index: usize,
    pub clips: usize,
    /// Current frame within the clip (fractional while playing) and its length in frames.
    pub frame: f32,
    pub frames: f32,
    /// Playback rate, frames per second.
    pub fps: f32,
    pub playing: bool,
}

/// A scene the viewer window can show.
pub trait ViewSource {
    /// Size in pixels of the screen shown (the top-left part of what [`ViewSource::render`]
    /// returns; the window scales it by an integer factor).
    fn screen_size(&self) -> [u32; 2];

    /// The window now shows `scale` window pixels per screen pixel (mouse speeds follow it).
    fn set_window_scale(&mut self, _scale: u32) {}

    /// Apply one input (keys after layout mapping, mouse, elapsed time); what it changed.
    /// Inputs a source has no use for return [`Changed::NONE`].
    fn handle(&mut self, input: Input) -> Changed;

    /// The timeline position, `None` when there is nothing to play. The window redraws at
    /// 60 Hz while `playing`, and sleeps otherwise.
    fn playhead(&self) -> Option<Playhead>;

    /// Draw the current frame through the GE.
    fn render(&mut self) -> Result<Image, ViewerError>;

    /// The overlay status line; `frame_ms` is the smoothed render time (0 = none yet) and
    /// `fps` the presented frames per second.
    fn status(&self, frame_ms: f64, fps: f64) -> String;

    /// Paint the source's own overlays (skeleton, outlines…) over the scaled screen.
    /// Interactive runs only; never touches the rendered image.
    fn overlay(&self, canvas: &mut Canvas, layout: &Layout);

    /// Save `img` (a [`ViewSource::render`] result, or the screen read back from the window)
    /// as the PNG the matching CLI command writes.
    fn save_screenshot(&self, img: &Image, path: &Path) -> Result<(), ViewerError>;
}
