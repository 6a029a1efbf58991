//! The long lists of `vocab.json` as `sgpe/_files.py`'s `dumps_json` spells them (Python's
//! `json` with `ensure_ascii=False`): the text of the items only, joined by the caller's
//! separator. `tests/test_files.py` compares them with Python's own text.

use std::fmt::Write;

/// `s` as a JSON string, quotes included, as `json.encoder`'s C encoder writes it: `"`
/// and `\` escaped, the control characters below U+0020 as `\n`, `\r`, `\t`, `\b`, `\f`
/// or `\u00xx` (lowercase hex), every other character as it is.
pub fn push_string(out: &mut String, s: &str) {
    out.push('"');
    let mut start = 0;
    for (i, &b) in s.as_bytes().iter().enumerate() {
        let short = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            0..=0x1f => "",
            _ => continue,
        };
        out.push_str(&s[start..i]); // a byte below 0x80 always ends a character
        if short.is_empty() {
            let _ = write!(out, "\\u{b:04x}");
        } else {
            out.push_str(short);
        }
        start = i + 1;
    }
    out.push_str(&s[start..]);
    out.push('"');
}

fn capacity<'a>(strs: impl Iterator<Item = &'a str>, per_item: usize) -> usize {
    strs.map(|s| s.len() + per_item).sum()
}

/// `["left", "right"]` (`inner` between the two) for each pair of `flat` (left, right,
/// left, right, ...), joined by `sep`: a merge list (`", "` in `vocab.json`, `","` in a
/// checkpoint).
pub fn pairs(flat: &[&str], sep: &str, inner: &str) -> String {
    let mut out = String::with_capacity(capacity(flat.iter().copied(), 4 + sep.len()));
    for (k, pair) in flat.chunks(2).enumerate() {
        if k > 0 {
            out.push_str(sep);
        }
        out.push('[');
        for (j, s) in pair.iter().enumerate() {
            if j > 0 {
                out.push_str(inner);
            }
            push_string(&mut out, s);
        }
        out.push(']');
    }
    out
}

/// `"key": value` for each entry, joined by `sep`: a vocabulary.
pub fn entries(keys: &[&str], values: &[i64], sep: &str) -> String {
    let mut out = String::with_capacity(capacity(keys.iter().copied(), 10 + sep.len()));
    for (k, (key, value)) in keys.iter().zip(values).enumerate() {
        if k > 0 {
            out.push_str(sep);
        }
        push_string(&mut out, key);
        let _ = write!(out, ": {value}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_as_python_json_does() {
        let mut out = String::new();
        push_string(&mut out, "a\"b\\c\n\r\t\u{8}\u{c}\u{1}\u{1f} \u{7f}ශ්‍රී");
        assert_eq!(out, "\"a\\\"b\\\\c\\n\\r\\t\\b\\f\\u0001\\u001f \u{7f}ශ්‍රී\"");
    }

    #[test]
    fn joins_items() {
        assert_eq!(
            pairs(&["a", "b", "c", "d"], ",\n  ", ", "),
            "[\"a\", \"b\"],\n  [\"c\", \"d\"]"
        );
        assert_eq!(pairs(&["a", "b"], ",", ","), "[\"a\",\"b\"]");
        assert_eq!(
            entries(&["a", "b"], &[0, 12], ",\n  "),
            "\"a\": 0,\n  \"b\": 12"
        );
    }
}
