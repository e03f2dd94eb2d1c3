use seqfarm_core::cigar::{BamCigar, CigarOp};
use seqfarm_core::flags::*;

use super::*;

/// One record of a test file.
struct Rec {
    name: &'static str,
    flag: u16,
    ref_id: i32,
    pos: i32,
    mate_ref: i32,
    cigar: Vec<u8>,
    qual: Vec<u8>,
    rg: Option<&'static str>,
}

fn matched(len: u32) -> Vec<u8> {
    CigarOp::Match.word(len).to_le_bytes().to_vec()
}

fn rec(name: &'static str, flag: u16, pos: i32, qual: u8) -> Rec {
    Rec {
        name,
        flag,
        ref_id: 0,
        pos,
        mate_ref: if flag & PAIRED != 0 { 0 } else { -1 },
        cigar: matched(10),
        qual: vec![qual; 10],
        rg: None,
    }
}

/// The duplicates among `records` (indexes) and the counts of each library, found
/// with everything in memory and again with every read end written to a run: both
/// must agree.
fn run(records: &[Rec], groups: &[(Vec<u8>, Option<String>)]) -> (Vec<u64>, Vec<LibraryCounts>) {
    let libraries = Libraries::new(groups);
    let in_memory = DuplicateFinder::in_memory(libraries.clone(), MarkdupRules::default());
    let (found, _) = run_with(in_memory, records, &libraries);
    let store = Box::<MemoryRuns>::default();
    let spilling = DuplicateFinder::new(libraries.clone(), MarkdupRules::default(), 0, store);
    let (spilled, runs) = run_with(spilling, records, &libraries);
    assert_eq!(spilled, found);
    let skipped = UNMAPPED | SECONDARY | SUPPLEMENTARY;
    if records.iter().any(|r| r.flag & skipped == 0) {
        assert!(runs > 0, "nothing was written to a run");
    }
    found
}

/// [`run`] with one finder; also the runs it wrote.
fn run_with(
    mut finder: DuplicateFinder,
    records: &[Rec],
    libraries: &Libraries,
) -> ((Vec<u64>, Vec<LibraryCounts>), usize) {
    fn facts(r: &Rec) -> ReadFacts<'_> {
        ReadFacts {
            flag: r.flag,
            ref_id: r.ref_id,
            pos: r.pos,
            mate_ref_id: r.mate_ref,
            cigar: BamCigar::new(&r.cigar),
            qualities: &r.qual,
            name: r.name.as_bytes(),
            read_group: r.rg.map(str::as_bytes),
        }
    }
    for r in records {
        finder.add(&facts(r)).unwrap();
    }
    let runs = finder.runs();
    let mut decisions = finder.finish().unwrap();
    let mut counts = vec![LibraryCounts::default(); libraries.names().len()];
    let mut duplicates = Vec::new();
    let mut cursor = decisions.cursor().unwrap();
    for (i, r) in records.iter().enumerate() {
        let duplicate = cursor.next_is_duplicate().unwrap();
        if duplicate {
            duplicates.push(i as u64);
        }
        counts[usize::from(libraries.library(r.rg.map(str::as_bytes)))].count(r.flag, duplicate);
    }
    decisions.add_optical(&mut counts);
    ((duplicates, counts), runs)
}

const P1: u16 = PAIRED | READ1 | MATE_REVERSE;
const P2: u16 = PAIRED | READ2 | REVERSE;

#[test]
fn the_better_pair_stays() {
    let records = [
        rec("a", P1, 100, 20),
        rec("b", P1, 100, 30),
        rec("a", P2, 300, 20),
        rec("b", P2, 300, 30),
    ];
    let (dups, counts) = run(&records, &[]);
    assert_eq!(dups, [0, 2]);
    let c = &counts[0];
    assert_eq!((c.paired_reads, c.paired_duplicates), (4, 2));
    assert_eq!(c.row().pairs, 2);
}

#[test]
fn ties_go_to_the_first_in_file_order_without_locations() {
    let records = [
        rec("b", P1, 100, 30),
        rec("a", P1, 100, 30),
        rec("b", P2, 300, 30),
        rec("a", P2, 300, 30),
    ];
    assert_eq!(run(&records, &[]).0, [1, 3]);
}

#[test]
fn ties_go_to_the_lowest_tile_then_x_then_y() {
    let records = [
        rec("M:1:F:1:2:10:10", P1, 100, 30),
        rec("M:1:F:1:1:900:900", P1, 100, 30),
        rec("M:1:F:1:2:10:10", P2, 300, 30),
        rec("M:1:F:1:1:900:900", P2, 300, 30),
    ];
    assert_eq!(run(&records, &[]).0, [0, 2]);
}

#[test]
fn reverse_reads_meet_at_their_unclipped_ends() {
    // Aligned ends 310 and 305, unclipped both 310.
    let mut clipped = rec("b", P2, 300, 30);
    clipped.cigar = [CigarOp::Match.word(5), CigarOp::SoftClip.word(5)]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    let records = [
        rec("a", P1, 100, 20),
        rec("b", P1, 100, 30),
        rec("a", P2, 300, 20),
        clipped,
    ];
    assert_eq!(run(&records, &[]).0, [0, 2]);
}

#[test]
fn fragments_at_a_pairs_end_are_duplicates() {
    let records = [
        rec("a", P1, 100, 20),
        rec("f", 0, 100, 40),
        rec("g", 0, 100, 40),
        rec("a", P2, 300, 20),
        rec("h", REVERSE, 300, 10),
        rec("i", REVERSE, 300, 20),
    ];
    let (dups, counts) = run(&records, &[]);
    // f and g at the pair's first end; h and i at its second end.
    assert_eq!(dups, [1, 2, 4, 5]);
    assert_eq!(counts[0].unpaired_duplicates, 4);
    assert_eq!(counts[0].row().pair_duplicates, 0);
}

#[test]
fn reads_with_an_unmapped_mate_are_fragments() {
    let unmapped = rec("a", PAIRED | READ2 | UNMAPPED, 100, 30);
    let records = [
        rec("a", PAIRED | READ1 | MATE_UNMAPPED, 100, 30),
        unmapped,
        rec("b", PAIRED | READ1 | MATE_UNMAPPED, 100, 20),
        rec("c", 0, 100, 25),
    ];
    let (dups, counts) = run(&records, &[]);
    assert_eq!(dups, [2, 3]);
    let c = &counts[0];
    assert_eq!(
        (c.unpaired_reads, c.unmapped, c.unpaired_duplicates),
        (3, 1, 2)
    );
}

#[test]
fn secondary_and_supplementary_records_are_never_duplicates() {
    let records = [
        rec("a", P1, 100, 20),
        rec("b", P1, 100, 30),
        rec("a", P1 | SUPPLEMENTARY, 150, 20),
        rec("a", P1 | SECONDARY, 160, 20),
        rec("a", P2, 300, 20),
        rec("b", P2, 300, 30),
    ];
    let (dups, counts) = run(&records, &[]);
    assert_eq!(dups, [0, 4]);
    assert_eq!(counts[0].secondary_or_supplementary, 2);
}

#[test]
fn libraries_are_apart_and_named_by_lb() {
    let groups = vec![
        (b"g1".to_vec(), Some("libB".to_string())),
        (b"g2".to_vec(), Some("libA".to_string())),
    ];
    let mut records = vec![
        rec("a", P1, 100, 20),
        rec("b", P1, 100, 30),
        rec("a", P2, 300, 20),
        rec("b", P2, 300, 30),
    ];
    records[0].rg = Some("g1");
    records[2].rg = Some("g1");
    records[1].rg = Some("g2");
    records[3].rg = Some("g2");
    let (dups, counts) = run(&records, &groups);
    assert!(dups.is_empty());
    let libraries = Libraries::new(&groups);
    assert_eq!(libraries.names(), ["Unknown Library", "libA", "libB"]);
    let table = library_table(&libraries, &counts);
    assert_eq!(table.keys().collect::<Vec<_>>(), ["libA", "libB"]);
}

#[test]
fn optical_duplicates_are_counted_not_flagged_apart() {
    let records = [
        rec("M:1:F:1:1101:1000:1000", P1, 100, 30),
        rec("M:1:F:1:1101:1050:1050", P1, 100, 20),
        rec("M:1:F:1:1101:5000:5000", P1, 100, 10),
        rec("M:1:F:1:1101:1000:1000", P2, 300, 30),
        rec("M:1:F:1:1101:1050:1050", P2, 300, 20),
        rec("M:1:F:1:1101:5000:5000", P2, 300, 10),
    ];
    let (dups, counts) = run(&records, &[]);
    assert_eq!(dups, [1, 2, 4, 5]);
    assert_eq!(counts[0].optical_pairs, 1);
}

#[test]
fn unplaced_unmapped_reads_end_the_search() {
    let mut tail = rec("z", UNMAPPED, -1, 30);
    tail.ref_id = -1;
    let records = [rec("a", 0, 100, 30), tail, rec("b", 0, 100, 20)];
    // Nothing after the first unplaced read is looked at.
    assert!(run(&records, &[]).0.is_empty());
}

#[test]
fn mates_on_later_references_pair_across_them() {
    let on = |mut r: Rec, ref_id: i32, mate_ref: i32| {
        r.ref_id = ref_id;
        r.mate_ref = mate_ref;
        r
    };
    let records = [
        on(rec("a", P1, 100, 20), 0, 2),
        on(rec("b", P1, 100, 30), 0, 2),
        on(rec("c", P1, 100, 30), 0, 1),
        on(rec("lost", P1, 200, 30), 0, 3),
        on(rec("c", P2, 40, 30), 1, 0),
        on(rec("a", P2, 50, 20), 2, 0),
        on(rec("b", P2, 50, 30), 2, 0),
    ];
    let (dups, counts) = run(&records, &[]);
    assert_eq!(dups, [0, 5]);
    let unknown = &counts[0];
    assert_eq!(unknown.paired_duplicates, 2);
    assert_eq!(unknown.paired_reads, 7);
}
