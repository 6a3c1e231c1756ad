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
//!
//! The files: `parse.rs` (one line's cells), `reader.rs` (records from a
//! stream, plain or CSV), `inputs.rs` (the command line's inputs as one
//! stream), `ahead.rs` (what the solver reads, read ahead on a thread).

mod ahead;
mod inputs;
mod parse;
mod reader;

use std::sync::Arc;

use crate::error::PuzzleError;
use crate::grid::Grid;
pub use ahead::{Input, Next, ReadAhead};
pub use inputs::{check_inputs, count_lines, count_puzzles, entries, open_input, Entries, InputReader};
pub use parse::parse_grid;
pub use reader::{PuzzleReader, MAX_LINE};

/// A 9×9 puzzle the unit tests read.
#[cfg(test)]
const EASY: &str = "004300209005009001070060043006002087190007400050083000600000105003508690042910300";

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
