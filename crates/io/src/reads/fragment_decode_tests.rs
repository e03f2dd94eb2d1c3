//! Decoding a record's bases and qualities: integer and Solexa qualities, the table of
//! valid sequence bytes checked against a byte-at-a-time reading, and malformed records
//! in every format reported as errors naming the file and record.

use super::*;
use crate::reads::fragments::decode::solexa_to_phred;

#[test]
fn integer_qualities() {
    let dir = tempfile::tempdir().unwrap();
    let fq = write(&dir, "r.fq", b"@a\nACG\n+\n40 3  20\n@b\nAC\n+\n1 2 3\n");
    let sources = ReadSources {
        unpaired: paths(&[&fq]),
        ..ReadSources::default()
    };
    let options = ParseOptions {
        int_quals: true,
        ..ParseOptions::default()
    };
    let e = fragments(&sources, 10, 1 << 20, &options)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("r.fq: record 2: sequence has 2 bases but quality has 3"),
        "{e}"
    );
    let e = all(&sources).unwrap_err().to_string();
    assert!(
        e.contains("record 1: invalid quality character ' '") && e.contains("--int-quals"),
        "{e}"
    );
    let one = ReadSources {
        upto: Some(1),
        ..sources
    };
    assert_eq!(
        fragments(&one, 10, 1 << 20, &options).unwrap(),
        ["a ACG 40,3,20"]
    );
}

#[test]
fn bad_records_are_errors_not_panics() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&[u8], InputFormat, &str); 7] = [
        (
            b"@a\nAC\n+\nII\n@ b\nAC\n+\nII\n",
            InputFormat::Auto,
            "record 2: read name is empty",
        ),
        (
            b"@a\nACGT\n+\nIII\n",
            InputFormat::Auto,
            "record 1: sequence has 4 bases but quality has 3",
        ),
        (
            b"@a\nAC-T\n+\nIIII\n",
            InputFormat::Auto,
            "invalid base '-'",
        ),
        (b"@a\nACGT\n", InputFormat::Auto, "truncated record"),
        (
            b">a b\nAC\n>a@x\nAC\n",
            InputFormat::Auto,
            "record 2: read name \"a@x\"",
        ),
        (
            b"a\tAC\n",
            InputFormat::Tab6,
            "expected 3 tab-separated fields",
        ),
        (
            b"M\t1\n",
            InputFormat::Qseq,
            "expected 11 tab-separated QSEQ fields, found 2",
        ),
    ];
    for (bytes, format, expected) in cases {
        let p = write(&dir, "bad.txt", bytes);
        let sources = ReadSources {
            unpaired: vec![p],
            format,
            ..ReadSources::default()
        };
        let e = fragments(&sources, 1, 1, &ParseOptions::default())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(expected) && e.contains("bad.txt"),
            "{e:?} lacks {expected:?}"
        );
    }
}

#[test]
fn solexa_qualities_become_bowtie2_s_phred() {
    // bowtie2's table: ';' (Solexa -5) is Phred 1, '@' (0) is 3, 'J' (10) is 10, 'h'
    // (40) is 40, 'I' (9) is 10; a character below -10 ('5') is 0.
    let options = ParseOptions {
        solexa: true,
        quality_offset: 64,
        ..ParseOptions::default()
    };
    let mut out = Vec::new();
    assert_eq!(decode_qualities(b";@JIh5~", &mut out, &options), Ok(7));
    assert_eq!(out, [1, 3, 10, 10, 40, 0, 62]);
    let e = decode_qualities(b"@ @", &mut out, &options).unwrap_err();
    assert!(
        e.contains("position 2") && e.contains("--solexa-quals"),
        "{e}"
    );
    let ints = ParseOptions {
        int_quals: true,
        ..options
    };
    let mut out = Vec::new();
    assert_eq!(
        decode_qualities(b"-5 0 9 10 40 -10", &mut out, &ints),
        Ok(6)
    );
    assert_eq!(out, [1, 3, 10, 10, 40, 0]);
    assert!(decode_qualities(b"-11", &mut out, &ints).is_err());
    for q in -20..100 {
        let p = solexa_to_phred(q);
        let exact = 10.0 * (10f64.powf(f64::from(q) / 10.0) + 1.0).log10();
        if q >= -10 {
            assert!(
                (f64::from(p) - exact).abs() <= 0.5 + 1e-9,
                "{q}: {p} vs {exact}"
            );
        } else {
            assert_eq!(p, 0);
        }
    }
}

proptest::proptest! {
    /// The table and the whole-line range check give what a byte at a time gives: the
    /// same bases and qualities, or the same message naming the first bad byte.
    #[test]
    fn lines_decode_as_byte_by_byte(
        line in proptest::collection::vec(proptest::sample::select(b"ACGTNacgtnUu.RyXx-7 !~I".to_vec()), 0..60),
        offset in proptest::sample::select(vec![33u8, 64]),
    ) {
        let options = ParseOptions {
            quality_offset: offset,
            ..ParseOptions::default()
        };
        let (mut fast, mut each) = (vec![9u8], vec![9u8]);
        let bases = decode_bases(&line, &mut fast, &options);
        proptest::prop_assert_eq!(bases, bases_one_at_a_time(&line, &mut each));
        proptest::prop_assert_eq!(&fast, &each);
        let mut qualities = vec![9u8];
        let expected = match line.iter().position(|&q| q < offset || q > b'~') {
            Some(i) => Err(format!("at position {}", i + 1)),
            None => Ok(line.iter().map(|&q| q - offset).collect::<Vec<u8>>()),
        };
        match decode_qualities(&line, &mut qualities, &options) {
            Ok(n) => {
                proptest::prop_assert_eq!(n, line.len());
                proptest::prop_assert_eq!(Ok(qualities[1..].to_vec()), expected);
            }
            Err(message) => {
                let Err(at) = expected else { panic!("{message}") };
                proptest::prop_assert!(message.contains(&at), "{}", message);
                proptest::prop_assert_eq!(qualities, vec![9u8]);
            }
        }
    }
}

/// The rules for a sequence line's bytes, one byte at a time: what the table of
/// [`decode_bases`] must agree with.
fn bases_one_at_a_time(line: &[u8], out: &mut Vec<u8>) -> std::result::Result<Range, String> {
    let start = out.len();
    for (i, &b) in line.iter().enumerate() {
        let upper = match b.to_ascii_uppercase() {
            c @ (b'A' | b'C' | b'G' | b'T' | b'N') => c,
            b'U' => b'T',
            b'.' => b'N',
            c @ (b'R' | b'Y' | b'S' | b'W' | b'K' | b'M' | b'B' | b'D' | b'H' | b'V') => c,
            _ => {
                out.truncate(start);
                return Err(format!(
                    "invalid base {:?} at position {} (expected A, C, G, T, N or an IUPAC code)",
                    char::from(b),
                    i + 1
                ));
            }
        };
        out.push(upper);
    }
    Ok((start as u32, out.len() as u32))
}
