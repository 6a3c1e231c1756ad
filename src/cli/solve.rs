//! `solve`: puzzles in, one record per puzzle out, in input order.

use std::cell::{Cell, RefCell};
use std::io::{self, IsTerminal, Write};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};
use sudoku_anneal::puzzle::{check_inputs, count_puzzles, Entry, Input, Next, ReadAhead};
use sudoku_anneal::report::{self, Format, Summary};
use sudoku_anneal::solver::{solve_stream, solve_stream_on_threads, solve_stream_with_fallback, solver_threads};
use sudoku_anneal::{say, BackendChoice, Error, Outcome, Overrides};

use super::interrupt::Interrupt;
use super::{make_backend, resolve, DeviceArgs};

#[derive(clap::Args)]
pub struct SolveArgs {
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

pub fn run(args: SolveArgs) -> anyhow::Result<ExitCode> {
    let mut backend = make_backend(args.backend, args.device.adapter.as_ref())?;
    let settings = resolve(&args.settings, backend.as_ref())?;
    let inputs = if args.inputs.is_empty() { vec!["-".to_string()] } else { args.inputs.clone() };
    check_inputs(&inputs)?;
    // The backend that produced the next record: auto may fall back from gpu to cpu-lanes mid-run.
    let name = Cell::new(backend.name());
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
    let result = match solver_threads(backend.kind(), &settings, args.settings.batch.is_some()) {
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
    let seconds = started.elapsed().as_secs_f64();
    Ok(exit_code(&summary, name.get(), seconds, disagreements, &interrupt, last_line, args.allow_unsolved))
}

/// Says how the run went on stderr, and the exit status that tells it.
fn exit_code(
    summary: &Summary,
    backend: &str,
    seconds: f64,
    disagreements: usize,
    interrupt: &Interrupt,
    last_line: Option<usize>,
    allow_unsolved: bool,
) -> ExitCode {
    say!("{}", summary.describe(backend, seconds));
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
        return code;
    }
    if summary.failed > 0 {
        say!("error: the engine failed on {} puzzles (see their records); please report", summary.failed);
        return ExitCode::from(2);
    }
    if summary.all_solved() || allow_unsolved {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
