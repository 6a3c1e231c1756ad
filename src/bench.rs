//! Benchmark reports (stage 6 for `sudoku-anneal bench`): statistics of
//! solved collections per backend, as a markdown table, JSON and an SVG plot
//! of time-to-solution CDFs.

use std::path::Path;

use serde::Serialize;

use crate::error::{Error, Result};
use crate::outcome::{Outcome, Status};
use crate::settings::Settings;
use crate::tempering::acceptance_rate;

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

/// The figures of a report, over all its runs. Lines that are no valid
/// puzzle count in none of them; unsolved puzzles count in the time and
/// work figures at what they spent (their budget), so those figures are
/// lower bounds when any puzzle went unsolved.
#[derive(Debug, Clone, Serialize)]
pub struct Stats {
    /// Valid puzzles in the file.
    pub puzzles: usize,
    /// Lines of the file that are no valid puzzle.
    pub invalid: usize,
    pub runs: usize,
    /// Puzzle-runs solved within the budget.
    pub solved: usize,
    pub puzzles_per_second: f64,
    /// CPU time over all runs, and puzzles per CPU-second: on a shared
    /// machine, steadier than wall time.
    pub cpu_seconds: Option<f64>,
    pub puzzles_per_cpu_second: Option<f64>,
    pub median_seconds: Option<f64>,
    pub p90_seconds: Option<f64>,
    pub max_seconds: Option<f64>,
    pub median_sweeps: Option<u64>,
    /// Spin-update attempts per puzzle (the work it took): median, mean and
    /// 90th percentile over the puzzle-runs.
    pub median_attempts: Option<u64>,
    pub mean_attempts: Option<f64>,
    pub p90_attempts: Option<u64>,
    pub attempts_per_second: f64,
    /// Accepted over proposed exchanges; `None` (JSON null, "–" in the
    /// table) where none was proposed, as on one-rung ladders.
    pub swap_acceptance: Option<f64>,
    /// Acceptance of each adjacent pair of rungs, coldest pair first.
    pub swap_acceptance_per_pair: Vec<Option<f64>>,
    /// Per puzzle, over the runs: fraction solved, and the time to solve it
    /// with 99 % confidence (`t·ln 0.01/ln(1−p)` with t the mean run time;
    /// with p = 1 the slowest run, as the p99 of fewer than 100 runs).
    pub success_probability: Vec<f64>,
    pub tts99_seconds: Vec<Option<f64>>,
    pub median_tts99_seconds: Option<f64>,
    /// 95 % intervals (Wilson's score interval for a success probability;
    /// a TTS99 from the ends of its puzzle's interval, `None` above where
    /// the interval reaches 0): per puzzle, and for the median TTS99 the
    /// medians of the puzzles' ends.
    pub success_probability_ci: Vec<(f64, f64)>,
    pub tts99_seconds_ci: Vec<(f64, Option<f64>)>,
    pub median_tts99_seconds_ci: Option<(f64, Option<f64>)>,
    /// Puzzle-runs solved over puzzle-runs, and its 95 % Wilson interval
    /// (of a puzzle-run drawn at random from this set's).
    pub success_rate: f64,
    pub success_rate_ci: (f64, f64),
}

/// Wilson's 95 % score interval for `successes` of `trials`: unlike the
/// normal approximation, sound at 0 and at all successes, and never outside [0, 1].
pub fn wilson(successes: usize, trials: usize) -> (f64, f64) {
    if trials == 0 {
        return (0.0, 1.0);
    }
    let (n, z) = (trials as f64, 1.959_963_984_540_054);
    let p = successes as f64 / n;
    let denominator = 1.0 + z * z / n;
    let centre = (p + z * z / (2.0 * n)) / denominator;
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / denominator;
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// Time to solution with 99 % confidence at success probability `p` per
/// run of `mean` seconds: `mean · ln 0.01 / ln(1 − p)`; at p = 1 the
/// `slowest` run (the p99 of fewer than 100 runs); `None` at p = 0.
fn tts99(p: f64, mean: f64, slowest: f64) -> Option<f64> {
    match p {
        p if p >= 1.0 => Some(slowest),
        p if p > 0.0 => Some(mean * 0.01f64.ln() / (1.0 - p).ln()),
        _ => None,
    }
}

fn median<T: Copy + PartialOrd>(sorted: &[T]) -> Option<T> {
    sorted.get(sorted.len() / 2).copied()
}

fn percentile(sorted: &[f64], q: f64) -> Option<f64> {
    let index = ((q * sorted.len() as f64).ceil() as usize).max(1) - 1;
    sorted.get(index).copied()
}

impl Report {
    pub fn stats(&self) -> Stats {
        let is_valid = |o: &&Outcome| !matches!(o.status, Status::Invalid(_));
        let all: Vec<&Outcome> = self.runs.iter().flat_map(|r| &r.outcomes).filter(is_valid).collect();
        let solved = all.iter().filter(|o| o.is_solved()).count();
        let mut seconds: Vec<f64> = all.iter().map(|o| o.seconds).collect();
        seconds.sort_by(f64::total_cmp);
        let mut sweeps: Vec<u64> = all.iter().map(|o| o.sweeps).collect();
        sweeps.sort_unstable();
        let mut attempts: Vec<u64> = all.iter().map(|o| o.attempts).collect();
        attempts.sort_unstable();
        let wall: f64 = self.runs.iter().map(|r| r.wall_seconds).sum();
        let cpu: Option<f64> = self.runs.iter().map(|r| r.cpu_seconds).sum();
        let pairs = all.iter().map(|o| o.swap_attempts.len()).max().unwrap_or(0);
        let (mut proposed, mut accepted) = (vec![0u64; pairs], vec![0u64; pairs]);
        for outcome in &all {
            proposed.iter_mut().zip(&outcome.swap_attempts).for_each(|(sum, n)| *sum += n);
            accepted.iter_mut().zip(&outcome.swap_accepted).for_each(|(sum, n)| *sum += n);
        }
        let lines = self.runs.first().map_or(0, |r| r.outcomes.len());
        let (mut success_probability, mut tts99_seconds) = (Vec::new(), Vec::new());
        let (mut success_probability_ci, mut tts99_seconds_ci) = (Vec::new(), Vec::new());
        for line in 0..lines {
            let runs: Vec<&Outcome> = self.runs.iter().map(|r| &r.outcomes[line]).filter(is_valid).collect();
            if runs.is_empty() {
                continue;
            }
            let successes = runs.iter().filter(|o| o.is_solved()).count();
            let p = successes as f64 / runs.len() as f64;
            let mean = runs.iter().map(|o| o.seconds).sum::<f64>() / runs.len() as f64;
            let slowest = runs.iter().map(|o| o.seconds).fold(0.0, f64::max);
            let (low, high) = wilson(successes, runs.len());
            let point = tts99(p, mean, slowest);
            // The interval's ends by the same estimator, widened to hold the point
            // (at p = 1 the point is the slowest run, which the formula's ends ignore).
            let fast = tts99(high, mean, slowest).expect("the upper end is above 0");
            let slow = tts99(low, mean, slowest);
            let fast = point.map_or(fast, |point| fast.min(point));
            let slow = slow.map(|slow| point.map_or(slow, |point| slow.max(point)));
            success_probability_ci.push((low, high));
            tts99_seconds_ci.push((fast, slow));
            success_probability.push(p);
            tts99_seconds.push(point);
        }
        let mut known: Vec<f64> = tts99_seconds.iter().flatten().copied().collect();
        known.sort_by(f64::total_cmp);
        let mut fastest: Vec<f64> = tts99_seconds_ci.iter().map(|&(low, _)| low).collect();
        fastest.sort_by(f64::total_cmp);
        // An unbounded end sorts last: the median's is unbounded only if half of them are.
        let mut slowest: Vec<Option<f64>> = tts99_seconds_ci.iter().map(|&(_, high)| high).collect();
        slowest.sort_by(|a, b| a.unwrap_or(f64::INFINITY).total_cmp(&b.unwrap_or(f64::INFINITY)));
        let puzzle_runs = all.len();
        let every_tts_known = known.len() == tts99_seconds.len();
        Stats {
            puzzles: success_probability.len(),
            invalid: lines - success_probability.len(),
            runs: self.runs.len(),
            solved,
            puzzles_per_second: if wall > 0.0 { all.len() as f64 / wall } else { 0.0 },
            cpu_seconds: cpu,
            puzzles_per_cpu_second: cpu.filter(|&c| c > 0.0).map(|c| all.len() as f64 / c),
            median_seconds: median(&seconds),
            p90_seconds: percentile(&seconds, 0.9),
            max_seconds: seconds.last().copied(),
            median_sweeps: median(&sweeps),
            median_attempts: median(&attempts),
            mean_attempts: (!attempts.is_empty()).then(|| attempts.iter().sum::<u64>() as f64 / attempts.len() as f64),
            p90_attempts: attempts.get(((0.9 * attempts.len() as f64).ceil() as usize).max(1) - 1).copied(),
            attempts_per_second: if wall > 0.0 {
                all.iter().map(|o| o.attempts).sum::<u64>() as f64 / wall
            } else {
                0.0
            },
            swap_acceptance: acceptance_rate(accepted.iter().sum(), proposed.iter().sum()),
            swap_acceptance_per_pair: accepted.iter().zip(&proposed).map(|(&a, &n)| acceptance_rate(a, n)).collect(),
            // Unsolvable in every run counts as slowest, so the median stays honest.
            median_tts99_seconds: if every_tts_known { median(&known) } else { None },
            success_probability,
            tts99_seconds,
            // Where the median itself is unknown (a puzzle never solved), so is its interval.
            median_tts99_seconds_ci: median(&fastest)
                .map(|low| (low, median(&slowest).flatten()))
                .filter(|_| every_tts_known),
            success_probability_ci,
            tts99_seconds_ci,
            success_rate: if puzzle_runs > 0 { solved as f64 / puzzle_runs as f64 } else { 0.0 },
            success_rate_ci: wilson(solved, puzzle_runs),
        }
    }
}

fn ms(seconds: Option<f64>) -> String {
    seconds.map_or("–".into(), |s| format!("{:.2}", s * 1e3))
}

/// One markdown table, a row per report.
pub fn markdown(reports: &[Report]) -> String {
    let mut table = String::from(
        "| file | backend | device | puzzles × runs | solved | puzzles/s | puzzles/CPU-s | median ms | p90 ms | max ms | median sweeps | attempts per puzzle: median | mean | attempts/s | swap acceptance | median TTS99 ms | success, 95 % CI | median TTS99 ms, 95 % CI |\n\
         |---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    let mut some_unsolved = false;
    for report in reports {
        let s = report.stats();
        some_unsolved |= s.solved < s.puzzles * s.runs;
        let invalid = match s.invalid {
            0 => String::new(),
            n => format!(" (and {n} invalid)"),
        };
        table += &format!(
            "| {} | {} | {} | {} × {}{invalid} | {} | {:.1} | {} | {} | {} | {} | {} | {} | {} | {:.3e} | {} | {} | {} | {} |\n",
            Path::new(&report.file).file_name().map_or(report.file.clone(), |n| n.to_string_lossy().into_owned()),
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
            format!("{:.3} [{:.3}–{:.3}]", s.success_rate, s.success_rate_ci.0, s.success_rate_ci.1),
            s.median_tts99_seconds_ci
                .map_or("–".into(), |(low, high)| format!("[{}–{}]", ms(Some(low)), high.map_or("∞".into(), |h| ms(Some(h))))),
        );
    }
    if some_unsolved {
        table += "\nUnsolved puzzles count in the time, sweep and attempt columns at the budget they spent: \
                  there those figures are lower bounds.\n";
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

/// Fraction of puzzle-runs solved within t, against t on a log axis: one
/// line per file and backend.
pub fn plot_svg(reports: &[Report], path: &Path) -> Result<()> {
    use plotters::prelude::*;
    let draw = |err: &dyn std::fmt::Display| {
        Error::Io(std::io::Error::other(format!("cannot draw {}: {err}", path.display())))
    };
    let series: Vec<(String, Vec<f64>, usize)> = reports
        .iter()
        .map(|r| {
            let mut times: Vec<f64> = r
                .runs
                .iter()
                .flat_map(|run| &run.outcomes)
                .filter(|o| o.is_solved())
                .map(|o| o.seconds.max(1e-6))
                .collect();
            times.sort_by(f64::total_cmp);
            let stats = r.stats();
            let total = stats.puzzles * stats.runs;
            let name = Path::new(&r.file).file_name().map_or(r.file.clone(), |n| n.to_string_lossy().into_owned());
            (format!("{name} / {} ({})", r.backend, r.device), times, total)
        })
        .collect();
    let lowest = series.iter().filter_map(|(_, t, _)| t.first()).copied().fold(f64::INFINITY, f64::min);
    let highest = series.iter().filter_map(|(_, t, _)| t.last()).copied().fold(0.0, f64::max);
    let (lowest, highest) = if lowest.is_finite() { (lowest / 2.0, highest * 2.0) } else { (1e-4, 1.0) };
    let root = SVGBackend::new(path, (900, 560)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| draw(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption("time to solution", ("sans-serif", 22))
        .margin(16)
        .x_label_area_size(44)
        .y_label_area_size(56)
        .build_cartesian_2d((lowest..highest).log_scale(), 0.0..1.0)
        .map_err(|e| draw(&e))?;
    chart
        .configure_mesh()
        .x_desc("seconds per puzzle (log scale)")
        .y_desc("fraction solved (band: 95 % Wilson interval)")
        .draw()
        .map_err(|e| draw(&e))?;
    for (index, (name, times, total)) in series.iter().enumerate() {
        let colour = Palette99::pick(index).to_rgba();
        // Each point's 95 % Wilson interval, as a band: the upper ends, then the lower ones back.
        let bounds: Vec<(f64, (f64, f64))> =
            times.iter().enumerate().map(|(i, &t)| (t, wilson(i + 1, *total))).collect();
        let band: Vec<(f64, f64)> = bounds
            .iter()
            .map(|&(t, (_, high))| (t, high))
            .chain(bounds.iter().rev().map(|&(t, (low, _))| (t, low)))
            .collect();
        if band.len() > 2 {
            chart.draw_series(std::iter::once(Polygon::new(band, colour.mix(0.15).filled()))).map_err(|e| draw(&e))?;
        }
        let points = times.iter().enumerate().map(|(i, &t)| (t, (i + 1) as f64 / *total as f64));
        chart
            .draw_series(LineSeries::new(points, colour.stroke_width(2)))
            .map_err(|e| draw(&e))?
            .label(name.as_str())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2)));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(|e| draw(&e))?;
    root.present().map_err(|e| draw(&e))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unsolved_after(swap_attempts: Vec<u64>, swap_accepted: Vec<u64>) -> Outcome {
        Outcome { status: Status::Unsolved, sweeps: 10, seconds: 0.5, attempts: 1000, swap_attempts, swap_accepted }
    }

    fn invalid_line() -> Outcome {
        Outcome::invalid(crate::error::PuzzleError::BadLength { cells: 3, expected: "81".into() })
    }

    fn report(outcomes: Vec<Outcome>) -> Report {
        let run = Run { seed: 0, wall_seconds: 1.0, cpu_seconds: Some(2.0), outcomes };
        Report {
            file: "f.txt".into(),
            backend: "cpu".into(),
            device: "d".into(),
            settings: Settings::default(),
            runs: vec![run],
        }
    }

    /// Work counts every valid puzzle, an unsolved one at what it spent, and
    /// no invalid line; CPU time gives puzzles per CPU-second.
    #[test]
    fn attempts_per_puzzle_and_puzzles_per_cpu_second() {
        let solved = |attempts| Outcome {
            status: Status::Solved(crate::grid::Grid::empty(crate::grid::Shape::CLASSIC)),
            attempts,
            ..unsolved_after(vec![], vec![])
        };
        let stats =
            report(vec![solved(10), solved(60), invalid_line(), unsolved_after(vec![], vec![]), solved(20)]).stats();
        assert_eq!((stats.puzzles, stats.invalid, stats.solved), (4, 1, 3));
        assert_eq!(
            (stats.median_attempts, stats.mean_attempts, stats.p90_attempts),
            (Some(60), Some(272.5), Some(1000))
        );
        assert_eq!((stats.cpu_seconds, stats.puzzles_per_cpu_second), (Some(2.0), Some(2.0)));
        assert_eq!(stats.success_probability, vec![1.0, 1.0, 0.0, 1.0]);
        let table = markdown(&[report(vec![solved(10), invalid_line()])]);
        assert!(table.contains("| 1 × 1 (and 1 invalid) |") && table.contains("| 1.000e1 | 1.000e1 |"), "{table}");
        assert!(!table.contains("lower bounds"), "{table}");
        assert!(markdown(&[report(vec![unsolved_after(vec![], vec![])])]).contains("lower bounds"));
    }

    /// Wilson's interval: the textbook values, sound at 0 and n of n, and
    /// the table and JSON carry it per puzzle, overall and for the median.
    #[test]
    fn success_intervals_are_wilsons() {
        let close = |(a, b): (f64, f64), (c, d): (f64, f64)| (a - c).abs() < 5e-4 && (b - d).abs() < 5e-4;
        assert!(close(wilson(5, 10), (0.2366, 0.7634)), "{:?}", wilson(5, 10));
        assert!(close(wilson(0, 10), (0.0, 0.2775)), "{:?}", wilson(0, 10));
        assert!(close(wilson(10, 10), (0.7225, 1.0)), "{:?}", wilson(10, 10));
        assert_eq!(wilson(0, 0), (0.0, 1.0));
        let solved = Outcome {
            status: Status::Solved(crate::grid::Grid::empty(crate::grid::Shape::CLASSIC)),
            ..unsolved_after(vec![], vec![])
        };
        let run = |outcomes: Vec<Outcome>| Run { seed: 0, wall_seconds: 1.0, cpu_seconds: None, outcomes };
        let mut two_runs = report(vec![solved.clone(), unsolved_after(vec![], vec![])]);
        two_runs.runs.push(run(vec![solved.clone(), solved.clone()]));
        let stats = two_runs.stats();
        assert_eq!((stats.success_rate, stats.success_probability), (0.75, vec![1.0, 0.5]));
        assert!(close(stats.success_rate_ci, wilson(3, 4)));
        assert!(close(stats.success_probability_ci[1], wilson(1, 2)));
        // TTS99 at the interval's ends, runs of 0.5 s: fewer at its top, more at its bottom.
        let runs_at = |p: f64| 0.01f64.ln() / (1.0 - p).ln();
        let ((fast, slow), (low, high)) = (stats.tts99_seconds_ci[1], wilson(1, 2));
        assert_eq!((fast, slow), (0.5 * runs_at(high), Some(0.5 * runs_at(low))));
        assert!(fast < 0.5 * runs_at(0.5) && slow > Some(0.5 * runs_at(0.5)));
        assert!(markdown(&[two_runs]).contains("| 0.750 [0.301–0.954] |"));
    }

    /// A ladder of one rung proposes no exchange: its acceptance is unknown, not 0.
    #[test]
    fn swap_acceptance_is_none_where_nothing_was_proposed() {
        let one_rung = report(vec![unsolved_after(vec![], vec![]), unsolved_after(vec![], vec![])]);
        assert_eq!((one_rung.stats().swap_acceptance, one_rung.stats().swap_acceptance_per_pair), (None, vec![]));
        let table = markdown(&[one_rung]);
        assert!(table.contains("| 2.000e3 | – | – |"), "{table}");
        let ladder = report(vec![unsolved_after(vec![4, 0], vec![1, 0]), unsolved_after(vec![4, 0], vec![2, 0])]);
        let stats = ladder.stats();
        assert_eq!((stats.swap_acceptance, stats.swap_acceptance_per_pair), (Some(0.375), vec![Some(0.375), None]));
        assert!(markdown(&[ladder]).contains("| 2.000e3 | 0.375 | – |"));
    }
}
