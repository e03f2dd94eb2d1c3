//! The command line of `seqfarm align`: every long option of bowtie2 2.5's parser, with
//! bowtie2's meaning, or accepted and mapped to the nearest seqfarm setting, or
//! accepted without effect (the table in docs/ALIGNER.md says which). Options that
//! contradict each other are errors. The options are grouped by what they set, one
//! module each; bowtie2's scoring and seed options are read in command-line order, as
//! bowtie2 reads them (`order`, `policy`, `params`).

mod input;
mod no_effect;
mod order;
mod output;
mod pairing;
mod params;
mod performance;
mod policy;
mod read_files;
mod scoring;
mod search;
mod values;

use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

use seqfarm_align::AlignMode;

pub use self::input::InputArgs;
pub use self::no_effect::print_usage;
pub use self::no_effect::NoEffectArgs;
pub use self::order::OptionOrder;
pub use self::output::OutputArgs;
pub use self::pairing::PairingArgs;
pub use self::performance::PerformanceArgs;
pub use self::read_files::ReadFileArgs;
pub use self::scoring::ScoringArgs;
pub use self::search::SearchArgs;
use seqfarm::cmd::align::{
    align, command_line, AlignOptions, AlignRun, AlignSummary, OptionalFields, RecordStyle,
    ScoreRange, SummaryCounts, SummaryStyle,
};
use seqfarm::options::FarmOptions;

use crate::common::ForceArg;

/// Align reads to an index, single- or paired-end (bowtie2's options and output)
#[derive(Debug, Clone, clap::Args)]
#[command(
    args_override_self = true,
    after_help = "Reads may be FASTQ or FASTA (detected from the content), plain or \
    gzip-compressed. End-to-end mode scores as bowtie2 does (mismatch 2-6 by quality, N 1, \
    gap 5+3k, minimum -0.6-0.6L); --local adds a match bonus of 2, soft clipping and a \
    minimum of 20+8ln(L). Every option of bowtie2 2.5's parser is accepted (those without \
    effect are not listed here); those of bowtie2's search that seqfarm's differs from \
    (-N -L -i -D -R --dpad ...) are listed in docs/ALIGNER.md. Output is in input order, \
    identical at any thread count."
)]
pub struct AlignArgs {
    /// Where the scoring and seed options stood (read before the groups below take
    /// their values).
    #[command(flatten)]
    pub order: OptionOrder,
    /// The index, the reads and how to read them.
    #[command(flatten)]
    pub input: InputArgs,
    /// Presets, mode, seeds, reporting.
    #[command(flatten)]
    pub search: SearchArgs,
    /// Scoring.
    #[command(flatten)]
    pub scores: ScoringArgs,
    /// Pairing.
    #[command(flatten)]
    pub pairs: PairingArgs,
    /// Output.
    #[command(flatten)]
    pub output: OutputArgs,
    /// Reads by outcome.
    #[command(flatten)]
    pub read_files: ReadFileArgs,
    /// Threads, memory, NUMA.
    #[command(flatten)]
    pub performance: PerformanceArgs,
    /// bowtie2's switches without effect here.
    #[command(flatten)]
    pub no_effect: NoEffectArgs,
    /// Overwriting outputs.
    #[command(flatten)]
    pub force: ForceArg,
}

/// The paths of bowtie2's comma-separated list `list` (`a.fq,b.fq`), split on the
/// byte `,` so that names that are not UTF-8 stay as they are.
fn comma_separated(list: &std::path::Path) -> impl Iterator<Item = PathBuf> + '_ {
    list.as_os_str()
        .as_bytes()
        .split(|&b| b == b',')
        .map(|name| PathBuf::from(std::ffi::OsStr::from_bytes(name)))
}

impl AlignArgs {
    /// Runs the command.
    pub fn run(self) -> anyhow::Result<()> {
        let run = AlignRun {
            // Arguments that are not UTF-8 go to @PG CL: with U+FFFD for their bad bytes.
            command_line: command_line(
                std::env::args_os().map(|a| a.to_string_lossy().into_owned()),
            ),
            index: None,
            print_summary: true,
        };
        self.execute(&run).map(drop)
    }

    /// Runs the command as `run` says (`--usage`/`--arg-desc`: prints the usage
    /// instead); returns what its summary reports.
    pub fn execute(self, run: &AlignRun<'_>) -> anyhow::Result<AlignSummary> {
        if self.no_effect.arg_desc || self.no_effect.usage {
            print_usage(self.no_effect.arg_desc)?;
            return Ok(AlignSummary {
                counts: SummaryCounts::default(),
                style: SummaryStyle::default(),
            });
        }
        align(&self.into_options()?, run)
    }

    /// The options of the run these arguments ask for: bowtie2's positional arguments
    /// moved into their options, every value checked (the same errors, in the same
    /// order, as the command gives) and resolved.
    pub fn into_options(self) -> anyhow::Result<AlignOptions> {
        let args = self.with_positional()?;
        args.check()?;
        Ok(AlignOptions {
            params: args.params()?,
            pairing: args.pairs.pairing()?,
            reads: args.input.sources()?,
            parse: args.input.parse_options()?,
            style: args.record_style()?,
            warnings: args.warnings()?,
            read_group_line: args.output.read_group_line()?,
            read_files: args.read_files.read_file_specs(),
            ignore_quals: args.scores.ignore_quals,
            sample: args.input.sample,
            output: args
                .output
                .bam
                .clone()
                .or_else(|| args.output.sam.clone())
                .unwrap_or_else(|| PathBuf::from("-")),
            sort: args.output.sort,
            sort_memory: args.output.sort_memory,
            markdup: args.output.markdup,
            markdup_metrics: args.output.markdup_metrics,
            no_header: args.output.no_head,
            no_sq: args.output.no_sq,
            quiet: args.output.quiet,
            time: args.output.time,
            met_file: args.output.met_file,
            met_stderr: args.output.met_stderr,
            met_interval: args.output.met,
            plot: args.output.plot,
            farm: FarmOptions {
                threads: args.performance.threads,
                pin: args.performance.pin,
                stats: args.performance.stats.stats,
            },
            numa: args.performance.numa.numa,
            mm: args.performance.mm,
            force: args.force.force,
            index: args.input.index.unwrap_or_default(),
        })
    }

    /// How the records are written, from the output options (an error for a second
    /// read group ID).
    pub fn record_style(&self) -> anyhow::Result<RecordStyle> {
        Ok(RecordStyle {
            bam: self.output.bam.is_some(),
            no_unaligned: self.output.no_unal,
            read_group: self.output.read_group_id()?.map(str::to_owned),
            omit_secondary_seq: self.output.omit_sec_seq,
            xeq: self.output.xeq,
            tlen_without_clips: self.output.soft_clipped_unmapped_tlen,
            full_names: self.output.sam_no_qname_trunc,
            append_comment: self.output.sam_append_comment,
            preserve_tags: self.input.preserve_tags,
            qc_filter: self.input.qc_filter,
            report_limit: self
                .search
                .all
                .then_some(usize::MAX)
                .or(self.search.report.map(|k| k as usize)),
            fields: self.optional_fields()?.0,
        })
    }

    /// Moves bowtie2's positional arguments (`[INDEX] [READS [OUT.sam]]`) into the
    /// options they stand for.
    pub fn with_positional(mut self) -> anyhow::Result<Self> {
        let mut words = std::mem::take(&mut self.input.positional).into_iter();
        if self.input.index.is_none() {
            self.input.index = words.next();
        }
        if let Some(reads) = words.next() {
            self.input.reads.extend(comma_separated(&reads));
        }
        // bowtie2 skips the empty entries of a list (`r1.fq,` or `a.fq,,b.fq`).
        for list in [
            &mut self.input.mates1,
            &mut self.input.mates2,
            &mut self.input.reads,
            &mut self.input.interleaved,
            &mut self.input.bam_input,
            &mut self.input.tab5,
            &mut self.input.tab6,
        ] {
            list.retain(|p| !p.as_os_str().is_empty());
        }
        if let Some(out) = words.next() {
            if self.output.sam.is_some() || self.output.bam.is_some() {
                anyhow::bail!("{}: an output is given by -S/-o already", out.display());
            }
            self.output.sam = Some(out);
        }
        if let Some(extra) = words.next() {
            anyhow::bail!("unexpected argument {}", extra.display());
        }
        if self.input.index.is_none() {
            anyhow::bail!("no index: give -x INDEX");
        }
        Ok(self)
    }

    /// Checks what clap cannot: some input, and every option's value.
    pub fn check(&self) -> anyhow::Result<()> {
        self.input.check()?;
        self.no_effect.check()?;
        if self.output.soft_clipped_unmapped_tlen && self.mode()? == AlignMode::EndToEnd {
            anyhow::bail!(
                "--soft-clipped-unmapped-tlen can only be set for local alignments (--local), \
                 as in bowtie2"
            );
        }
        if self.output.sort
            && self
                .output
                .bam
                .as_deref()
                .is_none_or(|p| p == std::path::Path::new("-"))
        {
            match &self.output.sam {
                Some(sam) if sam != std::path::Path::new("-") => anyhow::bail!(
                    "--sort writes a BAM file with its index (-o OUT.bam), not the SAM of -S {}",
                    sam.display()
                ),
                _ => anyhow::bail!(
                    "--sort needs a BAM file to write (-o OUT.bam), not standard output"
                ),
            }
        }
        self.params()?;
        self.pairs.pairing()?;
        self.output.read_group_line()?;
        self.optional_fields()?;
        Ok(())
    }

    /// The optional fields the records carry (`--sam-opt-config`), and the names it turns
    /// on that seqfarm does not write.
    pub fn optional_fields(&self) -> anyhow::Result<(OptionalFields, Vec<String>)> {
        let mut fields = OptionalFields::default();
        let mut skipped = Vec::new();
        if let Some(list) = &self.output.sam_opt_config {
            let scoring = self.scoring()?;
            let range = ScoreRange {
                min_score: scoring.min_score,
                match_bonus: scoring.match_bonus,
            };
            skipped = fields
                .configure(list, range)
                .map_err(|e| anyhow::anyhow!("--sam-opt-config {e}"))?;
        }
        Ok((fields, skipped))
    }

    /// What the run should say on standard error before it starts (unless `--quiet`):
    /// options accepted with less than bowtie2's effect.
    pub fn warnings(&self) -> anyhow::Result<Vec<String>> {
        let mut notes = Vec::new();
        if self.output.read_group_id()?.is_none() && !self.output.rg.is_empty() {
            notes.push(
                "seqfarm: warning: --rg without a read group ID (--rg-id or --rg ID:...): no \
                 @RG line is written, as in bowtie2"
                    .to_string(),
            );
        }
        let scoring = self.scoring()?;
        if let Some(len) = scoring.min_score_clamped_at() {
            let (sign, mode) = match scoring.mode {
                AlignMode::EndToEnd => ("positive", "--end-to-end"),
                AlignMode::Local => ("negative", "--local"),
            };
            notes.push(format!(
                "seqfarm: warning: the minimum score function gives a {sign} number in {mode} \
                 mode (for reads of {len} bases, and maybe others); it is set to 0 for those \
                 reads, as in bowtie2"
            ));
        }
        if self.search.max_hits.is_some() {
            notes
                .push("Warning: -M is deprecated.  Use -D and -R to adjust effort instead.".into());
        }
        if self.search.overhang {
            notes.push(
                "seqfarm: warning: --overhang: seqfarm aligns within the references and reports no alignment \
                 hanging off a reference end"
                    .to_string(),
            );
        }
        let (_, skipped) = self.optional_fields()?;
        if !skipped.is_empty() {
            notes.push(format!(
                "seqfarm: warning: --sam-opt-config: seqfarm does not write {} (bowtie2's search counters, \
                 seeds and MAPQ inputs)",
                skipped.join(", ")
            ));
        }
        let policy = self.policy()?;
        if let Some(n) = policy.seed_mismatches {
            if usize::from(n) >= policy.seed_len {
                notes.push(format!(
                    "seqfarm: warning: seed mismatches ({n}) is not less than the seed length ({}); setting \
                     mismatches to {} instead, as bowtie2 does",
                    policy.seed_len,
                    policy.seed_len - 1
                ));
            }
        }
        Ok(notes)
    }
}

#[cfg(test)]
mod parser_tests;
#[cfg(test)]
mod tests;
