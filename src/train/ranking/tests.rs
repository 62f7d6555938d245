use std::path::Path;

use super::*;
use crate::features::Features;
use crate::record::read_file;

fn games(path: &str) -> Vec<Game> {
    read_file(Path::new(path))
        .games
        .into_iter()
        .map(|g| g.unwrap())
        .collect()
}

fn selfplay(names: &[&str]) -> Vec<Game> {
    names
        .iter()
        .flat_map(|n| games(&format!("fixtures/selfplay/fsf_selfplay_{n}.csa")))
        .collect()
}

/// Small weights of both signs, different in every coordinate, so the
/// siblings' differences are of the order of the window.
fn spread_weights(n: usize) -> Vec<f32> {
    (0..n)
        .map(|j| ((j as u64 * 2_654_435_761) % 2001) as f32 * 1e-7 - 1e-4)
        .collect()
}

#[test]
fn gradient_matches_finite_differences_of_j() {
    let features: Features = "relation,material".parse().unwrap();
    let n = features.dimension() as usize;
    let lambda = 1e-3;
    let params = RankingParams::new().lambda(lambda).check().unwrap();
    let game = &games("fixtures/pro/kifu09136.csa")[0];
    let positions: Vec<(Position, Move)> = game
        .positions()
        .enumerate()
        .filter(|(ply, _)| [20, 41, 62].contains(ply))
        .map(|(_, (p, m))| (p, m.unwrap()))
        .collect();
    assert_eq!(positions.len(), 3);
    let mut ranker = Ranker::new(&features, &params);
    let j = |ranker: &mut Ranker<'_, Features>, w: &[f32]| -> f64 {
        let loss: f64 = positions
            .iter()
            .map(|(p, m)| ranker.position(w, p, *m, None).unwrap().loss)
            .sum();
        loss + regularizer(w, None, lambda)
    };
    let mut w = spread_weights(n);
    let mut grad = vec![0.0f32; n];
    for (p, m) in &positions {
        ranker.position(&w, p, *m, Some(&mut grad)).unwrap();
    }
    // The active coordinates with the largest gradients, and a few more.
    let mut active: Vec<usize> = (0..n).filter(|&j| grad[j] != 0.0).collect();
    assert!(active.len() > 50, "{} active coordinates", active.len());
    active.sort_by(|&a, &b| grad[b].abs().total_cmp(&grad[a].abs()));
    let mut checked: Vec<usize> = active[..6].to_vec();
    checked.extend(active.iter().step_by(active.len() / 6).take(6));
    for &k in &checked {
        let analytic = f64::from(grad[k]) + 2.0 * lambda * f64::from(w[k]);
        let h = 2e-4f32;
        let w0 = w[k];
        w[k] = w0 + h;
        let up = j(&mut ranker, &w);
        w[k] = w0 - h;
        let down = j(&mut ranker, &w);
        w[k] = w0;
        let numeric = (up - down) / (2.0 * f64::from(h));
        let tol = 2e-2 * analytic.abs().max(1.0);
        assert!(
            (analytic - numeric).abs() <= tol,
            "coordinate {k}: analytic {analytic}, numeric {numeric}"
        );
    }
}

#[test]
fn top1_shares_ties_fairly() {
    let features: Features = "relation".parse().unwrap();
    let params = RankingParams::new().check().unwrap();
    let mut ranker = Ranker::new(&features, &params);
    let pos = Position::startpos();
    let mv = pos.parse_move("7g7f").unwrap();
    // All 30 moves tie at w = 0: the game's move is first with probability 1/30,
    // and every other sibling costs T(0) = ½.
    let s = ranker.position(&[], &pos, mv, None).unwrap();
    assert_eq!(s.positions, 1);
    assert!((s.top1 - 1.0 / 30.0).abs() < 1e-12);
    assert!((s.loss - 29.0 * 0.5).abs() < 1e-12);
}

#[test]
fn training_decreases_j_and_raises_top1() {
    let features: Features = "relation".parse().unwrap();
    let params = RankingParams::new()
        .epochs(3)
        .batch_games(2)
        .max_plies(Some(60))
        .check()
        .unwrap();
    let train = selfplay(&["w2_00152", "w1_00301", "w2_00049", "w1_00119"]);
    let fit = params.fit(&features, &train, &[], &Quiet).unwrap();
    assert_eq!(fit.epochs.len(), 3);
    assert_eq!(fit.model.features, "relation");
    let w: Vec<f32> = fit.model.w.iter().map(|&x| x as f32).collect();
    let before = score(&features, &params, &[], &train);
    let after = score(&features, &params, &w, &train);
    assert_eq!(before.positions, 4 * 60);
    assert_eq!(after.positions, before.positions);
    let j_after = after.loss + regularizer(&w, None, params.lambda());
    assert!(j_after < 0.7 * before.loss, "{j_after} vs {}", before.loss);
    assert!(after.top1 > before.top1, "{after:?} vs {before:?}");
    let first = fit.epochs[0].objective_per_position();
    let last = fit.epochs[2].objective_per_position();
    assert!(last < first, "{first} then {last}");
}

#[test]
fn every_optimizer_runs_and_learns() {
    let features: Features = "relation,material".parse().unwrap();
    let train = selfplay(&["w1_00301", "w1_00212"]);
    let held = selfplay(&["w1_00234"]);
    for optimizer in [Optimizer::AdaGrad, Optimizer::Adam, Optimizer::Sign] {
        let params = RankingParams::new()
            .optimizer(optimizer)
            .epochs(3)
            .batch_games(1)
            .skip_opening(10)
            .max_plies(Some(40))
            .check()
            .unwrap();
        let fit = params.fit(&features, &train, &held, &Quiet).unwrap();
        assert!(fit.model.w.iter().all(|w| w.is_finite()));
        let r = fit.epochs.last().unwrap();
        assert_eq!(r.train.positions, 2 * 30);
        assert_eq!(r.held_out.unwrap().positions, 30);
        let first = fit.epochs[0].objective_per_position();
        assert!(
            r.objective_per_position() < first,
            "{optimizer:?}: J/position {first} then {}",
            r.objective_per_position()
        );
    }
}

#[test]
fn a_seed_fixes_the_run() {
    let features: Features = "material".parse().unwrap();
    let train = selfplay(&["w2_00318", "w1_00301", "w2_00049"]);
    let fit = |seed| {
        RankingParams::new()
            .epochs(2)
            .batch_games(1)
            .seed(seed)
            .max_plies(Some(30))
            .check()
            .unwrap()
            .fit(&features, &train, &[], &Quiet)
            .unwrap()
            .model
            .w
    };
    assert_eq!(fit(7), fit(7));
}

#[test]
fn bad_parameters_are_named() {
    let err = |p: RankingParams| p.check().unwrap_err().to_string();
    assert!(err(RankingParams::new().window(0.0)).contains("window"));
    assert!(err(RankingParams::new().rate(f64::NAN)).contains("rate"));
    assert!(err(RankingParams::new().lambda(-1.0)).contains("lambda"));
    assert!(err(RankingParams::new().epochs(0)).contains("epochs"));
    assert!(err(RankingParams::new().batch_games(0)).contains("batch_games"));
    assert!(err(RankingParams::new().max_plies(Some(0))).contains("max_plies"));
}

#[test]
fn current_leaves_are_searched_with_the_weights_being_learned() {
    let features: Features = "material".parse().unwrap();
    let material: Vec<f32> = crate::train::positions::named_prior(&features, "material")
        .unwrap()
        .into_iter()
        .map(|w| w / 10_000.0)
        .collect();
    let params = |leaf: Leaf| RankingParams::new().leaf_kind(leaf).check().unwrap();
    let (at_material, at_current) = (params(Leaf::Material), params(Leaf::Current));
    let mut by_material = Ranker::new(&features, &at_material);
    let mut by_current = Ranker::new(&features, &at_current);
    let game = &games("fixtures/pro/kifu09136.csa")[0];
    let positions: Vec<(Position, Move)> = game
        .positions()
        .filter_map(|(p, m)| Some((p, m?)))
        .collect();
    assert!(positions.len() > 100);
    // With the weights at the material values, the weights' search is the
    // material search: the same leaves, the same loss and top-1, position by position.
    for (p, m) in &positions {
        let a = by_material.position(&material, p, *m, None).unwrap();
        let b = by_current.position(&material, p, *m, None).unwrap();
        assert_eq!(a, b, "{}", p.to_sfen());
    }
    // With every piece worth minus its value, capturing loses: the weights'
    // search stands pat where the material search takes, so the leaves (and
    // the losses) part in the positions that have captures.
    let negated: Vec<f32> = material.iter().map(|w| -w).collect();
    let differ = positions
        .iter()
        .filter(|(p, m)| {
            by_material.position(&negated, p, *m, None).unwrap()
                != by_current.position(&negated, p, *m, None).unwrap()
        })
        .count();
    assert!(
        differ * 4 > positions.len(),
        "{differ} of {} positions differ",
        positions.len()
    );
    // A sibling's raw position is another leaf again.
    let mut by_sibling = Ranker::new(&features, &params(Leaf::Sibling));
    let differ_raw = positions
        .iter()
        .filter(|(p, m)| {
            by_sibling.position(&material, p, *m, None).unwrap()
                != by_current.position(&material, p, *m, None).unwrap()
        })
        .count();
    assert!(differ_raw > 0);
}

#[test]
fn the_observer_sees_each_epoch_start_every_game_and_the_report() {
    use crate::train::progress::{Epoch, Event};
    use std::sync::Mutex;
    let features: Features = "relation".parse().unwrap();
    let params = RankingParams::new()
        .epochs(2)
        .batch_games(2)
        .max_plies(Some(40))
        .check()
        .unwrap();
    let train = selfplay(&["w2_00152", "w1_00301", "w2_00049"]);
    let seen = Mutex::new(Vec::new());
    let observer = |e: &Event<'_>| {
        let word = match e {
            Event::EpochStart { epoch, games } => format!("start {epoch} {games}"),
            Event::Game => "game".into(),
            Event::Epoch(Epoch::Ranking(r)) => format!("end {} {}", r.epoch, r.train.positions),
            other => panic!("not a ranking event: {other:?}"),
        };
        seen.lock().unwrap().push(word);
    };
    // Several threads report games: the observer is shared, not cloned.
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let fit = pool.install(|| params.fit(&features, &train, &[], &observer).unwrap());
    let quiet = pool.install(|| params.fit(&features, &train, &[], &Quiet).unwrap());
    assert_eq!(fit.model, quiet.model, "an observer changes nothing");
    let positions = fit.epochs[0].train.positions;
    let game = "game".to_string();
    let epoch = |k: usize| {
        let mut words = vec![format!("start {k} 3")];
        words.extend(std::iter::repeat_n(game.clone(), 3));
        words.push(format!("end {k} {positions}"));
        words
    };
    assert_eq!(seen.into_inner().unwrap(), [epoch(1), epoch(2)].concat());
}
