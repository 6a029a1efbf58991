//! The module's functions (the classes have a file each): `merge_kinds` of
//! [`crate::hierarchical`] and `corpus_units` of [`crate::units`].

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

use crate::parquet_file::{write_table, Column};

use super::args::{specs_of, SpecArg};
use super::error::{guarded, invalid};
use super::syllabifier::PySyllabifier;
use crate::syllables;

/// `merge_kind` of each (left, right) pair of strings, for a schema setting: 0 (part) or
/// 1 (join), without the GIL.
#[pyfunction]
pub(crate) fn merge_kinds(
    py: Python<'_>,
    schemas: Vec<SpecArg>,
    leading_space: bool,
    pairs: Vec<(String, String)>,
) -> PyResult<Vec<u8>> {
    let specs = specs_of(schemas);
    let syll = guarded("merge_kinds", || {
        syllables::Syllabifier::new(&specs, leading_space)
    })??;
    Ok(py.allow_threads(|| {
        guarded("merge_kinds", || {
            crate::hierarchical::merge_kinds(syll, &pairs)
        })
    })??)
}

/// `CorpusUnits` as lists: unit types, their weights, the coded pieces (one code point per
/// unit, `first` + the unit's number, as `sgpe/hierarchical/` spells placeholders) and
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
pub(crate) fn corpus_units<'py>(
    py: Python<'py>,
    syllabifier: &Bound<'py, PySyllabifier>,
    pieces: Vec<Bound<'py, PyString>>,
    counts: Vec<u64>,
    max_units: Option<usize>,
    first: u32,
) -> PyResult<Option<UnitsOut<'py>>> {
    if pieces.len() != counts.len() {
        return Err(invalid("pieces and counts differ in length"));
    }
    let strs = pieces
        .iter()
        .map(PyStringMethods::to_str)
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

/// The strings as `str`s, or None when one holds a lone surrogate (UTF-8 cannot: the
/// Python writer answers then).
fn strs<'a>(items: &'a [Bound<'_, PyString>]) -> Option<Vec<&'a str>> {
    items.iter().map(|s| s.to_str().ok()).collect()
}

/// `crate::json_text::pairs`: `["left", "right"]` (`inner` between) for each pair of
/// `flat`, joined by `sep`. An odd count is an error.
#[pyfunction]
pub(crate) fn json_pairs(
    py: Python<'_>,
    flat: Vec<Bound<'_, PyString>>,
    sep: &str,
    inner: &str,
) -> PyResult<Option<String>> {
    if !flat.len().is_multiple_of(2) {
        return Err(invalid("json_pairs takes an even number of strings"));
    }
    let Some(flat) = strs(&flat) else {
        return Ok(None);
    };
    Ok(Some(py.allow_threads(|| {
        crate::json_text::pairs(&flat, sep, inner)
    })))
}

/// `crate::json_text::entries`: `"key": value` for each entry, joined by `sep`.
#[pyfunction]
pub(crate) fn json_entries(
    py: Python<'_>,
    keys: Vec<Bound<'_, PyString>>,
    values: Vec<i64>,
    sep: &str,
) -> PyResult<Option<String>> {
    if keys.len() != values.len() {
        return Err(invalid("json_entries: keys and values differ in length"));
    }
    let Some(keys) = strs(&keys) else {
        return Ok(None);
    };
    Ok(Some(py.allow_threads(|| {
        crate::json_text::entries(&keys, &values, sep)
    })))
}

/// `crate::parquet_file::write_table`: the Parquet bytes of the named columns, each a
/// list of `str` (`strings[k]`) or of whole numbers in int64, with `meta_json` under the
/// key `sgpe`, in pages of at most `page_bytes`. A lone surrogate raises UnicodeEncodeError, a number beyond int64
/// OverflowError (the caller's writer answers for both).
#[pyfunction]
pub(crate) fn parquet_table<'py>(
    py: Python<'py>,
    names: Vec<String>,
    columns: Vec<Bound<'py, PyAny>>,
    strings: Vec<bool>,
    meta_json: &str,
    page_bytes: usize,
) -> PyResult<Bound<'py, PyBytes>> {
    if names.len() != columns.len() || names.len() != strings.len() {
        return Err(invalid(
            "parquet_table: names, columns and kinds differ in length",
        ));
    }
    let mut held: Vec<Vec<Bound<'py, PyString>>> = Vec::new();
    let mut ints: Vec<Option<Vec<i64>>> = Vec::new();
    for (column, &is_str) in columns.iter().zip(&strings) {
        if is_str {
            held.push(column.extract()?);
            ints.push(None);
        } else {
            held.push(Vec::new());
            ints.push(Some(column.extract()?));
        }
    }
    let mut table = Vec::with_capacity(names.len());
    for ((name, strs), values) in names.iter().zip(&held).zip(ints) {
        let column = match values {
            Some(v) => Column::Ints(v),
            None => Column::Strings(
                strs.iter()
                    .map(PyStringMethods::to_str)
                    .collect::<PyResult<Vec<&str>>>()?,
            ),
        };
        if column.len()
            != table
                .first()
                .map_or(column.len(), |(_, c): &(&str, Column<'_>)| c.len())
        {
            return Err(invalid("parquet_table: the columns differ in length"));
        }
        table.push((name.as_str(), column));
    }
    let data = py.allow_threads(|| {
        guarded("parquet_table", || {
            write_table(&table, meta_json, page_bytes)
        })
    })?;
    Ok(PyBytes::new(py, &data))
}
