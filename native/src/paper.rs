//! The paper mode's merge loop natively: `_MergeEngine` of `sgpe/gpe.py` (the original
//! SGPE: merges of whole syllables inside segments), the same merges, new symbols and
//! counts in the same order.
//!
//! A segment is a list of symbol ids. The rule: the pair with the highest count wins, ties
//! go to the smallest `(left, right)`. A merge's symbol is the concatenation of the two
//! symbols' strings: an existing symbol when that string is one already (the symbol count
//! then does not grow), else a new id appended. The updates are the Python ones: a touched
//! segment's old pairs are subtracted and its new pairs added, the pairs that hold the
//! merged symbol are pushed, and the heap is refreshed lazily. The caller replays a
//! checkpoint with `replay`, then `rebuild_heap`, and steps the loop with `learn`.

use std::cmp::Reverse;
use std::collections::HashMap;
use std::time::{Duration, Instant};

use crate::bytebpe::{index_word, pair_key, pair_of, pop_fresh, PairHeap, PairKey};
use crate::error::{Error, Result};
use crate::hash::{FxMap, FxSet};

/// Symbol ids are code points in the Python state (`chr(id)`): ids reach at most this.
pub const SYMBOL_LIMIT: usize = 0x110000;

/// One merge: the pair, its count when chosen, and the id of the merged symbol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PaperMerge {
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

pub struct PaperTrainer {
    symbols: Vec<String>,
    symbol_id: HashMap<String, u32>,
    words: Vec<Vec<u32>>,
    counts: Vec<i64>,
    pair_counts: FxMap<PairKey, i64>,
    pair_to_words: FxMap<PairKey, Vec<u32>>,
    heap: PairHeap,
}

impl PaperTrainer {
    /// The state of the prepared segments (symbol ids) with their counts, over the symbol
    /// table (`_State` after `GPETrainer._prepare`).
    pub fn new(symbols: Vec<String>, words: Vec<Vec<u32>>, counts: Vec<i64>) -> Result<Self> {
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
        let mut pair_counts: FxMap<PairKey, i64> = FxMap::default();
        let mut pair_to_words: FxMap<PairKey, Vec<u32>> = FxMap::default();
        for (wi, (word, &c)) in words.iter().zip(&counts).enumerate() {
            for w in word.windows(2) {
                let key = pair_key(w[0], w[1]);
                *pair_counts.entry(key).or_insert(0) += c;
                index_word(&mut pair_to_words, key, wi as u32);
            }
        }
        let mut trainer = PaperTrainer {
            symbols,
            symbol_id,
            words,
            counts,
            pair_counts,
            pair_to_words,
            heap: PairHeap::new(),
        };
        trainer.rebuild_heap();
        Ok(trainer)
    }

    /// The number of symbols so far (base symbols and merged ones).
    pub fn symbol_count(&self) -> usize {
        self.symbols.len()
    }

    /// The heap from the current counts, every pair's (as after a replay in Python: the
    /// next choice depends only on the counts).
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

    /// Apply the next merge of a checkpoint when it occurs at least `min_freq` times.
    pub fn replay(&mut self, left: u32, right: u32, min_freq: i64) -> Result<PaperMerge> {
        let count = self.count(left, right);
        if count < min_freq {
            return Err(Error::Mismatch { count });
        }
        let merged = self.apply(pair_key(left, right))?;
        Ok(PaperMerge {
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
    ) -> (Vec<PaperMerge>, Stop) {
        let started = Instant::now();
        let mut made = Vec::new();
        while made.len() < max_merges {
            if self.symbols.len() >= target_symbols {
                return (made, Stop::Finished);
            }
            let Some((key, count)) = pop_fresh(&mut self.heap, &self.pair_counts) else {
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
            made.push(PaperMerge {
                left,
                right,
                count,
                merged,
            });
            if budget.is_some_and(|b| started.elapsed() >= b) {
                break;
            }
        }
        let stop = if self.symbols.len() >= target_symbols {
            Stop::Finished
        } else {
            Stop::Paused
        };
        (made, stop)
    }

    /// How often each symbol occurs in the segments now (weighted by their counts).
    pub fn usage(&self) -> Vec<i64> {
        let mut freq = vec![0i64; self.symbols.len()];
        for (word, &c) in self.words.iter().zip(&self.counts) {
            for &s in word {
                freq[s as usize] += c;
            }
        }
        freq
    }

    /// `merged_symbol` of `sgpe/hierarchical/`: the existing id of the concatenation, or
    /// a new one appended.
    fn merged_symbol(&mut self, left: u32, right: u32) -> Result<u32> {
        let merged = format!(
            "{}{}",
            self.symbols[left as usize], self.symbols[right as usize]
        );
        if let Some(&id) = self.symbol_id.get(&merged) {
            return Ok(id);
        }
        let id = self.symbols.len();
        if id >= SYMBOL_LIMIT {
            return Err(Error::VocabLimit {
                limit: SYMBOL_LIMIT,
            });
        }
        self.symbols.push(merged.clone());
        self.symbol_id.insert(merged, id as u32);
        Ok(id as u32)
    }

    /// `_MergeEngine._apply`: merge the pair in every segment that has it.
    fn apply(&mut self, key: PairKey) -> Result<u32> {
        let (left, right) = pair_of(key);
        let new = self.merged_symbol(left, right)?;
        let mut touched: FxSet<PairKey> = FxSet::default();
        let visits = self.pair_to_words.remove(&key).unwrap_or_default();
        let mut merged_word: Vec<u32> = Vec::new();
        for &wi in &visits {
            let word = &self.words[wi as usize];
            if !word.windows(2).any(|w| w[0] == left && w[1] == right) {
                continue; // a stale index entry: an earlier merge consumed the pair here
            }
            let c = self.counts[wi as usize];
            merged_word.clear();
            let mut read = 0;
            while read < word.len() {
                if read + 1 < word.len() && word[read] == left && word[read + 1] == right {
                    merged_word.push(new);
                    read += 2;
                } else {
                    merged_word.push(word[read]);
                    read += 1;
                }
            }
            for w in word.windows(2) {
                *self.pair_counts.entry(pair_key(w[0], w[1])).or_insert(0) -= c;
            }
            for w in merged_word.windows(2) {
                let p = pair_key(w[0], w[1]);
                *self.pair_counts.entry(p).or_insert(0) += c;
                if w[0] == new || w[1] == new {
                    touched.insert(p);
                    index_word(&mut self.pair_to_words, p, wi);
                }
            }
            std::mem::swap(&mut self.words[wi as usize], &mut merged_word);
        }
        self.pair_counts.remove(&key);
        for p in touched {
            let count = self.pair_counts[&p];
            self.heap.push((count, Reverse(p)));
        }
        Ok(new)
    }
}
