//! Known answers from cshogi 1.1.0 (`Board(sfen).to_psfen` / `to_hcp`), and the errors.

use super::*;

/// (SFEN, `to_psfen` bytes, `to_hcp` bytes), printed by cshogi 1.1.0.
const KNOWN: [(&str, &str, &str); 3] = [
    (
        "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
        "58a451220ceb67227e9653221caf447824c22b119e53221ceb6f223e9651220c",
        "58a449210cd757217e8e4d212caf427814c2ab109e4d212cd75f213e8e49210c",
    ),
    (
        // White to move, promoted pieces, both hands.
        "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
        "2381510a86f515e900473c3ed5010020c52758530004cb48123fc3f99024ebbc",
        "2381490986eb1565014b3cbee40200a0c417b84a0004c744113fc3f9912467bd",
    ),
    (
        // White's bishop missing: a handicap, so a bishop in the piece box.
        "lnsgkgsnl/1r7/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
        "59a451220cab44fc2ca744385e89f0488457223ca74438d6df447c2ca344185e",
        "59a449210c9742fc1c9b42585e85f0288457213c9b4258aebf427c1c9342181e",
    ),
];

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn record(
    sfen: &str,
    mv: Option<&str>,
    score: i16,
    ply: u16,
    result: GameResult,
) -> PositionRecord {
    let position = Position::from_sfen(sfen).unwrap();
    let best_move = mv.map(|m| position.parse_move(m).unwrap());
    PositionRecord {
        position,
        score,
        best_move,
        ply,
        result,
    }
}

fn encoded(format: PositionFormat, record: &PositionRecord) -> Vec<u8> {
    let mut out = Vec::new();
    format.encode(record, &mut out).unwrap();
    out
}

#[test]
fn positions_pack_as_cshogi_packs_them() {
    for (sfen, psv, hcp) in KNOWN {
        let rec = record(sfen, None, 0, 1, GameResult::Draw);
        assert_eq!(
            hex(&encoded(PositionFormat::Psv, &rec)[..32]),
            psv,
            "{sfen}"
        );
        assert_eq!(
            hex(&encoded(PositionFormat::Hcpe, &rec)[..32]),
            hcp,
            "{sfen}"
        );
        for format in [PositionFormat::Psv, PositionFormat::Hcpe] {
            let back = format.decode(&encoded(format, &rec)).unwrap();
            assert_eq!(back.position.to_sfen(), sfen);
        }
    }
}

#[test]
fn record_fields_sit_where_the_dtypes_put_them() {
    // White to move, loses: HCPE says Black won (1).
    let rec = record(KNOWN[1].0, Some("S*3c"), -1234, 77, GameResult::Loss);
    let psv = encoded(PositionFormat::Psv, &rec);
    assert_eq!(psv.len(), 40);
    assert_eq!(&psv[32..], &[0x2e, 0xfb, 0x14, 0x42, 77, 0, 0xff, 0]);
    let hcpe = encoded(PositionFormat::Hcpe, &rec);
    assert_eq!(hcpe.len(), 38);
    assert_eq!(&hcpe[32..], &[0x2e, 0xfb, 0x14, 0x2a, 1, 0]);
    let back = PositionFormat::Hcpe.decode(&hcpe).unwrap();
    assert_eq!(
        (back.score, back.ply, back.result),
        (-1234, 0, GameResult::Loss)
    );
    assert_eq!(back.best_move, rec.best_move);
    let back = PositionFormat::Psv.decode(&psv).unwrap();
    assert_eq!(back.position.move_number(), 77);
    assert_eq!(
        back,
        PositionRecord {
            position: Position::from_sfen(&KNOWN[1].0.replace(" 1", " 77")).unwrap(),
            ..rec
        }
    );
}

#[test]
fn results_convert_between_side_to_move_and_colour() {
    for (sfen, side) in [(KNOWN[0].0, Color::Black), (KNOWN[1].0, Color::White)] {
        for result in [GameResult::Win, GameResult::Loss, GameResult::Draw] {
            assert_eq!(GameResult::for_side(result.winner(side), side), result);
            let rec = record(sfen, None, 0, 1, result);
            let hcpe = encoded(PositionFormat::Hcpe, &rec);
            let expected = match result.winner(side) {
                record::GameResult::BlackWin => 1,
                record::GameResult::WhiteWin => 2,
                _ => 0,
            };
            assert_eq!(hcpe[36], expected);
            for format in [PositionFormat::Psv, PositionFormat::Hcpe] {
                let back = format.decode(&encoded(format, &rec)).unwrap();
                assert_eq!(back.result, result);
            }
        }
        // Unknown has no code: it is written and read as a draw.
        let rec = record(sfen, None, 0, 1, GameResult::Unknown);
        for format in [PositionFormat::Psv, PositionFormat::Hcpe] {
            let back = format.decode(&encoded(format, &rec)).unwrap();
            assert_eq!(back.result, GameResult::Draw);
        }
    }
}

#[test]
fn formats_follow_extensions_and_names() {
    for (name, format) in [
        ("a.psv", Some(PositionFormat::Psv)),
        ("dir/teacher.BIN", Some(PositionFormat::Psv)),
        ("x.hcpe", Some(PositionFormat::Hcpe)),
        ("x.hcpe3", None),
        ("x", None),
    ] {
        assert_eq!(PositionFormat::from_path(Path::new(name)), format, "{name}");
    }
    assert_eq!("HCPE".parse::<PositionFormat>(), Ok(PositionFormat::Hcpe));
    assert!("sfen".parse::<PositionFormat>().is_err());
    let err = read_positions(Path::new("no/such.txt")).err().unwrap();
    assert!(err.to_string().contains("cannot tell the format"), "{err}");
}

#[test]
fn an_illegal_best_move_is_not_written() {
    let mut rec = record(KNOWN[0].0, None, 0, 1, GameResult::Draw);
    rec.best_move = Some(crate::shogi::parse_usi_move("7g7e").unwrap());
    let mut writer = PositionWriter::new(Vec::new(), PositionFormat::Hcpe);
    let err = writer.write(&rec).unwrap_err();
    assert!(err.to_string().contains("7g7e is not legal"), "{err}");
    assert_eq!(writer.count(), 0);
    assert!(writer.finish().unwrap().is_empty());
}

fn read_all(bytes: &[u8], format: PositionFormat) -> Vec<Result<PositionRecord, PositionError>> {
    PositionReader::new(bytes, format)
        .with_path("t.bin")
        .collect()
}

#[test]
fn bad_records_are_errors_that_say_where_and_reading_goes_on() {
    let good = encoded(
        PositionFormat::Psv,
        &record(KNOWN[0].0, Some("7g7f"), 10, 1, GameResult::Win),
    );
    let mut bytes = Vec::new();
    // 0: the result byte is 5.
    let mut bad = good.clone();
    bad[38] = 5;
    bytes.extend(&bad);
    // 1: fine.
    bytes.extend(&good);
    // 2: the move is 7g7e (60 → 58).
    let mut bad = good.clone();
    bad[34..36].copy_from_slice(&(58u16 | 60 << 7).to_le_bytes());
    bytes.extend(&bad);
    // 3: Black's king on square 127.
    let mut bad = good.clone();
    bad[0] |= 0xfe;
    bytes.extend(&bad);
    // 4: all zeros: both kings on 1a.
    bytes.extend([0u8; 40]);
    // 5: the side bit set: White to move, and the move 7g7f is Black's.
    let mut bad = good.clone();
    bad[0] |= 1;
    bytes.extend(&bad);
    // 6: truncated.
    bytes.extend(&good[..17]);
    let read = read_all(&bytes, PositionFormat::Psv);
    assert_eq!(read.len(), 7);
    let messages: Vec<String> = read
        .iter()
        .map(|r| r.as_ref().err().map(|e| e.to_string()).unwrap_or_default())
        .collect();
    assert!(
        messages[0].starts_with("t.bin: record 0 (byte 0): game result 5"),
        "{}",
        messages[0]
    );
    assert!(read[1].is_ok());
    assert!(
        messages[2].starts_with("t.bin: record 2 (byte 80): move code"),
        "{}",
        messages[2]
    );
    assert!(messages[2].contains("7g7e is not legal"), "{}", messages[2]);
    assert!(
        messages[3]
            .contains("record 3 (byte 120): bad packed position: Black king on square number 127"),
        "{}",
        messages[3]
    );
    assert!(
        messages[4].contains("record 4 (byte 160): bad packed position: both kings"),
        "{}",
        messages[4]
    );
    assert!(
        messages[5].contains("record 5 (byte 200): move code"),
        "{}",
        messages[5]
    );
    assert!(
        messages[6].contains("record 6 (byte 240): the file ends inside a record: 17 of 40 bytes"),
        "{}",
        messages[6]
    );
}

#[test]
fn an_illegal_position_is_an_error() {
    // A Black gold on 5b checks White's king: legal with White to move, not with Black.
    let sfen = "lnsgkgsnl/1r2G2b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNS1KGSNL b - 1";
    assert!(Position::from_sfen(sfen).is_err());
    // Pack the legal White-to-move version and set the side bit to Black.
    let legal = record(&sfen.replace(" b ", " w "), None, 0, 1, GameResult::Draw);
    for format in [PositionFormat::Psv, PositionFormat::Hcpe] {
        let mut bytes = encoded(format, &legal);
        assert!(format.decode(&bytes).is_ok());
        bytes[0] &= !1;
        let err = format.decode(&bytes).unwrap_err();
        assert!(matches!(err, Problem::Position(_)), "{err}");
    }
}
