//! The piece splitter and counter without Python (`src/pieces.rs`); the differential tests
//! against the Python engine are in tests/test_native_count.py.

use _native::pieces::{is_py_space, CharSet, Counter, Splitter};

fn whitespace(leading_space: bool) -> Splitter {
    Splitter {
        word_chars: None,
        leading_space,
        span_letters: Vec::new(),
        max_units: 128,
    }
}

#[test]
fn python_whitespace_has_the_information_separators() {
    for c in [
        '\x1c', '\x1d', '\x1e', '\x1f', '\u{85}', '\u{3000}', '\u{202f}',
    ] {
        assert!(is_py_space(c), "{c:?}");
    }
    for c in ['\u{200b}', '\u{feff}', 'a', '\u{180e}'] {
        assert!(!is_py_space(c), "{c:?}");
    }
}

#[test]
fn whitespace_pieces_with_and_without_the_leading_space() {
    let text = "ab  c\x1cd \x0be\n \n";
    assert_eq!(
        whitespace(false).pieces(text),
        ["ab", " ", " ", "c", "\x1c", "d", " ", "\x0b", "e", "\n", " ", "\n"]
    );
    assert_eq!(
        whitespace(true).pieces(text),
        ["ab", " ", " c", "\x1c", "d", " \x0b", "e", "\n", " ", "\n"]
    );
    // U+0085 is Python whitespace too; the space joins the word after it, or one other
    // space character, never \t\n\r.
    assert_eq!(whitespace(false).pieces("a\u{85}b"), ["a", "\u{85}", "b"]);
    assert_eq!(
        whitespace(true).pieces("a  b \u{a0}c \tx "),
        ["a", " ", " b", " \u{a0}", "c", " ", "\t", "x", " "]
    );
    assert!(whitespace(true).pieces("").is_empty());
}

#[test]
fn a_code_point_beyond_unicode_is_refused() {
    assert!(CharSet::from_ranges(&[(0x41, 0x110000)]).is_err());
}

#[test]
fn script_pieces_and_superword_spans() {
    let sinhala = CharSet::from_ranges(&[(0x0d80, 0x0dff), (0x200d, 0x200d)]).unwrap();
    let script = Splitter {
        word_chars: Some(sinhala.clone()),
        leading_space: true,
        span_letters: Vec::new(),
        max_units: 128,
    };
    assert_eq!(script.pieces("කා,ක a"), ["කා", ",", "ක", " a"]);
    let spans = Splitter {
        span_letters: vec![sinhala],
        max_units: 2,
        ..whitespace(true)
    };
    // Two or more words of letters, one plain space apart; a word of more than max_units
    // characters, or one followed by another character, ends a span.
    assert_eq!(spans.pieces("කා ක කකක ක ක,"), ["කා ක", " කකක", " ක", " ක,"]);
}

#[test]
fn counts_keep_the_order_of_first_occurrence() {
    let mut counter = Counter::new(whitespace(true), " ".to_string());
    counter.feed_file_segment("b a b\n\nc a\n", true);
    counter.feed_text(" c\n");
    let got: Vec<(String, u64)> = counter
        .take()
        .into_iter()
        .map(|(k, c)| (k.to_string(), c))
        .collect();
    let want = [(" b", 2), (" a", 2), ("\n", 4), (" c", 2)];
    assert_eq!(got, want.map(|(k, c)| (k.to_string(), c)).to_vec());
    assert_eq!(counter.chars, 11);
    assert!(counter.any_text);
}
