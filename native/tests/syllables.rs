//! The syllabifier on the shipped schemas (read from sgpe/schemas/*.json, as sgpe/engine.py
//! hands them over) with the examples of sgpe/syllables.py's docstrings and
//! tests/test_syllabify.py. The exhaustive comparison with the Python engine is
//! tests/test_native.py; these check the Rust core alone, without Python.

use _native::syllables::{py_isspace, Kind, SchemaSpec, Syllabifier};
use serde_json::Value;

const SCRIPTS: [&str; 12] = [
    "sinhala",
    "devanagari",
    "bengali",
    "gurmukhi",
    "gujarati",
    "odia",
    "tamil",
    "telugu",
    "kannada",
    "malayalam",
    "myanmar",
    "khmer",
];

fn cp(v: &Value) -> u32 {
    u32::from_str_radix(v.as_str().expect("hex string"), 16).expect("hex code point")
}

fn letter(s: &str) -> char {
    s.chars().next().expect("class letter")
}

fn names(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| a.iter().map(|s| s.as_str().unwrap().to_string()).collect())
        .unwrap_or_default()
}

fn load(name: &str) -> SchemaSpec {
    let path = format!("{}/../sgpe/schemas/{name}.json", env!("CARGO_MANIFEST_DIR"));
    let data: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let classes = data["classes"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| {
            let ranges = v["ranges"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| (cp(&r[0]), cp(&r[1])))
                .collect();
            (letter(k), ranges)
        })
        .collect();
    let units = data["units"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|u| {
                    let seq = u["sequence"].as_array().unwrap();
                    let text = seq.iter().map(|c| char::from_u32(cp(c)).unwrap()).collect();
                    (letter(u["class"].as_str().unwrap()), text)
                })
                .collect()
        })
        .unwrap_or_default();
    let dfa = &data["dfa"];
    let transitions = dfa["transitions"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(state, edges)| {
            let edges = edges
                .as_object()
                .unwrap()
                .iter()
                .map(|(k, to)| (letter(k), to.as_str().unwrap().to_string()))
                .collect();
            (state.clone(), edges)
        })
        .collect();
    SchemaSpec {
        classes,
        units,
        start: dfa["start"].as_str().unwrap().to_string(),
        transitions,
        accept: names(&dfa["accept"]),
        orphan_states: names(&dfa["orphan_states"]),
    }
}

fn auto(leading_space: bool) -> Syllabifier {
    let specs: Vec<SchemaSpec> = SCRIPTS.iter().map(|s| load(s)).collect();
    Syllabifier::new(&specs, leading_space).unwrap()
}

#[test]
fn docstring_examples() {
    let plain = auto(false);
    assert_eq!(
        plain.syllabify("ශ්‍රී ලංකාව"),
        ["ශ්\u{200d}රී", " ", "ලං", "කා", "ව"]
    );
    assert_eq!(
        auto(true).syllabify("ශ්‍රී ලංකාව"),
        ["ශ්\u{200d}රී", " ලං", "කා", "ව"]
    );
    assert_eq!(
        plain.syllabify("क्षत्रिय नमस्ते"),
        ["क्ष", "त्रि", "य", " ", "न", "म", "स्ते"]
    );
    assert_eq!(plain.syllabify("ප්‍රත්‍යක්ෂ"), ["ප්‍ර", "ත්‍ය", "ක්ෂ"]);
}

#[test]
fn lossless_and_offsets_in_code_points() {
    let text = "ශ්‍රී ලංකාව  x\t\n क्षत्रिय ஸ்ரீ";
    for ls in [false, true] {
        let syl = auto(ls);
        let tokens = syl.tokens(text);
        let joined: String = tokens.iter().map(|t| &text[t.start..t.end]).collect();
        assert_eq!(joined, text);
        let chars: Vec<char> = text.chars().collect();
        for t in &tokens {
            let by_chars: String = chars[t.char_start..t.char_end].iter().collect();
            assert_eq!(by_chars, &text[t.start..t.end]);
        }
        assert_eq!(tokens.last().unwrap().char_end, chars.len());
    }
}

#[test]
fn kinds_and_leading_space() {
    let syl = auto(true);
    let kinds: Vec<(&str, Kind)> = {
        let text = "  ා x\u{b} \u{1c}";
        syl.tokens(text)
            .iter()
            .map(|t| (&text[t.start..t.end], t.kind))
            .collect()
    };
    assert_eq!(
        kinds,
        [
            (" ", Kind::Whitespace),
            (" ා", Kind::Orphan),
            (" x", Kind::Passthrough),
            ("\u{b}", Kind::Whitespace),
            (" \u{1c}", Kind::Whitespace),
        ]
    );
}

#[test]
fn python_whitespace_is_not_rust_whitespace() {
    for c in ['\u{1c}', '\u{1d}', '\u{1e}', '\u{1f}'] {
        assert!(py_isspace(c) && !c.is_whitespace());
    }
    assert!(!py_isspace('\u{200b}') && !py_isspace('\u{180e}'));
}

#[test]
fn empty_text_and_bad_tables() {
    assert!(auto(false).tokens("").is_empty());
    let mut spec = load("sinhala");
    spec.start = "nowhere".to_string();
    let err = Syllabifier::new(&[spec], false).unwrap_err();
    assert!(err.contains("nowhere"), "{err}");
}
