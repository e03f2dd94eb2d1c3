//! The columns of a search's alignments as values ([`BlastTable`]), for programs that
//! take them as such: each value is the one the tabular line prints (numbers rounded as
//! BLAST rounds them; no E-value or bit score is NaN where the line prints `NA`).

use super::cells::{cell, Cell};
use super::{Column, HspRecord};

/// One column's values, one per alignment.
#[derive(Debug, Clone, PartialEq)]
pub enum ColumnValues {
    /// Names, sequences, strands, traceback operations.
    Text(Vec<String>),
    /// Counts, lengths, positions, scores, coverages.
    Int(Vec<i64>),
    /// Percentages, E-values and bit scores as printed (NaN where `NA` is printed).
    Float(Vec<f64>),
}

/// The alignments of a search, column by column, in report order.
#[derive(Debug, Clone, PartialEq)]
pub struct BlastTable {
    /// Each column (in the order asked, repeats kept) and its values.
    pub columns: Vec<(Column, ColumnValues)>,
    /// Whether the search was of DNA (`sstrand` reads `plus`/`minus`, else `N/A`).
    dna: bool,
}

impl BlastTable {
    /// An empty table of `columns` (`dna` as for the tabular lines).
    pub fn new(columns: &[Column], dna: bool) -> Self {
        let columns = columns
            .iter()
            .map(|&column| (column, ColumnValues::of(column)))
            .collect();
        Self { columns, dna }
    }

    /// Alignments in the table.
    pub fn len(&self) -> usize {
        self.columns.first().map_or(0, |(_, values)| values.len())
    }

    /// Whether the table holds no alignment.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Appends one alignment's values.
    pub fn add(&mut self, hsp: &HspRecord) {
        for (column, values) in &mut self.columns {
            values.push(cell(*column, hsp, self.dna));
        }
    }
}

impl ColumnValues {
    /// No values yet, of the kind `column` holds.
    fn of(column: Column) -> Self {
        match cell(column, &HspRecord::default(), true) {
            Cell::Text(_) | Cell::Strand(_) => ColumnValues::Text(Vec::new()),
            Cell::Int(_) => ColumnValues::Int(Vec::new()),
            Cell::Percent(..) | Cell::Evalue(_) | Cell::BitScore(_) => {
                ColumnValues::Float(Vec::new())
            }
        }
    }

    /// Values held.
    pub fn len(&self) -> usize {
        match self {
            ColumnValues::Text(v) => v.len(),
            ColumnValues::Int(v) => v.len(),
            ColumnValues::Float(v) => v.len(),
        }
    }

    /// Whether no value is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn push(&mut self, value: Cell<'_>) {
        match (self, value) {
            (ColumnValues::Int(v), Cell::Int(n)) => v.push(n),
            (ColumnValues::Float(v), Cell::Evalue(None) | Cell::BitScore(None)) => v.push(f64::NAN),
            (ColumnValues::Float(v), number) => v.push(printed(&number)),
            (ColumnValues::Text(v), text) => v.push(printed_text(&text)),
            (values, value) => unreachable!("a {value:?} in a column of {values:?}"),
        }
    }
}

/// The number a cell prints (its text read back: the rounding is BLAST's).
fn printed(value: &Cell<'_>) -> f64 {
    printed_text(value).parse().unwrap_or(f64::NAN)
}

/// The text a cell prints.
fn printed_text(value: &Cell<'_>) -> String {
    let mut text = String::new();
    value.write_text(&mut text);
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_those_the_line_prints() {
        let hsp = HspRecord {
            query_id: "q1".into(),
            subject_id: "sp|P1|A".into(),
            identities: 2,
            length: 3,
            score: 17,
            evalue: Some(1.234_567e-5),
            ..HspRecord::default()
        };
        let columns = [
            Column::SubjectSeqId,
            Column::PercentIdentity,
            Column::Evalue,
            Column::BitScore,
            Column::Score,
            Column::SubjectStrand,
        ];
        let mut table = BlastTable::new(&columns, false);
        table.add(&hsp);
        let mut line = String::new();
        super::super::tabular::line(&mut line, &columns, &hsp, false);
        assert_eq!(line, "sp|P1|A\t66.667\t1.23e-05\tNA\t17\tN/A\n");
        assert_eq!(table.len(), 1);
        let values: Vec<_> = table.columns.iter().map(|(_, v)| v.clone()).collect();
        assert_eq!(values[0], ColumnValues::Text(vec!["sp|P1|A".into()]));
        assert_eq!(values[1], ColumnValues::Float(vec![66.667]));
        assert_eq!(values[2], ColumnValues::Float(vec![1.23e-5]));
        assert!(matches!(&values[3], ColumnValues::Float(v) if v[0].is_nan()));
        assert_eq!(values[4], ColumnValues::Int(vec![17]));
        assert_eq!(values[5], ColumnValues::Text(vec!["N/A".into()]));
    }
}
