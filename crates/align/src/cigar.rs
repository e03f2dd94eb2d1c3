//! The MD tag and edit distance computed from an alignment, and bowtie2's left shift
//! of its gaps.
//!
//! CIGARs are core's [`Cigar`] (BAM's encoding, `length << 4 | op`, so writing SAM text
//! or BAM needs no conversion). Only `M`, `I`, `D` and `S` occur in seqfarm's
//! alignments.

pub use seqfarm_core::cigar::{Cigar, CigarOp};
use seqfarm_core::AMBIGUOUS;

/// One column of an alignment, for [`left_align_gaps`]: its operation and the read and
/// reference codes it holds (`None` on the gapped side).
#[derive(Debug, Clone, Copy)]
struct Column {
    op: CigarOp,
    read: Option<u8>,
    reference: Option<u8>,
}

impl Column {
    /// A match column with equal, unambiguous bases (bowtie2's `=`).
    fn is_equal(&self) -> bool {
        self.op == CigarOp::Match
            && self.read == self.reference
            && matches!(self.read, Some(b) if b < AMBIGUOUS)
    }
}

/// `cigar` (`M`/`I`/`D` only, no clips) of `read` against `reference` (codes, the
/// aligned span) with each gap slid left as far as equal bases allow, as bowtie2 writes
/// its alignments (`StackedAln::leftAlign`): a gap moves one column left while the
/// base before it is a match (`=`, not a mismatch) equal to the gap's last base on the
/// other sequence, and never into the first column. Like bowtie2's, the shift ignores
/// the gap barrier (`--gbar`); the score does not change. The operations are appended
/// to `out`.
pub fn left_align_gaps(cigar: &Cigar, read: &[u8], reference: &[u8], out: &mut Cigar) {
    if cigar.ops().all(|(op, _)| op == CigarOp::Match) {
        for (op, len) in cigar.ops() {
            out.push(op, len);
        }
        return;
    }
    let mut columns = Vec::with_capacity(read.len() + 8);
    let (mut i, mut j) = (0, 0);
    for (op, len) in cigar.ops() {
        for _ in 0..len {
            let r = op.consumes_query().then(|| read[i]);
            let f = op.consumes_reference().then(|| reference[j]);
            i += usize::from(r.is_some());
            j += usize::from(f.is_some());
            columns.push(Column {
                op,
                read: r,
                reference: f,
            });
        }
    }
    let mut c = 0;
    while c < columns.len() {
        let op = columns[c].op;
        if op == CigarOp::Match {
            c += 1;
            continue;
        }
        let run = columns[c..].iter().take_while(|col| col.op == op).count();
        // The sequence the gap leaves whole: the read for an insertion, the reference
        // for a deletion.
        let whole = |col: &Column| match op {
            CigarOp::Insertion => col.read,
            _ => col.reference,
        };
        let (mut l, mut r) = (c.saturating_sub(1), c + run - 1);
        while l > 0 && columns[l].is_equal() && whole(&columns[l]) == whole(&columns[r]) {
            // The gap's row swaps its bases at l and r (bowtie2's swap): column l
            // becomes the gap, holding the base the other row has there, and column r
            // a match of that row's base with the one the gapped row had at l.
            let (left, right) = (columns[l], columns[r]);
            let insertion = op == CigarOp::Insertion;
            columns[l] = Column {
                op,
                read: left.read.filter(|_| insertion),
                reference: left.reference.filter(|_| !insertion),
            };
            columns[r] = Column {
                op: CigarOp::Match,
                read: if insertion { right.read } else { left.read },
                reference: if insertion {
                    left.reference
                } else {
                    right.reference
                },
            };
            l -= 1;
            r -= 1;
        }
        c += run;
    }
    for col in &columns {
        out.push(col.op, 1);
    }
}

/// Appends the decimal digits of `value` to `out`.
fn push_decimal(out: &mut Vec<u8>, value: u64) {
    out.extend_from_slice(itoa::Buffer::new().format(value).as_bytes());
}

/// What an alignment's columns add up to: the SAM `NM` and `MD` tags and bowtie2's
/// `XM`/`XO`/`XG` counts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EditSummary {
    /// Edit distance: mismatched columns plus inserted and deleted bases (`NM`).
    pub edit_distance: u32,
    /// Mismatched columns, N positions included (`XM`).
    pub mismatches: u32,
    /// Gap openings (`XO`).
    pub gap_opens: u32,
    /// Gap bases (`XG`).
    pub gap_bases: u32,
    /// Reference positions under the alignment holding an ambiguity letter (`XN`).
    pub ambiguous_reference: u32,
    /// The `MD` tag's text.
    pub md: Vec<u8>,
}

/// Computes the [`EditSummary`] of an alignment: `read` (codes `0..=4`, as aligned:
/// reverse-complemented for the reverse strand), `reference` (codes `0..=4` of the
/// aligned span, starting at the first aligned reference base), `ref_letter(offset)`
/// the reference letter at an offset of that span (N or another IUPAC letter where
/// ambiguous), and the CIGAR. A column is a match only when both bases are A/C/G/T
/// and equal (as `samtools calmd` counts).
pub fn edit_summary(
    read: &[u8],
    reference: &[u8],
    ref_letter: impl Fn(usize) -> u8,
    cigar: &Cigar,
    out: &mut EditSummary,
) {
    out.edit_distance = 0;
    out.mismatches = 0;
    out.gap_opens = 0;
    out.gap_bases = 0;
    out.ambiguous_reference = 0;
    out.md.clear();
    let (mut r, mut g) = (0usize, 0usize);
    let mut run = 0u64;
    for (op, len) in cigar.ops() {
        let len = len as usize;
        match op {
            CigarOp::SoftClip => r += len,
            CigarOp::Skip => g += len,
            CigarOp::HardClip | CigarOp::Pad => {}
            CigarOp::Insertion => {
                out.edit_distance += len as u32;
                out.gap_opens += 1;
                out.gap_bases += len as u32;
                r += len;
            }
            CigarOp::Deletion => {
                out.edit_distance += len as u32;
                out.gap_opens += 1;
                out.gap_bases += len as u32;
                push_decimal(&mut out.md, run);
                run = 0;
                out.md.push(b'^');
                for (offset, &code) in reference[g..g + len].iter().enumerate() {
                    out.md.push(ref_letter(g + offset));
                    out.ambiguous_reference += u32::from(code > 3);
                }
                g += len;
            }
            CigarOp::Match | CigarOp::SeqMatch | CigarOp::SeqMismatch => {
                let (reads, refs) = (&read[r..r + len], &reference[g..g + len]);
                let mut x = 0;
                loop {
                    // A run of matches holds no ambiguous reference base (an N never
                    // matches), so only the columns after each run are looked at alone.
                    let same = equal_bases(&reads[x..], &refs[x..]);
                    run += same as u64;
                    x += same;
                    if x == len {
                        break;
                    }
                    out.ambiguous_reference += u32::from(refs[x] > 3);
                    out.edit_distance += 1;
                    out.mismatches += 1;
                    push_decimal(&mut out.md, run);
                    run = 0;
                    out.md.push(ref_letter(g + x));
                    x += 1;
                }
                r += len;
                g += len;
            }
        }
    }
    push_decimal(&mut out.md, run);
}

/// How many leading columns of `read` and `reference` (of equal length) hold the same
/// base (A, C, G or T: an N matches nothing), compared eight at a time.
fn equal_bases(read: &[u8], reference: &[u8]) -> usize {
    /// Set in every byte of a word holding a code above 3.
    const NOT_ACGT: u64 = 0xFCFC_FCFC_FCFC_FCFC;
    let mut n = 0;
    for (a, b) in read.chunks_exact(8).zip(reference.chunks_exact(8)) {
        let a = u64::from_le_bytes(a.try_into().unwrap());
        let b = u64::from_le_bytes(b.try_into().unwrap());
        if a != b || a & NOT_ACGT != 0 {
            break;
        }
        n += 8;
    }
    n + read[n..]
        .iter()
        .zip(&reference[n..])
        .take_while(|&(&a, &b)| a == b && a < 4)
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(s: &[u8]) -> Vec<u8> {
        s.iter()
            .map(|&b| seqfarm_core::nucleotide::encode(b).unwrap_or(4))
            .collect()
    }

    fn parse(text: &str) -> Cigar {
        let mut c = Cigar::new();
        let mut n = 0;
        for b in text.bytes() {
            match b {
                b'0'..=b'9' => n = n * 10 + u32::from(b - b'0'),
                _ => {
                    let op = match b {
                        b'M' => CigarOp::Match,
                        b'I' => CigarOp::Insertion,
                        _ => CigarOp::Deletion,
                    };
                    c.push(op, n);
                    n = 0;
                }
            }
        }
        c
    }

    fn left_aligned(cigar: &str, read: &[u8], reference: &[u8]) -> String {
        let mut out = Cigar::new();
        left_align_gaps(&parse(cigar), &codes(read), &codes(reference), &mut out);
        out.to_string()
    }

    #[test]
    fn gaps_slide_left_over_equal_bases_as_bowtie2_writes_them() {
        // An extra A in a run of four: as far left as the run goes, not into column 0.
        assert_eq!(left_aligned("4M1I3M", b"TAAAAAGC", b"TAAAAGC"), "1M1I6M");
        assert_eq!(left_aligned("4M1I3M", b"AAAAAAGC", b"AAAAAGC"), "1M1I6M");
        // A deleted CA from CACACA, and a two-base insertion.
        assert_eq!(left_aligned("5M2D2M", b"GCACAGT", b"GCACACAGT"), "1M2D6M");
        assert_eq!(left_aligned("5M2I2M", b"GCACACAGT", b"GCACAGT"), "1M2I6M");
        // A mismatch stops the slide (bowtie2 does not move gaps past mismatches).
        assert_eq!(left_aligned("4M1I3M", b"TATAAAGC", b"TAAAAGC"), "3M1I4M");
        // Nothing to slide over: unchanged.
        assert_eq!(left_aligned("3M1D3M", b"ACGTAC", b"ACGATAC"), "3M1D3M");
        assert_eq!(left_aligned("3M1D3M", b"ACGTAC", b"ACGGTAC"), "2M1D4M");
        assert_eq!(left_aligned("6M", b"ACGTAC", b"ACGTAC"), "6M");
    }

    #[test]
    fn md_and_nm_follow_the_sam_rules() {
        // ref   ACGTACGT--ACGTNA
        // read  ACTTACGTGGAC-TNA  (S at the start: "GG" clipped)
        let reference = b"ACGTACGTACGTNA";
        let read = b"GGACTTACGTGGACTNA";
        let mut c = Cigar::new();
        c.push(CigarOp::SoftClip, 2);
        c.push(CigarOp::Match, 8);
        c.push(CigarOp::Insertion, 2);
        c.push(CigarOp::Match, 2);
        c.push(CigarOp::Deletion, 1);
        c.push(CigarOp::Match, 3);
        let (rc, gc) = (codes(read), codes(reference));
        let mut s = EditSummary::default();
        edit_summary(&rc, &gc, |i| reference[i], &c, &mut s);
        assert_eq!(String::from_utf8(s.md.clone()).unwrap(), "2G7^G1N1");
        // G>T mismatch, 2 inserted, 1 deleted, N vs N mismatch.
        assert_eq!(s.edit_distance, 5);
        assert_eq!(s.mismatches, 2);
        assert_eq!((s.gap_opens, s.gap_bases), (2, 3));
        assert_eq!(s.ambiguous_reference, 1);
    }

    proptest::proptest! {
        /// Long reads with few edits, as the word-at-a-time match runs see them: the
        /// MD string and counts are those of one column at a time.
        #[test]
        fn md_of_a_long_match_is_that_of_each_column(
            reference in proptest::collection::vec(0u8..4, 1..200),
            edits in proptest::collection::vec((0usize..200, 0u8..5), 0..6),
        ) {
            let mut read = reference.clone();
            let mut reference = reference;
            for &(at, code) in &edits {
                let at = at % read.len();
                if code == 4 {
                    reference[at] = 4;
                } else {
                    read[at] = code;
                }
            }
            let letters: Vec<u8> = reference.iter().map(|&c| b"ACGTN"[c as usize]).collect();
            let mut c = Cigar::new();
            c.push(CigarOp::Match, read.len() as u32);
            let mut s = EditSummary::default();
            edit_summary(&read, &reference, |i| letters[i], &c, &mut s);
            let (mut md, mut run, mut mismatches) = (String::new(), 0, 0);
            for (i, (&a, &b)) in read.iter().zip(&reference).enumerate() {
                if a == b && a < 4 {
                    run += 1;
                } else {
                    md.push_str(&format!("{run}{}", char::from(letters[i])));
                    run = 0;
                    mismatches += 1;
                }
            }
            md.push_str(&run.to_string());
            proptest::prop_assert_eq!(String::from_utf8(s.md.clone()).unwrap(), md);
            proptest::prop_assert_eq!(s.mismatches, mismatches);
            proptest::prop_assert_eq!(s.edit_distance, mismatches);
            let ambiguous = reference.iter().filter(|&&c| c > 3).count() as u32;
            proptest::prop_assert_eq!(s.ambiguous_reference, ambiguous);
        }
    }

    #[test]
    fn decimal_digits() {
        let mut v = Vec::new();
        for n in [0u64, 7, 10, 1234567890] {
            v.clear();
            push_decimal(&mut v, n);
            assert_eq!(v, n.to_string().as_bytes());
        }
    }
}
