//! The accessions BLAST derives from sequence names (`qacc`, `qaccver`, `sacc`,
//! `saccver`), as a database built with `-parse_seqids` holds them.

use std::borrow::Cow;

/// Tags of FASTA identifiers (NCBI's `tag|accession|name` form) whose next field is an
/// accession.
const ACCESSION_TAGS: [&str; 13] = [
    "ref", "gb", "emb", "dbj", "sp", "tr", "pir", "prf", "tpg", "tpe", "tpd", "gpp", "nat",
];

/// RefSeq's accession prefixes (before the `_`).
const REFSEQ_PREFIXES: [&str; 15] = [
    "AC", "AP", "NC", "NG", "NM", "NP", "NR", "NT", "NW", "NZ", "XM", "XP", "XR", "YP", "WP",
];

/// The accession and the accession with its version of a sequence name, as BLAST reads
/// them from a database built with `-parse_seqids`: `sp|P12345|NAME_HUMAN` gives
/// `P12345` twice, `NC_045512.2` gives `NC_045512` and `NC_045512.2`,
/// `gi|123|ref|NM_000001.2|` gives `NM_000001`, `lcl|x` gives `x`, `gnl|db|x` gives
/// `db:x`, `pdb|1ABC|A` gives `1ABC_A`; a name that is no accession (`chr1`, `seq.1`)
/// gives itself twice.
pub fn accession(id: &str) -> (Cow<'_, str>, Cow<'_, str>) {
    let whole = || (Cow::Borrowed(id), Cow::Borrowed(id));
    if !id.contains('|') {
        return match split_version(id) {
            Some((base, _)) if is_accession(base) => (
                Cow::Owned(base.to_ascii_uppercase()),
                Cow::Owned(id.to_ascii_uppercase()),
            ),
            None if is_accession(id) => {
                let upper = id.to_ascii_uppercase();
                (Cow::Owned(upper.clone()), Cow::Owned(upper))
            }
            _ => whole(),
        };
    }
    let fields: Vec<&str> = id.split('|').collect();
    let field = |i: usize| fields.get(i).copied().unwrap_or("");
    let mut fallback: Option<String> = None;
    let mut i = 0;
    while i < fields.len() {
        let tag = fields[i].to_ascii_lowercase();
        match tag.as_str() {
            "gi" | "bbs" | "lcl" => {
                fallback.get_or_insert_with(|| field(i + 1).to_string());
                i += 2;
            }
            "gnl" => {
                fallback.get_or_insert_with(|| format!("{}:{}", field(i + 1), field(i + 2)));
                i += 3;
            }
            "pdb" => {
                let text = match field(i + 2) {
                    "" => field(i + 1).to_string(),
                    chain => format!("{}_{chain}", field(i + 1)),
                };
                return (Cow::Owned(text.clone()), Cow::Owned(text));
            }
            tag if ACCESSION_TAGS.contains(&tag) => {
                let accver = match field(i + 1) {
                    "" => field(i + 2),
                    accver => accver,
                };
                let acc = split_version(accver).map_or(accver, |(base, _)| base);
                return (Cow::Owned(acc.to_string()), Cow::Owned(accver.to_string()));
            }
            _ => break,
        }
    }
    match fallback {
        Some(text) => (Cow::Owned(text.clone()), Cow::Owned(text)),
        None => whole(),
    }
}

/// `NC_045512.2` as (`NC_045512`, `2`): a version is digits after the last dot.
fn split_version(text: &str) -> Option<(&str, &str)> {
    let (base, version) = text.rsplit_once('.')?;
    (!base.is_empty() && !version.is_empty() && version.bytes().all(|b| b.is_ascii_digit()))
        .then_some((base, version))
}

/// Whether a bare name (no version) has the shape of an INSDC, RefSeq or UniProt
/// accession, which BLAST recognizes without a tag.
fn is_accession(text: &str) -> bool {
    let upper = text.to_ascii_uppercase();
    if let Some((prefix, rest)) = upper.split_once('_') {
        return REFSEQ_PREFIXES.contains(&prefix)
            && rest.len() >= 5
            && rest.bytes().all(|b| b.is_ascii_alphanumeric())
            && rest.bytes().any(|b| b.is_ascii_digit());
    }
    let bytes = upper.as_bytes();
    if !bytes.iter().all(u8::is_ascii_alphanumeric) {
        return false;
    }
    let letters = bytes.iter().take_while(|b| b.is_ascii_alphabetic()).count();
    let digits = bytes.len() - letters;
    let digits_only = bytes[letters..].iter().all(u8::is_ascii_digit);
    let insdc = digits_only
        && matches!(
            (letters, digits),
            (1, 5) | (2, 6) | (2, 8) | (3, 5) | (3, 7) | (4, 8..=10) | (6, 9..=11)
        );
    insdc || is_uniprot(bytes)
}

/// UniProt's accession shapes: `[OPQ][0-9][A-Z0-9]{3}[0-9]` and
/// `[A-NR-Z][0-9]([A-Z][A-Z0-9]{2}[0-9]){1,2}`.
fn is_uniprot(b: &[u8]) -> bool {
    let alnum = |c: u8| c.is_ascii_uppercase() || c.is_ascii_digit();
    let block =
        |s: &[u8]| s[0].is_ascii_uppercase() && alnum(s[1]) && alnum(s[2]) && s[3].is_ascii_digit();
    match b.len() {
        6 if matches!(b[0], b'O' | b'P' | b'Q') => {
            b[1].is_ascii_digit() && b[2..5].iter().all(|&c| alnum(c)) && b[5].is_ascii_digit()
        }
        6 | 10 => {
            b[0].is_ascii_uppercase()
                && !matches!(b[0], b'O' | b'P' | b'Q')
                && b[1].is_ascii_digit()
                && b[2..].chunks(4).all(block)
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accessions_as_blast_parses_them() {
        // What blastn 2.12 -parse_deflines prints as qacc and qaccver for these names.
        let cases = [
            ("sp|P12345|NAME_HUMAN", "P12345", "P12345"),
            ("sp|P12345.3|NAME_HUMAN", "P12345", "P12345.3"),
            ("tr|A0A0W7XYV8|A0A0W7XYV8_9BACI", "A0A0W7XYV8", "A0A0W7XYV8"),
            ("NC_045512.2", "NC_045512", "NC_045512.2"),
            ("nc_045512.2", "NC_045512", "NC_045512.2"),
            ("NM_000001", "NM_000001", "NM_000001"),
            ("WP_012345678.1", "WP_012345678", "WP_012345678.1"),
            ("NZ_CP012345.1", "NZ_CP012345", "NZ_CP012345.1"),
            ("AB123456.1", "AB123456", "AB123456.1"),
            ("CAA12345.1", "CAA12345", "CAA12345.1"),
            ("ABCD01000001.1", "ABCD01000001", "ABCD01000001.1"),
            ("P12345.3", "P12345", "P12345.3"),
            ("A0A0W7XYV8.2", "A0A0W7XYV8", "A0A0W7XYV8.2"),
            ("gi|123|ref|NM_000001.2|", "NM_000001", "NM_000001.2"),
            ("emb|CAA12345.1|x", "CAA12345", "CAA12345.1"),
            ("gb|AB123456.1|", "AB123456", "AB123456.1"),
            ("ref|NM_000001|", "NM_000001", "NM_000001"),
            ("gi|5", "5", "5"),
            ("lcl|myseq", "myseq", "myseq"),
            ("gnl|db|id7", "db:id7", "db:id7"),
            ("pdb|1ABC|A", "1ABC_A", "1ABC_A"),
            ("prf||1234A", "1234A", "1234A"),
            ("bbs|123", "123", "123"),
            ("chr1", "chr1", "chr1"),
            ("seq.1", "seq.1", "seq.1"),
            (
                "ENST00000456328.2",
                "ENST00000456328.2",
                "ENST00000456328.2",
            ),
            ("XP_1.2.3", "XP_1.2.3", "XP_1.2.3"),
            ("NC_045512.2.1", "NC_045512.2.1", "NC_045512.2.1"),
            ("AB_1", "AB_1", "AB_1"),
        ];
        for (id, acc, accver) in cases {
            let (a, v) = accession(id);
            assert_eq!((a.as_ref(), v.as_ref()), (acc, accver), "{id}");
        }
    }
}
