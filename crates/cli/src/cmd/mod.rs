//! One module per subcommand: argument struct and the farm it runs.
pub mod align;
pub mod index;
pub mod locate;
