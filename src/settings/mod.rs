//! How to anneal: [`Settings`], checked, and how a backend's defaults and
//! the user's choices make them. What a user can choose is declared once,
//! in `overrides.rs` ([`Overrides`]); the command line, the server and the
//! library resolve it here, the same way.

mod overrides;

use std::time::Duration;

use crate::backend::kind::{BackendKind, BoardDefaults};
use crate::backend::Backend;
use crate::dynamics::{AdaptiveWeights, Completion, Dynamics, Moves, Trades, WeightRule, Weights};
use crate::error::{Error, Result};
use crate::grid::{Shape, Variant, LARGEST_BOARD_ORDER, SMALL_BOARD_ORDER};
use crate::reduce::Reduce;
use crate::tempering::{Ladder, Ladders};
pub use overrides::{ModelOptions, Overrides};

/// How to anneal one puzzle.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Settings {
    /// Replicas per ladder, one per rung.
    pub replicas: usize,
    /// Independent ladders per puzzle: `ladders × replicas` replicas in all.
    pub ladders: usize,
    /// Puzzles annealed at once.
    pub batch: usize,
    pub t_min: f64,
    pub t_max: f64,
    /// An explicit ladder, increasing, one temperature per replica of a
    /// ladder; replaces the geometric one from `t_min` to `t_max`.
    pub temperatures: Option<Vec<f64>>,
    /// Sweeps between two exchange rounds (and zero-energy checks).
    pub exchange_every: u32,
    /// On boards above 9×9 (`small_board_budget` below); in JSON its keys
    /// stand beside the others.
    #[serde(flatten)]
    pub budget: Budget,
    pub seed: u64,
    pub reduce: Reduce,
    /// The rules; the size follows from each puzzle line's length.
    pub variant: Variant,
    pub moves: Moves,
    pub weights: Weights,
    pub completion: Completion,
    pub trades: Trades,
    /// The ladders for boards of order 9 or less where they differ from
    /// the ones above; `None`: the same for every board.
    pub small_boards: Option<Ladders>,
    /// Likewise the weights.
    pub small_board_weights: Option<Weights>,
    /// Likewise the budget.
    pub small_board_budget: Option<Budget>,
    /// Likewise what the chains' grids get.
    pub small_board_completion: Option<Completion>,
    /// Likewise whether cells trade digits.
    pub small_board_trades: Option<Trades>,
    /// The ladders for boards of order 25 where they differ from the ones
    /// above; `None`: the same as on other boards above 9×9.
    pub largest_boards: Option<Ladders>,
    /// Likewise the weights.
    pub largest_board_weights: Option<Weights>,
}

/// How long a puzzle may anneal: it stops unsolved after `max_sweeps`
/// sweeps or once `timeout` has passed, whichever comes first.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Budget {
    pub max_sweeps: u32,
    #[serde(rename = "timeout_seconds", serialize_with = "as_seconds")]
    pub timeout: Option<Duration>,
}

/// The seed where the user sets none.
pub const SEED: u64 = 0;
/// The budgets per puzzle where the user sets none: on boards up to 9×9,
/// and above, where unique 25×25 puzzles need 1 to 3 million sweeps, 40 to
/// 120 s on one core (BENCHMARKS.md).
pub const SMALL_BOARD_BUDGET: Budget = Budget { max_sweeps: 1_000_000, timeout: Some(Duration::from_secs(60)) };
pub const LARGE_BOARD_BUDGET: Budget = Budget { max_sweeps: 4_000_000, timeout: Some(Duration::from_secs(120)) };

/// The longest time budget: a century, far below where a clock's arithmetic overflows.
pub const MAX_TIMEOUT_SECONDS: f64 = 3.2e9;

/// The heaviest a unit may weigh: cpu-lanes sums a candidate's weighted
/// totals in 16 bits, 2 · 5 units · 100 · 25 at most.
const MAX_WEIGHT: u8 = 100;

fn as_seconds<S: serde::Serializer>(timeout: &Option<Duration>, serializer: S) -> std::result::Result<S::Ok, S::Error> {
    serializer.serialize_some(&timeout.map(|t| t.as_secs_f64()))
}

/// The `cpu` backend's defaults.
impl Default for Settings {
    fn default() -> Self {
        Settings::for_backend(BackendKind::Cpu)
    }
}

impl Settings {
    /// The `cpu` backend's defaults for single-spin moves on the plain
    /// model: the ladder tempering of the model itself, as other Ising
    /// machines are given it.
    pub fn plain_model() -> Settings {
        Settings::resolve(BackendKind::Cpu, &Overrides { moves: Some(Moves::Spin), ..Overrides::default() })
            .expect("the defaults are valid")
    }

    /// What `kind` runs with where the user sets nothing (standard Sudoku).
    pub fn for_backend(kind: BackendKind) -> Settings {
        Settings::resolve(kind, &Overrides::default()).expect("the defaults are valid")
    }

    /// The settings of `kind` with the user's `overrides`, checked.
    pub fn resolve(kind: BackendKind, overrides: &Overrides) -> Result<Settings> {
        let o = overrides;
        let variant = o.model.variant;
        let defaults = kind.defaults(variant, o.moves);
        let (small, large, largest) = (defaults.small_boards, defaults.large_boards, defaults.largest_boards);
        let ladder_set = o.replicas.is_some() || o.t_min.is_some() || o.t_max.is_some() || o.temperatures.is_some();
        let explicit = o.temperatures.as_ref();
        // The user's timeout, if set (`Some(None)`: none at all).
        let timeout = match o.timeout {
            None => None,
            Some(0.0) => Some(None),
            Some(seconds) if (0.0..=MAX_TIMEOUT_SECONDS).contains(&seconds) => {
                Some(Some(Duration::from_secs_f64(seconds)))
            }
            Some(seconds) => {
                return Err(Error::Settings(format!(
                    "--timeout must be a number of seconds from 0 (none) to {MAX_TIMEOUT_SECONDS:e}, not {seconds}"
                )))
            }
        };
        let budget = |default: Budget| Budget {
            max_sweeps: o.max_sweeps.unwrap_or(default.max_sweeps),
            timeout: timeout.unwrap_or(default.timeout),
        };
        let (small_budget, large_budget) = (budget(SMALL_BOARD_BUDGET), budget(LARGE_BOARD_BUDGET));
        let rule = o.weights.unwrap_or(defaults.weights);
        if rule == WeightRule::Fixed && (o.weight_base.or(o.weight_cap).is_some() || o.relax_every.is_some()) {
            return Err(Error::Settings(
                "--weight-base, --weight-cap and --relax-every need --weights adaptive".into(),
            ));
        }
        // --weight-base or --weight-cap set: both for every board size, the
        // other at the default of boards below 25×25.
        let user_weights = o.weight_base.or(o.weight_cap).is_some();
        let weights = |board: BoardDefaults| match rule {
            WeightRule::Fixed => Weights::Fixed,
            WeightRule::Adaptive => Weights::Adaptive(AdaptiveWeights {
                base: o.weight_base.unwrap_or(if user_weights { large.weights.base } else { board.weights.base }),
                cap: o.weight_cap.unwrap_or(if user_weights { large.weights.cap } else { board.weights.cap }),
                relax_every: o.relax_every.unwrap_or(board.weights.relax_every),
            }),
        };
        let (small_weights, large_weights, largest_weights) = (weights(small), weights(large), weights(largest));
        // A board size's own ladder, where it differs and the user set none.
        let own_ladder = |board: BoardDefaults| {
            (!ladder_set && board.tempering != large.tempering)
                .then_some(Ladders { ladders: o.ladders.unwrap_or(board.tempering.ladders), ..board.tempering })
        };
        let moves = defaults.moves;
        let settings = Settings {
            replicas: explicit.map_or(o.replicas.unwrap_or(large.tempering.replicas), Vec::len),
            ladders: o.ladders.unwrap_or(large.tempering.ladders),
            batch: o.batch.unwrap_or_else(|| defaults.batch.puzzles()),
            // An explicit ladder's ends, so that reports show them.
            t_min: explicit.and_then(|l| l.first().copied()).or(o.t_min).unwrap_or(large.tempering.t_min),
            t_max: explicit.and_then(|l| l.last().copied()).or(o.t_max).unwrap_or(large.tempering.t_max),
            temperatures: o.temperatures.clone(),
            exchange_every: o.exchange_every.unwrap_or(defaults.exchange_every),
            budget: large_budget,
            seed: o.seed.unwrap_or(SEED),
            reduce: o.model.reduce,
            variant,
            moves,
            weights: large_weights,
            completion: o.complete.unwrap_or(defaults.completion),
            small_board_completion: o
                .complete
                .is_none()
                .then_some(defaults.small_board_completion)
                .filter(|&small| small != defaults.completion),
            trades: o.trades.unwrap_or(defaults.trades),
            small_board_trades: o
                .trades
                .is_none()
                .then_some(defaults.small_board_trades)
                .filter(|&small| small != defaults.trades),
            small_boards: own_ladder(small),
            small_board_weights: (small_weights != large_weights).then_some(small_weights),
            small_board_budget: (small_budget != large_budget).then_some(small_budget),
            largest_boards: own_ladder(largest),
            largest_board_weights: (largest_weights != large_weights).then_some(largest_weights),
        };
        settings.validate()?;
        kind.check_runs(settings.dynamics())?;
        kind.check_runs(settings.for_shape(Shape::CLASSIC).dynamics())?;
        settings.check_memory(kind, memory_available())?;
        Ok(settings)
    }

    /// Refuses settings whose replicas in flight on 9×9 boards would take
    /// more host memory than `available` bytes (an estimate per backend,
    /// [`BackendKind::bytes_per_replica_spin`]), before any is allocated.
    pub fn check_memory(&self, kind: BackendKind, available: Option<u64>) -> Result<()> {
        let (Some(per_spin), Some(available)) = (kind.bytes_per_replica_spin(), available) else { return Ok(()) };
        let classic = self.for_shape(Shape::CLASSIC);
        let replicas = (classic.replicas * classic.ladders) as u64;
        let needed =
            replicas.saturating_mul(self.batch as u64).saturating_mul(Shape::CLASSIC.spins() as u64 * per_spin);
        if needed <= available {
            return Ok(());
        }
        let gb = |bytes: u64| bytes as f64 / 1e9;
        Err(Error::Settings(format!(
            "{replicas} replicas per puzzle (--replicas × --ladders) × --batch {} on {} need about {:.1} GB on 9×9 \
             boards; this machine has {:.1} GB available",
            self.batch,
            kind.name(),
            gb(needed),
            gb(available),
        )))
    }

    pub fn dynamics(&self) -> Dynamics {
        Dynamics { moves: self.moves, weights: self.weights, completion: self.completion, trades: self.trades }
    }

    pub fn validate(&self) -> Result<()> {
        let fail = |what: &str| Err(Error::Settings(what.to_string()));
        if self.replicas < 1 || self.ladders < 1 || self.batch < 1 {
            return fail("--replicas, --ladders and --batch must be at least 1");
        }
        // Replica indices times per-replica words must fit the kernels' u32 arithmetic.
        let most = u32::MAX as usize / 1024;
        let in_flight = self.replicas.checked_mul(self.ladders).and_then(|r| r.checked_mul(self.batch));
        if in_flight.is_none_or(|total| total > most) {
            let total = in_flight.map_or("beyond any count".to_string(), |t| t.to_string());
            return fail(&format!("--replicas × --ladders × --batch is {total}; at most {most} replicas run at once"));
        }
        match &self.temperatures {
            Some(ladder) => {
                let increasing = ladder.windows(2).all(|pair| pair[0] < pair[1]);
                if !(increasing && ladder.iter().all(|t| *t > 0.0 && t.is_finite())) {
                    return fail("--temperatures must be positive and increasing");
                }
                if ladder.len() != self.replicas {
                    return fail("--temperatures must list one temperature per replica of a ladder");
                }
            }
            None if !(self.t_min > 0.0
                && self.t_min.is_finite()
                && self.t_max.is_finite()
                && self.t_min <= self.t_max) =>
            {
                return fail("temperatures must satisfy 0 < --t-min <= --t-max");
            }
            None => {}
        }
        if self.exchange_every < 1 {
            return fail("--exchange-every must be at least 1");
        }
        if let Weights::Adaptive(rule) = self.weights {
            if self.moves != Moves::Cell {
                return fail("--weights adaptive needs --moves cell");
            }
            if rule.base < 1 || rule.cap < rule.base || rule.cap > MAX_WEIGHT {
                return fail("adaptive weights must satisfy 1 <= --weight-base <= --weight-cap <= 100");
            }
            if rule.relax_every < 1 {
                return fail("--relax-every must be at least 1");
            }
        }
        // Boards up to 9×9 and of 25×25 may have settings of their own:
        // checked as those boards get them.
        let above_9 = self.for_shape(Shape { n: SMALL_BOARD_ORDER + 1, variant: self.variant });
        for n in [SMALL_BOARD_ORDER, LARGEST_BOARD_ORDER] {
            let shaped = self.for_shape(Shape { n, variant: self.variant });
            if shaped != above_9 {
                shaped.validate()?;
            }
        }
        Ok(())
    }

    /// The settings for boards of `shape`: the small or the largest boards'
    /// ladder, weights, budget and completion there, if any.
    pub fn for_shape(&self, shape: Shape) -> Settings {
        let shaped = Settings {
            small_boards: None,
            small_board_weights: None,
            small_board_budget: None,
            small_board_completion: None,
            small_board_trades: None,
            largest_boards: None,
            largest_board_weights: None,
            ..self.clone()
        };
        let (ladders, weights, budget, completion, trades) = if shape.n <= SMALL_BOARD_ORDER {
            (
                self.small_boards,
                self.small_board_weights,
                self.small_board_budget,
                self.small_board_completion,
                self.small_board_trades,
            )
        } else if shape.n >= LARGEST_BOARD_ORDER {
            (self.largest_boards, self.largest_board_weights, None, None, None)
        } else {
            return shaped;
        };
        let shaped = Settings {
            weights: weights.unwrap_or(self.weights),
            budget: budget.unwrap_or(self.budget),
            completion: completion.unwrap_or(self.completion),
            trades: trades.unwrap_or(self.trades),
            ..shaped
        };
        match ladders {
            Some(Ladders { ladders, replicas, t_min, t_max }) => {
                Settings { ladders, replicas, t_min, t_max, temperatures: None, ..shaped }
            }
            None => shaped,
        }
    }

    /// The temperature ladder: the explicit one, else geometric from `t_min` to `t_max`.
    pub fn ladder(&self) -> Ladder {
        match &self.temperatures {
            Some(temperatures) => Ladder { temperatures: temperatures.clone() },
            None => Ladder::geometric(self.replicas, self.t_min, self.t_max),
        }
    }

    /// These settings with at most `max_replicas` replicas in flight: the
    /// batch shrinks, down to one puzzle (which may still not fit; the
    /// backend then refuses it).
    pub fn fit_replicas(&self, max_replicas: usize) -> Settings {
        let fits = (max_replicas / (self.ladders * self.replicas)).max(1);
        Settings { batch: self.batch.min(fits), ..self.clone() }
    }

    /// These settings with no more puzzles in flight than `backend` holds
    /// on 9×9 boards (the solver fits larger ones again), and a note to
    /// the user when the batch shrank.
    pub fn fit_to(&self, backend: &dyn Backend) -> (Settings, Option<String>) {
        let classic = self.for_shape(Shape::CLASSIC);
        let most = backend.max_replicas(Shape::CLASSIC);
        let fitted = classic.fit_replicas(most).batch;
        let note = (fitted < self.batch).then(|| {
            format!(
                "--batch {} needs {} replicas; {} holds {most}, so {fitted} puzzles run at once",
                self.batch,
                self.batch * classic.ladders * classic.replicas,
                backend.device(),
            )
        });
        (Settings { batch: fitted, ..self.clone() }, note)
    }
}

/// Bytes this process may still allocate, as far as the system says: the
/// least of the memory available (Linux's `MemAvailable`), what the
/// address-space limit (`ulimit -v`) leaves and what the cgroup's limit
/// leaves (a container's); `None` where none of them is known.
pub fn memory_available() -> Option<u64> {
    let read = |path: &str| std::fs::read_to_string(path).ok();
    let field_kb = |text: &str, name: &str| -> Option<u64> {
        let line = text.lines().find(|l| l.starts_with(name))?;
        line[name.len()..].trim().trim_end_matches("kB").trim().parse::<u64>().ok().map(|kb| kb * 1024)
    };
    let system = read("/proc/meminfo").and_then(|t| field_kb(&t, "MemAvailable:"));
    let address_space = address_space_limit().map(|limit| {
        let used = read("/proc/self/status").and_then(|t| field_kb(&t, "VmSize:")).unwrap_or(0);
        limit.saturating_sub(used)
    });
    let cgroup = read("/sys/fs/cgroup/memory.max").and_then(|max| {
        let max: u64 = max.trim().parse().ok()?;
        let current = read("/sys/fs/cgroup/memory.current").and_then(|c| c.trim().parse().ok()).unwrap_or(0);
        Some(max.saturating_sub(current))
    });
    [system, address_space, cgroup].into_iter().flatten().min()
}

#[cfg(unix)]
fn address_space_limit() -> Option<u64> {
    use nix::sys::resource::{getrlimit, Resource, RLIM_INFINITY};
    let (soft, _) = getrlimit(Resource::RLIMIT_AS).ok()?;
    (soft != RLIM_INFINITY).then_some(soft)
}

#[cfg(not(unix))]
fn address_space_limit() -> Option<u64> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 100,000 replicas of the reference take about 0.87 GB on 9×9 boards:
    /// refused with the figures below that, accepted above; GPU backends
    /// are bounded by their device instead.
    #[test]
    fn settings_that_need_more_memory_than_there_is_are_refused_with_the_figures() {
        let settings = Settings { ladders: 100_000, replicas: 1, small_boards: None, ..Settings::default() };
        let Err(Error::Settings(message)) = settings.check_memory(BackendKind::Cpu, Some(500_000_000)) else {
            panic!("0.87 GB accepted in 0.5")
        };
        assert_eq!(
            message,
            "100000 replicas per puzzle (--replicas × --ladders) × --batch 1 on cpu need about 0.9 GB on 9×9 boards; \
             this machine has 0.5 GB available"
        );
        assert!(settings.check_memory(BackendKind::Cpu, Some(1_000_000_000)).is_ok());
        assert!(settings.check_memory(BackendKind::Cpu, None).is_ok());
        assert!(settings.check_memory(BackendKind::Gpu, Some(1)).is_ok());
        let batch = Settings { batch: 2, ..settings };
        assert!(batch.check_memory(BackendKind::Cpu, Some(1_000_000_000)).is_err());
        assert!(memory_available().is_some_and(|bytes| bytes > 0), "Linux says how much memory there is");
    }

    #[test]
    fn batches_shrink_to_the_replicas_a_device_holds() {
        let settings = Settings { replicas: 16, ladders: 64, batch: 200, ..Settings::default() };
        assert_eq!(settings.fit_replicas(103_563).batch, 101);
        assert_eq!(settings.fit_replicas(usize::MAX).batch, 200);
        assert_eq!(settings.fit_replicas(10).batch, 1);
    }

    /// `gpu` and its twin complete grids on boards up to 9×9 and not above
    /// (measured on an H200), `cpu-lanes` on both from a sample of a hot
    /// chain's kept cells, spin moves on neither; `--complete` sets every
    /// size, `sampled` too on every backend that completes grids.
    #[test]
    fn completion_follows_the_board_unless_the_user_sets_it() {
        let sizes = |settings: &Settings| {
            let large = Shape { n: 16, variant: Variant::Standard };
            (settings.for_shape(Shape::CLASSIC).completion, settings.for_shape(large).completion)
        };
        let (on, off, sampled) = (Completion::Singles, Completion::Off, Completion::Sampled);
        assert_eq!(sizes(&Settings::for_backend(BackendKind::Gpu)), (on, off));
        assert_eq!(sizes(&Settings::for_backend(BackendKind::Cpu)), (on, off));
        assert_eq!(sizes(&Settings::for_backend(BackendKind::CpuLanes)), (sampled, sampled));
        let sample = Overrides { complete: Some(sampled), ..Overrides::default() };
        for backend in [BackendKind::Gpu, BackendKind::Cpu, BackendKind::CpuLanes] {
            assert_eq!(sizes(&Settings::resolve(backend, &sample).unwrap()), (sampled, sampled));
        }
        assert!(Settings::resolve(BackendKind::CpuBits, &sample).is_err());
        assert_eq!(sizes(&Settings::for_backend(BackendKind::CpuBits)), (off, off));
        for set in [on, off] {
            let overrides = Overrides { complete: Some(set), ..Overrides::default() };
            assert_eq!(sizes(&Settings::resolve(BackendKind::Gpu, &overrides).unwrap()), (set, set));
        }
        let spins = Overrides { moves: Some(Moves::Spin), ..Overrides::default() };
        assert_eq!(sizes(&Settings::resolve(BackendKind::Gpu, &spins).unwrap()), (off, off));
    }

    /// `cpu-lanes` trades on Sudoku boards above 9×9 by default, not on 9×9
    /// nor on Latin squares; `--trades` sets every size; `cpu`, `gpu` and
    /// spin moves refuse trades.
    #[test]
    fn trades_follow_the_board_unless_the_user_sets_them() {
        let sizes = |settings: &Settings| {
            let large = Shape { n: 16, variant: settings.variant };
            (settings.for_shape(Shape { n: 9, variant: settings.variant }).trades, settings.for_shape(large).trades)
        };
        let (on, off) = (Trades::On, Trades::Off);
        assert_eq!(sizes(&Settings::for_backend(BackendKind::CpuLanes)), (off, on));
        let latin = Overrides {
            model: ModelOptions { variant: Variant::Latin, ..ModelOptions::default() },
            ..Overrides::default()
        };
        assert_eq!(sizes(&Settings::resolve(BackendKind::CpuLanes, &latin).unwrap()), (off, off));
        for set in [on, off] {
            let overrides = Overrides { trades: Some(set), ..Overrides::default() };
            assert_eq!(sizes(&Settings::resolve(BackendKind::CpuLanes, &overrides).unwrap()), (set, set));
        }
        for backend in [BackendKind::Cpu, BackendKind::Gpu] {
            assert_eq!(sizes(&Settings::for_backend(backend)), (off, off));
            let trades = Overrides { trades: Some(on), ..Overrides::default() };
            let refused = Settings::resolve(backend, &trades).unwrap_err().to_string();
            assert!(refused.contains("no trades (--trades off)"), "{refused}");
        }
        let spins = Overrides { moves: Some(Moves::Spin), trades: Some(on), ..Overrides::default() };
        assert!(Settings::resolve(BackendKind::CpuLanes, &spins).is_err());
    }

    /// cpu-bits takes one temperature on 9×9 boards and 8 rungs above,
    /// unless the user sets any part of the ladder; a timeout too large for
    /// a duration is an error, not a panic.
    #[test]
    fn a_backends_ladder_follows_the_board_unless_the_user_sets_one() {
        let bits = Settings::for_backend(BackendKind::CpuBits);
        assert_eq!((bits.replicas, bits.t_min, bits.t_max, bits.ladders), (8, 0.45, 1.0, 128));
        assert_eq!(bits.for_shape(Shape::CLASSIC).ladder().temperatures, vec![0.63]);
        assert_eq!(bits.for_shape(Shape { n: 16, variant: Variant::Standard }).replicas, 8);
        let set = Settings::resolve(BackendKind::CpuBits, &Overrides { replicas: Some(4), ..Overrides::default() });
        let set = set.unwrap();
        assert_eq!((set.replicas, set.t_min, set.small_boards), (4, 0.45, None));
        let latin = Overrides {
            model: ModelOptions { variant: Variant::Latin, ..ModelOptions::default() },
            ..Overrides::default()
        };
        let latin = Settings::resolve(BackendKind::CpuBits, &latin).unwrap();
        assert_eq!((latin.replicas, latin.t_min, latin.small_boards), (16, 0.3, None));
        // Cell moves: 32 chains at 1.2 on 9×9 boards, 8 ladders of 4 rungs
        // above; --ladders sets both; single-spin moves one ladder for all.
        let cells = Settings::default();
        let classic = cells.for_shape(Shape::CLASSIC);
        assert_eq!((classic.ladders, classic.replicas, classic.t_min), (32, 1, 1.2));
        assert_eq!((cells.ladders, cells.replicas, cells.t_min, cells.t_max), (8, 4, 0.4, 0.5));
        let wide =
            Settings::resolve(BackendKind::Cpu, &Overrides { ladders: Some(2), ..Overrides::default() }).unwrap();
        assert_eq!((wide.ladders, wide.for_shape(Shape::CLASSIC).ladders), (2, 2));
        let spins = Overrides { moves: Some(Moves::Spin), ..Overrides::default() };
        let spins = Settings::resolve(BackendKind::Cpu, &spins).unwrap();
        assert_eq!((spins.ladders, spins.replicas, spins.small_boards, spins.small_board_weights), (1, 16, None, None));
        // Adaptive weights relax every 5 sweeps on 9×9 boards, every 4 above,
        // and --relax-every sets both; a 16×16 board takes the larger boards'.
        let relax = |settings: &Settings| match settings.weights {
            Weights::Adaptive(rule) => rule.relax_every,
            Weights::Fixed => 0,
        };
        let sixteen = Shape { n: 16, variant: Variant::Standard };
        assert_eq!((relax(&classic), relax(&cells), relax(&cells.for_shape(sixteen))), (5, 4, 4));
        assert_eq!((relax(&wide.for_shape(Shape::CLASSIC)), relax(&wide)), (5, 4));
        let seven =
            Settings::resolve(BackendKind::CpuLanes, &Overrides { relax_every: Some(7), ..Overrides::default() });
        let seven = seven.unwrap();
        assert_eq!((relax(&seven.for_shape(Shape::CLASSIC)), relax(&seven), seven.small_board_weights), (7, 7, None));
        // 25×25 boards: weights from 3 to 24 and the ladder at 0.6 to 0.75;
        // --weight-base or --weight-cap sets both on every size (the other
        // at 2 or 16), any part of the ladder the ladder of every size.
        let rule = |settings: &Settings| match settings.weights {
            Weights::Adaptive(rule) => (rule.base, rule.cap, rule.relax_every),
            Weights::Fixed => (0, 0, 0),
        };
        let twenty_five = Shape { n: 25, variant: Variant::Standard };
        let largest = cells.for_shape(twenty_five);
        assert_eq!((rule(&largest), largest.t_min, largest.t_max, largest.ladders), ((3, 24, 4), 0.6, 0.75, 8));
        assert_eq!((rule(&cells.for_shape(sixteen)), cells.for_shape(sixteen).t_min), ((2, 16, 4), 0.4));
        assert_eq!(rule(&classic), (2, 16, 5));
        let capped = Overrides { weight_cap: Some(8), ..Overrides::default() };
        let capped = Settings::resolve(BackendKind::CpuLanes, &capped).unwrap();
        let on = |settings: &Settings, shape| rule(&settings.for_shape(shape));
        let all_sizes = [Shape::CLASSIC, sixteen, twenty_five].map(|shape| on(&capped, shape));
        assert_eq!(all_sizes, [(2, 8, 5), (2, 8, 4), (2, 8, 4)]);
        assert_eq!((capped.largest_board_weights, capped.largest_boards.map(|l| l.t_min)), (None, Some(0.6)));
        let hot = Overrides { t_max: Some(0.9), ..Overrides::default() };
        let hot = Settings::resolve(BackendKind::CpuLanes, &hot).unwrap();
        let hot_largest = hot.for_shape(twenty_five);
        assert_eq!((hot.largest_boards, hot_largest.t_min, hot_largest.t_max), (None, 0.4, 0.9));
        assert_eq!(on(&hot, twenty_five), (3, 24, 4));
        // Budgets: 1,000,000 sweeps and 60 s on 9×9 boards, 4,000,000 and
        // 120 s above; --max-sweeps and --timeout each set every size's.
        let budget = |settings: &Settings| (settings.budget.max_sweeps, settings.budget.timeout.map(|t| t.as_secs()));
        assert_eq!(
            (budget(&classic), budget(&cells), budget(&cells.for_shape(sixteen))),
            ((1_000_000, Some(60)), (4_000_000, Some(120)), (4_000_000, Some(120)))
        );
        let sweeps = Overrides { max_sweeps: Some(7), ..Overrides::default() };
        let sweeps = Settings::resolve(BackendKind::CpuLanes, &sweeps).unwrap();
        assert_eq!((budget(&sweeps.for_shape(Shape::CLASSIC)), budget(&sweeps)), ((7, Some(60)), (7, Some(120))));
        let untimed = Overrides { timeout: Some(0.0), max_sweeps: Some(7), ..Overrides::default() };
        let untimed = Settings::resolve(BackendKind::Cpu, &untimed).unwrap();
        assert_eq!((budget(&untimed.for_shape(Shape::CLASSIC)), untimed.small_board_budget), ((7, None), None));
        for timeout in [2e19, 1e300, -1.0, f64::NAN] {
            let overrides = Overrides { timeout: Some(timeout), ..Overrides::default() };
            assert!(matches!(Settings::resolve(BackendKind::Cpu, &overrides), Err(Error::Settings(_))), "{timeout}");
        }
    }
}
