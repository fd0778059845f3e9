//! `psprender view`: an interactive window showing a GE framebuffer.
//!
//! The window shows a [`ViewSource`]: something that renders its current frame through the
//! GE, handles its keys, and reports its timeline and status. The frame is scaled by an
//! integer factor into a softbuffer window buffer, where the overlays (status text, the
//! source's own: skeleton, outlines) are painted. Overlays never touch the GE image, so F2/P
//! screenshots are the same bytes the matching CLI command writes.
//!
//! Sources: [`model::ModelSource`] draws a model the way `render` does ([`build_frame`] for
//! the current camera, options and pose, one reused [`ge::Ge`]); [`popcap::PopcapSource`]
//! plays a PopCap PAM the way `popcap --render` draws it.
//!
//! Layers, each testable without a window:
//! * [`state`]: camera control from mouse input, playback time, key toggles ([`ViewerState`]).
//! * [`draw`]: scaling the screen into the window buffer, reading it back, text and lines.
//! * [`source`], [`model`], [`popcap`]: what is shown.
//! * [`app`]: the winit event loop; only maps events and calls the layers above.
//!
//! Animation enters through [`Clip`]s: a name, a length, a rate, and a function from a
//! (fractional) frame to joint globals of PMO 0's skeleton (what [`build_frame`] takes as
//! `pose`). Without clips the bind pose is shown.
//!
//! [`build_frame`]: crate::scene::build_frame

pub mod app;
pub mod draw;
pub mod model;
pub mod popcap;
pub mod source;
pub mod state;

use crate::scene::camera::Camera;
use crate::scene::{Model, RenderOptions};
use glam::Mat4;
use std::path::PathBuf;
use thiserror::Error;

pub use source::{Playhead, ViewSource};
pub use state::{Button, Changed, ClipTiming, Input, Key, ViewerState};

/// One animation the viewer can play.
pub struct Clip {
    pub name: String,
    /// Length in frames (stepping wraps to `[0, frames)`).
    pub frames: f32,
    /// Frames per second of playback.
    pub fps: f32,
    /// The game's loop rule for playback, (frame count, loop-from, loop-to) of a PAM
    /// animation ([`crate::pam::eval::loop_frame`]); `None` wraps to `[0, frames)`.
    pub looping: Option<(u16, u16, u16)>,
    /// Joint globals of PMO 0's skeleton at a frame in `[0, frames)`.
    pub pose: Box<dyn Fn(f32) -> Vec<Mat4> + Send>,
}

impl std::fmt::Debug for Clip {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Clip").field("name", &self.name).field("frames", &self.frames).field("fps", &self.fps).finish()
    }
}

/// What to show.
#[derive(Debug)]
pub struct ViewerInput {
    pub model: Model,
    pub clips: Vec<Clip>,
    /// Animation shown first (index into `clips`) and its starting frame.
    pub start_clip: usize,
    pub start_frame: f32,
    /// Starting options (the keys change sections, list filter and wireframe from here).
    pub options: RenderOptions,
    /// Starting camera (R returns to it).
    pub camera: Camera,
    /// GE raster threads (`None`: all cores).
    pub threads: Option<usize>,
    /// The GE model drawing the frames.
    pub ge_model: ge::Model,
    /// Window title.
    pub title: String,
}

/// How the window runs.
#[derive(Debug, Clone)]
pub struct ViewerControl {
    /// Window pixels per PSP pixel at start.
    pub scale: u32,
    /// Where F2/P screenshots go (`view-NNNN.png`, first free number).
    pub screenshot_dir: PathBuf,
    /// Non-interactive run: close after this many redraws (every one renders the GE), with
    /// overlays off.
    pub exit_after_frames: Option<u32>,
    /// In a non-interactive run: save the screen as read back from the window here.
    pub screenshot: Option<PathBuf>,
}

impl Default for ViewerControl {
    fn default() -> Self {
        ViewerControl { scale: 2, screenshot_dir: PathBuf::from("."), exit_after_frames: None, screenshot: None }
    }
}

/// Frame times of a viewer run (building the list, running the GE, painting the window).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ViewerStats {
    /// GE renders done.
    pub renders: u32,
    /// Window redraws (a redraw without a scene change only repaints).
    pub redraws: u32,
    pub mean_ms: f64,
    pub max_ms: f64,
}

#[derive(Debug, Error)]
pub enum ViewerError {
    #[error("no display: set DISPLAY to an X server (or run under Xvfb)")]
    NoDisplay,
    #[error("cannot open a window: {0}")]
    EventLoop(String),
    #[error("creating the window: {0}")]
    Window(String),
    /// softbuffer's error holds a non-`Send` source, so only its message is kept.
    #[error("window pixel buffer: {0}")]
    Softbuffer(String),
    #[error("drawing the scene: {0}")]
    Scene(crate::scene::SceneError),
    #[error("drawing the animation: {0}")]
    Popcap(#[from] crate::popcap::render::RenderError),
    #[error("evaluating the animation: {0}")]
    PopcapEval(#[from] crate::popcap::PopcapError),
    #[error(transparent)]
    Output(#[from] crate::output::OutputError),
    #[error("the window ({width}x{height}) does not show the whole screen; cannot read it back")]
    ReadBack { width: u32, height: u32 },
    #[error("the window closed before {0} frames were drawn")]
    ClosedEarly(u32),
}

// Causes are kept as text in the message (each printed once); winit's own messages begin with
// the source location of the library ("os error at /path/to/winit/...: "), which is noise for
// a user and is cut off.
fn winit_message(e: &dyn std::fmt::Display) -> String {
    let s = e.to_string();
    match s.strip_prefix("os error at ") {
        Some(rest) => rest.split_once(": ").map_or(s.clone(), |(_, msg)| msg.to_string()),
        None => s,
    }
}

impl From<winit::error::EventLoopError> for ViewerError {
    fn from(e: winit::error::EventLoopError) -> Self {
        ViewerError::EventLoop(winit_message(&e))
    }
}

impl From<winit::error::OsError> for ViewerError {
    fn from(e: winit::error::OsError) -> Self {
        ViewerError::Window(winit_message(&e))
    }
}

impl From<crate::scene::SceneError> for ViewerError {
    fn from(e: crate::scene::SceneError) -> Self {
        ViewerError::Scene(e)
    }
}

impl From<softbuffer::SoftBufferError> for ViewerError {
    fn from(e: softbuffer::SoftBufferError) -> Self {
        ViewerError::Softbuffer(e.to_string())
    }
}

/// Open the model viewer's window and run until it is closed (or the non-interactive run is
/// done).
pub fn run_viewer(input: ViewerInput, control: ViewerControl) -> Result<ViewerStats, ViewerError> {
    let title = input.title.clone();
    run_source(Box::new(model::ModelSource::new(input)), title, control)
}

/// Open a window titled `title` showing `source` and run until it is closed (or the
/// non-interactive run is done).
pub fn run_source(
    source: Box<dyn ViewSource>,
    title: String,
    control: ViewerControl,
) -> Result<ViewerStats, ViewerError> {
    app::run(source, title, control)
}
