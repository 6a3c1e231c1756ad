//! `sudoku_anneal._native`: what the Python package (`python/sudoku_anneal/`)
//! calls. Settings arrive as `(name, value)` pairs and are read by the
//! library's one declaration of them (`Overrides::from_pairs`), so a
//! keyword means what the flag of that name means and a bad one is refused
//! in the command line's words. Records are the lines `solve --format
//! jsonl` prints. A run anneals on a thread of its own (a backend stays on
//! the thread that built it) while the caller waits with the GIL released,
//! checking for Ctrl-C every 50 ms.

use std::io::Cursor;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;

use sudoku_anneal::backend::Backend;
use sudoku_anneal::export::bqm_json;
use sudoku_anneal::model::Model;
use sudoku_anneal::puzzle::{check_inputs, entries, Entry, PuzzleReader};

use sudoku_anneal::report::{record, Format};
use sudoku_anneal::settings::{ModelOptions, Overrides};
use sudoku_anneal::solver::{solve_observed, solve_stream_as_chosen, Observer, Progress};
use sudoku_anneal::{BackendChoice, BackendKind, Error, Settings};

/// How often a caller waiting for a run checks for Ctrl-C.
const SIGNAL_CHECK: Duration = Duration::from_millis(50);
/// Records solved ahead of the caller at most.
const RECORDS_AHEAD: usize = 1024;

/// The library's error as a Python exception, in the command line's words
/// (the error, then its causes): a setting is a `ValueError`, a file an
/// `OSError`, the rest a `RuntimeError`.
fn to_python(error: Error) -> PyErr {
    let mut text = error.to_string();
    let mut cause = std::error::Error::source(&error);
    while let Some(inner) = cause {
        text = format!("{text}: {inner}");
        cause = inner.source();
    }
    match error {
        Error::Settings(_) => PyValueError::new_err(text),
        Error::Open { .. } | Error::Read { .. } | Error::Io(_) => PyOSError::new_err(text),
        _ => PyRuntimeError::new_err(text),
    }
}

/// The backend a name chooses and the settings the pairs make for it,
/// checked as the command line checks its flags; and whether the batch was chosen.
fn prepare(backend: &str, settings: &[(String, String)]) -> Result<(Box<dyn Backend>, Settings, bool), Error> {
    let pairs = settings.iter().map(|(name, value)| (name.as_str(), value.as_str()));
    let overrides = Overrides::from_pairs(pairs)?;
    let choice = BackendChoice::named(backend)?;
    let (kind, backend) = choice.build()?;
    let (settings, _) = Settings::resolve(kind, &overrides)?.fit_to(backend.as_ref());
    Ok((backend, settings, overrides.batch.is_some()))
}

/// What a run's job is given on its thread.
struct Job<'a, T> {
    backend: &'a mut dyn Backend,
    settings: &'a Settings,
    batch_chosen: bool,
    /// Where its results go; a send fails once the caller has gone.
    send: &'a SyncSender<Result<T, Error>>,
    stop: &'a (dyn Fn() -> bool + Sync),
}

/// A run on a thread of its own, its results read here. Dropping it stops
/// the run within a round.
struct Run<T> {
    receiver: Receiver<Result<T, Error>>,
    stop: Arc<AtomicBool>,
}

impl<T: Send + 'static> Run<T> {
    /// Builds the backend and settings on the run's thread, returns once
    /// they are ready (or raises why not), and leaves `job` running there.
    fn start(
        py: Python<'_>,
        backend: String,
        settings: Vec<(String, String)>,
        job: impl FnOnce(Job<'_, T>) -> Result<(), Error> + Send + 'static,
    ) -> PyResult<Run<T>> {
        let (ready_send, ready) = mpsc::sync_channel(1);
        let (send, receiver) = mpsc::sync_channel(RECORDS_AHEAD);
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = Arc::clone(&stop);
        std::thread::spawn(move || {
            let (mut engine, settings, batch_chosen) = match prepare(&backend, &settings) {
                Ok(prepared) => prepared,
                Err(error) => return drop(ready_send.send(Err(error))),
            };
            drop(ready_send.send(Ok(())));
            let halt = || stopped.load(Ordering::Relaxed);
            let given = Job { backend: engine.as_mut(), settings: &settings, batch_chosen, send: &send, stop: &halt };
            if let Err(error) = job(given) {
                // A run stopped on purpose has no error to tell.
                if !halt() {
                    drop(send.send(Err(error)));
                }
            }
        });
        match py.detach(move || ready.recv()) {
            Ok(Ok(())) => Ok(Run { receiver, stop }),
            Ok(Err(error)) => Err(to_python(error)),
            Err(_) => Err(PyRuntimeError::new_err("the run's thread ended before it started")),
        }
    }

    /// The next result, `None` when the run is over; Ctrl-C stops the run
    /// and raises `KeyboardInterrupt`.
    fn next(&mut self, py: Python<'_>) -> PyResult<Option<T>> {
        loop {
            let receiver = &mut self.receiver;
            match py.detach(move || receiver.recv_timeout(SIGNAL_CHECK)) {
                Ok(Ok(result)) => return Ok(Some(result)),
                Ok(Err(error)) => return Err(to_python(error)),
                Err(RecvTimeoutError::Timeout) => {
                    if let Err(interrupt) = py.check_signals() {
                        self.stop.store(true, Ordering::Relaxed);
                        return Err(interrupt);
                    }
                }
                Err(RecvTimeoutError::Disconnected) => return Ok(None),
            }
        }
    }
}

impl<T> Drop for Run<T> {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// The records of a run, in input order, as their JSON lines: an
/// iterator. Dropping it stops the run.
#[pyclass(module = "sudoku_anneal._native")]
struct Records {
    run: Mutex<Run<String>>,
}

#[pymethods]
impl Records {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<Option<String>> {
        let mut run = self.run.lock().map_err(|_| PyRuntimeError::new_err("the run's records were lost"))?;
        run.next(py)
    }
}

/// Where a run's puzzles come from.
enum Source {
    /// One puzzle a line.
    Lines(Vec<String>),
    /// Files of one puzzle per line, read as the command line reads them.
    Files(Vec<String>),
}

/// Starts a run over puzzle `lines` (one puzzle each) or `files` (read as
/// the command line reads them) on `backend` with `settings`; its records
/// come from the iterator returned. Errors in the settings, the backend and
/// the files are raised here; a line that is no valid puzzle is a record
/// with status "invalid".
#[pyfunction]
#[pyo3(signature = (lines, files, backend, settings))]
fn records(
    py: Python<'_>,
    lines: Option<Vec<String>>,
    files: Option<Vec<String>>,
    backend: String,
    settings: Vec<(String, String)>,
) -> PyResult<Records> {
    let source = match (lines, files) {
        (Some(lines), None) => {
            lines.iter().try_for_each(|line| one_line(line))?;
            Source::Lines(lines)
        }
        (None, Some(files)) => {
            check_inputs(&files).map_err(to_python)?;
            Source::Files(files)
        }
        _ => return Err(PyValueError::new_err("give puzzle lines or files, not both")),
    };
    let run = Run::start(py, backend, settings, move |job: Job<'_, String>| {
        let name = job.backend.kind().name();
        let emit = |entry: Entry, outcome| {
            let line = record(Format::Jsonl, &entry, &outcome, name);
            job.send.send(Ok(line)).map_err(|_| Error::Internal("nobody reads the records".into()))
        };
        let variant = job.settings.variant;
        match source {
            Source::Lines(lines) => {
                let text = lines.join("\n").into_bytes();
                let read = PuzzleReader::new(Cursor::new(text), variant)
                    .enumerate()
                    .map(|(index, entry)| entry.map(|entry| Entry { index, ..entry }).map_err(Error::Io));
                solve_stream_as_chosen(read, job.settings, job.backend, job.batch_chosen, emit, job.stop)
            }
            Source::Files(files) => {
                let read = entries(&files, variant);
                solve_stream_as_chosen(read, job.settings, job.backend, job.batch_chosen, emit, job.stop)
            }
        }
    })?;
    Ok(Records { run: Mutex::new(run) })
}

/// The exact model annealed for `puzzle`, as `export --format bqm-json`
/// writes it.
#[pyfunction]
#[pyo3(signature = (puzzle, reduce = "propagate", variant = "standard"))]
fn model_json(puzzle: &str, reduce: &str, variant: &str) -> PyResult<String> {
    let pairs = [("reduce", reduce), ("variant", variant)];
    let ModelOptions { reduce: mode, variant } = Overrides::from_pairs(pairs).map_err(to_python)?.model;
    let entry = one_entry(puzzle, variant)?;
    let model = entry.grid.and_then(|grid| Model::of_puzzle(&grid, mode));
    let model = model.map_err(|why| PyValueError::new_err(format!("invalid puzzle: {why}")))?;
    Ok(bqm_json(&model))
}

/// Refuses a puzzle given as several lines.
fn one_line(puzzle: &str) -> PyResult<()> {
    match puzzle.contains(['\n', '\r']) {
        true => Err(PyValueError::new_err(format!("a puzzle is one line; this one has several: {puzzle:?}"))),
        false => Ok(()),
    }
}

/// The one puzzle of a line.
fn one_entry(puzzle: &str, variant: sudoku_anneal::grid::Variant) -> PyResult<Entry> {
    one_line(puzzle)?;
    PuzzleReader::new(puzzle.as_bytes(), variant)
        .next()
        .ok_or_else(|| PyValueError::new_err("no puzzle: the line is empty"))?
        .map_err(|e| PyOSError::new_err(e.to_string()))
}

/// What the last round of a puzzle left: its lowest-energy replica's grid.
#[derive(Default)]
struct LastState {
    best: Option<String>,
}

impl Observer for LastState {
    fn wants_round(&self) -> bool {
        false
    }

    fn round(&mut self, progress: Progress<'_>) {
        if progress.last {
            self.best = Some(progress.best.to_string());
        }
    }
}

/// Anneals one puzzle: its record, and the grid of its lowest-energy
/// replica at the end ('.' where a cell holds no digit or several).
#[pyfunction]
#[pyo3(signature = (puzzle, backend, settings))]
fn anneal_one(
    py: Python<'_>,
    puzzle: &str,
    backend: String,
    settings: Vec<(String, String)>,
) -> PyResult<(String, Option<String>)> {
    // The puzzle is read here, by the rules the settings name: a bad line is raised before a backend starts.
    let pairs = settings.iter().map(|(name, value)| (name.as_str(), value.as_str()));
    let entry = one_entry(puzzle, Overrides::from_pairs(pairs).map_err(to_python)?.model.variant)?;
    let mut run = Run::start(py, backend, settings, move |job: Job<'_, (String, Option<String>)>| {
        let mut last = LastState::default();
        let outcome = solve_observed(entry.clone(), job.settings, job.backend, &mut last, job.stop)?;
        if let Some(outcome) = outcome {
            let line = record(Format::Jsonl, &entry, &outcome, job.backend.kind().name());
            drop(job.send.send(Ok((line, last.best))));
        }
        Ok(())
    })?;
    run.next(py)?.ok_or_else(|| PyRuntimeError::new_err("the run ended without the puzzle's record"))
}

/// Every setting's name, as the keywords take them (the one declaration's).
#[pyfunction]
fn setting_names() -> Vec<String> {
    Overrides::names()
}

/// The backends' names, as `backend=` takes them.
#[pyfunction]
fn backend_names() -> Vec<&'static str> {
    BackendKind::ALL.iter().map(|kind| kind.name()).chain(["auto"]).collect()
}

#[pymodule]
fn _native(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<Records>()?;
    module.add_function(wrap_pyfunction!(records, module)?)?;
    module.add_function(wrap_pyfunction!(model_json, module)?)?;
    module.add_function(wrap_pyfunction!(anneal_one, module)?)?;
    module.add_function(wrap_pyfunction!(backend_names, module)?)?;
    module.add_function(wrap_pyfunction!(setting_names, module)?)?;
    // The board's symbols, digit d at index d - 1.
    module.add("SYMBOLS", std::str::from_utf8(sudoku_anneal::grid::SYMBOLS).expect("ASCII"))?;
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
