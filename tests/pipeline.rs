//! `pipeline run` end to end on a tiny recipe: an interrupted and restarted run
//! ends with the same outputs as an uninterrupted one.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use kifulearn::pipeline::run::{run_recipe, Quiet};
use kifulearn::pipeline::Recipe;

const RECIPE: &str = r#"
rounds = 2
[inputs]
paths = ["fixtures/selfplay"]
max_games = 6
[split]
held_out = 0.34
[labels]
max_plies = 12
[solver]
name = "dual"
tolerance = 0.1
p = 0.01
max_iterations = 50
"#;

fn scratch(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("kifulearn-pipeline-{}-{name}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    dir
}

/// Runs on one thread: the solver's parallel sums are then in a fixed order, so
/// two runs give byte-identical models.
fn run_once(recipe: &Recipe, out: &Path) {
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap()
        .install(|| run_recipe(recipe, out, Arc::new(Quiet)).unwrap());
}

/// rounds.csv without the three seconds columns (8, 9, 10).
fn rounds_without_seconds(dir: &Path) -> Vec<Vec<String>> {
    let mut r = csv::Reader::from_path(dir.join("rounds.csv")).unwrap();
    let header: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
    assert_eq!(
        &header[8..11],
        ["extract_seconds", "fit_seconds", "evaluate_seconds"]
    );
    r.records()
        .map(|rec| {
            rec.unwrap()
                .iter()
                .enumerate()
                .filter(|(i, _)| !(8..11).contains(i))
                .map(|(_, v)| v.to_string())
                .collect()
        })
        .collect()
}

/// The rows of `DIR/rounds.csv`, each by column name.
fn rounds_by_name(dir: &Path) -> Vec<std::collections::HashMap<String, String>> {
    let mut r = csv::Reader::from_path(dir.join("rounds.csv")).unwrap();
    let header: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
    r.records()
        .map(|rec| {
            let rec = rec.unwrap();
            header
                .iter()
                .cloned()
                .zip(rec.iter().map(String::from))
                .collect()
        })
        .collect()
}

fn same_bytes(a: &Path, b: &Path, file: &str) {
    let (x, y) = (
        fs::read(a.join(file)).unwrap(),
        fs::read(b.join(file)).unwrap(),
    );
    assert!(
        x == y,
        "{file} differs between {} and {}",
        a.display(),
        b.display()
    );
}

#[test]
fn an_interrupted_run_resumes_to_the_same_outputs() {
    let recipe = Recipe::parse(RECIPE, Path::new("tiny.toml")).unwrap();
    let (a, b) = (scratch("a"), scratch("b"));
    run_once(&recipe, &a);

    let rounds = rounds_without_seconds(&a);
    assert_eq!(rounds.len(), 2);
    assert_eq!(rounds[0][1], "material");
    assert_eq!(rounds[1][1], "round-1/model.txt");
    // 6 games, some held out; the same split and rows in both rounds.
    let (train, held): (usize, usize) =
        (rounds[0][2].parse().unwrap(), rounds[0][3].parse().unwrap());
    assert_eq!(train + held, 6);
    assert!(held > 0 && train > 0, "{train} train, {held} held out");
    assert_eq!(rounds[0][2..6], rounds[1][2..6]);
    // Rows: every legal move of the first 12 positions of each training game.
    let rows: u64 = rounds[0][4].parse().unwrap();
    assert!(rows > (train * 12 * 20) as u64, "{rows} rows");
    for r in &rounds {
        for col in 8..14 {
            let v: f64 = r[col].parse().unwrap();
            assert!((0.0..=1.0).contains(&v), "agreement {v} in {r:?}");
        }
    }
    let weights = fs::read_to_string(a.join("round-2/weights.csv")).unwrap();
    assert!(weights.starts_with("index,set,weight,piece_a,square_a,piece_b,square_b,name\n"));
    let n = weights.lines().count() - 1;
    assert!(n > 10, "{n} weights");
    assert!(
        weights.lines().nth(1).unwrap().contains(",relation,"),
        "{weights}"
    );
    assert!(a.join("final.bin").exists());
    assert_eq!(
        fs::read_to_string(a.join("final.model.meta.toml"))
            .unwrap()
            .lines()
            .next(),
        Some("features = \"relation\"")
    );

    // B: a full run, then what a kill during round 2 leaves: round 2's fit not
    // yet renamed, a temporary file, one game's rows gone and a manifest line cut short.
    run_once(&recipe, &b);
    for f in [
        "round-2/model.txt",
        "round-2/agreement.csv",
        "round-2/weights.csv",
        "final.model",
        "final.bin",
    ] {
        fs::remove_file(b.join(f)).unwrap();
    }
    fs::write(b.join("round-2/model.txt.tmp"), "solver_type L2R_L2").unwrap();
    let extract = b.join("round-2/extract");
    let svm = fs::read_dir(extract.join("rows"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "svm"))
        .unwrap();
    fs::remove_file(&svm).unwrap();
    let manifest = fs::read_to_string(extract.join("manifest.csv")).unwrap();
    fs::write(
        extract.join("manifest.csv"),
        &manifest[..manifest.len() - 7],
    )
    .unwrap();
    // Round 1's rounds.csv only, as after round 1.
    kifulearn::pipeline::reports::write_rounds(&b, 1).unwrap();
    run_once(&recipe, &b);

    assert_eq!(rounds_without_seconds(&b), rounds);
    for f in [
        "round-1/model.txt",
        "round-2/model.txt",
        "round-2/model.txt.meta.toml",
        "round-1/weights.csv",
        "round-2/weights.csv",
        "round-2/agreement.csv",
        "final.model",
        "final.bin",
    ] {
        same_bytes(&a, &b, f);
    }
    let _ = fs::remove_dir_all(&a);
    let _ = fs::remove_dir_all(&b);
}

/// Polls until `ready` holds, then kills the process with SIGKILL; true if it
/// was still running when killed (false: it finished first).
fn kill_when(child: &mut std::process::Child, ready: impl Fn() -> bool) -> bool {
    loop {
        if child.try_wait().unwrap().is_some() {
            return false;
        }
        if ready() {
            child.kill().unwrap();
            child.wait().unwrap();
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
}

fn svm_files(dir: &Path) -> usize {
    fs::read_dir(dir).map_or(0, |d| {
        d.filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "svm"))
        })
        .count()
    })
}

/// Starts `kifulearn pipeline run RECIPE --out OUT` on one thread, so the
/// solver's parallel sums are in a fixed order.
fn start_pipeline(recipe: &Path, out: &Path) -> std::process::Child {
    std::process::Command::new(env!("CARGO_BIN_EXE_kifulearn"))
        .args(["pipeline", "run"])
        .arg(recipe)
        .arg("--out")
        .arg(out)
        .env("RAYON_NUM_THREADS", "1")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap()
}

#[test]
fn a_killed_process_resumes_to_the_same_outputs() {
    // The same recipe with more plies per game, so a kill lands mid-step.
    let text = RECIPE.replace("max_plies = 12", "max_plies = 30").replace(
        "\"fixtures/selfplay\"",
        &format!(
            "{:?}",
            concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/selfplay")
        ),
    );
    let (a, c) = (scratch("kill-a"), scratch("kill-c"));
    fs::create_dir_all(&c).unwrap();
    let recipe_file = c.join("tiny.toml");
    fs::write(&recipe_file, &text).unwrap();
    let start_in = |out: &Path| start_pipeline(&recipe_file, out);
    assert!(start_in(&a).wait().unwrap().success());
    let out = c.join("out");
    let start = || start_in(&out);
    // Killed while round 1 extracts, then while round 2 extracts with the round-1 model.
    let mut kills = 0;
    let mut p = start();
    kills += usize::from(kill_when(&mut p, || {
        svm_files(&out.join("round-1/extract/rows")) >= 1
    }));
    let mut p = start();
    kills += usize::from(kill_when(&mut p, || {
        svm_files(&out.join("round-2/extract/rows")) >= 1
    }));
    assert!(kills >= 1, "every run finished before it could be killed");
    let status = start().wait().unwrap();
    assert!(status.success());

    assert_eq!(rounds_without_seconds(&out), rounds_without_seconds(&a));
    for f in [
        "round-1/model.txt",
        "round-2/model.txt",
        "round-1/weights.csv",
        "round-2/weights.csv",
        "round-2/agreement.csv",
        "final.model",
        "final.bin",
    ] {
        same_bytes(&a, &out, f);
    }
    let _ = fs::remove_dir_all(&a);
    let _ = fs::remove_dir_all(&c);
}

#[test]
fn a_recipe_with_an_unknown_key_is_refused() {
    let dir = scratch("bad");
    fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bad.toml");
    fs::write(&path, "rounds = 2\nround = 3\n[inputs]\npaths = [\"g\"]\n").unwrap();
    let err = Recipe::load(&path).unwrap_err().to_string();
    assert!(err.starts_with(&format!("{}: ", path.display())), "{err}");
    assert!(err.contains("unknown field `round`"), "{err}");
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn a_changed_recipe_redoes_its_rounds_instead_of_reusing_them() {
    // Issue "Trust": the pipeline's final.model stayed the old one after a
    // recipe change. Now a round remembers the recipe that made it.
    let first = Recipe::parse(RECIPE, Path::new("tiny.toml")).unwrap();
    let changed_text = RECIPE.replace("p = 0.01", "p = 0.02");
    let changed = Recipe::parse(&changed_text, Path::new("tiny.toml")).unwrap();
    let (a, b) = (scratch("changed-a"), scratch("changed-b"));
    run_once(&first, &a);
    let old_model = fs::read(a.join("final.model")).unwrap();
    run_once(&changed, &a);
    run_once(&changed, &b);
    assert_ne!(fs::read(a.join("final.model")).unwrap(), old_model);
    for file in [
        "final.model",
        "round-1/model.txt",
        "round-2/model.txt",
        "round-2/agreement.csv",
    ] {
        same_bytes(&a, &b, file);
    }
    assert_eq!(rounds_without_seconds(&a), rounds_without_seconds(&b));
    let _ = fs::remove_dir_all(&a);
    let _ = fs::remove_dir_all(&b);
}

#[test]
fn adding_a_round_keeps_the_rounds_already_made() {
    let one = Recipe::parse(
        &RECIPE.replace("rounds = 2", "rounds = 1"),
        Path::new("tiny.toml"),
    )
    .unwrap();
    let two = Recipe::parse(RECIPE, Path::new("tiny.toml")).unwrap();
    let (a, b) = (scratch("more-a"), scratch("more-b"));
    run_once(&one, &a);
    let round_1 = a.join("round-1/model.txt");
    let made = fs::metadata(&round_1).unwrap().modified().unwrap();
    run_once(&two, &a);
    run_once(&two, &b);
    // Round 1 was not redone (the same file, untouched); the run ends as a
    // clean two-round run does.
    assert_eq!(fs::metadata(&round_1).unwrap().modified().unwrap(), made);
    for file in ["final.model", "round-1/model.txt", "round-2/model.txt"] {
        same_bytes(&a, &b, file);
    }
    assert_eq!(rounds_without_seconds(&a), rounds_without_seconds(&b));
    let _ = fs::remove_dir_all(&a);
    let _ = fs::remove_dir_all(&b);
}

/// A two-round self-play recipe on tiny settings (300 positions at depth 1,
/// `games` match games), with `extra` lines in its `[learner]`.
fn tiny_selfplay(extra: &str, games: u32) -> String {
    format!(
        r#"
rounds = 2
[inputs]
paths = ["fixtures/selfplay"]
[split]
held_out = 0.5
[features]
set = "kp,material"
[learner]
method = "selfplay"
teacher = "previous"
prior = "previous"
generate_positions = 300
generate_depth = 1
result_weight = 0.0
epochs = 2
{extra}
[match]
games = {games}
depth = 1
"#
    )
}

#[test]
fn a_selfplay_recipe_generates_learns_and_plays_each_round() {
    // Round 1 generates with material, round 2 with round 1's model; each round
    // learns from its own positions and plays the material engine, at equal
    // depth and again at equal time (20 ms a move), its values rounded to
    // 16 cp (`[match] grain`, which every model's sidecar then carries, with
    // the depth of the scores learned).
    let text = tiny_selfplay("", 4) + "movetime = 20\ngrain = 16\n";
    let recipe = Recipe::parse(&text, Path::new("selfplay-tiny.toml")).unwrap();
    let out = scratch("selfplay");
    run_once(&recipe, &out);
    let mut r = csv::Reader::from_path(out.join("rounds.csv")).unwrap();
    let header: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let rows: Vec<csv::StringRecord> = r.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 2);
    assert_eq!(&rows[0][col("labeller")], "material");
    assert!(rows[1][col("labeller")].ends_with("round-1/model.txt"));
    for row in &rows {
        assert!(row[col("rows")].parse::<u64>().unwrap() >= 300);
        assert_eq!(&row[col("match_games")], "4");
        let score: f64 = row[col("match_score")].parse().unwrap();
        assert!((0.0..=1.0).contains(&score));
        assert_eq!(&row[col("timed_movetime_ms")], "20");
        assert_eq!(&row[col("timed_games")], "4");
        let score: f64 = row[col("timed_score")].parse().unwrap();
        assert!((0.0..=1.0).contains(&score));
        for ratio in ["match_nps_ratio", "timed_nps_ratio"] {
            let r: f64 = row[col(ratio)].parse().unwrap();
            assert!(r > 0.05 && r < 20.0, "{ratio} {r}");
        }
    }
    for model in [
        "round-1/model.txt",
        "round-2/model.txt",
        "final.model",
        "final.bin",
    ] {
        let meta = fs::read_to_string(out.join(format!("{model}.meta.toml"))).unwrap();
        let meta = kifulearn::model::ModelMeta::parse(&meta).unwrap();
        assert_eq!(meta.grain, Some(16), "{model}");
        // The scores learned are the self-play search's (generate_depth 1),
        // not the held-out teacher's (teacher_depth, 2 by default).
        assert_eq!(meta.teacher_depth, Some(1), "{model}");
    }
    let choice = kifulearn::eval::EvalChoice::Model(out.join("final.bin"));
    assert_eq!(kifulearn::eval::load_engine_parts(&choice).unwrap().1, 16);
    for round in [1, 2] {
        let positions = out.join(format!("round-{round}/generate/positions"));
        assert!(fs::read_dir(positions).unwrap().count() > 0);
        for dir in ["match", "match-timed"] {
            assert_eq!(
                fs::read_dir(out.join(format!("round-{round}/{dir}/games")))
                    .unwrap()
                    .count(),
                4
            );
        }
    }
    let _ = fs::remove_dir_all(&out);
}

#[test]
fn a_selfplay_round_learns_from_the_rounds_before_it() {
    // With learn_rounds = 2, round 2 learns from round 1's positions and its
    // own: round 1 is the same as with learn_rounds = 1 (nothing before it),
    // so is round 2's generation (same teacher, same seed), and round 2's
    // rows are the sum of both rounds' rows of the one-round runs.
    let text = |learn_rounds: &str| tiny_selfplay(learn_rounds, 2);
    let rows = |out: &Path| -> Vec<u64> {
        let mut r = csv::Reader::from_path(out.join("rounds.csv")).unwrap();
        let col = r
            .headers()
            .unwrap()
            .iter()
            .position(|h| h == "rows")
            .unwrap();
        r.records()
            .map(|row| row.unwrap()[col].parse().unwrap())
            .collect()
    };
    let one = Recipe::parse(&text(""), Path::new("one.toml")).unwrap();
    let explicit = Recipe::parse(&text("learn_rounds = 1"), Path::new("one.toml")).unwrap();
    assert_eq!(
        kifulearn::pipeline::run::recipe_fingerprint(&one),
        kifulearn::pipeline::run::recipe_fingerprint(&explicit),
        "the default learn_rounds leaves earlier runs' fingerprints alone"
    );
    let two = Recipe::parse(&text("learn_rounds = 2"), Path::new("two.toml")).unwrap();
    let (a, b) = (scratch("selfplay-learn-1"), scratch("selfplay-learn-2"));
    run_once(&one, &a);
    run_once(&two, &b);
    let (ra, rb) = (rows(&a), rows(&b));
    assert_eq!(rb[0], ra[0]);
    assert_eq!(
        rb[1],
        ra[0] + ra[1],
        "round 2 learns from both rounds' positions"
    );
    let err = Recipe::parse(&text("learn_rounds = 0"), Path::new("zero.toml")).unwrap_err();
    assert!(err.to_string().contains("learner.learn_rounds"), "{err}");
    let _ = fs::remove_dir_all(&a);
    let _ = fs::remove_dir_all(&b);
}

#[test]
fn a_selfplay_svr_round_is_positions_rows_then_fit_svr_around_the_prior() {
    // `fit = "svr"`: each round's generated positions become libsvm position
    // rows (`round-N/rows`) that the `[solver]` SVR fits around the prior
    // (material in round 1, round 1's model in round 2). The same rows and
    // the same model come from the commands a user runs by hand:
    // `positions GEN --rows DIR` and `fit svr DIR --prior P`.
    // (`epochs` is the positions learner's: a recipe that fits by the SVR
    // may not set it.)
    let text = tiny_selfplay("fit = \"svr\"", 2).replace("epochs = 2\n", "")
        + "[solver]\np = 0.0\nc = 0.002\n";
    let recipe = Recipe::parse(&text, Path::new("selfplay-svr.toml")).unwrap();
    let out = scratch("selfplay-svr");
    run_once(&recipe, &out);
    let s = |p: &Path| p.to_str().unwrap().to_string();
    for (round, prior) in [
        (1, "material".to_string()),
        (2, s(&out.join("round-1/model.txt"))),
    ] {
        let round_dir = out.join(format!("round-{round}"));
        let rows = out.join(format!("rows-{round}"));
        common::run_ok(&[
            "positions",
            &s(&round_dir.join("generate/positions")),
            "--rows",
            &s(&rows),
            "--features",
            "kp,material",
            "--result-weight",
            "0",
        ]);
        let names = |dir: &Path| -> Vec<(String, Vec<u8>)> {
            let mut v: Vec<_> = fs::read_dir(dir.join("rows"))
                .unwrap()
                .map(|e| {
                    let p = e.unwrap().path();
                    (
                        s(&p).rsplit('/').next().unwrap().to_string(),
                        fs::read(&p).unwrap(),
                    )
                })
                .collect();
            v.sort();
            v
        };
        let ours = names(&round_dir.join("rows"));
        assert!(!ours.is_empty() && ours.iter().all(|(_, b)| !b.is_empty()));
        assert_eq!(
            ours,
            names(&rows),
            "round {round}: the rows positions --rows writes"
        );
        let model = out.join(format!("fit-{round}.txt"));
        common::run_ok(&[
            "fit",
            "svr",
            &s(&rows),
            "--prior",
            &prior,
            "-p",
            "0",
            "-c",
            "0.002",
            "--jobs",
            "1",
            "--out",
            &s(&model),
        ]);
        let weights = |p: &Path| -> Vec<f64> {
            let text = fs::read_to_string(p).unwrap();
            let w = text.split_once("\nw\n").expect("a liblinear model").1;
            w.split_whitespace().map(|x| x.parse().unwrap()).collect()
        };
        let ours = weights(&round_dir.join("model.txt"));
        assert!(ours.iter().any(|&w| w != 0.0));
        assert_eq!(
            ours,
            weights(&model),
            "round {round}: the model fit svr fits"
        );
        let meta = fs::read_to_string(round_dir.join("model.txt.meta.toml")).unwrap();
        let meta = kifulearn::model::ModelMeta::parse(&meta).unwrap();
        assert_eq!(meta.prior.as_deref(), Some(prior.as_str()));
        assert_eq!(meta.c, Some(0.002));
    }
    let err = Recipe::parse(
        "[inputs]\npaths = [\"g\"]\n[learner]\nmethod = \"positions\"\nfit = \"svr\"\n",
        Path::new("r.toml"),
    )
    .unwrap_err();
    assert!(err.to_string().contains("learner.fit"), "{err}");
    let _ = fs::remove_dir_all(&out);
}

/// Issue 16's kill test for `pipeline run`: killed at random points (12 kills,
/// seeded delays), with the recipe's margin changed between some runs, then
/// run to the end with the final recipe: rounds, models and every round's
/// dataset equal a clean run's.
#[test]
fn a_pipeline_killed_anywhere_with_the_recipe_changed_ends_as_a_clean_run() {
    let base = RECIPE.replace(
        "\"fixtures/selfplay\"",
        &format!(
            "{:?}",
            concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/selfplay")
        ),
    );
    let other = base.replace("max_plies = 12", "max_plies = 12\nmargin = 150");
    let dir = common::dir("pipeline-kills");
    let recipes = [dir.join("final.toml"), dir.join("other.toml")];
    fs::write(&recipes[0], &base).unwrap();
    fs::write(&recipes[1], &other).unwrap();
    let start_in = start_pipeline;
    let clean = dir.join("clean");
    let t = std::time::Instant::now();
    assert!(start_in(&recipes[0], &clean).wait().unwrap().success());
    let ms = t.elapsed().as_millis() as u64 + 1;
    let out = dir.join("out");
    let mut rng = common::Rng(5);
    let mut kills = 0;
    while kills < 12 {
        let recipe = &recipes[usize::from(rng.below(3) == 0)];
        let mut child = start_in(recipe, &out);
        std::thread::sleep(std::time::Duration::from_millis(rng.below(ms)));
        if child.try_wait().unwrap().is_none() {
            child.kill().unwrap();
            kills += 1;
        }
        child.wait().unwrap();
    }
    assert!(start_in(&recipes[0], &out).wait().unwrap().success());
    assert_eq!(rounds_without_seconds(&out), rounds_without_seconds(&clean));
    for f in [
        "round-1/model.txt",
        "round-2/model.txt",
        "round-1/weights.csv",
        "round-2/weights.csv",
        "round-2/agreement.csv",
        "final.model",
        "final.bin",
        "round-1/extract/dataset.toml",
        "round-2/extract/dataset.toml",
    ] {
        same_bytes(&clean, &out, f);
    }
    for round in ["round-1", "round-2"] {
        for sub in ["rows", "reports"] {
            let folder = format!("{round}/extract/{sub}");
            let mut names: Vec<String> = fs::read_dir(clean.join(&folder))
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            names.sort();
            let mut theirs: Vec<String> = fs::read_dir(out.join(&folder))
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            theirs.sort();
            assert_eq!(names, theirs, "{folder}");
            for n in &names {
                same_bytes(&clean, &out, &format!("{folder}/{n}"));
            }
        }
    }
}

/// The first `n` game files of `fixtures/selfplay`, as a recipe with
/// `max_games = n` takes them (one game per file there).
fn first_fixture_games(n: usize) -> Vec<String> {
    let files =
        kifulearn::record::find_record_files(&[PathBuf::from("fixtures/selfplay")]).unwrap();
    files
        .iter()
        .take(n)
        .map(|f| f.display().to_string())
        .collect()
}

fn weights(path: &Path) -> Vec<f64> {
    kifulearn::model::Model::load(path).unwrap().w
}

#[test]
fn a_recipe_names_the_ranking_learner_and_fits_what_fit_fits() {
    // Issue "Strength", item 8: recipes name any learner. The round's model
    // is the one `fit ranking` makes from the same games and options.
    let text = r#"
[inputs]
paths = ["fixtures/selfplay"]
max_games = 4
[split]
held_out = 0.0
[features]
set = "relation,material"
[labels]
max_plies = 20
[learner]
method = "ranking"
leaf = "material"
epochs = 2
skip_plies = 4
rate = 0.0005
"#;
    let recipe = Recipe::parse(text, Path::new("tiny.toml")).unwrap();
    let out = scratch("ranking");
    run_once(&recipe, &out);
    let model = out.join("round-1/model.txt");
    let meta = fs::read_to_string(kifulearn::model::meta_path(&model)).unwrap();
    assert!(
        meta.contains("method = \"ranking\"") && meta.contains("leaf = \"material\""),
        "{meta}"
    );
    let cli = out.join("cli.model");
    let mut args = vec!["fit", "ranking"];
    let games = first_fixture_games(4);
    args.extend(games.iter().map(String::as_str));
    let cli_s = cli.display().to_string();
    args.extend([
        "--features",
        "relation,material",
        "--epochs",
        "2",
        "--skip-opening",
        "4",
        "--max-plies",
        "20",
        "--rate",
        "0.0005",
        "--leaf",
        "--prior",
        "material",
        "--anchor-material",
        "--jobs",
        "1",
        "--out",
        &cli_s,
        "-q",
    ]);
    common::run_ok(&args);
    let (a, b) = (weights(&model), weights(&cli));
    assert_eq!(a, b);
    // It learned something: not the material prior it started from.
    assert!(a.iter().filter(|w| **w != 0.0).count() > 104);
    let _ = fs::remove_dir_all(&out);
}

#[test]
fn a_recipe_names_the_streaming_learner_and_rows_at_the_leaf() {
    // Rows at the leaf as `extract --rows-at leaf` writes them, learned by the
    // streaming learner as `fit streaming` learns them.
    let text = r#"
[inputs]
paths = ["fixtures/selfplay"]
max_games = 3
[split]
held_out = 0.0
[labels]
max_plies = 14
rows_at = "leaf"
[learner]
method = "streaming"
epochs = 2
"#;
    let recipe = Recipe::parse(text, Path::new("tiny.toml")).unwrap();
    let out = scratch("streaming");
    run_once(&recipe, &out);
    let model = out.join("round-1/model.txt");
    let meta = fs::read_to_string(kifulearn::model::meta_path(&model)).unwrap();
    assert!(meta.contains("method = \"streaming\""), "{meta}");
    let rows = out.join("cli-rows");
    let cli = out.join("cli.model");
    let (rows_s, cli_s) = (rows.display().to_string(), cli.display().to_string());
    let games = first_fixture_games(3);
    let mut args = vec!["extract"];
    args.extend(games.iter().map(String::as_str));
    args.extend([
        "--out",
        &rows_s,
        "--rows-at",
        "leaf",
        "--max-plies",
        "14",
        "-q",
    ]);
    common::run_ok(&args);
    // The same rows, file by file.
    for f in fs::read_dir(rows.join("rows")).unwrap() {
        let f = f.unwrap().path();
        let name = f.file_name().unwrap();
        assert_eq!(
            fs::read(&f).unwrap(),
            fs::read(out.join("round-1/extract/rows").join(name)).unwrap(),
            "{name:?}"
        );
    }
    let rows_dir = rows.join("rows").display().to_string();
    common::run_ok(&[
        "fit",
        "streaming",
        &rows_dir,
        "--features",
        "relation",
        "--epochs",
        "2",
        "--out",
        &cli_s,
        "-q",
    ]);
    assert_eq!(weights(&model), weights(&cli));
    let _ = fs::remove_dir_all(&out);
}

/// The recipe files of `pipelines/`, sorted.
fn bundled_recipes() -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/pipelines"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    paths.sort();
    assert!(paths.len() >= 8, "{} recipes", paths.len());
    paths
}

#[test]
fn every_bundled_recipe_parses() {
    for path in bundled_recipes() {
        let text = fs::read_to_string(&path).unwrap();
        Recipe::parse(&text, &path).unwrap_or_else(|e| panic!("{e}"));
    }
}

/// Every recipe of `pipelines/` runs from the repository alone: each file or
/// folder it names (inputs, generation and match openings) is inside the
/// repository, and one short round of it (its first 8 games, 30 plies each,
/// one epoch, a few solver iterations, 200 generated positions, 2 match
/// games at depth 1) ends with a model and a row of `rounds.csv`.
#[test]
fn every_bundled_recipe_runs_one_short_round_from_the_repository_alone() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .canonicalize()
        .unwrap();
    for path in bundled_recipes() {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let mut recipe = Recipe::load(&path).unwrap_or_else(|e| panic!("{e}"));
        let named = recipe
            .inputs
            .paths
            .iter()
            .chain(&recipe.learner.generate_openings);
        for p in named.chain(&recipe.arena.openings) {
            let p = p
                .canonicalize()
                .unwrap_or_else(|e| panic!("{name}: {}: {e}", p.display()));
            assert!(
                p.starts_with(&root),
                "{name}: {} is outside the repository",
                p.display()
            );
        }
        let matched = recipe.arena.games > 0;
        recipe.rounds = 1;
        recipe.inputs.max_games = 8;
        recipe.labels.max_plies = 30;
        recipe.solver.max_iterations = 5;
        recipe.learner.epochs = 1;
        recipe.learner.teacher_depth = 1;
        recipe.learner.generate_positions = 200;
        recipe.learner.generate_depth = 1;
        recipe.arena.games = recipe.arena.games.min(2);
        recipe.arena.depth = 1;
        recipe.arena.movetime = None;
        let out = scratch(&format!("recipe-{name}"));
        let result =
            run_recipe(&recipe, &out, Arc::new(Quiet)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(result.rounds, 1, "{name}");
        assert!(fs::metadata(&result.final_bin).unwrap().len() > 0, "{name}");
        let rows = rounds_by_name(&out);
        assert_eq!(rows.len(), 1, "{name}");
        let count = |h: &str| rows[0][h].parse::<u64>().unwrap();
        assert!(count("rows") > 0, "{name}: no rows");
        if recipe.learner.method.name() != "selfplay" {
            assert_eq!(count("train_games") + count("heldout_games"), 8, "{name}");
        }
        let games = if matched { "2" } else { "" };
        assert_eq!(rows[0]["match_games"], games, "{name}");
        let _ = fs::remove_dir_all(&out);
    }
}

/// `pipeline run --input PATH --generate-openings FILE` replaces a recipe's
/// inputs and names its generation openings, as `docs/results.md`'s commands
/// give the development collection: the run reads the inputs given (not the
/// recipe's, which do not exist) and generation records the file.
#[test]
fn the_command_line_replaces_inputs_and_generation_openings() {
    let dir = scratch("cli-overrides");
    fs::create_dir_all(&dir).unwrap();
    let recipe = dir.join("tiny.toml");
    let text = tiny_selfplay("", 0).replace("rounds = 2", "rounds = 1");
    fs::write(&recipe, text.replace("fixtures/selfplay", "no/such/folder")).unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let openings = root
        .join("fixtures/floodgate-30.sfen")
        .display()
        .to_string();
    let pro = root.join("fixtures/pro").display().to_string();
    let out = dir.join("out");
    let (recipe, out_arg) = (recipe.display().to_string(), out.display().to_string());
    common::run_ok(&[
        "-q",
        "pipeline",
        "run",
        &recipe,
        "--out",
        &out_arg,
        "--input",
        &pro,
        "--generate-openings",
        &openings,
    ]);
    let rows = rounds_by_name(&out);
    let games = |h: &str| rows[0][h].parse::<usize>().unwrap();
    assert_eq!(
        games("train_games") + games("heldout_games"),
        2,
        "fixtures/pro"
    );
    let generate = fs::read_to_string(out.join("round-1/generate/generate.toml")).unwrap();
    assert!(generate.contains(&openings), "{generate}");
    let _ = fs::remove_dir_all(&dir);
}

/// With `-q` a run prints its closing table and nothing else: what the model
/// learned from, its score against material with the 95% interval (the
/// rounds.csv figures), where the model is and the command that plays it.
#[test]
fn a_quiet_run_prints_only_the_summary_table() {
    let dir = scratch("summary");
    fs::create_dir_all(&dir).unwrap();
    let recipe = dir.join("tiny.toml");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = tiny_selfplay("", 4)
        .replace("rounds = 2", "rounds = 1")
        .replace(
            "fixtures/selfplay",
            &root.join("fixtures/pro").display().to_string(),
        );
    fs::write(&recipe, text).unwrap();
    let out = dir.join("out");
    let (recipe, out_arg) = (recipe.display().to_string(), out.display().to_string());
    let run = common::run_ok(&["-q", "pipeline", "run", &recipe, "--out", &out_arg]);
    assert!(
        run.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let stdout = String::from_utf8(run.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 5, "{stdout}");
    assert!(
        lines
            .iter()
            .all(|l| l.starts_with("| ") && l.ends_with(" |")),
        "{stdout}"
    );
    let row = |name: &str| {
        let line = lines.iter().find(|l| l[2..].starts_with(name)).unwrap();
        line.split(" | ")
            .nth(1)
            .unwrap()
            .trim_end_matches(" |")
            .to_string()
    };
    let learned = row("learned from");
    assert!(
        learned.contains("self-play positions, played and scored by material at depth 1"),
        "{learned}"
    );
    let rows = rounds_by_name(&out);
    assert!(
        learned.starts_with(&format!("{} ", rows[0]["rows"])),
        "{learned}"
    );
    let score: f64 = rows[0]["match_score"].parse().unwrap();
    let vs = row("vs material");
    assert!(vs.starts_with(&format!("{score:.3} [")), "{vs} / {score}");
    assert!(vs.contains("in 4 games at depth 1"), "{vs}");
    let bin = out.join("final.bin").display().to_string();
    assert!(row("model").starts_with(&bin), "{stdout}");
    assert_eq!(row("play it"), format!("kifulearn usi --model {bin}"));
    let _ = fs::remove_dir_all(&dir);
}

/// Test openings are never trained on: a recipe whose inputs hold the
/// matches' openings (here their file itself, beside training openings and
/// real games) trains on the others and leaves every test line out, by name.
#[test]
fn training_leaves_out_every_game_through_a_test_opening() {
    let recipe = Recipe::parse(
        r#"
[inputs]
paths = ["fixtures/openings/match.sfen", "fixtures/floodgate-30.sfen", "fixtures/tournament"]
[split]
held_out = 0.0
"#,
        Path::new("t.toml"),
    )
    .unwrap();
    let games = kifulearn::pipeline::run::read_games(&recipe).unwrap();
    assert_eq!(
        games.test_openings.len(),
        575,
        "{:?}",
        &games.test_openings[..3]
    );
    assert!(games
        .test_openings
        .iter()
        .all(|s| s.contains("openings/match.sfen#")));
    let tournament =
        kifulearn::record::read_games(&[PathBuf::from("fixtures/tournament")]).unwrap();
    assert!(tournament.len() >= 5);
    assert_eq!(games.train.len(), 30 + tournament.len());
    assert!(games.heldout.is_empty());
}
