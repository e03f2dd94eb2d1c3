//! The striped kernel against the scalar reference: random proteins (proptest) over
//! several matrices and gap costs, related sequences with long gaps, and the edge cases.

use super::*;
use crate::{scalar, ScoreMatrix};
use proptest::prelude::*;

/// Whether the striped kernel can run here. Where it cannot, checks that it refuses to
/// (an error, not a crash), so that the calling test still checks something, and says
/// on stderr that the kernel itself was not run.
fn have_avx2() -> bool {
    if crate::Isa::Avx2.is_supported() {
        return true;
    }
    let scoring = Scoring::new(ScoreMatrix::builtin("BLOSUM62").unwrap(), 11, 1).unwrap();
    let refused = StripedProfile::new(&scoring, &[0, 1]).err();
    let message = refused.map(|e| e.to_string()).unwrap_or_default();
    assert!(
        message.contains("needs AVX2"),
        "accepted without AVX2: {message}"
    );
    eprintln!("note: this CPU lacks AVX2; only the striped kernel's refusal is tested here");
    false
}

/// Checks the striped score of `query` against each subject equals the reference
/// (or is reported as overflow when the reference is above the 16-bit limit), for
/// the 8-then-16-bit path, the 16-bit pass alone, and the 8-bit pass alone (exact
/// below its limit, overflow or exact above it).
fn check(scoring: &Scoring, query: &[u8], subjects: &[Vec<u8>]) {
    let matrix = scoring.matrix();
    let query = matrix.encode(query);
    let mut profile = StripedProfile::new(scoring, &query).unwrap();
    let name = matrix.name();
    for subject in subjects {
        let subject = matrix.encode(subject);
        let expected = scalar::score(scoring, &query, &subject);
        let exact = (expected <= MAX_EXACT_SCORE).then_some(expected);
        assert_eq!(
            profile.score(&subject),
            exact,
            "{name} query {}",
            query.len()
        );
        assert_eq!(profile.score_16(&subject), exact, "{name} 16-bit");
        if query.is_empty() || subject.is_empty() {
            continue;
        }
        if let Some(byte_lanes) = &mut profile.byte_lanes {
            // SAFETY: AVX2 checked by the caller; codes from `encode`; query not empty.
            let narrow = unsafe { byte_lanes.score(&subject) };
            let limit = 255 - i32::from(byte_lanes.bias);
            match narrow {
                Some(score) => assert_eq!(score, expected, "{name} 8-bit"),
                None => assert!(expected >= limit, "{name} 8-bit overflow at {expected}"),
            }
            if expected < limit {
                assert!(narrow.is_some(), "{name} 8-bit exact below {limit}");
            }
        }
    }
}

fn repeat(pattern: &[u8], len: usize) -> Vec<u8> {
    pattern.iter().copied().cycle().take(len).collect()
}

const AMINO: &[u8] = b"ACDEFGHIKLMNPQRSTVWYBZXU*";

fn protein(max_len: usize) -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(prop::sample::select(AMINO), 0..max_len)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn equals_scalar_on_random_proteins(
        query in protein(200),
        subjects in prop::collection::vec(protein(200), 1..12),
        matrix in prop::sample::select(vec!["BLOSUM62", "BLOSUM50", "PAM30"]),
        open in 0i32..16,
        extend in 0i32..4,
    ) {
        if !have_avx2() {
            return Ok(());
        }
        let scoring = Scoring::new(ScoreMatrix::builtin(matrix).unwrap(), open, extend).unwrap();
        check(&scoring, &query, &subjects);
    }

    #[test]
    fn equals_scalar_on_related_proteins(
        query in protein(300),
        edits in prop::collection::vec((0usize..300, prop::sample::select(AMINO), 0usize..3), 0..20),
        matrix in prop::sample::select(vec!["BLOSUM62", "BLOSUM50", "PAM30"]),
        open in 0i32..12,
        extend in 1i32..3,
    ) {
        if !have_avx2() {
            return Ok(());
        }
        // A mutated copy of the query: long gapped alignments exercise the lazy F loop.
        let mut subject = query.clone();
        for (position, residue, kind) in edits {
            let at = position.min(subject.len());
            match kind {
                0 => subject.insert(at, residue),
                1 if at < subject.len() => { subject.remove(at); }
                _ if at < subject.len() => subject[at] = residue,
                _ => {}
            }
        }
        let scoring = Scoring::new(ScoreMatrix::builtin(matrix).unwrap(), open, extend).unwrap();
        check(&scoring, &query, &[subject, query.clone()]);
    }
}

#[test]
fn edge_cases() {
    if !have_avx2() {
        return;
    }
    let scoring = Scoring::default();
    let subjects = vec![
        Vec::new(),
        b"W".to_vec(),
        b"A".to_vec(),
        repeat(b"X", 300),
        repeat(b"WCAY", 37),
        b"MKV".to_vec(),
    ];
    // Empty, length 1, all-X, and lengths around multiples of 16.
    for query in [
        Vec::new(),
        b"W".to_vec(),
        repeat(b"X", 40),
        repeat(b"MKVWCAYWCAY", 15),
        repeat(b"MKVWCAYWCAY", 16),
        repeat(b"MKVWCAYWCAY", 17),
        repeat(b"ACDEFGHIKLMNPQRSTVWY", 33),
    ] {
        check(&scoring, &query, &subjects);
    }
}

#[test]
fn long_query() {
    if !have_avx2() {
        return;
    }
    let mut state = 11u64;
    let mut random = |len: usize| -> Vec<u8> {
        (0..len)
            .map(|_| {
                state = state.wrapping_mul(6364136223846793005).wrapping_add(1);
                b"ACDEFGHIKLMNPQRSTVWY"[(state >> 33) as usize % 20]
            })
            .collect()
    };
    let query = random(3000);
    let mut subjects: Vec<Vec<u8>> = (0..4).map(|i| random(100 + 150 * i)).collect();
    subjects.push(query[700..1900].to_vec());
    let mut gapped = query[100..900].to_vec();
    gapped.drain(300..340);
    gapped.splice(500..500, repeat(b"GG", 25));
    subjects.push(gapped);
    check(&Scoring::default(), &query, &subjects);
}

#[test]
fn sixteen_bit_saturation_is_reported() {
    if !have_avx2() {
        return;
    }
    let scoring = Scoring::default();
    // W scores 11: 2,978 W's reach 32,758 (exact), 2,979 reach 32,769 (overflow).
    // 22 W's reach 242 and 23 reach 253, around the 8-bit limit of 251 (bias 4).
    let subjects = vec![
        repeat(b"W", 2_978),
        repeat(b"W", 2_979),
        repeat(b"W", 10),
        repeat(b"W", 22),
        repeat(b"W", 23),
    ];
    check(&scoring, &repeat(b"W", 3_000), &subjects);
    let mut profile =
        StripedProfile::new(&scoring, &scoring.matrix().encode(&repeat(b"W", 3_000))).unwrap();
    let codes = scoring.matrix().encode(&repeat(b"W", 2_979));
    assert_eq!(profile.score(&codes), None);
}

#[test]
fn eight_bit_pass_is_used_when_the_scoring_fits() {
    if !have_avx2() {
        return;
    }
    let scoring = Scoring::default();
    let query = scoring.matrix().encode(b"MKVWCAY");
    let fits = StripedProfile::new(&scoring, &query).unwrap();
    assert!(fits.byte_lanes.is_some());
    let blosum62 = ScoreMatrix::builtin("BLOSUM62").unwrap();
    let costly_gaps = Scoring::new(blosum62, 250, 10).unwrap();
    let words_only = StripedProfile::new(&costly_gaps, &query).unwrap();
    assert!(words_only.byte_lanes.is_none());
    check(&costly_gaps, b"MKVWCAYWWWW", &[b"MKVWWWAWCAY".to_vec()]);
}

#[test]
fn profile_is_reused_across_subjects() {
    if !have_avx2() {
        return;
    }
    let scoring = Scoring::default();
    let m = scoring.matrix();
    let mut profile = StripedProfile::new(&scoring, &m.encode(b"MKVWCAYWCAYHHE")).unwrap();
    assert_eq!(profile.padded_len(), 16);
    let long = m.encode(&repeat(b"WCAY", 60));
    let short = m.encode(b"WCAY");
    let first = profile.score(&long);
    assert_eq!(profile.score(&short), Some(31));
    assert_eq!(profile.score(&long), first);
}
