use std::io::{Read, Write};

use super::*;
use crate::bgzf_writer::BgzfWriter;

/// Lines of FASTQ-like text, compressible but not trivially so.
fn text(len: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(len + 100);
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut n = 0u64;
    while out.len() < len {
        n += 1;
        out.extend_from_slice(format!("@read{n}\n").as_bytes());
        for _ in 0..100 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            out.push(b"ACGT"[(x & 3) as usize]);
        }
        out.extend_from_slice(b"\n+\n");
        out.extend(std::iter::repeat_n(b'I', 100));
        out.push(b'\n');
    }
    out
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(6));
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn bgzf(data: &[u8]) -> Vec<u8> {
    let mut w = BgzfWriter::new(Vec::new(), 6);
    w.write_all(data).unwrap();
    w.finish().unwrap()
}

/// Every access point of `file` reads the stream from its offset to the end.
fn check_points(file: &[u8], plain: &[u8], span: u64, expect_windows: bool) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("reads.fq.gz");
    std::fs::write(&path, file).unwrap();
    let index = GzipIndex::open_or_build(&path, span, None).unwrap();
    assert_eq!(index.length, plain.len() as u64);
    assert!(
        index.points.len() as u64 >= plain.len() as u64 / span / 2,
        "{}",
        index.points.len()
    );
    assert_eq!(
        index.points.iter().skip(1).any(|p| p.window.is_some()),
        expect_windows
    );
    for (i, point) in index.points.iter().enumerate() {
        let mut read = Vec::new();
        index
            .reader_at(&path, i)
            .unwrap()
            .read_to_end(&mut read)
            .unwrap();
        assert_eq!(read, &plain[point.out as usize..], "point {i}");
    }
    // Loaded, the index holds the points and reads their windows from its file as a
    // reader starts at them.
    let loaded = GzipIndex::load(&path).unwrap();
    assert_same_points(&loaded, &index);
    assert!(loaded
        .points
        .iter()
        .all(|p| !matches!(p.window, Some(Window::Packed(_)))));
    for (i, point) in loaded.points.iter().enumerate().rev() {
        let mut read = Vec::new();
        let mut reader = loaded.reader_at(&path, i).unwrap();
        reader.read_to_end(&mut read).unwrap();
        assert_eq!(read, &plain[point.out as usize..], "point {i}, loaded");
    }
}

/// `a` and `b` have the same points (where, and whether with a window) and length.
fn assert_same_points(a: &GzipIndex, b: &GzipIndex) {
    let places = |index: &GzipIndex| -> Vec<_> {
        index
            .points
            .iter()
            .map(|p| (p.out, p.input, p.bits, p.window.is_some()))
            .collect()
    };
    assert_eq!(places(a), places(b));
    assert_eq!(a.length, b.length);
}

/// A gzip stream of 1 MiB of text in `dir`, its text, and its index of a point every 64
/// KiB (kept beside it).
fn indexed_stream(dir: &std::path::Path) -> (std::path::PathBuf, Vec<u8>, GzipIndex) {
    let path = dir.join("r.fq.gz");
    let plain = text(1 << 20);
    std::fs::write(&path, gzip(&plain)).unwrap();
    let index = GzipIndex::open_or_build(&path, 1 << 16, None).unwrap();
    (path, plain, index)
}

#[test]
fn a_damaged_or_cut_index_file_is_made_again() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _, made) = indexed_stream(dir.path());
    assert!(made.points.len() > 4);
    let index_path = GzipIndex::path_for(&path);
    let whole = std::fs::read(&index_path).unwrap();
    // The last window cut short, then a byte too many.
    std::fs::write(&index_path, &whole[..whole.len() - 1]).unwrap();
    assert!(GzipIndex::load(&path).is_err());
    std::fs::write(&index_path, [&whole[..], b"x"].concat()).unwrap();
    assert!(GzipIndex::load(&path).is_err());
    assert_same_points(
        &GzipIndex::open_or_build(&path, 1 << 16, None).unwrap(),
        &made,
    );
    assert_eq!(std::fs::read(&index_path).unwrap(), whole);
}

#[test]
fn a_loaded_index_reads_its_windows_from_the_file_it_opened() {
    // The index file replaced after the index was loaded (by another process making it
    // again): the loaded index still reads the windows of the file it opened.
    let dir = tempfile::tempdir().unwrap();
    let (path, plain, _) = indexed_stream(dir.path());
    let loaded = GzipIndex::load(&path).unwrap();
    let index_path = GzipIndex::path_for(&path);
    std::fs::remove_file(&index_path).unwrap();
    std::fs::write(&index_path, b"not an index").unwrap();
    let last = loaded.points.len() - 1;
    let mut read = Vec::new();
    let mut reader = loaded.reader_at(&path, last).unwrap();
    reader.read_to_end(&mut read).unwrap();
    assert_eq!(read, &plain[loaded.points[last].out as usize..]);
}

#[test]
fn one_member_is_entered_at_block_boundaries() {
    let plain = text(3 << 20);
    check_points(&gzip(&plain), &plain, 256 << 10, true);
}

#[test]
fn bgzf_is_entered_at_members() {
    let plain = text(2 << 20);
    check_points(&bgzf(&plain), &plain, 256 << 10, false);
}

#[test]
fn concatenated_members_are_read_through() {
    let plain = text(3 << 20);
    let (a, b) = plain.split_at(1 << 20);
    let file = [gzip(a), gzip(b)].concat();
    check_points(&file, &plain, 200 << 10, true);
}

#[test]
fn a_changed_file_is_indexed_again() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.fq.gz");
    std::fs::write(&path, gzip(&text(100_000))).unwrap();
    GzipIndex::open_or_build(&path, 1 << 16, None).unwrap();
    assert!(GzipIndex::load(&path).is_ok());
    std::fs::write(&path, gzip(&text(200_000))).unwrap();
    assert!(GzipIndex::load(&path).is_err());
    assert_eq!(
        GzipIndex::open_or_build(&path, 1 << 16, None)
            .unwrap()
            .length,
        text(200_000).len() as u64
    );
}

#[test]
fn a_cut_file_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.fq.gz");
    let file = gzip(&text(500_000));
    std::fs::write(&path, &file[..file.len() / 2]).unwrap();
    let e = GzipIndex::build(&path, 1 << 16, None).unwrap_err();
    assert!(e.to_string().contains("cut short"), "{e}");
}

#[test]
fn bgzf_followed_by_plain_gzip_is_inflated_to_index_it() {
    let plain = text(2 << 20);
    let (a, b) = plain.split_at(1 << 20);
    let mut file = bgzf(a);
    file.truncate(file.len() - 28); // without its end-of-file block
    file.extend(gzip(b));
    check_points(&file, &plain, 200 << 10, true);
}

#[test]
fn an_index_that_cannot_be_kept_beside_the_file_is_kept_in_the_cache() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.fq.gz");
    std::fs::write(&path, gzip(&text(100_000))).unwrap();
    // Its place beside the file is taken (as a read-only directory would refuse it).
    std::fs::create_dir(GzipIndex::path_for(&path)).unwrap();
    let cache = dir.path().join("cache");
    let made = GzipIndex::open_or_build_in(&path, 1 << 16, None, Some(&cache)).unwrap();
    assert_same_points(&GzipIndex::load_in(&path, Some(&cache)).unwrap(), &made);
    assert!(GzipIndex::cache_path_in(&cache, &path).unwrap().is_file());
}

#[test]
fn the_pass_over_a_member_counts_the_records_it_inflates() {
    use crate::reads::{records_in_range, RecordFormat};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.fq.gz");
    // Several MiB: the counting thread gets many chunks and drops what it has counted.
    let plain = text(5 << 20);
    std::fs::write(&path, gzip(&plain)).unwrap();
    let counting = RecordCounting {
        format: RecordFormat::Fastq,
        every: 1000,
    };
    let made = GzipIndex::open_or_build(&path, 1 << 20, Some(counting)).unwrap();
    let expect = records_in_range(&plain[..], RecordFormat::Fastq, 0, u64::MAX, 1000).unwrap();
    assert_eq!(made.records(&counting), Some(&expect));
    assert_eq!(
        expect.records,
        plain.iter().filter(|&&b| b == b'+').count() as u64
    );
    // Kept in the index file; asked for as another format or spacing, there are none.
    let loaded = GzipIndex::load(&path).unwrap();
    assert_same_points(&loaded, &made);
    assert_eq!(loaded.records(&counting), Some(&expect));
    let fasta = RecordCounting {
        format: RecordFormat::Fasta,
        ..counting
    };
    assert_eq!(loaded.records(&fasta), None);
    let sparser = RecordCounting {
        every: 1024,
        ..counting
    };
    assert_eq!(loaded.records(&sparser), None);
}

#[test]
fn bgzf_is_indexed_without_counting() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.fq.gz");
    std::fs::write(&path, bgzf(&text(200_000))).unwrap();
    let counting = RecordCounting {
        format: crate::reads::RecordFormat::Fastq,
        every: 1000,
    };
    let made = GzipIndex::open_or_build(&path, 1 << 16, Some(counting)).unwrap();
    assert_eq!(made.records(&counting), None);
}

#[test]
fn an_index_of_the_older_format_is_made_again() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.fq.gz");
    std::fs::write(&path, gzip(&text(100_000))).unwrap();
    let made = GzipIndex::open_or_build(&path, 1 << 16, None).unwrap();
    let index_path = GzipIndex::path_for(&path);
    let mut bytes = std::fs::read(&index_path).unwrap();
    bytes[4] = 3;
    std::fs::write(&index_path, &bytes).unwrap();
    assert!(GzipIndex::load(&path).is_err());
    assert_same_points(
        &GzipIndex::open_or_build(&path, 1 << 16, None).unwrap(),
        &made,
    );
    assert_eq!(std::fs::read(&index_path).unwrap()[4], 4);
}

#[test]
fn records_that_cannot_be_counted_leave_an_index_without_counts() {
    use crate::reads::RecordFormat;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.fq.gz");
    // A line longer than any record may be: not reads, which the job says when it
    // reads the file; the index is made all the same.
    let mut plain = text(100_000);
    plain.extend(std::iter::repeat_n(b'A', 5 << 20));
    std::fs::write(&path, gzip(&plain)).unwrap();
    let counting = RecordCounting {
        format: RecordFormat::Fastq,
        every: 1000,
    };
    let made = GzipIndex::open_or_build(&path, 1 << 20, Some(counting)).unwrap();
    assert_eq!(made.length, plain.len() as u64);
    assert_eq!(made.records(&counting), None);
}
