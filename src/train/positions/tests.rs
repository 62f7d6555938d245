use super::*;

#[test]
fn recovers_doubled_piece_values_from_quiescence_scores() {
    // Teacher score = 2 × the material quiescence value: the positions learner,
    // starting from zero and free to move the material part, must find weights
    // that reproduce it (doubled piece values) at the leaves. Full-batch Adam,
    // so the steps are exact gradients; 600 steps of at most 8 cp reach the
    // doubled rook (1980 cp).
    let features: Features = "material".parse().unwrap();
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/floodgate-30.sfen"
    ))
    .unwrap();
    let path = std::path::Path::new("floodgate-30.sfen");
    let mut samples = Vec::new();
    let mut table = TranspositionTable::new(1);
    let control = Control::new();
    for game in crate::record::usi::read(&text, path) {
        let game = game.unwrap();
        for (pos, _) in game.positions() {
            let mut s = Searcher::new(
                &crate::eval::Material,
                &mut table,
                &control,
                Limits::default(),
            );
            let score = 2 * s.value(&pos, &[], 0);
            samples.push(Sample {
                position: pos,
                score,
                result: None,
            });
        }
    }
    let leaves = Leaves::build(&features, &crate::eval::Material, &samples);
    let prior = vec![0.0; features.dimension() as usize];
    let params = PositionsParams {
        epochs: 600,
        batch: samples.len(),
        rate: 8.0,
        final_rate: Some(0.0),
        // A wide logistic: near-linear over these scores, so the large
        // imbalances do not sit on its flat tails.
        eval_k: 5000.0,
        lambda: 0.0,
        mu: 0.0,
        anchor_material: false,
        ..Default::default()
    };
    // The leaves, views and signs are right: doubled piece values explain
    // every score exactly.
    let doubled: Vec<f32> = material_prior(&features).iter().map(|w| 2.0 * w).collect();
    assert_eq!(loss(&doubled, &leaves, &params).score_mse, 0.0);
    assert!(loss(&prior, &leaves, &params).score_mse > 1000.0);
    let fit = params
        .fit(&features, &leaves, None, &prior, &crate::train::Quiet)
        .unwrap();
    let first = fit.epochs[0].train.score_mse.sqrt();
    let last = fit.epochs.last().unwrap().train.score_mse.sqrt();
    // And the learner moves towards them from zero (first-order steps on
    // counts that piece conservation makes collinear converge slowly, so
    // the bound is loose).
    assert!(last < 0.6 * first, "rmse {first} -> {last}");
}
