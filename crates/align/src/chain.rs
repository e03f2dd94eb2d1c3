//! Anchors grouped into candidate regions: same strand, same contig, diagonals close
//! enough that one banded alignment covers them all.

use crate::seed::Anchor;

/// Diagonals further apart than this start a new region.
const MAX_DIAGONAL_GAP: i64 = 24;
/// A region never spans more diagonals than this.
const MAX_DIAGONAL_SPAN: i64 = 96;

/// A candidate region: anchors on nearby diagonals of one strand.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Region {
    /// Whether the read aligns reverse-complemented.
    pub reverse: bool,
    /// Smallest and largest anchor diagonal.
    pub diagonal_min: i64,
    /// See [`Region::diagonal_min`].
    pub diagonal_max: i64,
    /// Diagonal of the longest anchor: the band's centre.
    pub main_diagonal: i64,
    /// A reference position inside the region (the longest anchor's start): which
    /// contig it is on.
    pub anchor_ref: u64,
    /// Read bases covered by the region's anchors.
    pub weight: u32,
    /// Whether one of its anchors is one of bowtie2's seeds.
    pub bowtie2: bool,
    /// Its anchors' distinct diagonals, ascending, when there are two or more (empty
    /// otherwise): where an alignment at another offset may lie (a tandem repeat).
    pub diagonals: Vec<i64>,
}

/// Groups `anchors` (reordered) of a `read_len`-base read into regions, heaviest
/// first (ties by strand and diagonal, so the order is deterministic). `covered` is
/// scratch space, reused across reads.
pub fn regions(
    anchors: &mut [Anchor],
    read_len: usize,
    covered: &mut Vec<bool>,
    out: &mut Vec<Region>,
) {
    out.clear();
    anchors.sort_by_key(|a| (a.reverse, a.diagonal(), a.query_start));
    covered.resize(read_len, false);
    let mut start = 0;
    while start < anchors.len() {
        let first = anchors[start];
        let mut end = start + 1;
        while end < anchors.len()
            && anchors[end].reverse == first.reverse
            && anchors[end].diagonal() - anchors[end - 1].diagonal() <= MAX_DIAGONAL_GAP
            && anchors[end].diagonal() - first.diagonal() <= MAX_DIAGONAL_SPAN
        {
            end += 1;
        }
        let group = &anchors[start..end];
        covered.fill(false);
        for a in group {
            let s = a.query_start as usize;
            let e = (s + a.len as usize).min(read_len);
            covered[s.min(e)..e].fill(true);
        }
        let longest = group
            .iter()
            .max_by_key(|a| (a.len, std::cmp::Reverse(a.diagonal())))
            .copied()
            .unwrap_or(first);
        out.push(Region {
            reverse: first.reverse,
            diagonal_min: first.diagonal(),
            diagonal_max: group.last().map_or(first.diagonal(), Anchor::diagonal),
            main_diagonal: longest.diagonal(),
            anchor_ref: longest.ref_start,
            weight: covered.iter().filter(|&&c| c).count() as u32,
            bowtie2: group.iter().any(|a| a.bowtie2),
            diagonals: {
                let mut diagonals: Vec<i64> = group.iter().map(Anchor::diagonal).collect();
                diagonals.dedup();
                if diagonals.len() < 2 {
                    diagonals.clear();
                }
                diagonals
            },
        });
        start = end;
    }
    out.sort_by_key(|r| (std::cmp::Reverse(r.weight), r.reverse, r.main_diagonal));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn anchor(reverse: bool, query_start: u32, len: u32, ref_start: u64) -> Anchor {
        Anchor {
            reverse,
            query_start,
            len,
            ref_start,
            bowtie2: false,
        }
    }

    #[test]
    fn anchors_group_by_strand_and_diagonal() {
        let mut anchors = vec![
            anchor(false, 0, 40, 1000),
            anchor(false, 60, 30, 1063), // 3-base deletion: same region
            anchor(true, 0, 50, 1000),
            anchor(false, 10, 25, 5010),
        ];
        let mut out = Vec::new();
        regions(&mut anchors, 100, &mut Vec::new(), &mut out);
        assert_eq!(out.len(), 3);
        assert_eq!((out[0].reverse, out[0].weight), (false, 70));
        assert_eq!(
            (
                out[0].diagonal_min,
                out[0].diagonal_max,
                out[0].main_diagonal
            ),
            (1000, 1003, 1000)
        );
        assert_eq!((out[1].reverse, out[1].weight), (true, 50));
        assert_eq!(out[2].main_diagonal, 5000);
    }
}
