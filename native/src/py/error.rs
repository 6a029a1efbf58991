//! The one conversion of errors and panics into Python exceptions: a core
//! [`Error`](crate::error::Error) becomes a `ValueError` with its message, a panic a
//! `RuntimeError` that names the call and the way out (`SGPE_ENGINE=python`).

use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::PyErr;
use pyo3::PyResult;

use crate::error::Error;

impl From<Error> for PyErr {
    fn from(err: Error) -> PyErr {
        PyValueError::new_err(err.to_string())
    }
}

/// A `ValueError` with this message: arguments the bindings refuse before the core sees
/// them.
pub(crate) fn invalid(message: impl Into<String>) -> PyErr {
    PyValueError::new_err(message.into())
}

/// The `RuntimeError` of a failure inside the core during `what`.
pub(crate) fn internal(what: &str, detail: &str) -> PyErr {
    PyRuntimeError::new_err(format!(
        "sgpe._native: internal error in {what} ({detail}); \
         SGPE_ENGINE=python runs the pure-Python engine"
    ))
}

/// The `RuntimeError` of an object an earlier failure left unusable, or of a result the
/// core lost: `message` says which.
pub(crate) fn broken(message: &str) -> PyErr {
    PyRuntimeError::new_err(format!("sgpe._native: {message}"))
}

/// The message of a panic's payload (`panic!` gives a `&str` or a `String`).
pub(crate) fn panic_message(payload: &(dyn Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".to_string())
}

/// Runs `work`, turning a panic into a Python `RuntimeError`: no panic crosses into
/// Python. Every binding runs its core call through this.
pub(crate) fn guarded<T>(what: &str, work: impl FnOnce() -> T) -> PyResult<T> {
    catch_unwind(AssertUnwindSafe(work))
        .map_err(|payload| internal(what, &panic_message(&*payload)))
}
