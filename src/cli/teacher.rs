//! The `--teacher-usi` option group shared by `generate` and `positions --relabel`
//! (`docs/teacher.md`).

use std::time::Duration;

use kifulearn::teacher::{TeacherSpec, DEFAULT_DEPTH, DEFAULT_HASH_MB, DEFAULT_SCALE};

use super::help_with_default;

#[derive(clap::Args, Clone, Debug)]
pub struct TeacherArgs {
    /// A USI engine that scores every position instead of our search, e.g.
    /// "/usr/games/fairy-stockfish" (one process per thread; quotes split like a shell).
    #[arg(long = "teacher-usi", alias = "teacher", value_name = "CMD")]
    pub teacher: Option<String>,
    // The teacher's `go depth N`; unset, TeacherSpec::limit_depth applies
    // DEFAULT_DEPTH unless --teacher-nodes is given, and the help says it.
    #[arg(long, value_name = "N", requires = "teacher", help = help_with_default(
        "The teacher's `go depth N`",
        format_args!("{DEFAULT_DEPTH} when --teacher-nodes is not given"),
    ))]
    pub teacher_depth: Option<u32>,
    /// The teacher's `go nodes N` instead of a depth.
    #[arg(
        long,
        value_name = "N",
        requires = "teacher",
        conflicts_with = "teacher_depth"
    )]
    pub teacher_nodes: Option<u64>,
    /// The teacher's hash (`Hash`/`USI_Hash`), megabytes.
    #[arg(long, value_name = "MB", default_value_t = DEFAULT_HASH_MB)]
    pub teacher_hash: usize,
    // Unset, `usi_client::search_timeout`, whose rule the help states.
    #[arg(long, value_name = "SECONDS", requires = "teacher", help = crate::cli::help_with_default(
        "Seconds to wait for a `bestmove` before the teacher counts as hung",
        kifulearn::usi_client::search_timeout_rule(),
    ))]
    pub teacher_timeout: Option<f64>,
    /// The teacher's centipawns are multiplied by this (default measured for
    /// Fairy-Stockfish against our material scale, docs/teacher.md).
    #[arg(long, value_name = "F", default_value_t = DEFAULT_SCALE)]
    pub teacher_scale: f64,
    /// Relabelling: positions per teacher process; each batch gets a fresh
    /// process, so labels do not depend on --jobs.
    #[arg(long, value_name = "N", default_value_t = kifulearn::teacher::BATCH)]
    pub teacher_batch: usize,
    /// More engine options, NAME=VALUE (repeatable), sent after Threads/Hash.
    #[arg(long, value_name = "NAME=VALUE", requires = "teacher")]
    pub teacher_option: Vec<String>,
}

impl TeacherArgs {
    /// The spec, when `--teacher-usi` is given; errors name the option.
    pub fn spec(&self) -> Result<Option<TeacherSpec>, Box<dyn std::error::Error>> {
        let Some(command) = &self.teacher else {
            return Ok(None);
        };
        let timeout = match self.teacher_timeout {
            None => None,
            Some(s) if s.is_finite() && s > 0.0 => Some(Duration::from_secs_f64(s)),
            Some(s) => return Err(format!("--teacher-timeout {s}: expected seconds > 0").into()),
        };
        let mut options = Vec::new();
        for o in &self.teacher_option {
            options.push(
                kifulearn::usi_client::parse_option(o)
                    .ok_or_else(|| format!("--teacher-option {o:?}: expected NAME=VALUE"))?,
            );
        }
        let spec = TeacherSpec {
            command: command.clone(),
            depth: self.teacher_depth,
            nodes: self.teacher_nodes,
            hash_mb: self.teacher_hash.max(1),
            timeout,
            scale: self.teacher_scale,
            options,
        };
        spec.check()?;
        Ok(Some(spec))
    }
}
