//! From the options to the aligner's parameters: the mode, the preset, bowtie2's
//! policy replayed in command-line order ([`super::policy`]), and bowtie2's seed search
//! options mapped onto seqfarm's search.

use seqfarm_align::mapq::{Bowtie2MapqVersion, MapqModel};
use seqfarm_align::scoring::LengthFunction;
use seqfarm_align::seed::Bowtie2Seeding;
use seqfarm_align::{AlignMode, AlignParams, Preset, Scoring};

use super::policy::{
    bwa_sw_settings, n_ceil_setting, parse_multiseed, parse_policy, MismatchRule, PolicyState,
    Setting,
};
use super::search::MapqChoice;
use super::values::int_pair;
use super::AlignArgs;

/// The presets by bowtie2's names (`--preset NAME`, and the flags without `-local`).
const PRESET_NAMES: [(&str, Preset); 4] = [
    ("very-fast", Preset::VeryFast),
    ("fast", Preset::Fast),
    ("sensitive", Preset::Sensitive),
    ("very-sensitive", Preset::VerySensitive),
];

impl AlignArgs {
    /// Whether a `--*-local` preset, `--local` or `--bwa-sw-like` asks for local mode,
    /// with the conflicts bowtie2 leaves silent made errors.
    pub fn mode(&self) -> anyhow::Result<AlignMode> {
        let s = &self.search;
        let local_presets = [
            ("--very-fast-local", s.very_fast_local),
            ("--fast-local", s.fast_local),
            ("--sensitive-local", s.sensitive_local),
            ("--very-sensitive-local", s.very_sensitive_local),
        ];
        let local_preset = local_presets.iter().find(|(_, on)| *on).map(|(n, _)| *n);
        let local_by = local_preset.or(s.bwa_sw_like.then_some("--bwa-sw-like"));
        if let (Some(option), true) = (local_by, s.end_to_end) {
            option_error!("{option} aligns locally; it cannot be used with --end-to-end");
        }
        Ok(if s.local || local_by.is_some() {
            AlignMode::Local
        } else {
            AlignMode::EndToEnd
        })
    }

    /// The preset, and the mode whose bowtie2 seeds it has: the run's mode for the
    /// preset flags (bowtie2 reads `--very-fast --local` as `--very-fast-local`), the
    /// name's for `--preset` (`--preset very-fast-local` has the local seeds in either
    /// mode, and does not set it). Two presets are an error.
    pub fn preset(&self) -> anyhow::Result<(Preset, AlignMode)> {
        let s = &self.search;
        let flags = [
            (
                "--very-fast",
                s.very_fast || s.very_fast_local,
                Preset::VeryFast,
            ),
            ("--fast", s.fast || s.fast_local, Preset::Fast),
            (
                "--sensitive",
                s.sensitive || s.sensitive_local,
                Preset::Sensitive,
            ),
            (
                "--very-sensitive",
                s.very_sensitive || s.very_sensitive_local,
                Preset::VerySensitive,
            ),
        ];
        let names = [
            ("--very-fast", s.very_fast),
            ("--fast", s.fast),
            ("--sensitive", s.sensitive),
            ("--very-sensitive", s.very_sensitive),
            ("--very-fast-local", s.very_fast_local),
            ("--fast-local", s.fast_local),
            ("--sensitive-local", s.sensitive_local),
            ("--very-sensitive-local", s.very_sensitive_local),
            ("--preset", s.preset_name.is_some()),
        ];
        let chosen: Vec<&str> = names
            .iter()
            .filter(|(_, on)| *on)
            .map(|(n, _)| *n)
            .collect();
        if chosen.len() > 1 {
            option_error!("{} and {} cannot be used together", chosen[0], chosen[1]);
        }
        let mode = self.mode()?;
        if let Some(name) = &s.preset_name {
            let (base, seeds) = match name.strip_suffix("-local") {
                Some(base) => (base, AlignMode::Local),
                None => (name.as_str(), AlignMode::EndToEnd),
            };
            let preset = PRESET_NAMES
                .iter()
                .find(|(n, _)| *n == base)
                .map(|(_, p)| *p)
                .ok_or_else(|| {
                    anyhow::anyhow!(
                        "--preset {name:?}: unknown preset (very-fast, fast, sensitive, \
                         very-sensitive, each with or without -local)"
                    )
                })?;
            return Ok((preset, seeds));
        }
        let preset = flags
            .iter()
            .find(|(_, on, _)| *on)
            .map_or(Preset::Sensitive, |(_, _, p)| *p);
        Ok((preset, mode))
    }

    /// The settings option `id`'s `k`-th value stands for, with the option's name.
    fn settings_of(&self, id: &str, k: usize) -> anyhow::Result<(&'static str, Vec<Setting>)> {
        let (s, c) = (&self.search, &self.scores);
        let one = |setting: Option<Setting>| setting.into_iter().collect::<Vec<_>>();
        let gap = |option: &str, text: &Option<String>, read: bool| -> anyhow::Result<_> {
            Ok(match text {
                Some(text) => {
                    let (open, extend) = int_pair(option, text)?;
                    vec![if read {
                        Setting::ReadGap(open, extend)
                    } else {
                        Setting::RefGap(open, extend)
                    }]
                }
                None => Vec::new(),
            })
        };
        let checked = |option: &str, text: &str, settings: Result<Vec<Setting>, String>| {
            settings.map_err(|e| anyhow::anyhow!("{option} {text:?}: {e}"))
        };
        Ok(match id {
            "seed_mismatches" => ("-N", one(s.seed_mismatches.map(Setting::SeedMismatches))),
            "seed_len" => ("-L", one(s.seed_len.map(|l| Setting::SeedLen(l as usize)))),
            "seed_interval" => ("-i", one(s.seed_interval.clone().map(Setting::Interval))),
            "extend_tries" => (
                "-D",
                one(s.extend_tries.map(|d| Setting::FailStreak(d.into()))),
            ),
            "reseeds" => ("-R", one(s.reseeds.map(|r| Setting::Rounds(r.into())))),
            "multiseed" => match s.multiseed.get(k) {
                Some(text) => (
                    "--multiseed",
                    checked("--multiseed", text, parse_multiseed(text))?,
                ),
                None => ("--multiseed", Vec::new()),
            },
            // bowtie2 skips an empty policy.
            "policy" => match s.policy.get(k).filter(|t| !t.is_empty()) {
                Some(text) => ("--policy", checked("--policy", text, parse_policy(text))?),
                None => ("--policy", Vec::new()),
            },
            "bwa_sw_like" => ("--bwa-sw-like", bwa_sw_settings()),
            "ma" => ("--ma", one(c.ma.map(Setting::MatchBonus))),
            "mp" => match &c.mp {
                Some(text) => {
                    let (max, min) = int_pair("--mp", text)?;
                    let rule = MismatchRule::Quality {
                        max: Some(max),
                        min,
                    };
                    ("--mp", vec![Setting::Mismatch(rule)])
                }
                None => ("--mp", Vec::new()),
            },
            "np" => ("--np", one(c.np.map(|n| Setting::NPenalty(Some(n))))),
            "rdg" => ("--rdg", gap("--rdg", &c.rdg, true)?),
            "rfg" => ("--rfg", gap("--rfg", &c.rfg, false)?),
            "score_min" => match &c.score_min {
                Some(text) => {
                    LengthFunction::parse(text, LengthFunction::Constant { constant: 0.0 })
                        .map_err(|e| anyhow::anyhow!("--score-min {e}"))?;
                    ("--score-min", vec![Setting::MinScore(text.clone())])
                }
                None => ("--score-min", Vec::new()),
            },
            "n_ceil" => match &c.n_ceil {
                Some(text) => (
                    "--n-ceil",
                    vec![n_ceil_setting(text).map_err(anyhow::Error::msg)?],
                ),
                None => ("--n-ceil", Vec::new()),
            },
            other => unreachable!("{other} is not an ordered option"),
        })
    }

    /// bowtie2's policy after every scoring and seed option, in command-line order, on
    /// top of the mode's defaults and the preset's seeds.
    pub fn policy(&self) -> anyhow::Result<PolicyState> {
        let mode = self.mode()?;
        let (preset, seeds_mode) = self.preset()?;
        let seeds = Bowtie2Seeding::for_preset(seeds_mode, preset);
        let mut state = PolicyState::new(
            Scoring::for_mode(mode),
            self.search.noisy_homopolymers,
            seeds.len,
            seeds.interval,
        );
        for &(id, k) in &self.order.sequence {
            let (option, settings) = self.settings_of(id, k)?;
            for setting in &settings {
                state
                    .apply(setting)
                    .map_err(|e| anyhow::anyhow!("{option} {e}"))?;
            }
        }
        Ok(state)
    }

    /// The scoring scheme the options describe (checked: see [`Scoring::check`]).
    pub fn scoring(&self) -> anyhow::Result<Scoring> {
        let mode = self.mode()?;
        let mut s = self.policy()?.scoring;
        if let Some(g) = self.scores.gbar {
            s.gap_barrier = g as usize;
        }
        s.bwa_sw_minimum = self.search.bwa_sw_like;
        s.check().map_err(|e| anyhow::anyhow!("{e}"))?;
        // Bowtie2 checks --ma against --score-min in both modes but adds the bonus
        // only in local mode.
        if mode == AlignMode::EndToEnd {
            s.match_bonus = 0;
        }
        Ok(s)
    }

    /// The mapping quality model (`--mapq`, `--mapq-v`).
    pub fn mapq_model(&self) -> anyhow::Result<MapqModel> {
        Ok(match (self.search.mapq, self.search.mapq_v) {
            (MapqChoice::Calibrated, Some(v)) => option_error!(
                "--mapq-v {v} picks one of bowtie2's MAPQ models; it cannot be used with \
                 --mapq calibrated"
            ),
            (MapqChoice::Calibrated, None) => MapqModel::Calibrated,
            (MapqChoice::Bowtie2, v) => {
                MapqModel::Bowtie2(v.map_or_else(Bowtie2MapqVersion::default, |n| {
                    Bowtie2MapqVersion::from_number(n)
                }))
            }
        })
    }

    /// The aligner's parameters: mode, preset, scoring, bowtie2's seeds, and bowtie2's
    /// search options mapped onto seqfarm's search (docs/ALIGNER.md, "bowtie2 options").
    pub fn params(&self) -> anyhow::Result<AlignParams> {
        let s = &self.search;
        if s.nofw && s.norc {
            option_error!("--nofw and --norc together leave no strand to align");
        }
        let mode = self.mode()?;
        let (preset, _) = self.preset()?;
        let policy = self.policy()?;
        let search_preset = if policy.effective_seed_mismatches() == Some(1) {
            Preset::VerySensitive
        } else {
            preset
        };
        let mut p = AlignParams::new(mode, search_preset);
        p.scoring = self.scoring()?;
        p.bowtie2_seeding = Bowtie2Seeding {
            len: policy.seed_len,
            interval: policy.interval,
        };
        if let Some(l) = policy.explicit_seed_len {
            p.min_seed_len = (l.min(32) as u32).max(12);
            p.rescue_seed_len = p.rescue_seed_len.min(p.min_seed_len);
        }
        if let Some(d) = policy.fail_streak {
            // -D 15 (the default) keeps the preset's candidates; more or fewer scale
            // them, within sensible limits.
            let scaled = (p.max_candidates as u64).saturating_mul(d) / 15;
            p.max_candidates = scaled.clamp(4, 256) as usize;
        }
        if let Some(r) = policy.rounds {
            // -R 2 (the default) keeps the preset's re-seeding of repeats.
            p.reseed_max_occ = (p.reseed_max_occ.saturating_mul(r.max(1)) / 2).max(1);
        }
        if s.report == Some(0) {
            option_error!("-k 0: -k must be at least 1");
        }
        p.report = if s.all {
            p.max_candidates.max(AlignParams::default().max_candidates)
        } else {
            s.report.unwrap_or(1) as usize
        };
        p.align_forward = !s.nofw;
        p.align_reverse = !s.norc;
        p.tie_seed = s.seed;
        p.mapq = self.mapq_model()?;
        Ok(p)
    }
}
