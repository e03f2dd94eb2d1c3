use clap::Parser;
use seqfarm_align::scoring::LengthFunction;
use seqfarm_align::MateOrientation;
use seqfarm_io::reads::InputFormat;

use super::*;

#[derive(Parser)]
struct Cli {
    #[command(flatten)]
    align: AlignArgs,
}

/// `seqfarm align LINE` parsed (options only).
pub(super) fn parse(line: &str) -> Result<AlignArgs, clap::Error> {
    let words = std::iter::once("align").chain(line.split_whitespace());
    Cli::try_parse_from(words).map(|c| c.align)
}

/// `LINE`'s options, parsed and checked.
pub(super) fn ok(line: &str) -> AlignArgs {
    let args = parse(line).unwrap_or_else(|e| panic!("{line}: {e}"));
    args.check().unwrap_or_else(|e| panic!("{line}: {e}"));
    args
}

/// Why `LINE` is refused, by the parser or the check.
pub(super) fn rejected(line: &str) -> String {
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
    assert_eq!(a.pairs.pairing().unwrap().max_fragment, 1000);
    assert_eq!(a.input.trim3, 5);
    assert_eq!(a.performance.threads, Some(8));
    let files = a.read_files.read_file_specs();
    assert_eq!(files.len(), 1);
    assert_eq!(files[0].path, PathBuf::from("un%.fq.gz"));
    assert_eq!(
        files[0].compression,
        seqfarm::cmd::align::ReadFileCompression::Gzip
    );
    let a = ok(
        "-x idx -U r.fq --score-min=L,-0.6,-0.6 --mp=6,2 -t --threads=2 --no-hd \
                -I 100 --maxins=800 --rf -k 5 --n-ceil 0,0.15 -i S,1,1.15 -N 1 -L 20",
    );
    assert!(a.output.time && a.output.no_head);
    assert_eq!(a.performance.threads, Some(2));
    assert_eq!(a.params().unwrap().report, 5);
    assert_eq!(a.pairs.pairing().unwrap().orientation, MateOrientation::Rf);
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
    assert_eq!(a.input.upto, Some(10));
    ok(
        "-x idx -U r.fq -a --reorder --mm --qc-filter --non-deterministic --no-1mm-upfront \
        --dpad 15 -D 20 -R 3 --met-stderr --met-file m.txt --met 5 --quiet --xeq \
        --omit-sec-seq --sam-no-qname-trunc --soft-clipped-unmapped-tlen \
        --sam-append-comment --rg-id g --rg SM:x --rg PL:illumina --phred33 \
        --un-bz2 u.bz2 --al-conc c%.fq --dovetail --no-contain --no-overlap \
        --no-mixed --no-discordant --ff -s 4 --trim-to 5:50 --gbar 6 --np 2 --rfg 6,2 --ma 0 \
        --local",
    );
    // The wrapper's LZ4 read files (not in bowtie2's help) are written as it writes them.
    let files = ok("-x idx -U r.fq --al-lz4 a.lz4")
        .read_files
        .read_file_specs();
    assert_eq!(
        files[0].compression,
        seqfarm::cmd::align::ReadFileCompression::Lz4
    );
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
    // TLEN without clips only means something where there are clips, as bowtie2 says.
    assert!(rejected("-x i -U r --soft-clipped-unmapped-tlen").contains("local alignments"));
    ok("-x i -U r --very-sensitive-local --soft-clipped-unmapped-tlen");
}

#[test]
fn negative_values_get_the_option_s_own_error() {
    for (option, value) in [
        ("--ma", "-2"),
        ("--mp", "-3"),
        ("--rdg", "-5,3"),
        ("-X", "-5"),
        ("-3", "-5"),
        ("-k", "-1"),
        ("-p", "-1"),
    ] {
        let e = rejected(&format!("-x i -1 a -2 b {option} {value}"));
        assert!(!e.contains("a value is required"), "{option} {value}: {e}");
        assert!(
            e.contains(value.split(',').next().unwrap()),
            "{option} {value}: {e}"
        );
    }
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
        "-x i -1 a -2 b -X 2147483648",
        "-x i -1 a -2 b -X 0",
        "-x i -1 a -2 b -I 18446744073709551615",
        "-x i -1 a",
        "-x i -1 a,b -2 c",
        "-x i -U r --nofw --norc",
        "-x i -U r -f --tab5",
        "-x i -U r --un u --un-gz v",
        "-x i -U r -u 0",
        "-x i -U r -S a.output.sam -o b.bam",
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
        a.output.read_group_line().unwrap().unwrap(),
        "@RG\tID:g1\tSM:s\tLB:lib"
    );
    assert!(rejected("-x i -U r --rg-id g1 --rg ID:g2").contains("--rg-id"));
    // As in bowtie2: `--rg ID:x` is the ID when --rg-id is absent, wherever it stands.
    let a = ok("-x i -U r --rg SM:s --rg ID:g1");
    assert_eq!(a.output.read_group_id().unwrap(), Some("g1"));
    assert_eq!(
        a.output.read_group_line().unwrap().unwrap(),
        "@RG\tID:g1\tSM:s"
    );
    assert!(rejected("-x i -U r --rg ID:g1 --rg ID:g2").contains("twice"));
    // Without any ID, bowtie2 writes no @RG line; the fields are still checked.
    let a = ok("-x i -U r --rg SM:x");
    assert_eq!(a.output.read_group_line().unwrap(), None);
    assert!(rejected("-x i -U r --rg sample").contains("TAG:VALUE"));
    assert!(rejected("-x i -U r --rg-id g1 --rg sample").contains("TAG:VALUE"));
    assert!(rejected("-x i -U r --rg-id g1 --rg SAM:x").contains("TAG:VALUE"));
    assert!(rejected("-x i -U r --rg-id g1 --rg 1M:x").contains("TAG:VALUE"));
    assert!(rejected("-x i -U r --rg-id g1 --rg SM:a --rg SM:b").contains("second SM"));
}

#[test]
fn align_keeps_t_for_time() {
    let a = ok("-x i -U r -t -p 3");
    assert!(a.output.time);
    assert_eq!(a.performance.threads, Some(3));
    // -t takes no value: a number after it is a positional reads file, as in bowtie2.
    let a = parse("-x i -U r -t 4").unwrap().with_positional().unwrap();
    assert!(a.output.time && a.input.reads.contains(&PathBuf::from("4")));
}

#[test]
fn bowtie2_long_names_and_defaults_are_accepted() {
    // Options of bowtie2-align-s's table: the defaults spelled out, and other names.
    let a = ok(
        "-x i -1 a -2 b --no-dovetail --contain --overlap --1mm-upfront \
        --exact-upfront --reads-per-batch 16",
    );
    let p = a.pairs.pairing().unwrap();
    assert!(!p.dovetail && p.contain && p.overlap);
    // The last of a pair of opposites wins, as in bowtie2.
    let p = ok("-x i -1 a -2 b --no-dovetail --dovetail --no-contain")
        .pairs
        .pairing()
        .unwrap();
    assert!(p.dovetail && !p.contain);
    let p = ok("-x i -1 a -2 b --dovetail --no-dovetail --no-overlap --overlap")
        .pairs
        .pairing()
        .unwrap();
    assert!(!p.dovetail && p.overlap);
    let a = ok(
        "--index i --unpaired r --output o.sam --khits 3 --seedlen 20 --seedmms 0 \
        --seedival S,1,1.15 --seed-rounds 2 --min-score L,0,-0.2 --metrics 5 \
        --metrics-file m --metrics-stderr --nondeterministic --integer-quals \
        --sam-omit-sec-seq --sam-no-hd --sam-nosq --sam-rg-id g --sam-rg SM:x --RG PL:y",
    );
    assert_eq!(a.input.index, Some(PathBuf::from("i")));
    assert_eq!(a.input.reads, [PathBuf::from("r")]);
    assert_eq!(a.output.sam, Some(PathBuf::from("o.sam")));
    assert_eq!(
        (a.search.report, a.search.seed_len, a.output.met),
        (Some(3), Some(20), 5)
    );
    assert!(
        a.output.no_head
            && a.output.no_sq
            && a.output.omit_sec_seq
            && a.input.int_quals
            && a.output.met_stderr
    );
    assert_eq!(
        a.output.read_group_line().unwrap().unwrap(),
        "@RG\tID:g\tSM:x\tPL:y"
    );
    assert_eq!(ok("-x i --reads r").input.reads, [PathBuf::from("r")]);
    assert_eq!(ok("-x i --12 t").input.tab5, [PathBuf::from("t")]);
    for alias in ["--no-HD", "--sam-no-head", "--sam-nohead", "--sam-noHD"] {
        assert!(ok(&format!("-x i -U r {alias}")).output.no_head, "{alias}");
    }
    for alias in ["--no-SQ", "--sam-no-sq", "--sam-noSQ"] {
        assert!(ok(&format!("-x i -U r {alias}")).output.no_sq, "{alias}");
    }
    // bowtie2's deprecated -M, and -L over bowtie2's whole range (1 to 32).
    assert_eq!(ok("-x i -U r -M 5 -k 3").params().unwrap().report, 3);
    assert_eq!(ok("-x i -U r -L 32").params().unwrap().min_seed_len, 32);
    assert_eq!(ok("-x i -U r -L 1").params().unwrap().min_seed_len, 12);
    assert!(rejected("-x i -U r -L 33").contains("33"));
}

#[test]
fn repeated_options_take_the_last_value() {
    let a = ok(
        "-x i -U r -p 1 -S a.output.sam -p 4 -S b.sam -X 300 -X 700 --score-min L,0,-1 \
        --score-min L,0,-0.2 -k 2 -k 5 --seed 1 --seed 9",
    );
    assert_eq!(a.performance.threads, Some(4));
    assert_eq!(a.output.sam, Some(PathBuf::from("b.sam")));
    assert_eq!(a.pairs.maxins, 700);
    assert_eq!(a.search.report, Some(5));
    assert_eq!(a.search.seed, 9);
    assert_eq!(
        a.scoring().unwrap().min_score,
        LengthFunction::Linear {
            constant: 0.0,
            coefficient: -0.2
        }
    );
    assert!(ok("-x i -U r --local --local -t -t").output.time);
    // Read lists append, as bowtie2's do.
    let a = ok("-x i -U a,b -U c -1 m1 -2 m2 -1 n1 -2 n2 --interleaved s --interleaved t");
    assert_eq!(a.input.reads, ["a", "b", "c"].map(PathBuf::from));
    assert_eq!(a.input.mates1, ["m1", "n1"].map(PathBuf::from));
    assert_eq!(a.input.mates2, ["m2", "n2"].map(PathBuf::from));
    assert_eq!(a.input.interleaved, ["s", "t"].map(PathBuf::from));
    let a = ok("-x i -U r --rg-id g --rg SM:x --rg PL:y");
    assert_eq!(a.output.rg, ["SM:x", "PL:y"]);
}

#[test]
fn decimal_numbers_are_cut_off_as_bowtie2_does() {
    let a = ok(
        "-x i -1 a -2 b --mp 3.2,0.35 --rdg 5.9,3.1 --rfg 4.5 --np 1.5 -I 10.5 \
        -X 500.7 -p 2.0 -3 4.9 -k 2.5",
    );
    let s = a.scoring().unwrap();
    assert_eq!((s.mismatch_max, s.mismatch_min), (3, 0));
    assert_eq!((s.read_gap_open, s.read_gap_extend), (5, 3));
    assert_eq!(s.ref_gap_open, 4);
    assert_eq!(s.n_penalty, 1);
    let p = a.pairs.pairing().unwrap();
    assert_eq!((p.min_fragment, p.max_fragment), (10, 500));
    // Up to bowtie2's limit, the largest C int.
    let p = ok("-x i -1 a -2 b -X 2147483647").pairs.pairing().unwrap();
    assert_eq!(p.max_fragment, 2_147_483_647);
    assert_eq!(
        (a.performance.threads, a.input.trim3, a.search.report),
        (Some(2), 4, Some(2))
    );
    assert_eq!(
        ok("-x i -U r --local --ma 2.7")
            .scoring()
            .unwrap()
            .match_bonus,
        2
    );
    assert_eq!(ok("-x i -U r --mp 6.").scoring().unwrap().mismatch_max, 6);
    for line in [
        "-x i -U r --mp 3.2x",
        "-x i -U r --mp .5",
        "-x i -U r --ma 1e1",
        "-x i -U r -p 2.5.1",
        "-x i -U r -k 0",
        "-x i -U r -k 0.5",
    ] {
        rejected(line);
    }
}

#[test]
fn local_with_a_preset_is_the_local_preset() {
    // bowtie2 applies presets after every option, `--very-sensitive` becoming
    // `--very-sensitive-local` when --local is given, before or after it.
    for (preset, local) in [
        ("--very-fast", "--very-fast-local"),
        ("--fast", "--fast-local"),
        ("--sensitive", "--sensitive-local"),
        ("--very-sensitive", "--very-sensitive-local"),
    ] {
        let want = ok(&format!("-x i -U r {local}")).params().unwrap();
        assert_eq!(want.scoring.mode, AlignMode::Local);
        for line in [
            format!("-x i -U r --local {preset}"),
            format!("-x i -U r {preset} --local"),
            format!("-x i -U r --local {local}"),
        ] {
            assert_eq!(ok(&line).params().unwrap(), want, "{line}");
        }
        let end_to_end = ok(&format!("-x i -U r {preset}")).params().unwrap();
        assert_eq!(end_to_end.scoring.mode, AlignMode::EndToEnd);
        assert_ne!(end_to_end, want);
    }
}

#[test]
fn bam_input_takes_its_files() {
    // `bowtie2 -b FILE[,FILE]`: the wrapper takes the files and hands them on.
    let a = ok("-x i -b a.bam,b.bam --align-paired-reads --preserve-tags");
    assert_eq!(a.input.bam_input, ["a.bam", "b.bam"].map(PathBuf::from));
    let sources = a.input.sources().unwrap();
    assert_eq!(sources.interleaved, a.input.bam_input);
    assert!(matches!(
        sources.format,
        InputFormat::Bam {
            paired: true,
            preserve_tags: true
        }
    ));
    let sources = ok("-x i -b a.bam").input.sources().unwrap();
    assert_eq!(sources.unpaired, [PathBuf::from("a.bam")]);
    assert!(parse("-x i -U r -b").is_err());
    assert!(rejected("-x i -U r --align-paired-reads").contains("-b"));
    assert!(rejected("-x i -U r --preserve-tags").contains("-b"));
}

#[test]
fn positional_arguments_stand_for_index_reads_and_output() {
    let a = parse("-x idx -q r1.fq,r2.fq out.sam")
        .unwrap()
        .with_positional()
        .unwrap();
    assert_eq!(a.input.index, Some(PathBuf::from("idx")));
    assert_eq!(
        a.input.reads,
        [PathBuf::from("r1.fq"), PathBuf::from("r2.fq")]
    );
    assert_eq!(a.output.sam, Some(PathBuf::from("out.sam")));
    let a = parse("idx r.fq").unwrap().with_positional().unwrap();
    assert_eq!(a.input.index, Some(PathBuf::from("idx")));
    assert_eq!(a.input.reads, [PathBuf::from("r.fq")]);
    let twice = parse("-x idx r.fq o.sam -S p.sam")
        .unwrap()
        .with_positional();
    assert!(twice.unwrap_err().to_string().contains("-S/-o"));
    assert!(parse("-U r.fq").unwrap().with_positional().is_err());
}

#[test]
fn the_last_quality_encoding_counts_and_empty_list_entries_are_skipped() {
    // As in bowtie2: of --phred33 and --phred64, the last given.
    assert!(ok("-x i -U r --phred33 --phred64").input.phred64);
    assert!(!ok("-x i -U r --phred64 --phred33").input.phred64);
    // `a,` and `a,,b` name one and two files, as bowtie2 reads them.
    let a = parse("-x i -U a,,b, -1 ,m1 -2 m2, --tab5 t,")
        .unwrap()
        .with_positional()
        .unwrap();
    assert_eq!(a.input.reads, [PathBuf::from("a"), PathBuf::from("b")]);
    assert_eq!(a.input.mates1, [PathBuf::from("m1")]);
    assert_eq!(a.input.mates2, [PathBuf::from("m2")]);
    assert_eq!(a.input.tab5, [PathBuf::from("t")]);
    let a = parse("i r1,,r2").unwrap().with_positional().unwrap();
    assert_eq!(a.input.reads, [PathBuf::from("r1"), PathBuf::from("r2")]);
}

/// A positional READS list is split on the byte `,`; names that are not UTF-8 stay
/// as they are.
#[test]
fn a_reads_list_of_names_that_are_not_utf8_is_split_on_commas() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let list = PathBuf::from(OsStr::from_bytes(b"a\xff.fq,b.fq"));
    let names: Vec<PathBuf> = comma_separated(&list).collect();
    assert_eq!(
        names,
        [
            PathBuf::from(OsStr::from_bytes(b"a\xff.fq")),
            PathBuf::from("b.fq")
        ]
    );
}

/// `--sort-memory` below 1M (samtools sort's minimum) is a usage error.
#[test]
fn sort_memory_below_1m_is_refused() {
    for memory in ["1", "0.1", "1K", "1023K"] {
        let line = format!("-x i -U r.fq -o x.bam --sort --sort-memory {memory}");
        let e = parse(&line).map(drop).expect_err("refused").to_string();
        assert!(e.contains("minimum, 1M"), "{memory}: {e}");
    }
    let args = parse("-x i -U r.fq -o x.bam --sort --sort-memory 1M").unwrap();
    assert_eq!(args.output.sort_memory, 1 << 20);
}

#[test]
fn options_default_to_the_command_line_defaults() {
    let options = parse("-x idx -U r.fq").unwrap().into_options().unwrap();
    let expected = AlignOptions {
        index: PathBuf::from("idx"),
        reads: seqfarm_io::reads::ReadSources {
            unpaired: vec![PathBuf::from("r.fq")],
            ..Default::default()
        },
        ..AlignOptions::default()
    };
    assert_eq!(options, expected);
}

#[test]
fn options_hold_the_resolved_values() {
    let options =
        parse("-x idx -1 a.fq -2 b.fq -o out.bam --sort --local -p 3 --rg-id g --un-gz u.gz")
            .unwrap()
            .into_options()
            .unwrap();
    assert!(options.style.bam && options.sort);
    assert_eq!(options.output, PathBuf::from("out.bam"));
    assert_eq!(options.params.scoring.mode, seqfarm_align::AlignMode::Local);
    assert_eq!(options.farm.threads, Some(3));
    assert_eq!(options.style.read_group.as_deref(), Some("g"));
    assert_eq!(options.read_group_line.as_deref(), Some("@RG\tID:g"));
    assert_eq!(options.read_files.len(), 1);
    assert_eq!(options.reads.mate2, [PathBuf::from("b.fq")]);
    let error = parse("-U r.fq").unwrap().into_options().unwrap_err();
    assert!(error.to_string().contains("no index"));
}
