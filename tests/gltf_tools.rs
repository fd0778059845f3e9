//! Exported glTF files checked by outside tools, each test skipped (with a message) when its
//! tool is absent:
//! * the Khronos glTF validator (npm package `gltf-validator`, run with `node` by
//!   `tests/tools/gltf_validate.js`; `.ci/run` installs it into `target/tools`, or point
//!   `PSPRENDER_GLTF_VALIDATOR` at the folder holding its `node_modules`): 0 errors and
//!   0 warnings for every sample and synthetic model, as `.glb` and as `.gltf`;
//! * Blender (`apt-get install blender`), which imports the `.glb` in background mode and
//!   prints its bones' world matrices (`tests/tools/blender_joints.py`), compared with our
//!   PAM pose at frames 0 and 45.

use glam::{Mat3, Mat4, Vec3};
use psprender::gltf::{export, Options};
use psprender::pam::pose::{pose_globals, PoseOptions};
use psprender::pam::Pam;
use psprender::pmo::Pmo;
use psprender::scene::Model;
use psprender::shared::sample;
use psprender::synth;
use std::path::{Path, PathBuf};
use std::process::Command;

fn tools() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/tools")
}

/// The folder holding `node_modules/gltf-validator`, when node and the package are there.
fn validator() -> Option<PathBuf> {
    let dir = std::env::var_os("PSPRENDER_GLTF_VALIDATOR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/tools"));
    let node = Command::new("node").arg("--version").output().is_ok_and(|o| o.status.success());
    if !node || !dir.join("node_modules/gltf-validator/package.json").is_file() {
        eprintln!(
            "skipping: the Khronos glTF validator needs node and {}/node_modules/gltf-validator \
             (run .ci/run, or npm install --prefix DIR gltf-validator and set PSPRENDER_GLTF_VALIDATOR=DIR)",
            dir.display()
        );
        return None;
    }
    Some(dir)
}

/// (errors, warnings, messages) of the validator's report on `file`.
fn validate(dir: &Path, file: &Path) -> (u64, u64, Vec<String>) {
    let o = Command::new("node").arg(tools().join("gltf_validate.js")).arg(dir).arg(file).output().unwrap();
    assert!(o.status.success(), "validator on {}: {}", file.display(), String::from_utf8_lossy(&o.stderr));
    let r: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let msgs = r["messages"].as_array().unwrap().iter().map(|m| m.as_str().unwrap().to_string()).collect();
    (r["errors"].as_u64().unwrap(), r["warnings"].as_u64().unwrap(), msgs)
}

/// Every model the acceptance names: the BBS samples (when present, p01ex00 with test.pam)
/// and every synthetic family (the demo model with its sway animation).
fn models() -> Vec<(String, Model, Option<Pam>)> {
    let mut v = Vec::new();
    for (n, p) in synth::format_family_models().into_iter().chain(synth::blend_models()) {
        v.push((n.to_string(), Model::from_pmo(p).unwrap(), None));
    }
    v.push(("skinned".into(), Model::from_pmo(synth::skinned_model()).unwrap(), None));
    v.push(("two_list".into(), Model::from_pmo(synth::two_list_model()).unwrap(), None));
    v.push(("demo".into(), Model::from_pmo(synth::demo_model()).unwrap(), Some(synth::anim::column_animation())));
    let pam = sample("bbs-pam/test.pam").map(|p| Pam::parse(&std::fs::read(p).unwrap()).unwrap());
    for f in [
        "p01ex00.pmo",
        "h03ex00.pmo",
        "h_zz130.pmo",
        "g53kg00.pmo",
        "g59dc00.pmo",
        "bbs-dummy.pmo",
        "bbs-testmap.pmp",
        "jb_50.pmp",
    ] {
        if let Some(p) = sample(&format!("bbs-pmo/{f}")) {
            let anim = if f == "p01ex00.pmo" { pam.clone() } else { None };
            v.push((f.to_string(), Model::load(&p).unwrap(), anim));
        }
    }
    v
}

#[test]
fn khronos_validator_reports_no_errors_or_warnings() {
    let Some(dir) = validator() else { return };
    let out = tempfile::tempdir().unwrap();
    let mut checked = 0;
    for (name, model, pam) in models() {
        let anims: Vec<_> = pam
            .iter()
            .flat_map(|p| p.animations.iter().enumerate())
            .filter_map(|(i, a)| a.as_ref().map(|a| (i, a)))
            .collect();
        let doc = export(&model, &name, &anims, "anim.pam", &Options::default()).unwrap();
        let glb = out.path().join(format!("{name}.glb"));
        std::fs::write(&glb, doc.glb().unwrap()).unwrap();
        let (json, files) = doc.gltf_files(&name).unwrap();
        let gltf = out.path().join(format!("{name}.gltf"));
        std::fs::write(&gltf, json).unwrap();
        for (f, b) in files {
            std::fs::write(out.path().join(f), b).unwrap();
        }
        for file in [glb, gltf] {
            let (e, w, msgs) = validate(&dir, &file);
            assert_eq!((e, w), (0, 0), "{}: {msgs:#?}", file.display());
            checked += 1;
        }
    }
    // KH2: the synthetic biped with its walk, and the public interpolated motion on a chain.
    let mut kh2 = vec![(
        "kh2_biped".to_string(),
        psprender::kh2::Skeleton::biped(),
        psprender::kh2::Motion::Interpolated(psprender::kh2::synth::biped_walk()),
    )];
    for (f, bones) in [("interpolated.motion", 228), ("raw.motion", 3)] {
        if let Some(p) = sample(&format!("kh2-anb/{f}")) {
            let m = psprender::kh2::Motion::parse(&std::fs::read(p).unwrap()).unwrap();
            kh2.push((f.replace('.', "_"), psprender::kh2::Skeleton::chain(bones, 10.0), m));
        }
    }
    for (name, sk, m) in &kh2 {
        let doc = psprender::gltf::kh2::export(sk, &[("m".into(), m)], name, "m").unwrap();
        let glb = out.path().join(format!("{name}.glb"));
        std::fs::write(&glb, doc.glb().unwrap()).unwrap();
        let (e, w, msgs) = validate(&dir, &glb);
        assert_eq!((e, w), (0, 0), "{}: {msgs:#?}", glb.display());
        checked += 1;
    }
    eprintln!("validated {checked} files: 0 errors, 0 warnings");
    assert!(checked >= 2 * 20, "{checked}");
}

/// glTF (Y up) to Blender (Z up) as the importer converts: (x, y, z) → (x, −z, y).
fn to_blender() -> Mat4 {
    Mat4::from_mat3(Mat3::from_cols(Vec3::X, Vec3::Z, -Vec3::Y))
}

/// Bone name → (rest, posed per frame) world matrices printed by Blender.
type BlenderBones = std::collections::BTreeMap<String, (Mat4, std::collections::BTreeMap<i64, Mat4>)>;

fn blender_bones(glb: &Path, fps: u8, frames: &[i64]) -> Option<BlenderBones> {
    if !Command::new("blender").arg("--version").output().is_ok_and(|o| o.status.success()) {
        eprintln!("skipping: blender is not installed (apt-get install blender)");
        return None;
    }
    let mut cmd = Command::new("blender");
    cmd.args(["-b", "--factory-startup", "--python"]).arg(tools().join("blender_joints.py")).arg("--").arg(glb);
    cmd.arg(fps.to_string()).args(frames.iter().map(i64::to_string));
    let o = cmd.output().unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success() && text.contains("BLENDER_INFO"),
        "blender failed:\n{text}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let mut bones = BlenderBones::new();
    for line in text.lines().filter_map(|l| l.strip_prefix("BLENDER_JOINT ")) {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let m: Vec<f32> = v["matrix"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap() as f32).collect();
        let m = Mat4::from_cols_array(&m.try_into().unwrap()).transpose(); // printed row-major
        let e = bones.entry(v["bone"].as_str().unwrap().to_string()).or_insert((Mat4::IDENTITY, Default::default()));
        match v["frame"].as_i64() {
            None => e.0 = m,
            Some(f) => {
                e.1.insert(f, m);
            }
        }
    }
    Some(bones)
}

/// Blender's bones at PAM frames 0 and 45 against our pose: the joint origins (bone heads)
/// directly, and the whole world matrix through its change from the rest pose (Blender
/// re-orients bones along their children, a constant per-bone rotation that cancels in
/// posed · rest⁻¹). Returns the worst element difference.
fn compare_with_blender(name: &str, pmo: &Pmo, pam: &Pam) -> Option<f32> {
    let anim = pam.animations[0].as_ref().unwrap();
    let model = Model::from_pmo(pmo.clone()).unwrap();
    let doc = export(&model, name, &[(0, anim)], "anim.pam", &Options::default()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let glb = dir.path().join(format!("{name}.glb"));
    std::fs::write(&glb, doc.glb().unwrap()).unwrap();
    let frames = [0i64, 45];
    let bones = blender_bones(&glb, anim.fps, &frames)?;
    let sk = pmo.skeleton.as_ref().unwrap();
    assert_eq!(bones.len(), sk.joints.len(), "{name}: one bone per joint");
    let c = to_blender();
    let rest = sk.bind_globals();
    let mut worst = 0.0f32;
    for &f in &frames {
        let ours = pose_globals(sk, anim, f as f32, &PoseOptions::default());
        for (j, jt) in sk.joints.iter().enumerate() {
            let (b_rest, posed) = &bones[&jt.name()];
            let b = posed[&f];
            let head = b.w_axis.truncate();
            let want_head = c.transform_point3(ours[j].w_axis.truncate());
            let delta_blender = b * b_rest.inverse();
            let delta_ours = c * ours[j] * rest[j].inverse() * c.inverse();
            let e = (head - want_head).abs().max_element().max(
                (delta_blender.to_cols_array().iter().zip(delta_ours.to_cols_array()))
                    .map(|(a, b)| (a - b).abs())
                    .fold(0.0, f32::max),
            );
            assert!(
                e < 1e-4,
                "{name} frame {f} joint {j} {:?}: difference {e}\n{b}\n{delta_blender}\n{delta_ours}",
                jt.name()
            );
            worst = worst.max(e);
        }
    }
    eprintln!("{name}: Blender's joints match within {worst:e} at frames {frames:?}");
    Some(worst)
}

#[test]
fn blender_imports_the_glb_with_our_joint_matrices() {
    let pam = synth::anim::column_animation();
    if compare_with_blender("demo", &synth::demo_model(), &pam).is_none() {
        return;
    }
    let (Some(m), Some(p)) = (sample("bbs-pmo/p01ex00.pmo"), sample("bbs-pam/test.pam")) else { return };
    let pmo = Pmo::parse(&std::fs::read(m).unwrap()).unwrap();
    let pam = Pam::parse(&std::fs::read(p).unwrap()).unwrap();
    compare_with_blender("p01ex00", &pmo, &pam);
}
