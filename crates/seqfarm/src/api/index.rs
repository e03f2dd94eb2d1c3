//! An FM-index built as `seqfarm index` builds it ([`build_index`]), and loaded once and
//! queried many times, as `seqfarm locate` queries it.

use std::path::{Path, PathBuf};

use seqfarm_core::Strand;
use seqfarm_fmindex::{index_path, FmIndex, LoadOptions, LocateScratch};

pub use crate::cmd::index::{build_index, parse_size, IndexOptions};
use crate::cmd::locate::{encode_pattern, find, place};

/// An index file loaded (memory-mapped) for queries.
pub struct LoadedIndex {
    prefix: PathBuf,
    index: FmIndex,
}

/// A contig of the index: name and length.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContigInfo {
    /// The FASTA name.
    pub name: String,
    /// Length in bases.
    pub len: u64,
}

/// An occurrence, as `seqfarm locate` lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamedHit {
    /// The contig's name.
    pub contig: String,
    /// 1-based leftmost position on the contig.
    pub position: u64,
    /// The strand the pattern occurs on.
    pub strand: Strand,
}

impl LoadedIndex {
    /// Loads `PREFIX.sfi` as `seqfarm locate -x PREFIX` does.
    pub fn open(prefix: &Path) -> anyhow::Result<Self> {
        let index = FmIndex::open(index_path(prefix), LoadOptions::default())?;
        Ok(Self {
            prefix: prefix.to_path_buf(),
            index,
        })
    }

    /// The prefix it was loaded from.
    pub fn prefix(&self) -> &Path {
        &self.prefix
    }

    /// The loaded index (shared by aligners built on it).
    pub fn index(&self) -> &FmIndex {
        &self.index
    }

    /// The contigs, in FASTA order.
    pub fn contigs(&self) -> Vec<ContigInfo> {
        self.index
            .contigs()
            .iter()
            .map(|c| ContigInfo {
                name: c.name.clone(),
                len: c.len,
            })
            .collect()
    }

    /// The occurrence count of each pattern, both strands, as `locate --max-hits 0`
    /// prints it. Every pattern is checked before any is counted.
    pub fn count(&self, patterns: &[String]) -> anyhow::Result<Vec<u64>> {
        let encoded = patterns
            .iter()
            .map(|p| encode_pattern(p))
            .collect::<anyhow::Result<Vec<_>>>()?;
        let (mut scratch, mut hits) = (LocateScratch::default(), Vec::new());
        Ok(encoded
            .iter()
            .map(|codes| find(&self.index, codes, 0, &mut scratch, &mut hits))
            .collect())
    }

    /// The occurrence count of `pattern` and its first `max_hits` hits in genome order,
    /// what `locate --max-hits` prints.
    pub fn locate(&self, pattern: &str, max_hits: usize) -> anyhow::Result<(u64, Vec<NamedHit>)> {
        let codes = encode_pattern(pattern)?;
        let (mut scratch, mut hits) = (LocateScratch::default(), Vec::new());
        let count = find(&self.index, &codes, max_hits, &mut scratch, &mut hits);
        let places = hits
            .iter()
            .take(max_hits)
            .map(|hit| {
                let at = place(&self.index, hit)?;
                let name = self.index.contigs()[at.contig].name.clone();
                Ok(NamedHit {
                    contig: name,
                    position: at.position,
                    strand: at.strand,
                })
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        Ok((count, places))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_hits_are_those_locate_prints() {
        let dir = tempfile::tempdir().unwrap();
        let fasta = dir.path().join("ref.fa");
        std::fs::write(
            &fasta,
            ">one\nACGTTGCAAGGATTACAGG\n>two\nTTTGATTACANNCCTGTAATC\n",
        )
        .unwrap();
        let prefix = dir.path().join("ref");
        let options = IndexOptions {
            threads: Some(1),
            ..IndexOptions::default()
        };
        build_index(&fasta, Some(&prefix), &options).unwrap();
        let index = LoadedIndex::open(&prefix).unwrap();
        assert_eq!(
            index.contigs()[1],
            ContigInfo {
                name: "two".into(),
                len: 21
            }
        );
        assert_eq!(
            index.count(&["GATTACA".into(), "ACGN".into()]).unwrap(),
            [3, 0]
        );
        let (count, hits) = index.locate("GATTACA", 2).unwrap();
        assert_eq!(count, 3);
        let places: Vec<_> = hits
            .iter()
            .map(|h| (h.contig.as_str(), h.position))
            .collect();
        assert_eq!(places, [("one", 11), ("two", 4)]);
        assert!(index.count(&["GAXT".into()]).is_err());
    }
}
