//! The emitter without pseudo-SNPs: the VCF's body cut into tasks of whole lines,
//! unparsed.
//!
//! The header is read here, up to the `#CHROM` line. The body is then read in blocks and
//! handed out as text; the workers parse it ([`super::sites`]). Only the lines where a
//! task may end are looked at: after each block the last complete line's CHROM and POS
//! say whether the task still fits (one contig, or only contigs absent from the BAMs;
//! the BAM bytes between its first and last site, from the indexes; at most the span);
//! once it does not, a binary search over that block's lines finds the first one that
//! does not fit, where the task ends. Where a task ends changes nothing in the output,
//! only the balance of the work: the workers and the collector take any cut.
//!
//! Lines are kept whole, except that a line longer than [`LONG_LINE`] keeps only its
//! columns CHROM to ALT (the rest is skipped as it is read), or, when those are longer
//! than [`MAX_SITE_COLUMNS`], its first bytes, ending the task with `last_line_cut`.

use std::collections::HashMap;
use std::io::BufRead;

use anyhow::anyhow;
use seqfarm_farm::Fill;
use seqfarm_io::bam::BamSet;
use seqfarm_io::input::LineReader;
use seqfarm_io::vcf::MAX_SITE_COLUMNS;

use super::Task;

/// Bytes read at a time.
const BLOCK: usize = 64 << 10;
/// Text per task, at most (a task then ends at its last complete line).
const MAX_TEXT: usize = 8 << 20;
/// A line longer than this keeps only its columns CHROM to ALT.
const LONG_LINE: usize = 1 << 20;

/// BAM reference names with snp-pileup's `chr` prefix rule, to reference index.
pub struct ContigLookup {
    lookup: HashMap<Vec<u8>, i32>,
}

impl ContigLookup {
    /// The lookup of `bams`' references.
    pub fn new(bams: &BamSet) -> Self {
        let names: Vec<&str> = bams
            .header()
            .map(|h| h.references.iter().map(|r| r.name.as_str()).collect())
            .unwrap_or_default();
        Self::from_names(&names)
    }

    /// The lookup of references named `names`, in order.
    pub fn from_names(names: &[&str]) -> Self {
        // snp-pileup strips `chr` from the VCF name, and from every BAM name when the
        // first BAM name has it; the first match wins.
        let prefixed = names.first().is_some_and(|n| n.starts_with("chr"));
        let mut lookup = HashMap::new();
        for (i, name) in names.iter().enumerate() {
            let key = if prefixed {
                name.as_bytes().get(3..).unwrap_or_default()
            } else {
                name.as_bytes()
            };
            lookup.entry(key.to_vec()).or_insert(i as i32);
        }
        Self { lookup }
    }

    /// The reference index of VCF contig `chrom` (`-1`: not in the BAMs).
    pub fn ref_id(&self, chrom: &[u8]) -> i32 {
        let stripped = chrom.strip_prefix(b"chr").unwrap_or(chrom);
        self.lookup.get(stripped).copied().unwrap_or(-1)
    }
}

/// CHROM and 1-based POS of a record line, when they read as such.
fn chrom_and_pos(line: &[u8]) -> Option<(&[u8], i64)> {
    let tab = memchr::memchr(b'\t', line)?;
    let rest = &line[tab + 1..];
    let digits = &rest[..memchr::memchr(b'\t', rest).unwrap_or(rest.len())];
    if digits.is_empty() || digits.len() > 18 || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let pos = digits
        .iter()
        .fold(0i64, |n, &d| n * 10 + i64::from(d - b'0'));
    Some((&line[..tab], pos))
}

/// The first site of a task: what the lines after it are compared with.
struct Anchor {
    chrom: Vec<u8>,
    ref_id: i32,
    pos: i64,
}

/// Reads the VCF and fills tasks with its lines (see the module docs).
pub struct VcfChunker<'a> {
    lines: LineReader,
    bams: &'a BamSet,
    contigs: &'a ContigLookup,
    task_bytes: u64,
    task_span: i64,
    /// Lines of the header, until handed to the first task.
    header_lines: Option<u64>,
    /// Bytes read past the end of the last task.
    carry: Vec<u8>,
    eof: bool,
    /// Line breaks read after the header: where a read that fails stopped.
    body_lines: u64,
    /// The long lines of `carry` shortened to their columns CHROM to ALT: where each ends
    /// in `carry`, and the bytes of the VCF it left out.
    shortened: Vec<(usize, u64)>,
    /// Where the text read ends (a line start; `u64::MAX`: at the VCF's end).
    end: u64,
}

impl<'a> VcfChunker<'a> {
    /// A chunker over `lines` (the VCF, nothing read yet): tasks of about `task_bytes`
    /// compressed BAM bytes and at most `task_span` bases.
    pub fn new(
        lines: LineReader,
        bams: &'a BamSet,
        contigs: &'a ContigLookup,
        task_bytes: u64,
        task_span: i64,
    ) -> Self {
        Self {
            lines,
            bams,
            contigs,
            task_bytes: task_bytes.max(1),
            task_span: task_span.max(1),
            header_lines: None,
            carry: Vec::new(),
            eof: false,
            body_lines: 0,
            shortened: Vec::new(),
            end: u64::MAX,
        }
    }

    /// The chunker `new` makes, reading the VCF's body from a line start (`lines` opened
    /// there, counting the lines before it): its header is not read again.
    pub fn resume(mut self) -> Self {
        self.header_lines = Some(0);
        self
    }

    /// The chunker reading no further than the line start `end` (bytes of text before
    /// it; `None`: to the VCF's end).
    pub fn until(mut self, end: Option<u64>) -> Self {
        self.end = end.unwrap_or(u64::MAX);
        self
    }

    /// The input's next bytes, none past `end`.
    fn available(&mut self) -> anyhow::Result<&[u8]> {
        let line = self.reading_line();
        let input = &mut self.lines.input;
        let left = usize::try_from(self.end.saturating_sub(input.position())).unwrap_or(usize::MAX);
        if let Err(e) = input.fill_buf() {
            return Err(input.line_error(line, e).into());
        }
        let buf = input.fill_buf()?;
        Ok(&buf[..buf.len().min(left)])
    }

    /// Where the next task's first line starts: `(bytes of text before it, lines
    /// before it)`.
    pub fn next_line_start(&self) -> (u64, u64) {
        let left_out: u64 = self.shortened.iter().map(|&(_, dropped)| dropped).sum();
        let carried = self.carry.len() as u64 + left_out;
        let carried_lines = memchr::memchr_iter(b'\n', &self.carry).count() as u64;
        (
            self.lines.input.position() - carried,
            self.lines.number + self.body_lines - carried_lines,
        )
    }

    /// Reads the header up to its `#CHROM` line; returns its lines.
    fn read_header(&mut self) -> anyhow::Result<u64> {
        let error = |lines: &LineReader, message: &str| {
            anyhow!(seqfarm_io::Error::line(
                &lines.input.path,
                lines.number.max(1),
                message
            ))
        };
        loop {
            if self.lines.next_line_prefix(MAX_SITE_COLUMNS)?.is_none() {
                return Err(error(&self.lines, "no #CHROM header line: not a VCF"));
            }
            let line = &self.lines.line;
            if line.is_empty() || line.starts_with(b"##") {
                continue;
            }
            if line.starts_with(b"#CHROM") {
                // The rest of a cut line is skipped now, before the body is read raw.
                self.lines.peek()?;
                return Ok(self.lines.number);
            }
            let message = if line[0] == b'#' {
                "header line does not start with ## or #CHROM"
            } else {
                "record before the #CHROM header line: not a VCF"
            };
            return Err(error(&self.lines, message));
        }
    }

    /// The 1-based number of the line the next byte read belongs to.
    fn reading_line(&self) -> u64 {
        self.lines.number + self.body_lines + 1
    }

    /// Appends up to [`BLOCK`] bytes of the input to `text`; 0 at its end.
    fn read_block(&mut self, text: &mut Vec<u8>) -> anyhow::Result<usize> {
        let buf = self.available()?;
        let n = buf.len().min(BLOCK);
        let breaks = memchr::memchr_iter(b'\n', &buf[..n]).count() as u64;
        // Grow as a vector does, but never past what a task may hold (a long line is
        // cut at MAX_SITE_COLUMNS): doubling a 64 MiB line's buffer would take 128 MiB.
        let want = text.len() + n;
        if want > text.capacity() {
            let most = want.max(MAX_TEXT + MAX_SITE_COLUMNS + BLOCK);
            let grown = text.capacity().saturating_mul(2).clamp(want, most);
            text.reserve_exact(grown - text.len());
        }
        text.extend_from_slice(&buf[..n]);
        self.body_lines += breaks;
        self.lines.input.consume(n);
        Ok(n)
    }

    /// Skips the input through the end of the current line.
    fn skip_line(&mut self) -> anyhow::Result<()> {
        loop {
            let buf = self.available()?;
            if buf.is_empty() {
                self.eof = true;
                return Ok(());
            }
            let (n, ended) = match memchr::memchr(b'\n', buf) {
                Some(i) => (i + 1, true),
                None => (buf.len(), false),
            };
            self.lines.input.consume(n);
            if ended {
                self.body_lines += 1;
                return Ok(());
            }
        }
    }

    /// Whether a line belongs in a task that starts at `anchor`.
    fn fits(&self, anchor: &Anchor, line: &[u8]) -> bool {
        let Some((chrom, pos)) = chrom_and_pos(line) else {
            return true;
        };
        if chrom != anchor.chrom.as_slice() {
            return anchor.ref_id < 0 && self.contigs.ref_id(chrom) < 0;
        }
        anchor.ref_id < 0
            || (pos - anchor.pos < self.task_span
                && self
                    .bams
                    .bytes_between(anchor.ref_id as usize, anchor.pos - 1, pos - 1)
                    < self.task_bytes)
    }

    /// The first record line of `text` that reads as one.
    fn anchor(&self, text: &[u8]) -> Option<Anchor> {
        text.split(|&b| b == b'\n')
            .filter(|line| line.first().is_some_and(|&b| b != b'#'))
            .find_map(chrom_and_pos)
            .map(|(chrom, pos)| Anchor {
                chrom: chrom.to_vec(),
                ref_id: self.contigs.ref_id(chrom),
                pos,
            })
    }

    /// Shortens an overlong last line of `text` (without its line end yet, starting at
    /// `start`): to its columns CHROM to ALT if they lie within [`MAX_SITE_COLUMNS`]
    /// (true), else to its first [`MAX_SITE_COLUMNS`] bytes (false). The rest of the
    /// line is skipped in the input.
    fn shorten_long_line(&mut self, text: &mut Vec<u8>, start: usize) -> anyhow::Result<bool> {
        let line = &text[start..];
        let fifth_tab = memchr::memchr_iter(b'\t', line).nth(4);
        match fifth_tab {
            Some(i) => {
                let (read, before) = (line.len() as u64, self.lines.input.position());
                text.truncate(start + i);
                self.skip_line()?;
                text.push(b'\n');
                let skipped = self.lines.input.position() - before;
                self.shortened
                    .push((start + i + 1, read + skipped - (i as u64 + 1)));
                Ok(true)
            }
            None if line.len() >= MAX_SITE_COLUMNS => {
                text.truncate(start + MAX_SITE_COLUMNS);
                self.skip_line()?;
                Ok(false)
            }
            None => Ok(true),
        }
    }

    /// Fills `task` with the next lines (see the module docs).
    pub fn fill(&mut self, task: &mut Task) -> anyhow::Result<Fill> {
        task.clear();
        if self.header_lines.is_none() {
            let lines = self.read_header()?;
            self.header_lines = Some(lines);
            task.header_lines = lines;
        }
        let text = &mut task.text;
        text.append(&mut self.carry);
        let mut anchor: Option<Anchor> = None;
        // Lines before this offset fit the task.
        let mut checked = 0;
        // An unfinished line this long is looked at for its columns CHROM to ALT.
        let mut long_line = LONG_LINE;
        // The text from `checked` to here holds no line break: a long line's blocks are
        // searched once each, not again with every block that follows.
        let mut unbroken = 0;
        // The lines carried from the last task are looked at before more is read: tasks
        // shorter than a block would otherwise leave ever more text carried.
        let mut carried = !text.is_empty();
        loop {
            if !std::mem::take(&mut carried) && !self.eof && self.read_block(text)? == 0 {
                self.eof = true;
            }
            let complete = if self.eof {
                text.len()
            } else {
                let from = unbroken.max(checked);
                memchr::memrchr(b'\n', &text[from..]).map_or(checked, |i| from + i + 1)
            };
            if complete == checked && !self.eof {
                // No line ended in this block: a long line goes on.
                unbroken = text.len();
                if text.len() - checked > long_line {
                    long_line = long_line.saturating_mul(2).min(MAX_SITE_COLUMNS);
                    if !self.shorten_long_line(text, checked)? {
                        task.last_line_cut = true;
                        self.shortened.clear();
                        return Ok(Fill::Task);
                    }
                    if text.last() == Some(&b'\n') {
                        // Cut at its fifth tab and ended: search it again for that break.
                        unbroken = checked;
                    }
                }
                continue;
            }
            if anchor.is_none() {
                anchor = self.anchor(&text[..complete]);
            }
            let mut cut = None;
            if let Some(a) = &anchor {
                let last = text[checked..complete]
                    .strip_suffix(b"\n")
                    .unwrap_or(&text[checked..complete]);
                let last_start = memchr::memrchr(b'\n', last).map_or(checked, |i| checked + i + 1);
                if !self.fits(a, &text[last_start..complete]) {
                    // The first line of the block that does not fit.
                    let mut starts = vec![checked];
                    starts.extend(
                        memchr::memchr_iter(b'\n', &text[checked..complete])
                            .map(|i| checked + i + 1)
                            .filter(|&s| s < complete),
                    );
                    let line_at = |k: usize| {
                        let end = starts.get(k + 1).copied().unwrap_or(complete);
                        &text[starts[k]..end]
                    };
                    let first_out = {
                        let (mut lo, mut hi) = (0, starts.len() - 1);
                        while lo < hi {
                            let mid = (lo + hi) / 2;
                            if self.fits(a, line_at(mid)) {
                                lo = mid + 1;
                            } else {
                                hi = mid;
                            }
                        }
                        lo
                    };
                    cut = Some(starts[first_out]);
                }
            }
            if cut.is_none() && (self.eof || complete >= MAX_TEXT) {
                cut = Some(complete);
            }
            if let Some(cut) = cut.filter(|&c| c > 0 || self.eof) {
                self.shortened.retain_mut(|(end, _)| {
                    *end = end.saturating_sub(cut);
                    *end > 0
                });
                self.carry.extend_from_slice(&text[cut..]);
                text.truncate(cut);
                return Ok(if text.is_empty() {
                    Fill::End
                } else {
                    Fill::Task
                });
            }
            checked = complete;
            long_line = LONG_LINE;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chrom_and_pos_read_the_first_columns_only() {
        assert_eq!(
            chrom_and_pos(b"20\t60035\t.\tC\tG"),
            Some((&b"20"[..], 60035))
        );
        assert_eq!(chrom_and_pos(b"X\t7"), Some((&b"X"[..], 7)));
        assert_eq!(chrom_and_pos(b"X\tx7\t."), None);
        assert_eq!(chrom_and_pos(b"X\t\t."), None);
        assert_eq!(chrom_and_pos(b"no tabs"), None);
    }
}
