//! `scripts/readme_examples.sh` runs the README's ```sh examples in CI; this
//! checks, without running them, that its list is the README's: every command
//! of every ```sh block is listed, in order, and every shortening rule of the
//! script still matches a README line (the script refuses a stale rule).

use std::path::Path;
use std::process::Command;

fn readme() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README.md")
}

fn readme_commands() -> Vec<String> {
    let readme = readme();
    let mut inside = false;
    let mut out = Vec::new();
    for line in readme.lines() {
        if line == "```sh" {
            inside = true;
        } else if line.starts_with("```") {
            inside = false;
        } else if inside {
            let command = line.split(" #").next().unwrap_or("").trim_end();
            if !command.is_empty() {
                out.push(command.to_string());
            }
        }
    }
    out
}

#[test]
fn the_script_lists_every_readme_command_in_order() {
    let commands = readme_commands();
    assert!(
        commands.len() >= 20,
        "expected the README's ~21 example commands, found {}",
        commands.len()
    );
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/readme_examples.sh");
    let out = Command::new("bash")
        .arg(&script)
        .arg("--list")
        .output()
        .expect("bash");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "readme_examples.sh --list failed: {}{}",
        stdout,
        String::from_utf8_lossy(&out.stderr)
    );
    // Unchanged commands are listed as they are; changed ones are followed by
    // an indented "→ replacement (why)" line.
    let listed: Vec<&str> = stdout.lines().filter(|l| !l.starts_with("  → ")).collect();
    assert_eq!(listed, commands, "the script's list is not the README's");
    for line in stdout.lines().filter(|l| l.starts_with("  → ")) {
        assert!(line.ends_with(')'), "a change without its reason: {line}");
    }
    // The commands that would take many minutes are shortened, not run as written.
    assert!(stdout.contains("--games 20 "), "{stdout}");
    assert!(stdout.contains("--positions 2000 "), "{stdout}");
}

/// Issue 36's shape of the README: at most 12,000 characters (a guide, with
/// the measurements in docs/results.md), and its first 40 lines say what the
/// tool is, how to install it, and give the two commands (the main job on
/// the repository's own files, and the tests).
#[test]
fn the_readme_stays_a_short_guide() {
    let readme = readme();
    let chars = readme.chars().count();
    assert!(
        chars <= 12_000,
        "README.md has {chars} characters; move measurements to docs/results.md"
    );
    let head: Vec<&str> = readme.lines().take(40).collect();
    let head = head.join("\n");
    for needed in [
        "cargo run --release -- pipeline run pipelines/quickstart.toml",
        "cargo test --release",
        "kifulearn learns",
        "## Install",
        "cargo install --path .",
    ] {
        assert!(head.contains(needed), "the first 40 lines lack {needed:?}");
    }
}
