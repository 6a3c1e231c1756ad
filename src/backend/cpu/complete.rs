//! Completion, one replica at a time (`--complete singles` and `sampled`,
//! docs/DESIGN.md §4): the reference arithmetic of the `cpu` backend, the twin of
//! `complete` in `shaders/cells.wgsl`, and what `cpu-lanes`' own
//! (`lanes/complete.rs`) is tested against.
//!
//! A replica's cells outside every house with a violated unit are kept,
//! the others filled by naked and hidden singles until the grid fills, a
//! cell or a house's digit has no place left, or nothing moves. Each single
//! is forced by the kept cells, so every order of placing them fills the
//! same grids with the same digits and fails on the others: here one at a
//! time, cell by cell and house by house; in the shader many at once.

use crate::backend::tables::CellTable;
use crate::grid::Geometry;

/// What completion reads of a puzzle.
#[derive(Debug, Clone)]
pub struct Completion {
    n: usize,
    /// The first unit constraint: house u's digit d is constraint `first_unit + n·u + d`.
    first_unit: usize,
    /// Each free cell's houses.
    cell_houses: Vec<Vec<usize>>,
    /// Each house's free cells.
    house_cells: Vec<Vec<usize>>,
    /// Each house's fixed digits (clues and cells the reduction fixed), one bit each.
    fixed_digits: Vec<u32>,
    /// Each free cell's candidate digits, one bit each.
    cell_digits: Vec<u32>,
}

impl Completion {
    /// On a board where grids are completed (`Dynamics::completes_on`).
    pub fn new(geometry: &Geometry, table: &CellTable) -> Completion {
        let (n, first_unit, houses) = (geometry.n, geometry.cells, geometry.unit_cells.len());
        let fixed_digits = (0..houses)
            .map(|u| (0..n).filter(|&d| table.fixed_ones[first_unit + n * u + d] > 0).fold(0, |m, d| m | 1 << d))
            .collect();
        let cell_houses: Vec<Vec<usize>> =
            table.cells.iter().map(|&c| geometry.cell_units[c as usize].clone()).collect();
        let mut house_cells = vec![Vec::new(); houses];
        for (i, houses_of) in cell_houses.iter().enumerate() {
            for &u in houses_of {
                house_cells[u].push(i);
            }
        }
        let cell_digits =
            (0..table.len()).map(|i| table.candidates(i).fold(0, |m, j| m | 1 << table.digits[j])).collect();
        Completion { n, first_unit, cell_houses, house_cells, fixed_digits, cell_digits }
    }

    /// The candidate of every free cell in the completed grid of a replica
    /// whose cells hold `choice` and constraints `totals`; `None` where it
    /// does not fill. `sample`: at most so many of the kept cells kept
    /// (`--complete sampled`), each subset as likely: the i-th free cell, if
    /// kept, stays where `⌊draws[i] · left / 2¹⁶⌋ < needed`, `left` the kept
    /// cells from it on and `needed` those still to keep.
    pub fn fill(
        &self,
        table: &CellTable,
        choice: &[u8],
        totals: &[u8],
        sample: Option<(usize, &[u16])>,
    ) -> Option<Vec<u8>> {
        let n = self.n;
        let broken: Vec<bool> =
            (0..self.house_cells.len()).map(|u| (0..n).any(|d| totals[self.first_unit + n * u + d] != 1)).collect();
        // Each house's digits placed or fixed; each free cell's digit bit, 0 while open.
        let mut held = self.fixed_digits.clone();
        let mut placed = vec![0u32; choice.len()];
        let mut kept: Vec<usize> =
            (0..choice.len()).filter(|&i| self.cell_houses[i].iter().all(|&u| !broken[u])).collect();
        if let Some((keeps, draws)) = sample {
            let mut needed = keeps.min(kept.len());
            let mut left = kept.len();
            kept.retain(|&i| {
                let keep = (draws[i] as usize * left) >> 16 < needed;
                needed -= keep as usize;
                left -= 1;
                keep
            });
        }
        for i in kept {
            // A house whose units all hold has each digit once: kept cells never clash.
            placed[i] = 1 << table.digits[table.candidates(i).start + choice[i] as usize];
            self.cell_houses[i].iter().for_each(|&u| held[u] |= placed[i]);
        }
        let open_digits = |i: usize, held: &[u32]| {
            self.cell_houses[i].iter().fold(self.cell_digits[i], |digits, &u| digits & !held[u])
        };
        loop {
            let mut progress = false;
            // Naked singles: an open cell's digits that no house of it holds.
            for (i, houses_of) in self.cell_houses.iter().enumerate() {
                if placed[i] == 0 {
                    let digits = open_digits(i, &held);
                    match digits.count_ones() {
                        0 => return None,
                        1 => {
                            placed[i] = digits;
                            houses_of.iter().for_each(|&u| held[u] |= digits);
                            progress = true;
                        }
                        _ => {}
                    }
                }
            }
            // Hidden singles: a digit missing from a house with one open place.
            for (u, cells) in self.house_cells.iter().enumerate() {
                for bit in (0..n).map(|d| 1u32 << d) {
                    if held[u] & bit != 0 {
                        continue;
                    }
                    let mut places = cells.iter().filter(|&&i| placed[i] == 0 && open_digits(i, &held) & bit != 0);
                    match (places.next(), places.next()) {
                        (None, _) => return None,
                        (Some(&i), None) => {
                            placed[i] = bit;
                            self.cell_houses[i].iter().for_each(|&u| held[u] |= bit);
                            progress = true;
                        }
                        _ => {}
                    }
                }
            }
            if !placed.contains(&0) {
                let candidate_of = |i: usize| {
                    let digit = placed[i].trailing_zeros() as u8;
                    table.candidates(i).position(|j| table.digits[j] == digit).expect("placed among its candidates")
                };
                return Some((0..placed.len()).map(|i| candidate_of(i) as u8).collect());
            }
            if !progress {
                return None;
            }
        }
    }
}
