//! `sgpe._native.TextEncoder`: the whole-text encoder of [`crate::encoder`], which
//! `Tokenizer.encode` and `encode_batch` (`sgpe/tokenizer.py`) use for both modes.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use pyo3::types::{PyBytes, PyInt, PyList, PyString};
use rayon::prelude::*;

use super::args::{specs_of, SpecArg};
use super::error::{broken, guarded, invalid};
use super::vocab_file::PyVocabFile;
use crate::encoder::{self, Ranks};
use crate::hash::FxBuild;
use crate::hierarchical;
use crate::pieces::Splitter;
use crate::syllables;

/// `-1` (a byte token or `[UNK]` the vocabulary lacks) travels as `u32::MAX`.
const MISSING: u32 = u32::MAX;

fn id_of(i: i64) -> u32 {
    u32::try_from(i).unwrap_or(MISSING)
}

/// The whole-text encoder of either mode: pieces, piece cache and merges in Rust; the
/// caches live as long as the object (one per tokenizer).
#[pyclass(frozen, module = "sgpe._native", name = "TextEncoder")]
pub(crate) struct PyTextEncoder {
    inner: encoder::TextEncoder,
    /// Ids below this have a shared Python int (`ints`).
    n_ids: usize,
    /// One Python int per id (and the last for -1): a list of ids is then built from
    /// references, with no new int object per token.
    ints: GILOnceCell<Vec<Py<PyInt>>>,
}

impl PyTextEncoder {
    fn ints(&self, py: Python<'_>) -> &Vec<Py<PyInt>> {
        self.ints.get_or_init(py, || {
            (0..self.n_ids as i64)
                .chain([-1])
                .map(|i| i.into_pyobject(py).map(Bound::unbind))
                .collect::<Result<Vec<_>, _>>()
                .unwrap_or_default()
        })
    }

    fn list_of<'py>(&self, py: Python<'py>, ids: &[u32]) -> PyResult<Bound<'py, PyList>> {
        let ints = self.ints(py);
        let items = ids.iter().map(|&i| {
            let k = if i == MISSING { self.n_ids } else { i as usize };
            match ints.get(k) {
                Some(obj) => obj.bind(py).clone(),
                None => i.into_pyobject(py).unwrap_or_else(|e| match e {}),
            }
        });
        PyList::new(py, items)
    }

    /// The encoder of both constructors: `tables` are the single-character ids, the part
    /// and join ranks, and the paper mode's vocabulary (None in the hierarchical mode).
    #[allow(clippy::too_many_arguments)]
    fn build(
        syllabifier: syllables::Syllabifier,
        leading_space: bool,
        tables: Tables,
        byte_ids: Option<Vec<i64>>,
        unk: i64,
        word_chars: Option<Vec<(u32, u32)>>,
        span_letters: Vec<Vec<(u32, u32)>>,
        max_units: usize,
    ) -> PyResult<Self> {
        let (char_ids, part, join, paper_vocab) = tables;
        if byte_ids.as_ref().is_some_and(|b| b.len() != 256) {
            return Err(invalid("byte_ids must hold 256 ids"));
        }
        if max_units == 0 {
            return Err(invalid("max_units must be at least 1"));
        }
        let byte_ids: Option<Vec<u32>> = byte_ids.map(|b| b.into_iter().map(id_of).collect());
        let unk = id_of(unk);
        let top = char_ids
            .values()
            .chain(byte_ids.iter().flatten())
            .chain([&unk])
            .chain(part.values().chain(join.values()).map(|(_, m)| m))
            .filter(|&&i| i != MISSING)
            .max()
            .map_or(0, |&i| i as usize + 1);
        let top = top.max(
            paper_vocab
                .iter()
                .flat_map(|v| v.values())
                .max()
                .map_or(0, |&i| i as usize + 1),
        );
        let pieces_encoder = encoder::PieceEncoder {
            syllabifier,
            char_ids,
            byte_ids,
            unk,
            part,
            join,
        };
        let splitter = Splitter::from_ranges(
            word_chars.as_deref(),
            leading_space,
            &span_letters,
            max_units,
        )?;
        let inner = match paper_vocab {
            None => encoder::TextEncoder::new(pieces_encoder, splitter),
            Some(v) => encoder::TextEncoder::paper(pieces_encoder, splitter, v),
        };
        Ok(PyTextEncoder {
            inner,
            n_ids: top,
            ints: GILOnceCell::new(),
        })
    }

    /// `with_space` of every text, on the current rayon pool.
    fn all_with_space<'a>(texts: &[&'a str], prepend_space: bool) -> Vec<Cow<'a, str>> {
        texts
            .par_iter()
            .map(|s| Self::with_space(s, prepend_space))
            .collect()
    }

    fn with_space(text: &str, prepend_space: bool) -> Cow<'_, str> {
        if prepend_space && !text.is_empty() {
            format!(" {text}").into()
        } else {
            text.into()
        }
    }
}

/// The single-character ids, the part and join ranks, and the paper mode's vocabulary.
type Tables = (
    HashMap<char, u32>,
    Ranks,
    Ranks,
    Option<HashMap<Box<str>, u32, FxBuild>>,
);

/// The syllabifier of the schema tables (`sgpe._engine.builtin_tables`).
fn syllabifier_of(schemas: Vec<SpecArg>, leading_space: bool) -> PyResult<syllables::Syllabifier> {
    let specs = specs_of(schemas);
    Ok(guarded("TextEncoder()", || {
        syllables::Syllabifier::new(&specs, leading_space)
    })??)
}

/// A pool of `threads` threads (None: rayon's global pool, one thread per core). Pools
/// are kept for the process: starting threads on every call would cost more than a
/// short batch.
fn pool(threads: Option<usize>) -> PyResult<Option<Arc<rayon::ThreadPool>>> {
    static POOLS: OnceLock<Mutex<HashMap<usize, Arc<rayon::ThreadPool>>>> = OnceLock::new();
    let n = match threads {
        None => return Ok(None),
        Some(0) => return Err(invalid("threads must be at least 1")),
        Some(n) => n,
    };
    let mut pools = POOLS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    if let Some(p) = pools.get(&n) {
        return Ok(Some(p.clone()));
    }
    let made = rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .map_err(|e| invalid(format!("cannot start {n} threads: {e}")))?;
    let made = Arc::new(made);
    pools.insert(n, made.clone());
    Ok(Some(made))
}

/// A batch's texts as `&str` and the pool of `threads` (`encode_batch` and
/// `encode_batch_flat` take their arguments the same way).
type Batch<'a> = (Vec<&'a str>, Option<Arc<rayon::ThreadPool>>);

fn batch_of<'a>(texts: &'a [Bound<'_, PyString>], threads: Option<usize>) -> PyResult<Batch<'a>> {
    let strs = texts
        .iter()
        .map(|t| t.to_str())
        .collect::<PyResult<Vec<&str>>>()?;
    Ok((strs, pool(threads)?))
}

/// `work` on `pool`, or on rayon's global pool.
fn on_pool<R: Send>(pool: Option<&rayon::ThreadPool>, work: impl FnOnce() -> R + Send) -> R {
    match pool {
        Some(p) => p.install(work),
        None => work(),
    }
}

#[pymethods]
impl PyTextEncoder {
    #[new]
    #[pyo3(signature = (
        schemas, leading_space, char_ids, byte_ids, unk, part, join, word_chars, span_letters,
        max_units, paper_vocab=None
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        schemas: Vec<SpecArg>,
        leading_space: bool,
        char_ids: HashMap<char, u32>,
        byte_ids: Option<Vec<i64>>,
        unk: i64,
        part: Ranks,
        join: Ranks,
        word_chars: Option<Vec<(u32, u32)>>,
        span_letters: Vec<Vec<(u32, u32)>>,
        max_units: usize,
        paper_vocab: Option<HashMap<String, u32>>,
    ) -> PyResult<Self> {
        let syllabifier = syllabifier_of(schemas, leading_space)?;
        let paper_vocab = paper_vocab.map(|v| {
            v.into_iter()
                .map(|(k, i)| (k.into_boxed_str(), i))
                .collect()
        });
        let tables = (char_ids, part, join, paper_vocab);
        Self::build(
            syllabifier,
            leading_space,
            tables,
            byte_ids,
            unk,
            word_chars,
            span_letters,
            max_units,
        )
    }

    /// The encoder of a file the native reader read (`sgpe._engine.native_file_encoder`),
    /// with the tables `native_text_encoder` would take computed here from the file: the
    /// single-character tokens, and the merges' ranks split by `merge_kinds` (or, with
    /// `paper`, every merge in one table and the whole vocabulary for the syllables).
    #[staticmethod]
    #[pyo3(signature = (
        file, schemas, leading_space, byte_ids, unk, word_chars, span_letters, max_units, paper
    ))]
    #[allow(clippy::too_many_arguments)]
    fn of_file(
        py: Python<'_>,
        file: &Bound<'_, PyVocabFile>,
        schemas: Vec<SpecArg>,
        leading_space: bool,
        byte_ids: Option<Vec<i64>>,
        unk: i64,
        word_chars: Option<Vec<(u32, u32)>>,
        span_letters: Vec<Vec<(u32, u32)>>,
        max_units: usize,
        paper: bool,
    ) -> PyResult<Self> {
        let syllabifier = syllabifier_of(schemas, leading_space)?;
        let f = &file.get().inner;
        let tables = py.allow_threads(|| {
            guarded("TextEncoder.of_file", || {
                let (part, join, paper_vocab) = if paper {
                    let (all, none) = f.ranks(|_| false);
                    (all, none, Some(f.vocab()))
                } else {
                    let kinds = f.merge_kinds(&syllabifier);
                    let (part, join) = f.ranks(|rank| kinds[rank] == hierarchical::JOIN);
                    (part, join, None)
                };
                (f.char_ids(), part, join, paper_vocab)
            })
        })?;
        Self::build(
            syllabifier,
            leading_space,
            tables,
            byte_ids,
            unk,
            word_chars,
            span_letters,
            max_units,
        )
    }

    /// `Tokenizer.encode(text)`: the ids of `text` (with one space before it when
    /// `prepend_space` and it is not empty). A lone surrogate raises UnicodeEncodeError
    /// (UTF-8 cannot hold it); the caller then encodes in Python.
    fn encode<'py>(
        &self,
        py: Python<'py>,
        text: &Bound<'py, PyString>,
        prepend_space: bool,
    ) -> PyResult<Bound<'py, PyList>> {
        let s = text.to_str()?;
        let ids = py.allow_threads(|| {
            guarded("encode", || {
                let s = Self::with_space(s, prepend_space);
                let mut ids = Vec::with_capacity(s.len() / 3 + 1);
                self.inner.encode(&s, &mut ids);
                ids
            })
        })?;
        self.list_of(py, &ids)
    }

    /// `encode` of each text, on `threads` threads (default: all cores), without the
    /// GIL; the same ids however the work is split.
    #[pyo3(signature = (texts, prepend_space, threads=None))]
    fn encode_batch<'py>(
        &self,
        py: Python<'py>,
        texts: Vec<Bound<'py, PyString>>,
        prepend_space: bool,
        threads: Option<usize>,
    ) -> PyResult<Bound<'py, PyList>> {
        let (strs, pool) = batch_of(&texts, threads)?;
        // The threads encode and also turn each chunk of texts, once its ids are ready,
        // into Python lists, taking the GIL for that alone (this thread waits without it).
        // So a batch on one thread is done by one thread, and on two threads one turns its
        // chunk into lists while the other still encodes.
        type Lists = PyResult<Vec<Py<PyList>>>;
        let made: Mutex<Vec<(usize, Lists)>> = Mutex::new(Vec::new());
        py.allow_threads(|| {
            guarded("encode_batch", || {
                let work = || {
                    let spaced = Self::all_with_space(&strs, prepend_space);
                    let refs: Vec<&str> = spaced.iter().map(AsRef::as_ref).collect();
                    self.inner.encode_batch_with(&refs, |k, run| {
                        let lists = Python::with_gil(|py| {
                            run.texts()
                                .map(|t| self.list_of(py, t).map(Bound::unbind))
                                .collect::<Lists>()
                        });
                        made.lock()
                            .unwrap_or_else(PoisonError::into_inner)
                            .push((k, lists));
                    });
                };
                on_pool(pool.as_deref(), work);
            })
        })?;
        let mut made = made.into_inner().unwrap_or_else(PoisonError::into_inner);
        made.sort_unstable_by_key(|&(k, _)| k);
        let mut lists = Vec::with_capacity(strs.len());
        for (_, chunk) in made {
            lists.extend(chunk?);
        }
        if lists.len() != strs.len() {
            return Err(broken("encode_batch lost texts"));
        }
        PyList::new(py, lists)
    }

    /// `encode_batch` as two flat buffers, with no Python object per id: every text's ids
    /// one after the other (little-endian u32, for `array("I")`) and where each text's
    /// ids start (little-endian u64, one more than the texts: text `k` is
    /// `ids[offsets[k]:offsets[k + 1]]`). The GIL is taken only to read the texts and to
    /// make the two `bytes` objects: the encoding and the copy into the new object run on
    /// the pool without it, so no thread waits for it as `encode_batch`'s lists do. None
    /// (the caller's Python path then answers, and raises) when an id is -1: an unsigned
    /// buffer cannot hold it.
    #[pyo3(signature = (texts, prepend_space, threads=None))]
    fn encode_batch_flat<'py>(
        &self,
        py: Python<'py>,
        texts: Vec<Bound<'py, PyString>>,
        prepend_space: bool,
        threads: Option<usize>,
    ) -> PyResult<Option<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)>> {
        let (strs, pool) = batch_of(&texts, threads)?;
        let runs = py.allow_threads(|| {
            guarded("encode_batch_flat", || {
                on_pool(pool.as_deref(), || {
                    let spaced = Self::all_with_space(&strs, prepend_space);
                    let refs: Vec<&str> = spaced.iter().map(AsRef::as_ref).collect();
                    self.inner.encode_batch_flat(&refs)
                })
            })
        })?;
        let mut offsets = Vec::with_capacity(8 * (strs.len() + 1));
        offsets.extend_from_slice(&0u64.to_le_bytes());
        let mut total = 0;
        for run in &runs {
            for &end in &run.ends {
                offsets.extend_from_slice(&((total + end) as u64).to_le_bytes());
            }
            total += run.ids.len();
        }
        if offsets.len() != 8 * (strs.len() + 1) {
            return Err(broken("encode_batch_flat lost texts"));
        }
        let mut missing = false;
        let ids = PyBytes::new_with(py, 4 * total, |buf| {
            // The new bytes object is this call's alone until it returns: filling it
            // without the GIL races with nothing.
            missing = py.allow_threads(|| {
                guarded("encode_batch_flat", || {
                    let mut parts = Vec::with_capacity(runs.len());
                    let mut rest = buf;
                    for run in &runs {
                        let (part, tail) = rest.split_at_mut(4 * run.ids.len());
                        parts.push(part);
                        rest = tail;
                    }
                    on_pool(pool.as_deref(), || {
                        parts
                            .par_iter_mut()
                            .zip(&runs)
                            .map(|(part, run)| {
                                for (to, &id) in part.chunks_exact_mut(4).zip(&run.ids) {
                                    to.copy_from_slice(&id.to_le_bytes());
                                }
                                run.ids.contains(&MISSING)
                            })
                            .reduce(|| false, |a, b| a || b)
                    })
                })
            })?;
            Ok(())
        })?;
        if missing {
            return Ok(None);
        }
        Ok(Some((ids, PyBytes::new(py, &offsets))))
    }

    /// The pieces of `text` (`WordSplitter.pieces`), for tests.
    fn pieces(&self, py: Python<'_>, text: &Bound<'_, PyString>) -> PyResult<Vec<String>> {
        let s = text.to_str()?;
        py.allow_threads(|| {
            guarded("pieces", || {
                let mut out = Vec::new();
                self.inner.pieces(s, |p| out.push(p.to_string()));
                out
            })
        })
    }

    /// Each piece's ids (`HierarchicalEncoder.ids_of_piece`), on all cores, without the
    /// GIL; -1 for a byte token or `[UNK]` the vocabulary lacks.
    fn encode_pieces(
        &self,
        py: Python<'_>,
        pieces: Vec<Bound<'_, PyString>>,
    ) -> PyResult<Vec<Vec<i64>>> {
        let strs = pieces
            .iter()
            .map(|p| p.to_str())
            .collect::<PyResult<Vec<&str>>>()?;
        py.allow_threads(|| {
            guarded("encode_pieces", || {
                strs.par_iter()
                    .map(|p| {
                        let mut ids = Vec::new();
                        self.inner.encode_piece(p, &mut ids);
                        ids.into_iter()
                            .map(|i| if i == MISSING { -1 } else { i64::from(i) })
                            .collect()
                    })
                    .collect()
            })
        })
    }

    /// How many pieces the piece cache holds.
    fn cached_pieces(&self) -> usize {
        self.inner.cached_pieces()
    }
}
