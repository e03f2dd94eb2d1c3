//! Guards against scores that look right and are not: nucleotides scored with a protein
//! matrix (no `--dna`), protein scored as nucleotides (`--dna`), and letters a custom
//! matrix has no row for (they would silently score as its `*`).
//!
//! The alphabet is judged on the first letters of the queries and of the database
//! ([`SAMPLE`] of each), which is enough to tell the two apart and costs nothing.

use std::path::Path;

use anyhow::{bail, Result};
use seqfarm_sw::ScoreMatrix;

/// Letters of a file looked at to judge its alphabet.
pub const SAMPLE: usize = 10_000;
/// Fewer letters than this say nothing (a short peptide may be all A, C, G, T).
const MIN_LETTERS: usize = 20;

/// Counts of the first letters of a file.
#[derive(Debug, Default)]
pub struct LetterSample {
    letters: usize,
    /// A, C, G, T, U, N.
    nucleotides: usize,
    /// Letters that are no IUPAC nucleotide code (E, F, I, L, P, Q ...).
    not_iupac: usize,
}

impl LetterSample {
    /// Adds the letters of `sequence` until the sample is full.
    pub fn add(&mut self, sequence: &[u8]) {
        for &b in sequence {
            if self.is_full() {
                return;
            }
            if !b.is_ascii_alphabetic() {
                continue;
            }
            self.letters += 1;
            let upper = b.to_ascii_uppercase();
            if b"ACGTUN".contains(&upper) {
                self.nucleotides += 1;
            } else if !b"RYSWKMBDHV".contains(&upper) {
                self.not_iupac += 1;
            }
        }
    }

    /// Whether [`SAMPLE`] letters have been seen.
    pub fn is_full(&self) -> bool {
        self.letters >= SAMPLE
    }

    /// At least 90% A, C, G, T, U or N.
    fn looks_like_nucleotides(&self) -> bool {
        self.letters >= MIN_LETTERS && self.nucleotides * 10 >= self.letters * 9
    }

    /// More than 10% letters that no nucleotide code uses.
    fn looks_like_protein(&self) -> bool {
        self.letters >= MIN_LETTERS && self.not_iupac * 10 > self.letters
    }

    fn percent(&self, count: usize) -> usize {
        count * 100 / self.letters.max(1)
    }

    /// Fails when the sample's alphabet does not fit the scoring: `dna` (`--dna`), or a
    /// built-in protein matrix `matrix`. `what` names the sequences ("queries").
    pub fn check(&self, path: &Path, what: &str, dna: bool, matrix: &str) -> Result<()> {
        if dna && self.looks_like_protein() {
            bail!(
                "{}: the {what} look like protein ({}% of the first {} letters are no \
                 nucleotide code), but --dna scores nucleotides: leave out --dna to score \
                 protein with {matrix}",
                path.display(),
                self.percent(self.not_iupac),
                self.letters
            );
        }
        if !dna && self.looks_like_nucleotides() {
            bail!(
                "{}: the {what} look like nucleotides ({}% A/C/G/T/U/N in the first {} \
                 letters), but they would be scored with the protein matrix {matrix}: add \
                 --dna for nucleotide scoring",
                path.display(),
                self.percent(self.nucleotides),
                self.letters
            );
        }
        Ok(())
    }
}

/// The letters a custom matrix has no row for, by byte (for built-in matrices such
/// letters score as `*` by design, as in parasail, and are not checked).
pub fn missing_letters(matrix: &ScoreMatrix) -> [bool; 256] {
    let mut missing = [false; 256];
    for b in 0..=255u8 {
        missing[b as usize] =
            b.is_ascii_alphabetic() && !matrix.symbols().contains(&b.to_ascii_uppercase());
    }
    missing
}

/// Fails on the first letter of `sequence` that `missing` marks, naming the sequence,
/// the file and the matrix.
pub fn check_letters(
    missing: &[bool; 256],
    sequence: &[u8],
    name: &str,
    path: &Path,
    matrix: &str,
) -> Result<()> {
    if let Some(&b) = sequence.iter().find(|&&b| missing[b as usize]) {
        bail!(
            "{}: sequence {name} has the letter '{}', which the matrix {matrix} has no row \
             for: add it to the matrix (it would otherwise score as '*')",
            path.display(),
            b as char
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(text: &str) -> LetterSample {
        let mut s = LetterSample::default();
        s.add(text.as_bytes());
        s
    }

    #[test]
    fn nucleotides_and_protein_are_told_apart() {
        let dna = sample("ACGTTAGCTAGGATCAACGTNNACGT");
        let protein = sample("MKVLAAGIVGLLLAQEPSRFWKHLEIMNQ");
        let p = Path::new("x.fa");
        assert!(dna.check(p, "queries", true, "BLOSUM62").is_ok());
        let e = dna.check(p, "queries", false, "BLOSUM62").unwrap_err();
        assert!(e.to_string().contains("add --dna"), "{e}");
        assert!(protein.check(p, "queries", false, "BLOSUM62").is_ok());
        let e = protein.check(p, "database", true, "BLOSUM62").unwrap_err();
        assert!(e.to_string().contains("leave out --dna"), "{e}");
        // Too short to tell: a peptide of A, C, G, T is possible.
        assert!(sample("ACGTACG")
            .check(p, "queries", false, "BLOSUM62")
            .is_ok());
        // IUPAC codes are nucleotides too.
        let iupac = sample("ACGTRYKMSWACGTACGTBDHVACGT");
        assert!(iupac.check(p, "queries", true, "BLOSUM62").is_ok());
    }

    #[test]
    fn the_sample_stops_filling() {
        let mut s = LetterSample::default();
        s.add("A".repeat(SAMPLE + 5).as_bytes());
        assert!(s.is_full());
        assert_eq!(s.letters, SAMPLE);
    }

    #[test]
    fn a_letter_missing_from_a_custom_matrix_is_named() {
        let matrix = ScoreMatrix::parse_ncbi("tiny", "   A  B\nA  2 -1\nB -1  3\n").unwrap();
        let missing = missing_letters(&matrix);
        let p = Path::new("q.fa");
        assert!(check_letters(&missing, b"AaBb*-", "q", p, "tiny").is_ok());
        let e = check_letters(&missing, b"AABZA", "q", p, "tiny").unwrap_err();
        assert!(e.to_string().contains("letter 'Z'"), "{e}");
    }
}
