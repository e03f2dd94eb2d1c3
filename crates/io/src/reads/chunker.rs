//! The emitter side of read input: [`InputChunker`] walks the sources of a run in
//! bowtie2's order and cuts [`InputChunk`]s of whole fragments (an unpaired read, or
//! both mates of a pair), applying `--skip` and `--upto`. It finds record boundaries
//! and nothing else; [`super::FragmentBatch::parse`] checks and decodes.

mod cut;

use std::path::{Path, PathBuf};

use self::cut::{cut_one_file, cut_two_files, cut_words};
use super::bam_reads::BamReads;
use super::records::{Framing, KmerReader, RecordReader};
use super::sources::{InputFormat, ReadSources};
use super::{ChunkLimits, ReadFormat};
use crate::input::Input;
use crate::{Error, Result};

/// How a chunk's records make fragments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Layout {
    /// Every record of `data[0]` is an unpaired read.
    #[default]
    Unpaired,
    /// Records of `data[0]` alternate mate 1, mate 2.
    Interleaved,
    /// Record `i` of `data[0]` (from `paths[0]`) and record `i` of `data[1]` (from
    /// `paths[1]`) are the mates of pair `i`.
    TwoFiles,
    /// Every line of `data[0]` is a fragment, unpaired or paired by its number of fields
    /// (`--tab5`, `--tab6`).
    Tabbed,
}

/// How one record is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RecordFormat {
    /// Four-line FASTQ.
    #[default]
    Fastq,
    /// FASTA, the sequence on any number of lines.
    Fasta,
    /// A line holding a sequence (`-r`).
    Raw,
    /// A line of 11 tab-separated QSEQ fields.
    Qseq,
    /// A line `name seq qual [seq qual]` (tab-separated).
    Tab5,
    /// A line `name seq qual [name seq qual]` (tab-separated).
    Tab6,
    /// A line `name<TAB>k-mer` made from FASTA by `-F`.
    Kmer,
    /// A line `index<TAB>SEQ[:QUALS]` made from a `-c` argument.
    CommandLine,
}

impl RecordFormat {
    /// How records of this format are delimited.
    pub(crate) fn framing(self) -> Framing {
        match self {
            RecordFormat::Fastq => Framing::Fastq,
            RecordFormat::Fasta => Framing::Fasta,
            _ => Framing::Line,
        }
    }
}

/// Whole fragments of one source, as raw bytes (the farm's task input).
#[derive(Debug, Clone, Default)]
pub struct InputChunk {
    /// Records: unpaired reads, interleaved mates, or first mates (`data[0]`) and
    /// second mates (`data[1]`, two-file pairs only).
    pub data: [Vec<u8>; 2],
    /// How the records make fragments.
    pub layout: Layout,
    /// How each record is written.
    pub format: RecordFormat,
    /// Number of fragments (reads or pairs).
    pub fragments: usize,
    /// 0-based number of the first fragment in the whole input, skipped ones included
    /// (bowtie2's read id, which names reads that have no name).
    pub first_fragment: u64,
    /// 1-based number, in its file, of the first record of `data[0]` and `data[1]`.
    pub first_record: [u64; 2],
    /// The files `data[0]` and `data[1]` come from (`-` is standard input, `-c` for
    /// reads given on the command line).
    pub paths: [PathBuf; 2],
}

/// One source of fragments, in the order they are read.
#[derive(Debug, Clone)]
enum Source {
    Unpaired(PathBuf),
    Interleaved(PathBuf),
    Pair(PathBuf, PathBuf),
    Words {
        lists: [Vec<Vec<u8>>; 2],
        layout: Layout,
    },
}

/// The source being read.
enum Open {
    Records {
        first: RecordReader,
        second: Option<RecordReader>,
        layout: Layout,
        format: RecordFormat,
    },
    Kmers(KmerReader),
    Bam(BamReads),
    Words {
        lists: [Vec<Vec<u8>>; 2],
        layout: Layout,
        next: usize,
    },
}

/// Where the last chunk of a file source lies in its files: the byte range of its
/// records in each file's (inflated) stream, from the first record's start (blank lines
/// before it included) to the last record's end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkSpan {
    /// The source's number, in the order [`InputChunker`] reads sources.
    pub source: usize,
    /// Stream offsets where the chunk starts, in the first and second file.
    pub start: [u64; 2],
    /// Stream offsets where the chunk ends.
    pub end: [u64; 2],
    /// Whether a file of the source is compressed (the offsets are then those of the
    /// decompressed stream, not of the file).
    pub compressed: bool,
}

/// Opens a read file in place of [`Input::open`] (to read records held elsewhere).
pub type FileOpener = Box<dyn FnMut(&Path) -> Result<Input> + Send>;

/// Cuts every source of a run, in order, into [`InputChunk`]s of whole fragments
/// (the farm's emitter).
pub struct InputChunker {
    sources: Vec<Source>,
    next_source: usize,
    open: Option<Open>,
    format: InputFormat,
    limits: ChunkLimits,
    skip_left: u64,
    upto_left: Option<u64>,
    next_fragment: u64,
    opener: Option<FileOpener>,
    start_records: Option<[u64; 2]>,
    last_span: Option<ChunkSpan>,
}

impl InputChunker {
    /// Reads `sources` in bowtie2's order; nothing is opened before the first
    /// [`InputChunker::fill`]. `limits.max_records` counts fragments.
    pub fn new(sources: &ReadSources, limits: ChunkLimits) -> Result<Self> {
        if let Err(message) = sources.check() {
            let first = [&sources.interleaved, &sources.mate1, &sources.unpaired]
                .into_iter()
                .flatten()
                .next()
                .cloned()
                .unwrap_or_else(|| PathBuf::from("-"));
            let cause = std::io::Error::new(std::io::ErrorKind::InvalidInput, message);
            return Err(Error::io(first, cause));
        }
        let mut list = Vec::new();
        if sources.format == InputFormat::CommandLine {
            let words = |v: &[PathBuf]| -> Vec<Vec<u8>> {
                v.iter()
                    .map(|p| p.to_string_lossy().into_owned().into_bytes())
                    .collect()
            };
            if !sources.interleaved.is_empty() {
                list.push(Source::Words {
                    lists: [words(&sources.interleaved), Vec::new()],
                    layout: Layout::Interleaved,
                });
            }
            if !sources.mate1.is_empty() {
                list.push(Source::Words {
                    lists: [words(&sources.mate1), words(&sources.mate2)],
                    layout: Layout::TwoFiles,
                });
            }
            if !sources.unpaired.is_empty() {
                list.push(Source::Words {
                    lists: [words(&sources.unpaired), Vec::new()],
                    layout: Layout::Unpaired,
                });
            }
        } else {
            list.extend(sources.file_sources().into_iter().map(
                |(layout, mut files)| match layout {
                    Layout::TwoFiles => Source::Pair(files.remove(0), files.remove(0)),
                    Layout::Interleaved => Source::Interleaved(files.remove(0)),
                    _ => Source::Unpaired(files.remove(0)),
                },
            ));
        }
        Ok(Self {
            sources: list,
            next_source: 0,
            open: None,
            format: sources.format,
            limits: ChunkLimits {
                max_records: limits.max_records.max(1),
                max_bytes: limits.max_bytes.max(1),
            },
            skip_left: sources.skip,
            upto_left: sources.upto,
            next_fragment: 0,
            opener: None,
            start_records: None,
            last_span: None,
        })
    }

    /// Reads source number `source` alone (in the order sources are read), its files
    /// opened by `opener`, numbering its fragments from `first_fragment` and its
    /// records after `records_before` records of each file: how a part of an input cut
    /// at a chunk boundary (a multiple of the limit's fragments, a source's start, or
    /// the end of `--skip`) is read again elsewhere, cut into the same chunks, its reads
    /// named and its errors numbered as in the whole.
    pub fn part(
        mut self,
        source: usize,
        opener: FileOpener,
        first_fragment: u64,
        records_before: [u64; 2],
    ) -> Result<Self> {
        let Some(chosen) = self.sources.get(source).cloned() else {
            let cause = std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("no read source number {source}"),
            );
            return Err(Error::io("-", cause));
        };
        self.sources = vec![chosen];
        self.opener = Some(opener);
        self.next_fragment = first_fragment;
        self.start_records = Some(records_before);
        Ok(self)
    }

    /// Where the last chunk filled lies in its files, when it came from read files
    /// (not from `-c`, `-F` or BAM input).
    pub fn last_span(&self) -> Option<ChunkSpan> {
        self.last_span
    }

    /// Fragments read so far, skipped ones included.
    pub fn fragments_read(&self) -> u64 {
        self.next_fragment
    }

    /// Fills `chunk` with the next fragments; `Ok(false)` when the input is done (or
    /// `--upto` fragments were given).
    pub fn fill(&mut self, chunk: &mut InputChunk) -> Result<bool> {
        loop {
            if self.upto_left == Some(0) {
                return Ok(false);
            }
            if self.open.is_none() && !self.open_next()? {
                return Ok(false);
            }
            // A chunk also ends where the fragment number reaches a multiple of the
            // limit, so that a part of the input starting at such a multiple is cut
            // into the same chunks wherever it is read (see `part`).
            let max = self.limits.max_records as u64;
            let mut want = max - self.next_fragment % max;
            if self.skip_left > 0 {
                want = want.min(self.skip_left);
            } else if let Some(upto) = self.upto_left {
                want = want.min(upto);
            }
            let n = self.cut(chunk, want as usize)? as u64;
            if n == 0 {
                self.open = None;
                continue;
            }
            self.next_fragment += n;
            if self.skip_left > 0 {
                self.skip_left -= n;
                continue;
            }
            if let Some(upto) = self.upto_left.as_mut() {
                *upto -= n;
            }
            return Ok(true);
        }
    }

    /// Opens the next source; `false` when there is none.
    fn open_next(&mut self) -> Result<bool> {
        let Some(source) = self.sources.get(self.next_source).cloned() else {
            return Ok(false);
        };
        self.next_source += 1;
        let line_format = match self.format {
            InputFormat::KmerFasta { k, interval } => {
                let Source::Unpaired(path) = &source else {
                    return Err(Error::record("-", 0, "-F makes unpaired reads only"));
                };
                self.open = Some(Open::Kmers(KmerReader::open(path, k, interval)?));
                return Ok(true);
            }
            InputFormat::Bam {
                paired,
                preserve_tags,
            } => {
                let path = match &source {
                    Source::Unpaired(p) | Source::Interleaved(p) => p,
                    Source::Pair(..) | Source::Words { .. } => {
                        return Err(Error::record("-b", 0, "-b takes BAM files alone"));
                    }
                };
                self.open = Some(Open::Bam(BamReads::open(path, paired, preserve_tags)?));
                return Ok(true);
            }
            other => record_format_of(other),
        };
        let opener = &mut self.opener;
        let start_records = self.start_records.take();
        let mut opened = 0;
        let mut open_file = |path: &PathBuf| -> Result<(RecordReader, RecordFormat)> {
            let framing = line_format.map(RecordFormat::framing);
            let input = match opener {
                Some(open) => open(path)?,
                None => Input::open(path)?,
            };
            let (mut reader, detected) = RecordReader::from_input(input, framing)?;
            if let Some(before) = start_records {
                reader.records = before[opened];
            }
            opened += 1;
            let format = line_format.unwrap_or(match detected {
                ReadFormat::Fastq => RecordFormat::Fastq,
                ReadFormat::Fasta => RecordFormat::Fasta,
            });
            Ok((reader, format))
        };
        let tabbed = matches!(self.format, InputFormat::Tab5 | InputFormat::Tab6);
        self.open = Some(match source {
            Source::Words { lists, layout } => Open::Words {
                lists,
                layout,
                next: 0,
            },
            Source::Unpaired(path) | Source::Interleaved(path) if tabbed => {
                let (first, format) = open_file(&path)?;
                Open::Records {
                    first,
                    second: None,
                    layout: Layout::Tabbed,
                    format,
                }
            }
            Source::Unpaired(path) => {
                let (first, format) = open_file(&path)?;
                Open::Records {
                    first,
                    second: None,
                    layout: Layout::Unpaired,
                    format,
                }
            }
            Source::Interleaved(path) => {
                let (first, format) = open_file(&path)?;
                Open::Records {
                    first,
                    second: None,
                    layout: Layout::Interleaved,
                    format,
                }
            }
            Source::Pair(a, b) => {
                let (first, format_a) = open_file(&a)?;
                let (second, format_b) = open_file(&b)?;
                if format_a != format_b {
                    let message = format!(
                        "is {format_a:?} but its mate file {} is {format_b:?}",
                        b.display()
                    );
                    return Err(Error::record(&a, 1, message));
                }
                Open::Records {
                    first,
                    second: Some(second),
                    layout: Layout::TwoFiles,
                    format: format_a,
                }
            }
        });
        Ok(true)
    }

    /// Cuts at most `want` fragments of the open source into `chunk`; 0 when it is done.
    fn cut(&mut self, chunk: &mut InputChunk, want: usize) -> Result<usize> {
        let max_bytes = self.limits.max_bytes;
        chunk.data[0].clear();
        chunk.data[1].clear();
        chunk.fragments = 0;
        chunk.first_fragment = self.next_fragment;
        let Some(open) = self.open.as_mut() else {
            return Ok(0);
        };
        let n = match open {
            Open::Kmers(reader) => {
                chunk.layout = Layout::Unpaired;
                chunk.format = RecordFormat::Kmer;
                chunk.first_record = [reader.records + 1; 2];
                chunk.paths = [reader.path().clone(), reader.path().clone()];
                let mut n = 0;
                while n < want && chunk.data[0].len() < max_bytes {
                    if !reader.next_into(&mut chunk.data[0])? {
                        break;
                    }
                    n += 1;
                }
                n
            }
            Open::Bam(reader) => {
                chunk.layout = if reader.paired() {
                    Layout::Interleaved
                } else {
                    Layout::Unpaired
                };
                chunk.format = RecordFormat::Fastq;
                chunk.paths = [reader.path().clone(), reader.path().clone()];
                let mut n = 0;
                while n < want && chunk.data[0].len() < max_bytes {
                    if !reader.next_into(&mut chunk.data[0])? {
                        break;
                    }
                    if n == 0 {
                        chunk.first_record = [reader.fragment_record; 2];
                    }
                    n += 1;
                }
                n
            }
            Open::Words {
                lists,
                layout,
                next,
            } => cut_words(chunk, lists, *layout, next, want, max_bytes)?,
            Open::Records {
                first,
                second,
                layout,
                format,
            } => {
                chunk.layout = *layout;
                chunk.format = *format;
                chunk.first_record = [
                    first.records + 1,
                    second.as_ref().map_or(first.records + 1, |s| s.records + 1),
                ];
                chunk.paths = [
                    first.path().clone(),
                    second.as_ref().unwrap_or(first).path().clone(),
                ];
                let offsets = |first: &RecordReader, second: &Option<RecordReader>| {
                    [first.offset(), second.as_ref().map_or(0, |s| s.offset())]
                };
                let start = offsets(first, second);
                let n = match second {
                    None => cut_one_file(chunk, first, *layout, want, max_bytes)?,
                    Some(second) => cut_two_files(chunk, first, second, want, max_bytes)?,
                };
                self.last_span = Some(ChunkSpan {
                    source: self.next_source - 1,
                    start,
                    end: offsets(first, second),
                    compressed: first.compressed()
                        || second.as_ref().is_some_and(|s| s.compressed()),
                });
                n
            }
        };
        chunk.fragments = n;
        Ok(n)
    }
}

/// The record format `format` fixes whatever the files hold; `None` when it is told by
/// each file's first record (FASTQ or FASTA), and for k-mers and BAM.
pub(crate) fn record_format_of(format: InputFormat) -> Option<RecordFormat> {
    match format {
        InputFormat::Tab5 => Some(RecordFormat::Tab5),
        InputFormat::Tab6 => Some(RecordFormat::Tab6),
        InputFormat::Raw => Some(RecordFormat::Raw),
        InputFormat::Qseq => Some(RecordFormat::Qseq),
        InputFormat::CommandLine => Some(RecordFormat::CommandLine),
        InputFormat::Auto | InputFormat::KmerFasta { .. } | InputFormat::Bam { .. } => None,
    }
}

/// The end of the record at `pos` (blank lines before it skipped) in `data`, which
/// holds whole records.
pub(crate) fn record_end_in(format: RecordFormat, data: &[u8], pos: usize) -> usize {
    let pos = super::skip_blank_lines(data, pos);
    let end = match format.framing() {
        Framing::Fastq => super::record_end(ReadFormat::Fastq, data, pos),
        Framing::Fasta => super::record_end(ReadFormat::Fasta, data, pos),
        Framing::Line => memchr::memchr(b'\n', &data[pos.min(data.len())..]).map(|i| pos + i + 1),
    };
    end.unwrap_or(data.len())
}
