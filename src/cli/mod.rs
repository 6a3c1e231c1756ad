//! The command line's drivers, one file per subcommand; `main.rs` parses
//! the arguments and calls them. What they share: the device flag, and
//! how a backend is built and its settings resolved.

pub mod bench;
pub mod devices;
pub mod export;
mod interrupt;
pub mod merge;
pub mod serve;
pub mod solve;

use sudoku_anneal::backend::gpu::AdapterName;
use sudoku_anneal::backend::Backend;
use sudoku_anneal::{say, BackendChoice, Overrides, Settings};

#[derive(clap::Args)]
pub struct DeviceArgs {
    /// The GPU the gpu and gpu-bits backends (and auto) run on: its number
    /// in `sudoku-anneal devices`, or a part of its name (e.g. one shard
    /// per GPU of a host).
    #[arg(long, value_name = "N|NAME")]
    adapter: Option<AdapterName>,
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

/// The backend of `choice`, said on stderr for a GPU.
fn make_backend(choice: BackendChoice, adapter: Option<&AdapterName>) -> anyhow::Result<Box<dyn Backend>> {
    let (kind, backend) = choice.build_on(adapter)?;
    if kind.is_gpu() && choice != BackendChoice::Auto {
        say!("{} backend on {}", kind.name(), backend.device());
    }
    Ok(backend)
}
