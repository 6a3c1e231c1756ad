//! A collection uploaded from the page: its lines solved as `solve` would,
//! the records streamed back in bunches a few times a second, then a
//! summary. Nothing is dropped: a slow page slows the run instead.

use std::cell::RefCell;
use std::io::Cursor;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::response::sse::Event;
use serde::Serialize;
use tokio::sync::mpsc::Sender;

use super::live::{event, prepare, LiveRequest, Prepared};
use crate::outcome::Outcome;
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
pub fn run(request: LiveRequest, text: Vec<u8>, sender: &Sender<Event>) {
    if let Err(error) = solve(request, text, sender) {
        #[derive(Serialize)]
        struct Failure {
            error: String,
        }
        drop(sender.blocking_send(event("error", &Failure { error })));
    }
}

/// Records not sent yet, and when the last were.
struct Bunch<'a> {
    sender: &'a Sender<Event>,
    /// The records held, one per line: one `data:` line each on the wire.
    text: String,
    sent: Instant,
}

impl Bunch<'_> {
    fn send(&self, event: Event) -> Result<(), String> {
        self.sender.blocking_send(event).map_err(|_| "the page went away".to_string())
    }

    fn add(&mut self, record: &str) {
        if !self.text.is_empty() {
            self.text.push('\n');
        }
        self.text.push_str(record);
    }

    /// Sends what is held once `SEND_EVERY` has passed since the last, or
    /// at once with `now`.
    fn flush(&mut self, now: bool) -> Result<(), String> {
        if self.text.is_empty() || !(now || self.sent.elapsed() >= SEND_EVERY) {
            return Ok(());
        }
        self.sent = Instant::now();
        let text = std::mem::take(&mut self.text);
        self.send(Event::default().event("records").data(text))
    }
}

fn solve(request: LiveRequest, text: Vec<u8>, sender: &Sender<Event>) -> Result<(), String> {
    let Prepared { variant, kind, mut backend, settings } = prepare(&request)?;
    let puzzles = count_lines(text.as_slice()).expect("memory reads");
    let bunch = RefCell::new(Bunch { sender, text: String::new(), sent: Instant::now() });
    bunch.borrow().send(event("start", &Start { puzzles, backend: kind.name() }))?;
    let started = Instant::now();
    let mut summary = Summary::default();
    let emit = |entry, outcome: Outcome| -> crate::error::Result<()> {
        summary.add(&outcome);
        bunch.borrow_mut().add(&record(Format::Jsonl, &entry, &outcome, kind.name()));
        Ok(())
    };
    // Called every round: records go out while a long puzzle anneals, and a
    // page that went away (a closed channel) ends the run.
    let stop = || bunch.borrow_mut().flush(false).is_err() || sender.is_closed();
    let file: Option<Arc<str>> = request.file.as_deref().map(Arc::from);
    let entries = PuzzleReader::new(Cursor::new(text), variant).enumerate().map(|(index, entry)| {
        entry.map(|entry| Entry { index, file: file.clone(), ..entry }).map_err(crate::error::Error::Io)
    });
    solve_stream(entries, &settings, backend.as_mut(), emit, stop).map_err(|e| e.to_string())?;
    let mut bunch = bunch.into_inner();
    bunch.flush(true)?;
    bunch.send(event("done", &Done { summary, seconds: started.elapsed().as_secs_f64() }))
}
