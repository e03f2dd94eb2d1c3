#![no_main]
//! Fuzz target `bam`: see seqfarm-fuzzing's `TARGETS` for what it covers.

libfuzzer_sys::fuzz_target!(|data: &[u8]| (seqfarm_fuzzing::target("bam").unwrap().run)(data));
