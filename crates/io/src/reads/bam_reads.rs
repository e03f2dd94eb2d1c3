//! Unaligned BAM read input (`-b`): records are read one after the other and written
//! as FASTQ, so the rest of the read path (checks, trimming, `--un`/`--al` copies)
//! treats them as any FASTQ read.
//!
//! As in bowtie2, without `--align-paired-reads` only the records flagged neither
//! first (0x40) nor last (0x80) segment are read, each an unpaired read; with it, only
//! the flagged ones are read, as pairs of consecutive records (a name-grouped file).
//! Secondary and supplementary records (0x100, 0x800) are not reads of their own and
//! are skipped. With `--preserve-tags`, a record's tags are written as SAM text in its
//! FASTQ header's comment (`@name<TAB>RG:Z:grp<TAB>BC:Z:ACGT`), from where the aligner
//! copies them to the read's records.

use seqfarm_core::nucleotide::complement_letter;
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::bam::{flags, Record, MAX_RECORD_SIZE};
use crate::input::{human_size, Input};
use crate::sam::tag_text::append_bam_fields_as_text;
use crate::{Error, Result};

/// Reads of one BAM file, as FASTQ records.
pub(crate) struct BamReads {
    input: Input,
    paired: bool,
    preserve_tags: bool,
    record: Vec<u8>,
    /// Records read from the file so far, skipped ones included (the 1-based number of
    /// the last one).
    pub records: u64,
    /// The 1-based number of the record the last returned fragment starts with.
    pub fragment_record: u64,
}

impl BamReads {
    /// Opens `path` (`-` for standard input) and reads its header; `paired` reads
    /// pairs (`--align-paired-reads`), `preserve_tags` keeps the records' tags
    /// (`--preserve-tags`).
    pub fn open(path: &Path, paired: bool, preserve_tags: bool) -> Result<Self> {
        let mut input = Input::open(path)?;
        skip_header(&mut input)?;
        Ok(Self {
            input,
            paired,
            preserve_tags,
            record: Vec::new(),
            records: 0,
            fragment_record: 0,
        })
    }

    /// The file's path as given.
    pub fn path(&self) -> &PathBuf {
        &self.input.path
    }

    /// Whether fragments are pairs.
    pub fn paired(&self) -> bool {
        self.paired
    }

    /// Appends the next fragment (an unpaired read, or mate 1 then mate 2) to `out` as
    /// FASTQ; `false` at the end of the file.
    pub fn next_into(&mut self, out: &mut Vec<u8>) -> Result<bool> {
        loop {
            if !self.read_record()? {
                return Ok(false);
            }
            let flag = self.view()?.flag();
            if flag & (flags::SECONDARY | flags::SUPPLEMENTARY) != 0 {
                continue;
            }
            let segment = flag & (flags::READ1 | flags::READ2);
            if (segment != 0) != self.paired {
                continue;
            }
            self.fragment_record = self.records;
            if self.paired {
                return self.pair_into(out);
            }
            let number = self.records;
            self.write_fastq(&self.view()?, number, out)?;
            return Ok(true);
        }
    }

    /// Completes a pair whose first record is the current one: the next read record
    /// must be its mate.
    fn pair_into(&mut self, out: &mut Vec<u8>) -> Result<bool> {
        let first = self.record.clone();
        let first_number = self.records;
        let first = view(&first).map_err(|m| Error::record(self.path(), first_number, m))?;
        let name = String::from_utf8_lossy(first.read_name()).into_owned();
        let mate = loop {
            if !self.read_record()? {
                let message = format!(
                    "`{name}` is the last paired record of the file and has no mate: with \
                     --align-paired-reads, the mates of a pair are consecutive records \
                     (a name-sorted or collated BAM)"
                );
                return Err(Error::record(self.path(), first_number, message));
            }
            let record = self.view()?;
            let flag = record.flag();
            let paired = flag & (flags::READ1 | flags::READ2) != 0;
            if flag & (flags::SECONDARY | flags::SUPPLEMENTARY) == 0 && paired {
                break record;
            }
        };
        let segment = |r: &Record<'_>| r.flag() & (flags::READ1 | flags::READ2);
        let (a, b) = (segment(&first), segment(&mate));
        let broken = if first.read_name() != mate.read_name() {
            Some(format!(
                "is followed by `{}` (record {})",
                String::from_utf8_lossy(mate.read_name()),
                self.records
            ))
        } else if a == b || a == flags::READ1 | flags::READ2 {
            Some(format!(
                "and its next record (record {}) are not flagged one first (0x40), one \
                 last (0x80) segment",
                self.records
            ))
        } else {
            None
        };
        if let Some(why) = broken {
            let message = format!(
                "paired record `{name}` {why}: with --align-paired-reads, the mates of a \
                 pair are consecutive records (a name-sorted or collated BAM)"
            );
            return Err(Error::record(self.path(), first_number, message));
        }
        let numbered = [(first, first_number), (mate, self.records)];
        let order = if a == flags::READ1 { [0, 1] } else { [1, 0] };
        for i in order {
            self.write_fastq(&numbered[i].0, numbered[i].1, out)?;
        }
        Ok(true)
    }

    /// Appends record number `number` as FASTQ ([`write_fastq`]), its tags in the
    /// header's comment with `--preserve-tags`.
    fn write_fastq(&self, record: &Record<'_>, number: u64, out: &mut Vec<u8>) -> Result<()> {
        write_fastq(record, self.preserve_tags, out)
            .map_err(|m| Error::record(self.path(), number, m))
    }

    /// The current record.
    fn view(&self) -> Result<Record<'_>> {
        view(&self.record).map_err(|m| Error::record(self.path(), self.records, m))
    }

    /// Reads the next record's bytes into `self.record`; `false` at the end of the file.
    fn read_record(&mut self) -> Result<bool> {
        let mut size = [0u8; 4];
        let got = read_full(&mut self.input, &mut size)?;
        if got == 0 {
            return Ok(false);
        }
        let number = self.records + 1;
        if got < 4 {
            return Err(Error::record(
                self.path(),
                number,
                "the file ends inside a record's length",
            ));
        }
        let size = u32::from_le_bytes(size) as usize;
        if size > MAX_RECORD_SIZE {
            let message = format!(
                "record length {size} is larger than {}, the largest BAM record accepted: the file is corrupt",
                human_size(MAX_RECORD_SIZE)
            );
            return Err(Error::record(self.path(), number, message));
        }
        // Read, not allocated up front: memory follows the bytes that are there, not
        // the length the record claims.
        self.record.clear();
        let read = (&mut self.input)
            .take(size as u64)
            .read_to_end(&mut self.record);
        let got = match read {
            Ok(got) => got,
            Err(e) => {
                let message = format!("cannot read: {e}");
                return Err(Error::record(self.path(), number, message));
            }
        };
        if got < size {
            return Err(Error::record(
                self.path(),
                number,
                "the file ends inside a record: it is truncated",
            ));
        }
        self.records = number;
        Ok(true)
    }
}

/// Views `bytes` as a record, or says why not.
fn view(bytes: &[u8]) -> std::result::Result<Record<'_>, String> {
    Record::new(bytes).map_err(|e| format!("bad BAM record: {}", e.0))
}

/// Appends `record` as a FASTQ record: its name (followed by its tags as SAM text,
/// each after a tab, when `tags`), its sequence (reverse-complemented back if flagged
/// reverse, 0x10) and its qualities (`I` for every base when the record has none). A
/// malformed tag is an error saying what is wrong.
fn write_fastq(
    record: &Record<'_>,
    tags: bool,
    out: &mut Vec<u8>,
) -> std::result::Result<(), String> {
    let reverse = record.flag() & flags::REVERSE != 0;
    let seq = record.seq();
    let qual = record.qual();
    let len = seq.len();
    let at = |i: usize| if reverse { len - 1 - i } else { i };
    out.push(b'@');
    out.extend_from_slice(record.read_name());
    if tags {
        append_bam_fields_as_text(record.aux(), out)?;
    }
    out.push(b'\n');
    for i in 0..len {
        let base = match seq.base(at(i)) {
            b @ (b'A' | b'C' | b'G' | b'T') if reverse => complement_letter(b),
            b @ (b'A' | b'C' | b'G' | b'T') => b,
            _ => b'N',
        };
        out.push(base);
    }
    out.extend_from_slice(b"\n+\n");
    if qual.first() == Some(&0xff) {
        out.extend(std::iter::repeat_n(b'I', len));
    } else {
        out.extend((0..len).map(|i| qual[at(i)].saturating_add(33)));
    }
    out.push(b'\n');
    Ok(())
}

/// Reads the BAM header (magic, text, reference list) and drops it.
fn skip_header(input: &mut Input) -> Result<()> {
    let path = input.path.clone();
    let truncated = || Error::format(&path, 0, "the file ends inside the BAM header");
    let mut word = [0u8; 4];
    if read_full(input, &mut word)? < 4 || &word != b"BAM\x01" {
        return Err(Error::format(
            &path,
            0,
            "not a BAM file (no BAM\\1 magic after decompression): -b reads unaligned BAM",
        ));
    }
    let skip = |input: &mut Input, n: u64| -> Result<()> {
        let copied = std::io::copy(&mut input.take(n), &mut std::io::sink())
            .map_err(|e| Error::io(&path, e))?;
        if copied < n {
            return Err(truncated());
        }
        Ok(())
    };
    let u32_field = |input: &mut Input| -> Result<u32> {
        let mut b = [0u8; 4];
        if read_full(input, &mut b)? < 4 {
            return Err(truncated());
        }
        Ok(u32::from_le_bytes(b))
    };
    let text = u32_field(input)?;
    skip(input, u64::from(text))?;
    let references = u32_field(input)?;
    for _ in 0..references {
        let name = u32_field(input)?;
        skip(input, u64::from(name) + 4)?;
    }
    Ok(())
}

/// Reads until `buf` is full or the input ends; returns the bytes read.
fn read_full(input: &mut Input, buf: &mut [u8]) -> Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match input.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(input.error(e)),
        }
    }
    Ok(got)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bam::test_bam;

    /// A BAM of one record whose length field says `claimed`.
    fn claiming(dir: &tempfile::TempDir, claimed: u32) -> PathBuf {
        let mut data = test_bam::header("@HD\tVN:1.6\n", &[("c", 100)]);
        let at = data.len();
        data.extend(test_bam::record("r", 4, -1, -1, 0, &[], b"ACGT", -1));
        data[at..at + 4].copy_from_slice(&claimed.to_le_bytes());
        let path = dir.path().join("claims.bam");
        std::fs::write(&path, test_bam::bgzf(&data, 1 << 16)).unwrap();
        path
    }

    #[test]
    fn a_record_length_is_not_allocated_before_its_bytes_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let mut reads = BamReads::open(&claiming(&dir, 200_000_000), false, false).unwrap();
        let e = reads.next_into(&mut Vec::new()).unwrap_err().to_string();
        assert!(
            e.ends_with("claims.bam: record 1: the file ends inside a record: it is truncated"),
            "{e}"
        );
        assert!(reads.record.capacity() < 1 << 16);
    }

    #[test]
    fn a_record_length_beyond_the_limit_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let mut reads = BamReads::open(&claiming(&dir, 2_000_000_000), false, false).unwrap();
        let e = reads.next_into(&mut Vec::new()).unwrap_err().to_string();
        assert!(
            e.ends_with("claims.bam: record 1: record length 2000000000 is larger than 256 MiB, the largest BAM record accepted: the file is corrupt"),
            "{e}"
        );
    }
}
