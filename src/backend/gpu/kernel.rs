//! What the host shares with the sweep kernels: the structs they read
//! (`shaders/common.wgsl`), and the constants each kernel is compiled with
//! for one board shape. Every constant a shader uses and does not define
//! is written here and prepended to its source, so the two cannot drift.
//!
//! What differs between the kernels is one `EngineParts` implementation
//! per shader file, in the host file of the shader's name: `spins.rs` for
//! `spins.wgsl` (twin: `cpu/spins.rs`), `cells.rs` for `cells.wgsl` (twin:
//! `cpu/cells.rs`) and `bits.rs` for `bits.wgsl` (twin: `cpu/bits.rs`).

use bytemuck::{Pod, Zeroable};

pub use super::bindings::Binding;
use super::bits::BitsKernel;
use super::cells::CellsKernel;
use super::spins::SpinsKernel;
pub use super::variants::KernelOptions;
use crate::backend::bitplanes::saturating_sum_planes;
use crate::backend::cpu::bits::{exact_sum_planes, total_planes};
use crate::backend::kind::{BackendKind, Sweep};
use crate::backend::tables::CellTable;
use crate::dynamics::{heat_bath_spread, Dynamics, Weights};
use crate::grid::{Shape, MAX_N};
use crate::model::Spin;
use crate::rng::GOLDEN;

/// Which sweep kernel runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Engine {
    /// `spins.wgsl`: an int per constraint total, 32 invocations per replica (twin: `cpu`).
    Spins,
    /// `cells.wgsl`: cell moves, 16 invocations per replica (twin: `cpu` with `--moves cell`).
    Cells,
    /// `bits.wgsl`: 32 replicas per u32 word, an invocation per lane (twin: `bits32`).
    Bits,
}

impl Engine {
    fn parts(self) -> &'static dyn EngineParts {
        match self {
            Engine::Spins => &SpinsKernel,
            Engine::Cells => &CellsKernel,
            Engine::Bits => &BitsKernel,
        }
    }

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
/// Invocations per replica of cells.wgsl: a colour class has at most n
/// free cells, 9 on Sudoku boards, so 32 would leave most of them idle.
pub const CELL_INVOCATIONS: u32 = 16;
/// Invocations per slot of the `gather` and `advance` entry points.
pub const GATHER_SIZE: u32 = 64;
/// The most replicas (spins) or words (bits) a workgroup holds; fewer when a board's totals do not fit.
const MAX_UNITS_PER_GROUP: u32 = 4;
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
    pub options: KernelOptions,
}

impl Kernel {
    /// The kernel for `shape` on a device with `workgroup_bytes` of
    /// workgroup memory; `None` if one unit does not fit (a word of bits:
    /// not even without its totals).
    pub fn new(engine: Engine, shape: Shape, weights: Weights, workgroup_bytes: u32) -> Option<Kernel> {
        Kernel::with_options(engine, shape, weights, workgroup_bytes, KernelOptions::default())
    }

    /// [`Kernel::new`] with a variant's `options`.
    pub fn with_options(
        engine: Engine,
        shape: Shape,
        weights: Weights,
        workgroup_bytes: u32,
        options: KernelOptions,
    ) -> Option<Kernel> {
        let geometry = shape.geometry();
        let width = geometry.spin_width as u32;
        let mut kernel = Kernel {
            engine,
            shape,
            cells: geometry.cells as u32,
            totals: geometry.constraints as u32 + 1,
            max_spins: shape.spins() as u32,
            width,
            uniform: geometry.uniform,
            spin_vecs: width.div_ceil(4),
            table_len: match engine {
                // |local field| ≤ Σ_k |2(t_k − x) − 1| ≤ width · (2n − 1).
                Engine::Spins | Engine::Bits => width * (2 * shape.n as u32 - 1) + 1,
                Engine::Cells => heat_bath_spread(shape.n, geometry.spin_width - 1, weights) as u32,
            },
            planes: total_planes(shape.n) as u32,
            sum_planes: match options.saturating_sums {
                true => saturating_sum_planes(geometry.spin_width) as u32,
                false => exact_sum_planes(geometry.spin_width, shape.n) as u32,
            },
            workgroup_totals: true,
            per_group: 0,
            weights,
            options,
        };
        let parts = engine.parts();
        kernel.per_group = workgroup_bytes / (4 * parts.workgroup_words(&kernel));
        if (kernel.per_group == 0 || options.global_totals) && parts.totals_may_stay_global() {
            kernel.workgroup_totals = false;
            kernel.per_group = workgroup_bytes / (4 * parts.workgroup_words(&kernel));
        }
        kernel.per_group = kernel.per_group.min(options.units_per_group.unwrap_or(MAX_UNITS_PER_GROUP));
        (kernel.per_group > 0).then_some(kernel)
    }

    /// Units (replicas or words) of a batch of `slots` slots of `per_slot` replicas.
    pub fn units(&self, slots: usize, per_slot: usize) -> usize {
        slots * per_slot.div_ceil(self.engine.parts().replicas_per_unit())
    }

    /// The unit that holds `replica` (global index) of slots of `per_slot`.
    pub fn unit_of(&self, replica: usize, per_slot: usize) -> usize {
        self.units(replica / per_slot, per_slot) + replica % per_slot / self.engine.parts().replicas_per_unit()
    }

    /// Words of the `totals` buffer per unit.
    pub fn totals_per_unit(&self) -> u32 {
        self.engine.parts().totals_per_unit(self)
    }

    /// Words of state (binding 7) per unit.
    pub fn state_per_unit(&self) -> u32 {
        self.engine.parts().state_per_unit(self)
    }

    /// `vec4<u32>`s of spin data (binding 2) per slot.
    pub fn spin_data_per_slot(&self) -> u32 {
        self.max_spins * self.spin_vecs + self.engine.parts().cell_headers(self)
    }

    /// The most replicas whose largest buffer (totals or states) fits in one binding of `binding_bytes`.
    pub fn max_replicas(&self, binding_bytes: u64) -> usize {
        let per_unit = 4 * self.totals_per_unit().max(self.state_per_unit()) as u64;
        binding_bytes as usize / per_unit as usize * self.engine.parts().replicas_per_unit()
    }

    /// Replica `replica`'s (within its slot) free spins, from its unit's state words.
    pub fn spins_of(&self, state: &[u32], replica: usize, free_spins: &[Spin]) -> Vec<u8> {
        self.engine.parts().spins_of(state, replica, free_spins)
    }

    /// Replica `replica`'s (within its slot) free spins before its first dispatch.
    pub fn initial_spins(&self, puzzle: &Loaded, seed: u64, replica: usize) -> Vec<u8> {
        self.engine.parts().initial_spins(puzzle, seed, replica, self.weights)
    }

    /// Invocations per unit.
    pub fn lanes(&self) -> u32 {
        self.engine.parts().lanes()
    }

    /// The most sweeps one dispatch can run within `budget` loop iterations
    /// per invocation (at least 1), for slots whose colour classes give a
    /// lane `attempts_per_lane` spins or cells a sweep. The counts are upper
    /// bounds of the shaders' loops, so a round split this way is never cut
    /// short; rounds on hardware run as one dispatch.
    pub fn sweeps_per_dispatch(&self, budget: u64, attempts_per_lane: u64) -> u32 {
        let (fixed, per_attempt, other) = self.engine.parts().loop_iterations(self, attempts_per_lane);
        let per_sweep = self.shape.n as u64 + 1 + attempts_per_lane * (per_attempt + 1) + other;
        (budget.saturating_sub(fixed) / per_sweep).clamp(1, u32::MAX as u64) as u32
    }

    /// The bindings the `gather` entry point uses.
    pub fn gather_bindings(&self) -> &'static [Binding] {
        self.engine.parts().gather_bindings()
    }

    /// The kernel's WGSL: its constants, then common.wgsl, then its own file.
    pub fn source(&self) -> String {
        self.wgsl_constants() + include_str!("../../../shaders/common.wgsl") + self.engine.parts().source()
    }

    /// WGSL declarations of the constants the kernel uses but does not define.
    fn wgsl_constants(&self) -> String {
        let mut constants = vec![
            int("CELLS", self.cells),
            int("TOTALS", self.totals),
            int("PADDING", self.totals - 1),
            int("COLOURS", self.shape.n as u32),
            int("MAX_SPINS", self.max_spins),
            int("WIDTH", self.width),
            int("SPIN_VECS", self.spin_vecs),
            int("GATHER_SIZE", GATHER_SIZE),
            int("CLASS_STARTS", CLASS_STARTS as u32),
            int("GOLDEN", GOLDEN),
            format!("const CUT_SHORT: i32 = {CUT_SHORT};"),
        ];
        constants.extend(self.engine.parts().constants(self));
        constants.push(String::new());
        constants.join("\n")
    }
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
    fn lanes(&self) -> u32;
    /// Workgroup memory of one unit, in words.
    fn workgroup_words(&self, kernel: &Kernel) -> u32;
    /// Its own constants' WGSL declarations.
    fn constants(&self, kernel: &Kernel) -> Vec<String>;
    /// Upper bounds of an invocation's loop iterations outside the sweeps,
    /// per spin or cell it updates, and per sweep besides those.
    fn loop_iterations(&self, kernel: &Kernel, attempts_per_lane: u64) -> (u64, u64, u64);
    fn initial_spins(&self, puzzle: &Loaded, seed: u64, replica: usize, weights: Weights) -> Vec<u8>;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::Variant;

    fn fields(shader: &str, name: &str) -> String {
        let body = &shader[shader.find(&format!("struct {name} {{")).unwrap()..];
        body[..body.find('}').unwrap()].to_string()
    }

    /// The WGSL structs have the same fields, and every constant a kernel
    /// uses comes from here: the shaders define none of these, and use
    /// every one.
    #[test]
    fn structs_and_constants_match_the_shaders() {
        let common = include_str!("../../../shaders/common.wgsl");
        assert_eq!(std::mem::size_of::<Params>(), 4 * 5);
        assert_eq!(fields(common, "Params").matches(": u32,").count(), 5);
        assert_eq!(std::mem::size_of::<SlotInfo>(), 4 * (7 + CLASS_STARTS));
        let slot = fields(common, "SlotInfo");
        assert_eq!(slot.matches(": u32,").count(), 6);
        assert!(slot.contains("offset: i32,") && slot.contains("class_start: array<u32, CLASS_STARTS>,"));
        for engine in [Engine::Spins, Engine::Cells, Engine::Bits] {
            let kernel = Kernel::new(
                engine,
                Shape::CLASSIC,
                Weights::Adaptive(crate::dynamics::AdaptiveWeights::DEFAULT),
                16384,
            )
            .unwrap();
            let constants = kernel.wgsl_constants();
            let shader = &kernel.source()[constants.len()..];
            for line in constants.lines().filter(|l| !l.is_empty()) {
                let name = line.split_whitespace().nth(1).unwrap().trim_end_matches(':');
                assert!(shader.contains(name), "{engine:?}: {name} is unused");
                assert!(!shader.contains(&format!("const {name}")), "{engine:?}: {name} is defined twice");
            }
        }
    }

    #[test]
    fn kernels_fit_the_workgroup_memory_they_get() {
        let classic = Kernel::new(Engine::Spins, Shape::CLASSIC, Weights::Fixed, 16384).unwrap();
        assert_eq!((classic.totals, classic.per_group, classic.table_len), (325, 4, 69));
        let big = Kernel::new(Engine::Spins, Shape { n: 25, variant: Variant::X }, Weights::Fixed, 16384).unwrap();
        assert_eq!((big.width, big.spin_vecs, big.per_group), (6, 2, 1));
        assert_eq!(Kernel::new(Engine::Spins, big.shape, Weights::Fixed, 8192), None);
        // A 9×9 word: 325 totals × 4 planes, 192 rows, 32 lanes: 6,196 bytes.
        let bits = Kernel::new(Engine::Bits, Shape::CLASSIC, Weights::Fixed, 16384).unwrap();
        assert_eq!((bits.planes, bits.sum_planes, bits.per_group), (4, 6, 2));
        let sixteen =
            Kernel::new(Engine::Bits, Shape { n: 16, variant: Variant::Standard }, Weights::Fixed, 32768).unwrap();
        assert_eq!((sixteen.planes, sixteen.sum_planes, sixteen.per_group, sixteen.workgroup_totals), (5, 7, 1, true));
        // Where a word's totals do not fit, they stay in global memory; rows and lane tables take 896 bytes a word.
        let global = |shape, bytes| {
            Kernel::new(Engine::Bits, shape, Weights::Fixed, bytes).map(|k| (k.per_group, k.workgroup_totals))
        };
        assert_eq!(global(sixteen.shape, 16384), Some((4, false)));
        assert_eq!(global(Shape { n: 25, variant: Variant::X }, 49152), Some((4, false)));
        assert_eq!(global(Shape::CLASSIC, 1792), Some((2, false)));
        assert_eq!(global(Shape::CLASSIC, 895), None);
    }

    /// A round split by `sweeps_per_dispatch` stays within llvmpipe's budget
    /// by the kernels' loop bounds: Inkala (9 attempts a lane a sweep) 18
    /// sweeps a dispatch on bits.wgsl (cut short past ~240 measured), 2,141
    /// on spins.wgsl (~2,300 measured); an empty 16×16 board one.
    #[test]
    fn rounds_split_within_the_loop_budget() {
        let bits = Kernel::new(Engine::Bits, Shape::CLASSIC, Weights::Fixed, 16384).unwrap();
        assert_eq!(bits.sweeps_per_dispatch(SOFTWARE_LOOP_BUDGET, 9), 18);
        let sixteen =
            Kernel::new(Engine::Bits, Shape { n: 16, variant: Variant::Standard }, Weights::Fixed, 32768).unwrap();
        assert_eq!(sixteen.sweeps_per_dispatch(SOFTWARE_LOOP_BUDGET, 16 * 8), 1);
        let spins = Kernel::new(Engine::Spins, Shape::CLASSIC, Weights::Fixed, 16384).unwrap();
        assert_eq!(spins.sweeps_per_dispatch(SOFTWARE_LOOP_BUDGET, 9), 2_141);
    }
}
