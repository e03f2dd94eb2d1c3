//! Mean MAPQ of the reads overlapping each window of indexed BAMs, on the region map.
//! cargo run --release -p seqfarm-io --example window_mapq -- [-w SIZE] [-t THREADS] BAM...
use seqfarm_io::bam::{BamSet, Region, RegionMap};
use std::error::Error;
use std::io::{BufWriter, Write};

/// Windows with their read count and mean MAPQ.
type Rows = Vec<(Region, u64, f64)>;

/// Each window of `size` bases with its read count and mean MAPQ (NaN without reads).
pub fn window_mapq(bams: &BamSet, size: u64, threads: usize) -> Result<Rows, Box<dyn Error>> {
    let map = RegionMap::new(bams).windows(size);
    let stats = map.run(threads, |_, records| {
        let (mut reads, mut sum) = (0u64, 0u64);
        records.for_each(|_, record| {
            reads += 1;
            sum += u64::from(record.mapq());
        });
        (reads, sum as f64 / reads as f64)
    })?;
    Ok(map
        .as_slice()
        .iter()
        .zip(stats)
        .map(|(w, (n, mean))| (*w, n, mean))
        .collect())
}

fn main() -> Result<(), Box<dyn Error>> {
    let (mut size, mut threads, mut paths) = (10_000, 0, Vec::new());
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "-w" => size = args.next().ok_or("-w needs a size")?.parse()?,
            "-t" => threads = args.next().ok_or("-t needs a count")?.parse()?,
            _ => paths.push(arg.into()),
        }
    }
    let bams = BamSet::open(&paths)?;
    let names = &bams.header().ok_or("give one or more BAMs")?.references;
    let mut out = BufWriter::new(std::io::stdout().lock());
    for (w, reads, mean) in window_mapq(&bams, size, threads)? {
        let (name, start, end) = (&names[w.ref_id].name, w.start, w.end);
        writeln!(out, "{name}\t{start}\t{end}\t{reads}\t{mean:.6}")?;
    }
    Ok(out.flush()?)
}
