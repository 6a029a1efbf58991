//! `sgpe._native.PieceCounter`: the piece splitter and counter of [`crate::pieces`],
//! which `sgpe/corpus/counting.py` (`count_pieces`) feeds block by block.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::thread::JoinHandle;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

use super::error::{broken, guarded, internal, panic_message};
use crate::pieces::{self, Splitter};

/// The error of a counter whose counts a failed block took with it.
fn lost_counts() -> PyErr {
    broken("PieceCounter lost its counts to an error")
}

type Ranges = Vec<(u32, u32)>;

/// The pieces of a corpus counted in order (`sgpe.corpus.counting.count_pieces`). A block
/// is counted on a thread of its own while Python reads the next one (reading, hashing and
/// cutting blocks stay in Python: `sgpe/corpus/readers.py`); every other call waits for it.
#[pyclass(module = "sgpe._native", name = "PieceCounter")]
pub(crate) struct PyPieceCounter {
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
                    return Err(internal("PieceCounter", &panic_message(&*payload)));
                }
            }
        }
        self.idle.as_mut().ok_or_else(lost_counts)
    }

    /// Count `text` on a thread of its own: a file segment (`Some(line_start)`) or text
    /// joined from documents (`None`).
    fn start(&mut self, py: Python<'_>, text: String, segment: Option<bool>) -> PyResult<()> {
        self.wait(py)?;
        let mut counter = self.idle.take().ok_or_else(lost_counts)?;
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
        )?;
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
            let before: u64 = if fresh {
                0
            } else {
                into.get_item(&key)?.map_or(Ok(0), |v| v.extract())?
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
