//! `seqfarm depth`: mean depth per window or BED region and bases at or above depth
//! thresholds, with the output files of `mosdepth -n --by` (0.3): `.regions.bed.gz`,
//! `.thresholds.bed.gz`, `.mosdepth.summary.txt`, `.mosdepth.global.dist.txt`,
//! `.mosdepth.region.dist.txt`, and with `--per-base` the `.per-base.bed.gz` runs.
//!
//! The emitter walks the contigs in header order and cuts each into stretches of about
//! equal BAM bytes (at window boundaries; a BED region goes with the stretch holding its
//! start); a worker reads the stretch's reads through the index, builds its per-base
//! depth ([`Coverage`]) and computes its rows, statistics and distributions; the collector
//! writes the rows in order and adds the statistics up contig by contig.

mod bed;
mod options;
mod outputs;
mod stretch;
#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};

use seqfarm_farm::Fill;
use seqfarm_io::alignment_file::{open_by_region, ReadOptions};
use seqfarm_io::bam::RangeReader;
use seqfarm_io::bed_index::BedIndexer;
use seqfarm_io::bgzf_writer::compressor_threads;
use seqfarm_io::cram::Fields;
use seqfarm_io::output::{refuse_input_as_output, ExistingOutput, Output};
use seqfarm_plot::{file_label, WindowTable, WindowValues};
use seqfarm_regions::depth::{Coverage, DepthFilter};

use self::bed::{bed_warnings, read_bed};
pub use self::options::DepthOptions;
use self::outputs::{with_suffix, write_runs, BgzfOutput, Totals};
use self::stretch::{StretchPlanner, StretchWorker, Task};
use crate::cmd::count::task_bytes_for;
use crate::common::{farm_error, refuse_shared_outputs, with_bam_indexes};
use crate::farm_stats::StatsFile;
use crate::plot_file::PlotFile;

/// Existing output files (every `PREFIX.*` file, `--plot`, `--stats`) are replaced, as
/// mosdepth replaces its files when run again with the same prefix.
pub const EXISTING_OUTPUT: ExistingOutput = ExistingOutput::Replace;

/// Runs `seqfarm depth` on `bam` (an indexed BAM or a CRAM, both coordinate-sorted),
/// writing the files `PREFIX.*` of `prefix`.
pub fn run(bam: &Path, prefix: &Path, options: &DepthOptions) -> anyhow::Result<()> {
    options.check()?;
    let bam = bam.to_path_buf();
    // A CRAM is decoded whole, even with a BED: the summary and the global distribution
    // cover every base.
    let bams = open_by_region(
        std::slice::from_ref(&bam),
        &ReadOptions {
            reference: options.reference.as_deref(),
            fields: Fields::Coverage,
            threads: options.farm.workers(),
            ranges: None,
        },
    )?;
    let (names, lengths) = super::count::reference_names_and_lengths(&bams)?;
    let bed = options.bed.as_deref().map(read_bed).transpose()?;
    if let (Some(bed), Some(path)) = (&bed, &options.bed) {
        for warning in bed_warnings(bed, &names, &lengths) {
            stderr_line!("seqfarm: warning: {}: {warning}", path.display());
        }
    }
    let mut thresholds: Vec<i32> = options
        .thresholds
        .iter()
        .map(|&t| t.min(i32::MAX as u32) as i32)
        .collect();
    thresholds.sort_unstable();
    let config = options.farm.config();
    let total = bams.files()[0].0.len();
    let task_bytes = options
        .task_bytes
        .unwrap_or_else(|| task_bytes_for(total, config.workers));

    let inputs: Vec<PathBuf> = with_bam_indexes(std::slice::from_ref(&bam))
        .into_iter()
        .chain(options.bed.clone())
        .collect();
    let path = |suffix: &str| with_suffix(prefix, suffix);
    let mut named = vec![
        path(".regions.bed.gz"),
        path(".mosdepth.summary.txt"),
        path(".mosdepth.global.dist.txt"),
        path(".mosdepth.region.dist.txt"),
    ];
    if !thresholds.is_empty() {
        named.push(path(".thresholds.bed.gz"));
    }
    if options.per_base {
        named.push(path(".per-base.bed.gz"));
    }
    for out in named
        .clone()
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "gz"))
    {
        named.push(with_suffix(out, ".csi"));
    }
    for out in &named {
        refuse_input_as_output(out, inputs.iter())?;
    }
    refuse_shared_outputs(
        named.iter().map(|out| ("-o", out.as_path())),
        options.plot.as_ref(),
        options.farm.stats.as_ref(),
    )?;
    let max_length = lengths.iter().copied().max().unwrap_or(0).max(0) as u64;
    let bed_index = || BedIndexer::new(names.iter().map(String::as_str), max_length);
    let overwrite = EXISTING_OUTPUT.overwrite(options.force);
    let compressors = compressor_threads(config.workers);
    let bgzf_output = |suffix: &str, level: i32| {
        BgzfOutput::create(path(suffix), overwrite, level, compressors, bed_index())
    };
    let mut regions_out = bgzf_output(".regions.bed.gz", 6)?;
    let mut summary_out = Output::create(path(".mosdepth.summary.txt"), overwrite)?;
    let mut dist_out = Output::create(path(".mosdepth.global.dist.txt"), overwrite)?;
    let mut region_dist_out = Output::create(path(".mosdepth.region.dist.txt"), overwrite)?;
    let mut thresholds_out = if thresholds.is_empty() {
        None
    } else {
        let mut out = bgzf_output(".thresholds.bed.gz", 1)?;
        let mut head = "#chrom\tstart\tend\tregion".to_string();
        // Labelled as given (mosdepth's), though depths are counted up to i32::MAX.
        let mut labels = options.thresholds.clone();
        labels.sort_unstable();
        for t in labels {
            head.push_str(&format!("\t{t}X"));
        }
        head.push('\n');
        out.put(head.as_bytes())?;
        Some(out)
    };
    let mut per_base_out = if options.per_base {
        Some(bgzf_output(".per-base.bed.gz", 1)?)
    } else {
        None
    };
    let plot_file = PlotFile::create(options.plot.as_ref(), overwrite, inputs.iter())?;
    let mut plot = plot_file
        .as_ref()
        .map(|_| WindowTable::new(names.clone(), WindowValues::Depth, options.window.is_some()));
    let mut stats = StatsFile::create(
        options.farm.stats.as_ref(),
        "depth",
        config.workers,
        overwrite,
        inputs.iter(),
    )?;

    let filter = DepthFilter {
        min_map_quality: options.mapq,
        exclude_flags: options.exclude_flags,
    };
    let mut planner = StretchPlanner {
        bams: &bams,
        lengths: &lengths,
        names: &names,
        window: options.window.map(i64::from),
        all_contigs: options.bed.is_none() || options.per_base || !thresholds.is_empty(),
        bed,
        task_bytes: task_bytes.max(1),
        ref_id: 0,
        pos: 0,
        next_region: 0,
    };
    let mut totals = Totals::new();
    let mut regions = 0u64;
    let mut per_base_text = Vec::new();
    let report = seqfarm_farm::run(
        &config,
        Task::default,
        &mut |task: &mut Task| -> anyhow::Result<Fill> { Ok(planner.fill(task)) },
        |_| {
            Ok(StretchWorker {
                bams: &bams,
                filter,
                names: &names,
                lengths: &lengths,
                thresholds: &thresholds,
                windows: options.window.is_some(),
                per_base: options.per_base,
                reader: RangeReader::new(),
                coverage: Coverage::default(),
                counts: Vec::new(),
            })
        },
        &mut |task: &mut Task| -> anyhow::Result<()> {
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
            totals.add(task, name);
            Ok(())
        },
    )
    .map_err(farm_error)?;
    totals.finish();
    let picture = match &plot {
        Some(table) => {
            let by = match (options.window, &options.bed) {
                (Some(size), _) => format!("{size}-bp window"),
                (None, Some(bed)) => format!("region of {}", file_label(bed)),
                (None, None) => "region".to_string(),
            };
            Some(table.draw(Some(&bam), &by)?)
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
    stats.add(&report.stats);
    stats.total("regions", regions, report.stats.tasks);
    stats.finish()?;
    Ok(())
}
