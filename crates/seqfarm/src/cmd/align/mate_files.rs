//! bowtie2's read files: `--un`, `--al`, `--un-conc`, `--al-conc` (each also `-gz` and
//! `-bz2`), the reads of the input written back out according to how they aligned.
//!
//! Which reads go where (as bowtie2 2.5 does it):
//! - `--un` / `--al`: unpaired reads (`-U`) that did not align / aligned. Mates of pairs
//!   never go there.
//! - `--un-conc` / `--al-conc`: pairs that did not align concordantly (discordant pairs
//!   and pairs whose mates aligned on their own or not at all) / pairs that did, mate 1
//!   to one file and mate 2 to the other.
//! - The read is written as it was in the input: the record's own bytes (FASTQ or FASTA,
//!   the whole header line with its comment, `/1` `/2` suffixes, bases untrimmed, FASTA
//!   line breaks), whatever `--trim5/--trim3`, `--no-unal` or the output format.
//!
//! File names of the two mate files ([`mate_paths`]): every `%` in the file name becomes
//! `1` / `2`; otherwise `.1` / `.2` goes before the last extension (`x.fq.gz` gives
//! `x.fq.1.gz` and `x.fq.2.gz`); a name without a dot gets `.1` / `.2` appended. A path
//! that is an existing directory receives `un-seqs`, `al-seqs`, `un-conc-mate.1` ...
//! inside it. Compressed files keep the given name (no extension is added).
//!
//! Order and atomicity: a worker formats its task's reads into a [`ReadFileBuffers`]
//! (one byte buffer per destination; gzip destinations are compressed there, one gzip
//! member per task, which every gzip reader reads as one stream); the collector appends
//! the buffers to the files in task order ([`ReadFiles::write`]), so the files are the
//! same at any thread count. bzip2 is one stream, compressed by the collector. Every
//! file is an [`Output`]: a temporary file renamed on `ReadFiles::commit`, replacing an
//! existing file as bowtie2 replaces it (the command's policy says so).
//!
//! ```ignore
//! let mut files = ReadFiles::create(&specs, overwrite)?; // before any work
//! let routing = files.routing();                      // Copy, for the workers
//! // worker, per task:
//! task.read_files.clear();
//! routing.add_read(&mut task.read_files, ReadText(record), &result);
//! routing.add_pair(&mut task.read_files, [text1, text2], &pair_result);
//! routing.finish_task(&mut task.read_files)?;
//! // collector, per task in order:
//! files.write(&mut task.read_files)?;
//! // at the end, with the run's other outputs:
//! Output::commit_together(files.finish()?)?;
//! ```

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use seqfarm_align::{PairClass, PairResult, ReadResult};
use seqfarm_io::output::{refuse_shared_outputs, Output, Overwrite};

/// Which reads a file receives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadFileKind {
    /// `--un`: unpaired reads that did not align.
    Unaligned,
    /// `--al`: unpaired reads that aligned.
    Aligned,
    /// `--un-conc`: pairs that did not align concordantly (two files).
    UnalignedPairs,
    /// `--al-conc`: pairs that aligned concordantly (two files).
    AlignedPairs,
}

impl ReadFileKind {
    /// The kinds, in the order of their buffers.
    const ALL: [ReadFileKind; 4] = [
        ReadFileKind::Unaligned,
        ReadFileKind::Aligned,
        ReadFileKind::UnalignedPairs,
        ReadFileKind::AlignedPairs,
    ];

    /// The bowtie2 option, without dashes or compression suffix (`un-conc`).
    pub fn option(self) -> &'static str {
        match self {
            ReadFileKind::Unaligned => "un",
            ReadFileKind::Aligned => "al",
            ReadFileKind::UnalignedPairs => "un-conc",
            ReadFileKind::AlignedPairs => "al-conc",
        }
    }

    /// Whether it takes pairs (two files, one per mate).
    pub fn paired(self) -> bool {
        matches!(
            self,
            ReadFileKind::UnalignedPairs | ReadFileKind::AlignedPairs
        )
    }

    /// The first of its buffer slots (pairs have two: mate 1, mate 2).
    fn slot(self) -> usize {
        match self {
            ReadFileKind::Unaligned => 0,
            ReadFileKind::Aligned => 1,
            ReadFileKind::UnalignedPairs => 2,
            ReadFileKind::AlignedPairs => 4,
        }
    }

    /// The file name bowtie2 uses when the path given is a directory.
    fn name_in_directory(self) -> &'static str {
        match self {
            ReadFileKind::Unaligned => "un-seqs",
            ReadFileKind::Aligned => "al-seqs",
            ReadFileKind::UnalignedPairs => "un-conc-mate",
            ReadFileKind::AlignedPairs => "al-conc-mate",
        }
    }
}

/// Number of buffer slots: one per unpaired kind, two per paired kind.
const SLOTS: usize = 6;

/// How a read file is compressed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ReadFileCompression {
    /// Plain text.
    #[default]
    Plain,
    /// gzip (`--un-gz` ...), level 6 as `gzip -c`.
    Gzip,
    /// bzip2 (`--un-bz2` ...), 900 k blocks as `bzip2 -c`.
    Bzip2,
    /// LZ4 frames (`--un-lz4` ...), as `lz4 -c` writes them.
    Lz4,
}

/// One read-file option: what goes in, where, how compressed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadFileSpec {
    /// Which reads.
    pub kind: ReadFileKind,
    /// The path as given (for pairs, the pattern of the two mate files).
    pub path: PathBuf,
    /// Compression.
    pub compression: ReadFileCompression,
}

impl ReadFileSpec {
    /// The spec of a bowtie2 option named without its dashes (`un`, `al-gz`,
    /// `un-conc-bz2` ...); `None` for any other name.
    pub fn from_option(option: &str, path: impl Into<PathBuf>) -> Option<Self> {
        let (base, compression) = if let Some(base) = option.strip_suffix("-gz") {
            (base, ReadFileCompression::Gzip)
        } else if let Some(base) = option.strip_suffix("-bz2") {
            (base, ReadFileCompression::Bzip2)
        } else if let Some(base) = option.strip_suffix("-lz4") {
            (base, ReadFileCompression::Lz4)
        } else {
            (option, ReadFileCompression::Plain)
        };
        let kind = ReadFileKind::ALL.into_iter().find(|k| k.option() == base)?;
        Some(Self {
            kind,
            path: path.into(),
            compression,
        })
    }

    /// The option, as bowtie2 spells it (`--un-conc-gz`).
    pub fn option(&self) -> String {
        let suffix = match self.compression {
            ReadFileCompression::Plain => "",
            ReadFileCompression::Gzip => "-gz",
            ReadFileCompression::Bzip2 => "-bz2",
            ReadFileCompression::Lz4 => "-lz4",
        };
        format!("--{}{suffix}", self.kind.option())
    }

    /// The files written: one, or mate 1's and mate 2's for pairs (bowtie2's names).
    pub fn paths(&self) -> Vec<PathBuf> {
        let in_directory = self.path.is_dir();
        if self.kind.paired() {
            let pattern = if in_directory {
                self.path.join(self.kind.name_in_directory())
            } else {
                self.path.clone()
            };
            mate_paths(&pattern).to_vec()
        } else if in_directory {
            vec![self.path.join(self.kind.name_in_directory())]
        } else {
            vec![self.path.clone()]
        }
    }
}

/// A file the read-file options write ([`read_file_outputs`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadFileOutput {
    /// The option that names it, with the mate for pairs (`--un-conc-gz (mate 1)`).
    pub option: String,
    /// The file.
    pub path: PathBuf,
    /// Its buffer slot.
    slot: usize,
    /// Its compression.
    compression: ReadFileCompression,
}

/// The files `specs` write, each with the option that names it: two per paired kind; a
/// kind given twice keeps its last spec, as in bowtie2. (That no two are the same file,
/// nor the same as another output of the run, is checked with every output of the run:
/// [`super::AlignOptions::check_outputs`].)
pub fn read_file_outputs(specs: &[ReadFileSpec]) -> Vec<ReadFileOutput> {
    let mut files = Vec::new();
    for kind in ReadFileKind::ALL {
        let Some(spec) = specs.iter().rev().find(|s| s.kind == kind) else {
            continue;
        };
        let paths = spec.paths();
        let mates = paths.len();
        for (mate, path) in paths.into_iter().enumerate() {
            let option = if mates > 1 {
                format!("{} (mate {})", spec.option(), mate + 1)
            } else {
                spec.option()
            };
            files.push(ReadFileOutput {
                option,
                path,
                slot: kind.slot() + mate,
                compression: spec.compression,
            });
        }
    }
    files
}

/// bowtie2's two mate file names for `path`: each `%` of the file name replaced by `1`
/// and `2`; else `.1` / `.2` before the last extension; else appended.
pub fn mate_paths(path: &Path) -> [PathBuf; 2] {
    let name = path.file_name().and_then(|n| n.to_str());
    let named = |mate: char| -> PathBuf {
        let Some(name) = name else {
            let mut p = path.as_os_str().to_os_string();
            p.push(format!(".{mate}"));
            return PathBuf::from(p);
        };
        let new_name = if name.contains('%') {
            name.replace('%', &mate.to_string())
        } else if let Some(dot) = name.rfind('.') {
            format!("{}.{mate}.{}", &name[..dot], &name[dot + 1..])
        } else {
            format!("{name}.{mate}")
        };
        path.with_file_name(new_name)
    };
    [named('1'), named('2')]
}

/// A read to write back out: the record's bytes as they were in the input, without
/// their final line break (written unchanged, the line break added: a FASTQ record with
/// an empty read ends in its empty quality line). Empty writes nothing: bowtie2 writes a
/// `--tab5/--tab6` pair's whole line as mate 1 and nothing as mate 2.
#[derive(Debug, Clone, Copy)]
pub struct ReadText<'a>(pub &'a [u8]);

impl ReadText<'_> {
    fn append(&self, out: &mut Vec<u8>) {
        if !self.0.is_empty() {
            out.extend_from_slice(self.0);
            out.push(b'\n');
        }
    }
}

/// A task's reads for each destination (worker side): plain bytes, or gzip members
/// once [`ReadRouting::finish_task`] has run. `Default` is empty; reuse it across tasks.
#[derive(Debug, Default)]
pub struct ReadFileBuffers {
    slots: [Vec<u8>; SLOTS],
    scratch: Vec<u8>,
}

impl ReadFileBuffers {
    /// Empties every buffer (at the start of a task, as a recycled task may hold the
    /// previous one's reads if it failed).
    pub fn clear(&mut self) {
        for slot in &mut self.slots {
            slot.clear();
        }
    }

    #[cfg(test)]
    /// Bytes held, all destinations together.
    pub fn len(&self) -> usize {
        self.slots.iter().map(Vec::len).sum()
    }

    #[cfg(test)]
    /// Whether no destination holds anything.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Which destinations are open and how they are compressed: what the workers need to
/// fill `ReadFileBuffers`. Cheap to copy.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReadRouting {
    kinds: [Option<ReadFileCompression>; 4],
}

impl ReadRouting {
    /// Routing for the given specs (the last spec of a kind wins).
    pub fn new(specs: &[ReadFileSpec]) -> Self {
        let mut routing = Self::default();
        for spec in specs {
            routing.kinds[kind_index(spec.kind)] = Some(spec.compression);
        }
        routing
    }

    #[cfg(test)]
    /// Whether any read file is written (else the worker can skip the calls).
    pub fn any(&self) -> bool {
        self.kinds.iter().any(Option::is_some)
    }

    fn wants(&self, kind: ReadFileKind) -> bool {
        self.kinds[kind_index(kind)].is_some()
    }

    /// Adds an unpaired read to `--al` if it aligned, else to `--un`.
    pub fn add_unpaired(&self, buffers: &mut ReadFileBuffers, text: ReadText<'_>, aligned: bool) {
        let kind = if aligned {
            ReadFileKind::Aligned
        } else {
            ReadFileKind::Unaligned
        };
        if self.wants(kind) {
            text.append(&mut buffers.slots[kind.slot()]);
        }
    }

    /// Adds a pair's mates to `--al-conc` if it aligned concordantly, else to
    /// `--un-conc`.
    pub fn add_mates(
        &self,
        buffers: &mut ReadFileBuffers,
        texts: [ReadText<'_>; 2],
        concordant: bool,
    ) {
        let kind = if concordant {
            ReadFileKind::AlignedPairs
        } else {
            ReadFileKind::UnalignedPairs
        };
        if self.wants(kind) {
            for (mate, text) in texts.iter().enumerate() {
                text.append(&mut buffers.slots[kind.slot() + mate]);
            }
        }
    }

    /// Adds an unpaired read given its outcome.
    pub fn add_read(&self, buffers: &mut ReadFileBuffers, text: ReadText<'_>, result: &ReadResult) {
        self.add_unpaired(buffers, text, matches!(result, ReadResult::Aligned { .. }));
    }

    /// Adds a pair given its outcome.
    pub fn add_pair(
        &self,
        buffers: &mut ReadFileBuffers,
        texts: [ReadText<'_>; 2],
        result: &PairResult,
    ) {
        self.add_mates(buffers, texts, result.class == PairClass::Concordant);
    }

    /// Compresses the gzip destinations' bytes into one gzip member each (on the
    /// worker, so that compression runs in parallel). Call once, after the task's last
    /// read.
    pub fn finish_task(&self, buffers: &mut ReadFileBuffers) -> io::Result<()> {
        for kind in ReadFileKind::ALL {
            if self.kinds[kind_index(kind)] != Some(ReadFileCompression::Gzip) {
                continue;
            }
            let mates = if kind.paired() { 2 } else { 1 };
            for slot in kind.slot()..kind.slot() + mates {
                if buffers.slots[slot].is_empty() {
                    continue;
                }
                let mut member = std::mem::take(&mut buffers.scratch);
                member.clear();
                gzip_member(&buffers.slots[slot], &mut member)?;
                buffers.scratch = std::mem::replace(&mut buffers.slots[slot], member);
            }
        }
        Ok(())
    }
}

fn kind_index(kind: ReadFileKind) -> usize {
    match kind {
        ReadFileKind::Unaligned => 0,
        ReadFileKind::Aligned => 1,
        ReadFileKind::UnalignedPairs => 2,
        ReadFileKind::AlignedPairs => 3,
    }
}

/// Appends `data` to `out` as one gzip member (level 6, no name, no time stamp).
fn gzip_member(data: &[u8], out: &mut Vec<u8>) -> io::Result<()> {
    let mut encoder = flate2::write::GzEncoder::new(out, flate2::Compression::new(6));
    encoder.write_all(data)?;
    encoder.finish()?;
    Ok(())
}

/// An open read file (collector side).
enum Sink {
    /// Plain text, or gzip members compressed by the workers (`wrote` tells whether
    /// any was written: an empty gzip file still needs one member).
    Bytes {
        out: Output,
        gzip: bool,
        wrote: bool,
    },
    /// One compressed stream, compressed on the collector.
    Stream {
        encoder: StreamEncoder,
        path: PathBuf,
    },
}

/// The encoder of a read file compressed as one stream: bzip2, or LZ4 frames.
enum StreamEncoder {
    Bzip2(bzip2::write::BzEncoder<Output>),
    /// Boxed: the frame encoder holds its block buffers inline.
    Lz4(Box<lz4_flex::frame::FrameEncoder<Output>>),
}

impl StreamEncoder {
    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        match self {
            Self::Bzip2(e) => e.write_all(bytes),
            Self::Lz4(e) => e.write_all(bytes),
        }
    }

    /// Ends the stream and hands back the output it was written to.
    fn finish(self) -> io::Result<Output> {
        match self {
            Self::Bzip2(e) => e.finish(),
            Self::Lz4(e) => e.finish().map_err(io::Error::other),
        }
    }
}

/// The read files of a run (collector side): created before any work, appended to in
/// task order, committed at the end.
pub struct ReadFiles {
    routing: ReadRouting,
    sinks: Vec<(usize, Sink)>,
}

impl ReadFiles {
    /// Opens every file of `specs` ([`read_file_outputs`]). Fails if a file exists and
    /// `overwrite` refuses, or if two options name the same file.
    pub fn create(specs: &[ReadFileSpec], overwrite: Overwrite) -> seqfarm_io::Result<Self> {
        let files = read_file_outputs(specs);
        refuse_shared_outputs(files.iter().map(|f| (f.option.as_str(), &f.path)))?;
        let mut sinks = Vec::with_capacity(files.len());
        for ReadFileOutput {
            path,
            slot,
            compression,
            ..
        } in files
        {
            let out = Output::create(&path, overwrite)?;
            let sink = match compression {
                ReadFileCompression::Bzip2 => Sink::Stream {
                    encoder: StreamEncoder::Bzip2(bzip2::write::BzEncoder::new(
                        out,
                        bzip2::Compression::best(),
                    )),
                    path,
                },
                ReadFileCompression::Lz4 => Sink::Stream {
                    encoder: StreamEncoder::Lz4(Box::new(lz4_flex::frame::FrameEncoder::new(out))),
                    path,
                },
                c => Sink::Bytes {
                    out,
                    gzip: c == ReadFileCompression::Gzip,
                    wrote: false,
                },
            };
            sinks.push((slot, sink));
        }
        Ok(Self {
            routing: ReadRouting::new(specs),
            sinks,
        })
    }

    /// What the workers need to fill their buffers.
    pub fn routing(&self) -> ReadRouting {
        self.routing
    }

    /// Appends a task's reads to the files (call in task order), and empties the
    /// buffers.
    pub fn write(&mut self, buffers: &mut ReadFileBuffers) -> seqfarm_io::Result<()> {
        for (slot, sink) in &mut self.sinks {
            let bytes = &buffers.slots[*slot];
            if bytes.is_empty() {
                continue;
            }
            match sink {
                Sink::Bytes { out, wrote, .. } => {
                    out.put(bytes)?;
                    *wrote = true;
                }
                Sink::Stream { encoder, path } => encoder
                    .write_all(bytes)
                    .map_err(|e| seqfarm_io::Error::io(&*path, e))?,
            }
        }
        buffers.clear();
        Ok(())
    }

    /// Finishes the compressed streams and moves every file into place.
    #[cfg(test)]
    pub fn commit(self) -> seqfarm_io::Result<()> {
        Output::commit_together(self.finish()?)
    }

    /// Finishes the compressed streams; returns the files, to commit with the run's
    /// other outputs.
    pub fn finish(self) -> seqfarm_io::Result<Vec<Output>> {
        let mut outputs = Vec::with_capacity(self.sinks.len());
        for (_, sink) in self.sinks {
            match sink {
                Sink::Bytes {
                    mut out,
                    gzip,
                    wrote,
                } => {
                    if gzip && !wrote {
                        let mut member = Vec::new();
                        gzip_member(&[], &mut member).map_err(|e| out.error(e))?;
                        out.put(&member)?;
                    }
                    outputs.push(out);
                }
                Sink::Stream { encoder, path } => {
                    let out = encoder
                        .finish()
                        .map_err(|e| seqfarm_io::Error::io(&path, e))?;
                    outputs.push(out);
                }
            }
        }
        Ok(outputs)
    }
}

#[cfg(test)]
mod tests;
