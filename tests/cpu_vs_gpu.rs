//! Each WGSL sweep kernel equals its CPU twin bit for bit (vello's compare
//! test): spins.wgsl and cells.wgsl the cpu backend, bits.wgsl bits32.
//! Skips without an adapter, unless REQUIRE_GPU=1 (set by CI) makes that a failure.

use sudoku_anneal::backend::cpu::bits::Bits32Backend;
use sudoku_anneal::backend::cpu::CpuBackend;
use sudoku_anneal::backend::gpu::kernel::KernelOptions;
use sudoku_anneal::backend::gpu::{AdapterChoice, GpuBackend};
use sudoku_anneal::backend::{Backend, Layout, Problem};
use sudoku_anneal::dynamics::{AdaptiveWeights, Completion, Dynamics, Moves, Trades, Weights};
use sudoku_anneal::grid::{Grid, Variant};
use sudoku_anneal::model::Model;
use sudoku_anneal::puzzle::{Entry, PuzzleReader};
use sudoku_anneal::reduce::{reduce, Reduce};
use sudoku_anneal::settings::Budget;
use sudoku_anneal::solver::solve_stream;
use sudoku_anneal::tempering::{Exchange, Ladder};
use sudoku_anneal::{solve, BackendKind, Outcome, Settings, Status};

use crate::util::{exact_solve, example, famous_hard, grid, EASY, INKALA};

pub fn gpu() -> Option<GpuBackend> {
    gpu_with(BackendKind::Gpu)
}

fn gpu_with(kind: BackendKind) -> Option<GpuBackend> {
    gpu_with_options(kind, KernelOptions::default())
}

fn gpu_with_options(kind: BackendKind, options: KernelOptions) -> Option<GpuBackend> {
    match GpuBackend::with_options(AdapterChoice::Any, kind, options) {
        Ok(gpu) => Some(gpu),
        Err(err) if std::env::var("REQUIRE_GPU").as_deref() == Ok("1") => panic!("REQUIRE_GPU=1 but {err}"),
        Err(err) => {
            eprintln!("skipping GPU test: {err}");
            None
        }
    }
}

const RUNGS: usize = 7;
/// Not a multiple of the scalar kernel's 4 replicas per workgroup, so
/// groups straddle slots; for bits.wgsl a full word and 3 lanes of another.
const PER_SLOT: usize = 5 * RUNGS;

/// A kernel, by the GPU backend and the dynamics that run it, and its variant.
#[derive(Debug, Clone, Copy)]
struct Kernel {
    kind: BackendKind,
    dynamics: Dynamics,
    options: KernelOptions,
}

const PLAIN: KernelOptions = KernelOptions { global_totals: false, units_per_group: None, cell_invocations: None };

/// Weights that reach their cap within a few sweeps and relax often.
const ADAPTIVE: Weights = Weights::Adaptive(AdaptiveWeights { base: 2, cap: 5, relax_every: 3 });

/// spins.wgsl, cells.wgsl (both weights; adaptive with completion) and bits.wgsl.
const KERNELS: [Kernel; 5] = [
    Kernel {
        kind: BackendKind::Gpu,
        dynamics: Dynamics {
            moves: Moves::Spin,
            weights: Weights::Fixed,
            completion: Completion::Off,
            trades: Trades::Off,
        },
        options: PLAIN,
    },
    Kernel {
        kind: BackendKind::Gpu,
        dynamics: Dynamics {
            moves: Moves::Cell,
            weights: Weights::Fixed,
            completion: Completion::Off,
            trades: Trades::Off,
        },
        options: PLAIN,
    },
    Kernel {
        kind: BackendKind::Gpu,
        dynamics: Dynamics { moves: Moves::Cell, weights: ADAPTIVE, completion: Completion::Off, trades: Trades::Off },
        options: PLAIN,
    },
    Kernel {
        kind: BackendKind::Gpu,
        dynamics: Dynamics {
            moves: Moves::Cell,
            weights: ADAPTIVE,
            completion: Completion::Singles,
            trades: Trades::Off,
        },
        options: PLAIN,
    },
    Kernel {
        kind: BackendKind::GpuBits,
        dynamics: Dynamics {
            moves: Moves::Spin,
            weights: Weights::Fixed,
            completion: Completion::Off,
            trades: Trades::Off,
        },
        options: PLAIN,
    },
];

/// The CPU twin of a kernel.
fn twin(kernel: Kernel) -> Box<dyn Backend> {
    kernel.kind.twin().expect("GPU backends have twins").build().unwrap()
}

fn model(puzzle: &str, mode: Reduce) -> Model {
    Model::build(&reduce(&grid(puzzle), mode).unwrap()).unwrap()
}

/// A kernel and its twin run the same rounds of sweeps and exchanges on two slots
/// (slot 0 runs `counts.0` sweeps a round, slot 1 `counts.1`); energies,
/// spins and weights must agree after every round. Slot 1 is reloaded halfway, twice. The GPU
/// gets each slot as a bank of its own, both in flight at once, collected
/// in reverse order, as the solver pipelines them. Returns how many times
/// a slot had a zero-energy replica after a round.
fn assert_twins(kernel: Kernel, models: [&Model; 3], rounds: u32, counts: (u32, u32)) -> usize {
    assert_twins_on(kernel, models, rounds, counts, (RUNGS, 0.3, 3.0))
}

/// [`assert_twins`] on ladders of `rungs` rungs from `t_min` to `t_max` (a
/// divisor of `PER_SLOT`).
fn assert_twins_on(
    kernel: Kernel,
    models: [&Model; 3],
    rounds: u32,
    counts: (u32, u32),
    (ladder_rungs, t_min, t_max): (usize, f64, f64),
) -> usize {
    let Some(mut gpu) = gpu_with_options(kernel.kind, kernel.options) else { return 0 };
    let mut solved = 0;
    let mut twin = twin(kernel);
    let dynamics = kernel.dynamics;
    let problem = |model, ladder: &Ladder, seed| Problem::with_dynamics(model, ladder, seed, dynamics);
    let cpu = twin.as_mut();
    let ladder = Ladder::geometric(ladder_rungs, t_min, t_max);
    let layout =
        Layout { shape: models[0].fixed.shape, slots: 2, replicas_per_slot: PER_SLOT, rungs: ladder_rungs, dynamics };
    let mut exchanges: Vec<Exchange> =
        (0..2 * PER_SLOT as u32 / ladder_rungs as u32).map(|i| Exchange::new(&ladder, 42, i)).collect();
    for backend in [&mut *cpu, &mut gpu as &mut dyn Backend] {
        backend.configure(layout).unwrap();
        backend.load(0, &problem(models[0], &ladder, 42)).unwrap();
        backend.load(1, &problem(models[1], &ladder, 7)).unwrap();
    }
    // Before any sweep the GPU backend knows its initial states without reading them.
    let every: Vec<usize> = (0..2 * PER_SLOT).collect();
    assert_eq!(gpu.spins(&every).unwrap(), cpu.spins(&every).unwrap(), "{kernel:?}: initial spins");
    assert_eq!(gpu.weights(&every).unwrap(), cpu.weights(&every).unwrap(), "{kernel:?}: initial weights");
    for round in 0..rounds {
        if round == rounds / 2 {
            for backend in [&mut *cpu, &mut gpu as &mut dyn Backend] {
                backend.unload(1).unwrap();
                // Replaced before any dispatch (the GPU stages loads until then): the later load counts.
                backend.load(1, &problem(models[0], &Ladder::geometric(ladder_rungs, 0.5, 5.0), 5)).unwrap();
                backend.unload(1).unwrap();
                backend.load(1, &problem(models[2], &ladder, 9)).unwrap();
            }
        }
        let rungs: Vec<u32> = exchanges.iter().flat_map(|e| e.rung_of_replica.clone()).collect();
        let expected = cpu.sweep(&rungs, &[counts.0, counts.1]).unwrap();
        gpu.submit(0..1, &rungs[..PER_SLOT], &[counts.0]).unwrap();
        gpu.submit(1..2, &rungs[PER_SLOT..], &[counts.1]).unwrap();
        let second = gpu.energies(1..2).unwrap();
        let got = [gpu.energies(0..1).unwrap(), second].concat();
        // Energies of a slot that ran no sweeps are unspecified.
        let ran = if counts.1 > 0 { 2 * PER_SLOT } else { PER_SLOT };
        assert_eq!(got[..ran], expected[..ran], "{kernel:?}: energies after round {round}");
        // A slot's first zero-energy replica comes back with the energies.
        solved += expected[..ran].chunks(PER_SLOT).filter(|slot| slot.contains(&0)).count();
        // Every replica at once: more than the readback buffer holds, so several submissions.
        let spins = gpu.spins(&every).unwrap();
        assert_eq!(spins, cpu.spins(&every).unwrap(), "{kernel:?}: spins after round {round}");
        assert_eq!(
            gpu.weights(&every).unwrap(),
            cpu.weights(&every).unwrap(),
            "{kernel:?}: weights after round {round}"
        );
        assert_eq!(gpu.spins(&[PER_SLOT + 3, 1]).unwrap(), [spins[PER_SLOT + 3].clone(), spins[1].clone()]);
        // The shader's running energy matches its spins (at fixed weights, where it is the model's).
        if dynamics.weights == Weights::Fixed {
            assert_eq!(models[0].energy(&spins[0]), got[0]);
            if counts.1 > 0 {
                let slot_model = if round >= rounds / 2 { models[2] } else { models[1] };
                assert_eq!(slot_model.energy(&spins[PER_SLOT]), got[PER_SLOT]);
            }
        }
        for (energies, exchange) in expected.chunks(ladder_rungs).zip(&mut exchanges) {
            exchange.exchange(energies);
        }
    }
    solved
}

#[test]
fn gpu_sweeps_equal_the_cpu_twin_on_two_slots() {
    let hard = famous_hard();
    let escargot = Model::build(&reduce(&hard[1], Reduce::Clues).unwrap()).unwrap();
    for kernel in KERNELS {
        let models = [&model(INKALA, Reduce::Clues), &escargot, &model(INKALA, Reduce::Propagate)];
        assert_twins(kernel, models, 6, (4, 3));
    }
}

#[test]
fn gpu_returns_solved_replicas_equal_to_the_cpu_twin() {
    for kernel in KERNELS {
        let easy = model(EASY, Reduce::Clues);
        let solved = assert_twins(kernel, [&easy, &easy, &easy], 12, (5, 5));
        if gpu().is_some() {
            assert!(solved > 0, "{kernel:?}: no replica reached energy 0: the test proves nothing");
        }
    }
}

/// Completion (`--complete singles`, and `sampled` with adaptive weights)
/// keeps cells.wgsl equal to its twin: on one-rung ladders, whose chains
/// run hot from the 11th sweep and are completed after every sweep there
/// (`sampled`: from a sample of their kept cells), and on ladders of
/// several, completed every other sweep; on 9×9 and 16×16 boards and Latin
/// squares, in rounds that straddle the first hot sweep, with replicas that
/// stop once solved.
#[test]
fn completion_keeps_cells_wgsl_equal_to_its_twin() {
    let completing = |(weights, completion)| Kernel {
        kind: BackendKind::Gpu,
        dynamics: Dynamics { moves: Moves::Cell, weights, completion, trades: Trades::Off },
        options: PLAIN,
    };
    let hard = famous_hard();
    let escargot = Model::build(&reduce(&hard[1], Reduce::Propagate).unwrap()).unwrap();
    let inkala = model(INKALA, Reduce::Propagate);
    let sixteen = example_puzzles("16x16.txt", Variant::Standard, 16);
    let sixteen = Model::build(&reduce(&sixteen[0], Reduce::Clues).unwrap()).unwrap();
    let latin = example_puzzles("latin.txt", Variant::Latin, 7);
    let latin = Model::build(&reduce(&latin[0], Reduce::Clues).unwrap()).unwrap();
    let mut solved = 0;
    for dynamics in
        [(ADAPTIVE, Completion::Singles), (Weights::Fixed, Completion::Singles), (ADAPTIVE, Completion::Sampled)]
    {
        for ladder in [(1, 1.2, 1.2), (RUNGS, 0.6, 2.4)] {
            let kernel = completing(dynamics);
            solved += assert_twins_on(kernel, [&inkala, &escargot, &inkala], 6, (7, 4), ladder);
            assert_twins_on(kernel, [&sixteen, &sixteen, &sixteen], 2, (7, 6), ladder);
            assert_twins_on(kernel, [&latin, &latin, &latin], 4, (7, 5), ladder);
        }
    }
    if gpu().is_some() {
        assert!(solved > 0, "no replica was solved: the test proves nothing");
    }
}

/// The kernel options keep every kernel equal to its twin, on 9×9 and
/// 16×16 (cell-invocations only changes cells.wgsl; 5 of them leave a class
/// of up to 16 cells several passes).
#[test]
fn kernel_options_keep_the_kernels_equal_to_their_twins() {
    let sixteen = example_puzzles("16x16.txt", Variant::Standard, 16);
    let sixteen = Model::build(&reduce(&sixteen[0], Reduce::Clues).unwrap()).unwrap();
    let models = [&model(INKALA, Reduce::Clues), &model(EASY, Reduce::None), &sixteen];
    for options in ["global-totals,units-per-group=1", "cell-invocations=5,units-per-group=3"] {
        let options = KernelOptions::parse(options).unwrap();
        for kernel in KERNELS {
            let kernel = Kernel { options, ..kernel };
            assert_twins(kernel, [models[0], models[1], models[0]], 2, (3, 2));
            assert_twins(kernel, [models[2], models[2], models[2]], 1, (2, 1));
        }
    }
}

#[test]
fn gpu_sweeps_equal_the_cpu_twin_on_the_full_model() {
    for kernel in KERNELS {
        let models = [&model(EASY, Reduce::None), &model(INKALA, Reduce::None), &model(EASY, Reduce::Clues)];
        assert_twins(kernel, models, 2, (3, 0));
    }
}

/// Puzzles of `side` from a bundled example file.
fn example_puzzles(file: &str, variant: Variant, side: usize) -> Vec<Grid> {
    let text = std::fs::read_to_string(example(file)).unwrap();
    PuzzleReader::new(text.as_bytes(), variant)
        .map(|e| e.unwrap().grid.unwrap())
        .filter(|g| g.shape.n == side)
        .collect()
}

/// 16×16 and 25×25 boards, diagonals on odd and even sides (5 and 6
/// constraints per spin), Latin squares (3): every kernel layout. A word's
/// totals of a 25×25 board take 49 KiB, more than lavapipe's 32 KiB of
/// workgroup memory: there gpu-bits keeps them in global memory.
#[test]
fn gpu_sweeps_equal_the_cpu_twin_on_every_kind_of_board() {
    let cases = [
        ("16x16.txt", Variant::Standard, 16),
        ("25x25.txt", Variant::Standard, 25),
        ("x.txt", Variant::X, 9),
        ("x.txt", Variant::X, 16),
        ("latin.txt", Variant::Latin, 7),
    ];
    for (kernel, (file, variant, side)) in KERNELS.into_iter().flat_map(|k| cases.map(|case| (k, case))) {
        let puzzles = example_puzzles(file, variant, side);
        let build = |k: usize, mode| Model::build(&reduce(&puzzles[k % puzzles.len()], mode).unwrap()).unwrap();
        let models = [build(0, Reduce::Clues), build(1, Reduce::None), build(2, Reduce::Clues)];
        assert_twins(kernel, [&models[0], &models[1], &models[2]], 3, (2, 3));
    }
}

/// Nearly empty boards of every size, in rounds long enough that one
/// dispatch would run more loop iterations than llvmpipe allows an
/// invocation (65,535): the backend splits such rounds where the driver
/// limits them, and the kernels must still equal their twins.
#[test]
fn gpu_sweeps_equal_the_cpu_twin_on_nearly_empty_boards_in_long_rounds() {
    use sudoku_anneal::grid::Shape;
    let cases = [
        (4, Variant::Standard, 200),
        (9, Variant::Standard, 100),
        (16, Variant::X, 24),
        (20, Variant::Latin, 12),
        (25, Variant::Standard, 6),
    ];
    for (kernel, (n, variant, sweeps)) in KERNELS.into_iter().flat_map(|k| cases.map(|case| (k, case))) {
        let empty = Grid::empty(Shape { n, variant });
        let mut one_clue = empty.clone();
        one_clue.cells[0] = 1;
        let build = |grid: &Grid| Model::build(&reduce(grid, Reduce::Clues).unwrap()).unwrap();
        let models = [build(&one_clue), build(&empty), build(&one_clue)];
        assert_twins(kernel, [&models[0], &models[1], &models[2]], 2, (sweeps, sweeps / 2));
    }
}

#[test]
fn gpu_backend_solves_inkala() {
    let Some(mut gpu) = gpu() else { return };
    // Seed 0 with propagation solves in 3,260 sweeps (found on the CPU), cheap on lavapipe.
    let settings = Settings {
        seed: 0,
        reduce: Reduce::Propagate,
        budget: Budget { max_sweeps: 5_000, ..Settings::plain_model().budget },
        small_board_budget: None,
        ..Settings::plain_model()
    };
    let outcome = solve(&grid(INKALA), &settings, &mut gpu).unwrap();
    assert_eq!(outcome.status, Status::Solved(exact_solve(&grid(INKALA)).unwrap()));
    let cpu_outcome = solve(&grid(INKALA), &settings, &mut CpuBackend::new()).unwrap();
    assert_eq!(outcome.sweeps, cpu_outcome.sweeps);
}

/// The solver with two banks in flight on the GPU (batch 3: slots 0..2 and
/// 2..3) gives every puzzle the outcome the CPU gives it in one bank.
#[test]
fn gpu_solver_with_two_banks_in_flight_agrees_with_the_cpu() {
    let Some(mut gpu) = gpu() else { return };
    // The easy puzzle with its digits relabelled: five puzzles, each its own chain.
    let entries = |_: ()| {
        (0..5u8).map(|k| {
            let text: String =
                EASY.bytes().map(|c| if c == b'0' { '0' } else { ((c - b'1' + k) % 9 + b'1') as char }).collect();
            Ok(Entry { index: k as usize, line: k as usize + 1, ..Entry::of_grid(grid(&text)) })
        })
    };
    let settings = Settings { batch: 3, seed: 3, reduce: Reduce::Clues, ..Settings::plain_model() };
    let mut runs = Vec::new();
    for backend in [&mut CpuBackend::new() as &mut dyn Backend, &mut gpu] {
        let mut outcomes = Vec::new();
        let keep = |entry: Entry, outcome: Outcome| {
            outcomes.push((entry.line, outcome.status, outcome.sweeps));
            Ok(())
        };
        solve_stream(entries(()), &settings, backend, keep, || false).unwrap();
        runs.push(outcomes);
    }
    assert_eq!(runs[0].len(), 5);
    assert!(runs[0].iter().all(|(_, status, sweeps)| matches!(status, Status::Solved(_)) && *sweeps > 0));
    assert_eq!(runs[1], runs[0]);
}

/// gpu-bits through the solver, at one temperature as it runs by default
/// on 9×9 boards, solves Inkala in the sweeps its twin needs; and the CLI
/// names it and prints a solution that the exact solver confirms.
#[test]
fn gpu_bits_solves_inkala_as_its_twin_does() {
    let Some(mut gpu) = gpu_with(BackendKind::GpuBits) else { return };
    let settings = Settings {
        ladders: 64,
        replicas: 1,
        t_min: 0.63,
        t_max: 0.63,
        seed: 1,
        budget: Budget { max_sweeps: 20_000, ..Settings::plain_model().budget },
        small_board_budget: None,
        ..Settings::plain_model()
    };
    let outcome = solve(&grid(INKALA), &settings, &mut gpu).unwrap();
    let solution = exact_solve(&grid(INKALA)).unwrap();
    assert_eq!(outcome.status, Status::Solved(solution.clone()));
    let twin_outcome = solve(&grid(INKALA), &settings, &mut Bits32Backend::new()).unwrap();
    assert_eq!((outcome.sweeps, twin_outcome.status), (twin_outcome.sweeps, Status::Solved(solution.clone())));

    let out = std::process::Command::new(env!("CARGO_BIN_EXE_sudoku-anneal"))
        .args(["solve", "--backend", "gpu-bits", "--ladders", "64", "--batch", "2", "--format", "jsonl", INKALA])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let record: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (record["backend"].as_str(), record["solution"].as_str()),
        (Some("gpu-bits"), Some(&*solution.to_string()))
    );
}
