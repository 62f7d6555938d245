//! The `kifulearn` command line: argument parsing, progress bars and printing.
//! All the work is done by the library; see `src/cli/` for one file per command.

mod cli;

fn main() -> std::process::ExitCode {
    cli::run()
}
