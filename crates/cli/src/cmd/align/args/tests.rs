use clap::Parser;

use super::*;

#[derive(Parser)]
struct Cli {
    #[command(flatten)]
    align: AlignArgs,
}

fn parse(line: &str) -> Result<AlignArgs, clap::Error> {
    let words = std::iter::once("align").chain(line.split_whitespace());
    Cli::try_parse_from(words).map(|c| c.align)
}

fn ok(line: &str) -> AlignArgs {
    let args = parse(line).unwrap_or_else(|e| panic!("{line}: {e}"));
    args.check().unwrap_or_else(|e| panic!("{line}: {e}"));
    args
}

fn rejected(line: &str) -> String {
    match parse(line) {
        Err(e) => e.to_string(),
        Ok(args) => args.check().expect_err(line).to_string(),
    }
}

#[test]
fn pipeline_forms_parse() {
    let a = ok(
        "-x idx -1 a.fq.gz -2 b.fq.gz -S out.sam --score-min L,0,-0.2 --mp 4 \
                --rdg 5,3 -X 1000 -3 5 -p 8 --local --un-conc-gz un%.fq.gz --score-min G,20,8",
    );
    let s = a.scoring().unwrap();
    assert_eq!(s.mode, AlignMode::Local);
    assert_eq!((s.mismatch_max, s.mismatch_min), (4, 2));
    assert_eq!(
        s.min_score,
        LengthFunction::Log {
            constant: 20.0,
            coefficient: 8.0
        }
    );
    ok("-x idx -U r.fq --very-sensitive-local");
    assert_eq!(a.pairing().unwrap().max_fragment, 1000);
    assert_eq!(a.trim3, 5);
    assert_eq!(a.threads, Some(8));
    let files = a.read_file_specs().unwrap();
    assert_eq!(files.len(), 1);
    assert_eq!(files[0].path, PathBuf::from("un%.fq.gz"));
    assert_eq!(
        files[0].compression,
        super::super::mate_files::ReadFileCompression::Gzip
    );
    let a = ok(
        "-x idx -U r.fq --score-min=L,-0.6,-0.6 --mp=6,2 -t --threads=2 --no-hd \
                -I 100 --maxins=800 --rf -k 5 --n-ceil 0,0.15 -i S,1,1.15 -N 1 -L 20",
    );
    assert!(a.time && a.no_head);
    assert_eq!(a.threads, Some(2));
    assert_eq!(a.params().unwrap().report, 5);
    assert_eq!(a.pairing().unwrap().orientation, MateOrientation::Rf);
    assert_eq!(
        a.scoring().unwrap().n_ceiling,
        LengthFunction::Linear {
            constant: 0.0,
            coefficient: 0.15
        }
    );
    let a = ok("-x idx --interleaved r.fq --ignore-quals --nofw --seed 7 --no-head --qupto 10");
    let p = a.params().unwrap();
    assert!(!p.align_forward && p.align_reverse);
    assert_eq!(p.tie_seed, 7);
    assert_eq!(a.upto, Some(10));
    ok(
        "-x idx -U r.fq -a --reorder --mm --qc-filter --non-deterministic --no-1mm-upfront \
        --dpad 15 -D 20 -R 3 --met-stderr --met-file m.txt --met 5 --quiet --xeq \
        --omit-sec-seq --sam-no-qname-trunc --soft-clipped-unmapped-tlen \
        --sam-append-comment --rg-id g --rg SM:x --rg PL:illumina --phred33 \
        --un-bz2 u.bz2 --al-conc c%.fq --dovetail --no-contain --no-overlap \
        --no-mixed --no-discordant --ff -s 4 --trim-to 5:50 --gbar 6 --np 2 --rfg 6,2 --ma 0",
    );
    // The wrapper's LZ4 read files (not in bowtie2's help) are a clear error.
    assert!(rejected("-x idx -U r.fq --al-lz4 a.lz4").contains("LZ4"));
}

#[test]
fn scoring_options_follow_bowtie2() {
    // bowtie2 ignores the bonus end to end (after checking it against --score-min).
    let a = ok("-x i -U r --ma 3 --score-min L,0,1");
    assert_eq!(a.scoring().unwrap().match_bonus, 0);
    assert!(rejected("-x i -U r --ma 3").contains("match bonus"));
    let a = ok("-x i -U r --local --ma 3 --mp 5,1 --np 2 --rdg 7 --rfg 4,2");
    let s = a.scoring().unwrap();
    assert_eq!(s.match_bonus, 3);
    assert_eq!((s.mismatch_max, s.mismatch_min, s.n_penalty), (5, 1, 2));
    assert_eq!((s.read_gap_open, s.read_gap_extend), (7, 3));
    assert_eq!((s.ref_gap_open, s.ref_gap_extend), (4, 2));
    assert_eq!(ok("-x i -U r --mp 1").scoring().unwrap().mismatch_min, 1);
    assert!(rejected("-x i -U r --mp 2,5").contains("--mp"));
    assert!(rejected("-x i -U r --mp x").contains("--mp"));
    assert!(rejected("-x i -U r --rdg 5,3,1").contains("--rdg"));
    assert!(rejected("-x i -U r --ma 100 --local").contains("match bonus"));
    assert!(rejected("-x i -U r --score-min L,0,-100").contains("--score-min"));
    assert!(rejected("-x i -U r --score-min Q,1").contains("--score-min"));
    assert!(rejected("-x i -U r --rfg 5,0").contains("extension"));
}

#[test]
fn conflicts_are_errors() {
    for line in [
        "-x i -U r --local --end-to-end",
        "-x i -U r --very-fast-local --end-to-end",
        "-x i -U r --fast --very-sensitive",
        "-x i -U r -k 3 -a",
        "-x i -1 a -2 b --fr --rf",
        "-x i -1 a -2 b -I 600 -X 500",
        "-x i -1 a",
        "-x i -1 a,b -2 c",
        "-x i -U r --nofw --norc",
        "-x i -U r -f --tab5",
        "-x i -U r --un u --un-gz v",
        "-x i -U r --phred33 --phred64",
        "-x i -U r --rg SM:x",
        "-x i -U r -S a.sam -o b.bam",
        "-x i",
        "-x i -U r -N 2",
        "-x i -U r -L 40",
        "-x i -U r --trim-to 4:20",
        "-x i -U r -F k:0,i:1",
    ] {
        rejected(line);
    }
}

#[test]
fn read_groups_are_checked() {
    let a = ok("-x i -U r --rg-id g1 --rg SM:s --rg LB:lib");
    assert_eq!(
        a.read_group_line().unwrap().unwrap(),
        "@RG\tID:g1\tSM:s\tLB:lib"
    );
    assert!(rejected("-x i -U r --rg-id g1 --rg ID:g2").contains("--rg-id"));
    assert!(rejected("-x i -U r --rg-id g1 --rg sample").contains("TAG:VALUE"));
    assert!(rejected("-x i -U r --rg-id g1 --rg SAM:x").contains("TAG:VALUE"));
    assert!(rejected("-x i -U r --rg-id g1 --rg 1M:x").contains("TAG:VALUE"));
}

#[test]
fn align_keeps_t_for_time() {
    let a = ok("-x i -U r -t -p 3");
    assert!(a.time);
    assert_eq!(a.threads, Some(3));
    assert!(parse("-x i -U r -t 4").is_err());
}
