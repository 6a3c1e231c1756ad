//! The one place that says what a backend is: its name, what it runs on,
//! its twin, how it is built and what it anneals with where the user says
//! nothing. The command line's `--backend` values, their help and the
//! defaults in `--help` come from here, and so does [`Settings::for_backend`].
//!
//! [`Settings::for_backend`]: crate::settings::Settings::for_backend

use clap::builder::PossibleValue;

use super::bitsliced::{BitslicedBackend, LADDERS_PER_MASK};
use super::cpu::bits::Bits32Backend;
use super::cpu::CpuBackend;
use super::gpu::{AdapterChoice, AdapterName, GpuBackend};
use super::lanes::LanesBackend;
use super::Backend;
use crate::dynamics::{Dynamics, Moves, WeightRule};
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

/// What a backend anneals with where the user sets nothing.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Defaults {
    pub batch: Batch,
    pub exchange_every: u32,
    pub moves: Moves,
    pub weights: WeightRule,
    /// The ladders on boards of side 9 and less, and on larger ones.
    pub small_boards: Ladders,
    pub large_boards: Ladders,
}

/// Puzzles in flight.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Batch {
    Puzzles(usize),
    /// One per thread of the pool (`RAYON_NUM_THREADS`).
    OnePerThread,
}

impl Batch {
    pub fn puzzles(self) -> usize {
        match self {
            Batch::Puzzles(n) => n,
            Batch::OnePerThread => rayon::current_num_threads(),
        }
    }
}

impl std::fmt::Display for Batch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Batch::Puzzles(n) => write!(f, "{n}"),
            Batch::OnePerThread => f.write_str("one per thread"),
        }
    }
}

/// The cpu-bits ladders on Sudoku boards, from the work (sweeps × rungs) to
/// solve hardest-class puzzles (BENCHMARKS.md). Beside 64 ladders, 8 rungs
/// need about 30 % less than 16; on 9×9 boards one temperature (independent
/// chains) needs a third of the 8 rungs' work, but larger boards fail there.
const BITS_LARGE_BOARDS: Ladders = Ladders { ladders: 1, replicas: 8, t_min: 0.45, t_max: 1.0 };
const BITS_SMALL_BOARDS: Ladders = Ladders { ladders: 1, replicas: 1, t_min: 0.63, t_max: 0.63 };
/// Rungs of the scalar backends' ladder for single-spin moves.
const RUNGS: usize = 16;
/// The temperature of cell moves with adaptive weights (weights start at
/// 2): the prototype's; 1.0 to 1.5 need within 20 % of its work (BENCHMARKS.md).
const CELL_TEMPERATURE: f64 = 1.2;

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

    /// Whether it runs `dynamics`, or the error that says what it does run:
    /// the bit-sliced backends keep every replica of a word on one
    /// arithmetic path, single-spin moves on the plain model.
    pub fn check_runs(self, dynamics: Dynamics) -> Result<()> {
        let (runs, what) = match self {
            BackendKind::Cpu | BackendKind::Gpu => return Ok(()),
            BackendKind::CpuBits | BackendKind::GpuBits | BackendKind::Bits32 => (
                dynamics == Dynamics::default(),
                "single-spin moves on the plain model only (--moves spin --weights fixed)",
            ),
            BackendKind::CpuLanes => (dynamics.moves == Moves::Cell, "cell moves only (--moves cell)"),
        };
        match runs {
            true => Ok(()),
            false => Err(Error::Settings(format!("the {} backend runs {what}", self.name()))),
        }
    }

    pub fn is_gpu(self) -> bool {
        matches!(self, BackendKind::Gpu | BackendKind::GpuBits)
    }

    /// Builds it; a GPU backend takes any adapter with compute shaders,
    /// software ones too.
    pub fn build(self) -> Result<Box<dyn Backend>> {
        self.build_on(None)
    }

    /// Builds it, a GPU backend on the `adapter` named (`--adapter`), if any;
    /// a CPU backend with an adapter named is an error.
    pub fn build_on(self, adapter: Option<&AdapterName>) -> Result<Box<dyn Backend>> {
        let choice = adapter.map_or(AdapterChoice::Any, |name| AdapterChoice::Named(name.clone()));
        Ok(match self {
            BackendKind::Gpu | BackendKind::GpuBits => Box::new(GpuBackend::new(choice, self)?),
            _ if adapter.is_some() => {
                return Err(Error::Settings(format!(
                    "--adapter picks a GPU; the {} backend runs on the CPU",
                    self.name()
                )))
            }
            BackendKind::Cpu => Box::new(CpuBackend::new()),
            BackendKind::CpuBits => Box::new(BitslicedBackend::new()),
            BackendKind::CpuLanes => Box::new(LanesBackend::new()),
            BackendKind::Bits32 => Box::new(Bits32Backend::new()),
        })
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
            Moves::Cell => self.cell_defaults(),
            Moves::Spin => self.spin_defaults(variant),
        }
    }

    /// Cell moves with adaptive weights: on boards up to 9×9 32 chains at
    /// one temperature (16 to 48 need about the same work, a ladder more);
    /// above, where 1.2 is too hot to order a nearly empty board and 0.5
    /// too cold for puzzles with clues, 8 ladders of 4 rungs from 0.5 to 1.2.
    fn cell_defaults(self) -> Defaults {
        let (batch, exchange_every) = match self {
            // A puzzle per thread on the lanes backend (32 chains: two groups of 16).
            BackendKind::CpuLanes => (Batch::OnePerThread, 5),
            // Measured on an H200 (BENCHMARKS.md, 2026-11-26): 10,000 hardest
            // puzzles ran at 2,600/s with 256 in flight (8,192 replicas),
            // 1,800/s with 2,048; 128 ran 10 % faster on 1.7x the host CPU.
            BackendKind::Gpu => (Batch::Puzzles(256), 20),
            _ => (Batch::Puzzles(1), 5),
        };
        Defaults {
            batch,
            exchange_every,
            moves: Moves::Cell,
            weights: WeightRule::Adaptive,
            small_boards: Ladders { ladders: 32, replicas: 1, t_min: CELL_TEMPERATURE, t_max: CELL_TEMPERATURE },
            large_boards: Ladders { ladders: 8, replicas: 4, t_min: 0.5, t_max: CELL_TEMPERATURE },
        }
    }

    /// Single-spin moves on the plain model.
    fn spin_defaults(self, variant: Variant) -> Defaults {
        let (t_min, t_max) = default_temperatures(variant);
        let (ladders, batch, exchange_every) = match self {
            BackendKind::Cpu | BackendKind::CpuLanes => (1, Batch::Puzzles(1), 10),
            // A 9×9 puzzle anneals in one lane mask, on one thread: a puzzle
            // per thread keeps every core busy, and results do not depend on the batch.
            BackendKind::CpuBits => (LADDERS_PER_MASK, Batch::OnePerThread, 10),
            // From hardest-class time to solution on an H100 (BENCHMARKS.md):
            // more ladders need fewer sweeps, but past 64 each sweep costs
            // more than it saves; 64 puzzles × 64 ladders × 16 rungs = 65,536 replicas.
            BackendKind::Gpu => (64, Batch::Puzzles(64), 20),
            // Not yet measured on a GPU: cpu-bits' ladders, 1,024 chains per
            // puzzle (32 words), 64 puzzles: 65,536 replicas in flight.
            BackendKind::GpuBits => (1024, Batch::Puzzles(64), 20),
            BackendKind::Bits32 => (1024, Batch::OnePerThread, 20),
        };
        let ladder = Ladders { ladders, replicas: RUNGS, t_min, t_max };
        // The short ladders are measured on Sudoku only: Latin squares keep the solver's.
        let (small_boards, large_boards) = match (self, variant) {
            (BackendKind::CpuBits | BackendKind::GpuBits | BackendKind::Bits32, Variant::Standard | Variant::X) => {
                (Ladders { ladders, ..BITS_SMALL_BOARDS }, Ladders { ladders, ..BITS_LARGE_BOARDS })
            }
            _ => (ladder, ladder),
        };
        Defaults { batch, exchange_every, moves: Moves::Spin, weights: WeightRule::Fixed, small_boards, large_boards }
    }
}

/// What `--backend` names: a backend, or `auto`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BackendChoice {
    /// A hardware GPU if there is one (`gpu`), else the CPU (`cpu-lanes`).
    Auto,
    Kind(BackendKind),
}

impl BackendChoice {
    /// Builds the backend, saying on stderr which one `auto` picked and why.
    pub fn build(self) -> Result<(BackendKind, Box<dyn Backend>)> {
        self.build_on(None)
    }

    /// [`BackendChoice::build`] on the `adapter` named, if any: then `auto`
    /// is `gpu` on that adapter, or an error.
    pub fn build_on(self, adapter: Option<&AdapterName>) -> Result<(BackendKind, Box<dyn Backend>)> {
        match (self, adapter) {
            (BackendChoice::Kind(kind), _) => Ok((kind, kind.build_on(adapter)?)),
            (BackendChoice::Auto, Some(_)) => Ok((BackendKind::Gpu, BackendKind::Gpu.build_on(adapter)?)),
            (BackendChoice::Auto, None) => Ok(match GpuBackend::new(AdapterChoice::Hardware, BackendKind::Gpu) {
                Ok(gpu) => {
                    say!("auto picked the gpu backend on {}", gpu.adapter().name);
                    (BackendKind::Gpu, Box::new(gpu))
                }
                // The fastest CPU backend (BENCHMARKS.md: the least CPU time per puzzle).
                Err(why) => {
                    say!("auto picked the cpu-lanes backend ({why})");
                    (BackendKind::CpuLanes, Box::new(LanesBackend::new()))
                }
            }),
        }
    }

    /// Where a run of this choice goes on when the GPU fails mid-run: `auto`
    /// on the CPU backend it would pick without a GPU; an explicit choice nowhere.
    pub fn fallback(self) -> Option<BackendKind> {
        match self {
            BackendChoice::Auto => Some(BackendKind::CpuLanes),
            BackendChoice::Kind(_) => None,
        }
    }
}

impl clap::ValueEnum for BackendChoice {
    fn value_variants<'a>() -> &'a [Self] {
        // Every backend, then auto.
        const CHOICES: [BackendChoice; BackendKind::ALL.len() + 1] = {
            let mut choices = [BackendChoice::Auto; BackendKind::ALL.len() + 1];
            let mut i = 0;
            while i < BackendKind::ALL.len() {
                choices[i] = BackendChoice::Kind(BackendKind::ALL[i]);
                i += 1;
            }
            choices
        };
        &CHOICES
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(match self {
            BackendChoice::Auto => PossibleValue::new("auto").help("a hardware GPU if present (gpu), else cpu-lanes"),
            BackendChoice::Kind(kind) => PossibleValue::new(kind.name()).help(kind.about()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_twins_pair_up() {
        use clap::ValueEnum;
        for kind in BackendKind::ALL {
            assert_eq!(BackendChoice::from_str(kind.name(), false), Ok(BackendChoice::Kind(kind)));
            if let Some(twin) = kind.twin() {
                assert_eq!(twin.twin(), Some(kind));
                assert_ne!(twin.is_gpu(), kind.is_gpu(), "a twin runs on the other device");
            }
        }
        assert_eq!(BackendChoice::from_str("auto", false), Ok(BackendChoice::Auto));
    }
}
