//! `corpus_units` of `sgpe/hierarchical/`: the distinct pieces as strings of unit codes,
//! the unit types numbered in order of first appearance, and the unit weights.
//!
//! The pieces are visited as Python visits them (the pieces of a space and a word, then
//! the other pieces without a line break, then those with one), so the words come out in
//! the same order and the unit types with the same numbers: the obvious numbering, which
//! lets the tests compare the two engines' units one to one. No merge depends on it (a
//! placeholder never forms a counted pair).

use std::collections::{HashMap, HashSet};

use rayon::prelude::*;

use crate::hash::FxBuild;
use crate::syllables::Syllabifier;

/// The pieces are syllabified in groups of about this many characters, so that the chunks
/// of one group only are held at once (text without spaces has nearly the whole corpus
/// as distinct pieces). Groups change no number: types are numbered by first appearance.
pub const GROUP_CHARS: usize = 1 << 18;
/// How many unit types the codes can number (`ord(_SEP) - _FIRST_PLACEHOLDER`).
pub const MAX_UNITS: usize = 0x10ffff - 0x80001;

/// The corpus as units (`CorpusUnits`): codes are indexes into `units`.
#[derive(Debug, Default, PartialEq)]
pub struct CorpusUnits {
    pub units: Vec<String>,
    pub weight: Vec<u64>,
    pub coded: Vec<Vec<u32>>,
    pub counts: Vec<u64>,
}

/// `_SPACED_WORD`: `[ ][^ \t\n\r][^ \n]*`, the whole piece.
fn spaced_word(p: &str) -> bool {
    let mut chars = p.chars();
    chars.next() == Some(' ')
        && chars
            .next()
            .is_some_and(|c| !matches!(c, ' ' | '\t' | '\n' | '\r'))
        && chars.all(|c| c != ' ' && c != '\n')
}

/// Consecutive groups of about `GROUP_CHARS` characters (the piece that reaches it closes
/// its group).
fn groups<'a>(pieces: &[&'a str]) -> Vec<Vec<&'a str>> {
    let mut out = Vec::new();
    let mut group = Vec::new();
    let mut size = 0;
    for &p in pieces {
        group.push(p);
        size += p.chars().count();
        if size >= GROUP_CHARS {
            out.push(std::mem::take(&mut group));
            size = 0;
        }
    }
    if !group.is_empty() {
        out.push(group);
    }
    out
}

/// `_Coder`: unit type -> code, numbered in order of first appearance.
#[derive(Default)]
struct Coder {
    code: HashMap<String, u32, FxBuild>,
    units: Vec<String>,
}

impl Coder {
    /// Number the types not numbered yet, in the order given; None (nothing numbered) when
    /// they would pass `MAX_UNITS`, where Python raises.
    fn add<'a>(&mut self, types: impl Iterator<Item = &'a str>) -> Option<()> {
        let mut fresh: HashSet<&str, FxBuild> = HashSet::default();
        let new: Vec<&str> = types
            .filter(|u| !self.code.contains_key(*u) && fresh.insert(u))
            .collect();
        if self.units.len() + new.len() > MAX_UNITS {
            return None;
        }
        for u in new {
            self.code.insert(u.to_string(), self.units.len() as u32);
            self.units.push(u.to_string());
        }
        Some(())
    }

    fn get(&self, u: &str) -> u32 {
        self.code[u]
    }
}

/// A group is syllabified in chunks of about this many bytes of whole pieces, on all
/// cores (a unit never crosses a piece: the pieces of a group are split in one text only
/// to save calls in Python).
const CHUNK_BYTES: usize = 1 << 14;

/// One chunk of a group: its text (pieces joined by `sep`), its distinct units (spans of
/// the text, in order of first appearance) and its units as indexes into them.
struct Chunk {
    text: String,
    distinct: Vec<(usize, usize)>,
    flat: Vec<u32>,
    pieces: usize,
}

impl Chunk {
    fn unit(&self, k: usize) -> &str {
        let (a, b) = self.distinct[k];
        &self.text[a..b]
    }
}

fn chunk_of(syl: &Syllabifier, pieces: &[&str], sep: &str) -> Chunk {
    let text = pieces.join(sep);
    let mut local: HashMap<&str, u32, FxBuild> = HashMap::default();
    let mut distinct = Vec::new();
    let mut flat = Vec::with_capacity(text.len() / 4);
    syl.for_each_token(&text, |t| {
        let u = &text[t.start..t.end];
        let k = *local.entry(u).or_insert_with(|| {
            distinct.push((t.start, t.end));
            (distinct.len() - 1) as u32
        });
        flat.push(k);
    });
    drop(local);
    Chunk {
        text,
        distinct,
        flat,
        pieces: pieces.len(),
    }
}

/// The chunks of a group, syllabified on all cores.
fn chunks(syl: &Syllabifier, group: &[&str], sep: &str) -> Vec<Chunk> {
    let mut bounds = vec![0];
    let mut size = 0;
    for (k, p) in group.iter().enumerate() {
        size += p.len() + 1;
        if size >= CHUNK_BYTES {
            bounds.push(k + 1);
            size = 0;
        }
    }
    if *bounds.last().unwrap_or(&0) != group.len() {
        bounds.push(group.len());
    }
    bounds
        .par_windows(2)
        .map(|w| chunk_of(syl, &group[w[0]..w[1]], sep))
        .collect()
}

/// Code one group's pieces onto `coded`: `spaced` pieces start at every unit that starts
/// with a space, the others are separated by line-break units. None when the pieces and
/// the units do not line up (Python's own check fails then).
fn code_group(
    coder: &mut Coder,
    syl: &Syllabifier,
    group: &[&str],
    spaced: bool,
    coded: &mut Vec<Vec<u32>>,
) -> Option<()> {
    let found = chunks(syl, group, if spaced { "" } else { "\n" });
    let is_sep = |u: &str| !spaced && u == "\n";
    let mut types: Vec<&str> = Vec::new();
    for c in &found {
        for k in 0..c.distinct.len() {
            let u = c.unit(k);
            if spaced && u.chars().skip(1).any(|ch| ch == ' ') {
                return None; // Python moves the group to the plain pieces; never seen
            }
            if !is_sep(u) {
                types.push(u);
            }
        }
    }
    coder.add(types.into_iter())?;
    for c in &found {
        let codes: Vec<Option<u32>> = (0..c.distinct.len())
            .map(|k| {
                let u = c.unit(k);
                (!is_sep(u)).then(|| coder.get(u))
            })
            .collect();
        let starts: Vec<bool> = (0..c.distinct.len())
            .map(|k| c.unit(k).starts_with(' '))
            .collect();
        let before = coded.len();
        if spaced {
            if !c.flat.first().is_some_and(|&k| starts[k as usize]) {
                return None; // every piece of the group starts with a space
            }
        } else {
            coded.push(Vec::new());
        }
        for &k in &c.flat {
            match codes[k as usize] {
                None => coded.push(Vec::new()),
                Some(code) => {
                    if spaced && starts[k as usize] {
                        coded.push(Vec::new());
                    }
                    coded.last_mut()?.push(code);
                }
            }
        }
        if coded.len() - before != c.pieces {
            return None;
        }
    }
    Some(())
}

/// `corpus_units(piece_counts, units_of, max_units)` with the native syllabifier, or None
/// where Python's own checks would stop (a unit across two pieces, pieces and codes out
/// of step, more unit types than codes): the caller then runs the Python twin, which
/// says what went wrong.
pub fn corpus_units(
    syl: &Syllabifier,
    pieces: &[&str],
    counts: &[u64],
    max_units: Option<usize>,
) -> Option<CorpusUnits> {
    let is_spaced: Vec<bool> = pieces.par_iter().map(|p| spaced_word(p)).collect();
    let spaced: Vec<&str> = pieces
        .iter()
        .zip(&is_spaced)
        .filter_map(|(&p, &s)| s.then_some(p))
        .collect();
    let all_spaced = spaced.len() == pieces.len();
    let (plain, other): (Vec<&str>, Vec<&str>) = if all_spaced {
        (Vec::new(), Vec::new())
    } else {
        (
            pieces
                .iter()
                .zip(&is_spaced)
                .filter_map(|(&p, &s)| (!s && !p.contains('\n')).then_some(p))
                .collect(),
            pieces
                .iter()
                .copied()
                .filter(|p| p.contains('\n'))
                .collect(),
        )
    };
    let mut coder = Coder::default();
    let mut coded: Vec<Vec<u32>> = Vec::with_capacity(pieces.len());
    let mut order: Vec<&str> = Vec::with_capacity(pieces.len());

    for group in groups(&spaced) {
        code_group(&mut coder, syl, &group, true, &mut coded)?;
        order.extend(group);
    }
    for group in groups(&plain) {
        code_group(&mut coder, syl, &group, false, &mut coded)?;
        order.extend(group);
    }
    for p in other {
        let units = syl.syllabify(p);
        coder.add(units.iter().copied())?;
        coded.push(units.iter().map(|u| coder.get(u)).collect());
        order.push(p);
    }
    // The pieces in the order visited: the given order when every piece is a spaced
    // word (the usual case with leading_space), else looked up.
    let mut counts: Vec<u64> = if all_spaced {
        counts.to_vec()
    } else {
        let index: HashMap<&str, usize, FxBuild> =
            pieces.iter().enumerate().map(|(k, &p)| (p, k)).collect();
        order.iter().map(|p| counts[index[p]]).collect()
    };
    if let Some(n) = max_units.filter(|&n| coded.iter().any(|c| c.len() > n)) {
        (coded, counts) = cut(coded, &counts, n);
    }
    let mut weight = vec![0u64; coder.units.len()];
    for (c, &k) in coded.iter().zip(&counts) {
        for &u in c {
            weight[u as usize] += k;
        }
    }
    Some(CorpusUnits {
        units: coder.units,
        weight,
        coded,
        counts,
    })
}

/// `_cut`: coded pieces of more than `n` units cut into chunks of `n`, equal chunks (and
/// pieces) added up, in order of first appearance.
fn cut(coded: Vec<Vec<u32>>, counts: &[u64], n: usize) -> (Vec<Vec<u32>>, Vec<u64>) {
    let mut index: HashMap<Vec<u32>, usize, FxBuild> = HashMap::default();
    let mut words: Vec<Vec<u32>> = Vec::new();
    let mut totals: Vec<u64> = Vec::new();
    let mut add = |w: &[u32], c: u64| match index.get(w) {
        Some(&k) => totals[k] += c,
        None => {
            index.insert(w.to_vec(), words.len());
            words.push(w.to_vec());
            totals.push(c);
        }
    };
    for (w, &c) in coded.iter().zip(counts) {
        if w.len() <= n {
            add(w, c);
        } else {
            for chunk in w.chunks(n) {
                add(chunk, c);
            }
        }
    }
    (words, totals)
}
