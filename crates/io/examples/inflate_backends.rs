//! Compares the inflate back ends of `seqfarm_io::bgzf` on the BGZF blocks of real files:
//! libdeflate, ISA-L and the adaptive choice between them (with the `isal` feature), each
//! block inflated and its CRC32 and size checked, as a reader must. The file is read into
//! memory first, so only inflate is timed.
//!
//! ```sh
//! cargo run --release -p seqfarm-io --features isal --example inflate_backends -- a.bam ...
//! ```
//!
//! `--only libdeflate`, `--only isal` or `--only adaptive` times one back end (the other
//! columns show 0), for measuring each in its own process.

use std::time::Instant;

use seqfarm_io::bgzf::{BlockInfo, BlockScanner, InflateBackend, InflateBuffer, Inflater};

/// Best of this many passes.
const PASSES: usize = 3;

fn main() {
    let mut paths: Vec<String> = std::env::args().skip(1).collect();
    let mut only = None;
    if paths.first().is_some_and(|a| a == "--only") && paths.len() >= 2 {
        only = Some(paths[1].clone());
        paths.drain(..2);
    }
    let run = |backend: &str| only.as_deref().is_none_or(|o| o == backend);
    if paths.is_empty() {
        eprintln!("usage: inflate_backends FILE.bam...");
        std::process::exit(2);
    }
    println!("file\tcompressed_MB\tinflated_MB\tlibdeflate_s\tlibdeflate_MB/s_out\tisal_s\tisal_MB/s_out\tadaptive_s\tadaptive_MB/s_out");
    for path in paths {
        let file = std::fs::read(&path).unwrap_or_else(|e| fail(&path, e));
        let blocks: Vec<BlockInfo> = BlockScanner::new(&file, 0, file.len() as u64)
            .collect::<Result<_, _>>()
            .unwrap_or_else(|e| fail(&path, e));
        let inflated: usize = blocks.iter().map(|b| b.inflated_size).sum();
        let time = |name: &str, backend| {
            if !run(name) {
                return 0.0;
            }
            let mut inflater = Inflater::with_backend(backend);
            let mut out = InflateBuffer::new();
            best_of(|| {
                for b in &blocks {
                    out.clear();
                    if let Err(e) = inflater.inflate_block(&file, b.offset, &mut out) {
                        fail(&path, e);
                    }
                }
            })
        };
        let libdeflate = time("libdeflate", InflateBackend::Libdeflate);
        let isal = time("isal", InflateBackend::Isal);
        let adaptive = time("adaptive", InflateBackend::Adaptive);
        let mb = |n: usize| n as f64 / 1e6;
        println!(
            "{path}\t{:.1}\t{:.1}\t{libdeflate:.3}\t{:.0}\t{isal:.3}\t{:.0}\t{adaptive:.3}\t{:.0}",
            mb(file.len()),
            mb(inflated),
            mb(inflated) / libdeflate,
            mb(inflated) / isal,
            mb(inflated) / adaptive
        );
    }
}

fn fail(path: &str, e: impl std::fmt::Display) -> ! {
    eprintln!("{path}: {e}");
    std::process::exit(1);
}

fn best_of(mut pass: impl FnMut()) -> f64 {
    (0..PASSES)
        .map(|_| {
            let t = Instant::now();
            pass();
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}
