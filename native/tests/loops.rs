//! The training merge loops (byte-level BPE, paper mode) against a slow reference that
//! recounts every pair after each merge: the same merges, counts and symbols. Both loops
//! against the Python engine on real corpora are tests/test_native_loops.py.

use std::collections::HashMap;
use std::time::Duration;

use _native::bpe::{BpeTrainer, Merge, Stop};
use _native::error::Error;

/// The byte-level baseline's loop in one call of `learn` (no symbol target): the merges
/// and whether it finished.
fn learn_bytes(
    t: &mut BpeTrainer,
    max_merges: usize,
    min_freq: i64,
    budget: Option<Duration>,
) -> (Vec<Merge>, bool) {
    let (made, stop) = t.learn(usize::MAX, min_freq, max_merges, budget);
    assert!(!matches!(stop, Stop::Failed(_)), "{stop:?}");
    (made, stop == Stop::Finished)
}

/// Left to right without overlaps.
fn merge_word(word: &[u32], left: u32, right: u32, new: u32) -> Vec<u32> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < word.len() {
        if i + 1 < word.len() && word[i] == left && word[i + 1] == right {
            out.push(new);
            i += 2;
        } else {
            out.push(word[i]);
            i += 1;
        }
    }
    out
}

/// The best pair by recounting: the highest count, then the smallest pair.
fn best_pair(words: &[(Vec<u32>, i64)]) -> Option<((u32, u32), i64)> {
    let mut counts: HashMap<(u32, u32), i64> = HashMap::new();
    for (w, c) in words {
        for p in w.windows(2) {
            *counts.entry((p[0], p[1])).or_insert(0) += c;
        }
    }
    counts
        .into_iter()
        .max_by_key(|&(pair, count)| (count, std::cmp::Reverse(pair)))
}

fn reference_bytebpe(words: &[(&[u8], i64)], merges: usize, min_freq: i64) -> Vec<Merge> {
    let mut state: Vec<(Vec<u32>, i64)> = words
        .iter()
        .map(|(w, c)| (w.iter().map(|&b| u32::from(b)).collect(), *c))
        .collect();
    let mut out = Vec::new();
    while out.len() < merges {
        let Some(((left, right), count)) = best_pair(&state) else {
            break;
        };
        if count < min_freq {
            break;
        }
        let new = 256 + out.len() as u32;
        for (w, _) in &mut state {
            *w = merge_word(w, left, right, new);
        }
        out.push(Merge {
            left,
            right,
            count,
            merged: new,
        });
    }
    out
}

/// Deterministic words over a few bytes: runs, repeats and alternations.
fn sample_words() -> Vec<(Vec<u8>, i64)> {
    let mut seed = 12345u64;
    let mut next = || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as usize
    };
    let mut words = Vec::new();
    for _ in 0..300 {
        let len = next() % 12;
        let word: Vec<u8> = (0..len).map(|_| b"aab c"[next() % 5]).collect();
        words.push((word, 1 + (next() % 7) as i64));
    }
    words.push((b"abababab".to_vec(), 5));
    words.push((b"aaaaaaa".to_vec(), 3));
    words
}

#[test]
fn bytebpe_docstring_example() {
    let words: Vec<(&[u8], i64)> = vec![(b"ab", 1), (b" ab", 2), (b"", 4)];
    let mut t = BpeTrainer::bytes(words);
    assert_eq!(t.word_count(), 2);
    let (made, finished) = learn_bytes(&mut t, 10, 1, None);
    assert!(finished);
    assert_eq!(
        made,
        [
            Merge {
                left: 97,
                right: 98,
                count: 3,
                merged: 256
            },
            Merge {
                left: 32,
                right: 256,
                count: 2,
                merged: 257
            }
        ]
    );
}

#[test]
fn bytebpe_equals_recounting_reference() {
    let owned = sample_words();
    let words: Vec<(&[u8], i64)> = owned.iter().map(|(w, c)| (w.as_slice(), *c)).collect();
    for min_freq in [1, 2, 9] {
        let expected = reference_bytebpe(&words, 200, min_freq);
        assert!(expected.len() > 20);
        let mut t = BpeTrainer::bytes(words.clone());
        // In batches of 7 merges: the same as one run.
        let mut made = Vec::new();
        loop {
            let (batch, finished) = learn_bytes(&mut t, 7.min(200 - made.len()), min_freq, None);
            made.extend(batch);
            if finished || made.len() == 200 {
                break;
            }
        }
        assert_eq!(made, expected, "min_freq {min_freq}");
    }
}

#[test]
fn bytebpe_replay_continues_exactly() {
    let owned = sample_words();
    let words: Vec<(&[u8], i64)> = owned.iter().map(|(w, c)| (w.as_slice(), *c)).collect();
    let mut whole = BpeTrainer::bytes(words.clone());
    let (all, _) = learn_bytes(&mut whole, 60, 1, Some(Duration::from_mins(1)));
    let mut resumed = BpeTrainer::bytes(words.clone());
    for m in &all[..25] {
        assert_eq!(resumed.replay(m.left, m.right, 1), Ok(*m));
    }
    let (rest, _) = learn_bytes(&mut resumed, 35, 1, None);
    assert_eq!(rest, all[25..]);
    // A pair that does not occur is refused with its count.
    let mut fresh = BpeTrainer::bytes(words);
    assert_eq!(fresh.replay(300, 7, 1), Err(Error::Mismatch { count: 0 }));
}

/// (left, right, count, merged symbol)
type PaperStep = (u32, u32, i64, u32);

fn reference_paper(
    symbols: &[&str],
    words: &[(Vec<u32>, i64)],
    target: usize,
    min_freq: i64,
) -> (Vec<PaperStep>, Vec<String>) {
    let mut symbols: Vec<String> = symbols.iter().map(ToString::to_string).collect();
    let mut state = words.to_vec();
    let mut out = Vec::new();
    while symbols.len() < target {
        let Some(((left, right), count)) = best_pair(&state) else {
            break;
        };
        if count < min_freq {
            break;
        }
        let joined = format!("{}{}", symbols[left as usize], symbols[right as usize]);
        let new = match symbols.iter().position(|s| *s == joined) {
            Some(i) => i as u32,
            None => {
                symbols.push(joined);
                symbols.len() as u32 - 1
            }
        };
        for (w, _) in &mut state {
            *w = merge_word(w, left, right, new);
        }
        out.push((left, right, count, new));
    }
    (out, symbols)
}

#[test]
fn paper_equals_recounting_reference_with_existing_symbols() {
    // "කා" is a base symbol: merging (ක, ා) gives it back instead of a new id, so the
    // symbol count does not grow for that merge.
    let symbols = ["ක", "ා", "ම", "කා", "ර", " ", "<0xE0>"];
    let owned = sample_words();
    let words: Vec<(Vec<u32>, i64)> = owned
        .iter()
        .map(|(w, c)| (w.iter().map(|&b| u32::from(b) % 7).collect(), *c))
        .collect();
    for min_freq in [1, 3] {
        let (expected, expected_symbols) = reference_paper(&symbols, &words, 60, min_freq);
        assert!(expected
            .iter()
            .any(|&(l, r, _, new)| (l, r) == (0, 1) && new == 3));
        let mut t = BpeTrainer::strings(
            symbols.iter().map(ToString::to_string).collect(),
            words.iter().map(|(w, _)| w.clone()).collect(),
            words.iter().map(|(_, c)| *c).collect(),
        )
        .unwrap();
        let mut made = Vec::new();
        loop {
            let (batch, stop) = t.learn(60, min_freq, 5, None);
            made.extend(batch.iter().map(|m| (m.left, m.right, m.count, m.merged)));
            match stop {
                Stop::Paused => {}
                Stop::Finished => break,
                Stop::Failed(err) => panic!("{err:?}"),
            }
        }
        assert_eq!(made, expected, "min_freq {min_freq}");
        assert_eq!(t.symbol_count(), expected_symbols.len());
        // Usage: every symbol occurrence of the merged segments, weighted.
        let total: i64 = t.usage().iter().sum();
        assert!(total > 0);
    }
}

#[test]
fn paper_replay_and_errors() {
    let symbols: Vec<String> = ["a", "b"].iter().map(ToString::to_string).collect();
    let words = vec![vec![0, 1, 0, 1], vec![0, 1]];
    let mut t = BpeTrainer::strings(symbols.clone(), words.clone(), vec![2, 3]).unwrap();
    assert_eq!(t.count(0, 1), 7);
    assert_eq!(
        t.replay(1, 0, 3),
        Err(Error::Mismatch { count: 2 }),
        "(b, a) occurs twice"
    );
    let m = t.replay(0, 1, 3).unwrap();
    assert_eq!((m.count, m.merged), (7, 2));
    t.rebuild_heap();
    let (made, stop) = t.learn(10, 1, 10, None);
    assert_eq!(stop, Stop::Finished);
    assert_eq!(made.len(), 1);
    assert_eq!((made[0].left, made[0].right, made[0].count), (2, 2, 2));
    assert_eq!(t.usage(), vec![0, 0, 3, 2]);
    assert!(matches!(
        BpeTrainer::strings(symbols, vec![vec![5]], vec![1]),
        Err(Error::BadSymbol(5))
    ));
}
