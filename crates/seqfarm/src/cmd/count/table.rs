//! `count`'s rows as columns, for programs that take the counts as values (the Python
//! package's data frames) rather than as the command's text.

use super::Task;

/// The rows of a count, column by column, in input order: the values the command
/// prints, one entry per region.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CountTable {
    /// Each region's contig.
    pub chrom: Vec<String>,
    /// Each region's start (0-based), as the BED line gives it; a window's start.
    pub start: Vec<i64>,
    /// Each region's end, as the BED line gives it; a window's end.
    pub end: Vec<i64>,
    /// The BED's further columns (its 4th on) as text, each as long as `chrom`; `None`
    /// where a line has fewer columns than the widest.
    pub bed_columns: Vec<Vec<Option<String>>>,
    /// One column of read counts per BAM, in the order the BAMs were given.
    pub counts: Vec<Vec<i64>>,
}

impl CountTable {
    /// An empty table with a count column for each of `files` BAMs.
    pub fn new(files: usize) -> Self {
        Self {
            counts: vec![Vec::new(); files],
            ..Self::default()
        }
    }

    /// Regions (rows) in the table.
    pub fn len(&self) -> usize {
        self.chrom.len()
    }

    /// Whether the table has no rows.
    pub fn is_empty(&self) -> bool {
        self.chrom.is_empty()
    }

    /// Appends the rows of `task`, counted; `names`: the BAMs' contig names (a window's
    /// contig).
    pub(super) fn add_task(&mut self, task: &Task, names: &[String]) {
        let files = self.counts.len();
        let mut from = 0;
        for (i, region) in task.regions.iter().enumerate() {
            let row = self.len();
            if task.text.is_empty() {
                self.chrom.push(names[region.ref_id as usize].clone());
                self.start.push(region.start);
                self.end.push(region.stop);
            } else {
                let end = task.text_ends[i];
                // The echoed line: chrom, start, end, then its other columns, each
                // followed by a tab.
                let echoed = &task.text[from..end - 1];
                from = end;
                let mut fields = echoed.split(|&b| b == b'\t');
                let text = |field: &[u8]| String::from_utf8_lossy(field).into_owned();
                self.chrom.push(text(fields.next().unwrap_or_default()));
                let (start, end) = task.bed_spans[i];
                self.start.push(start);
                self.end.push(end);
                for (k, field) in fields.skip(2).enumerate() {
                    if k == self.bed_columns.len() {
                        self.bed_columns.push(vec![None; row]);
                    }
                    self.bed_columns[k].push(Some(text(field)));
                }
            }
            for column in &mut self.bed_columns {
                column.resize(row + 1, None);
            }
            let counts = &task.counts[i * files..(i + 1) * files];
            for (column, &n) in self.counts.iter_mut().zip(counts) {
                column.push(i64::from(n));
            }
        }
    }
}
