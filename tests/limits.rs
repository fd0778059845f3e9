//! One test per limit of the README's "Limits" table that is not already tested where the
//! limit lives (the table names every test). Inputs are built here; the shared corpora are
//! only read to show that real files sit well inside the caps.

use ge::dump::{Dump, MAX_COMMAND_BYTES, MAX_PUSHBUF_BYTES};
use std::path::PathBuf;

fn shared_dumps() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for rel in ["frametests", "conformance/synthetic", "conformance/hardware"] {
        let Some(dir) = psprender::shared::corpus(rel) else { continue };
        let mut stack = vec![dir];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
                let p = e.path();
                let ext = p.extension().and_then(|e| e.to_str()).unwrap_or("");
                if p.is_dir() {
                    stack.push(p);
                } else if ext == "ppdmp" || ext == "zip" {
                    out.push(p);
                }
            }
        }
    }
    out.sort();
    out
}

#[test]
fn real_dumps_sit_inside_the_container_caps() {
    let dumps = shared_dumps();
    if dumps.is_empty() {
        println!("skipped: no shared frame dumps (../shared or $PSPRENDER_SHARED)");
        return;
    }
    let (mut records, mut pushbuf) = ((0usize, PathBuf::new()), (0usize, PathBuf::new()));
    for p in &dumps {
        let Ok(d) = Dump::open(p) else { continue };
        if d.records.len() > records.0 {
            records = (d.records.len(), p.clone());
        }
        if d.pushbuf.len() > pushbuf.0 {
            pushbuf = (d.pushbuf.len(), p.clone());
        }
    }
    println!(
        "{} dumps; most records {} ({}); largest pushbuf {} bytes ({})",
        dumps.len(),
        records.0,
        records.1.display(),
        pushbuf.0,
        pushbuf.1.display()
    );
    // The record cap leaves 30x headroom; the pushbuf cap is what replay can map into PSP
    // RAM at all, still more than twice the largest real pushbuf.
    assert!(records.0 as u64 * 9 * 30 <= MAX_COMMAND_BYTES, "{records:?}");
    let mappable = (0x0A00_0000 - ge::dump::PUSHBUF_ADDR) as usize;
    assert!(pushbuf.0 * 2 <= mappable && mappable as u64 <= MAX_PUSHBUF_BYTES, "{pushbuf:?}");
}

#[test]
fn tim2_sides_above_4096_are_refused_naming_the_offset() {
    use psprender::tim2::{Picture, Tim2, MAX_DIM};
    let file = |w: u16| {
        let p = Picture::new(1, 0, w, 1, vec![0; 2 * usize::from(w)], vec![]);
        Tim2 { version: 4, format: 0, reserved: [0; 8], pictures: vec![p] }.to_bytes().unwrap()
    };
    assert!(Tim2::parse(&file(MAX_DIM)).is_ok());
    let e = Tim2::parse(&file(MAX_DIM + 1)).unwrap_err();
    // The width field of the first picture header: file header 16 + 20.
    assert!(e.to_string().contains("0x24") || e.to_string().contains("36"), "{e}");
    assert!(e.to_string().contains("width"), "{e}");
}

#[test]
fn popcap_canvas_and_image_sides_are_bounded() {
    use psprender::popcap::{images, render};
    let anim = psprender::popcap::synth::feature_scene();
    let set = render::ImageSet::placeholders(&anim).unwrap();
    let opts = |side| render::RenderOptions { size: [side, 1], ..render::RenderOptions::for_animation(&anim) };
    assert!(render::Renderer::new(&set, opts(render::MAX_CANVAS)).is_ok());
    let e = render::Renderer::new(&set, opts(render::MAX_CANVAS + 1)).err().expect("refused");
    assert!(e.to_string().contains(&(render::MAX_CANVAS + 1).to_string()), "{e}");
    // A PNG wider than MAX_SIDE is refused from its header, before its pixels are decoded.
    let mut png = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut png, images::MAX_SIDE + 1, 1);
        enc.set_color(png::ColorType::Grayscale);
        enc.write_header().unwrap().write_image_data(&vec![0; images::MAX_SIDE as usize + 1]).unwrap();
    }
    let e = images::decode_png(&png, "wide.png").unwrap_err();
    assert!(e.to_string().contains("wide.png") && e.to_string().contains("4097x1"), "{e}");
}

#[test]
fn the_default_step_budget_ends_a_cyclic_list() {
    let mut ge = ge::Ge::new();
    let words = [ge::cmd::word(ge::cmd::op::BASE, 0x08_0000), ge::cmd::word(ge::cmd::op::JUMP, 0x80_0000)];
    for (i, w) in words.iter().enumerate() {
        ge.mem.write_u32(0x0880_0000 + 4 * i as u32, *w).unwrap();
    }
    let e = ge.run_list(0x0880_0000, None).unwrap_err();
    assert_eq!(e, ge::GeError::StepBudget { pc: 0x0880_0000, steps: ge::exec::DEFAULT_STEP_BUDGET });
}

#[test]
fn the_call_stack_holds_32_returns() {
    use ge::cmd::{op, word};
    // 40 nested CALLs: slot i CALLs slot i + 1 and, when returned to, FINISHes with i; slot
    // 40 RETs. Only the first 32 CALLs push a return (PPSSPP ignores deeper ones), so the RET
    // lands in slot 31; an unbounded stack would land in slot 39.
    let mut ge = ge::Ge::new();
    let slot = |i: u32| 0x0880_0000 + 0x100 * i;
    let put = |ge: &mut ge::Ge, at: u32, ws: &[u32]| {
        for (k, w) in ws.iter().enumerate() {
            ge.mem.write_u32(at + 4 * k as u32, *w).unwrap();
        }
    };
    for i in 0..40 {
        let next = slot(i + 1) & 0x00FF_FFFF;
        put(
            &mut ge,
            slot(i),
            &[word(op::BASE, 0x08_0000), word(op::CALL, next), word(op::FINISH, i), word(op::END, 0)],
        );
    }
    put(&mut ge, slot(40), &[word(op::RET, 0)]);
    assert_eq!(ge.run_list(slot(0), None).unwrap(), ge::exec::ListEnd::Finished(31));
}

#[test]
fn popcap_sprite_nesting_stops_at_max_depth() {
    use psprender::popcap::{eval, synth};
    // Sprite i appends sprite i + 1 (the last one an image): 80 levels, no cycle.
    let n = 80u16;
    let sprites = (0..n)
        .map(|i| {
            let a = if i + 1 < n { synth::append(0, i + 1, true) } else { synth::append(0, 0, false) };
            synth::sprite(6, &format!("s{i}"), vec![synth::frame(vec![a], vec![synth::mv(0, 1.0, 0.0)])])
        })
        .collect();
    let main =
        synth::sprite(6, "main", vec![synth::frame(vec![synth::append(0, 0, true)], vec![synth::mv(0, 0.0, 0.0)])]);
    let anim = synth::anim(6, vec![synth::image("i", 4, 4, 6)], sprites, main);
    let anim = psprender::popcap::Animation::parse(&anim.to_bytes().unwrap()).expect("a chain, not a cycle");
    let tl = std::sync::Arc::new(eval::Timeline::new(&anim).unwrap());
    let player = eval::Player::scrubbed(tl, 0).unwrap();
    // The image 80 sprites down is never reached: instancing stops MAX_DEPTH levels down.
    assert!(player.draw_list().is_empty());
    let depth = |n: u16| {
        let mut a = anim.clone();
        let last = &mut a.sprites[usize::from(n) - 1].frames[0];
        last.appends = Some(vec![synth::append(0, 0, false)]);
        let tl = std::sync::Arc::new(eval::Timeline::new(&a).unwrap());
        eval::Player::scrubbed(tl, 0).unwrap().draw_list().len()
    };
    // An image appended by the 64th nested sprite is drawn; by the 65th it is not.
    assert_eq!(depth(eval::MAX_DEPTH as u16), 1);
    assert_eq!(depth(eval::MAX_DEPTH as u16 + 1), 0);
}
