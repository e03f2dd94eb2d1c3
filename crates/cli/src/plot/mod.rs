//! `--plot FILE.svg`: pictures of what a command computed, drawn as SVG with `plotters`.
//!
//! Each command keeps a small table beside its usual output as its collector sees the
//! results (no second pass over the input): [`SiteTable`] (snp-pileup's rows),
//! [`WindowTable`] (count's and depth's windows or regions) and [`AlignTally`] (align's
//! MAPQ and insert sizes). A table reduces itself to panels, and the panels are drawn here
//! by one of two drawings shared by every picture:
//!
//! * [`genome`]: stacked panels over one genomic x axis (contigs side by side, each from
//!   its first to its last datum, separated by lines and labelled), values as points or
//!   lines;
//! * [`histogram`]: stacked histograms, bars over a numeric x axis.
//!
//! The picture is an output like the others ([`PlotFile`]): an existing file is replaced
//! or refused by the command's rule (refused only by snp-pileup, unless `--force`), and it
//! is written to a temporary file and renamed once the command has succeeded. Its bytes
//! depend only on the data, so they are the same at any thread count.

use std::path::{Path, PathBuf};

use plotters::prelude::*;
use seqfarm_io::output::{refuse_input_as_output, Output, Overwrite};

mod align;
pub mod genome;
pub mod histogram;
mod sites;
mod windows;

pub use align::AlignTally;
pub use sites::SiteTable;
pub use windows::{WindowTable, WindowValues};

/// Picture width in pixels.
const WIDTH: u32 = 1200;
/// Height of one panel in pixels.
const PANEL_HEIGHT: u32 = 300;
/// Height of the picture's title band in pixels.
const TITLE_HEIGHT: u32 = 40;
/// The font of every text.
const FONT: &str = "sans-serif";
/// Series colours, in order (the first is used for a single series).
const COLOURS: [RGBColor; 4] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
];

/// The colour of series `i`.
fn colour(i: usize) -> RGBColor {
    COLOURS[i % COLOURS.len()]
}

/// A drawing error of `plotters`, as an error of the picture `what`.
fn drawing_error(what: &str, e: impl std::fmt::Display) -> anyhow::Error {
    anyhow::anyhow!("cannot draw the {what} picture: {e}")
}

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

/// Text `name` of a file for a picture's title: its file name.
pub fn file_label(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

/// Draws `panels` stacked under `title` into an SVG document of [`WIDTH`] pixels, each
/// panel drawn by `draw` on its own area; returns the document.
fn stacked_svg<P>(
    what: &str,
    title: &str,
    panels: &[P],
    mut draw: impl FnMut(
        &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
        &P,
        bool,
    ) -> anyhow::Result<()>,
) -> anyhow::Result<String> {
    let mut svg = String::new();
    {
        let height = TITLE_HEIGHT + PANEL_HEIGHT * panels.len().max(1) as u32;
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| drawing_error(what, e))?;
        let body = root
            .titled(title, (FONT, 22))
            .map_err(|e| drawing_error(what, e))?;
        let areas = body.split_evenly((panels.len().max(1), 1));
        for (i, (panel, area)) in panels.iter().zip(&areas).enumerate() {
            draw(area, panel, i + 1 == panels.len())?;
        }
        root.present().map_err(|e| drawing_error(what, e))?;
    }
    Ok(svg)
}
