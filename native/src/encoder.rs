//! The hierarchical mode's piece encoder natively: `HierarchicalEncoder.ids_of_piece` of
//! `sgpe/hierarchical/`, both phases.
//!
//! Phase 1, per unit (a syllabifier token): its characters' ids, runs of known characters
//! merged with the *part* merges; a character that is not a token is spelled by its UTF-8
//! byte tokens (or `[UNK]`) and never merges. Phase 2: runs of whole joinable units (one
//! token each) merged with the *join* merges. Both use the rule of `bpe_with_sizes`: merge
//! the leftmost lowest-ranked pair until none applies (long join runs with the heap of
//! `bpe_heap`, the same result).
//!
//! Whole texts ([`TextEncoder`]): `Tokenizer.encode` of `sgpe/tokenizer.py` for a
//! hierarchical vocabulary, end to end: the pieces of `sgpe/pieces.py` ([`Splitter`],
//! Python's `\s` semantics, superword spans, the cap on long pieces), a piece cache that
//! lives as long as the tokenizer, a unit cache, and batches on a rayon pool.

use std::cmp::Reverse;
use std::collections::hash_map::Entry;
use std::collections::{BinaryHeap, HashMap};
use std::hash::{BuildHasher, BuildHasherDefault, Hasher};
use std::sync::{Mutex, MutexGuard, PoisonError};

use rayon::prelude::*;

use crate::hash::FxBuild;
use crate::pieces::Splitter;
use crate::syllables::{Kind, Syllabifier};

/// (left, right) -> (rank, merged id), with FxHash: the merge loops look pairs up many
/// times per piece, and SipHash cost more than the rest of a lookup.
pub type Ranks = HashMap<(u32, u32), (u32, u32), FxBuild>;

/// Join runs longer than this merge with the heap (`LONG_RUN` in `sgpe/bpe.py`,
/// the threshold of the merge rule both modes' encoders call; `tests/test_constants.py` keeps
/// the two languages equal).
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

/// The merge rule on one run of ids (`bpe` of `sgpe/bpe.py`), as every encoder applies
/// it: the rescan for a short run, the heap for a long one. The merged ids go to `out`, and
/// the run is left empty.
fn bpe_run(run: &mut Vec<u32>, ranks: &Ranks, out: &mut Vec<u32>) {
    if run.len() > LONG_RUN {
        out.extend(bpe_heap(run, ranks));
    } else {
        bpe_rescan(run, ranks);
        out.extend_from_slice(run);
    }
    run.clear();
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
}

// ============================================================================
// Whole texts: pre-tokenization, the piece cache, batches
// ============================================================================

const SLOTS: usize = 16;

/// A string-keyed cache of one slot per thread of the rayon pool (and one for the caller's
/// thread): a thread takes only its own slot's lock, never waited for, and no cache line
/// moves between cores on every lookup, as it would with one shared table. The units of
/// a text are a few thousand, so each thread learning them once costs little. A slot that
/// reaches its limit starts afresh, as the Python caches do; what is cached never changes
/// a result, only its cost.
#[derive(Debug)]
pub struct PerThread<V> {
    slots: Vec<Mutex<HashMap<Box<str>, V, FxBuild>>>,
    limit: usize,
}

impl<V> PerThread<V> {
    pub fn new(limit: usize) -> Self {
        PerThread {
            slots: (0..SLOTS).map(|_| Mutex::new(HashMap::default())).collect(),
            limit: limit.max(1),
        }
    }

    #[inline]
    fn slot(&self) -> MutexGuard<'_, HashMap<Box<str>, V, FxBuild>> {
        let k = rayon::current_thread_index().map_or(0, |i| i + 1) % SLOTS;
        // A panic while a lock was held (caught at the Python border) leaves a cache that
        // is still consistent: every entry is inserted whole.
        self.slots[k].lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// `take(&value)` of `key`, made by `make` when it is missing.
    #[inline]
    pub fn with<R>(&self, key: &str, make: impl FnOnce() -> V, take: impl FnOnce(&V) -> R) -> R {
        let mut slot = self.slot();
        if let Some(v) = slot.get(key) {
            return take(v);
        }
        let v = make();
        let out = take(&v);
        if slot.len() >= self.limit {
            slot.clear();
        }
        slot.insert(key.into(), v);
        out
    }
}

/// `WordSplitter.cap`'s test for a span: a plain space after the first character.
fn is_span(piece: &str) -> bool {
    piece.len() > 1 && piece.as_bytes()[1..].contains(&b' ')
}

/// Everything `Tokenizer.encode` does for a hierarchical vocabulary: pieces, the piece
/// cache, both merge phases. The caches are shared by all threads and all calls.
#[derive(Debug)]
pub struct TextEncoder {
    pub encoder: PieceEncoder,
    pub splitter: Splitter,
    /// The piece cache in shards by hash: a call holds the lock of the whole cache once,
    /// and a batch's threads then read it without locks and fill a shard each.
    pieces: Mutex<Vec<PieceStore>>,
    units: PerThread<(Box<[u32]>, bool)>,
    /// The paper mode's vocabulary (every token string to its id), or None for the
    /// hierarchical mode; a paper-mode encoder merges with `encoder.part` (all merges).
    pub paper: Option<HashMap<Box<str>, u32, FxBuild>>,
}

/// A hasher for keys that are hashes already (a piece's Fx hash): passes them through.
#[derive(Debug, Default, Clone, Copy)]
pub struct Prehashed(u64);

impl Hasher for Prehashed {
    fn write(&mut self, bytes: &[u8]) {
        let mut fx = crate::hash::Fx::default();
        fx.write_u64(self.0);
        fx.write(bytes);
        self.0 = fx.finish();
    }

    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.0 = i;
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

/// One shard of the piece cache: pieces and their ids in two flat arenas, found by the
/// piece's hash. A lookup then reads one small table and two dense arrays, where a map of
/// boxed strings to boxed slices would chase two pointers into a scattered heap (the cost
/// that dominated a warm encode). Two pieces with the same 64-bit hash are told apart by
/// their bytes; the second one lives in `clash`.
#[derive(Debug, Default)]
pub struct PieceStore {
    index: HashMap<u64, u32, BuildHasherDefault<Prehashed>>,
    clash: HashMap<Box<str>, u32, FxBuild>,
    text: String,
    ids: Vec<u32>,
    /// per entry: end of its piece in `text`, end of its ids in `ids`
    ends: Vec<(u32, u32)>,
}

impl PieceStore {
    #[inline]
    fn entry(&self, i: u32) -> (&str, &[u32]) {
        let i = i as usize;
        let (t0, d0) = if i == 0 { (0, 0) } else { self.ends[i - 1] };
        let (t1, d1) = self.ends[i];
        (
            &self.text[t0 as usize..t1 as usize],
            &self.ids[d0 as usize..d1 as usize],
        )
    }

    #[inline]
    pub fn get(&self, piece: &str, hash: u64) -> Option<&[u32]> {
        let &i = self.index.get(&hash)?;
        let (key, ids) = self.entry(i);
        if key == piece {
            return Some(ids);
        }
        self.clash.get(piece).map(|&j| self.entry(j).1)
    }

    /// Adds a piece that `get` does not find.
    pub fn insert(&mut self, piece: &str, hash: u64, ids: &[u32]) {
        let i = self.ends.len() as u32;
        self.text.push_str(piece);
        self.ids.extend_from_slice(ids);
        self.ends
            .push((self.text.len() as u32, self.ids.len() as u32));
        match self.index.entry(hash) {
            Entry::Occupied(_) => {
                self.clash.insert(piece.into(), i);
            }
            Entry::Vacant(slot) => {
                slot.insert(i);
            }
        }
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    pub fn clear(&mut self) {
        self.index.clear();
        self.clash.clear();
        self.text.clear();
        self.ids.clear();
        self.ends.clear();
    }

    /// Every (piece, ids), in the order they were added.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &[u32])> {
        (0..self.ends.len() as u32).map(|i| self.entry(i))
    }
}

/// A piece of a batch: its ids found in the cache, or new (with its shard).
enum Piece<'a> {
    Known(&'a [u32]),
    New(&'a str, u64, usize),
}

const PIECE_SHARDS: usize = 64;

/// A piece's hash and its shard of the piece cache.
#[inline]
fn piece_hash(piece: &str) -> (u64, usize) {
    let h = FxBuild::default().hash_one(piece);
    // Middle bits: a table uses the low ones for its bucket and the top 7 as tags.
    (h, (h >> 32) as usize % PIECE_SHARDS)
}

/// The ids of a run of consecutive texts of a batch, one text after the other in one
/// buffer (no allocation per text), and where each text's ids end in it.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct IdRun {
    pub ids: Vec<u32>,
    pub ends: Vec<usize>,
}

impl IdRun {
    /// Each text's ids, in order.
    pub fn texts(&self) -> impl Iterator<Item = &[u32]> {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts.zip(&self.ends).map(|(a, &b)| &self.ids[a..b])
    }
}

/// Pieces whose ids are remembered (`_PIECE_CACHE_LIMIT` in `sgpe/tokenizer.py`).
const PIECE_CACHE_LIMIT: usize = 500_000;
/// Units whose ids are remembered per thread (`_UNIT_CACHE_LIMIT` in
/// `sgpe/hierarchical/encoder.py`, `HierarchicalEncoder`'s unit cache).
const UNIT_CACHE_LIMIT: usize = 200_000;

impl TextEncoder {
    pub fn new(encoder: PieceEncoder, splitter: Splitter) -> TextEncoder {
        TextEncoder {
            encoder,
            splitter,
            pieces: Mutex::new((0..PIECE_SHARDS).map(|_| PieceStore::default()).collect()),
            units: PerThread::new(UNIT_CACHE_LIMIT),
            paper: None,
        }
    }

    /// The paper mode's encoder (`Tokenizer._encode_piece` without a hierarchical
    /// encoder): `vocab` holds every token; `encoder.part` holds every merge.
    pub fn paper(
        encoder: PieceEncoder,
        splitter: Splitter,
        vocab: HashMap<Box<str>, u32, FxBuild>,
    ) -> TextEncoder {
        TextEncoder {
            paper: Some(vocab),
            ..TextEncoder::new(encoder, splitter)
        }
    }

    /// The paper mode's piece (`_segments`, `_spell`, `_bpe` of `sgpe/tokenizer.py`): runs
    /// of syllables that are tokens merge; a missing `" X"` becomes the space alone and
    /// then `X` (with byte fallback); any other missing syllable is spelled, character by
    /// character (a token, else its UTF-8 byte tokens), or is one `[UNK]`, and never merges.
    fn paper_piece(
        &self,
        vocab: &HashMap<Box<str>, u32, FxBuild>,
        piece: &str,
        out: &mut Vec<u32>,
    ) {
        let enc = &self.encoder;
        let space = vocab.get(" ").copied();
        let flush = |run: &mut Vec<u32>, out: &mut Vec<u32>| bpe_run(run, &enc.part, out);
        let mut run = Vec::new();
        enc.syllabifier.for_each_token(piece, |t| {
            let mut u = &piece[t.start..t.end];
            if let Some(&i) = vocab.get(u) {
                run.push(i);
                return;
            }
            if enc.byte_ids.is_some() && u.len() > 1 && u.starts_with(' ') {
                if let Some(sp) = space {
                    flush(&mut run, out);
                    out.push(sp);
                    u = &u[1..];
                    if let Some(&i) = vocab.get(u) {
                        run.push(i);
                        return;
                    }
                }
            }
            flush(&mut run, out);
            match &enc.byte_ids {
                None => out.push(enc.unk),
                Some(bytes) => {
                    for ch in u.chars() {
                        match enc.char_ids.get(&ch) {
                            Some(&i) => out.push(i),
                            None => {
                                let mut buf = [0u8; 4];
                                for b in ch.encode_utf8(&mut buf).bytes() {
                                    out.push(bytes[b as usize]);
                                }
                            }
                        }
                    }
                }
            }
        });
        flush(&mut run, out);
    }

    /// `WordSplitter.pieces`: the raw pieces, a piece of more than `max_units` code
    /// points (not a span) cut after every `max_units` units.
    pub fn pieces<'t>(&self, text: &'t str, mut emit: impl FnMut(&'t str)) {
        let cap = self.splitter.max_units;
        self.splitter.for_each_piece(text, |piece| {
            // A piece of at most `cap` bytes has at most `cap` code points.
            if piece.len() <= cap || piece.chars().count() <= cap || is_span(piece) {
                emit(piece);
                return;
            }
            let mut units = 0;
            let mut from = 0;
            self.encoder.syllabifier.for_each_token(piece, |t| {
                if units == cap {
                    emit(&piece[from..t.start]);
                    from = t.start;
                    units = 0;
                }
                units += 1;
            });
            emit(&piece[from..]);
        });
    }

    /// The ids of one piece: `HierarchicalEncoder.ids_of_piece` with the shared unit
    /// cache, or the paper mode's.
    pub fn encode_piece(&self, piece: &str, out: &mut Vec<u32>) {
        if let Some(vocab) = &self.paper {
            return self.paper_piece(vocab, piece, out);
        }
        let enc = &self.encoder;
        let mut run = Vec::new();
        enc.syllabifier.for_each_token(piece, |t| {
            let text = &piece[t.start..t.end];
            self.units.with(
                text,
                || {
                    let (ids, joinable) = enc.unit(text);
                    (ids.into_boxed_slice(), joinable)
                },
                |(ids, joinable)| {
                    if *joinable {
                        run.push(ids[0]);
                        return;
                    }
                    if !run.is_empty() {
                        bpe_run(&mut run, &enc.join, out);
                    }
                    out.extend_from_slice(ids);
                },
            );
        });
        if !run.is_empty() {
            bpe_run(&mut run, &enc.join, out);
        }
    }

    fn piece_cache(&self) -> MutexGuard<'_, Vec<PieceStore>> {
        // A panic while the lock was held (caught at the Python border) leaves a cache
        // that is still consistent: every entry is inserted whole.
        self.pieces.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// `Tokenizer.encode(text)` (the caller adds the prepended space): ids appended to
    /// `out`, each piece looked up in the piece cache first.
    pub fn encode(&self, text: &str, out: &mut Vec<u32>) {
        let mut cache = self.piece_cache();
        let limit = PIECE_CACHE_LIMIT / PIECE_SHARDS;
        self.pieces(text, |piece| {
            let (h, k) = piece_hash(piece);
            let shard = &mut cache[k];
            if let Some(ids) = shard.get(piece, h) {
                out.extend_from_slice(ids);
                return;
            }
            let from = out.len();
            self.encode_piece(piece, out);
            if shard.len() >= limit {
                shard.clear(); // as the Python cache does when full
            }
            shard.insert(piece, h, &out[from..]);
        });
    }

    /// `encode` of each text, on the current rayon pool, in the texts' order whatever the
    /// split. Four steps, none of which takes a lock per piece: (1) in parallel over
    /// chunks of texts, cut the pieces, each either found in the cache (its ids kept by
    /// reference) or new (collected by shard, once per chunk); (2) in parallel over
    /// shards, encode each new piece of all chunks once; (3) in parallel over chunks, put
    /// each text's ids together; (4) in parallel over shards, cache the new pieces.
    pub fn encode_batch(&self, texts: &[&str]) -> Vec<Vec<u32>> {
        self.encode_batch_flat(texts)
            .into_iter()
            .flat_map(|run| run.texts().map(<[u32]>::to_vec).collect::<Vec<_>>())
            .collect()
    }

    /// [`TextEncoder::encode_batch`] as runs of consecutive texts, in the texts' order,
    /// each run's ids in one buffer (see [`IdRun`]).
    pub fn encode_batch_flat(&self, texts: &[&str]) -> Vec<IdRun> {
        let done = Mutex::new(Vec::new());
        self.encode_batch_with(texts, |k, run| {
            done.lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push((k, run));
        });
        let mut done = done.into_inner().unwrap_or_else(PoisonError::into_inner);
        done.sort_unstable_by_key(|&(k, _)| k);
        done.into_iter().map(|(_, run)| run).collect()
    }

    /// [`TextEncoder::encode_batch`] handing each chunk's ids to `emit` as soon as they
    /// are ready: `emit(k, run)` for the `k`-th run of consecutive texts (in any order of
    /// `k`; the runs cover the texts in order). The caller can turn one chunk into Python
    /// lists while the threads still work on the others.
    pub fn encode_batch_with(&self, texts: &[&str], emit: impl Fn(usize, IdRun) + Sync) {
        let mut cache = self.piece_cache();
        let threads = rayon::current_num_threads();
        let chunk = texts.len().div_ceil(4 * threads).max(1);
        let limit = PIECE_CACHE_LIMIT / PIECE_SHARDS;
        let new_by_shard = {
            let read: &Vec<PieceStore> = &cache;
            // (1) each chunk: its texts' pieces, and its new pieces by shard.
            type Found<'a> = (Vec<Vec<Piece<'a>>>, Vec<Vec<(&'a str, u64)>>);
            let found: Vec<Found<'_>> = texts
                .par_chunks(chunk)
                .map(|c| {
                    let mut seen: Vec<HashMap<&str, u64, FxBuild>> =
                        (0..PIECE_SHARDS).map(|_| HashMap::default()).collect();
                    let pieces = c
                        .iter()
                        .map(|t| {
                            let mut ps = Vec::with_capacity(t.len() / 8 + 1);
                            self.pieces(t, |p| {
                                let (h, k) = piece_hash(p);
                                ps.push(match read[k].get(p, h) {
                                    Some(ids) => Piece::Known(ids),
                                    None => {
                                        seen[k].insert(p, h);
                                        Piece::New(p, h, k)
                                    }
                                });
                            });
                            ps
                        })
                        .collect();
                    let new = seen.into_iter().map(|m| m.into_iter().collect()).collect();
                    (pieces, new)
                })
                .collect();
            // (2) each shard: its new pieces of all chunks, encoded once.
            let new_by_shard: Vec<PieceStore> = (0..PIECE_SHARDS)
                .into_par_iter()
                .map(|k| {
                    let mut new = PieceStore::default();
                    let mut ids = Vec::new();
                    for (_, by_shard) in &found {
                        for &(p, h) in &by_shard[k] {
                            if new.get(p, h).is_none() {
                                ids.clear();
                                self.encode_piece(p, &mut ids);
                                new.insert(p, h, &ids);
                            }
                        }
                    }
                    new
                })
                .collect();
            // (3) each text's ids, a chunk at a time.
            found.par_iter().enumerate().for_each(|(k, (pieces, _))| {
                let mut run = IdRun {
                    ids: Vec::with_capacity(pieces.iter().map(|ps| ps.len() * 2).sum()),
                    ends: Vec::with_capacity(pieces.len()),
                };
                for ps in pieces {
                    for p in ps {
                        match *p {
                            Piece::Known(ids) => run.ids.extend_from_slice(ids),
                            Piece::New(p, h, k) => match new_by_shard[k].get(p, h) {
                                Some(ids) => run.ids.extend_from_slice(ids),
                                None => self.encode_piece(p, &mut run.ids),
                            },
                        }
                    }
                    run.ends.push(run.ids.len());
                }
                emit(k, run);
            });
            new_by_shard
        };
        // (4) the new pieces into the cache (a full shard starts afresh).
        cache
            .par_iter_mut()
            .zip(new_by_shard)
            .for_each(|(shard, new)| {
                if shard.len() + new.len() > limit {
                    shard.clear();
                }
                for (p, ids) in new.iter().take(limit) {
                    shard.insert(p, piece_hash(p).0, ids);
                }
            });
    }

    /// How many pieces are cached (for tests).
    pub fn cached_pieces(&self) -> usize {
        self.piece_cache().iter().map(PieceStore::len).sum()
    }
}
