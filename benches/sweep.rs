//! Sweep throughput in spin-update attempts per second.
//! `cargo bench --bench sweep` (criterion reports elements/s = attempts/s).

use criterion::measurement::WallTime;
use criterion::{criterion_group, criterion_main, BenchmarkGroup, BenchmarkId, Criterion, Throughput};

use sudoku_anneal::backend::bitsliced::{BitslicedBackend, LADDERS_PER_MASK};
use sudoku_anneal::backend::cpu::spins::{sweep, Replica};
use sudoku_anneal::backend::cpu::CpuBackend;
use sudoku_anneal::backend::gpu::kernel::KernelOptions;
use sudoku_anneal::backend::gpu::{AdapterChoice, GpuBackend};
use sudoku_anneal::backend::lanes::LanesBackend;
use sudoku_anneal::backend::tables::SpinTable;
use sudoku_anneal::backend::{Backend, Layout, Problem};
use sudoku_anneal::dynamics::{AdaptiveWeights, Completion, Dynamics, Moves, Trades, Weights};
use sudoku_anneal::grid::{Shape, Variant};
use sudoku_anneal::model::Model;
use sudoku_anneal::puzzle::parse_grid;
use sudoku_anneal::reduce::{reduce, Reduce};
use sudoku_anneal::tempering::Ladder;
use sudoku_anneal::BackendKind;
use sudoku_anneal::Settings;

const INKALA: &str = "8..........36......7..9.2...5...7.......457.....1...3...1....68..85...1..9....4..";
const SWEEPS: u32 = 20;

fn inkala(mode: Reduce) -> Model {
    Model::build(&reduce(&parse_grid(INKALA.as_bytes(), Variant::Standard).unwrap(), mode).unwrap()).unwrap()
}

/// The public 25×25 of `examples/25x25.txt`, its clues applied.
fn public_25x25() -> Model {
    let line = include_str!("../examples/25x25.txt").lines().find(|l| !l.starts_with('#')).unwrap();
    let grid = parse_grid(&line.as_bytes()[..625], Variant::Standard).unwrap();
    Model::build(&reduce(&grid, Reduce::Clues).unwrap()).unwrap()
}

/// One replica on one thread, at the default ladder's coldest and hottest rungs.
fn cpu_sweep_one_thread(c: &mut Criterion) {
    let settings = Settings::plain_model();
    let model = inkala(Reduce::Clues);
    let cpu = SpinTable::new(&model);
    let ladder = Ladder::geometric(settings.replicas, settings.t_min, settings.t_max);
    let problem = Problem::new(&model, &ladder, 1);
    let mut group = c.benchmark_group("cpu_sweep_one_thread");
    group.throughput(Throughput::Elements(SWEEPS as u64 * model.len() as u64));
    for rung in [0, settings.replicas - 1] {
        let table = problem.row(rung);
        let mut replica = Replica::new(&cpu, 1, 0);
        // Warm up to the rung's equilibrium so the bench sees typical acceptance.
        (0..2_000).for_each(|s| sweep(&cpu, &mut replica, table, s));
        let mut next = 2_000;
        group.bench_function(BenchmarkId::new("inkala", format!("T={:.2}", ladder.temperatures[rung])), |b| {
            b.iter(|| {
                (next..next + SWEEPS).for_each(|s| sweep(&cpu, &mut replica, table, s));
                next += SWEEPS;
            })
        });
    }
    group.finish();
}

/// The whole default ladder on every core, as `solve` runs it.
fn cpu_backend_all_threads(c: &mut Criterion) {
    let settings = Settings::plain_model();
    let model = inkala(Reduce::Clues);
    let ladder = Ladder::geometric(settings.replicas, settings.t_min, settings.t_max);
    let mut backend = CpuBackend::new();
    let problem = Problem::new(&model, &ladder, 1);
    backend.configure(Layout::spins(Shape::CLASSIC, 1, settings.replicas, settings.replicas)).unwrap();
    backend.load(0, &problem).unwrap();
    let rungs: Vec<u32> = (0..settings.replicas as u32).collect();
    backend.sweep(&rungs, &[2_000]).unwrap();
    let mut group = c.benchmark_group("cpu_backend_all_threads");
    group.throughput(Throughput::Elements(SWEEPS as u64 * model.len() as u64 * settings.replicas as u64));
    group.bench_function(BenchmarkId::new("inkala", settings.replicas), |b| {
        b.iter(|| backend.sweep(&rungs, &[SWEEPS]).unwrap())
    });
    group.finish();
}

/// The scalar and the bit-sliced backend on the same work, one thread:
/// 128 ladders of the default 16 rungs (one lane mask per rung when bit-sliced).
fn cpu_backends_one_thread(c: &mut Criterion) {
    let settings = Settings::plain_model();
    let model = inkala(Reduce::Clues);
    let ladder = Ladder::geometric(settings.replicas, settings.t_min, settings.t_max);
    let problem = Problem::new(&model, &ladder, 1);
    let replicas = LADDERS_PER_MASK * settings.replicas;
    let layout = Layout::spins(Shape::CLASSIC, 1, replicas, settings.replicas);
    let rungs: Vec<u32> = (0..replicas as u32).map(|r| r % settings.replicas as u32).collect();
    let one_thread = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let mut group = c.benchmark_group("cpu_backends_one_thread");
    group.throughput(Throughput::Elements(SWEEPS as u64 * model.len() as u64 * replicas as u64));
    let backends: [Box<dyn Backend + Send>; 2] = [Box::new(CpuBackend::new()), Box::new(BitslicedBackend::new())];
    for mut backend in backends {
        backend.configure(layout).unwrap();
        backend.load(0, &problem).unwrap();
        one_thread.install(|| backend.sweep(&rungs, &[200]).unwrap());
        group.bench_function(BenchmarkId::new(backend.name(), format!("inkala, {replicas} replicas")), |b| {
            b.iter(|| one_thread.install(|| backend.sweep(&rungs, &[SWEEPS]).unwrap()))
        });
    }
    group.finish();
}

/// cpu-bits at its 9×9 default, one thread: one lane mask of 128 chains at
/// T = 0.63, warmed up to that temperature's typical acceptance.
fn cpu_bits_one_temperature(c: &mut Criterion) {
    let model = inkala(Reduce::Clues);
    let ladder = Ladder { temperatures: vec![0.63] };
    let layout = Layout::spins(Shape::CLASSIC, 1, LADDERS_PER_MASK, 1);
    let rungs = vec![0; LADDERS_PER_MASK];
    let one_thread = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let mut backend = BitslicedBackend::new();
    backend.configure(layout).unwrap();
    backend.load(0, &Problem::new(&model, &ladder, 1)).unwrap();
    one_thread.install(|| backend.sweep(&rungs, &[2_000]).unwrap());
    let mut group = c.benchmark_group("cpu_bits_one_temperature");
    group.throughput(Throughput::Elements(SWEEPS as u64 * model.len() as u64 * LADDERS_PER_MASK as u64));
    group.bench_function(BenchmarkId::new("cpu-bits", format!("inkala, {LADDERS_PER_MASK} chains, T=0.63")), |b| {
        b.iter(|| one_thread.install(|| backend.sweep(&rungs, &[SWEEPS]).unwrap()))
    });
    group.finish();
}

/// Cell moves with adaptive weights on one thread, at T = 1.2: the
/// reference (cpu) and the lanes backend, 32 chains of Inkala each. An
/// attempt weighs one candidate, so attempts/s compare with the spin
/// backends' (cpu-bits above) per unit of work. After the warm-up the
/// chains sit near Inkala's solution and change few cells, so this reads
/// a nearly frozen chain's rate: a whole solve's is in BENCHMARKS.md.
fn cell_moves_one_thread(c: &mut Criterion) {
    let model = inkala(Reduce::Clues);
    let ladder = Ladder { temperatures: vec![1.2] };
    let dynamics = Dynamics {
        moves: Moves::Cell,
        weights: Weights::Adaptive(AdaptiveWeights::DEFAULT),
        completion: Completion::Off,
        trades: Trades::Off,
    };
    let chains = 32;
    let layout = Layout { shape: Shape::CLASSIC, slots: 1, replicas_per_slot: chains, rungs: 1, dynamics };
    let rungs = vec![0; chains];
    let one_thread = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let mut group = c.benchmark_group("cell_moves_one_thread");
    type Setup<'a> = (Layout, Problem<'a>, Vec<u32>, rayon::ThreadPool);
    group.throughput(Throughput::Elements(SWEEPS as u64 * model.len() as u64 * chains as u64));
    fn run<B: Backend + Send>(group: &mut BenchmarkGroup<'_, WallTime>, mut backend: B, setup: &Setup) {
        let (layout, problem, rungs, one_thread) = setup;
        backend.configure(*layout).unwrap();
        backend.load(0, problem).unwrap();
        one_thread.install(|| backend.sweep(rungs, &[200]).unwrap());
        group.bench_function(BenchmarkId::new(backend.name(), format!("inkala, {} chains, T=1.2", rungs.len())), |b| {
            b.iter(|| one_thread.install(|| backend.sweep(rungs, &[SWEEPS]).unwrap()))
        });
    }
    let setup = (layout, Problem::with_dynamics(&model, &ladder, 1, dynamics), rungs, one_thread);
    run(&mut group, CpuBackend::new(), &setup);
    run(&mut group, LanesBackend::new(), &setup);
    group.finish();
}

/// cpu-lanes on the public 25×25 at its defaults (8 ladders of 4 rungs,
/// the 25×25 weights), one thread, in calls of the defaults' 5 sweeps
/// whose rungs alternate between two orders as exchange rounds leave them:
/// before each call the chains that changed rung move to their rung's
/// quarter of the lanes, where the weights come from tables.
fn cell_moves_ladder_one_thread(c: &mut Criterion) {
    let defaults = BackendKind::CpuLanes.defaults(Variant::Standard, None);
    let (tempering, rule) = (defaults.largest_boards.tempering, defaults.largest_boards.weights);
    let model = public_25x25();
    let ladder = Ladder::geometric(tempering.replicas, tempering.t_min, tempering.t_max);
    let dynamics = Dynamics {
        moves: Moves::Cell,
        weights: Weights::Adaptive(rule),
        completion: Completion::Off,
        trades: Trades::Off,
    };
    let (rungs, chains) = (tempering.replicas, tempering.replicas * tempering.ladders);
    let shape = Shape { n: 25, variant: Variant::Standard };
    let mut backend = LanesBackend::new();
    backend.configure(Layout { shape, slots: 1, replicas_per_slot: chains, rungs, dynamics }).unwrap();
    backend.load(0, &Problem::with_dynamics(&model, &ladder, 1, dynamics)).unwrap();
    // Each ladder's rungs in order, then with its two lower and its two upper rungs swapped.
    let orders: [Vec<u32>; 2] = [[0, 1, 2, 3], [1, 0, 3, 2]].map(|o| (0..chains).map(|c| o[c % rungs]).collect());
    let one_thread = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    one_thread.install(|| backend.sweep(&orders[0], &[200]).unwrap());
    let mut group = c.benchmark_group("cell_moves_ladder_one_thread");
    group.throughput(Throughput::Elements(2 * defaults.exchange_every as u64 * model.len() as u64 * chains as u64));
    let name = format!("25x25, {} ladders of {rungs} rungs", tempering.ladders);
    group.bench_function(BenchmarkId::new(backend.name(), name), |b| {
        b.iter(|| {
            one_thread.install(|| {
                for order in &orders {
                    backend.sweep(order, &[defaults.exchange_every]).unwrap();
                }
            })
        })
    });
    group.finish();
}

/// Sweeps per dispatch in the GPU benches: GPU_BENCH_SWEEPS, else 100.
fn gpu_bench_sweeps() -> u32 {
    std::env::var("GPU_BENCH_SWEEPS").ok().and_then(|v| v.parse().ok()).unwrap_or(100)
}

/// The kernel variant GPU_BENCH_KERNEL selects (`KernelOptions::parse`;
/// empty: the kernel that runs), and what to append to a bench's name for it.
fn gpu_bench_kernel() -> (KernelOptions, String) {
    let variant = std::env::var("GPU_BENCH_KERNEL").unwrap_or_default();
    let options = KernelOptions::parse(&variant).expect("GPU_BENCH_KERNEL");
    (options, if variant.is_empty() { String::new() } else { format!(" [{variant}]") })
}

/// The GPU sweep kernels with many replicas (default 65,536, as slots of
/// 1,024): spins.wgsl on the single-spin ladder, cells.wgsl at the cell
/// defaults' temperature, bits.wgsl on the ladder and at gpu-bits' one
/// temperature; GPU_BENCH_KERNEL selects a variant (`KernelOptions`).
/// Skipped without a hardware adapter; setting GPU_BENCH_REPLICAS (lower,
/// e.g. 1024) allows a software one, whose setup alone would take minutes
/// at the default.
fn gpu_sweep(c: &mut Criterion) {
    let adapter =
        if std::env::var_os("GPU_BENCH_REPLICAS").is_some() { AdapterChoice::Any } else { AdapterChoice::Hardware };
    let replicas: usize = std::env::var("GPU_BENCH_REPLICAS").ok().and_then(|v| v.parse().ok()).unwrap_or(65_536);
    let sweeps = gpu_bench_sweeps();
    let settings = Settings::plain_model();
    let default_ladder = Ladder::geometric(settings.replicas, settings.t_min, settings.t_max);
    let one_temperature = Ladder::geometric(1, 0.63, 0.63);
    let heat_bath = Ladder::geometric(1, 1.2, 1.2);
    let (plain, cells) = (
        Dynamics::default(),
        Dynamics {
            moves: Moves::Cell,
            weights: Weights::Adaptive(AdaptiveWeights::DEFAULT),
            completion: Completion::Off,
            trades: Trades::Off,
        },
    );
    let cases = [
        (BackendKind::Gpu, plain, &default_ladder),
        (BackendKind::Gpu, cells, &heat_bath),
        (BackendKind::GpuBits, plain, &default_ladder),
        (BackendKind::GpuBits, plain, &one_temperature),
    ];
    // A kernel variant to time, e.g. `global-totals`.
    let (options, variant) = gpu_bench_kernel();
    let mut group = c.benchmark_group("gpu_sweep");
    for (kind, dynamics, ladder) in cases {
        let mut gpu = match GpuBackend::with_options(adapter.clone(), kind, options) {
            Ok(gpu) => gpu,
            Err(err) => return eprintln!("gpu_sweep skipped: {err}"),
        };
        let rungs = ladder.rungs();
        for mode in [Reduce::Clues, Reduce::None] {
            let model = inkala(mode);
            let problem = Problem::with_dynamics(&model, ladder, 1, dynamics);
            let slots = replicas.div_ceil(1024);
            let layout = Layout { shape: Shape::CLASSIC, slots, replicas_per_slot: replicas / slots, rungs, dynamics };
            gpu.configure(layout).unwrap();
            (0..slots).for_each(|slot| gpu.load(slot, &problem).unwrap());
            let rung_of_replica: Vec<u32> = (0..replicas as u32).map(|r| r % rungs as u32).collect();
            gpu.sweep(&rung_of_replica, &vec![200; slots]).unwrap();
            let counts = vec![sweeps; slots];
            group.throughput(Throughput::Elements(sweeps as u64 * model.len() as u64 * replicas as u64));
            let temperatures = if rungs == 1 { "one temperature".to_string() } else { format!("{rungs} temperatures") };
            // What tells the cases apart first: criterion cuts long names short.
            let name = format!(
                "{}, {} spins, {replicas} replicas, {:?} moves at {temperatures}, {sweeps} sweeps/dispatch{}",
                gpu.name(),
                model.len(),
                dynamics.moves,
                variant,
            );
            group.bench_function(BenchmarkId::new(gpu.adapter().name.clone(), name), |b| {
                b.iter(|| gpu.sweep(&rung_of_replica, &counts).unwrap())
            });
        }
    }
    group.finish();
}

/// cells.wgsl on the public 25×25 (`examples/25x25.txt`) by replicas in
/// flight, as whole runs hold them (slots of 32, a puzzle's replicas): 3,
/// 6, 10, 32 and 256 puzzles by default, or GPU_BENCH_LARGE_REPLICAS (a
/// comma-separated list). On an H200 a run of 10 such puzzles went 1.7×
/// faster with three replicas a workgroup than with two, but those of 6
/// did not (BENCHMARKS.md, session 47): where that step falls is what this
/// maps, with GPU_BENCH_KERNEL=units-per-group=2 for the old shape.
/// Skipped without a hardware adapter unless the list is set.
fn gpu_cells_large(c: &mut Criterion) {
    let list = std::env::var("GPU_BENCH_LARGE_REPLICAS").ok();
    let adapter = if list.is_some() { AdapterChoice::Any } else { AdapterChoice::Hardware };
    let counts: Vec<usize> = list
        .as_deref()
        .unwrap_or("96,192,320,1024,8192")
        .split(',')
        .map(|n| n.trim().parse().expect("GPU_BENCH_LARGE_REPLICAS: replica counts"))
        .collect();
    let sweeps = gpu_bench_sweeps();
    let (options, variant) = gpu_bench_kernel();
    let shape = Shape { n: 25, variant: Variant::Standard };
    let model = public_25x25();
    let dynamics = Dynamics {
        moves: Moves::Cell,
        weights: Weights::Adaptive(AdaptiveWeights::DEFAULT),
        completion: Completion::Off,
        trades: Trades::Off,
    };
    let ladder = Ladder::geometric(1, 0.45, 0.45);
    let problem = Problem::with_dynamics(&model, &ladder, 1, dynamics);
    let mut gpu = match GpuBackend::with_options(adapter, BackendKind::Gpu, options) {
        Ok(gpu) => gpu,
        Err(err) => return eprintln!("gpu_cells_large skipped: {err}"),
    };
    let mut group = c.benchmark_group("gpu_cells_large");
    for replicas in counts {
        let slots = replicas.div_ceil(32);
        let layout = Layout { shape, slots, replicas_per_slot: 32, rungs: 1, dynamics };
        gpu.configure(layout).unwrap();
        (0..slots).for_each(|slot| gpu.load(slot, &problem).unwrap());
        let rung_of_replica = vec![0; slots * 32];
        gpu.sweep(&rung_of_replica, &vec![20; slots]).unwrap();
        let counts = vec![sweeps; slots];
        group.throughput(Throughput::Elements(sweeps as u64 * model.len() as u64 * (slots * 32) as u64));
        let name = format!("{} replicas{variant}", slots * 32);
        group.bench_function(BenchmarkId::new(gpu.adapter().name.clone(), name), |b| {
            b.iter(|| gpu.sweep(&rung_of_replica, &counts).unwrap())
        });
    }
    group.finish();
}

criterion_group!(
    benches,
    cpu_sweep_one_thread,
    cpu_backend_all_threads,
    cpu_backends_one_thread,
    cpu_bits_one_temperature,
    cell_moves_one_thread,
    cell_moves_ladder_one_thread,
    gpu_sweep,
    gpu_cells_large
);
criterion_main!(benches);
