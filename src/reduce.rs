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
        let mut seen = 0u32;
        for (k, &cell) in cells.iter().enumerate() {
            let bit = (1u32 << grid.cells[cell]) >> 1;
            if seen & bit != 0 {
                let digit = grid.cells[cell];
                let first = cells[..k].iter().find(|&&c| grid.cells[c] == digit).expect("seen before");
                return Err(PuzzleError::ConflictingClues {
                    digit: symbol(digit as usize),
                    unit: geometry.unit_name(unit),
                    first: geometry.cell_name(*first),
                    second: geometry.cell_name(cell),
                });
            }
            seen |= bit;
        }
    }
    Ok(())
}

/// Reduces a puzzle whose clues passed [`check_clues`].
pub fn reduce(grid: &Grid, mode: Reduce) -> Result<Candidates, PuzzleError> {
    let geometry = grid.geometry();
    let mut candidates = Candidates { fixed: grid.clone(), masks: vec![0; geometry.cells] };
    // The digits the clues of each unit hold (none under Reduce::None).
    let mut held = vec![0u32; geometry.unit_cells.len()];
    if mode != Reduce::None {
        for (unit, cells) in geometry.unit_cells.iter().enumerate() {
            // Digit d is bit d − 1; an empty cell (0) sets none.
            held[unit] = cells.iter().fold(0, |m, &c| m | (1 << grid.cells[c]) >> 1);
        }
    }
    let all = (1u32 << geometry.n) - 1;
    for cell in 0..geometry.cells {
        if grid.cells[cell] != 0 {
            continue;
        }
        let mask = all & !geometry.cell_units[cell].iter().fold(0, |m, &unit| m | held[unit]);
        if mask == 0 {
            return Err(no_candidate(grid, cell));
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

/// Fixes `cell` to `digit` and removes the digit from its peers; a peer
/// left with one candidate joins `singles`.
fn place(
    candidates: &mut Candidates,
    geometry: &Geometry,
    cell: usize,
    digit: usize,
    singles: &mut Vec<usize>,
) -> Result<(), PuzzleError> {
    candidates.fixed.cells[cell] = digit as u8 + 1;
    candidates.masks[cell] = 0;
    let bit = 1 << digit;
    for &peer in &geometry.peers[cell] {
        let mask = candidates.masks[peer];
        if mask & bit != 0 {
            candidates.masks[peer] = mask & !bit;
            match (mask & !bit).count_ones() {
                0 => return Err(no_candidate(&candidates.fixed, peer)),
                1 => singles.push(peer),
                _ => {}
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

/// Naked singles (a cell with one candidate) and hidden singles (a digit
/// with one place in a unit) until neither applies. The fixed point does
/// not depend on the order, so a queue of naked singles serves, with a
/// pass over the units whenever it runs empty.
fn propagate(candidates: &mut Candidates) -> Result<(), PuzzleError> {
    let geometry = candidates.fixed.geometry();
    let all = (1u32 << geometry.n) - 1;
    let mut singles: Vec<usize> = (0..geometry.cells).filter(|&c| candidates.masks[c].count_ones() == 1).collect();
    loop {
        while let Some(cell) = singles.pop() {
            // A hidden single may have fixed it since it joined.
            if candidates.fixed.cells[cell] == 0 {
                place(candidates, geometry, cell, candidates.masks[cell].trailing_zeros() as usize, &mut singles)?;
            }
        }
        let mut placed_any = false;
        for (unit, cells) in geometry.unit_cells.iter().enumerate() {
            // Digits possible in one free cell of the unit, in two or more,
            // and placed (a fixed cell's mask is empty).
            let (mut once, mut twice, mut placed) = (0u32, 0u32, 0u32);
            for &cell in cells {
                let mask = candidates.masks[cell];
                twice |= once & mask;
                once |= mask;
                placed |= (1 << candidates.fixed.cells[cell]) >> 1;
            }
            let nowhere = all & !(once | placed);
            if nowhere != 0 {
                return Err(no_place(geometry, nowhere.trailing_zeros() as usize, unit));
            }
            let mut hidden = once & !twice & !placed;
            while hidden != 0 {
                let digit = hidden.trailing_zeros() as usize;
                hidden &= hidden - 1;
                // None: an earlier single of this unit took the one cell this digit had.
                let cell = cells.iter().find(|&&c| candidates.is_possible(c, digit));
                let &cell = cell.ok_or_else(|| no_place(geometry, digit, unit))?;
                place(candidates, geometry, cell, digit, &mut singles)?;
                placed_any = true;
            }
        }
        if !placed_any && singles.is_empty() {
            return Ok(());
        }
    }
}

fn no_place(geometry: &Geometry, digit: usize, unit: usize) -> PuzzleError {
    PuzzleError::NoSolution(format!("digit {} has no place in {}", symbol(digit + 1), geometry.unit_name(unit)))
}
