//! The BAM header: magic, SAM header text and the binary reference list.

use std::collections::HashMap;

/// One reference sequence (contig) of the header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    /// Name (`@SQ SN`).
    pub name: String,
    /// Length in bases (`@SQ LN`).
    pub length: u32,
}

/// A BAM header: the SAM header text and the reference list records index into.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Header {
    /// The SAM header text, as stored (may be empty).
    pub text: String,
    /// References, in the order `ref_id` counts them.
    pub references: Vec<Reference>,
}

impl Header {
    /// The index of reference `name`, if it is in the header.
    pub fn reference_id(&self, name: &str) -> Option<usize> {
        self.references.iter().position(|r| r.name == name)
    }

    /// A name → index map, for callers that look names up often.
    pub fn reference_ids(&self) -> HashMap<&str, usize> {
        self.references
            .iter()
            .enumerate()
            .map(|(i, r)| (r.name.as_str(), i))
            .collect()
    }

    /// The header text parsed by noodles (read groups, programs, sort order, ...).
    pub fn parse_text(&self) -> Result<noodles_sam::Header, String> {
        self.text
            .parse()
            .map_err(|e| format!("invalid SAM header text: {e}"))
    }
}

/// The result of trying to parse a header from the first inflated bytes of a BAM.
#[derive(Debug)]
pub(crate) enum HeaderParse {
    /// The header and the number of bytes it takes.
    Complete(Header, usize),
    /// The bytes end inside the header.
    NeedMore,
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// Parses the header at the start of `data` (inflated BAM bytes).
pub(crate) fn parse_header(data: &[u8]) -> Result<HeaderParse, String> {
    if data.len() < 4 {
        return Ok(HeaderParse::NeedMore);
    }
    if &data[..4] != b"BAM\x01" {
        return Err("not a BAM file (its decompressed data does not start with BAM\\1)".into());
    }
    if data.len() < 8 {
        return Ok(HeaderParse::NeedMore);
    }
    let l_text = u32_at(data, 4) as usize;
    let mut at = 8 + l_text;
    if data.len() < at + 4 {
        return Ok(HeaderParse::NeedMore);
    }
    let text_bytes = &data[8..at];
    let text_end = text_bytes.iter().position(|&b| b == 0).unwrap_or(l_text);
    let text = String::from_utf8_lossy(&text_bytes[..text_end]).into_owned();
    let n_ref = u32_at(data, at) as usize;
    at += 4;
    if n_ref > i32::MAX as usize {
        return Err(format!(
            "implausible reference count {n_ref} in the BAM header"
        ));
    }
    let mut references = Vec::with_capacity(n_ref.min(1 << 16));
    for i in 0..n_ref {
        if data.len() < at + 4 {
            return Ok(HeaderParse::NeedMore);
        }
        let l_name = u32_at(data, at) as usize;
        if l_name == 0 {
            return Err(format!("reference {i} of the BAM header has an empty name"));
        }
        if data.len() < at + 4 + l_name + 4 {
            return Ok(HeaderParse::NeedMore);
        }
        let name_bytes = &data[at + 4..at + 4 + l_name - 1];
        let name = String::from_utf8_lossy(name_bytes).into_owned();
        let length = u32_at(data, at + 4 + l_name);
        references.push(Reference { name, length });
        at += 4 + l_name + 4;
    }
    Ok(HeaderParse::Complete(Header { text, references }, at))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Encodes a BAM header (uncompressed).
    pub(crate) fn encode(text: &str, refs: &[(&str, u32)]) -> Vec<u8> {
        let mut h = b"BAM\x01".to_vec();
        h.extend_from_slice(&(text.len() as u32).to_le_bytes());
        h.extend_from_slice(text.as_bytes());
        h.extend_from_slice(&(refs.len() as u32).to_le_bytes());
        for (name, len) in refs {
            h.extend_from_slice(&(name.len() as u32 + 1).to_le_bytes());
            h.extend_from_slice(name.as_bytes());
            h.push(0);
            h.extend_from_slice(&len.to_le_bytes());
        }
        h
    }

    #[test]
    fn parses_text_and_references() {
        let bytes = encode(
            "@HD\tVN:1.6\n@SQ\tSN:chr1\tLN:1000\n",
            &[("chr1", 1000), ("chrM", 16571)],
        );
        let HeaderParse::Complete(h, used) = parse_header(&bytes).unwrap() else {
            panic!("incomplete")
        };
        assert_eq!(used, bytes.len());
        assert_eq!(
            h.references[1],
            Reference {
                name: "chrM".into(),
                length: 16571
            }
        );
        assert_eq!(h.reference_id("chrM"), Some(1));
        assert_eq!(h.reference_ids()["chr1"], 0);
        assert!(h.parse_text().is_ok());
        for cut in [0, 3, 7, 20, bytes.len() - 1] {
            assert!(matches!(
                parse_header(&bytes[..cut]).unwrap(),
                HeaderParse::NeedMore
            ));
        }
    }

    #[test]
    fn rejects_other_data() {
        assert!(parse_header(b"@HD\tVN:1.6\n")
            .unwrap_err()
            .contains("not a BAM"));
    }
}
