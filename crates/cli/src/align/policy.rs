//! bowtie2's alignment policy. bowtie2 turns its scoring and seed options into one
//! string of `LABEL=VALUE` settings, in command-line order after its preset's
//! (`-L 20` is `SEEDLEN=20`, `--mp 4` is `MMP=Q,4`, `--bwa-sw-like` is
//! `MA=1;MMP=C3;RDG=5,2;RFG=5,2`), appends `--policy`'s string and `--multiseed`'s
//! settings where they stand, and reads the whole string left to right: the last
//! setting of a label counts, and a function setting with some terms left out keeps
//! the others from the settings before it. [`Setting`] is one such setting and
//! [`parse_policy`] reads `--policy`'s string as bowtie2's `SeedAlignmentPolicy::
//! parseString` does; [`PolicyState`] replays them.

use seqfarm_align::scoring::{LengthFunction, Scoring};

use super::values::{n_ceil_function, truncated_int};

/// bowtie2's default smallest mismatch penalty (`MMP=Q,MX` leaves MN at it).
const DEFAULT_MISMATCH_MIN: i32 = 2;

/// How mismatches are charged (`MMP=`).
#[derive(Debug, Clone, PartialEq)]
pub enum MismatchRule {
    /// `MMP=Cxx`: every mismatch costs xx, whatever the quality.
    Constant(i32),
    /// `MMP=Q[,MX[,MN]]` (`--mp MX[,MN]`): MN at quality 0 to MX at quality 40; MX 6
    /// and MN 2 where left out (a lone MX below 2 lowers MN with it).
    Quality {
        /// MX.
        max: Option<i32>,
        /// MN.
        min: Option<i32>,
    },
}

/// One setting of bowtie2's policy string.
#[derive(Debug, Clone, PartialEq)]
pub enum Setting {
    /// `MA=xx` (`--ma`): the match bonus.
    MatchBonus(i32),
    /// `MMP=` (`--mp`): the mismatch penalties.
    Mismatch(MismatchRule),
    /// `NP=Cxx` (`--np`): the N penalty; `None` for `NP=Q`, which in bowtie2 keeps the
    /// penalty as it is (its quality table runs from the penalty to itself).
    NPenalty(Option<i32>),
    /// `RDG=OPEN[,EXTEND]` (`--rdg`): an extension left out is the default's.
    ReadGap(i32, Option<i32>),
    /// `RFG=OPEN[,EXTEND]` (`--rfg`).
    RefGap(i32, Option<i32>),
    /// `MIN=` (`--score-min`): a function, terms left out kept.
    MinScore(String),
    /// `NCEIL=` (`--n-ceil`).
    NCeil(String),
    /// `SEED=` (`-N`): mismatches in a seed, 0 or 1.
    SeedMismatches(u8),
    /// `SEEDLEN=` (`-L`).
    SeedLen(usize),
    /// `DPS=` (`-D`): failed extensions in a row before giving up.
    FailStreak(u64),
    /// `ROUNDS=` (`-R`): re-seeding rounds.
    Rounds(u64),
    /// `IVAL=` (`-i`): the interval between seeds, a function.
    Interval(String),
}

/// Parses `--policy`'s string, `LABEL=VALUE[;LABEL=VALUE...]`, as bowtie2 reads it:
/// labels `MA MMP NP RDG RFG MIN NCEIL SEED SEEDLEN DPS ROUNDS IVAL`, values split at
/// commas, no empty term. Where bowtie2 reads a number that is not one as 0, this is an
/// error; so are the Maq-rounded quality models (`MMP=R`, `NP=R`), which seqfarm's
/// scoring does not have, and the fourth and fifth terms of a function (bowtie2's
/// bounds on its value).
pub fn parse_policy(text: &str) -> Result<Vec<Setting>, String> {
    // A trailing `;` ends the string (bowtie2 reads the last setting up to it).
    let body = text.strip_suffix(';').unwrap_or(text);
    body.split(';').map(parse_setting).collect()
}

fn parse_setting(text: &str) -> Result<Setting, String> {
    let mut sides = text.split('=');
    let (Some(label), Some(value), None) = (sides.next(), sides.next(), sides.next()) else {
        return Err(format!("{text:?}: a setting is LABEL=VALUE"));
    };
    let mut terms: Vec<&str> = value.split(',').collect();
    if terms.last() == Some(&"") {
        terms.pop();
    }
    if terms.is_empty() || terms.contains(&"") {
        return Err(format!("{text:?}: an empty value or term"));
    }
    let int = |t: &str| truncated_int::<i32>(t).map_err(|e| format!("{text:?}: {e}"));
    let count = |t: &str| truncated_int::<u64>(t).map_err(|e| format!("{text:?}: {e}"));
    let at_most = |n: usize| {
        if terms.len() > n {
            Err(format!("{text:?}: at most {n} term(s)"))
        } else {
            Ok(())
        }
    };
    let function = || -> Result<String, String> {
        if terms.len() > 3 {
            return Err(format!(
                "{text:?}: a function is TYPE[,CONSTANT[,COEFFICIENT]] (bowtie2's bounds on \
                 its value, a fourth and fifth term, are not supported)"
            ));
        }
        let joined = terms.join(",");
        LengthFunction::parse(&joined, LengthFunction::Constant { constant: 0.0 })
            .map_err(|e| format!("{label}={e}"))?;
        Ok(joined)
    };
    let rounded = || {
        Err(format!(
            "{text:?}: Maq-rounded quality penalties (R) are not supported; use C (constant) \
             or Q (by quality)"
        ))
    };
    Ok(match label {
        "MA" => {
            at_most(1)?;
            Setting::MatchBonus(int(terms[0])?)
        }
        "MMP" => {
            at_most(3)?;
            let first = terms[0];
            if let Some(penalty) = first.strip_prefix('C') {
                at_most(1)?;
                Setting::Mismatch(MismatchRule::Constant(int(penalty)?))
            } else if first == "Q" {
                Setting::Mismatch(MismatchRule::Quality {
                    max: terms.get(1).map(|t| int(t)).transpose()?,
                    min: terms.get(2).map(|t| int(t)).transpose()?,
                })
            } else if first.starts_with('R') {
                return rounded();
            } else {
                return Err(format!("{text:?}: MMP must start with C, Q or R"));
            }
        }
        "NP" => {
            at_most(1)?;
            let first = terms[0];
            if let Some(penalty) = first.strip_prefix('C') {
                Setting::NPenalty(Some(int(penalty)?))
            } else if first == "Q" {
                Setting::NPenalty(None)
            } else if first.starts_with('R') {
                return rounded();
            } else {
                return Err(format!("{text:?}: NP must start with C, Q or R"));
            }
        }
        "RDG" | "RFG" => {
            at_most(2)?;
            let open = int(terms[0])?;
            let extend = terms.get(1).map(|t| int(t)).transpose()?;
            if label == "RDG" {
                Setting::ReadGap(open, extend)
            } else {
                Setting::RefGap(open, extend)
            }
        }
        "MIN" => Setting::MinScore(function()?),
        "NCEIL" => Setting::NCeil(function()?),
        "IVAL" => Setting::Interval(function()?),
        "SEED" => {
            at_most(1)?;
            Setting::SeedMismatches(seed_mismatches(int(terms[0])?)?)
        }
        "SEEDLEN" => {
            at_most(1)?;
            let len = int(terms[0])?;
            if len < 1 {
                return Err(format!("{text:?}: the seed length must be at least 1"));
            }
            Setting::SeedLen(len as usize)
        }
        "DPS" => {
            at_most(1)?;
            Setting::FailStreak(count(terms[0])?)
        }
        "ROUNDS" => {
            at_most(1)?;
            Setting::Rounds(count(terms[0])?)
        }
        other => {
            return Err(format!(
                "{text:?}: unknown setting {other:?} (MA, MMP, NP, RDG, RFG, MIN, NCEIL, SEED, \
                 SEEDLEN, DPS, ROUNDS or IVAL)"
            ))
        }
    })
}

/// A seed's mismatches as bowtie2 checks `SEED=`/`-N`: 0 or 1.
fn seed_mismatches(n: i32) -> Result<u8, String> {
    match n {
        0 | 1 => Ok(n as u8),
        n if n > 1 => Err(format!(
            "-N was set to {n}, but cannot be set greater than 1"
        )),
        n => Err(format!("-N was set to a number less than 0 ({n})")),
    }
}

/// `--multiseed MMS[,LEN[,TYPE[,CONSTANT[,COEFFICIENT]]]]`: bowtie2's older spelling
/// of `-N`, `-L` and `-i` together (empty terms skipped, as bowtie2's tokenizer does).
pub fn parse_multiseed(text: &str) -> Result<Vec<Setting>, String> {
    let terms: Vec<&str> = text.split(',').filter(|t| !t.is_empty()).collect();
    if terms.is_empty() || terms.len() > 5 {
        return Err(format!(
            "{text:?}: expected 1 to 5 comma-separated terms, MMS[,LEN[,TYPE[,CONSTANT[,COEFFICIENT]]]]"
        ));
    }
    let mut settings = vec![parse_setting(&format!("SEED={}", terms[0]))?];
    if let Some(len) = terms.get(1) {
        settings.push(parse_setting(&format!("SEEDLEN={len}"))?);
    }
    if terms.len() > 2 {
        settings.push(parse_setting(&format!("IVAL={}", terms[2..].join(",")))?);
    }
    Ok(settings)
}

/// `--n-ceil`'s value as a policy setting (its `A[,B]` shorthand a linear function).
pub fn n_ceil_setting(text: &str) -> Result<Setting, String> {
    n_ceil_function(text, LengthFunction::Constant { constant: 0.0 }).map_err(|e| e.to_string())?;
    let first = text.split(',').next().unwrap_or("");
    Ok(Setting::NCeil(if first.parse::<f64>().is_ok() {
        format!("L,{text}")
    } else {
        text.to_string()
    }))
}

/// `--bwa-sw-like`'s settings: BWA-SW's scoring (match 1, mismatch 3, gaps 5+2k).
pub fn bwa_sw_settings() -> Vec<Setting> {
    vec![
        Setting::MatchBonus(1),
        Setting::Mismatch(MismatchRule::Constant(3)),
        Setting::ReadGap(5, Some(2)),
        Setting::RefGap(5, Some(2)),
    ]
}

/// The scoring and seed settings the policy leaves: what its settings set, on top of
/// bowtie2's defaults for the mode and the preset's seeds.
#[derive(Debug, Clone, PartialEq)]
pub struct PolicyState {
    /// The scoring scheme.
    pub scoring: Scoring,
    /// Gap extension penalty where a gap setting leaves it out (3; 1 with `--454`).
    pub default_gap_extend: i32,
    /// bowtie2's seed length (the preset's, or the last `SEEDLEN=`).
    pub seed_len: usize,
    /// bowtie2's seed interval (the preset's, with the `IVAL=` settings applied).
    pub interval: LengthFunction,
    /// The last `SEED=` given by an option, if any (the preset's is 0).
    pub seed_mismatches: Option<u8>,
    /// The last `SEEDLEN=` given by an option, if any.
    pub explicit_seed_len: Option<usize>,
    /// The last `DPS=` given by an option, if any.
    pub fail_streak: Option<u64>,
    /// The last `ROUNDS=` given by an option, if any.
    pub rounds: Option<u64>,
}

impl PolicyState {
    /// The state before any option's setting: `scoring` (bowtie2's defaults for the
    /// mode; with `noisy_homopolymers`, `--454`'s gaps of 3+1k) and the preset's seeds.
    pub fn new(
        mut scoring: Scoring,
        noisy_homopolymers: bool,
        seed_len: usize,
        interval: LengthFunction,
    ) -> Self {
        let default_gap_extend = if noisy_homopolymers {
            scoring.read_gap_open = 3;
            scoring.ref_gap_open = 3;
            scoring.read_gap_extend = 1;
            scoring.ref_gap_extend = 1;
            1
        } else {
            scoring.read_gap_extend
        };
        Self {
            scoring,
            default_gap_extend,
            seed_len,
            interval,
            seed_mismatches: None,
            explicit_seed_len: None,
            fail_streak: None,
            rounds: None,
        }
    }

    /// Applies one setting (a function's terms on top of the current ones); the error
    /// says what is wrong with the value.
    pub fn apply(&mut self, setting: &Setting) -> Result<(), String> {
        let s = &mut self.scoring;
        match setting {
            Setting::MatchBonus(bonus) => s.match_bonus = *bonus,
            Setting::Mismatch(MismatchRule::Constant(penalty)) => {
                s.mismatch_max = *penalty;
                s.mismatch_min = *penalty;
            }
            Setting::Mismatch(MismatchRule::Quality { max, min }) => {
                let max = max.unwrap_or(Scoring::end_to_end().mismatch_max);
                s.mismatch_max = max;
                // A lone MX below the default MN lowers MN with it, so `--mp 1` is valid.
                s.mismatch_min = min.unwrap_or(DEFAULT_MISMATCH_MIN.min(max));
            }
            Setting::NPenalty(penalty) => {
                if let Some(p) = penalty {
                    s.n_penalty = *p;
                }
            }
            Setting::ReadGap(open, extend) => {
                s.read_gap_open = *open;
                s.read_gap_extend = extend.unwrap_or(self.default_gap_extend);
            }
            Setting::RefGap(open, extend) => {
                s.ref_gap_open = *open;
                s.ref_gap_extend = extend.unwrap_or(self.default_gap_extend);
            }
            Setting::MinScore(f) => s.min_score = LengthFunction::parse(f, s.min_score)?,
            Setting::NCeil(f) => s.n_ceiling = LengthFunction::parse(f, s.n_ceiling)?,
            Setting::SeedMismatches(n) => self.seed_mismatches = Some(*n),
            Setting::SeedLen(len) => {
                self.seed_len = *len;
                self.explicit_seed_len = Some(*len);
            }
            Setting::FailStreak(n) => self.fail_streak = Some(*n),
            Setting::Rounds(n) => self.rounds = Some(*n),
            Setting::Interval(f) => self.interval = LengthFunction::parse(f, self.interval)?,
        }
        Ok(())
    }

    /// The seed mismatches bowtie2 searches with: the last `SEED=`, fewer than the seed
    /// length (bowtie2 lowers them with a warning).
    pub fn effective_seed_mismatches(&self) -> Option<u8> {
        self.seed_mismatches
            .map(|n| n.min(self.seed_len.saturating_sub(1).min(1) as u8))
    }
}

#[cfg(test)]
#[path = "policy_tests.rs"]
mod tests;
