//! Decoding a record's sequence and quality lines: bases upper-cased through a table
//! (`U` as `T`, `.` as `N`, IUPAC codes kept), qualities as characters at an offset, as
//! integers (`--int-quals`) or as Solexa scores turned into Phred (`--solexa-quals`),
//! each error naming the first bad byte's position.

use super::Range;
use crate::reads::{preview, too_long, ParseOptions};

/// What each byte of a sequence line is read as: the upper-case letter (`U` as `T`, `.`
/// as `N`), or 0 where the byte is not a base.
const BASE_LETTERS: [u8; 256] = {
    let mut table = [0u8; 256];
    let letters = b"ACGTNRYSWKMBDHV";
    let mut i = 0;
    while i < letters.len() {
        table[letters[i] as usize] = letters[i];
        table[letters[i].to_ascii_lowercase() as usize] = letters[i];
        i += 1;
    }
    table[b'U' as usize] = b'T';
    table[b'u' as usize] = b'T';
    table[b'.' as usize] = b'N';
    table
};

/// Appends upper-cased bases (`U` read as `T`, `.` as `N`) through [`BASE_LETTERS`],
/// checked: a byte that is not a base is named by its position.
pub(super) fn decode_bases(
    line: &[u8],
    out: &mut Vec<u8>,
    options: &ParseOptions,
) -> std::result::Result<Range, String> {
    if line.len() > options.max_len {
        return Err(too_long(line.len(), options.max_len));
    }
    let start = out.len();
    out.extend(line.iter().map(|&b| BASE_LETTERS[b as usize]));
    if let Some(i) = memchr::memchr(0, &out[start..]) {
        out.truncate(start);
        return Err(format!(
            "invalid base {:?} at position {} (expected A, C, G, T, N or an IUPAC code)",
            char::from(line[i]),
            i + 1
        ));
    }
    Ok((start as u32, out.len() as u32))
}

/// Appends Phred qualities (characters, or space-separated integers with
/// `--int-quals`); returns how many.
pub(super) fn decode_qualities(
    line: &[u8],
    out: &mut Vec<u8>,
    options: &ParseOptions,
) -> std::result::Result<usize, String> {
    let start = out.len();
    if options.int_quals {
        let (lowest, convert): (i32, fn(i32) -> u8) = if options.solexa {
            (-10, solexa_to_phred)
        } else {
            (0, |q| q as u8)
        };
        for (i, word) in line
            .split(|&b| b == b' ' || b == b'\t')
            .filter(|w| !w.is_empty())
            .enumerate()
        {
            let q = std::str::from_utf8(word)
                .ok()
                .and_then(|s| s.parse::<i32>().ok())
                .filter(|q| (lowest..=93).contains(q))
                .ok_or_else(|| {
                    format!(
                        "invalid integer quality {:?} at position {} (--int-quals expects integers {lowest} to 93)",
                        preview(word),
                        i + 1
                    )
                })?;
            out.push(convert(q).min(93));
        }
    } else if options.solexa {
        for (i, &q) in line.iter().enumerate() {
            if !(b'!'..=b'~').contains(&q) {
                out.truncate(start);
                return Err(format!(
                    "invalid quality character {:?} at position {} (Solexa qualities, --solexa-quals)",
                    char::from(q),
                    i + 1
                ));
            }
            out.push(solexa_to_phred(i32::from(q) - 64));
        }
    } else {
        let offset = options.quality_offset;
        // The range checked over the whole line at once (a pass that vectorises), each
        // character again only for the message when one is out of range.
        let (lowest, highest) = line
            .iter()
            .fold((u8::MAX, 0), |(lo, hi), &q| (lo.min(q), hi.max(q)));
        if line.is_empty() || (lowest >= offset && highest <= b'~') {
            out.extend(line.iter().map(|&q| q - offset));
            return Ok(line.len());
        }
        for (i, &q) in line.iter().enumerate() {
            if q < offset || q > b'~' {
                out.truncate(start);
                let hint = if q == b' ' {
                    " (integer qualities need --int-quals)"
                } else {
                    ""
                };
                return Err(format!(
                    "invalid quality character {:?} at position {} (quality offset {offset}){hint}",
                    char::from(q),
                    i + 1
                ));
            }
            out.push(q - offset);
        }
    }
    Ok(out.len() - start)
}

/// The Phred quality of Solexa score `solexa`, rounded as bowtie2's table rounds
/// `10·log10(10^(solexa/10) + 1)`: 0 below -10, the score itself from 10 up.
pub fn solexa_to_phred(solexa: i32) -> u8 {
    const BELOW_TEN: [u8; 20] = [0, 1, 1, 1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 7, 8, 9, 10];
    match solexa {
        i32::MIN..=-11 => 0,
        -10..=9 => BELOW_TEN[(solexa + 10) as usize],
        _ => solexa.min(i32::from(u8::MAX)) as u8,
    }
}
