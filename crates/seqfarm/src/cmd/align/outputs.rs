//! The files `seqfarm align` reads and writes, each output with the option that names
//! it, checked together before any work: no output may be one of the inputs (the reads,
//! the index), and no two outputs may be the same file, also under other names, whichever
//! options name them: `-S`/`-o`, the `--un*`/`--al*` files (both mate files of the
//! `-conc` options), `--met-file`, `--sort`'s index, `--plot` and `--stats`. Each output
//! is written through a temporary file of its own name, so two outputs of one file would
//! end in a failed rename after the whole alignment, one having replaced the other.

use std::path::{Path, PathBuf};

use seqfarm_fmindex::{FmIndex, LoadMode, LoadOptions};
use seqfarm_io::bam_sort::index_beside;
use seqfarm_io::output::{refuse_input_as_output, refuse_shared_outputs, Output};
use seqfarm_io::reads::ReadSources;

use super::mate_files::{read_file_outputs, ReadFileSpec};
use super::AlignOptions;

impl AlignOptions {
    /// The files the run reads and no output may replace: the reads and the index file.
    pub(crate) fn input_files(&self, sources: &ReadSources) -> Vec<PathBuf> {
        let mut inputs = read_file_paths(sources);
        inputs.push(self.index_file());
        inputs
    }

    /// Every file the run writes but `--sort`'s index, each with the option naming it.
    fn output_files(&self, specs: &[ReadFileSpec]) -> Vec<(String, PathBuf)> {
        let main = if self.style.bam { "-o" } else { "-S" };
        let mut outputs = vec![(main.to_string(), self.output.clone())];
        outputs.extend(
            read_file_outputs(specs)
                .into_iter()
                .map(|file| (file.option, file.path)),
        );
        let side = [
            ("--met-file", &self.met_file),
            ("--markdup-metrics", &self.markdup_metrics),
            ("--plot", &self.plot),
            ("--stats", &self.farm.stats),
        ];
        for (option, path) in side {
            outputs.extend(path.clone().map(|path| (option.to_string(), path)));
        }
        outputs
    }

    /// Refuses, before any work, an output that is one of `inputs` and two outputs that
    /// are the same file. `index` is the index when it is already loaded: `--sort`'s
    /// index is named after its contigs' lengths (else read from the index file's header;
    /// an index that cannot be read leaves it out, and the load that follows says why).
    pub(crate) fn check_outputs(
        &self,
        inputs: &[PathBuf],
        index: Option<&FmIndex>,
    ) -> anyhow::Result<()> {
        let mut outputs = self.output_files(&self.read_files);
        for (_, path) in &outputs {
            refuse_input_as_output(path, inputs)?;
        }
        if self.sort {
            let lengths = match index {
                Some(index) => Some(contig_lengths(index)),
                None => peek_contig_lengths(&self.index_file()),
            };
            if let Some(lengths) = lengths {
                let path = index_beside(&self.output, &lengths);
                refuse_input_as_output(&path, inputs)?;
                outputs.push(("--sort's index".to_string(), path));
            }
        }
        refuse_shared_outputs(outputs)?;
        Ok(())
    }

    /// Opens the main output (`-S`/`-o`) as a run does, once the outputs are checked: for
    /// a program that writes the alignments itself (the parts of a run spread over
    /// machines).
    pub(crate) fn open_main_output(&self) -> anyhow::Result<Output> {
        self.check_outputs(&self.input_files(&self.reads), None)?;
        Ok(Output::create(&self.output, self.overwrite())?)
    }
}

/// The lengths of the index's contigs, in order.
fn contig_lengths(index: &FmIndex) -> Vec<u64> {
    index.contigs().iter().map(|c| c.len).collect()
}

/// How an index is opened for its header alone (contig names and lengths): the file
/// memory-mapped, its header checked, nothing else read.
pub(crate) const HEADER_ONLY: LoadOptions = LoadOptions {
    mode: LoadMode::Mmap,
    verify_checksums: false,
    threads: 1,
};

/// The lengths of the contigs of the index file `path`, read from its header (see
/// [`HEADER_ONLY`]); `None` when it cannot be opened.
pub(crate) fn peek_contig_lengths(path: &Path) -> Option<Vec<u64>> {
    FmIndex::open(path, HEADER_ONLY)
        .ok()
        .map(|index| contig_lengths(&index))
}

/// Every read file of the run, in the order bowtie2 reads them.
pub(crate) fn read_file_paths(sources: &ReadSources) -> Vec<PathBuf> {
    [
        &sources.interleaved,
        &sources.mate1,
        &sources.mate2,
        &sources.unpaired,
    ]
    .into_iter()
    .flatten()
    .cloned()
    .collect()
}
