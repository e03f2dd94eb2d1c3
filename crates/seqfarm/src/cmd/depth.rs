//! `seqfarm depth`: mean depth per window or BED region and bases at or above depth
//! thresholds, with the output files of `mosdepth -n --by` (0.3): `.regions.bed.gz`,
//! `.thresholds.bed.gz`, `.mosdepth.summary.txt`, `.mosdepth.global.dist.txt`,
//! `.mosdepth.region.dist.txt`, and with `--per-base` the `.per-base.bed.gz` runs.
//!
//! The emitter walks the contigs in header order and cuts each into stretches of about
//! equal BAM bytes (at window boundaries; a BED region goes with the stretch holding its
//! start); a worker reads the stretch's reads through the index, builds its per-base
//! depth ([`seqfarm_regions::depth::Coverage`]) and computes its rows, statistics and distributions; the collector
//! writes the rows in order and adds the statistics up contig by contig.

mod bed;
mod job;
mod options;
mod outputs;
mod stretch;
#[cfg(test)]
mod tests;

use std::path::Path;

use seqfarm_io::bed_index::BedIndexer;
use seqfarm_io::bgzf_writer::compressor_threads;
use seqfarm_io::output::{ExistingOutput, Output};
use seqfarm_plot::{file_label, WindowTable, WindowValues};

pub use self::job::DepthJob;
pub use self::options::DepthOptions;
pub(crate) use self::outputs::{extend_run, push_run_line, with_suffix, Totals};
use self::outputs::{write_runs, BgzfOutput};
pub(crate) use self::stretch::{StretchFigures, Task};
use crate::farm_stats::StatsFile;
use crate::plot_file::PlotFile;

/// Existing output files (every `PREFIX.*` file, `--plot`, `--stats`) are replaced, as
/// mosdepth replaces its files when run again with the same prefix.
pub const EXISTING_OUTPUT: ExistingOutput = ExistingOutput::Replace;

/// Runs `seqfarm depth` on `bam` (an indexed BAM or a CRAM, both coordinate-sorted),
/// writing the files `PREFIX.*` of `prefix`.
pub fn run(bam: &Path, prefix: &Path, options: &DepthOptions) -> anyhow::Result<()> {
    let job = DepthJob::new(bam, options)?;
    job.warn_about_bed();
    let names = job.names();
    let config = options.farm.config();
    let task_bytes = job.task_bytes(config.workers);
    let inputs = job.input_files();
    job.output_paths(prefix)?;
    let path = |suffix: &str| with_suffix(prefix, suffix);
    let max_length = job.max_length();
    let bed_index = || BedIndexer::new(names.iter().map(String::as_str), max_length);
    let overwrite = EXISTING_OUTPUT.overwrite(options.force);
    let compressors = compressor_threads(config.workers);
    let bgzf_output = |suffix: &str, level: i32| {
        BgzfOutput::create(path(suffix), overwrite, level, compressors, bed_index())
    };
    let mut regions_out = bgzf_output(".regions.bed.gz", REGIONS_LEVEL)?;
    let mut summary_out = Output::create(path(".mosdepth.summary.txt"), overwrite)?;
    let mut dist_out = Output::create(path(".mosdepth.global.dist.txt"), overwrite)?;
    let mut region_dist_out = Output::create(path(".mosdepth.region.dist.txt"), overwrite)?;
    let mut thresholds_out = if job.has_thresholds() {
        let mut out = bgzf_output(".thresholds.bed.gz", OTHER_LEVEL)?;
        out.put(job.thresholds_header().as_bytes())?;
        Some(out)
    } else {
        None
    };
    let mut per_base_out = if options.per_base {
        Some(bgzf_output(".per-base.bed.gz", OTHER_LEVEL)?)
    } else {
        None
    };
    let plot_file = PlotFile::create(options.plot.as_ref(), overwrite, inputs.iter())?;
    let mut plot = plot_file.as_ref().map(|_| {
        WindowTable::new(
            names.to_vec(),
            WindowValues::Depth,
            options.window.is_some(),
        )
    });
    let mut stats = StatsFile::create(
        options.farm.stats.as_ref(),
        "depth",
        config.workers,
        overwrite,
        inputs.iter(),
    )?;

    let mut totals = Totals::new();
    let mut regions = 0u64;
    let mut per_base_text = Vec::new();
    let (farm_stats, _) = job.run(
        &config,
        task_bytes,
        0..usize::MAX,
        |task: &mut Task| -> anyhow::Result<()> {
            regions += task.regions.len() as u64;
            regions_out.put_lines(task.ref_id, &task.rows)?;
            if let Some(table) = plot.as_mut() {
                for (r, &mean) in task.regions.iter().zip(&task.means) {
                    table.add(task.ref_id as i64, r.start, r.stop, [mean]);
                }
            }
            if let Some(out) = thresholds_out.as_mut() {
                out.put_lines(task.ref_id, &task.threshold_rows)?;
            }
            let name = &names[task.ref_id];
            if let Some(out) = per_base_out.as_mut() {
                per_base_text.clear();
                write_runs(
                    &mut per_base_text,
                    &mut totals.run,
                    &task.runs,
                    name.as_bytes(),
                    task.last_of_contig,
                );
                out.put_lines(task.ref_id, &per_base_text)?;
            }
            totals.add(&task.figures, task.last_of_contig, name);
            Ok(())
        },
    )?;
    totals.finish();
    let picture = match &plot {
        Some(table) => {
            let by = match (options.window, &options.bed) {
                (Some(size), _) => format!("{size}-bp window"),
                (None, Some(bed)) => format!("region of {}", file_label(bed)),
                (None, None) => "region".to_string(),
            };
            Some(table.draw(Some(bam), &by)?)
        }
        None => None,
    };
    summary_out.put(totals.summary.as_bytes())?;
    dist_out.put(totals.dist_text.as_bytes())?;
    region_dist_out.put(totals.region_dist_text.as_bytes())?;
    // Every file of the run moves into place as one set, the regions' BED first.
    let mut outputs = Vec::from(regions_out.finish(names.len())?);
    for out in [thresholds_out, per_base_out].into_iter().flatten() {
        outputs.extend(out.finish(names.len())?);
    }
    outputs.extend([summary_out, dist_out, region_dist_out]);
    if let (Some(file), Some(svg)) = (plot_file, picture) {
        outputs.push(file.written(&svg)?);
    }
    Output::commit_together(outputs)?;
    stats.add(&farm_stats);
    stats.total("regions", regions, farm_stats.tasks);
    stats.finish()?;
    Ok(())
}

/// libdeflate level of the regions' BED (mosdepth's default).
pub(crate) const REGIONS_LEVEL: i32 = 6;
/// libdeflate level of the thresholds' and per-base BEDs.
pub(crate) const OTHER_LEVEL: i32 = 1;
