//! CRAM input (3.0 and 3.1) for the commands that read BAM, through htslib (Debian's
//! `libhts`, the binary's default) or noodles-cram (without the `htslib` feature).
//!
//! A CRAM is read on a farm and turned into an indexed BAM, which the commands then read
//! exactly as they read any BAM (so their answers are the same as for the same data as
//! BAM by construction):
//!
//! * the emitter cuts the CRAM into its containers: from the `.crai` when there is one
//!   (its container offsets, checked against the container headers), else by walking
//!   the container headers (lengths only, no decoding); [`CramInput`] leaves out the
//!   containers of unplaced reads and those outside the caller's [`WantedRanges`];
//! * each worker checks the block checksums of its containers and decodes them with a
//!   decoder of its own (an htslib handle it seeks from container to container), only
//!   the [`Fields`] the command needs, against the reference when the sequence is
//!   among them (`--reference`, the `@SQ UR:` file, or the reference the CRAM embeds),
//!   and encodes every record as BAM record bytes into its task's buffer;
//! * the collector appends the records, in file order, to a BAM with its index
//!   (uncompressed BGZF blocks in an unlinked temporary file, memory-mapped), and
//!   [`CramInput::open`] returns it as a [`BamFile`] and [`BamIndex`].
//!
//! Errors name the CRAM and the offset of the container they are about.
//!
//! [`CramFile::for_each_record`] hands the decoded records to per-worker state instead,
//! with nothing written (flagstat).
//!
//! htslib decodes a whole CRAM 2.1x faster than noodles-cram (5.0 against 10.6 CPU s for
//! a 125 MB CRAM of 2 M reads; BENCHMARKS.md, "CRAM input"), and far faster when only the
//! flags are needed; noodles-cram is pure Rust (its bzip2, lzma and rANS codecs
//! included) and needs no C library.

#[cfg(feature = "htslib")]
mod htslib;
mod layout;
#[cfg(not(feature = "htslib"))]
mod noodles_decode;
mod reference;

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use memmap2::Mmap;
use noodles_sam as sam;
use seqfarm_farm::{FarmConfig, FarmError, Fill};

pub use layout::{indexed_containers, walk_containers, ContainerSpan, EOF_CONTAINER};
pub use reference::{check_reference, normalized_md5, ReferenceSource};

#[cfg(feature = "htslib")]
use htslib::HtsContainerDecoder;
#[cfg(feature = "htslib")]
use reference::HtsReference;

use crate::bam::{BamFile, BamIndex};
use crate::bam_writer::IndexedBamWriter;
use crate::bgzf_writer::BgzfCompressor;
use crate::{Error, Result};

/// Compressed CRAM bytes per task, about (whole containers).
const TASK_BYTES: u64 = 1 << 20;

/// The `.crai` of `cram`, if there is one (`X.cram.crai` or `X.crai`).
pub fn find_index(cram: &Path) -> Option<PathBuf> {
    let beside = crate::bam::suffixed(cram, ".crai");
    if beside.is_file() {
        return Some(beside);
    }
    let replaced = cram.with_extension("crai");
    replaced.is_file().then_some(replaced)
}

/// A CRAM file mapped into memory: its header and its containers.
pub struct CramFile {
    path: PathBuf,
    map: Mmap,
    header: sam::Header,
    containers: Vec<ContainerSpan>,
    index: Option<PathBuf>,
}

impl std::fmt::Debug for CramFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CramFile")
            .field("path", &self.path)
            .field("containers", &self.containers.len())
            .field("index", &self.index)
            .finish_non_exhaustive()
    }
}

impl CramFile {
    /// Maps `path`, checks its version (3.x) and end-of-file container, reads the header,
    /// and finds the containers (through its `.crai` when there is one).
    pub fn open(path: &Path) -> Result<Self> {
        let file = File::open(path).map_err(|e| Error::io(path, e))?;
        // SAFETY: the file is opened read-only and only read through this map; as for
        // BamFile::open, the file must not be truncated while it is open.
        #[allow(unsafe_code)]
        let map = unsafe { Mmap::map(&file) }.map_err(|e| Error::io(path, e))?;
        if !crate::sniff::looks_like_cram(&map) {
            return Err(Error::format(path, 0, "not a CRAM file (no CRAM magic)"));
        }
        let major = map.get(4).copied().unwrap_or(0);
        if major != 3 {
            return Err(Error::format(
                path,
                4,
                format!(
                    "CRAM version {major}.{} is not supported (3.0 and 3.1 are)",
                    map.get(5).copied().unwrap_or(0)
                ),
            ));
        }
        let mut cursor = std::io::Cursor::new(&map[..]);
        let header = {
            let mut reader = noodles_cram::io::Reader::new(&mut cursor);
            reader
                .read_header()
                .map_err(|e| Error::format(path, 0, format!("invalid CRAM header: {e}")))?
        };
        let start = cursor.position();
        let index = find_index(path);
        let containers = match &index {
            Some(index_path) => {
                let crai = noodles_cram::crai::fs::read(index_path).map_err(|e| {
                    Error::format(index_path, 0, format!("invalid CRAM index: {e}"))
                })?;
                indexed_containers(path, index_path, &crai, &map, start)?
            }
            None => walk_containers(path, &map, start)?,
        };
        Ok(Self {
            path: path.to_path_buf(),
            map,
            header,
            containers,
            index,
        })
    }

    /// The path the file was opened by.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The SAM header.
    pub fn header(&self) -> &sam::Header {
        &self.header
    }

    /// The data containers, in file order.
    pub fn containers(&self) -> &[ContainerSpan] {
        &self.containers
    }

    /// The `.crai` the containers were found through, if any.
    pub fn index(&self) -> Option<&Path> {
        self.index.as_deref()
    }

    /// An error naming the file and the offset of container `span`.
    fn container_error(&self, span: &ContainerSpan, message: String) -> Error {
        Error::format(
            &self.path,
            span.offset,
            format!("container at offset {}: {message}", span.offset),
        )
    }

    /// The bytes of container `span`, its header first.
    fn container_bytes(&self, span: &ContainerSpan) -> &[u8] {
        &self.map[span.offset as usize..(span.offset + span.size) as usize]
    }

    /// Fails, naming the reference and what to pass, when container `span` needs a
    /// reference sequence that `reference` does not have.
    fn check_reference_for(&self, span: &ContainerSpan, reference: &ReferenceSource) -> Result<()> {
        if layout::reference_required(self.container_bytes(span)) == Some(false) {
            return Ok(());
        }
        for name in reference_names(&self.header, span.ref_id) {
            if reference.sequence(name).is_none() {
                let shown = String::from_utf8_lossy(name);
                let what = match reference.path() {
                    Some(fasta) => format!("{} has no sequence {shown}", fasta.display()),
                    None => "no reference was given, the CRAM embeds none and no @SQ UR: names an existing file".to_string(),
                };
                return Err(Error::format(
                    &self.path,
                    span.offset,
                    format!(
                        "container at offset {} needs reference sequence {shown}: {what}; pass the FASTA it was made with as --reference FASTA",
                        span.offset
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// The fields a command needs of each record. htslib decodes only those (and, without
/// the sequence, needs no reference); the records handed on lack the others. noodles-cram
/// decodes every field whatever is asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fields {
    /// Every field.
    All,
    /// Every field but the tags: name, position, CIGAR, mate, sequence and qualities
    /// (a pileup).
    Pileup,
    /// Name, flag, position, mapping quality, CIGAR and mate, without the sequence,
    /// qualities and tags (depth, counts).
    Coverage,
    /// Flag, reference, position, mapping quality and mate reference, nothing else
    /// (FLAG statistics).
    FlagStatistics,
}

impl Fields {
    /// Whether decoding these fields needs the reference sequences.
    pub fn need_reference(self) -> bool {
        !cfg!(feature = "htslib") || matches!(self, Fields::All | Fields::Pileup)
    }
}

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
    fn decoder(&self) -> Result<ContainerDecoder<'_>> {
        Ok(ContainerDecoder {
            source: self,
            #[cfg(feature = "htslib")]
            hts: HtsContainerDecoder::open(
                self.cram.path(),
                self.hts_reference.path(),
                self.fields,
            )?,
        })
    }
}

/// One worker's container decoder: htslib (feature `htslib`, the binary's default) with
/// a handle of its own, else noodles-cram.
struct ContainerDecoder<'a> {
    source: &'a DecoderSource<'a>,
    #[cfg(feature = "htslib")]
    hts: HtsContainerDecoder,
}

impl ContainerDecoder<'_> {
    /// Appends the records of container `span` to `out` as BAM records, after checking
    /// the checksums of all its blocks and, when the fields need it, the reference.
    fn decode(&mut self, span: &ContainerSpan, out: &mut Vec<u8>) -> Result<()> {
        let DecoderSource {
            cram,
            reference,
            fields,
            ..
        } = self.source;
        layout::check_block_checksums(cram.container_bytes(span))
            .map_err(|m| cram.container_error(span, m))?;
        if fields.need_reference() {
            cram.check_reference_for(span, reference)?;
        }
        #[cfg(feature = "htslib")]
        return self.hts.decode(span, out);
        #[cfg(not(feature = "htslib"))]
        cram.decode_container(span, reference, out)
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
}

impl CramFile {
    /// Opens the CRAM at `path` ([`CramFile::open`]) and, when decoding `fields` needs
    /// one ([`Fields::need_reference`]), its reference: `reference`, or the `@SQ UR:`
    /// file, or none (the embedded one); checks the length and `M5` of each reference
    /// sequence its containers use.
    pub fn open_with_reference(
        path: &Path,
        reference: Option<&Path>,
        fields: Fields,
    ) -> Result<(Self, ReferenceSource)> {
        let cram = CramFile::open(path)?;
        if !fields.need_reference() {
            return Ok((cram, ReferenceSource::none()));
        }
        let source = ReferenceSource::open(reference, cram.header())?;
        let mut used: Vec<i32> = cram.containers().iter().map(|c| c.ref_id).collect();
        used.sort_unstable();
        used.dedup();
        for id in used {
            for name in reference_names(cram.header(), id) {
                source.check(path, cram.header(), name)?;
            }
        }
        Ok((cram, source))
    }

    /// Decodes every container on `threads` workers (0: one per core), producing at least
    /// `fields`, and calls `f` with each worker's state (made by `new_state`) and each
    /// record as BAM record bytes, in file order within a task; returns the states. For
    /// analyses that merge per-worker totals (flagstat), where the order of records does
    /// not matter.
    pub fn for_each_record<S, N, F>(
        &self,
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
        let mut emit = container_tasks(self.containers());
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
        let cram = self.decoder.source.cram;
        for span in &cram.containers()[task.containers.clone()] {
            let start = task.records.len();
            self.decoder.decode(span, &mut task.records)?;
            let mut stitcher = crate::bam::RecordStitcher::new(self.n_ref, 0);
            let (state, f) = (&mut self.state, self.f);
            stitcher
                .feed(&task.records[start..], |record| f(state, record))
                .and_then(|()| stitcher.finish())
                .map_err(|e| {
                    Error::format(
                        &cram.path,
                        span.offset,
                        format!("container at offset {}: {}", span.offset, e.0),
                    )
                })?;
        }
        Ok(())
    }
}

/// The next task's containers: whole containers of about [`TASK_BYTES`] from `*next`.
/// The farm's emitter over `spans`: each task gets the next run of containers
/// ([`next_task`]) until none is left.
fn container_tasks(spans: &[ContainerSpan]) -> impl FnMut(&mut Task) -> Result<Fill> + '_ {
    let mut next = 0usize;
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
    /// temporary file.
    pub fn open(path: &Path, reading: &ReadOptions<'_>) -> Result<Self> {
        let (cram, source) =
            CramFile::open_with_reference(path, reading.reference, reading.fields)?;
        let wanted: Vec<ContainerSpan> = cram
            .containers()
            .iter()
            .filter(|span| reading.wants(&cram, span))
            .copied()
            .collect();
        let (bam, index) = transcode(&cram, &wanted, &source, reading)?;
        Ok(Self {
            bam,
            index,
            containers: wanted.len(),
        })
    }
}

/// How a command reads its alignment inputs (a CRAM into a BAM: [`CramInput::open`]).
#[derive(Debug, Clone, Copy)]
pub struct ReadOptions<'a> {
    /// The FASTA a CRAM's sequences are decoded against (else its `@SQ UR:` file or the
    /// reference it embeds; none when `fields` needs none).
    pub reference: Option<&'a Path>,
    /// The fields of each record the command needs (a CRAM decodes only those).
    pub fields: Fields,
    /// Workers decoding a CRAM (0: one per core).
    pub threads: usize,
    /// Where the command looks, when it is not the whole genome (a CRAM's containers
    /// elsewhere are not decoded).
    pub ranges: Option<&'a WantedRanges>,
}

impl Default for ReadOptions<'_> {
    /// Every field, no reference given, one CRAM worker per core, the whole genome.
    fn default() -> Self {
        Self {
            reference: None,
            fields: Fields::All,
            threads: 0,
            ranges: None,
        }
    }
}

impl ReadOptions<'_> {
    /// Whether container `span` of `cram` may hold a record the command reads: a
    /// command that reads by genomic region never reads unplaced records, and reads a
    /// single-reference container only when it overlaps a wanted range.
    fn wants(&self, cram: &CramFile, span: &ContainerSpan) -> bool {
        match (span.ref_id, self.ranges) {
            (-1, _) => false,
            (_, None) => true,
            (id, Some(ranges)) => match usize::try_from(id) {
                Ok(id) => cram
                    .header()
                    .reference_sequences()
                    .get_index(id)
                    .is_none_or(|(name, _)| ranges.overlaps(name.as_ref(), span.span)),
                Err(_) => true,
            },
        }
    }
}

/// Genomic ranges a command reads (0-based, half-open, by reference name), merged, for
/// leaving out the CRAM containers that lie elsewhere.
#[derive(Debug, Clone, Default)]
pub struct WantedRanges {
    by_reference: std::collections::HashMap<Vec<u8>, Vec<(u64, u64)>>,
}

impl WantedRanges {
    /// The ranges given as (reference name, start, end).
    pub fn new<N: AsRef<[u8]>>(ranges: impl IntoIterator<Item = (N, u64, u64)>) -> Self {
        let mut by_reference: std::collections::HashMap<Vec<u8>, Vec<(u64, u64)>> =
            std::collections::HashMap::new();
        for (name, start, end) in ranges {
            by_reference
                .entry(name.as_ref().to_vec())
                .or_default()
                .push((start, end));
        }
        for list in by_reference.values_mut() {
            list.sort_unstable();
            let mut merged: Vec<(u64, u64)> = Vec::with_capacity(list.len());
            for &(start, end) in list.iter() {
                match merged.last_mut() {
                    Some(last) if start <= last.1 => last.1 = last.1.max(end),
                    _ => merged.push((start, end)),
                }
            }
            *list = merged;
        }
        Self { by_reference }
    }

    /// Whether a wanted range on `reference` overlaps `[start, end)` (an empty range
    /// counts at its position, as an empty BED region does).
    pub fn overlaps(&self, reference: &[u8], (start, end): (u64, u64)) -> bool {
        let Some(list) = self.by_reference.get(reference) else {
            return false;
        };
        // The first range ending after `start` (or at it, for empty ranges).
        let i = list.partition_point(|&(_, e)| e < start);
        list.get(i).is_some_and(|&(s, _)| s <= end)
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
        let mut emit = container_tasks(spans);
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

/// The names of the reference sequences a container of reference `ref_id` uses: its own,
/// every one for a multi-reference container (-2), none for unplaced reads (-1).
fn reference_names(header: &sam::Header, ref_id: i32) -> Vec<&[u8]> {
    let refs = header.reference_sequences();
    match ref_id {
        -2 => refs.keys().map(|name| name.as_ref()).collect(),
        id if id >= 0 => refs
            .get_index(id as usize)
            .map(|(name, _)| name.as_ref())
            .into_iter()
            .collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wanted_ranges_merge_and_find_overlaps() {
        let ranges = WantedRanges::new([
            ("20", 100u64, 200u64),
            ("20", 150, 300),
            ("20", 500, 600),
            ("X", 10, 10),
        ]);
        assert!(
            ranges.overlaps(b"20", (250, 260)),
            "inside the merged range"
        );
        assert!(ranges.overlaps(b"20", (0, 100)), "touching counts");
        assert!(!ranges.overlaps(b"20", (301, 499)), "between two ranges");
        assert!(ranges.overlaps(b"20", (590, 1000)));
        assert!(!ranges.overlaps(b"20", (601, 700)));
        assert!(!ranges.overlaps(b"1", (0, 1000)), "another reference");
        assert!(
            ranges.overlaps(b"X", (0, 20)),
            "an empty range at its position"
        );
    }

    /// The committed normal slice: one container of reference 20, 999,934-1,060,079.
    fn containers_decoded(ranges: Option<&WantedRanges>) -> usize {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/data/cram/normal_slice.cram");
        let reading = ReadOptions {
            reference: None,
            fields: Fields::Coverage,
            threads: 2,
            ranges,
        };
        CramInput::open(&path, &reading).unwrap().containers
    }

    #[test]
    fn only_containers_overlapping_the_wanted_ranges_are_decoded() {
        assert_eq!(containers_decoded(None), 1);
        let inside = WantedRanges::new([("20", 1_000_000u64, 1_000_100u64)]);
        assert_eq!(containers_decoded(Some(&inside)), 1);
        let elsewhere = WantedRanges::new([("20", 2_000_000u64, 2_100_000u64), ("21", 0, 100)]);
        assert_eq!(containers_decoded(Some(&elsewhere)), 0);
    }

    #[test]
    fn versions_other_than_3_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.cram");
        std::fs::write(&path, b"CRAM\x02\x01rest").unwrap();
        let e = CramFile::open(&path).unwrap_err().to_string();
        assert!(e.contains("x.cram") && e.contains("version 2.1"), "{e}");
    }
}
