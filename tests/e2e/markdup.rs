//! `seqfarm markdup`: the FLAG of every record and the metrics rows identical to Picard
//! MarkDuplicates' (run here, on the same files) on a real BAM and on simulated
//! duplicates; the same bytes at any thread count; unsorted input refused with the
//! record that breaks the order; a BAM without `@RG` as one library.

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use seqfarm_io::bam::{BamFile, RangeReader};
use seqfarm_io::bgzf::{VirtualOffset, VirtualRange};
use seqfarm_io::bgzf_writer::BgzfWriter;

use crate::support::{data, entry_names, peer, seqfarm, shared_data, succeeded};

/// FLAG bit of a duplicate.
const DUPLICATE: u16 = 0x400;

/// Every record of a BAM as its bytes (after the length), in file order.
fn raw_records(path: &Path) -> Vec<Vec<u8>> {
    let bam = BamFile::open(path).unwrap();
    let range = VirtualRange {
        start: bam.records_start(),
        end: VirtualOffset::new(bam.data_end(), 0),
    };
    let mut records = Vec::new();
    RangeReader::new()
        .for_each(&bam, range, |r| {
            records.push(r.as_bytes().to_vec());
            ControlFlow::Continue(())
        })
        .unwrap();
    records
}

fn flag(record: &[u8]) -> u16 {
    u16::from_le_bytes([record[14], record[15]])
}

fn name(record: &[u8]) -> String {
    let len = record[8] as usize;
    String::from_utf8_lossy(&record[32..32 + len - 1]).into_owned()
}

/// (name, FLAG) of every record of a BAM.
pub(crate) fn names_and_flags(path: &Path) -> Vec<(String, u16)> {
    raw_records(path)
        .iter()
        .map(|r| (name(r), flag(r)))
        .collect()
}

/// Writes a BAM of `text` (the SAM header) and `records` (bytes after the length), with
/// the references of `like`.
fn write_bam(path: &Path, like: &Path, text: &str, records: &[Vec<u8>]) {
    let bam = BamFile::open(like).unwrap();
    let mut bytes = b"BAM\x01".to_vec();
    bytes.extend_from_slice(&(text.len() as u32).to_le_bytes());
    bytes.extend_from_slice(text.as_bytes());
    let references = &bam.header().references;
    bytes.extend_from_slice(&(references.len() as u32).to_le_bytes());
    for r in references {
        bytes.extend_from_slice(&(r.name.len() as u32 + 1).to_le_bytes());
        bytes.extend_from_slice(r.name.as_bytes());
        bytes.push(0);
        bytes.extend_from_slice(&r.length.to_le_bytes());
    }
    for record in records {
        bytes.extend_from_slice(&(record.len() as u32).to_le_bytes());
        bytes.extend_from_slice(record);
    }
    let mut writer = BgzfWriter::new(std::fs::File::create(path).unwrap(), 6);
    std::io::Write::write_all(&mut writer, &bytes).unwrap();
    writer.finish().unwrap();
}

/// `source` rewritten with every FLAG 0x400 cleared.
fn unmarked(source: &Path, copy: &Path) {
    let text = BamFile::open(source).unwrap().header().text.clone();
    let mut records = raw_records(source);
    for record in &mut records {
        let cleared = flag(record) & !DUPLICATE;
        record[14..16].copy_from_slice(&cleared.to_le_bytes());
    }
    write_bam(copy, source, &text, &records);
}

/// `seqfarm markdup INPUT -o OUTPUT --metrics METRICS EXTRA...`, to be run.
fn markdup_command(input: &Path, output: &Path, metrics: &Path, extra: &[&str]) -> Command {
    let mut command = seqfarm();
    command
        .arg("markdup")
        .arg(input)
        .arg("-o")
        .arg(output)
        .arg("--metrics")
        .arg(metrics)
        .args(extra);
    command
}

fn markdup(input: &Path, output: &Path, metrics: &Path, extra: &[&str]) -> Output {
    markdup_command(input, output, metrics, extra)
        .output()
        .expect("seqfarm runs")
}

pub(crate) fn picard(input: &Path, output: &Path, metrics: &Path) {
    let arg = |key: &str, path: &Path| format!("{key}={}", path.display());
    succeeded(
        Command::new("PicardCommandLine")
            .arg("MarkDuplicates")
            .arg(arg("I", input))
            .arg(arg("O", output))
            .arg(arg("M", metrics))
            .args(["VALIDATION_STRINGENCY=SILENT", "QUIET=true"]),
    );
}

/// The metrics file's rows and histograms: every line but the `#` headers.
pub(crate) fn metrics_rows(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with("# ") && *l != "## htsjdk.samtools.metrics.StringHeader")
        .map(str::to_string)
        .collect()
}

/// The LIBRARY column of the metrics rows `rows`.
fn library_names(rows: &[String]) -> Vec<&str> {
    rows.iter()
        .skip_while(|l| !l.starts_with("LIBRARY"))
        .skip(1)
        .take_while(|l| !l.is_empty())
        .map(|l| l.split('\t').next().unwrap())
        .collect()
}

/// Marks `input` with seqfarm (2 threads) and Picard; asserts the same FLAG on every
/// record and the same metrics; returns the records compared.
fn assert_same_as_picard(dir: &Path, input: &Path) -> Vec<(String, u16)> {
    let (ours, theirs) = (dir.join("ours.bam"), dir.join("picard.bam"));
    let (our_metrics, their_metrics) = (dir.join("ours.txt"), dir.join("picard.txt"));
    succeeded(
        seqfarm()
            .arg("markdup")
            .arg(input)
            .args(["-t", "2", "-o"])
            .arg(&ours)
            .arg("--metrics")
            .arg(&our_metrics),
    );
    picard(input, &theirs, &their_metrics);
    let (a, b) = (names_and_flags(&ours), names_and_flags(&theirs));
    assert_eq!(a.len(), b.len());
    for (i, (x, y)) in a.iter().zip(&b).enumerate() {
        assert_eq!(x, y, "record {i}");
    }
    assert_eq!(metrics_rows(&our_metrics), metrics_rows(&their_metrics));
    a
}

#[test]
fn flags_and_metrics_match_picard_on_a_real_bam() {
    if !peer("PicardCommandLine") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // Marked by an older Picard: unmarked first, then compared; the marked file gives
    // the same answer (its 0x400 flags are cleared or set anew).
    let input = dir.path().join("chm1.unmarked.bam");
    unmarked(&data("bam/chm1.bam"), &input);
    let records = assert_same_as_picard(dir.path(), &input);
    assert_eq!(records.len(), 42455);
    let duplicates = records.iter().filter(|(_, f)| f & DUPLICATE != 0).count();
    assert_eq!(duplicates, 3852);
    let again = dir.path().join("again.bam");
    let metrics = dir.path().join("again.txt");
    succeeded(&mut markdup_command(
        &data("bam/chm1.bam"),
        &again,
        &metrics,
        &[],
    ));
    assert_eq!(names_and_flags(&again), records);
}

#[test]
fn flags_and_metrics_match_picard_on_simulated_duplicates() {
    if !peer("PicardCommandLine") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let records = assert_same_as_picard(dir.path(), &data("markdup/sim.bam"));
    assert_eq!(records.len(), 1789);
    let rows = metrics_rows(&dir.path().join("ours.txt"));
    assert_eq!(library_names(&rows), ["Unknown Library", "libA", "libB"]);
    // Optical duplicates were found (column 8), and secondary and supplementary
    // records of duplicate reads stay unflagged, as Picard leaves them.
    assert!(rows
        .iter()
        .any(|l| l.starts_with("libA\t") && l.split('\t').nth(7) != Some("0")));
    let duplicate_names: std::collections::HashSet<&str> = records
        .iter()
        .filter(|(_, f)| f & DUPLICATE != 0 && f & 0x900 == 0)
        .map(|(n, _)| n.as_str())
        .collect();
    let others = records
        .iter()
        .filter(|(n, f)| f & 0x900 != 0 && duplicate_names.contains(n.as_str()));
    let mut seen = 0;
    for (_, f) in others {
        assert_eq!(f & DUPLICATE, 0);
        seen += 1;
    }
    assert!(seen > 0);
}

#[test]
fn a_bam_without_read_groups_is_one_library() {
    if !peer("PicardCommandLine") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let source = data("markdup/sim.bam");
    let text = BamFile::open(&source).unwrap().header().text.clone();
    let text: String = text
        .lines()
        .filter(|l| !l.starts_with("@RG"))
        .map(|l| format!("{l}\n"))
        .collect();
    // Each record's RG tag is its first: cut it out.
    let records: Vec<Vec<u8>> = raw_records(&source)
        .into_iter()
        .map(|r| {
            let bam = r.clone();
            let at = bam.windows(3).position(|w| w == b"RGZ").expect("an RG tag");
            let end = at + bam[at..].iter().position(|&b| b == 0).unwrap() + 1;
            [&bam[..at], &bam[end..]].concat()
        })
        .collect();
    let input = dir.path().join("no_rg.bam");
    write_bam(&input, &source, &text, &records);
    assert_same_as_picard(dir.path(), &input);
    let rows = metrics_rows(&dir.path().join("ours.txt"));
    assert_eq!(library_names(&rows), ["Unknown Library"]);
    assert!(rows.iter().any(|l| l.starts_with("BIN\tCoverageMult")));
}

#[test]
fn the_output_is_the_same_at_any_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    // Without an index, and in several batches of blocks (about 3 MB of BAM).
    let input = dir.path().join("chm1.unmarked.bam");
    unmarked(&data("bam/chm1.bam"), &input);
    let mut outputs = Vec::new();
    for threads in ["1", "2", "3"] {
        let bam = dir.path().join(format!("t{threads}.bam"));
        let metrics = dir.path().join(format!("t{threads}.txt"));
        succeeded(&mut markdup_command(
            &input,
            &bam,
            &metrics,
            &["-t", threads],
        ));
        let mut index = bam.clone().into_os_string();
        index.push(".bai");
        outputs.push((
            std::fs::read(&bam).unwrap(),
            std::fs::read(PathBuf::from(index)).unwrap(),
            metrics_rows(&metrics),
        ));
    }
    assert!(outputs.windows(2).all(|w| w[0] == w[1]));
    // The output is indexed: marked again, it is read by index ranges on the workers,
    // with the same answer at any thread count.
    let marked = dir.path().join("t1.bam");
    for threads in ["1", "3"] {
        let again = dir.path().join(format!("again{threads}.bam"));
        let metrics = dir.path().join(format!("again{threads}.txt"));
        succeeded(&mut markdup_command(
            &marked,
            &again,
            &metrics,
            &["-t", threads],
        ));
        assert_eq!(std::fs::read(&again).unwrap(), outputs[0].0);
    }
    // Standard output carries the same BAM.
    let stdout = succeeded(seqfarm().args(["markdup", "-t", "2"]).arg(&input));
    assert_eq!(stdout.stdout, outputs[0].0);
}

/// With a memory too small for its read ends, `markdup` sorts them into runs beside
/// the output and merges them back: the same BAM, index and metrics as with them all
/// in memory, and no run left behind. (That runs are written at 1M on this file is
/// checked by the library's test, `cmd::markdup::tests`.)
#[test]
fn read_ends_beyond_the_memory_give_the_same_marks() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("chm1.unmarked.bam");
    unmarked(&data("bam/chm1.bam"), &input);
    let mut results = Vec::new();
    for memory in ["768M", "1M"] {
        let sub = dir.path().join(memory);
        std::fs::create_dir(&sub).unwrap();
        let (bam, metrics) = (sub.join("out.bam"), sub.join("m.txt"));
        succeeded(&mut markdup_command(
            &input,
            &bam,
            &metrics,
            &["-t", "2", "--memory", memory],
        ));
        assert_eq!(
            entry_names(&sub),
            ["m.txt", "out.bam", "out.bam.bai"],
            "--memory {memory}"
        );
        let bai = std::fs::read(sub.join("out.bam.bai")).unwrap();
        results.push((std::fs::read(&bam).unwrap(), bai, metrics_rows(&metrics)));
    }
    assert!(results[0] == results[1]);
    let out = markdup(
        &input,
        &dir.path().join("x.bam"),
        &dir.path().join("x.txt"),
        &["-m", "1K"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("minimum, 1M"));
}

#[test]
fn removed_duplicates_leave_the_other_records() {
    let dir = tempfile::tempdir().unwrap();
    let input = data("markdup/sim.bam");
    let (marked, kept) = (dir.path().join("marked.bam"), dir.path().join("kept.bam"));
    let metrics = dir.path().join("m.txt");
    succeeded(&mut markdup_command(&input, &marked, &metrics, &[]));
    succeeded(&mut markdup_command(
        &input,
        &kept,
        &metrics,
        &["--remove-duplicates"],
    ));
    let expected: Vec<(String, u16)> = names_and_flags(&marked)
        .into_iter()
        .filter(|(_, f)| f & DUPLICATE == 0)
        .collect();
    assert_eq!(names_and_flags(&kept), expected);
}

#[test]
fn unsorted_input_is_refused_with_the_record() {
    let dir = tempfile::tempdir().unwrap();
    let source = data("markdup/sim.bam");
    let text = BamFile::open(&source).unwrap().header().text.clone();
    let mut records = raw_records(&source);
    records.swap(100, 400);
    let input = dir.path().join("unsorted.bam");
    write_bam(&input, &source, &text, &records);
    let output = dir.path().join("out.bam");
    let out = markdup(&input, &output, &dir.path().join("m.txt"), &[]);
    assert!(!out.status.success());
    let message = String::from_utf8_lossy(&out.stderr);
    let moved = name(&records[101]);
    assert!(message.contains("not sorted by coordinate"), "{message}");
    assert!(message.contains(&moved), "{message}");
    assert!(message.contains("record 102"), "{message}");
    assert!(!output.exists());

    let by_name = dir.path().join("by_name.bam");
    let text = text.replace("SO:coordinate", "SO:queryname");
    write_bam(&by_name, &source, &text, &raw_records(&source));
    let out = markdup(&by_name, &output, &dir.path().join("m.txt"), &[]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("SO:queryname"));
}

#[test]
fn an_existing_output_is_replaced_and_the_input_never() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.bam");
    std::fs::copy(data("markdup/sim.bam"), &input).unwrap();
    let output = dir.path().join("out.bam");
    let metrics = dir.path().join("m.txt");
    std::fs::write(&output, b"old").unwrap();
    std::fs::write(&metrics, b"old").unwrap();
    assert!(markdup(&input, &output, &metrics, &[]).status.success());
    assert_eq!(names_and_flags(&output).len(), 1789);
    assert!(std::fs::read_to_string(&metrics)
        .unwrap()
        .contains("## METRICS CLASS\tpicard.sam.DuplicationMetrics"));
    let before = std::fs::read(&input).unwrap();
    let out = markdup(&input, &input, &metrics, &["--force"]);
    assert!(!out.status.success());
    assert_eq!(std::fs::read(&input).unwrap(), before);
}

/// Larger real BAMs of the shared data, when it is there: a gene panel (600,000 reads,
/// one library) and a chrM slice without `@RG`.
#[test]
fn flags_and_metrics_match_picard_on_shared_bams() {
    let bams = [
        "alignments/human_BRCApanel_noSEQ_covtobed/panel_01.bam",
        "alignments/human_NA12878_chrM_cnvkit/na12878-chrM-Y-trunc.bam",
    ];
    let found: Vec<PathBuf> = bams.iter().filter_map(|b| shared_data(b)).collect();
    if found.is_empty() {
        eprintln!("skipped: no shared data");
        return;
    }
    if !peer("PicardCommandLine") {
        return;
    }
    for bam in found {
        let dir = tempfile::tempdir().unwrap();
        let records = assert_same_as_picard(dir.path(), &bam);
        assert!(records.iter().any(|(_, f)| f & DUPLICATE != 0));
    }
}

/// A CRAM (its reference embedded) is read through the same door as a BAM.
#[test]
fn a_cram_is_marked_as_picard_marks_it() {
    if !peer("PicardCommandLine") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let records = assert_same_as_picard(dir.path(), &data("cram/tumor_slice.cram"));
    assert_eq!(records.len(), 2106);
}

/// MultiQC's Picard module reads our metrics file as it reads Picard's: the same table
/// from both files of the same BAM.
#[test]
fn multiqc_reads_the_metrics_as_picards() {
    let Some(multiqc) = crate::support::multiqc() else {
        return;
    };
    if !peer("PicardCommandLine") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (ours, theirs) = (dir.path().join("ours"), dir.path().join("theirs"));
    std::fs::create_dir(&ours).unwrap();
    std::fs::create_dir(&theirs).unwrap();
    let input = data("bam/chm1.bam");
    succeeded(&mut markdup_command(
        &input,
        &dir.path().join("o.bam"),
        &ours.join("chm1.metrics.txt"),
        &[],
    ));
    picard(
        &input,
        &dir.path().join("p.bam"),
        &theirs.join("chm1.metrics.txt"),
    );
    let table = "multiqc_picard_dups.txt";
    let ours = crate::multiqc::run_multiqc(&multiqc, "picard", &ours).join(table);
    let theirs = crate::multiqc::run_multiqc(&multiqc, "picard", &theirs).join(table);
    let rows = crate::multiqc::read_multiqc_table(&ours);
    assert_eq!(rows, crate::multiqc::read_multiqc_table(&theirs));
    assert_eq!(rows["chm1"]["READ_PAIR_DUPLICATES"], "1912.0");
}
