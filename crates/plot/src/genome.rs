//! Panels over the genome: values at positions of contigs, stacked panels sharing one x
//! axis.
//!
//! The axis ([`GenomeAxis`]) lays the contigs that hold data side by side in the order
//! given, each from its first to its last datum, a small gap between them. With one
//! contig the x axis is its position in Mbp (kbp when it spans less than 1 Mbp); with several, the contigs are named under
//! the axis (those wide enough for their name) and separated by grey lines.
//!
//! Values are clamped into the panel's y range (by default the 0.5th to 99.5th
//! percentile of the values, padded: a few outliers do not flatten the rest). Points are
//! drawn small and semi-transparent; points that fall on the same pixel are drawn once,
//! and a series with more than [`MAX_POINTS`] distinct pixels is thinned to every k-th
//! of them, so that the SVG stays small whatever the data.

use plotters::prelude::*;

use crate::{colour, drawing_error, stacked_svg, Area, FONT};

/// Distinct points drawn per series, at most.
pub const MAX_POINTS: usize = 15_000;
/// Gap between contigs, as a fraction of the contigs' total span (less with over 20
/// contigs: the gaps take a tenth of it at most).
const CONTIG_GAP: f64 = 0.005;

/// A value at a position: contig (index in the axis' names), 0-based position, value.
pub type Datum = (u32, i64, f64);

/// A contig's place on the axis.
#[derive(Debug, Clone, PartialEq)]
struct AxisContig {
    name: String,
    from: i64,
    to: i64,
    /// Where `from` lies on the axis, in Mbp.
    offset: f64,
}

/// The genomic x axis: the contigs holding data, side by side.
#[derive(Debug, Clone, PartialEq)]
pub struct GenomeAxis {
    /// By contig index: its place, when it holds data.
    contigs: Vec<Option<AxisContig>>,
    start: f64,
    end: f64,
    /// The gap between contigs, in Mbp.
    gap: f64,
}

impl GenomeAxis {
    /// The axis of contigs `names` (in this order) spanning `spans` (contig index, start,
    /// end): each contig present from its smallest start to its largest end.
    pub fn new(names: &[String], spans: impl IntoIterator<Item = (u32, i64, i64)>) -> Self {
        let mut extent: Vec<Option<(i64, i64)>> = vec![None; names.len()];
        for (contig, start, end) in spans {
            if let Some(e) = extent.get_mut(contig as usize) {
                let (lo, hi) = e.get_or_insert((start, end));
                *lo = (*lo).min(start);
                *hi = (*hi).max(end);
            }
        }
        let present = extent.iter().flatten().count();
        let total: f64 = extent.iter().flatten().map(|(lo, hi)| mbp(hi - lo)).sum();
        // The gaps take at most a tenth of the axis, however many contigs there are.
        let gap = if present > 1 {
            total * CONTIG_GAP.min(0.1 / present as f64)
        } else {
            0.0
        };
        let mut at = 0.0;
        let mut contigs = Vec::with_capacity(names.len());
        for (name, e) in names.iter().zip(&extent) {
            contigs.push(e.map(|(from, to)| {
                let offset = if present == 1 { mbp(from) } else { at };
                at += mbp(to - from) + gap;
                AxisContig {
                    name: name.clone(),
                    from,
                    to,
                    offset,
                }
            }));
        }
        let mut placed = contigs.iter().flatten();
        let start = placed.next().map_or(0.0, |c| c.offset);
        let end = contigs
            .iter()
            .flatten()
            .last()
            .map_or(1.0, |c| c.offset + mbp(c.to - c.from));
        let end = if end > start { end } else { start + 1e-6 };
        Self {
            contigs,
            start,
            end,
            gap,
        }
    }

    /// Where `pos` of `contig` lies on the axis (Mbp), if the contig is on it.
    pub fn x(&self, contig: u32, pos: i64) -> Option<f64> {
        let c = self.contigs.get(contig as usize)?.as_ref()?;
        Some(c.offset + mbp(pos - c.from))
    }

    /// The contigs on the axis.
    fn placed(&self) -> impl Iterator<Item = &AxisContig> {
        self.contigs.iter().flatten()
    }

    /// Whether one contig only is on the axis (its positions are the tick labels).
    fn single(&self) -> bool {
        self.placed().count() == 1
    }

    /// The x axis' title.
    pub fn title(&self) -> String {
        match self.placed().next() {
            Some(c) if self.single() => format!("position on {} ({})", c.name, self.unit().0),
            _ => "contig".to_string(),
        }
    }

    /// The unit of the tick labels and how many of them make an Mbp: kbp when the axis
    /// spans less than 1 Mbp, Mbp otherwise.
    fn unit(&self) -> (&'static str, f64) {
        if self.end - self.start < 1.0 {
            ("kbp", 1e3)
        } else {
            ("Mbp", 1.0)
        }
    }
}

/// Bases as Mbp.
fn mbp(bases: i64) -> f64 {
    bases as f64 / 1e6
}

/// One series of a panel.
#[derive(Debug, Clone)]
pub struct Series {
    /// Its name in the legend (shown when the panel has two series or more).
    pub name: String,
    /// Its values, in axis order within each contig when drawn as lines (a NaN value
    /// breaks the line).
    pub data: Vec<Datum>,
    /// Drawn as a line per contig (windows) rather than as points (sites, regions).
    pub lines: bool,
}

/// One panel: a y axis and the series drawn against it.
#[derive(Debug, Clone)]
pub struct GenomePanel {
    /// The y axis' title.
    pub y_title: String,
    /// The y range; `None`: from the values ([`value_range`]).
    pub y_range: Option<(f64, f64)>,
    /// Whether the y range from the values includes 0.
    pub from_zero: bool,
    /// A horizontal reference line (0 for a log ratio).
    pub reference: Option<f64>,
    /// The series.
    pub series: Vec<Series>,
}

/// The y range for `values` (from 0 when `from_zero`), padded by 5% each side: their
/// smallest to largest, unless that is over three times the span of their 0.5th to
/// 99.5th percentile, which is then taken, widened by a quarter each side (a few outliers
/// do not flatten the rest); `(v - 1, v + 1)` around a single value `v`, `(0, 1)` without
/// values.
pub fn value_range(values: impl IntoIterator<Item = f64>, from_zero: bool) -> (f64, f64) {
    let mut sorted: Vec<f64> = values.into_iter().filter(|v| v.is_finite()).collect();
    if sorted.is_empty() {
        return (0.0, 1.0);
    }
    sorted.sort_by(f64::total_cmp);
    let at = |q: f64| sorted[((sorted.len() - 1) as f64 * q).round() as usize];
    let (mut lo, mut hi) = (at(0.0), at(1.0));
    let (q_lo, q_hi) = (at(0.005), at(0.995));
    if q_hi > q_lo && hi - lo > 3.0 * (q_hi - q_lo) {
        let widen = (q_hi - q_lo) * 0.25;
        (lo, hi) = ((q_lo - widen).max(lo), (q_hi + widen).min(hi));
    }
    if from_zero {
        lo = lo.min(0.0);
        hi = hi.max(0.0);
    }
    if hi - lo < 1e-9 {
        return (lo - 1.0, hi + 1.0);
    }
    let pad = (hi - lo) * 0.05;
    (if from_zero && lo >= 0.0 { lo } else { lo - pad }, hi + pad)
}

/// Every `k`-th item of `items` (from the first), `k` the smallest step that keeps at most
/// `most` of them.
pub fn thin<T: Copy>(items: &[T], most: usize) -> Vec<T> {
    if items.len() <= most || most == 0 {
        return items.to_vec();
    }
    let step = items.len().div_ceil(most);
    items.iter().step_by(step).copied().collect()
}

/// Draws `panels` over `axis` under `title`; returns the SVG document.
pub fn draw(
    what: &str,
    title: &str,
    axis: &GenomeAxis,
    panels: &[GenomePanel],
) -> crate::Result<String> {
    stacked_svg(what, title, panels, |area, panel, last| {
        draw_panel(area, axis, panel, last).map_err(|e| drawing_error(what, e))
    })
}

type DrawResult = Result<(), Box<dyn std::error::Error + Send + Sync>>;

/// Decimals of tick labels `step` apart.
fn decimals(step: f64) -> usize {
    match step {
        s if s >= 1.0 => 0,
        s if s >= 0.1 => 1,
        s if s >= 0.01 => 2,
        _ => 3,
    }
}

/// `value` with `places` decimals, without the sign of a negative zero.
pub fn tick_label(value: f64, places: usize) -> String {
    let text = format!("{value:.places$}");
    match text.strip_prefix('-') {
        Some(rest) if rest.bytes().all(|b| b == b'0' || b == b'.') => rest.to_string(),
        _ => text,
    }
}

fn draw_panel(area: &Area<'_>, axis: &GenomeAxis, panel: &GenomePanel, last: bool) -> DrawResult {
    let (y_lo, y_hi) = panel.y_range.unwrap_or_else(|| {
        let (lo, hi) = value_range(
            panel.series.iter().flat_map(|s| s.data.iter().map(|d| d.2)),
            panel.from_zero,
        );
        // Room above the values for the legend.
        let legend = if panel.series.len() > 1 { 0.25 } else { 0.0 };
        (lo, hi + (hi - lo) * legend)
    });
    let single = axis.single();
    let mut chart = ChartBuilder::on(area)
        .margin_top(8)
        .margin_right(20)
        .margin_left(12)
        .x_label_area_size(if last { 50 } else { 30 })
        .y_label_area_size(80)
        .build_cartesian_2d(axis.start..axis.end, y_lo..y_hi)?;
    let per_mbp = axis.unit().1;
    let x_places = decimals((axis.end - axis.start) * per_mbp / 10.0);
    let y_places = decimals((y_hi - y_lo) / 6.0);
    let x_label = |x: &f64| tick_label(*x * per_mbp, x_places);
    let y_label = |y: &f64| tick_label(*y, y_places);
    let mut mesh = chart.configure_mesh();
    mesh.disable_x_mesh()
        .light_line_style(WHITE.mix(0.0))
        .bold_line_style(BLACK.mix(0.08))
        .y_desc(panel.y_title.as_str())
        .axis_desc_style((FONT, 16))
        .label_style((FONT, 13))
        .y_labels(6)
        .x_labels(if single { 10 } else { 0 })
        .x_label_formatter(&x_label)
        .y_label_formatter(&y_label);
    let x_title = axis.title();
    if last {
        mesh.x_desc(x_title.as_str());
    }
    mesh.draw()?;
    let clamp = |v: f64| v.clamp(y_lo, y_hi);
    if !single {
        // A line before each contig, but not closer than 3 pixels to the previous one.
        let mut last_line: Option<i32> = None;
        for c in axis.placed().skip(1) {
            let x = c.offset - axis.gap / 2.0;
            let pixel = chart.backend_coord(&(x, y_lo)).0;
            if last_line.is_none_or(|l| pixel - l >= 3) {
                chart.draw_series(LineSeries::new([(x, y_lo), (x, y_hi)], BLACK.mix(0.3)))?;
                last_line = Some(pixel);
            }
        }
        label_contigs(area, &chart, axis, y_lo)?;
    }
    if let Some(y) = panel.reference.filter(|y| (y_lo..=y_hi).contains(y)) {
        chart.draw_series(LineSeries::new(
            [(axis.start, y), (axis.end, y)],
            BLACK.mix(0.5),
        ))?;
    }
    let plotting = chart.plotting_area();
    let base = plotting.get_base_pixel();
    let pixels = plotting.strip_coord_spec();
    for (i, series) in panel.series.iter().enumerate() {
        let colour = colour(i);
        let to_pixel = |&(contig, pos, value): &Datum| {
            axis.x(contig, pos).map(|x| {
                let (px, py) = chart.backend_coord(&(x, clamp(value)));
                (contig, px - base.0, py - base.1)
            })
        };
        if series.lines {
            let mut line: Vec<(i32, i32)> = Vec::new();
            let mut contig = None;
            for datum in &series.data {
                let point = if datum.2.is_nan() {
                    None
                } else {
                    to_pixel(datum)
                };
                let breaks = point.is_none_or(|(c, _, _)| contig != Some(c));
                if breaks && !line.is_empty() {
                    pixels.draw(&PathElement::new(std::mem::take(&mut line), colour))?;
                }
                let Some((c, x, y)) = point else {
                    contig = None;
                    continue;
                };
                contig = Some(c);
                if line.last() != Some(&(x, y)) {
                    line.push((x, y));
                }
            }
            if !line.is_empty() {
                pixels.draw(&PathElement::new(line, colour))?;
            }
        } else {
            let mut points: Vec<(i32, i32)> = series
                .data
                .iter()
                .filter(|d| !d.2.is_nan())
                .filter_map(to_pixel)
                .map(|(_, x, y)| (x, y))
                .collect();
            points.sort_unstable();
            points.dedup();
            let style = colour.mix(0.5).filled();
            for (x, y) in thin(&points, MAX_POINTS) {
                pixels.draw(&Circle::new((x, y), 2, style))?;
            }
        }
    }
    if panel.series.len() > 1 {
        for (i, series) in panel.series.iter().enumerate() {
            let colour = colour(i);
            chart
                .draw_series(std::iter::empty::<Circle<(f64, f64), i32>>())?
                .label(series.name.as_str())
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 5), (x + 12, y + 5)], colour.filled())
                });
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK.mix(0.4))
            .label_font((FONT, 13))
            .draw()?;
    }
    Ok(())
}

/// Names the contigs under the x axis of `chart` (those wider than their name).
fn label_contigs(
    area: &Area<'_>,
    chart: &ChartContext<
        '_,
        SVGBackend<'_>,
        Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
    >,
    axis: &GenomeAxis,
    y_lo: f64,
) -> DrawResult {
    let base = area.get_base_pixel();
    let style = TextStyle::from((FONT, 13).into_font()).color(&BLACK).pos(
        plotters::style::text_anchor::Pos::new(
            plotters::style::text_anchor::HPos::Center,
            plotters::style::text_anchor::VPos::Top,
        ),
    );
    for c in axis.placed() {
        let (left, bottom) = chart.backend_coord(&(c.offset, y_lo));
        let (right, _) = chart.backend_coord(&(c.offset + mbp(c.to - c.from), y_lo));
        let width = right - left;
        if width < 7 * c.name.len() as i32 + 4 {
            continue;
        }
        area.draw(&Text::new(
            c.name.clone(),
            ((left + right) / 2 - base.0, bottom - base.1 + 6),
            style.clone(),
        ))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(n: usize) -> Vec<String> {
        (1..=n).map(|i| format!("chr{i}")).collect()
    }

    #[test]
    fn one_contig_keeps_its_positions() {
        let axis = GenomeAxis::new(
            &names(3),
            [(1, 1_000_000, 1_100_000), (1, 1_500_000, 1_600_000)],
        );
        assert_eq!(axis.x(1, 1_250_000), Some(1.25));
        assert_eq!(axis.x(0, 5), None);
        assert_eq!((axis.start, axis.end), (1.0, 1.6));
        assert_eq!(axis.title(), "position on chr2 (kbp)");
        let long = GenomeAxis::new(&names(1), [(0, 0, 2_000_000)]);
        assert_eq!(long.title(), "position on chr1 (Mbp)");
    }

    #[test]
    fn contigs_lie_side_by_side_in_the_given_order() {
        let axis = GenomeAxis::new(&names(3), [(2, 0, 2_000_000), (0, 500_000, 1_500_000)]);
        let gap = 3.0 * CONTIG_GAP;
        assert_eq!(axis.gap, gap);
        assert_eq!(axis.x(0, 500_000), Some(0.0));
        assert_eq!(axis.x(0, 1_500_000), Some(1.0));
        assert_eq!(axis.x(2, 0), Some(1.0 + gap));
        assert!((axis.end - (3.0 + gap)).abs() < 1e-12);
        assert_eq!(axis.title(), "contig");
        let many: Vec<(u32, i64, i64)> = (0..100).map(|i| (i, 0, 1_000_000)).collect();
        let axis = GenomeAxis::new(&names(100), many);
        assert!(
            (axis.gap * 99.0 / 100.0 - 0.1 * 0.99).abs() < 1e-12,
            "{}",
            axis.gap
        );
    }

    #[test]
    fn ranges_leave_out_outliers_and_pad() {
        let mut values: Vec<f64> = (0..1000).map(|i| f64::from(i % 10)).collect();
        values.push(1e9);
        values.push(f64::NAN);
        // 0..=9 widened by 2.25 (not below the smallest, 0), padded by 5%.
        let (lo, hi) = value_range(values.iter().copied(), false);
        assert!(
            (lo - -0.5625).abs() < 1e-9 && (hi - 11.8125).abs() < 1e-9,
            "{lo} {hi}"
        );
        assert_eq!(value_range(values.iter().map(|v| v + 5.0), true).0, 0.0);
        // Mostly zeros: the largest value is kept.
        let sparse = (0..1000).map(|i| if i == 7 { 40.0 } else { 0.0 });
        assert_eq!(value_range(sparse, true), (0.0, 42.0));
        assert_eq!(value_range([3.0, 3.0], false), (2.0, 4.0));
        assert_eq!(value_range([], true), (0.0, 1.0));
    }

    #[test]
    fn tick_labels_have_no_negative_zero() {
        assert_eq!(tick_label(-0.001, 1), "0.0");
        assert_eq!(tick_label(-0.05, 2), "-0.05");
        assert_eq!(tick_label(3000.0, decimals(500.0)), "3000");
        assert_eq!(decimals(0.025), 2);
    }

    #[test]
    fn thinning_keeps_every_kth() {
        let items: Vec<u32> = (0..10).collect();
        assert_eq!(thin(&items, 20), items);
        assert_eq!(thin(&items, 5), [0, 2, 4, 6, 8]);
        assert_eq!(thin(&items, 4), [0, 3, 6, 9]);
        assert_eq!(thin(&items, 1), [0]);
    }
}
