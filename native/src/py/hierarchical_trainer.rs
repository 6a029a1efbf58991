//! `sgpe._native.HierarchicalTrainer`: the hierarchical mode's merge loop
//! ([`crate::hierarchical`]), which `sgpe/hierarchical/` (`NativeHierarchicalEngine`)
//! drives in batches.

use std::collections::HashMap;

use pyo3::prelude::*;
use pyo3::types::PyBytes;

use super::args::{cut, specs_of, SpecArg};
use super::error::guarded;
use crate::hierarchical::{Engine, Spans, State, Stop};
use crate::syllables;

/// The merge loop of one training run (`HierarchicalEngine`), driven from
/// `sgpe/hierarchical/` (`NativeHierarchicalEngine`).
#[pyclass(module = "sgpe._native", name = "HierarchicalTrainer")]
pub(crate) struct PyHierarchicalTrainer {
    inner: Engine,
}

#[pymethods]
impl PyHierarchicalTrainer {
    #[new]
    #[pyo3(signature = (
        schemas, leading_space, symbols, unit_parts, unit_lengths, unit_weight,
        unit_joinable, words, word_lengths, counts, translation, span_words, span_counts,
        span_from
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        schemas: Vec<SpecArg>,
        leading_space: bool,
        symbols: Vec<String>,
        unit_parts: &Bound<'_, PyBytes>,
        unit_lengths: Vec<usize>,
        unit_weight: Vec<i64>,
        unit_joinable: Vec<bool>,
        words: &Bound<'_, PyBytes>,
        word_lengths: Vec<usize>,
        counts: Vec<i64>,
        translation: HashMap<u32, u32>,
        span_words: Vec<Vec<u32>>,
        span_counts: Vec<i64>,
        span_from: usize,
    ) -> PyResult<Self> {
        let specs = specs_of(schemas);
        let syll = guarded("HierarchicalTrainer()", || {
            syllables::Syllabifier::new(&specs, leading_space)
        })??;
        let unit_parts = cut(unit_parts.as_bytes(), &unit_lengths, "unit_parts")?;
        let mut words = cut(words.as_bytes(), &word_lengths, "words")?;
        let spans = Spans {
            words: span_words,
            counts: span_counts,
            from_symbols: span_from,
        };
        let inner = py.allow_threads(|| {
            guarded("HierarchicalTrainer()", || {
                for w in &mut words {
                    for v in w.iter_mut() {
                        if let Some(&s) = translation.get(v) {
                            *v = s;
                        }
                    }
                }
                let state = State {
                    symbols,
                    unit_parts,
                    unit_weight,
                    unit_joinable,
                    words,
                    counts,
                };
                Engine::new(syll, state, Some(spans))
            })
        })??;
        Ok(PyHierarchicalTrainer { inner })
    }

    /// Replay a checkpoint's merges, (left, right, kind code) each. None, or the first
    /// that does not fit: (its index, its count in this corpus).
    fn resume(
        &mut self,
        py: Python<'_>,
        merges: Vec<(String, String, u8)>,
        min_freq: i64,
    ) -> PyResult<Option<(usize, i64)>> {
        let inner = &mut self.inner;
        let found =
            py.allow_threads(|| guarded("resume", || inner.resume(&merges, min_freq)))??;
        Ok(found.map(|m| (m.index, m.count)))
    }

    /// Merge until done (True) or until a batch ends (False): `max_merges` merges,
    /// `max_seconds` seconds, or a step that is a multiple of `checkpoint_every` (not 0).
    fn run(
        &mut self,
        py: Python<'_>,
        target_symbols: usize,
        min_freq: i64,
        max_merges: usize,
        max_seconds: f64,
        checkpoint_every: usize,
    ) -> PyResult<bool> {
        let inner = &mut self.inner;
        let stop = py.allow_threads(|| {
            guarded("run", || {
                inner.run(
                    target_symbols,
                    min_freq,
                    max_merges,
                    max_seconds,
                    checkpoint_every,
                )
            })
        })?;
        Ok(stop? == Stop::Done)
    }

    /// How many symbols the vocabulary holds now.
    fn symbol_count(&self) -> usize {
        self.inner.symbol_count()
    }

    /// The symbols from index `start` on.
    fn symbols_from(&self, start: usize) -> Vec<String> {
        self.inner.symbols.get(start..).unwrap_or_default().to_vec()
    }

    /// The merges from index `start` on, as (left id, right id, kind code, count, seconds
    /// since the loop started).
    fn merges_from(&self, start: usize) -> Vec<(u32, u32, u8, i64, f64)> {
        let e = &self.inner;
        let n = e.merges.len();
        (start.min(n)..n)
            .map(|i| {
                let (a, b, k) = e.merges[i];
                (a, b, k, e.merge_counts[i], e.elapsed[i])
            })
            .collect()
    }

    /// How often each symbol is used in the final segmentation of the corpus.
    fn usage(&self, py: Python<'_>) -> PyResult<Vec<i64>> {
        let inner = &self.inner;
        py.allow_threads(|| guarded("usage", || inner.usage()))
    }
}
