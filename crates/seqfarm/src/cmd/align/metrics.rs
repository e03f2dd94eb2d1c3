//! bowtie2's metrics table (`--met-file <path>`, `--met-stderr`, `--met <secs>`): a
//! tab-separated header, then one line every `--met` seconds with the counts of that
//! interval, and a last line with the totals of the run.
//!
//! The header is bowtie2 2.5's 120 columns, each followed by a tab. seqfarm fills the
//! columns it has a counterpart for and writes 0 in the others:
//!
//! | column | meaning in seqfarm |
//! | --- | --- |
//! | Time | seconds since 1970 when the line was written |
//! | Read, Base | fragments (a pair counts once) and their bases (both mates) |
//! | SameRead, SameReadBase | 0: bowtie2 counts reads identical to the one before; seqfarm does not look |
//! | UnfilteredRead, UnfilteredBase | mates and unpaired reads, and their bases, not filtered out (empty, or more N than `--n-ceil`) |
//! | Paired, Unpaired | pairs; unpaired reads |
//! | AlConUni | pairs aligned concordantly (once or more: seqfarm has no `-M` ceiling) |
//! | AlConRep | 0: pairs over bowtie2's `-M` ceiling |
//! | AlConFail, AlDis | pairs not aligned concordantly; of them, aligned discordantly |
//! | AlConFailUni, AlConFailFail | mates of pairs aligned neither way that aligned / did not |
//! | AlConFailRep, AlConRepUni, AlConRepRep, AlConRepFail | 0 (`-M` ceiling) |
//! | AlUnpUni, AlUnpFail | unpaired reads that aligned / did not |
//! | AlUnpRep | 0 (`-M` ceiling) |
//! | SeedSearch ... DpBtFiltDom (23-120) | 0: counters of bowtie2's seed search and SSE dynamic programming, which seqfarm's search does not have |
//!
//! Interval lines hold the counts since the previous line; the last line holds the
//! totals (bowtie2 2.5.0 leaves the reporting columns 8-22 at 0 in that last line;
//! seqfarm fills them). The `--met-file` file is an [`Output`]: complete, under its name,
//! only once the run has succeeded; `--met-stderr` shows the lines as they come.
//!
//! ```ignore
//! let file = options.met_file.as_ref().map(|p| Output::create(p, overwrite)).transpose()?;
//! let echo = options.met_stderr.then(|| Box::new(LossyStderr) as Box<dyn Write + Send>);
//! let mut metrics = MetricsReporter::new(file, echo, Duration::from_secs(options.met_interval));
//! // collector, after adding each task's counts to `totals` (a MetricsCounts):
//! metrics.update(&totals)?;
//! // at the end, the file committed with the run's other outputs:
//! let file = metrics.last_line(&totals)?;
//! ```

use std::io::Write;
use std::ops::AddAssign;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use seqfarm_align::{PairResult, ReadResult};
use seqfarm_io::output::Output;

use super::summary::SummaryCounts;

/// bowtie2 2.5's column names, in order.
pub const COLUMNS: [&str; 120] = [
    "Time",
    "Read",
    "Base",
    "SameRead",
    "SameReadBase",
    "UnfilteredRead",
    "UnfilteredBase",
    "Paired",
    "Unpaired",
    "AlConUni",
    "AlConRep",
    "AlConFail",
    "AlDis",
    "AlConFailUni",
    "AlConFailRep",
    "AlConFailFail",
    "AlConRepUni",
    "AlConRepRep",
    "AlConRepFail",
    "AlUnpUni",
    "AlUnpRep",
    "AlUnpFail",
    "SeedSearch",
    "NRange",
    "NElt",
    "IntraSCacheHit",
    "InterSCacheHit",
    "OutOfMemory",
    "AlBWOp",
    "AlBWBranch",
    "ResBWOp",
    "ResBWBranch",
    "ResResolve",
    "ResReport",
    "RedundantSHit",
    "BestMinEdit0",
    "BestMinEdit1",
    "BestMinEdit2",
    "ExactAttempts",
    "ExactSucc",
    "ExactRanges",
    "ExactRows",
    "ExactOOMs",
    "1mmAttempts",
    "1mmSucc",
    "1mmRanges",
    "1mmRows",
    "1mmOOMs",
    "UngappedSucc",
    "UngappedFail",
    "UngappedNoDec",
    "DPExLt10Gaps",
    "DPExLt5Gaps",
    "DPExLt3Gaps",
    "DPMateLt10Gaps",
    "DPMateLt5Gaps",
    "DPMateLt3Gaps",
    "DP16ExDps",
    "DP16ExDpSat",
    "DP16ExDpFail",
    "DP16ExDpSucc",
    "DP16ExCol",
    "DP16ExCell",
    "DP16ExInner",
    "DP16ExFixup",
    "DP16ExGathSol",
    "DP16ExBt",
    "DP16ExBtFail",
    "DP16ExBtSucc",
    "DP16ExBtCell",
    "DP16ExCoreRej",
    "DP16ExNRej",
    "DP8ExDps",
    "DP8ExDpSat",
    "DP8ExDpFail",
    "DP8ExDpSucc",
    "DP8ExCol",
    "DP8ExCell",
    "DP8ExInner",
    "DP8ExFixup",
    "DP8ExGathSol",
    "DP8ExBt",
    "DP8ExBtFail",
    "DP8ExBtSucc",
    "DP8ExBtCell",
    "DP8ExCoreRej",
    "DP8ExNRej",
    "DP16MateDps",
    "DP16MateDpSat",
    "DP16MateDpFail",
    "DP16MateDpSucc",
    "DP16MateCol",
    "DP16MateCell",
    "DP16MateInner",
    "DP16MateFixup",
    "DP16MateGathSol",
    "DP16MateBt",
    "DP16MateBtFail",
    "DP16MateBtSucc",
    "DP16MateBtCell",
    "DP16MateCoreRej",
    "DP16MateNRej",
    "DP8MateDps",
    "DP8MateDpSat",
    "DP8MateDpFail",
    "DP8MateDpSucc",
    "DP8MateCol",
    "DP8MateCell",
    "DP8MateInner",
    "DP8MateFixup",
    "DP8MateGathSol",
    "DP8MateBt",
    "DP8MateBtFail",
    "DP8MateBtSucc",
    "DP8MateBtCell",
    "DP8MateCoreRej",
    "DP8MateNRej",
    "DPBtFiltStart",
    "DPBtFiltScore",
    "DpBtFiltDom",
];

/// Columns seqfarm fills after Time: Read (2) to AlUnpFail (22).
const FILLED: usize = 21;

/// The input volume behind the Read, Base and Unfiltered columns, per task, summed by
/// the collector.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct InputCounts {
    /// Fragments: pairs and unpaired reads.
    pub fragments: u64,
    /// Bases of all mates and unpaired reads.
    pub bases: u64,
    /// Mates and unpaired reads not filtered out before alignment.
    pub unfiltered_reads: u64,
    /// Their bases.
    pub unfiltered_bases: u64,
}

impl InputCounts {
    fn add_mate(&mut self, len: usize, result: &ReadResult) {
        self.bases += len as u64;
        let filtered = matches!(result, ReadResult::Unaligned(why) if why.filtered());
        if !filtered {
            self.unfiltered_reads += 1;
            self.unfiltered_bases += len as u64;
        }
    }

    /// Counts an unpaired read of `len` bases.
    pub fn add_read(&mut self, len: usize, result: &ReadResult) {
        self.fragments += 1;
        self.add_mate(len, result);
    }

    /// Counts a pair whose mates have `lens` bases.
    pub fn add_pair(&mut self, lens: [usize; 2], result: &PairResult) {
        self.fragments += 1;
        for (len, mate) in lens.into_iter().zip(&result.mates) {
            self.add_mate(len, mate);
        }
    }
}

impl AddAssign for InputCounts {
    fn add_assign(&mut self, other: Self) {
        self.fragments += other.fragments;
        self.bases += other.bases;
        self.unfiltered_reads += other.unfiltered_reads;
        self.unfiltered_bases += other.unfiltered_bases;
    }
}

/// Everything a metrics line reports: the input volume and the summary counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MetricsCounts {
    /// Fragments and bases.
    pub input: InputCounts,
    /// How they aligned.
    pub summary: SummaryCounts,
}

impl AddAssign for MetricsCounts {
    fn add_assign(&mut self, other: Self) {
        self.input += other.input;
        self.summary += other.summary;
    }
}

impl MetricsCounts {
    /// Columns 2 (Read) to 22 (AlUnpFail).
    fn columns(&self) -> [u64; FILLED] {
        let (i, s) = (&self.input, &self.summary);
        [
            i.fragments,
            i.bases,
            0,
            0,
            i.unfiltered_reads,
            i.unfiltered_bases,
            s.pairs(),
            s.unpaired.total(),
            s.concordant.aligned(),
            0,
            s.concordant.zero,
            s.discordant,
            s.mates.aligned(),
            0,
            s.mates.zero,
            0,
            0,
            0,
            s.unpaired.aligned(),
            0,
            s.unpaired.zero,
        ]
    }
}

/// The header line: every column name followed by a tab.
pub fn header_line() -> String {
    let mut line: String = COLUMNS.iter().map(|c| format!("{c}\t")).collect();
    line.push('\n');
    line
}

/// One line: `time`, the 21 filled columns, zeros for the rest, each followed by a tab.
fn row(time: u64, columns: &[u64; FILLED]) -> String {
    let mut line = format!("{time}\t");
    for value in columns {
        line.push_str(&format!("{value}\t"));
    }
    for _ in 1 + FILLED..COLUMNS.len() {
        line.push_str("0\t");
    }
    line.push('\n');
    line
}

fn unix_seconds() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Writes the metrics table to a file and/or a copy (standard error) as the run goes.
pub struct MetricsReporter {
    file: Option<Output>,
    echo: Option<Box<dyn Write + Send>>,
    interval: Duration,
    last_line: Instant,
    reported: [u64; FILLED],
    header_written: bool,
}

impl MetricsReporter {
    /// A reporter writing to `file` (`--met-file`) and/or `echo` (`--met-stderr`) every
    /// `interval` (`--met`, bowtie2's default 1 s).
    pub fn new(
        file: Option<Output>,
        echo: Option<Box<dyn Write + Send>>,
        interval: Duration,
    ) -> Self {
        Self {
            file,
            echo,
            interval,
            last_line: Instant::now(),
            reported: [0; FILLED],
            header_written: false,
        }
    }

    /// Whether it writes anywhere (else the caller may skip the counting).
    pub fn active(&self) -> bool {
        self.file.is_some() || self.echo.is_some()
    }

    /// Given the run's totals so far, writes a line of the counts since the previous
    /// line if `interval` has passed since it.
    pub fn update(&mut self, totals: &MetricsCounts) -> seqfarm_io::Result<()> {
        self.update_at(Instant::now(), unix_seconds(), totals)
    }

    fn update_at(
        &mut self,
        now: Instant,
        time: u64,
        totals: &MetricsCounts,
    ) -> seqfarm_io::Result<()> {
        if !self.active() || now.duration_since(self.last_line) < self.interval {
            return Ok(());
        }
        let columns = totals.columns();
        let mut delta = [0; FILLED];
        for (d, (now, before)) in delta.iter_mut().zip(columns.iter().zip(&self.reported)) {
            *d = now - before;
        }
        self.reported = columns;
        self.last_line = now;
        self.put(&row(time, &delta))
    }

    /// Writes the last line (the run's totals) and commits the file.
    #[cfg(test)]
    pub fn finish(self, totals: &MetricsCounts) -> seqfarm_io::Result<()> {
        match self.last_line(totals)? {
            Some(file) => file.commit(),
            None => Ok(()),
        }
    }

    /// Writes the last line (the run's totals); returns the file, to commit with the
    /// run's other outputs (`None` without `--met-file`).
    pub fn last_line(mut self, totals: &MetricsCounts) -> seqfarm_io::Result<Option<Output>> {
        self.finish_at(unix_seconds(), totals)
    }

    fn finish_at(
        &mut self,
        time: u64,
        totals: &MetricsCounts,
    ) -> seqfarm_io::Result<Option<Output>> {
        if !self.active() {
            return Ok(None);
        }
        self.put(&row(time, &totals.columns()))?;
        Ok(self.file.take())
    }

    fn put(&mut self, line: &str) -> seqfarm_io::Result<()> {
        let mut text = String::new();
        if !self.header_written {
            text.push_str(&header_line());
            self.header_written = true;
        }
        text.push_str(line);
        if let Some(file) = &mut self.file {
            file.put(text.as_bytes())?;
        }
        if let Some(echo) = &mut self.echo {
            echo.write_all(text.as_bytes())
                .and_then(|()| echo.flush())
                .map_err(|e| seqfarm_io::Error::io("-", e))?;
        }
        Ok(())
    }
}

impl std::fmt::Debug for MetricsReporter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MetricsReporter")
            .field("file", &self.file.as_ref().map(Output::path))
            .field("echo", &self.echo.is_some())
            .field("interval", &self.interval)
            .finish()
    }
}

#[cfg(test)]
mod tests;
