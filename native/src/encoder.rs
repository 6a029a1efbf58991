//! The hierarchical mode's piece encoder natively: `HierarchicalEncoder.ids_of_piece` of
//! `sgpe/hierarchical.py`, both phases.
//!
//! Phase 1, per unit (a syllabifier token): its characters' ids, runs of known characters
//! merged with the *part* merges; a character that is not a token is spelled by its UTF-8
//! byte tokens (or `[UNK]`) and never merges. Phase 2: runs of whole joinable units (one
//! token each) merged with the *join* merges. Both use the rule of `bpe_with_sizes`: merge
//! the leftmost lowest-ranked pair until none applies (long join runs with the heap of
//! `bpe_heap`, the same result). Units are cached per call.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use crate::syllables::{Kind, Syllabifier};

/// (left, right) -> (rank, merged id)
pub type Ranks = HashMap<(u32, u32), (u32, u32)>;

/// Join runs longer than this merge with the heap (`_LONG_RUN` in `sgpe/hierarchical.py`).
const LONG_RUN: usize = 24;

/// Everything `HierarchicalEncoder` reads: the syllabifier of the vocabulary's setting,
/// the ids of single-character tokens, how an unknown character is spelled, both rank
/// tables.
#[derive(Debug, Clone)]
pub struct PieceEncoder {
    pub syllabifier: Syllabifier,
    pub char_ids: HashMap<char, u32>,
    /// the 256 byte tokens, or None: an unknown character is then one `unk`
    pub byte_ids: Option<Vec<u32>>,
    pub unk: u32,
    pub part: Ranks,
    pub join: Ranks,
}

/// Leftmost lowest-ranked pair first, until none applies (`bpe_with_sizes`).
pub fn bpe_rescan(ids: &mut Vec<u32>, ranks: &Ranks) {
    while ids.len() > 1 {
        let mut best: Option<(u32, u32, usize)> = None;
        for i in 0..ids.len() - 1 {
            if let Some(&(rank, merged)) = ranks.get(&(ids[i], ids[i + 1])) {
                if best.is_none_or(|(r, _, _)| rank < r) {
                    best = Some((rank, merged, i));
                }
            }
        }
        let Some((_, merged, at)) = best else {
            break;
        };
        ids[at] = merged;
        ids.remove(at + 1);
    }
}

/// The same merges in O(n log n) (`bpe_heap`): a heap of (rank, position) over a linked
/// list; entries made stale by earlier merges are skipped when popped.
pub fn bpe_heap(ids: &[u32], ranks: &Ranks) -> Vec<u32> {
    let n = ids.len();
    let mut tok = ids.to_vec();
    let mut next: Vec<isize> = (1..=n as isize).collect();
    if let Some(last) = next.last_mut() {
        *last = -1;
    }
    let mut prev: Vec<isize> = (-1..n as isize - 1).collect();
    let mut alive = vec![true; n];
    let mut heap = BinaryHeap::new();
    for i in 0..n.saturating_sub(1) {
        if let Some(&(rank, _)) = ranks.get(&(tok[i], tok[i + 1])) {
            heap.push(Reverse((rank, i)));
        }
    }
    while let Some(Reverse((rank, i))) = heap.pop() {
        if !alive[i] || next[i] < 0 {
            continue;
        }
        let j = next[i] as usize;
        match ranks.get(&(tok[i], tok[j])) {
            Some(&(r, merged)) if r == rank => tok[i] = merged,
            _ => continue,
        }
        alive[j] = false;
        let k = next[j];
        next[i] = k;
        if k >= 0 {
            prev[k as usize] = i as isize;
            if let Some(&(r2, _)) = ranks.get(&(tok[i], tok[k as usize])) {
                heap.push(Reverse((r2, i)));
            }
        }
        let p = prev[i];
        if p >= 0 {
            if let Some(&(r2, _)) = ranks.get(&(tok[p as usize], tok[i])) {
                heap.push(Reverse((r2, p as usize)));
            }
        }
    }
    let mut out = Vec::with_capacity(n);
    let mut i = if n > 0 { 0 } else { -1 };
    while i >= 0 {
        out.push(tok[i as usize]);
        i = next[i as usize];
    }
    out
}

impl PieceEncoder {
    /// `_Wholeness`: every token of `unit`, syllabified alone, may take part in join merges
    /// (`joinable_span`: a syllable, or a passthrough character no schema classifies).
    fn whole(&self, unit: &str) -> bool {
        let mut all = true;
        self.syllabifier.for_each_token(unit, |t| {
            all &= match t.kind {
                Kind::Syllable => true,
                Kind::Passthrough => unit[t.start..t.end]
                    .chars()
                    .last()
                    .is_some_and(|c| !self.syllabifier.classifies(c)),
                _ => false,
            };
        });
        all
    }

    /// `HierarchicalEncoder.unit`: the unit's ids after the part merges, and whether it
    /// can be joined (one token, every character known, whole).
    fn unit(&self, unit: &str) -> (Vec<u32>, bool) {
        let mut ids = Vec::new();
        let mut run = Vec::new();
        let mut known = true;
        for ch in unit.chars() {
            if let Some(&i) = self.char_ids.get(&ch) {
                run.push(i);
                continue;
            }
            known = false;
            bpe_rescan(&mut run, &self.part);
            ids.append(&mut run);
            match &self.byte_ids {
                Some(bytes) => {
                    let mut buf = [0u8; 4];
                    for b in ch.encode_utf8(&mut buf).bytes() {
                        ids.push(bytes[b as usize]);
                    }
                }
                None => ids.push(self.unk),
            }
        }
        bpe_rescan(&mut run, &self.part);
        ids.append(&mut run);
        let joinable = known && ids.len() == 1 && self.whole(unit);
        (ids, joinable)
    }

    fn join_run(&self, run: &mut Vec<u32>, out: &mut Vec<u32>) {
        if run.len() > LONG_RUN {
            out.extend(bpe_heap(run, &self.join));
        } else {
            bpe_rescan(run, &self.join);
            out.extend_from_slice(run);
        }
        run.clear();
    }

    /// `HierarchicalEncoder.ids_of_piece`, with a unit cache shared by the caller's pieces.
    pub fn encode_piece<'a>(
        &self,
        piece: &'a str,
        cache: &mut HashMap<&'a str, (Vec<u32>, bool)>,
    ) -> Vec<u32> {
        let mut out = Vec::new();
        let mut run = Vec::new();
        for t in self.syllabifier.tokens(piece) {
            let text = &piece[t.start..t.end];
            let (ids, joinable) = cache.entry(text).or_insert_with(|| self.unit(text));
            if *joinable {
                run.push(ids[0]);
                continue;
            }
            if !run.is_empty() {
                self.join_run(&mut run, &mut out);
            }
            out.extend_from_slice(ids);
        }
        if !run.is_empty() {
            self.join_run(&mut run, &mut out);
        }
        out
    }

    /// Each piece's ids, one unit cache for all of them.
    pub fn encode_pieces(&self, pieces: &[&str]) -> Vec<Vec<u32>> {
        let mut cache = HashMap::new();
        pieces
            .iter()
            .map(|p| self.encode_piece(p, &mut cache))
            .collect()
    }
}
