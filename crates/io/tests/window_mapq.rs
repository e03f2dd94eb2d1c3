//! The `window_mapq` example (mean MAPQ per window on the region map) against a walk of
//! every record of the file, window by window.

use std::ops::ControlFlow;
use std::path::PathBuf;

use seqfarm_io::bam::{BamSet, RangeReader};
use seqfarm_io::bgzf::{VirtualOffset, VirtualRange};

#[allow(dead_code)]
#[path = "../examples/window_mapq.rs"]
mod example;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data/bam")
        .join(name)
}

#[test]
fn window_mapq_matches_a_walk_of_every_record() {
    for (name, size) in [("sarscov2.bam", 1000), ("long_cigar.bam", 5000)] {
        let bams = BamSet::open(&[data(name)]).unwrap();
        let (bam, _) = &bams.files()[0];
        let mut records = Vec::new();
        let whole = VirtualRange {
            start: bam.records_start(),
            end: VirtualOffset::new(bam.data_end(), 0),
        };
        RangeReader::new()
            .for_each(bam, whole, |r| {
                records.push((r.ref_id(), i64::from(r.pos()), r.alignment_end(), r.mapq()));
                ControlFlow::Continue(())
            })
            .unwrap();
        let got = example::window_mapq(&bams, size, 3).unwrap();
        let length = u64::from(bams.header().unwrap().references[0].length);
        assert_eq!(got.len() as u64, length.div_ceil(size));
        for (w, reads, mean) in &got {
            let inside: Vec<u8> = records
                .iter()
                .filter(|r| w.overlaps(r.0, r.1, r.2))
                .map(|r| r.3)
                .collect();
            assert_eq!(*reads as usize, inside.len(), "{name} {w:?}");
            let want = inside.iter().map(|&q| f64::from(q)).sum::<f64>() / inside.len() as f64;
            assert!(
                want == *mean || want.is_nan() && mean.is_nan(),
                "{name} {w:?}"
            );
        }
        assert!(got.iter().any(|g| g.1 > 0));
        let one = example::window_mapq(&bams, size, 1).unwrap();
        assert_eq!(format!("{one:?}"), format!("{got:?}"));
    }
}
