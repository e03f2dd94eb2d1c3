//! The scalar reference kernel: one job at a time, plain Rust, the recurrence exactly as
//! the SIMD kernels compute it lane by lane (16-bit saturating arithmetic, the same
//! tie-breaking), so their results are compared for equality.

use super::{
    dir, overwritten, BestCell, ExtendJob, KernelParams, FORBIDDEN, NEG, REF_N, REF_PAD, WALL,
};

/// Score of pairing read code `read` (with match score `ma`, mismatch score `mm` for
/// its row) with window code `reference`.
#[inline]
pub(crate) fn pair_score(read: u8, reference: u8, ma: i16, mm: i16, n_penalty: i16) -> i16 {
    let floor = if reference == REF_N { -n_penalty } else { NEG };
    let cap = if reference == REF_PAD { WALL } else { i16::MAX };
    let s = if reference == read { ma } else { mm };
    s.max(floor).min(cap)
}

/// Match and mismatch scores of row `i`: an N in the read scores `-n_penalty` either way.
#[inline]
pub(crate) fn row_scores(job: &ExtendJob<'_>, p: &KernelParams, i: usize) -> (i16, i16) {
    if job.read[i] >= REF_N {
        (-p.n_penalty, -p.n_penalty)
    } else {
        (p.match_bonus, -job.penalties[i])
    }
}

/// Gap costs of row `i` (first base, extension) for deletions and insertions:
/// [`FORBIDDEN`] inside the gap barrier.
#[inline]
pub(crate) fn row_gaps(p: &KernelParams, i: usize, len: usize) -> [i16; 4] {
    if p.gaps_allowed(i, len) {
        [p.del_first, p.del_extend, p.ins_first, p.ins_extend]
    } else {
        [FORBIDDEN; 4]
    }
}

/// Fills the direction matrix of `job` (`len × (2·band + 1)` bytes, row-major, into
/// `dirs`) and returns the best cell: the highest-scoring cell of the last row
/// (end-to-end) or of the whole matrix (local); ties go to the last in row-major
/// order, the highest row and then the highest column, as bowtie2 ranks its
/// backtrace candidates (so a local alignment runs on through a stretch that scores
/// net 0, and of an insertion and a deletion at one score the deletion ends further
/// right).
pub(crate) fn fill(job: &ExtendJob<'_>, p: &KernelParams, dirs: &mut Vec<u8>) -> BestCell {
    let len = job.read.len();
    let width = 2 * job.band + 1;
    let dirs = overwritten(dirs, len * width);
    let mut h_prev = vec![0i16; width + 1];
    let mut f_prev = vec![NEG; width + 1];
    h_prev[width] = NEG;
    let mut h_cur = vec![NEG; width + 1];
    let mut f_cur = vec![NEG; width + 1];
    let mut best = BestCell {
        score: if p.local { 0 } else { NEG },
        row: -1,
        k: 0,
    };
    for i in 0..len {
        let (ma, mm) = row_scores(job, p, i);
        let [del_first, del_extend, ins_first, ins_extend] = row_gaps(p, i, len);
        let read = job.read[i];
        let (mut h_left, mut e_left) = (NEG, NEG);
        for k in 0..width {
            let s = pair_score(read, job.window[i + k], ma, mm, p.n_penalty);
            let diag = h_prev[k].saturating_add(s);
            let e_open = h_left.saturating_sub(del_first);
            let e_ext = e_left.saturating_sub(del_extend);
            let e = e_open.max(e_ext);
            let f_open = h_prev[k + 1].saturating_sub(ins_first);
            let f_ext = f_prev[k + 1].saturating_sub(ins_extend);
            let f = f_open.max(f_ext);
            let mut h = diag.max(e).max(f);
            let mut d = if h == diag {
                dir::DIAG
            } else if h == e {
                dir::FROM_E
            } else {
                dir::FROM_F
            };
            if p.local {
                h = h.max(0);
                if h == 0 {
                    d = dir::STOP;
                }
                if h > 0 && h >= best.score {
                    best = BestCell {
                        score: h,
                        row: i as i32,
                        k: k as i32,
                    };
                }
            }
            if e_ext > e_open {
                d |= dir::E_EXTENDS;
            }
            if f_ext > f_open {
                d |= dir::F_EXTENDS;
            }
            dirs[i * width + k] = d;
            h_cur[k] = h;
            f_cur[k] = f;
            h_left = h;
            e_left = e;
        }
        if !p.local && i + 1 == len {
            for (k, &h) in h_cur[..width].iter().enumerate() {
                if h >= best.score {
                    best = BestCell {
                        score: h,
                        row: i as i32,
                        k: k as i32,
                    };
                }
            }
        }
        std::mem::swap(&mut h_prev, &mut h_cur);
        std::mem::swap(&mut f_prev, &mut f_cur);
    }
    best
}
