//! Encoding rendered frames: PNG stills, animated PNG (APNG through the `png` crate) and GIF
//! (the `gif` crate). Files are written with [`crate::output`] (atomic, folders created).

use ge::display::Image;

/// APNG/GIF frame delay for `fps` as (numerator, denominator) seconds: 1/fps for integral
/// rates, else thousandths.
pub fn frame_delay(fps: f64) -> (u16, u16) {
    let fps = if fps.is_finite() && fps > 0.0 { fps } else { 30.0 };
    if fps.fract() == 0.0 && fps <= 65535.0 {
        (1, fps as u16)
    } else {
        (1000, (fps * 1000.0).round().clamp(1.0, 65535.0) as u16)
    }
}

/// One RGBA PNG.
pub fn png_bytes(img: &Image) -> Result<Vec<u8>, png::EncodingError> {
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, img.width, img.height);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    let mut w = enc.write_header()?;
    w.write_image_data(&img.rgba)?;
    w.finish()?;
    Ok(out)
}

/// An APNG looping forever, every frame shown for 1/`fps` s. All frames share the first
/// frame's size.
pub fn apng_bytes(frames: &[Image], fps: f64) -> anyhow::Result<Vec<u8>> {
    let Some(first) = frames.first() else { anyhow::bail!("no frames to encode") };
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, first.width, first.height);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    enc.set_animated(frames.len() as u32, 0)?;
    let (num, den) = frame_delay(fps);
    enc.set_frame_delay(num, den)?;
    let mut w = enc.write_header()?;
    for f in frames {
        w.write_image_data(&f.rgba)?;
    }
    w.finish()?;
    Ok(out)
}

/// A GIF looping forever; delays in hundredths of a second (GIF's unit), accumulated so the
/// total time stays right at rates that do not divide 100. Pixels with alpha < 128 are
/// transparent.
pub fn gif_bytes(frames: &[Image], fps: f64) -> anyhow::Result<Vec<u8>> {
    let Some(first) = frames.first() else { anyhow::bail!("no frames to encode") };
    let (w, h) = (u16::try_from(first.width)?, u16::try_from(first.height)?);
    let mut out = Vec::new();
    {
        let mut enc = gif::Encoder::new(&mut out, w, h, &[])?;
        enc.set_repeat(gif::Repeat::Infinite)?;
        let fps = if fps.is_finite() && fps > 0.0 { fps } else { 30.0 };
        let mut shown = 0u64;
        for (i, f) in frames.iter().enumerate() {
            let mut rgba = f.rgba.clone();
            for p in rgba.chunks_exact_mut(4) {
                p[3] = if p[3] < 128 { 0 } else { 255 };
            }
            let mut frame = gif::Frame::from_rgba_speed(w, h, &mut rgba, 10);
            let until = (((i + 1) as f64) * 100.0 / fps).round() as u64;
            frame.delay = u16::try_from(until - shown).unwrap_or(u16::MAX);
            shown = until;
            enc.write_frame(&frame)?;
        }
    }
    Ok(out)
}
