#![no_main]
// Fuzz target "ge_commands": see psprender::fuzzing and the README's "Fuzzing" section.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    psprender::fuzzing::run("ge_commands", data);
});
