//! The order the policy options came in. bowtie2 reads its scoring and seed options
//! as one policy string in command-line order (docs: [`super::policy`]), so that
//! `-L 20 --policy SEEDLEN=18` seeds with 18 and `--policy SEEDLEN=18 -L 20` with 20;
//! [`OptionOrder`] records where each such option stood. It adds no option of its own:
//! flattened into [`super::AlignArgs`] before the groups that declare those options, it
//! reads their positions from clap's matches before their values are taken out.

use clap::{ArgMatches, Args, Command, FromArgMatches};

/// The options whose settings bowtie2 reads in command-line order (clap's ids).
pub const ORDERED: [&str; 15] = [
    "seed_mismatches",
    "seed_len",
    "seed_interval",
    "extend_tries",
    "reseeds",
    "multiseed",
    "policy",
    "bwa_sw_like",
    "ma",
    "mp",
    "np",
    "rdg",
    "rfg",
    "score_min",
    "n_ceil",
];

/// Where each policy option's values stood on the command line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OptionOrder {
    /// `(id, occurrence)`: the option's clap id and which of its values (for repeatable
    /// ones; 0 for the others, whose last value counts), in command-line order.
    pub sequence: Vec<(&'static str, usize)>,
}

impl OptionOrder {
    fn read(matches: &ArgMatches) -> Self {
        let mut at: Vec<(usize, &'static str, usize)> = Vec::new();
        for id in ORDERED {
            let Ok(Some(indices)) = matches.try_get_raw(id).map(|_| matches.indices_of(id)) else {
                continue;
            };
            if !matches!(
                matches.value_source(id),
                Some(clap::parser::ValueSource::CommandLine)
            ) {
                continue;
            }
            at.extend(indices.enumerate().map(|(k, index)| (index, id, k)));
        }
        at.sort_unstable();
        Self {
            sequence: at.into_iter().map(|(_, id, k)| (id, k)).collect(),
        }
    }
}

impl FromArgMatches for OptionOrder {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        Ok(Self::read(matches))
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::read(matches);
        Ok(())
    }
}

impl Args for OptionOrder {
    fn augment_args(cmd: Command) -> Command {
        cmd
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        cmd
    }
}
