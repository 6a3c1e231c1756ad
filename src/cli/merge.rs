//! `merge`: shard outputs joined back into input order.

use std::io;
use std::process::ExitCode;

use anyhow::Context;
use sudoku_anneal::{merge, say};

#[derive(clap::Args)]
pub struct MergeArgs {
    /// The shards' jsonl outputs, in any order.
    #[arg(required = true)]
    files: Vec<String>,
    /// How many records there should be (the puzzles of the input), so that
    /// missing last ones are found too.
    #[arg(long)]
    expect: Option<u64>,
}

pub fn run(args: MergeArgs) -> anyhow::Result<ExitCode> {
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
