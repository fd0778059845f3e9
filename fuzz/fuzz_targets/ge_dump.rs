#![no_main]
// Fuzz target "ge_dump": see psprender::fuzzing and the README's "Fuzzing" section.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    psprender::fuzzing::run("ge_dump", data);
});
