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

use seqfarm_regions::pileup::visit::{CoverageProbe, FoundPosition, SiteFinding, SiteWalker};

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
    task.walked = task.sites.len();
    let mut k = 0;
    for (i, site) in task.sites.iter().enumerate() {
        let finding = (site.ref_id >= 0).then(|| {
            let (next, next_after) = task.nexts[k];
            let counts = &task.counts[k * files..(k + 1) * files];
            k += 1;
            SiteFinding {
                next,
                next_after,
                counts,
            }
        });
        if walker
            .visit(site, finding, &mut NoProbe, names, &mut task.rows)
            .is_err()
        {
            task.walked = i;
            break;
        }
    }
    task.cursor = walker.cursor().filter(|&c| c != start);
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
