//! A PopCap PAM as a [`ViewSource`]: the animation played through one [`Renderer`] (textures
//! uploaded once), drawn exactly as `popcap --render` draws the same frame.
//!
//! Clips: clip 0 ("all") is the whole main timeline scrubbed from frame 0 as `--frame N`
//! shows it (STOP ignored, children timed from their append); then one clip per label,
//! played as the game does from the label to the next STOP (`--label NAME`). A clip position
//! of `k` frames is the player after `k` ticks from the clip's start; moving forward ticks
//! the cached player on, moving back replays from the start (at most the clip's length).
//! Playback wraps to the clip's start after its last frame (the game would stay on the STOP).
//!
//! Keys ([`PopcapState::handle`]): Space play/pause, Left/Right a frame, PageUp/PageDown 10,
//! Home/End, `[`/`]` clip, digits 1-9, 0 toggle the main sprite's layers of the current page
//! (the k-th distinct layer index of the main sprite; L moves to the next page of ten), A
//! shows every layer, K outlines each draw's image quad. The mouse does nothing.

use super::draw::{Canvas, Layout};
use super::source::{Playhead, ViewSource};
use super::state::{last_frame, step_frames, stepped, timing_text, wrap_frame, Changed, Input, Key};
use super::ViewerError;
use crate::popcap::eval::Mode;
use crate::popcap::render::{ImageSet, RenderOptions, Renderer};
use crate::popcap::{Draw, Player, PopcapError, Timeline};
use ge::display::Image;
use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

/// Layers per page of the digit keys.
pub const LAYER_PAGE: usize = 10;
/// Colour of the K outlines.
pub const OUTLINE_COLOUR: u32 = 0x0040_E0FF;

/// One playable stretch of the main timeline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PamClip {
    pub name: String,
    /// Main-timeline frame of its first frame.
    pub start: u32,
    /// Length in frames (at least 1).
    pub frames: u32,
    pub mode: Mode,
}

/// Clip 0 ("all", scrubbed) and one clip per label (label to the next STOP, played).
pub fn clips(tl: &Timeline) -> Result<Vec<PamClip>, PopcapError> {
    let main = tl.anim.main()?;
    let count = main.frames.len() as u32;
    if count == 0 {
        return Err(PopcapError::Eval { what: "the main sprite has no frames".into() });
    }
    let mut out = vec![PamClip { name: "all".into(), start: 0, frames: count, mode: Mode::Scrub }];
    for (start, name) in main.labels() {
        // The label's own frame, not the first of that name: duplicate labels stay distinct.
        let end = (start..count).find(|&i| main.frames[i as usize].stop).unwrap_or(count - 1);
        out.push(PamClip { name, start, frames: end - start + 1, mode: Mode::Play });
    }
    Ok(out)
}

/// Layer indices appended anywhere in the main sprite, ascending: what the digit keys toggle.
pub fn main_layers(tl: &Timeline) -> Vec<u32> {
    let Ok(main) = tl.anim.main() else { return Vec::new() };
    let set: BTreeSet<u32> = main.frames.iter().flat_map(|f| f.appends.iter().flatten().map(|a| a.layer)).collect();
    set.into_iter().collect()
}

/// Playback position and toggles, without a window or a GE.
#[derive(Debug, Clone)]
pub struct PopcapState {
    pub clips: Vec<PamClip>,
    pub clip: usize,
    /// Frames since the clip's start (fractional while playing).
    pub time: f64,
    pub playing: bool,
    /// Main-timeline frames per second.
    pub fps: f64,
    pub layers: Vec<u32>,
    /// Page of the digit keys (layers `page·10 ..`).
    pub page: usize,
    pub hidden: BTreeSet<u32>,
    pub outlines: bool,
}

impl PopcapState {
    pub fn new(tl: &Timeline) -> Result<PopcapState, PopcapError> {
        let fps = tl.anim.main()?.fps(tl.anim.frame_rate);
        Ok(PopcapState {
            clips: clips(tl)?,
            clip: 0,
            time: 0.0,
            playing: false,
            // guess: a rate of 0 (never seen) plays at the PAM default of 30.
            fps: if fps.is_finite() && fps > 0.0 { fps } else { 30.0 },
            layers: main_layers(tl),
            page: 0,
            hidden: BTreeSet::new(),
            outlines: false,
        })
    }

    pub fn current(&self) -> &PamClip {
        &self.clips[self.clip]
    }

    /// Whole frames since the clip's start.
    pub fn tick(&self) -> u32 {
        (self.time.floor().max(0.0) as u32).min(self.current().frames - 1)
    }

    /// Start at the clip of label `label` (case-insensitive), or clip 0 at `frame`.
    pub fn start(&mut self, label: Option<&str>, frame: u32) -> Result<(), String> {
        match label {
            Some(l) => {
                let Some(i) = self.clips.iter().skip(1).position(|c| c.name.eq_ignore_ascii_case(l)) else {
                    let known: Vec<&str> = self.clips[1..].iter().map(|c| c.name.as_str()).collect();
                    return Err(format!("no label {l:?} (labels: {})", known.join(", ")));
                };
                self.clip = i + 1;
                self.time = 0.0;
            }
            None => {
                let n = self.clips[0].frames;
                if frame >= n {
                    return Err(format!("frame {frame} is past the main sprite's {n} frames"));
                }
                self.clip = 0;
                self.time = f64::from(frame);
            }
        }
        self.playing = false;
        Ok(())
    }

    pub fn handle(&mut self, input: Input) -> Changed {
        match input {
            Input::Key(k) => self.key(k),
            Input::Tick(dt) if self.playing && dt.is_finite() && dt > 0.0 => {
                let before = self.tick();
                let t = self.time + f64::from(dt) * self.fps;
                self.time = f64::from(wrap_frame(t as f32, self.current().frames as f32));
                if self.tick() != before {
                    Changed::SCENE
                } else {
                    Changed::NONE
                }
            }
            _ => Changed::NONE,
        }
    }

    fn key(&mut self, k: Key) -> Changed {
        if let Some(n) = step_frames(k) {
            self.playing = false;
            self.time = f64::from(stepped(self.time as f32, n, self.current().frames as f32));
            return Changed::SCENE;
        }
        match k {
            Key::Space => {
                self.playing = !self.playing;
                Changed::OVERLAY
            }
            Key::Left | Key::Right | Key::PageUp | Key::PageDown => Changed::NONE,
            Key::Home | Key::End => {
                self.playing = false;
                self.time = if k == Key::Home { 0.0 } else { f64::from(last_frame(self.current().frames as f32)) };
                Changed::SCENE
            }
            Key::PrevClip | Key::NextClip => {
                let n = self.clips.len();
                self.clip = if k == Key::NextClip { (self.clip + 1) % n } else { (self.clip + n - 1) % n };
                self.time = 0.0;
                Changed::SCENE
            }
            Key::Digit(d) => {
                let n = if d == 0 { 9 } else { usize::from(d) - 1 };
                let Some(&layer) = self.layers.get(self.page * LAYER_PAGE + n).filter(|_| d <= 9) else {
                    return Changed::NONE;
                };
                if !self.hidden.remove(&layer) {
                    self.hidden.insert(layer);
                }
                Changed::SCENE
            }
            Key::ShowAll => {
                if self.hidden.is_empty() {
                    return Changed::NONE;
                }
                self.hidden.clear();
                Changed::SCENE
            }
            Key::ListFilter => {
                let pages = self.layers.len().div_ceil(LAYER_PAGE).max(1);
                self.page = (self.page + 1) % pages;
                Changed::OVERLAY
            }
            Key::Skeleton => {
                self.outlines = !self.outlines;
                Changed::OVERLAY
            }
            Key::Screenshot => Changed { screenshot: true, ..Changed::NONE },
            Key::Quit => Changed { quit: true, ..Changed::NONE },
            Key::Wireframe | Key::ResetCamera => Changed::NONE,
        }
    }

    /// The status line after the timing part.
    pub fn status(&self, main_frame: u32) -> String {
        let c = self.current();
        let mut s = format!(
            " | {} {}/{} f{}/{}{} | frame {main_frame}",
            c.name,
            self.clip + 1,
            self.clips.len(),
            self.tick(),
            c.frames,
            if self.playing { "" } else { " paused" }
        );
        if self.layers.len() > LAYER_PAGE {
            let first = self.page * LAYER_PAGE;
            let last = (first + LAYER_PAGE).min(self.layers.len()) - 1;
            s += &format!(" | keys: layers {}-{}", self.layers[first], self.layers[last]);
        }
        if !self.hidden.is_empty() {
            let v: Vec<String> = self.hidden.iter().map(u32::to_string).collect();
            s += &format!(" | hidden {}", v.join(","));
        }
        if self.outlines {
            s += " | outlines";
        }
        s
    }
}

/// What the PopCap viewer shows.
pub struct PopcapSource {
    pub state: PopcapState,
    timeline: Arc<Timeline>,
    renderer: Renderer,
    /// Image quad sizes (the outlines).
    quads: Vec<[u32; 2]>,
    /// The cached player and the (clip, tick) it stands at.
    player: Option<(Player, usize, u32)>,
    /// The last frame's draw list.
    draws: Vec<Draw>,
}

impl PopcapSource {
    /// The source for `timeline` with its textures uploaded, starting where `state` says.
    pub fn new(
        timeline: Arc<Timeline>,
        state: PopcapState,
        set: &ImageSet,
        opts: RenderOptions,
    ) -> Result<PopcapSource, ViewerError> {
        let renderer = Renderer::new(set, opts)?;
        let quads = set.textures.iter().map(|t| t.quad).collect();
        Ok(PopcapSource { state, timeline, renderer, quads, player: None, draws: Vec::new() })
    }

    /// The player at the state's clip and tick (ticking the cached one on when possible).
    fn player(&mut self) -> Result<&Player, PopcapError> {
        let (clip, tick) = (self.state.clip, self.state.tick());
        let reuse = matches!(&self.player, Some((_, c, t)) if *c == clip && *t <= tick);
        if !reuse {
            let c = self.state.current();
            let p = Player::new(Arc::clone(&self.timeline), c.mode, c.start)?;
            self.player = Some((p, clip, 0));
        }
        let (p, _, t) = self.player.as_mut().expect("set above");
        while *t < tick {
            p.tick();
            *t += 1;
        }
        Ok(p)
    }

    /// The draw list of the current frame without the hidden layers.
    pub fn draw_list(&mut self) -> Result<Vec<Draw>, PopcapError> {
        let hidden = self.state.hidden.clone();
        Ok(self.player()?.draw_list_hiding(|l| hidden.contains(&l)))
    }

    /// Main-timeline frame shown.
    pub fn main_frame(&self) -> u32 {
        self.player.as_ref().map_or(0, |(p, ..)| p.frame())
    }
}

impl ViewSource for PopcapSource {
    fn screen_size(&self) -> [u32; 2] {
        self.renderer.options().size
    }

    fn handle(&mut self, input: Input) -> Changed {
        self.state.handle(input)
    }

    fn playhead(&self) -> Option<Playhead> {
        let c = self.state.current();
        Some(Playhead {
            clip: c.name.clone(),
            clip_index: self.state.clip,
            clips: self.state.clips.len(),
            frame: self.state.time as f32,
            frames: c.frames as f32,
            fps: self.state.fps as f32,
            playing: self.state.playing,
        })
    }

    fn render(&mut self) -> Result<Image, ViewerError> {
        self.draws = self.draw_list()?;
        Ok(self.renderer.render(&self.draws)?)
    }

    fn status(&self, frame_ms: f64, fps: f64) -> String {
        timing_text(frame_ms, fps, self.state.playing) + &self.state.status(self.main_frame())
    }

    fn overlay(&self, canvas: &mut Canvas, layout: &Layout) {
        if !self.state.outlines {
            return;
        }
        let k = self.renderer.options().scale;
        for d in &self.draws {
            let Some(&quad) = self.quads.get(d.image) else { continue };
            let p = d.quad(quad).map(|[x, y]| layout.to_window(((x * k) as f32, (y * k) as f32)));
            for (a, b) in [(0, 1), (1, 3), (3, 2), (2, 0)] {
                canvas.line(p[a], p[b], OUTLINE_COLOUR);
            }
        }
    }

    /// The canvas as PNG: the bytes `popcap --render` writes.
    fn save_screenshot(&self, img: &Image, path: &Path) -> Result<(), ViewerError> {
        let bytes = crate::popcap::encode::png_bytes(img)
            .map_err(|e| crate::output::OutputError::Encode { path: path.to_path_buf(), cause: e.to_string() })?;
        Ok(crate::output::write(path, &bytes)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::popcap::synth::{anim, append, frame, image, mv, sprite};
    use crate::popcap::{Animation, Name};

    /// Version 6, 40×30 canvas, 30 fps, main sprite of 6 frames: labels "Intro"@0 and "loop"@3,
    /// STOP on 2 and 5; layers 0, 3 and 7 (image 0, 4×4) appended on frame 0 at x = 2, 12, 22,
    /// each moving down 2 px per frame (y = 2·frame).
    fn labelled() -> Animation {
        let v = 6;
        let frames = (0..6)
            .map(|f| {
                let y = 2.0 * f64::from(f);
                let appends =
                    if f == 0 { vec![append(0, 0, false), append(3, 0, false), append(7, 0, false)] } else { vec![] };
                let mut fr = frame(appends, vec![mv(0, 2.0, y), mv(3, 12.0, y), mv(7, 22.0, y)]);
                fr.label = match f {
                    0 => Some(Name::new("Intro")),
                    3 => Some(Name::new("loop")),
                    _ => None,
                };
                fr.stop = f == 2 || f == 5;
                fr
            })
            .collect();
        let mut a = anim(v, vec![image("dot_4x4", 4, 4, v)], vec![], sprite(v, "main", frames));
        a.size = [40 * 20, 30 * 20];
        a
    }

    fn timeline() -> Arc<Timeline> {
        Arc::new(Timeline::new(&labelled()).unwrap())
    }

    fn source(opts: impl FnOnce(&mut RenderOptions)) -> PopcapSource {
        let tl = timeline();
        let set = ImageSet::placeholders(&tl.anim).unwrap();
        let mut o = RenderOptions { threads: 1, ..RenderOptions::for_animation(&tl.anim) };
        opts(&mut o);
        PopcapSource::new(Arc::clone(&tl), PopcapState::new(&tl).unwrap(), &set, o).unwrap()
    }

    /// Top-level layers of a draw list.
    fn top_layers(d: &[Draw]) -> Vec<u32> {
        d.iter().map(|d| d.path[0].layer).collect()
    }

    /// y of each draw (the layers move down 2 px per main frame).
    fn ys(d: &[Draw]) -> Vec<f64> {
        d.iter().map(|d| d.matrix.0[5]).collect()
    }

    #[test]
    fn clips_are_the_timeline_then_each_label_to_its_stop() {
        let tl = timeline();
        let c = clips(&tl).unwrap();
        let want = [("all", 0, 6, Mode::Scrub), ("Intro", 0, 3, Mode::Play), ("loop", 3, 3, Mode::Play)];
        assert_eq!(c.len(), 3);
        for (got, (name, start, frames, mode)) in c.iter().zip(want) {
            assert_eq!((got.name.as_str(), got.start, got.frames, got.mode), (name, start, frames, mode));
        }
        assert_eq!(main_layers(&tl), vec![0, 3, 7]);
    }

    #[test]
    fn start_positions() {
        let tl = timeline();
        let mut s = PopcapState::new(&tl).unwrap();
        assert_eq!(s.fps, 30.0);
        s.start(Some("LOOP"), 0).unwrap();
        assert_eq!((s.clip, s.tick()), (2, 0));
        s.start(None, 4).unwrap();
        assert_eq!((s.clip, s.tick()), (0, 4));
        let e = s.start(Some("nope"), 0).unwrap_err();
        assert!(e.contains("\"nope\"") && e.contains("Intro, loop"), "{e}");
        assert!(s.start(None, 6).unwrap_err().contains("past the main sprite's 6 frames"));
    }

    #[test]
    fn stepping_and_playback() {
        let tl = timeline();
        let mut s = PopcapState::new(&tl).unwrap();
        assert_eq!(s.handle(Input::Key(Key::Right)), Changed::SCENE);
        assert_eq!(s.tick(), 1);
        s.handle(Input::Key(Key::Left));
        s.handle(Input::Key(Key::Left));
        assert_eq!(s.tick(), 5, "stepping back from 0 wraps to the last frame");
        s.handle(Input::Key(Key::Home));
        s.handle(Input::Key(Key::PageDown));
        assert_eq!(s.tick(), 4, "10 frames on from 0 in a clip of 6");
        s.handle(Input::Key(Key::End));
        assert_eq!(s.tick(), 5);
        // 30 fps at 60 Hz: every second tick enters a new frame.
        s.handle(Input::Key(Key::Home));
        assert_eq!(s.handle(Input::Tick(1.0 / 60.0)), Changed::NONE, "paused: time stands");
        assert_eq!(s.handle(Input::Key(Key::Space)), Changed::OVERLAY);
        assert_eq!(s.handle(Input::Tick(1.0 / 60.0)), Changed::NONE);
        assert_eq!(s.tick(), 0);
        assert_eq!(s.handle(Input::Tick(1.0 / 60.0)), Changed::SCENE);
        assert_eq!(s.tick(), 1);
        // Past the clip's end playback starts the clip again.
        s.handle(Input::Tick(0.2));
        assert_eq!(s.tick(), 1, "1 + 6 frames wraps to 1");
        // ] switches to the next clip at its start, still playing; [ wraps backwards.
        assert_eq!(s.handle(Input::Key(Key::NextClip)), Changed::SCENE);
        assert_eq!((s.clip, s.tick(), s.playing), (1, 0, true));
        s.handle(Input::Key(Key::PrevClip));
        s.handle(Input::Key(Key::PrevClip));
        assert_eq!(s.clip, 2);
        // A step pauses.
        s.handle(Input::Key(Key::Right));
        assert!(!s.playing);
        // Keys without meaning here change nothing.
        for k in [Key::Wireframe, Key::ResetCamera] {
            assert_eq!(s.handle(Input::Key(k)), Changed::NONE);
        }
        assert_eq!(s.handle(Input::Wheel(1.0)), Changed::NONE);
        assert!(s.handle(Input::Key(Key::Quit)).quit);
        assert!(s.handle(Input::Key(Key::Screenshot)).screenshot);
    }

    #[test]
    fn digits_toggle_main_layers_by_page() {
        let tl = timeline();
        let mut s = PopcapState::new(&tl).unwrap();
        assert_eq!(s.handle(Input::Key(Key::Digit(2))), Changed::SCENE);
        assert_eq!(s.hidden.iter().copied().collect::<Vec<_>>(), vec![3], "digit 2 is the second layer, index 3");
        assert_eq!(s.handle(Input::Key(Key::Digit(4))), Changed::NONE, "only three layers");
        s.handle(Input::Key(Key::Digit(3)));
        assert!(s.status(0).contains("| hidden 3,7"), "{}", s.status(0));
        s.handle(Input::Key(Key::Digit(2)));
        assert_eq!(s.hidden.iter().copied().collect::<Vec<_>>(), vec![7]);
        assert_eq!(s.handle(Input::Key(Key::ShowAll)), Changed::SCENE);
        assert!(s.hidden.is_empty());
        // One page: L stays on it.
        s.handle(Input::Key(Key::ListFilter));
        assert_eq!(s.page, 0);
        // 23 layers: pages 0-9, 10-19, 20-22; digit 1 on page 2 is layer 20, 0 there is none.
        s.layers = (0..23).collect();
        s.handle(Input::Key(Key::ListFilter));
        s.handle(Input::Key(Key::ListFilter));
        assert_eq!(s.page, 2);
        assert!(s.status(0).contains("keys: layers 20-22"), "{}", s.status(0));
        s.handle(Input::Key(Key::Digit(1)));
        assert!(s.hidden.contains(&20));
        assert_eq!(s.handle(Input::Key(Key::Digit(0))), Changed::NONE);
        s.handle(Input::Key(Key::ListFilter));
        assert_eq!(s.page, 0);
    }

    #[test]
    fn status_line() {
        let tl = timeline();
        let mut s = PopcapState::new(&tl).unwrap();
        s.start(Some("loop"), 0).unwrap();
        s.handle(Input::Key(Key::Right));
        assert_eq!(s.status(4), " | loop 3/3 f1/3 paused | frame 4");
        s.handle(Input::Key(Key::Skeleton));
        s.handle(Input::Key(Key::Space));
        assert_eq!(s.status(4), " | loop 3/3 f1/3 | frame 4 | outlines");
    }

    #[test]
    fn the_source_shows_what_popcap_evaluates() {
        let mut src = source(|_| {});
        // Clip "all" scrubbed to frame 4 (y = 8), then back to 2: the cached player is replayed
        // from the start, not ticked past.
        src.state.start(None, 4).unwrap();
        assert_eq!(ys(&src.draw_list().unwrap()), vec![8.0; 3]);
        assert_eq!(src.main_frame(), 4);
        src.state.start(None, 2).unwrap();
        assert_eq!(ys(&src.draw_list().unwrap()), vec![4.0; 3]);
        // Clip "Intro" played: the STOP on frame 2 is its last frame.
        src.state.start(Some("intro"), 0).unwrap();
        src.handle(Input::Key(Key::End));
        assert_eq!(ys(&src.draw_list().unwrap()), vec![4.0; 3]);
        assert_eq!(src.main_frame(), 2);
        // Hidden layers leave the draw list; the others keep their order.
        src.handle(Input::Key(Key::Digit(1)));
        assert_eq!(top_layers(&src.draw_list().unwrap()), vec![3, 7]);
        let p = src.playhead().unwrap();
        assert_eq!((p.clip.as_str(), p.clip_index, p.clips, p.frame, p.frames, p.fps), ("Intro", 1, 3, 2.0, 3.0, 30.0));
    }

    #[test]
    fn render_matches_a_fresh_renderer_and_hides_layers() {
        let mut src = source(|o| o.background = Some([10, 20, 30]));
        assert_eq!(src.screen_size(), [40, 30]);
        src.state.start(Some("loop"), 0).unwrap();
        src.handle(Input::Key(Key::Right));
        let img = src.render().unwrap();
        // The same frame through a fresh renderer (what `popcap --render` builds).
        let tl = timeline();
        let mut p = Player::new(Arc::clone(&tl), Mode::Play, 3).unwrap();
        p.tick();
        let set = ImageSet::placeholders(&tl.anim).unwrap();
        let opts = RenderOptions { background: Some([10, 20, 30]), ..RenderOptions::for_animation(&tl.anim) };
        assert_eq!(img, crate::popcap::render::render(&set, &p.draw_list(), opts).unwrap());
        // Layer 0's placeholder sits at (2, 8): its frame pixel is drawn, and gone when hidden.
        let bg = [10, 20, 30, 255];
        assert_ne!(img.get(2, 8), bg);
        src.handle(Input::Key(Key::Digit(1)));
        let hidden = src.render().unwrap();
        assert_eq!(hidden.get(2, 8), bg);
        assert_eq!(hidden.get(12, 8), img.get(12, 8), "layer 3 untouched");
    }

    #[test]
    fn outlines_trace_each_image_quad() {
        let mut src = source(|o| o.scale = 1.0);
        src.render().unwrap();
        let layout = Layout::fit_screen(80, 60, src.screen_size());
        assert_eq!(layout.scale, 2);
        let mut buf = vec![0u32; 80 * 60];
        let mut c = Canvas { px: &mut buf, width: 80, height: 60 };
        src.overlay(&mut c, &layout);
        assert!(buf.iter().all(|&p| p == 0), "outlines are off until K");
        src.handle(Input::Key(Key::Skeleton));
        let mut c = Canvas { px: &mut buf, width: 80, height: 60 };
        src.overlay(&mut c, &layout);
        // Layer 0's 4×4 quad at (2, 0) is the window square (4, 0)-(12, 8).
        for (x, y) in [(4, 0), (12, 0), (4, 8), (12, 8), (8, 0), (4, 4)] {
            assert_eq!(buf[y * 80 + x], OUTLINE_COLOUR, "({x}, {y})");
        }
        assert_eq!(buf[4 * 80 + 8], 0, "inside the quad");
    }
}
