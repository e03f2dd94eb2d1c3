//! Expected texts are bowtie2 2.5.0's standard error on small runs (20 pairs: 8
//! concordant once, 3 concordant more than once, 3 discordant, 6 whose mates aligned
//! 8 x 0, 2 x 1, 2 x >1 times; 9 unpaired reads: 3 x 0, 4 x 1, 2 x >1 times).

use seqfarm_align::{Placement, Unaligned};

use super::*;

const PAIRS: AlignedTimes = AlignedTimes {
    zero: 9,
    once: 8,
    more: 3,
};
const UNPAIRED: AlignedTimes = AlignedTimes {
    zero: 3,
    once: 4,
    more: 2,
};

fn text(counts: SummaryCounts, discordant: bool, mixed: bool) -> String {
    let mut out = Vec::new();
    write_summary(&mut out, &counts, SummaryStyle { discordant, mixed }).unwrap();
    String::from_utf8(out).unwrap()
}

fn paired(discordant: u64, mates: [u64; 3]) -> SummaryCounts {
    SummaryCounts {
        concordant: PAIRS,
        discordant,
        mates: AlignedTimes {
            zero: mates[0],
            once: mates[1],
            more: mates[2],
        },
        ..SummaryCounts::default()
    }
}

#[test]
fn unpaired_reads_only() {
    let counts = SummaryCounts {
        unpaired: UNPAIRED,
        ..SummaryCounts::default()
    };
    assert_eq!(
        text(counts, true, true),
        "9 reads; of these:
  9 (100.00%) were unpaired; of these:
    3 (33.33%) aligned 0 times
    4 (44.44%) aligned exactly 1 time
    2 (22.22%) aligned >1 times
66.67% overall alignment rate
"
    );
}

const PAIRED_DEFAULT: &str = "20 reads; of these:
  20 (100.00%) were paired; of these:
    9 (45.00%) aligned concordantly 0 times
    8 (40.00%) aligned concordantly exactly 1 time
    3 (15.00%) aligned concordantly >1 times
    ----
    9 pairs aligned concordantly 0 times; of these:
      3 (33.33%) aligned discordantly 1 time
    ----
    6 pairs aligned 0 times concordantly or discordantly; of these:
      12 mates make up the pairs; of these:
        8 (66.67%) aligned 0 times
        2 (16.67%) aligned exactly 1 time
        2 (16.67%) aligned >1 times
80.00% overall alignment rate
";

#[test]
fn pairs_only() {
    assert_eq!(text(paired(3, [8, 2, 2]), true, true), PAIRED_DEFAULT);
}

#[test]
fn pairs_and_unpaired_reads() {
    let counts = SummaryCounts {
        unpaired: UNPAIRED,
        ..paired(3, [8, 2, 2])
    };
    assert_eq!(
        text(counts, true, true),
        "29 reads; of these:
  20 (68.97%) were paired; of these:
    9 (45.00%) aligned concordantly 0 times
    8 (40.00%) aligned concordantly exactly 1 time
    3 (15.00%) aligned concordantly >1 times
    ----
    9 pairs aligned concordantly 0 times; of these:
      3 (33.33%) aligned discordantly 1 time
    ----
    6 pairs aligned 0 times concordantly or discordantly; of these:
      12 mates make up the pairs; of these:
        8 (66.67%) aligned 0 times
        2 (16.67%) aligned exactly 1 time
        2 (16.67%) aligned >1 times
  9 (31.03%) were unpaired; of these:
    3 (33.33%) aligned 0 times
    4 (44.44%) aligned exactly 1 time
    2 (22.22%) aligned >1 times
77.55% overall alignment rate
"
    );
}

#[test]
fn no_mixed_drops_the_mate_block() {
    // bowtie2 --no-mixed finds no discordant pair either (they need the mates'
    // own alignments), and the mates count as not aligned.
    assert_eq!(
        text(paired(0, [18, 0, 0]), true, false),
        "20 reads; of these:
  20 (100.00%) were paired; of these:
    9 (45.00%) aligned concordantly 0 times
    8 (40.00%) aligned concordantly exactly 1 time
    3 (15.00%) aligned concordantly >1 times
    ----
    9 pairs aligned concordantly 0 times; of these:
      0 (0.00%) aligned discordantly 1 time
55.00% overall alignment rate
"
    );
}

#[test]
fn no_discordant_drops_the_discordant_block() {
    assert_eq!(
        text(paired(0, [8, 8, 2]), false, true),
        "20 reads; of these:
  20 (100.00%) were paired; of these:
    9 (45.00%) aligned concordantly 0 times
    8 (40.00%) aligned concordantly exactly 1 time
    3 (15.00%) aligned concordantly >1 times
    ----
    9 pairs aligned 0 times concordantly or discordantly; of these:
      18 mates make up the pairs; of these:
        8 (44.44%) aligned 0 times
        8 (44.44%) aligned exactly 1 time
        2 (11.11%) aligned >1 times
80.00% overall alignment rate
"
    );
}

#[test]
fn no_mixed_and_no_discordant() {
    assert_eq!(
        text(paired(0, [18, 0, 0]), false, false),
        "20 reads; of these:
  20 (100.00%) were paired; of these:
    9 (45.00%) aligned concordantly 0 times
    8 (40.00%) aligned concordantly exactly 1 time
    3 (15.00%) aligned concordantly >1 times
55.00% overall alignment rate
"
    );
    let counts = SummaryCounts {
        unpaired: UNPAIRED,
        ..paired(0, [18, 0, 0])
    };
    assert_eq!(
        text(counts, false, false),
        "29 reads; of these:
  20 (68.97%) were paired; of these:
    9 (45.00%) aligned concordantly 0 times
    8 (40.00%) aligned concordantly exactly 1 time
    3 (15.00%) aligned concordantly >1 times
  9 (31.03%) were unpaired; of these:
    3 (33.33%) aligned 0 times
    4 (44.44%) aligned exactly 1 time
    2 (22.22%) aligned >1 times
57.14% overall alignment rate
"
    );
}

#[test]
fn no_reads() {
    let expected = "0 reads\n0.00% overall alignment rate\n";
    assert_eq!(text(SummaryCounts::default(), true, true), expected);
    assert_eq!(text(SummaryCounts::default(), false, false), expected);
}

#[test]
fn pairs_with_no_mate_block_members_print_zero_percentages() {
    // Every pair concordant: the blocks divide by zero and print 0.00%.
    let counts = SummaryCounts {
        concordant: AlignedTimes {
            zero: 0,
            once: 2,
            more: 0,
        },
        ..SummaryCounts::default()
    };
    assert_eq!(
        text(counts, true, true),
        "2 reads; of these:
  2 (100.00%) were paired; of these:
    0 (0.00%) aligned concordantly 0 times
    2 (100.00%) aligned concordantly exactly 1 time
    0 (0.00%) aligned concordantly >1 times
    ----
    0 pairs aligned concordantly 0 times; of these:
      0 (0.00%) aligned discordantly 1 time
    ----
    0 pairs aligned 0 times concordantly or discordantly; of these:
      0 mates make up the pairs; of these:
        0 (0.00%) aligned 0 times
        0 (0.00%) aligned exactly 1 time
        0 (0.00%) aligned >1 times
100.00% overall alignment rate
"
    );
}

fn aligned(second_best: Option<i32>) -> ReadResult {
    ReadResult::Aligned {
        placements: vec![Placement::default()],
        second_best,
        mapq: 42,
    }
}

fn unaligned() -> ReadResult {
    ReadResult::Unaligned(Unaligned::NoAlignment)
}

fn pair(class: PairClass, mates: [ReadResult; 2], other_pairs: bool) -> PairResult {
    PairResult {
        class,
        mates,
        other_pairs,
    }
}

#[test]
fn outcomes_are_counted_as_bowtie2_counts_them() {
    let mut task = SummaryCounts::default();
    task.add_read(&aligned(None));
    task.add_read(&aligned(Some(-10)));
    task.add_read(&unaligned());
    task.add_read(&ReadResult::Unaligned(Unaligned::TooShort));
    let both = || [aligned(None), aligned(Some(-3))];
    task.add_pair(&pair(PairClass::Concordant, both(), false));
    task.add_pair(&pair(PairClass::Concordant, both(), true));
    task.add_pair(&pair(PairClass::Discordant, both(), false));
    task.add_pair(&pair(PairClass::Unpaired, both(), false));
    task.add_pair(&pair(
        PairClass::Unpaired,
        [unaligned(), unaligned()],
        false,
    ));
    let expected = SummaryCounts {
        unpaired: AlignedTimes {
            zero: 2,
            once: 1,
            more: 1,
        },
        concordant: AlignedTimes {
            zero: 3,
            once: 1,
            more: 1,
        },
        discordant: 1,
        mates: AlignedTimes {
            zero: 2,
            once: 1,
            more: 1,
        },
    };
    assert_eq!(task, expected);
    assert_eq!(task.fragments(), 9);
    assert_eq!(task.reads(), 14);
    // 2 + 2 concordant mates, 2 discordant, 2 mates on their own, 2 unpaired reads.
    assert_eq!(task.aligned_reads(), 10);
    let mut total = SummaryCounts::default();
    total += task;
    total += task;
    assert_eq!(total.fragments(), 18);
    assert_eq!(total.discordant, 2);
    assert_eq!(total.mates.more, 2);
}
