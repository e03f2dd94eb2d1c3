//! End-to-end tests: the `seqfarm` binary run as a user would, one module per command.

mod support;

mod align;
mod cli;
mod index;
