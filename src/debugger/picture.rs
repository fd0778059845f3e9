//! Pictures as the report embeds them: PNG with fast compression (indexed when a picture
//! has at most 256 colours), written as `data:` URIs.
//!
//! Base64 is written through a table of the two characters of every 12-bit value, eight
//! characters from six bytes at a time: the `base64` crate's general-purpose engine cost
//! about 8 instructions a byte, 13.5 M of 15816 boku-no-natsuyasumi's report and 42 M of
//! 16131 shinsengumi's; this is about a third of that (same characters, tested).

use super::capture::{self, Plane};
use std::sync::OnceLock;
use thiserror::Error;

/// The PNG encoder failed.
#[derive(Debug, Error)]
#[error("{0}")]
pub struct PngError(pub String);

/// PNG of a picture in the channels it is given (the report keeps buffers in the fewest
/// channels that hold them, [`capture::Plane`]: grey for the depth and stencil ramps, RGB
/// for colour): a quarter of the bytes to compress for a grey ramp. Compressed with the
/// fastest mode, or stored when a sample shows it barely shrinks (`poorly_compressible`).
/// The report favours build time; the pixels decode to exactly those of the CLI's RGBA
/// PNGs.
pub fn png_fast(p: &Plane) -> Result<Vec<u8>, PngError> {
    let level = if poorly_compressible(p)? { png::Compression::NoCompression } else { png::Compression::Fastest };
    png_at(p, level)
}

/// Rows in each of the [`SAMPLE_BANDS`] bands [`poorly_compressible`] compresses.
const SAMPLE_ROWS: u32 = 4;
/// Bands, spread evenly over the picture, that [`poorly_compressible`] compresses.
const SAMPLE_BANDS: u32 = 8;

/// Whether the fastest compression keeps more than 60 % of the picture's bytes, judged by
/// compressing [`SAMPLE_BANDS`] bands of [`SAMPLE_ROWS`] rows (12 % of a 272-row buffer).
/// On such pictures fdeflate's fastest mode costs 20-30 instructions a byte (15816's and
/// 20204's colour buffers: PNG/raw 0.6-0.7) for little gain, while a stored PNG costs a
/// copy and a checksum; the page grows by the bytes not saved. Colour buffers of the 20
/// shared real-game dumps keep 1-84 % of their bytes (many game frames 50-80 %); depth
/// ramps 1-20 %. The rule reads only the pixels, so the page does not depend on timing.
fn poorly_compressible(p: &Plane) -> Result<bool, PngError> {
    let band = SAMPLE_ROWS * SAMPLE_BANDS;
    if p.height < 2 * band || p.width == 0 {
        return Ok(false);
    }
    let row = p.data.len() / p.height as usize;
    let step = (p.height / SAMPLE_BANDS) as usize;
    let rows = SAMPLE_ROWS as usize;
    let mut data = Vec::with_capacity(band as usize * row);
    for b in 0..SAMPLE_BANDS as usize {
        data.extend_from_slice(&p.data[b * step * row..(b * step + rows) * row]);
    }
    let sample = Plane { width: p.width, height: band, channels: p.channels, data };
    let png = png_at(&sample, png::Compression::Fastest)?;
    Ok(png.len() * 10 > sample.data.len() * 6)
}

fn png_at(p: &Plane, level: png::Compression) -> Result<Vec<u8>, PngError> {
    let colour = match p.channels {
        1 => png::ColorType::Grayscale,
        3 => png::ColorType::Rgb,
        _ => png::ColorType::Rgba,
    };
    // Room for a stored picture up front: no copies while the output grows.
    let mut out = Vec::with_capacity(p.data.len() + p.height as usize * 8 + 1024);
    {
        let mut enc = png::Encoder::new(&mut out, p.width, p.height);
        enc.set_color(colour);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_compression(level);
        let mut w = enc.write_header().map_err(|e| PngError(e.to_string()))?;
        w.write_image_data(&p.data).map_err(|e| PngError(e.to_string()))?;
    }
    Ok(out)
}

/// PNG with fast compression of an indexed picture, at the smallest bit depth that holds
/// its palette (8, or 4/2/1 bits packed for 16/4/2 colours); a tRNS chunk carries the
/// palette's alpha when not opaque. The Up filter stays: fdeflate's fastest mode is built
/// for its runs of zeros (on 15816's 512×512 CLUT textures unfiltered indices were 1.6-2×
/// larger and slower to compress; indexed + Up was 2.5-3.4× smaller and faster than RGB).
/// Decoded with the palette expanded, it gives the same pixels as [`png_fast`] of the image.
pub fn png_indexed(p: &capture::Indexed) -> Result<Vec<u8>, PngError> {
    let err = |e: png::EncodingError| PngError(e.to_string());
    let bits = match p.palette.len() {
        0..=2 => 1,
        3..=4 => 2,
        5..=16 => 4,
        _ => 8,
    };
    let w = p.width as usize;
    let packed: std::borrow::Cow<'_, [u8]> = if bits == 8 || w == 0 {
        (&p.indices[..]).into()
    } else {
        // Rows start on a byte; pixels fill each byte from its high bits.
        let per = 8 / bits;
        let mut out = Vec::with_capacity(w.div_ceil(per) * p.height as usize);
        for row in p.indices.chunks_exact(w) {
            for group in row.chunks(per) {
                let b = group.iter().fold(0u8, |b, &i| (b << bits) | i);
                out.push(b << (bits * (per - group.len())));
            }
        }
        out.into()
    };
    let mut plte: Vec<u8> = p.palette.iter().flat_map(|c| [c[0], c[1], c[2]]).collect();
    if plte.is_empty() {
        plte = vec![0, 0, 0];
    }
    let opaque_tail = p.palette.iter().rev().take_while(|c| c[3] == 255).count();
    let trns: Vec<u8> = p.palette[..p.palette.len() - opaque_tail].iter().map(|c| c[3]).collect();
    let mut out = Vec::with_capacity(packed.len() / 2 + plte.len() + 1024);
    {
        let mut enc = png::Encoder::new(&mut out, p.width, p.height);
        enc.set_color(png::ColorType::Indexed);
        enc.set_depth(png::BitDepth::from_u8(bits as u8).unwrap_or(png::BitDepth::Eight));
        enc.set_palette(plte);
        if !trns.is_empty() {
            enc.set_trns(trns);
        }
        enc.set_compression(png::Compression::Fastest);
        let mut wr = enc.write_header().map_err(err)?;
        wr.write_image_data(&packed).map_err(err)?;
    }
    Ok(out)
}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// The two base64 characters of each 12-bit value, first character in the low byte.
fn pairs() -> &'static [u16; 4096] {
    static PAIRS: OnceLock<[u16; 4096]> = OnceLock::new();
    PAIRS.get_or_init(|| std::array::from_fn(|v| u16::from(ALPHABET[v >> 6]) | (u16::from(ALPHABET[v & 63]) << 8)))
}

/// `bytes` as standard base64 (RFC 4648 alphabet, `=` padding) appended to `out`.
pub fn base64_into(bytes: &[u8], out: &mut Vec<u8>) {
    let t = pairs();
    let start = out.len();
    out.resize(start + bytes.len().div_ceil(3) * 4, 0);
    let whole = bytes.len() / 6;
    let (body, tail) = out[start..].split_at_mut(whole * 8);
    for (o, i) in body.chunks_exact_mut(8).zip(bytes.chunks_exact(6)) {
        let v = u64::from_be_bytes([0, 0, i[0], i[1], i[2], i[3], i[4], i[5]]);
        let q = |s: u32| u64::from(t[((v >> s) & 0xFFF) as usize]);
        o.copy_from_slice(&(q(36) | q(24) << 16 | q(12) << 32 | q(0) << 48).to_le_bytes());
    }
    // The last 0-5 bytes: whole groups of three, then one or two bytes padded with `=`.
    let rest = &bytes[whole * 6..];
    for (o, g) in tail.chunks_mut(4).zip(rest.chunks(3)) {
        let v = g.iter().enumerate().fold(0u32, |v, (k, &b)| v | u32::from(b) << (16 - 8 * k));
        for (k, c) in o.iter_mut().enumerate() {
            *c = if k <= g.len() { ALPHABET[(v >> (18 - 6 * k)) as usize & 63] } else { b'=' };
        }
    }
}

/// `data:image/png;base64,` and `png` in base64, as the page's bytes (ASCII).
pub fn data_uri(png: &[u8]) -> Vec<u8> {
    const HEAD: &[u8] = b"data:image/png;base64,";
    let mut uri = Vec::with_capacity(HEAD.len() + png.len().div_ceil(3) * 4);
    uri.extend_from_slice(HEAD);
    base64_into(png, &mut uri);
    uri
}

#[cfg(test)]
mod tests {
    use super::*;
    use ge::display::Image;

    /// Indexed PNGs decode (palette expanded, as browsers and `Image::from_png` do) to the
    /// pixels of the image, at every bit depth, with odd row lengths and palette alpha.
    #[test]
    fn indexed_png_decodes_to_the_image() {
        for colours in [1u32, 2, 3, 4, 5, 16, 17, 200, 256] {
            for (w, h) in [(1, 1), (7, 3), (13, 5), (64, 2)] {
                // Alpha below 255 on some entries, the last ones opaque (a short tRNS).
                let pal: Vec<[u8; 4]> = (0..colours)
                    .map(|i| [i as u8, (i * 37) as u8, (255 - i) as u8, if i % 3 == 1 { (i * 5) as u8 } else { 255 }])
                    .collect();
                let rgba = (0..w * h).flat_map(|i| pal[(i * 5 + i / w) as usize % pal.len()]).collect();
                let img = Image { width: w, height: h, rgba };
                let ix = capture::Indexed::from_image(&img).unwrap();
                let png = png_indexed(&ix).unwrap();
                assert_eq!(Image::from_png(&png).unwrap(), img, "{colours} colours, {w}x{h}");
            }
        }
    }

    /// Stored and compressed PNGs both decode to the plane: a noisy picture (stored) and a
    /// smooth one (compressed), grey and RGB.
    #[test]
    fn png_fast_keeps_the_pixels_stored_or_compressed() {
        let mut x = 0x1234_5679u32;
        for (channels, noisy) in [(1u8, true), (1, false), (3, true), (3, false)] {
            let (w, h) = (97u32, 80u32);
            let data: Vec<u8> = (0..w * h * u32::from(channels))
                .map(|i| {
                    x ^= x << 13;
                    x ^= x >> 17;
                    x ^= x << 5;
                    if noisy {
                        x as u8
                    } else {
                        (i / 300) as u8
                    }
                })
                .collect();
            let p = Plane { width: w, height: h, channels, data };
            assert_eq!(poorly_compressible(&p).unwrap(), noisy, "c{channels} noisy {noisy}");
            let png = png_fast(&p).unwrap();
            assert_eq!(Image::from_png(&png).unwrap(), p.to_image(), "c{channels} noisy {noisy}");
        }
    }

    /// The table encoder writes what the `base64` crate's standard engine writes, for every
    /// length of tail and for long inputs.
    #[test]
    fn base64_equals_the_standard_engine() {
        use base64::Engine as _;
        let mut x = 0x2545_F491u32;
        let bytes: Vec<u8> = (0..5000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                x as u8
            })
            .collect();
        for len in (0..40).chain([255, 256, 4096, 4999, 5000]) {
            let mut s = b"x".to_vec();
            base64_into(&bytes[..len], &mut s);
            assert_eq!(
                s[1..],
                *base64::engine::general_purpose::STANDARD.encode(&bytes[..len]).as_bytes(),
                "{len} bytes"
            );
        }
    }
}
