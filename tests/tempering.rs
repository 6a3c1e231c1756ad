//! Parallel tempering samples the exact Boltzmann distribution on a model
//! small enough to enumerate (peapods' exact-distribution test).

use sudoku_anneal::backend::bitsliced::{BitslicedBackend, LADDERS_PER_MASK};
use sudoku_anneal::backend::cpu::bits::Bits32Backend;
use sudoku_anneal::backend::{cpu::CpuBackend, lanes::LanesBackend, Backend, Layout, Problem};
use sudoku_anneal::dynamics::{Completion, Dynamics, Moves, Trades, Weights};
use sudoku_anneal::grid::Variant;
use sudoku_anneal::model::Model;
use sudoku_anneal::puzzle::parse_grid;
use sudoku_anneal::reduce::{reduce, Reduce};
use sudoku_anneal::tempering::{Exchange, Ladder};

use crate::util::{exact_solve, grid, INKALA};

/// Inkala's solution with two cells of one row and box blanked, no
/// reduction: 18 free spins, 2^18 states; each spin in 4 constraints, so
/// every ΔE is even.
fn tiny_sudoku() -> Model {
    let mut puzzle = exact_solve(&grid(INKALA)).unwrap();
    puzzle.cells[0] = 0;
    puzzle.cells[1] = 0;
    Model::build(&reduce(&puzzle, Reduce::None).unwrap()).unwrap()
}

/// A Latin square of order 3 with six cells blanked: 18 free spins, each in
/// 3 constraints (cell, row, column), so ΔE is odd.
fn tiny_latin_square() -> Model {
    let mut puzzle = parse_grid(b"123231312", Variant::Latin).unwrap();
    for cell in [0, 1, 4, 5, 6, 8] {
        puzzle.cells[cell] = 0;
    }
    Model::build(&reduce(&puzzle, Reduce::None).unwrap()).unwrap()
}

/// Every state of the model's free spins (2^18 for the tiny models).
fn all_states(model: &Model) -> Vec<Vec<u8>> {
    let n = model.len();
    (0u32..1 << n).map(|state| (0..n).map(|i| (state >> i & 1) as u8).collect()).collect()
}

/// The states cell moves visit: every free cell holds exactly one of its
/// candidates (9² for the tiny Sudoku, 3⁶ for the tiny Latin square).
fn one_hot_states(model: &Model) -> Vec<Vec<u8>> {
    let mut cells: Vec<Vec<usize>> = Vec::new();
    for (i, spin) in model.spins.iter().enumerate() {
        match cells.iter_mut().find(|c| model.spins[c[0]].cell == spin.cell) {
            Some(cell) => cell.push(i),
            None => cells.push(vec![i]),
        }
    }
    let mut states = vec![vec![0u8; model.len()]];
    for cell in &cells {
        states = states
            .iter()
            .flat_map(|state| {
                cell.iter().map(move |&i| {
                    let mut next = state.clone();
                    next[i] = 1;
                    next
                })
            })
            .collect();
    }
    states
}

/// Exact P(E) at temperature t over `states`.
fn exact_energy_distribution(model: &Model, states: &[Vec<u8>], t: f64, max_energy: usize) -> Vec<f64> {
    let mut weights = vec![0.0; max_energy + 1];
    for x in states {
        let e = model.energy(x) as usize;
        weights[e.min(max_energy)] += (-(e as f64) / t).exp();
    }
    let total: f64 = weights.iter().sum();
    weights.iter().map(|w| w / total).collect()
}

#[test]
fn tempering_samples_the_boltzmann_distribution_at_every_rung() {
    for model in [tiny_sudoku(), tiny_latin_square()] {
        assert_eq!(model.len(), 18);
        assert_samples_boltzmann(&model, &mut CpuBackend::new(), Dynamics::default(), 1, 60_000);
    }
}

/// One full lane mask and six ladders of a second one.
#[test]
fn bitsliced_tempering_samples_the_boltzmann_distribution_at_every_rung() {
    for model in [tiny_sudoku(), tiny_latin_square()] {
        assert_samples_boltzmann(
            &model,
            &mut BitslicedBackend::new(),
            Dynamics::default(),
            LADDERS_PER_MASK + 6,
            1_000,
        );
    }
}

/// 4 rungs × 33 ladders: four full words and four lanes of a fifth, each
/// lane at its own rung (the twin of the GPU's bit-sliced kernel).
#[test]
fn bits32_tempering_samples_the_boltzmann_distribution_at_every_rung() {
    for model in [tiny_sudoku(), tiny_latin_square()] {
        assert_samples_boltzmann(&model, &mut Bits32Backend::new(), Dynamics::default(), 33, 4_000);
    }
}

/// Cell moves at fixed weights sample the model's Boltzmann distribution
/// restricted to one-hot cells, at every rung of a ladder with exchange.
#[test]
fn cell_moves_sample_the_boltzmann_distribution_of_one_hot_states() {
    let cells =
        Dynamics { moves: Moves::Cell, weights: Weights::Fixed, completion: Completion::Off, ..Dynamics::default() };
    for model in [tiny_sudoku(), tiny_latin_square()] {
        assert_samples_boltzmann(&model, &mut CpuBackend::new(), cells, 2, 60_000);
    }
}

/// cpu-lanes draws the same heat bath from 16-bit weights: 9 ladders of 4
/// rungs fill a group of 32 chains and 4 lanes of a second.
#[test]
fn cpu_lanes_sample_the_boltzmann_distribution_of_one_hot_states() {
    let cells =
        Dynamics { moves: Moves::Cell, weights: Weights::Fixed, completion: Completion::Off, ..Dynamics::default() };
    for model in [tiny_sudoku(), tiny_latin_square()] {
        assert_samples_boltzmann(&model, &mut LanesBackend::new(), cells, 9, 20_000);
    }
}

/// Trades keep the distribution: a pair of cells that trade digits is one
/// more Metropolis move at each chain's temperature. Both tiny models have
/// such pairs (two cells of one row and box; cells of a Latin square's row
/// or column).
#[test]
fn cpu_lanes_trades_sample_the_boltzmann_distribution_of_one_hot_states() {
    let trades =
        Dynamics { moves: Moves::Cell, weights: Weights::Fixed, completion: Completion::Off, trades: Trades::On };
    for model in [tiny_sudoku(), tiny_latin_square()] {
        let problem = Problem::with_dynamics(&model, &Ladder::geometric(4, 1.0, 3.0), 5, trades);
        assert!(problem.trades.is_some_and(|t| t.per_sweep() > 0), "{:?}: no pair trades", model.fixed.shape);
        assert_samples_boltzmann(&model, &mut LanesBackend::new(), trades, 9, 20_000);
    }
}

fn assert_samples_boltzmann(model: &Model, backend: &mut dyn Backend, dynamics: Dynamics, ladders: usize, rounds: u32) {
    let ladder = Ladder::geometric(4, 1.0, 3.0);
    let rungs = ladder.rungs();
    let problem = Problem::with_dynamics(model, &ladder, 5, dynamics);
    let states = match dynamics.moves {
        Moves::Spin => all_states(model),
        Moves::Cell => one_hot_states(model),
    };
    let layout = Layout { shape: model.fixed.shape, slots: 1, replicas_per_slot: ladders * rungs, rungs, dynamics };
    backend.configure(layout).unwrap();
    backend.load(0, &problem).unwrap();
    let mut exchanges: Vec<Exchange> = (0..ladders as u32).map(|index| Exchange::new(&ladder, 5, index)).collect();

    const MAX_E: usize = 40;
    let burn_in = 1_000u32;
    let mut histogram = vec![vec![0u64; MAX_E + 1]; rungs];
    for round in 0..burn_in + rounds {
        let rung_of_replica: Vec<u32> = exchanges.iter().flat_map(|e| e.rung_of_replica.iter().copied()).collect();
        let energies = backend.sweep(&rung_of_replica, &[1]).unwrap();
        for (exchange, energies) in exchanges.iter_mut().zip(energies.chunks(rungs)) {
            exchange.exchange(energies);
            if round >= burn_in {
                for (rung, &replica) in exchange.replica_at_rung.iter().enumerate() {
                    histogram[rung][(energies[replica as usize] as usize).min(MAX_E)] += 1;
                }
            }
        }
    }
    let samples = rounds as f64 * ladders as f64;
    for (rung, &t) in ladder.temperatures.iter().enumerate() {
        let exact = exact_energy_distribution(model, &states, t, MAX_E);
        let total_variation: f64 =
            histogram[rung].iter().zip(&exact).map(|(&count, &p)| (count as f64 / samples - p).abs()).sum::<f64>()
                / 2.0;
        assert!(
            total_variation < 0.02,
            "{:?}, {dynamics:?}, rung {rung} (T = {t:.2}): total variation {total_variation:.4}",
            model.fixed.shape
        );
    }
    let acceptance = exchanges[0].acceptance();
    assert!(acceptance.iter().all(|&a| a.is_some_and(|a| a > 0.05 && a < 1.0)), "{acceptance:?}");
}
