//! A CRAM read by genomic range with each container decoded when a range first needs it:
//! for snp-pileup, whose replays read a little around each site. Decoding as they read
//! writes no temporary BAM (as [`CramInput`](super::CramInput) does, before the work),
//! and a job that looks at some places of a large CRAM (a part of a run spread over
//! machines, or a walk that reads a few bases at each contig's start) decodes only
//! those.
//!
//! [`CramRanges`] is the opened CRAM, shared; each thread reads it through a
//! [`CramRangeReader`] of its own (an htslib handle and a few decoded containers).

use std::collections::VecDeque;
use std::ops::ControlFlow;
use std::path::Path;

#[cfg(feature = "htslib")]
use super::reference::HtsReference;
use super::transcode::ContainerDecoder;
use super::{ContainerSpan, CramFile, Fields, ReadOptions, ReferenceSource};
use crate::bam::Record;
use crate::{Error, Result};

/// Decoded BAM bytes a reader keeps (whole containers; the last one decoded is always
/// kept): a replay that moves back a little or reads the same stretch again finds its
/// containers decoded.
const KEPT_BYTES: usize = 16 << 20;

/// A CRAM opened to be read by genomic range, its containers found (from its `.crai` or
/// their headers), nothing decoded.
pub struct CramRanges {
    cram: CramFile,
    reference: ReferenceSource,
    fields: Fields,
    #[cfg(feature = "htslib")]
    hts_reference: HtsReference,
}

impl std::fmt::Debug for CramRanges {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("CramRanges").field(&self.cram).finish()
    }
}

impl CramRanges {
    /// Opens the CRAM at `path` with the reference and fields of `options` (its
    /// `ranges` and `threads` do not apply: what is decoded is what is read).
    pub fn open(path: &Path, options: &ReadOptions<'_>) -> Result<Self> {
        let (cram, reference) =
            CramFile::open_with_reference(path, options.reference, options.fields)?;
        #[cfg(feature = "htslib")]
        let hts_reference = HtsReference::prepare(&reference)?;
        Ok(Self {
            cram,
            reference,
            fields: options.fields,
            #[cfg(feature = "htslib")]
            hts_reference,
        })
    }

    /// The CRAM.
    pub fn cram(&self) -> &CramFile {
        &self.cram
    }

    /// A reader for one thread.
    pub fn reader(&self) -> Result<CramRangeReader<'_>> {
        Ok(CramRangeReader {
            ranges: self,
            decoder: ContainerDecoder::open(
                &self.cram,
                &self.reference,
                self.fields,
                #[cfg(feature = "htslib")]
                &self.hts_reference,
            )?,
            kept: VecDeque::new(),
            kept_bytes: 0,
            decoded: 0,
        })
    }
}

/// One thread's reader of a [`CramRanges`]: its decoder and the containers it decoded
/// last.
pub struct CramRangeReader<'a> {
    ranges: &'a CramRanges,
    decoder: ContainerDecoder<'a>,
    /// Decoded containers, by number, as BAM records (each with its length), the most
    /// recent last.
    kept: VecDeque<(usize, Vec<u8>)>,
    kept_bytes: usize,
    decoded: u64,
}

impl CramRangeReader<'_> {
    /// Calls `visit` with the records of contig `ref_id` in every container that may
    /// hold one overlapping the 0-based half-open range `start..end`, in file order,
    /// until `visit` breaks: a superset of the reads overlapping the range, as a BAM
    /// index's chunks give one. Containers of several references count as meeting any
    /// range; unplaced ones hold none.
    pub fn for_each_record<F>(
        &mut self,
        ref_id: i32,
        start: u64,
        end: u64,
        mut visit: F,
    ) -> Result<()>
    where
        F: FnMut(Record<'_>) -> ControlFlow<()>,
    {
        let cram = &self.ranges.cram;
        let spans = cram.containers();
        for number in containers_meeting(spans, &cram.bounds, ref_id, start, end) {
            let at = self.decode(number)?;
            let records = &self.kept[at].1;
            if visit_records(cram, &spans[number], records, ref_id, &mut visit)?.is_break() {
                break;
            }
        }
        Ok(())
    }

    /// Containers decoded so far (one decoded again after it was dropped counts again).
    pub fn containers_decoded(&self) -> u64 {
        self.decoded
    }

    /// Where container `number` lies in `kept`, decoding it if it is not there (and
    /// dropping the oldest beyond [`KEPT_BYTES`]).
    fn decode(&mut self, number: usize) -> Result<usize> {
        if let Some(at) = self.kept.iter().position(|(n, _)| *n == number) {
            return Ok(at);
        }
        let mut records = Vec::new();
        if self.kept_bytes > KEPT_BYTES {
            // The oldest container's buffer, reused.
            let (_, old) = self.kept.pop_front().expect("bytes are kept");
            self.kept_bytes -= old.len();
            records = old;
            records.clear();
        }
        self.decoder
            .decode(&self.ranges.cram.containers()[number], &mut records)?;
        self.decoded += 1;
        self.kept_bytes += records.len();
        self.kept.push_back((number, records));
        Ok(self.kept.len() - 1)
    }
}

/// The numbers of the containers that may hold a record of `ref_id` overlapping the
/// 0-based range `start..end`, in file order: the single-reference containers of
/// `ref_id` whose span meets it (in order of position, so the search stops at the first
/// starting past it) and those of several references whose bounds hold `ref_id`.
fn containers_meeting<'s>(
    spans: &'s [ContainerSpan],
    bounds: &'s [(i32, i32)],
    ref_id: i32,
    start: u64,
    end: u64,
) -> impl Iterator<Item = usize> + 's {
    let first = bounds.partition_point(|&(_, hi)| hi < ref_id);
    (first..spans.len())
        .take_while(move |&n| {
            let (lo, _) = bounds[n];
            lo <= ref_id && !(spans[n].ref_id == ref_id && spans[n].span.0 > end)
        })
        .filter(move |&n| {
            let (lo, hi) = bounds[n];
            lo <= ref_id && ref_id <= hi && (spans[n].ref_id == -2 || spans[n].span.1 >= start)
        })
}

/// Visits the records of `ref_id` among a container's decoded `records` (each with its
/// length), until `visit` breaks.
fn visit_records<F>(
    cram: &CramFile,
    span: &ContainerSpan,
    records: &[u8],
    ref_id: i32,
    visit: &mut F,
) -> Result<ControlFlow<()>>
where
    F: FnMut(Record<'_>) -> ControlFlow<()>,
{
    let mut at = 0;
    while at + 4 <= records.len() {
        let len = u32::from_le_bytes(records[at..at + 4].try_into().expect("4 bytes")) as usize;
        let bytes = records.get(at + 4..at + 4 + len).ok_or_else(|| {
            Error::format(
                cram.path(),
                span.offset,
                "a decoded record runs past its container",
            )
        })?;
        let record = Record::new(bytes)
            .map_err(|e| cram.container_error(span, format!("decoded record: {}", e.0)))?;
        at += 4 + len;
        if record.ref_id() == ref_id && visit(record).is_break() {
            return Ok(ControlFlow::Break(()));
        }
    }
    Ok(ControlFlow::Continue(()))
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    fn span(ref_id: i32, start: u64, end: u64) -> ContainerSpan {
        ContainerSpan {
            offset: 0,
            size: 1,
            records: 1,
            ref_id,
            span: (start, end),
        }
    }

    fn meeting(spans: &[ContainerSpan], ref_id: i32, start: u64, end: u64) -> Vec<usize> {
        let bounds = crate::cram::reference_bounds(spans);
        containers_meeting(spans, &bounds, ref_id, start, end).collect()
    }

    #[test]
    fn the_containers_a_range_may_read_are_found_by_reference_and_span() {
        let spans = [
            span(0, 0, 100),
            span(0, 90, 200),
            span(-2, 0, 0),
            span(2, 0, 50),
            span(2, 40, 90),
            span(4, 0, 10),
            span(-1, 0, 0),
        ];
        assert_eq!(
            meeting(&spans, 0, 150, 160),
            [1, 2],
            "and the one of several references after"
        );
        assert_eq!(meeting(&spans, 0, 95, 96), [0, 1, 2]);
        assert_eq!(
            meeting(&spans, 1, 0, 1000),
            [2],
            "only the one of several references"
        );
        assert_eq!(meeting(&spans, 2, 60, 70), [2, 4]);
        assert_eq!(meeting(&spans, 2, 0, 45), [2, 3, 4]);
        assert!(
            meeting(&spans, 3, 0, 1000).is_empty(),
            "between two single-reference containers"
        );
        assert_eq!(meeting(&spans, 4, 5, 6), [5]);
        assert!(
            meeting(&spans, 5, 0, 1000).is_empty(),
            "unplaced records are never read"
        );
    }

    #[test]
    fn a_range_reads_every_record_overlapping_it_and_decodes_only_its_containers() {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/data/cram/normal_slice_containers.cram");
        let options = ReadOptions {
            fields: Fields::Pileup,
            ..ReadOptions::default()
        };
        let ranges = CramRanges::open(&path, &options).unwrap();
        let containers = ranges.cram().containers().len() as u64;
        let mut all = Vec::new();
        let mut whole = ranges.reader().unwrap();
        whole
            .for_each_record(0, 0, u64::MAX >> 1, |r| {
                all.push((r.pos(), r.alignment_end(), r.read_name().to_vec(), r.flag()));
                ControlFlow::Continue(())
            })
            .unwrap();
        assert_eq!(all.len(), 6340, "every record of the CRAM");
        assert_eq!(whole.containers_decoded(), containers);

        let (start, end) = (1_030_000u64, 1_031_000u64);
        let mut reader = ranges.reader().unwrap();
        let mut some = Vec::new();
        reader
            .for_each_record(0, start, end, |r| {
                some.push((r.pos(), r.alignment_end(), r.read_name().to_vec(), r.flag()));
                ControlFlow::Continue(())
            })
            .unwrap();
        let overlapping = |&&(pos, end_pos, _, _): &&(i32, i64, Vec<u8>, u16)| {
            (pos as u64) < end && end_pos as u64 > start
        };
        let wanted: Vec<_> = all.iter().filter(overlapping).collect();
        assert!(!wanted.is_empty());
        assert_eq!(some.iter().filter(overlapping).collect::<Vec<_>>(), wanted);
        assert!(
            reader.containers_decoded() < containers / 4,
            "{}",
            reader.containers_decoded()
        );

        let decoded = reader.containers_decoded();
        let mut first = None;
        reader
            .for_each_record(0, start, end, |r| {
                first = Some(r.pos());
                ControlFlow::Break(())
            })
            .unwrap();
        assert_eq!(first, Some(some[0].0), "a visit that breaks ends the read");
        assert_eq!(
            reader.containers_decoded(),
            decoded,
            "its containers were kept"
        );
    }
}
