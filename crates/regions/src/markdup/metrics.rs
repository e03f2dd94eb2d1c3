//! Picard's `DuplicationMetrics` per library, the estimated library size, and the
//! metrics file as Picard writes it (htsjdk's `MetricsFile`: `##` headers, one row per
//! library, then the histograms side by side on a shared `BIN` column).

use std::collections::BTreeMap;
use std::fmt::Write;

use seqfarm_core::flags;

/// Picard's class of the metrics rows, named in the file.
pub const METRICS_CLASS: &str = "picard.sam.DuplicationMetrics";
/// The columns of a metrics row.
pub const COLUMNS: [&str; 10] = [
    "LIBRARY",
    "UNPAIRED_READS_EXAMINED",
    "READ_PAIRS_EXAMINED",
    "SECONDARY_OR_SUPPLEMENTARY_RDS",
    "UNMAPPED_READS",
    "UNPAIRED_READ_DUPLICATES",
    "READ_PAIR_DUPLICATES",
    "READ_PAIR_OPTICAL_DUPLICATES",
    "PERCENT_DUPLICATION",
    "ESTIMATED_LIBRARY_SIZE",
];

/// The counts of one library, as records are read (pairs counted once per read).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LibraryCounts {
    /// Mapped primary reads without a mapped mate.
    pub unpaired_reads: u64,
    /// Mapped primary reads with a mapped mate (two per pair).
    pub paired_reads: u64,
    /// Secondary and supplementary records.
    pub secondary_or_supplementary: u64,
    /// Unmapped reads.
    pub unmapped: u64,
    /// Duplicates among the unpaired reads.
    pub unpaired_duplicates: u64,
    /// Duplicates among the paired reads (two per pair).
    pub paired_duplicates: u64,
    /// Optical duplicate pairs.
    pub optical_pairs: u64,
}

impl LibraryCounts {
    /// Counts one record with FLAG `flag`, flagged a duplicate or not.
    pub fn count(&mut self, flag: u16, duplicate: bool) {
        let unpaired = flag & flags::PAIRED == 0 || flag & flags::MATE_UNMAPPED != 0;
        if flag & flags::UNMAPPED != 0 {
            self.unmapped += 1;
        } else if flag & (flags::SECONDARY | flags::SUPPLEMENTARY) != 0 {
            self.secondary_or_supplementary += 1;
        } else if unpaired {
            self.unpaired_reads += 1;
        } else {
            self.paired_reads += 1;
        }
        let decider = flag & (flags::UNMAPPED | flags::SECONDARY | flags::SUPPLEMENTARY) == 0;
        if duplicate && decider {
            if unpaired {
                self.unpaired_duplicates += 1;
            } else {
                self.paired_duplicates += 1;
            }
        }
    }

    /// The row's figures: pairs, duplicate pairs, percent duplication and the estimated
    /// library size.
    pub fn row(&self) -> MetricsRow {
        let pairs = self.paired_reads / 2;
        let pair_duplicates = self.paired_duplicates / 2;
        let examined = self.unpaired_reads + pairs * 2;
        let percent = if self.unpaired_reads + pairs != 0 {
            (self.unpaired_duplicates + pair_duplicates * 2) as f64 / examined as f64
        } else {
            0.0
        };
        MetricsRow {
            pairs,
            pair_duplicates,
            percent,
            library_size: estimate_library_size(
                pairs as i64 - self.optical_pairs as i64,
                pairs as i64 - pair_duplicates as i64,
            ),
        }
    }
}

/// The derived figures of a library's row.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MetricsRow {
    /// `READ_PAIRS_EXAMINED`.
    pub pairs: u64,
    /// `READ_PAIR_DUPLICATES`.
    pub pair_duplicates: u64,
    /// `PERCENT_DUPLICATION` (a fraction).
    pub percent: f64,
    /// `ESTIMATED_LIBRARY_SIZE` (none without duplicates).
    pub library_size: Option<i64>,
}

fn f(x: f64, c: f64, n: f64) -> f64 {
    c / x - 1.0 + (-n / x).exp()
}

/// Picard's estimate of the number of distinct molecules from `read_pairs` pairs of
/// which `unique_pairs` are not duplicates (Lander-Waterman, solved by bisection).
pub fn estimate_library_size(read_pairs: i64, unique_pairs: i64) -> Option<i64> {
    let duplicates = read_pairs - unique_pairs;
    if read_pairs <= 0 || duplicates <= 0 {
        return None;
    }
    let (c, n) = (unique_pairs as f64, read_pairs as f64);
    let mut m = 1.0f64;
    let mut big_m = 100.0f64;
    if unique_pairs >= read_pairs || f(m * c, c, n) < 0.0 {
        return None;
    }
    while f(big_m * c, c, n) > 0.0 {
        big_m *= 10.0;
    }
    for _ in 0..40 {
        let r = (m + big_m) / 2.0;
        let u = f(r * c, c, n);
        if u == 0.0 {
            break;
        } else if u > 0.0 {
            m = r;
        } else if u < 0.0 {
            big_m = r;
        }
    }
    Some((c * (m + big_m) / 2.0) as i64)
}

/// Picard's return on investment curve: unique pairs expected at 1x to 100x the
/// sequencing, relative to those seen.
fn roi_curve(library_size: i64, pairs: u64, unique_pairs: u64) -> Vec<f64> {
    let size = library_size as f64;
    (1..=100)
        .map(|x| size * (1.0 - (-(f64::from(x) * pairs as f64) / size).exp()) / unique_pairs as f64)
        .collect()
}

/// Counts of duplicate sets by size: all sets, the optical ones (by optical duplicates
/// plus one) and the non-optical part.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SetSizes {
    /// `all_sets`.
    pub all: BTreeMap<u64, u64>,
    /// `optical_sets`.
    pub optical: BTreeMap<u64, u64>,
    /// `non_optical_sets`.
    pub non_optical: BTreeMap<u64, u64>,
}

impl SetSizes {
    /// Counts a set of `size` pairs with `optical` optical duplicates.
    pub fn add(&mut self, size: u64, optical: u64) {
        *self.all.entry(size).or_default() += 1;
        if size > optical {
            *self.non_optical.entry(size - optical).or_default() += 1;
        }
        if optical > 0 {
            *self.optical.entry(optical + 1).or_default() += 1;
        }
    }
}

/// A double as htsjdk's `FormatUtil` prints it: at most six decimals, rounded half down,
/// no trailing zeros, no grouping.
pub fn format_double(value: f64) -> String {
    if !value.is_finite() {
        return "?".into();
    }
    let exact = format!("{:.60}", value.abs());
    let (int_part, frac) = exact.split_once('.').unwrap_or((&exact, ""));
    let (kept, rest) = frac.split_at(6.min(frac.len()));
    let round_up = match rest.as_bytes().first() {
        Some(&d) if d > b'5' => true,
        Some(b'5') => rest.bytes().skip(1).any(|d| d != b'0'),
        _ => false,
    };
    let mut digits: Vec<u8> = int_part.bytes().chain(kept.bytes()).collect();
    if round_up {
        let mut i = digits.len();
        loop {
            if i == 0 {
                digits.insert(0, b'1');
                break;
            }
            i -= 1;
            if digits[i] == b'9' {
                digits[i] = b'0';
            } else {
                digits[i] += 1;
                break;
            }
        }
    }
    let split = digits.len() - kept.len();
    let (int_digits, frac_digits) = digits.split_at(split);
    let frac_text = String::from_utf8_lossy(frac_digits);
    let frac_text = frac_text.trim_end_matches('0');
    let mut out = String::new();
    let is_zero = int_digits.iter().all(|&d| d == b'0') && frac_text.is_empty();
    if value < 0.0 && !is_zero {
        out.push('-');
    }
    out.push_str(&String::from_utf8_lossy(int_digits));
    if !frac_text.is_empty() {
        out.push('.');
        out.push_str(frac_text);
    }
    out
}

/// The metrics file's text: `header_lines` (each written as a `##`/`#` header pair), a
/// row per library (in name order), and the histograms: the return-on-investment curve
/// when there is one library with an estimate, and the duplicate set sizes.
pub fn render(
    header_lines: &[String],
    libraries: &BTreeMap<String, LibraryCounts>,
    sets: &SetSizes,
) -> String {
    let mut out = String::new();
    for line in header_lines {
        out.push_str("## htsjdk.samtools.metrics.StringHeader\n# ");
        out.push_str(line);
        out.push('\n');
    }
    out.push('\n');
    if !libraries.is_empty() {
        let _ = writeln!(out, "## METRICS CLASS\t{METRICS_CLASS}");
        out.push_str(&COLUMNS.join("\t"));
        out.push('\n');
        for (name, counts) in libraries {
            let row = counts.row();
            let _ = writeln!(
                out,
                "{name}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
                counts.unpaired_reads,
                row.pairs,
                counts.secondary_or_supplementary,
                counts.unmapped,
                counts.unpaired_duplicates,
                row.pair_duplicates,
                counts.optical_pairs,
                format_double(row.percent),
                row.library_size.map(|s| s.to_string()).unwrap_or_default(),
            );
        }
    }
    out.push('\n');
    let mut columns: Vec<(&str, BTreeMap<u64, f64>)> = Vec::new();
    if libraries.len() == 1 {
        let counts = libraries.values().next().expect("one library");
        let row = counts.row();
        if let Some(size) = row.library_size {
            let curve = roi_curve(size, row.pairs, row.pairs - row.pair_duplicates);
            let bins = curve
                .into_iter()
                .enumerate()
                .map(|(i, v)| (i as u64 + 1, v));
            columns.push(("CoverageMult", bins.collect()));
        }
    }
    let as_f64 = |m: &BTreeMap<u64, u64>| m.iter().map(|(&k, &v)| (k, v as f64)).collect();
    for (label, sizes) in [
        ("all_sets", &sets.all),
        ("optical_sets", &sets.optical),
        ("non_optical_sets", &sets.non_optical),
    ] {
        if !sizes.is_empty() {
            columns.push((label, as_f64(sizes)));
        }
    }
    if let Some((first, _)) = columns.first() {
        let bin_label = if *first == "CoverageMult" {
            "BIN"
        } else {
            "set_size"
        };
        let _ = writeln!(out, "## HISTOGRAM\tjava.lang.Double");
        out.push_str(bin_label);
        for (label, _) in &columns {
            out.push('\t');
            out.push_str(label);
        }
        out.push('\n');
        let bins: std::collections::BTreeSet<u64> = columns
            .iter()
            .flat_map(|(_, c)| c.keys().copied())
            .collect();
        for bin in bins {
            let _ = write!(out, "{bin}.0");
            for (_, column) in &columns {
                out.push('\t');
                out.push_str(&format_double(column.get(&bin).copied().unwrap_or(0.0)));
            }
            out.push('\n');
        }
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_print_as_htsjdk_prints_them() {
        assert_eq!(format_double(0.0), "0");
        assert_eq!(format_double(17058.0), "17058");
        assert_eq!(format_double(0.9999994), "0.999999");
        assert_eq!(format_double(0.9999996), "1");
        assert_eq!(format_double(1.825029_4), "1.825029");
        // An exact tie rounds down.
        assert_eq!(format_double(3.0 / 128.0), "0.023437");
        assert_eq!(format_double(0.5), "0.5");
    }

    #[test]
    fn library_size_matches_picard() {
        // Picard 2.27.5 on the CHM1 test BAM: 21177 pairs, 1912 duplicates -> 110105.
        assert_eq!(estimate_library_size(21177, 21177 - 1912), Some(110105));
        assert_eq!(estimate_library_size(100, 100), None);
        assert_eq!(estimate_library_size(0, 0), None);
    }

    #[test]
    fn percent_duplication_counts_pairs_twice() {
        let counts = LibraryCounts {
            unpaired_reads: 68,
            paired_reads: 42354,
            unpaired_duplicates: 28,
            paired_duplicates: 3824,
            ..LibraryCounts::default()
        };
        let row = counts.row();
        assert_eq!(format_double(row.percent), "0.090802");
        assert_eq!(row.library_size, Some(110105));
    }

    #[test]
    fn set_sizes_split_optical_duplicates() {
        let mut sets = SetSizes::default();
        sets.add(1, 0);
        sets.add(3, 1);
        sets.add(2, 1);
        assert_eq!(sets.all, BTreeMap::from([(1, 1), (2, 1), (3, 1)]));
        assert_eq!(sets.optical, BTreeMap::from([(2, 2)]));
        assert_eq!(sets.non_optical, BTreeMap::from([(1, 2), (2, 1)]));
    }
}
