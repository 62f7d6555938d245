//! A match on disk: `DIR/games/NNNN.csa` (one CSA V2.2 record per game),
//! `DIR/results.csv` and `DIR/summary.txt`.
//!
//! Each file is written under a temporary name and renamed when complete, so an
//! interrupted match leaves whole game records and no half-written table.
//! `results.csv` columns: `game,opening_line,a_color,result,ending,plies,final_sfen,a_nodes,b_nodes,a_seconds,b_seconds,a_moves,b_moves,a_depth,b_depth,a_ms_per_move,b_ms_per_move,detail`
//! (`result` from A's view: `win`, `loss`, `draw`; `ending` as
//! [`super::GameEnd::name`]; `plies` counts the opening's; per side over the
//! game: nodes searched, seconds spent searching, moves chosen, their mean
//! depth and milliseconds per move ([`super::SideStats`]); `detail`: why a
//! side failed, when one did: crash, time, illegal move).

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use super::{GameOutcome, MatchConfig, MatchReport};
use crate::files::write_atomic;
use crate::record::csa_writer::to_csa;
use crate::shogi::Color;

/// Writes a match's files as its games arrive.
pub struct MatchFiles {
    dir: PathBuf,
    a_name: String,
    b_name: String,
    results: csv::Writer<fs::File>,
}

impl MatchFiles {
    /// Creates `dir` and `dir/games`; A and B are named in the records as given.
    pub fn create(dir: &Path, a_name: &str, b_name: &str) -> io::Result<Self> {
        fs::create_dir_all(dir.join("games"))?;
        let mut results = csv::Writer::from_path(dir.join("results.csv.tmp"))?;
        results.write_record([
            "game",
            "opening_line",
            "a_color",
            "result",
            "ending",
            "plies",
            "final_sfen",
            "a_nodes",
            "b_nodes",
            "a_seconds",
            "b_seconds",
            "a_moves",
            "b_moves",
            "a_depth",
            "b_depth",
            "a_ms_per_move",
            "b_ms_per_move",
            "detail",
        ])?;
        Ok(Self {
            dir: dir.to_path_buf(),
            a_name: a_name.to_string(),
            b_name: b_name.to_string(),
            results,
        })
    }

    /// The path of game `game`'s record: `DIR/games/NNNN.csa`.
    pub fn game_path(dir: &Path, game: usize) -> PathBuf {
        dir.join("games").join(format!("{game:04}.csa"))
    }

    /// Writes the game's CSA record and its `results.csv` row.
    pub fn add(&mut self, g: &GameOutcome) -> io::Result<()> {
        let notes = [
            format!(
                "kifulearn match game {}: opening line {}, {} plies of opening; A = {} ({})",
                g.game,
                g.opening_line,
                g.opening_plies,
                self.a_name,
                color_name(g.a_color)
            ),
            match &g.detail {
                None => format!("result: {} ({} for A)", g.end.name(), g.result_a()),
                Some(why) => format!(
                    "result: {} ({} for A): {}",
                    g.end.name(),
                    g.result_a(),
                    one_line(why)
                ),
            },
        ];
        let text = to_csa(&g.to_record(&self.a_name, &self.b_name), &notes);
        write_atomic(&Self::game_path(&self.dir, g.game), text.as_bytes())?;
        self.results.write_record([
            g.game.to_string(),
            g.opening_line.to_string(),
            color_name(g.a_color).to_string(),
            g.result_a().to_string(),
            g.end.name().to_string(),
            g.plies().to_string(),
            g.final_position.to_sfen(),
            g.sides[0].nodes.to_string(),
            g.sides[1].nodes.to_string(),
            format!("{:.3}", g.sides[0].time.0.as_secs_f64()),
            format!("{:.3}", g.sides[1].time.0.as_secs_f64()),
            g.sides[0].moves.to_string(),
            g.sides[1].moves.to_string(),
            format!("{:.2}", g.sides[0].mean_depth()),
            format!("{:.2}", g.sides[1].mean_depth()),
            format!("{:.1}", g.sides[0].ms_per_move()),
            format!("{:.1}", g.sides[1].ms_per_move()),
            g.detail.as_deref().map(one_line).unwrap_or_default(),
        ])?;
        self.results.flush()
    }

    /// Completes `results.csv` and writes `summary.txt`.
    pub fn finish(self, summary: &str) -> io::Result<()> {
        let Self { dir, results, .. } = self;
        results
            .into_inner()
            .map_err(|e| e.into_error())?
            .sync_all()?;
        fs::rename(dir.join("results.csv.tmp"), dir.join("results.csv"))?;
        write_atomic(&dir.join("summary.txt"), summary.as_bytes())
    }
}

/// `summary.txt`: the summary line, the pairs and the games' own Elo, then the
/// settings and the endings counted.
pub fn summary_text(
    report: &MatchReport,
    a_name: &str,
    b_name: &str,
    cfg: &MatchConfig,
    openings: &str,
) -> String {
    let limits = cfg.limits();
    let mut s = report.summary_line(a_name, b_name);
    s.push('\n');
    let pairs = report.pentanomial();
    s.push_str(&format!(
        "pairs (LL, LD+DL, LW+WL+DD, WD+DW, WW): {:?}, {} pairs\n",
        pairs.counts,
        pairs.pairs()
    ));
    if let Some(elo) = report.tally().elo95() {
        s.push_str(&format!(
            "Elo of the games taken as independent (trinomial): {elo}\n"
        ));
    }
    s.push_str(&format!("A: {a_name}\nB: {b_name}\n"));
    s.push_str(&format!(
        "games: {} played of {} (max plies {}), depth {}, nodes {}\n",
        report.games.len(),
        cfg.games,
        cfg.max_plies,
        limits.depth.map_or("-".to_string(), |d| d.to_string()),
        limits.nodes.map_or("-".to_string(), |n| n.to_string()),
    ));
    if let Some(time) = cfg.time {
        s.push_str(&format!(
            "time: {time}, tolerance {} ms\n",
            cfg.time_margin.as_millis()
        ));
    }
    s.push_str(&format!("openings: {openings}\n"));
    for line in report.speed_lines() {
        s.push_str(&line);
        s.push('\n');
    }
    let mut endings: BTreeMap<&str, usize> = BTreeMap::new();
    for g in &report.games {
        *endings.entry(g.end.name()).or_default() += 1;
    }
    let endings: Vec<String> = endings.iter().map(|(k, v)| format!("{k} {v}")).collect();
    s.push_str(&format!("endings: {}\n", endings.join(", ")));
    if let Some(faults) = report.fault_line() {
        s.push_str(&faults);
        s.push('\n');
    }
    let plies: usize = report.games.iter().map(GameOutcome::plies).sum();
    if !report.games.is_empty() {
        s.push_str(&format!(
            "mean plies: {:.1}\n",
            plies as f64 / report.games.len() as f64
        ));
    }
    s
}

/// `text` on one line (a CSA comment, a CSV cell).
fn one_line(text: &str) -> String {
    text.replace(['\n', '\r'], " ")
}

fn color_name(c: Color) -> &'static str {
    if c == Color::Black {
        "black"
    } else {
        "white"
    }
}
