use super::sidecar::tmp_path;
use super::*;

fn examples() -> PathBuf {
    crate::testdata::fixture("liblinear")
}

#[test]
#[allow(clippy::excessive_precision)] // the literals are printf's own output
fn formats_like_printf_g17() {
    for (x, s) in [
        (7.8818309830442393e-05, "7.8818309830442393e-05"),
        (0.0022216645468907843, "0.0022216645468907843"),
        (1e-5, "1.0000000000000001e-05"),
        (1.0, "1"),
        (-1.0, "-1"),
        (-3.5e20, "-3.5e+20"),
        (0.1, "0.10000000000000001"),
        (123456.0, "123456"),
        (1e16, "10000000000000000"),
        (1e17, "1e+17"),
        (0.0001, "0.0001"),
    ] {
        assert_eq!(format_g17(x), s, "{x:e}");
    }
    assert_eq!(format_g(0.00888177123, 6), "0.00888177");
    assert_eq!(format_g(0.98442, 6), "0.98442");
    assert_eq!(format_g(1234567.0, 6), "1.23457e+06");
}

#[test]
fn liblinear_text_models_round_trip_byte_for_byte() {
    for name in ["small_s11.model", "small_s11_bias.model"] {
        let path = examples().join(name);
        let text = std::fs::read_to_string(&path).unwrap();
        let model = Model::from_text(&path, &text).unwrap();
        assert_eq!(model.nr_feature(), 1000);
        assert_eq!(model.to_text(), text, "{name}");
    }
}

#[test]
fn a_large_model_is_written_in_parallel_as_one_sequential_text() {
    // Weights over many formatting chunks and waves, of every form `%.17g`
    // writes: zeros of both signs, fixed and scientific, the exponent limits,
    // a run of zeros across a chunk boundary; liblinear's own weights among them.
    let small = Model::load(&examples().join("small_s11_bias.model")).unwrap();
    let n = 300_001;
    let w: Vec<f64> = (0..n)
        .map(|i| match i % 11 {
            0 => 0.0,
            1 => -0.0,
            2 => small.w[i % small.w.len()],
            3 => (i as f64).sqrt() * 1e-9,
            4 => -(i as f64) * 1e12,
            5 => 1e-4 * (1.0 + i as f64 / n as f64),
            6 => 1e16 + i as f64,
            _ if (65_000..70_000).contains(&i) => 0.0,
            _ => ((i * 2_654_435_761) % 1_000_003) as f64 / 7.0 - 70_000.0,
        })
        .collect();
    let model = Model { w, ..small.clone() };
    let mut expected = model
        .to_text()
        .lines()
        .take(5)
        .collect::<Vec<_>>()
        .join("\n");
    expected.push('\n');
    for &x in model.w.iter().chain([model.bias_weight].iter()) {
        expected.push_str(&format_g17(x));
        expected.push_str(" \n");
    }
    assert!(model.w.len() > 4 * super::text::FORMAT_CHUNK);
    assert_eq!(model.to_text(), expected);
    let back = Model::from_text(Path::new("big.model"), &expected).unwrap();
    assert_eq!(back.w, model.w);
    // Saved, the text is streamed to the file wave by wave, hashed on the
    // way: the same bytes, and a sidecar hash that is the file's.
    let dir = std::env::temp_dir().join(format!("kifulearn-big-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (plain, paired) = (dir.join("plain.model"), dir.join("paired.model"));
    model.save(&plain, false).unwrap();
    model
        .save_with_meta(&paired, false, &ModelMeta::new(""))
        .unwrap();
    for path in [&plain, &paired] {
        assert_eq!(std::fs::read_to_string(path).unwrap(), expected);
        assert!(!tmp_path(path).exists());
    }
    let meta = std::fs::read_to_string(meta_path(&paired)).unwrap();
    let hash = crate::libsvm::dataset::Fnv64::hex_of(expected.as_bytes());
    assert!(meta.contains(&format!("model_hash = \"{hash}\"")), "{meta}");
    assert_eq!(Model::load(&paired).unwrap().w, model.w);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn binary_round_trips_to_f32_and_load_detects_it() {
    let path = examples().join("small_s11_bias.model");
    let model = Model::load(&path).unwrap();
    let mut named = model.clone();
    named.features = "relation".into();
    let dir = std::env::temp_dir().join(format!("kifulearn-model-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bin = dir.join("m.bin");
    named.save(&bin, true).unwrap();
    let back = Model::load(&bin).unwrap();
    assert_eq!(back.features, "relation");
    assert_eq!(back.bias, 1.0);
    assert_eq!(back.w.len(), 1000);
    for (a, b) in back.w.iter().zip(&model.w) {
        assert_eq!(*a, *b as f32 as f64);
    }
    // Mostly zero weights use the sparse layout.
    let mut sparse = model.clone();
    sparse.w.iter_mut().skip(10).for_each(|w| *w = 0.0);
    let bytes = sparse.to_binary();
    assert!(bytes.len() < 200, "{}", bytes.len());
    let back = Model::from_binary(&bin, &bytes).unwrap();
    assert_eq!(
        back.w[..10],
        sparse.w[..10]
            .iter()
            .map(|&w| w as f32 as f64)
            .collect::<Vec<_>>()[..]
    );
    assert!(back.w[10..].iter().all(|&w| w == 0.0));
    let e = Model::from_binary(&bin, &bytes[..bytes.len() - 3]).unwrap_err();
    assert!(
        e.to_string().ends_with(
            "m.bin: byte 33: the count of nonzero weights 10 needs 80 bytes, only 77 remain"
        ),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_feature_limit_covers_every_feature_set() {
    let largest: crate::features::Features = "relation,relation-typed,material,kp,pp,mirror"
        .parse()
        .unwrap();
    let d = crate::features::FeatureSet::dimension(&largest) as usize;
    assert!(d * 2 <= MAX_FEATURES, "{d}");
}

#[test]
fn binary_counts_are_checked_against_the_file_length() {
    let p = Path::new("m.bin");
    let e = |b: &[u8]| Model::from_binary(p, b).unwrap_err().to_string();
    assert_eq!(
        e(b"KFLM"),
        "m.bin: byte 4: truncated binary model: expected the version, the file ends at byte 4"
    );
    let header = |n: u32, layout: u8| {
        let mut b = Vec::new();
        b.extend_from_slice(b"KFLM");
        b.extend_from_slice(&1u32.to_le_bytes());
        b.extend_from_slice(&8u32.to_le_bytes());
        b.extend_from_slice(b"material");
        b.extend_from_slice(&n.to_le_bytes());
        b.extend_from_slice(&(-1f64).to_le_bytes());
        b.extend_from_slice(&0f32.to_le_bytes());
        b.push(layout);
        b
    };
    assert_eq!(
        e(&header(u32::MAX, 0)),
        "m.bin: byte 20: nr_feature 4294967295 is beyond the limit of 134217728 features"
    );
    assert_eq!(
        e(&header(1 << 20, 0)),
        "m.bin: byte 37: nr_feature 1048576 needs 4194304 bytes, only 0 remain"
    );
    let mut sparse = header(100, 1);
    sparse.extend_from_slice(&u32::MAX.to_le_bytes());
    assert_eq!(
        e(&sparse),
        "m.bin: byte 41: the count of nonzero weights 4294967295 needs 34359738360 bytes, only 0 remain"
    );
    let mut name = b"KFLM".to_vec();
    name.extend_from_slice(&1u32.to_le_bytes());
    name.extend_from_slice(&u32::MAX.to_le_bytes());
    assert_eq!(
        e(&name),
        "m.bin: byte 12: truncated binary model: expected a feature-set name of 4294967295 bytes, the file ends at byte 12"
    );
}

#[test]
fn a_model_and_its_sidecar_must_agree() {
    let dir = std::env::temp_dir().join(format!("kifulearn-meta-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("m.model");
    let model = Model {
        solver_type: "L2R_L2LOSS_SVR".into(),
        w: vec![0.5; 200],
        bias: -1.0,
        bias_weight: 0.0,
        features: String::new(),
    };
    model.save(&path, false).unwrap();
    // No sidecar: a liblinear model, loaded as it is.
    assert!(Model::load(&path).is_ok());
    // The material set has 104 features, the model 200 weights.
    write_meta(&path, &ModelMeta::new("material")).unwrap();
    let e = Model::load(&path).unwrap_err().to_string();
    assert!(
        e.ends_with(
            "m.model.meta.toml: features = \"material\" has dimension 104 but \
             the model and its sidecar do not belong together"
        ) || e.contains("has dimension 104 but"),
        "{e}"
    );
    assert!(e.contains("has nr_feature 200"), "{e}");
    write_meta(&path, &ModelMeta::new("no-such-set")).unwrap();
    let e = Model::load(&path).unwrap_err().to_string();
    assert!(e.contains("features = \"no-such-set\""), "{e}");
    let relation = |n| ModelMeta {
        nr_feature: Some(n),
        ..ModelMeta::new("relation")
    };
    write_meta(&path, &relation(199)).unwrap();
    let e = Model::load(&path).unwrap_err().to_string();
    assert!(e.contains("nr_feature = 199 but"), "{e}");
    write_meta(&path, &relation(200)).unwrap();
    assert_eq!(Model::load(&path).unwrap().features, "relation");
    // A binary model's sidecar must name the header's set.
    let bin = dir.join("m.bin");
    let mut named = model.clone();
    named.features = "relation".into();
    named.save(&bin, true).unwrap();
    write_meta(&bin, &ModelMeta::new("kp")).unwrap();
    let e = Model::load(&bin).unwrap_err().to_string();
    assert!(
        e.contains("disagrees with the binary model's header (relation)"),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// A model and its meta as one unit: the `.bin` carries the meta, old
/// `.bin` files still load, and a sidecar beside another model is refused.
#[test]
fn model_and_meta_are_one_unit() {
    let dir = std::env::temp_dir().join(format!("kifulearn-unit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut model = Model {
        solver_type: "L2R_L2LOSS_SVR".into(),
        w: (0..104).map(|i| f64::from(i) / 64.0).collect(),
        bias: -1.0,
        bias_weight: 0.0,
        features: "material".into(),
    };
    let meta = ModelMeta {
        method: Some("positions".into()),
        epochs: Some(3),
        ..ModelMeta::new("material")
    };
    // Binary: the meta section holds the sidecar's TOML, less the hash.
    let bin = dir.join("m.bin");
    model.save_with_meta(&bin, true, &meta).unwrap();
    let bytes = std::fs::read(&bin).unwrap();
    let inside = Model::binary_meta(&bin, &bytes).unwrap().unwrap();
    assert_eq!(
        inside,
        "features = \"material\"\nmethod = \"positions\"\nepochs = 3\n"
    );
    let sidecar = std::fs::read_to_string(meta_path(&bin)).unwrap();
    assert_eq!(
        sidecar,
        format!(
            "{inside}model_hash = \"{}\"\n",
            crate::libsvm::dataset::Fnv64::hex_of(&bytes)
        )
    );
    let loaded = Model::load(&bin).unwrap();
    // The .bin alone knows its set and is checked against it.
    std::fs::remove_file(meta_path(&bin)).unwrap();
    assert_eq!(Model::load(&bin).unwrap(), loaded);
    assert_eq!(loaded.features, "material");
    assert_eq!(Model::from_binary(&bin, &bytes).unwrap(), loaded);
    // An old .bin (no section) loads as before; a damaged section is refused.
    let old = model.to_binary();
    assert_eq!(Model::binary_meta(&bin, &old).unwrap(), None);
    assert_eq!(Model::from_bytes(&bin, &old, None).unwrap(), loaded);
    let cut = &bytes[..bytes.len() - 3];
    let e = Model::from_bytes(&bin, cut, None).unwrap_err().to_string();
    assert!(e.contains("META section of"), "{e}");
    let mut wrong_set = model.clone();
    wrong_set.w.push(1.0); // 105 weights: more than material's 104
    let e = Model::from_bytes(&bin, &wrong_set.to_binary_with_meta(&inside), None)
        .unwrap_err()
        .to_string();
    assert!(e.contains("has dimension 104 but"), "{e}");

    // Text: what a crash between the two renames leaves (the new sidecar
    // beside the old model) is refused, naming both.
    let txt = dir.join("m.model");
    model.save_with_meta(&txt, false, &meta).unwrap();
    assert_eq!(Model::load(&txt).unwrap().features, "material");
    let old_text = model.to_text();
    model.w[0] = 0.25;
    model.save_with_meta(&txt, false, &meta).unwrap();
    std::fs::write(&txt, &old_text).unwrap();
    let e = Model::load(&txt).unwrap_err().to_string();
    assert!(
        e.contains("m.model.meta.toml: model_hash = ") && e.contains("do not belong together"),
        "{e}"
    );
    // The same crash as `save_with_meta` leaves it, with the new model
    // complete in m.model.tmp: the load finishes the save and reads the
    // new pair.
    std::fs::write(tmp_path(&txt), model.to_text()).unwrap();
    assert_eq!(Model::load(&txt).unwrap().w[0], 0.25);
    assert!(!tmp_path(&txt).exists());
    assert_eq!(std::fs::read_to_string(&txt).unwrap(), model.to_text());
    // A stray m.model.tmp that is not the sidecar's model is left alone.
    std::fs::write(&txt, &old_text).unwrap();
    std::fs::write(tmp_path(&txt), "junk").unwrap();
    assert!(Model::load(&txt).is_err());
    assert!(tmp_path(&txt).exists());
    // A sidecar without a hash (written by other tools) is still read.
    write_meta(&txt, &ModelMeta::new("material")).unwrap();
    assert!(Model::load(&txt).is_ok());
    std::fs::remove_dir_all(&dir).ok();
}

/// `from_bytes` (the fuzz targets' entry) is `load` without the files: the
/// same models and the same refusals, from memory.
#[test]
fn from_bytes_checks_what_load_checks() {
    let p = Path::new("m.model");
    let text = std::fs::read(examples().join("small_s11.model")).unwrap();
    let plain = Model::from_bytes(p, &text, None).unwrap();
    assert_eq!(
        plain,
        Model::load(&examples().join("small_s11.model")).unwrap()
    );
    let named = Model::from_bytes(p, &text, Some("features = \"relation\"\n")).unwrap();
    assert_eq!(named.features, "relation");
    assert_eq!(named.w, plain.w);
    let e = Model::from_bytes(p, &text, Some("features = \"material\"\n"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("m.model.meta.toml: features = \"material\" has dimension 104"),
        "{e}"
    );
    let bin = named.to_binary();
    assert_eq!(
        Model::from_bytes(p, &bin, None).unwrap().w.len(),
        plain.w.len()
    );
    let e = Model::from_bytes(p, &bin, Some("features = \"kp\"\n"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("disagrees with the binary model's header (relation)"),
        "{e}"
    );
    let e = Model::from_bytes(p, &[0xff, 0xfe], None)
        .unwrap_err()
        .to_string();
    assert_eq!(e, "m.model: neither a binary model nor UTF-8 text");
}

#[test]
fn rejects_malformed_text_models() {
    let p = Path::new("m.model");
    let e = |t: &str| Model::from_text(p, t).unwrap_err().to_string();
    assert_eq!(
        e("solver_type L2R_L2LOSS_SVR\nnr_class 2\nnr_feature 3\nbias -1\nw\n1\n2\n"),
        "m.model: line 3: nr_feature 3 needs 3 weights after \"w\" (line 5), the file has 2"
    );
    assert_eq!(
        e("solver_type L2R_L2LOSS_SVR\nnr_class 2\nnr_feature 1\nbias 1\nw\n1\n"),
        "m.model: line 3: nr_feature 1 and the bias needs 2 weights after \"w\" (line 5), the file has 1"
    );
    assert_eq!(
        e("solver_type L2R_L2LOSS_SVR\nnr_class 2\nnr_feature 1\nbias -1\nw\n1\n2\n"),
        "m.model: line 7: found \"2\" after the 1 weights that nr_feature 1 (line 3) announces"
    );
    // A count beyond the limit is refused before anything is allocated.
    assert_eq!(
        e("solver_type L2R_L2LOSS_SVR\nnr_class 2\nnr_feature 4294967295\nbias -1\nw\n1\n"),
        "m.model: line 3: nr_feature 4294967295 is beyond the limit of 134217728 features"
    );
    // Within the limit but not in the file: an error, and no 16M reservation.
    assert_eq!(
        e("solver_type L2R_L2LOSS_SVR\nnr_class 2\nnr_feature 16777216\nbias -1\nw\n1\n"),
        "m.model: line 3: nr_feature 16777216 needs 16777216 weights after \"w\" (line 5), the file has 1"
    );
    assert_eq!(
        e("solver_type L2R_L2LOSS_SVR\nfoo 2\n"),
        "m.model: unknown text in model file: \"foo\""
    );
    assert_eq!(
        e("solver_type L2R_LR\nnr_class 2\nnr_feature 1\nbias -1\nw\n1\n"),
        "m.model: solver_type L2R_LR is not a regression model (expected L2R_L2LOSS_SVR or an SVR dual)"
    );
}

/// The sidecar is one struct: what is written reads back the same, in the
/// fields' order, floats as `{:?}` prints them (`1e-6`, not `0.000001`).
#[test]
fn a_sidecar_round_trips() {
    let meta = ModelMeta {
        method: Some("streaming".into()),
        rate: Some(f32_as_written(0.01)),
        tolerance: Some(1e-6),
        epochs: Some(3),
        seed: Some(Seed(None)),
        objective: Some(f64::NAN),
        epoch_mse: Some(vec![0.5, 2.0]),
        binary: Some(false),
        data: Some(vec!["a \"b\"\\c.svm".into()]),
        model_hash: Some("00ff".into()),
        ..ModelMeta::new("material,kp")
    };
    let text = meta.to_toml().unwrap();
    assert_eq!(
        text,
        "features = \"material,kp\"\nmethod = \"streaming\"\nrate = 0.01\n\
         tolerance = 1e-6\nepochs = 3\nseed = \"sorted\"\nobjective = nan\n\
         epoch_mse = [0.5, 2.0]\nbinary = false\ndata = [\"a \\\"b\\\"\\\\c.svm\"]\n\
         model_hash = \"00ff\"\n"
    );
    let back = ModelMeta::parse(&text).unwrap();
    assert!(back.objective.unwrap().is_nan());
    let same = |m: &ModelMeta| ModelMeta {
        objective: None,
        ..m.clone()
    };
    assert_eq!(same(&back), same(&meta));
    assert_eq!(back.to_toml().unwrap(), text);
    // A seed past TOML's i64 is written as a string and read back.
    let big = ModelMeta {
        seed: Some(Seed(Some(u64::MAX))),
        ..ModelMeta::default()
    };
    assert_eq!(big.to_toml().unwrap(), "seed = \"18446744073709551615\"\n");
    assert_eq!(ModelMeta::parse(&big.to_toml().unwrap()).unwrap(), big);
    // A count past i64 is refused at the write, not written unreadable.
    let huge = ModelMeta {
        max_iterations: Some(u64::MAX),
        ..ModelMeta::default()
    };
    assert!(huge.to_toml().is_err());
}

/// The sidecars the peer scripts write (`scripts/liblinear_io.py`'s
/// `write_fitted` for scikit-learn and Spark, `scripts/liblinear_fit.sh`)
/// load: their keys are modelled, `data` may be one string, and a key no one
/// models is accepted. The texts are what the scripts printed
/// (`tests/peers_position_rows.rs` and `tests/spark.rs` run the scripts).
#[test]
fn the_peer_scripts_sidecars_load() {
    let sklearn = "features = \"material,kp\"\nsolver = \"scikit-learn Ridge sparse_cg\"\n\
        c = 0.002\np = 0.0\nbias = -1.0\nprior = \"zero\"\nalpha = 250.0\nrows = 1234\n\
        tolerance = 1e-06\nobjective = 12.345678901234567\nbinary = false\n\
        monotone_hand = false\ndata = [\"rows/rows/a.svm\", \"rows/rows/b.svm\"]\n";
    let m = ModelMeta::parse(sklearn).unwrap();
    assert_eq!(m.features.as_deref(), Some("material,kp"));
    assert_eq!(
        (m.alpha, m.rows, m.tolerance),
        (Some(250.0), Some(1234), Some(1e-6))
    );
    assert_eq!(m.data.as_ref().map(Vec::len), Some(2));
    let spark = "features = \"relation\"\nsolver = \"spark LinearRegression l-bfgs\"\n\
        c = 0.01\np = 0.0\nbias = -1.0\nreg_param = 1.2e-05\nlabel_std = 0.0123\n\
        rows = 4321\ntolerance = 1e-12\niterations = 17\nobjective = 0.5\n\
        master = \"local[2]\"\nbinary = false\nmonotone_hand = false\n\
        data = [\"x/rows/1.svm\"]\n";
    let m = ModelMeta::parse(spark).unwrap();
    assert_eq!((m.reg_param, m.label_std), (Some(1.2e-5), Some(0.0123)));
    assert_eq!(m.master.as_deref(), Some("local[2]"));
    let liblinear = "features = \"material,kp\"\n\
        solver = \"liblinear-train -s 11 -p 0 -c 2e-3 -q\"\nprior = \"zero\"\ndata = \"rows\"\n\
        someone_elses_key = { a = 1 }\n";
    let m = ModelMeta::parse(liblinear).unwrap();
    assert_eq!(m.data, Some(vec!["rows".to_string()]));
    // Each beside a model of its set loads, the set read from it.
    let text = std::fs::read(examples().join("small_s11.model")).unwrap();
    let p = Path::new("m.model");
    for (set, meta) in [
        ("material,kp", sklearn),
        ("relation", spark),
        ("material,kp", liblinear),
    ] {
        let mut named = Model::from_bytes(p, &text, None).unwrap();
        named.w.truncate(1);
        let m = Model::from_bytes(p, named.to_text().as_bytes(), Some(meta)).unwrap();
        assert_eq!(m.features, set);
    }
    // Not TOML, or a known key of the wrong type: refused, naming the sidecar.
    for bad in [
        "features = material\n",
        "features = \"relation\"\nnr_feature = \"3\"\n",
    ] {
        let e = Model::from_bytes(p, &text, Some(bad))
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("m.model.meta.toml: not a model sidecar: "),
            "{e}"
        );
    }
}
