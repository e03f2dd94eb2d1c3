//! Inputs read alike plain, gzip- and bzip2-compressed, with errors naming the path, and
//! the line reader's limits: truncated gzip and over-long lines reported at the line,
//! long lines refused or skipped without reading them whole, parts of a line walked.

use super::*;
use crate::reads::tests::{first_error, truncated_gzip};
use std::io::Write;

#[test]
fn reads_plain_gzip_and_bzip2_alike() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("a.txt");
    std::fs::write(&plain, b"hello\nworld\n").unwrap();
    let gz = dir.path().join("a.txt.gz");
    let mut enc =
        flate2::write::GzEncoder::new(File::create(&gz).unwrap(), flate2::Compression::default());
    enc.write_all(b"hello\n").unwrap();
    enc.finish().unwrap();
    // A second gzip member, as in BGZF or `cat a.gz b.gz`.
    let mut enc = flate2::write::GzEncoder::new(
        std::fs::OpenOptions::new().append(true).open(&gz).unwrap(),
        flate2::Compression::default(),
    );
    enc.write_all(b"world\n").unwrap();
    enc.finish().unwrap();
    // bzip2, two streams as `cat a.bz2 b.bz2` makes them.
    let bz2 = dir.path().join("a.txt.bz2");
    let mut both = Vec::new();
    for text in [&b"hello\n"[..], b"world\n"] {
        let mut enc = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
        enc.write_all(text).unwrap();
        both.extend(enc.finish().unwrap());
    }
    std::fs::write(&bz2, both).unwrap();
    for p in [&plain, &gz, &bz2] {
        // Opened to be read through, and to look at its head (decompressed as read).
        for mut input in [Input::open(p).unwrap(), Input::open_head(p).unwrap()] {
            let mut s = String::new();
            input.read_to_string(&mut s).unwrap();
            assert_eq!(s, "hello\nworld\n");
            assert_eq!(input.compressed, p != &plain);
        }
    }
    assert!(Input::open(&gz).unwrap().compressed);
    assert!(Input::open(&bz2).unwrap().compressed);
    assert!(!Input::open(&plain).unwrap().compressed);
}

#[test]
fn missing_file_names_the_path() {
    let err = Input::open("/nonexistent/reads.fq").err().unwrap();
    assert!(err.to_string().starts_with("/nonexistent/reads.fq: "));
}

fn lines_of(text: &[u8], max: usize) -> LineReader {
    let input = Input::from_reader("t.txt", Box::new(std::io::Cursor::new(text.to_vec()))).unwrap();
    LineReader::new(input).with_max_len(max, "test line")
}

#[test]
fn a_truncated_gzip_file_is_an_error_naming_the_line_it_cuts() {
    let text: Vec<u8> = (0..20_000)
        .flat_map(|i| format!("line {i}\n").into_bytes())
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let (path, inflated) = truncated_gzip(&dir, "cut.txt.gz", &text);
    let mut lines = LineReader::new(Input::open(&path).unwrap());
    let error = first_error(|| lines.next_line());
    let complete = inflated.iter().filter(|&&b| b == b'\n').count();
    let expected = format!("cut.txt.gz: line {}: cannot read: ", complete + 1);
    assert!(error.contains(&expected), "{error}, expected {expected}");
}

#[test]
fn a_line_longer_than_the_limit_is_an_error_naming_it() {
    let mut lines = lines_of(b"abcd\nabcde\r\nabcdef\n", 5);
    assert!(lines.next_line().unwrap());
    assert_eq!(lines.line, b"abcd");
    assert!(lines.next_line().unwrap());
    assert_eq!(lines.line, b"abcde");
    let e = lines.next_line().unwrap_err().to_string();
    assert_eq!(
        e,
        "t.txt: line 3: longer than 5 bytes, the longest test line accepted: the file is corrupt or its line breaks are missing"
    );
    assert!(lines.line.capacity() < 256 + 5);
}

#[test]
fn a_long_line_is_refused_without_reading_it_whole() {
    let mut text = b"x\n".to_vec();
    text.resize(3 << 20, b'A');
    let mut lines = lines_of(&text, 1 << 20);
    assert!(lines.next_line().unwrap());
    assert!(lines.next_line().is_err());
    assert!(lines.line.capacity() <= 1 << 20);
}

#[test]
fn prefixes_skip_the_rest_of_long_lines() {
    let mut lines = lines_of(b"0123456789\nab\r\n\nlast", usize::MAX);
    assert_eq!(lines.next_line_prefix(4).unwrap(), Some(false));
    assert_eq!((lines.line.as_slice(), lines.number), (&b"0123"[..], 1));
    assert_eq!(lines.next_line_prefix(4).unwrap(), Some(true));
    assert_eq!((lines.line.as_slice(), lines.number), (&b"ab"[..], 2));
    assert_eq!(lines.next_line_prefix(4).unwrap(), Some(true));
    assert_eq!((lines.line.as_slice(), lines.number), (&b""[..], 3));
    assert_eq!(lines.next_line_prefix(2).unwrap(), Some(false));
    assert_eq!((lines.line.as_slice(), lines.number), (&b"la"[..], 4));
    assert_eq!(lines.next_line_prefix(2).unwrap(), None);
}

#[test]
fn parts_walk_a_line_and_appends_keep_it_whole() {
    let mut lines = lines_of(b">h\nACGTACG\nTT\r\n", 8);
    assert_eq!(lines.peek().unwrap(), Some(b'>'));
    assert!(lines.next_line().unwrap());
    let mut parts = Vec::new();
    while lines.next_part(3).unwrap() {
        parts.push((lines.line.clone(), lines.number, lines.in_line()));
        if lines.number == 2 && !lines.in_line() {
            break;
        }
    }
    assert_eq!(
        parts,
        [
            (b"ACG".to_vec(), 2, true),
            (b"TAC".to_vec(), 2, true),
            (b"G".to_vec(), 2, false),
        ]
    );
    let mut seq = b"G".to_vec();
    assert!(lines.append_line(&mut seq).unwrap());
    assert_eq!((seq.as_slice(), lines.number), (&b"GTT"[..], 3));
    assert!(!lines.append_line(&mut seq).unwrap());
    assert_eq!(lines.peek().unwrap(), None);
    assert_eq!(human_size(256 << 20), "256 MiB");
    assert_eq!(human_size(3 << 10), "3 KiB");
    assert_eq!(human_size(1000), "1000 bytes");
}
