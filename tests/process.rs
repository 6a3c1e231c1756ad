//! The binary as a process: spawned with piped streams, run with an input,
//! its output lines; a temporary file of its own.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, Output, Stdio};

use crate::util::{EASY, INKALA};

/// The binary with piped stdin, stdout and stderr.
pub fn spawn(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_sudoku-anneal"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// The binary run to its end on `stdin` (written while it runs, by
/// `assert_cmd`: the binary streams its output as it reads, so an input
/// written before reading would fill both pipes).
pub fn run_bytes(args: &[&str], stdin: &[u8]) -> Output {
    assert_cmd::Command::cargo_bin("sudoku-anneal").unwrap().args(args).write_stdin(stdin).output().unwrap()
}

pub fn run(args: &[&str], stdin: &str) -> Output {
    run_bytes(args, stdin.as_bytes())
}

/// `solve` on `cpu` over a collection that runs long (an easy puzzle, then
/// Inkala's twenty times, no time limit), sent `kill -SIGNAL` once its
/// first record is out: that record's line, the rest of its output, and
/// how it ended.
pub fn solve_stopped_by(signal: &str) -> (String, String, Output) {
    let input = format!("{EASY}\n{}", format!("{INKALA}\n").repeat(20));
    // Without completion, which solves each Inkala within a millisecond or two.
    let args = ["solve", "--backend", "cpu", "--complete", "off", "--format", "jsonl", "--timeout", "0"];
    let mut child = spawn(&[&args[..], &["--max-sweeps", "4000000000"]].concat());
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    assert!(Command::new("kill").args([&format!("-{signal}"), &child.id().to_string()]).status().unwrap().success());
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).unwrap();
    (first, rest, child.wait_with_output().unwrap())
}

pub fn stdout_lines(output: &Output) -> Vec<String> {
    String::from_utf8(output.stdout.clone()).unwrap().lines().map(str::to_string).collect()
}

/// A file of its own in the temporary directory, removed on drop.
pub struct TempFile(std::path::PathBuf);

impl TempFile {
    pub fn new(name: &str, text: &str) -> TempFile {
        let path = std::env::temp_dir().join(format!("sudoku-anneal-{}-{name}", std::process::id()));
        std::fs::write(&path, text).unwrap();
        TempFile(path)
    }

    pub fn path(&self) -> &str {
        self.0.to_str().unwrap()
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        drop(std::fs::remove_file(&self.0));
    }
}
