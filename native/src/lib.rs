//! `sgpe._native`: the native core of sgpe (`docs/architecture.md`, "The native core").
//!
//! The logic lives in plain Rust modules that `cargo test --no-default-features` tests
//! without Python; this file only converts arguments and results, releases the GIL around
//! the work, and turns every error and panic into a Python exception with a message.

pub mod bytebpe;
pub mod encoder;
#[cfg(feature = "python")]
mod encoder_py;
pub mod hash;
pub mod hierarchical;
pub mod paper;
pub mod pieces;
pub mod syllables;
pub mod units;

#[cfg(feature = "python")]
pub(crate) mod bindings {
    use std::collections::HashMap;
    use std::panic::{catch_unwind, AssertUnwindSafe};

    use pyo3::exceptions::{PyRuntimeError, PyValueError};
    use pyo3::prelude::*;
    use pyo3::types::{PyBytes, PyList, PyString, PyTuple};
    use rayon::prelude::*;

    use crate::bytebpe;
    // Bindings kept in files of their own (src/bindings/), so that adding one does not
    // touch the others.
    mod pieces_py;

    use crate::paper;
    use crate::syllables::{self, Interned, SchemaSpec, Token};

    mod hierarchical_py {
        include!("hierarchical_py.rs");
    }

    /// Runs `work`, turning a panic into a Python RuntimeError: no panic crosses into Python.
    pub(crate) fn guarded<T>(what: &str, work: impl FnOnce() -> T) -> PyResult<T> {
        catch_unwind(AssertUnwindSafe(work)).map_err(|payload| {
            let detail = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "no message".to_string());
            PyRuntimeError::new_err(format!(
                "sgpe._native: internal error in {what} ({detail}); \
                 SGPE_ENGINE=python runs the pure-Python engine"
            ))
        })
    }

    type ClassArg = (char, Vec<(u32, u32)>);
    type EdgesArg = (String, Vec<(char, String)>);
    /// A schema as `sgpe/engine.py` passes it: (classes, units, start, transitions,
    /// accept, orphan_states).
    pub(crate) type SpecArg = (
        Vec<ClassArg>,
        Vec<(char, String)>,
        String,
        Vec<EdgesArg>,
        Vec<String>,
        Vec<String>,
    );

    /// The DFA syllabifier of one (schemas, leading_space) setting.
    #[pyclass(frozen, module = "sgpe._native", name = "Syllabifier")]
    struct PySyllabifier {
        inner: syllables::Syllabifier,
    }

    fn spans_of<'py>(py: Python<'py>, tokens: &[Token]) -> PyResult<Bound<'py, PyList>> {
        let items = tokens
            .iter()
            .map(|t| {
                PyTuple::new(
                    py,
                    [
                        t.char_start.into_pyobject(py)?.into_any(),
                        t.char_end.into_pyobject(py)?.into_any(),
                        PyString::intern(py, t.kind.name()).into_any(),
                    ],
                )
            })
            .collect::<PyResult<Vec<_>>>()?;
        PyList::new(py, items)
    }

    /// The token strings of one text: one Python string per distinct token (see
    /// `Syllabifier::interned`), shared by its occurrences and, in a batch, by all texts.
    fn strings_of<'py, 'a>(
        py: Python<'py>,
        tokens: &Interned<'a>,
        made: &mut HashMap<&'a str, Bound<'py, PyString>, crate::hash::FxBuild>,
    ) -> PyResult<Bound<'py, PyList>> {
        let strings: Vec<Bound<'py, PyString>> = tokens
            .distinct
            .iter()
            .map(|s| {
                made.entry(s)
                    .or_insert_with(|| PyString::new(py, s))
                    .clone()
            })
            .collect();
        PyList::new(
            py,
            tokens.index.iter().map(|&k| strings[k as usize].clone()),
        )
    }

    #[pymethods]
    impl PySyllabifier {
        #[new]
        fn new(schemas: Vec<SpecArg>, leading_space: bool) -> PyResult<Self> {
            let specs = specs_of(schemas);
            let inner = guarded("Syllabifier()", || {
                syllables::Syllabifier::new(&specs, leading_space)
            })?
            .map_err(PyValueError::new_err)?;
            Ok(PySyllabifier { inner })
        }

        /// The tokens of `text` as strings. A lone surrogate raises UnicodeEncodeError
        /// (UTF-8 cannot hold it); `sgpe/engine.py` then uses the Python engine.
        fn syllabify<'py>(
            &self,
            py: Python<'py>,
            text: &Bound<'py, PyString>,
        ) -> PyResult<Bound<'py, PyList>> {
            let s = text.to_str()?;
            let tokens = py.allow_threads(|| guarded("syllabify", || self.inner.interned(s)))?;
            strings_of(py, &tokens, &mut HashMap::default())
        }

        /// The tokens of `text` as (start, end, kind) in code points.
        fn spans<'py>(
            &self,
            py: Python<'py>,
            text: &Bound<'py, PyString>,
        ) -> PyResult<Bound<'py, PyList>> {
            let s = text.to_str()?;
            let tokens = py.allow_threads(|| guarded("spans", || self.inner.tokens(s)))?;
            spans_of(py, &tokens)
        }

        /// The token boundaries of `text` in code points (every token's end): the cheapest
        /// answer, for counting and benchmarks.
        /// The ends travel as `u32` (a text over 4 GiB is refused, as in `offsets`): pyo3
        /// makes those with `PyLong_FromLong`, whose one-digit fast path is cheaper than the
        /// general conversion of a `usize`.
        fn bounds(&self, py: Python<'_>, text: &Bound<'_, PyString>) -> PyResult<Vec<u32>> {
            let s = text.to_str()?;
            if u32::try_from(s.len()).is_err() {
                return Err(PyValueError::new_err("bounds: the text is over 4 GiB"));
            }
            py.allow_threads(|| {
                guarded("bounds", || {
                    let mut out = Vec::with_capacity(s.len() / 4 + 1);
                    self.inner
                        .for_each_token(s, |t| out.push(t.char_end as u32));
                    out
                })
            })
        }

        /// Every token's end as a flat array of little-endian u32 (`array("I", ...)` reads
        /// it), in code points or, with `utf8`, in bytes of the UTF-8 text: no Python object
        /// per token, for callers that need only the boundaries.
        #[pyo3(signature = (text, utf8=false))]
        fn offsets<'py>(
            &self,
            py: Python<'py>,
            text: &Bound<'py, PyString>,
            utf8: bool,
        ) -> PyResult<Bound<'py, PyBytes>> {
            let s = text.to_str()?;
            if u32::try_from(s.len()).is_err() {
                return Err(PyValueError::new_err("offsets: the text is over 4 GiB"));
            }
            let out = py.allow_threads(|| {
                guarded("offsets", || {
                    let mut out = Vec::with_capacity(s.len() + 4);
                    self.inner.for_each_token(s, |t| {
                        let end = if utf8 { t.end } else { t.char_end };
                        out.extend_from_slice(&(end as u32).to_le_bytes());
                    });
                    out
                })
            })?;
            Ok(PyBytes::new(py, &out))
        }

        /// `syllabify` of each text, on all cores (rayon), without the GIL.
        fn syllabify_batch<'py>(
            &self,
            py: Python<'py>,
            texts: Vec<Bound<'py, PyString>>,
        ) -> PyResult<Vec<Bound<'py, PyList>>> {
            let strs = texts
                .iter()
                .map(|t| t.to_str())
                .collect::<PyResult<Vec<&str>>>()?;
            let tokens = py.allow_threads(|| {
                guarded("syllabify_batch", || {
                    strs.par_iter()
                        .map(|s| self.inner.interned(s))
                        .collect::<Vec<_>>()
                })
            })?;
            // One string per distinct token across the whole batch.
            let mut made = HashMap::default();
            tokens
                .iter()
                .map(|t| strings_of(py, t, &mut made))
                .collect()
        }
    }

    pub(crate) fn specs_of(schemas: Vec<SpecArg>) -> Vec<SchemaSpec> {
        schemas
            .into_iter()
            .map(
                |(classes, units, start, transitions, accept, orphan_states)| SchemaSpec {
                    classes,
                    units,
                    start,
                    transitions,
                    accept,
                    orphan_states,
                },
            )
            .collect()
    }

    /// A batch's time budget: None (no limit) or seconds >= 0.
    fn budget_of(seconds: Option<f64>) -> PyResult<Option<std::time::Duration>> {
        seconds
            .map(|s| {
                std::time::Duration::try_from_secs_f64(s)
                    .map_err(|_| PyValueError::new_err(format!("seconds must be >= 0, not {s}")))
            })
            .transpose()
    }

    /// The byte-level BPE baseline's merge loop (`_learn_merges` of
    /// sgpe/baselines/bytebpe.py), stepped in batches by the caller.
    #[pyclass(module = "sgpe._native", name = "ByteBpeTrainer")]
    struct PyByteBpeTrainer {
        inner: bytebpe::ByteBpeTrainer,
    }

    #[pymethods]
    impl PyByteBpeTrainer {
        /// The unique chunks of the pre-tokenized corpus and their counts; each chunk is
        /// counted as its UTF-8 bytes (a lone surrogate raises UnicodeEncodeError, as
        /// Python's encode does).
        #[new]
        fn new(
            py: Python<'_>,
            chunks: Vec<Bound<'_, PyString>>,
            counts: Vec<i64>,
        ) -> PyResult<Self> {
            if chunks.len() != counts.len() {
                return Err(PyValueError::new_err(format!(
                    "{} chunks but {} counts",
                    chunks.len(),
                    counts.len()
                )));
            }
            let strs = chunks
                .iter()
                .map(|c| c.to_str())
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
            let known = BYTE_TOKENS_U32 + self.inner.merges().len() as u32;
            if left >= known || right >= known {
                return Err(PyValueError::new_err(format!(
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
            Ok(match done {
                Ok(count) => (true, count),
                Err(bytebpe::ReplayMismatch { count }) => (false, count),
            })
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

    const BYTE_TOKENS_U32: u32 = bytebpe::BYTE_TOKENS;
    type ByteBatch = (Vec<(u32, u32, i64)>, bool);

    fn paper_error(err: paper::PaperError) -> PyErr {
        match err {
            paper::PaperError::Limit => PyValueError::new_err(format!(
                "vocab_size above {} is not supported",
                group_thousands(paper::SYMBOL_LIMIT)
            )),
            paper::PaperError::BadSymbol(id) => PyValueError::new_err(format!(
                "a segment names symbol {id}, which the table lacks"
            )),
            paper::PaperError::Mismatch { count } => {
                PyValueError::new_err(format!("a checkpoint merge occurs {count} times"))
            }
        }
    }

    /// `n` as Python's `f"{n:,}"` writes it.
    fn group_thousands(n: usize) -> String {
        let digits = n.to_string();
        let mut out = String::new();
        for (i, ch) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i).is_multiple_of(3) {
                out.push(',');
            }
            out.push(ch);
        }
        out
    }

    type LearnedBatch = (Vec<(u32, u32, i64, u32)>, bool, Option<PyErr>);

    /// The paper mode's merge loop (`_MergeEngine` of sgpe/gpe.py), stepped in batches.
    #[pyclass(module = "sgpe._native", name = "PaperTrainer")]
    struct PyPaperTrainer {
        inner: paper::PaperTrainer,
    }

    #[pymethods]
    impl PyPaperTrainer {
        /// The symbol table, the segments as one UTF-32-LE string of symbol ids (their
        /// `chr` codes; surrogate codes pass) cut by `lengths`, and their counts.
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
                return Err(PyValueError::new_err(format!(
                    "{} bytes of segments, {} lengths summing to {total} and {} counts do not fit",
                    words.len(),
                    lengths.len(),
                    counts.len()
                )));
            }
            let inner = py
                .allow_threads(|| {
                    guarded("PaperTrainer()", || {
                        let mut ids = words
                            .chunks_exact(4)
                            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
                        let segments = lengths
                            .iter()
                            .map(|&n| ids.by_ref().take(n).collect())
                            .collect();
                        paper::PaperTrainer::new(symbols, segments, counts)
                    })
                })?
                .map_err(paper_error)?;
            Ok(PyPaperTrainer { inner })
        }

        /// The number of symbols so far.
        #[getter]
        fn symbol_count(&self) -> usize {
            self.inner.symbol_count()
        }

        /// The current count of a pair.
        fn count(&self, left: u32, right: u32) -> i64 {
            self.inner.count(left, right)
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
            let known = self.inner.symbol_count() as u32;
            if left >= known || right >= known {
                return Err(PyValueError::new_err(format!(
                    "merge ({left}, {right}) names a symbol that does not exist (ids 0..{})",
                    known.saturating_sub(1)
                )));
            }
            let inner = &mut self.inner;
            match py.allow_threads(|| {
                guarded("PaperTrainer.replay", || {
                    inner.replay(left, right, min_freq)
                })
            })? {
                Ok(m) => Ok((true, m.count, m.merged)),
                Err(paper::PaperError::Mismatch { count }) => Ok((false, count, 0)),
                Err(err) => Err(paper_error(err)),
            }
        }

        /// The heap from the current counts (after a replay).
        fn rebuild_heap(&mut self, py: Python<'_>) -> PyResult<()> {
            let inner = &mut self.inner;
            py.allow_threads(|| guarded("PaperTrainer.rebuild_heap", || inner.rebuild_heap()))
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
                guarded("PaperTrainer.learn", || {
                    inner.learn(target_symbols, min_freq, max_merges, budget)
                })
            })?;
            let made = made
                .into_iter()
                .map(|m| (m.left, m.right, m.count, m.merged))
                .collect();
            Ok(match stop {
                paper::Stop::Paused => (made, false, None),
                paper::Stop::Finished => (made, true, None),
                paper::Stop::Failed(err) => (made, true, Some(paper_error(err))),
            })
        }

        /// How often each symbol occurs in the segments now.
        fn usage(&self, py: Python<'_>) -> PyResult<Vec<i64>> {
            let inner = &self.inner;
            py.allow_threads(|| guarded("PaperTrainer.usage", || inner.usage()))
        }
    }

    #[pymodule]
    fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
        m.add("__version__", env!("CARGO_PKG_VERSION"))?;
        m.add_class::<PySyllabifier>()?;
        m.add_class::<PyByteBpeTrainer>()?;
        m.add_class::<PyPaperTrainer>()?;
        m.add_class::<hierarchical_py::PyHierarchicalTrainer>()?;
        m.add_function(wrap_pyfunction!(hierarchical_py::merge_kinds, m)?)?;
        m.add_class::<pieces_py::PyPieceCounter>()?;
        m.add_function(wrap_pyfunction!(pieces_py::corpus_units, m)?)?;
        m.add_class::<crate::encoder_py::PyTextEncoder>()?;
        Ok(())
    }
}
