//! The WGSL sweep equals its CPU twin bit for bit (vello's compare test).
//! Skips without an adapter, unless REQUIRE_GPU=1 (set by CI) makes that a failure.

use sudoku_anneal::backend::cpu::CpuBackend;
use sudoku_anneal::backend::gpu::{AdapterChoice, GpuBackend};
use sudoku_anneal::backend::{Backend, Problem};
use sudoku_anneal::model::Model;
use sudoku_anneal::reduce::{reduce, Reduce};
use sudoku_anneal::tempering::{Exchange, Ladder};
use sudoku_anneal::{solve, Settings, Status};

use crate::util::{exact_solve, grid, EASY, INKALA};

fn gpu() -> Option<GpuBackend> {
    match GpuBackend::new(AdapterChoice::Any) {
        Ok(gpu) => Some(gpu),
        Err(err) if std::env::var("REQUIRE_GPU").as_deref() == Ok("1") => panic!("REQUIRE_GPU=1 but {err}"),
        Err(err) => {
            eprintln!("skipping GPU test: {err}");
            None
        }
    }
}

/// Runs both backends through the same rounds of sweeps and exchanges;
/// states and energies must agree after every round.
fn assert_twins(puzzle: &str, mode: Reduce, replicas: usize, rounds: u32, sweeps_per_round: u32) {
    let Some(mut gpu) = gpu() else { return };
    let model = Model::build(&reduce(&grid(puzzle), mode).unwrap()).unwrap();
    let ladder = Ladder::geometric(replicas, 0.3, 3.0);
    let table_len = (model.max_abs_field() / 2 + 1) as usize;
    let problem = Problem { model: &model, thresholds: ladder.thresholds(table_len), table_len, replicas, seed: 42 };
    let mut cpu = CpuBackend::new();
    cpu.load(&problem).unwrap();
    gpu.load(&problem).unwrap();
    let mut exchange = Exchange::new(&ladder, 42, 0);
    for round in 0..rounds {
        let first = round * sweeps_per_round;
        let expected = cpu.sweep(&exchange.rung_of_replica, first, sweeps_per_round).unwrap();
        let got = gpu.sweep(&exchange.rung_of_replica, first, sweeps_per_round).unwrap();
        assert_eq!(got, expected, "energies after round {round}");
        for r in [0, replicas / 2, replicas - 1] {
            assert_eq!(gpu.spins(r).unwrap(), cpu.spins(r).unwrap(), "spins of replica {r} after round {round}");
            assert_eq!(model.energy(&gpu.spins(r).unwrap()), expected[r]);
        }
        exchange.exchange(&expected);
    }
}

#[test]
fn gpu_sweeps_equal_the_cpu_twin_on_inkala() {
    assert_twins(INKALA, Reduce::Clues, 70, 4, 5);
}

#[test]
fn gpu_sweeps_equal_the_cpu_twin_on_the_full_729_spin_model() {
    assert_twins(EASY, Reduce::None, 64, 2, 3);
}

#[test]
fn gpu_backend_solves_inkala() {
    let Some(mut gpu) = gpu() else { return };
    // Seed 0 with propagation solves in 3,260 sweeps (found on the CPU), cheap on lavapipe.
    let settings = Settings { seed: 0, reduce: Reduce::Propagate, max_sweeps: 5_000, ..Settings::default() };
    let outcome = solve(&grid(INKALA), &settings, &mut gpu).unwrap();
    assert_eq!(outcome.status, Status::Solved(exact_solve(&grid(INKALA)).unwrap()));
    let cpu_outcome = solve(&grid(INKALA), &settings, &mut CpuBackend::new()).unwrap();
    assert_eq!(outcome.sweeps, cpu_outcome.sweeps);
}
