//! CRAM input: `flagstat`, `count`, `depth` and `snp-pileup` give the same bytes on a
//! CRAM as on the same data as BAM (CRAMs written here by samtools with an external
//! reference, 3.1 codecs, several slices per container, a generated or no reference,
//! and the committed ones with an embedded reference), at 1 and 2 threads, with and
//! without the `.crai`; `flagstat` also as live `samtools flagstat`; BAMs and CRAMs mixed;
//! damaged CRAMs and wrong references are clear errors.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::{data, peer, seqfarm, succeeded, window_for};

/// The samtools `--output-fmt-option`s of each CRAM variant made from a test BAM.
const VARIANTS: [(&str, &str, &[&str]); 5] = [
    ("sars_30", "bam/sarscov2.bam", &[]),
    (
        "sars_31",
        "bam/sarscov2.bam",
        &[
            "version=3.1",
            "use_bzip2=1",
            "use_lzma=1",
            "seqs_per_slice=100",
            "slices_per_container=3",
        ],
    ),
    (
        "sars_31_fqz",
        "bam/sarscov2.bam",
        &[
            "version=3.1",
            "use_fqz=1",
            "use_tok=1",
            "use_arith=1",
            "seqs_per_slice=300",
        ],
    ),
    (
        "chrM_generated_ref",
        "bam/na12878_chrM.bam",
        &["embed_ref=2"],
    ),
    ("long_cigar_no_ref", "bam/long_cigar.bam", &["no_ref=1"]),
];

/// The committed CRAMs with an embedded reference (no reference file needed).
const EMBEDDED: [&str; 3] = [
    "cram/normal_slice.cram",
    "cram/tumor_slice.cram",
    "cram/normal_slice_containers.cram",
];

/// A CRAM and the same data as BAM.
struct Pair {
    name: String,
    cram: PathBuf,
    bam: PathBuf,
}

fn samtools() -> Command {
    Command::new("samtools")
}

/// `tests/data/cram/sarscov2.fa.gz` decompressed into `dir`.
fn sars_reference(dir: &Path) -> PathBuf {
    let fasta = dir.join("sarscov2.fa");
    if !fasta.exists() {
        let text = crate::support::file_bytes(&data("cram/sarscov2.fa.gz"));
        std::fs::write(&fasta, text).unwrap();
    }
    fasta
}

/// Every CRAM variant with its BAM, made in `dir` (each CRAM indexed).
fn pairs(dir: &Path) -> Vec<Pair> {
    let reference = sars_reference(dir);
    let mut pairs = Vec::new();
    for (name, bam, options) in VARIANTS {
        let cram = dir.join(format!("{name}.cram"));
        let mut command = samtools();
        command.args(["view", "--no-PG", "-C"]);
        if name.starts_with("sars") {
            command.arg("-T").arg(&reference);
        }
        for option in options {
            command.args(["--output-fmt-option", option]);
        }
        succeeded(command.arg("-o").arg(&cram).arg(data(bam)));
        succeeded(samtools().arg("index").arg(&cram));
        pairs.push(Pair {
            name: name.to_string(),
            cram,
            bam: data(bam),
        });
    }
    for rel in EMBEDDED {
        let cram = dir.join(Path::new(rel).file_name().unwrap());
        std::fs::copy(data(rel), &cram).unwrap();
        succeeded(samtools().arg("index").arg(&cram));
        let bam = cram.with_extension("bam");
        succeeded(
            samtools()
                .args(["view", "--no-PG", "-b", "-o"])
                .arg(&bam)
                .arg(&cram),
        );
        succeeded(samtools().arg("index").arg(&bam));
        pairs.push(Pair {
            name: rel.to_string(),
            cram,
            bam,
        });
    }
    pairs
}

/// Removes the `.crai` of `cram` (`with` false) or puts it back (true).
fn crai(cram: &Path, with: bool) {
    let index = PathBuf::from(format!("{}.crai", cram.display()));
    let away = PathBuf::from(format!("{}.crai.away", cram.display()));
    if with && away.exists() {
        std::fs::rename(&away, &index).unwrap();
    } else if !with && index.exists() {
        std::fs::rename(&index, &away).unwrap();
    }
}

/// Runs `check(threads, with_index)` at 1 and 2 threads, with and without the `.crai` of
/// `cram`, and leaves the index in place.
fn across_threads_and_index(cram: &Path, mut check: impl FnMut(&str, bool)) {
    for with_index in [true, false] {
        crai(cram, with_index);
        for threads in ["1", "2"] {
            check(threads, with_index);
        }
    }
    crai(cram, true);
}

/// Writes `text` to `dir/name`; returns the path as a string, for an argument.
fn write_bed(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

/// `seqfarm COMMAND -t T OPTIONS` on the CRAM of `pair`, at 1 and 2 threads, with and
/// without its `.crai`: the standard output is `want` each time.
fn same_on_the_cram(pair: &Pair, command: &str, options: &[&str], want: &[u8]) {
    across_threads_and_index(&pair.cram, |threads, with_index| {
        let got = stdout_of(
            &[&[command, "-t", threads], options].concat(),
            &[&pair.cram],
        );
        assert_eq!(
            String::from_utf8_lossy(&got),
            String::from_utf8_lossy(want),
            "{} {command} {options:?} -t {threads} crai {with_index}",
            pair.name
        );
    });
}

/// The standard output of `seqfarm ARGS INPUTS`.
fn stdout_of(args: &[&str], inputs: &[&Path]) -> Vec<u8> {
    succeeded(seqfarm().args(args).args(inputs)).stdout
}

#[test]
fn flagstat_on_cram_is_flagstat_on_the_bam_and_samtools() {
    if !peer("samtools") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for pair in pairs(dir.path()) {
        for format in ["default", "json", "tsv"] {
            let want = stdout_of(&["flagstat", "-O", format], &[&pair.bam]);
            let live = succeeded(
                samtools()
                    .args(["flagstat", "-O", format])
                    .arg(&pair.cram)
                    .env("REF_PATH", ":"),
            )
            .stdout;
            assert_eq!(
                String::from_utf8_lossy(&live),
                String::from_utf8_lossy(&want),
                "{} {format}: samtools on the CRAM",
                pair.name
            );
            same_on_the_cram(&pair, "flagstat", &["-O", format], &want);
        }
    }
}

#[test]
fn count_on_cram_is_count_on_the_bam() {
    if !peer("samtools") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let bed = write_bed(
        dir.path(),
        "regions.bed",
        "NC_045512.2\t0\t5000\nNC_045512.2\t2500\t29903\n20\t1000000\t1030000\n\
         20\t1040000\t1041000\nchrM\t100\t9000\nc1\t10\t60000\n",
    );
    // Narrow regions: only the containers around them are decoded.
    let narrow = write_bed(
        dir.path(),
        "narrow.bed",
        "NC_045512.2\t12000\t12100\nNC_045512.2\t29800\t29903\nchrM\t15000\t15100\n",
    );
    for pair in pairs(dir.path()) {
        let (wide, narrow_windows) = (window_for(&pair.bam, 1000), window_for(&pair.bam, 250));
        let option_sets: [&[&str]; 5] = [
            &["--window", &wide],
            &["--window", &narrow_windows, "-q", "20"],
            &["--bed", &bed],
            &["--bed", &bed, "-D", "-F", "-p", "-q", "5"],
            &["--bed", &narrow],
        ];
        for options in option_sets {
            let want = stdout_of(&[&["count"], options].concat(), &[&pair.bam]);
            same_on_the_cram(&pair, "count", options, &want);
        }
    }
}

#[test]
fn bams_and_crams_mix_in_count_and_snp_pileup() {
    if !peer("samtools") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let all = pairs(dir.path());
    let find = |name: &str| all.iter().find(|p| p.name == name).unwrap();
    let (normal, tumor) = (find(EMBEDDED[0]), find(EMBEDDED[1]));
    let windows = ["count", "--window", "5000"];
    let want = stdout_of(&windows, &[&normal.bam, &tumor.bam]);
    for inputs in [[&normal.cram, &tumor.bam], [&normal.bam, &tumor.cram]] {
        let inputs: Vec<&Path> = inputs.iter().map(|p| p.as_path()).collect();
        assert!(stdout_of(&windows, &inputs) == want, "{inputs:?}");
    }
    let vcf = data("snp-pileup/sites_slice.vcf.gz");
    let pileup = |name: &str, inputs: [&Path; 2]| {
        let out = dir.path().join(name);
        succeeded(seqfarm().arg("snp-pileup").arg(&vcf).arg(&out).args(inputs));
        std::fs::read(out).unwrap()
    };
    let want = pileup("bams.csv", [&normal.bam, &tumor.bam]);
    assert_eq!(
        pileup("mixed.csv", [&normal.bam, &tumor.cram]),
        want,
        "tumour CRAM, normal BAM"
    );
    let sars = find("sars_30");
    let out = seqfarm()
        .args(["count", "--window", "1000"])
        .arg(&sars.cram)
        .arg(&normal.bam)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("same reference"),
        "{err}"
    );
}

#[test]
fn snp_pileup_on_crams_is_snp_pileup_on_the_bams() {
    if !peer("samtools") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let all = pairs(dir.path());
    let find = |name: &str| all.iter().find(|p| p.name == name).unwrap();
    let cases: [(&str, &[&str], &str, Vec<&Pair>); 5] = [
        (
            "slices",
            &[],
            "snp-pileup/sites_slice.vcf.gz",
            vec![find(EMBEDDED[0]), find(EMBEDDED[1])],
        ),
        (
            "slices_options",
            &["-A", "-x", "-q1", "-Q13", "-r2,2", "-d", "8"],
            "snp-pileup/sites_slice.vcf.gz",
            vec![find(EMBEDDED[0]), find(EMBEDDED[1])],
        ),
        // 32 containers, each thread decoding those its replays reach.
        (
            "containers",
            &["-q15", "-Q20", "--task-bytes", "20000"],
            "snp-pileup/sites_slice.vcf.gz",
            vec![find(EMBEDDED[2]), find(EMBEDDED[1])],
        ),
        (
            "containers_pseudo",
            &["-P", "100", "--task-bytes", "20000"],
            "snp-pileup/sites_slice.vcf.gz",
            vec![find(EMBEDDED[2]), find(EMBEDDED[1])],
        ),
        (
            "chrM",
            &["-Q20", "-P", "101"],
            "snp-pileup/chrM_sites.vcf.gz",
            vec![find("chrM_generated_ref")],
        ),
    ];
    for (name, options, vcf, pairs) in cases {
        let run = |tag: &str, threads: &str, inputs: Vec<&Path>| {
            let out = dir.path().join(format!("{name}.{tag}.{threads}.csv"));
            succeeded(
                seqfarm()
                    .arg("snp-pileup")
                    .args(["-t", threads])
                    .args(options)
                    .arg(data(vcf))
                    .arg(&out)
                    .args(inputs),
            );
            std::fs::read(out).unwrap()
        };
        let want = run("bam", "2", pairs.iter().map(|p| p.bam.as_path()).collect());
        for with_index in [true, false] {
            for p in &pairs {
                crai(&p.cram, with_index);
            }
            for threads in ["1", "2"] {
                let tag = format!("cram{with_index}");
                let got = run(
                    &tag,
                    threads,
                    pairs.iter().map(|p| p.cram.as_path()).collect(),
                );
                assert!(got == want, "{name} -t {threads} crai {with_index}");
            }
        }
    }
}

#[test]
fn depth_on_cram_is_depth_on_the_bam() {
    if !peer("samtools") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let bed = write_bed(
        dir.path(),
        "regions.bed",
        "NC_045512.2\t0\t5000\tA\n20\t1000000\t1030000\tB\nchrM\t100\t9000\tC\nc1\t10\t60000\tD\n",
    );
    let files = [
        "regions.bed.gz",
        "mosdepth.summary.txt",
        "mosdepth.global.dist.txt",
        "mosdepth.region.dist.txt",
    ];
    for pair in pairs(dir.path()) {
        let window = window_for(&pair.bam, 700);
        let option_sets: [&[&str]; 2] = [
            &["--window", &window, "-T", "1,10,20", "-Q", "10"],
            &["--bed", &bed, "-T", "0,5"],
        ];
        for (k, options) in option_sets.iter().enumerate() {
            let run = |tag: &str, threads: &str, input: &Path| {
                let prefix = dir.path().join(format!("d{k}.{tag}.{threads}"));
                succeeded(
                    seqfarm()
                        .args(["depth", "-t", threads])
                        .args(*options)
                        .arg("-o")
                        .arg(&prefix)
                        .arg(input),
                );
                files.map(|f| std::fs::read(format!("{}.{f}", prefix.display())).unwrap())
            };
            let name = pair.name.replace('/', "_");
            let want = run(&format!("{name}.bam"), "2", &pair.bam);
            across_threads_and_index(&pair.cram, |threads, with_index| {
                let tag = format!("{name}.cram{with_index}");
                let got = run(&tag, threads, &pair.cram);
                assert!(
                    got == want,
                    "{} {options:?} -t {threads} crai {with_index}",
                    pair.name
                );
            });
        }
    }
}

/// `seqfarm ARGS` on `input`: fails with a message containing every `want`.
fn fails_with(args: &[&str], input: &Path, want: &[&str]) {
    let out = seqfarm().args(args).arg(input).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{}: succeeded", input.display());
    assert!(!err.contains("panicked"), "{err}");
    for w in want {
        assert!(err.contains(w), "{}: {err:?} lacks {w:?}", input.display());
    }
}

#[test]
fn damaged_crams_and_wrong_references_are_clear_errors() {
    if !peer("samtools") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let reference = sars_reference(d);
    let good = d.join("good.cram");
    succeeded(
        samtools()
            .args(["view", "--no-PG", "-C", "-T"])
            .arg(&reference)
            .args(["--output-fmt-option", "seqs_per_slice=200", "-o"])
            .arg(&good)
            .arg(data("bam/sarscov2.bam")),
    );
    let bytes = std::fs::read(&good).unwrap();

    let truncated = d.join("truncated.cram");
    std::fs::write(&truncated, &bytes[..bytes.len() - 1000]).unwrap();
    fails_with(
        &["flagstat"],
        &truncated,
        &["truncated.cram", "end-of-file container"],
    );

    // A corrupt byte inside the blocks of the second container.
    let corrupt = d.join("corrupt.cram");
    let mut damaged = bytes.clone();
    let at = bytes.len() / 2;
    damaged[at] ^= 0x5a;
    damaged[at + 1] ^= 0x5a;
    std::fs::write(&corrupt, &damaged).unwrap();
    for command in [&["flagstat"][..], &["count", "--window", "1000"]] {
        fails_with(
            command,
            &corrupt,
            &["corrupt.cram", "container: ", "(at byte offset"],
        );
    }

    // An index of another CRAM.
    let other = d.join("other.cram");
    succeeded(
        samtools()
            .args(["view", "--no-PG", "-C", "-T"])
            .arg(&reference)
            .arg("-o")
            .arg(&other)
            .arg(data("bam/sarscov2.bam")),
    );
    succeeded(samtools().arg("index").arg(&other));
    let stale = d.join("stale.cram");
    std::fs::copy(&good, &stale).unwrap();
    std::fs::copy(d.join("other.cram.crai"), d.join("stale.cram.crai")).unwrap();
    fails_with(
        &["flagstat"],
        &stale,
        &["stale.cram.crai", "samtools index"],
    );

    // No reference: the UR: file moved away. FLAG statistics and coverage need none (as
    // for samtools flagstat); the bases of a pileup do.
    let moved = d.join("moved.fa");
    std::fs::rename(&reference, &moved).unwrap();
    let without = succeeded(seqfarm().arg("flagstat").arg(&good));
    let samtools_without = succeeded(samtools().arg("flagstat").arg(&good));
    assert_eq!(without.stdout, samtools_without.stdout);
    let windows = ["count", "--window", "1000"];
    assert_eq!(
        succeeded(seqfarm().args(windows).arg(&good)).stdout,
        succeeded(seqfarm().args(windows).arg(data("bam/sarscov2.bam"))).stdout
    );
    let sites = d.join("sites.vcf");
    std::fs::write(
        &sites,
        "##fileformat=VCFv4.2\n#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\nNC_045512.2\t5300\t.\tC\tT\t.\t.\t.\n",
    )
    .unwrap();
    let csv = d.join("pileup.csv");
    let pileup = |extra: &[&str]| -> Vec<String> {
        let mut args: Vec<String> = vec!["snp-pileup".into()];
        args.extend(extra.iter().map(|a| a.to_string()));
        for path in [&sites, &csv, &good] {
            args.push(path.to_str().unwrap().into());
        }
        args
    };
    let args = pileup(&[]);
    fails_with(
        &args.iter().map(String::as_str).collect::<Vec<_>>(),
        &good,
        &[
            "good.cram",
            "NC_045512.2",
            "--reference",
            "container: needs reference sequence",
        ],
    );
    // A reference with other bases (same name and length).
    let wrong = d.join("wrong.fa");
    let text = std::fs::read_to_string(&moved).unwrap();
    let bases: String = text.lines().skip(1).collect();
    std::fs::write(
        &wrong,
        format!(">NC_045512.2\n{}\n", bases.replace('A', "C")),
    )
    .unwrap();
    let args = pileup(&["--reference", wrong.to_str().unwrap()]);
    fails_with(
        &args.iter().map(String::as_str).collect::<Vec<_>>(),
        &good,
        &["wrong.fa", "MD5", "M5"],
    );
    // The right one, by --reference.
    let out = succeeded(
        seqfarm()
            .args(["flagstat", "--reference"])
            .arg(&moved)
            .arg(&good),
    );
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("1250 + 0 in total"));
    // The right one, gzip-compressed, without a .fai, for the bases of a pileup: the
    // pileup of the BAM, and nothing written beside the FASTA.
    let gz = d.join("sarscov2.fa.gz");
    std::fs::copy(data("cram/sarscov2.fa.gz"), &gz).unwrap();
    let args = pileup(&["--force", "--reference", gz.to_str().unwrap()]);
    succeeded(seqfarm().args(&args).arg(&good));
    let from_cram = std::fs::read(&csv).unwrap();
    let bam = data("bam/sarscov2.bam");
    succeeded(
        seqfarm()
            .args(["snp-pileup", "--force"])
            .args([&sites, &csv, &bam, &bam]),
    );
    assert_eq!(from_cram, std::fs::read(&csv).unwrap());
    assert!(!d.join("sarscov2.fa.gz.fai").exists() && !d.join("sarscov2.fa.gz.gzi").exists());

    // The output may not replace the CRAM's index.
    succeeded(samtools().arg("index").arg(&good));
    let out = seqfarm()
        .args(["flagstat", "--reference"])
        .arg(&moved)
        .arg("-o")
        .arg(d.join("good.cram.crai"))
        .arg("--force")
        .arg(&good)
        .output()
        .unwrap();
    assert!(!out.status.success(), "the .crai was overwritten");

    // A CRAM on standard input.
    let out = seqfarm()
        .args(["flagstat", "-"])
        .stdin(std::fs::File::open(&good).unwrap())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("CRAM"), "{err}");
}
