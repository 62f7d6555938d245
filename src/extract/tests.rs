use super::*;
use crate::eval::Material;
use crate::features::Features;
use crate::libsvm::dataset::DatasetInfo;
use crate::record::usi;
use crate::record::Source;

/// Games from the bundled floodgate opening lines (`crate::testdata`), read
/// by the USI-line reader, which replays and checks every move.
pub(crate) fn floodgate_jobs(n: usize) -> Vec<GameJob> {
    let path = crate::testdata::fixture("floodgate-30.sfen");
    crate::testdata::floodgate_lines(n)
        .iter()
        .enumerate()
        .map(|(index, line)| {
            let source = Source {
                path: path.clone(),
                index,
            };
            let mut game = usi::read(line, &source.path).remove(0).unwrap();
            game.source = source.clone();
            GameJob {
                name: game_name("floodgate2016-openings", index),
                source: source.to_string(),
                game: Ok(game),
            }
        })
        .collect()
}

pub(crate) fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kifulearn-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    dir
}

fn relation() -> Features {
    "relation".parse().unwrap()
}

/// Every file of a dataset folder but the manifest (whose `seconds` vary) and
/// the lock, by path relative to `dir`, with its bytes.
pub(crate) fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
        for e in fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(root, &p, out);
            } else if !p.ends_with(MANIFEST) && !p.ends_with(lock::LOCK_FILE) {
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

#[test]
fn rows_match_positions_and_labels_single_out_the_game_move() {
    let dir = scratch("rows");
    let jobs = floodgate_jobs(3);
    let options = ExtractOptions {
        skip_opening: 2,
        max_plies: Some(20),
        ..ExtractOptions::default()
    };
    let summary = run(&jobs, &dir, &relation(), &Material, &options, |_, _| {}).unwrap();
    assert_eq!(summary.resumed, 0);
    for (job, report) in jobs.iter().zip(&summary.reports) {
        assert!(report.is_ok(), "{report:?}");
        assert_eq!(report.plies, 18);
        let game = job.game.as_ref().unwrap();
        let svm = fs::read_to_string(rows_path(&dir, &job.name)).unwrap();
        let csv = fs::read_to_string(report_path(&dir, &job.name)).unwrap();
        let svm: Vec<&str> = svm.lines().collect();
        let mut csv = csv.lines();
        assert_eq!(csv.next(), Some("ply,move,game_move,value,label"));
        let csv: Vec<Vec<&str>> = csv.map(|l| l.split(',').collect()).collect();
        assert_eq!(svm.len(), csv.len());
        assert_eq!(report.rows, svm.len() as u64);
        let nonzeros: usize = svm.iter().map(|l| l.split(' ').count() - 1).sum();
        assert_eq!(report.nonzeros, nonzeros as u64);
        // Every labelled position, in order, with one row per legal move.
        let mut pos = game.start.clone();
        let mut at = 0;
        for (ply, &mv) in game.moves.iter().enumerate().take(20) {
            if ply >= 2 {
                let legal = pos.legal_moves();
                let group = &csv[at..at + legal.len()];
                let lines = &svm[at..at + legal.len()];
                let mut best = f64::NEG_INFINITY;
                let mut game_label = None;
                for ((row, line), m) in group.iter().zip(lines).zip(&legal) {
                    assert_eq!(row[0], ply.to_string());
                    assert_eq!(row[1], m.to_string());
                    let label: f64 = row[4].parse().unwrap();
                    assert_eq!(line.split(' ').next().unwrap(), row[4]);
                    if row[2] == "1" {
                        assert_eq!(*m, mv);
                        assert!(game_label.is_none());
                        game_label = Some(label);
                    } else {
                        best = best.max(label);
                    }
                }
                assert!(game_label.unwrap() - best >= 0.01 - 1e-12);
                at += legal.len();
            }
            pos.play_unchecked(mv);
        }
        assert_eq!(at, svm.len());
    }
    let manifest = fs::read_to_string(dir.join(MANIFEST)).unwrap();
    assert!(manifest.starts_with(
        "game,source,plies,rows,nonzeros,seconds,status,options,rows_hash,report_hash\n"
    ));
    assert_eq!(manifest.lines().count(), 4);
    // The rows folder holds the rows and nothing else; dataset.toml describes them.
    let names: Vec<String> = fs::read_dir(dir.join("rows"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 3);
    assert!(names.iter().all(|n| n.ends_with(".svm")), "{names:?}");
    let info = DatasetInfo::read(&dir).unwrap();
    let rows: u64 = summary.reports.iter().map(|r| r.rows).sum();
    let nonzeros: u64 = summary.reports.iter().map(|r| r.nonzeros).sum();
    assert_eq!(
        (info.rows, info.nonzeros, info.games, info.failed),
        (rows, nonzeros, 3, 0)
    );
    assert_eq!(info.dimension, u64::from(relation().dimension()));
    assert_eq!(info.features, "relation");
    assert_eq!(info.max_plies, Some(20));
    assert_eq!(info.label.as_ref().unwrap().margin, 100);
    assert_eq!(info.label.as_ref().unwrap().labeller, "material");
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn interrupted_runs_resume_with_nothing_lost_or_doubled() {
    let jobs = floodgate_jobs(5);
    let options = ExtractOptions::default();
    let set = relation();
    let fresh = scratch("fresh");
    run(&jobs, &fresh, &set, &Material, &options, |_, _| {}).unwrap();

    let dir = scratch("resume");
    // A run cut short after two games, then the full set.
    let first = run(&jobs[..2], &dir, &set, &Material, &options, |_, _| {}).unwrap();
    assert_eq!(first.resumed, 0);
    let second = run(&jobs, &dir, &set, &Material, &options, |_, _| {}).unwrap();
    assert_eq!(second.resumed, 2);
    assert_eq!(files(&dir), files(&fresh));

    // A kill mid-write: one file truncated, one missing, a stray temporary file,
    // and the manifest's last line cut short.
    let svm = rows_path(&dir, &jobs[1].name);
    let text = fs::read(&svm).unwrap();
    fs::write(&svm, &text[..text.len() / 2]).unwrap();
    fs::remove_file(report_path(&dir, &jobs[3].name)).unwrap();
    let stray = temp_path(&rows_path(&dir, &jobs[4].name));
    fs::write(&stray, "1 2:3\n").unwrap();
    let manifest = fs::read_to_string(dir.join(MANIFEST)).unwrap();
    fs::write(dir.join(MANIFEST), &manifest[..manifest.len() - 5]).unwrap();
    let mut redone = Vec::new();
    let lock = Mutex::new(&mut redone);
    let third = run(&jobs, &dir, &set, &Material, &options, |r, resumed| {
        if !resumed {
            lock.lock().unwrap().push(r.game.clone());
        }
    })
    .unwrap();
    redone.sort();
    // Job 4's manifest line lost its status, so job 4 is redone too.
    assert_eq!(
        redone,
        [
            jobs[1].name.clone(),
            jobs[3].name.clone(),
            jobs[4].name.clone()
        ]
    );
    assert_eq!(third.resumed, 2);
    assert!(!stray.exists(), "a killed run's temporary file is cleared");
    let reasons: Vec<&str> = third.redone.iter().map(|r| r.1.as_str()).collect();
    assert!(
        reasons[0].ends_with("is not what was written") || reasons[0].contains("content hash"),
        "{reasons:?}"
    );
    assert!(reasons[1].ends_with("is missing"), "{reasons:?}");
    assert_eq!(files(&dir), files(&fresh));
    let manifest = read_manifest(&dir);
    assert_eq!(manifest.len(), 5);
    assert!(manifest.values().all(GameReport::is_ok));
    let text = fs::read_to_string(dir.join(MANIFEST)).unwrap();
    assert_eq!(text.lines().count(), 6);
    let _ = fs::remove_dir_all(&dir);
    let _ = fs::remove_dir_all(&fresh);
}

#[test]
fn a_bad_game_is_reported_and_the_others_kept() {
    let dir = scratch("bad");
    let mut jobs = floodgate_jobs(2);
    jobs.insert(
        1,
        GameJob {
            name: "broken-00000".into(),
            source: "broken.csa#0".into(),
            game: Err("broken.csa:3: found \"+9999XX\", expected a move".into()),
        },
    );
    let summary = run(
        &jobs,
        &dir,
        &relation(),
        &Material,
        &ExtractOptions::default(),
        |_, _| {},
    )
    .unwrap();
    let status: Vec<&str> = summary.reports.iter().map(|r| r.status.as_str()).collect();
    assert_eq!(
        status,
        [
            "ok",
            "error: broken.csa:3: found \"+9999XX\", expected a move",
            "ok"
        ]
    );
    assert!(!rows_path(&dir, "broken-00000").exists());
    assert_eq!(DatasetInfo::read(&dir).unwrap().failed, 1);
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn file_stems_are_unique_per_path() {
    let files = [
        PathBuf::from("a/games.csa"),
        PathBuf::from("b/games.kif"),
        PathBuf::from("c/other game.csa"),
        PathBuf::from("d/Games.csa"),
        PathBuf::from("e/single.csa"),
    ];
    let stems = file_stems(&files);
    assert_eq!(stems[4], "single");
    for (i, prefix) in [
        (0, "games~"),
        (1, "games~"),
        (2, "other_game~"),
        (3, "Games~"),
    ] {
        assert!(stems[i].starts_with(prefix), "{stems:?}");
        assert_eq!(stems[i].len(), prefix.len() + 12, "{stems:?}");
    }
    // A name depends on its path, not on the order of the files.
    let mut reversed = files.to_vec();
    reversed.reverse();
    let mut back = file_stems(&reversed);
    back.reverse();
    assert_eq!(back, stems);
    assert_eq!(game_name("games", 7), "games-00007");
    // Nor on the folder they all share, however it is spelt: two rounds'
    // generated files name their rows alike wherever the run is.
    let rounds = |root: &str| {
        file_stems(&[
            PathBuf::from(format!("{root}round-1/generate/positions/000000.psv")),
            PathBuf::from(format!("{root}round-2/generate/positions/000000.psv")),
        ])
    };
    let here = rounds("out/r/");
    assert_ne!(here[0], here[1]);
    assert!(here[0].starts_with("000000~"), "{here:?}");
    assert_eq!(rounds("/tmp/elsewhere/out/r/"), here);
    assert_eq!(rounds(""), here);

    // Issue 16: `a b.csa`, `a_b.csa` and `a_b_2.csa` in one folder are three games, three names.
    let three = [
        PathBuf::from("in/a b.csa"),
        PathBuf::from("in/a_b.csa"),
        PathBuf::from("in/a_b_2.csa"),
    ];
    let stems = file_stems(&three);
    let unique: std::collections::HashSet<String> =
        stems.iter().map(|s| s.to_lowercase()).collect();
    assert_eq!(unique.len(), 3, "{stems:?}");
    assert!(stems[0].starts_with("a_b~"), "{stems:?}");
    assert_eq!(stems[1], "a_b");
    assert_eq!(stems[2], "a_b_2");
}

#[test]
fn changed_options_redo_every_game_and_say_why() {
    let jobs = floodgate_jobs(3);
    let set = relation();
    let short = ExtractOptions {
        max_plies: Some(8),
        ..ExtractOptions::default()
    };
    let wider = ExtractOptions {
        label: LabelOptions {
            margin: 150,
            ..short.label
        },
        ..short.clone()
    };
    let fresh = scratch("options-fresh");
    run(&jobs, &fresh, &set, &Material, &wider, |_, _| {}).unwrap();
    let dir = scratch("options");
    run(&jobs, &dir, &set, &Material, &short, |_, _| {}).unwrap();
    let second = run(&jobs, &dir, &set, &Material, &wider, |_, _| {}).unwrap();
    assert_eq!(second.resumed, 0);
    assert_eq!(second.redone.len(), 3);
    for (_, why) in &second.redone {
        assert_eq!(why, "options changed: margin 100 → 150");
    }
    assert_eq!(files(&dir), files(&fresh));
    assert_eq!(
        manifest::lines_without_seconds(&dir).unwrap(),
        manifest::lines_without_seconds(&fresh).unwrap()
    );
    // Another feature set: redone again, and dataset.toml names the new set.
    let material: Features = "material".parse().unwrap();
    let third = run(&jobs, &dir, &material, &Material, &wider, |_, _| {}).unwrap();
    assert_eq!(
        third.redone[0].1,
        "options changed: features relation → material"
    );
    assert_eq!(DatasetInfo::read(&dir).unwrap().features, "material");
    // A model labeller is told apart by content, not by name.
    let mut by_model = wider.clone();
    by_model.labeller = Labelling {
        name: "m.txt".into(),
        hash: "0123456789abcdef".into(),
    };
    let fourth = run(&jobs, &dir, &material, &Material, &by_model, |_, _| {}).unwrap();
    assert_eq!(
        fourth.redone[0].1,
        "options changed: labeller material → model, labeller_hash  → 0123456789abcdef"
    );
    let _ = fs::remove_dir_all(&dir);
    let _ = fs::remove_dir_all(&fresh);
}

#[test]
fn qid_numbers_positions_across_games() {
    let dir = scratch("qid");
    let jobs = floodgate_jobs(3);
    let options = ExtractOptions {
        skip_opening: 2,
        max_plies: Some(6),
        qid: true,
        ..ExtractOptions::default()
    };
    run(&jobs, &dir, &relation(), &Material, &options, |_, _| {}).unwrap();
    let mut all = Vec::new();
    for job in &jobs {
        let (data, groups) =
            crate::libsvm::read_paths_with_groups(&[rows_path(&dir, &job.name)]).unwrap();
        let groups: Vec<u64> = groups.unwrap().into_iter().map(Option::unwrap).collect();
        assert_eq!(groups.len(), data.y.len());
        all.extend(groups);
    }
    // Four positions a game (plies 2..6), numbered 1..=12 in game order,
    // each position's rows together.
    let mut distinct = all.clone();
    distinct.dedup();
    assert_eq!(distinct, (1..=12).collect::<Vec<u64>>());
    assert!(DatasetInfo::read(&dir).unwrap().qid);
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn three_shards_merged_equal_one_run_byte_for_byte() {
    let jobs = floodgate_jobs(9);
    let options = ExtractOptions {
        max_plies: Some(6),
        qid: true,
        ..ExtractOptions::default()
    };
    let whole = scratch("shards-whole");
    run(&jobs, &whole, &relation(), &Material, &options, |_, _| {}).unwrap();
    let parts: Vec<PathBuf> = (0..3)
        .map(|k| {
            let dir = scratch(&format!("shard-{k}"));
            let shard = ExtractOptions {
                shard: format!("{k}/3").parse().unwrap(),
                ..options.clone()
            };
            let s = run(&jobs, &dir, &relation(), &Material, &shard, |_, _| {}).unwrap();
            assert!(
                !s.reports.is_empty() && s.reports.len() < 9,
                "shard {k}: {}",
                s.reports.len()
            );
            dir
        })
        .collect();
    let merged = scratch("shards-merged");
    merge::merge(&parts, &merged).unwrap();
    assert_eq!(files(&merged), files(&whole));
    assert_eq!(
        manifest::lines_without_seconds(&merged).unwrap(),
        manifest::lines_without_seconds(&whole).unwrap()
    );
    // Not all shards, or a shard twice: refused.
    let e = merge::merge(&parts[..2], &scratch("shards-bad")).unwrap_err();
    assert_eq!(
        e,
        "shard 2/3 missing: a merge needs every shard of the split"
    );
    let e = merge::merge(
        &[parts[0].clone(), parts[0].clone()],
        &scratch("shards-bad"),
    )
    .unwrap_err();
    assert!(e.ends_with("are both shard 0/3"), "{e}");
    for d in parts.iter().chain([&whole, &merged]) {
        let _ = fs::remove_dir_all(d);
    }
}

/// The rows and report of one tournament game through `extract_game`, in a
/// rayon pool of `threads`, with query ids; the game's bytes and counts.
fn tournament_game_text(threads: usize, exact: bool) -> (Vec<(String, Vec<u8>)>, GameCounts) {
    let path = crate::testdata::fixture("tournament/wcsc22-day3-7-ponanza.csa");
    let game = crate::record::read_file(&path).games.remove(0).unwrap();
    let dir = scratch(&format!("chunks-{threads}-{exact}"));
    fs::create_dir_all(dir.join("rows")).unwrap();
    fs::create_dir_all(dir.join("reports")).unwrap();
    let options = ExtractOptions {
        skip_opening: 3,
        exact_values: exact,
        rows_at: if exact { RowsAt::Leaf } else { RowsAt::Sibling },
        ..ExtractOptions::default()
    };
    let features: Features = "relation,material,kp".parse().unwrap();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let counts = pool.install(|| {
        let labeller = Labeller::new(&Material, LabelOptions::default());
        extract_game(&game, "g", &dir, &features, &labeller, &options, Some(100)).unwrap()
    });
    let out = files(&dir);
    let _ = fs::remove_dir_all(&dir);
    (out, counts)
}

#[test]
fn a_game_labelled_in_parallel_is_written_as_in_one_pass() {
    // The positions of one game are labelled across threads; the
    // bytes must not depend on how many threads there are (one thread goes
    // through the plies in order with one labeller), for capped values and
    // for exact values with rows at the leaf (whose lines a labeller's
    // history could change), and the query ids run on without a gap.
    for exact in [false, true] {
        let (one, one_counts) = tournament_game_text(1, exact);
        let (two, two_counts) = tournament_game_text(2, exact);
        assert_eq!(one.len(), 2);
        assert!(one == two, "exact {exact}: the bytes differ with 2 threads");
        assert_eq!(
            (one_counts.rows, one_counts.plies, one_counts.rows_hash),
            (two_counts.rows, two_counts.plies, two_counts.rows_hash)
        );
        // More positions than may be labelled ahead of the first unwritten
        // one, each position one query id, numbered from 100 without a gap.
        let plies = one_counts.plies;
        assert!(plies > schedule::AHEAD as u64, "{plies} positions");
        let rows = std::str::from_utf8(&one.iter().find(|(p, _)| p.ends_with(".svm")).unwrap().1)
            .unwrap()
            .to_owned();
        let mut groups: Vec<u64> = rows
            .lines()
            .map(|l| {
                l.split(' ')
                    .nth(1)
                    .unwrap()
                    .strip_prefix("qid:")
                    .unwrap()
                    .parse()
                    .unwrap()
            })
            .collect();
        groups.dedup();
        assert_eq!(groups, (100..100 + plies).collect::<Vec<u64>>());
    }
}

#[test]
fn an_illegal_game_move_is_an_error_not_a_panic() {
    // Records are replayed by their readers, but a `Game` built by hand may
    // hold an illegal move: extraction stops there with the labeller's error
    // and plays nothing past it.
    let path = crate::testdata::fixture("tournament/040501.csa");
    let mut game = crate::record::read_file(&path).games.remove(0).unwrap();
    // Black's first move again at ply 1 (White to move): not White's move.
    game.moves[1] = game.moves[0];
    let dir = scratch("illegal");
    fs::create_dir_all(dir.join("rows")).unwrap();
    fs::create_dir_all(dir.join("reports")).unwrap();
    let labeller = Labeller::new(&Material, LabelOptions::default());
    let e = extract_game(
        &game,
        "g",
        &dir,
        &relation(),
        &labeller,
        &ExtractOptions::default(),
        None,
    )
    .unwrap_err();
    assert!(e.to_string().contains("is not legal"), "{e}");
    // No rows file is left for the game.
    assert!(!rows_path(&dir, "g").exists());
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn a_run_in_two_threads_writes_what_one_thread_writes_in_job_order() {
    // Games taken from a shared counter, each thread helping with the other's
    // positions first: the files, the manifest's order and its hashes are
    // those of one thread.
    let jobs = floodgate_jobs(12);
    let options = ExtractOptions {
        skip_opening: 4,
        max_plies: Some(40),
        qid: true,
        ..ExtractOptions::default()
    };
    let mut runs = Vec::new();
    for threads in [1, 2] {
        let dir = scratch(&format!("run-threads-{threads}"));
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let summary = pool
            .install(|| run(&jobs, &dir, &relation(), &Material, &options, |_, _| {}))
            .unwrap();
        let manifest: Vec<(String, String, String, u64)> = read_manifest_lines_in_order(&dir);
        let reports: Vec<(String, String, String, u64)> = summary
            .reports
            .iter()
            .map(|r| {
                (
                    r.game.clone(),
                    r.rows_hash.clone(),
                    r.report_hash.clone(),
                    r.rows,
                )
            })
            .collect();
        assert_eq!(manifest, reports);
        let names: Vec<&str> = reports.iter().map(|r| r.0.as_str()).collect();
        let wanted: Vec<&str> = jobs.iter().map(|j| j.name.as_str()).collect();
        assert_eq!(names, wanted);
        assert!(summary.reports.iter().all(|r| r.is_ok() && r.rows > 0));
        runs.push((files(&dir), reports));
        let _ = fs::remove_dir_all(&dir);
    }
    assert!(runs[0] == runs[1], "one thread and two differ");
}

/// The manifest's games in its order, with their hashes and row counts.
fn read_manifest_lines_in_order(dir: &Path) -> Vec<(String, String, String, u64)> {
    manifest::read_manifest_lines(dir)
        .into_iter()
        .map(|r| (r.game, r.rows_hash, r.report_hash, r.rows))
        .collect()
}
