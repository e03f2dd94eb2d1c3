//! Optional fields as SAM text, both ways: a BAM record's binary fields written as SAM
//! text (`--preserve-tags` carries an unaligned BAM record's tags, as text, to the
//! records of its alignments), and SAM text fields read back into values that both the
//! SAM and the BAM writer can write.

use super::{Tag, TagValue};

/// The element types of a `B` array, with their width in BAM.
const ARRAY_TYPES: [(u8, usize); 7] = [
    (b'c', 1),
    (b'C', 1),
    (b's', 2),
    (b'S', 2),
    (b'i', 4),
    (b'I', 4),
    (b'f', 4),
];

/// Appends the optional fields of BAM record data `aux` as SAM text, each after a tab
/// (`\tRG:Z:grp1\tXI:i:3`), as `samtools view` writes them: the integer types as `i`;
/// a float as the shortest text that reads back to it, which `push_sam_text_value`
/// rounds as samtools does when it writes SAM, and BAM output encodes back unchanged.
/// A malformed field is an error saying which tag and what is wrong.
pub fn append_bam_fields_as_text(mut aux: &[u8], out: &mut Vec<u8>) -> Result<(), String> {
    while !aux.is_empty() {
        let [a, b, kind, rest @ ..] = aux else {
            return Err("an optional field is cut short".into());
        };
        let name = String::from_utf8_lossy(&[*a, *b]).into_owned();
        if !valid_name([*a, *b]) {
            return Err(format!("optional field {name:?}: not a tag name"));
        }
        let error = |what: &str| format!("optional field {name}: {what}");
        out.extend_from_slice(&[b'\t', *a, *b, b':']);
        let used = match kind {
            b'A' => {
                let &c = rest.first().ok_or_else(|| error("cut short"))?;
                if !c.is_ascii_graphic() {
                    return Err(error("an A value that is not a printable character"));
                }
                out.extend_from_slice(&[b'A', b':', c]);
                1
            }
            b'Z' | b'H' => {
                let len = rest
                    .iter()
                    .position(|&c| c == 0)
                    .ok_or_else(|| error("a string without its terminating NUL"))?;
                let value = &rest[..len];
                let valid = if *kind == b'Z' {
                    value.iter().all(|&c| string_byte(c))
                } else {
                    valid_hex(value)
                };
                if !valid {
                    return Err(error(if *kind == b'Z' {
                        "a string with a control character (a tab, a line break...)"
                    } else {
                        "an H value that is not pairs of hex digits"
                    }));
                }
                out.extend_from_slice(&[*kind, b':']);
                out.extend_from_slice(value);
                len + 1
            }
            b'B' => {
                let (&element, rest) = rest.split_first().ok_or_else(|| error("cut short"))?;
                let width = array_width(element)
                    .ok_or_else(|| error("an array of an unknown element type"))?;
                let count = rest
                    .get(..4)
                    .ok_or_else(|| error("cut short"))
                    .map(|n| u32::from_le_bytes([n[0], n[1], n[2], n[3]]) as usize)?;
                let bytes = count
                    .checked_mul(width)
                    .and_then(|n| rest.get(4..4 + n))
                    .ok_or_else(|| error("an array longer than the record"))?;
                out.extend_from_slice(&[b'B', b':', element]);
                for value in bytes.chunks_exact(width) {
                    out.push(b',');
                    push_number(element, value, out);
                }
                1 + 4 + bytes.len()
            }
            _ => {
                let width = array_width(*kind)
                    .ok_or_else(|| error(&format!("unknown value type {:?}", *kind as char)))?;
                let value = rest.get(..width).ok_or_else(|| error("cut short"))?;
                out.extend_from_slice(if *kind == b'f' { b"f:" } else { b"i:" });
                push_number(*kind, value, out);
                width
            }
        };
        aux = &rest[used..];
    }
    Ok(())
}

/// A SAM text field `TG:TYPE:VALUE` as a tag, or `None` when it is not a well-formed
/// field (a bad name, an unknown type, or a value its type cannot hold).
pub fn parse_text_field(field: &[u8]) -> Option<Tag<'_>> {
    let [a, b, b':', kind, b':', value @ ..] = field else {
        return None;
    };
    let name = [*a, *b];
    if !valid_name(name) {
        return None;
    }
    let value = match kind {
        b'i' => TagValue::Int(parse_int(value, i64::from(i32::MIN), i64::from(u32::MAX))?),
        b'Z' if value.iter().all(|&c| string_byte(c)) => TagValue::Str(value),
        b'A' if value.len() == 1 && value[0].is_ascii_graphic() => {
            TagValue::Text { kind: b'A', value }
        }
        b'f' if parse_float(value).is_some() => TagValue::Text { kind: b'f', value },
        b'H' if valid_hex(value) => TagValue::Text { kind: b'H', value },
        b'B' => {
            let (element, mut items) = array_items(value)?;
            if !items.all(|item| number_bytes(element, item).is_some()) {
                return None;
            }
            TagValue::Text { kind: b'B', value }
        }
        _ => return None,
    };
    Some(Tag { name, value })
}

/// Appends the SAM text of a value of type `kind` (`A`, `f`, `H` or `B`, as
/// [`parse_text_field`] accepted it), as samtools writes it: a float, alone or in a `B`
/// array, is written as C's `%g` writes it (`3.14159`, `1e-07`), other values as they are.
/// The value is carried as the shortest text that reads back to the same float, so that
/// BAM output keeps the input's bits; only SAM text rounds to `%g`'s six digits.
pub(crate) fn push_sam_text_value(kind: u8, value: &[u8], out: &mut Vec<u8>) {
    let push_float = |item: &[u8], out: &mut Vec<u8>| match parse_float(item) {
        Some(v) => push_float_as_c_g(v, out),
        None => out.extend_from_slice(item),
    };
    match (kind, value) {
        (b'f', _) => push_float(value, out),
        (b'B', [b'f', b',', list @ ..]) => {
            out.push(b'f');
            for item in list.split(|&c| c == b',') {
                out.push(b',');
                push_float(item, out);
            }
        }
        _ => out.extend_from_slice(value),
    }
}

/// Appends `v` as C's `printf("%g")` writes it: six significant digits, trailing zeros
/// dropped, an exponent of at least two digits outside 1e-4..1e6 (`-0`, `nan`, `-inf`
/// as glibc spells them). samtools writes BAM floats so.
fn push_float_as_c_g(v: f32, out: &mut Vec<u8>) {
    const DIGITS: i32 = 6;
    let v = f64::from(v);
    let sign = if v.is_sign_negative() { "-" } else { "" };
    if v.is_nan() || v.is_infinite() || v == 0.0 {
        let word = if v.is_nan() {
            "nan"
        } else if v == 0.0 {
            "0"
        } else {
            "inf"
        };
        out.extend_from_slice(sign.as_bytes());
        out.extend_from_slice(word.as_bytes());
        return;
    }
    // The exponent after rounding to six digits decides the style, as in C.
    let scientific = format!("{:.*e}", (DIGITS - 1) as usize, v);
    let (mantissa, exponent) = scientific.split_once('e').expect("Rust's {:e} has an e");
    let exponent: i32 = exponent
        .parse()
        .expect("Rust's {:e} exponent is an integer");
    let text = if (-4..DIGITS).contains(&exponent) {
        let fixed = format!("{:.*}", (DIGITS - 1 - exponent) as usize, v);
        trim_fraction_zeros(&fixed).to_string()
    } else {
        let sign = if exponent < 0 { '-' } else { '+' };
        format!(
            "{}e{sign}{:02}",
            trim_fraction_zeros(mantissa),
            exponent.abs()
        )
    };
    out.extend_from_slice(text.as_bytes());
}

/// `text` without the zeros that end its fraction, and without a `.` left bare.
fn trim_fraction_zeros(text: &str) -> &str {
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.')
    } else {
        text
    }
}

/// Appends the BAM encoding of a SAM text value of type `kind` (`A`, `f`, `H` or `B`,
/// as [`parse_text_field`] accepted it): the type letter, then the value. A value it
/// would not have accepted still gives a whole field (a blank, 0, an empty array), so
/// the record stays readable.
pub fn encode_text_value(kind: u8, value: &[u8], out: &mut Vec<u8>) {
    out.push(kind);
    match kind {
        b'A' => out.push(value.first().copied().unwrap_or(b' ')),
        b'f' => {
            if encode_number(b'f', value, out).is_none() {
                out.extend_from_slice(&0f32.to_le_bytes());
            }
        }
        b'H' => {
            out.extend_from_slice(value);
            out.push(0);
        }
        _ => {
            let Some((element, items)) = array_items(value) else {
                out.extend_from_slice(&[b'c', 0, 0, 0, 0]);
                return;
            };
            out.push(element);
            let count_at = out.len();
            out.extend_from_slice(&[0; 4]);
            let count = items
                .filter(|item| encode_number(element, item, out).is_some())
                .count() as u32;
            out[count_at..count_at + 4].copy_from_slice(&count.to_le_bytes());
        }
    }
}

/// A `B` value's element type and its elements' texts (`s,1,-2`: `s`, then `1`, `-2`),
/// or `None` for an unknown element type or a list not separated from it by a comma.
fn array_items(value: &[u8]) -> Option<(u8, impl Iterator<Item = &[u8]>)> {
    let (&element, rest) = value.split_first()?;
    array_width(element)?;
    let list = if rest.is_empty() {
        None
    } else {
        Some(rest.strip_prefix(b",")?)
    };
    Some((
        element,
        list.into_iter().flat_map(|l| l.split(|&c| c == b',')),
    ))
}

/// Whether a `Z` string may hold byte `c` in SAM text: a printable character or a space,
/// as the specification has it, or a byte of a UTF-8 character (a name with an accent),
/// which samtools and bowtie2 copy as they are; not a control character, which would
/// break the line.
fn string_byte(c: u8) -> bool {
    c == b' ' || c.is_ascii_graphic() || !c.is_ascii()
}

/// Whether `name` is a SAM tag name: a letter, then a letter or digit.
fn valid_name(name: [u8; 2]) -> bool {
    name[0].is_ascii_alphabetic() && name[1].is_ascii_alphanumeric()
}

/// Whether `value` is pairs of hex digits.
fn valid_hex(value: &[u8]) -> bool {
    value.len().is_multiple_of(2) && value.iter().all(u8::is_ascii_hexdigit)
}

/// The BAM width of a number of type `kind` (`cCsSiIf`).
fn array_width(kind: u8) -> Option<usize> {
    ARRAY_TYPES.iter().find(|t| t.0 == kind).map(|t| t.1)
}

/// Appends the text of a little-endian number of type `kind` (`cCsSiIf`).
fn push_number(kind: u8, bytes: &[u8], out: &mut Vec<u8>) {
    let b = |i: usize| bytes[i];
    let int = match kind {
        b'c' => i64::from(b(0) as i8),
        b'C' => i64::from(b(0)),
        b's' => i64::from(i16::from_le_bytes([b(0), b(1)])),
        b'S' => i64::from(u16::from_le_bytes([b(0), b(1)])),
        b'i' => i64::from(i32::from_le_bytes([b(0), b(1), b(2), b(3)])),
        b'I' => i64::from(u32::from_le_bytes([b(0), b(1), b(2), b(3)])),
        _ => {
            let v = f32::from_le_bytes([b(0), b(1), b(2), b(3)]);
            // C's %g spelling for the values without digits, as htslib writes them (the
            // sign of a NaN kept, as glibc writes `-nan`).
            let text = match v {
                v if v.is_nan() && v.is_sign_negative() => "-nan".to_string(),
                v if v.is_nan() => "nan".to_string(),
                v if v.is_infinite() => if v > 0.0 { "inf" } else { "-inf" }.to_string(),
                v => v.to_string(),
            };
            out.extend_from_slice(text.as_bytes());
            return;
        }
    };
    out.extend_from_slice(itoa::Buffer::new().format(int).as_bytes());
}

/// Appends the little-endian encoding of the number `text` as type `kind` (`cCsSiIf`);
/// `None` (nothing appended) when the text is not such a number.
fn encode_number(kind: u8, text: &[u8], out: &mut Vec<u8>) -> Option<()> {
    let (bytes, width) = number_bytes(kind, text)?;
    out.extend_from_slice(&bytes[..width]);
    Some(())
}

/// The little-endian bytes (the first `width` of four) of the number `text` as type
/// `kind` (`cCsSiIf`), or `None` when the text is not such a number.
fn number_bytes(kind: u8, text: &[u8]) -> Option<([u8; 4], usize)> {
    let width = array_width(kind)?;
    let bytes = if kind == b'f' {
        parse_float(text)?.to_le_bytes()
    } else {
        let (lo, hi) = match kind {
            b'c' => (i64::from(i8::MIN), i64::from(i8::MAX)),
            b'C' => (0, i64::from(u8::MAX)),
            b's' => (i64::from(i16::MIN), i64::from(i16::MAX)),
            b'S' => (0, i64::from(u16::MAX)),
            b'i' => (i64::from(i32::MIN), i64::from(i32::MAX)),
            _ => (0, i64::from(u32::MAX)),
        };
        // Two's complement: the low bytes of the value are its encoding at any width.
        let v = parse_int(text, lo, hi)?;
        let low = v.to_le_bytes();
        [low[0], low[1], low[2], low[3]]
    };
    Some((bytes, width))
}

/// The integer `text`, if it is one within `lo..=hi`.
fn parse_int(text: &[u8], lo: i64, hi: i64) -> Option<i64> {
    let v: i64 = std::str::from_utf8(text).ok()?.parse().ok()?;
    (lo..=hi).contains(&v).then_some(v)
}

/// The floating-point number `text`, if it is one.
fn parse_float(text: &[u8]) -> Option<f32> {
    std::str::from_utf8(text).ok()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sam::bam::encode_tag;
    use crate::sam::push_text_tag;

    /// BAM fields of every type, and their SAM text as samtools writes it.
    fn every_type() -> (Vec<u8>, &'static str) {
        let mut aux = b"XAAxRGZgrp 1\0Xcc\xfbXCC\xc8Xss\x00\x80XSS\xff\xff".to_vec();
        aux.extend_from_slice("DSZM\u{fc}ller\0".as_bytes());
        aux.extend_from_slice(b"Xii\xff\xff\xff\xffXII\xff\xff\xff\xff");
        aux.extend_from_slice(b"Xff\x00\x00\xc0\x3fXHH1AE3\0");
        aux.extend_from_slice(b"XBBs\x02\x00\x00\x00\x01\x00\xfe\xffXeBf\x00\x00\x00\x00");
        let text =
            "\tXA:A:x\tRG:Z:grp 1\tXc:i:-5\tXC:i:200\tXs:i:-32768\tXS:i:65535\tDS:Z:M\u{fc}ller\
                    \tXi:i:-1\tXI:i:4294967295\tXf:f:1.5\tXH:H:1AE3\tXB:B:s,1,-2\tXe:B:f";
        (aux, text)
    }

    #[test]
    fn bam_fields_are_written_as_sam_text() {
        let (aux, text) = every_type();
        let mut out = Vec::new();
        append_bam_fields_as_text(&aux, &mut out).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), text);
    }

    #[test]
    fn text_fields_come_back_as_the_same_text_and_as_bam() {
        let (_, text) = every_type();
        let tags: Vec<Tag> = text[1..]
            .split('\t')
            .map(|f| parse_text_field(f.as_bytes()).unwrap_or_else(|| panic!("{f}")))
            .collect();
        let mut sam = Vec::new();
        let mut bam = Vec::new();
        for tag in &tags {
            push_text_tag(tag, &mut sam);
            encode_tag(tag, &mut bam);
        }
        assert_eq!(String::from_utf8(sam).unwrap(), text);
        // In BAM the integers take the smallest type that holds them; read back as
        // text, the fields are the same.
        let mut again = Vec::new();
        append_bam_fields_as_text(&bam, &mut again).unwrap();
        assert_eq!(String::from_utf8(again).unwrap(), text);
    }

    #[test]
    fn floats_are_written_as_c_g_writes_them() {
        for (v, text) in [
            (1.5f32, "1.5"),
            (std::f32::consts::PI, "3.14159"),
            (1e-7, "1e-07"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (100_000.0, "100000"),
            (999_999.5, "1e+06"),
            (123_456_790.0, "1.23457e+08"),
            (-2.5e9, "-2.5e+09"),
            (0.1, "0.1"),
            (-0.0, "-0"),
            (0.0, "0"),
            (f32::INFINITY, "inf"),
            (f32::NEG_INFINITY, "-inf"),
            (f32::NAN, "nan"),
            (-f32::NAN, "-nan"),
        ] {
            let mut out = Vec::new();
            push_float_as_c_g(v, &mut out);
            assert_eq!(String::from_utf8(out).unwrap(), text, "{v:e}");
        }
    }

    #[test]
    fn sam_text_rounds_floats_and_keeps_other_values() {
        for (kind, value, text) in [
            (b'f', &b"3.1415927"[..], "3.14159"),
            (b'B', b"f,0.1,1e-7,-2.5e9", "f,0.1,1e-07,-2.5e+09"),
            (b'B', b"f", "f"),
            (b'B', b"s,1,-2", "s,1,-2"),
            (b'A', b"q", "q"),
            (b'H', b"1AE3", "1AE3"),
        ] {
            let mut out = Vec::new();
            push_sam_text_value(kind, value, &mut out);
            assert_eq!(String::from_utf8(out).unwrap(), text);
        }
        // Carried as text, a BAM float keeps its bits: the shortest text that reads back.
        let mut carried = Vec::new();
        append_bam_fields_as_text(b"Xpf\xdb\x0f\x49\x40", &mut carried).unwrap();
        assert_eq!(carried, b"\tXp:f:3.1415927");
        // A NaN keeps its sign through the text, as samtools writes it (`-nan`).
        let mut carried = Vec::new();
        append_bam_fields_as_text(b"XnBf\x01\x00\x00\x00\x00\x00\xc0\xff", &mut carried).unwrap();
        let mut sam = Vec::new();
        push_sam_text_value(b'B', &carried[6..], &mut sam);
        assert_eq!(
            (&carried[..], &sam[..]),
            (&b"\tXn:B:f,-nan"[..], &b"f,-nan"[..])
        );
    }

    #[test]
    fn values_never_accepted_still_encode_whole_fields() {
        for (kind, value, expected) in [
            (b'f', &b"one"[..], &b"f\0\0\0\0"[..]),
            (b'A', b"", b"A "),
            (b'B', b"q,1", b"Bc\0\0\0\0"),
        ] {
            let mut out = Vec::new();
            encode_text_value(kind, value, &mut out);
            assert_eq!(out, expected, "{}", kind as char);
        }
    }

    #[test]
    fn malformed_fields_are_refused() {
        for bad in [
            &b"XZZno end"[..],
            b"XAA\x01",
            b"XHH1G\0",
            b"XBBs\x05\x00\x00\x00\x01\x00",
            b"XBBq\x00\x00\x00\x00",
            b"Xdd\0\0\0\0\0\0\0\0",
            b"1AA",
            b"XZZtab\there\0",
            b"Xi",
        ] {
            let e = append_bam_fields_as_text(bad, &mut Vec::new()).unwrap_err();
            assert!(e.contains("optional field"), "{bad:?}: {e}");
        }
        for bad in [
            "XA:A:xy",
            "Xi:i:1.5",
            "Xi:i:5000000000",
            "Xf:f:one",
            "XH:H:ABC",
            "XB:B:c,300",
            "XB:B:q,1",
            "XB:B:c1",
            "1X:Z:a",
            "XZ:Q:a",
            "XZ:Z",
        ] {
            assert!(parse_text_field(bad.as_bytes()).is_none(), "{bad}");
        }
    }
}
