//! `seqfarm snp-pileup` warns of the VCF sites FACETS snp-pileup skips or misreads
//! silently (contigs not in the BAMs, sites out of order, lowercase REF letters), and
//! writes the rows exactly as snp-pileup does all the same.

use std::path::{Path, PathBuf};

use crate::snp_pileup::{expected, run, snp};
use crate::support::{file_bytes, stage};

/// The body lines of the bundled slice VCF and its header.
fn slice_vcf() -> (String, Vec<String>) {
    let text = String::from_utf8(file_bytes(&snp("sites_slice.vcf.gz"))).unwrap();
    let (header, body): (Vec<&str>, Vec<&str>) = text.lines().partition(|l| l.starts_with('#'));
    let header = header.iter().map(|l| format!("{l}\n")).collect();
    (header, body.iter().map(|l| l.to_string()).collect())
}

fn write_vcf(dir: &Path, name: &str, header: &str, body: &[String]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, format!("{header}{}\n", body.join("\n"))).unwrap();
    path
}

/// Runs snp-pileup; returns the rows and standard error.
fn rows_and_warnings(dir: &Path, args: &[&str], vcf: &Path, bams: &[PathBuf]) -> (Vec<u8>, String) {
    let out = dir.join(format!(
        "{}.csv",
        vcf.file_stem().unwrap().to_string_lossy()
    ));
    let _ = std::fs::remove_file(&out);
    let result = run(args, vcf, &out, bams);
    let stderr = String::from_utf8_lossy(&result.stderr).into_owned();
    assert!(result.status.success(), "{stderr}");
    (std::fs::read(&out).unwrap(), stderr)
}

fn slice_bams(dir: &Path) -> Vec<PathBuf> {
    stage(dir, &[snp("normal_slice.bam"), snp("tumor_slice.bam")])
}

/// Whether a body line is a biallelic SNV, snp-pileup's kind of site.
fn is_snv(line: &str) -> bool {
    let f: Vec<&str> = line.split('\t').collect();
    f.len() > 4 && f[3].len() == 1 && f[4].len() == 1 && f[4] != "."
}

#[test]
fn unmatched_contigs_are_warned_about() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let bams = slice_bams(d);
    let (header, body) = slice_vcf();
    let renamed: Vec<String> = body
        .iter()
        .filter(|l| l.starts_with("20\t"))
        .enumerate()
        .map(|(i, l)| format!("{}{}", ["21", "Chr20", "CHR20"][i % 3], &l[2..]))
        .collect();
    let sites = renamed.iter().filter(|l| is_snv(l)).count();
    let vcf = write_vcf(d, "renamed.vcf", &header, &renamed);
    let (rows, stderr) = rows_and_warnings(d, &[], &vcf, &bams);
    let header_only = expected("slice_default");
    let header_only = &header_only[..=header_only.iter().position(|&b| b == b'\n').unwrap()];
    assert_eq!(rows, header_only, "the rows stay FACETS' (none)");
    assert!(
        stderr.contains("seqfarm: warning: snp-pileup: ")
            && stderr.contains("renamed.vcf")
            && stderr.contains(&format!(
                "{sites} sites skipped: their contig is not in the BAMs"
            ))
            && stderr.contains("VCF contigs: 21, Chr20, CHR20; BAM references: 20)"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn exact_contig_names_dropped_by_the_chr_rule_are_warned_about() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let bams = stage(d, &[snp("chr_rule.bam")]);
    let vcf = write_vcf(
        d,
        "chr_rule.vcf",
        "##fileformat=VCFv4.2\n#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\n",
        &[
            "chr20_1_260000\t120\t.\tA\tC\t.\t.\t.".into(),
            "chr20_1_260000\t130\t.\tA\tG\t.\t.\t.".into(),
        ],
    );
    for threads in ["1", "2"] {
        let (rows, stderr) = rows_and_warnings(d, &["-t", threads], &vcf, &bams);
        assert_eq!(
            rows,
            b"Chromosome,Position,Ref,Alt,File1R,File1A,File1E,File1D\n"
        );
        assert!(
            stderr.contains("2 sites skipped: their contig is not in the BAMs")
                && stderr
                    .contains("VCF contigs: chr20_1_260000; BAM references: 1, chr20_1_260000)")
                && stderr.contains("chr20_1_260000 is a BAM reference by that name")
                && stderr.contains("the first (1) starts with `chr`"),
            "{stderr}"
        );
    }
}

#[test]
fn shuffled_vcf_sites_are_counted_as_out_of_order() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let bams = slice_bams(d);
    let (header, body) = slice_vcf();
    let mut shuffled: Vec<String> = body.into_iter().filter(|l| l.starts_with("20\t")).collect();
    // A fixed shuffle: every seventh line in turn.
    let n = shuffled.len();
    shuffled = (0..n).map(|i| shuffled[(i * 7) % n].clone()).collect();
    assert_ne!(n % 7, 0);
    let mut furthest = 0u64;
    let mut behind = 0;
    for line in shuffled.iter().filter(|l| is_snv(l)) {
        let pos: u64 = line.split('\t').nth(1).unwrap().parse().unwrap();
        if pos < furthest {
            behind += 1;
        } else {
            furthest = pos;
        }
    }
    let vcf = write_vcf(d, "shuffled.vcf", &header, &shuffled);
    let mut outputs = Vec::new();
    for args in [
        &["-t", "1"][..],
        &["-t", "2", "--task-bytes", "2000"],
        &["-P", "50", "-t", "2"],
    ] {
        let (rows, stderr) = rows_and_warnings(d, args, &vcf, &bams);
        assert!(
            stderr.contains(&format!("{behind} sites skipped as out of order")),
            "{args:?}: {behind} expected: {stderr}"
        );
        outputs.push(rows);
    }
    let all = expected("slice_default").split(|&b| b == b'\n').count();
    let kept = outputs[0].split(|&b| b == b'\n').count();
    assert!(kept * 2 < all, "{kept} rows kept of {all}");
    assert_eq!(outputs[0], outputs[1], "task boundaries change no row");
}

#[test]
fn lowercase_ref_alleles_are_warned_about_and_counted_as_facets_does() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let bams = slice_bams(d);
    let (header, body) = slice_vcf();
    let lowered: Vec<String> = body
        .iter()
        .map(|l| {
            let mut f: Vec<String> = l.split('\t').map(String::from).collect();
            f[3] = f[3].to_ascii_lowercase();
            f.join("\t")
        })
        .collect();
    let lowercase = body.iter().filter(|l| is_snv(l)).count();
    let vcf = write_vcf(d, "lowered.vcf", &header, &lowered);
    let (rows, stderr) = rows_and_warnings(d, &[], &vcf, &bams);
    assert!(
        stderr.contains(&format!("{lowercase} sites have a lowercase REF allele")),
        "{stderr}"
    );
    // FACETS compares the reads' uppercase bases with the letter as written: no read is
    // REF, those that were count as ALT when the ALT letter is the REF's, else as errors.
    let golden = String::from_utf8(expected("slice_default")).unwrap();
    let mut want = String::new();
    for (i, line) in golden.lines().enumerate() {
        let mut f: Vec<String> = line.split(',').map(String::from).collect();
        if i > 0 {
            let same = f[2] == f[3];
            f[2] = f[2].to_ascii_lowercase();
            for file in (4..f.len()).step_by(4) {
                let count = |s: &String| s.parse::<u64>().unwrap();
                let refs = count(&f[file]);
                let into = if same { file + 1 } else { file + 2 };
                f[into] = (count(&f[into]) + refs).to_string();
                f[file] = "0".into();
            }
        }
        want.push_str(&f.join(","));
        want.push('\n');
    }
    assert_eq!(String::from_utf8(rows).unwrap(), want);
}
