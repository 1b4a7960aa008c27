//! The `analyze` and `check` subcommands of the kerncast CLI, built with the test crate so the
//! example-project tests have a kerncast binary (`CARGO_BIN_EXE_kerncast-gate`) without running
//! a nested `cargo build` on the workspace while `cargo test` holds its lock. Same library code
//! as the real CLI.

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "kerncast")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    Analyze(kerncast::ops::analyze::Args),
    Check(kerncast::ops::check::Args),
}

fn main() -> miette::Result<()> {
    match Cli::parse().command {
        Command::Analyze(a) => kerncast_cli::commands::analyze::run(a),
        Command::Check(a) => kerncast_cli::commands::check::run(a),
    }
}
