use super::*;
use crate::eval::Material;

/// A writer the test keeps a handle on while the engine owns a clone.
#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Shared {
    /// Everything written so far.
    fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }
}

/// Asserts that the last `bestmove` in `text` names a legal move of the
/// engine's position.
fn assert_last_bestmove_is_legal<W: Write + Send + 'static>(engine: &UsiEngine<W>, text: &str) {
    let best = text.lines().rfind(|l| l.starts_with("bestmove")).unwrap();
    let mv = best.split_whitespace().nth(1).unwrap();
    assert!(engine.position().unwrap().parse_move(mv).is_ok(), "{best}");
}

fn session(script: &str) -> Vec<String> {
    let out = Shared::default();
    run(script.as_bytes(), out.clone(), EvalChoice::Material).unwrap();
    out.text().lines().map(str::to_string).collect()
}

fn bestmoves(lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .filter(|l| l.starts_with("bestmove"))
        .cloned()
        .collect()
}

#[test]
fn handshake_lists_options_and_answers_isready() {
    let lines = session("usi\nisready\nquit\n");
    assert_eq!(
        lines[0],
        format!("id name kifulearn {}", env!("CARGO_PKG_VERSION"))
    );
    assert!(lines.contains(&"option name USI_Hash type spin default 16 min 1 max 4096".into()));
    assert!(lines.contains(&"option name ModelFile type string default material".into()));
    let usiok = lines.iter().position(|l| l == "usiok").unwrap();
    assert_eq!(lines[usiok + 1], "readyok");
}

#[test]
fn garbage_is_explained_and_the_engine_keeps_answering() {
    let lines = session("hello world\n\n   \nsetoption\nsetoption name Depth value x\nposition\nposition sfen garbage b - 1\ngo depth zz\nisready\n");
    assert_eq!(lines[0], "info string unknown command ignored: hello world");
    assert_eq!(
        lines[1],
        "info string setoption needs: setoption name NAME [value VALUE]"
    );
    assert_eq!(
        lines[2],
        "info string option Depth needs a number from 0 to 64, got x"
    );
    assert_eq!(
        lines[3],
        "info string position cleared: position needs: position startpos|sfen SFEN [moves ...]"
    );
    assert!(
        lines[4].starts_with("info string position cleared: invalid SFEN"),
        "{}",
        lines[4]
    );
    assert_eq!(
        lines[5],
        "info string go ignored: depth needs a number, got zz"
    );
    assert_eq!(lines[6], "readyok");
    // A malformed `go` starts no search (it used to become an infinite one).
    assert!(bestmoves(&lines).is_empty(), "{lines:?}");
}

#[test]
fn malformed_go_is_refused_not_searched() {
    for (go, why) in [
        ("go byoyomi", "byoyomi needs a number"),
        ("go btime -5 wtime 0", "btime needs a number >= 0, got -5"),
        ("go depth -1", "depth needs a number >= 0, got -1"),
        ("go depth 3 sideways", "unknown go argument sideways"),
        (
            "go nodes 99999999999999999999999",
            "nodes number too large: 99999999999999999999999",
        ),
    ] {
        let lines = session(&format!("position startpos\n{go}\nisready\n"));
        assert_eq!(
            lines,
            vec![format!("info string go ignored: {why}"), "readyok".into()],
            "{go}"
        );
    }
}

#[test]
fn illegal_move_in_position_is_reported_and_clears_the_position() {
    let out = Shared::default();
    let mut engine = UsiEngine::new(out.clone(), EvalChoice::Material).unwrap();
    engine.handle_line("position startpos moves 7g7f 3c3d");
    assert!(engine.position().is_some());
    engine.handle_line("position startpos moves 7g7f 7g7f");
    assert!(engine.position().is_none());
    engine.handle_line("go depth 1");
    let text = out.text();
    assert_eq!(
        text,
        "info string position cleared: move 7g7f (2) is not legal in \
         lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2\n\
         info string no position\nbestmove resign\n"
    );
    engine.handle_line("position startpos moves 7g7f");
    assert!(engine.position().is_some());
    engine.handle_line("position startpos moves 9z9z");
    assert!(engine.position().is_none());
}

#[test]
fn infinite_search_waits_for_stop_and_isready_is_answered_meanwhile() {
    let out = Shared::default();
    let mut engine = UsiEngine::new(out.clone(), EvalChoice::Material).unwrap();
    engine.handle_line("position startpos moves 7g7f 8c8d");
    engine.handle_line("go infinite");
    std::thread::sleep(Duration::from_millis(300));
    engine.handle_line("isready");
    let text = out.text();
    assert!(text.contains("readyok"));
    assert!(!text.contains("bestmove"), "{text}");
    engine.handle_line("stop");
    engine.finish_search(false);
    let text = out.text();
    assert_last_bestmove_is_legal(&engine, &text);
    assert!(text.contains("info depth 1 seldepth"), "{text}");
}

/// An evaluator with a bug: it panics.
struct Panics;

impl Evaluator for Panics {
    fn evaluate(&self, _: &Position) -> i32 {
        panic!("an evaluator bug (this test's: the panic is expected)")
    }
}

#[test]
fn a_search_that_panics_still_answers_and_the_engine_goes_on() {
    let out = Shared::default();
    let mut engine = UsiEngine::new(out.clone(), EvalChoice::Material).unwrap();
    engine.evaluator = DynEvaluator::new(Panics);
    engine.handle_line("position startpos moves 7g7f");
    engine.handle_line("go depth 3");
    engine.finish_search(false);
    let text = out.text();
    let lines: Vec<String> = text.lines().map(str::to_string).collect();
    assert!(
        lines.contains(&"info string the search failed (a bug: see stderr); resigning".into()),
        "{text}"
    );
    assert_eq!(bestmoves(&lines), ["bestmove resign"]);
    // The next search, with an evaluator that works, answers with a move.
    engine.evaluator = DynEvaluator::new(Material);
    engine.handle_line("go depth 2");
    engine.finish_search(false);
    assert_last_bestmove_is_legal(&engine, &out.text());
}

#[test]
fn mated_side_resigns_and_mate_in_one_is_reported_as_mate() {
    let lines = session(
        "position sfen 4k4/4G4/4P4/9/9/9/9/9/4K4 w - 1\ngo depth 3\n\
         position sfen 4k4/9/4P4/9/9/9/9/9/4K4 b G 1\ngo depth 3\n",
    );
    let best = bestmoves(&lines);
    assert_eq!(best[0], "bestmove resign");
    assert!(best[1].starts_with("bestmove G*5b"), "{best:?}");
    assert!(lines.iter().any(|l| l.starts_with("info depth 1 ")
        && l.contains("score mate 1 ")
        && l.ends_with("pv G*5b")));
}

#[test]
fn entering_king_declares_a_win() {
    let lines = session("position sfen GGSS4k/+P+PSS+R+BK2/9/9/9/9/9/9/9 b 10P 1\ngo depth 2\n");
    assert_eq!(bestmoves(&lines), vec!["bestmove win".to_string()]);
}

#[test]
fn ponder_waits_for_ponderhit_then_answers_within_its_time() {
    let out = Shared::default();
    let mut engine = UsiEngine::new(out.clone(), EvalChoice::Material).unwrap();
    engine.handle_line("position startpos moves 2g2f 8c8d");
    engine.handle_line("go ponder btime 0 wtime 0 byoyomi 400");
    std::thread::sleep(Duration::from_millis(600));
    assert!(!out.text().contains("bestmove"));
    let t = Instant::now();
    engine.handle_line("ponderhit");
    engine.finish_search(false);
    // From ponderhit on, the byoyomi less its margin (380 ms) is searched;
    // the upper bound leaves room for a loaded machine.
    assert!(
        (Duration::from_millis(350)..Duration::from_millis(600)).contains(&t.elapsed()),
        "{:?}",
        t.elapsed()
    );
    let text = out.text();
    assert_eq!(
        text.lines().filter(|l| l.starts_with("bestmove")).count(),
        1
    );
}

#[test]
fn options_are_applied_and_model_files_are_loaded() {
    let out = Shared::default();
    let mut engine = UsiEngine::new(out.clone(), EvalChoice::Material).unwrap();
    for line in [
        "setoption name USI_Hash value 32",
        "setoption name EvalNoise value 40",
        "setoption name Depth value 2",
        "setoption name USI_Ponder value true",
        "setoption name ModelFile value /nonexistent/model.txt",
    ] {
        engine.handle_line(line);
    }
    let o = engine.options().clone();
    assert_eq!(
        (o.hash_mb, o.eval_noise, o.depth, o.ponder),
        (32, 40, 2, true)
    );
    let text = out.text();
    assert_eq!(
        text,
        "info string ModelFile not loaded, still using material: \
         /nonexistent/model.txt: No such file or directory (os error 2)\n"
    );
    assert!(UsiEngine::new(Shared::default(), EvalChoice::parse("x.model")).is_err());

    // A real model file (the material set, pawns weighted) is loaded and played with.
    let dir = std::env::temp_dir().join(format!("kifulearn-usi-model-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut w = vec![0.0; 104];
    w[0] = 0.009;
    w[14] = -0.009;
    let path = dir.join("pawns.model");
    crate::model::Model {
        solver_type: "L2R_L2LOSS_SVR".into(),
        w,
        bias: -1.0,
        bias_weight: 0.0,
        features: "material".into(),
    }
    .save(&path, false)
    .unwrap();
    crate::model::write_meta(&path, &crate::model::ModelMeta::new("material")).unwrap();
    let out = Shared::default();
    let mut engine = UsiEngine::new(out.clone(), EvalChoice::Model(path.clone())).unwrap();
    engine.handle_line("position startpos moves 7g7f 3c3d");
    engine.handle_line("go depth 1");
    engine.handle_line("quit");
    let text = out.text();
    assert!(text.contains("bestmove "), "{text}");

    // Loaded by ModelFile: named; then a missing file keeps it, and says so.
    let out = Shared::default();
    let mut engine = UsiEngine::new(out.clone(), EvalChoice::Material).unwrap();
    engine.handle_line(&format!(
        "setoption name ModelFile value {}",
        path.display()
    ));
    engine.handle_line("setoption name ModelFile value /nonexistent/x.model");
    let text = out.text();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        format!("info string ModelFile: using {}", path.display())
    );
    assert!(
        lines[1].starts_with(&format!(
            "info string ModelFile not loaded, still using {}: /nonexistent/x.model:",
            path.display()
        )),
        "{text}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn time_limits_come_from_the_clock_module() {
    let ms = Duration::from_millis;
    // Byoyomi only: all of it but the margin (1000 / 20 = 50 ms).
    let (go, bad) = Go::parse(&["btime", "0", "wtime", "0", "byoyomi", "1000"]);
    assert!(bad.is_empty());
    assert_eq!(
        go.time_limits(crate::shogi::Color::Black),
        (Some(ms(950)), Some(ms(950)))
    );
    let (go, _) = Go::parse(&["btime", "60000", "wtime", "100", "binc", "0"]);
    // 100 ms left, no byoyomi: a thirtieth of it rather than lose on time.
    assert_eq!(go.time_limits(crate::shogi::Color::White).1, Some(ms(3)));
    // A minute: a thirtieth, no new iteration after 60 % of it.
    assert_eq!(
        go.time_limits(crate::shogi::Color::Black),
        (Some(ms(1200)), Some(ms(2000)))
    );
    // A move time is spent almost whole: the margin scales with it.
    for (t, hard) in [(50, 45), (200, 190), (1000, 950), (5000, 4850)] {
        let (go, _) = Go::parse(&["movetime", &t.to_string()]);
        assert_eq!(
            go.time_limits(crate::shogi::Color::White),
            (Some(ms(hard)), Some(ms(hard))),
            "movetime {t}"
        );
    }
    let (go, _) = Go::parse(&["depth", "3"]);
    assert_eq!(go.time_limits(crate::shogi::Color::Black), (None, None));
}

#[test]
fn nodes_limit_caps_every_search_and_the_smaller_of_two_node_limits_wins() {
    let nodes = |lines: &[String]| -> u64 {
        lines
            .iter()
            .filter_map(|l| l.split(" nodes ").nth(1))
            .map(|rest| {
                rest.split_whitespace()
                    .next()
                    .unwrap()
                    .parse::<u64>()
                    .unwrap()
            })
            .max()
            .unwrap()
    };
    // Without the option, `go depth 64` runs until end of input stops it.
    let free = session("position startpos\ngo depth 64\n");
    assert!(nodes(&free) > 20_000, "{free:?}");
    let capped =
        session("usi\nsetoption name NodesLimit value 3000\nposition startpos\ngo depth 64\n");
    assert!(capped.contains(&format!(
        "option name NodesLimit type spin default 0 min 0 max {MAX_NODES_LIMIT}"
    )));
    assert_eq!(bestmoves(&capped).len(), 1);
    // The last info line is the whole search: the limit, or up to 1023 more
    // (the limit is checked every 1024 nodes).
    assert!((3000..3000 + 1024).contains(&nodes(&capped)), "{capped:?}");
    let smaller =
        session("setoption name NodesLimit value 3000\nposition startpos\ngo nodes 1000\n");
    assert!(
        (1000..1000 + 1024).contains(&nodes(&smaller)),
        "{smaller:?}"
    );
    let refused = session("setoption name NodesLimit value -1\n");
    assert_eq!(
        refused,
        vec![format!(
            "info string option NodesLimit needs a number from 0 to {MAX_NODES_LIMIT}, got -1"
        )]
    );
}

/// A model's evaluation cache is kept from `go` to `go`, but only while what
/// the values depend on stays: after `EvalScale` changes, or the model file
/// is loaded again with other weights, the engine searches as a fresh engine
/// with those settings does (a stale cache would give the old values, a
/// stale transposition table the old scores).
#[test]
fn the_evaluation_cache_is_kept_only_while_the_evaluator_is_the_same() {
    let dir = std::env::temp_dir().join(format!("kifulearn-usi-cache-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("m.model");
    let save = |scale: f32| {
        // Material and pseudo-random king-piece weights: a costly evaluator.
        let set: crate::features::Features = "material,kp".parse().unwrap();
        let model = crate::eval::Linear::hashed(set.clone(), 2e-3 * scale, 7);
        crate::model::Model {
            solver_type: "L2R_L2LOSS_SVR".into(),
            w: model.weights.iter().map(|&w| f64::from(w)).collect(),
            bias: -1.0,
            bias_weight: 0.0,
            features: "material,kp".into(),
        }
        .save_with_meta(&path, false, &crate::model::ModelMeta::new("material,kp"))
        .unwrap();
    };
    let searches = |engine: &mut UsiEngine<Shared>, out: &Shared, gos: usize| {
        let mut found = Vec::new();
        for _ in 0..gos {
            out.0.lock().unwrap().clear();
            engine.handle_line("position startpos moves 7g7f 3c3d 2g2f 8c8d");
            engine.handle_line("go depth 3");
            engine.finish_search(false);
            let text = out.text();
            let scores: Vec<String> = text
                .lines()
                .filter(|l| l.starts_with("info depth") || l.starts_with("bestmove"))
                .map(|l| {
                    let w: Vec<&str> = l.split_whitespace().collect();
                    let at = |k: &str| w.iter().position(|x| *x == k).map(|i| w[i + 2]);
                    format!("{} {:?} {}", w[1], at("score"), l.starts_with("bestmove"))
                })
                .collect();
            found.push(scores);
        }
        found
    };
    let fresh = |scale: &str| {
        let out = Shared::default();
        let mut e = UsiEngine::new(out.clone(), EvalChoice::Model(path.clone())).unwrap();
        e.handle_line(&format!("setoption name EvalScale value {scale}"));
        searches(&mut e, &out, 1).remove(0)
    };
    save(1.0);
    let out = Shared::default();
    let mut engine = UsiEngine::new(out.clone(), EvalChoice::Model(path.clone())).unwrap();
    let first = searches(&mut engine, &out, 2);
    // The second `go` (cache kept, same table) ends where the first did.
    assert_eq!(first[0].last(), first[1].last());
    assert_eq!(first[0], fresh("10000"));
    // Another scale, the same game: the cached values and the table's scores
    // must both go.
    engine.handle_line("setoption name EvalScale value 30000");
    let scaled = searches(&mut engine, &out, 1).remove(0);
    assert_ne!(scaled, first[0]);
    assert_eq!(scaled, fresh("30000"));
    // A grain, the same game: likewise, and the scores become its multiples.
    engine.handle_line("setoption name EvalGrain value 90");
    let grained = searches(&mut engine, &out, 1).remove(0);
    assert_ne!(grained, scaled);
    let out_g = Shared::default();
    let mut e = UsiEngine::new(out_g.clone(), EvalChoice::Model(path.clone())).unwrap();
    e.handle_line("setoption name EvalScale value 30000");
    e.handle_line("setoption name EvalGrain value 90");
    assert_eq!(grained, searches(&mut e, &out_g, 1).remove(0));
    // A grain in the model's sidecar is the default (`EvalGrain 0`), and
    // `EvalGrain 1` takes it away.
    crate::model::set_grain(&path, 90).unwrap();
    let out_m = Shared::default();
    let mut e = UsiEngine::new(out_m.clone(), EvalChoice::Model(path.clone())).unwrap();
    e.handle_line("setoption name EvalScale value 30000");
    assert_eq!(grained, searches(&mut e, &out_m, 1).remove(0));
    e.handle_line("setoption name EvalGrain value 1");
    assert_eq!(scaled, searches(&mut e, &out_m, 1).remove(0));
    engine.handle_line("setoption name EvalGrain value 1");
    // The same file name with other weights, loaded again.
    save(5.0);
    engine.handle_line(&format!(
        "setoption name ModelFile value {}",
        path.display()
    ));
    let reloaded = searches(&mut engine, &out, 1).remove(0);
    assert_ne!(reloaded, scaled);
    assert_eq!(reloaded, fresh("30000"));
    std::fs::remove_dir_all(&dir).ok();
}
