//! The winit event loop: maps window events to [`Input`]s, renders the GE when the state says
//! the scene changed (or every frame while an animation plays, paced to 60 Hz), and paints
//! the softbuffer surface. Idle, it sleeps in `ControlFlow::Wait`.
//!
//! Non-interactive runs ([`ViewerControl::exit_after_frames`]) render on every redraw, draw
//! no overlays, and after the last one read the window back with `Surface::fetch` (X11
//! GetImage): what is saved is what reached the window, not the GE image.
//!
//! Keys arrive only while the window has the X input focus: winit 0.30 drops key events until
//! it has seen an XI_FocusIn for the window (x11/event_processor.rs `xinput_key_input`). A
//! window manager gives a new window that focus; a bare X server (Xvfb without a WM) leaves it
//! at PointerRoot and the keyboard does nothing until something sets it (`xdotool windowfocus`).
//! Mouse input needs no focus.

use super::draw::{self, Canvas, Layout};
use super::source::ViewSource;
use super::state::{Button, Changed, Input, Key};
use super::{ViewerControl, ViewerError, ViewerStats};
use ge::display::Image;
use softbuffer::Surface;
use std::num::NonZeroU32;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::{Duration, Instant};
use winit::application::ApplicationHandler;
use winit::dpi::PhysicalSize;
use winit::event::{ElementState, MouseButton, MouseScrollDelta, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::keyboard::{Key as WKey, NamedKey};
use winit::window::{Window, WindowId};

/// Playback redraw period (60 Hz).
const FRAME: Duration = Duration::from_nanos(16_666_667);
/// Longest wall-clock step playback takes at once (after a stall).
const MAX_TICK: f32 = 0.25;
/// Pixel-delta wheels: this many pixels count as one notch.
const PIXELS_PER_NOTCH: f64 = 40.0;
/// Read-back attempts (the window may not be mapped yet when the last frame is presented).
const READBACK_TRIES: u32 = 40;

/// The viewer's key for a winit logical key (layout-aware: `[` is whatever key types it).
pub fn map_key(key: &WKey) -> Option<Key> {
    match key {
        WKey::Named(n) => match n {
            NamedKey::Space => Some(Key::Space),
            NamedKey::ArrowLeft => Some(Key::Left),
            NamedKey::ArrowRight => Some(Key::Right),
            NamedKey::Home => Some(Key::Home),
            NamedKey::End => Some(Key::End),
            NamedKey::PageUp => Some(Key::PageUp),
            NamedKey::PageDown => Some(Key::PageDown),
            NamedKey::F2 => Some(Key::Screenshot),
            NamedKey::Escape => Some(Key::Quit),
            _ => None,
        },
        WKey::Character(s) => {
            let mut chars = s.chars();
            let c = chars.next()?.to_ascii_lowercase();
            if chars.next().is_some() {
                return None;
            }
            match c {
                ' ' => Some(Key::Space),
                '[' => Some(Key::PrevClip),
                ']' => Some(Key::NextClip),
                '0'..='9' => Some(Key::Digit(c as u8 - b'0')),
                'a' => Some(Key::ShowAll),
                'l' => Some(Key::ListFilter),
                'w' => Some(Key::Wireframe),
                'k' => Some(Key::Skeleton),
                'p' => Some(Key::Screenshot),
                'r' => Some(Key::ResetCamera),
                'q' => Some(Key::Quit),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Keys that act again while held down (auto-repeat).
pub fn repeats(k: Key) -> bool {
    matches!(k, Key::Left | Key::Right | Key::PageUp | Key::PageDown)
}

pub fn map_button(b: MouseButton) -> Option<Button> {
    match b {
        MouseButton::Left => Some(Button::Left),
        MouseButton::Right => Some(Button::Right),
        MouseButton::Middle => Some(Button::Middle),
        _ => None,
    }
}

/// Wheel notches from a winit delta (positive: away from the user).
pub fn wheel_notches(d: MouseScrollDelta) -> f32 {
    match d {
        MouseScrollDelta::LineDelta(_, y) => y,
        MouseScrollDelta::PixelDelta(p) => (p.y / PIXELS_PER_NOTCH) as f32,
    }
}

/// First `view-NNNN.png` in `dir` that does not exist yet.
pub fn next_screenshot_path(dir: &Path) -> PathBuf {
    (1..=9999)
        .map(|n| dir.join(format!("view-{n:04}.png")))
        .find(|p| !p.exists())
        .unwrap_or_else(|| dir.join("view.png"))
}

/// Presented frames per second, counted over about one second.
#[derive(Debug, Clone, Copy)]
struct FpsCounter {
    since: Instant,
    count: u32,
    fps: f64,
}

impl FpsCounter {
    fn tick(&mut self, now: Instant) {
        self.count += 1;
        let t = now.duration_since(self.since).as_secs_f64();
        if t >= 1.0 {
            self.fps = f64::from(self.count) / t;
            self.count = 0;
            self.since = now;
        }
    }
}

struct Win {
    window: Rc<Window>,
    surface: Surface<Rc<Window>, Rc<Window>>,
}

struct App {
    source: Box<dyn ViewSource>,
    control: ViewerControl,
    title: String,
    win: Option<Win>,
    layout: Layout,
    /// Last rendered image.
    image: Option<Image>,
    pending: Changed,
    last_tick: Instant,
    last_redraw: Option<Instant>,
    fps: FpsCounter,
    frame_ms: f64,
    total_ms: f64,
    stats: ViewerStats,
    /// The last painted buffer (non-interactive runs compare the read-back with it).
    painted: Vec<u32>,
    error: Option<ViewerError>,
    done: bool,
}

pub(super) fn run(
    source: Box<dyn ViewSource>,
    title: String,
    control: ViewerControl,
) -> Result<ViewerStats, ViewerError> {
    // winit's own error for a missing display names its source file; say it plainly instead.
    let unset = |v: &str| std::env::var_os(v).is_none_or(|s| s.is_empty());
    if unset("DISPLAY") && unset("WAYLAND_DISPLAY") {
        return Err(ViewerError::NoDisplay);
    }
    let event_loop = EventLoop::new()?;
    let mut app = App::new(source, title, control);
    event_loop.run_app(&mut app)?;
    if let Some(e) = app.error.take() {
        return Err(e);
    }
    if let (Some(n), false) = (app.control.exit_after_frames, app.done) {
        return Err(ViewerError::ClosedEarly(n));
    }
    Ok(app.stats)
}

impl App {
    fn new(mut source: Box<dyn ViewSource>, title: String, control: ViewerControl) -> App {
        let scale = control.scale.clamp(1, 8);
        source.set_window_scale(scale);
        let [sw, sh] = source.screen_size();
        let now = Instant::now();
        App {
            layout: Layout::fit_screen(sw * scale, sh * scale, [sw, sh]),
            source,
            title,
            win: None,
            image: None,
            pending: Changed { scene: true, ..Changed::default() },
            last_tick: now,
            last_redraw: None,
            fps: FpsCounter { since: now, count: 0, fps: 0.0 },
            frame_ms: 0.0,
            total_ms: 0.0,
            stats: ViewerStats::default(),
            painted: Vec::new(),
            error: None,
            done: false,
            control: ViewerControl { scale, ..control },
        }
    }

    fn playing(&self) -> bool {
        self.source.playhead().is_some_and(|p| p.playing)
    }

    fn interactive(&self) -> bool {
        self.control.exit_after_frames.is_none()
    }

    fn fail(&mut self, event_loop: &ActiveEventLoop, e: ViewerError) {
        self.error.get_or_insert(e);
        self.done = true;
        event_loop.exit();
    }

    fn open(&mut self, event_loop: &ActiveEventLoop) -> Result<(), ViewerError> {
        let size = PhysicalSize::new(self.layout.width, self.layout.height);
        let attrs = Window::default_attributes().with_title(self.title.clone()).with_inner_size(size);
        let window = Rc::new(event_loop.create_window(attrs)?);
        let context = softbuffer::Context::new(window.clone())?;
        let surface = Surface::new(&context, window.clone())?;
        self.win = Some(Win { window, surface });
        let s = self.win.as_ref().map_or(size, |w| w.window.inner_size());
        self.resize(s)?;
        Ok(())
    }

    fn resize(&mut self, size: PhysicalSize<u32>) -> Result<(), ViewerError> {
        let (Some(w), Some(h)) = (NonZeroU32::new(size.width), NonZeroU32::new(size.height)) else { return Ok(()) };
        if let Some(win) = &mut self.win {
            win.surface.resize(w, h)?;
            self.layout = Layout::fit_screen(w.get(), h.get(), self.source.screen_size());
            self.source.set_window_scale(self.layout.scale);
            self.pending.overlay = true;
            win.window.request_redraw();
        }
        Ok(())
    }

    fn input(&mut self, i: Input) {
        let was_playing = self.playing();
        let c = self.source.handle(i);
        if self.playing() && !was_playing {
            self.last_tick = Instant::now();
        }
        self.pending.merge(c);
    }

    /// Render if needed, paint the window, then do what the redraw was asked for.
    fn redraw(&mut self, event_loop: &ActiveEventLoop) -> Result<(), ViewerError> {
        let now = Instant::now();
        let dt = now.duration_since(self.last_tick).as_secs_f32().min(MAX_TICK);
        self.last_tick = now;
        let tick = self.source.handle(Input::Tick(dt));
        self.pending.merge(tick);
        let start = Instant::now();
        let rerender = self.pending.scene || self.image.is_none() || !self.interactive();
        if rerender {
            self.image = Some(self.source.render()?);
            self.stats.renders += 1;
            // The status line shows the render time (list + GE) and is painted just below:
            // measured before painting, so even the first frame (and a paused view that paints
            // nothing more) shows its own time, never a placeholder.
            let ms = start.elapsed().as_secs_f64() * 1e3;
            self.frame_ms = if self.stats.renders <= 1 { ms } else { 0.8 * self.frame_ms + 0.2 * ms };
        }
        self.paint()?;
        let ms = start.elapsed().as_secs_f64() * 1e3;
        if rerender {
            self.total_ms += ms;
            self.stats.mean_ms = self.total_ms / f64::from(self.stats.renders.max(1));
            self.stats.max_ms = self.stats.max_ms.max(ms);
        }
        self.stats.redraws += 1;
        self.fps.tick(Instant::now());
        self.last_redraw = Some(now);
        let screenshot = std::mem::take(&mut self.pending).screenshot;
        if screenshot {
            self.save_screenshot()?;
        }
        if let Some(n) = self.control.exit_after_frames {
            if self.stats.redraws >= n {
                self.finish_non_interactive()?;
                self.done = true;
                event_loop.exit();
            }
        }
        Ok(())
    }

    fn paint(&mut self) -> Result<(), ViewerError> {
        let interactive = self.interactive();
        let layout = self.layout;
        let status = self.source.status(self.frame_ms, self.fps.fps);
        let (Some(win), Some(img)) = (&mut self.win, &self.image) else { return Ok(()) };
        let mut buf = win.surface.buffer_mut()?;
        if buf.len() != layout.width as usize * layout.height as usize {
            // The surface is being resized; the Resized event repaints.
            return Ok(());
        }
        let mut c = Canvas { px: &mut buf[..], width: layout.width, height: layout.height };
        draw::blit(img, &layout, &mut c);
        if interactive {
            self.source.overlay(&mut c, &layout);
            c.text(6, 6, &status, draw::rgb(255, 255, 255), draw::rgb(0, 0, 0));
        } else {
            self.painted.clear();
            self.painted.extend_from_slice(&buf);
        }
        buf.present()?;
        Ok(())
    }

    fn save_screenshot(&self) -> Result<(), ViewerError> {
        let Some(img) = &self.image else { return Ok(()) };
        let path = next_screenshot_path(&self.control.screenshot_dir);
        self.source.save_screenshot(img, &path)?;
        println!("saved {}", path.display());
        Ok(())
    }

    /// Read the window back (retrying until it shows the last painted frame: the window may
    /// not be mapped yet) and save the screen it holds.
    fn finish_non_interactive(&mut self) -> Result<(), ViewerError> {
        let Some(path) = self.control.screenshot.clone() else { return Ok(()) };
        let layout = self.layout;
        let Some(win) = &mut self.win else { return Err(ViewerError::ClosedEarly(self.stats.redraws)) };
        let mut last: Option<Result<Vec<u32>, softbuffer::SoftBufferError>> = None;
        for attempt in 0..READBACK_TRIES {
            if attempt > 0 {
                std::thread::sleep(Duration::from_millis(50));
                let mut buf = win.surface.buffer_mut()?;
                if buf.len() == self.painted.len() {
                    buf.copy_from_slice(&self.painted);
                }
                buf.present()?;
            }
            let got = win.surface.fetch();
            let same = matches!(&got, Ok(px) if px.len() == self.painted.len()
                && px.iter().zip(&self.painted).all(|(a, b)| a & 0xFF_FFFF == b & 0xFF_FFFF));
            last = Some(got);
            if same {
                break;
            }
            tracing::debug!(attempt, "window read-back differs from the painted frame; retrying");
        }
        let px = match last {
            Some(r) => r?,
            None => return Err(ViewerError::ClosedEarly(self.stats.redraws)),
        };
        let img = draw::screen_from_window(&px, &layout)
            .ok_or(ViewerError::ReadBack { width: layout.width, height: layout.height })?;
        self.source.save_screenshot(&img, &path)
    }
}

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.win.is_none() && !self.done {
            if let Err(e) = self.open(event_loop) {
                self.fail(event_loop, e);
            }
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        if self.done {
            return;
        }
        match event {
            WindowEvent::CloseRequested => {
                self.done = self.interactive();
                event_loop.exit();
            }
            WindowEvent::Resized(size) => {
                if let Err(e) = self.resize(size) {
                    self.fail(event_loop, e);
                }
            }
            WindowEvent::KeyboardInput { event, .. } if event.state == ElementState::Pressed => {
                if let Some(k) = map_key(&event.logical_key) {
                    if !event.repeat || repeats(k) {
                        self.input(Input::Key(k));
                    }
                }
            }
            WindowEvent::MouseInput { state, button, .. } => {
                if let Some(b) = map_button(button) {
                    self.input(match state {
                        ElementState::Pressed => Input::Press(b),
                        ElementState::Released => Input::Release(b),
                    });
                }
            }
            WindowEvent::CursorMoved { position, .. } => self.input(Input::Cursor(position.x, position.y)),
            WindowEvent::MouseWheel { delta, .. } => self.input(Input::Wheel(wheel_notches(delta))),
            WindowEvent::Focused(false) => self.input(Input::FocusLost),
            WindowEvent::RedrawRequested => {
                if let Err(e) = self.redraw(event_loop) {
                    self.fail(event_loop, e);
                }
            }
            _ => {}
        }
        if self.pending.quit {
            self.done = self.interactive();
            event_loop.exit();
        }
    }

    fn about_to_wait(&mut self, event_loop: &ActiveEventLoop) {
        let Some(win) = &self.win else { return };
        if self.done {
            return;
        }
        let now = Instant::now();
        if !self.interactive() || self.pending.any() {
            win.window.request_redraw();
            event_loop.set_control_flow(ControlFlow::Wait);
        } else if self.playing() {
            let next = self.last_redraw.map_or(now, |t| t + FRAME);
            if now >= next {
                win.window.request_redraw();
                event_loop.set_control_flow(ControlFlow::Wait);
            } else {
                event_loop.set_control_flow(ControlFlow::WaitUntil(next));
            }
        } else {
            event_loop.set_control_flow(ControlFlow::Wait);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_map() {
        let ch = |s: &str| map_key(&WKey::Character(s.into()));
        assert_eq!(map_key(&WKey::Named(NamedKey::Space)), Some(Key::Space));
        assert_eq!(map_key(&WKey::Named(NamedKey::ArrowLeft)), Some(Key::Left));
        assert_eq!(map_key(&WKey::Named(NamedKey::PageDown)), Some(Key::PageDown));
        assert_eq!(map_key(&WKey::Named(NamedKey::F2)), Some(Key::Screenshot));
        assert_eq!(map_key(&WKey::Named(NamedKey::Escape)), Some(Key::Quit));
        assert_eq!(map_key(&WKey::Named(NamedKey::F3)), None);
        assert_eq!(ch("["), Some(Key::PrevClip));
        assert_eq!(ch("]"), Some(Key::NextClip));
        assert_eq!(ch("0"), Some(Key::Digit(0)));
        assert_eq!(ch("7"), Some(Key::Digit(7)));
        assert_eq!(ch("W"), Some(Key::Wireframe));
        assert_eq!(ch("k"), Some(Key::Skeleton));
        assert_eq!(ch("l"), Some(Key::ListFilter));
        assert_eq!(ch("P"), Some(Key::Screenshot));
        assert_eq!(ch("q"), Some(Key::Quit));
        assert_eq!(ch("r"), Some(Key::ResetCamera));
        assert_eq!(ch("a"), Some(Key::ShowAll));
        assert_eq!(ch("ab"), None);
        assert_eq!(ch("é"), None);
        assert!(repeats(Key::Right) && !repeats(Key::Wireframe));
    }

    #[test]
    fn wheel_and_buttons() {
        assert_eq!(wheel_notches(MouseScrollDelta::LineDelta(0.0, -2.0)), -2.0);
        let p = winit::dpi::PhysicalPosition::new(0.0, 80.0);
        assert_eq!(wheel_notches(MouseScrollDelta::PixelDelta(p)), 2.0);
        assert_eq!(map_button(MouseButton::Middle), Some(Button::Middle));
        assert_eq!(map_button(MouseButton::Back), None);
    }

    #[test]
    fn screenshot_names_count_up() {
        let dir = std::env::temp_dir().join(format!("psprender-view-names-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        assert_eq!(next_screenshot_path(&dir), dir.join("view-0001.png"));
        std::fs::write(dir.join("view-0001.png"), b"x").unwrap();
        assert_eq!(next_screenshot_path(&dir), dir.join("view-0002.png"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
