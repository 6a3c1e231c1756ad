//! Data shared with the sweep kernels (`shaders/common.wgsl`, `sweep.wgsl`,
//! `bits.wgsl`), laid out as they read it, and the per-shape constants
//! each is compiled with.

use bytemuck::{Pod, Zeroable};

use crate::backend::bits32::{sum_planes, total_planes, WORD};
use crate::grid::{Shape, MAX_N};

/// Which sweep kernel runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Engine {
    /// `sweep.wgsl`: an int per constraint total, LANES invocations per replica (twin: the cpu backend).
    Scalar,
    /// `bits.wgsl`: 32 replicas per u32 word, an invocation per lane (twin: bits32).
    Bits,
}

/// Invocations per replica of the scalar kernel.
pub const LANES: u32 = 32;
/// Invocations per slot of the `gather` entry point.
pub const GATHER_SIZE: u32 = 64;
/// The most replicas (scalar) or words (bits) a workgroup holds; fewer when a board's totals do not fit.
const MAX_UNITS_PER_GROUP: u32 = 4;
/// Words of bits.wgsl's threshold rows: 2 smallest uphill ΔE × 32 rounds × 3 ΔE classes.
const ROWS: u32 = 192;
/// Loop iterations an invocation may run on llvmpipe (Mesa's software
/// Vulkan driver, lavapipe), which ends every loop of an invocation once
/// this many have run in it (gallivm's `LP_MAX_TGSI_LOOP_ITERATIONS`).
pub const SOFTWARE_LOOP_BUDGET: u64 = 65_535;

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
    /// Threshold words per slot: rungs × the kernel's `table_len`.
    pub threshold_stride: u32,
}

/// Entries of `Slot::class_start`: one more than the most colours, padded.
const CLASS_STARTS: usize = 28;
const _: () = assert!(MAX_N < CLASS_STARTS);

/// One slot's puzzle. Keep in sync: `struct Slot` in common.wgsl.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct Slot {
    pub first_sweep: u32,
    pub sweep_count: u32,
    pub seed_lo: u32,
    pub seed_hi: u32,
    pub table_len: u32,
    /// 1 until the first dispatch after a load: the kernel then starts the
    /// slot's replicas from its initial state instead of reading them.
    pub fresh: u32,
    pub offset: i32,
    /// Free spins of colour c are `class_start[c]..class_start[c + 1]`.
    pub class_start: [u32; CLASS_STARTS],
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
    /// Whether a unit's totals live in workgroup memory. Always for the
    /// scalar kernel; bits.wgsl keeps a word's totals in place in global
    /// memory when they do not fit (25×25 boards).
    pub workgroup_totals: bool,
    /// Replicas (scalar) or words (bits) per workgroup.
    pub per_group: u32,
}

impl Kernel {
    /// The kernel for `shape` on a device with `workgroup_bytes` of
    /// workgroup memory; `None` if one unit does not fit (a word of bits:
    /// not even without its totals).
    pub fn new(engine: Engine, shape: Shape, workgroup_bytes: u32) -> Option<Kernel> {
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
            // |local field| ≤ Σ_k |2(t_k − x) − 1| ≤ width · (2n − 1).
            table_len: width * (2 * shape.n as u32 - 1) + 1,
            planes: total_planes(shape.n) as u32,
            sum_planes: sum_planes(geometry.spin_width, shape.n) as u32,
            workgroup_totals: true,
            per_group: 0,
        };
        kernel.per_group = workgroup_bytes / kernel.workgroup_bytes_per_unit();
        if kernel.per_group == 0 && engine == Engine::Bits {
            kernel.workgroup_totals = false;
            kernel.per_group = workgroup_bytes / kernel.workgroup_bytes_per_unit();
        }
        kernel.per_group = kernel.per_group.min(MAX_UNITS_PER_GROUP);
        (kernel.per_group > 0).then_some(kernel)
    }

    /// Workgroup memory of one unit. Scalar: a replica's totals, cell
    /// words and energy; bits: a word's total planes (if there), threshold
    /// rows and lane tables.
    fn workgroup_bytes_per_unit(&self) -> u32 {
        match self.engine {
            Engine::Scalar => (self.totals + self.cells + 1) * 4,
            Engine::Bits => (self.workgroup_total_words() + ROWS + WORD as u32) * 4,
        }
    }

    /// Words of a bits.wgsl word's totals in workgroup memory.
    fn workgroup_total_words(&self) -> u32 {
        if self.workgroup_totals {
            self.totals * self.planes
        } else {
            0
        }
    }

    /// Units (replicas or words) of a batch of `slots` slots of `per_slot` replicas.
    pub fn units(&self, slots: usize, per_slot: usize) -> usize {
        slots
            * match self.engine {
                Engine::Scalar => per_slot,
                Engine::Bits => per_slot.div_ceil(WORD),
            }
    }

    /// Words of the `totals` buffer per unit.
    pub fn totals_per_unit(&self) -> u32 {
        match self.engine {
            Engine::Scalar => self.totals,
            Engine::Bits => self.totals * self.planes,
        }
    }

    /// Words of state (binding 7) per unit: a replica's cell words, or a word's spins.
    pub fn state_per_unit(&self) -> u32 {
        match self.engine {
            Engine::Scalar => self.cells,
            Engine::Bits => self.max_spins,
        }
    }

    /// The most replicas whose largest buffer (totals or states) fits in one binding of `binding_bytes`.
    pub fn max_replicas(&self, binding_bytes: u64) -> usize {
        let per_unit = 4 * self.totals_per_unit().max(self.state_per_unit()) as u64;
        let replicas_per_unit = match self.engine {
            Engine::Scalar => 1,
            Engine::Bits => WORD as u64,
        };
        (binding_bytes / per_unit * replicas_per_unit) as usize
    }

    /// The most sweeps one dispatch can run within `budget` loop iterations
    /// per invocation (at least 1), for slots whose colour classes give a
    /// lane `attempts_per_lane` attempts a sweep (Σ_c ⌈class_c / 32⌉: both
    /// kernels run 32 invocations per replica or word). The counts are
    /// upper bounds of the shaders' loops, so a round split this way is never
    /// cut short; rounds on hardware run as one dispatch.
    pub fn sweeps_per_dispatch(&self, budget: u64, attempts_per_lane: u64) -> u32 {
        let (colours, lanes) = (self.shape.n as u64, 32);
        let (totals, cells) = (self.totals as u64, self.cells as u64);
        let (width, planes, sums) = (self.width as u64, self.planes as u64, self.sum_planes as u64);
        let (fixed, per_attempt) = match self.engine {
            // Load and store a replica's totals and cells.
            Engine::Scalar => (2 * (totals + cells).div_ceil(lanes) + 4, 1),
            Engine::Bits => {
                let load_and_store = 2 * (totals * planes).div_ceil(lanes);
                let rows = 2 * 3 * (lanes + 1);
                let initial_state = colours + attempts_per_lane * (1 + width * (1 + planes));
                let energy = (totals - 1) * (1 + planes);
                // Sums, comparisons, 32 rounds at most, 32 thinned lanes at most, counts.
                let attempt = width * (1 + sums) + 6 * (1 + sums) + 32 + 32 * (1 + sums) + width * (1 + planes);
                (load_and_store + rows + initial_state + energy + 4, attempt)
            }
        };
        let per_sweep = colours + 1 + attempts_per_lane * (per_attempt + 1);
        (budget.saturating_sub(fixed) / per_sweep).clamp(1, u32::MAX as u64) as u32
    }

    /// The bindings the `gather` entry point uses.
    pub fn gather_bindings(&self) -> &'static [u32] {
        match self.engine {
            Engine::Scalar => &[0, 7, 8, 9],
            Engine::Bits => &[0, 1, 2, 7, 8, 9],
        }
    }

    /// The kernel's WGSL: its constants, then common.wgsl, then its own file.
    pub fn source(&self) -> String {
        let own = match self.engine {
            Engine::Scalar => include_str!("../../../shaders/sweep.wgsl"),
            Engine::Bits => include_str!("../../../shaders/bits.wgsl"),
        };
        self.wgsl_constants() + include_str!("../../../shaders/common.wgsl") + own
    }

    /// WGSL declarations of the constants the kernel uses but does not define.
    fn wgsl_constants(&self) -> String {
        let per_group = self.per_group;
        let mut constants = vec![
            format!("const CELLS: u32 = {}u;", self.cells),
            format!("const TOTALS: u32 = {}u;", self.totals),
            format!("const PADDING: u32 = {}u;", self.totals - 1),
            format!("const COLOURS: u32 = {}u;", self.shape.n),
            format!("const MAX_SPINS: u32 = {}u;", self.max_spins),
            format!("const WIDTH: u32 = {}u;", self.width),
            format!("const SPIN_VECS: u32 = {}u;", self.spin_vecs),
            format!("const GATHER_SIZE: u32 = {GATHER_SIZE}u;"),
        ];
        constants.extend(match self.engine {
            Engine::Scalar => vec![
                format!("const UNIFORM: bool = {};", self.uniform),
                format!("const LANES: u32 = {LANES}u;"),
                format!("const REPLICAS_PER_GROUP: u32 = {per_group}u;"),
                format!("const GROUP_SIZE: u32 = {}u;", LANES * per_group),
                format!("const GROUP_TOTALS: u32 = {}u;", self.totals * per_group),
                format!("const GROUP_CELLS: u32 = {}u;", self.cells * per_group),
            ],
            Engine::Bits => vec![
                format!("const PLANES: u32 = {}u;", self.planes),
                format!("const SUM_PLANES: u32 = {}u;", self.sum_planes),
                format!("const WORDS_PER_GROUP: u32 = {per_group}u;"),
                format!("const GROUP_SIZE: u32 = {}u;", WORD as u32 * per_group),
                format!("const WORKGROUP_TOTALS: bool = {};", self.workgroup_totals),
                // A WGSL array has at least one element.
                format!("const GROUP_TOTALS: u32 = {}u;", (self.workgroup_total_words() * per_group).max(1)),
                format!("const GROUP_ROWS: u32 = {}u;", ROWS * per_group),
                format!("const GROUP_LANES: u32 = {}u;", WORD as u32 * per_group),
            ],
        });
        constants.push(String::new());
        constants.join("\n")
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

    /// The WGSL structs have the same fields, and every constant a kernel uses comes from here.
    #[test]
    fn structs_and_constants_match_the_shaders() {
        let common = include_str!("../../../shaders/common.wgsl");
        assert_eq!(std::mem::size_of::<Params>(), 4 * 5);
        assert_eq!(fields(common, "Params").matches(": u32,").count(), 5);
        assert_eq!(std::mem::size_of::<Slot>(), 4 * (7 + CLASS_STARTS));
        let slot = fields(common, "Slot");
        assert_eq!(slot.matches(": u32,").count(), 6);
        assert!(slot.contains("offset: i32,") && slot.contains(&format!("class_start: array<u32, {CLASS_STARTS}>,")));
        for engine in [Engine::Scalar, Engine::Bits] {
            let kernel = Kernel::new(engine, Shape::CLASSIC, 16384).unwrap();
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
        let classic = Kernel::new(Engine::Scalar, Shape::CLASSIC, 16384).unwrap();
        assert_eq!((classic.totals, classic.per_group, classic.table_len), (325, 4, 69));
        let big = Kernel::new(Engine::Scalar, Shape { n: 25, variant: Variant::X }, 16384).unwrap();
        assert_eq!((big.width, big.spin_vecs, big.per_group), (6, 2, 1));
        assert_eq!(Kernel::new(Engine::Scalar, big.shape, 8192), None);
        // A 9×9 word: 325 totals × 4 planes, 192 rows, 32 lanes: 6,196 bytes.
        let bits = Kernel::new(Engine::Bits, Shape::CLASSIC, 16384).unwrap();
        assert_eq!((bits.planes, bits.sum_planes, bits.per_group), (4, 6, 2));
        let sixteen = Kernel::new(Engine::Bits, Shape { n: 16, variant: Variant::Standard }, 32768).unwrap();
        assert_eq!((sixteen.planes, sixteen.sum_planes, sixteen.per_group, sixteen.workgroup_totals), (5, 7, 1, true));
        // Where a word's totals do not fit, they stay in global memory; rows and lane tables take 896 bytes a word.
        let global = |shape, bytes| Kernel::new(Engine::Bits, shape, bytes).map(|k| (k.per_group, k.workgroup_totals));
        assert_eq!(global(sixteen.shape, 16384), Some((4, false)));
        assert_eq!(global(Shape { n: 25, variant: Variant::X }, 49152), Some((4, false)));
        assert_eq!(global(Shape::CLASSIC, 1792), Some((2, false)));
        assert_eq!(global(Shape::CLASSIC, 895), None);
    }
}
