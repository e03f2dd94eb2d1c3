//! Where snp-pileup's rows go ([`RowSink`]): FACETS' CSV text (a `Vec<u8>`), or values
//! kept column by column ([`PileupTable`]) for programs that take them as such.

/// Receives the rows of [`super::visit::SiteWalker`]'s walk, in output order.
pub trait RowSink {
    /// A row at a VCF site: its contig's name (`ref_id` in the BAMs), 1-based `position`,
    /// REF and ALT, and per BAM `[R, A, E, D, depth]`.
    fn site_row(
        &mut self,
        contig: &str,
        ref_id: i32,
        position: u64,
        alleles: [u8; 2],
        counts: &[[u32; 5]],
    );

    /// A pseudo-SNP row (REF and ALT `.`): per BAM `[counted, depth]`.
    fn pseudo_row(&mut self, contig: &str, ref_id: i32, position: u64, counts: &[[u32; 2]]);
}

/// FACETS' CSV rows, as the command writes them.
impl RowSink for Vec<u8> {
    fn site_row(
        &mut self,
        contig: &str,
        _: i32,
        position: u64,
        alleles: [u8; 2],
        counts: &[[u32; 5]],
    ) {
        self.extend_from_slice(contig.as_bytes());
        self.push(b',');
        push_number(self, position);
        self.extend_from_slice(&[b',', alleles[0], b',', alleles[1]]);
        for c in counts {
            for &n in &c[..4] {
                self.push(b',');
                push_number(self, u64::from(n));
            }
        }
        self.push(b'\n');
    }

    fn pseudo_row(&mut self, contig: &str, _: i32, position: u64, counts: &[[u32; 2]]) {
        self.extend_from_slice(contig.as_bytes());
        self.push(b',');
        push_number(self, position);
        self.extend_from_slice(b",.,.");
        for c in counts {
            self.push(b',');
            push_number(self, u64::from(c[0]));
            self.extend_from_slice(b",0,0,0");
        }
        self.push(b'\n');
    }
}

/// Every row to both sinks.
impl<A: RowSink, B: RowSink> RowSink for (&mut A, &mut B) {
    fn site_row(
        &mut self,
        contig: &str,
        ref_id: i32,
        position: u64,
        alleles: [u8; 2],
        counts: &[[u32; 5]],
    ) {
        self.0.site_row(contig, ref_id, position, alleles, counts);
        self.1.site_row(contig, ref_id, position, alleles, counts);
    }

    fn pseudo_row(&mut self, contig: &str, ref_id: i32, position: u64, counts: &[[u32; 2]]) {
        self.0.pseudo_row(contig, ref_id, position, counts);
        self.1.pseudo_row(contig, ref_id, position, counts);
    }
}

/// snp-pileup's rows as columns: the values of FACETS' CSV, one entry per row.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PileupTable {
    /// The BAMs' contig names; `contig` indexes them.
    pub contig_names: Vec<String>,
    /// Each row's contig (an index into `contig_names`).
    pub contig: Vec<u32>,
    /// Each row's 1-based position.
    pub position: Vec<i64>,
    /// Each row's REF letter (`.` for a pseudo-SNP).
    pub reference: Vec<u8>,
    /// Each row's ALT letter (`.` for a pseudo-SNP).
    pub alternate: Vec<u8>,
    /// Per BAM, its `R`, `A`, `E` and `D` columns, in that order.
    pub counts: Vec<[Vec<i64>; 4]>,
}

impl PileupTable {
    /// An empty table over `files` BAMs whose contigs are `contig_names`.
    pub fn new(contig_names: Vec<String>, files: usize) -> Self {
        Self {
            contig_names,
            counts: vec![Default::default(); files],
            ..Self::default()
        }
    }

    /// Rows in the table.
    pub fn len(&self) -> usize {
        self.position.len()
    }

    /// Whether the table has no rows.
    pub fn is_empty(&self) -> bool {
        self.position.is_empty()
    }

    fn push_row(&mut self, ref_id: i32, position: u64, alleles: [u8; 2]) {
        self.contig.push(ref_id as u32);
        self.position.push(position as i64);
        self.reference.push(alleles[0]);
        self.alternate.push(alleles[1]);
    }
}

impl RowSink for PileupTable {
    fn site_row(
        &mut self,
        _: &str,
        ref_id: i32,
        position: u64,
        alleles: [u8; 2],
        counts: &[[u32; 5]],
    ) {
        self.push_row(ref_id, position, alleles);
        for (columns, c) in self.counts.iter_mut().zip(counts) {
            for (column, &n) in columns.iter_mut().zip(&c[..4]) {
                column.push(i64::from(n));
            }
        }
    }

    fn pseudo_row(&mut self, _: &str, ref_id: i32, position: u64, counts: &[[u32; 2]]) {
        self.push_row(ref_id, position, [b'.', b'.']);
        for (columns, c) in self.counts.iter_mut().zip(counts) {
            for (column, n) in columns.iter_mut().zip([c[0], 0, 0, 0]) {
                column.push(i64::from(n));
            }
        }
    }
}

/// Appends the decimal digits of `n`.
pub fn push_number(out: &mut Vec<u8>, n: u64) {
    out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_holds_the_values_the_csv_prints() {
        let names = vec!["20".to_string()];
        let mut text = Vec::new();
        let mut table = PileupTable::new(names, 2);
        let site = [[6, 4, 1, 0, 11], [3, 0, 0, 2, 5]];
        (&mut text, &mut table).site_row("20", 0, 100, [b'A', b'G'], &site);
        (&mut text, &mut table).pseudo_row("20", 0, 150, &[[7, 7], [2, 2]]);
        assert_eq!(
            text,
            b"20,100,A,G,6,4,1,0,3,0,0,2\n20,150,.,.,7,0,0,0,2,0,0,0\n"
        );
        assert_eq!(table.contig, [0, 0]);
        assert_eq!(table.position, [100, 150]);
        assert_eq!(
            (table.reference, table.alternate),
            (b"A.".to_vec(), b"G.".to_vec())
        );
        assert_eq!(
            table.counts[0],
            [vec![6, 7], vec![4, 0], vec![1, 0], vec![0, 0]]
        );
        assert_eq!(
            table.counts[1],
            [vec![3, 2], vec![0, 0], vec![0, 0], vec![2, 0]]
        );
    }
}
