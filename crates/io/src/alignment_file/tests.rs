use std::io::Write;

use super::*;
use crate::bam::test_bam;
use crate::cram::Fields;
use crate::input::LineReader;

const SAM: &[u8] =
    b"@HD\tVN:1.6\n@SQ\tSN:chr1\tLN:5000\nr\t0\tchr1\t11\t60\t4M\t*\t0\t0\tACGT\t*\n";

/// A small BAM: a header with one reference and one record, in BGZF blocks.
fn small_bam() -> Vec<u8> {
    let mut data = test_bam::header("@HD\tVN:1.6\n", &[("chr1", 5000)]);
    data.extend(test_bam::record("r", 0, 0, 10, 60, &[(4, 0)], b"ACGT", 0));
    test_bam::bgzf(&data, 1000)
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(bytes).unwrap();
    enc.finish().unwrap()
}

fn data(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data")
        .join(path)
}

fn open(path: &Path) -> Result<AlignmentFile> {
    AlignmentFile::open(path, &ReadOptions::default())
}

/// [`AlignmentFile::open`] on `bytes` as if they came from standard input.
fn open_stdin(bytes: &[u8]) -> Result<AlignmentFile> {
    let raw = Box::new(Cursor::new(bytes.to_vec()));
    AlignmentFile::from_reader(Path::new("-"), raw, true, &ReadOptions::default())
}

fn sam_lines(input: Input) -> Vec<String> {
    let mut lines = LineReader::new(input);
    let mut all = Vec::new();
    while lines.next_line().unwrap() {
        all.push(String::from_utf8_lossy(&lines.line).into_owned());
    }
    all
}

#[test]
fn a_bam_file_is_mapped_with_its_index_when_there_is_one() {
    let dir = tempfile::tempdir().unwrap();
    let bam = write(dir.path(), "a.bam", &small_bam());
    match open(&bam).unwrap() {
        AlignmentFile::Bam(b) => {
            assert!(b.index.is_none() && b.stale_index.is_none());
            assert_eq!(b.bam.header().references[0].name, "chr1");
        }
        other => panic!("{other:?}"),
    }
    let chm1 = dir.path().join("chm1.bam");
    std::fs::copy(data("bam/chm1.bam"), &chm1).unwrap();
    let index = dir.path().join("chm1.bam.bai");
    std::fs::copy(data("bam/chm1.bam.bai"), &index).unwrap();
    let set_modified = |path: &Path, seconds: u64| {
        let time = std::time::UNIX_EPOCH + std::time::Duration::from_secs(seconds);
        File::options()
            .write(true)
            .open(path)
            .unwrap()
            .set_modified(time)
            .unwrap();
    };
    set_modified(&chm1, 2_000_000_000);
    set_modified(&index, 2_000_000_000);
    let AlignmentFile::Bam(fresh) = open(&chm1).unwrap() else {
        panic!("not a BAM file")
    };
    assert!(fresh.index.is_some() && fresh.stale_index.is_none());
    // An index older than its BAM is left aside, and named.
    set_modified(&index, 1_000_000_000);
    let AlignmentFile::Bam(stale) = open(&chm1).unwrap() else {
        panic!("not a BAM file")
    };
    assert!(stale.index.is_none());
    assert_eq!(stale.stale_index.as_deref(), Some(index.as_path()));
    assert_eq!(index_beside(&chm1), Some(index));
}

#[test]
fn a_cram_is_opened_with_the_fields_asked_for() {
    let path = data("cram/normal_slice.cram");
    let options = ReadOptions {
        fields: Fields::Coverage,
        ..ReadOptions::default()
    };
    match AlignmentFile::open(&path, &options).unwrap() {
        AlignmentFile::Cram { cram, .. } => assert_eq!(cram.path(), path),
        other => panic!("{other:?}"),
    }
}

#[test]
fn sam_text_and_gzip_sam_are_read_as_sam() {
    let dir = tempfile::tempdir().unwrap();
    for (name, bytes) in [("a.sam", SAM.to_vec()), ("a.sam.gz", gzip(SAM))] {
        let path = write(dir.path(), name, &bytes);
        let AlignmentFile::Sam(input) = open(&path).unwrap() else {
            panic!("{name} not read as SAM")
        };
        assert_eq!(input.compressed, name.ends_with(".gz"));
        assert_eq!(sam_lines(input).len(), 3, "{name}");
    }
    // An empty file is empty SAM (the SAM reader then says what is missing).
    let empty = write(dir.path(), "empty.sam", b"");
    assert!(matches!(open(&empty).unwrap(), AlignmentFile::Sam(_)));
}

#[test]
fn standard_input_is_read_as_a_stream() {
    match open_stdin(&small_bam()).unwrap() {
        AlignmentFile::BamStream(stream) => {
            assert_eq!(stream.path(), Path::new("-"));
            assert_eq!(stream.header().references[0].name, "chr1");
        }
        other => panic!("{other:?}"),
    }
    let AlignmentFile::Sam(input) = open_stdin(&gzip(SAM)).unwrap() else {
        panic!("gzip SAM on standard input not read as SAM")
    };
    assert_eq!(
        sam_lines(input)[2],
        "r\t0\tchr1\t11\t60\t4M\t*\t0\t0\tACGT\t*"
    );
    let e = open_stdin(b"CRAM\x03\x00rest").unwrap_err().to_string();
    assert!(
        e.starts_with("(standard stream): ")
            && e.contains("a CRAM cannot be read from standard input"),
        "{e}"
    );
}

#[test]
fn unknown_and_truncated_files_get_errors_naming_them() {
    let dir = tempfile::tempdir().unwrap();
    let binary = write(dir.path(), "binary.bam", &[0, 1, 2, 3, 0xff, 0]);
    let e = open(&binary).unwrap_err().to_string();
    assert!(
        e.contains("binary.bam") && e.contains("not a BAM, CRAM, SAM or gzip-compressed SAM"),
        "{e}"
    );
    // A BAM cut inside its first block: a corrupt BGZF block, not gzip SAM.
    let truncated = write(dir.path(), "cut.bam", &small_bam()[..30]);
    let e = open(&truncated).unwrap_err().to_string();
    assert!(e.starts_with(&truncated.display().to_string()), "{e}");
    assert!(!matches!(open(&truncated), Ok(AlignmentFile::Sam(_))));
    let e = open(&dir.path().join("missing.bam"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("missing.bam"), "{e}");
    // A CRAM with a foreign version is refused by the CRAM reader, naming it.
    let old = write(dir.path(), "old.cram", b"CRAM\x02\x01rest");
    let e = open(&old).unwrap_err().to_string();
    assert!(e.contains("old.cram") && e.contains("version 2.1"), "{e}");
}

#[test]
fn region_inputs_tell_crams_from_bams_once_and_need_an_index() {
    let dir = tempfile::tempdir().unwrap();
    let bare = write(dir.path(), "bare.bam", &small_bam());
    let cram = data("cram/normal_slice.cram");
    let missing = dir.path().join("missing.cram");
    assert!(!RegionInputs::sniff(&[bare.clone(), missing.clone()]).any_cram());
    assert!(RegionInputs::sniff(&[bare.clone(), cram.clone()]).any_cram());
    let e = open_by_region(&[bare], &ReadOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("bare.bam") && e.contains("no index found"),
        "{e}"
    );
    let e = open_by_region(&[missing], &ReadOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("missing.cram"), "{e}");
    let options = ReadOptions {
        fields: Fields::Coverage,
        threads: 2,
        ..ReadOptions::default()
    };
    let set = open_by_region(&[cram.clone(), cram], &options).unwrap();
    assert_eq!(set.len(), 2);
    let indexed = open_by_region(&[data("bam/chm1.bam")], &options).unwrap();
    assert_eq!(indexed.len(), 1);
}

#[test]
fn a_cram_wanted_nowhere_is_planned_as_one_decoded_whole() {
    let cram = data("cram/normal_slice.cram");
    let whole = open_by_region(std::slice::from_ref(&cram), &ReadOptions::default()).unwrap();
    let nothing = crate::cram::WantedRanges::default();
    let planned = ReadOptions {
        ranges: Some(&nothing),
        ..ReadOptions::default()
    };
    let sized = open_by_region(std::slice::from_ref(&cram), &planned).unwrap();
    // Nothing decoded: the BAM is its header alone, with no reference opened.
    assert!(sized.files()[0].0.len() < whole.files()[0].0.len() / 10);
    let file_len = std::fs::metadata(&cram).unwrap().len();
    assert_eq!(sized.total_bytes(), file_len);
    assert_eq!(whole.total_bytes(), file_len);
    let lengths: Vec<i64> = whole
        .header()
        .unwrap()
        .references
        .iter()
        .map(|r| i64::from(r.length))
        .collect();
    let mut covered = 0;
    for (id, &length) in lengths.iter().enumerate() {
        for from in (0..length).step_by(7919) {
            let to = from + 20_000;
            assert_eq!(
                sized.bytes_between(id, from, to),
                whole.bytes_between(id, from, to)
            );
        }
        covered += whole.bytes_between(id, 0, length);
    }
    assert!(covered > 0 && covered <= file_len);
}
