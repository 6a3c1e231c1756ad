//! Stage 1, puzzle input: parse one puzzle line, stream puzzles out of a
//! reader one line at a time (never the whole file in memory), and turn
//! command-line inputs (puzzle strings, files, stdin) into one stream.
//!
//! A line holds 81 cells (`1`-`9`, `.` or `0` for empty); what follows the
//! 81st cell is a comment when it starts with anything but another cell.
//! Blank lines and lines starting with `#` are skipped. A first line
//! starting `quizzes,` switches to the Kaggle CSV form, where the puzzle is
//! the first comma-separated column.

use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::path::Path;

use crate::error::{Error, PuzzleError};
use crate::grid::{Grid, CELLS};

fn cell_value(byte: u8) -> Option<u8> {
    match byte {
        b'1'..=b'9' => Some(byte - b'0'),
        b'.' | b'0' => Some(0),
        _ => None,
    }
}

/// Parses the first 81 characters of `text` as a grid.
pub fn parse_grid(text: &[u8]) -> Result<Grid, PuzzleError> {
    let cells_given = text.iter().take_while(|&&b| cell_value(b).is_some()).count();
    if cells_given > CELLS {
        return Err(PuzzleError::TooLong { cells: cells_given });
    }
    if cells_given < CELLS {
        // Either the line ends early or a character in the first 81 is no cell.
        return match text.get(cells_given) {
            Some(&byte) if !is_comment_start(byte) => Err(bad_char(text, cells_given)),
            _ => Err(PuzzleError::TooShort { cells: cells_given }),
        };
    }
    let mut grid = Grid::empty();
    for (cell, &byte) in text[..CELLS].iter().enumerate() {
        grid.cells[cell] = cell_value(byte).expect("checked above");
    }
    Ok(grid)
}

fn is_comment_start(byte: u8) -> bool {
    byte.is_ascii_whitespace() || byte == b'#'
}

fn bad_char(text: &[u8], position: usize) -> PuzzleError {
    let rest = String::from_utf8_lossy(&text[position..]);
    let character = rest.chars().next().unwrap_or(char::REPLACEMENT_CHARACTER);
    PuzzleError::BadCharacter { character, column: position + 1 }
}

/// One puzzle record of the input, valid or not.
#[derive(Debug, Clone)]
pub struct Entry {
    /// 1-based line number within its input.
    pub line: usize,
    /// The puzzle as written: its first 81 characters, or the whole
    /// (trimmed) line when it is not a valid puzzle.
    pub text: String,
    pub grid: Result<Grid, PuzzleError>,
}

/// Streams [`Entry`]s out of a reader.
pub struct PuzzleReader<R> {
    input: R,
    line: usize,
    buffer: Vec<u8>,
    csv: bool,
}

impl<R: BufRead> PuzzleReader<R> {
    pub fn new(input: R) -> Self {
        PuzzleReader { input, line: 0, buffer: Vec::new(), csv: false }
    }

    fn next_entry(&mut self) -> io::Result<Option<Entry>> {
        loop {
            self.buffer.clear();
            if self.input.read_until(b'\n', &mut self.buffer)? == 0 {
                return Ok(None);
            }
            self.line += 1;
            let mut text = self.buffer.as_slice();
            if self.line == 1 {
                text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
            }
            let text = text.trim_ascii();
            if text.is_empty() || text.starts_with(b"#") {
                continue;
            }
            if self.line == 1 && text.starts_with(b"quizzes,") {
                self.csv = true;
                continue;
            }
            let text = if self.csv { text.split(|&b| b == b',').next().unwrap_or(text) } else { text };
            let grid = parse_grid(text);
            let shown = if grid.is_ok() { &text[..CELLS] } else { text };
            return Ok(Some(Entry { line: self.line, text: String::from_utf8_lossy(shown).into_owned(), grid }));
        }
    }
}

impl<R: BufRead> Iterator for PuzzleReader<R> {
    type Item = io::Result<Entry>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_entry().transpose()
    }
}

/// The lines of one command-line input: `-` is stdin, a path a file. An
/// argument is a puzzle when it is no existing path and holds only cell characters (so a mistyped puzzle is
/// reported as an invalid puzzle, not as a missing file).
pub fn open_input(arg: &str) -> Result<Box<dyn BufRead>, Error> {
    if arg == "-" {
        return Ok(Box::new(io::stdin().lock()));
    }
    let looks_like_puzzle = arg.len() >= 17 && arg.bytes().all(|b| b == b'.' || b.is_ascii_digit());
    if looks_like_puzzle && !Path::new(arg).exists() {
        return Ok(Box::new(io::Cursor::new(arg.as_bytes().to_vec())));
    }
    let file = File::open(arg).map_err(|source| Error::Open { path: arg.to_string(), source })?;
    Ok(Box::new(BufReader::new(file)))
}

/// Every puzzle of every input, in order; each input is opened when reached,
/// so a missing second file does not hide the first's results.
pub fn entries(inputs: &[String]) -> impl Iterator<Item = Result<Entry, Error>> + '_ {
    inputs.iter().flat_map(|arg| -> Box<dyn Iterator<Item = Result<Entry, Error>>> {
        match open_input(arg) {
            Err(err) => Box::new(std::iter::once(Err(err))),
            Ok(reader) => Box::new(
                PuzzleReader::new(reader).map(move |e| e.map_err(|source| Error::Read { path: arg.clone(), source })),
            ),
        }
    })
}

/// Puzzle lines in the inputs, when all are files or inline puzzles (for
/// the progress bar's ETA); `None` when one is stdin or unreadable.
pub fn count_puzzles(inputs: &[String]) -> Option<u64> {
    let mut total = 0;
    for arg in inputs {
        if arg == "-" {
            return None;
        }
        for line in open_input(arg).ok()?.split(b'\n') {
            let line = line.ok()?;
            let line = line.trim_ascii();
            total += u64::from(!line.is_empty() && !line.starts_with(b"#"));
        }
    }
    Some(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    const EASY: &str = "004300209005009001070060043006002087190007400050083000600000105003508690042910300";

    fn entries(input: &str) -> Vec<Entry> {
        PuzzleReader::new(input.as_bytes()).map(Result::unwrap).collect()
    }

    #[test]
    fn parses_digits_dots_and_zeros() {
        let grid = parse_grid(EASY.as_bytes()).unwrap();
        assert_eq!(grid.cells[2], 4);
        assert_eq!(grid.cells[0], 0);
        assert_eq!(grid.to_string().replace('.', "0"), EASY);
    }

    #[test]
    fn trailing_comment_is_ignored_but_an_extra_cell_is_not() {
        assert!(parse_grid(format!("{EASY} # easy").as_bytes()).is_ok());
        assert!(parse_grid(format!("{EASY}#x").as_bytes()).is_ok());
        assert_eq!(parse_grid(format!("{EASY}1").as_bytes()), Err(PuzzleError::TooLong { cells: 82 }));
    }

    #[test]
    fn reports_short_lines_and_bad_characters() {
        assert_eq!(parse_grid(&EASY.as_bytes()[..80]), Err(PuzzleError::TooShort { cells: 80 }));
        let mut bad = EASY.as_bytes().to_vec();
        bad[5] = b'x';
        assert_eq!(parse_grid(&bad), Err(PuzzleError::BadCharacter { character: 'x', column: 6 }));
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

    #[test]
    fn reader_detects_kaggle_csv() {
        let got = entries(&format!("quizzes,solutions\n{EASY},864371259325849761971265843436192587198657432257483916689734125713528694542916378\n"));
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].line, 2);
        assert_eq!(got[0].text, EASY);
    }
}
