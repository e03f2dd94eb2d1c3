//! Compares the two inflate back ends on the BGZF blocks of real files: libdeflate (the
//! one `seqfarm_io::bgzf` uses, inflate then CRC32) and ISA-L (inflate with its CRC32
//! computed on the fly). Each block is inflated and its CRC32 and size checked, as a
//! reader must; the file is read into memory first, so only inflate is timed.
//!
//! ```sh
//! cargo run --release -p seqfarm-io --features isal --example inflate_backends -- a.bam ...
//! ```

use std::time::Instant;

use isal::isal_sys::igzip_lib as isal;
use seqfarm_io::bgzf::{BlockInfo, BlockScanner, InflateBuffer, Inflater};

/// Best of this many passes.
const PASSES: usize = 3;

fn main() {
    let paths: Vec<String> = std::env::args().skip(1).collect();
    if paths.is_empty() {
        eprintln!("usage: inflate_backends FILE.bam...");
        std::process::exit(2);
    }
    println!("file\tcompressed_MB\tinflated_MB\tlibdeflate_s\tlibdeflate_MB/s_out\tisal_s\tisal_MB/s_out");
    for path in paths {
        let file = match std::fs::read(&path) {
            Ok(f) => f,
            Err(e) => {
                eprintln!("{path}: {e}");
                std::process::exit(1);
            }
        };
        let blocks: Result<Vec<BlockInfo>, _> =
            BlockScanner::new(&file, 0, file.len() as u64).collect();
        let blocks = match blocks {
            Ok(b) => b,
            Err(e) => {
                eprintln!("{path}: {e}");
                std::process::exit(1);
            }
        };
        let inflated: usize = blocks.iter().map(|b| b.inflated_size).sum();
        let mut inflater = Inflater::new();
        let mut out = InflateBuffer::new();
        let libdeflate = best_of(|| {
            for b in &blocks {
                out.clear();
                if let Err(e) = inflater.inflate_block(&file, b.offset, &mut out) {
                    eprintln!("{path}: {e}");
                    std::process::exit(1);
                }
            }
        });
        let mut isa = IsalInflater::new();
        let mut buf = vec![0u8; 65536];
        let isal = best_of(|| {
            for b in &blocks {
                let raw = &file[b.offset as usize..b.end() as usize];
                if let Err(e) = isa.inflate(raw, &mut buf) {
                    eprintln!("{path}: block at {}: {e}", b.offset);
                    std::process::exit(1);
                }
            }
        });
        let mb = |n: usize| n as f64 / 1e6;
        println!(
            "{path}\t{:.1}\t{:.1}\t{libdeflate:.3}\t{:.0}\t{isal:.3}\t{:.0}",
            mb(file.len()),
            mb(inflated),
            mb(inflated) / libdeflate,
            mb(inflated) / isal
        );
    }
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

/// ISA-L's stateless inflate with a reused state, checking CRC32 and ISIZE.
struct IsalInflater {
    state: Box<isal::inflate_state>,
}

impl IsalInflater {
    fn new() -> Self {
        let mut state = Box::new(std::mem::MaybeUninit::<isal::inflate_state>::uninit());
        // SAFETY: isal_inflate_init initialises every field ISA-L reads before inflating;
        // the pointer is to a live, properly aligned allocation.
        let state = unsafe {
            isal::isal_inflate_init(state.as_mut_ptr());
            Box::from_raw(Box::into_raw(state).cast::<isal::inflate_state>())
        };
        Self { state }
    }

    /// Inflates one whole BGZF block into `out` (at least 64 KiB).
    fn inflate(&mut self, block: &[u8], out: &mut [u8]) -> Result<usize, String> {
        let xlen = u16::from_le_bytes([block[10], block[11]]) as usize;
        let n = block.len();
        let cdata = &block[12 + xlen..n - 8];
        let crc = u32::from_le_bytes([block[n - 8], block[n - 7], block[n - 6], block[n - 5]]);
        let size = u32::from_le_bytes([block[n - 4], block[n - 3], block[n - 2], block[n - 1]]);
        let state = &mut *self.state;
        // SAFETY: `state` was initialised by isal_inflate_init; reset keeps it valid.
        unsafe { isal::isal_inflate_reset(state) };
        state.crc_flag = isal::IGZIP_GZIP_NO_HDR;
        state.next_in = cdata.as_ptr().cast_mut();
        state.avail_in = cdata.len() as u32;
        state.next_out = out.as_mut_ptr();
        state.avail_out = out.len() as u32;
        // SAFETY: next_in/avail_in describe `cdata` (ISA-L only reads it) and
        // next_out/avail_out describe `out`; both outlive the call.
        let ret = unsafe { isal::isal_inflate_stateless(state) };
        if ret != isal::ISAL_DECOMP_OK as i32 {
            return Err(format!("ISA-L inflate error {ret}"));
        }
        if state.total_out != size || state.crc != crc {
            return Err("size or CRC32 mismatch".into());
        }
        Ok(size as usize)
    }
}
