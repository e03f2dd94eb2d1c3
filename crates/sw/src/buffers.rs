//! Cache-line-aligned byte buffers and the per-letter score tables the SIMD kernels
//! shuffle scores from.

use crate::matrix::{ScoreMatrix, PAD_SCORE};

/// One 64-byte, 64-byte-aligned block.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Line([u8; 64]);

/// A growable byte buffer whose start is 64-byte aligned, so SIMD vectors of any width
/// stored at multiples of their size never straddle a cache line.
#[derive(Clone, Default)]
pub(crate) struct AlignedBuf {
    lines: Vec<Line>,
}

impl AlignedBuf {
    /// Makes room for at least `bytes` bytes (contents unspecified).
    pub(crate) fn reserve_bytes(&mut self, bytes: usize) {
        let lines = bytes.div_ceil(64);
        if self.lines.len() < lines {
            self.lines.resize(lines, Line([0; 64]));
        }
    }

    /// Bytes available.
    pub(crate) fn len_bytes(&self) -> usize {
        self.lines.len() * 64
    }

    /// The buffer as bytes.
    pub(crate) fn bytes(&self) -> &[u8] {
        let len = self.len_bytes();
        // SAFETY: `Line` is `repr(C)` around `[u8; 64]` with no padding, so the vector's
        // storage is `len` initialised bytes.
        unsafe { std::slice::from_raw_parts(self.lines.as_ptr().cast::<u8>(), len) }
    }

    /// The buffer as mutable bytes.
    pub(crate) fn bytes_mut(&mut self) -> &mut [u8] {
        let len = self.len_bytes();
        // SAFETY: as in `bytes`, and `&mut self` makes the borrow unique.
        unsafe { std::slice::from_raw_parts_mut(self.lines.as_mut_ptr().cast::<u8>(), len) }
    }

    /// Start of the buffer.
    pub(crate) fn as_mut_ptr(&mut self) -> *mut u8 {
        self.lines.as_mut_ptr().cast::<u8>()
    }
}

/// Bytes per letter in [`ScoreTables`]: a 64-byte low half and a 64-byte high half.
pub(crate) const TABLE_STRIDE: usize = 128;

/// For every query letter `a`, its scores against subject codes 0..16 (the low half)
/// and 16..32 (the high half), as `i8`, each half repeated four times to fill 64 bytes so
/// that `pshufb` (which looks up within 16-byte lanes) finds it in every lane at any
/// vector width. Codes outside the alphabet, padding included, score
/// [`PAD_SCORE`].
#[derive(Clone)]
pub(crate) struct ScoreTables {
    bytes: AlignedBuf,
    letters: usize,
}

impl ScoreTables {
    /// The tables of `matrix` (whose scores all lie in -127..=127).
    pub(crate) fn new(matrix: &ScoreMatrix) -> Self {
        let letters = matrix.len();
        let mut bytes = AlignedBuf::default();
        bytes.reserve_bytes(letters * TABLE_STRIDE);
        let out = bytes.bytes_mut();
        for a in 0..letters {
            let mut row = [PAD_SCORE as i8; 32];
            for (b, &s) in matrix.row(a as u8).iter().enumerate() {
                row[b] = s as i8;
            }
            let table = &mut out[a * TABLE_STRIDE..(a + 1) * TABLE_STRIDE];
            for copy in 0..4 {
                for k in 0..16 {
                    table[copy * 16 + k] = row[k] as u8;
                    table[64 + copy * 16 + k] = row[16 + k] as u8;
                }
            }
        }
        Self { bytes, letters }
    }

    /// Number of letters (rows).
    pub(crate) fn letters(&self) -> usize {
        self.letters
    }

    /// Start of letter 0's table; letter `a` starts `a * TABLE_STRIDE` bytes later.
    pub(crate) fn as_ptr(&self) -> *const u8 {
        self.bytes.bytes().as_ptr()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligned_and_zero_filled() {
        let mut buf = AlignedBuf::default();
        buf.reserve_bytes(100);
        assert_eq!(buf.len_bytes(), 128);
        assert_eq!(buf.as_mut_ptr() as usize % 64, 0);
    }

    #[test]
    fn tables_hold_rows_and_pad() {
        let m = ScoreMatrix::builtin("BLOSUM62").unwrap();
        let t = ScoreTables::new(&m);
        let c = m.code(b'C') as usize;
        let w = m.code(b'W') as usize;
        assert!(c < 16 && w >= 16);
        let bytes = t.bytes.bytes();
        let c_table = &bytes[c * TABLE_STRIDE..];
        assert_eq!(c_table[c] as i8, 9);
        assert_eq!(c_table[48 + c] as i8, 9, "repeated in every 16-byte lane");
        let table = &bytes[w * TABLE_STRIDE..];
        assert_eq!(table[64 + w - 16] as i8, 11);
        assert_eq!(table[64 + 48 + w - 16] as i8, 11);
        // Code 23 is '*' (high half, index 7); code 31 pads.
        assert_eq!(table[64 + 7] as i8, -4);
        assert_eq!(table[64 + 15] as i8, PAD_SCORE as i8);
    }
}
