//! snp-pileup's main loop: the VCF's sites, in file order, against the pileup positions,
//! in coordinate order — with the rows it gives ([`super::rows::RowSink`]).
//!
//! The pileup yields the *covered* positions (at least one read of one file) one by one;
//! for each site the loop consumes positions until it reaches or passes the site:
//!
//! * a site before the last consumed position is skipped (sites out of order, or a site
//!   the pileup already passed because the position before it was not covered);
//! * a site *at* the last consumed position consumes the next one instead (a duplicate
//!   site never gets a row, and may swallow the next site's position);
//! * positions on contigs before the site's are consumed silently; every other consumed
//!   position that is not the site itself and whose 1-based coordinate is a multiple of
//!   `-P` gets a pseudo-SNP row.
//!
//! So the walk only needs, per site, the first covered position at or after it and the
//! first after it ([`Next`]), which workers compute range by range, and the counts at the
//! consumed positions. [`SiteWalker`] runs the walk in VCF order on the collector.

use std::collections::VecDeque;

use super::rows::RowSink;

/// A VCF record snp-pileup uses: exactly two alleles of one base each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Site {
    /// Reference index in the BAMs (`-1`: the contig is not in the BAMs).
    pub ref_id: i32,
    /// 0-based position.
    pub pos: i64,
    /// REF letter.
    pub reference: u8,
    /// ALT letter.
    pub alternate: u8,
}

/// The first covered position at or after some position of a contig.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// At this 0-based position of the same contig.
    At(i64),
    /// Nothing is covered from there to the end of the contig.
    PastContig,
}

/// What a worker found about one site.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SiteFinding<'a> {
    /// First covered position at or after the site.
    pub next: Next,
    /// First covered position after the site.
    pub next_after: Next,
    /// Per file: `[R, A, E, D, depth]` at the site (used when the site is covered).
    pub counts: &'a [[u32; 5]],
}

/// A covered position found past a contig's end, with each file's `[counted, depth]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundPosition {
    /// Reference index.
    pub ref_id: i32,
    /// 0-based position.
    pub pos: i64,
    /// Per file: bases and deletions counted, and pileup depth.
    pub counts: Vec<[u32; 2]>,
}

/// Finds covered positions beyond what the workers looked at.
pub trait CoverageProbe {
    /// The error of a failed look-up.
    type Error;
    /// The first covered position on a contig after `ref_id` (on any contig for `-1`).
    fn first_after_contig(&mut self, ref_id: i32) -> Result<Option<FoundPosition>, Self::Error>;
}

/// The walk's output settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowRules {
    /// Minimum pileup depth per file for a row (`-r`).
    pub min_depth: Vec<i64>,
    /// Pseudo-SNP spacing (`-P`; 0: none).
    pub pseudo_every: i64,
}

/// Where a [`SiteWalker`] stands between two sites: what another walker needs to go on
/// from there (on another machine).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WalkerState {
    /// The last position consumed.
    pub cursor: Option<(i32, i64)>,
    /// Whether the pileup has ended.
    pub finished: bool,
    /// The pseudo-SNP positions offered and not yet consumed, in position order, one
    /// entry per position (they come mostly in order: a queue, not a tree).
    pub pseudo: VecDeque<OfferedPseudo>,
}

/// A pseudo-SNP position (reference index, 0-based position) with each file's counted
/// bases and depth there.
pub type OfferedPseudo = ((i32, i64), Vec<[u32; 2]>);

/// snp-pileup's walk (see the module docs), giving its rows to a [`RowSink`].
#[derive(Debug, Clone)]
pub struct SiteWalker {
    rules: RowRules,
    files: usize,
    state: WalkerState,
}

impl SiteWalker {
    /// A walk over `files` BAMs.
    pub fn new(rules: RowRules, files: usize) -> Self {
        Self {
            rules,
            files,
            state: WalkerState::default(),
        }
    }

    /// The CSV header line.
    pub fn header(&self) -> Vec<u8> {
        Self::header_for(self.files)
    }

    /// The CSV header line of a walk over `files` BAMs.
    pub fn header_for(files: usize) -> Vec<u8> {
        let mut h = b"Chromosome,Position,Ref,Alt".to_vec();
        for i in 1..=files {
            for kind in ["R", "A", "E", "D"] {
                h.extend_from_slice(format!(",File{i}{kind}").as_bytes());
            }
        }
        h.push(b'\n');
        h
    }

    /// The walk's output settings.
    pub fn rules(&self) -> &RowRules {
        &self.rules
    }

    /// The last position consumed.
    pub fn cursor(&self) -> Option<(i32, i64)> {
        self.state.cursor
    }

    /// Whether the pileup has ended: no site gets a row any more.
    pub fn finished(&self) -> bool {
        self.state.finished
    }

    /// Continues the walk from `cursor`, the last position consumed by a walk of the
    /// sites before (another walker's [`SiteWalker::cursor`], on the same sites' findings).
    pub fn resume_at(&mut self, cursor: (i32, i64)) {
        self.state.cursor = Some(cursor);
    }

    /// Where the walk stands (see [`SiteWalker::restore`]).
    pub fn state(&self) -> WalkerState {
        self.state.clone()
    }

    /// Goes on from where another walker of the same run stood ([`SiteWalker::state`]),
    /// as if it had walked the sites before.
    pub fn restore(&mut self, state: WalkerState) {
        self.state = state;
    }

    /// Whether 0-based `pos` is a pseudo-SNP position.
    pub fn is_pseudo_position(&self, pos: i64) -> bool {
        self.rules.pseudo_every != 0 && (pos + 1) % self.rules.pseudo_every == 0
    }

    /// Offers the counts at a covered pseudo-SNP position (ignored once passed).
    pub fn offer_pseudo(&mut self, ref_id: i32, pos: i64, counts: &[[u32; 2]]) {
        let at = (ref_id, pos);
        if self.state.cursor.is_some_and(|c| at <= c) {
            return;
        }
        match self.state.pseudo.back() {
            Some((last, _)) if *last >= at => {
                // Out of order, or offered again (the first offer stands).
                if let Err(i) = self.state.pseudo.binary_search_by(|(k, _)| k.cmp(&at)) {
                    self.state.pseudo.insert(i, (at, counts.to_vec()));
                }
            }
            _ => self.state.pseudo.push_back((at, counts.to_vec())),
        }
    }

    /// Walks one site (in VCF order) and gives any rows to `out`. `finding` is the
    /// worker's result for a site on a BAM contig (`None` for `ref_id == -1`); `names`
    /// are the BAM's contig names.
    pub fn visit<P: CoverageProbe>(
        &mut self,
        site: &Site,
        finding: Option<SiteFinding<'_>>,
        probe: &mut P,
        names: &[String],
        out: &mut impl RowSink,
    ) -> Result<(), P::Error> {
        if self.state.finished {
            return Ok(());
        }
        let key = (site.ref_id, site.pos);
        let (next, counts) = match (site.ref_id, finding) {
            (id, Some(f)) if id >= 0 => {
                if self.state.cursor.is_some_and(|c| key < c) {
                    return Ok(());
                }
                let next = if self.state.cursor == Some(key) {
                    f.next_after
                } else {
                    f.next
                };
                (next, Some(f.counts))
            }
            _ => {
                if self.state.cursor.is_some() {
                    return Ok(());
                }
                (Next::PastContig, None)
            }
        };
        let target = match next {
            Next::At(pos) => Some((site.ref_id, pos)),
            Next::PastContig => probe.first_after_contig(site.ref_id)?.map(|found| {
                let at = (found.ref_id, found.pos);
                if self.is_pseudo_position(found.pos) {
                    self.offer_pseudo(found.ref_id, found.pos, &found.counts);
                }
                at
            }),
        };
        self.consume(site, target, names, out);
        if target == Some(key) {
            if let Some(counts) = counts {
                self.site_row(site, counts, names, out);
            }
        }
        Ok(())
    }

    /// Consumes the covered positions up to `target` (all of them when `None`, the end
    /// of the pileup), writing the pseudo-SNP rows.
    fn consume(
        &mut self,
        site: &Site,
        target: Option<(i32, i64)>,
        names: &[String],
        out: &mut impl RowSink,
    ) {
        let key = (site.ref_id, site.pos);
        while let Some((at, counts)) = self.state.pseudo.pop_front() {
            if target.is_some_and(|t| at > t) {
                self.state.pseudo.push_front((at, counts));
                break;
            }
            if self.state.cursor.is_some_and(|c| at <= c) || at.0 < site.ref_id || at == key {
                continue;
            }
            self.pseudo_row(at, &counts, names, out);
        }
        match target {
            Some(t) => self.state.cursor = Some(t),
            None => self.state.finished = true,
        }
    }

    fn passes(&self, depth: impl Iterator<Item = u32>) -> bool {
        depth
            .zip(&self.rules.min_depth)
            .all(|(d, &min)| i64::from(d) >= min)
    }

    fn site_row(&self, site: &Site, counts: &[[u32; 5]], names: &[String], out: &mut impl RowSink) {
        if !self.passes(counts.iter().map(|c| c[4]))
            || !counts.iter().any(|c| c[0] + c[1] + c[2] > 0)
        {
            return;
        }
        let contig = &names[site.ref_id as usize];
        let alleles = [site.reference, site.alternate];
        out.site_row(contig, site.ref_id, site.pos as u64 + 1, alleles, counts);
    }

    fn pseudo_row(
        &self,
        at: (i32, i64),
        counts: &[[u32; 2]],
        names: &[String],
        out: &mut impl RowSink,
    ) {
        if !self.is_pseudo_position(at.1)
            || !self.passes(counts.iter().map(|c| c[1]))
            || !counts.iter().any(|c| c[0] > 0)
        {
            return;
        }
        out.pseudo_row(&names[at.0 as usize], at.0, at.1 as u64 + 1, counts);
    }
}

#[cfg(test)]
#[path = "visit_tests.rs"]
mod tests;
