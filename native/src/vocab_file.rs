//! A `vocab.json` read natively, for `Tokenizer.load` (`sgpe/tokenizer.py`) under the native
//! engine: the two big keys, `vocab` and `merges`, are parsed and checked here; every other
//! key goes back to Python as JSON text, where `Tokenizer.from_dict` checks it as it checks
//! any file.
//!
//! The reader never reports an error of its own. Whatever it does not accept (not UTF-8,
//! not JSON, JSON that Python reads and serde_json does not, such as NaN or a lone
//! surrogate, a missing or malformed key, ids that are not 0..n-1, a merge whose parts
//! are not tokens, a token given twice) makes it decline, and the Python reader then reads
//! the file and says what is wrong, with the message it always gave. So the reader only
//! has to be as strict as Python on what it accepts, never as wordy.
//!
//! The Python reader parses `vocab` into a dict (the last of two equal keys wins, in the
//! place of the first); declining on a repeated token leaves that case to it.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;

use serde::de::{Deserialize, Deserializer, Error as _, MapAccess, Visitor};
use serde_json::value::RawValue;

use rayon::prelude::*;

use crate::encoder::Ranks;
use crate::hash::FxBuild;
use crate::hierarchical;
use crate::syllables::Syllabifier;

/// The keys this reader parses; the rest is the header.
const VOCAB: &str = "vocab";
const MERGES: &str = "merges";

/// A vocabulary file whose `vocab` and `merges` passed the checks of `Tokenizer._check`
/// on them: ids exactly 0..n-1, each once; both parts of every merge and their
/// concatenation are tokens.
#[derive(Debug, Clone)]
pub struct VocabFile {
    /// Every other top-level key, as one JSON object's text (each value's own text, as
    /// the file spells it).
    pub header: String,
    /// The tokens in the file's order, with their ids.
    pub entries: Vec<(String, u32)>,
    /// For each id, its token's index in `entries`.
    pub by_id: Vec<u32>,
    /// Each merge as (left id, right id, merged id), in rank order.
    pub merges: Vec<(u32, u32, u32)>,
}

/// `vocab` in the file's order: a JSON object of token -> integer.
struct Entries(Vec<(String, i64)>);

impl<'de> Deserialize<'de> for Entries {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Ordered;
        impl<'de> Visitor<'de> for Ordered {
            type Value = Entries;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object of token ids")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Entries, A::Error> {
                let mut out = Vec::with_capacity(map.size_hint().unwrap_or(0));
                while let Some(entry) = map.next_entry::<String, i64>()? {
                    out.push(entry);
                }
                Ok(Entries(out))
            }
        }
        d.deserialize_map(Ordered)
    }
}

/// A JSON string, borrowed from the file's text unless it holds an escape: the merges'
/// strings are only looked up, so most of them are never copied.
struct Text<'de>(Cow<'de, str>);

impl<'de> Deserialize<'de> for Text<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Str;
        impl<'de> Visitor<'de> for Str {
            type Value = Text<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Owned(v.to_owned())))
            }
        }
        d.deserialize_str(Str)
    }
}

/// The file's top-level object in one pass: `vocab` and `merges` parsed, every other key
/// kept as its own text. A key given twice: the last one counts, as in Python's reader.
struct Top<'de> {
    vocab: Option<Vec<(String, i64)>>,
    merges: Option<Vec<(Text<'de>, Text<'de>)>>,
    header: String,
}

impl<'de> Deserialize<'de> for Top<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Keys;
        impl<'de> Visitor<'de> for Keys {
            type Value = Top<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a vocabulary object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Top<'de>, A::Error> {
                let mut top = Top {
                    vocab: None,
                    merges: None,
                    header: String::from("{"),
                };
                while let Some(key) = map.next_key::<String>()? {
                    match key.as_str() {
                        VOCAB => top.vocab = Some(map.next_value::<Entries>()?.0),
                        MERGES => top.merges = Some(map.next_value()?),
                        _ => {
                            let value: &RawValue = map.next_value()?;
                            if top.header.len() > 1 {
                                top.header.push(',');
                            }
                            let key = serde_json::to_string(&key).map_err(A::Error::custom)?;
                            top.header.push_str(&key);
                            top.header.push(':');
                            top.header.push_str(value.get());
                        }
                    }
                }
                top.header.push('}');
                Ok(top)
            }
        }
        d.deserialize_map(Keys)
    }
}

impl VocabFile {
    /// The file's text read, or None where the Python reader has to answer (see the
    /// module doc).
    pub fn parse(text: &str) -> Option<VocabFile> {
        let top: Top = serde_json::from_str(text).ok()?;
        let (raw, pairs, header) = (top.vocab?, top.merges?, top.header);
        let n = raw.len();
        let mut ids: HashMap<&str, u32, FxBuild> =
            HashMap::with_capacity_and_hasher(n, FxBuild::default());
        let mut by_id = vec![u32::MAX; n];
        for (k, (token, id)) in raw.iter().enumerate() {
            let id = usize::try_from(*id).ok().filter(|&i| i < n)?;
            if by_id[id] != u32::MAX || ids.insert(token.as_str(), id as u32).is_some() {
                return None; // an id or a token given twice
            }
            by_id[id] = k as u32;
        }
        let mut joined = String::new();
        let mut merges = Vec::with_capacity(pairs.len());
        for (Text(a), Text(b)) in &pairs {
            joined.clear();
            joined.push_str(a);
            joined.push_str(b);
            merges.push((
                *ids.get(a.as_ref())?,
                *ids.get(b.as_ref())?,
                *ids.get(joined.as_str())?,
            ));
        }
        let entries = raw.into_iter().map(|(t, i)| (t, i as u32)).collect();
        Some(VocabFile {
            header,
            entries,
            by_id,
            merges,
        })
    }

    /// token -> id of those of `tokens` the file holds, in one pass over the file's
    /// tokens (no map of all of them is kept).
    pub fn lookup(&self, tokens: Vec<String>) -> HashMap<String, u32> {
        let mut wanted: HashMap<String, Option<u32>, FxBuild> =
            tokens.into_iter().map(|t| (t, None)).collect();
        for (token, id) in &self.entries {
            if let Some(slot) = wanted.get_mut(token.as_str()) {
                *slot = Some(*id);
            }
        }
        wanted
            .into_iter()
            .filter_map(|(t, id)| Some((t, id?)))
            .collect()
    }

    /// The token of `id`.
    pub fn token(&self, id: u32) -> &str {
        &self.entries[self.by_id[id as usize] as usize].0
    }

    /// `merge_kind` of every merge (`hierarchical::PART` or `JOIN`), as
    /// `hierarchical::merge_kinds` answers them (the same two functions decide), on all
    /// cores: first whether each token is whole, then each merge of two whole tokens.
    pub fn merge_kinds(&self, syll: &Syllabifier) -> Vec<u8> {
        let whole: Vec<bool> = self
            .entries
            .par_iter()
            .map(|(t, _)| hierarchical::is_whole(syll, t))
            .collect();
        let whole_id = |i: u32| whole[self.by_id[i as usize] as usize];
        self.merges
            .par_iter()
            .map_init(String::new, |text, &(a, b, _)| {
                if whole_id(a) && whole_id(b) {
                    hierarchical::boundary_kind(syll, self.token(a), self.token(b), text)
                } else {
                    hierarchical::PART
                }
            })
            .collect()
    }

    /// The ids of single-character tokens (`native_text_encoder`'s `char_ids`).
    pub fn char_ids(&self) -> HashMap<char, u32> {
        self.entries
            .iter()
            .filter_map(|(t, i)| {
                let mut chars = t.chars();
                match (chars.next(), chars.next()) {
                    (Some(c), None) => Some((c, *i)),
                    _ => None,
                }
            })
            .collect()
    }

    /// Every token -> id (the paper mode's lookup of whole syllables).
    pub fn vocab(&self) -> HashMap<Box<str>, u32, FxBuild> {
        self.entries
            .iter()
            .map(|(t, i)| (t.as_str().into(), *i))
            .collect()
    }

    /// The rank tables: (left, right) -> (rank, merged id) of each pair's first merge, into
    /// the first table where `is_join` says false and the second where true (as
    /// `HierarchicalEncoder` splits part and join merges, and `Tokenizer._ranks` keeps
    /// every merge in one table).
    pub fn ranks(&self, is_join: impl Fn(usize) -> bool) -> (Ranks, Ranks) {
        let mut part = Ranks::default();
        let mut join = Ranks::default();
        for (rank, &(a, b, merged)) in self.merges.iter().enumerate() {
            let table = if is_join(rank) { &mut join } else { &mut part };
            table.entry((a, b)).or_insert((rank as u32, merged));
        }
        (part, join)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_big_keys_and_hands_back_the_rest() {
        let text = r#"{"format": "sgpe-vocab", "training": {"x": 1.50},
            "vocab": {"b": 1, "a": 0, "ab": 2}, "merges": [["a", "b"]]}"#;
        let file = VocabFile::parse(text).unwrap();
        assert_eq!(file.token(0), "a");
        assert_eq!(file.entries[0], ("b".to_string(), 1));
        assert_eq!(file.merges, vec![(0, 1, 2)]);
        let header: serde_json::Value = serde_json::from_str(&file.header).unwrap();
        assert_eq!(header["format"], "sgpe-vocab");
        assert!(file.header.contains("1.50"), "values keep their own text");
        assert!(!file.header.contains("merges"));
        let (part, join) = file.ranks(|_| false);
        assert_eq!(part.get(&(0, 1)), Some(&(0, 2)));
        assert!(join.is_empty());
    }

    #[test]
    fn declines_what_python_must_answer() {
        for bad in [
            r#"{"vocab": {"a": 0, "a": 1}, "merges": []}"#,
            r#"{"vocab": {"a": 1}, "merges": []}"#,
            r#"{"vocab": {"a": 0, "b": 0}, "merges": []}"#,
            r#"{"vocab": {"a": 0.0}, "merges": []}"#,
            r#"{"vocab": {"a": 0, "b": 1}, "merges": [["a", "b"]]}"#,
            r#"{"vocab": {"a": 0}, "merges": [["a", "a", "a"]]}"#,
            r#"{"vocab": {"a": 0}}"#,
            r#"{"vocab": {"a": 0}, "merges": [], "x": NaN}"#,
            r#"{"vocab": {"\ud800": 0}, "merges": []}"#,
            "[]",
        ] {
            assert!(VocabFile::parse(bad).is_none(), "{bad}");
        }
    }
}
