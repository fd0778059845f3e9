//! A frame dump as a [`ViewSource`]: `psprender view DUMP` steps through it draw by draw
//! (Left/Right one draw, PageUp/PageDown ten, Home/End first/last) and shows the colour,
//! depth or stencil buffer, the bound texture or the CLUT (keys 1-5, `[`/`]` cycle) as the GE
//! holds them after the current draw, with that draw's command and changed registers in the
//! status area.
//!
//! Each step replays the dump from the start to the draw ([`crate::debugger::pause_at`]):
//! 2–240 ms on the shared real-game dumps, short of a keyboard's repeat rate; switching the
//! buffer shown reuses the last replay. What is shown is the picture `replay --until-draw N
//! --buffers` writes (placed top left on a black 480×272 screen, small textures enlarged by
//! an integer factor), so an F2/P screenshot equals that file for the colour buffer.

use super::draw::{Canvas, Layout};
use super::source::{Playhead, ViewSource};
use super::state::{step_frames, Changed, Input, Key};
use super::ViewerError;
use crate::debugger::{capture, pause_at, state, DebugError};
use ge::display::{Image, SCREEN_H, SCREEN_W};
use ge::dump::{Dump, StopAt};
use std::path::Path;

/// The pictures a draw can show, in key order (1-5).
pub const VIEWS: [&str; 5] = ["colour", "depth", "stencil", "texture", "clut"];

/// What one replay to a draw gives.
struct Shown {
    draw: u32,
    command: String,
    changes: Vec<String>,
    buffers: capture::Buffers,
}

pub struct DumpSource {
    dump: Dump,
    model: ge::Model,
    /// Draws in the dump (from its REGISTERS words).
    pub draws: u32,
    /// Current draw (1..=draws) and picture (index into [`VIEWS`]).
    pub draw: u32,
    pub view: usize,
    shown: Option<Shown>,
}

impl DumpSource {
    /// Show `dump` starting at `draw` (clamped into the dump's draws).
    pub fn new(dump: Dump, model: ge::Model, draw: u32) -> DumpSource {
        let draws = crate::debugger::report::count_draws(&dump);
        DumpSource { dump, model, draws, draw: draw.clamp(1, draws.max(1)), view: 0, shown: None }
    }

    fn step(&mut self, by: i64) -> Changed {
        let n = (i64::from(self.draw) + by).clamp(1, i64::from(self.draws.max(1))) as u32;
        self.go(n)
    }

    fn go(&mut self, n: u32) -> Changed {
        if n == self.draw {
            return Changed::NONE;
        }
        self.draw = n;
        Changed::SCENE
    }

    fn key(&mut self, k: Key) -> Changed {
        if let Some(d) = step_frames(k) {
            return self.step(i64::from(d));
        }
        match k {
            Key::Home => self.go(1),
            Key::End => self.go(self.draws.max(1)),
            Key::Digit(d @ 1..=5) => self.pick(usize::from(d) - 1),
            Key::NextClip => self.pick((self.view + 1) % VIEWS.len()),
            Key::PrevClip => self.pick((self.view + VIEWS.len() - 1) % VIEWS.len()),
            Key::Screenshot => Changed { screenshot: true, ..Changed::NONE },
            Key::Quit => Changed { quit: true, ..Changed::NONE },
            _ => Changed::NONE,
        }
    }

    fn pick(&mut self, v: usize) -> Changed {
        if v == self.view {
            return Changed::NONE;
        }
        self.view = v;
        Changed::SCENE
    }

    /// Replay to the current draw unless the last replay stopped there.
    fn ensure(&mut self) -> Result<&Shown, DebugError> {
        if self.shown.as_ref().is_none_or(|s| s.draw != self.draw) {
            let p = pause_at(&self.dump, self.model, StopAt::Draw(self.draw))?;
            let ch = state::changes(p.prev.as_ref().unwrap_or(&ge::state::GeState::default()), &p.ge.state);
            let changes = ch["registers"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|r| r["name"].as_str())
                .filter(|n| !matches!(*n, "PRIM" | "BEZIER" | "SPLINE"))
                .map(str::to_string)
                .chain(
                    ch["matrices"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|m| m.as_str())
                        .map(|m| format!("{m} matrix")),
                )
                .collect();
            self.shown = Some(Shown {
                draw: self.draw,
                command: ge::cmd::disassemble(p.step.word),
                changes,
                buffers: capture::buffers(&p.ge),
            });
        }
        Ok(self.shown.as_ref().expect("set above"))
    }

    /// The picture of the current view, if the draw has one (no texture when texturing is off).
    pub fn picture(&mut self) -> Result<Option<Image>, DebugError> {
        let view = self.view;
        let b = &self.ensure()?.buffers;
        Ok(match view {
            0 => Some(b.colour.clone()),
            1 => Some(b.depth.clone()),
            2 => Some(b.stencil.clone()),
            3 => b.texture.clone(),
            _ => b.clut.clone(),
        })
    }
}

/// `img` top left on a black screen, enlarged by the largest integer factor that fits.
fn on_screen(img: &Image) -> Image {
    let mut out = Image::black(SCREEN_W, SCREEN_H);
    let k = (SCREEN_W / img.width.max(1)).min(SCREEN_H / img.height.max(1)).max(1);
    for y in 0..(img.height * k).min(SCREEN_H) {
        for x in 0..(img.width * k).min(SCREEN_W) {
            out.put(x, y, img.get(x / k, y / k));
        }
    }
    out
}

impl ViewSource for DumpSource {
    fn screen_size(&self) -> [u32; 2] {
        [SCREEN_W, SCREEN_H]
    }

    fn handle(&mut self, input: Input) -> Changed {
        match input {
            Input::Key(k) => self.key(k),
            _ => Changed::NONE,
        }
    }

    fn playhead(&self) -> Option<Playhead> {
        None
    }

    fn render(&mut self) -> Result<Image, ViewerError> {
        let pic = self.picture().map_err(|e| ViewerError::Dump(e.to_string()))?;
        Ok(pic.map_or_else(|| Image::black(SCREEN_W, SCREEN_H), |p| on_screen(&p)))
    }

    fn status(&self, frame_ms: f64, _fps: f64) -> String {
        let mut s = format!("draw {}/{} {}", self.draw, self.draws, VIEWS[self.view]);
        if let Some(sh) = self.shown.as_ref().filter(|s| s.draw == self.draw) {
            s += &format!(" | {}", sh.command);
            if self.view >= 3 && sh.buffers.texture.is_none() {
                s += " | texturing off";
            }
            s += &format!(" | changed: {}", if sh.changes.is_empty() { "-".to_string() } else { sh.changes.join(" ") });
        }
        if frame_ms > 0.0 {
            s += &format!(" | {frame_ms:.0} ms");
        }
        s
    }

    fn overlay(&self, _canvas: &mut Canvas, _layout: &Layout) {}

    fn save_screenshot(&self, img: &Image, path: &Path) -> Result<(), ViewerError> {
        Ok(crate::output::save_png(img, path)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ge::list::ListBuilder;

    /// A recorded dump of a clear and two rectangles.
    fn dump() -> Dump {
        let mut l = ListBuilder::new();
        l.standard_setup(3);
        l.clear(0x0040_2010, 0);
        l.clear(0x0010_2040, 0);
        l.clear(0x0000_FF00, 0);
        l.finish();
        let mut g = ge::Ge::new();
        g.start_recording();
        l.run(&mut g).unwrap();
        g.finish_recording(ge::display::DisplayBuffer::power_on()).unwrap()
    }

    #[test]
    fn keys_step_draws_and_pick_views() {
        let mut s = DumpSource::new(dump(), ge::Model::Hardware, 1);
        assert_eq!(s.draws, 3);
        assert_eq!(s.handle(Input::Key(Key::Left)), Changed::NONE, "no draw before the first");
        assert!(s.handle(Input::Key(Key::Right)).scene);
        assert_eq!(s.draw, 2);
        assert!(s.handle(Input::Key(Key::PageDown)).scene);
        assert_eq!(s.draw, 3, "clamped to the last draw");
        assert!(s.handle(Input::Key(Key::Home)).scene);
        assert_eq!(s.draw, 1);
        assert!(s.handle(Input::Key(Key::Digit(2))).scene);
        assert_eq!(VIEWS[s.view], "depth");
        s.handle(Input::Key(Key::PrevClip));
        s.handle(Input::Key(Key::PrevClip));
        assert_eq!(VIEWS[s.view], "clut", "cycling wraps");
        assert!(s.handle(Input::Key(Key::Screenshot)).screenshot);
        assert!(s.handle(Input::Key(Key::Quit)).quit);
    }

    #[test]
    fn each_draw_shows_its_own_clear_colour() {
        let mut s = DumpSource::new(dump(), ge::Model::Hardware, 1);
        // Clear colours are ABGR words: 0x00402010 is r=0x10 g=0x20 b=0x40.
        for (n, rgb) in [(1, [0x10, 0x20, 0x40]), (2, [0x40, 0x20, 0x10]), (3, [0x00, 0xFF, 0x00])] {
            s.go(n);
            let img = s.render().unwrap();
            assert_eq!(img.get(100, 100), [rgb[0], rgb[1], rgb[2], 255], "draw {n}");
            assert!(s.status(0.0, 0.0).starts_with(&format!("draw {n}/3 colour | PRIM RECTANGLES count=2")));
        }
        s.pick(3);
        assert_eq!(s.render().unwrap().get(0, 0), [0, 0, 0, 255], "no texture: black");
        assert!(s.status(0.0, 0.0).contains("texturing off"));
    }
}
