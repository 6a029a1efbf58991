//! Bindings of `crate::pieces` (included by `lib.rs`'s `bindings` module, whose `guarded`
//! it uses): the piece splitter and counter of `sgpe/corpus/counting.py`.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

use super::guarded;
use crate::pieces::{self, CharSet, Splitter};

type Ranges = Vec<(u32, u32)>;

fn splitter_of(
    word_chars: Option<Ranges>,
    leading_space: bool,
    span_letters: Vec<Ranges>,
    span_max: usize,
) -> Splitter {
    Splitter {
        word_chars: word_chars.map(CharSet::new),
        leading_space,
        span_letters: span_letters.into_iter().map(CharSet::new).collect(),
        span_max,
    }
}

/// The pieces of a corpus counted in order (`sgpe.corpus.counting.count_pieces`).
#[pyclass(module = "sgpe._native", name = "PieceCounter")]
pub(super) struct PyPieceCounter {
    inner: pieces::Counter,
}

#[pymethods]
impl PyPieceCounter {
    #[new]
    #[pyo3(signature = (word_chars, leading_space, span_letters, span_max, prefix))]
    fn new(
        word_chars: Option<Ranges>,
        leading_space: bool,
        span_letters: Vec<Ranges>,
        span_max: usize,
        prefix: String,
    ) -> Self {
        let splitter = splitter_of(word_chars, leading_space, span_letters, span_max);
        PyPieceCounter {
            inner: pieces::Counter::new(splitter, prefix),
        }
    }

    /// Count a segment of a text file (bytes; `line_start`: it starts a line). False when
    /// the bytes are not valid UTF-8 (nothing is counted; the caller reports where).
    fn feed_segment(&mut self, py: Python<'_>, data: &[u8], line_start: bool) -> PyResult<bool> {
        let inner = &mut self.inner;
        py.allow_threads(|| {
            guarded("PieceCounter.feed_segment", || {
                match std::str::from_utf8(data) {
                    Ok(text) => {
                        inner.feed_file_segment(text, line_start);
                        true
                    }
                    Err(_) => false,
                }
            })
        })
    }

    /// Count text joined from documents. A lone surrogate raises UnicodeEncodeError.
    fn feed_text(&mut self, py: Python<'_>, text: &Bound<'_, PyString>) -> PyResult<()> {
        let s = text.to_str()?;
        let inner = &mut self.inner;
        py.allow_threads(|| guarded("PieceCounter.feed_text", || inner.feed_text(s)))
    }

    /// Corpus characters of the file segments fed (the prefix not counted).
    #[getter]
    fn chars(&self) -> u64 {
        self.inner.chars
    }

    /// Whether any text that is not whitespace was fed.
    #[getter]
    fn any_text(&self) -> bool {
        self.inner.any_text
    }

    /// Add the counts to `into` (a dict or Counter) in order of first occurrence; the
    /// counter starts anew. Filled in place: the corpus's pieces are not held twice.
    fn take_into(&mut self, py: Python<'_>, into: &Bound<'_, PyDict>) -> PyResult<()> {
        let inner = &mut self.inner;
        let items = py.allow_threads(|| guarded("PieceCounter.take_into", || inner.take()))?;
        for (k, c) in items {
            let key = PyString::new(py, &k);
            let before: u64 = match into.get_item(&key)? {
                Some(v) => v.extract()?,
                None => 0,
            };
            into.set_item(key, before + c)?;
        }
        Ok(())
    }

    /// The pieces of one text, as the counter cuts them (for tests).
    fn pieces(&self, text: &str) -> PyResult<Vec<String>> {
        guarded("PieceCounter.pieces", || {
            self.inner
                .splitter
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
