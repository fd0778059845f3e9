//! Seed inputs for every fuzz target, made by the repository's own writers and synthetic
//! generators (never game data). `cargo run --release --example fuzz_seeds -- DIR` writes
//! them as `DIR/TARGET/NAME`; the committed corpora under `fuzz/corpus/` are these seeds
//! minimized together with what the fuzzer found (`cargo fuzz cmin`).

use crate::kh2::{self, Motion, Skeleton};
use crate::pmo::Pmo;
use crate::popcap::synth as pop;
use crate::synth::{self, tim2gen};
use ge::Model;

/// One seed: target name, file name, bytes.
pub type Seed = (&'static str, String, Vec<u8>);

/// Every seed of every target.
pub fn all() -> Vec<Seed> {
    let mut out = Vec::new();
    let mut add = |target: &'static str, name: String, bytes: Option<Vec<u8>>| {
        if let Some(b) = bytes {
            out.push((target, name, b));
        }
    };
    let mut models: Vec<(String, Pmo)> =
        synth::format_family_models().into_iter().map(|(n, m)| (n.to_string(), m)).collect();
    models.extend(synth::blend_models().into_iter().map(|(n, m)| (n.to_string(), m)));
    models.push(("skinned".into(), synth::skinned_model()));
    models.push(("two_lists".into(), synth::two_list_model()));
    models.push(("demo".into(), synth::demo_model()));
    for (name, m) in &models {
        add("pmo", name.clone(), m.to_bytes().ok());
    }
    add("pmp", "two_objects".into(), pmp(&[&models[0].1, &synth::skinned_model()]));
    for kind in tim2gen::TexKind::ALL {
        add("tim2", kind.name().into(), Some(tim2gen::tim2_image_alpha(kind, 8, 4)));
    }
    add("pam", "column".into(), synth::anim::column_animation().to_bytes().ok());
    let walk = kh2::synth::biped_walk();
    let triggers = kh2::synth::sample_triggers();
    add("kh2_bar", "walk_anb".into(), kh2::synth::anb(&walk, &triggers).ok());
    add("kh2_motion", "walk".into(), Motion::Interpolated(walk.clone()).to_bytes().ok());
    add("kh2_motion", "triggers".into(), triggers.to_bytes().ok());
    add("kh2_mdlx", "biped".into(), Skeleton::biped().to_mdlx().ok());
    add("kh2_mdlx", "chain4".into(), Skeleton::chain(4, 1.0).to_mdlx().ok());
    for v in 1..=6 {
        add("popcap", format!("v{v}"), popcap_small(v).to_bytes().ok());
    }
    add("popcap", "features_v6".into(), pop::feature_scene().to_bytes().ok());
    for scene in ge::scenes::SCENES {
        for model in [Model::Hardware, Model::Ppsspp] {
            let m = if model == Model::Hardware { "hw" } else { "pp" };
            let list = ge::scenes::build(scene);
            add("ge_commands", format!("{}_{m}", scene.name), Some(ge::fuzzing::encode_commands(model, &list)));
        }
        if let Ok(dump) = ge::fuzzing::record_scene(scene, Model::Hardware) {
            add("ge_dump", scene.name.to_string(), Some(ge::fuzzing::encode_dump_records(Model::Ppsspp, &dump)));
            add("ppdmp", format!("{}_v6", scene.name), Some(dump.to_bytes()));
        }
    }
    for (name, list) in ge::fuzzing::extra_lists() {
        add("ge_commands", format!("{name}_hw"), Some(ge::fuzzing::encode_commands(Model::Hardware, &list)));
        add("ge_commands", format!("{name}_pp"), Some(ge::fuzzing::encode_commands(Model::Ppsspp, &list)));
    }
    if let Ok(dump) = ge::fuzzing::record_scene(&ge::scenes::SCENES[3], Model::Hardware) {
        add("ppdmp", "prim_triangles_v4_snappy".into(), Some(ge::fuzzing::write_snappy(&dump, 4)));
        add("ppdmp", "prim_triangles_v2_snappy".into(), Some(ge::fuzzing::write_snappy(&dump, 2)));
        add("ppdmp", "prim_triangles_zip".into(), Some(ge::fuzzing::zip_dump(&dump.to_bytes())));
    }
    out
}

/// A one-image, one-layer PopCap animation of `version`.
fn popcap_small(version: u32) -> crate::popcap::Animation {
    let f0 = pop::frame(vec![pop::append(0, 0, false)], vec![pop::mv(0, 2.0, 3.0)]);
    let f1 = pop::frame(vec![], vec![pop::matrix_move(0, [65536, 0, 0, 65536], 4.0, 1.5)]);
    let main = pop::sprite(version, "main", vec![f0, f1]);
    let mut a = pop::anim(version, vec![pop::image("img", 8, 8, version)], vec![], main);
    a.size = [16 * 20, 16 * 20];
    a
}

/// A PMP map (layout in [`crate::pmp`]): one object per model at increasing x, no textures.
pub fn pmp(models: &[&Pmo]) -> Option<Vec<u8>> {
    use crate::pmp::{HEADER_SIZE, MAGIC, OBJECT_SIZE};
    let mut b = vec![0u8; HEADER_SIZE + models.len() * OBJECT_SIZE];
    b[0..4].copy_from_slice(MAGIC);
    b[0x10..0x12].copy_from_slice(&u16::try_from(models.len()).ok()?.to_le_bytes());
    for (i, m) in models.iter().enumerate() {
        while !b.len().is_multiple_of(16) {
            b.push(0);
        }
        let at = u32::try_from(b.len()).ok()?;
        b.extend_from_slice(&m.to_bytes().ok()?);
        let o = HEADER_SIZE + i * OBJECT_SIZE;
        for (k, v) in [i as f32 * 2.0, 0.0, 0.0, 0.0, 0.5, 0.0, 1.0, 1.0, 1.0].iter().enumerate() {
            b[o + 4 * k..o + 4 * k + 4].copy_from_slice(&v.to_le_bytes());
        }
        b[o + 36..o + 40].copy_from_slice(&at.to_le_bytes());
        b[o + 46] = i as u8;
    }
    Some(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_target_has_seeds_that_parse() {
        let seeds = all();
        for t in super::super::TARGETS {
            assert!(seeds.iter().any(|s| s.0 == *t), "no seed for {t}");
        }
        // Each seed is valid for its parser (so the fuzzer starts past the magic checks).
        for (t, name, b) in &seeds {
            let ok = match *t {
                "pmo" => Pmo::parse(b).is_ok(),
                "pmp" => crate::pmp::Pmp::parse(b).is_ok(),
                "tim2" => crate::tim2::Tim2::parse(b).is_ok(),
                "pam" => crate::pam::Pam::parse(b).is_ok(),
                "kh2_bar" => kh2::Bar::parse(b).is_ok(),
                "kh2_motion" => Motion::parse(b).is_ok() || kh2::Triggers::parse(b).is_ok(),
                "kh2_mdlx" => Skeleton::from_mdlx(b).is_ok(),
                "popcap" => crate::popcap::Animation::parse(b).is_ok(),
                "ppdmp" => ge::dump::Dump::parse(b).is_ok(),
                _ => true,
            };
            assert!(ok, "{t}/{name} does not parse");
        }
    }
}
