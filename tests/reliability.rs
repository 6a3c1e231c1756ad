//! What a new user broke once (issue 32), each reproduced as it was found:
//! mistyped lines, line endings, unbounded lines, an unwritable stderr,
//! settings beyond memory, puzzle-looking arguments, signals.

use std::process::Command;

use crate::process::{run, run_bytes, solve_stopped_by, stdout_lines};
use crate::util::{EASY, INKALA};

fn records(out: &std::process::Output) -> Vec<serde_json::Value> {
    stdout_lines(out).iter().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// An 81-cell line with a stray character at column 17 is an invalid
/// record naming that column, not a 4×4 board and a comment; a 256-cell
/// line with one at column 82 is not a 9×9 board.
#[test]
fn a_mistyped_line_is_invalid_at_its_column_not_a_smaller_board() {
    let mut typo = INKALA.to_string();
    typo.replace_range(16..17, "*");
    let mut sixteen = ".".repeat(256);
    sixteen.replace_range(81..82, "*");
    let out = run(&["solve", "--backend", "cpu-lanes", "--format", "jsonl", "-"], &format!("{typo}\n{sixteen}\n"));
    assert_eq!(out.status.code(), Some(1));
    let records = records(&out);
    assert_eq!(records.len(), 2);
    for (record, column) in records.iter().zip([17, 82]) {
        assert_eq!(record["status"], "invalid");
        let error = record["error"].as_str().unwrap();
        assert!(error.contains(&format!("'*' at column {column} is not a cell")), "{error}");
    }
}

/// Lines ended by a lone CR (old Mac files) are each a puzzle.
#[test]
fn carriage_returns_alone_end_lines() {
    let out = run(&["solve", "--backend", "cpu-lanes", "--format", "jsonl", "-"], &format!("{EASY}\r{EASY}\r{EASY}"));
    assert_eq!(out.status.code(), Some(0));
    let lines: Vec<_> = records(&out).iter().map(|r| r["line"].as_u64().unwrap()).collect();
    assert_eq!(lines, vec![1, 2, 3]);
}

/// A line without end (`/dev/zero`) is one invalid record, read within
/// bounded memory, and the puzzle after it is solved.
#[test]
fn an_endless_line_is_one_invalid_record_in_bounded_memory() {
    let mut input = vec![b'0'; 8 << 20];
    input.extend_from_slice(format!("\n{EASY}\n").as_bytes());
    let out = run_bytes(&["solve", "--backend", "cpu-lanes", "--format", "jsonl", "-"], &input);
    assert_eq!(out.status.code(), Some(1));
    let records = records(&out);
    assert_eq!(records.len(), 2);
    assert!(records[0]["error"].as_str().unwrap().contains("line longer than 65536 bytes"));
    assert_eq!(records[1]["status"], "solved");
}

/// stderr on a full device: the run goes on and its records are written;
/// with `auto` (which says on stderr what it picked) too.
#[test]
fn an_unwritable_stderr_stops_nothing() {
    for backend in ["cpu-lanes", "auto"] {
        let out = Command::new(env!("CARGO_BIN_EXE_sudoku-anneal"))
            .args(["solve", "--backend", backend, EASY])
            .stderr(std::fs::File::create("/dev/full").unwrap())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{backend}");
        assert_eq!(stdout_lines(&out).len(), 1);
    }
    let help = Command::new(env!("CARGO_BIN_EXE_sudoku-anneal"))
        .arg("--help")
        .stdout(std::fs::File::create("/dev/full").unwrap())
        .status()
        .unwrap();
    assert_eq!(help.code(), Some(2), "help that cannot be written is no success");
}

/// Records that cannot be written are no summary of solved puzzles.
#[test]
fn an_unwritable_stdout_is_an_error_without_a_summary() {
    let out = Command::new(env!("CARGO_BIN_EXE_sudoku-anneal"))
        .args(["solve", "--backend", "cpu-lanes", EASY])
        .stdout(std::fs::File::create("/dev/full").unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("No space left on device") && !stderr.contains("solved"), "{stderr}");
}

/// Settings whose replicas cannot fit are refused before any is made,
/// with the figures, under an address-space limit as a scheduler sets one.
#[test]
fn settings_beyond_memory_are_refused_up_front() {
    let binary = env!("CARGO_BIN_EXE_sudoku-anneal");
    let out = Command::new("sh")
        .args([
            "-c",
            &format!("ulimit -v 4000000; exec {binary} solve --backend cpu --replicas 4194303 --ladders 1 {EASY}"),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("need about 36.7 GB on 9×9 boards; this machine has"), "{stderr}");
}

/// A puzzle argument with a typo is an invalid record, as the same line in
/// a file would be, not a file that cannot be opened; a bench JSON path
/// that cannot be written is named plainly.
#[test]
fn a_mistyped_puzzle_argument_is_an_invalid_record() {
    let mut typo = INKALA.to_string();
    typo.replace_range(40..41, "x");
    let out = run(&["solve", "--backend", "cpu-lanes", "--format", "jsonl", &typo], "");
    assert_eq!(out.status.code(), Some(1));
    let records = records(&out);
    assert_eq!(records[0]["status"], "invalid");
    assert!(records[0]["error"].as_str().unwrap().contains("'x' at column 41"));
    let out = run(&["bench", "--backend", "cpu-lanes", "--max-sweeps", "1", "--json", "/dev/full", EASY], "");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("error: cannot write /dev/full: "), "{stderr}");
}

/// SIGTERM (what Slurm and Kubernetes send before they kill) stops a run as
/// Ctrl-C does: complete records, a summary, the last line, exit 143.
#[test]
fn sigterm_stops_cleanly_with_complete_records_and_a_summary() {
    let (first, rest, out) = solve_stopped_by("TERM");
    assert_eq!(out.status.code(), Some(143));
    for line in std::iter::once(first.as_str()).chain(rest.lines()).filter(|l| !l.trim().is_empty()) {
        assert_eq!(serde_json::from_str::<serde_json::Value>(line).unwrap()["status"], "solved");
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("stopped by SIGTERM; the last record printed is for line"), "{stderr}");
    assert!(stderr.contains(" solved, 0 unsolved, 0 invalid in "), "{stderr}");
}
