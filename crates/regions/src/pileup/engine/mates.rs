//! Steps 2 and 3 of the replay for the overlap table: a properly paired read waits
//! there for its mate, or finds it waiting and has both mates' overlapping qualities
//! rewritten as htslib's `overlap_push` rewrites them; names leave the table with their
//! reads, by a chain of slots per name hash.

use seqfarm_core::cigar::BamCigar;

use super::{EngineError, FileEngine, WaitingMate, NONE, UNCHANGED};
use crate::flags;
use crate::pileup::overlap::{quality_owner, tweak_overlap, MateView, TweakError};
use crate::pileup::AlignedRead;

impl FileEngine {
    /// Step 2 of the engine module's docs (`engine.rs`): htslib's `overlap_push`.
    pub(super) fn overlap_push(
        &mut self,
        read: &AlignedRead<'_>,
        slot: u32,
        end: i64,
    ) -> Result<(), EngineError> {
        let flag = read.flag;
        if flag & flags::MATE_UNMAPPED != 0 || flag & flags::PROPER_PAIR == 0 {
            return Ok(());
        }
        if (read.mate_ref_id >= 0 && read.mate_ref_id != self.ref_id)
            || (read.template_len.abs() >= 2 * read.seq_len as i64 && read.mate_pos >= end)
        {
            return Ok(());
        }
        let hash = self.slots[slot as usize].name_hash;
        if let Some(mate) = self.take_waiting(read.name, hash) {
            let result = self.rewrite(mate, read, slot);
            self.free_mates.push(mate);
            return result.map_err(|source| EngineError::Overlap {
                name: String::from_utf8_lossy(read.name).into_owned(),
                source,
            });
        }
        if read.mate_pos >= read.pos || (flag & flags::PAIRED != 0 && read.mate_pos == -1) {
            self.wait(read, slot, hash);
        }
        Ok(())
    }

    /// Rewrites the qualities of waiting mate `mate` and the arriving `read`.
    fn rewrite(&mut self, mate: u32, read: &AlignedRead<'_>, slot: u32) -> Result<(), TweakError> {
        let m = &self.mates[mate as usize];
        let a = MateView {
            pos: m.pos,
            cigar: BamCigar::new(&m.cigar),
            seq: &m.seq,
            seq_len: m.seq_len,
            qual: &m.qual,
        };
        let b = MateView {
            pos: read.pos,
            cigar: read.cigar,
            seq: read.seq,
            seq_len: read.seq_len,
            qual: read.qual,
        };
        let (changes_a, changes_b) = (&mut self.changes_a, &mut self.changes_b);
        changes_a.clear();
        changes_b.clear();
        let from = self.needed.partition_point(|&p| p < read.pos);
        tweak_overlap(
            &a,
            &b,
            quality_owner(read.name),
            Some(&self.needed[from..]),
            |_, ai, qa, bi, qb| {
                changes_a.push((ai, qa));
                changes_b.push((bi, qb));
            },
        )?;
        let a_slot = m.slot;
        let changes = std::mem::take(&mut self.changes_a);
        self.store_rewrite(a_slot, &changes);
        self.changes_a = changes;
        let changes = std::mem::take(&mut self.changes_b);
        self.store_rewrite(slot, &changes);
        self.changes_b = changes;
        Ok(())
    }

    fn store_rewrite(&mut self, slot: u32, changes: &[(u32, u8)]) {
        let (Some(&(lo, _)), Some(&(hi, _))) = (changes.first(), changes.last()) else {
            return;
        };
        let at = self.rewritten.len();
        self.rewritten
            .resize(at + (hi - lo + 1) as usize, UNCHANGED);
        for &(q, value) in changes {
            self.rewritten[at + (q - lo) as usize] = value;
        }
        self.slots[slot as usize].rewritten = Some((lo, at as u32, hi - lo + 1));
    }

    fn wait(&mut self, read: &AlignedRead<'_>, slot: u32, hash: u64) {
        let index = match self.free_mates.pop() {
            Some(i) => i,
            None => {
                self.mates.push(WaitingMate::default());
                self.mates.len() as u32 - 1
            }
        };
        let next = self.waiting.insert(hash, index).unwrap_or(NONE);
        let m = &mut self.mates[index as usize];
        m.slot = slot;
        m.pos = read.pos;
        m.next = next;
        m.seq_len = read.seq_len;
        for (dst, src) in [
            (&mut m.name, read.name),
            (&mut m.cigar, read.cigar.as_bytes()),
            (&mut m.seq, read.seq),
            (&mut m.qual, read.qual),
        ] {
            dst.clear();
            dst.extend_from_slice(src);
        }
    }

    /// Unlinks the waiting mate named `name` from the table; returns its index.
    fn take_waiting(&mut self, name: &[u8], hash: u64) -> Option<u32> {
        let head = *self.waiting.get(&hash)?;
        let mut previous = NONE;
        let mut at = head;
        while at != NONE {
            let next = self.mates[at as usize].next;
            if self.mates[at as usize].name == name {
                if previous == NONE {
                    if next == NONE {
                        self.waiting.remove(&hash);
                    } else {
                        self.waiting.insert(hash, next);
                    }
                } else {
                    self.mates[previous as usize].next = next;
                }
                return Some(at);
            }
            previous = at;
            at = next;
        }
        None
    }

    /// htslib's `overlap_remove`: the name leaves the table.
    pub(super) fn forget_waiting(&mut self, name: &[u8], hash: u64) {
        if self.waiting.is_empty() {
            return;
        }
        if let Some(mate) = self.take_waiting(name, hash) {
            self.free_mates.push(mate);
        }
    }
}
