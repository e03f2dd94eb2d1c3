//! A pass over every record of a BAM file in file order, on a farm. With an index, the
//! file is cut at record starts into ranges: each worker walks its range's records and
//! turns each into an item (the work per record: scores, positions, tags); the collector
//! takes the items in order. Without one (or in the unmapped tail), workers inflate
//! batches of BGZF blocks and the collector walks the records across them, making the
//! items itself (as flagstat does).

use std::ops::ControlFlow;
use std::path::Path;

use seqfarm_farm::{FarmConfig, FarmStats, Fill};
use seqfarm_io::bam::{BamFile, BamIndex, RangeReader, Record, RecordStitcher, WorkPlan, WorkUnit};
use seqfarm_io::bgzf::{InflateBuffer, Inflater, VirtualRange};

use crate::common::farm_error;

/// Compressed bytes per batch of blocks, and per indexed range at most.
const UNIT_BYTES: u64 = 1 << 20;

/// What a pass makes of each record, on whichever thread walks it.
pub(super) trait RecordItems: Sync {
    /// What the collector takes of one record.
    type Item: Send;
    /// The item of `record`; variable-length parts go to `arena`.
    fn item(&self, record: &Record<'_>, arena: &mut Vec<u8>) -> Self::Item;
}

/// A unit of the pass and what was made of it; buffers are reused from task to task.
struct Task<I> {
    work: Option<WorkUnit>,
    inflated: InflateBuffer,
    items: Vec<I>,
    arena: Vec<u8>,
}

/// Calls `visit` with the item of each record of `bam` (named `path` in errors) and the
/// arena it refers to (which `visit` may change in place), in file order, on the calling thread; stops at the first error
/// `visit` returns. `index` (when there is one) lets the workers walk the records.
/// Returns the farm's figures.
pub(super) fn for_each_item<P: RecordItems>(
    bam: &BamFile,
    index: Option<&BamIndex>,
    path: &Path,
    config: &FarmConfig,
    pass: &P,
    mut visit: impl FnMut(P::Item, &mut [u8]) -> anyhow::Result<()>,
) -> anyhow::Result<FarmStats> {
    let plan = WorkPlan::new(bam, index, UNIT_BYTES);
    let mut units = plan.units(bam, UNIT_BYTES);
    let n_ref = bam.header().references.len();
    let mut stitcher = RecordStitcher::new(n_ref, 0);
    let mut arena = Vec::new();
    let mut failure: Option<anyhow::Error> = None;
    let report = seqfarm_farm::run(
        config,
        || Task {
            work: None,
            inflated: InflateBuffer::new(),
            items: Vec::new(),
            arena: Vec::new(),
        },
        &mut |task: &mut Task<P::Item>| -> Result<Fill, anyhow::Error> {
            match units.next() {
                Some(Ok(unit)) => {
                    task.work = Some(unit);
                    Ok(Fill::Task)
                }
                Some(Err(e)) => Err(bam.bgzf_error(e).into()),
                None => Ok(Fill::End),
            }
        },
        |_| {
            let mut inflater = Inflater::new();
            let mut reader = RangeReader::new();
            Ok(
                move |task: &mut Task<P::Item>| -> Result<(), anyhow::Error> {
                    task.items.clear();
                    task.arena.clear();
                    match &task.work {
                        Some(WorkUnit::Range(range)) => walk_range(
                            bam,
                            *range,
                            &mut reader,
                            pass,
                            &mut task.items,
                            &mut task.arena,
                        ),
                        Some(WorkUnit::Blocks(batch)) => Ok(batch
                            .inflate(bam, &mut inflater, &mut task.inflated)
                            .map_err(|e| bam.bgzf_error(e))?),
                        None => Ok(()),
                    }
                },
            )
        },
        &mut |task: &mut Task<P::Item>| -> Result<(), anyhow::Error> {
            match &task.work {
                Some(WorkUnit::Range(_)) => {
                    for item in task.items.drain(..) {
                        visit(item, &mut task.arena)?;
                    }
                    Ok(())
                }
                Some(WorkUnit::Blocks(batch)) => {
                    let inflated = task.inflated.as_slice();
                    batch.stitch(&mut stitcher, n_ref, inflated, path, |record| {
                        if failure.is_none() {
                            arena.clear();
                            let item = pass.item(&record, &mut arena);
                            if let Err(e) = visit(item, &mut arena) {
                                failure = Some(e);
                            }
                        }
                    })?;
                    match failure.take() {
                        Some(e) => Err(e),
                        None => Ok(()),
                    }
                }
                None => Ok(()),
            }
        },
    )
    .map_err(farm_error)?;
    Ok(report.stats)
}

/// A worker's walk over the records of an indexed range.
fn walk_range<P: RecordItems>(
    bam: &BamFile,
    range: VirtualRange,
    reader: &mut RangeReader,
    pass: &P,
    items: &mut Vec<P::Item>,
    arena: &mut Vec<u8>,
) -> anyhow::Result<()> {
    bam.prefetch(range.start.compressed()..range.end.compressed() + 65536);
    reader.for_each(bam, range, |record| {
        items.push(pass.item(&record, arena));
        ControlFlow::Continue(())
    })?;
    bam.release(range.start.compressed()..range.end.compressed());
    Ok(())
}
