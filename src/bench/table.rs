//! A benchmark's reports as a markdown table and as JSON.

use std::path::Path;

use serde::Serialize;

use super::{Report, Stats};
use crate::settings::Settings;

fn ms(seconds: Option<f64>) -> String {
    seconds.map_or("–".into(), |s| format!("{:.2}", s * 1e3))
}

/// One markdown table, a row per report.
pub fn markdown(reports: &[Report]) -> String {
    let mut table = String::from(
        "| file | backend | device | puzzles × runs | solved | puzzles/s | puzzles/CPU-s | median ms | p90 ms | max ms | median sweeps | attempts per puzzle: median | mean | attempts/s | swap acceptance | median TTS99 ms | success, 95 % CI | median TTS99 ms, 95 % CI |\n\
         |---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    let (mut some_unsolved, mut by_reduction) = (false, Vec::new());
    for report in reports {
        let s = report.stats();
        some_unsolved |= s.solved < s.puzzles * s.runs;
        let file =
            Path::new(&report.file).file_name().map_or(report.file.clone(), |n| n.to_string_lossy().into_owned());
        if s.solved_by_reduction > 0 {
            by_reduction.push(format!("{file} on {}: {} of {}", report.backend, s.solved_by_reduction, s.solved));
        }
        let invalid = match s.invalid {
            0 => String::new(),
            n => format!(" (and {n} invalid)"),
        };
        let success = format!("{:.3} [{:.3}–{:.3}]", s.success_rate, s.success_rate_ci.0, s.success_rate_ci.1);
        table += &format!(
            "| {file} | {} | {} | {} × {}{invalid} | {} | {:.1} | {} | {} | {} | {} | {} | {} | {} | {:.3e} | {} | {} | {} | {} |\n",
            report.backend,
            report.device,
            s.puzzles,
            s.runs,
            s.solved,
            s.puzzles_per_second,
            s.puzzles_per_cpu_second.map_or("–".into(), |r| format!("{r:.1}")),
            ms(s.median_seconds),
            ms(s.p90_seconds),
            ms(s.max_seconds),
            s.median_sweeps.map_or("–".into(), |n| n.to_string()),
            s.median_attempts.map_or("–".into(), |n| format!("{:.3e}", n as f64)),
            s.mean_attempts.map_or("–".into(), |n| format!("{n:.3e}")),
            s.attempts_per_second,
            s.swap_acceptance.map_or("–".into(), |a| format!("{a:.3}")),
            ms(s.median_tts99_seconds),
            success,
            s.median_tts99_seconds_ci
                .map_or("–".into(), |(low, high)| format!("[{}–{}]", ms(Some(low)), high.map_or("∞".into(), |h| ms(Some(h))))),
        );
    }
    if some_unsolved {
        table += "\nUnsolved puzzles count in the time, sweep and attempt columns at the budget they spent: \
                  there those figures are lower bounds.\n";
    }
    if !by_reduction.is_empty() {
        table += &format!(
            "\nSolved by reduction, not by the anneal (singles, or probing: briefly before the anneal, in full \
             once a puzzle's first sweeps did not solve it, or before them where the first round reaches them \
             or many spins are free; `--reduce propagate` leaves them to the anneal): {}.\n",
            by_reduction.join("; ")
        );
    }
    table += "\nIntervals: Wilson's 95 % score interval of the puzzle-runs solved; for the median TTS99, the \
              medians of each puzzle's TTS99 at the ends of its own interval over its runs.\n";
    table
}

#[derive(Serialize)]
struct JsonReport<'a> {
    file: &'a str,
    backend: &'a str,
    device: &'a str,
    settings: &'a Settings,
    seeds: Vec<u64>,
    #[serde(flatten)]
    stats: Stats,
}

pub fn json(reports: &[Report]) -> String {
    let reports: Vec<JsonReport> = reports
        .iter()
        .map(|r| JsonReport {
            file: &r.file,
            backend: &r.backend,
            device: &r.device,
            settings: &r.settings,
            seeds: r.runs.iter().map(|run| run.seed).collect(),
            stats: r.stats(),
        })
        .collect();
    serde_json::to_string_pretty(&reports).expect("reports always serialize")
}
