//! libsvm text files: `label idx:val idx:val ...`, indices 1-based and strictly ascending.
//!
//! The writer is shared by `extract` (training rows) and anything else that
//! emits rows; the reader (shared by `fit` and `predict`) lives beside it,
//! with [`RowReader`], which streams a file a chunk of rows at a time into a
//! reusable [`RowBuffer`] (the streaming learner's input). [`dataset`] is the
//! folder layout `extract` writes (`rows/`, `dataset.toml`).

pub mod compact;
pub mod dataset;
mod reader;
mod writer;

pub use compact::{ColumnMap, CompactCsr, CompactData, UsedColumns, Value, Values};
pub use reader::{
    expand_paths, read_bytes, read_bytes_compact, read_paths, read_paths_compact,
    read_paths_with_groups, Groups, LibsvmData, ReadError, RowBuffer, RowReader, BLOCK_BYTES,
};
pub use writer::{write_row, write_row_qid};
