//! The extension driver: groups jobs into SIMD lanes, lays their inputs out row by row
//! for the kernels, runs the kernel the CPU supports, and traces each lane back.

use super::scalar::{self, row_gaps, row_scores};
use super::traceback::traceback;
use super::{
    avx2, avx512, lanes, overwritten, BestCell, ExtendJob, Extension, KernelParams, SimdLevel,
    FORBIDDEN, NEG, REF_N, REF_PAD, WALL,
};
use crate::scoring::Scoring;
use seqfarm_core::SimdError;

/// Largest `rows × band width` a SIMD group takes (its direction matrix is this many
/// bytes per lane); larger jobs run on the scalar kernel.
const MAX_GROUP_CELLS: usize = 1 << 16;

/// The inputs of one SIMD group, transposed: value `[row][lane]` at `row * lanes + lane`.
#[derive(Debug, Default)]
pub(crate) struct GroupBuffers {
    pub lanes: usize,
    pub width: usize,
    pub rows: usize,
    /// Per row: read code, match score, mismatch score, deletion first/extend cost,
    /// insertion first/extend cost.
    pub read: Vec<i16>,
    pub match_score: Vec<i16>,
    pub mismatch_score: Vec<i16>,
    pub del_first: Vec<i16>,
    pub del_extend: Vec<i16>,
    pub ins_first: Vec<i16>,
    pub ins_extend: Vec<i16>,
    /// Per window column (`rows + width - 1`): reference code, score floor (N), cap (pad).
    pub reference: Vec<i16>,
    pub floor: Vec<i16>,
    pub cap: Vec<i16>,
    /// Per lane: last row of its read (`-1` for an empty lane).
    pub last_row: Vec<i16>,
    /// Per row: whether some lane's read ends there.
    pub row_ends: Vec<bool>,
    /// Kernel scratch: `H` and `F` of the previous and current rows, `(width + 1) × lanes`.
    pub h_prev: Vec<i16>,
    pub h_cur: Vec<i16>,
    pub f_prev: Vec<i16>,
    pub f_cur: Vec<i16>,
}

impl GroupBuffers {
    /// Lays out `jobs` (at most `lanes`, all with band `band`) for a kernel.
    fn load(&mut self, jobs: &[&ExtendJob<'_>], lanes: usize, band: usize, p: &KernelParams) {
        let rows = jobs.iter().map(|j| j.read.len()).max().unwrap_or(0);
        let width = 2 * band + 1;
        let cols = rows + width - 1;
        self.lanes = lanes;
        self.width = width;
        self.rows = rows;
        let fill = |v: &mut Vec<i16>, n: usize, value: i16| {
            v.clear();
            v.resize(n * lanes, value);
        };
        fill(&mut self.read, rows, i16::from(REF_N));
        fill(&mut self.match_score, rows, -p.n_penalty);
        fill(&mut self.mismatch_score, rows, -p.n_penalty);
        self.load_gaps(jobs, lanes, rows, p);
        fill(&mut self.reference, cols, i16::from(REF_PAD));
        fill(&mut self.floor, cols, NEG);
        fill(&mut self.cap, cols, WALL);
        self.last_row.clear();
        self.last_row.resize(lanes, -1);
        self.row_ends.clear();
        self.row_ends.resize(rows, false);
        for (lane, job) in jobs.iter().enumerate() {
            let len = job.read.len();
            self.last_row[lane] = len as i16 - 1;
            if len > 0 {
                self.row_ends[len - 1] = true;
            }
            for i in 0..len {
                let at = i * lanes + lane;
                let (ma, mm) = row_scores(job, p, i);
                self.read[at] = i16::from(job.read[i].min(REF_N));
                self.match_score[at] = ma;
                self.mismatch_score[at] = mm;
            }
            for (j, &code) in job.window.iter().enumerate().take(cols) {
                let at = j * lanes + lane;
                self.reference[at] = i16::from(code);
                self.floor[at] = if code == REF_N { -p.n_penalty } else { NEG };
                self.cap[at] = if code == REF_PAD { WALL } else { i16::MAX };
            }
        }
        let scratch = (width + 1) * lanes;
        for v in [
            &mut self.h_prev,
            &mut self.h_cur,
            &mut self.f_prev,
            &mut self.f_cur,
        ] {
            v.clear();
            v.resize(scratch, NEG);
        }
    }

    /// The gap costs of every row and lane. They depend on the row and the length of the
    /// lane's read alone, so lanes with reads of one length (neighbours: groups are sorted
    /// by length) are written together, a row's run of lanes at a time; rows past a
    /// read's end, and empty lanes, forbid gaps.
    fn load_gaps(&mut self, jobs: &[&ExtendJob<'_>], lanes: usize, rows: usize, p: &KernelParams) {
        for v in self.gap_rows() {
            overwritten(v, rows * lanes);
        }
        let len_of = |lane: usize| jobs.get(lane).map_or(0, |j| j.read.len());
        let mut first = 0;
        while first < lanes {
            let len = len_of(first);
            let end = (first + 1..lanes)
                .find(|&lane| len_of(lane) != len)
                .unwrap_or(lanes);
            for i in 0..rows {
                let costs = if i < len {
                    row_gaps(p, i, len)
                } else {
                    [FORBIDDEN; 4]
                };
                let lanes_of_row = i * lanes + first..i * lanes + end;
                for (v, cost) in self.gap_rows().into_iter().zip(costs) {
                    v[lanes_of_row.clone()].fill(cost);
                }
            }
            first = end;
        }
    }

    /// The four gap-cost arrays, in [`row_gaps`]'s order.
    fn gap_rows(&mut self) -> [&mut Vec<i16>; 4] {
        [
            &mut self.del_first,
            &mut self.del_extend,
            &mut self.ins_first,
            &mut self.ins_extend,
        ]
    }
}

/// Runs extension jobs on the best kernel the CPU has. One per worker thread: it keeps
/// its buffers between calls.
#[derive(Debug)]
pub struct Extender {
    level: SimdLevel,
    order: Vec<usize>,
    buffers: GroupBuffers,
    dirs: Vec<u8>,
    best_score: Vec<i16>,
    best_row: Vec<i16>,
    best_k: Vec<i16>,
}

impl Extender {
    /// An extender on the level `SEQFARM_SIMD` names, or the best this CPU runs; an
    /// unknown name or a level the CPU lacks is an error ([`SimdLevel::from_env`]).
    pub fn new() -> Result<Self, SimdError> {
        SimdLevel::from_env().map(Self::with_level)
    }

    /// An extender on `level` (scalar if the CPU lacks it).
    pub fn with_level(level: SimdLevel) -> Self {
        let level = if level.is_supported() {
            level
        } else {
            SimdLevel::Scalar
        };
        Self {
            level,
            order: Vec::new(),
            buffers: GroupBuffers::default(),
            dirs: Vec::new(),
            best_score: Vec::new(),
            best_row: Vec::new(),
            best_k: Vec::new(),
        }
    }

    /// The kernel in use.
    pub fn level(&self) -> SimdLevel {
        self.level
    }

    /// Extends every job; `out[i]` (resized to `jobs.len()`) is job `i`'s best
    /// alignment, or `None` when it scores below the job's `min_score` (or nothing
    /// aligns, in local mode). Each job's result depends on that job alone.
    pub fn extend(
        &mut self,
        jobs: &[ExtendJob<'_>],
        scoring: &Scoring,
        out: &mut Vec<Option<Extension>>,
    ) {
        let p = KernelParams::new(scoring);
        out.clear();
        out.resize(jobs.len(), None);
        let lanes = lanes(self.level);
        self.order.clear();
        for (i, job) in jobs.iter().enumerate() {
            let width = 2 * job.band + 1;
            let fits = job.read.len() * width <= MAX_GROUP_CELLS;
            if job.read.is_empty() || job.window.len() != job.read.len() + 2 * job.band {
                continue;
            }
            if lanes == 1 || !fits {
                let best = scalar::fill(job, &p, &mut self.dirs);
                out[i] = finish(job, &p, best, width, |r, k| self.dirs[r * width + k]);
            } else {
                self.order.push(i);
            }
        }
        let mut order = std::mem::take(&mut self.order);
        order.sort_by_key(|&i| (jobs[i].band, jobs[i].read.len()));
        let mut start = 0;
        while start < order.len() {
            let band = jobs[order[start]].band;
            let mut end = start + 1;
            while end < order.len() && end - start < lanes && jobs[order[end]].band == band {
                end += 1;
            }
            let group: Vec<&ExtendJob<'_>> = order[start..end].iter().map(|&i| &jobs[i]).collect();
            self.run_group(&group, band, &p);
            let width = 2 * band + 1;
            for (lane, &i) in order[start..end].iter().enumerate() {
                let best = BestCell {
                    score: self.best_score[lane],
                    row: i32::from(self.best_row[lane]),
                    k: i32::from(self.best_k[lane]),
                };
                let dirs = &self.dirs;
                out[i] = finish(&jobs[i], &p, best, width, |r, k| {
                    dirs[(r * width + k) * lanes + lane]
                });
            }
            start = end;
        }
        self.order = order;
    }

    fn run_group(&mut self, jobs: &[&ExtendJob<'_>], band: usize, p: &KernelParams) {
        let lanes = lanes(self.level);
        self.buffers.load(jobs, lanes, band, p);
        let b = &self.buffers;
        let dirs = overwritten(&mut self.dirs, b.rows * b.width * lanes);
        self.best_score.clear();
        self.best_score.resize(lanes, if p.local { 0 } else { NEG });
        self.best_row.clear();
        self.best_row.extend_from_slice(&b.last_row);
        if p.local {
            self.best_row.fill(-1);
        }
        self.best_k.clear();
        self.best_k.resize(lanes, 0);
        let best = (
            &mut self.best_score[..],
            &mut self.best_row[..],
            &mut self.best_k[..],
        );
        match self.level {
            // SAFETY: `with_level` keeps a SIMD level only when the CPU supports it.
            SimdLevel::Avx2 => unsafe { avx2::fill(&mut self.buffers, p, dirs, best) },
            // SAFETY: as above.
            SimdLevel::Avx512 => unsafe { avx512::fill(&mut self.buffers, p, dirs, best) },
            SimdLevel::Scalar => unreachable_scalar_group(),
        }
    }
}

/// Groups are only formed for SIMD levels.
#[cold]
fn unreachable_scalar_group() {
    debug_assert!(false, "scalar jobs never form groups");
}

/// The extension of a job from its best cell, if it scores at least the job's minimum.
fn finish(
    job: &ExtendJob<'_>,
    p: &KernelParams,
    best: BestCell,
    width: usize,
    direction: impl Fn(usize, usize) -> u8,
) -> Option<Extension> {
    let score = i32::from(best.score);
    if best.row < 0 || score < job.min_score || (p.local && score <= 0) {
        return None;
    }
    let mut ext = Extension::default();
    traceback(
        direction,
        width,
        best.row as usize,
        best.k as usize,
        score,
        &mut ext,
    )
    .then_some(ext)
}
