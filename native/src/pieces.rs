//! The piece splitter and counter of `sgpe/pieces.py` and `sgpe/corpus/counting.py`.
//!
//! `WordSplitter` there is one regex (`pattern_with`, with `span_regex` before it for
//! superword spans); `Splitter::for_each_piece` walks the same alternatives by hand, with
//! Python's whitespace (`\s`, `str.isspace`, `str.split`), which has U+001C..U+001F that
//! Rust's `char::is_whitespace` lacks. `Counter` adds up the pieces of a corpus fed to it
//! in order, on all cores (rayon over line-aligned parts of each segment), and keeps the
//! order of first occurrence, as `collections.Counter` does.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use rayon::prelude::*;

/// Python's whitespace: `re`'s `\s` on str, `str.isspace()` and `str.split()` agree on it.
pub use crate::syllables::py_isspace as is_py_space;

/// A set of characters as sorted, non-overlapping inclusive code point ranges.
#[derive(Clone, Debug, Default)]
pub struct CharSet {
    ranges: Vec<(u32, u32)>,
}

impl CharSet {
    pub fn new(mut ranges: Vec<(u32, u32)>) -> Self {
        ranges.sort_unstable();
        CharSet { ranges }
    }

    pub fn contains(&self, c: char) -> bool {
        let c = c as u32;
        let i = self.ranges.partition_point(|&(lo, _)| lo <= c);
        i > 0 && c <= self.ranges[i - 1].1
    }
}

/// How pieces are cut (`sgpe.pieces.WordSplitter`'s settings).
#[derive(Clone, Debug)]
pub struct Splitter {
    /// `None`: whitespace pieces; else the word characters of `pieces="script"`.
    pub word_chars: Option<CharSet>,
    pub leading_space: bool,
    /// Superword spans: the letters of each schema, in order (`span_letters`).
    pub span_letters: Vec<CharSet>,
    /// A word of a span has at most this many characters (`span_regex`'s `max_units`).
    pub span_max: usize,
}

impl Splitter {
    fn is_word(&self, c: char) -> bool {
        match &self.word_chars {
            None => !is_py_space(c),
            Some(set) => set.contains(c),
        }
    }

    /// The end (byte offset) of the run of word characters from `i`.
    fn word_end(&self, text: &str, i: usize) -> usize {
        match text[i..].char_indices().find(|&(_, c)| !self.is_word(c)) {
            Some((k, _)) => i + k,
            None => text.len(),
        }
    }

    /// `{letters}{1,max}(?![^\s])` at `i`: the end of the word, if it matches.
    fn span_word(&self, letters: &CharSet, text: &str, i: usize) -> Option<usize> {
        let mut n = 0;
        for (k, c) in text[i..].char_indices() {
            if letters.contains(c) {
                n += 1;
                if n > self.span_max {
                    return None;
                }
            } else {
                return (n > 0 && is_py_space(c)).then_some(i + k);
            }
        }
        (n > 0).then_some(text.len())
    }

    /// ` ?W(?: W)+` of one schema at `i`: the span's end, if it matches.
    fn span_at(&self, letters: &CharSet, text: &str, i: usize) -> Option<usize> {
        let start = if text[i..].starts_with(' ') { i + 1 } else { i };
        let mut end = self.span_word(letters, text, start)?;
        let mut words = 1;
        while text[end..].starts_with(' ') {
            match self.span_word(letters, text, end + 1) {
                Some(e) => {
                    end = e;
                    words += 1;
                }
                None => break,
            }
        }
        (words >= 2).then_some(end)
    }

    /// The end of the piece that starts at byte `i` (`i < text.len()`).
    fn piece_end(&self, text: &str, i: usize) -> usize {
        for letters in &self.span_letters {
            if let Some(end) = self.span_at(letters, text, i) {
                return end;
            }
        }
        let mut chars = text[i..].chars();
        let c = chars.next().unwrap_or(' ');
        let next = i + c.len_utf8();
        if self.leading_space && c == ' ' {
            // ` ?{word}| ?[^ \t\n\r]|[\s\S]`: the space joins what follows it.
            return match chars.next() {
                Some(d) if self.is_word(d) => self.word_end(text, next),
                Some(d) if !matches!(d, ' ' | '\t' | '\n' | '\r') => next + d.len_utf8(),
                _ => next,
            };
        }
        if self.is_word(c) {
            self.word_end(text, i)
        } else {
            next
        }
    }

    /// Calls `f` on every piece of `text` in order (the regex's `findall`).
    pub fn for_each_piece<'a>(&self, text: &'a str, mut f: impl FnMut(&'a str)) {
        let mut i = 0;
        while i < text.len() {
            let end = self.piece_end(text, i);
            f(&text[i..end]);
            i = end;
        }
    }

    /// The pieces of `text` (for tests).
    pub fn pieces<'a>(&self, text: &'a str) -> Vec<&'a str> {
        let mut out = Vec::new();
        self.for_each_piece(text, |p| out.push(p));
        out
    }
}

/// FxHash (as in rustc): the counter hashes every piece of the corpus, and SipHash, the
/// standard library's default, took most of the counting time.
#[derive(Default, Clone, Copy)]
pub struct FxHasher {
    hash: u64,
}

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FxHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.add(u64::from_le_bytes(w));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut w = [0u8; 8];
            w[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(w));
        }
    }

    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.hash
    }
}

pub type FxBuild = BuildHasherDefault<FxHasher>;

/// A part's pieces counted, borrowing the part's text.
fn count_part<'a>(splitter: &Splitter, text: &'a str) -> (Vec<&'a str>, Vec<u64>) {
    let mut index: HashMap<&'a str, usize, FxBuild> = HashMap::default();
    let mut keys: Vec<&'a str> = Vec::new();
    let mut counts: Vec<u64> = Vec::new();
    splitter.for_each_piece(text, |p| match index.get(p) {
        Some(&k) => counts[k] += 1,
        None => {
            index.insert(p, keys.len());
            keys.push(p);
            counts.push(1);
        }
    });
    (keys, counts)
}

/// `text` with `prefix` before every non-empty line (`sgpe.corpus.readers.job_text`):
/// at its start when `line_start`, and after every line break followed by a character.
fn prefixed(text: &str, prefix: &str, line_start: bool) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 16 + prefix.len());
    let mut at_start = line_start;
    for line in text.split_inclusive('\n') {
        if at_start && !line.is_empty() && !line.starts_with('\n') {
            out.push_str(prefix);
        }
        out.push_str(line);
        at_start = true;
    }
    out
}

/// The piece counts of a corpus fed in order, segment by segment.
pub struct Counter {
    pub splitter: Splitter,
    /// Put before every non-empty line of a file segment (`prepend_space`).
    pub prefix: String,
    /// Piece -> its place in `counts`, the order of first occurrence.
    index: HashMap<Box<str>, usize, FxBuild>,
    counts: Vec<u64>,
    /// Corpus characters of the file segments (without the prefix).
    pub chars: u64,
    /// Whether any text that is not whitespace was fed.
    pub any_text: bool,
}

/// Parts of a segment are counted on their own and added up in order: one part per
/// thread (adding up costs a lookup per distinct piece of each part, so fewer, larger
/// parts cost less), but not below this many bytes.
const MIN_PART_BYTES: usize = 1 << 16;

impl Counter {
    pub fn new(splitter: Splitter, prefix: String) -> Self {
        Counter {
            splitter,
            prefix,
            index: HashMap::default(),
            counts: Vec::new(),
            chars: 0,
            any_text: false,
        }
    }

    /// A segment of a text file (`line_start`: it starts a line; the prefix goes before
    /// its first line too).
    pub fn feed_file_segment(&mut self, text: &str, line_start: bool) {
        self.chars += text.chars().count() as u64;
        let parts = line_parts(text);
        let prefix = self.prefix.as_str();
        let texts: Vec<String> = if prefix.is_empty() {
            Vec::new()
        } else {
            parts
                .par_iter()
                .enumerate()
                .map(|(k, p)| prefixed(p, prefix, line_start || k > 0))
                .collect()
        };
        let strs: Vec<&str> = if prefix.is_empty() {
            parts
        } else {
            texts.iter().map(String::as_str).collect()
        };
        self.count_parts(&strs);
    }

    /// Text already joined from documents (the prefix applied).
    pub fn feed_text(&mut self, text: &str) {
        let parts = line_parts(text);
        self.count_parts(&parts);
    }

    fn count_parts(&mut self, parts: &[&str]) {
        let splitter = &self.splitter;
        let have_text = self.any_text;
        let found: Vec<(Vec<&str>, Vec<u64>, bool)> = parts
            .par_iter()
            .map(|p| {
                let (k, c) = count_part(splitter, p);
                let text = !have_text && p.chars().any(|c| !is_py_space(c));
                (k, c, text)
            })
            .collect();
        for (keys, counts, text) in found {
            self.any_text |= text;
            for (k, c) in keys.into_iter().zip(counts) {
                match self.index.get(k) {
                    Some(&i) => self.counts[i] += c,
                    None => {
                        self.index.insert(k.into(), self.counts.len());
                        self.counts.push(c);
                    }
                }
            }
        }
    }

    /// The counts in order of first occurrence; the counter is empty afterwards.
    pub fn take(&mut self) -> Vec<(Box<str>, u64)> {
        let counts = std::mem::take(&mut self.counts);
        let mut keys: Vec<Option<Box<str>>> = vec![None; counts.len()];
        for (k, i) in std::mem::take(&mut self.index) {
            keys[i] = Some(k);
        }
        keys.into_iter()
            .zip(counts)
            .map(|(k, c)| (k.unwrap_or_default(), c))
            .collect()
    }
}

/// `text` cut after line breaks into parts, one per thread (no piece crosses a line break:
/// a line break is always a piece of its own).
fn line_parts(text: &str) -> Vec<&str> {
    let part = (text.len() / rayon::current_num_threads() + 1).max(MIN_PART_BYTES);
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    while start < text.len() {
        let want = start + part;
        if want >= text.len() {
            out.push(&text[start..]);
            break;
        }
        let cut = match bytes[want..].iter().position(|&b| b == b'\n') {
            Some(k) => want + k + 1,
            None => text.len(),
        };
        out.push(&text[start..cut]);
        start = cut;
    }
    out
}
