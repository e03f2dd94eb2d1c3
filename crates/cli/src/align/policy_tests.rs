use super::*;

fn linear(constant: f64, coefficient: f64) -> LengthFunction {
    LengthFunction::Linear {
        constant,
        coefficient,
    }
}

fn sqrt(constant: f64, coefficient: f64) -> LengthFunction {
    LengthFunction::Sqrt {
        constant,
        coefficient,
    }
}

fn state() -> PolicyState {
    PolicyState::new(Scoring::end_to_end(), false, 22, sqrt(1.0, 1.15))
}

fn replay(policy: &str) -> Result<PolicyState, String> {
    let mut s = state();
    for setting in parse_policy(policy)? {
        s.apply(&setting)?;
    }
    Ok(s)
}

#[test]
fn every_label_of_bowtie2_s_policy_parses() {
    let s = replay(
        "MA=3;MMP=Q,5,1;NP=C2;RDG=6,2;RFG=7;MIN=L,-1,-1;NCEIL=L,0,0.2;SEED=1;SEEDLEN=18;\
         DPS=20;ROUNDS=3;IVAL=S,1,0.5",
    )
    .unwrap();
    let c = &s.scoring;
    assert_eq!(c.match_bonus, 3);
    assert_eq!((c.mismatch_max, c.mismatch_min), (5, 1));
    assert_eq!(c.n_penalty, 2);
    assert_eq!((c.read_gap_open, c.read_gap_extend), (6, 2));
    // An extension left out is the default's, as bowtie2 resets it.
    assert_eq!((c.ref_gap_open, c.ref_gap_extend), (7, 3));
    assert_eq!(c.min_score, linear(-1.0, -1.0));
    assert_eq!(c.n_ceiling, linear(0.0, 0.2));
    assert_eq!(s.seed_mismatches, Some(1));
    assert_eq!((s.seed_len, s.explicit_seed_len), (18, Some(18)));
    assert_eq!((s.fail_streak, s.rounds), (Some(20), Some(3)));
    assert_eq!(s.interval, sqrt(1.0, 0.5));
}

#[test]
fn later_settings_win_and_functions_keep_the_terms_left_out() {
    let s = replay("SEEDLEN=18;SEEDLEN=25;IVAL=L;IVAL=G,3").unwrap();
    assert_eq!(s.seed_len, 25);
    // IVAL=L keeps the preset's terms, IVAL=G,3 its coefficient.
    assert_eq!(
        s.interval,
        LengthFunction::Log {
            constant: 3.0,
            coefficient: 1.15
        }
    );
    let s = replay("MMP=C3").unwrap();
    assert_eq!((s.scoring.mismatch_max, s.scoring.mismatch_min), (3, 3));
    let s = replay("MMP=Q").unwrap();
    assert_eq!((s.scoring.mismatch_max, s.scoring.mismatch_min), (6, 2));
    // NP=Q keeps the penalty (bowtie2's quality table runs from it to itself).
    let s = replay("NP=C3;NP=Q").unwrap();
    assert_eq!(s.scoring.n_penalty, 3);
    // A trailing `;` ends the string.
    assert_eq!(replay("SEEDLEN=20;").unwrap().seed_len, 20);
    // The preset's values are not the options': SEED/SEEDLEN unset stay `None`.
    assert_eq!(replay("MA=0").unwrap().explicit_seed_len, None);
}

#[test]
fn what_bowtie2_refuses_and_what_seqfarm_cannot_do_are_errors() {
    for (policy, says) in [
        ("FOO=1", "unknown setting"),
        ("MA", "LABEL=VALUE"),
        ("MA=1=2", "LABEL=VALUE"),
        ("MA=", "empty"),
        (";MA=1", "LABEL=VALUE"),
        ("IVAL=S,,2", "empty"),
        ("MA=1,2", "at most 1"),
        ("MA=x", "not a valid number"),
        ("MMP=X", "C, Q or R"),
        ("MMP=R", "Maq-rounded"),
        ("NP=R", "Maq-rounded"),
        ("NP=C", "not a valid number"),
        ("SEED=2", "greater than 1"),
        ("SEED=-1", "less than 0"),
        ("SEEDLEN=0", "at least 1"),
        ("DPS=-1", "not a valid number"),
        ("MIN=Q,1", "function type"),
        ("MIN=L,1,2,3", "bounds"),
        ("RDG=5,3,1", "at most 2"),
    ] {
        let e = replay(policy).unwrap_err();
        assert!(e.contains(says), "{policy}: {e}");
    }
}

#[test]
fn multiseed_is_seed_seedlen_and_ival() {
    assert_eq!(
        parse_multiseed("1,20,S,1,0.5").unwrap(),
        [
            Setting::SeedMismatches(1),
            Setting::SeedLen(20),
            Setting::Interval("S,1,0.5".into())
        ]
    );
    assert_eq!(parse_multiseed("0").unwrap(), [Setting::SeedMismatches(0)]);
    // Empty terms are skipped, as bowtie2's tokenizer skips them.
    assert_eq!(
        parse_multiseed("0,,18").unwrap(),
        [Setting::SeedMismatches(0), Setting::SeedLen(18)]
    );
    assert!(parse_multiseed("").is_err());
    assert!(parse_multiseed("0,20,S,1,2,3").is_err());
    assert!(parse_multiseed("2,20")
        .unwrap_err()
        .contains("greater than 1"));
}

#[test]
fn homopolymer_gaps_and_bwa_sw_scoring() {
    let mut s = PolicyState::new(Scoring::end_to_end(), true, 22, sqrt(1.0, 1.15));
    assert_eq!((s.scoring.read_gap_open, s.scoring.read_gap_extend), (3, 1));
    assert_eq!((s.scoring.ref_gap_open, s.scoring.ref_gap_extend), (3, 1));
    // With --454, an extension left out is 1.
    s.apply(&Setting::ReadGap(4, None)).unwrap();
    assert_eq!((s.scoring.read_gap_open, s.scoring.read_gap_extend), (4, 1));
    let mut s = PolicyState::new(Scoring::local(), false, 20, sqrt(1.0, 0.75));
    for setting in bwa_sw_settings() {
        s.apply(&setting).unwrap();
    }
    let c = &s.scoring;
    assert_eq!((c.match_bonus, c.mismatch_max, c.mismatch_min), (1, 3, 3));
    assert_eq!((c.read_gap_open, c.read_gap_extend), (5, 2));
    assert_eq!((c.ref_gap_open, c.ref_gap_extend), (5, 2));
}

#[test]
fn seed_mismatches_stay_below_the_seed_length() {
    let s = replay("SEED=1;SEEDLEN=1").unwrap();
    assert_eq!(s.effective_seed_mismatches(), Some(0));
    assert_eq!(
        replay("SEED=1").unwrap().effective_seed_mismatches(),
        Some(1)
    );
    assert_eq!(replay("MA=0").unwrap().effective_seed_mismatches(), None);
}

#[test]
fn n_ceil_shorthand_is_linear() {
    assert_eq!(
        n_ceil_setting("0,0.15").unwrap(),
        Setting::NCeil("L,0,0.15".into())
    );
    assert_eq!(n_ceil_setting("C,2").unwrap(), Setting::NCeil("C,2".into()));
    assert!(n_ceil_setting("Q,1").unwrap_err().contains("--n-ceil"));
}
