//! The byte-level BPE baseline's merge loop natively: `_learn_merges` of
//! `sgpe/baselines/bytebpe.py`, the same merges in the same order with the same counts.
//! It is the plain BPE loop of [`crate::bpe`] (which the paper mode drives too) over the
//! chunks' UTF-8 bytes, merge `i` always making token `256 + i`. The caller steps the loop
//! in batches (`learn`), so progress can be reported between them.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use crate::bpe::{pair_key, pair_of, PairMerges};
use crate::error::{Error, Result};

/// Number of byte tokens: merge `i` makes token `BYTE_TOKENS + i`.
pub const BYTE_TOKENS: u32 = 256;

/// One learned merge: the pair and its count when it was chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Merge {
    pub left: u32,
    pub right: u32,
    pub count: i64,
}

/// The merge loop's state between batches.
pub struct ByteBpeTrainer {
    state: PairMerges,
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
        ByteBpeTrainer {
            state: PairMerges::new(unique, weights),
            merges: Vec::new(),
        }
    }

    /// The number of unique non-empty words.
    pub fn unique_words(&self) -> usize {
        self.state.word_count()
    }

    /// The merges learned or replayed so far.
    pub fn merges(&self) -> &[(u32, u32)] {
        &self.merges
    }

    /// Apply the next merge of a checkpoint, `(left, right)`, when it occurs at least
    /// `max(min_freq, 1)` times; returns its count. The heap is not searched: the entries
    /// the replay leaves stale are refreshed when they reach the top, as in Python.
    pub fn replay(&mut self, left: u32, right: u32, min_freq: i64) -> Result<i64> {
        let count = self.state.count(left, right);
        if count < min_freq.max(1) {
            return Err(Error::Mismatch { count });
        }
        self.apply(left, right);
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
            let Some((key, count)) = self.state.best() else {
                return (made, true);
            };
            if count < min_freq {
                return (made, true);
            }
            let (left, right) = pair_of(key);
            self.apply(left, right);
            made.push(Merge { left, right, count });
            if budget.is_some_and(|b| started.elapsed() >= b) {
                break;
            }
        }
        (made, false)
    }

    fn apply(&mut self, left: u32, right: u32) {
        let new = BYTE_TOKENS + self.merges.len() as u32;
        self.merges.push((left, right));
        self.state.merge(pair_key(left, right), new);
    }
}
