//! A collection uploaded from the page: its lines solved as `solve` would,
//! the records streamed back in bunches a few times a second, then a
//! summary. Nothing is dropped: a slow page slows the run instead.

use std::io::Cursor;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;
use tokio::sync::mpsc::Sender;

use super::live::{event, prepare, LiveRequest, Prepared};
use crate::puzzle::{count_lines, Entry, PuzzleReader};
use crate::report::{record, Format, Summary};
use crate::solver::solve_stream;

/// Records go out at most this often (and at the end): one event each
/// would flood the page on easy collections.
const SEND_EVERY: Duration = Duration::from_millis(150);

#[derive(Serialize)]
struct Start {
    /// Lines that hold a puzzle (comments and blank lines aside).
    puzzles: u64,
    backend: &'static str,
}

/// The counts at the end, as `solve` totals them, and the time taken.
#[derive(Serialize)]
struct Done {
    #[serde(flatten)]
    summary: Summary,
    seconds: f64,
}

/// Solves the uploaded `text`, sending `start`, `records` (jsonl lines,
/// one per data line) and `done` (the summary), or `error`; stops early
/// when the receiver is gone.
pub fn run(request: LiveRequest, text: Vec<u8>, sender: &Sender<String>) {
    if let Err(error) = solve(request, text, sender) {
        #[derive(Serialize)]
        struct Failure {
            error: String,
        }
        drop(sender.blocking_send(event("error", &Failure { error })));
    }
}

fn solve(request: LiveRequest, text: Vec<u8>, sender: &Sender<String>) -> Result<(), String> {
    let Prepared { variant, kind, mut backend, settings } = prepare(&request)?;
    let puzzles = count_lines(text.as_slice()).expect("memory reads");
    let send = |text: String| sender.blocking_send(text).map_err(|_| "the page went away".to_string());
    send(event("start", &Start { puzzles, backend: kind.name() }))?;
    let started = Instant::now();
    let mut summary = Summary::default();
    let mut bunch = String::new();
    let mut last_sent = Instant::now();
    let flush = |bunch: &mut String| -> Result<(), String> {
        if !bunch.is_empty() {
            send(format!("event: records\n{bunch}\n"))?;
            bunch.clear();
        }
        Ok(())
    };
    let emit = |entry, outcome: crate::outcome::Outcome| -> crate::error::Result<()> {
        summary.add(&outcome);
        bunch.push_str("data: ");
        bunch.push_str(&record(Format::Jsonl, &entry, &outcome, kind.name()));
        bunch.push('\n');
        if last_sent.elapsed() >= SEND_EVERY {
            last_sent = Instant::now();
            // A page that went away shows as a closed channel: `stop` below ends the run.
            drop(flush(&mut bunch));
        }
        Ok(())
    };
    let file: Option<Arc<str>> = request.file.as_deref().map(Arc::from);
    let entries = PuzzleReader::new(Cursor::new(text), variant).enumerate().map(|(index, entry)| {
        entry.map(|entry| Entry { index, file: file.clone(), ..entry }).map_err(crate::error::Error::Io)
    });
    solve_stream(entries, &settings, backend.as_mut(), emit, || sender.is_closed()).map_err(|e| e.to_string())?;
    flush(&mut bunch)?;
    send(event("done", &Done { summary, seconds: started.elapsed().as_secs_f64() }))
}
