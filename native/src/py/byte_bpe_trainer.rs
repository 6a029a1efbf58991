//! `sgpe._native.ByteBpeTrainer`: the byte-level BPE baseline's merge loop
//! ([`crate::bytebpe`]), which `sgpe/baselines/bytebpe.py` steps in batches.

use pyo3::prelude::*;
use pyo3::types::PyString;

use super::args::budget_of;
use super::error::{guarded, invalid};
use crate::bytebpe::{self, BYTE_TOKENS};
use crate::error::Error;

/// A batch of merges, (left, right, count) each, and whether the loop is finished.
type ByteBatch = (Vec<(u32, u32, i64)>, bool);

/// The byte-level BPE baseline's merge loop (`_learn_merges` of
/// sgpe/baselines/bytebpe.py), stepped in batches by the caller.
#[pyclass(module = "sgpe._native", name = "ByteBpeTrainer")]
pub(crate) struct PyByteBpeTrainer {
    inner: bytebpe::ByteBpeTrainer,
}

#[pymethods]
impl PyByteBpeTrainer {
    /// The unique chunks of the pre-tokenized corpus and their counts; each chunk is
    /// counted as its UTF-8 bytes (a lone surrogate raises UnicodeEncodeError, as
    /// Python's encode does).
    #[new]
    fn new(py: Python<'_>, chunks: Vec<Bound<'_, PyString>>, counts: Vec<i64>) -> PyResult<Self> {
        if chunks.len() != counts.len() {
            return Err(invalid(format!(
                "{} chunks but {} counts",
                chunks.len(),
                counts.len()
            )));
        }
        let strs = chunks
            .iter()
            .map(PyStringMethods::to_str)
            .collect::<PyResult<Vec<&str>>>()?;
        let inner = py.allow_threads(|| {
            guarded("ByteBpeTrainer()", || {
                bytebpe::ByteBpeTrainer::new(
                    strs.iter().zip(&counts).map(|(s, &c)| (s.as_bytes(), c)),
                )
            })
        })?;
        Ok(PyByteBpeTrainer { inner })
    }

    /// The number of unique non-empty chunks.
    #[getter]
    fn unique_words(&self) -> usize {
        self.inner.unique_words()
    }

    /// Replay a checkpoint's next merge: (True, count) when it occurs at least
    /// max(min_freq, 1) times (it is applied), else (False, count).
    fn replay(
        &mut self,
        py: Python<'_>,
        left: u32,
        right: u32,
        min_freq: i64,
    ) -> PyResult<(bool, i64)> {
        // Past u32, no id could be named anyway: saturate rather than wrap.
        let known = u32::try_from(self.inner.merges().len())
            .map_or(u32::MAX, |n| BYTE_TOKENS.saturating_add(n));
        if left >= known || right >= known {
            return Err(invalid(format!(
                "merge ({left}, {right}) names a token that does not exist yet (ids 0..{})",
                known - 1
            )));
        }
        let inner = &mut self.inner;
        let done = py.allow_threads(|| {
            guarded("ByteBpeTrainer.replay", || {
                inner.replay(left, right, min_freq)
            })
        })?;
        match done {
            Ok(count) => Ok((true, count)),
            Err(Error::Mismatch { count }) => Ok((false, count)),
            Err(err) => Err(err.into()),
        }
    }

    /// Learn up to `max_merges` merges, stopping after `seconds` (None: no limit):
    /// ([(left, right, count), ...], finished).
    #[pyo3(signature = (max_merges, min_freq, seconds=None))]
    fn learn(
        &mut self,
        py: Python<'_>,
        max_merges: usize,
        min_freq: i64,
        seconds: Option<f64>,
    ) -> PyResult<ByteBatch> {
        let budget = budget_of(seconds)?;
        let inner = &mut self.inner;
        let (made, finished) = py.allow_threads(|| {
            guarded("ByteBpeTrainer.learn", || {
                inner.learn(max_merges, min_freq, budget)
            })
        })?;
        Ok((
            made.into_iter()
                .map(|m| (m.left, m.right, m.count))
                .collect(),
            finished,
        ))
    }
}
