//! The work of one align worker on one task: parse the chunk's reads, align them
//! (reads one by one, pairs together) and format their records and `--un`/`--al` reads
//! into the task's buffers.

use seqfarm_align::{
    AlignParams, Aligner, PairInput, PairParams, PairResult, ReadInput, ReadResult, Unaligned,
};
use seqfarm_fmindex::FmIndex;
use seqfarm_io::bam_sort::BatchSort;
use seqfarm_io::bgzf_writer::BgzfCompressor;
use seqfarm_io::reads::{Fragment, FragmentBatch, ParseOptions, ReadRef};
use seqfarm_io::sam::SamHeader;

use super::mate_files::{ReadRouting, ReadText};
use super::records::{RecordStyle, RecordWriter};
use super::{AlignTask, BAM_LEVEL};

/// What every worker formats its records with.
pub struct ChunkFormat<'a> {
    /// The SAM header (contig numbers, and the text `--no-hd` leaves out).
    pub header: &'a SamHeader,
    /// How records are written.
    pub style: &'a RecordStyle,
    /// How read records are checked and decoded.
    pub parse: &'a ParseOptions,
    /// The pairing rules.
    pub pairing: &'a PairParams,
    /// `--ignore-quals`.
    pub ignore_quals: bool,
    /// Which `--un`/`--al` files the reads go to.
    pub routing: ReadRouting,
    /// BAM records are left uncompressed and sorted by coordinate within the task, for
    /// the collector's sorter to merge (`--sort`).
    pub sorting: bool,
    /// MAPQ and insert sizes are counted for a picture (`--plot`).
    pub plotting: bool,
    /// Only a share of the reads is aligned (`--sample`).
    pub sample: Option<Sample>,
}

/// bowtie2's `--sample`: each read or pair is aligned with probability `fraction`,
/// chosen from its first read's name and bases and `seed`, so the same reads are chosen
/// at any thread count; the others are left out of every output and count.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    /// The share aligned, 0 to 1 (1 or more: every read).
    pub fraction: f64,
    /// `--seed`.
    pub seed: u64,
}

impl Sample {
    /// Whether `read` (a pair's first mate) is aligned.
    pub fn keeps(&self, read: &ReadRef<'_>) -> bool {
        // FNV-1a over the name and the bases, mixed with the seed (SplitMix64's finish).
        let mut h = 0xcbf2_9ce4_8422_2325u64 ^ self.seed;
        for &b in read.name.iter().chain([&0u8]).chain(read.bases) {
            h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
        h ^= h >> 30;
        h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
        h ^= h >> 27;
        h = h.wrapping_mul(0x94d0_49bb_1331_11eb);
        h ^= h >> 31;
        ((h >> 11) as f64 / (1u64 << 53) as f64) < self.fraction
    }
}

/// A worker's private state: its aligner and the buffers it reuses from task to task.
pub struct ChunkWorker<'i> {
    aligner: Aligner<'i>,
    batch: FragmentBatch,
    single_results: Vec<ReadResult>,
    pair_results: Vec<PairResult>,
    writer: RecordWriter,
    compressor: BgzfCompressor,
    records: Vec<u8>,
    batch_sort: BatchSort,
}

impl<'i> ChunkWorker<'i> {
    /// A worker aligning against `index` with `params`.
    pub fn new(index: &'i FmIndex, params: AlignParams) -> anyhow::Result<Self> {
        Ok(Self {
            aligner: Aligner::new(index, params)?,
            batch: FragmentBatch::new(),
            single_results: Vec::new(),
            pair_results: Vec::new(),
            writer: RecordWriter::default(),
            compressor: BgzfCompressor::new(BAM_LEVEL),
            records: Vec::new(),
            batch_sort: BatchSort::default(),
        })
    }

    /// Parses and aligns the task's chunk and formats its records (SAM text, BAM in
    /// BGZF blocks, or bare BAM records sorted by coordinate) into `task.out`; a bad read record is left in `task.error`.
    pub fn process(
        &mut self,
        format: &ChunkFormat<'_>,
        task: &mut AlignTask,
    ) -> anyhow::Result<()> {
        self.writer.tallying = format.plotting;
        if format.plotting {
            self.writer.tally.clear();
        }
        if let Err(e) = self.batch.parse(&task.chunk, format.parse) {
            task.error = Some(e);
            return Ok(());
        }
        let qc_filter = format.style.qc_filter;
        let mut singles = Vec::new();
        let mut pairs = Vec::new();
        let sampled: Vec<bool> = (0..self.batch.len())
            .map(|i| {
                format.sample.is_none_or(|s| match self.batch.fragment(i) {
                    Fragment::Single(r) => s.keeps(&r),
                    Fragment::Pair([m1, _]) => s.keeps(&m1),
                })
            })
            .collect();
        for i in (0..self.batch.len()).filter(|&i| sampled[i]) {
            match self.batch.fragment(i) {
                Fragment::Single(r) => singles.push(read_input(&r, format.ignore_quals, qc_filter)),
                Fragment::Pair([m1, m2]) => pairs.push(PairInput {
                    mates: [
                        read_input(&m1, format.ignore_quals, qc_filter),
                        read_input(&m2, format.ignore_quals, qc_filter),
                    ],
                }),
            }
        }
        self.aligner.align_batch(&singles, &mut self.single_results);
        self.aligner
            .align_pairs(&pairs, format.pairing, &mut self.pair_results);
        drop((singles, pairs));
        self.records.clear();
        let compress = format.style.bam && !format.sorting;
        let target = if compress {
            &mut self.records
        } else {
            &mut task.out
        };
        // `-k 1`: bowtie2's search stops at the first alignment.
        let first_only = format.style.report_limit == Some(1);
        let (mut next_single, mut next_pair) = (0, 0);
        for i in (0..self.batch.len()).filter(|&i| sampled[i]) {
            match self.batch.fragment(i) {
                Fragment::Single(r) => {
                    let result = &mut self.single_results[next_single];
                    next_single += 1;
                    if format.style.qc_filter && r.filtered {
                        *result = ReadResult::Unaligned(Unaligned::QcFailed);
                    }
                    if first_only {
                        forget_runner_up(result);
                    }
                    self.writer
                        .write(format.header, format.style, &r, result, target);
                    task.counts.summary.add_read(result);
                    task.counts.input.add_read(r.bases.len(), result);
                    format
                        .routing
                        .add_read(&mut task.read_files, ReadText(r.original), result);
                }
                Fragment::Pair(mates) => {
                    let result = &mut self.pair_results[next_pair];
                    next_pair += 1;
                    for (mate, outcome) in mates.iter().zip(&mut result.mates) {
                        if format.style.qc_filter && mate.filtered {
                            *outcome = ReadResult::Unaligned(Unaligned::QcFailed);
                        }
                        if first_only {
                            forget_runner_up(outcome);
                        }
                    }
                    if first_only {
                        result.other_pairs = false;
                    }
                    self.writer.write_pair(
                        format.header,
                        format.style,
                        [&mates[0], &mates[1]],
                        result,
                        target,
                    );
                    task.counts.summary.add_pair(result);
                    task.counts
                        .input
                        .add_pair([mates[0].bases.len(), mates[1].bases.len()], result);
                    format.routing.add_pair(
                        &mut task.read_files,
                        [ReadText(mates[0].original), ReadText(mates[1].original)],
                        result,
                    );
                }
            }
        }
        format.routing.finish_task(&mut task.read_files)?;
        if format.plotting {
            std::mem::swap(&mut task.tally, &mut self.writer.tally);
        }
        if compress {
            self.compressor.compress(&self.records, &mut task.out);
        } else if format.sorting {
            self.batch_sort.sort(&mut task.out);
        }
        Ok(())
    }
}

/// What the aligner sees of `read`: `--ignore-quals` charges the maximum penalty, as
/// for a read without qualities (bowtie2 does so); a read that failed the QSEQ filter
/// is not aligned with `--qc-filter` (given no bases; reported as `YF:Z:QC`).
fn read_input<'a>(read: &ReadRef<'a>, ignore_quals: bool, qc_filter: bool) -> ReadInput<'a> {
    let skip = qc_filter && read.filtered;
    ReadInput {
        name: read.name,
        bases: if skip { &[] } else { read.bases },
        qualities: if ignore_quals || skip {
            None
        } else {
            read.qualities
        },
    }
}

/// A result as bowtie2 knows it under `-k 1`, where its search stops at the first
/// alignment: no second-best score, so no `XS:i` and "aligned exactly 1 time".
fn forget_runner_up(result: &mut ReadResult) {
    if let ReadResult::Aligned { second_best, .. } = result {
        *second_best = None;
    }
}
