//! A candidate region turned into an alignment problem: the reference window around
//! its band, the ungapped shortcut, and the final placement (contig coordinates, CIGAR
//! with clips, MD/NM).

use seqfarm_core::nucleotide::decode;
use seqfarm_fmindex::FmIndex;

use crate::cigar::{edit_summary, left_align_gaps, Cigar, CigarOp, EditSummary};
use crate::dp::{Extension, REF_N, REF_PAD, WALL};
use crate::scoring::{AlignMode, Scoring};
use seqfarm_core::SimdLevel;

/// Band half-widths jobs are rounded up to (so SIMD groups fill up).
const BAND_CLASSES: [usize; 4] = [8, 16, 32, 64];

/// Diagonals beside the anchors' that an extension covers at the least.
pub const BAND_MARGIN: usize = 8;

/// Diagonals beside the anchors' that bowtie2's dynamic programme covers (15 either
/// side of its seed's): a read's extensions cover as many, so that a long indel near a
/// read end that no seed spans is found as bowtie2 finds it.
pub const WIDE_BAND_MARGIN: usize = 15;

/// The band half-width for a region whose anchors spread over `spread` diagonals, for
/// a read of `len` bases: room for the spread plus `margin`, at most the longest gap a
/// valid alignment can hold.
pub fn band_for(spread: u64, len: usize, scoring: &Scoring, margin: usize) -> usize {
    let wanted = spread as usize + margin;
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
/// a perfect alignment. `None` when the full dynamic programme is needed. At `level`
/// AVX2 or above, the column sum is compiled for 256-bit vectors (the baseline build
/// has 128-bit ones); the result is the same integer arithmetic either way.
pub fn ungapped(
    read: &[u8],
    penalties: &[i16],
    window: &[u8],
    band: usize,
    scoring: &Scoring,
    level: SimdLevel,
) -> Option<Extension> {
    let shortcut = || ungapped_baseline(read, penalties, window, band, scoring);
    #[cfg(target_arch = "x86_64")]
    if level != SimdLevel::Scalar && level.is_supported() {
        // SAFETY: the CPU has AVX2 (AVX-512 implies it).
        return unsafe { with_avx2(shortcut) };
    }
    let _ = level;
    shortcut()
}

/// The score of read code `r` (mismatch penalty `penalty`) against reference code `d`,
/// as [`pair_score`](crate::dp::scalar::pair_score) gives it in the dynamic programme
/// (match bonus `bonus`, N penalty `n`), written as selects on 32-bit values: a sum of
/// these over a read vectorises, one of `pair_score`'s 16-bit clamps does not.
#[inline(always)]
fn column_score(r: u8, penalty: i16, d: u8, bonus: i32, n: i32) -> i32 {
    let s = if r >= REF_N {
        -n
    } else if r == d {
        bonus
    } else {
        -i32::from(penalty)
    };
    let s = if d == REF_N { s.max(-n) } else { s };
    if d == REF_PAD {
        s.min(i32::from(WALL))
    } else {
        s
    }
}

/// Runs `f` compiled with AVX2: what it inlines is vectorised for 256-bit registers.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn with_avx2<R>(f: impl FnOnce() -> R) -> R {
    f()
}

/// [`ungapped`] as the baseline build compiles it, inlined into [`with_avx2`].
#[inline(always)]
fn ungapped_baseline(
    read: &[u8],
    penalties: &[i16],
    window: &[u8],
    band: usize,
    scoring: &Scoring,
) -> Option<Extension> {
    let cheapest_gap = scoring.read_gap_first().min(scoring.ref_gap_first());
    let bonus = i32::from(scoring.match_bonus as i16);
    let n = i32::from(scoring.n_penalty as i16);
    let len = read.len();
    let diagonal = &window[band..band + len];
    // Each column's score, over slices zipped (not indexed) so the sum vectorises.
    let columns = || {
        let bases = read.iter().zip(&penalties[..len]).zip(diagonal);
        bases.map(|((&r, &penalty), &d)| column_score(r, penalty, d, bonus, n))
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
            CigarOp::Match | CigarOp::SeqMatch | CigarOp::SeqMismatch => {
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
            CigarOp::Skip => j += len,
            CigarOp::SoftClip => i += len,
            CigarOp::HardClip | CigarOp::Pad => {}
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
    use super::{column_score, n_columns, ungapped};
    use crate::cigar::{Cigar, CigarOp};
    use crate::dp::scalar::pair_score;
    use crate::dp::{Extension, REF_N, REF_PAD};
    use crate::scoring::Scoring;
    use seqfarm_core::SimdLevel;

    /// The ungapped shortcut scores every column as the dynamic programme does: all read
    /// and reference codes, penalties from none to the largest, with and without an N
    /// penalty or a match bonus.
    #[test]
    fn column_scores_are_the_dynamic_programmes() {
        for r in 0..=REF_PAD {
            for d in 0..=REF_PAD {
                for penalty in [0i16, 1, 2, 5, 6, 40, 4096] {
                    for n in [0i16, 1, 3, 4096] {
                        for bonus in [0i16, 2, 4096] {
                            let (ma, mm) = if r >= REF_N {
                                (-n, -n)
                            } else {
                                (bonus, -penalty)
                            };
                            assert_eq!(
                                column_score(r, penalty, d, i32::from(bonus), i32::from(n)),
                                i32::from(pair_score(r, d, ma, mm, n)),
                                "read {r}, reference {d}, penalty {penalty}, n {n}, bonus {bonus}"
                            );
                        }
                    }
                }
            }
        }
    }

    proptest::proptest! {
        /// The shortcut compiled for AVX2 gives what the baseline build gives.
        #[test]
        fn ungapped_is_the_same_at_every_level(
            bases in proptest::collection::vec((0u8..=100, 0u8..=5, 0i16..=6), 1..300),
            local in proptest::bool::ANY,
            seed in 0usize..97,
        ) {
            // About one read base in a hundred an N.
            let code = |b: u8| if b == 100 { REF_N } else { b % 4 };
            let read: Vec<u8> = bases.iter().map(|b| code(b.0)).collect();
            let penalties: Vec<i16> = bases.iter().map(|b| b.2).collect();
            // The diagonal differs from the read at about one base in 97, so both outcomes
            // (an alignment, or the full programme needed) occur.
            let differs = |i: usize| (i * 31 + seed).is_multiple_of(97);
            let diagonal = bases.iter().enumerate().map(|(i, b)| if differs(i) { b.1 } else { code(b.0) });
            let window: Vec<u8> = [1, 2].into_iter().chain(diagonal).chain([3, 0]).collect();
            let scoring = if local { Scoring::local() } else { Scoring::end_to_end() };
            let at = |level| ungapped(&read, &penalties, &window, 2, &scoring, level);
            let baseline = at(SimdLevel::Scalar);
            // A level the CPU lacks runs the baseline copy itself: nothing to compare.
            for level in [SimdLevel::Avx2, SimdLevel::Avx512].into_iter().filter(|l| l.is_supported()) {
                proptest::prop_assert_eq!(&at(level), &baseline, "{}", level.name());
            }
        }
    }

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
