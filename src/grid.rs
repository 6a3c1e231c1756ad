//! The 9×9 board: cells, units (rows, columns, boxes) and peers.
//!
//! Cells are numbered row-major, `cell = 9·row + col`; digits are stored as
//! 1..=9 in a [`Grid`] (0 = empty) and as 0..=8 in spin indices
//! (`spin = 9·cell + digit`, DESIGN.md §1).

use std::fmt;
use std::sync::OnceLock;

/// Box side.
pub const BOX: usize = 3;
/// Side of the board, digits per cell.
pub const N: usize = BOX * BOX;
/// Cells on the board.
pub const CELLS: usize = N * N;
/// Binary variables of the full model (cell × digit).
pub const SPINS: usize = CELLS * N;
/// Constraints of the full model: one per cell, one per (row|column|box, digit).
pub const CONSTRAINTS: usize = 4 * CELLS;
/// Units: 9 rows, 9 columns, 9 boxes.
pub const UNITS: usize = 3 * N;
/// Peers of a cell: cells sharing a row, column or box with it.
pub const PEERS: usize = 2 * (N - 1) + (BOX - 1) * (BOX - 1);

/// A board: `cells[c]` is 1..=9, or 0 when empty.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Grid {
    pub cells: [u8; CELLS],
}

impl Grid {
    pub fn empty() -> Grid {
        Grid { cells: [0; CELLS] }
    }

    pub fn is_complete(&self) -> bool {
        self.cells.iter().all(|&d| d != 0)
    }

    pub fn clue_count(&self) -> usize {
        self.cells.iter().filter(|&&d| d != 0).count()
    }
}

/// 81 characters, digits for filled cells and `.` for empty ones.
impl fmt::Display for Grid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text: String = self.cells.iter().map(|&d| if d == 0 { '.' } else { char::from(b'0' + d) }).collect();
        f.write_str(&text)
    }
}

impl fmt::Debug for Grid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Grid({self})")
    }
}

/// `r3c7` style name of a cell, 1-based as people write it.
pub fn cell_name(cell: usize) -> String {
    format!("r{}c{}", cell / N + 1, cell % N + 1)
}

/// The kind of a unit, for messages.
pub fn unit_name(unit: usize) -> String {
    let kind = ["row", "column", "box"][unit / N];
    format!("{kind} {}", unit % N + 1)
}

pub fn box_of(cell: usize) -> usize {
    (cell / N / BOX) * BOX + (cell % N) / BOX
}

/// The three units of a cell: its row, its column and its box, as unit indices.
pub fn units_of(cell: usize) -> [usize; 3] {
    [cell / N, N + cell % N, 2 * N + box_of(cell)]
}

struct Tables {
    unit_cells: [[usize; N]; UNITS],
    peers: [[usize; PEERS]; CELLS],
}

fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(|| {
        let mut unit_cells = [[0; N]; UNITS];
        let mut filled = [0; UNITS];
        for cell in 0..CELLS {
            for unit in units_of(cell) {
                unit_cells[unit][filled[unit]] = cell;
                filled[unit] += 1;
            }
        }
        let mut peers = [[0; PEERS]; CELLS];
        for (cell, list) in peers.iter_mut().enumerate() {
            let mut count = 0;
            for other in (0..CELLS).filter(|&o| o != cell && shared_units(cell, o) > 0) {
                list[count] = other;
                count += 1;
            }
            assert_eq!(count, PEERS);
        }
        Tables { unit_cells, peers }
    })
}

/// The 9 cells of a unit, in increasing order.
pub fn unit_cells(unit: usize) -> &'static [usize; N] {
    &tables().unit_cells[unit]
}

/// The 20 peers of a cell, in increasing order.
pub fn peers(cell: usize) -> &'static [usize; PEERS] {
    &tables().peers[cell]
}

/// How many units two distinct cells share (0, 1 or 2).
pub fn shared_units(a: usize, b: usize) -> usize {
    let (ua, ub) = (units_of(a), units_of(b));
    (0..3).filter(|&k| ua[k] == ub[k]).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peers_share_exactly_one_or_two_units() {
        for cell in 0..CELLS {
            let two = peers(cell).iter().filter(|&&p| shared_units(cell, p) == 2).count();
            assert_eq!(two, 2 * (BOX - 1), "cell {cell}");
        }
    }
}
