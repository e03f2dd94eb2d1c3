//! The BAM layer on real BAMs (tests/data/bam): plans through the index and without it
//! visit the same records; region queries find every overlapping record; indexes that do
//! not belong to their BAM are refused.

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use seqfarm_io::bam::{BamFile, BamIndex, RangeReader, Record, RecordStitcher, WorkPlan, WorkUnit};
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

/// Every record, read through `plan.units`; also returns how many segments were stitched.
fn records_by_units(bam: &BamFile, plan: &WorkPlan, batch: u64) -> (Vec<Seen>, usize) {
    let mut out = Vec::new();
    let mut reader = RangeReader::new();
    let mut inflater = Inflater::new();
    let n_ref = bam.header().references.len();
    let mut stitcher = RecordStitcher::new(n_ref, 0);
    let mut segments = 0;
    for unit in plan.units(bam, batch) {
        match unit.unwrap() {
            WorkUnit::Range(range) => {
                reader
                    .for_each(bam, range, |r| {
                        out.push(seen(&r));
                        ControlFlow::Continue(())
                    })
                    .unwrap();
            }
            WorkUnit::Blocks(b) => {
                if b.starts_segment {
                    stitcher = RecordStitcher::new(n_ref, 0);
                    segments += 1;
                }
                let mut buf = InflateBuffer::new();
                let bytes = &bam.bytes()[b.blocks.start as usize..b.blocks.end as usize];
                inflater
                    .inflate_blocks(bytes, b.blocks.start, &mut buf)
                    .unwrap();
                buf.truncate(b.end);
                stitcher
                    .feed(&buf.as_slice()[b.start..b.end], |r| out.push(seen(&r)))
                    .unwrap();
                if b.ends_segment {
                    stitcher.finish().unwrap();
                }
            }
        }
    }
    (out, segments)
}

#[test]
fn work_units_visit_every_record_once_in_order() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["sarscov2.bam", "chm1.bam", "na12878_chrM.bam"] {
        let path = copy_pair(dir.path(), name);
        let bam = BamFile::open(&path).unwrap();
        let index = BamIndex::open(BamIndex::find(&path).unwrap(), &bam).unwrap();
        let (sequential, _) = records_by_units(&bam, &WorkPlan::new(&bam, None, 1 << 16), 1 << 16);
        let mut stitched_ranges = 0;
        for unit in [1, 20_000, 200_000, 1 << 40] {
            let plan = WorkPlan::new(&bam, Some(&index), unit);
            for batch in [1, 50_000] {
                let (got, segments) = records_by_units(&bam, &plan, batch);
                assert_eq!(got, sequential, "{name} unit {unit} batch {batch}");
                stitched_ranges += segments.saturating_sub(usize::from(plan.has_tail()));
            }
        }
        if name == "na12878_chrM.bam" {
            // Deep coverage of a 16 kb contig: the index cannot cut it finely.
            assert!(stitched_ranges > 0, "{name}: no range was cut into blocks");
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

#[test]
fn records_before_the_min_offset_end_before_the_position() {
    let dir = tempfile::tempdir().unwrap();
    let path = copy_pair(dir.path(), "na12878_chrM.bam");
    let bam = BamFile::open(&path).unwrap();
    let index = BamIndex::open(BamIndex::find(&path).unwrap(), &bam).unwrap();
    let end = VirtualOffset::new(bam.data_end(), 0);
    let mut reader = RangeReader::new();
    // Mapped records on reference 0 that reach 1-based position `pos` or beyond.
    let mut reaching = |start: VirtualOffset, pos: u64| {
        let mut n = 0usize;
        reader
            .for_each(&bam, VirtualRange { start, end }, |r| {
                if r.ref_id() == 0 && r.flag() & 0x4 == 0 && r.alignment_end() >= pos as i64 {
                    n += 1;
                }
                ControlFlow::Continue(())
            })
            .unwrap();
        n
    };
    let mut previous = VirtualOffset::default();
    for pos in [1u64, 5_000, 16_385, 16_500] {
        let min = index.min_offset(0, pos).unwrap().max(bam.records_start());
        assert!(min >= previous, "offsets grow with the position");
        previous = min;
        let all = reaching(bam.records_start(), pos);
        assert!(all > 0);
        assert_eq!(reaching(min, pos), all, "{pos}");
    }
    assert!(previous > bam.records_start(), "the index skips something");
}

#[test]
fn bam_sets_need_indexes_and_one_reference_list() {
    use seqfarm_io::bam::BamSet;
    let dir = tempfile::tempdir().unwrap();
    let chm1 = copy_pair(dir.path(), "chm1.bam");
    let chrm = copy_pair(dir.path(), "na12878_chrM.bam");
    let set = BamSet::open(&[chm1.clone(), chm1.clone()]).unwrap();
    assert_eq!(set.len(), 2);
    assert!(set.bytes_between(0, 10_000, 90_000) > 0);
    assert_eq!(set.bytes_between(0, 50_000, 50_000), 0);
    let e = BamSet::open(&[chm1.clone(), chrm]).unwrap_err().to_string();
    assert!(
        e.contains("same reference") && e.contains("na12878_chrM.bam"),
        "{e}"
    );
    let bare = dir.path().join("bare.bam");
    std::fs::copy(&chm1, &bare).unwrap();
    let e = BamSet::open(&[bare]).unwrap_err().to_string();
    assert!(e.contains("no index") && e.contains("bare.bam"), "{e}");
}
