//! Reading SAM text for FLAG statistics (`samtools flagstat` on a SAM): per alignment
//! line, the four fields flagstat counts by, interpreted as htslib does (an unknown
//! reference name or a zero position makes a read unmapped), after the checks htslib
//! makes on the record before it accepts it ([`super::text::check_record`]).
//!
//! The counting itself stays with the caller: [`read_each`] hands each record's
//! [`FlagFields`] over.

use super::text::{check_record, ReferenceNames};
use crate::bam::flags::UNMAPPED;
use crate::input::LineReader;
use crate::Error;

/// The fields of one alignment line that FLAG statistics count by, as htslib reads them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlagFields {
    /// FLAG, with the unmapped bit set where htslib sets it: no placed reference, or no
    /// CIGAR.
    pub flag: u16,
    /// Reference index (`-1`: `*`, a name no `@SQ` line gives, or POS 0).
    pub ref_id: i32,
    /// The mate's reference index (`-1`: `*`, a name no `@SQ` line gives, or PNEXT 0).
    pub mate_ref_id: i32,
    /// Mapping quality.
    pub mapq: u8,
}

/// Reads every line of `lines`, giving each alignment line's fields to `each`; `@SQ`
/// header lines name the references (by `SN` and by the alternative names of `AN`). An
/// input without a single line (an empty file) is an error, as it is for samtools; a
/// malformed line is an error naming its line.
pub fn read_each(lines: &mut LineReader, mut each: impl FnMut(FlagFields)) -> Result<(), Error> {
    let mut refs = ReferenceNames::default();
    let mut empty = true;
    while lines.next_line()? {
        let line = &lines.line;
        if line.is_empty() {
            continue;
        }
        empty = false;
        if line[0] == b'@' {
            refs.add_header_line(line);
            continue;
        }
        let fields =
            parse_line(line, &refs).map_err(|m| Error::line(&lines.input.path, lines.number, m))?;
        each(fields);
    }
    if empty {
        return Err(Error::format(
            &lines.input.path,
            0,
            "empty input: no SAM header or records, and not a BAM",
        ));
    }
    Ok(())
}

/// The [`FlagFields`] of one alignment line.
fn parse_line(line: &[u8], refs: &ReferenceNames) -> Result<FlagFields, String> {
    let mut fields = line.split(|&b| b == b'\t');
    let mut next = |what: &str| {
        fields
            .next()
            .ok_or_else(|| format!("missing {what} field (a SAM line has 11 tab-separated fields)"))
    };
    let qname = next("QNAME")?;
    let mut flag = parse_flag(next("FLAG")?)?;
    let rname = next("RNAME")?;
    let pos = parse_uint(next("POS")?, "POS")?;
    let mapq = parse_uint(next("MAPQ")?, "MAPQ")?;
    let mapq = u8::try_from(mapq).map_err(|_| format!("MAPQ {mapq} out of range"))?;
    let cigar = next("CIGAR")?;
    let rnext = next("RNEXT")?;
    let pnext = parse_uint(next("PNEXT")?, "PNEXT")?;
    let tlen = next("TLEN")?;
    let seq = next("SEQ")?;
    let qual = next("QUAL")?;
    check_record(qname, cigar, tlen, seq, qual)?;
    let lookup = |name: &[u8]| -> Result<i32, String> {
        if refs.is_empty() {
            return Err("no @SQ lines in the header for a read with a reference name".into());
        }
        Ok(refs.get(name).unwrap_or(-1))
    };
    let mut tid = if rname == b"*" { -1 } else { lookup(rname)? };
    if pos == 0 && tid >= 0 {
        tid = -1;
    }
    if tid < 0 || cigar == b"*" {
        flag |= UNMAPPED;
    }
    let mut mtid = match rnext {
        b"=" => tid,
        b"*" => -1,
        other => refs.get(other).unwrap_or(-1),
    };
    if pnext == 0 && mtid >= 0 {
        mtid = -1;
    }
    Ok(FlagFields {
        flag,
        ref_id: tid,
        mate_ref_id: mtid,
        mapq,
    })
}

/// A FLAG: decimal, `0x` hexadecimal or `0` octal, as htslib accepts.
fn parse_flag(field: &[u8]) -> Result<u16, String> {
    let text = std::str::from_utf8(field).map_err(|_| "FLAG is not a number".to_string())?;
    let value = if let Some(hex) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        u32::from_str_radix(hex, 16)
    } else if text.len() > 1 && text.starts_with('0') {
        u32::from_str_radix(&text[1..], 8)
    } else {
        text.parse::<u32>()
    };
    value
        .ok()
        .and_then(|v| u16::try_from(v).ok())
        .ok_or_else(|| format!("invalid FLAG {text:?}"))
}

/// An unsigned decimal field (`what` names it in the error).
fn parse_uint(field: &[u8], what: &str) -> Result<u64, String> {
    std::str::from_utf8(field)
        .ok()
        .and_then(|t| t.parse::<u64>().ok())
        .ok_or_else(|| format!("invalid {what} {:?}", String::from_utf8_lossy(field)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::Input;

    /// The fields of every record of `sam`.
    fn read_bytes(sam: &[u8]) -> Result<Vec<FlagFields>, Error> {
        let input = Input::from_reader("x.sam", Box::new(std::io::Cursor::new(sam.to_vec())))?;
        let mut records = Vec::new();
        read_each(&mut LineReader::new(input), |fields| records.push(fields))?;
        Ok(records)
    }

    fn fields(flag: u16, ref_id: i32, mate_ref_id: i32, mapq: u8) -> FlagFields {
        FlagFields {
            flag,
            ref_id,
            mate_ref_id,
            mapq,
        }
    }

    #[test]
    fn reads_sam_lines_like_htslib() {
        let sam = b"@HD\tVN:1.6\n@SQ\tSN:a\tLN:100\n@SQ\tSN:b\tLN:100\n\
r1\t99\ta\t1\t60\t10M\t=\t20\t29\tACGTACGTAC\t*\n\
r2\t65\ta\t5\t30\t10M\tb\t5\t0\t*\t*\n\
r3\t0\tzz\t5\t30\t10M\t*\t0\t0\t*\t*\n\
r4\t0x10\ta\t0\t30\t10M\t*\t0\t0\t*\t*\n";
        let records = read_bytes(sam).unwrap();
        assert_eq!(records.len(), 4);
        // r1 and r2 mapped, r2's mate on another reference; r3: unknown reference; r4:
        // position 0: both unmapped.
        assert_eq!(
            records,
            [
                fields(99, 0, 0, 60),
                fields(65, 0, 1, 30),
                fields(UNMAPPED, -1, -1, 30),
                fields(0x10 | UNMAPPED, -1, -1, 30),
            ]
        );
    }

    #[test]
    fn malformed_lines_name_the_line() {
        let sam = b"@SQ\tSN:a\tLN:100\nr1\tx\ta\t1\t60\t10M\t=\t20\t29\tA\t*\n";
        let e = read_bytes(sam).unwrap_err().to_string();
        assert!(e.contains("x.sam: line 2: ") && e.contains("FLAG"), "{e}");
        let e = read_bytes(b"r1\t0\t*\t0\n").unwrap_err().to_string();
        assert!(e.contains("line 1: "), "{e}");
    }

    #[test]
    fn invalid_cigars_and_seq_lengths_are_errors() {
        let head = "@SQ\tSN:a\tLN:100\n";
        for (record, want) in [
            (
                "r\t0\ta\t1\t60\t10Q\t*\t0\t0\t*\t*",
                "unrecognized operation 'Q'",
            ),
            ("r\t0\ta\t1\t60\t4M\t*\t0\t0\tACG\t*", "different length"),
            ("r\t4\t*\t0\t0\t4M\t*\t0\t0\tACG\t*", "different length"),
            ("r\t0\ta\t1\t60\t3M\t*\t0\t0\tACG\tII", "SEQ and QUAL"),
            ("r\t0\ta\t1\t60\t3M\t*\t0\tx\tACG\t*", "TLEN"),
        ] {
            let sam = format!("{head}r0\t4\t*\t0\t0\t*\t*\t0\t0\t*\t*\n{record}\n");
            let e = read_bytes(sam.as_bytes()).unwrap_err().to_string();
            assert!(e.contains("x.sam: line 3") && e.contains(want), "{e}");
        }
    }

    #[test]
    fn an_empty_input_is_an_error() {
        let e = read_bytes(b"").unwrap_err().to_string();
        assert!(e.contains("x.sam") && e.contains("empty input"), "{e}");
        assert!(read_bytes(b"\n\n").is_err());
        // A header without records is a valid, empty SAM.
        assert_eq!(read_bytes(b"@HD\tVN:1.6\n").unwrap(), []);
    }

    #[test]
    fn alternative_reference_names_resolve() {
        let sam = b"@SQ\tSN:r1\tLN:1000\n@SQ\tSN:r3\tLN:1000\tAN:ref3,chr3\n\
a\t0\tref3\t1\t60\t3M\t*\t0\t0\tACG\t*\n\
b\t1\tr1\t1\t60\t3M\tchr3\t5\t0\tACG\t*\n\
c\t1\tchr3\t1\t60\t3M\tr3\t5\t0\tACG\t*\n\
d\t0\tzz\t1\t60\t3M\t*\t0\t0\tACG\t*\n";
        // As samtools: a, b and c mapped; b's mate is on another reference, c's is not.
        assert_eq!(
            read_bytes(sam).unwrap(),
            [
                fields(0, 1, -1, 60),
                fields(1, 0, 1, 60),
                fields(1, 1, 1, 60),
                fields(UNMAPPED, -1, -1, 60),
            ]
        );
    }
}
