//! One command-line convention (issue 16, item 5; `docs/cli.md`): `-q`/`-v`
//! everywhere, the iteration-cap warning, options that do not apply to the
//! chosen method refused, every default in `--help`, and the exit codes.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::OnceLock;

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Rows of a real fixture game (5,866 sibling rows, `material` features), extracted once.
fn rows() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = common::dir("cli-convention-rows");
        let out = common::run_ok(&[
            "extract",
            "fixtures/selfplay/fsf_selfplay_w1_00301.csa",
            "--features",
            "material",
            "--out",
            dir.to_str().unwrap(),
            "-q",
        ]);
        assert!(out.stderr.is_empty(), "-q: {}", stderr(&out));
        dir.join("rows")
    })
}

fn fit(extra: &[&str], model: &str) -> Output {
    let dir = common::dir(&format!("cli-convention-{model}"));
    let model = dir.join(model);
    let mut args = vec![
        "fit",
        "svr",
        rows().to_str().unwrap(),
        "--out",
        model.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    common::run(&args)
}

/// The reproduction: the quick start printed 200 `dual iter` lines.
/// Default: summary lines, no per-iteration trace; -v: the traces; -q: nothing.
#[test]
fn solver_traces_only_with_verbose() {
    let count = |out: &Output, what: &str| stderr(out).lines().filter(|l| l.contains(what)).count();
    let normal = fit(&["--solver", "dual"], "normal.txt");
    assert!(normal.status.success(), "{}", stderr(&normal));
    assert_eq!(count(&normal, "dual iter"), 0, "{}", stderr(&normal));
    assert_eq!(count(&normal, "trained in"), 1, "{}", stderr(&normal));
    assert_eq!(count(&normal, "read 1 file(s)"), 1, "{}", stderr(&normal));

    let verbose = fit(&["--solver", "dual", "-v"], "verbose.txt");
    assert!(verbose.status.success(), "{}", stderr(&verbose));
    let iterations = count(&verbose, "dual iter");
    assert!(iterations >= 2, "{}", stderr(&verbose));
    // Every epoch traced, and the summary says as many.
    assert!(
        stderr(&verbose).contains(&format!("{iterations} iterations")),
        "{}",
        stderr(&verbose)
    );

    let quiet = fit(&["--solver", "dual", "-q"], "quiet.txt");
    assert!(quiet.status.success(), "{}", stderr(&quiet));
    assert_eq!(stderr(&quiet), "", "-q prints no summary");
    // Same model whatever is printed.
    let read = |name: &str| {
        std::fs::read_to_string(
            Path::new(env!("CARGO_TARGET_TMPDIR"))
                .join(format!("cli-convention-{name}"))
                .join(name),
        )
        .unwrap()
    };
    assert_eq!(read("quiet.txt"), read("verbose.txt"));
    assert_eq!(read("quiet.txt"), read("normal.txt"));

    // Both at once is refused, wherever they stand.
    let both = common::run(&["-q", "games", "fixtures/kif", "-v"]);
    assert_eq!(both.status.code(), Some(2));
    assert!(stderr(&both).contains("-q/--quiet and -v/--verbose"));
}

/// The reproduction: a solver that hits its iteration cap said
/// nothing (liblinear: "WARNING: reaching max number of iterations").
#[test]
fn iteration_cap_is_warned_even_with_quiet() {
    for solver in ["primal", "dual"] {
        let capped = fit(
            &["--solver", solver, "--max-iter", "1", "-q"],
            &format!("capped-{solver}.txt"),
        );
        assert!(capped.status.success(), "{}", stderr(&capped));
        let err = stderr(&capped);
        assert!(
            err.starts_with("warning: reaching max number of iterations: ")
                && err.contains(&format!("the {solver} solver stopped after 1 ")),
            "{solver}: {err}"
        );
        assert_eq!(err.lines().count(), 1, "-q: the warning only: {err}");
        // Converged: no warning.
        let done = fit(&["--solver", solver], &format!("done-{solver}.txt"));
        assert!(done.status.success(), "{}", stderr(&done));
        assert!(
            !stderr(&done).contains("max number of iterations"),
            "{solver}: {}",
            stderr(&done)
        );
    }
}

/// Each learner is a subcommand with only its own options: an option of
/// another learner is refused, naming the option, the learner and the
/// learners it belongs to (the issue: `--method streaming --solver dual -c 5`
/// was accepted and ignored).
#[test]
fn options_that_do_not_apply_are_refused() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["streaming", "--solver", "dual", "-c", "5"],
            "--solver does not apply to fit streaming (it is an option of fit svr)",
        ),
        (
            &["streaming", "-c", "5"],
            "-c does not apply to fit streaming (it is an option of fit svr)",
        ),
        (
            &["positions", "--max-iter", "5"],
            "--max-iter does not apply to fit positions (it is an option of fit svr)",
        ),
        (
            &["ranking", "-B", "1"],
            "-B does not apply to fit ranking (it is an option of fit svr)",
        ),
        (
            &["positions", "--batch-games", "2"],
            "--batch-games does not apply to fit positions \
             (it is an option of fit ranking, fit streaming)",
        ),
        (
            &["streaming", "--anchor-material"],
            "--anchor-material does not apply to fit streaming (it is an option of fit ranking)",
        ),
        (
            &["streaming", "--mu", "1e-6"],
            "--mu does not apply to fit streaming (it is an option of fit positions)",
        ),
        (
            &["svr", "--leaf"],
            "--leaf does not apply to fit svr (it is an option of fit ranking)",
        ),
        (
            &["svr", "--min-frequency", "3"],
            "--min-frequency does not apply to fit svr (it is an option of fit streaming)",
        ),
        // A value equal to the default, given, is still refused: it is not used.
        (
            &["streaming", "-p", "0.1"],
            "-p does not apply to fit streaming (it is an option of fit svr)",
        ),
        // The old spelling is refused the same way.
        (
            &["missing.svm", "--method", "streaming", "-c", "5"],
            "-c does not apply to fit streaming (it is an option of fit svr)",
        ),
    ];
    for (extra, message) in cases {
        let mut args = vec!["fit"];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["missing.svm", "--out", "never-written"]);
        let out = common::run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(stderr(&out), format!("error: {message}\n"), "{args:?}");
        assert!(out.stdout.is_empty());
    }
    assert!(!Path::new("never-written").exists());
    // Options that do apply pass the check (and fail later, on the missing file).
    let out = common::run(&[
        "fit",
        "streaming",
        "missing.svm",
        "--out",
        "never-written",
        "--epochs",
        "2",
        "--bound",
        "0.5",
    ]);
    assert!(
        stderr(&out).contains("missing.svm"),
        "refused for the wrong reason: {}",
        stderr(&out)
    );
    // Other commands: SPRT rates without the SPRT, relabelling options without --relabel.
    for (args, needs) in [
        (
            &[
                "match",
                "--engine-a",
                "material",
                "--engine-b",
                "material",
                "--alpha",
                "0.1",
            ][..],
            "--elo0",
        ),
        (
            &[
                "match",
                "--engine-a",
                "material",
                "--engine-b",
                "material",
                "--time-margin",
                "100",
            ][..],
            "--movetime",
        ),
        (&["positions", "x.psv", "--jobs", "2"][..], "--relabel"),
        (
            &["positions", "x.psv", "--eval-limit", "100"][..],
            "--relabel",
        ),
        (&["positions", "x.psv", "--to", "hcpe"][..], "--convert"),
    ] {
        let out = common::run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(stderr(&out).contains(needs), "{args:?}: {}", stderr(&out));
    }
}

/// The options of one `--help` page: (name, its help text), and the usage line.
fn options(args: &[&str]) -> (String, Vec<(String, String)>) {
    let mut full = args.to_vec();
    full.push("--help");
    let out = common::run_ok(&full);
    let text = stdout(&out);
    let usage = text
        .lines()
        .find(|l| l.starts_with("Usage:"))
        .unwrap_or_default()
        .to_string();
    let mut options: Vec<(String, String)> = Vec::new();
    let mut current: Option<usize> = None;
    for line in text.lines() {
        let indent = line.len() - line.trim_start().len();
        let trimmed = line.trim_start();
        // `-c <C>`, `-q, --quiet`, `--out <OUT>`; descriptions are indented further.
        let option = ((2..=6).contains(&indent) && trimmed.starts_with('-')).then(|| match trimmed
            .as_bytes()
            .get(2)
        {
            Some(b',') => &trimmed[4..],
            _ => trimmed,
        });
        if let Some(t) = option {
            let name: String = t
                .chars()
                .take_while(|c| !c.is_whitespace())
                .collect::<String>();
            options.push((name, line.to_string()));
            current = Some(options.len() - 1);
        } else if indent >= 8 && !line.trim().is_empty() {
            if let Some(i) = current {
                options[i].1.push(' ');
                options[i].1.push_str(line.trim());
            }
        } else {
            current = None;
        }
    }
    (usage, options)
}

/// Options whose absence means "do not do this" (no default to show).
const NO_DEFAULT: &[&str] = &[
    "games --csv",
    "games --usi",
    "evaluate --csv",
    "fit ranking --held-out",
    "fit ranking --prior",
    "fit positions --held-out-records",
    "positions --sfen",
    "positions --convert",
    "positions --relabel",
    "positions --rows",
    "positions --teacher-usi",
    "positions --teacher-nodes",
    "positions --teacher-option",
    "match --nodes",
    "match --option-a",
    "match --option-b",
    "match --movetime",
    "match --byoyomi",
    "match --inc",
    "match --elo0",
    "match --elo1",
    "match --nelo0",
    "match --nelo1",
    "match --out",
    "generate --games",
    "generate --nodes",
    "generate --openings",
    "generate --teacher-usi",
    "generate --teacher-nodes",
    "generate --teacher-option",
    "pipeline run --input",
    "pipeline run --generate-openings",
];

/// `--help` shows every default: each option that takes a value says
/// `[default: ...]`, unless it is required or its absence means "not done" (`NO_DEFAULT`).
#[test]
fn help_shows_every_default() {
    let (_, top) = options(&[]);
    assert!(top.iter().any(|(n, _)| n == "--quiet"));
    let top_help = stdout(&common::run_ok(&["--help"]));
    let mut commands: Vec<Vec<String>> = Vec::new();
    let mut in_commands = false;
    for line in top_help.lines() {
        if line == "Commands:" {
            in_commands = true;
            continue;
        }
        if in_commands {
            match line.split_whitespace().next() {
                Some("help") | None => in_commands = !line.trim().is_empty(),
                Some(name) => commands.push(vec![name.to_string()]),
            }
        }
    }
    assert!(commands.len() >= 13, "{commands:?}");
    // Subcommands of subcommands (dataset merge, pipeline run).
    let mut all = Vec::new();
    for command in commands {
        let args: Vec<&str> = command.iter().map(String::as_str).collect();
        let text = stdout(&common::run_ok(&[&args[..], &["--help"]].concat()));
        if text.contains("\nCommands:\n") {
            for line in text.split("\nCommands:\n").nth(1).unwrap().lines() {
                match line.split_whitespace().next() {
                    Some("help") | None => break,
                    Some(name) => all.push(vec![command[0].clone(), name.to_string()]),
                }
            }
        } else {
            all.push(command);
        }
    }
    let mut missing = Vec::new();
    let mut checked = 0;
    for command in &all {
        let args: Vec<&str> = command.iter().map(String::as_str).collect();
        let (usage, options) = options(&args);
        for (name, text) in options {
            let takes_value = text.contains(&format!("{name} <"));
            if !takes_value {
                continue;
            }
            checked += 1;
            let key = format!("{} {name}", command.join(" "));
            let required = usage.contains(&format!(" {name} <"));
            if required || NO_DEFAULT.contains(&key.as_str()) {
                assert!(
                    !text.contains("[default:") || required,
                    "{key} has a default but is listed as having none"
                );
                continue;
            }
            if !text.contains("[default:") {
                missing.push(format!("{key}: {}", text.trim()));
            }
        }
    }
    assert!(
        checked > 80,
        "only {checked} options found: the help parser is broken"
    );
    assert!(
        missing.is_empty(),
        "options whose --help does not show a default:\n{}",
        missing.join("\n")
    );
    // Each learner shows its own default.
    for (learner, epochs) in [("ranking", "10"), ("streaming", "1"), ("positions", "30")] {
        let (_, fit) = options(&["fit", learner]);
        let text = &fit.iter().find(|(n, _)| n == "--epochs").unwrap().1;
        assert!(text.contains(&format!("[default: {epochs}]")), "{text}");
    }
}

/// `fit svr --help` shows the SVR's options and the ones every learner
/// takes, no other learner's.
#[test]
fn each_learner_helps_with_its_own_options() {
    let (usage, svr) = options(&["fit", "svr"]);
    assert!(usage.starts_with("Usage: kifulearn fit svr "), "{usage}");
    let names: Vec<&str> = svr.iter().map(|(n, _)| n.as_str()).collect();
    for own in [
        "--solver",
        "-c",
        "-p",
        "-e",
        "-B",
        "--max-iter",
        "--prior",
        "--jobs",
    ] {
        assert!(names.contains(&own), "{own} missing: {names:?}");
    }
    for shared in [
        "--out",
        "--binary",
        "--features",
        "--monotone-hand",
        "--quiet",
    ] {
        assert!(names.contains(&shared), "{shared} missing: {names:?}");
    }
    for other in [
        "--epochs", "--rate", "--leaf", "--mu", "--bound", "--method",
    ] {
        assert!(!names.contains(&other), "{other} in fit svr --help");
    }
    // The streaming learner shares --prior with the SVR (residual labels),
    // not its solver.
    let (_, streaming) = options(&["fit", "streaming"]);
    assert!(!streaming.iter().any(|(n, _)| n == "--solver"));
    assert!(streaming.iter().any(|(n, _)| n == "--prior"));
}

/// The old spellings keep working: `fit --method NAME ...` is `fit NAME
/// ...`, and `fit DATA ...` is `fit svr DATA ...`.
#[test]
fn old_spellings_keep_working() {
    let dir = common::dir("cli-convention-old-spelling");
    let model = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let rows = rows().to_str().unwrap();
    let (old, new) = (model("old.txt"), model("new.txt"));
    common::run_ok(&["fit", rows, "--out", &old, "--max-iter", "3", "-q"]);
    common::run_ok(&["fit", "svr", rows, "--out", &new, "--max-iter", "3", "-q"]);
    let read = |p: &str| std::fs::read_to_string(p).unwrap();
    assert_eq!(read(&old), read(&new));
    let (old, new) = (model("old-s.txt"), model("new-s.txt"));
    common::run_ok(&["fit", "--method", "streaming", rows, "--out", &old, "-q"]);
    common::run_ok(&["-q", "fit", "streaming", rows, "--out", &new]);
    assert_eq!(read(&old), read(&new));
}

/// 0 success, 1 partial success (`extract` with games that failed, the rest
/// written), 2 failure or usage error, always with a message on stderr.
#[test]
fn exit_codes() {
    let dir = common::dir("cli-convention-exit");
    // A real record and a corrupted one (an illegal move at ply 3).
    let good = std::fs::read_to_string("fixtures/selfplay/fsf_selfplay_w1_00301.csa").unwrap();
    std::fs::write(dir.join("good.csa"), &good).unwrap();
    let mut lines: Vec<&str> = good.lines().collect();
    let first_move = lines.iter().position(|l| l.starts_with('+')).unwrap();
    let bad_line = lines
        .iter()
        .enumerate()
        .skip(first_move + 1)
        .find(|(_, l)| l.starts_with('+') || l.starts_with('-'))
        .map(|(i, _)| i)
        .unwrap();
    lines[bad_line] = "-9199OU";
    std::fs::write(dir.join("bad.csa"), lines.join("\n") + "\n").unwrap();
    let out = dir.join("data");
    let partial = common::run(&[
        "extract",
        dir.join("good.csa").to_str().unwrap(),
        dir.join("bad.csa").to_str().unwrap(),
        "--features",
        "material",
        "--out",
        out.to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(partial.status.code(), Some(1), "{}", stderr(&partial));
    assert!(stderr(&partial).contains("bad.csa"), "{}", stderr(&partial));
    assert!(out.join("rows").read_dir().unwrap().count() >= 1);

    let failure = common::run(&["predict", "--model", "missing.model", "x.svm", "--out", "p"]);
    assert_eq!(failure.status.code(), Some(2));
    assert!(
        stderr(&failure).starts_with("error: "),
        "{}",
        stderr(&failure)
    );
    assert!(stderr(&failure).contains("missing.model"));

    let usage = common::run(&["fit", "--bogus"]);
    assert_eq!(usage.status.code(), Some(2));
    assert!(!stderr(&usage).is_empty());

    let ok = common::run(&["games", dir.join("good.csa").to_str().unwrap(), "-q"]);
    assert_eq!(ok.status.code(), Some(0));
}
