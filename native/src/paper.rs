//! The paper mode's merge loop natively: `_MergeEngine` of `sgpe/gpe.py` (the original
//! SGPE: merges of whole syllables inside segments), the same merges, new symbols and
//! counts in the same order.
//!
//! A segment is a list of symbol ids, and the loop is the plain BPE of [`crate::bpe`]
//! (which the byte-level baseline drives too). A merge's symbol is the concatenation of
//! the two symbols' strings: an existing symbol when that string is one already (the
//! symbol count then does not grow), else a new id appended. The caller replays a
//! checkpoint with `replay`, then `rebuild_heap`, and steps the loop with `learn`.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use crate::bpe::{pair_key, pair_of, PairKey, PairMerges};
use crate::error::{Error, Result};

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
    state: PairMerges,
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
        Ok(PaperTrainer {
            symbols,
            symbol_id,
            state: PairMerges::new(words, counts),
        })
    }

    /// The number of symbols so far (base symbols and merged ones).
    pub fn symbol_count(&self) -> usize {
        self.symbols.len()
    }

    /// The heap from the current counts, every pair's (as after a replay in Python: the
    /// next choice depends only on the counts).
    pub fn rebuild_heap(&mut self) {
        self.state.rebuild_heap();
    }

    /// The current count of a pair.
    pub fn count(&self, left: u32, right: u32) -> i64 {
        self.state.count(left, right)
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
        self.state.usage(self.symbols.len())
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

    /// `_MergeEngine._merge`: merge the pair in every segment that has it.
    fn apply(&mut self, key: PairKey) -> Result<u32> {
        let (left, right) = pair_of(key);
        let new = self.merged_symbol(left, right)?;
        self.state.merge(key, new);
        Ok(new)
    }
}
