//! `kifulearn weights`: the king table reads the weights of the right pairs,
//! and a mirror-tied model shows one weight on both wings.

use std::path::Path;
use std::process::Command;

use kifulearn::features::{parse_kind, parse_square, relation_index};
use kifulearn::model::Model;

mod common;

/// Saves a binary model (the feature set in its header) with the given weights.
fn model(dir: &Path, name: &str, features: &str, weights: &[(u32, f64)]) -> String {
    let n = weights.iter().map(|&(i, _)| i).max().unwrap() as usize;
    let mut w = vec![0.0; n];
    for &(i, v) in weights {
        w[i as usize - 1] = v;
    }
    let m = Model {
        solver_type: "L2R_L2LOSS_SVR".into(),
        w,
        bias: -1.0,
        bias_weight: 0.0,
        features: features.into(),
    };
    let path = dir.join(name);
    m.save(&path, true).unwrap();
    path.to_str().unwrap().to_string()
}

/// The table's cell (file, rank letter) of `kifulearn weights` output.
fn cell(table: &str, file: u32, rank: char) -> String {
    let row = table
        .lines()
        .find(|l| l.trim_start().starts_with(rank) && l.trim_start().len() > 1)
        .unwrap();
    let cells: Vec<&str> = row.split_whitespace().skip(1).collect();
    cells[9 - file as usize].to_string()
}

fn weights(args: &[&str]) -> String {
    let args: Vec<&str> = ["weights"].iter().chain(args).copied().collect();
    String::from_utf8(common::run_ok(&args).stdout).unwrap()
}

#[test]
fn king_tables_show_the_weights_of_their_pairs() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("weights-cli");
    std::fs::create_dir_all(&dir).unwrap();
    let (gold, king) = (
        parse_kind("G", false).unwrap(),
        parse_kind("K", false).unwrap(),
    );
    let (opp_silver, k5i) = (parse_kind("S", true).unwrap(), parse_square("5i").unwrap());
    let sq = |s: &str| parse_square(s).unwrap();
    // own G 4h → own K 5i = 0.0123; opp S 6g → own K 5i = −0.005; own G 6h left at 0.
    let plain = model(
        &dir,
        "plain.bin",
        "relation",
        &[
            (relation_index(gold, sq("4h"), king, k5i), 0.0123),
            (relation_index(opp_silver, sq("6g"), king, k5i), -0.005),
        ],
    );
    let t = weights(&[&plain, "--king", "5i", "--piece", "G"]);
    assert!(t.starts_with("relation weight x 10000 of (own G on the square, own K on 5i)"));
    assert_eq!(cell(&t, 4, 'h'), "123.00");
    assert_eq!(cell(&t, 6, 'h'), "0.00");
    assert_eq!(cell(&t, 5, 'i'), "K");
    let t = weights(&[&plain, "--king", "5i", "--piece", "S", "--opponent"]);
    assert_eq!(cell(&t, 6, 'g'), "-50.00");
    // Tied: the pair on 4h is the canonical one (smaller index), shown on both wings.
    let tied = model(
        &dir,
        "tied.bin",
        "relation,mirror",
        &[(relation_index(gold, sq("4h"), king, k5i), 0.0123)],
    );
    let t = weights(&[&tied, "--king", "5i", "--piece", "G"]);
    assert_eq!(cell(&t, 4, 'h'), "123.00");
    assert_eq!(cell(&t, 6, 'h'), "123.00");
    // A set without relation has no king table.
    let material = model(&dir, "material.bin", "material", &[(1, 0.01)]);
    let out = Command::new(env!("CARGO_BIN_EXE_kifulearn"))
        .args(["weights", &material, "--king", "5i", "--piece", "G"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("has no relation part"));
    let _ = std::fs::remove_dir_all(&dir);
}
