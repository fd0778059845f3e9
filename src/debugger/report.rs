//! `psprender report`: one self-contained HTML file (no network: images are embedded as
//! base64 PNG data URIs) with the final frame, a timeline of thumbnails after every Nth
//! draw, each of those draws' buffers and grouped state, every draw's changes, and the
//! disassembly with draw boundaries. The page is a minijinja template
//! (`report.html.jinja`); its script only switches which pre-rendered draw section shows.
//!
//! Cost: one replay, flushed at the keyframe draws only (at most [`MAX_KEYFRAMES`], so the
//! rasterizer keeps batching between them), the GE state copied per draw for the change
//! lists, and the pictures encoded on the encoding threads while the replay runs (PNG at
//! the fastest compression, or stored when that would barely shrink them, see
//! [`super::picture`]), the state written from typed structs. Keyframes are
//! every `ceil(draws / MAX_KEYFRAMES)`-th draw plus the last; the draw count is known
//! before the replay because every draw is a REGISTERS word of the file. A keyframe whose
//! new pictures would pass the picture budget ([`PICTURE_BUDGET_BASE`]: a pixel count that
//! grows with the draws replayed) is left out, so on short dumps of full-screen changes the
//! stride widens; the last draw is always a keyframe, and the rule reads only the dump.

use super::capture::{self, Plane};
use super::picture::{self, png_fast, png_indexed};
use super::{state, DebugError};
use ge::cmd::op;
use ge::display::Image;
use ge::dump::{replay_steps, Dump, RecordKind, Step};
use ge::state::GeState;
use ge::Ge;
use rayon::prelude::*;
use serde::Serialize;
use std::ops::ControlFlow;
use std::sync::{mpsc, Arc, Mutex};
use thiserror::Error;

/// Draws shown with full buffers; bounds the file size (every keyframe holds up to five
/// pictures) and the flushes.
pub const MAX_KEYFRAMES: u32 = 16;
/// The picture budget: after draw `n`, the keyframes' distinct pictures (each counted
/// once, in buffer pixels: colour, depth, stencil, texture and CLUT swatch) may total at
/// most `PICTURE_BUDGET_BASE + n * PICTURE_BUDGET_PER_DRAW` pixels; a keyframe whose new
/// pictures would pass that is left out of the timeline (the last draw is always kept).
/// Encoding a picture costs about as much as replaying a light draw, so on short dumps
/// whose keyframes all show new full-screen buffers the pictures, not the replay, were
/// the report's cost (15816 boku-no-natsuyasumi: 31 draws, 15 distinct colour buffers and
/// five 512×512 CLUT textures among 16 keyframes: 580 M instructions against 200 M for a
/// plain replay; with this budget 7 keyframes, 396 M). The base holds four keyframes of
/// three new 480×272 buffers, so a short dump still shows every draw. The budget counts
/// only what the dump holds, never time, so the page is the same on every run and thread
/// count. A left-out keyframe's texture is not even decoded.
pub const PICTURE_BUDGET_BASE: u64 = 1_600_000;
/// See [`PICTURE_BUDGET_BASE`].
pub const PICTURE_BUDGET_PER_DRAW: u64 = 20_000;

/// Most pixels of distinct pictures the keyframes up to draw `n` may hold.
pub fn picture_budget(n: u32) -> u64 {
    PICTURE_BUDGET_BASE + u64::from(n) * PICTURE_BUDGET_PER_DRAW
}

/// Width of timeline thumbnails.
pub const THUMB_W: u32 = 120;
/// Disassembly lines kept (long dumps are cut, with a note, to keep the page small).
pub const MAX_DISASM_LINES: usize = 40_000;

const TEMPLATE: &str = include_str!("report.html.jinja");

/// Why a report could not be made.
#[derive(Debug, Error)]
pub enum ReportError {
    #[error(transparent)]
    Debug(#[from] DebugError),
    #[error("encoding a PNG: {0}")]
    Png(String),
    #[error("report template: {0}")]
    Template(#[from] minijinja::Error),
    #[error("writing the page: {0}")]
    Write(#[from] std::io::Error),
}

impl From<picture::PngError> for ReportError {
    fn from(e: picture::PngError) -> ReportError {
        ReportError::Png(e.0)
    }
}

/// One picture as the page embeds it.
#[derive(Serialize, Clone)]
pub struct Picture {
    pub name: &'static str,
    pub width: u32,
    pub height: u32,
    /// Its `data:image/png;base64,...` URI is `Report::uris[id]`; keyframes that show the
    /// same picture share it.
    #[serde(skip)]
    pub id: usize,
    /// What the template writes for the URI: a marker [`write_html`] replaces with the URI
    /// as it writes the page, so the megabytes of URIs are never copied into template
    /// values or a page string (those copies and their page faults were 10 % of the
    /// report's time on short dumps).
    pub uri: minijinja::Value,
}

/// Starts a marker in the rendered page: `<\u{1}` followed by a picture number or a block
/// name and `>`. Template text has no `<\u{1}`, and escaped values have no `<` at all.
const MARK: &str = "<\u{1}";

impl Picture {
    fn new(e: &Encoded, id: usize) -> Picture {
        let uri = minijinja::Value::from_safe_string(format!("{MARK}{id}>"));
        Picture { name: e.name, width: e.width, height: e.height, id, uri }
    }
}

/// A picture as an encoding thread makes it.
struct Encoded {
    name: &'static str,
    width: u32,
    height: u32,
    /// `data:image/png;base64,...` as the page's bytes
    uri: Vec<u8>,
}

/// A keyframe draw: its pictures and state.
#[derive(Serialize)]
pub struct Keyframe {
    pub draw: u32,
    pub command: String,
    pub thumb: Picture,
    pub pictures: Vec<Picture>,
    /// `state::draw_state` without the vertex list, as text and as JSON, HTML-escaped (on
    /// the encoding threads, not while the page is written).
    pub state_text: minijinja::Value,
    pub state_json: minijinja::Value,
}

/// One row of the per-draw table.
#[derive(Serialize)]
pub struct DrawRow {
    pub draw: u32,
    pub command: String,
    pub offset: String,
    pub changes: Vec<String>,
    pub keyframe: bool,
}

/// Everything the page shows.
#[derive(Serialize)]
pub struct Report {
    pub title: String,
    pub model: String,
    pub version: u32,
    pub game: String,
    pub records: usize,
    pub draws: u32,
    pub stride: u32,
    /// Keyframes left out by the picture budget ([`picture_budget`]).
    pub skipped: u32,
    pub final_frame: Picture,
    pub keyframes: Vec<Keyframe>,
    /// Every distinct picture's data URI, by [`Picture::id`].
    #[serde(skip)]
    pub uris: Vec<Vec<u8>>,
    /// Written by [`to_html`] itself (see there), not through the template.
    #[serde(skip)]
    pub rows: Vec<DrawRow>,
    /// The disassembly as page HTML (`disassembly`).
    #[serde(skip)]
    pub disasm: String,
    pub disasm_cut: usize,
}

/// A picture of an RGBA image: indexed when it has at most 256 colours (CLUT textures and
/// swatches usually do), else in the fewest channels that hold it.
fn image_picture(name: &'static str, img: &Image) -> Result<Encoded, ReportError> {
    let png = match capture::Indexed::from_image(img) {
        Some(ix) => png_indexed(&ix)?,
        None => png_fast(&Plane::from_image(img))?,
    };
    Ok(picture_of_png(name, img.width, img.height, png))
}

fn picture(name: &'static str, p: &Plane) -> Result<Encoded, ReportError> {
    Ok(picture_of_png(name, p.width, p.height, png_fast(p)?))
}

fn picture_of_png(name: &'static str, width: u32, height: u32, png: Vec<u8>) -> Encoded {
    Encoded { name, width, height, uri: picture::data_uri(&png) }
}

/// Draw words in the file: PRIM/BEZIER/SPLINE in REGISTERS records (the replay executes
/// each exactly once and makes up no draw of its own).
pub fn count_draws(dump: &Dump) -> u32 {
    dump.records
        .iter()
        .filter(|r| r.kind == RecordKind::Registers)
        .flat_map(|r| dump.payload(r).chunks_exact(4))
        .filter(|c| ge::dump::is_draw(u32::from_le_bytes([c[0], c[1], c[2], c[3]])))
        .count() as u32
}

/// What the replay gathers at a keyframe; its pictures are encoded by [`Encoder`].
struct RawKey {
    draw: u32,
    command: String,
    /// (picture name, job) in page order: thumbnail, colour, depth, stencil, texture, CLUT.
    slots: Vec<(&'static str, usize)>,
}

/// A draw as the replay saw it; made into a [`DrawRow`] after the replay, in parallel
/// (disassembling and formatting every draw on the replaying thread cost more than the
/// replay's own control work on long dumps).
struct RawRow {
    draw: u32,
    word: u32,
    src: Option<u32>,
    /// Registers that changed since the previous draw, with their new arguments.
    regs: Vec<(u8, u32)>,
    matrices: Vec<&'static str>,
    clut: bool,
    keyframe: bool,
}

impl RawRow {
    fn new(s: &Step, draw: u32, prev: &GeState, cur: &GeState, keyframe: bool) -> RawRow {
        RawRow {
            draw,
            word: s.word,
            src: s.src,
            regs: state::changed_registers(prev, cur)
                .filter(|&c| !matches!(c, op::PRIM | op::BEZIER | op::SPLINE))
                .map(|c| (c, cur.regs.arg(c)))
                .collect(),
            matrices: state::changed_matrices(prev, cur),
            clut: prev.clut != cur.clut,
            keyframe,
        }
    }

    fn row(&self) -> DrawRow {
        let mut changes: Vec<String> =
            self.regs.iter().map(|&(c, v)| format!("{} {}", ge::cmd::name(c), ge::cmd::format_arg(c, v))).collect();
        changes.extend(self.matrices.iter().map(|m| format!("{m} matrix")));
        if self.clut {
            changes.push("CLUT cache".to_string());
        }
        DrawRow {
            draw: self.draw,
            command: ge::cmd::disassemble(self.word),
            offset: self.src.map(|o| format!("0x{o:x}")).unwrap_or_default(),
            changes,
            keyframe: self.keyframe,
        }
    }
}

/// One picture (or two: colour and its thumbnail) to convert and encode.
#[derive(Clone, Copy, PartialEq, Eq)]
#[repr(usize)]
enum Kind {
    Colour,
    Depth,
    Stencil,
    Texture,
    Clut,
}

type Job = (Kind, Arc<capture::Snapshot>);

/// Which keyframe pictures need encoding. Keyframes often repeat a buffer (an unchanged
/// depth buffer, a blank stencil, the same texture): a picture equal to the previous
/// keyframe's (or any earlier keyframe's texture, which the [`capture::TextureMemo`]
/// shares) reuses that job instead of making a new one. Only the previous keyframe is
/// kept for comparing, so a snapshot is freed as soon as its pictures are encoded.
#[derive(Default)]
struct Planner {
    jobs: usize,
    /// Pixels of every job made so far (the picture budget, [`PICTURE_BUDGET_BASE`]).
    pixels: u64,
    /// The previous keyframe and its job of each [`Kind`].
    prev: Option<(Arc<capture::Snapshot>, [Option<usize>; 5])>,
    textures: Vec<(Arc<capture::Texture>, usize)>,
}

impl Planner {
    /// The earlier job `snap`'s picture of `kind` can reuse, if any.
    fn reuse(&self, kind: Kind, snap: &capture::Snapshot) -> Option<usize> {
        if kind == Kind::Texture {
            let t = snap.texture()?;
            return self.textures.iter().find(|(u, _)| Arc::ptr_eq(u, t)).map(|&(_, j)| j);
        }
        let (p, jobs) = self.prev.as_ref()?;
        let same = match kind {
            Kind::Colour | Kind::Stencil => p.same_colour(snap),
            Kind::Depth => p.same_depth(snap),
            Kind::Clut => snap.palette().is_some() && p.palette() == snap.palette(),
            Kind::Texture => false,
        };
        jobs[kind as usize].filter(|_| same)
    }

    /// Pixels of `snap`'s pictures of `kind` (0 when it has none).
    fn kind_pixels(kind: Kind, snap: &capture::Snapshot) -> u64 {
        match kind {
            Kind::Colour | Kind::Stencil => snap.colour_pixels(),
            Kind::Depth => snap.depth_pixels(),
            Kind::Texture => snap.texture().map_or(0, |t| u64::from(t.width) * u64::from(t.height)),
            Kind::Clut => snap.palette().map_or(0, |p| {
                u64::from(capture::SWATCH_COLUMNS * capture::SWATCH_CELL) * u64::from(capture::swatch_height(p.len()))
            }),
        }
    }

    /// Pixels of the pictures [`Planner::add`] would make new jobs for.
    fn new_pixels(&self, snap: &capture::Snapshot) -> u64 {
        [Kind::Colour, Kind::Depth, Kind::Stencil, Kind::Texture, Kind::Clut]
            .into_iter()
            .filter(|&k| self.reuse(k, snap).is_none())
            .map(|k| Self::kind_pixels(k, snap))
            .sum()
    }

    /// The job numbers of `snap`'s pictures; `send` gets every new job.
    fn add(&mut self, snap: capture::Snapshot, send: &mut dyn FnMut(usize, Job)) -> Vec<(&'static str, usize)> {
        let snap = Arc::new(snap);
        let mut made = [None; 5];
        let mut job = |me: &mut Planner, kind: Kind| -> usize {
            let j = match me.reuse(kind, &snap) {
                Some(j) => j,
                None => {
                    me.jobs += 1;
                    me.pixels += Self::kind_pixels(kind, &snap);
                    send(me.jobs - 1, (kind, snap.clone()));
                    me.jobs - 1
                }
            };
            made[kind as usize] = Some(j);
            j
        };
        let texture = snap.texture().cloned().map(|t| {
            let j = job(self, Kind::Texture);
            if !self.textures.iter().any(|(_, u)| *u == j) {
                self.textures.push((t, j));
            }
            j
        });
        let colour = job(self, Kind::Colour);
        let mut slots = vec![("thumb", colour), ("colour", colour)];
        slots.push(("depth", job(self, Kind::Depth)));
        slots.push(("stencil", job(self, Kind::Stencil)));
        if let Some(j) = texture {
            slots.push(("texture", j));
        }
        if snap.palette().is_some() {
            slots.push(("clut", job(self, Kind::Clut)));
        }
        self.prev = Some((snap, made));
        slots
    }
}

/// Convert and encode one job's pictures; `scratch` is the thread's memory for decoding
/// textures ([`capture::Texture::image_in`]).
fn run_job((kind, snap): &Job, scratch: &mut Option<ge::Memory>) -> Result<Vec<Encoded>, ReportError> {
    Ok(match kind {
        Kind::Colour => {
            let c = snap.colour_plane().grey_if_possible();
            vec![picture("thumb", &capture::thumbnail(&c, THUMB_W))?, picture("colour", &c)?]
        }
        Kind::Depth => vec![picture("depth", &snap.depth_plane())?],
        Kind::Stencil => vec![picture("stencil", &snap.stencil_plane())?],
        Kind::Texture => match snap.texture() {
            Some(t) => vec![image_picture("texture", t.image_in(scratch))?],
            None => vec![picture("texture", &Plane::default())?],
        },
        Kind::Clut => match snap.clut() {
            Some(c) => vec![image_picture("clut", &c)?],
            None => vec![picture("clut", &Plane::default())?],
        },
    })
}

/// Work for the encoding threads: a job's pictures, or a keyframe's state (the draw word
/// and the state after the previous draw and at this one) as text and JSON.
enum Work {
    Pictures(usize, Job),
    State(usize, Box<(Step, GeState, GeState)>),
}

/// What a [`Work`] item made.
enum Done {
    Pictures(usize, Result<Vec<Encoded>, ReportError>),
    /// Keyframe number, state as text, as JSON (HTML-escaped).
    State(usize, minijinja::Value, minijinja::Value),
}

fn run(work: Work, scratch: &mut Option<ge::Memory>) -> Done {
    match work {
        Work::Pictures(i, job) => Done::Pictures(i, run_job(&job, scratch)),
        Work::State(k, b) => {
            let (step, prev, cur) = *b;
            let st = state::draw_state_without_vertices(&cur, &step, Some(&prev));
            let html = |t: &str| minijinja::Value::from_safe_string(minijinja::HtmlEscape(t).to_string());
            Done::State(k, html(&state::to_text(&st)), html(&serde_json::to_string(&st).unwrap_or_default()))
        }
    }
}

/// Encodes jobs on a second thread while the replay runs (the replay leaves most of a
/// second core idle); once the replay ends, the replaying thread joins in until the queue
/// is empty. Results are placed by job number, so the page does not depend on which
/// thread encoded what.
struct Encoder {
    queue: Mutex<mpsc::Receiver<Work>>,
}

impl Encoder {
    /// Take jobs until the sending side is dropped and the queue is empty.
    fn drain(&self) -> Vec<Done> {
        let mut out = Vec::new();
        let mut scratch = None;
        loop {
            // The lock is held only while waiting for the next item, not while working.
            let next = self.queue.lock().map_err(|_| ()).and_then(|q| q.recv().map_err(|_| ()));
            match next {
                Ok(work) => out.push(run(work, &mut scratch)),
                Err(()) => return out,
            }
        }
    }
}

/// Replay `dump` under `model` and gather the report. `progress` is told (done, total) draws.
pub fn build(
    dump: &Dump,
    title: &str,
    model: ge::Model,
    progress: &mut dyn FnMut(u32, u32),
) -> Result<Report, ReportError> {
    let t0 = std::time::Instant::now();
    let total = count_draws(dump);
    let stride = total.div_ceil(MAX_KEYFRAMES).max(1);
    let mut ge = Ge::with_model(model);
    let mut raw: Vec<RawKey> = Vec::new();
    let mut rows: Vec<RawRow> = Vec::new();
    let mut prev = GeState::default();
    let mut memo = capture::TextureMemo::default();
    let mut planner = Planner::default();
    let mut skipped = 0u32;
    let (tx, rx) = mpsc::channel();
    let encoder = Encoder { queue: Mutex::new(rx) };
    let (stepped, final_img, done, rows, listing) = std::thread::scope(|scope| {
        let helper = scope.spawn(|| encoder.drain());
        // The disassembly needs only the dump: made beside the replay.
        let listing = scope.spawn(|| disassembly(dump));
        // The receiver lives until both drains return; a send cannot fail before.
        let mut send = |i: usize, job: Job| {
            let _ = tx.send(Work::Pictures(i, job));
        };
        let stepped = replay_steps(dump, &mut ge, &mut |ge: &mut Ge, s: &Step| {
            let Some(n) = s.draw else { return ControlFlow::Continue(()) };
            let mut key = n % stride == 0 || n == total;
            if key {
                ge.flush();
                // The texture is decoded only for a keyframe the budget can still hold.
                let mut snap = capture::Snapshot::take_untextured(ge);
                let fits = |snap: &capture::Snapshot| planner.pixels + planner.new_pixels(snap) <= picture_budget(n);
                key = n == total || fits(&snap);
                if key {
                    snap.add_texture(ge, &mut memo);
                    key = n == total || fits(&snap);
                }
                if key {
                    let _ = tx.send(Work::State(raw.len(), Box::new((*s, prev.clone(), ge.state.clone()))));
                    let slots = planner.add(snap, &mut send);
                    raw.push(RawKey { draw: n, command: ge::cmd::disassemble(s.word), slots });
                } else {
                    skipped += 1;
                }
            }
            rows.push(RawRow::new(s, n, &prev, &ge.state, key));
            prev.clone_from(&ge.state);
            if n % 64 == 0 || n == total {
                progress(n, total);
            }
            ControlFlow::Continue(())
        });
        drop(tx);
        let final_img = stepped.as_ref().ok().map(|st| Plane::from_image(&st.display.capture(&ge.mem)));
        let final_pic = final_img.as_ref().map(|p| picture("final", p));
        let rows: Vec<DrawRow> = rows.par_iter().map(RawRow::row).collect();
        let mut done = encoder.drain();
        done.extend(helper.join().unwrap_or_default());
        (stepped, final_pic, done, rows, listing.join())
    });
    let (disasm, disasm_cut) = listing.map_err(|_| ReportError::Png("disassembly thread panicked".into()))?;
    let stepped = stepped.map_err(DebugError::from)?;
    let final_frame = final_img.ok_or_else(|| ReportError::Png("final frame missing".into()))??;
    let mut encoded: Vec<Vec<Encoded>> = (0..planner.jobs).map(|_| Vec::new()).collect();
    let mut states = vec![(minijinja::Value::from(""), minijinja::Value::from("")); raw.len()];
    for d in done {
        match d {
            Done::Pictures(i, p) => encoded[i] = p?,
            Done::State(k, text, json) => states[k] = (text, json),
        }
    }
    let replay_ms = t0.elapsed().as_secs_f64() * 1e3;
    // Picture numbers in job order (the final frame first), whatever thread encoded what.
    let mut uris = Vec::new();
    let mut number = |e: Encoded| {
        let p = Picture::new(&e, uris.len());
        uris.push(e.uri);
        p
    };
    let final_frame = number(final_frame);
    let pictures: Vec<Vec<Picture>> =
        encoded.into_iter().map(|job| job.into_iter().map(&mut number).collect()).collect();
    let pick = |job: usize, name: &str| pictures[job].iter().find(|p| p.name == name).cloned();
    let keyframes = raw
        .into_iter()
        .zip(states)
        .map(|(k, (state_text, state_json))| {
            let mut pics = k.slots.iter().filter_map(|&(name, job)| pick(job, name));
            let thumb = pics.next().ok_or_else(|| ReportError::Png("thumbnail missing".into()))?;
            Ok(Keyframe { draw: k.draw, command: k.command, thumb, pictures: pics.collect(), state_text, state_json })
        })
        .collect::<Result<Vec<_>, ReportError>>()?;
    tracing::info!(
        replay_and_encode_ms = replay_ms,
        assemble_ms = t0.elapsed().as_secs_f64() * 1e3 - replay_ms,
        "report built"
    );
    Ok(Report {
        title: title.to_string(),
        model: model.to_string(),
        version: dump.version,
        game: dump.game_id.clone(),
        records: dump.records.len(),
        draws: stepped.draws,
        stride,
        skipped,
        final_frame,
        keyframes,
        uris,
        rows,
        disasm,
        disasm_cut,
    })
}

/// The command stream as `psprender disasm` prints it, draws numbered and marked, as page
/// HTML (escaped), and the number of words cut after [`MAX_DISASM_LINES`] lines. Written
/// straight into one string on its own thread (a string per line, formatted again into
/// the page, cost 50 M instructions on 10755's 40 000 lines).
fn disassembly(dump: &Dump) -> (String, usize) {
    use minijinja::HtmlEscape as E;
    use std::fmt::Write as _;
    let mut html = String::new();
    let mut lines = 0usize;
    let mut draw = 0u32;
    let mut cut = 0usize;
    for (i, r) in dump.records.iter().enumerate() {
        if r.kind != RecordKind::Registers {
            continue;
        }
        let words = dump.payload(r).chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]));
        if lines < MAX_DISASM_LINES {
            lines += 1;
            let _ = write!(html, "\n# record {i}");
        }
        for (j, w) in words.enumerate() {
            let d = ge::dump::is_draw(w).then(|| {
                draw += 1;
                draw
            });
            if lines >= MAX_DISASM_LINES {
                cut += 1;
                continue;
            }
            lines += 1;
            let off = r.ptr.wrapping_add(4 * j as u32);
            let text = ge::cmd::disassemble(w);
            let _ = match d {
                Some(d) => write!(
                    html,
                    "\n<span class=\"drawline\" id=\"cmd-draw-{d}\">{off:08x}: {w:08x}  {}   \u{25c0} draw {d}</span>",
                    E(&text)
                ),
                None => write!(html, "\n{off:08x}: {w:08x}  {}", E(&text)),
            };
        }
    }
    (html, cut)
}

/// Render the page. The two long blocks, the per-draw table and the disassembly (up to
/// 40 000 lines), are written here rather than looped over in the template: minijinja
/// spends about 4 000 instructions per loop item, more than the whole replay on long dumps
/// (9545 shadow-of-destiny: 7 620 rows and 40 000 lines took 190 M instructions in the
/// template, 12 M here; the disassembly is now made as HTML on its own thread while the
/// replay runs). They are escaped with the template's own HTML escaping.
pub fn to_html(report: &Report) -> Result<String, ReportError> {
    let mut out = Vec::new();
    write_html(report, &mut out)?;
    String::from_utf8(out).map_err(|e| ReportError::Png(e.to_string()))
}

/// [`to_html`] written straight to `w` (the page is about 10 MB on long dumps; building it
/// as one string first cost a copy and its page faults): the template renders a page of
/// markers (`MARK`), and the pictures, the draw table and the disassembly are written
/// in their place from where they were made.
pub fn write_html(report: &Report, w: &mut dyn std::io::Write) -> Result<(), ReportError> {
    use minijinja::HtmlEscape as E;
    use std::fmt::Write as _;
    let rows = {
        let mut rows = String::with_capacity(report.rows.len() * 80);
        for row in &report.rows {
            let key = if row.keyframe { " class=\"key\"" } else { "" };
            let (cmd, off) = (E(&row.command), E(&row.offset));
            let _ = write!(rows, "\n<tr{key}><td>{}</td><td>{cmd}</td><td>{off}</td><td>", row.draw);
            for (i, c) in row.changes.iter().enumerate() {
                let _ = write!(rows, "{}{}", if i == 0 { "" } else { ", " }, E(c));
            }
            rows.push_str("</td></tr>");
        }
        rows
    };
    let mut env = minijinja::Environment::new();
    env.set_auto_escape_callback(|_| minijinja::AutoEscape::Html);
    env.add_template("report.html", TEMPLATE)?;
    let marker = |name: &str| minijinja::Value::from_safe_string(format!("{MARK}{name}>"));
    let ctx = minijinja::context! {
        r => report,
        rows_html => marker("rows"),
        disasm_html => marker("disasm"),
    };
    // The page without its long blocks (tens of KiB), then written out with each marker
    // replaced by its block.
    let page = env.get_template("report.html")?.render(ctx)?;
    let mut rest = page.as_str();
    while let Some(at) = rest.find(MARK) {
        w.write_all(&rest.as_bytes()[..at])?;
        let after = &rest[at + MARK.len()..];
        let name = after.split_once('>').map_or(after, |(n, _)| n);
        let block = match name {
            "rows" => Some(rows.as_bytes()),
            "disasm" => Some(report.disasm.as_bytes()),
            n => n.parse::<usize>().ok().and_then(|i| report.uris.get(i)).map(Vec::as_slice),
        };
        let block = block.ok_or_else(|| std::io::Error::other(format!("no picture or block {name:?} for the page")))?;
        w.write_all(block)?;
        rest = &after[(name.len() + 1).min(after.len())..];
    }
    w.write_all(rest.as_bytes())?;
    Ok(())
}
