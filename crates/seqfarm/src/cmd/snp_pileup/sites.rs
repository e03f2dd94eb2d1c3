//! The worker's first step without pseudo-SNPs: a task's VCF lines to sites.
//!
//! Sites are kept as snp-pileup uses them (biallelic SNVs), their contig found in the
//! BAMs with snp-pileup's `chr` prefix rule; sites that fall behind an earlier site of
//! the task on the same contig are dropped (snp-pileup's loop always skips them). What a
//! task cannot know alone, because it depends on the lines before it, is left to the
//! collector: the line numbers (a task counts its own lines), and whether its first site
//! on a BAM contig comes after a contig of an earlier task ([`ChunkSummary`]). The first
//! error in the task's lines stops the parse and is reported the same way.

use seqfarm_io::vcf::{body_line, MAX_SITE_COLUMNS};
use seqfarm_regions::pileup::visit::Site;

use super::chunk::ContigLookup;
use super::skipped::SkippedSites;

/// The error of a VCF whose contig `chrom`, at 1-based line `line` of `vcf`, comes after
/// contig `furthest` of an earlier line although the BAMs have it first.
pub fn contig_order_error(
    vcf: &std::path::Path,
    line: u64,
    chrom: &[u8],
    furthest: &[u8],
) -> anyhow::Error {
    anyhow::anyhow!(
        "{}: line {line}: contig {} comes after {}, but the BAMs have it first: sort the \
         VCF in the BAMs' contig order",
        vcf.display(),
        String::from_utf8_lossy(chrom),
        String::from_utf8_lossy(furthest),
    )
}

/// A contig as the VCF names it at some line of a task.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ContigAt {
    /// 0-based line within the task.
    pub line: u64,
    /// Reference index in the BAMs.
    pub ref_id: i32,
    /// CHROM as written.
    pub chrom: Vec<u8>,
}

/// Why a task's lines cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LineFailure {
    /// A line is not a VCF record (the message of the error).
    Format {
        /// 0-based line within the task.
        line: u64,
        /// What is wrong.
        message: String,
    },
    /// A site's contig comes before the contig of an earlier site of the task in the
    /// BAMs.
    Order {
        /// The offending line and its contig.
        at: ContigAt,
        /// The furthest contig before it in the task, where it was first seen.
        furthest: ContigAt,
    },
}

/// What the collector needs of a task's lines besides its sites.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChunkSummary {
    /// Lines in the task.
    pub lines: u64,
    /// The first site on a BAM contig.
    pub first: Option<ContigAt>,
    /// The furthest contig at the end of the task, where it was first seen in it.
    pub last: Option<ContigAt>,
    /// The first error in the lines (the lines after it are not parsed).
    pub failure: Option<LineFailure>,
    /// The sites skipped or read as snp-pileup reads them, for warnings.
    pub skipped: SkippedSites,
}

/// Parses `text` (whole lines; the last one cut after [`MAX_SITE_COLUMNS`] bytes when
/// `last_cut`) into `sites`.
pub fn parse(
    text: &[u8],
    last_cut: bool,
    contigs: &ContigLookup,
    sites: &mut Vec<Site>,
) -> ChunkSummary {
    let mut summary = ChunkSummary::default();
    let body = text.strip_suffix(b"\n").unwrap_or(text);
    if text.is_empty() {
        return summary;
    }
    let lines = body.split(|&b| b == b'\n');
    summary.lines = memchr::memchr_iter(b'\n', body).count() as u64 + 1;
    let last_line = summary.lines - 1;
    // The last contig name looked up, and its reference index.
    let mut known: (&[u8], i32) = (&[], -1);
    let mut furthest: Option<(i32, i64)> = None;
    for (i, line) in lines.enumerate() {
        let i = i as u64;
        let kept = (last_cut && i == last_line).then_some(MAX_SITE_COLUMNS);
        let record = match body_line(line, kept) {
            Ok(Some(record)) => record,
            Ok(None) => continue,
            Err(message) => {
                summary.failure = Some(LineFailure::Format { line: i, message });
                break;
            }
        };
        let Some((reference, alternate)) = record.snv_bases() else {
            continue;
        };
        summary.skipped.note_snv(reference);
        if record.chrom != known.0 {
            known = (record.chrom, contigs.ref_id(record.chrom));
        }
        let site = Site {
            ref_id: known.1,
            pos: record.pos - 1,
            reference,
            alternate,
        };
        if site.ref_id < 0 {
            summary.skipped.note_absent(record.chrom);
            sites.push(site);
            continue;
        }
        let here = || ContigAt {
            line: i,
            ref_id: site.ref_id,
            chrom: record.chrom.to_vec(),
        };
        match furthest {
            Some((id, _)) if site.ref_id < id => {
                summary.failure = Some(LineFailure::Order {
                    at: here(),
                    furthest: summary.last.clone().unwrap_or_default(),
                });
                break;
            }
            Some((id, pos)) if site.ref_id == id && site.pos < pos => {
                summary.skipped.behind += 1;
                continue;
            }
            _ => {}
        }
        if summary.first.is_none() {
            summary.first = Some(here());
        }
        if furthest.map(|f| f.0) != Some(site.ref_id) {
            summary.last = Some(here());
        }
        furthest = Some((site.ref_id, site.pos));
        sites.push(site);
    }
    summary
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str, last_cut: bool) -> (Vec<(i32, i64)>, ChunkSummary) {
        let contigs = ContigLookup::from_names(&["chr1", "chr2"]);
        let mut sites = Vec::new();
        let summary = parse(text.as_bytes(), last_cut, &contigs, &mut sites);
        (sites.iter().map(|s| (s.ref_id, s.pos)).collect(), summary)
    }

    fn at(line: u64, ref_id: i32, chrom: &str) -> ContigAt {
        ContigAt {
            line,
            ref_id,
            chrom: chrom.into(),
        }
    }

    #[test]
    fn keeps_snvs_in_order_and_counts_every_line() {
        let text = "un\t5\t.\tA\tC\n1\t10\t.\tA\tC\n\n##x\n1\t12\t.\tAT\tC\n\
                    1\t8\t.\tA\tC\nchr1\t20\t.\tG\tT\r\n2\t3\t.\tG\tT\n";
        let (sites, summary) = parsed(text, false);
        assert_eq!(sites, [(-1, 4), (0, 9), (0, 19), (1, 2)]);
        assert_eq!(summary.lines, 8);
        assert_eq!(summary.first, Some(at(1, 0, "1")));
        assert_eq!(summary.last, Some(at(7, 1, "2")));
        assert_eq!(summary.failure, None);
        assert_eq!(
            (summary.skipped.absent, summary.skipped.behind),
            (1, 1),
            "{summary:?}"
        );
        // Without a final line end the last line counts alike.
        let (_, summary) = parsed(text.trim_end(), false);
        assert_eq!(summary.lines, 8);
        assert_eq!(parsed("", false).1, ChunkSummary::default());
    }

    #[test]
    fn the_first_error_stops_the_parse() {
        let (sites, summary) = parsed("1\t10\t.\tA\tC\n1\tx\t.\tA\tC\n2\t1\t.\tA\tC\n", false);
        assert_eq!(sites, [(0, 9)]);
        assert!(
            matches!(&summary.failure, Some(LineFailure::Format { line: 1, message }) if message.contains("POS")),
            "{summary:?}"
        );
        let (sites, summary) = parsed(
            "chr2\t10\t.\tA\tC\n2\t11\t.\tA\tC\nun\t1\t.\tA\tC\n1\t5\t.\tA\tC\n",
            false,
        );
        assert_eq!(sites, [(1, 9), (1, 10), (-1, 0)]);
        assert_eq!(
            summary.failure,
            Some(LineFailure::Order {
                at: at(3, 0, "1"),
                furthest: at(0, 1, "chr2"),
            })
        );
    }

    #[test]
    fn a_cut_last_line_needs_its_site_columns() {
        let (sites, summary) = parsed("1\t10\t.\tA\tC\t", true);
        assert_eq!((sites.len(), summary.failure), (1, None));
        let (_, summary) = parsed("1\t10\t.\tA\tC\n1\t10\t.\tA", true);
        assert!(
            matches!(&summary.failure, Some(LineFailure::Format { line: 1, message }) if message.contains("longer than")),
            "{summary:?}"
        );
    }
}
