//! `sgpe._native`: the native core of sgpe (`docs/architecture.md`, "The native core").
//!
//! The logic lives in plain Rust modules that `cargo test --no-default-features` tests
//! without Python; this file only converts arguments and results, releases the GIL around
//! the work, and turns every error and panic into a Python exception with a message.

pub mod encoder;
#[cfg(feature = "python")]
mod encoder_py;
pub mod syllables;

#[cfg(feature = "python")]
pub(crate) mod bindings {
    use std::collections::HashMap;
    use std::panic::{catch_unwind, AssertUnwindSafe};

    use pyo3::exceptions::{PyRuntimeError, PyValueError};
    use pyo3::prelude::*;
    use pyo3::types::{PyBytes, PyList, PyString, PyTuple};
    use rayon::prelude::*;

    use crate::syllables::{self, Interned, SchemaSpec, Token};

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
        made: &mut HashMap<&'a str, Bound<'py, PyString>, crate::encoder::FxBuild>,
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
        fn bounds(&self, py: Python<'_>, text: &Bound<'_, PyString>) -> PyResult<Vec<usize>> {
            let s = text.to_str()?;
            py.allow_threads(|| {
                guarded("bounds", || {
                    let mut out = Vec::with_capacity(s.len() / 4 + 1);
                    self.inner.for_each_token(s, |t| out.push(t.char_end));
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

    #[pymodule]
    fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
        m.add("__version__", env!("CARGO_PKG_VERSION"))?;
        m.add_class::<PySyllabifier>()?;
        m.add_class::<crate::encoder_py::PyTextEncoder>()?;
        Ok(())
    }
}
