//! The `--plot FILE.svg` file of a command: the picture (drawn by `seqfarm_plot`) is an
//! output like the others. An existing file is replaced or refused by the command's rule
//! (refused only by snp-pileup, unless `--force`), and it is written to a temporary file
//! and renamed once the command has succeeded.

use std::path::{Path, PathBuf};

use seqfarm_io::output::{refuse_input_as_output, Output, Overwrite};

/// The `--plot` file of a command run: opened before the work starts (where the command
/// refuses existing outputs, an existing file is refused at once) and written once the
/// picture is drawn.
pub struct PlotFile {
    output: Output,
}

impl PlotFile {
    /// Opens `path` (no picture without one); `inputs` are the files the command reads,
    /// which the picture may not replace. (That it is not another output of the command is
    /// checked with them all: [`crate::common::refuse_shared_outputs`].)
    pub fn create<P: AsRef<Path>>(
        path: Option<&PathBuf>,
        overwrite: Overwrite,
        inputs: impl IntoIterator<Item = P>,
    ) -> anyhow::Result<Option<Self>> {
        let Some(path) = path else {
            return Ok(None);
        };
        if path == Path::new("-") {
            anyhow::bail!(
                "--plot -: give a file name (the picture is not written to standard output)"
            );
        }
        refuse_input_as_output(path, inputs)?;
        Ok(Some(Self {
            output: Output::create(path, overwrite)?,
        }))
    }

    /// Writes `svg` and moves the file into place.
    pub fn write(self, svg: &str) -> anyhow::Result<()> {
        self.written(svg)?.commit()?;
        Ok(())
    }

    /// Writes `svg`; returns the file, to commit with the run's other outputs.
    pub fn written(mut self, svg: &str) -> seqfarm_io::Result<Output> {
        self.output.put(svg.as_bytes())?;
        Ok(self.output)
    }
}
