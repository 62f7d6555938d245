//! Rows in compact CSR form: `u32` column indices and values stored as `u8`
//! when every value of the data set is an integer from 0 to 255 (the relation
//! features' attack codes, counts), else as `f32`: a nonzero costs 5 bytes
//! (8 with `f32` values), against liblinear's 16 (`feature_node`: an `int` and
//! a `double`).
//!
//! The reader ([`super::read_paths_compact`]) parses text straight into this
//! form; a `u8` value is the exact `f32` it replaces (integers up to 255 are
//! exact in both), so a solver reading either form computes the same numbers.

use ndarray::Array1;
use sprs::CsMatI;

/// A stored value type: `u8` or `f32`, read by the solvers as `f64`.
pub trait Value: Copy + Send + Sync + 'static {
    /// The value as `f64` (exact for both types).
    fn to_f64(self) -> f64;
}

impl Value for u8 {
    #[inline(always)]
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
}

impl Value for f32 {
    #[inline(always)]
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
}

/// One parsed value: `U8` when its text is an integer 0..=255 (not `-0`), else `F32`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Parsed {
    U8(u8),
    F32(f32),
}

impl Parsed {
    /// The value of a finite `f32`, narrowed to `u8` when that is exact.
    pub(super) fn of(v: f32) -> Parsed {
        if v.is_sign_positive() && v <= 255.0 && v.fract() == 0.0 {
            Parsed::U8(v as u8)
        } else {
            Parsed::F32(v)
        }
    }
}

/// The values of a [`CompactCsr`], one per nonzero.
#[derive(Debug, Clone, PartialEq)]
pub enum Values {
    /// Every value is an integer 0..=255.
    U8(Vec<u8>),
    /// Any other values.
    F32(Vec<f32>),
}

impl Default for Values {
    fn default() -> Self {
        Values::U8(Vec::new())
    }
}

impl Values {
    /// Number of values.
    pub fn len(&self) -> usize {
        match self {
            Values::U8(v) => v.len(),
            Values::F32(v) => v.len(),
        }
    }

    /// True when there is no value.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes per stored value (1 or 4).
    pub fn width(&self) -> usize {
        match self {
            Values::U8(_) => 1,
            Values::F32(_) => 4,
        }
    }

    /// The values as `f32`, whatever the storage.
    pub fn to_f32_vec(&self) -> Vec<f32> {
        match self {
            Values::U8(v) => v.iter().map(|&b| f32::from(b)).collect(),
            Values::F32(v) => v.clone(),
        }
    }

    /// Switches `u8` storage to `f32` (once, when a value does not fit).
    pub(super) fn widen(&mut self) {
        if let Values::U8(v) = self {
            let mut wide = Vec::with_capacity(v.capacity().max(v.len()));
            wide.extend(v.iter().map(|&b| f32::from(b)));
            *self = Values::F32(wide);
        }
    }

    pub(super) fn with_capacity(n: usize) -> Values {
        Values::U8(Vec::with_capacity(n))
    }

    #[inline]
    pub(super) fn push(&mut self, v: Parsed) {
        match (&mut *self, v) {
            (Values::U8(s), Parsed::U8(b)) => s.push(b),
            (Values::F32(s), Parsed::U8(b)) => s.push(f32::from(b)),
            (Values::F32(s), Parsed::F32(f)) => s.push(f),
            (Values::U8(_), Parsed::F32(f)) => {
                self.widen();
                if let Values::F32(s) = self {
                    s.push(f);
                }
            }
        }
    }

    /// Appends `other`, widening either side as needed.
    pub(super) fn extend(&mut self, other: &Values) {
        if let (Values::U8(_), Values::F32(_)) = (&*self, other) {
            self.widen();
        }
        match (self, other) {
            (Values::U8(s), Values::U8(o)) => s.extend_from_slice(o),
            (Values::F32(s), Values::U8(o)) => s.extend(o.iter().map(|&b| f32::from(b))),
            (Values::F32(s), Values::F32(o)) => s.extend_from_slice(o),
            (Values::U8(_), Values::F32(_)) => unreachable!("widened above"),
        }
    }
}

/// A rows × columns sparse matrix in CSR form with `u32` offsets and column
/// indices and [`Values`]; column `j` holds feature index `j + 1`.
#[derive(Debug, Clone, PartialEq)]
pub struct CompactCsr {
    cols: usize,
    indptr: Vec<u32>,
    indices: Vec<u32>,
    values: Values,
}

impl CompactCsr {
    /// Builds a matrix from its parts; `None` unless `indptr` starts at 0,
    /// never decreases and ends at the number of indices, indices and values
    /// have the same length, and every row's indices ascend strictly below `cols`.
    pub fn new(cols: usize, indptr: Vec<u32>, indices: Vec<u32>, values: Values) -> Option<Self> {
        let ok = indptr.first() == Some(&0)
            && indptr.last().map(|&e| e as usize) == Some(indices.len())
            && indices.len() == values.len()
            && indptr.windows(2).all(|w| {
                w[0] <= w[1] && {
                    let row = &indices[w[0] as usize..w[1] as usize];
                    row.windows(2).all(|p| p[0] < p[1]) && row.iter().all(|&j| (j as usize) < cols)
                }
            });
        ok.then_some(CompactCsr {
            cols,
            indptr,
            indices,
            values,
        })
    }

    /// Parts checked by the reader (ascending indices below `cols`).
    pub(super) fn from_checked(
        cols: usize,
        indptr: Vec<u32>,
        indices: Vec<u32>,
        values: Values,
    ) -> Self {
        debug_assert!(indptr.last().map(|&e| e as usize) == Some(indices.len()));
        CompactCsr {
            cols,
            indptr,
            indices,
            values,
        }
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.indptr.len() - 1
    }

    /// Number of columns (the largest 1-based index seen).
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// Number of stored nonzeros.
    pub fn nnz(&self) -> usize {
        self.indices.len()
    }

    /// Row offsets (`rows + 1` of them).
    pub fn indptr(&self) -> &[u32] {
        &self.indptr
    }

    /// Column indices of every nonzero, row after row.
    pub fn indices(&self) -> &[u32] {
        &self.indices
    }

    /// The values.
    pub fn values(&self) -> &Values {
        &self.values
    }

    /// Row `i` as (columns, values as `f64`).
    pub fn row_f64(&self, i: usize) -> (&[u32], Vec<f64>) {
        let (a, b) = (self.indptr[i] as usize, self.indptr[i + 1] as usize);
        let vals = match &self.values {
            Values::U8(v) => v[a..b].iter().map(|&x| f64::from(x)).collect(),
            Values::F32(v) => v[a..b].iter().map(|&x| f64::from(x)).collect(),
        };
        (&self.indices[a..b], vals)
    }

    /// Renumbers the columns to the used ones, in place, when at most half
    /// the columns occur (see [`UsedColumns`]); returns the map back to the
    /// original columns, `None` (and the matrix unchanged) otherwise.
    ///
    /// A column no row uses has weight 0 at the optimum of a fit, so solving
    /// on the used columns and widening the weights with
    /// [`ColumnMap::widen`] gives the same model. In place, the fit's
    /// peak memory holds one copy of the indices: `train`'s own renumbering
    /// of borrowed rows needs a second (87 MB on 495,884 extracted rows).
    pub fn drop_unused_columns(&mut self) -> Option<ColumnMap> {
        let used = UsedColumns::of(&self.indices, self.cols)?;
        for j in &mut self.indices {
            *j = used.rank(*j);
        }
        let map = ColumnMap::from_columns(used.columns(), self.cols);
        self.cols = map.columns.len();
        Some(map)
    }

    /// The same matrix with `f32` values, as sprs holds it (the row layout of
    /// [`super::LibsvmData::x`]).
    pub fn into_csmat(self) -> CsMatI<f32, u32> {
        let rows = self.rows();
        let data = match self.values {
            Values::F32(v) => v,
            Values::U8(v) => {
                let wide = v.iter().map(|&b| f32::from(b)).collect();
                drop(v);
                wide
            }
        };
        CsMatI::new((rows, self.cols), self.indptr, self.indices, data)
    }
}

impl From<CsMatI<f32, u32>> for CompactCsr {
    /// Keeps `f32` values (no narrowing): the matrix as sprs held it.
    fn from(x: CsMatI<f32, u32>) -> Self {
        let x = if x.is_csr() { x } else { x.to_csr() };
        let cols = x.cols();
        let (indptr, indices, data) = x.into_raw_storage();
        CompactCsr {
            cols,
            indptr,
            indices,
            values: Values::F32(data),
        }
    }
}

/// A libsvm data set in compact form: rows and labels.
#[derive(Debug, Clone)]
pub struct CompactData {
    /// Rows × columns (liblinear's `nr_feature` columns).
    pub x: CompactCsr,
    /// One label per row.
    pub y: Array1<f64>,
}

/// The columns that occur in a matrix's indices, counted in a bitset with
/// per-word ranks (1/8 + 1/16 byte a column, not a `u32` table a column).
pub struct UsedColumns {
    bits: Vec<u64>,
    before: Vec<u32>,
    used: usize,
}

impl UsedColumns {
    /// The used columns of `indices` (all below `cols`), when at most half
    /// of the `cols` columns are used; `None` otherwise, where a renumbered
    /// copy would cost more than it saves.
    pub fn of(indices: &[u32], cols: usize) -> Option<Self> {
        let mut bits = vec![0u64; cols.div_ceil(64)];
        for &j in indices {
            bits[j as usize / 64] |= 1 << (j % 64);
        }
        let mut before = Vec::with_capacity(bits.len());
        let mut used = 0u32;
        for &b in &bits {
            before.push(used);
            used += b.count_ones();
        }
        (used as usize * 2 <= cols).then_some(UsedColumns {
            bits,
            before,
            used: used as usize,
        })
    }

    /// The new number of used column `j`: the count of used columns below it.
    #[inline]
    pub fn rank(&self, j: u32) -> u32 {
        let (k, r) = (j as usize / 64, j % 64);
        self.before[k] + (self.bits[k] & ((1u64 << r) - 1)).count_ones()
    }

    /// The used columns, ascending: entry `k` is the column numbered `k`.
    pub fn columns(&self) -> Vec<u32> {
        let mut map = Vec::with_capacity(self.used);
        for (k, &b) in self.bits.iter().enumerate() {
            let mut b = b;
            while b != 0 {
                map.push(k as u32 * 64 + b.trailing_zeros());
                b &= b - 1;
            }
        }
        map
    }
}

/// Where the renumbered columns of [`CompactCsr::drop_unused_columns`] came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnMap {
    columns: Vec<u32>,
    cols: usize,
}

impl ColumnMap {
    /// The map of renumbered column `k` to `columns[k]`, of `cols` columns in all.
    pub fn from_columns(columns: Vec<u32>, cols: usize) -> Self {
        ColumnMap { columns, cols }
    }

    /// Weights over the renumbered columns, widened to the original columns
    /// (0 on the unused ones).
    pub fn widen(&self, w: &[f64]) -> Vec<f64> {
        let mut full = vec![0.0; self.cols];
        for (&j, &x) in self.columns.iter().zip(w) {
            full[j as usize] = x;
        }
        full
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn narrows_only_exact_small_integers() {
        assert_eq!(Parsed::of(0.0), Parsed::U8(0));
        assert_eq!(Parsed::of(255.0), Parsed::U8(255));
        assert_eq!(Parsed::of(256.0), Parsed::F32(256.0));
        assert_eq!(Parsed::of(2.5), Parsed::F32(2.5));
        assert_eq!(Parsed::of(-1.0), Parsed::F32(-1.0));
        assert!(matches!(Parsed::of(-0.0), Parsed::F32(v) if v.is_sign_negative()));
    }

    #[test]
    fn values_widen_once_and_keep_order() {
        let mut v = Values::default();
        v.push(Parsed::U8(3));
        v.push(Parsed::F32(0.5));
        v.push(Parsed::U8(7));
        assert_eq!(v, Values::F32(vec![3.0, 0.5, 7.0]));
        let mut a = Values::U8(vec![1, 2]);
        a.extend(&Values::F32(vec![0.25]));
        a.extend(&Values::U8(vec![9]));
        assert_eq!(a, Values::F32(vec![1.0, 2.0, 0.25, 9.0]));
    }

    #[test]
    fn checks_its_parts() {
        let ok = CompactCsr::new(
            3,
            vec![0, 2, 2, 3],
            vec![0, 2, 1],
            Values::U8(vec![1, 2, 3]),
        );
        let m = ok.unwrap();
        assert_eq!((m.rows(), m.cols(), m.nnz()), (3, 3, 3));
        assert_eq!(m.row_f64(0), (&[0u32, 2][..], vec![1.0, 2.0]));
        let csr = m.clone().into_csmat();
        assert_eq!(csr.data(), &[1.0, 2.0, 3.0]);
        assert_eq!(
            CompactCsr::from(csr).values(),
            &Values::F32(vec![1.0, 2.0, 3.0])
        );
        assert!(CompactCsr::new(3, vec![0, 2], vec![2, 0], Values::U8(vec![1, 1])).is_none());
        assert!(CompactCsr::new(2, vec![0, 1], vec![2], Values::U8(vec![1])).is_none());
        assert!(CompactCsr::new(3, vec![0, 2], vec![0, 1], Values::U8(vec![1])).is_none());
    }

    #[test]
    fn unused_columns_are_dropped_in_place_and_widened_back() {
        // Columns 1, 5 and 9 of 12 are used (rows keep their order).
        let mut m = CompactCsr::new(
            12,
            vec![0, 2, 3, 5],
            vec![1, 9, 5, 1, 5],
            Values::U8(vec![1, 2, 3, 4, 5]),
        )
        .unwrap();
        let map = m.drop_unused_columns().unwrap();
        assert_eq!((m.cols(), m.indices()), (3, &[0, 2, 1, 0, 1][..]));
        assert_eq!(m.values(), &Values::U8(vec![1, 2, 3, 4, 5]));
        assert_eq!(
            map.widen(&[0.5, -1.0, 2.0]),
            vec![0.0, 0.5, 0.0, 0.0, 0.0, -1.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0]
        );
        // More than half the columns used: nothing to gain, nothing changed.
        let mut dense =
            CompactCsr::new(4, vec![0, 3], vec![0, 1, 3], Values::U8(vec![1, 1, 1])).unwrap();
        let before = dense.clone();
        assert!(dense.drop_unused_columns().is_none());
        assert_eq!(dense, before);
        // Ranks across 64-bit words.
        let used = UsedColumns::of(&[3, 64, 130, 700], 1000).unwrap();
        assert_eq!([3, 64, 130, 700].map(|j| used.rank(j)), [0, 1, 2, 3]);
        assert_eq!(used.columns(), vec![3, 64, 130, 700]);
    }
}
