//! The `sudoku-anneal` command line: parse flags into validated settings,
//! stream puzzles through the solver, print one record per puzzle.

mod cli;

use std::io::{self, Write};
use std::process::ExitCode;

use anyhow::Context;
use clap::{CommandFactory, Parser, Subcommand};

use sudoku_anneal::{say, Error};

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
    Solve(cli::solve::SolveArgs),
    /// Solve puzzle files on several backends and compare: markdown table,
    /// optional JSON and time-to-solution plot.
    Bench(cli::bench::BenchArgs),
    /// Write the model of each puzzle for other annealers, in input order.
    Export(cli::export::ExportArgs),
    /// Join shard outputs (`solve --format jsonl --shard K/N`) into input
    /// order; says which indices are missing or repeated (exit 1).
    Merge(cli::merge::MergeArgs),
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
    Serve(cli::serve::ServeArgs),
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
        Command::Solve(args) => cli::solve::run(args),
        Command::Bench(args) => cli::bench::run(args),
        Command::Export(args) => cli::export::run(args),
        Command::Merge(args) => cli::merge::run(args),
        Command::Devices => cli::devices::run(),
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
        Command::Serve(args) => cli::serve::run(args),
    }
}
