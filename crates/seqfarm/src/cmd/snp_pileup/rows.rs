//! The worker's last step without pseudo-SNPs: the rows of a task's sites, where they do
//! not depend on the tasks before it.
//!
//! snp-pileup's walk carries one thing from site to site: the last covered position it
//! consumed (the cursor). Entering a task, the cursor lies after the sites of the tasks
//! before; the task's walk depends on it only until its first site on a BAM contig,
//! which is visited alike whatever cursor lies before it (before the first site, sites
//! on contigs absent from the BAMs are skipped once the walk has consumed a position).
//! So a worker walks its task from a cursor just before that site, and the collector
//! uses the rows as they are when its own cursor lies before that site too; otherwise
//! (the cursor already at or past it, or nothing consumed yet and an absent contig
//! first) it walks the task itself. The worker stops at the first site whose next
//! covered position lies past its contig: finding it reads later contigs, which the
//! collector does once for the whole run; the collector walks the task from there.

use seqfarm_regions::pileup::visit::{CoverageProbe, FoundPosition, Site, SiteFinding, SiteWalker};

use super::Task;

/// A probe that looks nowhere: the walk stops where it needs one.
struct NoProbe;

/// The walk reached a site whose next covered position lies on a later contig.
struct PastContig;

impl CoverageProbe for NoProbe {
    type Error = PastContig;

    fn first_after_contig(&mut self, _: i32) -> Result<Option<FoundPosition>, PastContig> {
        Err(PastContig)
    }
}

/// Walks `task` (sites and findings filled in) from a cursor just before its first site
/// on a BAM contig, writing its rows, how far it went and where the cursor ended.
pub fn walk(task: &mut Task, walker: &mut SiteWalker, files: usize, names: &[String]) {
    task.rows.clear();
    task.cursor = None;
    let first = task.sites.iter().position(|s| s.ref_id >= 0);
    task.lead_absent = first.map_or(!task.sites.is_empty(), |i| i > 0);
    let Some(first) = first.map(|i| task.sites[i]) else {
        task.walked = task.sites.len();
        return;
    };
    let start = (first.ref_id, first.pos - 1);
    walker.resume_at(start);
    let mut rows = std::mem::take(&mut task.rows);
    let mut walked = task.sites.len();
    for (i, (site, finding)) in findings(task, files).enumerate() {
        if walker
            .visit(site, finding, &mut NoProbe, names, &mut rows)
            .is_err()
        {
            walked = i;
            break;
        }
    }
    task.rows = rows;
    task.walked = walked;
    task.cursor = walker.cursor().filter(|&c| c != start);
}

/// The sites of `task` in VCF order, each with the workers' finding (`None` for a site on
/// a contig the BAMs lack); `files` BAMs.
pub fn findings(
    task: &Task,
    files: usize,
) -> impl Iterator<Item = (&Site, Option<SiteFinding<'_>>)> {
    let mut k = 0;
    task.sites.iter().map(move |site| {
        let finding = (site.ref_id >= 0).then(|| {
            let (next, next_after) = task.found.nexts[k];
            let counts = &task.found.counts[k * files..(k + 1) * files];
            k += 1;
            SiteFinding {
                next,
                next_after,
                counts,
            }
        });
        (site, finding)
    })
}

/// The collector's use of [`walk`]'s rows: where they are [`usable`] from `walker`'s
/// state, appends them to `out`, moves `walker` to where they end and returns how many
/// of the task's sites they cover; otherwise 0 (the collector walks the whole task).
pub fn take_rows(task: &Task, walker: &mut SiteWalker, out: &mut Vec<u8>) -> usize {
    if !usable(task, walker.cursor(), walker.finished()) {
        return 0;
    }
    out.extend_from_slice(&task.rows);
    if let Some(cursor) = task.cursor {
        walker.resume_at(cursor);
    }
    task.walked
}

/// Whether the collector, its walk at `cursor` (`finished`: the pileup ended), can use
/// the rows of [`walk`] for `task`.
pub fn usable(task: &Task, cursor: Option<(i32, i64)>, finished: bool) -> bool {
    if finished {
        return false;
    }
    let first = task.sites.iter().find(|s| s.ref_id >= 0);
    match (cursor, first) {
        (Some(c), Some(site)) => c < (site.ref_id, site.pos),
        (None, Some(_)) => !task.lead_absent,
        (Some(_), None) => true,
        (None, None) => task.sites.is_empty(),
    }
}

#[cfg(test)]
pub(super) mod tests {
    use seqfarm_regions::pileup::visit::{Next, RowRules, Site};

    use super::*;

    /// A probe that finds nothing past a contig.
    struct Nothing;

    impl CoverageProbe for Nothing {
        type Error = ();

        fn first_after_contig(&mut self, _: i32) -> Result<Option<FoundPosition>, ()> {
            Ok(None)
        }
    }

    /// An A>C site at `pos` of contig `ref_id`.
    pub(in crate::cmd::snp_pileup) fn site(ref_id: i32, pos: i64) -> Site {
        Site {
            ref_id,
            pos,
            reference: b'A',
            alternate: b'C',
        }
    }

    /// A task whose covered positions are `covered` (contig 0), one file counting 1 each.
    fn task(sites: &[Site], covered: &[i64]) -> Task {
        let next = |p: i64| {
            covered
                .iter()
                .find(|&&c| c >= p)
                .map_or(Next::PastContig, |&c| Next::At(c))
        };
        let mut task = Task::default();
        for s in sites.iter().filter(|s| s.ref_id >= 0) {
            task.found.nexts.push((next(s.pos), next(s.pos + 1)));
            let n = u32::from(covered.contains(&s.pos));
            task.found.counts.push([n, 0, 0, 0, n]);
        }
        task.sites = sites.to_vec();
        task
    }

    fn walker() -> SiteWalker {
        SiteWalker::new(
            RowRules {
                min_depth: vec![0],
                pseudo_every: 0,
            },
            1,
        )
    }

    /// The collector's walk of `task` from `cursor`, with the worker's rows where usable.
    fn collected(task: &Task, cursor: Option<(i32, i64)>, names: &[String]) -> (Vec<u8>, bool) {
        let mut walker = walker();
        if let Some(c) = cursor {
            walker.resume_at(c);
        }
        let mut out = Vec::new();
        let fast = usable(task, walker.cursor(), walker.finished());
        let from = take_rows(task, &mut walker, &mut out);
        for (s, finding) in findings(task, 1).skip(from) {
            walker
                .visit(s, finding, &mut Nothing, names, &mut out)
                .unwrap();
        }
        (out, fast)
    }

    #[test]
    fn worker_rows_match_the_whole_walk_from_any_cursor() {
        let names = vec!["c0".to_string()];
        let sites = [
            site(-1, 3),
            site(0, 10),
            site(0, 10),
            site(0, 11),
            site(0, 15),
            site(-1, 1),
            site(0, 30),
            site(0, 40),
        ];
        let covered = [10, 12, 15, 16, 30];
        for cursor in [
            None,
            Some((0, 2)),
            Some((0, 9)),
            Some((0, 10)),
            Some((0, 12)),
        ] {
            let mut t = task(&sites, &covered);
            let mut whole = task(&sites, &covered);
            walk(&mut t, &mut walker(), 1, &names);
            whole.rows.clear();
            whole.walked = 0;
            let (got, fast) = collected(&t, cursor, &names);
            let (want, _) = collected(&whole, cursor, &names);
            assert_eq!(got, want, "cursor {cursor:?}");
            assert_eq!(
                fast,
                cursor.is_some_and(|c| c < (0, 10)),
                "cursor {cursor:?}"
            );
        }
        // The site at 40 has nothing covered after it: the worker stops there.
        let mut t = task(&sites, &covered);
        walk(&mut t, &mut walker(), 1, &names);
        assert_eq!(t.walked, 7);
        assert_eq!(t.cursor, Some((0, 30)));
        assert!(t.lead_absent);
        assert_eq!(
            t.rows,
            b"c0,11,A,C,1,0,0,0\nc0,16,A,C,1,0,0,0\nc0,31,A,C,1,0,0,0\n"
        );
    }
}
