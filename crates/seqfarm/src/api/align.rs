//! Read alignment in process against an index loaded once: reads held in memory
//! aligned by the command's own worker and formatted by its record writer, and whole
//! read files aligned as `seqfarm align` aligns them.

use std::path::PathBuf;
use std::sync::Arc;

use seqfarm_io::reads::{InputChunk, Layout, RecordFormat};
use seqfarm_io::sam::SamHeader;

use super::index::LoadedIndex;
#[cfg(doc)]
use crate::cmd::align::command_line;
use crate::cmd::align::{AlignOptions, AlignTask, ChunkWorker, ReadRouting};

/// A read held in memory: name, bases, and Phred+33 qualities (`None`: no qualities, as
/// FASTA reads).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryRead {
    /// The read's name (a mate's may end in `/1`, `/2`).
    pub name: String,
    /// The bases.
    pub bases: String,
    /// The qualities, one character per base.
    pub qualities: Option<String>,
}

/// An unpaired read or a pair of mates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MemoryFragment {
    /// An unpaired read.
    Single(MemoryRead),
    /// Mate 1 and mate 2.
    Pair(MemoryRead, MemoryRead),
}

/// An aligner with the options of an `align` run, on an index loaded once.
pub struct ReadAligner {
    index: Arc<LoadedIndex>,
    /// The options, records as SAM text.
    align: AlignOptions,
    header: SamHeader,
}

impl ReadAligner {
    /// An aligner on `index` with `options` (those of an `align` run; its reads and
    /// outputs are not used), whose header's `@PG CL:` is `command_line` (see
    /// [`command_line`]).
    pub fn new(
        index: Arc<LoadedIndex>,
        mut options: AlignOptions,
        command_line: &str,
    ) -> anyhow::Result<Self> {
        let header = options.header(index.index(), command_line)?;
        options.style.bam = false;
        Ok(Self {
            align: options,
            header,
            index,
        })
    }

    /// The loaded index.
    pub fn index(&self) -> &seqfarm_fmindex::FmIndex {
        self.index.index()
    }

    /// The SAM header of the records [`ReadAligner::align`] returns.
    pub fn header_text(&self) -> &str {
        &self.header.text
    }

    /// Aligns `fragments` and returns their SAM records, as `seqfarm align` writes them
    /// for the same reads (without the header). Reads with qualities and reads without
    /// cannot be mixed in one call.
    pub fn align(&self, fragments: &[MemoryFragment]) -> anyhow::Result<Vec<u8>> {
        // `--plot` draws a picture of a run over files only.
        if self.align.plot.is_some() {
            anyhow::bail!(
                "--plot draws a run over files (align_files), not reads aligned in memory"
            );
        }
        let mut task = AlignTask::default();
        task.chunk = memory_chunk(fragments)?;
        let format = self
            .align
            .chunk_format(&self.header, ReadRouting::default(), false, false);
        let mut worker = ChunkWorker::new(self.index.index(), self.align.params.clone())?;
        worker.process(&format, &mut task)?;
        if let Some(error) = task.error.take() {
            return Err(error.into());
        }
        Ok(std::mem::take(&mut task.out))
    }
}

/// The path read errors name for reads given in memory.
const MEMORY_READS: &str = "<reads>";

/// `fragments` as an input chunk: one tab-separated line per fragment (`--tab6`) when
/// every read has qualities, FASTA when none has.
fn memory_chunk(fragments: &[MemoryFragment]) -> anyhow::Result<InputChunk> {
    let reads = || {
        fragments.iter().flat_map(|f| match f {
            MemoryFragment::Single(r) => [Some(r), None],
            MemoryFragment::Pair(a, b) => [Some(a), Some(b)],
        })
    };
    let with_qualities = reads().flatten().filter(|r| r.qualities.is_some()).count();
    let all = reads().flatten().count();
    let mut chunk = InputChunk {
        fragments: fragments.len(),
        first_record: [1, 1],
        paths: [PathBuf::from(MEMORY_READS), PathBuf::from(MEMORY_READS)],
        ..InputChunk::default()
    };
    if with_qualities == all {
        chunk.layout = Layout::Tabbed;
        chunk.format = RecordFormat::Tab6;
        let line = &mut chunk.data[0];
        for fragment in fragments {
            let mates = match fragment {
                MemoryFragment::Single(r) => vec![r],
                MemoryFragment::Pair(a, b) => vec![a, b],
            };
            for (k, read) in mates.into_iter().enumerate() {
                if k > 0 {
                    line.push(b'\t');
                }
                for (j, field) in [
                    &read.name,
                    &read.bases,
                    read.qualities.as_ref().unwrap_or(&read.bases),
                ]
                .into_iter()
                .enumerate()
                {
                    if j > 0 {
                        line.push(b'\t');
                    }
                    line.extend_from_slice(field.as_bytes());
                }
            }
            line.push(b'\n');
        }
        return Ok(chunk);
    }
    if with_qualities > 0 {
        anyhow::bail!("reads with qualities and reads without cannot be aligned together");
    }
    let pairs = fragments
        .iter()
        .filter(|f| matches!(f, MemoryFragment::Pair(..)))
        .count();
    chunk.format = RecordFormat::Fasta;
    chunk.layout = match pairs {
        0 => Layout::Unpaired,
        n if n == fragments.len() => Layout::TwoFiles,
        _ => anyhow::bail!("reads without qualities: give unpaired reads or pairs, not both"),
    };
    for fragment in fragments {
        let mates = match fragment {
            MemoryFragment::Single(r) => vec![(0, r)],
            MemoryFragment::Pair(a, b) => vec![(0, a), (1, b)],
        };
        for (file, read) in mates {
            let data = &mut chunk.data[file];
            data.push(b'>');
            data.extend_from_slice(read.name.as_bytes());
            data.push(b'\n');
            data.extend_from_slice(read.bases.as_bytes());
            data.push(b'\n');
        }
    }
    Ok(chunk)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(name: &str, bases: &str, qualities: Option<&str>) -> MemoryRead {
        MemoryRead {
            name: name.into(),
            bases: bases.into(),
            qualities: qualities.map(String::from),
        }
    }

    #[test]
    fn reads_with_qualities_become_tab6_lines() {
        let chunk = memory_chunk(&[
            MemoryFragment::Single(read("a", "ACGT", Some("IIII"))),
            MemoryFragment::Pair(read("p/1", "GG", Some("II")), read("p/2", "TT", Some("#I"))),
        ])
        .unwrap();
        assert_eq!(
            (chunk.layout, chunk.format),
            (Layout::Tabbed, RecordFormat::Tab6)
        );
        assert_eq!(chunk.data[0], b"a\tACGT\tIIII\np/1\tGG\tII\tp/2\tTT\t#I\n");
        assert_eq!(chunk.fragments, 2);
    }

    #[test]
    fn reads_without_qualities_become_fasta() {
        let pairs = [MemoryFragment::Pair(
            read("p", "GG", None),
            read("p", "TT", None),
        )];
        let chunk = memory_chunk(&pairs).unwrap();
        assert_eq!(
            (chunk.layout, chunk.format),
            (Layout::TwoFiles, RecordFormat::Fasta)
        );
        assert_eq!(chunk.data, [b">p\nGG\n".to_vec(), b">p\nTT\n".to_vec()]);
        let mixed = [
            MemoryFragment::Single(read("a", "A", None)),
            MemoryFragment::Single(read("b", "C", Some("I"))),
        ];
        assert!(memory_chunk(&mixed).is_err());
    }
}
