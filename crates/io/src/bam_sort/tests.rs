use super::*;
use crate::bgzf::{InflateBuffer, Inflater};

/// A minimal BAM record: reference `tid`, position `pos`, a 10M CIGAR (none when
/// unplaced), reverse strand or not, and `tag` as its name's second byte.
fn record(tid: i32, pos: i32, reverse: bool, tag: u8) -> Vec<u8> {
    let n_cigar: u16 = if tid < 0 { 0 } else { 1 };
    let flag: u16 = if tid < 0 {
        4 | if reverse { 16 } else { 0 }
    } else if reverse {
        16
    } else {
        0
    };
    let mut r = Vec::new();
    r.extend_from_slice(&0u32.to_le_bytes());
    r.extend_from_slice(&tid.to_le_bytes());
    r.extend_from_slice(&pos.to_le_bytes());
    r.push(3);
    r.push(60);
    r.extend_from_slice(&0u16.to_le_bytes());
    r.extend_from_slice(&n_cigar.to_le_bytes());
    r.extend_from_slice(&flag.to_le_bytes());
    r.extend_from_slice(&0u32.to_le_bytes());
    r.extend_from_slice(&(-1i32).to_le_bytes());
    r.extend_from_slice(&(-1i32).to_le_bytes());
    r.extend_from_slice(&0i32.to_le_bytes());
    r.extend_from_slice(&[b'r', tag, 0]);
    if n_cigar == 1 {
        r.extend_from_slice(&(10u32 << 4).to_le_bytes());
    }
    let len = (r.len() - 4) as u32;
    r[..4].copy_from_slice(&len.to_le_bytes());
    r
}

/// A pseudo-random number generator (a linear congruential one) from `seed`.
fn lcg(mut state: u64) -> impl FnMut() -> u32 {
    move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) as u32
    }
}

/// Records with many ties, in a scrambled order.
fn records() -> Vec<Vec<u8>> {
    let mut next = lcg(12345);
    (0..3000)
        .map(|i| {
            let tid = (next() % 4) as i32 - 1;
            let pos = if tid < 0 {
                -1
            } else {
                (next() % 50) as i32 * 1000
            };
            record(tid, pos, next().is_multiple_of(2), (i % 251) as u8)
        })
        .collect()
}

/// Sorts `records` with `budget` and returns the inflated output and the sorter's runs.
fn sort(records: &[Vec<u8>], budget: usize, threads: usize) -> (Vec<u8>, usize) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.bam");
    let mut sorter = BamSorter::new(&path, budget);
    for r in records {
        sorter.push(r).unwrap();
    }
    let runs = sorter.spilled_runs();
    let mut out = Vec::new();
    let writer = IndexedBamWriter::new(&mut out, &path, 0, 6, threads, &[100_000; 3]).unwrap();
    let index = sorter.finish(writer).unwrap();
    assert_eq!(index.extension(), "bai");
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "runs left"
    );
    let mut inflated = InflateBuffer::new();
    Inflater::new()
        .inflate_blocks(&out, 0, &mut inflated)
        .unwrap();
    (inflated.as_slice().to_vec(), runs)
}

#[test]
fn sorts_as_samtools_with_ties_in_input_order() {
    let input = records();
    let mut expected = input.clone();
    expected.sort_by_key(|r| sort_key(r));
    let expected: Vec<u8> = expected.concat();
    let (in_memory, runs) = sort(&input, usize::MAX, 1);
    assert_eq!(runs, 0);
    assert_eq!(in_memory, expected);
    let last = &in_memory[in_memory.len() - 39..];
    assert_eq!(&last[4..8], &(-1i32).to_le_bytes(), "unplaced records last");
}

#[test]
fn spilled_runs_give_the_same_records() {
    let input = records();
    let (in_memory, _) = sort(&input, usize::MAX, 2);
    let (spilled, runs) = sort(&input, 1000, 3);
    assert!(runs > MERGE_FAN_IN * MERGE_FAN_IN, "{runs} runs");
    assert_eq!(spilled, in_memory);
}

/// Runs are merged in a tree as they come: those waiting for the final merge stay
/// fewer than [`MERGE_FAN_IN`] per level, however many were written.
#[test]
fn waiting_runs_stay_few() {
    let dir = tempfile::tempdir().unwrap();
    let mut sorter = BamSorter::new(&dir.path().join("x.bam"), 1000);
    let mut most_waiting = 0;
    for r in records() {
        sorter.push(&r).unwrap();
        most_waiting = most_waiting.max(sorter.runs.open());
    }
    assert!(sorter.spilled_runs() > MERGE_FAN_IN * MERGE_FAN_IN);
    assert!(
        most_waiting <= 3 * MERGE_FAN_IN,
        "{most_waiting} runs waiting"
    );
}

#[test]
fn a_truncated_record_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let mut sorter = BamSorter::new(&dir.path().join("x.bam"), 1000);
    let r = record(0, 5, false, b'a');
    let err = sorter.push(&r[..r.len() - 1]).unwrap_err();
    assert!(err.to_string().contains("truncated BAM record"), "{err}");
}

#[test]
fn a_reference_beyond_bai_gets_a_csi() {
    let lengths = [100_000, (1 << 30) + 5];
    assert_eq!(index_extension(&lengths), "csi");
    assert_eq!(index_extension(&[1 << 29]), "bai");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.bam");
    let mut sorter = BamSorter::new(&path, usize::MAX);
    for (pos, tag) in [(900_000_000, b'a'), (5, b'b'), (600_000_000, b'c')] {
        sorter.push(&record(1, pos, false, tag)).unwrap();
    }
    let mut out = Vec::new();
    let writer = IndexedBamWriter::new(&mut out, &path, 0, 6, 1, &lengths).unwrap();
    let index = sorter.finish(writer).unwrap();
    assert_eq!(index.extension(), "csi");
    let mut bytes = Vec::new();
    index.write(&mut bytes).unwrap();
    let read = noodles_csi::io::Reader::new(&bytes[..])
        .read_index()
        .unwrap();
    assert_eq!(read.reference_sequences().len(), 2);
}

#[test]
fn batches_sorted_by_workers_give_the_same_records() {
    let input = records();
    let (expected, _) = sort(&input, usize::MAX, 1);
    let mut batch_sort = BatchSort::default();
    let batches: Vec<Vec<u8>> = input
        .chunks(97)
        .map(|records| {
            let mut batch = records.concat();
            batch_sort.sort(&mut batch);
            batch
        })
        .collect();
    let first: Vec<u8> = {
        let mut b = input[..97].to_vec();
        b.sort_by_key(|r| sort_key(r));
        b.concat()
    };
    assert_eq!(batches[0], first, "a batch sorted, ties in input order");
    for budget in [usize::MAX, 2000] {
        assert_eq!(sort(&batches, budget, 2).0, expected, "budget {budget}");
    }
}

/// Records of `n` random placed (or unplaced) positions below `span`, sorted.
fn sorted_records(n: usize, span: u32, seed: u64) -> Vec<Vec<u8>> {
    let mut next = lcg(seed);
    let mut records: Vec<Vec<u8>> = (0..n)
        .map(|i| {
            let tid = (next() % 4) as i32 - 1;
            let pos = if tid < 0 { -1 } else { (next() % span) as i32 };
            record(tid, pos, next().is_multiple_of(2), (i % 251) as u8)
        })
        .collect();
    records.sort_by_key(|r| sort_key(r));
    records
}

#[test]
fn ranges_written_apart_are_the_whole_file_and_its_index() {
    // Many ranges of a record or two: the writer flushes at every kind of range end.
    for (n, threads) in [(20_000, 2), (40, 1), (300, 1)] {
        check_ranges_apart(&sorted_records(n, 400_000_000, 99 + n as u64), threads);
    }
}

#[test]
fn unplaced_records_written_in_runs_are_the_whole_file() {
    // Unplaced reads of both strands after placed ones: written apart a run or two at a
    // time, they are the range written whole.
    let mut records = sorted_records(2_000, 40_000_000, 17);
    let unplaced = 3 * crate::bam_writer::UNPLACED_RUN as usize + 100;
    let mut extra: Vec<Vec<u8>> = (0..unplaced)
        .map(|i| record(-1, -1, i % 7 == 0, (i % 251) as u8))
        .collect();
    extra.sort_by_key(|r| sort_key(r));
    records.extend(extra);
    check_ranges_apart(&records, 2);
}

#[test]
fn records_at_the_edges_of_windows_are_indexed_as_the_whole_file() {
    // Records starting and ending on either side of 16 kbp window edges, where a group
    // must end: their bins and linear-index windows change there.
    let mut records = Vec::new();
    for range in 0..12 {
        for window in [1, 2, 5] {
            let edge = (range << 23) + (window << 14);
            for pos in edge - 160..edge + 160 {
                records.push(record(0, pos, pos % 2 == 0, (pos % 251) as u8));
            }
        }
    }
    records.sort_by_key(|r| sort_key(r));
    check_ranges_apart(&records, 1);
}

#[test]
fn dense_ranges_are_indexed_from_groups_of_records() {
    // Many records per 16 kbp window: the ranges' index entries are groups, far fewer
    // than the records, and give the whole file's index.
    let records = sorted_records(60_000, 40_000_000, 5);
    let groups = check_ranges_apart(&records, 2);
    assert!(
        groups * 4 < records.len(),
        "{groups} groups of {} records",
        records.len()
    );
}

/// Writes `records` whole and range by range, and checks the bytes and the indexes;
/// returns the number of index groups the ranges gave.
fn check_ranges_apart(records: &[Vec<u8>], threads: usize) -> usize {
    use crate::bam_writer::{
        index_of_ranges, range_and_cell, sort_range, UNPLACED_RANGE, UNPLACED_RUN,
    };
    let lengths = [500_000_000u64; 3];
    let path = std::path::Path::new("x.bam");
    let mut whole = Vec::new();
    let mut writer = IndexedBamWriter::new(&mut whole, path, 0, 6, threads, &lengths)
        .unwrap()
        .range_blocks();
    for r in records {
        writer.write_record(r).unwrap();
    }
    let mut whole_index = Vec::new();
    writer.finish().unwrap().write(&mut whole_index).unwrap();

    let (mut joined, mut placed) = (Vec::new(), Vec::new());
    let mut write_apart = |records: &[Vec<u8>]| {
        let mut bytes = Vec::new();
        let mut writer = IndexedBamWriter::for_range(&mut bytes, path, 6, 1, &lengths).unwrap();
        for r in records {
            writer.write_record(r).unwrap();
        }
        let entries = writer.finish_range().unwrap();
        placed.push((joined.len() as u64, entries));
        joined.extend(bytes);
    };
    for group in records.chunk_by(|a, b| sort_range(a) == sort_range(b)) {
        if sort_range(&group[0]) != UNPLACED_RANGE {
            // A range in pieces of one cell, two cells, one cell...
            let mut starts = vec![0];
            let cell = |r: &Vec<u8>| range_and_cell(sort_key(r).0).1;
            for cell in group.chunk_by(|a, b| cell(a) == cell(b)) {
                starts.push(starts[starts.len() - 1] + cell.len());
            }
            let (mut k, mut cells) = (0, 1);
            while k + 1 < starts.len() {
                let end = (k + cells).min(starts.len() - 1);
                write_apart(&group[starts[k]..starts[end]]);
                (k, cells) = (end, 3 - cells);
            }
            continue;
        }
        // The unplaced records in pieces of one run, two runs, one run...
        let (mut first, mut runs) = (0, 1);
        while first < group.len() {
            let end = group.len().min(first + runs * UNPLACED_RUN as usize);
            write_apart(&group[first..end]);
            (first, runs) = (end, 3 - runs);
        }
    }
    assert!(placed.len() > 10, "{}", placed.len());
    joined.extend_from_slice(&crate::bgzf_writer::EOF_MARKER);
    assert!(
        joined == whole,
        "the ranges' bytes differ from the whole file's"
    );
    let group_bytes: usize = placed.iter().map(|(_, e)| e.len()).sum();
    let placed = placed.iter().map(|(o, e)| (*o, e.as_slice()));
    let mut joined_index = Vec::new();
    index_of_ranges(path, &lengths, placed)
        .unwrap()
        .write(&mut joined_index)
        .unwrap();
    assert!(
        joined_index == whole_index,
        "the indexes differ ({} records, {threads} threads)",
        records.len()
    );
    group_bytes / crate::bam_writer::GROUP_BYTES
}
