#![no_main]
//! Fuzz target `alignment`: see seqfarm-fuzzing's `TARGETS` for what it covers.

libfuzzer_sys::fuzz_target!(|data: &[u8]| (seqfarm_fuzzing::target("alignment").unwrap().run)(data));
