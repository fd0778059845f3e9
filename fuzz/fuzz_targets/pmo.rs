#![no_main]
// Fuzz target "pmo": see psprender::fuzzing and the README's "Fuzzing" section.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    psprender::fuzzing::run("pmo", data);
});
