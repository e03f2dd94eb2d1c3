//! `flagstat`: counts of records by FLAG category, as `samtools flagstat` reports them.
//!
//! Every count is a pair: QC-passed reads (index 0) and QC-failed reads (index 1, FLAG
//! 0x200). The rules follow samtools 1.13–1.16 (`bam_stat.c`): secondary and
//! supplementary records are counted apart, and the pairing counts (paired, read1/2,
//! properly paired, singletons, mates on other chromosomes) only look at primary
//! records. Percentages are computed in single precision and printed with two decimals,
//! exactly as samtools prints them.

use std::fmt::Write as _;
use std::io::{self, Write};
use std::ops::AddAssign;

use crate::flags::{
    DUPLICATE, MATE_UNMAPPED, PAIRED, PROPER_PAIR, QC_FAIL, READ1, READ2, SECONDARY, SUPPLEMENTARY,
    UNMAPPED,
};

/// Totals of one `flagstat` pass, each split into `[QC-passed, QC-failed]`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FlagCounts {
    /// Every record.
    pub total: [u64; 2],
    /// Neither secondary nor supplementary.
    pub primary: [u64; 2],
    /// FLAG 0x100.
    pub secondary: [u64; 2],
    /// FLAG 0x800 (and not 0x100).
    pub supplementary: [u64; 2],
    /// FLAG 0x400, any record.
    pub duplicates: [u64; 2],
    /// FLAG 0x400, primary records.
    pub primary_duplicates: [u64; 2],
    /// Not 0x4, any record.
    pub mapped: [u64; 2],
    /// Not 0x4, primary records.
    pub primary_mapped: [u64; 2],
    /// Primary records with 0x1.
    pub paired: [u64; 2],
    /// Paired primary records with 0x40.
    pub read1: [u64; 2],
    /// Paired primary records with 0x80.
    pub read2: [u64; 2],
    /// Paired primary records with 0x2 and not 0x4.
    pub properly_paired: [u64; 2],
    /// Paired primary records with neither 0x4 nor 0x8.
    pub both_mapped: [u64; 2],
    /// Paired primary records with 0x8 but not 0x4.
    pub singletons: [u64; 2],
    /// Of `both_mapped`: mate on another reference.
    pub mate_other_chr: [u64; 2],
    /// Of `mate_other_chr`: mapping quality at least 5.
    pub mate_other_chr_mapq5: [u64; 2],
}

impl FlagCounts {
    /// Counts one record from the fields flagstat reads: FLAG, reference index, mate's
    /// reference index and mapping quality.
    #[inline(always)]
    pub fn count(&mut self, flag: u16, ref_id: i32, next_ref_id: i32, mapq: u8) {
        let w = usize::from(flag & QC_FAIL != 0);
        let mapped = u64::from(flag & UNMAPPED == 0);
        let dup = u64::from(flag & DUPLICATE != 0);
        self.total[w] += 1;
        self.mapped[w] += mapped;
        self.duplicates[w] += dup;
        if flag & SECONDARY != 0 {
            self.secondary[w] += 1;
        } else if flag & SUPPLEMENTARY != 0 {
            self.supplementary[w] += 1;
        } else {
            self.primary[w] += 1;
            self.primary_mapped[w] += mapped;
            self.primary_duplicates[w] += dup;
            if flag & PAIRED != 0 {
                self.count_pair(w, flag, ref_id, next_ref_id, mapq);
            }
        }
    }

    #[inline(always)]
    fn count_pair(&mut self, w: usize, flag: u16, ref_id: i32, next_ref_id: i32, mapq: u8) {
        let unmapped = flag & UNMAPPED != 0;
        let mate_unmapped = flag & MATE_UNMAPPED != 0;
        self.paired[w] += 1;
        self.properly_paired[w] += u64::from(flag & PROPER_PAIR != 0 && !unmapped);
        self.read1[w] += u64::from(flag & READ1 != 0);
        self.read2[w] += u64::from(flag & READ2 != 0);
        self.singletons[w] += u64::from(mate_unmapped && !unmapped);
        if !unmapped && !mate_unmapped {
            self.both_mapped[w] += 1;
            if next_ref_id != ref_id {
                self.mate_other_chr[w] += 1;
                self.mate_other_chr_mapq5[w] += u64::from(mapq >= 5);
            }
        }
    }

    /// Writes the counts in `format`, byte for byte as samtools flagstat does.
    pub fn write(&self, format: FlagstatFormat, out: &mut impl Write) -> io::Result<()> {
        out.write_all(self.render(format).as_bytes())
    }

    /// The report in `format`, as a string.
    pub fn render(&self, format: FlagstatFormat) -> String {
        match format {
            FlagstatFormat::Default => self.render_default(),
            FlagstatFormat::Json => self.render_json(),
            FlagstatFormat::Tsv => self.render_tsv(),
        }
    }

    /// The report's rows: label, counts, and the denominator of its percentage (if any).
    fn rows(&self) -> [Row; 16] {
        [
            Row::new(
                "in total (QC-passed reads + QC-failed reads)",
                "total",
                self.total,
            ),
            Row::new("primary", "primary", self.primary),
            Row::new("secondary", "secondary", self.secondary),
            Row::new("supplementary", "supplementary", self.supplementary),
            Row::new("duplicates", "duplicates", self.duplicates),
            Row::new(
                "primary duplicates",
                "primary duplicates",
                self.primary_duplicates,
            ),
            Row::new("mapped", "mapped", self.mapped).of(self.total),
            Row::new("primary mapped", "primary mapped", self.primary_mapped).of(self.primary),
            Row::new("paired in sequencing", "paired in sequencing", self.paired),
            Row::new("read1", "read1", self.read1),
            Row::new("read2", "read2", self.read2),
            Row::new("properly paired", "properly paired", self.properly_paired).of(self.paired),
            Row::new(
                "with itself and mate mapped",
                "with itself and mate mapped",
                self.both_mapped,
            ),
            Row::new("singletons", "singletons", self.singletons).of(self.paired),
            Row::new(
                "with mate mapped to a different chr",
                "with mate mapped to a different chr",
                self.mate_other_chr,
            ),
            Row::new(
                "with mate mapped to a different chr (mapQ>=5)",
                "with mate mapped to a different chr (mapQ >= 5)",
                self.mate_other_chr_mapq5,
            ),
        ]
    }

    fn render_default(&self) -> String {
        let mut s = String::with_capacity(1024);
        for row in self.rows() {
            let [pass, fail] = row.counts;
            match row.of {
                Some([tp, tf]) => {
                    let _ = writeln!(
                        s,
                        "{pass} + {fail} {} ({} : {})",
                        row.text,
                        percent(pass, tp, "%", "N/A"),
                        percent(fail, tf, "%", "N/A")
                    );
                }
                None => {
                    let _ = writeln!(s, "{pass} + {fail} {}", row.text);
                }
            }
        }
        s
    }

    fn render_tsv(&self) -> String {
        let mut s = String::with_capacity(1024);
        for row in self.rows() {
            let [pass, fail] = row.counts;
            let label = row.text.strip_prefix("in ").unwrap_or(row.text);
            let _ = writeln!(s, "{pass}\t{fail}\t{label}");
            if let Some([tp, tf]) = row.of {
                let _ = writeln!(
                    s,
                    "{}\t{}\t{} %",
                    percent(pass, tp, "%", "N/A"),
                    percent(fail, tf, "%", "N/A"),
                    row.text
                );
            }
        }
        s
    }

    fn render_json(&self) -> String {
        let mut s = String::with_capacity(2048);
        s.push_str("{\n");
        for (w, section) in ["QC-passed reads", "QC-failed reads"].iter().enumerate() {
            let _ = writeln!(s, " \"{section}\": {{ ");
            let rows = self.rows();
            for (i, row) in rows.iter().enumerate() {
                let last = i + 1 == rows.len();
                let sep = if last { " " } else { ", " };
                let _ = writeln!(s, "  \"{}\": {}{sep}", row.json, row.counts[w]);
                if let Some(of) = row.of {
                    let pct = percent(row.counts[w], of[w], "", "null");
                    let _ = writeln!(s, "  \"{} %\": {pct}, ", row.json);
                }
            }
            s.push_str(if w == 0 { " },\n" } else { " }\n" });
        }
        s.push_str("}\n");
        s
    }
}

/// One line of the report.
struct Row {
    text: &'static str,
    json: &'static str,
    counts: [u64; 2],
    of: Option<[u64; 2]>,
}

impl Row {
    fn new(text: &'static str, json: &'static str, counts: [u64; 2]) -> Self {
        Self {
            text,
            json,
            counts,
            of: None,
        }
    }

    fn of(mut self, total: [u64; 2]) -> Self {
        self.of = Some(total);
        self
    }
}

/// `n / total` as samtools prints it: the quotient in single precision, times 100 in
/// double precision, two decimals (`printf("%.2f")`, which rounds the exact binary value
/// half to even, as Rust's formatting does), then `suffix`; `none` when `total` is 0.
fn percent(n: u64, total: u64, suffix: &str, none: &str) -> String {
    if total == 0 {
        return none.to_string();
    }
    let ratio = (n as f32 / total as f32) as f64 * 100.0;
    format!("{ratio:.2}{suffix}")
}

impl AddAssign for FlagCounts {
    fn add_assign(&mut self, other: Self) {
        let add = |a: &mut [u64; 2], b: [u64; 2]| {
            a[0] += b[0];
            a[1] += b[1];
        };
        add(&mut self.total, other.total);
        add(&mut self.primary, other.primary);
        add(&mut self.secondary, other.secondary);
        add(&mut self.supplementary, other.supplementary);
        add(&mut self.duplicates, other.duplicates);
        add(&mut self.primary_duplicates, other.primary_duplicates);
        add(&mut self.mapped, other.mapped);
        add(&mut self.primary_mapped, other.primary_mapped);
        add(&mut self.paired, other.paired);
        add(&mut self.read1, other.read1);
        add(&mut self.read2, other.read2);
        add(&mut self.properly_paired, other.properly_paired);
        add(&mut self.both_mapped, other.both_mapped);
        add(&mut self.singletons, other.singletons);
        add(&mut self.mate_other_chr, other.mate_other_chr);
        add(&mut self.mate_other_chr_mapq5, other.mate_other_chr_mapq5);
    }
}

/// The three report formats of `samtools flagstat -O`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FlagstatFormat {
    /// `N + M label` lines.
    #[default]
    Default,
    /// A JSON object with a QC-passed and a QC-failed section.
    Json,
    /// `N<TAB>M<TAB>label` lines.
    Tsv,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> FlagCounts {
        let mut c = FlagCounts::default();
        // A proper pair, a singleton, a mate on chr 2 with mapq 3 and 60, unmapped
        // pair, secondary, supplementary, duplicate, QC-fail.
        for (flag, r, m, q) in [
            (0x63, 0, 0, 60),
            (0x93, 0, 0, 60),
            (0x49, 0, 0, 60),
            (0x41, 0, 1, 3),
            (0x81, 0, 1, 60),
            (0x4d, -1, -1, 0),
            (0x8d, -1, -1, 0),
            (0x100, 0, -1, 0),
            (0x800, 0, -1, 60),
            (0x400, 0, -1, 60),
            (0x204, -1, -1, 0),
        ] {
            c.count(flag, r, m, q);
        }
        c
    }

    #[test]
    fn counts_follow_samtools_rules() {
        let c = sample();
        assert_eq!(c.total, [10, 1]);
        assert_eq!(c.primary, [8, 1]);
        assert_eq!((c.secondary, c.supplementary), ([1, 0], [1, 0]));
        assert_eq!((c.duplicates, c.primary_duplicates), ([1, 0], [1, 0]));
        assert_eq!((c.mapped, c.primary_mapped), ([8, 0], [6, 0]));
        assert_eq!(c.paired, [7, 0]);
        assert_eq!((c.read1, c.read2), ([4, 0], [3, 0]));
        assert_eq!(c.properly_paired, [2, 0]);
        assert_eq!(c.singletons, [1, 0]);
        assert_eq!(c.both_mapped, [4, 0]);
        assert_eq!((c.mate_other_chr, c.mate_other_chr_mapq5), ([2, 0], [1, 0]));
    }

    #[test]
    fn merging_equals_counting_together() {
        let mut a = sample();
        a += sample();
        let mut b = FlagCounts::default();
        for _ in 0..2 {
            for (flag, r, m, q) in [(0x63, 0, 0, 60), (0x93, 0, 0, 60)] {
                b.count(flag, r, m, q);
            }
        }
        assert_eq!(a.total, [20, 2]);
        assert_eq!(b.properly_paired, [4, 0]);
    }

    #[test]
    fn percentages_round_like_printf() {
        assert_eq!(percent(1, 3, "%", "N/A"), "33.33%");
        assert_eq!(percent(2, 3, "%", "N/A"), "66.67%");
        // 1/32 = 3.125 exactly: printf rounds half to even.
        assert_eq!(percent(1, 32, "", "null"), "3.12");
        assert_eq!(percent(0, 0, "%", "N/A"), "N/A");
        assert_eq!(percent(5, 5, "", "null"), "100.00");
    }

    #[test]
    fn formats_have_samtools_layout() {
        let c = sample();
        let text = c.render(FlagstatFormat::Default);
        assert!(text.starts_with("10 + 1 in total (QC-passed reads + QC-failed reads)\n"));
        assert!(text.contains("8 + 0 mapped (80.00% : 0.00%)\n"));
        assert!(text.ends_with("1 + 0 with mate mapped to a different chr (mapQ>=5)\n"));
        assert_eq!(text.lines().count(), 16);
        let tsv = c.render(FlagstatFormat::Tsv);
        assert!(tsv.starts_with("10\t1\ttotal (QC-passed reads + QC-failed reads)\n"));
        assert!(tsv.contains("80.00%\t0.00%\tmapped %\n"));
        assert_eq!(tsv.lines().count(), 20);
        let json = c.render(FlagstatFormat::Json);
        assert!(json.starts_with("{\n \"QC-passed reads\": { \n  \"total\": 10, \n"));
        assert!(json.contains("  \"mapped %\": 80.00, \n"));
        assert!(json.contains("  \"properly paired %\": null, \n"));
        assert!(
            json.ends_with("  \"with mate mapped to a different chr (mapQ >= 5)\": 0 \n }\n}\n")
        );
    }
}
