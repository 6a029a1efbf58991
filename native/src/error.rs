//! The one error type of the core: every fallible function of the plain Rust modules
//! returns it. The bindings (`src/py/error.rs`) turn it into a Python exception; its
//! messages are the ones the Python engine raises for the same input, word for word.

use std::fmt;

/// Why the core refused an input or a step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// Input the core cannot take (a schema table, a setting, data of the wrong shape),
    /// said in a sentence.
    Invalid(String),
    /// A checkpoint's merge occurs `count` times in this corpus, fewer than it needs.
    Mismatch { count: i64 },
    /// A new symbol would need an id of `limit` or more.
    VocabLimit { limit: usize },
    /// A segment names a symbol id the table does not have.
    BadSymbol(u32),
}

/// The core's results.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// An `Invalid` error with this message.
    pub fn invalid(message: impl Into<String>) -> Error {
        Error::Invalid(message.into())
    }

    /// Whether the message says `needle` (for tests that name a part of it).
    #[must_use]
    pub fn contains(&self, needle: &str) -> bool {
        self.to_string().contains(needle)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Invalid(message) => f.write_str(message),
            Error::Mismatch { count } => write!(f, "a checkpoint merge occurs {count} times"),
            Error::VocabLimit { limit } => write!(
                f,
                "vocab_size above {} is not supported",
                group_thousands(*limit)
            ),
            Error::BadSymbol(id) => {
                write!(f, "a segment names symbol {id}, which the table lacks")
            }
        }
    }
}

impl std::error::Error for Error {}

impl From<String> for Error {
    fn from(message: String) -> Error {
        Error::Invalid(message)
    }
}

impl From<&str> for Error {
    fn from(message: &str) -> Error {
        Error::Invalid(message.to_string())
    }
}

/// `n` as Python's `f"{n:,}"` writes it.
fn group_thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::Error;

    #[test]
    fn messages_are_pythons() {
        assert_eq!(
            Error::VocabLimit { limit: 0x80000 }.to_string(),
            "vocab_size above 524,288 is not supported"
        );
        assert_eq!(
            Error::VocabLimit { limit: 0x110000 }.to_string(),
            "vocab_size above 1,114,112 is not supported"
        );
        assert_eq!(
            Error::VocabLimit { limit: 999 }.to_string(),
            "vocab_size above 999 is not supported"
        );
    }
}
