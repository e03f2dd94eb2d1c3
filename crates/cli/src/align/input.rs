//! The read inputs: files and their format, which reads (`-s -u --sample`), trimming
//! and the quality encoding.

use std::path::PathBuf;

use seqfarm_io::reads::{InputFormat, ParseOptions, ReadSources, TrimTo};

use super::values::{list_entry, number, truncated_int};

/// The index, the reads and how to read them.
#[derive(Debug, Clone, clap::Args)]
#[command(next_help_heading = "Input")]
pub struct InputArgs {
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
    /// With -b: align the paired reads of the BAM (default: its unpaired ones)
    #[arg(long)]
    pub align_paired_reads: bool,
    /// With -b: copy the input records' tags to the output records, after seqfarm's own
    #[arg(long)]
    pub preserve_tags: bool,
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
    /// Quality files for FASTA reads, bowtie2's -Q/--Q1/--Q2: accepted with -f only, as
    /// bowtie2 accepts them, and not read (bowtie2 2.5 does not read them either)
    #[arg(short = 'Q', long = "quals", value_name = "FILES")]
    pub quals: Option<String>,
    /// Quality files of the -1 reads (see -Q)
    #[arg(long = "Q1", value_name = "FILES")]
    pub quals1: Option<String>,
    /// Quality files of the -2 reads (see -Q)
    #[arg(long = "Q2", value_name = "FILES")]
    pub quals2: Option<String>,
    /// Reads from SRA accessions (refused: seqfarm reads files; fetch them first)
    #[arg(long, value_name = "ACC", hide = true)]
    pub sra_acc: Option<String>,
    /// Skip the first N reads or pairs
    #[arg(short = 's', long = "skip", value_name = "N", default_value_t = 0, value_parser = truncated_int::<u64>, allow_negative_numbers = true)]
    pub skip: u64,
    /// Stop after the first N reads or pairs
    #[arg(short = 'u', long = "upto", visible_alias = "qupto", value_name = "N", value_parser = truncated_int::<u64>, allow_negative_numbers = true)]
    pub upto: Option<u64>,
    /// Align a pseudo-random share of the reads or pairs (0 to 1; chosen by each read's
    /// name and sequence and --seed); the others are left out of every output
    #[arg(long, value_name = "FRACTION", value_parser = number, allow_negative_numbers = true)]
    pub sample: Option<f64>,
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
    #[arg(long, visible_alias = "phred33-quals", overrides_with_all = ["phred64", "solexa_quals"])]
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
    /// Qualities are Solexa's (before Illumina 1.3: ASCII 64 + Solexa score), converted
    /// to Phred as bowtie2 converts them; a later --phred33 turns it off
    #[arg(long, overrides_with = "phred33")]
    pub solexa_quals: bool,
    /// Qualities are space-separated integers
    #[arg(long, alias = "integer-quals")]
    pub int_quals: bool,
    /// Leave out reads QSEQ marks as filtered
    #[arg(long)]
    pub qc_filter: bool,
}

impl InputArgs {
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

    /// How the read records are decoded (qualities, trimming).
    pub fn parse_options(&self) -> anyhow::Result<ParseOptions> {
        Ok(ParseOptions {
            quality_offset: if self.phred64 || self.solexa_quals {
                64
            } else {
                33
            },
            solexa: self.solexa_quals,
            trim5: self.trim5 as usize,
            trim3: self.trim3 as usize,
            trim_to: self.trim_to()?,
            int_quals: self.int_quals,
            ..ParseOptions::default()
        })
    }

    /// Checks the inputs: some reads, mates that pair up, one format, and the options
    /// that need a kind of input.
    pub fn check(&self) -> anyhow::Result<()> {
        if let Some(acc) = &self.sra_acc {
            option_error!(
                "--sra-acc {acc}: seqfarm reads files, not SRA accessions; fetch the reads \
                 first (e.g. `fasterq-dump {acc}`) and give them with -U or -1/-2"
            );
        }
        if self.mates1.len() != self.mates2.len() {
            option_error!(
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
            option_error!("no reads: give -U, -1 and -2, --interleaved, --tab5, --tab6 or -b");
        }
        if self.upto == Some(0) {
            option_error!("-u/--upto 0: the number of reads must be at least 1, as in bowtie2");
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
            option_error!("{} and {} name different read formats", given[0], given[1]);
        }
        if self.bam_input.is_empty() {
            if self.align_paired_reads {
                option_error!("--align-paired-reads needs BAM input (-b)");
            }
            if self.preserve_tags {
                option_error!("--preserve-tags needs BAM input (-b)");
            }
        }
        if self.int_quals && (self.fasta || self.raw || self.kmers.is_some()) {
            option_error!("--int-quals needs reads with qualities");
        }
        self.check_quality_files()?;
        self.trim_to()?;
        self.input_format()?;
        Ok(())
    }

    /// bowtie2's checks of `-Q`/`--Q1`/`--Q2`: FASTA reads (`-f`), and as many files
    /// as the mates they go with.
    fn check_quality_files(&self) -> anyhow::Result<()> {
        let count = |list: &str| list.split(',').filter(|f| !f.is_empty()).count();
        for (option, list, mates) in [
            ("-Q/--quals", &self.quals, None),
            ("--Q1", &self.quals1, Some(("-1", self.mates1.len()))),
            ("--Q2", &self.quals2, Some(("-2", self.mates2.len()))),
        ] {
            let Some(list) = list else { continue };
            if !self.fasta {
                option_error!("{option}: quality files go with FASTA reads (-f), as in bowtie2");
            }
            if let Some((mate_option, n)) = mates {
                if count(list) != n {
                    option_error!(
                        "{option} names {} file(s) and {mate_option} names {n}: they must pair up",
                        count(list)
                    );
                }
            }
        }
        Ok(())
    }
}
