//! Numbers as BLAST's tabular output prints them.

/// E-values as BLAST's tabular output prints them.
pub fn format_evalue(evalue: f64) -> String {
    if evalue < 1.0e-180 {
        "0.0".to_string()
    } else if evalue < 0.0009 {
        scientific(evalue, 2)
    } else if evalue < 0.1 {
        format!("{evalue:.3}")
    } else if evalue < 1.0 {
        format!("{evalue:.2}")
    } else if evalue < 10.0 {
        format!("{evalue:.1}")
    } else {
        format!("{evalue:.0}")
    }
}

/// Bit scores as BLAST's tabular output prints them.
pub fn format_bit_score(bits: f64) -> String {
    if bits > 9999.0 {
        scientific(bits, 3)
    } else if bits > 99.9 {
        format!("{}", bits as i64)
    } else {
        format!("{bits:.1}")
    }
}

/// C's `%.{precision}e`: a two-digit (at least) exponent with its sign.
fn scientific(value: f64, precision: usize) -> String {
    let text = format!("{value:.precision$e}");
    match text.split_once('e') {
        Some((mantissa, exponent)) => {
            let (sign, digits) = match exponent.strip_prefix('-') {
                Some(digits) => ('-', digits),
                None => ('+', exponent),
            };
            format!("{mantissa}e{sign}{digits:0>2}")
        }
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_as_blast_prints_them() {
        assert_eq!(format_evalue(2.3112e-174), "2.31e-174");
        assert_eq!(format_evalue(3.0e-5), "3.00e-05");
        assert_eq!(format_evalue(1.0e-200), "0.0");
        assert_eq!(format_evalue(0.0123), "0.012");
        assert_eq!(format_evalue(0.5), "0.50");
        assert_eq!(format_evalue(3.24), "3.2");
        assert_eq!(format_evalue(123.4), "123");
        assert_eq!(format_bit_score(679.9), "679");
        assert_eq!(format_bit_score(43.128), "43.1");
        assert_eq!(format_bit_score(12345.0), "1.234e+04");
    }
}
