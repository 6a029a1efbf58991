//! The Python face of the core: `sgpe._native`, and the only part of the crate that knows
//! Python (the core's modules take and return Rust data; `cargo test
//! --no-default-features` tests them without it).
//!
//! One file per Python class, so that adding one touches no other (`docs/architecture.md`,
//! "The native core"); the module's functions in `functions.rs`; arguments several classes
//! take in `args.rs`; every error and panic becomes a Python exception in `error.rs` alone. Each binding converts its arguments, releases the GIL
//! around the core's work (`allow_threads`), runs that work through `error::guarded`, and
//! converts the result.

mod args;
mod bpe_trainer;
mod error;
mod functions;
mod hierarchical_trainer;
mod json_file;
mod piece_counter;
mod syllabifier;
mod text_encoder;
mod vocab_file;

use pyo3::prelude::*;

/// The extension module: the one place a class or function joins `sgpe._native`.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<syllabifier::PySyllabifier>()?;
    m.add_class::<bpe_trainer::PyBpeTrainer>()?;
    m.add_class::<hierarchical_trainer::PyHierarchicalTrainer>()?;
    m.add_class::<piece_counter::PyPieceCounter>()?;
    m.add_class::<text_encoder::PyTextEncoder>()?;
    m.add_class::<vocab_file::PyVocabFile>()?;
    m.add_function(wrap_pyfunction!(functions::merge_kinds, m)?)?;
    m.add_function(wrap_pyfunction!(functions::corpus_units, m)?)?;
    m.add_function(wrap_pyfunction!(json_file::dumps_json, m)?)?;
    Ok(())
}
