//! Plain BPE training, once for both models that use it: `PairMerges` of `sgpe/bpe.py`,
//! the same counts, the same choices in the same order. The paper mode's loop
//! ([`crate::paper`], its alphabet the syllables) and the byte-level baseline's
//! ([`crate::bytebpe`], its alphabet the 256 bytes) drive it; they differ only in the id a
//! merge makes (the baseline always appends one; the paper mode reuses the id of a symbol
//! whose string the merge spells again) and in when they stop.
//!
//! The rule: the adjacent pair with the highest count wins, ties go to the smallest
//! `(left, right)`; a merge is applied to every word left to right without overlaps. The
//! state: pair counts updated around each merge site, an index from a pair to the words
//! that may hold it (never pruned: a word that lost the pair is skipped), and a max-heap
//! with lazy refresh.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::hash::{FxMap, FxSet};

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
        let mut merged: Vec<u32> = Vec::new();
        let counts = &mut self.pair_counts;
        let index = &mut self.pair_to_words;
        let mut gain = |gained: PairKey, lost: PairKey, c: i64, wi: u32| {
            *counts.entry(lost).or_insert(0) -= c;
            *counts.entry(gained).or_insert(0) += c;
            index_word(index, gained, wi);
            grown.insert(gained);
        };
        for &wi in &visits {
            let word = &self.words[wi as usize];
            let at = |i: usize| i + 1 < word.len() && word[i] == left && word[i + 1] == right;
            if !(0..word.len()).any(at) {
                continue; // a stale index entry: an earlier merge consumed the pair here
            }
            let c = self.counts[wi as usize];
            merged.clear();
            let mut read = 0;
            let mut site_end = usize::MAX; // where the previous merge site ended
            while read < word.len() {
                if !at(read) {
                    merged.push(word[read]);
                    read += 1;
                    continue;
                }
                if read == site_end {
                    // "a b a b" -> "X X": (b, a) becomes (X, X)
                    gain(pair_key(new, new), pair_key(right, left), c, wi);
                } else if read > 0 {
                    let before = word[read - 1];
                    gain(pair_key(before, new), pair_key(before, left), c, wi);
                }
                // A following merge site counts (X, X) itself.
                if read + 2 < word.len() && !at(read + 2) {
                    let after = word[read + 2];
                    gain(pair_key(new, after), pair_key(right, after), c, wi);
                }
                merged.push(new);
                read += 2;
                site_end = read;
            }
            std::mem::swap(&mut self.words[wi as usize], &mut merged);
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
