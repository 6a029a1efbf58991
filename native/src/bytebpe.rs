//! The byte-level BPE baseline's merge loop natively: `_learn_merges` of
//! `sgpe/baselines/bytebpe.py`, the same merges in the same order with the same counts.
//!
//! The rule: the adjacent pair with the highest count wins, ties go to the smallest
//! `(left, right)`; a merge is applied to every word left to right without overlaps, and
//! merge `i` makes token `256 + i`. The state and its updates are the Python ones: pair
//! counts kept per merge site, an index from a pair to the words that may hold it (never
//! pruned: a word that lost the pair is skipped), and a max-heap with lazy refresh. The
//! caller steps the loop in batches (`learn`), so progress can be reported between them.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::time::{Duration, Instant};

use crate::error::{Error, Result};
use crate::hash::{FxMap, FxSet};

/// Number of byte tokens: merge `i` makes token `BYTE_TOKENS + i`.
pub const BYTE_TOKENS: u32 = 256;

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

/// One learned merge: the pair and its count when it was chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Merge {
    pub left: u32,
    pub right: u32,
    pub count: i64,
}

/// The merge loop's state between batches.
pub struct ByteBpeTrainer {
    words: Vec<Vec<u32>>,
    weights: Vec<i64>,
    pair_counts: FxMap<PairKey, i64>,
    pair_to_words: FxMap<PairKey, Vec<u32>>,
    queue: PairHeap,
    merges: Vec<(u32, u32)>,
}

impl ByteBpeTrainer {
    /// The state of the unique words (their UTF-8 bytes) weighted by their counts. Empty
    /// words are skipped; a word given twice counts as the sum of its counts.
    pub fn new<'a>(words: impl IntoIterator<Item = (&'a [u8], i64)>) -> Self {
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
        let mut pair_counts: FxMap<PairKey, i64> = FxMap::default();
        let mut pair_to_words: FxMap<PairKey, Vec<u32>> = FxMap::default();
        for (wi, word) in unique.iter().enumerate() {
            let weight = weights[wi];
            for w in word.windows(2) {
                let key = pair_key(w[0], w[1]);
                *pair_counts.entry(key).or_insert(0) += weight;
                index_word(&mut pair_to_words, key, wi as u32);
            }
        }
        let queue = pair_counts
            .iter()
            .map(|(&key, &count)| (count, Reverse(key)))
            .collect();
        ByteBpeTrainer {
            words: unique,
            weights,
            pair_counts,
            pair_to_words,
            queue,
            merges: Vec::new(),
        }
    }

    /// The number of unique non-empty words.
    pub fn unique_words(&self) -> usize {
        self.words.len()
    }

    /// The merges learned or replayed so far.
    pub fn merges(&self) -> &[(u32, u32)] {
        &self.merges
    }

    /// Apply the next merge of a checkpoint, `(left, right)`, when it occurs at least
    /// `max(min_freq, 1)` times; returns its count. The heap is not searched: the entries
    /// the replay leaves stale are refreshed when they reach the top, as in Python.
    pub fn replay(&mut self, left: u32, right: u32, min_freq: i64) -> Result<i64> {
        let key = pair_key(left, right);
        let count = self.pair_counts.get(&key).copied().unwrap_or(0);
        if count < min_freq.max(1) {
            return Err(Error::Mismatch { count });
        }
        self.apply(key);
        Ok(count)
    }

    /// Learn merges until `max_merges` more are made, the best pair occurs fewer than
    /// `min_freq` times (or no pair is left), or `budget` has passed after a merge.
    /// Returns the merges made and whether training is finished (no pair good enough).
    pub fn learn(
        &mut self,
        max_merges: usize,
        min_freq: i64,
        budget: Option<Duration>,
    ) -> (Vec<Merge>, bool) {
        let started = Instant::now();
        let mut made = Vec::new();
        while made.len() < max_merges {
            let Some((key, count)) = pop_fresh(&mut self.queue, &self.pair_counts) else {
                return (made, true);
            };
            if count < min_freq {
                return (made, true);
            }
            self.apply(key);
            let (left, right) = pair_of(key);
            made.push(Merge { left, right, count });
            if budget.is_some_and(|b| started.elapsed() >= b) {
                break;
            }
        }
        (made, false)
    }

    /// Merge `key` in every word that holds it, updating the pairs around each merge site
    /// exactly as `_learn_merges` does, and push the pairs that grew.
    fn apply(&mut self, key: PairKey) {
        let (left, right) = pair_of(key);
        let new = BYTE_TOKENS + self.merges.len() as u32;
        self.merges.push((left, right));
        let mut grown: FxSet<PairKey> = FxSet::default();
        let touched = self.pair_to_words.remove(&key).unwrap_or_default();
        let mut sites: Vec<usize> = Vec::new();
        for &wi in &touched {
            let word = &mut self.words[wi as usize];
            if !word.windows(2).any(|w| w[0] == left && w[1] == right) {
                continue;
            }
            // Left to right without overlaps, in place; `sites` are the new token's
            // positions in the merged word.
            sites.clear();
            let mut read = 0;
            let mut write = 0;
            while read < word.len() {
                if read + 1 < word.len() && word[read] == left && word[read + 1] == right {
                    word[write] = new;
                    sites.push(write);
                    read += 2;
                } else {
                    word[write] = word[read];
                    read += 1;
                }
                write += 1;
            }
            word.truncate(write);
            let weight = self.weights[wi as usize];
            let last = word.len() - 1;
            for &site in &sites {
                if site > 0 {
                    let before = word[site - 1];
                    let gained = if before == new {
                        // "a b a b" -> "X X": (b, a) becomes (X, X)
                        *self.pair_counts.entry(pair_key(right, left)).or_insert(0) -= weight;
                        pair_key(new, new)
                    } else {
                        *self.pair_counts.entry(pair_key(before, left)).or_insert(0) -= weight;
                        pair_key(before, new)
                    };
                    *self.pair_counts.entry(gained).or_insert(0) += weight;
                    index_word(&mut self.pair_to_words, gained, wi);
                    grown.insert(gained);
                }
                if site < last {
                    let after = word[site + 1];
                    if after != new {
                        // a following merge site counts (X, X) itself
                        *self.pair_counts.entry(pair_key(right, after)).or_insert(0) -= weight;
                        let gained = pair_key(new, after);
                        *self.pair_counts.entry(gained).or_insert(0) += weight;
                        index_word(&mut self.pair_to_words, gained, wi);
                        grown.insert(gained);
                    }
                }
            }
        }
        // Every occurrence of the pair is gone (none survives a left-to-right merge).
        self.pair_counts.remove(&key);
        for gained in grown {
            let count = self.pair_counts[&gained];
            self.queue.push((count, Reverse(gained)));
        }
    }
}

/// Record that word `wi` may hold `key`. A word's pairs are indexed together, so a repeat
/// within one word is the list's last entry; a repeat from another merge only costs a
/// visit that finds the pair gone (the Python index is a list with repeats, or a set).
pub fn index_word(index: &mut FxMap<PairKey, Vec<u32>>, key: PairKey, wi: u32) {
    let list = index.entry(key).or_default();
    if list.last() != Some(&wi) {
        list.push(wi);
    }
}

/// The best pair and its count (`pop_fresh` of `sgpe/hierarchical/`, lazy refresh): a
/// stale entry is pushed back with its current count, a consumed one (count 0) dropped.
/// An entry stored with count 0 whose pair still counts 0 is returned: only a heap rebuilt
/// from all counts holds one, it comes last, and `min_freq` then stops the loop.
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
