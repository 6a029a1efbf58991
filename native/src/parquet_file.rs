//! The Parquet files of a run directory, written as `sgpe/runs/parquet.py` writes them
//! (the same bytes; `tests/test_parquet.py` compares): string and whole-number columns in
//! one row group, each column one chunk of plain, uncompressed pages of required values,
//! the file metadata in Thrift's compact protocol with the `sgpe` key.

const MAGIC: &[u8] = b"PAR1";
const CREATED_BY: &[u8] = b"sgpe";

// Thrift compact protocol: field types.
const I32: u8 = 5;
const I64: u8 = 6;
const BINARY: u8 = 8;
const LIST: u8 = 9;
const STRUCT: u8 = 12;
// Parquet: physical types, repetition, converted type, encodings, codec, page type.
const INT64: i64 = 2;
const BYTE_ARRAY: i64 = 6;
const REQUIRED: i64 = 0;
const UTF8: i64 = 0;
const PLAIN: i64 = 0;
const RLE: i64 = 3;
const UNCOMPRESSED: i64 = 0;
const DATA_PAGE: i64 = 0;

/// One column of a table.
pub enum Column<'a> {
    Strings(Vec<&'a str>),
    Ints(Vec<i64>),
}

impl Column<'_> {
    pub fn len(&self) -> usize {
        match self {
            Column::Strings(v) => v.len(),
            Column::Ints(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

fn varint(out: &mut Vec<u8>, mut n: u64) {
    while n > 0x7f {
        out.push((n & 0x7f) as u8 | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

fn zigzag(out: &mut Vec<u8>, n: i64) {
    varint(out, ((n << 1) ^ (n >> 63)) as u64);
}

/// A Thrift struct in the compact protocol, its fields added in increasing id order.
#[derive(Default)]
struct Struct {
    out: Vec<u8>,
    last: u8,
}

impl Struct {
    fn head(&mut self, fid: u8, kind: u8) {
        let delta = fid - self.last;
        debug_assert!(delta > 0 && delta <= 15);
        self.out.push(delta << 4 | kind);
        self.last = fid;
    }

    fn i32(mut self, fid: u8, n: i64) -> Self {
        self.head(fid, I32);
        zigzag(&mut self.out, n);
        self
    }

    fn i64(mut self, fid: u8, n: i64) -> Self {
        self.head(fid, I64);
        zigzag(&mut self.out, n);
        self
    }

    fn binary(mut self, fid: u8, data: &[u8]) -> Self {
        self.head(fid, BINARY);
        varint(&mut self.out, data.len() as u64);
        self.out.extend_from_slice(data);
        self
    }

    fn structure(mut self, fid: u8, inner: Struct) -> Self {
        self.head(fid, STRUCT);
        self.out.extend(inner.end());
        self
    }

    /// A list of `kind` items, each already encoded.
    fn list(mut self, fid: u8, kind: u8, items: &[Vec<u8>]) -> Self {
        self.head(fid, LIST);
        let n = items.len();
        if n < 15 {
            self.out.push((n as u8) << 4 | kind);
        } else {
            self.out.push(0xf0 | kind);
            varint(&mut self.out, n as u64);
        }
        for item in items {
            self.out.extend_from_slice(item);
        }
        self
    }

    fn end(mut self) -> Vec<u8> {
        self.out.push(0);
        self.out
    }
}

fn zigzag_bytes(n: i64) -> Vec<u8> {
    let mut out = Vec::new();
    zigzag(&mut out, n);
    out
}

/// Append the column's pages (a header, then the plain values) to `out`.
fn write_pages(out: &mut Vec<u8>, column: &Column<'_>, page_bytes: usize) {
    let page = |out: &mut Vec<u8>, count: usize, data: &[u8]| {
        let levels = Struct::default()
            .i32(1, count as i64)
            .i32(2, PLAIN)
            .i32(3, RLE)
            .i32(4, RLE);
        let header = Struct::default()
            .i32(1, DATA_PAGE)
            .i32(2, data.len() as i64)
            .i32(3, data.len() as i64)
            .structure(5, levels);
        out.extend(header.end());
        out.extend_from_slice(data);
    };
    match column {
        Column::Ints(values) => {
            if values.is_empty() {
                page(out, 0, &[]);
            }
            for chunk in values.chunks((page_bytes / 8).max(1)) {
                let data: Vec<u8> = chunk.iter().flat_map(|v| v.to_le_bytes()).collect();
                page(out, chunk.len(), &data);
            }
        }
        Column::Strings(values) => {
            let mut data: Vec<u8> = Vec::new();
            let mut count = 0;
            for s in values {
                if count > 0 && data.len() + 4 + s.len() > page_bytes {
                    page(out, count, &data);
                    data.clear();
                    count = 0;
                }
                data.extend_from_slice(&(s.len() as u32).to_le_bytes());
                data.extend_from_slice(s.as_bytes());
                count += 1;
            }
            page(out, count, &data);
        }
    }
}

/// The Parquet bytes of the named columns (all of one length: the caller checks), with
/// `meta_json` under the file's key `sgpe`; a page holds at most `page_bytes` of values
/// (or one value).
pub fn write_table(columns: &[(&str, Column<'_>)], meta_json: &str, page_bytes: usize) -> Vec<u8> {
    let n_rows = columns.first().map_or(0, |(_, c)| c.len()) as i64;
    let mut out = MAGIC.to_vec();
    let mut schema = vec![Struct::default()
        .binary(4, b"schema")
        .i32(5, columns.len() as i64)
        .end()];
    let mut chunks = Vec::new();
    for (name, column) in columns {
        let strings = matches!(column, Column::Strings(v) if !v.is_empty());
        let physical = if strings { BYTE_ARRAY } else { INT64 };
        let leaf = Struct::default()
            .i32(1, physical)
            .i32(3, REQUIRED)
            .binary(4, name.as_bytes());
        schema.push(if strings { leaf.i32(6, UTF8) } else { leaf }.end());
        let start = out.len() as i64;
        write_pages(&mut out, column, page_bytes);
        let size = out.len() as i64 - start;
        let mut path = Vec::new();
        varint(&mut path, name.len() as u64);
        path.extend_from_slice(name.as_bytes());
        let meta = Struct::default()
            .i32(1, physical)
            .list(2, I32, &[zigzag_bytes(PLAIN), zigzag_bytes(RLE)])
            .list(3, BINARY, &[path])
            .i32(4, UNCOMPRESSED)
            .i64(5, n_rows)
            .i64(6, size)
            .i64(7, size)
            .i64(9, start);
        chunks.push(Struct::default().i64(2, start).structure(3, meta).end());
    }
    let total = (out.len() - MAGIC.len()) as i64;
    let group = Struct::default()
        .list(1, STRUCT, &chunks)
        .i64(2, total)
        .i64(3, n_rows)
        .end();
    let key = Struct::default()
        .binary(1, b"sgpe")
        .binary(2, meta_json.as_bytes())
        .end();
    let footer = Struct::default()
        .i32(1, 1)
        .list(2, STRUCT, &schema)
        .i64(3, n_rows)
        .list(4, STRUCT, &[group])
        .list(5, STRUCT, &[key])
        .binary(6, CREATED_BY)
        .end();
    out.extend_from_slice(&footer);
    out.extend_from_slice(&(footer.len() as u32).to_le_bytes());
    out.extend_from_slice(MAGIC);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_is_framed_and_its_pages_split() {
        let columns = [
            ("piece", Column::Strings(vec!["ශ්‍රී", "", "a"])),
            ("count", Column::Ints(vec![3, -1, i64::MAX])),
        ];
        let one = write_table(&columns, "{}", 1 << 26);
        assert!(one.starts_with(MAGIC) && one.ends_with(MAGIC));
        let n = one.len();
        let footer = u32::from_le_bytes(one[n - 8..n - 4].try_into().unwrap()) as usize;
        assert!(footer < n - 12);
        assert!(one.windows(4).any(|w| w == b"sgpe"));
        // A page per value: more page headers, the same values.
        let many = write_table(&columns, "{}", 1);
        assert!(many.len() > one.len());
        let word = "ශ්‍රී".as_bytes();
        let values = |data: &[u8]| data.windows(word.len()).any(|w| w == word);
        assert!(values(&one) && values(&many));
    }
}
