//! Outputs never replace inputs: an existing output is replaced (by every command but
//! snp-pileup, which replaces it only with `--force`, as FACETS refuses it), but an
//! output that is one of the command's inputs (by name, through a symbolic link or a hard
//! link) is refused before anything is written, `--force` or not, for every command that
//! writes a file. Re-runs of each command: `reruns.rs`.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::support::{data, run};

/// Copies `name` from tests/data into `dir`.
fn staged(dir: &Path, name: &str) -> PathBuf {
    let to = dir.join(Path::new(name).file_name().unwrap());
    std::fs::copy(data(name), &to).unwrap();
    to
}

/// Asserts that `out` is the refusal of an output that is an input, and that `input`
/// still holds `before`.
fn refused(out: Output, input: &Path, before: &[u8]) {
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "accepted: {e}");
    assert!(e.contains("this output is the input"), "{e}");
    assert!(e.contains("--force never replaces an input"), "{e}");
    assert_eq!(
        std::fs::read(input).unwrap(),
        before,
        "the input was changed"
    );
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn snp_pileup_force_cannot_replace_the_tumour_bam() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let vcf = staged(d, "snp-pileup/sites_slice.vcf.gz");
    let tumour = staged(d, "snp-pileup/tumor_slice.bam");
    staged(d, "snp-pileup/tumor_slice.bam.bai");
    let normal = staged(d, "snp-pileup/normal_slice.bam");
    staged(d, "snp-pileup/normal_slice.bam.bai");
    let before = std::fs::read(&tumour).unwrap();
    let args = |output: &Path| {
        run(&[
            "snp-pileup",
            "--force",
            s(&vcf),
            s(output),
            s(&normal),
            s(&tumour),
        ])
    };
    refused(args(&tumour), &tumour, &before);
    // The same file under another name: a symbolic link, a hard link, `./`.
    let link = d.join("link.csv");
    #[cfg(unix)]
    std::os::unix::fs::symlink(&tumour, &link).unwrap();
    #[cfg(unix)]
    refused(args(&link), &tumour, &before);
    let hard = d.join("hard.csv");
    std::fs::hard_link(&tumour, &hard).unwrap();
    refused(args(&hard), &tumour, &before);
    refused(args(&d.join(".").join("tumor_slice.bam")), &tumour, &before);
    // The index beside a BAM and the VCF are inputs too.
    let bai = d.join("normal_slice.bam.bai");
    let bai_before = std::fs::read(&bai).unwrap();
    refused(args(&bai), &bai, &bai_before);
    let vcf_before = std::fs::read(&vcf).unwrap();
    refused(args(&vcf), &vcf, &vcf_before);
    // Another existing file is still replaced with --force.
    let other = d.join("old.csv");
    std::fs::write(&other, b"old").unwrap();
    let out = args(&other);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(std::fs::read(&other).unwrap().starts_with(b"Chromosome"));
}

#[test]
fn count_flagstat_index_search_and_align_refuse_an_input_as_output() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let bam = staged(d, "bam/sarscov2.bam");
    staged(d, "bam/sarscov2.bam.bai");
    let bam_before = std::fs::read(&bam).unwrap();
    let bed = d.join("r.bed");
    std::fs::write(&bed, "MN908947.3\t0\t100\n").unwrap();
    let bed_before = std::fs::read(&bed).unwrap();

    let count = |output: &Path| {
        run(&[
            "count",
            "--force",
            "--bed",
            s(&bed),
            "-o",
            s(output),
            s(&bam),
        ])
    };
    refused(count(&bam), &bam, &bam_before);
    refused(count(&bed), &bed, &bed_before);
    let flagstat = run(&["flagstat", "--force", "-o", s(&bam), s(&bam)]);
    refused(flagstat, &bam, &bam_before);

    // `index ref.sfi -o ref`: the index would replace its own reference.
    let reference = d.join("ref.sfi");
    std::fs::write(&reference, ">c\nACGTACGTAGCTAGCTAGCATCGATCGACTGACTG\n").unwrap();
    let ref_before = std::fs::read(&reference).unwrap();
    let index = run(&["index", "--force", s(&reference), "-o", s(&d.join("ref"))]);
    refused(index, &reference, &ref_before);

    let query = staged(d, "sw_q10.fa");
    let query_before = std::fs::read(&query).unwrap();
    let search = run(&["search", "--force", "-o", s(&query), s(&query), s(&query)]);
    refused(search, &query, &query_before);

    let reads = staged(d, "align_reads_100.fq.gz");
    let reads_before = std::fs::read(&reads).unwrap();
    let x = d.join("none");
    for option in ["-S", "--un", "--al", "--met-file"] {
        for force in [&["--force"][..], &[]] {
            let mut args = vec!["align", "-x", s(&x), "-U", s(&reads), option, s(&reads)];
            args.extend(force);
            refused(run(&args), &reads, &reads_before);
        }
    }
    // Without --force too, now that the other commands replace existing outputs.
    refused(
        run(&["count", "--bed", s(&bed), "-o", s(&bam), s(&bam)]),
        &bam,
        &bam_before,
    );
    refused(
        run(&["flagstat", "-o", s(&bam), s(&bam)]),
        &bam,
        &bam_before,
    );
    let search = run(&["search", "-o", s(&query), s(&query), s(&query)]);
    refused(search, &query, &query_before);
}

/// A run ended by SIGINT, SIGTERM or SIGHUP removes its hidden temporary files and
/// dies by the signal: `align` reading reads from a pipe that stays open is stopped
/// while its BAM and `--un-gz` outputs are being written.
#[test]
fn an_interrupted_run_leaves_no_temporary_files() {
    use std::io::Write;
    use std::os::unix::process::ExitStatusExt;
    use std::process::Stdio;
    let genome = crate::align_fixtures::test_genome();
    for (name, number) in [("INT", 2), ("TERM", 15), ("HUP", 1)] {
        let dir = tempfile::tempdir().unwrap();
        let mut child = crate::support::seqfarm()
            .arg("align")
            .arg("-x")
            .arg(&genome.seqfarm)
            .args(["-U", "-", "-o", s(&dir.path().join("out.bam"))])
            .args(["--un-gz", s(&dir.path().join("un.fq.gz"))])
            .stdin(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        stdin
            .write_all(&std::fs::read(data("pe_sim_R1.fq.gz")).unwrap())
            .unwrap();
        let entries = || std::fs::read_dir(dir.path()).unwrap().count();
        let started = std::time::Instant::now();
        while entries() < 2 {
            assert!(started.elapsed().as_secs() < 60, "no outputs opened");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let kill = std::process::Command::new("kill")
            .arg(format!("-{name}"))
            .arg(child.id().to_string())
            .status()
            .unwrap();
        assert!(kill.success());
        let status = child.wait().unwrap();
        drop(stdin);
        assert_eq!(status.signal(), Some(number), "SIG{name}: {status}");
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert!(left.is_empty(), "SIG{name} left {left:?}");
    }
}

/// Asserts that `out` failed on two outputs naming one file: a non-zero exit, and a
/// message naming the file and both options; and that `dir` holds what it held before.
fn shared(out: Output, file: &str, options: [&str; 2], dir: &Path, before: &[String]) {
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "accepted {file} twice: {e}");
    assert_eq!(out.status.code(), Some(1), "{e}");
    assert!(e.starts_with("seqfarm: error: "), "{e}");
    assert!(e.contains(file), "{file} not named: {e}");
    for option in options {
        assert!(e.contains(option), "{option} not named: {e}");
    }
    assert!(e.contains("give each output a file of its own"), "{e}");
    assert_eq!(
        crate::support::entry_names(dir),
        before,
        "a file was written: {e}"
    );
}

/// `seqfarm align` given two outputs of one file (by the same name, another spelling, a
/// hard or a symbolic link, a mate file of the `-conc` options, `--sort`'s index) fails
/// at start-up naming the file and both options, and writes nothing: before, both
/// outputs shared one temporary file and the run failed after aligning, "No such file or
/// directory", `-S x.sam --met-file x.sam` leaving the metrics in `x.sam`.
#[cfg(unix)]
#[test]
fn align_refuses_two_outputs_of_one_file_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let index = crate::support::index_test_genome(d);
    std::fs::write(d.join("old.sam"), b"old").unwrap();
    std::fs::hard_link(d.join("old.sam"), d.join("hard.sam")).unwrap();
    std::os::unix::fs::symlink("made.sam", d.join("dangling.sam")).unwrap();
    let before = crate::support::entry_names(d);
    let unpaired = [
        (
            &["-S", "x.sam", "--met-file", "x.sam"][..],
            "x.sam",
            ["-S", "--met-file"],
        ),
        (&["-S", "x", "--un", "./x"], "x", ["-S", "--un"]),
        (
            &["-o", "x.bam", "--al-gz", "x.bam"],
            "x.bam",
            ["-o", "--al-gz"],
        ),
        (
            &["-S", "old.sam", "--al", "hard.sam"],
            "hard.sam",
            ["-S", "--al"],
        ),
        (
            &["-S", "dangling.sam", "--un-bz2", "made.sam"],
            "made.sam",
            ["-S", "--un-bz2"],
        ),
        (
            &["--met-file", "m.txt", "--un-lz4", "m.txt"],
            "m.txt",
            ["--met-file", "--un-lz4"],
        ),
        (
            &["-S", "a.sam", "--plot", "p.svg", "--stats", "p.svg"],
            "p.svg",
            ["--plot", "--stats"],
        ),
        (
            &["-S", "a.sam", "--stats", "a.sam"],
            "a.sam",
            ["-S", "--stats"],
        ),
        (
            &["-o", "y.bam", "--sort", "--met-file", "y.bam.bai"],
            "y.bam.bai",
            ["--met-file", "--sort"],
        ),
        (
            &["-o", "y.bam", "--sort", "--plot", "y.bam"],
            "y.bam",
            ["-o", "--plot"],
        ),
    ];
    let reads = data("align_reads_100.fq.gz");
    for (outputs, file, options) in unpaired {
        let mut command = crate::support::seqfarm();
        command
            .current_dir(d)
            .args(["align", "-p", "1", "-x", s(&index), "-U", s(&reads)]);
        shared(
            command.args(outputs).output().unwrap(),
            file,
            options,
            d,
            &before,
        );
        // `--force` changes nothing: an output never replaces another.
        let mut command = crate::support::seqfarm();
        command
            .current_dir(d)
            .args(["align", "--force", "-x", s(&index), "-U", s(&reads)]);
        shared(
            command.args(outputs).output().unwrap(),
            file,
            options,
            d,
            &before,
        );
    }
    let paired = [
        (
            &["--un-conc", "z.fq", "--al-conc", "z.fq"][..],
            "z.1.fq",
            ["--un-conc (mate 1)", "--al-conc (mate 1)"],
        ),
        (
            &["--al-conc-gz", "z%.fq", "--un", "z2.fq"],
            "z2.fq",
            ["--al-conc-gz (mate 2)", "--un"],
        ),
        (
            &["-S", "z.2.fq", "--un-conc", "z.fq"],
            "z.2.fq",
            ["-S", "--un-conc (mate 2)"],
        ),
    ];
    let (r1, r2) = (data("pe_sim_R1.fq.gz"), data("pe_sim_R2.fq.gz"));
    for (outputs, file, options) in paired {
        let mut command = crate::support::seqfarm();
        command
            .current_dir(d)
            .args(["align", "-x", s(&index), "-1", s(&r1), "-2", s(&r2)]);
        shared(
            command.args(outputs).output().unwrap(),
            file,
            options,
            d,
            &before,
        );
    }
    assert_eq!(std::fs::read(d.join("old.sam")).unwrap(), b"old");
    // Standard output and a device are no files: several outputs may go there.
    crate::support::succeeded(
        crate::support::seqfarm()
            .current_dir(d)
            .args(["align", "-x", s(&index), "-U", s(&reads), "-S", "/dev/null"])
            .args([
                "--met-file",
                "/dev/null",
                "--un",
                "/dev/null",
                "--stats",
                "-",
            ]),
    );
    assert_eq!(crate::support::entry_names(d), before);
}

/// The other commands with several outputs refuse two of one file the same way: `depth`'s
/// prefix files against `--plot` and `--stats`, and each command's output against its
/// `--plot` and `--stats`, which are not one file either.
#[test]
fn other_commands_refuse_two_outputs_of_one_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let before = crate::support::entry_names(d);
    let bam = data("bam/sarscov2.bam");
    let snp = |name: &str| data(&format!("snp-pileup/{name}"));
    let (vcf, normal, tumour) = (
        snp("sites_slice.vcf.gz"),
        snp("normal_slice.bam"),
        snp("tumor_slice.bam"),
    );
    let (queries, genome) = (data("sw_q10.fa"), data("index_ref.fa.gz"));
    let runs: Vec<(Vec<&str>, &str, [&str; 2])> = vec![
        (
            vec![
                "depth",
                "--window",
                "1000",
                "-o",
                "p",
                "--stats",
                "p.mosdepth.summary.txt",
                s(&bam),
            ],
            "p.mosdepth.summary.txt",
            ["-o", "--stats"],
        ),
        (
            vec![
                "depth",
                "--window",
                "1000",
                "-o",
                "p",
                "--plot",
                "./p.regions.bed.gz.csi",
                s(&bam),
            ],
            "p.regions.bed.gz.csi",
            ["-o", "--plot"],
        ),
        (
            vec![
                "depth",
                "--window",
                "1000",
                "-o",
                "p",
                "--plot",
                "x.svg",
                "--stats",
                "x.svg",
                s(&bam),
            ],
            "x.svg",
            ["--plot", "--stats"],
        ),
        (
            vec![
                "count",
                "--window",
                "1000",
                "-o",
                "c.tsv",
                "--plot",
                "./c.tsv",
                s(&bam),
            ],
            "c.tsv",
            ["-o", "--plot"],
        ),
        (
            vec![
                "count",
                "--window",
                "1000",
                "--plot",
                "c.svg",
                "--stats",
                "c.svg",
                s(&bam),
            ],
            "c.svg",
            ["--plot", "--stats"],
        ),
        (
            vec![
                "snp-pileup",
                "--force",
                "--stats",
                "o.csv",
                s(&vcf),
                "o.csv",
                s(&normal),
                s(&tumour),
            ],
            "o.csv",
            ["OUTPUT", "--stats"],
        ),
        (
            vec![
                "snp-pileup",
                "-g",
                "--plot",
                "o.csv.gz",
                s(&vcf),
                "o.csv",
                s(&normal),
                s(&tumour),
            ],
            "o.csv.gz",
            ["OUTPUT", "--plot"],
        ),
        (
            vec!["flagstat", "-o", "f.txt", "--stats", "f.txt", s(&bam)],
            "f.txt",
            ["-o", "--stats"],
        ),
        (
            vec![
                "search",
                "-o",
                "h.tsv",
                "--stats",
                "h.tsv",
                s(&queries),
                s(&queries),
            ],
            "h.tsv",
            ["-o", "--stats"],
        ),
        (
            vec!["index", "-o", "g", "--stats", "g.sfi", s(&genome)],
            "g.sfi",
            ["-o", "--stats"],
        ),
    ];
    for (args, file, options) in runs {
        let out = crate::support::seqfarm()
            .current_dir(d)
            .args(&args)
            .output()
            .unwrap();
        shared(out, file, options, d, &before);
    }
}
