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
use crate::grid::{Grid, Shape, Variant, SYMBOLS};

const NOT_A_CELL: u8 = u8::MAX;

/// Each byte's value as a cell of the largest board: 1..=25 for the
/// symbols (either case), 0 for `.`. A table because parsing reads every
/// byte twice; `0` depends on the size and is handled in [`cell_value`].
const CELL_VALUES: [u8; 256] = {
    let mut table = [NOT_A_CELL; 256];
    table[b'.' as usize] = 0;
    let mut i = 0;
    while i < SYMBOLS.len() {
        table[SYMBOLS[i] as usize] = i as u8 + 1;
        table[SYMBOLS[i].to_ascii_lowercase() as usize] = i as u8 + 1;
        i += 1;
    }
    table
};

/// The value of a cell symbol on a board of side `n`: 1..=n, or 0 for empty.
fn cell_value(byte: u8, n: usize) -> Option<u8> {
    match CELL_VALUES[byte as usize] {
        NOT_A_CELL => (byte == b'0' && n <= 9).then_some(0),
        value => (value as usize <= n).then_some(value),
    }
}

/// Whether a byte can be a cell on some board.
fn is_cell_symbol(byte: u8) -> bool {
    CELL_VALUES[byte as usize] != NOT_A_CELL || byte == b'0'
}

/// Parses the leading cells of `text` as a grid of `variant`; their count
/// (16, 81, 256, 625, or any n² for Latin squares) sets the size.
pub fn parse_grid(text: &[u8], variant: Variant) -> Result<Grid, PuzzleError> {
    let cells_given = text.iter().take_while(|&&b| is_cell_symbol(b)).count();
    let Some(shape) = Shape::for_cells(cells_given, variant) else {
        // Either the line ends where no size does, or a character is no cell.
        return match text.get(cells_given) {
            Some(&byte) if !is_comment_start(byte) => Err(bad_char(text, cells_given, None)),
            _ => Err(PuzzleError::BadLength { cells: cells_given, expected: Shape::lengths(variant) }),
        };
    };
    let mut grid = Grid::empty(shape);
    for (cell, &byte) in text[..cells_given].iter().enumerate() {
        grid.cells[cell] = cell_value(byte, shape.n).ok_or_else(|| bad_char(text, cell, Some(shape.n)))?;
    }
    Ok(grid)
}

fn is_comment_start(byte: u8) -> bool {
    byte.is_ascii_whitespace() || byte == b'#'
}

/// A character that is no cell, at 0-based `position`; `n` when the size is known.
fn bad_char(text: &[u8], position: usize, n: Option<usize>) -> PuzzleError {
    let rest = String::from_utf8_lossy(&text[position..]);
    let character = rest.chars().next().unwrap_or(char::REPLACEMENT_CHARACTER);
    let allowed = match n {
        Some(n) if n <= 9 => format!("1-{n}, '.' or '0'"),
        Some(n) => format!("1-9, A-{}, '.'", char::from(SYMBOLS[n - 1])),
        None => "1-9, A-P, '.' or '0'".into(),
    };
    PuzzleError::BadCharacter { character, column: position + 1, allowed }
}

/// One puzzle record of the input, valid or not.
#[derive(Debug, Clone)]
pub struct Entry {
    /// 1-based line number within its input.
    pub line: usize,
    /// The puzzle as written: its cells, or the whole
    /// (trimmed) line when it is not a valid puzzle.
    pub text: String,
    pub grid: Result<Grid, PuzzleError>,
}

/// Streams [`Entry`]s out of a reader.
pub struct PuzzleReader<R> {
    input: R,
    variant: Variant,
    line: usize,
    buffer: Vec<u8>,
    csv: bool,
}

impl<R: BufRead> PuzzleReader<R> {
    pub fn new(input: R, variant: Variant) -> Self {
        PuzzleReader { input, variant, line: 0, buffer: Vec::new(), csv: false }
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
            let grid = parse_grid(text, self.variant);
            let shown = match &grid {
                Ok(grid) => &text[..grid.cells.len()],
                Err(_) => text,
            };
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
/// argument is a puzzle when it is no existing path and holds only cell
/// characters, one at least a digit or `.` (so a mistyped puzzle is reported
/// as an invalid puzzle, not as a missing file).
pub fn open_input(arg: &str) -> Result<Box<dyn BufRead>, Error> {
    if arg == "-" {
        return Ok(Box::new(io::stdin().lock()));
    }
    let looks_like_puzzle = arg.bytes().all(is_cell_symbol) && arg.bytes().any(|b| b == b'.' || b.is_ascii_digit());
    if looks_like_puzzle && !Path::new(arg).exists() {
        return Ok(Box::new(io::Cursor::new(arg.as_bytes().to_vec())));
    }
    let file = File::open(arg).map_err(|source| Error::Open { path: arg.to_string(), source })?;
    Ok(Box::new(BufReader::new(file)))
}

/// Every puzzle of every input, in order; each input is opened when reached,
/// so a missing second file does not hide the first's results.
pub fn entries(inputs: &[String], variant: Variant) -> impl Iterator<Item = Result<Entry, Error>> + '_ {
    inputs.iter().flat_map(move |arg| -> Box<dyn Iterator<Item = Result<Entry, Error>>> {
        match open_input(arg) {
            Err(err) => Box::new(std::iter::once(Err(err))),
            Ok(reader) => Box::new(
                PuzzleReader::new(reader, variant)
                    .map(move |e| e.map_err(|source| Error::Read { path: arg.clone(), source })),
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

    fn parse(text: &str) -> Result<Grid, PuzzleError> {
        parse_grid(text.as_bytes(), Variant::Standard)
    }

    const EASY: &str = "004300209005009001070060043006002087190007400050083000600000105003508690042910300";

    fn entries(input: &str) -> Vec<Entry> {
        PuzzleReader::new(input.as_bytes(), Variant::Standard).map(Result::unwrap).collect()
    }

    #[test]
    fn parses_digits_dots_and_zeros() {
        let grid = parse(EASY).unwrap();
        assert_eq!(grid.cells[2], 4);
        assert_eq!(grid.cells[0], 0);
        assert_eq!(grid.to_string().replace('.', "0"), EASY);
    }

    #[test]
    fn trailing_comment_is_ignored_but_an_extra_cell_is_not() {
        assert!(parse(&format!("{EASY} # easy")).is_ok());
        assert!(parse(&format!("{EASY}#x")).is_ok());
        assert_eq!(
            parse(&format!("{EASY}1")),
            Err(PuzzleError::BadLength { cells: 82, expected: "16, 81, 256 or 625".into() })
        );
    }

    #[test]
    fn reports_short_lines_and_bad_characters() {
        assert_eq!(
            parse(&EASY[..80]),
            Err(PuzzleError::BadLength { cells: 80, expected: "16, 81, 256 or 625".into() })
        );
        let mut bad = EASY.as_bytes().to_vec();
        bad[5] = b'x';
        let allowed = "1-9, A-P, '.' or '0'".to_string();
        assert_eq!(
            parse_grid(&bad, Variant::Standard),
            Err(PuzzleError::BadCharacter { character: 'x', column: 6, allowed })
        );
        bad[5] = b'A';
        let allowed = "1-9, '.' or '0'".to_string();
        assert_eq!(
            parse_grid(&bad, Variant::Standard),
            Err(PuzzleError::BadCharacter { character: 'A', column: 6, allowed })
        );
    }

    #[test]
    fn line_length_sets_the_size_and_symbols_follow_it() {
        let small = parse("1..4..1..3..4..2").unwrap();
        assert_eq!((small.shape.n, small.cells[3]), (4, 4));
        let big = format!("G{}a", ".".repeat(254));
        let big = parse(&big).unwrap();
        assert_eq!((big.shape.n, big.cells[0], big.cells[255]), (16, 16, 10));
        assert_eq!(big.to_string(), format!("G{}A", ".".repeat(254)));
        assert!(matches!(parse(&format!("0{}", ".".repeat(255))), Err(PuzzleError::BadCharacter { column: 1, .. })));
        let latin = parse_grid(b"12...3.1.", Variant::Latin).unwrap();
        assert_eq!((latin.shape.n, latin.cells[5]), (3, 3));
        assert!(matches!(parse("12...3.1."), Err(PuzzleError::BadLength { cells: 9, .. })));
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
