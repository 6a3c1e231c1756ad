//! `bench`: the backends compared on puzzle files; the loop and its
//! statistics are the library's (`bench/`).

use std::io::{self, Write};
use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;
use sudoku_anneal::backend::gpu::{list_adapters, AdapterChoice};
use sudoku_anneal::backend::Backend;
use sudoku_anneal::puzzle::check_inputs;
use sudoku_anneal::{bench, say, BackendChoice, BackendKind, Overrides, Settings};

use super::interrupt::Interrupt;
use super::{make_backend, resolve, DeviceArgs};

#[derive(clap::Args)]
pub struct BenchArgs {
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

/// The most runs `bench` keeps: every outcome of every run stays in memory.
const MAX_RUNS: u64 = 10_000;

fn parse_svg_path(path: &str) -> Result<String, String> {
    match Path::new(path).extension() {
        Some(extension) if extension.eq_ignore_ascii_case("svg") => Ok(path.to_string()),
        _ => Err(format!("the plot is drawn as SVG: name it PATH.svg, not {path:?}")),
    }
}

/// A backend to benchmark and its settings.
type Contender = (Box<dyn Backend>, Settings);

/// The backends `bench` compares, and how many could not start (said on
/// stderr and left out).
fn contenders(args: &BenchArgs) -> anyhow::Result<(Vec<Contender>, usize)> {
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

pub fn run(args: BenchArgs) -> anyhow::Result<ExitCode> {
    check_inputs(&args.files)?;
    // Created now, so a bad path fails before the first puzzle, not after the last.
    let create = |path: &String| std::fs::File::create(path).with_context(|| format!("cannot write {path}"));
    let json_file = args.json.as_ref().map(create).transpose()?;
    if let Some(path) = &args.plot {
        create(path)?;
    }
    let (mut backends, skipped) = contenders(&args)?;
    if backends.is_empty() {
        anyhow::bail!("no backend to benchmark could start");
    }
    let interrupt = Interrupt::install()?;
    let stop = || interrupt.raised();
    let mut reports = Vec::new();
    for (backend, settings) in &mut backends {
        let done = |report: &bench::Report| say!("bench: {} on {} done", report.file, report.backend);
        let batch_chosen = args.settings.batch.is_some();
        reports.extend(bench::run_files(backend.as_mut(), settings, &args.files, args.runs, batch_chosen, stop, done)?);
        if stop() {
            break;
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
