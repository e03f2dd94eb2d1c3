//! The same command line run twice, as a pipeline re-runs a step: each command treats
//! its existing outputs as the tool it stands in for treats its own. samtools, bedtools,
//! mosdepth, bowtie2, bowtie2-build, bwa and parasail overwrite, so the second run of
//! `flagstat`, `count`, `depth`, `align`, `index`, `locate` and `search` succeeds and
//! replaces every output (side files, `--plot` and `--stats` included), still through a
//! temporary file renamed at the end; FACETS snp-pileup refuses an existing output, so
//! `snp-pileup` refuses it too, unless `--force`. Where a peer is installed, the test
//! runs it twice as well and checks that it overwrites.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::{data, index_test_genome, peer, seqfarm, succeeded};

/// What an output holds between the two runs: the second run must replace it.
const STALE: &[u8] = b"stale output of an earlier run\n";

fn s(p: &Path) -> &str {
    p.to_str().expect("UTF-8 path")
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Fails when a hidden temporary output file is left in `dir`.
fn no_temporaries(dir: &Path) {
    let left: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.contains(".seqfarm-"))
        .collect();
    assert!(left.is_empty(), "temporary files left: {left:?}");
}

/// Runs `seqfarm ARGS` twice. Between the runs every file of `same` and `fresh` is made
/// stale; the second run must succeed, write each file of `same` byte for byte as the
/// first run did and each file of `fresh` (figures that hold timings) anew, and leave no
/// temporary file in `dir`.
fn rerun(dir: &Path, args: &[&str], same: &[&Path], fresh: &[&Path]) {
    succeeded(seqfarm().args(args));
    let first: Vec<Vec<u8>> = same.iter().map(|p| read(p)).collect();
    for path in same.iter().chain(fresh) {
        std::fs::write(path, STALE).unwrap();
    }
    let again = seqfarm().args(args).output().unwrap();
    assert!(
        again.status.success(),
        "the same command line failed the second time: {}",
        String::from_utf8_lossy(&again.stderr)
    );
    for (path, first) in same.iter().zip(first) {
        assert!(read(path) == first, "{} was not replaced", path.display());
    }
    for path in fresh {
        let now = read(path);
        assert!(
            !now.is_empty() && now != STALE,
            "{} was not replaced",
            path.display()
        );
    }
    no_temporaries(dir);
}

/// Runs a peer tool's command line twice, making each of `outputs` stale in between, and
/// checks that the second run succeeds and overwrites them (the rule the seqfarm command
/// follows).
fn peer_overwrites(mut command: impl FnMut() -> Command, outputs: &[PathBuf]) {
    let run = |command: &mut Command| {
        let out = command.output().expect("the peer runs");
        assert!(
            out.status.success(),
            "{command:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    run(&mut command());
    for output in outputs {
        std::fs::write(output, STALE).unwrap();
    }
    run(&mut command());
    for output in outputs {
        assert_ne!(
            read(output),
            STALE,
            "{}: the peer did not overwrite",
            output.display()
        );
    }
}

#[test]
fn flagstat_run_again_replaces_its_outputs() {
    // samtools flagstat prints to standard output, which `> FILE` replaces.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (out, stats) = (d.join("flagstat.txt"), d.join("stats.json"));
    let bam = data("bam/sarscov2.bam");
    let args = ["flagstat", "-o", s(&out), "--stats", s(&stats), s(&bam)];
    rerun(d, &args, &[&out], &[&stats]);
    assert!(String::from_utf8_lossy(&read(&out)).contains("in total"));
}

#[test]
fn count_run_again_replaces_its_outputs() {
    // bedtools multicov prints to standard output, which `> FILE` replaces.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (out, svg, stats) = (d.join("c.tsv"), d.join("c.svg"), d.join("c.json"));
    let bam = data("bam/sarscov2.bam");
    let args = [
        "count",
        "--window",
        "1000",
        "-o",
        s(&out),
        "--plot",
        s(&svg),
        "--stats",
        s(&stats),
        s(&bam),
    ];
    rerun(d, &args, &[&out, &svg], &[&stats]);
}

#[test]
fn depth_run_again_replaces_its_outputs_as_mosdepth_does() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let prefix = d.join("s");
    let (svg, stats) = (d.join("d.svg"), d.join("d.json"));
    let bam = data("bam/sarscov2.bam");
    let args = [
        "depth",
        "--window",
        "1000",
        "-T",
        "1,10",
        "--per-base",
        "-o",
        s(&prefix),
        "--plot",
        s(&svg),
        "--stats",
        s(&stats),
        s(&bam),
    ];
    let files: Vec<PathBuf> = [
        "regions.bed.gz",
        "regions.bed.gz.csi",
        "thresholds.bed.gz",
        "thresholds.bed.gz.csi",
        "per-base.bed.gz",
        "per-base.bed.gz.csi",
        "mosdepth.summary.txt",
        "mosdepth.global.dist.txt",
        "mosdepth.region.dist.txt",
    ]
    .iter()
    .map(|suffix| d.join(format!("s.{suffix}")))
    .collect();
    let mut same: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    same.push(&svg);
    rerun(d, &args, &same, &[&stats]);

    if peer("mosdepth") {
        let peer_prefix = d.join("m");
        let mosdepth = || {
            let mut command = Command::new("mosdepth");
            command
                .args(["-n", "--by", "1000", "-T", "1,10"])
                .arg(&peer_prefix)
                .arg(&bam);
            command
        };
        peer_overwrites(mosdepth, &[d.join("m.mosdepth.summary.txt")]);
    }
}

#[test]
fn index_and_locate_run_again_replace_their_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let fasta = d.join("ref.fa");
    let genome = crate::support::random_dna(2_000, 7);
    let mut text = b">c\n".to_vec();
    text.extend_from_slice(&genome);
    text.push(b'\n');
    std::fs::write(&fasta, text).unwrap();
    let prefix = d.join("idx");
    let stats = d.join("index.json");
    let args = ["index", "-o", s(&prefix), "--stats", s(&stats), s(&fasta)];
    rerun(d, &args, &[&d.join("idx.sfi")], &[&stats]);

    let stats = d.join("locate.json");
    let args = ["locate", "-x", s(&prefix), "--stats", s(&stats), "ACGTAC"];
    rerun(d, &args, &[], &[&stats]);

    if peer("bwa") {
        let bwa = || {
            let mut command = Command::new("bwa");
            command
                .arg("index")
                .arg("-p")
                .arg(d.join("bwa"))
                .arg(&fasta);
            command
        };
        peer_overwrites(bwa, &[d.join("bwa.bwt")]);
    }
    if peer("bowtie2-build") {
        let build = || {
            let mut command = Command::new("bowtie2-build");
            command.arg("-q").arg(&fasta).arg(d.join("bt2"));
            command
        };
        peer_overwrites(build, &[d.join("bt2.1.bt2")]);
    }
}

#[test]
fn search_run_again_replaces_its_outputs() {
    // parasail_aligner opens its output with fopen(..., "w"); BLAST's -out overwrites.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (out, stats) = (d.join("hits.tsv"), d.join("search.json"));
    let (query, db) = (data("search_dna_q.fa"), data("search_dna_db.fa.gz"));
    let args = [
        "search",
        "--dna",
        "--top",
        "2",
        "-o",
        s(&out),
        "--stats",
        s(&stats),
        s(&query),
        s(&db),
    ];
    rerun(d, &args, &[&out], &[&stats]);
}

#[test]
fn align_run_again_replaces_its_output_read_files_and_metrics_as_bowtie2_does() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let index = index_test_genome(d);
    let reads = data("align_reads_100.fq.gz");
    let sam = d.join("out.sam");
    let (un, al, met) = (d.join("un.fq"), d.join("al.fq"), d.join("met.txt"));
    let (svg, stats) = (d.join("a.svg"), d.join("a.json"));
    let args = [
        "align",
        "-p",
        "2",
        "-x",
        s(&index),
        "-U",
        s(&reads),
        "-S",
        s(&sam),
        "--un",
        s(&un),
        "--al",
        s(&al),
        "--met-file",
        s(&met),
        "--plot",
        s(&svg),
        "--stats",
        s(&stats),
    ];
    rerun(d, &args, &[&sam, &un, &al, &svg], &[&met, &stats]);
    assert!(read(&sam).starts_with(b"@HD"));

    // Paired, sorted: the BAM and its index are replaced as `samtools sort -o` and
    // `samtools index` replace theirs; the mate files as bowtie2 replaces them.
    let bam = d.join("pairs.bam");
    let (r1, r2) = (data("pe_sim_R1.fq.gz"), data("pe_sim_R2.fq.gz"));
    let (unc, alc) = (d.join("unc.fq"), d.join("alc.fq"));
    let args = [
        "align",
        "-p",
        "2",
        "-x",
        s(&index),
        "-1",
        s(&r1),
        "-2",
        s(&r2),
        "-o",
        s(&bam),
        "--sort",
        "--un-conc",
        s(&unc),
        "--al-conc",
        s(&alc),
    ];
    let files = [
        "pairs.bam",
        "pairs.bam.bai",
        "unc.1.fq",
        "unc.2.fq",
        "alc.1.fq",
        "alc.2.fq",
    ]
    .map(|name| d.join(name));
    let same: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    rerun(d, &args, &same, &[]);
    assert!(!read(&d.join("alc.1.fq")).is_empty());

    if peer("bowtie2") && peer("bowtie2-build") {
        let genome = crate::align_fixtures::test_genome();
        let bowtie2 = || {
            let mut command = Command::new("bowtie2");
            command
                .args(["-p", "2", "-x"])
                .arg(&genome.bowtie2)
                .arg("-1")
                .arg(&r1)
                .arg("-2")
                .arg(&r2)
                .arg("-S")
                .arg(d.join("bt2.sam"))
                .arg("--al-conc")
                .arg(d.join("bt2-alc.fq"))
                .arg("--met-file")
                .arg(d.join("bt2-met.txt"));
            command
        };
        let outputs = ["bt2.sam", "bt2-alc.1.fq", "bt2-alc.2.fq", "bt2-met.txt"];
        peer_overwrites(bowtie2, &outputs.map(|name| d.join(name)));
    }
    if peer("samtools") {
        let sorted = d.join("samtools.bam");
        let sort = || {
            let mut command = Command::new("samtools");
            command.args(["sort", "-o"]).arg(&sorted).arg(&bam);
            command
        };
        peer_overwrites(sort, std::slice::from_ref(&sorted));
        let index = || {
            let mut command = Command::new("samtools");
            command.arg("index").arg(&sorted);
            command
        };
        peer_overwrites(index, &[d.join("samtools.bam.bai")]);
    }
}

/// A symbolic link as the output is written through, as bowtie2 writes through it: the
/// file it points to gets the new SAM and the link stays a link.
#[cfg(unix)]
#[test]
fn align_writes_through_a_symbolic_link_as_bowtie2_does() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let index = index_test_genome(d);
    let target = d.join("target.sam");
    std::fs::write(&target, STALE).unwrap();
    let link = d.join("link.sam");
    std::os::unix::fs::symlink("target.sam", &link).unwrap();
    let reads = data("align_reads_100.fq.gz");
    succeeded(seqfarm().args(["align", "-x", s(&index), "-U", s(&reads), "-S", s(&link)]));
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(read(&target).starts_with(b"@HD"));
    no_temporaries(d);
    if peer("bowtie2") && peer("bowtie2-build") {
        let genome = crate::align_fixtures::test_genome();
        std::fs::write(&target, STALE).unwrap();
        let mut bowtie2 = Command::new("bowtie2");
        bowtie2.arg("-x").arg(&genome.bowtie2);
        succeeded(bowtie2.arg("-U").arg(&reads).arg("-S").arg(&link));
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert!(read(&target).starts_with(b"@HD"));
    }
}

#[test]
fn snp_pileup_run_again_refuses_its_output_as_facets_does_unless_forced() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let snp = |name: &str| data(&format!("snp-pileup/{name}"));
    let (vcf, normal, tumour) = (
        snp("sites_slice.vcf.gz"),
        snp("normal_slice.bam"),
        snp("tumor_slice.bam"),
    );
    let (out, svg, stats) = (d.join("pileup.csv"), d.join("p.svg"), d.join("p.json"));
    let run = |out: &Path, force: bool| {
        let mut command = seqfarm();
        command.arg("snp-pileup");
        if force {
            command.arg("--force");
        }
        command
            .args(["-q", "15", "--plot", s(&svg), "--stats", s(&stats)])
            .args([s(&vcf), s(out), s(&normal), s(&tumour)]);
        command.output().unwrap()
    };
    let first = run(&out, false);
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let written: Vec<Vec<u8>> = [&out, &svg, &stats].iter().map(|p| read(p)).collect();
    assert!(written[0].starts_with(b"Chromosome,Position"));

    // The same command line: refused before any work, naming the file; nothing changes.
    let again = run(&out, false);
    let e = String::from_utf8_lossy(&again.stderr);
    assert_eq!(again.status.code(), Some(1), "{e}");
    assert!(
        e.contains(s(&out)) && e.contains("already exists") && e.contains("--force"),
        "{e}"
    );
    assert!(!e.contains("panicked"), "{e}");
    let now: Vec<Vec<u8>> = [&out, &svg, &stats].iter().map(|p| read(p)).collect();
    assert!(now == written, "a refused run changed an output");
    no_temporaries(d);

    // Existing --plot and --stats files are refused as the OUTPUT is.
    let other = d.join("other.csv");
    let e = String::from_utf8_lossy(&run(&other, false).stderr).into_owned();
    assert!(
        (e.contains(s(&svg)) || e.contains(s(&stats))) && e.contains("already exists"),
        "{e}"
    );
    assert!(!other.exists());

    // With --force the run replaces them all.
    for path in [&out, &svg, &stats] {
        std::fs::write(path, STALE).unwrap();
    }
    let forced = run(&out, true);
    assert!(
        forced.status.success(),
        "{}",
        String::from_utf8_lossy(&forced.stderr)
    );
    assert!(read(&out) == written[0] && read(&svg) == written[1]);
    assert_ne!(read(&stats), STALE);
    no_temporaries(d);
}
