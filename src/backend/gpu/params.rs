//! Data shared with `shaders/sweep.wgsl`, laid out as the shader reads it,
//! and the per-shape constants the shader is compiled with.

use bytemuck::{Pod, Zeroable};

use crate::grid::{Shape, MAX_N};

/// Invocations per replica.
pub const LANES: u32 = 32;
/// Invocations per slot of the `gather` entry point.
pub const GATHER_SIZE: u32 = 64;
/// The most replicas a workgroup holds; fewer when a board's totals do not fit.
const MAX_REPLICAS_PER_GROUP: u32 = 4;

/// The shader's uniform. Keep in sync: `struct Params` in sweep.wgsl.
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

/// One slot's puzzle. Keep in sync: `struct Slot` in sweep.wgsl.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct Slot {
    pub first_sweep: u32,
    pub sweep_count: u32,
    pub seed_lo: u32,
    pub seed_hi: u32,
    pub table_len: u32,
    /// 1 until the first dispatch after a load: the shader then starts the
    /// slot's replicas from the all-zero state instead of reading them.
    pub fresh: u32,
    pub offset: i32,
    /// Free spins of colour c are `class_start[c]..class_start[c + 1]`.
    pub class_start: [u32; CLASS_STARTS],
}

/// The constants the sweep shader is compiled with for one board shape:
/// array sizes, the constraint layout of a spin, replicas per workgroup.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Kernel {
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
    pub replicas_per_group: u32,
}

impl Kernel {
    /// The kernel for `shape` on a device with `workgroup_bytes` of workgroup memory; `None` if one replica does not fit.
    pub fn new(shape: Shape, workgroup_bytes: u32) -> Option<Kernel> {
        let geometry = shape.geometry();
        let width = geometry.spin_width as u32;
        let mut kernel = Kernel {
            shape,
            cells: geometry.cells as u32,
            totals: geometry.constraints as u32 + 1,
            max_spins: shape.spins() as u32,
            width,
            uniform: geometry.uniform,
            spin_vecs: width.div_ceil(4),
            // |local field| ≤ Σ_k |2(t_k − x) − 1| ≤ width · (2n − 1).
            table_len: width * (2 * shape.n as u32 - 1) + 1,
            replicas_per_group: 0,
        };
        kernel.replicas_per_group = (workgroup_bytes / kernel.bytes_per_replica()).min(MAX_REPLICAS_PER_GROUP);
        (kernel.replicas_per_group > 0).then_some(kernel)
    }

    /// Workgroup memory of one replica: its totals, its cell words, its energy.
    fn bytes_per_replica(&self) -> u32 {
        (self.totals + self.cells + 1) * 4
    }

    /// WGSL declarations of the constants `shaders/sweep.wgsl` uses but
    /// does not define; prepended to it.
    pub fn wgsl_constants(&self) -> String {
        let rpg = self.replicas_per_group;
        [
            format!("const CELLS: u32 = {}u;", self.cells),
            format!("const TOTALS: u32 = {}u;", self.totals),
            format!("const PADDING: u32 = {}u;", self.totals - 1),
            format!("const COLOURS: u32 = {}u;", self.shape.n),
            format!("const MAX_SPINS: u32 = {}u;", self.max_spins),
            format!("const WIDTH: u32 = {}u;", self.width),
            format!("const UNIFORM: bool = {};", self.uniform),
            format!("const SPIN_VECS: u32 = {}u;", self.spin_vecs),
            format!("const LANES: u32 = {LANES}u;"),
            format!("const REPLICAS_PER_GROUP: u32 = {rpg}u;"),
            format!("const GROUP_SIZE: u32 = {}u;", LANES * rpg),
            format!("const GROUP_TOTALS: u32 = {}u;", self.totals * rpg),
            format!("const GROUP_CELLS: u32 = {}u;", self.cells * rpg),
            format!("const GATHER_SIZE: u32 = {GATHER_SIZE}u;"),
            String::new(),
        ]
        .join("\n")
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

    /// The WGSL structs have the same fields, and every constant the shader uses comes from here.
    #[test]
    fn structs_and_constants_match_the_shader() {
        let shader = include_str!("../../../shaders/sweep.wgsl");
        assert_eq!(std::mem::size_of::<Params>(), 4 * 5);
        assert_eq!(fields(shader, "Params").matches(": u32,").count(), 5);
        assert_eq!(std::mem::size_of::<Slot>(), 4 * (7 + CLASS_STARTS));
        let slot = fields(shader, "Slot");
        assert_eq!(slot.matches(": u32,").count(), 6);
        assert!(slot.contains("offset: i32,") && slot.contains(&format!("class_start: array<u32, {CLASS_STARTS}>,")));
        let kernel = Kernel::new(Shape::CLASSIC, 16384).unwrap();
        for line in kernel.wgsl_constants().lines().filter(|l| !l.is_empty()) {
            let name = line.split_whitespace().nth(1).unwrap().trim_end_matches(':');
            assert!(shader.contains(name), "{name} is unused");
            assert!(!shader.contains(&format!("const {name}")), "{name} is defined twice");
        }
    }

    #[test]
    fn large_boards_get_fewer_replicas_per_workgroup() {
        let classic = Kernel::new(Shape::CLASSIC, 16384).unwrap();
        assert_eq!((classic.totals, classic.replicas_per_group, classic.table_len), (325, 4, 69));
        let big = Kernel::new(Shape { n: 25, variant: Variant::X }, 16384).unwrap();
        assert_eq!((big.width, big.spin_vecs, big.replicas_per_group), (6, 2, 1));
        assert_eq!(Kernel::new(big.shape, 8192), None);
    }
}
