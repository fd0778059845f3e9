//! Writer-made PopCap PAMs: hand-encoded layouts, round trips of every version (fixed and
//! property-generated), hostile inputs, hand-computed evaluation and the runtime timing rules.

use super::eval::Mode;
use super::synth::*;
use super::*;
use proptest::prelude::*;
use std::sync::Arc;

/// A child sprite whose frame k moves its image to x = k (so the draw's tx reads the frame).
fn counting_child(version: u32, frames: usize) -> Sprite {
    let mut f = vec![frame(vec![append(0, 0, false)], vec![mv(0, 0.0, 0.0)])];
    for k in 1..frames {
        f.push(frame(vec![], vec![mv(0, k as f64, 0.0)]));
    }
    sprite(version, "child", f)
}

fn child_frame_of(p: &Player) -> Vec<f64> {
    p.draw_list().iter().map(|d| d.matrix.0[4]).collect()
}

#[test]
fn hand_encoded_v6_layout() {
    // One image, no sprites, a one-frame main sprite appending image 0 at layer 2 and moving
    // it by (1.5, -2) with a colour. Bytes written from §3.1 by hand.
    let mut want: Vec<u8> = Vec::new();
    want.extend_from_slice(&0xBAF0_1954u32.to_le_bytes());
    want.extend_from_slice(&6u32.to_le_bytes());
    want.push(24); // frame rate
    want.extend_from_slice(&[0, 0, 0, 0]); // position
    want.extend_from_slice(&[0x40, 0x06, 0x20, 0x03]); // size 80x40 px = 1600x800 twips
    want.extend_from_slice(&[1, 0]); // image count
    want.extend_from_slice(&[1, 0, b'a']); // name "a"
    want.extend_from_slice(&[8, 0, 4, 0]); // 8x4
    want.extend_from_slice(&[0, 0, 0x14, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x14, 0]); // a c b d = 1, 0, 0, 1
    want.extend_from_slice(&[0, 0, 0, 0]); // x y
    want.extend_from_slice(&[0, 0]); // sprite count
    want.push(1); // main present
    want.extend_from_slice(&[1, 0, b'm', 0, 0]); // name "m", description ""
    want.extend_from_slice(&(24i32 << 16).to_le_bytes());
    want.extend_from_slice(&[1, 0, 0, 0, 0, 0]); // 1 frame, work area 0, 0
    want.push(2 | 4); // append + change
    want.extend_from_slice(&[1, 2, 0, 0]); // 1 append: layer 2, resource 0
    want.extend_from_slice(&[1, 2, 0x20]); // 1 change: layer 2, colour flag
    want.extend_from_slice(&[30, 0, 0xD8, 0xFF]); // x 30 twips, y -40 twips
    want.extend_from_slice(&[255, 128, 0, 64]);
    let mut c = mv(2, 1.5, -2.0);
    c.color = Some([255, 128, 0, 64]);
    let mut main = sprite(6, "m", vec![frame(vec![append(2, 0, false)], vec![c])]);
    main.frame_rate = Some(24 << 16);
    let a = Animation {
        version: 6,
        frame_rate: 24,
        position: [0, 0],
        size: [1600, 800],
        images: vec![image("a", 8, 4, 6)],
        sprites: vec![],
        main_sprite: Some(main),
    };
    assert_eq!(a.to_bytes().unwrap(), want);
    assert_eq!(Animation::parse(&want).unwrap(), a);
    let d = Player::new(Arc::new(Timeline::new(&a).unwrap()), Mode::Play, 0).unwrap().draw_list();
    assert_eq!(d[0].matrix, Affine([1.0, 0.0, 0.0, 1.0, 1.5, -2.0]));
    assert_eq!(d[0].color, [1.0, 128.0 / 255.0, 0.0, 64.0 / 255.0]);
}

/// Every version with every feature it can store.
fn feature_animation(version: u32) -> Animation {
    let mut main_frames =
        vec![frame(vec![append(0, 0, false), append(5, 0, true)], vec![mv(0, 1.0, 2.0), mv(5, -3.0, 4.0)])];
    let mut f1 = Frame { removes: Some(vec![Remove { layer: 0, unused: 0x0800 }]), ..Frame::default() };
    let mut big = append(3000, 1, false);
    big.additive = true;
    big.name = Some(Name::new("named"));
    big.preload_frames = Some(-2);
    big.time_scale = Some(3 << 15);
    f1.appends = Some(vec![big]);
    let mut ch = mv(3000, 0.0, 0.0);
    ch.transform = Move::Matrix { acbd: [65536, 100, -200, 70000], rotate_bit: true };
    ch.long_coords = true;
    ch.xy = [1_000_000, -1_000_000];
    ch.src_rect = Some([1, 2, 3, 4]);
    ch.color = Some([1, 2, 3, 4]);
    ch.anim_frame = Some(7);
    let mut rot = mv(5, 2.0, 2.0);
    rot.transform = Move::Rotate(-1571);
    f1.changes = Some(vec![ch, rot]);
    f1.label = Some(Name::new("loop"));
    f1.stop = true;
    f1.commands = Some(vec![(Name::new("cmd"), Name::new("arg")), (Name::new("x"), Name::default())]);
    main_frames.push(f1);
    main_frames.push(Frame { removes: Some(vec![]), appends: Some(vec![]), changes: Some(vec![]), ..Frame::default() });
    let mut images = vec![image("img_a|A", 16, 8, version), image("img_b(x)[y]|B", 4, 4, version)];
    if version == 1 {
        images[1].transform = ImageTransform::Angle { angle: 785, xy: [-20, 40] };
    } else {
        images[1].transform = ImageTransform::Matrix { acbd: [1, -2, 3, -4], xy: [-20, 40] };
    }
    anim(version, images, vec![counting_child(version, 3)], sprite(version, "main", main_frames))
}

#[test]
fn every_version_round_trips() {
    for v in 1..=6 {
        let a = feature_animation(v);
        let bytes = a.to_bytes().unwrap_or_else(|e| panic!("v{v}: {e}"));
        assert_eq!(Animation::parse(&bytes).unwrap(), a, "v{v}");
        assert_eq!(Animation::parse(&bytes).unwrap().to_bytes().unwrap(), bytes, "v{v}");
    }
    // v4+ may omit the main sprite.
    let mut a = feature_animation(4);
    a.main_sprite = None;
    assert_eq!(Animation::parse(&a.to_bytes().unwrap()).unwrap(), a);
    let mut a = feature_animation(3);
    a.main_sprite = None;
    assert!(matches!(a.to_bytes(), Err(PopcapError::Unwritable { .. })));
}

#[test]
fn escapes_and_wide_counts() {
    // 300 images: the v6 resource escape (255 + u16) and a 300-item append (255 + u16 count).
    let images: Vec<ImageDef> = (0..300).map(|i| image(&format!("i{i}"), 2, 2, 6)).collect();
    let appends: Vec<Append> = (0..300).map(|i| append(i * 7, i as u16, false)).collect();
    let a = anim(6, images.clone(), vec![], sprite(6, "m", vec![frame(appends.clone(), vec![])]));
    let bytes = a.to_bytes().unwrap();
    assert_eq!(Animation::parse(&bytes).unwrap(), a);
    // Resource 254 is one byte, 255 is 255 + u16 (§3.1 "version 6 adds a 255 → u16 escape").
    let one = |r: u16| {
        let a = anim(6, images.clone(), vec![], sprite(6, "m", vec![frame(vec![append(1, r, false)], vec![])]));
        a.to_bytes().unwrap().len()
    };
    assert_eq!(one(255) - one(254), 2);
    // Versions before 6 cannot store resource 256.
    let v5 = anim(
        5,
        images.iter().map(|i| ImageDef { ..i.clone() }).collect(),
        vec![],
        sprite(5, "m", vec![frame(vec![append(1, 256, false)], vec![])]),
    );
    assert!(matches!(v5.to_bytes(), Err(PopcapError::Unwritable { .. })));
    // Layer 0x7FE is direct, 0x7FF escapes (2 + 4 bytes); changes escape from 0x3FF.
    let size = |layer: u32| {
        let a = anim(
            6,
            vec![image("a", 1, 1, 6)],
            vec![],
            sprite(6, "m", vec![frame(vec![append(layer, 0, false)], vec![mv(layer, 0.0, 0.0)])]),
        );
        let b = a.to_bytes().unwrap();
        assert_eq!(Animation::parse(&b).unwrap(), a);
        b.len()
    };
    assert_eq!(size(0x3FE), size(0));
    assert_eq!(size(0x3FF) - size(0), 4);
    assert_eq!(size(0x7FF) - size(0), 8);
}

#[test]
fn needless_escape_is_read() {
    // Remove of layer 5 written with the 0x7FF escape: read as layer 5 (rewritten shorter).
    let a = anim(6, vec![image("a", 1, 1, 6)], vec![], sprite(6, "m", vec![frame(vec![append(5, 0, false)], vec![])]));
    let mut b = a.to_bytes().unwrap();
    let n = b.len();
    assert_eq!(b[n - 11], 1);
    b[n - 11] = 2; // frame count 1 -> 2 (before the work area and the 5-byte frame)
    b.extend_from_slice(&[1, 1, 0xFF, 0x07, 5, 0, 0, 0]);
    let p = Animation::parse(&b).unwrap();
    assert_eq!(p.main().unwrap().frames[1].removes, Some(vec![Remove { layer: 5, unused: 0 }]));
}

fn err_offset(e: &PopcapError) -> Option<usize> {
    match e {
        PopcapError::Truncated { offset, .. }
        | PopcapError::Invalid { offset, .. }
        | PopcapError::Trailing { offset, .. } => Some(*offset),
        PopcapError::BadMagic { .. } | PopcapError::Version { .. } => Some(0),
        _ => None,
    }
}

#[test]
fn every_truncation_is_an_error_with_offset() {
    for v in 1..=6 {
        let b = feature_animation(v).to_bytes().unwrap();
        for n in 0..b.len() {
            let e = Animation::parse(&b[..n]).expect_err("truncated file parsed");
            let off = err_offset(&e).expect("error names an offset");
            assert!(off <= n, "v{v} cut at {n}: offset {off} past the end ({e})");
            assert!(e.to_string().contains("offset"), "{e}");
        }
    }
}

#[test]
fn hostile_inputs() {
    let base = feature_animation(6);
    let ok = base.to_bytes().unwrap();
    let parse = |b: &[u8]| Animation::parse(b).unwrap_err();
    // Bad magic, version.
    assert!(matches!(parse(&[0; 16]), PopcapError::BadMagic { .. }));
    let mut b = ok.clone();
    b[4] = 7;
    assert_eq!(parse(&b), PopcapError::Version { version: 7 });
    // Trailing bytes.
    let mut b = ok.clone();
    b.push(0);
    assert_eq!(parse(&b), PopcapError::Trailing { offset: ok.len(), extra: 1 });
    // Lying image count: 65535 images in a small file -> truncated, no huge allocation.
    let mut b = ok.clone();
    b[17..19].copy_from_slice(&[0xFF, 0xFF]);
    assert!(matches!(parse(&b), PopcapError::Truncated { .. }));
    // Absurd string length.
    let mut b = ok.clone();
    b[19..21].copy_from_slice(&[0xFF, 0xFF]);
    assert!(matches!(parse(&b), PopcapError::Truncated { offset: 21, need: 65535, .. }));
    // Resource past the image list; sprite cycle; change of an absent layer; unknown flags.
    let bad_res =
        anim(6, vec![image("a", 1, 1, 6)], vec![], sprite(6, "m", vec![frame(vec![append(0, 1, false)], vec![])]));
    let e = parse(&raw(&bad_res));
    assert!(e.to_string().contains("image 1, but there are 1"), "{e}");
    let selfref = sprite(6, "s", vec![frame(vec![append(0, 0, true)], vec![])]);
    let cyc = anim(6, vec![], vec![selfref], sprite(6, "m", vec![]));
    let e = parse(&raw(&cyc));
    assert!(matches!(e, PopcapError::Invalid { .. }) && e.to_string().contains("draws sprite 0"), "{e}");
    let a_b = sprite(6, "a", vec![frame(vec![append(0, 1, true)], vec![])]);
    let b_a = sprite(6, "b", vec![frame(vec![append(0, 0, true)], vec![])]);
    let e = parse(&raw(&anim(6, vec![], vec![a_b, b_a], sprite(6, "m", vec![]))));
    assert!(e.to_string().contains("indirectly"), "{e}");
    let ghost = anim(6, vec![image("a", 1, 1, 6)], vec![], sprite(6, "m", vec![frame(vec![], vec![mv(9, 0.0, 0.0)])]));
    let e = parse(&raw(&ghost));
    assert!(e.to_string().contains("layer 9, which is not present"), "{e}");
    let mut b = raw(&anim(6, vec![], vec![], sprite(6, "m", vec![Frame::default()])));
    let last = b.len() - 1;
    b[last] = 0x40;
    assert!(parse(&b).to_string().contains("bits 6-7"));
    // Escaped index past the end of the file.
    let a =
        anim(6, vec![image("a", 1, 1, 6)], vec![], sprite(6, "m", vec![frame(vec![append(0x7FF, 0, false)], vec![])]));
    let b = a.to_bytes().unwrap();
    let cut = b.len() - 3; // inside the u32 index
    assert!(matches!(parse(&b[..cut]), PopcapError::Truncated { what: "append index", .. }));
}

/// Bytes without the writer's checks mattering (the writer does not validate references).
fn raw(a: &Animation) -> Vec<u8> {
    a.to_bytes().expect("writer accepts")
}

#[test]
fn absurd_layer_state_count_is_an_error() {
    // 2000 frames each holding 2047 layers would be 4M states: refused, not allocated. The
    // file itself stays small because layers persist across frames.
    let appends: Vec<Append> = (0..2047).map(|i| append(i, 0, false)).collect();
    let mut frames = vec![frame(appends, vec![])];
    frames.extend((0..2000).map(|_| Frame::default()));
    let a = anim(6, vec![image("a", 1, 1, 6)], vec![], sprite(6, "m", frames));
    let a = Animation::parse(&a.to_bytes().unwrap()).unwrap();
    let e = Timeline::new(&a).unwrap_err();
    assert!(e.to_string().contains("layer states"), "{e}");
}

// ---- evaluation, hand-computed ----

#[test]
fn composition_colour_additive_and_alpha_skip() {
    let v = 6;
    // Image 0 scaled by 2 at (1, 0); a child sprite (layer 0 = image 0, colour half red);
    // the main puts the child at (10, 20) rotated by 90° via a matrix, additive, and a second
    // image layer with alpha 0.
    let mut img = image("i", 4, 2, v);
    img.transform = ImageTransform::Matrix { acbd: [2 * 1310720, 0, 0, 2 * 1310720], xy: [20, 0] };
    let mut cc = mv(0, 0.0, 0.0);
    cc.color = Some([255, 0, 0, 128]);
    let child = sprite(v, "c", vec![frame(vec![append(0, 0, false)], vec![cc])]);
    let mut sp = append(1, 0, true);
    sp.additive = true;
    let mut m = mv(1, 10.0, 20.0);
    // a c b d = 0 -1 1 0: x' = -y, y' = x (90°).
    m.transform = Move::Matrix { acbd: [0, -65536, 65536, 0], rotate_bit: false };
    m.color = Some([255, 255, 255, 255]);
    let mut hidden = mv(2, 0.0, 0.0);
    hidden.color = Some([255, 255, 255, 0]);
    let main = sprite(v, "m", vec![frame(vec![append(1, 0, true), append(2, 0, false)], vec![m, hidden])]);
    let mut main_only = main.clone();
    main_only.frames[0].appends.as_mut().unwrap()[0] = sp;
    let a = anim(v, vec![img], vec![child], main_only);
    let a = Animation::parse(&a.to_bytes().unwrap()).unwrap();
    let d = Player::new(Arc::new(Timeline::new(&a).unwrap()), Mode::Play, 0).unwrap().draw_list();
    assert_eq!(d.len(), 1, "the alpha-0 layer is skipped");
    // Image: x' = 2x + 1, y' = 2y. Parent: X = -y' + 10, Y = x' + 20.
    // => X = -2y + 10, Y = 2x + 21: a = 0, b = 2, c = -2, d = 0, tx = 10, ty = 21.
    assert_eq!(d[0].matrix, Affine([0.0, 2.0, -2.0, 0.0, 10.0, 21.0]));
    assert_eq!(d[0].color, [1.0, 0.0, 0.0, 128.0 / 255.0]);
    assert!(d[0].additive, "additive is inherited from the sprite layer");
}

#[test]
fn version_2_rotate_sign_quirk_and_identity_snap() {
    for (v, sign) in [(2u32, -1.0), (3, 1.0)] {
        let mut r = mv(0, 0.0, 0.0);
        r.transform = Move::Rotate(500); // 0.5 rad
        let mut img = image("i", 4, 4, v);
        // Within 0.005 of the identity: dropped by the runtime.
        img.transform = ImageTransform::Matrix { acbd: [1310720 + 5000, 0, 0, 1310720], xy: [0, 0] };
        let a = anim(v, vec![img], vec![], sprite(v, "m", vec![frame(vec![append(0, 0, false)], vec![r])]));
        let d = Player::new(Arc::new(Timeline::new(&a).unwrap()), Mode::Play, 0).unwrap().draw_list();
        let (s, c) = 0.5f64.sin_cos();
        assert_eq!(d[0].matrix, Affine([c, sign * s, -sign * s, c, 0.0, 0.0]), "v{v}");
    }
}

// ---- runtime timing (doc §3.2 Timing), hand-made files ----

/// Main: frame 0 appends a counting child at layer 1; `extra` frames follow.
fn timing_anim(child_frames: usize, main_frames: Vec<Frame>, time_scale: Option<i32>) -> Animation {
    let v = 6;
    let mut ap = append(1, 0, true);
    ap.time_scale = time_scale;
    let mut frames = vec![frame(vec![ap], vec![mv(1, 0.0, 0.0)])];
    frames.extend(main_frames);
    anim(v, vec![image("i", 2, 2, v)], vec![counting_child(v, child_frames)], sprite(v, "m", frames))
}

#[test]
fn removed_and_readded_child_restarts() {
    let remove = Frame { removes: Some(vec![Remove { layer: 1, unused: 0 }]), ..Frame::default() };
    let readd = frame(vec![append(1, 0, true)], vec![mv(1, 0.0, 0.0)]);
    let a = timing_anim(10, vec![Frame::default(), Frame::default(), remove, readd, Frame::default()], None);
    let mut p = Player::new(Arc::new(Timeline::new(&a).unwrap()), Mode::Play, 0).unwrap();
    let mut seen = vec![child_frame_of(&p)];
    for _ in 0..5 {
        p.tick();
        seen.push(child_frame_of(&p));
    }
    // Frames 0-2 present (child 0, 1, 2), frame 3 absent, frame 4 re-added (0), frame 5 (1).
    assert_eq!(seen, vec![vec![0.0], vec![1.0], vec![2.0], vec![], vec![0.0], vec![1.0]]);
    // Removed and appended again on the same frame: also a new layer.
    let mut both = frame(vec![append(1, 0, true)], vec![mv(1, 0.0, 0.0)]);
    both.removes = Some(vec![Remove { layer: 1, unused: 0 }]);
    let a = timing_anim(10, vec![Frame::default(), both], None);
    let mut p = Player::new(Arc::new(Timeline::new(&a).unwrap()), Mode::Play, 0).unwrap();
    p.tick();
    assert_eq!(child_frame_of(&p), [1.0]);
    p.tick();
    assert_eq!(child_frame_of(&p), [0.0]);
}

#[test]
fn time_scale_two_halves_the_advance() {
    let a = timing_anim(10, (0..6).map(|_| Frame::default()).collect(), Some(2 << 16));
    let mut p = Player::new(Arc::new(Timeline::new(&a).unwrap()), Mode::Play, 0).unwrap();
    let mut seen = vec![child_frame_of(&p)[0]];
    for _ in 0..6 {
        p.tick();
        seen.push(child_frame_of(&p)[0]);
    }
    assert_eq!(seen, [0.0, 0.0, 1.0, 1.0, 2.0, 2.0, 3.0]);
}

#[test]
fn stop_freezes_main_and_children() {
    let stop = Frame { stop: true, ..Frame::default() };
    let a = timing_anim(10, vec![Frame::default(), stop, Frame::default()], None);
    let tl = Arc::new(Timeline::new(&a).unwrap());
    let mut p = Player::new(Arc::clone(&tl), Mode::Play, 0).unwrap();
    for _ in 0..5 {
        p.tick();
    }
    assert_eq!(p.frame(), 2, "the main timeline stays on the STOP frame");
    assert!(p.stopped());
    assert_eq!(child_frame_of(&p), [2.0], "the child is frozen with its parent");
    // Scrubbing passes the STOP.
    let s = Player::scrubbed(tl, 3).unwrap();
    assert_eq!((s.frame(), child_frame_of(&s)), (3, vec![3.0]));
}

#[test]
fn work_area_loops() {
    let mut a = timing_anim(10, (0..5).map(|_| Frame::default()).collect(), None);
    // Work area start 1, duration 2: frames 1..=3 loop.
    a.main_sprite.as_mut().unwrap().work_area = Some([1, 2]);
    let mut p = Player::new(Arc::new(Timeline::new(&a).unwrap()), Mode::Play, 0).unwrap();
    let mut seen = vec![p.frame()];
    for _ in 0..7 {
        p.tick();
        seen.push(p.frame());
    }
    assert_eq!(seen, [0, 1, 2, 3, 1, 2, 3, 1]);
    // The runtime's clamp: duration past the end is cut to the last frame.
    a.main_sprite.as_mut().unwrap().work_area = Some([2, 100]);
    assert_eq!(a.main().unwrap().work_area(), (2, 5));
}

#[test]
fn child_wraps_at_its_frame_count() {
    let a = timing_anim(3, (0..4).map(|_| Frame::default()).collect(), None);
    let mut p = Player::new(Arc::new(Timeline::new(&a).unwrap()), Mode::Play, 0).unwrap();
    let mut seen = vec![child_frame_of(&p)[0]];
    for _ in 0..4 {
        p.tick();
        seen.push(child_frame_of(&p)[0]);
    }
    assert_eq!(seen, [0.0, 1.0, 2.0, 0.0, 1.0]);
}

// ---- property tests ----

/// A valid animation of `version` from a seed (xorshift): layers exist before they change,
/// resources in range, sprites only reference earlier sprites.
pub(crate) fn generated(version: u32, seed: u64) -> Animation {
    let mut s = seed | 1;
    let mut rnd = move |n: u64| {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s % n.max(1)
    };
    let name = |r: &mut dyn FnMut(u64) -> u64| Name((0..r(6)).map(|_| b'a' + r(26) as u8).collect());
    let n_images = rnd(4) as usize + 1;
    let images: Vec<ImageDef> = (0..n_images)
        .map(|_| ImageDef {
            name: name(&mut rnd),
            size: (version >= 4).then(|| [rnd(300) as i16, rnd(300) as i16]),
            transform: if version == 1 {
                ImageTransform::Angle { angle: rnd(65536) as i16, xy: [rnd(65536) as i16, rnd(65536) as i16] }
            } else {
                ImageTransform::Matrix {
                    acbd: [0; 4].map(|_| rnd(1 << 32) as u32 as i32),
                    xy: [rnd(65536) as i16, rnd(65536) as i16],
                }
            },
        })
        .collect();
    let make_sprite = |earlier: usize, rnd: &mut dyn FnMut(u64) -> u64| {
        let mut live: Vec<u32> = Vec::new();
        let frames = (0..rnd(5))
            .map(|_| {
                let mut f = Frame::default();
                if rnd(3) == 0 && !live.is_empty() {
                    let k = rnd(live.len() as u64) as usize;
                    let layer = live.remove(k);
                    f.removes = Some(vec![Remove { layer, unused: (rnd(32) as u16) << 11 }]);
                }
                if rnd(2) == 0 {
                    let mut v = Vec::new();
                    for _ in 0..rnd(3) {
                        let layer = [rnd(20), 0x3FF + rnd(3), 0x7FE + rnd(3), rnd(1 << 32)][rnd(4) as usize] as u32;
                        let is_sprite = earlier > 0 && rnd(3) == 0;
                        let resource = rnd(if is_sprite { earlier } else { n_images } as u64) as u16;
                        v.push(Append {
                            layer,
                            resource,
                            sprite: is_sprite,
                            additive: rnd(2) == 0,
                            preload_frames: (rnd(2) == 0).then(|| rnd(65536) as i16),
                            name: (rnd(2) == 0).then(|| name(rnd)),
                            time_scale: (rnd(2) == 0).then(|| rnd(1 << 32) as u32 as i32),
                        });
                        if !live.contains(&layer) {
                            live.push(layer);
                        }
                    }
                    f.appends = Some(v);
                }
                if !live.is_empty() && rnd(2) == 0 {
                    let mut v = Vec::new();
                    for _ in 0..rnd(3) {
                        let layer = live[rnd(live.len() as u64) as usize];
                        let long_coords = rnd(2) == 0;
                        let co = |r: &mut dyn FnMut(u64) -> u64| {
                            if long_coords {
                                r(1 << 32) as u32 as i32
                            } else {
                                i32::from(r(65536) as u16 as i16)
                            }
                        };
                        v.push(Change {
                            layer,
                            transform: match rnd(3) {
                                0 => Move::Translate,
                                1 => Move::Rotate(rnd(65536) as i16),
                                _ => Move::Matrix {
                                    acbd: [0; 4].map(|_| rnd(1 << 32) as u32 as i32),
                                    rotate_bit: rnd(2) == 0,
                                },
                            },
                            xy: [co(rnd), co(rnd)],
                            long_coords,
                            src_rect: (rnd(2) == 0).then(|| [0; 4].map(|_| rnd(65536) as i16)),
                            color: (rnd(2) == 0).then(|| [0; 4].map(|_| rnd(256) as u8)),
                            anim_frame: (rnd(2) == 0).then(|| rnd(65536) as i16),
                        });
                    }
                    f.changes = Some(v);
                }
                if rnd(3) == 0 {
                    f.label = Some(name(rnd));
                }
                f.stop = rnd(4) == 0;
                if rnd(4) == 0 {
                    f.commands = Some((0..rnd(3)).map(|_| (name(rnd), name(rnd))).collect());
                }
                f
            })
            .collect();
        Sprite {
            name: (version >= 4).then(|| name(rnd)),
            description: (version >= 6).then(|| name(rnd)),
            frame_rate: (version >= 4).then(|| rnd(1 << 32) as u32 as i32),
            work_area: (version >= 5).then(|| [rnd(65536) as i16, rnd(65536) as i16]),
            frames,
        }
    };
    let n_sprites = rnd(3) as usize;
    let sprites: Vec<Sprite> = (0..n_sprites).map(|i| make_sprite(i, &mut rnd)).collect();
    let main = (version <= 3 || rnd(4) != 0).then(|| make_sprite(n_sprites, &mut rnd));
    Animation {
        version,
        frame_rate: rnd(256) as u8,
        position: [rnd(65536) as i16, rnd(65536) as i16],
        size: [rnd(65536) as u16, rnd(65536) as u16],
        images,
        sprites,
        main_sprite: main,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn generated_round_trip(version in 1u32..=6, seed in any::<u64>()) {
        let a = generated(version, seed);
        let b = a.to_bytes().unwrap();
        prop_assert_eq!(&Animation::parse(&b).unwrap(), &a);
        // Evaluating every frame never panics.
        if a.main_sprite.as_ref().is_some_and(|m| !m.frames.is_empty()) {
            let tl = Arc::new(Timeline::new(&a).unwrap());
            let mut p = Player::new(tl, Mode::Scrub, 0).unwrap();
            for _ in 0..a.main().unwrap().frames.len() {
                let _ = p.draw_list();
                p.tick();
            }
        }
    }

    #[test]
    fn corruption_never_panics(version in 1u32..=6, seed in any::<u64>(), edits in prop::collection::vec((any::<usize>(), any::<u8>()), 1..8)) {
        let mut b = generated(version, seed).to_bytes().unwrap();
        for (at, v) in edits {
            let n = b.len();
            b[at % n] = v;
        }
        if let Ok(a) = Animation::parse(&b) {
            if let Ok(tl) = Timeline::new(&a) {
                if let Ok(mut p) = Player::new(Arc::new(tl), Mode::Play, 0) {
                    for _ in 0..20 {
                        let _ = p.draw_list();
                        p.tick();
                    }
                }
            }
        } else if let Err(e) = Animation::parse(&b) {
            prop_assert!(e.to_string().contains("offset"), "{}", e);
        }
    }
}
