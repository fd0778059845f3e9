//! Output bytes must not depend on the number of raster threads or on the run.

use psprender::scenes;

fn vram_after(list: &ge::list::ListBuilder, threads: usize, model: ge::Model) -> Vec<u8> {
    let mut ge = ge::Ge::with_model(model);
    ge.set_threads(threads);
    list.run(&mut ge).expect("scene runs");
    ge.mem.vram().to_vec()
}

#[test]
fn scenes_are_identical_for_1_and_n_threads() {
    let mut lists: Vec<(String, ge::list::ListBuilder)> =
        scenes::SCENES.iter().map(|s| (s.name.to_string(), scenes::build(s))).collect();
    // Every synthetic PMO/PAM golden scene (scene builder output), the demo model among them.
    lists.extend(psprender::synth::goldens::golden_frames().into_iter().map(|(n, f)| (n, f.list)));
    lists.extend(psprender::synth::goldens::kh2_golden_frames().into_iter().map(|(n, f, _)| (n, f.list)));
    for model in ge::Model::ALL {
        for (name, list) in &lists {
            let one = vram_after(list, 1, model);
            assert!(one.iter().any(|&b| b != 0), "{name} ({model}): nothing was drawn");
            for threads in [2, 4, 7] {
                let n = vram_after(list, threads, model);
                assert!(one == n, "{name} ({model}): VRAM differs between 1 and {threads} threads");
            }
            assert!(one == vram_after(list, 1, model), "{name} ({model}): VRAM differs between two 1-thread runs");
        }
    }
}

#[test]
fn frame_dumps_are_identical_for_1_and_2_threads() {
    let Some(dir) = shared_dir() else {
        eprintln!("skipping: shared corpus not found (../shared or $PSPRENDER_SHARED)");
        return;
    };
    for name in
        ["15826-hot-pixel-ulus10298", "10914-sengoku-cannon-issue-dump", "17061-kidou-keisatsu-patlabor-uljs00026-bad2"]
    {
        let dump = ge::dump::Dump::open(dir.join("frametests").join(format!("{name}.zip"))).expect("dump opens");
        for model in ge::Model::ALL {
            let run = |threads| {
                let mut ge = ge::Ge::with_model(model);
                ge.set_threads(threads);
                ge::dump::replay(&dump, &mut ge).expect("replays");
                ge.mem.vram().to_vec()
            };
            assert!(run(1) == run(2), "{name} ({model}): VRAM differs between 1 and 2 threads");
        }
    }
}

fn shared_dir() -> Option<std::path::PathBuf> {
    psprender::shared::corpus("frametests").and_then(|p| p.parent().map(std::path::Path::to_path_buf))
}
