use seqfarm_core::cigar::BamCigar;

use super::super::cigar::tests::pack;
use super::*;

/// An owned read for building [`AlignedRead`]s.
struct TestRead {
    pos: i64,
    flag: u16,
    name: Vec<u8>,
    cigar: Vec<u8>,
    seq: Vec<u8>,
    seq_len: usize,
    qual: Vec<u8>,
    mate_pos: i64,
    tlen: i64,
}

fn read(name: &str, pos: i64, ops: &[(u8, u32)], bases: &[u8], qual: u8) -> TestRead {
    let code = |b: u8| super::super::base_code(b).unwrap();
    TestRead {
        pos,
        flag: 0,
        name: name.as_bytes().to_vec(),
        cigar: pack(ops),
        seq: bases
            .chunks(2)
            .map(|p| (code(p[0]) << 4) | p.get(1).map_or(0, |&b| code(b)))
            .collect(),
        seq_len: bases.len(),
        qual: vec![qual; bases.len()],
        mate_pos: -1,
        tlen: 0,
    }
}

impl TestRead {
    fn paired(mut self, mate_pos: i64, tlen: i64) -> Self {
        self.flag = 0x1 | 0x2;
        self.mate_pos = mate_pos;
        self.tlen = tlen;
        self
    }

    fn view(&self) -> AlignedRead<'_> {
        AlignedRead {
            pos: self.pos,
            flag: self.flag,
            name: &self.name,
            cigar: BamCigar::new(&self.cigar),
            seq: &self.seq,
            seq_len: self.seq_len,
            qual: &self.qual,
            mate_ref_id: if self.flag & 1 != 0 { 0 } else { -1 },
            mate_pos: self.mate_pos,
            template_len: self.tlen,
        }
    }
}

fn replay(params: PileupParams, start: i64, needed: &[i64], reads: &[TestRead]) -> FileEngine {
    let mut e = FileEngine::new();
    e.reset(params, 0, start, needed);
    for r in reads {
        e.push(&r.view()).unwrap();
    }
    e.finish();
    e
}

const A: usize = 1;
const C: usize = 2;

#[test]
fn counts_bases_deletions_and_qualities() {
    let reads = [
        read("r1", 10, &[(0, 6)], b"AAAAAA", 30),
        read("r2", 11, &[(0, 2), (2, 2), (0, 2)], b"CCCC", 20),
        read("r3", 12, &[(0, 4)], b"AAAA", 0),
    ];
    let params = PileupParams {
        min_base_quality: 25,
        ..PileupParams::default()
    };
    let e = replay(params, 0, &[10, 13, 14, 17], &reads);
    let c = e.counts();
    assert_eq!((c[0].depth, c[0].bases[A]), (1, 1));
    // At 13: r1 A (30), r2 deletion (quality of the base after it: 20 < 25), r3 q0.
    assert_eq!((c[1].depth, c[1].bases[A], c[1].deletions), (3, 1, 0));
    assert_eq!(c[1].alleles(Some(1), Some(2)), [1, 0, 0, 0]);
    assert_eq!(c[3].depth, 0);
    assert!(c.iter().all(|c| c.certain));
    assert_eq!(e.coverage(), &[(10, 17)]);
    let e = replay(PileupParams::default(), 0, &[13, 15], &reads);
    assert_eq!(e.counts()[0].deletions, 1);
    assert_eq!(e.counts()[1].bases[C], 1);
}

#[test]
fn depth_limit_drops_later_reads_at_a_position() {
    let params = PileupParams {
        max_depth: 3,
        ..PileupParams::default()
    };
    // Five reads at 100: the buffer holds the first, then 1 + n > 3 stops at n = 3.
    let reads: Vec<_> = (0..5)
        .map(|i| read(&format!("r{i}"), 100, &[(0, 4)], b"ACGT", 30))
        .collect();
    let e = replay(params, 0, &[100], &reads);
    assert_eq!(e.counts()[0].depth, 3);
    // A read still covering the position counts against the limit.
    let mut reads = vec![read("early", 99, &[(0, 4)], b"ACGT", 30)];
    reads.extend((0..5).map(|i| read(&format!("r{i}"), 100, &[(0, 4)], b"ACGT", 30)));
    let e = replay(params, 0, &[100], &reads);
    assert_eq!(e.counts()[0].depth, 3);
    // htslib's pileup starts at (0, 0): a first read there is already checked.
    let zero = PileupParams {
        max_depth: 0,
        ..PileupParams::default()
    };
    let reads = [
        read("a", 0, &[(0, 4)], b"ACGT", 30),
        read("b", 1, &[(0, 4)], b"ACGT", 30),
        read("c", 1, &[(0, 4)], b"ACGT", 30),
    ];
    let e = replay(zero, 0, &[0, 1], &reads);
    assert_eq!((e.counts()[0].depth, e.counts()[1].depth), (0, 1));
}

#[test]
fn overlapping_mates_count_once() {
    let reads = [
        read("t", 100, &[(0, 10)], b"AAAAAAAAAA", 30).paired(105, 15),
        read("t", 105, &[(0, 10)], b"AAAAACCCCC", 30).paired(100, -15),
    ];
    let e = replay(PileupParams::default(), 0, &[104, 107, 112], &reads);
    let c = e.counts();
    assert_eq!((c[0].depth, c[0].bases[A]), (1, 1));
    assert_eq!(
        (c[1].depth, c[1].bases[A]),
        (2, 1),
        "one of the two mates counts"
    );
    assert_eq!((c[2].depth, c[2].bases[C]), (1, 1));
    let off = PileupParams {
        detect_overlaps: false,
        ..PileupParams::default()
    };
    let e = replay(off, 0, &[107], &reads);
    assert_eq!(e.counts()[0].bases[A], 2);
}

#[test]
fn a_replay_from_a_later_start_agrees_where_it_is_certain() {
    // A tiling of mates every 7 bases over 2 kb.
    let mut reads = Vec::new();
    for i in 0..280 {
        let pos = i * 7;
        let bases: Vec<u8> = (0..60).map(|j| b"ACGT"[((pos + j) % 4) as usize]).collect();
        let name = format!("t{}", i / 2);
        let r = if i % 2 == 0 {
            read(&name, pos, &[(0, 60)], &bases, 30).paired(pos + 7, 67)
        } else {
            read(&name, pos, &[(0, 60)], &bases, 30).paired(pos - 7, -67)
        };
        reads.push(r);
    }
    let needed: Vec<i64> = (0..2000).step_by(13).collect();
    for depth in [4000, 9, 7] {
        let params = PileupParams {
            max_depth: depth,
            ..PileupParams::default()
        };
        let whole = replay(params, 0, &needed, &reads);
        let part = replay(params, 700, &needed, &reads);
        let mut certain = 0;
        for (i, (w, p)) in whole.counts().iter().zip(part.counts()).enumerate() {
            assert!(w.certain);
            if p.certain && needed[i] >= 700 {
                assert_eq!(w, p, "position {} depth {depth}", needed[i]);
                certain += 1;
            }
        }
        assert!(certain > 50, "depth {depth}: {certain} certain");
        assert!(part.unknown_reach() < 800, "depth {depth}");
    }
}

#[test]
fn unsorted_reads_are_an_error() {
    let mut e = FileEngine::new();
    e.reset(PileupParams::default(), 0, 0, &[]);
    e.push(&read("a", 50, &[(0, 4)], b"ACGT", 30).view())
        .unwrap();
    let err = e
        .push(&read("b", 10, &[(0, 4)], b"ACGT", 30).view())
        .unwrap_err();
    assert!(err.to_string().contains("not sorted"), "{err}");
}
