//! count's and depth's pictures: a value per window (or BED region) along the genome.
//!
//! * depth: the mean depth of each window (one panel);
//! * count: the reads of each window, one series per BAM; with exactly two BAMs a second
//!   panel gives log2((reads in BAM 2 / BAM 2's total) / (reads in BAM 1 / BAM 1's total))
//!   per window (windows without reads in either BAM left out), the totals over every
//!   window counted.
//!
//! Windows are drawn as a line per contig; when there are more than [`MAX_WINDOWS`]
//! of them, runs of consecutive windows of a contig are merged first (their
//! length-weighted mean). BED regions are drawn as points at their starts.

use std::path::PathBuf;

use crate::file_label;
use crate::genome::{self, Datum, GenomeAxis, GenomePanel, Series};

/// Windows drawn per series, about, at most.
pub const MAX_WINDOWS: usize = 4000;

/// What a table's values are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WindowValues {
    /// Mean depth of the BAM.
    Depth,
    /// Reads counted in each of these BAMs.
    Reads(Vec<PathBuf>),
}

/// One window or region and its values.
#[derive(Debug, Clone, PartialEq)]
struct Row {
    contig: u32,
    start: i64,
    end: i64,
}

/// The values of a count or depth run by window or region, kept for the picture.
#[derive(Debug)]
pub struct WindowTable {
    names: Vec<String>,
    kind: WindowValues,
    /// Consecutive windows (`--window`) rather than BED regions.
    windows: bool,
    rows: Vec<Row>,
    /// Per row, one value per series.
    values: Vec<f64>,
}

impl WindowTable {
    /// A table of `kind` over contigs `names` (the BAM header's), of windows or of BED
    /// regions.
    pub fn new(names: Vec<String>, kind: WindowValues, windows: bool) -> Self {
        Self {
            names,
            kind,
            windows,
            rows: Vec::new(),
            values: Vec::new(),
        }
    }

    /// Series per row.
    fn width(&self) -> usize {
        match &self.kind {
            WindowValues::Depth => 1,
            WindowValues::Reads(bams) => bams.len(),
        }
    }

    /// Adds a window or region of contig `contig` (a header index; negative: a contig not
    /// in the BAMs, left out) and its values, one per series.
    pub fn add(
        &mut self,
        contig: i64,
        start: i64,
        end: i64,
        values: impl IntoIterator<Item = f64>,
    ) {
        if contig < 0 || contig as usize >= self.names.len() {
            return;
        }
        self.rows.push(Row {
            contig: contig as u32,
            start,
            end,
        });
        let at = self.values.len();
        self.values.extend(values.into_iter().take(self.width()));
        self.values.resize(at + self.width(), 0.0);
    }

    /// The rows (merged when windows are many) and their values, in contig and
    /// position order.
    fn merged(&self) -> (Vec<Row>, Vec<f64>) {
        let width = self.width();
        let mut order: Vec<usize> = (0..self.rows.len()).collect();
        order.sort_by_key(|&i| (self.rows[i].contig, self.rows[i].start));
        let group = if self.windows {
            self.rows.len().div_ceil(MAX_WINDOWS).max(1)
        } else {
            1
        };
        let mut rows: Vec<Row> = Vec::new();
        let mut values: Vec<f64> = Vec::new();
        let mut weights = 0.0;
        let mut in_group = 0;
        for i in order {
            let row = &self.rows[i];
            let own = &self.values[i * width..(i + 1) * width];
            let weight = (row.end - row.start).max(1) as f64;
            let joins = in_group > 0
                && in_group < group
                && rows.last().is_some_and(|r| r.contig == row.contig);
            if joins {
                let at = values.len() - width;
                for (v, &o) in values[at..].iter_mut().zip(own) {
                    *v = (*v * weights + o * weight) / (weights + weight);
                }
                weights += weight;
                in_group += 1;
                if let Some(last) = rows.last_mut() {
                    last.end = last.end.max(row.end);
                }
            } else {
                rows.push(row.clone());
                values.extend_from_slice(own);
                weights = weight;
                in_group = 1;
            }
        }
        (rows, values)
    }

    /// Per series, the value at each row's start ([`Self::merged`] rows); with two BAMs
    /// the log2 ratio of the second to the first as a last series.
    fn series_data(&self) -> Vec<Vec<Datum>> {
        let width = self.width();
        let (rows, values) = self.merged();
        let mut data: Vec<Vec<Datum>> = (0..width)
            .map(|k| {
                rows.iter()
                    .enumerate()
                    .map(|(i, r)| (r.contig, r.start, values[i * width + k]))
                    .collect()
            })
            .collect();
        if width == 2 && matches!(self.kind, WindowValues::Reads(_)) {
            let total = |k: usize| -> f64 { self.values.iter().skip(k).step_by(2).sum() };
            let (first, second) = (total(0), total(1));
            let ratios = rows
                .iter()
                .enumerate()
                .map(|(i, r)| {
                    let (a, b) = (values[i * 2], values[i * 2 + 1]);
                    let ratio = if a > 0.0 && b > 0.0 {
                        ((b / second) / (a / first)).log2()
                    } else {
                        f64::NAN
                    };
                    (r.contig, r.start, ratio)
                })
                .collect();
            data.push(ratios);
        }
        data
    }

    /// The picture of the table, titled after the command's input `bam` (depth) and the
    /// window size or BED file `by`, as SVG.
    pub fn draw(&self, bam: Option<&std::path::Path>, by: &str) -> crate::Result<String> {
        let axis = GenomeAxis::new(
            &self.names,
            self.rows.iter().map(|r| (r.contig, r.start, r.end)),
        );
        let mut data = self.series_data();
        let unit = if self.windows { "window" } else { "region" };
        let series = |name: String, data: Vec<Datum>| Series {
            name,
            data,
            lines: self.windows,
        };
        let (what, title, panels) = match &self.kind {
            WindowValues::Depth => {
                let name = bam.map(file_label).unwrap_or_default();
                let panel = GenomePanel {
                    y_title: "mean depth".to_string(),
                    y_range: None,
                    from_zero: true,
                    reference: None,
                    series: vec![series(name.clone(), data.remove(0))],
                };
                (
                    "depth",
                    format!("depth: mean depth per {by} of {name}"),
                    vec![panel],
                )
            }
            WindowValues::Reads(bams) => {
                let names: Vec<String> = bams.iter().map(|b| file_label(b)).collect();
                let ratio = (names.len() == 2).then(|| data.pop()).flatten();
                let reads = GenomePanel {
                    y_title: format!("reads per {unit}"),
                    y_range: None,
                    from_zero: true,
                    reference: None,
                    series: names
                        .iter()
                        .cloned()
                        .zip(data)
                        .map(|(n, d)| series(n, d))
                        .collect(),
                };
                let mut panels = vec![reads];
                if let Some(ratio) = ratio {
                    panels.push(GenomePanel {
                        y_title: format!("log2 {} / {}", names[1], names[0]),
                        y_range: None,
                        from_zero: false,
                        reference: Some(0.0),
                        series: vec![series("log2 ratio".to_string(), ratio)],
                    });
                }
                (
                    "count",
                    format!("count: reads per {by} in {}", names.join(", ")),
                    panels,
                )
            }
        };
        genome::draw(what, &title, &axis, &panels)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names() -> Vec<String> {
        vec!["a".into(), "b".into()]
    }

    #[test]
    fn few_windows_are_kept_as_they_are() {
        let mut table = WindowTable::new(names(), WindowValues::Depth, true);
        table.add(1, 0, 10, [2.0]);
        table.add(0, 10, 20, [3.0]);
        table.add(0, 0, 10, [1.0]);
        table.add(-1, 0, 10, [9.0]);
        let (rows, values) = table.merged();
        assert_eq!(
            rows.iter().map(|r| (r.contig, r.start)).collect::<Vec<_>>(),
            [(0, 0), (0, 10), (1, 0)]
        );
        assert_eq!(values, [1.0, 3.0, 2.0]);
    }

    #[test]
    fn many_windows_merge_within_their_contig_by_length() {
        let mut table = WindowTable::new(names(), WindowValues::Depth, true);
        let n = MAX_WINDOWS as i64 * 2;
        for i in 0..n {
            table.add(0, i * 10, i * 10 + 10, [i as f64]);
        }
        table.add(0, n * 10, n * 10 + 5, [100.0]);
        table.add(1, 0, 10, [7.0]);
        let (rows, values) = table.merged();
        // 8002 rows, groups of 3: (0, 1, 2) -> 1, ..., the last group of contig a holds
        // 7998, 7999 and the shorter window; contig b's window stays alone.
        assert_eq!(values[0], 1.0);
        assert_eq!(rows[0].end, 30);
        let last_a = rows.len() - 2;
        assert_eq!(rows[last_a].end, n * 10 + 5);
        assert!(
            (values[last_a] - (7998.0 * 10.0 + 7999.0 * 10.0 + 100.0 * 5.0) / 25.0).abs() < 1e-9
        );
        assert_eq!(*values.last().unwrap(), 7.0);
        assert!(rows.len() <= MAX_WINDOWS + 2);
    }

    #[test]
    fn two_bams_give_a_normalised_log_ratio() {
        let bams = vec![PathBuf::from("n.bam"), PathBuf::from("t.bam")];
        let mut table = WindowTable::new(names(), WindowValues::Reads(bams), true);
        table.add(0, 0, 10, [10.0, 40.0]);
        table.add(0, 10, 20, [30.0, 40.0]);
        table.add(0, 20, 30, [0.0, 20.0]);
        let data = table.series_data();
        assert_eq!(data.len(), 3);
        assert_eq!(data[1][2], (0, 20, 20.0));
        // Totals 40 and 100: (40/100) / (10/40) = 1.6; no ratio without reads in both.
        assert!((data[2][0].2 - 1.6f64.log2()).abs() < 1e-12);
        assert!(data[2][2].2.is_nan());
    }
}
