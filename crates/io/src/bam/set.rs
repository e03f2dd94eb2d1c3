//! Several indexed BAMs read side by side (tumor and normal, a cohort): each one mapped
//! with its index, all checked to share one reference list so a reference index means the
//! same contig in every file.

use std::path::{Path, PathBuf};

use super::{BamFile, BamIndex, Header};
use crate::cram::ContainerSizes;
use crate::{Error, Result};

/// Indexed BAMs with identical reference lists.
#[derive(Debug, Default)]
pub struct BamSet {
    files: Vec<(BamFile, BamIndex)>,
    /// Per file, for a BAM decoded from a CRAM, the CRAM's containers' sizes, which
    /// stand for its data in plans ([`BamSet::bytes_between`], [`BamSet::total_bytes`]).
    cram_sizes: Vec<Option<ContainerSizes>>,
}

impl BamSet {
    /// Opens every BAM and its index (`X.bam.bai`, `X.bai` or `X.bam.csi`). Fails on a
    /// missing index and on BAMs whose reference names or lengths differ from the first.
    /// (The `alignment_file` door opens CRAMs beside BAMs.)
    pub fn open(paths: &[PathBuf]) -> Result<Self> {
        let mut set = Self::default();
        for path in paths {
            let (bam, index) = open_with_index(path)?;
            set.push(bam, index)?;
        }
        Ok(set)
    }

    /// Adds `bam` and its index; fails when its reference names or lengths differ from
    /// those of the first BAM.
    pub fn push(&mut self, bam: BamFile, index: BamIndex) -> Result<()> {
        self.push_sized(bam, index, None)
    }

    /// Adds `bam`, decoded from a CRAM whose containers have `sizes` (all of them,
    /// decoded or not), and its index, as [`BamSet::push`] adds a BAM.
    pub fn push_decoded(
        &mut self,
        bam: BamFile,
        index: BamIndex,
        sizes: ContainerSizes,
    ) -> Result<()> {
        self.push_sized(bam, index, Some(sizes))
    }

    fn push_sized(
        &mut self,
        bam: BamFile,
        index: BamIndex,
        sizes: Option<ContainerSizes>,
    ) -> Result<()> {
        if let Some((first, _)) = self.files.first() {
            check_same_references(first, &bam)?;
        }
        self.files.push((bam, index));
        self.cram_sizes.push(sizes);
        Ok(())
    }

    /// Number of BAMs.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Whether the set has no BAM.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// The BAMs and their indexes, in the order given.
    pub fn files(&self) -> &[(BamFile, BamIndex)] {
        &self.files
    }

    /// The shared header of the first BAM (its references are every BAM's).
    pub fn header(&self) -> Option<&Header> {
        self.files.first().map(|(bam, _)| bam.header())
    }

    /// Sum over the BAMs of the compressed bytes between the first records that can
    /// overlap 0-based positions `from` and `to` of reference `ref_id` (an estimate of the
    /// data a range holds, from the indexes alone; for a CRAM, from its containers').
    pub fn bytes_between(&self, ref_id: usize, from: i64, to: i64) -> u64 {
        self.files
            .iter()
            .zip(&self.cram_sizes)
            .map(|((_, index), sizes)| match sizes {
                Some(sizes) => sizes.bytes_between(ref_id, from, to),
                None => {
                    let at = |pos: i64| {
                        index
                            .min_offset(ref_id, pos.max(0) as u64 + 1)
                            .map_or(0, |v| v.compressed())
                    };
                    at(to).saturating_sub(at(from))
                }
            })
            .sum()
    }

    /// The inputs' bytes: each BAM's, or the CRAM's it was decoded from.
    pub fn total_bytes(&self) -> u64 {
        self.files
            .iter()
            .zip(&self.cram_sizes)
            .map(|((bam, _), sizes)| sizes.as_ref().map_or(bam.len(), ContainerSizes::total))
            .sum()
    }
}

/// Maps the BAM at `path` and opens its index, which must exist
/// ([`BamIndex::find`]) and be current.
pub fn open_with_index(path: &Path) -> Result<(BamFile, BamIndex)> {
    let bam = BamFile::open(path)?;
    let index_path = BamIndex::find(path).ok_or_else(|| {
        Error::format(
            path,
            0,
            "no index found (.bai or .csi beside it): index it with `samtools index`",
        )
    })?;
    let index = BamIndex::open(index_path, &bam)?;
    Ok((bam, index))
}

fn check_same_references(first: &BamFile, other: &BamFile) -> Result<()> {
    let (a, b) = (&first.header().references, &other.header().references);
    let differ = |what: String| {
        Err(Error::format(
            other.path(),
            0,
            format!("{what}: the inputs must be aligned to the same reference"),
        ))
    };
    let name = display(first.path());
    if a.len() != b.len() {
        return differ(format!(
            "{} reference sequences where {name} has {}",
            b.len(),
            a.len()
        ));
    }
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        if x != y {
            return differ(format!(
                "reference {} is {} ({} bp) where {name} has {} ({} bp)",
                i + 1,
                y.name,
                y.length,
                x.name,
                x.length
            ));
        }
    }
    Ok(())
}

fn display(path: &Path) -> String {
    path.display().to_string()
}
