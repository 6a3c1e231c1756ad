//! `devices`: the GPU adapters wgpu finds, and the one `auto` picks.

use std::io::{self, Write};
use std::process::ExitCode;

use sudoku_anneal::backend::gpu::{list_adapters, AdapterChoice};
use sudoku_anneal::{BackendChoice, BackendKind};

pub fn run() -> anyhow::Result<ExitCode> {
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
