//! Stage 2a, pre-reduction: which spins stay free before the model is built.
//!
//! `None` keeps every digit of every empty cell; `Clues` removes digits
//! that a clue peer already holds; `Propagate` then also applies naked and
//! hidden singles until nothing changes. Reduction only removes spins (a
//! cell it pins down becomes fixed like a clue); the search is the
//! annealer's. A contradiction found on the way proves there is no solution.

use crate::error::PuzzleError;
use crate::grid::{symbol, Geometry, Grid};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Reduce {
    /// Clamp the clues, keep every digit of every empty cell free.
    None,
    /// Also remove digits a clue peer holds.
    Clues,
    /// Also apply naked and hidden singles until fixpoint: no cost on the
    /// hardest puzzles (no single applies), a fraction of the work on easier
    /// ones (BENCHMARKS.md).
    #[default]
    Propagate,
}

/// What reduction leaves: fixed cells, and candidate digits of the rest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidates {
    /// Digit 1..=n of each fixed cell (clue or pinned down), 0 if free.
    pub fixed: Grid,
    /// Bit `d` set: digit `d + 1` is still possible in a free cell.
    pub masks: Vec<u32>,
}

impl Candidates {
    pub fn is_possible(&self, cell: usize, digit: usize) -> bool {
        self.masks[cell] >> digit & 1 == 1
    }
}

/// Fails when a digit appears twice in a unit, naming both cells.
pub fn check_clues(grid: &Grid) -> Result<(), PuzzleError> {
    let geometry = grid.geometry();
    for (unit, cells) in geometry.unit_cells.iter().enumerate() {
        let mut seen = vec![usize::MAX; geometry.n + 1];
        for &cell in cells {
            let digit = grid.cells[cell] as usize;
            if digit == 0 {
                continue;
            }
            if seen[digit] != usize::MAX {
                return Err(PuzzleError::ConflictingClues {
                    digit: symbol(digit),
                    unit: geometry.unit_name(unit),
                    first: geometry.cell_name(seen[digit]),
                    second: geometry.cell_name(cell),
                });
            }
            seen[digit] = cell;
        }
    }
    Ok(())
}

/// Reduces a puzzle whose clues passed [`check_clues`].
pub fn reduce(grid: &Grid, mode: Reduce) -> Result<Candidates, PuzzleError> {
    let geometry = grid.geometry();
    let mut candidates = Candidates { fixed: grid.clone(), masks: vec![0; geometry.cells] };
    for cell in 0..geometry.cells {
        if grid.cells[cell] != 0 {
            continue;
        }
        let mut mask = (1 << geometry.n) - 1;
        if mode != Reduce::None {
            for &peer in &geometry.peers[cell] {
                if grid.cells[peer] != 0 {
                    mask &= !(1 << (grid.cells[peer] - 1));
                }
            }
            if mask == 0 {
                return Err(no_candidate(grid, cell));
            }
        }
        candidates.masks[cell] = mask;
    }
    if mode == Reduce::Propagate {
        propagate(&mut candidates)?;
    }
    Ok(candidates)
}

fn no_candidate(grid: &Grid, cell: usize) -> PuzzleError {
    PuzzleError::NoSolution(format!("{} has no candidate", grid.geometry().cell_name(cell)))
}

fn place(candidates: &mut Candidates, geometry: &Geometry, cell: usize, digit: usize) -> Result<(), PuzzleError> {
    candidates.fixed.cells[cell] = digit as u8 + 1;
    candidates.masks[cell] = 0;
    for &peer in &geometry.peers[cell] {
        if candidates.fixed.cells[peer] == 0 {
            candidates.masks[peer] &= !(1 << digit);
            if candidates.masks[peer] == 0 {
                return Err(no_candidate(&candidates.fixed, peer));
            }
        } else if candidates.fixed.cells[peer] as usize == digit + 1 {
            return Err(PuzzleError::NoSolution(format!(
                "{} and {} both need digit {}",
                geometry.cell_name(cell),
                geometry.cell_name(peer),
                symbol(digit + 1)
            )));
        }
    }
    Ok(())
}

fn propagate(candidates: &mut Candidates) -> Result<(), PuzzleError> {
    let geometry = candidates.fixed.geometry();
    loop {
        let mut changed = false;
        for cell in 0..geometry.cells {
            let mask = candidates.masks[cell];
            if candidates.fixed.cells[cell] == 0 && mask.count_ones() == 1 {
                place(candidates, geometry, cell, mask.trailing_zeros() as usize)?;
                changed = true;
            }
        }
        for (unit, cells) in geometry.unit_cells.iter().enumerate() {
            for digit in 0..geometry.n {
                if cells.iter().any(|&c| candidates.fixed.cells[c] as usize == digit + 1) {
                    continue;
                }
                let mut places = cells.iter().filter(|&&c| candidates.is_possible(c, digit));
                match (places.next(), places.next()) {
                    (None, _) => {
                        return Err(PuzzleError::NoSolution(format!(
                            "digit {} has no place in {}",
                            symbol(digit + 1),
                            geometry.unit_name(unit)
                        )))
                    }
                    (Some(&cell), None) => {
                        place(candidates, geometry, cell, digit)?;
                        changed = true;
                    }
                    _ => {}
                }
            }
        }
        if !changed {
            return Ok(());
        }
    }
}
