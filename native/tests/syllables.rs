//! The syllabifier on the shipped schemas (read from sgpe/schemas/*.json, as sgpe/_engine.py
//! hands them over) with the examples of sgpe/syllables.py's docstrings and
//! tests/test_syllabify.py. The exhaustive comparison with the Python engine is
//! tests/test_native.py; these check the Rust core alone, without Python.

mod common;

use _native::syllables::{py_isspace, Kind, Syllabifier};
use common::{auto, load};

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

#[test]
fn pre_base_vowel_starts_a_unit() {
    // Thai เ and Lao ເ are stored before the consonant they follow (sgpe/schema.py's
    // PRE_BASE): the unit starts with them; alone, with no consonant after, an orphan.
    let thai = Syllabifier::new(&[load("thai")], false).unwrap();
    assert_eq!(thai.syllabify("เปลี่ยนเก็บ"), ["เปลี่ย", "น", "เก็บ"]);
    let kinds: Vec<Kind> = thai.tokens("เa").iter().map(|t| t.kind).collect();
    assert_eq!(kinds, [Kind::Orphan, Kind::Passthrough]);
    assert_eq!(auto(false).syllabify("ເມືອງ"), ["ເມື", "ອ", "ງ"]);
}

#[test]
fn a_pre_base_vowel_inside_a_syllable_is_refused() {
    let mut spec = load("thai");
    for (state, edges) in &mut spec.transitions {
        if state != &spec.start {
            edges.push(('L', "PRE_BASE_VOWEL".to_string()));
            break;
        }
    }
    let err = Syllabifier::new(&[spec], false).unwrap_err();
    assert!(err.contains("inside a syllable"), "{err}");
    let mut spec = load("thai");
    spec.orphan_states.retain(|s| s != "PRE_BASE_VOWEL");
    let err = Syllabifier::new(&[spec], false).unwrap_err();
    assert!(err.contains("ends in its pre-base vowel"), "{err}");
}
