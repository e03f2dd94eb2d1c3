//! The replay against one exact pass: every file replayed from its contig's start over
//! the whole contig, on reads that make the replay widen back (reads reaching far, full
//! pileups, overlapping mates) and forward (sites in gaps).

use std::cell::RefCell;
use std::ops::ControlFlow;

use super::*;
use crate::pileup::cigar::tests::pack;
use crate::pileup::engine::FileEngine;
use crate::pileup::visit::{CoverageProbe, Next, Site};
use crate::pileup::{base_code, PileupParams};
use seqfarm_core::cigar::BamCigar;

/// An owned read, as a file holds it.
struct StoredRead {
    ref_id: i32,
    pos: i64,
    flag: u16,
    mapq: u8,
    name: Vec<u8>,
    cigar: Vec<u8>,
    seq: Vec<u8>,
    seq_len: usize,
    qual: Vec<u8>,
    mate_pos: i64,
    template_len: i64,
}

impl StoredRead {
    fn view(&self) -> SourceRead<'_> {
        SourceRead {
            ref_id: self.ref_id,
            mapq: self.mapq,
            read: AlignedRead {
                pos: self.pos,
                flag: self.flag,
                name: &self.name,
                cigar: BamCigar::new(&self.cigar),
                seq: &self.seq,
                seq_len: self.seq_len,
                qual: &self.qual,
                mate_ref_id: if self.flag & 1 != 0 { self.ref_id } else { -1 },
                mate_pos: self.mate_pos,
                template_len: self.template_len,
            },
        }
    }
}

/// Files in memory: each a coordinate-sorted list of reads. A query visits every read
/// from the contig's first one on (an index may list more than a range needs).
struct MemorySource {
    files: Vec<Vec<StoredRead>>,
    lengths: Vec<i64>,
    /// The ranges `prefetch` and `release` were given.
    hints: RefCell<Hints>,
}

impl ReadSource for MemorySource {
    type Error = String;

    fn files(&self) -> usize {
        self.files.len()
    }

    fn contigs(&self) -> usize {
        self.lengths.len()
    }

    fn contig_len(&self, ref_id: i32) -> i64 {
        self.lengths[ref_id as usize]
    }

    fn for_each_read<F>(
        &mut self,
        file: usize,
        ref_id: i32,
        _first: i64,
        _last: i64,
        mut visit: F,
    ) -> Result<(), String>
    where
        F: FnMut(SourceRead<'_>) -> ControlFlow<()>,
    {
        let reads = &self.files[file];
        let from = reads.partition_point(|r| r.ref_id < ref_id);
        for read in &reads[from..] {
            if visit(read.view()).is_break() {
                break;
            }
        }
        Ok(())
    }

    fn refused(&self, file: usize, error: EngineError) -> String {
        format!("file {file}: {error}")
    }

    fn prefetch(&self, ref_id: i32, from: i64, to: i64) {
        self.hints.borrow_mut().prefetched.push((ref_id, from, to));
    }

    fn release(&self, ref_id: i32, from: i64, to: i64) {
        self.hints.borrow_mut().released.push((ref_id, from, to));
    }
}

/// The ranges of a source's `prefetch` and `release` calls: `(ref_id, from, to)`.
#[derive(Default)]
struct Hints {
    prefetched: Vec<(i32, i64, i64)>,
    released: Vec<(i32, i64, i64)>,
}

/// A small deterministic generator.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n
    }
}

/// A read of `ops` at `pos` with random bases and qualities.
fn stored(rng: &mut Lcg, name: String, (ref_id, pos): (i32, i64), ops: &[(u8, u32)]) -> StoredRead {
    let seq_len: usize = ops
        .iter()
        .filter(|(code, _)| matches!(code, 0 | 1 | 4))
        .map(|&(_, len)| len as usize)
        .sum();
    let codes: Vec<u8> = (0..seq_len)
        .map(|_| base_code(b"ACGT"[rng.below(4) as usize]).unwrap())
        .collect();
    StoredRead {
        ref_id,
        pos,
        flag: 0,
        mapq: 60,
        name: name.into_bytes(),
        cigar: pack(ops),
        seq: codes
            .chunks(2)
            .map(|p| (p[0] << 4) | p.get(1).copied().unwrap_or(0))
            .collect(),
        seq_len,
        qual: (0..seq_len)
            .map(|_| [0, 12, 30, 40][rng.below(4) as usize])
            .collect(),
        mate_pos: -1,
        template_len: 0,
    }
}

/// Reads on contigs of `lengths` for `files` files: single reads, overlapping pairs,
/// pileups deeper than the depth limit at one position, reads spanning a long skip,
/// duplicates and MAPQ 0 reads; sorted by contig and position.
fn files(lengths: &[i64], files: usize, seed: u64) -> Vec<Vec<StoredRead>> {
    let mut rng = Lcg(seed);
    (0..files)
        .map(|file| {
            let mut reads = Vec::new();
            for (ref_id, &length) in lengths.iter().enumerate() {
                let ref_id = ref_id as i32;
                // No read starts near each contig's start, nor in 12 kb at its middle (which
                // the longest reads, 8.6 kb, do not span).
                let places = (length - 200) as u64;
                for n in 0..length / 60 {
                    let pos = rng.below(places) as i64;
                    if (length / 2..length / 2 + 12_000).contains(&pos) || pos < 500 {
                        continue;
                    }
                    let name = format!("f{file}c{ref_id}r{n}");
                    let mut read = stored(&mut rng, name.clone(), (ref_id, pos), &[(0, 100)]);
                    match rng.below(10) {
                        0 => read.flag = 0x400,
                        1 => read.mapq = 0,
                        2 | 3 => {
                            let gap = rng.below(90) as i64;
                            read.flag = 0x1 | 0x2 | 0x40;
                            read.mate_pos = pos + gap;
                            read.template_len = gap + 100;
                            let mut mate = stored(&mut rng, name, (ref_id, pos + gap), &[(0, 100)]);
                            mate.flag = 0x1 | 0x2 | 0x80;
                            mate.mate_pos = pos;
                            mate.template_len = -(gap + 100);
                            reads.push(mate);
                        }
                        4 => {
                            let ops = [(0, 50), (3, 2_500 + rng.below(6_000) as u32), (0, 50)];
                            read = stored(&mut rng, name, (ref_id, pos), &ops);
                        }
                        5 => {
                            for k in 0..12 {
                                let name = format!("f{file}c{ref_id}r{n}d{k}");
                                reads.push(stored(&mut rng, name, (ref_id, pos), &[(0, 100)]));
                            }
                        }
                        _ => {}
                    }
                    reads.push(read);
                }
            }
            reads.sort_by_key(|r| (r.ref_id, r.pos));
            reads
        })
        .collect()
}

/// The exact pass: each file's engine replayed over the whole contig from its start,
/// counting at `needed` (sorted, distinct).
fn exact(
    source: &MemorySource,
    params: PileupParams,
    ref_id: i32,
    needed: &[i64],
) -> Vec<FileEngine> {
    source
        .files
        .iter()
        .map(|reads| {
            let mut engine = FileEngine::new();
            engine.reset(params, ref_id, 0, needed);
            for read in reads.iter().filter(|r| r.ref_id == ref_id) {
                let view = read.view();
                if params.keeps(view.read.flag, view.ref_id, view.mapq) {
                    engine.push(&view.read).unwrap();
                }
            }
            engine.finish();
            engine
        })
        .collect()
}

/// The first position at or after `q` that some engine covers.
fn exact_next(engines: &[FileEngine], q: i64) -> Next {
    engines
        .iter()
        .filter_map(|e| contig::first_covered(e.coverage(), q))
        .min()
        .map_or(Next::PastContig, Next::At)
}

fn site(ref_id: i32, pos: i64) -> Site {
    Site {
        ref_id,
        pos,
        reference: b'A',
        alternate: b'C',
    }
}

fn params() -> PileupParams {
    PileupParams {
        max_depth: 8,
        ..PileupParams::default()
    }
}

#[test]
fn clusters_match_a_replay_of_the_whole_contig() {
    let lengths = [80_000, 30_000];
    let source = MemorySource {
        files: files(&lengths, 2, 7),
        lengths: lengths.to_vec(),
        hints: RefCell::default(),
    };
    // Sites in clusters and alone, in the gaps, a duplicate, one on a contig absent from
    // the files, and on the second contig.
    let mut sites: Vec<Site> = (0..5).map(|i| site(0, 100 + i * 1_301)).collect();
    sites.extend((0..10).map(|i| site(0, 30_000 + i * 997)));
    sites.extend([
        site(0, 40_100),
        site(0, 40_100),
        site(0, 50_500),
        site(-1, 5),
    ]);
    sites.extend((0..12).map(|i| site(0, 71_000 + i * 700)));
    sites.extend((0..20).map(|i| site(1, 300 + i * 1_453)));
    sites.sort_by_key(|s| (s.ref_id < 0, s.ref_id, s.pos));
    let mut replayer = Replayer::new(source, params(), 0);
    let mut found = ReplayFindings::default();
    replayer.replay_sites(&sites, &mut found).unwrap();
    let stats = replayer.stats;
    assert_eq!(stats.clusters, 4);
    assert!(
        stats.widened_back > 0 && stats.widened_forward > 0,
        "{stats:?}"
    );
    let source = replayer.source();
    // One release per cluster, of everything its replays prefetched.
    let hints = source.hints.borrow();
    assert_eq!(hints.released.len(), 4);
    assert!(hints.prefetched.len() > 4);
    for &(ref_id, from, to) in &hints.prefetched {
        assert!(hints
            .released
            .iter()
            .any(|&(r, f, t)| r == ref_id && f <= from && to <= t));
    }

    let mut k = 0;
    for ref_id in 0..2 {
        let on_contig: Vec<&Site> = sites.iter().filter(|s| s.ref_id == ref_id).collect();
        let mut needed: Vec<i64> = on_contig.iter().map(|s| s.pos).collect();
        needed.dedup();
        let engines = exact(source, params(), ref_id, &needed);
        for s in on_contig {
            let next = (exact_next(&engines, s.pos), exact_next(&engines, s.pos + 1));
            assert_eq!(found.nexts[k], next, "site {s:?}");
            let at = needed.binary_search(&s.pos).unwrap();
            for (file, engine) in engines.iter().enumerate() {
                let c = engine.counts()[at];
                let [r, a, e, d] = c.alleles(Some(1), Some(2));
                assert_eq!(found.counts[k * 2 + file], [r, a, e, d, c.depth], "{s:?}");
            }
            k += 1;
        }
    }
    assert_eq!(found.nexts.len(), k);
    assert!(found.pseudo.is_empty() && found.pseudo_counts.is_empty());
}

#[test]
fn pseudo_snps_of_a_range_match_a_replay_of_the_whole_contig() {
    let lengths = [60_000];
    let source = MemorySource {
        files: files(&lengths, 2, 11),
        lengths: lengths.to_vec(),
        hints: RefCell::default(),
    };
    let every = 250;
    let range = 20_000..31_000;
    let sites = [site(0, 20_500), site(0, 29_100), site(0, 30_999)];
    let mut replayer = Replayer::new(source, params(), every);
    let mut found = ReplayFindings::default();
    replayer
        .replay_range(0, range.clone(), &sites, &mut found)
        .unwrap();
    replayer
        .replay_range(-1, 0..100, &sites, &mut found)
        .unwrap();

    let needed: Vec<i64> = (0..60_000).collect();
    let engines = exact(replayer.source(), params(), 0, &needed);
    let covered = |p: i64| exact_next(&engines, p) == Next::At(p);
    let in_range: Vec<i64> = range
        .clone()
        .filter(|&p| (p + 1) % every == 0 && covered(p))
        .collect();
    assert!(!in_range.is_empty());
    let found_in_range: Vec<i64> = found
        .pseudo
        .iter()
        .copied()
        .filter(|p| range.contains(p))
        .collect();
    assert_eq!(found_in_range, in_range);
    for (i, &p) in found.pseudo.iter().enumerate() {
        assert!(p >= range.start && covered(p), "{p}");
        for (file, engine) in engines.iter().enumerate() {
            let c = engine.counts()[p as usize];
            assert_eq!(found.pseudo_counts[i * 2 + file], [c.counted(), c.depth]);
        }
    }
    for (k, s) in sites.iter().enumerate() {
        let next = (exact_next(&engines, s.pos), exact_next(&engines, s.pos + 1));
        assert_eq!(found.nexts[k], next);
    }
    assert_eq!(found.nexts.len(), sites.len());
}

#[test]
fn the_probe_finds_the_first_covered_position_after_a_contig() {
    let lengths = [20_000, 1_000, 20_000];
    // Nothing on the second contig.
    let source = || {
        let mut reads = files(&lengths, 1, 3);
        reads[0].retain(|r| r.ref_id != 1);
        MemorySource {
            files: reads,
            lengths: lengths.to_vec(),
            hints: RefCell::default(),
        }
    };
    let exact_source = source();
    let needed: Vec<i64> = (0..20_000).collect();
    let mut probe = ContigProbe::new(source(), params());
    for (after, ref_id) in [(-1, 0), (0, 2), (1, 2)] {
        let found = probe.first_after_contig(after).unwrap().unwrap();
        let engines = exact(&exact_source, params(), ref_id, &needed);
        let Next::At(pos) = exact_next(&engines, 0) else {
            panic!("contig {ref_id} is covered");
        };
        let c = engines[0].counts()[pos as usize];
        assert_eq!((found.ref_id, found.pos), (ref_id, pos));
        assert_eq!(found.counts, [[c.counted(), c.depth]]);
    }
    assert_eq!(probe.first_after_contig(2).unwrap(), None);
}

#[test]
fn reads_out_of_order_name_their_file() {
    let mut rng = Lcg(1);
    let late = stored(&mut rng, "late".into(), (0, 900), &[(0, 50)]);
    let early = stored(&mut rng, "early".into(), (0, 800), &[(0, 50)]);
    let source = MemorySource {
        files: vec![Vec::new(), vec![late, early]],
        lengths: vec![5_000],
        hints: RefCell::default(),
    };
    let mut replayer = Replayer::new(source, params(), 0);
    let e = replayer
        .replay_sites(&[site(0, 1_000)], &mut ReplayFindings::default())
        .unwrap_err();
    assert_eq!(
        e,
        "file 1: the BAM is not sorted by position: read early at 801 comes after position 901"
    );
}
