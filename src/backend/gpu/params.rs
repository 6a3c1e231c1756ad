//! Data shared with `shaders/sweep.wgsl`, laid out as the shader reads it.

use bytemuck::{Pod, Zeroable};

use crate::grid::{CELLS, CONSTRAINTS};

/// Invocations per replica. Keep in sync: `LANES` in sweep.wgsl.
pub const LANES: u32 = 32;
/// Replicas per workgroup. Keep in sync: `REPLICAS_PER_GROUP` in sweep.wgsl.
pub const REPLICAS_PER_GROUP: u32 = 4;
/// Workgroup memory the shader declares: totals, cell words and an energy per replica.
pub const WORKGROUP_BYTES: u32 = REPLICAS_PER_GROUP * (CONSTRAINTS as u32 + CELLS as u32 + 1) * 4;

/// The shader's uniform. Keep in sync: `struct Params` in sweep.wgsl.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct Params {
    pub replicas: u32,
    pub spins: u32,
    pub table_len: u32,
    pub first_sweep: u32,
    pub sweep_count: u32,
    pub seed_lo: u32,
    pub seed_hi: u32,
    pub padding: u32,
    /// `class_start[c / 4][c % 4]`: the model's 10 class boundaries, padded to 12.
    pub class_start: [[u32; 4]; 3],
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The WGSL struct has the same fields, and its constants the values here.
    #[test]
    fn params_and_workgroup_arrays_match_the_shader() {
        let shader = include_str!("../../../shaders/sweep.wgsl");
        assert_eq!(std::mem::size_of::<Params>(), 8 * 4 + 3 * 16);
        let body = &shader[shader.find("struct Params {").unwrap()..];
        let body = &body[..body.find('}').unwrap()];
        assert_eq!(body.matches(": u32,").count(), 8);
        assert!(body.contains("class_start: array<vec4<u32>, 3>,"));
        assert!(shader.contains(&format!("const LANES: u32 = {LANES}u;")));
        assert!(shader.contains(&format!("const REPLICAS_PER_GROUP: u32 = {REPLICAS_PER_GROUP}u;")));
        assert!(shader.contains(&format!("@workgroup_size({})", LANES * REPLICAS_PER_GROUP)));
        assert!(shader.contains(&format!("const CONSTRAINTS: u32 = {CONSTRAINTS}u;")));
        assert!(shader.contains(&format!("const CELLS: u32 = {CELLS}u;")));
        assert!(shader.contains(&format!("array<u32, {}>", REPLICAS_PER_GROUP as usize * CONSTRAINTS)));
        assert!(shader.contains(&format!("array<u32, {}>", REPLICAS_PER_GROUP as usize * CELLS)));
        assert!(shader.contains(&format!("array<atomic<i32>, {REPLICAS_PER_GROUP}>")));
    }
}
