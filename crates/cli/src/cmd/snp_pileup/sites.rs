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
            Some((id, pos)) if site.ref_id == id && site.pos < pos => continue,
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
