//! Stage 1, puzzle input: parse one puzzle line, stream puzzles out of a
//! reader one line at a time (never the whole file in memory), and turn
//! command-line inputs (puzzle strings, files, stdin) into one stream.
//!
//! A line holds 81 cells (`1`-`9`, `.` or `0` for empty); what follows the
//! last cell is a comment when it starts with a blank or `#`, and any other
//! character there makes the line invalid (a mistyped 81-cell line is not a
//! 4×4 board and a comment). Lines end at `\n`, `\r\n` or a lone `\r`, and
//! hold at most [`MAX_LINE`] bytes. Blank lines and lines starting with `#`
//! are skipped. A first line of
//! comma-separated names with `quizzes` or `puzzle` among them switches to
//! the CSV form (Kaggle's `quizzes,solutions`, `id,puzzle,solution`, …):
//! the puzzle is read from that column and a `solutions` or `solution`
//! column, where there is one, is the answer the file expects.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;
use std::sync::{mpsc, Arc};

use wide::u8x16;

use crate::error::{Error, PuzzleError};
use crate::grid::{Grid, Shape, Variant, SYMBOLS};

const NOT_A_CELL: u8 = u8::MAX;

/// Each byte's value as a cell of the boards above 9×9: 1..=25 for the
/// symbols (either case), 0 for `.`. Smaller boards value a byte by
/// arithmetic instead, which the compiler vectorises (`0` is empty there).
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

/// How many bytes at the start of `text` are cell symbols. Sixteen at a
/// time: `.`, a digit, or a letter `a`–`p` in either case.
fn count_cells(text: &[u8]) -> usize {
    let is_cell = |sixteen: u8x16| {
        let digit = sixteen - u8x16::splat(b'0');
        let letter = (sixteen | u8x16::splat(0x20)) - u8x16::splat(b'a');
        let below = |x: u8x16, limit: u8| x.min(u8x16::splat(limit - 1)).simd_eq(x);
        (sixteen.simd_eq(u8x16::splat(b'.')) | below(digit, 10) | below(letter, 16)).to_bitmask()
    };
    let mut chunks = text.chunks_exact(16);
    let mut count = 0;
    for chunk in chunks.by_ref() {
        let cells = is_cell(u8x16::new(chunk.try_into().expect("16 bytes")));
        if cells != 0xFFFF {
            return count + cells.trailing_ones() as usize;
        }
        count += 16;
    }
    // The last bytes, followed by zeros, which are no cell.
    let mut sixteen = [0; 16];
    sixteen[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
    count + is_cell(u8x16::new(sixteen)).trailing_ones() as usize
}

/// Parses the leading cells of `text` as a grid of `variant`; their count
/// (16, 81, 256, 625, or any n² for Latin squares) sets the size.
pub fn parse_grid(text: &[u8], variant: Variant) -> Result<Grid, PuzzleError> {
    let cells_given = count_cells(text);
    if text.get(cells_given).is_some_and(|&byte| !is_comment_start(byte)) {
        return Err(bad_char(text, cells_given, None));
    }
    let Some(shape) = Shape::for_cells(cells_given, variant) else {
        return Err(PuzzleError::BadLength { cells: cells_given, expected: Shape::lengths(variant) });
    };
    let given = &text[..cells_given];
    let cells: Vec<u8> = match shape.n {
        // Arithmetic rather than the table, so the compiler can do 16 cells
        // at a time: a letter, no cell of these boards, comes out above 9.
        ..=9 => given.iter().map(|&byte| if byte == b'.' { 0 } else { byte.wrapping_sub(b'0') }).collect(),
        _ => given.iter().map(|&byte| CELL_VALUES[byte as usize]).collect(),
    };
    if cells.iter().fold(0, |most, &value| most.max(value)) as usize > shape.n {
        let cell = cells.iter().position(|&value| value as usize > shape.n).expect("a value above n");
        return Err(bad_char(text, cell, Some(shape.n)));
    }
    Ok(Grid { shape, cells })
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
    /// 0-based position among the records of all inputs (the one `--shard` splits by).
    pub index: usize,
    /// The input it came from: a path, `-` for stdin; `None` for a puzzle
    /// given on the command line.
    pub file: Option<Arc<str>>,
    /// 1-based line number within its input.
    pub line: usize,
    /// The puzzle as written: its cells, or the whole
    /// (trimmed) line when it is not a valid puzzle.
    pub text: String,
    pub grid: Result<Grid, PuzzleError>,
    /// The solution the input expects (a CSV's `solutions` column), as written.
    pub expected: Option<String>,
}

impl Entry {
    /// A record of its own, as the first line of no file.
    pub fn of_grid(grid: Grid) -> Entry {
        let text = grid.to_string();
        Entry { index: 0, file: None, line: 1, text, grid: Ok(grid), expected: None }
    }

    /// Why `found` is not the solution the input expects, if it expects one.
    /// A found solution obeys the rules and the clues, so a difference means
    /// the puzzle has several solutions or the expected one is wrong.
    pub fn disagreement(&self, found: &Grid) -> Option<String> {
        let expected = self.expected.as_deref()?;
        let found = found.to_string();
        (!found.eq_ignore_ascii_case(expected))
            .then(|| format!("the solution found, {found}, is not the input's solutions column, {expected}"))
    }
}

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
fn read_line(input: &mut impl BufRead, buffer: &mut Vec<u8>) -> io::Result<(usize, bool)> {
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

/// Whether a command-line input is puzzle lines rather than `-` or a path:
/// it is no existing path, and after a byte-order mark and blanks it starts
/// with cells, one at least a digit or `.`, that either end the line or
/// meet a comment, as in a file, or number at least 16 (the smallest board)
/// in an argument with no `/`. So a mistyped puzzle is reported as an
/// invalid puzzle, and `hard.txt` as a missing file.
fn is_inline(arg: &str) -> bool {
    arg != "-" && starts_with_a_puzzle(arg) && !Path::new(arg).exists()
}

fn starts_with_a_puzzle(arg: &str) -> bool {
    let text = arg.as_bytes();
    let text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text).trim_ascii_start();
    let cells = count_cells(text);
    text[..cells].iter().any(|&b| b == b'.' || b.is_ascii_digit())
        && (text.get(cells).is_none_or(|&b| is_comment_start(b)) || (cells >= 16 && !arg.contains('/')))
}

/// An input's bytes, buffered: stdin, a file, or a command-line argument.
pub type InputReader = BufReader<Box<dyn Read + Send>>;

/// The lines of one command-line input: `-` is stdin, a path a file, and
/// anything else that reads as puzzle lines is those lines.
pub fn open_input(arg: &str) -> Result<InputReader, Error> {
    if arg == "-" {
        return Ok(BufReader::new(Box::new(io::stdin())));
    }
    if is_inline(arg) {
        return Ok(BufReader::new(Box::new(io::Cursor::new(arg.as_bytes().to_vec()))));
    }
    let open_error = |source| Error::Open { path: arg.to_string(), source };
    let file = File::open(arg).map_err(open_error)?;
    if file.metadata().map_err(open_error)?.is_dir() {
        return Err(open_error(io::ErrorKind::IsADirectory.into()));
    }
    // 64 KiB a read: fewer system calls, and fewer chunks handed over by
    // the reading thread, which hands one over whenever a read is due.
    Ok(BufReader::with_capacity(1 << 16, Box::new(file)))
}

/// Opens every input once, so a missing or unreadable one stops a run
/// before its first puzzle rather than after the inputs before it.
pub fn check_inputs(inputs: &[String]) -> Result<(), Error> {
    inputs.iter().filter(|arg| *arg != "-").try_for_each(|arg| open_input(arg).map(drop))
}

/// Every puzzle of every input, in order, numbered over all of them and
/// named by input; each input is opened when reached.
pub struct Entries {
    inputs: Vec<String>,
    /// The next input to open.
    next_input: usize,
    variant: Variant,
    /// The input being read, its name for the records, and its path for errors.
    current: Option<(PuzzleReader<InputReader>, Option<Arc<str>>, String)>,
    /// The next entry's index.
    index: usize,
}

pub fn entries(inputs: &[String], variant: Variant) -> Entries {
    Entries { inputs: inputs.to_vec(), next_input: 0, variant, current: None, index: 0 }
}

impl Entries {
    /// Whether the next entry needs a read from the operating system, which
    /// may wait on a pipe or a terminal: nothing of the current input is buffered.
    fn needs_a_read(&self) -> bool {
        self.current.as_ref().is_none_or(|(reader, _, _)| reader.get_ref().buffer().is_empty())
    }
}

impl Iterator for Entries {
    type Item = Result<Entry, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let Some((reader, file, path)) = &mut self.current else {
                let arg = self.inputs.get(self.next_input)?.clone();
                self.next_input += 1;
                let input = match open_input(&arg) {
                    Ok(input) => input,
                    Err(err) => return Some(Err(err)),
                };
                let file = (!is_inline(&arg)).then(|| Arc::from(arg.as_str()));
                self.current = Some((PuzzleReader::new(input, self.variant), file, arg));
                continue;
            };
            match reader.next() {
                None => self.current = None,
                Some(Err(source)) => {
                    let path = path.clone();
                    self.current = None;
                    return Some(Err(Error::Read { path, source }));
                }
                Some(Ok(entry)) => {
                    let entry = Entry { index: self.index, file: file.clone(), ..entry };
                    self.index += 1;
                    return Some(Ok(entry));
                }
            }
        }
    }
}

/// What a source of entries has next.
pub enum Next {
    Entry(Result<Entry, Error>),
    /// Nothing yet: more may come, and asking again later may find it.
    NotYet,
    End,
}

/// A source of entries that can say "not yet" instead of waiting, so the
/// solver anneals what it holds while a slow producer writes the next
/// puzzle. Every iterator of entries is one that always waits.
pub trait Input {
    /// The next entry; with `wait` false, [`Next::NotYet`] rather than waiting for it.
    fn next_entry(&mut self, wait: bool) -> Next;
}

impl<I: Iterator<Item = Result<Entry, Error>>> Input for I {
    fn next_entry(&mut self, _wait: bool) -> Next {
        self.next().map_or(Next::End, Next::Entry)
    }
}

/// The entries of command-line inputs, read on a thread of their own: a
/// pipe that has written one puzzle and waits for its answer gets it.
pub struct ReadAhead {
    chunks: mpsc::Receiver<Vec<Result<Entry, Error>>>,
    chunk: std::vec::IntoIter<Result<Entry, Error>>,
}

/// Entries travel in chunks of up to this many, each handed over once it is
/// full or the next entry needs a read that may wait: one hand-over per
/// chunk, not per entry, keeps two threads on one core from taking turns
/// per puzzle.
const CHUNK: usize = 256;
/// Chunks read ahead of the solver: enough to fill any batch, few enough to
/// keep memory flat.
const CHUNKS_AHEAD: usize = 16;

impl ReadAhead {
    pub fn spawn(inputs: Vec<String>, variant: Variant) -> ReadAhead {
        let (sender, receiver) = mpsc::sync_channel(CHUNKS_AHEAD);
        // Detached: a read blocked on a terminal must not hold up the end of a run.
        std::thread::spawn(move || {
            let mut entries = entries(&inputs, variant);
            let mut chunk = Vec::with_capacity(CHUNK);
            while let Some(entry) = entries.next() {
                chunk.push(entry);
                if chunk.len() == CHUNK || entries.needs_a_read() {
                    let full = std::mem::replace(&mut chunk, Vec::with_capacity(CHUNK));
                    if sender.send(full).is_err() {
                        return;
                    }
                }
            }
            // The sender dropped after the last chunk ends the stream.
            drop(sender.send(chunk));
        });
        ReadAhead { chunks: receiver, chunk: Vec::new().into_iter() }
    }
}

impl Input for ReadAhead {
    fn next_entry(&mut self, wait: bool) -> Next {
        loop {
            if let Some(entry) = self.chunk.next() {
                return Next::Entry(entry);
            }
            let chunk = match wait {
                true => self.chunks.recv().map_err(|_| mpsc::TryRecvError::Disconnected),
                false => self.chunks.try_recv(),
            };
            match chunk {
                Ok(chunk) => self.chunk = chunk.into_iter(),
                Err(mpsc::TryRecvError::Empty) => return Next::NotYet,
                Err(mpsc::TryRecvError::Disconnected) => return Next::End,
            }
        }
    }
}

/// Puzzle lines in the inputs, when all are files or inline puzzles (for
/// the progress bar's ETA); `None` when one is stdin or unreadable.
pub fn count_puzzles(inputs: &[String]) -> Option<u64> {
    let mut total = 0;
    for arg in inputs {
        if arg == "-" {
            return None;
        }
        total += count_lines(open_input(arg).ok()?)?;
    }
    Some(total)
}

/// The lines of `input` that hold a puzzle (or an invalid one): neither
/// blank nor a comment; `None` when it cannot be read.
pub fn count_lines(mut input: impl BufRead) -> Option<u64> {
    let (mut total, mut line) = (0, Vec::new());
    loop {
        line.clear();
        let (consumed, _) = read_line(&mut input, &mut line).ok()?;
        if consumed == 0 {
            return Some(total);
        }
        let text = line.trim_ascii();
        total += u64::from(!text.is_empty() && !text.starts_with(b"#"));
    }
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

    /// The cells are the bytes with a value on some board, and `0`; each
    /// byte tried at every place of a 16-byte block and of the rest.
    #[test]
    fn cells_are_counted_up_to_the_first_other_byte() {
        for byte in 0..=255u8 {
            let is_cell = CELL_VALUES[byte as usize] != NOT_A_CELL || byte == b'0';
            for place in 0..40 {
                let mut text = [b'7'; 40];
                text[place] = byte;
                let expected = if is_cell { 40 } else { place };
                assert_eq!(count_cells(&text), expected, "byte {byte} at {place}");
            }
        }
        assert_eq!(count_cells(b""), 0);
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
    fn puzzle_looking_arguments_are_lines_and_file_names_are_not() {
        let mut typo = EASY.to_string();
        typo.replace_range(40..41, "x");
        assert!(starts_with_a_puzzle(&typo));
        assert!(starts_with_a_puzzle(&format!("{EASY} # comment")));
        assert!(starts_with_a_puzzle("1..4"));
        assert!(!starts_with_a_puzzle("hard.txt"));
        assert!(!starts_with_a_puzzle("puzzles/0000000000000000.txt"));
    }

    #[test]
    fn reader_detects_kaggle_csv() {
        let got = entries(&format!("quizzes,solutions\n{EASY},864371259325849761971265843436192587198657432257483916689734125713528694542916378\n"));
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].line, 2);
        assert_eq!(got[0].text, EASY);
    }
}
