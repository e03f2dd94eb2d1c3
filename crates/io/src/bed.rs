//! Streaming BED regions the way bedtools reads them.
//!
//! Fields are split on tabs as C++ `getline` splits them (a trailing tab adds no empty
//! field); `track`, `browser` and `#` lines and blank lines are skipped; every record must
//! have as many fields as the first; start and end are non-negative integers with
//! `start <= end`. A zero-length feature (`start == end`) covers `[start - 1, end + 1)`,
//! as bedtools widens it, while its own coordinates are kept for the output.

use std::path::Path;

use crate::input::{Input, LineReader, TextPoint};
use crate::{Error, Result};

/// One region, borrowed from the reader's line buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BedRegion<'a> {
    /// Chromosome name.
    pub chrom: &'a [u8],
    /// Start as written (0-based).
    pub start: i64,
    /// End as written (exclusive).
    pub end: i64,
    /// The fields after the end, tab-separated (empty for BED3).
    pub rest: &'a [u8],
    /// The line's number in the file (1-based).
    pub line: u64,
}

impl BedRegion<'_> {
    /// The interval reads are counted in: `[start, end)`, or `[start - 1, end + 1)` for a
    /// zero-length feature.
    pub fn counted(&self) -> (i64, i64) {
        if self.start == self.end {
            (self.start - 1, self.end + 1)
        } else {
            (self.start, self.end)
        }
    }

    /// Field `n` (1-based; 4 or more), if the line has it.
    fn field(&self, n: usize) -> Option<&[u8]> {
        if self.rest.is_empty() {
            return None;
        }
        self.rest.split(|&b| b == b'\t').nth(n.checked_sub(4)?)
    }

    /// The strand column (the sixth), if the line has one.
    pub fn strand(&self) -> Option<&[u8]> {
        self.field(6)
    }

    /// A BED12 line's blocks as bedtools reads them, `[start, end)` each from the
    /// start bedtools counts from ([`Self::counted`]), into `blocks`; `Ok(false)` and no
    /// block when the line has other than 12 fields. An error is a message for the line.
    pub fn blocks(&self, blocks: &mut Vec<(i64, i64)>) -> std::result::Result<bool, String> {
        blocks.clear();
        if self.rest.split(|&b| b == b'\t').count() != 9 {
            return Ok(false);
        }
        let numbers = |n: usize, name: &str| -> std::result::Result<Vec<i64>, String> {
            let text = self.field(n).unwrap_or_default();
            text.split(|&b| b == b',')
                .filter(|t| !t.is_empty())
                .map(|t| {
                    std::str::from_utf8(t)
                        .ok()
                        .and_then(|t| t.parse::<i64>().ok())
                        .ok_or_else(|| {
                            format!(
                                "{name} {:?} are not integers",
                                String::from_utf8_lossy(text)
                            )
                        })
                })
                .collect()
        };
        let count = std::str::from_utf8(self.field(10).unwrap_or_default())
            .ok()
            .and_then(|t| t.parse::<i64>().ok())
            .filter(|&n| n > 0)
            .ok_or("a BED12 block count that is not a positive integer")?;
        let sizes = numbers(11, "block sizes")?;
        let starts = numbers(12, "block starts")?;
        if sizes.len() as i64 != count || starts.len() as i64 != count {
            return Err(format!(
                "{count} blocks, but {} sizes and {} starts",
                sizes.len(),
                starts.len()
            ));
        }
        let base = self.counted().0;
        blocks.extend(
            starts
                .iter()
                .zip(&sizes)
                .map(|(&start, &size)| (base + start, base + start + size)),
        );
        Ok(true)
    }
}

/// The longest BED line accepted (a BED12 line of a gene with ten thousand exons is
/// about 150 KiB): memory stays bounded on a file without line breaks.
pub const MAX_LINE: usize = 16 << 20;

/// Reads the regions of a BED file one at a time.
pub struct BedRegions {
    lines: LineReader,
    fields: Option<usize>,
}

impl BedRegions {
    /// Opens `path` (`-` for standard input; gzip recognised by content).
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        Ok(Self {
            lines: LineReader::new(Input::open(path)?).with_max_len(MAX_LINE, "BED line"),
            fields: None,
        })
    }

    /// Opens `path` to read its regions from the line start `point` on (a run in parts),
    /// `fields` being those of the file's first record when it lies before the point.
    pub fn open_at(
        path: impl AsRef<Path>,
        point: &TextPoint,
        fields: Option<usize>,
    ) -> Result<Self> {
        let mut lines =
            LineReader::new(Input::open_at(path, point)?).with_max_len(MAX_LINE, "BED line");
        lines.number = point.lines;
        Ok(Self { lines, fields })
    }

    /// Where the next line starts: `(bytes of text before it, lines before it)`.
    pub fn next_line_start(&mut self) -> Result<(u64, u64)> {
        self.lines.next_line_start()
    }

    /// The fields of the first record, once it is read (every record must have as many).
    pub fn fields(&self) -> Option<usize> {
        self.fields
    }

    /// The path the file was opened by.
    pub fn path(&self) -> &Path {
        &self.lines.input.path
    }

    /// The next region, or `None` at the end of the file.
    pub fn next_region(&mut self) -> Result<Option<BedRegion<'_>>> {
        loop {
            if !self.lines.next_line()? {
                return Ok(None);
            }
            let skip = self.lines.line.is_empty()
                || self.lines.line.starts_with(b"#")
                || self.lines.line.starts_with(b"track")
                || self.lines.line.starts_with(b"browser");
            if !skip {
                break;
            }
        }
        let mut line: &[u8] = &self.lines.line;
        if line.last() == Some(&b'\t') {
            line = &line[..line.len() - 1];
        }
        let fields = 1 + line.iter().filter(|&&b| b == b'\t').count();
        let number = self.lines.number;
        let error = |message: String| Error::line(&self.lines.input.path, number, message);
        if fields < 3 {
            return Err(error(
                "fewer than 3 columns: BED fields are tab-separated".into(),
            ));
        }
        match self.fields {
            None => self.fields = Some(fields),
            Some(first) if first != fields => {
                return Err(error(format!(
                    "{fields} fields where the first record has {first}"
                )))
            }
            _ => {}
        }
        let mut parts = line.splitn(4, |&b| b == b'\t');
        let chrom = parts.next().unwrap_or_default();
        let mut coordinate = |name: &str| {
            let text = parts.next().unwrap_or_default();
            if text.is_empty() || !text.iter().all(u8::is_ascii_digit) {
                return Err(error(format!(
                    "{name} {:?} is not a non-negative integer",
                    String::from_utf8_lossy(text)
                )));
            }
            std::str::from_utf8(text)
                .ok()
                .and_then(|t| t.parse::<i64>().ok())
                .ok_or_else(|| error(format!("{name} is too large")))
        };
        let start = coordinate("start")?;
        let end = coordinate("end")?;
        if start > end {
            return Err(error(format!("start {start} is greater than end {end}")));
        }
        Ok(Some(BedRegion {
            chrom,
            start,
            end,
            rest: parts.next().unwrap_or_default(),
            line: number,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Seen = (String, i64, i64, String, (i64, i64));

    fn regions(text: &str) -> Result<Vec<Seen>> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.bed");
        std::fs::write(&path, text).unwrap();
        let mut reader = BedRegions::open(&path)?;
        let mut out = Vec::new();
        while let Some(r) = reader.next_region()? {
            out.push((
                String::from_utf8_lossy(r.chrom).into_owned(),
                r.start,
                r.end,
                String::from_utf8_lossy(r.rest).into_owned(),
                r.counted(),
            ));
        }
        Ok(out)
    }

    #[test]
    fn reads_like_bedtools() {
        let got = regions(
            "track name=x\n#c\nbrowser p\n\n1\t00020000\t20500\tn\t7.50\t+\r\n\
             2\t5\t5\t\t1\t-\t\n",
        )
        .unwrap();
        assert_eq!(
            got[0],
            (
                "1".into(),
                20000,
                20500,
                "n\t7.50\t+".into(),
                (20000, 20500)
            )
        );
        assert_eq!(got[1], ("2".into(), 5, 5, "\t1\t-".into(), (4, 6)));
        assert_eq!(regions("1\t1\t2\t\n").unwrap()[0].3, "");
    }

    #[test]
    fn strands_and_blocks_of_bed12() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.bed");
        std::fs::write(
            &path,
            "1\t100\t400\tg\t0\t-\t100\t400\t0\t2\t50,100,\t0,200,\n\
             1\t100\t400\tg\t0\t+\t100\t400\t0\t2\t50\t0,200\n\
             1\t100\t400\tg\t0\t+\t100\t400\t0\t0\t1\t0\n\
             1\t7\t7\tg\t0\t.\t7\t7\t0\t1\t2\t0\n",
        )
        .unwrap();
        let mut reader = BedRegions::open(&path).unwrap();
        let mut blocks = Vec::new();
        let r = reader.next_region().unwrap().unwrap();
        assert_eq!((r.strand(), r.line), (Some(&b"-"[..]), 1));
        assert_eq!(r.blocks(&mut blocks), Ok(true));
        assert_eq!(blocks, [(100, 150), (300, 400)]);
        let r = reader.next_region().unwrap().unwrap();
        assert!(r
            .blocks(&mut blocks)
            .unwrap_err()
            .contains("1 sizes and 2 starts"));
        let r = reader.next_region().unwrap().unwrap();
        assert!(r.blocks(&mut blocks).unwrap_err().contains("block count"));
        let r = reader.next_region().unwrap().unwrap();
        assert_eq!(r.blocks(&mut blocks), Ok(true));
        assert_eq!(
            blocks,
            [(6, 8)],
            "from the widened start of a zero-length feature"
        );
        let mut reader = BedRegions::open(&path).unwrap();
        let r = reader.next_region().unwrap().unwrap();
        let short = BedRegion {
            rest: &r.rest[..3],
            ..r
        };
        assert_eq!(
            (short.strand(), short.blocks(&mut blocks)),
            (None, Ok(false))
        );
    }

    #[test]
    fn bad_lines_are_errors_naming_the_line() {
        for (text, want) in [
            ("1 5 10\n", "fewer than 3 columns"),
            ("1\t5\t10\n1\t5\t10\tx\n", "line 2: 4 fields"),
            ("1\t-5\t10\n", "non-negative integer"),
            ("1\t5x\t10\n", "non-negative integer"),
            ("1\t50\t40\n", "greater than end"),
        ] {
            let e = regions(text).unwrap_err().to_string();
            assert!(e.contains(want) && e.contains("r.bed"), "{e}");
        }
    }
}
