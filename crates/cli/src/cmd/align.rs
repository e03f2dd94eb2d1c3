//! `seqfarm align`: single-end reads against an FM-index, bowtie2's scoring, on a farm.
//!
//! The emitter cuts the read files into chunks at record boundaries; each worker parses
//! its chunk, aligns it ([`seqfarm_align::Aligner`]) and formats the records (SAM text,
//! or BAM compressed into BGZF blocks) into the task's own buffer; the collector writes
//! the buffers in input order. A bad record becomes an error stored in its task, which
//! the collector reports in input order, so the first bad record in the file is the one
//! named, at any thread count.

#[allow(dead_code)]
mod mate_files;
#[allow(dead_code)]
mod metrics;
mod records;
#[allow(dead_code)]
mod summary;

use std::io::Read;
use std::path::PathBuf;

use anyhow::Context;
use seqfarm_align::{AlignMode, AlignParams, Aligner, Preset, ReadInput, ReadResult};
use seqfarm_farm::{Fill, WorkerInfo};
use seqfarm_fmindex::{index_path, FmIndex, LoadOptions};
use seqfarm_io::bgzf_writer::{BgzfCompressor, EOF_MARKER};
use seqfarm_io::output::Output;
use seqfarm_io::reads::{ChunkLimits, ParseOptions, ReadBatch, ReadChunk, ReadChunker};
use seqfarm_io::sam::bam::encode_header;
use seqfarm_io::sam::{SamHeader, SamReference};

use self::records::{AlignCounts, RecordStyle, RecordWriter};
use crate::common::{farm_error, FarmArgs, ForceArg};
use crate::progress;

/// Reads per task: large enough to amortise the task hand-over and fill the SIMD
/// extension groups, small enough that every worker has several in flight.
const READS_PER_TASK: usize = 1024;
/// BGZF compression level of BAM output (htslib's default).
const BAM_LEVEL: i32 = 6;

/// Align single-end reads to an index (bowtie2's scoring and options)
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Reads may be FASTQ or FASTA (detected from the content), plain or \
    gzip-compressed. End-to-end mode scores as bowtie2 does (mismatch 2-6 by quality, N 1, \
    gap 5+3k, minimum -0.6-0.6L); --local adds a match bonus of 2, soft clipping and a \
    minimum of 20+8ln(L). Output is in input order, identical at any thread count."
)]
pub struct AlignArgs {
    /// Index prefix (PREFIX.sfi, as written by `seqfarm index`)
    #[arg(short = 'x', value_name = "INDEX")]
    index: PathBuf,
    /// Reads (FASTQ/FASTA, plain or gzip; `-` for standard input; comma-separated list)
    #[arg(
        short = 'U',
        value_name = "READS",
        required = true,
        value_delimiter = ','
    )]
    reads: Vec<PathBuf>,
    /// SAM output [default: standard output]
    #[arg(short = 'S', value_name = "OUT.sam", conflicts_with = "bam")]
    sam: Option<PathBuf>,
    /// BAM output (BGZF blocks compressed by the workers)
    #[arg(short = 'o', value_name = "OUT.bam")]
    bam: Option<PathBuf>,
    /// Worker threads, as bowtie2's -p (same as -t/--threads) [default: all cores]
    #[arg(short = 'p', value_name = "N", conflicts_with = "threads")]
    bowtie_threads: Option<usize>,
    #[command(flatten)]
    farm: FarmArgs,
    /// Align every read base (the default)
    #[arg(long, conflicts_with = "local")]
    end_to_end: bool,
    /// Local alignment: soft-clip ends, match bonus 2
    #[arg(long)]
    local: bool,
    /// Fewest seeds and candidates
    #[arg(long, group = "preset")]
    very_fast: bool,
    /// Fewer candidates
    #[arg(long, group = "preset")]
    fast: bool,
    /// The default search effort
    #[arg(long, group = "preset")]
    sensitive: bool,
    /// Shorter seeds, more candidates
    #[arg(long, group = "preset")]
    very_sensitive: bool,
    /// --very-fast with --local
    #[arg(long, group = "preset")]
    very_fast_local: bool,
    /// --fast with --local
    #[arg(long, group = "preset")]
    fast_local: bool,
    /// --sensitive with --local
    #[arg(long, group = "preset")]
    sensitive_local: bool,
    /// --very-sensitive with --local
    #[arg(long, group = "preset")]
    very_sensitive_local: bool,
    /// Report up to N alignments per read (the best is primary, others flag 256)
    #[arg(short = 'k', value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1000))]
    report: u32,
    /// Leave unaligned reads out of the output
    #[arg(long)]
    no_unal: bool,
    /// Read group ID: adds an @RG line and RG:Z to every record
    #[arg(long, value_name = "ID")]
    rg_id: Option<String>,
    /// Field for the @RG line, e.g. SM:sample (repeatable; needs --rg-id)
    #[arg(long, value_name = "TAG:VALUE", requires = "rg_id")]
    rg: Vec<String>,
    /// Qualities are Phred+64 (old Illumina) instead of Phred+33
    #[arg(long)]
    phred64: bool,
    /// Reads are FASTQ (accepted for bowtie2 compatibility; the format is detected)
    #[arg(short = 'q', conflicts_with = "fasta")]
    fastq: bool,
    /// Reads are FASTA (accepted for bowtie2 compatibility; the format is detected)
    #[arg(short = 'f')]
    fasta: bool,
    #[command(flatten)]
    force: ForceArg,
}

/// A farm task: a chunk of reads in, records (or the first bad record's error) out.
#[derive(Default)]
struct AlignTask {
    chunk: ReadChunk,
    out: Vec<u8>,
    counts: AlignCounts,
    error: Option<seqfarm_io::Error>,
}

impl AlignArgs {
    fn params(&self) -> AlignParams {
        let local = self.local
            || self.very_fast_local
            || self.fast_local
            || self.sensitive_local
            || self.very_sensitive_local;
        let preset = if self.very_fast || self.very_fast_local {
            Preset::VeryFast
        } else if self.fast || self.fast_local {
            Preset::Fast
        } else if self.very_sensitive || self.very_sensitive_local {
            Preset::VerySensitive
        } else {
            Preset::Sensitive
        };
        let mode = if local {
            AlignMode::Local
        } else {
            AlignMode::EndToEnd
        };
        AlignParams {
            report: self.report as usize,
            ..AlignParams::new(mode, preset)
        }
    }

    fn header(&self, index: &FmIndex) -> anyhow::Result<SamHeader> {
        let references = index
            .contigs()
            .iter()
            .map(|c| SamReference {
                name: c.name.clone(),
                len: c.len,
            })
            .collect();
        let mut lines = Vec::new();
        if let Some(id) = &self.rg_id {
            check_header_text("--rg-id", id)?;
            let mut line = format!("@RG\tID:{id}");
            for field in &self.rg {
                check_header_text("--rg", field)?;
                line.push('\t');
                line.push_str(field);
            }
            lines.push(line);
        }
        lines.push(format!(
            "@PG\tID:seqfarm\tPN:seqfarm\tVN:{}\tCL:{}",
            env!("CARGO_PKG_VERSION"),
            command_line(std::env::args())
        ));
        Ok(SamHeader::new(references, &lines))
    }

    /// Runs the command.
    pub fn run(self) -> anyhow::Result<()> {
        let params = self.params();
        let style = RecordStyle {
            bam: self.bam.is_some(),
            no_unaligned: self.no_unal,
            read_group: self.rg_id.clone(),
        };
        let out_path = self
            .bam
            .clone()
            .or_else(|| self.sam.clone())
            .unwrap_or_else(|| PathBuf::from("-"));
        // Refuse an existing output before loading anything.
        let mut output = Output::create(&out_path, self.force.overwrite())?;
        let index_file = index_path(&self.index);
        let index = FmIndex::open(&index_file, LoadOptions::default())
            .with_context(|| format!("cannot load the index {}", index_file.display()))?;
        let header = self.header(&index)?;
        let mut compressor = BgzfCompressor::new(BAM_LEVEL);
        if style.bam {
            let mut bytes = Vec::new();
            encode_header(&header, &mut bytes);
            let mut blocks = Vec::new();
            compressor.compress(&bytes, &mut blocks);
            output.put(&blocks)?;
        } else {
            output.put(header.text.as_bytes())?;
        }
        let parse = ParseOptions {
            quality_offset: if self.phred64 { 64 } else { 33 },
            ..ParseOptions::default()
        };
        let mut config = self.farm.config();
        if let Some(n) = self.bowtie_threads.filter(|&n| n > 0) {
            config.workers = n;
        }
        let mut chunker = ReadChunker::new(
            self.reads.clone(),
            ChunkLimits {
                max_records: READS_PER_TASK,
                max_bytes: 4 << 20,
            },
        );
        let bar = input_progress(&self.reads);
        let mut totals = AlignCounts::default();
        let mut emitter = |task: &mut AlignTask| -> Result<Fill, anyhow::Error> {
            task.out.clear();
            task.error = None;
            task.counts = AlignCounts::default();
            Ok(if chunker.fill(&mut task.chunk)? {
                Fill::Task
            } else {
                Fill::End
            })
        };
        let make_worker = |_: WorkerInfo| -> Result<_, anyhow::Error> {
            let mut aligner = Aligner::new(&index, params.clone());
            let mut batch = ReadBatch::new();
            let mut results: Vec<ReadResult> = Vec::new();
            let mut writer = RecordWriter::default();
            let mut compressor = BgzfCompressor::new(BAM_LEVEL);
            let mut records = Vec::new();
            let (header, style, parse) = (&header, &style, &parse);
            Ok(move |task: &mut AlignTask| -> Result<(), anyhow::Error> {
                if let Err(e) = batch.parse(&task.chunk, parse) {
                    task.error = Some(e);
                    return Ok(());
                }
                let reads: Vec<ReadInput<'_>> = (0..batch.len())
                    .map(|i| {
                        let r = batch.get(i);
                        ReadInput {
                            name: r.name,
                            bases: r.bases,
                            qualities: r.qualities,
                        }
                    })
                    .collect();
                aligner.align_batch(&reads, &mut results);
                records.clear();
                let target = if style.bam {
                    &mut records
                } else {
                    &mut task.out
                };
                for (i, result) in results.iter().enumerate() {
                    task.counts += writer.write(header, style, &batch.get(i), result, target);
                }
                if style.bam {
                    compressor.compress(&records, &mut task.out);
                }
                Ok(())
            })
        };
        let mut collector = |task: &mut AlignTask| -> Result<(), anyhow::Error> {
            if let Some(e) = task.error.take() {
                return Err(e.into());
            }
            output.put(&task.out)?;
            totals += task.counts;
            bar.advance(task.chunk.data.len() as u64, task.counts.reads);
            Ok(())
        };
        seqfarm_farm::run(
            &config,
            AlignTask::default,
            &mut emitter,
            make_worker,
            &mut collector,
        )
        .map_err(farm_error)?;
        bar.finish();
        if style.bam {
            output.put(&EOF_MARKER)?;
        }
        output.commit()?;
        report(&totals);
        Ok(())
    }
}

/// Progress on a terminal: input bytes when every input is an uncompressed file (the
/// total is known), reads otherwise.
enum InputProgress {
    Bytes(indicatif::ProgressBar),
    Reads(indicatif::ProgressBar),
}

impl InputProgress {
    fn advance(&self, bytes: u64, reads: u64) {
        match self {
            InputProgress::Bytes(bar) => bar.inc(bytes),
            InputProgress::Reads(bar) => bar.inc(reads),
        }
    }

    fn finish(&self) {
        match self {
            InputProgress::Bytes(bar) | InputProgress::Reads(bar) => bar.finish_and_clear(),
        }
    }
}

fn input_progress(paths: &[PathBuf]) -> InputProgress {
    let mut total = 0u64;
    for path in paths {
        let plain = std::fs::File::open(path).ok().and_then(|mut f| {
            let mut magic = [0u8; 2];
            let len = f.metadata().ok()?.len();
            let gzipped = f.read_exact(&mut magic).is_ok() && magic == [0x1f, 0x8b];
            (!gzipped && f.metadata().ok()?.is_file()).then_some(len)
        });
        match plain {
            Some(len) => total += len,
            None => return InputProgress::Reads(progress::items("align")),
        }
    }
    InputProgress::Bytes(progress::bytes(total, "align"))
}

/// The command line for `@PG CL:`, without the thread options (`-p`, `-t`,
/// `--threads`, `--pin`): they do not change the alignments, and leaving them out
/// keeps the output byte-identical at any thread count.
fn command_line(args: impl Iterator<Item = String>) -> String {
    let mut kept: Vec<String> = Vec::new();
    let mut skip_value = false;
    for arg in args {
        if std::mem::take(&mut skip_value) {
            continue;
        }
        match arg.as_str() {
            "-p" | "-t" | "--threads" => skip_value = true,
            "--pin" => {}
            a if a.starts_with("--threads=") => {}
            a if (a.starts_with("-p") || a.starts_with("-t"))
                && a.len() > 2
                && a[2..].bytes().all(|b| b.is_ascii_digit()) => {}
            _ => kept.push(arg.replace(['\t', '\n', '\r'], " ")),
        }
    }
    kept.join(" ")
}

/// Rejects header text with tabs or line breaks (they would break the header).
fn check_header_text(option: &str, text: &str) -> anyhow::Result<()> {
    if text.is_empty() || text.contains(['\t', '\n', '\r']) {
        anyhow::bail!("{option} {text:?}: must be non-empty, without tabs or line breaks");
    }
    Ok(())
}

/// bowtie2's summary on standard error.
fn report(c: &AlignCounts) {
    let counts = summary::SummaryCounts {
        unpaired: summary::AlignedTimes {
            zero: c.unaligned,
            once: c.unique,
            more: c.multiple,
        },
        ..summary::SummaryCounts::default()
    };
    let _ = summary::write_summary(
        &mut std::io::stderr().lock(),
        &counts,
        summary::SummaryStyle::default(),
    );
}

#[cfg(test)]
mod tests {
    use super::command_line;

    #[test]
    fn command_line_leaves_out_thread_options() {
        let args = [
            "seqfarm",
            "align",
            "-p",
            "4",
            "-x",
            "ix",
            "-t8",
            "--pin",
            "--threads=2",
            "-U",
            "r.fq",
        ];
        let line = command_line(args.iter().map(|s| s.to_string()));
        assert_eq!(line, "seqfarm align -x ix -U r.fq");
    }
}
