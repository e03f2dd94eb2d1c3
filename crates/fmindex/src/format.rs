//! The on-disk format: one file, a header and page-aligned sections.
//!
//! ```text
//! offset  size  field
//!      0     8  magic "SEQFARMX"
//!      8     4  format version (FORMAT_VERSION)
//!     12     4  byte-order mark 0x01020304 (files are little-endian)
//!     16     8  file length
//!     24     8  text length n (both strands with separators)
//!     32     8  forward half length
//!     40     8  genome length (all contig bases)
//!     48     4  suffix-array sampling rate
//!     52     4  k-mer table length K
//!     56     4  sample width in bytes (4 or 8)
//!     60     4  number of sections
//!     64    40  C[0..5]
//!    104     4  superblock shift: 2^shift occurrence blocks per superblock (22)
//!    108     4  0
//!    112  32·s  section table: id u32, 0 u32, offset u64, length u64, xxh3-64 u64
//!      …     8  xxh3-64 of all header bytes before it
//! ```
//! Sections start on 4096-byte boundaries, so a memory-mapped file can be read in place:
//! meta (contigs, fragments, ambiguity runs: decoded at load, small), occurrence
//! blocks, superblock counts, separator rows, samples, k-mer table, packed reference.

use std::io::{self, Write};

use xxhash_rust::xxh3::xxh3_64;

use crate::build::{IndexImage, OwnedSamples, Stored};
use crate::reference::{Contig, Fragment, Layout};
use seqfarm_core::{AmbiguityMask, AmbiguityRun};

/// The file's first bytes.
pub const MAGIC: &[u8; 8] = b"SEQFARMX";
/// The version this build writes and reads.
pub const FORMAT_VERSION: u32 = 2;
/// The byte-order mark.
pub const BYTE_ORDER_MARK: u32 = 0x0102_0304;
/// Alignment of sections (and size reserved for the header).
pub const PAGE: u64 = 4096;
/// Bytes before the section table.
pub(crate) const FIXED_HEADER: usize = 112;
/// Bytes per section-table entry.
pub(crate) const SECTION_ENTRY: usize = 32;

/// The sections, in file order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub(crate) enum SectionId {
    Meta = 1,
    Occ = 2,
    Supers = 3,
    Dollars = 4,
    Samples = 5,
    Kmers = 6,
    Reference = 7,
}

impl SectionId {
    pub const ALL: [SectionId; 7] = [
        SectionId::Meta,
        SectionId::Occ,
        SectionId::Supers,
        SectionId::Dollars,
        SectionId::Samples,
        SectionId::Kmers,
        SectionId::Reference,
    ];

    pub fn name(self) -> &'static str {
        match self {
            SectionId::Meta => "contig table",
            SectionId::Occ => "BWT blocks",
            SectionId::Supers => "superblock counts",
            SectionId::Dollars => "separator rows",
            SectionId::Samples => "suffix-array samples",
            SectionId::Kmers => "k-mer table",
            SectionId::Reference => "packed reference",
        }
    }
}

/// The header's parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Params {
    pub file_len: u64,
    pub text_len: u64,
    pub half_len: u64,
    pub genome_len: u64,
    pub sa_rate: u32,
    pub kmer_len: u32,
    pub sample_width: u32,
    pub c: [u64; 5],
    pub super_shift: u32,
}

/// One entry of the section table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Section {
    pub id: u32,
    pub offset: u64,
    pub len: u64,
    pub checksum: u64,
}

/// Serialises the small tables (contigs, fragments, ambiguity runs).
pub(crate) fn encode_meta(layout: &Layout, mask: &AmbiguityMask) -> Vec<u8> {
    let mut out = Vec::new();
    let put = |out: &mut Vec<u8>, v: u64| out.extend_from_slice(&v.to_le_bytes());
    put(&mut out, layout.contigs.len() as u64);
    for contig in &layout.contigs {
        put(&mut out, contig.len);
        put(&mut out, contig.offset);
        put(&mut out, contig.name.len() as u64);
        out.extend_from_slice(contig.name.as_bytes());
    }
    put(&mut out, layout.fragments.len() as u64);
    for f in &layout.fragments {
        put(&mut out, f.text_start);
        put(&mut out, f.global_start);
        put(&mut out, f.len);
    }
    put(&mut out, mask.runs().len() as u64);
    for run in mask.runs() {
        put(&mut out, run.start);
        put(&mut out, run.len);
        out.push(run.letter);
    }
    out
}

/// Reads what [`encode_meta`] wrote; `Err` says what is wrong.
pub(crate) fn decode_meta(bytes: &[u8], half_len: u64) -> Result<(Layout, AmbiguityMask), String> {
    let mut cursor = Cursor { bytes, pos: 0 };
    let n_contigs = cursor.count(24)?;
    let mut contigs = Vec::with_capacity(n_contigs);
    for _ in 0..n_contigs {
        let len = cursor.u64()?;
        let offset = cursor.u64()?;
        let name_len = cursor.count(1)?;
        let name = std::str::from_utf8(cursor.take(name_len)?)
            .map_err(|_| "contig name is not UTF-8".to_string())?
            .to_string();
        contigs.push(Contig { name, len, offset });
    }
    let n_fragments = cursor.count(24)?;
    let mut fragments = Vec::with_capacity(n_fragments);
    for _ in 0..n_fragments {
        fragments.push(Fragment {
            text_start: cursor.u64()?,
            global_start: cursor.u64()?,
            len: cursor.u64()?,
        });
    }
    let n_runs = cursor.count(17)?;
    let mut runs = Vec::with_capacity(n_runs);
    for _ in 0..n_runs {
        let start = cursor.u64()?;
        let len = cursor.u64()?;
        let letter = cursor.take(1)?[0];
        runs.push(AmbiguityRun { start, len, letter });
    }
    if cursor.pos != bytes.len() {
        return Err("trailing bytes after the contig table".into());
    }
    let mask = AmbiguityMask::from_runs(runs).ok_or("ambiguity runs overlap or are unsorted")?;
    let layout = Layout {
        contigs,
        fragments,
        half_len,
    };
    validate_layout(&layout, &mask)?;
    Ok((layout, mask))
}

/// Checks that contigs tile the genome, fragments lie inside contigs in order and add
/// up to the text, and ambiguity runs lie inside the genome.
fn validate_layout(layout: &Layout, mask: &AmbiguityMask) -> Result<(), String> {
    let mut next = 0u64;
    for c in &layout.contigs {
        if c.offset != next || c.len == 0 {
            return Err(format!("contig {:?} is misplaced or empty", c.name));
        }
        next = c
            .offset
            .checked_add(c.len)
            .ok_or("contig lengths overflow")?;
    }
    let genome = next;
    let mut text = 0u64;
    let mut last_end = 0u64;
    for f in &layout.fragments {
        let end = f
            .global_start
            .checked_add(f.len)
            .ok_or("fragment overflows")?;
        let contig = layout
            .contig_of(f.global_start)
            .ok_or("fragment outside the genome")?
            .0;
        let c = &layout.contigs[contig];
        if f.len == 0 || f.text_start != text || f.global_start < last_end || end > c.offset + c.len
        {
            return Err("fragment table is inconsistent".into());
        }
        text += f.len + 1;
        last_end = end;
    }
    if text != layout.half_len {
        return Err("fragments do not add up to the text length".into());
    }
    if mask.runs().last().is_some_and(|r| r.end() > genome) {
        return Err("ambiguity run past the end of the genome".into());
    }
    Ok(())
}

struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.bytes.len());
        let end = end.ok_or("contig table is truncated")?;
        let out = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(out)
    }

    fn u64(&mut self) -> Result<u64, String> {
        let mut b = [0u8; 8];
        b.copy_from_slice(self.take(8)?);
        Ok(u64::from_le_bytes(b))
    }

    /// A count of items of at least `item_bytes` each, checked against what is left.
    fn count(&mut self, item_bytes: usize) -> Result<usize, String> {
        let n = self.u64()?;
        let left = (self.bytes.len() - self.pos) as u64;
        if n.saturating_mul(item_bytes as u64) > left {
            return Err("contig table count is larger than the table".into());
        }
        Ok(n as usize)
    }
}

/// Reads a little-endian `u32` at `at`.
pub(crate) fn read_u32(bytes: &[u8], at: usize) -> u32 {
    let mut b = [0u8; 4];
    b.copy_from_slice(&bytes[at..at + 4]);
    u32::from_le_bytes(b)
}

/// Reads a little-endian `u64` at `at`.
pub(crate) fn read_u64(bytes: &[u8], at: usize) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(b)
}

/// A section's bytes: in memory, or a stored section (possibly in a file).
enum SectionBytes<'a> {
    Slice(std::borrow::Cow<'a, [u8]>),
    Blocks(&'a Stored<crate::occ::OccBlock>),
    Narrow(&'a Stored<u32>),
    Wide(&'a Stored<u64>),
}

impl SectionBytes<'_> {
    fn len(&self) -> u64 {
        match self {
            SectionBytes::Slice(b) => b.len() as u64,
            SectionBytes::Blocks(s) => s.byte_len(),
            SectionBytes::Narrow(s) => s.byte_len(),
            SectionBytes::Wide(s) => s.byte_len(),
        }
    }

    fn checksum(&self) -> u64 {
        match self {
            SectionBytes::Slice(b) => xxh3_64(b),
            SectionBytes::Blocks(s) => s.checksum(),
            SectionBytes::Narrow(s) => s.checksum(),
            SectionBytes::Wide(s) => s.checksum(),
        }
    }

    fn write_to(&self, out: &mut dyn Write) -> std::io::Result<()> {
        match self {
            SectionBytes::Slice(b) => out.write_all(b),
            SectionBytes::Blocks(s) => s.write_to(out),
            SectionBytes::Narrow(s) => s.write_to(out),
            SectionBytes::Wide(s) => s.write_to(out),
        }
    }
}

impl IndexImage {
    /// The sections, in [`SectionId::ALL`] order.
    fn section_bytes(&self) -> Vec<(SectionId, SectionBytes<'_>)> {
        use std::borrow::Cow;
        let samples = match &self.samples {
            OwnedSamples::Narrow(s) => SectionBytes::Narrow(s),
            OwnedSamples::Wide(s) => SectionBytes::Wide(s),
        };
        vec![
            (
                SectionId::Meta,
                SectionBytes::Slice(Cow::Owned(encode_meta(&self.layout, &self.mask))),
            ),
            (SectionId::Occ, SectionBytes::Blocks(&self.blocks)),
            (
                SectionId::Supers,
                SectionBytes::Slice(Cow::Borrowed(bytemuck::cast_slice(&self.supers))),
            ),
            (
                SectionId::Dollars,
                SectionBytes::Slice(Cow::Borrowed(bytemuck::cast_slice(&self.dollars))),
            ),
            (SectionId::Samples, samples),
            (
                SectionId::Kmers,
                SectionBytes::Slice(Cow::Borrowed(bytemuck::cast_slice(&self.kmers))),
            ),
            (SectionId::Reference, SectionBytes::Wide(&self.bases)),
        ]
    }

    /// Size of the file [`IndexImage::write_to`] writes.
    pub fn file_len(&self) -> u64 {
        self.section_bytes().iter().fold(PAGE, |at, (_, bytes)| {
            (at + bytes.len()).div_ceil(PAGE) * PAGE
        })
    }

    /// Writes the index file to `out` (header, then the sections), in writes of 8 MiB
    /// at offsets that are multiples of 8 MiB, so that a page cache with large folios
    /// holds the new file in 2 MiB folios.
    pub fn write_to(&self, out: &mut dyn Write) -> std::io::Result<()> {
        let mut chunks = ChunkedWriter::new(out, self.file_len());
        self.write_sections(&mut chunks)?;
        chunks.flush()
    }

    fn write_sections(&self, out: &mut dyn Write) -> std::io::Result<()> {
        let sections = self.section_bytes();
        let mut table = Vec::new();
        let mut at = PAGE;
        for (id, bytes) in &sections {
            table.push(Section {
                id: *id as u32,
                offset: at,
                len: bytes.len(),
                checksum: bytes.checksum(),
            });
            at = (at + bytes.len()).div_ceil(PAGE) * PAGE;
        }
        let params = Params {
            file_len: at,
            text_len: self.layout.text_len(),
            half_len: self.layout.half_len,
            genome_len: self.layout.genome_len(),
            sa_rate: self.sa_rate,
            kmer_len: self.kmer_len,
            sample_width: match self.samples {
                OwnedSamples::Narrow(_) => 4,
                OwnedSamples::Wide(_) => 8,
            },
            c: self.c,
            super_shift: self.super_shift,
        };
        let header = encode_header(&params, &table);
        out.write_all(&header)?;
        let mut written = header.len() as u64;
        for (section, (_, bytes)) in table.iter().zip(&sections) {
            pad(out, section.offset - written)?;
            bytes.write_to(out)?;
            written = section.offset + section.len;
        }
        pad(out, at - written)
    }
}

/// Bytes per write of an index file. A page cache that holds files in large folios
/// (Linux 6.x on ext4 or XFS) sizes the folios of a new file by its writes: written 2 MiB
/// at a time at 2 MiB-aligned offsets, the index is cached in 2 MiB folios, and a
/// mapping of it (the next `seqfarm align`) gets 2 MiB pages at once; written 1 MiB at
/// a time it stays in small pages until evicted and read again, and its queries miss the
/// TLB more (BENCHMARKS.md, human scale).
pub(crate) const WRITE_CHUNK: usize = 8 << 20;

/// Passes bytes on in writes of exactly `capacity` bytes (the last one shorter), so
/// that, from offset 0, every write starts on a multiple of it.
struct ChunkedWriter<'a> {
    out: &'a mut dyn Write,
    chunk: Vec<u8>,
    capacity: usize,
}

impl<'a> ChunkedWriter<'a> {
    /// A writer of [`WRITE_CHUNK`]-byte chunks, with no more buffer than `len`, the
    /// bytes to come, needs.
    fn new(out: &'a mut dyn Write, len: u64) -> Self {
        let capacity = WRITE_CHUNK
            .min(usize::try_from(len).unwrap_or(WRITE_CHUNK))
            .max(1);
        Self {
            out,
            chunk: Vec::with_capacity(capacity),
            capacity,
        }
    }
}

impl Write for ChunkedWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = buf.len().min(self.capacity - self.chunk.len());
        self.chunk.extend_from_slice(&buf[..n]);
        if self.chunk.len() == self.capacity {
            self.out.write_all(&self.chunk)?;
            self.chunk.clear();
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.write_all(&self.chunk)?;
        self.chunk.clear();
        self.out.flush()
    }
}

fn pad(out: &mut dyn Write, n: u64) -> std::io::Result<()> {
    const ZEROS: [u8; PAGE as usize] = [0; PAGE as usize];
    out.write_all(&ZEROS[..n as usize])
}

/// The header bytes (padded to one page).
pub(crate) fn encode_header(params: &Params, table: &[Section]) -> Vec<u8> {
    let mut h = Vec::with_capacity(PAGE as usize);
    h.extend_from_slice(MAGIC);
    h.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    h.extend_from_slice(&BYTE_ORDER_MARK.to_le_bytes());
    for v in [
        params.file_len,
        params.text_len,
        params.half_len,
        params.genome_len,
    ] {
        h.extend_from_slice(&v.to_le_bytes());
    }
    for v in [
        params.sa_rate,
        params.kmer_len,
        params.sample_width,
        table.len() as u32,
    ] {
        h.extend_from_slice(&v.to_le_bytes());
    }
    for v in params.c {
        h.extend_from_slice(&v.to_le_bytes());
    }
    h.extend_from_slice(&params.super_shift.to_le_bytes());
    h.extend_from_slice(&0u32.to_le_bytes());
    for s in table {
        h.extend_from_slice(&s.id.to_le_bytes());
        h.extend_from_slice(&0u32.to_le_bytes());
        h.extend_from_slice(&s.offset.to_le_bytes());
        h.extend_from_slice(&s.len.to_le_bytes());
        h.extend_from_slice(&s.checksum.to_le_bytes());
    }
    let checksum = xxh3_64(&h);
    h.extend_from_slice(&checksum.to_le_bytes());
    h.resize(PAGE as usize, 0);
    h
}

/// The parameters and section table of a header whose magic, version and checksum
/// were already checked.
pub(crate) fn decode_header(h: &[u8]) -> (Params, Vec<Section>) {
    let mut c = [0u64; 5];
    for (k, v) in c.iter_mut().enumerate() {
        *v = read_u64(h, 64 + 8 * k);
    }
    let params = Params {
        file_len: read_u64(h, 16),
        text_len: read_u64(h, 24),
        half_len: read_u64(h, 32),
        genome_len: read_u64(h, 40),
        sa_rate: read_u32(h, 48),
        kmer_len: read_u32(h, 52),
        sample_width: read_u32(h, 56),
        c,
        super_shift: read_u32(h, 104),
    };
    let count = read_u32(h, 60) as usize;
    let table = (0..count)
        .map(|k| {
            let at = FIXED_HEADER + SECTION_ENTRY * k;
            Section {
                id: read_u32(h, at),
                offset: read_u64(h, at + 8),
                len: read_u64(h, at + 16),
                checksum: read_u64(h, at + 24),
            }
        })
        .collect();
    (params, table)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records the length of every write it is given.
    #[derive(Default)]
    struct WriteLog {
        bytes: Vec<u8>,
        writes: Vec<usize>,
    }

    impl Write for WriteLog {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.bytes.extend_from_slice(buf);
            self.writes.push(buf.len());
            Ok(buf.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn chunked_writer_writes_whole_chunks_then_the_rest() {
        let data: Vec<u8> = (0..10_000u32).map(|i| (i % 251) as u8).collect();
        let mut log = WriteLog::default();
        let mut chunks = ChunkedWriter::new(&mut log, data.len() as u64);
        chunks.capacity = 4096;
        // Pieces smaller and larger than a chunk, as the header, pads and sections come.
        for piece in [
            &data[..10],
            &data[10..5000],
            &data[5000..5001],
            &data[5001..],
        ] {
            chunks.write_all(piece).unwrap();
        }
        chunks.flush().unwrap();
        assert_eq!(log.bytes, data);
        assert_eq!(log.writes, [4096, 4096, 10_000 - 8192]);
    }

    #[test]
    fn chunk_buffer_is_no_larger_than_the_file() {
        let mut sink = Vec::new();
        assert_eq!(ChunkedWriter::new(&mut sink, 5000).capacity, 5000);
        assert_eq!(ChunkedWriter::new(&mut sink, 1 << 40).capacity, WRITE_CHUNK);
        assert_eq!(ChunkedWriter::new(&mut sink, 0).capacity, 1);
    }
}
