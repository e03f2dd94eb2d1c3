#![no_main]
//! Fuzz target `bed`: see seqfarm-fuzzing's `TARGETS` for what it covers.

libfuzzer_sys::fuzz_target!(|data: &[u8]| (seqfarm_fuzzing::target("bed").unwrap().run)(data));
