//! A binning index (BAI, CSI) with its record counts set after it is built: indexers
//! given one record per group of lines or records (the BED outputs' indexes, a sorted
//! BAM's ranges) count groups.

use noodles_csi::binning_index::index::reference_sequence::ReferenceSequence;
use noodles_csi::binning_index::index::reference_sequence::{Index as ReferenceIndex, Metadata};
use noodles_csi::binning_index::{BinningIndex, Index, ReferenceSequence as _};

/// `index` with its references' record counts replaced: `counts(reference, metadata)`
/// gives a reference's (mapped, unmapped) records, `unplaced` the unplaced records'
/// count from the built one.
pub(crate) fn with_record_counts<I: ReferenceIndex + Clone>(
    index: Index<I>,
    counts: impl Fn(usize, &Metadata) -> (u64, u64),
    unplaced: impl FnOnce(Option<u64>) -> Option<u64>,
) -> Index<I> {
    let reference_sequences = index
        .reference_sequences()
        .iter()
        .enumerate()
        .map(|(ref_id, reference)| {
            let metadata = reference.metadata().map(|m| {
                let (mapped, unmapped) = counts(ref_id, m);
                Metadata::new(m.start_position(), m.end_position(), mapped, unmapped)
            });
            ReferenceSequence::new(
                reference.bins().clone(),
                reference.index().clone(),
                metadata,
            )
        })
        .collect();
    let mut builder = Index::builder()
        .set_min_shift(index.min_shift())
        .set_depth(index.depth())
        .set_reference_sequences(reference_sequences);
    if let Some(header) = index.header() {
        builder = builder.set_header(header.clone());
    }
    if let Some(count) = unplaced(index.unplaced_unmapped_record_count()) {
        builder = builder.set_unplaced_unmapped_record_count(count);
    }
    builder.build()
}
