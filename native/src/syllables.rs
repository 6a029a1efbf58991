//! Layer 1 natively: the table-driven DFA of `sgpe/syllables.py` (`_dfa_longest`,
//! `_dfa_tokens`), run over UTF-8 text.
//!
//! The tables are not written here: `sgpe/_engine.py` reads them from the parsed schema
//! (`sgpe/schemas/*.json`: classes, units, DFA) and hands them over as a [`SchemaSpec`].
//! The Python DFA is tested equal to the grammar regex (`tests/test_syllabify.py`,
//! `tests/test_scripts.py`); this one is tested equal to both (`tests/test_native.py`).
//!
//! Offsets: a token is a byte range of the UTF-8 text plus its range in code points, the
//! unit of Python's string indices.

use std::collections::HashMap;

use crate::error::{Error, Result};
use crate::hash::FxBuild;

mod fast;
use fast::Fast;

/// The class letters a schema may use (`sgpe/schema.py`'s `CLASS_LETTERS`).
pub const CLASS_LETTERS: &str = "CVPHZXMNDRYKL";
/// The class of a pre-base vowel (Thai เ, Lao ເ, ...): it starts a syllable and belongs to
/// the consonant after it (`sgpe/schema.py`'s `PRE_BASE`).
const PRE_BASE: char = 'L';
/// The class of a code point no class of the schema claims: a column of the transition
/// table that is [`NO_STEP`] in every state, so that the DFA step needs no test of its own.
const NO_CLASS: u8 = CLASS_LETTERS.len() as u8;
/// Columns per state in the transition table: the classes and [`NO_CLASS`], rounded up to
/// a power of two.
const COLS: usize = 16;
/// Set in `class_of` on a code point that starts some unit: the DFA looks units up only
/// there, with no second table read per code point.
const UNIT_START: u8 = 0x80;
/// The low bits of a transition: the flags of the state it enters (one read per step).
const ACCEPT: u32 = 1;
const ORPHAN: u32 = 2;
const FLAG_BITS: u32 = 2;
const NO_STEP: u32 = u32::MAX;
const NO_SCHEMA: u8 = u8::MAX;

/// One schema's tables as plain data (what `sgpe/_engine.py` builds from a `Schema`).
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

fn class_index(letter: char) -> Result<u8> {
    CLASS_LETTERS
        .chars()
        .position(|c| c == letter)
        .map(|i| i as u8)
        .ok_or_else(|| {
            Error::invalid(format!(
                "unknown class letter {letter:?}; use one of {CLASS_LETTERS}"
            ))
        })
}

/// `sgpe/schema.py`'s `_check_pre_base`: a pre-base vowel is read only from the start
/// state, and the state it enters accepts only as an orphan, so that no syllable ends in
/// the vowel that belongs to the consonant after it.
fn check_pre_base(
    spec: &SchemaSpec,
    flags: &[u32],
    state: &impl Fn(&str) -> Result<u16>,
) -> Result<()> {
    for (from, edges) in &spec.transitions {
        for (letter, to) in edges {
            if *letter != PRE_BASE {
                continue;
            }
            if *from != spec.start {
                return Err(Error::invalid(format!(
                    "DFA state {from:?} reads a pre-base vowel ({PRE_BASE}) inside a syllable; \
                     only the start state may"
                )));
            }
            if flags[state(to)? as usize] & (ACCEPT | ORPHAN) == ACCEPT {
                return Err(Error::invalid(format!(
                    "DFA state {to:?} accepts a syllable that ends in its pre-base vowel \
                     ({PRE_BASE}); it may accept only as an orphan"
                )));
            }
        }
    }
    Ok(())
}

/// A multi-code-point unit, compared as one masked 128-bit load where it fits (units are
/// two or three code points, at most 12 bytes): no `memcmp` call on the hot path.
#[derive(Debug, Clone)]
struct Unit {
    seq: Box<[u8]>,
    word: u128,
    mask: u128,
    class: u8,
    chars: usize,
}

impl Unit {
    #[inline]
    fn at(&self, b: &[u8], i: usize) -> bool {
        match b.get(i..i + 16) {
            Some(w) if self.seq.len() <= 16 => {
                let mut key = [0u8; 16];
                key.copy_from_slice(w);
                u128::from_le_bytes(key) & self.mask == self.word
            }
            _ => b[i..].starts_with(&self.seq),
        }
    }
}

/// One schema compiled: a dense class table and the DFA as one flat array.
#[derive(Debug, Clone)]
struct Compiled {
    class_of: Vec<u8>, // code point -> class index (NO_CLASS beyond the table or unclaimed), | UNIT_START
    /// The units by their first code point: `unit_group[cp]` is 0 (no unit starts with
    /// it) or 1 + an index into `unit_groups`, whose units keep the order of
    /// `units_longest_first` (longest first, then by code points), so the first that
    /// matches is the one the Python DFA takes.
    unit_group: Vec<u16>,
    unit_groups: Vec<Vec<Unit>>,
    /// `trans[row + class]`, a state's row being `COLS * state`: [`NO_STEP`], or the row of
    /// the next state shifted left by [`FLAG_BITS`] with that state's ACCEPT | ORPHAN bits.
    /// The step reads one entry and needs no second read for the flags.
    trans: Vec<u32>,
    start_row: usize,
}

/// Where [`Compiled::scan`] stopped: the longest accepted prefix (`flags` 0 when none
/// was), and the character it could not take, already decoded (`stop_len` 0 at the end
/// of the text), which the next token starts with when it starts there.
struct Scan {
    end: usize,
    cend: usize,
    flags: u32,
    stop: usize,
    stop_cp: u32,
    stop_len: usize,
}

impl Compiled {
    fn new(spec: &SchemaSpec) -> Result<Compiled> {
        let top = spec
            .classes
            .iter()
            .flat_map(|(_, r)| r.iter().map(|&(_, hi)| hi))
            .max()
            .unwrap_or(0);
        if top > 0x10FFFF {
            return Err(Error::invalid(format!(
                "code point {top:#X} is beyond U+10FFFF"
            )));
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
        let mut unit_group = vec![0u16; class_of.len()];
        let mut unit_groups: Vec<Vec<Unit>> = Vec::new();
        for (seq, class, chars) in &units {
            let Some(first) = seq.chars().next() else {
                continue;
            };
            let c = first as usize;
            if c >= unit_group.len() {
                unit_group.resize(c + 1, 0);
            }
            if c >= class_of.len() {
                class_of.resize(c + 1, NO_CLASS);
            }
            class_of[c] |= UNIT_START;
            if unit_group[c] == 0 {
                unit_groups.push(Vec::new());
                unit_group[c] =
                    u16::try_from(unit_groups.len()).map_err(|_| "too many units".to_string())?;
            }
            let bytes = seq.as_bytes();
            let (mut word, mut mask) = (0u128, 0u128);
            if bytes.len() <= 16 {
                let mut key = [0u8; 16];
                key[..bytes.len()].copy_from_slice(bytes);
                word = u128::from_le_bytes(key);
                mask = if bytes.len() == 16 {
                    u128::MAX
                } else {
                    (1u128 << (8 * bytes.len())) - 1
                };
            }
            unit_groups[unit_group[c] as usize - 1].push(Unit {
                seq: bytes.into(),
                word,
                mask,
                class: *class,
                chars: *chars,
            });
        }
        let mut names: Vec<&str> = spec.transitions.iter().map(|(s, _)| s.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        if names.len() * COLS >= (NO_STEP >> FLAG_BITS) as usize {
            return Err(Error::invalid(format!(
                "too many DFA states ({})",
                names.len()
            )));
        }
        let index: HashMap<&str, u16> = names
            .iter()
            .enumerate()
            .map(|(i, s)| (*s, i as u16))
            .collect();
        let state = |name: &str| -> Result<u16> {
            index.get(name).copied().ok_or_else(|| {
                Error::invalid(format!("DFA state {name:?} is not in the transitions"))
            })
        };
        let mut flags = vec![0u32; names.len()];
        for s in &spec.accept {
            flags[state(s)? as usize] |= ACCEPT;
        }
        for s in &spec.orphan_states {
            flags[state(s)? as usize] |= ORPHAN;
        }
        check_pre_base(spec, &flags, &state)?;
        let mut trans = vec![NO_STEP; names.len() * COLS];
        for (from, edges) in &spec.transitions {
            let f = state(from)? as usize;
            for (letter, to) in edges {
                let t = state(to)? as usize;
                trans[f * COLS + class_index(*letter)? as usize] =
                    ((t * COLS) as u32) << FLAG_BITS | flags[t];
            }
        }
        Ok(Compiled {
            class_of,
            unit_group,
            unit_groups,
            trans,
            start_row: state(&spec.start)? as usize * COLS,
        })
    }

    /// The units starting with `cp` (empty for most code points).
    #[inline]
    fn units_at(&self, cp: u32) -> &[Unit] {
        match self.unit_group.get(cp as usize) {
            Some(&g) if g != 0 => &self.unit_groups[g as usize - 1],
            _ => &[],
        }
    }

    /// The class of the character `cp` (`len` bytes) at byte `i`, a unit that starts
    /// there read whole: (class, bytes, code points).
    #[allow(clippy::inline_always)]
    #[inline(always)]
    fn class_at(&self, b: &[u8], i: usize, cp: u32, len: usize) -> (u8, usize, usize) {
        let cls = self.class_of.get(cp as usize).copied().unwrap_or(NO_CLASS);
        if cls & UNIT_START != 0 {
            if let Some(u) = self.units_at(cp).iter().find(|u| u.at(b, i)) {
                return (u.class, u.seq.len(), u.chars);
            }
        }
        (cls & !UNIT_START, len, 1)
    }

    /// `_dfa_longest` from byte `i` (code point `ci`), whose character `cp` (`len` bytes)
    /// the caller has decoded: the end (bytes, chars) of the longest accepted prefix, and
    /// its last state's flags.
    // Inlined into the token loop: the call and its result in memory cost more than a
    // syllable's few steps.
    #[allow(clippy::inline_always)]
    #[inline(always)]
    fn scan(&self, b: &[u8], mut i: usize, mut ci: usize, mut cp: u32, mut len: usize) -> Scan {
        let mut row = self.start_row;
        let (mut end, mut cend, mut flags) = (i, ci, 0);
        loop {
            let (cls, step, chars) = self.class_at(b, i, cp, len);
            let next = self.trans[row + cls as usize];
            if next == NO_STEP {
                break;
            }
            i += step;
            ci += chars;
            row = (next >> FLAG_BITS) as usize;
            if next & ACCEPT != 0 {
                (end, cend, flags) = (i, ci, next & (ACCEPT | ORPHAN));
            }
            if i >= b.len() {
                len = 0;
                break;
            }
            (cp, len) = decode(b, i);
        }
        Scan {
            end,
            cend,
            flags,
            stop: i,
            stop_cp: cp,
            stop_len: len,
        }
    }
}

/// The code point at byte `i` of valid UTF-8 (a `str`'s bytes, `i` on a character
/// boundary) and its length in bytes: the DFA reads bytes, not `chars()` of a new slice.
// Inlined into every DFA step: a call per character costs more than the decoding.
#[allow(clippy::inline_always)]
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

/// The short tokens of a text (up to 15 bytes, as a 128-bit key whose top byte is the
/// length, so never 0) to their index: open addressing with linear probing in two flat
/// arrays. A text has a few thousand distinct tokens, so the table stays in the cache, and
/// a lookup is one multiply and, nearly always, one compare; a general hash map's hashing
/// and probing cost more than the DFA itself.
struct ShortTable {
    keys: Vec<u128>,
    values: Vec<u32>,
    len: usize,
    shift: u32,
}

impl Default for ShortTable {
    fn default() -> Self {
        const BITS: u32 = 12;
        ShortTable {
            keys: vec![0; 1 << BITS],
            values: vec![0; 1 << BITS],
            len: 0,
            shift: 64 - BITS,
        }
    }
}

impl ShortTable {
    #[inline]
    fn slot(&self, key: u128) -> usize {
        let mixed = (key as u64) ^ ((key >> 64) as u64).rotate_left(29);
        (mixed.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    /// The value of `key`, or `value` after adding it.
    #[inline]
    fn get_or_insert(&mut self, key: u128, value: u32) -> u32 {
        let mask = self.keys.len() - 1;
        let mut i = self.slot(key);
        loop {
            let k = self.keys[i];
            if k == key {
                return self.values[i];
            }
            if k == 0 {
                break;
            }
            i = (i + 1) & mask;
        }
        self.keys[i] = key;
        self.values[i] = value;
        self.len += 1;
        if 2 * self.len > self.keys.len() {
            self.grow();
        }
        value
    }

    fn grow(&mut self) {
        let keys = std::mem::take(&mut self.keys);
        let values = std::mem::take(&mut self.values);
        self.keys = vec![0; 2 * keys.len()];
        self.values = vec![0; 2 * keys.len()];
        self.shift -= 1;
        let mask = self.keys.len() - 1;
        for (k, v) in keys.into_iter().zip(values) {
            if k != 0 {
                let mut i = self.slot(k);
                while self.keys[i] != 0 {
                    i = (i + 1) & mask;
                }
                self.keys[i] = k;
                self.values[i] = v;
            }
        }
    }
}

/// The syllabifier of one setting: a set of schemas (the first that claims a character
/// reads the syllable starting with it) and `leading_space`.
#[derive(Debug, Clone)]
pub struct Syllabifier {
    schemas: Vec<Compiled>,
    schema_of: Vec<u8>, // code point -> index of the first schema claiming it
    leading_space: bool,
    /// The token ends' loop, without leading spaces (whose runs it does not model).
    fast: Option<Fast>,
}

impl Syllabifier {
    pub fn new(specs: &[SchemaSpec], leading_space: bool) -> Result<Syllabifier> {
        if specs.is_empty() || specs.len() >= NO_SCHEMA as usize {
            return Err(Error::invalid(format!(
                "need 1 to 254 schemas, got {}",
                specs.len()
            )));
        }
        let schemas = specs
            .iter()
            .map(Compiled::new)
            .collect::<Result<Vec<_>, _>>()?;
        let top = schemas.iter().map(|s| s.class_of.len()).max().unwrap_or(0);
        let mut schema_of = vec![NO_SCHEMA; top];
        for (k, s) in schemas.iter().enumerate().rev() {
            for (cp, &cls) in s.class_of.iter().enumerate() {
                if cls & !UNIT_START != NO_CLASS {
                    schema_of[cp] = k as u8;
                }
            }
        }
        let fast = if leading_space {
            None
        } else {
            Fast::new(&schemas, &schema_of)
        };
        Ok(Syllabifier {
            schemas,
            schema_of,
            leading_space,
            fast,
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

    /// The token that starts at byte `start` (code point `cstart`) and whose syllable
    /// starts at `pos` (`cpos`) with the character `cp` (`len` bytes): `start` is before
    /// `pos` only by a pending leading space. Also the character after the token when the
    /// DFA decoded it already.
    #[allow(clippy::inline_always)]
    #[inline(always)]
    fn token_at(
        &self,
        text: &str,
        (start, cstart): (usize, usize),
        (pos, cpos): (usize, usize),
        (cp, len): (u32, usize),
    ) -> (Token, Option<(u32, usize)>) {
        let schema = match self.schema_of.get(cp as usize) {
            Some(&k) if k != NO_SCHEMA => Some(&self.schemas[k as usize]),
            _ => None,
        };
        match schema.map(|s| s.scan(text.as_bytes(), pos, cpos, cp, len)) {
            Some(s) if s.flags != 0 => {
                let ahead = (s.stop == s.end && s.stop_len != 0).then_some((s.stop_cp, s.stop_len));
                let token = Token {
                    start,
                    end: s.end,
                    char_start: cstart,
                    char_end: s.cend,
                    kind: if s.flags & ORPHAN != 0 {
                        Kind::Orphan
                    } else {
                        Kind::Syllable
                    },
                };
                (token, ahead)
            }
            _ => {
                // No accepting state: one passthrough character (with its pending space).
                let end = pos + len;
                let all_space = text[start..end].chars().all(py_isspace);
                let token = Token {
                    start,
                    end,
                    char_start: cstart,
                    char_end: cpos + 1,
                    kind: if all_space {
                        Kind::Whitespace
                    } else {
                        Kind::Passthrough
                    },
                };
                (token, None)
            }
        }
    }

    /// The tokens of `text`, calling `emit` for each (`_dfa_tokens` of `sgpe/syllables.py`).
    // Inlined into each caller, so that `emit` is inlined into the loop: one call per token
    // would cost as much as the token's DFA steps.
    #[inline]
    pub fn for_each_token(&self, text: &str, mut emit: impl FnMut(Token)) {
        let b = text.as_bytes();
        let n = b.len();
        let (mut pos, mut cpos) = (0usize, 0usize);
        // The character at `pos` and its length when the scan that stopped there decoded
        // it: a syllable's end is read once, not again as the next token's start.
        let mut ahead: Option<(u32, usize)> = None;
        while pos < n {
            let (mut cp, mut len) = ahead.take().unwrap_or_else(|| decode(b, pos));
            let (mut start, mut cstart) = (pos, cpos);
            if self.leading_space && cp < 0x80 && ls_whitespace(cp as u8 as char) {
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
                (cp, len) = decode(b, pos);
            }
            let (token, next) = self.token_at(text, (start, cstart), (pos, cpos), (cp, len));
            ahead = next;
            pos = token.end;
            cpos = token.char_end;
            emit(token);
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
        let mut short = ShortTable::default();
        let mut long: HashMap<&'a str, u32, FxBuild> = HashMap::default();
        let mut distinct: Vec<&'a str> = Vec::new();
        let mut index = Vec::with_capacity(text.len() / 3 + 1);
        let b = text.as_bytes();
        let mut start = 0usize;
        self.for_each_end::<true>(text, |chunk| {
            for &end in chunk {
                let end = end as usize;
                let len = end - start;
                let next = distinct.len() as u32;
                let k = if len <= 15 {
                    // The token's bytes, its length in the top byte: one 16-byte load where the
                    // text has 16 bytes from the token's start (nearly always), masked.
                    let word = match b.get(start..start + 16) {
                        Some(w) => {
                            let mut key = [0u8; 16];
                            key.copy_from_slice(w);
                            u128::from_le_bytes(key) & ((1u128 << (8 * len)) - 1)
                        }
                        None => {
                            let mut key = [0u8; 16];
                            key[..len].copy_from_slice(&b[start..end]);
                            u128::from_le_bytes(key)
                        }
                    };
                    short.get_or_insert(word | ((len as u128) << 120), next)
                } else {
                    *long.entry(&text[start..end]).or_insert(next)
                };
                if k == next {
                    distinct.push(&text[start..end]);
                }
                index.push(k);
                start = end;
            }
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
