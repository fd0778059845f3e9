//! Evaluation as the PopCap runtime does it (animation-formats.md §3.2), in two parts:
//!
//! * [`Timeline`]: the static layer table of every frame of every sprite, built once by
//!   replaying remove → append → change from frame 0. A new layer starts with the identity
//!   transform, white and anim-frame 0; a change rebuilds the transform from identity (a
//!   translate-only change drops an earlier rotation); colour and anim-frame persist; the
//!   src-rect belongs to the move that carries it. The table is bounded (`MAX_LAYER_STATES`)
//!   so a hostile file cannot make it unbounded.
//! * [`Player`]: the running instance tree. The main sprite advances one frame per tick,
//!   loops inside its work area, and freezes on a STOP frame. A child sprite layer owns an
//!   instance that advances 1/time-scale frames per tick of its parent while the layer stays
//!   present, wrapping at its own frame count; it restarts at frame 0 when the layer is
//!   appended (again) and is frozen while its parent is frozen.
//!
//! [`Player::draw_list`] walks the tree depth-first in ascending layer order: matrices
//! image · layer · parents, colours multiplied down, additive inherited (or by name tag),
//! alpha-0 layers skipped. Matrices are f64 (`[a, b, c, d, tx, ty]`, Flash convention
//! x' = a·x + c·y + tx, y' = b·x + d·y + ty).
//!
//! Two playback modes: [`Mode::Play`] honours STOP and the work-area loop (what the game
//! shows); [`Mode::Scrub`] walks frames 0, 1, 2, … ignoring STOP and continuing at the
//! work-area start after the last frame (what `--frame N` and `--frames A..B` show: every
//! frame reachable, child timing = ticks since append). Seeking replays ticks from frame 0;
//! the per-frame layer tables are built once, the instance tree is cheap to advance.

use super::*;
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Bound on layer states over all frames of all sprites: 1 M states of 96 bytes keep one
/// animation's timeline under 100 MiB, inside the 256 MiB per-input cap (README "Limits");
/// SUNSHROOM_GROWN.PAM needs a few thousand.
pub const MAX_LAYER_STATES: usize = 1_000_000;
/// Bound on sprite nesting while drawing (cycles are rejected by the parser; this bounds
/// legitimately deep chains).
pub const MAX_DEPTH: usize = 64;

/// A 2×3 affine matrix `[a, b, c, d, tx, ty]`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Affine(pub [f64; 6]);

impl Affine {
    pub const IDENTITY: Affine = Affine([1.0, 0.0, 0.0, 1.0, 0.0, 0.0]);

    /// `self` applied first, then `outer` (Flash `self.concat(outer)`).
    pub fn then(self, outer: Affine) -> Affine {
        let [a, b, c, d, x, y] = self.0;
        let [oa, ob, oc, od, ox, oy] = outer.0;
        Affine([
            oa * a + oc * b,
            ob * a + od * b,
            oa * c + oc * d,
            ob * c + od * d,
            oa * x + oc * y + ox,
            ob * x + od * y + oy,
        ])
    }

    pub fn apply(&self, [x, y]: [f64; 2]) -> [f64; 2] {
        let [a, b, c, d, tx, ty] = self.0;
        [a * x + c * y + tx, b * x + d * y + ty]
    }

    /// The runtime drops an image transform within 0.005 of the identity (doc §3.1 Image).
    pub fn snap_identity(self) -> Affine {
        if self.0.iter().zip(Affine::IDENTITY.0).all(|(v, i)| (v - i).abs() < 0.005) {
            Affine::IDENTITY
        } else {
            self
        }
    }
}

/// One layer's state on one frame.
#[derive(Debug, Clone, PartialEq)]
pub struct Layer {
    pub index: u32,
    pub resource: u16,
    pub sprite: bool,
    pub additive: bool,
    /// 16.16 (1.0 when the append has none).
    pub time_scale: i32,
    /// Frame (of its sprite) whose append created this layer.
    pub born: u32,
    pub transform: Affine,
    pub color: [u8; 4],
    pub anim_frame: i16,
    pub src_rect: Option<[i16; 4]>,
}

/// Per sprite (main sprite last), per frame, the layers in ascending index.
#[derive(Debug, Clone)]
pub struct Timeline {
    pub anim: Animation,
    states: Vec<Vec<Vec<Layer>>>,
}

impl Timeline {
    pub fn new(anim: &Animation) -> Result<Timeline, PopcapError> {
        let mut budget = MAX_LAYER_STATES;
        let mut states = Vec::new();
        for (i, s) in anim.sprites.iter().chain(anim.main_sprite.iter()).enumerate() {
            states.push(sprite_states(anim.version, s, i, &mut budget)?);
        }
        Ok(Timeline { anim: anim.clone(), states })
    }

    /// Index of the main sprite in the timeline's sprite numbering.
    pub fn main_index(&self) -> Result<usize, PopcapError> {
        self.anim.main()?;
        Ok(self.anim.sprites.len())
    }

    fn sprite(&self, i: usize) -> &Sprite {
        self.anim.sprites.get(i).or(self.anim.main_sprite.as_ref()).expect("sprite indices come from the parser")
    }

    /// Layers of sprite `i` at `frame`.
    pub fn layers(&self, i: usize, frame: u32) -> &[Layer] {
        self.states.get(i).and_then(|f| f.get(frame as usize)).map_or(&[], Vec::as_slice)
    }
}

fn sprite_states(version: u32, s: &Sprite, index: usize, budget: &mut usize) -> Result<Vec<Vec<Layer>>, PopcapError> {
    let mut live: BTreeMap<u32, Layer> = BTreeMap::new();
    let mut out = Vec::with_capacity(s.frames.len());
    for (fi, f) in s.frames.iter().enumerate() {
        for r in f.removes.iter().flatten() {
            live.remove(&r.layer);
        }
        for a in f.appends.iter().flatten() {
            live.insert(
                a.layer,
                Layer {
                    index: a.layer,
                    resource: a.resource,
                    sprite: a.sprite,
                    additive: a.additive,
                    time_scale: a.time_scale.unwrap_or(1 << 16),
                    born: fi as u32,
                    transform: Affine::IDENTITY,
                    color: [255; 4],
                    anim_frame: 0,
                    src_rect: None,
                },
            );
        }
        for c in f.changes.iter().flatten() {
            // The parser guarantees the layer exists.
            if let Some(l) = live.get_mut(&c.layer) {
                l.transform = c.affine(version);
                l.src_rect = c.src_rect;
                if let Some(col) = c.color {
                    l.color = col;
                }
                if let Some(n) = c.anim_frame {
                    l.anim_frame = n;
                }
            }
        }
        *budget = budget.checked_sub(live.len()).ok_or_else(|| PopcapError::Eval {
            what: format!("sprite {index} frame {fi}: more than {MAX_LAYER_STATES} layer states in the animation"),
        })?;
        out.push(live.values().cloned().collect());
    }
    Ok(out)
}

/// Whether STOP frames and the work-area loop apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The game's playback.
    Play,
    /// Frames in order from 0, STOP ignored; after the last frame, the work-area start.
    Scrub,
}

/// A running sprite: its frame, fractional time (children) and child instances by layer.
#[derive(Debug, Clone)]
struct Inst {
    sprite: usize,
    frame: u32,
    time: f64,
    children: BTreeMap<u32, Inst>,
}

impl Inst {
    fn new(tl: &Timeline, sprite: usize, frame: u32, depth: usize) -> Inst {
        let mut i = Inst { sprite, frame, time: f64::from(frame), children: BTreeMap::new() };
        i.spawn_children(tl, depth, |_| true);
        i
    }

    /// (Re)build the child map from this frame's sprite layers; `fresh(layer)` says whether
    /// a layer that already has an instance must restart.
    fn spawn_children(&mut self, tl: &Timeline, depth: usize, fresh: impl Fn(&Layer) -> bool) {
        let mut old = std::mem::take(&mut self.children);
        for l in tl.layers(self.sprite, self.frame).iter().filter(|l| l.sprite) {
            let child = match old.remove(&l.index) {
                Some(c) if !fresh(l) => c,
                _ if depth < MAX_DEPTH => Inst::new(tl, usize::from(l.resource), 0, depth + 1),
                _ => continue,
            };
            self.children.insert(l.index, child);
        }
    }

    fn stopped(&self, tl: &Timeline) -> bool {
        tl.sprite(self.sprite).frames.get(self.frame as usize).is_some_and(|f| f.stop)
    }

    /// One tick of the parent clock: advance `dt` frames (main: 1, children: 1/time-scale
    /// of the parent's dt), then the children still present by the same rule.
    fn tick(&mut self, tl: &Timeline, dt: f64, mode: Mode, main: bool, depth: usize) {
        // [doc §3.2 Timing] a STOP frame freezes the sprite and everything under it.
        if mode == Mode::Play && self.stopped(tl) {
            return;
        }
        let s = tl.sprite(self.sprite);
        let count = s.frames.len().max(1) as u32;
        let before = self.frame;
        if main {
            let (start, end) = s.work_area();
            self.frame = match mode {
                // [doc §3.2] the main sprite loops inside its work area.
                Mode::Play if self.frame == end || self.frame + 1 >= count => start,
                // Scrubbing passes the work-area end and loops from the last frame.
                Mode::Scrub if self.frame + 1 >= count => start,
                _ => self.frame + 1,
            };
            self.time = f64::from(self.frame);
        } else {
            // [doc §3.2] children wrap at their own frame count.
            self.time = (self.time + dt) % f64::from(count);
            self.frame = (self.time.floor() as u32).min(count - 1);
        }
        let entered = self.frame != before;
        let frame = self.frame;
        // Children present before and still present advance; a layer appended on the frame
        // just entered restarts (guess: also when the main loop re-enters its first frame,
        // which appends every layer again).
        let mut kept: Vec<u32> = Vec::new();
        for l in tl.layers(self.sprite, frame).iter().filter(|l| l.sprite) {
            if !(entered && l.born == frame) && self.children.contains_key(&l.index) {
                kept.push(l.index);
            }
        }
        self.spawn_children(tl, depth, |l| !kept.contains(&l.index));
        let layers = tl.layers(self.sprite, frame);
        for (idx, child) in self.children.iter_mut() {
            if !kept.contains(idx) {
                continue;
            }
            let scale = layers.iter().find(|l| l.index == *idx).map_or(1 << 16, |l| l.time_scale);
            // [doc §3.2] time-scale divides the child's advance. guess: a time-scale of 0 or
            // less freezes it.
            let cdt = if scale > 0 { dt * FIXED / f64::from(scale) } else { 0.0 };
            child.tick(tl, cdt, mode, false, depth + 1);
        }
    }
}

/// One step of a draw's layer path: layer index, kind, resource and (sprites) the child frame.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PathStep {
    pub layer: u32,
    pub sprite: bool,
    pub resource: u16,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frame: Option<u32>,
}

/// One image drawn: what the runtime hands to its renderer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Draw {
    pub image: usize,
    /// Image space (0,0)-(w,h) to canvas pixels.
    pub matrix: Affine,
    /// RGBA, 0..1, multiplied down the tree.
    pub color: [f64; 4],
    pub additive: bool,
    /// x, y, w, h in pixels, when the move carries one.
    pub src_rect: Option<[f64; 4]>,
    /// Cel of a multi-cel image (carried through; PvZ2 images have one cel).
    pub anim_frame: i16,
    pub path: Vec<PathStep>,
}

/// A playing animation.
#[derive(Debug, Clone)]
pub struct Player {
    pub timeline: Arc<Timeline>,
    pub mode: Mode,
    main: Inst,
}

impl Player {
    /// At `frame` of the main sprite with every child at its frame 0 (what the runtime does
    /// when it jumps to a label).
    pub fn new(timeline: Arc<Timeline>, mode: Mode, frame: u32) -> Result<Player, PopcapError> {
        let main = timeline.main_index()?;
        let count = timeline.sprite(main).frames.len();
        if frame as usize >= count {
            return Err(PopcapError::Eval { what: format!("frame {frame} is past the main sprite's {count} frames") });
        }
        let inst = Inst::new(&timeline, main, frame, 0);
        Ok(Player { timeline, mode, main: inst })
    }

    /// Scrub `ticks` frames from frame 0: the state `--frame N` shows (past the last frame
    /// the timeline continues at its work-area start).
    pub fn scrubbed(timeline: Arc<Timeline>, ticks: u32) -> Result<Player, PopcapError> {
        let mut p = Player::new(timeline, Mode::Scrub, 0)?;
        for _ in 0..ticks {
            p.tick();
        }
        Ok(p)
    }

    /// Main-timeline frame.
    pub fn frame(&self) -> u32 {
        self.main.frame
    }

    /// Whether the main timeline sits on a STOP frame (frozen in [`Mode::Play`]).
    pub fn stopped(&self) -> bool {
        self.main.stopped(&self.timeline)
    }

    /// Advance one main-timeline frame.
    pub fn tick(&mut self) {
        let tl = Arc::clone(&self.timeline);
        self.main.tick(&tl, 1.0, self.mode, true, 0);
    }

    pub fn draw_list(&self) -> Vec<Draw> {
        self.draw_list_hiding(|_| false)
    }

    /// The draw list without the main sprite's layers for which `hidden(layer)` holds.
    pub fn draw_list_hiding(&self, hidden: impl Fn(u32) -> bool) -> Vec<Draw> {
        let mut out = Vec::new();
        let mut path = Vec::new();
        let root = Node { matrix: Affine::IDENTITY, color: [1.0; 4], additive: false };
        draw(&self.timeline, &self.main, root, &hidden, &mut path, &mut out);
        out
    }
}

#[derive(Clone, Copy)]
struct Node {
    matrix: Affine,
    color: [f64; 4],
    additive: bool,
}

fn draw(
    tl: &Timeline,
    inst: &Inst,
    parent: Node,
    hidden: &dyn Fn(u32) -> bool,
    path: &mut Vec<PathStep>,
    out: &mut Vec<Draw>,
) {
    let top = path.is_empty();
    for l in tl.layers(inst.sprite, inst.frame) {
        if top && hidden(l.index) {
            continue;
        }
        let c = l.color.map(|v| f64::from(v) / 255.0);
        let color = std::array::from_fn(|k| parent.color[k] * c[k]);
        // [doc §3.2 Draw] a layer whose resulting alpha is 0 is skipped (with its subtree).
        if color[3] == 0.0 {
            continue;
        }
        let node = Node { matrix: l.transform.then(parent.matrix), color, additive: parent.additive || l.additive };
        if l.sprite {
            let Some(child) = inst.children.get(&l.index) else { continue };
            path.push(PathStep { layer: l.index, sprite: true, resource: l.resource, frame: Some(child.frame) });
            draw(tl, child, node, hidden, path, out);
            path.pop();
        } else {
            let image = usize::from(l.resource);
            let Some(def) = tl.anim.images.get(image) else { continue };
            let matrix = def.transform.affine().snap_identity().then(node.matrix);
            let additive = node.additive || images::additive_by_name(&def.name.text());
            path.push(PathStep { layer: l.index, sprite: false, resource: l.resource, frame: None });
            out.push(Draw {
                image,
                matrix,
                color,
                additive,
                src_rect: l.src_rect.map(|r| r.map(|v| f64::from(v) / TWIPS)),
                anim_frame: l.anim_frame,
                path: path.clone(),
            });
            path.pop();
        }
    }
}

impl Draw {
    /// Corners of the image quad (0,0), (w,0), (0,h), (w,h) on the canvas.
    pub fn quad(&self, size: [u32; 2]) -> [[f64; 2]; 4] {
        let (w, h) = (f64::from(size[0]), f64::from(size[1]));
        [[0.0, 0.0], [w, 0.0], [0.0, h], [w, h]].map(|p| self.matrix.apply(p))
    }
}

/// Bounding box (min x, min y, max x, max y) of every draw's quad, image sizes from `anim`.
pub fn bounds(anim: &Animation, draws: &[Draw]) -> Option<[f64; 4]> {
    let mut b: Option<[f64; 4]> = None;
    for d in draws {
        let size = anim.images.get(d.image).map_or([0, 0], ImageDef::pixel_size);
        for [x, y] in d.quad(size) {
            let v = b.get_or_insert([x, y, x, y]);
            *v = [v[0].min(x), v[1].min(y), v[2].max(x), v[3].max(y)];
        }
    }
    b
}
