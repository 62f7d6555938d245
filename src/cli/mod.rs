//! Subcommands of `kifulearn`, one module each.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod extract;
mod perft;

/// Learn a shogi evaluation function from game records, and play it over USI.
#[derive(Parser)]
#[command(name = "kifulearn", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Count the leaf nodes of the legal-move tree (checks the move generator).
    Perft(perft::Args),
    /// Extract labelled training rows (libsvm) from game records.
    Extract(extract::Args),
}

/// Parses the command line and runs the chosen command.
pub fn run() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Perft(args) => perft::run(args),
        Command::Extract(args) => extract::run(args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// Errors reaching the command line: any error, printed with its chain of causes.
pub type CliResult = Result<ExitCode, Box<dyn std::error::Error>>;
