//! Our JSON files (`vocab.json` above all) spelled natively, byte for byte as
//! `dumps_json` in `sgpe/_json.py` spells them, which stays the reference (the Python
//! engine writes with it, and `tests/test_json_native.py` compares the two).
//!
//! Strings are spelled by `serde_json`, whose escapes are Python's `json` with
//! `ensure_ascii=False`: `\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`, any other code point
//! below U+0020 as `\u00xx` in lowercase hex, every other character as it is. What the
//! core cannot spell as Python does (a float's `repr`, an int beyond i64, a top-level key
//! spelled with `ensure_ascii`) the binding hands over already spelled ([`Value::Raw`]).

use std::io::Write as _;

/// A JSON value as `json.dumps` sees it; its strings are the caller's (`&str`, or the
/// binding's handles on Python strings), not copied.
#[derive(Debug, Clone, PartialEq)]
pub enum Value<S> {
    Null,
    Bool(bool),
    Int(i64),
    /// JSON text spelled by the caller, written as it is.
    Raw(String),
    Str(S),
    List(Vec<Value<S>>),
    Dict(Vec<(S, Value<S>)>),
}

/// Where `dumps_json` breaks lines (`JsonLayout` in `sgpe/_json.py`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout<'a> {
    /// Before each top-level key.
    pub key_indent: &'a str,
    /// A top-level list or dict of more items is written one item per line.
    pub inline_max: usize,
    /// Items spelled without spaces (`json.dumps(separators=(",", ":"))`).
    pub compact: bool,
}

/// Between the items of a long top-level list or dict (`ITEM_SEP` of `sgpe/_json.py`).
const ITEM_SEP: &str = ",\n  ";

fn push_str(out: &mut Vec<u8>, s: &str) {
    // Writing into a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *out, s);
}

/// `json.dumps(value, ensure_ascii=False)`, with `(", ", ": ")` or, `compact`,
/// `(",", ":")` as separators.
pub fn push_value<S: AsRef<str>>(out: &mut Vec<u8>, value: &Value<S>, compact: bool) {
    let (item, key) = if compact { (",", ":") } else { (", ", ": ") };
    match value {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
        Value::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Value::Raw(text) => out.extend_from_slice(text.as_bytes()),
        Value::Str(s) => push_str(out, s.as_ref()),
        Value::List(items) => {
            out.push(b'[');
            for (k, v) in items.iter().enumerate() {
                if k > 0 {
                    out.extend_from_slice(item.as_bytes());
                }
                push_value(out, v, compact);
            }
            out.push(b']');
        }
        Value::Dict(entries) => {
            out.push(b'{');
            for (k, (name, v)) in entries.iter().enumerate() {
                if k > 0 {
                    out.extend_from_slice(item.as_bytes());
                }
                push_str(out, name.as_ref());
                out.extend_from_slice(key.as_bytes());
                push_value(out, v, compact);
            }
            out.push(b'}');
        }
    }
}

/// The text `dumps_json(data, layout=...)` gives for a dict of `items`: each a top-level
/// key already spelled as JSON (`json.dumps(key)`) and its value. One key per line; a
/// list or dict of more than `inline_max` items one item per line.
pub fn dumps<S: AsRef<str>>(items: &[(&str, Value<S>)], layout: Layout<'_>) -> Vec<u8> {
    let mut out = b"{\n".to_vec();
    for (k, (key, value)) in items.iter().enumerate() {
        let comma = if k + 1 < items.len() { "," } else { "" };
        out.extend_from_slice(layout.key_indent.as_bytes());
        out.extend_from_slice(key.as_bytes());
        out.extend_from_slice(b": ");
        match value {
            Value::List(values) if values.len() > layout.inline_max => {
                out.extend_from_slice(b"[\n  ");
                for (j, v) in values.iter().enumerate() {
                    if j > 0 {
                        out.extend_from_slice(ITEM_SEP.as_bytes());
                    }
                    push_value(&mut out, v, layout.compact);
                }
                out.extend_from_slice(b"\n ]");
            }
            Value::Dict(entries) if entries.len() > layout.inline_max => {
                out.extend_from_slice(b"{\n  ");
                for (j, (name, v)) in entries.iter().enumerate() {
                    if j > 0 {
                        out.extend_from_slice(ITEM_SEP.as_bytes());
                    }
                    push_str(&mut out, name.as_ref());
                    out.extend_from_slice(b": "); // a space in both layouts, as dumps_json writes it
                    push_value(&mut out, v, layout.compact);
                }
                out.extend_from_slice(b"\n }");
            }
            _ => push_value(&mut out, value, layout.compact),
        }
        out.extend_from_slice(comma.as_bytes());
        out.push(b'\n');
    }
    out.extend_from_slice(b"}\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const CANONICAL: Layout<'static> = Layout {
        key_indent: "",
        inline_max: 8,
        compact: false,
    };
    const BYTE_LEVEL: Layout<'static> = Layout {
        key_indent: " ",
        inline_max: 0,
        compact: true,
    };

    fn text(items: &[(&str, Value<&str>)], layout: Layout<'_>) -> String {
        String::from_utf8(dumps(items, layout)).unwrap()
    }

    #[test]
    fn strings_are_escaped_as_python_json_with_ensure_ascii_off() {
        let mut out = Vec::new();
        push_str(
            &mut out,
            "a\"b\\c\u{8}\u{c}\n\r\t\u{0}\u{1f}\u{7f}\u{2028}\u{feff}😀",
        );
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "\"a\\\"b\\\\c\\b\\f\\n\\r\\t\\u0000\\u001f\u{7f}\u{2028}\u{feff}😀\""
        );
    }

    #[test]
    fn the_two_layouts() {
        let items = vec![
            ("\"name\"", Value::Str("x")),
            ("\"few\"", Value::List(vec![Value::Int(1), Value::Null])),
            (
                "\"many\"",
                Value::List((0..9).map(|i| Value::List(vec![Value::Int(i)])).collect()),
            ),
            (
                "\"d\"",
                Value::Dict(vec![
                    ("k", Value::Bool(true)),
                    ("l", Value::Raw("1.5".into())),
                ]),
            ),
        ];
        let many = (0..9).map(|i| format!("[{i}]")).collect::<Vec<_>>();
        assert_eq!(
            text(&items, CANONICAL),
            format!(
                "{{\n\"name\": \"x\",\n\"few\": [1, null],\n\"many\": [\n  {}\n ],\n\
                 \"d\": {{\"k\": true, \"l\": 1.5}}\n}}\n",
                many.join(",\n  ")
            )
        );
        assert_eq!(
            text(&items, BYTE_LEVEL),
            format!(
                "{{\n \"name\": \"x\",\n \"few\": [\n  1,\n  null\n ],\n \"many\": [\n  {}\n ],\n \
                 \"d\": {{\n  \"k\": true,\n  \"l\": 1.5\n }}\n}}\n",
                many.join(",\n  ")
            )
        );
        let empty: Vec<(&str, Value<&str>)> = vec![
            ("\"e\"", Value::List(vec![])),
            ("\"f\"", Value::Dict(vec![])),
        ];
        assert_eq!(text(&empty, BYTE_LEVEL), "{\n \"e\": [],\n \"f\": {}\n}\n");
        assert_eq!(text(&[], CANONICAL), "{\n}\n");
    }
}
