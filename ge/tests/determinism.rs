//! The GE's output bytes must not depend on the number of raster threads or on the run,
//! in either model.

mod common;

use ge::scenes;
use ge::Model;

fn vram_after(list: &ge::list::ListBuilder, threads: usize, model: Model) -> Vec<u8> {
    let mut ge = ge::Ge::with_model(model);
    ge.set_threads(threads);
    list.run(&mut ge).expect("scene runs");
    ge.mem.vram().to_vec()
}

#[test]
fn scenes_are_identical_for_1_and_n_threads() {
    for model in Model::ALL {
        for scene in scenes::SCENES {
            let (name, list) = (scene.name, scenes::build(scene));
            let one = vram_after(&list, 1, model);
            assert!(one.iter().any(|&b| b != 0), "{name} ({model}): nothing was drawn");
            for threads in [2, 4, 7] {
                let n = vram_after(&list, threads, model);
                assert!(one == n, "{name} ({model}): VRAM differs between 1 and {threads} threads");
            }
            assert!(one == vram_after(&list, 1, model), "{name} ({model}): VRAM differs between two 1-thread runs");
        }
    }
}

#[test]
fn frame_dumps_are_identical_for_1_and_2_threads() {
    let Some(dir) = common::corpus("frametests") else { return };
    for name in
        ["15826-hot-pixel-ulus10298", "10914-sengoku-cannon-issue-dump", "17061-kidou-keisatsu-patlabor-uljs00026-bad2"]
    {
        let path = dir.join(format!("{name}.zip"));
        for model in Model::ALL {
            let run = |threads| ge::dump::render_file(&path, model, threads).expect("replays");
            assert!(run(1).rgba == run(2).rgba, "{name} ({model}): the screen differs between 1 and 2 threads");
        }
    }
}
