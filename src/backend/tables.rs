//! The model packed the way the sweeps read it: for each free spin, the
//! constraints it lies in. Every CPU engine reads this table; the GPU
//! uploads the same indices (`gpu/batch.rs`).

use crate::model::Model;

/// The constraints of each free spin, in the model's sweep order.
#[derive(Debug, Clone, Default)]
pub struct SpinTable {
    /// `width` per spin: its cell's first, then one per unit; on boards with
    /// diagonals, spins off them end in padding, a constraint index whose
    /// total stays 0 (`padding`).
    pub spin_constraints: Vec<u16>,
    pub width: usize,
    /// Whether every spin lies in `width` constraints (no padding).
    pub uniform: bool,
    pub padding: u16,
    /// Constraint totals of the all-zero state.
    pub fixed_ones: Vec<u8>,
    /// Energy of the all-zero state.
    pub offset: i32,
}

impl SpinTable {
    pub fn new(model: &Model) -> SpinTable {
        let geometry = model.geometry();
        let padding = geometry.constraints as u16;
        let mut spin_constraints = Vec::with_capacity(model.len() * geometry.spin_width);
        for s in &model.spins {
            let first = spin_constraints.len();
            spin_constraints.extend(geometry.constraints_of(s.cell as usize, s.digit as usize).map(|k| k as u16));
            spin_constraints.resize(first + geometry.spin_width, padding);
        }
        SpinTable {
            spin_constraints,
            width: geometry.spin_width,
            uniform: geometry.uniform,
            padding,
            fixed_ones: model.fixed_ones.clone(),
            offset: model.offset,
        }
    }

    /// The number of free spins.
    pub fn spins(&self) -> usize {
        self.spin_constraints.len() / self.width.max(1)
    }

    /// The constraints of each spin, padding included.
    pub fn rows(&self) -> std::slice::ChunksExact<'_, u16> {
        self.spin_constraints.chunks_exact(self.width)
    }
}
