//! Region maps checked against brute force on the committed BAMs: windows and regions
//! hold exactly the records that overlap them, several BAMs are walked one after the
//! other, and results stream in region order with an error stopping the run.

use std::path::PathBuf;

use super::*;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data/bam")
        .join(name)
}

/// Every record of the file with the fields compared: (ref_id, pos, end, flag,
/// mapq, name), walked from the first record to the end without the index.
fn all_records(bams: &BamSet) -> Vec<Key> {
    let (bam, _) = &bams.files()[0];
    let mut out = Vec::new();
    let whole = VirtualRange {
        start: bam.records_start(),
        end: VirtualOffset::new(bam.data_end(), 0),
    };
    RangeReader::new()
        .for_each(bam, whole, |r| {
            out.push(key(&r));
            ControlFlow::Continue(())
        })
        .unwrap();
    out
}

/// (ref_id, pos, end, flag, mapq, name) of a record.
type Key = (i32, i64, i64, u16, u8, Vec<u8>);

fn key(r: &Record<'_>) -> Key {
    (
        r.ref_id(),
        i64::from(r.pos()),
        r.alignment_end(),
        r.flag(),
        r.mapq(),
        r.read_name().to_vec(),
    )
}

/// The records of `all` (sorted by reference and position, the unplaced left out)
/// overlapping `region`: those from `max_span` before its start on, checked one by one.
fn brute_force(all: &[Key], max_span: i64, region: &Region) -> Vec<Key> {
    let (r, start, end) = (region.ref_id as i32, region.start as i64, region.end as i64);
    let lo = all.partition_point(|k| (k.0, k.1) < (r, start - max_span));
    let hi = all.partition_point(|k| (k.0, k.1) < (r, end));
    all[lo..hi]
        .iter()
        .filter(|k| region.overlaps(k.0, k.1, k.2))
        .cloned()
        .collect()
}

#[test]
fn windows_and_regions_hold_exactly_the_overlapping_records() {
    for name in [
        "sarscov2.bam",
        "na12878_chrM.bam",
        "chm1.bam",
        "long_cigar.bam",
    ] {
        let bams = BamSet::open(&[data(name)]).unwrap();
        let mut all = all_records(&bams);
        all.retain(|k| k.0 >= 0);
        assert!(all.is_sorted_by_key(|k| (k.0, k.1)), "{name}");
        let max_span = all.iter().map(|k| k.2 - k.1).max().unwrap_or(0);
        let header = bams.header().unwrap();
        let placed: std::collections::BTreeSet<usize> = all.iter().map(|k| k.0 as usize).collect();
        for size in [97, 1000, 16_384, 1 << 40] {
            // Small windows over the first bases only of the references with reads
            // (a region read through a BAI starts at its 16 kb linear-index window).
            let limit = match size {
                97 => 3_000,
                1000 => 200_000,
                _ => u64::MAX,
            };
            let windows: Vec<Region> = placed
                .iter()
                .flat_map(|&r| {
                    let length = u64::from(header.references[r].length);
                    (0..length.min(limit))
                        .step_by(size as usize)
                        .map(move |start| Region::new(r, start, (start + size).min(length)))
                })
                .collect();
            if header.references.len() == 1 && limit == u64::MAX {
                assert_eq!(RegionMap::new(&bams).windows(size).as_slice(), windows);
            }
            let map = RegionMap::new(&bams).regions(windows.clone());
            for threads in [1, 3] {
                let got = map
                    .run(threads, |_, records| {
                        let mut v = Vec::new();
                        records.for_each(|bam, r| {
                            assert_eq!(bam, 0);
                            v.push(key(&r));
                        });
                        v
                    })
                    .unwrap();
                assert_eq!(got.len(), windows.len());
                for (w, records) in windows.iter().zip(&got) {
                    assert_eq!(records, &brute_force(&all, max_span, w), "{name} {w:?}");
                }
            }
        }
        // Overlapping, unsorted, empty and single-base regions, in the order given.
        let length = u64::from(header.references[0].length);
        let regions = [
            Region::new(0, length / 2, length),
            Region::new(0, 0, length / 3),
            Region::new(0, 10, 10),
            Region::new(0, 5000.min(length - 1), 5001.min(length)),
            Region::new(0, 0, length),
        ];
        let got = RegionMap::new(&bams)
            .regions(regions)
            .run(2, |region, records| {
                let mut v = Vec::new();
                let n = records.for_each_in(0, |r| v.push(key(&r)));
                assert_eq!(n as usize, v.len());
                assert_eq!(records.region(), *region);
                v
            })
            .unwrap();
        for (region, records) in regions.iter().zip(&got) {
            assert_eq!(
                records,
                &brute_force(&all, max_span, region),
                "{name} {region:?}"
            );
        }
    }
}

#[test]
fn several_bams_are_walked_one_after_the_other() {
    let path = data("sarscov2.bam");
    let bams = BamSet::open(&[path.clone(), path]).unwrap();
    let counts = RegionMap::new(&bams)
        .windows(5000)
        .run(2, |_, records| {
            let mut per_bam = [0u64; 2];
            records.for_each(|bam, _| per_bam[bam] += 1);
            per_bam
        })
        .unwrap();
    assert!(counts.iter().any(|c| c[0] > 0));
    assert!(counts.iter().all(|c| c[0] == c[1]));
}

#[test]
fn results_stream_in_region_order_and_errors_stop_the_run() {
    let bams = BamSet::open(&[data("na12878_chrM.bam")]).unwrap();
    let map = RegionMap::new(&bams).windows(100);
    let mut seen = Vec::new();
    map.run_each(
        4,
        |region, _| Ok::<_, Error>(region.start),
        |i, start| {
            seen.push((i, start));
            Ok(())
        },
    )
    .unwrap();
    assert_eq!(seen.len(), map.as_slice().len());
    assert!(seen
        .iter()
        .all(|&(i, start)| map.as_slice()[i].start == start));
    let outside = RegionMap::new(&bams).regions([Region::new(0, 0, 1 << 40)]);
    let e = outside.run(1, |_, _| ()).unwrap_err().to_string();
    assert!(e.contains("not in the header"), "{e}");
    let e = RegionMap::new(&bams)
        .regions([Region::new(99, 0, 1)])
        .run(1, |_, _| ())
        .unwrap_err();
    assert!(e.to_string().contains("na12878_chrM.bam"), "{e}");
}
