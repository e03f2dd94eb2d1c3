use std::io::Write;
use std::path::PathBuf;

use super::*;

/// Writes `bytes` to a file `name` in `dir`.
pub(crate) fn write(dir: &tempfile::TempDir, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// `bytes`, gzip-compressed.
pub(crate) fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(bytes).unwrap();
    enc.finish().unwrap()
}

/// Writes `text` gzip-compressed and cut in half (a copy that did not finish) to a file
/// `name` in `dir`; returns its path and the part of `text` a decoder gets out of it
/// before it fails.
pub(crate) fn truncated_gzip(
    dir: &tempfile::TempDir,
    name: &str,
    text: &[u8],
) -> (PathBuf, Vec<u8>) {
    let mut cut = gzip(text);
    cut.truncate(cut.len() / 2);
    let mut inflated = Vec::new();
    let mut decoder = flate2::read::MultiGzDecoder::new(&cut[..]);
    std::io::Read::read_to_end(&mut decoder, &mut inflated).unwrap_err();
    (write(dir, name, &cut), inflated)
}

/// The message of the first error `next` returns, calling it until then (it returns
/// whether there is more); fails the test if it reaches the end first.
pub(crate) fn first_error(mut next: impl FnMut() -> Result<bool>) -> String {
    loop {
        match next() {
            Ok(true) => {}
            Ok(false) => panic!("read to the end without an error"),
            Err(e) => return e.to_string(),
        }
    }
}

/// A read as (name, bases, qualities).
type Owned = (String, String, Option<Vec<u8>>);

/// All reads of `paths` as (name, bases, qualities), with chunks of at most
/// `max_records` records and `max_bytes` bytes.
fn read_all(paths: &[PathBuf], max_records: usize, max_bytes: usize) -> Result<Vec<Owned>> {
    let sources = ReadSources {
        unpaired: paths.to_vec(),
        ..ReadSources::default()
    };
    let mut chunker = InputChunker::new(
        &sources,
        ChunkLimits {
            max_records,
            max_bytes,
        },
    )?;
    let mut chunk = InputChunk::default();
    let mut batch = FragmentBatch::new();
    let mut out = Vec::new();
    while chunker.fill(&mut chunk)? {
        batch.parse(&chunk, &ParseOptions::default())?;
        assert_eq!(batch.len(), chunk.fragments);
        for i in 0..batch.len() {
            let Fragment::Single(r) = batch.fragment(i) else {
                panic!("unpaired input gave a pair");
            };
            out.push((
                String::from_utf8(r.name.to_vec()).unwrap(),
                String::from_utf8(r.bases.to_vec()).unwrap(),
                r.qualities.map(<[u8]>::to_vec),
            ));
        }
    }
    Ok(out)
}

const FASTQ: &[u8] =
    b"@r1 desc\nACGTN\n+\nIIII#\n\n@r2\r\nacgu.\r\n+r2\r\n!!!!!\r\n@r3\n\n+\n\n@r4\nRYAC\n+\nABCD";

#[test]
fn fastq_chunks_do_not_depend_on_limits() {
    let dir = tempfile::tempdir().unwrap();
    let plain = write(&dir, "r.fq", FASTQ);
    let gz = write(&dir, "r.fq.gz", &gzip(FASTQ));
    let expected = read_all(std::slice::from_ref(&plain), 1000, 1 << 20).unwrap();
    assert_eq!(expected.len(), 4);
    assert_eq!(
        expected[0],
        ("r1".into(), "ACGTN".into(), Some(vec![40, 40, 40, 40, 2]))
    );
    assert_eq!(expected[1], ("r2".into(), "ACGTN".into(), Some(vec![0; 5])));
    assert_eq!(expected[2], ("r3".into(), String::new(), Some(vec![])));
    assert_eq!(expected[3].1, "RYAC");
    for (records, bytes) in [(1, 1 << 20), (3, 1), (2, 7), (1000, 1)] {
        assert_eq!(
            read_all(std::slice::from_ref(&plain), records, bytes).unwrap(),
            expected
        );
        assert_eq!(
            read_all(std::slice::from_ref(&gz), records, bytes).unwrap(),
            expected
        );
    }
    // Two files in a row: records numbered per file.
    let two = read_all(&[plain.clone(), gz], 2, 1).unwrap();
    assert_eq!(two.len(), 8);
}

#[test]
fn fasta_records_span_lines() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(&dir, "r.fa", b"\n>a x\nACGT\nAC\n>b\n\nGG\n>c\n");
    for (records, bytes) in [(10, 1 << 20), (1, 1)] {
        let reads = read_all(std::slice::from_ref(&p), records, bytes).unwrap();
        let got: Vec<(String, String, bool)> = reads
            .into_iter()
            .map(|(n, b, q)| (n, b, q.is_some()))
            .collect();
        assert_eq!(
            got,
            vec![
                ("a".into(), "ACGTAC".into(), false),
                ("b".into(), "GG".into(), false),
                ("c".into(), String::new(), false)
            ]
        );
    }
}

fn error_of(bytes: &[u8]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let p = write(&dir, "bad.fq", bytes);
    read_all(&[p], 1, 1).unwrap_err().to_string()
}

#[test]
fn bad_records_are_named() {
    let ok = "@a\nACGT\n+\nIIII\n";
    // (A record without a name is named by its number, as bowtie2 names it.)
    let cases: [(String, &str); 7] = [
        (
            format!("{ok}@b\nACGT\nIIII\n@c\nA\n+\nI\n"),
            "record 2: expected a '+' line",
        ),
        (
            format!("{ok}@b\nACGT\n+\nIII\n"),
            "record 2: sequence has 4 bases but quality has 3",
        ),
        (
            format!("{ok}{ok}@c\nAC-T\n+\nIIII\n"),
            "record 3: invalid base '-' at position 3",
        ),
        (
            format!("{ok}@b\nACGT\n+\nII\u{7f}I\n"),
            "record 2: invalid quality character",
        ),
        (format!("{ok}@b\nACGT\n"), "record 2: truncated record"),
        (
            format!("{ok}b\nACGT\n+\nIIII\n"),
            "record 2: expected a header line starting with '@'",
        ),
        ("xyz\n".to_string(), "not FASTQ or FASTA"),
    ];
    for (input, expected) in cases {
        let e = error_of(input.as_bytes());
        assert!(
            e.contains(expected) && e.contains("bad.fq"),
            "{e:?} lacks {expected:?}"
        );
    }
    let long = format!("@a\n{}\n+\n{}\n", "A".repeat(10_001), "I".repeat(10_001));
    assert!(error_of(long.as_bytes()).contains("record 1: read is 10001 bases long"));
}

#[test]
fn truncated_gzip_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = Vec::new();
    for i in 0..5000 {
        writeln!(
            text,
            "@r{i}\nACGTACGTAGCTAGCTAGCATCGACTAGC\n+\nIIIIIIIIIIIIIIIIIIIIIIIIIIIII"
        )
        .unwrap();
    }
    let (p, inflated) = truncated_gzip(&dir, "cut.fq.gz", &text);
    // The error names the record the stream ends in: the one after the last complete
    // record a decoder gets out of the truncated file.
    let complete = inflated.iter().filter(|&&b| b == b'\n').count() / 4;
    assert!(complete > 100, "{complete}");
    let e = read_all(&[p], 100, 1 << 20).unwrap_err().to_string();
    let expected = format!("cut.fq.gz: record {}: cannot read", complete + 1);
    assert!(e.contains(&expected), "{e}, expected {expected}");
}

#[test]
fn endless_record_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = b"@r\n".to_vec();
    text.resize(6 << 20, b'A');
    let p = write(&dir, "endless.fq", &text);
    let e = read_all(&[p], 10, 1 << 20).unwrap_err().to_string();
    assert!(e.contains("record 1: record is longer than 4 MiB"), "{e}");
}

#[test]
fn empty_input_has_no_reads() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(&dir, "empty.fq", b"");
    assert!(read_all(&[p], 10, 10).unwrap().is_empty());
}

/// Every chunk of `sources`, with its span when it has one.
fn chunks_of(chunker: &mut InputChunker) -> Vec<(InputChunk, Option<ChunkSpan>)> {
    let mut out = Vec::new();
    let mut chunk = InputChunk::default();
    while chunker.fill(&mut chunk).unwrap() {
        out.push((chunk.clone(), chunker.last_span()));
    }
    out
}

#[test]
fn a_part_read_again_from_its_spans_gives_the_same_chunks() {
    let dir = tempfile::tempdir().unwrap();
    let mut first = Vec::new();
    let mut second = Vec::new();
    for i in 0..23 {
        first.extend_from_slice(format!("@p{i}/1\nACGT\n+\nIIII\n").as_bytes());
        if i == 5 {
            first.extend_from_slice(b"\n\n");
        }
        second.extend_from_slice(format!("@p{i}/2\nTTGCA\n+\nIIIII\n").as_bytes());
    }
    second.pop();
    let paths = [write(&dir, "r1.fq", &first), write(&dir, "r2.fq", &second)];
    let sources = ReadSources {
        mate1: vec![paths[0].clone()],
        mate2: vec![paths[1].clone()],
        ..ReadSources::default()
    };
    let limits = ChunkLimits {
        max_records: 4,
        max_bytes: 1 << 20,
    };
    let whole = chunks_of(&mut InputChunker::new(&sources, limits).unwrap());
    assert_eq!(whole.len(), 6);
    let last = whole.last().unwrap().1.unwrap();
    assert_eq!(last.end, [first.len() as u64, second.len() as u64]);
    // Chunks 2..5 as a part: the bytes of their spans, read as the only input.
    let (from, to) = (whole[2].1.unwrap(), whole[4].1.unwrap());
    let bytes = [
        first[from.start[0] as usize..to.end[0] as usize].to_vec(),
        second[from.start[1] as usize..to.end[1] as usize].to_vec(),
    ];
    let mut buffers = bytes.into_iter();
    let opener: FileOpener = Box::new(move |path: &std::path::Path| {
        crate::input::Input::from_reader(
            path,
            Box::new(std::io::Cursor::new(buffers.next().unwrap())),
        )
    });
    let part_sources = ReadSources {
        upto: Some(12),
        ..sources.clone()
    };
    let first_chunk = &whole[2].0;
    let records_before = [
        first_chunk.first_record[0] - 1,
        first_chunk.first_record[1] - 1,
    ];
    let mut part = InputChunker::new(&part_sources, limits)
        .unwrap()
        .part(0, opener, first_chunk.first_fragment, records_before)
        .unwrap();
    let again = chunks_of(&mut part);
    assert_eq!(again.len(), 3);
    for ((a, _), (b, _)) in whole[2..5].iter().zip(&again) {
        assert_eq!(a.data, b.data);
        assert_eq!(a.first_fragment, b.first_fragment);
        assert_eq!(a.first_record, b.first_record);
        assert_eq!(a.fragments, b.fragments);
    }
}
