#![no_main]
//! Fuzz target `reads`: see seqfarm-fuzzing's `TARGETS` for what it covers.

libfuzzer_sys::fuzz_target!(|data: &[u8]| (seqfarm_fuzzing::target("reads").unwrap().run)(data));
