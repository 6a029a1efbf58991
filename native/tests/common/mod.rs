//! What the integration tests share: the shipped schemas (sgpe/schemas/*.json) read as
//! sgpe/_engine.py hands them over, and the syllabifier of the "auto" setting.
#![allow(dead_code)] // each test file uses its own share

use _native::syllables::{SchemaSpec, Syllabifier};
use serde_json::Value;

/// The built-in scripts in the order of "auto" (`BUILTIN_SCRIPTS` in sgpe/schema.py;
/// tests/test_constants.py checks the copy).
pub const SCRIPTS: [&str; 14] = [
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
    "thai",
    "lao",
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

pub fn load(name: &str) -> SchemaSpec {
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

pub fn auto(leading_space: bool) -> Syllabifier {
    let specs: Vec<SchemaSpec> = SCRIPTS.iter().map(|s| load(s)).collect();
    Syllabifier::new(&specs, leading_space).unwrap()
}
