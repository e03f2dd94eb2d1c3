//! Unaligned BAM as read input: its unflagged records as single reads, flagged
//! consecutive records as pairs, broken pairs and files that are not BAM refused, and
//! the records' tags kept as SAM text in each read's comment when asked.

use super::*;

/// A test BAM record: name, flag, sequence, whether it has qualities.
type BamRead<'a> = (&'a str, u16, &'a [u8], bool);

/// A BAM file of `records`, with qualities 30 (or none).
fn bam_file(dir: &tempfile::TempDir, records: &[BamRead<'_>]) -> PathBuf {
    use crate::bam::test_bam;
    let mut data = test_bam::header("@HD\tVN:1.6\n", &[("c", 100)]);
    for &(name, flag, seq, quals) in records {
        let mut r = test_bam::record(name, flag, -1, -1, 0, &[], seq, -1);
        if !quals {
            // The qualities sit before the 4-byte tag the test record ends with.
            let end = r.len() - 4;
            r[end - seq.len()..end].fill(0xff);
        }
        data.extend(r);
    }
    write(dir, "reads.bam", &test_bam::bgzf(&data, 37))
}

fn bam_sources(path: &std::path::Path, paired: bool) -> ReadSources {
    let path = path.to_path_buf();
    ReadSources {
        unpaired: if paired { vec![] } else { vec![path.clone()] },
        interleaved: if paired { vec![path] } else { vec![] },
        format: InputFormat::Bam {
            paired,
            preserve_tags: false,
        },
        ..ReadSources::default()
    }
}

#[test]
fn unaligned_bam_reads_are_its_unflagged_records() {
    let dir = tempfile::tempdir().unwrap();
    let bam = bam_file(
        &dir,
        &[
            ("r0", 0x4, b"ACGTN", true),
            ("p", 0x4d, b"AC", true),
            ("r1", 0x14, b"AACGM", true),
            ("s", 0x104, b"AC", true),
            ("r2", 0x4, b"GA", false),
            ("p", 0x8d, b"AC", true),
        ],
    );
    let sources = bam_sources(&bam, false);
    let expected = [
        "r0 ACGTN 30,30,30,30,30",
        "r1 NCGTT 30,30,30,30,30",
        "r2 GA 40,40",
    ];
    for max in [1, 2, 100] {
        let got = fragments(&sources, max, 1 << 20, &ParseOptions::default()).unwrap();
        assert_eq!(got, expected, "chunks of {max}");
    }
}

#[test]
fn unaligned_bam_pairs_are_consecutive_flagged_records() {
    let dir = tempfile::tempdir().unwrap();
    let bam = bam_file(
        &dir,
        &[
            ("a", 0x4d, b"ACG", true),
            ("a", 0x8d, b"GG", true),
            ("u", 0x4, b"TT", true),
            ("b", 0x9d, b"AAC", true),
            ("b", 0x84d, b"T", true),
            ("b", 0x4d, b"C", false),
        ],
    );
    let mut sources = bam_sources(&bam, true);
    let got = fragments(&sources, 1, 1 << 20, &ParseOptions::default()).unwrap();
    assert_eq!(
        got,
        ["a ACG 30,30,30 | a GG 30,30", "b C 40 | b GTT 30,30,30",]
    );
    sources.skip = 1;
    let got = fragments(&sources, 8, 1 << 20, &ParseOptions::default()).unwrap();
    assert_eq!(got, ["b C 40 | b GTT 30,30,30"]);
}

#[test]
fn unaligned_bam_broken_pairs_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [&[BamRead<'_>]; 3] = [
        &[("a", 0x4d, b"A", true), ("b", 0x8d, b"A", true)],
        &[("a", 0x4d, b"A", true), ("a", 0x4d, b"A", true)],
        &[
            ("a", 0x4d, b"A", true),
            ("a", 0x8d, b"A", true),
            ("c", 0x4d, b"A", true),
        ],
    ];
    for (case, records) in cases.iter().enumerate() {
        let bam = bam_file(&dir, records);
        let e = fragments(
            &bam_sources(&bam, true),
            8,
            1 << 20,
            &ParseOptions::default(),
        )
        .unwrap_err()
        .to_string();
        let record = if case == 2 { "record 3" } else { "record 1" };
        assert!(e.contains("reads.bam") && e.contains(record), "{e}");
        assert!(e.contains("consecutive"), "{e}");
    }
}

#[test]
fn a_file_that_is_not_bam_is_refused_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let fq = write(&dir, "r.fq", b"@a\nA\n+\nI\n");
    let e = fragments(
        &bam_sources(&fq, false),
        8,
        1 << 20,
        &ParseOptions::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("r.fq") && e.contains("not a BAM"), "{e}");
}

/// The comment of every read of `sources`, in order.
fn comments(sources: &ReadSources) -> Result<Vec<String>> {
    let mut chunker = InputChunker::new(sources, ChunkLimits::default())?;
    let (mut chunk, mut batch) = (InputChunk::default(), FragmentBatch::new());
    let mut out = Vec::new();
    while chunker.fill(&mut chunk)? {
        batch.parse(&chunk, &ParseOptions::default())?;
        for i in 0..batch.len() {
            let reads = match batch.fragment(i) {
                Fragment::Single(r) => vec![r],
                Fragment::Pair([a, b]) => vec![a, b],
            };
            out.extend(
                reads
                    .iter()
                    .map(|r| String::from_utf8_lossy(r.comment).into_owned()),
            );
        }
    }
    Ok(out)
}

#[test]
fn preserved_tags_are_the_reads_comments_as_sam_text() {
    let dir = tempfile::tempdir().unwrap();
    let bam = bam_file(&dir, &[("a", 0x4d, b"ACG", true), ("a", 0x8d, b"GG", true)]);
    let mut sources = bam_sources(&bam, true);
    assert_eq!(comments(&sources).unwrap(), ["", ""]);
    sources.format = InputFormat::Bam {
        paired: true,
        preserve_tags: true,
    };
    // Every test record carries NM:i:2.
    assert_eq!(comments(&sources).unwrap(), ["NM:i:2", "NM:i:2"]);
    // A malformed tag (an unknown value type) is an error naming the file and record.
    use crate::bam::test_bam;
    let mut data = test_bam::header("@HD\tVN:1.6\n", &[("c", 100)]);
    data.extend(test_bam::record("a", 0x4d, -1, -1, 0, &[], b"ACG", -1));
    let mut mate = test_bam::record("a", 0x8d, -1, -1, 0, &[], b"GG", -1);
    let type_at = mate.len() - 2;
    mate[type_at] = b'Q';
    data.extend(mate);
    let broken = write(&dir, "broken.bam", &test_bam::bgzf(&data, 37));
    sources.interleaved = vec![broken];
    let e = comments(&sources).unwrap_err().to_string();
    assert!(
        e.contains("broken.bam") && e.contains("record 2") && e.contains("NM"),
        "{e}"
    );
}
