//! The scene builder's frames (synthetic PMO/PAM and KH2 goldens, the demo model among them) must
//! not depend on the number of raster threads or on the run, in either GE model. The GE's
//! own scenes and dumps are checked in `ge/tests/determinism.rs`.

fn vram_after(list: &ge::list::ListBuilder, threads: usize, model: ge::Model) -> Vec<u8> {
    let mut ge = ge::Ge::with_model(model);
    ge.set_threads(threads);
    list.run(&mut ge).expect("frame runs");
    ge.mem.vram().to_vec()
}

#[test]
fn golden_frames_are_identical_for_1_and_n_threads() {
    let mut lists: Vec<(String, ge::list::ListBuilder)> =
        psprender::synth::goldens::golden_frames().into_iter().map(|(n, f)| (n, f.list)).collect();
    lists.extend(psprender::synth::goldens::kh2_golden_frames().into_iter().map(|(n, f, _)| (n, f.list)));
    for model in ge::Model::ALL {
        for (name, list) in &lists {
            let one = vram_after(list, 1, model);
            assert!(one.iter().any(|&b| b != 0), "{name} ({model}): nothing was drawn");
            for threads in [2, 4, 7] {
                let n = vram_after(list, threads, model);
                assert!(one == n, "{name} ({model}): VRAM differs between 1 and {threads} threads");
            }
            assert!(one == vram_after(list, 1, model), "{name} ({model}): VRAM differs between two runs");
        }
    }
}
