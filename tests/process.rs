//! The binary as a process: spawned with piped streams, run with an input,
//! its output lines; a temporary file of its own.

use std::process::{Child, Command, Output, Stdio};

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
