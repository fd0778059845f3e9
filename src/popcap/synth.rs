//! Writer-made PopCap animations for tests, goldens and benchmarks: small builders for
//! images, sprites, appends and moves, and the golden feature scene (a plain, a rotated, a
//! skewed, a coloured and an additive layer over two frames).

use super::*;

pub fn image(name: &str, w: i16, h: i16, version: u32) -> ImageDef {
    ImageDef {
        name: Name::new(name),
        size: (version >= 4).then_some([w, h]),
        transform: if version == 1 {
            ImageTransform::Angle { angle: 0, xy: [0, 0] }
        } else {
            ImageTransform::Matrix { acbd: [1310720, 0, 0, 1310720], xy: [0, 0] }
        },
    }
}

pub fn sprite(version: u32, name: &str, frames: Vec<Frame>) -> Sprite {
    let n = frames.len() as i16;
    Sprite {
        name: (version >= 4).then(|| Name::new(name)),
        description: (version >= 6).then(Name::default),
        frame_rate: (version >= 4).then_some(30 << 16),
        work_area: (version >= 5).then_some([0, (n - 1).max(0)]),
        frames,
    }
}

pub fn append(layer: u32, resource: u16, is_sprite: bool) -> Append {
    Append { layer, resource, sprite: is_sprite, additive: false, preload_frames: None, name: None, time_scale: None }
}

/// A translate-only move in pixels (whole twips).
pub fn mv(layer: u32, x: f64, y: f64) -> Change {
    Change {
        layer,
        transform: Move::Translate,
        xy: [(x * 20.0).round() as i32, (y * 20.0).round() as i32],
        long_coords: false,
        src_rect: None,
        color: None,
        anim_frame: None,
    }
}

pub fn frame(appends: Vec<Append>, changes: Vec<Change>) -> Frame {
    Frame {
        appends: (!appends.is_empty()).then_some(appends),
        changes: (!changes.is_empty()).then_some(changes),
        ..Frame::default()
    }
}

pub fn anim(version: u32, images: Vec<ImageDef>, sprites: Vec<Sprite>, main: Sprite) -> Animation {
    Animation {
        version,
        frame_rate: 30,
        position: [0, 0],
        size: [200 * 20, 100 * 20],
        images,
        sprites,
        main_sprite: Some(main),
    }
}

/// A change with a full matrix (`[a, b, c, d]` as 16.16, written in the file's a, c, b, d
/// order) at whole-twip (x, y).
pub fn matrix_move(layer: u32, abcd: [i32; 4], x: f64, y: f64) -> Change {
    let [a, b, c, d] = abcd;
    Change { transform: Move::Matrix { acbd: [a, c, b, d], rotate_bit: false }, ..mv(layer, x, y) }
}

/// The golden feature scene (version 6, 160×120, 30 fps, two frames):
/// * image 0 `box_24x16` (24×16), image 1 `bar(x)[y]|BAR` (32×8), image 2 `$glow|GLOW` (16×16);
/// * layer 0: image 0 at (10, 10); frame 1 moves it to (12.5, 10.25) (sub-pixel);
/// * layer 1: image 1 rotated by exactly 90° (matrix [0, 1, −1, 0]) at (60, 10); frame 1
///   rotates it by 0.524 rad (a rotate move) at (60, 30);
/// * layer 2: image 0 skewed (c = 0.5) at (90, 20);
/// * layer 3: image 1 coloured (255, 128, 0) at (10, 60); frame 1 colours it (0, 255, 255, 128);
/// * layer 4: image 2 additive at (12, 62).
pub fn feature_scene() -> Animation {
    let v = 6;
    let images = vec![image("box_24x16", 24, 16, v), image("bar(x)[y]|BAR", 32, 8, v), image("$glow|GLOW", 16, 16, v)];
    let mut glow = append(4, 2, false);
    glow.additive = true;
    let mut coloured = mv(3, 10.0, 60.0);
    coloured.color = Some([255, 128, 0, 255]);
    let f0 = frame(
        vec![append(0, 0, false), append(1, 1, false), append(2, 0, false), append(3, 1, false), glow],
        vec![
            mv(0, 10.0, 10.0),
            matrix_move(1, [0, 65536, -65536, 0], 60.0, 10.0),
            matrix_move(2, [65536, 0, 32768, 65536], 90.0, 20.0),
            coloured,
            mv(4, 12.0, 62.0),
        ],
    );
    let mut rot = mv(1, 60.0, 30.0);
    rot.transform = Move::Rotate(524);
    let mut recolour = mv(3, 10.0, 60.0);
    recolour.color = Some([0, 255, 255, 128]);
    let f1 = frame(vec![], vec![mv(0, 12.5, 10.25), rot, recolour]);
    let mut a = anim(v, images, vec![], sprite(v, "main", vec![f0, f1]));
    a.size = [160 * 20, 120 * 20];
    a
}

/// Test picture for image `index` of `w`×`h`: r = 10·x, g = 15·y, b = 60·index, opaque.
pub fn test_pixels(index: usize, w: u32, h: u32) -> images::Pixels {
    let mut rgba = Vec::with_capacity((4 * w * h) as usize);
    for y in 0..h {
        for x in 0..w {
            rgba.extend_from_slice(&[
                (10 * x).min(255) as u8,
                (15 * y).min(255) as u8,
                (60 * index).min(255) as u8,
                255,
            ]);
        }
    }
    images::Pixels { width: w, height: h, rgba }
}
