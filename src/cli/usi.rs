//! `kifulearn usi [--evaluator FILE]`: play over the USI protocol on stdin/stdout.

use std::io;
use std::process::ExitCode;

use kifulearn::engine::usi::run as run_usi;
use kifulearn::eval::EvalChoice;

use super::CliResult;

#[derive(clap::Args)]
pub struct Args {
    /// Evaluator: a model file, or `material` for the built-in material evaluator.
    #[arg(long, alias = "model", default_value = kifulearn::eval::EvalChoice::MATERIAL)]
    evaluator: String,
}

pub fn run(args: Args) -> CliResult {
    let stdin = io::stdin().lock();
    run_usi(stdin, io::stdout(), EvalChoice::parse(&args.evaluator))?;
    Ok(ExitCode::SUCCESS)
}
