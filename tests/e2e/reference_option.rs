//! `-T/--reference` (`-f/--fasta` in `depth`) that cannot be opened is an error naming
//! the file in every command that takes it, whatever the input (BAM or CRAM), before
//! anything is written.

use crate::support::{data, seqfarm};

#[test]
fn a_missing_reference_is_an_error_for_bam_input() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let bam = data("snp-pileup/normal_slice.bam");
    let bam = bam.to_str().unwrap();
    let vcf = data("snp-pileup/sites_slice.vcf.gz");
    let missing = d.join("nonexistent.fa");
    let missing = missing.to_str().unwrap();
    let here = d.to_str().unwrap();
    let out = |name: &str| d.join(name).to_str().unwrap().to_string();
    let cases: Vec<(Vec<String>, String)> = vec![
        (
            vec![
                "flagstat".into(),
                "-T".into(),
                missing.into(),
                "-o".into(),
                out("f.txt"),
                bam.into(),
            ],
            out("f.txt"),
        ),
        (
            vec![
                "count".into(),
                "--window".into(),
                "1000".into(),
                "--reference".into(),
                missing.into(),
                "-o".into(),
                out("c.tsv"),
                bam.into(),
            ],
            out("c.tsv"),
        ),
        (
            vec![
                "depth".into(),
                "--window".into(),
                "1000".into(),
                "-f".into(),
                missing.into(),
                "-o".into(),
                out("d"),
                bam.into(),
            ],
            out("d.mosdepth.summary.txt"),
        ),
        (
            vec![
                "snp-pileup".into(),
                "-T".into(),
                missing.into(),
                vcf.to_str().unwrap().into(),
                out("s.csv"),
                bam.into(),
            ],
            out("s.csv"),
        ),
        // A directory cannot be read as a FASTA either.
        (
            vec![
                "flagstat".into(),
                "-T".into(),
                here.into(),
                "-o".into(),
                out("g.txt"),
                bam.into(),
            ],
            out("g.txt"),
        ),
    ];
    for (args, written) in cases {
        let result = seqfarm().args(&args).output().expect("seqfarm runs");
        let stderr = String::from_utf8_lossy(&result.stderr);
        assert_eq!(result.status.code(), Some(1), "{args:?}: {stderr}");
        let named = if args.iter().any(|a| a == here) {
            here
        } else {
            missing
        };
        assert!(
            stderr.starts_with("seqfarm: error: ")
                && stderr.contains(&format!("{named}: cannot open the reference FASTA")),
            "{args:?}: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert!(
            !std::path::Path::new(&written).exists(),
            "{args:?} wrote {written}"
        );
        assert_eq!(
            std::fs::read_dir(d).unwrap().count(),
            0,
            "{args:?}: nothing written"
        );
    }
}
