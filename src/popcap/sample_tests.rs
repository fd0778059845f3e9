//! The acceptance checks of animation-formats.md §3.4 on the shared samples (skipped with a
//! message when `../shared` is absent): the SUNSHROOM_GROWN header, images, sprites,
//! labels, stops and commands; the whole parse against `SUNSHROOM_GROWN.decoded.json`; the
//! reference draw lists; `synthetic_features_v6` against its expected JSON; byte-identical
//! rewrites.

use super::eval::{bounds, Mode};
use super::*;
use serde_json::{json, Value};
use std::sync::Arc;

fn load(name: &str) -> Option<(Vec<u8>, Animation)> {
    let path = crate::shared::sample(&format!("popcap-pam/{name}"))?;
    let bytes = std::fs::read(&path).expect("read sample");
    let anim = Animation::parse(&bytes).expect("sample parses");
    Some((bytes, anim))
}

fn json_file(name: &str) -> Option<Value> {
    let path = crate::shared::sample(&format!("popcap-pam/{name}"))?;
    Some(serde_json::from_slice(&std::fs::read(path).expect("read json")).expect("valid json"))
}

/// Our parse in the throwaway decoder's schema (matrices [a, b, c, d], scaled values).
fn decoded(a: &Animation, len: usize) -> Value {
    let image = |i: &ImageDef| {
        let Affine([ma, mb, mc, md, x, y]) = i.transform.affine();
        json!({"name": i.name.text(), "size": i.size, "matrix_as_a_c_b_d_order": [ma, mb, mc, md], "xy": [x, y]})
    };
    let frame = |f: &Frame| {
        let mut o = serde_json::Map::new();
        if let Some(v) = &f.removes {
            o.insert("remove".into(), json!(v.iter().map(|r| r.layer).collect::<Vec<_>>()));
        }
        if let Some(v) = &f.appends {
            let items: Vec<Value> = v
                .iter()
                .map(|p| {
                    let mut m =
                        json!({"index": p.layer, "resource": p.resource, "sprite": p.sprite, "additive": p.additive});
                    if let Some(x) = p.preload_frames {
                        m["preload_frame"] = json!(x);
                    }
                    if let Some(n) = &p.name {
                        m["name"] = json!(n.text());
                    }
                    if let Some(t) = p.time_scale {
                        m["time_scale"] = json!(f64::from(t) / FIXED);
                    }
                    m
                })
                .collect();
            o.insert("append".into(), json!(items));
        }
        if let Some(v) = &f.changes {
            let items: Vec<Value> = v
                .iter()
                .map(|c| {
                    let mut m = json!({"index": c.layer});
                    match c.transform {
                        Move::Translate => {}
                        Move::Rotate(r) => m["rotate"] = json!(f64::from(r) / 1000.0),
                        Move::Matrix { acbd: [a, cc, b, d], .. } => {
                            m["matrix"] = json!([a, b, cc, d].map(|v| f64::from(v) / FIXED))
                        }
                    }
                    m["xy"] = json!(c.xy.map(|v| f64::from(v) / TWIPS));
                    if let Some(r) = c.src_rect {
                        m["src_rect"] = json!(r.map(|v| f64::from(v) / TWIPS));
                    }
                    if let Some(col) = c.color {
                        m["color"] = json!(col.map(|v| f64::from(v) / 255.0));
                    }
                    if let Some(n) = c.anim_frame {
                        m["sprite_frame_number"] = json!(n);
                    }
                    m
                })
                .collect();
            o.insert("change".into(), json!(items));
        }
        if let Some(l) = &f.label {
            o.insert("label".into(), json!(l.text()));
        }
        if f.stop {
            o.insert("stop".into(), json!(true));
        }
        if let Some(v) = &f.commands {
            o.insert("command".into(), json!(v.iter().map(|(c, a)| [c.text(), a.text()]).collect::<Vec<_>>()));
        }
        Value::Object(o)
    };
    let sprite = |s: &Sprite| {
        json!({
            "name": s.name.as_ref().map(Name::text),
            "description": s.description.as_ref().map(Name::text),
            "frame_rate": s.fps(a.frame_rate),
            "work_area": s.work_area,
            "frames": s.frames.iter().map(frame).collect::<Vec<_>>(),
        })
    };
    json!({
        "version": a.version,
        "frame_rate": a.frame_rate,
        "position": a.position.map(|v| f64::from(v) / TWIPS),
        "size": a.size.map(|v| f64::from(v) / TWIPS),
        "images": a.images.iter().map(image).collect::<Vec<_>>(),
        "sprites": a.sprites.iter().map(sprite).collect::<Vec<_>>(),
        "main_sprite": a.main_sprite.as_ref().map(sprite),
        "bytes_consumed": len,
        "file_size": len,
    })
}

/// Structural equality with numbers within `tol`; the first difference as a path.
fn same(a: &Value, b: &Value, tol: f64, path: &str) -> Result<(), String> {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let (x, y) = (x.as_f64().unwrap_or(f64::NAN), y.as_f64().unwrap_or(f64::NAN));
            if (x - y).abs() <= tol {
                Ok(())
            } else {
                Err(format!("{path}: {x} != {y}"))
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            if x.len() != y.len() {
                return Err(format!("{path}: {} items != {}", x.len(), y.len()));
            }
            x.iter().zip(y).enumerate().try_for_each(|(i, (p, q))| same(p, q, tol, &format!("{path}[{i}]")))
        }
        (Value::Object(x), Value::Object(y)) => {
            let mut kx: Vec<_> = x.keys().collect();
            let mut ky: Vec<_> = y.keys().collect();
            kx.sort();
            ky.sort();
            if kx != ky {
                return Err(format!("{path}: keys {kx:?} != {ky:?}"));
            }
            x.iter().try_for_each(|(k, v)| same(v, &y[k], tol, &format!("{path}.{k}")))
        }
        _ if a == b => Ok(()),
        _ => Err(format!("{path}: {a} != {b}")),
    }
}

#[test]
fn sunshroom_header_and_structure() {
    let Some((bytes, a)) = load("SUNSHROOM_GROWN.PAM") else { return };
    assert_eq!(bytes.len(), 14_961, "all 14 961 bytes consumed (the parser rejects trailing bytes)");
    assert_eq!((a.version, a.frame_rate, a.pixel_size()), (6, 30, [390, 390]));
    assert_eq!(a.images.len(), 15);
    let i0 = &a.images[0];
    assert_eq!(i0.name.text(), "sunshroom_grown_87x95|IMAGE_PLANT_SUNSHROOM_GROWN_SUNSHROOM_GROWN_87X95");
    assert_eq!(i0.size, Some([87, 95]));
    let Affine(m) = i0.transform.affine();
    for (got, want) in m.iter().zip([1.5263641, 0.0, 0.0, 1.5263641, -64.05, -130.05]) {
        assert!((got - want).abs() < 1e-6, "image 0 matrix {m:?}");
    }
    assert_eq!(a.sprites.len(), 16);
    assert!(a.sprites.iter().all(|s| s.frames.len() == 1));
    assert_eq!(a.sprites[0].name.as_ref().map(Name::text).as_deref(), Some("_Sunshroom_body"));
    let main = a.main().unwrap();
    assert_eq!((main.frames.len(), main.work_area()), (135, (0, 134)));
    let labels: Vec<(u32, String)> = main.labels();
    let want: Vec<(u32, String)> =
        [(0, "idle"), (30, "special"), (90, "plantfood_on"), (105, "plantfood"), (120, "plantfood_off")]
            .map(|(f, l)| (f, l.to_string()))
            .to_vec();
    assert_eq!(labels, want);
    let stops: Vec<usize> = (0..main.frames.len()).filter(|&i| main.frames[i].stop).collect();
    assert_eq!(stops, [29, 89, 104, 119, 134]);
    let commands: Vec<(usize, String)> = main
        .frames
        .iter()
        .enumerate()
        .flat_map(|(i, f)| f.commands.iter().flatten().map(move |(c, _)| (i, c.text())))
        .collect();
    let want: Vec<(usize, String)> =
        [(47, "use_action"), (108, "use_special"), (112, "use_special"), (116, "use_special")]
            .map(|(f, c)| (f, c.to_string()))
            .to_vec();
    assert_eq!(commands, want);
    assert_eq!(main.clip("special"), Some((30, 89)));
}

#[test]
fn sunshroom_matches_decoded_json() {
    let Some((bytes, a)) = load("SUNSHROOM_GROWN.PAM") else { return };
    let Some(mut want) = json_file("SUNSHROOM_GROWN.decoded.json") else { return };
    want.as_object_mut().unwrap().remove("note");
    same(&decoded(&a, bytes.len()), &want, 1e-9, "$").unwrap();
}

#[test]
fn samples_rewrite_byte_identical() {
    for name in ["SUNSHROOM_GROWN.PAM", "synthetic_features_v6.pam"] {
        let Some((bytes, a)) = load(name) else { return };
        assert_eq!(a.to_bytes().unwrap(), bytes, "{name}");
    }
}

fn draw_json(d: &Draw) -> Value {
    let path: Vec<Value> = d
        .path
        .iter()
        .map(|s| match s.frame {
            Some(f) => json!([s.layer, "sprite", s.resource, f]),
            None => json!([s.layer, if s.sprite { "sprite" } else { "image" }, s.resource]),
        })
        .collect();
    json!({"layer_path": path, "image": d.image, "matrix": d.matrix.0, "color": d.color, "additive": d.additive,
           "src_rect": d.src_rect})
}

#[test]
fn sunshroom_reference_draw_lists() {
    let Some((_, a)) = load("SUNSHROOM_GROWN.PAM") else { return };
    let Some(want) = json_file("SUNSHROOM_GROWN.reference-drawlist.json") else { return };
    let tl = Arc::new(Timeline::new(&a).unwrap());
    let frames = want["frames"].as_object().unwrap();
    assert_eq!(
        frames.keys().map(|k| k.parse::<u32>().unwrap()).collect::<std::collections::BTreeSet<_>>(),
        [0, 30, 47, 90, 105, 134].into()
    );
    for (f, w) in frames {
        let p = Player::scrubbed(Arc::clone(&tl), f.parse().unwrap()).unwrap();
        let draws = p.draw_list();
        let wd = w["draws"].as_array().unwrap();
        assert_eq!(draws.len(), wd.len(), "frame {f} draw count");
        assert_eq!(w["draw_count"].as_u64(), Some(draws.len() as u64));
        for (i, (d, e)) in draws.iter().zip(wd).enumerate() {
            let mut ours = draw_json(d);
            let o = ours.as_object_mut().unwrap();
            o.remove("additive");
            o.remove("src_rect");
            // This reference's sprite steps carry no child frame.
            for step in o["layer_path"].as_array_mut().unwrap() {
                step.as_array_mut().unwrap().truncate(3);
            }
            let size = a.images[d.image].pixel_size();
            o.insert("quad".into(), json!(d.quad(size)));
            o.insert("name".into(), json!(images::lookup_key(&a.images[d.image].name.text())));
            // The reference rounds matrices to 6 decimals and quads to 4.
            same(&ours, e, 1e-4, &format!("frame {f} draw {i}")).unwrap();
        }
        let b = bounds(&a, &draws).unwrap();
        same(&json!(b), &w["bbox"], 1e-3, &format!("frame {f} bbox")).unwrap();
    }
    // The doc's spelled-out values.
    let p0 = Player::scrubbed(Arc::clone(&tl), 0).unwrap().draw_list();
    assert_eq!((p0.len(), p0[0].image), (16, 0));
    same(&json!(p0[0].matrix.0), &json!([1.0, 0.0, 0.0, 1.0, 153.637555, 149.297565]), 1e-4, "frame 0 draw 0").unwrap();
    same(&json!(bounds(&a, &p0)), &json!([153.303, 119.119, 240.762, 244.298]), 1e-3, "frame 0 bbox").unwrap();
    let p90 = Player::scrubbed(Arc::clone(&tl), 90).unwrap().draw_list();
    assert_eq!(p90.len(), 18);
    same(&json!(bounds(&a, &p90)), &json!([118.782, -43.275, 276.783, 303.856]), 1e-3, "frame 90 bbox").unwrap();
}

#[test]
fn synthetic_features_expected() {
    let Some((bytes, a)) = load("synthetic_features_v6.pam") else { return };
    let Some(want) = json_file("synthetic_features_v6.expected.json") else { return };
    assert_eq!(bytes.len(), 303);
    same(&decoded(&a, bytes.len()), &want["decoded"], 1e-9, "decoded").unwrap();
    let tl = Arc::new(Timeline::new(&a).unwrap());
    let lists = want["drawlists"].as_object().unwrap();
    assert_eq!(lists.len(), 4);
    let mut p = Player::new(Arc::clone(&tl), Mode::Scrub, 0).unwrap();
    for f in 0..4u32 {
        if f > 0 {
            p.tick();
        }
        assert_eq!(p.frame(), f);
        let ours: Vec<Value> = p.draw_list().iter().map(draw_json).collect();
        same(&json!(ours), &lists[&f.to_string()], 1e-6, &format!("frame {f}")).unwrap();
    }
    // The doc's spelled-out checks.
    let d0 = Player::scrubbed(Arc::clone(&tl), 0).unwrap().draw_list();
    same(&json!(d0[1].matrix.0), &json!([-0.000407, 2.0, -2.0, -0.000407, 50.0, 30.0]), 1e-6, "rotated").unwrap();
    let d1 = Player::scrubbed(Arc::clone(&tl), 1).unwrap().draw_list();
    same(&json!(d1[1].matrix.0), &json!([2.0, 0.0, 0.0, 2.0, 61.0, 30.0]), 1e-9, "rotation dropped").unwrap();
    assert_eq!(d1[1].path[0].frame, Some(1));
    let d2 = Player::scrubbed(Arc::clone(&tl), 2).unwrap().draw_list();
    assert!(d2.iter().all(|d| d.path[0].layer != 0), "layer 0 removed at frame 2");
    assert_eq!((d0[2].src_rect, d2[1].src_rect), (Some([0.0, 0.0, 4.0, 2.0]), None));
    let d3 = Player::scrubbed(Arc::clone(&tl), 3).unwrap().draw_list();
    assert_eq!(d3[1].color, [0.0, 0.0, 1.0, 128.0 / 255.0], "colour persists");
    assert_eq!(d3[0].path[0].frame, Some(0), "child wraps");
    // In playback the STOP at frame 2 holds the timeline.
    let mut play = Player::new(tl, Mode::Play, 0).unwrap();
    for _ in 0..5 {
        play.tick();
    }
    assert_eq!(play.frame(), 2);
}
