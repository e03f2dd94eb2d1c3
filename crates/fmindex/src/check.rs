//! Full verification of a loaded index (`seqfarm index --check`).
//!
//! Beyond what loading checks (header, checksums, sizes, contig table), this recounts
//! every block and the separator rows, walks `LF` over every row comparing each BWT
//! symbol with the base that precedes its suffix in the packed reference and each
//! sample with the position the walk reaches, and rebuilds the k-mer table: a
//! consistent index passes, a damaged or forged one is reported with what is wrong.
//! O(n) time; the k-mer table's size in extra memory.

use crate::batch::sa_values;
use crate::error::LoadError;
use crate::index::{parse, FmIndex};
use crate::kmer;
use crate::occ::ROWS_PER_BLOCK;

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
        // Loading already checked the structure; the checksums, unless it skipped them.
        if !self.checksums_verified {
            parse(self.bytes(), &self.path, true)?;
        }
        let bwt = &self.bwt;
        let rows = bwt.len();
        let n = self.text_len();
        // Block counts are the running sums of the symbols before them.
        let mut totals = [0u64; 4];
        let mut relative = [0u64; 4];
        let mut dollar_index = 0usize;
        for (b, block) in bwt.blocks.iter().enumerate() {
            if b % (1 << bwt.super_shift) == 0 {
                let s = 4 * (b >> bwt.super_shift);
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
        if (0..4).any(|c| bwt.c[c + 1] - bwt.c[c] != totals[c]) {
            return Err(corrupt("symbol totals do not match the blocks".into()));
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
        for k in 0..self.sa.samples.len() {
            let p = self.sa.samples.get(k).unwrap_or(u64::MAX);
            if p > n || (p == n) != (k == 0) {
                return Err(corrupt(format!("sample {k} is past the text")));
            }
        }
        let rows_checked = self.walk_all_rows().map_err(corrupt)?;
        let table = kmer::build_table(bwt, self.kmer_len, kmer::SATURATED);
        // An entry may also say "recompute" for an interval the table could hold.
        let agrees = |exact: u64, stored: u64| {
            let ((start, _), (stored_start, stored_size)) =
                (kmer::unpack(exact), kmer::unpack(stored));
            exact == stored || (stored_size == kmer::SATURATED && start == stored_start)
        };
        if let Some(e) = table
            .iter()
            .zip(self.kmers)
            .position(|(&a, &b)| !agrees(a, b))
        {
            return Err(corrupt(format!("k-mer table entry {e} is wrong")));
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

    /// Visits every BWT row once, walking `LF` from each sampled row and from each
    /// separator suffix (the ends of fragments), 16 walks at a time: each row's symbol
    /// must be the reference base before its suffix, each walk must end on a sampled or
    /// separator row holding the position it arrived at. Returns the rows visited.
    fn walk_all_rows(&self) -> Result<u64, String> {
        let bwt = &self.bwt;
        let rate = self.sa.rate;
        // Walk starts: (row, text position of its suffix).
        let mut starts: Vec<(u64, u64)> = (0..self.sa.samples.len())
            .filter_map(|k| Some((k as u64 * rate, self.sa.samples.get(k)?)))
            .collect();
        let separator_rows: Vec<u64> = (1..bwt.c[0]).filter(|r| r % rate != 0).collect();
        let mut positions = Vec::new();
        sa_values(&self.sa, bwt, &separator_rows, &mut positions);
        for (&row, p) in separator_rows.iter().zip(positions) {
            starts.push((row, p.ok_or("a separator suffix cannot be located")?));
        }
        let mut visited = 0u64;
        let mut lanes: Vec<(u64, u64)> = Vec::with_capacity(16);
        let mut next = 0;
        loop {
            while lanes.len() < 16 && next < starts.len() {
                bwt.prefetch(starts[next].0);
                lanes.push(starts[next]);
                next += 1;
            }
            if lanes.is_empty() {
                break;
            }
            let mut i = 0;
            while i < lanes.len() {
                let (row, p) = lanes[i];
                visited += 1;
                if visited > bwt.len() {
                    return Err("the LF walks visit more rows than there are".into());
                }
                let expected = if p == 0 {
                    Some(0)
                } else {
                    self.text_symbol(p - 1)
                };
                let found = bwt.symbol(row).map_or(0, |c| c + 1);
                if expected != Some(found) {
                    return Err(format!("BWT row {row} does not match the reference"));
                }
                if found == 0 {
                    if bwt.dollar_sa(row) != Some(p) {
                        return Err(format!("separator row {row} has a wrong position"));
                    }
                    lanes.swap_remove(i);
                    continue;
                }
                let lf = bwt.lf(row).ok_or("LF is undefined on a base")?;
                if lf % rate == 0 && self.sa.samples.get((lf / rate) as usize) != Some(p - 1) {
                    return Err(format!("sample of row {lf} is wrong"));
                }
                if lf % rate == 0 || lf < bwt.c[0] {
                    lanes.swap_remove(i);
                    continue;
                }
                bwt.prefetch(lf);
                lanes[i] = (lf, p - 1);
                i += 1;
            }
        }
        if visited != bwt.len() {
            return Err(format!(
                "the LF walks visit {visited} of {} rows",
                bwt.len()
            ));
        }
        Ok(visited)
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
