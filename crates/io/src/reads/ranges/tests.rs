use std::io::Cursor;

use super::*;

/// A file of `n` records of `format` (FASTQ qualities often starting with `@` or `+`,
/// empty lines between some records, multi-line FASTA), and each record's offset.
fn file(format: RecordFormat, n: usize, seed: u64) -> (Vec<u8>, Vec<u64>) {
    let mut x = seed | 1;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let (mut out, mut starts) = (Vec::new(), Vec::new());
    for i in 0..n {
        if next() % 5 == 0 {
            out.extend_from_slice(if next() % 2 == 0 { b"\n" } else { b"\r\n" });
        }
        starts.push(out.len() as u64);
        let len = (next() % 40) as usize;
        let bases: String = (0..len)
            .map(|_| ['A', 'C', 'G', 'T'][(next() % 4) as usize])
            .collect();
        let quals: String = (0..len)
            .map(|_| ['@', '+', 'I', '#', '>'][(next() % 5) as usize])
            .collect();
        let record = match format {
            RecordFormat::Fastq => format!("@r{i}\n{bases}\n+\n{quals}\n"),
            RecordFormat::Fasta => {
                let (a, b) = bases.split_at(len / 2);
                format!(">r{i}\n{a}\n{b}\n")
            }
            _ => format!("r{i}\t{bases}\t{quals}\n"),
        };
        out.extend_from_slice(record.as_bytes());
    }
    (out, starts)
}

/// Cutting the file anywhere gives every record to exactly one range, anchors at the
/// right records, and skipping from an anchor lands on the record after.
fn check(format: RecordFormat) {
    for seed in 1..=20u64 {
        let (data, starts) = file(format, 300, seed);
        let len = data.len() as u64;
        let mut cuts = vec![0, len];
        let mut x = seed;
        for _ in 0..(seed % 7 + 1) {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            cuts.push((x >> 33) % len);
        }
        cuts.sort_unstable();
        cuts.dedup();
        let mut seen = 0u64;
        for w in cuts.windows(2) {
            let (start, end) = (w[0], w[1]);
            let stream = Cursor::new(&data[start as usize..]);
            let range = records_in_range(stream, format, start, end, 7).unwrap();
            // Dropping what lies behind changes nothing.
            let stream = Cursor::new(&data[start as usize..]);
            let dropping = count_records(stream, format, start, end, 7, 40).unwrap();
            assert_eq!(dropping, range, "seed {seed} range {start}..{end}");
            assert_eq!(range.anchors.len() as u64, range.records.div_ceil(7));
            for (k, &anchor) in range.anchors.iter().enumerate() {
                assert_eq!(
                    anchor,
                    starts[(seen + 7 * k as u64) as usize],
                    "seed {seed}"
                );
            }
            seen += range.records;
        }
        assert_eq!(seen, starts.len() as u64, "seed {seed} cuts {cuts:?}");
        for (i, &at) in starts.iter().enumerate().step_by(37) {
            let mut reader = Cursor::new(&data[at as usize..]);
            skip_records(&mut reader, format, 5).unwrap();
            let rest = &data[at as usize + reader.position() as usize..];
            let expect = starts.get(i + 5).map_or(&[][..], |&s| &data[s as usize..]);
            assert_eq!(
                std::str::from_utf8(rest).unwrap().trim_start(),
                std::str::from_utf8(expect).unwrap().trim_start()
            );
        }
    }
}

#[test]
fn fastq_ranges_hold_every_record_once() {
    check(RecordFormat::Fastq);
}

#[test]
fn fasta_ranges_hold_every_record_once() {
    check(RecordFormat::Fasta);
}

#[test]
fn line_ranges_hold_every_record_once() {
    check(RecordFormat::Tab5);
}

#[test]
fn a_range_without_a_record_start_is_empty() {
    let data = b"@r1\nACGTACGTACGTACGT\n+\nIIIIIIIIIIIIIIII\n";
    let range = records_in_range(Cursor::new(&data[5..]), RecordFormat::Fastq, 5, 20, 1).unwrap();
    assert_eq!(range, RangeRecords::default());
}
