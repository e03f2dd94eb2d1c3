//! Which SAM optional fields the records carry (bowtie2 2.5.4's `--sam-opt-config`),
//! and the tags seqfarm derives from a read: `YF:Z` (why it was filtered) and the
//! comment `--sam-append-comment` appends.

use seqfarm_align::scoring::LengthFunction;
use seqfarm_align::Unaligned;
use seqfarm_io::sam::{Tag, TagValue};

/// The fields `--sam-opt-config` turns on and off. `AS:i` is always written: bowtie2's
/// name `as` switches `YN:i` instead (a slip in its table that seqfarm keeps, so that
/// the same list gives the same records).
#[derive(Debug, Clone, PartialEq)]
pub struct OptionalFields {
    /// `XS:i`, the runner-up's score.
    pub xs: bool,
    /// `XN:i`, ambiguous reference bases.
    pub xn: bool,
    /// `XM:i`, mismatches.
    pub xm: bool,
    /// `XO:i`, gap opens.
    pub xo: bool,
    /// `XG:i`, gap extensions.
    pub xg: bool,
    /// `NM:i`, the edit distance.
    pub nm: bool,
    /// `MD:Z`, the mismatch string.
    pub md: bool,
    /// `YS:i`, the mate's score.
    pub ys: bool,
    /// `YT:Z`, the pair type.
    pub yt: bool,
    /// `YF:Z`, why the read was filtered.
    pub yf: bool,
    /// `YN:i`/`Yn:i` (and `ZN:i`/`Zn:i` for the mate of a pair): the minimum valid and
    /// the perfect score, from these scores; `None` when off.
    pub yn: Option<ScoreRange>,
}

/// What `YN:i` and `Yn:i` are computed from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScoreRange {
    /// The `--score-min` function (its value truncated, as bowtie2 writes it).
    pub min_score: LengthFunction,
    /// The match bonus (the perfect score is the read length times it).
    pub match_bonus: i32,
}

impl ScoreRange {
    /// `YN`'s and `Yn`'s values for a `len`-base read.
    pub fn at(&self, len: usize) -> (i64, i64) {
        (
            self.min_score.at(len) as i64,
            i64::from(self.match_bonus) * len as i64,
        )
    }
}

impl Default for OptionalFields {
    /// bowtie2's default fields.
    fn default() -> Self {
        Self {
            xs: true,
            xn: true,
            xm: true,
            xo: true,
            xg: true,
            nm: true,
            md: true,
            ys: true,
            yt: true,
            yf: true,
            yn: None,
        }
    }
}

/// bowtie2's names of fields seqfarm does not write: its counters and timings, random
/// seeds, MAPQ inputs and search summaries. Turned on, they are left out (with a
/// warning); `x0` and `x1` write nothing in bowtie2 either.
const NOT_WRITTEN: [&str; 24] = [
    "xss", "yi", "ym", "yp", "zs", "xr", "xt", "xd", "xu", "ye", "yl", "yu", "xp", "yr", "zb",
    "zr", "zf", "zm", "zi", "zp", "zu", "zt", "x0", "x1",
];

impl OptionalFields {
    /// Applies `--sam-opt-config`'s list, names in any case, each turning its field on,
    /// or off after a `-`; `scores` gives `YN`/`Yn` their values. Returns the names
    /// turned on that seqfarm does not write (bowtie2's internal ones); an unknown name
    /// is an error (bowtie2 prints one and goes on).
    pub fn configure(&mut self, list: &str, scores: ScoreRange) -> Result<Vec<String>, String> {
        let mut skipped = Vec::new();
        for entry in list.split(',').filter(|e| !e.is_empty()) {
            let (on, name) = match entry.strip_prefix('-') {
                Some(name) => (false, name),
                None => (true, entry),
            };
            let lower = name.to_ascii_lowercase();
            let flag = match lower.as_str() {
                "xs" => &mut self.xs,
                "xn" => &mut self.xn,
                "xm" => &mut self.xm,
                "xo" => &mut self.xo,
                "xg" => &mut self.xg,
                "nm" => &mut self.nm,
                "md" => &mut self.md,
                "ys" => &mut self.ys,
                "yt" => &mut self.yt,
                "yf" => &mut self.yf,
                "as" | "yn" => {
                    self.yn = on.then_some(scores);
                    continue;
                }
                other if NOT_WRITTEN.contains(&other) => {
                    if on && !matches!(other, "x0" | "x1") && !skipped.contains(&lower) {
                        skipped.push(lower);
                    }
                    continue;
                }
                _ => {
                    return Err(format!(
                        "{entry:?} is not one of bowtie2's SAM optional fields (as, xs, xn, \
                         xm, xo, xg, nm, md, ys, yt, yf, yn, or one of its internal ones)"
                    ))
                }
            };
            *flag = on;
        }
        Ok(skipped)
    }

    /// Appends `YN:i` and `Yn:i` for a `len`-base read, and `ZN:i`/`Zn:i` for its mate
    /// of `mate_len` bases, when on.
    pub fn push_score_range<'a>(
        &self,
        len: usize,
        mate_len: Option<usize>,
        tags: &mut Vec<Tag<'a>>,
    ) {
        let Some(range) = self.yn else { return };
        let int = |name: [u8; 2], v: i64| Tag {
            name,
            value: TagValue::Int(v),
        };
        let (min, perfect) = range.at(len);
        tags.push(int(*b"YN", min));
        tags.push(int(*b"Yn", perfect));
        if let Some(mate_len) = mate_len {
            let (min, perfect) = range.at(mate_len);
            tags.push(int(*b"ZN", min));
            tags.push(int(*b"Zn", perfect));
        }
    }
}

/// bowtie2's `YF:Z` filter of an unaligned read.
pub fn filter_tag(why: Unaligned) -> Option<&'static [u8]> {
    match why {
        Unaligned::TooShort | Unaligned::TooLong => Some(b"LN"),
        Unaligned::TooManyNs => Some(b"NS"),
        Unaligned::ScoreUnreachable => Some(b"SC"),
        Unaligned::NoAlignment => None,
        Unaligned::QcFailed => Some(b"QC"),
    }
}

/// The tag `--sam-append-comment` adds for a read's header comment, as bowtie2 writes
/// it: the comment itself when it already is a SAM tag (`XY:Z:text`, `XY:i:12`), else
/// `BC:Z:` and the comment (Illumina's `1:N:0:BARCODE`).
pub fn comment_tag(comment: &[u8]) -> Option<Tag<'_>> {
    if comment.is_empty() {
        return None;
    }
    if let [a, b, b':', kind, b':', value @ ..] = comment {
        if a.is_ascii_alphabetic() && b.is_ascii_alphanumeric() {
            let number = std::str::from_utf8(value)
                .ok()
                .and_then(|v| v.parse::<i64>().ok());
            match (kind, number) {
                (b'Z', _) => {
                    return Some(Tag {
                        name: [*a, *b],
                        value: TagValue::Str(value),
                    })
                }
                (b'i', Some(n)) => {
                    return Some(Tag {
                        name: [*a, *b],
                        value: TagValue::Int(n),
                    })
                }
                _ => {}
            }
        }
    }
    Some(Tag {
        name: *b"BC",
        value: TagValue::Str(comment),
    })
}
