//! A read's alignment outcome as SAM/BAM records (bowtie2's flags and tags).

use seqfarm_align::{Placement, ReadResult, Unaligned};
use seqfarm_core::flags::{REVERSE, SECONDARY, UNMAPPED};
use seqfarm_core::nucleotide::complement_letter;
use seqfarm_io::reads::ReadRef;
use seqfarm_io::sam::bam::encode_record;
use seqfarm_io::sam::{write_sam, SamHeader, SamRecord, Tag, TagValue};

/// How records are written.
#[derive(Debug, Clone)]
pub struct RecordStyle {
    /// BAM (binary) instead of SAM text.
    pub bam: bool,
    /// Leave unaligned reads out.
    pub no_unaligned: bool,
    /// Read group of every record (`RG:Z`).
    pub read_group: Option<String>,
}

/// Per-read counts, summed over the run (bowtie2's summary).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AlignCounts {
    /// Reads seen.
    pub reads: u64,
    /// Reads with no alignment.
    pub unaligned: u64,
    /// Reads aligned at one place only.
    pub unique: u64,
    /// Reads aligned with a second-best alignment elsewhere.
    pub multiple: u64,
}

impl std::ops::AddAssign for AlignCounts {
    fn add_assign(&mut self, other: Self) {
        self.reads += other.reads;
        self.unaligned += other.unaligned;
        self.unique += other.unique;
        self.multiple += other.multiple;
    }
}

/// Reused buffers for formatting.
#[derive(Debug, Default)]
pub struct RecordWriter {
    bases: Vec<u8>,
    qualities: Vec<u8>,
}

impl RecordWriter {
    /// Appends the records of `read` with outcome `result` to `out`; returns its counts.
    pub fn write(
        &mut self,
        header: &SamHeader,
        style: &RecordStyle,
        read: &ReadRef<'_>,
        result: &ReadResult,
        out: &mut Vec<u8>,
    ) -> AlignCounts {
        let mut counts = AlignCounts {
            reads: 1,
            ..AlignCounts::default()
        };
        let rg = style.read_group.as_deref().map(str::as_bytes);
        match result {
            ReadResult::Aligned {
                placements,
                second_best,
                mapq,
            } => {
                if second_best.is_some() {
                    counts.multiple = 1;
                } else {
                    counts.unique = 1;
                }
                for (k, p) in placements.iter().enumerate() {
                    let flag =
                        if p.reverse { REVERSE } else { 0 } | if k > 0 { SECONDARY } else { 0 };
                    let quality = if k == 0 { *mapq } else { 255 };
                    self.placed(header, style, read, p, flag, quality, *second_best, rg, out);
                }
            }
            ReadResult::Unaligned(why) => {
                counts.unaligned = 1;
                if !style.no_unaligned {
                    let filter: Option<&[u8]> = match why {
                        Unaligned::Empty => Some(b"LN"),
                        Unaligned::TooManyNs => Some(b"NS"),
                        Unaligned::NoAlignment => None,
                    };
                    let mut tags = Vec::with_capacity(3);
                    if let Some(f) = filter {
                        tags.push(Tag {
                            name: *b"YF",
                            value: TagValue::Str(f),
                        });
                    }
                    tags.push(Tag {
                        name: *b"YT",
                        value: TagValue::Str(b"UU"),
                    });
                    if let Some(rg) = rg {
                        tags.push(Tag {
                            name: *b"RG",
                            value: TagValue::Str(rg),
                        });
                    }
                    let record = SamRecord {
                        name: read.name,
                        flag: UNMAPPED,
                        reference: None,
                        position: 0,
                        mapq: 0,
                        cigar: &[],
                        bases: read.bases,
                        qualities: read.qualities,
                        tags: &tags,
                    };
                    emit(header, style, &record, out);
                }
            }
        }
        counts
    }

    #[allow(clippy::too_many_arguments)]
    fn placed(
        &mut self,
        header: &SamHeader,
        style: &RecordStyle,
        read: &ReadRef<'_>,
        p: &Placement,
        flag: u16,
        mapq: u8,
        second_best: Option<i32>,
        rg: Option<&[u8]>,
        out: &mut Vec<u8>,
    ) {
        self.bases.clear();
        self.qualities.clear();
        if p.reverse {
            self.bases
                .extend(read.bases.iter().rev().map(|&b| complement_letter(b)));
            if let Some(q) = read.qualities {
                self.qualities.extend(q.iter().rev());
            }
        } else {
            self.bases.extend_from_slice(read.bases);
            if let Some(q) = read.qualities {
                self.qualities.extend_from_slice(q);
            }
        }
        let e = &p.edits;
        let mut tags = Vec::with_capacity(10);
        tags.push(Tag {
            name: *b"AS",
            value: TagValue::Int(i64::from(p.score)),
        });
        if let Some(xs) = second_best {
            tags.push(Tag {
                name: *b"XS",
                value: TagValue::Int(i64::from(xs)),
            });
        }
        for (name, value) in [
            (*b"XN", e.ambiguous_reference),
            (*b"XM", e.mismatches),
            (*b"XO", e.gap_opens),
            (*b"XG", e.gap_bases),
            (*b"NM", e.edit_distance),
        ] {
            tags.push(Tag {
                name,
                value: TagValue::Int(i64::from(value)),
            });
        }
        tags.push(Tag {
            name: *b"YT",
            value: TagValue::Str(b"UU"),
        });
        tags.push(Tag {
            name: *b"MD",
            value: TagValue::Str(&e.md),
        });
        if let Some(rg) = rg {
            tags.push(Tag {
                name: *b"RG",
                value: TagValue::Str(rg),
            });
        }
        let qualities = read.qualities.map(|_| &self.qualities[..]);
        let record = SamRecord {
            name: read.name,
            flag,
            reference: Some(p.contig),
            position: p.position,
            mapq,
            cigar: p.cigar.encoded(),
            bases: &self.bases,
            qualities,
            tags: &tags,
        };
        emit(header, style, &record, out);
    }
}

/// Appends `record` as BAM or SAM.
fn emit(header: &SamHeader, style: &RecordStyle, record: &SamRecord<'_>, out: &mut Vec<u8>) {
    if style.bam {
        encode_record(record, out);
    } else {
        write_sam(header, record, out);
    }
}
