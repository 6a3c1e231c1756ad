//! The library's error types: [`PuzzleError`] says why one puzzle is
//! invalid (its record reports it and the run goes on); [`Error`](enum@Error) is a
//! failure of the run itself.

use thiserror::Error;

/// Why a puzzle line cannot be annealed. Shown after `# invalid: `.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PuzzleError {
    #[error("expected {expected} cells, found {cells}")]
    BadLength { cells: usize, expected: String },
    #[error("character {character:?} at column {column} is not a cell ({allowed})")]
    BadCharacter { character: char, column: usize, allowed: String },
    #[error("line longer than {max} bytes (the rest of it is skipped)")]
    LineTooLong { max: usize },
    #[error("clues conflict: {0}")]
    ConflictingClues(Box<Conflict>),
    #[error("no solution: {0}")]
    NoSolution(String),
}

/// Two clues of one digit in one unit. Boxed in [`PuzzleError`]: every
/// entry carries room for an error, and on easy collections entries are
/// moved many times per puzzle (BENCHMARKS.md).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("digit {digit} twice in {unit} ({first} and {second})")]
pub struct Conflict {
    pub digit: char,
    pub unit: String,
    pub first: String,
    pub second: String,
}

/// A failure of the run, not of one puzzle.
#[derive(Debug, Error)]
pub enum Error {
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// The cause follows in the error chain (`{:#}` prints it).
    #[error("cannot open {path}")]
    Open { path: String, source: std::io::Error },
    #[error("cannot read {path}")]
    Read { path: String, source: std::io::Error },
    #[error("invalid setting: {0}")]
    Settings(String),
    #[error("no usable GPU adapter: {0}")]
    NoAdapter(String),
    #[error("internal error (please report): {0}")]
    Internal(String),
    #[error("GPU error: {0}")]
    Gpu(String),
    #[error("cannot merge: {0}")]
    Merge(String),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
