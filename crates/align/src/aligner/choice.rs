//! The choice among a read's alignments: its placements, best first, the second-best
//! score and the mapping quality.

use super::{bowtie2, read_hash, Aligner, Outcome, ReadInput, ReadResult, Unaligned};
use crate::candidate::{n_columns, place};
use crate::mapq::{bowtie2_mapq, mapq, MapqInput, MapqModel};

impl Aligner<'_> {
    /// Picks the best placement of read `r`, the runner-up and the mapping quality.
    ///
    /// With bowtie2's mapping quality, `met` receives when bowtie2 meets each
    /// placement (see [`Aligner::bowtie2_meets`]), in the placements' order.
    pub(super) fn conclude(
        &self,
        r: usize,
        read: &ReadInput<'_>,
        met_out: &mut Vec<u64>,
    ) -> ReadResult {
        let prepared = &self.prepared[r];
        let len = read.bases.len();
        let scoring = &self.params.scoring;
        let min_score = scoring.min_score(len);
        let max_ns = scoring.max_ns(len);
        // (score, reverse, reference start, reference end, candidate)
        let mut found: Vec<(i32, bool, i64, i64, usize)> = Vec::new();
        for c in prepared
            .candidates
            .clone()
            .chain(prepared.other_offsets.clone())
        {
            let cand = &self.candidates[c];
            let Outcome::Done(Some(ext)) = &cand.outcome else {
                continue;
            };
            if !prepared.strands[usize::from(cand.reverse)] {
                continue;
            }
            let (codes, _) = self.oriented(r, cand.reverse);
            let window = &self.windows[cand.window.clone()];
            if ext.score < min_score || n_columns(codes, window, ext) > max_ns {
                continue;
            }
            let start = cand.window_start + ext.window_start as i64;
            let end = cand.window_start + ext.window_end as i64;
            found.push((ext.score, cand.reverse, start, end, c));
        }
        if found.is_empty() {
            return ReadResult::Unaligned(Unaligned::NoAlignment);
        }
        // Best first; each alignment once (two regions may lead to the same one: same
        // strand and same start or end). Overlapping alignments at other offsets are
        // distinct places (tandem repeats).
        found.sort_by_key(|&(score, reverse, start, _, _)| {
            (std::cmp::Reverse(score), reverse, start)
        });
        let mut kept = 0;
        for i in 0..found.len() {
            let f = found[i];
            let same = found[..kept]
                .iter()
                .any(|d| d.1 == f.1 && (d.2 == f.2 || d.3 == f.3));
            if !same {
                found[kept] = f;
                kept += 1;
            }
        }
        found.truncate(kept);
        let mut distinct = found;
        // bowtie2's mapping quality: when bowtie2 meets each alignment (`None`: never).
        let mut met: Vec<Option<u64>> = Vec::new();
        if self.bowtie2_runner_ups() {
            // The alignments bowtie2 finds; the best ones when it would find none of
            // them (it may find them otherwise).
            let mut seen: Vec<_> = distinct
                .iter()
                .map(|&d| (d, self.bowtie2_meets(&self.candidates[d.4])))
                .collect();
            let top = distinct[0].0;
            let top_seen = seen.iter().any(|(d, m)| d.0 == top && m.is_some());
            seen.retain(|(d, m)| m.is_some() || (!top_seen && d.0 == top));
            (distinct, met) = seen.into_iter().unzip();
        }
        let best = distinct[0].0;
        let ties = distinct.iter().take_while(|d| d.0 == best).count();
        // (The hash walks the whole read: only a tie needs it.)
        if ties > 1 {
            let chosen = (read_hash(read, self.params.tie_seed) % ties as u64) as usize;
            distinct.swap(0, chosen);
            if !met.is_empty() {
                met.swap(0, chosen);
            }
        }
        let second_best = if met.is_empty() {
            distinct.get(1).map(|d| d.0)
        } else {
            let others = distinct[1..]
                .iter()
                .zip(&met[1..])
                .map(|(d, m)| (m.unwrap_or(u64::MAX), d.0));
            bowtie2::second_best_met(best, scoring.perfect_score(len), others.collect())
        };
        let quality = match self.params.mapq {
            MapqModel::Bowtie2(version) => bowtie2_mapq(
                version,
                &scoring.bowtie2_scores(best, second_best, len),
                scoring.monotone(),
                false,
            ),
            MapqModel::Calibrated => mapq(
                scoring,
                &MapqInput {
                    best,
                    second: second_best,
                    best_count: ties,
                    second_bound: prepared.second_bound,
                    unique_seeds: prepared.unique_seeds,
                    read_len: len,
                    repetitive_fraction: prepared.stats.repetitive_fraction,
                    unexplored: prepared.dropped_regions,
                },
            ),
        };
        let kept = self.params.report.max(self.kept_placements).max(1);
        let mut placements = Vec::with_capacity(kept.min(distinct.len()));
        for (k, d) in distinct.iter().enumerate().take(kept) {
            let cand = &self.candidates[d.4];
            let Outcome::Done(Some(ext)) = &cand.outcome else {
                continue;
            };
            let (codes, _) = self.oriented(r, cand.reverse);
            let window = &self.windows[cand.window.clone()];
            if let Some(p) = place(
                self.index,
                codes,
                window,
                cand.window_start,
                cand.reverse,
                ext,
            ) {
                placements.push(p);
                if let Some(&m) = met.get(k) {
                    met_out.push(m.unwrap_or(u64::MAX));
                }
            }
        }
        if placements.is_empty() {
            return ReadResult::Unaligned(Unaligned::NoAlignment);
        }
        ReadResult::Aligned {
            placements,
            second_best,
            mapq: quality,
        }
    }
}
