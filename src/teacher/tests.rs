use super::*;

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
        Err(TeacherError::Engine(UsiError::Spawn { command, .. })) => {
            assert!(command.contains("nonexistent"))
        }
        Err(e) => panic!("expected a spawn error, got {e}"),
        Ok(_) => panic!("a missing command started"),
    }
    let quote = TeacherSpec::new("x 'open");
    assert_eq!(
        quote.check().unwrap_err().to_string(),
        "--teacher-usi \"x 'open\": unterminated quote"
    );
    // `--teacher` once named an evaluator too: one given here is named.
    let e = TeacherSpec::new("material")
        .check()
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("an evaluator (material or a model file) is given with --evaluator"),
        "{e}"
    );
}
