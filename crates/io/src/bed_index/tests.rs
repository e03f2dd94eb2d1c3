//! The index checked against noodles' queries and against itself: the chunks found for
//! overlapping lines, the parallel writer against the serial one, the commands' plain
//! columns read as any line reads them, lines joined in their bins against line by
//! line, bins as CSI computes them, and bad lines as errors.

use super::groups::bin_of;
use super::*;
use crate::bgzf_writer::BgzfWriter;
use noodles_core::region::Interval;
use noodles_csi::BinningIndex;

#[test]
fn queries_find_the_chunks_of_overlapping_lines() {
    let names = ["chr1", "chr2"];
    let mut indexer = BedIndexer::new(names, 1_000_000);
    let mut writer = BgzfWriter::new(Vec::new(), 1);
    let mut lines = Vec::new();
    let head = b"#chrom\tstart\tend\n";
    let at = writer.virtual_position();
    writer.write_all(head).unwrap();
    indexer
        .add_line(0, head, at, writer.virtual_position())
        .unwrap();
    for (ref_id, name) in names.iter().enumerate() {
        for start in (0..900_000u64).step_by(500) {
            let line = format!("{name}\t{start}\t{}\t1.00\n", start + 500);
            let at = writer.virtual_position();
            writer.write_all(line.as_bytes()).unwrap();
            let end = writer.virtual_position();
            indexer.add_line(ref_id, line.as_bytes(), at, end).unwrap();
            lines.push((ref_id, start, at, end));
        }
    }
    let mut file = Vec::new();
    indexer.write(names.len(), &mut file).unwrap();
    let index = noodles_csi::io::Reader::new(&file[..])
        .read_index()
        .unwrap();
    let names: Vec<_> = index
        .header()
        .unwrap()
        .reference_sequence_names()
        .iter()
        .collect();
    assert_eq!(names, ["chr1", "chr2"]);
    let interval: Interval = "300001-300600".parse().unwrap();
    let chunks = index.query(1, interval).unwrap();
    for &(_, start, at, end) in lines.iter().filter(|l| l.0 == 1) {
        let overlaps = start < 300_600 && start + 500 > 300_000;
        let covered = chunks
            .iter()
            .any(|c| u64::from(c.start()) <= at && end <= u64::from(c.end()));
        if overlaps {
            assert!(covered, "line at {start} not in {chunks:?}");
        }
    }
}

#[test]
fn the_parallel_writer_writes_the_file_and_index_of_the_serial_one() {
    let names = ["chr1", "chr2", "chr3"];
    let head = b"#chrom\tstart\tend\tdepth\n";
    // Batches of 1,000 lines, as a collector gets them from its tasks.
    let mut text = Vec::new();
    for (ref_id, name) in names.iter().enumerate() {
        let starts: Vec<u64> = (0..(ref_id as u64 + 1) * 400_000).step_by(50).collect();
        for batch in starts.chunks(1000) {
            let lines: String = batch
                .iter()
                .map(|s| format!("{name}\t{s}\t{}\t{}\n", s + 50, s % 7))
                .collect();
            text.push((ref_id, lines.into_bytes()));
        }
    }
    let mut serial = BgzfWriter::new(Vec::new(), 6);
    let mut indexer = BedIndexer::new(names, 1_200_000);
    serial.write_all(head).unwrap();
    for (ref_id, lines) in &text {
        for line in lines.split_inclusive(|&b| b == b'\n') {
            let at = serial.virtual_position();
            serial.write_all(line).unwrap();
            let end = serial.virtual_position();
            indexer.add_line(*ref_id, line, at, end).unwrap();
        }
    }
    let file = serial.finish().unwrap();
    let mut index = Vec::new();
    indexer.write(names.len(), &mut index).unwrap();
    for threads in [1, 3] {
        let indexer = BedIndexer::new(names, 1_200_000);
        let mut writer = IndexedBedWriter::new(Vec::new(), 6, threads, indexer).unwrap();
        writer.write_unindexed(head).unwrap();
        for (ref_id, lines) in &text {
            writer.write_lines(*ref_id, lines).unwrap();
        }
        let (parallel_file, indexer) = writer.finish().unwrap();
        let mut parallel_index = Vec::new();
        indexer.write(names.len(), &mut parallel_index).unwrap();
        assert!(parallel_file == file, "file at {threads} threads");
        assert!(parallel_index == index, "index at {threads} threads");
    }
}

proptest::proptest! {
    #[test]
    fn plain_lines_read_as_any_line_reads_them(
        name in "[a-z0-9]{0,3}",
        start in "[0-9]{0,21}|[0-9+ \r-]{0,4}",
        end in "[0-9]{0,21}|[0-9+ \r-]{0,4}",
        rest in "(\t[0-9. ]{0,3})?\n?",
        tab_separated in proptest::bool::weighted(0.9),
    ) {
        let line = [name, start, end].join(if tab_separated { "\t" } else { " " }) + &rest;
        let line = line.as_bytes();
        if let Some(plain) = plain_columns(line) {
            proptest::prop_assert_eq!(Ok(plain), any_columns(line));
        }
    }
}

#[test]
fn plain_columns_read_the_commands_lines() {
    assert_eq!(plain_columns(b"chr1\t0\t500\t1.00\n"), Some((0, 500)));
    assert_eq!(plain_columns(b"chr1\t12\t12"), Some((12, 12)));
    assert_eq!(plain_columns(b"chr1\t1\t18446744073709551615\n"), None);
    assert_eq!(plain_columns(b"chr1\t1\t2\r\n"), None);
    assert_eq!(any_columns(b"chr1\t1\t2\r\n"), Ok((1, 2)));
}

/// The index of `lines` (contig, text) written one BGZF stream after another, built
/// by noodles one record per line, by [`BedIndexer`], and by [`BedIndexer`] from parts of
/// uneven sizes (one line, none, hundreds) grouped apart.
fn both_indexes(names: &[&str], max_length: u64, lines: &[(usize, String)]) -> [Vec<u8>; 3] {
    let depth = LineGrouper::new(max_length).depth;
    let mut per_line = Indexer::<BinnedIndex>::new(MIN_SHIFT, depth)
        .unwrap()
        .set_header(bed_header(
            names.iter().map(|n| n.as_bytes().into()).collect(),
        ));
    let mut grouped = BedIndexer::new(names.iter().copied(), max_length);
    let mut from_parts = BedIndexer::new(names.iter().copied(), max_length);
    let mut part = PartLineGroups::new(max_length);
    let mut writer = BgzfWriter::new(Vec::new(), 1);
    for (i, (ref_id, line)) in lines.iter().enumerate() {
        let at = writer.virtual_position();
        writer.write_all(line.as_bytes()).unwrap();
        let end = writer.virtual_position();
        grouped.add_line(*ref_id, line.as_bytes(), at, end).unwrap();
        part.add_line(*ref_id, line.as_bytes(), at, end).unwrap();
        if matches!(i % 311, 0 | 1 | 2 | 150) {
            let bytes = std::mem::replace(&mut part, PartLineGroups::new(max_length)).to_bytes();
            from_parts
                .add_part(&PartLineGroups::from_bytes(&bytes).unwrap())
                .unwrap();
        }
        if let Some(interval) = interval(line.as_bytes()) {
            let (first, last) = interval.unwrap();
            let chunk = Chunk::new(at.into(), end.into());
            per_line
                .add_record(Some((*ref_id, first, last, true)), chunk)
                .unwrap();
        }
    }
    let mut expected = noodles_csi::io::Writer::new(Vec::new());
    expected.write_index(&per_line.build(names.len())).unwrap();
    let mut ours = Vec::new();
    grouped.write(names.len(), &mut ours).unwrap();
    from_parts
        .add_part(&PartLineGroups::from_bytes(&part.to_bytes()).unwrap())
        .unwrap();
    let mut ours_from_parts = Vec::new();
    from_parts.write(names.len(), &mut ours_from_parts).unwrap();
    [
        expected.into_inner().finish().unwrap(),
        ours,
        ours_from_parts,
    ]
}

#[test]
fn lines_joined_in_their_bins_index_as_line_by_line() {
    let names = ["chr1", "chr2", "chr3"];
    let mut rng = 7u64;
    let mut next = || {
        rng = rng
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        rng >> 33
    };
    let mut lines = vec![(0, "#chrom\tstart\tend\n".to_string())];
    for (ref_id, name) in names.iter().enumerate() {
        let (mut pos, mut previous) = (0u64, 0u64);
        while pos < 3_000_000 {
            // Per-base runs, windows, empty intervals, lines across bins of every
            // level, and overlapping lines.
            let len = match next() % 10 {
                0..=5 => 1 + next() % 20,
                6 | 7 => 500,
                8 => 0,
                _ => next() % 300_000,
            };
            let start = if next() % 50 == 0 {
                pos.saturating_sub(100).max(previous)
            } else {
                pos
            };
            previous = start;
            lines.push((
                ref_id,
                format!("{name}\t{start}\t{}\t{}\n", start + len, next() % 9),
            ));
            pos = pos.max(start + len);
        }
    }
    let [expected, ours, from_parts] = both_indexes(&names, 3_000_000, &lines);
    assert!(ours == expected, "the indexes differ");
    assert!(from_parts == expected, "the index from parts differs");
}

#[test]
fn bins_are_csis() {
    let p = |n: usize| Position::new(n).unwrap();
    // BAI's layout (depth 5): level 5 starts at bin 4681, level 4 at 585.
    assert_eq!(bin_of(p(1), p(1), 5), 4681);
    assert_eq!(bin_of(p(16_385), p(16_385), 5), 4682);
    assert_eq!(bin_of(p(16_384), p(16_385), 5), 585);
    assert_eq!(bin_of(p(1), p(1 << 29), 5), 0);
    assert_eq!(bin_of(p(1), p(1), 6), 37_449);
}

#[test]
fn an_out_of_order_line_is_an_error_at_that_line() {
    let mut indexer = BedIndexer::new(["chr1", "chr2"], 100_000);
    indexer.add_line(0, b"chr1\t0\t500\n", 0, 10).unwrap();
    indexer.add_line(0, b"chr1\t500\t900\n", 10, 20).unwrap();
    let error = indexer
        .add_line(0, b"chr1\t100\t200\n", 20, 30)
        .unwrap_err();
    assert!(error.contains("out of order"), "{error}");
    indexer.add_line(1, b"chr2\t0\t500\n", 30, 40).unwrap();
    assert!(indexer.add_line(0, b"chr1\t900\t950\n", 40, 50).is_err());
}

#[test]
fn a_line_without_coordinates_is_an_error() {
    let mut indexer = BedIndexer::new(["chr1"], 100);
    assert!(indexer.add_line(0, b"chr1\tx\t5\n", 0, 10).is_err());
    assert!(indexer.add_line(0, b"chr1\n", 0, 10).is_err());
}
