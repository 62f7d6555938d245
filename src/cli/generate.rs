//! `kifulearn generate --out DIR [...]`: self-play position generation
//! (`docs/generate.md`).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use kifulearn::eval::{load_evaluator, EvalChoice};
use kifulearn::generate::{
    generate, generation_openings, GenerateConfig, Shard, Target, BUNDLED_OPENINGS_NAME,
    DEFAULT_DEPTH, DEFAULT_POSITIONS, DEPTHS,
};
use kifulearn::positions::PositionFormat;

use super::teacher::TeacherArgs;
use super::{verbosity, CliResult};

/// The defaults: `GenerateConfig::default()`, the one definition (a
/// recipe's self-play rounds start from it too, `Recipe::generate_config`).
fn defaults() -> GenerateConfig {
    GenerateConfig::default()
}

#[derive(clap::Args)]
pub struct Args {
    /// Output folder: DIR/positions/NNNNNN.psv|hcpe, DIR/games/NNNNNN.csa, DIR/generate.toml.
    #[arg(long)]
    out: PathBuf,
    /// Evaluator of both sides: `material` or a model file.
    #[arg(long, default_value_t = defaults().evaluator)]
    evaluator: String,
    /// Search depth of every move, unless --nodes is given.
    #[arg(long, default_value_t = DEFAULT_DEPTH, value_parser = |s: &str| DEPTHS.parse(s))]
    depth: u32,
    /// Node limit of every move (counted, so deterministic), instead of --depth.
    #[arg(long, conflicts_with = "depth")]
    nodes: Option<u64>,
    /// Positions to have written (a resumed run's included); the run stops at
    /// the end of the chunk that reaches it.
    #[arg(long, default_value_t = DEFAULT_POSITIONS)]
    positions: u64,
    /// Play the games 0..M (the shard's share of them) instead of stopping
    /// at a positions target: the shards 0/N .. N-1/N of such a run add up
    /// to it (`kifulearn dataset merge`).
    #[arg(long, conflicts_with = "positions")]
    games: Option<u64>,
    /// More opening lines (`startpos moves ...`), added to the bundled
    /// fixtures/floodgate-30.sfen. Lines ending in a test opening's position
    /// (fixtures/openings/match.sfen) are refused with a warning.
    #[arg(long)]
    openings: Option<PathBuf>,
    /// Plies after the opening during which random moves may be played.
    #[arg(long, default_value_t = defaults().random_plies)]
    random_plies: u32,
    /// Probability of a uniformly random legal move in each of those plies.
    #[arg(long, default_value_t = defaults().random_prob)]
    random_prob: f64,
    /// Positions before this ply (counted from the start position) are not written.
    #[arg(long, default_value_t = defaults().skip_plies)]
    skip_plies: u32,
    /// Scores are clamped to ±CP; a game whose score reaches it is adjudicated.
    #[arg(long, default_value_t = defaults().eval_limit)]
    eval_limit: i32,
    /// Plies from the start position (opening included) after which a game is drawn.
    #[arg(long, default_value_t = defaults().max_plies)]
    max_plies: usize,
    /// Seed of the openings drawn and the random moves (mixed with the game index).
    #[arg(long, default_value_t = defaults().seed)]
    seed: u64,
    /// Threads playing games [default: all cores]. Changes no output.
    #[arg(long)]
    jobs: Option<usize>,
    /// Position file format: psv (YaneuraOu PackedSfenValue) or hcpe (cshogi).
    #[arg(long, default_value_t = defaults().format)]
    format: PositionFormat,
    /// Play only the games whose index ≡ K (mod N), with --games; give each
    /// shard its own --out, and join them with `kifulearn dataset merge`.
    #[arg(long, default_value_t = defaults().shard)]
    shard: Shard,
    /// Games (of the shard) per position file.
    #[arg(long, default_value_t = defaults().chunk_games)]
    chunk_games: u64,
    /// Megabytes of each side's transposition table.
    #[arg(long, default_value_t = defaults().hash_mb)]
    hash: usize,
    /// Remove the run already in --out (generate.toml, positions/, games/) and start over.
    #[arg(long)]
    force: bool,
    /// A USI engine scores the positions written (our search still plays).
    #[command(flatten)]
    teacher: TeacherArgs,
}

impl Args {
    /// The run's options, as the flags set them (the evaluator and the
    /// openings by name; neither is read here).
    fn config(&self) -> Result<GenerateConfig, Box<dyn std::error::Error>> {
        let openings = match &self.openings {
            Some(p) => format!("{BUNDLED_OPENINGS_NAME} + {}", p.display()),
            None => BUNDLED_OPENINGS_NAME.to_string(),
        };
        Ok(GenerateConfig {
            evaluator: EvalChoice::parse(&self.evaluator).name(),
            openings,
            // --nodes replaces --depth's default (clap refuses the two
            // given together).
            depth: self.nodes.is_none().then_some(self.depth),
            nodes: self.nodes,
            target: self
                .games
                .map_or(Target::Positions(self.positions), Target::Games),
            random_plies: self.random_plies,
            random_prob: self.random_prob,
            skip_plies: self.skip_plies,
            eval_limit: self.eval_limit,
            max_plies: self.max_plies,
            seed: self.seed,
            format: self.format,
            shard: self.shard,
            chunk_games: self.chunk_games,
            hash_mb: self.hash.max(1),
            jobs: self.jobs.unwrap_or(0),
            teacher: self.teacher.spec()?,
        })
    }
}

pub fn run(args: Args) -> CliResult {
    if args.jobs == Some(0) {
        return Err("--jobs 0: expected at least 1".into());
    }
    let cfg = args.config()?;
    let eval = load_evaluator(&EvalChoice::parse(&args.evaluator))?;
    let extra = match &args.openings {
        Some(path) => Some((
            std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?,
            path.clone(),
        )),
        None => None,
    };
    let set = generation_openings(extra.as_ref().map(|(t, p)| (t.as_str(), p.as_path())))?;
    if !set.refused.is_empty() {
        let lines: Vec<String> = set
            .refused
            .iter()
            .take(10)
            .map(|(file, line)| format!("{file}:{line}"))
            .collect();
        eprintln!(
            "warning: {} opening line(s) refused: they end in a test opening's position (fixtures/openings/match.sfen): {}{}",
            set.refused.len(),
            lines.join(", "),
            if set.refused.len() > 10 { ", ..." } else { "" }
        );
    }
    // -q: no bar and no summary; -v: a line per chunk on stderr.
    let bar = verbosity::bar(
        match cfg.target {
            Target::Positions(p) => p,
            Target::Games(_) => cfg.shard_games(),
        },
        &format!(
            "{{bar:40}} {{pos}}/{{len}} {} {{msg}} {{elapsed}}",
            cfg.target.option()
        ),
    )?;
    let started = Instant::now();
    let rate = |new: u64| new as f64 / started.elapsed().as_secs_f64().max(1e-9);
    let summary = generate(&eval, &set.openings, &cfg, &args.out, args.force, |p| {
        bar.set_position(p.done.min(p.target));
        bar.set_message(format!(
            "({} games, {:.0} positions/s)",
            p.games,
            rate(p.new_positions)
        ));
        if verbosity::verbose() {
            let line = format!(
                "{} positions ({} new), {} games, {:.0} positions/s",
                p.positions,
                p.new_positions,
                p.games,
                rate(p.new_positions)
            );
            bar.suspend(|| eprintln!("{line}"));
        }
    });
    bar.finish_and_clear();
    let summary = summary?;
    if !verbosity::quiet() {
        let new = summary.positions - summary.positions_before;
        let secs = started.elapsed().as_secs_f64();
        let endings: Vec<String> = summary
            .endings
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
        if summary.chunks_before > 0 {
            println!(
                "resumed after {} chunks, {} positions",
                summary.chunks_before, summary.positions_before
            );
        }
        println!(
            "positions: {} ({} new, {} duplicates left out), games: {} new, {:.1} plies a game, {:.1} s, {:.0} positions/s",
            summary.positions,
            new,
            summary.duplicates,
            summary.games,
            summary.plies as f64 / summary.games.max(1) as f64,
            secs,
            new as f64 / secs.max(1e-9)
        );
        if !endings.is_empty() {
            println!("endings: {}", endings.join(", "));
        }
        if let Some(spec) = &cfg.teacher {
            let t = &summary.teacher;
            println!(
                "teacher ({}): {} positions labelled, {} retried, {} skipped, {} restarts",
                spec.go_command(),
                t.labelled,
                t.retried,
                t.skipped,
                t.restarts
            );
        }
        println!("written to {}", args.out.display());
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::test_views::{changed, fields, keys};
    use clap::{Args as _, FromArgMatches};
    use kifulearn::pipeline::recipe::{Learner, Recipe};
    use std::collections::{BTreeMap, BTreeSet};

    /// The options `generate --out o ARGS...` sets, or clap's error.
    fn cli_config(args: &[&str]) -> Result<GenerateConfig, String> {
        let line = ["generate", "--out", "o"]
            .into_iter()
            .chain(args.iter().copied());
        let matches = Args::augment_args(clap::Command::new("generate"))
            .try_get_matches_from(line)
            .map_err(|e| e.to_string())?;
        let args = Args::from_arg_matches(&matches).map_err(|e| e.to_string())?;
        args.config().map_err(|e| e.to_string())
    }

    /// A self-play recipe with these `[learner]` lines, parsed and checked.
    fn selfplay_recipe(learner: &str) -> Result<Recipe, String> {
        let text =
            format!("[inputs]\npaths = [\"g\"]\n[learner]\nmethod = \"selfplay\"\n{learner}");
        Recipe::parse(&text, std::path::Path::new("r.toml")).map_err(|e| e.to_string())
    }

    fn view(cfg: &GenerateConfig) -> BTreeMap<String, String> {
        fields(&format!("{cfg:?}"))
    }

    /// Flags that set no option of the run: what to do with a run already
    /// in the folder, and clap's own.
    const NOT_OPTIONS: &[&str] = &["--out", "--force", "--help"];

    /// The fields a flag sets: its long name with `_` for `-`, but for these.
    fn fields_of(flag: &str) -> BTreeSet<String> {
        let names: &[&str] = match flag {
            "--positions" | "--games" => &["target"],
            "--hash" => &["hash_mb"],
            // A node limit replaces the default depth.
            "--nodes" => &["nodes", "depth"],
            flag if flag.starts_with("--teacher") => &["teacher"],
            flag => return BTreeSet::from([flag[2..].replace('-', "_")]),
        };
        names.iter().map(|n| n.to_string()).collect()
    }

    /// A value of `flag` other than its default `shown`.
    fn other_value(flag: &str, shown: Option<&str>) -> String {
        match (flag, shown) {
            ("--format", _) => "hcpe".into(),
            ("--shard", _) => "1/2".into(),
            ("--evaluator", _) => "other.model".into(),
            ("--openings", _) | ("--teacher-usi", _) => "extra".into(),
            ("--teacher-option", _) => "Threads=1".into(),
            (_, Some(d)) => match (d.parse::<i64>(), d.parse::<f64>()) {
                (Ok(n), _) => (n + 1).to_string(),
                (_, Ok(x)) => (x / 2.0).to_string(),
                _ => panic!("{flag}: no other value than {d}"),
            },
            (_, None) => "3".into(),
        }
    }

    /// The `[learner]` keys of self-play generation and the flag of
    /// `generate` that sets the same option.
    const RECIPE_KEYS: &[(&str, &str)] = &[
        ("generate_positions", "--positions"),
        ("generate_depth", "--depth"),
        ("generate_openings", "--openings"),
    ];

    /// No default of `generate` is written twice: `generate` with no flag
    /// builds `GenerateConfig::default()` (so every default `--help` shows
    /// is the struct's), each flag sets the option it names, each recipe
    /// key `generate_*` sets the option its flag sets, and a self-play
    /// recipe that sets none generates round 1 by material with
    /// `generate`'s defaults (later rounds differ in the seed alone).
    #[test]
    fn every_generate_flag_and_recipe_key_is_one_parameter() {
        let defaults = cli_config(&[]).unwrap();
        assert_eq!(
            defaults,
            GenerateConfig {
                depth: Some(DEFAULT_DEPTH),
                ..GenerateConfig::default()
            },
            "generate's defaults are not GenerateConfig::default()'s"
        );
        // What generate.toml records, and the searches, are the same.
        assert_eq!(
            defaults.options_table(),
            GenerateConfig::default().options_table()
        );
        assert_eq!(defaults.limits(), GenerateConfig::default().limits());
        let unset = view(&defaults);
        let mut command = Args::augment_args(clap::Command::new("generate"));
        command.build();
        let mut moved_by: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for arg in command.get_arguments().filter(|a| !a.is_positional()) {
            let flag = format!("--{}", arg.get_long().expect("long flags only"));
            if NOT_OPTIONS.contains(&flag.as_str()) {
                continue;
            }
            let shown = arg
                .get_default_values()
                .first()
                .map(|d| d.to_string_lossy().into_owned());
            let mut line = vec![flag.clone()];
            if arg.get_action().takes_values() {
                line.push(other_value(&flag, shown.as_deref()));
            }
            if flag != "--teacher-usi" && flag.starts_with("--teacher") {
                // The teacher's own options (`TeacherArgs`) need the teacher.
                line.extend(["--teacher-usi".into(), "engine".into()]);
            }
            let line: Vec<&str> = line.iter().map(String::as_str).collect();
            let cfg = cli_config(&line).unwrap_or_else(|e| panic!("generate {line:?}: {e}"));
            let moved = changed(&unset, &view(&cfg));
            assert_eq!(
                moved,
                fields_of(&flag),
                "generate {flag} does not set the option it names (list it in NOT_OPTIONS if it sets none)"
            );
            moved_by.insert(flag, moved);
        }

        // Each recipe key sets what its flag sets, to the same value (the
        // openings are recorded by another name, `Recipe::generate_config`).
        let recipe_default = selfplay_recipe("").unwrap().generate_config(1, "material");
        assert_eq!(
            recipe_default, defaults,
            "a self-play recipe's round 1 by material is generate's defaults"
        );
        let seeded = selfplay_recipe("").unwrap().generate_config(3, "material");
        assert_eq!(
            changed(&unset, &view(&seeded)),
            BTreeSet::from(["seed".to_string()]),
            "round N differs from generate's defaults in its seed alone"
        );
        let generate_keys: Vec<String> = keys::<Learner>()
            .into_iter()
            .filter(|k| k.starts_with("generate_"))
            .collect();
        assert_eq!(
            generate_keys,
            RECIPE_KEYS
                .iter()
                .map(|(k, _)| k.to_string())
                .collect::<Vec<_>>(),
            "a [learner] generate_* key without its flag in RECIPE_KEYS"
        );
        for (key, flag) in RECIPE_KEYS {
            let (value, toml) = match *key {
                "generate_positions" => ((DEFAULT_POSITIONS + 1).to_string(), None),
                "generate_depth" => ((DEFAULT_DEPTH + 1).to_string(), None),
                _ => ("extra".to_string(), Some("\"extra\"")),
            };
            let line = format!("{key} = {}\n", toml.unwrap_or(&value));
            let recipe = selfplay_recipe(&line).unwrap_or_else(|e| panic!("{line}: {e}"));
            let cfg = recipe.generate_config(1, "material");
            let moved = changed(&unset, &view(&cfg));
            assert_eq!(
                Some(&moved),
                moved_by.get(*flag),
                "[learner] {key} does not set what generate {flag} sets"
            );
            if *key != "generate_openings" {
                let by_flag = cli_config(&[flag, &value]).unwrap();
                assert_eq!(cfg, by_flag, "[learner] {key} = {value} vs {flag} {value}");
            }
        }
    }
}
