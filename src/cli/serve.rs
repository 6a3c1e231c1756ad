//! `serve`: the live page on a local address.

use std::process::ExitCode;

use anyhow::Context;
use sudoku_anneal::say;

use super::DeviceArgs;

#[derive(clap::Args)]
pub struct ServeArgs {
    /// Where to listen: the loopback address unless you ask for another.
    #[arg(long, default_value = "127.0.0.1:8080")]
    addr: std::net::SocketAddr,
    #[command(flatten)]
    device: DeviceArgs,
}

pub fn run(args: ServeArgs) -> anyhow::Result<ExitCode> {
    let ready = |addr| say!("serving http://{addr}/ (Ctrl-C stops)");
    let serve = sudoku_anneal::serve::serve(args.addr, args.device.adapter, ready);
    serve.with_context(|| format!("cannot serve on {}", args.addr))?;
    Ok(ExitCode::SUCCESS)
}
