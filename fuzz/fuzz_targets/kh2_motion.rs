#![no_main]
// Fuzz target "kh2_motion": see psprender::fuzzing and the README's "Fuzzing" section.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    psprender::fuzzing::run("kh2_motion", data);
});
