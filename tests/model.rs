//! The model agrees with docs/DESIGN.md §1 and §2, checked against definitions
//! written independently in `util.rs`.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use sudoku_anneal::backend::cpu::spins::{sweep, Replica};
use sudoku_anneal::backend::tables::SpinTable;
use sudoku_anneal::backend::Problem;
use sudoku_anneal::export::cnf_clauses;
use sudoku_anneal::grid::{Grid, Shape, Variant};
use sudoku_anneal::model::Model;
use sudoku_anneal::reduce::{check_clues, reduce, Reduce};
use sudoku_anneal::tempering::Ladder;

use crate::util::{
    all_shapes, dense_coupled, dense_energy, exact_solve, famous_hard, generated_puzzle, grid, units_of, EASY, INKALA,
};

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
    let empty = model(&Grid::empty(Shape::CLASSIC), Reduce::None);
    assert_eq!(empty.len(), 729);
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
fn solutions_of_every_size_and_variant_have_zero_energy_and_a_changed_digit_costs_energy() {
    let shapes = all_shapes().into_iter().filter(|s| s.n <= 16 && s.n % 2 == 0);
    for (seed, shape) in shapes.enumerate() {
        let (puzzle, solution) = generated_puzzle(shape, 3, seed as u64);
        let empty = model(&Grid::empty(shape), Reduce::None);
        assert_eq!(empty.energy(&empty.encode(&solution)), 0, "{shape:?}");
        for mode in MODES {
            let m = model(&puzzle, mode);
            assert_eq!(m.energy(&m.encode(&solution)), 0, "{shape:?} {mode:?}");
        }
        let mut wrong = solution.clone();
        wrong.cells[shape.cells() - 1] = wrong.cells[shape.cells() - 1] % shape.n as u8 + 1;
        assert!(empty.energy(&empty.encode(&wrong)) > 0, "{shape:?}");
    }
}

#[test]
fn energy_equals_the_dense_qubo_on_random_states() {
    let mut rng = StdRng::seed_from_u64(1);
    let mut puzzles = famous_hard();
    puzzles.push(grid(EASY));
    puzzles.push(Grid::empty(Shape::CLASSIC));
    for shape in [Shape { n: 4, variant: Variant::X }, Shape { n: 16, variant: Variant::Standard }] {
        puzzles.push(Grid::empty(shape));
        puzzles.push(generated_puzzle(shape, 3, 1).0);
    }
    puzzles.push(generated_puzzle(Shape { n: 9, variant: Variant::X }, 4, 2).0);
    puzzles.push(generated_puzzle(Shape { n: 7, variant: Variant::Latin }, 3, 3).0);
    for puzzle in &puzzles {
        for mode in MODES {
            let Ok(candidates) = reduce(puzzle, mode) else { continue };
            if candidates.fixed.is_complete() {
                continue;
            }
            let m = Model::build(&candidates).unwrap();
            for _ in 0..50 {
                let x = random_state(&mut rng, m.len());
                assert_eq!(m.energy(&x), dense_energy(puzzle.shape, &m.full_assignment(&x)));
            }
        }
    }
}

/// The CNF export is the model: a state satisfies every clause exactly when
/// its energy is 0. Checked on every state of 4×4 boards with four empty
/// cells (16 free spins, clues kept in their constraints), then near
/// solutions of larger boards under every reduction.
#[test]
fn cnf_clauses_hold_exactly_at_energy_zero() {
    let satisfied = |clauses: &[Vec<i32>], x: &[u8]| {
        clauses.iter().all(|c| c.iter().any(|&l| (x[l.unsigned_abs() as usize - 1] == 1) == (l > 0)))
    };
    let mut rng = StdRng::seed_from_u64(7);
    for seed in 0..24 {
        let shape = if seed % 2 == 0 {
            Shape { n: 4, variant: Variant::Standard }
        } else {
            Shape { n: 4, variant: Variant::X }
        };
        let (_, solution) = generated_puzzle(shape, 1, seed);
        let mut puzzle = solution.clone();
        for _ in 0..4 {
            let filled: Vec<usize> = (0..16).filter(|&c| puzzle.cells[c] != 0).collect();
            puzzle.cells[filled[rng.random_range(0..filled.len())]] = 0;
        }
        let m = model(&puzzle, Reduce::None);
        assert_eq!(m.len(), 16);
        let clauses = cnf_clauses(&m);
        for bits in 0u32..1 << 16 {
            let x: Vec<u8> = (0..16).map(|i| (bits >> i & 1) as u8).collect();
            assert_eq!(satisfied(&clauses, &x), m.energy(&x) == 0, "{puzzle:?} state {bits:#06x}");
        }
    }
    let shapes = [
        Shape::CLASSIC,
        Shape { n: 9, variant: Variant::X },
        Shape { n: 7, variant: Variant::Latin },
        Shape { n: 16, variant: Variant::Standard },
    ];
    for (seed, shape) in shapes.into_iter().enumerate() {
        let (puzzle, solution) = generated_puzzle(shape, 3, seed as u64);
        for mode in MODES {
            let Ok(candidates) = reduce(&puzzle, mode) else { continue };
            let m = Model::build(&candidates).unwrap();
            if m.is_empty() {
                continue;
            }
            let clauses = cnf_clauses(&m);
            let at_solution = m.encode(&solution);
            assert!(satisfied(&clauses, &at_solution) && m.energy(&at_solution) == 0, "{shape:?} {mode:?}");
            for _ in 0..300 {
                let mut x = at_solution.clone();
                for _ in 0..rng.random_range(1..=3) {
                    let i = rng.random_range(0..x.len());
                    x[i] ^= 1;
                }
                assert_eq!(satisfied(&clauses, &x), m.energy(&x) == 0, "{shape:?} {mode:?}");
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

/// The bound the threshold tables are sized by, computed from constraint
/// counts at build time, equals its definition over the coupling lists.
#[test]
fn max_abs_field_is_the_largest_field_plus_couplings_for_every_shape() {
    let mut puzzles: Vec<Grid> = famous_hard();
    let shapes = all_shapes().into_iter().filter(|s| s.n <= 16);
    puzzles.extend(shapes.enumerate().map(|(seed, shape)| generated_puzzle(shape, 3, seed as u64).0));
    for puzzle in puzzles {
        for mode in MODES {
            let m = model(&puzzle, mode);
            let bound = (0..m.len())
                .map(|i| m.field()[i].abs() + m.neighbours_of(i).map(|(_, c)| c.abs()).sum::<i32>())
                .max()
                .unwrap_or(0);
            assert_eq!(m.max_abs_field(), bound, "{puzzle:?} {mode:?}");
        }
    }
}

#[test]
fn colouring_is_proper_and_partitions_the_spins_for_every_shape() {
    for shape in all_shapes() {
        let (n, geometry) = (shape.n, shape.geometry());
        let units: Vec<Vec<usize>> = (0..shape.cells()).map(|cell| units_of(shape, cell)).collect();
        let mut class_sizes = vec![0; n];
        for a in 0..shape.cells() {
            (0..n).for_each(|d| class_sizes[geometry.colour_of(a, d)] += 1);
            for b in (0..shape.cells()).filter(|&b| a == b || units[a].iter().any(|u| units[b].contains(u))) {
                for (d, e) in (0..n).flat_map(|d| (0..n).map(move |e| (d, e))) {
                    if (a == b) != (d == e) {
                        assert_ne!(geometry.colour_of(a, d), geometry.colour_of(b, e), "{shape:?} ({a},{d}) ({b},{e})");
                    }
                }
            }
        }
        assert_eq!(class_sizes, vec![shape.cells(); n], "{shape:?}: one spin per cell in each class");
    }
    let mut puzzles = famous_hard();
    puzzles.push(Grid::empty(Shape::CLASSIC));
    puzzles.push(generated_puzzle(Shape { n: 16, variant: Variant::X }, 2, 4).0);
    for puzzle in &puzzles {
        let (shape, geometry) = (puzzle.shape, puzzle.geometry());
        let canonical = |s: sudoku_anneal::model::Spin| shape.n * s.cell as usize + s.digit as usize;
        for mode in MODES {
            let m = model(puzzle, mode);
            assert_eq!(m.class_start[0], 0);
            assert_eq!(m.class_start[shape.n] as usize, m.len());
            for class in 0..shape.n {
                let members = &m.spins[m.class_start[class] as usize..m.class_start[class + 1] as usize];
                assert!(
                    members.windows(2).all(|pair| canonical(pair[0]) < canonical(pair[1])),
                    "{shape:?} class {class}"
                );
                for i in m.class_start[class] as usize..m.class_start[class + 1] as usize {
                    let s = m.spins[i];
                    assert_eq!(geometry.colour_of(s.cell as usize, s.digit as usize), class);
                    for (j, _) in m.neighbours_of(i) {
                        let t = m.spins[j];
                        assert_ne!(geometry.colour_of(t.cell as usize, t.digit as usize), class);
                        assert!(dense_coupled(shape, canonical(s), canonical(t)));
                    }
                }
            }
        }
    }
}

#[test]
fn cpu_sweep_keeps_totals_and_energy_in_step_with_the_model() {
    let x16 = generated_puzzle(Shape { n: 16, variant: Variant::X }, 3, 5).0;
    let latin = generated_puzzle(Shape { n: 6, variant: Variant::Latin }, 4, 6).0;
    for puzzle in [grid(INKALA), x16, latin] {
        let m = model(&puzzle, Reduce::Clues);
        let geometry = puzzle.geometry();
        let cpu = SpinTable::new(&m);
        let ladder = Ladder::geometric(3, 0.3, 3.0);
        let problem = Problem::new(&m, &ladder, 9);
        for rung in 0..3 {
            let mut replica = Replica::new(&cpu, 9, rung as u32);
            for s in 0..200 {
                sweep(&cpu, &mut replica, problem.row(rung), s);
            }
            assert_eq!(replica.energy, m.energy(&replica.spins));
            let full = m.full_assignment(&replica.spins);
            let mut expected = vec![0u32; replica.totals.len()];
            for (i, &x) in full.iter().enumerate() {
                geometry.constraints_of(i / puzzle.shape.n, i % puzzle.shape.n).for_each(|k| expected[k] += x as u32);
            }
            let totals: Vec<u32> = replica.totals.iter().map(|&t| t as u32).collect();
            assert_eq!(totals, expected, "{:?}", puzzle.shape);
        }
    }
}
