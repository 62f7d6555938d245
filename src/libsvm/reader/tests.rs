use super::*;

fn read(text: &str) -> Result<LibsvmData, ReadError> {
    read_bytes(Path::new("data/a.svm"), text.as_bytes())
}

#[test]
fn reads_rows_labels_and_dimension() {
    let d = read("0.5 1:3 7:0.25\n-1\n1e-2 2:10\n").unwrap();
    assert_eq!(d.x.shape(), (3, 7));
    assert_eq!(d.y.to_vec(), vec![0.5, -1.0, 0.01]);
    assert_eq!(d.x.indptr().raw_storage(), &[0, 2, 2, 3]);
    assert_eq!(d.x.indices(), &[0, 6, 1]);
    assert_eq!(d.x.data(), &[3.0, 0.25, 10.0]);
}

#[test]
fn reports_file_line_and_token() {
    let e = read("1 1:2\n\n").unwrap_err().to_string();
    assert_eq!(e, "data/a.svm:2: empty line, expected a label");
    let mut text = String::new();
    for _ in 0..11 {
        text.push_str("0.1 1:1 2:2\n");
    }
    text.push_str("0.2 1:1 3:x\n");
    assert_eq!(
        read(&text).unwrap_err().to_string(),
        "data/a.svm:12: found \"3:x\", expected INDEX:VALUE with a positive integer index"
    );
    assert_eq!(
        read("1 0:1\n").unwrap_err().to_string(),
        "data/a.svm:1: found \"0:1\", expected INDEX:VALUE with a positive integer index"
    );
    assert_eq!(
        read("1 3:1 2:1\n").unwrap_err().to_string(),
        "data/a.svm:1: index 2 after 3, indices must be strictly ascending"
    );
    assert_eq!(
        read("x 3:1\n").unwrap_err().to_string(),
        "data/a.svm:1: found \"x\", expected a number as the label"
    );
}

#[test]
fn svmlight_comments_tabs_and_qid() {
    // The shape of scikit-learn's `svmlight_classification.txt` test file.
    let text = "# comment\n# note: the next line contains a tab\n1.0 3:2.5 \t   11:-5.2 16:1.5 # and an inline comment\n2.0 6:1.0 13:-3\n# another comment\n3.0 21:27\n4.0 2:1.234567890123456e10 # double precision value\n1.0     # empty line, all zeros\n2.0 3:0 # explicit zeros\n";
    let d = read(text).unwrap();
    assert_eq!(d.y.to_vec(), vec![1.0, 2.0, 3.0, 4.0, 1.0, 2.0]);
    assert_eq!(d.x.shape(), (6, 21));
    assert_eq!(d.x.indptr().raw_storage(), &[0, 3, 5, 6, 7, 7, 8]);
    assert_eq!(d.x.indices(), &[2, 10, 15, 5, 12, 20, 1, 2]);
    assert_eq!(
        d.x.data(),
        &[2.5, -5.2, 1.5, 1.0, -3.0, 27.0, 1.234_567_9e10, 0.0]
    );
    // qid after the label: kept as the group when asked for, else ignored.
    let dir = std::env::temp_dir().join(format!("kifulearn-qid-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("rank.svm");
    std::fs::write(&path, "3 qid:1 1:1 2:0.5\n1 qid:1 2:2\n2\tqid:7\t1:1\n").unwrap();
    let (d, groups) = read_paths_with_groups(&[&path]).unwrap();
    assert_eq!(groups, Some(vec![Some(1), Some(1), Some(7)]));
    assert_eq!(d.x.indices(), &[0, 1, 1, 0]);
    assert_eq!(
        read_paths(&[&path]).unwrap().y.to_vec(),
        vec![3.0, 1.0, 2.0]
    );
    let mut rows = RowBuffer::new();
    let mut reader = RowReader::open(&path).unwrap();
    assert!(reader.next_chunk(&mut rows, 10).unwrap());
    assert_eq!((rows.group(0), rows.group(2)), (Some(1), Some(7)));
    let (_, none) =
        read_paths_with_groups(&[crate::testdata::fixture("liblinear/small.svm")]).unwrap();
    assert_eq!(none, None);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn svmlight_stays_strict_elsewhere() {
    let e = |t: &str| read(t).unwrap_err().to_string();
    assert_eq!(
        e("1 1:1 qid:2\n"),
        "data/a.svm:1: found \"qid:2\", expected qid:N only right after the label"
    );
    assert_eq!(
        e("1 qid:x 1:1\n"),
        "data/a.svm:1: found \"qid:x\", expected qid:N with a non-negative integer N"
    );
    // Line numbers count comment lines.
    assert_eq!(
        e("# head\n1 1:1\n# note\n\n"),
        "data/a.svm:4: empty line, expected a label"
    );
    assert_eq!(
        e("#c\n1 2:1 1:1 # x\n"),
        "data/a.svm:2: index 1 after 2, indices must be strictly ascending"
    );
    assert_eq!(
        e("one 1:1 # label\n"),
        "data/a.svm:1: found \"one\", expected a number as the label"
    );
}

#[test]
fn line_numbers_survive_parallel_pieces() {
    // Many pieces per block: the error line must still be global.
    let mut text = String::new();
    for i in 0..5000 {
        text.push_str(&format!("{i} 1:1 {}:2\n", i + 2));
    }
    text.push_str("1 5:1 5:2\n");
    let e = read(&text).unwrap_err().to_string();
    assert_eq!(
        e,
        "data/a.svm:5001: index 5 after 5, indices must be strictly ascending"
    );
}

#[test]
fn row_reader_chunks_match_the_whole_file_read() {
    let dir = std::env::temp_dir().join(format!("kifulearn-rowreader-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("a.svm");
    let mut text = String::new();
    for i in 0..25u32 {
        text.push_str(&format!("{}.5 {}:1 {}:0.25\n", i, i % 3 + 1, i + 4));
    }
    std::fs::write(&path, &text).unwrap();
    let whole = read_paths(&[&path]).unwrap();
    let mut reader = RowReader::open(&path).unwrap();
    let mut rows = RowBuffer::new();
    let (mut labels, mut indices, mut values, mut chunks, mut max) = (vec![], vec![], vec![], 0, 0);
    while reader.next_chunk(&mut rows, 10).unwrap() {
        chunks += 1;
        max = max.max(rows.max_index());
        for (y, idx, val) in rows.iter() {
            labels.push(y);
            indices.extend_from_slice(idx);
            values.extend_from_slice(val);
        }
    }
    assert_eq!(chunks, 3);
    assert!(rows.is_empty());
    assert_eq!(labels, whole.y.to_vec());
    assert_eq!(indices, whole.x.indices());
    assert_eq!(values, whole.x.data());
    assert_eq!(max as usize, whole.x.cols());

    std::fs::write(&path, "1 1:2\n0.5 2:1 2:3\n").unwrap();
    let mut reader = RowReader::open(&path).unwrap();
    let e = reader.next_chunk(&mut rows, 10).unwrap_err().to_string();
    assert!(
        e.ends_with("a.svm:2: index 2 after 2, indices must be strictly ascending"),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn reads_the_golden_example_like_liblinear() {
    let path = crate::testdata::fixture("liblinear/small.svm");
    let d = read_paths(&[&path]).unwrap();
    assert_eq!(d.x.rows(), 500);
    assert_eq!(d.x.nnz(), 9856);
    // nr_feature of liblinear's model for this file.
    assert_eq!(d.x.cols(), 1000);
    assert_eq!(d.y[0], 0.227393);
}
