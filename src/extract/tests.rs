use super::*;
use crate::eval::Material;
use crate::features::Features;
use crate::record::usi;
use crate::record::Source;

/// Games from the floodgate opening lines, replayed through `play_usi` (the USI
/// reader is another module's work; these tests must not depend on it).
pub(crate) fn floodgate_jobs(n: usize) -> Vec<GameJob> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/kifu/floodgate2016-openings.sfen"
    );
    let text = fs::read_to_string(path).unwrap();
    text.lines()
        .take(n)
        .enumerate()
        .map(|(index, line)| {
            let source = Source {
                path: PathBuf::from(path),
                index,
            };
            // The USI-line reader replays and checks every move.
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

fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| !p.ends_with(MANIFEST))
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                fs::read(&p).unwrap(),
            )
        })
        .collect();
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
        let svm = fs::read_to_string(dir.join(format!("{}.svm", job.name))).unwrap();
        let csv = fs::read_to_string(dir.join(format!("{}.rows.csv", job.name))).unwrap();
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
    assert!(manifest.starts_with("game,source,plies,rows,nonzeros,seconds,status\n"));
    assert_eq!(manifest.lines().count(), 4);
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
    let svm = dir.join(format!("{}.svm", jobs[1].name));
    let text = fs::read(&svm).unwrap();
    fs::write(&svm, &text[..text.len() / 2]).unwrap();
    fs::remove_file(dir.join(format!("{}.rows.csv", jobs[3].name))).unwrap();
    fs::write(dir.join(format!("{}.svm.tmp", jobs[4].name)), "1 2:3\n").unwrap();
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
    let _ = fs::remove_file(dir.join(format!("{}.svm.tmp", jobs[4].name)));
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
    assert!(!dir.join("broken-00000.svm").exists());
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn file_stems_are_unique() {
    let files = [
        PathBuf::from("a/games.csa"),
        PathBuf::from("b/games.kif"),
        PathBuf::from("c/other game.csa"),
        PathBuf::from("d/games.csa"),
    ];
    assert_eq!(
        file_stems(&files),
        ["games", "games_2", "other_game", "games_3"]
    );
    assert_eq!(game_name("games_2", 7), "games_2-00007");
}
