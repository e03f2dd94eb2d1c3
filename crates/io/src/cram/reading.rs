//! What a command asks of its alignment inputs: [`ReadOptions`] (reference, fields,
//! workers) and the [`WantedRanges`] that decide which CRAM containers are decoded at all.

use std::path::Path;

use super::{ContainerSpan, CramFile, Fields};

/// How a command reads its alignment inputs (a CRAM into a BAM:
/// [`CramInput::open`](super::CramInput::open)).
#[derive(Debug, Clone, Copy)]
pub struct ReadOptions<'a> {
    /// The FASTA a CRAM's sequences are decoded against (else its `@SQ UR:` file or the
    /// reference it embeds; none when `fields` needs none).
    pub reference: Option<&'a Path>,
    /// The fields of each record the command needs (a CRAM decodes only those).
    pub fields: Fields,
    /// Workers decoding a CRAM (0: one per core).
    pub threads: usize,
    /// Where the command looks, when it is not the whole genome (a CRAM's containers
    /// elsewhere are not decoded).
    pub ranges: Option<&'a WantedRanges>,
}

impl Default for ReadOptions<'_> {
    /// Every field, no reference given, one CRAM worker per core, the whole genome.
    fn default() -> Self {
        Self {
            reference: None,
            fields: Fields::All,
            threads: 0,
            ranges: None,
        }
    }
}

impl ReadOptions<'_> {
    /// Whether container `span` of `cram` may hold a record the command reads: a
    /// command that reads by genomic region never reads unplaced records, reads a
    /// single-reference container only when it overlaps a wanted range, and none when
    /// no range is wanted (it plans from the containers' sizes alone).
    pub(super) fn wants(&self, cram: &CramFile, span: &ContainerSpan) -> bool {
        match (span.ref_id, self.ranges) {
            (-1, _) => false,
            (_, None) => true,
            (_, Some(ranges)) if ranges.is_empty() => false,
            (id, Some(ranges)) => match usize::try_from(id) {
                Ok(id) => cram
                    .header()
                    .reference_sequences()
                    .get_index(id)
                    .is_none_or(|(name, _)| ranges.overlaps(name.as_ref(), span.span)),
                Err(_) => true,
            },
        }
    }
}

/// Genomic ranges a command reads (0-based, half-open, by reference name), merged, for
/// leaving out the CRAM containers that lie elsewhere.
#[derive(Debug, Clone, Default)]
pub struct WantedRanges {
    by_reference: std::collections::HashMap<Vec<u8>, Vec<(u64, u64)>>,
}

impl WantedRanges {
    /// The ranges given as (reference name, start, end).
    pub fn new<N: AsRef<[u8]>>(ranges: impl IntoIterator<Item = (N, u64, u64)>) -> Self {
        let mut by_reference: std::collections::HashMap<Vec<u8>, Vec<(u64, u64)>> =
            std::collections::HashMap::new();
        for (name, start, end) in ranges {
            by_reference
                .entry(name.as_ref().to_vec())
                .or_default()
                .push((start, end));
        }
        for list in by_reference.values_mut() {
            list.sort_unstable();
            let mut merged: Vec<(u64, u64)> = Vec::with_capacity(list.len());
            for &(start, end) in list.iter() {
                match merged.last_mut() {
                    Some(last) if start <= last.1 => last.1 = last.1.max(end),
                    _ => merged.push((start, end)),
                }
            }
            *list = merged;
        }
        Self { by_reference }
    }

    /// Whether no range is wanted at all.
    pub fn is_empty(&self) -> bool {
        self.by_reference.values().all(Vec::is_empty)
    }

    /// Whether a wanted range on `reference` overlaps `[start, end)` (an empty range
    /// counts at its position, as an empty BED region does).
    pub fn overlaps(&self, reference: &[u8], (start, end): (u64, u64)) -> bool {
        let Some(list) = self.by_reference.get(reference) else {
            return false;
        };
        // The first range ending after `start` (or at it, for empty ranges).
        let i = list.partition_point(|&(_, e)| e < start);
        list.get(i).is_some_and(|&(s, _)| s <= end)
    }
}
