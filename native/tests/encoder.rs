//! The merge loops of the piece encoder: the heap gives the rescan's result (as
//! `bpe_heap` and `bpe_with_sizes` do in sgpe/hierarchical/). The encoder against the
//! Python engine on real text is tests/test_native.py.

use _native::encoder::{bpe_heap, bpe_rescan, IdRun, Ranks};

fn ranks(rules: &[((u32, u32), u32)]) -> Ranks {
    rules
        .iter()
        .enumerate()
        .map(|(rank, &(pair, merged))| (pair, (rank as u32, merged)))
        .collect()
}

#[test]
fn leftmost_lowest_rank_first() {
    // a a a: (a a) at the left first, then (aa a). a a a a: (a a) twice, the lower rank
    // winning over (aa a).
    let r = ranks(&[((1, 1), 10), ((10, 1), 11)]);
    let mut ids = vec![1, 1, 1];
    bpe_rescan(&mut ids, &r);
    assert_eq!(ids, [11]);
    let mut ids = vec![1, 1, 1, 1];
    bpe_rescan(&mut ids, &r);
    assert_eq!(ids, [10, 10]);
    assert_eq!(bpe_heap(&[1, 1, 1, 1], &r), [10, 10]);
}

#[test]
fn heap_equals_rescan_on_many_runs() {
    let r = ranks(&[
        ((1, 2), 5),
        ((2, 3), 6),
        ((5, 3), 7),
        ((3, 1), 8),
        ((7, 8), 9),
        ((6, 6), 4),
        ((4, 4), 1),
    ]);
    // Every run over {1..4} up to length 7, by counting in base 4 (deterministic).
    for len in 0..=7u32 {
        for code in 0..4u32.pow(len) {
            let run: Vec<u32> = (0..len).map(|k| 1 + (code / 4u32.pow(k)) % 4).collect();
            let mut rescanned = run.clone();
            bpe_rescan(&mut rescanned, &r);
            assert_eq!(bpe_heap(&run, &r), rescanned, "{run:?}");
        }
    }
    assert!(bpe_heap(&[], &r).is_empty());
}

#[test]
fn piece_store_tells_apart_pieces_with_one_hash() {
    use _native::encoder::PieceStore;
    let mut store = PieceStore::default();
    assert!(store.get("ක", 7).is_none());
    store.insert("ක", 7, &[1, 2]);
    store.insert("කා", 7, &[3]); // the same hash: kept apart by its bytes
    store.insert("", 8, &[]);
    assert_eq!(store.get("ක", 7), Some(&[1, 2][..]));
    assert_eq!(store.get("කා", 7), Some(&[3][..]));
    assert_eq!(store.get("", 8), Some(&[][..]));
    assert!(store.get("x", 7).is_none());
    assert_eq!(store.len(), 3);
    let all: Vec<_> = store.iter().collect();
    assert_eq!(all, [("ක", &[1, 2][..]), ("කා", &[3][..]), ("", &[][..])]);
    store.clear();
    assert!(store.is_empty() && store.get("ක", 7).is_none());
}

/// A run of a batch's texts in one buffer: each text's ids are cut at its end, empty texts
/// included (`encode_batch` gives these lists, `encode_batch_flat` the buffer).
#[test]
fn id_run_cuts_each_text_at_its_end() {
    let run = IdRun {
        ids: vec![7, 8, 9, 4],
        ends: vec![0, 3, 3, 4],
    };
    let texts: Vec<&[u32]> = run.texts().collect();
    assert_eq!(texts, [&[][..], &[7, 8, 9], &[], &[4]]);
    assert_eq!(IdRun::default().texts().count(), 0);
}
