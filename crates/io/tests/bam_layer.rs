//! The BAM layer on real BAMs (tests/data/bam): plans through the index and without it
//! visit the same records; region queries find every overlapping record; indexes that do
//! not belong to their BAM are refused.

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use seqfarm_io::bam::{BamFile, BamIndex, RangeReader, Record, RecordStitcher, WorkPlan};
use seqfarm_io::bgzf::{InflateBuffer, Inflater, VirtualOffset, VirtualRange};

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data/bam")
        .join(name)
}

/// Copies a BAM and then its index into `dir` (so the index is the newer file).
fn copy_pair(dir: &Path, name: &str) -> PathBuf {
    let bam = dir.join(name);
    std::fs::copy(data(name), &bam).unwrap();
    std::fs::copy(
        data(&format!("{name}.bai")),
        dir.join(format!("{name}.bai")),
    )
    .unwrap();
    bam
}

type Seen = (Vec<u8>, u16, i32, i32);

fn seen(r: &Record<'_>) -> Seen {
    (r.read_name().to_vec(), r.flag(), r.ref_id(), r.pos())
}

/// Every record, read with `plan`.
fn records(bam: &BamFile, plan: &WorkPlan, unit: u64) -> Vec<Seen> {
    let mut out = Vec::new();
    let mut reader = RangeReader::new();
    for range in &plan.ranges {
        reader
            .for_each(bam, *range, |r| {
                out.push(seen(&r));
                ControlFlow::Continue(())
            })
            .unwrap();
    }
    let mut stitcher = RecordStitcher::new(bam.header().references.len(), plan.tail_skip());
    let mut inflater = Inflater::new();
    for batch in plan.tail_batches(bam, unit) {
        let batch = batch.unwrap();
        let mut buf = InflateBuffer::new();
        let bytes = &bam.bytes()[batch.start as usize..batch.end as usize];
        inflater
            .inflate_blocks(bytes, batch.start, &mut buf)
            .unwrap();
        stitcher
            .feed(buf.as_slice(), |r| out.push(seen(&r)))
            .unwrap();
    }
    stitcher.finish().unwrap();
    out
}

#[test]
fn every_plan_visits_every_record_once_in_order() {
    let dir = tempfile::tempdir().unwrap();
    for (name, total) in [
        ("sarscov2.bam", 1250),
        ("chm1.bam", 42455),
        ("na12878_chrM.bam", 58746),
    ] {
        let path = copy_pair(dir.path(), name);
        let bam = BamFile::open(&path).unwrap();
        let index = BamIndex::open(BamIndex::find(&path).unwrap(), &bam).unwrap();
        let sequential = records(&bam, &WorkPlan::new(&bam, None, 1 << 16), 1 << 16);
        assert_eq!(sequential.len(), total, "{name}");
        for unit in [1, 20_000, 1 << 20, 1 << 40] {
            let plan = WorkPlan::new(&bam, Some(&index), unit);
            if unit == 1 && total > 10_000 {
                assert!(
                    plan.ranges.len() >= 4,
                    "{name}: {} ranges",
                    plan.ranges.len()
                );
            }
            assert_eq!(records(&bam, &plan, unit), sequential, "{name} unit {unit}");
        }
    }
}

#[test]
fn region_queries_find_every_overlapping_record() {
    let dir = tempfile::tempdir().unwrap();
    let path = copy_pair(dir.path(), "chm1.bam");
    let bam = BamFile::open(&path).unwrap();
    let index = BamIndex::open(BamIndex::find(&path).unwrap(), &bam).unwrap();
    let mut reader = RangeReader::new();
    let whole = VirtualRange {
        start: bam.records_start(),
        end: VirtualOffset::new(bam.data_end(), 0),
    };
    for (ref_id, start, end) in [
        (0usize, 20_000u64, 20_500u64),
        (0, 1, 15_000),
        (0, 60_000, 90_000),
    ] {
        let overlaps = |r: &Record<'_>| {
            r.ref_id() == ref_id as i32
                && r.flag() & 0x4 == 0
                && (r.pos() as i64) < end as i64
                && r.alignment_end() > start as i64 - 1
        };
        let mut expected = Vec::new();
        reader
            .for_each(&bam, whole, |r| {
                if overlaps(&r) {
                    expected.push(r.read_name().to_vec());
                }
                ControlFlow::Continue(())
            })
            .unwrap();
        let mut found = Vec::new();
        for chunk in index.query(ref_id, start, end).unwrap() {
            reader
                .for_each(&bam, chunk, |r| {
                    if overlaps(&r) {
                        found.push(r.read_name().to_vec());
                    }
                    ControlFlow::Continue(())
                })
                .unwrap();
        }
        assert!(!expected.is_empty());
        assert_eq!(found, expected, "{ref_id}:{start}-{end}");
    }
}

#[test]
fn foreign_or_stale_indexes_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let chm1 = copy_pair(dir.path(), "chm1.bam");
    let bam = BamFile::open(&chm1).unwrap();
    let foreign = data("sarscov2.bam.bai");
    let e = BamIndex::open(&foreign, &bam).unwrap_err().to_string();
    assert!(
        e.contains("another BAM") && e.contains("sarscov2.bam.bai"),
        "{e}"
    );

    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(3600);
    std::fs::File::options()
        .write(true)
        .open(&chm1)
        .unwrap()
        .set_modified(later)
        .unwrap();
    let bam = BamFile::open(&chm1).unwrap();
    let e = BamIndex::open(BamIndex::find(&chm1).unwrap(), &bam)
        .unwrap_err()
        .to_string();
    assert!(e.contains("older than"), "{e}");

    let junk = dir.path().join("junk.bai");
    std::fs::write(&junk, b"BAI\x01\x05").unwrap();
    assert!(BamIndex::open(&junk, &bam).is_err());
}
