//! A task's findings as bytes, for a collector in another process (the tasks run on
//! other machines, the collector walks them in order): what the collector reads of a
//! task, and nothing of what only the workers need (the VCF text) nor the rows the
//! workers walked (the collector walks every site again).
//!
//! Integers are LEB128 varints, signed ones zigzag-coded; positions are coded as the
//! difference from the previous site's (or pseudo-SNP's), next covered positions as the
//! difference from their site. A site on a BAM contig costs about `6 + 5 * files` bytes
//! at depths below 128 (contig, position, REF and ALT, the two next positions, the five
//! counts per BAM).

use anyhow::{bail, Context};
use seqfarm_regions::pileup::visit::{Next, Site};

use super::sites::{ChunkSummary, ContigAt, LineFailure};
use super::skipped::{SkipTally, SkippedSites};
use super::Task;

/// Appends `task`'s findings (`files` BAMs) to `out`.
pub fn encode(task: &Task, files: usize, out: &mut Vec<u8>) {
    let mut w = Writer(out);
    w.signed(i64::from(task.ref_id));
    w.unsigned(task.header_lines);
    summary(&mut w, &task.summary);
    w.unsigned(task.sites.len() as u64);
    let mut previous = 0i64;
    let mut k = 0;
    for site in &task.sites {
        w.signed(i64::from(site.ref_id));
        w.signed(site.pos - previous);
        previous = site.pos;
        w.0.extend_from_slice(&[site.reference, site.alternate]);
        if site.ref_id >= 0 {
            let (next, next_after) = task.found.nexts[k];
            w.next(next, site.pos);
            w.next(next_after, site.pos);
            for counts in &task.found.counts[k * files..(k + 1) * files] {
                for &c in counts {
                    w.unsigned(u64::from(c));
                }
            }
            k += 1;
        }
    }
    w.unsigned(task.found.pseudo.len() as u64);
    let mut previous = 0i64;
    for &pos in &task.found.pseudo {
        w.signed(pos - previous);
        previous = pos;
    }
    for counts in &task.found.pseudo_counts {
        w.unsigned(u64::from(counts[0]));
        w.unsigned(u64::from(counts[1]));
    }
}

/// Reads the next task of `bytes` (from `*at`, moved past it) into `task`, cleared
/// first; `files` BAMs.
pub fn decode(bytes: &[u8], at: &mut usize, files: usize, task: &mut Task) -> anyhow::Result<()> {
    task.clear();
    let mut r = Reader { bytes, at: *at };
    (|| -> anyhow::Result<()> {
        task.ref_id = r.signed32()?;
        task.header_lines = r.unsigned()?;
        task.summary = r.summary()?;
        let sites = r.unsigned()? as usize;
        let mut previous = 0i64;
        for _ in 0..sites {
            let ref_id = r.signed32()?;
            let pos = previous + r.signed()?;
            previous = pos;
            let [reference, alternate] = r.take::<2>()?;
            task.sites.push(Site {
                ref_id,
                pos,
                reference,
                alternate,
            });
            if ref_id >= 0 {
                task.found.nexts.push((r.next(pos)?, r.next(pos)?));
                for _ in 0..files {
                    let mut counts = [0u32; 5];
                    for c in &mut counts {
                        *c = r.unsigned32()?;
                    }
                    task.found.counts.push(counts);
                }
            }
        }
        let pseudo = r.unsigned()? as usize;
        let mut previous = 0i64;
        for _ in 0..pseudo {
            previous += r.signed()?;
            task.found.pseudo.push(previous);
        }
        for _ in 0..pseudo * files {
            task.found
                .pseudo_counts
                .push([r.unsigned32()?, r.unsigned32()?]);
        }
        Ok(())
    })()
    .context("snp-pileup findings: damaged part")?;
    *at = r.at;
    Ok(())
}

/// Appends the counts of skipped sites `s` to `out` (a part's findings start with those
/// its planner counted).
pub fn encode_skipped(s: &SkippedSites, out: &mut Vec<u8>) {
    Writer(out).skipped(s);
}

/// Reads counts of skipped sites from `bytes` (from `*at`, moved past them).
pub fn decode_skipped(bytes: &[u8], at: &mut usize) -> anyhow::Result<SkippedSites> {
    let mut r = Reader { bytes, at: *at };
    let skipped = r.skipped().context("snp-pileup findings: damaged counts")?;
    *at = r.at;
    Ok(skipped)
}

/// A walk's counts of skipped sites as bytes (they travel with its carry).
pub fn tally_to_bytes(tally: &SkipTally) -> Vec<u8> {
    let mut out = Vec::new();
    let mut w = Writer(&mut out);
    w.skipped(&tally.total);
    match tally.furthest {
        Some((ref_id, pos)) => {
            w.unsigned(1);
            w.signed(i64::from(ref_id));
            w.signed(pos);
        }
        None => w.unsigned(0),
    }
    out
}

/// The counts of [`tally_to_bytes`]' bytes.
pub fn tally_from_bytes(bytes: &[u8]) -> anyhow::Result<SkipTally> {
    let mut r = Reader { bytes, at: 0 };
    let tally = (|| -> anyhow::Result<SkipTally> {
        let total = r.skipped()?;
        let furthest = match r.unsigned()? {
            0 => None,
            _ => Some((r.signed32()?, r.signed()?)),
        };
        anyhow::ensure!(r.at == bytes.len(), "bytes after the end");
        Ok(SkipTally { total, furthest })
    })();
    tally.context("snp-pileup: damaged counts of skipped sites")
}

fn summary(w: &mut Writer<'_>, s: &ChunkSummary) {
    w.skipped(&s.skipped);
    w.unsigned(s.lines);
    w.contig_at(s.first.as_ref());
    w.contig_at(s.last.as_ref());
    match &s.failure {
        None => w.unsigned(0),
        Some(LineFailure::Format { line, message }) => {
            w.unsigned(1);
            w.unsigned(*line);
            w.bytes(message.as_bytes());
        }
        Some(LineFailure::Order { at, furthest }) => {
            w.unsigned(2);
            w.contig_at(Some(at));
            w.contig_at(Some(furthest));
        }
    }
}

struct Writer<'a>(&'a mut Vec<u8>);

impl Writer<'_> {
    fn skipped(&mut self, s: &SkippedSites) {
        self.unsigned(s.absent);
        self.unsigned(s.absent_names.len() as u64);
        for name in &s.absent_names {
            self.bytes(name);
        }
        self.unsigned(u64::from(s.more_names));
        self.unsigned(s.behind);
        self.unsigned(s.lowercase_ref);
    }

    fn unsigned(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.0.push(v as u8 | 0x80);
            v >>= 7;
        }
        self.0.push(v as u8);
    }

    fn signed(&mut self, v: i64) {
        self.unsigned(((v << 1) ^ (v >> 63)) as u64);
    }

    fn bytes(&mut self, b: &[u8]) {
        self.unsigned(b.len() as u64);
        self.0.extend_from_slice(b);
    }

    /// `next` as 0 (past the contig) or 1 + its distance from `pos`, zigzag-coded.
    fn next(&mut self, next: Next, pos: i64) {
        match next {
            Next::PastContig => self.unsigned(0),
            Next::At(p) => {
                let d = p - pos;
                self.unsigned((((d << 1) ^ (d >> 63)) as u64) + 1);
            }
        }
    }

    fn contig_at(&mut self, at: Option<&ContigAt>) {
        let Some(at) = at else {
            self.unsigned(0);
            return;
        };
        self.unsigned(1);
        self.unsigned(at.line);
        self.signed(i64::from(at.ref_id));
        self.bytes(&at.chrom);
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take<const N: usize>(&mut self) -> anyhow::Result<[u8; N]> {
        let Some(b) = self.bytes.get(self.at..self.at + N) else {
            bail!("ends early");
        };
        self.at += N;
        Ok(b.try_into().expect("N bytes"))
    }

    fn unsigned(&mut self) -> anyhow::Result<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let [b] = self.take::<1>()?;
            v |= u64::from(b & 0x7f) << shift;
            if b < 0x80 {
                return Ok(v);
            }
        }
        bail!("overlong number")
    }

    fn unsigned32(&mut self) -> anyhow::Result<u32> {
        Ok(u32::try_from(self.unsigned()?)?)
    }

    fn signed(&mut self) -> anyhow::Result<i64> {
        let v = self.unsigned()?;
        Ok((v >> 1) as i64 ^ -((v & 1) as i64))
    }

    fn signed32(&mut self) -> anyhow::Result<i32> {
        Ok(i32::try_from(self.signed()?)?)
    }

    fn next(&mut self, pos: i64) -> anyhow::Result<Next> {
        Ok(match self.unsigned()? {
            0 => Next::PastContig,
            v => {
                let v = v - 1;
                Next::At(pos + ((v >> 1) as i64 ^ -((v & 1) as i64)))
            }
        })
    }

    fn byte_string(&mut self) -> anyhow::Result<Vec<u8>> {
        let n = self.unsigned()? as usize;
        let Some(b) = self.bytes.get(self.at..self.at.saturating_add(n)) else {
            bail!("ends early");
        };
        self.at += n;
        Ok(b.to_vec())
    }

    fn contig_at(&mut self) -> anyhow::Result<Option<ContigAt>> {
        if self.unsigned()? == 0 {
            return Ok(None);
        }
        Ok(Some(ContigAt {
            line: self.unsigned()?,
            ref_id: self.signed32()?,
            chrom: self.byte_string()?,
        }))
    }

    fn skipped(&mut self) -> anyhow::Result<SkippedSites> {
        let absent = self.unsigned()?;
        let names = self.unsigned()?;
        // Each name takes a byte at least: a damaged count fails before it allocates.
        anyhow::ensure!(names <= (self.bytes.len() - self.at) as u64, "ends early");
        let absent_names = (0..names)
            .map(|_| self.byte_string())
            .collect::<anyhow::Result<_>>()?;
        Ok(SkippedSites {
            absent,
            absent_names,
            more_names: self.unsigned()? != 0,
            behind: self.unsigned()?,
            lowercase_ref: self.unsigned()?,
        })
    }

    fn summary(&mut self) -> anyhow::Result<ChunkSummary> {
        let skipped = self.skipped()?;
        let lines = self.unsigned()?;
        let first = self.contig_at()?;
        let last = self.contig_at()?;
        let failure = match self.unsigned()? {
            0 => None,
            1 => Some(LineFailure::Format {
                line: self.unsigned()?,
                message: String::from_utf8_lossy(&self.byte_string()?).into_owned(),
            }),
            2 => {
                let at = self.contig_at()?.context("no contig")?;
                let furthest = self.contig_at()?.context("no contig")?;
                Some(LineFailure::Order { at, furthest })
            }
            _ => bail!("unknown line failure"),
        };
        Ok(ChunkSummary {
            lines,
            first,
            last,
            failure,
            skipped,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tasks_round_trip() {
        let mut task = Task {
            ref_id: 1,
            header_lines: 12,
            ..Task::default()
        };
        task.summary.lines = 5;
        task.summary.first = Some(ContigAt {
            line: 1,
            ref_id: 1,
            chrom: b"chr2".to_vec(),
        });
        task.summary.failure = Some(LineFailure::Format {
            line: 4,
            message: "bad POS".into(),
        });
        task.summary.skipped = skipped();
        for (ref_id, pos) in [(-1, 7), (1, 1_000_000), (1, 999_999), (1, 1_000_300)] {
            task.sites.push(Site {
                ref_id,
                pos,
                reference: b'A',
                alternate: b'G',
            });
        }
        task.found.nexts = vec![
            (Next::At(1_000_000), Next::At(1_000_004)),
            (Next::PastContig, Next::PastContig),
            (Next::At(1_000_300), Next::At(1 << 40)),
        ];
        task.found.counts = (0..6).map(|i| [i, 300, 2, 0, u32::MAX]).collect();
        task.found.pseudo = vec![999_000, 1_000_100];
        task.found.pseudo_counts = vec![[1, 2], [3, 4], [5, 6], [7, 8]];
        let mut bytes = Vec::new();
        encode(&task, 2, &mut bytes);
        encode(&Task::default(), 2, &mut bytes);
        let (mut at, mut back) = (0, Task::default());
        decode(&bytes, &mut at, 2, &mut back).unwrap();
        assert_eq!(
            (back.ref_id, back.header_lines, &back.summary),
            (1, 12, &task.summary)
        );
        assert_eq!(back.sites, task.sites);
        assert_eq!(back.found.nexts, task.found.nexts);
        assert_eq!(back.found.counts, task.found.counts);
        assert_eq!(back.found.pseudo, task.found.pseudo);
        assert_eq!(back.found.pseudo_counts, task.found.pseudo_counts);
        decode(&bytes, &mut at, 2, &mut back).unwrap();
        assert!(back.sites.is_empty());
        assert_eq!(at, bytes.len());
        assert!(decode(&bytes[..10], &mut 0, 2, &mut back).is_err());
    }

    fn skipped() -> SkippedSites {
        SkippedSites {
            absent: 40,
            absent_names: vec![b"GL000192.1".to_vec(), b"chrUn".to_vec()],
            more_names: true,
            behind: 3,
            lowercase_ref: 2,
        }
    }

    #[test]
    fn counts_of_skipped_sites_round_trip() {
        let mut bytes = b"x".to_vec();
        encode_skipped(&skipped(), &mut bytes);
        let mut at = 1;
        assert_eq!(decode_skipped(&bytes, &mut at).unwrap(), skipped());
        assert_eq!(at, bytes.len());
        assert!(decode_skipped(&bytes[..bytes.len() - 1], &mut 1).is_err());
        let tally = SkipTally {
            total: skipped(),
            furthest: Some((2, 1 << 33)),
        };
        let bytes = tally_to_bytes(&tally);
        assert_eq!(tally_from_bytes(&bytes).unwrap(), tally);
        assert!(tally_from_bytes(&bytes[..bytes.len() - 1]).is_err());
        let empty = SkipTally::default();
        assert_eq!(tally_from_bytes(&tally_to_bytes(&empty)).unwrap(), empty);
    }
}
