//! Arguments that more than one class takes, converted once: the schema tables, a batch's
//! time budget, UTF-32 strings cut by their lengths.

use std::time::Duration;

use pyo3::PyResult;

use super::error::invalid;
use crate::syllables::SchemaSpec;

type ClassArg = (char, Vec<(u32, u32)>);
type EdgesArg = (String, Vec<(char, String)>);
/// A schema as `sgpe/_engine.py` passes it: (classes, units, start, transitions, accept,
/// orphan_states).
pub(crate) type SpecArg = (
    Vec<ClassArg>,
    Vec<(char, String)>,
    String,
    Vec<EdgesArg>,
    Vec<String>,
    Vec<String>,
);

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

/// A batch's time budget: None (no limit) or seconds >= 0.
pub(crate) fn budget_of(seconds: Option<f64>) -> PyResult<Option<Duration>> {
    seconds
        .map(|s| {
            Duration::try_from_secs_f64(s)
                .map_err(|_| invalid(format!("seconds must be >= 0, not {s}")))
        })
        .transpose()
}

/// Code points (or symbol ids) from UTF-32-LE bytes, cut into strings of the given
/// lengths; `what` names the argument when they do not fit.
pub(crate) fn cut(data: &[u8], lengths: &[usize], what: &str) -> PyResult<Vec<Vec<u32>>> {
    if !data.len().is_multiple_of(4) || lengths.iter().sum::<usize>() * 4 != data.len() {
        return Err(invalid(format!(
            "{what}: the UTF-32 data does not hold the given lengths"
        )));
    }
    let mut values = data
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]));
    Ok(lengths
        .iter()
        .map(|&n| values.by_ref().take(n).collect())
        .collect())
}
