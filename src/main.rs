//! The `sudoku-anneal` command line: parse flags into validated settings,
//! stream puzzles through the solver, print one record per puzzle.

use std::cell::RefCell;
use std::io::{self, IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::{CommandFactory, Parser, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};

use sudoku_anneal::backend::gpu::{list_adapters, AdapterChoice, AdapterName};
use sudoku_anneal::backend::kind::Batch;
use sudoku_anneal::backend::Backend;
use sudoku_anneal::puzzle::{check_inputs, count_puzzles, entries, Entry, Input, Next, ReadAhead};
use sudoku_anneal::reduce::reduce;
use sudoku_anneal::report::{self, Format, Summary};
use sudoku_anneal::say;
use sudoku_anneal::settings::ModelOptions;
use sudoku_anneal::solver::{solve_stream, solve_stream_on_threads, solve_stream_with_fallback};
use sudoku_anneal::{
    bench, export, merge, model::Model, outcome::Outcome, BackendChoice, BackendKind, Error, Overrides, Settings,
};

const EXIT_CODES: &str = "\
Exit codes:
  0    every puzzle solved
  1    some puzzle unsolved within the budget, or invalid (0 with --allow-unsolved);
       merge: an index missing or repeated (the records found are written)
  2    usage, input/output or device error, or the engine failed on a puzzle
  130  interrupted (Ctrl-C, SIGINT); every record printed before is complete
  143  stopped by SIGTERM (a scheduler's preemption) in the same way; a second
       signal ends the process at once
  141  the output was closed early (e.g. `| head`); the rest was not solved";

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
    /// Write the model of each puzzle for other annealers, in input order.
    Export(ExportArgs),
    /// Join shard outputs (`solve --format jsonl --shard K/N`) into input
    /// order; says which indices are missing or repeated (exit 1).
    Merge(MergeArgs),
    /// List the GPU adapters wgpu finds and the one `--backend auto` picks.
    Devices,
    /// Print a shell's completion script (e.g. `sudoku-anneal completions
    /// bash > /etc/bash_completion.d/sudoku-anneal`).
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the manual page, in roff (`sudoku-anneal man > sudoku-anneal.1`).
    Man,
    /// Serve a local web page that anneals a puzzle live: the ladder's
    /// energies, the best replica's grid, the final record.
    Serve(ServeArgs),
}

#[derive(clap::Args)]
struct ServeArgs {
    /// Where to listen: the loopback address unless you ask for another.
    #[arg(long, default_value = "127.0.0.1:8080")]
    addr: std::net::SocketAddr,
    #[command(flatten)]
    device: DeviceArgs,
}

#[derive(clap::Args)]
struct DeviceArgs {
    /// The GPU the gpu and gpu-bits backends (and auto) run on: its number
    /// in `sudoku-anneal devices`, or a part of its name (e.g. one shard
    /// per GPU of a host).
    #[arg(long, value_name = "N|NAME")]
    adapter: Option<AdapterName>,
}

#[derive(clap::Args)]
struct SolveArgs {
    /// Puzzle strings (16, 81, 256 or 625 cells; any n² with --variant latin), files of one puzzle per line, or `-` for stdin (the default).
    inputs: Vec<String>,
    #[arg(long, value_enum, default_value = "auto")]
    backend: BackendChoice,
    #[arg(long, value_enum, default_value_t = Format::Plain)]
    format: Format,
    /// Only the puzzles whose index (0-based, over all inputs) is K modulo N,
    /// e.g. one shard per GPU of a job array; records keep their line numbers.
    #[arg(long, value_name = "K/N", value_parser = parse_shard)]
    shard: Option<Shard>,
    /// Exit 0 though some puzzles are unsolved within their budget or
    /// invalid (their records say so): a job array's shard that ran to its
    /// budget is no failed task. Errors of input, output, device or engine
    /// still exit 2.
    #[arg(long)]
    allow_unsolved: bool,
    #[command(flatten)]
    device: DeviceArgs,
    #[command(flatten)]
    settings: Overrides,
}

#[derive(clap::Args)]
struct BenchArgs {
    /// Puzzle files.
    #[arg(required = true)]
    files: Vec<String>,
    /// Backends to compare, comma-separated; each runs every file with the
    /// same flags (unset ones take that backend's defaults, shown in the
    /// report). A backend that cannot start is reported and skipped.
    /// [default: cpu-lanes, and gpu when there is a hardware GPU]
    #[arg(long, value_enum, value_delimiter = ',')]
    backend: Option<Vec<BackendChoice>>,
    /// Runs per file and backend, with seeds seed, seed + 1, …: per-puzzle
    /// success probability and TTS99.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=MAX_RUNS))]
    runs: u64,
    /// Also write the results as JSON here.
    #[arg(long, value_name = "PATH")]
    json: Option<String>,
    /// Also draw time-to-solution CDFs as SVG here.
    #[arg(long, value_name = "PATH.svg", value_parser = parse_svg_path)]
    plot: Option<String>,
    #[command(flatten)]
    device: DeviceArgs,
    #[command(flatten)]
    settings: Overrides,
}

#[derive(Clone, Copy, ValueEnum)]
enum ExportFormat {
    /// JSON, 0/1 variables: offset, linear, quadratic [i, j, J], variables [cell, digit].
    BqmJson,
    /// Text: `offset N`, `var i cell digit` lines, then `i j q` lines (i = j: linear).
    Qubo,
    /// JSON like bqm-json in ±1 spins (s = 2x − 1).
    Ising,
    /// DIMACS CNF, satisfied exactly at energy 0: `c var V cell digit` lines, `p cnf`, clauses.
    Dimacs,
}

#[derive(clap::Args)]
struct ExportArgs {
    /// Puzzle strings, files of one puzzle per line, or `-` for stdin (the
    /// default), as for solve. One model per puzzle: the JSON formats write
    /// one line each, qubo one block each, headed by a `# puzzle` line, and
    /// dimacs one problem each, headed by a `c puzzle` line. An
    /// invalid puzzle stops the export (exit 1), after the models before it.
    inputs: Vec<String>,
    #[arg(long, value_enum, default_value_t = ExportFormat::BqmJson)]
    format: ExportFormat,
    /// Write here instead of stdout.
    #[arg(short, long)]
    output: Option<String>,
    #[command(flatten)]
    model: ModelOptions,
}

#[derive(clap::Args)]
struct MergeArgs {
    /// The shards' jsonl outputs, in any order.
    #[arg(required = true)]
    files: Vec<String>,
    /// How many records there should be (the puzzles of the input), so that
    /// missing last ones are found too.
    #[arg(long)]
    expect: Option<u64>,
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // Help and version go to stdout (exit 0), usage errors to stderr (exit 2);
        // help that cannot be written is an output error, not a success.
        Err(err) => {
            let code = if err.use_stderr() { 2 } else { 0 };
            return match err.print() {
                Ok(()) => ExitCode::from(code),
                Err(_) => ExitCode::from(2),
            };
        }
    };
    // The solver's thread is a worker of the pool, so the CPU backends'
    // parallel sweeps start on it instead of waking another thread and
    // sleeping until it is done.
    if let Err(err) = rayon::ThreadPoolBuilder::new().use_current_thread().build_global() {
        say!("error: cannot start the thread pool: {err}");
        return ExitCode::from(2);
    }
    match run(cli) {
        Ok(code) => code,
        // Quietly, as a process killed by SIGPIPE, and not 0: most puzzles may never have run.
        Err(err) if is_broken_pipe(&err) => ExitCode::from(141),
        Err(err) => {
            say!("error: {err:#}");
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
        Command::Merge(args) => run_merge(args),
        Command::Devices => run_devices(),
        Command::Completions { shell } => {
            // Into memory first: clap_complete panics on a failed write.
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "sudoku-anneal", &mut script);
            io::stdout().lock().write_all(&script).context("cannot write the completions")?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Man => {
            let mut out = io::stdout().lock();
            let rendered = clap_mangen::Man::new(Cli::command()).render(&mut out).and_then(|()| out.flush());
            rendered.context("cannot write the manual page")?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Serve(args) => {
            let ready = |addr| say!("serving http://{addr}/ (Ctrl-C stops)");
            let serve = sudoku_anneal::serve::serve(args.addr, args.device.adapter, ready);
            serve.with_context(|| format!("cannot serve on {}", args.addr))?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// The settings `overrides` make for `backend`, with no more puzzles in
/// flight than it holds.
fn resolve(overrides: &Overrides, backend: &dyn Backend) -> anyhow::Result<Settings> {
    let (settings, note) = Settings::resolve(backend.kind(), overrides)?.fit_to(backend);
    if let Some(note) = note {
        say!("{note}");
    }
    Ok(settings)
}

/// Threads that each run a solver of their own over the one input, with no
/// join per round, where the backend's batch is its default of one puzzle
/// per thread; `None`: one solver over the whole batch.
fn solver_threads(flags: &Overrides, kind: BackendKind, settings: &Settings) -> Option<usize> {
    let per_thread = kind.defaults(settings.variant, Some(settings.moves)).batch == Batch::OnePerThread;
    let threads = rayon::current_num_threads();
    (per_thread && flags.batch.is_none() && threads > 1).then_some(threads)
}

/// The backend of `choice`, said on stderr for a GPU.
fn make_backend(choice: BackendChoice, adapter: Option<&AdapterName>) -> anyhow::Result<Box<dyn Backend>> {
    let (kind, backend) = choice.build_on(adapter)?;
    if kind.is_gpu() && choice != BackendChoice::Auto {
        say!("{} backend on {}", kind.name(), backend.device());
    }
    Ok(backend)
}

fn run_devices() -> anyhow::Result<ExitCode> {
    let (adapters, pick) = list_adapters(AdapterChoice::Hardware);
    let mut out = io::stdout().lock();
    for (i, a) in adapters.iter().enumerate() {
        let mark = if Some(i) == pick { "  <- auto" } else { "" };
        writeln!(out, "{i}: {} | backend {} | type {} | driver {}{mark}", a.name, a.backend, a.device_type, a.driver)?;
    }
    if pick.is_none() {
        let cpu = BackendChoice::Auto.fallback().map_or("a CPU", BackendKind::name);
        writeln!(out, "auto: no hardware GPU with compute shaders; the {cpu} backend is used")?;
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

/// The records on their way to stdout: buffered, and flushed whenever the
/// input runs dry (whoever writes it may wait for them) and otherwise when
/// [`FLUSH_EVERY`] has passed, checked every round of the solver.
struct Output {
    out: io::BufWriter<io::StdoutLock<'static>>,
    flushed: Instant,
    /// The record being written, kept for the next: no allocation per record.
    line: Vec<u8>,
}

const FLUSH_EVERY: Duration = Duration::from_millis(50);

impl Output {
    fn new() -> Output {
        // 64 KiB a write: a million records are some 80 MB.
        let out = io::BufWriter::with_capacity(1 << 16, io::stdout().lock());
        Output { out, flushed: Instant::now(), line: Vec::new() }
    }

    /// No clock read here: per record it cost 3 % of an easy collection.
    fn write_record(&mut self, format: Format, entry: &Entry, outcome: &Outcome, backend: &str) -> io::Result<()> {
        self.line.clear();
        report::write_record(&mut self.line, format, entry, outcome, backend);
        self.line.push(b'\n');
        self.out.write_all(&self.line)
    }

    fn flush_if_due(&mut self) -> io::Result<()> {
        match self.flushed.elapsed() >= FLUSH_EVERY {
            true => self.flush(),
            false => Ok(()),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        self.flushed = Instant::now();
        self.out.flush()
    }
}

/// The entries of one shard, calling `on_dry` (the output's flush) when
/// they run dry. Errors always pass, so a bad input stops every shard.
struct ShardInput<I, F> {
    entries: I,
    shard: Shard,
    on_dry: F,
}

impl<I: Input, F: FnMut()> Input for ShardInput<I, F> {
    fn next_entry(&mut self, wait: bool) -> Next {
        loop {
            let next = match self.entries.next_entry(false) {
                Next::NotYet => {
                    (self.on_dry)();
                    match wait {
                        true => self.entries.next_entry(true),
                        false => return Next::NotYet,
                    }
                }
                next => next,
            };
            match next {
                Next::Entry(Ok(entry)) if entry.index % self.shard.count != self.shard.index => continue,
                next => return next,
            }
        }
    }
}

/// A progress bar on stderr when it is a terminal and stdout is not (on
/// one terminal, records would be written over the bar), hidden otherwise.
fn progress_bar(inputs: &[String]) -> ProgressBar {
    if !io::stderr().is_terminal() || io::stdout().is_terminal() {
        return ProgressBar::hidden();
    }
    let (bar, template) = match count_puzzles(inputs) {
        Some(total) => (ProgressBar::new(total), "{bar:30} {pos}/{len} puzzles, {msg}, ETA {eta}"),
        None => (ProgressBar::no_length(), "{spinner} {pos} puzzles, {msg}, {elapsed}"),
    };
    bar.set_style(ProgressStyle::with_template(template).expect("the template is valid"));
    bar.set_message("0 solved");
    bar
}

fn run_solve(args: SolveArgs) -> anyhow::Result<ExitCode> {
    let mut backend = make_backend(args.backend, args.device.adapter.as_ref())?;
    let settings = resolve(&args.settings, backend.as_ref())?;
    let inputs = if args.inputs.is_empty() { vec!["-".to_string()] } else { args.inputs.clone() };
    check_inputs(&inputs)?;
    // The backend that produced the next record: auto may fall back from gpu to cpu-lanes mid-run.
    let name = std::cell::Cell::new(backend.name());
    let interrupt = Interrupt::install()?;
    let progress = progress_bar(&inputs);
    let output = RefCell::new(Output::new());
    let mut summary = Summary::default();
    let mut last_line = None;
    let started = Instant::now();
    let shard = args.shard.unwrap_or(Shard { index: 0, count: 1 });
    let read = ReadAhead::spawn(inputs.clone(), settings.variant);
    let mut disagreements = 0;
    let emit = |entry: Entry, outcome: Outcome| {
        if let Some(why) = outcome.solution().and_then(|found| entry.disagreement(found)) {
            disagreements += 1;
            progress.suspend(|| say!("warning: line {}: {why}", entry.line));
        }
        summary.add(&outcome);
        output.borrow_mut().write_record(args.format, &entry, &outcome, name.get())?;
        last_line = Some(entry.line);
        if !progress.is_hidden() {
            let rate = summary.puzzles as f64 / started.elapsed().as_secs_f64();
            progress.set_message(format!("{} solved, {rate:.1} puzzles/s", summary.solved));
            progress.inc(1);
        }
        Ok(())
    };
    let fallback = |error: &Error| {
        let kind = args.backend.fallback()?;
        let cpu = kind.build().ok()?;
        let cpu_settings = resolve(&args.settings, cpu.as_ref()).ok()?;
        progress.suspend(|| {
            say!("{error}; auto goes on with the {} backend from the first puzzle not yet printed", kind.name())
        });
        name.set(kind.name());
        Some((cpu, cpu_settings))
    };
    // A failed flush is not lost: the next write or the last flush fails too.
    let flush_if_due = || drop(output.borrow_mut().flush_if_due());
    let result = match solver_threads(&args.settings, backend.kind(), &settings) {
        Some(threads) => {
            // Each thread's solver reads on while the others anneal: no flush on a dry input.
            let entries = ShardInput { entries: read, shard, on_dry: || {} };
            let stop = || interrupt.raised();
            solve_stream_on_threads(entries, &settings, threads, backend.kind(), emit, stop, flush_if_due)
        }
        None => {
            let entries = ShardInput { entries: read, shard, on_dry: || drop(output.borrow_mut().flush()) };
            // Asked every round: records written while puzzles anneal go out within FLUSH_EVERY and a round.
            let stop = || {
                flush_if_due();
                interrupt.raised()
            };
            // Tracking the puzzles in flight for a fallback costs a copy of each: only a GPU run may need one.
            match backend.kind().is_gpu() && args.backend.fallback().is_some() {
                true => solve_stream_with_fallback(entries, &settings, backend.as_mut(), fallback, emit, stop),
                false => solve_stream(entries, &settings, backend.as_mut(), emit, stop),
            }
        }
    };
    let result = result.map_err(anyhow::Error::from).and_then(|()| Ok(output.borrow_mut().flush()?));
    progress.finish_and_clear();
    // The error that follows says why; a summary would count records never written.
    result?;
    say!("{}", summary.describe(name.get(), started.elapsed().as_secs_f64()));
    if disagreements > 0 {
        say!(
            "warning: {disagreements} of the solutions found differ from the input's solutions column \
             (each obeys the rules and the clues)"
        );
    }
    if interrupt.raised() {
        let last = last_line.map_or("none".to_string(), |line| format!("line {line}"));
        let (cause, code) = interrupt.cause();
        say!("{cause}; the last record printed is for {last}");
        return Ok(code);
    }
    if summary.failed > 0 {
        say!("error: the engine failed on {} puzzles (see their records); please report", summary.failed);
        return Ok(ExitCode::from(2));
    }
    Ok(if summary.all_solved() || args.allow_unsolved { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// The most runs `bench` keeps: every outcome of every run stays in memory.
const MAX_RUNS: u64 = 10_000;

fn parse_svg_path(path: &str) -> Result<String, String> {
    match Path::new(path).extension() {
        Some(extension) if extension.eq_ignore_ascii_case("svg") => Ok(path.to_string()),
        _ => Err(format!("the plot is drawn as SVG: name it PATH.svg, not {path:?}")),
    }
}

/// Flags that Ctrl-C (SIGINT) and SIGTERM (what Slurm and Kubernetes send
/// before they kill a job) raise, so a run stops between rounds and reports
/// what it has; a second signal ends the process at once.
struct Interrupt {
    stop: Arc<AtomicBool>,
    terminated: Arc<AtomicBool>,
}

impl Interrupt {
    fn install() -> anyhow::Result<Interrupt> {
        use signal_hook::consts::{SIGINT, SIGTERM};
        use signal_hook::flag::{register, register_conditional_shutdown};
        let interrupt = Interrupt { stop: Arc::default(), terminated: Arc::default() };
        let install = || -> io::Result<()> {
            // The shutdown first: it acts only when a signal before this one raised the flag.
            register_conditional_shutdown(SIGINT, 130, Arc::clone(&interrupt.stop))?;
            register_conditional_shutdown(SIGTERM, 143, Arc::clone(&interrupt.stop))?;
            register(SIGINT, Arc::clone(&interrupt.stop))?;
            register(SIGTERM, Arc::clone(&interrupt.stop))?;
            register(SIGTERM, Arc::clone(&interrupt.terminated)).map(drop)
        };
        install().context("cannot install the signal handlers")?;
        Ok(interrupt)
    }

    fn raised(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// What stopped the run, and its exit status (128 + the signal's number, as a shell reports it).
    fn cause(&self) -> (&'static str, ExitCode) {
        match self.terminated.load(Ordering::Relaxed) {
            true => ("stopped by SIGTERM", ExitCode::from(143)),
            false => ("interrupted", ExitCode::from(130)),
        }
    }
}

/// A backend to benchmark and its settings.
type Contender = (Box<dyn Backend>, Settings);

/// The backends `bench` compares, and how many could not start (said on
/// stderr and left out).
fn bench_backends(args: &BenchArgs) -> anyhow::Result<(Vec<Contender>, usize)> {
    let adapter = args.device.adapter.as_ref();
    let choices = args.backend.clone().unwrap_or_else(|| {
        let cpu = BackendChoice::Kind(BackendKind::CpuLanes);
        match (adapter, list_adapters(AdapterChoice::Hardware)) {
            (Some(_), _) | (_, (_, Some(_))) => vec![cpu, BackendChoice::Kind(BackendKind::Gpu)],
            (None, (_, None)) => vec![cpu],
        }
    });
    let mut backends = Vec::new();
    let mut skipped = 0;
    for choice in choices {
        // The adapter named is where the GPU backends run; the CPU ones compare beside them.
        let on_gpu = !matches!(choice, BackendChoice::Kind(kind) if !kind.is_gpu());
        match make_backend(choice, adapter.filter(|_| on_gpu)) {
            Ok(backend) => {
                let settings = resolve(&args.settings, backend.as_ref())?;
                backends.push((backend, settings));
            }
            Err(err) => {
                say!("error: {err:#}; bench goes on without it");
                skipped += 1;
            }
        }
    }
    Ok((backends, skipped))
}

fn run_bench(args: BenchArgs) -> anyhow::Result<ExitCode> {
    check_inputs(&args.files)?;
    // Created now, so a bad path fails before the first puzzle, not after the last.
    let create = |path: &String| std::fs::File::create(path).with_context(|| format!("cannot write {path}"));
    let json_file = args.json.as_ref().map(create).transpose()?;
    if let Some(path) = &args.plot {
        create(path)?;
    }
    let (mut backends, skipped) = bench_backends(&args)?;
    if backends.is_empty() {
        anyhow::bail!("no backend to benchmark could start");
    }
    let interrupt = Interrupt::install()?;
    let stop = || interrupt.raised();
    let mut reports = Vec::new();
    'backends: for (backend, settings) in &mut backends {
        let threads = solver_threads(&args.settings, backend.kind(), settings);
        // Untimed warm-up: first-use costs of the device belong to no puzzle.
        let first = entries(&args.files[..1], settings.variant).take(1);
        solve_stream(first, settings, backend.as_mut(), |_, _| Ok(()), stop)?;
        for file in &args.files {
            let mut report = bench::Report {
                file: file.clone(),
                backend: backend.name().to_string(),
                device: backend.device(),
                settings: settings.clone(),
                runs: Vec::new(),
            };
            for seed in (0..args.runs).map(|run| settings.seed + run) {
                let run = bench_run(file, &Settings { seed, ..settings.clone() }, backend.as_mut(), threads, stop)?;
                if stop() {
                    // A run cut short would skew every figure: report the whole runs only.
                    reports.extend((!report.runs.is_empty()).then_some(report));
                    break 'backends;
                }
                report.runs.push(run);
            }
            say!("bench: {file} on {} done", backend.name());
            reports.push(report);
        }
    }
    io::stdout().write_all(bench::markdown(&reports).as_bytes()).context("cannot write the table")?;
    if let Some(mut file) = json_file {
        writeln!(file, "{}", bench::json(&reports))
            .with_context(|| format!("cannot write {}", args.json.as_deref().unwrap_or_default()))?;
    }
    if let Some(path) = &args.plot {
        bench::plot_svg(&reports, Path::new(path))?;
    }
    let invalid: usize = reports.iter().map(|r| r.stats().invalid).sum();
    if invalid > 0 {
        say!("warning: {invalid} input lines are no valid puzzle; no figure counts them");
    }
    Ok(if stop() {
        let (cause, code) = interrupt.cause();
        say!("{cause}; the table holds the runs finished before");
        code
    } else if skipped > 0 {
        ExitCode::from(2)
    } else if invalid > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// One timed pass over `file`.
fn bench_run(
    file: &str,
    settings: &Settings,
    backend: &mut dyn Backend,
    threads: Option<usize>,
    stop: impl Fn() -> bool + Sync,
) -> anyhow::Result<bench::Run> {
    let mut outcomes = Vec::new();
    let (started, cpu_before) = (Instant::now(), bench::process_cpu_seconds());
    let keep = |_, outcome| {
        outcomes.push(outcome);
        Ok(())
    };
    let entries = entries(&[file.to_string()], settings.variant);
    match threads {
        Some(threads) => solve_stream_on_threads(entries, settings, threads, backend.kind(), keep, stop, || {})?,
        None => solve_stream(entries, settings, backend, keep, stop)?,
    }
    let cpu_seconds = bench::process_cpu_seconds().zip(cpu_before).map(|(after, before)| after - before);
    Ok(bench::Run { seed: settings.seed, wall_seconds: started.elapsed().as_secs_f64(), cpu_seconds, outcomes })
}

fn run_merge(args: MergeArgs) -> anyhow::Result<ExitCode> {
    let open = |path: &String| -> anyhow::Result<(String, io::BufReader<std::fs::File>)> {
        let file = std::fs::File::open(path).with_context(|| format!("cannot open {path}"))?;
        Ok((path.clone(), io::BufReader::with_capacity(1 << 16, file)))
    };
    let inputs = args.files.iter().map(open).collect::<anyhow::Result<Vec<_>>>()?;
    let mut out = io::BufWriter::with_capacity(1 << 16, io::stdout().lock());
    let merged = merge::merge(inputs, args.expect, &mut out)?;
    let files = args.files.len();
    if !merged.missing.is_empty() {
        let count: u64 = merged.missing.iter().map(|r| r.end - r.start).sum();
        say!(
            "error: {count} indices missing: {} (a shard not run, or cut short?)",
            merge::describe_ranges(&merged.missing, 10)
        );
    }
    if !merged.repeated.is_empty() {
        let shown: Vec<String> = merged.repeated.iter().take(10).map(u64::to_string).collect();
        let more = merged.repeated.len().saturating_sub(10);
        let more = if more > 0 { format!(" and {more} more") } else { String::new() };
        say!(
            "error: {} indices repeated, each written once: {}{more} (a shard given twice?)",
            merged.repeated.len(),
            shown.join(", ")
        );
    }
    say!("{} records from {files} files", merged.records);
    Ok(if merged.is_complete() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

fn run_export(args: ExportArgs) -> anyhow::Result<ExitCode> {
    let inputs = if args.inputs.is_empty() { vec!["-".to_string()] } else { args.inputs.clone() };
    check_inputs(&inputs)?;
    let mut out: Box<dyn Write> = match &args.output {
        Some(path) => {
            Box::new(io::BufWriter::new(std::fs::File::create(path).with_context(|| format!("cannot write {path}"))?))
        }
        None => Box::new(io::stdout().lock()),
    };
    let ModelOptions { reduce: mode, variant } = args.model;
    for entry in entries(&inputs, variant) {
        let entry = entry?;
        let file = entry.file.as_deref().unwrap_or("the command line");
        let model = entry.grid.clone().and_then(|grid| Model::build(&reduce(&grid, mode)?));
        let model = match model {
            Ok(model) => model,
            Err(reason) => {
                out.flush()?;
                say!("error: {file}, line {}: {reason}; nothing after it was exported", entry.line);
                return Ok(ExitCode::from(1));
            }
        };
        match args.format {
            ExportFormat::BqmJson => writeln!(out, "{}", export::bqm_json(&model))?,
            ExportFormat::Qubo => {
                writeln!(out, "# puzzle {} ({file}, line {})", entry.index, entry.line)?;
                out.write_all(export::qubo_text(&model).as_bytes())?;
            }
            ExportFormat::Ising => writeln!(out, "{}", export::ising_json(&model))?,
            ExportFormat::Dimacs => {
                writeln!(out, "c puzzle {} ({file}, line {})", entry.index, entry.line)?;
                out.write_all(export::dimacs_cnf(&model).as_bytes())?;
            }
        }
    }
    out.flush().context("cannot write the models")?;
    Ok(ExitCode::SUCCESS)
}
