//! A candidate region turned into an alignment problem: the reference window around
//! its band, the ungapped shortcut, and the final placement (contig coordinates, CIGAR
//! with clips, MD/NM).

use seqfarm_core::nucleotide::decode;
use seqfarm_fmindex::FmIndex;

use crate::cigar::{edit_summary, left_align_gaps, Cigar, CigarOp, EditSummary};
use crate::dp::scalar::pair_score;
use crate::dp::{Extension, REF_N, REF_PAD};
use crate::scoring::{AlignMode, Scoring};

/// Band half-widths jobs are rounded up to (so SIMD groups fill up).
const BAND_CLASSES: [usize; 4] = [8, 16, 32, 64];

/// The band half-width for a region whose anchors spread over `spread` diagonals, for
/// a read of `len` bases: room for the spread plus a margin, at most the longest gap a
/// valid alignment can hold.
pub fn band_for(spread: u64, len: usize, scoring: &Scoring) -> usize {
    let wanted = spread as usize + 8;
    let cap = scoring.max_gap(len).max(8);
    let wanted = wanted.min(cap);
    BAND_CLASSES
        .iter()
        .copied()
        .find(|&b| b >= wanted)
        .unwrap_or(BAND_CLASSES[BAND_CLASSES.len() - 1])
}

/// Writes into `out` the window codes of global coordinates `start..start + len`
/// (`start` may be negative), [`REF_PAD`] outside `contig_start..contig_end`.
pub fn fetch_window(
    index: &FmIndex,
    start: i64,
    len: usize,
    contig_start: u64,
    contig_end: u64,
    scratch: &mut Vec<u8>,
    out: &mut Vec<u8>,
) {
    let end = start + len as i64;
    let lo = start.max(contig_start as i64);
    let hi = end.min(contig_end as i64);
    out.extend(std::iter::repeat_n(
        REF_PAD,
        (lo - start).clamp(0, len as i64) as usize,
    ));
    if lo < hi {
        index.reference().fetch_codes(lo as u64, hi as u64, scratch);
        out.extend_from_slice(scratch);
    }
    let written = out.len();
    out.resize(
        written + (end - hi.max(lo)).clamp(0, len as i64) as usize,
        REF_PAD,
    );
}

/// The alignment along the band's central diagonal when it is certainly optimal in the
/// window: end-to-end when its penalty is at most one gap's cost (any gapped
/// alignment costs at least that), local when it loses at most one gap's cost against
/// a perfect alignment. `None` when the full dynamic programme is needed.
pub fn ungapped(
    read: &[u8],
    penalties: &[i16],
    window: &[u8],
    band: usize,
    scoring: &Scoring,
) -> Option<Extension> {
    let cheapest_gap = scoring.read_gap_first().min(scoring.ref_gap_first());
    let bonus = scoring.match_bonus as i16;
    let n = scoring.n_penalty as i16;
    let len = read.len();
    let diagonal = &window[band..band + len];
    // Each column's score, over slices zipped (not indexed) so the sum vectorises.
    let columns = || {
        let bases = read.iter().zip(&penalties[..len]).zip(diagonal);
        bases.map(|((&r, &penalty), &d)| {
            let (ma, mm) = if r >= REF_N {
                (-n, -n)
            } else {
                (bonus, -penalty)
            };
            i32::from(pair_score(r, d, ma, mm, n))
        })
    };
    let (score, start, end) = match scoring.mode {
        AlignMode::EndToEnd => {
            let total: i32 = columns().sum();
            if total < -cheapest_gap {
                return None;
            }
            (total, 0, len)
        }
        AlignMode::Local => {
            // Best-scoring stretch; restart after a running score of 0 or less, the
            // last best wins (as the dynamic programme breaks ties, after bowtie2).
            let (mut run, mut run_start) = (0i32, 0usize);
            let (mut best, mut best_start, mut best_end) = (0i32, 0usize, 0usize);
            for (i, column) in columns().enumerate() {
                run += column;
                if run <= 0 {
                    run = 0;
                    run_start = i + 1;
                } else if run >= best {
                    (best, best_start, best_end) = (run, run_start, i + 1);
                }
            }
            if best < scoring.perfect_score(len) - cheapest_gap {
                return None;
            }
            (best, best_start, best_end)
        }
    };
    let mut cigar = Cigar::new();
    cigar.push(CigarOp::Match, (end - start) as u32);
    Some(Extension {
        score,
        read_start: start,
        read_end: end,
        window_start: band + start,
        window_end: band + end,
        cigar,
    })
}

/// Number of alignment columns involving an N (read or reference).
pub fn n_columns(read: &[u8], window: &[u8], ext: &Extension) -> usize {
    let (mut i, mut j, mut count) = (ext.read_start, ext.window_start, 0);
    for (op, len) in ext.cigar.ops() {
        let len = len as usize;
        match op {
            CigarOp::Match => {
                let pairs = read[i..i + len].iter().zip(&window[j..j + len]);
                count += pairs.filter(|&(&r, &w)| r.max(w) >= REF_N).count();
                i += len;
                j += len;
            }
            CigarOp::Insertion => {
                count += read[i..i + len].iter().filter(|&&c| c >= REF_N).count();
                i += len;
            }
            CigarOp::Deletion => {
                count += window[j..j + len].iter().filter(|&&c| c >= REF_N).count();
                j += len;
            }
            CigarOp::SoftClip => i += len,
        }
    }
    count
}

/// Where a read aligns, as SAM reports it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Placement {
    /// Contig index (header order).
    pub contig: usize,
    /// 0-based position of the first aligned base in the contig.
    pub position: u64,
    /// Whether the read aligns reverse-complemented.
    pub reverse: bool,
    /// Alignment score (`AS`).
    pub score: i32,
    /// CIGAR, soft clips included.
    pub cigar: Cigar,
    /// `NM`, `MD` and bowtie2's counts.
    pub edits: EditSummary,
}

/// Turns an extension of `read` (oriented codes) in a window starting at global
/// coordinate `window_start` into a placement; `None` if it leaves its contig (never
/// for windows padded at contig ends) or aligns no base.
pub fn place(
    index: &FmIndex,
    read: &[u8],
    window: &[u8],
    window_start: i64,
    reverse: bool,
    ext: &Extension,
) -> Option<Placement> {
    if ext.read_start == ext.read_end {
        // A local alignment clipped to nothing (possible with `--ma 0` and a minimum of
        // 0) places no base of the read.
        return None;
    }
    let global = window_start + ext.window_start as i64;
    let global = u64::try_from(global).ok()?;
    let (contig, position) = index.contig_of(global)?;
    let span = &window[ext.window_start..ext.window_end];
    let mut cigar = Cigar::new();
    cigar.push(CigarOp::SoftClip, ext.read_start as u32);
    // Gaps as bowtie2 writes them: slid left over equal bases.
    let aligned = &read[ext.read_start..ext.read_end];
    left_align_gaps(&ext.cigar, aligned, span, &mut cigar);
    cigar.push(CigarOp::SoftClip, (read.len() - ext.read_end) as u32);
    let reference = index.reference();
    let mut edits = EditSummary::default();
    edit_summary(
        read,
        span,
        |offset| {
            let code = span[offset];
            if code == REF_N {
                reference.letter_at(global + offset as u64)
            } else {
                decode(code)
            }
        },
        &cigar,
        &mut edits,
    );
    Some(Placement {
        contig,
        position,
        reverse,
        score: ext.score,
        cigar,
        edits,
    })
}

#[cfg(test)]
mod tests {
    use super::n_columns;
    use crate::cigar::{Cigar, CigarOp};
    use crate::dp::{Extension, REF_N};

    /// Ns are counted once per column: in the read, in the reference or in both, on
    /// matches; in the read alone on insertions, the reference alone on deletions.
    #[test]
    fn n_columns_counts_each_column_with_an_n_once() {
        let n = REF_N;
        // Read (after a 1-base clip): A N | N A (insertion) | C C N.
        let read = [0, 0, n, n, 0, 1, 1, n];
        // Window: G A N | (deletion) N N | C N N.
        let window = [2, 0, n, n, n, 1, n, n];
        let mut cigar = Cigar::new();
        cigar.push(CigarOp::Match, 2);
        cigar.push(CigarOp::Insertion, 2);
        cigar.push(CigarOp::Deletion, 2);
        cigar.push(CigarOp::Match, 3);
        let ext = Extension {
            score: 0,
            read_start: 1,
            read_end: 8,
            window_start: 1,
            window_end: 8,
            cigar,
        };
        // Match A/A, N/N (1); insertion N, A (1); deletion N, N (2); match C/C, C/N,
        // N/N (2).
        assert_eq!(n_columns(&read, &window, &ext), 6);
    }
}
