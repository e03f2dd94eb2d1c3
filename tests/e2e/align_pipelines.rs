//! bowtie2 command lines from published pipelines and tutorials, run through
//! `seqfarm align` unchanged (only the index and file paths replaced by test files).
//! Each must succeed, create the same output files as bowtie2 does with the same line,
//! and each of its options must have an effect that can be seen in the output.
//! Conflicting options and malformed read groups are errors.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;
use std::sync::OnceLock;

use crate::align_fixtures::{
    args, bowtie2_align, data_arg, expect_success, path_arg, seqfarm_align, test_dir, test_genome,
    Sam, SamRecord,
};

/// An effect of an option that the output must show.
enum Effect {
    /// `-k N`: at most N records per read (mate), and some reads have secondary ones.
    AtMost(usize),
    /// `-X N`: no proper pair longer than N, and more proper pairs than at the default
    /// (500) when N is larger.
    MaxFragment(i64),
    /// `-I N`: no proper pair shorter than N.
    MinFragment(i64),
    /// `--no-mixed`: no mate aligned while its mate is not.
    NoMixed,
    /// `--no-discordant`: no YT:Z:DP.
    NoDiscordant,
    /// `--no-overlap`: no proper pair whose mates overlap, while the default run has some.
    NoOverlap,
    /// `--no-unal`: no record of a read (or pair) that aligned nowhere, and fewer records
    /// than reads.
    NoUnaligned,
    /// `--local`: some CIGARs have soft clips, all AS are positive.
    Local,
    /// `-3 N` / `--trim3 N`: every SEQ is N shorter than the read.
    Trim3(usize),
    /// `--rg-id ID --rg SM:..`: @RG header line with these fields, RG:Z:ID on records.
    ReadGroup(&'static str, &'static str),
    /// `-t`: timings on stderr.
    Timings,
    /// `--met-file NAME`: a non-empty metrics file.
    Metrics(&'static str),
    /// `--un*`/`--al*`: this FASTQ file (gzip when the name ends in .gz) holds as many
    /// records as the SAM says it should.
    ReadsFile(&'static str, Selection),
    /// `--score-min L,A,B`: every AS at least A + B * read length.
    ScoreFloor(f64, f64),
    /// A stricter `--score-min`: fewer reads aligned than at the default.
    FewerAligned,
    /// Scoring options: AS equal to bowtie2's for reads both place identically.
    SameScoresAsBowtie2,
    /// `-S NAME`: the SAM went to this file.
    SamFile(&'static str),
    /// The summary went to stderr (default reporting).
    Summary,
}

/// Which reads a `--un`/`--al` file holds.
#[derive(Clone, Copy)]
enum Selection {
    /// Unpaired reads that aligned nowhere (`--un`).
    UnalignedReads,
    /// Mates of pairs that did not align concordantly (`--un-conc`), one file per mate.
    NotConcordant,
    /// Mates of pairs that aligned concordantly (`--al-conc`), one file per mate.
    Concordant,
}

/// A command line as published, with `{idx}`, `{r1}`, `{r2}`, `{u}` and `{out}` (the
/// output directory) standing for the paths.
struct Pipeline {
    source: &'static str,
    line: &'static str,
    effects: &'static [Effect],
}

const PIPELINES: &[Pipeline] = &[
    Pipeline {
        // nf-core/modules, modules/nf-core/bowtie2/align/main.nf: paired-end with
        // save_unaligned (`--un-conc-gz ${prefix}.unmapped.fastq.gz`), `--threads $task.cpus`.
        source: "nf-core/modules bowtie2/align (paired, save_unaligned)",
        line: "bowtie2 -x {idx} -1 {r1} -2 {r2} --threads 2 --un-conc-gz {out}/sample.unmapped.fastq.gz",
        effects: &[
            Effect::ReadsFile("sample.unmapped.fastq.1.gz", Selection::NotConcordant),
            Effect::ReadsFile("sample.unmapped.fastq.2.gz", Selection::NotConcordant),
            Effect::Summary,
        ],
    },
    Pipeline {
        // nf-core/modules, modules/nf-core/bowtie2/align/main.nf: single-end with
        // save_unaligned (`--un-gz ${prefix}.unmapped.fastq.gz`).
        source: "nf-core/modules bowtie2/align (single-end, save_unaligned)",
        line: "bowtie2 -x {idx} -U {u} --threads 2 --un-gz {out}/sample.unmapped.fastq.gz",
        effects: &[Effect::ReadsFile(
            "sample.unmapped.fastq.gz",
            Selection::UnalignedReads,
        )],
    },
    Pipeline {
        // ENCODE-DCC/atac-seq-pipeline, src/encode_task_bowtie2.py, bowtie2_pe():
        // 'bowtie2 {} -X2000 --mm --threads {} -x {} -1 {} -2 {}' with
        // '-k {multimapping+1}' (multimapping 4 by default).
        source: "ENCODE ATAC-seq pipeline encode_task_bowtie2.py (paired, multimapping 4)",
        line: "bowtie2 -k 5 -X2000 --mm --threads 2 -x {idx} -1 {r1} -2 {r2}",
        effects: &[Effect::AtMost(5), Effect::MaxFragment(2000)],
    },
    Pipeline {
        // ENCODE-DCC/chip-seq-pipeline2, src/encode_task_bowtie2.py, bowtie2_se():
        // 'bowtie2 {} --mm --threads {} -x {} -U {}'.
        source: "ENCODE ChIP-seq pipeline encode_task_bowtie2.py (single-end)",
        line: "bowtie2 --mm --threads 2 -x {idx} -U {u}",
        effects: &[Effect::Summary],
    },
    Pipeline {
        // nf-core/cutandrun, bowtie2 alignment args for the target genome (end_to_end):
        // '--end-to-end --very-sensitive --no-mixed --no-discordant --phred33
        //  --minins 10 --maxins 700 --dovetail'.
        source: "nf-core/cutandrun target alignment (end-to-end)",
        line: "bowtie2 -x {idx} -1 {r1} -2 {r2} --threads 2 --end-to-end --very-sensitive --no-mixed --no-discordant --phred33 --minins 10 --maxins 700 --dovetail",
        effects: &[
            Effect::NoMixed,
            Effect::NoDiscordant,
            Effect::MinFragment(10),
            Effect::MaxFragment(700),
        ],
    },
    Pipeline {
        // nf-core/cutandrun, the same with end_to_end false:
        // '--local --very-sensitive --no-mixed --no-discordant --phred33 --minins 10
        //  --maxins 700 --dovetail' (--very-sensitive means --very-sensitive-local here).
        source: "nf-core/cutandrun target alignment (local)",
        line: "bowtie2 -x {idx} -1 {r1} -2 {r2} --threads 2 --local --very-sensitive --no-mixed --no-discordant --phred33 --minins 10 --maxins 700 --dovetail",
        effects: &[
            Effect::Local,
            Effect::NoMixed,
            Effect::NoDiscordant,
            Effect::MaxFragment(700),
        ],
    },
    Pipeline {
        // CUT&Tag Data Processing and Analysis Tutorial (Zheng, Ahmad, Henikoff;
        // protocols.io), spike-in alignment: 'bowtie2 --end-to-end --very-sensitive
        // --no-overlap --no-dovetail --no-mixed --no-discordant --phred33 -I 10 -X 700
        // -p ${cores} -x ${spikeInRef} -1 ... -2 ... -S ...'.
        source: "CUT&Tag tutorial (protocols.io), spike-in alignment",
        line: "bowtie2 --end-to-end --very-sensitive --no-overlap --no-dovetail --no-mixed --no-discordant --phred33 -I 10 -X 700 -p 2 -x {idx} -1 {r1} -2 {r2} -S {out}/spikein.sam",
        effects: &[
            Effect::SamFile("spikein.sam"),
            Effect::NoOverlap,
            Effect::NoMixed,
            Effect::NoDiscordant,
            Effect::MaxFragment(700),
        ],
    },
    Pipeline {
        // CUT&RUN/CUT&Tag local alignment as in Henikoff lab protocols, e.g. the public
        // GitHub script fjxc1893/CUT-Tag 2.aligment.sh: '-p 8 --very-sensitive-local
        // --no-unal --no-mixed --no-discordant --phred33 -I 10 -X 700'.
        source: "CUT&Tag script (fjxc1893/CUT-Tag 2.aligment.sh)",
        line: "bowtie2 -x {idx} -1 {r1} -2 {r2} -p 2 --very-sensitive-local --no-unal --no-mixed --no-discordant --phred33 -I 10 -X 700",
        effects: &[
            Effect::Local,
            Effect::NoUnaligned,
            Effect::NoMixed,
            Effect::NoDiscordant,
            Effect::MaxFragment(700),
        ],
    },
    Pipeline {
        // HiC-Pro (nservant/HiC-Pro), scripts/bowtie_wrap.sh global step with the
        // default config-hicpro.txt BOWTIE2_GLOBAL_OPTIONS '--very-sensitive -L 30
        // --score-min L,-0.6,-0.2 --end-to-end --reorder':
        // 'bowtie2 ${BOWTIE2_GLOBAL_OPTIONS} --un ${prefix}.global.unmap.fastq
        //  --rg-id BMG --rg SM:${prefix} -p ${N_CPU} -x ${BOWTIE2_IDX} -U ${file}'.
        source: "HiC-Pro bowtie_wrap.sh global mapping (also nf-core/hic)",
        line: "bowtie2 --very-sensitive -L 30 --score-min L,-0.6,-0.2 --end-to-end --reorder --un {out}/sample_R1.global.unmap.fastq --rg-id BMG --rg SM:sample_R1 -p 2 -x {idx} -U {u}",
        effects: &[
            Effect::ScoreFloor(-0.6, -0.2),
            Effect::FewerAligned,
            Effect::ReadGroup("BMG", "sample_R1"),
            Effect::ReadsFile("sample_R1.global.unmap.fastq", Selection::UnalignedReads),
        ],
    },
    Pipeline {
        // Public GitHub ATAC-seq example script ("This is to demonstrate how I aligned
        // ATAC-seq paired-end reads"): 'bowtie2 -p 12 -x [index] -1 [fastq pair1]
        // -2 [fastq pair2] -X 2000 --no-mixed --no-discordant --trim3 3'.
        source: "ATAC-seq paired-end example script (-X 2000 --trim3 3)",
        line: "bowtie2 -p 2 -x {idx} -1 {r1} -2 {r2} -X 2000 --no-mixed --no-discordant --trim3 3",
        effects: &[
            Effect::Trim3(3),
            Effect::MaxFragment(2000),
            Effect::NoMixed,
            Effect::NoDiscordant,
        ],
    },
    Pipeline {
        // Public GitHub SLURM job script: 'bowtie2 -t -p 15 --fr --maxins 10000
        // --dovetail -x .../hg38 -1 ${1}.fq.1.gz -2 ${1}.fq.2.gz --un-conc
        // $rawdir/${1}_unal.fq'.
        source: "SLURM alignment script (-t --fr --maxins 10000 --dovetail --un-conc)",
        line: "bowtie2 -t -p 15 --fr --maxins 10000 --dovetail -x {idx} -1 {r1} -2 {r2} --un-conc {out}/run_unal.fq",
        effects: &[
            Effect::Timings,
            Effect::MaxFragment(10000),
            Effect::ReadsFile("run_unal.1.fq", Selection::NotConcordant),
            Effect::ReadsFile("run_unal.2.fq", Selection::NotConcordant),
        ],
    },
    Pipeline {
        // Public GitHub README ("Mapping"): 'bowtie2 -t -p 10 -x [prefix of library]
        // -1 [Forward Paired fastq file] -2 [Reverse Paired fastq file] -S [Sam file
        // output] --phred33 --no-unal --no-discordant --no-mixed'.
        source: "README mapping step (-t --phred33 --no-unal --no-discordant --no-mixed)",
        line: "bowtie2 -t -p 10 -x {idx} -1 {r1} -2 {r2} -S {out}/sample.sam --phred33 --no-unal --no-discordant --no-mixed",
        effects: &[
            Effect::Timings,
            Effect::SamFile("sample.sam"),
            Effect::NoUnaligned,
            Effect::NoDiscordant,
            Effect::NoMixed,
        ],
    },
    Pipeline {
        // Public GitHub Docker tutorial script: 'bowtie2 -k 5 -x FagoEsc_ref
        // -1 SRR6166481_10k_1_paired.fastq.gz -2 SRR6166481_10k_2_paired.fastq.gz
        // -S SRR6166481_10k.sam --al-conc-gz SRR6166481_10k_hitting.fastq.gz'.
        source: "Docker tutorial (-k 5 --al-conc-gz)",
        line: "bowtie2 -k 5 -x {idx} -1 {r1} -2 {r2} -S {out}/sample.sam --al-conc-gz {out}/sample_hitting.fastq.gz",
        effects: &[
            Effect::AtMost(5),
            Effect::SamFile("sample.sam"),
            Effect::ReadsFile("sample_hitting.fastq.1.gz", Selection::Concordant),
            Effect::ReadsFile("sample_hitting.fastq.2.gz", Selection::Concordant),
        ],
    },
    Pipeline {
        // Nextflow process from a public GitHub workflow (.command.sh): 'bowtie2
        // --very-sensitive --dovetail --met-file ${sample}_bmet.txt -p 1 -x ... -1 ...
        // -2 ... -p 4 -S ${sample}.sam' (note -p given twice; the last one counts).
        source: "Nextflow workflow (--met-file, -p given twice)",
        line: "bowtie2 --very-sensitive --dovetail --met-file {out}/sample_bmet.txt -p 1 -x {idx} -1 {r1} -2 {r2} -p 4 -S {out}/sample.sam",
        effects: &[Effect::Metrics("sample_bmet.txt"), Effect::SamFile("sample.sam")],
    },
    Pipeline {
        // Public GitHub SLURM script with tuned scoring: 'bowtie2 -t -p 18 --fr
        // --maxins 2000 --dovetail --ignore-quals -D 20 -R 4 -N 1 --np 0 --dpad 49
        // --gbar 2 --mp 3.2,0.35 --rdg 1,1 --rfg 5,2 --score-min L,-1.0,-0.5 -x hg38
        // -1 ${1}_qc1.fq.gz -2 ${1}_qc2.fq.gz'.
        source: "SLURM script with tuned scoring (--ignore-quals --mp 3.2,0.35 --rdg 1,1 ...)",
        line: "bowtie2 -t -p 18 --fr --maxins 2000 --dovetail --ignore-quals -D 20 -R 4 -N 1 --np 0 --dpad 49 --gbar 2 --mp 3.2,0.35 --rdg 1,1 --rfg 5,2 --score-min L,-1.0,-0.5 -x {idx} -1 {r1} -2 {r2}",
        effects: &[
            Effect::Timings,
            Effect::SameScoresAsBowtie2,
            Effect::ScoreFloor(-1.0, -0.5),
            Effect::MaxFragment(2000),
        ],
    },
    Pipeline {
        // Harvard Chan Bioinformatics Core ChIP-seq training (hbctraining, "Alignment
        // using Bowtie2"): 'bowtie2 -p 2 -q --local -x $index -U $fastq -S $sam'.
        source: "hbctraining ChIP-seq lesson (-q --local)",
        line: "bowtie2 -p 2 -q --local -x {idx} -U {u} -S {out}/chip.sam",
        effects: &[Effect::Local, Effect::SamFile("chip.sam")],
    },
    Pipeline {
        // Public GitHub Python pipeline generator: 'bowtie2 -t -p 8 -k2 --very-sensitive
        // -x {align_index} -q ${fq} -S {align_dir}/${nam}.sam'.
        source: "pipeline generator script (-t -k2 --very-sensitive -q)",
        line: "bowtie2 -t -p 8 -k2 --very-sensitive -x {idx} -q {u} -S {out}/sample.sam",
        effects: &[
            Effect::Timings,
            Effect::AtMost(2),
            Effect::SamFile("sample.sam"),
        ],
    },
    Pipeline {
        // bowtie2 manual, "Getting started", paired-end example:
        // 'bowtie2 -x lambda_virus -1 reads_1.fq -2 reads_2.fq -S eg2.sam'.
        source: "bowtie2 MANUAL, Getting started (paired-end example)",
        line: "bowtie2 -x {idx} -1 {r1} -2 {r2} -S {out}/eg2.sam",
        effects: &[Effect::SamFile("eg2.sam"), Effect::Summary],
    },
    Pipeline {
        // bowtie2 manual, "Getting started", local alignment example:
        // 'bowtie2 --local -x lambda_virus -U longreads.fq -S eg3.sam'.
        source: "bowtie2 MANUAL, Getting started (local example)",
        line: "bowtie2 --local -x {idx} -U {u} -S {out}/eg3.sam",
        effects: &[Effect::Local, Effect::SamFile("eg3.sam")],
    },
];

/// One aligner's run of a command line.
struct Run {
    sam: Sam,
    stderr: String,
    files: BTreeSet<String>,
}

/// The simulated mates followed by 50 random pairs that align nowhere, as a
/// comma-separated list (bowtie2's syntax for several input files).
fn reads(mate: u8) -> String {
    format!(
        "{},{}",
        data_arg(&format!("pe_sim_R{mate}.fq.gz")),
        data_arg(&format!("pe_junk_R{mate}.fq.gz"))
    )
}

fn expand(line: &str, idx: &str, out: &Path) -> Vec<String> {
    let tokens: Vec<String> = line
        .replace("{idx}", idx)
        .replace("{r1}", &reads(1))
        .replace("{r2}", &reads(2))
        .replace("{u}", &reads(1))
        .replace("{out}", &path_arg(out))
        .split_whitespace()
        .map(str::to_string)
        .collect();
    assert_eq!(tokens[0], "bowtie2");
    tokens[1..].to_vec()
}

/// Runs the line's options (without `-x`, given separately) with one aligner.
fn run_line(line: &str, seqfarm: bool, out: &Path) -> Run {
    let index = test_genome();
    // `-x {idx}` is given by the runner, with the aligner's own index.
    let mut tokens = expand(line, "\u{0}", out);
    let at = tokens
        .iter()
        .position(|t| t == "\u{0}")
        .expect("the line names the index");
    tokens.drain(at - 1..=at);
    let output = if seqfarm {
        seqfarm_align(index, &tokens)
    } else {
        bowtie2_align(index, &tokens)
    };
    let what = if seqfarm { "seqfarm align" } else { "bowtie2" };
    let stderr = expect_success(&format!("{what} {}", tokens.join(" ")), &output);
    let sam_at = tokens.iter().position(|t| t == "-S");
    let text = match sam_at {
        Some(i) => std::fs::read_to_string(&tokens[i + 1]).expect("the -S file"),
        None => String::from_utf8(output.stdout).expect("UTF-8 SAM"),
    };
    let files = std::fs::read_dir(out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    Run {
        sam: Sam::parse(&text),
        stderr,
        files,
    }
}

/// seqfarm's default run on the same pairs and on the same single-end reads.
fn defaults(paired: bool) -> &'static Sam {
    static PAIRED: OnceLock<Sam> = OnceLock::new();
    static SINGLE: OnceLock<Sam> = OnceLock::new();
    let (cell, line) = if paired {
        (&PAIRED, "bowtie2 -p 2 -x {idx} -1 {r1} -2 {r2}")
    } else {
        (&SINGLE, "bowtie2 -p 2 -x {idx} -U {u}")
    };
    cell.get_or_init(|| {
        let dir = test_dir();
        run_line(line, true, dir.path()).sam
    })
}

fn primaries(sam: &Sam) -> impl Iterator<Item = &SamRecord> {
    sam.records.iter().filter(|r| !r.secondary())
}

/// Pairs by name: (mate 1, mate 2) primary records.
fn pairs(sam: &Sam) -> Vec<(&SamRecord, &SamRecord)> {
    let mut mates: HashMap<&str, [Option<&SamRecord>; 2]> = HashMap::new();
    for r in primaries(sam) {
        if r.mate() > 0 {
            mates.entry(&r.name).or_default()[usize::from(r.mate() - 1)] = Some(r);
        }
    }
    let mut out: Vec<_> = mates
        .into_values()
        .filter_map(|m| Some((m[0]?, m[1]?)))
        .collect();
    out.sort_by(|a, b| a.0.name.cmp(&b.0.name));
    out
}

fn proper_pairs(sam: &Sam) -> Vec<(&SamRecord, &SamRecord)> {
    pairs(sam).into_iter().filter(|(a, _)| a.has(0x2)).collect()
}

/// Reference length of a CIGAR.
fn ref_len(cigar: &str) -> u64 {
    let mut n = 0u64;
    let mut total = 0u64;
    for c in cigar.bytes() {
        if c.is_ascii_digit() {
            n = n * 10 + u64::from(c - b'0');
        } else {
            if matches!(c, b'M' | b'D' | b'N' | b'=' | b'X') {
                total += n;
            }
            n = 0;
        }
    }
    total
}

fn overlap(a: &SamRecord, b: &SamRecord) -> bool {
    let (a0, a1) = (a.pos, a.pos + ref_len(&a.cigar));
    let (b0, b1) = (b.pos, b.pos + ref_len(&b.cigar));
    a0 < b1 && b0 < a1
}

/// FASTQ records in a file (gzip when the name ends in .gz).
fn fastq_records(path: &Path) -> usize {
    let raw = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    if path.extension().is_some_and(|e| e == "gz") {
        assert!(
            crate::support::is_gzip(&raw),
            "{} is not gzip",
            path.display()
        );
    }
    let text = String::from_utf8(crate::support::decompressed(raw, path)).unwrap();
    let lines = text.lines().count();
    assert_eq!(lines % 4, 0, "{}: not 4-line FASTQ", path.display());
    lines / 4
}

const READ_LEN: usize = 150;

fn check(p: &Pipeline, effect: &Effect, run: &Run, bowtie2: &Run, out: &Path) {
    let sam = &run.sam;
    let src = p.source;
    let paired = p.line.contains("{r1}");
    match effect {
        Effect::AtMost(k) => {
            let mut per_read: HashMap<(&str, u8), usize> = HashMap::new();
            for r in &sam.records {
                *per_read.entry((&r.name, r.mate())).or_default() += 1;
            }
            let most = per_read.values().max().copied().unwrap_or(0);
            assert!(most <= *k, "{src}: {most} records for one read with -k {k}");
            assert!(
                sam.records.iter().any(|r| r.has(0x100)),
                "{src}: -k {k} gave no secondary records"
            );
        }
        Effect::MaxFragment(x) => {
            let proper = proper_pairs(sam);
            let long = proper.iter().filter(|(a, _)| a.tlen.abs() > *x).count();
            assert_eq!(long, 0, "{src}: {long} proper pairs longer than -X {x}");
            if *x > 500 {
                let beyond = proper.iter().filter(|(a, _)| a.tlen.abs() > 500).count();
                assert!(
                    beyond > 0,
                    "{src}: no proper pair longer than 500 with -X {x}"
                );
            }
        }
        Effect::MinFragment(i) => {
            let short = proper_pairs(sam)
                .iter()
                .filter(|(a, _)| a.tlen.abs() < *i)
                .count();
            assert_eq!(short, 0, "{src}: {short} proper pairs shorter than -I {i}");
        }
        Effect::NoMixed => {
            let mixed = pairs(sam)
                .iter()
                .filter(|(a, b)| a.unmapped() != b.unmapped())
                .count();
            assert_eq!(mixed, 0, "{src}: {mixed} pairs with one mate aligned");
            let up = sam
                .records
                .iter()
                .filter(|r| r.tag("YT") == Some("UP") && !r.unmapped())
                .count();
            assert_eq!(
                up, 0,
                "{src}: {up} aligned mates with YT:Z:UP under --no-mixed"
            );
        }
        Effect::NoDiscordant => {
            let dp = sam
                .records
                .iter()
                .filter(|r| r.tag("YT") == Some("DP"))
                .count();
            assert_eq!(dp, 0, "{src}: {dp} YT:Z:DP records with --no-discordant");
        }
        Effect::NoOverlap => {
            let n = proper_pairs(sam)
                .iter()
                .filter(|(a, b)| overlap(a, b))
                .count();
            assert_eq!(n, 0, "{src}: {n} proper pairs overlap with --no-overlap");
            let default = proper_pairs(defaults(true))
                .iter()
                .filter(|(a, b)| overlap(a, b))
                .count();
            assert!(
                default > 0,
                "{src}: the default run has no overlapping pair to remove"
            );
        }
        Effect::NoUnaligned => {
            if paired {
                let both = pairs(sam)
                    .iter()
                    .filter(|(a, b)| a.unmapped() && b.unmapped())
                    .count();
                assert_eq!(
                    both, 0,
                    "{src}: {both} unaligned pairs written with --no-unal"
                );
            } else {
                let n = primaries(sam).filter(|r| r.unmapped()).count();
                assert_eq!(n, 0, "{src}: {n} unaligned reads written with --no-unal");
            }
            let reads = primaries(defaults(paired)).count();
            let written = primaries(sam).count();
            assert!(
                written < reads,
                "{src}: --no-unal dropped nothing ({written} of {reads})"
            );
        }
        Effect::Local => {
            let clipped = primaries(sam).filter(|r| r.cigar.contains('S')).count();
            assert!(clipped > 0, "{src}: no soft clips in local mode");
            let non_positive = primaries(sam)
                .filter(|r| !r.unmapped() && r.int_tag("AS").is_some_and(|s| s <= 0))
                .count();
            assert_eq!(non_positive, 0, "{src}: {non_positive} local AS <= 0");
        }
        Effect::Trim3(n) => {
            let wrong = sam
                .records
                .iter()
                .filter(|r| {
                    r.seq != "*" && (r.seq.len() != READ_LEN - n || r.qual.len() != r.seq.len())
                })
                .count();
            assert_eq!(
                wrong,
                0,
                "{src}: {wrong} records whose SEQ is not {} long",
                READ_LEN - n
            );
        }
        Effect::ReadGroup(id, sm) => {
            let rg: Vec<&String> = sam.header.iter().filter(|h| h.starts_with("@RG")).collect();
            assert_eq!(rg.len(), 1, "{src}: @RG lines {rg:?}");
            let fields: Vec<&str> = rg[0].split('\t').collect();
            assert!(
                fields.contains(&format!("ID:{id}").as_str())
                    && fields.contains(&format!("SM:{sm}").as_str()),
                "{src}: {}",
                rg[0]
            );
            let without = sam
                .records
                .iter()
                .filter(|r| r.tag("RG") != Some(*id))
                .count();
            assert_eq!(without, 0, "{src}: {without} records without RG:Z:{id}");
        }
        Effect::Timings => {
            // The same timing lines as bowtie2's, in the same order (their times differ).
            let labels = |stderr: &str| -> Vec<String> {
                stderr
                    .lines()
                    .filter(|l| l.ends_with(|c: char| c.is_ascii_digit()))
                    .filter_map(|l| l.split_once(": ").map(|(label, _)| label.to_string()))
                    .filter(|label| !label.contains('%') && !label.contains("Warning"))
                    .collect()
            };
            assert!(
                run.stderr.contains("Overall time"),
                "{src}: -t printed no timings:\n{}",
                run.stderr
            );
            assert_eq!(
                labels(&run.stderr),
                labels(&bowtie2.stderr),
                "{src}: timing lines"
            );
        }
        Effect::Metrics(name) => {
            let text = std::fs::read_to_string(out.join(name)).unwrap_or_default();
            assert!(
                !text.trim().is_empty(),
                "{src}: --met-file {name} is empty or missing"
            );
        }
        Effect::ReadsFile(name, selection) => {
            let expected = match selection {
                Selection::UnalignedReads => primaries(sam).filter(|r| r.unmapped()).count(),
                Selection::NotConcordant => pairs(sam).iter().filter(|(a, _)| !a.has(0x2)).count(),
                Selection::Concordant => pairs(sam).iter().filter(|(a, _)| a.has(0x2)).count(),
            };
            let found = fastq_records(&out.join(name));
            assert_eq!(
                found, expected,
                "{src}: {name} holds {found} reads, SAM says {expected}"
            );
        }
        Effect::ScoreFloor(a, b) => {
            let floor = a + b * READ_LEN as f64;
            let below = primaries(sam)
                .filter(|r| !r.unmapped() && r.int_tag("AS").is_some_and(|s| (s as f64) < floor))
                .count();
            assert_eq!(
                below, 0,
                "{src}: {below} AS below the --score-min floor {floor}"
            );
        }
        Effect::FewerAligned => {
            let aligned = primaries(sam).filter(|r| !r.unmapped()).count();
            let default = primaries(defaults(paired))
                .filter(|r| !r.unmapped())
                .count();
            let bt_aligned = primaries(&bowtie2.sam).filter(|r| !r.unmapped()).count();
            println!(
                "{src}: aligned {aligned} (bowtie2 {bt_aligned}), at the default --score-min {default}"
            );
            assert!(
                aligned < default,
                "{src}: --score-min removed nothing ({aligned} aligned)"
            );
        }
        Effect::SameScoresAsBowtie2 => {
            let bt: HashMap<(String, u8), &SamRecord> = bowtie2.sam.primary();
            let (mut same, mut equal) = (0usize, 0usize);
            for r in primaries(sam).filter(|r| !r.unmapped()) {
                if let Some(b) = bt.get(&(r.name.clone(), r.mate())) {
                    if !b.unmapped()
                        && b.contig == r.contig
                        && b.pos == r.pos
                        && b.reverse() == r.reverse()
                    {
                        same += 1;
                        equal += usize::from(b.tag("AS") == r.tag("AS"));
                    }
                }
            }
            println!("{src}: AS equal to bowtie2's for {equal} of {same} reads placed identically");
            assert!(
                same > 0 && equal as f64 >= 0.995 * same as f64,
                "{src}: AS equal for {equal} of {same}"
            );
        }
        Effect::SamFile(name) => {
            assert!(out.join(name).exists(), "{src}: no {name}");
            assert!(!sam.records.is_empty(), "{src}: {name} has no records");
        }
        Effect::Summary => {
            assert!(
                run.stderr.contains("overall alignment rate"),
                "{src}: no summary on stderr:\n{}",
                run.stderr
            );
        }
    }
}

#[test]
fn published_bowtie2_command_lines_run_unchanged() {
    assert!(PIPELINES.len() >= 15);
    let mut failures = Vec::new();
    for p in PIPELINES {
        let sf_dir = test_dir();
        let bt_dir = test_dir();
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let bowtie2 = run_line(p.line, false, bt_dir.path());
            let seqfarm = run_line(p.line, true, sf_dir.path());
            assert_eq!(
                seqfarm.files, bowtie2.files,
                "{}: output files differ from bowtie2's",
                p.source
            );
            // Every read has a primary record, unless --no-unal drops those that
            // aligned nowhere; how many those are differs between the aligners (and
            // bowtie2 2.5.0 leaves many concordant pairs unaligned under --no-mixed
            // --no-discordant, a bug fixed in 2.5.1), so only the counts without it
            // must match.
            let (sf_n, bt_n) = (
                primaries(&seqfarm.sam).count(),
                primaries(&bowtie2.sam).count(),
            );
            if p.line.contains("--no-unal") {
                println!("{}: {sf_n} primary records, bowtie2 {bt_n}", p.source);
            } else {
                assert_eq!(
                    sf_n, bt_n,
                    "{}: primary records against bowtie2's",
                    p.source
                );
            }
            for effect in p.effects {
                check(p, effect, &seqfarm, &bowtie2, sf_dir.path());
            }
        }));
        match outcome {
            Ok(()) => println!("ok: {}", p.source),
            Err(e) => {
                let msg = e
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                println!("FAILED: {}: {msg}", p.source);
                failures.push(p.source);
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} command lines failed: {failures:?}",
        failures.len(),
        PIPELINES.len()
    );
}

/// `seqfarm align ARGS` must fail with a message on stderr, writing no output.
fn refused(what: &str, extra: &[&str]) {
    let dir = test_dir();
    let sam = dir.path().join("out.sam");
    let mut list = args(extra);
    list.extend(args(&["-U"]));
    list.push(data_arg("pe_sim_R1.fq.gz"));
    list.extend(["-S".into(), path_arg(&sam)]);
    let out = seqfarm_align(test_genome(), &list);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{what}: accepted");
    assert!(!stderr.trim().is_empty(), "{what}: no message");
    assert!(!stderr.contains("panicked"), "{what}: {stderr}");
    assert!(!sam.exists(), "{what}: left {}", sam.display());
}

#[test]
fn conflicting_modes_and_bad_read_groups_are_errors() {
    refused("--local --end-to-end", &["--local", "--end-to-end"]);
    refused(
        "--very-fast-local --end-to-end",
        &["--very-fast-local", "--end-to-end"],
    );
    refused(
        "--rg without TAG:VALUE",
        &["--rg-id", "g1", "--rg", "sample"],
    );
    refused("--rg with a second ID", &["--rg-id", "g1", "--rg", "ID:g2"]);
    refused(
        "--rg with a two-letter tag missing",
        &["--rg-id", "g1", "--rg", ":x"],
    );
    refused(
        "--rg with a tag twice",
        &["--rg-id", "g1", "--rg", "SM:a", "--rg", "SM:b"],
    );
    refused("--rg without TAG:VALUE nor --rg-id", &["--rg", "nocolon"]);
    refused("--rg with two IDs", &["--rg", "ID:a", "--rg", "ID:b"]);
}

/// bowtie2 takes `--rg ID:x` as the read group's ID when `--rg-id` is absent, and writes
/// no @RG line (with a warning) when no ID is given: seqfarm's header lines and RG tags
/// are the same as bowtie2's for both forms.
#[test]
fn read_groups_without_rg_id_are_taken_as_bowtie2_takes_them() {
    let genome = test_genome();
    for (what, extra) in [
        (
            "--rg ID:g7 --rg SM:s1",
            &["--rg", "SM:s1", "--rg", "ID:g7"][..],
        ),
        ("--rg SM:s1 alone", &["--rg", "SM:s1"][..]),
    ] {
        let mut list = args(extra);
        list.extend(args(&["-U"]));
        list.push(data_arg("pe_sim_R1.fq.gz"));
        let ours = seqfarm_align(genome, &list);
        let theirs = bowtie2_align(genome, &list);
        let stderr = expect_success(&format!("seqfarm {what}"), &ours);
        expect_success(&format!("bowtie2 {what}"), &theirs);
        let (ours, theirs) = (
            Sam::parse(&String::from_utf8_lossy(&ours.stdout)),
            Sam::parse(&String::from_utf8_lossy(&theirs.stdout)),
        );
        let rg_lines = |sam: &Sam| -> Vec<String> {
            sam.header
                .iter()
                .filter(|h| h.starts_with("@RG"))
                .cloned()
                .collect()
        };
        assert_eq!(rg_lines(&ours), rg_lines(&theirs), "{what}: @RG lines");
        let rg_tags = |sam: &Sam| -> BTreeSet<Option<String>> {
            sam.records
                .iter()
                .map(|r| r.tag("RG").map(str::to_owned))
                .collect()
        };
        assert_eq!(rg_tags(&ours), rg_tags(&theirs), "{what}: RG:Z tags");
        assert_eq!(
            rg_lines(&ours).is_empty(),
            stderr.contains("no @RG line"),
            "{what}: the warning:\n{stderr}"
        );
    }
}
