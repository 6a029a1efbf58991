//! `sgpe._native.BpeTrainer`: the plain BPE merge loop ([`crate::bpe`]) of the paper mode
//! (`sgpe/gpe.py`, `_PaperLoop`) and of the byte-level baseline
//! (`sgpe/baselines/bytebpe.py`), which step it in batches.

use pyo3::prelude::*;
use pyo3::types::PyString;

use super::args::{budget_of, cut};
use super::error::{guarded, invalid};
use crate::bpe::{self, Stop};
use crate::error::Error;

/// A batch of merges, (left, right, count, merged id) each, whether the loop is finished,
/// and the `ValueError` of the merge after them (or None).
type LearnedBatch = (Vec<(u32, u32, i64, u32)>, bool, Option<PyErr>);

/// The plain BPE merge loop, stepped in batches.
#[pyclass(module = "sgpe._native", name = "BpeTrainer")]
pub(crate) struct PyBpeTrainer {
    inner: bpe::BpeTrainer,
}

#[pymethods]
impl PyBpeTrainer {
    /// The paper mode's loop: the symbol table, the segments as one UTF-32-LE string of
    /// symbol ids (their `chr` codes; surrogate codes pass) cut by `lengths`, and their
    /// counts.
    #[new]
    fn new(
        py: Python<'_>,
        symbols: Vec<String>,
        words: &[u8],
        lengths: Vec<usize>,
        counts: Vec<i64>,
    ) -> PyResult<Self> {
        let total: usize = lengths.iter().sum();
        if words.len() != 4 * total || lengths.len() != counts.len() {
            return Err(invalid(format!(
                "{} bytes of segments, {} lengths summing to {total} and {} counts do not fit",
                words.len(),
                lengths.len(),
                counts.len()
            )));
        }
        let inner = py.allow_threads(|| {
            guarded("BpeTrainer()", || {
                let segments = cut(words, &lengths, "words")?;
                Ok::<_, PyErr>(bpe::BpeTrainer::strings(symbols, segments, counts)?)
            })
        })??;
        Ok(PyBpeTrainer { inner })
    }

    /// The byte-level baseline's loop: the unique chunks of the pre-tokenized corpus and
    /// their counts; each chunk is counted as its UTF-8 bytes (a lone surrogate raises
    /// UnicodeEncodeError, as Python's encode does).
    #[staticmethod]
    fn of_chunks(
        py: Python<'_>,
        chunks: Vec<Bound<'_, PyString>>,
        counts: Vec<i64>,
    ) -> PyResult<Self> {
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
            guarded("BpeTrainer.of_chunks", || {
                bpe::BpeTrainer::bytes(strs.iter().zip(&counts).map(|(s, &c)| (s.as_bytes(), c)))
            })
        })?;
        Ok(PyBpeTrainer { inner })
    }

    /// The number of symbols so far.
    #[getter]
    fn symbol_count(&self) -> usize {
        self.inner.symbol_count()
    }

    /// The number of words (the byte-level baseline's unique non-empty chunks).
    #[getter]
    fn unique_words(&self) -> usize {
        self.inner.word_count()
    }

    /// Replay a checkpoint's next merge: (True, count, merged id) when it occurs at
    /// least `min_freq` times (it is applied), else (False, count, 0).
    fn replay(
        &mut self,
        py: Python<'_>,
        left: u32,
        right: u32,
        min_freq: i64,
    ) -> PyResult<(bool, i64, u32)> {
        // Symbol ids stay below bpe::SYMBOL_LIMIT, so the count fits in u32.
        let known = u32::try_from(self.inner.symbol_count()).unwrap_or(u32::MAX);
        if left >= known || right >= known {
            return Err(invalid(format!(
                "merge ({left}, {right}) names a symbol that does not exist (ids 0..{})",
                known.saturating_sub(1)
            )));
        }
        let inner = &mut self.inner;
        match py.allow_threads(|| {
            guarded("BpeTrainer.replay", || inner.replay(left, right, min_freq))
        })? {
            Ok(m) => Ok((true, m.count, m.merged)),
            Err(Error::Mismatch { count }) => Ok((false, count, 0)),
            Err(err) => Err(err.into()),
        }
    }

    /// The heap from the current counts (after a replay).
    fn rebuild_heap(&mut self, py: Python<'_>) -> PyResult<()> {
        let inner = &mut self.inner;
        py.allow_threads(|| guarded("BpeTrainer.rebuild_heap", || inner.rebuild_heap()))
    }

    /// Learn merges while there are fewer than `target_symbols` symbols, up to
    /// `max_merges`, stopping after `seconds` (None: no limit):
    /// ([(left, right, count, merged id), ...], finished, error). `error` is the
    /// ValueError of the merge after the returned ones, or None.
    #[pyo3(signature = (target_symbols, min_freq, max_merges, seconds=None))]
    fn learn(
        &mut self,
        py: Python<'_>,
        target_symbols: usize,
        min_freq: i64,
        max_merges: usize,
        seconds: Option<f64>,
    ) -> PyResult<LearnedBatch> {
        let budget = budget_of(seconds)?;
        let inner = &mut self.inner;
        let (made, stop) = py.allow_threads(|| {
            guarded("BpeTrainer.learn", || {
                inner.learn(target_symbols, min_freq, max_merges, budget)
            })
        })?;
        let made = made
            .into_iter()
            .map(|m| (m.left, m.right, m.count, m.merged))
            .collect();
        Ok(match stop {
            Stop::Paused => (made, false, None),
            Stop::Finished => (made, true, None),
            Stop::Failed(err) => (made, true, Some(err.into())),
        })
    }

    /// How often each symbol occurs in the words now.
    fn usage(&self, py: Python<'_>) -> PyResult<Vec<i64>> {
        let inner = &self.inner;
        py.allow_threads(|| guarded("BpeTrainer.usage", || inner.usage()))
    }
}
