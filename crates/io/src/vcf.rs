//! Streaming the site columns of a VCF (CHROM, POS, REF, ALT), plain or bgzipped.
//!
//! Site lists for allele counting have millions of records and are read once, front to
//! back: [`VcfSites`] keeps one line in a reused buffer and hands out [`VcfSite`] views
//! into it. The header must end with the `#CHROM` line before the first record (as
//! htslib requires); the other columns are not parsed.
//!
//! Only the first [`MAX_SITE_COLUMNS`] bytes of a line are kept: the rest (QUAL, FILTER,
//! INFO and the genotypes of however many samples) is skipped as it is read, so a line
//! of any length takes bounded memory. Site columns longer than that are an error.

use std::path::Path;

use crate::input::{human_size, Input, LineReader};
use crate::{Error, Result};

/// The most bytes of a line kept in memory: CHROM to ALT, with their tabs, must fit
/// (an ALT or REF of tens of millions of bases does); what follows is skipped unread.
pub const MAX_SITE_COLUMNS: usize = 64 << 20;

/// One record's site columns, borrowed from the reader's line buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VcfSite<'a> {
    /// CHROM.
    pub chrom: &'a [u8],
    /// POS as written (1-based).
    pub pos: i64,
    /// REF.
    pub reference: &'a [u8],
    /// ALT as written: comma-separated alleles, or `.` for none.
    pub alternates: &'a [u8],
}

impl VcfSite<'_> {
    /// Number of alleles, REF included (htslib's `n_allele`): ALT `.` adds none.
    pub fn allele_count(&self) -> usize {
        if self.alternates == b"." {
            1
        } else {
            2 + self.alternates.iter().filter(|&&b| b == b',').count()
        }
    }

    /// The single-base REF and ALT of a biallelic SNV record (exactly two alleles, each
    /// one character long), or `None` for any other record.
    pub fn snv_bases(&self) -> Option<(u8, u8)> {
        match (self.reference, self.alternates) {
            ([r], [a]) if *a != b'.' => Some((*r, *a)),
            _ => None,
        }
    }
}

/// Reads the records of a VCF one at a time.
pub struct VcfSites {
    lines: LineReader,
    header_done: bool,
    /// The most bytes of a line kept ([`MAX_SITE_COLUMNS`]; smaller in tests).
    max_kept: usize,
}

impl VcfSites {
    /// Opens `path` (`-` for standard input; gzip or BGZF recognised by content).
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        Ok(Self {
            lines: LineReader::new(Input::open(path)?),
            header_done: false,
            max_kept: MAX_SITE_COLUMNS,
        })
    }

    /// Reads the records of the VCF `lines` reads (nothing read yet).
    pub fn from_lines(lines: LineReader) -> Self {
        Self {
            lines,
            header_done: false,
            max_kept: MAX_SITE_COLUMNS,
        }
    }

    /// Reads the records of a VCF's body from `lines`, its header already read (a run
    /// in parts starting at a line of the body).
    pub fn from_body(lines: LineReader) -> Self {
        Self {
            header_done: true,
            ..Self::from_lines(lines)
        }
    }

    /// Where the next line starts: `(bytes of text before it, lines before it)`.
    pub fn next_line_start(&mut self) -> Result<(u64, u64)> {
        self.lines.next_line_start()
    }

    /// The path the VCF was opened by.
    pub fn path(&self) -> &Path {
        &self.lines.input.path
    }

    /// Lines read so far.
    pub fn line_number(&self) -> u64 {
        self.lines.number
    }

    /// The next record, or `None` at the end of the file.
    pub fn next_site(&mut self) -> Result<Option<VcfSite<'_>>> {
        let complete = loop {
            let Some(complete) = self.lines.next_line_prefix(self.max_kept)? else {
                if !self.header_done {
                    return Err(self.error("no #CHROM header line: not a VCF"));
                }
                return Ok(None);
            };
            if self.lines.line.is_empty() {
                continue;
            }
            if self.lines.line[0] == b'#' {
                if self.lines.line.starts_with(b"#CHROM") {
                    self.header_done = true;
                } else if !self.lines.line.starts_with(b"##") {
                    return Err(self.error("header line does not start with ## or #CHROM"));
                }
                continue;
            }
            if !self.header_done {
                return Err(self.error("record before the #CHROM header line: not a VCF"));
            }
            break complete;
        };
        let number = self.lines.number;
        let path = &self.lines.input.path;
        let kept = (!complete).then_some(self.max_kept);
        record_columns(&self.lines.line, kept)
            .map_err(|message| Error::line(path, number, message))
            .map(Some)
    }

    fn error(&self, message: &str) -> Error {
        Error::line(&self.lines.input.path, self.lines.number.max(1), message)
    }
}

/// One line of a VCF's body after the `#CHROM` line (its line end removed): `Ok(None)`
/// for a line without a record (empty, `##` or `#CHROM`), the site columns of a record,
/// or the message of an error. `kept` is `Some(max)` when only the line's first `max`
/// bytes were read: the site columns must lie within them.
pub fn body_line(
    line: &[u8],
    kept: Option<usize>,
) -> std::result::Result<Option<VcfSite<'_>>, String> {
    let mut line = line;
    if kept.is_none() {
        while let [rest @ .., b'\r'] = line {
            line = rest;
        }
    }
    match line.first() {
        None => return Ok(None),
        Some(b'#') if line.starts_with(b"##") || line.starts_with(b"#CHROM") => return Ok(None),
        Some(b'#') => return Err("header line does not start with ## or #CHROM".into()),
        Some(_) => {}
    }
    record_columns(line, kept).map(Some)
}

/// The site columns of a record line; `kept` as in [`body_line`].
fn record_columns(line: &[u8], kept: Option<usize>) -> std::result::Result<VcfSite<'_>, String> {
    if let Some(max) = kept {
        if memchr::memchr_iter(b'\t', line).count() < 5 {
            return Err(format!(
                "the columns CHROM to ALT are longer than {}, the most read of a line: the file is corrupt or its tabs or line breaks are missing",
                human_size(max)
            ));
        }
    }
    parse_site(line)
}

/// Splits the first five columns of a record line.
fn parse_site(line: &[u8]) -> std::result::Result<VcfSite<'_>, String> {
    let mut columns = line.splitn(6, |&b| b == b'\t');
    let mut next = |name: &str| {
        columns
            .next()
            .filter(|c| !c.is_empty())
            .ok_or_else(|| format!("missing {name} column (VCF columns are tab-separated)"))
    };
    let chrom = next("CHROM")?;
    let pos_text = next("POS")?;
    let _id = next("ID")?;
    let reference = next("REF")?;
    let alternates = next("ALT")?;
    let pos = digits_value(pos_text)
        .or_else(|| {
            std::str::from_utf8(pos_text)
                .ok()
                .and_then(|s| s.parse::<i64>().ok())
        })
        .filter(|&p| p >= 0)
        .ok_or_else(|| {
            format!(
                "POS {:?} is not a position",
                String::from_utf8_lossy(pos_text)
            )
        })?;
    Ok(VcfSite {
        chrom,
        pos,
        reference,
        alternates,
    })
}

/// The value of `text` when it is 1 to 18 ASCII digits (every POS in practice, read
/// without the UTF-8 check and sign handling of `str::parse`); `None` otherwise.
fn digits_value(text: &[u8]) -> Option<i64> {
    if text.is_empty() || text.len() > 18 || !text.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(
        text.iter()
            .fold(0i64, |value, &digit| value * 10 + i64::from(digit - b'0')),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_read_as_str_parse_reads_them() {
        let line = |pos: &str| format!("1\t{pos}\t.\tA\tC");
        let accepted = [
            "0",
            "7",
            "0012",
            "123456789012345678",
            "1234567890123456789",
            "+5",
            "-0",
        ];
        for text in accepted {
            let line = line(text);
            let site = parse_site(line.as_bytes()).unwrap();
            assert_eq!(site.pos, text.parse::<i64>().unwrap(), "{text}");
        }
        for text in ["-5", "1e3", "12a", "99999999999999999999"] {
            assert!(parse_site(line(text).as_bytes()).is_err(), "{text}");
        }
        assert_eq!(digits_value(b""), None);
        assert_eq!(digits_value(b"12 "), None);
    }

    type Seen = (String, i64, Option<(u8, u8)>, usize);

    fn sites(text: &str) -> Result<Vec<Seen>> {
        sites_keeping(text, MAX_SITE_COLUMNS)
    }

    fn sites_keeping(text: &str, max_kept: usize) -> Result<Vec<Seen>> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.vcf");
        std::fs::write(&path, text).unwrap();
        let mut reader = VcfSites::open(&path)?;
        reader.max_kept = max_kept;
        let mut out = Vec::new();
        while let Some(site) = reader.next_site()? {
            out.push((
                String::from_utf8_lossy(site.chrom).into_owned(),
                site.pos,
                site.snv_bases(),
                site.allele_count(),
            ));
        }
        Ok(out)
    }

    const HEADER: &str = "##fileformat=VCFv4.2\n#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\n";

    #[test]
    fn reads_site_columns_and_classifies_alleles() {
        let text = format!(
            "{HEADER}20\t100\t.\tA\tC\t.\t.\t.\n\n20\t101\trs1\tA\tC,T\t.\t.\t.\r\n\
             chr20\t102\t.\tAT\tA\t.\t.\t.\n20\t103\t.\tG\t.\t.\t.\t.\n20\t104\t.\tG\t<DEL>\n"
        );
        let got = sites(&text).unwrap();
        assert_eq!(got[0], ("20".into(), 100, Some((b'A', b'C')), 2));
        assert_eq!(got[1], ("20".into(), 101, None, 3));
        assert_eq!(got[2], ("chr20".into(), 102, None, 2));
        assert_eq!(got[3], ("20".into(), 103, None, 1));
        assert_eq!(got[4], ("20".into(), 104, None, 2));
    }

    #[test]
    fn body_lines_read_alike_whole_or_cut() {
        let site = body_line(b"20\t100\t.\tA\tC\t.\r\r", None)
            .unwrap()
            .unwrap();
        assert_eq!(
            (site.chrom, site.pos, site.snv_bases()),
            (&b"20"[..], 100, Some((b'A', b'C')))
        );
        for skipped in [&b""[..], b"\r", b"##x", b"#CHROM\tPOS"] {
            assert_eq!(body_line(skipped, None), Ok(None));
        }
        assert!(body_line(b"#x", None).unwrap_err().contains("## or #CHROM"));
        assert!(body_line(b"20\t100\t.\tA\tC\tx", Some(64)).is_ok());
        let e = body_line(b"20\t100\t.\tA\tCC", Some(64)).unwrap_err();
        assert!(
            e.starts_with("the columns CHROM to ALT are longer than 64 bytes"),
            "{e}"
        );
    }

    #[test]
    fn bad_files_name_the_line() {
        for (text, want) in [
            ("20\t1\t.\tA\tC\n".to_string(), "record before the #CHROM"),
            (String::new(), "no #CHROM header"),
            (format!("{HEADER}20\tx\t.\tA\tC\n"), "line 3"),
            (format!("{HEADER}20 1 . A C\n"), "missing POS"),
        ] {
            let e = sites(&text).unwrap_err().to_string();
            assert!(e.contains(want), "{e}");
            assert!(e.contains("a.vcf"), "{e}");
        }
    }

    #[test]
    fn long_lines_are_read_for_their_site_columns_only() {
        let samples = "\t0/1".repeat(1000);
        let text = format!("{HEADER}20\t100\t.\tA\tC\t.\t.\t.\tGT{samples}\n20\t101\t.\tG\tT\n");
        let got = sites_keeping(&text, 64).unwrap();
        assert_eq!(got[0], ("20".into(), 100, Some((b'A', b'C')), 2));
        assert_eq!(got[1], ("20".into(), 101, Some((b'G', b'T')), 2));
        let text = format!("{HEADER}20\t100\t.\tA\t{}\t.\n", "C".repeat(100));
        let e = sites_keeping(&text, 64).unwrap_err().to_string();
        assert!(
            e.ends_with("a.vcf: line 3: the columns CHROM to ALT are longer than 64 bytes, the most read of a line: the file is corrupt or its tabs or line breaks are missing"),
            "{e}"
        );
    }
}
