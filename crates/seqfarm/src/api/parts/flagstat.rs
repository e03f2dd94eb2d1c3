//! `seqfarm flagstat` in parts: the groups of the command's work plan over an indexed
//! BAM (virtual-offset ranges, and the runs of blocks one reader walks in order, such
//! as the unmapped tail), or a CRAM's containers, counted anywhere; the counts of all
//! groups add up to the command's.

use std::path::Path;

use seqfarm_farm::{FarmConfig, FarmStats};
use seqfarm_regions::{FlagCounts, FlagstatFormat};

use seqfarm_io::alignment_file::starts_cram;
use seqfarm_io::cram::{CramFile, Fields};

use crate::cmd::flagstat::{
    count_bam_groups, count_cram_containers, open_bam, plan_groups, range_unit,
};
use crate::common::worker_threads;

/// The range size and the number of groups of the plan for `path` spread over `parts`
/// parts (workers times a few); for a CRAM, 0 and its containers (found from its
/// `.crai` or its container headers, none decoded).
pub fn flagstat_plan(path: &Path, parts: usize) -> anyhow::Result<(u64, usize)> {
    if starts_cram(path) {
        return Ok((0, CramFile::open(path)?.containers().len()));
    }
    let (bam, index) = open_bam(path)?;
    let unit = range_unit(bam.len(), parts);
    Ok((unit, plan_groups(&bam, index.as_ref(), unit)?))
}

/// The counts of groups `first..last` of the plan of `path` with ranges of `unit`
/// bytes, on `threads` threads (`None`: one per core).
pub fn flagstat_groups(
    path: &Path,
    unit: u64,
    groups: std::ops::Range<usize>,
    threads: Option<usize>,
) -> anyhow::Result<FlagCounts> {
    if starts_cram(path) {
        let (cram, reference) = CramFile::open_with_reference(path, None, Fields::FlagStatistics)?;
        return count_cram_containers(&cram, &reference, groups, worker_threads(threads));
    }
    let (bam, index) = open_bam(path)?;
    let config = FarmConfig::new(worker_threads(threads));
    let mut stats = FarmStats::default();
    count_bam_groups(
        &bam,
        index.as_ref(),
        path,
        unit,
        &config,
        &mut stats,
        groups,
    )
}

/// The counts as a flat list, added up element by element across parts.
pub fn flag_counts_to_vec(c: &FlagCounts) -> Vec<u64> {
    fields(c).iter().flat_map(|f| f.iter().copied()).collect()
}

/// [`flag_counts_to_vec`] undone.
pub fn flag_counts_from_vec(v: &[u64]) -> anyhow::Result<FlagCounts> {
    let mut c = FlagCounts::default();
    let n = fields(&c).len() * 2;
    anyhow::ensure!(
        v.len() == n,
        "flag counts: {n} numbers expected, not {}",
        v.len()
    );
    for (i, field) in fields_mut(&mut c).into_iter().enumerate() {
        *field = [v[2 * i], v[2 * i + 1]];
    }
    Ok(c)
}

/// The report of counts in `format` (as `seqfarm flagstat -O format` prints it).
pub fn flagstat_render(counts: &[u64], format: FlagstatFormat) -> anyhow::Result<String> {
    Ok(flag_counts_from_vec(counts)?.render(format))
}

macro_rules! flag_fields {
    ($name:ident, $($ref:tt)*) => {
        fn $name(c: $($ref)* FlagCounts) -> Vec<$($ref)* [u64; 2]> {
            vec![
                $($ref)* c.total, $($ref)* c.primary, $($ref)* c.secondary,
                $($ref)* c.supplementary, $($ref)* c.duplicates,
                $($ref)* c.primary_duplicates, $($ref)* c.mapped, $($ref)* c.primary_mapped,
                $($ref)* c.paired, $($ref)* c.read1, $($ref)* c.read2,
                $($ref)* c.properly_paired, $($ref)* c.both_mapped, $($ref)* c.singletons,
                $($ref)* c.mate_other_chr, $($ref)* c.mate_other_chr_mapq5,
            ]
        }
    };
}
flag_fields!(fields, &);
flag_fields!(fields_mut, &mut);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_round_trip() {
        let v: Vec<u64> = (1..=32).collect();
        assert_eq!(flag_counts_to_vec(&flag_counts_from_vec(&v).unwrap()), v);
    }
}
