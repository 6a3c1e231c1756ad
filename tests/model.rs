//! The model agrees with DESIGN.md §1 and §2, checked against definitions
//! written independently in `util.rs`.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use sudoku_anneal::backend::cpu::{sweep, CpuModel, Replica};
use sudoku_anneal::grid::{Grid, SPINS};
use sudoku_anneal::model::{colour_of, constraints_of, Model, COLOURS};
use sudoku_anneal::reduce::{check_clues, reduce, Reduce};
use sudoku_anneal::tempering::Ladder;

use crate::util::{dense_coupled, dense_energy, exact_solve, famous_hard, grid, EASY, INKALA};

const MODES: [Reduce; 3] = [Reduce::None, Reduce::Clues, Reduce::Propagate];

fn model(puzzle: &Grid, mode: Reduce) -> Model {
    check_clues(puzzle).unwrap();
    Model::build(&reduce(puzzle, mode).unwrap()).unwrap()
}

fn random_state(rng: &mut StdRng, len: usize) -> Vec<u8> {
    let density = rng.random_range(0.0..0.6);
    (0..len).map(|_| u8::from(rng.random_bool(density))).collect()
}

#[test]
fn known_solutions_have_zero_energy_and_any_changed_digit_costs_energy() {
    let empty = model(&Grid::empty(), Reduce::None);
    assert_eq!(empty.len(), SPINS);
    for puzzle in famous_hard() {
        let solution = exact_solve(&puzzle).expect("famous puzzles are solvable");
        for mode in MODES {
            let m = model(&puzzle, mode);
            assert_eq!(m.energy(&m.encode(&solution)), 0, "{puzzle:?} {mode:?}");
        }
        assert_eq!(empty.energy(&empty.encode(&solution)), 0);
        for cell in 0..81 {
            for digit in (1..=9).filter(|&d| d != solution.cells[cell]) {
                let mut wrong = solution.clone();
                wrong.cells[cell] = digit;
                assert!(empty.energy(&empty.encode(&wrong)) > 0, "cell {cell} digit {digit}");
            }
        }
    }
}

#[test]
fn energy_equals_the_dense_qubo_on_random_states() {
    let mut rng = StdRng::seed_from_u64(1);
    let mut puzzles = famous_hard();
    puzzles.push(grid(EASY));
    puzzles.push(Grid::empty());
    for puzzle in &puzzles {
        for mode in MODES {
            let Ok(candidates) = reduce(puzzle, mode) else { continue };
            if candidates.fixed.is_complete() {
                continue;
            }
            let m = Model::build(&candidates).unwrap();
            for _ in 0..50 {
                let x = random_state(&mut rng, m.len());
                assert_eq!(m.energy(&x), dense_energy(&m.full_assignment(&x)));
            }
        }
    }
}

#[test]
fn flip_delta_equals_the_energy_difference() {
    let mut rng = StdRng::seed_from_u64(2);
    for mode in MODES {
        let m = model(&grid(INKALA), mode);
        let mut x = random_state(&mut rng, m.len());
        for _ in 0..5_000 {
            let i = rng.random_range(0..m.len());
            let before = m.energy(&x);
            let delta = m.flip_delta(&x, i);
            x[i] ^= 1;
            assert_eq!(m.energy(&x) - before, delta);
        }
    }
}

#[test]
fn colouring_is_proper_and_partitions_the_spins() {
    for i in 0..SPINS {
        for j in (0..SPINS).filter(|&j| dense_coupled(i, j)) {
            assert_ne!(colour_of(i / 9, i % 9), colour_of(j / 9, j % 9), "spins {i} and {j}");
        }
    }
    for puzzle in famous_hard().iter().chain([&Grid::empty()]) {
        for mode in MODES {
            let m = model(puzzle, mode);
            assert_eq!(m.class_start[0], 0);
            assert_eq!(m.class_start[COLOURS] as usize, m.len());
            for class in 0..COLOURS {
                for i in m.class_start[class] as usize..m.class_start[class + 1] as usize {
                    let s = m.spins[i];
                    assert_eq!(colour_of(s.cell as usize, s.digit as usize), class);
                    for (j, _) in m.neighbours_of(i) {
                        let t = m.spins[j];
                        assert_ne!(colour_of(t.cell as usize, t.digit as usize), class);
                        assert!(dense_coupled(s.canonical_index(), t.canonical_index()));
                    }
                }
            }
        }
    }
}

#[test]
fn cpu_sweep_keeps_totals_and_energy_in_step_with_the_model() {
    let m = model(&grid(INKALA), Reduce::Clues);
    let cpu = CpuModel::new(&m);
    let ladder = Ladder::geometric(3, 0.3, 3.0);
    let table_len = (m.max_abs_field() / 2 + 1) as usize;
    let thresholds = ladder.thresholds(table_len);
    for rung in 0..3 {
        let mut replica = Replica::new(&cpu, 9, rung as u32);
        for s in 0..200 {
            sweep(&cpu, &mut replica, &thresholds[rung * table_len..(rung + 1) * table_len], s);
        }
        assert_eq!(replica.energy, m.energy(&replica.spins));
        let full = m.full_assignment(&replica.spins);
        for (k, &total) in replica.totals.iter().enumerate() {
            let members = (0..SPINS).filter(|&i| constraints_of(i / 9, i % 9).contains(&k));
            assert_eq!(total as u32, members.map(|i| full[i] as u32).sum::<u32>(), "constraint {k}");
        }
    }
}
