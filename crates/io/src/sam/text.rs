//! Reading SAM text as htslib does: the reference names of the `@SQ` header lines (with
//! their `AN` alternative names), and the checks htslib makes on a record's fields before
//! it accepts the record.

use super::MAX_QNAME_LEN;
use seqfarm_core::cigar::CigarOp;
use std::collections::HashMap;

/// The longest SAM line accepted: a record of a 100 Mbp read (SEQ and QUAL, 200 MiB)
/// with its tags fits, and memory stays bounded on a file without line breaks.
pub const MAX_LINE: usize = 256 << 20;

/// The reference sequences named by `@SQ` lines: each `SN`, and the comma-separated
/// alternative names of its `AN` tag (SAM 1.6), resolve to the reference's index.
#[derive(Debug, Clone, Default)]
pub struct ReferenceNames {
    /// `SN` → index, in `@SQ` order.
    names: HashMap<Vec<u8>, i32>,
    /// `AN` alias → index of the reference that lists it.
    aliases: HashMap<Vec<u8>, i32>,
}

impl ReferenceNames {
    /// Reads one header line: an `@SQ` line adds its reference (a name seen before keeps
    /// its index) and its aliases; other lines are ignored. Returns whether it was an
    /// `@SQ` line with a name.
    pub fn add_header_line(&mut self, line: &[u8]) -> bool {
        let Some(fields) = line.strip_prefix(b"@SQ\t") else {
            return false;
        };
        let tag = |name: &[u8]| {
            fields
                .split(|&b| b == b'\t')
                .find_map(|f| f.strip_prefix(name))
        };
        let Some(sn) = tag(b"SN:") else {
            return false;
        };
        let next = self.names.len() as i32;
        let id = *self.names.entry(sn.to_vec()).or_insert(next);
        if let Some(an) = tag(b"AN:") {
            for alias in an.split(|&b| b == b',').filter(|a| !a.is_empty()) {
                self.aliases.entry(alias.to_vec()).or_insert(id);
            }
        }
        true
    }

    /// The index of the reference called `name` (its `SN`, or one of its `AN` names).
    pub fn get(&self, name: &[u8]) -> Option<i32> {
        self.names
            .get(name)
            .or_else(|| self.aliases.get(name))
            .copied()
    }

    /// Whether no `@SQ` line was read.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

/// The longest CIGAR operation length a BAM can store (28 bits).
const MAX_OP_LEN: u64 = (1 << 28) - 1;

/// The number of query bases of a CIGAR field (`None` for `*`), checked as htslib
/// checks it: each operation a decimal length below 2^28 followed by one of
/// `MIDNSHP=XB`.
pub fn cigar_query_len(field: &[u8]) -> Result<Option<u64>, String> {
    if field == b"*" {
        return Ok(None);
    }
    let show = || String::from_utf8_lossy(field).into_owned();
    if field.is_empty() {
        return Err("empty CIGAR (write * for none)".into());
    }
    let mut query = 0u64;
    let mut len: Option<u64> = None;
    for (i, &c) in field.iter().enumerate() {
        if c.is_ascii_digit() {
            let value = len.unwrap_or(0) * 10 + u64::from(c - b'0');
            if value > MAX_OP_LEN {
                return Err(format!(
                    "CIGAR {:?}: operation length too long at position {}",
                    show(),
                    i + 1
                ));
            }
            len = Some(value);
            continue;
        }
        let Some(n) = len.take() else {
            return Err(format!(
                "CIGAR {:?}: operation without a length at position {}",
                show(),
                i + 1
            ));
        };
        match CigarOp::from_letter(c) {
            Some(op) if op.consumes_query() => query += n,
            Some(_) => {}
            // htslib's `B` (back), outside the SAM specification, consumes nothing.
            None if c == b'B' => {}
            None => {
                return Err(format!(
                    "CIGAR {:?}: unrecognized operation {:?} at position {}",
                    show(),
                    char::from(c),
                    i + 1
                ))
            }
        }
    }
    if len.is_some() {
        return Err(format!(
            "CIGAR {:?}: length without an operation at its end",
            show()
        ));
    }
    Ok(Some(query))
}

/// Checks the fields of a record that htslib refuses to read when malformed: QNAME
/// length, CIGAR syntax, TLEN, and that SEQ agrees with the CIGAR's query length and
/// QUAL with SEQ. `cigar` is the CIGAR field.
pub fn check_record(
    qname: &[u8],
    cigar: &[u8],
    tlen: &[u8],
    seq: &[u8],
    qual: &[u8],
) -> Result<(), String> {
    if qname.len() > MAX_QNAME_LEN {
        return Err(format!(
            "read name of {} bytes, longer than {MAX_QNAME_LEN}",
            qname.len()
        ));
    }
    let query = cigar_query_len(cigar)?;
    let digits = tlen
        .strip_prefix(b"-")
        .or(tlen.strip_prefix(b"+"))
        .unwrap_or(tlen);
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return Err(format!("invalid TLEN {:?}", String::from_utf8_lossy(tlen)));
    }
    let seq_len = if seq == b"*" { None } else { Some(seq.len()) };
    if let (Some(q), Some(s)) = (query, seq_len) {
        if q != s as u64 {
            return Err(format!(
                "CIGAR and query sequence are of different length: the CIGAR has {q} query \
                 bases, SEQ has {s}"
            ));
        }
    }
    if qual != b"*" && qual.len() != seq_len.unwrap_or(0) {
        return Err(format!(
            "SEQ and QUAL are of different length ({} and {})",
            seq_len.unwrap_or(0),
            qual.len()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliases_resolve_to_their_reference() {
        let mut refs = ReferenceNames::default();
        assert!(refs.is_empty());
        assert!(!refs.add_header_line(b"@HD\tVN:1.6"));
        assert!(refs.add_header_line(b"@SQ\tSN:r1\tLN:100"));
        assert!(refs.add_header_line(b"@SQ\tSN:r3\tLN:100\tAN:ref3,chr3"));
        // An alias naming an earlier reference does not take its name.
        assert!(refs.add_header_line(b"@SQ\tSN:r4\tLN:100\tAN:r1,four"));
        assert_eq!(refs.get(b"r1"), Some(0));
        assert_eq!(refs.get(b"r3"), Some(1));
        assert_eq!(refs.get(b"ref3"), Some(1));
        assert_eq!(refs.get(b"chr3"), Some(1));
        assert_eq!(refs.get(b"four"), Some(2));
        assert_eq!(refs.get(b"ref"), None);
        assert!(!refs.is_empty());
    }

    #[test]
    fn cigars_are_checked_as_htslib_checks_them() {
        assert_eq!(cigar_query_len(b"*"), Ok(None));
        assert_eq!(cigar_query_len(b"5S10M2I3D4N1=1X2H1P3B"), Ok(Some(19)));
        assert_eq!(cigar_query_len(b"0M"), Ok(Some(0)));
        assert_eq!(cigar_query_len(b"268435455M"), Ok(Some(268_435_455)));
        for (bad, want) in [
            (&b"10Q"[..], "unrecognized operation 'Q'"),
            (b"3m", "unrecognized operation 'm'"),
            (b"M", "without a length"),
            (b"+3M", "without a length"),
            (b"3M2", "without an operation"),
            (b"268435456M", "too long"),
            (b"99999999999M", "too long"),
            (b"", "empty CIGAR"),
        ] {
            let e = cigar_query_len(bad).unwrap_err();
            assert!(e.contains(want), "{e}");
        }
    }

    #[test]
    fn seq_qual_tlen_and_name_are_checked() {
        assert!(check_record(b"r", b"3M", b"0", b"ACG", b"III").is_ok());
        assert!(check_record(b"r", b"3M", b"-5", b"*", b"*").is_ok());
        assert!(check_record(b"r", b"*", b"+5", b"ACGT", b"*").is_ok());
        assert!(check_record(b"", b"2H3M", b"0", b"ACG", b"*").is_ok());
        let e = check_record(b"r", b"4M", b"0", b"ACG", b"*").unwrap_err();
        assert!(
            e.contains("different length") && e.contains("4 query"),
            "{e}"
        );
        let e = check_record(b"r", b"3M", b"0", b"", b"*").unwrap_err();
        assert!(e.contains("different length"), "{e}");
        let e = check_record(b"r", b"3M", b"0", b"ACG", b"II").unwrap_err();
        assert!(e.contains("SEQ and QUAL"), "{e}");
        let e = check_record(b"r", b"3M", b"0", b"*", b"III").unwrap_err();
        assert!(e.contains("SEQ and QUAL"), "{e}");
        let e = check_record(b"r", b"3M", b"x", b"ACG", b"*").unwrap_err();
        assert!(e.contains("TLEN"), "{e}");
        let e = check_record(&[b'x'; 255], b"3M", b"0", b"ACG", b"*").unwrap_err();
        assert!(e.contains("read name"), "{e}");
    }
}
