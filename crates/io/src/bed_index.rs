//! A CSI index of a BGZF-compressed BED file, built while the file is written, as
//! `tabix --csi -p bed` (and mosdepth, beside its `.bed.gz` outputs) would build it
//! afterwards: each data line is placed by its contig and `[start, end)` columns and
//! found again through its virtual offsets; lines starting with `#` are not indexed.

use std::io::Write;

use noodles_core::Position;
use noodles_csi::binning_index::index::header::{self, ReferenceSequenceNames};
use noodles_csi::binning_index::index::reference_sequence::bin::Chunk;
use noodles_csi::binning_index::index::reference_sequence::index::BinnedIndex;
use noodles_csi::binning_index::Indexer;

/// CSI's smallest bin (16 kbp), as tabix and mosdepth use.
const MIN_SHIFT: u8 = 14;

/// Builds the CSI index of a BED file from its lines and their virtual offsets.
pub struct BedIndexer {
    indexer: Indexer<BinnedIndex>,
}

impl BedIndexer {
    /// An indexer for a BED file over contigs `names` (in the order their lines come)
    /// no longer than `max_length`.
    pub fn new<'a>(names: impl IntoIterator<Item = &'a str>, max_length: u64) -> Self {
        // Levels enough for the longest contig, at least BAI's five.
        let mut depth = 5u8;
        while (1u64 << (MIN_SHIFT + 3 * depth)) < max_length.saturating_add(1) {
            depth += 1;
        }
        let names: ReferenceSequenceNames =
            names.into_iter().map(|n| n.as_bytes().into()).collect();
        let header = header::Builder::bed()
            .set_reference_sequence_names(names)
            .build();
        let indexer = Indexer::new(MIN_SHIFT, depth)
            .expect("a shift and depth within CSI's limits")
            .set_header(header);
        Self { indexer }
    }

    /// Adds one line of contig number `ref_id` that starts at virtual offset `start` and
    /// ends before `end`. A line starting with `#` is skipped.
    pub fn add_line(
        &mut self,
        ref_id: usize,
        line: &[u8],
        start: u64,
        end: u64,
    ) -> Result<(), String> {
        if line.first() == Some(&b'#') {
            return Ok(());
        }
        let mut fields = line.split(|&b| b == b'\t').skip(1);
        let mut column = |what: &str| -> Result<u64, String> {
            fields
                .next()
                .and_then(|f| std::str::from_utf8(f).ok()?.trim_end().parse().ok())
                .ok_or_else(|| format!("BED line without a {what} column to index"))
        };
        let (begin, finish) = (column("start")?, column("end")?);
        // One-based and inclusive, an empty interval covering the base after it.
        let first = Position::new(begin as usize + 1).ok_or("BED start out of range")?;
        let last = Position::new(finish.max(begin + 1) as usize).ok_or("BED end out of range")?;
        let chunk = Chunk::new(start.into(), end.into());
        self.indexer
            .add_record(Some((ref_id, first, last, true)), chunk)
            .map_err(|e| e.to_string())
    }

    /// Writes the index (BGZF-compressed, as CSI files are) for `reference_count` contigs.
    pub fn write(self, reference_count: usize, out: impl Write) -> std::io::Result<()> {
        let index = self.indexer.build(reference_count);
        let mut writer = noodles_csi::io::Writer::new(out);
        writer.write_index(&index)?;
        writer.into_inner().finish().map(drop)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bgzf_writer::BgzfWriter;
    use noodles_core::region::Interval;
    use noodles_csi::BinningIndex;

    #[test]
    fn queries_find_the_chunks_of_overlapping_lines() {
        let names = ["chr1", "chr2"];
        let mut indexer = BedIndexer::new(names, 1_000_000);
        let mut writer = BgzfWriter::new(Vec::new(), 1);
        let mut lines = Vec::new();
        let head = b"#chrom\tstart\tend\n";
        let at = writer.virtual_position();
        writer.write_all(head).unwrap();
        indexer
            .add_line(0, head, at, writer.virtual_position())
            .unwrap();
        for (ref_id, name) in names.iter().enumerate() {
            for start in (0..900_000u64).step_by(500) {
                let line = format!("{name}\t{start}\t{}\t1.00\n", start + 500);
                let at = writer.virtual_position();
                writer.write_all(line.as_bytes()).unwrap();
                let end = writer.virtual_position();
                indexer.add_line(ref_id, line.as_bytes(), at, end).unwrap();
                lines.push((ref_id, start, at, end));
            }
        }
        let mut file = Vec::new();
        indexer.write(names.len(), &mut file).unwrap();
        let index = noodles_csi::io::Reader::new(&file[..])
            .read_index()
            .unwrap();
        let names: Vec<_> = index
            .header()
            .unwrap()
            .reference_sequence_names()
            .iter()
            .collect();
        assert_eq!(names, ["chr1", "chr2"]);
        let interval: Interval = "300001-300600".parse().unwrap();
        let chunks = index.query(1, interval).unwrap();
        for &(_, start, at, end) in lines.iter().filter(|l| l.0 == 1) {
            let overlaps = start < 300_600 && start + 500 > 300_000;
            let covered = chunks
                .iter()
                .any(|c| u64::from(c.start()) <= at && end <= u64::from(c.end()));
            if overlaps {
                assert!(covered, "line at {start} not in {chunks:?}");
            }
        }
    }

    #[test]
    fn a_line_without_coordinates_is_an_error() {
        let mut indexer = BedIndexer::new(["chr1"], 100);
        assert!(indexer.add_line(0, b"chr1\tx\t5\n", 0, 10).is_err());
        assert!(indexer.add_line(0, b"chr1\n", 0, 10).is_err());
    }
}
