//! The pictures of `--plot FILE.svg`: what a command computed, drawn as SVG with
//! `plotters`.
//!
//! Each command keeps a small table beside its usual output as its collector sees the
//! results (no second pass over the input): [`SiteTable`] (snp-pileup's rows),
//! [`WindowTable`] (count's and depth's windows or regions) and [`AlignTally`] (align's
//! MAPQ and insert sizes). A table reduces itself to panels, and the panels are drawn by
//! one of two drawings shared by every picture:
//!
//! * [`genome`]: stacked panels over one genomic x axis (contigs side by side, each from
//!   its first to its last datum, separated by lines and labelled), values as points or
//!   lines;
//! * [`histogram`]: stacked histograms, bars over a numeric x axis.
//!
//! A picture is returned as the text of an SVG document; writing it to a file is the
//! command's business, as for its other outputs. Its bytes depend only on the data, so
//! they are the same at any thread count.
#![forbid(unsafe_code)]

use std::path::Path;

use plotters::prelude::*;

pub mod align;
pub mod genome;
pub mod histogram;
pub mod sites;
pub mod windows;

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

/// Why a picture could not be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// `plotters` failed while drawing the picture of the command `what`.
    #[error("cannot draw the {what} picture: {message}")]
    Draw {
        /// The command whose picture it is (`depth`, `align`, ...).
        what: String,
        /// `plotters`' error, as text.
        message: String,
    },
    /// A snp-pileup row given to a [`SiteTable`] is not `Chromosome,Position,Ref,Alt`
    /// followed by four counts per BAM.
    #[error("snp-pileup row {line:?} is not as the picture expects")]
    SiteRow {
        /// The row, as text.
        line: String,
    },
}

/// The result of making a picture.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The drawing area of a picture's panel.
type Area<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;

/// The colour of series `i`.
fn colour(i: usize) -> RGBColor {
    COLOURS[i % COLOURS.len()]
}

/// A drawing error of `plotters`, as an error of the picture `what`.
fn drawing_error(what: &str, e: impl std::fmt::Display) -> Error {
    Error::Draw {
        what: what.to_string(),
        message: e.to_string(),
    }
}

/// Text of a file for a picture's title: its file name (the whole path when it has none).
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
    mut draw: impl FnMut(&Area<'_>, &P, bool) -> Result<()>,
) -> Result<String> {
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
