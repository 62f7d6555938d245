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

use super::{GameEnd, GameOutcome, MatchConfig, MatchReport, Opening, SideStats, Thinking};
use crate::files::write_atomic;
use crate::record::csa_writer::to_csa;
use crate::shogi::Color;

/// The columns of `results.csv`, in order: written by [`MatchFiles`], read
/// back by [`read_done`].
const COLUMNS: [&str; 18] = [
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
];

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
        results.write_record(COLUMNS)?;
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

/// The table of an earlier run of a match in `dir`: `results.csv.tmp` when
/// a run was interrupted, else `results.csv`; `None` when neither is there.
/// When both are (a resumed run interrupted in turn), the one with more
/// lines, the temporary one on a tie: a resumed run copies the rows it
/// counts into its temporary table first, so that is the whole match unless
/// the run was stopped while copying.
pub fn earlier_results(dir: &Path) -> Option<PathBuf> {
    let lines = |path: &Path| {
        fs::read(path)
            .ok()
            .map(|b| b.split(|&c| c == b'\n').count())
    };
    let tmp = dir.join("results.csv.tmp");
    let done = dir.join("results.csv");
    match (lines(&tmp), lines(&done)) {
        (Some(t), Some(d)) if d > t => Some(done),
        (Some(_), _) => Some(tmp),
        (None, Some(_)) => Some(done),
        (None, None) => None,
    }
}

/// The games of an earlier run of the match in `dir` ([`earlier_results`]),
/// for [`super::run_sides_after`]: each row with its record
/// (`games/NNNN.csa`, whose moves it takes), its start and opening those of
/// the pair's opening in `openings` (as the match selects them), its
/// searches' figures from the row (a side's depth is its mean times its
/// moves, rounded). Only games below `games` are read. An error names the
/// file and the row when a row cannot be read, or does not belong to this
/// match: another opening (other `--openings`, `--openings-skip` or
/// `--seed`), A on the other colour, or a record whose players are not
/// `a_name` and `b_name`.
pub fn read_done(
    dir: &Path,
    openings: &[Opening],
    games: usize,
    a_name: &str,
    b_name: &str,
) -> Result<Vec<GameOutcome>, String> {
    let Some(path) = earlier_results(dir) else {
        return Ok(Vec::new());
    };
    let shown = path.display();
    let mut reader = csv::Reader::from_path(&path).map_err(|e| format!("{shown}: {e}"))?;
    let mut out = Vec::new();
    for (i, row) in reader.records().enumerate() {
        let row = row.map_err(|e| format!("{shown}: {e}"))?;
        let at = |what: &str| format!("{shown}, row {}: {what}", i + 2);
        let field = |name: &str| {
            COLUMNS
                .iter()
                .position(|c| *c == name)
                .and_then(|column| row.get(column))
                .ok_or_else(|| at(&format!("no {name} column")))
        };
        let number = |name: &str| -> Result<f64, String> {
            field(name)?
                .parse::<f64>()
                .map_err(|_| at(&format!("{name} is not a number")))
        };
        let game = number("game")? as usize;
        if game >= games {
            continue;
        }
        let opening = &openings[(game / 2) % openings.len()];
        let line = number("opening_line")? as usize;
        if line != opening.line {
            return Err(at(&format!(
                "game {game} opened with line {line}, this match opens it with line {} \
                 (other --openings, --openings-skip or --seed?)",
                opening.line
            )));
        }
        let a_color = match field("a_color")? {
            "black" if game.is_multiple_of(2) => Color::Black,
            "white" if !game.is_multiple_of(2) => Color::White,
            other => return Err(at(&format!("A plays {other} in game {game}"))),
        };
        let winner = match field("result")? {
            "win" => Some(a_color),
            "loss" => Some(!a_color),
            "draw" => None,
            other => return Err(at(&format!("unknown result {other}"))),
        };
        let end = GameEnd::from_name(field("ending")?, winner)
            .ok_or_else(|| at("an ending that is unknown or does not fit the result"))?;
        let record_path = MatchFiles::game_path(dir, game);
        let text = fs::read_to_string(&record_path)
            .map_err(|e| format!("{}: {e}", record_path.display()))?;
        let record = crate::record::csa::read(&text, &record_path)
            .pop()
            .ok_or_else(|| format!("{}: no game", record_path.display()))?
            .map_err(|e| e.to_string())?;
        let (black, white) = if a_color == Color::Black {
            (a_name, b_name)
        } else {
            (b_name, a_name)
        };
        if record.black.as_deref() != Some(black)
            || record.white.as_deref() != Some(white)
            || board_of(&record.start) != board_of(&opening.start)
            || !record.moves.starts_with(&opening.moves)
        {
            return Err(format!(
                "{}: not this match's game {game} (players, start or opening differ)",
                record_path.display()
            ));
        }
        let mut final_position = opening.start.clone();
        for &mv in &record.moves {
            final_position.play_unchecked(mv);
        }
        let side = |x: &str| {
            let moves = number(&format!("{x}_moves"))? as u32;
            Ok::<_, String>(SideStats {
                moves,
                depth: (number(&format!("{x}_depth"))? * f64::from(moves)).round() as u64,
                nodes: number(&format!("{x}_nodes"))? as u64,
                time: Thinking(std::time::Duration::from_secs_f64(
                    number(&format!("{x}_seconds"))?.max(0.0),
                )),
            })
        };
        let detail = field("detail")?;
        out.push(GameOutcome {
            game,
            opening_line: line,
            a_color,
            start: opening.start.clone(),
            opening_plies: opening.moves.len(),
            moves: record.moves,
            end,
            winner,
            final_position,
            detail: (!detail.is_empty()).then(|| detail.to_string()),
            sides: [side("a")?, side("b")?],
        });
    }
    Ok(out)
}

/// A position's SFEN without its move number, which a CSA record does not keep.
fn board_of(pos: &crate::shogi::Position) -> String {
    let sfen = pos.to_sfen();
    sfen.rsplit_once(' ')
        .map_or(sfen.clone(), |(board, _)| board.to_string())
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
