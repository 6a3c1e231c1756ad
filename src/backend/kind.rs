//! The one place that says what a backend is: its name, what it runs on,
//! its twin, which sweep runs which dynamics on it, and what it anneals
//! with where the user says nothing. The command line's `--backend` values,
//! their help and the defaults in `--help` come from here, and so does
//! [`Settings::for_backend`]. How each is built is `registry.rs`'s: the
//! backends read this file, never that one.
//!
//! [`Settings::for_backend`]: crate::settings::Settings::for_backend

use crate::dynamics::{AdaptiveWeights, Completion, Dynamics, Moves, Trades, WeightRule};
use crate::error::{Error, Result};
use crate::grid::Variant;
use crate::tempering::{default_temperatures, Ladders};

/// A backend a user can choose.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BackendKind {
    /// The scalar reference on every core (`cpu/spins.rs`).
    Cpu,
    /// 128 ladders in the bits of each SSE2 register (`bitsliced/`).
    CpuBits,
    /// Cell moves, 32 chains in the 16-bit lanes of a vector (`lanes/`).
    CpuLanes,
    /// `shaders/spins.wgsl` through wgpu; its twin is `cpu`.
    Gpu,
    /// `shaders/bits.wgsl`: 32 replicas in the bits of each u32; its twin is `bits32`.
    GpuBits,
    /// The CPU twin of `gpu-bits` (`cpu/bits.rs`): the same states, random
    /// numbers and sweeps, for checking and comparing it.
    Bits32,
}

/// The sweeps a backend runs: each is a file of its own (the CPU's, and a
/// GPU kernel's twin in `shaders/`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Sweep {
    /// Single-spin Metropolis, an int per constraint total: `cpu/spins.rs` ↔ `shaders/spins.wgsl`.
    Spins,
    /// Heat-bath cell moves: `cpu/cells.rs` ↔ `shaders/cells.wgsl`.
    Cells,
    /// 32 replicas in the bits of a u32: `cpu/bits.rs` ↔ `shaders/bits.wgsl`.
    Bits,
    /// Cell moves, 32 chains in the 16-bit lanes of a vector: `lanes/`.
    Lanes,
    /// 128 ladders in the bits of an SSE2 register: `bitsliced/`.
    Bitsliced,
}

/// What a backend anneals with where the user sets nothing.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Defaults {
    pub batch: BatchSize,
    pub exchange_every: u32,
    pub moves: Moves,
    pub weights: WeightRule,
    /// What chains' grids get on boards above 9×9.
    pub completion: Completion,
    /// What they get on boards of side 9 and less.
    pub small_board_completion: Completion,
    /// Whether pairs of cells trade digits on boards above 9×9.
    pub trades: Trades,
    /// Whether they do on boards of side 9 and less.
    pub small_board_trades: Trades,
    /// Boards of side 9 and less, larger ones, and the largest (25×25).
    pub small_boards: BoardDefaults,
    pub large_boards: BoardDefaults,
    pub largest_boards: BoardDefaults,
}

/// What differs between board sizes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoardDefaults {
    pub tempering: Ladders,
    /// The weights' rule, where the weights adapt.
    pub weights: AdaptiveWeights,
}

/// Puzzles in flight.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BatchSize {
    Puzzles(usize),
    /// One per thread of the pool (`RAYON_NUM_THREADS`).
    OnePerThread,
}

impl BatchSize {
    pub fn puzzles(self) -> usize {
        match self {
            BatchSize::Puzzles(n) => n,
            BatchSize::OnePerThread => rayon::current_num_threads(),
        }
    }
}

impl std::fmt::Display for BatchSize {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BatchSize::Puzzles(n) => write!(f, "{n}"),
            BatchSize::OnePerThread => f.write_str("one per thread"),
        }
    }
}

/// The cpu-bits ladders on Sudoku boards, from the work (sweeps × rungs) to
/// solve hardest-class puzzles (BENCHMARKS.md). Beside 64 ladders, 8 rungs
/// need about 30 % less than 16; on 9×9 boards one temperature (independent
/// chains) needs a third of the 8 rungs' work, but larger boards fail there.
const BITS_LARGE_BOARDS: Ladders = Ladders { ladders: 1, replicas: 8, t_min: 0.45, t_max: 1.0 };
const BITS_SMALL_BOARDS: Ladders = Ladders { ladders: 1, replicas: 1, t_min: 0.63, t_max: 0.63 };
/// cpu-bits' ladders: one mask's (`bitsliced::LADDERS_PER_MASK`, the bits
/// of an SSE2 register; a test there holds them equal).
const CPU_BITS_LADDERS: usize = 128;
/// Rungs of the scalar backends' ladder for single-spin moves.
const RUNGS: usize = 16;
/// The temperature of cell moves with adaptive weights (weights start at
/// 2): the prototype's; 1.0 to 1.5 need within 20 % of its work (BENCHMARKS.md).
const CELL_TEMPERATURE: f64 = 1.2;
/// Adaptive weights relax faster above 9×9: on 25×25 puzzles every 4 sweeps
/// needs 1/5 to 1/20 of the work of every 5, where the weights run up to
/// the cap and the chains stay restless; 16×16 ones need the same (BENCHMARKS.md).
const LARGE_BOARD_WEIGHTS: AdaptiveWeights = AdaptiveWeights { relax_every: 4, ..AdaptiveWeights::DEFAULT };
/// On 25×25 boards the weights start at 3 and stop at 24, with the ladder
/// at 0.6 to 0.75: the ratios of the larger boards' 2, 16 and 0.4 to 0.5,
/// so that only a step of the weights (+1, −1) is a smaller share of them.
/// Within the budget, in the runs that chose them (session 48), 10 of the
/// 11 unique 25×25 puzzles solved at seed 1 and 7 at seed 2, where the
/// larger boards' weights solved 5 and 4, and random 25×25 boards need no
/// more work; on 16×16 boards such steps need 1.2× the work (BENCHMARKS.md).
const LARGEST_BOARD_WEIGHTS: AdaptiveWeights = AdaptiveWeights { base: 3, cap: 24, relax_every: 4 };

impl BackendKind {
    pub const ALL: [BackendKind; 6] = [
        BackendKind::Cpu,
        BackendKind::CpuBits,
        BackendKind::CpuLanes,
        BackendKind::Gpu,
        BackendKind::GpuBits,
        BackendKind::Bits32,
    ];

    /// As users write it (`--backend`) and reports show it.
    pub fn name(self) -> &'static str {
        match self {
            BackendKind::Cpu => "cpu",
            BackendKind::CpuBits => "cpu-bits",
            BackendKind::CpuLanes => "cpu-lanes",
            BackendKind::Gpu => "gpu",
            BackendKind::GpuBits => "gpu-bits",
            BackendKind::Bits32 => "bits32",
        }
    }

    /// One line for `--help`.
    pub fn about(self) -> &'static str {
        match self {
            BackendKind::Cpu => "the reference: one replica at a time per core, the GPU's twin",
            BackendKind::CpuBits => "the CPU with 128 ladders in the bits of each SSE2 register (multi-spin coding)",
            BackendKind::CpuLanes => "the CPU with 32 chains in the 16-bit lanes of a vector: cell moves only",
            BackendKind::Gpu => "the GPU, a replica per 32 invocations (twin: cpu)",
            BackendKind::GpuBits => "the GPU with 32 replicas in the bits of each u32 (twin: bits32)",
            BackendKind::Bits32 => "gpu-bits' twin on the CPU: its random numbers and arithmetic",
        }
    }

    /// Host memory one replica takes per spin of its board, rounded up from
    /// the resident size at 1,000 and 20,000 replicas of an empty 9×9 board
    /// (2026-11-26: cpu 11.2, cpu-lanes 2.3, cpu-bits 0.45, bits32 0.35
    /// bytes); `None` for the GPU backends, whose replicas live on the device
    /// and are bounded by its limits (`Backend::max_replicas`).
    pub fn bytes_per_replica_spin(self) -> Option<u64> {
        match self {
            BackendKind::Cpu => Some(12),
            BackendKind::CpuLanes => Some(3),
            BackendKind::CpuBits | BackendKind::Bits32 => Some(1),
            BackendKind::Gpu | BackendKind::GpuBits => None,
        }
    }

    /// The backend whose states it must equal bit for bit, if any.
    pub fn twin(self) -> Option<BackendKind> {
        match self {
            BackendKind::Cpu => Some(BackendKind::Gpu),
            BackendKind::Gpu => Some(BackendKind::Cpu),
            BackendKind::GpuBits => Some(BackendKind::Bits32),
            BackendKind::Bits32 => Some(BackendKind::GpuBits),
            BackendKind::CpuBits | BackendKind::CpuLanes => None,
        }
    }

    /// The one table of which sweep runs `dynamics` on it, if it runs them:
    /// twins share a sweep (`cpu` and `gpu`, `bits32` and `gpu-bits`); the
    /// bit-sliced backends keep every replica of a word on one arithmetic
    /// path, single-spin moves on the plain model.
    pub fn sweep(self, dynamics: Dynamics) -> Option<Sweep> {
        let plain = dynamics == Dynamics::default();
        match (self, dynamics.moves) {
            // Completion completes cells, and cells trade digits.
            (_, Moves::Spin) if dynamics.completion != Completion::Off || dynamics.trades != Trades::Off => None,
            // Trades are `cpu-lanes`' alone so far: the reference and its
            // shader do not trade.
            (BackendKind::Cpu | BackendKind::Gpu, Moves::Cell) if dynamics.trades != Trades::Off => None,
            (BackendKind::Cpu | BackendKind::Gpu, Moves::Spin) => Some(Sweep::Spins),
            (BackendKind::Cpu | BackendKind::Gpu, Moves::Cell) => Some(Sweep::Cells),
            (BackendKind::CpuLanes, Moves::Cell) => Some(Sweep::Lanes),
            (BackendKind::CpuBits, _) if plain => Some(Sweep::Bitsliced),
            (BackendKind::GpuBits | BackendKind::Bits32, _) if plain => Some(Sweep::Bits),
            _ => None,
        }
    }

    /// Whether it runs `dynamics`, or the error that says what it does run.
    pub fn check_runs(self, dynamics: Dynamics) -> Result<()> {
        let what = match self {
            BackendKind::Cpu | BackendKind::Gpu => {
                "every move set, completion with cell moves only (--complete off with --moves spin), no trades (--trades off)"
            }
            BackendKind::CpuBits | BackendKind::GpuBits | BackendKind::Bits32 => {
                "single-spin moves on the plain model only (--moves spin --weights fixed --complete off --trades off)"
            }
            BackendKind::CpuLanes => "cell moves only (--moves cell)",
        };
        match self.sweep(dynamics) {
            Some(_) => Ok(()),
            None => Err(Error::Settings(format!("the {} backend runs {what}", self.name()))),
        }
    }

    pub fn is_gpu(self) -> bool {
        matches!(self, BackendKind::Gpu | BackendKind::GpuBits)
    }

    /// The move set it runs where the user chooses none.
    pub fn default_moves(self) -> Moves {
        match self {
            BackendKind::Cpu | BackendKind::CpuLanes | BackendKind::Gpu => Moves::Cell,
            BackendKind::CpuBits | BackendKind::GpuBits | BackendKind::Bits32 => Moves::Spin,
        }
    }

    /// What it anneals `variant` with where the user sets nothing, with the
    /// user's `moves` if chosen: each move set has its own (BENCHMARKS.md).
    pub fn defaults(self, variant: Variant, moves: Option<Moves>) -> Defaults {
        match moves.unwrap_or(self.default_moves()) {
            Moves::Cell => self.cell_defaults(variant),
            Moves::Spin => self.spin_defaults(variant),
        }
    }

    /// Cell moves with adaptive weights: on boards up to 9×9 32 chains at
    /// one temperature (16 to 48 need about the same work, a ladder more);
    /// above, where 1.2 is too hot to order a nearly empty board, 8 ladders
    /// of 4 rungs from 0.4 to 0.5 (a third to a half of the work of rungs up
    /// to 1.2 on 25×25 puzzles, less on empty boards and Latin squares too),
    /// and on 25×25 boards finer weights with a ladder to match.
    fn cell_defaults(self, variant: Variant) -> Defaults {
        let (batch, exchange_every, completion, small_board_completion, trades) = match self {
            // A puzzle per thread on the lanes backend (32 chains: one group),
            // and its chains' grids completed by singles, the chains hotter
            // once they are (2.6 to 2.9 times less CPU time on the hardest
            // classes than neither: BENCHMARKS.md), from at most 6 of a hot
            // chain's kept cells (0.75 of the work of all of them). Pairs
            // of cells trade digits on Sudoku boards above 9×9: 0.62 of the
            // instructions on generated 25×25, 0.92–0.96 on 16×16 (1.05 on
            // easy ones); not on Latin squares of order 12 to 20, which
            // needed 1.03–1.04 times the work (BENCHMARKS.md, session 65).
            BackendKind::CpuLanes => {
                let trades = if variant == Variant::Standard { Trades::On } else { Trades::Off };
                (BatchSize::OnePerThread, 5, Completion::Sampled, Completion::Sampled, trades)
            }
            // Measured on an H200 (BENCHMARKS.md, 2026-11-26): 10,000 hardest
            // puzzles ran at 2,600/s with 256 in flight (8,192 replicas),
            // 1,800/s with 2,048; 128 ran 10 % faster on 1.7x the host CPU.
            // Completion on 9×9 boards: 2.4 and 3.4 times the hardest classes'
            // puzzles per second; not on 16×16, where a completion costs
            // about two sweeps and they ran at 0.74 times (2026-11-27).
            BackendKind::Gpu => (BatchSize::Puzzles(256), 20, Completion::Off, Completion::Singles, Trades::Off),
            // The reference completes as its twin does: a third of the
            // time on the hardest class.
            BackendKind::Cpu => (BatchSize::Puzzles(1), 5, Completion::Off, Completion::Singles, Trades::Off),
            _ => (BatchSize::Puzzles(1), 5, Completion::Off, Completion::Off, Trades::Off),
        };
        Defaults {
            batch,
            exchange_every,
            moves: Moves::Cell,
            weights: WeightRule::Adaptive,
            completion,
            small_board_completion,
            trades,
            // On 9×9 boards, whose hot chains complete grids, trades change
            // the work by −9 to +9 % and cost 1.10–1.25 times the
            // instructions (BENCHMARKS.md, session 65).
            small_board_trades: Trades::Off,
            small_boards: BoardDefaults {
                tempering: Ladders { ladders: 32, replicas: 1, t_min: CELL_TEMPERATURE, t_max: CELL_TEMPERATURE },
                weights: AdaptiveWeights::DEFAULT,
            },
            large_boards: BoardDefaults {
                tempering: Ladders { ladders: 8, replicas: 4, t_min: 0.4, t_max: 0.5 },
                weights: LARGE_BOARD_WEIGHTS,
            },
            largest_boards: BoardDefaults {
                tempering: Ladders { ladders: 8, replicas: 4, t_min: 0.6, t_max: 0.75 },
                weights: LARGEST_BOARD_WEIGHTS,
            },
        }
    }

    /// Single-spin moves on the plain model.
    fn spin_defaults(self, variant: Variant) -> Defaults {
        let (t_min, t_max) = default_temperatures(variant);
        let (ladders, batch, exchange_every) = match self {
            BackendKind::Cpu | BackendKind::CpuLanes => (1, BatchSize::Puzzles(1), 10),
            // A 9×9 puzzle anneals in one lane mask, on one thread: a puzzle
            // per thread keeps every core busy, and results do not depend on the batch.
            BackendKind::CpuBits => (CPU_BITS_LADDERS, BatchSize::OnePerThread, 10),
            // From hardest-class time to solution on an H100 (BENCHMARKS.md):
            // more ladders need fewer sweeps, but past 64 each sweep costs
            // more than it saves; 64 puzzles × 64 ladders × 16 rungs = 65,536 replicas.
            BackendKind::Gpu => (64, BatchSize::Puzzles(64), 20),
            // Not yet measured on a GPU: cpu-bits' ladders, 1,024 chains per
            // puzzle (32 words), 64 puzzles: 65,536 replicas in flight.
            BackendKind::GpuBits => (1024, BatchSize::Puzzles(64), 20),
            BackendKind::Bits32 => (1024, BatchSize::OnePerThread, 20),
        };
        let ladder = Ladders { ladders, replicas: RUNGS, t_min, t_max };
        // The short ladders are measured on Sudoku only: Latin squares keep the solver's.
        let (small_boards, large_boards) = match (self, variant) {
            (BackendKind::CpuBits | BackendKind::GpuBits | BackendKind::Bits32, Variant::Standard | Variant::X) => {
                (Ladders { ladders, ..BITS_SMALL_BOARDS }, Ladders { ladders, ..BITS_LARGE_BOARDS })
            }
            _ => (ladder, ladder),
        };
        let board = |tempering| BoardDefaults { tempering, weights: AdaptiveWeights::DEFAULT };
        Defaults {
            batch,
            exchange_every,
            moves: Moves::Spin,
            weights: WeightRule::Fixed,
            completion: Completion::Off,
            small_board_completion: Completion::Off,
            trades: Trades::Off,
            small_board_trades: Trades::Off,
            small_boards: board(small_boards),
            large_boards: board(large_boards),
            largest_boards: board(large_boards),
        }
    }
}
