//! `sgpe._native.Syllabifier`: the DFA syllabifier of [`crate::syllables`], which
//! `sgpe/syllables.py` uses for the built-in schemas.

use std::collections::HashMap;

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyString, PyTuple};
use rayon::prelude::*;

use super::args::{specs_of, SpecArg};
use super::error::{guarded, invalid};
use crate::hash::FxBuild;
use crate::syllables::{self, Interned, Token};

/// The DFA syllabifier of one (schemas, leading_space) setting.
#[pyclass(frozen, module = "sgpe._native", name = "Syllabifier")]
pub(crate) struct PySyllabifier {
    pub(crate) inner: syllables::Syllabifier,
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
    made: &mut HashMap<&'a str, Bound<'py, PyString>, FxBuild>,
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

/// The text as UTF-8, refused when over 4 GiB: offsets travel as `u32`.
fn short_text<'a>(text: &'a Bound<'_, PyString>, what: &str) -> PyResult<&'a str> {
    let s = text.to_str()?;
    if u32::try_from(s.len()).is_err() {
        return Err(invalid(format!("{what}: the text is over 4 GiB")));
    }
    Ok(s)
}

#[pymethods]
impl PySyllabifier {
    #[new]
    fn new(schemas: Vec<SpecArg>, leading_space: bool) -> PyResult<Self> {
        let specs = specs_of(schemas);
        let inner = guarded("Syllabifier()", || {
            syllables::Syllabifier::new(&specs, leading_space)
        })??;
        Ok(PySyllabifier { inner })
    }

    /// The tokens of `text` as strings. A lone surrogate raises UnicodeEncodeError
    /// (UTF-8 cannot hold it); `sgpe/_engine.py` then uses the Python engine.
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
    #[allow(clippy::cast_possible_truncation)] // short_text: every offset fits in u32
    fn bounds(&self, py: Python<'_>, text: &Bound<'_, PyString>) -> PyResult<Vec<u32>> {
        let s = short_text(text, "bounds")?;
        py.allow_threads(|| guarded("bounds", || self.inner.ends::<false>(s)))
    }

    /// Every token's end as a flat array of little-endian u32 (`array("I", ...)` reads
    /// it), in code points or, with `utf8`, in bytes of the UTF-8 text: no Python object
    /// per token, for callers that need only the boundaries.
    #[pyo3(signature = (text, utf8=false))]
    #[allow(clippy::cast_possible_truncation)] // short_text: every offset fits in u32
    fn offsets<'py>(
        &self,
        py: Python<'py>,
        text: &Bound<'py, PyString>,
        utf8: bool,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let s = short_text(text, "offsets")?;
        let ends = py.allow_threads(|| {
            guarded("offsets", || {
                if utf8 {
                    self.inner.ends::<true>(s)
                } else {
                    self.inner.ends::<false>(s)
                }
            })
        })?;
        PyBytes::new_with(py, 4 * ends.len(), |out| {
            for (to, end) in out.chunks_exact_mut(4).zip(&ends) {
                to.copy_from_slice(&end.to_le_bytes());
            }
            Ok(())
        })
    }

    /// `syllabify` of each text, on all cores (rayon), without the GIL.
    fn syllabify_batch<'py>(
        &self,
        py: Python<'py>,
        texts: Vec<Bound<'py, PyString>>,
    ) -> PyResult<Vec<Bound<'py, PyList>>> {
        let strs = texts
            .iter()
            .map(PyStringMethods::to_str)
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
