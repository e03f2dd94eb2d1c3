#![no_main]
//! Fuzz target `matrix`: see seqfarm-fuzzing's `TARGETS` for what it covers.

libfuzzer_sys::fuzz_target!(|data: &[u8]| (seqfarm_fuzzing::target("matrix").unwrap().run)(data));
