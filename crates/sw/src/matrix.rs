//! Substitution matrices: the NCBI text format, the built-in BLOSUM/PAM set, and DNA
//! match/mismatch scoring.
//!
//! A matrix maps every byte to a small *code* (its row and column): the letters of the
//! matrix's alphabet, case-insensitive, get their own code; every other byte gets the code
//! of `*`, as parasail does. The built-in matrices are the classic NCBI files (`matblas`
//! BLOSUMs, `pam` 1.0.6 PAMs) that parasail, EMBOSS and older BLAST releases ship, so
//! scores equal parasail's. Current BLAST releases ship a slightly different BLOSUM62
//! (a `J` column, `X` scored -1 throughout): pass its file with `--matrix` to use it.

use std::fmt;

use crate::Error;

/// The most symbols a matrix may have: SIMD score lookups index 32 entries and the last
/// one pads short database sequences.
pub const MAX_SYMBOLS: usize = 31;

/// The code that pads lanes past the end of a database sequence; it scores below every
/// matrix entry, so padding never raises a score.
pub(crate) const PAD_CODE: u8 = 31;

/// Score of any letter against padding (the lowest an 8-bit lane holds).
pub(crate) const PAD_SCORE: i32 = -128;

/// Matrices compiled into the binary: (name, NCBI-format text).
const BUILTIN: [(&str, &str); 8] = [
    ("BLOSUM45", include_str!("../matrices/BLOSUM45")),
    ("BLOSUM50", include_str!("../matrices/BLOSUM50")),
    ("BLOSUM62", include_str!("../matrices/BLOSUM62")),
    ("BLOSUM80", include_str!("../matrices/BLOSUM80")),
    ("BLOSUM90", include_str!("../matrices/BLOSUM90")),
    ("PAM30", include_str!("../matrices/PAM30")),
    ("PAM70", include_str!("../matrices/PAM70")),
    ("PAM250", include_str!("../matrices/PAM250")),
];

/// A square substitution matrix over a small alphabet, with the byte-to-code map that
/// encodes sequences for it.
#[derive(Clone, PartialEq, Eq)]
pub struct ScoreMatrix {
    name: String,
    symbols: Vec<u8>,
    /// `scores[a * n + b]`: query code `a` against subject code `b`.
    scores: Vec<i32>,
    codes: [u8; 256],
    min: i32,
    max: i32,
}

impl fmt::Debug for ScoreMatrix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ScoreMatrix")
            .field("name", &self.name)
            .field("symbols", &String::from_utf8_lossy(&self.symbols))
            .field("min", &self.min)
            .field("max", &self.max)
            .finish()
    }
}

impl ScoreMatrix {
    /// The names of the built-in matrices.
    pub fn builtin_names() -> impl Iterator<Item = &'static str> {
        BUILTIN.iter().map(|(name, _)| *name)
    }

    /// A built-in matrix by name (case-insensitive), or `None`.
    pub fn builtin(name: &str) -> Option<Self> {
        let (name, text) = BUILTIN
            .iter()
            .find(|(known, _)| known.eq_ignore_ascii_case(name))?;
        Self::parse_ncbi(name, text).ok()
    }

    /// Reads a matrix in NCBI text format from `path`.
    pub fn from_file(path: &std::path::Path) -> Result<Self, Error> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::Matrix {
            name: path.display().to_string(),
            line: 0,
            message: e.to_string(),
        })?;
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| path.display().to_string());
        Self::parse_ncbi(&name, &text).map_err(|e| match e {
            Error::Matrix { line, message, .. } => Error::Matrix {
                name: path.display().to_string(),
                line,
                message,
            },
            other => other,
        })
    }

    /// Parses NCBI text format: `#` comment lines, a header line of single-letter column
    /// symbols, then one line per row: the row symbol and one integer per column. Rows may
    /// come in any order; every column needs its row. Without a `*` symbol, one is added
    /// that scores the matrix minimum against everything (unknown letters map to it).
    pub fn parse_ncbi(name: &str, text: &str) -> Result<Self, Error> {
        let bad = |line: usize, message: String| Error::Matrix {
            name: name.to_string(),
            line,
            message,
        };
        let mut header: Option<Vec<u8>> = None;
        let mut rows: Vec<Option<Vec<i32>>> = Vec::new();
        for (index, raw) in text.lines().enumerate() {
            let line_no = index + 1;
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let Some(columns) = &header else {
                let symbols = parse_symbols(line).map_err(|m| bad(line_no, m))?;
                rows = vec![None; symbols.len()];
                header = Some(symbols);
                continue;
            };
            let mut tokens = line.split_whitespace();
            let symbol = match tokens.next().map(str::as_bytes) {
                Some([b]) => b.to_ascii_uppercase(),
                _ => return Err(bad(line_no, "a row must start with its symbol".into())),
            };
            let row = columns
                .iter()
                .position(|&c| c == symbol)
                .ok_or_else(|| bad(line_no, format!("row '{}' is not a column", symbol as char)))?;
            if rows[row].is_some() {
                return Err(bad(
                    line_no,
                    format!("row '{}' appears twice", symbol as char),
                ));
            }
            let values = tokens
                .map(|t| {
                    t.parse::<i32>()
                        .map_err(|_| bad(line_no, format!("'{t}' is not an integer score")))
                })
                .collect::<Result<Vec<i32>, Error>>()?;
            if values.len() != columns.len() {
                return Err(bad(
                    line_no,
                    format!("{} scores for {} columns", values.len(), columns.len()),
                ));
            }
            if let Some(v) = values.iter().find(|v| !(-127..=127).contains(*v)) {
                return Err(bad(line_no, format!("score {v} is outside -127..=127")));
            }
            rows[row] = Some(values);
        }
        let Some(symbols) = header else {
            return Err(bad(0, "no header line of column symbols".into()));
        };
        let mut scores = Vec::with_capacity(symbols.len() * symbols.len());
        for (symbol, row) in symbols.iter().zip(&rows) {
            match row {
                Some(values) => scores.extend_from_slice(values),
                None => return Err(bad(0, format!("no row for '{}'", *symbol as char))),
            }
        }
        Self::from_parts(name, symbols, scores).map_err(|m| bad(0, m))
    }

    /// DNA scoring as parasail's `parasail_matrix_create("ACGT", match, mismatch)`:
    /// `match_score` on the diagonal, `mismatch` elsewhere among A, C, G, T, and 0 for any
    /// other letter (N, IUPAC codes), which all map to `*`. U (RNA) reads as T, as blastn
    /// reads it.
    pub fn dna(match_score: i32, mismatch: i32) -> Result<Self, Error> {
        let symbols = b"ACGT*".to_vec();
        let mut scores = vec![0; 25];
        for a in 0..4 {
            for b in 0..4 {
                scores[a * 5 + b] = if a == b { match_score } else { mismatch };
            }
        }
        for v in [match_score, mismatch] {
            if !(-127..=127).contains(&v) {
                return Err(Error::Scoring(format!(
                    "DNA score {v} is outside -127..=127"
                )));
            }
        }
        let name = format!("DNA match {match_score} mismatch {mismatch}");
        let mut matrix = Self::from_parts(&name, symbols, scores).map_err(Error::Scoring)?;
        let t = matrix.codes[usize::from(b'T')];
        matrix.codes[usize::from(b'U')] = t;
        matrix.codes[usize::from(b'u')] = t;
        Ok(matrix)
    }

    fn from_parts(name: &str, mut symbols: Vec<u8>, mut scores: Vec<i32>) -> Result<Self, String> {
        let mut n = symbols.len();
        if !symbols.contains(&b'*') {
            let floor = scores.iter().copied().min().unwrap_or(0);
            let mut widened = Vec::with_capacity((n + 1) * (n + 1));
            for row in scores.chunks(n) {
                widened.extend_from_slice(row);
                widened.push(floor);
            }
            widened.extend(std::iter::repeat_n(floor, n + 1));
            scores = widened;
            symbols.push(b'*');
            n += 1;
        }
        if n > MAX_SYMBOLS {
            return Err(format!("{n} symbols; at most {MAX_SYMBOLS} are supported"));
        }
        let star = symbols.iter().position(|&s| s == b'*').unwrap_or(n - 1) as u8;
        let mut codes = [star; 256];
        for (code, &symbol) in symbols.iter().enumerate() {
            codes[symbol.to_ascii_uppercase() as usize] = code as u8;
            codes[symbol.to_ascii_lowercase() as usize] = code as u8;
        }
        let min = scores.iter().copied().min().unwrap_or(0);
        let max = scores.iter().copied().max().unwrap_or(0);
        Ok(Self {
            name: name.to_string(),
            symbols,
            scores,
            codes,
            min,
            max,
        })
    }

    /// The matrix's name (built-in name, file name, or the DNA scores).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The alphabet, in code order.
    pub fn symbols(&self) -> &[u8] {
        &self.symbols
    }

    /// Number of symbols (codes `0..len`).
    pub fn len(&self) -> usize {
        self.symbols.len()
    }

    /// Whether the alphabet is empty (never, for a parsed matrix).
    pub fn is_empty(&self) -> bool {
        self.symbols.is_empty()
    }

    /// Score of query code `a` against subject code `b`.
    #[inline]
    pub fn score(&self, a: u8, b: u8) -> i32 {
        self.scores[a as usize * self.symbols.len() + b as usize]
    }

    /// The row of query code `a`: its score against every subject code.
    #[inline]
    pub fn row(&self, a: u8) -> &[i32] {
        let n = self.symbols.len();
        &self.scores[a as usize * n..(a as usize + 1) * n]
    }

    /// Whether every score is the same with query and subject swapped (true of the
    /// built-in matrices).
    pub fn is_symmetric(&self) -> bool {
        let n = self.symbols.len();
        (0..n).all(|a| (0..a).all(|b| self.scores[a * n + b] == self.scores[b * n + a]))
    }

    /// The lowest entry.
    pub fn min_score(&self) -> i32 {
        self.min
    }

    /// The highest entry.
    pub fn max_score(&self) -> i32 {
        self.max
    }

    /// The code of `byte` (the code of `*` for bytes outside the alphabet).
    #[inline]
    pub fn code(&self, byte: u8) -> u8 {
        self.codes[byte as usize]
    }

    /// The code of every byte (the code of `*` for bytes outside the alphabet).
    pub fn codes(&self) -> &[u8; 256] {
        &self.codes
    }

    /// Appends the codes of `sequence` to `out`.
    pub fn encode_into(&self, sequence: &[u8], out: &mut Vec<u8>) {
        out.extend(sequence.iter().map(|&b| self.codes[b as usize]));
    }

    /// The codes of `sequence`.
    pub fn encode(&self, sequence: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(sequence.len());
        self.encode_into(sequence, &mut out);
        out
    }
}

/// The header line: whitespace-separated single symbols, no duplicates.
fn parse_symbols(line: &str) -> Result<Vec<u8>, String> {
    let mut symbols = Vec::new();
    for token in line.split_whitespace() {
        let &[b] = token.as_bytes() else {
            return Err(format!("header token '{token}' is not a single symbol"));
        };
        if !(b.is_ascii_alphabetic() || b == b'*') {
            return Err(format!(
                "header symbol '{}' is not a letter or '*'",
                b as char
            ));
        }
        let b = b.to_ascii_uppercase();
        if symbols.contains(&b) {
            return Err(format!("symbol '{}' appears twice", b as char));
        }
        symbols.push(b);
    }
    if symbols.is_empty() {
        return Err("empty header".into());
    }
    Ok(symbols)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_parses_and_is_symmetric() {
        for name in ScoreMatrix::builtin_names() {
            let m = ScoreMatrix::builtin(name).expect(name);
            assert_eq!(m.symbols(), b"ARNDCQEGHILKMFPSTWYVBZX*", "{name}");
            for a in 0..m.len() as u8 {
                for b in 0..m.len() as u8 {
                    assert_eq!(m.score(a, b), m.score(b, a), "{name} {a} {b}");
                }
            }
        }
        assert!(ScoreMatrix::builtin("blosum62").is_some());
        assert!(ScoreMatrix::builtin("BLOSUM63").is_none());
    }

    #[test]
    fn blosum62_values_and_alphabet_as_parasail() {
        let m = ScoreMatrix::builtin("BLOSUM62").unwrap();
        let s = |a: u8, b: u8| m.score(m.code(a), m.code(b));
        assert_eq!(s(b'W', b'W'), 11);
        assert_eq!(s(b'A', b'R'), -1);
        assert_eq!(s(b'X', b'A'), 0);
        assert_eq!(s(b'*', b'*'), 1);
        assert_eq!(s(b'a', b'a'), 4, "lowercase maps to uppercase");
        assert_eq!(m.code(b'U'), m.code(b'*'), "U is outside the alphabet");
        assert_eq!(m.code(b'J'), m.code(b'*'));
        assert_eq!(m.code(b'-'), m.code(b'*'));
        assert_eq!((m.min_score(), m.max_score()), (-4, 11));
    }

    #[test]
    fn ncbi_files_parse_in_any_row_order_and_gain_a_star() {
        let text = "# tiny\n  A  B\nB -1  2\nA  3 -1\n";
        let m = ScoreMatrix::parse_ncbi("tiny", text).unwrap();
        assert_eq!(m.symbols(), b"AB*");
        assert_eq!(m.score(0, 0), 3);
        assert_eq!(m.score(1, 1), 2);
        assert_eq!(m.score(2, 0), -1, "added * scores the minimum");
        assert_eq!(m.code(b'z'), 2);
    }

    #[test]
    fn bad_matrices_are_rejected_with_the_line() {
        let cases = [
            ("  A B\nA 1\n", "line 2"),
            ("  A B\nA 1 x\n", "not an integer"),
            ("  A B\nC 1 2\n", "not a column"),
            ("  A B\nA 1 2\n", "no row for 'B'"),
            ("  A B\nA 1 2\nA 1 2\n", "twice"),
            ("  A B\nA 1 200\nB 1 1\n", "outside"),
            ("# only comments\n", "no header"),
            ("  AB\n", "single symbol"),
        ];
        for (text, expected) in cases {
            let e = ScoreMatrix::parse_ncbi("m", text).unwrap_err().to_string();
            assert!(e.contains(expected), "{text:?}: {e}");
        }
        // A problem of the whole matrix names no line (not "line 0").
        let e = ScoreMatrix::parse_ncbi("m", "  A B\nA 1 2\n")
            .unwrap_err()
            .to_string();
        assert_eq!(e, "matrix m: no row for 'B'");
    }

    #[test]
    fn dna_matches_parasail_matrix_create() {
        let m = ScoreMatrix::dna(2, -3).unwrap();
        let s = |a: u8, b: u8| m.score(m.code(a), m.code(b));
        assert_eq!(s(b'A', b'A'), 2);
        assert_eq!(s(b'a', b'C'), -3);
        assert_eq!(s(b'N', b'A'), 0);
        assert_eq!(s(b'N', b'N'), 0);
        assert!(ScoreMatrix::dna(300, -1).is_err());
    }

    #[test]
    fn dna_reads_u_as_t() {
        let m = ScoreMatrix::dna(2, -3).unwrap();
        assert_eq!(m.code(b'U'), m.code(b'T'));
        assert_eq!(m.code(b'u'), m.code(b'T'));
        assert_eq!(m.score(m.code(b'U'), m.code(b't')), 2);
    }
}
