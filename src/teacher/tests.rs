use super::*;

#[test]
fn split_command_like_a_shell() {
    let w = |s: &str| split_command(s).unwrap();
    assert_eq!(
        w("/usr/games/fairy-stockfish"),
        ["/usr/games/fairy-stockfish"]
    );
    assert_eq!(w("  python3   fake.py  a "), ["python3", "fake.py", "a"]);
    assert_eq!(w("sh -c 'echo a b'"), ["sh", "-c", "echo a b"]);
    assert_eq!(w(r#"x "a \"b\" \n" c\ d"#), ["x", r#"a "b" \n"#, "c d"]);
    assert_eq!(w("a''b \"\""), ["ab", ""]);
    assert!(w("").is_empty());
    assert!(split_command("x 'open").is_err());
    assert!(split_command("x \"open").is_err());
}

#[test]
fn info_scores() {
    let p = |s: &str| parse_info_score(s).unwrap();
    assert_eq!(
        p("info depth 3 seldepth 3 multipv 1 score cp 258 nodes 236 pv 7i7h"),
        Some(TeacherScore::Cp(258))
    );
    assert_eq!(
        p("info score cp -20 lowerbound"),
        Some(TeacherScore::Cp(-20))
    );
    assert_eq!(
        p("info depth 2 score mate 1 pv G*5b"),
        Some(TeacherScore::Mate(1))
    );
    assert_eq!(p("info score mate -4"), Some(TeacherScore::Mate(-4)));
    assert_eq!(p("info score mate +3"), Some(TeacherScore::Mate(3)));
    assert_eq!(p("info score mate +"), Some(TeacherScore::Mate(1000)));
    assert_eq!(p("info score mate -"), Some(TeacherScore::Mate(-1000)));
    assert_eq!(p("info depth 5 nodes 100"), None);
    assert_eq!(p("info string score cp x"), None);
    assert!(parse_info_score("info score cp").is_err());
    assert!(parse_info_score("info score pawns 3").is_err());
    assert!(parse_info_score("info score mate x").is_err());
}

#[test]
fn scores_in_our_convention() {
    let spec = TeacherSpec {
        scale: 0.5,
        ..TeacherSpec::new("e")
    };
    assert_eq!(spec.to_score(TeacherScore::Cp(301), 3000), 151);
    assert_eq!(spec.to_score(TeacherScore::Cp(-301), 3000), -151);
    assert_eq!(spec.to_score(TeacherScore::Cp(9000), 3000), 3000);
    assert_eq!(spec.to_score(TeacherScore::Cp(i32::MIN), 3000), -3000);
    assert_eq!(spec.to_score(TeacherScore::Mate(5), 3000), 3000);
    assert_eq!(spec.to_score(TeacherScore::Mate(0), 3000), -3000);
    assert_eq!(spec.to_score(TeacherScore::Mate(-2), 100), -100);
}

#[test]
fn limits_and_checks() {
    let spec = TeacherSpec::new("e");
    assert_eq!(spec.go_command(), "go depth 6");
    assert_eq!(spec.timeout(), Duration::from_secs(10));
    let nodes = TeacherSpec {
        nodes: Some(500_000),
        ..TeacherSpec::new("e")
    };
    assert_eq!(nodes.go_command(), "go nodes 500000");
    assert_eq!(nodes.timeout(), Duration::from_secs(15));
    let deep = TeacherSpec {
        depth: Some(14),
        ..TeacherSpec::new("e")
    };
    assert_eq!(deep.timeout(), Duration::from_secs(40));
    for bad in [
        TeacherSpec::new(" "),
        TeacherSpec {
            depth: Some(0),
            ..TeacherSpec::new("e")
        },
        TeacherSpec {
            scale: 0.0,
            ..TeacherSpec::new("e")
        },
        TeacherSpec {
            timeout: Some(Duration::ZERO),
            ..TeacherSpec::new("e")
        },
    ] {
        assert!(bad.check().is_err(), "{bad:?}");
    }
}

#[test]
fn a_missing_command_fails_to_start() {
    let spec = TeacherSpec::new("/nonexistent/teacher-engine");
    match Teacher::new(&spec) {
        Err(TeacherError::Spawn { command, .. }) => assert!(command.contains("nonexistent")),
        Err(e) => panic!("expected a spawn error, got {e}"),
        Ok(_) => panic!("a missing command started"),
    }
}
