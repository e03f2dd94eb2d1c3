#![no_main]
//! Fuzz target `bgzf`: see seqfarm-fuzzing's `TARGETS` for what it covers.

libfuzzer_sys::fuzz_target!(|data: &[u8]| (seqfarm_fuzzing::target("bgzf").unwrap().run)(data));
