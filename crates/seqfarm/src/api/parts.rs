//! Commands cut into parts that run anywhere (one machine of a cluster each) and whose
//! results, put together in order, are the command's output byte for byte.

pub mod align;
pub mod count;
pub mod depth;
pub mod flagstat;
pub mod search;
pub mod snp_pileup;
pub mod snp_pileup_walk;
mod wire;

pub use self::wire::PartBytes;

/// Fails when a run in parts asks for a picture (`plot`, `--plot`) or the farm's
/// statistics file (`stats`, `--stats`): parts draw none and write none, each running a
/// farm of its own.
fn refuse_plot_and_stats(
    plot: Option<&std::path::PathBuf>,
    farm: &crate::options::FarmOptions,
) -> anyhow::Result<()> {
    if plot.is_some() {
        option_error!("--plot is not available when running in parts");
    }
    if farm.stats.is_some() {
        option_error!("--stats is not available when running in parts");
    }
    Ok(())
}

/// A region job (`count`, `snp-pileup`) cut into parts: the size of its tasks and, per
/// part, its tasks and where it starts reading its input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegionPlan {
    /// Compressed BAM bytes per task.
    pub task_bytes: u64,
    /// The parts in order.
    pub parts: Vec<RegionPart>,
}

/// One part of a [`RegionPlan`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegionPart {
    /// Its tasks (numbered from 0 in order).
    pub tasks: std::ops::Range<usize>,
    /// Where it starts reading its input (the BED's line or the window, the VCF's line
    /// with the BGZF block that holds it) and the emitter's state there, as the job's
    /// part function takes it: a part reads only its own regions or lines.
    pub start: Vec<u8>,
}

impl RegionPlan {
    /// The plan of the tasks whose emitter starts are `starts` (one per task, in order),
    /// cut into at most `parts` parts; `start` gives a part's start as bytes from the
    /// start of its first task and that of the next part's (`None` for the last part).
    fn new<S>(
        task_bytes: u64,
        starts: &[S],
        parts: usize,
        start: impl Fn(&S, Option<&S>) -> Vec<u8>,
    ) -> Self {
        let parts = even_runs(starts.len(), parts)
            .into_iter()
            .map(|tasks| RegionPart {
                start: start(&starts[tasks.start], starts.get(tasks.end)),
                tasks,
            })
            .collect();
        Self { task_bytes, parts }
    }

    /// Tasks in all.
    pub fn tasks(&self) -> usize {
        self.parts.last().map_or(0, |p| p.tasks.end)
    }
}

/// Inflated bytes between the access points of the index a plan gives a text input
/// compressed as one gzip stream (in tests, few enough that their small inputs get
/// several).
const TEXT_GZIP_SPAN: u64 = if cfg!(test) { 16 << 10 } else { 4 << 20 };

/// Runs `plan`, a region job's plan reading the text file `path` (it gives the plan and
/// whether its parts' starts found BGZF blocks), then sees to `path` as
/// [`index_unless_blocks`] does. When `path` is one gzip stream (not BGZF) and more than
/// one part is asked for, its index is made (or found) during the plan, on a thread of
/// its own: the plan and the index pass each inflate the whole file, and side by side
/// the client waits for the longer of the two rather than for both.
fn plan_beside_text_index(
    command: &str,
    path: Option<&std::path::Path>,
    parts: usize,
    plan: impl FnOnce() -> anyhow::Result<(RegionPlan, bool)>,
) -> anyhow::Result<RegionPlan> {
    use seqfarm_farm::threads::spawn_scoped_or_run;
    use seqfarm_io::gzip_index::GzipIndex;
    let early = path.filter(|path| parts > 1 && one_gzip_stream(path));
    std::thread::scope(|scope| {
        // Where no thread can be had, the index is made on this one, before the plan.
        let index = early.map(|path| {
            spawn_scoped_or_run(scope, "seqfarm-text-index", move || {
                GzipIndex::open_or_build(path, TEXT_GZIP_SPAN, None)
            })
        });
        let planned = plan();
        let index = index.map(|job| {
            job.join()
                .unwrap_or_else(|_| Err(std::io::Error::other("the pass that indexes it failed")))
        });
        let (plan, blocks) = planned?;
        if let Some(path) = path {
            index_unless_blocks(command, path, &plan, blocks, index);
        }
        Ok(plan)
    })
}

/// Whether `path` is a regular file compressed with gzip whose first member is not a
/// BGZF block (one gzip stream, or members of other sizes).
fn one_gzip_stream(path: &std::path::Path) -> bool {
    use seqfarm_io::input::{regular_file, Compression};
    use std::io::Read;
    if !matches!(regular_file(path), Some((_, Compression::Gzip))) {
        return false;
    }
    let mut head = Vec::with_capacity(1 << 16);
    let read = std::fs::File::open(path).and_then(|file| file.take(1 << 16).read_to_end(&mut head));
    read.is_ok() && seqfarm_io::bgzf::block_at(&head, 0).is_err()
}

/// On the machine that plans, when the parts of a plan would decompress `path` from its
/// start (a compressed file that is not BGZF, so that no block holds a part's start:
/// `blocks` says whether the parts' starts found some): gives a gzip file an index of
/// access points kept beside it (or in the cache directory; made in one pass, or kept
/// from an earlier plan while the file is unchanged), at which each part enters it
/// ([`Input::open_at`](seqfarm_io::input::Input::open_at)); warns when no index can be
/// kept, and for bzip2. `made` is the index already made or found during the plan, if
/// that was tried.
fn index_unless_blocks(
    command: &str,
    path: &std::path::Path,
    plan: &RegionPlan,
    blocks: bool,
    made: Option<std::io::Result<seqfarm_io::gzip_index::GzipIndex>>,
) {
    use seqfarm_io::gzip_index::GzipIndex;
    use seqfarm_io::input::{regular_file, Compression};
    let Some((_, compression)) = regular_file(path) else {
        return;
    };
    let parts = plan.parts.len();
    if compression == Compression::None || blocks || parts <= 1 {
        return;
    }
    let kind = match compression {
        Compression::Gzip => {
            match made.unwrap_or_else(|| GzipIndex::open_or_build(path, TEXT_GZIP_SPAN, None)) {
                Ok(_) => return,
                Err(e) => format!("one gzip stream, and no index of it could be kept ({e})"),
            }
        }
        _ => "one stream".to_string(),
    };
    stderr_line!(
        "seqfarm: warning: {command}: {}: compressed as {kind}, not BGZF: each of the \
         {parts} parts decompresses it from its start up to its own lines (compress it \
         with bgzip to have each part start at its own)",
        path.display()
    );
}

/// `n` items cut into at most `parts` runs of consecutive items, as even as possible
/// (none empty).
fn even_runs(n: usize, parts: usize) -> Vec<std::ops::Range<usize>> {
    let parts = parts.clamp(1, n.max(1));
    let bound = |i: usize| (n as u128 * i as u128 / parts as u128) as usize;
    (0..parts)
        .map(|i| bound(i)..bound(i + 1))
        .filter(|run| !run.is_empty())
        .collect()
}

/// `text` compressed as a region job's parts find it: in BGZF blocks of 1,000 bytes, and
/// as one gzip stream.
#[cfg(test)]
fn compressed_forms(text: &[u8]) -> (Vec<u8>, Vec<u8>) {
    use std::io::Write;
    let mut blocks = Vec::new();
    let mut compressor = seqfarm_io::bgzf_writer::BgzfCompressor::new(6);
    for piece in text.chunks(1000) {
        compressor.compress(piece, &mut blocks);
    }
    blocks.extend(seqfarm_io::bgzf::EOF_MARKER);
    // One stream of a deflate block per 8 kB (flushed), so that a plan's index of it has
    // several access points.
    let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    for piece in text.chunks(8 << 10) {
        gzip.write_all(piece).unwrap();
        gzip.flush().unwrap();
    }
    (blocks, gzip.finish().unwrap())
}

#[cfg(test)]
mod tests {
    use crate::options::FarmOptions;

    #[test]
    fn even_runs_cover_every_item_once() {
        assert_eq!(super::even_runs(10, 3), [0..3, 3..6, 6..10]);
        assert_eq!(super::even_runs(2, 5), [0..1, 1..2]);
        assert_eq!(super::even_runs(7, 0), vec![(0..7)]);
        assert!(super::even_runs(0, 4).is_empty());
    }

    #[test]
    fn one_gzip_stream_is_told_from_text_and_bgzf() {
        let dir = tempfile::tempdir().unwrap();
        let text = b"20\t1000\t2000\n".repeat(5000);
        let (blocks, stream) = super::compressed_forms(&text);
        for (name, bytes, one_stream) in [
            ("text.bed", text.clone(), false),
            ("blocks.bed.gz", blocks, false),
            ("stream.bed.gz", stream, true),
            ("empty.bed.gz", Vec::new(), false),
        ] {
            let path = dir.path().join(name);
            std::fs::write(&path, bytes).unwrap();
            assert_eq!(super::one_gzip_stream(&path), one_stream, "{name}");
        }
        assert!(!super::one_gzip_stream(&dir.path().join("absent.bed.gz")));
    }

    #[test]
    fn parts_draw_no_picture_and_write_no_statistics() {
        let farm = FarmOptions::default();
        assert!(super::refuse_plot_and_stats(Some(&"x.svg".into()), &farm).is_err());
        assert!(super::refuse_plot_and_stats(None, &farm).is_ok());
        let stats = FarmOptions {
            stats: Some("stats.json".into()),
            ..FarmOptions::default()
        };
        assert!(super::refuse_plot_and_stats(None, &stats).is_err());
    }
}
