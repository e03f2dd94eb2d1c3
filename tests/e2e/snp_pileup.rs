//! `seqfarm snp-pileup`: byte-identical to FACETS snp-pileup (golden outputs of the
//! upstream program in tests/data/snp-pileup, and the shared data set when present) at
//! several thread counts and task sizes; errors on bad input.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::support::{data, file_bytes, seqfarm, shared_data, stage, truncated_gzip};

pub fn run(args: &[&str], vcf: &Path, output: &Path, bams: &[PathBuf]) -> Output {
    seqfarm()
        .arg("snp-pileup")
        .args(args)
        .arg(vcf)
        .arg(output)
        .args(bams)
        .output()
        .expect("seqfarm runs")
}

/// Runs snp-pileup with `options` (plus `extra`) and returns the output text.
fn pileup(dir: &Path, options: &str, extra: &[&str], vcf: &Path, bams: &[PathBuf]) -> Vec<u8> {
    let gzip = options.split_whitespace().any(|o| o == "-g");
    let out = dir.join(format!("out{}.csv", rand_suffix()));
    let args: Vec<&str> = options
        .split_whitespace()
        .chain(extra.iter().copied())
        .collect();
    let result = run(&args, vcf, &out, bams);
    assert!(
        result.status.success(),
        "snp-pileup {options} {extra:?} failed: {}",
        String::from_utf8_lossy(&result.stderr)
    );
    let written = if gzip {
        PathBuf::from(format!("{}.gz", out.display()))
    } else {
        out
    };
    let t = file_bytes(&written);
    std::fs::remove_file(&written).unwrap();
    t
}

fn rand_suffix() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}

pub fn snp(name: &str) -> PathBuf {
    data(&format!("snp-pileup/{name}"))
}

fn bam(name: &str) -> PathBuf {
    data(&format!("bam/{name}"))
}

/// The bundled golden cases: `(name, options, VCF, BAMs)`.
fn bundled_cases() -> Vec<(&'static str, &'static str, PathBuf, Vec<PathBuf>)> {
    let chrm = bam("na12878_chrM.bam");
    let pair = vec![snp("normal_slice.bam"), snp("tumor_slice.bam")];
    vec![
        (
            "chrM_single",
            "",
            snp("chrM_sites.vcf.gz"),
            vec![chrm.clone()],
        ),
        (
            "chrM_three",
            "-r5,10,20 -Q30",
            snp("chrM_sites.vcf.gz"),
            vec![chrm.clone(); 3],
        ),
        (
            "chm1_single",
            "-P7 -q20",
            snp("chm1_sites.vcf.gz"),
            vec![bam("chm1.bam")],
        ),
        (
            "chrM_depth",
            "-d 150 -P 101 -Q 20",
            snp("chrM_sites.vcf.gz"),
            vec![chrm],
        ),
        ("slice_default", "", snp("sites_slice.vcf.gz"), pair.clone()),
        (
            "slice_facets",
            "-g -q15 -Q20 -P100 -r10,0",
            snp("sites_slice.vcf.gz"),
            pair.clone(),
        ),
        (
            "slice_orphans_nooverlap",
            "-A -x -q1 -Q13",
            snp("sites_slice.vcf.gz"),
            pair.clone(),
        ),
        (
            "slice_depth",
            "-d 8 -P50 -r2,2",
            snp("sites_slice.vcf.gz"),
            pair,
        ),
    ]
}

pub fn expected(name: &str) -> Vec<u8> {
    let plain = snp(&format!("expected/{name}.csv.gz"));
    if plain.exists() {
        file_bytes(&plain)
    } else {
        file_bytes(&snp(&format!("expected/{name}.bgzf.csv.gz")))
    }
}

#[test]
fn bundled_golden_cases_are_byte_identical_at_1_and_2_threads() {
    let dir = tempfile::tempdir().unwrap();
    for (name, options, vcf, bams) in bundled_cases() {
        let bams = stage(dir.path(), &bams);
        let want = expected(name);
        assert!(want.len() > 100, "{name}: golden file");
        for threads in ["1", "2"] {
            let got = pileup(dir.path(), options, &["-t", threads], &vcf, &bams);
            assert!(
                got == want,
                "{name} at {threads} threads differs from FACETS"
            );
        }
    }
}

#[test]
fn task_boundaries_do_not_change_a_byte() {
    // Tiny tasks put many range boundaries inside covered stretches: reads that start
    // before a task and reach into it, depth limits and overlapping mates near the cut.
    let dir = tempfile::tempdir().unwrap();
    for (name, options, vcf, bams) in bundled_cases() {
        if !["slice_depth", "slice_default", "chrM_depth", "chm1_single"].contains(&name) {
            continue;
        }
        let bams = stage(dir.path(), &bams);
        let want = expected(name);
        for (threads, span) in [("1", "150"), ("3", "150"), ("2", "1000"), ("3", "7000")] {
            let got = pileup(
                dir.path(),
                options,
                &["-t", threads, "--task-span", span, "--task-bytes", "1"],
                &vcf,
                &bams,
            );
            assert!(
                got == want,
                "{name}: {threads} threads, tasks of {span} bases differ"
            );
        }
    }
}

#[test]
fn bgzf_output_is_the_same_bytes_at_any_thread_count() {
    // Blocks are cut at fixed sizes of the text and compressed the same way whichever
    // thread compresses them: the file is the sequential writer's, byte for byte.
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let bams = stage(
        dir.path(),
        &[snp("normal_slice.bam"), snp("tumor_slice.bam")],
    );
    let vcf = snp("sites_slice.vcf.gz");
    let want = expected("slice_depth");
    assert!(
        want.len() > 3 * seqfarm_io::bgzf_writer::BLOCK_INPUT,
        "several blocks"
    );
    let mut sequential = seqfarm_io::bgzf_writer::BgzfWriter::new(Vec::new(), 6);
    sequential.write_all(&want).unwrap();
    let sequential = sequential.finish().unwrap();
    for (threads, task_bytes) in [("1", "1"), ("3", "1"), ("3", "100000"), ("4", "1")] {
        let out = dir.path().join(format!("out{}.csv", rand_suffix()));
        let args = [
            "-g",
            "-d",
            "8",
            "-P50",
            "-r2,2",
            "-t",
            threads,
            "--task-span",
            "700",
            "--task-bytes",
            task_bytes,
        ];
        let result = run(&args, &vcf, &out, &bams);
        assert!(
            result.status.success(),
            "{}",
            String::from_utf8_lossy(&result.stderr)
        );
        let file = std::fs::read(format!("{}.gz", out.display())).unwrap();
        assert!(
            file == sequential,
            "{threads} threads, tasks of {task_bytes} bytes: other BGZF bytes"
        );
    }
}

#[test]
fn shared_pair_cases_are_byte_identical() {
    let Some(cases) = shared_data("snp-pileup/cases.tsv") else {
        eprintln!("shared data absent: skipping the 13 MB pair cases");
        return;
    };
    let root = cases.parent().unwrap().parent().unwrap().to_path_buf();
    let dir = tempfile::tempdir().unwrap();
    let table = std::fs::read_to_string(&cases).unwrap();
    for line in table.lines().filter(|l| l.starts_with("pair_")) {
        let f: Vec<&str> = line.split('\t').collect();
        let (name, options) = (f[0], if f[1] == "-" { "" } else { f[1] });
        let bams: Vec<PathBuf> = f[3].split(' ').map(|b| root.join(b)).collect();
        let bams = stage(dir.path(), &bams);
        let gz = if options.contains("-g") { ".gz" } else { "" };
        let want = file_bytes(&root.join(format!("snp-pileup/expected/{name}.csv{gz}")));
        let got = pileup(dir.path(), options, &["-t", "2"], &root.join(f[2]), &bams);
        assert!(got == want, "{name} differs from FACETS");
    }
}

#[test]
fn chr_prefixes_match_either_way() {
    let dir = tempfile::tempdir().unwrap();
    let bams = stage(
        dir.path(),
        &[snp("normal_slice.bam"), snp("tumor_slice.bam")],
    );
    let plain = file_bytes(&snp("sites_slice.vcf.gz"));
    let prefixed: String = String::from_utf8(plain)
        .unwrap()
        .lines()
        .map(|l| {
            if l.starts_with("20\t") {
                format!("chr{l}\n")
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    let vcf = dir.path().join("chr.vcf");
    std::fs::write(&vcf, prefixed).unwrap();
    assert!(pileup(dir.path(), "", &[], &vcf, &bams) == expected("slice_default"));
}

fn error_of(out: Output) -> String {
    assert!(!out.status.success(), "expected a failure");
    let e = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(e.starts_with("seqfarm: error: "), "{e}");
    assert!(!e.contains("panicked"), "{e}");
    e
}

#[test]
fn bad_inputs_get_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let bams = stage(d, &[bam("chm1.bam"), bam("na12878_chrM.bam")]);
    let (chm1, chrm) = (&bams[0], &bams[1]);
    let vcf = snp("chrM_sites.vcf.gz");

    // A BAM without index, BAMs of different references.
    let bare = d.join("bare.bam");
    std::fs::copy(chm1, &bare).unwrap();
    let e = error_of(run(&[], &vcf, &d.join("o1.csv"), &[bare]));
    assert!(e.contains("bare.bam") && e.contains("no index"), "{e}");
    let e = error_of(run(
        &[],
        &vcf,
        &d.join("o2.csv"),
        &[chrm.clone(), chm1.clone()],
    ));
    assert!(e.contains("same reference"), "{e}");
    assert!(!d.join("o2.csv").exists());

    // An existing output is refused (snp-pileup says "already exists"); -g adds .gz.
    let existing = d.join("o3.csv");
    std::fs::write(&existing, b"keep").unwrap();
    let e = error_of(run(&[], &vcf, &existing, std::slice::from_ref(chrm)));
    assert!(e.contains("already exists"), "{e}");
    assert_eq!(std::fs::read(&existing).unwrap(), b"keep");
    std::fs::write(d.join("o4.csv.gz"), b"keep").unwrap();
    let e = error_of(run(
        &["-g"],
        &vcf,
        &d.join("o4.csv"),
        std::slice::from_ref(chrm),
    ));
    assert!(
        e.contains("o4.csv.gz") && e.contains("already exists"),
        "{e}"
    );

    // VCF contigs in another order than the BAM's, and files that are not VCFs.
    let unsorted = d.join("unsorted.vcf");
    std::fs::write(
        &unsorted,
        "##fileformat=VCFv4.2\n#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\n\
         chrY\t100\t.\tA\tC\t.\t.\t.\nchrM\t100\t.\tA\tC\t.\t.\t.\n",
    )
    .unwrap();
    let e = error_of(run(
        &[],
        &unsorted,
        &d.join("o5.csv"),
        std::slice::from_ref(chrm),
    ));
    assert!(
        e.contains("unsorted.vcf") && e.contains("line 4") && e.contains("order"),
        "{e}"
    );
    assert!(!d.join("o5.csv").exists(), "no partial output");
    for (name, content) in [
        ("empty.vcf", ""),
        ("bed.vcf", "chrM\t1\t100\n"),
        ("cols.vcf", "#CHROM\tPOS\nchrM\tnotanumber\t.\tA\tC\n"),
    ] {
        let p = d.join(name);
        std::fs::write(&p, content).unwrap();
        let e = error_of(run(&[], &p, &d.join("o6.csv"), std::slice::from_ref(chrm)));
        assert!(e.contains(name), "{e}");
    }
    // A VCF cut short: the error names the line the file is cut in.
    let (cut, inflated) = truncated_gzip(&file_bytes(&vcf));
    let lines = inflated.iter().filter(|&&b| b == b'\n').count();
    let p = d.join("cut.vcf.gz");
    std::fs::write(&p, cut).unwrap();
    let e = error_of(run(&[], &p, &d.join("o10.csv"), std::slice::from_ref(chrm)));
    let expected = format!("cut.vcf.gz: line {}: cannot read", lines + 1);
    assert!(e.contains(&expected), "{e}, expected {expected}");
    assert!(!d.join("o10.csv").exists(), "no partial output");
    let e = error_of(run(
        &[],
        &d.join("missing.vcf"),
        &d.join("o7.csv"),
        std::slice::from_ref(chrm),
    ));
    assert!(e.contains("missing.vcf"), "{e}");
    let e = error_of(run(&[], &vcf, &d.join("o8.csv"), &[d.join("missing.bam")]));
    assert!(e.contains("missing.bam"), "{e}");
    let out = seqfarm()
        .args(["snp-pileup", "-r", "x"])
        .arg(&vcf)
        .arg(d.join("o9.csv"))
        .arg(chrm)
        .output()
        .unwrap();
    assert!(!out.status.success());
}

#[test]
fn plain_vcf_standard_output_and_verbose() {
    let dir = tempfile::tempdir().unwrap();
    let bams = stage(dir.path(), &[bam("chm1.bam")]);
    let vcf = dir.path().join("sites.vcf");
    std::fs::write(&vcf, file_bytes(&snp("chm1_sites.vcf.gz"))).unwrap();
    let out = run(&["-P7", "-q20", "-v"], &vcf, Path::new("-"), &bams);
    assert!(out.status.success());
    assert!(out.stdout == expected("chm1_single"));
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(log.contains("Max per-file depth set to 4000."), "{log}");
}

#[test]
fn long_cigars_pile_up_as_their_real_cigar() {
    // The same reads twice: once with a 66,002-operation CIGAR (=/X alternating, an
    // insertion and a deletion) that samtools keeps in the CG tag, once with the
    // equivalent 5-operation CIGAR (M for =/X). htslib reads CG, so both pile up alike.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let bams = stage(d, &[bam("long_cigar.bam"), bam("long_cigar_short.bam")]);
    let mut vcf = String::from(
        "##fileformat=VCFv4.2\n##contig=<ID=c1,length=70000>\n\
         #CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\n",
    );
    let sites: Vec<u32> = (20..70_000)
        .step_by(97)
        .chain(40_099..40_110)
        .chain(66_100..66_110)
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    for pos in &sites {
        vcf.push_str(&format!("c1\t{pos}\t.\tA\tC\t.\t.\t.\n"));
    }
    let vcf_path = d.join("long.vcf");
    std::fs::write(&vcf_path, vcf).unwrap();
    for threads in ["1", "2"] {
        let args = ["-t", threads];
        let long = pileup(d, "", &args, &vcf_path, &bams[..1]);
        let short = pileup(d, "", &args, &vcf_path, &bams[1..]);
        assert!(
            long == short,
            "{threads} threads: the CG CIGAR piles up otherwise"
        );
        // Every site where the long read has a base (101 to 66105, less the deletion at
        // 40101-40105) has a count.
        let text = String::from_utf8(long).unwrap();
        let covered = text
            .lines()
            .skip(1)
            .filter(|l| {
                let f: Vec<&str> = l.split(',').collect();
                let pos: i64 = f[1].parse().unwrap();
                let depth: i64 = f[4..8].iter().map(|v| v.parse::<i64>().unwrap()).sum();
                (200..66_000).contains(&pos) && depth > 0
            })
            .count();
        let want = sites
            .iter()
            .filter(|&&p| (200..66_000).contains(&p) && !(40_101..=40_105).contains(&p))
            .count();
        assert_eq!(covered, want, "{text}");
    }
    if crate::support::peer("samtools") {
        // samtools reads the CG tag too: the two files have the same depth everywhere.
        let depth = |bam: &Path| {
            std::process::Command::new("samtools")
                .args(["depth", "-a"])
                .arg(bam)
                .output()
                .unwrap()
                .stdout
        };
        assert!(depth(&bams[0]) == depth(&bams[1]));
    }
}

#[test]
fn vcf_errors_name_their_line_whatever_the_tasks() {
    // Lines are parsed in tasks of their own: a bad line and a contig out of order must
    // still be named by their line in the file, the first of them in file order.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let bams = stage(d, &[bam("na12878_chrM.bam")]);
    let header = "##fileformat=VCFv4.2\n##x\n#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\n";
    let body: String = (1..=300)
        .map(|i| format!("chrM\t{}\t.\tA\tC\t.\t.\t.\n", i * 50))
        .collect();
    let cases = [
        (
            "pos.vcf",
            format!("{header}{body}chrM\tx\t.\tA\tC\n{body}"),
            "line 304",
            "POS",
        ),
        (
            "order.vcf",
            format!("{header}{body}chrY\t1\t.\tA\tC\n{body}chrM\tx\n"),
            "line 305",
            "order",
        ),
    ];
    for (name, text, line, what) in cases {
        let vcf = d.join(name);
        std::fs::write(&vcf, text).unwrap();
        for extra in [
            &[][..],
            &["-t", "3", "--task-span", "200", "--task-bytes", "1"],
        ] {
            let out = d.join(format!("o{}.csv", rand_suffix()));
            let e = error_of(run(extra, &vcf, &out, &bams));
            assert!(
                e.contains(name) && e.contains(&format!("{line}:")) && e.contains(what),
                "{extra:?}: {e}"
            );
        }
    }
}
