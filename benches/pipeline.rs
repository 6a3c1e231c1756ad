//! The stages around the sweeps: parsing, model build and the solver's own
//! work must never be the bottleneck (goals: ≥ 1 M lines/s parsed; the
//! host's puzzles/s well above the 25,000/s the GPU is to reach).
//! `cargo bench --bench pipeline`.

use std::ops::Range;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

use sudoku_anneal::backend::bitsliced::BitslicedBackend;
use sudoku_anneal::backend::cpu::CpuBackend;
use sudoku_anneal::backend::{Backend, Layout, Problem};
use sudoku_anneal::dynamics::Moves;
use sudoku_anneal::error::Result;
use sudoku_anneal::grid::{Grid, Shape, Variant};
use sudoku_anneal::model::Model;
use sudoku_anneal::puzzle::{parse_grid, PuzzleReader};
use sudoku_anneal::reduce::{reduce, Reduce};
use sudoku_anneal::report::{record, Format};
use sudoku_anneal::solver::{solve, solve_stream};
use sudoku_anneal::{BackendKind, Outcome, Overrides, Settings, Status};

const INKALA: &str = "8..........36......7..9.2...5...7.......457.....1...3...1....68..85...1..9....4..";
const EASY: &str = "004300209005009001070060043006002087190007400050083000600000105003508690042910300";

/// 100,000 lines streamed through the reader, as `solve` reads a file.
fn parse_lines(c: &mut Criterion) {
    const LINES: usize = 100_000;
    let text: String = (0..LINES).map(|i| format!("{}\n", if i % 2 == 0 { INKALA } else { EASY })).collect();
    let mut group = c.benchmark_group("parse");
    group.throughput(Throughput::Elements(LINES as u64));
    group.bench_function("100k lines", |b| {
        b.iter(|| {
            PuzzleReader::new(text.as_bytes(), Variant::Standard)
                .filter(|e| e.as_ref().is_ok_and(|e| e.grid.is_ok()))
                .count()
        })
    });
    group.finish();
}

/// Reduction plus QUBO build for one puzzle, per reduction mode.
fn model_build(c: &mut Criterion) {
    let grid = parse_grid(INKALA.as_bytes(), Variant::Standard).unwrap();
    let mut group = c.benchmark_group("model_build");
    for mode in [Reduce::None, Reduce::Clues, Reduce::Propagate] {
        group.bench_function(BenchmarkId::new("inkala", format!("{mode:?}")), |b| {
            b.iter(|| Model::build(&reduce(&grid, mode).unwrap()).unwrap())
        });
    }
    group.finish();
}

/// A device that takes no time: one replica of each slot reaches energy 0
/// after `rounds` rounds, and its spins encode the puzzle's known solution.
/// What is left is the solver's own work around the sweeps.
struct InstantBackend {
    solutions: Vec<Grid>,
    rounds: u32,
    per_slot: usize,
    /// Per slot: the solution's spins, and the rounds run so far.
    slots: Vec<Option<(Vec<u8>, u32)>>,
}

impl Backend for InstantBackend {
    /// It stands in for a GPU.
    fn kind(&self) -> BackendKind {
        BackendKind::Gpu
    }

    fn device(&self) -> String {
        "none".into()
    }

    fn max_replicas(&self, _shape: Shape) -> usize {
        usize::MAX
    }

    fn configure(&mut self, layout: Layout) -> Result<()> {
        self.per_slot = layout.replicas_per_slot;
        self.slots = vec![None; layout.slots];
        Ok(())
    }

    fn load(&mut self, slot: usize, problem: &Problem) -> Result<()> {
        let fixed = &problem.model.fixed.cells;
        let fits = |s: &&Grid| s.cells.iter().zip(fixed).all(|(&s, &f)| f == 0 || s == f);
        let solution = self.solutions.iter().find(fits).expect("only puzzles with known solutions");
        self.slots[slot] = Some((problem.model.encode(solution), 0));
        Ok(())
    }

    fn unload(&mut self, slot: usize) -> Result<()> {
        self.slots[slot] = None;
        Ok(())
    }

    fn submit(&mut self, slots: Range<usize>, _rung_of_replica: &[u32], counts: &[u32]) -> Result<()> {
        for (slot, _) in self.slots[slots].iter_mut().zip(counts).filter(|(_, &count)| count > 0) {
            if let Some((_, rounds)) = slot {
                *rounds += 1;
            }
        }
        Ok(())
    }

    fn energies(&mut self, slots: Range<usize>) -> Result<Vec<i32>> {
        let mut energies = vec![2; slots.len() * self.per_slot];
        for (energies, slot) in energies.chunks_mut(self.per_slot).zip(&self.slots[slots]) {
            if slot.as_ref().is_some_and(|(_, rounds)| *rounds >= self.rounds) {
                energies[self.per_slot / 2] = 0;
            }
        }
        Ok(energies)
    }

    fn overlaps_host_work(&self) -> bool {
        true
    }

    fn spins(&mut self, replicas: &[usize]) -> Result<Vec<Vec<u8>>> {
        let spins = |r: &usize| self.slots[r / self.per_slot].as_ref().expect("a solved slot is loaded").0.clone();
        Ok(replicas.iter().map(spins).collect())
    }
}

/// The solver's puzzles/s with an instant device: the ceiling the host
/// sets on any backend's throughput (reading, reduction and model build,
/// loading, exchange, decode and verify, records). The famous five over
/// and over, each solved after as many rounds as a GPU run typically needs.
fn host_ceiling(c: &mut Criterion) {
    const PUZZLES: usize = 2_000;
    // Built in, so the bench binary runs on the device machine too.
    let famous: Vec<&str> =
        include_str!("../examples/hard.txt").lines().filter(|l| !l.starts_with('#')).map(|l| &l[..81]).collect();
    let one_temperature = Settings { ladders: 64, replicas: 1, t_min: 0.63, t_max: 0.63, ..Settings::plain_model() };
    let solutions: Vec<Grid> = famous
        .iter()
        .map(|p| {
            let puzzle = parse_grid(p.as_bytes(), Variant::Standard).unwrap();
            match solve(&puzzle, &one_temperature, &mut BitslicedBackend::new()).unwrap().status {
                Status::Solved(solution) => solution,
                other => panic!("{p}: {other:?}"),
            }
        })
        .collect();
    let lines: String = (0..PUZZLES).map(|i| format!("{}\n", famous[i % famous.len()])).collect();
    let mut group = c.benchmark_group("host_ceiling");
    group.throughput(Throughput::Elements(PUZZLES as u64));
    group.sample_size(10);
    // (name, settings, rounds to a solution); the cell defaults' median
    // on the hardest class is 260 sweeps: 13 rounds of 20.
    let spins = Overrides { moves: Some(Moves::Spin), ..Overrides::default() };
    let gpu_spins = Settings::resolve(BackendKind::Gpu, &spins).unwrap();
    let cases = [
        ("gpu spin defaults: 64 ladders of 16, 64 puzzles, 16 rounds", gpu_spins, 16),
        (
            "gpu-bits defaults: 1,024 chains, 64 puzzles, 5 rounds",
            Settings { ladders: 1024, replicas: 1, batch: 64, ..Settings::plain_model() },
            5,
        ),
        (
            "128 chains, 512 puzzles, 35 rounds",
            Settings { ladders: 128, replicas: 1, batch: 512, ..Settings::plain_model() },
            35,
        ),
        ("gpu cell defaults: 32 chains, 256 puzzles, 13 rounds", Settings::for_backend(BackendKind::Gpu), 13),
    ];
    for (name, settings, rounds) in cases {
        let settings = Settings { exchange_every: 20, ..settings.for_shape(Shape::CLASSIC) };
        group.bench_function(name, |b| {
            b.iter(|| {
                let mut backend = InstantBackend { solutions: solutions.clone(), rounds, per_slot: 0, slots: vec![] };
                let entries = PuzzleReader::new(lines.as_bytes(), Variant::Standard).map(|e| e.map_err(Into::into));
                let mut solved = 0;
                let emit = |entry, outcome: Outcome| {
                    solved += usize::from(matches!(outcome.status, Status::Solved(_)));
                    std::hint::black_box(record(Format::Jsonl, &entry, &outcome, "instant"));
                    Ok(())
                };
                solve_stream(entries, &settings, &mut backend, emit, || false).unwrap();
                assert_eq!(solved, PUZZLES);
            })
        });
    }
    group.finish();
}

/// A Kaggle-class collection (every puzzle falls to singles) through the
/// whole pipeline on one thread: read, reduce, verify, format a record.
/// Goal (issue 21): 1,000,000 puzzles per CPU-second. The puzzles are the
/// Kaggle example with its digits relabelled, so each needs the same work.
fn easy_collection(c: &mut Criterion) {
    const PUZZLES: usize = 100_000;
    let mut labels: Vec<u8> = (b'1'..=b'9').collect();
    let lines: String = (0..PUZZLES)
        .map(|i| {
            labels.rotate_left(1 + i % 7);
            labels.swap(i % 9, (i / 9) % 9);
            let puzzle: String =
                EASY.bytes().map(|c| if c == b'0' { '.' } else { labels[(c - b'1') as usize] as char }).collect();
            puzzle + "\n"
        })
        .collect();
    let settings = Settings::for_backend(BackendKind::Cpu);
    let mut group = c.benchmark_group("easy_collection");
    group.throughput(Throughput::Elements(PUZZLES as u64));
    group.sample_size(10);
    group.bench_function("100k Kaggle-class lines, one thread", |b| {
        b.iter(|| {
            let entries = PuzzleReader::new(lines.as_bytes(), Variant::Standard).map(|e| e.map_err(Into::into));
            let mut out = Vec::with_capacity(PUZZLES * 82);
            let emit = |entry, outcome: Outcome| {
                assert!(outcome.is_solved());
                out.extend_from_slice(record(Format::Plain, &entry, &outcome, "cpu").as_bytes());
                out.push(b'\n');
                Ok(())
            };
            solve_stream(entries, &settings, &mut CpuBackend::new(), emit, || false).unwrap();
            out
        })
    });
    group.finish();
}

criterion_group!(benches, parse_lines, model_build, host_ceiling, easy_collection);
criterion_main!(benches);
