//! Bindings of `crate::pieces` (included by `lib.rs`'s `bindings` module, whose `guarded`
//! it uses): the piece splitter and counter of `sgpe/corpus/counting.py`.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::thread::JoinHandle;

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

use super::guarded;
use crate::pieces::{self, Splitter};

type Ranges = Vec<(u32, u32)>;

/// The pieces of a corpus counted in order (`sgpe.corpus.counting.count_pieces`). A block
/// is counted on a thread of its own while Python reads the next one (reading, hashing and
/// cutting blocks stay in Python: `sgpe/corpus/readers.py`); every other call waits for it.
#[pyclass(module = "sgpe._native", name = "PieceCounter")]
pub(super) struct PyPieceCounter {
    /// None while a block is being counted (the thread holds the counter).
    idle: Option<pieces::Counter>,
    busy: Option<JoinHandle<std::thread::Result<pieces::Counter>>>,
    splitter: Splitter,
}

impl PyPieceCounter {
    /// The counter, once the block in flight (if any) is counted.
    fn wait(&mut self, py: Python<'_>) -> PyResult<&mut pieces::Counter> {
        if let Some(handle) = self.busy.take() {
            let done = py.allow_threads(|| handle.join());
            match done {
                Ok(Ok(counter)) => self.idle = Some(counter),
                Ok(Err(payload)) | Err(payload) => {
                    let detail = payload
                        .downcast_ref::<&str>()
                        .map(|s| s.to_string())
                        .or_else(|| payload.downcast_ref::<String>().cloned())
                        .unwrap_or_else(|| "no message".to_string());
                    return Err(PyRuntimeError::new_err(format!(
                        "sgpe._native: internal error in PieceCounter ({detail}); \
                         SGPE_ENGINE=python runs the pure-Python engine"
                    )));
                }
            }
        }
        self.idle.as_mut().ok_or_else(|| {
            PyRuntimeError::new_err("sgpe._native: PieceCounter lost its counts to an error")
        })
    }

    /// Count `text` on a thread of its own: a file segment (`Some(line_start)`) or text
    /// joined from documents (`None`).
    fn start(&mut self, py: Python<'_>, text: String, segment: Option<bool>) -> PyResult<()> {
        self.wait(py)?;
        let mut counter = self.idle.take().ok_or_else(|| {
            PyRuntimeError::new_err("sgpe._native: PieceCounter lost its counts to an error")
        })?;
        self.busy = Some(std::thread::spawn(move || {
            catch_unwind(AssertUnwindSafe(move || {
                match segment {
                    Some(line_start) => counter.feed_file_segment(&text, line_start),
                    None => counter.feed_text(&text),
                }
                counter
            }))
        }));
        Ok(())
    }
}

#[pymethods]
impl PyPieceCounter {
    #[new]
    #[pyo3(signature = (word_chars, leading_space, span_letters, max_units, prefix))]
    fn new(
        word_chars: Option<Ranges>,
        leading_space: bool,
        span_letters: Vec<Ranges>,
        max_units: usize,
        prefix: String,
    ) -> PyResult<Self> {
        let splitter = Splitter::from_ranges(
            word_chars.as_deref(),
            leading_space,
            &span_letters,
            max_units,
        )
        .map_err(PyValueError::new_err)?;
        Ok(PyPieceCounter {
            idle: Some(pieces::Counter::new(splitter.clone(), prefix)),
            busy: None,
            splitter,
        })
    }

    /// Count a segment of a text file (bytes; `line_start`: it starts a line), while the
    /// caller reads on. False when the bytes are not valid UTF-8 (nothing is counted; the
    /// caller reports where).
    fn feed_segment(&mut self, py: Python<'_>, data: &[u8], line_start: bool) -> PyResult<bool> {
        let owned = data.to_vec();
        let Ok(text) = py.allow_threads(|| String::from_utf8(owned)) else {
            return Ok(false);
        };
        self.start(py, text, Some(line_start))?;
        Ok(true)
    }

    /// Count text joined from documents. A lone surrogate raises UnicodeEncodeError.
    fn feed_text(&mut self, py: Python<'_>, text: &Bound<'_, PyString>) -> PyResult<()> {
        let s = text.to_str()?.to_string();
        self.start(py, s, None)
    }

    /// Corpus characters of the file segments fed (the prefix not counted).
    #[getter]
    fn chars(&mut self, py: Python<'_>) -> PyResult<u64> {
        Ok(self.wait(py)?.chars)
    }

    /// Whether any text that is not whitespace was fed.
    #[getter]
    fn any_text(&mut self, py: Python<'_>) -> PyResult<bool> {
        Ok(self.wait(py)?.any_text)
    }

    /// Add the counts to `into` (a dict or Counter) in order of first occurrence; the
    /// counter starts anew. Filled in place: the corpus's pieces are not held twice.
    fn take_into(&mut self, py: Python<'_>, into: &Bound<'_, PyDict>) -> PyResult<()> {
        let inner = self.wait(py)?;
        let items = py.allow_threads(|| guarded("PieceCounter.take_into", || inner.take()))?;
        // Into an empty table (the usual case) every piece is new: no lookup first.
        let fresh = into.is_empty();
        for (k, c) in items {
            let key = PyString::new(py, &k);
            let before: u64 = match fresh {
                true => 0,
                false => into.get_item(&key)?.map_or(Ok(0), |v| v.extract())?,
            };
            into.set_item(key, before + c)?;
        }
        Ok(())
    }

    /// The pieces of one text, as the counter cuts them (for tests).
    fn pieces(&self, text: &str) -> PyResult<Vec<String>> {
        guarded("PieceCounter.pieces", || {
            self.splitter
                .pieces(text)
                .into_iter()
                .map(str::to_string)
                .collect()
        })
    }
}

/// `CorpusUnits` as lists: unit types, their weights, the coded pieces (one code point per
/// unit, `first` + the unit's number, as `sgpe/hierarchical.py` spells placeholders) and
/// their counts.
type UnitsOut<'py> = (
    Vec<Bound<'py, PyString>>,
    Vec<u64>,
    Vec<Bound<'py, PyString>>,
    Vec<u64>,
);

/// `sgpe.hierarchical.corpus_units` of the pieces (distinct, in the counts' order) with
/// the native syllabifier; None where the Python twin's own checks would stop (it then
/// runs and says why). A piece with a lone surrogate raises UnicodeEncodeError.
#[pyfunction]
#[pyo3(signature = (syllabifier, pieces, counts, max_units, first))]
pub(super) fn corpus_units<'py>(
    py: Python<'py>,
    syllabifier: &Bound<'py, super::PySyllabifier>,
    pieces: Vec<Bound<'py, PyString>>,
    counts: Vec<u64>,
    max_units: Option<usize>,
    first: u32,
) -> PyResult<Option<UnitsOut<'py>>> {
    if pieces.len() != counts.len() {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "pieces and counts differ in length",
        ));
    }
    let strs = pieces
        .iter()
        .map(|p| p.to_str())
        .collect::<PyResult<Vec<&str>>>()?;
    let syl = &syllabifier.get().inner;
    let found = py.allow_threads(|| {
        guarded("corpus_units", || {
            crate::units::corpus_units(syl, &strs, &counts, max_units)
        })
    })?;
    let Some(cu) = found else { return Ok(None) };
    let code = |c: &u32| char::from_u32(first + c).unwrap_or(char::REPLACEMENT_CHARACTER);
    let units = cu.units.iter().map(|u| PyString::new(py, u)).collect();
    let coded = cu
        .coded
        .iter()
        .map(|w| PyString::new(py, &w.iter().map(code).collect::<String>()))
        .collect();
    Ok(Some((units, cu.weight, coded, cu.counts)))
}
