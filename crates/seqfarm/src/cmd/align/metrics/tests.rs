use std::sync::{Arc, Mutex};

use seqfarm_align::{PairClass, Placement, Unaligned};
use seqfarm_io::output::Overwrite;

use super::*;
use crate::cmd::align::summary::AlignedTimes;

/// The first line of `bowtie2 --met-file` (2.5.0, built without memory tallies).
const BOWTIE2_HEADER: &str =
    "Time\tRead\tBase\tSameRead\tSameReadBase\tUnfilteredRead\tUnfilteredBase\t\
     Paired\tUnpaired\tAlConUni\tAlConRep\tAlConFail\tAlDis\tAlConFailUni\t\
     AlConFailRep\tAlConFailFail\tAlConRepUni\tAlConRepRep\tAlConRepFail\tAlUnpUni\t\
     AlUnpRep\tAlUnpFail\tSeedSearch\tNRange\tNElt\tIntraSCacheHit\tInterSCacheHit\t\
     OutOfMemory\tAlBWOp\tAlBWBranch\tResBWOp\tResBWBranch\tResResolve\tResReport\t\
     RedundantSHit\tBestMinEdit0\tBestMinEdit1\tBestMinEdit2\tExactAttempts\t\
     ExactSucc\tExactRanges\tExactRows\tExactOOMs\t1mmAttempts\t1mmSucc\t1mmRanges\t\
     1mmRows\t1mmOOMs\tUngappedSucc\tUngappedFail\tUngappedNoDec\tDPExLt10Gaps\t\
     DPExLt5Gaps\tDPExLt3Gaps\tDPMateLt10Gaps\tDPMateLt5Gaps\tDPMateLt3Gaps\t\
     DP16ExDps\tDP16ExDpSat\tDP16ExDpFail\tDP16ExDpSucc\tDP16ExCol\tDP16ExCell\t\
     DP16ExInner\tDP16ExFixup\tDP16ExGathSol\tDP16ExBt\tDP16ExBtFail\tDP16ExBtSucc\t\
     DP16ExBtCell\tDP16ExCoreRej\tDP16ExNRej\tDP8ExDps\tDP8ExDpSat\tDP8ExDpFail\t\
     DP8ExDpSucc\tDP8ExCol\tDP8ExCell\tDP8ExInner\tDP8ExFixup\tDP8ExGathSol\t\
     DP8ExBt\tDP8ExBtFail\tDP8ExBtSucc\tDP8ExBtCell\tDP8ExCoreRej\tDP8ExNRej\t\
     DP16MateDps\tDP16MateDpSat\tDP16MateDpFail\tDP16MateDpSucc\tDP16MateCol\t\
     DP16MateCell\tDP16MateInner\tDP16MateFixup\tDP16MateGathSol\tDP16MateBt\t\
     DP16MateBtFail\tDP16MateBtSucc\tDP16MateBtCell\tDP16MateCoreRej\tDP16MateNRej\t\
     DP8MateDps\tDP8MateDpSat\tDP8MateDpFail\tDP8MateDpSucc\tDP8MateCol\t\
     DP8MateCell\tDP8MateInner\tDP8MateFixup\tDP8MateGathSol\tDP8MateBt\t\
     DP8MateBtFail\tDP8MateBtSucc\tDP8MateBtCell\tDP8MateCoreRej\tDP8MateNRej\t\
     DPBtFiltStart\tDPBtFiltScore\tDpBtFiltDom\t\n";

/// A writer the test can read back.
#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Shared {
    fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }
}

/// The counts of a run of 20 pairs and 9 unpaired reads of 100 bases (the run the
/// summary tests quote).
fn run_counts() -> MetricsCounts {
    MetricsCounts {
        input: InputCounts {
            fragments: 29,
            bases: 4900,
            unfiltered_reads: 49,
            unfiltered_bases: 4900,
        },
        summary: SummaryCounts {
            unpaired: AlignedTimes {
                zero: 3,
                once: 4,
                more: 2,
            },
            concordant: AlignedTimes {
                zero: 9,
                once: 8,
                more: 3,
            },
            discordant: 3,
            mates: AlignedTimes {
                zero: 8,
                once: 2,
                more: 2,
            },
        },
    }
}

fn fields(line: &str) -> Vec<&str> {
    let fields: Vec<&str> = line.split('\t').collect();
    assert_eq!(fields.len(), 121, "120 columns, each followed by a tab");
    assert_eq!(fields[120], "");
    fields
}

#[test]
fn header_is_bowtie2s() {
    assert_eq!(header_line(), BOWTIE2_HEADER);
    assert_eq!(COLUMNS.len(), 120);
}

#[test]
fn rows_fill_the_columns_seqfarm_has() {
    let line = row(1_700_000_000, &run_counts().columns());
    assert!(line.ends_with("\t\n"));
    let f = fields(line.trim_end_matches('\n'));
    let value = |name: &str| f[COLUMNS.iter().position(|c| *c == name).unwrap()];
    assert_eq!(value("Time"), "1700000000");
    // bowtie2 2.5.0 on that run: Read 29, Base 4900, UnfilteredRead 49,
    // UnfilteredBase 4900.
    for (name, expected) in [
        ("Read", "29"),
        ("Base", "4900"),
        ("SameRead", "0"),
        ("UnfilteredRead", "49"),
        ("UnfilteredBase", "4900"),
        ("Paired", "20"),
        ("Unpaired", "9"),
        ("AlConUni", "11"),
        ("AlConRep", "0"),
        ("AlConFail", "9"),
        ("AlDis", "3"),
        ("AlConFailUni", "4"),
        ("AlConFailFail", "8"),
        ("AlUnpUni", "6"),
        ("AlUnpRep", "0"),
        ("AlUnpFail", "3"),
        ("SeedSearch", "0"),
        ("DpBtFiltDom", "0"),
    ] {
        assert_eq!(value(name), expected, "{name}");
    }
}

#[test]
fn lines_come_every_interval_with_the_counts_since_the_last() {
    let echo = Shared::default();
    let mut reporter =
        MetricsReporter::new(None, Some(Box::new(echo.clone())), Duration::from_secs(2));
    let start = reporter.last_line;
    let half = run_counts();
    let mut totals = half;
    reporter
        .update_at(start + Duration::from_secs(1), 11, &totals)
        .unwrap();
    assert_eq!(echo.text(), "", "not before the interval");
    reporter
        .update_at(start + Duration::from_secs(2), 12, &totals)
        .unwrap();
    totals += half;
    reporter
        .update_at(start + Duration::from_secs(3), 13, &totals)
        .unwrap();
    reporter
        .update_at(start + Duration::from_secs(4), 14, &totals)
        .unwrap();
    reporter.finish_at(15, &totals).unwrap();
    let text = echo.text();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4, "{text}");
    assert_eq!(format!("{}\n", lines[0]), BOWTIE2_HEADER);
    let (first, second, last) = (fields(lines[1]), fields(lines[2]), fields(lines[3]));
    assert_eq!(first[..3], ["12", "29", "4900"]);
    assert_eq!(second[..3], ["14", "29", "4900"], "the increment");
    assert_eq!(last[..3], ["15", "58", "9800"], "the totals");
    assert_eq!(
        last[COLUMNS.iter().position(|c| *c == "AlDis").unwrap()],
        "6"
    );
}

#[test]
fn the_file_appears_when_the_run_ends() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("met.tsv");
    let file = Output::create(&path, Overwrite::Refuse).unwrap();
    let mut reporter = MetricsReporter::new(Some(file), None, Duration::ZERO);
    reporter.update(&run_counts()).unwrap();
    assert!(!path.exists());
    reporter.finish(&run_counts()).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(fields(lines[1])[1..], fields(lines[2])[1..]);
}

#[test]
fn without_a_destination_nothing_happens() {
    let mut reporter = MetricsReporter::new(None, None, Duration::ZERO);
    assert!(!reporter.active());
    reporter.update(&run_counts()).unwrap();
    reporter.finish(&run_counts()).unwrap();
}

#[test]
fn input_counts_leave_filtered_reads_out_of_the_unfiltered_columns() {
    let aligned = ReadResult::Aligned {
        placements: vec![Placement::default()],
        second_best: None,
        mapq: 1,
    };
    let mut counts = InputCounts::default();
    counts.add_read(100, &aligned);
    counts.add_read(0, &ReadResult::Unaligned(Unaligned::TooShort));
    counts.add_pair(
        [150, 120],
        &PairResult {
            class: PairClass::Unpaired,
            mates: [aligned.clone(), ReadResult::Unaligned(Unaligned::TooManyNs)],
            other_pairs: false,
        },
    );
    let expected = InputCounts {
        fragments: 3,
        bases: 370,
        unfiltered_reads: 2,
        unfiltered_bases: 250,
    };
    assert_eq!(counts, expected);
    let mut sum = counts;
    sum += counts;
    assert_eq!(sum.bases, 740);
}
