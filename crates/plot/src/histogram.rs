//! Histograms of integer values (MAPQ, insert size), stacked one per panel.
//!
//! Counts are kept per value ([`bins`] takes them indexed by value) and grouped into
//! bins of a round width (1, 2 or 5 times a power of ten) so that a panel has at most a
//! given number of bars; the x axis runs from the first to the last value counted.

use plotters::prelude::*;

use crate::{colour, drawing_error, stacked_svg, Area, FONT};

/// One bar: the values `from..to` and how many were counted there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bar {
    /// The first value of the bin.
    pub from: u64,
    /// One past the last value of the bin.
    pub to: u64,
    /// The count.
    pub count: u64,
}

/// One histogram panel.
#[derive(Debug, Clone)]
pub struct HistogramPanel {
    /// The x axis' title (the value counted).
    pub x_title: String,
    /// The y axis' title (what was counted).
    pub y_title: String,
    /// The bars, by value.
    pub bars: Vec<Bar>,
}

/// The bars of `counts` (count by value, from 0): bins of the smallest round width that
/// gives at most `most` bins between the first and the last value counted, aligned on
/// multiples of the width (bins without counts left out); empty without counts.
pub fn bins(counts: &[u64], most: usize) -> Vec<Bar> {
    let Some(first) = counts.iter().position(|&c| c > 0) else {
        return Vec::new();
    };
    let last = counts.iter().rposition(|&c| c > 0).unwrap_or(first);
    let width = round_width(first as u64, last as u64, most.max(1));
    let mut bars: Vec<Bar> = Vec::new();
    for (value, &count) in counts.iter().enumerate().take(last + 1).skip(first) {
        if count == 0 {
            continue;
        }
        let from = value as u64 / width * width;
        match bars.last_mut() {
            Some(bar) if bar.from == from => bar.count += count,
            _ => bars.push(Bar {
                from,
                to: from + width,
                count,
            }),
        }
    }
    bars
}

/// The smallest width in 1, 2, 5, 10, 20, 50, ... whose aligned bins over
/// `first..=last` number at most `most`.
fn round_width(first: u64, last: u64, most: usize) -> u64 {
    let mut power = 1u64;
    loop {
        for step in [1, 2, 5] {
            let width = step * power;
            if (last / width - first / width + 1) as usize <= most {
                return width;
            }
        }
        power = power.saturating_mul(10);
    }
}

/// Draws `panels` under `title`; returns the SVG document.
pub fn draw(what: &str, title: &str, panels: &[HistogramPanel]) -> crate::Result<String> {
    stacked_svg(what, title, panels, |area, panel, _| {
        draw_panel(area, panel).map_err(|e| drawing_error(what, e))
    })
}

fn draw_panel(
    area: &Area<'_>,
    panel: &HistogramPanel,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let x_lo = panel.bars.first().map_or(0, |b| b.from) as f64 - 0.5;
    let x_hi = panel.bars.last().map_or(1, |b| b.to) as f64 - 0.5;
    let y_hi = panel.bars.iter().map(|b| b.count).max().unwrap_or(1).max(1) as f64 * 1.05;
    let mut chart = ChartBuilder::on(area)
        .margin_top(8)
        .margin_right(20)
        .margin_left(12)
        .x_label_area_size(50)
        .y_label_area_size(80)
        .build_cartesian_2d(x_lo..x_hi, 0.0..y_hi)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .light_line_style(WHITE.mix(0.0))
        .bold_line_style(BLACK.mix(0.08))
        .x_desc(panel.x_title.as_str())
        .y_desc(panel.y_title.as_str())
        .axis_desc_style((FONT, 16))
        .label_style((FONT, 13))
        .x_labels(12)
        .y_labels(6)
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| format!("{y:.0}"))
        .draw()?;
    let style = colour(0).filled();
    chart.draw_series(panel.bars.iter().map(|b| {
        Rectangle::new(
            [
                (b.from as f64 - 0.5, 0.0),
                (b.to as f64 - 0.5, b.count as f64),
            ],
            style,
        )
    }))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bar(from: u64, to: u64, count: u64) -> Bar {
        Bar { from, to, count }
    }

    #[test]
    fn small_ranges_get_a_bar_per_value() {
        let mut counts = vec![0u64; 43];
        counts[0] = 5;
        counts[1] = 1;
        counts[42] = 7;
        let bars = bins(&counts, 100);
        assert_eq!(bars.len(), 3);
        assert_eq!(bars[0], bar(0, 1, 5));
        assert_eq!(bars[2], bar(42, 43, 7));
        assert!(bins(&[0, 0], 10).is_empty());
    }

    #[test]
    fn wide_ranges_get_round_bins_aligned_on_their_width() {
        let mut counts = vec![0u64; 700];
        counts[203] = 1;
        counts[204] = 2;
        counts[650] = 3;
        // 203..=650 needs widths of 5: bins 200..205, ..., 650..655 (91 of them).
        assert_eq!(round_width(203, 650, 100), 5);
        let bars = bins(&counts, 100);
        assert_eq!(bars, [bar(200, 205, 3), bar(650, 655, 3)]);
        assert_eq!(round_width(0, 9, 1), 10);
        assert_eq!(round_width(0, 99_999, 10), 10_000);
    }
}
