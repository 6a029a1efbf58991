//! The native reader of vocab.json on the shipped vocabularies (sgpe/sample_data/vocab/):
//! its merge kinds are the merge loop's own (`hierarchical::merge_kinds`), its tables
//! hold every token and merge. tests/test_native_load.py compares it with the Python reader.

mod common;

use _native::hierarchical;
use _native::vocab_file::VocabFile;
use common::auto;

fn shipped(name: &str) -> VocabFile {
    let path = format!(
        "{}/../sgpe/sample_data/vocab/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    VocabFile::parse(&std::fs::read_to_string(path).unwrap()).expect("a valid vocabulary")
}

#[test]
fn merge_kinds_are_the_merge_loops() {
    let file = shipped("sgpe_4k.json");
    let syll = auto(true);
    let pairs: Vec<(String, String)> = file
        .merges
        .iter()
        .map(|&(a, b, _)| (file.token(a).to_string(), file.token(b).to_string()))
        .collect();
    let kinds = file.merge_kinds(&syll);
    assert_eq!(kinds, hierarchical::merge_kinds(syll, &pairs).unwrap());
    assert!(kinds.contains(&hierarchical::JOIN) && kinds.contains(&hierarchical::PART));
}

#[test]
fn tables_hold_every_token_and_merge() {
    let file = shipped("sgpe_paper_4k.json");
    assert_eq!(file.entries.len(), 4000);
    for (id, k) in file.by_id.iter().enumerate() {
        assert_eq!(file.entries[*k as usize].1 as usize, id);
    }
    for &(a, b, merged) in &file.merges {
        assert_eq!(
            format!("{}{}", file.token(a), file.token(b)),
            file.token(merged)
        );
    }
    let (part, join) = file.ranks(|_| false);
    assert!(join.is_empty() && !part.is_empty());
    let found = file.lookup(vec!["[UNK]".into(), "nope".into()]);
    assert_eq!(found.len(), 1);
    assert_eq!(file.token(found["[UNK]"]), "[UNK]");
}
