//! Plain BPE training, once for both models that use it: [`BpeTrainer`] is the merge
//! loop of the paper mode (`_PaperLoop` of `sgpe/gpe.py`, its alphabet the syllables)
//! and of the byte-level baseline (`_learn_merges` of `sgpe/baselines/bytebpe.py`, its
//! alphabet the 256 bytes), over [`PairMerges`]; `sgpe/bpe.py` has their Python twins
//! (`BpeTrainer` over `PairMerges`): the same counts, the same choices in the same order.
//! The two differ only in the id a merge makes ([`Symbols`]) and in when their callers
//! stop.
//!
//! The rule: the adjacent pair with the highest count wins, ties go to the smallest
//! `(left, right)`; a merge is applied to every word left to right without overlaps. The
//! state: pair counts updated around each merge site, an index from a pair to the words
//! that may hold it (never pruned: a word that lost the pair is skipped), and a max-heap
//! with lazy refresh.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::time::{Duration, Instant};

use crate::error::{Error, Result};
use crate::hash::{FxMap, FxSet};

/// Number of byte tokens: the byte-level baseline's merge `i` makes token `BYTE_TOKENS + i`.
pub const BYTE_TOKENS: u32 = 256;

/// Symbol ids are code points in the Python state (`chr(id)`): ids stay below this.
pub const SYMBOL_LIMIT: usize = 0x110000;

/// A pair `(left, right)` as one key, `left << 32 | right`: ordering the keys orders the
/// pairs as tuples, which is the tie-break.
pub type PairKey = u64;

pub fn pair_key(left: u32, right: u32) -> PairKey {
    (u64::from(left) << 32) | u64::from(right)
}

pub fn pair_of(key: PairKey) -> (u32, u32) {
    ((key >> 32) as u32, key as u32)
}

/// The max-heap of the merge loops: the highest count first, the smallest pair on ties
/// (Python's min-heap of `(-count, pair)`).
pub type PairHeap = BinaryHeap<(i64, Reverse<PairKey>)>;

/// Record that word `wi` may hold `key`. A word's pairs are indexed together, so a repeat
/// within one word is the list's last entry; a repeat from another merge only costs a
/// visit that finds the pair gone.
pub fn index_word(index: &mut FxMap<PairKey, Vec<u32>>, key: PairKey, wi: u32) {
    let list = index.entry(key).or_default();
    if list.last() != Some(&wi) {
        list.push(wi);
    }
}

/// The best pair and its count (`pop_fresh` of `sgpe/bpe.py`, lazy refresh): a stale
/// entry is pushed back with its current count, a consumed one (count 0) dropped. An entry
/// stored with count 0 whose pair still counts 0 is returned: only a heap rebuilt from all
/// counts holds one, it comes last, and `min_freq` then stops the loop.
pub fn pop_fresh(heap: &mut PairHeap, counts: &FxMap<PairKey, i64>) -> Option<(PairKey, i64)> {
    while let Some((stored, Reverse(key))) = heap.pop() {
        let count = counts.get(&key).copied().unwrap_or(0);
        if count == stored {
            return Some((key, count));
        }
        if count > 0 {
            heap.push((count, Reverse(key)));
        }
    }
    None
}

/// The state of BPE training over weighted words (lists of symbol ids).
pub struct PairMerges {
    words: Vec<Vec<u32>>,
    counts: Vec<i64>,
    pair_counts: FxMap<PairKey, i64>,
    pair_to_words: FxMap<PairKey, Vec<u32>>,
    heap: PairHeap,
}

impl PairMerges {
    pub fn new(words: Vec<Vec<u32>>, counts: Vec<i64>) -> Self {
        let mut pair_counts: FxMap<PairKey, i64> = FxMap::default();
        let mut pair_to_words: FxMap<PairKey, Vec<u32>> = FxMap::default();
        for (wi, (word, &c)) in words.iter().zip(&counts).enumerate() {
            for w in word.windows(2) {
                let key = pair_key(w[0], w[1]);
                *pair_counts.entry(key).or_insert(0) += c;
                index_word(&mut pair_to_words, key, wi as u32);
            }
        }
        let mut merges = PairMerges {
            words,
            counts,
            pair_counts,
            pair_to_words,
            heap: PairHeap::new(),
        };
        merges.rebuild_heap();
        merges
    }

    /// The number of words.
    pub fn word_count(&self) -> usize {
        self.words.len()
    }

    /// The heap from the current counts, every pair's. A replay leaves the lazy refresh's
    /// entries stale; the next choice depends only on the counts, so either heap picks
    /// alike.
    pub fn rebuild_heap(&mut self) {
        self.heap = self
            .pair_counts
            .iter()
            .map(|(&key, &count)| (count, Reverse(key)))
            .collect();
    }

    /// The current count of a pair.
    pub fn count(&self, left: u32, right: u32) -> i64 {
        self.pair_counts
            .get(&pair_key(left, right))
            .copied()
            .unwrap_or(0)
    }

    /// The pair to merge next and its count, or None when no pair is left.
    pub fn best(&mut self) -> Option<(PairKey, i64)> {
        pop_fresh(&mut self.heap, &self.pair_counts)
    }

    /// Replace the pair `key` by the symbol `new` in every word that has it (`merge` of
    /// `sgpe/bpe.py`), updating the pairs around each merge site, and push the pairs that
    /// grew. `new` may occur in the words already (the paper mode's reused symbols): the
    /// sites are found in the word before the merge.
    pub fn merge(&mut self, key: PairKey, new: u32) {
        let (left, right) = pair_of(key);
        let mut grown: FxSet<PairKey> = FxSet::default();
        let visits = self.pair_to_words.remove(&key).unwrap_or_default();
        let counts = &mut self.pair_counts;
        let index = &mut self.pair_to_words;
        let mut gain = |gained: PairKey, lost: PairKey, c: i64, wi: u32| {
            *counts.entry(lost).or_insert(0) -= c;
            *counts.entry(gained).or_insert(0) += c;
            index_word(index, gained, wi);
            grown.insert(gained);
        };
        for &wi in &visits {
            let c = self.counts[wi as usize];
            let word = &mut self.words[wi as usize];
            if !word.windows(2).any(|w| w[0] == left && w[1] == right) {
                continue; // a stale index entry: an earlier merge consumed the pair here
            }
            // Left to right without overlaps, in place (the write never passes the read).
            let len = word.len();
            let (mut read, mut write) = (0, 0);
            let mut site_end = usize::MAX; // where the previous merge site ended
            let mut before = 0; // the symbol before `read` in the word as it was
            while read < len {
                if !(read + 1 < len && word[read] == left && word[read + 1] == right) {
                    before = word[read];
                    word[write] = before;
                    write += 1;
                    read += 1;
                    continue;
                }
                if read == site_end {
                    // "a b a b" -> "X X": (b, a) becomes (X, X)
                    gain(pair_key(new, new), pair_key(right, left), c, wi);
                } else if read > 0 {
                    gain(pair_key(before, new), pair_key(before, left), c, wi);
                }
                // A following merge site counts (X, X) itself.
                let next = read + 2;
                if next < len && !(next + 1 < len && word[next] == left && word[next + 1] == right)
                {
                    let after = word[next];
                    gain(pair_key(new, after), pair_key(right, after), c, wi);
                }
                word[write] = new;
                write += 1;
                read = next;
                site_end = next;
            }
            word.truncate(write);
        }
        // Every occurrence of the pair is gone: none survives a left-to-right merge,
        // including those the neighbour updates above may have touched.
        self.pair_counts.remove(&key);
        for gained in grown {
            let count = self.pair_counts[&gained];
            self.heap.push((count, Reverse(gained)));
        }
    }

    /// How often each of `symbols` ids occurs in the words now (weighted by their counts).
    pub fn usage(&self, symbols: usize) -> Vec<i64> {
        let mut freq = vec![0i64; symbols];
        for (word, &c) in self.words.iter().zip(&self.counts) {
            for &s in word {
                freq[s as usize] += c;
            }
        }
        freq
    }
}

/// The id a merge makes.
enum Symbols {
    /// The byte-level baseline: ids below 256 are the bytes, and merge `i` makes the new
    /// id `256 + i`, even when its bytes equal an earlier token's. `count` ids so far.
    Fresh { count: usize },
    /// The paper mode: every id has a string, and a merge's symbol is the concatenation
    /// of the pair's strings, an existing id when that string is a symbol already (the
    /// symbol count then does not grow), else a new id appended (`merged_symbol` of
    /// `sgpe/bpe.py`).
    Strings {
        symbols: Vec<String>,
        symbol_id: HashMap<String, u32>,
    },
}

/// One merge: the pair, its count when chosen, and the id of the merged symbol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Merge {
    pub left: u32,
    pub right: u32,
    pub count: i64,
    pub merged: u32,
}

/// Why `learn` returned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stop {
    /// The batch is done (its size or time); more merges may follow.
    Paused,
    /// The target size is reached, or no pair occurs `min_freq` times.
    Finished,
    /// The next merge failed.
    Failed(Error),
}

/// The merge loop's state between batches. The caller replays a checkpoint with
/// `replay` (the paper mode then calls `rebuild_heap`), and steps the loop with `learn`.
pub struct BpeTrainer {
    state: PairMerges,
    symbols: Symbols,
}

impl BpeTrainer {
    /// The byte-level baseline's state: the unique words (their UTF-8 bytes) weighted by
    /// their counts. Empty words are skipped; a word given twice counts as the sum of its
    /// counts.
    pub fn bytes<'a>(words: impl IntoIterator<Item = (&'a [u8], i64)>) -> Self {
        let mut index: HashMap<&'a [u8], usize> = HashMap::new();
        let mut unique: Vec<Vec<u32>> = Vec::new();
        let mut weights: Vec<i64> = Vec::new();
        for (bytes, count) in words {
            if bytes.is_empty() {
                continue;
            }
            let next = unique.len();
            let at = *index.entry(bytes).or_insert(next);
            if at == next {
                unique.push(bytes.iter().map(|&b| u32::from(b)).collect());
                weights.push(count);
            } else {
                weights[at] += count;
            }
        }
        BpeTrainer {
            state: PairMerges::new(unique, weights),
            symbols: Symbols::Fresh {
                count: BYTE_TOKENS as usize,
            },
        }
    }

    /// The paper mode's state: the prepared segments (symbol ids) with their counts, over
    /// the symbol table (`_State` after `GPETrainer._prepare`).
    pub fn strings(symbols: Vec<String>, words: Vec<Vec<u32>>, counts: Vec<i64>) -> Result<Self> {
        if let Some(&bad) = words
            .iter()
            .flatten()
            .find(|&&s| s as usize >= symbols.len())
        {
            return Err(Error::BadSymbol(bad));
        }
        let symbol_id = symbols
            .iter()
            .enumerate()
            .map(|(i, s)| (s.clone(), i as u32))
            .collect();
        Ok(BpeTrainer {
            state: PairMerges::new(words, counts),
            symbols: Symbols::Strings { symbols, symbol_id },
        })
    }

    /// The number of symbols so far (base symbols and merged ones).
    pub fn symbol_count(&self) -> usize {
        match &self.symbols {
            Symbols::Fresh { count } => *count,
            Symbols::Strings { symbols, .. } => symbols.len(),
        }
    }

    /// The number of words (the byte-level baseline's unique non-empty chunks).
    pub fn word_count(&self) -> usize {
        self.state.word_count()
    }

    /// The heap from the current counts, every pair's (see [`PairMerges::rebuild_heap`]).
    pub fn rebuild_heap(&mut self) {
        self.state.rebuild_heap();
    }

    /// The current count of a pair.
    pub fn count(&self, left: u32, right: u32) -> i64 {
        self.state.count(left, right)
    }

    /// Apply the next merge of a checkpoint when it occurs at least `min_freq` times.
    pub fn replay(&mut self, left: u32, right: u32, min_freq: i64) -> Result<Merge> {
        let count = self.count(left, right);
        if count < min_freq {
            return Err(Error::Mismatch { count });
        }
        let merged = self.apply(pair_key(left, right))?;
        Ok(Merge {
            left,
            right,
            count,
            merged,
        })
    }

    /// Learn merges while there are fewer than `target_symbols` symbols, until `max_merges`
    /// more are made, the best pair occurs fewer than `min_freq` times (or none is left),
    /// or `budget` has passed after a merge. Returns the merges made and why it stopped;
    /// on an error the merges before it are returned too, so the caller reports them
    /// before it raises, as the Python loop does.
    pub fn learn(
        &mut self,
        target_symbols: usize,
        min_freq: i64,
        max_merges: usize,
        budget: Option<Duration>,
    ) -> (Vec<Merge>, Stop) {
        let started = Instant::now();
        let mut made = Vec::new();
        while made.len() < max_merges {
            if self.symbol_count() >= target_symbols {
                return (made, Stop::Finished);
            }
            let Some((key, count)) = self.state.best() else {
                return (made, Stop::Finished);
            };
            if count < min_freq {
                return (made, Stop::Finished);
            }
            let merged = match self.apply(key) {
                Ok(merged) => merged,
                Err(err) => return (made, Stop::Failed(err)),
            };
            let (left, right) = pair_of(key);
            made.push(Merge {
                left,
                right,
                count,
                merged,
            });
            if budget.is_some_and(|b| started.elapsed() >= b) {
                break;
            }
        }
        let stop = if self.symbol_count() >= target_symbols {
            Stop::Finished
        } else {
            Stop::Paused
        };
        (made, stop)
    }

    /// How often each symbol occurs in the words now (weighted by their counts).
    pub fn usage(&self) -> Vec<i64> {
        self.state.usage(self.symbol_count())
    }

    /// The id the merge of `(left, right)` makes (see [`Symbols`]).
    fn merged_symbol(&mut self, left: u32, right: u32) -> Result<u32> {
        let mut merged = None;
        if let Symbols::Strings { symbols, symbol_id } = &self.symbols {
            let text = format!("{}{}", symbols[left as usize], symbols[right as usize]);
            if let Some(&id) = symbol_id.get(&text) {
                return Ok(id);
            }
            merged = Some(text);
        }
        let id = self.symbol_count();
        if id >= SYMBOL_LIMIT {
            return Err(Error::VocabLimit {
                limit: SYMBOL_LIMIT,
            });
        }
        match (&mut self.symbols, merged) {
            (Symbols::Fresh { count }, _) => *count += 1,
            (Symbols::Strings { symbols, symbol_id }, Some(text)) => {
                symbols.push(text.clone());
                symbol_id.insert(text, id as u32);
            }
            (Symbols::Strings { .. }, None) => unreachable!("a string symbol has its text"),
        }
        Ok(id as u32)
    }

    /// Merge the pair in every word that has it.
    fn apply(&mut self, key: PairKey) -> Result<u32> {
        let (left, right) = pair_of(key);
        let new = self.merged_symbol(left, right)?;
        self.state.merge(key, new);
        Ok(new)
    }
}
