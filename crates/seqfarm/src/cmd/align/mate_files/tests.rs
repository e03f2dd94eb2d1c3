use std::io::Read;

use seqfarm_align::{Placement, Unaligned};

use super::*;

fn names(path: &str) -> [String; 2] {
    mate_paths(Path::new(path)).map(|p| p.to_string_lossy().into_owned())
}

#[test]
fn mate_file_names_follow_bowtie2() {
    // Seen with bowtie2 2.5.0: unc.fq.gz -> unc.fq.1.gz, x%y.fq.gz -> x1y.fq.gz,
    // noext -> noext.1.
    assert_eq!(names("o/unc.fq.gz"), ["o/unc.fq.1.gz", "o/unc.fq.2.gz"]);
    assert_eq!(names("o/x%y.fq.gz"), ["o/x1y.fq.gz", "o/x2y.fq.gz"]);
    assert_eq!(names("o/noext"), ["o/noext.1", "o/noext.2"]);
    assert_eq!(names("a.d/%_%.fq"), ["a.d/1_1.fq", "a.d/2_2.fq"]);
    assert_eq!(names("a.d/reads"), ["a.d/reads.1", "a.d/reads.2"]);
    assert_eq!(names("x."), ["x.1.", "x.2."]);
    assert_eq!(names(".fq"), [".1.fq", ".2.fq"]);
    assert_eq!(names("%.d/r.fq"), ["%.d/r.1.fq", "%.d/r.2.fq"]);
}

#[test]
fn options_name_kind_and_compression() {
    let spec = ReadFileSpec::from_option("un-conc-gz", "x").unwrap();
    assert_eq!(spec.kind, ReadFileKind::UnalignedPairs);
    assert_eq!(spec.compression, ReadFileCompression::Gzip);
    let spec = ReadFileSpec::from_option("al-bz2", "x").unwrap();
    assert_eq!(
        (spec.kind, spec.compression),
        (ReadFileKind::Aligned, ReadFileCompression::Bzip2)
    );
    let spec = ReadFileSpec::from_option("al-conc", "x").unwrap();
    assert_eq!(
        (spec.kind, spec.compression),
        (ReadFileKind::AlignedPairs, ReadFileCompression::Plain)
    );
    assert!(ReadFileSpec::from_option("un-mates", "x").is_none());
    let spec = ReadFileSpec::from_option("un-conc-lz4", "x").unwrap();
    assert_eq!(
        (spec.kind, spec.compression),
        (ReadFileKind::UnalignedPairs, ReadFileCompression::Lz4)
    );
    assert!(ReadFileSpec::from_option("gz", "x").is_none());
    for kind in ReadFileKind::ALL {
        let spec = ReadFileSpec::from_option(kind.option(), "x").unwrap();
        assert_eq!(spec.kind, kind);
    }
}

#[test]
fn a_directory_receives_bowtie2s_default_names() {
    let dir = tempfile::tempdir().unwrap();
    let spec = ReadFileSpec::from_option("un-conc-gz", dir.path()).unwrap();
    assert_eq!(
        spec.paths(),
        [
            dir.path().join("un-conc-mate.1"),
            dir.path().join("un-conc-mate.2")
        ]
    );
    let spec = ReadFileSpec::from_option("al", dir.path()).unwrap();
    assert_eq!(spec.paths(), [dir.path().join("al-seqs")]);
}

#[test]
fn reads_are_written_as_they_were() {
    let mut out = Vec::new();
    ReadText(b"@r1/1 comment\nACGT\n+r1\nIIII").append(&mut out);
    ReadText(b">f desc\nAC\nGT").append(&mut out);
    ReadText(b"").append(&mut out);
    // An empty read: its quality line is empty too, and must still be written.
    ReadText(b"@e\n\n+\n").append(&mut out);
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "@r1/1 comment\nACGT\n+r1\nIIII\n>f desc\nAC\nGT\n@e\n\n+\n\n"
    );
}

fn aligned() -> ReadResult {
    ReadResult::Aligned {
        placements: vec![Placement::default()],
        second_best: None,
        mapq: 42,
    }
}

fn unaligned() -> ReadResult {
    ReadResult::Unaligned(Unaligned::NoAlignment)
}

fn pair(class: PairClass) -> PairResult {
    PairResult {
        class,
        mates: [aligned(), aligned()],
        other_pairs: false,
    }
}

fn fastq(name: &str) -> String {
    format!("@{name}\nACGT\n+\nIIII\n")
}

fn gunzip(bytes: &[u8]) -> String {
    let mut text = String::new();
    flate2::read::MultiGzDecoder::new(bytes)
        .read_to_string(&mut text)
        .unwrap();
    text
}

fn bunzip(bytes: &[u8]) -> String {
    let mut text = String::new();
    bzip2::read::MultiBzDecoder::new(bytes)
        .read_to_string(&mut text)
        .unwrap();
    text
}

/// One task of reads: unpaired u{n}a (aligned), u{n}u (not), pairs p{n}c (concordant),
/// p{n}d (discordant), p{n}m (mates on their own); each record without its final line
/// break, as the parser gives it.
fn fill_task(routing: &ReadRouting, task: &mut ReadFileBuffers, n: usize) {
    task.clear();
    for (tag, result) in [("a", aligned()), ("u", unaligned())] {
        let record = fastq(&format!("u{n}{tag}"));
        routing.add_read(task, ReadText(record.trim_end().as_bytes()), &result);
    }
    for (tag, class) in [
        ("c", PairClass::Concordant),
        ("d", PairClass::Discordant),
        ("m", PairClass::Unpaired),
    ] {
        let mates = [
            fastq(&format!("p{n}{tag}/1")),
            fastq(&format!("p{n}{tag}/2")),
        ];
        routing.add_pair(
            task,
            mates.each_ref().map(|m| ReadText(m.trim_end().as_bytes())),
            &pair(class),
        );
    }
    routing.finish_task(task).unwrap();
}

#[test]
fn files_get_their_reads_in_task_order_and_appear_on_commit() {
    let dir = tempfile::tempdir().unwrap();
    let at = |name: &str| dir.path().join(name);
    let specs = [
        ReadFileSpec::from_option("un", at("un.fq")).unwrap(),
        ReadFileSpec::from_option("al-gz", at("al.fq.gz")).unwrap(),
        ReadFileSpec::from_option("un-conc-bz2", at("unc.fq.bz2")).unwrap(),
        ReadFileSpec::from_option("al-conc-gz", at("alc_%.fq.gz")).unwrap(),
    ];
    let mut files = ReadFiles::create(&specs, Overwrite::Refuse).unwrap();
    let routing = files.routing();
    assert!(routing.any());
    // Tasks formatted out of order (as workers may finish them), written in order.
    let mut tasks: Vec<ReadFileBuffers> = (0..3).map(|_| ReadFileBuffers::default()).collect();
    for n in [2, 0, 1] {
        fill_task(&routing, &mut tasks[n], n);
    }
    for task in &mut tasks {
        files.write(task).unwrap();
        assert!(task.is_empty());
    }
    let expected = |names: &[&str]| -> String {
        (0..3)
            .flat_map(|n| {
                names
                    .iter()
                    .map(move |s| fastq(&s.replace('N', &n.to_string())))
            })
            .collect()
    };
    assert!(
        !at("un.fq").exists(),
        "nothing under the real name before commit"
    );
    files.commit().unwrap();
    assert_eq!(
        std::fs::read_to_string(at("un.fq")).unwrap(),
        expected(&["uNu"])
    );
    let al = std::fs::read(at("al.fq.gz")).unwrap();
    assert_eq!(al[..2], [0x1f, 0x8b]);
    assert_eq!(gunzip(&al), expected(&["uNa"]));
    let unc1 = std::fs::read(at("unc.fq.1.bz2")).unwrap();
    assert_eq!(&unc1[..3], b"BZh");
    assert_eq!(bunzip(&unc1), expected(&["pNd/1", "pNm/1"]));
    let unc2 = std::fs::read(at("unc.fq.2.bz2")).unwrap();
    assert_eq!(bunzip(&unc2), expected(&["pNd/2", "pNm/2"]));
    assert_eq!(
        gunzip(&std::fs::read(at("alc_1.fq.gz")).unwrap()),
        expected(&["pNc/1"])
    );
    assert_eq!(
        gunzip(&std::fs::read(at("alc_2.fq.gz")).unwrap()),
        expected(&["pNc/2"])
    );
    let mut names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "al.fq.gz",
            "alc_1.fq.gz",
            "alc_2.fq.gz",
            "un.fq",
            "unc.fq.1.bz2",
            "unc.fq.2.bz2"
        ],
        "no temporary files left"
    );
}

#[test]
fn empty_files_are_valid_compressed_files() {
    let dir = tempfile::tempdir().unwrap();
    let specs = [
        ReadFileSpec::from_option("un-gz", dir.path().join("un.gz")).unwrap(),
        ReadFileSpec::from_option("al-bz2", dir.path().join("al.bz2")).unwrap(),
        ReadFileSpec::from_option("un-conc", dir.path().join("unc")).unwrap(),
    ];
    let files = ReadFiles::create(&specs, Overwrite::Refuse).unwrap();
    files.commit().unwrap();
    assert_eq!(
        gunzip(&std::fs::read(dir.path().join("un.gz")).unwrap()),
        ""
    );
    assert_eq!(
        bunzip(&std::fs::read(dir.path().join("al.bz2")).unwrap()),
        ""
    );
    assert_eq!(std::fs::read(dir.path().join("unc.1")).unwrap(), b"");
    assert_eq!(std::fs::read(dir.path().join("unc.2")).unwrap(), b"");
}

#[test]
fn only_open_destinations_are_filled() {
    let routing = ReadRouting::new(&[ReadFileSpec::from_option("un-conc", "x").unwrap()]);
    let mut task = ReadFileBuffers::default();
    fill_task(&routing, &mut task, 0);
    assert_eq!(task.len(), 4 * fastq("p0d/1").len());
    assert!(!ReadRouting::default().any());
}

#[test]
fn dropping_without_commit_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let specs = [ReadFileSpec::from_option("al-conc-gz", dir.path().join("a.gz")).unwrap()];
    let mut files = ReadFiles::create(&specs, Overwrite::Refuse).unwrap();
    let mut task = ReadFileBuffers::default();
    fill_task(&files.routing(), &mut task, 0);
    files.write(&mut task).unwrap();
    drop(files);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn existing_files_are_replaced_as_bowtie2_does_and_names_must_differ() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.2.fq");
    std::fs::write(&path, b"old").unwrap();
    let specs = [ReadFileSpec::from_option("un-conc", dir.path().join("r.fq")).unwrap()];
    let err = ReadFiles::create(&specs, Overwrite::Refuse).err().unwrap();
    assert!(err.to_string().contains("r.2.fq"), "{err}");
    assert_eq!(std::fs::read(&path).unwrap(), b"old");
    let align_rule = crate::cmd::align::EXISTING_OUTPUT.overwrite(false);
    let files = ReadFiles::create(&specs, align_rule).unwrap();
    assert_eq!(
        std::fs::read(&path).unwrap(),
        b"old",
        "replaced before the commit"
    );
    files.commit().unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), b"");

    let same = [
        ReadFileSpec::from_option("un", dir.path().join("x.fq")).unwrap(),
        ReadFileSpec::from_option("al", dir.path().join("x.fq")).unwrap(),
    ];
    let err = ReadFiles::create(&same, Overwrite::Allow).err().unwrap();
    assert!(
        err.to_string()
            .contains("x.fq: named by both --un and --al"),
        "{err}"
    );
    // The mate files of the `-conc` options count, compression suffixes named.
    let mates = [
        ReadFileSpec::from_option("un-conc-gz", dir.path().join("m%.fq")).unwrap(),
        ReadFileSpec::from_option("al-bz2", dir.path().join("m2.fq")).unwrap(),
    ];
    let err = ReadFiles::create(&mates, Overwrite::Allow).err().unwrap();
    assert!(
        err.to_string()
            .contains("named by both --al-bz2 and --un-conc-gz (mate 2)"),
        "{err}"
    );
    // A repeated option: the last one counts.
    let repeated = [
        ReadFileSpec::from_option("un", dir.path().join("first.fq")).unwrap(),
        ReadFileSpec::from_option("un-gz", dir.path().join("second.fq.gz")).unwrap(),
    ];
    let files = ReadFiles::create(&repeated, Overwrite::Refuse).unwrap();
    assert_eq!(
        files.routing(),
        ReadRouting::new(&repeated[1..]),
        "routing of the last spec"
    );
    files.commit().unwrap();
    assert!(!dir.path().join("first.fq").exists());
    assert!(dir.path().join("second.fq.gz").exists());
}

#[test]
fn lz4_read_files_are_lz4_frames() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("un.fq.lz4");
    let specs = [ReadFileSpec::from_option("un-lz4", &path).unwrap()];
    let mut files = ReadFiles::create(&specs, Overwrite::Refuse).unwrap();
    let routing = files.routing();
    let mut task = ReadFileBuffers::default();
    for n in 0..3 {
        fill_task(&routing, &mut task, n);
        files.write(&mut task).unwrap();
    }
    files.commit().unwrap();
    let bytes = std::fs::read(&path).unwrap();
    // The LZ4 frame magic number, as `lz4 -c` writes it.
    assert_eq!(bytes[..4], [0x04, 0x22, 0x4d, 0x18]);
    let mut text = String::new();
    lz4_flex::frame::FrameDecoder::new(&bytes[..])
        .read_to_string(&mut text)
        .unwrap();
    assert_eq!(
        text,
        (0..3).map(|n| fastq(&format!("u{n}u"))).collect::<String>()
    );
}
