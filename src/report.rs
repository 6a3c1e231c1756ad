//! Stage 6, report: one output line per input puzzle, plain or JSON lines,
//! and the run's summary.

use std::io::Write;

use serde::Serialize;

use crate::outcome::{Outcome, Status};
use crate::puzzle::Entry;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Format {
    /// The solved grid, or the puzzle followed by `# unsolved`, `# invalid: …` or `# error: …`.
    #[default]
    Plain,
    /// One JSON object per puzzle.
    Jsonl,
}

#[derive(Serialize)]
struct JsonRecord<'a> {
    /// 0-based over all inputs, so records from several runs or shards sort back into input order.
    index: usize,
    /// The input's path, `-` for stdin, null for a puzzle on the command line.
    file: Option<&'a str>,
    line: usize,
    puzzle: &'a str,
    status: &'static str,
    solution: Option<String>,
    sweeps: u64,
    /// Spin-update attempts over all the puzzle's replicas.
    attempts: u64,
    seconds: f64,
    backend: &'a str,
    error: Option<String>,
    /// What solved it: `reduction` (singles, or probing) or `anneal`; null when unsolved.
    solved_by: Option<&'static str>,
}

/// The output line (without newline) for one puzzle.
pub fn record(format: Format, entry: &Entry, outcome: &Outcome, backend: &str) -> String {
    let mut line = Vec::new();
    write_record(&mut line, format, entry, outcome, backend);
    String::from_utf8(line).expect("records are UTF-8")
}

/// [`record`] appended to `out`: a solved puzzle's plain record, nearly
/// every record of an easy collection, is written without an allocation.
pub fn write_record(out: &mut Vec<u8>, format: Format, entry: &Entry, outcome: &Outcome, backend: &str) {
    // Writing to a Vec cannot fail.
    let text = &entry.text;
    match format {
        Format::Plain => match &outcome.status {
            Status::Solved(grid) => grid.write_text(out),
            Status::Unsolved => write!(out, "{text} # unsolved").expect("a Vec takes any write"),
            Status::Invalid(reason) => {
                write!(out, "{text} # invalid: line {}: {reason}", entry.line).expect("a Vec takes any write")
            }
            Status::Failed(reason) => {
                write!(out, "{text} # error: line {}: {reason}", entry.line).expect("a Vec takes any write")
            }
        },
        Format::Jsonl => {
            let (status, solution, error) = match &outcome.status {
                Status::Solved(grid) => ("solved", Some(grid.text()), None),
                Status::Unsolved => ("unsolved", None, None),
                Status::Invalid(reason) => ("invalid", None, Some(reason.to_string())),
                Status::Failed(reason) => ("error", None, Some(reason.clone())),
            };
            let solved_by = match (&outcome.status, outcome.by_reduction) {
                (Status::Solved(_), true) => Some("reduction"),
                (Status::Solved(_), false) => Some("anneal"),
                _ => None,
            };
            let json = JsonRecord {
                index: entry.index,
                file: entry.file.as_deref(),
                line: entry.line,
                puzzle: &entry.text,
                status,
                solution,
                sweeps: outcome.sweeps,
                attempts: outcome.attempts,
                seconds: outcome.seconds,
                backend,
                error,
                solved_by,
            };
            serde_json::to_writer(out, &json).expect("a record always serializes")
        }
    }
}

/// Totals over a run.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Summary {
    pub puzzles: u64,
    pub solved: u64,
    pub unsolved: u64,
    pub invalid: u64,
    /// Puzzles the engine failed on.
    pub failed: u64,
    pub attempts: u64,
}

impl Summary {
    pub fn add(&mut self, outcome: &Outcome) {
        self.puzzles += 1;
        match outcome.status {
            Status::Solved(_) => self.solved += 1,
            Status::Unsolved => self.unsolved += 1,
            Status::Invalid(_) => self.invalid += 1,
            Status::Failed(_) => self.failed += 1,
        }
        self.attempts += outcome.attempts;
    }

    pub fn all_solved(&self) -> bool {
        self.solved == self.puzzles
    }

    /// One human line for stderr: the counts, then the work (spin-update
    /// attempts) per puzzle annealed and per second of the run.
    pub fn describe(&self, backend: &str, wall_seconds: f64) -> String {
        let failed = match self.failed {
            0 => String::new(),
            n => format!(", {n} failed (an engine error: please report)"),
        };
        let annealed = self.solved + self.unsolved;
        let per_second = if wall_seconds > 0.0 { self.attempts as f64 / wall_seconds } else { 0.0 };
        let work = match annealed {
            0 => String::new(),
            n => format!(
                ", {:.3e} spin-update attempts per puzzle, {per_second:.3e} per second",
                self.attempts as f64 / n as f64
            ),
        };
        let puzzles = if self.puzzles == 1 { "puzzle" } else { "puzzles" };
        format!(
            "{} {puzzles}: {} solved, {} unsolved, {} invalid{failed} in {wall_seconds:.3} s ({backend}{work})",
            self.puzzles, self.solved, self.unsolved, self.invalid,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_gives_attempts_per_puzzle_annealed_and_per_second() {
        let summary =
            Summary { puzzles: 3, solved: 1, unsolved: 1, invalid: 1, attempts: 4_000_000_000, ..Summary::default() };
        assert_eq!(
            summary.describe("cpu-bits", 4.0),
            "3 puzzles: 1 solved, 1 unsolved, 1 invalid in 4.000 s \
             (cpu-bits, 2.000e9 spin-update attempts per puzzle, 1.000e9 per second)"
        );
        let one = Summary { puzzles: 1, invalid: 1, ..Summary::default() };
        assert_eq!(one.describe("cpu", 0.0), "1 puzzle: 0 solved, 0 unsolved, 1 invalid in 0.000 s (cpu)");
    }
}
