//! The token ends of a [`Syllabifier`] without leading spaces (`offsets`, `bounds`,
//! `syllabify`'s strings): the whole setting as one DFA without stops ([`Fast`]), with
//! the exact reading of `for_each_token` (`super`) wherever the longest-match rule needs
//! it. `tests/test_native.py` checks the ends against the Python engine, on real text and
//! around every unit.

use std::collections::HashMap;

use super::{
    decode, Compiled, Syllabifier, Token, Unit, ACCEPT, COLS, FLAG_BITS, NO_CLASS, NO_SCHEMA,
    NO_STEP, ORPHAN, UNIT_START,
};
use crate::hash::FxBuild;

/// The whole setting as one DFA without stops, for the token ends alone (`offsets`,
/// `bounds`, `syllabify`'s strings): the schemas' states side by side, and where a state
/// has no step for a character but accepts, the step the start would take, marked as a
/// boundary. The loop over a text then takes one table read per character and no branch
/// per token. A character that may start a unit is marked [`UNIT`]: its step is worked out
/// from the schemas' own tables ([`Syllabifier::unit_step`]). A step the longest-match
/// rule cannot take that way is marked [`SLOW`]: a failure in a state that does not
/// accept (the token ends at an earlier accept, or is one passthrough character); the
/// token there is read by [`Syllabifier::token_at`], exactly as `for_each_token` reads it.
#[derive(Debug, Clone)]
pub(super) struct Fast {
    /// code point -> symbol: the code points alike in every schema's class table and in
    /// the schema that claims them (`none_sym` beyond the table).
    sym_of: Vec<u8>,
    none_sym: u8,
    /// `trans[row + symbol]`, a state's row being `n_syms * state`: the next row shifted
    /// left by [`STEP_BITS`], with [`BOUNDARY`], [`SLOW`] and [`UNIT`].
    trans: Vec<u32>,
    n_syms: usize,
    /// The units of every schema by their first code point (as in [`Compiled`]): where
    /// none starts at a [`UNIT`] character, the entry's own step is the answer.
    unit_group: Vec<u16>,
    unit_groups: Vec<Vec<Unit>>,
    /// Per group, a quick no: the offset of the last byte of the units' second code
    /// point, and a bit per value of that byte's low 6 bits among its units. Units are
    /// rare in text while their first code points (vowel signs, a consonant) are not.
    unit_filter: Vec<(usize, u64)>,
    /// The first state of each schema; the schema and own state of each state.
    base: Vec<usize>,
    state_of: Vec<(usize, usize)>,
    /// state -> whether the text may end there (an accepting state, or after a
    /// passthrough character); the start state's row is 0.
    can_end: Vec<bool>,
}

impl Fast {
    /// Whether some unit of some schema starts at byte `i` (its first code point `cp`).
    #[allow(clippy::inline_always)]
    #[inline(always)]
    fn unit_here(&self, b: &[u8], i: usize, cp: u32) -> bool {
        match self.unit_group.get(cp as usize) {
            Some(&g) if g != 0 => {
                let (at, seen) = self.unit_filter[g as usize - 1];
                match b.get(i + at) {
                    Some(&x) if seen >> (x & 63) & 1 == 0 => false,
                    _ => self.unit_groups[g as usize - 1].iter().any(|u| u.at(b, i)),
                }
            }
            _ => false,
        }
    }
}

/// A token ends before this character.
const BOUNDARY: u32 = 1;
/// The longest-match rule needs the exact reading here ([`Fast`]).
const SLOW: u32 = 2;
/// The character may start a unit: [`Syllabifier::unit_step`] gives the step.
const UNIT: u32 = 4;
const STEP_BITS: u32 = 3;

impl Fast {
    /// `None` when the setting has more distinct symbols than a byte holds.
    pub(super) fn new(schemas: &[Compiled], schema_of: &[u8]) -> Option<Fast> {
        let top = schemas.iter().map(|s| s.class_of.len()).max().unwrap_or(0);
        // Each code point's class in every schema and the schema that claims it, a byte
        // each in one 128-bit key (so at most 15 schemas); equal keys, one symbol. Index
        // `top` stands for every code point beyond the tables (key 0: no class anywhere).
        if schemas.len() > 15 {
            return None;
        }
        let mut key = vec![0u128; top + 1];
        for (k, s) in schemas.iter().enumerate() {
            for (to, &cls) in key.iter_mut().zip(&s.class_of) {
                *to |= u128::from(cls ^ NO_CLASS) << (8 * k);
            }
        }
        for (to, &k) in key.iter_mut().zip(schema_of) {
            *to |= u128::from(k.wrapping_add(1)) << 120;
        }
        // Code points come in runs of one key (a block's consonants, the unclaimed ones
        // between blocks): the map is asked once per run.
        let mut ids: HashMap<u128, u16, FxBuild> = HashMap::default();
        let mut last = (u128::MAX, 0u16);
        let mut sym = Vec::with_capacity(top + 1);
        for &k in &key {
            if k != last.0 {
                let next = ids.len() as u16;
                last = (k, *ids.entry(k).or_insert(next));
            }
            sym.push(last.1);
        }
        let n_syms = ids.len();
        if n_syms > 256 {
            return None;
        }
        let mut rep = vec![0usize; n_syms]; // a code point of each symbol
        for (cp, &v) in sym.iter().enumerate() {
            rep[v as usize] = cp;
        }
        // States: 0 the start, 1 after a passthrough character, then each schema's.
        let mut base = Vec::with_capacity(schemas.len());
        let mut state_of = vec![(0, 0); 2];
        for (k, s) in schemas.iter().enumerate() {
            base.push(state_of.len());
            state_of.extend((0..s.trans.len() / COLS).map(|state| (k, state)));
        }
        let n_states = state_of.len();
        if n_states * n_syms >= (u32::MAX >> STEP_BITS) as usize {
            return None;
        }
        let row = |state: usize| ((state * n_syms) as u32) << STEP_BITS;
        let class =
            |k: usize, v: usize| schemas[k].class_of.get(rep[v]).copied().unwrap_or(NO_CLASS);
        // The start's step on each symbol: into the claiming schema, or a passthrough.
        let start: Vec<u32> = (0..n_syms)
            .map(|v| match schema_of.get(rep[v]) {
                Some(&k) if k != NO_SCHEMA => {
                    let (k, cls) = (k as usize, class(k as usize, v));
                    let unit = if cls & UNIT_START != 0 { UNIT } else { 0 };
                    unit | match schemas[k].trans
                        [schemas[k].start_row + (cls & !UNIT_START) as usize]
                    {
                        NO_STEP => row(1),
                        next => row(base[k] + (next >> FLAG_BITS) as usize / COLS),
                    }
                }
                _ => row(1),
            })
            .collect();
        let mut trans = vec![0u32; n_states * n_syms];
        let mut can_end = vec![false; n_states];
        trans[..n_syms].copy_from_slice(&start);
        for (v, &st) in start.iter().enumerate() {
            trans[n_syms + v] = st | BOUNDARY;
        }
        can_end[1] = true;
        for (k, s) in schemas.iter().enumerate() {
            // Each state's flags, from the steps into it (the start's own are never read).
            let mut flags = vec![0u32; s.trans.len() / COLS];
            for &e in &s.trans {
                if e != NO_STEP {
                    flags[(e >> FLAG_BITS) as usize / COLS] = e & (ACCEPT | ORPHAN);
                }
            }
            for (state, &state_flags) in flags.iter().enumerate() {
                let accepts = state_flags & ACCEPT != 0;
                let g = base[k] + state;
                can_end[g] = accepts;
                for v in 0..n_syms {
                    let cls = class(k, v);
                    let unit = if cls & UNIT_START != 0 { UNIT } else { 0 };
                    trans[g * n_syms + v] = unit
                        | match s.trans[state * COLS + (cls & !UNIT_START) as usize] {
                            NO_STEP if accepts => start[v] | BOUNDARY,
                            NO_STEP => SLOW,
                            next => row(base[k] + (next >> FLAG_BITS) as usize / COLS),
                        };
                }
            }
        }
        let mut unit_group = vec![0u16; top];
        let mut unit_groups: Vec<Vec<Unit>> = Vec::new();
        for s in schemas {
            for (cp, &g) in s.unit_group.iter().enumerate() {
                if g != 0 {
                    if unit_group[cp] == 0 {
                        unit_groups.push(Vec::new());
                        unit_group[cp] = u16::try_from(unit_groups.len()).ok()?;
                    }
                    let group = &s.unit_groups[g as usize - 1];
                    unit_groups[unit_group[cp] as usize - 1].extend(group.iter().cloned());
                }
            }
        }
        let unit_filter = unit_groups
            .iter()
            .map(|units| {
                let ats: Vec<(usize, u8)> = units
                    .iter()
                    .filter_map(|u| {
                        let mut chars = std::str::from_utf8(&u.seq).ok()?.char_indices();
                        let (_, first) = chars.next()?;
                        let (at, second) = chars.next()?;
                        debug_assert!(at == first.len_utf8());
                        let last = at + second.len_utf8() - 1;
                        Some((last, u.seq[last]))
                    })
                    .collect();
                match ats.first() {
                    Some(&(at, _)) if ats.len() == units.len() && ats.iter().all(|a| a.0 == at) => {
                        (at, ats.iter().fold(0u64, |m, a| m | 1 << (a.1 & 63)))
                    }
                    _ => (0, u64::MAX), // no filter: every unit is tried
                }
            })
            .collect();
        let none_sym = sym[top] as u8;
        sym.truncate(top);
        Some(Fast {
            sym_of: sym.into_iter().map(|v| v as u8).collect(),
            none_sym,
            trans,
            n_syms,
            unit_group,
            unit_groups,
            unit_filter,
            base,
            state_of,
            can_end,
        })
    }
}

impl Syllabifier {
    /// The step of [`Fast`]'s state `g` on the character `cp` (`len` bytes) at byte `i`,
    /// which may start a unit: (entry, bytes, code points), as `for_each_token` reads it.
    #[inline(never)]
    fn unit_step(
        &self,
        f: &Fast,
        g: usize,
        b: &[u8],
        i: usize,
        cp: u32,
        len: usize,
    ) -> (u32, usize, usize) {
        let row = |k: usize, next: u32| {
            (((f.base[k] + (next >> FLAG_BITS) as usize / COLS) * f.n_syms) as u32) << STEP_BITS
        };
        let passthrough = (f.n_syms as u32) << STEP_BITS;
        // A token starts here: the schema that claims the character reads it.
        let start = |boundary: u32| match self.schema_of.get(cp as usize) {
            Some(&k) if k != NO_SCHEMA => {
                let s = &self.schemas[k as usize];
                let (cls, step, chars) = s.class_at(b, i, cp, len);
                match s.trans[s.start_row + cls as usize] {
                    NO_STEP => (passthrough | boundary, len, 1),
                    next => (row(k as usize, next) | boundary, step, chars),
                }
            }
            _ => (passthrough | boundary, len, 1),
        };
        match g {
            0 => start(0),
            1 => start(BOUNDARY),
            _ => {
                let (k, state) = f.state_of[g];
                let s = &self.schemas[k];
                let (cls, step, chars) = s.class_at(b, i, cp, len);
                match s.trans[state * COLS + cls as usize] {
                    NO_STEP if f.can_end[g] => start(BOUNDARY),
                    NO_STEP => (SLOW, len, 1),
                    next => (row(k, next), step, chars),
                }
            }
        }
    }

    /// The token at byte `pos` (code point `cpos`), without a leading space: out of the
    /// loop of [`Syllabifier::ends`], whose registers it would otherwise take.
    #[inline(never)]
    fn token_from(&self, text: &str, pos: usize, cpos: usize) -> Token {
        let (cp, len) = decode(text.as_bytes(), pos);
        self.token_at(text, (pos, cpos), (pos, cpos), (cp, len)).0
    }

    /// Every token's end, in bytes of the UTF-8 text (`BYTES`) or in code points: what
    /// `offsets` and `bounds` give.
    pub fn ends<const BYTES: bool>(&self, text: &str) -> Vec<u32> {
        let mut ends = Vec::with_capacity(text.len() / 3 + 1);
        self.for_each_end::<BYTES>(text, |chunk| ends.extend_from_slice(chunk));
        ends
    }

    /// Every token's end as [`Syllabifier::ends`] gives them, handed to `emit` a chunk
    /// at a time: the loop of [`Fast`], with the exact reading where it marks one.
    pub fn for_each_end<const BYTES: bool>(&self, text: &str, mut emit: impl FnMut(&[u32])) {
        let pick = |bytes: usize, chars: usize| (if BYTES { bytes } else { chars }) as u32;
        let Some(f) = &self.fast else {
            self.for_each_token(text, |t| emit(&[pick(t.end, t.char_end)]));
            return;
        };
        let b = text.as_bytes();
        let n = b.len();
        // Every character writes an end; only a boundary keeps it (the next write goes one
        // further): no branch per token. A chunk that stays in the cache, handed over when
        // full, rather than an array the size of the text (whose fresh pages cost more
        // than the loop).
        const CHUNK: usize = 2048;
        let mut ends = [0u32; CHUNK + 2];
        let mut w = 0;
        let (mut i, mut ci) = (0usize, 0usize);
        while i < n {
            let mut row = 0usize;
            let (mut tok, mut ctok) = (i, ci);
            loop {
                if w >= CHUNK {
                    emit(&ends[..w]);
                    w = 0;
                }
                if i >= n {
                    if !f.can_end[row / f.n_syms] {
                        break;
                    }
                    ends[w] = pick(n, ci);
                    emit(&ends[..=w]);
                    return;
                }
                let (cp, len) = decode(b, i);
                let v = f.sym_of.get(cp as usize).copied().unwrap_or(f.none_sym);
                let mut e = f.trans[row + v as usize];
                let (mut step, mut chars) = (len, 1);
                if e & UNIT != 0 && f.unit_here(b, i, cp) {
                    (e, step, chars) = self.unit_step(f, row / f.n_syms, b, i, cp, len);
                }
                if e & SLOW != 0 {
                    break;
                }
                let boundary = (e & BOUNDARY) as usize;
                ends[w] = pick(i, ci);
                w += boundary;
                if boundary != 0 {
                    (tok, ctok) = (i, ci);
                }
                row = (e >> STEP_BITS) as usize;
                i += step;
                ci += chars;
            }
            // The token at the last boundary, read exactly; the loop goes on after it.
            let t = self.token_from(text, tok, ctok);
            ends[w] = pick(t.end, t.char_end);
            w += 1;
            (i, ci) = (t.end, t.char_end);
        }
        emit(&ends[..w]);
    }
}
