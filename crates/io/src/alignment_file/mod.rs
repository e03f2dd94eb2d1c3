//! The one door for alignment inputs: every command that reads alignments opens its
//! inputs here, so a file's format is recognised in one place ([`sniff`]) and once.
//!
//! * [`AlignmentFile::open`]: any input a command reads whole, in any order: a BAM file
//!   (its index used when there is a usable one), a BAM on standard input, a CRAM with
//!   its reference, SAM text (plain or gzip); flagstat reads this way.
//! * [`RegionInputs`]: inputs read by genomic region through an index: indexed BAMs as
//!   they are, CRAMs decoded into an indexed BAM ([`CramInput`]); count, depth and
//!   snp-pileup read this way, as a [`BamSet`] (snp-pileup with its CRAMs left
//!   undecoded there and read through [`CramRanges`] instead).
//!
//! This module sits above [`bam`], [`cram`], [`input`](crate::input) and [`sniff`]:
//! none of them imports it. SAM text comes back as an [`Input`], for the `sam` readers.

#[cfg(test)]
mod tests;

use std::fs::File;
use std::io::{BufReader, Chain, Cursor, Read};
use std::path::{Path, PathBuf};

use crate::bam::{self, BamFile, BamIndex, BamSet, BamStream};
pub use crate::cram::ReadOptions;
use crate::cram::{self, CramFile, CramInput, CramRanges, ReferenceSource};
use crate::input::Input;
use crate::sniff::{self, AlignmentFormat, HEAD};
use crate::{Error, Result};

/// Bytes buffered when reading a BAM from a stream.
const STREAM_BUFFER: usize = 1 << 20;

/// A BAM on standard input, its first bytes (read to recognise it) chained back.
pub type StreamReader = BufReader<Chain<Cursor<Vec<u8>>, Box<dyn Read + Send>>>;

/// An alignment input opened for reading whole: what its first bytes said it is, and
/// what reading it takes.
pub enum AlignmentFile {
    /// A BAM file, memory-mapped, with its index when a usable one lies beside it.
    Bam(BamWithIndex),
    /// A BAM read from standard input block by block, its header already parsed.
    BamStream(BamStream<StreamReader>),
    /// A CRAM, its containers found, with the reference its records decode against.
    Cram {
        /// The CRAM.
        cram: CramFile,
        /// Its reference sequences (none when the fields asked for need none).
        reference: ReferenceSource,
    },
    /// SAM text, plain or gzip-compressed (decompressed as it is read).
    Sam(Input),
}

impl std::fmt::Debug for AlignmentFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Bam(bam) => f.debug_tuple("Bam").field(&bam.bam).finish(),
            Self::BamStream(stream) => f.debug_tuple("BamStream").field(&stream.path()).finish(),
            Self::Cram { cram, .. } => f.debug_tuple("Cram").field(cram).finish(),
            Self::Sam(input) => f.debug_tuple("Sam").field(&input.path).finish(),
        }
    }
}

impl AlignmentFile {
    /// Opens `path` (`-` for standard input), recognising its format from its first
    /// bytes: a BAM file is mapped with its index ([`BamWithIndex::open`]), a BAM on
    /// standard input has its header read, a CRAM is opened with its reference as
    /// `options` say, and text or gzip is read as SAM. A CRAM on standard input, a
    /// corrupt first BGZF block and binary data of no known format are errors naming
    /// the input.
    pub fn open(path: &Path, options: &ReadOptions<'_>) -> Result<Self> {
        cram::check_reference(options.reference)?;
        if path == Path::new("-") {
            return Self::from_reader(path, Box::new(std::io::stdin()), true, options);
        }
        let file = File::open(path).map_err(|e| Error::io(path, e))?;
        Self::from_reader(path, Box::new(file), false, options)
    }

    /// [`open`](Self::open) on `raw`, the input named `path`, already opened: standard
    /// input when `stdin` (then a BAM is read as a stream), else the file at `path`.
    fn from_reader(
        path: &Path,
        mut raw: Box<dyn Read + Send>,
        stdin: bool,
        options: &ReadOptions<'_>,
    ) -> Result<Self> {
        let mut head = Vec::with_capacity(HEAD);
        (&mut raw)
            .take(HEAD as u64)
            .read_to_end(&mut head)
            .map_err(|e| Error::io(path, e))?;
        let format =
            sniff::sniff(&head).map_err(|e| Error::format(path, e.offset, e.kind.to_string()))?;
        let rest = Cursor::new(head).chain(raw);
        match format {
            AlignmentFormat::Cram if stdin => Err(Error::format(
                path,
                0,
                "a CRAM cannot be read from standard input: give its path",
            )),
            AlignmentFormat::Cram => {
                drop(rest);
                let (cram, reference) =
                    CramFile::open_with_reference(path, options.reference, options.fields)?;
                Ok(Self::Cram { cram, reference })
            }
            AlignmentFormat::Bam if stdin => {
                let reader = BufReader::with_capacity(STREAM_BUFFER, rest);
                Ok(Self::BamStream(BamStream::open(path, reader)?))
            }
            AlignmentFormat::Bam => {
                drop(rest);
                Ok(Self::Bam(BamWithIndex::open(path)?))
            }
            AlignmentFormat::Unknown => Err(Error::format(
                path,
                0,
                "not a BAM, CRAM, SAM or gzip-compressed SAM file (binary data without a BGZF block)",
            )),
            AlignmentFormat::Sam => Ok(Self::Sam(Input::from_reader(path, Box::new(rest))?)),
        }
    }
}

/// A BAM file and, when a usable one lies beside it, its index. The index only speeds
/// reading the whole file up: one older than the BAM is left aside rather than refused.
#[derive(Debug)]
pub struct BamWithIndex {
    /// The BAM, memory-mapped.
    pub bam: BamFile,
    /// Its index, checked against it; none when there is none or it is stale.
    pub index: Option<BamIndex>,
    /// The index left aside for being older than the BAM, if any (for a warning).
    pub stale_index: Option<PathBuf>,
}

impl BamWithIndex {
    /// Maps the BAM at `path` and opens its index (`X.bam.bai`, `X.bai` or `X.bam.csi`)
    /// unless it is older than the BAM.
    pub fn open(path: &Path) -> Result<Self> {
        let bam = BamFile::open(path)?;
        let (index, stale_index) = match BamIndex::find(path) {
            Some(index_path) if BamIndex::is_older_than_bam(&index_path, &bam) => {
                (None, Some(index_path))
            }
            Some(index_path) => (Some(BamIndex::open(index_path, &bam)?), None),
            None => (None, None),
        };
        Ok(Self {
            bam,
            index,
            stale_index,
        })
    }
}

/// One input read by region, its format recognised.
#[derive(Debug, Clone)]
struct RegionInput {
    path: PathBuf,
    cram: bool,
}

/// Inputs read by genomic region through an index, each recognised once: CRAMs by their
/// magic bytes, everything else opened as an indexed BAM (which names what it is not).
#[derive(Debug, Clone)]
pub struct RegionInputs {
    inputs: Vec<RegionInput>,
}

impl RegionInputs {
    /// Reads the first bytes of each of `paths`; one that cannot be read is left for
    /// [`open`](Self::open) to report.
    pub fn sniff(paths: &[PathBuf]) -> Self {
        let inputs = paths
            .iter()
            .map(|path| RegionInput {
                path: path.clone(),
                cram: starts_cram(path),
            })
            .collect();
        Self { inputs }
    }

    /// Whether any input is a CRAM (worth telling it where the command looks).
    pub fn any_cram(&self) -> bool {
        self.inputs.iter().any(|input| input.cram)
    }

    /// Opens the inputs in order: each BAM with its index, which must exist and be
    /// current; each CRAM decoded, the containers `options` want, into an indexed BAM
    /// (no `.crai` needed), planned by its containers' sizes. Fails on inputs whose
    /// reference names or lengths differ from the first's.
    pub fn open(&self, options: &ReadOptions<'_>) -> Result<BamSet> {
        cram::check_reference(options.reference)?;
        let (set, _) = self.open_each(|path| Ok(((), CramInput::open(path, options)?)))?;
        Ok(set)
    }

    /// Opens the inputs as [`open`](Self::open) does, but each CRAM to be decoded where
    /// it is read ([`CramRanges`], with the reference and fields of `options`; `None`
    /// for a BAM): in the set, a CRAM is its header and its containers' sizes, none
    /// decoded.
    pub fn open_on_demand(
        &self,
        options: &ReadOptions<'_>,
    ) -> Result<(BamSet, Vec<Option<CramRanges>>)> {
        cram::check_reference(options.reference)?;
        self.open_each(|path| {
            let ranges = CramRanges::open(path, options)?;
            let planned = CramInput::planned(ranges.cram())?;
            Ok((ranges, planned))
        })
    }

    /// Opens the inputs to plan a run, as [`open`](Self::open) does with ranges that want
    /// nothing (a CRAM is its header and its containers' sizes, none decoded), and keeps
    /// the CRAMs open, so that a part of the run decodes where it reads
    /// ([`PlannedInputs::open`]) without reading their containers' headers again.
    pub fn open_planned(&self) -> Result<(BamSet, PlannedInputs)> {
        let (set, crams) = self.open_each(|path| {
            let cram = CramFile::open(path)?;
            let planned = CramInput::planned(&cram)?;
            Ok((cram, planned))
        })?;
        let inputs = self.clone();
        Ok((set, PlannedInputs { inputs, crams }))
    }

    /// The inputs opened in order into a set, each BAM with its index and each CRAM by
    /// `open_cram` (what it keeps open, and its entry in the set); per input, what was
    /// kept (`None` for a BAM).
    fn open_each<C>(
        &self,
        mut open_cram: impl FnMut(&Path) -> Result<(C, CramInput)>,
    ) -> Result<(BamSet, Vec<Option<C>>)> {
        let mut set = BamSet::default();
        let mut crams = Vec::new();
        for input in &self.inputs {
            if input.cram {
                let (kept, planned) = open_cram(&input.path)?;
                set.push_decoded(planned.bam, planned.index, planned.sizes)?;
                crams.push(Some(kept));
            } else {
                let (bam, index) = bam::open_with_index(&input.path)?;
                set.push(bam, index)?;
                crams.push(None);
            }
        }
        Ok((set, crams))
    }
}

/// Inputs opened to plan a run ([`RegionInputs::open_planned`]), their CRAMs kept open.
pub struct PlannedInputs {
    inputs: RegionInputs,
    /// Per input, the CRAM opened (`None` for a BAM).
    crams: Vec<Option<CramFile>>,
}

impl PlannedInputs {
    /// Opens the inputs as [`RegionInputs::open`] does, each CRAM decoded from the file
    /// already open.
    pub fn open(&self, options: &ReadOptions<'_>) -> Result<BamSet> {
        cram::check_reference(options.reference)?;
        let mut crams = self.crams.iter().flatten();
        let (set, _) = self.inputs.open_each(|_| {
            let cram = crams.next().expect("a CRAM opened for each CRAM input");
            Ok(((), CramInput::open_cram(cram, options)?))
        })?;
        Ok(set)
    }
}

/// Opens `paths` to be read by region ([`RegionInputs`]).
pub fn open_by_region(paths: &[PathBuf], options: &ReadOptions<'_>) -> Result<BamSet> {
    RegionInputs::sniff(paths).open(options)
}

/// The index beside an alignment input, if there is one: a BAM's `X.bam.bai`, `X.bai`
/// or `X.bam.csi`, else a CRAM's `X.cram.crai` or `X.crai`.
pub fn index_beside(path: &Path) -> Option<PathBuf> {
    BamIndex::find(path).or_else(|| cram::find_index(path))
}

/// Whether the file at `path` starts with the CRAM magic; false when it cannot be read.
pub fn starts_cram(path: &Path) -> bool {
    let mut head = [0u8; sniff::CRAM_MAGIC.len()];
    File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok()
        && sniff::looks_like_cram(&head)
}
