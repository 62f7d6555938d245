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
}
