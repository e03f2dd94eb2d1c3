#![no_main]
//! Fuzz target `bai`: see seqfarm-fuzzing's `TARGETS` for what it covers.

libfuzzer_sys::fuzz_target!(|data: &[u8]| (seqfarm_fuzzing::target("bai").unwrap().run)(data));
