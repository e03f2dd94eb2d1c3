//! End-to-end tests: the `seqfarm` binary run as a user would, one module per command.

mod support;

mod align;
mod cli;
mod count;
mod flagstat;
mod index;
mod search;
mod snp_pileup;
