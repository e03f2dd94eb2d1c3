//! The pairing options (`-I -X --fr/--rf/--ff --no-mixed --no-discordant --dovetail
//! --no-contain --no-overlap` and their opposites), bowtie2's meaning each.

use seqfarm_align::{MateOrientation, PairParams};

use super::values::fragment_limit;

/// How mates make a concordant pair.
#[derive(Debug, Clone, clap::Args)]
#[command(next_help_heading = "Paired-end")]
pub struct PairingArgs {
    /// Shortest concordant fragment
    #[arg(short = 'I', long = "minins", value_name = "N", default_value_t = 0, value_parser = fragment_limit, allow_negative_numbers = true)]
    pub minins: u64,
    /// Longest concordant fragment
    #[arg(short = 'X', long = "maxins", value_name = "N", default_value_t = 500, value_parser = fragment_limit, allow_negative_numbers = true)]
    pub maxins: u64,
    /// Mate 1 forward, mate 2 reverse (the default)
    #[arg(long, group = "orientation")]
    pub fr: bool,
    /// Mate 1 reverse, mate 2 forward
    #[arg(long, group = "orientation")]
    pub rf: bool,
    /// Both mates forward
    #[arg(long, group = "orientation")]
    pub ff: bool,
    /// No unpaired alignments for pairs
    #[arg(long)]
    pub no_mixed: bool,
    /// No discordant alignments for pairs
    #[arg(long)]
    pub no_discordant: bool,
    /// Mates extending past each other may be concordant
    #[arg(long, overrides_with = "no_dovetail")]
    pub dovetail: bool,
    /// Mates extending past each other are not concordant (the default)
    #[arg(long, overrides_with = "dovetail")]
    pub no_dovetail: bool,
    /// Not concordant when one mate contains the other
    #[arg(long, overrides_with = "contain")]
    pub no_contain: bool,
    /// One mate containing the other may be concordant (the default)
    #[arg(long, overrides_with = "no_contain")]
    pub contain: bool,
    /// Not concordant when the mates overlap at all
    #[arg(long, overrides_with = "overlap")]
    pub no_overlap: bool,
    /// Overlapping mates may be concordant (the default)
    #[arg(long, overrides_with = "no_overlap")]
    pub overlap: bool,
}

impl PairingArgs {
    /// The pairing constraints, checked.
    pub fn pairing(&self) -> anyhow::Result<PairParams> {
        if self.maxins == 0 {
            option_error!("-X/--maxins must be at least 1 (no pair could be concordant)");
        }
        if self.minins > self.maxins {
            option_error!(
                "-I/--minins {} is greater than -X/--maxins {}",
                self.minins,
                self.maxins
            );
        }
        let orientation = if self.rf {
            MateOrientation::Rf
        } else if self.ff {
            MateOrientation::Ff
        } else {
            MateOrientation::Fr
        };
        Ok(PairParams {
            min_fragment: self.minins,
            max_fragment: self.maxins,
            orientation,
            mixed: !self.no_mixed,
            discordant: !self.no_discordant,
            dovetail: self.dovetail,
            contain: !self.no_contain,
            overlap: !self.no_overlap,
        })
    }
}
