#![no_main]
// Fuzz target "pam": see psprender::fuzzing and the README's "Fuzzing" section.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    psprender::fuzzing::run("pam", data);
});
