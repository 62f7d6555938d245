//! The reports a run writes: each round's `agreement.csv` and `weights.csv`,
//! and `DIR/rounds.csv` rebuilt from the rounds' files (docs/reports.md).

use std::path::{Path, PathBuf};

use super::figures::{write_atomic, Figures, MatchFigures};
use super::run::{other, PipelineError};
use crate::engine::agreement::Agreement;
use crate::features::{FeatureSet, Features};
use crate::model::{format_g17, Model};

/// A round's folder, `DIR/round-N`.
pub(crate) fn round_dir(out: &Path, round: u32) -> PathBuf {
    out.join(format!("round-{round}"))
}

/// Name of the model evaluator in a round's `agreement.csv`: the model's path relative to `DIR`.
pub(crate) fn model_name(round: u32) -> String {
    format!("round-{round}/model.txt")
}

/// `evaluator,phase,positions,top1,top3,top5`, as `kifulearn evaluate --csv`.
pub(crate) fn write_agreement(
    path: &Path,
    table: &[(String, Agreement)],
) -> Result<(), PipelineError> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut rows = vec![vec![
        "evaluator".to_string(),
        "phase".into(),
        "positions".into(),
        "top1".into(),
        "top3".into(),
        "top5".into(),
    ]];
    for (name, a) in table {
        for (phase, tally) in a.rows() {
            let [t1, t3, t5] = tally.rates();
            rows.push(vec![
                name.clone(),
                phase.to_string(),
                tally.positions.to_string(),
                format!("{t1:.6}"),
                format!("{t3:.6}"),
                format!("{t5:.6}"),
            ]);
        }
    }
    for r in rows {
        w.write_record(&r).map_err(other)?;
    }
    let bytes = w.into_inner().map_err(other)?;
    write_atomic(path, &bytes)
}

/// Writes `weights.csv` (docs/reports.md): one row per non-zero weight; returns the row count.
pub fn write_weights(
    path: &Path,
    model: &Model,
    features: &Features,
) -> Result<usize, PipelineError> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record([
        "index", "set", "weight", "piece_a", "square_a", "piece_b", "square_b", "name",
    ])
    .map_err(other)?;
    let mut n = 0;
    for (j, &weight) in model.w.iter().enumerate() {
        if weight == 0.0 {
            continue;
        }
        let index = j as u32 + 1;
        let name = features.describe(index).ok_or_else(|| {
            PipelineError::Other(format!(
                "weight index {index} is beyond feature set {} (dimension {})",
                features.name(),
                features.dimension()
            ))
        })?;
        w.write_record([
            index.to_string().as_str(),
            name.set,
            &format_g17(weight),
            &name.piece_a,
            &name.square_a,
            &name.piece_b,
            &name.square_b,
            &name.name,
        ])
        .map_err(other)?;
        n += 1;
    }
    let bytes = w.into_inner().map_err(other)?;
    write_atomic(path, &bytes)?;
    Ok(n)
}

/// The `all` row of each evaluator in a round's `agreement.csv`: `(evaluator, [top1, top3, top5])`.
fn read_agreement(path: &Path) -> Result<Vec<(String, [String; 3])>, PipelineError> {
    let mut r = csv::Reader::from_path(path).map_err(other)?;
    let mut out = Vec::new();
    for rec in r.records() {
        let rec = rec.map_err(other)?;
        if rec.get(1) == Some("all") {
            let f = |i| rec.get(i).unwrap_or("").to_string();
            out.push((f(0), [f(3), f(4), f(5)]));
        }
    }
    Ok(out)
}

/// Rewrites `DIR/rounds.csv` from the files of rounds 1..=`last` (docs/reports.md).
pub fn write_rounds(out: &Path, last: u32) -> Result<(), PipelineError> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record([
        "round",
        "labeller",
        "train_games",
        "heldout_games",
        "rows",
        "nonzeros",
        "objective",
        "iterations",
        "extract_seconds",
        "fit_seconds",
        "evaluate_seconds",
        "model_top1",
        "model_top3",
        "model_top5",
        "material_top1",
        "material_top3",
        "material_top5",
        "match_depth",
        "match_games",
        "match_score",
        "match_elo",
        "match_elo_low",
        "match_elo_high",
        "match_nps_ratio",
        "timed_movetime_ms",
        "timed_games",
        "timed_score",
        "timed_elo",
        "timed_elo_low",
        "timed_elo_high",
        "timed_nps_ratio",
    ])
    .map_err(other)?;
    for round in 1..=last {
        let dir = round_dir(out, round);
        let f = Figures::load(&dir);
        let (Some(e), Some(fit), Some(ev)) = (f.extract.clone(), f.fit.clone(), f.evaluate.clone())
        else {
            return Err(PipelineError::Other(format!(
                "{}: a step's figures are missing",
                Figures::path(&dir).display()
            )));
        };
        let agreement = read_agreement(&dir.join("agreement.csv"))?;
        let tops = |name: &str| {
            agreement
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, t)| t.clone())
                .unwrap_or_default()
        };
        let (m, b) = (tops(&model_name(round)), tops("material"));
        let mut row = vec![
            round.to_string(),
            e.labeller,
            e.train_games.to_string(),
            e.heldout_games.to_string(),
            e.rows.to_string(),
            e.nonzeros.to_string(),
            format!("{:?}", fit.objective),
            fit.iterations.to_string(),
            format!("{:.3}", e.seconds),
            format!("{:.3}", fit.seconds),
            format!("{:.3}", ev.seconds),
        ];
        row.extend(m);
        row.extend(b);
        let ratio = |a: &MatchFigures| a.nps_ratio.map_or(String::new(), |r| format!("{r:.3}"));
        let result = |a: &MatchFigures| {
            [
                (a.wins + a.losses + a.draws).to_string(),
                format!("{:.4}", a.score()),
                format!("{:.1}", a.elo),
                format!("{:.1}", a.elo_low),
                format!("{:.1}", a.elo_high),
            ]
        };
        match &f.arena {
            Some(a) => {
                row.push(a.depth.to_string());
                row.extend(result(a));
                row.push(ratio(a));
            }
            None => row.extend(std::iter::repeat_n(String::new(), 7)),
        }
        match &f.timed {
            Some(a) => {
                row.push(a.movetime_ms.map_or(String::new(), |ms| ms.to_string()));
                row.extend(result(a));
                row.push(ratio(a));
            }
            None => row.extend(std::iter::repeat_n(String::new(), 7)),
        }
        w.write_record(&row).map_err(other)?;
    }
    let bytes = w.into_inner().map_err(other)?;
    write_atomic(&out.join("rounds.csv"), &bytes)
}

/// The table `pipeline run` ends with, on the last round `round` of `out`:
/// what the model learned from, its held-out agreement, its score against
/// material with the 95 % interval, where the model is and the command that
/// plays it. Every row is `| name | value |`.
pub fn summary_table(
    recipe: &super::Recipe,
    out: &Path,
    round: u32,
    final_model: &Path,
    final_bin: &Path,
) -> String {
    let f = Figures::load(&round_dir(out, round));
    let l = &recipe.learner;
    let learned = match &f.extract {
        None => "-".to_string(),
        Some(e) => {
            let (what, verb, depth) = match l.method.name() {
                "selfplay" => ("self-play positions", "played and scored", l.scores_depth()),
                "positions" => ("positions", "scored", l.scores_depth()),
                "ranking" => ("positions", "ranked", 0),
                _ => ("rows", "labelled", recipe.labels.depth),
            };
            let games = if l.method == super::recipe::Method::Selfplay {
                String::new()
            } else {
                format!(" of {} training games", e.train_games)
            };
            let depth = if depth > 0 {
                format!(" at depth {depth}")
            } else {
                String::new()
            };
            format!(
                "{} {what}{games}, {verb} by {}{depth}; {} learner, features {}",
                e.rows, e.labeller, l.method, recipe.features.set
            )
        }
    };
    let agreement =
        read_agreement(&round_dir(out, round).join("agreement.csv")).unwrap_or_default();
    let top1 = |name: &str| {
        agreement
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, t)| t[0].parse::<f64>().unwrap_or(0.0))
    };
    let agree = match (top1(&model_name(round)), top1("material")) {
        (Some(m), Some(b)) => format!("{m:.4} (material {b:.4})"),
        (Some(m), None) => format!("{m:.4}"),
        _ => "no held-out games".to_string(),
    };
    let held = f.extract.as_ref().map_or(0, |e| e.heldout_games);
    let arena = match &f.arena {
        None => "not played ([match] games = 0)".to_string(),
        Some(a) => {
            let t = crate::arena::stats::Tally {
                wins: a.wins,
                losses: a.losses,
                draws: a.draws,
            };
            let (low, high) = t.score_interval95();
            format!(
                "{:.3} [{low:.3}, {high:.3}] in {} games at depth {} (+{} -{} ={}), Elo {:+.0} [{:+.0}, {:+.0}]",
                a.score(),
                t.games(),
                a.depth,
                a.wins,
                a.losses,
                a.draws,
                a.elo,
                a.elo_low,
                a.elo_high
            )
        }
    };
    let rounds = if round > 1 {
        format!(
            " (round {round}; every round in {})",
            out.join("rounds.csv").display()
        )
    } else {
        String::new()
    };
    let rows = [
        ("learned from", format!("{learned}{rounds}")),
        (
            "top-1 agreement",
            format!("{agree}, on {held} held-out games"),
        ),
        ("vs material (95%)", arena),
        (
            "model",
            format!("{} (text: {})", final_bin.display(), final_model.display()),
        ),
        (
            "play it (USI)",
            format!("kifulearn usi --model {}", final_bin.display()),
        ),
    ];
    let width = rows.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    let mut text = String::new();
    for (k, v) in rows {
        text.push_str(&format!("| {k:<width$} | {v} |\n"));
    }
    text
}
