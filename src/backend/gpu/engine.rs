//! Which shader's host side serves each engine, and what a [`Kernel`]
//! of it needs from there: its sizes, its loop bounds, its WGSL.

use super::bits::BitsKernel;
use super::cells::CellsKernel;
use super::kernel::{
    int, Binding, Engine, EngineParts, Kernel, KernelOptions, Loaded, CLASS_STARTS, CUT_SHORT, GATHER_SIZE,
};
use super::spins::SpinsKernel;
use crate::backend::bitplanes::saturating_sum_planes;
use crate::backend::cpu::bits::total_planes;
use crate::dynamics::{heat_bath_spread, Weights};
use crate::grid::Shape;
use crate::model::Spin;
use crate::rng::GOLDEN;

impl Engine {
    fn parts(self) -> &'static dyn EngineParts {
        match self {
            Engine::Spins => &SpinsKernel,
            Engine::Cells => &CellsKernel,
            Engine::Bits => &BitsKernel,
        }
    }
}

impl Kernel {
    /// The kernel for `shape` on a device with `workgroup_bytes` of
    /// workgroup memory; `None` if one unit does not fit (a word of bits:
    /// not even without its totals).
    pub fn new(engine: Engine, shape: Shape, weights: Weights, workgroup_bytes: u32) -> Option<Kernel> {
        Kernel::with_options(engine, shape, weights, false, None, workgroup_bytes, KernelOptions::default())
    }

    /// [`Kernel::new`] with a variant's `options`, the replicas' grids
    /// completed where `completes`, from at most `keeps` of a hot replica's
    /// kept cells where given (cells.wgsl).
    pub fn with_options(
        engine: Engine,
        shape: Shape,
        weights: Weights,
        completes: bool,
        keeps: Option<u32>,
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
            sum_planes: saturating_sum_planes(geometry.spin_width) as u32,
            workgroup_totals: true,
            per_group: 0,
            weights,
            completes,
            keeps,
            options,
        };
        let parts = engine.parts();
        kernel.per_group = workgroup_bytes / (4 * parts.workgroup_words(&kernel));
        if (kernel.per_group == 0 || options.global_totals) && parts.totals_may_stay_global() {
            kernel.workgroup_totals = false;
            kernel.per_group = workgroup_bytes / (4 * parts.workgroup_words(&kernel));
        }
        kernel.per_group = kernel.per_group.min(options.units_per_group.unwrap_or(parts.most_units_per_group(&kernel)));
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
        self.engine.parts().lanes(self)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::gpu::kernel::{Params, SlotInfo, SOFTWARE_LOOP_BUDGET};
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
        assert_eq!(std::mem::size_of::<SlotInfo>(), 4 * (8 + CLASS_STARTS));
        let slot = fields(common, "SlotInfo");
        assert_eq!(slot.matches(": u32,").count(), 7);
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
        let cells = Kernel::new(Engine::Cells, Shape::CLASSIC, Weights::Fixed, 16384).unwrap();
        assert_eq!((cells.lanes(), cells.per_group), (8, 4), "four replicas a workgroup, though ten would fit");
        // Above 9×9, 16 invocations a replica and four replicas a workgroup where they fit: a 16×16
        // replica takes 5,132 bytes, a 25×25 one 12,512 (three in the 48 KiB of an H200).
        let sixteen_cells = Shape { n: 16, variant: Variant::Standard };
        let cells = Kernel::new(Engine::Cells, sixteen_cells, Weights::Fixed, 49152).unwrap();
        assert_eq!((cells.lanes(), cells.per_group), (16, 4));
        let cells = Kernel::new(Engine::Cells, Shape { n: 25, variant: Variant::Standard }, Weights::Fixed, 49152);
        assert_eq!(cells.map(|k| (k.lanes(), k.per_group)), Some((16, 3)));
        let big = Kernel::new(Engine::Spins, Shape { n: 25, variant: Variant::X }, Weights::Fixed, 16384).unwrap();
        assert_eq!((big.width, big.spin_vecs, big.per_group), (6, 2, 1));
        assert_eq!(Kernel::new(Engine::Spins, big.shape, Weights::Fixed, 8192), None);
        // A 9×9 word: 325 totals × 4 planes, 192 rows, 32 lanes: 6,096 bytes; one word a workgroup.
        let bits = Kernel::new(Engine::Bits, Shape::CLASSIC, Weights::Fixed, 16384).unwrap();
        assert_eq!((bits.planes, bits.sum_planes, bits.per_group, bits.workgroup_totals), (4, 3, 1, true));
        let sixteen =
            Kernel::new(Engine::Bits, Shape { n: 16, variant: Variant::Standard }, Weights::Fixed, 32768).unwrap();
        assert_eq!((sixteen.planes, sixteen.sum_planes, sixteen.per_group, sixteen.workgroup_totals), (5, 3, 1, true));
        // Where a word's totals do not fit, they stay in global memory; rows and lane tables take 896 bytes a word.
        let global = |shape, bytes| {
            Kernel::new(Engine::Bits, shape, Weights::Fixed, bytes).map(|k| (k.per_group, k.workgroup_totals))
        };
        assert_eq!(global(sixteen.shape, 16384), Some((1, false)));
        assert_eq!(global(Shape { n: 25, variant: Variant::X }, 49152), Some((1, false)));
        assert_eq!(global(Shape::CLASSIC, 6096), Some((1, true)));
        assert_eq!(global(Shape::CLASSIC, 6095), Some((1, false)));
        assert_eq!(global(Shape::CLASSIC, 895), None);
    }

    /// A round split by `sweeps_per_dispatch` stays within llvmpipe's budget
    /// by the kernels' loop bounds: Inkala (9 attempts a lane a sweep) 8
    /// sweeps a dispatch on bits.wgsl (cut short past ~240 measured), 2,141
    /// on spins.wgsl (~2,300 measured); an empty 16×16 board one.
    #[test]
    fn rounds_split_within_the_loop_budget() {
        let bits = Kernel::new(Engine::Bits, Shape::CLASSIC, Weights::Fixed, 16384).unwrap();
        assert_eq!(bits.sweeps_per_dispatch(SOFTWARE_LOOP_BUDGET, 9), 8);
        let sixteen =
            Kernel::new(Engine::Bits, Shape { n: 16, variant: Variant::Standard }, Weights::Fixed, 32768).unwrap();
        assert_eq!(sixteen.sweeps_per_dispatch(SOFTWARE_LOOP_BUDGET, 16 * 8), 1);
        let spins = Kernel::new(Engine::Spins, Shape::CLASSIC, Weights::Fixed, 16384).unwrap();
        assert_eq!(spins.sweeps_per_dispatch(SOFTWARE_LOOP_BUDGET, 9), 2_141);
    }
}
