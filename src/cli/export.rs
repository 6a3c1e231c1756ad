//! `export`: each puzzle's model for other annealers.

use std::io::{self, Write};
use std::process::ExitCode;

use anyhow::Context;
use clap::ValueEnum;
use sudoku_anneal::model::Model;
use sudoku_anneal::puzzle::{check_inputs, entries};
use sudoku_anneal::settings::ModelOptions;
use sudoku_anneal::{export, say};

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
pub struct ExportArgs {
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

pub fn run(args: ExportArgs) -> anyhow::Result<ExitCode> {
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
        let model = entry.grid.clone().and_then(|grid| Model::of_puzzle(&grid, mode));
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
