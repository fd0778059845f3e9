#![no_main]
// Fuzz target "ppdmp": see psprender::fuzzing and the README's "Fuzzing" section.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    psprender::fuzzing::run("ppdmp", data);
});
