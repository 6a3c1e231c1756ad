//! `sudoku-anneal bench` (stage 6): every file solved on a backend, run
//! after run, and the figures of each collection (`stats.rs`), as a
//! markdown table and JSON (`table.rs`) and a plot of time-to-solution
//! CDFs (`plot.rs`).

#[cfg(feature = "plot")]
mod plot;
mod stats;
mod table;

use std::time::Instant;

use crate::backend::Backend;
use crate::error::Result;
use crate::outcome::Outcome;
use crate::puzzle::entries;
use crate::settings::Settings;
use crate::solver::{solve_stream, solve_stream_as_chosen};

#[cfg(feature = "plot")]
pub use plot::plot_svg;
pub use stats::{wilson, Stats};
pub use table::{json, markdown};

/// One pass over a file: every puzzle's outcome, in input order.
#[derive(Debug, Clone)]
pub struct Run {
    pub seed: u64,
    pub wall_seconds: f64,
    /// CPU time of the whole process over the run, user plus system
    /// (every thread, the host's side of a GPU run too); `None` where the
    /// platform does not say.
    pub cpu_seconds: Option<f64>,
    pub outcomes: Vec<Outcome>,
}

/// CPU time this process has used so far, user plus system, in seconds.
#[cfg(unix)]
pub fn process_cpu_seconds() -> Option<f64> {
    use nix::sys::resource::{getrusage, UsageWho};
    let usage = getrusage(UsageWho::RUSAGE_SELF).ok()?;
    let seconds = |t: nix::sys::time::TimeVal| t.tv_sec() as f64 + t.tv_usec() as f64 * 1e-6;
    Some(seconds(usage.user_time()) + seconds(usage.system_time()))
}

#[cfg(not(unix))]
pub fn process_cpu_seconds() -> Option<f64> {
    None
}

/// All runs of one file on one backend.
#[derive(Debug, Clone)]
pub struct Report {
    pub file: String,
    pub backend: String,
    pub device: String,
    pub settings: Settings,
    pub runs: Vec<Run>,
}

/// Solves each of `files` `runs` times on `backend`, with seeds
/// `settings.seed`, `+ 1`, …, on a solver per thread where the backend's
/// default batch asks for one and `batch_chosen` is false (else one over
/// the batch), after an untimed warm-up: first-use costs of
/// the device belong to no puzzle. `done` hears of each file's report. When
/// `stop` says so, the run under way is dropped (it would skew every
/// figure) and the whole runs before it are reported.
pub fn run_files(
    backend: &mut dyn Backend,
    settings: &Settings,
    files: &[String],
    runs: u64,
    batch_chosen: bool,
    stop: impl Fn() -> bool + Sync,
    mut done: impl FnMut(&Report),
) -> Result<Vec<Report>> {
    let mut reports = Vec::new();
    let first = entries(&files[..1], settings.variant).take(1);
    solve_stream(first, settings, backend, |_, _| Ok(()), &stop)?;
    for file in files {
        let mut report = Report {
            file: file.clone(),
            backend: backend.name().to_string(),
            device: backend.device(),
            settings: settings.clone(),
            runs: Vec::new(),
        };
        for seed in (0..runs).map(|run| settings.seed + run) {
            let run = run_file(file, &Settings { seed, ..settings.clone() }, backend, batch_chosen, &stop)?;
            if stop() {
                reports.extend((!report.runs.is_empty()).then_some(report));
                return Ok(reports);
            }
            report.runs.push(run);
        }
        done(&report);
        reports.push(report);
    }
    Ok(reports)
}

/// One timed pass over `file`.
fn run_file(
    file: &str,
    settings: &Settings,
    backend: &mut dyn Backend,
    batch_chosen: bool,
    stop: impl Fn() -> bool + Sync,
) -> Result<Run> {
    let mut outcomes = Vec::new();
    let (started, cpu_before) = (Instant::now(), process_cpu_seconds());
    let keep = |_, outcome| {
        outcomes.push(outcome);
        Ok(())
    };
    let entries = entries(&[file.to_string()], settings.variant);
    solve_stream_as_chosen(entries, settings, backend, batch_chosen, keep, stop)?;
    let cpu_seconds = process_cpu_seconds().zip(cpu_before).map(|(after, before)| after - before);
    Ok(Run { seed: settings.seed, wall_seconds: started.elapsed().as_secs_f64(), cpu_seconds, outcomes })
}
