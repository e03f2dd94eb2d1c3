//! One module per subcommand: argument struct and the farm it runs.
pub mod count;
pub mod flagstat;
pub mod snp_pileup;
