//! bowtie2's alignment summary ("N reads; of these: ... overall alignment rate"), byte
//! for byte as bowtie2 2.5 prints it on standard error, so that pipelines and MultiQC's
//! bowtie2 module read seqfarm's summary unchanged.
//!
//! Each task counts its fragments in a [`SummaryCounts`] ([`SummaryCounts::add_read`]
//! for an unpaired read, [`SummaryCounts::add_pair`] for a pair); the collector adds the
//! tasks' counts up (`+=`) and [`write_summary`] prints the text at the end.
//!
//! What bowtie2 prints, and seqfarm with it:
//! - "reads" are fragments: a pair counts once. The percentages of "were paired" and
//!   "were unpaired" are of all fragments; those of the concordant lines of the pairs; the
//!   discordant line of the pairs not aligned concordantly; the mate lines of the mates
//!   of pairs aligned neither concordantly nor discordantly; the overall rate is of all
//!   mates and unpaired reads (a concordant or discordant pair counts its two mates).
//! - The discordant block is printed unless `--no-discordant`, the mate block unless
//!   `--no-mixed`; the pair section only when there were pairs, the unpaired section only
//!   when there were unpaired reads.
//! - No reads: "0 reads" and "0.00% overall alignment rate" (every percentage of an
//!   empty set is 0.00%).

use std::fmt::Write as _;
use std::io;
use std::ops::AddAssign;

use seqfarm_align::{PairClass, PairResult, ReadResult};

/// How often a read (or mate) aligned: bowtie2's "0 times", "exactly 1 time", ">1 times".
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AlignedTimes {
    /// Not aligned.
    pub zero: u64,
    /// Aligned at one place only.
    pub once: u64,
    /// Aligned, with another alignment elsewhere (a second-best score, `XS:i`).
    pub more: u64,
}

impl AlignedTimes {
    /// All of them.
    pub fn total(&self) -> u64 {
        self.zero + self.once + self.more
    }

    /// Those that aligned (once or more).
    pub fn aligned(&self) -> u64 {
        self.once + self.more
    }

    /// Counts one read's outcome: aligned >1 times when a second-best score exists.
    pub fn add(&mut self, result: &ReadResult) {
        match result {
            ReadResult::Aligned {
                second_best: Some(_),
                ..
            } => self.more += 1,
            ReadResult::Aligned { .. } => self.once += 1,
            ReadResult::Unaligned(_) => self.zero += 1,
        }
    }
}

impl AddAssign for AlignedTimes {
    fn add_assign(&mut self, other: Self) {
        self.zero += other.zero;
        self.once += other.once;
        self.more += other.more;
    }
}

/// The counts behind the summary: plain numbers a task fills and the collector sums.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SummaryCounts {
    /// Unpaired reads (`-U`), by how often they aligned.
    pub unpaired: AlignedTimes,
    /// Pairs, by how often they aligned concordantly (`zero` includes the discordant
    /// pairs and the pairs whose mates aligned on their own or not at all).
    pub concordant: AlignedTimes,
    /// Pairs aligned discordantly (one of `concordant.zero`).
    pub discordant: u64,
    /// Mates of the pairs aligned neither concordantly nor discordantly, by how often
    /// each aligned on its own (with `--no-mixed`, all in `zero`).
    pub mates: AlignedTimes,
}

impl SummaryCounts {
    /// Counts an unpaired read.
    pub fn add_read(&mut self, result: &ReadResult) {
        self.unpaired.add(result);
    }

    /// Counts a pair: concordant once or more often (`other_pairs`), discordant, or
    /// neither, then each mate on its own.
    pub fn add_pair(&mut self, result: &PairResult) {
        match result.class {
            PairClass::Concordant if result.other_pairs => self.concordant.more += 1,
            PairClass::Concordant => self.concordant.once += 1,
            PairClass::Discordant => {
                self.concordant.zero += 1;
                self.discordant += 1;
            }
            PairClass::Unpaired => {
                self.concordant.zero += 1;
                for mate in &result.mates {
                    self.mates.add(mate);
                }
            }
        }
    }

    /// Fragments seen: pairs and unpaired reads (bowtie2's "N reads").
    pub fn fragments(&self) -> u64 {
        self.pairs() + self.unpaired.total()
    }

    /// Pairs seen.
    pub fn pairs(&self) -> u64 {
        self.concordant.total()
    }

    /// Mates and unpaired reads that aligned (the numerator of the overall rate).
    pub fn aligned_reads(&self) -> u64 {
        2 * (self.concordant.aligned() + self.discordant)
            + self.mates.aligned()
            + self.unpaired.aligned()
    }

    /// Mates and unpaired reads (the denominator of the overall rate).
    pub fn reads(&self) -> u64 {
        2 * self.pairs() + self.unpaired.total()
    }
}

impl AddAssign for SummaryCounts {
    fn add_assign(&mut self, other: Self) {
        self.unpaired += other.unpaired;
        self.concordant += other.concordant;
        self.discordant += other.discordant;
        self.mates += other.mates;
    }
}

/// Which optional blocks the summary has (they follow the pairing options, not the
/// counts: bowtie2 prints "0 (0.00%) aligned discordantly 1 time" when none was).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SummaryStyle {
    /// The discordant block ("pairs aligned concordantly 0 times; of these:"); cleared
    /// by `--no-discordant`.
    pub discordant: bool,
    /// The mate block ("pairs aligned 0 times concordantly or discordantly; of
    /// these:"); cleared by `--no-mixed`.
    pub mixed: bool,
}

impl SummaryStyle {
    /// The blocks a run with `pairing` prints.
    pub fn for_pairing(pairing: &seqfarm_align::PairParams) -> Self {
        Self {
            discordant: pairing.discordant,
            mixed: pairing.mixed,
        }
    }
}

impl Default for SummaryStyle {
    fn default() -> Self {
        Self {
            discordant: true,
            mixed: true,
        }
    }
}

/// `100 * part / whole` with two decimals and a `%`, 0.00% when `whole` is 0.
fn percent(part: u64, whole: u64) -> String {
    let pct = if whole == 0 {
        0.0
    } else {
        100.0 * part as f64 / whole as f64
    };
    format!("{pct:.2}%")
}

/// The "0 times / exactly 1 time / >1 times" lines, indented by `indent` spaces.
fn times_lines(text: &mut String, indent: &str, times: &AlignedTimes, whole: u64, what: &str) {
    for (n, label) in [
        (times.zero, "0 times"),
        (times.once, "exactly 1 time"),
        (times.more, ">1 times"),
    ] {
        let _ = writeln!(
            text,
            "{indent}{n} ({}) aligned {what}{label}",
            percent(n, whole)
        );
    }
}

/// The summary text, exactly as bowtie2 prints it.
pub fn summary_text(counts: &SummaryCounts, style: SummaryStyle) -> String {
    let mut text = String::new();
    let fragments = counts.fragments();
    if fragments > 0 {
        let _ = writeln!(text, "{fragments} reads; of these:");
    } else {
        let _ = writeln!(text, "0 reads");
    }
    let pairs = counts.pairs();
    if pairs > 0 {
        let _ = writeln!(
            text,
            "  {pairs} ({}) were paired; of these:",
            percent(pairs, fragments)
        );
        times_lines(
            &mut text,
            "    ",
            &counts.concordant,
            pairs,
            "concordantly ",
        );
        let not_concordant = counts.concordant.zero;
        if style.discordant {
            let _ = writeln!(text, "    ----");
            let _ = writeln!(
                text,
                "    {not_concordant} pairs aligned concordantly 0 times; of these:"
            );
            let _ = writeln!(
                text,
                "      {} ({}) aligned discordantly 1 time",
                counts.discordant,
                percent(counts.discordant, not_concordant)
            );
        }
        if style.mixed {
            let neither = not_concordant - counts.discordant;
            let _ = writeln!(text, "    ----");
            let _ = writeln!(
                text,
                "    {neither} pairs aligned 0 times concordantly or discordantly; of these:"
            );
            let _ = writeln!(
                text,
                "      {} mates make up the pairs; of these:",
                2 * neither
            );
            times_lines(&mut text, "        ", &counts.mates, 2 * neither, "");
        }
    }
    let unpaired = counts.unpaired.total();
    if unpaired > 0 {
        let _ = writeln!(
            text,
            "  {unpaired} ({}) were unpaired; of these:",
            percent(unpaired, fragments)
        );
        times_lines(&mut text, "    ", &counts.unpaired, unpaired, "");
    }
    let _ = writeln!(
        text,
        "{} overall alignment rate",
        percent(counts.aligned_reads(), counts.reads())
    );
    text
}

/// Writes the summary to `out` (standard error in `seqfarm align`).
pub fn write_summary(
    out: &mut impl io::Write,
    counts: &SummaryCounts,
    style: SummaryStyle,
) -> io::Result<()> {
    out.write_all(summary_text(counts, style).as_bytes())
}

#[cfg(test)]
mod tests;
