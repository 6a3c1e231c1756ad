//! The command line's inputs (puzzle strings, files, stdin) as one stream
//! of records, and how many there are.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;
use std::sync::Arc;

use super::parse::{count_cells, is_comment_start};
use super::reader::{read_line, PuzzleReader};
use super::Entry;
use crate::error::Error;
use crate::grid::Variant;

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
    pub(super) fn needs_a_read(&self) -> bool {
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
    use crate::puzzle::EASY;

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
}
