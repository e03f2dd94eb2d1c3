//! One module per command: its options and the farm it runs.
pub mod align;
pub mod count;
pub mod depth;
pub mod flagstat;
pub mod index;
pub mod locate;
pub mod markdup;
pub mod search;
pub mod snp_pileup;
