//! Integration tests, one file per topic (ripgrep's layout).

mod bench;
mod bitsliced;
mod browser;
mod cells;
mod cli;
mod cpu_vs_gpu;
mod export;
mod faults;
mod fuzz;
mod merge;
mod model;
mod process;
mod reliability;
mod serve;
mod solve;
mod solver;
mod tempering;
mod util;
