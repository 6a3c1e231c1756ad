//! Puzzle records read from a stream one line at a time (never the whole
//! input in memory), plain or CSV.

use std::io::{self, BufRead};

use super::parse::parse_grid;
use super::Entry;
use crate::error::PuzzleError;
use crate::grid::Variant;

/// Where a CSV input keeps the puzzle and the expected solution.
#[derive(Debug, Clone, Copy)]
struct Columns {
    puzzle: usize,
    solution: Option<usize>,
}

impl Columns {
    /// The columns a header line names, if it is a CSV header.
    fn of_header(line: &[u8]) -> Option<Columns> {
        let names: Vec<String> =
            line.split(|&b| b == b',').map(|name| String::from_utf8_lossy(name.trim_ascii()).to_lowercase()).collect();
        let find = |wanted: &[&str]| names.iter().position(|name| wanted.contains(&name.as_str()));
        let puzzle = find(&["quizzes", "quiz", "puzzles", "puzzle"])?;
        (names.len() > 1).then_some(Columns { puzzle, solution: find(&["solutions", "solution"]) })
    }
}

/// The longest line read, in bytes: a 25×25 CSV row with its solution and
/// comments fits many times over; past it a line is an invalid record and
/// its rest is skipped unread, so no input can make memory grow.
pub const MAX_LINE: usize = 1 << 16;

/// Reads one line into `buffer` (at most [`MAX_LINE`] bytes kept, its end
/// dropped): it ends at `\n`, `\r\n` or a lone `\r`. Returns the bytes
/// consumed (0 at the end of input) and whether the line was cut.
pub(super) fn read_line(input: &mut impl BufRead, buffer: &mut Vec<u8>) -> io::Result<(usize, bool)> {
    let (mut consumed, mut cut) = (0, false);
    loop {
        let available = match input.fill_buf() {
            Ok(bytes) => bytes,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            Err(err) => return Err(err),
        };
        if available.is_empty() {
            return Ok((consumed, cut));
        }
        // SIMD search, as `read_until` did for `\n` alone: easy collections read a line per puzzle.
        let end = memchr::memchr2(b'\n', b'\r', available);
        let take = end.unwrap_or(available.len());
        let room = MAX_LINE.saturating_sub(buffer.len());
        buffer.extend_from_slice(&available[..take.min(room)]);
        cut |= take > room;
        let ending = end.map(|e| available[e]);
        input.consume(take + usize::from(ending.is_some()));
        consumed += take + usize::from(ending.is_some());
        match ending {
            None => continue,
            // A `\r` may be the first half of `\r\n`, whose `\n` may be in the next read.
            Some(b'\r') => {
                if input.fill_buf()?.first() == Some(&b'\n') {
                    input.consume(1);
                    consumed += 1;
                }
                return Ok((consumed, cut));
            }
            Some(_) => return Ok((consumed, cut)),
        }
    }
}

/// A line as a record shows it: valid UTF-8 as it is, anything else with
/// replacement characters, and control characters (a UTF-16 file's NULs)
/// replaced too, so a record never writes them to a terminal.
fn shown_text(bytes: &[u8]) -> String {
    // Nearly every line (every valid puzzle's cells) is printable ASCII, kept
    // as it is: checked without an early exit, which the compiler vectorises,
    // and converted without `from_utf8_lossy`'s chunking (on an easy
    // collection these two cost 8 % of the run).
    let printable = bytes.iter().fold(true, |printable, &b| printable & ((b' '..=b'~').contains(&b) | (b == b'\t')));
    match (printable, std::str::from_utf8(bytes)) {
        (true, Ok(text)) => text.to_owned(),
        _ => String::from_utf8_lossy(bytes)
            .chars()
            .map(|c| if c.is_control() && c != '\t' { char::REPLACEMENT_CHARACTER } else { c })
            .collect(),
    }
}

/// Streams [`Entry`]s out of a reader.
pub struct PuzzleReader<R> {
    input: R,
    variant: Variant,
    line: usize,
    buffer: Vec<u8>,
    csv: Option<Columns>,
}

impl<R: BufRead> PuzzleReader<R> {
    pub fn new(input: R, variant: Variant) -> Self {
        PuzzleReader { input, variant, line: 0, buffer: Vec::new(), csv: None }
    }

    pub fn get_ref(&self) -> &R {
        &self.input
    }

    fn next_entry(&mut self) -> io::Result<Option<Entry>> {
        loop {
            self.buffer.clear();
            let (consumed, cut) = read_line(&mut self.input, &mut self.buffer)?;
            if consumed == 0 {
                return Ok(None);
            }
            self.line += 1;
            if cut {
                let text = shown_text(&self.buffer[..80]) + "…";
                let grid = Err(PuzzleError::LineTooLong { max: MAX_LINE });
                return Ok(Some(Entry { index: 0, file: None, line: self.line, text, grid, expected: None }));
            }
            let mut text = self.buffer.as_slice();
            if self.line == 1 {
                text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
            }
            let text = text.trim_ascii();
            if text.is_empty() || text.starts_with(b"#") {
                continue;
            }
            if self.line == 1 {
                self.csv = Columns::of_header(text);
                if self.csv.is_some() {
                    continue;
                }
            }
            let (text, expected) = match self.csv {
                None => (text, None),
                Some(columns) => {
                    let fields: Vec<&[u8]> = text.split(|&b| b == b',').map(<[u8]>::trim_ascii).collect();
                    let expected = columns.solution.and_then(|c| fields.get(c).copied()).filter(|f| !f.is_empty());
                    // A row too short for the puzzle column is reported whole.
                    (fields.get(columns.puzzle).copied().unwrap_or(text), expected)
                }
            };
            let grid = parse_grid(text, self.variant);
            let shown = match &grid {
                Ok(grid) => &text[..grid.cells.len()],
                Err(_) => text,
            };
            return Ok(Some(Entry {
                index: 0,
                file: None,
                line: self.line,
                text: shown_text(shown),
                grid,
                expected: expected.map(shown_text),
            }));
        }
    }
}

impl<R: BufRead> Iterator for PuzzleReader<R> {
    type Item = io::Result<Entry>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_entry().transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::BufReader;

    use crate::grid::Grid;
    use crate::puzzle::{count_lines, EASY};

    fn parse(text: &str) -> Result<Grid, PuzzleError> {
        parse_grid(text.as_bytes(), Variant::Standard)
    }

    fn entries(input: &str) -> Vec<Entry> {
        PuzzleReader::new(input.as_bytes(), Variant::Standard).map(Result::unwrap).collect()
    }

    #[test]
    fn reader_skips_comments_and_blanks_and_counts_lines() {
        let got = entries(&format!("# header\n\n{EASY}\r\nbad line\n"));
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].line, 3);
        assert!(got[0].grid.is_ok());
        assert_eq!(got[1].line, 4);
        assert_eq!(got[1].text, "bad line");
        assert!(got[1].grid.is_err());
    }

    /// A character after the cells that starts no comment makes the line
    /// invalid at its column: a mistyped 81-cell line is no 4×4 board, a
    /// mistyped 256-cell line no 9×9 one.
    #[test]
    fn a_stray_character_after_the_cells_is_no_comment() {
        let mut typo = EASY.as_bytes().to_vec();
        typo[16] = b'*';
        let allowed = "1-9, A-P, '.' or '0'".to_string();
        assert_eq!(
            parse_grid(&typo, Variant::Standard),
            Err(PuzzleError::BadCharacter { character: '*', column: 17, allowed })
        );
        let mut sixteen = ".".repeat(256).into_bytes();
        sixteen[81] = b'*';
        assert!(matches!(parse_grid(&sixteen, Variant::Standard), Err(PuzzleError::BadCharacter { column: 82, .. })));
        assert!(parse(&format!("{EASY}\t# tab")).is_ok());
    }

    /// `\n`, `\r\n` and a lone `\r` each end a line, also when a `\r\n` is
    /// split between two reads; the line count for the progress bar agrees.
    #[test]
    fn every_line_ending_ends_a_line() {
        let text = format!("{EASY}\r{EASY}\r\n\r\n{EASY}\n# c\r{EASY}");
        let got = entries(&text);
        assert_eq!(got.iter().map(|e| e.line).collect::<Vec<_>>(), vec![1, 2, 4, 6]);
        assert!(got.iter().all(|e| e.grid.is_ok()));
        assert_eq!(count_lines(text.as_bytes()), Some(4));
        let two = format!("{EASY}\r\n{EASY}");
        let tiny = BufReader::with_capacity(1, two.as_bytes());
        let got: Vec<Entry> = PuzzleReader::new(tiny, Variant::Standard).map(Result::unwrap).collect();
        assert_eq!(got.iter().map(|e| e.line).collect::<Vec<_>>(), vec![1, 2]);
    }

    /// A line past the bound is an invalid record, its rest skipped without
    /// being kept, and the next line is read as usual.
    #[test]
    fn an_overlong_line_is_invalid_and_bounded() {
        let text = format!("{}\n{EASY}\n", "7".repeat(3 * MAX_LINE));
        let mut reader = PuzzleReader::new(text.as_bytes(), Variant::Standard);
        let long = reader.next().unwrap().unwrap();
        assert_eq!(long.grid, Err(PuzzleError::LineTooLong { max: MAX_LINE }));
        assert_eq!(long.text, format!("{}…", "7".repeat(80)));
        assert!(reader.buffer.capacity() <= 2 * MAX_LINE);
        let next = reader.next().unwrap().unwrap();
        assert_eq!((next.line, next.grid.is_ok()), (2, true));
    }

    /// A UTF-16 file's NULs, or any control character, never reach a record.
    #[test]
    fn control_characters_are_not_echoed() {
        let utf16: Vec<u8> = EASY.bytes().flat_map(|b| [b, 0]).collect();
        let got: Vec<Entry> = PuzzleReader::new(utf16.as_slice(), Variant::Standard).map(Result::unwrap).collect();
        assert!(got[0].grid.is_err());
        assert!(!got[0].text.contains('\0') && got[0].text.contains('\u{FFFD}'));
    }

    #[test]
    fn reader_detects_kaggle_csv() {
        let got = entries(&format!("quizzes,solutions\n{EASY},864371259325849761971265843436192587198657432257483916689734125713528694542916378\n"));
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].line, 2);
        assert_eq!(got[0].text, EASY);
    }
}
