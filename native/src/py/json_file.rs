//! `sgpe._native.dumps_json`: a dict of our files spelled by [`crate::json_file`], the bytes
//! `dumps_json` of `sgpe/_json.py` gives (`json_bytes` there calls this under the native
//! engine and falls back to the Python writer where this declines).

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

use crate::json_file::{dumps, Layout, Value};

/// Deeper than this, the Python writer answers (it raises for a cycle or a too deep value).
const MAX_DEPTH: usize = 64;

/// A Python string whose UTF-8 was checked when it was taken (`to_str` again is the
/// string's cached UTF-8, so nothing is copied).
struct Text<'py>(Bound<'py, PyString>);

impl AsRef<str> for Text<'_> {
    fn as_ref(&self) -> &str {
        self.0.to_str().unwrap_or_default()
    }
}

/// The value as `json.dumps` sees it, or None where the core cannot be sure to spell it as
/// Python's `json` does: any type but the exact built-in ones (a subclass may spell
/// itself otherwise), a dict key that is not a str, a value nested deeper than
/// [`MAX_DEPTH`]. A lone surrogate raises UnicodeEncodeError (UTF-8 cannot hold it).
fn value<'py>(obj: &Bound<'py, PyAny>, depth: usize) -> PyResult<Option<Value<Text<'py>>>> {
    if depth > MAX_DEPTH {
        return Ok(None);
    }
    Ok(Some(if obj.is_none() {
        Value::Null
    } else if let Ok(s) = obj.downcast_exact::<PyString>() {
        s.to_str()?;
        Value::Str(Text(s.clone()))
    } else if let Ok(b) = obj.downcast_exact::<PyBool>() {
        Value::Bool(b.is_true())
    } else if let Ok(i) = obj.downcast_exact::<PyInt>() {
        match i.extract::<i64>() {
            Ok(i) => Value::Int(i),
            Err(_) => Value::Raw(i.repr()?.to_str()?.to_owned()), // int.__repr__, as json
        }
    } else if let Ok(f) = obj.downcast_exact::<PyFloat>() {
        // float.__repr__, and json's spellings of the three that are not numbers.
        Value::Raw(match f.repr()?.to_str()? {
            "inf" => "Infinity".to_owned(),
            "-inf" => "-Infinity".to_owned(),
            "nan" => "NaN".to_owned(),
            finite => finite.to_owned(),
        })
    } else if let Ok(list) = obj.downcast_exact::<PyList>() {
        let mut items = Vec::with_capacity(list.len());
        for item in list.iter() {
            let Some(v) = value(&item, depth + 1)? else {
                return Ok(None);
            };
            items.push(v);
        }
        Value::List(items)
    } else if let Ok(tuple) = obj.downcast_exact::<PyTuple>() {
        let mut items = Vec::with_capacity(tuple.len());
        for item in tuple.iter() {
            let Some(v) = value(&item, depth + 1)? else {
                return Ok(None);
            };
            items.push(v);
        }
        Value::List(items)
    } else if let Ok(dict) = obj.downcast_exact::<PyDict>() {
        let mut entries = Vec::with_capacity(dict.len());
        for (k, v) in dict.iter() {
            let Ok(k) = k.downcast_exact::<PyString>() else {
                return Ok(None);
            };
            k.to_str()?;
            let Some(v) = value(&v, depth + 1)? else {
                return Ok(None);
            };
            entries.push((Text(k.clone()), v));
        }
        Value::Dict(entries)
    } else {
        return Ok(None);
    }))
}

/// `dumps_json(data, layout=JsonLayout(key_indent, inline_max, compact))` of a dict whose
/// items are `items`, each `(json.dumps(key), value)`, as UTF-8 bytes; None where the
/// Python writer has to answer (see [`value`]; a top-level tuple, which `dumps_json`
/// writes on one line whatever its length). A lone surrogate raises UnicodeEncodeError.
#[pyfunction]
#[pyo3(signature = (items, key_indent, inline_max, compact))]
pub(crate) fn dumps_json<'py>(
    py: Python<'py>,
    items: Vec<(String, Bound<'py, PyAny>)>,
    key_indent: &str,
    inline_max: usize,
    compact: bool,
) -> PyResult<Option<Bound<'py, PyBytes>>> {
    let mut values = Vec::with_capacity(items.len());
    for (key, v) in &items {
        if v.is_exact_instance_of::<PyTuple>() {
            return Ok(None);
        }
        let Some(v) = value(v, 0)? else {
            return Ok(None);
        };
        values.push((key.as_str(), v));
    }
    let layout = Layout {
        key_indent,
        inline_max,
        compact,
    };
    Ok(Some(PyBytes::new(py, &dumps(&values, layout))))
}
