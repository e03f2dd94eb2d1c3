#![no_main]
//! Fuzz target `sam`: see seqfarm-fuzzing's `TARGETS` for what it covers.

libfuzzer_sys::fuzz_target!(|data: &[u8]| (seqfarm_fuzzing::target("sam").unwrap().run)(data));
