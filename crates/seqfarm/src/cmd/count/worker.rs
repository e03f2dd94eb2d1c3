//! The worker of `seqfarm count`: it counts a task's reads into its regions, one stretch
//! of a contig at a time, and writes the task's rows.

use std::ops::ControlFlow;

use seqfarm_farm::Worker;
use seqfarm_io::bam::{BamSet, RangeReader};
use seqfarm_regions::count::{CountedRead, RegionShape, StretchCounter};
use seqfarm_regions::pileup::rows::push_number;

use super::plan::{Region, Task};
use super::STRETCH_GAP;

/// A worker: counts a task's regions in every BAM.
pub(super) struct RegionCounter<'a> {
    pub(super) bams: &'a BamSet,
    /// Counts a stretch's reads into its regions by multicov's rules.
    pub(super) counter: StretchCounter,
    /// The count column of each BAM: bedtools keys counts by file name, so a BAM given
    /// twice counts twice into its last column.
    pub(super) columns: &'a [usize],
    /// Contig names, for the columns of windows.
    pub(super) names: &'a [String],
    pub(super) reader: RangeReader,
    /// Whether the task's rows are written as text ([`Task::rows`]).
    pub(super) text_rows: bool,
}

impl RegionCounter<'_> {
    /// Counts the reads of `ref_id` in `regions` (`(start, stop, index)`) of one stretch;
    /// `all` are the task's regions (by index) and `blocks` their blocks.
    fn count_stretch(
        &mut self,
        ref_id: i32,
        regions: Vec<(i64, i64, u32)>,
        (all, blocks): (&[Region], &[(i64, i64)]),
        counts: &mut [u32],
    ) -> anyhow::Result<()> {
        let files = self.bams.len();
        let Some(needed) = self.counter.start_stretch(regions) else {
            return Ok(());
        };
        let (from, to) = (needed.start, needed.end);
        let shape = |i: u32| {
            let region = &all[i as usize];
            RegionShape {
                strand: region.strand,
                blocks: match region.blocks {
                    (from, to) if from < to => &blocks[from as usize..to as usize],
                    _ => &[],
                },
            }
        };
        for (file, (bam, index)) in self.bams.files().iter().enumerate() {
            let column = self.columns[file];
            let limit = index.kind().max_position();
            let first = from.clamp(0, limit - 1) as u64 + 1;
            let last = (to - 1).clamp(first as i64, limit) as u64;
            let bytes = index.min_offset(ref_id as usize, first)?.compressed()
                ..index.min_offset(ref_id as usize, last)?.compressed();
            bam.prefetch(bytes.start..bytes.end + (1 << 16));
            self.counter.restart();
            let filter = self.counter.rule().filter;
            let counter = &mut self.counter;
            for chunk in index.query(ref_id as usize, first, last)? {
                let mut done = false;
                self.reader.for_each(bam, chunk, |record| {
                    let pos = i64::from(record.pos());
                    if record.ref_id() != ref_id || pos >= to {
                        done = record.ref_id() > ref_id || pos >= to;
                        return if done {
                            ControlFlow::Break(())
                        } else {
                            ControlFlow::Continue(())
                        };
                    }
                    let (flag, mapq) = (record.flag(), record.mapq());
                    // A read the filter refuses is passed over before its CIGAR is read.
                    if !filter.keeps(flag, mapq) {
                        return ControlFlow::Continue(());
                    }
                    let read = CountedRead {
                        pos,
                        flag,
                        mapq,
                        cigar: record.cigar(),
                    };
                    counter.add(read, shape, |i| counts[i as usize * files + column] += 1);
                    ControlFlow::Continue(())
                })?;
                if done {
                    break;
                }
            }
            bam.release(bytes);
        }
        Ok(())
    }
}

impl Worker<Task, anyhow::Error> for RegionCounter<'_> {
    fn process(&mut self, task: &mut Task) -> anyhow::Result<()> {
        let files = self.bams.len();
        task.counts.clear();
        task.counts.resize(task.regions.len() * files, 0);
        let mut order: Vec<u32> = (0..task.regions.len() as u32)
            .filter(|&i| task.regions[i as usize].ref_id >= 0)
            .collect();
        order.sort_by_key(|&i| {
            let r = task.regions[i as usize];
            (r.ref_id, r.start)
        });
        let mut from = 0;
        while from < order.len() {
            let first = task.regions[order[from] as usize];
            let mut reach = first.stop;
            let mut to = from + 1;
            while to < order.len() {
                let r = task.regions[order[to] as usize];
                if r.ref_id != first.ref_id || r.start - reach > STRETCH_GAP {
                    break;
                }
                reach = reach.max(r.stop);
                to += 1;
            }
            let stretch = order[from..to]
                .iter()
                .map(|&i| {
                    let r = task.regions[i as usize];
                    (r.start, r.stop, i)
                })
                .collect();
            self.count_stretch(
                first.ref_id,
                stretch,
                (&task.regions, &task.blocks),
                &mut task.counts,
            )?;
            from = to;
        }
        if self.text_rows {
            self.write_rows(task);
        }
        Ok(())
    }
}

impl RegionCounter<'_> {
    /// Writes each region's row: its echoed columns (a window's contig, start and end),
    /// then one count per BAM.
    fn write_rows(&self, task: &mut Task) {
        let files = self.bams.len();
        let rows = &mut task.rows;
        rows.clear();
        let mut from = 0;
        for (i, region) in task.regions.iter().enumerate() {
            if task.text.is_empty() {
                rows.extend_from_slice(self.names[region.ref_id as usize].as_bytes());
                for n in [region.start, region.stop] {
                    rows.push(b'\t');
                    push_number(rows, n as u64);
                }
                rows.push(b'\t');
            } else {
                let end = task.text_ends[i];
                rows.extend_from_slice(&task.text[from..end]);
                from = end;
            }
            for (k, &n) in task.counts[i * files..(i + 1) * files].iter().enumerate() {
                if k > 0 {
                    rows.push(b'\t');
                }
                push_number(rows, u64::from(n));
            }
            rows.push(b'\n');
        }
    }
}
