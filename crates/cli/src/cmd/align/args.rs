//! The command line of `seqfarm align`: every option of `bowtie2 --help` (2.5.x), with
//! bowtie2's meaning, or accepted and mapped to the nearest seqfarm setting (the table
//! in docs/ALIGNER.md says which). Options that contradict each other are errors.

use std::path::PathBuf;

use seqfarm_align::scoring::LengthFunction;
use seqfarm_align::{AlignMode, AlignParams, MateOrientation, PairParams, Preset, Scoring};

use seqfarm_io::reads::{InputFormat, ReadSources, TrimTo};

use super::mate_files::{ReadFileCompression, ReadFileKind, ReadFileSpec};
use crate::common::ForceArg;

/// Align reads to an index, single- or paired-end (bowtie2's options and output)
#[derive(Debug, Clone, clap::Args)]
#[command(
    args_override_self = true,
    after_help = "Reads may be FASTQ or FASTA (detected from the content), plain or \
    gzip-compressed. End-to-end mode scores as bowtie2 does (mismatch 2-6 by quality, N 1, \
    gap 5+3k, minimum -0.6-0.6L); --local adds a match bonus of 2, soft clipping and a \
    minimum of 20+8ln(L). Every option of bowtie2 2.5 is accepted; those of bowtie2's \
    search that seqfarm's differs from (-N -L -i -D -R --dpad ...) are listed in \
    docs/ALIGNER.md. Output is in input order, identical at any thread count."
)]
pub struct AlignArgs {
    // ---- Input
    /// Index prefix (PREFIX.sfi, as written by `seqfarm index`)
    #[arg(short = 'x', long = "index", value_name = "INDEX")]
    pub index: Option<PathBuf>,
    /// bowtie2's positional form, `[INDEX] [READS [OUT.sam]]`: INDEX when -x is not
    /// given, READS as -U (comma-separated list), OUT.sam as -S
    #[arg(value_name = "ARGS", num_args = 0..=3)]
    pub positional: Vec<PathBuf>,
    /// Mate-1 reads (comma-separated list; repeatable), paired with -2
    #[arg(
        short = '1',
        value_name = "M1",
        value_delimiter = ',',
        value_parser = list_entry(),
        requires = "mates2"
    )]
    pub mates1: Vec<PathBuf>,
    /// Mate-2 reads (comma-separated list; repeatable), paired with -1
    #[arg(
        short = '2',
        value_name = "M2",
        value_delimiter = ',',
        value_parser = list_entry(),
        requires = "mates1"
    )]
    pub mates2: Vec<PathBuf>,
    /// Unpaired reads (`-` for standard input; comma-separated list; repeatable)
    #[arg(
        short = 'U',
        long = "unpaired",
        alias = "reads",
        value_name = "READS",
        value_delimiter = ',',
        value_parser = list_entry()
    )]
    pub reads: Vec<PathBuf>,
    /// Interleaved paired reads (mate 1, mate 2, mate 1, ...)
    #[arg(
        long,
        value_name = "FILE",
        value_delimiter = ',',
        value_parser = list_entry()
    )]
    pub interleaved: Vec<PathBuf>,
    /// Unaligned BAM input, sorted by read name (comma-separated list; as bowtie2's
    /// `bowtie2 -b FILE`, whose wrapper hands the files on)
    #[arg(
        short = 'b',
        value_name = "BAM",
        value_delimiter = ',',
        value_parser = list_entry()
    )]
    pub bam_input: Vec<PathBuf>,
    /// SAM output [default: standard output]
    #[arg(
        short = 'S',
        long = "output",
        value_name = "OUT.sam",
        conflicts_with = "bam"
    )]
    pub sam: Option<PathBuf>,
    /// BAM output (BGZF blocks compressed by the workers)
    #[arg(short = 'o', value_name = "OUT.bam")]
    pub bam: Option<PathBuf>,
    /// Sort the BAM output by coordinate (as `samtools sort`) and write its index beside
    /// it (OUT.bam.bai; OUT.bam.csi when a reference is longer than 2^29 bp)
    #[arg(long, requires = "bam")]
    pub sort: bool,
    /// Memory for sorting, in all (records beyond it are sorted into temporary files
    /// beside the output and merged at the end): a size such as 768M or 2G
    #[arg(
        long,
        value_name = "SIZE",
        default_value = "768M",
        value_parser = crate::cmd::index::parse_size,
        requires = "sort"
    )]
    pub sort_memory: u64,
    /// Reads are FASTQ (the default; FASTQ and FASTA are also detected)
    #[arg(short = 'q')]
    pub fastq: bool,
    /// TAB5 reads: one read (name, seq, qual) or pair (name, seq1, qual1, seq2, qual2)
    /// per line (comma-separated list)
    #[arg(
        long,
        alias = "12",
        value_name = "FILE",
        value_delimiter = ',',
        value_parser = list_entry()
    )]
    pub tab5: Vec<PathBuf>,
    /// TAB6 reads: one read (name, seq, qual) or pair (name1, seq1, qual1, name2, seq2,
    /// qual2) per line (comma-separated list)
    #[arg(
        long,
        value_name = "FILE",
        value_delimiter = ',',
        value_parser = list_entry()
    )]
    pub tab6: Vec<PathBuf>,
    /// Reads are Illumina QSEQ
    #[arg(long)]
    pub qseq: bool,
    /// Reads are (multi-)FASTA
    #[arg(short = 'f')]
    pub fasta: bool,
    /// Reads are raw, one sequence per line
    #[arg(short = 'r')]
    pub raw: bool,
    /// Reads are k-mers cut from a FASTA file: length k every i bases
    #[arg(short = 'F', value_name = "k:<int>,i:<int>")]
    pub kmers: Option<String>,
    /// -1, -2, -U values are sequences, not files
    #[arg(short = 'c')]
    pub sequences_given: bool,
    /// Skip the first N reads or pairs
    #[arg(short = 's', long = "skip", value_name = "N", default_value_t = 0, value_parser = truncated_int::<u64>, allow_negative_numbers = true)]
    pub skip: u64,
    /// Stop after the first N reads or pairs
    #[arg(short = 'u', long = "upto", visible_alias = "qupto", value_name = "N", value_parser = truncated_int::<u64>, allow_negative_numbers = true)]
    pub upto: Option<u64>,
    /// Trim N bases from the 5' (left) end of each read
    #[arg(short = '5', long = "trim5", value_name = "N", default_value_t = 0, value_parser = truncated_int::<u32>, allow_negative_numbers = true)]
    pub trim5: u32,
    /// Trim N bases from the 3' (right) end of each read
    #[arg(short = '3', long = "trim3", value_name = "N", default_value_t = 0, value_parser = truncated_int::<u32>, allow_negative_numbers = true)]
    pub trim3: u32,
    /// Trim reads longer than N bases from the 3' (default) or 5' end: [3:|5:]N
    #[arg(long, value_name = "[3:|5:]N", conflicts_with_all = ["trim5", "trim3"])]
    pub trim_to: Option<String>,
    /// Qualities are Phred+33 (the default)
    #[arg(long, visible_alias = "phred33-quals", overrides_with = "phred64")]
    pub phred33: bool,
    /// Qualities are Phred+64 (old Illumina; the last of --phred33 and --phred64
    /// counts, as in bowtie2)
    #[arg(
        long,
        visible_alias = "phred64-quals",
        visible_alias = "solexa1.3-quals",
        overrides_with = "phred33"
    )]
    pub phred64: bool,
    /// Qualities are space-separated integers
    #[arg(long, alias = "integer-quals")]
    pub int_quals: bool,

    // ---- Presets and mode
    /// Preset: fewest seeds and candidates
    #[arg(long)]
    pub very_fast: bool,
    /// Preset: fewer candidates
    #[arg(long)]
    pub fast: bool,
    /// Preset: the default search effort
    #[arg(long)]
    pub sensitive: bool,
    /// Preset: shorter seeds, more candidates
    #[arg(long)]
    pub very_sensitive: bool,
    /// --very-fast with --local
    #[arg(long)]
    pub very_fast_local: bool,
    /// --fast with --local
    #[arg(long)]
    pub fast_local: bool,
    /// --sensitive with --local
    #[arg(long)]
    pub sensitive_local: bool,
    /// --very-sensitive with --local
    #[arg(long)]
    pub very_sensitive_local: bool,
    /// Align every read base (the default)
    #[arg(long, conflicts_with = "local")]
    pub end_to_end: bool,
    /// Local alignment: soft-clip ends, match bonus 2
    #[arg(long)]
    pub local: bool,

    // ---- Alignment (bowtie2's seed search; see docs/ALIGNER.md for seqfarm's)
    /// Mismatches in a seed, 0 or 1 (seqfarm's seeds are exact; 1 searches as --very-sensitive)
    #[arg(short = 'N', long = "seedmms", value_name = "0|1", value_parser = clap::value_parser!(u8).range(0..=1), allow_negative_numbers = true)]
    pub seed_mismatches: Option<u8>,
    /// Seed length, 1 to 32 (sets seqfarm's shortest SMEM seed, at least 12)
    #[arg(short = 'L', long = "seedlen", value_name = "N", value_parser = clap::value_parser!(u32).range(1..=32), allow_negative_numbers = true)]
    pub seed_len: Option<u32>,
    /// Interval between seeds as a function of read length (validated; no effect)
    #[arg(
        short = 'i',
        long = "seedival",
        value_name = "FUNC",
        allow_hyphen_values = true
    )]
    pub seed_interval: Option<String>,
    /// Most N positions in an alignment, a function of read length [L,0,0.15]
    #[arg(long, value_name = "FUNC", allow_hyphen_values = true)]
    pub n_ceil: Option<String>,
    /// Extra reference bases on each side of the DP table (validated; no effect)
    #[arg(long, value_name = "N")]
    pub dpad: Option<u32>,
    /// No gap within N positions of either read end [4]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1000), allow_negative_numbers = true)]
    pub gbar: Option<u32>,
    /// Score every mismatch as at high quality (the maximum penalty, as bowtie2 does)
    #[arg(long)]
    pub ignore_quals: bool,
    /// Do not align the read as given (for pairs: the fragment's forward strand)
    #[arg(long)]
    pub nofw: bool,
    /// Do not align the reverse complement (for pairs: the fragment's reverse strand)
    #[arg(long)]
    pub norc: bool,
    /// No one-mismatch end-to-end search before seeding (no effect: seqfarm has none)
    #[arg(long, overrides_with = "one_mm_upfront")]
    pub no_1mm_upfront: bool,
    /// One-mismatch end-to-end search before seeding (bowtie2's default; no effect)
    #[arg(long = "1mm-upfront", overrides_with = "no_1mm_upfront")]
    pub one_mm_upfront: bool,
    /// Exact end-to-end search before seeding (bowtie2's default; no effect)
    #[arg(long, overrides_with = "no_exact_upfront")]
    pub exact_upfront: bool,
    /// No exact end-to-end search before seeding (no effect: seqfarm has none)
    #[arg(long, overrides_with = "exact_upfront")]
    pub no_exact_upfront: bool,

    // ---- Scoring
    /// Match bonus [0 end-to-end, where bowtie2 ignores it; 2 --local]
    #[arg(long, value_name = "N", value_parser = truncated_int::<i32>, allow_negative_numbers = true)]
    pub ma: Option<i32>,
    /// Mismatch penalties MX[,MN]: MX at high quality, MN at Q0 [6,2]
    #[arg(long, value_name = "MX[,MN]", allow_hyphen_values = true)]
    pub mp: Option<String>,
    /// Penalty of an N in the read or the reference [1]
    #[arg(long, value_name = "N", value_parser = truncated_int::<i32>, allow_negative_numbers = true)]
    pub np: Option<i32>,
    /// Read gap open, extend penalties [5,3]
    #[arg(long, value_name = "OPEN[,EXTEND]", allow_hyphen_values = true)]
    pub rdg: Option<String>,
    /// Reference gap open, extend penalties [5,3]
    #[arg(long, value_name = "OPEN[,EXTEND]", allow_hyphen_values = true)]
    pub rfg: Option<String>,
    /// Minimum score as a function of read length [L,-0.6,-0.6; --local G,20,8]
    #[arg(
        long,
        alias = "min-score",
        value_name = "FUNC",
        allow_hyphen_values = true
    )]
    pub score_min: Option<String>,

    // ---- Reporting
    /// Report up to N alignments per read or pair (the best is primary, others flag 256)
    #[arg(short = 'k', long = "khits", value_name = "N", value_parser = truncated_int::<u32>, conflicts_with = "all", allow_negative_numbers = true)]
    pub report: Option<u32>,
    /// Report all alignments found (as -k with seqfarm's candidate limit)
    #[arg(short = 'a', long = "all")]
    pub all: bool,
    /// bowtie2's deprecated -M (not in its help): accepted with bowtie2's warning, no effect
    #[arg(short = 'M', value_name = "N", value_parser = truncated_int::<u32>)]
    pub max_hits: Option<u32>,
    /// Consecutive failed extensions before giving up (maps to candidates per read)
    #[arg(short = 'D', value_name = "N")]
    pub extend_tries: Option<u32>,
    /// Re-seeding rounds for repetitive reads (maps to re-seeding of repeats)
    #[arg(short = 'R', long = "seed-rounds", value_name = "N")]
    pub reseeds: Option<u32>,

    // ---- Paired-end
    /// Shortest concordant fragment
    #[arg(short = 'I', long = "minins", value_name = "N", default_value_t = 0, value_parser = fragment_limit, allow_negative_numbers = true)]
    pub minins: u64,
    /// Longest concordant fragment
    #[arg(short = 'X', long = "maxins", value_name = "N", default_value_t = 500, value_parser = fragment_limit, allow_negative_numbers = true)]
    pub maxins: u64,
    /// Mate 1 forward, mate 2 reverse (the default)
    #[arg(long, group = "orientation")]
    pub fr: bool,
    /// Mate 1 reverse, mate 2 forward
    #[arg(long, group = "orientation")]
    pub rf: bool,
    /// Both mates forward
    #[arg(long, group = "orientation")]
    pub ff: bool,
    /// No unpaired alignments for pairs
    #[arg(long)]
    pub no_mixed: bool,
    /// No discordant alignments for pairs
    #[arg(long)]
    pub no_discordant: bool,
    /// Mates extending past each other may be concordant
    #[arg(long, overrides_with = "no_dovetail")]
    pub dovetail: bool,
    /// Mates extending past each other are not concordant (the default)
    #[arg(long, overrides_with = "dovetail")]
    pub no_dovetail: bool,
    /// Not concordant when one mate contains the other
    #[arg(long, overrides_with = "contain")]
    pub no_contain: bool,
    /// One mate containing the other may be concordant (the default)
    #[arg(long, overrides_with = "no_contain")]
    pub contain: bool,
    /// Not concordant when the mates overlap at all
    #[arg(long, overrides_with = "overlap")]
    pub no_overlap: bool,
    /// Overlapping mates may be concordant (the default)
    #[arg(long, overrides_with = "no_overlap")]
    pub overlap: bool,

    // ---- BAM input
    /// With -b: align the paired reads of the BAM (default: its unpaired ones)
    #[arg(long)]
    pub align_paired_reads: bool,
    /// With -b: copy the input records' tags to the output records, after seqfarm's own
    #[arg(long)]
    pub preserve_tags: bool,

    // ---- Output
    /// Print the wall-clock time of each phase to standard error
    #[arg(short = 't', long = "time")]
    pub time: bool,
    /// Write unpaired reads that did not align to FILE
    #[arg(long, value_name = "FILE")]
    pub un: Option<PathBuf>,
    /// --un, gzip-compressed
    #[arg(long, value_name = "FILE", conflicts_with = "un")]
    pub un_gz: Option<PathBuf>,
    /// --un, bzip2-compressed
    #[arg(long, value_name = "FILE", conflicts_with_all = ["un", "un_gz"])]
    pub un_bz2: Option<PathBuf>,
    /// --un, lz4-compressed
    #[arg(long, value_name = "FILE", conflicts_with_all = ["un", "un_gz", "un_bz2"])]
    pub un_lz4: Option<PathBuf>,
    /// Write unpaired reads that aligned at least once to FILE
    #[arg(long, value_name = "FILE")]
    pub al: Option<PathBuf>,
    /// --al, gzip-compressed
    #[arg(long, value_name = "FILE", conflicts_with = "al")]
    pub al_gz: Option<PathBuf>,
    /// --al, bzip2-compressed
    #[arg(long, value_name = "FILE", conflicts_with_all = ["al", "al_gz"])]
    pub al_bz2: Option<PathBuf>,
    /// --al, lz4-compressed
    #[arg(long, value_name = "FILE", conflicts_with_all = ["al", "al_gz", "al_bz2"])]
    pub al_lz4: Option<PathBuf>,
    /// Write pairs that did not align concordantly to FILE (% becomes the mate number)
    #[arg(long, value_name = "FILE")]
    pub un_conc: Option<PathBuf>,
    /// --un-conc, gzip-compressed
    #[arg(long, value_name = "FILE", conflicts_with = "un_conc")]
    pub un_conc_gz: Option<PathBuf>,
    /// --un-conc, bzip2-compressed
    #[arg(long, value_name = "FILE", conflicts_with_all = ["un_conc", "un_conc_gz"])]
    pub un_conc_bz2: Option<PathBuf>,
    /// --un-conc, lz4-compressed
    #[arg(long, value_name = "FILE", conflicts_with_all = ["un_conc", "un_conc_gz", "un_conc_bz2"])]
    pub un_conc_lz4: Option<PathBuf>,
    /// Write pairs that aligned concordantly at least once to FILE
    #[arg(long, value_name = "FILE")]
    pub al_conc: Option<PathBuf>,
    /// --al-conc, gzip-compressed
    #[arg(long, value_name = "FILE", conflicts_with = "al_conc")]
    pub al_conc_gz: Option<PathBuf>,
    /// --al-conc, bzip2-compressed
    #[arg(long, value_name = "FILE", conflicts_with_all = ["al_conc", "al_conc_gz"])]
    pub al_conc_bz2: Option<PathBuf>,
    /// --al-conc, lz4-compressed
    #[arg(long, value_name = "FILE", conflicts_with_all = ["al_conc", "al_conc_gz", "al_conc_bz2"])]
    pub al_conc_lz4: Option<PathBuf>,
    /// Print nothing to standard error but errors
    #[arg(long)]
    pub quiet: bool,
    /// Write metrics to FILE
    #[arg(long, alias = "metrics-file", value_name = "FILE")]
    pub met_file: Option<PathBuf>,
    /// Write metrics to standard error
    #[arg(long, alias = "metrics-stderr")]
    pub met_stderr: bool,
    /// Metrics every N seconds [1]
    #[arg(long, alias = "metrics", value_name = "N", default_value_t = 1)]
    pub met: u64,
    /// Draw the MAPQ histogram (and for pairs the insert-size histogram) as SVG to FILE.svg
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
    /// Leave out the records of unaligned reads (an unaligned mate's too, as bowtie2 does)
    #[arg(long)]
    pub no_unal: bool,
    /// No header lines
    #[arg(
        long,
        visible_alias = "no-hd",
        aliases = ["no-HD", "sam-no-head", "sam-nohead", "sam-no-hd", "sam-noHD"]
    )]
    pub no_head: bool,
    /// No @SQ header lines
    #[arg(long, aliases = ["no-SQ", "sam-no-sq", "sam-nosq", "sam-noSQ"])]
    pub no_sq: bool,
    /// Read group ID: adds an @RG line and RG:Z to every record
    #[arg(long, alias = "sam-rg-id", value_name = "ID")]
    pub rg_id: Option<String>,
    /// Field of the @RG line, TAG:VALUE, e.g. SM:sample (repeatable). As in bowtie2,
    /// `--rg ID:x` sets the ID when --rg-id is absent, and without any ID no @RG line
    /// is written (with a warning)
    #[arg(long, aliases = ["sam-rg", "sam-RG", "RG"], value_name = "TAG:VALUE")]
    pub rg: Vec<String>,
    /// `*` for SEQ and QUAL of secondary alignments
    #[arg(long, alias = "sam-omit-sec-seq")]
    pub omit_sec_seq: bool,
    /// Keep the whole read name (by default it ends at the first white space)
    #[arg(long)]
    pub sam_no_qname_trunc: bool,
    /// `=` and `X` instead of `M` in CIGARs
    #[arg(long)]
    pub xeq: bool,
    /// TLEN without soft-clipped bases
    #[arg(long)]
    pub soft_clipped_unmapped_tlen: bool,
    /// Append the read's FASTA/FASTQ comment to its records
    #[arg(long)]
    pub sam_append_comment: bool,

    // ---- Performance
    /// Worker threads, at most 4 per core [default: all cores]
    #[arg(short = 'p', long = "threads", value_name = "N", value_parser = truncated_int::<usize>, allow_negative_numbers = true)]
    pub threads: Option<usize>,
    /// Pin worker threads to cores
    #[arg(long)]
    pub pin: bool,
    #[command(flatten)]
    pub stats: crate::common::StatsArg,
    #[command(flatten)]
    pub numa: crate::numa::NumaArg,
    /// Output in input order (always so; accepted)
    #[arg(long)]
    pub reorder: bool,
    /// Memory-map the index (its pages shared with other processes) instead of reading
    /// it into memory
    #[arg(long)]
    pub mm: bool,

    // ---- Other
    /// Leave out reads QSEQ marks as filtered
    #[arg(long)]
    pub qc_filter: bool,
    /// Seed of the choice among equally good alignments [0]
    #[arg(long, value_name = "N", default_value_t = 0, value_parser = truncated_int::<u64>)]
    pub seed: u64,
    /// Accepted: the choice among ties still depends on the read and --seed alone
    #[arg(long, alias = "nondeterministic")]
    pub non_deterministic: bool,
    /// Reads per batch handed to a thread (accepted; seqfarm sizes its own batches)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub reads_per_batch: Option<u64>,
    #[command(flatten)]
    pub force: ForceArg,
}

impl AlignArgs {
    /// Whether a `--*-local` preset or `--local` asks for local mode, with the
    /// conflicts bowtie2 leaves silent made errors.
    pub fn mode(&self) -> anyhow::Result<AlignMode> {
        let local_presets = [
            ("--very-fast-local", self.very_fast_local),
            ("--fast-local", self.fast_local),
            ("--sensitive-local", self.sensitive_local),
            ("--very-sensitive-local", self.very_sensitive_local),
        ];
        let presets = [
            ("--very-fast", self.very_fast),
            ("--fast", self.fast),
            ("--sensitive", self.sensitive),
            ("--very-sensitive", self.very_sensitive),
        ];
        let chosen: Vec<&str> = presets
            .iter()
            .chain(local_presets.iter())
            .filter(|(_, on)| *on)
            .map(|(name, _)| *name)
            .collect();
        if chosen.len() > 1 {
            anyhow::bail!("{} and {} cannot be used together", chosen[0], chosen[1]);
        }
        let local_preset = local_presets.iter().find(|(_, on)| *on).map(|(n, _)| *n);
        if let (Some(preset), true) = (local_preset, self.end_to_end) {
            anyhow::bail!("{preset} is a --local preset; it cannot be used with --end-to-end");
        }
        Ok(if self.local || local_preset.is_some() {
            AlignMode::Local
        } else {
            AlignMode::EndToEnd
        })
    }

    fn preset(&self) -> Preset {
        if self.very_fast || self.very_fast_local {
            Preset::VeryFast
        } else if self.fast || self.fast_local {
            Preset::Fast
        } else if self.very_sensitive || self.very_sensitive_local {
            Preset::VerySensitive
        } else {
            Preset::Sensitive
        }
    }

    /// The scoring scheme the options describe (checked: see [`Scoring::check`]).
    pub fn scoring(&self) -> anyhow::Result<Scoring> {
        let mode = self.mode()?;
        let mut s = Scoring::for_mode(mode);
        if let Some(ma) = self.ma {
            s.match_bonus = ma;
        }
        if let Some(mp) = &self.mp {
            let (mx, mn) = int_pair("--mp", mp)?;
            s.mismatch_max = mx;
            if let Some(mn) = mn {
                s.mismatch_min = mn;
            }
            // A lone MX below the default MN lowers MN with it, so `--mp 1` is valid.
            if mn.is_none() && s.mismatch_min > mx {
                s.mismatch_min = mx;
            }
        }
        if let Some(np) = self.np {
            s.n_penalty = np;
        }
        if let Some(rdg) = &self.rdg {
            let (open, extend) = int_pair("--rdg", rdg)?;
            s.read_gap_open = open;
            if let Some(e) = extend {
                s.read_gap_extend = e;
            }
        }
        if let Some(rfg) = &self.rfg {
            let (open, extend) = int_pair("--rfg", rfg)?;
            s.ref_gap_open = open;
            if let Some(e) = extend {
                s.ref_gap_extend = e;
            }
        }
        if let Some(f) = &self.score_min {
            s.min_score = LengthFunction::parse(f, s.min_score)
                .map_err(|e| anyhow::anyhow!("--score-min {e}"))?;
        }
        if let Some(f) = &self.n_ceil {
            s.n_ceiling = n_ceil_function(f, s.n_ceiling)?;
        }
        if let Some(g) = self.gbar {
            s.gap_barrier = g as usize;
        }
        s.check().map_err(|e| anyhow::anyhow!("{e}"))?;
        // Bowtie2 checks --ma against --score-min in both modes but adds the bonus
        // only in local mode.
        if mode == AlignMode::EndToEnd {
            s.match_bonus = 0;
        }
        Ok(s)
    }

    /// The aligner's parameters: mode, preset, scoring, and bowtie2's search options
    /// mapped onto seqfarm's search (docs/ALIGNER.md, "bowtie2 options").
    pub fn params(&self) -> anyhow::Result<AlignParams> {
        if let Some(f) = &self.seed_interval {
            LengthFunction::parse(f, LengthFunction::Constant { constant: 1.0 })
                .map_err(|e| anyhow::anyhow!("-i {e}"))?;
        }
        if self.nofw && self.norc {
            anyhow::bail!("--nofw and --norc together leave no strand to align");
        }
        let mode = self.mode()?;
        let preset = if self.seed_mismatches == Some(1) {
            Preset::VerySensitive
        } else {
            self.preset()
        };
        let mut p = AlignParams::new(mode, preset);
        p.scoring = self.scoring()?;
        if let Some(l) = self.seed_len {
            p.min_seed_len = l.max(12);
            p.rescue_seed_len = p.rescue_seed_len.min(p.min_seed_len);
        }
        if let Some(d) = self.extend_tries {
            // -D 15 (the default) keeps the preset's candidates; more or fewer scale
            // them, within sensible limits.
            p.max_candidates = (p.max_candidates * d as usize / 15).clamp(4, 256);
        }
        if let Some(r) = self.reseeds {
            // -R 2 (the default) keeps the preset's re-seeding of repeats.
            p.reseed_max_occ = (p.reseed_max_occ * u64::from(r.max(1)) / 2).max(1);
        }
        if self.report == Some(0) {
            anyhow::bail!("-k 0: -k must be at least 1");
        }
        p.report = if self.all {
            p.max_candidates.max(AlignParams::default().max_candidates)
        } else {
            self.report.unwrap_or(1) as usize
        };
        p.align_forward = !self.nofw;
        p.align_reverse = !self.norc;
        p.tie_seed = self.seed;
        Ok(p)
    }

    /// The pairing constraints (`-I -X --fr/--rf/--ff --no-mixed ...`).
    pub fn pairing(&self) -> anyhow::Result<PairParams> {
        if self.maxins == 0 {
            anyhow::bail!("-X/--maxins must be at least 1 (no pair could be concordant)");
        }
        if self.minins > self.maxins {
            anyhow::bail!(
                "-I/--minins {} is greater than -X/--maxins {}",
                self.minins,
                self.maxins
            );
        }
        let orientation = if self.rf {
            MateOrientation::Rf
        } else if self.ff {
            MateOrientation::Ff
        } else {
            MateOrientation::Fr
        };
        Ok(PairParams {
            min_fragment: self.minins,
            max_fragment: self.maxins,
            orientation,
            mixed: !self.no_mixed,
            discordant: !self.no_discordant,
            dovetail: self.dovetail,
            contain: !self.no_contain,
            overlap: !self.no_overlap,
        })
    }

    /// The `--trim-to` request, checked.
    pub fn trim_to(&self) -> anyhow::Result<Option<TrimTo>> {
        self.trim_to
            .as_deref()
            .map(|text| TrimTo::parse(text).map_err(|e| anyhow::anyhow!("--trim-to {text:?}: {e}")))
            .transpose()
    }

    /// The read format the options name (FASTQ/FASTA detected when none does).
    pub fn input_format(&self) -> anyhow::Result<InputFormat> {
        Ok(if let Some(text) = &self.kmers {
            InputFormat::parse_kmers(text).map_err(|e| anyhow::anyhow!("-F {text:?}: {e}"))?
        } else if !self.tab5.is_empty() {
            InputFormat::Tab5
        } else if !self.tab6.is_empty() {
            InputFormat::Tab6
        } else if self.qseq {
            InputFormat::Qseq
        } else if self.raw {
            InputFormat::Raw
        } else if self.sequences_given {
            InputFormat::CommandLine
        } else if !self.bam_input.is_empty() {
            InputFormat::Bam {
                paired: self.align_paired_reads,
                preserve_tags: self.preserve_tags,
            }
        } else {
            InputFormat::Auto
        })
    }

    /// Every read input, in bowtie2's order, with `-s/-u`.
    pub fn sources(&self) -> anyhow::Result<ReadSources> {
        let mut interleaved = self.interleaved.clone();
        interleaved.extend(self.tab5.iter().chain(&self.tab6).cloned());
        let mut unpaired = self.reads.clone();
        if !self.align_paired_reads {
            unpaired.extend(self.bam_input.iter().cloned());
        } else {
            interleaved.extend(self.bam_input.iter().cloned());
        }
        Ok(ReadSources {
            interleaved,
            mate1: self.mates1.clone(),
            mate2: self.mates2.clone(),
            unpaired,
            format: self.input_format()?,
            skip: self.skip,
            upto: self.upto,
        })
    }

    /// The read group's ID, as bowtie2 takes it: `--rg-id`, or else a `--rg ID:...`
    /// field; a second ID is an error, as it would make the @RG line invalid.
    pub fn read_group_id(&self) -> anyhow::Result<Option<&str>> {
        let mut in_fields = self.rg.iter().filter_map(|f| f.strip_prefix("ID:"));
        match (&self.rg_id, in_fields.next(), in_fields.next()) {
            (id, None, _) => Ok(id.as_deref()),
            (None, Some(id), None) => Ok(Some(id)),
            (Some(_), Some(id), _) => anyhow::bail!(
                "--rg \"ID:{id}\": a second read group ID (--rg-id gives one already)"
            ),
            (None, Some(_), Some(id)) => {
                anyhow::bail!("--rg \"ID:{id}\": a second read group ID (--rg ID: given twice)")
            }
        }
    }

    /// The `--rg-id`/`--rg` header line, checked so the header stays valid: an ID
    /// without tabs or line breaks, each field `TAG:VALUE` with a two-character tag,
    /// one `ID`. `None` without an ID, where bowtie2 writes no @RG line either.
    pub fn read_group_line(&self) -> anyhow::Result<Option<String>> {
        let id = self.read_group_id()?;
        let mut line = String::from("@RG");
        if let Some(id) = id {
            let option = if self.rg_id.is_some() {
                "--rg-id"
            } else {
                "--rg"
            };
            check_header_text(option, id)?;
            line.push_str("\tID:");
            line.push_str(id);
        }
        for field in self.rg.iter().filter(|f| !f.starts_with("ID:")) {
            check_header_text("--rg", field)?;
            let tag = field.split_once(':').map(|(t, _)| t);
            match tag {
                Some(t)
                    if t.len() == 2
                        && t.as_bytes()[0].is_ascii_alphabetic()
                        && t.as_bytes()[1].is_ascii_alphanumeric() =>
                {
                    if line
                        .split('\t')
                        .skip(1)
                        .any(|f| f.starts_with(&format!("{t}:")))
                    {
                        anyhow::bail!("--rg {field:?}: a second {t} field for the same @RG line");
                    }
                }
                _ => anyhow::bail!(
                    "--rg {field:?}: expected TAG:VALUE with a two-character tag, e.g. SM:sample"
                ),
            }
            line.push('\t');
            line.push_str(field);
        }
        Ok(id.map(|_| line))
    }

    /// The `--un`/`--al`/`--un-conc`/`--al-conc` files asked for (each option's plain,
    /// `-gz`, `-bz2` and `-lz4` forms).
    pub fn read_file_specs(&self) -> Vec<ReadFileSpec> {
        use ReadFileCompression::{Bzip2, Gzip, Lz4, Plain};
        let options = [
            (
                ReadFileKind::Unaligned,
                [&self.un, &self.un_gz, &self.un_bz2, &self.un_lz4],
            ),
            (
                ReadFileKind::Aligned,
                [&self.al, &self.al_gz, &self.al_bz2, &self.al_lz4],
            ),
            (
                ReadFileKind::UnalignedPairs,
                [
                    &self.un_conc,
                    &self.un_conc_gz,
                    &self.un_conc_bz2,
                    &self.un_conc_lz4,
                ],
            ),
            (
                ReadFileKind::AlignedPairs,
                [
                    &self.al_conc,
                    &self.al_conc_gz,
                    &self.al_conc_bz2,
                    &self.al_conc_lz4,
                ],
            ),
        ];
        options
            .into_iter()
            .flat_map(|(kind, paths)| {
                [Plain, Gzip, Bzip2, Lz4].into_iter().zip(paths).filter_map(
                    move |(compression, path)| {
                        path.clone().map(|path| ReadFileSpec {
                            kind,
                            path,
                            compression,
                        })
                    },
                )
            })
            .collect()
    }

    /// Moves bowtie2's positional arguments (`[INDEX] [READS [OUT.sam]]`) into the
    /// options they stand for.
    pub fn with_positional(mut self) -> anyhow::Result<Self> {
        let mut words = std::mem::take(&mut self.positional).into_iter();
        if self.index.is_none() {
            self.index = words.next();
        }
        if let Some(reads) = words.next() {
            let list = reads.to_string_lossy().into_owned();
            self.reads.extend(list.split(',').map(PathBuf::from));
        }
        // bowtie2 skips the empty entries of a list (`r1.fq,` or `a.fq,,b.fq`).
        for list in [
            &mut self.mates1,
            &mut self.mates2,
            &mut self.reads,
            &mut self.interleaved,
            &mut self.bam_input,
            &mut self.tab5,
            &mut self.tab6,
        ] {
            list.retain(|p| !p.as_os_str().is_empty());
        }
        if let Some(out) = words.next() {
            if self.sam.is_some() || self.bam.is_some() {
                anyhow::bail!("{}: an output is given by -S/-o already", out.display());
            }
            self.sam = Some(out);
        }
        if let Some(extra) = words.next() {
            anyhow::bail!("unexpected argument {}", extra.display());
        }
        if self.index.is_none() {
            anyhow::bail!("no index: give -x INDEX");
        }
        Ok(self)
    }

    /// The index prefix (`-x`, or the first positional argument).
    pub fn index_prefix(&self) -> &std::path::Path {
        self.index.as_deref().unwrap_or(std::path::Path::new(""))
    }

    /// The index file, `PREFIX.sfi`.
    pub fn index_file(&self) -> PathBuf {
        seqfarm_fmindex::index_path(self.index_prefix())
    }

    /// An error saying how to build the index when [`Self::index_file`] is missing: a
    /// bowtie2 or bwa index at the prefix is named as such, since a bowtie2 command line
    /// run unchanged still points at bowtie2's index.
    pub fn check_index_exists(&self) -> anyhow::Result<()> {
        let (prefix, file) = (self.index_prefix(), self.index_file());
        if file.try_exists().unwrap_or(true) {
            return Ok(());
        }
        let with = |suffix: &str| {
            let mut name = prefix.as_os_str().to_os_string();
            name.push(suffix);
            PathBuf::from(name)
        };
        let other = [
            (".1.bt2", "bowtie2"),
            (".1.bt2l", "bowtie2"),
            (".bwt", "bwa"),
        ]
        .into_iter()
        .find(|(suffix, _)| with(suffix).exists());
        let found = match other {
            Some((suffix, tool)) => format!(
                " ({} is a {tool} index, which seqfarm does not read)",
                with(suffix).display()
            ),
            None => String::new(),
        };
        anyhow::bail!(
            "no seqfarm index {}{found}; build it from the genome's FASTA with \
             `seqfarm index -o {} GENOME.fa`",
            file.display(),
            prefix.display()
        )
    }

    /// Checks what clap cannot: some input, and every option's value.
    pub fn check(&self) -> anyhow::Result<()> {
        if self.mates1.len() != self.mates2.len() {
            anyhow::bail!(
                "-1 names {} file(s) and -2 names {}: they must pair up",
                self.mates1.len(),
                self.mates2.len()
            );
        }
        if self.mates1.is_empty()
            && self.reads.is_empty()
            && self.interleaved.is_empty()
            && self.tab5.is_empty()
            && self.tab6.is_empty()
            && self.bam_input.is_empty()
        {
            anyhow::bail!("no reads: give -U, -1 and -2, --interleaved, --tab5, --tab6 or -b");
        }
        if self.upto == Some(0) {
            anyhow::bail!("-u/--upto 0: the number of reads must be at least 1, as in bowtie2");
        }
        if self.soft_clipped_unmapped_tlen && self.mode()? == AlignMode::EndToEnd {
            anyhow::bail!(
                "--soft-clipped-unmapped-tlen can only be set for local alignments (--local), \
                 as in bowtie2"
            );
        }
        let formats = [
            ("-q", self.fastq),
            ("--tab5", !self.tab5.is_empty()),
            ("--tab6", !self.tab6.is_empty()),
            ("--qseq", self.qseq),
            ("-f", self.fasta),
            ("-r", self.raw),
            ("-F", self.kmers.is_some()),
        ];
        let given: Vec<&str> = formats
            .iter()
            .filter(|(_, on)| *on)
            .map(|(n, _)| *n)
            .collect();
        if given.len() > 1 {
            anyhow::bail!("{} and {} name different read formats", given[0], given[1]);
        }
        if self.bam_input.is_empty() {
            if self.align_paired_reads {
                anyhow::bail!("--align-paired-reads needs BAM input (-b)");
            }
            if self.preserve_tags {
                anyhow::bail!("--preserve-tags needs BAM input (-b)");
            }
        }
        if self.sort
            && self
                .bam
                .as_deref()
                .is_none_or(|p| p == std::path::Path::new("-"))
        {
            anyhow::bail!("--sort needs a BAM file to write (-o OUT.bam), not standard output");
        }
        if self.int_quals && (self.fasta || self.raw || self.kmers.is_some()) {
            anyhow::bail!("--int-quals needs reads with qualities");
        }
        self.params()?;
        self.pairing()?;
        self.trim_to()?;
        self.input_format()?;
        self.read_group_line()?;
        Ok(())
    }
}

/// An entry of a comma-separated list of inputs, empty ones kept (bowtie2 skips them,
/// and so does [`AlignArgs::with_positional`]) where clap's path parser refuses them.
fn list_entry() -> impl clap::builder::TypedValueParser<Value = PathBuf> {
    use clap::builder::TypedValueParser;
    clap::builder::OsStringValueParser::new().map(PathBuf::from)
}

/// Parses a number as bowtie2 reads an integer option: a decimal fraction is cut off
/// (`3.7` is 3), as C's `strtol` and C++'s `>> int` do; anything else not a number is
/// an error (where bowtie2 would silently read 0).
fn truncated_int<T: std::str::FromStr>(text: &str) -> Result<T, String> {
    let whole = match text.split_once('.') {
        Some((whole, fraction))
            if !whole.trim_start_matches(['+', '-']).is_empty()
                && fraction.bytes().all(|b| b.is_ascii_digit()) =>
        {
            whole
        }
        _ => text,
    };
    whole
        .parse::<T>()
        .map_err(|_| format!("{text:?} is not a valid number"))
}

/// Parses `-I`/`-X` as bowtie2 does ([`truncated_int`]), up to its limit, the largest C
/// `int`: a larger value is an error there and here.
fn fragment_limit(text: &str) -> Result<u64, String> {
    let n = truncated_int::<u64>(text)?;
    if n > i32::MAX as u64 {
        return Err(format!(
            "{n} is over {}, the largest fragment length",
            i32::MAX
        ));
    }
    Ok(n)
}

/// Parses `A[,B]` integers (bowtie2's `--mp`, `--rdg`, `--rfg`); decimals are cut
/// off as bowtie2 does (`--mp 3.2,0.35` is `3,0`).
fn int_pair(option: &str, text: &str) -> anyhow::Result<(i32, Option<i32>)> {
    let bad = || anyhow::anyhow!("{option} {text:?}: expected <int> or <int>,<int>");
    let mut parts = text.split(',').map(str::trim);
    let first = parts
        .next()
        .and_then(|v| truncated_int::<i32>(v).ok())
        .ok_or_else(bad)?;
    let second = match parts.next() {
        None => None,
        Some(v) => Some(truncated_int::<i32>(v).map_err(|_| bad())?),
    };
    if parts.next().is_some() {
        return Err(bad());
    }
    Ok((first, second))
}

/// Parses `--n-ceil`: a function `TYPE,A,B`, or bowtie2's shorthand `A[,B]` for a
/// linear one.
fn n_ceil_function(text: &str, default: LengthFunction) -> anyhow::Result<LengthFunction> {
    let first = text.split(',').next().unwrap_or("");
    let shorthand = first.parse::<f64>().is_ok();
    let full = if shorthand {
        format!("L,{text}")
    } else {
        text.to_string()
    };
    LengthFunction::parse(&full, default).map_err(|e| anyhow::anyhow!("--n-ceil {e}"))
}

/// Rejects header text with tabs or line breaks (they would break the header).
pub fn check_header_text(option: &str, text: &str) -> anyhow::Result<()> {
    if text.is_empty() || text.contains(['\t', '\n', '\r']) {
        anyhow::bail!("{option} {text:?}: must be non-empty, without tabs or line breaks");
    }
    Ok(())
}

#[cfg(test)]
mod tests;
