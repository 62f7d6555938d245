//! The dataset folder `extract --out` writes (docs/dataset.md), driven through
//! the command line: read by scikit-learn and Spark given only the path and
//! `dataset.toml`'s dimension; the issue-16 reproductions (resume under other
//! options, names that collide, two runs on one folder, `fit` under another
//! feature set); shards that add up; and runs killed anywhere.
//!
//! Peers (scikit-learn, pyspark with a JVM) are skipped with a printed note when
//! missing, and required when `CI` is set (`.ci/install-peers.sh`).

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use kifulearn::extract::manifest::lines_without_seconds;
use kifulearn::libsvm::dataset::DatasetInfo;
use kifulearn::libsvm::read_paths_with_groups;

/// Writes bundled floodgate lines `from..from + n` (`common::floodgate_lines`) to `dir/NAME`, one game a line.
/// Lines from 30 on are the matches' test openings, which `extract` leaves out
/// unless told `--keep-test-openings`: every extraction here passes it.
fn games_file(dir: &Path, name: &str, from: usize, n: usize) -> PathBuf {
    let lines = common::floodgate_lines(from + n);
    let path = dir.join(name);
    fs::write(&path, lines[from..].join("\n") + "\n").unwrap();
    path
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn kifulearn(args: &[&str]) -> (i32, String) {
    let out = common::run(args);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Every file under `dir` but the manifest (its `seconds` vary) and the lock,
/// by relative path, with its bytes.
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
        for e in fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            if p.is_dir() {
                walk(root, &p, out);
            } else if name != "manifest.csv" && name != ".lock" {
                let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
                out.push((rel, fs::read(&p).unwrap()));
            }
        }
    }
    let mut v = Vec::new();
    walk(dir, dir, &mut v);
    v.sort();
    v
}

/// The manifest's lines without `seconds`, sorted.
fn manifest(dir: &Path) -> Vec<String> {
    lines_without_seconds(dir).unwrap()
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// A small dataset with qids: 4 games, plies 4..12.
fn small_dataset(name: &str, qid: bool) -> PathBuf {
    let dir = common::dir(name);
    let input = games_file(&dir, "games.sfen", 200, 4);
    let out = dir.join("data");
    let mut args = vec![
        "extract",
        s(&input),
        "--keep-test-openings",
        "--out",
        s(&out),
        "--skip-opening",
        "4",
        "--max-plies",
        "12",
        "--features",
        "relation,material",
    ];
    if qid {
        args.push("--qid");
    }
    let (code, err) = kifulearn(&args);
    assert_eq!(code, 0, "{err}");
    out
}

/// scikit-learn reads the rows of a folder given its path and `dataset.toml`
/// alone: the dimension for `n_features`, and `qid` for `query_id`.
const SKLEARN: &str = r#"
import glob, sys, tomllib
import numpy as np
from sklearn.datasets import load_svmlight_files
d = sys.argv[1]
info = tomllib.load(open(d + "/dataset.toml", "rb"))
files = sorted(glob.glob(d + "/rows/*.svm"))
parts = load_svmlight_files(files, n_features=info["dimension"], zero_based=False, query_id=info["qid"])
step = 3 if info["qid"] else 2
xs, ys, qs = parts[0::step], parts[1::step], (parts[2::step] if info["qid"] else [])
print(len(files), sum(x.shape[0] for x in xs), sum(x.nnz for x in xs), xs[0].shape[1])
print(" ".join(str(int(q)) for part in qs for q in part))
print(" ".join(repr(float(y)) for part in ys for y in part))
"#;

#[test]
fn scikit_learn_reads_the_folder_with_the_dimension_from_dataset_toml() {
    if !common::have_python("sklearn, numpy, tomllib", "scikit-learn") {
        return;
    }
    let out = small_dataset("sklearn", true);
    let info = DatasetInfo::read(&out).unwrap();
    assert_eq!(info.features, "relation,material");
    assert!(info.qid);
    let text = common::python(SKLEARN, &[s(&out)]);
    let mut lines = text.lines();
    let head: Vec<u64> = lines
        .next()
        .unwrap()
        .split(' ')
        .map(|t| t.parse().unwrap())
        .collect();
    assert_eq!(head, [4, info.rows, info.nonzeros, info.dimension]);
    // Our reader on the folder: the same rows, labels and groups.
    let (data, groups) = read_paths_with_groups(&[&out]).unwrap();
    let ours: Vec<String> = groups
        .unwrap()
        .iter()
        .map(|g| g.unwrap().to_string())
        .collect();
    assert_eq!(lines.next().unwrap(), ours.join(" "));
    let labels: Vec<f64> = lines
        .next()
        .unwrap()
        .split(' ')
        .map(|t| t.parse().unwrap())
        .collect();
    assert_eq!(labels, data.y.to_vec());
    // 4 games × 8 positions: qids 1..=32.
    let mut q: Vec<&str> = ours.iter().map(String::as_str).collect();
    q.dedup();
    assert_eq!(q.len(), 32);
}

/// Spark's libsvm source reads `rows/` (the folder, no glob) with
/// `numFeatures` from `dataset.toml`.
const SPARK: &str = r#"
import sys, tomllib
from pyspark.sql import SparkSession
d = sys.argv[1]
info = tomllib.load(open(d + "/dataset.toml", "rb"))
spark = SparkSession.builder.master("local[1]").appName("kifulearn-dataset").config("spark.ui.enabled", "false").getOrCreate()
spark.sparkContext.setLogLevel("ERROR")
df = spark.read.format("libsvm").option("numFeatures", info["dimension"]).load(d + "/rows")
rows = df.collect()
print(len(rows), sum(len(r.features.indices) for r in rows), rows[0].features.size)
print(repr(sorted(float(r.label) for r in rows)[:5]))
spark.stop()
"#;

#[test]
fn spark_loads_the_rows_folder_as_it_is() {
    if !common::have_python("pyspark, tomllib", "pyspark (and a Java runtime)") {
        return;
    }
    let out = small_dataset("spark", false);
    let info = DatasetInfo::read(&out).unwrap();
    let text = common::python(SPARK, &[s(&out)]);
    let head: Vec<u64> = text
        .lines()
        .next()
        .unwrap()
        .split(' ')
        .map(|t| t.parse().unwrap())
        .collect();
    assert_eq!(head, [info.rows, info.nonzeros, info.dimension]);
}

#[test]
fn rerun_with_other_options_redoes_every_game_and_says_why() {
    let dir = common::dir("options");
    let input = games_file(&dir, "games.sfen", 10, 3);
    let run = |out: &Path, margin: &str| {
        kifulearn(&[
            "extract",
            s(&input),
            "--keep-test-openings",
            "--out",
            s(out),
            "--max-plies",
            "8",
            "--margin",
            margin,
        ])
    };
    let clean = dir.join("clean");
    assert_eq!(run(&clean, "150").0, 0);
    let out = dir.join("out");
    assert_eq!(run(&out, "100").0, 0);
    let (code, err) = run(&out, "150");
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains(
            "redid 3 game(s) (games-00000, games-00001, games-00002): options changed: margin 100 → 150"
        ),
        "{err}"
    );
    assert!(err.contains("3 games (0 resumed, 0 failed)"), "{err}");
    assert_eq!(files(&out), files(&clean));
    assert_eq!(manifest(&out), manifest(&clean));
    // Unchanged options: everything reused.
    let (_, err) = run(&out, "150");
    assert!(err.contains("3 games (3 resumed, 0 failed)"), "{err}");
    assert!(!err.contains("redid"), "{err}");
}

#[test]
fn three_files_whose_names_clean_to_one_give_three_games() {
    let dir = common::dir("names");
    let input = dir.join("in");
    fs::create_dir_all(&input).unwrap();
    for (i, name) in ["a b.sfen", "a_b.sfen", "a_b_2.sfen"].iter().enumerate() {
        games_file(&input, name, 30 + i, 1);
    }
    let out = dir.join("out");
    for _ in 0..2 {
        let (code, err) = kifulearn(&[
            "extract",
            s(&input),
            "--keep-test-openings",
            "--out",
            s(&out),
            "--max-plies",
            "4",
        ]);
        assert_eq!(code, 0, "{err}");
    }
    let rows = names(&out.join("rows"));
    assert_eq!(rows.len(), 3, "{rows:?}");
    assert!(rows.iter().any(|r| r.starts_with("a_b~")), "{rows:?}");
    assert!(rows.contains(&"a_b-00000.svm".to_string()), "{rows:?}");
    assert!(rows.contains(&"a_b_2-00000.svm".to_string()), "{rows:?}");
    // Three different games, each in its own file, kept across the rerun.
    let mut contents: Vec<Vec<u8>> = rows
        .iter()
        .map(|r| fs::read(out.join("rows").join(r)).unwrap())
        .collect();
    contents.dedup();
    assert_eq!(contents.len(), 3);
    assert_eq!(DatasetInfo::read(&out).unwrap().games, 3);
}

#[test]
fn a_second_run_on_a_folder_being_written_is_refused() {
    let dir = common::dir("lock");
    let input = games_file(&dir, "games.sfen", 100, 40);
    let out = dir.join("out");
    let mut first = Command::new(env!("CARGO_BIN_EXE_kifulearn"))
        .args([
            "extract",
            s(&input),
            "--keep-test-openings",
            "--out",
            s(&out),
            "--jobs",
            "1",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Wait until the first run is writing rows.
    let deadline = Instant::now() + Duration::from_secs(60);
    while !out.join("rows").is_dir() || names(&out.join("rows")).is_empty() {
        assert!(Instant::now() < deadline, "the first run wrote nothing");
        std::thread::sleep(Duration::from_millis(10));
    }
    let (code, err) = kifulearn(&[
        "extract",
        s(&input),
        "--keep-test-openings",
        "--out",
        s(&out),
        "--margin",
        "150",
    ]);
    let still_running = first.try_wait().unwrap().is_none();
    let _ = first.kill();
    let _ = first.wait();
    assert!(
        still_running,
        "the first run ended before the second started: test inconclusive"
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!(
            "{} is being written by another run (pid {} (extract))",
            out.display(),
            first.id()
        )),
        "{err}"
    );
}

#[test]
fn fit_takes_the_feature_set_from_the_dataset_and_refuses_another() {
    let out = small_dataset("fit-features", false);
    let model = out.parent().unwrap().join("m.txt");
    // The dual solver: the model's weights do not matter here, only its sidecar.
    let (code, err) = kifulearn(&[
        "fit",
        "svr",
        s(&out),
        "--out",
        s(&model),
        "--solver",
        "dual",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("features relation,material (from dataset.toml)"),
        "{err}"
    );
    let meta = fs::read_to_string(out.parent().unwrap().join("m.txt.meta.toml")).unwrap();
    assert!(meta.contains("features = \"relation,material\""), "{meta}");
    let (code, err) = kifulearn(&[
        "fit",
        "svr",
        s(&out),
        "--out",
        s(&model),
        "--features",
        "relation",
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains(&format!(
            "--features relation but {} was extracted with features \"relation,material\"",
            out.display()
        )),
        "{err}"
    );
    // Naming the same set (in any spelling the parser accepts) is fine.
    let (code, err) = kifulearn(&[
        "fit",
        "svr",
        s(&out),
        "--out",
        s(&model),
        "--solver",
        "dual",
        "--features",
        "relation,material",
    ]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn three_shards_merged_on_the_command_line_equal_one_run() {
    let dir = common::dir("shards-cli");
    let input = games_file(&dir, "games.sfen", 300, 9);
    let common_args = ["--max-plies", "6", "--qid"];
    let run = |out: &Path, extra: &[&str]| {
        let mut args = vec![
            "extract",
            s(&input),
            "--keep-test-openings",
            "--out",
            s(out),
        ];
        args.extend(common_args);
        args.extend(extra);
        kifulearn(&args)
    };
    let whole = dir.join("whole");
    assert_eq!(run(&whole, &[]).0, 0);
    let parts: Vec<PathBuf> = (0..3).map(|k| dir.join(format!("part{k}"))).collect();
    let mut games = 0;
    for (k, part) in parts.iter().enumerate() {
        let (code, err) = run(part, &["--shard", &format!("{k}/3")]);
        assert_eq!(code, 0, "{err}");
        assert!(err.contains(&format!("of shard {k}/3 (9 in all)")), "{err}");
        games += DatasetInfo::read(part).unwrap().games;
    }
    assert_eq!(games, 9);
    let merged = dir.join("merged");
    let mut args = vec!["dataset", "merge"];
    args.extend(parts.iter().map(|p| s(p)));
    args.extend(["--out", s(&merged)]);
    let (code, err) = kifulearn(&args);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("merged 3 shards: 9 games"), "{err}");
    assert_eq!(files(&merged), files(&whole));
    assert_eq!(manifest(&merged), manifest(&whole));
    // A shard made with other options is refused, naming the key.
    let other = dir.join("other");
    assert_eq!(
        kifulearn(&[
            "extract",
            s(&input),
            "--keep-test-openings",
            "--out",
            s(&other),
            "--max-plies",
            "6",
            "--shard",
            "2/3"
        ])
        .0,
        0
    );
    let (code, err) = kifulearn(&[
        "dataset",
        "merge",
        s(&parts[0]),
        s(&parts[1]),
        s(&other),
        "--out",
        s(&dir.join("bad")),
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains(&format!("{} has qid = false but", other.display())),
        "{err}"
    );
}

/// Issue 16's kill test: `extract` and `fit` killed at random points (60
/// kills), with the options changed between some runs, then run to the end:
/// the outputs equal a clean run of the final options, byte for byte.
#[test]
fn runs_killed_anywhere_end_as_a_clean_run() {
    let dir = common::dir("kills");
    let input = games_file(&dir, "games.sfen", 400, 4);
    let option_sets: [&[&str]; 3] = [
        &["--max-plies", "10"],
        &["--max-plies", "10", "--margin", "150", "--qid"],
        &["--max-plies", "10", "--features", "relation,material"],
    ];
    let extract_args = |out: &Path, set: usize| {
        let mut a: Vec<String> = [
            "extract",
            s(&input),
            "--keep-test-openings",
            "--out",
            s(out),
            "--jobs",
            "2",
        ]
        .iter()
        .map(|x| x.to_string())
        .collect();
        a.extend(option_sets[set].iter().map(|x| x.to_string()));
        a
    };
    let fit_args = |data: &Path, model: &Path| -> Vec<String> {
        ["fit", "svr", s(data), "--out", s(model), "-e", "0.01"]
            .iter()
            .map(|x| x.to_string())
            .collect()
    };
    let run_to_end = |args: &[String]| {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, err) = kifulearn(&a);
        assert_eq!(code, 0, "{args:?}: {err}");
    };
    // Clean runs of the final options, timed to spread the kills over a run.
    let final_set = 2;
    let clean = dir.join("clean");
    let t = Instant::now();
    run_to_end(&extract_args(&clean, final_set));
    let extract_ms = t.elapsed().as_millis() as u64 + 1;
    let clean_model = dir.join("clean.txt");
    let t = Instant::now();
    run_to_end(&fit_args(&clean, &clean_model));
    let fit_ms = t.elapsed().as_millis() as u64 + 1;

    let out = dir.join("out");
    let model = dir.join("out.txt");
    let mut rng = common::Rng(17);
    let mut set = 0;
    let mut kills = 0;
    let mut finished = 0;
    while kills < 60 {
        if rng.below(4) == 0 {
            set = rng.below(option_sets.len() as u64) as usize;
        }
        let fit = rng.below(4) == 0;
        let (args, ms) = if fit {
            (fit_args(&out, &model), fit_ms)
        } else {
            (extract_args(&out, set), extract_ms)
        };
        let mut child = Command::new(env!("CARGO_BIN_EXE_kifulearn"))
            .args(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let delay = rng.below(ms + ms / 4);
        std::thread::sleep(Duration::from_millis(delay));
        if child.try_wait().unwrap().is_none() {
            child.kill().unwrap();
            kills += 1;
        } else {
            finished += 1;
        }
        child.wait().unwrap();
    }
    run_to_end(&extract_args(&out, final_set));
    run_to_end(&fit_args(&out, &model));
    eprintln!("{kills} kills, {finished} runs that ended before their kill");
    assert_eq!(files(&out), files(&clean));
    assert_eq!(manifest(&out), manifest(&clean));
    assert_eq!(fs::read(&model).unwrap(), fs::read(&clean_model).unwrap());
    let meta = |p: &Path, data: &Path| {
        fs::read_to_string(format!("{}.meta.toml", p.display()))
            .unwrap()
            .replace(s(data), "DATA")
            .lines()
            .filter(|l| !l.starts_with("seconds"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(meta(&model, &out), meta(&clean_model, &clean));
}
