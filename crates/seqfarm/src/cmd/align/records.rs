//! A read's or a pair's alignment outcome as SAM/BAM records, with bowtie2's flags,
//! mate fields and tags (checked field by field against bowtie2 2.5.0's output):
//!
//! * a pair's records all carry `0x1`, `0x40`/`0x80`, and `0x2` when concordant
//!   (`YT:Z:CP`); `0x8`/`0x20` describe the partner record's mate;
//! * an aligned record's `RNEXT`/`PNEXT` give its partner's place, or its own when the
//!   mate is unaligned; an unaligned mate sits at its aligned mate's place (`RNAME`,
//!   `POS`, `RNEXT =`, `PNEXT`), with `MAPQ 0`, CIGAR `*` and no `0x10`;
//! * `TLEN` is set for concordant and discordant pairs on one contig only: the outer
//!   extent of both mates, soft clips counted (unless
//!   `--soft-clipped-unmapped-tlen`), positive for the mate that starts first (when
//!   both start together, the forward one, mate 1 if both are: bowtie2's rule);
//! * tags: `AS XS XN XM XO XG NM MD YS YT` for aligned records (`YS`, the partner's
//!   `AS`, for concordant and discordant pairs only), `YT YF` for unaligned ones;
//! * with `-k`, a concordant pair's `k`-th alignment is two secondary records pointing
//!   at each other; an unpaired mate's records come first for mate 1, then mate 2
//!   (when only mate 2 aligned, its records come before mate 1's, as in bowtie2);
//! * with `-k N` or `-a`, a primary record's MAPQ is 255 when only one alignment was
//!   found (bowtie2 stops looking at `N`, so always with `-k 1`): the concordant
//!   pairs of a concordant or discordant pair, the mate's own alignments otherwise;
//!   secondary records always have 255;
//! * mate names lose a `/1` or `/2` suffix; `--no-unal` leaves out every unaligned
//!   record (of a pair too, as bowtie2 2.5.0 does).

mod fields;

use self::fields::{comment_tag, filter_tag};
pub use self::fields::{OptionalFields, ScoreRange};
use seqfarm_align::{PairClass, PairResult, Placement, ReadResult, QUALITY_WITHOUT_QUALITIES};
use seqfarm_core::cigar::{Cigar, CigarOp};
use seqfarm_core::flags::{
    MATE_REVERSE, MATE_UNMAPPED, PAIRED, PROPER_PAIR, READ1, READ2, REVERSE, SECONDARY, UNMAPPED,
};
use seqfarm_core::nucleotide::complement_letter;
use seqfarm_io::reads::ReadRef;
use seqfarm_io::sam::bam::encode_record;
use seqfarm_io::sam::tag_text::parse_text_field;
use seqfarm_io::sam::{write_sam, MateFields, SamHeader, SamRecord, Tag, TagValue, MAX_QNAME_LEN};
use seqfarm_plot::AlignTally;

/// How records are written.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RecordStyle {
    /// BAM (binary) instead of SAM text.
    pub bam: bool,
    /// Leave unaligned records out (`--no-unal`).
    pub no_unaligned: bool,
    /// Read group of every record (`RG:Z`).
    pub read_group: Option<String>,
    /// `*` for SEQ and QUAL of secondary records (`--omit-sec-seq`).
    pub omit_secondary_seq: bool,
    /// `=`/`X` instead of `M` (`--xeq`).
    pub xeq: bool,
    /// TLEN from aligned bases only (`--soft-clipped-unmapped-tlen`).
    pub tlen_without_clips: bool,
    /// QNAME is the whole header line, not its first word (`--sam-no-qname-trunc`).
    pub full_names: bool,
    /// The header's comment becomes a tag (`--sam-append-comment`).
    pub append_comment: bool,
    /// The header's comment holds an unaligned BAM record's tags as SAM text, copied
    /// to the read's records after seqfarm's own, except those seqfarm writes itself
    /// (`--preserve-tags`).
    pub preserve_tags: bool,
    /// Reads that failed the QSEQ filter are reported unaligned (`--qc-filter`).
    pub qc_filter: bool,
    /// Alignments reported per read or pair with `-k N` (`usize::MAX` for `-a`);
    /// `None` without either, when MAPQ is always computed.
    pub report_limit: Option<usize>,
    /// The optional fields written (`--sam-opt-config`).
    pub fields: OptionalFields,
}

impl RecordStyle {
    /// The MAPQ of a primary record: bowtie2 prints 255 under `-k`/`-a` when it found
    /// one alignment only (`more_found` false, or `-k 1`, which stops at the first).
    fn primary_mapq(&self, mapq: u8, more_found: bool) -> u8 {
        match self.report_limit {
            Some(limit) if limit < 2 || !more_found => 255,
            _ => mapq,
        }
    }
}

/// One record to format: which read, where (if aligned), and its partner.
struct RecordPlan<'p> {
    /// The read's placement, `None` when unaligned.
    placement: Option<&'p Placement>,
    /// The partner's placement (paired records only).
    partner: Option<&'p Placement>,
    flag: u16,
    mapq: u8,
    second_best: Option<i32>,
    template_len: i64,
    /// `YS:i`: the partner's score, for concordant and discordant pairs.
    partner_score: Option<i32>,
    pair_type: &'static [u8],
    filter: Option<&'static [u8]>,
}

/// Reused buffers for formatting, and the counts of the records formatted.
#[derive(Debug, Default)]
pub struct RecordWriter {
    bases: Vec<u8>,
    qualities: Vec<u8>,
    cigar: Cigar,
    /// MAPQ and insert sizes of the records formatted, counted only when `tallying`
    /// (for `--plot`).
    pub tally: AlignTally,
    /// Whether records are counted into `tally`.
    pub tallying: bool,
}

impl RecordWriter {
    /// Appends the records of unpaired `read` with outcome `result` to `out`.
    pub fn write(
        &mut self,
        header: &SamHeader,
        style: &RecordStyle,
        read: &ReadRef<'_>,
        result: &ReadResult,
        out: &mut Vec<u8>,
    ) {
        match result {
            ReadResult::Aligned {
                placements,
                second_best,
                mapq,
            } => {
                for (k, p) in placements.iter().enumerate() {
                    let plan = RecordPlan {
                        placement: Some(p),
                        partner: None,
                        flag: if k > 0 { SECONDARY } else { 0 },
                        mapq: if k == 0 {
                            style.primary_mapq(*mapq, placements.len() > 1 || second_best.is_some())
                        } else {
                            255
                        },
                        second_best: *second_best,
                        template_len: 0,
                        partner_score: None,
                        pair_type: b"UU",
                        filter: None,
                    };
                    self.record(header, style, read, qname(style, read), &plan, out);
                }
            }
            ReadResult::Unaligned(why) => {
                let plan = RecordPlan {
                    placement: None,
                    partner: None,
                    flag: UNMAPPED,
                    mapq: 0,
                    second_best: None,
                    template_len: 0,
                    partner_score: None,
                    pair_type: b"UU",
                    filter: filter_tag(*why),
                };
                self.record(header, style, read, qname(style, read), &plan, out);
            }
        }
    }

    /// Appends the records of the pair `mates` with outcome `result` to `out`.
    pub fn write_pair(
        &mut self,
        header: &SamHeader,
        style: &RecordStyle,
        mates: [&ReadRef<'_>; 2],
        result: &PairResult,
        out: &mut Vec<u8>,
    ) {
        let names = [qname(style, mates[0]), qname(style, mates[1])];
        let view = |m: usize| match &result.mates[m] {
            ReadResult::Aligned {
                placements,
                second_best,
                mapq,
            } => (&placements[..], *second_best, *mapq, None),
            ReadResult::Unaligned(why) => (&[][..], None, 0, filter_tag(*why)),
        };
        let sides = [view(0), view(1)];
        let pair_type: &'static [u8] = match result.class {
            PairClass::Concordant => b"CP",
            PairClass::Discordant => b"DP",
            PairClass::Unpaired => b"UP",
        };
        let paired = result.class != PairClass::Unpaired;
        debug_assert!(
            !paired || sides.iter().all(|s| !s.0.is_empty()),
            "a {pair_type:?} pair with a mate not aligned"
        );
        let plan_for = |m: usize, k: usize, partner_k: usize| {
            let (placements, second_best, mapq, filter) = sides[m];
            let partner = sides[1 - m].0.get(partner_k);
            let placement = placements.get(k);
            let mut flag = PAIRED | if m == 0 { READ1 } else { READ2 };
            if result.class == PairClass::Concordant {
                flag |= PROPER_PAIR;
            }
            match placement {
                Some(p) if p.reverse => flag |= REVERSE,
                Some(_) => {}
                None => flag |= UNMAPPED,
            }
            match partner {
                Some(o) if o.reverse => flag |= MATE_REVERSE,
                Some(_) => {}
                None => flag |= MATE_UNMAPPED,
            }
            if k > 0 {
                flag |= SECONDARY;
            }
            let template_len = match (placement, partner) {
                (Some(p), Some(o)) if paired && p.contig == o.contig => {
                    template_len(p, o, m == 0, !style.tlen_without_clips)
                }
                _ => 0,
            };
            RecordPlan {
                placement,
                partner,
                flag,
                mapq: match placement {
                    Some(_) if k == 0 => {
                        let more_found = if paired {
                            placements.len() > 1 || result.other_pairs
                        } else {
                            placements.len() > 1 || second_best.is_some()
                        };
                        style.primary_mapq(mapq, more_found)
                    }
                    Some(_) => 255,
                    None => 0,
                },
                // bowtie2 writes a mate's XS from the pair's runner-up only, which a mate
                // aligned on its own (YT:Z:UP) does not have: no XS there.
                second_best: second_best.filter(|_| paired),
                template_len,
                partner_score: if paired {
                    partner.map(|o| o.score)
                } else {
                    None
                },
                pair_type,
                filter,
            }
        };
        if paired {
            let n = sides[0].0.len().min(sides[1].0.len());
            for k in 0..n {
                for m in 0..2 {
                    let plan = plan_for(m, k, k);
                    self.record(header, style, mates[m], names[m], &plan, out);
                }
            }
        } else {
            // bowtie2 writes the aligned mates' records before the unaligned ones: mate 2
            // first when only it aligned.
            let order = if sides[0].0.is_empty() && !sides[1].0.is_empty() {
                [1, 0]
            } else {
                [0, 1]
            };
            for m in order {
                let count = sides[m].0.len().max(1);
                for k in 0..count {
                    let plan = plan_for(m, k, 0);
                    self.record(header, style, mates[m], names[m], &plan, out);
                }
            }
        }
    }

    /// Formats one record.
    fn record(
        &mut self,
        header: &SamHeader,
        style: &RecordStyle,
        read: &ReadRef<'_>,
        name: &[u8],
        plan: &RecordPlan<'_>,
        out: &mut Vec<u8>,
    ) {
        if self.tallying {
            self.tally
                .add_record(plan.flag, plan.mapq, plan.template_len);
        }
        if plan.placement.is_none() && style.no_unaligned {
            return;
        }
        let secondary = plan.flag & SECONDARY != 0;
        let reverse = plan.placement.is_some_and(|p| p.reverse);
        self.bases.clear();
        self.qualities.clear();
        if !(secondary && style.omit_secondary_seq) {
            if reverse {
                let complement = read.bases.iter().rev().map(|&b| complement_letter(b));
                self.bases.extend(complement);
                if let Some(q) = read.qualities {
                    self.qualities.extend(q.iter().rev());
                }
            } else {
                self.bases.extend_from_slice(read.bases);
                if let Some(q) = read.qualities {
                    self.qualities.extend_from_slice(q);
                }
            }
            if read.qualities.is_none() {
                // Reads without qualities (FASTA, -r, -c, -F) are written as bowtie2
                // writes them: `I` (the quality they are scored with) for every base.
                self.qualities
                    .resize(self.bases.len(), QUALITY_WITHOUT_QUALITIES);
            }
        }
        let rg = style.read_group.as_deref().map(str::as_bytes);
        let mut tags: Vec<Tag<'_>> = Vec::with_capacity(12);
        let int = |name: [u8; 2], v: i64| Tag {
            name,
            value: TagValue::Int(v),
        };
        self.cigar.clear();
        let fields = &style.fields;
        if let Some(p) = plan.placement {
            tags.push(int(*b"AS", i64::from(p.score)));
            if let Some(xs) = plan.second_best.filter(|_| fields.xs) {
                tags.push(int(*b"XS", i64::from(xs)));
            }
            let e = &p.edits;
            let counts = [
                (fields.xn, *b"XN", e.ambiguous_reference),
                (fields.xm, *b"XM", e.mismatches),
                (fields.xo, *b"XO", e.gap_opens),
                (fields.xg, *b"XG", e.gap_bases),
                (fields.nm, *b"NM", e.edit_distance),
            ];
            for (on, name, count) in counts {
                if on {
                    tags.push(int(name, i64::from(count)));
                }
            }
            if fields.md {
                tags.push(Tag {
                    name: *b"MD",
                    value: TagValue::Str(&e.md),
                });
            }
            if let Some(ys) = plan.partner_score.filter(|_| fields.ys) {
                tags.push(int(*b"YS", i64::from(ys)));
            }
            let mate_len = plan
                .partner_score
                .and(plan.partner)
                .map(|o| o.cigar.read_len());
            fields.push_score_range(read.bases.len(), mate_len, &mut tags);
            if fields.yt {
                tags.push(Tag {
                    name: *b"YT",
                    value: TagValue::Str(plan.pair_type),
                });
            }
            if style.xeq {
                xeq_cigar(p, &mut self.cigar);
            } else {
                self.cigar.clone_from(&p.cigar);
            }
        } else {
            fields.push_score_range(read.bases.len(), None, &mut tags);
            if fields.yt {
                tags.push(Tag {
                    name: *b"YT",
                    value: TagValue::Str(plan.pair_type),
                });
            }
            if let Some(f) = plan.filter.filter(|_| fields.yf) {
                tags.push(Tag {
                    name: *b"YF",
                    value: TagValue::Str(f),
                });
            }
        }
        if let Some(rg) = rg {
            tags.push(Tag {
                name: *b"RG",
                value: TagValue::Str(rg),
            });
        }
        if style.preserve_tags {
            for field in read.comment.split(|&b| b == b'\t') {
                if let Some(tag) = parse_text_field(field) {
                    if tags.iter().all(|t| t.name != tag.name) {
                        tags.push(tag);
                    }
                }
            }
        } else if style.append_comment {
            tags.extend(comment_tag(read.comment));
        }
        // Where the record sits: its own place, else its aligned mate's.
        let at = plan.placement.or(plan.partner);
        let mate = match (plan.partner, plan.placement) {
            (Some(o), _) => MateFields {
                reference: Some(o.contig),
                position: o.position,
                template_len: plan.template_len,
            },
            (None, Some(p)) if plan.flag & PAIRED != 0 => MateFields {
                reference: Some(p.contig),
                position: p.position,
                template_len: 0,
            },
            _ => MateFields::NONE,
        };
        let qualities = (!self.bases.is_empty()).then_some(&self.qualities[..]);
        let record = SamRecord {
            name,
            flag: plan.flag | if reverse { REVERSE } else { 0 },
            reference: at.map(|p| p.contig),
            position: at.map_or(0, |p| p.position),
            mapq: plan.mapq,
            cigar: self.cigar.encoded(),
            bases: &self.bases,
            qualities,
            tags: &tags,
            mate,
        };
        if style.bam {
            encode_record(&record, out);
        } else {
            write_sam(header, &record, out);
        }
    }
}

/// QNAME of `read`: its name, or its whole header with `--sam-no-qname-trunc` (mates
/// come without their `/1` `/2` suffix either way, as bowtie2 writes them). BAM holds
/// at most [`MAX_QNAME_LEN`] bytes of a whole header.
fn qname<'r>(style: &RecordStyle, read: &ReadRef<'r>) -> &'r [u8] {
    // A BAM record's name is one word; with --preserve-tags the rest are its tags.
    if style.full_names && !style.preserve_tags && !read.full_name.is_empty() {
        let full = read.full_name;
        if style.bam {
            &full[..full.len().min(MAX_QNAME_LEN)]
        } else {
            full
        }
    } else {
        read.name
    }
}

/// The outer extent `[start, end)` of `p` on its contig, soft clips counted when
/// `with_clips`.
fn extent(p: &Placement, with_clips: bool) -> (i64, i64) {
    if with_clips {
        return seqfarm_align::pair::outer_extent(p);
    }
    let start = p.position as i64;
    (start, start + p.cigar.reference_len() as i64)
}

/// Signed TLEN of `p` whose partner is `o` (same contig): the span of both,
/// positive for the one starting first. When both start together, bowtie2's rule: the
/// forward one is positive (mate 1 when both are forward), and two reverse mates are
/// both negative.
fn template_len(p: &Placement, o: &Placement, is_mate1: bool, with_clips: bool) -> i64 {
    let (s1, e1) = extent(p, with_clips);
    let (s2, e2) = extent(o, with_clips);
    let len = e1.max(e2) - s1.min(s2);
    let upstream = match s1.cmp(&s2) {
        std::cmp::Ordering::Less => true,
        std::cmp::Ordering::Greater => false,
        std::cmp::Ordering::Equal => !p.reverse && (o.reverse || is_mate1),
    };
    if upstream {
        len
    } else {
        -len
    }
}

/// `p`'s CIGAR with `M` split into `=` and `X` by its `MD` tag (`--xeq`).
fn xeq_cigar(p: &Placement, out: &mut Cigar) {
    let mut md = MdWalker::new(&p.edits.md);
    for (op, len) in p.cigar.ops() {
        match op {
            CigarOp::Match => {
                let mut left = len;
                while left > 0 {
                    let (equal, run) = md.next_aligned(left);
                    let op = if equal {
                        CigarOp::SeqMatch
                    } else {
                        CigarOp::SeqMismatch
                    };
                    out.push(op, run);
                    left -= run;
                }
            }
            CigarOp::Deletion => {
                md.skip_deletion(len);
                out.push(op, len);
            }
            other => out.push(other, len),
        }
    }
}

/// Reads an `MD` tag along the aligned reference bases.
struct MdWalker<'a> {
    md: &'a [u8],
    at: usize,
    /// Matching bases left in the current number.
    matches: u32,
}

impl<'a> MdWalker<'a> {
    fn new(md: &'a [u8]) -> Self {
        let mut w = Self {
            md,
            at: 0,
            matches: 0,
        };
        w.read_number();
        w
    }

    fn read_number(&mut self) {
        let mut n = 0u32;
        while let Some(d) = self.md.get(self.at).filter(|b| b.is_ascii_digit()) {
            n = n * 10 + u32::from(d - b'0');
            self.at += 1;
        }
        self.matches += n;
    }

    /// The next run of at most `most` aligned bases: (equal?, length).
    fn next_aligned(&mut self, most: u32) -> (bool, u32) {
        if self.matches > 0 {
            let run = self.matches.min(most);
            self.matches -= run;
            return (true, run);
        }
        let mut run = 0;
        while run < most && self.matches == 0 {
            match self.md.get(self.at) {
                Some(b) if b.is_ascii_alphabetic() => {
                    self.at += 1;
                    run += 1;
                    self.read_number();
                }
                // A malformed or exhausted MD: call the rest equal.
                _ => return (run == 0, if run == 0 { most } else { run }),
            }
        }
        (false, run)
    }

    fn skip_deletion(&mut self, len: u32) {
        if self.md.get(self.at) == Some(&b'^') {
            self.at += 1 + len as usize;
            self.read_number();
        }
    }
}

#[cfg(test)]
mod tests;
