//! The word level's words for the merge loop of [`crate::hierarchical`]: one array of
//! slots, each word a linked run of them, so that a slot keeps its place while merges
//! shorten its word.
//!
//! The pair index then holds slots, not words: a merge visits the occurrences of its pair
//! and their neighbours, never the rest of the word. Without spaces a word is a piece of
//! up to `max_piece_units` units (sgpe/pieces.py), and visiting whole words made each merge
//! cost the length of every word that holds its pair (bench/results/long_pieces.md).

/// The symbol of a slot that a merge joined into the slot on its left.
pub const GONE: u32 = u32::MAX;
/// No slot: before a word's first, after its last.
pub const NONE: u32 = u32::MAX;

/// One slot: its symbol, its neighbours in its word, its word. Together in 16 bytes: a
/// merge reads them at scattered places of a large store (a text without spaces has few
/// repeated words), one cache line each.
#[derive(Debug, Clone, Copy)]
struct Slot {
    sym: u32,
    next: u32,
    prev: u32,
    word: u32,
}

/// The words one after the other (a word's slots are in order, so a slot's number also
/// orders the occurrences in its word left to right, as `str.replace` finds them).
#[derive(Debug, Clone, Default)]
pub struct WordStore {
    slots: Vec<Slot>,
    first: Vec<u32>,
}

impl WordStore {
    /// `None` when the words hold more slots than a `u32` numbers.
    pub fn new(words: &[Vec<u32>]) -> Option<WordStore> {
        let total: usize = words.iter().map(Vec::len).sum();
        if total >= NONE as usize || words.len() >= NONE as usize {
            return None;
        }
        let mut store = WordStore {
            slots: Vec::with_capacity(total),
            first: Vec::with_capacity(words.len()),
        };
        for (wi, w) in words.iter().enumerate() {
            let start = store.slots.len() as u32;
            store.first.push(if w.is_empty() { NONE } else { start });
            for (i, &v) in w.iter().enumerate() {
                let slot = start + i as u32;
                store.slots.push(Slot {
                    sym: v,
                    next: if i + 1 == w.len() { NONE } else { slot + 1 },
                    prev: if i == 0 { NONE } else { slot - 1 },
                    word: wi as u32,
                });
            }
        }
        Some(store)
    }

    pub fn count(&self) -> usize {
        self.first.len()
    }

    /// Every slot's number, symbol, and the slot after it in its word ([`NONE`] at the
    /// end); merged-away slots ([`GONE`]) left out.
    pub fn slots(&self) -> impl Iterator<Item = (u32, u32, u32)> + '_ {
        (0u32..)
            .zip(&self.slots)
            .filter(|(_, s)| s.sym != GONE)
            .map(|(i, s)| (i, s.sym, s.next))
    }

    /// The symbols of word `wi`, in order.
    pub fn word(&self, wi: usize) -> Vec<u32> {
        let mut out = Vec::new();
        let mut s = self.first[wi];
        while s != NONE {
            out.push(self.slots[s as usize].sym);
            s = self.slots[s as usize].next;
        }
        out
    }

    #[inline]
    pub fn sym(&self, slot: u32) -> u32 {
        self.slots[slot as usize].sym
    }

    #[inline]
    pub fn set(&mut self, slot: u32, v: u32) {
        self.slots[slot as usize].sym = v;
    }

    #[inline]
    pub fn next(&self, slot: u32) -> u32 {
        self.slots[slot as usize].next
    }

    #[inline]
    pub fn prev(&self, slot: u32) -> u32 {
        self.slots[slot as usize].prev
    }

    #[inline]
    pub fn word_of(&self, slot: u32) -> usize {
        self.slots[slot as usize].word as usize
    }

    /// Slot `slot` and the one after it become one: `slot` takes `v`, the other is gone.
    #[inline]
    pub fn join(&mut self, slot: u32, v: u32) {
        let right = self.slots[slot as usize].next;
        let after = self.slots[right as usize].next;
        self.slots[slot as usize].sym = v;
        self.slots[right as usize].sym = GONE;
        self.slots[slot as usize].next = after;
        if after != NONE {
            self.slots[after as usize].prev = slot;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joins_keep_the_other_slots_in_place() {
        let mut store = WordStore::new(&[vec![1, 2, 3, 4], vec![], vec![5]]).unwrap();
        store.join(1, 9);
        assert_eq!(store.word(0), [1, 9, 4]);
        assert_eq!((store.next(1), store.prev(3), store.sym(2)), (3, 1, GONE));
        store.join(0, 8);
        assert_eq!(store.word(0), [8, 4]);
        assert_eq!(store.word(1), Vec::<u32>::new());
        assert_eq!(store.word(2), [5]);
        let live: Vec<_> = store.slots().collect();
        assert_eq!(live, [(0, 8, 3), (3, 4, NONE), (4, 5, NONE)]);
        assert_eq!((store.word_of(3), store.count()), (0, 3));
    }
}
