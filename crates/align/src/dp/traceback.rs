//! From the best cell back to the alignment's start, through the direction bits.

use super::{dir, Extension};
use crate::cigar::CigarOp;

/// Which matrix the traceback is in.
#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    H,
    E,
    F,
}

/// Walks back from cell `(row, k)` (with score `score`) through `direction(i, k)` and
/// fills `out`. `width` is the band width (`2b + 1`). Returns `false` if the bits lead
/// out of the band (never for bits a kernel wrote).
pub(crate) fn traceback(
    direction: impl Fn(usize, usize) -> u8,
    width: usize,
    row: usize,
    k: usize,
    score: i32,
    out: &mut Extension,
) -> bool {
    out.cigar.clear();
    out.score = score;
    out.read_end = row + 1;
    out.window_end = row + k + 1;
    let (mut i, mut k) = (row as isize, k as isize);
    let mut state = State::H;
    let mut first_column = out.window_end;
    while i >= 0 {
        if k < 0 || k as usize >= width {
            return false;
        }
        let d = direction(i as usize, k as usize);
        match state {
            State::H => match d & dir::SOURCE {
                dir::DIAG => {
                    out.cigar.push(CigarOp::Match, 1);
                    first_column = (i + k) as usize;
                    i -= 1;
                }
                dir::FROM_E => state = State::E,
                dir::FROM_F => state = State::F,
                _ => break,
            },
            State::E => {
                out.cigar.push(CigarOp::Deletion, 1);
                first_column = (i + k) as usize;
                if d & dir::E_EXTENDS == 0 {
                    state = State::H;
                }
                k -= 1;
            }
            State::F => {
                out.cigar.push(CigarOp::Insertion, 1);
                if d & dir::F_EXTENDS == 0 {
                    state = State::H;
                }
                i -= 1;
                k += 1;
            }
        }
    }
    out.read_start = (i + 1) as usize;
    out.window_start = first_column;
    out.cigar.reverse();
    true
}
