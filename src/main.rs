//! The `sudoku-anneal` command line: parse flags into validated settings,
//! stream puzzles through the solver, print one record per puzzle.

use std::io::{self, IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use clap::{Parser, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};

use sudoku_anneal::backend::bitsliced::{BitslicedBackend, LADDERS_PER_MASK};
use sudoku_anneal::backend::gpu::kernel::Engine;
use sudoku_anneal::backend::gpu::{list_adapters, AdapterChoice, GpuBackend};
use sudoku_anneal::backend::{cpu::CpuBackend, Backend};
use sudoku_anneal::grid::{Shape, Variant};
use sudoku_anneal::puzzle::{count_puzzles, entries, parse_grid, Entry};
use sudoku_anneal::reduce::{check_clues, reduce, Reduce};
use sudoku_anneal::report::{record, Format, Summary};
use sudoku_anneal::solver::{default_temperatures, solve_stream, solve_stream_with_fallback, GeometricLadder};
use sudoku_anneal::{bench, export, model::Model, Error, Settings};

const EXIT_CODES: &str = "\
Exit codes:
  0    every puzzle solved
  1    some puzzle unsolved within the budget, or invalid
  2    usage, input/output or device error
  130  interrupted (Ctrl-C); every record printed before is complete";

/// GPU defaults, from hardest-class time to solution on an H100 (BENCHMARKS.md):
/// more ladders need fewer sweeps, but past 64 each sweep costs more than it saves.
const GPU_LADDERS: usize = 64;
const GPU_EXCHANGE_EVERY: u32 = 20;
/// Puzzles in flight on a GPU: 64 × 64 ladders × 16 rungs = 65,536 replicas.
const GPU_BATCH: usize = 64;
/// gpu-bits defaults, not yet measured on a GPU: the cpu-bits ladders, with
/// 1,024 chains per puzzle (32 words) and 64 puzzles, 65,536 replicas in flight.
const GPU_BITS_LADDERS: usize = 1024;
/// The cpu-bits ladders on Sudoku boards, from the work (sweeps × rungs) to
/// solve hardest-class puzzles (BENCHMARKS.md). Beside 64 ladders, 8 rungs
/// need about 30 % less than 16; on 9×9 boards one temperature (independent
/// chains) needs a third of the 8 rungs' work, but larger boards fail there.
const BITS_LADDER: GeometricLadder = GeometricLadder { replicas: 8, t_min: 0.45, t_max: 1.0 };
const BITS_SMALL_BOARDS: GeometricLadder = GeometricLadder { replicas: 1, t_min: 0.63, t_max: 0.63 };

#[derive(Parser)]
#[command(name = "sudoku-anneal", version, about = "Solve Sudoku as an Ising model by parallel tempering on the CPU or a GPU", after_help = EXIT_CODES)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Solve puzzles: one output line per input puzzle, in input order.
    #[command(after_help = EXIT_CODES)]
    Solve(SolveArgs),
    /// Solve puzzle files on several backends and compare: markdown table,
    /// optional JSON and time-to-solution plot.
    Bench(BenchArgs),
    /// Write the model of one puzzle for other annealers.
    Export(ExportArgs),
    /// List the GPU adapters wgpu finds and the one `--backend auto` picks.
    Devices,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum BackendChoice {
    Cpu,
    /// The CPU with 128 ladders in the bits of each SSE2 register (multi-spin coding).
    CpuBits,
    Gpu,
    /// The GPU with 32 replicas in the bits of each u32 (multi-spin coding, as cpu-bits).
    GpuBits,
    /// A hardware GPU if there is one (gpu), else the CPU (cpu-bits).
    Auto,
}

#[derive(clap::Args)]
struct ModelArgs {
    /// Spins removed before annealing.
    #[arg(long, value_enum, default_value_t = Reduce::Clues)]
    reduce: Reduce,
    /// The rules: standard Sudoku, X (diagonals too), or Latin squares (no boxes). The size follows from the line length.
    #[arg(long, value_enum, default_value_t = Variant::Standard)]
    variant: Variant,
}

/// Annealing settings shared by `solve` and `bench`.
#[derive(clap::Args)]
struct SettingsArgs {
    /// Seed of every random stream; the same seed gives the same result.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Replicas per ladder, one per temperature [default: 16; on cpu-bits and gpu-bits 1 up to 9×9 boards and 8 on larger ones, except with --variant latin].
    /// Setting any of --replicas, --t-min, --t-max, --temperatures sets the ladder for every board size.
    #[arg(long, conflicts_with = "temperatures")]
    replicas: Option<usize>,
    /// Independent ladders per puzzle [default: 1 on the cpu backend, 128 on cpu-bits, 64 on gpu, 1024 on gpu-bits].
    #[arg(long)]
    ladders: Option<usize>,
    /// Puzzles annealed at once; a finished one's slot takes the next [default: 1 on the cpu backend, one per thread on cpu-bits, 64 on the gpu backends].
    #[arg(long)]
    batch: Option<usize>,
    /// Lowest temperature of the geometric ladder [default: 0.4; on cpu-bits and gpu-bits 0.63 up to 9×9 and 0.45 above; 0.3 with --variant latin].
    #[arg(long)]
    t_min: Option<f64>,
    /// Highest temperature of the geometric ladder [default: 1.2; on cpu-bits and gpu-bits 0.63 up to 9×9 and 1.0 above; 0.9 with --variant latin].
    #[arg(long)]
    t_max: Option<f64>,
    /// An explicit ladder instead of the geometric one: increasing temperatures, one per replica.
    #[arg(long, value_delimiter = ',', value_name = "T,T,...", conflicts_with_all = ["t_min", "t_max"])]
    temperatures: Option<Vec<f64>>,
    /// Sweeps between replica-exchange rounds [default: 10 on the cpu backends, 20 on the gpu backends].
    #[arg(long)]
    exchange_every: Option<u32>,
    /// Sweep budget per puzzle.
    #[arg(long, default_value_t = Settings::default().max_sweeps)]
    max_sweeps: u32,
    /// Time budget per puzzle in seconds (0: none).
    #[arg(long, default_value_t = 60.0)]
    timeout: f64,
    #[command(flatten)]
    model: ModelArgs,
}

#[derive(clap::Args)]
struct SolveArgs {
    /// Puzzle strings (16, 81, 256 or 625 cells; any n² with --variant latin), files of one puzzle per line, or `-` for stdin (the default).
    inputs: Vec<String>,
    #[arg(long, value_enum, default_value_t = BackendChoice::Auto)]
    backend: BackendChoice,
    #[arg(long, value_enum, default_value_t = Format::Plain)]
    format: Format,
    /// Only the puzzles whose index (0-based, over all inputs) is K modulo N,
    /// e.g. one shard per GPU of a job array; records keep their line numbers.
    #[arg(long, value_name = "K/N", value_parser = parse_shard)]
    shard: Option<Shard>,
    #[command(flatten)]
    settings: SettingsArgs,
}

#[derive(clap::Args)]
struct BenchArgs {
    /// Puzzle files.
    #[arg(required = true)]
    files: Vec<String>,
    /// Backends to compare, comma-separated; each runs every file with the
    /// same flags (unset ones take that backend's defaults, shown in the report).
    #[arg(long, value_enum, value_delimiter = ',', default_value = "cpu,gpu")]
    backend: Vec<BackendChoice>,
    /// Runs per file and backend, with seeds seed, seed + 1, …: per-puzzle
    /// success probability and TTS99.
    #[arg(long, default_value_t = 1)]
    runs: u64,
    /// Also write the results as JSON here.
    #[arg(long, value_name = "PATH")]
    json: Option<String>,
    /// Also draw time-to-solution CDFs as SVG here.
    #[arg(long, value_name = "PATH.svg")]
    plot: Option<String>,
    #[command(flatten)]
    settings: SettingsArgs,
}

#[derive(Clone, Copy, ValueEnum)]
enum ExportFormat {
    /// JSON, 0/1 variables: offset, linear, quadratic [i, j, J], variables [cell, digit].
    BqmJson,
    /// Text: `offset N`, `var i cell digit` lines, then `i j q` lines (i = j: linear).
    Qubo,
    /// JSON like bqm-json in ±1 spins (s = 2x − 1).
    Ising,
}

#[derive(clap::Args)]
struct ExportArgs {
    /// The puzzle: 16, 81, 256 or 625 cells (any n² with --variant latin).
    puzzle: String,
    #[arg(long, value_enum, default_value_t = ExportFormat::BqmJson)]
    format: ExportFormat,
    /// Write here instead of stdout.
    #[arg(short, long)]
    output: Option<String>,
    #[command(flatten)]
    model: ModelArgs,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // The solver's thread is a worker of the pool, so the CPU backends'
    // parallel sweeps start on it instead of waking another thread and
    // sleeping until it is done.
    if let Err(err) = rayon::ThreadPoolBuilder::new().use_current_thread().build_global() {
        eprintln!("sudoku-anneal: error: cannot start the thread pool: {err}");
        return ExitCode::from(2);
    }
    match run(cli) {
        Ok(code) => code,
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("sudoku-anneal: error: {err:#}");
            ExitCode::from(2)
        }
    }
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    let broken = |e: &io::Error| e.kind() == io::ErrorKind::BrokenPipe;
    err.chain().any(|cause| {
        cause.downcast_ref::<io::Error>().is_some_and(broken)
            || matches!(cause.downcast_ref::<Error>(), Some(Error::Io(e)) if broken(e))
    })
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Solve(args) => run_solve(args),
        Command::Bench(args) => run_bench(args),
        Command::Export(args) => run_export(args),
        Command::Devices => run_devices(),
    }
}

impl SettingsArgs {
    /// The settings for one backend: unset flags take its defaults.
    fn resolve(&self, backend: &dyn Backend) -> anyhow::Result<Settings> {
        let defaults = BackendDefaults::of(backend);
        // Latin squares keep their own ladder: the short ones are measured on Sudoku only.
        let short_ladder = defaults.short_ladders && self.model.variant != Variant::Latin;
        let (t_min, t_max) = if short_ladder {
            (BITS_LADDER.t_min, BITS_LADDER.t_max)
        } else {
            default_temperatures(self.model.variant)
        };
        let replicas =
            self.replicas.unwrap_or(if short_ladder { BITS_LADDER.replicas } else { Settings::default().replicas });
        let ladder_unset =
            self.replicas.is_none() && self.t_min.is_none() && self.t_max.is_none() && self.temperatures.is_none();
        if !(self.timeout >= 0.0 && self.timeout.is_finite()) {
            bail!("--timeout must be a number of seconds >= 0");
        }
        let settings = Settings {
            replicas: self.temperatures.as_ref().map_or(replicas, Vec::len),
            ladders: self.ladders.unwrap_or(defaults.ladders),
            batch: self.batch.unwrap_or(defaults.batch),
            // An explicit ladder's ends, so that reports show them.
            t_min: self.temperatures.as_ref().and_then(|l| l.first().copied()).or(self.t_min).unwrap_or(t_min),
            t_max: self.temperatures.as_ref().and_then(|l| l.last().copied()).or(self.t_max).unwrap_or(t_max),
            temperatures: self.temperatures.clone(),
            exchange_every: self.exchange_every.unwrap_or(defaults.exchange_every),
            max_sweeps: self.max_sweeps,
            timeout: (self.timeout > 0.0).then(|| Duration::from_secs_f64(self.timeout)),
            seed: self.seed,
            reduce: self.model.reduce,
            variant: self.model.variant,
            small_boards: (short_ladder && ladder_unset).then_some(BITS_SMALL_BOARDS),
        };
        settings.validate()?;
        Ok(fit_batch(settings, backend))
    }
}

/// What a backend runs with where the flags leave it open.
struct BackendDefaults {
    ladders: usize,
    batch: usize,
    exchange_every: u32,
    /// The cpu-bits ladders (`BITS_LADDER`, `BITS_SMALL_BOARDS`) instead of the solver's.
    short_ladders: bool,
}

impl BackendDefaults {
    fn of(backend: &dyn Backend) -> BackendDefaults {
        let solver = Settings::default();
        match backend.name() {
            "gpu" => BackendDefaults {
                ladders: GPU_LADDERS,
                batch: GPU_BATCH,
                exchange_every: GPU_EXCHANGE_EVERY,
                short_ladders: false,
            },
            "gpu-bits" => BackendDefaults {
                ladders: GPU_BITS_LADDERS,
                batch: GPU_BATCH,
                exchange_every: GPU_EXCHANGE_EVERY,
                short_ladders: true,
            },
            // cpu-bits anneals a 9×9 puzzle in one lane mask, on one thread: a puzzle
            // per thread keeps every core busy, and results do not depend on the batch.
            "cpu-bits" => BackendDefaults {
                ladders: LADDERS_PER_MASK,
                batch: rayon::current_num_threads(),
                exchange_every: solver.exchange_every,
                short_ladders: true,
            },
            _ => BackendDefaults {
                ladders: solver.ladders,
                batch: solver.batch,
                exchange_every: solver.exchange_every,
                short_ladders: false,
            },
        }
    }
}

/// Fewer puzzles in flight when the batch would exceed the device's buffers
/// (for 9×9 boards; the solver fits larger ones again).
fn fit_batch(settings: Settings, backend: &dyn Backend) -> Settings {
    let classic = settings.for_shape(Shape::CLASSIC);
    let fitted = classic.fit_replicas(backend.max_replicas(Shape::CLASSIC)).batch;
    if fitted < settings.batch {
        eprintln!(
            "sudoku-anneal: --batch {} needs {} replicas; {} holds {}, so {} puzzles run at once",
            settings.batch,
            settings.batch * classic.ladders * classic.replicas,
            backend.device(),
            backend.max_replicas(Shape::CLASSIC),
            fitted
        );
    }
    Settings { batch: fitted, ..settings }
}

fn make_backend(choice: BackendChoice) -> anyhow::Result<Box<dyn Backend>> {
    Ok(match choice {
        BackendChoice::Cpu => Box::new(CpuBackend::new()),
        BackendChoice::CpuBits => Box::new(BitslicedBackend::new()),
        BackendChoice::Gpu | BackendChoice::GpuBits => {
            let engine = if choice == BackendChoice::Gpu { Engine::Spins } else { Engine::Bits };
            let gpu = GpuBackend::new(AdapterChoice::Any, engine)?;
            eprintln!("sudoku-anneal: {} backend on {}", gpu.name(), gpu.adapter().name);
            Box::new(gpu)
        }
        BackendChoice::Auto => match GpuBackend::new(AdapterChoice::Hardware, Engine::Spins) {
            Ok(gpu) => {
                eprintln!("sudoku-anneal: auto picked the gpu backend on {}", gpu.adapter().name);
                Box::new(gpu)
            }
            // The fastest CPU backend (BENCHMARKS.md: 12–13× the attempts/s of `cpu`).
            Err(why) => {
                eprintln!("sudoku-anneal: auto picked the cpu-bits backend ({why})");
                Box::new(BitslicedBackend::new())
            }
        },
    })
}

fn run_devices() -> anyhow::Result<ExitCode> {
    let (adapters, pick) = list_adapters(AdapterChoice::Hardware);
    let mut out = io::stdout().lock();
    for (i, a) in adapters.iter().enumerate() {
        let mark = if Some(i) == pick { "  <- auto" } else { "" };
        writeln!(out, "{i}: {} | backend {} | type {} | driver {}{mark}", a.name, a.backend, a.device_type, a.driver)?;
    }
    if pick.is_none() {
        writeln!(out, "auto: no hardware GPU with compute shaders; the cpu-bits backend is used")?;
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(Clone, Copy, Debug)]
struct Shard {
    index: usize,
    count: usize,
}

fn parse_shard(text: &str) -> Result<Shard, String> {
    let usage = || format!("expected K/N with 0 <= K < N, got {text:?}");
    let (index, count) = text.split_once('/').ok_or_else(usage)?;
    let shard = Shard { index: index.parse().map_err(|_| usage())?, count: count.parse().map_err(|_| usage())? };
    if shard.index < shard.count {
        Ok(shard)
    } else {
        Err(usage())
    }
}

/// A progress bar on stderr when it is a terminal, hidden otherwise.
fn progress_bar(inputs: &[String]) -> ProgressBar {
    if !io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let (bar, template) = match count_puzzles(inputs) {
        Some(total) => (ProgressBar::new(total), "{bar:30} {pos}/{len} puzzles, {msg}, ETA {eta}"),
        None => (ProgressBar::no_length(), "{spinner} {pos} puzzles, {msg}, {elapsed}"),
    };
    bar.set_style(ProgressStyle::with_template(template).expect("the template is valid"));
    bar
}

fn run_solve(args: SolveArgs) -> anyhow::Result<ExitCode> {
    let mut backend = make_backend(args.backend)?;
    let settings = args.settings.resolve(backend.as_ref())?;
    let inputs = if args.inputs.is_empty() { vec!["-".to_string()] } else { args.inputs.clone() };
    // The backend that produced the next record: auto may fall back from gpu to cpu-bits mid-run.
    let name = std::cell::Cell::new(backend.name());
    let interrupted = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&interrupted);
    ctrlc::set_handler(move || flag.store(true, Ordering::Relaxed)).context("cannot install the Ctrl-C handler")?;
    let progress = progress_bar(&inputs);
    let mut out = io::stdout().lock();
    let mut summary = Summary::default();
    let mut last_line = None;
    let started = Instant::now();
    let shard = args.shard.unwrap_or(Shard { index: 0, count: 1 });
    // Errors always pass, so a bad input stops every shard.
    let entries = entries(&inputs, settings.variant)
        .scan(0usize, |puzzles, entry| {
            let index = *puzzles;
            *puzzles += usize::from(entry.is_ok());
            Some((index, entry))
        })
        .filter(|(index, entry)| entry.is_err() || index % shard.count == shard.index)
        .map(|(_, entry)| entry);
    let emit = |entry: Entry, outcome| {
        summary.add(&outcome);
        writeln!(out, "{}", record(args.format, &entry, &outcome, name.get()))?;
        out.flush()?;
        last_line = Some(entry.line);
        progress.inc(1);
        let rate = summary.puzzles as f64 / started.elapsed().as_secs_f64();
        progress.set_message(format!("{} solved, {rate:.1} puzzles/s", summary.solved));
        Ok(())
    };
    let fallback = |error: &Error| {
        if args.backend != BackendChoice::Auto || name.get() != "gpu" {
            return None;
        }
        let cpu = BitslicedBackend::new();
        let cpu_settings = args.settings.resolve(&cpu).ok()?;
        progress.suspend(|| {
            eprintln!(
                "sudoku-anneal: {error}; auto goes on with the cpu-bits backend from the first puzzle not yet printed"
            )
        });
        name.set(cpu.name());
        Some((Box::new(cpu) as Box<dyn Backend>, cpu_settings))
    };
    let stop = || interrupted.load(Ordering::Relaxed);
    let result = solve_stream_with_fallback(entries, &settings, backend.as_mut(), fallback, emit, stop);
    progress.finish_and_clear();
    eprintln!("sudoku-anneal: {}", summary.describe(name.get(), started.elapsed().as_secs_f64()));
    result?;
    if interrupted.load(Ordering::Relaxed) {
        let last = last_line.map_or("none".to_string(), |line| format!("line {line}"));
        eprintln!("sudoku-anneal: interrupted; the last record printed is for {last}");
        return Ok(ExitCode::from(130));
    }
    Ok(if summary.all_solved() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

fn run_bench(args: BenchArgs) -> anyhow::Result<ExitCode> {
    let mut reports = Vec::new();
    for &choice in &args.backend {
        let mut backend = make_backend(choice)?;
        let settings = args.settings.resolve(backend.as_ref())?;
        // Untimed warm-up: first-use costs of the device belong to no puzzle.
        solve_stream(
            entries(&args.files[..1], settings.variant).take(1),
            &settings,
            backend.as_mut(),
            |_, _| Ok(()),
            || false,
        )?;
        for file in &args.files {
            let mut runs = Vec::new();
            for seed in (0..args.runs).map(|run| settings.seed + run) {
                let mut outcomes = Vec::new();
                let started = Instant::now();
                let run_settings = Settings { seed, ..settings.clone() };
                let keep = |_, outcome| {
                    outcomes.push(outcome);
                    Ok(())
                };
                solve_stream(
                    entries(std::slice::from_ref(file), settings.variant),
                    &run_settings,
                    backend.as_mut(),
                    keep,
                    || false,
                )?;
                runs.push(bench::Run { seed, wall_seconds: started.elapsed().as_secs_f64(), outcomes });
            }
            eprintln!("sudoku-anneal: bench: {file} on {} done", backend.name());
            let (backend_name, device) = (backend.name().to_string(), backend.device());
            reports.push(bench::Report {
                file: file.clone(),
                backend: backend_name,
                device,
                settings: settings.clone(),
                runs,
            });
        }
    }
    print!("{}", bench::markdown(&reports));
    if let Some(path) = &args.json {
        std::fs::write(path, bench::json(&reports) + "\n").with_context(|| format!("cannot write {path}"))?;
    }
    if let Some(path) = &args.plot {
        bench::plot_svg(&reports, Path::new(path))?;
    }
    Ok(ExitCode::SUCCESS)
}

fn run_export(args: ExportArgs) -> anyhow::Result<ExitCode> {
    let grid = parse_grid(args.puzzle.as_bytes(), args.model.variant).context("the puzzle is not valid")?;
    let candidates =
        check_clues(&grid).and_then(|()| reduce(&grid, args.model.reduce)).context("the puzzle is not valid")?;
    let model = Model::build(&candidates).context("the puzzle is not valid")?;
    let text = match args.format {
        ExportFormat::BqmJson => export::bqm_json(&model) + "\n",
        ExportFormat::Qubo => export::qubo_text(&model),
        ExportFormat::Ising => export::ising_json(&model) + "\n",
    };
    match &args.output {
        Some(path) => std::fs::write(path, text).with_context(|| format!("cannot write {path}"))?,
        None => io::stdout().write_all(text.as_bytes())?,
    }
    Ok(ExitCode::SUCCESS)
}
