//! What the host shares with the sweep kernels: the structs they read
//! (`shaders/common.wgsl`), and the constants each kernel is compiled with
//! for one board shape. Every constant a shader uses and does not define
//! is written here and prepended to its source, so the two cannot drift.
//!
//! What differs between the kernels is one `EngineParts` implementation
//! per shader file, in the host file of the shader's name: `spins.rs` for
//! `spins.wgsl` (twin: `cpu/spins.rs`), `cells.rs` for `cells.wgsl` (twin:
//! `cpu/cells.rs`) and `bits.rs` for `bits.wgsl` (twin: `cpu/bits.rs`).
//! `engine.rs` picks an engine's parts and computes a kernel's sizes and
//! source from them; this file imports none of them.

use bytemuck::{Pod, Zeroable};

pub use super::bindings::Binding;
pub use super::variants::KernelOptions;
use crate::backend::kind::{BackendKind, Sweep};
use crate::backend::tables::CellTable;
use crate::dynamics::{Dynamics, Weights};
use crate::grid::{Shape, MAX_N};
use crate::model::Spin;

/// Which sweep kernel runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Engine {
    /// `spins.wgsl`: an int per constraint total, 32 invocations per replica (twin: `cpu`).
    Spins,
    /// `cells.wgsl`: cell moves, 8 invocations per replica up to 9×9, 16 above (twin: `cpu` with `--moves cell`).
    Cells,
    /// `bits.wgsl`: 32 replicas per u32 word, an invocation per lane (twin: `bits32`).
    Bits,
}

impl Engine {
    /// The kernel a GPU backend runs `dynamics` with, if it runs them: the
    /// shader of the sweep that `kind.rs`'s table names.
    pub fn of(kind: BackendKind, dynamics: Dynamics) -> Option<Engine> {
        match kind.sweep(dynamics)? {
            Sweep::Spins => Some(Engine::Spins),
            Sweep::Cells => Some(Engine::Cells),
            Sweep::Bits => Some(Engine::Bits),
            Sweep::Lanes | Sweep::Bitsliced => None,
        }
    }

    /// What a workgroup holds one of, for messages.
    pub fn unit(self) -> &'static str {
        match self {
            Engine::Spins | Engine::Cells => "one replica",
            Engine::Bits => "a word of 32 replicas",
        }
    }
}

/// Invocations per replica of spins.wgsl.
pub const INVOCATIONS_PER_REPLICA: u32 = 32;
/// Invocations per slot of the `gather` and `advance` entry points.
pub const GATHER_SIZE: u32 = 64;
/// What a kernel reports as a replica's energy when the driver cut its
/// dispatch short (common.wgsl).
pub const CUT_SHORT: i32 = -1;
/// Loop iterations a dispatch may run per invocation on llvmpipe (Mesa's
/// software Vulkan driver, lavapipe), which ends every loop of an
/// invocation once 65,535 have run in it (gallivm's
/// `LP_MAX_TGSI_LOOP_ITERATIONS`); the rest is margin for what the bounds
/// below leave out.
pub const SOFTWARE_LOOP_BUDGET: u64 = 60_000;

/// The kernels' uniform. Keep in sync: `struct Params` in common.wgsl.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct Params {
    /// This dispatch covers replicas `first_replica..end_replica`, whole slots.
    pub first_replica: u32,
    pub end_replica: u32,
    pub replicas_per_slot: u32,
    /// The most sweeps any slot runs in this dispatch.
    pub sweep_count: u32,
    /// Rung-table words per slot: rungs × the kernel's `table_len`.
    pub table_stride: u32,
}

/// Entries of `SlotInfo::class_start`: one more than the most colours, padded.
pub const CLASS_STARTS: usize = 28;
const _: () = assert!(MAX_N < CLASS_STARTS);

/// What the kernels know of one slot's puzzle. Keep in sync: `struct
/// SlotInfo` in common.wgsl.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct SlotInfo {
    pub first_sweep: u32,
    pub sweep_count: u32,
    pub seed_lo: u32,
    pub seed_hi: u32,
    pub table_len: u32,
    /// 1 until the first dispatch after a load: the kernel then starts the
    /// slot's replicas from its initial state instead of reading them.
    pub fresh: u32,
    pub offset: i32,
    /// cells.wgsl: where the chains heat (`Dynamics::heats`), the hot rows'
    /// offset from the slot's rows (`rung_tables`); 0 where they do not.
    pub hot_rows: u32,
    /// Free spins (cells, for cells.wgsl) of colour c are `class_start[c]..class_start[c + 1]`.
    pub class_start: [u32; CLASS_STARTS],
}

impl SlotInfo {
    /// The seed the slot's puzzle was loaded with.
    pub fn seed(&self) -> u64 {
        (self.seed_hi as u64) << 32 | self.seed_lo as u64
    }

    /// Spins or cells an invocation of `lanes` per replica or word
    /// updates in a sweep, Σ_c ⌈class_c / lanes⌉.
    pub fn attempts_per_lane(&self, colours: usize, lanes: u32) -> u64 {
        self.class_start[..=colours].windows(2).map(|class| (class[1] - class[0]).div_ceil(lanes) as u64).sum()
    }
}

/// The constants a sweep kernel is compiled with for one board shape:
/// array sizes, the constraint layout of a spin, units (replicas or words)
/// per workgroup.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Kernel {
    pub engine: Engine,
    pub shape: Shape,
    pub cells: u32,
    /// Constraint totals per replica: every constraint, then one padding
    /// total that stays 0 (spins off the diagonals point their unused
    /// entries at it).
    pub totals: u32,
    /// Spin-data entries reserved per slot: every spin of the full model.
    pub max_spins: u32,
    /// Constraints per spin (the most, with padding).
    pub width: u32,
    pub uniform: bool,
    /// `vec4<u32>` words of spin data per spin.
    pub spin_vecs: u32,
    /// Threshold words per rung: the largest ΔE any puzzle of the shape can produce, plus 1.
    pub table_len: u32,
    /// Bit planes of a total and of a spin's sum of totals (bits only).
    pub planes: u32,
    pub sum_planes: u32,
    /// Whether a unit's totals live in workgroup memory. Always for
    /// spins.wgsl; bits.wgsl keeps a word's totals in place in global
    /// memory when they do not fit (25×25 boards).
    pub workgroup_totals: bool,
    /// Replicas (spins, cells) or words (bits) per workgroup.
    pub per_group: u32,
    /// The unit weights' rule (cells.wgsl; fixed for the others).
    pub weights: Weights,
    /// Whether the replicas' grids are completed (cells.wgsl, `--complete singles` or `sampled`).
    pub completes: bool,
    /// At most how many of a hot replica's kept cells a completion keeps
    /// (`--complete sampled`, `Dynamics::keeps`); `None`: all of them.
    pub keeps: Option<u32>,
    pub options: KernelOptions,
}

/// A `u32` constant's WGSL declaration.
pub(super) fn int(name: &str, value: u32) -> String {
    format!("const {name}: u32 = {value}u;")
}

pub(super) fn boolean(name: &str, value: bool) -> String {
    format!("const {name}: bool = {value};")
}

/// What a batch keeps of a loaded puzzle to read its replicas' states.
#[derive(Debug, Clone, Default)]
pub struct Loaded {
    pub free_spins: Vec<Spin>,
    /// Its cells, for cells.wgsl.
    pub cells: Option<CellTable>,
}

/// The free spins of a state held as a word per cell, bit d: spin (cell, d).
pub fn spins_of_cells(cells: &[u32], free_spins: &[Spin]) -> Vec<u8> {
    free_spins.iter().map(|s| (cells[s.cell as usize] >> s.digit & 1) as u8).collect()
}

/// What one sweep kernel adds to what they share: its WGSL, its unit of
/// work (a replica or a word of replicas), its memory, its constants, where
/// its states keep a replica's spins. One implementation per shader file;
/// the defaults are those of a kernel that keeps a replica per unit, a
/// total per constraint and a word per cell (spins.wgsl, cells.wgsl).
pub(super) trait EngineParts: Sync {
    /// Its own WGSL, appended to common.wgsl.
    fn source(&self) -> &'static str;
    /// Invocations per unit.
    fn lanes(&self, kernel: &Kernel) -> u32;
    /// Workgroup memory of one unit, in words.
    fn workgroup_words(&self, kernel: &Kernel) -> u32;
    /// Its own constants' WGSL declarations.
    fn constants(&self, kernel: &Kernel) -> Vec<String>;
    /// Upper bounds of an invocation's loop iterations outside the sweeps,
    /// per spin or cell it updates, and per sweep besides those.
    fn loop_iterations(&self, kernel: &Kernel, attempts_per_lane: u64) -> (u64, u64, u64);
    fn initial_spins(&self, puzzle: &Loaded, seed: u64, replica: usize, weights: Weights) -> Vec<u8>;

    /// The most units a workgroup holds; fewer when a board's totals do not fit.
    fn most_units_per_group(&self, _kernel: &Kernel) -> u32 {
        4
    }
    /// Replicas per unit.
    fn replicas_per_unit(&self) -> usize {
        1
    }
    /// Whether its totals may stay in global memory where they do not fit in the workgroup's.
    fn totals_may_stay_global(&self) -> bool {
        false
    }
    fn totals_per_unit(&self, kernel: &Kernel) -> u32 {
        kernel.totals
    }
    fn state_per_unit(&self, kernel: &Kernel) -> u32 {
        kernel.cells
    }
    /// `vec4`s of spin data per slot before the spins: cells.wgsl's headers.
    fn cell_headers(&self, _kernel: &Kernel) -> u32 {
        0
    }
    fn gather_bindings(&self) -> &'static [Binding] {
        &[Binding::Params, Binding::States, Binding::Energies, Binding::Solutions]
    }
    /// A replica's free spins from its unit's state: here a word per cell, bit d: spin (cell, d).
    fn spins_of(&self, cells: &[u32], _replica: usize, free_spins: &[Spin]) -> Vec<u8> {
        spins_of_cells(cells, free_spins)
    }
}
