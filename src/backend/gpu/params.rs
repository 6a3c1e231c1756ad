//! Data shared with `shaders/sweep.wgsl`, laid out as the shader reads it.

use bytemuck::{Pod, Zeroable};

use crate::grid::{CELLS, CONSTRAINTS, SPINS};
use crate::model::COLOURS;

/// Invocations per replica. Keep in sync: `LANES` in sweep.wgsl.
pub const LANES: u32 = 32;
/// Replicas per workgroup. Keep in sync: `REPLICAS_PER_GROUP` in sweep.wgsl.
pub const REPLICAS_PER_GROUP: u32 = 4;
/// Workgroup memory the shader declares: totals, cell words and an energy per replica.
pub const WORKGROUP_BYTES: u32 = REPLICAS_PER_GROUP * (CONSTRAINTS as u32 + CELLS as u32 + 1) * 4;
/// Threshold words reserved per rung (a row holds ΔE/2 = 0..table_len).
pub const MAX_TABLE: usize = 64;
/// Spin-data entries reserved per slot. Keep in sync: `MAX_SPINS` in sweep.wgsl.
pub const MAX_SPINS: usize = SPINS;

/// The shader's uniform. Keep in sync: `struct Params` in sweep.wgsl.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct Params {
    pub replicas: u32,
    pub replicas_per_slot: u32,
    /// The most sweeps any slot runs in this dispatch.
    pub sweep_count: u32,
    /// Threshold words per slot: rungs × MAX_TABLE.
    pub threshold_stride: u32,
}

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
    /// Free spins of colour c are `class_start[c]..class_start[c + 1]`; padded to 12.
    pub class_start: [u32; 12],
}

const _: () = assert!(COLOURS < 12);

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(shader: &str, name: &str) -> String {
        let body = &shader[shader.find(&format!("struct {name} {{")).unwrap()..];
        body[..body.find('}').unwrap()].to_string()
    }

    /// The WGSL structs have the same fields, and its constants the values here.
    #[test]
    fn structs_and_constants_match_the_shader() {
        let shader = include_str!("../../../shaders/sweep.wgsl");
        assert_eq!(std::mem::size_of::<Params>(), 4 * 4);
        assert_eq!(fields(shader, "Params").matches(": u32,").count(), 4);
        assert_eq!(std::mem::size_of::<Slot>(), 76);
        let slot = fields(shader, "Slot");
        assert_eq!(slot.matches(": u32,").count(), 6);
        assert!(slot.contains("offset: i32,") && slot.contains("class_start: array<u32, 12>,"));
        assert!(shader.contains(&format!("const LANES: u32 = {LANES}u;")));
        assert!(shader.contains(&format!("const REPLICAS_PER_GROUP: u32 = {REPLICAS_PER_GROUP}u;")));
        assert!(shader.contains(&format!("@workgroup_size({})", LANES * REPLICAS_PER_GROUP)));
        assert!(shader.contains(&format!("const CONSTRAINTS: u32 = {CONSTRAINTS}u;")));
        assert!(shader.contains(&format!("const CELLS: u32 = {CELLS}u;")));
        assert!(shader.contains(&format!("const MAX_SPINS: u32 = {MAX_SPINS}u;")));
        assert!(shader.contains(&format!("array<u32, {}>", REPLICAS_PER_GROUP as usize * CONSTRAINTS)));
        assert!(shader.contains(&format!("array<u32, {}>", REPLICAS_PER_GROUP as usize * CELLS)));
        assert!(shader.contains(&format!("array<atomic<i32>, {REPLICAS_PER_GROUP}>")));
    }
}
