//! A model file against the built-in material evaluator: a `material`-set
//! model carrying exactly the built-in piece values evaluates as material
//! does (src/eval/linear.rs), so its match against material must be the
//! material-vs-material match game for game, and each opening's two games
//! (colours swapped) must be the same game: +W −W, score exactly 0.5.

use kifulearn::arena::{default_openings, run_match, select_openings, MatchConfig};
use kifulearn::eval::{load_evaluator, EvalChoice, Material};
use kifulearn::model::{write_meta, Model, ModelMeta};

/// The `material` feature set's weights for the built-in values, in model
/// units (centipawns / 10000).
fn material_weights() -> Vec<f64> {
    kifulearn::features::MaterialSet::piece_values()
        .iter()
        .map(|&v| f64::from(v) / 10_000.0)
        .collect()
}

#[test]
fn a_material_valued_model_plays_material_game_for_game() {
    let dir = std::env::temp_dir().join(format!("kifulearn-match-model-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("material-values.model");
    let model = Model {
        solver_type: "L2R_L2LOSS_SVR".into(),
        w: material_weights(),
        bias: -1.0,
        bias_weight: 0.0,
        features: "material".into(),
    };
    model.save(&path, false).unwrap();
    write_meta(&path, &ModelMeta::new("material")).unwrap();
    let learned = load_evaluator(&EvalChoice::Model(path)).unwrap();

    let openings = select_openings(default_openings(), 0, Some(12));
    let cfg = MatchConfig {
        games: 12,
        depth: Some(2),
        hash_mb: 4,
        ..MatchConfig::default()
    };
    let model_vs_material = run_match(&learned, &Material, &openings, &cfg, |_| {});
    let material_vs_material = run_match(&Material, &Material, &openings, &cfg, |_| {});
    assert_eq!(model_vs_material.games.len(), 12);
    assert_eq!(model_vs_material.score(), 0.5);
    assert_eq!(model_vs_material.wins, model_vs_material.losses);
    for (m, b) in model_vs_material
        .games
        .iter()
        .zip(&material_vs_material.games)
    {
        assert_eq!(m.moves, b.moves, "game {}", m.game);
        assert_eq!((m.end, m.winner), (b.end, b.winner), "game {}", m.game);
    }
    for pair in model_vs_material.games.chunks(2) {
        assert_eq!(pair[0].moves, pair[1].moves);
        assert_eq!(pair[0].score_a() + pair[1].score_a(), 1.0);
    }
    std::fs::remove_dir_all(&dir).ok();
}
