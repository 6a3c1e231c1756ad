//! One puzzle annealed for the page: the settings it asked for, frames of
//! the ladder a few times a second, and the final record.

use std::time::{Duration, Instant};

use axum::response::sse::Event;
use serde::Serialize;
use tokio::sync::mpsc::Sender;

use crate::backend::gpu::AdapterName;
use crate::backend::registry::BackendChoice;
use crate::backend::Backend;
use crate::decode::conflicts;
use crate::grid::Variant;
use crate::puzzle::PuzzleReader;
use crate::report::{record, Format};
use crate::settings::{Overrides, Settings};
use crate::solver::{solve_observed, Observer, Progress};
use crate::BackendKind;

/// What the page asks for: the puzzle line, the backend and the settings,
/// by their command-line names; unset ones take the backend's defaults.
#[derive(Debug, Default)]
pub struct LiveRequest {
    /// The puzzle line (a collection's lines come in the request's body).
    pub puzzle: String,
    /// A collection's file name, for its records.
    pub file: Option<String>,
    pub backend: Option<String>,
    pub settings: Overrides,
    /// The adapter `serve --adapter` named, for every request; not the page's to choose.
    pub adapter: Option<AdapterName>,
}

impl LiveRequest {
    /// The request a query's `name=value` pairs make: `puzzle`, `file`,
    /// `backend`, and settings named as their flags ([`Overrides::from_pairs`]).
    pub fn from_query(pairs: &[(String, String)]) -> Result<LiveRequest, String> {
        let mut request = LiveRequest::default();
        let mut settings = Vec::new();
        for (name, value) in pairs {
            match name.as_str() {
                "puzzle" => request.puzzle.clone_from(value),
                "file" => request.file = Some(value.clone()),
                "backend" => request.backend = Some(value.clone()),
                _ => settings.push((name.as_str(), value.as_str())),
            }
        }
        request.settings = Overrides::from_pairs(settings).map_err(|e| e.to_string())?;
        Ok(request)
    }
}

/// Frames at most this often: a few per second are enough to watch.
const FRAME_EVERY: Duration = Duration::from_millis(200);
/// Lines in the energy chart at most: rungs, or groups of chains.
const MAX_SERIES: usize = 16;

/// One frame of the live view.
#[derive(Serialize)]
struct Frame {
    sweeps: u64,
    attempts: u64,
    seconds: f64,
    attempts_per_second: f64,
    /// The lowest energy on each rung (coldest first), or, on one-rung
    /// ladders, of each group of chains.
    series: Vec<i32>,
    series_are_rungs: bool,
    /// Each rung's temperature, coldest first (one on one-rung ladders).
    temperatures: Vec<f64>,
    /// The backend that runs (what `auto` picked), and its replicas for
    /// this puzzle (ladders × rungs): work compares like with like only
    /// beside them.
    backend: &'static str,
    replicas: usize,
    swap_acceptance: Vec<Option<f64>>,
    /// The rung each replica of the first ladder stands on, replica by
    /// replica: over frames, the paths replicas travel through the rungs.
    paths: Vec<u32>,
    /// Every replica's plain energy on each rung, coldest first (one list on
    /// one-rung ladders): the energy distribution per rung.
    rung_energies: Vec<Vec<i32>>,
    best_energy: i32,
    /// The lowest-energy replica's grid ('.' where a cell holds no digit
    /// or several) and its cells that share a digit with a unit peer.
    best: String,
    conflicts: Vec<usize>,
}

#[derive(Serialize)]
struct Failure {
    error: String,
}

/// An event of the stream: its name, and its data as JSON.
pub(super) fn event(name: &str, data: &impl Serialize) -> Event {
    Event::default().event(name).data(serde_json::to_string(data).expect("events always serialize"))
}

struct Frames<'a> {
    sender: &'a Sender<Event>,
    next: Instant,
    backend: &'static str,
}

impl Observer for Frames<'_> {
    fn wants_round(&self) -> bool {
        Instant::now() >= self.next
    }

    fn round(&mut self, progress: Progress<'_>) {
        self.next = Instant::now() + FRAME_EVERY;
        let rungs = progress.rung_of_replica.iter().max().map_or(1, |&r| r as usize + 1);
        let rung_energies: Vec<Vec<i32>> = (0..rungs as u32)
            .map(|rung| {
                let on_rung = progress.energies.iter().zip(&progress.rung_of_replica).filter(|&(_, &r)| r == rung);
                on_rung.map(|(&e, _)| e).collect()
            })
            .collect();
        let series = match rungs {
            1 => {
                let per = progress.energies.len().div_ceil(MAX_SERIES);
                progress.energies.chunks(per).map(|group| *group.iter().min().expect("not empty")).collect()
            }
            _ => rung_energies.iter().map(|on_rung| on_rung.iter().min().copied().unwrap_or(0)).collect(),
        };
        let frame = Frame {
            sweeps: progress.sweeps,
            attempts: progress.attempts,
            seconds: progress.seconds,
            attempts_per_second: progress.attempts as f64 / progress.seconds.max(1e-9),
            series,
            series_are_rungs: rungs > 1,
            temperatures: progress.temperatures.to_vec(),
            backend: self.backend,
            replicas: progress.energies.len(),
            swap_acceptance: progress.swap_acceptance,
            paths: progress.rung_of_replica[..rungs.min(progress.rung_of_replica.len())].to_vec(),
            rung_energies,
            best_energy: progress.best_energy,
            conflicts: conflicts(&progress.best),
            best: progress.best.to_string(),
        };
        // A slow page misses frames rather than slowing the run; the last
        // one, the final state, waits its turn (the record follows it).
        let frame = event("frame", &frame);
        match progress.last {
            true => drop(self.sender.blocking_send(frame)),
            false => drop(self.sender.try_send(frame)),
        }
    }
}

/// Anneals the request's puzzle, sending frames and then `done` (the
/// record) or `error`; stops early when the receiver is gone.
pub fn run(request: LiveRequest, sender: &Sender<Event>) {
    let result = anneal(request, sender);
    let last = match result {
        Ok(Some(done)) => done,
        Ok(None) => return,
        Err(error) => event("error", &Failure { error }),
    };
    drop(sender.blocking_send(last));
}

/// What a request resolves to: its rules, backend and settings.
pub(super) struct Prepared {
    pub variant: Variant,
    pub kind: BackendKind,
    pub backend: Box<dyn Backend>,
    pub settings: Settings,
}

/// Resolves a request's settings as the command line resolves its flags,
/// and starts its backend.
pub(super) fn prepare(request: &LiveRequest) -> Result<Prepared, String> {
    let backend_choice = match request.backend.as_deref().filter(|b| !b.is_empty() && *b != "default") {
        Some(name) => BackendChoice::named(name).map_err(|e| e.to_string())?,
        None => BackendChoice::Auto,
    };
    let (kind, backend) = backend_choice.build_on(request.adapter.as_ref()).map_err(|e| e.to_string())?;
    let settings = Settings::resolve(kind, &request.settings).map_err(|e| e.to_string())?;
    Ok(Prepared { variant: settings.variant, kind, backend, settings })
}

fn anneal(request: LiveRequest, sender: &Sender<Event>) -> Result<Option<Event>, String> {
    let variant = request.settings.model.variant;
    // The puzzle first: a bad line is said before a backend starts.
    let entry = PuzzleReader::new(request.puzzle.as_bytes(), variant)
        .next()
        .ok_or("no puzzle: paste or type one")?
        .map_err(|e| e.to_string())?;
    let Prepared { kind, mut backend, settings, .. } = prepare(&request)?;
    let mut frames = Frames { sender, next: Instant::now(), backend: kind.name() };
    let stop = || sender.is_closed();
    let outcome =
        solve_observed(entry.clone(), &settings, backend.as_mut(), &mut frames, stop).map_err(|e| e.to_string())?;
    // The record is one line of JSON already: the event's data as it is.
    Ok(outcome.map(|outcome| Event::default().event("done").data(record(Format::Jsonl, &entry, &outcome, kind.name()))))
}
