//! Decoding a CRAM's containers on a farm, each worker with a decoder of its own: into an
//! indexed BAM in an unlinked temporary file ([`CramInput::open`]), or record by record
//! into per-worker state ([`CramFile::for_each_record`]); and the tasks, runs of whole
//! containers, the emitter hands out.

use std::io::Write;
use std::path::Path;

use seqfarm_farm::{FarmConfig, FarmError, Fill};

#[cfg(feature = "htslib")]
use super::htslib::HtsContainerDecoder;
#[cfg(feature = "htslib")]
use super::reference::HtsReference;
use super::{
    layout, ContainerSizes, ContainerSpan, CramFile, Fields, ReadOptions, ReferenceSource,
    WantedRanges,
};
use crate::bam::{BamFile, BamIndex};
use crate::bam_writer::IndexedBamWriter;
use crate::bgzf_writer::BgzfCompressor;
use crate::{Error, Result};

/// Compressed CRAM bytes per task, about (whole containers).
const TASK_BYTES: u64 = 1 << 20;

/// What every worker's [`ContainerDecoder`] is made from: the CRAM, its reference (for
/// htslib, as a file it can read) and the fields wanted.
struct DecoderSource<'a> {
    cram: &'a CramFile,
    reference: &'a ReferenceSource,
    fields: Fields,
    #[cfg(feature = "htslib")]
    hts_reference: HtsReference,
}

impl<'a> DecoderSource<'a> {
    fn new(cram: &'a CramFile, reference: &'a ReferenceSource, fields: Fields) -> Result<Self> {
        Ok(Self {
            cram,
            reference,
            fields,
            #[cfg(feature = "htslib")]
            hts_reference: HtsReference::prepare(reference)?,
        })
    }

    /// A decoder for one worker.
    fn decoder(&self) -> Result<ContainerDecoder<'a>> {
        ContainerDecoder::open(
            self.cram,
            self.reference,
            self.fields,
            #[cfg(feature = "htslib")]
            &self.hts_reference,
        )
    }
}

/// One worker's container decoder: htslib (feature `htslib`, the binary's default) with
/// a handle of its own, else noodles-cram.
pub(super) struct ContainerDecoder<'a> {
    cram: &'a CramFile,
    reference: &'a ReferenceSource,
    fields: Fields,
    #[cfg(feature = "htslib")]
    hts: HtsContainerDecoder,
}

impl<'a> ContainerDecoder<'a> {
    /// A decoder of `cram`'s containers against `reference` (for htslib, read from
    /// `hts_reference`, which must outlive the decoder).
    pub(super) fn open(
        cram: &'a CramFile,
        reference: &'a ReferenceSource,
        fields: Fields,
        #[cfg(feature = "htslib")] hts_reference: &HtsReference,
    ) -> Result<Self> {
        Ok(Self {
            cram,
            reference,
            fields,
            #[cfg(feature = "htslib")]
            hts: HtsContainerDecoder::open(cram.path(), hts_reference.path(), fields)?,
        })
    }

    /// Appends the records of container `span` to `out` as BAM records, after checking
    /// the checksums of all its blocks and, when the fields need it, the reference.
    pub(super) fn decode(&mut self, span: &ContainerSpan, out: &mut Vec<u8>) -> Result<()> {
        let cram = self.cram;
        layout::check_block_checksums(cram.container_bytes(span))
            .map_err(|m| cram.container_error(span, m))?;
        if self.fields.need_reference() {
            cram.check_reference_for(span, self.reference)?;
        }
        #[cfg(feature = "htslib")]
        let decoded = self.hts.decode(span, out);
        #[cfg(not(feature = "htslib"))]
        let decoded = cram.decode_container(span, self.reference, out);
        cram.release(span);
        decoded
    }
}

/// A CRAM read as an indexed BAM.
#[derive(Debug)]
pub struct CramInput {
    /// The records as a BAM (named by the CRAM's path in errors).
    pub bam: BamFile,
    /// Its index.
    pub index: BamIndex,
    /// Containers decoded.
    pub containers: usize,
    /// The sizes of all its containers, decoded or not, by genomic range.
    pub sizes: ContainerSizes,
}

impl CramFile {
    /// Opens the CRAM at `path` ([`CramFile::open`]) and, when decoding `fields` needs
    /// one ([`Fields::need_reference`]), its reference: `reference`, or the `@SQ UR:`
    /// file, or none (the embedded one). The length and `M5` of each reference sequence
    /// are checked before the first container that uses it is decoded, not here: a job
    /// that decodes a few containers of a CRAM of a human genome (a part of a run spread
    /// over machines) would otherwise read and digest all 3 Gbp of it.
    pub fn open_with_reference(
        path: &Path,
        reference: Option<&Path>,
        fields: Fields,
    ) -> Result<(Self, ReferenceSource)> {
        let cram = CramFile::open(path)?;
        let source = cram.reference_source(reference, fields)?;
        Ok((cram, source))
    }

    /// The reference decoding `fields` of this CRAM needs ([`CramFile::open_with_reference`]).
    pub fn reference_source(
        &self,
        reference: Option<&Path>,
        fields: Fields,
    ) -> Result<ReferenceSource> {
        if !fields.need_reference() {
            return Ok(ReferenceSource::none());
        }
        ReferenceSource::open(reference, self.header())
    }

    /// Decodes containers `containers` (numbers in [`CramFile::containers`]; a part of a
    /// run spread over machines, or all of them) on `threads` workers (0: one per core),
    /// producing at least `fields`, and calls `f` with each worker's state (made by
    /// `new_state`) and each record as BAM record bytes, in file order within a task;
    /// returns the states. For analyses that merge per-worker totals (flagstat), where
    /// the order of records does not matter.
    pub fn for_each_record<S, N, F>(
        &self,
        containers: std::ops::Range<usize>,
        reference: &ReferenceSource,
        fields: Fields,
        threads: usize,
        new_state: N,
        f: F,
    ) -> Result<Vec<S>>
    where
        S: Send,
        N: Fn() -> S + Sync,
        F: Fn(&mut S, crate::bam::Record<'_>) + Sync,
    {
        let end = containers.end.min(self.containers().len());
        let mut emit = container_tasks(&self.containers()[..end], containers.start);
        let n_ref = self.header.reference_sequences().len();
        let source = DecoderSource::new(self, reference, fields)?;
        let make_worker = |_| {
            Ok(RecordWorker {
                decoder: source.decoder()?,
                state: new_state(),
                f: &f,
                n_ref,
            })
        };
        let report = seqfarm_farm::run(
            &FarmConfig::new(threads_or_cores(threads)),
            Task::default,
            &mut emit,
            make_worker,
            &mut |_: &mut Task| -> Result<()> { Ok(()) },
        )
        .map_err(|e| farm_failure(&self.path, e))?;
        Ok(report.workers.into_iter().map(|w| w.state).collect())
    }
}

/// A worker of [`CramFile::for_each_record`]: its decoder, its state and the caller's
/// closure.
struct RecordWorker<'a, S, F> {
    decoder: ContainerDecoder<'a>,
    state: S,
    f: &'a F,
    n_ref: usize,
}

impl<S, F> seqfarm_farm::Worker<Task, Error> for RecordWorker<'_, S, F>
where
    F: Fn(&mut S, crate::bam::Record<'_>),
{
    fn process(&mut self, task: &mut Task) -> Result<()> {
        task.records.clear();
        let cram = self.decoder.cram;
        for span in &cram.containers()[task.containers.clone()] {
            let start = task.records.len();
            self.decoder.decode(span, &mut task.records)?;
            let mut stitcher = crate::bam::RecordStitcher::new(self.n_ref, 0);
            let (state, f) = (&mut self.state, self.f);
            stitcher
                .feed(&task.records[start..], |record| f(state, record))
                .and_then(|()| stitcher.finish())
                .map_err(|e| super::container_error(&cram.path, span, e.0))?;
        }
        Ok(())
    }
}

/// The farm's emitter over `spans`: each task gets the next run of containers
/// ([`next_task`]), from number `first` on, until none is left.
fn container_tasks(
    spans: &[ContainerSpan],
    first: usize,
) -> impl FnMut(&mut Task) -> Result<Fill> + '_ {
    let mut next = first.min(spans.len());
    move |task: &mut Task| {
        Ok(match next_task(spans, &mut next) {
            Some(range) => {
                task.containers = range;
                Fill::Task
            }
            None => Fill::End,
        })
    }
}

/// The next task's containers: whole containers of about [`TASK_BYTES`] from `*next`.
fn next_task(spans: &[ContainerSpan], next: &mut usize) -> Option<std::ops::Range<usize>> {
    if *next == spans.len() {
        return None;
    }
    let first = *next;
    let mut bytes = 0;
    while *next < spans.len() && (*next == first || bytes < TASK_BYTES) {
        bytes += spans[*next].size;
        *next += 1;
    }
    Some(first..*next)
}

fn threads_or_cores(threads: usize) -> usize {
    if threads == 0 {
        seqfarm_farm::available_cores()
    } else {
        threads
    }
}

/// A failed farm run as this layer's error (a panic named with the file).
fn farm_failure(path: &Path, e: FarmError<Error>) -> Error {
    match e {
        FarmError::Failed { source, .. } => source,
        other => Error::format(path, 0, other.to_string()),
    }
}

impl CramInput {
    /// Decodes the containers of the CRAM at `path` that `reading` wants (placed reads,
    /// within its ranges if it has some) into an indexed BAM held in an unlinked
    /// temporary file. With ranges that want nothing, nothing is decoded and no
    /// reference opened: the header and the containers' sizes make a plan.
    pub fn open(path: &Path, reading: &ReadOptions<'_>) -> Result<Self> {
        Self::open_cram(&CramFile::open(path)?, reading)
    }

    /// [`CramInput::open`] of a CRAM already open (to plan the run this decodes a part
    /// of), whose containers' headers are not read again.
    pub fn open_cram(cram: &CramFile, reading: &ReadOptions<'_>) -> Result<Self> {
        let source = match reading.ranges {
            Some(ranges) if ranges.is_empty() => ReferenceSource::none(),
            _ => cram.reference_source(reading.reference, reading.fields)?,
        };
        Self::decode(cram, &source, reading)
    }

    /// [`CramInput::open`] of an opened CRAM that is read otherwise (see
    /// [`CramRanges`](super::CramRanges)): its header and its containers' sizes, none
    /// decoded.
    pub fn planned(cram: &CramFile) -> Result<Self> {
        let nothing = WantedRanges::default();
        let reading = ReadOptions {
            ranges: Some(&nothing),
            ..ReadOptions::default()
        };
        Self::decode(cram, &ReferenceSource::none(), &reading)
    }

    /// The containers of `cram` that `reading` wants, decoded against `source`.
    fn decode(
        cram: &CramFile,
        source: &ReferenceSource,
        reading: &ReadOptions<'_>,
    ) -> Result<Self> {
        let sizes = ContainerSizes::new(
            cram.containers(),
            cram.header().reference_sequences().len(),
            cram.file_len(),
        );
        let wanted: Vec<ContainerSpan> = cram
            .containers()
            .iter()
            .filter(|span| reading.wants(cram, span))
            .copied()
            .collect();
        let (bam, index) = transcode(cram, &wanted, source, reading)?;
        Ok(Self {
            bam,
            index,
            containers: wanted.len(),
            sizes,
        })
    }
}

/// One task: containers to decode, and their records as BAM bytes.
#[derive(Debug, Default)]
struct Task {
    containers: std::ops::Range<usize>,
    records: Vec<u8>,
}

/// Decodes containers `spans` of `cram` into an indexed BAM in an unlinked temporary file.
fn transcode(
    cram: &CramFile,
    spans: &[ContainerSpan],
    reference: &ReferenceSource,
    reading: &ReadOptions<'_>,
) -> Result<(BamFile, BamIndex)> {
    let path = cram.path();
    let dir = std::env::temp_dir();
    let temp_err = |e: std::io::Error| Error::io(&dir, e);
    let mut bam_file = tempfile::Builder::new()
        .prefix("seqfarm-cram-")
        .suffix(".bam")
        .tempfile_in(&dir)
        .map_err(temp_err)?;
    let bam_path = bam_file.path().to_path_buf();
    let mut header_bytes = Vec::new();
    noodles_bam::io::Writer::from(&mut header_bytes)
        .write_header(cram.header())
        .map_err(|e| Error::format(path, 0, format!("cannot convert the CRAM header: {e}")))?;
    let mut compressed = Vec::new();
    BgzfCompressor::new(0).compress(&header_bytes, &mut compressed);
    let lengths: Vec<u64> = cram
        .header()
        .reference_sequences()
        .values()
        .map(|m| usize::from(m.length()) as u64)
        .collect();
    let threads = threads_or_cores(reading.threads);
    let index = {
        let out = bam_file.as_file_mut();
        out.write_all(&compressed)
            .map_err(|e| Error::io(&bam_path, e))?;
        let mut buffered = std::io::BufWriter::with_capacity(1 << 20, out);
        let mut writer =
            IndexedBamWriter::new(&mut buffered, path, compressed.len() as u64, 0, 1, &lengths)?;
        let mut emit = container_tasks(spans, 0);
        let source = DecoderSource::new(cram, reference, reading.fields)?;
        let make_worker = |_| {
            let mut decoder = source.decoder()?;
            Ok(move |task: &mut Task| -> Result<()> {
                task.records.clear();
                for span in &spans[task.containers.clone()] {
                    decoder.decode(span, &mut task.records)?;
                }
                Ok(())
            })
        };
        let mut collect = |task: &mut Task| -> Result<()> {
            let data = &task.records;
            let mut at = 0;
            while at + 4 <= data.len() {
                let len = u32::from_le_bytes(data[at..at + 4].try_into().expect("4")) as usize;
                writer.write_record(&data[at..at + 4 + len])?;
                at += 4 + len;
            }
            Ok(())
        };
        seqfarm_farm::run(
            &FarmConfig::new(threads),
            Task::default,
            &mut emit,
            make_worker,
            &mut collect,
        )
        .map_err(|e| farm_failure(path, e))?;
        let index = writer.finish()?;
        buffered.flush().map_err(|e| Error::io(&bam_path, e))?;
        index
    };
    let mut index_file = tempfile::Builder::new()
        .prefix("seqfarm-cram-")
        .suffix(&format!(".bam.{}", index.extension()))
        .tempfile_in(&dir)
        .map_err(temp_err)?;
    let index_path = index_file.path().to_path_buf();
    let mut index_out = std::io::BufWriter::new(index_file.as_file_mut());
    index
        .write(&mut index_out)
        .and_then(|()| index_out.flush())
        .map_err(|e| Error::io(&index_path, e))?;
    drop(index_out);
    let mut bam = BamFile::open(&bam_path)?;
    let index = BamIndex::open(&index_path, &bam)?;
    bam.rename(path);
    drop(bam_file);
    drop(index_file);
    Ok((bam, index))
}
