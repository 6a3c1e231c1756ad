//! The stages around the sweeps: parsing and model build must never be the
//! bottleneck (goal: ≥ 1 M lines/s parsed). `cargo bench --bench pipeline`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

use sudoku_anneal::grid::Variant;
use sudoku_anneal::model::Model;
use sudoku_anneal::puzzle::{parse_grid, PuzzleReader};
use sudoku_anneal::reduce::{reduce, Reduce};

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

criterion_group!(benches, parse_lines, model_build);
criterion_main!(benches);
