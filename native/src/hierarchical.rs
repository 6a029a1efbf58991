//! The hierarchical trainer's merge loop natively: `HierarchicalEngine` of
//! `sgpe/hierarchical/` (its module docstring describes the two levels), with the same
//! merges, in the same order, with the same counts.
//!
//! The state comes from Python as `build_state` makes it: unit types as strings of symbol
//! ids (the barrier [`LIMIT`] for a character outside the base alphabet), words as strings
//! of symbol ids and placeholders (`FIRST_PLACEHOLDER + unit type`). Part merges act on the
//! unit types (weighted by their occurrences), join merges on the words (weighted by their
//! counts); a value at or above [`LIMIT`] never forms a pair.
//!
//! The choice of each merge is the Python engine's: the pair with the highest count, ties
//! to the smaller pair code (`left << PAIR_SHIFT | right`), then part before join, among
//! the pairs whose kind the syllabifier confirms (`merge_kind`). Python keeps a floor and a
//! pool in front of its heap to keep the heap small; here one lazy max-heap holds every
//! pair (an entry is refreshed when it comes to the top with a count that shrank, and a
//! count that grows is pushed again), which gives the same best pair.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::error::{Error, Result};
use crate::hash::FxMap;
use crate::syllables::{py_isspace, Kind, Syllabifier};
use crate::word_store::{WordStore, NONE};

/// Symbol ids are below this; placeholders and the barrier are at or above it
/// (`_LIMIT` of `sgpe/hierarchical/`).
pub const LIMIT: u32 = 0x80000;
/// The placeholder of unit type 0 (`_FIRST_PLACEHOLDER`).
pub const FIRST_PLACEHOLDER: u32 = LIMIT + 1;
/// `PAIR_SHIFT` of `sgpe/hierarchical/rules.py`.
pub const PAIR_SHIFT: u32 = 20;
const PAIR_MASK: u64 = (1 << PAIR_SHIFT) - 1;
/// `MAX_SUPERWORD_WORDS` of `sgpe/pieces.py`.
pub const MAX_SUPERWORD_WORDS: usize = 4;
pub const PART: u8 = 0;
pub const JOIN: u8 = 1;

#[inline]
fn pair_code(a: u32, b: u32) -> u64 {
    (u64::from(a) << PAIR_SHIFT) | u64::from(b)
}

#[inline]
fn split_code(code: u64) -> (u32, u32) {
    ((code >> PAIR_SHIFT) as u32, (code & PAIR_MASK) as u32)
}

/// The superword spans (`SuperwordSpans`): each span as the indexes of its words, how
/// often it occurs, and the vocabulary size (symbols) at which the words become the spans.
#[derive(Debug, Clone, Default)]
pub struct Spans {
    pub words: Vec<Vec<u32>>,
    pub counts: Vec<i64>,
    pub from_symbols: usize,
}

/// The initial state, as `build_state` makes it (the translation already applied to the
/// words: a unit type that is one joinable symbol from the start stands as that symbol).
#[derive(Debug, Clone, Default)]
pub struct State {
    pub symbols: Vec<String>,
    pub unit_parts: Vec<Vec<u32>>,
    pub unit_weight: Vec<i64>,
    pub unit_joinable: Vec<bool>,
    pub words: Vec<Vec<u32>>,
    pub counts: Vec<i64>,
}

/// Why a resumed merge does not fit: its index in the checkpoint and its count here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mismatch {
    pub index: usize,
    pub count: i64,
}

/// One merge as the loop reports it: the pair, its kind, its count when chosen, and the
/// seconds since the loop started.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Merge {
    pub left: u32,
    pub right: u32,
    pub kind: u8,
    pub count: i64,
    pub elapsed: f64,
}

/// Why [`Engine::run`] returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// The vocabulary is full, or no pair (counted `min_freq` times) is left.
    Done,
    /// A batch limit (merges, seconds) or a checkpoint step: call again to go on.
    Batch,
}

/// Heap entry: highest count first, then the smaller pair code, then part before join.
type Entry = (i64, Reverse<u64>, Reverse<u8>);

pub struct Engine {
    syll: Syllabifier,
    pub symbols: Vec<String>,
    symbol_id: FxMap<String, u32>,
    unit_parts: Vec<Vec<u32>>,
    unit_weight: Vec<i64>,
    unit_joinable: Vec<bool>,
    words: WordStore,
    counts: Vec<i64>,
    spans: Option<Spans>,
    pc: [FxMap<u64, i64>; 2],
    /// pair -> where it may occur: unit types (part level), slots of the word store (join
    /// level). Entries go stale as merges consume pairs; a merge checks each.
    where_: [FxMap<u64, Vec<u32>>; 2],
    /// unit type -> the slots that hold its placeholder.
    unit_slots: Vec<Vec<u32>>,
    heap: BinaryHeap<Entry>,
    checked: FxMap<u64, bool>,
    whole: Vec<Option<bool>>,
    pub merges: Vec<(u32, u32, u8)>,
    pub merge_counts: Vec<i64>,
    pub elapsed: Vec<f64>,
    start: Option<std::time::Instant>,
    // (pair code << 1 | kind) of the pairs whose count grew in this merge; a list sorted
    // and deduplicated once per merge (a map's clear costs its capacity every merge).
    grown: Vec<u64>,
    text: String,               // a buffer for merge_kind
    new_pairs: Vec<(u64, u64)>, // a buffer for the (slot, pair) a completed unit makes
}

#[inline]
fn pairs_of(s: &[u32]) -> impl Iterator<Item = u64> + '_ {
    s.windows(2)
        .filter(|w| w[0] < LIMIT && w[1] < LIMIT)
        .map(|w| pair_code(w[0], w[1]))
}

#[inline]
fn contains_pair(s: &[u32], a: u32, b: u32) -> bool {
    s.windows(2).any(|w| w[0] == a && w[1] == b)
}

/// `str.replace` of the pair `a b` by `new`: non-overlapping, left to right. Also the
/// positions in `old` where it was replaced.
fn replace_pair(old: &[u32], a: u32, b: u32, new: u32, at: &mut Vec<usize>) -> Vec<u32> {
    at.clear();
    let mut out = Vec::with_capacity(old.len());
    let mut i = 0;
    while i < old.len() {
        if i + 1 < old.len() && old[i] == a && old[i + 1] == b {
            at.push(i);
            out.push(new);
            i += 2;
        } else {
            out.push(old[i]);
            i += 1;
        }
    }
    out
}

/// `_Wholeness` of one symbol: is it a run of whole joinable units?
pub fn is_whole(syll: &Syllabifier, text: &str) -> bool {
    let mut ok = true;
    syll.for_each_token(text, |t| {
        ok = ok
            && match t.kind {
                Kind::Syllable => true,
                // `joinable_span`: a passthrough character that no schema classifies.
                Kind::Passthrough => text[t.start..t.end]
                    .chars()
                    .next_back()
                    .is_some_and(|c| !syll.classifies(c)),
                Kind::Orphan | Kind::Whitespace => false,
            };
    });
    ok
}

/// `merge_kind` of two whole symbols: `JOIN` when the units of `left + right` have a
/// boundary where `left` ends, else `PART` (`text` is a buffer to reuse).
pub fn boundary_kind(syll: &Syllabifier, left: &str, right: &str, text: &mut String) -> u8 {
    let n = left.chars().count();
    text.clear();
    text.push_str(left);
    text.push_str(right);
    // The first unit that reaches the end of `left` decides: ending there, a boundary.
    let mut kind = None;
    syll.for_each_token(text, |t| {
        if kind.is_none() && t.char_end >= n {
            kind = Some(if t.char_end == n { JOIN } else { PART });
        }
    });
    kind.unwrap_or(PART)
}

/// `merge_kind` of each pair of strings (a vocabulary's merges, which a loaded file does
/// not label): `PART` or `JOIN`, as the trainer's legality check answers them.
pub fn merge_kinds(syll: Syllabifier, pairs: &[(String, String)]) -> Result<Vec<u8>> {
    let mut index: FxMap<&str, u32> = FxMap::default();
    let mut symbols: Vec<String> = Vec::new();
    let mut ids = Vec::with_capacity(pairs.len());
    for (a, b) in pairs {
        let mut pair = [0u32; 2];
        for (k, s) in [a, b].into_iter().enumerate() {
            let next = index.len() as u32;
            pair[k] = *index.entry(s.as_str()).or_insert_with(|| {
                symbols.push(s.clone());
                next
            });
        }
        ids.push((pair[0], pair[1]));
    }
    let state = State {
        symbols,
        ..State::default()
    };
    let mut engine = Engine::new(syll, state, None)?;
    Ok(ids
        .into_iter()
        .map(|(a, b)| engine.merge_kind(a, b))
        .collect())
}

impl Engine {
    pub fn new(syll: Syllabifier, state: State, spans: Option<Spans>) -> Result<Engine> {
        let State {
            symbols,
            unit_parts,
            unit_weight,
            unit_joinable,
            words,
            counts,
        } = state;
        let n_units = unit_parts.len();
        if unit_weight.len() != n_units || unit_joinable.len() != n_units {
            return Err("unit_parts, unit_weight and unit_joinable differ in length".into());
        }
        if words.len() != counts.len() {
            return Err("words and counts differ in length".into());
        }
        if symbols.len() >= LIMIT as usize {
            return Err(Error::invalid(format!("more than {LIMIT} base symbols")));
        }
        let n_symbols = symbols.len() as u32;
        let bad = |v: u32| v >= n_symbols && v < LIMIT;
        if unit_parts.iter().flatten().any(|&v| bad(v) || v > LIMIT) {
            return Err("a unit holds an id that is no symbol".into());
        }
        let n_codes = u64::from(FIRST_PLACEHOLDER) + n_units as u64;
        if words
            .iter()
            .flatten()
            .any(|&v| bad(v) || u64::from(v) >= n_codes)
        {
            return Err("a word holds an id that is no symbol or placeholder".into());
        }
        let spans = spans.filter(|s| !s.words.is_empty());
        if let Some(s) = &spans {
            if s.words.len() != s.counts.len() {
                return Err("span words and span counts differ in length".into());
            }
            if s.words.iter().flatten().any(|&i| i as usize >= words.len()) {
                return Err("a span holds a word index out of range".into());
            }
        }
        let symbol_id = symbols
            .iter()
            .enumerate()
            .map(|(i, s)| (s.clone(), i as u32))
            .collect();
        let mut engine = Engine {
            syll,
            whole: vec![None; symbols.len()],
            symbols,
            symbol_id,
            unit_parts,
            unit_weight,
            unit_joinable,
            words: WordStore::new(&words).ok_or("the words hold more than 2**32 symbols")?,
            counts,
            spans,
            pc: [FxMap::default(), FxMap::default()],
            where_: [FxMap::default(), FxMap::default()],
            unit_slots: Vec::new(),
            heap: BinaryHeap::new(),
            checked: FxMap::default(),
            merges: Vec::new(),
            merge_counts: Vec::new(),
            elapsed: Vec::new(),
            start: None,
            grown: Vec::new(),
            text: String::new(),
            new_pairs: Vec::new(),
        };
        for k in 0..n_units {
            let w = engine.unit_weight[k];
            for p in pairs_of(&engine.unit_parts[k]) {
                *engine.pc[0].entry(p).or_insert(0) += w;
                engine.where_[0].entry(p).or_default().push(k as u32);
            }
        }
        engine.count_words();
        engine.rebuild_heap();
        Ok(engine)
    }

    /// The word level's counts, index and unit index, counted afresh.
    fn count_words(&mut self) {
        self.pc[1].clear();
        self.where_[1].clear();
        // unit type -> the slots of its placeholder, for the unit types a part merge may
        // still complete (joinable, not one symbol yet).
        let mut unit_slots = vec![Vec::new(); self.unit_parts.len()];
        for (slot, v, next) in self.words.slots() {
            if v >= FIRST_PLACEHOLDER {
                let k = (v - FIRST_PLACEHOLDER) as usize;
                if self.unit_joinable[k] && self.unit_parts[k].len() > 1 {
                    unit_slots[k].push(slot);
                }
            }
            if next == NONE {
                continue;
            }
            let w = self.words.sym(next);
            if v < LIMIT && w < LIMIT {
                let p = pair_code(v, w);
                *self.pc[1].entry(p).or_insert(0) += self.counts[self.words.word_of(slot)];
                self.where_[1].entry(p).or_default().push(slot);
            }
        }
        self.unit_slots = unit_slots;
    }

    fn rebuild_heap(&mut self) {
        let mut entries = Vec::with_capacity(self.pc[0].len() + self.pc[1].len());
        for kind in [PART, JOIN] {
            for (&p, &c) in &self.pc[kind as usize] {
                if c > 0 {
                    entries.push((c, Reverse(p), Reverse(kind)));
                }
            }
        }
        self.heap = BinaryHeap::from(entries);
    }

    pub fn symbol_count(&self) -> usize {
        self.symbols.len()
    }

    fn transition_due(&self) -> bool {
        self.spans
            .as_ref()
            .is_some_and(|s| self.symbols.len() >= s.from_symbols)
    }

    /// `_to_spans`: the words become the spans (each the concatenation of its words'
    /// current strings) and the words outside spans, with the counts left to them; the
    /// word level is counted afresh.
    fn enter_spans(&mut self) {
        let Some(spans) = self.spans.take() else {
            return;
        };
        let mut left = self.counts.clone();
        for (idx, &c) in spans.words.iter().zip(&spans.counts) {
            for &i in idx {
                left[i as usize] -= c;
            }
        }
        let old = std::mem::take(&mut self.words);
        let mut words = Vec::new();
        let mut counts = Vec::new();
        for (wi, &c) in left.iter().enumerate() {
            if c > 0 {
                words.push(old.word(wi));
                counts.push(c);
            }
        }
        for (idx, &c) in spans.words.iter().zip(&spans.counts) {
            words.push(
                idx.iter()
                    .filter(|&&i| (i as usize) < old.count())
                    .flat_map(|&i| old.word(i as usize))
                    .collect(),
            );
            counts.push(c);
        }
        // At most the slots there were: each span's words are counted out of `left`.
        self.words = WordStore::new(&words).unwrap_or_default();
        self.counts = counts;
        self.count_words();
        self.checked.clear();
        self.rebuild_heap();
    }

    // ------------------------------------------------------------------ legality
    /// `_Wholeness`: is this symbol a run of whole joinable units?
    fn whole(&mut self, id: u32) -> bool {
        let i = id as usize;
        if let Some(Some(hit)) = self.whole.get(i) {
            return *hit;
        }
        let ok = is_whole(&self.syll, &self.symbols[i]);
        if self.whole.len() <= i {
            self.whole.resize(i + 1, None);
        }
        self.whole[i] = Some(ok);
        ok
    }

    /// `merge_kind` of two symbols.
    pub fn merge_kind(&mut self, a: u32, b: u32) -> u8 {
        if !(self.whole(a) && self.whole(b)) {
            return PART;
        }
        let (left, right) = (&self.symbols[a as usize], &self.symbols[b as usize]);
        boundary_kind(&self.syll, left, right, &mut self.text)
    }

    /// `_legal`: the syllabifier confirms the kind, and after the superword transition a
    /// join across a space makes a superword of at most [`MAX_SUPERWORD_WORDS`] words.
    fn legal(&mut self, code: u64, kind: u8) -> bool {
        let key = (code << 1) | u64::from(kind);
        if let Some(&ok) = self.checked.get(&key) {
            return ok;
        }
        let (a, b) = split_code(code);
        let mut ok = self.merge_kind(a, b) == kind;
        if ok && kind == JOIN && self.spans.is_none() && self.symbols[b as usize].contains(' ') {
            let words = self.symbols[a as usize]
                .chars()
                .chain(self.symbols[b as usize].chars())
                .scan(true, |space_before, c| {
                    let starts = !py_isspace(c) && *space_before;
                    *space_before = py_isspace(c);
                    Some(starts)
                })
                .filter(|&s| s)
                .count();
            ok = words <= MAX_SUPERWORD_WORDS;
        }
        self.checked.insert(key, ok);
        ok
    }

    fn pop_best(&mut self) -> Option<(u64, u8, i64)> {
        while let Some(&(c, Reverse(code), Reverse(kind))) = self.heap.peek() {
            let actual = self.pc[kind as usize].get(&code).copied().unwrap_or(0);
            self.heap.pop();
            if actual != c {
                if actual > 0 {
                    self.heap.push((actual, Reverse(code), Reverse(kind)));
                }
                continue;
            }
            if self.legal(code, kind) {
                return Some((code, kind, actual));
            }
        }
        None
    }

    // ------------------------------------------------------------------ merging
    fn new_symbol(&mut self, a: u32, b: u32) -> Result<u32> {
        let merged = format!("{}{}", self.symbols[a as usize], self.symbols[b as usize]);
        if let Some(&id) = self.symbol_id.get(&merged) {
            return Ok(id);
        }
        let id = self.symbols.len();
        if id >= LIMIT as usize {
            return Err(Error::VocabLimit {
                limit: LIMIT as usize,
            });
        }
        self.symbols.push(merged.clone());
        self.symbol_id.insert(merged, id as u32);
        Ok(id as u32)
    }

    /// Merge the pair everywhere it is counted (`apply`).
    pub fn apply(&mut self, code: u64, kind: u8) -> Result<()> {
        let (a, b) = split_code(code);
        let new = self.new_symbol(a, b)?;
        self.merges.push((a, b, kind));
        self.grown.clear();
        if kind == PART {
            self.apply_part(a, b, new);
        } else {
            self.apply_join(a, b, new);
        }
        self.pc[kind as usize].remove(&code);
        let mut grown = std::mem::take(&mut self.grown);
        grown.sort_unstable();
        grown.dedup();
        for &key in &grown {
            let (p, k) = (key >> 1, (key & 1) as u8);
            let c = self.pc[k as usize].get(&p).copied().unwrap_or(0);
            if c > 0 {
                self.heap.push((c, Reverse(p), Reverse(k)));
            }
        }
        self.grown = grown;
        Ok(())
    }

    /// Count the join pair `p` that starts at `slot` of the word store.
    #[inline]
    fn add_join(&mut self, p: u64, c: i64, slot: u32) {
        *self.pc[1].entry(p).or_insert(0) += c;
        self.where_[1].entry(p).or_default().push(slot);
        self.grown.push((p << 1) | 1);
    }

    fn apply_part(&mut self, a: u32, b: u32, new: u32) {
        let code = pair_code(a, b);
        let list = self.where_[0].remove(&code).unwrap_or_default();
        let mut at = Vec::new();
        for k in list {
            let ku = k as usize;
            if !contains_pair(&self.unit_parts[ku], a, b) {
                continue; // a stale index entry
            }
            let nw = replace_pair(&self.unit_parts[ku], a, b, new, &mut at);
            let w = self.unit_weight[ku];
            for p in pairs_of(&self.unit_parts[ku]) {
                *self.pc[0].entry(p).or_insert(0) -= w;
            }
            for p in pairs_of(&nw) {
                *self.pc[0].entry(p).or_insert(0) += w;
                self.where_[0].entry(p).or_default().push(k);
                let (x, y) = split_code(p);
                if x == new || y == new {
                    self.grown.push(p << 1);
                }
            }
            let complete = nw.len() == 1 && self.unit_joinable[ku];
            self.unit_parts[ku] = nw;
            if complete {
                self.complete(ku, new);
            }
        }
    }

    /// `_complete`: unit type `k` is now one symbol; it enters the words as that symbol,
    /// and only the pairs next to its positions are new (pairs touching a placeholder
    /// were never counted).
    fn complete(&mut self, k: usize, symbol: u32) {
        let list = std::mem::take(&mut self.unit_slots[k]);
        for &slot in &list {
            self.words.set(slot, symbol);
        }
        // Each new pair once: a pair between two of the slots is found from both.
        let mut found = std::mem::take(&mut self.new_pairs);
        found.clear();
        for &slot in &list {
            for left in [self.words.prev(slot), slot] {
                if left == NONE || found.last().is_some_and(|&(s, _)| s >= u64::from(left)) {
                    continue;
                }
                let right = self.words.next(left);
                if right == NONE {
                    continue;
                }
                let (x, y) = (self.words.sym(left), self.words.sym(right));
                if x < LIMIT && y < LIMIT {
                    found.push((u64::from(left), pair_code(x, y)));
                }
            }
        }
        for &(left, p) in &found {
            let left = left as u32;
            self.add_join(p, self.counts[self.words.word_of(left)], left);
        }
        self.new_pairs = found;
        self.unit_slots[k] = list;
    }

    /// The hot loop of training: only the pairs next to a replaced occurrence change.
    /// The occurrences, slot by slot in order, are those `str.replace` finds: left to
    /// right in each word, not overlapping (a slot the previous join took is gone).
    fn apply_join(&mut self, a: u32, b: u32, new: u32) {
        let code = pair_code(a, b);
        let mut list = self.where_[1].remove(&code).unwrap_or_default();
        list.sort_unstable();
        list.dedup();
        for slot in list {
            if self.words.sym(slot) != a {
                continue; // a stale index entry: an earlier merge consumed the pair here
            }
            let right = self.words.next(slot);
            if right == NONE || self.words.sym(right) != b {
                continue;
            }
            let c = self.counts[self.words.word_of(slot)];
            // The old pairs before, of and after the occurrence go; the new symbol's come.
            let (before, after) = (self.words.prev(slot), self.words.next(right));
            let lose = |x: u32, y: u32, pc: &mut FxMap<u64, i64>| {
                if x < LIMIT && y < LIMIT {
                    *pc.entry(pair_code(x, y)).or_insert(0) -= c;
                }
            };
            if before != NONE {
                lose(self.words.sym(before), a, &mut self.pc[1]);
            }
            lose(a, b, &mut self.pc[1]);
            if after != NONE {
                lose(b, self.words.sym(after), &mut self.pc[1]);
            }
            self.words.join(slot, new);
            if before != NONE {
                let x = self.words.sym(before);
                if x < LIMIT {
                    self.add_join(pair_code(x, new), c, before);
                }
            }
            if after != NONE {
                let y = self.words.sym(after);
                if y < LIMIT {
                    self.add_join(pair_code(new, y), c, slot);
                }
            }
        }
    }

    // ------------------------------------------------------------------ loop
    /// Replay a checkpoint's merges (`run`'s `resume`): each must be counted at least
    /// `min_freq` times here, else the first that is not is returned.
    pub fn resume(
        &mut self,
        merges: &[(String, String, u8)],
        min_freq: i64,
    ) -> Result<Option<Mismatch>> {
        for (index, (left, right, kind)) in merges.iter().enumerate() {
            if self.transition_due() {
                self.enter_spans();
            }
            let pair = match (self.symbol_id.get(left), self.symbol_id.get(right)) {
                (Some(&a), Some(&b)) if *kind <= JOIN => Some(pair_code(a, b)),
                _ => None,
            };
            let count = pair
                .and_then(|p| self.pc[*kind as usize].get(&p).copied())
                .unwrap_or(0);
            match pair {
                Some(p) if count >= min_freq => {
                    self.apply(p, *kind)?;
                    self.merge_counts.push(count);
                    self.elapsed.push(0.0);
                }
                _ => return Ok(Some(Mismatch { index, count })),
            }
        }
        if !merges.is_empty() {
            self.rebuild_heap();
        }
        Ok(None)
    }

    /// The merge loop (`run`), until the vocabulary holds `target_symbols` symbols or no
    /// pair counted `min_freq` times is left ([`Stop::Done`]), or until this call made
    /// `max_merges` merges, ran `max_seconds`, or reached a step that is a multiple of
    /// `checkpoint_every` (when not 0) ([`Stop::Batch`]: call again to go on).
    pub fn run(
        &mut self,
        target_symbols: usize,
        min_freq: i64,
        max_merges: usize,
        max_seconds: f64,
        checkpoint_every: usize,
    ) -> Result<Stop> {
        let called = std::time::Instant::now();
        let start = *self.start.get_or_insert(called);
        let mut made = 0usize;
        while self.symbols.len() < target_symbols {
            if self.transition_due() {
                self.enter_spans();
            }
            let Some((code, kind, count)) = self.pop_best() else {
                return Ok(Stop::Done);
            };
            if count < min_freq {
                return Ok(Stop::Done);
            }
            self.apply(code, kind)?;
            self.merge_counts.push(count);
            self.elapsed.push(start.elapsed().as_secs_f64());
            made += 1;
            let step = self.merges.len();
            if (checkpoint_every > 0 && step.is_multiple_of(checkpoint_every))
                || made >= max_merges
                || (made.is_multiple_of(64) && called.elapsed().as_secs_f64() >= max_seconds)
            {
                return Ok(if self.symbols.len() < target_symbols {
                    Stop::Batch
                } else {
                    Stop::Done
                });
            }
        }
        Ok(Stop::Done)
    }

    /// How often each symbol is used in the final segmentation of the corpus (`usage`).
    pub fn usage(&self) -> Vec<i64> {
        let mut freq = vec![0i64; self.symbols.len()];
        for (slot, v, _) in self.words.slots() {
            if v < LIMIT {
                freq[v as usize] += self.counts[self.words.word_of(slot)];
            }
        }
        for (k, parts) in self.unit_parts.iter().enumerate() {
            if parts.len() == 1 && self.unit_joinable[k] {
                continue; // counted in the words
            }
            let w = self.unit_weight[k];
            for &v in parts {
                if v < LIMIT {
                    freq[v as usize] += w;
                }
            }
        }
        freq
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syllables::SchemaSpec;

    /// A toy script: consonants c, d; vowel sign i; virama h. Syllable C (H C)* P?.
    fn toy() -> Syllabifier {
        let spec = SchemaSpec {
            classes: vec![
                ('C', vec![(u32::from('c'), u32::from('d'))]),
                ('P', vec![(u32::from('i'), u32::from('i'))]),
                ('H', vec![(u32::from('h'), u32::from('h'))]),
            ],
            units: vec![],
            start: "S".into(),
            transitions: vec![
                ("S".into(), vec![('C', "C".into()), ('P', "O".into())]),
                ("C".into(), vec![('H', "H".into()), ('P', "V".into())]),
                ("H".into(), vec![('C', "C".into())]),
                ("V".into(), vec![]),
                ("O".into(), vec![]),
            ],
            accept: vec!["C".into(), "H".into(), "V".into(), "O".into()],
            orphan_states: vec!["O".into()],
        };
        Syllabifier::new(&[spec], false).unwrap()
    }

    fn sym(s: &[&str]) -> Vec<String> {
        s.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn kinds_follow_the_syllables() {
        let symbols = sym(&["c", "d", "i", "h", "ci", "x", "ch"]);
        let state = State {
            symbols,
            ..State::default()
        };
        let mut e = Engine::new(toy(), state, None).unwrap();
        assert_eq!(e.merge_kind(0, 2), PART); // c + i: one syllable
        assert_eq!(e.merge_kind(4, 1), JOIN); // ci + d: two whole syllables
        assert_eq!(e.merge_kind(0, 1), JOIN); // c + d
        assert_eq!(e.merge_kind(6, 1), PART); // ch + d = chd, one syllable
        assert_eq!(e.merge_kind(2, 0), PART); // an orphan never joins
        assert_eq!(e.merge_kind(5, 0), JOIN); // x (unknown to the schema) + c
    }

    #[test]
    fn parts_complete_units_then_words_join() {
        // Unit types: "ci" (weight 5), "d" (5); words: [ph0, d] x5.
        let symbols = sym(&["c", "d", "i"]);
        let state = State {
            symbols,
            unit_parts: vec![vec![0, 2], vec![1]],
            unit_weight: vec![5, 5],
            unit_joinable: vec![true, true],
            words: vec![vec![FIRST_PLACEHOLDER, 1]],
            counts: vec![5],
        };
        let mut e = Engine::new(toy(), state, None).unwrap();
        assert_eq!(e.run(10, 1, usize::MAX, f64::MAX, 0), Ok(Stop::Done));
        assert_eq!(e.merges, vec![(0, 2, PART), (3, 1, JOIN)]);
        assert_eq!(e.merge_counts, vec![5, 5]);
        assert_eq!(e.symbols[4], "cid");
        assert_eq!(e.usage(), vec![0, 0, 0, 0, 5]);
    }

    #[test]
    fn overlapping_pairs_count_each_position_and_merge_left_to_right() {
        let symbols = sym(&["x"]);
        let state = State {
            symbols,
            unit_parts: vec![vec![0]],
            unit_weight: vec![3],
            unit_joinable: vec![true],
            words: vec![vec![0, 0, 0]],
            counts: vec![1],
        };
        let mut e = Engine::new(toy(), state, None).unwrap();
        assert_eq!(e.run(2, 1, usize::MAX, f64::MAX, 0), Ok(Stop::Done));
        assert_eq!(e.merge_counts, vec![2]);
        assert_eq!(e.usage(), vec![1, 1]);
    }
}
