//! Every record of a BAM file in file order: workers inflate batches of BGZF blocks, the
//! collector walks the records across them (as flagstat does without an index).

use std::path::Path;

use seqfarm_farm::{FarmConfig, FarmStats, Fill};
use seqfarm_io::bam::{BamFile, Record, RecordError, RecordStitcher, WorkPlan, WorkUnit};
use seqfarm_io::bgzf::{InflateBuffer, Inflater};
use seqfarm_io::Error;

use crate::common::farm_error;

/// Compressed bytes per batch of blocks.
const BLOCK_BATCH: u64 = 256 << 10;

/// A batch of blocks and its inflated bytes; buffers are reused from task to task.
struct Task {
    batch: Option<seqfarm_io::bam::BlockBatch>,
    inflated: InflateBuffer,
}

/// Calls `visit` with each record of `bam` (named `path` in errors), in file order, on
/// the calling thread; stops at the first error `visit` returns. Returns the farm's
/// figures.
pub(super) fn for_each_record(
    bam: &BamFile,
    path: &Path,
    config: &FarmConfig,
    mut visit: impl FnMut(Record<'_>) -> anyhow::Result<()>,
) -> anyhow::Result<FarmStats> {
    let plan = WorkPlan::new(bam, None, BLOCK_BATCH);
    let mut units = plan.units(bam, BLOCK_BATCH);
    let n_ref = bam.header().references.len();
    let mut stitcher = RecordStitcher::new(n_ref, 0);
    let mut failure: Option<anyhow::Error> = None;
    let report = seqfarm_farm::run(
        config,
        || Task {
            batch: None,
            inflated: InflateBuffer::new(),
        },
        &mut |task: &mut Task| -> Result<Fill, anyhow::Error> {
            match units.next() {
                Some(Ok(WorkUnit::Blocks(batch))) => {
                    task.batch = Some(batch);
                    Ok(Fill::Task)
                }
                Some(Ok(WorkUnit::Range(_))) => {
                    anyhow::bail!("{}: unexpected indexed range", path.display())
                }
                Some(Err(e)) => Err(bam.bgzf_error(e).into()),
                None => Ok(Fill::End),
            }
        },
        |_| {
            let mut inflater = Inflater::new();
            Ok(move |task: &mut Task| -> Result<(), anyhow::Error> {
                let Some(batch) = &task.batch else {
                    return Ok(());
                };
                let blocks = batch.blocks.clone();
                task.inflated.clear();
                let bytes = &bam.bytes()[blocks.start as usize..blocks.end as usize];
                inflater
                    .inflate_blocks(bytes, blocks.start, &mut task.inflated)
                    .map_err(|e| bam.bgzf_error(e))?;
                task.inflated.truncate(batch.end);
                Ok(())
            })
        },
        &mut |task: &mut Task| -> Result<(), anyhow::Error> {
            let Some(batch) = &task.batch else {
                return Ok(());
            };
            if batch.starts_segment {
                stitcher = RecordStitcher::new(n_ref, 0);
            }
            let bytes = task.inflated.as_slice();
            let data = bytes
                .get(batch.start..batch.end.min(bytes.len()))
                .unwrap_or_default();
            let at = batch.blocks.start;
            let error = |e: RecordError| {
                Error::format(path, at, format!("{} (in the blocks from here on)", e.0))
            };
            stitcher
                .feed(data, |record| {
                    if failure.is_none() {
                        if let Err(e) = visit(record) {
                            failure = Some(e);
                        }
                    }
                })
                .map_err(error)?;
            if let Some(e) = failure.take() {
                return Err(e);
            }
            if batch.ends_segment {
                stitcher.finish().map_err(error)?;
            }
            Ok(())
        },
    )
    .map_err(farm_error)?;
    Ok(report.stats)
}
