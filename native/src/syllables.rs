//! Layer 1 natively: the table-driven DFA of `sgpe/syllables.py` (`_dfa_longest`,
//! `_dfa_tokens`), run over UTF-8 text.
//!
//! The tables are not written here: `sgpe/engine.py` reads them from the parsed schema
//! (`sgpe/schemas/*.json`: classes, units, DFA) and hands them over as a [`SchemaSpec`].
//! The Python DFA is tested equal to the grammar regex (`tests/test_syllabify.py`,
//! `tests/test_scripts.py`); this one is tested equal to both (`tests/test_native.py`).
//!
//! Offsets: a token is a byte range of the UTF-8 text plus its range in code points, the
//! unit of Python's string indices.

use std::collections::HashMap;

use crate::encoder::FxBuild;

/// The class letters a schema may use (`sgpe/schema.py`'s `CLASS_LETTERS`).
pub const CLASS_LETTERS: &str = "CVPHZXMNDRYK";
const N_CLASSES: usize = 12;
const NO_CLASS: u8 = u8::MAX;
const NO_STATE: u16 = u16::MAX;
const NO_SCHEMA: u8 = u8::MAX;

/// One schema's tables as plain data (what `sgpe/engine.py` builds from a `Schema`).
#[derive(Debug, Clone, Default)]
pub struct SchemaSpec {
    /// class letter -> inclusive code point ranges
    pub classes: Vec<(char, Vec<(u32, u32)>)>,
    /// (class letter, sequence) of each multi-code-point unit
    pub units: Vec<(char, String)>,
    pub start: String,
    /// state -> (class letter -> state)
    pub transitions: Vec<(String, Vec<(char, String)>)>,
    pub accept: Vec<String>,
    pub orphan_states: Vec<String>,
}

/// The token kinds of `sgpe/syllables.py` (`Kind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Syllable,
    Orphan,
    Passthrough,
    Whitespace,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Syllable => "syllable",
            Kind::Orphan => "orphan",
            Kind::Passthrough => "passthrough",
            Kind::Whitespace => "whitespace",
        }
    }
}

/// A text's tokens as indices into its distinct token strings ([`Syllabifier::interned`]).
#[derive(Debug, Clone, Default)]
pub struct Interned<'a> {
    pub distinct: Vec<&'a str>,
    pub index: Vec<u32>,
}

/// One token: byte range, code point range, kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token {
    pub start: usize,
    pub end: usize,
    pub char_start: usize,
    pub char_end: usize,
    pub kind: Kind,
}

fn class_index(letter: char) -> Result<u8, String> {
    CLASS_LETTERS
        .chars()
        .position(|c| c == letter)
        .map(|i| i as u8)
        .ok_or_else(|| format!("unknown class letter {letter:?}; use one of {CLASS_LETTERS}"))
}

/// One schema compiled: a dense class table and the DFA as arrays.
#[derive(Debug, Clone)]
struct Compiled {
    class_of: Vec<u8>, // code point -> class index (NO_CLASS beyond the table or unclaimed)
    units: Vec<(String, u8, usize)>, // longest first, then by code points, as `units_longest_first` (sequence, class, code points)
    unit_first: Vec<bool>,           // code point -> whether some unit starts with it
    trans: Vec<[u16; N_CLASSES]>,
    start: u16,
    accept: Vec<bool>,
    orphan: Vec<bool>,
}

impl Compiled {
    fn new(spec: &SchemaSpec) -> Result<Compiled, String> {
        let top = spec
            .classes
            .iter()
            .flat_map(|(_, r)| r.iter().map(|&(_, hi)| hi))
            .max()
            .unwrap_or(0);
        if top > 0x10FFFF {
            return Err(format!("code point {top:#X} is beyond U+10FFFF"));
        }
        let mut class_of = vec![NO_CLASS; top as usize + 1];
        for (letter, ranges) in &spec.classes {
            let k = class_index(*letter)?;
            for &(lo, hi) in ranges {
                for cp in lo..=hi {
                    class_of[cp as usize] = k;
                }
            }
        }
        let mut units = Vec::with_capacity(spec.units.len());
        for (letter, seq) in &spec.units {
            units.push((seq.clone(), class_index(*letter)?, seq.chars().count()));
        }
        // `Schema.units_longest_first`: by (-length in code points, sequence); Rust's str
        // order is code point order, as Python's.
        units.sort_by(|a, b| b.2.cmp(&a.2).then_with(|| a.0.cmp(&b.0)));
        let mut unit_first = vec![false; class_of.len()];
        for c in units.iter().filter_map(|u| u.0.chars().next()) {
            let c = c as usize;
            if c >= unit_first.len() {
                unit_first.resize(c + 1, false);
            }
            unit_first[c] = true;
        }
        let mut names: Vec<&str> = spec.transitions.iter().map(|(s, _)| s.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        if names.len() >= NO_STATE as usize {
            return Err(format!("too many DFA states ({})", names.len()));
        }
        let index: HashMap<&str, u16> = names
            .iter()
            .enumerate()
            .map(|(i, s)| (*s, i as u16))
            .collect();
        let state = |name: &str| -> Result<u16, String> {
            index
                .get(name)
                .copied()
                .ok_or_else(|| format!("DFA state {name:?} is not in the transitions"))
        };
        let mut trans = vec![[NO_STATE; N_CLASSES]; names.len()];
        for (from, edges) in &spec.transitions {
            let f = state(from)? as usize;
            for (letter, to) in edges {
                trans[f][class_index(*letter)? as usize] = state(to)?;
            }
        }
        let mut accept = vec![false; names.len()];
        for s in &spec.accept {
            accept[state(s)? as usize] = true;
        }
        let mut orphan = vec![false; names.len()];
        for s in &spec.orphan_states {
            orphan[state(s)? as usize] = true;
        }
        Ok(Compiled {
            class_of,
            units,
            unit_first,
            trans,
            start: state(&spec.start)?,
            accept,
            orphan,
        })
    }

    #[inline]
    fn starts_unit(&self, cp: u32) -> bool {
        self.unit_first.get(cp as usize).copied().unwrap_or(false)
    }

    /// `_dfa_longest`: the end (bytes, chars) of the longest accepted prefix at `pos`, and
    /// whether its last state is an orphan state; `None` if no prefix is accepted.
    fn longest(&self, text: &str, pos: usize, cpos: usize) -> Option<(usize, usize, bool)> {
        let b = text.as_bytes();
        let mut state = self.start;
        let mut best = None;
        let (mut i, mut ci) = (pos, cpos);
        while i < b.len() {
            let (cp, mut len) = decode(b, i);
            let mut clen = 1;
            let mut cls = self.class_of.get(cp as usize).copied().unwrap_or(NO_CLASS);
            if self.starts_unit(cp) {
                if let Some((seq, c, n)) = self
                    .units
                    .iter()
                    .find(|u| b[i..].starts_with(u.0.as_bytes()))
                {
                    (len, clen, cls) = (seq.len(), *n, *c);
                }
            }
            if cls == NO_CLASS {
                break;
            }
            let next = self.trans[state as usize][cls as usize];
            if next == NO_STATE {
                break;
            }
            state = next;
            i += len;
            ci += clen;
            if self.accept[state as usize] {
                best = Some((i, ci, self.orphan[state as usize]));
            }
        }
        best
    }
}

/// The code point at byte `i` of valid UTF-8 (a `str`'s bytes, `i` on a character
/// boundary) and its length in bytes: the DFA reads bytes, not `chars()` of a new slice.
#[inline(always)]
pub fn decode(b: &[u8], i: usize) -> (u32, usize) {
    let x = b[i];
    if x < 0x80 {
        return (u32::from(x), 1);
    }
    let c1 = u32::from(b[i + 1] & 0x3F);
    if x < 0xE0 {
        return ((u32::from(x & 0x1F) << 6) | c1, 2);
    }
    let c2 = u32::from(b[i + 2] & 0x3F);
    if x < 0xF0 {
        return ((u32::from(x & 0x0F) << 12) | (c1 << 6) | c2, 3);
    }
    let c3 = u32::from(b[i + 3] & 0x3F);
    ((u32::from(x & 0x07) << 18) | (c1 << 12) | (c2 << 6) | c3, 4)
}

/// Python's `str.isspace` for one character: bidirectional class WS, B or S, or category
/// Zs. Not Rust's `char::is_whitespace` (Unicode White_Space), which leaves out
/// U+001C..U+001F; `tests/test_native.py` checks every code point against Python.
pub fn py_isspace(c: char) -> bool {
    matches!(
        c,
        '\t'..='\r'
            | '\u{1c}'..='\u{20}'
            | '\u{85}'
            | '\u{a0}'
            | '\u{1680}'
            | '\u{2000}'..='\u{200a}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202f}'
            | '\u{205f}'
            | '\u{3000}'
    )
}

/// The characters leading-space handling looks at (`LS_WHITESPACE` in `sgpe/syllables.py`).
#[inline]
fn ls_whitespace(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r')
}

/// The syllabifier of one setting: a set of schemas (the first that claims a character
/// reads the syllable starting with it) and `leading_space`.
#[derive(Debug, Clone)]
pub struct Syllabifier {
    schemas: Vec<Compiled>,
    schema_of: Vec<u8>, // code point -> index of the first schema claiming it
    leading_space: bool,
}

impl Syllabifier {
    pub fn new(specs: &[SchemaSpec], leading_space: bool) -> Result<Syllabifier, String> {
        if specs.is_empty() || specs.len() >= NO_SCHEMA as usize {
            return Err(format!("need 1 to 254 schemas, got {}", specs.len()));
        }
        let schemas = specs
            .iter()
            .map(Compiled::new)
            .collect::<Result<Vec<_>, _>>()?;
        let top = schemas.iter().map(|s| s.class_of.len()).max().unwrap_or(0);
        let mut schema_of = vec![NO_SCHEMA; top];
        for (k, s) in schemas.iter().enumerate().rev() {
            for (cp, &cls) in s.class_of.iter().enumerate() {
                if cls != NO_CLASS {
                    schema_of[cp] = k as u8;
                }
            }
        }
        Ok(Syllabifier {
            schemas,
            schema_of,
            leading_space,
        })
    }

    #[inline]
    fn schema_for(&self, c: char) -> Option<&Compiled> {
        match self.schema_of.get(c as usize) {
            Some(&k) if k != NO_SCHEMA => Some(&self.schemas[k as usize]),
            _ => None,
        }
    }

    /// Whether some schema of this setting classifies `c`.
    pub fn classifies(&self, c: char) -> bool {
        self.schema_for(c).is_some()
    }

    /// The tokens of `text`, calling `emit` for each (`_dfa_tokens` of `sgpe/syllables.py`).
    pub fn for_each_token(&self, text: &str, mut emit: impl FnMut(Token)) {
        let b = text.as_bytes();
        let n = b.len();
        let (mut pos, mut cpos) = (0usize, 0usize);
        while pos < n {
            let Some(mut ch) = char::from_u32(decode(b, pos).0) else {
                break;
            };
            let (mut start, mut cstart) = (pos, cpos);
            if self.leading_space && ls_whitespace(ch) {
                // A run of the four characters: single tokens, except that its last one, a
                // plain space with text after the run, joins the token that follows.
                let mut run_end = pos;
                while run_end < n && matches!(b[run_end], b' ' | b'\t' | b'\n' | b'\r') {
                    run_end += 1; // the four are one byte each
                }
                let pending = b[run_end - 1] == b' ' && run_end < n;
                let singles_end = if pending { run_end - 1 } else { run_end };
                for k in pos..singles_end {
                    emit(Token {
                        start: k,
                        end: k + 1,
                        char_start: cpos + (k - pos),
                        char_end: cpos + (k - pos) + 1,
                        kind: Kind::Whitespace,
                    });
                }
                cpos += singles_end - pos;
                pos = singles_end;
                if !pending {
                    continue;
                }
                start = pos;
                cstart = cpos;
                pos += 1;
                cpos += 1;
                let Some(next) = char::from_u32(decode(b, pos).0) else {
                    break;
                };
                ch = next;
            }
            let found = self.schema_for(ch).and_then(|s| s.longest(text, pos, cpos));
            match found {
                Some((end, cend, orphan)) => {
                    emit(Token {
                        start,
                        end,
                        char_start: cstart,
                        char_end: cend,
                        kind: if orphan { Kind::Orphan } else { Kind::Syllable },
                    });
                    pos = end;
                    cpos = cend;
                }
                None => {
                    // No accepting state: one passthrough character (with its pending space).
                    let end = pos + ch.len_utf8();
                    let all_space = text[start..end].chars().all(py_isspace);
                    emit(Token {
                        start,
                        end,
                        char_start: cstart,
                        char_end: cpos + 1,
                        kind: if all_space {
                            Kind::Whitespace
                        } else {
                            Kind::Passthrough
                        },
                    });
                    pos = end;
                    cpos += 1;
                }
            }
        }
    }

    /// Every token of `text`.
    pub fn tokens(&self, text: &str) -> Vec<Token> {
        let mut out = Vec::with_capacity(text.len() / 4 + 1);
        self.for_each_token(text, |t| out.push(t));
        out
    }

    /// The tokens of `text` as indices into its distinct token strings: what `syllabify`
    /// hands to Python, which then makes one string object per distinct token. Syllables
    /// repeat (a few thousand distinct ones make up most text), and a token of up to 15
    /// bytes (nearly all) is looked up as one 128-bit integer, not as a string.
    pub fn interned<'a>(&self, text: &'a str) -> Interned<'a> {
        let mut short: HashMap<u128, u32, FxBuild> = HashMap::default();
        let mut long: HashMap<&'a str, u32, FxBuild> = HashMap::default();
        let mut distinct: Vec<&'a str> = Vec::new();
        let mut index = Vec::with_capacity(text.len() / 4 + 1);
        let b = text.as_bytes();
        self.for_each_token(text, |t| {
            let s = &text[t.start..t.end];
            let next = distinct.len() as u32;
            let len = s.len();
            let k = if len <= 15 {
                // The token's bytes, its length in the top byte: one 16-byte load where the
                // text has 16 bytes from the token's start (nearly always), masked.
                let word = match b.get(t.start..t.start + 16) {
                    Some(w) => {
                        let mut key = [0u8; 16];
                        key.copy_from_slice(w);
                        u128::from_le_bytes(key) & ((1u128 << (8 * len)) - 1)
                    }
                    None => {
                        let mut key = [0u8; 16];
                        key[..len].copy_from_slice(s.as_bytes());
                        u128::from_le_bytes(key)
                    }
                };
                *short.entry(word | ((len as u128) << 120)).or_insert(next)
            } else {
                *long.entry(s).or_insert(next)
            };
            if k == next {
                distinct.push(s);
            }
            index.push(k);
        });
        Interned { distinct, index }
    }

    /// The token strings (`syllabify`).
    pub fn syllabify<'a>(&self, text: &'a str) -> Vec<&'a str> {
        let mut out = Vec::with_capacity(text.len() / 4 + 1);
        self.for_each_token(text, |t| out.push(&text[t.start..t.end]));
        out
    }
}
