//! Chunks checked against [`crate::fasta::FastaReader`]: the same records at any chunk
//! size, exhaustion, chunks grown for streams, long records cut into overlapping pieces,
//! and errors naming the file and offset (truncated gzip included).

use super::*;
use crate::fasta::FastaReader;
use crate::reads::tests::{first_error, truncated_gzip};

/// (name, sequence) of every record, chunked with `target`.
fn chunked(text: &[u8], target: usize) -> Result<Vec<(String, Vec<u8>)>> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.fa");
    std::fs::write(&path, text).unwrap();
    let mut chunker = FastaChunker::open(&path)?;
    let mut chunk = FastaChunk::default();
    let mut out = Vec::new();
    while chunker.next_chunk(&mut chunk, target)? {
        for record in chunk.records() {
            let record = record?;
            let mut sequence = Vec::new();
            record.translate(&chunk.path, &ResidueMap::identity(), &mut sequence)?;
            out.push((record.name.to_string(), sequence));
        }
    }
    Ok(out)
}

#[test]
fn a_truncated_gzip_file_is_an_error_where_its_text_stops() {
    let text: Vec<u8> = (0..5_000)
        .flat_map(|i| format!(">p{i}\nMKVLAAGIVGLLLAQWERTYIPASDFGHKLCVNM\n").into_bytes())
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let (path, inflated) = truncated_gzip(&dir, "cut.fa.gz", &text);
    let mut chunker = FastaChunker::open(&path).unwrap();
    let mut chunk = FastaChunk::default();
    let error = first_error(|| chunker.next_chunk(&mut chunk, 4096));
    let expected = format!("(at byte offset {})", inflated.len());
    assert!(
        error.contains("cut.fa.gz: cannot read: ") && error.ends_with(&expected),
        "{error}"
    );
}

#[test]
fn same_records_as_the_reader_at_any_chunk_size() {
    let text = b"\n>chr1 first one\r\nAC GT\nacgt\n\n>chr2\nNN*-\n>empty\n>x y\nW\n";
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.fa");
    std::fs::write(&path, text).unwrap();
    let expected: Vec<(String, Vec<u8>)> = FastaReader::open(&path)
        .unwrap()
        .map(|r| {
            let r = r.unwrap();
            let seq = r.sequence.into_iter().filter(|b| *b != b' ').collect();
            (r.name, seq)
        })
        .collect();
    for target in [1, 2, 5, 17, 1000] {
        assert_eq!(chunked(text, target).unwrap(), expected, "target {target}");
    }
}

#[test]
fn an_input_is_exhausted_once_its_last_record_is_handed_out() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.fa");
    std::fs::write(&path, b">a\nACGT\n>b\nGG\n\n").unwrap();
    let mut chunk = FastaChunk::default();
    let mut chunker = FastaChunker::open(&path).unwrap();
    assert!(!chunker.is_exhausted());
    assert!(chunker.next_chunk(&mut chunk, 1 << 20).unwrap());
    assert!(chunker.is_exhausted());
    let mut chunker = FastaChunker::open(&path).unwrap();
    assert!(chunker.next_chunk(&mut chunk, 4).unwrap());
    assert!(!chunker.is_exhausted(), "record b is still to come");
    assert!(chunker.next_chunk(&mut chunk, 4).unwrap());
    assert!(chunker.is_exhausted());
    assert!(!chunker.next_chunk(&mut chunk, 4).unwrap());
}

#[test]
fn chunks_for_streams_grow_to_hold_their_longest_record_many_times() {
    // 30 records of 11 bytes, one of 206, 30 more of 11.
    let mut text = Vec::new();
    for i in 0..60 {
        if i == 30 {
            text.extend_from_slice(b">long\n");
            text.extend_from_slice(&[b'A'; 200]);
            text.push(b'\n');
        }
        text.extend_from_slice(format!(">s{i:02}\nACGT\n").as_bytes());
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.fa");
    std::fs::write(&path, &text).unwrap();
    let limits = [(40, false), (500, false), (5000, false), (5000, true)];
    let cases = limits.iter().flat_map(|&(limit, split)| {
        [1, 40, 300]
            .into_iter()
            .flat_map(move |target| [1, 4, 64].map(move |streams| (limit, split, target, streams)))
    });
    for (limit, split, target, streams) in cases {
        let case = format!("limit {limit}, split {split}, target {target}, streams {streams}");
        let mut chunker = FastaChunker::open(&path).unwrap();
        if split {
            // Pieces only for records over 1,000 bytes: none here.
            chunker.split_records(1000, 10);
        }
        let mut chunk = FastaChunk::default();
        let (mut rebuilt, mut offset) = (Vec::new(), 0);
        while chunker
            .next_chunk_for_streams(&mut chunk, target, limit, streams)
            .unwrap()
        {
            assert_eq!(chunk.offset, offset, "{case}");
            offset += chunk.bytes.len() as u64;
            rebuilt.extend_from_slice(&chunk.bytes);
            let (len, longest) = (chunk.bytes.len(), longest_record(&chunk.bytes));
            let at_end = offset == text.len() as u64;
            assert!(len >= target || at_end, "{case}: {len} bytes");
            // Short of `streams` longest records only when adding more would pass
            // the limit.
            assert!(
                len >= (streams * longest).min(limit) || at_end,
                "{case}: {len} bytes, longest {longest}"
            );
        }
        assert_eq!(rebuilt, text, "{case}");
    }
    assert_eq!(longest_record(b">a\nAC\n>b\nACGT\n>c\nA"), 8);
}

/// A record rebuilt from its pieces: name, sequence, and each piece's
/// (residues_before, residues).
type Rebuilt = (String, Vec<u8>, Vec<(u64, u64)>);

/// Every record of `text` chunked with long records cut into pieces.
/// With `grow` as `(limit, streams)`, chunked by
/// [`FastaChunker::next_chunk_for_streams`].
fn pieced(
    text: &[u8],
    target: usize,
    piece_bytes: usize,
    overlap: u64,
    grow: Option<(usize, usize)>,
) -> Vec<Rebuilt> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.fa");
    std::fs::write(&path, text).unwrap();
    let mut chunker = FastaChunker::open(&path).unwrap();
    chunker.split_records(piece_bytes, overlap);
    let mut chunk = FastaChunk::default();
    let mut out: Vec<Rebuilt> = Vec::new();
    let mut open = false;
    while chunker.fill_chunk(&mut chunk, target, grow).unwrap() {
        for record in chunk.records() {
            let record = record.unwrap();
            let mut sequence = Vec::new();
            record
                .translate(&chunk.path, &ResidueMap::identity(), &mut sequence)
                .unwrap();
            match &chunk.piece {
                None => {
                    assert!(!open, "a whole chunk inside a cut record");
                    out.push((record.name.to_string(), sequence, Vec::new()));
                }
                Some(piece) => {
                    assert_eq!(piece.first, !open);
                    if piece.first {
                        out.push((piece.name.clone(), Vec::new(), Vec::new()));
                    }
                    let (name, whole, pieces) = out.last_mut().unwrap();
                    assert_eq!(name, &piece.name);
                    let before = piece.residues_before as usize;
                    assert!(before <= whole.len(), "pieces leave no gap");
                    assert_eq!(
                        &whole[before..],
                        &sequence[..whole.len() - before],
                        "the overlap repeats the residues before"
                    );
                    whole.extend_from_slice(&sequence[whole.len() - before..]);
                    pieces.push((piece.residues_before, sequence.len() as u64));
                    open = !piece.last;
                }
            }
        }
    }
    assert!(!open, "the last piece is marked");
    out
}

#[test]
fn long_records_are_cut_into_overlapping_pieces() {
    let long: String = (0..3000)
        .map(|i| b"ACGT"[(i * 7 + i / 5) % 4] as char)
        .collect();
    let lines: Vec<&str> = long
        .as_bytes()
        .chunks(61)
        .map(|l| std::str::from_utf8(l).unwrap())
        .collect();
    for (body, eol) in [
        (lines.join("\n"), "\n"),
        (lines.join("\r\n"), "\r\n"),
        (long.clone(), "\n"),
    ] {
        let text = format!(
            ">a x{eol}AC{eol}>long one{eol}{body}{eol}{eol}>b{eol}GG{eol}>long2{eol}{body}{eol}"
        );
        let expected: Vec<(String, Vec<u8>)> = chunked(text.as_bytes(), 50).unwrap();
        for (target, piece_bytes, overlap) in
            [(50, 400, 30), (1, 100, 0), (1000, 1000, 99), (7, 64, 63)]
        {
            let got = pieced(text.as_bytes(), target, piece_bytes, overlap, None);
            let names: Vec<_> = got.iter().map(|(n, s, _)| (n.clone(), s.clone())).collect();
            assert_eq!(names, expected, "{target} {piece_bytes} {overlap}");
            // Chunks grown for their longest record cut the same pieces.
            let grown = pieced(
                text.as_bytes(),
                target,
                piece_bytes,
                overlap,
                Some((5000, 64)),
            );
            assert_eq!(grown, got, "{target} {piece_bytes} {overlap}, grown");
            let (_, _, pieces) = &got[1];
            assert!(pieces.len() >= 3, "{pieces:?}");
            for w in pieces.windows(2) {
                let (before, residues) = w[0];
                let next = w[1].0;
                assert!(
                    next == 0 || before + residues >= next + overlap,
                    "{pieces:?}"
                );
                assert!(
                    next + w[1].1 > before + residues,
                    "each piece adds residues"
                );
            }
        }
    }
}

#[test]
fn errors_name_file_and_offset() {
    let e = chunked(b"ACGT\n>x\nAC\n", 100).unwrap_err().to_string();
    assert!(e.contains("x.fa") && e.contains("before the first"), "{e}");
    let e = chunked(b">x\nAC\x01GT\n", 100).unwrap_err().to_string();
    assert!(
        e.contains("0x01") && e.contains("offset 5") && e.contains("record x"),
        "{e}"
    );
    let e = chunked(b"> \nAC\n", 100).unwrap_err().to_string();
    assert!(e.contains("no name"), "{e}");
    let e = chunked(b"", 100).unwrap_err().to_string();
    assert!(e.contains("empty FASTA"), "{e}");
    let e = chunked(b">\xff\xfe\nAC\n", 100).unwrap_err().to_string();
    assert!(e.contains("UTF-8"), "{e}");
}
