//! After the report: shard outputs (`solve --format jsonl --shard K/N`)
//! joined back into input order. Each shard's records are already in
//! input order, so the files are merged as streams (one record of each in
//! memory, any number of records), by the `index` every record carries;
//! an index that is missing or repeated is said, not papered over.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io::{BufRead, Write};

use crate::error::{Error, Result};

/// What a merge found wrong, besides the records it wrote.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Merged {
    /// Records written.
    pub records: u64,
    /// Indices below the largest (or below `expected`) that no file holds, as ranges.
    pub missing: Vec<std::ops::Range<u64>>,
    /// Indices found more than once (each written once, the first file's).
    pub repeated: Vec<u64>,
}

impl Merged {
    pub fn is_complete(&self) -> bool {
        self.missing.is_empty() && self.repeated.is_empty()
    }
}

/// A record's `index`, the first key `solve --format jsonl` writes.
fn index_of(line: &str) -> Option<u64> {
    #[derive(serde::Deserialize)]
    struct Index {
        index: u64,
    }
    serde_json::from_str::<Index>(line).ok().map(|record| record.index)
}

/// One input: its name, its lines, and its next record.
struct Source<R> {
    name: String,
    lines: std::io::Lines<R>,
    line: usize,
}

impl<R: BufRead> Source<R> {
    /// The next record's index and text; blank lines are skipped.
    fn next(&mut self) -> Result<Option<(u64, String)>> {
        for text in self.lines.by_ref() {
            self.line += 1;
            let text = text.map_err(|source| Error::Read { path: self.name.clone(), source })?;
            if text.trim().is_empty() {
                continue;
            }
            let Some(index) = index_of(&text) else {
                return Err(Error::Merge(format!(
                    "{}, line {}: not a record of `solve --format jsonl` (no index)",
                    self.name, self.line
                )));
            };
            return Ok(Some((index, text)));
        }
        Ok(None)
    }
}

/// Writes the records of `inputs` (name, reader) to `out` in index order,
/// each index once. `expected`: how many records there should be (the
/// puzzles of the input), so that missing last ones are found too. A file
/// whose own records are out of order is an error: it is no shard output.
pub fn merge<R: BufRead>(inputs: Vec<(String, R)>, expected: Option<u64>, out: &mut impl Write) -> Result<Merged> {
    let mut sources: Vec<Source<R>> =
        inputs.into_iter().map(|(name, reader)| Source { name, lines: reader.lines(), line: 0 }).collect();
    // Each file's next record, the smallest index first; ties by file order,
    // so a repeat keeps the first file's.
    let mut heads = BinaryHeap::new();
    for (i, source) in sources.iter_mut().enumerate() {
        if let Some((index, text)) = source.next()? {
            heads.push(Reverse((index, i, text)));
        }
    }
    let mut merged = Merged::default();
    // The index after the last written: indices come off the heap in order,
    // so one below it is the last one written again.
    let mut next = 0u64;
    while let Some(Reverse((index, i, text))) = heads.pop() {
        if index < next {
            if merged.repeated.last() != Some(&index) {
                merged.repeated.push(index);
            }
        } else {
            if index > next {
                merged.missing.push(next..index);
            }
            writeln!(out, "{text}")?;
            merged.records += 1;
            next = index + 1;
        }
        if let Some((following, text)) = sources[i].next()? {
            if following <= index {
                let source = &sources[i];
                return Err(Error::Merge(format!(
                    "{}, line {}: index {following} after {index}: a shard's records are in input order",
                    source.name, source.line
                )));
            }
            heads.push(Reverse((following, i, text)));
        }
    }
    if let Some(expected) = expected.filter(|&expected| expected > next) {
        merged.missing.push(next..expected);
    }
    out.flush()?;
    Ok(merged)
}

/// Ranges as people write them: `3`, `5-9` (inclusive), the first `most`.
pub fn describe_ranges(ranges: &[std::ops::Range<u64>], most: usize) -> String {
    let shown: Vec<String> = ranges
        .iter()
        .take(most)
        .map(|r| if r.end - r.start == 1 { r.start.to_string() } else { format!("{}-{}", r.start, r.end - 1) })
        .collect();
    let more = ranges.len().saturating_sub(most);
    shown.join(", ") + &if more > 0 { format!(" and {more} more ranges") } else { String::new() }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(index: u64) -> String {
        format!("{{\"index\":{index},\"file\":\"p.txt\",\"status\":\"solved\"}}")
    }

    fn shard(indices: &[u64]) -> String {
        indices.iter().map(|&i| record(i) + "\n").collect()
    }

    fn run(files: &[String], expected: Option<u64>) -> (Result<Merged>, Vec<u64>) {
        let inputs = files.iter().enumerate().map(|(i, f)| (format!("out.{i}"), f.as_bytes())).collect();
        let mut out = Vec::new();
        let merged = merge(inputs, expected, &mut out);
        let indices = String::from_utf8(out).unwrap().lines().map(|l| index_of(l).unwrap()).collect();
        (merged, indices)
    }

    #[test]
    fn shards_merge_into_index_order() {
        let files = [shard(&[0, 3, 6]), shard(&[1, 4]), shard(&[2, 5])];
        let (merged, indices) = run(&files, Some(7));
        assert_eq!(indices, (0..7).collect::<Vec<_>>());
        assert_eq!(merged.unwrap(), Merged { records: 7, ..Merged::default() });
    }

    #[test]
    fn missing_and_repeated_indices_are_named() {
        let files = [shard(&[0, 3, 6]), shard(&[0, 3, 6])];
        let (merged, indices) = run(&files, Some(9));
        assert_eq!(indices, vec![0, 3, 6]);
        let merged = merged.unwrap();
        assert_eq!(merged.missing, vec![1..3, 4..6, 7..9]);
        assert_eq!(merged.repeated, vec![0, 3, 6]);
        assert_eq!(describe_ranges(&merged.missing, 2), "1-2, 4-5 and 1 more ranges");
    }

    #[test]
    fn a_file_that_is_no_shard_output_is_an_error() {
        let (merged, _) = run(&["plain text\n".to_string()], None);
        assert!(matches!(merged, Err(Error::Merge(m)) if m.contains("out.0, line 1: not a record")));
        let (merged, _) = run(&[shard(&[2, 1])], None);
        assert!(matches!(merged, Err(Error::Merge(m)) if m.contains("out.0, line 2: index 1 after 2")));
    }
}
