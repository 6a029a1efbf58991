//! The module's functions (the classes have a file each): `merge_kinds` of
//! [`crate::hierarchical`] and `corpus_units` of [`crate::units`].

use pyo3::prelude::*;
use pyo3::types::PyString;

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
