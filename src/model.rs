//! Stage 2b, model build: the QUBO of docs/DESIGN.md §1 over the free spins.
//!
//! ```text
//!   E(x) = Σ_k (1 − a_k − Σ_{i∈k, free} x_i)²      a_k = fixed ones in constraint k
//!        = offset + Σ_i h_i x_i + Σ_{i<j} J_ij x_i x_j
//!   offset = Σ_k (1 − a_k)²      h_i = Σ_{k∋i} (2a_k − 1)      J_ij = 2·|{k ∋ i, j}|
//! ```
//!
//! Free spins are numbered in sweep order: grouped by colour class
//! (docs/DESIGN.md §2), then by canonical index `n·cell + digit`:
//!
//! ```text
//!   free index: 0 ........ class_start[1] ........ class_start[2] ... len
//!               |  colour 0 spins  |  colour 1 spins  | ... | colour n-1 |
//! ```
//!
//! Couplings are stored twice (i→j and j→i) in CSR form, built on first
//! use (export, checks): the solver never needs them. The kernels use
//! the equivalent constraint form instead: with `t_k` the ones in constraint
//! k (fixed and free), `E = Σ_k (1 − t_k)²` and the local field is
//! `h_i + Σ_j J_ij x_j = Σ_{k∋i} (2(t_k − x_i) − 1)`, so an attempt reads 4
//! totals and a flip writes 4 (9×9), where the neighbour lists need 28 writes.

use std::sync::OnceLock;

use crate::error::PuzzleError;
use crate::grid::{symbol, Geometry, Grid};
use crate::reduce::{reduce_before_annealing, Candidates, Reduce};

/// One free spin: "cell holds digit + 1".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Spin {
    pub cell: u16,
    /// 0..n
    pub digit: u16,
}

impl Spin {
    /// Its index among all n³ spins of an n×n board: `n·cell + digit`.
    pub fn canonical(&self, n: usize) -> usize {
        n * self.cell as usize + self.digit as usize
    }
}

#[derive(Debug, Clone)]
pub struct Model {
    /// Cells whose digit is known (clues, and cells pinned by propagation); its shape is the model's.
    pub fixed: Grid,
    /// Free spins in sweep order.
    pub spins: Vec<Spin>,
    /// Class `k` (of n) is `spins[class_start[k]..class_start[k + 1]]`.
    pub class_start: Vec<u32>,
    /// J_ij, built by [`Model::neighbours_of`] when first asked for.
    couplings: OnceLock<Couplings>,
    /// Each free spin's h_i, and the largest |local field| any state can
    /// produce: worked out by [`Model::field`] when first asked for (cell
    /// moves never ask, and on an easy collection working them out for
    /// every puzzle cost some 3 % of the run).
    fields: OnceLock<(Vec<i32>, i32)>,
    /// Energy of the all-zero free state; 0 on a solution.
    pub offset: i32,
    /// Fixed ones in each constraint (`a_k`): the constraint totals of the all-zero state.
    pub fixed_ones: Vec<u8>,
}

impl Model {
    /// The model the anneal runs for `puzzle` under `mode` (what `export`
    /// and the Python module write): for [`Reduce::Probe`] the briefly
    /// probed one, since probing in full waits until the anneal has had a
    /// go, unless many spins are free after singles (`reduce_before_annealing`).
    /// Backends whose first round reaches the full probing, `gpu` and
    /// `cpu-bits` at their defaults, anneal the one probed in full.
    pub fn of_puzzle(puzzle: &Grid, mode: Reduce) -> Result<Model, PuzzleError> {
        Model::build(&reduce_before_annealing(puzzle, mode, false)?.0)
    }

    /// Builds the model of a reduced puzzle. Fails when a constraint can
    /// never be met (no free spin and no fixed one), which proves the puzzle
    /// has no solution.
    pub fn build(candidates: &Candidates) -> Result<Model, PuzzleError> {
        let fixed = candidates.fixed.clone();
        let geometry = fixed.geometry();
        let (n, cells) = (geometry.n, geometry.cells);
        // In canonical order; a counting sort by colour keeps that order within each class.
        let mut class_start = vec![0u32; n + 1];
        let mut canonical = Vec::with_capacity(candidates.masks.iter().map(|m| m.count_ones() as usize).sum());
        for (cell, &mask) in candidates.masks.iter().enumerate().filter(|&(c, _)| fixed.cells[c] == 0) {
            // The set bits of the mask, lowest first.
            let mut rest = mask;
            while rest != 0 {
                let digit = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                let colour = geometry.colour_of(cell, digit);
                class_start[colour + 1] += 1;
                canonical.push((Spin { cell: cell as u16, digit: digit as u16 }, colour));
            }
        }
        for k in 0..n {
            class_start[k + 1] += class_start[k];
        }
        let mut next = class_start.clone();
        let mut spins = vec![Spin { cell: 0, digit: 0 }; canonical.len()];
        for &(spin, colour) in &canonical {
            spins[next[colour] as usize] = spin;
            next[colour] += 1;
        }

        let mut fixed_ones = vec![0i32; geometry.constraints];
        for cell in (0..cells).filter(|&c| fixed.cells[c] != 0) {
            for k in geometry.constraints_of(cell, fixed.cells[cell] as usize - 1) {
                fixed_ones[k] += 1;
            }
        }
        let free_members = free_members(geometry, &spins);
        if let Some(k) = (cells..geometry.constraints).find(|&k| fixed_ones[k] == 0 && free_members[k] == 0) {
            let (unit, digit) = ((k - cells) / n, (k - cells) % n);
            let place = geometry.unit_name(unit);
            return Err(PuzzleError::NoSolution(format!("digit {} has no place in {place}", symbol(digit + 1))));
        }
        let offset = fixed_ones.iter().map(|&a| (1 - a) * (1 - a)).sum();
        let fixed_ones = fixed_ones.iter().map(|&a| a as u8).collect();
        Ok(Model { fixed, spins, class_start, couplings: OnceLock::new(), fields: OnceLock::new(), offset, fixed_ones })
    }

    /// h_i of each free spin: Σ over its constraints of 2 a_k − 1.
    pub fn field(&self) -> &[i32] {
        &self.fields().0
    }

    /// The linear coefficients and the field bound, worked out together:
    /// |h_i| + Σ_j J_ij, where J_ij sums 2 per constraint shared with a free j.
    fn fields(&self) -> &(Vec<i32>, i32) {
        self.fields.get_or_init(|| {
            let geometry = self.geometry();
            let free_members = free_members(geometry, &self.spins);
            let mut field = Vec::with_capacity(self.spins.len());
            let mut max_abs_field = 0;
            for s in &self.spins {
                let (mut h, mut partners) = (0, 0);
                for k in geometry.constraints_of(s.cell as usize, s.digit as usize) {
                    h += 2 * self.fixed_ones[k] as i32 - 1;
                    partners += free_members[k] as i32 - 1;
                }
                field.push(h);
                max_abs_field = max_abs_field.max(h.abs() + 2 * partners);
            }
            (field, max_abs_field)
        })
    }

    pub fn geometry(&self) -> &'static Geometry {
        self.fixed.geometry()
    }

    pub fn len(&self) -> usize {
        self.spins.len()
    }

    pub fn is_empty(&self) -> bool {
        self.spins.is_empty()
    }

    /// Neighbours of spin `i` with their couplings (the coupling lists are built on the first call).
    pub fn neighbours_of(&self, i: usize) -> impl Iterator<Item = (usize, i32)> + '_ {
        let couplings = self.couplings.get_or_init(|| Couplings::build(self));
        let range = couplings.start[i] as usize..couplings.start[i + 1] as usize;
        couplings.neighbours[range.clone()].iter().map(|&j| j as usize).zip(couplings.values[range].iter().copied())
    }

    /// `h_i + Σ_j J_ij x_j`: the energy change of setting spin `i` from 0 to 1.
    pub fn local_field(&self, x: &[u8], i: usize) -> i32 {
        self.field()[i] + self.neighbours_of(i).map(|(j, coupling)| coupling * x[j] as i32).sum::<i32>()
    }

    /// ΔE of flipping spin `i` of state `x`.
    pub fn flip_delta(&self, x: &[u8], i: usize) -> i32 {
        (1 - 2 * x[i] as i32) * self.local_field(x, i)
    }

    /// Energy of a free-spin state (`x[i]` ∈ {0, 1}).
    pub fn energy(&self, x: &[u8]) -> i32 {
        let (field, mut linear, mut pairs) = (self.field(), 0, 0);
        for i in (0..self.len()).filter(|&i| x[i] == 1) {
            linear += field[i];
            pairs += self.neighbours_of(i).map(|(j, coupling)| coupling * x[j] as i32).sum::<i32>();
        }
        self.offset + linear + pairs / 2
    }

    /// The largest |local field| any state can produce, max_i |h_i| + Σ_j |J_ij|; ΔE lies within ±this.
    pub fn max_abs_field(&self) -> i32 {
        self.fields().1
    }

    /// The full assignment of all n³ spins (index `n·cell + digit`) of a free-spin state.
    pub fn full_assignment(&self, x: &[u8]) -> Vec<u8> {
        let shape = self.fixed.shape;
        let mut full = vec![0u8; shape.spins()];
        for (cell, &value) in self.fixed.cells.iter().enumerate().filter(|(_, &v)| v != 0) {
            full[shape.n * cell + value as usize - 1] = 1;
        }
        for (i, s) in self.spins.iter().enumerate() {
            full[s.canonical(shape.n)] = x[i];
        }
        full
    }

    /// The free-spin state that encodes a complete grid agreeing with the fixed cells.
    pub fn encode(&self, grid: &Grid) -> Vec<u8> {
        self.spins.iter().map(|s| u8::from(grid.cells[s.cell as usize] as u16 == s.digit + 1)).collect()
    }
}

/// How many of `spins` lie in each constraint.
fn free_members(geometry: &Geometry, spins: &[Spin]) -> Vec<u32> {
    let mut members = vec![0u32; geometry.constraints];
    for s in spins {
        for k in geometry.constraints_of(s.cell as usize, s.digit as usize) {
            members[k] += 1;
        }
    }
    members
}

/// J_ij in CSR form: the neighbours of spin `i` are `neighbours[start[i]..start[i + 1]]`.
#[derive(Debug, Clone)]
struct Couplings {
    start: Vec<u32>,
    neighbours: Vec<u32>,
    values: Vec<i32>,
}

impl Couplings {
    fn build(model: &Model) -> Couplings {
        let geometry = model.geometry();
        let n = geometry.n;
        let mut free_index = vec![u32::MAX; geometry.shape.spins()];
        for (i, s) in model.spins.iter().enumerate() {
            free_index[s.canonical(n)] = i as u32;
        }
        let mut start = Vec::with_capacity(model.len() + 1);
        let mut neighbours = Vec::new();
        let mut values = Vec::new();
        start.push(0);
        // J_ij accumulated 2 per shared constraint; `touched` lists the j with J_ij > 0.
        let mut coupling_to = vec![0i32; model.len()];
        let mut touched: Vec<u32> = Vec::new();
        for s in &model.spins {
            let (cell, digit) = (s.cell as usize, s.digit as usize);
            let mut couple = |other: usize| {
                let j = free_index[other];
                if j != u32::MAX {
                    if coupling_to[j as usize] == 0 {
                        touched.push(j);
                    }
                    coupling_to[j as usize] += 2;
                }
            };
            // Plain loops: as iterator chains this was the build's hottest part.
            for other_digit in 0..n {
                if other_digit != digit {
                    couple(n * cell + other_digit);
                }
            }
            for &unit in &geometry.cell_units[cell] {
                for &member in &geometry.unit_cells[unit] {
                    if member != cell {
                        couple(n * member + digit);
                    }
                }
            }
            touched.sort_unstable();
            for j in touched.drain(..) {
                neighbours.push(j);
                values.push(std::mem::take(&mut coupling_to[j as usize]));
            }
            start.push(neighbours.len() as u32);
        }
        Couplings { start, neighbours, values }
    }
}
