//! Image lookup and pixels: the name rules viewers use to find an image's texture
//! (animation-formats.md §3.1 Image: strip `(…)`, a `$` prefix, `[…]` tags and everything
//! after `|`, compare case-insensitively), PNG decoding through the `png` crate, and the
//! labelled placeholders drawn for missing images.
//!
//! Pixels here are plain RGBA8 rows; [`super::render`] uploads them to GE memory as 8888
//! textures. A placeholder is a texture too: the GE draws it like any image.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Largest image side accepted from a PNG or a declared size (the GE samples at most 512
/// per texture; larger images are split into pieces, and this bounds their memory).
pub const MAX_SIDE: u32 = 4096;

/// An RGBA8 picture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pixels {
    pub width: u32,
    pub height: u32,
    pub rgba: Vec<u8>,
}

impl Pixels {
    pub fn get(&self, x: u32, y: u32) -> [u8; 4] {
        let i = 4 * (y * self.width + x) as usize;
        [self.rgba[i], self.rgba[i + 1], self.rgba[i + 2], self.rgba[i + 3]]
    }
    fn put(&mut self, x: u32, y: u32, p: [u8; 4]) {
        if x < self.width && y < self.height {
            let i = 4 * (y * self.width + x) as usize;
            self.rgba[i..i + 4].copy_from_slice(&p);
        }
    }
}

/// The lookup key of an image name: the short name with tags removed, lower case.
pub fn lookup_key(name: &str) -> String {
    let short = name.split('|').next().unwrap_or("");
    let mut out = String::new();
    let mut depth_paren = 0u32;
    let mut depth_bracket = 0u32;
    for ch in short.chars() {
        match ch {
            '(' => depth_paren += 1,
            ')' => depth_paren = depth_paren.saturating_sub(1),
            '[' => depth_bracket += 1,
            ']' => depth_bracket = depth_bracket.saturating_sub(1),
            _ if depth_paren > 0 || depth_bracket > 0 => {}
            _ => out.push(ch),
        }
    }
    out.trim().trim_start_matches('$').trim().to_lowercase()
}

/// guess: an image is additive by name when it carries an `(additive)` or `[additive]` tag
/// (the doc says "by name tag" without naming the tag).
pub fn additive_by_name(name: &str) -> bool {
    let lower = name.to_lowercase();
    lower.contains("(additive)") || lower.contains("[additive]")
}

/// `WxH` at the end of the short name (`sunshroom_grown_87x95` → 87×95).
pub fn size_from_name(name: &str) -> Option<[u32; 2]> {
    let key = lookup_key(name);
    let tail = key.rsplit('_').next()?;
    let (w, h) = tail.split_once('x')?;
    let (w, h) = (w.parse::<u32>().ok()?, h.parse::<u32>().ok()?);
    (w > 0 && h > 0 && w <= MAX_SIDE && h <= MAX_SIDE).then_some([w, h])
}

/// PNG files of a directory by lookup key (file stem, lower case). Two files with the same
/// key: the first in byte order of their names wins (deterministic).
pub fn index_dir(dir: &Path) -> anyhow::Result<BTreeMap<String, PathBuf>> {
    use anyhow::Context;
    let mut names: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("reading image directory {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("png")))
        .collect();
    names.sort();
    let mut map = BTreeMap::new();
    for p in names {
        if let Some(stem) = p.file_stem().and_then(|s| s.to_str()) {
            map.entry(stem.to_lowercase()).or_insert(p);
        }
    }
    Ok(map)
}

/// Decode a PNG to RGBA8 (palette, grey and 16-bit inputs are expanded).
pub fn decode_png(bytes: &[u8], what: &str) -> anyhow::Result<Pixels> {
    use anyhow::{bail, Context};
    let mut dec = png::Decoder::new(std::io::Cursor::new(bytes));
    dec.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = dec.read_info().with_context(|| format!("{what}: not a PNG"))?;
    let (w, h) = (reader.info().width, reader.info().height);
    if w == 0 || h == 0 || w > MAX_SIDE || h > MAX_SIDE {
        bail!("{what}: {w}x{h} pixels (sides of 1 to {MAX_SIDE} accepted)");
    }
    let size = reader.output_buffer_size().with_context(|| format!("{what}: image too large"))?;
    let mut buf = vec![0u8; size];
    let info = reader.next_frame(&mut buf).with_context(|| format!("{what}: corrupt PNG data"))?;
    let n = (w * h) as usize;
    let rgba = match info.color_type {
        png::ColorType::Rgba => buf[..4 * n].to_vec(),
        png::ColorType::Rgb => buf[..3 * n].chunks_exact(3).flat_map(|p| [p[0], p[1], p[2], 255]).collect(),
        png::ColorType::GrayscaleAlpha => buf[..2 * n].chunks_exact(2).flat_map(|p| [p[0], p[0], p[0], p[1]]).collect(),
        png::ColorType::Grayscale => buf[..n].iter().flat_map(|&g| [g, g, g, 255]).collect(),
        png::ColorType::Indexed => bail!("{what}: palette not expanded"),
    };
    Ok(Pixels { width: w, height: h, rgba })
}

/// Fill colour of image `index`'s placeholder: a deterministic hue walk (golden-ratio steps).
pub fn placeholder_color(index: usize) -> [u8; 3] {
    let h = (index as f64 * 0.618_033_988_749_895).fract() * 6.0;
    let x = (1.0 - (h % 2.0 - 1.0).abs()) * 200.0;
    let (r, g, b) = match h as u32 {
        0 => (200.0, x, 0.0),
        1 => (x, 200.0, 0.0),
        2 => (0.0, 200.0, x),
        3 => (0.0, x, 200.0),
        4 => (x, 0.0, 200.0),
        _ => (200.0, 0.0, x),
    };
    [r, g, b].map(|v: f64| (v + 55.0).round() as u8)
}

/// Alpha of a placeholder's interior (the frame, diagonal and label are opaque).
pub const PLACEHOLDER_FILL_ALPHA: u8 = 0x60;

/// A `w`×`h` placeholder for image `index`: translucent fill, the index in 8×8 glyphs at
/// (2, 2) in white when it fits, then an opaque 1-pixel frame and the diagonal from the
/// top-left to the bottom-right pixel.
pub fn placeholder(index: usize, w: u32, h: u32) -> Pixels {
    let (w, h) = (w.clamp(1, MAX_SIDE), h.clamp(1, MAX_SIDE));
    let [r, g, b] = placeholder_color(index);
    let fill = [r, g, b, PLACEHOLDER_FILL_ALPHA];
    let line = [r, g, b, 255];
    let mut p = Pixels { width: w, height: h, rgba: fill.repeat((w * h) as usize) };
    let label = index.to_string();
    if 4 + 8 * label.len() as u32 <= w && h >= 12 {
        for (k, ch) in label.bytes().enumerate() {
            let glyph = font8x8::legacy::BASIC_LEGACY[usize::from(ch)];
            for (gy, row) in glyph.iter().enumerate() {
                for gx in 0..8 {
                    if row >> gx & 1 != 0 {
                        p.put(2 + 8 * k as u32 + gx, 2 + gy as u32, [255; 4]);
                    }
                }
            }
        }
    }
    // Frame and diagonal last: never hidden by the label.
    for x in 0..w {
        p.put(x, 0, line);
        p.put(x, h - 1, line);
    }
    for y in 0..h {
        p.put(0, y, line);
        p.put(w - 1, y, line);
    }
    for (x, y) in diagonal(w, h) {
        p.put(x, y, line);
    }
    p
}

/// Pixels of the placeholder diagonal: k = 0..max(w,h), (k·(w−1)/(n−1), k·(h−1)/(n−1)).
pub fn diagonal(w: u32, h: u32) -> impl Iterator<Item = (u32, u32)> {
    let n = w.max(h).max(1);
    let div = u64::from(n.saturating_sub(1).max(1));
    (0..n).map(move |k| {
        let k = u64::from(k);
        ((k * u64::from(w - 1) / div) as u32, (k * u64::from(h - 1) / div) as u32)
    })
}
