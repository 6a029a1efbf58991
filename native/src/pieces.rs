//! The piece splitter and counter of `sgpe/pieces.py` and `sgpe/corpus/counting.py`.
//!
//! `WordSplitter` there is one regex (`pattern_with`, with `span_regex` before it for
//! superword spans); `Splitter::for_each_piece` walks the same alternatives by hand, with
//! Python's whitespace (`\s`, `str.isspace`, `str.split`), which has U+001C..U+001F that
//! Rust's `char::is_whitespace` lacks. `Counter` adds up the pieces of a corpus fed to it
//! in order, on all cores (rayon over line-aligned parts of each segment), and keeps the
//! order of first occurrence, as `collections.Counter` does.

use std::collections::HashMap;

use crate::error::{Error, Result};
use crate::hash::FxBuild;

use rayon::prelude::*;

/// Python's whitespace: `re`'s `\s` on str, `str.isspace()` and `str.split()` agree on it.
pub use crate::syllables::py_isspace as is_py_space;

/// A set of code points as a dense table (a script's block is a few hundred entries).
#[derive(Debug, Clone, Default)]
pub struct CharSet {
    table: Vec<bool>,
}

impl CharSet {
    /// The set of inclusive code point ranges (as `sgpe.schema.code_point_ranges` gives).
    pub fn from_ranges(ranges: &[(u32, u32)]) -> Result<CharSet> {
        let top = ranges.iter().map(|&(_, hi)| hi).max().unwrap_or(0);
        if top > 0x10FFFF {
            return Err(Error::invalid(format!(
                "code point {top:#X} is beyond U+10FFFF"
            )));
        }
        let mut table = vec![false; top as usize + 1];
        for &(lo, hi) in ranges {
            for cp in lo..=hi {
                table[cp as usize] = true;
            }
        }
        Ok(CharSet { table })
    }

    #[inline]
    pub fn contains(&self, c: char) -> bool {
        self.table.get(c as usize).copied().unwrap_or(false)
    }
}

#[inline]
fn char_at(text: &str, pos: usize) -> Option<char> {
    text.get(pos..).and_then(|s| s.chars().next())
}

/// How pieces are cut (`sgpe.pieces.WordSplitter`'s settings): its piece regex, and the
/// superword span regex before it, written out as a scanner. The counter and the encoder
/// both cut with it; the encoder then caps long pieces (`TextEncoder::pieces`).
#[derive(Clone, Debug)]
pub struct Splitter {
    /// `None`: whitespace pieces, where a word is a run of characters that are not
    /// Python's `\s`; else the word characters of `pieces="script"`.
    pub word_chars: Option<CharSet>,
    pub leading_space: bool,
    /// Superword spans: each schema's span letters (`span_letters`), in the schemas'
    /// order (the regex tries them in that order); empty without superwords.
    pub span_letters: Vec<CharSet>,
    /// `WordSplitter.max_units`: a word of a span has at most this many characters
    /// (`span_regex`), and the encoder cuts a longer piece after every this many units.
    pub max_units: usize,
}

impl Splitter {
    /// A splitter from code point ranges, as `sgpe/_engine.py` passes them.
    pub fn from_ranges(
        word_chars: Option<&[(u32, u32)]>,
        leading_space: bool,
        span_letters: &[Vec<(u32, u32)>],
        max_units: usize,
    ) -> Result<Splitter> {
        Ok(Splitter {
            word_chars: word_chars.map(CharSet::from_ranges).transpose()?,
            leading_space,
            span_letters: span_letters
                .iter()
                .map(|r| CharSet::from_ranges(r))
                .collect::<Result<_, _>>()?,
            max_units,
        })
    }

    #[inline]
    fn is_word(&self, c: char) -> bool {
        match &self.word_chars {
            None => !is_py_space(c),
            Some(set) => set.contains(c),
        }
    }

    /// The end (byte offset) of the run of word characters from `pos`.
    #[inline]
    fn word_end(&self, text: &str, mut pos: usize) -> usize {
        let b = text.as_bytes();
        if self.word_chars.is_none() {
            // Fast path: ASCII bytes other than the six ASCII spaces and 1C..1F.
            while pos < b.len() {
                let x = b[pos];
                if x < 0x80 {
                    if x == b' ' || (0x09..=0x0d).contains(&x) || (0x1c..=0x1f).contains(&x) {
                        return pos;
                    }
                    pos += 1;
                    continue;
                }
                match char_at(text, pos) {
                    Some(c) if !is_py_space(c) => pos += c.len_utf8(),
                    _ => return pos,
                }
            }
            return pos;
        }
        while let Some(c) = char_at(text, pos) {
            if !self.is_word(c) {
                break;
            }
            pos += c.len_utf8();
        }
        pos
    }

    /// One word of a span at `pos`: `L{1,max}(?![^\s])`. Letters are never spaces, so
    /// the word is the whole run of letters, if it is at most `max_units` long and is
    /// followed by a space or the end.
    fn span_word(&self, letters: &CharSet, text: &str, mut pos: usize) -> Option<usize> {
        let mut count = 0;
        while let Some(c) = char_at(text, pos) {
            if !letters.contains(c) {
                if !is_py_space(c) {
                    return None;
                }
                break;
            }
            count += 1;
            if count > self.max_units {
                return None;
            }
            pos += c.len_utf8();
        }
        (count > 0).then_some(pos)
    }

    /// `span_regex` at `pos`: ` ?W(?: W)+` for the first schema that matches.
    fn span_at(&self, text: &str, pos: usize) -> Option<usize> {
        let b = text.as_bytes();
        let first = if b[pos] == b' ' { pos + 1 } else { pos };
        for letters in &self.span_letters {
            let Some(mut end) = self.span_word(letters, text, first) else {
                continue;
            };
            let mut words = 1;
            while end < b.len() && b[end] == b' ' {
                match self.span_word(letters, text, end + 1) {
                    Some(e) => {
                        end = e;
                        words += 1;
                    }
                    None => break,
                }
            }
            if words > 1 {
                return Some(end);
            }
        }
        None
    }

    /// The end of the piece that starts at byte `pos` (`pos < text.len()`).
    #[inline]
    fn piece_end(&self, text: &str, pos: usize) -> usize {
        if !self.span_letters.is_empty() {
            if let Some(end) = self.span_at(text, pos) {
                return end;
            }
        }
        let Some(c) = char_at(text, pos) else {
            return text.len();
        };
        if self.leading_space && c == ' ' {
            // ` ?word| ?[^ \t\n\r]|[\s\S]`: the space joins the word or the one
            // character after it, unless that is one of the four or the text ends.
            return match char_at(text, pos + 1) {
                Some(d) if self.is_word(d) => self.word_end(text, pos + 1),
                Some(d) if !matches!(d, ' ' | '\t' | '\n' | '\r') => pos + 1 + d.len_utf8(),
                _ => pos + 1,
            };
        }
        if self.is_word(c) {
            self.word_end(text, pos)
        } else {
            pos + c.len_utf8()
        }
    }

    /// Calls `f` on every piece of `text` in order (the regex's `findall`, that is
    /// `WordSplitter.raw_pieces`).
    pub fn for_each_piece<'a>(&self, text: &'a str, mut f: impl FnMut(&'a str)) {
        let mut pos = 0;
        while pos < text.len() {
            let end = self.piece_end(text, pos);
            f(&text[pos..end]);
            pos = end;
        }
    }

    /// The pieces of `text` (for tests).
    pub fn pieces<'a>(&self, text: &'a str) -> Vec<&'a str> {
        let mut out = Vec::new();
        self.for_each_piece(text, |p| out.push(p));
        out
    }
}

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
