//! The figures of a benchmark report: success with its interval, TTS99,
//! time and work per puzzle, swap acceptance.

use serde::Serialize;

use super::Report;
use crate::outcome::{Outcome, Status};
use crate::tempering::acceptance_rate;

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
    /// Of those, the ones reduction solved (singles, or probing), not the anneal.
    pub solved_by_reduction: usize,
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

/// Each valid puzzle's success probability and TTS99 over the runs, with
/// their intervals, in input order.
#[derive(Default)]
struct PerPuzzle {
    success_probability: Vec<f64>,
    success_probability_ci: Vec<(f64, f64)>,
    tts99_seconds: Vec<Option<f64>>,
    tts99_seconds_ci: Vec<(f64, Option<f64>)>,
}

fn is_valid(outcome: &Outcome) -> bool {
    !matches!(outcome.status, Status::Invalid(_))
}

impl Report {
    fn per_puzzle(&self) -> PerPuzzle {
        let mut each = PerPuzzle::default();
        for line in 0..self.runs.first().map_or(0, |r| r.outcomes.len()) {
            let runs: Vec<&Outcome> = self.runs.iter().map(|r| &r.outcomes[line]).filter(|o| is_valid(o)).collect();
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
            each.success_probability_ci.push((low, high));
            each.tts99_seconds_ci.push((fast, slow));
            each.success_probability.push(p);
            each.tts99_seconds.push(point);
        }
        each
    }

    pub fn stats(&self) -> Stats {
        let all: Vec<&Outcome> = self.runs.iter().flat_map(|r| &r.outcomes).filter(|o| is_valid(o)).collect();
        let solved = all.iter().filter(|o| o.is_solved()).count();
        let solved_by_reduction = all.iter().filter(|o| o.is_solved() && o.by_reduction).count();
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
        let PerPuzzle { success_probability, success_probability_ci, tts99_seconds, tts99_seconds_ci } =
            self.per_puzzle();
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
            solved_by_reduction,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::{markdown, Run};
    use crate::settings::Settings;

    fn unsolved_after(swap_attempts: Vec<u64>, swap_accepted: Vec<u64>) -> Outcome {
        Outcome {
            status: Status::Unsolved,
            sweeps: 10,
            seconds: 0.5,
            attempts: 1000,
            swap_attempts,
            swap_accepted,
            by_reduction: false,
        }
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
        // Which reduction solved, said under the table.
        let reduced = Outcome { by_reduction: true, ..solved(0) };
        let stats = report(vec![reduced.clone(), solved(10), unsolved_after(vec![], vec![])]).stats();
        assert_eq!((stats.solved, stats.solved_by_reduction), (2, 1));
        assert!(!table.contains("Solved by reduction"), "{table}");
        let table = markdown(&[report(vec![reduced, solved(10)])]);
        assert!(table.contains(": f.txt on cpu: 1 of 2.\n"), "{table}");
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
