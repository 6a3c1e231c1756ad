//! Data shared with `shaders/sweep.wgsl`, laid out as the shader reads it.

use bytemuck::{Pod, Zeroable};

/// Invocations per workgroup. Keep in sync: `WG` in sweep.wgsl.
pub const WORKGROUP_SIZE: u32 = 64;
/// Words of packed constraint totals per replica (324 one-byte totals).
/// Keep in sync: `TOTAL_WORDS` in sweep.wgsl.
pub const TOTAL_WORDS: u32 = 81;
/// Most spin words a replica can have (729 spins). Keep in sync: `MAX_SPIN_WORDS`.
pub const MAX_SPIN_WORDS: u32 = 23;

/// The shader's uniform. Keep in sync: `struct Params` in sweep.wgsl.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct Params {
    pub replicas: u32,
    pub spins: u32,
    pub spin_words: u32,
    pub table_len: u32,
    pub first_sweep: u32,
    pub sweep_count: u32,
    pub seed_lo: u32,
    pub seed_hi: u32,
}

/// Workgroup memory the shader declares: totals and spins of WORKGROUP_SIZE replicas.
pub const WORKGROUP_BYTES: u32 = (TOTAL_WORDS + MAX_SPIN_WORDS) * WORKGROUP_SIZE * 4;

#[cfg(test)]
mod tests {
    use super::*;

    /// The WGSL struct has 8 u32 fields and the arrays the sizes written there.
    #[test]
    fn params_and_workgroup_arrays_match_the_shader() {
        let shader = include_str!("../../../shaders/sweep.wgsl");
        assert_eq!(std::mem::size_of::<Params>(), 8 * 4);
        let body = &shader[shader.find("struct Params {").unwrap()..];
        let body = &body[..body.find('}').unwrap()];
        assert_eq!(body.matches(": u32,").count(), 8);
        assert!(shader.contains(&format!("const WG: u32 = {WORKGROUP_SIZE}u;")));
        assert!(shader.contains(&format!("@workgroup_size({WORKGROUP_SIZE})")));
        assert!(shader.contains(&format!("const TOTAL_WORDS: u32 = {TOTAL_WORDS}u;")));
        assert!(shader.contains(&format!("const MAX_SPIN_WORDS: u32 = {MAX_SPIN_WORDS}u;")));
        assert!(shader.contains(&format!("array<u32, {}>", TOTAL_WORDS * WORKGROUP_SIZE)));
        assert!(shader.contains(&format!("array<u32, {}>", MAX_SPIN_WORDS * WORKGROUP_SIZE)));
    }
}
