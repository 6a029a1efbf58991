//! `sgpe._native.VocabFile`: a `vocab.json` read by [`crate::vocab_file`], which
//! `Tokenizer.load` (`sgpe/tokenizer.py`) uses under the native engine; `TextEncoder.of_file`
//! builds the encoder from it without the Python tables.

use std::collections::HashMap;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};

use super::error::guarded;
use crate::vocab_file;

/// A vocabulary file whose `vocab` and `merges` are read and checked.
#[pyclass(frozen, module = "sgpe._native", name = "VocabFile")]
pub(crate) struct PyVocabFile {
    pub(crate) inner: vocab_file::VocabFile,
}

#[pymethods]
impl PyVocabFile {
    /// The file at `path` read, or None where the Python reader has to answer (a file it
    /// cannot open or decode, JSON serde_json does not take, a key `Tokenizer._check`
    /// would refuse: the Python reader then says what is wrong), without the GIL.
    #[staticmethod]
    fn read(py: Python<'_>, path: std::path::PathBuf) -> PyResult<Option<Self>> {
        let found = py.allow_threads(|| {
            guarded("VocabFile.read", || {
                let bytes = std::fs::read(&path).ok()?;
                let text = std::str::from_utf8(&bytes).ok()?;
                vocab_file::VocabFile::parse(text)
            })
        })?;
        Ok(found.map(|inner| PyVocabFile { inner }))
    }

    /// Every key but `vocab` and `merges`, as one JSON object's text.
    #[getter]
    fn header(&self) -> &str {
        &self.inner.header
    }

    /// The number of tokens.
    fn __len__(&self) -> usize {
        self.inner.entries.len()
    }

    /// The number of merges.
    #[getter]
    fn merge_count(&self) -> usize {
        self.inner.merges.len()
    }

    /// token -> id of those of `tokens` the file holds (what `Tokenizer.__init__` looks up
    /// before the vocab dict is made).
    fn lookup(&self, tokens: Vec<String>) -> HashMap<String, u32> {
        self.inner.lookup(tokens)
    }

    /// `(vocab, tokens, merges)`: token -> id in the file's order, the tokens by id, and
    /// the merges as (left, right) tuples; one string object per token, shared by all three.
    fn tables<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyDict>, Bound<'py, PyList>, Bound<'py, PyList>)> {
        let f = &self.inner;
        let strings: Vec<Bound<'py, PyString>> = f
            .entries
            .iter()
            .map(|(t, _)| PyString::new(py, t))
            .collect();
        let vocab = PyDict::new(py);
        for (s, (_, id)) in strings.iter().zip(&f.entries) {
            vocab.set_item(s, id)?;
        }
        let of_id = |i: u32| &strings[f.by_id[i as usize] as usize];
        let tokens = PyList::new(py, (0..f.by_id.len() as u32).map(of_id))?;
        let merges = f
            .merges
            .iter()
            .map(|&(a, b, _)| PyTuple::new(py, [of_id(a), of_id(b)]))
            .collect::<PyResult<Vec<_>>>()?;
        Ok((vocab, tokens, PyList::new(py, merges)?))
    }
}
