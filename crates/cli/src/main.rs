//! `seqfarm`: one binary, one subcommand per job, each a task farm.
//!
//! This crate only glues layers together: each `cmd/<name>.rs` parses its arguments,
//! builds an emitter from the IO layer, a worker from a kernel crate and a collector,
//! and runs them on the farm.
#![forbid(unsafe_code)]

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod cmd;
mod common;
mod progress;

/// Sequence analysis as fast as the machine allows: every command is a task farm.
#[derive(Parser)]
#[command(name = "seqfarm", version, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    Index(cmd::index::IndexArgs),
    Locate(cmd::locate::LocateArgs),
    Align(cmd::align::AlignArgs),
}

impl Command {
    fn run(self) -> anyhow::Result<()> {
        match self {
            Command::Index(args) => args.run(),
            Command::Locate(args) => args.run(),
            Command::Align(args) => args.run(),
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command.run() {
        Ok(()) => ExitCode::SUCCESS,
        // `seqfarm ... | head`: the reader left; that is not an error.
        Err(e) if common::is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("seqfarm: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
