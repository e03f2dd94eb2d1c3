//! Replaying htslib's pileup buffer for one BAM over one range of a contig.
//!
//! htslib's pileup (`bam_plp_push` / `bam_plp_next`) behaves, read by read, like this:
//!
//! 1. A read that starts at the same position as the read pushed before it is dropped
//!    when `1 + (reads in the buffer) > max_depth`; the first read at a position never
//!    is. A dropped read also deletes its name from the overlap table.
//! 2. A kept read enters the overlap table (a properly paired read whose mate is still to
//!    come) or, if its mate is waiting there, rewrites both mates' overlapping qualities
//!    ([`super::overlap`]) and takes the mate out of the table.
//! 3. After the first read at a new position `Q` is pushed, every position before `Q` is
//!    emitted and reads ending before `Q` leave the buffer (deleting their names from the
//!    overlap table).
//!
//! [`FileEngine`] follows exactly these steps, but only looks at the *needed* positions
//! (sites and pseudo-SNP positions) and keeps per-position observations until they are
//! final. A replay that starts at `start > 0` does not know the reads before it: those
//! still in the buffer are *unknown* (maybe dropped, maybe rewritten), and so is any
//! decision they could sway. Counts touched by an unknown are marked uncertain; coverage
//! reached by an unknown read is reported by [`FileEngine::unknown_reach`].

mod mates;

use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};

use super::cigar::{is_regular, resolve, resolve_stepwise};
use super::overlap::TweakError;
use super::{AlignedRead, PileupParams};

/// Why a replay cannot go on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EngineError {
    /// Reads are not sorted by position.
    #[error(
        "the BAM is not sorted by position: read {name} at {pos} comes after position {previous}"
    )]
    NotSorted {
        /// The read out of order.
        name: String,
        /// Its 1-based position.
        pos: i64,
        /// The 1-based position of the read before it.
        previous: i64,
    },
    /// htslib's overlap detection would stop at this read.
    #[error("read {name}: {source}")]
    Overlap {
        /// The read.
        name: String,
        /// What is wrong with it.
        source: TweakError,
    },
}

/// What one file contributes at one needed position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PositionCounts {
    /// Reads in the pileup (deletions included): htslib's `n_plp`.
    pub depth: u32,
    /// Counted bases (quality > 0 and >= `-Q`) by 4-bit base code.
    pub bases: [u32; 16],
    /// Counted deletions and skips.
    pub deletions: u32,
    /// Whether nothing unknown before the replay start could change these numbers.
    pub certain: bool,
}

impl PositionCounts {
    /// Everything counted: bases and deletions (a pseudo-SNP's count).
    pub fn counted(&self) -> u32 {
        self.bases.iter().sum::<u32>() + self.deletions
    }

    /// snp-pileup's `(R, A, E, D)` for REF and ALT letters: a base equal to REF is R,
    /// else equal to ALT is A, else E.
    pub fn alleles(&self, reference: Option<u8>, alternate: Option<u8>) -> [u32; 4] {
        let total: u32 = self.bases.iter().sum();
        let r = reference.map_or(0, |c| self.bases[c as usize]);
        let a = match alternate {
            Some(c) if Some(c) != reference => self.bases[c as usize],
            _ => 0,
        };
        [r, a, total - r - a, self.deletions]
    }
}

/// One observation: a read's base at a needed position.
#[derive(Debug, Clone, Copy)]
struct Observation {
    slot: u32,
    query: u32,
    qual: u8,
    base: u8,
    is_del: bool,
}

/// A read that entered the replay (kept or unknown).
#[derive(Debug, Clone, Copy)]
struct Slot {
    name_hash: u64,
    unknown: bool,
    tainted: bool,
    /// Rewritten qualities: first query index, offset in the arena, count.
    rewritten: Option<(u32, u32, u32)>,
}

/// A mate waiting in the overlap table, copied out of its record.
#[derive(Debug, Default)]
struct WaitingMate {
    slot: u32,
    pos: i64,
    name: Vec<u8>,
    cigar: Vec<u8>,
    seq: Vec<u8>,
    seq_len: usize,
    qual: Vec<u8>,
    /// Next waiting mate with the same name hash (`u32::MAX`: none).
    next: u32,
}

/// A hasher for keys that already are good hashes.
#[derive(Default)]
struct PassThrough(u64);

impl Hasher for PassThrough {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) ^ u64::from(b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

const NONE: u32 = u32::MAX;
const UNCHANGED: u8 = u8::MAX;

/// A 64-bit hash of a read name (to find names fast; names are compared in full).
fn name_hash(name: &[u8]) -> u64 {
    let mut h = 0x9e37_79b9_7f4a_7c15u64 ^ name.len() as u64;
    for chunk in name.chunks(8) {
        let mut word = [0u8; 8];
        word[..chunk.len()].copy_from_slice(chunk);
        h = (h ^ u64::from_le_bytes(word)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        h ^= h >> 31;
    }
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

/// Replays one BAM's filtered reads of one contig over a range (see the module docs).
/// Reusable: [`FileEngine::reset`] starts a new replay keeping the allocations.
#[derive(Default)]
pub struct FileEngine {
    params: PileupParams,
    ref_id: i32,
    start: i64,
    exact_start: bool,
    needed: Vec<i64>,
    counts: Vec<PositionCounts>,
    last_pos: Option<i64>,
    seen_new: bool,
    live_kept: i64,
    live_unknown: i64,
    /// Reads in the buffer as `(end, slot)`, sorted by end.
    buffer: VecDeque<(i64, u32)>,
    slots: Vec<Slot>,
    rewritten: Vec<u8>,
    waiting: HashMap<u64, u32, BuildHasherDefault<PassThrough>>,
    mates: Vec<WaitingMate>,
    free_mates: Vec<u32>,
    tainted: std::collections::HashSet<u64, BuildHasherDefault<PassThrough>>,
    open_lo: usize,
    open: VecDeque<Vec<Observation>>,
    spare: Vec<Vec<Observation>>,
    scan: usize,
    coverage: Vec<(i64, i64)>,
    unknown_reach: i64,
    changes_a: Vec<(u32, u8)>,
    changes_b: Vec<(u32, u8)>,
}

impl FileEngine {
    /// An engine with no replay under way.
    pub fn new() -> Self {
        Self::default()
    }

    /// Starts a replay of contig `ref_id` from position `start` (reads before it are
    /// unknown, except at a contig start), computing counts at the sorted, distinct
    /// `needed` positions.
    pub fn reset(&mut self, params: PileupParams, ref_id: i32, start: i64, needed: &[i64]) {
        self.params = params;
        self.ref_id = ref_id;
        self.start = start.max(0);
        self.exact_start = start <= 0;
        self.needed.clear();
        self.needed.extend_from_slice(needed);
        self.counts.clear();
        self.counts.resize(needed.len(), PositionCounts::default());
        // htslib starts at (contig 0, position 0): a first read there is counted against
        // the depth limit like a second read at a position.
        self.last_pos = (ref_id == 0 && self.exact_start).then_some(0);
        self.seen_new = false;
        self.live_kept = 0;
        self.live_unknown = 0;
        self.buffer.clear();
        self.slots.clear();
        self.rewritten.clear();
        self.waiting.clear();
        self.free_mates = (0..self.mates.len() as u32).collect();
        self.tainted.clear();
        self.open_lo = 0;
        while let Some(v) = self.open.pop_front() {
            self.spare.push(v);
        }
        self.scan = 0;
        self.coverage.clear();
        self.unknown_reach = i64::MIN;
    }

    /// The counts at the needed positions (final after [`FileEngine::finish`]).
    pub fn counts(&self) -> &[PositionCounts] {
        &self.counts
    }

    /// Positions covered by reads surely in the pileup: merged `[start, end)` intervals.
    pub fn coverage(&self) -> &[(i64, i64)] {
        &self.coverage
    }

    /// The end of the furthest-reaching read whose presence is unknown (`i64::MIN`: none).
    pub fn unknown_reach(&self) -> i64 {
        self.unknown_reach
    }

    /// Takes the next read of the contig (already through [`PileupParams::keeps`], in
    /// file order).
    pub fn push(&mut self, read: &AlignedRead<'_>) -> Result<(), EngineError> {
        let beg = read.pos;
        if let Some(previous) = self.last_pos {
            if beg < previous {
                return Err(EngineError::NotSorted {
                    name: String::from_utf8_lossy(read.name).into_owned(),
                    pos: beg + 1,
                    previous: previous + 1,
                });
            }
        }
        let end = beg + read.cigar.reference_span();
        let old = beg < self.start;
        let same_pos = self.last_pos == Some(beg);
        let hash = name_hash(read.name);
        let mut unknown = old;
        if same_pos && !old {
            let floor = 1 + self.live_kept;
            if floor > self.params.max_depth {
                self.forget_waiting(read.name, hash);
                return Ok(());
            }
            unknown = floor + self.live_unknown > self.params.max_depth;
        }
        let first_new = !old && !self.seen_new;
        self.seen_new |= !old;
        if unknown || (first_new && !self.exact_start) {
            // Whether this read went in, or met a mate already gone, is not known.
            self.taint(hash);
        }
        if !same_pos || end > beg {
            let slot = self.new_slot(hash, unknown);
            if self.params.detect_overlaps {
                self.overlap_push(read, slot, end)?;
            }
            self.observe(read, slot, end);
            if unknown {
                self.live_unknown += 1;
                self.unknown_reach = self.unknown_reach.max(end);
            } else {
                self.live_kept += 1;
                self.cover(beg, end);
            }
            // Reads mostly end in the order they start: look for the place from the back.
            let mut at = self.buffer.len();
            while at > 0 && self.buffer[at - 1].0 > end {
                at -= 1;
            }
            if at == self.buffer.len() {
                self.buffer.push_back((end, slot));
            } else {
                self.buffer.insert(at, (end, slot));
            }
        }
        if !same_pos {
            self.last_pos = Some(beg);
            self.remove_ended(beg);
            self.finalize_before(beg);
        }
        Ok(())
    }

    /// Ends the replay: every remaining needed position is final.
    pub fn finish(&mut self) {
        self.finalize_before(i64::MAX);
    }

    fn new_slot(&mut self, hash: u64, unknown: bool) -> u32 {
        let slot = self.slots.len() as u32;
        let tainted = !self.tainted.is_empty() && self.tainted.contains(&hash);
        self.slots.push(Slot {
            name_hash: hash,
            unknown,
            tainted,
            rewritten: None,
        });
        slot
    }

    /// Marks a name whose reads' overlap rewrites are not known.
    fn taint(&mut self, hash: u64) {
        if !self.tainted.insert(hash) {
            return;
        }
        for &(_, slot) in &self.buffer {
            let s = &mut self.slots[slot as usize];
            if s.name_hash == hash {
                s.tainted = true;
            }
        }
    }

    fn cover(&mut self, beg: i64, end: i64) {
        if end <= beg {
            return;
        }
        match self.coverage.last_mut() {
            Some(last) if beg <= last.1 => last.1 = last.1.max(end),
            _ => self.coverage.push((beg, end)),
        }
    }

    /// Step 3: reads ending before `pos` leave the buffer, and their names the overlap
    /// table. The read leaving is known by its 64-bit name hash only (the chance that
    /// another name in the table shares it is about one in 10^18 per run).
    fn remove_ended(&mut self, pos: i64) {
        while let Some(&(end, slot)) = self.buffer.front() {
            if end >= pos {
                break;
            }
            self.buffer.pop_front();
            let s = self.slots[slot as usize];
            if s.unknown {
                self.live_unknown -= 1;
            } else {
                self.live_kept -= 1;
            }
            if !self.waiting.is_empty() {
                if let Some(&head) = self.waiting.get(&s.name_hash) {
                    // The first waiting mate with this hash: htslib deletes by name.
                    let name = std::mem::take(&mut self.mates[head as usize].name);
                    self.forget_waiting(&name, s.name_hash);
                    self.mates[head as usize].name = name;
                }
            }
        }
    }

    /// Records the read's base (or deletion) at each needed position it covers.
    fn observe(&mut self, read: &AlignedRead<'_>, slot: u32, end: i64) {
        let beg = read.pos;
        let n = self.needed.len();
        while self.scan < n && self.needed[self.scan] < beg {
            self.scan += 1;
        }
        let regular = is_regular(read.cigar);
        let mut i = self.scan;
        while i < n && self.needed[i] < end {
            let target = self.needed[i];
            let (query, is_del) = if regular {
                resolve(read.cigar, beg, target)
            } else {
                resolve_stepwise(read.cigar, beg, target)
            };
            let q = query as usize;
            let (base, qual) = if q < read.seq_len && q < read.qual.len() {
                let byte = read.seq[q / 2];
                let base = if q.is_multiple_of(2) {
                    byte >> 4
                } else {
                    byte & 0xf
                };
                (base, read.qual[q])
            } else {
                (0, 0)
            };
            while self.open_lo + self.open.len() <= i {
                let fresh = self.spare.pop().unwrap_or_default();
                self.open.push_back(fresh);
            }
            self.open[i - self.open_lo].push(Observation {
                slot,
                query,
                qual,
                base,
                is_del,
            });
            i += 1;
        }
    }

    /// Positions before `pos` are final: count their observations.
    fn finalize_before(&mut self, pos: i64) {
        while self.open_lo < self.needed.len() && self.needed[self.open_lo] < pos {
            let counts = match self.open.pop_front() {
                Some(mut observations) => {
                    let c = self.count(&observations);
                    observations.clear();
                    self.spare.push(observations);
                    c
                }
                None => PositionCounts {
                    certain: true,
                    ..PositionCounts::default()
                },
            };
            self.counts[self.open_lo] = counts;
            self.open_lo += 1;
        }
    }

    fn count(&self, observations: &[Observation]) -> PositionCounts {
        let mut c = PositionCounts {
            depth: observations.len() as u32,
            certain: true,
            ..PositionCounts::default()
        };
        let min_q = self.params.min_base_quality;
        let mut tainted_names = 0usize;
        for o in observations {
            let s = &self.slots[o.slot as usize];
            if s.unknown || (s.tainted && o.is_del) {
                c.certain = false;
            }
            if s.tainted {
                tainted_names += 1;
            }
            let mut q = o.qual;
            if let Some((lo, at, len)) = s.rewritten {
                if o.query >= lo && o.query < lo + len {
                    let value = self.rewritten[(at + o.query - lo) as usize];
                    if value != UNCHANGED {
                        q = value;
                    }
                }
            }
            if q == 0 || i32::from(q) < min_q {
                continue;
            }
            if o.is_del {
                c.deletions += 1;
            } else {
                c.bases[o.base as usize] += 1;
            }
        }
        if tainted_names > 1 && c.certain {
            // Two reads of one tainted name here: whether they rewrote each other is
            // not known.
            let mut seen: Vec<u64> = Vec::new();
            for o in observations {
                let s = &self.slots[o.slot as usize];
                if s.tainted {
                    if seen.contains(&s.name_hash) {
                        c.certain = false;
                        break;
                    }
                    seen.push(s.name_hash);
                }
            }
        }
        c
    }
}

#[cfg(test)]
#[path = "engine_tests.rs"]
mod tests;
