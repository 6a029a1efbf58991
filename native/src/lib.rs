//! `sgpe._native`: the native core of sgpe (`docs/architecture.md`, "The native core").
//!
//! The logic lives in plain Rust modules that `cargo test --no-default-features` tests
//! without Python, with one error type (`error::Error`); the PyO3 bindings live in `py/`
//! alone (built with the default `python` feature).

pub mod bpe;
pub mod encoder;
pub mod error;
pub mod hash;
pub mod hierarchical;
pub mod json_file;
pub mod pieces;
pub mod syllables;
pub mod units;
pub mod vocab_file;
pub mod word_store;

#[cfg(feature = "python")]
mod py;
