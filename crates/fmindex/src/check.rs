//! Full verification of a loaded index (`seqfarm index --check`).
//!
//! Beyond what loading checks (header, checksums, sizes, contig table), this recounts
//! every block, checks every separator row, sample and k-mer entry against the text
//! length, and compares the BWT symbol of every sampled row with the base that precedes
//! its suffix in the packed reference: a consistent index passes, a damaged or forged
//! one is reported with what is wrong. O(n) time, no extra memory.

use crate::error::LoadError;
use crate::index::{parse, FmIndex};
use crate::kmer::{self, SATURATED};
use crate::occ::{BLOCKS_PER_SUPER_SHIFT, ROWS_PER_BLOCK};

/// What `check` verified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckReport {
    /// Contigs in the index.
    pub contigs: usize,
    /// Bases of all contigs.
    pub genome_len: u64,
    /// Text length (rows).
    pub text_len: u64,
    /// Suffix-array sampling rate.
    pub sa_rate: u32,
    /// k-mer table length.
    pub kmer_len: u32,
    /// File size in bytes.
    pub file_len: u64,
    /// Rows whose BWT symbol was compared with the reference.
    pub rows_checked: u64,
}

impl FmIndex {
    /// Verifies checksums and every structural invariant (see the module doc).
    pub fn check(&self) -> Result<CheckReport, LoadError> {
        let corrupt = |m: String| LoadError::corrupt(&self.path, m);
        parse(self.bytes(), &self.path, true)?;
        let bwt = &self.bwt;
        let rows = bwt.len();
        let n = self.text_len();
        // Block counts are the running sums of the symbols before them.
        let mut totals = [0u64; 4];
        let mut relative = [0u64; 4];
        let mut dollar_index = 0usize;
        for (b, block) in bwt.blocks.iter().enumerate() {
            if b % (1 << BLOCKS_PER_SUPER_SHIFT) == 0 {
                let s = 4 * (b >> BLOCKS_PER_SUPER_SHIFT);
                if bwt.supers[s..s + 4] != totals {
                    return Err(corrupt(format!("superblock counts of block {b} are wrong")));
                }
                relative = [0; 4];
            }
            let first = b as u64 * ROWS_PER_BLOCK;
            let in_block = ROWS_PER_BLOCK.min(rows.saturating_sub(first)) as u32;
            let mut dollars_here = 0u64;
            while dollar_index < bwt.dollars.len()
                && bwt.dollars[dollar_index].row < first + u64::from(in_block)
            {
                dollars_here += 1;
                dollar_index += 1;
            }
            if (0..4).any(|c| block.count(c) != relative[c])
                || block.has_dollar() != (dollars_here > 0)
            {
                return Err(corrupt(format!("occurrence counts of block {b} are wrong")));
            }
            let mut own = block.count_prefix4(in_block);
            if u64::from(own[0]) < dollars_here {
                return Err(corrupt(format!("separator rows of block {b} are wrong")));
            }
            own[0] -= dollars_here as u32;
            for c in 0..4 {
                relative[c] += u64::from(own[c]);
                totals[c] += u64::from(own[c]);
            }
        }
        for c in 0..4 {
            if bwt.c[c + 1] - bwt.c[c] != totals[c] {
                return Err(corrupt("symbol totals do not match the blocks".into()));
            }
        }
        if dollar_index != bwt.dollars.len() || bwt.dollars.windows(2).any(|w| w[0].row >= w[1].row)
        {
            return Err(corrupt(
                "separator rows are unsorted or out of range".into(),
            ));
        }
        if bwt.dollars.len() as u64 != bwt.c[0] {
            return Err(corrupt("wrong number of separator rows".into()));
        }
        for d in bwt.dollars {
            if d.sa >= n || (d.sa > 0 && self.text_symbol(d.sa - 1) != Some(0)) {
                return Err(corrupt(format!(
                    "separator row {} has a wrong suffix position",
                    d.row
                )));
            }
        }
        // Every sampled row: the BWT symbol is the base before its suffix.
        let mut rows_checked = 0;
        for k in 0..self.sa.samples.len() {
            let row = k as u64 * self.sa.rate;
            let p = self.sa.samples.get(k).unwrap_or(u64::MAX);
            if p > n || (p == n) != (row == 0) {
                return Err(corrupt(format!("sample of row {row} is past the text")));
            }
            let expected = if p == 0 {
                Some(0)
            } else {
                self.text_symbol(p - 1)
            };
            let found = match bwt.symbol(row) {
                None => Some(0),
                Some(c) => Some(c + 1),
            };
            if expected != found {
                return Err(corrupt(format!(
                    "BWT row {row} does not match the reference"
                )));
            }
            rows_checked += 1;
        }
        for (e, &entry) in self.kmers.iter().enumerate() {
            let (start, size) = kmer::unpack(entry);
            if size != SATURATED && start + size > rows {
                return Err(corrupt(format!("k-mer table entry {e} is past the text")));
            }
        }
        Ok(CheckReport {
            contigs: self.layout.contigs.len(),
            genome_len: self.genome_len(),
            text_len: n,
            sa_rate: self.sa_rate(),
            kmer_len: self.kmer_len,
            file_len: self.file_len,
            rows_checked,
        })
    }

    /// Symbol `p` of the text from the packed reference: `Some(0)` for a separator,
    /// `Some(1..=4)` for A..T; `None` past the end.
    fn text_symbol(&self, p: u64) -> Option<u8> {
        let half = self.layout.half_len;
        let (q, mirrored) = if p < half {
            (p, false)
        } else {
            (2 * half).checked_sub(p + 1).map(|q| (q, true))?
        };
        let i = self
            .layout
            .fragments
            .partition_point(|f| f.text_start <= q)
            .checked_sub(1)?;
        let f = &self.layout.fragments[i];
        let within = q - f.text_start;
        let symbol = if within < f.len {
            self.reference().bases().code_at(f.global_start + within) + 1
        } else {
            0
        };
        Some(if mirrored && symbol != 0 {
            5 - symbol
        } else {
            symbol
        })
    }
}
