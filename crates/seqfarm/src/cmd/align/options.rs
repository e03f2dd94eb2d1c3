//! What an align run takes, as plain values: the index and the reads, bowtie2's
//! options resolved into the aligner's parameters, the outputs and the machine.

use std::path::{Path, PathBuf};

use seqfarm_align::{AlignParams, PairParams};
use seqfarm_farm::numa::NumaMode;
use seqfarm_fmindex::{LoadMode, LoadOptions};
use seqfarm_io::output::Overwrite;
use seqfarm_io::reads::{ParseOptions, ReadSources};
use seqfarm_io::sam::SamHeader;

use super::mate_files::{ReadFileSpec, ReadRouting};
use super::records::RecordStyle;
use super::worker::{ChunkFormat, Sample};
use super::EXISTING_OUTPUT;
use crate::options::FarmOptions;

/// An align run: the index prefix, the reads, how they are aligned and written, and
/// every output. The defaults are `seqfarm align`'s (bowtie2's); the index prefix and
/// the reads are empty and must be given. Output paths of `-` are standard output.
#[derive(Debug, Clone, PartialEq)]
pub struct AlignOptions {
    /// The index prefix (`PREFIX.sfi`, as `seqfarm index` writes it).
    pub index: PathBuf,
    /// Every read input in bowtie2's order, their format and `-s`/`-u`.
    pub reads: ReadSources,
    /// How the read records are decoded (quality encoding, trimming).
    pub parse: ParseOptions,
    /// The aligner's parameters (mode, scoring, seeds, effort, reporting, `--seed`).
    pub params: AlignParams,
    /// The pairing rules (fragment lengths, orientation, mixed and discordant pairs).
    pub pairing: PairParams,
    /// How the records are written (BAM or SAM, optional fields, read group...).
    pub style: RecordStyle,
    /// Every quality is taken as the highest (`--ignore-quals`).
    pub ignore_quals: bool,
    /// Share of the reads or pairs aligned, 0 to 1 (`None`: every read; `--sample`).
    pub sample: Option<f64>,
    /// The alignments: BAM when `style.bam`, else SAM (`-`: standard output).
    pub output: PathBuf,
    /// Sort the BAM by coordinate and write its index beside it.
    pub sort: bool,
    /// Memory for sorting, in bytes, in all (beyond it, runs spill beside the output).
    pub sort_memory: u64,
    /// Mark duplicates in the sorted BAM as `seqfarm markdup` does (needs `sort`).
    pub markdup: bool,
    /// `markdup`'s duplication metrics file (Picard's format).
    pub markdup_metrics: Option<PathBuf>,
    /// The header's `@RG` line (`None`: no read group ID, no line).
    pub read_group_line: Option<String>,
    /// No header lines (`--no-hd`).
    pub no_header: bool,
    /// No `@SQ` header lines (`--no-sq`).
    pub no_sq: bool,
    /// Nothing on standard error but errors: no warnings, no summary (`--quiet`).
    pub quiet: bool,
    /// The wall-clock time of each phase on standard error (`-t`).
    pub time: bool,
    /// Warnings printed before the run (unless `quiet`): options accepted with less
    /// than bowtie2's effect.
    pub warnings: Vec<String>,
    /// Reads by outcome (`--un`, `--al`, `--un-conc`, `--al-conc` and their forms).
    pub read_files: Vec<ReadFileSpec>,
    /// A file for bowtie2's metrics (`--met-file`).
    pub met_file: Option<PathBuf>,
    /// The metrics on standard error too (`--met-stderr`).
    pub met_stderr: bool,
    /// Seconds between metrics lines (`--met`).
    pub met_interval: u64,
    /// An SVG picture of the MAPQ (and insert-size) histograms.
    pub plot: Option<PathBuf>,
    /// Workers, pinning and the farm's statistics file.
    pub farm: FarmOptions,
    /// NUMA placement of the index and the workers.
    pub numa: NumaMode,
    /// Memory-map the index rather than read it into memory (`--mm`).
    pub mm: bool,
    /// `--force`: accepted; existing outputs are replaced either way, as bowtie2 does.
    pub force: bool,
}

impl Default for AlignOptions {
    fn default() -> Self {
        Self {
            index: PathBuf::new(),
            reads: ReadSources::default(),
            parse: ParseOptions::default(),
            params: AlignParams::default(),
            pairing: PairParams::default(),
            style: RecordStyle::default(),
            ignore_quals: false,
            sample: None,
            output: PathBuf::from("-"),
            sort: false,
            sort_memory: DEFAULT_SORT_MEMORY,
            markdup: false,
            markdup_metrics: None,
            read_group_line: None,
            no_header: false,
            no_sq: false,
            quiet: false,
            time: false,
            warnings: Vec::new(),
            read_files: Vec::new(),
            met_file: None,
            met_stderr: false,
            met_interval: 1,
            plot: None,
            farm: FarmOptions::default(),
            numa: NumaMode::Auto,
            mm: false,
            force: false,
        }
    }
}

/// `--sort-memory`'s default, 768M.
pub const DEFAULT_SORT_MEMORY: u64 = 768 << 20;

impl AlignOptions {
    /// Refuses what the command line refuses and a caller filling the options in could
    /// still get wrong: no reads, mates that do not pair up, `upto` 0, a sample share
    /// that is not a number, and `sort` without a BAM file to write.
    pub fn check(&self) -> anyhow::Result<()> {
        let reads = &self.reads;
        if reads.mate1.len() != reads.mate2.len() {
            option_error!(
                "-1 names {} file(s) and -2 names {}: they must pair up",
                reads.mate1.len(),
                reads.mate2.len()
            );
        }
        if reads.mate1.is_empty() && reads.unpaired.is_empty() && reads.interleaved.is_empty() {
            option_error!("no reads: give -U, -1 and -2, --interleaved, --tab5, --tab6 or -b");
        }
        if reads.upto == Some(0) {
            option_error!("-u/--upto 0: the number of reads must be at least 1, as in bowtie2");
        }
        if self.sample.is_some_and(|share| !share.is_finite()) {
            option_error!("--sample: not a number (a share from 0 to 1)");
        }
        if self.sort && (!self.style.bam || self.output == Path::new("-")) {
            option_error!("--sort needs a BAM file to write (-o OUT.bam), not standard output");
        }
        if self.markdup && !self.sort {
            option_error!("--markdup marks the sorted BAM: give --sort too");
        }
        if self.markdup_metrics.is_some() && !self.markdup {
            option_error!("--markdup-metrics is --markdup's metrics file: give --markdup too");
        }
        Ok(())
    }

    /// The index file, `PREFIX.sfi`.
    pub fn index_file(&self) -> PathBuf {
        seqfarm_fmindex::index_path(&self.index)
    }

    /// How the index is read, as bowtie2 reads its own: into memory (in huge pages: its
    /// searches read it at random) by `threads` threads, or memory-mapped with `--mm`
    /// (its pages then shared with every process that maps the file).
    pub(crate) fn index_load(&self, verify_checksums: bool, threads: usize) -> LoadOptions {
        LoadOptions {
            mode: if self.mm {
                LoadMode::Mmap
            } else {
                LoadMode::Copy
            },
            verify_checksums,
            threads,
        }
    }

    /// An error saying how to build the index when [`Self::index_file`] is missing: a
    /// bowtie2 or bwa index at the prefix is named as such, since a bowtie2 command line
    /// run unchanged still points at bowtie2's index.
    pub fn check_index_exists(&self) -> anyhow::Result<()> {
        let (prefix, file) = (self.index.as_path(), self.index_file());
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

    /// The IO layer's overwrite policy for every output of the run.
    pub(crate) fn overwrite(&self) -> Overwrite {
        EXISTING_OUTPUT.overwrite(self.force)
    }

    /// `--sample` with the seed that chooses the reads.
    pub fn sampling(&self) -> Option<Sample> {
        self.sample.map(|fraction| Sample {
            fraction,
            seed: self.params.tie_seed,
        })
    }

    /// What the workers format records with, for a run writing to `header` and routing
    /// reads by outcome with `routing`.
    pub fn chunk_format<'a>(
        &'a self,
        header: &'a SamHeader,
        routing: ReadRouting,
        sorting: bool,
        plotting: bool,
    ) -> ChunkFormat<'a> {
        ChunkFormat {
            header,
            style: &self.style,
            parse: &self.parse,
            pairing: &self.pairing,
            ignore_quals: self.ignore_quals,
            routing,
            sorting,
            plotting,
            sample: self.sampling(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::OptionValueError;

    #[test]
    fn options_the_command_line_would_refuse_are_option_errors() {
        let refused = |options: AlignOptions| {
            let error = options.check().unwrap_err();
            assert!(error.downcast_ref::<OptionValueError>().is_some());
            error.to_string()
        };
        assert!(refused(AlignOptions::default()).starts_with("no reads"));
        let reads = AlignOptions {
            index: PathBuf::from("idx"),
            reads: ReadSources {
                unpaired: vec![PathBuf::from("r.fq")],
                ..ReadSources::default()
            },
            ..AlignOptions::default()
        };
        reads.check().unwrap();
        let unpaired_mate = AlignOptions {
            reads: ReadSources {
                mate1: vec![PathBuf::from("a.fq")],
                ..ReadSources::default()
            },
            ..reads.clone()
        };
        assert!(refused(unpaired_mate).contains("pair up"));
        let sorted_sam = AlignOptions {
            sort: true,
            ..reads.clone()
        };
        assert!(refused(sorted_sam).contains("--sort"));
        let mut sorted_bam = AlignOptions {
            sort: true,
            output: PathBuf::from("out.bam"),
            ..reads
        };
        sorted_bam.style.bam = true;
        sorted_bam.check().unwrap();
    }
}
