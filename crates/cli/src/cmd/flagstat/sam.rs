//! Flagstat over SAM text: the four fields it needs, interpreted as htslib does.

use std::collections::HashMap;

use seqfarm_io::input::LineReader;
use seqfarm_io::Error;
use seqfarm_regions::flags::UNMAPPED;
use seqfarm_regions::FlagCounts;

/// Counts every alignment line of `lines`; `@SQ` header lines name the references.
pub fn count(lines: &mut LineReader) -> Result<FlagCounts, Error> {
    let mut refs: HashMap<Vec<u8>, i32> = HashMap::new();
    let mut counts = FlagCounts::default();
    while lines.next_line()? {
        let line = &lines.line;
        if line.is_empty() {
            continue;
        }
        if line[0] == b'@' {
            if let Some(sn) = sq_name(line) {
                let id = refs.len() as i32;
                refs.entry(sn.to_vec()).or_insert(id);
            }
            continue;
        }
        let (flag, tid, mtid, mapq) =
            parse_line(line, &refs).map_err(|m| Error::line(&lines.input.path, lines.number, m))?;
        counts.count(flag, tid, mtid, mapq);
    }
    Ok(counts)
}

/// The `SN` of an `@SQ` line.
fn sq_name(line: &[u8]) -> Option<&[u8]> {
    if !line.starts_with(b"@SQ\t") {
        return None;
    }
    line.split(|&b| b == b'\t')
        .find_map(|f| f.strip_prefix(b"SN:"))
}

/// FLAG, reference index, mate reference index and MAPQ of one alignment line.
fn parse_line(line: &[u8], refs: &HashMap<Vec<u8>, i32>) -> Result<(u16, i32, i32, u8), String> {
    let mut fields = line.split(|&b| b == b'\t');
    let mut next = |what: &str| {
        fields
            .next()
            .ok_or_else(|| format!("missing {what} field (a SAM line has 11 tab-separated fields)"))
    };
    let _qname = next("QNAME")?;
    let mut flag = parse_flag(next("FLAG")?)?;
    let rname = next("RNAME")?;
    let pos = parse_uint(next("POS")?, "POS")?;
    let mapq = parse_uint(next("MAPQ")?, "MAPQ")?;
    let mapq = u8::try_from(mapq).map_err(|_| format!("MAPQ {mapq} out of range"))?;
    let cigar = next("CIGAR")?;
    let rnext = next("RNEXT")?;
    let pnext = parse_uint(next("PNEXT")?, "PNEXT")?;
    let _tlen = next("TLEN")?;
    let _seq = next("SEQ")?;
    let _qual = next("QUAL")?;
    let lookup = |name: &[u8]| -> Result<i32, String> {
        if refs.is_empty() {
            return Err("no @SQ lines in the header for a read with a reference name".into());
        }
        Ok(refs.get(name).copied().unwrap_or(-1))
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
        other => refs.get(other).copied().unwrap_or(-1),
    };
    if pnext == 0 && mtid >= 0 {
        mtid = -1;
    }
    Ok((flag, tid, mtid, mapq))
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

fn parse_uint(field: &[u8], what: &str) -> Result<u64, String> {
    std::str::from_utf8(field)
        .ok()
        .and_then(|t| t.parse::<u64>().ok())
        .ok_or_else(|| format!("invalid {what} {:?}", String::from_utf8_lossy(field)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use seqfarm_io::input::Input;

    fn count_bytes(sam: &[u8]) -> Result<FlagCounts, Error> {
        let input = Input::from_reader("x.sam", Box::new(std::io::Cursor::new(sam.to_vec())))?;
        count(&mut LineReader::new(input))
    }

    #[test]
    fn counts_sam_lines_like_htslib() {
        let sam = b"@HD\tVN:1.6\n@SQ\tSN:a\tLN:100\n@SQ\tSN:b\tLN:100\n\
r1\t99\ta\t1\t60\t10M\t=\t20\t29\tACGTACGTAC\t*\n\
r2\t65\ta\t5\t30\t10M\tb\t5\t0\t*\t*\n\
r3\t0\tzz\t5\t30\t10M\t*\t0\t0\t*\t*\n\
r4\t0x10\ta\t0\t30\t10M\t*\t0\t0\t*\t*\n";
        let c = count_bytes(sam).unwrap();
        assert_eq!(c.total, [4, 0]);
        // r3: unknown reference; r4: position 0: both unmapped.
        assert_eq!(c.mapped, [2, 0]);
        assert_eq!(c.mate_other_chr, [1, 0]);
    }

    #[test]
    fn malformed_lines_name_the_line() {
        let sam = b"@SQ\tSN:a\tLN:100\nr1\tx\ta\t1\t60\t10M\t=\t20\t29\tA\t*\n";
        let e = count_bytes(sam).unwrap_err().to_string();
        assert!(e.contains("x.sam: line 2: ") && e.contains("FLAG"), "{e}");
        let e = count_bytes(b"r1\t0\t*\t0\n").unwrap_err().to_string();
        assert!(e.contains("line 1: "), "{e}");
    }
}
